// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM selftests of error handling: a faulting, illegal or budget-exceeding
 * packet errors only its own fence and bans only its own context while
 * other work completes; a packet that never completes is caught by the
 * scheduler timeout, the GPU is reset and innocent queued work reruns.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "vmgpu_test_util.h"

struct job {
	struct vmgpu_device *dev;
	struct vmgpu_context *ctx;
	struct vmgpu_cmdbuf *cb;
	uint32_t syncobj;
};

static int job_start(struct vmgpu_device *dev, struct job *j)
{
	memset(j, 0, sizeof(*j));
	j->dev = dev;
	if (vmgpu_context_create(dev, VMGPU_PRIORITY_NORMAL, &j->ctx) ||
	    vmgpu_cmdbuf_create(dev, &j->cb) ||
	    vmgpu_syncobj_create(dev, &j->syncobj))
		return -1;
	return 0;
}

static int job_submit(struct job *j, uint32_t gpu)
{
	struct vmgpu_sync out = { .handle = j->syncobj };
	struct vmgpu_submit_info info = {
		.gpu = gpu, .out = &out, .out_count = 1,
	};
	int ret = vmgpu_submit(j->ctx, j->cb, &info);

	return ret < 0 ? ret : 0;
}

static void job_end(struct job *j)
{
	vmgpu_syncobj_destroy(j->dev, j->syncobj);
	vmgpu_cmdbuf_destroy(j->cb);
	vmgpu_context_destroy(j->ctx);
}

/* A packet of @n fill dispatches of 256 elements each, spinning @spin. */
static int add_fill(struct job *j, struct vmgpu_bo *k, struct vmgpu_bo *out,
		    uint32_t n, uint32_t spin)
{
	struct vmgpu_dispatch_desc d;
	uint32_t i;

	if (vmgpu_cmdbuf_use(j->cb, out, 0))
		return -1;
	for (i = 0; i < n; i++) {
		struct fill_args a = {
			.out = vmgpu_bo_gpu_va(out) + 1024 * i, .n = 256,
			.mul = 2, .add = i, .spin = spin,
		};

		fill_dispatch(&d, k, &a, sizeof(a), 4, 64);
		if (vmgpu_cmdbuf_dispatch(j->cb, &d) < 0)
			return -1;
	}
	return 0;
}

static int check_fill(const uint32_t *p, uint32_t n)
{
	uint32_t i, e;

	for (i = 0; i < n; i++)
		for (e = 0; e < 256; e++)
			if (p[256 * i + e] != 2 * e + i)
				return -1;
	return 0;
}

/* The other process: good work on @gpu, checked. Exit status 0 if right. */
static int innocent_process(uint32_t gpu, int ready_fd)
{
	struct vmgpu_context_status st;
	struct vmgpu_device *dev;
	struct vmgpu_bo *k, *out;
	struct job j;
	void *map;
	char c = 1;

	if (vmgpu_device_open(0, &dev, NULL, 0))
		return 10;
	k = make_kernel(dev, vmgpu_builtin_kernel_source("fill"));
	out = make_bo(dev, 16 * 1024, &map);
	if (!k || !out || job_start(dev, &j) || add_fill(&j, k, out, 16, 2000))
		return 11;
	if (job_submit(&j, gpu))
		return 12;
	if (write(ready_fd, &c, 1) != 1)
		return 13;
	if (vmgpu_syncobj_wait(dev, j.syncobj, 0, 20 * SEC_NS))
		return 14;
	if (vmgpu_syncobj_status(dev, j.syncobj) != 1)
		return 15;
	if (check_fill(map, 16))
		return 16;
	if (vmgpu_context_query(j.ctx, &st) || st.banned || st.errors)
		return 17;
	job_end(&j);
	vmgpu_device_close(dev);
	return 0;
}

FIXTURE(err) {
	struct vmgpu_device *dev;
	uint32_t gpus;
};

FIXTURE_SETUP(err)
{
	struct vmgpu_info info;

	ASSERT_EQ(0, vmgpu_device_open(0, &self->dev, NULL, 0));
	ASSERT_EQ(0, vmgpu_device_query(self->dev, &info));
	self->gpus = info.num_gpus;
}

