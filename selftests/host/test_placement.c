// SPDX-License-Identifier: GPL-2.0-only
/*
 * Task-graph placements (SPEC T8) on the device model: one format B
 * program with a condition and a loop on values a kernel produces,
 * recorded (a) scheduled on the host, (b) scheduled by the command
 * processor (task descriptors, SYNCs on data dependencies) and (c) built
 * and scheduled on the device (SKIP_IF on the GPU's values). All three
 * must leave the buffers exactly as a serial CPU run of the program.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "testhost.h"
#include "testing.h"
#include "vmgpu.h"
#include "vmgpu/graph.h"
#include "vmgpu_cmd.h"
#include "../taskgraph_cases.h"

#define VA0		0x20000000ull
#define RW		(VMGPU_PTE_READ | VMGPU_PTE_WRITE)

FIXTURE(pl) {
	struct testhost *th;
	struct vg_device *dev;
	struct th_as as;
	struct vmgpu_bo *mix, *gen, *buf[NBUF + 1];
	uint32_t *data[NBUF + 1];
	uint64_t mix_args[6][3];
	uint32_t gen_args[4];
	struct vmgpu_dispatch_desc d[7];
	int res[NBUF + 1];
	uint32_t *words;
	size_t nwords;
};

/* A stand-in for a buffer object: no driver here, only the device model. */
static struct vmgpu_bo *fake_bo(uint64_t va, uint64_t size)
{
	struct vmgpu_bo *bo = shim_test_bo_new(va, size);

	if (!bo)
		th_die("out of memory");
	return bo;
}

FIXTURE_SETUP(pl)
{
	char err[128];
	uint64_t va;
	int i;

	self->th = th_new(64 << 20);
	self->dev = th_device_new(self->th, NULL, 1);
	th_as_init(self->th, &self->as, VA0);
	th_gpu_setup(self->th, 0, 16);
	th_set_root(self->th, 0, 0, &self->as);
	self->mix = fake_bo(th_kernel(self->th, &self->as, mix_src), 4096);
	self->gen = fake_bo(th_kernel(self->th, &self->as, gen_src), 4096);
	for (i = 0; i <= NBUF; i++) {
		va = th_as_alloc(self->th, &self->as, 4 * N, RW);
		self->buf[i] = fake_bo(va, 4 * N);
		self->data[i] = th_va(self->th, &self->as, va);
	}
	tg_dispatches(self->d, self->mix, self->gen, self->buf, self->mix_args,
		      self->gen_args);
	ASSERT_EQ(0, vmgpu_graph_stream_parse(program, &self->words,
					      &self->nwords, err,
					      sizeof(err))) {
		TH_LOG("%s", err);
	}
}

FIXTURE_TEARDOWN(pl)
{
	int i;

	free(self->words);
	for (i = 0; i <= NBUF; i++)
		shim_test_bo_free(self->buf[i]);
	shim_test_bo_free(self->mix);
	shim_test_bo_free(self->gen);
	th_free(self->th);
}

/* Commands from the recorder's operations, the way a builder makes them. */
struct enc {
	struct testhost *th;
	struct th_as *as;
	struct th_cmdbuf cb;
	uint32_t next;
	uint32_t skips, tmds;
};

