// SPDX-License-Identifier: GPL-2.0-only
/*
 * Task graphs (SPEC T4-T6, T8) in device time on the host device model:
 * the schedule's packet (SYNC only where a pass waits) against a linear
 * stream with a BARRIER after every pass, for
 *
 *  - the batch demo's frame of 33 workloads (tools/vmgpu-bench-batch),
 *    each the built-in "fill" kernel, 2 blocks of 256 threads spinning
 *    2000 iterations: independent ("batch") and a chain ("batch+sync");
 *  - an image pipeline on 512 x 512 f32 images (1 MiB): decode, then 8
 *    branches of filter, tone, sharpen (built-in "blur3x3" into transient
 *    images) and store (built-in "saxpy" into a buffer of its own);
 *  - feedback: skewed passes (3 short, a chain of 3 ten times longer,
 *    room for two at a time), frames until the schedule stops changing;
 *  - placements (T8): the image pipeline as one format B program (each
 *    sharpen under "if $0 != 0", $0 a word in GPU memory for (c))
 *    recorded (a) on the host's schedule, (b) scheduled by the command
 *    processor, (c) built on the device.
 *
 * Makespan: TIMESTAMPs at the packet's start and, after a final BARRIER,
 * its end. Memory: the transient heap with and without sharing (T6).
 * Transients run each in memory of its own (their heap offsets do not
 * change device time in the model: it has no caches).
 *
 *   build/bench/taskgraph
 *   build/bench/taskgraph --svg FILE.svg    the batch frame's timelines
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "testhost.h"
#include "testing.h"
#include "core/trace_svg.h"
#include "vmgpu.h"
#include "vmgpu/graph.h"
#include "vmgpu_cmd.h"

#define VA0	0x40000000ull
#define RW	(VMGPU_PTE_READ | VMGPU_PTE_WRITE)
/* Data in the GPU's memory: the host bus is not what is measured. */
#define LOCAL	(RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(0)))
#define MAXP	64

#define IMG_W	512
#define IMG_H	512
#define IMG_B	(IMG_W * IMG_H * 4)
#define BRANCH	8

/* Batch and feedback passes: fill, 2 blocks of 256 threads. */
#define F_BLOCKS	2
#define F_THREADS	256

struct rig {
	struct testhost *th;
	struct th_as as;
	struct vmgpu_bo *fill, *blur, *saxpy;
	uint64_t ts, seqno;
	/* Dispatch descriptors in program order (the linear stream's). */
	struct vmgpu_dispatch_desc d[MAXP];
	uint64_t args[MAXP][3];
	uint32_t nd;
};

struct emit_ctx {
	struct rig *r;
	struct th_cmdbuf *cb;
	uint32_t next, tmds, syncs, barriers, skips;
};

struct result {
	uint64_t makespan;
	uint32_t dispatches, tmds, syncs, barriers, skips, words;
};

static void die(const char *what)
{
	fprintf(stderr, "taskgraph bench: %s\n", what);
	exit(1);
}

/* No driver here: the recorders get stand-ins (libshim/testing.h). */
static struct vmgpu_bo *fake_bo(uint64_t va, uint64_t size)
{
	struct vmgpu_bo *bo = shim_test_bo_new(va, size);

	if (!bo)
		die("out of memory");
	return bo;
}

static void rig_init(struct rig *r)
{
	memset(r, 0, sizeof(*r));
	r->th = th_new(128 << 20);
	th_device_new(r->th, NULL, 1);
	th_as_init(r->th, &r->as, VA0);
	th_gpu_setup(r->th, 0, 8);
	th_set_root(r->th, 0, 0, &r->as);
	r->fill = fake_bo(th_builtin(r->th, &r->as, "fill"), 4096);
	r->blur = fake_bo(th_builtin(r->th, &r->as, "blur3x3"), 4096);
	r->saxpy = fake_bo(th_builtin(r->th, &r->as, "saxpy"), 4096);
	r->ts = th_as_alloc(r->th, &r->as, 8 * (MAXP + 2), RW);
}

