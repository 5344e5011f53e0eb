// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM selftest: libvmgpu as a runtime engineer uses it. Typed kernel
 * arguments (set by index, type checked, buffers declared to the command
 * buffer), the limits the library checks before the driver with a
 * message naming the limit, errors that come back from a wait, fault
 * reports that name the buffer, a handle over an existing DRM fd, and
 * the fdinfo memory keys.
 */
#include <fcntl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "vmgpu_test_util.h"

FIXTURE(api) {
	struct vmgpu_device *dev;
	struct vmgpu_context *ctx;
	struct vmgpu_cmdbuf *cb;
	struct vmgpu_bo *saxpy;
	uint32_t syncobj;
	struct vmgpu_info info;
};

static struct vmgpu_bo *builtin(struct vmgpu_device *dev, const char *name)
{
	return make_kernel(dev, vmgpu_builtin_kernel_source(name));
}

FIXTURE_SETUP(api)
{
	ASSERT_EQ(0, vmgpu_device_open(0, &self->dev, NULL, 0));
	ASSERT_EQ(0, vmgpu_device_query(self->dev, &self->info));
	ASSERT_EQ(0, vmgpu_context_create(self->dev, VMGPU_PRIORITY_NORMAL,
					  &self->ctx));
	ASSERT_EQ(0, vmgpu_cmdbuf_create(self->dev, &self->cb));
	self->saxpy = builtin(self->dev, "saxpy");
	ASSERT_NE(NULL, self->saxpy);
	ASSERT_EQ(0, vmgpu_syncobj_create(self->dev, &self->syncobj));
}

FIXTURE_TEARDOWN(api)
{
	vmgpu_syncobj_destroy(self->dev, self->syncobj);
	vmgpu_bo_destroy(self->saxpy);
	vmgpu_cmdbuf_destroy(self->cb);
	vmgpu_context_destroy(self->ctx);
	vmgpu_device_close(self->dev);
}

/* The last error message of @dev contains @want. */
#define EXPECT_MSG(dev, want)						\
	do {								\
		char msg_[256];						\
		vmgpu_error_message(dev, msg_, sizeof(msg_));		\
		EXPECT_NE(NULL, strstr(msg_, want))			\
			TH_LOG("message '%s', want '%s'", msg_, want);	\
	} while (0)

static int submit_wait(struct __test_metadata *_metadata,
		       FIXTURE_DATA(api) *self, uint32_t gpu)
{
	struct vmgpu_sync out = { .handle = self->syncobj };
	struct vmgpu_submit_info si = { .gpu = gpu, .out = &out,
					.out_count = 1 };
	int ret;

	ret = vmgpu_submit(self->ctx, self->cb, &si);
	if (ret < 0)
		return ret;
	ret = vmgpu_syncobj_wait(self->dev, self->syncobj, 0, 30 * SEC_NS);
	vmgpu_cmdbuf_reset(self->cb);
	return ret;
}

