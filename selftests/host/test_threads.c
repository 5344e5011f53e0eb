// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device with one runner thread per GPU, as QEMU runs it
 * (qemu-device/core/device.c, vg_device_run_gpu): register accesses
 * never wait for a running kernel, GPUs make progress independently, a
 * RESET stops a runaway block without waiting for it, and a GPU's
 * timeline does not depend on what the other GPUs run.
 *
 * Wall-time bounds are not asserted (the machine is shared and slow);
 * orderings and states are, and the timings are printed.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "testhost.h"

#define VA0	0x40000000ull
#define RW	(VMGPU_PTE_READ | VMGPU_PTE_WRITE)

/* ------------------------------------------------------------------ */
/* Runner threads: one per GPU, like the QEMU glue                      */
/* ------------------------------------------------------------------ */

struct runner {
	struct vg_device *dev;
	unsigned int gpu;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool kicked, stop;
};

struct runners {
	struct runner r[VMGPU_MAX_GPUS];
	unsigned int n;
};

static void runners_kick(void *opaque, unsigned int gpu)
{
	struct runners *rs = opaque;
	struct runner *r;

	if (gpu >= rs->n)
		return;
	r = &rs->r[gpu];
	pthread_mutex_lock(&r->lock);
	r->kicked = true;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

static void *runner_main(void *p)
{
	struct runner *r = p;

	for (;;) {
		pthread_mutex_lock(&r->lock);
		while (!r->kicked && !r->stop)
			pthread_cond_wait(&r->cond, &r->lock);
		if (r->stop) {
			pthread_mutex_unlock(&r->lock);
			return NULL;
		}
		r->kicked = false;
		pthread_mutex_unlock(&r->lock);
		vg_device_run_gpu(r->dev, r->gpu);
	}
}

static void runners_start(struct runners *rs, struct testhost *th,
			  unsigned int n)
{
	unsigned int i;

	memset(rs, 0, sizeof(*rs));
	rs->n = n;
	for (i = 0; i < n; i++) {
		rs->r[i].dev = th->dev;
		rs->r[i].gpu = i;
		pthread_mutex_init(&rs->r[i].lock, NULL);
		pthread_cond_init(&rs->r[i].cond, NULL);
		if (pthread_create(&rs->r[i].thread, NULL, runner_main,
				   &rs->r[i]))
			abort();
	}
	th->hook_opaque = rs;
	th->kick_hook = runners_kick;
	/* Whatever was requested before the runners existed. */
	for (i = 0; i < n; i++)
		runners_kick(rs, i);
}

static void runners_stop(struct runners *rs, struct testhost *th)
{
	unsigned int i;

	th->kick_hook = NULL;
	for (i = 0; i < rs->n; i++) {
		struct runner *r = &rs->r[i];

		pthread_mutex_lock(&r->lock);
		r->stop = true;
		pthread_cond_signal(&r->cond);
		pthread_mutex_unlock(&r->lock);
		pthread_join(r->thread, NULL);
		pthread_cond_destroy(&r->cond);
		pthread_mutex_destroy(&r->lock);
	}
}

/* ------------------------------------------------------------------ */
/* Helpers                                                              */
/* ------------------------------------------------------------------ */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint32_t load32(const void *p)
{
	return __atomic_load_n((const uint32_t *)p, __ATOMIC_RELAXED);
}

static uint64_t fence_mem(struct testhost *th, unsigned int gpu)
{
	return __atomic_load_n((uint64_t *)th_ptr(th, th->fence_addr[gpu]),
			       __ATOMIC_ACQUIRE);
}

/* Wait up to @ms for GPU @gpu's fence to reach @seqno. */
static bool wait_fence(struct testhost *th, unsigned int gpu, uint64_t seqno,
		       double ms)
{
	double end = now_ms() + ms;

	while (fence_mem(th, gpu) < seqno) {
		if (now_ms() > end)
			return false;
		usleep(1000);
	}
	return true;
}

/*
 * Wait until *p stops changing (no change for 50 ms, looked at every
 * millisecond); returns when it last changed (now_ms() time), or 0 after
 * @ms without settling.
 */
static double wait_stable(const uint32_t *p, double ms)
{
	double start = now_ms(), last = start;
	uint32_t v = load32(p), w;

	while (now_ms() - last < 50.0) {
		usleep(1000);
		w = load32(p);
		if (w != v) {
			last = now_ms();
			v = w;
		}
		if (now_ms() - start > ms)
			return 0;
	}
	return last;
}

struct rig {
	struct testhost *th;
	struct vg_device *dev;
	struct th_as as;
};

static void rig_init(struct rig *r, const struct vg_config *cfg)
{
	unsigned int g;

	r->th = th_new(96 << 20);
	r->dev = th_device_new(r->th, cfg, 0);
	th_as_init(r->th, &r->as, VA0);
	for (g = 0; g < cfg->gpus; g++) {
		th_gpu_setup(r->th, g, 8);
		th_set_root(r->th, g, 0, &r->as);
	}
}

static void rig_submit(struct rig *r, unsigned int gpu,
		       const struct th_cmdbuf *cb, uint64_t seqno)
{
	th_cb_submit(r->th, &r->as, gpu, cb, seqno);
}

/* A saxpy of @n elements, ready to run: y = 1.5 * x + y. */
struct saxpy {
	uint32_t n;
	uint64_t code, args, yva;
	float *y, *ref;
};

static void saxpy_init(struct rig *r, struct saxpy *s, uint32_t n,
		       unsigned int loc_gpu)
{
	uint64_t pte = RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(loc_gpu));
	uint64_t xva = th_as_alloc(r->th, &r->as, n * 4, pte);
	uint8_t args[24];
	float a = 1.5f, *x;
	uint32_t i;

	s->n = n;
	s->yva = th_as_alloc(r->th, &r->as, n * 4, pte);
	x = th_va(r->th, &r->as, xva);
	s->y = th_va(r->th, &r->as, s->yva);
	s->ref = malloc(n * 4);
	for (i = 0; i < n; i++) {
		x[i] = (float)i * 0.25f;
		s->y[i] = (float)(n - i);
		s->ref[i] = fmaf(a, x[i], s->y[i]);
	}
	memcpy(args, &n, 4);
	memcpy(args + 4, &a, 4);
	memcpy(args + 8, &xva, 8);
	memcpy(args + 16, &s->yva, 8);
	s->args = th_upload(r->th, &r->as, args, sizeof(args));
	s->code = th_builtin(r->th, &r->as, "saxpy");
}

