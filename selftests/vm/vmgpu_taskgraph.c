// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM selftest: task-graph placements (SPEC T8) through the driver. One
 * format B program, with a condition and a loop on values a kernel
 * writes, recorded (a) scheduled on the host, (b) scheduled by the
 * command processor and (c) built and scheduled on the device: all three
 * leave the buffers as a serial CPU run does; (b) and (c) take one
 * interrupt and the MMIO writes of one submission, none between passes;
 * in (c) the GPU's value includes or skips passes.
 */
#include "kselftest_harness.h"
#include "vmgpu_test_util.h"

#define N		256	/* words per buffer: 4 blocks of 64 */
#define NBUF		4
#define MAX_LOOP	4

/* dst[i] = dst[i] * 3 + src[i] + k */
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

/* Spin, then p[0] = a, p[1] = b. */
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

static const int mix_from[6] = { 0, 1, 2, 1, 0, 3 };
static const int mix_to[6] = { 1, 2, 0, 3, 3, 1 };

static const char program[] =
	"name \"gen\"\nwrite 4\ndispatch 6\ndrop 4\n"
	"name \"a\"\nread 0\nwrite 1\ndispatch 0\ndrop 0\ndrop 1\n"
	"name \"b\"\nread 1\nwrite 2\ndispatch 1\ndrop 1\ndrop 2\n"
	"if $0 >= 2\n"
	"	read 2\n	write 0\n	dispatch 2\n	drop 2\n	drop 0\n"
	"else\n"
	"	read 1\n	write 3\n	dispatch 3\n	drop 1\n	drop 3\n"
	"end\n"
	"loop $1\n"
	"	read 0\n	write 3\n	dispatch 4\n	drop 0\n	drop 3\n"
	"	if $0 == 3\n"
	"		read 3\n	write 1\n	dispatch 5\n	drop 3\n"
	"		drop 1\n"
	"	end\n"
	"end\n"
	"name \"g\"\nread 3\nwrite 1\ndispatch 5\ndrop 3\ndrop 1\n";

enum place { HOST, CP, DEVICE };

FIXTURE(tg) {
	struct vmgpu_device *dev;
	struct vmgpu_context *ctx;
	struct vmgpu_cmdbuf *cb;
	uint32_t syncobj;
	struct vmgpu_bo *mix, *gen, *buf[NBUF + 1];
	uint32_t *data[NBUF + 1];
	uint64_t mix_args[6][3];
	uint32_t gen_args[4];
	struct vmgpu_dispatch_desc d[7];
	uint32_t *words;
	size_t nwords;
};

FIXTURE_SETUP(tg)
{
	char err[128];
	uint64_t va;
	int i;

	ASSERT_EQ(0, vmgpu_device_open(0, &self->dev, NULL, 0));
	ASSERT_EQ(0, vmgpu_context_create(self->dev, VMGPU_PRIORITY_NORMAL,
					  &self->ctx));
	ASSERT_EQ(0, vmgpu_cmdbuf_create(self->dev, &self->cb));
	ASSERT_EQ(0, vmgpu_syncobj_create(self->dev, &self->syncobj));
	self->mix = make_kernel(self->dev, mix_src);
	self->gen = make_kernel(self->dev, gen_src);
	ASSERT_NE(NULL, self->mix);
	ASSERT_NE(NULL, self->gen);
	for (i = 0; i <= NBUF; i++) {
		self->buf[i] = make_bo(self->dev, 4 * N,
				       (void **)&self->data[i]);
		ASSERT_NE(NULL, self->buf[i]);
	}
	for (i = 0; i < 6; i++) {
		self->mix_args[i][0] = vmgpu_bo_gpu_va(self->buf[mix_from[i]]);
		self->mix_args[i][1] = vmgpu_bo_gpu_va(self->buf[mix_to[i]]);
		self->mix_args[i][2] = i + 1;
		memset(&self->d[i], 0, sizeof(self->d[i]));
		self->d[i].kernel = self->mix;
		self->d[i].args = self->mix_args[i];
		self->d[i].args_bytes = 24;
		self->d[i].grid[0] = N / 64;
		self->d[i].block[0] = 64;
	}
	va = vmgpu_bo_gpu_va(self->buf[NBUF]);
	memcpy(self->gen_args, &va, 8);
	memset(&self->d[6], 0, sizeof(self->d[6]));
	self->d[6].kernel = self->gen;
	self->d[6].args = self->gen_args;
	self->d[6].args_bytes = 16;
	ASSERT_EQ(0, vmgpu_graph_stream_parse(program, &self->words,
					      &self->nwords, err,
					      sizeof(err)));
}