TEST_F(api, typed_arguments_by_index)
{
	const uint32_t n = 1000;
	struct vmgpu_dispatch_desc d = { 0 };
	struct vmgpu_param_info pi;
	struct vmgpu_bo *x, *y;
	struct vmgpu_args *a;
	float *xm, *ym;
	uint32_t i;

	EXPECT_STREQ("saxpy", vmgpu_kernel_name(self->saxpy));
	ASSERT_EQ(4, vmgpu_kernel_param_count(self->saxpy));
	ASSERT_EQ(0, vmgpu_kernel_param(self->saxpy, 3, &pi));
	EXPECT_STREQ("y", pi.name);
	EXPECT_EQ(VMGPU_PARAM_BUF_RW, pi.type);
	EXPECT_EQ(16, pi.offset);
	EXPECT_EQ(8, pi.size);

	x = make_bo(self->dev, n * 4, (void **)&xm);
	y = make_bo(self->dev, n * 4, (void **)&ym);
	ASSERT_NE(NULL, x);
	ASSERT_NE(NULL, y);
	for (i = 0; i < n; i++) {
		xm[i] = (float)i;
		ym[i] = 1.0f;
	}
	ASSERT_EQ(0, vmgpu_args_create(self->saxpy, &a));
	ASSERT_EQ(0, vmgpu_args_set_i32(a, 0, n));
	ASSERT_EQ(0, vmgpu_args_set_f32(a, 1, 2.0f));
	ASSERT_EQ(0, vmgpu_args_set_buffer(a, 2, x, 0));
	ASSERT_EQ(0, vmgpu_args_set_buffer(a, 3, y, 0));
	d.kernel = self->saxpy;
	d.typed_args = a;
	d.grid[0] = (n + 127) / 128;
	d.block[0] = 128;
	ASSERT_EQ(0, vmgpu_cmdbuf_dispatch(self->cb, &d));
	ASSERT_EQ(0, submit_wait(_metadata, self, 0));
	for (i = 0; i < n && ym[i] == 2.0f * i + 1.0f; i++)
		;
	EXPECT_EQ(n, i) TH_LOG("y[%u] = %f", i, ym[i % n]);
	vmgpu_args_destroy(a);
	vmgpu_bo_destroy(x);
	vmgpu_bo_destroy(y);
}

TEST_F(api, typed_arguments_refused_with_a_reason)
{
	struct vmgpu_dispatch_desc d = { 0 };
	struct vmgpu_device *other;
	struct vmgpu_bo *theirs, *mine;
	struct vmgpu_args *a;
	void *map;

	ASSERT_EQ(0, vmgpu_args_create(self->saxpy, &a));
	/* A type mismatch. */
	EXPECT_EQ(-EINVAL, vmgpu_args_set_f32(a, 0, 1.0f));
	EXPECT_MSG(self->dev, "argument 0 'n' is i32, not f32");
	EXPECT_EQ(-EINVAL, vmgpu_args_set_i32(a, 2, 7));
	EXPECT_MSG(self->dev, "argument 2 'x' is buf_ro, not i32");
	EXPECT_EQ(-EINVAL, vmgpu_args_set_i32(a, 4, 7));
	EXPECT_MSG(self->dev, "has 4 parameters: no argument 4");
	/* A buffer of another device handle. */
	ASSERT_EQ(0, vmgpu_device_open(0, &other, NULL, 0));
	theirs = make_bo(other, 4096, &map);
	ASSERT_NE(NULL, theirs);
	EXPECT_EQ(-EINVAL, vmgpu_args_set_buffer(a, 2, theirs, 0));
	EXPECT_MSG(self->dev, "buffer of another device handle");
	mine = make_bo(self->dev, 4096, &map);
	ASSERT_NE(NULL, mine);
	EXPECT_EQ(-EINVAL, vmgpu_args_set_buffer(a, 2, mine, 4096));
	EXPECT_MSG(self->dev, "offset 4096 outside the 4096-byte buffer");
	/* A missing argument. */
	ASSERT_EQ(0, vmgpu_args_set_i32(a, 0, 16));
	ASSERT_EQ(0, vmgpu_args_set_f32(a, 1, 1.0f));
	ASSERT_EQ(0, vmgpu_args_set_buffer(a, 2, mine, 0));
	d.kernel = self->saxpy;
	d.typed_args = a;
	EXPECT_EQ(-EINVAL, vmgpu_cmdbuf_dispatch(self->cb, &d));
	EXPECT_MSG(self->dev, "argument 3 'y' (buf_rw) not set");
	EXPECT_EQ(0, vmgpu_cmdbuf_dispatch_count(self->cb));
	/* Typed and raw at once. */
	ASSERT_EQ(0, vmgpu_args_set_buffer(a, 3, mine, 0));
	d.args = &d;
	d.args_bytes = 24;
	EXPECT_EQ(-EINVAL, vmgpu_cmdbuf_dispatch(self->cb, &d));
	EXPECT_MSG(self->dev, "both typed arguments and a raw argument block");
	/* A kernel without a signature has no typed arguments. */
	{
		struct vmgpu_bo *old = make_kernel(self->dev, store_to_src);
		struct vmgpu_args *b = NULL;

		ASSERT_NE(NULL, old);
		EXPECT_EQ(NULL, vmgpu_kernel_name(old));
		EXPECT_EQ(-ENOENT, vmgpu_args_create(old, &b));
		EXPECT_MSG(self->dev, "kernel has no signature");
		vmgpu_bo_destroy(old);
	}
	vmgpu_args_destroy(a);
	vmgpu_bo_destroy(mine);
	vmgpu_bo_destroy(theirs);
	vmgpu_device_close(other);
}