static int enc_emit(void *opaque, const struct vmgpu_graph_op *o)
{
	struct enc *e = opaque;
	const struct vmgpu_dispatch_desc *d = o->dispatch;
	struct vmgpu_cmd_skip_if s;
	struct vmgpu_cmd_launch_tmd l;
	struct vmgpu_tmd t;
	uint64_t args;
	int i;

	switch (o->type) {
	case VMGPU_GRAPH_OP_DISPATCH:
		args = th_upload(e->th, e->as, d->args, d->args_bytes);
		if (!o->tmd) {
			uint32_t grid[3], block[3];

			for (i = 0; i < 3; i++) {
				grid[i] = d->grid[i] ? d->grid[i] : 1;
				block[i] = d->block[i] ? d->block[i] : 1;
			}
			th_cb_dispatch(&e->cb, vmgpu_bo_gpu_va(d->kernel), args,
				       d->args_bytes, grid, block, 0, 0);
			return (int)e->next++;
		}
		memset(&t, 0, sizeof(t));
		t.code_va = vmgpu_bo_gpu_va(d->kernel);
		t.args_va = args;
		t.args_bytes = d->args_bytes;
		for (i = 0; i < 3; i++) {
			t.grid[i] = t.grid_total[i] = d->grid[i] ? d->grid[i] : 1;
			t.block[i] = d->block[i] ? d->block[i] : 1;
		}
		t.quota = o->quota;
		t.sm_mask = o->sm_mask;
		l = vmgpu_encode_launch_tmd(th_upload(e->th, e->as, &t,
						      sizeof(t)));
		th_cb_raw(&e->cb, VMGPU_CMD_WORDS(&l), VMGPU_CMD_NWORDS(&l));
		e->tmds++;
		return (int)e->next++;
	case VMGPU_GRAPH_OP_SKIP_IF:
		s = vmgpu_encode_skip_if(vmgpu_bo_gpu_va(o->dst_bo) +
					 o->dst_offset,
					 o->cond_op, o->value, o->mask,
					 o->after, o->skip);
		th_cb_raw(&e->cb, VMGPU_CMD_WORDS(&s), VMGPU_CMD_NWORDS(&s));
		e->skips++;
		return 0;
	case VMGPU_GRAPH_OP_STATE:
		th_cb_set_state(&e->cb, o->key, o->value);
		return 0;
	case VMGPU_GRAPH_OP_SYNC:
		th_cb_sync(&e->cb, o->consumer, o->producer);
		return 0;
	case VMGPU_GRAPH_OP_BARRIER:
		th_cb_barrier(&e->cb);
		return 0;
	case VMGPU_GRAPH_OP_USE:
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * Run the program placed @p, gen writing v0, v1. For (a) and (b) the
 * host is told the values; for (c) it is not (it gets 99, 99).
 */
static int run_placed(FIXTURE_DATA(pl) *self, enum place p, uint32_t v0,
		      uint32_t v1, struct enc *e)
{
	int64_t params[2] = { v0, v1 }, bogus[2] = { 99, 99 };
	struct vmgpu_graph_bindings b = {
		.dispatches = self->d, .num_dispatches = 7,
		.params = params, .num_params = 2,
	};
	struct vmgpu_schedule *s = NULL;
	struct vmgpu_graph *g;
	int i, ret;

	tg_init_data(self->data);
	self->gen_args[2] = v0;
	self->gen_args[3] = v1;
	memset(e, 0, sizeof(*e));
	e->th = self->th;
	e->as = &self->as;
	th_cb_init(&e->cb);
	if (vmgpu_graph_create(&g))
		return -ENOMEM;
	for (i = 0; i <= NBUF; i++)
		vmgpu_graph_resource(g, "buf", self->buf[i], 0);
	switch (p) {
	case HOST:
		ret = vmgpu_graph_run_stream(g, self->words, self->nwords, &b);
		if (!ret)
			ret = vmgpu_graph_compile(g, NULL, &s);
		if (!ret)
			ret = vmgpu_graph_record_ops(g, s, 0, enc_emit, e);
		break;
	case CP:
		ret = vmgpu_graph_run_stream(g, self->words, self->nwords, &b);
		if (!ret)
			ret = vmgpu_graph_record_cp_ops(g, 0, enc_emit, e);
		break;
	default:
		b.params = bogus;
		b.gpu_values = gen_values;
		ret = vmgpu_graph_record_stream_ops(g, self->words,
						    self->nwords, &b, 0,
						    enc_emit, e);
		break;
	}
	if (ret) {
		char msg[256];

		vmgpu_graph_error_message(g, msg, sizeof(msg));
		fprintf(stderr, "# record: %s\n", msg);
	}
	vmgpu_schedule_destroy(s);
	vmgpu_graph_destroy(g);
	if (ret)
		return ret;
	th_cb_end(&e->cb);
	th_cb_submit(self->th, &self->as, 0, &e->cb, 1);
	vg_device_run(self->dev);
	th_ack_all(self->th, 0);
	return 0;
}

static void check_placements(struct __test_metadata *_metadata,
			     FIXTURE_DATA(pl) *self, uint32_t v0, uint32_t v1)
{
	static uint32_t ref[NBUF][N];
	struct enc e;
	int p, b;

	tg_reference(ref, v0, v1);
	for (p = HOST; p <= DEVICE; p++) {
		unsigned int irqs = self->th->irqs[0];

		ASSERT_EQ(0, run_placed(self, p, v0, v1, &e));
		EXPECT_EQ(0, th_rd(self->th, 0,
				   VMGPU_GPU_CNT_LO(VMGPU_CNT_ERRORS)));
		EXPECT_EQ(irqs + 1, self->th->irqs[0]);	/* one, at the end */
		EXPECT_EQ(p == HOST ? 0 : e.next, e.tmds);
		EXPECT_EQ(p == DEVICE, e.skips > 0);
		for (b = 0; b < NBUF; b++)
			EXPECT_EQ(0, memcmp(ref[b], self->data[b], 4 * N)) {
				TH_LOG("placement %c (v0 %u, v1 %u): buffer %d differs",
				       "abc"[p], v0, v1, b);
			}
	}
}

TEST_F(pl, same_results_then_branch)
{
	check_placements(_metadata, self, 3, 2);
}

TEST_F(pl, same_results_else_branch_no_loop)
{
	check_placements(_metadata, self, 1, 0);
}

TEST_F(pl, same_results_loop_at_its_bound)
{
	check_placements(_metadata, self, 2, MAX_LOOP);
}

/*
 * (c): the condition is evaluated by the device. gen writes 0 then 5
 * in two packets recorded once: the command words are the same, the
 * passes that run are not.
 */
TEST_F(pl, device_decides_per_run)
{
	static uint32_t ref[NBUF][N];
	struct enc e1, e2;
	int b;

	ASSERT_EQ(0, run_placed(self, DEVICE, 0, 1, &e1));
	tg_reference(ref, 0, 1);
	for (b = 0; b < NBUF; b++)
		EXPECT_EQ(0, memcmp(ref[b], self->data[b], 4 * N));
	ASSERT_EQ(0, run_placed(self, DEVICE, 3, 3, &e2));
	tg_reference(ref, 3, 3);
	for (b = 0; b < NBUF; b++)
		EXPECT_EQ(0, memcmp(ref[b], self->data[b], 4 * N));
	/* Same commands but for the argument addresses of gen's values. */
	EXPECT_EQ(e1.cb.n, e2.cb.n);
	EXPECT_EQ(e1.skips, e2.skips);
}

/* What (c) cannot express exactly is refused. */
TEST_F(pl, device_refuses_what_it_cannot_express)
{
	static const char *const bad[] = {
		/* bindings changed under a GPU condition */
		"if $0 == 1\n	read 0\nend\nwrite 1\ndispatch 0\n",
		/* a GPU condition inside a pass group */
		"pass\n	if $0 == 1\n	end\n	dispatch 0\nend_pass\n",
	};
	struct vmgpu_graph_gpu_value gv[1] = { { 4, 0, 2 } };
	int64_t params[1] = { 0 };
	struct vmgpu_graph_bindings b = {
		.dispatches = self->d, .num_dispatches = 7,
		.params = params, .num_params = 1, .gpu_values = gv,
	};
	struct vmgpu_graph *g;
	struct enc e;
	uint32_t *w;
	size_t n;
	char err[128];
	unsigned int i;

	memset(&e, 0, sizeof(e));
	th_cb_init(&e.cb);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ASSERT_EQ(0, vmgpu_graph_create(&g));
		for (n = 0; n <= NBUF; n++)
			vmgpu_graph_resource(g, "buf", self->buf[n], 0);
		ASSERT_EQ(0, vmgpu_graph_stream_parse(bad[i], &w, &n, err,
						      sizeof(err)));
		EXPECT_EQ(-EINVAL, vmgpu_graph_record_stream_ops(g, w, n, &b,
								 0, enc_emit,
								 &e));
		/* and the host runner will not guess a GPU value */
		vmgpu_graph_reset(g);
		EXPECT_EQ(-EINVAL, vmgpu_graph_run_stream(g, w, n, &b));
		vmgpu_graph_destroy(g);
		free(w);
	}
}

TEST_HARNESS_MAIN