FIXTURE_TEARDOWN(tg)
{
	int i;

	free(self->words);
	for (i = 0; i <= NBUF; i++)
		vmgpu_bo_destroy(self->buf[i]);
	vmgpu_bo_destroy(self->mix);
	vmgpu_bo_destroy(self->gen);
	vmgpu_syncobj_destroy(self->dev, self->syncobj);
	vmgpu_cmdbuf_destroy(self->cb);
	vmgpu_context_destroy(self->ctx);
	vmgpu_device_close(self->dev);
}

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
			out[mix_to[seq[k]]][i] = out[mix_to[seq[k]]][i] * 3 +
						 out[mix_from[seq[k]]][i] +
						 seq[k] + 1;
}

struct counts {
	uint64_t irqs, mmio, dispatches;
};

static int read_counts(struct vmgpu_device *dev, struct counts *c)
{
	return vmgpu_gpu_counter(dev, 0, "hw_interrupts", &c->irqs) ||
	       vmgpu_gpu_counter(dev, 0, "hw_mmio_writes", &c->mmio) ||
	       vmgpu_gpu_counter(dev, 0, "hw_dispatches", &c->dispatches);
}

/* Record the program placed @p (gen writes v0, v1), submit, wait. */
static int run_placed(FIXTURE_DATA(tg) *self, enum place p, uint32_t v0,
		      uint32_t v1)
{
	struct vmgpu_graph_gpu_value gv[2] = {
		{ 4, 0, MAX_LOOP }, { 4, 4, MAX_LOOP },
	};
	int64_t params[2] = { v0, v1 }, bogus[2] = { 99, 99 };
	struct vmgpu_graph_bindings b = {
		.dispatches = self->d, .num_dispatches = 7,
		.params = params, .num_params = 2,
	};
	struct vmgpu_sync out = { .handle = self->syncobj };
	struct vmgpu_submit_info si = { .gpu = 0, .out = &out,
					.out_count = 1 };
	struct vmgpu_schedule *s = NULL;
	struct vmgpu_graph *g;
	char msg[256];
	int i, ret;

	for (i = 0; i < NBUF; i++)
		for (ret = 0; ret < N; ret++)
			self->data[i][ret] = (uint32_t)(i * 1000 + ret * 7 + 1);
	memset(self->data[NBUF], 0, 4 * N);
	self->gen_args[2] = v0;
	self->gen_args[3] = v1;
	if (vmgpu_graph_create(&g))
		return -ENOMEM;
	for (i = 0; i <= NBUF; i++)
		vmgpu_graph_resource(g, "buf", self->buf[i], 0);
	if (p == DEVICE) {
		b.params = bogus;
		b.gpu_values = gv;
		ret = vmgpu_graph_record_stream(g, self->words, self->nwords,
						&b, self->cb);
	} else {
		ret = vmgpu_graph_run_stream(g, self->words, self->nwords, &b);
		if (!ret && p == HOST)
			ret = vmgpu_graph_compile(g, NULL, &s);
		if (!ret && p == HOST)
			ret = vmgpu_graph_record(g, s, self->cb);
		else if (!ret)
			ret = vmgpu_graph_record_cp(g, self->cb);
	}
	if (ret) {
		vmgpu_graph_error_message(g, msg, sizeof(msg));
		fprintf(stderr, "# record: %s\n", msg);
	}
	vmgpu_schedule_destroy(s);
	vmgpu_graph_destroy(g);
	if (!ret)
		ret = vmgpu_submit(self->ctx, self->cb, &si);
	if (ret >= 0)
		ret = vmgpu_syncobj_wait(self->dev, self->syncobj, 0,
					 60 * SEC_NS);
	vmgpu_cmdbuf_reset(self->cb);
	return ret;
}