/* copy32: dst[i] = src[i] for i < n, typed. */
static const char copy32_src[] =
	".kernel copy32\n"
	".param n, i32\n"
	".param src, buf_ro\n"
	".param dst, buf_wo\n"
	"	s2r r0, %ctaid.x\n"
	"	s2r r1, %ntid.x\n"
	"	s2r r2, %tid.x\n"
	"	mad r0, r0, r1, r2\n"
	"	ldarg r1, n\n"
	"	setp.geu p0, r0, r1\n"
	"	bra p0, done\n"
	"	ldarg.64 r2, src\n"
	"	ldarg.64 r4, dst\n"
	"	lea r2, r2, r0, 2\n"
	"	lea r4, r4, r0, 2\n"
	"	ld.32 r6, [r2]\n"
	"	st.32 [r4], r6\n"
	"done:\n"
	"	exit\n";

/*
 * Buffer arguments are declared to the command buffer with their access:
 * a reader on another GPU, submitted at once with no explicit sync, still
 * waits for the writer (the driver's implicit fences on declared
 * buffers). Undeclared, the reader would run while the writer spins.
 */
TEST_F(api, typed_buffers_get_implicit_sync)
{
	const uint32_t n = 256;
	struct vmgpu_dispatch_desc d = { 0 };
	struct vmgpu_bo *fill, *copy, *y, *z;
	struct vmgpu_cmdbuf *cb2;
	struct vmgpu_args *w, *r;
	uint32_t *ym, *zm, done, i;
	struct vmgpu_sync out = { 0 };
	struct vmgpu_submit_info si = { .out = &out, .out_count = 1 };

	if (self->info.num_gpus < 2)
		SKIP(return, "needs two GPUs");
	fill = builtin(self->dev, "fill");
	copy = make_kernel(self->dev, copy32_src);
	y = make_bo(self->dev, n * 4, (void **)&ym);
	z = make_bo(self->dev, n * 4, (void **)&zm);
	ASSERT_NE(NULL, fill);
	ASSERT_NE(NULL, copy);
	ASSERT_NE(NULL, y);
	ASSERT_NE(NULL, z);
	ASSERT_EQ(0, vmgpu_cmdbuf_create(self->dev, &cb2));
	ASSERT_EQ(0, vmgpu_syncobj_create(self->dev, &done));

	/* Writer, GPU 0: y[i] = i + 1 after a long idle spin. */
	ASSERT_EQ(0, vmgpu_args_create(fill, &w));
	ASSERT_EQ(0, vmgpu_args_set_buffer(w, 0, y, 0));
	ASSERT_EQ(0, vmgpu_args_set_i32(w, 1, n));
	ASSERT_EQ(0, vmgpu_args_set_i32(w, 2, 1));
	ASSERT_EQ(0, vmgpu_args_set_i32(w, 3, 1));
	ASSERT_EQ(0, vmgpu_args_set_i32(w, 4, 200000));
	d.kernel = fill;
	d.typed_args = w;
	d.grid[0] = 1;
	d.block[0] = n;
	ASSERT_EQ(0, vmgpu_cmdbuf_dispatch(self->cb, &d));
	/* Reader, GPU 1: z = y. */
	ASSERT_EQ(0, vmgpu_args_create(copy, &r));
	ASSERT_EQ(0, vmgpu_args_set_i32(r, 0, n));
	ASSERT_EQ(0, vmgpu_args_set_buffer(r, 1, y, 0));
	ASSERT_EQ(0, vmgpu_args_set_buffer(r, 2, z, 0));
	d.kernel = copy;
	d.typed_args = r;
	ASSERT_EQ(0, vmgpu_cmdbuf_dispatch(cb2, &d));

	si.gpu = 0;
	out.handle = self->syncobj;
	ASSERT_EQ(1, vmgpu_submit(self->ctx, self->cb, &si));
	si.gpu = 1;
	out.handle = done;
	ASSERT_EQ(1, vmgpu_submit(self->ctx, cb2, &si));
	ASSERT_EQ(0, vmgpu_syncobj_wait(self->dev, done, 0, 60 * SEC_NS));
	for (i = 0; i < n && zm[i] == i + 1; i++)
		;
	EXPECT_EQ(n, i) TH_LOG("z[%u] = %u: the reader ran before the writer",
			       i, zm[i % n]);
	ASSERT_EQ(0, vmgpu_syncobj_wait(self->dev, self->syncobj, 0,
					60 * SEC_NS));
	vmgpu_args_destroy(w);
	vmgpu_args_destroy(r);
	vmgpu_syncobj_destroy(self->dev, done);
	vmgpu_cmdbuf_destroy(cb2);
	vmgpu_bo_destroy(z);
	vmgpu_bo_destroy(y);
	vmgpu_bo_destroy(copy);
	vmgpu_bo_destroy(fill);
}

