// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM selftests of address-space isolation and of cross-file, cross-GPU
 * synchronisation: one file can never reach another's buffers except
 * through PRIME import; implicit (dma_resv) fences order work on a shared
 * buffer; syncobjs order work across GPUs.
 */
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "vmgpu_test_util.h"

FIXTURE(two) {
	struct vmgpu_device *a, *b;
	struct vmgpu_context *ca, *cb;
	uint32_t gpus;
};

FIXTURE_SETUP(two)
{
	struct vmgpu_info info;

	/* Two opens: two DRM files, two address spaces. */
	ASSERT_EQ(0, vmgpu_device_open(0, &self->a, NULL, 0));
	ASSERT_EQ(0, vmgpu_device_open(0, &self->b, NULL, 0));
	ASSERT_EQ(0, vmgpu_device_query(self->a, &info));
	self->gpus = info.num_gpus;
	ASSERT_EQ(0, vmgpu_context_create(self->a, 1, &self->ca));
	ASSERT_EQ(0, vmgpu_context_create(self->b, 1, &self->cb));
}

FIXTURE_TEARDOWN(two)
{
	vmgpu_context_destroy(self->cb);
	vmgpu_context_destroy(self->ca);
	vmgpu_device_close(self->b);
	vmgpu_device_close(self->a);
}

static int run(struct vmgpu_context *ctx, struct vmgpu_device *dev,
	       struct vmgpu_cmdbuf *cb, uint32_t gpu,
	       const struct vmgpu_sync *in, uint32_t nin,
	       const struct vmgpu_sync *out, uint32_t nout)
{
	struct vmgpu_submit_info info = {
		.gpu = gpu, .in = in, .in_count = nin, .out = out,
		.out_count = nout,
	};
	int ret = vmgpu_submit(ctx, cb, &info);

	return ret < 0 ? ret : 0;
}

TEST_F(two, buffers_of_one_file_are_unreachable_from_another)
{
	struct store_to_args sa;
	struct drm_vmgpu_bo_info bi;
	struct vmgpu_dispatch_desc d;
	struct vmgpu_bo *secret, *k, *own;
	struct vmgpu_cmdbuf *cb;
	struct vmgpu_sync out;
	uint32_t *p, syncobj, i, cmd[8];
	void *map, *omap;

	secret = make_bo(self->a, 4096, &map);
	ASSERT_NE(NULL, secret);
	p = map;
	for (i = 0; i < 1024; i++)
		p[i] = 0x5eC0000 + i;

	/* B cannot name A's handle. */
	bi = (struct drm_vmgpu_bo_info){ .handle = vmgpu_bo_handle(secret) };
	EXPECT_NE(0, ioctl(vmgpu_device_fd(self->b), DRM_IOCTL_VMGPU_BO_INFO,
			   &bi));

	/* B cannot put A's address in a command. */
	k = make_kernel(self->b, store_to_src);
	own = make_bo(self->b, 4096, &omap);
	ASSERT_NE(NULL, k);
	ASSERT_NE(NULL, own);
	ASSERT_EQ(0, vmgpu_cmdbuf_create(self->b, &cb));
	vmgpu_cmdbuf_use(cb, own, 0);
	cmd[0] = VMGPU_CMD_HDR(VMGPU_CMD_WRITE_VALUE, 4);
	cmd[1] = 7;
	cmd[2] = (uint32_t)(vmgpu_bo_gpu_va(secret) + 4096 * 64);
	cmd[3] = (uint32_t)((vmgpu_bo_gpu_va(secret) + 4096 * 64) >> 32);
	cmd[4] = VMGPU_CMD_HDR(VMGPU_CMD_END, 1);
	vmgpu_cmdbuf_raw(cb, cmd, 5);
	EXPECT_EQ(-EINVAL, run(self->cb, self->b, cb, 0, NULL, 0, NULL, 0));
	vmgpu_cmdbuf_destroy(cb);

	/*
	 * B's kernel stores through a pointer to A's address. In B's space
	 * that address is unmapped or one of B's own buffers: A's memory
	 * is never touched.
	 */
	ASSERT_EQ(0, vmgpu_syncobj_create(self->b, &syncobj));
	out.handle = syncobj;
	out.point = 0;
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, vmgpu_cmdbuf_create(self->b, &cb));
		sa.addr = vmgpu_bo_gpu_va(secret) + 4 * i;
		sa.value = 0xbad;
		fill_dispatch(&d, k, &sa, sizeof(sa), 1, 1);
		ASSERT_EQ(0, vmgpu_cmdbuf_dispatch(cb, &d));
		/* A new context each time: a fault bans the previous one. */
		vmgpu_context_destroy(self->cb);
		ASSERT_EQ(0, vmgpu_context_create(self->b, 1, &self->cb));
		ASSERT_EQ(0, run(self->cb, self->b, cb, 0, NULL, 0, &out, 1));
		ASSERT_EQ(0, wait_signalled(self->b, syncobj,
						10 * SEC_NS));
		vmgpu_cmdbuf_destroy(cb);
	}
	for (i = 0; i < 1024; i++)
		ASSERT_EQ(0x5eC0000 + i, p[i]) TH_LOG("word %u", i);
	vmgpu_syncobj_destroy(self->b, syncobj);
	vmgpu_bo_destroy(own);
	vmgpu_bo_destroy(k);
	vmgpu_bo_destroy(secret);
}