/* A descriptor with a 24-byte argument block (all three kernels'). */
static const struct vmgpu_dispatch_desc *
add_desc(struct rig *r, const struct vmgpu_bo *k, const void *args,
	 uint32_t gx, uint32_t gy, uint32_t bx, uint32_t by)
{
	struct vmgpu_dispatch_desc *d = &r->d[r->nd];

	if (r->nd == MAXP)
		die("too many dispatches");
	memcpy(r->args[r->nd], args, 24);
	memset(d, 0, sizeof(*d));
	d->kernel = k;
	d->args = r->args[r->nd++];
	d->args_bytes = 24;
	d->grid[0] = gx;
	d->grid[1] = gy;
	d->block[0] = bx;
	d->block[1] = by;
	return d;
}

static const struct vmgpu_dispatch_desc *
fill_desc(struct rig *r, uint32_t spin)
{
	struct {
		uint64_t out;
		uint32_t n, mul, add, spin;
	} a = { .n = F_BLOCKS * F_THREADS, .mul = 3, .add = r->nd,
		.spin = spin };

	a.out = th_as_alloc(r->th, &r->as, 4 * a.n, LOCAL);
	return add_desc(r, r->fill, &a, F_BLOCKS, 1, F_THREADS, 1);
}

static const struct vmgpu_dispatch_desc *
blur_desc(struct rig *r, uint64_t in, uint64_t out)
{
	struct {
		uint32_t w, h;
		uint64_t in, out;
	} a = { IMG_W, IMG_H, in, out };

	return add_desc(r, r->blur, &a, IMG_W / 16, IMG_H / 16, 16, 16);
}

static const struct vmgpu_dispatch_desc *
saxpy_desc(struct rig *r, uint64_t x, uint64_t y)
{
	struct {
		uint32_t n;
		float a;
		uint64_t x, y;
	} a = { IMG_W * IMG_H, 0.5f, x, y };

	return add_desc(r, r->saxpy, &a, IMG_W * IMG_H / 256, 1, 256, 1);
}

static void put_dispatch(struct emit_ctx *e, const struct vmgpu_dispatch_desc *d,
			 const struct vmgpu_graph_op *o)
{
	struct vmgpu_cmd_launch_tmd l;
	uint32_t grid[3], block[3];
	struct vmgpu_tmd t;
	uint64_t args;
	int i;

	args = th_upload(e->r->th, &e->r->as, d->args, d->args_bytes);
	for (i = 0; i < 3; i++) {
		grid[i] = d->grid[i] ? d->grid[i] : 1;
		block[i] = d->block[i] ? d->block[i] : 1;
	}
	if (!o || !o->tmd) {
		th_cb_dispatch(e->cb, vmgpu_bo_gpu_va(d->kernel), args, d->args_bytes,
			       grid, block, 0, 0);
		return;
	}
	memset(&t, 0, sizeof(t));
	t.code_va = vmgpu_bo_gpu_va(d->kernel);
	t.args_va = args;
	t.args_bytes = d->args_bytes;
	for (i = 0; i < 3; i++) {
		t.grid[i] = t.grid_total[i] = grid[i];
		t.block[i] = block[i];
	}
	t.quota = o->quota;
	t.sm_mask = o->sm_mask;
	l = vmgpu_encode_launch_tmd(th_upload(e->r->th, &e->r->as, &t,
					      sizeof(t)));
	th_cb_raw(e->cb, VMGPU_CMD_WORDS(&l), VMGPU_CMD_NWORDS(&l));
	e->tmds++;
}

/* The recorder's operations as the device's command words. */
static int emit(void *opaque, const struct vmgpu_graph_op *op)
{
	struct emit_ctx *e = opaque;
	struct vmgpu_cmd_skip_if s;

	switch (op->type) {
	case VMGPU_GRAPH_OP_DISPATCH:
		put_dispatch(e, op->dispatch, op);
		return (int)e->next++;
	case VMGPU_GRAPH_OP_SYNC:
		th_cb_sync(e->cb, op->consumer, op->producer);
		e->syncs++;
		return 0;
	case VMGPU_GRAPH_OP_BARRIER:
		th_cb_barrier(e->cb);
		e->barriers++;
		return 0;
	case VMGPU_GRAPH_OP_TIMESTAMP:
		th_cb_timestamp(e->cb, e->r->ts + 8 * (1 + op->value));
		return 0;
	case VMGPU_GRAPH_OP_SKIP_IF:
		s = vmgpu_encode_skip_if(vmgpu_bo_gpu_va(op->dst_bo) + op->dst_offset,
					 op->cond_op, op->value, op->mask,
					 op->after, op->skip);
		th_cb_raw(e->cb, VMGPU_CMD_WORDS(&s), VMGPU_CMD_NWORDS(&s));
		e->skips++;
		return 0;
	case VMGPU_GRAPH_OP_STATE:
		th_cb_set_state(e->cb, op->key, op->value);
		return 0;
	case VMGPU_GRAPH_OP_USE:
		return 0;
	}
	return -EINVAL;
}

