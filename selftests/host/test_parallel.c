// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parallel and exact (Documentation/device-model.rst, "Parallel and
 * exact"): the splitter's chain of stencils on 4 GPUs, in every mode and
 * movement, run by vg_device_run() from one thread and with each GPU's
 * blocks on an executor thread of its own, several times: every run
 * gives the same per-GPU start and end, the same counters (link bytes
 * per link included), the same trace records byte for byte and the same
 * results. A kernel with global atomics gives the same tickets either
 * way (it runs at issue on the loop's thread), and a RESET stops a
 * runaway block on an executor while the loop waits for it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "testsplit.h"
#include "vmgpu/split.h"

#define VA0	0x40000000ull
#define GPUS	4
#define W	64
#define H	64
#define BLK	8
#define KERNELS	3

/* What one run produced: everything that must not depend on threads. */
struct outcome {
	uint64_t makespan, start[GPUS], end[GPUS];
	uint64_t cnt[GPUS][VMGPU_CNT_NUM];
	struct vmgpu_trace_record *rec;
	size_t nrec;
	float out[GPUS][W * H];
};

static void run(const struct ts_chain_run *cr, bool executors,
		uint32_t link_mbps, struct outcome *o)
{
	uint64_t shared[VMGPU_SPLIT_MAX_RESOURCES] = { 0 };
	struct ts_kernel k[VMGPU_SPLIT_MAX_KERNELS];
	const struct vmgpu_trace_record *rec;
	uint32_t gpu, n;
	struct split_geom g;
	struct testhost *th;
	struct vg_config c;
	struct th_as as;
	struct ts_split t;
	uint64_t code;
	size_t nrec;

	vg_config_defaults(&c);
	c.gpus = GPUS;
	c.link_bw_mbps = link_mbps;
	th = ts_chain_device(&c, 32 << 20, VA0, executors, &as, &code);
	memset(&g, 0, sizeof(g));
	g.width = W;
	g.height = H;
	g.block[0] = g.block[1] = BLK;
	g.num_kernels = KERNELS;
	g.gpus = GPUS;
	g.mode = cr->mode;
	g.movement = cr->movement;
	g.allocation = cr->allocation;
	/* Some work per pixel, more in the top-left quarter. */
	ts_chain_kernels(&g, k, code, 20, 40);
	ts_split_init(&t, th, &as, &g, k, shared);
	ts_chain_fill(&t);
	o->makespan = ts_split_run(&t, o->start, o->end);
	for (gpu = 0; gpu < GPUS; gpu++) {
		memcpy(o->out[gpu], th_va(th, &as, t.res_va[KERNELS][gpu]),
		       sizeof(o->out[gpu]));
		for (n = 0; n < VMGPU_CNT_NUM; n++)
			o->cnt[gpu][n] = th_rd64(th, gpu, VMGPU_GPU_CNT_LO(n));
	}
	rec = vg_device_trace_records(th->dev, &nrec);
	o->rec = malloc(nrec * sizeof(*rec));
	if (!o->rec)
		th_die("out of memory");
	memcpy(o->rec, rec, nrec * sizeof(*rec));
	o->nrec = nrec;
	ts_split_free(&t);
	th_free(th);
}


/* One thread once, executors three times: all four the same. */
static void same_every_run(struct __test_metadata *_metadata,
			   uint32_t link_mbps)
{
	static struct outcome ref, o;
	uint32_t m, r, gpu;

	for (m = 0; m < TS_CHAIN_RUNS; m++) {
		run(&ts_chain_runs[m], false, link_mbps, &ref);
		ASSERT_LT(0, ref.makespan);
		for (r = 0; r < 3; r++) {
			run(&ts_chain_runs[m], true, link_mbps, &o);
			EXPECT_EQ(ref.makespan, o.makespan)
				TH_LOG("%s, run %u", ts_chain_runs[m].name, r);
			for (gpu = 0; gpu < GPUS; gpu++) {
				EXPECT_EQ(ref.start[gpu], o.start[gpu]);
				EXPECT_EQ(ref.end[gpu], o.end[gpu])
					TH_LOG("%s, run %u, GPU %u",
					       ts_chain_runs[m].name, r, gpu);
				EXPECT_EQ(ref.cnt[gpu][VMGPU_CNT_BYTES_LINK],
					  o.cnt[gpu][VMGPU_CNT_BYTES_LINK]);
			}
			EXPECT_EQ(0, memcmp(ref.cnt, o.cnt, sizeof(o.cnt)))
				TH_LOG("%s, run %u: counters differ",
				       ts_chain_runs[m].name, r);
			ASSERT_EQ(ref.nrec, o.nrec)
				TH_LOG("%s, run %u", ts_chain_runs[m].name, r);
			EXPECT_EQ(0, memcmp(ref.rec, o.rec,
					    o.nrec * sizeof(*o.rec)))
				TH_LOG("%s, run %u: trace differs",
				       ts_chain_runs[m].name, r);
			EXPECT_EQ(0, memcmp(ref.out, o.out, sizeof(o.out)))
				TH_LOG("%s, run %u: results differ",
				       ts_chain_runs[m].name, r);
			free(o.rec);
		}
		free(ref.rec);
	}
}

TEST(chain_on_executors_equals_one_thread)
{
	same_every_run(_metadata, 300000);
}

/* A slow link: transfers of the GPUs overlap and wait for each other. */
TEST(chain_with_link_contention_equals_one_thread)
{
	same_every_run(_metadata, 4000);
}

/*
 * Thread 0 of each block takes a ticket from a counter both GPUs share,
 * after some work, and stores it at its block's place: the tickets show
 * the order in which the atomics acted (were the blocks run on the
 * executors, the two GPUs' would interleave as the threads went).
 */
static const char ticket_src[] =
	".args 16\n"
	/* Some work first, so that the executors' blocks overlap. */
	"	mov r1, 2000\n"
	"spin:\n"
	"	sub r1, r1, 1\n"
	"	setp.ne p1, r1, 0\n"
	"	bra p1, spin\n"
	"	s2r r0, %tid.x\n"
	"	setp.ne p0, r0, 0\n"
	"	bra p0, done\n"
	"	s2r r0, %ctaid.x\n"
	"	ldarg.64 r2, 0\n"
	"	ldarg.64 r4, 8\n"
	"	lea r4, r4, r0, 2\n"
	"	mov r6, 1\n"
	"	atom.add r7, [r2], r6\n"
	"	st.32 [r4], r7\n"
	"done:\n"
	"	exit\n";

#define TICKET_BLOCKS	64

static void tickets(bool executors, uint32_t *out)
{
	uint32_t grid[3] = { TICKET_BLOCKS, 1, 1 }, block[3] = { 64, 1, 1 };
	uint64_t counter, t[2], args[2][2], args_va, code;
	struct th_cmdbuf cb;
	struct testhost *th;
	struct th_as as;
	uint32_t gpu;

	th = th_new(16 << 20);
	th_device_new(th, NULL, 2);
	if (executors && vg_device_executors(th->dev, true))
		th_die("vg_device_executors failed");
	th_as_init(th, &as, VA0);
	code = th_kernel(th, &as, ticket_src);
	counter = th_as_alloc(th, &as, 4,
			      VMGPU_PTE_READ | VMGPU_PTE_WRITE);
	for (gpu = 0; gpu < 2; gpu++) {
		th_gpu_setup(th, gpu, 16);
		th_set_root(th, gpu, 0, &as);
		t[gpu] = th_as_alloc(th, &as, 4 * TICKET_BLOCKS,
				     VMGPU_PTE_READ | VMGPU_PTE_WRITE);
		args[gpu][0] = counter;
		args[gpu][1] = t[gpu];
		args_va = th_upload(th, &as, args[gpu], 16);
		th_cb_init(&cb);
		th_cb_dispatch(&cb, code, args_va, 16, grid, block, 0, 0);
		th_cb_end(&cb);
		th_cb_submit(th, &as, gpu, &cb, 1);
	}
	vg_device_run(th->dev);
	for (gpu = 0; gpu < 2; gpu++) {
		if (th_fence_mem(th, gpu) != 1)
			th_die("tickets: a packet did not complete");
		memcpy(out + gpu * TICKET_BLOCKS, th_va(th, &as, t[gpu]),
		       4 * TICKET_BLOCKS);
	}
	th_free(th);
}

TEST(atomics_act_in_issue_order_with_executors)
{
	uint32_t one[2 * TICKET_BLOCKS], par[2 * TICKET_BLOCKS];
	uint32_t seen[2 * TICKET_BLOCKS] = { 0 }, i, r;

	tickets(false, one);
	for (i = 0; i < 2 * TICKET_BLOCKS; i++) {
		ASSERT_GT(2 * TICKET_BLOCKS, one[i]);
		seen[one[i]]++;
	}
	/* Every ticket once. */
	for (i = 0; i < 2 * TICKET_BLOCKS; i++)
		EXPECT_EQ(1, seen[i]);
	for (r = 0; r < 3; r++) {
		tickets(true, par);
		EXPECT_EQ(0, memcmp(one, par, sizeof(one))) TH_LOG("run %u", r);
	}
}

/* ---- A loop thread as QEMU's time-order=1 runs it ---- */

struct loop {
	struct vg_device *dev;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool kicked, stop;
	unsigned int runs;	/* vg_device_run() calls that returned */
};

static void loop_kick(void *opaque, unsigned int gpu)
{
	struct loop *l = opaque;

	pthread_mutex_lock(&l->lock);
	l->kicked = true;
	pthread_cond_signal(&l->cond);
	pthread_mutex_unlock(&l->lock);
}

static void *loop_main(void *p)
{
	struct loop *l = p;

	pthread_mutex_lock(&l->lock);
	for (;;) {
		while (!l->kicked && !l->stop)
			pthread_cond_wait(&l->cond, &l->lock);
		if (l->stop)
			break;
		l->kicked = false;
		pthread_mutex_unlock(&l->lock);
		vg_device_run(l->dev);
		pthread_mutex_lock(&l->lock);
		l->runs++;
		pthread_cond_broadcast(&l->cond);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* A block that never ends, without atomics: it runs on the executor. */
static const char endless_src[] =
	".args 0\n"
	"	mov r0, 0\n"
	"loop:\n"
	"	add r0, r0, 1\n"
	"	bra loop\n"
	"	exit\n";

/*
 * GPU 0 runs an endless block on its executor (the largest budget:
 * minutes of host time) while the loop thread waits to price it;
 * meanwhile registers answer. RESET returns at once, the executor stops
 * within a slice, the loop drops the work, and GPU 0 then runs a new
 * packet with the right result.
 */
TEST(reset_stops_a_runaway_block_on_an_executor)
{
	uint32_t one[3] = { 1, 1, 1 }, *flag;
	struct vg_config cfg;
	struct th_cmdbuf cb;
	struct testhost *th;
	struct th_as as;
	struct loop l;
	uint64_t flag_va;
	unsigned int runs;
	double t;

	vg_config_defaults(&cfg);
	cfg.gpus = 2;
	cfg.instr_budget = UINT32_MAX;
	th = th_new(16 << 20);
	th_device_new(th, &cfg, 2);
	ASSERT_EQ(0, vg_device_executors(th->dev, true));
	th_as_init(th, &as, VA0);
	th_gpu_setup(th, 0, 16);
	th_set_root(th, 0, 0, &as);
	flag_va = th_as_alloc(th, &as, 4, VMGPU_PTE_READ | VMGPU_PTE_WRITE);
	flag = th_va(th, &as, flag_va);

	memset(&l, 0, sizeof(l));
	l.dev = th->dev;
	pthread_mutex_init(&l.lock, NULL);
	pthread_cond_init(&l.cond, NULL);
	ASSERT_EQ(0, pthread_create(&l.thread, NULL, loop_main, &l));
	th->hook_opaque = &l;
	th->kick_hook = loop_kick;

	th_cb_init(&cb);
	th_cb_dispatch(&cb, th_kernel(th, &as, endless_src), 0, 0, one, one,
		       0, 0);
	th_cb_end(&cb);
	th_cb_submit(th, &as, 0, &cb, 1);
	/* Busy, and staying busy: the loop waits for the executor. */
	usleep(200000);
	pthread_mutex_lock(&l.lock);
	runs = l.runs;
	pthread_mutex_unlock(&l.lock);
	usleep(100000);
	EXPECT_EQ(0, th_rd(th, 0, VMGPU_GPU_STATUS) & VMGPU_STATUS_IDLE);
	EXPECT_EQ(0, th_rd(th, 0, VMGPU_GPU_FENCE_LO));
	pthread_mutex_lock(&l.lock);
	EXPECT_EQ(runs, l.runs);
	pthread_mutex_unlock(&l.lock);

	t = now_ms();
	th_wr(th, 0, VMGPU_GPU_RESET, 1);
	TH_LOG("RESET returned after %.3f ms", now_ms() - t);
	/* The loop's run returns: the executor stopped the block. */
	pthread_mutex_lock(&l.lock);
	while (l.runs == runs) {
		struct timespec ts;

		ASSERT_LT(now_ms() - t, 60000.0);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&l.cond, &l.lock, &ts);
	}
	pthread_mutex_unlock(&l.lock);
	TH_LOG("the loop went on %.1f ms after the RESET", now_ms() - t);
	EXPECT_EQ(0, th_rd(th, 0, VMGPU_GPU_FENCE_LO));

	/* A new packet after the reset: it runs and its write lands. */
	th_gpu_program(th, 0);
	th_set_root(th, 0, 0, &as);
	th_cb_init(&cb);
	th_cb_write(&cb, flag_va, 77);
	th_cb_end(&cb);
	th_cb_submit(th, &as, 0, &cb, 2);
	t = now_ms();
	/* The register, not the word: the device writes that meanwhile. */
	while (th_rd(th, 0, VMGPU_GPU_FENCE_LO) != 2) {
		ASSERT_LT(now_ms() - t, 60000.0);
		usleep(1000);
	}
	EXPECT_EQ(77, *(volatile uint32_t *)flag);

	th->kick_hook = NULL;
	pthread_mutex_lock(&l.lock);
	l.stop = true;
	pthread_cond_signal(&l.cond);
	pthread_mutex_unlock(&l.lock);
	pthread_join(l.thread, NULL);
	pthread_cond_destroy(&l.cond);
	pthread_mutex_destroy(&l.lock);
	th_free(th);
}

TEST_HARNESS_MAIN