static void saxpy_cmd(struct th_cmdbuf *cb, const struct saxpy *s)
{
	uint32_t grid[3] = { (s->n + 127) / 128, 1, 1 };
	uint32_t block[3] = { 128, 1, 1 };

	th_cb_dispatch(cb, s->code, s->args, 24, grid, block, 0, 0);
}

/* One thread adding 1 to *counter forever: visibly running. */
static const char spin_count_src[] =
	".args 8\n"
	"	ldarg.64 r0, 0\n"
	"	mov r2, 1\n"
	"loop:\n"
	"	atom.add r3, [r0], r2\n"
	"	bra loop\n"
	"	exit\n";

/* ------------------------------------------------------------------ */
/* Tests                                                                */
/* ------------------------------------------------------------------ */

/*
 * GPU 0 runs an endless kernel with the largest budget (minutes of host
 * time). Meanwhile: (i) GPU 0's registers answer from another thread and
 * show it busy, (ii) GPU 1 completes a packet with the right results,
 * (iii) RESET of GPU 0 returns at once, the block stops within a slice,
 * nothing of the old packet shows up after the reset, and GPU 0 then runs
 * a new packet correctly.
 */
TEST(mmio_and_other_gpus_do_not_wait_for_a_running_kernel)
{
	const unsigned int reads = 2000;
	struct vg_config cfg;
	struct runners rs;
	struct th_cmdbuf cb;
	struct saxpy s1, s0;
	struct rig r;
	uint32_t one[3] = { 1, 1, 1 };
	uint64_t cnt_va, args_va;
	uint32_t *counter, c0, c1, st, i, changes = 0;
	double t, t0, lat, max_lat = 0, sum_lat = 0, t_reset, t_stop;
	unsigned int irqs0;

	vg_config_defaults(&cfg);
	cfg.gpus = 2;
	cfg.instr_budget = UINT32_MAX;
	rig_init(&r, &cfg);
	saxpy_init(&r, &s1, 50000, 1);
	saxpy_init(&r, &s0, 30000, 0);
	cnt_va = th_as_alloc(r.th, &r.as, 4, RW);
	counter = th_va(r.th, &r.as, cnt_va);
	args_va = th_upload(r.th, &r.as, &cnt_va, 8);
	runners_start(&rs, r.th, 2);

	th_cb_init(&cb);
	th_cb_dispatch(&cb, th_kernel(r.th, &r.as, spin_count_src), args_va, 8,
		       one, one, 0, 0);
	th_cb_end(&cb);
	rig_submit(&r, 0, &cb, 1);
	/* The block is running once its atomics show up. */
	t = now_ms();
	while (!load32(counter)) {
		ASSERT_LT(now_ms() - t, 30000.0);
		usleep(1000);
	}
	TH_LOG("endless kernel running after %.1f ms", now_ms() - t);

	/*
	 * (i) Registers of the busy GPU, from this thread, until the kernel
	 * was seen making progress between reads several times: the reads
	 * did not wait for it.
	 */
	c0 = load32(counter);
	t0 = now_ms();
	for (i = 0; i < reads || changes < 3; i++) {
		t = now_ms();
		st = th_rd(r.th, 0, VMGPU_GPU_STATUS);
		lat = now_ms() - t;
		max_lat = lat > max_lat ? lat : max_lat;
		sum_lat += lat;
		ASSERT_EQ(0, st & VMGPU_STATUS_IDLE);
		th_rd(r.th, 0, VMGPU_GPU_FENCE_LO);
		th_rd(r.th, 0, VMGPU_GPU_TIMESTAMP_LO);
		th_rd(r.th, 0, VMGPU_GPU_RING_HEAD);
		th_rd(r.th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_WARP_INSTRS));
		c1 = load32(counter);
		changes += c1 != c0;
		c0 = c1;
		if (i % 64 == 63)
			usleep(100);
		ASSERT_LT(now_ms() - t0, 60000.0);
	}
	TH_LOG("%u STATUS reads of the busy GPU in %.1f ms: max %.3f ms, "
	       "mean %.4f ms; kernel progressed between reads %u times",
	       i, now_ms() - t0, max_lat, sum_lat / i, changes);
	EXPECT_EQ(0, th_rd64(r.th, 0, VMGPU_GPU_FENCE_LO));
	EXPECT_EQ(1, th_rd(r.th, 0, VMGPU_GPU_RING_HEAD));

	/* (ii) GPU 1 completes a packet while GPU 0 still runs. */
	th_cb_init(&cb);
	saxpy_cmd(&cb, &s1);
	th_cb_end(&cb);
	t = now_ms();
	rig_submit(&r, 1, &cb, 11);
	ASSERT_TRUE(wait_fence(r.th, 1, 11, 120000.0));
	TH_LOG("GPU 1 packet done in %.1f ms while GPU 0 spins",
	       now_ms() - t);
	EXPECT_EQ(0, memcmp(s1.ref, s1.y, s1.n * 4));
	EXPECT_EQ(11, th_rd64(r.th, 1, VMGPU_GPU_FENCE_LO));
	EXPECT_EQ(VMGPU_INT_COMPLETE, th_rd(r.th, 1, VMGPU_GPU_INT_STATUS));
	/* GPU 0's kernel still runs: its counter moves (however loaded the
	 * host, within seconds). */
	c0 = load32(counter);
	t = now_ms();
	while (load32(counter) == c0 && now_ms() - t < 10000.0)
		usleep(1000);
	EXPECT_LT(c0, load32(counter));
	EXPECT_EQ(0, th_rd(r.th, 0, VMGPU_GPU_STATUS) & VMGPU_STATUS_IDLE);

	/* (iii) Reset GPU 0: at once, and the block stops soon after. */
	irqs0 = __atomic_load_n(&r.th->irqs[0], __ATOMIC_RELAXED);
	t = now_ms();
	th_wr(r.th, 0, VMGPU_GPU_RESET, 1);
	t_reset = now_ms() - t;
	EXPECT_EQ(VMGPU_STATUS_IDLE, th_rd(r.th, 0, VMGPU_GPU_STATUS));
	EXPECT_EQ(0, th_rd(r.th, 0, VMGPU_GPU_RING_ENTRIES));
	EXPECT_EQ(0, th_rd(r.th, 0, VMGPU_GPU_CONTROL));
	/* Re-program at once, as the driver does; the runner keeps it. */
	th_gpu_setup(r.th, 0, 8);
	th_set_root(r.th, 0, 0, &r.as);
	t_stop = wait_stable(counter, 30000.0);
	ASSERT_NE(0, t_stop);
	t_stop -= t;
	TH_LOG("RESET returned in %.3f ms, the block stopped %.1f ms later",
	       t_reset, t_stop);
	/* Nothing of the old packet after the reset. */
	EXPECT_EQ(0, fence_mem(r.th, 0));
	EXPECT_EQ(0, th_rd64(r.th, 0, VMGPU_GPU_FENCE_LO));
	EXPECT_EQ(0, th_rd(r.th, 0, VMGPU_GPU_INT_STATUS));
	EXPECT_EQ(0, th_rd(r.th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_ERRORS)));
	EXPECT_EQ(irqs0, __atomic_load_n(&r.th->irqs[0], __ATOMIC_RELAXED));
	/* The registers written after the reset were not undone. */
	EXPECT_EQ(8, th_rd(r.th, 0, VMGPU_GPU_RING_ENTRIES));
	EXPECT_EQ(VMGPU_CTRL_ENABLE, th_rd(r.th, 0, VMGPU_GPU_CONTROL));
	EXPECT_EQ(r.th->ring_base[0],
		  th_rd(r.th, 0, VMGPU_GPU_RING_BASE_LO) |
			  (uint64_t)th_rd(r.th, 0, VMGPU_GPU_RING_BASE_HI)
				  << 32);

	/* GPU 0 runs a new packet correctly. */
	th_cb_init(&cb);
	saxpy_cmd(&cb, &s0);
	th_cb_end(&cb);
	rig_submit(&r, 0, &cb, 21);
	ASSERT_TRUE(wait_fence(r.th, 0, 21, 120000.0));
	EXPECT_EQ(0, memcmp(s0.ref, s0.y, s0.n * 4));
	EXPECT_EQ(21, th_rd64(r.th, 0, VMGPU_GPU_FENCE_LO));
	EXPECT_EQ(VMGPU_INT_COMPLETE, th_rd(r.th, 0, VMGPU_GPU_INT_STATUS));
	EXPECT_EQ(1, th_rd(r.th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_PACKETS)));
	/* The GPU 1 runner is idle, GPU 1 untouched by the reset. */
	EXPECT_EQ(11, th_rd64(r.th, 1, VMGPU_GPU_FENCE_LO));
	EXPECT_EQ(VMGPU_STATUS_IDLE, th_rd(r.th, 1, VMGPU_GPU_STATUS));

	runners_stop(&rs, r.th);
	free(s0.ref);
	free(s1.ref);
	th_free(r.th);
}

