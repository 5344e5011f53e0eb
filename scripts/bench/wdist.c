// SPDX-License-Identifier: GPL-2.0-only
/*
 * Work distributor benchmark, in device time (the model's clock; exact
 * and repeatable). The device core runs on the host as in QEMU, kernels
 * and all, through the host tests' fake machine (selftests/host/testhost).
 *
 * 1. Priority latency: a low-priority kernel fills every SM (grids of 1x,
 *    10x and 100x the SM count, blocks of 1024 threads, two resident per
 *    SM); a short high-priority kernel arrives just after it (four NOPs,
 *    0.4 us, once the SMs have acknowledged their state and hold its
 *    blocks), in the same packet with no SYNC. Its latency, from the
 *    command processor
 *    reaching its DISPATCH to its last block done, first come first
 *    served (wd-fifo=1) against priorities.
 * 2. Load balance against round robin on an imbalanced mix: blocks lasting
 *    from 1x to 7x a base (block b: 1 + b % 7), a second kernel arriving
 *    once the SMs' loads have drifted apart; makespan, SM utilisation
 *    (busy time over SMs x makespan) and the spread of busy time.
 * 3. Priority with eviction: on 4 SMs, two low-priority kernels hold a
 *    task table of 2 slots when an urgent one arrives; it evicts the
 *    least urgent, which resumes where it stopped once the urgent one is
 *    done. The urgent kernel's latency and the makespan against a table
 *    of 32 slots (a free slot, no eviction), and the costs of the state
 *    sync and the eviction (wd-sync-ns, wd-evict-ns) at their defaults
 *    and at 0.
 *
 *   build/bench/wdist [--trace PREFIX]
 *
 * --trace PREFIX writes the trace of run 3 with 2 slots at the default
 * costs as PREFIX.json (Chrome/Perfetto trace-event JSON) and PREFIX.svg
 * (the timeline of Documentation/images/wdist-timeline.svg).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "testhost.h"
#include "testkernels.h"
#include "core/trace.h"
#include "core/trace_svg.h"

#define SMS	8
#define VA0	0x40000000ull
#define RW	(VMGPU_PTE_READ | VMGPU_PTE_WRITE)

struct fill_args {
	uint64_t out;
	uint32_t n, mul, add, spin;
};

/*
 * varspin: like fill, but block b spins base * (1 + b % 7) iterations:
 * blocks of one kernel last from 1x to 7x, so SMs drift apart.
 */
static const char varspin_src[] = TK_SPIN_SRC("varspin", "", "r0", "7");

struct varspin_args {
	uint64_t out;
	uint32_t n, base;
};

struct rig {
	struct testhost *th;
	struct th_as as;
	uint64_t fill;
	struct th_cmdbuf cb;
};

static void rig_init(struct rig *r, const struct vg_config *cfg)
{
	r->th = th_new(256 << 20);
	th_device_new(r->th, cfg, 1);
	vg_device_trace_keep(r->th->dev, true);
	th_as_init(r->th, &r->as, VA0);
	th_gpu_setup(r->th, 0, 8);
	th_set_root(r->th, 0, 0, &r->as);
	r->fill = th_builtin(r->th, &r->as, "fill");
	th_cb_init(&r->cb);
}

/* A fill dispatch of @blocks blocks of @threads threads, @spin long. */
static void add_fill(struct rig *r, uint32_t blocks, uint32_t threads,
		     uint32_t spin, uint32_t priority)
{
	uint32_t grid[3] = { blocks, 1, 1 }, block[3] = { threads, 1, 1 };
	struct fill_args a = {
		.n = blocks * threads, .mul = 1, .add = 1, .spin = spin,
	};

	a.out = th_as_alloc(r->th, &r->as, (uint64_t)a.n * 4, RW);
	th_cb_dispatch(&r->cb, r->fill,
		       th_upload(r->th, &r->as, &a, sizeof(a)), sizeof(a),
		       grid, block, 0, priority);
}

static const struct vmgpu_trace_record *run(struct rig *r, size_t *n)
{
	th_cb_end(&r->cb);
	th_cb_submit(r->th, &r->as, 0, &r->cb, 1);
	vg_device_run(r->th->dev);
	if (th_fence_mem(r->th, 0) != 1 ||
	    th_rd(r->th, 0, VMGPU_GPU_INT_STATUS) != VMGPU_INT_COMPLETE) {
		fprintf(stderr, "wdist bench: the packet failed\n");
		exit(1);
	}
	return vg_device_trace_records(r->th->dev, n);
}

static void config(struct vg_config *c, uint32_t fifo, uint32_t rr)
{
	vg_config_defaults(c);
	c->sms = SMS;
	c->wd_fifo = fifo;
	c->wd_round_robin = rr;
}

