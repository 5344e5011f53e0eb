// SPDX-License-Identifier: GPL-2.0-only
/*
 * The model against a real GPU: the five experiments of the H100
 * reference measurements (Documentation/fidelity.rst; the figures of one
 * NVIDIA H100 80GB HBM3, 2026-11-27) run on the device core in device
 * time, each figure of the model printed beside the H100's with
 * model/H100. The device core runs on the host as in QEMU, through the
 * host tests' fake machine (selftests/host/testhost), as wdist and
 * child-launch do.
 *
 * 1. prio: a low-priority kernel of 1024-thread blocks that each last
 *    8.7 us (two resident per SM), grids of 1x, 2x, 10x and 100x the SM
 *    count; 0.4 us after it (same packet, no SYNC: the SMs hold its
 *    blocks) a one-block kernel of higher or of the same priority. Times
 *    from the low kernel's first block start; the shape is same-priority
 *    / priority at each grid.
 * 2. batch: 33 dependent kernels y = a*x + y over 64K floats (256 blocks
 *    of 256) as (a) a packet each, the next submitted once the last one's
 *    fence is in, (b) a packet each, all submitted at once, (c) one packet
 *    of 33 DISPATCHes with a SYNC between neighbours.
 * 3. balance: (1) 10x SMs blocks of 256 threads, block b lasting
 *    5 us x (1 + b % 7); (2) A = 12x SMs blocks of 128 threads like that,
 *    then (same packet) B = 20x SMs blocks of 2.5 us x (1 + b % 7);
 *    (3) A fills every slot, the blocks on SM s lasting 5 us x
 *    (1 + s % 7), then B = 4x SMs blocks of 2 us: which SMs take B.
 * 4. child: a parent of 1 block x 32 threads, each thread starting a
 *    child of 4 blocks x 32 threads on the device (launch) or by a host
 *    round trip (the parent's packet completes, a second packet carries
 *    the 32 children).
 * 5. kernels: the five reference kernels at the interp benchmark's sizes
 *    and launch shapes, the dispatch's span (first block start to last
 *    block end); the shape is each one's time over saxpy's. Then saxpy
 *    of 16M floats, past the H100's L2 (its dispatch measurement).
 *
 * Data buffers are in GPU 0's memory (VMGPU_LOC_GPU(0)), as cudaMalloc()
 * places them; in host memory the H100-like GPU's 64 SMs would outrun
 * the host bus.
 *
 * A block "lasting" T: the H100's blocks spin on the global timer, so
 * they last T whatever else the SM runs; the model's blocks spin a count
 * of instructions on the SM's shared issue pipeline, so the count is
 * chosen for T with the SM as full as the experiment makes it, and the
 * measured block time is printed.
 *
 *   build/bench/fidelity [default|h100-like|all]
 *
 * default: the model's default settings; h100-like: preset=h100-like
 * (Documentation/device-model.rst, "Presets"); all (the default): both.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/trace.h"
#include "testhost.h"
#include "testkernels.h"

#define VA0	0x40000000ull
#define RW	(VMGPU_PTE_READ | VMGPU_PTE_WRITE)
/* Data in GPU 0's own memory, as cudaMalloc() places it */
#define LOCAL	(RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(0)))
#define H100_SMS 132

/*
 * The spin kernel by block index. Its class is read again into r10 (the
 * figures of fidelity.rst were measured with that instruction).
 */
#define SPIN_BY_BLOCK(div) \
	TK_SPIN_SRC("spin", "s2r r10, %ctaid.x", "r10", div)
#define SPIN_BY_SM(div)	TK_SPIN_SRC("spin", "s2r r10, %smid", "r10", div)

struct rig {
	struct testhost *th;
	struct th_as as;
	struct th_cmdbuf *cb;
	struct vg_config cfg;
	uint64_t seqno;
};

static void rig_init(struct rig *r, const struct vg_config *cfg,
		     uint64_t mem)
{
	r->cfg = *cfg;
	r->th = th_new(mem);
	th_device_new(r->th, cfg, 1);
	vg_device_trace_keep(r->th->dev, true);
	th_as_init(r->th, &r->as, VA0);
	th_gpu_setup(r->th, 0, 64);
	th_set_root(r->th, 0, 0, &r->as);
	r->cb = malloc(sizeof(*r->cb));
	if (!r->cb)
		th_die("out of memory");
	th_cb_init(r->cb);
	r->seqno = 0;
}

static void rig_free(struct rig *r)
{
	free(r->cb);
	th_free(r->th);
}

/* End the command buffer and put it on the ring; a fresh one follows. */
static void submit(struct rig *r)
{
	th_cb_end(r->cb);
	th_cb_submit(r->th, &r->as, 0, r->cb, ++r->seqno);
	th_cb_init(r->cb);
}

