// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM selftest: multi-GPU device time (Documentation/device-model.rst,
 * "Device time across GPUs"). Two halves of one dispatch, released by one
 * syncobj onto GPU 0 and GPU 1, overlap in device time; neither starts
 * before the work that released them. Remote reads go over the link and
 * are counted per link, by where each page was placed (BO_PLACE).
 */
#include <pthread.h>
#include <xf86drm.h>

#include "kselftest_harness.h"
#include "vmgpu_test_util.h"

FIXTURE(mgpu) {
	struct vmgpu_device *dev;
	struct vmgpu_context *ctx;
	struct vmgpu_info info;
	struct vmgpu_bo *fill;
};

FIXTURE_SETUP(mgpu)
{
	ASSERT_EQ(0, vmgpu_device_open(0, &self->dev, NULL, 0));
	ASSERT_EQ(0, vmgpu_device_query(self->dev, &self->info));
	ASSERT_EQ(0, vmgpu_context_create(self->dev, VMGPU_PRIORITY_NORMAL,
					  &self->ctx));
	self->fill = make_kernel(self->dev,
				 vmgpu_builtin_kernel_source("fill"));
	ASSERT_NE(NULL, self->fill);
}

FIXTURE_TEARDOWN(mgpu)
{
	vmgpu_bo_destroy(self->fill);
	vmgpu_context_destroy(self->ctx);
	vmgpu_device_close(self->dev);
}

/*
 * Build into @cb: [TIMESTAMP ts+@ts_off,] fill(out + @first, @n) after
 * @spin idle iterations per thread, BARRIER, TIMESTAMP ts+@ts_off+8.
 */
static int build_timed_fill(struct vmgpu_cmdbuf *cb, struct vmgpu_bo *fill,
			    struct vmgpu_bo *out, uint32_t first, uint32_t n,
			    uint32_t spin, struct vmgpu_bo *ts, uint64_t ts_off,
			    bool start_stamp, struct vmgpu_args **argsp)
{
	struct vmgpu_dispatch_desc d = { 0 };
	struct vmgpu_args *a;
	int ret;

	ret = vmgpu_args_create(fill, &a);
	if (ret)
		return ret;
	*argsp = a;
	if (vmgpu_args_set_buffer(a, 0, out, 4ull * first) ||
	    vmgpu_args_set_i32(a, 1, n) || vmgpu_args_set_i32(a, 2, 1) ||
	    vmgpu_args_set_i32(a, 3, 1) || vmgpu_args_set_i32(a, 4, spin))
		return -EINVAL;
	if (start_stamp) {
		ret = vmgpu_cmdbuf_timestamp(cb, ts, ts_off);
		if (ret)
			return ret;
	}
	d.kernel = fill;
	d.typed_args = a;
	d.grid[0] = (n + 127) / 128;
	d.block[0] = 128;
	ret = vmgpu_cmdbuf_dispatch(cb, &d);
	if (ret < 0)
		return ret;
	ret = vmgpu_cmdbuf_barrier(cb);
	if (ret)
		return ret;
	return vmgpu_cmdbuf_timestamp(cb, ts, ts_off + 8);
}

/*
 * A gate packet on GPU 0 signals one syncobj; the two halves of a fill
 * wait for it, one on GPU 0, one on GPU 1. Device time: both halves
 * start after the gate ended, and they overlap (issue 12: they used to
 * run back to back). The half on GPU 0 is queued behind the gate at
 * once (same scheduler); GPU 1's is rung only after the host retired the
 * gate. Spins make each half last long in wall time (~0.3 s), so that
 * second doorbell comes before the host has seen the first half end: had
 * the host seen it, the rule would rightly start GPU 1's half after it.
 * Each packet writes buffers of its own: two packets writing one buffer
 * are ordered by the driver's implicit fences, and then run back to
 * back in device time too, rightly.
 */
