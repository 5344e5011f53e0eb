// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OpenCL C compiler (libshim/compiler): kernels compiled with
 * vmgpu_program_build(), loaded and run block by block through the
 * interpreter, compared with the same computation in C; the math
 * built-ins measured in ULP against the C library; the signature; the
 * build log's diagnostics for what the language rules forbid.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "../builtin_cases.h"
#include "interp.h"
#include "testmem.h"
#include "vmgpu.h"

#define MEM_BASE	0x100000000ull
#define MEM_BYTES	(64u << 20)

static uint32_t rng_state = 777;

static uint32_t rng(void)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return rng_state >> 8;
}

static float rng_float(void)
{
	return (float)(int32_t)(rng() % 16777216u - 8388608u) / 1048576.0f;
}

static float rng_range(float lo, float hi)
{
	return lo + (hi - lo) * (float)(rng() % 16777216u) / 16777216.0f;
}

static uint32_t div_up(uint32_t a, uint32_t b)
{
	return (a + b - 1) / b;
}

/* A compiled kernel loaded for the interpreter, with its argument block. */
struct ck {
	struct vg_kernel *k;
	struct vmgpu_exec_header h;
	struct vmgpu_exec_sig sig;
	struct vmgpu_exec_param params[VMGPU_MAX_PARAMS];
	uint8_t args[VMGPU_MAX_ARGS_BYTES];
	uint32_t priv;			/* private bytes per thread */
};

static struct vmgpu_program *build(struct __test_metadata *_metadata,
				   const char *src, const char *opts)
{
	struct vmgpu_program *prog = NULL;
	char *log = NULL;
	int r = vmgpu_program_build(src, opts, &prog, &log);

	if (r)
		fprintf(stderr, "build log:\n%s\n", log ? log : "(none)");
	free(log);
	EXPECT_EQ(0, r);
	return prog;
}

/* The build fails; its log contains every string of @want (NULL-ended). */
static void build_fails(struct __test_metadata *_metadata, const char *src,
			const char *opts, const char *const *want)
{
	struct vmgpu_program *prog = (void *)1;
	char *log = NULL;
	int r = vmgpu_program_build(src, opts, &prog, &log);

	EXPECT_EQ(-EINVAL, r);
	EXPECT_EQ(NULL, prog);
	ASSERT_NE(NULL, log);
	for (; *want; want++)
		if (!strstr(log, *want)) {
			fprintf(stderr, "log lacks '%s':\n%s\n", *want, log);
			EXPECT_NE(NULL, strstr(log, *want));
		}
	free(log);
}

/* Load kernel @name of @prog as a device of ISA version @isa does. */
static void load_isa(struct __test_metadata *_metadata,
		     struct vmgpu_program *prog, const char *name,
		     uint32_t isa, struct ck *c)
{
	const void *image;
	const char *why = "";
	uint32_t bad_pc = 0;
	size_t bytes;

	memset(c, 0, sizeof(*c));
	ASSERT_EQ(0, vmgpu_program_kernel_image(prog, name, &image, &bytes));
	vmgpu_exec_header_read(&c->h, image);
	/* what vmgpu_kernel_create() checks, then the interpreter's load */
	ASSERT_TRUE(vmgpu_exec_header_valid(&c->h));
	ASSERT_EQ(vmgpu_exec_file_bytes(&c->h), bytes);
	ASSERT_EQ(1, vmgpu_exec_sig_read(&c->h, image, bytes, &c->sig,
					 c->params, &why));
	ASSERT_EQ(0, strcmp(c->sig.name, name));
	ASSERT_EQ(VMGPU_FAULT_NONE, vg_kernel_load(&c->k, image, bytes, isa,
						   &bad_pc));
	c->priv = (uint32_t)vmgpu_program_kernel_private_bytes(prog, name);
}

static void load(struct __test_metadata *_metadata,
		 struct vmgpu_program *prog, const char *name, struct ck *c)
{
	load_isa(_metadata, prog, name, VMGPU_ISA_VERSION, c);
}

static void set_u32(struct ck *c, uint32_t i, uint32_t v)
{
	memcpy(c->args + c->params[i].offset, &v, 4);
}

static void set_f32(struct ck *c, uint32_t i, float v)
{
	memcpy(c->args + c->params[i].offset, &v, 4);
}

static void set_u64(struct ck *c, uint32_t i, uint64_t v)
{
	memcpy(c->args + c->params[i].offset, &v, 8);
}

/*
 * Run the grid (a portion at @origin of an index space @total blocks
 * big, when given) block by block. The private buffer, when the kernel
 * needs one, is allocated here. Returns 0 or the fault code.
 */
/* statistics of the last run */
static struct vg_block_stats last_stats;

static int run_portion(struct testmem *tm, struct ck *c, const uint32_t grid[3],
		       const uint32_t block[3], const uint32_t *origin,
		       const uint32_t *total, uint32_t dyn_shared)
{
	struct vg_interp *it = vg_interp_new();
	struct vg_storelog *log = vg_storelog_new();
	uint64_t budget = 1ull << 40, threads = 1;
	struct vg_block_stats st = { 0 };
	struct vg_fault_info fault = { 0 };
	struct vg_launch l = {
		.kernel = c->k, .args = c->args, .args_bytes = c->h.args_bytes,
		.shared_bytes = dyn_shared, .mem = &tm->memif,
	};
	uint32_t pos[3];
	int r = 0, i;

	for (i = 0; i < 3; i++) {
		l.grid[i] = grid[i] ? grid[i] : 1;
		l.block[i] = block[i] ? block[i] : 1;
		l.origin[i] = origin ? origin[i] : 0;
		l.grid_total[i] = total ? total[i] : l.origin[i] + l.grid[i];
		threads *= (uint64_t)l.grid_total[i] * l.block[i];
	}
	if (c->priv) {
		uint32_t last = c->sig.num_params - 1;

		if (strcmp(c->params[last].name, "vmgpu_private"))
			abort();
		set_u64(c, last, testmem_alloc(tm, threads * c->priv));
	}
	for (pos[2] = 0; pos[2] < l.grid[2] && !r; pos[2]++)
		for (pos[1] = 0; pos[1] < l.grid[1] && !r; pos[1]++)
			for (pos[0] = 0; pos[0] < l.grid[0] && !r; pos[0]++) {
				r = vg_interp_run_block(it, &l, pos, 0, log,
							&budget, &st, &fault);
				if (r) {
					fprintf(stderr, "fault %u at pc %u addr %#llx\n",
						fault.code, fault.pc,
						(unsigned long long)fault.addr);
					vg_storelog_discard(log);
				} else {
					vg_storelog_apply(log);
				}
			}
	vg_storelog_free(log);
	vg_interp_free(it);
	last_stats = st;
	return r;
}

static int run1d(struct testmem *tm, struct ck *c, uint32_t n, uint32_t bs)
{
	uint32_t g[3] = { div_up(n, bs), 1, 1 }, b[3] = { bs, 1, 1 };

	return run_portion(tm, c, g, b, NULL, NULL, 0);
}

FIXTURE(cc) {
	struct testmem *tm;
};

FIXTURE_SETUP(cc)
{
	self->tm = testmem_new(MEM_BASE, MEM_BYTES);
}

FIXTURE_TEARDOWN(cc)
{
	testmem_free(self->tm);
}

#define ALLOC(T, name, count) \
	uint64_t name##_va = testmem_alloc(self->tm, (count) * sizeof(T) + 4); \
	T *name = testmem_ptr(self->tm, name##_va)

/* ------------------------------------------------------------------ */

static const char basic_src[] =
	"kernel void vadd(global const float *a, global const float *b,\n"
	"                 global float *c, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i < n)\n"
	"		c[i] = a[i] + b[i];\n"
	"}\n"
	"kernel void saxpy(int n, float a, global const float *x, global float *y)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i < n)\n"
	"		y[i] = a * x[i] + y[i];\n"
	"}\n"
	"kernel void sig(global int *rw, global const int *ro, global int *wo,\n"
	"                long l, uint u, constant float *c, local float *sh)\n"
	"{\n"
	"	wo[0] = ro[0] + (int)l + u + (int)c[0];\n"
	"	rw[0] += 1;\n"
	"}\n";

TEST_F(cc, vector_add_and_saxpy)
{
	const uint32_t n = 4099;
	struct vmgpu_program *prog = build(_metadata, basic_src, NULL);
	struct ck c;
	ALLOC(float, a, n);
	ALLOC(float, b, n);
	ALLOC(float, out, n);
	uint32_t i;

	ASSERT_NE(NULL, prog);
	ASSERT_EQ(3, vmgpu_program_kernel_count(prog));
	for (i = 0; i < n; i++) {
		a[i] = rng_float();
		b[i] = rng_float();
		out[i] = rng_float();
	}
	load(_metadata, prog, "vadd", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, b_va);
	set_u64(&c, 2, out_va);
	set_u32(&c, 3, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 96));
	for (i = 0; i < n; i++) {
		float r = a[i] + b[i];

		ASSERT_EQ(0, memcmp(&r, &out[i], 4));
	}
	vg_kernel_free(c.k);

	/* a * x + y is contracted (OpenCL's default): one fma */
	load(_metadata, prog, "saxpy", &c);
	set_u32(&c, 0, n);
	set_f32(&c, 1, 1.7f);
	set_u64(&c, 2, a_va);
	set_u64(&c, 3, b_va);
	memcpy(out, b, n * 4);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 256));
	for (i = 0; i < n; i++) {
		float r = fmaf(1.7f, a[i], out[i]);

		ASSERT_EQ(0, memcmp(&r, &b[i], 4));
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* Compiled executables disassemble to source that assembles back. */
TEST(disassembly_round_trip)
{
	struct vmgpu_program *prog = build(_metadata, basic_src, NULL);
	int i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < vmgpu_program_kernel_count(prog); i++) {
		const char *name = vmgpu_program_kernel_name(prog, i);
		const void *image;
		void *again;
		size_t bytes, bytes2;
		char err[256], *text;

		ASSERT_EQ(0, vmgpu_program_kernel_image(prog, name, &image, &bytes));
		ASSERT_EQ(0, vmgpu_disasm_image(image, bytes, &text, err, sizeof(err)));
		ASSERT_EQ(0, vmgpu_asm_assemble(text, &again, &bytes2, err, sizeof(err)));
		ASSERT_EQ(bytes, bytes2);
		EXPECT_EQ(0, memcmp(image, again, bytes));
		free(again);
		free(text);
	}
	vmgpu_program_destroy(prog);
}

TEST_F(cc, signature)
{
	struct vmgpu_program *prog = build(_metadata, basic_src, NULL);
	static const struct { const char *name; uint32_t type, offset; } want[] = {
		{ "rw", VMGPU_PARAM_BUF_RW, 0 },
		{ "ro", VMGPU_PARAM_BUF_RO, 8 },
		{ "wo", VMGPU_PARAM_BUF_WO, 16 },
		{ "l", VMGPU_PARAM_I64, 24 },
		{ "u", VMGPU_PARAM_I32, 32 },
		{ "c", VMGPU_PARAM_BUF_RO, 40 },
		{ "sh", VMGPU_PARAM_I32, 48 },	/* shared-memory offset */
	};
	const void *image;
	size_t bytes;
	struct ck c;
	uint32_t i;

	ASSERT_NE(NULL, prog);
	EXPECT_EQ(0, strcmp("vadd", vmgpu_program_kernel_name(prog, 0)));
	EXPECT_EQ(0, strcmp("saxpy", vmgpu_program_kernel_name(prog, 1)));
	EXPECT_EQ(0, strcmp("sig", vmgpu_program_kernel_name(prog, 2)));
	EXPECT_EQ(NULL, vmgpu_program_kernel_name(prog, 3));
	EXPECT_EQ(-ENOENT, vmgpu_program_kernel_image(prog, "nope", &image, &bytes));
	EXPECT_EQ(0, vmgpu_program_kernel_private_bytes(prog, "vadd"));
	load(_metadata, prog, "sig", &c);
	ASSERT_EQ(7, c.sig.num_params);
	for (i = 0; i < 7; i++) {
		EXPECT_EQ(0, strcmp(want[i].name, c.params[i].name));
		EXPECT_EQ(want[i].type, c.params[i].type);
		EXPECT_EQ(want[i].offset, c.params[i].offset);
	}
	EXPECT_EQ(52, c.h.args_bytes);
	EXPECT_EQ(1, c.h.isa_version);	/* only version-1 instructions */
	vg_kernel_free(c.k);
	load(_metadata, prog, "saxpy", &c);
	EXPECT_EQ(VMGPU_PARAM_I32, c.params[0].type);
	EXPECT_EQ(VMGPU_PARAM_F32, c.params[1].type);
	EXPECT_EQ(VMGPU_PARAM_BUF_RO, c.params[2].type);
	EXPECT_EQ(VMGPU_PARAM_BUF_RW, c.params[3].type);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */

static const char reduce_src[] =
	"#define B 128\n"
	"kernel void reduce(int n, global const float *in, global float *out)\n"
	"{\n"
	"	local float s[B];\n"
	"	int t = get_local_id(0), i = get_global_id(0);\n"
	"	s[t] = i < n ? in[i] : 0.0f;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	for (int st = B / 2; st > 0; st >>= 1) {\n"
	"		if (t < st)\n"
	"			s[t] += s[t + st];\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	}\n"
	"	if (t == 0)\n"
	"		out[get_group_id(0)] = s[0];\n"
	"}\n"
	/* dynamic local memory through a local pointer parameter */
	"kernel void rev(global int *io, local int *tmp)\n"
	"{\n"
	"	int t = get_local_id(0), nt = get_local_size(0);\n"
	"	int base = get_group_id(0) * nt;\n"
	"	tmp[t] = io[base + t];\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	io[base + t] = tmp[nt - 1 - t];\n"
	"}\n";

TEST_F(cc, reduction_local_memory_barrier)
{
	const uint32_t n = 10000, bs = 128, nb = div_up(n, bs);
	struct vmgpu_program *prog = build(_metadata, reduce_src, NULL);
	struct ck c;
	ALLOC(float, in, n);
	ALLOC(float, out, nb);
	ALLOC(int32_t, io, 96 * 5);
	uint32_t i, b, t, st;
	float s[128];

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++)
		in[i] = rng_float();
	load(_metadata, prog, "reduce", &c);
	EXPECT_EQ(bs * 4, c.h.shared_bytes);
	set_u32(&c, 0, n);
	set_u64(&c, 1, in_va);
	set_u64(&c, 2, out_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, bs));
	for (b = 0; b < nb; b++) {
		for (t = 0; t < bs; t++)
			s[t] = b * bs + t < n ? in[b * bs + t] : 0.0f;
		for (st = bs / 2; st; st >>= 1)
			for (t = 0; t < st; t++)
				s[t] += s[t + st];
		ASSERT_EQ(0, memcmp(&s[0], &out[b], 4));
	}
	vg_kernel_free(c.k);

	load(_metadata, prog, "rev", &c);
	EXPECT_EQ(0, c.h.shared_bytes);
	for (i = 0; i < 96 * 5; i++)
		io[i] = (int32_t)i;
	set_u64(&c, 0, io_va);
	set_u32(&c, 1, 0);		/* offset in dynamic shared memory */
	{
		uint32_t g[3] = { 5, 1, 1 }, bl[3] = { 96, 1, 1 };

		ASSERT_EQ(0, run_portion(self->tm, &c, g, bl, NULL, NULL, 96 * 4));
	}
	for (i = 0; i < 96 * 5; i++)
		ASSERT_EQ((int32_t)((i / 96) * 96 + 95 - i % 96), io[i]);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */

static const char flow_src[] =
	"kernel void flow(global const int *in, global int *out, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i >= n)\n"
	"		return;\n"
	"	int x = in[i], acc = 0;\n"
	"	if (x & 1) {\n"
	"		if (x & 2)\n"
	"			acc = x * 3;\n"
	"		else\n"
	"			acc = x - 7;\n"
	"	} else {\n"
	"		acc = x ^ 0x55;\n"
	"	}\n"
	"	for (int k = 0; k < (x & 15); k++) {\n"
	"		if (acc > 1000)\n"
	"			break;\n"
	"		if (k == 5)\n"
	"			continue;\n"
	"		acc += k * x;\n"
	"	}\n"
	"	int m = x;\n"
	"	while (m > 1)\n"
	"		m = (m & 1) ? 3 * m + 1 : m / 2, acc++;\n"
	"	switch (x % 5) {\n"
	"	case 0: acc += 11; break;\n"
	"	case 1: acc *= 2; break;\n"
	"	case 3: acc -= 4;\n"
	"	default: acc ^= 1;\n"
	"	}\n"
	"	out[i] = acc;\n"
	"}\n"
	/* a barrier after divergent loops: every lane must arrive */
	"kernel void flowbar(global int *out)\n"
	"{\n"
	"	local int s[64];\n"
	"	int t = get_local_id(0), a = 0;\n"
	"	for (int k = 0; k < t; k++) {\n"
	"		if (k > 40) break;\n"
	"		a += k;\n"
	"	}\n"
	"	s[t] = a;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	out[t] = s[63 - t];\n"
	"}\n";

static int32_t flow_ref(int32_t x)
{
	int32_t acc, k, m;

	if (x & 1)
		acc = (x & 2) ? x * 3 : x - 7;
	else
		acc = x ^ 0x55;
	for (k = 0; k < (x & 15); k++) {
		if (acc > 1000)
			break;
		if (k == 5)
			continue;
		acc += k * x;
	}
	for (m = x; m > 1; acc++)
		m = (m & 1) ? 3 * m + 1 : m / 2;
	switch (x % 5) {
	case 0: acc += 11; break;
	case 1: acc *= 2; break;
	case 3: acc -= 4; /* fall through */
	default: acc ^= 1;
	}
	return acc;
}