/* Run until idle; every packet submitted must have completed. */
static const struct vmgpu_trace_record *run(struct rig *r, size_t *n)
{
	vg_device_run(r->th->dev);
	if (th_fence_mem(r->th, 0) != r->seqno ||
	    th_rd(r->th, 0, VMGPU_GPU_INT_STATUS) != VMGPU_INT_COMPLETE) {
		fprintf(stderr,
			"fidelity bench: packet %llu failed (fence %llu, interrupt status %#x, error %u at %u)\n",
			(unsigned long long)r->seqno,
			(unsigned long long)th_fence_mem(r->th, 0),
			th_rd(r->th, 0, VMGPU_GPU_INT_STATUS),
			th_rd(r->th, 0, VMGPU_GPU_ERR_CODE),
			th_rd(r->th, 0, VMGPU_GPU_ERR_PC));
		exit(1);
	}
	th_ack_all(r->th, 0);
	return vg_device_trace_records(r->th->dev, n);
}

struct spin_args {
	uint64_t out;
	uint32_t n, base;
};

/*
 * Iterations for a block of @threads to last @ns when @resident such
 * blocks share each SM's issue pipeline (4 warp instructions each).
 */
static uint32_t spin_iters(const struct vg_config *c, double ns,
			   uint32_t threads, uint32_t resident)
{
	double warp_instrs = ns * c->clock_khz / 1e6 * c->issue_width /
			     resident / ((threads + 31) / 32);

	return warp_instrs > 4 ? (uint32_t)(warp_instrs / 4 + 0.5) : 1;
}

static void add_spin(struct rig *r, uint64_t k, uint32_t blocks,
		     uint32_t threads, uint32_t base, uint32_t priority)
{
	uint32_t grid[3] = { blocks, 1, 1 }, block[3] = { threads, 1, 1 };
	struct spin_args a = { .n = blocks * threads, .base = base };

	a.out = th_as_alloc(r->th, &r->as, (uint64_t)a.n * 4, LOCAL);
	th_cb_dispatch(r->cb, k, th_upload(r->th, &r->as, &a, sizeof(a)),
		       sizeof(a), grid, block, 0, priority);
}

/* Blocks whose packet and dispatch match (seqno 0: any packet). */
struct span {
	uint64_t first_start, last_start, first_end, last_end, blocks;
};