TEST_F(mgpu, halves_released_by_one_syncobj_overlap)
{
	const uint32_t n = 4096, half = n / 2, spin = 60000;
	struct vmgpu_cmdbuf *gate_cb, *cb[2];
	struct vmgpu_args *args[3] = { NULL };
	struct vmgpu_bo *out[3], *ts[3];
	uint32_t gate, done[2], *om[3], i, g;
	uint64_t *tm[3];
	struct vmgpu_sync in = { 0 }, outs = { 0 };
	struct vmgpu_submit_info si = { .in = &in, .in_count = 1,
					.out = &outs, .out_count = 1 };

	if (self->info.num_gpus < 2)
		SKIP(return, "needs two GPUs");
	for (g = 0; g < 3; g++) {
		out[g] = make_bo(self->dev, n * 4, (void **)&om[g]);
		ts[g] = make_bo(self->dev, 4096, (void **)&tm[g]);
		ASSERT_NE(NULL, out[g]);
		ASSERT_NE(NULL, ts[g]);
	}
	ASSERT_EQ(0, vmgpu_syncobj_create(self->dev, &gate));
	ASSERT_EQ(0, vmgpu_syncobj_create(self->dev, &done[0]));
	ASSERT_EQ(0, vmgpu_syncobj_create(self->dev, &done[1]));
	ASSERT_EQ(0, vmgpu_cmdbuf_create(self->dev, &gate_cb));
	ASSERT_EQ(0, vmgpu_cmdbuf_create(self->dev, &cb[0]));
	ASSERT_EQ(0, vmgpu_cmdbuf_create(self->dev, &cb[1]));

	/* The gate: a short fill on GPU 0, its end stamped in ts[2]. */
	ASSERT_EQ(0, build_timed_fill(gate_cb, self->fill, out[2], 0, 128, 10,
				      ts[2], 0, false, &args[2]));
	/* The halves: start and end stamped in ts[0] and ts[1]. */
	for (g = 0; g < 2; g++)
		ASSERT_EQ(0, build_timed_fill(cb[g], self->fill, out[g],
					      g * half, half, spin, ts[g], 0,
					      true, &args[g]));

	si.gpu = 0;
	si.in_count = 0;
	outs.handle = gate;
	ASSERT_EQ(1, vmgpu_submit(self->ctx, gate_cb, &si));
	si.in_count = 1;
	in.handle = gate;
	for (g = 0; g < 2; g++) {
		si.gpu = g;
		outs.handle = done[g];
		ASSERT_EQ(1, vmgpu_submit(self->ctx, cb[g], &si));
	}
	for (g = 0; g < 2; g++)
		ASSERT_EQ(0, vmgpu_syncobj_wait(self->dev, done[g], 0,
						60 * SEC_NS));

	for (i = 0; i < n && om[i / half][i] == i % half + 1; i++)
		;
	EXPECT_EQ(n, i) TH_LOG("out[%u] = %u", i, om[i / half % 2][i % n]);
	TH_LOG("gate end %llu; GPU 0 %llu-%llu ns, GPU 1 %llu-%llu ns",
	       (unsigned long long)tm[2][1], (unsigned long long)tm[0][0],
	       (unsigned long long)tm[0][1], (unsigned long long)tm[1][0],
	       (unsigned long long)tm[1][1]);
	/* Causal: neither half starts before the gate that released it. */
	EXPECT_LE(tm[2][1], tm[0][0]);
	EXPECT_LE(tm[2][1], tm[1][0]);
	/* Overlap: each half starts before the other one ends. */
	EXPECT_LT(tm[0][0], tm[1][1]);
	EXPECT_LT(tm[1][0], tm[0][1]);

	for (g = 0; g < 3; g++)
		vmgpu_args_destroy(args[g]);
	vmgpu_cmdbuf_destroy(cb[1]);
	vmgpu_cmdbuf_destroy(cb[0]);
	vmgpu_cmdbuf_destroy(gate_cb);
	vmgpu_syncobj_destroy(self->dev, done[1]);
	vmgpu_syncobj_destroy(self->dev, done[0]);
	vmgpu_syncobj_destroy(self->dev, gate);
	for (g = 0; g < 3; g++) {
		vmgpu_bo_destroy(ts[g]);
		vmgpu_bo_destroy(out[g]);
	}
}