TEST_F(two, prime_import_shares_a_buffer)
{
	struct vmgpu_dispatch_desc d;
	struct store_to_args sa;
	struct vmgpu_bo *shared, *imported, *k;
	struct vmgpu_cmdbuf *cb;
	struct vmgpu_sync out;
	uint32_t *p, syncobj;
	void *map;
	int fd;

	shared = make_bo(self->a, 4096, &map);
	ASSERT_NE(NULL, shared);
	p = map;
	ASSERT_EQ(0, vmgpu_bo_export(shared, &fd));
	ASSERT_EQ(0, vmgpu_bo_import(self->b, fd, &imported));
	close(fd);
	EXPECT_EQ(vmgpu_bo_size(shared), vmgpu_bo_size(imported));

	k = make_kernel(self->b, store_to_src);
	ASSERT_NE(NULL, k);
	ASSERT_EQ(0, vmgpu_cmdbuf_create(self->b, &cb));
	sa = (struct store_to_args){ .addr = vmgpu_bo_gpu_va(imported) + 64,
				     .value = 0x1234 };
	fill_dispatch(&d, k, &sa, sizeof(sa), 1, 1);
	ASSERT_EQ(0, vmgpu_cmdbuf_dispatch(cb, &d));
	ASSERT_EQ(0, vmgpu_cmdbuf_use(cb, imported, 0));
	ASSERT_EQ(0, vmgpu_syncobj_create(self->b, &syncobj));
	out = (struct vmgpu_sync){ .handle = syncobj };
	ASSERT_EQ(0, run(self->cb, self->b, cb, 0, NULL, 0, &out, 1));
	ASSERT_EQ(0, wait_signalled(self->b, syncobj, 10 * SEC_NS));
	EXPECT_EQ(1, vmgpu_syncobj_status(self->b, syncobj));
	EXPECT_EQ(0x1234, p[16]);
	vmgpu_syncobj_destroy(self->b, syncobj);
	vmgpu_cmdbuf_destroy(cb);
	vmgpu_bo_destroy(k);
	/* A's buffer outlives B's import. */
	vmgpu_bo_destroy(imported);
	EXPECT_EQ(0x1234, p[16]);
	vmgpu_bo_destroy(shared);
}

/*
 * Producer on @gpu_p: waits until the CPU sets a flag, then fills @pbuf
 * with 41, 42, ... Consumer on @gpu_c: add_one of word 0 of the same
 * memory (@cbuf) into its word 1023. The CPU sets the flag only 100 ms
 * after both are queued, so only a sync (@list_buffer for implicit
 * fences, or @sync) keeps the consumer from reading the word too early.
 * Returns the consumer's result in *@result.
 */