static struct span block_span(const struct vmgpu_trace_record *rec, size_t n,
			      uint64_t seqno, uint32_t dispatch)
{
	struct span s = { UINT64_MAX, 0, UINT64_MAX, 0, 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		const struct vmgpu_trace_record *t = &rec[i];

		if (t->kind != VMGPU_TRACE_BLOCK || t->dispatch != dispatch ||
		    (seqno && t->seqno != seqno))
			continue;
		s.blocks++;
		s.first_start = t->start_ns < s.first_start ? t->start_ns :
							      s.first_start;
		s.last_start = t->start_ns > s.last_start ? t->start_ns :
							    s.last_start;
		s.first_end = t->end_ns < s.first_end ? t->end_ns :
							s.first_end;
		s.last_end = t->end_ns > s.last_end ? t->end_ns : s.last_end;
	}
	if (!s.blocks) {
		fprintf(stderr, "fidelity bench: no blocks of dispatch %u\n",
			dispatch);
		exit(1);
	}
	return s;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Median duration of the blocks of dispatch @dispatch. */
static double block_median_ns(const struct vmgpu_trace_record *rec,
			      size_t n, uint32_t dispatch)
{
	uint64_t *d = malloc(n * sizeof(*d));
	size_t i, k = 0;
	double m;

	if (!d)
		th_die("out of memory");
	for (i = 0; i < n; i++)
		if (rec[i].kind == VMGPU_TRACE_BLOCK &&
		    rec[i].dispatch == dispatch)
			d[k++] = rec[i].end_ns - rec[i].start_ns;
	qsort(d, k, sizeof(*d), cmp_u64);
	m = k ? (k % 2 ? d[k / 2] : (d[k / 2 - 1] + d[k / 2]) / 2.0) : 0;
	free(d);
	return m;
}

/* One figure: the model's, the H100's and model/H100. */
static void fig(const char *name, double model, double h100,
		const char *unit)
{
	printf("  %-44s %11.2f %11.2f %8.2f  %s\n", name, model, h100,
	       h100 ? model / h100 : 0.0, unit);
}

static void fig_head(void)
{
	printf("  %-44s %11s %11s %8s\n", "", "vmgpu", "H100", "ratio");
}

/* ---- 1. prio ---- */

/* H100, variant A: hi_end - low0 (us), priority and same-prio. */
static const double h100_prio[4][2] = {
	{ 9.41, 9.38 }, { 9.41, 9.41 }, { 9.41, 45.92 }, { 9.41, 455.74 },
};

static void prio(const struct vg_config *c)
{
	static const uint32_t mult[] = { 1, 2, 10, 100 };
	uint32_t spin = spin_iters(c, 8700, 1024, 2);
	double blk = 0, hi_end[4][2];
	unsigned int m, same, i;

	printf("\n== prio: a 1-block kernel right after a low-priority grid of 1024-thread blocks of 8.7 us\n");
	printf("   (us from the low kernel's first block start to the 1-block kernel's end)\n");
	fig_head();
	for (m = 0; m < 4; m++) {
		for (same = 0; same < 2; same++) {
			const struct vmgpu_trace_record *rec;
			struct span lo, hi;
			struct rig r;
			uint64_t k;
			size_t n;

			rig_init(&r, c, 512ull << 20);
			k = th_kernel(r.th, &r.as, SPIN_BY_BLOCK("1"));
			add_spin(&r, k, mult[m] * c->sms, 1024, spin, 8);
			/* 0.4 us: the SMs hold the low kernel's blocks */
			for (i = 0; i < 4; i++)
				th_cb_nop(r.cb);
			add_spin(&r, k, 1, 32, 0, same ? 8 : 1);
			submit(&r);
			rec = run(&r, &n);
			lo = block_span(rec, n, 0, 0);
			hi = block_span(rec, n, 0, 1);
			hi_end[m][same] = (hi.last_end - lo.first_start) / 1e3;
			if (m == 3 && !same)
				blk = block_median_ns(rec, n, 0) / 1e3;
			rig_free(&r);
		}
	}
	for (m = 0; m < 4; m++) {
		char name[64];

		snprintf(name, sizeof(name), "%3ux SMs priority: hi_end", mult[m]);
		fig(name, hi_end[m][0], h100_prio[m][0], "us");
		snprintf(name, sizeof(name), "%3ux SMs same priority: hi_end",
			 mult[m]);
		fig(name, hi_end[m][1], h100_prio[m][1], "us");
		snprintf(name, sizeof(name), "%3ux SMs same / priority", mult[m]);
		fig(name, hi_end[m][1] / hi_end[m][0],
		    h100_prio[m][1] / h100_prio[m][0], "x (shape)");
	}
	fig("one low-priority block (median)", blk, 8.79, "us");
}

/* ---- 2. batch ---- */

struct saxpy_args {
	uint32_t n;
	float a;
	uint64_t x, y;
};

static void batch(const struct vg_config *c)
{
	static const char *const names[3] = {
		"(a) packet each, wait each", "(b) packet each, no waits",
		"(c) one packet, SYNCs",
	};
	/* H100: wall, gap, idle, kernel (us) */
	static const double h100[3][4] = {
		{ 369.09, 10.736, 9.568, 1.184 },
		{ 137.06, 3.888, 2.728, 1.184 },
		{ 66.53, 1.920, 0.736, 1.184 },
	};
	const uint32_t nk = 33, n = 65536;
	const uint32_t grid[3] = { n / 256, 1, 1 }, block[3] = { 256, 1, 1 };
	double wall[3], gap[3], idle[3], kern[3];
	unsigned int mode, i;

	printf("\n== batch: 33 dependent kernels y = a*x + y, 64K floats, 256 blocks x 256\n");
	for (mode = 0; mode < 3; mode++) {
		const struct vmgpu_trace_record *rec = NULL;
		struct span s[33];
		struct saxpy_args a = { .n = n, .a = 1.0f / 1024 };
		struct rig r;
		uint64_t k, args;
		float *y;
		size_t cnt = 0;

		rig_init(&r, c, 64ull << 20);
		k = th_builtin(r.th, &r.as, "saxpy");
		a.x = th_as_alloc(r.th, &r.as, n * 4, LOCAL);
		a.y = th_as_alloc(r.th, &r.as, n * 4, LOCAL);
		for (i = 0; i < n; i++)
			((float *)th_va(r.th, &r.as, a.x))[i] = 1.0f;
		args = th_upload(r.th, &r.as, &a, sizeof(a));
		for (i = 0; i < nk; i++) {
			/* a SYNC comes before its consumer's DISPATCH */
			if (mode == 2 && i)
				th_cb_sync(r.cb, i, i - 1);
			th_cb_dispatch(r.cb, k, args, sizeof(a), grid, block,
				       0, 0);
			if (mode == 2)
				continue;
			submit(&r);
			if (mode == 0)
				rec = run(&r, &cnt);
		}
		if (mode == 2)
			submit(&r);
		if (mode != 0)
			rec = run(&r, &cnt);
		y = th_va(r.th, &r.as, a.y);
		for (i = 0; i < n; i++)
			if (y[i] != nk / 1024.0f) {
				fprintf(stderr, "fidelity bench: batch %u: y[%u] = %g\n",
					mode, i, y[i]);
				exit(1);
			}
		for (i = 0; i < nk; i++)
			s[i] = mode == 2 ? block_span(rec, cnt, 1, i) :
					   block_span(rec, cnt, i + 1, 0);
		wall[mode] = (s[nk - 1].last_end - s[0].first_start) / 1e3;
		gap[mode] = idle[mode] = kern[mode] = 0;
		for (i = 0; i < nk; i++) {
			kern[mode] += s[i].last_end - s[i].first_start;
			if (i) {
				gap[mode] += s[i].first_start -
					     s[i - 1].first_start;
				idle[mode] += s[i].first_start -
					      s[i - 1].last_end;
			}
		}
		kern[mode] /= nk * 1e3;
		gap[mode] /= (nk - 1) * 1e3;
		idle[mode] /= (nk - 1) * 1e3;
		rig_free(&r);
	}
	printf("   (device time; the H100's wall time holds the host's launch and wake-up times)\n");
	fig_head();
	for (mode = 0; mode < 3; mode++) {
		char name[80];

		snprintf(name, sizeof(name), "%s: makespan", names[mode]);
		fig(name, wall[mode], h100[mode][0], "us");
		snprintf(name, sizeof(name), "%.3s gap (start to start)",
			 names[mode]);
		fig(name, gap[mode], h100[mode][1], "us");
		snprintf(name, sizeof(name), "%.3s idle (end to start)",
			 names[mode]);
		fig(name, idle[mode], h100[mode][2], "us");
		snprintf(name, sizeof(name), "%.3s kernel", names[mode]);
		fig(name, kern[mode], h100[mode][3], "us");
	}
	fig("a/b", wall[0] / wall[1], 369.09 / 137.06, "x (shape)");
	fig("a/c", wall[0] / wall[2], 369.09 / 66.53, "x (shape)");
	fig("b/c", wall[1] / wall[2], 137.06 / 66.53, "x (shape)");
}

/* ---- 3. balance ---- */

struct balance_stats {
	double makespan, ideal, sm_util, slot_util, spread;
	uint32_t per_sm_min, per_sm_max;
	double per_sm_median, index_order;
};

/*
 * Over the blocks of dispatches @d0..@d1 (packet 1): makespan from the
 * first block start, the ideal (work over SMs x @resident, or the
 * longest block), SM utilisation (the union of each SM's block intervals
 * over SMs x makespan), slot utilisation and the busy-time spread, as
 * the H100 reference computes them. @work_ns is the sum of the blocks'
 * nominal lengths (their length on a full SM; the model's blocks only
 * last that long with the SM full), @longest_ns the longest; the index
 * order is over dispatch @d0: the fraction of block pairs b < b' with
 * b starting no later than b'.
 */
static struct balance_stats
balance_stats(const struct vmgpu_trace_record *rec, size_t n,
	      const struct vg_config *c, uint32_t d0, uint32_t d1,
	      uint32_t resident, double work_ns, double longest_ns)
{
	struct balance_stats st;
	uint64_t t0 = UINT64_MAX, tend = 0, *busy, *cur_s, *cur_e, *starts;
	uint32_t *per_sm;
	double sum = 0, lo = 1e300, hi = 0;
	size_t i, j, nb = 0, pairs = 0, ordered = 0;
	uint32_t s;

	busy = calloc(c->sms, sizeof(*busy));
	cur_s = calloc(c->sms, sizeof(*cur_s));
	cur_e = calloc(c->sms, sizeof(*cur_e));
	per_sm = calloc(c->sms, sizeof(*per_sm));
	starts = calloc(n, sizeof(*starts));
	if (!busy || !cur_s || !cur_e || !per_sm || !starts)
		th_die("out of memory");
	for (i = 0; i < n; i++) {
		const struct vmgpu_trace_record *t = &rec[i];

		if (t->kind != VMGPU_TRACE_BLOCK || t->dispatch < d0 ||
		    t->dispatch > d1)
			continue;
		t0 = t->start_ns < t0 ? t->start_ns : t0;
		tend = t->end_ns > tend ? t->end_ns : tend;
	}
	/* Each SM's intervals merged in start order (records are by end). */
	for (s = 0; s < c->sms; s++) {
		size_t k = 0;

		for (i = 0; i < n; i++)
			if (rec[i].kind == VMGPU_TRACE_BLOCK &&
			    rec[i].sm == s && rec[i].dispatch >= d0 &&
			    rec[i].dispatch <= d1)
				starts[k++] = i;
		for (i = 1; i < k; i++)	/* insertion sort by start */
			for (j = i; j && rec[starts[j - 1]].start_ns >
					      rec[starts[j]].start_ns; j--) {
				size_t x = starts[j];

				starts[j] = starts[j - 1];
				starts[j - 1] = x;
			}
		per_sm[s] = (uint32_t)k;
		for (i = 0; i < k; i++) {
			const struct vmgpu_trace_record *t = &rec[starts[i]];

			if (!i || t->start_ns > cur_e[s]) {
				busy[s] += cur_e[s] - cur_s[s];
				cur_s[s] = t->start_ns;
				cur_e[s] = t->end_ns;
			} else if (t->end_ns > cur_e[s]) {
				cur_e[s] = t->end_ns;
			}
		}
		busy[s] += cur_e[s] - cur_s[s];
	}
	st.makespan = (tend - t0) / 1e3;
	for (s = 0; s < c->sms; s++) {
		sum += busy[s];
		lo = busy[s] < lo ? busy[s] : lo;
		hi = busy[s] > hi ? busy[s] : hi;
	}
	st.sm_util = 100.0 * sum / (c->sms * (tend - t0));
	st.spread = 100.0 * (hi - lo) / (tend - t0);
	st.ideal = work_ns / ((double)c->sms * resident);
	st.ideal = (st.ideal > longest_ns ? st.ideal : longest_ns) / 1e3;
	st.slot_util = 100.0 * work_ns / ((double)c->sms * resident *
					  (tend - t0));
	qsort(per_sm, c->sms, sizeof(*per_sm), cmp_u32);
	st.per_sm_min = per_sm[0];
	st.per_sm_max = per_sm[c->sms - 1];
	st.per_sm_median = c->sms % 2 ? per_sm[c->sms / 2] :
		(per_sm[c->sms / 2 - 1] + per_sm[c->sms / 2]) / 2.0;
	/* index order over dispatch d0: pairs b < b' with start <= start' */
	for (i = 0; i < n; i++)
		if (rec[i].kind == VMGPU_TRACE_BLOCK && rec[i].dispatch == d0)
			starts[rec[i].block] = rec[i].start_ns, nb++;
	for (i = 0; i < nb; i++)
		for (j = i + 1; j < nb; j++, pairs++)
			ordered += starts[i] <= starts[j];
	st.index_order = pairs ? (double)ordered / pairs : 1;
	free(busy);
	free(cur_s);
	free(cur_e);
	free(per_sm);
	free(starts);
	return st;
}

static void balance_print(const struct balance_stats *st, const double h[8])
{
	fig("makespan", st->makespan, h[0], "us");
	fig("ideal", st->ideal, h[1], "us");
	fig("makespan / ideal", st->makespan / st->ideal, h[0] / h[1],
	    "x (shape)");
	fig("sm_util", st->sm_util, h[2], "%");
	fig("slot_util", st->slot_util, h[3], "%");
	fig("busy spread, % of makespan", st->spread, h[4], "%");
	fig("blocks per SM min", st->per_sm_min, h[5], "");
	fig("blocks per SM median", st->per_sm_median, h[6], "");
	fig("blocks per SM max", st->per_sm_max, h[7], "");
}

static void balance(const struct vg_config *c)
{
	/* H100: makespan, ideal, sm_util, slot_util, spread, per SM */
	static const double h1[8] = { 60.38, 35.07, 66.8, 45.3, 50.1, 8, 10, 14 };
	static const double h2[8] = { 52.74, 35.07, 85.5, 57.6, 28.3, 28, 32, 40 };
	static const double h3[7] = { 23.84, 3.95, 0, 0, 0, 0, 0 };
	const struct vmgpu_trace_record *rec;
	struct balance_stats st;
	struct rig r;
	uint64_t k, k2, per_class[7] = { 0 }, sms_class[7] = { 0 };
	uint64_t *a_work, *b_count;
	double work, a_first, b_first;
	uint32_t base, nb, s, i;
	size_t n;

	printf("\n== balance (1): 10x SMs blocks x 256 threads, block b lasts 5 us x (1 + b %% 7)\n");
	rig_init(&r, c, 256ull << 20);
	k = th_kernel(r.th, &r.as, SPIN_BY_BLOCK("7"));
	/* 8 blocks of 256 threads fill an SM, on both */
	base = spin_iters(c, 5000, 256, 8);
	nb = 10 * c->sms;
	add_spin(&r, k, nb, 256, base, 4);
	submit(&r);
	rec = run(&r, &n);
	for (work = 0, i = 0; i < nb; i++)
		work += 5000.0 * (1 + i % 7);
	st = balance_stats(rec, n, c, 0, 0, 8, work, 35000);
	fig_head();
	balance_print(&st, h1);
	fig("index order (pairs started in order)", st.index_order, 0.8242,
	    "");
	rig_free(&r);

	printf("\n== balance (2): A 12x SMs x 128 threads, 5 us x (1 + b %% 7), then B 20x SMs, 2.5 us x (1 + b %% 7)\n");
	rig_init(&r, c, 256ull << 20);
	k = th_kernel(r.th, &r.as, SPIN_BY_BLOCK("7"));
	add_spin(&r, k, 12 * c->sms, 128, spin_iters(c, 5000, 128, 16), 4);
	add_spin(&r, k, 20 * c->sms, 128, spin_iters(c, 2500, 128, 16), 4);
	submit(&r);
	rec = run(&r, &n);
	for (work = 0, i = 0; i < 12 * c->sms; i++)
		work += 5000.0 * (1 + i % 7);
	for (i = 0; i < 20 * c->sms; i++)
		work += 2500.0 * (1 + i % 7);
	st = balance_stats(rec, n, c, 0, 1, 16, work, 35000);
	fig_head();
	balance_print(&st, h2);
	a_first = block_span(rec, n, 1, 0).first_start;
	b_first = block_span(rec, n, 1, 1).first_start;
	fig("B's first block after A's", (b_first - a_first) / 1e3, 4.22,
	    "us");
	/* B blocks on the quarter of SMs with the least and most A work */
	a_work = calloc(c->sms, sizeof(*a_work));
	b_count = calloc(c->sms, sizeof(*b_count));
	if (!a_work || !b_count)
		th_die("out of memory");
	for (i = 0; i < n; i++) {
		if (rec[i].kind != VMGPU_TRACE_BLOCK)
			continue;
		if (rec[i].dispatch == 0)
			a_work[rec[i].sm] += 1 + rec[i].block % 7;
		else
			b_count[rec[i].sm]++;
	}
	{
		uint64_t order[VMGPU_MAX_SMS], x;
		uint32_t q = c->sms / 4 ? c->sms / 4 : 1, j;
		double least = 0, most = 0;

		for (s = 0; s < c->sms; s++)	/* SMs by A work, ascending */
			order[s] = a_work[s] << 8 | s;
		for (s = 1; s < c->sms; s++)
			for (j = s; j && order[j - 1] > order[j]; j--) {
				x = order[j];
				order[j] = order[j - 1];
				order[j - 1] = x;
			}
		for (s = 0; s < q; s++) {
			least += b_count[order[s] & 0xff];
			most += b_count[order[c->sms - 1 - s] & 0xff];
		}
		fig("B per SM, quarter with least A work", least / q, 22.36,
		    "");
		fig("B per SM, quarter with most A work", most / q, 17.88, "");
	}
	free(a_work);
	free(b_count);
	rig_free(&r);

	printf("\n== balance (3): A fills every slot (8 x 256 threads per SM), SM s's blocks last 5 us x (1 + s %% 7);\n"
	       "   B: 4x SMs blocks x 256 threads of 2 us. B blocks per SM by class s %% 7\n");
	rig_init(&r, c, 256ull << 20);
	k = th_kernel(r.th, &r.as, SPIN_BY_SM("7"));
	k2 = th_kernel(r.th, &r.as, SPIN_BY_BLOCK("1"));
	add_spin(&r, k, 8 * c->sms, 256, spin_iters(c, 5000, 256, 8), 4);
	add_spin(&r, k2, 4 * c->sms, 256, spin_iters(c, 2000, 256, 8), 4);
	submit(&r);
	rec = run(&r, &n);
	for (i = 0; i < n; i++)
		if (rec[i].kind == VMGPU_TRACE_BLOCK && rec[i].dispatch == 1)
			per_class[rec[i].sm % 7]++;
	for (s = 0; s < c->sms; s++)
		sms_class[s % 7]++;
	fig_head();
	for (i = 0; i < 7; i++) {
		char name[64];

		snprintf(name, sizeof(name),
			 "class %u (room at %u us): B blocks per SM", i,
			 5 * (i + 1));
		fig(name, sms_class[i] ? (double)per_class[i] / sms_class[i] :
					 0, h3[i], "");
	}
	rig_free(&r);
}

/* ---- 4. child ---- */

#define CHILDREN 32

static const char child_src[] = TK_ATOM_ADD_SRC;
/* Thread t launches the child whose TMD is at args+0 (4 blocks); the
 * host's way: no launch, the same length. */
static const char parent_src[] = TK_LAUNCH_PARENT_SRC;
static const char parent_host_src[] = TK_LAUNCH_PARENT_HOST_SRC;

struct child_result {
	double mean, first, makespan;
};

static struct child_result child_run(const struct vg_config *c, bool device)
{
	const uint32_t one[3] = { 1, 1, 1 }, warp[3] = { CHILDREN, 1, 1 };
	const uint32_t four[3] = { 4, 1, 1 };
	const struct vmgpu_trace_record *rec;
	struct child_result res;
	struct vmgpu_tmd t;
	uint64_t child, counter, child_args, tmd, parent_end = 0;
	uint64_t first = UINT64_MAX, last = 0, start[CHILDREN], sum = 0;
	uint64_t child_seq = device ? 1 : 2;
	struct rig r;
	size_t n, i;
	uint32_t base = device ? 1 : 0;
	int ch;

	rig_init(&r, c, 64ull << 20);
	child = th_kernel(r.th, &r.as, child_src);
	counter = th_as_alloc(r.th, &r.as, 4, LOCAL);
	child_args = th_upload(r.th, &r.as, &counter, 8);
	memset(&t, 0, sizeof(t));
	t.code_va = child;
	t.args_va = child_args;
	t.args_bytes = 8;
	for (i = 0; i < 3; i++)
		t.grid[i] = t.block[i] = t.grid_total[i] = 1;
	t.block[0] = 32;
	tmd = th_upload(r.th, &r.as, &t, sizeof(t));
	th_cb_dispatch(r.cb, th_kernel(r.th, &r.as,
				       device ? parent_src : parent_host_src),
		       th_upload(r.th, &r.as, &tmd, 8), 8, one, warp, 0, 0);
	submit(&r);
	rec = run(&r, &n);
	if (!device) {
		/* The interrupt is in: the host submits the children. */
		for (ch = 0; ch < CHILDREN; ch++)
			th_cb_dispatch(r.cb, child, child_args, 8, four, warp,
				       0, 0);
		submit(&r);
		rec = run(&r, &n);
	}
	if (*(uint32_t *)th_va(r.th, &r.as, counter) != CHILDREN * 4 * 32) {
		fprintf(stderr, "fidelity bench: child blocks missing\n");
		exit(1);
	}
	for (ch = 0; ch < CHILDREN; ch++)
		start[ch] = UINT64_MAX;
	for (i = 0; i < n; i++) {
		const struct vmgpu_trace_record *x = &rec[i];

		if (x->kind != VMGPU_TRACE_BLOCK)
			continue;
		first = x->start_ns < first ? x->start_ns : first;
		last = x->end_ns > last ? x->end_ns : last;
		if (x->seqno == 1 && x->dispatch == 0)
			parent_end = x->end_ns;
		else if (x->seqno == child_seq &&
			 x->dispatch - base < CHILDREN &&
			 x->start_ns < start[x->dispatch - base])
			start[x->dispatch - base] = x->start_ns;
	}
	res.first = 1e300;
	for (ch = 0; ch < CHILDREN; ch++) {
		if (start[ch] == UINT64_MAX)
			th_die("a child did not run");
		sum += start[ch] - parent_end;
		if ((start[ch] - parent_end) / 1e3 < res.first)
			res.first = (start[ch] - parent_end) / 1e3;
	}
	res.mean = sum / (CHILDREN * 1e3);
	res.makespan = (last - first) / 1e3;
	rig_free(&r);
	return res;
}

static void child(const struct vg_config *c)
{
	struct child_result d = child_run(c, true), h = child_run(c, false);

	printf("\n== child: a parent of 1 block x 32 threads, each starting a child of 4 blocks x 32 threads\n");
	printf("   (us from the parent block's end to each child's first block; H100 device-side:\n"
	       "   cudaStreamFireAndForget; its host round trip holds the host's synchronize and launches)\n");
	fig_head();
	fig("device-side: mean after parent end", d.mean, 2.02, "us");
	fig("device-side: first child", d.first, -1.86, "us");
	fig("device-side: makespan", d.makespan, 19.87, "us");
	fig("host round trip: mean after parent end", h.mean, 82.36, "us");
	fig("host round trip: first child", h.first, 10.14, "us");
	fig("host round trip: makespan", h.makespan, 149.95, "us");
	fig("host / device, mean after parent end", h.mean / d.mean,
	    82.36 / 2.02, "x (shape)");
	fig("host / device, makespan", h.makespan / d.makespan,
	    149.95 / 19.87, "x (shape)");
}

/* ---- 5. kernels ---- */

static uint32_t rng_state = 1;

static uint32_t rng(void)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return rng_state >> 8;
}