/* Every rule the driver enforces, refused first by the library. */
TEST_F(api, limits_named_before_the_driver)
{
	struct vmgpu_dispatch_desc d = { 0 };
	struct vmgpu_bo *bo;
	uint8_t args[24] = { 0 };
	char want[96];
	uint32_t i;
	int ret;

	d.kernel = self->saxpy;
	d.args = args;
	d.args_bytes = sizeof(args);
	d.grid[0] = 70000;
	d.grid[1] = 70000;
	EXPECT_EQ(-EINVAL, vmgpu_cmdbuf_dispatch(self->cb, &d));
	snprintf(want, sizeof(want), "4900000000, the limit is %u",
		 VMGPU_MAX_GRID_BLOCKS);
	EXPECT_MSG(self->dev, want);
	d.grid[0] = d.grid[1] = 1;
	d.block[0] = 64;
	d.block[1] = 32;
	EXPECT_EQ(-EINVAL, vmgpu_cmdbuf_dispatch(self->cb, &d));
	snprintf(want, sizeof(want), "2048, the limit is %u",
		 VMGPU_MAX_BLOCK_THREADS);
	EXPECT_MSG(self->dev, want);
	d.block[1] = 1;
	d.shared_bytes = VMGPU_MAX_SHARED_BYTES + 4;
	EXPECT_EQ(-EINVAL, vmgpu_cmdbuf_dispatch(self->cb, &d));
	snprintf(want, sizeof(want), "%u, the limit is %u",
		 VMGPU_MAX_SHARED_BYTES + 4, VMGPU_MAX_SHARED_BYTES);
	EXPECT_MSG(self->dev, want);
	d.shared_bytes = 0;
	EXPECT_EQ(0, vmgpu_cmdbuf_dispatch_count(self->cb));

	/* Dispatches per packet. */
	for (i = 0; i < self->info.max_dispatches; i++)
		ASSERT_EQ((int)i, vmgpu_cmdbuf_dispatch(self->cb, &d));
	EXPECT_EQ(-E2BIG, vmgpu_cmdbuf_dispatch(self->cb, &d));
	snprintf(want, sizeof(want), "%u, the limit is %u",
		 self->info.max_dispatches + 1, self->info.max_dispatches);
	EXPECT_MSG(self->dev, want);
	vmgpu_cmdbuf_reset(self->cb);

	/* Command-buffer bytes. */
	for (i = 0, ret = 0; !ret && i < self->info.cmdbuf_max_bytes; i++)
		ret = vmgpu_cmdbuf_barrier(self->cb);
	EXPECT_EQ(-E2BIG, ret);
	snprintf(want, sizeof(want), "the limit is %u",
		 self->info.cmdbuf_max_bytes);
	EXPECT_MSG(self->dev, want);
	vmgpu_cmdbuf_reset(self->cb);

	/* Buffers: size and placement. */
	EXPECT_EQ(-E2BIG, vmgpu_bo_create(self->dev, 2ull << 30, 0,
					  VMGPU_PLACEMENT_SYSTEM, &bo));
	EXPECT_MSG(self->dev, "2147483648 bytes, the limit is 1073741824");
	EXPECT_EQ(-EINVAL, vmgpu_bo_create(self->dev, 4096, 0,
					   VMGPU_PLACEMENT_GPU(self->info.num_gpus),
					   &bo));
	snprintf(want, sizeof(want),
		 "VMGPU_PLACEMENT_GPU(%u): no such GPU (GPUs 0..%u)",
		 self->info.num_gpus, self->info.num_gpus - 1);
	EXPECT_MSG(self->dev, want);
}