TEST_F(cc, control_flow_divergence)
{
	const uint32_t n = 3000;
	struct vmgpu_program *prog = build(_metadata, flow_src, NULL);
	struct ck c;
	ALLOC(int32_t, in, n);
	ALLOC(int32_t, out, n + 64);
	uint32_t i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++)
		in[i] = (int32_t)(rng() % 2000) - 300;
	load(_metadata, prog, "flow", &c);
	set_u64(&c, 0, in_va);
	set_u64(&c, 1, out_va);
	set_u32(&c, 2, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++)
		ASSERT_EQ(flow_ref(in[i]), out[i]);
	EXPECT_EQ(0, out[n]);
	vg_kernel_free(c.k);

	load(_metadata, prog, "flowbar", &c);
	set_u64(&c, 0, out_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 64, 64));
	for (i = 0; i < 64; i++) {
		int32_t t = 63 - (int32_t)i, k, a = 0;

		for (k = 0; k < t && k <= 40; k++)
			a += k;
		ASSERT_EQ(a, out[i]);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/*
 * The layout makes the ISA's min-pc rule reconverge: after an if/else
 * split by lane parity and a loop with per-lane trip counts, the long
 * tail runs once per warp, not once per group of lanes.
 */
static const char reconv_src[] =
	"#define TAIL(x) x = x * 3u + 1u; x ^= x >> 3; x = x * 5u + 7u; x ^= x << 2;\n"
	"kernel void rc(global uint *o, int diverge)\n"
	"{\n"
	"	uint t = get_local_id(0), x = t;\n"
	"	if (((t & 1) && diverge) || t == 1000) {\n"
	"		x = x * 7u + 3u; x ^= 0x55u;\n"
	"	} else {\n"
	"		x = x * 9u + 1u; x ^= 0xaau; x += t << 3;\n"
	"	}\n"
	"	for (uint k = 0; k < (diverge ? (t & 7) : 7u); k++)\n"
	"		x = x * 13u + k;\n"
	"	TAIL(x) TAIL(x) TAIL(x) TAIL(x) TAIL(x) TAIL(x) TAIL(x) TAIL(x)\n"
	"	o[get_global_id(0)] = x;\n"
	"}\n";

TEST_F(cc, reconvergence_after_if_else_and_loop)
{
	struct vmgpu_program *prog = build(_metadata, reconv_src, NULL);
	ALLOC(uint32_t, o, 64);
	uint64_t uniform, divergent;
	struct ck c;

	ASSERT_NE(NULL, prog);
	load(_metadata, prog, "rc", &c);
	set_u64(&c, 0, o_va);
	set_u32(&c, 1, 0);
	ASSERT_EQ(0, run1d(self->tm, &c, 32, 32));
	uniform = last_stats.warp_instrs;
	set_u32(&c, 1, 1);
	ASSERT_EQ(0, run1d(self->tm, &c, 32, 32));
	divergent = last_stats.warp_instrs;
	/* the tail (> 60 instructions) once: the divergent run costs
	 * only the other arm more (the loop runs 7 trips either way) */
	fprintf(stderr, "# warp instructions: uniform %llu, divergent %llu\n",
		(unsigned long long)uniform, (unsigned long long)divergent);
	EXPECT_LT(divergent, uniform + 20);
	EXPECT_NE(o[1], o[2]);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */

static const char int_src[] =
	"kernel void i64ops(global const long *a, global const long *b,\n"
	"                   global long *o, int n)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	if (i >= (size_t)n) return;\n"
	"	long x = a[i], y = b[i];\n"
	"	int s = (int)(y & 63);\n"
	"	ulong ux = x;\n"
	"	o[12 * i + 0] = x + y;\n"
	"	o[12 * i + 1] = x - y;\n"
	"	o[12 * i + 2] = x * y;\n"
	"	o[12 * i + 3] = x << s;\n"
	"	o[12 * i + 4] = x >> s;\n"
	"	o[12 * i + 5] = (long)(ux >> s);\n"
	"	o[12 * i + 6] = (x < y) | (x <= y) << 1 | (ux > (ulong)y) << 2 |\n"
	"	               (x == y) << 3 | (ux >= (ulong)y) << 4 | (x != y) << 5;\n"
	"	o[12 * i + 7] = (x & y) ^ (x | 12345) ^ ~y;\n"
	"	o[12 * i + 8] = x > y ? x : y;\n"
	"	o[12 * i + 9] = (long)(int)x * 7 + (x >> 40) + (ux >> 33) + (x << 17);\n"
	"	o[12 * i + 10] = (long)(uint)y + (long)(int)(x >> 3);\n"
	"	o[12 * i + 11] = -x * 1000003L + (long)i * 0x100000001L;\n"
	"}\n"
	"kernel void divs(global const int *a, global const int *b,\n"
	"                 global int *o, global uint *uo, global short *so,\n"
	"                 global uchar *co, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i >= n) return;\n"
	"	int x = a[i], y = b[i];\n"
	"	o[2 * i] = x / y;\n"
	"	o[2 * i + 1] = x % y;\n"
	"	uo[2 * i] = (uint)x / (uint)y;\n"
	"	uo[2 * i + 1] = (uint)x % (uint)y;\n"
	"	short sx = (short)x, sy = (short)(y | 1);\n"
	"	so[i] = (short)(sx / sy + (sx >> 3) + (short)(sx * 3));\n"
	"	uchar cx = (uchar)x, cy = (uchar)(y | 1);\n"
	"	co[i] = (uchar)(cx / cy + cx * 5 + (cx >> 1) + (x < 0 ? 7 : 0));\n"
	"}\n";

TEST_F(cc, int64_and_division)
{
	const uint32_t n = 700;
	struct vmgpu_program *prog = build(_metadata, int_src, NULL);
	struct ck c;
	ALLOC(int64_t, a, n);
	ALLOC(int64_t, b, n);
	ALLOC(int64_t, o, 12 * n);
	ALLOC(int32_t, ia, n);
	ALLOC(int32_t, ib, n);
	ALLOC(int32_t, io, 2 * n);
	ALLOC(uint32_t, uo, 2 * n);
	ALLOC(int16_t, so, n);
	ALLOC(uint8_t, co, n);
	uint32_t i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++) {
		a[i] = (int64_t)((uint64_t)rng() << 40 ^ (uint64_t)rng() << 20 ^ rng());
		b[i] = (int64_t)((uint64_t)rng() << 41 ^ rng());
		if (i % 7 == 0)
			b[i] = a[i];
		if (i % 11 == 0)
			a[i] = -a[i];
		ia[i] = (int32_t)(rng() << 8 ^ rng());
		ib[i] = (int32_t)(rng() % 2001) - 1000;
		if (!ib[i])
			ib[i] = 3;
	}
	load(_metadata, prog, "i64ops", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, b_va);
	set_u64(&c, 2, o_va);
	set_u32(&c, 3, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		int64_t x = a[i], y = b[i], r[12];
		uint64_t ux = (uint64_t)x;
		int s = (int)(y & 63), k;

		r[0] = (int64_t)(ux + (uint64_t)y);
		r[1] = (int64_t)(ux - (uint64_t)y);
		r[2] = (int64_t)(ux * (uint64_t)y);
		r[3] = (int64_t)(ux << s);
		r[4] = x >> s;
		r[5] = (int64_t)(ux >> s);
		r[6] = (x < y) | (x <= y) << 1 | (ux > (uint64_t)y) << 2 |
		       (x == y) << 3 | (ux >= (uint64_t)y) << 4 | (x != y) << 5;
		r[7] = (x & y) ^ (x | 12345) ^ ~y;
		r[8] = x > y ? x : y;
		r[9] = (int64_t)((uint64_t)(int64_t)(int32_t)x * 7 +
				 (uint64_t)(x >> 40) + (ux >> 33) + (ux << 17));
		r[10] = (int64_t)(uint32_t)y + (int64_t)(int32_t)(x >> 3);
		r[11] = (int64_t)((uint64_t)-x * 1000003u + (uint64_t)i * 0x100000001ull);
		for (k = 0; k < 12; k++)
			if (r[k] != o[12 * i + k]) {
				fprintf(stderr, "i %u op %d: %llx vs %llx\n", i, k,
					(unsigned long long)r[k],
					(unsigned long long)o[12 * i + k]);
				ASSERT_EQ(r[k], o[12 * i + k]);
			}
	}
	vg_kernel_free(c.k);

	load(_metadata, prog, "divs", &c);
	set_u64(&c, 0, ia_va);
	set_u64(&c, 1, ib_va);
	set_u64(&c, 2, io_va);
	set_u64(&c, 3, uo_va);
	set_u64(&c, 4, so_va);
	set_u64(&c, 5, co_va);
	set_u32(&c, 6, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 32));
	for (i = 0; i < n; i++) {
		int32_t x = ia[i], y = ib[i];
		int16_t sx = (int16_t)x, sy = (int16_t)(y | 1);
		uint8_t cx = (uint8_t)x, cy = (uint8_t)(y | 1);

		ASSERT_EQ(x / y, io[2 * i]);
		ASSERT_EQ(x % y, io[2 * i + 1]);
		ASSERT_EQ((uint32_t)x / (uint32_t)y, uo[2 * i]);
		ASSERT_EQ((uint32_t)x % (uint32_t)y, uo[2 * i + 1]);
		ASSERT_EQ((int16_t)(sx / sy + (sx >> 3) + (int16_t)(sx * 3)), so[i]);
		ASSERT_EQ((uint8_t)(cx / cy + cx * 5 + (cx >> 1) + (x < 0 ? 7 : 0)),
			  co[i]);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */

static const char div64_src[] =
	"kernel void d64(global const long *a, global const long *b,\n"
	"                global long *o, global float *f, global long *g, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i >= n) return;\n"
	"	long x = a[i], y = b[i];\n"
	"	o[4 * i] = x / y;\n"
	"	o[4 * i + 1] = x % y;\n"
	"	o[4 * i + 2] = (long)((ulong)x / (ulong)y);\n"
	"	o[4 * i + 3] = (long)((ulong)x % (ulong)y);\n"
	"	f[2 * i] = (float)x;\n"
	"	f[2 * i + 1] = (float)(ulong)y;\n"
	"	g[2 * i] = (long)(f[2 * i] * 0.75f);\n"
	"	g[2 * i + 1] = (long)(ulong)(fabs(f[2 * i + 1]) * 0.5f);\n"
	"}\n";

TEST_F(cc, int64_division_and_conversions)
{
	const uint32_t n = 500;
	struct vmgpu_program *prog = build(_metadata, div64_src, NULL);
	struct ck c;
	ALLOC(int64_t, a, n);
	ALLOC(int64_t, b, n);
	ALLOC(int64_t, o, 4 * n);
	ALLOC(float, f, 2 * n);
	ALLOC(int64_t, g, 2 * n);
	uint32_t i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++) {
		int sh = (int)(rng() % 60);

		a[i] = (int64_t)((uint64_t)rng() << 40 ^ (uint64_t)rng() << 16 ^ rng());
		b[i] = (int64_t)(((uint64_t)rng() << 32 ^ rng()) >> sh);
		if (i % 3 == 0)
			a[i] = -a[i];
		if (i % 5 == 0)
			b[i] = -b[i];
		if (i % 7 == 0)
			a[i] >>= 30;		/* small: the 32-bit path */
		if (!b[i])
			b[i] = 1;
	}
	load(_metadata, prog, "d64", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, b_va);
	set_u64(&c, 2, o_va);
	set_u64(&c, 3, f_va);
	set_u64(&c, 4, g_va);
	set_u32(&c, 5, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		int64_t x = a[i], y = b[i];
		float fx = (float)x, fy = (float)(uint64_t)y;

		ASSERT_EQ(x / y, o[4 * i]);
		ASSERT_EQ(x % y, o[4 * i + 1]);
		ASSERT_EQ((int64_t)((uint64_t)x / (uint64_t)y), o[4 * i + 2]);
		ASSERT_EQ((int64_t)((uint64_t)x % (uint64_t)y), o[4 * i + 3]);
		ASSERT_EQ(0, memcmp(&fx, &f[2 * i], 4));
		ASSERT_EQ(0, memcmp(&fy, &f[2 * i + 1], 4));
		ASSERT_EQ((int64_t)(fx * 0.75f), g[2 * i]);
		ASSERT_EQ((int64_t)(uint64_t)(fabsf(fy) * 0.5f), g[2 * i + 1]);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

static const char table_src[] =
	"constant float coef[5] = { 0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f };\n"
	"constant int perm[2][4] = { { 3, 1, 0, 2 }, { 0, 0, 7, -9 } };\n"
	"kernel void filt(global const float *in, global float *out, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i >= n) return;\n"
	"	float s = 0.0f;\n"
	"	for (int k = 0; k < 5; k++)\n"
	"		s += coef[(k + i) % 5] * in[(i + k) % n];\n"
	"	out[i] = s + (float)perm[i & 1][i & 3];\n"
	"}\n";

TEST_F(cc, constant_arrays)
{
	const uint32_t n = 300;
	static const float coef[5] = { 0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f };
	static const int perm[2][4] = { { 3, 1, 0, 2 }, { 0, 0, 7, -9 } };
	struct vmgpu_program *prog = build(_metadata, table_src, NULL);
	struct ck c;
	ALLOC(float, in, n);
	ALLOC(float, out, n);
	uint32_t i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++)
		in[i] = rng_float();
	load(_metadata, prog, "filt", &c);
	EXPECT_GE(c.h.shared_bytes, 52u);
	set_u64(&c, 0, in_va);
	set_u64(&c, 1, out_va);
	set_u32(&c, 2, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		float s = 0.0f;
		int k;

		for (k = 0; k < 5; k++)
			s = fmaf(coef[(k + i) % 5], in[(i + k) % n], s);
		s += (float)perm[i & 1][i & 3];
		if (memcmp(&s, &out[i], 4))
			fprintf(stderr, "# %u: %a vs %a\n", i, out[i], s);
		ASSERT_EQ(0, memcmp(&s, &out[i], 4));
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* A tiled matrix multiply (2-D, local tiles, barriers in a loop) and a
 * grab bag: structs in a private array, 8/16-bit types, a char
 * parameter, an inlined helper with an early return, a 64-bit loop with a
 * data-dependent break, while (1) with two exits. */
static const char mm_src[] =
	"#define T 16\n"
	"kernel void matmul(int M, int N, int K, global const float *A,\n"
	"\t\t   global const float *B, global float *C)\n"
	"{\n"
	"\tlocal float As[T][T], Bs[T][T];\n"
	"\tint tx = get_local_id(0), ty = get_local_id(1);\n"
	"\tint col = get_global_id(0), row = get_global_id(1);\n"
	"\tfloat acc = 0.0f;\n"
	"\tfor (int t = 0; t < (K + T - 1) / T; t++) {\n"
	"\t\tint ac = t * T + tx, br = t * T + ty;\n"
	"\t\tAs[ty][tx] = row < M && ac < K ? A[row * K + ac] : 0.0f;\n"
	"\t\tBs[ty][tx] = br < K && col < N ? B[br * N + col] : 0.0f;\n"
	"\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n"
	"\t\tfor (int k = 0; k < T; k++)\n"
	"\t\t\tacc += As[ty][k] * Bs[k][tx];\n"
	"\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n"
	"\t}\n"
	"\tif (row < M && col < N)\n"
	"\t\tC[row * N + col] = acc;\n"
	"}\n"
	"typedef struct { int a; short b; uchar c; float f; } S;\n"
	"int helper(global int *p, int n) { int s = 0; for (int i = 0; i < n; i++) { if (p[i] < 0) return -s; s += p[i]; } return s; }\n"
	"kernel void misc(global int *o, global const short *sh, global uchar *uc, ulong big, char ch, global long *lo)\n"
	"{\n"
	"\tsize_t g = get_global_id(0);\n"
	"\tS arr[4];\n"
	"\tfor (int i = 0; i < 4; i++) { arr[i].a = (int)g * i; arr[i].b = sh[(g + i) & 7]; arr[i].c = uc[i]; arr[i].f = 0.5f * i; }\n"
	"\tint k = (int)(g % 4);\n"
	"\to[g] = arr[k].a + arr[k].b + arr[k].c + (int)arr[(k + 1) & 3].f + ch + helper(o + 100, (int)(g & 7));\n"
	"\tuc[16 + g] = (uchar)(arr[k].c * 3 + ch);\n"
	"\tulong acc = big;\n"
	"\tfor (size_t j = 0; j < g; j++) {\n"
	"\t\tacc = acc * 6364136223846793005ul + 1442695040888963407ul;\n"
	"\t\tif ((acc >> 60) == 7) break;\n"
	"\t}\n"
	"\tlo[g] = (long)acc;\n"
	"\twhile (1) {\n"
	"\t\tif (acc & 1) { lo[64 + g] = 1; break; }\n"
	"\t\tacc >>= 1;\n"
	"\t\tif (acc == 0) { lo[64 + g] = 2; break; }\n"
	"\t}\n"
	"}\n";

static int helper_ref(const int32_t *p, int n)
{
	int s = 0, i;

	for (i = 0; i < n; i++) {
		if (p[i] < 0)
			return -s;
		s += p[i];
	}
	return s;
}

TEST_F(cc, matmul_and_misc)
{
	const uint32_t M = 37, N = 45, K = 29;
	struct vmgpu_program *prog = build(_metadata, mm_src, NULL);
	struct ck c;
	ALLOC(float, A, M * K);
	ALLOC(float, B, K * N);
	ALLOC(float, C, M * N);
	ALLOC(int32_t, o, 108);
	ALLOC(int16_t, sh, 8);
	ALLOC(uint8_t, uc, 16 + 64);
	ALLOC(int64_t, lo, 128);
	const uint64_t big = 0x0123456789abcdefull;
	const int8_t ch = -5;
	uint32_t i, j, k;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < M * K; i++)
		A[i] = rng_float();
	for (i = 0; i < K * N; i++)
		B[i] = rng_float();
	load(_metadata, prog, "matmul", &c);
	EXPECT_EQ(2 * 16 * 16 * 4, c.h.shared_bytes);
	set_u32(&c, 0, M);
	set_u32(&c, 1, N);
	set_u32(&c, 2, K);
	set_u64(&c, 3, A_va);
	set_u64(&c, 4, B_va);
	set_u64(&c, 5, C_va);
	{
		uint32_t g[3] = { div_up(N, 16), div_up(M, 16), 1 };
		uint32_t bl[3] = { 16, 16, 1 };

		ASSERT_EQ(0, run_portion(self->tm, &c, g, bl, NULL, NULL, 0));
	}
	for (i = 0; i < M; i++)
		for (j = 0; j < N; j++) {
			float acc = 0.0f;

			for (k = 0; k < (K + 15) / 16 * 16; k++)
				acc = fmaf(k < K ? A[i * K + k] : 0.0f,
					   k < K ? B[k * N + j] : 0.0f, acc);
			ASSERT_EQ(0, memcmp(&acc, &C[i * N + j], 4));
		}
	vg_kernel_free(c.k);

	for (i = 0; i < 8; i++) {
		sh[i] = (int16_t)(rng() - 30000);
		o[100 + i] = (int32_t)(rng() % 100) - (i == 5 ? 200 : 0);
	}
	for (i = 0; i < 4; i++)
		uc[i] = (uint8_t)(200 + i * 17);
	load(_metadata, prog, "misc", &c);
	EXPECT_EQ(VMGPU_PARAM_I64, c.params[3].type);
	EXPECT_EQ(VMGPU_PARAM_I32, c.params[4].type);
	set_u64(&c, 0, o_va);
	set_u64(&c, 1, sh_va);
	set_u64(&c, 2, uc_va);
	set_u64(&c, 3, big);
	set_u32(&c, 4, (uint32_t)(int32_t)ch);
	set_u64(&c, 5, lo_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 64, 32));
	for (i = 0; i < 64; i++) {
		uint32_t kk = i % 4, n1 = (kk + 1) & 3;
		int32_t v = (int32_t)(i * kk) + sh[(i + kk) & 7] + uc[kk] +
			    (int32_t)(0.5f * n1) + ch +
			    helper_ref(&o[100], (int)(i & 7));
		uint64_t acc = big;

		ASSERT_EQ(v, o[i]);
		ASSERT_EQ((uint8_t)(uc[kk] * 3 + ch), uc[16 + i]);
		for (j = 0; j < i; j++) {
			acc = acc * 6364136223846793005ull + 1442695040888963407ull;
			if ((acc >> 60) == 7)
				break;
		}
		ASSERT_EQ((int64_t)acc, lo[i]);
		while (1) {
			if (acc & 1) {
				ASSERT_EQ(1, lo[64 + i]);
				break;
			}
			acc >>= 1;
			if (!acc) {
				ASSERT_EQ(2, lo[64 + i]);
				break;
			}
		}
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

static const char bits_src[] =
	"kernel void bits(global const uint *a, global const long *l,\n"
	"                 global uint *o, global long *lo)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	uint x = a[2 * i], y = a[2 * i + 1];\n"
	"	long p = l[2 * i], q = l[2 * i + 1];\n"
	"	o[8 * i + 0] = popcount(x);\n"
	"	o[8 * i + 1] = clz(x);\n"
	"	o[8 * i + 2] = rotate(x, y);\n"
	"	o[8 * i + 3] = add_sat(x, y);\n"
	"	o[8 * i + 4] = sub_sat(x, y);\n"
	"	o[8 * i + 5] = (uint)add_sat((int)x, (int)y);\n"
	"	o[8 * i + 6] = (uint)sub_sat((int)x, (int)y);\n"
	"	o[8 * i + 7] = (x >> 24) | ((x >> 8) & 0xff00) | ((x << 8) & 0xff0000) | (x << 24);\n"
	"	lo[4 * i + 0] = popcount(p) + clz(q);\n"
	"	lo[4 * i + 1] = rotate(p, q);\n"
	"	lo[4 * i + 2] = add_sat(p, q);\n"
	"	lo[4 * i + 3] = sub_sat(p, q);\n"
	"}\n";

static uint32_t clz32(uint32_t x) { return x ? (uint32_t)__builtin_clz(x) : 32; }
static int64_t clz64(uint64_t x) { return x ? __builtin_clzll(x) : 64; }

TEST_F(cc, bit_functions_and_saturation)
{
	const uint32_t n = 256;
	struct vmgpu_program *prog = build(_metadata, bits_src, NULL);
	struct ck c;
	ALLOC(uint32_t, a, 2 * n);
	ALLOC(int64_t, l, 2 * n);
	ALLOC(uint32_t, o, 8 * n);
	ALLOC(int64_t, lo, 4 * n);
	uint32_t i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < 2 * n; i++) {
		a[i] = i % 5 == 0 ? 0 : i % 7 == 0 ? 0x80000000u - (i & 3) :
		       (uint32_t)(rng() << 8 ^ rng()) >> (rng() % 32);
		l[i] = (int64_t)((uint64_t)rng() << 40 ^ (uint64_t)rng() << 16 ^ rng()) >> (rng() % 64);
		if (i % 9 == 0)
			l[i] = i % 2 ? INT64_MAX - 3 : INT64_MIN + 2;
	}
	load(_metadata, prog, "bits", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, l_va);
	set_u64(&c, 2, o_va);
	set_u64(&c, 3, lo_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		uint32_t x = a[2 * i], y = a[2 * i + 1], s = y & 31, us;
		int32_t sx = (int32_t)x, sy = (int32_t)y;
		int64_t p = l[2 * i], q = l[2 * i + 1], ss;
		uint64_t sq = (uint64_t)q & 63;

		ASSERT_EQ((uint32_t)__builtin_popcount(x), o[8 * i + 0]);
		ASSERT_EQ(clz32(x), o[8 * i + 1]);
		ASSERT_EQ(s ? x << s | x >> (32 - s) : x, o[8 * i + 2]);
		us = x + y;
		ASSERT_EQ(us < x ? 0xffffffffu : us, o[8 * i + 3]);
		ASSERT_EQ(x < y ? 0u : x - y, o[8 * i + 4]);
		ss = (int64_t)sx + sy;
		ASSERT_EQ((uint32_t)(int32_t)(ss > INT32_MAX ? INT32_MAX : ss < INT32_MIN ? INT32_MIN : ss),
			  o[8 * i + 5]);
		ss = (int64_t)sx - sy;
		ASSERT_EQ((uint32_t)(int32_t)(ss > INT32_MAX ? INT32_MAX : ss < INT32_MIN ? INT32_MIN : ss),
			  o[8 * i + 6]);
		ASSERT_EQ(__builtin_bswap32(x), o[8 * i + 7]);
		ASSERT_EQ(__builtin_popcountll((uint64_t)p) + clz64((uint64_t)q), lo[4 * i + 0]);
		ASSERT_EQ((int64_t)(sq ? (uint64_t)p << sq | (uint64_t)p >> (64 - sq) : (uint64_t)p),
			  lo[4 * i + 1]);
		{
			int64_t r;

			if (__builtin_add_overflow(p, q, &r))
				r = p < 0 ? INT64_MIN : INT64_MAX;
			ASSERT_EQ(r, lo[4 * i + 2]);
			if (__builtin_sub_overflow(p, q, &r))
				r = p < 0 ? INT64_MIN : INT64_MAX;
			ASSERT_EQ(r, lo[4 * i + 3]);
		}
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

static const char atom_src[] =
	"kernel void hist(global const uchar *d, global uint *bins, int n,\n"
	"                 global int *mm, global uint *bits)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i >= n) return;\n"
	"	atomic_inc(&bins[d[i]]);\n"
	"	atomic_add(&bins[256], d[i]);\n"
	"	atomic_min(&mm[0], (int)d[i] - 100);\n"
	"	atomic_max(&mm[1], (int)d[i] * 3);\n"
	"	atomic_or(&bits[0], 1u << (d[i] & 31));\n"
	"	atomic_and(&bits[1], ~(1u << (d[i] & 31)));\n"
	"	atomic_xor(&bits[2], (uint)d[i] * 0x01010101u);\n"
	"	int old = atomic_cmpxchg(&mm[2], i, i + 1);\n"
	"	(void)old;\n"
	"	atomic_sub(&mm[3], 2);\n"
	"	atomic_xchg(&mm[4], 42);\n"
	"}\n";

TEST_F(cc, atomics)
{
	const uint32_t n = 5000;
	struct vmgpu_program *prog = build(_metadata, atom_src, NULL);
	struct ck c;
	ALLOC(uint8_t, d, n);
	ALLOC(uint32_t, bins, 257);
	ALLOC(int32_t, mm, 5);
	ALLOC(uint32_t, bits, 3);
	uint32_t ref[257] = { 0 }, i, or = 0, and = ~0u, xr = 0;
	int32_t mn = 1 << 30, mx = -(1 << 30);

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++) {
		d[i] = (uint8_t)(rng() % 200);
		ref[d[i]]++;
		ref[256] += d[i];
		mn = mn < d[i] - 100 ? mn : d[i] - 100;
		mx = mx > d[i] * 3 ? mx : d[i] * 3;
		or |= 1u << (d[i] & 31);
		and &= ~(1u << (d[i] & 31));
		xr ^= d[i] * 0x01010101u;
	}
	mm[0] = 1 << 30;
	mm[1] = -(1 << 30);
	mm[2] = 0;
	mm[3] = 0;
	bits[1] = ~0u;
	load(_metadata, prog, "hist", &c);
	set_u64(&c, 0, d_va);
	set_u64(&c, 1, bins_va);
	set_u32(&c, 2, n);
	set_u64(&c, 3, mm_va);
	set_u64(&c, 4, bits_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 128));
	ASSERT_EQ(0, memcmp(ref, bins, sizeof(ref)));
	EXPECT_EQ(mn, mm[0]);
	EXPECT_EQ(mx, mm[1]);
	/* blocks and lanes run in order: the cmpxchg chain 0->1->...->n */
	EXPECT_EQ((int32_t)n, mm[2]);
	EXPECT_EQ(-2 * (int32_t)n, mm[3]);
	EXPECT_EQ(42, mm[4]);
	EXPECT_EQ(or, bits[0]);
	EXPECT_EQ(and, bits[1]);
	EXPECT_EQ(xr, bits[2]);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */

static const char priv_src[] =
	"kernel void sieve(global const int *in, global int *out, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	int buf[40];\n"
	"	if (i >= n) return;\n"
	"	int k = in[i] & 31;\n"
	"	for (int j = 0; j < 40; j++)\n"
	"		buf[j] = j * i;\n"
	"	for (int j = 0; j < 40; j++)\n"
	"		buf[(j * 7 + k) % 40] += buf[j] ^ k;\n"
	"	out[i] = buf[k] + buf[(k + 13) % 40];\n"
	"}\n";

static int32_t sieve_ref(int32_t i, int32_t v)
{
	int32_t buf[40], k = v & 31, j;

	for (j = 0; j < 40; j++)
		buf[j] = j * i;
	for (j = 0; j < 40; j++)
		buf[(j * 7 + k) % 40] += buf[j] ^ k;
	return buf[k] + buf[(k + 13) % 40];
}

TEST_F(cc, private_array)
{
	const uint32_t n = 333;
	struct vmgpu_program *prog = build(_metadata, priv_src, NULL);
	struct ck c;
	ALLOC(int32_t, in, n);
	ALLOC(int32_t, out, n);
	uint32_t i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++)
		in[i] = (int32_t)rng();
	load(_metadata, prog, "sieve", &c);
	EXPECT_GE(c.priv, 160u);
	/* reserved registers at the bottom: num_regs is what is used */
	EXPECT_LT(c.h.num_regs, 64u);
	EXPECT_EQ(4, c.sig.num_params);
	EXPECT_EQ(VMGPU_PARAM_BUF_RW, c.params[3].type);
	set_u64(&c, 0, in_va);
	set_u64(&c, 1, out_va);
	set_u32(&c, 2, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++)
		ASSERT_EQ(sieve_ref((int32_t)i, in[i]), out[i]);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* Many values live at once: with 16 registers they must spill. */
static const char spill_src[] =
	"kernel void many(global const float *in, global float *out)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	float v[24];\n"
	"	for (int k = 0; k < 24; k++)\n"
	"		v[k] = in[i * 24 + k];\n"
	"	float s = 0.0f;\n"
	"	for (int k = 0; k < 24; k++)\n"
	"		for (int j = 0; j < 24; j++)\n"
	"			s += v[k] * v[j] * (float)(k - j);\n"
	"	for (int k = 0; k < 24; k++)\n"
	"		out[i * 24 + k] = v[k] * s + v[23 - k];\n"
	"}\n";

TEST_F(cc, register_spilling)
{
	const uint32_t n = 70;
	struct vmgpu_program *prog = build(_metadata, spill_src,
					   "-vmgpu-max-regs=16");
	struct vmgpu_program *prog2 = build(_metadata, spill_src, NULL);
	struct ck c, c2;
	ALLOC(float, in, n * 24);
	ALLOC(float, out, n * 24);
	ALLOC(float, out2, n * 24);
	uint32_t i;

	ASSERT_NE(NULL, prog);
	ASSERT_NE(NULL, prog2);
	for (i = 0; i < n * 24; i++)
		in[i] = rng_float();
	load(_metadata, prog, "many", &c);
	load(_metadata, prog2, "many", &c2);
	EXPECT_LE(c.h.num_regs, 16u);
	EXPECT_GT(c.priv, 0u);		/* spill slots */
	EXPECT_GT(c2.h.num_regs, 16u);
	set_u64(&c, 0, in_va);
	set_u64(&c, 1, out_va);
	set_u64(&c2, 0, in_va);
	set_u64(&c2, 1, out2_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 32));
	ASSERT_EQ(0, run1d(self->tm, &c2, n, 32));
	/* same code before allocation: bit-identical results */
	ASSERT_EQ(0, memcmp(out, out2, n * 24 * 4));
	for (i = 0; i < n; i++) {
		const float *v = &in[i * 24];
		float s = 0.0f;
		int k, j;

		for (k = 0; k < 24; k++)
			for (j = 0; j < 24; j++)
				s = fmaf(v[k] * v[j], (float)(k - j), s);
		for (k = 0; k < 24; k++)
			ASSERT_LE(fabsf(fmaf(v[k], s, v[23 - k]) - out[i * 24 + k]),
				  1e-3f * (1.0f + fabsf(s)));
	}
	vg_kernel_free(c.k);
	vg_kernel_free(c2.k);
	vmgpu_program_destroy(prog);
	vmgpu_program_destroy(prog2);
}

/* ------------------------------------------------------------------ */

static const char wi_src[] =
	"kernel void ids(global uint *o)\n"
	"{\n"
	"	uint x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
	"	uint w = get_global_size(0), h = get_global_size(1);\n"
	"	global uint *p = o + 8 * ((z * h + y) * w + x);\n"
	"	p[0] = get_local_id(0) | get_local_id(1) << 8 | get_local_id(2) << 16;\n"
	"	p[1] = get_group_id(0) | get_group_id(1) << 8 | get_group_id(2) << 16;\n"
	"	p[2] = get_local_size(0) | get_local_size(1) << 8 | get_local_size(2) << 16;\n"
	"	p[3] = get_num_groups(0) | get_num_groups(1) << 8 | get_num_groups(2) << 16;\n"
	"	p[4] = get_global_offset(0) | get_global_offset(1) << 8 | get_global_offset(2) << 16;\n"
	"	p[5] = get_work_dim();\n"
	"	p[6] = x | y << 8 | z << 16;\n"
	"	p[7] = 0xabcd;\n"
	"}\n";

TEST_F(cc, work_item_functions_and_portions)
{
	/* index space 6x4x2 blocks of 4x3x2; this portion: origin (2,1,1),
	 * 3x2x1 blocks */
	const uint32_t tot[3] = { 6, 4, 2 }, bl[3] = { 4, 3, 2 };
	const uint32_t org[3] = { 2, 1, 1 }, g[3] = { 3, 2, 1 };
	const uint32_t W = 24, H = 12, D = 4;
	struct vmgpu_program *prog = build(_metadata, wi_src, NULL);
	struct ck c;
	ALLOC(uint32_t, o, 8 * W * H * D);
	uint32_t x, y, z;

	ASSERT_NE(NULL, prog);
	load(_metadata, prog, "ids", &c);
	set_u64(&c, 0, o_va);
	ASSERT_EQ(0, run_portion(self->tm, &c, g, bl, org, tot, 0));
	for (z = 0; z < D; z++)
		for (y = 0; y < H; y++)
			for (x = 0; x < W; x++) {
				uint32_t *p = &o[8 * ((z * H + y) * W + x)];
				int in = x / 4 >= 2 && x / 4 < 5 && y / 3 >= 1 &&
					 y / 3 < 3 && z / 2 == 1;

				if (!in) {
					ASSERT_EQ(0u, p[7]);
					continue;
				}
				ASSERT_EQ(0xabcdu, p[7]);
				ASSERT_EQ((x % 4) | (y % 3) << 8 | (z % 2) << 16, p[0]);
				ASSERT_EQ((x / 4) | (y / 3) << 8 | (z / 2) << 16, p[1]);
				ASSERT_EQ(4u | 3 << 8 | 2 << 16, p[2]);
				ASSERT_EQ(6u | 4 << 8 | 2 << 16, p[3]);
				ASSERT_EQ(8u | 3 << 8 | 2 << 16, p[4]);
				ASSERT_EQ(3u, p[5]);
				ASSERT_EQ(x | y << 8 | z << 16, p[6]);
			}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

static const char vec_src[] =
	"kernel void v4(global const float4 *a, global const float *b,\n"
	"               global float4 *o, global float *d, global int4 *ii)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	float4 x = a[i], y = vload4(i, b);\n"
	"	float4 r = x * y + (float4)(1.0f, 2.0f, 3.0f, 4.0f);\n"
	"	o[i] = r.wzyx - fabs(x);\n"
	"	d[i] = dot(x, y);\n"
	"	int4 k = convert_int4(x * 100.0f);\n"
	"	ii[i] = (k >> 2) + (int4)(i, -i, 2 * i, 7) + min(k, (int4)(3));\n"
	"}\n"
	"kernel void v16(global const float16 *a, global float16 *o)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	o[i] = clamp(sqrt(fabs(a[i])), 0.5f, 2.0f) + fmax(a[i], a[i].sfedcba9876543210);\n"
	"}\n";

TEST_F(cc, vectors_scalarised)
{
	const uint32_t n = 100;
	struct vmgpu_program *prog = build(_metadata, vec_src, NULL);
	struct ck c;
	ALLOC(float, a, 4 * n);
	ALLOC(float, b, 4 * n);
	ALLOC(float, o, 4 * n);
	ALLOC(float, d, n);
	ALLOC(int32_t, ii, 4 * n);
	uint32_t i, k;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < 4 * n; i++) {
		a[i] = rng_float();
		b[i] = rng_float();
	}
	load(_metadata, prog, "v4", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, b_va);
	set_u64(&c, 2, o_va);
	set_u64(&c, 3, d_va);
	set_u64(&c, 4, ii_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 32));
	for (i = 0; i < n; i++) {
		const float *x = &a[4 * i], *y = &b[4 * i];
		float dd = fmaf(x[3], y[3], fmaf(x[2], y[2], fmaf(x[1], y[1], x[0] * y[0])));

		for (k = 0; k < 4; k++) {
			float r = fmaf(x[3 - k], y[3 - k], (float)(4 - k)) - fabsf(x[k]);
			int32_t kk = (int32_t)(x[k] * 100.0f);
			int32_t add[4] = { (int32_t)i, -(int32_t)i, 2 * (int32_t)i, 7 };

			ASSERT_EQ(0, memcmp(&r, &o[4 * i + k], 4));
			ASSERT_EQ((kk >> 2) + add[k] + (kk < 3 ? kk : 3), ii[4 * i + k]);
		}
		ASSERT_EQ(0, memcmp(&dd, &d[i], 4));
	}
	vg_kernel_free(c.k);

	/* float16: clamp, sqrt, fabs, fmax by halves, a reversing swizzle */
	load(_metadata, prog, "v16", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, o_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n / 4, 32));
	for (i = 0; i < n / 4; i++)
		for (k = 0; k < 16; k++) {
			float x = a[16 * i + k], y = a[16 * i + 15 - k];
			float r = fminf(fmaxf(sqrtf(fabsf(x)), 0.5f), 2.0f) + fmaxf(x, y);

			ASSERT_EQ(0, memcmp(&r, &o[16 * i + k], 4));
		}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */
/* Random integer expressions, compared with an evaluator in C          */
/* ------------------------------------------------------------------ */

enum { T_INT, T_UINT, T_LONG, T_ULONG, T_SHORT, T_UCHAR, T_COUNT };
static const char *const ty_name[T_COUNT] = {
	"int", "uint", "long", "ulong", "short", "uchar" };
static const char *const uty_name[T_COUNT] = {
	"uint", "uint", "ulong", "ulong", "ushort", "uchar" };
static const int ty_bits[T_COUNT] = { 32, 32, 64, 64, 16, 8 };
static const int ty_signed[T_COUNT] = { 1, 0, 1, 0, 1, 0 };

enum { E_VAR, E_CONST, E_ADD, E_SUB, E_MUL, E_AND, E_OR, E_XOR, E_NOT,
       E_NEG, E_SHL, E_SHR, E_DIV, E_REM, E_LT, E_EQ, E_SEL, E_MIN,
       E_COUNT };

struct enode {
	int op, a, b, c;
	uint64_t k;
};

#define EXPR_NODES	128	/* a full ternary tree of depth 4: 121 */
#define EXPRS_PER_TYPE	20
#define EXPR_INPUTS	256

struct expr {
	int ty, root, n;
	struct enode nodes[EXPR_NODES];
};

/* a value of type @t, sign- or zero-extended to 64 bits */
static uint64_t norm(int t, uint64_t v)
{
	int b = ty_bits[t];

	if (b == 64)
		return v;
	v &= (1ull << b) - 1;
	if (ty_signed[t] && (v >> (b - 1)) & 1)
		v |= ~0ull << b;
	return v;
}

static int gen(struct expr *e, int depth)
{
	int i = e->n++, op;
	struct enode *n = &e->nodes[i];

	op = depth <= 0 ? (int)(rng() % 2) :
	     2 + (int)(rng() % (E_COUNT - 2));
	n->op = op;
	if (op == E_VAR) {
		n->k = rng() % 4;
	} else if (op == E_CONST) {
		static const uint64_t edge[] = { 0, 1, 2, 3, 7, 31, 32, 63,
			0x7fffffffull, 0x80000000ull, ~0ull, 0xffffull,
			0x8000000000000000ull };
		n->k = rng() % 3 ? edge[rng() % 13] :
		       (uint64_t)rng() << 40 ^ (uint64_t)rng() << 16 ^ rng();
	} else {
		n->a = gen(e, depth - 1);
		if (op != E_NOT && op != E_NEG)
			n->b = gen(e, depth - 1);
		if (op == E_SEL)
			n->c = gen(e, depth - 1);
	}
	return i;
}

static void print_expr(const struct expr *e, int i, char *buf, size_t len)
{
	const struct enode *n = &e->nodes[i];
	const char *T = ty_name[e->ty], *UT = uty_name[e->ty];
	int w = ty_bits[e->ty] == 64 ? 64 : 32;
	const char *WT = w == 64 ? "ulong" : "uint";
	char A[16384], B[16384], C[16384];
	static const char *const bin[] = { [E_ADD] = "+", [E_SUB] = "-",
					   [E_MUL] = "*" };
	static const char *const bit[] = { [E_AND] = "&", [E_OR] = "|",
					   [E_XOR] = "^" };

	A[0] = B[0] = C[0] = 0;
	if (n->op >= E_ADD)
		print_expr(e, n->a, A, sizeof(A));
	if (n->op >= E_ADD && n->op != E_NOT && n->op != E_NEG)
		print_expr(e, n->b, B, sizeof(B));
	if (n->op == E_SEL)
		print_expr(e, n->c, C, sizeof(C));
	switch (n->op) {
	case E_VAR: snprintf(buf, len, "x%d", (int)n->k); break;
	case E_CONST: snprintf(buf, len, "((%s)0x%llxul)", T, (unsigned long long)n->k); break;
	case E_ADD: case E_SUB: case E_MUL:
		snprintf(buf, len, "((%s)((%s)%s %s (%s)%s))", T, UT, A, bin[n->op], UT, B);
		break;
	case E_AND: case E_OR: case E_XOR:
		snprintf(buf, len, "((%s)(%s %s %s))", T, A, bit[n->op], B);
		break;
	case E_NOT: snprintf(buf, len, "((%s)~%s)", T, A); break;
	case E_NEG: snprintf(buf, len, "((%s)-(%s)%s)", T, UT, A); break;
	case E_SHL:
		snprintf(buf, len, "((%s)((%s)(%s)%s << (%s & %d)))", T, WT, UT, A, B, w - 1);
		break;
	case E_SHR: snprintf(buf, len, "((%s)(%s >> (%s & %d)))", T, A, B, w - 1); break;
	case E_DIV: case E_REM:
		snprintf(buf, len, "%s_%s(%s, %s)", n->op == E_DIV ? "dv" : "rm", T, A, B);
		break;
	case E_LT: snprintf(buf, len, "((%s)(%s < %s))", T, A, B); break;
	case E_EQ: snprintf(buf, len, "((%s)(%s == %s))", T, A, B); break;
	case E_SEL: snprintf(buf, len, "((%s & 1) ? %s : %s)", A, B, C); break;
	case E_MIN: snprintf(buf, len, "mn_%s(%s, %s)", T, A, B); break;
	}
}

static uint64_t eval(const struct expr *e, int i, const uint64_t *x)
{
	const struct enode *n = &e->nodes[i];
	int t = e->ty, sg = ty_signed[t], w = ty_bits[t] == 64 ? 64 : 32;
	uint64_t a = 0, b = 0, c = 0, um = ty_bits[t] == 64 ? ~0ull :
					       (1ull << ty_bits[t]) - 1;

	if (n->op >= E_ADD)
		a = eval(e, n->a, x);
	if (n->op >= E_ADD && n->op != E_NOT && n->op != E_NEG)
		b = eval(e, n->b, x);
	if (n->op == E_SEL)
		c = eval(e, n->c, x);
	switch (n->op) {
	case E_VAR: return x[n->k];
	case E_CONST: return norm(t, n->k);
	case E_ADD: return norm(t, a + b);
	case E_SUB: return norm(t, a - b);
	case E_MUL: return norm(t, a * b);
	case E_AND: return norm(t, a & b);
	case E_OR: return norm(t, a | b);
	case E_XOR: return norm(t, a ^ b);
	case E_NOT: return norm(t, ~a);
	case E_NEG: return norm(t, 0 - a);
	case E_SHL: {
		int s = (int)(b & (uint64_t)(w - 1));
		uint64_t v = a & um;

		return norm(t, w == 64 ? v << s : (uint64_t)(uint32_t)((uint32_t)v << s));
	}
	case E_SHR: {
		int s = (int)(b & (uint64_t)(w - 1));

		if (w == 64)
			return norm(t, sg ? (uint64_t)((int64_t)a >> s) : a >> s);
		return norm(t, sg ? (uint64_t)(int64_t)((int32_t)a >> s) :
			       (uint64_t)((uint32_t)a >> s));
	}
	case E_DIV: case E_REM:
		if (b == 0 || (sg && (int64_t)b == -1))
			return a;
		if (sg)
			return norm(t, (uint64_t)(n->op == E_DIV ? (int64_t)a / (int64_t)b :
						  (int64_t)a % (int64_t)b));
		return norm(t, n->op == E_DIV ? a / b : a % b);
	case E_LT: return sg ? (int64_t)a < (int64_t)b : a < b;
	case E_EQ: return a == b;
	case E_SEL: return (a & 1) ? b : c;
	case E_MIN: return (sg ? (int64_t)a < (int64_t)b : a < b) ? a : b;
	}
	return 0;
}

TEST_F(cc, random_integer_expressions)
{
	static struct expr ex[T_COUNT * EXPRS_PER_TYPE];
	size_t cap = 1 << 20, len = 0;
	char *src = malloc(cap), *body = malloc(1 << 16);
	struct vmgpu_program *prog, *prog16;
	ALLOC(uint64_t, in, 4 * EXPR_INPUTS);
	ALLOC(uint64_t, out, EXPR_INPUTS);
	int k, t, failures = 0, pass, spilled = 0;

	ASSERT_NE(NULL, src);
	/* a fixed seed; VMGPU_TEST_SEED=N explores others */
	if (getenv("VMGPU_TEST_SEED"))
		rng_state = (uint32_t)strtoul(getenv("VMGPU_TEST_SEED"), NULL, 0);
	/* helpers (inlined): division defined everywhere, a minimum */
	for (t = 0; t < T_COUNT; t++)
		len += (size_t)snprintf(src + len, cap - len,
			"%s dv_%s(%s a, %s b) { return b == 0 || (%d && b == (%s)-1) ? a : (%s)(a / b); }\n"
			"%s rm_%s(%s a, %s b) { return b == 0 || (%d && b == (%s)-1) ? a : (%s)(a %% b); }\n"
			"%s mn_%s(%s a, %s b) { return a < b ? a : b; }\n",
			ty_name[t], ty_name[t], ty_name[t], ty_name[t], ty_signed[t], ty_name[t], ty_name[t],
			ty_name[t], ty_name[t], ty_name[t], ty_name[t], ty_signed[t], ty_name[t], ty_name[t],
			ty_name[t], ty_name[t], ty_name[t], ty_name[t]);
	for (k = 0; k < T_COUNT * EXPRS_PER_TYPE; k++) {
		struct expr *e = &ex[k];

		e->ty = k / EXPRS_PER_TYPE;
		e->n = 0;
		e->root = gen(e, 2 + (int)(rng() % 3));
		print_expr(e, e->root, body, 1 << 16);
		len += (size_t)snprintf(src + len, cap - len,
			"kernel void e%d(global const %s *in, global %s *out)\n"
			"{\n\tsize_t i = get_global_id(0);\n"
			"\t%s x0 = in[4 * i], x1 = in[4 * i + 1], x2 = in[4 * i + 2],"
			" x3 = in[4 * i + 3];\n\tout[i] = %s;\n}\n",
			k, ty_name[e->ty], ty_name[e->ty], ty_name[e->ty], body);
	}
	prog = build(_metadata, src, NULL);
	ASSERT_NE(NULL, prog);
	EXPECT_EQ(T_COUNT * EXPRS_PER_TYPE, vmgpu_program_kernel_count(prog));
	/* the same with 16 registers: the large ones spill */
	prog16 = build(_metadata, src, "-vmgpu-max-regs=16");
	ASSERT_NE(NULL, prog16);
	for (k = 0; k < T_COUNT * EXPRS_PER_TYPE; k++) {
		struct expr *e = &ex[k];
		int bytes = ty_bits[e->ty] / 8, i, j;
		uint8_t *inb = (uint8_t *)in, *outb = (uint8_t *)out;
		char name[32];
		struct ck c;

		t = e->ty;
		for (i = 0; i < 4 * EXPR_INPUTS; i++) {
			static const uint64_t edge[] = { 0, 1, ~0ull, 2, 0x80000000ull,
				0x7fffffffull, 0x8000000000000000ull, 0x7fff, 0x8000, 0xff };
			uint64_t v = rng() % 4 ? (uint64_t)rng() << 40 ^
				     (uint64_t)rng() << 20 ^ rng() : edge[rng() % 10];

			if (rng() % 3 == 0)
				v = norm(t, rng() % 64) - (rng() % 2 ? 32 : 0);
			memcpy(inb + (size_t)i * bytes, &v, bytes);
		}
		snprintf(name, sizeof(name), "e%d", k);
		for (pass = 0; pass < 2; pass++) {
		load(_metadata, pass ? prog16 : prog, name, &c);
		if (pass && c.priv)
			spilled++;
		set_u64(&c, 0, in_va);
		set_u64(&c, 1, out_va);
		ASSERT_EQ(0, run1d(self->tm, &c, EXPR_INPUTS, 64));
		for (i = 0; i < EXPR_INPUTS; i++) {
			uint64_t x[4], got = 0, want;

			for (j = 0; j < 4; j++) {
				uint64_t v = 0;

				memcpy(&v, inb + (size_t)(4 * i + j) * bytes, bytes);
				x[j] = norm(t, v);
			}
			want = eval(e, e->root, x);
			memcpy(&got, outb + (size_t)i * bytes, bytes);
			if (norm(t, got) != norm(t, want)) {
				print_expr(e, e->root, body, 1 << 16);
				fprintf(stderr, "# %s%s %s: x=%llx %llx %llx %llx got %llx want %llx\n#   %s\n",
					name, pass ? " (16 registers)" : "", ty_name[t],
					(unsigned long long)x[0],
					(unsigned long long)x[1], (unsigned long long)x[2],
					(unsigned long long)x[3], (unsigned long long)got,
					(unsigned long long)want, body);
				failures++;
				break;
			}
		}
		vg_kernel_free(c.k);
		}
	}
	EXPECT_EQ(0, failures);
	EXPECT_GT(spilled, 0);
	vmgpu_program_destroy(prog);
	vmgpu_program_destroy(prog16);
	free(src);
	free(body);
}

/* ------------------------------------------------------------------ */
/* Random structured programs: divergent if/else, loops with break      */
/* ------------------------------------------------------------------ */

#define PV	6		/* variables v0..v5 */
#define PNODES	512

enum { S_ASSIGN, S_IF, S_LOOP };
enum { X_VAR, X_CONST, X_ADD, X_SUB, X_MUL, X_XOR, X_AND, X_SHR, X_LT,
       X_SEL, X_COUNT };

struct pnode {
	int kind, v, a, b, c;	/* statement: kind, var, expr, first, second */
	int next;		/* next statement of the block, -1 */
	uint32_t k;
};

struct prog {
	int n, root;
	struct pnode nd[PNODES];
};

static int pnew(struct prog *p)
{
	if (p->n >= PNODES)
		abort();
	memset(&p->nd[p->n], 0, sizeof(p->nd[0]));
	p->nd[p->n].next = -1;
	return p->n++;
}

static int pexpr(struct prog *p, int depth)
{
	int i = pnew(p), op = depth <= 0 ? (int)(rng() % 2) :
			      (int)(rng() % X_COUNT);

	p->nd[i].kind = op;
	if (op == X_VAR)
		p->nd[i].k = rng() % PV;
	else if (op == X_CONST)
		p->nd[i].k = rng() % 3 ? rng() % 16 : rng() << 8;
	else {
		p->nd[i].a = pexpr(p, depth - 1);
		p->nd[i].b = pexpr(p, depth - 1);
		if (op == X_SEL)
			p->nd[i].c = pexpr(p, depth - 1);
	}
	return i;
}

static int pblock(struct prog *p, int depth, int len)
{
	int first = -1, last = -1, j;

	for (j = 0; j < len && p->n < PNODES - 40; j++) {
		int i = pnew(p), r = (int)(rng() % 10);
		struct pnode *s = &p->nd[i];

		s->kind = depth >= 3 || r < 6 ? S_ASSIGN : r < 8 ? S_IF : S_LOOP;
		s->v = (int)(rng() % PV);
		s->a = pexpr(p, 1 + (int)(rng() % 2));
		if (s->kind == S_IF) {
			p->nd[i].b = pblock(p, depth + 1, 1 + (int)(rng() % 3));
			p->nd[i].c = rng() % 2 ? pblock(p, depth + 1, 1 + (int)(rng() % 2)) : -1;
		} else if (s->kind == S_LOOP) {
			p->nd[i].b = pblock(p, depth + 1, 1 + (int)(rng() % 3));
			p->nd[i].c = pexpr(p, 1);	/* break condition */
		}
		if (last >= 0)
			p->nd[last].next = i;
		else
			first = i;
		last = i;
	}
	return first;
}

static size_t pprint_expr(const struct prog *p, int i, char *buf, size_t len)
{
	const struct pnode *n = &p->nd[i];
	static const char *const op[] = { [X_ADD] = "+", [X_SUB] = "-",
		[X_MUL] = "*", [X_XOR] = "^", [X_AND] = "&" };
	size_t w = 0;

#define PUT(...) (w += (size_t)snprintf(buf + w, w < len ? len - w : 0, __VA_ARGS__))
	switch (n->kind) {
	case X_VAR: PUT("v%u", n->k); break;
	case X_CONST: PUT("%uu", n->k); break;
	case X_SHR:
		PUT("(");
		w += pprint_expr(p, n->a, buf + w, len - w);
		PUT(" >> (");
		w += pprint_expr(p, n->b, buf + w, len - w);
		PUT(" & 31u))");
		break;
	case X_LT:
		PUT("(uint)(");
		w += pprint_expr(p, n->a, buf + w, len - w);
		PUT(" < ");
		w += pprint_expr(p, n->b, buf + w, len - w);
		PUT(")");
		break;
	case X_SEL:
		PUT("((");
		w += pprint_expr(p, n->a, buf + w, len - w);
		PUT(" & 1u) ? ");
		w += pprint_expr(p, n->b, buf + w, len - w);
		PUT(" : ");
		w += pprint_expr(p, n->c, buf + w, len - w);
		PUT(")");
		break;
	default:
		PUT("(");
		w += pprint_expr(p, n->a, buf + w, len - w);
		PUT(" %s ", op[n->kind]);
		w += pprint_expr(p, n->b, buf + w, len - w);
		PUT(")");
	}
	return w;
}

static size_t pprint_block(const struct prog *p, int i, int depth, char *buf,
			   size_t len)
{
	size_t w = 0;

	for (; i >= 0; i = p->nd[i].next) {
		const struct pnode *s = &p->nd[i];

		switch (s->kind) {
		case S_ASSIGN:
			PUT("v%d = ", s->v);
			w += pprint_expr(p, s->a, buf + w, len - w);
			PUT(";\n");
			break;
		case S_IF:
			PUT("if (");
			w += pprint_expr(p, s->a, buf + w, len - w);
			PUT(" & 1u) {\n");
			w += pprint_block(p, s->b, depth + 1, buf + w, len - w);
			PUT("}");
			if (s->c >= 0) {
				PUT(" else {\n");
				w += pprint_block(p, s->c, depth + 1, buf + w, len - w);
				PUT("}");
			}
			PUT("\n");
			break;
		case S_LOOP:
			PUT("for (uint k%d = 0; k%d < (", depth, depth);
			w += pprint_expr(p, s->a, buf + w, len - w);
			PUT(" & 7u); k%d++) {\n", depth);
			w += pprint_block(p, s->b, depth + 1, buf + w, len - w);
			PUT("if ((");
			w += pprint_expr(p, s->c, buf + w, len - w);
			PUT(" & 3u) == 0) break;\n}\n");
			break;
		}
	}
#undef PUT
	return w;
}

static uint32_t peval(const struct prog *p, int i, const uint32_t *v)
{
	const struct pnode *n = &p->nd[i];
	uint32_t a = 0, b = 0;

	if (n->kind >= X_ADD) {
		a = peval(p, n->a, v);
		b = peval(p, n->b, v);
	}
	switch (n->kind) {
	case X_VAR: return v[n->k];
	case X_CONST: return n->k;
	case X_ADD: return a + b;
	case X_SUB: return a - b;
	case X_MUL: return a * b;
	case X_XOR: return a ^ b;
	case X_AND: return a & b;
	case X_SHR: return a >> (b & 31);
	case X_LT: return a < b;
	case X_SEL: return (a & 1) ? b : peval(p, n->c, v);
	}
	return 0;
}

static void prun(const struct prog *p, int i, uint32_t *v)
{
	for (; i >= 0; i = p->nd[i].next) {
		const struct pnode *s = &p->nd[i];
		uint32_t k;

		switch (s->kind) {
		case S_ASSIGN:
			v[s->v] = peval(p, s->a, v);
			break;
		case S_IF:
			if (peval(p, s->a, v) & 1)
				prun(p, s->b, v);
			else if (s->c >= 0)
				prun(p, s->c, v);
			break;
		case S_LOOP:
			for (k = 0; k < (peval(p, s->a, v) & 7); k++) {
				prun(p, s->b, v);
				if ((peval(p, s->c, v) & 3) == 0)
					break;
			}
			break;
		}
	}
}

#define NPROGS		24
#define PINPUTS		256

TEST_F(cc, random_structured_programs)
{
	static struct prog pg[NPROGS];
	size_t cap = 1 << 21, len = 0;
	char *src = malloc(cap);
	struct vmgpu_program *prog[2];
	ALLOC(uint32_t, in, PV * PINPUTS);
	ALLOC(uint32_t, out, PV * PINPUTS);
	int k, pass, failures = 0, spilled = 0;

	ASSERT_NE(NULL, src);
	if (getenv("VMGPU_TEST_SEED"))
		rng_state = (uint32_t)strtoul(getenv("VMGPU_TEST_SEED"), NULL, 0) * 7 + 1;
	for (k = 0; k < NPROGS; k++) {
		pg[k].n = 0;
		pg[k].root = pblock(&pg[k], 0, 4 + (int)(rng() % 6));
		len += (size_t)snprintf(src + len, cap - len,
			"kernel void p%d(global const uint *in, global uint *out)\n{\n"
			"uint i = get_global_id(0);\n", k);
		for (int j = 0; j < PV; j++)
			len += (size_t)snprintf(src + len, cap - len,
						"uint v%d = in[%d * i + %d];\n", j, PV, j);
		len += pprint_block(&pg[k], pg[k].root, 0, src + len, cap - len);
		for (int j = 0; j < PV; j++)
			len += (size_t)snprintf(src + len, cap - len,
						"out[%d * i + %d] = v%d;\n", PV, j, j);
		len += (size_t)snprintf(src + len, cap - len, "}\n");
		ASSERT_LT(len, cap);
	}
	prog[0] = build(_metadata, src, NULL);
	prog[1] = build(_metadata, src, "-vmgpu-max-regs=16");
	ASSERT_NE(NULL, prog[0]);
	ASSERT_NE(NULL, prog[1]);
	for (k = 0; k < NPROGS; k++) {
		char name[16];
		int i, j;

		snprintf(name, sizeof(name), "p%d", k);
		for (i = 0; i < PV * PINPUTS; i++)
			in[i] = rng() % 4 ? rng() : rng() % 8;
		for (pass = 0; pass < 2; pass++) {
			struct ck c;

			load(_metadata, prog[pass], name, &c);
			spilled += pass && c.priv;
			set_u64(&c, 0, in_va);
			set_u64(&c, 1, out_va);
			/* blocks of 64: two warps, each diverging its own way */
			ASSERT_EQ(0, run1d(self->tm, &c, PINPUTS, 64));
			for (i = 0; i < PINPUTS; i++) {
				uint32_t v[PV];

				memcpy(v, &in[PV * i], sizeof(v));
				prun(&pg[k], pg[k].root, v);
				for (j = 0; j < PV; j++)
					if (v[j] != out[PV * i + j])
						break;
				if (j < PV) {
					fprintf(stderr, "# %s%s: input %d v%d got %x want %x\n",
						name, pass ? " (16 registers)" : "",
						i, j, out[PV * i + j], v[j]);
					failures++;
					break;
				}
			}
			vg_kernel_free(c.k);
		}
	}
	fprintf(stderr, "# %d of %d programs spill with 16 registers\n",
		spilled, NPROGS);
	EXPECT_GT(spilled, 0);
	EXPECT_EQ(0, failures);
	if (failures)
		fprintf(stderr, "%s", src);
	vmgpu_program_destroy(prog[0]);
	vmgpu_program_destroy(prog[1]);
	free(src);
}

/* ------------------------------------------------------------------ */
/* Random float expressions: every comparison predicate, NaN, -0, inf    */
/* ------------------------------------------------------------------ */

enum { F_VAR, F_CONST, F_ADD, F_SUB, F_MUL, F_DIV, F_NEG, F_ABS, F_MIN,
       F_MAX, F_CVT, F_CMP, F_COUNT };
enum { C_LT, C_LE, C_GT, C_GE, C_EQ, C_NE, C_NLT, C_NLE, C_NGT, C_NGE,
       C_NEQ, C_UNO, C_ORD, C_COUNT };

static const char *const fcmp_fmt[C_COUNT] = {
	"(%s < %s)", "(%s <= %s)", "(%s > %s)", "(%s >= %s)", "(%s == %s)",
	"(%s != %s)", "!(%s < %s)", "!(%s <= %s)", "!(%s > %s)", "!(%s >= %s)",
	"!(%s == %s)", "(isnan(%s) || isnan(%s))", "!(isnan(%s) || isnan(%s))" };

static int fcmp_eval(int c, float a, float b)
{
	switch (c) {
	case C_LT: return a < b;
	case C_LE: return a <= b;
	case C_GT: return a > b;
	case C_GE: return a >= b;
	case C_EQ: return a == b;
	case C_NE: return a != b;
	case C_NLT: return !(a < b);
	case C_NLE: return !(a <= b);
	case C_NGT: return !(a > b);
	case C_NGE: return !(a >= b);
	case C_NEQ: return !(a == b);
	case C_UNO: return isnan(a) || isnan(b);
	default: return !(isnan(a) || isnan(b));
	}
}

static int fgen(struct expr *e, int depth)
{
	int i = e->n++, op = depth <= 0 ? (int)(rng() % 2) :
			     2 + (int)(rng() % (F_COUNT - 2));
	struct enode *n = &e->nodes[i];

	n->op = op;
	if (op == F_VAR) {
		n->k = rng() % 4;
	} else if (op == F_CONST) {
		static const float c[] = { 0.0f, -0.0f, 1.0f, -2.5f, 0.1f, 3e38f,
					   1e-40f, 1e9f };
		float f = c[rng() % 8];

		memcpy(&n->k, &f, 4);
	} else {
		n->a = fgen(e, depth - 1);
		if (op != F_NEG && op != F_ABS && op != F_CVT)
			n->b = fgen(e, depth - 1);
		if (op == F_CMP) {
			n->c = fgen(e, depth - 1);
			n->k = rng() % C_COUNT;
		}
	}
	return i;
}

static void fprint(const struct expr *e, int i, char *buf, size_t len)
{
	const struct enode *n = &e->nodes[i];
	char A[16384], B[16384], C[16384], cond[40000];
	static const char *const op[] = { [F_ADD] = "+", [F_SUB] = "-",
					  [F_MUL] = "*", [F_DIV] = "/" };
	float f;

	A[0] = B[0] = C[0] = 0;
	if (n->op >= F_ADD)
		fprint(e, n->a, A, sizeof(A));
	if (n->op >= F_ADD && n->op != F_NEG && n->op != F_ABS && n->op != F_CVT)
		fprint(e, n->b, B, sizeof(B));
	if (n->op == F_CMP)
		fprint(e, n->c, C, sizeof(C));
	switch (n->op) {
	case F_VAR: snprintf(buf, len, "x%d", (int)n->k); break;
	case F_CONST:
		memcpy(&f, &n->k, 4);
		snprintf(buf, len, "as_float(0x%08xu)", (unsigned)n->k);
		break;
	case F_NEG: snprintf(buf, len, "(-%s)", A); break;
	case F_ABS: snprintf(buf, len, "fabs(%s)", A); break;
	case F_MIN: snprintf(buf, len, "fmin(%s, %s)", A, B); break;
	case F_MAX: snprintf(buf, len, "fmax(%s, %s)", A, B); break;
	case F_CVT: snprintf(buf, len, "cvt(%s)", A); break;
	case F_CMP:
		snprintf(cond, sizeof(cond), fcmp_fmt[n->k], A, B);
		snprintf(buf, len, "(%s ? %s : %s)", cond, A, C);
		break;
	default: snprintf(buf, len, "(%s %s %s)", A, op[n->op], B);
	}
}

static float cvt_ref(float a)
{
	return fabsf(a) < 1e9f ? (float)(int)a + (float)(unsigned)(int)fabsf(a) * 0.5f : a;
}

/* the ISA's minNum/maxNum: -0 below +0 (C leaves that open) */
static float fmin_ref(float a, float b)
{
	if (a == 0.0f && b == 0.0f)
		return signbit(a) ? a : b;
	return fminf(a, b);
}

static float fmax_ref(float a, float b)
{
	if (a == 0.0f && b == 0.0f)
		return signbit(a) ? b : a;
	return fmaxf(a, b);
}

static float feval(const struct expr *e, int i, const float *x)
{
	const struct enode *n = &e->nodes[i];
	volatile float a = 0, b = 0, r;

	if (n->op >= F_ADD)
		a = feval(e, n->a, x);
	if (n->op >= F_ADD && n->op != F_NEG && n->op != F_ABS && n->op != F_CVT)
		b = feval(e, n->b, x);
	switch (n->op) {
	case F_VAR: return x[n->k];
	case F_CONST: memcpy((float *)&r, &n->k, 4); return r;
	case F_ADD: r = a + b; return r;
	case F_SUB: r = a - b; return r;
	case F_MUL: r = a * b; return r;
	case F_DIV: r = a / b; return r;
	case F_NEG: return -a;
	case F_ABS: return fabsf(a);
	case F_MIN: return fmin_ref(a, b);
	case F_MAX: return fmax_ref(a, b);
	case F_CVT: return cvt_ref(a);
	case F_CMP: return fcmp_eval((int)n->k, a, b) ? a : feval(e, n->c, x);
	}
	return 0;
}

#define FEXPRS	60

TEST_F(cc, random_float_expressions)
{
	static struct expr ex[FEXPRS];
	size_t cap = 1 << 21, len = 0;
	char *src = malloc(cap), *body = malloc(1 << 16);
	struct vmgpu_program *prog;
	ALLOC(float, in, 4 * EXPR_INPUTS);
	ALLOC(float, out, EXPR_INPUTS);
	int k, i, failures = 0;

	ASSERT_NE(NULL, src);
	if (getenv("VMGPU_TEST_SEED"))
		rng_state = (uint32_t)strtoul(getenv("VMGPU_TEST_SEED"), NULL, 0) * 13 + 5;
	len += (size_t)snprintf(src + len, cap - len,
		"float cvt(float a) { return fabs(a) < 1e9f ? (float)(int)a +"
		" (float)(uint)(int)fabs(a) * 0.5f : a; }\n");
	for (k = 0; k < FEXPRS; k++) {
		ex[k].n = 0;
		ex[k].root = fgen(&ex[k], 1 + (int)(rng() % 3));
		fprint(&ex[k], ex[k].root, body, 1 << 16);
		len += (size_t)snprintf(src + len, cap - len,
			"kernel void f%d(global const float *in, global float *out)\n"
			"{\n\tsize_t i = get_global_id(0);\n"
			"\tfloat x0 = in[4 * i], x1 = in[4 * i + 1], x2 = in[4 * i + 2],"
			" x3 = in[4 * i + 3];\n\tout[i] = %s;\n}\n", k, body);
	}
	/* no contraction: the C evaluator rounds every operation */
	prog = build(_metadata, src, "-ffp-contract=off");
	ASSERT_NE(NULL, prog);
	for (i = 0; i < 4 * EXPR_INPUTS; i++) {
		static const float sp[] = { 0.0f, -0.0f, 1.0f, -1.0f, NAN,
					    INFINITY, -INFINITY, 1e-45f, 0.5f };

		in[i] = rng() % 3 ? rng_float() * (float)(1 << (rng() % 20)) :
			sp[rng() % 9];
	}
	for (k = 0; k < FEXPRS; k++) {
		char name[16];
		struct ck c;

		snprintf(name, sizeof(name), "f%d", k);
		load(_metadata, prog, name, &c);
		set_u64(&c, 0, in_va);
		set_u64(&c, 1, out_va);
		ASSERT_EQ(0, run1d(self->tm, &c, EXPR_INPUTS, 64));
		for (i = 0; i < EXPR_INPUTS; i++) {
			float want = feval(&ex[k], ex[k].root, &in[4 * i]);
			float got = out[i];

			if ((isnan(want) && isnan(got)) || want == got)
				continue;
			fprint(&ex[k], ex[k].root, body, 1 << 16);
			fprintf(stderr, "# %s: x=%a %a %a %a got %a want %a\n#   %s\n",
				name, in[4 * i], in[4 * i + 1], in[4 * i + 2],
				in[4 * i + 3], got, want, body);
			failures++;
			break;
		}
		vg_kernel_free(c.k);
	}
	EXPECT_EQ(0, failures);
	vmgpu_program_destroy(prog);
	free(src);
	free(body);
}

/* ------------------------------------------------------------------ */
/* Math built-ins: ULP against the C library (double precision)         */
/* ------------------------------------------------------------------ */

static const char math_src[] =
	"#define K1(f) kernel void k_##f(global const float *x, global const float *y,\\\n"
	"	global float *o, int n) { int i = get_global_id(0); if (i < n) o[i] = f(x[i]); }\n"
	"#define K2(f) kernel void k_##f(global const float *x, global const float *y,\\\n"
	"	global float *o, int n) { int i = get_global_id(0); if (i < n) o[i] = f(x[i], y[i]); }\n"
	"K1(sqrt) K1(exp) K1(exp2) K1(log) K1(log2) K1(log10) K1(sin) K1(cos) K1(tan)\n"
	"K1(floor) K1(ceil) K1(trunc) K1(round) K1(rint) K1(fabs) K1(rsqrt)\n"
	"K2(pow) K2(fmin) K2(fmax)\n"
	"kernel void k_fma(global const float *x, global const float *y,\n"
	"	global float *o, int n) { int i = get_global_id(0); if (i < n)\n"
	"	o[i] = fma(x[i], y[i], 0.5f) + mad(x[i], 2.0f, -y[i]) * 0.0f +\n"
	"	       clamp(x[i], -1.0f, 1.0f) * 0.0f; }\n";

struct mathcase {
	const char *kernel;
	double (*ref1)(double);
	double (*ref2)(double, double);
	float lo, hi, ylo, yhi;
	double max_ulp;			/* documented bound */
};

static double rsqrt_d(double x) { return 1.0 / sqrt(x); }
static double fma_ref(double x, double y) { return (double)fmaf((float)x, (float)y, 0.5f); }

static const struct mathcase math_cases[] = {
	{ "k_sqrt", sqrt, NULL, 0, 1e6f, 0, 0, 0 },
	{ "k_rsqrt", rsqrt_d, NULL, 1e-6f, 1e6f, 0, 0, 2 },
	{ "k_exp", exp, NULL, -87, 88, 0, 0, 2 },
	{ "k_exp", exp, NULL, -103, -87, 0, 0, 2 },	/* subnormal results */
	{ "k_exp2", exp2, NULL, -126, 127, 0, 0, 2 },
	{ "k_log", log, NULL, 1e-30f, 1e30f, 0, 0, 2 },
	{ "k_log", log, NULL, 1e-44f, 1e-38f, 0, 0, 2 },	/* subnormal x */
	{ "k_log2", log2, NULL, 1e-30f, 1e30f, 0, 0, 2 },
	{ "k_log10", log10, NULL, 1e-30f, 1e30f, 0, 0, 2 },
	{ "k_sin", sin, NULL, -100, 100, 0, 0, 2 },
	{ "k_cos", cos, NULL, -100, 100, 0, 0, 2 },
	{ "k_sin", sin, NULL, -1e4f, 1e4f, 0, 0, 2 },
	{ "k_cos", cos, NULL, -1e4f, 1e4f, 0, 0, 2 },
	{ "k_tan", tan, NULL, -10, 10, 0, 0, 4 },
	{ "k_floor", floor, NULL, -1e4f, 1e4f, 0, 0, 0 },
	{ "k_ceil", ceil, NULL, -1e4f, 1e4f, 0, 0, 0 },
	{ "k_trunc", trunc, NULL, -1e4f, 1e4f, 0, 0, 0 },
	{ "k_round", round, NULL, -1e4f, 1e4f, 0, 0, 0 },
	{ "k_rint", rint, NULL, -1e4f, 1e4f, 0, 0, 0 },
	{ "k_fabs", fabs, NULL, -1e4f, 1e4f, 0, 0, 0 },
	{ "k_pow", NULL, pow, 1e-3f, 16, -4, 4, 2 },
	{ "k_pow", NULL, pow, 0.5f, 2, -100, 100, 4 },
	{ "k_fmin", NULL, fmin, -10, 10, -10, 10, 0 },
	{ "k_fmax", NULL, fmax, -10, 10, -10, 10, 0 },
	{ "k_fma", NULL, fma_ref, -10, 10, -10, 10, 0 },
};

static double ulp_error(float got, double ref)
{
	float rf = (float)ref;
	double ulp;

	if (isnan(ref))
		return isnan(got) ? 0 : 1e9;
	if (isinf(rf))
		return got == rf ? 0 : (isinf(got) ? 1e9 : fabs(ref - got) /
					ldexp(1.0, 127 - 23));
	if (fabsf(rf) < 0x1p-126f)
		ulp = 0x1p-149;
	else
		ulp = ldexp(1.0, ilogb(rf) - 23);
	return fabs((double)got - ref) / ulp;
}

TEST_F(cc, math_builtins_ulp)
{
	const uint32_t n = 4096;
	struct vmgpu_program *prog = build(_metadata, math_src, NULL);
	ALLOC(float, x, n);
	ALLOC(float, y, n);
	ALLOC(float, o, n);
	size_t m;

	ASSERT_NE(NULL, prog);
	for (m = 0; m < sizeof(math_cases) / sizeof(math_cases[0]); m++) {
		const struct mathcase *mc = &math_cases[m];
		double worst = 0;
		uint32_t i, wi = 0;
		struct ck c;

		for (i = 0; i < n; i++) {
			if (mc->lo > 0 && mc->hi / mc->lo > 1e3f)	/* log scale */
				x[i] = expf(rng_range(logf(mc->lo), logf(mc->hi)));
			else
				x[i] = rng_range(mc->lo, mc->hi);
			y[i] = rng_range(mc->ylo, mc->yhi);
		}
		/* edges: halves for rounding, exact points, specials */
		x[0] = 0.5f; x[1] = -0.5f; x[2] = 2.5f; x[3] = -2.5f;
		x[4] = mc->lo; x[5] = mc->hi; x[6] = 1.0f; x[7] = -0.0f;
		if (mc->lo > 0) {
			x[1] = 1.5f;
			x[3] = 4.0f;
			x[7] = 1.0f;
		}
		if (mc->ref2 == pow) {
			y[6] = 3.0f;
			x[8] = 2.0f;
			y[8] = 10.0f;
		}
		load(_metadata, prog, mc->kernel, &c);
		set_u64(&c, 0, x_va);
		set_u64(&c, 1, y_va);
		set_u64(&c, 2, o_va);
		set_u32(&c, 3, n);
		ASSERT_EQ(0, run1d(self->tm, &c, n, 128));
		for (i = 0; i < n; i++) {
			double ref = mc->ref1 ? mc->ref1(x[i]) : mc->ref2(x[i], y[i]);
			double e = ulp_error(o[i], ref);

			if (e > worst) {
				worst = e;
				wi = i;
			}
		}
		fprintf(stderr, "# %-8s max %.2f ulp (bound %.0f) at x=%a y=%a: %a vs %a\n",
			mc->kernel + 2, worst, mc->max_ulp, x[wi], y[wi], o[wi],
			mc->ref1 ? mc->ref1(x[wi]) : mc->ref2(x[wi], y[wi]));
		EXPECT_LE(worst, mc->max_ulp + (mc->max_ulp ? 0 : 0.5));
		vg_kernel_free(c.k);
	}
	vmgpu_program_destroy(prog);
}

static const char special_src[] =
	"kernel void sp(global float *o, float inf, float nan)\n"
	"{\n"
	"	o[0] = exp(-inf); o[1] = exp(inf); o[2] = exp(nan);\n"
	"	o[3] = log(0.0f); o[4] = log(-1.0f); o[5] = log(inf);\n"
	"	o[6] = sqrt(-1.0f); o[7] = pow(0.0f, -1.0f); o[8] = pow(-2.0f, 3.0f);\n"
	"	o[9] = pow(-2.0f, 0.5f); o[10] = pow(2.0f, inf); o[11] = sin(inf);\n"
	"	o[12] = floor(-0.0f); o[13] = round(-0.4f); o[14] = pow(-0.0f, 3.0f);\n"
	"	o[15] = exp(89.0f); o[16] = exp(-104.0f); o[17] = log2(0x1p-140f);\n"
	"	o[18] = pow(0.5f, 200.0f); o[19] = cos(0.0f); o[20] = rint(2.5f);\n"
	"	o[21] = ceil(-0.5f); o[22] = trunc(-3.7f); o[23] = pow(inf, -2.0f);\n"
	"}\n";

TEST_F(cc, math_special_values)
{
	struct vmgpu_program *prog = build(_metadata, special_src, NULL);
	ALLOC(float, o, 24);
	float inf = INFINITY;
	const float want[24] = {
		0.0f, INFINITY, NAN, -INFINITY, NAN, INFINITY, NAN, INFINITY,
		-8.0f, NAN, INFINITY, NAN, -0.0f, -0.0f, -0.0f, INFINITY,
		0.0f /* e^-104 < 2^-150 */, -140.0f, 0.0f, 1.0f, 2.0f,
		-0.0f, -3.0f, 0.0f,
	};
	struct ck c;
	int i;

	ASSERT_NE(NULL, prog);
	load(_metadata, prog, "sp", &c);
	set_u64(&c, 0, o_va);
	set_f32(&c, 1, inf);
	set_f32(&c, 2, NAN);
	ASSERT_EQ(0, run1d(self->tm, &c, 1, 1));
	for (i = 0; i < 24; i++) {
		if (isnan(want[i])) {
			EXPECT_TRUE(isnan(o[i]));
			continue;
		}
		if (memcmp(&want[i], &o[i], 4))
			fprintf(stderr, "# special %d: %a, want %a\n", i, o[i], want[i]);
		EXPECT_EQ(0, memcmp(&want[i], &o[i], 4));
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */
/* The corpus: typical GPU kernels, each against C (bit-exact: built    */
/* with -ffp-contract=off, C doing the same operations in the same     */
/* order; n-body within 2 ulp-ish because C's compiler may reorder)    */
/* ------------------------------------------------------------------ */

#include "compiler_corpus.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

/* Run @c over a 2-D index space of w x h items in blocks of bx x by. */
static int run2d(struct testmem *tm, struct ck *c, uint32_t w, uint32_t h,
		 uint32_t bx, uint32_t by)
{
	uint32_t g[3] = { div_up(w, bx), div_up(h, by), 1 };
	uint32_t b[3] = { bx, by, 1 };

	return run_portion(tm, c, g, b, NULL, NULL, 0);
}

static struct vmgpu_program *corpus_prog(struct __test_metadata *_metadata)
{
	return build(_metadata, corpus_src, "-ffp-contract=off");
}

TEST_F(cc, corpus_scans_and_reductions)
{
	const uint32_t groups = 6, n = groups * 128;
	struct vmgpu_program *prog = corpus_prog(_metadata);
	struct ck c;
	ALLOC(uint32_t, in, n);
	ALLOC(uint32_t, out, n);
	ALLOC(float, fin, n);
	ALLOC(float, fout, groups);
	ALLOC(uint64_t, lin, n);
	ALLOC(uint64_t, lout, groups);
	ALLOC(int32_t, xi, n);
	ALLOC(int32_t, yi, n);
	ALLOC(int32_t, dsum, 1);
	uint32_t i, g, acc = 0;
	int32_t dref = 0;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++) {
		in[i] = rng() % 1000;
		fin[i] = rng_float();
		lin[i] = (uint64_t)rng() << 31 | rng();
		xi[i] = (int32_t)(rng() % 2001) - 1000;
		yi[i] = (int32_t)(rng() % 2001) - 1000;
		dref += xi[i] * yi[i];
	}
	/* inclusive (Hillis-Steele) and exclusive (Blelloch) scans */
	load(_metadata, prog, "scan_incl", &c);
	set_u64(&c, 0, in_va);
	set_u64(&c, 1, out_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 128));
	for (i = 0; i < n; i++) {
		acc = i % 128 ? acc + in[i] : in[i];
		ASSERT_EQ(acc, out[i]) TH_LOG("scan_incl %u", i);
	}
	vg_kernel_free(c.k);
	load(_metadata, prog, "scan_excl", &c);
	set_u64(&c, 0, in_va);
	set_u64(&c, 1, out_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 128));
	for (i = 0, acc = 0; i < n; i++) {
		if (i % 128 == 0)
			acc = 0;
		ASSERT_EQ(acc, out[i]) TH_LOG("scan_excl %u", i);
		acc += in[i];
	}
	vg_kernel_free(c.k);
	/* max of floats, 64-bit sums, an int dot product */
	load(_metadata, prog, "reduce_maxf", &c);
	set_u64(&c, 0, fin_va);
	set_u64(&c, 1, fout_va);
	set_u32(&c, 2, n - 5);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 128));
	for (g = 0; g < groups; g++) {
		float m = -INFINITY;

		for (i = g * 128; i < (g + 1) * 128 && i < n - 5; i++)
			m = fmaxf(m, fin[i]);
		EXPECT_EQ(m, fout[g]);
	}
	vg_kernel_free(c.k);
	load(_metadata, prog, "reduce_sum64", &c);
	set_u64(&c, 0, lin_va);
	set_u64(&c, 1, lout_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 128));
	for (g = 0; g < groups; g++) {
		uint64_t s = 0;

		for (i = g * 128; i < (g + 1) * 128; i++)
			s += lin[i];
		EXPECT_EQ(s, lout[g]);
	}
	vg_kernel_free(c.k);
	load(_metadata, prog, "dot_int", &c);
	set_u64(&c, 0, xi_va);
	set_u64(&c, 1, yi_va);
	set_u64(&c, 2, dsum_va);
	set_u32(&c, 3, n - 3);
	dsum[0] = 0;
	for (i = n - 3; i < n; i++)
		dref -= xi[i] * yi[i];
	ASSERT_EQ(0, run1d(self->tm, &c, n, 128));
	EXPECT_EQ(dref, dsum[0]);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