/* ns from the CP reaching DISPATCH @index to that dispatch's end. */
static uint64_t latency(const struct vmgpu_trace_record *recs, size_t n,
			uint32_t index, uint64_t *block_ns)
{
	uint64_t reached = 0, end = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct vmgpu_trace_record *t = &recs[i];

		if (t->kind == VMGPU_TRACE_CMD && t->aux == VMGPU_CMD_DISPATCH &&
		    t->dispatch == index)
			reached = t->start_ns;
		if (t->kind == VMGPU_TRACE_DISPATCH && t->dispatch == index)
			end = t->end_ns;
		if (t->kind == VMGPU_TRACE_BLOCK && t->dispatch == 0 &&
		    block_ns)
			*block_ns = t->end_ns - t->start_ns;
	}
	return end - reached;
}

static void priority_latency(void)
{
	static const uint32_t mult[] = { 1, 10, 100 };
	uint64_t lat[2][3], block_ns = 0;
	unsigned int m, fifo, k;

	printf("== high-priority latency while a low-priority kernel fills %u SMs (device ns)\n",
	       SMS);
	for (fifo = 0; fifo < 2; fifo++) {
		for (m = 0; m < 3; m++) {
			struct vg_config c;
			struct rig r;
			const struct vmgpu_trace_record *recs;
			size_t n;

			config(&c, !fifo, 0);
			rig_init(&r, &c);
			add_fill(&r, mult[m] * SMS, 1024, 200, 8);
			/* 400 ns: its blocks are on the SMs (wd-sync-ns) */
			for (k = 0; k < 4; k++)
				th_cb_nop(&r.cb);
			add_fill(&r, 1, 64, 0, 1);
			recs = run(&r, &n);
			lat[fifo][m] = latency(recs, n, 1, &block_ns);
			th_free(r.th);
		}
	}
	printf("%-22s %12s %12s %12s\n", "low-priority grid", "1x SMs",
	       "10x SMs", "100x SMs");
	printf("%-22s %12llu %12llu %12llu\n", "fifo (priorities off)",
	       (unsigned long long)lat[0][0], (unsigned long long)lat[0][1],
	       (unsigned long long)lat[0][2]);
	printf("%-22s %12llu %12llu %12llu\n", "priority",
	       (unsigned long long)lat[1][0], (unsigned long long)lat[1][1],
	       (unsigned long long)lat[1][2]);
	printf("%-22s %11.1fx %11.1fx %11.1fx\n", "fifo / priority",
	       (double)lat[0][0] / lat[1][0], (double)lat[0][1] / lat[1][1],
	       (double)lat[0][2] / lat[1][2]);
	printf("one low-priority block lasts %llu ns\n\n",
	       (unsigned long long)block_ns);
}

/* Busy time of each SM: the union of its blocks' intervals. */
static void sm_busy(const struct vmgpu_trace_record *recs, size_t n,
		    uint64_t busy[SMS], uint64_t *makespan)
{
	uint64_t last_end[SMS] = { 0 };
	size_t i;
	int s;

	memset(busy, 0, SMS * sizeof(busy[0]));
	*makespan = 0;
	/* Block records come in completion order; intervals per SM merge. */
	for (s = 0; s < SMS; s++) {
		uint64_t cur_s = 0, cur_e = 0;
		int open = 0;

		for (i = 0; i < n; i++) {
			const struct vmgpu_trace_record *t = &recs[i];

			if (t->kind != VMGPU_TRACE_BLOCK || t->sm != s)
				continue;
			if (!open || t->start_ns > cur_e) {
				busy[s] += cur_e - cur_s;
				cur_s = t->start_ns;
				cur_e = t->end_ns;
				open = 1;
			} else if (t->end_ns > cur_e) {
				cur_e = t->end_ns;
			}
			if (t->start_ns < cur_s)
				cur_s = t->start_ns;
		}
		busy[s] += cur_e - cur_s;
		last_end[s] = cur_e;
		if (last_end[s] > *makespan)
			*makespan = last_end[s];
	}
}

static void balance(void)
{
	const char *names[2] = { "load-balance", "round-robin" };
	unsigned int rr;

	printf("== load balance against round robin, imbalanced mix on %u SMs\n",
	       SMS);
	printf("%-14s %12s %12s %14s\n", "mode", "makespan_ns", "sm_util",
	       "busy_spread");
	for (rr = 0; rr < 2; rr++) {
		const struct vmgpu_trace_record *recs;
		uint64_t busy[SMS], makespan, lo = UINT64_MAX, hi = 0, sum = 0;
		struct vg_config c;
		struct rig r;
		size_t n;
		int s;

		struct varspin_args a = { .n = 96 * 128, .base = 200 };
		uint32_t grid[3] = { 96, 1, 1 }, block[3] = { 128, 1, 1 };
		uint64_t k;
		int i;

		config(&c, 0, rr);
		rig_init(&r, &c);
		k = th_kernel(r.th, &r.as, varspin_src);
		a.out = th_as_alloc(r.th, &r.as, (uint64_t)a.n * 4, RW);
		th_cb_dispatch(&r.cb, k, th_upload(r.th, &r.as, &a, sizeof(a)),
			       sizeof(a), grid, block, 0, 4);
		/* The second kernel arrives once the SMs have drifted apart. */
		for (i = 0; i < 40; i++)
			th_cb_nop(&r.cb);
		a.n = 160 * 128;
		a.base = 100;
		grid[0] = 160;
		a.out = th_as_alloc(r.th, &r.as, (uint64_t)a.n * 4, RW);
		th_cb_dispatch(&r.cb, k, th_upload(r.th, &r.as, &a, sizeof(a)),
			       sizeof(a), grid, block, 0, 4);
		recs = run(&r, &n);
		sm_busy(recs, n, busy, &makespan);
		for (s = 0; s < SMS; s++) {
			sum += busy[s];
			lo = busy[s] < lo ? busy[s] : lo;
			hi = busy[s] > hi ? busy[s] : hi;
		}
		printf("%-14s %12llu %11.1f%% %13.1f%%\n", names[rr],
		       (unsigned long long)makespan,
		       100.0 * sum / ((double)SMS * makespan),
		       100.0 * (hi - lo) / makespan);
		th_free(r.th);
	}
}