/*
 * A packet that faults: the wait returns its error, and the report names
 * the buffer and offset of the address, or says it is in none.
 */
TEST_F(api, fault_comes_back_from_wait_and_names_the_buffer)
{
	struct vmgpu_context_status st;
	struct vmgpu_dispatch_desc d;
	struct store_to_args sa = { .value = 1 };
	struct vmgpu_bo *k, *ro;
	char text[256], want[96];
	void *map;

	k = make_kernel(self->dev, store_to_src);
	ASSERT_NE(NULL, k);
	/* A store into a read-only buffer, 40 bytes in. */
	ASSERT_EQ(0, vmgpu_bo_create(self->dev, 4096, VMGPU_BO_GPU_READ_ONLY,
				     VMGPU_PLACEMENT_SYSTEM, &ro));
	ASSERT_EQ(0, vmgpu_bo_map(ro, &map));
	sa.addr = vmgpu_bo_gpu_va(ro) + 40;
	fill_dispatch(&d, k, &sa, sizeof(sa), 1, 1);
	ASSERT_EQ(0, vmgpu_cmdbuf_dispatch(self->cb, &d));
	ASSERT_EQ(0, vmgpu_cmdbuf_use(self->cb, ro, VMGPU_USE_READ));
	EXPECT_EQ(-EFAULT, submit_wait(_metadata, self, 0));
	EXPECT_MSG(self->dev, "the packet failed");
	ASSERT_EQ(0, vmgpu_context_query(self->ctx, &st));
	EXPECT_EQ(VMGPU_FAULT_PERMISSION, st.fault);
	EXPECT_EQ(vmgpu_bo_handle(ro), st.bo_handle);
	EXPECT_EQ(40, st.bo_offset);
	ASSERT_LT(0, vmgpu_context_describe_fault(self->ctx, &st, text,
						  sizeof(text)));
	snprintf(want, sizeof(want), "offset 40 of buffer handle %u",
		 vmgpu_bo_handle(ro));
	EXPECT_NE(NULL, strstr(text, want)) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "access not permitted")) TH_LOG("%s", text);
	vmgpu_bo_destroy(ro);
	vmgpu_bo_destroy(k);

	/* The context is banned now: a fresh one for an address in nothing. */
	vmgpu_context_destroy(self->ctx);
	ASSERT_EQ(0, vmgpu_context_create(self->dev, VMGPU_PRIORITY_NORMAL,
					  &self->ctx));
	k = make_kernel(self->dev, store_to_src);
	ASSERT_NE(NULL, k);
	sa.addr = 0x7f0000000ull;
	fill_dispatch(&d, k, &sa, sizeof(sa), 1, 1);
	ASSERT_EQ(0, vmgpu_cmdbuf_dispatch(self->cb, &d));
	EXPECT_EQ(-EFAULT, submit_wait(_metadata, self, 0));
	ASSERT_EQ(0, vmgpu_context_query(self->ctx, &st));
	EXPECT_EQ(0, st.bo_handle);
	vmgpu_context_describe_fault(self->ctx, &st, text, sizeof(text));
	EXPECT_NE(NULL, strstr(text, "in no buffer of this device handle"))
		TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(vmgpu_strerror(-EFAULT), "fault"));
	EXPECT_NE(NULL, strstr(vmgpu_strerror(-ETIMEDOUT), "budget"));
	EXPECT_NE(NULL, strstr(vmgpu_strerror(-ECANCELED), "hung"));
	vmgpu_bo_destroy(k);
}