TEST_F(cc, corpus_stencils_transposes_filters)
{
	const int w = 45, h = 30, n = 1000;
	struct vmgpu_program *prog = corpus_prog(_metadata);
	struct ck c;
	ALLOC(float, x, n);
	ALLOC(float, y, n);
	ALLOC(int32_t, u, w * h);
	ALLOC(int32_t, v, w * h);
	ALLOC(float, img, w * h);
	ALLOC(float, out, w * h);
	ALLOC(uint8_t, px, w * h);
	ALLOC(uint8_t, sob, w * h);
	int i, xx, yy, dx, dy;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++)
		x[i] = rng_float();
	for (i = 0; i < w * h; i++) {
		u[i] = (int32_t)(rng() % 1000) - 500;
		img[i] = rng_float();
		px[i] = (uint8_t)rng();
	}
	load(_metadata, prog, "stencil1d", &c);
	set_u64(&c, 0, x_va);
	set_u64(&c, 1, y_va);
	set_u32(&c, 2, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		float l = x[i > 0 ? i - 1 : 0], r = x[i < n - 1 ? i + 1 : n - 1];
		float t0 = 0.25f * l, t1 = 0.5f * x[i], t2 = 0.25f * r;

		ASSERT_EQ(t0 + t1 + t2, y[i]) TH_LOG("stencil1d %d", i);
	}
	vg_kernel_free(c.k);
	load(_metadata, prog, "laplace2d", &c);
	set_u64(&c, 0, u_va);
	set_u64(&c, 1, v_va);
	set_u32(&c, 2, w);
	set_u32(&c, 3, h);
	ASSERT_EQ(0, run2d(self->tm, &c, w, h, 16, 8));
	for (yy = 0; yy < h; yy++)
		for (xx = 0; xx < w; xx++) {
			int k = yy * w + xx, want = u[k];

			if (xx && yy && xx < w - 1 && yy < h - 1)
				want = u[k - w] + u[k + w] + u[k - 1] +
				       u[k + 1] - 4 * u[k];
			ASSERT_EQ(want, v[k]);
		}
	vg_kernel_free(c.k);
	/* both transposes, 2-D blocks of 16 x 16 */
	for (i = 0; i < 2; i++) {
		load(_metadata, prog, i ? "transpose_tiled" : "transpose_naive",
		     &c);
		memset(out, 0, w * h * 4);
		set_u64(&c, 0, img_va);
		set_u64(&c, 1, out_va);
		set_u32(&c, 2, w);
		set_u32(&c, 3, h);
		ASSERT_EQ(0, run2d(self->tm, &c, w, h, 16, 16));
		for (yy = 0; yy < h; yy++)
			for (xx = 0; xx < w; xx++)
				ASSERT_EQ(img[yy * w + xx], out[xx * h + yy]);
		vg_kernel_free(c.k);
	}
	/* box blur and Sobel with clamped edges */
	load(_metadata, prog, "blur_clamp", &c);
	set_u64(&c, 0, img_va);
	set_u64(&c, 1, out_va);
	set_u32(&c, 2, w);
	set_u32(&c, 3, h);
	ASSERT_EQ(0, run2d(self->tm, &c, w, h, 8, 8));
	for (yy = 0; yy < h; yy++)
		for (xx = 0; xx < w; xx++) {
			float s = 0.0f;

			for (dy = -1; dy <= 1; dy++)
				for (dx = -1; dx <= 1; dx++) {
					int cy = yy + dy < 0 ? 0 : yy + dy >= h ? h - 1 : yy + dy;
					int cx = xx + dx < 0 ? 0 : xx + dx >= w ? w - 1 : xx + dx;

					s += img[cy * w + cx];
				}
			ASSERT_EQ(s * (1.0f / 9.0f), out[yy * w + xx]);
		}
	vg_kernel_free(c.k);
	load(_metadata, prog, "sobel", &c);
	set_u64(&c, 0, px_va);
	set_u64(&c, 1, sob_va);
	set_u32(&c, 2, w);
	set_u32(&c, 3, h);
	ASSERT_EQ(0, run2d(self->tm, &c, w, h, 16, 4));
	for (yy = 0; yy < h; yy++)
		for (xx = 0; xx < w; xx++) {
#define PX(i_, j_) (int)px[(yy + (j_) < 0 ? 0 : yy + (j_) >= h ? h - 1 : yy + (j_)) * w + \
			   (xx + (i_) < 0 ? 0 : xx + (i_) >= w ? w - 1 : xx + (i_))]
			int gx = PX(1, -1) + 2 * PX(1, 0) + PX(1, 1) - PX(-1, -1) -
				 2 * PX(-1, 0) - PX(-1, 1);
			int gy = PX(-1, 1) + 2 * PX(0, 1) + PX(1, 1) - PX(-1, -1) -
				 2 * PX(0, -1) - PX(1, -1);