/* A small packet for GPU @gpu: two saxpys, a barrier, a copy, stamps. */
static void timeline_packet(struct rig *r, unsigned int gpu,
			    const struct saxpy *s, struct th_cmdbuf *cb)
{
	uint64_t ts = th_as_alloc(r->th, &r->as, 64, RW);
	uint64_t dst = th_as_alloc(r->th, &r->as, s->n * 4, RW);

	th_cb_init(cb);
	th_cb_timestamp(cb, ts);
	saxpy_cmd(cb, s);
	saxpy_cmd(cb, s);
	th_cb_barrier(cb);
	th_cb_copy(cb, s->yva, dst, s->n * 4, 1, 0, 0);
	th_cb_timestamp(cb, ts + 8);
	th_cb_end(cb);
}

/* GPU 1's trace records of a run; malloc()ed. */
static struct vmgpu_trace_record *gpu_records(struct vg_device *dev,
					      unsigned int gpu, size_t *n)
{
	const struct vmgpu_trace_record *all;
	struct vmgpu_trace_record *out;
	size_t len, i;

	all = vg_device_trace_records(dev, &len);
	out = calloc(len + 1, sizeof(*out));
	*n = 0;
	for (i = 0; i < len; i++)
		if (all[i].gpu == gpu)
			out[(*n)++] = all[i];
	return out;
}

