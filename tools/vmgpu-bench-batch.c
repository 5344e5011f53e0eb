// SPDX-License-Identifier: MIT
/*
 * vmgpu-bench-batch: batched submission against the one-packet-per-
 * workload baseline (SPEC B, the B measurements). For N workloads in
 * {1, 2, 4, 8, 16, 33, 64} and a short and a longer kernel it runs
 *
 *   baseline  N packets, one dispatch each (one ioctl, one IRQ each)
 *   batch     one packet of N dispatches, no syncs
 *   batch+sync one packet of N dispatches, dispatch i synced on i - 1
 *
 * and prints per mode: interrupts and deferred-work runs per workload
 * (from the driver's counters), packets per workload, the submit-to-signal
 * wall latency of one frame of N workloads, workloads per second (wall)
 * over a stream of frames submitted back to back (each mode gets the same
 * pipelining), and the device-time makespan of a frame (TIMESTAMP
 * commands at its start and end). Ratios against the baseline follow
 * each N. Runs inside the VM (reads debugfs for the counters).
 *
 *   vmgpu-bench-batch [-g GPU] [-r REPEAT] [-f FRAMES] [-n N[,N...]]
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tool_common.h"
#include "vmgpu.h"
#include "vmgpu_hw.h"

static const struct tool tool = {
	.name = "vmgpu-bench-batch",
	.usage =
	"usage: vmgpu-bench-batch [-g GPU] [-r REPEAT] [-f FRAMES] [-n N[,N...]]\n"
	"Measure batched submission against one packet per workload.\n"
	"  -g GPU          the GPU to run on (default 0)\n"
	"  -r REPEAT       repetitions per point (default 30)\n"
	"  -f FRAMES       frames per throughput stream, 1..64 (default 8)\n"
	"  -n N[,N...]     workloads per frame (default 1,2,4,8,16,33,64)\n"
	"  -h, --help      this help\n"
	"  --version       the version\n",
};

/* Arguments of the built-in "fill" kernel (libshim/builtin_kernels.c). */
struct fill_args {
	uint64_t out;
	uint32_t n, mul, add, spin;
};

enum mode { BASELINE, BATCH, BATCH_SYNC, NUM_MODES };
static const char *const mode_names[NUM_MODES] = {
	"baseline", "batch", "batch+sync",
};

#define MAX_RUNS	256

