// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM selftests of batched submission (SPEC B, issue 4): one packet of N
 * dispatches costs one interrupt and one deferred-work run, syncs order
 * dispatches without interrupts, results match the CPU, and the driver
 * rejects what the device must never see.
 */
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <xf86drm.h>

#include "kselftest_harness.h"
#include "vmgpu_test_util.h"

FIXTURE(batch) {
	struct vmgpu_device *dev;
	struct vmgpu_context *ctx;
	struct vmgpu_bo *add_one, *fill;
	uint32_t syncobj;
	uint32_t gpus;
};

FIXTURE_SETUP(batch)
{
	char err[256];
	struct vmgpu_info info;

	ASSERT_EQ(0, vmgpu_device_open(0, &self->dev, err, sizeof(err)))
		TH_LOG("open: %s", err);
	ASSERT_EQ(0, vmgpu_device_query(self->dev, &info));
	self->gpus = info.num_gpus;
	ASSERT_EQ(0, vmgpu_context_create(self->dev, VMGPU_PRIORITY_NORMAL,
					  &self->ctx));
	self->add_one = make_kernel(self->dev, add_one_src);
	ASSERT_NE(NULL, self->add_one);
	self->fill = make_kernel(self->dev, vmgpu_builtin_kernel_source("fill"));
	ASSERT_NE(NULL, self->fill);
	ASSERT_EQ(0, vmgpu_syncobj_create(self->dev, &self->syncobj));
}

FIXTURE_TEARDOWN(batch)
{
	vmgpu_syncobj_destroy(self->dev, self->syncobj);
	vmgpu_bo_destroy(self->fill);
	vmgpu_bo_destroy(self->add_one);
	vmgpu_context_destroy(self->ctx);
	vmgpu_device_close(self->dev);
}

static int submit_wait(struct vmgpu_context *ctx, struct vmgpu_device *dev,
		       struct vmgpu_cmdbuf *cb, uint32_t gpu, uint32_t flags,
		       uint32_t syncobj)
{
	struct vmgpu_sync out = { .handle = syncobj };
	struct vmgpu_submit_info info = {
		.gpu = gpu, .flags = flags, .out = &out, .out_count = 1,
	};
	char msg[256];
	int ret;

	ret = vmgpu_submit(ctx, cb, &info);
	if (ret < 0) {
		vmgpu_error_message(dev, msg, sizeof(msg));
		fprintf(stderr, "# submit: %s\n", msg);
		return ret;
	}
	ret = vmgpu_syncobj_wait(dev, syncobj, 0, 10 * SEC_NS);
	if (ret) {
		vmgpu_error_message(dev, msg, sizeof(msg));
		fprintf(stderr, "# wait: %s\n", msg);
	}
	return ret;
}

TEST_F(batch, one_dispatch_runs)
{
	struct vmgpu_dispatch_desc d;
	struct vmgpu_cmdbuf *cb;
	struct fill_args a;
	struct vmgpu_bo *out;
	uint32_t *p, i;
	void *map;

	out = make_bo(self->dev, 4096, &map);
	ASSERT_NE(NULL, out);
	p = map;
	ASSERT_EQ(0, vmgpu_cmdbuf_create(self->dev, &cb));
	a = (struct fill_args){ .out = vmgpu_bo_gpu_va(out), .n = 256,
				.mul = 3, .add = 7 };
	fill_dispatch(&d, self->fill, &a, sizeof(a), 4, 64);
	ASSERT_EQ(0, vmgpu_cmdbuf_dispatch(cb, &d));
	ASSERT_EQ(0, vmgpu_cmdbuf_use(cb, out, 0));
	ASSERT_EQ(0, submit_wait(self->ctx, self->dev, cb, 0, 0, self->syncobj));
	EXPECT_EQ(1, vmgpu_syncobj_status(self->dev, self->syncobj));
	for (i = 0; i < 256; i++)
		ASSERT_EQ(i * 3 + 7, p[i]) TH_LOG("element %u", i);
	vmgpu_cmdbuf_destroy(cb);
	vmgpu_bo_destroy(out);
}


/*
 * A packet of @n dispatches; dispatch i fills out[64 i .. 64 i + 63] with
 * j * (i + 1) + i. With @syncs, dispatch i waits for dispatch i - 1.
 */
static int run_packet(struct __test_metadata *_metadata,
		      FIXTURE_DATA(batch) *self, uint32_t gpu, uint32_t n,
		      bool syncs, uint32_t flags,
		      struct vmgpu_gpu_counters *delta)
{
	struct vmgpu_gpu_counters c0, c1;
	struct vmgpu_dispatch_desc d;
	uint32_t *p, i, j, snap[64 * 64];
	struct vmgpu_cmdbuf *cb;
	struct vmgpu_bo *out;
	void *map;
	int ret;