FIXTURE_TEARDOWN(err)
{
	int i, alive = -1;

	/*
	 * Every job is freed once its fence signalled (shortly after, by
	 * the scheduler): none may leak through an error, a timeout or a
	 * reset.
	 */
	for (i = 0; i < 100; i++) {
		alive = vmgpu_jobs_alive(self->dev);
		if (alive == 0)
			break;
		usleep(20000);
	}
	EXPECT_EQ(0, alive);
	vmgpu_device_close(self->dev);
}

static void expect_banned_after(struct __test_metadata *_metadata,
				FIXTURE_DATA(err) *self, struct job *bad,
				uint32_t fault)
{
	struct vmgpu_context_status st;
	char msg[256];

	ASSERT_EQ(0, wait_signalled(self->dev, bad->syncobj,
					20 * SEC_NS));
	EXPECT_GT(0, vmgpu_syncobj_status(self->dev, bad->syncobj));
	ASSERT_EQ(0, vmgpu_context_query(bad->ctx, &st));
	EXPECT_EQ(1, st.banned);
	EXPECT_EQ(fault, st.fault);
	EXPECT_LE(1, st.errors);
	/* The banned context takes no more work, and says why. */
	EXPECT_EQ(-ECANCELED, job_submit(bad, 0));
	vmgpu_error_message(self->dev, msg, sizeof(msg));
	EXPECT_NE(NULL, strstr(msg, "banned"));
}

/* A second context of the same file still works. */
static void expect_other_context_works(struct __test_metadata *_metadata,
				       FIXTURE_DATA(err) *self, uint32_t gpu)
{
	struct vmgpu_bo *k, *out;
	struct job j;
	void *map;

	k = make_kernel(self->dev, vmgpu_builtin_kernel_source("fill"));
	out = make_bo(self->dev, 4096, &map);
	ASSERT_NE(NULL, k);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, job_start(self->dev, &j));
	ASSERT_EQ(0, add_fill(&j, k, out, 4, 0));
	ASSERT_EQ(0, job_submit(&j, gpu));
	ASSERT_EQ(0, wait_signalled(self->dev, j.syncobj, 20 * SEC_NS));
	EXPECT_EQ(1, vmgpu_syncobj_status(self->dev, j.syncobj));
	EXPECT_EQ(0, check_fill(map, 4));
	job_end(&j);
	vmgpu_bo_destroy(out);
	vmgpu_bo_destroy(k);
}

static void run_bad_beside_innocent(struct __test_metadata *_metadata,
				    FIXTURE_DATA(err) *self, struct job *bad,
				    uint32_t fault)
{
	int fds[2], status;
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(fds[0]);
		_exit(innocent_process(0, fds[1]));
	}
	close(fds[1]);
	/* The other process's packet is queued: now fail next to it. */
	ASSERT_EQ(1, read(fds[0], &c, 1));
	ASSERT_EQ(0, job_submit(bad, 0));
	expect_banned_after(_metadata, self, bad, fault);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(fds[0]);
	expect_other_context_works(_metadata, self, 0);
}

TEST_F(err, fault_errors_only_its_own_fence_and_context)
{
	struct store_to_args a = { .addr = 0x40, .value = 1 };
	struct vmgpu_dispatch_desc d;
	struct vmgpu_bo *k;
	struct job bad;

	k = make_kernel(self->dev, store_to_src);
	ASSERT_NE(NULL, k);
	ASSERT_EQ(0, job_start(self->dev, &bad));
	fill_dispatch(&d, k, &a, sizeof(a), 1, 1);
	ASSERT_EQ(0, vmgpu_cmdbuf_dispatch(bad.cb, &d));
	run_bad_beside_innocent(_metadata, self, &bad, VMGPU_FAULT_UNMAPPED);
	job_end(&bad);
	vmgpu_bo_destroy(k);
}

TEST_F(err, write_to_read_only_buffer_faults)
{
	struct vmgpu_context_status st;
	struct vmgpu_dispatch_desc d;
	struct store_to_args a;
	struct vmgpu_bo *k;
	struct job bad;

	k = make_kernel(self->dev, store_to_src);
	ASSERT_NE(NULL, k);
	/* The kernel overwrites its own (GPU read-only) code. */
	a = (struct store_to_args){ .addr = vmgpu_bo_gpu_va(k), .value = 0 };
	ASSERT_EQ(0, job_start(self->dev, &bad));
	fill_dispatch(&d, k, &a, sizeof(a), 1, 1);
	ASSERT_EQ(0, vmgpu_cmdbuf_dispatch(bad.cb, &d));
	ASSERT_EQ(0, job_submit(&bad, 0));
	expect_banned_after(_metadata, self, &bad, VMGPU_FAULT_PERMISSION);
	ASSERT_EQ(0, vmgpu_context_query(bad.ctx, &st));
	EXPECT_EQ(vmgpu_bo_gpu_va(k), st.addr);
	EXPECT_EQ(0, st.dispatch);
	job_end(&bad);
	vmgpu_bo_destroy(k);
}

