// SPDX-License-Identifier: MIT
/*
 * vmgpu-demo: a 33-kernel per-frame pipeline, batched into ONE packet per
 * GPU, on every GPU of the device at once (SPEC B's target workload).
 *
 * Per GPU, on a 64 x 64 f32 image:
 *   dispatches 0..7    blur3x3, eight passes, each after the previous
 *   dispatches 8..23   saxpy on 16 slices of the blurred image, each after
 *                      dispatch 7, independent of each other
 *   dispatches 24..31  vecadd of slice pairs, each after its two saxpys
 *   dispatch 32        saxpy over all pair sums, after a barrier
 * 33 dispatches, 24 syncs, one barrier, one interrupt. Every result is
 * compared bit for bit with the same computation on the CPU. The device's
 * trace of the run is drawn as an SVG timeline (and summarised) when the
 * driver's debugfs trace is there.
 *
 *   vmgpu-demo [-b] [-o FILE.svg]
 *
 *   -b   also run the one-packet-per-kernel baseline (its timeline goes to
 *        FILE-baseline.svg)
 *   -o   where the timeline goes (default /tmp/vmgpu-demo.svg)
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../selftests/ref_kernels.h"
#include "devtrace.h"
#include "tool_common.h"
#include "core/trace.h"
#include "core/trace_svg.h"
#include "vmgpu.h"
#include "vmgpu/split.h"
#include "vmgpu_hw.h"

static const struct tool tool = {
	.name = "vmgpu-demo",
	.usage =
	"usage: vmgpu-demo [-b] [-o FILE.svg]\n"
	"Run a 33-kernel pipeline (blur3x3, saxpy, vecadd) as one packet on\n"
	"every GPU of the first vmgpu device at once, compare every result\n"
	"with the CPU's, and draw the device's trace of the run as a timeline.\n"
	"  -b              also run it as one packet per kernel (the baseline;\n"
	"                  its timeline goes to FILE-baseline.svg)\n"
	"  -o FILE.svg     where the timeline goes (default /tmp/vmgpu-demo.svg)\n"
	"  -h, --help      this help\n"
	"  --version       the version\n",
};

#define W	64
#define H	64
#define PIX	(W * H)
#define SLICES	16
#define SLICE	(PIX / SLICES)
#define PAIRS	(SLICES / 2)
#define BLURS	8

/* A run is ~350 records of 64 bytes per GPU: ample room for 8 GPUs. */
#define TIMELINE_KIB	1024

struct blur_args { uint32_t w, h; uint64_t in, out; };
struct saxpy_args { uint32_t n; float a; uint64_t x, y; };
struct vecadd_args { uint32_t n, pad; uint64_t a, b, c; };

struct gpu_run {
	uint32_t gpu;
	struct vmgpu_bo *img, *y, *c, *z, *ts;	/* img: BLURS + 1 images */
	float *imgp, *yp, *cp, *zp;
	uint64_t *tsp;
	struct vmgpu_cmdbuf *cb;
	uint32_t syncobj;
	double wall_us;
};

static struct vmgpu_bo *kernel(struct vmgpu_device *dev, const char *name)
{
	struct vmgpu_bo *bo = NULL;
	const char *src = vmgpu_builtin_kernel_source(name);
	char err[256];
	size_t bytes;
	void *image;

	if (!src || vmgpu_asm_assemble(src, &image, &bytes, err, sizeof(err))) {
		fprintf(stderr, "vmgpu-demo: kernel %s: %s\n", name,
			src ? err : "not built in");
		return NULL;
	}
	if (vmgpu_kernel_create(dev, image, bytes, &bo))
		bo = NULL;
	free(image);
	return bo;
}

static int buf(struct vmgpu_device *dev, uint32_t gpu, size_t bytes,
	       struct vmgpu_bo **bo, void **map)
{
	if (vmgpu_bo_create(dev, bytes, 0, VMGPU_PLACEMENT_GPU(gpu), bo))
		return -1;
	return vmgpu_bo_map(*bo, map);
}

static float init_pixel(uint32_t gpu, uint32_t i)
{
	return (float)((i * 7 + gpu * 13) % 101) * 0.25f;
}