	if (n > 64)
		return -EINVAL;
	out = make_bo(self->dev, 64 * 4 * n, &map);
	if (!out)
		return -ENOMEM;
	p = map;
	ret = vmgpu_cmdbuf_create(self->dev, &cb);
	if (ret)
		return ret;
	ret = vmgpu_cmdbuf_use(cb, out, 0);
	for (i = 0; i < n && !ret; i++) {
		struct fill_args a = {
			.out = vmgpu_bo_gpu_va(out) + 256 * i, .n = 64,
			.mul = i + 1, .add = i,
		};

		if (syncs && i)
			ret = vmgpu_cmdbuf_sync(cb, i, i - 1);
		fill_dispatch(&d, self->fill, &a, sizeof(a), 2, 32);
		if (!ret)
			ret = vmgpu_cmdbuf_dispatch(cb, &d) == (int)i ? 0 : -EIO;
	}
	if (!ret)
		ret = vmgpu_gpu_counters(self->dev, gpu, &c0);
	if (!ret)
		ret = submit_wait(self->ctx, self->dev, cb, gpu, flags,
				  self->syncobj);
	/* Signalled: every dispatch must have written its results by now. */
	if (!ret)
		memcpy(snap, p, 256 * n);
	/* Let the deferred work finish its bookkeeping after the signal. */
	usleep(20000);
	if (!ret)
		ret = vmgpu_gpu_counters(self->dev, gpu, &c1);
	if (!ret) {
		delta->irqs = c1.irqs - c0.irqs;
		delta->irqs_complete = c1.irqs_complete - c0.irqs_complete;
		delta->work_runs = c1.work_runs - c0.work_runs;
		delta->packets = c1.packets - c0.packets;
		delta->dispatches = c1.dispatches - c0.dispatches;
		delta->hw_interrupts = c1.hw_interrupts - c0.hw_interrupts;
		delta->hw_dispatches = c1.hw_dispatches - c0.hw_dispatches;
		for (i = 0; i < n; i++)
			for (j = 0; j < 64; j++)
				if (snap[64 * i + j] != j * (i + 1) + i) {
					TH_LOG("dispatch %u element %u: %u", i,
					       j, snap[64 * i + j]);
					ret = -EIO;
					i = n;
					break;
				}
	}
	vmgpu_cmdbuf_destroy(cb);
	vmgpu_bo_destroy(out);
	return ret;
}

static void check_one_irq(struct __test_metadata *_metadata,
			  FIXTURE_DATA(batch) *self, bool syncs)
{
	static const uint32_t ns[] = { 1, 8, 33, 64 };
	struct vmgpu_gpu_counters d;
	uint32_t i, gpu;

	for (gpu = 0; gpu < self->gpus; gpu++) {
		for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
			ASSERT_EQ(0, run_packet(_metadata, self, gpu, ns[i],
						syncs, 0, &d))
				TH_LOG("gpu %u N=%u", gpu, ns[i]);
			EXPECT_EQ(1, d.irqs) TH_LOG("N=%u", ns[i]);
			EXPECT_EQ(1, d.irqs_complete) TH_LOG("N=%u", ns[i]);
			EXPECT_EQ(1, d.hw_interrupts) TH_LOG("N=%u", ns[i]);
			EXPECT_EQ(1, d.work_runs) TH_LOG("N=%u", ns[i]);
			EXPECT_EQ(1, d.packets) TH_LOG("N=%u", ns[i]);
			EXPECT_EQ(ns[i], d.dispatches) TH_LOG("N=%u", ns[i]);
			EXPECT_EQ(ns[i], d.hw_dispatches) TH_LOG("N=%u", ns[i]);
		}
	}
}

TEST_F(batch, packet_of_n_raises_one_irq_no_syncs)
{
	check_one_irq(_metadata, self, false);
}

TEST_F(batch, packet_of_n_raises_one_irq_with_syncs)
{
	check_one_irq(_metadata, self, true);
}

TEST_F(batch, baseline_mode_one_packet_per_dispatch)
{
	struct vmgpu_gpu_counters d;

	ASSERT_EQ(0, run_packet(_metadata, self, 0, 8, true,
				VMGPU_SUBMIT_BASELINE, &d));
	EXPECT_EQ(8, d.packets);
	EXPECT_EQ(8, d.hw_interrupts);
	EXPECT_EQ(8, d.dispatches);
}