/*
 * Run GPU 1's packet alone (one thread), then again with runner threads
 * while GPU 0 is busy with other work: GPU 1's records (device times,
 * order, values) are the same, byte for byte.
 */
static struct vmgpu_trace_record *timeline(bool busy_gpu0, bool threads,
					   size_t *n)
{
	struct vmgpu_trace_record *recs;
	struct vg_config cfg;
	struct th_cmdbuf cb;
	struct saxpy s1, s0;
	struct runners rs;
	struct rig r;
	int i;

	vg_config_defaults(&cfg);
	cfg.gpus = 2;
	rig_init(&r, &cfg);
	vg_device_trace_keep(r.dev, true);
	/* GPU 1's memory first: the same addresses in every run. */
	saxpy_init(&r, &s1, 20000, 1);
	timeline_packet(&r, 1, &s1, &cb);
	th_push(r.th, 1, th_cb_upload(r.th, &r.as, &cb), cb.n * 4, 5,
		VMGPU_RING_F_IRQ, 0, 0);
	saxpy_init(&r, &s0, 200000, 0);
	if (threads)
		runners_start(&rs, r.th, 2);
	if (busy_gpu0) {
		th_cb_init(&cb);
		for (i = 0; i < 6; i++)
			saxpy_cmd(&cb, &s0);
		th_cb_end(&cb);
		rig_submit(&r, 0, &cb, 7);
	}
	th_doorbell(r.th, 1);
	if (threads) {
		wait_fence(r.th, 1, 5, 120000.0);
		if (busy_gpu0)
			wait_fence(r.th, 0, 7, 120000.0);
		runners_stop(&rs, r.th);
	}
	/* Nothing left (threads), or everything (one thread). */
	vg_device_run(r.dev);
	recs = gpu_records(r.dev, 1, n);
	if (fence_mem(r.th, 1) != 5 || (busy_gpu0 && fence_mem(r.th, 0) != 7))
		*n = 0;
	free(s0.ref);
	free(s1.ref);
	th_free(r.th);
	return recs;
}

