// SPDX-License-Identifier: GPL-2.0-only
/*
 * Task graphs (SPEC T1-T7, libshim/taskgraph/): the design's Figure 8a
 * graph gives the schedules of Figure 8b as resources allow; WAR and WAW
 * are ordered; format A and format B give the same graph; the text form
 * round-trips; a compiled schedule records the same command words again.
 * Feedback (T5) reaches the best schedule of skewed passes and keeps it
 * through noise; transients that share memory (T6) never live at once;
 * a split pass (T7) gives the results of the whole one. Random programs
 * against serial execution: test_taskgraph_random.c.
 *
 * The recording goes through the library's callback interface into the
 * encoder of testgraph.h (the device's command words, uapi/vmgpu_cmd.h),
 * so no device is needed.
 */
#include "testgraph.h"
#include "vmgpu/graph.h"

/* ---- Figure 8 ---- */

/*
 * Figure 8a: P1 reads R1 writes R2; P2, P3, P4 read R2 and write R3, R4,
 * R5; P5 reads R3-R5 writes R6. Every pass is one dispatch of 8 blocks of
 * 128 threads: 1024 threads, its needs derived from the dispatch.
 */
static void figure8(struct __test_metadata *_metadata, struct vmgpu_graph *g)
{
	struct vmgpu_dispatch_desc d = {
		.grid = { 8 }, .block = { 128 },
	};
	char name[16];
	int r[7], i;

	for (i = 1; i <= 6; i++) {
		snprintf(name, sizeof(name), "R%d", i);
		r[i] = vmgpu_graph_resource(g, name, NULL, 4096);
		ASSERT_EQ(i - 1, r[i]);
	}
	ASSERT_EQ(0, vmgpu_graph_pass_begin(g, "P1"));
	ASSERT_EQ(0, vmgpu_graph_pass_read(g, r[1]));
	ASSERT_EQ(0, vmgpu_graph_pass_write(g, r[2]));
	ASSERT_EQ(0, vmgpu_graph_pass_dispatch(g, &d));
	ASSERT_EQ(0, vmgpu_graph_pass_end(g));
	for (i = 2; i <= 4; i++) {
		snprintf(name, sizeof(name), "P%d", i);
		ASSERT_EQ(i - 1, vmgpu_graph_pass_begin(g, name));
		ASSERT_EQ(0, vmgpu_graph_pass_read(g, r[2]));
		ASSERT_EQ(0, vmgpu_graph_pass_write(g, r[i + 1]));
		ASSERT_EQ(0, vmgpu_graph_pass_dispatch(g, &d));
		ASSERT_EQ(0, vmgpu_graph_pass_end(g));
	}
	ASSERT_EQ(4, vmgpu_graph_pass_begin(g, "P5"));
	for (i = 3; i <= 5; i++)
		ASSERT_EQ(0, vmgpu_graph_pass_read(g, r[i]));
	ASSERT_EQ(0, vmgpu_graph_pass_write(g, r[6]));
	ASSERT_EQ(0, vmgpu_graph_pass_dispatch(g, &d));
	ASSERT_EQ(0, vmgpu_graph_pass_end(g));
}

/* Stages as text: "0|1 2 3|4" (0-based passes). */
static void stages_text(struct vmgpu_schedule *s, char *buf, size_t len)
{
	uint32_t passes[64];
	int n, i, k, at = 0;

	buf[0] = 0;
	n = vmgpu_schedule_stage_count(s);
	for (i = 0; i < n; i++) {
		int m = vmgpu_schedule_stage(s, i, passes, 64);

		for (k = 0; k < m; k++)
			at += snprintf(buf + at, len - at, "%s%u",
				       k ? " " : i ? "|" : "", passes[k]);
	}
}

TEST(figure8_schedules)
{
	/* 4 SMs of 256 * k threads: k passes of 1024 threads fit. */
	static const struct {
		uint32_t fit;
		const char *stages;
		uint32_t syncs;
	} cases[] = {
		{ 3, "0|1 2 3|4", 6 },
		{ 2, "0|1 2|3|4", 5 },
		{ 1, "0|1|2|3|4", 4 },
	};
	struct vmgpu_graph_dep w[8];
	struct vmgpu_schedule *s;
	struct vmgpu_graph *g;
	static struct rec r;
	char buf[128];
	unsigned int c;

	ASSERT_EQ(0, vmgpu_graph_create(&g));
	figure8(_metadata, g);
	for (c = 0; c < 3; c++) {
		struct vmgpu_graph_limits lim = {
			.sms = 4, .sm_threads = 256 * cases[c].fit,
			.sm_blocks = 32, .sm_regs = 65536,
			.sm_shared_bytes = 48 * 1024,
		};

		ASSERT_EQ(0, vmgpu_graph_compile(g, &lim, &s));
		stages_text(s, buf, sizeof(buf));
		EXPECT_STREQ(cases[c].stages, buf);
		ASSERT_EQ(0, record(g, s, &r));
		/* Syncs only, never a barrier; exactly the waits. */
		EXPECT_EQ(0, r.barriers);
		EXPECT_EQ(cases[c].syncs, r.syncs);
		EXPECT_EQ(5, r.dispatches);
		/* P2-P4 after P1 (or after each other when serial). */
		if (cases[c].fit == 3) {
			EXPECT_EQ(1, sync_between(&r, 1, 0));
			EXPECT_EQ(1, sync_between(&r, 2, 0));
			EXPECT_EQ(1, sync_between(&r, 3, 0));
			EXPECT_EQ(1, sync_between(&r, 4, 1));
			EXPECT_EQ(1, sync_between(&r, 4, 2));
			EXPECT_EQ(1, sync_between(&r, 4, 3));
			ASSERT_EQ(1, vmgpu_schedule_waits(s, 1, w, 8));
			EXPECT_EQ(0, w[0].pass);
			EXPECT_EQ(VMGPU_DEP_RAW, w[0].kinds);
		} else if (cases[c].fit == 2) {
			/* P4 waits for the stage before (room), P5 for P4. */
			ASSERT_EQ(2, vmgpu_schedule_waits(s, 3, w, 8));
			EXPECT_EQ(1, w[0].pass);
			EXPECT_EQ(VMGPU_DEP_STAGE, w[0].kinds);
			EXPECT_EQ(2, w[1].pass);
			EXPECT_EQ(1, sync_between(&r, 3, 1));
			EXPECT_EQ(1, sync_between(&r, 3, 2));
			EXPECT_EQ(1, sync_between(&r, 4, 3));
			ASSERT_EQ(1, vmgpu_schedule_waits(s, 4, w, 8));
			EXPECT_EQ(VMGPU_DEP_RAW, w[0].kinds);
		} else {
			EXPECT_EQ(1, sync_between(&r, 2, 1));
			EXPECT_EQ(1, sync_between(&r, 3, 2));
			EXPECT_EQ(1, sync_between(&r, 4, 3));
		}
		vmgpu_schedule_destroy(s);
	}
	/* No limits: all of P2-P4 overlap. */
	ASSERT_EQ(0, vmgpu_graph_compile(g, NULL, &s));
	stages_text(s, buf, sizeof(buf));
	EXPECT_STREQ("0|1 2 3|4", buf);
	vmgpu_schedule_destroy(s);
	vmgpu_graph_destroy(g);
}