/* The work distributor's options go through the library and the driver. */
TEST_F(api, distributor_options)
{
	const uint32_t n = 512;
	struct vmgpu_dispatch_desc d = { 0 };
	struct vmgpu_bo *fill, *out;
	struct vmgpu_args *a;
	uint32_t *m, i;

	fill = builtin(self->dev, "fill");
	out = make_bo(self->dev, n * 4, (void **)&m);
	ASSERT_NE(NULL, fill);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, vmgpu_args_create(fill, &a));
	ASSERT_EQ(0, vmgpu_args_set_buffer(a, 0, out, 0));
	ASSERT_EQ(0, vmgpu_args_set_i32(a, 1, n));
	ASSERT_EQ(0, vmgpu_args_set_i32(a, 2, 3));
	ASSERT_EQ(0, vmgpu_args_set_i32(a, 3, 1));
	ASSERT_EQ(0, vmgpu_args_set_i32(a, 4, 0));
	ASSERT_EQ(0, vmgpu_cmdbuf_set_state(self->cb, VMGPU_STATE_SM_MASK_LO,
					    1));
	ASSERT_EQ(0, vmgpu_cmdbuf_set_state(self->cb,
					    VMGPU_STATE_LAUNCH_QUOTA, 2));
	d.kernel = fill;
	d.typed_args = a;
	d.grid[0] = n / 64;
	d.block[0] = 64;
	d.flags = VMGPU_DISPATCH_F_SEQUENTIAL | VMGPU_DISPATCH_F_HEAD;
	ASSERT_EQ(0, vmgpu_cmdbuf_dispatch(self->cb, &d));
	ASSERT_EQ(0, submit_wait(_metadata, self, 0));
	for (i = 0; i < n && m[i] == i * 3 + 1; i++)
		;
	EXPECT_EQ(n, i);
	d.flags = 1u << 7;
	EXPECT_EQ(-EINVAL, vmgpu_cmdbuf_dispatch(self->cb, &d));
	EXPECT_MSG(self->dev, "unknown dispatch flags");
	vmgpu_args_destroy(a);
	vmgpu_bo_destroy(out);
	vmgpu_bo_destroy(fill);
}

