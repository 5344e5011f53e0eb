// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Task graphs (SPEC T4-T6) in device time on the host device model: the
 * schedule's packet (SYNC only where a pass waits) against a linear
 * stream with a BARRIER after every pass, for
 *
 *  - the batch demo's frame of 33 workloads (tools/vmgpu-bench-batch):
 *    independent ("batch") and a chain ("batch+sync");
 *  - an image pipeline: decode, then 8 branches of filter, tone,
 *    sharpen (into transient buffers of 1 MiB) and store;
 *  - feedback: skewed passes (3 short, a chain of 3 long, room for two
 *    at a time), frames until the schedule stops changing.
 *
 * Every pass is the built-in "fill" kernel (64 threads, its spin count
 * sets its length). Makespan: TIMESTAMPs at the packet's start and, after
 * a final BARRIER, its end. Memory: the transient heap with and without
 * sharing (T6).
 *
 *   build/bench/taskgraph
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "testhost.h"
#include "vmgpu.h"

#define VA0	0x40000000ull
#define RW	(VMGPU_PTE_READ | VMGPU_PTE_WRITE)
#define MAXP	64

struct fill_args {
	uint64_t out;
	uint32_t n, mul, add, spin;
};

struct rig {
	struct testhost *th;
	struct th_as as;
	uint64_t kernel, out, ts;
	uint64_t args[MAXP];		/* per pass */
	uint64_t seqno;
};

struct emit_ctx {
	struct rig *r;
	struct th_cmdbuf *cb;
	uint32_t dispatches, syncs, barriers;
};

static void rig_init(struct rig *r, const uint32_t *spin, uint32_t n)
{
	uint32_t i;

	memset(r, 0, sizeof(*r));
	r->th = th_new(64 << 20);
	th_device_new(r->th, NULL, 1);
	th_as_init(r->th, &r->as, VA0);
	th_gpu_setup(r->th, 0, 8);
	th_set_root(r->th, 0, 0, &r->as);
	r->kernel = th_builtin(r->th, &r->as, "fill");
	r->out = th_as_alloc(r->th, &r->as, 256 * MAXP, RW);
	r->ts = th_as_alloc(r->th, &r->as, 8 * (MAXP + 2), RW);
	for (i = 0; i < n; i++) {
		struct fill_args a = { .out = r->out + 256 * i, .n = 64,
				       .mul = 3, .add = i, .spin = spin[i] };

		r->args[i] = th_upload(r->th, &r->as, &a, sizeof(a));
	}
}

static int emit(void *opaque, const struct vmgpu_graph_op *op)
{
	struct emit_ctx *e = opaque;
	const uint32_t block[3] = { 64, 1, 1 }, grid[3] = { 1, 1, 1 };

	switch (op->type) {
	case VMGPU_GRAPH_OP_DISPATCH:
		th_cb_dispatch(e->cb, e->r->kernel, e->r->args[op->pass],
			       sizeof(struct fill_args), grid, block, 0, 0);
		return (int)e->dispatches++;
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
	}
	return 0;
}

/* Run @cb (its first TIMESTAMP at slot 0 is added here); device ns. */
static uint64_t run(struct rig *r, struct th_cmdbuf *cb)
{
	uint64_t *ts = th_va(r->th, &r->as, r->ts);
	uint64_t end_slot = 8 * (MAXP + 1);

	th_cb_barrier(cb);
	th_cb_timestamp(cb, r->ts + end_slot);
	th_cb_end(cb);
	th_cb_submit(r->th, &r->as, 0, cb, ++r->seqno);
	vg_device_run(r->th->dev);
	if (th_fence_mem(r->th, 0) != r->seqno) {
		fprintf(stderr, "taskgraph bench: packet %llu failed\n",
			(unsigned long long)r->seqno);
		exit(1);
	}
	th_ack_all(r->th, 0);
	return ts[MAXP + 1] - ts[0];
}

static void start(struct rig *r, struct th_cmdbuf *cb)
{
	th_cb_init(cb);
	th_cb_timestamp(cb, r->ts);
}

struct result {
	uint64_t makespan;
	uint32_t syncs, barriers;
};

