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

#include "shim_internal.h"
#include "testhost.h"
#include "vmgpu.h"
#include "vmgpu_cmd.h"

#define VA0		0x20000000ull
#define RW		(VMGPU_PTE_READ | VMGPU_PTE_WRITE)
#define N		256		/* words per buffer: 4 blocks of 64 */
#define NBUF		4

/* dst[i] = dst[i] * 3 + src[i] + k: order matters for every hazard. */
static const char mix_src[] =
	".args 24\n"
	"	ldarg.64 r0, 0\n"
	"	ldarg.64 r2, 8\n"
	"	ldarg r4, 16\n"
	"	s2r r5, %ctaid.x\n"
	"	s2r r6, %ntid.x\n"
	"	s2r r7, %tid.x\n"
	"	mad r8, r5, r6, r7\n"
	"	lea r10, r0, r8, 2\n"
	"	ld.32 r12, [r10]\n"
	"	lea r10, r2, r8, 2\n"
	"	ld.32 r13, [r10]\n"
	"	mul r13, r13, 3\n"
	"	add r13, r13, r12\n"
	"	add r13, r13, r4\n"
	"	st.32 [r10], r13\n"
	"	exit\n";

/* Spin, then p[0] = a, p[1] = b: values the GPU produces late. */
static const char gen_src[] =
	".args 16\n"
	"	mov r0, 0\n"
	"loop:\n"
	"	add r0, r0, 1\n"
	"	setp.lt p0, r0, 3000\n"
	"	bra p0, loop\n"
	"	ldarg.64 r2, 0\n"
	"	ldarg r4, 8\n"
	"	ldarg r5, 12\n"
	"	st.32 [r2], r4\n"
	"	st.32 [r2 + 4], r5\n"
	"	exit\n";

/*
 * Resources 0..3 are the data buffers, 4 the values' buffer. Dispatch
 * D is mix(src[D], dst[D], D + 1) below; dispatch 6 is gen.
 */
static const int mix_src_buf[6] = { 0, 1, 2, 1, 0, 3 };
static const int mix_dst_buf[6] = { 1, 2, 0, 3, 3, 1 };

static const char program[] =
	"name \"gen\"\n"
	"write 4\n"
	"dispatch 6\n"
	"drop 4\n"
	"name \"a\"\nread 0\nwrite 1\ndispatch 0\ndrop 0\ndrop 1\n"
	"name \"b\"\nread 1\nwrite 2\ndispatch 1\ndrop 1\ndrop 2\n"
	"if $0 >= 2\n"
	"	name \"c\"\n"
	"	read 2\n	write 0\n	dispatch 2\n	drop 2\n	drop 0\n"
	"else\n"
	"	name \"d\"\n"
	"	read 1\n	write 3\n	dispatch 3\n	drop 1\n	drop 3\n"
	"end\n"
	"loop $1\n"
	"	name \"e\"\n"
	"	read 0\n	write 3\n	dispatch 4\n	drop 0\n	drop 3\n"
	"	if $0 == 3\n"
	"		name \"f\"\n"
	"		read 3\n	write 1\n	dispatch 5\n	drop 3\n"
	"		drop 1\n"
	"	end\n"
	"end\n"
	"name \"g\"\nread 3\nwrite 1\ndispatch 5\ndrop 3\ndrop 1\n";

#define MAX_LOOP	4

FIXTURE(pl) {
	struct testhost *th;
	struct vg_device *dev;
	struct th_as as;
	struct vmgpu_bo mix, gen, buf[NBUF + 1];
	uint32_t *data[NBUF + 1];
	uint64_t mix_args[6][3];
	uint32_t gen_args[4];
	struct vmgpu_dispatch_desc d[7];
	int res[NBUF + 1];
	uint32_t *words;
	size_t nwords;
};