TEST_F(err, budget_exceeded_bans_only_its_context)
{
	struct vmgpu_dispatch_desc d;
	struct vmgpu_bo *k;
	struct job bad;

	k = make_kernel(self->dev, forever_src);
	ASSERT_NE(NULL, k);
	ASSERT_EQ(0, job_start(self->dev, &bad));
	ASSERT_EQ(0, vmgpu_cmdbuf_set_state(bad.cb, VMGPU_STATE_INSTR_BUDGET,
					    10000));
	fill_dispatch(&d, k, NULL, 0, 1, 32);
	ASSERT_EQ(0, vmgpu_cmdbuf_dispatch(bad.cb, &d));
	run_bad_beside_innocent(_metadata, self, &bad, VMGPU_FAULT_BUDGET);
	job_end(&bad);
	vmgpu_bo_destroy(k);
}

TEST_F(err, library_refuses_an_invalid_instruction)
{
	struct vmgpu_bo *bo = (void *)1;
	char err[256] = "";
	size_t bytes;
	uint64_t w;
	void *image;

	ASSERT_EQ(0, vmgpu_asm_assemble(vmgpu_builtin_kernel_source("fill"),
					&image, &bytes, err, sizeof(err)));
	/* Word 1 gets opcode 0x7f, which no instruction has. */
	memcpy(&w, (uint8_t *)image + VMGPU_EXEC_HEADER_BYTES + 8, 8);
	w |= 0x7f;
	memcpy((uint8_t *)image + VMGPU_EXEC_HEADER_BYTES + 8, &w, 8);
	EXPECT_EQ(-EINVAL, vmgpu_kernel_create(self->dev, image, bytes, &bo));
	vmgpu_error_message(self->dev, err, sizeof(err));
	EXPECT_NE(NULL, strstr(err, "invalid instruction"));
	EXPECT_NE(NULL, strstr(err, "at 1"));
	/* A truncated image is refused too. */
	EXPECT_EQ(-EINVAL, vmgpu_kernel_create(self->dev, image, bytes - 8,
					       &bo));
	free(image);
}

TEST_F(err, illegal_executable_bans_its_context)
{
	struct vmgpu_dispatch_desc d;
	struct vmgpu_bo *code;
	struct job bad;
	void *map;

	/* A buffer of zeros is no executable. */
	code = make_bo(self->dev, 4096, &map);
	ASSERT_NE(NULL, code);
	ASSERT_EQ(0, job_start(self->dev, &bad));
	fill_dispatch(&d, code, NULL, 0, 1, 1);
	ASSERT_EQ(0, vmgpu_cmdbuf_dispatch(bad.cb, &d));
	ASSERT_EQ(0, job_submit(&bad, 0));
	expect_banned_after(_metadata, self, &bad, VMGPU_FAULT_BAD_EXECUTABLE);
	expect_other_context_works(_metadata, self, 0);
	job_end(&bad);
	vmgpu_bo_destroy(code);
}