/* 33 "read the previous, add one" dispatches; returns the violations. */
static int run_chain(struct __test_metadata *_metadata,
		     FIXTURE_DATA(batch) *self, bool syncs, uint32_t spin)
{
	struct vmgpu_dispatch_desc d;
	struct vmgpu_cmdbuf *cb;
	struct vmgpu_bo *buf;
	uint32_t *p, i;
	int bad = 0;
	void *map;

	buf = make_bo(self->dev, 4096, &map);
	if (!buf)
		return -1;
	p = map;
	if (vmgpu_cmdbuf_create(self->dev, &cb))
		return -1;
	vmgpu_cmdbuf_use(cb, buf, 0);
	for (i = 0; i < 33; i++) {
		struct add_one_args a = {
			.src = vmgpu_bo_gpu_va(buf) + 4 * i,
			.dst = vmgpu_bo_gpu_va(buf) + 4 * (i + 1),
			.spin = spin,
		};

		if (syncs && i)
			vmgpu_cmdbuf_sync(cb, i, i - 1);
		fill_dispatch(&d, self->add_one, &a, sizeof(a), 1, 1);
		if (vmgpu_cmdbuf_dispatch(cb, &d) != (int)i)
			return -1;
	}
	if (submit_wait(self->ctx, self->dev, cb, 0, 0, self->syncobj))
		return -1;
	for (i = 0; i <= 33; i++)
		if (p[i] != i)
			bad++;
	vmgpu_cmdbuf_destroy(cb);
	vmgpu_bo_destroy(buf);
	return bad;
}

TEST_F(batch, chain_of_33_with_syncs_is_ordered)
{
	EXPECT_EQ(0, run_chain(_metadata, self, true, 200));
}

TEST_F(batch, chain_of_33_without_syncs_violates_order)
{
	int bad = run_chain(_metadata, self, false, 200);

	ASSERT_LE(0, bad);
	EXPECT_LT(0, bad) TH_LOG("no dispatch overlapped its predecessor");
}

/* Raw packet: the words of one valid dispatch of add_one on @buf. */
static uint32_t put_dispatch(uint32_t *w, struct vmgpu_bo *k,
			     struct vmgpu_bo *args_bo)
{
	struct vmgpu_cmd_dispatch c;

	memset(&c, 0, sizeof(c));
	c.hdr = VMGPU_CMD_HDR(VMGPU_CMD_DISPATCH, VMGPU_CMD_LEN_DISPATCH);
	c.code_va = vmgpu_bo_gpu_va(k);
	c.args_va = vmgpu_bo_gpu_va(args_bo);
	c.args_bytes = 24;
	c.grid[0] = c.grid[1] = c.grid[2] = 1;
	c.block[0] = c.block[1] = c.block[2] = 1;
	c.grid_total[0] = c.grid_total[1] = c.grid_total[2] = 1;
	memcpy(w, &c, sizeof(c));
	return VMGPU_CMD_LEN_DISPATCH;
}

/* An argument buffer whose first block is valid add_one arguments. */
static struct vmgpu_bo *make_args(struct vmgpu_device *dev)
{
	struct add_one_args *a;
	struct vmgpu_bo *bo;
	void *map;

	bo = make_bo(dev, 4096, &map);
	if (!bo)
		return NULL;
	a = map;
	a->src = vmgpu_bo_gpu_va(bo) + 256;
	a->dst = vmgpu_bo_gpu_va(bo) + 260;
	return bo;
}

/*
 * Submit @n command words exactly as written (no END appended), with the
 * kernel and argument buffers, straight through the ioctl: the driver's
 * checks are what is under test.
 */
static int submit_raw(FIXTURE_DATA(batch) *self, const uint32_t *w,
		      uint32_t n, struct vmgpu_bo *b1, struct vmgpu_bo *b2)
{
	struct drm_vmgpu_submit_bo bos[2];
	struct drm_vmgpu_submit s = {
		.ctx_id = vmgpu_context_id(self->ctx),
		.cmdbuf = (uintptr_t)w,
		.cmdbuf_bytes = 4 * n,
		.bos = (uintptr_t)bos,
	};

	if (b1)
		bos[s.bo_count++] = (struct drm_vmgpu_submit_bo){
			.handle = vmgpu_bo_handle(b1) };
	if (b2)
		bos[s.bo_count++] = (struct drm_vmgpu_submit_bo){
			.handle = vmgpu_bo_handle(b2) };
	return ioctl(vmgpu_device_fd(self->dev), DRM_IOCTL_VMGPU_SUBMIT, &s) ?
	       -errno : 0;
}

#define SYNC(c, p) VMGPU_CMD_HDR(VMGPU_CMD_SYNC, 3), (c), (p)
#define END VMGPU_CMD_HDR(VMGPU_CMD_END, 1)