/* MMIO writes and interrupts of a one-dispatch packet (after a first). */
static void one_packet(struct __test_metadata *_metadata,
		       FIXTURE_DATA(tg) *self, struct counts *one)
{
	struct vmgpu_sync out = { .handle = self->syncobj };
	struct vmgpu_submit_info si = { .gpu = 0, .out = &out,
					.out_count = 1 };
	struct counts c0, c1;
	int i;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, read_counts(self->dev, &c0));
		ASSERT_LE(0, vmgpu_cmdbuf_dispatch(self->cb, &self->d[6]));
		ASSERT_LE(0, vmgpu_submit(self->ctx, self->cb, &si));
		ASSERT_EQ(0, vmgpu_syncobj_wait(self->dev, self->syncobj, 0,
						60 * SEC_NS));
		vmgpu_cmdbuf_reset(self->cb);
		ASSERT_EQ(0, read_counts(self->dev, &c1));
	}
	one->irqs = c1.irqs - c0.irqs;
	one->mmio = c1.mmio - c0.mmio;
}

static void check(struct __test_metadata *_metadata, FIXTURE_DATA(tg) *self,
		  uint32_t v0, uint32_t v1)
{
	static uint32_t ref[NBUF][N];
	struct counts c0, c1, one;
	int p, b;

	one_packet(_metadata, self, &one);
	ASSERT_EQ(1, one.irqs);
	reference(ref, v0, v1);
	for (p = HOST; p <= DEVICE; p++) {
		ASSERT_EQ(0, read_counts(self->dev, &c0));
		ASSERT_EQ(0, run_placed(self, p, v0, v1));
		ASSERT_EQ(0, read_counts(self->dev, &c1));
		for (b = 0; b < NBUF; b++)
			EXPECT_EQ(0, memcmp(ref[b], self->data[b], 4 * N)) {
				TH_LOG("placement %c (%u, %u): buffer %d differs",
				       "abc"[p], v0, v1, b);
			}
		/*
		 * Every pass in one packet: one interrupt and the MMIO
		 * writes of a one-dispatch packet, none between passes.
		 */
		EXPECT_EQ(1, c1.irqs - c0.irqs);
		EXPECT_EQ(one.mmio, c1.mmio - c0.mmio) {
			TH_LOG("placement %c: %llu MMIO writes, one packet %llu",
			       "abc"[p],
			       (unsigned long long)(c1.mmio - c0.mmio),
			       (unsigned long long)one.mmio);
		}
	}
}

TEST_F(tg, placements_same_results_then_branch)
{
	check(_metadata, self, 3, 2);
}

TEST_F(tg, placements_same_results_else_branch)
{
	check(_metadata, self, 1, 0);
}

/*
 * (c) recorded once per run with the host not knowing the values: the
 * GPU's value decides which passes run (hw_dispatches counts those that
 * ran: 1 gen + a, b + one branch + the loop's + g).
 */
TEST_F(tg, gpu_value_includes_or_skips_passes)
{
	static uint32_t ref[NBUF][N];
	struct counts c0, c1;
	int b;

	ASSERT_EQ(0, read_counts(self->dev, &c0));
	ASSERT_EQ(0, run_placed(self, DEVICE, 0, 0));
	ASSERT_EQ(0, read_counts(self->dev, &c1));
	reference(ref, 0, 0);
	for (b = 0; b < NBUF; b++)
		EXPECT_EQ(0, memcmp(ref[b], self->data[b], 4 * N));
	EXPECT_EQ(5, c1.dispatches - c0.dispatches);

	ASSERT_EQ(0, read_counts(self->dev, &c0));
	ASSERT_EQ(0, run_placed(self, DEVICE, 3, 4));
	ASSERT_EQ(0, read_counts(self->dev, &c1));
	reference(ref, 3, 4);
	for (b = 0; b < NBUF; b++)
		EXPECT_EQ(0, memcmp(ref[b], self->data[b], 4 * N));
	EXPECT_EQ(13, c1.dispatches - c0.dispatches);
}

TEST_HARNESS_MAIN