TEST_F(err, hang_is_recovered_by_timeout_and_reset)
{
	struct vmgpu_gpu_counters c0, c1;
	struct vmgpu_bo *flag, *k, *out;
	uint64_t timeout_ms;
	struct job hung, good;
	uint32_t gpu = self->gpus - 1;
	int64_t t0;
	void *fmap, *map;

	ASSERT_EQ(0, vmgpu_get_param(self->dev, DRM_VMGPU_PARAM_JOB_TIMEOUT_MS,
				     &timeout_ms));
	ASSERT_EQ(0, vmgpu_gpu_counters(self->dev, gpu, &c0));
	flag = make_bo(self->dev, 4096, &fmap);
	k = make_kernel(self->dev, vmgpu_builtin_kernel_source("fill"));
	out = make_bo(self->dev, 8192, &map);
	ASSERT_NE(NULL, flag);
	ASSERT_NE(NULL, k);
	ASSERT_NE(NULL, out);
	/* Waits for a word nobody ever writes: never completes. */
	ASSERT_EQ(0, job_start(self->dev, &hung));
	ASSERT_EQ(0, vmgpu_cmdbuf_wait_value(hung.cb, flag, 0, VMGPU_WAIT_EQ,
					     1, ~0u));
	/* Innocent work queued behind it on the same ring. */
	ASSERT_EQ(0, job_start(self->dev, &good));
	ASSERT_EQ(0, add_fill(&good, k, out, 8, 0));
	t0 = now_ns();
	ASSERT_EQ(0, job_submit(&hung, gpu));
	ASSERT_EQ(0, job_submit(&good, gpu));

	ASSERT_EQ(0, wait_signalled(self->dev, good.syncobj,
					30 * SEC_NS));
	EXPECT_LE((int64_t)timeout_ms * 1000000, now_ns() - t0);
	EXPECT_EQ(1, vmgpu_syncobj_status(self->dev, good.syncobj));
	EXPECT_EQ(0, check_fill(map, 8));
	expect_banned_after(_metadata, self, &hung, 0x100);
	ASSERT_EQ(0, vmgpu_gpu_counters(self->dev, gpu, &c1));
	EXPECT_EQ(1, c1.timeouts - c0.timeouts);
	EXPECT_EQ(1, c1.resets - c0.resets);
	/* The GPU works after its reset. */
	expect_other_context_works(_metadata, self, gpu);
	job_end(&good);
	job_end(&hung);
	vmgpu_bo_destroy(out);
	vmgpu_bo_destroy(k);
	vmgpu_bo_destroy(flag);
}

TEST_F(err, infinite_loop_is_recovered_by_timeout_and_reset)
{
	struct vmgpu_gpu_counters c0, c1;
	struct vmgpu_dispatch_desc d;
	struct vmgpu_context_status st;
	struct vmgpu_bo *k, *loop, *out;
	struct job hung, good;
	uint32_t gpu = 0;
	void *map;

	ASSERT_EQ(0, vmgpu_gpu_counters(self->dev, gpu, &c0));
	loop = make_kernel(self->dev, forever_src);
	k = make_kernel(self->dev, vmgpu_builtin_kernel_source("fill"));
	out = make_bo(self->dev, 8192, &map);
	ASSERT_NE(NULL, loop);
	ASSERT_NE(NULL, k);
	ASSERT_NE(NULL, out);
	/*
	 * The largest budget there is: 2^32 warp instructions. Whichever
	 * comes first ends the loop: the scheduler timeout (GPU reset) or
	 * the device's budget error; either way only this context pays.
	 */
	ASSERT_EQ(0, job_start(self->dev, &hung));
	ASSERT_EQ(0, vmgpu_cmdbuf_set_state(hung.cb, VMGPU_STATE_INSTR_BUDGET,
					    0xffffffffu));
	fill_dispatch(&d, loop, NULL, 0, 1, 32);
	ASSERT_EQ(0, vmgpu_cmdbuf_dispatch(hung.cb, &d));
	ASSERT_EQ(0, job_start(self->dev, &good));
	ASSERT_EQ(0, add_fill(&good, k, out, 8, 0));
	ASSERT_EQ(0, job_submit(&hung, gpu));
	ASSERT_EQ(0, job_submit(&good, gpu));
	ASSERT_EQ(0, wait_signalled(self->dev, good.syncobj,
					30 * SEC_NS));
	EXPECT_EQ(1, vmgpu_syncobj_status(self->dev, good.syncobj));
	EXPECT_EQ(0, check_fill(map, 8));
	ASSERT_EQ(0, wait_signalled(self->dev, hung.syncobj,
					30 * SEC_NS));
	EXPECT_GT(0, vmgpu_syncobj_status(self->dev, hung.syncobj));
	ASSERT_EQ(0, vmgpu_context_query(hung.ctx, &st));
	EXPECT_EQ(1, st.banned);
	ASSERT_EQ(0, vmgpu_gpu_counters(self->dev, gpu, &c1));
	if (st.fault == 0x100) {
		EXPECT_EQ(1, c1.resets - c0.resets);
	} else {
		EXPECT_EQ(VMGPU_FAULT_BUDGET, st.fault);
		EXPECT_EQ(1, c1.irqs_error - c0.irqs_error);
	}
	TH_LOG("ended by %s", st.fault == 0x100 ? "timeout and reset" :
	       "the instruction budget");
	expect_other_context_works(_metadata, self, gpu);
	job_end(&good);
	job_end(&hung);
	vmgpu_bo_destroy(out);
	vmgpu_bo_destroy(k);
	vmgpu_bo_destroy(loop);
}