TEST_F(batch, bad_syncs_are_rejected)
{
	uint32_t w[256], n;
	struct vmgpu_cmdbuf *cb;
	struct vmgpu_bo *args;
	char msg[256];

	args = make_args(self->dev);
	ASSERT_NE(NULL, args);
	/* Two dispatches, a sync between them: accepted. */
	n = put_dispatch(w, self->add_one, args);
	w[n++] = VMGPU_CMD_HDR(VMGPU_CMD_SYNC, 3);
	w[n++] = 1;
	w[n++] = 0;
	n += put_dispatch(w + n, self->add_one, args);
	w[n++] = END;
	EXPECT_EQ(0, submit_raw(self, w, n, self->add_one, args));
	/* Consumer names a missing dispatch (2 of 2). */
	w[VMGPU_CMD_LEN_DISPATCH + 1] = 2;
	EXPECT_EQ(-EINVAL, submit_raw(self, w, n, self->add_one, args));
	/* Producer names a later dispatch. */
	w[VMGPU_CMD_LEN_DISPATCH + 1] = 1;
	w[VMGPU_CMD_LEN_DISPATCH + 2] = 1;
	EXPECT_EQ(-EINVAL, submit_raw(self, w, n, self->add_one, args));
	/* Consumer is the producer itself. */
	w[VMGPU_CMD_LEN_DISPATCH + 1] = 0;
	w[VMGPU_CMD_LEN_DISPATCH + 2] = 0;
	EXPECT_EQ(-EINVAL, submit_raw(self, w, n, self->add_one, args));
	/* The builder refuses them too, with a message. */
	ASSERT_EQ(0, vmgpu_cmdbuf_create(self->dev, &cb));
	EXPECT_EQ(-EINVAL, vmgpu_cmdbuf_sync(cb, 1, 0));
	vmgpu_error_message(self->dev, msg, sizeof(msg));
	EXPECT_NE(NULL, strstr(msg, "producer"));
	vmgpu_cmdbuf_destroy(cb);
	vmgpu_bo_destroy(args);
}

TEST_F(batch, malformed_packets_are_rejected)
{
	uint32_t w[64], n;
	struct vmgpu_cmd_dispatch *dp = (void *)w;
	struct vmgpu_bo *args;

	args = make_args(self->dev);
	ASSERT_NE(NULL, args);
	n = put_dispatch(w, self->add_one, args);
	w[n++] = END;
	ASSERT_EQ(0, submit_raw(self, w, n, self->add_one, args));

	/* No END. */
	EXPECT_EQ(-EINVAL, submit_raw(self, w, n - 1, self->add_one, args));
	/* END in the middle. */
	w[n] = END;
	EXPECT_EQ(-EINVAL, submit_raw(self, w, n + 1, self->add_one, args));
	/* Unknown opcode. */
	w[n - 1] = 0x000100ee;
	w[n] = END;
	EXPECT_EQ(-EINVAL, submit_raw(self, w, n + 1, self->add_one, args));
	/* Wrong length for BARRIER, reserved header bits. */
	w[n - 1] = VMGPU_CMD_HDR(VMGPU_CMD_BARRIER, 2);
	EXPECT_EQ(-EINVAL, submit_raw(self, w, n + 1, self->add_one, args));
	w[n - 1] = VMGPU_CMD_HDR(VMGPU_CMD_BARRIER, 1) | 0x100;
	EXPECT_EQ(-EINVAL, submit_raw(self, w, n + 1, self->add_one, args));
	w[n - 1] = END;
	/* A command running past the end. */
	EXPECT_EQ(-EINVAL, submit_raw(self, w, 5, self->add_one, args));
	/* Code in a buffer the submit does not list. */
	EXPECT_EQ(-EINVAL, submit_raw(self, w, n, args, NULL));
	/* Arguments outside any buffer. */
	dp->args_va = vmgpu_bo_gpu_va(args) + 4096 - 8;
	EXPECT_EQ(-EINVAL, submit_raw(self, w, n, self->add_one, args));
	dp->args_va = vmgpu_bo_gpu_va(args);
	/* Zero grid, too many threads, portion outside the index space. */
	dp->grid[1] = 0;
	EXPECT_EQ(-EINVAL, submit_raw(self, w, n, self->add_one, args));
	dp->grid[1] = 1;
	dp->block[0] = 1025;
	EXPECT_EQ(-EINVAL, submit_raw(self, w, n, self->add_one, args));
	dp->block[0] = 32;
	dp->block[1] = 64;
	EXPECT_EQ(-EINVAL, submit_raw(self, w, n, self->add_one, args));
	dp->block[0] = dp->block[1] = 1;
	dp->origin[0] = 1;
	EXPECT_EQ(-EINVAL, submit_raw(self, w, n, self->add_one, args));
	dp->origin[0] = 0;
	/* Unknown flags and reserved fields. */
	dp->flags = ~VMGPU_DISPATCH_F_ALL;
	EXPECT_EQ(-EINVAL, submit_raw(self, w, n, self->add_one, args));
	dp->flags = 0;
	dp->reserved = 1;
	EXPECT_EQ(-EINVAL, submit_raw(self, w, n, self->add_one, args));
	dp->reserved = 0;
	/* Writing into a GPU read-only buffer (the kernel). */
	w[n - 1] = VMGPU_CMD_HDR(VMGPU_CMD_WRITE_VALUE, 4);
	w[n] = 1;
	w[n + 1] = (uint32_t)vmgpu_bo_gpu_va(self->add_one);
	w[n + 2] = (uint32_t)(vmgpu_bo_gpu_va(self->add_one) >> 32);
	w[n + 3] = END;
	EXPECT_EQ(-EINVAL, submit_raw(self, w, n + 4, self->add_one, args));
	/* ... but into the argument buffer it is fine. */
	w[n + 1] = (uint32_t)vmgpu_bo_gpu_va(args);
	w[n + 2] = (uint32_t)(vmgpu_bo_gpu_va(args) >> 32);
	EXPECT_EQ(0, submit_raw(self, w, n + 4, self->add_one, args));
	vmgpu_bo_destroy(args);
}