#undef PX
			int m = abs(gx) + abs(gy);

			ASSERT_EQ(m > 255 ? 255 : m, sob[yy * w + xx]);
		}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

TEST_F(cc, corpus_sort_nbody_divergence)
{
	const uint32_t n = 700, nb = 200, groups = 3, mw = 64, mh = 48;
	struct vmgpu_program *prog = corpus_prog(_metadata);
	struct ck c;
	ALLOC(uint32_t, keys, 256 * groups);
	ALLOC(float, p, nb * 4);
	ALLOC(float, acc, nb * 4);
	ALLOC(uint32_t, in, n);
	ALLOC(uint32_t, in2, n);
	ALLOC(uint32_t, out, n);
	ALLOC(uint32_t, it, mw * mh);
	uint32_t ref[256 * 3], i, j, g;

	ASSERT_NE(NULL, prog);
	/* bitonic sort, one work-group of 128 per 256 keys */
	for (i = 0; i < 256 * groups; i++)
		keys[i] = ref[i] = rng() % 5000;
	for (g = 0; g < groups; g++)
		qsort(ref + g * 256, 256, 4, cmp_u32);
	load(_metadata, prog, "bitonic256", &c);
	set_u64(&c, 0, keys_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 128 * groups, 128));
	EXPECT_EQ(0, memcmp(ref, keys, 256 * groups * 4));
	vg_kernel_free(c.k);
	/* n-body accelerations (sqrt, fdiv), each term as C computes it */
	for (i = 0; i < nb * 4; i++)
		p[i] = i % 4 == 3 ? rng_range(0.5f, 2.0f) : rng_range(-10, 10);
	load(_metadata, prog, "nbody", &c);
	set_u64(&c, 0, p_va);
	set_u64(&c, 1, acc_va);
	set_u32(&c, 2, nb);
	set_f32(&c, 3, 0.01f);
	ASSERT_EQ(0, run1d(self->tm, &c, nb, 64));
	for (i = 0; i < nb; i++) {
		float ax = 0, ay = 0, az = 0;

		for (j = 0; j < nb; j++) {
			float dx = p[4 * j] - p[4 * i];
			float dy = p[4 * j + 1] - p[4 * i + 1];
			float dz = p[4 * j + 2] - p[4 * i + 2];
			float r2 = dx * dx + dy * dy + dz * dz + 0.01f;
			float s = p[4 * j + 3] * (1.0f / (r2 * sqrtf(r2)));

			ax += dx * s;
			ay += dy * s;
			az += dz * s;
		}
		EXPECT_EQ(ax, acc[4 * i]) TH_LOG("nbody %u", i);
		EXPECT_EQ(ay, acc[4 * i + 1]);
		EXPECT_EQ(az, acc[4 * i + 2]);
		EXPECT_EQ(0.0f, acc[4 * i + 3]);
	}
	vg_kernel_free(c.k);
	/* Collatz steps (a divergent 64-bit loop) and gcd */
	for (i = 0; i < n; i++) {
		in[i] = 1 + rng() % 100000;
		in2[i] = 1 + rng() % 5000;
	}
	load(_metadata, prog, "collatz", &c);
	set_u64(&c, 0, in_va);
	set_u64(&c, 1, out_va);
	set_u32(&c, 2, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		uint64_t v = in[i];
		uint32_t s = 0;

		while (v != 1 && s < 1000) {
			v = v & 1 ? 3 * v + 1 : v >> 1;
			s++;
		}
		ASSERT_EQ(s, out[i]);
	}
	vg_kernel_free(c.k);
	load(_metadata, prog, "gcd", &c);
	set_u64(&c, 0, in_va);
	set_u64(&c, 1, in2_va);
	set_u64(&c, 2, out_va);
	set_u32(&c, 3, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		uint32_t a = in[i], b = in2[i];

		while (b) {
			uint32_t r = a % b;

			a = b;
			b = r;
		}
		ASSERT_EQ(a, out[i]);
	}
	vg_kernel_free(c.k);
	/* Mandelbrot: per-pixel trip counts of a float loop */
	load(_metadata, prog, "mandel", &c);
	set_u64(&c, 0, it_va);
	set_u32(&c, 1, mw);
	set_u32(&c, 2, mh);
	set_u32(&c, 3, 200);
	ASSERT_EQ(0, run2d(self->tm, &c, mw, mh, 16, 4));
	for (j = 0; j < mh; j++)
		for (i = 0; i < mw; i++) {
			float cx = -2.0f + (float)(int)i * (3.0f / (float)mw);
			float cy = -1.25f + (float)(int)j * (2.5f / (float)mh);
			float x = 0.0f, y = 0.0f;
			uint32_t k = 0;

			while (k < 200 && x * x + y * y <= 4.0f) {
				float xt = x * x - y * y + cx;

				y = 2.0f * x * y + cy;
				x = xt;
				k++;
			}
			ASSERT_EQ(k, it[j * mw + i]) TH_LOG("mandel %u %u", i, j);
		}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