/* Other dimensions: registers, shared memory and memory limit overlap. */
TEST(fit_rule_dimensions)
{
	struct vmgpu_graph_limits lim = { .sms = 2 };
	struct vmgpu_graph_needs n = { .blocks = 1, .threads = 32,
				       .regs = 1000 };
	struct vmgpu_schedule *s;
	struct vmgpu_graph *g;
	char buf[128];
	int r0, i;

	/* Explicit needs: 3 x 1000 registers fit in 2 x 1500, 2 do not. */
	lim.sm_regs = 1500;
	ASSERT_EQ(0, vmgpu_graph_create(&g));
	r0 = vmgpu_graph_resource(g, "in", NULL, 100);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(i, vmgpu_graph_pass_begin(g, "x"));
		ASSERT_EQ(0, vmgpu_graph_pass_read(g, r0));
		ASSERT_EQ(0, vmgpu_graph_pass_needs(g, &n));
		ASSERT_EQ(0, vmgpu_graph_pass_end(g));
	}
	ASSERT_EQ(0, vmgpu_graph_compile(g, &lim, &s));
	stages_text(s, buf, sizeof(buf));
	EXPECT_STREQ("0 1 2", buf);
	vmgpu_schedule_destroy(s);
	lim.sm_regs = 1400;
	ASSERT_EQ(0, vmgpu_graph_compile(g, &lim, &s));
	stages_text(s, buf, sizeof(buf));
	EXPECT_STREQ("0 1|2", buf);
	vmgpu_schedule_destroy(s);
	/* Memory: the resource read by all counts once. */
	lim.sm_regs = 0;
	lim.memory_bytes = 100;
	ASSERT_EQ(0, vmgpu_graph_compile(g, &lim, &s));
	stages_text(s, buf, sizeof(buf));
	EXPECT_STREQ("0 1 2", buf);
	vmgpu_schedule_destroy(s);
	lim.memory_bytes = 99;	/* one pass alone still runs */
	ASSERT_EQ(0, vmgpu_graph_compile(g, &lim, &s));
	stages_text(s, buf, sizeof(buf));
	EXPECT_STREQ("0|1|2", buf);
	vmgpu_schedule_destroy(s);
	vmgpu_graph_destroy(g);
}

/*
 * T4, units paired: two copy passes and two compute passes, each compute
 * pass filling the SMs. Each stage takes one compute pass and one copy
 * (the copy engine runs one copy at a time), not both copies beside the
 * first compute pass.
 */
TEST(copy_passes_pair_with_compute_passes)
{
	struct vmgpu_graph_limits lim = { .sms = 1, .sm_threads = 1024 };
	struct vmgpu_graph_needs full = { .blocks = 1, .threads = 1024 };
	struct vmgpu_schedule *s;
	struct vmgpu_graph *g;
	char buf[128];
	int r[6], i;

	ASSERT_EQ(0, vmgpu_graph_create(&g));
	for (i = 0; i < 6; i++)
		r[i] = vmgpu_graph_resource(g, "r", NULL, 4096);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(i, vmgpu_graph_pass_begin(g, "compute"));
		ASSERT_EQ(0, vmgpu_graph_pass_write(g, r[i]));
		ASSERT_EQ(0, vmgpu_graph_pass_needs(g, &full));
		ASSERT_EQ(0, vmgpu_graph_pass_end(g));
	}
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(2 + i, vmgpu_graph_pass_begin(g, "copy"));
		ASSERT_EQ(0, vmgpu_graph_pass_read(g, r[2 + 2 * i]));
		ASSERT_EQ(0, vmgpu_graph_pass_write(g, r[3 + 2 * i]));
		ASSERT_EQ(0, vmgpu_graph_pass_copy(g, r[2 + 2 * i], 0,
						   r[3 + 2 * i], 0, 4096));
		ASSERT_EQ(0, vmgpu_graph_pass_end(g));
	}
	ASSERT_EQ(0, vmgpu_graph_compile(g, &lim, &s));
	stages_text(s, buf, sizeof(buf));
	EXPECT_STREQ("0 2|1 3", buf);
	vmgpu_schedule_destroy(s);
	vmgpu_graph_destroy(g);
}

/* Needs derived from a real kernel's header (registers, shared memory). */
TEST(needs_from_kernel_header)
{
	const char *src =
		".args 8\n.shared 256\n"
		"\tmov r9, 1\n\texit\n";
	struct vmgpu_dispatch_desc d = {
		.grid = { 4, 2 }, .block = { 64 }, .shared_bytes = 128,
	};
	struct vmgpu_graph_needs n;
	struct vmgpu_exec_header h;
	char err[128];
	size_t bytes;
	void *img;

	ASSERT_EQ(0, vmgpu_asm_assemble(src, &img, &bytes, err, sizeof(err)))
		TH_LOG("%s", err);
	memcpy(&h, img, sizeof(h));
	ASSERT_EQ(0, vmgpu_dispatch_needs(img, bytes, &d, &n));
	EXPECT_EQ(8, n.blocks);
	EXPECT_EQ(512, n.threads);
	EXPECT_EQ(512ull * h.num_regs, n.regs);
	EXPECT_GE(h.num_regs, 10);
	EXPECT_EQ(8ull * (h.shared_bytes + 128), n.shared_bytes);
	EXPECT_EQ(256, h.shared_bytes);
	EXPECT_EQ(-EINVAL, vmgpu_dispatch_needs(img, 4, &d, &n));
	free(img);
}

/* ---- WAR and WAW ---- */

static int pass_rw(struct vmgpu_graph *g, const char *name, int rd, int wr)
{
	static const struct vmgpu_dispatch_desc d = { .grid = { 1 } };
	int p = vmgpu_graph_pass_begin(g, name);

	if (rd >= 0)
		vmgpu_graph_pass_read(g, rd);
	if (wr >= 0)
		vmgpu_graph_pass_write(g, wr);
	vmgpu_graph_pass_dispatch(g, &d);
	vmgpu_graph_pass_end(g);
	return p;
}