/* Unbind and bind the driver through sysfs; 0 when the node is back. */
static int rebind(void)
{
	char bdf[256];

	if (bound_device(bdf, sizeof(bdf)) || driver_op("unbind", bdf) ||
	    driver_op("bind", bdf))
		return -1;
	return wait_bound();
}

/*
 * A process exits with a packet hung on the GPU and more queued behind
 * it, and the driver is unbound right away: everything is cancelled and
 * freed (a leaked buffer would show as a kernel warning at unbind), and
 * the rebound device works.
 */
TEST(unbind_with_work_in_flight_frees_everything)
{
	struct vmgpu_device *dev;
	struct vmgpu_bo *flag, *k, *out;
	struct job hung, more;
	int status;
	void *map;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (vmgpu_device_open(0, &dev, NULL, 0))
			_exit(1);
		flag = make_bo(dev, 4096, &map);
		k = make_kernel(dev, vmgpu_builtin_kernel_source("fill"));
		out = make_bo(dev, 8192, &map);
		if (!flag || !k || !out || job_start(dev, &hung) ||
		    job_start(dev, &more) ||
		    vmgpu_cmdbuf_wait_value(hung.cb, flag, 0, VMGPU_WAIT_EQ, 1,
					    ~0u) ||
		    add_fill(&more, k, out, 2, 0) || job_submit(&hung, 0) ||
		    job_submit(&more, 0) || job_submit(&more, 0))
			_exit(2);
		/* Exit without waiting: the file closes, the jobs stay. */
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, rebind());
	ASSERT_EQ(0, vmgpu_device_open(0, &dev, NULL, 0));
	k = make_kernel(dev, vmgpu_builtin_kernel_source("fill"));
	out = make_bo(dev, 8192, &map);
	ASSERT_NE(NULL, k);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, job_start(dev, &more));
	ASSERT_EQ(0, add_fill(&more, k, out, 2, 0));
	ASSERT_EQ(0, job_submit(&more, 0));
	ASSERT_EQ(0, wait_signalled(dev, more.syncobj, 10 * SEC_NS));
	EXPECT_EQ(0, check_fill(map, 2));
	job_end(&more);
	vmgpu_bo_destroy(out);
	vmgpu_bo_destroy(k);
	vmgpu_device_close(dev);
}

/*
 * The driver is unbound while a process still has the device open with a
 * buffer mapped in its address space: its ioctls fail with -ENODEV, and
 * closing it afterwards (buffers, page tables, slots) touches no device
 * that is gone, which would oops. The rebound device works.
 */
TEST(unbind_while_a_file_is_open)
{
	struct vmgpu_device *dev;
	struct vmgpu_bo *k, *out;
	char bdf[256];
	struct job j;
	uint64_t v;
	void *map;

	ASSERT_EQ(0, vmgpu_device_open(0, &dev, NULL, 0));
	k = make_kernel(dev, vmgpu_builtin_kernel_source("fill"));
	out = make_bo(dev, 8192, &map);
	ASSERT_NE(NULL, k);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, job_start(dev, &j));
	ASSERT_EQ(0, add_fill(&j, k, out, 2, 0));
	ASSERT_EQ(0, job_submit(&j, 0));
	ASSERT_EQ(0, wait_signalled(dev, j.syncobj, 10 * SEC_NS));
	ASSERT_EQ(0, bound_device(bdf, sizeof(bdf)));
	ASSERT_EQ(0, driver_op("unbind", bdf));
	EXPECT_EQ(-ENODEV, vmgpu_get_param(dev, DRM_VMGPU_PARAM_NUM_GPUS, &v));
	job_end(&j);
	vmgpu_bo_destroy(out);
	vmgpu_bo_destroy(k);
	vmgpu_device_close(dev);
	ASSERT_EQ(0, driver_op("bind", bdf));
	ASSERT_EQ(0, wait_bound());
	ASSERT_EQ(0, vmgpu_device_open(0, &dev, NULL, 0));
	EXPECT_EQ(0, vmgpu_get_param(dev, DRM_VMGPU_PARAM_NUM_GPUS, &v));
	vmgpu_device_close(dev);
}

TEST_HARNESS_MAIN