static struct result graph_run(struct rig *r, struct vmgpu_graph *g,
			       struct vmgpu_schedule *s)
{
	static struct th_cmdbuf cb;
	struct emit_ctx e = { .r = r, .cb = &cb };
	struct result res;

	start(r, &cb);
	if (vmgpu_graph_record_ops(g, s, 0, emit, &e)) {
		fprintf(stderr, "taskgraph bench: record failed\n");
		exit(1);
	}
	res.makespan = run(r, &cb);
	res.syncs = e.syncs;
	res.barriers = e.barriers;
	return res;
}

/* Program order, a BARRIER after every pass. */
static struct result linear_run(struct rig *r, uint32_t n)
{
	static struct th_cmdbuf cb;
	const uint32_t block[3] = { 64, 1, 1 }, grid[3] = { 1, 1, 1 };
	struct result res = { 0 };
	uint32_t i;

	start(r, &cb);
	for (i = 0; i < n; i++) {
		th_cb_dispatch(&cb, r->kernel, r->args[i],
			       sizeof(struct fill_args), grid, block, 0, 0);
		th_cb_barrier(&cb);
		res.barriers++;
	}
	res.makespan = run(r, &cb);
	return res;
}

static void pass(struct vmgpu_graph *g, const char *name, int rd, int rd2,
		 int wr)
{
	static const struct vmgpu_dispatch_desc d = { .grid = { 1 },
						      .block = { 64 } };

	vmgpu_graph_pass_begin(g, name);
	if (rd >= 0)
		vmgpu_graph_pass_read(g, rd);
	if (rd2 >= 0)
		vmgpu_graph_pass_read(g, rd2);
	if (wr >= 0)
		vmgpu_graph_pass_write(g, wr);
	vmgpu_graph_pass_dispatch(g, &d);
	vmgpu_graph_pass_end(g);
}

static void report(const char *what, uint32_t n, struct result gr,
		   struct result li, const struct vmgpu_schedule *s)
{
	struct vmgpu_graph_memory m;

	vmgpu_schedule_memory(s, &m);
	printf("%-22s %3u passes  graph: %8llu ns %3u syncs %3u barriers"
	       "  linear: %8llu ns %3u barriers  (%.2fx)  heap %llu of %llu\n",
	       what, n, (unsigned long long)gr.makespan, gr.syncs,
	       gr.barriers, (unsigned long long)li.makespan, li.barriers,
	       (double)li.makespan / (double)gr.makespan,
	       (unsigned long long)m.heap_bytes,
	       (unsigned long long)m.unaliased_bytes);
}

static void batch_frame(bool chain)
{
	uint32_t spin[33], i;
	struct vmgpu_schedule *s;
	struct vmgpu_graph *g;
	struct result gr, li;
	struct rig r;

	for (i = 0; i < 33; i++)
		spin[i] = 200;
	rig_init(&r, spin, 33);
	vmgpu_graph_create(&g);
	for (i = 0; i < 34; i++)
		vmgpu_graph_resource(g, "w", NULL, 256);
	for (i = 0; i < 33; i++)
		pass(g, "fill", chain ? (int)i : -1, -1, (int)i + 1);
	vmgpu_graph_compile(g, NULL, &s);
	gr = graph_run(&r, g, s);
	li = linear_run(&r, 33);
	report(chain ? "batch+sync (chain)" : "batch (independent)", 33, gr,
	       li, s);
	vmgpu_schedule_destroy(s);
	vmgpu_graph_destroy(g);
	th_free(r.th);
}