static int ioctl_submit(int fd, struct drm_vmgpu_submit *s)
{
	return ioctl(fd, DRM_IOCTL_VMGPU_SUBMIT, s) ? -errno : 0;
}

TEST_F(batch, over_limit_and_bad_arguments_are_rejected)
{
	int fd = vmgpu_device_fd(self->dev);
	struct vmgpu_context_status st;
	struct drm_vmgpu_submit_bo bos[2];
	struct drm_vmgpu_ctx_create cc = { .priority = 1 };
	struct drm_vmgpu_submit s;
	struct vmgpu_bo *args;
	uint32_t *w, n, i;
	uint64_t max_bytes, max_disp;

	ASSERT_EQ(0, vmgpu_get_param(self->dev,
				     DRM_VMGPU_PARAM_CMDBUF_MAX_BYTES,
				     &max_bytes));
	ASSERT_EQ(0, vmgpu_get_param(self->dev, DRM_VMGPU_PARAM_MAX_DISPATCHES,
				     &max_disp));
	args = make_args(self->dev);
	ASSERT_NE(NULL, args);
	w = calloc(max_bytes / 4 + 64, 4);
	ASSERT_NE(NULL, w);
	bos[0] = (struct drm_vmgpu_submit_bo){ .handle = vmgpu_bo_handle(args) };
	bos[1] = (struct drm_vmgpu_submit_bo){
		.handle = vmgpu_bo_handle(self->add_one),
		.flags = DRM_VMGPU_SUBMIT_BO_READ,
	};
	ASSERT_EQ(0, ioctl(fd, DRM_IOCTL_VMGPU_CTX_CREATE, &cc));
	memset(&s, 0, sizeof(s));
	s.ctx_id = cc.ctx_id;
	s.bos = (uintptr_t)bos;
	s.bo_count = 2;
	s.cmdbuf = (uintptr_t)w;

	/* One dispatch over the device's limit: -E2BIG. */
	for (n = 0, i = 0; i <= max_disp; i++)
		n += put_dispatch(w + n, self->add_one, args);
	w[n++] = END;
	s.cmdbuf_bytes = 4 * n;
	EXPECT_EQ(-E2BIG, ioctl_submit(fd, &s));
	/* Exactly the limit: accepted. */
	n -= VMGPU_CMD_LEN_DISPATCH;
	w[n - 1] = END;
	s.cmdbuf_bytes = 4 * n;
	EXPECT_EQ(0, ioctl_submit(fd, &s));
	/* Bigger than the device's command buffer: -E2BIG. */
	for (i = 0; i < max_bytes / 4 + 1; i++)
		w[i] = VMGPU_CMD_HDR(VMGPU_CMD_NOP, 1);
	w[max_bytes / 4] = END;
	s.cmdbuf_bytes = max_bytes + 4;
	EXPECT_EQ(-E2BIG, ioctl_submit(fd, &s));
	s.cmdbuf_bytes = max_bytes;
	w[max_bytes / 4 - 1] = END;
	EXPECT_EQ(0, ioctl_submit(fd, &s));
	w[0] = END;
	s.cmdbuf_bytes = 4;
	EXPECT_EQ(0, ioctl_submit(fd, &s));
	/* Sizes, GPU, flags, padding, handles, pointers. */
	s.cmdbuf_bytes = 0;
	EXPECT_EQ(-EINVAL, ioctl_submit(fd, &s));
	s.cmdbuf_bytes = 6;
	EXPECT_EQ(-EINVAL, ioctl_submit(fd, &s));
	s.cmdbuf_bytes = 4;
	s.gpu = self->gpus;
	EXPECT_EQ(-EINVAL, ioctl_submit(fd, &s));
	s.gpu = 0;
	s.flags = 1;
	EXPECT_EQ(-EINVAL, ioctl_submit(fd, &s));
	s.flags = 0;
	s.pad2 = 1;
	EXPECT_EQ(-EINVAL, ioctl_submit(fd, &s));
	s.pad2 = 0;
	s.ctx_id = 12345;
	EXPECT_EQ(-ENOENT, ioctl_submit(fd, &s));
	s.ctx_id = cc.ctx_id;
	bos[0].handle = 9999;
	EXPECT_EQ(-ENOENT, ioctl_submit(fd, &s));
	bos[0].handle = vmgpu_bo_handle(args);
	bos[0].flags = 0x80;
	EXPECT_EQ(-EINVAL, ioctl_submit(fd, &s));
	bos[0].flags = 0;
	/* The same buffer twice. */
	bos[1].handle = bos[0].handle;
	EXPECT_EQ(-EINVAL, ioctl_submit(fd, &s));
	bos[1].handle = vmgpu_bo_handle(self->add_one);
	s.bo_count = 100000;
	EXPECT_EQ(-E2BIG, ioctl_submit(fd, &s));
	s.bo_count = 2;
	s.cmdbuf = 8;
	EXPECT_EQ(-EFAULT, ioctl_submit(fd, &s));
	s.cmdbuf = (uintptr_t)w;
	s.in_sync_count = 1;
	s.in_syncs = 8;
	EXPECT_EQ(-EFAULT, ioctl_submit(fd, &s));
	s.in_sync_count = 0;
	s.out_sync_count = 65;
	EXPECT_EQ(-E2BIG, ioctl_submit(fd, &s));
	s.out_sync_count = 0;
	/* Nothing of this banned the context: it still works. */
	EXPECT_EQ(0, ioctl_submit(fd, &s));
	EXPECT_EQ(0, vmgpu_context_query(self->ctx, &st));
	EXPECT_EQ(0, st.banned);
	free(w);
	vmgpu_bo_destroy(args);
}

