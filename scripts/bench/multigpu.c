// SPDX-License-Identifier: GPL-2.0-only
/*
 * Multi-GPU chains (SPEC R), in device time on the host's device model:
 * a chain of 5-point stencils split by the library's planner
 * (libshim/split/plan.c) over 1, 2 and 4 GPUs, work scaled with the
 * GPU count (4 GPUs: 4x the pixels), in each mode: (a) barrier +
 * copy-all, (b) barrier with halo copies overlapping the interior, (c)
 * per-portion and (d) per-region dependencies (movement: pull, push,
 * prefetch, direct remote read, hybrid), and dynamic allocation. For each:
 * makespan, idle time per GPU (SM time without a block, averaged over
 * the GPU's SMs), bytes over links, and the share of ideal linear scaling
 * (ideal: the 1-GPU makespan on 1x work). Variants: an imbalanced chain
 * (the top-left quarter of the image costs more), a slower link, and
 * larger regions. Every mode's result is checked against mode a's at the
 * same size (test_split checks them against the CPU).
 *
 *   build/bench/multigpu [kernels]     (3..8, default 6)
 *   build/bench/multigpu --svg DIR     the timelines of regions.rst
 *   build/bench/multigpu --wall        wall time of the 4-GPU chain, the
 *                                      GPUs' blocks on one thread against
 *                                      an executor thread per GPU
 *                                      (vg_device_executors): same results
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "testsplit.h"
#include "core/trace.h"
#include "core/trace_svg.h"
#include "vmgpu/split.h"

#define VA0  0x40000000ull
static uint32_t base = 128;	/* pixels per side of the 1-GPU image */
static const char *svg_path;	/* write this run's timeline here */
#define BLK  16



struct variant {
	const char *name;
	uint32_t extra;		/* spin in the hot quarter */
	uint32_t base;		/* spin everywhere */
	uint32_t link_mbps;
	uint32_t region_rows;	/* mode d: block rows per region, 0: default */
};

struct result {
	uint64_t makespan, idle[4], link_bytes;
	uint32_t waits, copies;
	double wall_s, cpu_s;	/* the device's run: host wall and CPU time */
	uint64_t trace_hash;	/* FNV-1a of the trace records */
};

static bool executors;		/* a thread per GPU runs its blocks */

static uint32_t kernels = 6;
static float *reference;	/* mode a's output at the current size */

/* The output, each pixel from the GPU that computed it. */
static float *gather(const struct ts_split *t, struct testhost *th,
		     struct th_as *as, uint32_t w, uint32_t h)
{
	uint32_t pw = w / t->plan.g.portions[0], ph = h / t->plan.g.portions[1];
	float *out = malloc((size_t)w * h * 4);
	uint32_t x, y;

	if (!out)
		exit(1);
	for (y = 0; y < h; y++) {
		for (x = 0; x < w; x++) {
			uint32_t gpu = split_portion_gpu(&t->plan, x / pw, y / ph);
			const float *src = th_va(th, as,
						 t->res_va[kernels][gpu]);

			out[y * w + x] = src[y * w + x];
		}
	}
	return out;
}