/*
 * A kernel on GPU 1 reads a buffer that lives in GPU 0's memory: the
 * bytes go over the link between them and show in the counters the
 * library reads (Documentation/device-model.rst, "Memory system").
 */
/* One saxpy (y = 2x + y) of @n floats on @gpu; its remote-read bytes. */
static uint64_t saxpy_remote(struct __test_metadata *_metadata,
			     FIXTURE_DATA(mgpu) *self, struct vmgpu_bo *saxpy,
			     struct vmgpu_bo *x, struct vmgpu_bo *y, uint32_t n,
			     uint32_t gpu)
{
	struct vmgpu_dispatch_desc d = { 0 };
	struct vmgpu_sync outs = { 0 };
	struct vmgpu_submit_info si = { .gpu = gpu, .out = &outs,
					.out_count = 1 };
	struct vmgpu_cmdbuf *cb;
	struct vmgpu_args *a;
	uint64_t rr0 = 0, rr1 = 0;
	uint32_t done;

	EXPECT_EQ(0, vmgpu_cmdbuf_create(self->dev, &cb));
	EXPECT_EQ(0, vmgpu_syncobj_create(self->dev, &done));
	EXPECT_EQ(0, vmgpu_args_create(saxpy, &a));
	EXPECT_EQ(0, vmgpu_args_set_i32(a, 0, n));
	EXPECT_EQ(0, vmgpu_args_set_f32(a, 1, 2.0f));
	EXPECT_EQ(0, vmgpu_args_set_buffer(a, 2, x, 0));
	EXPECT_EQ(0, vmgpu_args_set_buffer(a, 3, y, 0));
	d.kernel = saxpy;
	d.typed_args = a;
	d.grid[0] = n / 128;
	d.block[0] = 128;
	EXPECT_LE(0, vmgpu_cmdbuf_dispatch(cb, &d));
	EXPECT_EQ(0, vmgpu_gpu_counter(self->dev, gpu, "hw_bytes_remote_read",
				       &rr0));
	outs.handle = done;
	EXPECT_EQ(1, vmgpu_submit(self->ctx, cb, &si));
	EXPECT_EQ(0, vmgpu_syncobj_wait(self->dev, done, 0, 60 * SEC_NS));
	EXPECT_EQ(0, vmgpu_gpu_counter(self->dev, gpu, "hw_bytes_remote_read",
				       &rr1));
	vmgpu_args_destroy(a);
	vmgpu_syncobj_destroy(self->dev, done);
	vmgpu_cmdbuf_destroy(cb);
	return rr1 - rr0;
}

TEST_F(mgpu, remote_reads_counted_per_link)
{
	const uint32_t n = 4096;
	uint64_t l0, l1, lg0, lg1;
	struct vmgpu_bo *saxpy, *x, *y;

	if (self->info.num_gpus < 2)
		SKIP(return, "needs two GPUs");
	saxpy = make_kernel(self->dev, vmgpu_builtin_kernel_source("saxpy"));
	ASSERT_NE(NULL, saxpy);
	ASSERT_EQ(0, vmgpu_bo_create(self->dev, n * 4, 0,
				     VMGPU_PLACEMENT_GPU(0), &x));
	ASSERT_EQ(0, vmgpu_bo_create(self->dev, n * 4, 0,
				     VMGPU_PLACEMENT_GPU(1), &y));
	ASSERT_EQ(0, vmgpu_gpu_counter(self->dev, 1, "hw_link_bytes0", &l0));
	ASSERT_EQ(0, vmgpu_gpu_counter(self->dev, 0, "hw_link_bytes1", &lg0));
	/* x (n floats) read over link 0-1; y is GPU 1's own. */
	EXPECT_EQ(n * 4, saxpy_remote(_metadata, self, saxpy, x, y, n, 1));
	ASSERT_EQ(0, vmgpu_gpu_counter(self->dev, 1, "hw_link_bytes0", &l1));
	ASSERT_EQ(0, vmgpu_gpu_counter(self->dev, 0, "hw_link_bytes1", &lg1));
	EXPECT_EQ(n * 4, l1 - l0);
	/* One link, seen from both ends. */
	EXPECT_EQ(l1 - l0, lg1 - lg0);

	vmgpu_bo_destroy(y);
	vmgpu_bo_destroy(x);
	vmgpu_bo_destroy(saxpy);
}