static float init_y(uint32_t i)
{
	return (float)(i % 17) - 8.0f;
}

static float slice_a(uint32_t s)
{
	return 0.5f + 0.125f * (float)s;
}

/* The blur3x3 kernel's arithmetic, in its order, on a @w x @h image. */
static void cpu_blur(const float *in, float *out, int w, int h)
{
	int x, y, dx, dy;

	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			float s = 0.0f;
			bool first = true;

			for (dy = -1; dy <= 1; dy++)
				for (dx = -1; dx <= 1; dx++) {
					int yy = y + dy, xx = x + dx;
					float v;

					yy = yy < 0 ? 0 : yy >= h ? h - 1 : yy;
					xx = xx < 0 ? 0 : xx >= w ? w - 1 : xx;
					v = in[yy * w + xx];
					s = first ? v : s + v;
					first = false;
				}
			out[y * w + x] = s / 9.0f;
		}
}

static int build(struct vmgpu_device *dev, struct gpu_run *g,
		 struct vmgpu_bo *kblur, struct vmgpu_bo *ksaxpy,
		 struct vmgpu_bo *kvecadd)
{
	struct vmgpu_dispatch_desc d;
	uint64_t img = vmgpu_bo_gpu_va(g->img);
	uint64_t y = vmgpu_bo_gpu_va(g->y), c = vmgpu_bo_gpu_va(g->c);
	uint32_t i, s;

	if (vmgpu_cmdbuf_create(dev, &g->cb))
		return -1;
	vmgpu_cmdbuf_use(g->cb, g->img, 0);
	vmgpu_cmdbuf_use(g->cb, g->y, 0);
	vmgpu_cmdbuf_use(g->cb, g->c, 0);
	vmgpu_cmdbuf_use(g->cb, g->z, 0);
	vmgpu_cmdbuf_timestamp(g->cb, g->ts, 0);
	for (i = 0; i < BLURS; i++) {
		struct blur_args a = {
			.w = W, .h = H, .in = img + 4ull * PIX * i,
			.out = img + 4ull * PIX * (i + 1),
		};

		if (i)
			vmgpu_cmdbuf_sync(g->cb, i, i - 1);
		memset(&d, 0, sizeof(d));
		d.kernel = kblur;
		d.args = &a;
		d.args_bytes = sizeof(a);
		d.grid[0] = W / 16;
		d.grid[1] = H / 16;
		d.block[0] = 16;
		d.block[1] = 16;
		if (vmgpu_cmdbuf_dispatch(g->cb, &d) < 0)
			return -1;
	}
	for (s = 0; s < SLICES; s++) {
		struct saxpy_args a = {
			.n = SLICE, .a = slice_a(s),
			.x = img + 4ull * PIX * BLURS + 4ull * SLICE * s,
			.y = y + 4ull * SLICE * s,
		};

		vmgpu_cmdbuf_sync(g->cb, BLURS + s, BLURS - 1);
		memset(&d, 0, sizeof(d));
		d.kernel = ksaxpy;
		d.args = &a;
		d.args_bytes = sizeof(a);
		d.grid[0] = SLICE / 64;
		d.block[0] = 64;
		if (vmgpu_cmdbuf_dispatch(g->cb, &d) < 0)
			return -1;
	}
	for (i = 0; i < PAIRS; i++) {
		struct vecadd_args a = {
			.n = SLICE, .a = y + 4ull * SLICE * (2 * i),
			.b = y + 4ull * SLICE * (2 * i + 1),
			.c = c + 4ull * SLICE * i,
		};

		vmgpu_cmdbuf_sync(g->cb, BLURS + SLICES + i, BLURS + 2 * i);
		vmgpu_cmdbuf_sync(g->cb, BLURS + SLICES + i, BLURS + 2 * i + 1);
		memset(&d, 0, sizeof(d));
		d.kernel = kvecadd;
		d.args = &a;
		d.args_bytes = sizeof(a);
		d.grid[0] = SLICE / 64;
		d.block[0] = 64;
		if (vmgpu_cmdbuf_dispatch(g->cb, &d) < 0)
			return -1;
	}
	vmgpu_cmdbuf_barrier(g->cb);
	{
		struct saxpy_args a = {
			.n = SLICE * PAIRS, .a = 2.0f, .x = c,
			.y = vmgpu_bo_gpu_va(g->z),
		};

		memset(&d, 0, sizeof(d));
		d.kernel = ksaxpy;
		d.args = &a;
		d.args_bytes = sizeof(a);
		d.grid[0] = SLICE * PAIRS / 128;
		d.block[0] = 128;
		if (vmgpu_cmdbuf_dispatch(g->cb, &d) < 0)
			return -1;
	}
	vmgpu_cmdbuf_barrier(g->cb);
	return vmgpu_cmdbuf_timestamp(g->cb, g->ts, 8);
}