TEST_F(batch, buffer_and_context_arguments_are_validated)
{
	int fd = vmgpu_device_fd(self->dev);
	struct drm_vmgpu_bo_create bc;
	struct drm_vmgpu_ctx_create cc;
	struct drm_vmgpu_bo_info bi;
	struct vmgpu_bo *bo;
	uint32_t g;

#define BC(sz, fl, pl) (bc = (struct drm_vmgpu_bo_create){ .size = (sz), \
	.flags = (fl), .placement = (pl) }, \
	ioctl(fd, DRM_IOCTL_VMGPU_BO_CREATE, &bc) ? -errno : 0)
	EXPECT_EQ(-EINVAL, BC(0, 0, 0));
	EXPECT_EQ(-EINVAL, BC(4096, 2, 0));
	EXPECT_EQ(-EINVAL, BC(4096, 0, 1 + self->gpus));
	EXPECT_EQ(-E2BIG, BC(1ull << 40, 0, 0));
	for (g = 0; g <= self->gpus; g++) {
		EXPECT_EQ(0, BC(100, 0, g));
		bi = (struct drm_vmgpu_bo_info){ .handle = bc.handle };
		ASSERT_EQ(0, ioctl(fd, DRM_IOCTL_VMGPU_BO_INFO, &bi));
		EXPECT_EQ(4096, bi.size);
		EXPECT_EQ(g, bi.placement);
		EXPECT_EQ(bc.gpu_va, bi.gpu_va);
		EXPECT_NE(0, bi.gpu_va);
		EXPECT_EQ(0, bi.gpu_va % 4096);
	}
	bc = (struct drm_vmgpu_bo_create){ .size = 4096, .pad = 1 };
	EXPECT_EQ(-1, ioctl(fd, DRM_IOCTL_VMGPU_BO_CREATE, &bc));
	bi = (struct drm_vmgpu_bo_info){ .handle = 77777 };
	EXPECT_EQ(-1, ioctl(fd, DRM_IOCTL_VMGPU_BO_INFO, &bi));
	EXPECT_EQ(ENOENT, errno);
	/* The library checks first and says why. */
	EXPECT_EQ(-EINVAL, vmgpu_bo_create(self->dev, 4096, 0,
					   VMGPU_PLACEMENT_GPU(self->gpus),
					   &bo));
	EXPECT_EQ(-EINVAL, vmgpu_bo_create(self->dev, 0, 0, 0, &bo));

	cc = (struct drm_vmgpu_ctx_create){ .priority = 3 };
	EXPECT_EQ(-1, ioctl(fd, DRM_IOCTL_VMGPU_CTX_CREATE, &cc));
	EXPECT_EQ(EINVAL, errno);
	cc = (struct drm_vmgpu_ctx_create){ .priority = 1, .flags = 1 };
	EXPECT_EQ(-1, ioctl(fd, DRM_IOCTL_VMGPU_CTX_CREATE, &cc));
	for (g = 0; g < 3; g++) {
		cc = (struct drm_vmgpu_ctx_create){ .priority = g };
		EXPECT_EQ(0, ioctl(fd, DRM_IOCTL_VMGPU_CTX_CREATE, &cc));
		EXPECT_NE(0, cc.ctx_id);
	}
}

/*
 * Issue 8, finding 10: raw words without END used to finish the command
 * buffer, so the next builder call failed ("command buffer already ended
 * (raw END)") and the submission carried no END. Seen to fail on d4d2f07:
 * vmgpu_cmdbuf_write_value returned -EINVAL.
 */