/*
 * BO_PLACE moves pages of a buffer (as priced) to another GPU's memory:
 * the reader on GPU 1 reads remotely exactly the pages still on GPU 0,
 * and the results do not depend on where pages are. Bad ranges,
 * placements, flags and handles are refused.
 */
TEST_F(mgpu, placed_pages_decide_what_is_remote)
{
	const uint32_t n = 4096;	/* 16 KiB: 4 pages */
	struct drm_vmgpu_bo_place raw = { 0 };
	struct vmgpu_bo *saxpy, *x, *y;
	float *px, *py;
	uint32_t i;

	if (self->info.num_gpus < 2)
		SKIP(return, "needs two GPUs");
	saxpy = make_kernel(self->dev, vmgpu_builtin_kernel_source("saxpy"));
	ASSERT_NE(NULL, saxpy);
	ASSERT_EQ(0, vmgpu_bo_create(self->dev, n * 4, 0,
				     VMGPU_PLACEMENT_GPU(0), &x));
	ASSERT_EQ(0, vmgpu_bo_create(self->dev, n * 4, 0,
				     VMGPU_PLACEMENT_GPU(1), &y));
	ASSERT_EQ(0, vmgpu_bo_map(x, (void **)&px));
	ASSERT_EQ(0, vmgpu_bo_map(y, (void **)&py));
	for (i = 0; i < n; i++) {
		px[i] = (float)i;
		py[i] = 1.0f;
	}

	EXPECT_EQ(n * 4, saxpy_remote(_metadata, self, saxpy, x, y, n, 1));
	/* The first half of x to GPU 1: only the second half is remote. */
	ASSERT_EQ(0, vmgpu_bo_place(x, 0, n * 2, VMGPU_PLACEMENT_GPU(1)));
	EXPECT_EQ(n * 2, saxpy_remote(_metadata, self, saxpy, x, y, n, 1));
	ASSERT_EQ(0, vmgpu_bo_place(x, n * 2, n * 2, VMGPU_PLACEMENT_GPU(1)));
	EXPECT_EQ(0, saxpy_remote(_metadata, self, saxpy, x, y, n, 1));
	/* Back to system memory: host bytes, not remote ones. */
	ASSERT_EQ(0, vmgpu_bo_place(x, 4096, 4096, VMGPU_PLACEMENT_SYSTEM));
	EXPECT_EQ(0, saxpy_remote(_metadata, self, saxpy, x, y, n, 1));
	for (i = 0; i < n; i++)
		ASSERT_EQ(8.0f * i + 1.0f, py[i]);

	/* The library's checks, then the driver's own. */
	EXPECT_EQ(-EINVAL, vmgpu_bo_place(x, 1, 4096, 0));
	EXPECT_EQ(-EINVAL, vmgpu_bo_place(x, 0, 0, 0));
	EXPECT_EQ(-EINVAL, vmgpu_bo_place(x, 0, n * 8, 0));
	EXPECT_EQ(-EINVAL, vmgpu_bo_place(x, 0, 4096,
					  VMGPU_PLACEMENT_GPU(self->info.num_gpus)));
	raw.handle = vmgpu_bo_handle(x);
	raw.size = 4096;
	raw.flags = 1;
	EXPECT_EQ(-1, drmIoctl(vmgpu_device_fd(self->dev),
			       DRM_IOCTL_VMGPU_BO_PLACE, &raw));
	EXPECT_EQ(EINVAL, errno);
	raw.flags = 0;
	raw.pad = 1;
	EXPECT_EQ(-1, drmIoctl(vmgpu_device_fd(self->dev),
			       DRM_IOCTL_VMGPU_BO_PLACE, &raw));
	EXPECT_EQ(EINVAL, errno);
	raw.pad = 0;
	raw.offset = 4096;
	raw.size = ~0ull - 4095;
	EXPECT_EQ(-1, drmIoctl(vmgpu_device_fd(self->dev),
			       DRM_IOCTL_VMGPU_BO_PLACE, &raw));
	EXPECT_EQ(EINVAL, errno);
	raw.offset = 0;
	raw.size = 4096;
	raw.placement = 1 + VMGPU_MAX_GPUS;
	EXPECT_EQ(-1, drmIoctl(vmgpu_device_fd(self->dev),
			       DRM_IOCTL_VMGPU_BO_PLACE, &raw));
	EXPECT_EQ(EINVAL, errno);
	raw.placement = 0;
	raw.handle = 0xfffff;
	EXPECT_EQ(-1, drmIoctl(vmgpu_device_fd(self->dev),
			       DRM_IOCTL_VMGPU_BO_PLACE, &raw));
	EXPECT_EQ(ENOENT, errno);

	vmgpu_bo_destroy(y);
	vmgpu_bo_destroy(x);
	vmgpu_bo_destroy(saxpy);
}