struct result {
	uint64_t irqs, hw_irqs, work_runs, packets, tasks;
	double wall_s, span_ns;
	double lat[MAX_RUNS];	/* wall seconds of one frame, each run */
	double tput[MAX_RUNS];	/* wall seconds per task in a stream, each run */
	uint32_t runs;
	int errors;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of @n samples: robust against the host's hiccups. */
static double median(double *v, uint32_t n)
{
	qsort(v, n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
struct bench {
	struct vmgpu_device *dev;
	struct vmgpu_context *ctx;
	struct vmgpu_bo *kernel, *out, *ts;
	uint32_t *out_map;
	uint64_t *ts_map;
	uint32_t syncobj;
	uint32_t gpu;
	uint32_t frames;	/* frames per throughput stream */
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int die(struct vmgpu_device *dev, const char *what)
{
	char msg[256] = "";

	if (dev)
		vmgpu_error_message(dev, msg, sizeof(msg));
	fprintf(stderr, "vmgpu-bench-batch: %s: %s\n", what, msg);
	return 1;
}

static int build(struct bench *b, struct vmgpu_cmdbuf *cb, uint32_t n,
		 uint32_t spin, bool syncs)
{
	struct vmgpu_dispatch_desc d;
	uint32_t i;

	vmgpu_cmdbuf_reset(cb);
	if (vmgpu_cmdbuf_use(cb, b->out, 0) ||
	    vmgpu_cmdbuf_timestamp(cb, b->ts, 0))
		return -1;
	for (i = 0; i < n; i++) {
		struct fill_args a = {
			.out = vmgpu_bo_gpu_va(b->out) + 256 * i, .n = 64,
			.mul = 3, .add = i, .spin = spin,
		};

		if (syncs && i && vmgpu_cmdbuf_sync(cb, i, i - 1))
			return -1;
		memset(&d, 0, sizeof(d));
		d.kernel = b->kernel;
		d.args = &a;
		d.args_bytes = sizeof(a);
		d.grid[0] = 1;
		d.block[0] = 64;
		if (vmgpu_cmdbuf_dispatch(cb, &d) < 0)
			return -1;
	}
	/* The end stamp after every dispatch finished. */
	if (vmgpu_cmdbuf_barrier(cb))
		return -1;
	return vmgpu_cmdbuf_timestamp(cb, b->ts, 8);
}

static int check(struct bench *b, uint32_t n)
{
	uint32_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < 64; j++)
			if (b->out_map[64 * i + j] != 3 * j + i)
				return -1;
	return 0;
}

/* One repetition of @n workloads in mode @m, added to @r. */
static int run(struct bench *b, enum mode m, uint32_t n, uint32_t spin,
	       struct result *r)
{
	struct vmgpu_gpu_counters c0, c1;
	struct vmgpu_sync out = { .handle = b->syncobj };
	struct vmgpu_submit_info info = {
		.gpu = b->gpu, .out = &out, .out_count = 1,
		.flags = m == BASELINE ? VMGPU_SUBMIT_BASELINE : 0,
	};
	struct vmgpu_cmdbuf *cb;
	double t0, t1;
	uint32_t f;
	int ret = -1;

	if (vmgpu_cmdbuf_create(b->dev, &cb))
		return -1;
	if (build(b, cb, n, spin, m == BATCH_SYNC))
		goto out;
	memset(b->out_map, 0, 256 * n);
	if (vmgpu_gpu_counters(b->dev, b->gpu, &c0))
		goto out;
	/* Latency: one frame, submit to signal. */
	t0 = now_s();
	if (vmgpu_submit(b->ctx, cb, &info) < 0)
		goto out;
	if (vmgpu_syncobj_wait(b->dev, b->syncobj, 0, 60000000000ll))
		goto out;
	t1 = now_s();
	if (check(b, n))
		r->errors++;
	r->span_ns += (double)(b->ts_map[1] - b->ts_map[0]);
	if (r->runs < MAX_RUNS)
		r->lat[r->runs] = t1 - t0;
	/*
	 * Throughput: frames back to back, as an application streams them;
	 * packets of a context run in order, so only the last is waited for.
	 */
	t0 = now_s();
	for (f = 0; f < b->frames; f++)
		if (vmgpu_submit(b->ctx, cb, &info) < 0)
			goto out;
	if (vmgpu_syncobj_wait(b->dev, b->syncobj, 0, 60000000000ll))
		goto out;
	t1 = now_s();
	if (r->runs < MAX_RUNS)
		r->tput[r->runs] = (t1 - t0) / ((double)b->frames * n);
	/* The deferred work's bookkeeping follows the signal closely. */
	usleep(2000);
	if (vmgpu_gpu_counters(b->dev, b->gpu, &c1))
		goto out;
	r->irqs += c1.irqs - c0.irqs;
	r->hw_irqs += c1.hw_interrupts - c0.hw_interrupts;
	r->work_runs += c1.work_runs - c0.work_runs;
	r->packets += c1.packets - c0.packets;
	r->tasks += (uint64_t)n * (1 + b->frames);
	if (r->runs < MAX_RUNS)
		r->runs++;
	if (check(b, n))
		r->errors++;
	ret = 0;
out:
	vmgpu_cmdbuf_destroy(cb);
	return ret;
}

/* Returns workloads per second of the median stream. */
static double print_result(uint32_t n, enum mode m, struct result *r)
{
	double lat = median(r->lat, r->runs), per_task = median(r->tput, r->runs);

	printf("%4u %-10s %8.3f %8.3f %9.3f %9.3f %10.1f %10.1f %10.1f %12.2f %6d\n",
	       n, mode_names[m], (double)r->hw_irqs / r->tasks,
	       (double)r->irqs / r->tasks, (double)r->work_runs / r->tasks,
	       (double)r->packets / r->tasks, lat * 1e6, per_task * 1e6,
	       1 / per_task, r->span_ns / r->runs / 1000.0, r->errors);
	return 1 / per_task;
}

int main(int argc, char **argv)
{
	static const uint32_t all_n[] = { 1, 2, 4, 8, 16, 33, 64 };
	static const struct { const char *name; uint32_t spin; } kernels[] = {
		{ "short", 0 }, { "long", 2000 },
	};
	uint32_t ns[16], nn = 0, repeat = 30, i, k;
	struct bench b;
	char err[256];
	size_t bytes;
	static const struct option lo[] = { TOOL_COMMON_OPTIONS };
	void *image, *map;
	int opt;

	memset(&b, 0, sizeof(b));
	b.frames = 8;
	while ((opt = getopt_long(argc, argv, "g:r:f:n:h", lo, NULL)) != -1) {
		switch (opt) {
		case 'g':
			b.gpu = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			repeat = strtoul(optarg, NULL, 0);
			break;
		case 'f':
			b.frames = strtoul(optarg, NULL, 0);
			break;
		case 'n': {
			char *s = optarg, *e;

			while (*s && nn < 16) {
				ns[nn++] = strtoul(s, &e, 0);
				s = *e ? e + 1 : e;
			}
			break;
		}
		default:
			tool_common_option(&tool, opt);
		}
	}
	if (optind < argc)
		tool_usage_error(&tool, "unexpected operand %s", argv[optind]);
	if (!nn)
		for (nn = 0; nn < sizeof(all_n) / sizeof(all_n[0]); nn++)
			ns[nn] = all_n[nn];
	if (!repeat)
		repeat = 1;
	if (!b.frames || b.frames > 64)
		b.frames = 8;
	if (repeat > MAX_RUNS)
		repeat = MAX_RUNS;

	if (vmgpu_device_open(0, &b.dev, err, sizeof(err))) {
		fprintf(stderr, "vmgpu-bench-batch: %s\n", err);
		return 1;
	}
	if (vmgpu_context_create(b.dev, VMGPU_PRIORITY_NORMAL, &b.ctx) ||
	    vmgpu_syncobj_create(b.dev, &b.syncobj))
		return die(b.dev, "setup");
	if (vmgpu_asm_assemble(vmgpu_builtin_kernel_source("fill"), &image, &bytes, err, sizeof(err))) {
		fprintf(stderr, "vmgpu-bench-batch: assemble: %s\n", err);
		return 1;
	}
	if (vmgpu_kernel_create(b.dev, image, bytes, &b.kernel))
		return die(b.dev, "kernel");
	free(image);
	if (vmgpu_bo_create(b.dev, 256 * 64, 0, VMGPU_PLACEMENT_GPU(b.gpu),
			    &b.out) || vmgpu_bo_map(b.out, &map))
		return die(b.dev, "output buffer");
	b.out_map = map;
	if (vmgpu_bo_create(b.dev, 4096, 0, VMGPU_PLACEMENT_SYSTEM, &b.ts) ||
	    vmgpu_bo_map(b.ts, &map))
		return die(b.dev, "timestamp buffer");
	b.ts_map = map;

	printf("# vmgpu-bench-batch: GPU %u, %u repetitions per point (modes interleaved), %u frames per stream\n",
	       b.gpu, repeat, b.frames);
	printf("# hwirq/t: completion interrupts the device raised per workload\n");
	printf("# irq/t, work/t: hard IRQ handler and deferred-work runs per workload\n");
	printf("# pkts/t: packets per workload\n");
	printf("# lat_us: one frame of N workloads, submit -> fence signal (wall, median run)\n");
	printf("# us/task, tasks/s: frames of N workloads submitted back to back (wall, median run)\n");
	printf("# makespan_us: one frame in device time, first dispatch to end of the last\n");
	for (k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
		printf("\nkernel=%s (spin %u per thread)\n", kernels[k].name,
		       kernels[k].spin);
		printf("%4s %-10s %8s %8s %9s %9s %10s %10s %10s %12s %6s\n",
		       "N", "mode", "hwirq/t", "irq/t", "work/t", "pkts/t",
		       "lat_us", "us/task", "tasks/s", "makespan_us", "errors");
		for (i = 0; i < nn; i++) {
			struct result r[NUM_MODES];
			double tps[NUM_MODES];
			uint32_t rep = kernels[k].spin ?
				       (repeat + 3) / 4 : repeat, j;
			int m;

			memset(r, 0, sizeof(r));
			/* Warm up (pools, caches), then interleave the modes. */
			for (m = 0; m < NUM_MODES; m++) {
				struct result warm;

				memset(&warm, 0, sizeof(warm));
				if (run(&b, m, ns[i], kernels[k].spin, &warm))
					return die(b.dev, mode_names[m]);
			}
			for (j = 0; j < rep; j++)
				for (m = 0; m < NUM_MODES; m++)
					if (run(&b, m, ns[i], kernels[k].spin,
						&r[m]))
						return die(b.dev,
							   mode_names[m]);
			for (m = 0; m < NUM_MODES; m++)
				tps[m] = print_result(ns[i], m, &r[m]);
			printf("%4u %-10s tasks/s batch/baseline %.2fx, batch+sync/baseline %.2fx; device irq/task %.3f vs %.3f; makespan batch/baseline %.2f\n",
			       ns[i], "ratio", tps[BATCH] / tps[BASELINE],
			       tps[BATCH_SYNC] / tps[BASELINE],
			       (double)r[BATCH].hw_irqs / r[BATCH].tasks,
			       (double)r[BASELINE].hw_irqs / r[BASELINE].tasks,
			       r[BASELINE].span_ns > 0 ?
			       r[BATCH].span_ns / r[BASELINE].span_ns : 0.0);
		}
	}
	vmgpu_bo_destroy(b.ts);
	vmgpu_bo_destroy(b.out);
	vmgpu_bo_destroy(b.kernel);
	vmgpu_syncobj_destroy(b.dev, b.syncobj);
	vmgpu_context_destroy(b.ctx);
	vmgpu_device_close(b.dev);
	return 0;
}