TEST(war_and_waw_ordered)
{
	struct vmgpu_graph_dep dep[8];
	struct vmgpu_schedule *s;
	struct vmgpu_graph *g;
	static struct rec r;
	int a, b, p0, p1, p2, p3, p4;

	ASSERT_EQ(0, vmgpu_graph_create(&g));
	a = vmgpu_graph_resource(g, "A", NULL, 64);
	b = vmgpu_graph_resource(g, "B", NULL, 64);
	p0 = pass_rw(g, "w0", -1, a);		/* writes A */
	p1 = pass_rw(g, "r1", a, -1);		/* reads A */
	p2 = pass_rw(g, "r2", a, b);		/* reads A */
	p3 = pass_rw(g, "w3", -1, a);		/* WAR on r1, r2; WAW on w0 */
	p4 = pass_rw(g, "w4", -1, a);		/* WAW on w3 only */
	ASSERT_EQ(3, vmgpu_graph_pass_deps(g, p3, dep, 8));
	EXPECT_EQ(p0, dep[0].pass);
	EXPECT_EQ(VMGPU_DEP_WAW, dep[0].kinds);
	EXPECT_EQ(p1, dep[1].pass);
	EXPECT_EQ(VMGPU_DEP_WAR, dep[1].kinds);
	EXPECT_EQ(p2, dep[2].pass);
	EXPECT_EQ(VMGPU_DEP_WAR, dep[2].kinds);
	ASSERT_EQ(1, vmgpu_graph_pass_deps(g, p4, dep, 8));
	EXPECT_EQ(p3, dep[0].pass);
	EXPECT_EQ(VMGPU_DEP_WAW, dep[0].kinds);

	ASSERT_EQ(0, vmgpu_graph_compile(g, NULL, &s));
	/* w3 waits for both readers (w0 is implied by them). */
	ASSERT_EQ(2, vmgpu_schedule_waits(s, p3, dep, 8));
	EXPECT_EQ(p1, dep[0].pass);
	EXPECT_EQ(p2, dep[1].pass);
	EXPECT_LT(vmgpu_schedule_pass_stage(s, p1),
		  vmgpu_schedule_pass_stage(s, p3));
	EXPECT_LT(vmgpu_schedule_pass_stage(s, p3),
		  vmgpu_schedule_pass_stage(s, p4));
	/* r1 and r2 read the same version: they overlap. */
	EXPECT_EQ(vmgpu_schedule_pass_stage(s, p1),
		  vmgpu_schedule_pass_stage(s, p2));
	ASSERT_EQ(0, record(g, s, &r));
	EXPECT_EQ(1, sync_between(&r, p3, p1));
	EXPECT_EQ(1, sync_between(&r, p3, p2));
	EXPECT_EQ(1, sync_between(&r, p4, p3));
	EXPECT_EQ(0, r.barriers);
	vmgpu_schedule_destroy(s);

	/* A pass reading and writing one resource: RAW and WAW at once. */
	p0 = pass_rw(g, "rw", a, a);
	ASSERT_EQ(1, vmgpu_graph_pass_deps(g, p0, dep, 8));
	EXPECT_EQ(p4, dep[0].pass);
	EXPECT_EQ(VMGPU_DEP_RAW | VMGPU_DEP_WAW, dep[0].kinds);
	vmgpu_graph_destroy(g);
}

/* A copy after a dispatch it depends on gets a BARRIER; a clear too. */
TEST(copy_and_clear_barriers)
{
	static const struct vmgpu_dispatch_desc d = { .grid = { 1 } };
	struct vmgpu_schedule *s;
	struct vmgpu_graph *g;
	static struct rec r;
	uint32_t i, writes = 0, copies = 0;
	char msg[200];
	int a, b, c;

	ASSERT_EQ(0, vmgpu_graph_create(&g));
	a = vmgpu_graph_resource(g, "A", NULL, 4096);
	b = vmgpu_graph_resource(g, "B", NULL, 4096);
	c = vmgpu_graph_resource(g, "C", NULL, 4096);
	pass_rw(g, "produce", -1, a);
	ASSERT_EQ(1, vmgpu_graph_pass_begin(g, "copy"));
	ASSERT_EQ(0, vmgpu_graph_pass_read(g, a));
	ASSERT_EQ(0, vmgpu_graph_pass_write(g, b));
	ASSERT_EQ(0, vmgpu_graph_pass_copy(g, a, 0, b, 0, 4096));
	ASSERT_EQ(0, vmgpu_graph_pass_end(g));
	ASSERT_EQ(2, vmgpu_graph_pass_begin(g, "clear"));
	ASSERT_EQ(0, vmgpu_graph_pass_write(g, c));
	ASSERT_EQ(0, vmgpu_graph_pass_clear(g, c, 0, 1000, 7));
	ASSERT_EQ(0, vmgpu_graph_pass_dispatch(g, &d));
	ASSERT_EQ(0, vmgpu_graph_pass_end(g));
	/* Errors: ranges, alignment, undeclared resources. */
	ASSERT_EQ(3, vmgpu_graph_pass_begin(g, "bad"));
	EXPECT_EQ(-EINVAL, vmgpu_graph_pass_clear(g, c, 2, 8, 0));
	EXPECT_EQ(-EINVAL, vmgpu_graph_pass_copy(g, a, 0, b, 1, 4096));
	EXPECT_EQ(-EINVAL, vmgpu_graph_pass_copy(g, a, 0, a, 8, 16));
	EXPECT_EQ(-EINVAL, vmgpu_graph_pass_read(g, 9));
	EXPECT_EQ(0, vmgpu_graph_pass_copy(g, a, 0, b, 0, 8));
	EXPECT_EQ(-EINVAL, vmgpu_graph_pass_end(g));
	vmgpu_graph_error_message(g, msg, sizeof(msg));
	EXPECT_NE(NULL, strstr(msg, "copies from resource 'A'"))
		TH_LOG("%s", msg);
	EXPECT_EQ(-EINVAL, vmgpu_graph_compile(g, NULL, &s));
	vmgpu_graph_reset(g);
	EXPECT_EQ(0, vmgpu_graph_pass_count(g));
	EXPECT_EQ(3, vmgpu_graph_resource_count(g));

	pass_rw(g, "produce", -1, a);
	vmgpu_graph_pass_begin(g, "copy");
	vmgpu_graph_pass_read(g, a);
	vmgpu_graph_pass_write(g, b);
	vmgpu_graph_pass_copy(g, a, 0, b, 0, 4096);
	vmgpu_graph_pass_end(g);
	vmgpu_graph_pass_begin(g, "clear");
	vmgpu_graph_pass_write(g, c);
	vmgpu_graph_pass_clear(g, c, 0, 1000, 7);
	vmgpu_graph_pass_dispatch(g, &d);
	ASSERT_EQ(0, vmgpu_graph_pass_end(g));
	ASSERT_EQ(0, vmgpu_graph_compile(g, NULL, &s));
	ASSERT_EQ(0, record(g, s, &r));
	/* One barrier (before the copy); the clear waits for nothing. */
	EXPECT_EQ(1, r.barriers);
	EXPECT_EQ(0, r.syncs);
	for (i = 0; i < r.nops; i++) {
		writes += r.ops[i].type == VMGPU_GRAPH_OP_WRITE_VALUE;
		copies += r.ops[i].type == VMGPU_GRAPH_OP_COPY;
	}
	/* 1000 bytes: one word written, then 4, 8, ... 488 bytes copied. */
	EXPECT_EQ(1, writes);
	EXPECT_EQ(1 + 8, copies);
	vmgpu_schedule_destroy(s);
	vmgpu_graph_destroy(g);
}