struct place_race {
	int fd;
	uint32_t handle, gpus;
	uint64_t size;
	int stop, closed, errors;
};

/*
 * Move random pages of the buffer around by the raw ioctl (the handle
 * outlives the library's object) until told to stop: 0, or ENOENT once
 * the buffer was closed.
 */
static void *place_racer(void *arg)
{
	struct place_race *r = arg;
	unsigned int seed = (unsigned int)(uintptr_t)&seed;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		uint64_t pages = r->size / 4096;
		uint64_t first = rand_r(&seed) % pages;
		struct drm_vmgpu_bo_place a = {
			.handle = r->handle,
			.placement = rand_r(&seed) % (r->gpus + 1),
			.offset = first * 4096,
			.size = (1 + rand_r(&seed) % (pages - first)) * 4096,
		};
		/* closed is set before the close: read it after a refusal. */
		if (drmIoctl(r->fd, DRM_IOCTL_VMGPU_BO_PLACE, &a) &&
		    !(errno == ENOENT &&
		      __atomic_load_n(&r->closed, __ATOMIC_ACQUIRE)))
			__atomic_add_fetch(&r->errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/*
 * Threads move a buffer's pages between GPUs while packets on every GPU
 * read and write it, then the buffer is closed while they still run:
 * every placement succeeds, every result is right, nothing breaks.
 */
TEST_F(mgpu, placement_races_submissions_and_close)
{
	const uint32_t n = 1 << 16;	/* 256 KiB */
	struct place_race r = { .fd = vmgpu_device_fd(self->dev),
				.gpus = self->info.num_gpus };
	struct vmgpu_bo *saxpy, *x, *y;
	pthread_t t[3];
	float *px, *py;
	uint32_t i, round, g;

	saxpy = make_kernel(self->dev, vmgpu_builtin_kernel_source("saxpy"));
	ASSERT_NE(NULL, saxpy);
	ASSERT_EQ(0, vmgpu_bo_create(self->dev, n * 4, 0, 0, &x));
	ASSERT_EQ(0, vmgpu_bo_create(self->dev, n * 4, 0, 0, &y));
	ASSERT_EQ(0, vmgpu_bo_map(x, (void **)&px));
	ASSERT_EQ(0, vmgpu_bo_map(y, (void **)&py));
	for (i = 0; i < n; i++) {
		px[i] = (float)(i & 1023);
		py[i] = 0.0f;
	}
	r.handle = vmgpu_bo_handle(x);
	r.size = vmgpu_bo_size(x);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, place_racer, &r));
	for (round = 0; round < 4; round++)
		for (g = 0; g < self->info.num_gpus; g++)
			saxpy_remote(_metadata, self, saxpy, x, y, n, g);
	/* y = 2x per round on every GPU, one after the other */
	for (i = 0; i < n; i++)
		ASSERT_EQ(8.0f * self->info.num_gpus * (float)(i & 1023),
			  py[i]);
	/* Close it while the racers still place it. */
	__atomic_store_n(&r.closed, 1, __ATOMIC_RELEASE);
	vmgpu_bo_destroy(x);
	usleep(100 * 1000);
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	EXPECT_EQ(0, r.errors);
	vmgpu_bo_destroy(y);
	vmgpu_bo_destroy(saxpy);
}

TEST_HARNESS_MAIN