TEST_F(batch, raw_words_without_end_keep_the_builder_open)
{
	const uint32_t nop = VMGPU_CMD_HDR(VMGPU_CMD_NOP, VMGPU_CMD_LEN_NOP);
	struct vmgpu_cmdbuf *cb;
	struct vmgpu_bo *bo;
	uint32_t *p;

	ASSERT_EQ(0, vmgpu_bo_create(self->dev, 4096, 0, 0, &bo));
	ASSERT_EQ(0, vmgpu_bo_map(bo, (void **)&p));
	p[0] = 0;
	ASSERT_EQ(0, vmgpu_cmdbuf_create(self->dev, &cb));
	ASSERT_EQ(0, vmgpu_cmdbuf_raw(cb, &nop, 1));
	ASSERT_EQ(0, vmgpu_cmdbuf_write_value(cb, bo, 0, 0x5eed));
	EXPECT_EQ(4 * (1 + VMGPU_CMD_LEN_WRITE_VALUE + VMGPU_CMD_LEN_END),
		  vmgpu_cmdbuf_bytes(cb));
	ASSERT_EQ(0, submit_wait(self->ctx, self->dev, cb, 0, 0,
				 self->syncobj));
	EXPECT_EQ(0x5eed, p[0]);
	vmgpu_cmdbuf_destroy(cb);
	vmgpu_bo_destroy(bo);
}

TEST_F(batch, fdinfo_reports_usage)
{
	char path[64], buf[4096];
	FILE *f;
	size_t n;
	struct vmgpu_gpu_counters d;

	ASSERT_EQ(0, run_packet(_metadata, self, 0, 4, false, 0, &d));
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d",
		 vmgpu_device_fd(self->dev));
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	EXPECT_NE(NULL, strstr(buf, "drm-driver:\tvmgpu"));
	EXPECT_NE(NULL, strstr(buf, "drm-client-id:\t"));
	EXPECT_NE(NULL, strstr(buf, "drm-engine-gpu0:\t"));
	EXPECT_EQ(NULL, strstr(buf, "drm-engine-gpu0:\t0 ns")) TH_LOG("%s", buf);
	/* The PCI device, and the fixture's kernels as system memory. */
	{
		const char *t = strstr(buf, "drm-total-system:\t");
		const char *r = strstr(buf, "drm-resident-system:\t");

		ASSERT_NE(NULL, t) TH_LOG("%s", buf);
		ASSERT_NE(NULL, r) TH_LOG("%s", buf);
		EXPECT_LE(8, strtoull(t + strlen("drm-total-system:\t"), NULL,
				      10));
		EXPECT_LE(8, strtoull(r + strlen("drm-resident-system:\t"),
				      NULL, 10));
		EXPECT_NE(NULL, strstr(buf, "drm-total-gpu0:\t"));
		EXPECT_NE(NULL, strstr(buf, "drm-pdev:\t0000:"));
	}

	/* The same client in debugfs, with its packets counted. */
	{
		const char *id = strstr(buf, "drm-client-id:\t");
		char want[64], line[2048];
		struct stat st;
		bool found = false;

		ASSERT_NE(NULL, id);
		snprintf(want, sizeof(want), "client %llu packets ",
			 strtoull(id + strlen("drm-client-id:\t"), NULL, 10));
		ASSERT_EQ(0, fstat(vmgpu_device_fd(self->dev), &st));
		snprintf(path, sizeof(path),
			 "/sys/kernel/debug/dri/%u/client_counters",
			 minor(st.st_rdev));
		f = fopen(path, "r");
		ASSERT_NE(NULL, f);
		while (fgets(line, sizeof(line), f)) {
			char *p = strstr(line, "client ");

			/* "client N submits S packets P ..." */
			if (p && !strncmp(line, want, 7)) {
				unsigned long long cid, subm, pk;

				if (sscanf(line, "client %llu submits %llu packets %llu",
					   &cid, &subm, &pk) == 3 &&
				    cid == strtoull(id + strlen("drm-client-id:\t"),
						    NULL, 10)) {
					found = true;
					EXPECT_LE(1, pk);
					EXPECT_LE(pk, subm);
				}
			}
		}
		fclose(f);
		EXPECT_TRUE(found);
	}
}

/*
 * Context priority: LOW packets, then one HIGH packet, all behind the same
 * gate (a packet waiting for a word the CPU sets later); the HIGH packet
 * runs before every LOW packet that was not yet on the ring.
 */