TEST_F(cc, corpus_private_atomics_vectors_sparse)
{
	const int n = 900, m = 300, dn = 256, dm = 200, deg = 6;
	struct vmgpu_program *prog = corpus_prog(_metadata);
	struct ck c;
	ALLOC(int32_t, a, n);
	ALLOC(int32_t, b, n);
	ALLOC(int32_t, r1, n);
	ALLOC(uint32_t, cnt, 1);
	ALLOC(uint8_t, rgba, n * 4);
	ALLOC(uint8_t, gr, n);
	ALLOC(float, fx, n * 4);
	ALLOC(float, fy, n * 4);
	ALLOC(float, fy0, n * 4);
	ALLOC(int32_t, rows, m + 1);
	ALLOC(int32_t, cols, m * 12);
	ALLOC(float, vals, m * 12);
	ALLOC(float, xv, dn);
	ALLOC(float, yv, dm);
	ALLOC(float, mat, dm * dn);
	ALLOC(float, coef, deg + 1);
	int32_t ref[1000], i, k, nref = 0;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++) {
		a[i] = (int32_t)(rng() % 20000) - 2000;
		if (i % 17 == 0)
			a[i] = 0;
	}
	/* early returns */
	load(_metadata, prog, "classify", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, r1_va);
	set_u32(&c, 2, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		int32_t v = a[i], want = v, d;

		if (v < 0)
			want = -1;
		else if (v == 0)
			want = 0;
		else
			for (d = 2; d * d <= v; d++)
				if (v % d == 0) {
					want = d;
					break;
				}
		ASSERT_EQ(want, r1[i]) TH_LOG("classify %d", v);
	}
	vg_kernel_free(c.k);
	/* a private array sorted per thread */
	load(_metadata, prog, "median8", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, r1_va);
	set_u32(&c, 2, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		int32_t v[8];

		for (k = 0; k < 8; k++)
			v[k] = a[(i + k * 7) % n];
		qsort(v, 8, 4, cmp_i32);
		ASSERT_EQ(v[3] + v[4], r1[i]);
	}
	vg_kernel_free(c.k);
	/* stream compaction with a global atomic counter */
	load(_metadata, prog, "compact", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, b_va);
	set_u64(&c, 2, cnt_va);
	set_u32(&c, 3, n);
	set_u32(&c, 4, 9000);
	cnt[0] = 0;
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++)
		if (a[i] > 9000)
			ref[nref++] = a[i];
	ASSERT_EQ((uint32_t)nref, cnt[0]);
	qsort(ref, nref, 4, cmp_i32);
	qsort(b, nref, 4, cmp_i32);
	EXPECT_EQ(0, memcmp(ref, b, nref * 4));
	vg_kernel_free(c.k);
	/* vector types: uchar4 -> uint4 and float4 with a swizzle */
	for (i = 0; i < n * 4; i++) {
		rgba[i] = (uint8_t)rng();
		fx[i] = rng_float();
		fy[i] = fy0[i] = rng_float();
	}
	load(_metadata, prog, "gray", &c);
	set_u64(&c, 0, rgba_va);
	set_u64(&c, 1, gr_va);
	set_u32(&c, 2, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++)
		ASSERT_EQ((rgba[4 * i] * 77u + rgba[4 * i + 1] * 150u +
			   rgba[4 * i + 2] * 29u) >> 8, gr[i]);
	vg_kernel_free(c.k);
	load(_metadata, prog, "axpy4", &c);
	set_f32(&c, 0, 1.75f);
	set_u64(&c, 1, fx_va);
	set_u64(&c, 2, fy_va);
	set_u32(&c, 3, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++)
		for (k = 0; k < 4; k++)
			ASSERT_EQ(1.75f * fx[4 * i + k] + fy0[4 * i + 3 - k],
				  fy[4 * i + k]);
	vg_kernel_free(c.k);
	/* 64-bit index arithmetic: ulong products wrap, % is 64-bit */
	load(_metadata, prog, "gather64", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, r1_va);
	set_u64(&c, 2, n);
	set_u64(&c, 3, 0x100000007ull);
	set_u64(&c, 4, (uint64_t)-5ll);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		uint64_t j = ((uint64_t)i * 0x100000007ull + (uint64_t)-5ll) % n;

		ASSERT_EQ(a[j] + (int32_t)(j >> 3), r1[i]) TH_LOG("gather64 %d", i);
	}
	vg_kernel_free(c.k);
	/* CSR sparse matrix-vector product (per-row trip counts) */
	rows[0] = 0;
	for (i = 0; i < m; i++) {
		int nnz = (int)(rng() % 13);

		rows[i + 1] = rows[i] + nnz;
		for (k = rows[i]; k < rows[i + 1]; k++) {
			cols[k] = (int32_t)(rng() % dn);
			vals[k] = rng_float();
		}
	}
	for (i = 0; i < dn; i++)
		xv[i] = rng_float();
	load(_metadata, prog, "spmv_csr", &c);
	set_u64(&c, 0, rows_va);
	set_u64(&c, 1, cols_va);
	set_u64(&c, 2, vals_va);
	set_u64(&c, 3, xv_va);
	set_u64(&c, 4, fy_va);
	set_u32(&c, 5, m);
	ASSERT_EQ(0, run1d(self->tm, &c, m, 64));
	for (i = 0; i < m; i++) {
		float s = 0.0f;

		for (k = rows[i]; k < rows[i + 1]; k++)
			s += vals[k] * xv[cols[k]];
		ASSERT_EQ(s, fy[i]) TH_LOG("spmv row %d", i);
	}
	vg_kernel_free(c.k);
	/* dense matrix-vector product with x cached in local memory */
	for (i = 0; i < dm * dn; i++)
		mat[i] = rng_float();
	load(_metadata, prog, "gemv_local", &c);
	set_u64(&c, 0, mat_va);
	set_u64(&c, 1, xv_va);
	set_u64(&c, 2, yv_va);
	set_u32(&c, 3, dm);
	set_u32(&c, 4, dn);
	ASSERT_EQ(0, run1d(self->tm, &c, dm, 64));
	for (i = 0; i < dm; i++) {
		float s = 0.0f;

		for (k = 0; k < dn; k++)
			s += mat[i * dn + k] * xv[k];
		ASSERT_EQ(s, yv[i]) TH_LOG("gemv row %d", i);
	}
	vg_kernel_free(c.k);
	/* Horner's rule with coefficients in constant memory */
	for (i = 0; i <= deg; i++)
		coef[i] = rng_range(-2, 2);
	load(_metadata, prog, "horner", &c);
	set_u64(&c, 0, fx_va);
	set_u64(&c, 1, fy_va);
	set_u32(&c, 2, n);
	set_u64(&c, 3, coef_va);
	set_u32(&c, 4, deg);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		float v = coef[deg];

		for (k = deg - 1; k >= 0; k--)
			v = v * fx[i] + coef[k];
		ASSERT_EQ(v, fy[i]);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/*
 * The built-in kernels in OpenCL C (vmgpu_builtin_kernels_opencl()):
 * the same signatures as the assembly, and bit-identical buffers after
 * running both on the same inputs. Prints the dynamic warp-instruction
 * counts side by side.
 */