static int produce_consume(struct __test_metadata *_metadata,
			   struct vmgpu_device *pdev, struct vmgpu_context *pctx,
			   struct vmgpu_bo *pbuf, uint32_t gpu_p,
			   struct vmgpu_device *cdev, struct vmgpu_context *cctx,
			   struct vmgpu_bo *cbuf, uint32_t gpu_c,
			   bool list_buffer, const struct vmgpu_sync *sync,
			   uint32_t *result)
{
	struct vmgpu_bo *fill, *add_one, *flag;
	struct vmgpu_cmdbuf *pcb, *ccb, *kick;
	struct vmgpu_context *kctx;
	struct vmgpu_dispatch_desc d;
	struct fill_args fa = {
		.out = vmgpu_bo_gpu_va(pbuf), .n = 64, .mul = 1, .add = 41,
	};
	struct add_one_args aa = {
		.src = vmgpu_bo_gpu_va(cbuf), .dst = vmgpu_bo_gpu_va(cbuf) + 4092,
	};
	struct vmgpu_sync out = { 0 };
	uint32_t done, *p;
	void *map, *fmap;
	int ret;

	fill = make_kernel(pdev, vmgpu_builtin_kernel_source("fill"));
	add_one = make_kernel(cdev, add_one_src);
	flag = make_bo(pdev, 4096, &fmap);
	if (!fill || !add_one || !flag || vmgpu_syncobj_create(cdev, &done) ||
	    vmgpu_context_create(pdev, 1, &kctx))
		return -1;
	vmgpu_cmdbuf_create(pdev, &pcb);
	vmgpu_cmdbuf_create(cdev, &ccb);
	vmgpu_cmdbuf_create(pdev, &kick);
	vmgpu_cmdbuf_wait_value(pcb, flag, 0, VMGPU_WAIT_EQ, 1, ~0u);
	fill_dispatch(&d, fill, &fa, sizeof(fa), 1, 64);
	vmgpu_cmdbuf_dispatch(pcb, &d);
	vmgpu_cmdbuf_use(pcb, pbuf, 0);
	fill_dispatch(&d, add_one, &aa, sizeof(aa), 1, 1);
	vmgpu_cmdbuf_dispatch(ccb, &d);
	if (list_buffer)
		vmgpu_cmdbuf_use(ccb, cbuf, 0);
	ret = run(pctx, pdev, pcb, gpu_p, NULL, 0, sync, sync ? 1 : 0);
	if (!ret) {
		out.handle = done;
		ret = run(cctx, cdev, ccb, gpu_c, sync, sync ? 1 : 0, &out, 1);
	}
	usleep(100000);
	/* Release the producer: set the flag, ring its GPU's doorbell. */
	*(volatile uint32_t *)fmap = 1;
	if (!ret)
		ret = run(kctx, pdev, kick, gpu_p, NULL, 0, NULL, 0);
	if (!ret)
		ret = vmgpu_syncobj_wait(cdev, done, 0, 20 * SEC_NS);
	if (!ret && vmgpu_bo_map(cbuf, &map) == 0) {
		p = map;
		*result = p[1023];
	}
	/* Let the producer finish before its buffers go. */
	usleep(100000);
	vmgpu_context_destroy(kctx);
	vmgpu_cmdbuf_destroy(kick);
	vmgpu_cmdbuf_destroy(pcb);
	vmgpu_cmdbuf_destroy(ccb);
	vmgpu_syncobj_destroy(cdev, done);
	vmgpu_bo_destroy(flag);
	vmgpu_bo_destroy(fill);
	vmgpu_bo_destroy(add_one);
	return ret;
}

TEST_F(two, implicit_fences_order_work_on_a_prime_buffer)
{
	struct vmgpu_bo *shared, *imported;
	uint32_t result = 0;
	void *map;
	int fd;

	shared = make_bo(self->a, 4096, &map);
	ASSERT_NE(NULL, shared);
	ASSERT_EQ(0, vmgpu_bo_export(shared, &fd));
	ASSERT_EQ(0, vmgpu_bo_import(self->b, fd, &imported));
	close(fd);
	/* No syncobj: only the buffer's reservation orders the two. */
	ASSERT_EQ(0, produce_consume(_metadata, self->a, self->ca, shared, 0,
				     self->b, self->cb, imported,
				     self->gpus - 1, true, NULL, &result));
	EXPECT_EQ(42, result);
	vmgpu_bo_destroy(imported);
	vmgpu_bo_destroy(shared);
}

TEST_F(two, syncobjs_order_work_across_gpus)
{
	struct vmgpu_bo *buf;
	struct vmgpu_sync s;
	uint32_t result = 0, h;
	void *map;

	if (self->gpus < 2)
		SKIP(return, "needs two GPUs");
	buf = make_bo(self->a, 4096, &map);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, vmgpu_syncobj_create(self->a, &h));
	/* Binary syncobj; the consumer does not list the buffer. */
	s = (struct vmgpu_sync){ .handle = h };
	ASSERT_EQ(0, produce_consume(_metadata, self->a, self->ca, buf, 0,
				     self->a, self->ca, buf, 1, false, &s,
				     &result));
	EXPECT_EQ(42, result);
	memset(map, 0, 4096);
	/* Timeline syncobj, point 5. */
	s.point = 5;
	ASSERT_EQ(0, produce_consume(_metadata, self->a, self->ca, buf, 0,
				     self->a, self->ca, buf, 1, false, &s,
				     &result));
	EXPECT_EQ(42, result);
	vmgpu_syncobj_destroy(self->a, h);
	vmgpu_bo_destroy(buf);
}