TEST_F(batch, high_priority_context_overtakes_queued_low_work)
{
	enum { LOW = 24 };
	struct vmgpu_context *low, *high, *gate_ctx;
	struct vmgpu_cmdbuf *cb[LOW + 1], *gate, *kick;
	struct vmgpu_bo *ts[LOW + 1], *flag;
	struct vmgpu_sync gate_sync, done_sync;
	struct vmgpu_submit_info gate_info = { .gpu = 0 }, kick_info = { 0 };
	struct vmgpu_submit_info done_info = { .gpu = 0 };
	struct vmgpu_cmdbuf *empty;
	uint64_t *t[LOW + 1], inflight;
	uint32_t i, before = 0, done, gate_obj;
	void *map, *fmap;

	ASSERT_EQ(0, vmgpu_get_param(self->dev,
				     DRM_VMGPU_PARAM_INFLIGHT_PACKETS,
				     &inflight));

	ASSERT_EQ(0, vmgpu_context_create(self->dev, VMGPU_PRIORITY_LOW, &low));
	ASSERT_EQ(0, vmgpu_context_create(self->dev, VMGPU_PRIORITY_HIGH,
					  &high));
	ASSERT_EQ(0, vmgpu_context_create(self->dev, VMGPU_PRIORITY_NORMAL,
					  &gate_ctx));
	ASSERT_EQ(0, vmgpu_syncobj_create(self->dev, &done));
	ASSERT_EQ(0, vmgpu_syncobj_create(self->dev, &gate_obj));
	gate_sync = (struct vmgpu_sync){ .handle = gate_obj };
	flag = make_bo(self->dev, 4096, &fmap);
	ASSERT_NE(NULL, flag);
	ASSERT_EQ(0, vmgpu_cmdbuf_create(self->dev, &gate));
	ASSERT_EQ(0, vmgpu_cmdbuf_wait_value(gate, flag, 0, VMGPU_WAIT_EQ, 1,
					     ~0u));
	ASSERT_EQ(0, vmgpu_cmdbuf_create(self->dev, &kick));
	gate_info.out = &gate_sync;
	gate_info.out_count = 1;
	ASSERT_LE(0, vmgpu_submit(gate_ctx, gate, &gate_info));
	for (i = 0; i <= LOW; i++) {
		struct vmgpu_dispatch_desc d;
		struct fill_args a = {
			.out = vmgpu_bo_gpu_va(self->fill), .n = 0,
			.mul = 1, .add = i, .spin = 0,
		};
		struct vmgpu_submit_info info = {
			.gpu = 0, .in = &gate_sync, .in_count = 1,
		};

		/*
		 * Each packet its own timestamp buffer and no shared written
		 * buffer: no implicit fence orders the packets, only the
		 * scheduler does.
		 */
		ts[i] = make_bo(self->dev, 4096, &map);
		ASSERT_NE(NULL, ts[i]);
		t[i] = map;
		ASSERT_EQ(0, vmgpu_cmdbuf_create(self->dev, &cb[i]));
		fill_dispatch(&d, self->fill, &a, sizeof(a), 1, 32);
		ASSERT_EQ(0, vmgpu_cmdbuf_dispatch(cb[i], &d));
		ASSERT_EQ(0, vmgpu_cmdbuf_barrier(cb[i]));
		ASSERT_EQ(0, vmgpu_cmdbuf_timestamp(cb[i], ts[i], 0));
		ASSERT_LE(0, vmgpu_submit(i < LOW ? low : high, cb[i], &info));
	}
	/* Open the gate: set the word, ring the GPU's doorbell. */
	*(volatile uint32_t *)fmap = 1;
	ASSERT_LE(0, vmgpu_submit(gate_ctx, kick, &kick_info));
	/* The LOW context's packets run in order: this one ends last. */
	done_sync = (struct vmgpu_sync){ .handle = done };
	done_info.out = &done_sync;
	done_info.out_count = 1;
	ASSERT_EQ(0, vmgpu_cmdbuf_create(self->dev, &empty));
	ASSERT_LE(0, vmgpu_submit(low, empty, &done_info));
	ASSERT_EQ(0, vmgpu_syncobj_wait(self->dev, done, 0, 30 * SEC_NS));
	vmgpu_cmdbuf_destroy(empty);
	for (i = 0; i < LOW; i++)
		if (*t[i] < *t[LOW])
			before++;
	/*
	 * Packets waiting for a packet of the same GPU only wait until it is
	 * on the ring (drm_sched), so LOW packets fill the ring behind the
	 * gate before the HIGH one is submitted; every LOW packet still in
	 * the scheduler then comes after it.
	 */
	TH_LOG("%u of %u LOW packets finished before the HIGH one (%llu packets fit on the ring)",
	       before, LOW, (unsigned long long)inflight);
	EXPECT_LE(before, inflight);
	for (i = 0; i <= LOW; i++) {
		vmgpu_cmdbuf_destroy(cb[i]);
		vmgpu_bo_destroy(ts[i]);
	}
	vmgpu_cmdbuf_destroy(kick);
	vmgpu_cmdbuf_destroy(gate);
	vmgpu_bo_destroy(flag);
	vmgpu_syncobj_destroy(self->dev, gate_obj);
	vmgpu_syncobj_destroy(self->dev, done);
	vmgpu_context_destroy(gate_ctx);
	vmgpu_context_destroy(high);
	vmgpu_context_destroy(low);
}

TEST_HARNESS_MAIN