TEST_F(cc, builtins_in_opencl_c)
{
	struct vmgpu_program *prog = build(_metadata,
					   vmgpu_builtin_kernels_opencl(), NULL);
	uint32_t ci, i, j;

	ASSERT_NE(NULL, prog);
	for (ci = 0; ci < BK_CASES; ci++) {
		const struct bk_case *bc = &bk_cases[ci];
		const char *why = "";
		uint64_t va[2][3], warps[2];
		struct ck c[2];
		void *img;
		size_t bytes;
		char err[256];

		/* the assembly as a program of one kernel */
		ASSERT_EQ(0, vmgpu_asm_assemble(vmgpu_builtin_kernel_source(
				bc->name), &img, &bytes, err, sizeof(err)));
		load(_metadata, prog, bc->name, &c[1]);
		memset(&c[0], 0, sizeof(c[0]));
		vmgpu_exec_header_read(&c[0].h, img);
		ASSERT_EQ(1, vmgpu_exec_sig_read(&c[0].h, img, bytes, &c[0].sig,
						 c[0].params, &why));
		ASSERT_EQ(VMGPU_FAULT_NONE, vg_kernel_load(&c[0].k, img, bytes,
							   1, NULL));
		free(img);
		ASSERT_EQ(c[0].sig.num_params, c[1].sig.num_params);
		ASSERT_EQ(c[0].h.args_bytes, c[1].h.args_bytes);
		EXPECT_EQ(0, c[1].priv);
		for (i = 0; i < c[0].sig.num_params; i++) {
			uint32_t ta = c[0].params[i].type;
			uint32_t tc = c[1].params[i].type;

			EXPECT_EQ(c[0].params[i].offset, c[1].params[i].offset);
			/* the same, or a buffer the assembly declares read
			 * and written that the compiler sees only written
			 * (reduce_sum's out) */
			EXPECT_TRUE(ta == tc || (ta == VMGPU_PARAM_BUF_RW &&
						 tc == VMGPU_PARAM_BUF_WO))
				TH_LOG("%s parameter %u: %u vs %u", bc->name, i,
				       ta, tc);
		}
		for (j = 0; j < bc->nbuf; j++) {
			const struct bk_buf *b = &bc->buf[j];

			va[0][j] = testmem_alloc(self->tm, b->bytes);
			va[1][j] = testmem_alloc(self->tm, b->bytes);
			bk_fill(b, testmem_ptr(self->tm, va[0][j]),
				testmem_ptr(self->tm, va[1][j]), rng, rng_float);
		}
		for (i = 0; i < 2; i++) {
			for (j = 0; j < bc->nscal; j++)
				set_u32(&c[i], bc->scal[j][0], bc->scal[j][1]);
			for (j = 0; j < bc->nbuf; j++)
				set_u64(&c[i], bc->buf[j].param, va[i][j]);
			ASSERT_EQ(0, run_portion(self->tm, &c[i], bc->grid,
						 bc->block, NULL, NULL, 0));
			warps[i] = last_stats.warp_instrs;
			vg_kernel_free(c[i].k);
		}
		for (j = 0; j < bc->nbuf; j++)
			EXPECT_EQ(0, memcmp(testmem_ptr(self->tm, va[0][j]),
					    testmem_ptr(self->tm, va[1][j]),
					    bc->buf[j].bytes))
				TH_LOG("%s: buffer %u differs", bc->name, j);
		fprintf(stderr, "# %-13s warp instructions: assembly %7llu, "
			"OpenCL C %7llu (%.2fx)\n", bc->name,
			(unsigned long long)warps[0],
			(unsigned long long)warps[1],
			(double)warps[1] / (double)warps[0]);
	}
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */
/* Diagnostics                                                          */
/* ------------------------------------------------------------------ */

TEST(diag_syntax_error_has_file_line_col)
{
	static const char *const want[] = { "input.cl:3:", ": error:", NULL };
	static const char *const want2[] = { "my.cl:2:", "undeclared", NULL };

	build_fails(_metadata, "kernel void k(global int *p)\n{\n\tp[0] = 1 +;\n}\n",
		    NULL, want);
	build_fails(_metadata, "kernel void k(global int *p)\n{ p[0] = q; }\n",
		    "-vmgpu-source-name=my.cl", want2);
}

TEST(diag_recursion)
{
	static const char *const want[] = {
		"input.cl:3:", "error: recursion is not supported", NULL };

	build_fails(_metadata,
		    "int f(int x)\n{\n\treturn x > 1 ? x * f(x - 1) : 1;\n}\n"
		    "kernel void k(global int *p) { p[0] = f(p[1]); }\n",
		    NULL, want);
}

TEST(diag_kernel_calls_kernel)
{
	static const char *const want[] = {
		"input.cl:2:", "a kernel cannot call a kernel", NULL };

	build_fails(_metadata,
		    "kernel void a(global int *p) { p[0] = 1; }\n"
		    "kernel void b(global int *p) { a(p); }\n", NULL, want);
}

TEST(diag_function_pointer)
{
	static const char *const want[] = {
		"input.cl:2:37: error: pointers to functions are not allowed",
		NULL };

	build_fails(_metadata,
		    "int f(int x) { return x; }\n"
		    "kernel void k(global int *p) { int (*fp)(int) = f; p[0] = fp(1); }\n",
		    NULL, want);
}

TEST(diag_double_without_fp64)
{
	static const char *const want[] = {
		"input.cl:3:2: error: use of type 'double' requires "
		"cl_khr_fp64 support", NULL };

	build_fails(_metadata,
		    "kernel void k(global float *p)\n{\n"
		    "\tdouble d = p[0];\n\tp[1] = (float)d;\n}\n", NULL, want);
}

/* SPEC P8, each rule at its line and column, on both ISA versions. */
TEST(diag_language_rules_p8)
{
	static const struct {
		const char *src, *want;
	} cases[] = {
		/* kernels cannot call kernels */
		{ "kernel void a(global int *p) { p[0] = 1; }\n"
		  "kernel void b(global int *p)\n{\n\ta(p);\n}\n",
		  "input.cl:4:2: error: kernel 'b' calls kernel 'a': a kernel "
		  "cannot call a kernel" },
		/* ... not even through a function */
		{ "kernel void a(global int *p) { p[0] = 1; }\n"
		  "void f(global int *p)\n{\n\ta(p);\n}\n"
		  "kernel void b(global int *p) { f(p); }\n",
		  "input.cl:4:2: error: function 'f' calls kernel 'a': a "
		  "kernel cannot call a kernel" },
		/* local memory: only at a kernel's outermost scope ... */
		{ "void f(global int *p)\n{\n\tlocal int x;\n"
		  "\tx = 1; p[0] = x;\n}\n"
		  "kernel void k(global int *p) { f(p); }\n",
		  "input.cl:3:12: error: non-kernel function variable cannot "
		  "be declared in local address space" },
		{ "local int x;\nkernel void k(global int *p) { p[0] = x; }\n",
		  "input.cl:1:11: error: program scope variable must reside "
		  "in constant address space" },
		{ "kernel void k(global int *p)\n{\n\tif (p[0]) {\n"
		  "\t\tlocal int x;\n\t\tx = 1; p[1] = x;\n\t}\n}\n",
		  "input.cl:4:13: error: variables in the local address space "
		  "can only be declared in the outermost scope of a kernel "
		  "function" },
		/* ... shared within its work-group only */
		{ "kernel void k(global int *p, local int *l)\n{\n"
		  "\tglobal int *q = (global int *)l;\n\tq[0] = 1;\n}\n",
		  "input.cl:3:18: error: casting '__local int *' to type "
		  "'__global int *' changes address space of pointer" },
		{ "kernel void k(global ulong *p)\n{\n\tlocal int x[4];\n"
		  "\tp[0] = (ulong)&x[1];\n}\n",
		  "input.cl:4:7: error: a pointer to local memory cannot leave "
		  "its work-group: stored to global memory" },
		{ "kernel void k(global ulong *p, local int *l)\n{\n"
		  "\tp[get_global_id(0)] = (ulong)l;\n}\n",
		  "input.cl:3:22: error: a pointer to local memory cannot "
		  "leave its work-group" },
		/* recursion, direct and mutual */
		{ "int odd(int);\nint even(int n) { return n ? odd(n - 1) : 1; }\n"
		  "int odd(int n) { return n ? even(n - 1) : 0; }\n"
		  "kernel void k(global int *p) { p[0] = even(p[1]); }\n",
		  "input.cl:2:30: error: recursion is not supported: 'odd' "
		  "calls back into 'even'" },
		/* no variable-length arrays, kernels return void */
		{ "kernel void k(global int *p, int n)\n{\n\tint a[n];\n"
		  "\ta[0] = 1; p[0] = a[0];\n}\n",
		  "input.cl:3:8: error: variable length arrays are not "
		  "supported in OpenCL" },
		{ "kernel int k(global int *p) { return 1; }\n",
		  "input.cl:1:12: error: kernel must have void return type" },
		/* no fp64 on either version, whatever the options say */
		{ "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
		  "kernel void k(global float *p)\n{\n\tdouble d = p[0];\n"
		  "\tp[1] = (float)d;\n}\n",
		  "input.cl:4:2: error: use of type 'double' requires "
		  "cl_khr_fp64 support" },
	};
	static const char *const isa_opts[] = { "-vmgpu-isa=1", "-vmgpu-isa=2" };
	unsigned int i, v;

	for (v = 0; v < 2; v++)
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			const char *want[] = { cases[i].want, NULL };

			build_fails(_metadata, cases[i].src, isa_opts[v], want);
		}
}