TEST_F(two, without_any_sync_the_consumer_overtakes)
{
	struct vmgpu_bo *buf;
	uint32_t result = 0;
	void *map;

	if (self->gpus < 2)
		SKIP(return, "needs two GPUs");
	buf = make_bo(self->a, 4096, &map);
	ASSERT_NE(NULL, buf);
	/* The control experiment of the two tests above. */
	ASSERT_EQ(0, produce_consume(_metadata, self->a, self->ca, buf, 0,
				     self->a, self->ca, buf, 1, false, NULL,
				     &result));
	EXPECT_EQ(1, result);
	vmgpu_bo_destroy(buf);
}

/*
 * More files with work on one GPU than it has address-space slots: the
 * slots are recycled between packets, never under a running one, and
 * every file's packets see only its own buffers.
 */
TEST(slots_are_recycled_across_many_files)
{
	enum { FILES = 13, ROUNDS = 3 };
	struct vmgpu_device *dev[FILES];
	struct vmgpu_context *ctx[FILES];
	struct vmgpu_bo *k[FILES], *out[FILES];
	struct vmgpu_cmdbuf *cb[FILES];
	uint32_t sync[FILES], *p[FILES], f, r, i;
	uint64_t slots;

	for (f = 0; f < FILES; f++) {
		struct vmgpu_dispatch_desc d;
		struct fill_args a;
		void *map;

		ASSERT_EQ(0, vmgpu_device_open(0, &dev[f], NULL, 0));
		ASSERT_EQ(0, vmgpu_context_create(dev[f], 1, &ctx[f]));
		k[f] = make_kernel(dev[f], vmgpu_builtin_kernel_source("fill"));
		out[f] = make_bo(dev[f], 4096, &map);
		ASSERT_NE(NULL, k[f]);
		ASSERT_NE(NULL, out[f]);
		p[f] = map;
		ASSERT_EQ(0, vmgpu_syncobj_create(dev[f], &sync[f]));
		ASSERT_EQ(0, vmgpu_cmdbuf_create(dev[f], &cb[f]));
		a = (struct fill_args){ .out = vmgpu_bo_gpu_va(out[f]),
					.n = 1024, .mul = f + 1, .add = f,
					.spin = 50 };
		fill_dispatch(&d, k[f], &a, sizeof(a), 16, 64);
		ASSERT_EQ(0, vmgpu_cmdbuf_dispatch(cb[f], &d));
		ASSERT_EQ(0, vmgpu_cmdbuf_use(cb[f], out[f], 0));
	}
	ASSERT_EQ(0, vmgpu_get_param(dev[0], DRM_VMGPU_PARAM_AS_SLOTS, &slots));
	ASSERT_LT(slots, FILES);
	for (r = 0; r < ROUNDS; r++) {
		for (f = 0; f < FILES; f++) {
			struct vmgpu_sync o = { .handle = sync[f] };
			struct vmgpu_submit_info info = {
				.gpu = 0, .out = &o, .out_count = 1,
			};

			memset(p[f], 0, 4096);
			ASSERT_LE(0, vmgpu_submit(ctx[f], cb[f], &info));
		}
		for (f = 0; f < FILES; f++) {
			ASSERT_EQ(0, wait_signalled(dev[f], sync[f],
							20 * SEC_NS));
			EXPECT_EQ(1, vmgpu_syncobj_status(dev[f], sync[f]));
			for (i = 0; i < 1024; i++)
				ASSERT_EQ(i * (f + 1) + f, p[f][i])
					TH_LOG("round %u file %u word %u", r, f, i);
		}
	}
	for (f = 0; f < FILES; f++) {
		vmgpu_cmdbuf_destroy(cb[f]);
		vmgpu_syncobj_destroy(dev[f], sync[f]);
		vmgpu_bo_destroy(out[f]);
		vmgpu_bo_destroy(k[f]);
		vmgpu_context_destroy(ctx[f]);
		vmgpu_device_close(dev[f]);
	}
}

TEST_HARNESS_MAIN