TEST(gpu_timeline_does_not_depend_on_other_gpus)
{
	struct vmgpu_trace_record *a, *b, *c;
	size_t na, nb, nc;

	a = timeline(false, false, &na);
	b = timeline(true, false, &nb);
	c = timeline(true, true, &nc);
	ASSERT_LT(5, na);
	ASSERT_EQ(na, nb);
	ASSERT_EQ(na, nc);
	EXPECT_EQ(0, memcmp(a, b, na * sizeof(*a)));
	EXPECT_EQ(0, memcmp(a, c, na * sizeof(*a)));
	TH_LOG("GPU 1: %zu records, packet ends at %llu ns in all three runs",
	       na, (unsigned long long)a[na - 1].end_ns);
	free(a);
	free(b);
	free(c);
}

/*
 * A copy of 64 rows of 4 GiB over 256 GiB of VA that all map one page
 * (three page-table pages make that alias: every entry of a leaf table
 * names the page, every entry of one level-1 table names that leaf, half
 * the root names that table) holds the runner for seconds (2^26 pages,
 * walked twice). A GPU reset must not wait for it: the copy engine looks
 * at the reset between rows and every 256 pages, as the interpreter does
 * between slices (robustness.rst, finding 18). Before, the packet after
 * the reset waited 9.2 s for the copy (1 ms now); the bound is 3 s.
 */
TEST(reset_stops_an_endless_copy)
{
	const uint64_t alias = 1ull << (VMGPU_VA_BITS - 1);
	uint64_t page, leaf, l1, flag_va, pte;
	struct vg_config cfg;
	struct runners rs;
	struct th_cmdbuf cb;
	struct rig r;
	uint64_t *t;
	uint32_t i;
	double t0;

	vg_config_defaults(&cfg);
	cfg.gpus = 1;
	rig_init(&r, &cfg);
	page = th_alloc(r.th, 4096);
	leaf = th_alloc(r.th, 4096);
	l1 = th_alloc(r.th, 4096);
	t = th_ptr(r.th, leaf);
	for (i = 0; i < 512; i++)
		t[i] = page | VMGPU_PTE_VALID | RW;
	t = th_ptr(r.th, l1);
	for (i = 0; i < 512; i++)
		t[i] = leaf | VMGPU_PTE_VALID;
	t = th_ptr(r.th, r.as.root);
	for (i = 256; i < 512; i++)
		t[i] = l1 | VMGPU_PTE_VALID;
	pte = t[255];
	ASSERT_EQ(0, pte);	/* the rig's own VAs are below the alias */
	flag_va = th_as_alloc(r.th, &r.as, 4, RW);
	runners_start(&rs, r.th, 1);

	th_cb_init(&cb);
	th_cb_copy(&cb, alias, alias + 4096, 0xfffff000u, 0xffffffffu,
		   0xfffff000u, 0xfffff000u);
	th_cb_end(&cb);
	rig_submit(&r, 0, &cb, 1);
	usleep(300 * 1000);	/* well into the copy */
	ASSERT_EQ(0, fence_mem(r.th, 0));
	t0 = now_ms();
	th_wr(r.th, 0, VMGPU_GPU_RESET, 1);
	th_gpu_setup(r.th, 0, 8);
	th_set_root(r.th, 0, 0, &r.as);
	th_cb_init(&cb);
	th_cb_write(&cb, flag_va, 7);
	th_cb_end(&cb);
	rig_submit(&r, 0, &cb, 2);
	EXPECT_TRUE(wait_fence(r.th, 0, 2, 3000.0))
		TH_LOG("the packet after the reset waited %.0f ms",
		       now_ms() - t0);
	EXPECT_EQ(7, load32(th_va(r.th, &r.as, flag_va)));
	TH_LOG("the reset took effect in %.1f ms", now_ms() - t0);
	runners_stop(&rs, r.th);
	th_free(r.th);
}

TEST_HARNESS_MAIN