static void start(struct rig *r, struct emit_ctx *e, struct th_cmdbuf *cb)
{
	memset(e, 0, sizeof(*e));
	e->r = r;
	e->cb = cb;
	th_cb_init(cb);
	th_cb_timestamp(cb, r->ts);
}

/* Run the packet in @e's buffer (started by start()); device ns. */
static struct result run(struct emit_ctx *e)
{
	struct rig *r = e->r;
	uint64_t *ts = th_va(r->th, &r->as, r->ts);
	struct result res;

	th_cb_barrier(e->cb);
	th_cb_timestamp(e->cb, r->ts + 8 * (MAXP + 1));
	th_cb_end(e->cb);
	th_cb_submit(r->th, &r->as, 0, e->cb, ++r->seqno);
	vg_device_run(r->th->dev);
	if (th_fence_mem(r->th, 0) != r->seqno ||
	    th_rd(r->th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_ERRORS)))
		die("a packet failed");
	th_ack_all(r->th, 0);
	res.makespan = ts[MAXP + 1] - ts[0];
	res.dispatches = e->next;
	res.tmds = e->tmds;
	res.syncs = e->syncs;
	res.barriers = e->barriers;
	res.skips = e->skips;
	res.words = e->cb->n;
	return res;
}

static void check(struct vmgpu_graph *g, int ret, const char *what)
{
	char msg[256];

	if (!ret)
		return;
	vmgpu_graph_error_message(g, msg, sizeof(msg));
	fprintf(stderr, "taskgraph bench: %s: %s\n", what, msg);
	exit(1);
}

static struct result graph_run(struct rig *r, struct vmgpu_graph *g,
			       struct vmgpu_schedule *s)
{
	static struct th_cmdbuf cb;
	struct emit_ctx e;

	start(r, &e, &cb);
	check(g, vmgpu_graph_record_ops(g, s, 0, emit, &e), "record");
	return run(&e);
}

/* The descriptors in program order, a BARRIER after every pass. */
static struct result linear_run(struct rig *r)
{
	static struct th_cmdbuf cb;
	struct emit_ctx e;
	uint32_t i;

	start(r, &e, &cb);
	for (i = 0; i < r->nd; i++) {
		put_dispatch(&e, &r->d[i], NULL);
		e.next++;
		th_cb_barrier(&cb);
		e.barriers++;
	}
	return run(&e);
}

static void pass(struct vmgpu_graph *g, const char *name, int rd, int wr,
		 const struct vmgpu_dispatch_desc *d,
		 const struct vmgpu_graph_needs *nd)
{
	vmgpu_graph_pass_begin(g, name);
	if (rd >= 0)
		vmgpu_graph_pass_read(g, rd);
	if (wr >= 0)
		vmgpu_graph_pass_write(g, wr);
	if (nd)
		vmgpu_graph_pass_needs(g, nd);
	vmgpu_graph_pass_dispatch(g, d);
	check(g, vmgpu_graph_pass_end(g), "pass");
}

static void report(const char *what, struct result gr, struct result li)
{
	printf("%-20s %3u passes  graph: %8llu ns %3u syncs  linear: %8llu ns %3u barriers  (%.2fx)\n",
	       what, li.dispatches, (unsigned long long)gr.makespan, gr.syncs,
	       (unsigned long long)li.makespan, li.barriers,
	       (double)li.makespan / (double)gr.makespan);
}

/* The trace of packet @seqno as an SVG timeline at @path. */
static void write_svg(struct rig *r, const char *path)
{
	const struct vmgpu_trace_record *rec;
	struct vmgpu_trace_record *mine;
	size_t n, i, m = 0;
	FILE *f;

	rec = vg_device_trace_records(r->th->dev, &n);
	mine = malloc((n ? n : 1) * sizeof(*mine));
	if (!mine)
		die("out of memory");
	for (i = 0; i < n; i++)
		if (rec[i].seqno == r->seqno)
			mine[m++] = rec[i];
	f = fopen(path, "w");
	if (!f || vg_trace_svg_write(mine, m, f) || fclose(f))
		die(path);
	free(mine);
}