static void reset_data(struct gpu_run *g)
{
	uint32_t i;

	memset(g->imgp, 0, 4ull * PIX * (BLURS + 1));
	for (i = 0; i < PIX; i++) {
		g->imgp[i] = init_pixel(g->gpu, i);
		g->yp[i] = init_y(i);
	}
	memset(g->cp, 0, 4 * SLICE * PAIRS);
	for (i = 0; i < SLICE * PAIRS; i++)
		g->zp[i] = 1.0f;
}

/* Number of results that differ from the CPU's. */
static int verify(const struct gpu_run *g)
{
	static float img[BLURS + 1][PIX], y[PIX], c[SLICE * PAIRS];
	uint32_t i, s, bad = 0;

	for (i = 0; i < PIX; i++) {
		img[0][i] = init_pixel(g->gpu, i);
		y[i] = init_y(i);
	}
	for (i = 0; i < BLURS; i++)
		cpu_blur(img[i], img[i + 1], W, H);
	for (s = 0; s < SLICES; s++)
		for (i = 0; i < SLICE; i++)
			y[s * SLICE + i] = fmaf(slice_a(s),
						img[BLURS][s * SLICE + i],
						y[s * SLICE + i]);
	for (s = 0; s < PAIRS; s++)
		for (i = 0; i < SLICE; i++)
			c[s * SLICE + i] = y[2 * s * SLICE + i] +
					   y[(2 * s + 1) * SLICE + i];
	for (i = 0; i < PIX; i++)
		bad += memcmp(&img[BLURS][i], &g->imgp[PIX * BLURS + i], 4) != 0;
	for (i = 0; i < SLICE * PAIRS; i++) {
		float z = fmaf(2.0f, c[i], 1.0f);

		bad += memcmp(&c[i], &g->cp[i], 4) != 0;
		bad += memcmp(&z, &g->zp[i], 4) != 0;
	}
	return bad;
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int run_all(struct vmgpu_device *dev, struct vmgpu_context *ctx,
		   struct gpu_run *g, uint32_t n, uint32_t flags,
		   const char *label)
{
	struct vmgpu_gpu_counters c0[VMGPU_MAX_GPUS], c1[VMGPU_MAX_GPUS];
	uint32_t i;
	int failed = 0;
	double t0;

	for (i = 0; i < n; i++) {
		reset_data(&g[i]);
		if (vmgpu_gpu_counters(dev, i, &c0[i]))
			memset(&c0[i], 0, sizeof(c0[i]));
	}
	t0 = now_us();
	/* Every GPU's pipeline is queued before any is waited for. */
	for (i = 0; i < n; i++) {
		struct vmgpu_sync out = { .handle = g[i].syncobj };
		struct vmgpu_submit_info info = {
			.gpu = i, .flags = flags, .out = &out, .out_count = 1,
		};

		if (vmgpu_submit(ctx, g[i].cb, &info) < 0)
			return -1;
	}
	for (i = 0; i < n; i++) {
		if (vmgpu_syncobj_wait(dev, g[i].syncobj, 0, 60000000000ll))
			return -1;
		g[i].wall_us = now_us() - t0;
	}
	usleep(5000);
	printf("\n%s\n", label);
	printf("%4s %10s %8s %11s %10s %10s %13s %8s\n", "gpu", "dispatches",
	       "packets", "interrupts", "work runs", "wall_us", "device_us",
	       "result");
	for (i = 0; i < n; i++) {
		int bad = verify(&g[i]);

		if (vmgpu_gpu_counters(dev, i, &c1[i]))
			memset(&c1[i], 0, sizeof(c1[i]));
		printf("%4u %10llu %8llu %11llu %10llu %10.0f %13.2f %8s\n", i,
		       (unsigned long long)(c1[i].dispatches - c0[i].dispatches),
		       (unsigned long long)(c1[i].packets - c0[i].packets),
		       (unsigned long long)(c1[i].hw_interrupts -
					    c0[i].hw_interrupts),
		       (unsigned long long)(c1[i].work_runs - c0[i].work_runs),
		       g[i].wall_us, (g[i].tsp[1] - g[i].tsp[0]) / 1000.0,
		       bad ? "WRONG" : "ok");
		if (bad) {
			printf("     %d values differ from the CPU reference\n",
			       bad);
			failed = 1;
		}
	}
	return failed;
}

/* Record the device's trace from now on; false if there is none. */
static bool timeline_start(void)
{
	int ret = devtrace_enable(TIMELINE_KIB);

	if (ret)
		printf("vmgpu-demo: no device trace in debugfs (%s), no timeline\n",
		       strerror(-ret));
	return !ret;
}

/* FILE.svg (or FILE) -> FILE@suffix. */
static void svg_variant(const char *svg, const char *suffix, char *buf,
			size_t len)
{
	size_t n = strlen(svg);

	snprintf(buf, len, "%.*s%s",
		 n > 4 && !strcmp(svg + n - 4, ".svg") ? (int)n - 4 : (int)n,
		 svg, suffix);
}

/* The same records as Chrome/Perfetto JSON beside the SVG: FILE.json. */
static void json_write(const char *svg, const struct vmgpu_trace_record *recs,
		       size_t n)
{
	char json[400];
	FILE *f;
	int ret;

	svg_variant(svg, ".json", json, sizeof(json));
	f = fopen(json, "w");
	if (!f) {
		printf("vmgpu-demo: %s: %s\n", json, strerror(errno));
		return;
	}
	ret = vg_trace_json_write(recs, n, f);
	if (fclose(f) || ret)
		printf("vmgpu-demo: writing %s failed\n", json);
	else
		printf("vmgpu-demo: its trace for Perfetto: %s\n", json);
}

/*
 * Stop recording, draw the run's records at @svg and summarise them (into
 * @sum too, if not NULL; it stays zeroed without a trace).
 */
static void timeline_write(const char *svg, struct vg_trace_summary *sum)
{
	struct vmgpu_trace_record *recs = NULL;
	unsigned int dropped = 0;
	char path[400];
	size_t bytes, n = 0;
	void *buf = NULL;
	FILE *f;
	long size;
	int ret;

	ret = devtrace_enable(0);
	if (!ret)
		ret = devtrace_path("trace", path, sizeof(path));
	if (ret) {
		printf("vmgpu-demo: device trace: %s\n", strerror(-ret));
		return;
	}
	f = fopen(path, "rb");
	if (f) {
		buf = devtrace_slurp(f, &bytes);
		fclose(f);
	}
	if (buf)
		recs = vg_trace_records_from_buffer(buf, bytes, &n);
	free(buf);
	f = recs ? fopen(svg, "w") : NULL;
	if (!f) {
		printf("vmgpu-demo: no timeline: %s: %s\n", recs ? svg : path,
		       strerror(errno));
		free(recs);
		return;
	}
	ret = vg_trace_svg_write(recs, n, f);
	size = ftell(f);
	if (fclose(f) || ret || size < 0) {
		printf("vmgpu-demo: writing the timeline %s failed\n", svg);
		free(recs);
		return;
	}
	printf("vmgpu-demo: timeline of this run: %s (%ld bytes, %zu trace records)\n",
	       svg, size, n);
	json_write(svg, recs, n);
	if (!devtrace_dropped(&dropped) && dropped)
		printf("vmgpu-demo: %u trace records did not fit in %u KiB: the timeline is cut short\n",
		       dropped, TIMELINE_KIB);
	vg_trace_summary_write(recs, n, stdout);
	if (sum && vg_trace_summarize(recs, n, sum))
		memset(sum, 0, sizeof(*sum));
	free(recs);
}

/* ------------------------------------------------------------------ */
/* Multi-GPU: an image pipeline split over every GPU (SPEC R)           */
/* ------------------------------------------------------------------ */

#define MW	256
#define MH	256
#define STAGES	5	/* stencil5 passes in the pipeline */
#define WORK	200	/* iterations each pixel spins in each pass */

struct stencil5_args {
	uint32_t w, h;
	uint64_t in, out;
	uint32_t extra, hot_w, hot_h, work;
};

struct mgpu_result {
	struct vmgpu_split_stats st;
	struct vg_trace_summary trace;	/* zeroed without a device trace */
	uint64_t link_bytes;
};

static uint64_t counter(struct vmgpu_device *dev, uint32_t gpu,
			const char *name)
{
	uint64_t v = 0;

	vmgpu_gpu_counter(dev, gpu, name, &v);	/* 0 without debugfs */
	return v;
}

/*
 * One run of the pipeline in @mode: device-time statistics, the trace's
 * summary, bytes over links; the output checked against @ref.
 */
static int mgpu_run(struct vmgpu_device *dev, struct vmgpu_context *ctx,
		    struct vmgpu_split_desc *d, uint32_t mode,
		    uint32_t movement, const float *ref, const float *out,
		    const char *svg, struct mgpu_result *r)
{
	uint64_t link0 = 0, link1 = 0;
	struct vmgpu_split *s;
	bool tracing;
	uint32_t g;
	int ret;

	d->mode = mode;
	d->movement = movement;
	ret = vmgpu_split_create(dev, d, &s);
	if (ret)
		return ret;
	for (g = 0; g < d->gpus; g++)
		link0 += counter(dev, g, "hw_bytes_link");
	memset(&r->trace, 0, sizeof(r->trace));
	tracing = timeline_start();
	ret = vmgpu_split_run(s, ctx, 60ll * 1000000000, &r->st);
	if (tracing)
		timeline_write(svg, &r->trace);
	for (g = 0; g < d->gpus; g++)
		link1 += counter(dev, g, "hw_bytes_link");
	r->link_bytes = link1 - link0;
	vmgpu_split_destroy(s);
	if (!ret && memcmp(ref, out, sizeof(float) * MW * MH))
		ret = -EIO;
	return ret;
}

static void mgpu_print(const char *name, const struct mgpu_result *r,
		       uint32_t gpus)
{
	uint32_t g;

	printf("  %-34s makespan %8.1f us, over links %7llu bytes, idle per GPU (us, no block running):",
	       name, r->st.makespan_ns / 1000.0,
	       (unsigned long long)r->link_bytes);
	for (g = 0; g < gpus; g++) {
		uint64_t busy = r->trace.gpu[g].compute_ns;

		if (!r->trace.records)
			printf(" ?");	/* no device trace: no block spans */
		else
			printf(" %.1f", busy < r->st.makespan_ns ?
			       (r->st.makespan_ns - busy) / 1000.0 : 0.0);
	}
	printf("\n");
}

/* The runs of the pipeline: the barrier first (the speed-ups' base). */
static const struct {
	const char *name, *svg;
	uint32_t mode, movement;
} mgpu_runs[] = {
	{ "(a) barrier + copy-all", "barrier", VMGPU_SPLIT_BARRIER,
	  VMGPU_MOVE_PULL },
	{ "(d) per-region, halo copies", "region", VMGPU_SPLIT_REGION,
	  VMGPU_MOVE_PULL },
	{ "(d) per-region, hybrid movement", "hybrid", VMGPU_SPLIT_REGION,
	  VMGPU_MOVE_HYBRID },
};
#define MGPU_RUNS (sizeof(mgpu_runs) / sizeof(mgpu_runs[0]))

/*
 * The pipeline, STAGES 5-point stencils of a MW x MH image in system
 * memory, each pixel doing WORK iterations of work, on every GPU (2 x 2
 * portions on four): barrier + copy-all against per-region dependencies,
 * with halo copies (pull) and with hybrid movement (remote reads until
 * the copy engine's replicas land; row bands). Timelines go to
 * @svg_base-barrier.svg, -region.svg and -hybrid.svg.
 */
static int multigpu_part(struct vmgpu_device *dev, struct vmgpu_context *ctx,
			 uint32_t gpus, const char *svg_base)
{
	static float ref[MW * MH], tmp[MW * MH];
	struct vmgpu_bo *in = NULL, *out = NULL, *kst;
	struct stencil5_args args = { MW, MH, 0, 0, 0, 0, 0, WORK };
	struct mgpu_result res[MGPU_RUNS];
	struct vmgpu_split_desc d;
	char svg[320];
	float *pin, *pout;
	uint32_t i, k;
	int ret = -ENOMEM;

	kst = kernel(dev, "stencil5");
	if (!kst)
		return -EINVAL;
	if (vmgpu_bo_create(dev, 4 * MW * MH, 0, VMGPU_PLACEMENT_SYSTEM, &in) ||
	    vmgpu_bo_map(in, (void **)&pin) ||
	    vmgpu_bo_create(dev, 4 * MW * MH, 0, VMGPU_PLACEMENT_SYSTEM, &out) ||
	    vmgpu_bo_map(out, (void **)&pout))
		goto out;
	for (i = 0; i < MW * MH; i++)
		pin[i] = init_pixel(0, i);
	memcpy(tmp, pin, sizeof(tmp));
	for (k = 0; k < STAGES; k++) {
		ref_stencil5(tmp, ref, MW, MH);
		memcpy(tmp, ref, sizeof(tmp));
	}
	memset(&d, 0, sizeof(d));
	d.width = MW;
	d.height = MH;
	d.block[0] = d.block[1] = 16;
	d.num_kernels = STAGES;
	d.num_resources = STAGES + 1;
	d.resources[0] = in;
	d.resources[STAGES] = out;
	for (k = 0; k < STAGES; k++) {
		struct vmgpu_split_kernel *sk = &d.kernels[k];

		sk->kernel = kst;
		sk->args = &args;
		sk->args_bytes = sizeof(args);
		sk->num_reads = 1;
		sk->reads[0].resource = k;
		sk->reads[0].radius[0] = sk->reads[0].radius[1] = 1;
		sk->reads[0].args_offset = offsetof(struct stencil5_args, in);
		sk->write = k + 1;
		sk->write_args_offset = offsetof(struct stencil5_args, out);
	}
	d.gpus = gpus;
	printf("\nvmgpu-demo: multi-GPU image pipeline, %u stencil5 passes (%u iterations of work a pixel) over %ux%u on %u GPUs, one packet per GPU, GPUs wait for each other in memory\n",
	       STAGES, WORK, MW, MH, gpus);
	for (i = 0; i < MGPU_RUNS; i++) {
		memset(pout, 0, 4 * MW * MH);
		snprintf(svg, sizeof(svg), "%s-%s.svg", svg_base,
			 mgpu_runs[i].svg);
		ret = mgpu_run(dev, ctx, &d, mgpu_runs[i].mode,
			       mgpu_runs[i].movement, ref, pout, svg, &res[i]);
		if (ret)
			goto out;
	}
	for (i = 0; i < MGPU_RUNS; i++)
		mgpu_print(mgpu_runs[i].name, &res[i], gpus);
	printf("  speed-up over the barrier in this VM run: %.2fx (halo copies), %.2fx (hybrid)\n",
	       (double)res[0].st.makespan_ns / res[1].st.makespan_ns,
	       (double)res[0].st.makespan_ns / res[2].st.makespan_ns);
	printf("  (device time of this run; the host model's exact figures: build/bench/multigpu)\n");
	printf("  all three results match the CPU\n");
out:
	vmgpu_bo_destroy(in);
	vmgpu_bo_destroy(out);
	vmgpu_bo_destroy(kst);
	return ret;
}

int main(int argc, char **argv)
{
	struct vmgpu_bo *kblur, *ksaxpy, *kvecadd;
	struct gpu_run g[VMGPU_MAX_GPUS];
	struct vmgpu_context *ctx;
	struct vmgpu_device *dev;
	struct vmgpu_info info;
	static const struct option lo[] = { TOOL_COMMON_OPTIONS };
	const char *svg = "/tmp/vmgpu-demo.svg";
	char err[256], baseline_svg[300];
	bool baseline = false, tracing;
	uint32_t i;
	int ret, c;

	while ((c = getopt_long(argc, argv, "bho:", lo, NULL)) != -1) {
		if (c == 'b')
			baseline = true;
		else if (c == 'o')
			svg = optarg;
		else
			tool_common_option(&tool, c);
	}
	if (optind < argc)
		tool_usage_error(&tool, "unexpected operand %s", argv[optind]);
	svg_variant(svg, "-baseline.svg", baseline_svg, sizeof(baseline_svg));
	if (vmgpu_device_open(0, &dev, err, sizeof(err))) {
		fprintf(stderr, "vmgpu-demo: %s\n", err);
		return 1;
	}
	if (vmgpu_device_query(dev, &info) ||
	    vmgpu_context_create(dev, VMGPU_PRIORITY_NORMAL, &ctx))
		goto fail;
	kblur = kernel(dev, "blur3x3");
	ksaxpy = kernel(dev, "saxpy");
	kvecadd = kernel(dev, "vecadd");
	if (!kblur || !ksaxpy || !kvecadd)
		goto fail;
	memset(g, 0, sizeof(g));
	for (i = 0; i < info.num_gpus; i++) {
		void *m;

		g[i].gpu = i;
		if (buf(dev, i, 4ull * PIX * (BLURS + 1), &g[i].img, &m))
			goto fail;
		g[i].imgp = m;
		if (buf(dev, i, 4 * PIX, &g[i].y, &m))
			goto fail;
		g[i].yp = m;
		if (buf(dev, i, 4 * SLICE * PAIRS, &g[i].c, &m))
			goto fail;
		g[i].cp = m;
		if (buf(dev, i, 4 * SLICE * PAIRS, &g[i].z, &m))
			goto fail;
		g[i].zp = m;
		if (buf(dev, i, 4096, &g[i].ts, &m))
			goto fail;
		g[i].tsp = m;
		if (vmgpu_syncobj_create(dev, &g[i].syncobj) ||
		    build(dev, &g[i], kblur, ksaxpy, kvecadd))
			goto fail;
	}
	printf("vmgpu-demo: %u GPUs x %u SMs; per GPU one packet of %u kernels (%u blur3x3, %u saxpy, %u vecadd, 1 saxpy), 24 syncs, 1 barrier\n",
	       info.num_gpus, info.sms_per_gpu,
	       vmgpu_cmdbuf_dispatch_count(g[0].cb), BLURS, SLICES, PAIRS);
	tracing = timeline_start();
	ret = run_all(dev, ctx, g, info.num_gpus, 0,
		      "batched: one packet, one interrupt per GPU");
	if (ret < 0)
		goto fail;
	if (tracing)
		timeline_write(svg, NULL);
	if (baseline) {
		int r2;

		tracing = timeline_start();
		r2 = run_all(dev, ctx, g, info.num_gpus, VMGPU_SUBMIT_BASELINE,
			     "baseline: one packet and one interrupt per kernel");
		if (r2 < 0)
			goto fail;
		if (tracing)
			timeline_write(baseline_svg, NULL);
		ret |= r2;
	}
	if (info.num_gpus > 1) {
		char base[300];

		svg_variant(svg, "-multigpu", base, sizeof(base));
		if (multigpu_part(dev, ctx, info.num_gpus, base))
			goto fail;
	}
	printf("\nvmgpu-demo: %s\n", ret ? "FAILED" : "all results match the CPU");
	return ret ? 1 : 0;
fail:
	vmgpu_error_message(dev, err, sizeof(err));
	fprintf(stderr, "vmgpu-demo: %s\n", err);
	return 1;
}