static void fake_bo(struct vmgpu_bo *bo, uint64_t va, uint64_t size)
{
	memset(bo, 0, sizeof(*bo));
	bo->gpu_va = va;
	bo->size = size;
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
	fake_bo(&self->mix, th_kernel(self->th, &self->as, mix_src), 4096);
	fake_bo(&self->gen, th_kernel(self->th, &self->as, gen_src), 4096);
	for (i = 0; i <= NBUF; i++) {
		va = th_as_alloc(self->th, &self->as, 4 * N, RW);
		fake_bo(&self->buf[i], va, 4 * N);
		self->data[i] = th_va(self->th, &self->as, va);
	}
	for (i = 0; i < 6; i++) {
		self->mix_args[i][0] = self->buf[mix_src_buf[i]].gpu_va;
		self->mix_args[i][1] = self->buf[mix_dst_buf[i]].gpu_va;
		self->mix_args[i][2] = i + 1;
		memset(&self->d[i], 0, sizeof(self->d[i]));
		self->d[i].kernel = &self->mix;
		self->d[i].args = self->mix_args[i];
		self->d[i].args_bytes = 24;
		self->d[i].grid[0] = N / 64;
		self->d[i].block[0] = 64;
	}
	memset(&self->d[6], 0, sizeof(self->d[6]));
	memcpy(self->gen_args, &self->buf[NBUF].gpu_va, 8);
	self->d[6].kernel = &self->gen;
	self->d[6].args = self->gen_args;
	self->d[6].args_bytes = 16;
	ASSERT_EQ(0, vmgpu_graph_stream_parse(program, &self->words,
					      &self->nwords, err,
					      sizeof(err))) {
		TH_LOG("%s", err);
	}
}

FIXTURE_TEARDOWN(pl)
{
	free(self->words);
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
			th_cb_dispatch(&e->cb, d->kernel->gpu_va, args,
				       d->args_bytes, grid, block, 0, 0);
			return (int)e->next++;
		}
		memset(&t, 0, sizeof(t));
		t.code_va = d->kernel->gpu_va;
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
		s = vmgpu_encode_skip_if(o->dst_bo->gpu_va + o->dst_offset,
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

static void init_data(FIXTURE_DATA(pl) *self)
{
	int b, i;

	for (b = 0; b < NBUF; b++)
		for (i = 0; i < N; i++)
			self->data[b][i] = (uint32_t)(b * 1000 + i * 7 + 1);
	memset(self->data[NBUF], 0, 4 * N);
}

/* The program run serially on the CPU with the values v0, v1. */
static void reference(uint32_t out[NBUF][N], uint32_t v0, uint32_t v1)
{
	uint32_t seq[16], n = 0, k, b, i;

	for (b = 0; b < NBUF; b++)
		for (i = 0; i < N; i++)
			out[b][i] = (uint32_t)(b * 1000 + i * 7 + 1);
	seq[n++] = 0;
	seq[n++] = 1;
	seq[n++] = v0 >= 2 ? 2 : 3;
	for (k = 0; k < v1; k++) {
		seq[n++] = 4;
		if (v0 == 3)
			seq[n++] = 5;
	}
	seq[n++] = 5;
	for (k = 0; k < n; k++)
		for (i = 0; i < N; i++)
			out[mix_dst_buf[seq[k]]][i] =
				out[mix_dst_buf[seq[k]]][i] * 3 +
				out[mix_src_buf[seq[k]]][i] + seq[k] + 1;
}

enum place { HOST, CP, DEVICE };

/*
 * Run the program placed @p, gen writing v0, v1. For (a) and (b) the
 * host is told the values; for (c) it is not (it gets 99, 99).
 */
static int run_placed(FIXTURE_DATA(pl) *self, enum place p, uint32_t v0,
		      uint32_t v1, struct enc *e)
{
	struct vmgpu_graph_gpu_value gv[2] = {
		{ 4, 0, MAX_LOOP }, { 4, 4, MAX_LOOP },
	};
	int64_t params[2] = { v0, v1 }, bogus[2] = { 99, 99 };
	struct vmgpu_graph_bindings b = {
		.dispatches = self->d, .num_dispatches = 7,
		.params = params, .num_params = 2,
	};
	struct vmgpu_schedule *s = NULL;
	struct vmgpu_graph *g;
	int i, ret;

	init_data(self);
	self->gen_args[2] = v0;
	self->gen_args[3] = v1;
	memset(e, 0, sizeof(*e));
	e->th = self->th;
	e->as = &self->as;
	th_cb_init(&e->cb);
	if (vmgpu_graph_create(&g))
		return -ENOMEM;
	for (i = 0; i <= NBUF; i++)
		vmgpu_graph_resource(g, "buf", &self->buf[i], 0);
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
		b.gpu_values = gv;
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

	reference(ref, v0, v1);
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
	reference(ref, 0, 1);
	for (b = 0; b < NBUF; b++)
		EXPECT_EQ(0, memcmp(ref[b], self->data[b], 4 * N));
	ASSERT_EQ(0, run_placed(self, DEVICE, 3, 3, &e2));
	reference(ref, 3, 3);
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
			vmgpu_graph_resource(g, "buf", &self->buf[n], 0);
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