/* A context's dispatches keep to its band of distributor levels. */
TEST_F(api, dispatch_priority_band_of_the_context)
{
	static const struct {
		uint32_t ctx, level;
		int ret;
	} cases[] = {
		{ VMGPU_PRIORITY_NORMAL, 0, 0 },	/* the default */
		{ VMGPU_PRIORITY_NORMAL, DRM_VMGPU_LEVEL_MIN_NORMAL, 0 },
		{ VMGPU_PRIORITY_NORMAL, 15, 0 },
		{ VMGPU_PRIORITY_NORMAL, DRM_VMGPU_LEVEL_MIN_NORMAL - 1, -EACCES },
		{ VMGPU_PRIORITY_NORMAL, 1, -EACCES },
		{ VMGPU_PRIORITY_LOW, DRM_VMGPU_LEVEL_MIN_LOW - 1, -EACCES },
		{ VMGPU_PRIORITY_LOW, DRM_VMGPU_LEVEL_MIN_LOW, 0 },
		{ VMGPU_PRIORITY_HIGH, DRM_VMGPU_LEVEL_MIN_HIGH, 0 },	/* root */
	};
	struct store_to_args sa = { .value = 7 };
	struct vmgpu_dispatch_desc d;
	struct vmgpu_context *ctx;
	struct vmgpu_bo *k, *buf;
	uint32_t *m, i, state;

	k = make_kernel(self->dev, store_to_src);
	buf = make_bo(self->dev, 4096, (void **)&m);
	ASSERT_NE(NULL, k);
	ASSERT_NE(NULL, buf);
	sa.addr = vmgpu_bo_gpu_va(buf);
	for (i = 0; i < 2 * ARRAY_SIZE(cases); i++) {
		struct vmgpu_submit_info si = { .gpu = 0 };
		int want = cases[i / 2].ret;

		/* Each level once in DISPATCH, once as the packet's default. */
		state = i % 2;
		ASSERT_EQ(0, vmgpu_context_create(self->dev, cases[i / 2].ctx,
						  &ctx));
		fill_dispatch(&d, k, &sa, sizeof(sa), 1, 1);
		if (state) {
			ASSERT_EQ(0, vmgpu_cmdbuf_set_state(self->cb,
						VMGPU_STATE_DEFAULT_PRIORITY,
						cases[i / 2].level));
		} else {
			d.priority = cases[i / 2].level;
		}
		ASSERT_EQ(0, vmgpu_cmdbuf_dispatch(self->cb, &d));
		ASSERT_EQ(0, vmgpu_cmdbuf_use(self->cb, buf, 0));
		EXPECT_EQ(want < 0 ? want : 1,
			  vmgpu_submit(ctx, self->cb, &si))
			TH_LOG("context priority %u, level %u (%s)",
			       cases[i / 2].ctx, cases[i / 2].level,
			       state ? "default" : "dispatch");
		vmgpu_cmdbuf_reset(self->cb);
		vmgpu_context_destroy(ctx);
	}
	vmgpu_bo_destroy(buf);
	vmgpu_bo_destroy(k);
}

/* A dispatch from a task descriptor in a buffer, through the driver. */
TEST_F(api, launch_tmd)
{
	struct store_to_args sa = { .value = 0x7d };
	struct vmgpu_bo *k, *buf, *tmdbo, *argbo;
	struct vmgpu_tmd *t;
	uint32_t *m;
	void *am;
	int i;

	k = make_kernel(self->dev, store_to_src);
	buf = make_bo(self->dev, 4096, (void **)&m);
	tmdbo = make_bo(self->dev, 4096, (void **)&t);
	argbo = make_bo(self->dev, 4096, &am);
	ASSERT_NE(NULL, k);
	ASSERT_NE(NULL, argbo);
	sa.addr = vmgpu_bo_gpu_va(buf) + 8;
	memcpy(am, &sa, sizeof(sa));
	t->code_va = vmgpu_bo_gpu_va(k);
	t->args_va = vmgpu_bo_gpu_va(argbo);
	t->args_bytes = sizeof(sa);
	for (i = 0; i < 3; i++)
		t->grid[i] = t->block[i] = t->grid_total[i] = 1;
	ASSERT_EQ(0, vmgpu_cmdbuf_launch_tmd(self->cb, tmdbo, 0));
	ASSERT_EQ(0, vmgpu_cmdbuf_use(self->cb, k, VMGPU_USE_READ));
	ASSERT_EQ(0, vmgpu_cmdbuf_use(self->cb, argbo, VMGPU_USE_READ));
	ASSERT_EQ(0, vmgpu_cmdbuf_use(self->cb, buf, 0));
	ASSERT_EQ(0, submit_wait(_metadata, self, 0));
	EXPECT_EQ(0x7d, m[2]);
	/* The library refuses a TMD that runs past its buffer. */
	EXPECT_EQ(-EINVAL, vmgpu_cmdbuf_launch_tmd(self->cb, tmdbo, 4096 - 64));
	EXPECT_MSG(self->dev, "runs past the buffer");
	vmgpu_bo_destroy(argbo);
	vmgpu_bo_destroy(tmdbo);
	vmgpu_bo_destroy(buf);
	vmgpu_bo_destroy(k);
}