/* One dispatch of built-in @name; its span (first start to last end). */
static double kernel_us(const char *name, const void *args,
			uint32_t args_bytes, const uint32_t grid[3],
			const uint32_t block[3], struct rig *r)
{
	const struct vmgpu_trace_record *rec;
	struct span s;
	size_t n;

	th_cb_dispatch(r->cb, th_builtin(r->th, &r->as, name),
		       th_upload(r->th, &r->as, args, args_bytes), args_bytes,
		       grid, block, 0, 0);
	submit(r);
	rec = run(r, &n);
	s = block_span(rec, n, r->seqno, 0);
	return (s.last_end - s.first_start) / 1e3;
}

static uint64_t fill_random(struct rig *r, uint64_t bytes, bool floats)
{
	uint64_t va = th_as_alloc(r->th, &r->as, bytes, LOCAL);
	uint8_t *p = th_va(r->th, &r->as, va);
	uint64_t i;

	for (i = 0; i < bytes; i += 4) {
		uint32_t v = rng();

		if (floats) {
			float f = (float)(v % 65536) / 4096.0f - 8.0f;

			memcpy(p + i, &f, 4);
		} else {
			memcpy(p + i, &v, 4);
		}
	}
	return va;
}

static void kernels(const struct vg_config *c)
{
	static const char *const names[5] = { "saxpy 4M", "blur3x3 2048x2048",
					      "reduce_sum 4M (block sums)",
					      "histogram 4M (global atomics)",
					      "matmul_tiled 256^3" };
	static const char *const short_names[5] = { "saxpy", "blur3x3",
						    "reduce_sum", "histogram",
						    "matmul_tiled" };
	static const double h100[5] = { 13.57, 19.74, 20.14, 521.71, 9.79 };
	uint8_t args[40];
	double us[5], big;
	struct rig r;
	unsigned int i;

	printf("\n== kernels: the five reference kernels at the interp benchmark's sizes (dispatch span)\n");
	rig_init(&r, c, 768ull << 20);
	{
		const uint32_t n = 4u << 20;
		const uint32_t grid[3] = { n / 256, 1, 1 }, block[3] = { 256, 1, 1 };
		uint64_t x = fill_random(&r, n * 4ull, true);
		uint64_t y = fill_random(&r, n * 4ull, true);
		const float *xp = th_va(r.th, &r.as, x);
		float *yp = th_va(r.th, &r.as, y), *y0 = malloc(n * 4ull);
		float a = 1.25f;

		if (!y0)
			th_die("out of memory");
		memcpy(y0, yp, n * 4ull);
		memcpy(args, &n, 4);
		memcpy(args + 4, &a, 4);
		memcpy(args + 8, &x, 8);
		memcpy(args + 16, &y, 8);
		us[0] = kernel_us("saxpy", args, 24, grid, block, &r);
		for (i = 0; i < n; i++)
			if (yp[i] != fmaf(a, xp[i], y0[i]))
				th_die("saxpy: a wrong result");
		free(y0);
	}
	{
		const uint32_t w = 2048, h = 2048;
		const uint32_t grid[3] = { w / 32, h / 8, 1 }, block[3] = { 32, 8, 1 };
		uint64_t in = fill_random(&r, w * h * 4ull, true);
		uint64_t out = th_as_alloc(r.th, &r.as, w * h * 4ull, LOCAL);

		memcpy(args, &w, 4);
		memcpy(args + 4, &h, 4);
		memcpy(args + 8, &in, 8);
		memcpy(args + 16, &out, 8);
		us[1] = kernel_us("blur3x3", args, 24, grid, block, &r);
	}
	{
		const uint32_t n = 4u << 20;
		const uint32_t grid[3] = { n / 256, 1, 1 }, block[3] = { 256, 1, 1 };
		uint64_t in = fill_random(&r, n * 4ull, true);
		uint64_t out = th_as_alloc(r.th, &r.as, n / 256 * 4, LOCAL);

		memset(args, 0, sizeof(args));
		memcpy(args, &n, 4);
		memcpy(args + 8, &in, 8);
		memcpy(args + 16, &out, 8);
		us[2] = kernel_us("reduce_sum", args, 24, grid, block, &r);
	}
	{
		const uint32_t n = 4u << 20;
		const uint32_t grid[3] = { 256, 1, 1 }, block[3] = { 256, 1, 1 };
		uint64_t data = fill_random(&r, n, false);
		uint64_t bins = th_as_alloc(r.th, &r.as, 1024, LOCAL);

		memset(args, 0, sizeof(args));
		memcpy(args, &n, 4);
		memcpy(args + 8, &data, 8);
		const uint8_t *dp = th_va(r.th, &r.as, data);
		const uint32_t *bp = th_va(r.th, &r.as, bins);
		uint32_t want[256] = { 0 };

		memset(th_va(r.th, &r.as, bins), 0, 1024);
		memcpy(args + 16, &bins, 8);
		us[3] = kernel_us("histogram", args, 24, grid, block, &r);
		for (i = 0; i < n; i++)
			want[dp[i]]++;
		if (memcmp(want, bp, sizeof(want)))
			th_die("histogram: wrong bins");
	}
	{
		const uint32_t dim = 256;
		const uint32_t grid[3] = { dim / 16, dim / 16, 1 };
		const uint32_t block[3] = { 16, 16, 1 };
		uint64_t a = fill_random(&r, dim * dim * 4, true);
		uint64_t b = fill_random(&r, dim * dim * 4, true);
		uint64_t cc = th_as_alloc(r.th, &r.as, dim * dim * 4, LOCAL);

		memset(args, 0, sizeof(args));
		memcpy(args, &dim, 4);
		memcpy(args + 4, &dim, 4);
		memcpy(args + 8, &dim, 4);
		memcpy(args + 16, &a, 8);
		memcpy(args + 24, &b, 8);
		memcpy(args + 32, &cc, 8);
		us[4] = kernel_us("matmul_tiled", args, 40, grid, block, &r);
	}
	/* past the H100's 50 MB L2: its memory's sustained bandwidth */
	{
		const uint32_t n = 16u << 20;
		const uint32_t grid[3] = { n / 256, 1, 1 }, block[3] = { 256, 1, 1 };
		uint64_t x = fill_random(&r, n * 4ull, true);
		uint64_t y = fill_random(&r, n * 4ull, true);
		float a = 1.25f;

		memcpy(args, &n, 4);
		memcpy(args + 4, &a, 4);
		memcpy(args + 8, &x, 8);
		memcpy(args + 16, &y, 8);
		big = kernel_us("saxpy", args, 24, grid, block, &r);
	}
	rig_free(&r);
	fig_head();
	for (i = 0; i < 5; i++)
		fig(names[i], us[i], h100[i], "us");
	fig("saxpy 16M (the dispatch experiment's)", big, 76.83, "us");
	fig("saxpy 16M: GB/s (12 B per element)", 12.0 * (16u << 20) / big / 1e3,
	    2620.3, "GB/s");
	for (i = 1; i < 5; i++) {
		char name[64];

		snprintf(name, sizeof(name), "%s / saxpy", short_names[i]);
		fig(name, us[i] / us[0], h100[i] / h100[0], "x (shape)");
	}
}