/* Local pointers kept in private variables and local memory are fine. */
TEST(local_pointers_inside_the_work_group_compile)
{
	struct vmgpu_program *p = build(_metadata,
		"kernel void k(global int *g, local int *l)\n{\n"
		"\tlocal int *q = l + get_local_id(0);\n"
		"\tlocal int x[2];\n"
		"\t*q = g[0];\n\tx[0] = (int)(q - l);\n"
		"\tbarrier(CLK_LOCAL_MEM_FENCE);\n"
		"\tg[get_global_id(0)] = *q + x[0];\n}\n", NULL);

	vmgpu_program_destroy(p);
}

TEST(diag_local_atomics_and_unknown_function)
{
	static const char *const want[] = {
		"input.cl:4:2: error: atomics on local memory need ISA version "
		"2; compiling for ISA version 1", NULL };
	static const char *const want2[] = {
		"input.cl:1:", "'printf", "not available", NULL };

	build_fails(_metadata,
		    "kernel void k(global int *p)\n{\n\tlocal int c;\n"
		    "\tatomic_add(&c, 1);\n\tp[0] = c;\n}\n", "-vmgpu-isa=1",
		    want);
	build_fails(_metadata,
		    "kernel void k(global int *p) { printf(\"%d\", p[0]); }\n",
		    NULL, want2);
}

TEST(diag_bad_options_and_no_kernel)
{
	static const char *const want[] = { "unknown build option", NULL };
	static const char *const want2[] = { "no kernel", NULL };

	build_fails(_metadata, "kernel void k(global int *p) { }\n",
		    "-fno-such-thing", want);
	build_fails(_metadata, "int f(int x) { return x; }\n", NULL, want2);
}

/* 64-bit atomics: the ISA's are 32-bit; an error at the line. */
TEST(diag_64bit_atomics)
{
	static const char *const want[] = {
		"input.cl:4:2: error: 64-bit atomics are not supported: the "
		"ISA's atomics are 32-bit", NULL };
	static const char *const want2[] = {
		"input.cl:3:2: error: 64-bit atomics are not supported", NULL };

	build_fails(_metadata,
		    "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
		    "kernel void k(global long *p)\n{\n\tatom_add(p, 1L);\n}\n",
		    NULL, want);
	build_fails(_metadata,
		    "kernel void k(local ulong *p)\n{\n"
		    "\t__sync_fetch_and_or(p, 1ul);\n}\n", NULL, want2);
}

/* Builds in two threads at once share nothing. */
static void *build_thread(void *arg)
{
	struct vmgpu_program *prog = NULL;
	char *log = NULL;
	intptr_t r = vmgpu_program_build(flow_src, NULL, &prog, &log);

	free(log);
	vmgpu_program_destroy(prog);
	return (void *)r;
}

TEST(concurrent_builds)
{
	pthread_t t[2];
	void *r;
	int i;

	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, build_thread, NULL));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_join(t[i], &r));
		EXPECT_EQ(NULL, r);
	}
}

/*
 * Atomics on local memory (ISA version 2's atoms.*): a per-work-group
 * histogram counted in local memory then added to the global one, and
 * every other atomic on local words, compared with C.
 */
static const char local_atom_src[] =
	"kernel void lhist(global const uchar *d, global uint *bins, uint n,\n"
	"                  global int *res)\n"
	"{\n"
	"	local uint lb[64];\n"
	"	local int w[8];\n"
	"	uint t = get_local_id(0), i = get_global_id(0);\n"
	"	for (uint b = t; b < 64; b += get_local_size(0))\n"
	"		lb[b] = 0;\n"
	"	if (t < 8)\n"
	"		w[t] = t == 2 ? -1 : t == 3 ? 1000 : 0;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	if (i < n) {\n"
	"		int v = d[i];\n"
	"		atomic_inc(&lb[v & 63]);\n"
	"		atomic_add(&w[0], v);\n"
	"		atomic_sub(&w[1], 1);\n"
	"		atomic_max(&w[2], v);\n"
	"		atomic_min(&w[3], v);\n"
	"		atomic_or(&w[4], 1 << (v & 31));\n"
	"		atomic_xor(&w[5], v);\n"
	"		atom_cmpxchg(&w[6], (int)t, (int)t + 1);\n"
	"		atomic_xchg(&w[7], 7);\n"
	"	}\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	for (uint b = t; b < 64; b += get_local_size(0))\n"
	"		atomic_add(&bins[b], lb[b]);\n"
	"	if (t < 8)\n"
	"		res[get_group_id(0) * 8 + t] = w[t];\n"
	"}\n";