static void image_pipeline(void)
{
	uint32_t spin[MAXP], n = 0, i;
	struct vmgpu_graph_limits lim = { 0 };
	struct vmgpu_schedule *s;
	struct vmgpu_graph *g;
	struct result gr, li;
	struct rig r;
	int t, f, gg, h, out;

	vmgpu_graph_create(&g);
	t = vmgpu_graph_resource(g, "T", NULL, 1 << 20);
	spin[n++] = 400;
	pass(g, "decode", -1, -1, t);
	for (i = 0; i < 8; i++) {
		f = vmgpu_graph_resource(g, "F", NULL, 1 << 20);
		gg = vmgpu_graph_resource(g, "G", NULL, 1 << 20);
		h = vmgpu_graph_resource(g, "H", NULL, 1 << 20);
		out = vmgpu_graph_resource(g, "out", NULL, 1 << 20);
		pass(g, "filter", t, -1, f);
		pass(g, "tone", f, -1, gg);
		pass(g, "sharpen", gg, -1, h);
		pass(g, "store", h, out, out);
		spin[n++] = 300;
		spin[n++] = 100;
		spin[n++] = 200;
		spin[n++] = 50;
	}
	rig_init(&r, spin, n);
	vmgpu_graph_compile(g, &lim, &s);
	gr = graph_run(&r, g, s);
	li = linear_run(&r, n);
	report("image pipeline", n, gr, li, s);
	vmgpu_schedule_destroy(s);
	lim.transient_budget = 12u << 20;
	vmgpu_graph_compile(g, &lim, &s);
	gr = graph_run(&r, g, s);
	report("  budget 12 MiB", n, gr, li, s);
	vmgpu_schedule_destroy(s);
	vmgpu_graph_destroy(g);
	th_free(r.th);
}

/* Skewed passes; two at a time fit (needs given). */
static void feedback(void)
{
	static const uint32_t spin[6] = { 100, 100, 100, 1000, 1000, 1000 };
	static const struct vmgpu_graph_needs nd = { .blocks = 1,
						     .threads = 64 };
	const struct vmgpu_graph_limits lim = { .sms = 1, .sm_threads = 128 };
	static const char *const names[] = { "s1", "s2", "s3",
					     "x1", "x2", "x3" };
	static const struct vmgpu_dispatch_desc d = { .grid = { 1 },
						      .block = { 64 } };
	struct vmgpu_schedule *s = NULL;
	static struct th_cmdbuf cb;
	struct vmgpu_graph *g;
	struct result gr;
	struct rig r;
	uint64_t *ts;
	int res[9], i, frame, last_change = 0;

	rig_init(&r, spin, 6);
	ts = th_va(r.th, &r.as, r.ts);
	vmgpu_graph_create(&g);
	for (i = 0; i < 9; i++)
		res[i] = vmgpu_graph_resource(g, "r", NULL, 256);
	for (frame = 1; frame <= 6; frame++) {
		struct emit_ctx e = { .r = &r, .cb = &cb };

		vmgpu_graph_reset(g);
		for (i = 0; i < 6; i++) {
			vmgpu_graph_pass_begin(g, names[i]);
			vmgpu_graph_pass_read(g, res[i < 4 ? 0 : 1 + i]);
			vmgpu_graph_pass_write(g, res[i < 3 ? 1 + i : 2 + i]);
			vmgpu_graph_pass_needs(g, &nd);
			vmgpu_graph_pass_dispatch(g, &d);
			vmgpu_graph_pass_end(g);
		}
		if (!s || vmgpu_schedule_is_current(s, g) != 1) {
			vmgpu_schedule_destroy(s);
			vmgpu_graph_compile(g, &lim, &s);
			last_change = frame;
		}
		gr = graph_run(&r, g, s);
		printf("feedback frame %d: makespan %llu ns, %u syncs\n", frame,
		       (unsigned long long)gr.makespan, gr.syncs);
		/* A profiling frame: the passes one at a time. */
		start(&r, &cb);
		vmgpu_graph_record_timed_ops(g, s, 0, emit, &e);
		run(&r, &cb);
		if (vmgpu_graph_feedback(g, s, ts + 1, 7)) {
			fprintf(stderr, "taskgraph bench: feedback failed\n");
			exit(1);
		}
	}
	printf("feedback: schedule last changed on frame %d\n", last_change);
	vmgpu_schedule_destroy(s);
	vmgpu_graph_destroy(g);
	th_free(r.th);
}

int main(void)
{
	printf("task graphs against a linear stream (BARRIER after every pass), device time\n");
	batch_frame(false);
	batch_frame(true);
	image_pipeline();
	feedback();
	return 0;
}