TEST(handle_over_an_open_fd)
{
	struct vmgpu_device *dev, *dev2;
	struct vmgpu_info info, info2;
	char err[128];
	int fd;

	ASSERT_EQ(0, vmgpu_device_open(0, &dev, NULL, 0));
	ASSERT_EQ(0, vmgpu_device_query(dev, &info));
	fd = open(info.node, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, vmgpu_device_open_fd(fd, &dev2, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, vmgpu_device_query(dev2, &info2));
	EXPECT_EQ(info.num_gpus, info2.num_gpus);
	EXPECT_STREQ(info.node, info2.node);
	/* The handle has its own descriptor: closing it leaves ours open. */
	EXPECT_NE(fd, vmgpu_device_fd(dev2));
	vmgpu_device_close(dev2);
	EXPECT_LE(0, fcntl(fd, F_GETFD));
	close(fd);
	fd = open("/dev/null", O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENODEV, vmgpu_device_open_fd(fd, &dev2, err, sizeof(err)));
	EXPECT_EQ(NULL, dev2);
	EXPECT_NE(NULL, strstr(err, "not an open vmgpu DRM device"));
	close(fd);
	vmgpu_device_close(dev);
}

/* A key of the fdinfo of @fd, in KiB; -1 if absent. */
static long long fdinfo_kib(int fd, const char *key)
{
	char path[64], line[256];
	long long v = -1;
	size_t klen = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':')
			v = strtoll(line + klen + 1, NULL, 10);
	fclose(f);
	return v;
}

TEST(fdinfo_memory_matches_the_buffers)
{
	struct vmgpu_device *dev;
	struct vmgpu_bo *sys, *local;
	void *map;
	int fd;

	/* A handle of its own: nothing but these buffers on its file. */
	ASSERT_EQ(0, vmgpu_device_open(0, &dev, NULL, 0));
	fd = vmgpu_device_fd(dev);
	EXPECT_EQ(0, fdinfo_kib(fd, "drm-total-system"));
	EXPECT_EQ(0, fdinfo_kib(fd, "drm-total-gpu0"));
	ASSERT_EQ(0, vmgpu_bo_create(dev, 64 << 10, 0, VMGPU_PLACEMENT_SYSTEM,
				     &sys));
	ASSERT_EQ(0, vmgpu_bo_create(dev, 128 << 10, 0, VMGPU_PLACEMENT_GPU(0),
				     &local));
	ASSERT_EQ(0, vmgpu_bo_map(sys, &map));
	memset(map, 1, 64 << 10);
	EXPECT_EQ(64, fdinfo_kib(fd, "drm-total-system"));
	EXPECT_EQ(64, fdinfo_kib(fd, "drm-memory-system"));
	EXPECT_EQ(64, fdinfo_kib(fd, "drm-resident-system"));
	EXPECT_EQ(128, fdinfo_kib(fd, "drm-total-gpu0"));
	vmgpu_bo_destroy(sys);
	EXPECT_EQ(0, fdinfo_kib(fd, "drm-total-system"));
	EXPECT_EQ(128, fdinfo_kib(fd, "drm-total-gpu0"));
	vmgpu_bo_destroy(local);
	EXPECT_EQ(0, fdinfo_kib(fd, "drm-total-gpu0"));
	vmgpu_device_close(dev);
}

TEST_HARNESS_MAIN