TEST_F(cc, local_atomics_isa2)
{
	const uint32_t n = 3000, bs = 96, groups = (n + bs - 1) / bs;
	struct vmgpu_program *prog = build(_metadata, local_atom_src,
					   "-vmgpu-isa=2");
	const void *image;
	struct vmgpu_exec_header h;
	size_t bytes;
	struct ck c;
	ALLOC(uint8_t, d, n);
	ALLOC(uint32_t, bins, 64);
	ALLOC(int32_t, res, groups * 8);
	uint32_t ref[64] = { 0 }, i, g;

	ASSERT_NE(NULL, prog);
	ASSERT_EQ(0, vmgpu_program_kernel_image(prog, "lhist", &image, &bytes));
	vmgpu_exec_header_read(&h, image);
	EXPECT_EQ(2, h.isa_version);
	for (i = 0; i < n; i++) {
		d[i] = (uint8_t)rng();
		ref[d[i] & 63]++;
	}
	load_isa(_metadata, prog, "lhist", 2, &c);
	set_u64(&c, 0, d_va);
	set_u64(&c, 1, bins_va);
	set_u32(&c, 2, n);
	set_u64(&c, 3, res_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, bs));
	EXPECT_EQ(0, memcmp(ref, bins, sizeof(ref)));
	for (g = 0; g < groups; g++) {
		int32_t sum = 0, mx = -1, mn = 1000, or = 0, xr = 0, cnt = 0;

		for (i = g * bs; i < (g + 1) * bs && i < n; i++, cnt++) {
			sum += d[i];
			mx = d[i] > mx ? d[i] : mx;
			mn = d[i] < mn ? d[i] : mn;
			or |= (int32_t)(1u << (d[i] & 31));
			xr ^= d[i];
		}
		EXPECT_EQ(sum, res[g * 8 + 0]);
		EXPECT_EQ(-cnt, res[g * 8 + 1]);
		EXPECT_EQ(mx, res[g * 8 + 2]);
		EXPECT_EQ(mn, res[g * 8 + 3]);
		EXPECT_EQ(or, res[g * 8 + 4]);
		EXPECT_EQ(xr, res[g * 8 + 5]);
		/* lanes and warps in order: the chain 0 -> 1 -> ... */
		EXPECT_EQ(cnt, res[g * 8 + 6]);
		EXPECT_EQ(7, res[g * 8 + 7]);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
	/* a device of version 1 cannot load it */
	ASSERT_EQ(0, vmgpu_program_kernel_image(prog = build(_metadata,
		local_atom_src, NULL), "lhist", &image, &bytes));
	EXPECT_EQ(VMGPU_FAULT_BAD_EXECUTABLE,
		  vg_kernel_load(&c.k, image, bytes, 1, NULL));
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */
/* Kernel libraries, online compilation, the kernel cache (SPEC P4)     */
/* ------------------------------------------------------------------ */

/*
 * The kernel "mark": out[i] = f(v), f telling where it came from: the
 * source computes v * 3 + TAG (TAG from the library's options), the
 * hand-assembled executables v + 100 (version 1) and v + 200 + %itemcount
 * (version 2: %itemcount is 0 outside queue tasks).
 */
static const char mark_src[] =
	"kernel void mark(global uint *out, uint v)\n"
	"{\n"
	"	out[get_global_id(0)] = v * 3u + TAG;\n"
	"}\n";

/* Needs ISA version 2: reads the queue task's item count. */
static const char mark_v2_src[] =
	"kernel void mark(global uint *out, uint v)\n"
	"{\n"
	"	out[get_global_id(0)] = v * 3u + TAG + vmgpu_item_count();\n"
	"}\n";

static const char mark_asm_head[] =
	".args 16\n.kernel mark\n.param out, buf_wo, 0\n.param v, i32, 8\n"
	"	s2r r0, %ctaid.x\n	s2r r1, %ntid.x\n	s2r r2, %tid.x\n"
	"	mad r0, r0, r1, r2\n	ldarg.64 r2, 0\n	lea r2, r2, r0, 2\n"
	"	ldarg r4, 8\n";

static void *mark_exec(uint32_t version, size_t *bytes)
{
	char src[1024], err[256];
	void *image;

	snprintf(src, sizeof(src), "%s%s", mark_asm_head, version == 1 ?
		 "	add r4, r4, 100\n	st.32 [r2], r4\n	exit\n" :
		 "	add r4, r4, 200\n	s2r r5, %itemcount\n"
		 "	add r4, r4, r5\n	st.32 [r2], r4\n	exit\n");
	if (vmgpu_asm_assemble(src, &image, bytes, err, sizeof(err))) {
		fprintf(stderr, "mark_exec: %s\n", err);
		abort();
	}
	return image;
}

/* Add the hand-assembled mark executable of @version. */
static void add_mark(struct __test_metadata *_metadata,
		     struct vmgpu_kernlib *lib, uint32_t version)
{
	char err[200] = "";
	size_t bytes;
	void *image = mark_exec(version, &bytes);
	struct vmgpu_exec_header h;

	vmgpu_exec_header_read(&h, image);
	ASSERT_EQ(version, h.isa_version);
	EXPECT_EQ(0, vmgpu_kernlib_add_executable(lib, version, image, bytes,
						  0, err, sizeof(err)))
		TH_LOG("%s", err);
	free(image);
}

/* Run @prog's mark(v) as a device of ISA version @isa; out[5]. */
static uint32_t run_mark(struct __test_metadata *_metadata,
			 struct testmem *tm, struct vmgpu_program *prog,
			 uint32_t isa, uint32_t v)
{
	uint64_t va = testmem_alloc(tm, 64 * 4);
	uint32_t *out = testmem_ptr(tm, va);
	struct ck c;
	uint32_t i, r;

	load_isa(_metadata, prog, "mark", isa, &c);
	if (!c.k)
		return ~0u;
	set_u64(&c, 0, va);
	set_u32(&c, 1, v);
	EXPECT_EQ(0, run1d(tm, &c, 64, 32));
	for (i = 1; i < 64; i++)
		EXPECT_EQ(out[0], out[i]);
	r = out[5];
	vg_kernel_free(c.k);
	return r;
}

/* A fresh directory under /tmp, and its removal (one level of files). */
static char *tmp_dir(void)
{
	char *d = strdup("/tmp/vmgpu-kc-XXXXXX");

	if (!d || !mkdtemp(d))
		abort();
	return d;
}

static void rm_dir(char *d)
{
	struct dirent *e;
	DIR *dir = opendir(d);
	char path[512];

	while (dir && (e = readdir(dir))) {
		if (e->d_name[0] == '.' && (!e->d_name[1] ||
		    (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		snprintf(path, sizeof(path), "%s/%s", d, e->d_name);
		unlink(path);
	}
	if (dir)
		closedir(dir);
	rmdir(d);
	free(d);
}

static uint8_t *read_bytes(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = malloc(1 << 20);

	if (!f || !b)
		abort();
	*n = fread(b, 1, 1 << 20, f);
	fclose(f);
	return b;
}

/* Files in @d ending in .vkl; the path of the last one into @path. */
static int cache_entries(const char *d, char *path, size_t len)
{
	struct dirent *e;
	DIR *dir = opendir(d);
	int n = 0;

	while (dir && (e = readdir(dir))) {
		size_t l = strlen(e->d_name);

		if (l > 4 && !strcmp(e->d_name + l - 4, ".vkl")) {
			n++;
			if (path)
				snprintf(path, len, "%s/%s", d, e->d_name);
		}
	}
	if (dir)
		closedir(dir);
	return n;
}

static struct vmgpu_program *kl_build(struct __test_metadata *_metadata,
				      struct vmgpu_compiler *cc,
				      struct vmgpu_kernlib *lib, uint32_t isa,
				      int want_r, int want_origin,
				      const char *want_log)
{
	struct vmgpu_program *prog = NULL;
	char *log = NULL;
	int r = vmgpu_kernlib_build(cc, lib, isa, NULL, &prog, &log);

	EXPECT_EQ(want_r, r) TH_LOG("log:\n%s", log ? log : "");
	if (!r) {
		EXPECT_EQ(want_origin, vmgpu_program_origin(prog));
		EXPECT_EQ((int)isa, vmgpu_program_isa_version(prog));
	} else {
		EXPECT_EQ(NULL, prog);
	}
	ASSERT_NE(NULL, log);
	if (want_log)
		EXPECT_NE(NULL, strstr(log, want_log)) TH_LOG("log:\n%s", log);
	free(log);
	return prog;
}

static struct vmgpu_compiler_stats kl_stats(struct vmgpu_compiler *cc)
{
	struct vmgpu_compiler_stats st;

	if (vmgpu_compiler_get_stats(cc, &st))
		abort();
	return st;
}

/*
 * The four rules (compiler.rst), on a device of ISA version 1 and one of
 * version 2, each result run through the interpreter as that device.
 */
TEST_F(cc, kernlib_four_rules_on_both_isa_versions)
{
	uint32_t isa;

	for (isa = VMGPU_ISA_VERSION_MIN; isa <= VMGPU_ISA_VERSION; isa++) {
		char *dir = tmp_dir(), *log = NULL;
		struct vmgpu_compiler *cc;
		struct vmgpu_compiler_stats st;
		struct vmgpu_kernlib *lib;
		struct vmgpu_program *p;
		uint32_t other = isa == 1 ? 2 : 1;

		ASSERT_EQ(0, vmgpu_compiler_create(dir, 0, &cc));
		EXPECT_STREQ(dir, vmgpu_compiler_cache_dir(cc));

		/* 1. an executable of the device's version: as is (the
		 * source, here, is not even compiled) */
		ASSERT_EQ(0, vmgpu_kernlib_create("as-is", mark_src, "-DTAG=7",
						  &lib));
		if (isa != 1)
			add_mark(_metadata, lib, 1);
		add_mark(_metadata, lib, isa);
		EXPECT_EQ(isa == 1 ? 2 : 6, vmgpu_kernlib_isa_versions(lib));
		p = kl_build(_metadata, cc, lib, isa, 0, VMGPU_PROGRAM_AS_IS,
			     "used as they are");
		EXPECT_EQ(isa == 1 ? 105u : 205u,
			  run_mark(_metadata, self->tm, p, isa, 5));
		vmgpu_program_destroy(p);
		vmgpu_kernlib_destroy(lib);
		st = kl_stats(cc);
		EXPECT_EQ(1, st.as_is);
		EXPECT_EQ(0, st.compiles);

		/* 2. a mismatch with source: compiled once, then the cache */
		ASSERT_EQ(0, vmgpu_kernlib_create("mismatch", mark_src,
						  "-DTAG=7", &lib));
		if (other <= isa)
			add_mark(_metadata, lib, other);
		p = kl_build(_metadata, cc, lib, isa, 0,
			     VMGPU_PROGRAM_COMPILED, "compiled for ISA version");
		EXPECT_EQ(22u, run_mark(_metadata, self->tm, p, isa, 5));
		vmgpu_program_destroy(p);
		st = kl_stats(cc);
		EXPECT_EQ(1, st.compiles);
		EXPECT_EQ(1, st.cache_misses);
		EXPECT_EQ(1, st.cache_stores);
		EXPECT_EQ(0, st.cache_hits);
		EXPECT_EQ(1, cache_entries(dir, NULL, 0));
		p = kl_build(_metadata, cc, lib, isa, 0, VMGPU_PROGRAM_CACHED,
			     "from the kernel cache");
		EXPECT_EQ(22u, run_mark(_metadata, self->tm, p, isa, 5));
		vmgpu_program_destroy(p);
		st = kl_stats(cc);
		EXPECT_EQ(1, st.compiles);
		EXPECT_EQ(1, st.cache_hits);
		/* other options: another entry */
		ASSERT_EQ(0, vmgpu_kernlib_build(cc, lib, isa, "-DEXTRA", &p,
						 &log));
		free(log);
		EXPECT_EQ(VMGPU_PROGRAM_COMPILED, vmgpu_program_origin(p));
		vmgpu_program_destroy(p);
		EXPECT_EQ(2, cache_entries(dir, NULL, 0));
		vmgpu_kernlib_destroy(lib);

		/* 3. the source does not compile for this version: the
		 * newest older executable (none older than 1: rule 4) */
		ASSERT_EQ(0, vmgpu_kernlib_create("fallback", mark_v2_src,
						  "-DTAG=7", &lib));
		if (isa == 2) {
			/* ... it compiles for 2, so break it for 2 only */
			vmgpu_kernlib_destroy(lib);
			ASSERT_EQ(0, vmgpu_kernlib_create("fallback",
							  "kernel void mark(",
							  NULL, &lib));
		}
		add_mark(_metadata, lib, 1);
		p = kl_build(_metadata, cc, lib, isa, 0,
			     isa == 1 ? VMGPU_PROGRAM_AS_IS :
					VMGPU_PROGRAM_FALLBACK,
			     isa == 1 ? "used as they are" :
			     "using the executables for ISA version 1");
		EXPECT_EQ(105u, run_mark(_metadata, self->tm, p, isa, 5));
		vmgpu_program_destroy(p);
		vmgpu_kernlib_destroy(lib);

		/* 4. neither: -ENOEXEC naming the library and versions */
		ASSERT_EQ(0, vmgpu_kernlib_create("nothing", mark_v2_src,
						  "-DTAG=7", &lib));
		if (isa == 1) {
			add_mark(_metadata, lib, 2);
			p = kl_build(_metadata, cc, lib, 1, -ENOEXEC, 0,
				     "nothing: error: no executable for ISA "
				     "version 1 (the library has executables "
				     "for: 2) and its source does not compile");
			vmgpu_program_destroy(p);
			st = kl_stats(cc);
			EXPECT_EQ(1, st.compile_failures);
			EXPECT_EQ(1, st.failures);
		} else {
			/* ISA 2 compiles what needs it */
			p = kl_build(_metadata, cc, lib, 2, 0,
				     VMGPU_PROGRAM_COMPILED, NULL);
			EXPECT_EQ(22u, run_mark(_metadata, self->tm, p, 2, 5));
			vmgpu_program_destroy(p);
		}
		vmgpu_kernlib_destroy(lib);
		ASSERT_EQ(0, vmgpu_kernlib_create("no-source", NULL, NULL,
						  &lib));
		p = kl_build(_metadata, cc, lib, isa, -ENOEXEC, 0,
			     "(the library has executables for: none) and no "
			     "source to compile");
		vmgpu_kernlib_destroy(lib);
		vmgpu_compiler_destroy(cc);
		rm_dir(dir);
	}
}

/* The compile error of a version-2 feature for version 1, at its line. */
TEST(kernlib_isa2_feature_is_a_compile_error_for_isa1)
{
	static const char *const want[] = {
		"input.cl:3:", "error: special register %itemcount needs ISA "
		"version 2; compiling for ISA version 1", NULL };
	struct vmgpu_program *p;
	struct vmgpu_exec_header h;
	const void *image;
	size_t bytes;

	build_fails(_metadata, mark_v2_src, "-DTAG=1 -vmgpu-isa=1", want);
	p = build(_metadata, mark_v2_src, "-DTAG=1 -vmgpu-isa=2");
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, vmgpu_program_kernel_image(p, "mark", &image, &bytes));
	vmgpu_exec_header_read(&h, image);
	EXPECT_EQ(2, h.isa_version);
	vmgpu_program_destroy(p);
	/* without it, a version-1 executable even when built for 2 */
	p = build(_metadata, mark_src, "-DTAG=1 -vmgpu-isa=2");
	ASSERT_EQ(0, vmgpu_program_kernel_image(p, "mark", &image, &bytes));
	vmgpu_exec_header_read(&h, image);
	EXPECT_EQ(1, h.isa_version);
	vmgpu_program_destroy(p);
}

/* A damaged cache entry is detected, ignored, and replaced. */
TEST_F(cc, kernlib_corrupt_cache_entries_ignored)
{
	char *dir = tmp_dir(), path[512], *log;
	struct vmgpu_compiler *cc;
	struct vmgpu_kernlib *lib;
	struct vmgpu_program *p;
	struct vmgpu_compiler_stats st;
	uint8_t *data;
	size_t n;
	int fd, round;

	ASSERT_EQ(0, vmgpu_compiler_create(dir, 0, &cc));
	ASSERT_EQ(0, vmgpu_kernlib_create("c", mark_src, "-DTAG=1", &lib));
	p = kl_build(_metadata, cc, lib, 2, 0, VMGPU_PROGRAM_COMPILED, NULL);
	vmgpu_program_destroy(p);
	ASSERT_EQ(1, cache_entries(dir, path, sizeof(path)));
	data = read_bytes(path, &n);
	ASSERT_NE(NULL, data);
	/* truncated; a flipped header byte; a bad instruction; garbage */
	for (round = 0; round < 4; round++) {
		fd = open(path, O_WRONLY | O_TRUNC);
		ASSERT_LE(0, fd);
		if (round == 0) {
			ASSERT_EQ((ssize_t)(n - 9), write(fd, data, n - 9));
		} else if (round == 1) {
			data[4] ^= 1;
			ASSERT_EQ((ssize_t)n, write(fd, data, n));
			data[4] ^= 1;
		} else if (round == 2) {
			/* the first instruction's opcode of the executable
			 * (file header, two set words, two kernel words,
			 * executable header): 0x7f is no instruction */
			uint8_t save = data[32 + 8 + 8 + 32];

			data[32 + 8 + 8 + 32] = 0x7f;
			ASSERT_EQ((ssize_t)n, write(fd, data, n));
			data[32 + 8 + 8 + 32] = save;
		} else {
			ASSERT_EQ(5, write(fd, "junk\n", 5));
		}
		close(fd);
		log = NULL;
		ASSERT_EQ(0, vmgpu_kernlib_build(cc, lib, 2, NULL, &p, &log));
		EXPECT_EQ(VMGPU_PROGRAM_COMPILED, vmgpu_program_origin(p));
		EXPECT_EQ(4u, run_mark(_metadata, self->tm, p, 2, 1));
		vmgpu_program_destroy(p);
		free(log);
		st = kl_stats(cc);
		EXPECT_EQ((uint64_t)round + 1, st.cache_corrupt);
		EXPECT_EQ((uint64_t)round + 2, st.compiles);
		EXPECT_EQ((uint64_t)round + 2, st.cache_stores);
	}
	/* and the replaced entry is good again */
	p = kl_build(_metadata, cc, lib, 2, 0, VMGPU_PROGRAM_CACHED, NULL);
	vmgpu_program_destroy(p);
	/* an unwritable cache is counted, the build still works */
	vmgpu_compiler_destroy(cc);
	ASSERT_EQ(0, vmgpu_compiler_create("/proc/vmgpu-no-such-dir", 0, &cc));
	p = kl_build(_metadata, cc, lib, 2, 0, VMGPU_PROGRAM_COMPILED, NULL);
	vmgpu_program_destroy(p);
	EXPECT_EQ(1, kl_stats(cc).cache_store_failures);
	vmgpu_compiler_destroy(cc);
	free(data);
	vmgpu_kernlib_destroy(lib);
	rm_dir(dir);
}

/* The cache directory: the argument, then the environment. */
TEST(kernlib_cache_directory)
{
	struct vmgpu_compiler *cc;
	char *save[3];
	static const char *const vars[3] = {
		"VMGPU_KERNEL_CACHE", "XDG_CACHE_HOME", "HOME" };
	int i;

	for (i = 0; i < 3; i++) {
		save[i] = getenv(vars[i]) ? strdup(getenv(vars[i])) : NULL;
		unsetenv(vars[i]);
	}
	ASSERT_EQ(0, vmgpu_compiler_create(NULL, 0, &cc));
	EXPECT_STREQ("", vmgpu_compiler_cache_dir(cc));
	vmgpu_compiler_destroy(cc);
	setenv("HOME", "/", 1);
	ASSERT_EQ(0, vmgpu_compiler_create(NULL, 0, &cc));
	EXPECT_STREQ("/.cache/vmgpu/kernels", vmgpu_compiler_cache_dir(cc));
	vmgpu_compiler_destroy(cc);
	setenv("HOME", "relative", 1);		/* not absolute: ignored */
	ASSERT_EQ(0, vmgpu_compiler_create(NULL, 0, &cc));
	EXPECT_STREQ("", vmgpu_compiler_cache_dir(cc));
	vmgpu_compiler_destroy(cc);
	setenv("HOME", "/h", 1);
	ASSERT_EQ(0, vmgpu_compiler_create(NULL, 0, &cc));
	EXPECT_STREQ("/h/.cache/vmgpu/kernels", vmgpu_compiler_cache_dir(cc));
	vmgpu_compiler_destroy(cc);
	setenv("XDG_CACHE_HOME", "/x/", 1);
	ASSERT_EQ(0, vmgpu_compiler_create(NULL, 0, &cc));
	EXPECT_STREQ("/x/vmgpu/kernels", vmgpu_compiler_cache_dir(cc));
	vmgpu_compiler_destroy(cc);
	setenv("VMGPU_KERNEL_CACHE", "/k/", 1);
	ASSERT_EQ(0, vmgpu_compiler_create(NULL, 0, &cc));
	EXPECT_STREQ("/k", vmgpu_compiler_cache_dir(cc));
	vmgpu_compiler_destroy(cc);
	ASSERT_EQ(0, vmgpu_compiler_create("/o", 0, &cc));
	EXPECT_STREQ("/o", vmgpu_compiler_cache_dir(cc));
	vmgpu_compiler_destroy(cc);
	ASSERT_EQ(0, vmgpu_compiler_create("/o", VMGPU_COMPILER_NO_CACHE,
					   &cc));
	EXPECT_STREQ("", vmgpu_compiler_cache_dir(cc));
	vmgpu_compiler_destroy(cc);
	EXPECT_EQ(-EINVAL, vmgpu_compiler_create("rel", 0, &cc));
	EXPECT_EQ(NULL, cc);
	EXPECT_EQ(-EINVAL, vmgpu_compiler_create(NULL, 2, &cc));
	EXPECT_EQ(-EINVAL, vmgpu_compiler_create(NULL, 0, NULL));
	for (i = 0; i < 3; i++) {
		if (save[i])
			setenv(vars[i], save[i], 1);
		else
			unsetenv(vars[i]);
		free(save[i]);
	}
}

/* A library file: round trip, then every kind of damage refused. */
TEST(kernlib_file_format)
{
	struct vmgpu_kernlib *lib, *back;
	struct vmgpu_program *p;
	char err[256], *dir = tmp_dir(), path[512];
	void *data, *data2, *img;
	size_t n, n2, i, ibytes;
	uint8_t *d;

	ASSERT_EQ(0, vmgpu_kernlib_create("f", mark_src, "-DTAG=3", &lib));
	p = build(_metadata, mark_src, "-DTAG=3 -vmgpu-isa=1");
	ASSERT_EQ(0, vmgpu_kernlib_add_program(lib, p, err, sizeof(err)));
	EXPECT_EQ(-EEXIST, vmgpu_kernlib_add_program(lib, p, err,
						     sizeof(err)));
	vmgpu_program_destroy(p);
	img = mark_exec(2, &ibytes);
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_add_executable(lib, 1, img, ibytes,
							0, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "ISA version 2 for version 1"));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_add_executable(lib, 3, img, ibytes,
							0, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_add_executable(lib, 2, img,
							ibytes - 1, 0, err,
							sizeof(err)));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_add_executable(lib, 2, img, ibytes,
							3, err, sizeof(err)));
	ASSERT_EQ(0, vmgpu_kernlib_add_executable(lib, 2, img, ibytes, 0,
						  err, sizeof(err)));
	free(img);
	EXPECT_EQ(6, vmgpu_kernlib_isa_versions(lib));

	ASSERT_EQ(0, vmgpu_kernlib_write(lib, &data, &n));
	d = data;
	EXPECT_EQ(0, memcmp(d, "VKLB", 4));
	EXPECT_EQ(0, n % 8);
	snprintf(path, sizeof(path), "%s/lib.vkl", dir);
	ASSERT_EQ(0, vmgpu_kernlib_write_file(lib, path));
	ASSERT_EQ(0, vmgpu_kernlib_read_file(path, &back, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, vmgpu_kernlib_write(back, &data2, &n2));
	ASSERT_EQ(n, n2);
	EXPECT_EQ(0, memcmp(data, data2, n));
	free(data2);
	vmgpu_kernlib_destroy(back);

	/* every truncation, and a byte more */
	for (i = 0; i < n; i += (i < 64 ? 1 : 7))
		EXPECT_EQ(-EINVAL, vmgpu_kernlib_read(data, i, "t", &back, err,
						      sizeof(err)));
	d = realloc(data, n + 1);
	ASSERT_NE(NULL, d);
	data = d;
	d[n] = 0;
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_read(d, n + 1, "t", &back, err,
					      sizeof(err)));
	/* each header word changed */
	for (i = 0; i < 32; i += 4) {
		d[i] ^= 0x40;
		EXPECT_EQ(-EINVAL, vmgpu_kernlib_read(d, n, "t", &back, err,
						      sizeof(err)))
			TH_LOG("header byte %zu", i);
		EXPECT_EQ(NULL, back);
		d[i] ^= 0x40;
	}
	d[0] ^= 1;
	vmgpu_kernlib_read(d, n, "t", &back, err, sizeof(err));
	EXPECT_NE(NULL, strstr(err, "bad magic"));
	d[0] ^= 1;
	ASSERT_EQ(0, vmgpu_kernlib_read(d, n, "t", &back, err, sizeof(err)));
	vmgpu_kernlib_destroy(back);
	EXPECT_EQ(-ENOENT, vmgpu_kernlib_read_file("/nonexistent/x.vkl",
						   &back, err, sizeof(err)));
	free(data);
	vmgpu_kernlib_destroy(lib);
	rm_dir(dir);
}

/* Builds in several threads share one compiler, library and cache. */
struct kl_thread {
	struct vmgpu_compiler *cc;
	struct vmgpu_kernlib *lib;
	int r, origin;
};

static void *kl_thread_fn(void *arg)
{
	struct kl_thread *t = arg;
	struct vmgpu_program *p = NULL;

	t->r = vmgpu_kernlib_build(t->cc, t->lib, 2, NULL, &p, NULL);
	t->origin = vmgpu_program_origin(p);
	vmgpu_program_destroy(p);
	return NULL;
}

TEST(kernlib_concurrent_builds)
{
	struct kl_thread t[3];
	pthread_t th[3];
	struct vmgpu_compiler *cc;
	struct vmgpu_kernlib *lib;
	struct vmgpu_compiler_stats st;
	char *dir = tmp_dir();
	int i;

	ASSERT_EQ(0, vmgpu_compiler_create(dir, 0, &cc));
	ASSERT_EQ(0, vmgpu_kernlib_create("t", mark_src, "-DTAG=2", &lib));
	for (i = 0; i < 3; i++) {
		t[i].cc = cc;
		t[i].lib = lib;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, kl_thread_fn, &t[i]));
	}
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, pthread_join(th[i], NULL));
		EXPECT_EQ(0, t[i].r);
	}
	st = kl_stats(cc);
	EXPECT_EQ(3, st.builds);
	EXPECT_EQ(3, st.compiles + st.cache_hits);
	EXPECT_EQ(st.compiles, st.cache_stores);
	EXPECT_EQ(0, st.cache_corrupt);
	EXPECT_EQ(1, cache_entries(dir, NULL, 0));
	vmgpu_kernlib_destroy(lib);
	vmgpu_compiler_destroy(cc);
	rm_dir(dir);
}

TEST(kernlib_bad_arguments)
{
	struct vmgpu_compiler *cc;
	struct vmgpu_kernlib *lib;
	struct vmgpu_program *p;
	char *log;

	ASSERT_EQ(0, vmgpu_compiler_create(NULL, VMGPU_COMPILER_NO_CACHE,
					   &cc));
	ASSERT_EQ(0, vmgpu_kernlib_create(NULL, mark_src, "-DTAG=1", &lib));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_build(cc, lib, 0, NULL, &p, &log));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_build(cc, lib, VMGPU_ISA_VERSION + 1,
					       NULL, &p, &log));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_build(NULL, lib, 1, NULL, &p, &log));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_build(cc, NULL, 1, NULL, &p, &log));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_build(cc, lib, 1, NULL, NULL, &log));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_build_for_device(cc, lib, NULL, NULL,
							  &p, &log));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_isa_versions(NULL));
	EXPECT_EQ(-EINVAL, vmgpu_program_origin(NULL));
	/* without a cache every build compiles */
	p = kl_build(_metadata, cc, lib, 1, 0, VMGPU_PROGRAM_COMPILED,
		     "kernels: note: compiled");
	vmgpu_program_destroy(p);
	p = kl_build(_metadata, cc, lib, 1, 0, VMGPU_PROGRAM_COMPILED, NULL);
	vmgpu_program_destroy(p);
	EXPECT_EQ(2, kl_stats(cc).compiles);
	EXPECT_EQ(0, kl_stats(cc).cache_misses);
	vmgpu_kernlib_destroy(lib);
	vmgpu_compiler_destroy(cc);
}

TEST_HARNESS_MAIN