/*
 * The batch frame: 33 passes of the built-in fill; with @svg (a path
 * ending in .svg) the graph's run and the linear stream's are drawn as
 * timelines at @svg and at its -linear.svg.
 */
static void batch_frame(bool chain, const char *svg)
{
	struct vmgpu_schedule *s;
	struct vmgpu_graph *g;
	struct result gr, li;
	struct rig r;
	uint32_t i;

	rig_init(&r);
	vmgpu_graph_create(&g);
	for (i = 0; i < 34; i++)
		vmgpu_graph_resource(g, "w", NULL, 4 * F_BLOCKS * F_THREADS);
	for (i = 0; i < 33; i++)
		pass(g, "fill", chain ? (int)i : -1, (int)i + 1,
		     fill_desc(&r, 2000), NULL);
	check(g, vmgpu_graph_compile(g, NULL, &s), "compile");
	if (svg)
		vg_device_trace_keep(r.th->dev, true);
	gr = graph_run(&r, g, s);
	if (svg) {
		char lin[512];

		write_svg(&r, svg);
		li = linear_run(&r);
		snprintf(lin, sizeof(lin), "%.*s-linear.svg",
			 (int)strlen(svg) - 4, svg);
		write_svg(&r, lin);
		printf("%s, %s: the frame's graph schedule (%llu ns) and linear stream (%llu ns)\n",
		       svg, lin, (unsigned long long)gr.makespan,
		       (unsigned long long)li.makespan);
	} else {
		li = linear_run(&r);
	}
	report(chain ? "batch+sync (chain)" : "batch (independent)", gr, li);
	vmgpu_schedule_destroy(s);
	vmgpu_graph_destroy(g);
	th_free(r.th);
}

/*
 * The image pipeline: graph resources and their stream indices are the
 * same. 0 the input, 1 T (decode's output), 2 the flag word, then per
 * branch F, G, H (transients) and out (a buffer). Dispatch D is pass D
 * of the program order.
 */
#define PL_RES	(3 + 4 * BRANCH)

struct pipe {
	struct rig r;
	struct vmgpu_bo *bo[PL_RES];
	uint64_t va[PL_RES];
	uint32_t *words;
	size_t nwords;
};

static bool pl_transient(int i)
{
	return i == 1 || (i >= 3 && (i - 3) % 4 != 3);
}

static void pipe_init(struct pipe *p)
{
	static char text[8192];
	char err[128];
	float *img;
	size_t n = 0;
	int b, i;

	rig_init(&p->r);
	for (i = 0; i < PL_RES; i++) {
		uint64_t bytes = i == 2 ? 4096 : IMG_B;

		p->va[i] = th_as_alloc(p->r.th, &p->r.as, bytes, LOCAL);
		p->bo[i] = fake_bo(p->va[i], bytes);
	}
	img = th_va(p->r.th, &p->r.as, p->va[0]);
	for (i = 0; i < IMG_W * IMG_H; i++)
		img[i] = (float)((i * 7919u) % 251u) / 251.0f;
	*(uint32_t *)th_va(p->r.th, &p->r.as, p->va[2]) = 1;
	blur_desc(&p->r, p->va[0], p->va[1]);
	n += snprintf(text + n, sizeof(text) - n,
		      "name \"decode\"\nread 0\nwrite 1\ndispatch 0\ndrop 0\ndrop 1\n");
	for (b = 0; b < BRANCH; b++) {
		int f = 3 + 4 * b, gg = f + 1, h = f + 2, out = f + 3;
		int d = 1 + 4 * b;

		blur_desc(&p->r, p->va[1], p->va[f]);
		blur_desc(&p->r, p->va[f], p->va[gg]);
		blur_desc(&p->r, p->va[gg], p->va[h]);
		saxpy_desc(&p->r, p->va[h], p->va[out]);
		n += snprintf(text + n, sizeof(text) - n,
			      "name \"filter\"\nread 1\nwrite %d\ndispatch %d\ndrop 1\ndrop %d\n"
			      "name \"tone\"\nread %d\nwrite %d\ndispatch %d\ndrop %d\ndrop %d\n"
			      "if $0 != 0\n"
			      "name \"sharpen\"\nread %d\nwrite %d\ndispatch %d\ndrop %d\ndrop %d\n"
			      "end\n"
			      "name \"store\"\nread %d\nread %d\nwrite %d\ndispatch %d\ndrop %d\ndrop %d\n",
			      f, d, f, f, gg, d + 1, f, gg, gg, h, d + 2, gg, h,
			      h, out, out, d + 3, h, out);
	}
	if (n >= sizeof(text))
		die("program too long");
	if (vmgpu_graph_stream_parse(text, &p->words, &p->nwords, err,
				     sizeof(err)))
		die(err);
}