static void run(const struct variant *v, uint32_t gpus, uint32_t mode,
		uint32_t movement, uint32_t allocation, struct result *res)
{
	uint32_t w = gpus == 4 ? 2 * base : base, h = gpus == 1 ? base : 2 * base;
	uint64_t bytes = (uint64_t)w * h * 4, start[4], end[4];
	uint64_t shared[VMGPU_SPLIT_MAX_RESOURCES] = { 0 };
	struct ts_kernel k[VMGPU_SPLIT_MAX_KERNELS];
	const struct vmgpu_trace_record *rec;
	struct split_geom g;
	struct testhost *th;
	struct th_as as;
	struct ts_split t;
	struct vg_config c;
	static struct vg_trace_summary sum;
	uint64_t code;
	uint32_t i, gpu;
	float *out;
	size_t n;

	vg_config_defaults(&c);
	c.gpus = gpus;
	c.link_bw_mbps = v->link_mbps;
	th = ts_chain_device(&c, 96 << 20, VA0, executors, &as, &code);

	memset(&g, 0, sizeof(g));
	g.width = w;
	g.height = h;
	g.block[0] = g.block[1] = BLK;
	g.num_kernels = kernels;
	g.gpus = gpus;
	g.mode = mode;
	g.movement = movement;
	g.allocation = allocation;
	if (mode == VMGPU_SPLIT_REGION && v->region_rows) {
		g.region[0] = w / BLK / (gpus == 4 ? 2 : 1);
		g.region[1] = v->region_rows;
	}
	ts_chain_kernels(&g, k, code, v->base, v->extra);
	/*
	 * Input and output live in the GPUs' memory (a copy each), as data
	 * that stays on the device between frames: the host bus is not what
	 * is measured.
	 */
	ts_split_init(&t, th, &as, &g, k, shared);
	ts_chain_fill(&t);
	{
		struct timespec t0, t1;
		struct rusage u0, u1;

		getrusage(RUSAGE_SELF, &u0);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		res->makespan = ts_split_run(&t, start, end);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		getrusage(RUSAGE_SELF, &u1);
		res->wall_s = (double)(t1.tv_sec - t0.tv_sec) +
			      (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		res->cpu_s = (double)(u1.ru_utime.tv_sec - u0.ru_utime.tv_sec) +
			     (double)(u1.ru_utime.tv_usec - u0.ru_utime.tv_usec) / 1e6 +
			     (double)(u1.ru_stime.tv_sec - u0.ru_stime.tv_sec) +
			     (double)(u1.ru_stime.tv_usec - u0.ru_stime.tv_usec) / 1e6;
	}
	out = gather(&t, th, &as, w, h);

	/* Mode a runs first at each size: the others must match it. */
	if (mode == VMGPU_SPLIT_BARRIER) {
		free(reference);
		reference = malloc(bytes);
		if (!reference)
			exit(1);
		memcpy(reference, out, bytes);
	} else if (memcmp(reference, out, bytes)) {
		fprintf(stderr, "multigpu: mode %u on %u GPUs differs from mode a\n",
			mode, gpus);
		exit(1);
	}
	free(out);
	rec = vg_device_trace_records(th->dev, &n);
	res->trace_hash = 14695981039346656037ull;
	for (i = 0; i < n * sizeof(*rec); i++)
		res->trace_hash = (res->trace_hash ^ ((const uint8_t *)rec)[i]) *
				  1099511628211ull;
	if (svg_path) {
		FILE *f = fopen(svg_path, "w");

		if (!f || vg_trace_svg_write(rec, n, f) || fclose(f)) {
			perror(svg_path);
			exit(1);
		}
	}
	if (vg_trace_summarize(rec, n, &sum))
		exit(1);
	res->link_bytes = 0;
	res->waits = res->copies = 0;
	for (gpu = 0; gpu < gpus; gpu++) {
		uint64_t busy = sum.gpu[gpu].compute_ns;

		res->idle[gpu] = res->makespan > busy ? res->makespan - busy : 0;
		res->link_bytes += th_rd64(th, gpu,
					   VMGPU_GPU_CNT_LO(VMGPU_CNT_BYTES_LINK));
		for (i = 0; i < t.plan.nops[gpu]; i++) {
			res->waits += t.plan.ops[gpu][i].kind == SPLIT_OP_WAIT;
			res->copies += t.plan.ops[gpu][i].kind == SPLIT_OP_COPY;
		}
	}
	ts_split_free(&t);
	th_free(th);
}

#define RUN_PULL	3	/* ts_chain_runs[] of the summary line */
#define RUN_DYNAMIC	8

static void table(const struct variant *v)
{
	static const uint32_t gpus[] = { 1, 2, 4 };
	struct result r[3][TS_CHAIN_RUNS];
	uint64_t ideal = UINT64_MAX, best = UINT64_MAX;
	uint32_t gi, m, gpu, bm = RUN_PULL;

	for (gi = 0; gi < 3; gi++)
		for (m = 0; m < TS_CHAIN_RUNS; m++)
			run(v, gpus[gi], ts_chain_runs[m].mode,
			    ts_chain_runs[m].movement,
			    ts_chain_runs[m].allocation, &r[gi][m]);
	for (m = 0; m < TS_CHAIN_RUNS; m++)
		if (r[0][m].makespan < ideal)
			ideal = r[0][m].makespan;
	printf("\n== %s: %u kernels, %ux%u pixels per GPU, link %u MB/s%s; ideal %llu ns\n",
	       v->name, kernels, base, base, v->link_mbps,
	       v->region_rows ? ", regions of 4 block rows (default 2)" : "",
	       (unsigned long long)ideal);
	printf("%-22s %4s %12s %7s %10s %6s %6s  %s\n", "mode", "GPUs",
	       "makespan ns", "ideal", "link bytes", "waits", "copies",
	       "idle per GPU (ns)");
	for (gi = 0; gi < 3; gi++) {
		for (m = 0; m < TS_CHAIN_RUNS; m++) {
			const struct result *x = &r[gi][m];

			printf("%-22s %4u %12llu %6.1f%% %10llu %6u %6u ",
			       ts_chain_runs[m].name, gpus[gi],
			       (unsigned long long)x->makespan,
			       100.0 * ideal / x->makespan,
			       (unsigned long long)x->link_bytes, x->waits,
			       x->copies);
			for (gpu = 0; gpu < gpus[gi]; gpu++)
				printf(" %llu", (unsigned long long)x->idle[gpu]);
			printf("\n");
		}
	}
	for (m = RUN_PULL; m < RUN_DYNAMIC; m++) {
		if (r[2][m].makespan < best) {
			best = r[2][m].makespan;
			bm = m;
		}
	}
	printf("4 GPUs, makespan of (a) barrier+copy-all over (d) per-region:");
	for (m = RUN_PULL; m < RUN_DYNAMIC; m++)
		printf(" %.2fx (%s)%s",
		       (double)r[2][0].makespan / r[2][m].makespan,
		       ts_chain_runs[m].name + 4, m + 1 < RUN_DYNAMIC ? "," : ";");
	printf(" over dynamic: %.2fx\n",
	       (double)r[2][0].makespan / r[2][RUN_DYNAMIC].makespan);
	printf("4 GPUs, best per-region movement: %s, %.1f%% of ideal, %.2fx over (a)\n",
	       ts_chain_runs[bm].name + 4, 100.0 * ideal / best,
	       (double)r[2][0].makespan / best);
}

/*
 * The timelines of regions.rst: 4 GPUs, 3 kernels, 64 x 64 pixels per
 * GPU; barrier + copy-all, copy overlapped, per-region dependencies
 * (balanced), and barrier against dynamic allocation (imbalanced).
 */
static int pictures(const char *dir)
{
	static const struct variant bal = { "balanced", 0, 200, 300000, 0 };
	static const struct variant imb = { "imbalanced", 600, 200, 300000, 0 };
	static const struct {
		const struct variant *v;
		uint32_t mode, movement, allocation;
		const char *name;
	} pics[] = {
		{ &bal, VMGPU_SPLIT_BARRIER, 0, 0, "split-barrier.svg" },
		{ &bal, VMGPU_SPLIT_OVERLAP, 0, 0, "split-overlap.svg" },
		{ &bal, VMGPU_SPLIT_REGION, 0, 0, "split-region.svg" },
		{ &imb, VMGPU_SPLIT_BARRIER, 0, 0, "split-imbalanced-barrier.svg" },
		{ &imb, VMGPU_SPLIT_PORTION, 0, 1, "split-imbalanced-dynamic.svg" },
	};
	struct result r;
	char path[512];
	uint32_t i;

	kernels = 3;
	base = 64;
	for (i = 0; i < sizeof(pics) / sizeof(pics[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, pics[i].name);
		svg_path = path;
		if (pics[i].mode != VMGPU_SPLIT_BARRIER && !reference)
			run(pics[i].v, 4, VMGPU_SPLIT_BARRIER, 0, 0, &r);
		run(pics[i].v, 4, pics[i].mode, pics[i].movement,
		    pics[i].allocation, &r);
		printf("%s: makespan %llu ns\n", path,
		       (unsigned long long)r.makespan);
	}
	free(reference);
	return 0;
}

/*
 * Wall time of the 4-GPU compute-heavy chain (balanced, per-region pull):
 * the device's run with every GPU's blocks on the event loop's thread
 * against an executor thread per GPU, best of 3 each; the two must give
 * the same makespan, link bytes and trace records.
 */
static int wall(void)
{
	static const struct variant v = { "compute-heavy", 0, 4000, 300000, 0 };
	struct result one = { 0 }, par = { 0 }, r;
	uint32_t i, m;

	kernels = 4;
	base = 128;
	for (m = 0; m < TS_CHAIN_RUNS; m++) {
		if (m != 0 && m != RUN_PULL)
			continue;
		one.wall_s = par.wall_s = 1e30;
		for (i = 0; i < 6; i++) {
			executors = i & 1;
			run(&v, 4, ts_chain_runs[m].mode,
			    ts_chain_runs[m].movement,
			    ts_chain_runs[m].allocation, &r);
			if (i < 2 && !executors)
				one = r;
			else if (i < 2)
				par = r;
			if (r.makespan != one.makespan ||
			    r.link_bytes != one.link_bytes ||
			    r.trace_hash != one.trace_hash) {
				fprintf(stderr, "multigpu: %s differs with%s executors\n",
					ts_chain_runs[m].name, executors ? "" : "out");
				return 1;
			}
			if (executors && r.wall_s < par.wall_s) {
				par.wall_s = r.wall_s;
				par.cpu_s = r.cpu_s;
			}
			if (!executors && r.wall_s < one.wall_s) {
				one.wall_s = r.wall_s;
				one.cpu_s = r.cpu_s;
			}
		}
		printf("%-22s makespan %llu ns, link bytes %llu, trace %016llx\n"
		       "%22s one thread %.3f s (CPU %.3f s), executors %.3f s (CPU %.3f s): %.2fx the wall time\n",
		       ts_chain_runs[m].name, (unsigned long long)one.makespan,
		       (unsigned long long)one.link_bytes,
		       (unsigned long long)one.trace_hash, "", one.wall_s,
		       one.cpu_s, par.wall_s, par.cpu_s,
		       par.wall_s / one.wall_s);
	}
	free(reference);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct variant variants[] = {
		{ "balanced", 0, 200, 300000, 0 },
		{ "imbalanced (top-left quarter 4x the work)", 600, 200, 300000, 0 },
		{ "balanced, slow link", 0, 200, 16000, 0 },
		{ "balanced, larger regions", 0, 200, 300000, 4 },
		{ "light (no spin: a plain 5-point stencil)", 0, 0, 300000, 0 },
		{ "light, slow link", 0, 0, 16000, 0 },
	};
	uint32_t i;

	if (argc > 2 && !strcmp(argv[1], "--svg"))
		return pictures(argv[2]);
	if (argc > 1 && !strcmp(argv[1], "--wall"))
		return wall();
	if (argc > 1) {
		kernels = (uint32_t)strtoul(argv[1], NULL, 0);
		if (kernels < 3 || kernels > 8) {
			fprintf(stderr, "usage: %s [kernels 3..8] | --svg DIR | --wall\n",
				argv[0]);
			return 2;
		}
	}
	printf("multi-GPU stencil chains, device time (deterministic); ideal = the 1-GPU makespan on 1x work\n");
	for (i = 0; i < sizeof(variants) / sizeof(variants[0]); i++)
		table(&variants[i]);
	printf("\n(c) dynamic: the GPUs take 8x8 portions along their curves (TAKE); its resources are one buffer each, in GPU r %% n's memory\n");
	free(reference);
	return 0;
}
