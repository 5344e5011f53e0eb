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
#include "../taskgraph_cases.h"
#include "vmgpu/graph.h"

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
	tg_dispatches(self->d, self->mix, self->gen, self->buf, self->mix_args,
		      self->gen_args);
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

	tg_init_data(self->data);
	self->gen_args[2] = v0;
	self->gen_args[3] = v1;
	if (vmgpu_graph_create(&g))
		return -ENOMEM;
	for (i = 0; i <= NBUF; i++)
		vmgpu_graph_resource(g, "buf", self->buf[i], 0);
	if (p == DEVICE) {
		b.params = bogus;
		b.gpu_values = gen_values;
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
	tg_reference(ref, v0, v1);
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
	tg_reference(ref, 0, 0);
	for (b = 0; b < NBUF; b++)
		EXPECT_EQ(0, memcmp(ref[b], self->data[b], 4 * N));
	EXPECT_EQ(5, c1.dispatches - c0.dispatches);

	ASSERT_EQ(0, read_counts(self->dev, &c0));
	ASSERT_EQ(0, run_placed(self, DEVICE, 3, 4));
	ASSERT_EQ(0, read_counts(self->dev, &c1));
	tg_reference(ref, 3, 4);
	for (b = 0; b < NBUF; b++)
		EXPECT_EQ(0, memcmp(ref[b], self->data[b], 4 * N));
	EXPECT_EQ(13, c1.dispatches - c0.dispatches);
}

TEST_HARNESS_MAIN