static struct vmgpu_graph *pipe_graph(struct pipe *p)
{
	struct vmgpu_graph *g;
	int i;

	if (vmgpu_graph_create(&g))
		die("out of memory");
	for (i = 0; i < PL_RES; i++)
		vmgpu_graph_resource(g, "r",
				     pl_transient(i) ? NULL : p->bo[i],
				     pl_transient(i) ? IMG_B : 0);
	return g;
}

enum place { HOST, CP, DEVICE };

/* The program placed @pl; @lim for (a). */
static struct result pipe_run(struct pipe *p, enum place pl,
			      const struct vmgpu_graph_limits *lim,
			      struct vmgpu_graph_memory *m)
{
	const struct vmgpu_graph_gpu_value gv[1] = { { 2, 0, 1 } };
	const int64_t params[1] = { 1 }, unknown[1] = { 0 };
	struct vmgpu_graph_bindings b = {
		.dispatches = p->r.d, .num_dispatches = p->r.nd,
		.params = params, .num_params = 1,
	};
	struct vmgpu_schedule *s = NULL;
	static struct th_cmdbuf cb;
	struct vmgpu_graph *g = pipe_graph(p);
	struct emit_ctx e;
	struct result res;

	start(&p->r, &e, &cb);
	switch (pl) {
	case HOST:
		check(g, vmgpu_graph_run_stream(g, p->words, p->nwords, &b),
		      "run_stream");
		check(g, vmgpu_graph_compile(g, lim, &s), "compile");
		check(g, vmgpu_graph_record_ops(g, s, 0, emit, &e), "record");
		if (m)
			vmgpu_schedule_memory(s, m);
		break;
	case CP:
		check(g, vmgpu_graph_run_stream(g, p->words, p->nwords, &b),
		      "run_stream");
		check(g, vmgpu_graph_record_cp_ops(g, 0, emit, &e),
		      "record_cp");
		break;
	case DEVICE:
		b.params = unknown;	/* the device reads $0 */
		b.gpu_values = gv;
		check(g, vmgpu_graph_record_stream_ops(g, p->words, p->nwords,
						       &b, 0, emit, &e),
		      "record_stream");
		break;
	}
	res = run(&e);
	vmgpu_schedule_destroy(s);
	vmgpu_graph_destroy(g);
	return res;
}

static void image_pipeline(struct pipe *p)
{
	struct vmgpu_graph_limits lim = { 0 };
	struct vmgpu_graph_memory m;
	struct result gr, li;

	gr = pipe_run(p, HOST, &lim, &m);
	li = linear_run(&p->r);
	report("image pipeline", gr, li);
	printf("%-20s transient heap %.1f MiB of %.1f MiB unshared (-%.0f %%), peak live %.1f MiB\n",
	       "", m.heap_bytes / 1048576.0, m.unaliased_bytes / 1048576.0,
	       100.0 - 100.0 * m.heap_bytes / m.unaliased_bytes,
	       m.peak_live_bytes / 1048576.0);
	lim.transient_budget = 12u << 20;
	gr = pipe_run(p, HOST, &lim, &m);
	report("  budget 12 MiB", gr, li);
	printf("%-20s transient heap %.1f MiB of %.1f MiB unshared (-%.0f %%), peak live %.1f MiB\n",
	       "", m.heap_bytes / 1048576.0, m.unaliased_bytes / 1048576.0,
	       100.0 - 100.0 * m.heap_bytes / m.unaliased_bytes,
	       m.peak_live_bytes / 1048576.0);
}