static void run_all(const char *name, const struct vg_config *c)
{
	printf("\n######## configuration %s: %u SMs at %.2f GHz, %u threads, "
	       "%u KiB shared per SM (H100: 132 SMs at 1.98 GHz, 2048, 228 KiB)\n",
	       name, c->sms, c->clock_khz / 1e6, c->sm_threads,
	       c->sm_shared_kb);
	prio(c);
	batch(c);
	balance(c);
	child(c);
	kernels(c);
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "all";
	struct vg_config c;
	char err[256];

	if (argc > 2 || (strcmp(which, "all") && strcmp(which, "default") &&
			 strcmp(which, "h100-like"))) {
		fprintf(stderr, "usage: fidelity [default|h100-like|all]\n");
		return 2;
	}
	printf("vmgpu against one NVIDIA H100 80GB HBM3 (reference figures of 2026-11-27);\n"
	       "the model in device time, ratio = vmgpu / H100; the shape rows are the ones to compare\n");
	if (strcmp(which, "h100-like")) {
		vg_config_defaults(&c);
		run_all("default", &c);
	}
	if (strcmp(which, "default")) {
		vg_config_defaults(&c);
		if (vg_config_preset(&c, "h100-like", 0, err, sizeof(err)) ||
		    vg_config_check(&c, err, sizeof(err))) {
			fprintf(stderr, "fidelity: %s\n", err);
			return 1;
		}
		run_all("preset=h100-like", &c);
	}
	return 0;
}