/* ---- Format B ---- */

static const char fig8_text[] =
	"# Figure 8a in format B\n"
	"name \"P1\"\n"
	"read 0\n"
	"write 1\n"
	"dispatch 0\n"
	"drop 0\n"
	"drop 1\n"
	"read 1\n"
	"loop 3\n"
	"\tif $0 == 1\n"
	"\t\tname \"odd\"\n"
	"\telse\n"
	"\t\tname \"even\"\n"
	"\tend\n"
	"\tpass\n"
	"\t\tdispatch 0\n"
	"\t\tdispatch 0\n"
	"\tend_pass\n"
	"end\n";

TEST(text_round_trip_and_errors)
{
	static const char canon[] =
		"name \"a \\\"quoted\\\" \\\\ name\"\n"
		"state 2 7\n"
		"needs 1 2 3 4\n"
		"read 0\n"
		"write 1\n"
		"drop 0\n"
		"loop $1\n"
		"\tif $0 >= -5\n"
		"\t\tpass\n"
		"\t\t\tcopy 0 8 1 16 64\n"
		"\t\t\tclear 1 0 128 4294967295\n"
		"\t\t\tdispatch 3\n"
		"\t\tend_pass\n"
		"\telse\n"
		"\t\tloop 0\n"
		"\t\tend\n"
		"\tend\n"
		"end\n";
	uint32_t *w, *w2;
	size_t n, n2;
	char err[160], *text;

	ASSERT_EQ(0, vmgpu_graph_stream_parse(canon, &w, &n, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(0x42475456u, w[0]);
	EXPECT_EQ(1, w[1]);
	ASSERT_EQ(0, vmgpu_graph_stream_print(w, n, &text, err, sizeof(err)));
	EXPECT_STREQ(canon, text);
	ASSERT_EQ(0, vmgpu_graph_stream_parse(text, &w2, &n2, err,
					      sizeof(err)));
	ASSERT_EQ(n, n2);
	EXPECT_EQ(0, memcmp(w, w2, 4 * n));
	free(text);
	free(w2);
	/* The binary checks: a bad length, an unknown opcode. */
	w[2] = (w[2] & 0xffff) | 9u << 16;
	EXPECT_EQ(-EINVAL, vmgpu_graph_stream_print(w, n, &text, err,
						    sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "word 2")) TH_LOG("%s", err);
	w[2] = 0x10077;
	EXPECT_EQ(-EINVAL, vmgpu_graph_stream_print(w, n, &text, err,
						    sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "unknown command")) TH_LOG("%s", err);
	free(w);

	EXPECT_EQ(-EINVAL, vmgpu_graph_stream_parse("read 1\nfrob 2\n", &w, &n,
						    err, sizeof(err)));
	EXPECT_STREQ("line 2: unknown command 'frob'", err);
	EXPECT_EQ(-EINVAL, vmgpu_graph_stream_parse("loop 2\nread 1\n", &w,
						    &n, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "not closed")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, vmgpu_graph_stream_parse("pass\nend\n", &w, &n,
						    err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "end without")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, vmgpu_graph_stream_parse("if $0 = 1\nend\n", &w,
						    &n, err, sizeof(err)));
	EXPECT_STREQ("line 1: a comparison (== != < <= > >=) expected", err);
	EXPECT_EQ(-EINVAL, vmgpu_graph_stream_parse("read 1 2\n", &w, &n, err,
						    sizeof(err)));
}

TEST(format_a_equals_format_b)
{
	static const struct vmgpu_dispatch_desc descs[1] = {
		{ .grid = { 8 }, .block = { 128 } },
	};
	struct vmgpu_graph *ga, *gb;
	struct vmgpu_graph_bindings bind = {
		.dispatches = descs, .num_dispatches = 1,
	};
	int64_t params[1];
	char *ta, *tb, err[160];
	uint32_t *w;
	size_t n;
	int i, k;

	ASSERT_EQ(0, vmgpu_graph_stream_parse(fig8_text, &w, &n, err,
					      sizeof(err)))
		TH_LOG("%s", err);
	for (k = 0; k < 2; k++) {
		params[0] = k;
		bind.params = params;
		bind.num_params = 1;
		/* Format A: the same program in C. */
		ASSERT_EQ(0, vmgpu_graph_create(&ga));
		for (i = 0; i < 2; i++)
			vmgpu_graph_resource(ga, "", NULL, 4096);
		vmgpu_graph_pass_begin(ga, "P1");
		vmgpu_graph_pass_read(ga, 0);
		vmgpu_graph_pass_write(ga, 1);
		vmgpu_graph_pass_dispatch(ga, &descs[0]);
		vmgpu_graph_pass_end(ga);
		for (i = 0; i < 3; i++) {
			vmgpu_graph_pass_begin(ga, params[0] == 1 ? "odd" :
								    "even");
			vmgpu_graph_pass_read(ga, 1);
			vmgpu_graph_pass_dispatch(ga, &descs[0]);
			vmgpu_graph_pass_dispatch(ga, &descs[0]);
			ASSERT_EQ(0, vmgpu_graph_pass_end(ga));
		}
		ASSERT_EQ(0, vmgpu_graph_create(&gb));
		for (i = 0; i < 2; i++)
			vmgpu_graph_resource(gb, "", NULL, 4096);
		ASSERT_EQ(0, vmgpu_graph_run_stream(gb, w, n, &bind));
		ASSERT_EQ(0, vmgpu_graph_print(ga, &ta));
		ASSERT_EQ(0, vmgpu_graph_print(gb, &tb));
		EXPECT_STREQ(ta, tb);
		EXPECT_EQ(4, vmgpu_graph_pass_count(gb));
		free(ta);
		free(tb);
		vmgpu_graph_destroy(ga);
		vmgpu_graph_destroy(gb);
	}
	/* Run-time errors: a missing parameter, an unbound dispatch. */
	ASSERT_EQ(0, vmgpu_graph_create(&gb));
	vmgpu_graph_resource(gb, "", NULL, 4096);
	vmgpu_graph_resource(gb, "", NULL, 4096);
	bind.num_params = 0;
	EXPECT_EQ(-EINVAL, vmgpu_graph_run_stream(gb, w, n, &bind));
	vmgpu_graph_error_message(gb, err, sizeof(err));
	EXPECT_NE(NULL, strstr(err, "parameter $0")) TH_LOG("%s", err);
	/* The blocks before the failure stay; none is left open. */
	EXPECT_EQ(1, vmgpu_graph_pass_count(gb));
	bind.num_dispatches = 0;
	vmgpu_graph_reset(gb);
	EXPECT_EQ(-EINVAL, vmgpu_graph_run_stream(gb, w, n, &bind));
	EXPECT_EQ(0, vmgpu_graph_pass_count(gb));
	vmgpu_graph_destroy(gb);
	free(w);
}

/* ---- Schedule reuse ---- */

TEST(schedule_reuse)
{
	struct vmgpu_graph_limits lim = { .sms = 4, .sm_threads = 512 };
	struct vmgpu_schedule *s;
	struct vmgpu_graph *g;
	static struct rec r1, r2;

	ASSERT_EQ(0, vmgpu_graph_create(&g));
	figure8(_metadata, g);
	ASSERT_EQ(0, vmgpu_graph_compile(g, &lim, &s));
	ASSERT_EQ(0, record(g, s, &r1));
	ASSERT_EQ(0, record(g, s, &r2));
	ASSERT_EQ(r1.nwords, r2.nwords);
	EXPECT_EQ(0, memcmp(r1.words, r2.words, 4 * r1.nwords));
	/* Next frame: the program runs again, the schedule still fits. */
	vmgpu_graph_destroy(g);
	ASSERT_EQ(0, vmgpu_graph_create(&g));
	figure8(_metadata, g);
	EXPECT_EQ(1, vmgpu_schedule_matches(s, g));
	ASSERT_EQ(0, record(g, s, &r2));
	ASSERT_EQ(r1.nwords, r2.nwords);
	EXPECT_EQ(0, memcmp(r1.words, r2.words, 4 * r1.nwords));
	/* A changed graph does not. */
	pass_rw(g, "extra", 0, 1);
	EXPECT_EQ(0, vmgpu_schedule_matches(s, g));
	EXPECT_EQ(-ESTALE, record(g, s, &r2));
	vmgpu_schedule_destroy(s);
	vmgpu_graph_destroy(g);
}

/* ---- Feedback (T5) ---- */

/* Makespan of @s when pass x takes dur[x]: each starts at its waits. */
static uint64_t makespan(struct vmgpu_schedule *s, const uint64_t *dur)
{
	static uint64_t finish[4096];
	struct vmgpu_graph_dep w[64];
	uint32_t passes[4096];
	uint64_t end = 0, start;
	int st, k, m, j, nw;

	for (st = 0; st < vmgpu_schedule_stage_count(s); st++) {
		m = vmgpu_schedule_stage(s, st, passes, 4096);
		for (k = 0; k < m; k++) {
			nw = vmgpu_schedule_waits(s, passes[k], w, 64);
			start = 0;
			for (j = 0; j < nw; j++)
				if (finish[w[j].pass] > start)
					start = finish[w[j].pass];
			finish[passes[k]] = start + dur[passes[k]];
			if (finish[passes[k]] > end)
				end = finish[passes[k]];
		}
	}
	return end;
}

/*
 * Device time of a timed recording, run as recorded (one pass at a
 * time): the timestamps. Pass x's dispatches take dur[x] in all.
 */
static int timed_stamps(const struct rec *r, const uint64_t *dur,
			uint64_t *stamps, uint32_t max)
{
	uint64_t t = 0;
	uint32_t i, n = 0;

	for (i = 0; i < r->nops; i++) {
		if (r->ops[i].type == VMGPU_GRAPH_OP_DISPATCH)
			t += dur[r->ops[i].pass];
		if (r->ops[i].type != VMGPU_GRAPH_OP_TIMESTAMP)
			continue;
		if (r->ops[i].index != n || n == max)
			return -1;
		stamps[n++] = t;
	}
	return (int)n;
}

/*
 * Three short independent passes first in program order, then a chain
 * of three long ones; room for two passes at a time. In program order
 * the chain starts late (310 us); the best schedule runs each link of
 * the chain next to a short pass (300 us, the chain's own length).
 */
static void skewed_program(struct vmgpu_graph *g, const int *res)
{
	static const struct vmgpu_graph_needs n = { .blocks = 8,
						    .threads = 1024 };
	static const char *const names[] = { "s1", "s2", "s3",
					     "x1", "x2", "x3" };
	static const struct vmgpu_dispatch_desc d = { .grid = { 8 },
						      .block = { 128 } };
	int i;

	vmgpu_graph_reset(g);
	for (i = 0; i < 6; i++) {
		vmgpu_graph_pass_begin(g, names[i]);
		if (i < 3) {
			vmgpu_graph_pass_read(g, res[0]);
			vmgpu_graph_pass_write(g, res[1 + i]);
		} else {
			vmgpu_graph_pass_read(g, res[i == 3 ? 0 : 1 + i]);
			vmgpu_graph_pass_write(g, res[2 + i]);
		}
		vmgpu_graph_pass_needs(g, &n);
		vmgpu_graph_pass_dispatch(g, &d);
		vmgpu_graph_pass_end(g);
	}
}

TEST(feedback_reaches_best_schedule)
{
	static const uint64_t base[6] = { 10000, 10000, 10000,
					  100000, 100000, 100000 };
	const struct vmgpu_graph_limits lim = { .sms = 1, .sm_threads = 2048 };
	uint64_t dur[6], stamps[8], best = 300000, ms, cost;
	struct vmgpu_schedule *s = NULL;
	struct vmgpu_graph *g;
	static struct rec r;
	int res[9], i, frame, compiles = 0, first_best = 0, cur;
	char text[64];

	rng_state = 5;
	ASSERT_EQ(0, vmgpu_graph_create(&g));
	for (i = 0; i < 9; i++)
		res[i] = vmgpu_graph_resource(g, "r", NULL, 4096);
	for (frame = 1; frame <= 10; frame++) {
		skewed_program(g, res);
		ASSERT_EQ(6, vmgpu_graph_pass_count(g));
		cur = s ? vmgpu_schedule_is_current(s, g) : 0;
		ASSERT_GE(cur, 0);
		if (!cur) {
			vmgpu_schedule_destroy(s);
			ASSERT_EQ(0, vmgpu_graph_compile(g, &lim, &s));
			compiles++;
		}
		/* Measured durations: +-5% noise, s1 20x once (frame 3). */
		for (i = 0; i < 6; i++)
			dur[i] = base[i] / 100 * (95 + rnd(11));
		if (frame == 3)
			dur[0] *= 20;
		ms = makespan(s, base);
		stages_text(s, text, sizeof(text));
		TH_LOG("frame %d: stages %s, makespan %llu ns", frame, text,
		       (unsigned long long)ms);
		EXPECT_GE(ms, best);
		if (ms == best && !first_best)
			first_best = frame;
		if (first_best)
			EXPECT_EQ(best, ms);
		memset(&r, 0, sizeof(r));
		ASSERT_EQ(0, vmgpu_graph_record_timed_ops(g, s, 0, rec_emit,
							  &r));
		/* Passes one at a time: a barrier after each. */
		EXPECT_EQ(6, r.barriers);
		ASSERT_EQ(7, timed_stamps(&r, dur, stamps, 8));
		ASSERT_EQ(0, vmgpu_graph_feedback(g, s, stamps, 7));
	}
	EXPECT_GT(first_best, 1);	/* program order is not the best */
	EXPECT_LE(first_best, 3);
	/* Reused from then on: noise and the outlier change nothing. */
	EXPECT_EQ(2, compiles);
	ASSERT_EQ(0, vmgpu_graph_pass_cost(g, 0, &cost));
	EXPECT_LT(cost, 11000);
	ASSERT_EQ(0, vmgpu_schedule_pass_priority(s, 3, &cost));
	EXPECT_GT(cost, 270000);
	vmgpu_schedule_destroy(s);
	vmgpu_graph_destroy(g);
}

TEST(feedback_estimates)
{
	static const uint64_t seq[] = { 50, 10, 900, 20, 30, 40, 5000 };
	static const uint64_t med[] = { 50, 10, 50, 20, 30, 30, 40 };
	struct vmgpu_schedule *s;
	struct vmgpu_graph *g;
	uint64_t v, stamps[4] = { 0, 10, 5, 20 };
	int a, i;

	ASSERT_EQ(0, vmgpu_graph_create(&g));
	a = vmgpu_graph_resource(g, "a", NULL, 64);
	pass_rw(g, "p", -1, a);
	pass_rw(g, "q", a, -1);
	EXPECT_EQ(-ENODATA, vmgpu_graph_pass_cost(g, 0, &v));
	/* The median of the last five (the lower one of an even count). */
	for (i = 0; i < 7; i++) {
		ASSERT_EQ(0, vmgpu_graph_pass_sample(g, 0, seq[i]));
		ASSERT_EQ(0, vmgpu_graph_pass_cost(g, 0, &v));
		EXPECT_EQ(med[i], v);
	}
	EXPECT_EQ(-EINVAL, vmgpu_graph_pass_sample(g, 2, 1));
	EXPECT_EQ(-EINVAL, vmgpu_graph_pass_cost(g, 2, &v));
	ASSERT_EQ(0, vmgpu_graph_compile(g, NULL, &s));
	EXPECT_EQ(-EINVAL, vmgpu_graph_feedback(g, s, stamps, 4));
	EXPECT_EQ(-EINVAL, vmgpu_graph_feedback(g, s, stamps, 3));
	stamps[2] = 15;
	ASSERT_EQ(0, vmgpu_graph_feedback(g, s, stamps, 3));
	ASSERT_EQ(0, vmgpu_graph_pass_cost(g, 1, &v));
	EXPECT_EQ(5, v);
	/* Same names next run: kept; another name at index 0: forgotten. */
	vmgpu_graph_reset(g);
	pass_rw(g, "p", -1, a);
	EXPECT_EQ(0, vmgpu_graph_pass_cost(g, 0, &v));
	EXPECT_EQ(-ESTALE, vmgpu_graph_feedback(g, s, stamps, 3));
	vmgpu_graph_reset(g);
	pass_rw(g, "other", -1, a);
	EXPECT_EQ(-ENODATA, vmgpu_graph_pass_cost(g, 0, &v));
	vmgpu_schedule_destroy(s);
	vmgpu_graph_destroy(g);
}

/* ---- Transient memory (T6) ---- */

#define TM_RES		12
#define TM_PASSES	48

/*
 * Random graphs of transient resources under random capacities and
 * budgets: every transient's live stages are those of the passes using
 * it, and two transients that share bytes of the heap are never live
 * at once: every pass using the one is ordered, through the recorded
 * waits, before every pass using the other.
 */
TEST(aliasing_never_overlaps_live_ranges)
{
	static uint8_t use[TM_PASSES][TM_RES];
	static uint64_t anc[TM_PASSES];
	static const struct vmgpu_graph_needs nd = { .blocks = 1,
						     .threads = 256 };
	uint64_t size[TM_RES], off[TM_RES], total_heap = 0, total_un = 0;
	uint32_t first[TM_RES], last[TM_RES], passes[TM_PASSES];
	struct vmgpu_graph_dep w[TM_PASSES];
	int graphs = 3000, gi, aliased = 0;

	rng_state = 61;
	for (gi = 0; gi < graphs; gi++) {
		struct vmgpu_graph_limits lim = { 0 };
		struct vmgpu_graph_memory m;
		struct vmgpu_schedule *s;
		struct vmgpu_graph *g;
		int np = 1 + rnd(TM_PASSES), nr = 1 + rnd(TM_RES);
		int i, j, k, st, n;

		memset(use, 0, sizeof(use));
		ASSERT_EQ(0, vmgpu_graph_create(&g));
		for (j = 0; j < nr; j++) {
			size[j] = 1 + rnd(3) * 1000 + rnd(70000);
			ASSERT_EQ(j, vmgpu_graph_resource(g, "t", NULL,
							  size[j]));
		}
		for (i = 0; i < np; i++) {
			ASSERT_EQ(i, vmgpu_graph_pass_begin(g, "p"));
			for (k = rnd(3); k > 0; k--) {
				j = rnd(nr);
				use[i][j] = 1;
				ASSERT_EQ(0, vmgpu_graph_pass_read(g, j));
			}
			for (k = 1 + rnd(2); k > 0; k--) {
				j = rnd(nr);
				use[i][j] = 1;
				ASSERT_EQ(0, vmgpu_graph_pass_write(g, j));
			}
			ASSERT_EQ(0, vmgpu_graph_pass_needs(g, &nd));
			ASSERT_EQ(0, vmgpu_graph_pass_end(g));
		}
		if (rnd(2)) {
			lim.sms = 1;
			lim.sm_threads = 256 * (1 + rnd(6));
		}
		if (rnd(2))
			lim.transient_budget = rnd(200000);
		ASSERT_EQ(0, vmgpu_graph_compile(g, &lim, &s));
		ASSERT_EQ(0, vmgpu_schedule_memory(s, &m));
		/* Ancestors of each pass through the waits. */
		memset(anc, 0, sizeof(anc));
		for (st = 0; st < vmgpu_schedule_stage_count(s); st++) {
			n = vmgpu_schedule_stage(s, st, passes, TM_PASSES);
			for (k = 0; k < n; k++) {
				int nw = vmgpu_schedule_waits(s, passes[k], w,
							      TM_PASSES);

				for (i = 0; i < nw; i++)
					anc[passes[k]] |= anc[w[i].pass] |
							  1ull << w[i].pass;
			}
		}
		for (j = 0; j < nr; j++) {
			uint32_t f = UINT32_MAX, l = 0;

			for (i = 0; i < np; i++) {
				st = vmgpu_schedule_pass_stage(s, i);
				if (!use[i][j])
					continue;
				f = (uint32_t)st < f ? (uint32_t)st : f;
				l = (uint32_t)st > l ? (uint32_t)st : l;
			}
			if (f == UINT32_MAX) {
				ASSERT_EQ(-ENOENT,
					  vmgpu_schedule_transient(s, j, &off[j],
								   NULL, NULL));
				size[j] = 0;
				continue;
			}
			ASSERT_EQ(0, vmgpu_schedule_transient(s, j, &off[j],
							      &first[j],
							      &last[j]));
			ASSERT_EQ(f, first[j]);
			ASSERT_EQ(l, last[j]);
			ASSERT_EQ(0, off[j] % 256);
			ASSERT_LE(off[j] + size[j], m.heap_bytes);
		}
		for (j = 0; j < nr; j++) {
			for (k = j + 1; k < nr; k++) {
				if (!size[j] || !size[k] ||
				    off[j] + size[j] <= off[k] ||
				    off[k] + size[k] <= off[j])
					continue;
				/* Share bytes: lives disjoint and ordered. */
				aliased++;
				ASSERT_TRUE(last[j] < first[k] ||
					    last[k] < first[j]);
				for (i = 0; i < np; i++) {
					int q, a = last[j] < first[k] ? j : k;
					int b = a == j ? k : j;

					if (!use[i][a])
						continue;
					for (q = 0; q < np; q++)
						if (use[q][b])
							ASSERT_TRUE(anc[q] >> i & 1);
				}
			}
		}
		ASSERT_LE(m.peak_live_bytes, m.heap_bytes);
		ASSERT_LE(m.heap_bytes, m.unaliased_bytes);
		total_heap += m.heap_bytes;
		total_un += m.unaliased_bytes;
		vmgpu_schedule_destroy(s);
		vmgpu_graph_destroy(g);
	}
	EXPECT_GT(aliased, graphs / 2);
	TH_LOG("%d graphs, %d aliased pairs, heap %llu of %llu bytes unaliased",
	       graphs, aliased, (unsigned long long)total_heap,
	       (unsigned long long)total_un);
}

/*
 * An image pipeline with a wide fan-out: decode writes T; eight branches
 * each run four passes, three of them into transients of their own
 * (F, G, H) and the last into an output.
 */
#define FAN		8
#define IMG		(1u << 20)

static void fanout_program(struct vmgpu_graph *g)
{
	static const struct vmgpu_dispatch_desc d = { .grid = { 64 },
						      .block = { 256 } };
	int t, f[FAN], gg[FAN], h[FAN], out[FAN], i;

	t = vmgpu_graph_resource(g, "T", NULL, IMG);
	for (i = 0; i < FAN; i++) {
		f[i] = vmgpu_graph_resource(g, "F", NULL, IMG);
		gg[i] = vmgpu_graph_resource(g, "G", NULL, IMG);
		h[i] = vmgpu_graph_resource(g, "H", NULL, IMG);
		out[i] = vmgpu_graph_resource(g, "out", NULL, IMG);
	}
	pass_rw(g, "decode", -1, t);
	for (i = 0; i < FAN; i++) {
		pass_rw(g, "filter", t, f[i]);
		pass_rw(g, "tone", f[i], gg[i]);
		pass_rw(g, "sharpen", gg[i], h[i]);
		/* The outputs are written in place: a read too, so the
		 * test treats them as long-lived. */
		vmgpu_graph_pass_begin(g, "store");
		vmgpu_graph_pass_read(g, h[i]);
		vmgpu_graph_pass_read(g, out[i]);
		vmgpu_graph_pass_write(g, out[i]);
		vmgpu_graph_pass_dispatch(g, &d);
		vmgpu_graph_pass_end(g);
	}
}

TEST(aliasing_lowers_fanout_peak)
{
	struct vmgpu_graph_limits lim = { 0 };
	struct vmgpu_graph_memory m, mb;
	struct vmgpu_schedule *s;
	struct vmgpu_graph *g;

	ASSERT_EQ(0, vmgpu_graph_create(&g));
	fanout_program(g);
	ASSERT_EQ(0, vmgpu_graph_compile(g, &lim, &s));
	ASSERT_EQ(0, vmgpu_schedule_memory(s, &m));
	EXPECT_EQ(5, vmgpu_schedule_stage_count(s));
	EXPECT_EQ(1 + 4 * FAN, m.transients);
	EXPECT_EQ((1 + 4 * FAN) * (uint64_t)IMG, m.unaliased_bytes);
	/* At least 30% lower than without sharing. */
	EXPECT_LE(m.heap_bytes * 10, m.unaliased_bytes * 7);
	TH_LOG("no budget: %u stages, heap %llu, peak live %llu, unaliased %llu",
	       vmgpu_schedule_stage_count(s),
	       (unsigned long long)m.heap_bytes,
	       (unsigned long long)m.peak_live_bytes,
	       (unsigned long long)m.unaliased_bytes);
	vmgpu_schedule_destroy(s);
	/* A budget of 12 images: last consumers go first, lives shorten. */
	lim.transient_budget = 12ull * IMG;
	ASSERT_EQ(0, vmgpu_graph_compile(g, &lim, &s));
	ASSERT_EQ(0, vmgpu_schedule_memory(s, &mb));
	EXPECT_LT(mb.peak_live_bytes, m.peak_live_bytes);
	EXPECT_LT(mb.heap_bytes, m.heap_bytes);
	EXPECT_LE(mb.peak_live_bytes, 13ull * IMG);
	TH_LOG("budget 12 MiB: %u stages, heap %llu, peak live %llu",
	       vmgpu_schedule_stage_count(s),
	       (unsigned long long)mb.heap_bytes,
	       (unsigned long long)mb.peak_live_bytes);
	vmgpu_schedule_destroy(s);
	vmgpu_graph_destroy(g);
}

/* ---- Splitting (T7) ---- */

/*
 * The test's kernels on the CPU: "scale" computes y[b] from x and the
 * block's place in the whole grid; "other" and "sum" use other data.
 * Each dispatch runs its portion of blocks [origin, origin + grid).
 */
#define SPLIT_BLOCKS	1000

struct split_data {
	uint32_t x[SPLIT_BLOCKS], y[SPLIT_BLOCKS], z[64];
	uint64_t sum;
};

static void split_program(struct vmgpu_graph *g, uint32_t split,
			  const int *res)
{
	struct vmgpu_dispatch_desc d = { .grid = { SPLIT_BLOCKS },
					 .block = { 32 } };
	static const struct vmgpu_dispatch_desc small = { .grid = { 8 },
							  .block = { 128 } };

	vmgpu_graph_reset(g);
	pass_rw(g, "fill", -1, res[0]);
	vmgpu_graph_pass_begin(g, "scale");
	vmgpu_graph_pass_read(g, res[0]);
	vmgpu_graph_pass_write(g, res[1]);
	if (split)
		vmgpu_graph_pass_split(g, split);
	vmgpu_graph_pass_dispatch(g, &d);
	vmgpu_graph_pass_end(g);
	vmgpu_graph_pass_begin(g, "other");
	vmgpu_graph_pass_read(g, res[0]);
	vmgpu_graph_pass_write(g, res[2]);
	vmgpu_graph_pass_dispatch(g, &small);
	vmgpu_graph_pass_end(g);
	pass_rw(g, "sum", res[1], res[3]);
}

/* Pass 0 is "fill", then "scale" (or its parts), "other", "sum". */
static void split_run(int npasses, const struct rec *r, struct split_data *o)
{
	uint32_t i, b, k;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < r->nops; i++) {
		const struct op *op = &r->ops[i];
		int p = (int)op->pass;

		if (op->type != VMGPU_GRAPH_OP_DISPATCH)
			continue;
		for (b = op->origin; b < op->origin + op->grid; b++) {
			if (p == 0)
				o->x[b % 4] = b * 7 + 1;
			else if (p == npasses - 1)
				for (k = 0; k < SPLIT_BLOCKS; k++)
					o->sum += (uint64_t)o->y[k] * (k + 1);
			else if (p == npasses - 2)
				o->z[b] = b;
			else
				o->y[b] = o->x[b % 4] * 3 + b + op->total;
		}
	}
}

TEST(split_pass_same_results)
{
	const struct vmgpu_graph_limits lim = { .sms = 4, .sm_threads = 2048 };
	struct vmgpu_graph_dep dep[64];
	static struct split_data whole, parts;
	struct vmgpu_schedule *s;
	struct vmgpu_graph *g;
	static struct rec r;
	uint32_t covered = 0;
	int res[4], i, n, other_stage, shares = 0;

	ASSERT_EQ(0, vmgpu_graph_create(&g));
	for (i = 0; i < 4; i++)
		res[i] = vmgpu_graph_resource(g, "r", NULL, 4096);
	split_program(g, 0, res);
	ASSERT_EQ(4, vmgpu_graph_pass_count(g));
	ASSERT_EQ(0, vmgpu_graph_compile(g, &lim, &s));
	/* Whole, "scale" fills the GPU: "other" does not run with it. */
	EXPECT_NE(vmgpu_schedule_pass_stage(s, 1),
		  vmgpu_schedule_pass_stage(s, 2));
	ASSERT_EQ(0, record(g, s, &r));
	split_run(4, &r, &whole);
	vmgpu_schedule_destroy(s);

	/* 1000 blocks in parts of at most 96: 11 passes. */
	split_program(g, 96, res);
	n = vmgpu_graph_pass_count(g);
	ASSERT_EQ(3 + 11, n);
	for (i = 1; i <= 12; i++) {
		ASSERT_EQ(1, vmgpu_graph_pass_deps(g, i, dep, 64));
		EXPECT_EQ(0, dep[0].pass);	/* only "fill" */
	}
	/* "sum" depends on every part. */
	ASSERT_EQ(11, vmgpu_graph_pass_deps(g, 13, dep, 64));
	ASSERT_EQ(0, vmgpu_graph_compile(g, &lim, &s));
	other_stage = vmgpu_schedule_pass_stage(s, 12);
	for (i = 1; i <= 11; i++)
		shares += vmgpu_schedule_pass_stage(s, i) == other_stage;
	EXPECT_GT(shares, 0);		/* a part overlaps "other" */
	ASSERT_EQ(0, record(g, s, &r));
	for (i = 0; i < (int)r.nops; i++) {
		if (r.ops[i].type != VMGPU_GRAPH_OP_DISPATCH ||
		    r.ops[i].pass < 1 || r.ops[i].pass > 11)
			continue;
		EXPECT_EQ(SPLIT_BLOCKS, r.ops[i].total);
		EXPECT_LE(r.ops[i].grid, 96);
		covered += r.ops[i].grid;
	}
	EXPECT_EQ(SPLIT_BLOCKS, covered);
	split_run(n, &r, &parts);
	EXPECT_EQ(0, memcmp(&whole, &parts, sizeof(whole)));
	EXPECT_NE(0, whole.sum);
	vmgpu_schedule_destroy(s);

	/* Only a pass of one dispatch splits. */
	vmgpu_graph_reset(g);
	ASSERT_EQ(0, vmgpu_graph_pass_begin(g, "c"));
	ASSERT_EQ(0, vmgpu_graph_pass_write(g, res[0]));
	ASSERT_EQ(0, vmgpu_graph_pass_clear(g, res[0], 0, 64, 1));
	ASSERT_EQ(0, vmgpu_graph_pass_split(g, 4));
	EXPECT_EQ(-EINVAL, vmgpu_graph_pass_end(g));
	EXPECT_EQ(-EINVAL, vmgpu_graph_pass_split(g, 0));
	vmgpu_graph_destroy(g);
}

TEST_HARNESS_MAIN