static void placements(struct pipe *p)
{
	static const char *const name[] = {
		"(a) host schedule", "(b) CP-scheduled", "(c) device-built",
	};
	struct result res;
	int pl;

	printf("placements (T8), the image pipeline as one format B program:\n");
	printf("  %-20s %10s %6s %6s %6s %8s %7s %6s\n", "placement",
	       "makespan", "DISP", "TMD", "SYNC", "BARRIER", "SKIP_IF",
	       "words");
	for (pl = HOST; pl <= DEVICE; pl++) {
		res = pipe_run(p, pl, NULL, NULL);
		printf("  %-20s %7llu ns %6u %6u %6u %8u %7u %6u\n", name[pl],
		       (unsigned long long)res.makespan,
		       res.dispatches - res.tmds, res.tmds, res.syncs,
		       res.barriers, res.skips, res.words);
	}
}

/* Skewed passes; two at a time fit (needs given). */
static void feedback(void)
{
	static const uint32_t spin[6] = { 1000, 1000, 1000,
					  10000, 10000, 10000 };
	static const struct vmgpu_graph_needs nd = {
		.blocks = F_BLOCKS, .threads = F_BLOCKS * F_THREADS,
	};
	const struct vmgpu_graph_limits lim = {
		.sms = 1, .sm_threads = 2 * F_BLOCKS * F_THREADS,
	};
	static const char *const names[] = { "s1", "s2", "s3",
					     "x1", "x2", "x3" };
	const struct vmgpu_dispatch_desc *d[6];
	struct vmgpu_schedule *s = NULL;
	static struct th_cmdbuf cb;
	uint64_t *ts, chain = 0;
	struct vmgpu_graph *g;
	struct emit_ctx e;
	struct result gr;
	int res[9], i, frame, last_change = 0;
	struct rig r;

	rig_init(&r);
	ts = th_va(r.th, &r.as, r.ts);
	for (i = 0; i < 6; i++)
		d[i] = fill_desc(&r, spin[i]);
	vmgpu_graph_create(&g);
	for (i = 0; i < 9; i++)
		res[i] = vmgpu_graph_resource(g, "r", NULL, 256);
	for (frame = 1; frame <= 6; frame++) {
		vmgpu_graph_reset(g);
		for (i = 0; i < 6; i++)
			pass(g, names[i], res[i < 4 ? 0 : 1 + i],
			     res[i < 3 ? 1 + i : 2 + i], d[i], &nd);
		if (!s || vmgpu_schedule_is_current(s, g) != 1) {
			vmgpu_schedule_destroy(s);
			check(g, vmgpu_graph_compile(g, &lim, &s), "compile");
			last_change = frame;
		}
		gr = graph_run(&r, g, s);
		printf("feedback frame %d: makespan %llu ns, %u syncs\n", frame,
		       (unsigned long long)gr.makespan, gr.syncs);
		/* A profiling frame: the passes one at a time. */
		start(&r, &e, &cb);
		check(g, vmgpu_graph_record_timed_ops(g, s, 0, emit, &e),
		      "record_timed");
		run(&e);
		check(g, vmgpu_graph_feedback(g, s, ts + 1, 7), "feedback");
	}
	for (i = 3; i < 6; i++) {
		uint64_t ns;

		if (!vmgpu_graph_pass_cost(g, i, &ns))
			chain += ns;
	}
	printf("feedback: schedule last changed on frame %d; the long chain alone (profiled) %llu ns\n",
	       last_change, (unsigned long long)chain);
	vmgpu_schedule_destroy(s);
	vmgpu_graph_destroy(g);
	th_free(r.th);
}

int main(int argc, char **argv)
{
	static struct pipe p;

	if (argc == 3 && !strcmp(argv[1], "--svg") && strlen(argv[2]) > 4 &&
	    !strcmp(argv[2] + strlen(argv[2]) - 4, ".svg")) {
		batch_frame(false, argv[2]);
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: %s [--svg FILE.svg]\n", argv[0]);
		return 2;
	}
	printf("task graphs against a linear stream (BARRIER after every pass), device time\n");
	batch_frame(false, NULL);
	batch_frame(true, NULL);
	pipe_init(&p);
	image_pipeline(&p);
	placements(&p);
	free(p.words);
	th_free(p.r.th);
	feedback();
	return 0;
}