/* Run 3's result: the urgent kernel's latency, makespan, evictions. */
struct evict_result {
	uint64_t latency, makespan;
	unsigned int evictions, resumes;
};

/*
 * Run 3 on 4 SMs with @slots table slots: d0 (priority 12, 24 blocks) and,
 * 4 NOPs later, d1 (priority 8, 16 blocks) of 1024 threads, two resident
 * per SM; d2 (priority 1, 4 blocks of 256 threads) 40 NOPs later. With @costs the
 * default state-sync and eviction latencies, else 0. If @trace, the
 * run's trace goes to @trace.json and @trace.svg.
 */
static struct evict_result evict_run(uint32_t slots, bool costs,
				     const char *trace)
{
	struct evict_result res = { 0, 0, 0, 0 };
	const struct vmgpu_trace_record *recs;
	struct vg_config c;
	struct rig r;
	size_t n, i;
	int k;

	config(&c, 0, 0);
	c.sms = 4;
	c.wd_table_slots = slots;
	if (!costs) {
		c.wd_sync_ns = 0;
		c.wd_evict_ns = 0;
	}
	rig_init(&r, &c);
	add_fill(&r, 24, 1024, 200, 12);
	for (k = 0; k < 4; k++)		/* d0's blocks are on the SMs */
		th_cb_nop(&r.cb);
	add_fill(&r, 16, 1024, 200, 8);
	for (k = 0; k < 40; k++)
		th_cb_nop(&r.cb);
	add_fill(&r, 4, 256, 100, 1);
	recs = run(&r, &n);
	res.latency = latency(recs, n, 2, NULL);
	for (i = 0; i < n; i++) {
		if (recs[i].kind == VMGPU_TRACE_PACKET)
			res.makespan = recs[i].end_ns - recs[i].start_ns;
		if (recs[i].kind == VMGPU_TRACE_TMD) {
			res.evictions += recs[i].aux == VMGPU_TRACE_TMD_EVICTED;
			res.resumes += recs[i].aux == VMGPU_TRACE_TMD_RESUMED;
		}
	}
	if (trace) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s.json", trace);
		f = fopen(path, "w");
		if (!f || vg_trace_json_write(recs, n, f) || fclose(f)) {
			perror(path);
			exit(1);
		}
		snprintf(path, sizeof(path), "%s.svg", trace);
		f = fopen(path, "w");
		if (!f || vg_trace_svg_write(recs, n, f) || fclose(f)) {
			perror(path);
			exit(1);
		}
		vg_trace_summary_write(recs, n, stdout);
	}
	th_free(r.th);
	return res;
}

static void eviction(const char *trace)
{
	static const struct {
		uint32_t slots;
		bool costs;
		const char *name;
	} runs[] = {
		{ 2, true, "2 slots" },
		{ 32, true, "32 slots" },
		{ 2, false, "2 slots, no costs" },
		{ 32, false, "32 slots, no costs" },
	};
	struct vg_config c;
	unsigned int i;

	vg_config_defaults(&c);
	printf("\n== priority with eviction on 4 SMs (wd-sync-ns %u, wd-evict-ns %u; no costs: 0)\n",
	       c.wd_sync_ns, c.wd_evict_ns);
	printf("%-20s %12s %12s %10s %8s\n", "task table", "urgent_ns",
	       "makespan_ns", "evictions", "resumes");
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct evict_result res = evict_run(runs[i].slots,
						    runs[i].costs, NULL);

		printf("%-20s %12llu %12llu %10u %8u\n", runs[i].name,
		       (unsigned long long)res.latency,
		       (unsigned long long)res.makespan, res.evictions,
		       res.resumes);
	}
	if (trace) {
		printf("\ntrace of the first run: %s.json, %s.svg\n", trace,
		       trace);
		evict_run(2, true, trace);
	}
}

int main(int argc, char **argv)
{
	const char *trace = NULL;

	if (argc == 3 && !strcmp(argv[1], "--trace")) {
		trace = argv[2];
	} else if (argc != 1) {
		fprintf(stderr, "usage: wdist [--trace PREFIX]\n");
		return 2;
	}
	priority_latency();
	balance();
	eviction(trace);
	return 0;
}
