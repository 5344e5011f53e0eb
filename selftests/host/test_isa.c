// SPDX-License-Identifier: GPL-2.0-only
/*
 * The interpreter, instruction by instruction: every opcode against a C
 * statement of its documented semantics over edge-case operands, then
 * divergence, barriers, memory, the store-log memory model, faults,
 * budgets and executable validation.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "vmgpu.h"
#include "core/interp.h"
#include "testmem.h"

#define MEM_BASE	0x200000000ull
#define MEM_BYTES	(4u << 20)
#define CANON_NAN	0x7fc00000u

static uint32_t fbits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static float bitsf(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static const uint32_t int_vals[] = {
	0, 1, 2, 3, 7, 31, 32, 33, 255, 0x7fffffff, 0x80000000u, 0xffffffffu,
	0xfffffffeu, 0x12345678, 0xdeadbeefu, 100,
};

static const float float_vals[] = {
	0.0f, -0.0f, 1.0f, -1.0f, 1.5f, -2.75f, 3e38f, -3e38f, 1e-40f,
	INFINITY, -INFINITY, NAN, 2147483648.0f, -2147483904.0f,
	4294967296.0f, 0.999f,
};

#define NV 16

/* One block of @threads threads, write-through unless @log. */
static int run_kernel(struct testmem *tm, const char *src, uint32_t threads,
		      const void *args, uint32_t args_bytes,
		      struct vg_fault_info *fault)
{
	struct vg_kernel *k = testmem_kernel(src);
	struct testmem_launch tl = {
		.grid = { 1, 1, 1 }, .block = { threads, 1, 1 },
		.args = args, .args_bytes = args_bytes,
		.budget = 1u << 20,
	};
	int r = testmem_run(tm, k, &tl, fault, NULL);

	vg_kernel_free(k);
	return r;
}

/* out[i] = OP(a[i], b[i]) for each pair of test values. */
static const char binop_tmpl[] =
	".args 24\n"
	"	s2r r0, %%tid.x\n"
	"	ldarg.64 r2, 0\n"
	"	ldarg.64 r4, 8\n"
	"	ldarg.64 r6, 16\n"
	"	lea r2, r2, r0, 2\n"
	"	lea r4, r4, r0, 2\n"
	"	lea r6, r6, r0, 2\n"
	"	ld.32 r8, [r2]\n"
	"	ld.32 r9, [r4]\n"
	"	mov r10, 0x5555\n"
	"	%s\n"
	"	st.32 [r6], r10\n"
	"	exit\n";

struct opcase {
	const char *insn;	/* operands r10 = f(r8, r9) */
	uint32_t (*ref)(uint32_t a, uint32_t b);
	bool is_float;
};

static uint32_t r_add(uint32_t a, uint32_t b) { return a + b; }
static uint32_t r_sub(uint32_t a, uint32_t b) { return a - b; }
static uint32_t r_mul(uint32_t a, uint32_t b) { return a * b; }
static uint32_t r_mulhi(uint32_t a, uint32_t b)
{
	return (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32);
}
static uint32_t r_mulhiu(uint32_t a, uint32_t b)
{
	return (uint32_t)(((uint64_t)a * b) >> 32);
}
/* RISC-V: x / 0 = all ones, x % 0 = x, INT_MIN / -1 = INT_MIN rem 0. */
static uint32_t r_div(uint32_t a, uint32_t b)
{
	if (!b)
		return 0xffffffffu;
	if (a == 0x80000000u && b == 0xffffffffu)
		return a;
	return (uint32_t)((int32_t)a / (int32_t)b);
}
static uint32_t r_divu(uint32_t a, uint32_t b) { return b ? a / b : ~0u; }
static uint32_t r_rem(uint32_t a, uint32_t b)
{
	if (!b)
		return a;
	if (a == 0x80000000u && b == 0xffffffffu)
		return 0;
	return (uint32_t)((int32_t)a % (int32_t)b);
}
static uint32_t r_remu(uint32_t a, uint32_t b) { return b ? a % b : a; }
static uint32_t r_and(uint32_t a, uint32_t b) { return a & b; }
static uint32_t r_or(uint32_t a, uint32_t b) { return a | b; }
static uint32_t r_xor(uint32_t a, uint32_t b) { return a ^ b; }
/* Shift amounts are the whole register: >= 32 shifts everything out. */
static uint32_t r_shl(uint32_t a, uint32_t b) { return b > 31 ? 0 : a << b; }
static uint32_t r_shr(uint32_t a, uint32_t b) { return b > 31 ? 0 : a >> b; }
static uint32_t r_sra(uint32_t a, uint32_t b)
{
	return (uint32_t)((int32_t)a >> (b > 31 ? 31 : b));
}
static uint32_t r_min(uint32_t a, uint32_t b)
{
	return (int32_t)a < (int32_t)b ? a : b;
}
static uint32_t r_max(uint32_t a, uint32_t b)
{
	return (int32_t)a > (int32_t)b ? a : b;
}
static uint32_t r_minu(uint32_t a, uint32_t b) { return a < b ? a : b; }
static uint32_t r_maxu(uint32_t a, uint32_t b) { return a > b ? a : b; }
static uint32_t r_not(uint32_t a, uint32_t b) { return ~a; }
static uint32_t r_neg(uint32_t a, uint32_t b) { return 0u - a; }
static uint32_t r_mad(uint32_t a, uint32_t b) { return a * b + a; }

static uint32_t canon(float f)
{
	return f != f ? CANON_NAN : fbits(f);
}
static uint32_t r_fadd(uint32_t a, uint32_t b)
{
	return canon(bitsf(a) + bitsf(b));
}
static uint32_t r_fsub(uint32_t a, uint32_t b)
{
	return canon(bitsf(a) - bitsf(b));
}
static uint32_t r_fmul(uint32_t a, uint32_t b)
{
	return canon(bitsf(a) * bitsf(b));
}
static uint32_t r_fdiv(uint32_t a, uint32_t b)
{
	return canon(bitsf(a) / bitsf(b));
}
static uint32_t r_ffma(uint32_t a, uint32_t b)
{
	return canon(fmaf(bitsf(a), bitsf(b), bitsf(a)));
}
/* minNum/maxNum: a NaN operand loses; -0 < +0. */
static uint32_t r_fmin(uint32_t a, uint32_t b)
{
	float x = bitsf(a), y = bitsf(b);

	if (isnan(x) && isnan(y))
		return CANON_NAN;
	if (isnan(x))
		return b;
	if (isnan(y))
		return a;
	if (x == y)
		return signbit(x) ? a : b;
	return x < y ? a : b;
}
static uint32_t r_fmax(uint32_t a, uint32_t b)
{
	float x = bitsf(a), y = bitsf(b);

	if (isnan(x) && isnan(y))
		return CANON_NAN;
	if (isnan(x))
		return b;
	if (isnan(y))
		return a;
	if (x == y)
		return signbit(x) ? b : a;
	return x > y ? a : b;
}
static uint32_t r_fsqrt(uint32_t a, uint32_t b) { return canon(sqrtf(bitsf(a))); }
static uint32_t r_fabs(uint32_t a, uint32_t b) { return a & 0x7fffffffu; }
static uint32_t r_fneg(uint32_t a, uint32_t b) { return a ^ 0x80000000u; }
static uint32_t r_i2f(uint32_t a, uint32_t b) { return fbits((float)(int32_t)a); }
static uint32_t r_u2f(uint32_t a, uint32_t b) { return fbits((float)a); }
/* Truncate, saturate, NaN -> 0. */
static uint32_t r_f2i(uint32_t a, uint32_t b)
{
	float f = bitsf(a);

	if (isnan(f))
		return 0;
	if (f >= 2147483648.0f)
		return 0x7fffffff;
	if (f <= -2147483648.0f)
		return 0x80000000u;
	return (uint32_t)(int32_t)truncf(f);
}
static uint32_t r_f2u(uint32_t a, uint32_t b)
{
	float f = bitsf(a);

	if (isnan(f) || f <= -1.0f)
		return 0;
	if (f >= 4294967296.0f)
		return 0xffffffffu;
	return (uint32_t)truncf(f);
}

static const struct opcase int_ops[] = {
	{ "add r10, r8, r9", r_add, false }, { "sub r10, r8, r9", r_sub, false },
	{ "mul r10, r8, r9", r_mul, false }, { "mulhi r10, r8, r9", r_mulhi, false },
	{ "mulhiu r10, r8, r9", r_mulhiu, false }, { "div r10, r8, r9", r_div, false },
	{ "divu r10, r8, r9", r_divu, false }, { "rem r10, r8, r9", r_rem, false },
	{ "remu r10, r8, r9", r_remu, false }, { "and r10, r8, r9", r_and, false },
	{ "or r10, r8, r9", r_or, false }, { "xor r10, r8, r9", r_xor, false },
	{ "shl r10, r8, r9", r_shl, false }, { "shr r10, r8, r9", r_shr, false },
	{ "sra r10, r8, r9", r_sra, false }, { "min r10, r8, r9", r_min, false },
	{ "max r10, r8, r9", r_max, false }, { "minu r10, r8, r9", r_minu, false },
	{ "maxu r10, r8, r9", r_maxu, false }, { "not r10, r8", r_not, false },
	{ "neg r10, r8", r_neg, false }, { "mad r10, r8, r9, r8", r_mad, false },
	{ "i2f r10, r8", r_i2f, false }, { "u2f r10, r8", r_u2f, false },
};

static const struct opcase float_ops[] = {
	{ "fadd r10, r8, r9", r_fadd, true },
	{ "fsub r10, r8, r9", r_fsub, true },
	{ "fmul r10, r8, r9", r_fmul, true },
	{ "fdiv r10, r8, r9", r_fdiv, true },
	{ "fmin r10, r8, r9", r_fmin, true },
	{ "fmax r10, r8, r9", r_fmax, true },
	{ "ffma r10, r8, r9, r8", r_ffma, true },
	{ "fsqrt r10, r8", r_fsqrt, true },
	{ "fabs r10, r8", r_fabs, true },
	{ "fneg r10, r8", r_fneg, true },
	{ "f2i r10, r8", r_f2i, true },
	{ "f2u r10, r8", r_f2u, true },
};

FIXTURE(isa) {
	struct testmem *tm;
	uint64_t a, b, out;
	uint8_t args[24];
	struct vg_fault_info fault;
};

FIXTURE_SETUP(isa)
{
	self->tm = testmem_new(MEM_BASE, MEM_BYTES);
	self->a = testmem_alloc(self->tm, 8192);
	self->b = testmem_alloc(self->tm, 8192);
	self->out = testmem_alloc(self->tm, 8192);
	memcpy(self->args, &self->a, 8);
	memcpy(self->args + 8, &self->b, 8);
	memcpy(self->args + 16, &self->out, 8);
}

FIXTURE_TEARDOWN(isa)
{
	testmem_free(self->tm);
}

static void check_ops(struct __test_metadata *_metadata,
		      FIXTURE_DATA(isa) *self, const struct opcase *ops,
		      size_t nops)
{
	uint32_t *a = testmem_ptr(self->tm, self->a);
	uint32_t *b = testmem_ptr(self->tm, self->b);
	uint32_t *out = testmem_ptr(self->tm, self->out);
	char src[1024];
	size_t o;
	int i;

	for (o = 0; o < nops; o++) {
		for (i = 0; i < NV * NV; i++) {
			a[i] = ops[o].is_float ? fbits(float_vals[i / NV]) :
				int_vals[i / NV];
			b[i] = ops[o].is_float ? fbits(float_vals[i % NV]) :
				int_vals[i % NV];
		}
		snprintf(src, sizeof(src), binop_tmpl, ops[o].insn);
		ASSERT_EQ(0, run_kernel(self->tm, src, NV * NV, self->args,
					24, &self->fault));
		for (i = 0; i < NV * NV; i++) {
			uint32_t want = ops[o].ref(a[i], b[i]);

			if (out[i] != want)
				TH_LOG("%s: a=%#x b=%#x got %#x want %#x",
				       ops[o].insn, a[i], b[i], out[i], want);
			ASSERT_EQ(want, out[i]);
		}
	}
}

TEST_F(isa, integer_ops)
{
	check_ops(_metadata, self, int_ops, sizeof(int_ops) / sizeof(int_ops[0]));
}

TEST_F(isa, float_ops)
{
	check_ops(_metadata, self, float_ops,
		  sizeof(float_ops) / sizeof(float_ops[0]));
}

TEST_F(isa, immediate_forms)
{
	static const struct {
		const char *insn;
		uint32_t a, want;
	} c[] = {
		{ "add r10, r8, -5", 3, 0xfffffffeu },
		{ "sub r10, r8, 0x10", 0x20, 0x10 },
		{ "mul r10, r8, 3", 7, 21 },
		{ "div r10, r8, 0", 9, 0xffffffffu },
		{ "rem r10, r8, -1", 0x80000000u, 0 },
		{ "div r10, r8, -1", 0x80000000u, 0x80000000u },
		{ "shl r10, r8, 32", 1, 0 },
		{ "sra r10, r8, 40", 0x80000000u, 0xffffffffu },
		{ "shr r10, r8, 4", 0xf0, 0xf },
		{ "and r10, r8, 0xff", 0x1234, 0x34 },
		{ "minu r10, r8, 5", 9, 5 },
		{ "max r10, r8, -1", 0xfffffff0u, 0xffffffffu },
		{ "mov r10, 0xcafe", 0, 0xcafe },
		{ "mov r10, r8", 77, 77 },
		{ "fadd r10, r8, 1.5", 0x3f800000, 0x40200000 },
		{ "fmul r10, r8, -2", 0x3f800000, 0xc0000000u },
		{ "fmin r10, r8, 0x7fc00000", 0x3f800000, 0x3f800000 },
		{ "fmax r10, r8, 0.0", 0x80000000u, 0 },
		{ "fdiv r10, r8, 0.0", 0, CANON_NAN },
	};
	uint32_t *a = testmem_ptr(self->tm, self->a);
	uint32_t *out = testmem_ptr(self->tm, self->out);
	char src[1024];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		a[0] = c[i].a;
		snprintf(src, sizeof(src), binop_tmpl, c[i].insn);
		ASSERT_EQ(0, run_kernel(self->tm, src, 1, self->args, 24,
					&self->fault));
		if (out[0] != c[i].want)
			TH_LOG("%s: got %#x", c[i].insn, out[0]);
		ASSERT_EQ(c[i].want, out[0]);
	}
}

/* Comparisons: out = sel(p, 1, 0) after setp; also predicate logic. */
TEST_F(isa, compare_and_select)
{
	static const struct {
		const char *op;
		bool is_float;
	} c[] = {
		{ "setp.eq", 0 }, { "setp.ne", 0 }, { "setp.lt", 0 },
		{ "setp.le", 0 }, { "setp.gt", 0 }, { "setp.ge", 0 },
		{ "setp.ltu", 0 }, { "setp.leu", 0 }, { "setp.gtu", 0 },
		{ "setp.geu", 0 }, { "fsetp.eq", 1 }, { "fsetp.ne", 1 },
		{ "fsetp.lt", 1 }, { "fsetp.le", 1 }, { "fsetp.gt", 1 },
		{ "fsetp.ge", 1 },
	};
	uint32_t *a = testmem_ptr(self->tm, self->a);
	uint32_t *b = testmem_ptr(self->tm, self->b);
	uint32_t *out = testmem_ptr(self->tm, self->out);
	char insn[256], src[1024];
	size_t o;
	int i;

	for (o = 0; o < sizeof(c) / sizeof(c[0]); o++) {
		for (i = 0; i < NV * NV; i++) {
			a[i] = c[o].is_float ? fbits(float_vals[i / NV]) :
				int_vals[i / NV];
			b[i] = c[o].is_float ? fbits(float_vals[i % NV]) :
				int_vals[i % NV];
		}
		snprintf(insn, sizeof(insn),
			 "%s p3, r8, r9\n\tmov r11, 1\n\tmov r12, 0\n"
			 "\tsel r10, p3, r11, r12", c[o].op);
		snprintf(src, sizeof(src), binop_tmpl, insn);
		ASSERT_EQ(0, run_kernel(self->tm, src, NV * NV, self->args,
					24, &self->fault));
		for (i = 0; i < NV * NV; i++) {
			int32_t x = a[i], y = b[i];
			float f = bitsf(a[i]), g = bitsf(b[i]);
			bool want;

			switch (o) {
			case 0: want = a[i] == b[i]; break;
			case 1: want = a[i] != b[i]; break;
			case 2: want = x < y; break;
			case 3: want = x <= y; break;
			case 4: want = x > y; break;
			case 5: want = x >= y; break;
			case 6: want = a[i] < b[i]; break;
			case 7: want = a[i] <= b[i]; break;
			case 8: want = a[i] > b[i]; break;
			case 9: want = a[i] >= b[i]; break;
			case 10: want = f == g; break;
			case 11: want = !(f == g); break;	/* NaN: true */
			case 12: want = f < g; break;
			case 13: want = f <= g; break;
			case 14: want = f > g; break;
			default: want = f >= g; break;
			}
			if (out[i] != want)
				TH_LOG("%s %#x %#x", c[o].op, a[i], b[i]);
			ASSERT_EQ(want, out[i]);
		}
	}
}

TEST_F(isa, predicate_logic)
{
	static const char *const ops[] = {
		"pand p2, p0, p1", "por p2, p0, p1", "pxor p2, p0, p1",
		"pnot p2, p0",
	};
	uint32_t *a = testmem_ptr(self->tm, self->a);
	uint32_t *b = testmem_ptr(self->tm, self->b);
	uint32_t *out = testmem_ptr(self->tm, self->out);
	char insn[256], src[1024];
	int o, i;

	for (i = 0; i < 4; i++) {
		a[i] = i & 1;
		b[i] = i >> 1;
	}
	for (o = 0; o < 4; o++) {
		snprintf(insn, sizeof(insn),
			 "setp.ne p0, r8, 0\n\tsetp.ne p1, r9, 0\n\t%s\n"
			 "\tmov r11, 1\n\tmov r12, 0\n\tsel r10, p2, r11, r12",
			 ops[o]);
		snprintf(src, sizeof(src), binop_tmpl, insn);
		ASSERT_EQ(0, run_kernel(self->tm, src, 4, self->args, 24,
					&self->fault));
		for (i = 0; i < 4; i++) {
			bool x = a[i], y = b[i];
			bool want = o == 0 ? x && y : o == 1 ? x || y :
				    o == 2 ? x != y : !x;

			ASSERT_EQ(want, out[i]);
		}
	}
}

TEST_F(isa, address_arithmetic)
{
	/* lea with carry into the high word; add64 register and imm. */
	static const char src[] =
		".args 24\n"
		"	ldarg.64 r6, 16\n"
		"	mov r0, 0xfffffff0\n"
		"	mov r1, 0x7\n"
		"	mov r2, 0x10\n"
		"	lea r4, r0, r2, 2\n"	/* 0x7_fffffff0 + 0x40 */
		"	st.64 [r6], r4\n"
		"	lea r4, r0, r2, 0\n"
		"	st.64 [r6 + 8], r4\n"
		"	mov r2, 0xffffffff\n"
		"	lea r4, r0, r2, 31\n"
		"	st.64 [r6 + 16], r4\n"
		"	add64 r4, r0, -0x20\n"
		"	st.64 [r6 + 24], r4\n"
		"	mov r2, 0x20\n"
		"	mov r3, 1\n"
		"	add64 r4, r0, r2\n"
		"	st.64 [r6 + 32], r4\n"
		"	exit\n";
	uint64_t *out = testmem_ptr(self->tm, self->out);

	ASSERT_EQ(0, run_kernel(self->tm, src, 1, self->args, 24,
				&self->fault));
	EXPECT_EQ(0x7fffffff0ull + 0x40, out[0]);
	EXPECT_EQ(0x7fffffff0ull + 0x10, out[1]);
	EXPECT_EQ(0x7fffffff0ull + (0xffffffffull << 31), out[2]);
	EXPECT_EQ(0x7fffffff0ull - 0x20, out[3]);
	EXPECT_EQ(0x7fffffff0ull + 0x100000020ull, out[4]);
}

TEST_F(isa, special_registers)
{
	static const char src[] =
		".args 24\n"
		"	s2r r0, %tid.x\n"
		"	s2r r1, %tid.y\n"
		"	s2r r2, %tid.z\n"
		"	s2r r3, %ntid.x\n"
		"	s2r r4, %ntid.y\n"
		"	mul r5, r2, r4\n"
		"	add r5, r5, r1\n"
		"	mad r5, r5, r3, r0\n"	/* linear thread id */
		"	ldarg.64 r6, 16\n"
		"	mul r5, r5, 64\n"
		"	lea r6, r6, r5, 0\n"
		"	st.32 [r6], r0\n"
		"	st.32 [r6 + 4], r1\n"
		"	st.32 [r6 + 8], r2\n"
		"	s2r r8, %ctaid.x\n	st.32 [r6 + 12], r8\n"
		"	s2r r8, %ctaid.y\n	st.32 [r6 + 16], r8\n"
		"	s2r r8, %ctaid.z\n	st.32 [r6 + 20], r8\n"
		"	s2r r8, %nctaid.x\n	st.32 [r6 + 24], r8\n"
		"	s2r r8, %nctaid.y\n	st.32 [r6 + 28], r8\n"
		"	s2r r8, %nctaid.z\n	st.32 [r6 + 32], r8\n"
		"	s2r r8, %origin.x\n	st.32 [r6 + 36], r8\n"
		"	s2r r8, %ntid.z\n	st.32 [r6 + 40], r8\n"
		"	s2r r8, %laneid\n	st.32 [r6 + 44], r8\n"
		"	s2r r8, %warpid\n	st.32 [r6 + 48], r8\n"
		"	s2r r8, %gpuid\n	st.32 [r6 + 52], r8\n"
		"	s2r r8, %smid\n	st.32 [r6 + 56], r8\n"
		"	s2r r8, %origin.z\n	st.32 [r6 + 60], r8\n"
		"	exit\n";
	struct vg_kernel *k = testmem_kernel(src);
	struct vg_interp *it = vg_interp_new();
	uint32_t *out = testmem_ptr(self->tm, self->out);
	uint32_t pos[3] = { 1, 0, 2 };
	uint64_t budget = 100000;
	struct vg_launch l = {
		.kernel = k, .args = self->args, .args_bytes = 24,
		.grid = { 2, 1, 3 }, .block = { 5, 3, 2 },
		.origin = { 10, 20, 30 }, .grid_total = { 40, 50, 60 },
		.gpu = 3, .mem = &self->tm->memif,
	};
	uint32_t t;

	ASSERT_EQ(0, vg_interp_run_block(it, &l, pos, 7, NULL, &budget, NULL,
					 &self->fault));
	for (t = 0; t < 30; t++) {
		uint32_t *o = out + t * 16;

		EXPECT_EQ(t % 5, o[0]);
		EXPECT_EQ(t / 5 % 3, o[1]);
		EXPECT_EQ(t / 15, o[2]);
		EXPECT_EQ(11, o[3]);
		EXPECT_EQ(20, o[4]);
		EXPECT_EQ(32, o[5]);
		EXPECT_EQ(40, o[6]);
		EXPECT_EQ(50, o[7]);
		EXPECT_EQ(60, o[8]);
		EXPECT_EQ(10, o[9]);
		EXPECT_EQ(2, o[10]);
		EXPECT_EQ(t % 32, o[11]);
		EXPECT_EQ(t / 32, o[12]);
		EXPECT_EQ(3, o[13]);
		EXPECT_EQ(7, o[14]);
		EXPECT_EQ(30, o[15]);
	}
	vg_interp_free(it);
	vg_kernel_free(k);
}

/*
 * Divergence: nested if/else by lane bits, a loop with a per-lane trip
 * count, and early exit of some lanes; every lane logs its path.
 */
TEST_F(isa, divergence)
{
	static const char src[] =
		".args 24\n"
		"	s2r r0, %tid.x\n"
		"	ldarg.64 r6, 16\n"
		"	lea r6, r6, r0, 2\n"
		"	mov r10, 0\n"
		"	and r1, r0, 1\n"
		"	setp.ne p0, r1, 0\n"
		"	bra !p0, even\n"
		"	and r2, r0, 2\n"		/* odd lanes */
		"	setp.ne p1, r2, 0\n"
		"	bra p1, odd_b\n"
		"	add r10, r10, 10\n"
		"	bra odd_end\n"
		"odd_b:\n"
		"	add r10, r10, 20\n"
		"odd_end:\n"
		"	add r10, r10, 100\n"
		"	bra joined\n"
		"even:\n"
		"	add r10, r10, 1000\n"
		"joined:\n"
		/* loop: i from 0 to tid % 7 */
		"	remu r3, r0, 7\n"
		"	mov r4, 0\n"
		"loop:\n"
		"	setp.gtu p2, r4, r3\n"
		"	bra p2, loop_end\n"
		"	add r10, r10, 10000\n"
		"	add r4, r4, 1\n"
		"	bra loop\n"
		"loop_end:\n"
		/* lanes with tid % 5 == 0 leave early */
		"	remu r5, r0, 5\n"
		"	setp.eq p3, r5, 0\n"
		"	bra !p3, stay\n"
		"	st.32 [r6], r10\n"
		"	exit\n"
		"stay:\n"
		"	add r10, r10, 1000000\n"
		"	st.32 [r6], r10\n"
		"	exit\n";
	uint32_t *out = testmem_ptr(self->tm, self->out);
	struct vg_block_stats st = { 0 };
	struct vg_kernel *k = testmem_kernel(src);
	struct testmem_launch tl = {
		.grid = { 1, 1, 1 }, .block = { 100, 1, 1 },
		.args = self->args, .args_bytes = 24, .write_through = true,
	};
	uint32_t t;

	ASSERT_EQ(0, testmem_run(self->tm, k, &tl, &self->fault, &st));
	for (t = 0; t < 100; t++) {
		uint32_t want = 0;

		if (t & 1)
			want += (t & 2 ? 20 : 10) + 100;
		else
			want += 1000;
		want += 10000 * (t % 7 + 1);
		if (t % 5)
			want += 1000000;
		EXPECT_EQ(want, out[t]);
	}
	/* Thread instructions count active lanes only. */
	EXPECT_LT(st.thread_instrs, st.warp_instrs * 32);
	vg_kernel_free(k);
}

/*
 * Barriers: warps exchange data through shared memory; some warps exit
 * before the second barrier, which then releases the rest (exited warps
 * do not count) instead of deadlocking.
 */
TEST_F(isa, barrier_and_shared)
{
	static const char src[] =
		".shared 1024\n"
		".args 24\n"
		"	s2r r0, %tid.x\n"
		"	s2r r1, %ntid.x\n"
		"	shl r2, r0, 2\n"
		"	mul r3, r0, 3\n"
		"	sts.32 [r2], r3\n"
		"	bar\n"
		"	sub r4, r1, 1\n"
		"	sub r4, r4, r0\n"		/* reversed index */
		"	shl r4, r4, 2\n"
		"	lds.32 r5, [r4]\n"
		"	ldarg.64 r6, 16\n"
		"	lea r6, r6, r0, 2\n"
		"	st.32 [r6], r5\n"
		"	setp.geu p0, r0, 64\n"
		"	bra p0, out\n"			/* warps 2.. exit */
		"	bar\n"
		"	sts.32 [r2], r0\n"
		"	bar\n"
		"	lds.32 r5, [r4]\n"
		"	st.32 [r6 + 1024], r5\n"
		"out:\n"
		"	exit\n";
	uint32_t *out = testmem_ptr(self->tm, self->out);
	struct vg_block_stats st = { 0 };
	struct vg_kernel *k = testmem_kernel(src);
	struct testmem_launch tl = {
		.grid = { 1, 1, 1 }, .block = { 200, 1, 1 },
		.args = self->args, .args_bytes = 24,
	};
	uint32_t t;

	ASSERT_EQ(0, testmem_run(self->tm, k, &tl, &self->fault, &st));
	for (t = 0; t < 200; t++)
		EXPECT_EQ((199 - t) * 3, out[t]);
	/* The second exchange only among the first 64 threads: the reads
	 * of r4 >= 64 see the first round's values. */
	for (t = 0; t < 64; t++)
		EXPECT_EQ(3 * (199 - t) , out[256 + t]);
	EXPECT_EQ(7 + 2 * 2, st.barriers);
	EXPECT_NE(0, st.shared_instrs);
	vg_kernel_free(k);
}

TEST_F(isa, memory_sizes)
{
	static const char src[] =
		".shared 64\n"
		".args 24\n"
		"	ldarg.64 r2, 0\n"
		"	ldarg.64 r6, 16\n"
		"	ld.u8 r8, [r2 + 3]\n	st.32 [r6], r8\n"
		"	ld.s8 r8, [r2 + 3]\n	st.32 [r6 + 4], r8\n"
		"	ld.u16 r8, [r2 + 2]\n	st.32 [r6 + 8], r8\n"
		"	ld.s16 r8, [r2 + 2]\n	st.32 [r6 + 12], r8\n"
		"	ld.32 r8, [r2]\n	st.32 [r6 + 16], r8\n"
		"	ld.64 r8, [r2 + 8]\n	st.64 [r6 + 24], r8\n"
		"	st.8 [r6 + 32], r8\n"
		"	st.16 [r6 + 34], r8\n"
		"	mov r10, 0\n"
		"	sts.64 [r10 + 8], r8\n"
		"	lds.u8 r11, [r10 + 15]\n	st.32 [r6 + 36], r11\n"
		"	lds.s8 r11, [r10 + 15]\n	st.32 [r6 + 40], r11\n"
		"	lds.u16 r11, [r10 + 14]\n	st.32 [r6 + 44], r11\n"
		"	lds.s16 r11, [r10 + 14]\n	st.32 [r6 + 48], r11\n"
		"	sts.8 [r10], r8\n	sts.16 [r10 + 2], r8\n"
		"	lds.32 r11, [r10]\n	st.32 [r6 + 52], r11\n"
		"	sts.32 [r10 + 4], r9\n	lds.64 r12, [r10]\n"
		"	st.64 [r6 + 56], r12\n"
		"	ldarg r11, 4\n		st.32 [r6 + 64], r11\n"
		"	exit\n";
	uint8_t *a = testmem_ptr(self->tm, self->a);
	uint8_t *out = testmem_ptr(self->tm, self->out);
	uint32_t v32;
	uint64_t v64;

	memcpy(a, "\x11\x22\x83\xf4", 4);
	v64 = 0x8899aabbccddeeffull;
	memcpy(a + 8, &v64, 8);
	ASSERT_EQ(0, run_kernel(self->tm, src, 1, self->args, 24,
				&self->fault));
	memcpy(&v32, out, 4);
	EXPECT_EQ(0xf4, v32);
	memcpy(&v32, out + 4, 4);
	EXPECT_EQ(0xfffffff4u, v32);
	memcpy(&v32, out + 8, 4);
	EXPECT_EQ(0xf483, v32);
	memcpy(&v32, out + 12, 4);
	EXPECT_EQ(0xfffff483u, v32);
	memcpy(&v32, out + 16, 4);
	EXPECT_EQ(0xf4832211u, v32);
	memcpy(&v64, out + 24, 8);
	EXPECT_EQ(0x8899aabbccddeeffull, v64);
	EXPECT_EQ(0xff, out[32]);
	EXPECT_EQ(0xff, out[34]);
	EXPECT_EQ(0xee, out[35]);
	memcpy(&v32, out + 36, 4);
	EXPECT_EQ(0x88, v32);
	memcpy(&v32, out + 40, 4);
	EXPECT_EQ(0xffffff88u, v32);
	memcpy(&v32, out + 44, 4);
	EXPECT_EQ(0x8899, v32);
	memcpy(&v32, out + 48, 4);
	EXPECT_EQ(0xffff8899u, v32);
	memcpy(&v32, out + 52, 4);
	EXPECT_EQ(0xeeff00ffu, v32);
	memcpy(&v64, out + 56, 8);
	EXPECT_EQ(0x8899aabbeeff00ffull, v64);
	memcpy(&v32, out + 64, 4);
	EXPECT_EQ((uint32_t)(self->a >> 32), v32);
}

/* Atomics return the old value, lanes in order, on memory at once. */
TEST_F(isa, atomics)
{
	static const char src[] =
		".args 24\n"
		"	s2r r0, %tid.x\n"
		"	ldarg.64 r2, 0\n"
		"	ldarg.64 r6, 16\n"
		"	lea r8, r6, r0, 2\n"
		"	sub r1, r0, 2\n"		/* -2, -1, 0, 1, ... */
		"	atom.add r10, [r2], r0\n"
		"	st.32 [r8], r10\n"
		"	atom.min r10, [r2 + 4], r1\n"
		"	atom.max r10, [r2 + 8], r1\n"
		"	atom.minu r10, [r2 + 12], r1\n"
		"	atom.maxu r10, [r2 + 16], r1\n"
		"	atom.xchg r10, [r2 + 20], r0\n"
		"	st.32 [r8 + 256], r10\n"
		"	add r11, r0, 1\n"
		"	add64 r12, r2, 24\n"
		"	atom.cas r10, [r12], r0, r11\n"	/* counter chain */
		"	st.32 [r8 + 512], r10\n"
		"	exit\n";
	uint32_t *a = testmem_ptr(self->tm, self->a);
	uint32_t *out = testmem_ptr(self->tm, self->out);
	uint32_t t;

	memset(a, 0, 32);
	a[1] = 5;
	a[2] = 5;
	a[3] = 5;
	a[4] = 5;
	a[5] = 0xabc;
	ASSERT_EQ(0, run_kernel(self->tm, src, 40, self->args, 24,
				&self->fault));
	EXPECT_EQ(40 * 39 / 2, a[0]);
	for (t = 0; t < 40; t++)
		EXPECT_EQ(t * (t - 1) / 2, out[t]);
	EXPECT_EQ(0xfffffffeu, a[1]);		/* signed min: -2 */
	EXPECT_EQ(37, a[2]);			/* signed max */
	EXPECT_EQ(0, a[3]);			/* unsigned min */
	EXPECT_EQ(0xffffffffu, a[4]);		/* unsigned max: -1 */
	EXPECT_EQ(39, a[5]);
	EXPECT_EQ(0xabc, out[64]);
	for (t = 1; t < 40; t++)
		EXPECT_EQ(t - 1, out[64 + t]);
	/* cas: lanes in order, each finds the previous lane's value. */
	EXPECT_EQ(40, a[6]);
	for (t = 0; t < 40; t++)
		EXPECT_EQ(t, out[128 + t]);
}

/*
 * Shared-memory atomics (version 2): the same operations on the block's
 * shared memory, lanes in order and warps one after another, each seeing
 * every earlier update; then a fault outside the shared size.
 */
TEST_F(isa, shared_atomics)
{
	static const char src[] =
		".shared 32\n"
		".args 24\n"
		"	s2r r0, %tid.x\n"
		"	ldarg.64 r6, 16\n"
		"	lea r8, r6, r0, 2\n"
		"	sub r1, r0, 2\n"		/* -2, -1, 0, 1, ... */
		"	setp.ne p0, r0, 0\n"
		"	bra p0, go\n"
		"	mov r2, 5\n"
		"	sts.32 [r2 - 1], r2\n"		/* [4] = 5 ... */
		"	sts.32 [r2 + 3], r2\n"
		"	sts.32 [r2 + 7], r2\n"
		"	sts.32 [r2 + 11], r2\n"
		"	mov r2, 0xabc\n"
		"	sts.32 [r2 - 2728], r2\n"	/* [20] = 0xabc */
		"go:\n"
		"	bar\n"
		"	mov r2, 0\n"
		"	atoms.add r10, [r2], r0\n"
		"	st.32 [r8], r10\n"
		"	atoms.min r10, [r2 + 4], r1\n"
		"	atoms.max r10, [r2 + 8], r1\n"
		"	atoms.minu r10, [r2 + 12], r1\n"
		"	atoms.maxu r10, [r2 + 16], r1\n"
		"	atoms.xchg r10, [r2 + 20], r0\n"
		"	st.32 [r8 + 256], r10\n"
		"	add r11, r0, 1\n"
		"	mov r12, 24\n"
		"	atoms.cas r10, [r12], r0, r11\n"	/* counter chain */
		"	st.32 [r8 + 512], r10\n"
		"	bar\n"
		"	setp.ge p0, r0, 8\n"
		"	bra p0, out\n"
		"	shl r3, r0, 2\n"
		"	lds.32 r10, [r3]\n"
		"	st.32 [r8 + 768], r10\n"
		"out:\n"
		"	exit\n";
	static const char oob[] =
		".shared 32\n"
		"	mov r2, 32\n"
		"	atoms.add r1, [r2], r2\n"
		"	exit\n";
	uint32_t *out = testmem_ptr(self->tm, self->out);
	struct vmgpu_exec_header h;
	char err[128];
	size_t bytes;
	uint32_t t;
	void *img;

	ASSERT_EQ(0, vmgpu_asm_assemble(src, &img, &bytes, err, sizeof(err)))
		TH_LOG("%s", err);
	vmgpu_exec_header_read(&h, img);
	EXPECT_EQ(2, h.isa_version);
	free(img);
	ASSERT_EQ(0, run_kernel(self->tm, src, 40, self->args, 24,
				&self->fault));
	for (t = 0; t < 40; t++)
		EXPECT_EQ(t * (t - 1) / 2, out[t]);
	EXPECT_EQ(40 * 39 / 2, out[192 + 0]);
	EXPECT_EQ(0xfffffffeu, out[192 + 1]);	/* signed min: -2 */
	EXPECT_EQ(37, out[192 + 2]);		/* signed max */
	EXPECT_EQ(0, out[192 + 3]);		/* unsigned min */
	EXPECT_EQ(0xffffffffu, out[192 + 4]);	/* unsigned max: -1 */
	EXPECT_EQ(39, out[192 + 5]);
	EXPECT_EQ(0xabc, out[64]);
	for (t = 1; t < 40; t++)
		EXPECT_EQ(t - 1, out[64 + t]);
	EXPECT_EQ(40, out[192 + 6]);
	for (t = 0; t < 40; t++)
		EXPECT_EQ(t, out[128 + t]);
	EXPECT_EQ(-1, run_kernel(self->tm, oob, 1, self->args, 24,
				 &self->fault));
	EXPECT_EQ(VMGPU_FAULT_UNMAPPED, self->fault.code);
	EXPECT_EQ(32, self->fault.addr);
}

/* ---- the store-log memory model ---- */

static const char store_then_load[] =
	".args 24\n"
	"	ldarg.64 r2, 0\n"
	"	ldarg.64 r6, 16\n"
	"	s2r r0, %ctaid.x\n"
	"	setp.ne p0, r0, 0\n"
	"	bra p0, reader\n"
	"	mov r8, 42\n"
	"	st.32 [r2], r8\n"		/* block 0 stores */
	"	st.8 [r2 + 5], r8\n"		/* partial word */
	"	ld.32 r9, [r2]\n"
	"	st.32 [r6], r9\n"		/* sees its own store */
	"	ld.32 r9, [r2 + 4]\n"
	"	st.32 [r6 + 4], r9\n"		/* merged bytes */
	"	atom.add r9, [r2 + 8], r8\n"
	"	exit\n"
	"reader:\n"
	"	ld.32 r9, [r2]\n"
	"	st.32 [r6 + 8], r9\n"
	"	ld.32 r9, [r2 + 8]\n"
	"	st.32 [r6 + 12], r9\n"
	"	exit\n";

TEST_F(isa, storelog_visibility)
{
	struct vg_kernel *k = testmem_kernel(store_then_load);
	struct vg_interp *it = vg_interp_new();
	struct vg_storelog *log0 = vg_storelog_new(), *log1 = vg_storelog_new();
	uint32_t *a = testmem_ptr(self->tm, self->a);
	uint32_t *out = testmem_ptr(self->tm, self->out);
	uint32_t pos0[3] = { 0, 0, 0 }, pos1[3] = { 1, 0, 0 };
	uint64_t budget = 1000;
	struct vg_launch l = {
		.kernel = k, .args = self->args, .args_bytes = 24,
		.grid = { 2, 1, 1 }, .block = { 1, 1, 1 },
		.grid_total = { 2, 1, 1 }, .mem = &self->tm->memif,
	};

	a[0] = 7;
	a[1] = 0x11111111;
	a[2] = 100;
	ASSERT_EQ(0, vg_interp_run_block(it, &l, pos0, 0, log0, &budget, NULL,
					 &self->fault));
	/* Not written through; the atomic is. */
	EXPECT_EQ(7, a[0]);
	EXPECT_EQ(142, a[2]);
	EXPECT_EQ(2, vg_storelog_pages(log0));	/* a and out */
	/* Block 1 runs before block 0's log is applied. */
	ASSERT_EQ(0, vg_interp_run_block(it, &l, pos1, 1, log1, &budget, NULL,
					 &self->fault));
	vg_storelog_apply(log1);
	EXPECT_EQ(7, out[2]);
	EXPECT_EQ(142, out[3]);
	EXPECT_EQ(0, out[0]);			/* block 0's output pending */
	vg_storelog_apply(log0);
	EXPECT_EQ(0, vg_storelog_pages(log0));
	EXPECT_EQ(42, a[0]);
	EXPECT_EQ(42, out[0]);
	EXPECT_EQ(0x11112a11, out[1]);
	EXPECT_EQ(0x11112a11, a[1]);
	/* Run again, then discard: memory untouched. */
	a[0] = 1;
	ASSERT_EQ(0, vg_interp_run_block(it, &l, pos0, 0, log0, &budget, NULL,
					 &self->fault));
	vg_storelog_discard(log0);
	EXPECT_EQ(1, a[0]);
	vg_storelog_free(log0);
	vg_storelog_free(log1);
	vg_interp_free(it);
	vg_kernel_free(k);
}

TEST_F(isa, storelog_atomic_flushes_own_store)
{
	static const char src[] =
		".args 24\n"
		"	ldarg.64 r2, 0\n"
		"	mov r8, 10\n"
		"	st.32 [r2], r8\n"
		"	st.32 [r2 + 4], r8\n"
		"	mov r8, 5\n"
		"	atom.add r9, [r2], r8\n"	/* sees 10, makes 15 */
		"	st.32 [r2 + 16], r9\n"
		"	ld.32 r9, [r2]\n"
		"	st.32 [r2 + 20], r9\n"
		"	exit\n";
	struct vg_kernel *k = testmem_kernel(src);
	struct vg_interp *it = vg_interp_new();
	struct vg_storelog *log = vg_storelog_new();
	uint32_t *a = testmem_ptr(self->tm, self->a);
	uint32_t pos[3] = { 0, 0, 0 };
	uint64_t budget = 1000;
	struct vg_launch l = {
		.kernel = k, .args = self->args, .args_bytes = 24,
		.grid = { 1, 1, 1 }, .block = { 1, 1, 1 },
		.grid_total = { 1, 1, 1 }, .mem = &self->tm->memif,
	};

	memset(a, 0, 32);
	ASSERT_EQ(0, vg_interp_run_block(it, &l, pos, 0, log, &budget, NULL,
					 &self->fault));
	EXPECT_EQ(15, a[0]);		/* the atomic wrote memory */
	EXPECT_EQ(0, a[1]);		/* plain store still pending */
	vg_storelog_apply(log);
	EXPECT_EQ(15, a[0]);		/* not overwritten by the old 10 */
	EXPECT_EQ(10, a[1]);
	EXPECT_EQ(10, a[4]);
	EXPECT_EQ(15, a[5]);
	vg_storelog_free(log);
	vg_interp_free(it);
	vg_kernel_free(k);
}

/* Many pages in one log: the hash grows and lookups stay right. */
TEST_F(isa, storelog_many_pages)
{
	static const char src[] =
		".args 24\n"
		"	s2r r0, %tid.x\n"
		"	ldarg.64 r2, 0\n"
		"	mul r1, r0, 4100\n"		/* a page and a bit apart */
		"	lea r2, r2, r1, 0\n"
		"	add r4, r0, 1\n"
		"	st.32 [r2], r4\n"
		"	ld.32 r5, [r2]\n"
		"	add r5, r5, r5\n"
		"	st.32 [r2 + 4], r5\n"
		"	exit\n";
	struct vg_kernel *k = testmem_kernel(src);
	uint64_t big = testmem_alloc(self->tm, 300 * 4100 + 4096);
	uint8_t *p = testmem_ptr(self->tm, big);
	struct testmem_launch tl = {
		.grid = { 1, 1, 1 }, .block = { 300, 1, 1 },
		.args = self->args, .args_bytes = 24,
	};
	uint32_t t, v;

	memcpy(self->args, &big, 8);
	ASSERT_EQ(0, testmem_run(self->tm, k, &tl, &self->fault, NULL));
	for (t = 0; t < 300; t++) {
		memcpy(&v, p + t * 4100, 4);
		EXPECT_EQ(t + 1, v);
		memcpy(&v, p + t * 4100 + 4, 4);
		EXPECT_EQ(2 * (t + 1), v);
	}
	vg_kernel_free(k);
}

/* ---- faults ---- */

static const char load_store_tmpl[] =
	".args 24\n"
	".shared 64\n"
	"	ldarg.64 r2, 0\n"
	"	s2r r0, %%tid.x\n"
	"	%s\n"
	"	exit\n";

static void expect_fault(struct __test_metadata *_metadata,
			 FIXTURE_DATA(isa) *self, const char *insn,
			 uint32_t threads, uint32_t code, uint64_t addr,
			 uint32_t pc)
{
	char src[1024];

	snprintf(src, sizeof(src), load_store_tmpl, insn);
	ASSERT_EQ(-1, run_kernel(self->tm, src, threads, self->args, 24,
				 &self->fault));
	if (self->fault.code != code)
		TH_LOG("%s: fault %u", insn, self->fault.code);
	EXPECT_EQ(code, self->fault.code);
	EXPECT_EQ(addr, self->fault.addr);
	EXPECT_EQ(pc, self->fault.pc);
}

TEST_F(isa, faults_memory)
{
	uint64_t a = self->a;

	testmem_set_flags(self->tm, a + 4096, 4096, 0);
	testmem_set_flags(self->tm, self->b, 4096, TESTMEM_MAPPED);
	expect_fault(_metadata, self, "ld.32 r4, [r2 + 4096]", 1,
		     VMGPU_FAULT_UNMAPPED, a + 4096, 2);
	expect_fault(_metadata, self, "ld.32 r4, [r2 + 2]", 1,
		     VMGPU_FAULT_MISALIGNED, a + 2, 2);
	expect_fault(_metadata, self, "ld.64 r4, [r2 + 4]", 1,
		     VMGPU_FAULT_MISALIGNED, a + 4, 2);
	expect_fault(_metadata, self, "st.16 [r2 + 1], r0", 1,
		     VMGPU_FAULT_MISALIGNED, a + 1, 2);
	/* Lanes straddle into the unmapped page: lane 32 is the first. */
	expect_fault(_metadata, self,
		     "lea r4, r2, r0, 7\n\tld.32 r6, [r4]", 64,
		     VMGPU_FAULT_UNMAPPED, a + 4096, 3);
	/* Read-only page: loads fine, stores and atomics fault. */
	expect_fault(_metadata, self,
		     "ld.32 r4, [r2 + 4096]\n\tst.32 [r2 + 4096], r4", 1,
		     VMGPU_FAULT_UNMAPPED, a + 4096, 2);
	expect_fault(_metadata, self,
		     "add64 r2, r2, 8192\n\tld.32 r4, [r2]\n"
		     "\tst.32 [r2 + 8], r4", 1,
		     VMGPU_FAULT_PERMISSION, self->b + 8, 4);
	expect_fault(_metadata, self,
		     "add64 r2, r2, 8192\n\tatom.add r4, [r2], r0", 1,
		     VMGPU_FAULT_PERMISSION, self->b, 3);
	/* Beyond 39 bits, and below the memory. */
	expect_fault(_metadata, self,
		     "mov r3, 0x80\n\tld.32 r4, [r2]", 1,
		     VMGPU_FAULT_UNMAPPED, 0x8000000000ull | (uint32_t)a, 3);
	expect_fault(_metadata, self, "mov r2, 0\n\tmov r3, 0\n\tld.32 r4, [r2]",
		     1, VMGPU_FAULT_UNMAPPED, 0, 4);
	/* Shared memory: 64 static bytes. */
	expect_fault(_metadata, self, "mov r4, 64\n\tlds.32 r5, [r4]", 1,
		     VMGPU_FAULT_UNMAPPED, 64, 3);
	expect_fault(_metadata, self, "mov r4, 60\n\tsts.64 [r4], r4", 1,
		     VMGPU_FAULT_MISALIGNED, 60, 3);
	expect_fault(_metadata, self, "mov r4, 0\n\tsts.32 [r4 - 4], r4", 1,
		     VMGPU_FAULT_UNMAPPED, 0xfffffffc, 3);
}

TEST_F(isa, faults_control)
{
	/* Running off the end. */
	ASSERT_EQ(-1, run_kernel(self->tm, "nop\nnop\n", 1, NULL, 0,
				 &self->fault));
	EXPECT_EQ(VMGPU_FAULT_PC_RANGE, self->fault.code);
	EXPECT_EQ(2, self->fault.pc);
	/* A branch past the end faults only when taken. */
	ASSERT_EQ(0, run_kernel(self->tm,
				"setp.eq p0, r0, 1\nbra p0, 1000\nexit\n", 1,
				NULL, 0, &self->fault));
	ASSERT_EQ(-1, run_kernel(self->tm, "bra 1000\nexit\n", 1, NULL, 0,
				 &self->fault));
	EXPECT_EQ(VMGPU_FAULT_PC_RANGE, self->fault.code);
	EXPECT_EQ(0, self->fault.pc);
	EXPECT_EQ(1000, self->fault.addr);
}

TEST_F(isa, budget_stops_infinite_loop)
{
	struct vg_kernel *k = testmem_kernel("spin:\n\tadd r0, r0, 1\n"
					     "\tbra spin\n");
	struct vg_interp *it = vg_interp_new();
	struct vg_block_stats st = { 0 };
	uint32_t pos[3] = { 0, 0, 0 };
	uint64_t budget = 12345;
	struct vg_launch l = {
		.kernel = k, .grid = { 1, 1, 1 }, .block = { 64, 1, 1 },
		.grid_total = { 1, 1, 1 }, .mem = &self->tm->memif,
	};

	ASSERT_EQ(-1, vg_interp_run_block(it, &l, pos, 0, NULL, &budget, &st,
					  &self->fault));
	EXPECT_EQ(VMGPU_FAULT_BUDGET, self->fault.code);
	EXPECT_EQ(0, budget);
	EXPECT_EQ(12345, st.warp_instrs);
	EXPECT_EQ(12345 * 32, st.thread_instrs);
	vg_interp_free(it);
	vg_kernel_free(k);
}

/* The budget grows with the launch, by VMGPU_BUDGET_WARPS warps started. */
TEST(budget_scales_with_the_launch)
{
	const uint32_t one[3] = { 1, 1, 1 }, warp[3] = { 32, 1, 1 };
	const uint32_t big_block[3] = { 1024, 1, 1 }, odd[3] = { 33, 1, 1 };
	const uint32_t g64k[3] = { 65536, 1, 1 }, g64k1[3] = { 65537, 1, 1 };
	const uint32_t g2d[3] = { 16384, 16384, 1 }, zero[3] = { 0, 1, 1 };
	const uint32_t huge[3] = { UINT32_MAX, UINT32_MAX, UINT32_MAX };

	EXPECT_EQ(1000, vg_budget_scaled(1000, one, warp));
	EXPECT_EQ(1000, vg_budget_scaled(1000, g64k, warp));
	EXPECT_EQ(2000, vg_budget_scaled(1000, g64k1, warp));
	/* 32 warps a block: 2048 blocks are 65536 warps, 2049 more. */
	EXPECT_EQ(1000, vg_budget_scaled(1000, (uint32_t[3]){ 2048, 1, 1 },
					 big_block));
	EXPECT_EQ(2000, vg_budget_scaled(1000, (uint32_t[3]){ 2049, 1, 1 },
					 big_block));
	/* A partial warp is a warp: 33 threads are 2 warps. */
	EXPECT_EQ(2000, vg_budget_scaled(1000, (uint32_t[3]){ 32769, 1, 1 },
					 odd));
	/* 16384 x 16384 blocks of one warp: 4096 x 65536 warps. */
	EXPECT_EQ(4096ull << 28, vg_budget_scaled(1ull << 28, g2d, warp));
	EXPECT_EQ(1000, vg_budget_scaled(1000, zero, warp));
	EXPECT_EQ(UINT64_MAX, vg_budget_scaled(1000, huge, big_block));
	EXPECT_EQ(UINT64_MAX - 1, vg_budget_scaled(UINT64_MAX / 2, g64k1, warp));
	EXPECT_EQ(UINT64_MAX, vg_budget_scaled(UINT64_MAX / 2 + 1, g64k1, warp));
}

TEST_F(isa, launch_errors)
{
	struct vg_kernel *k = testmem_kernel(".args 8\n.shared 100\nexit\n");
	struct vg_interp *it = vg_interp_new();
	uint32_t pos[3] = { 0, 0, 0 };
	uint64_t budget = 100;
	uint8_t args[8] = { 0 };
	struct vg_launch l = {
		.kernel = k, .args = args, .args_bytes = 8,
		.grid = { 1, 1, 1 }, .block = { 1025, 1, 1 },
		.grid_total = { 1, 1, 1 }, .mem = &self->tm->memif,
	};

	EXPECT_EQ(-1, vg_interp_run_block(it, &l, pos, 0, NULL, &budget, NULL,
					  &self->fault));
	EXPECT_EQ(VMGPU_FAULT_BAD_EXECUTABLE, self->fault.code);
	l.block[0] = 32;
	l.shared_bytes = VMGPU_MAX_SHARED_BYTES;
	EXPECT_EQ(-1, vg_interp_run_block(it, &l, pos, 0, NULL, &budget, NULL,
					  &self->fault));
	l.shared_bytes = 0;
	l.args_bytes = 4;
	EXPECT_EQ(-1, vg_interp_run_block(it, &l, pos, 0, NULL, &budget, NULL,
					  &self->fault));
	l.args_bytes = 8;
	EXPECT_EQ(0, vg_interp_run_block(it, &l, pos, 0, NULL, &budget, NULL,
					 &self->fault));
	vg_interp_free(it);
	vg_kernel_free(k);
}

/* ---- executable validation ---- */

static void *assemble(const char *src, size_t *bytes)
{
	char err[256];
	void *img;

	if (vmgpu_asm_assemble(src, &img, bytes, err, sizeof(err)))
		abort();
	return img;
}

TEST(kernel_load_validation)
{
	size_t bytes;
	uint8_t *img = assemble(".regs 4\n.args 8\nldarg r1, 4\nexit\n",
				&bytes);
	struct vmgpu_exec_header h;
	struct vg_kernel *k;
	uint32_t bad_pc, i;
	uint8_t copy[64];
	uint64_t w;

	ASSERT_EQ(48, bytes);
	ASSERT_EQ(VMGPU_FAULT_NONE, vg_kernel_load(&k, img, bytes,
						   VMGPU_ISA_VERSION, &bad_pc));
	EXPECT_EQ(4, vg_kernel_regs(k));
	EXPECT_EQ(8, vg_kernel_args_bytes(k));
	EXPECT_EQ(0, vg_kernel_shared_bytes(k));
	vg_kernel_free(k);
	memcpy(&h, img, sizeof(h));
	EXPECT_EQ(48, vg_exec_image_bytes(&h));

	/* Truncated anywhere. */
	for (i = 0; i < bytes; i++) {
		EXPECT_EQ(VMGPU_FAULT_BAD_EXECUTABLE,
			  vg_kernel_load(&k, img, i,
					 VMGPU_ISA_VERSION, &bad_pc));
		EXPECT_EQ(NULL, k);
	}
	/* Each header field broken. */
	for (i = 0; i < 8; i++) {
		static const uint32_t bad[8] = {
			0x12345678, 3, 0, 0x100000, 6, 0, 1, 1
		};
		uint32_t *f = (uint32_t *)(void *)copy;

		memcpy(copy, img, bytes);
		f[i] = bad[i];
		EXPECT_EQ(VMGPU_FAULT_BAD_EXECUTABLE,
			  vg_kernel_load(&k, copy, bytes,
					 VMGPU_ISA_VERSION, &bad_pc));
		memcpy(&h, copy, sizeof(h));
		EXPECT_EQ(0, vg_exec_image_bytes(&h));
	}
	/* Illegal instructions, with the pc. */
	{
		static const uint64_t bad_insns[] = {
			0x7f,				/* no such opcode */
			VMGPU_INSN(VMGPU_OP_EXIT, 1, 0, 0, 0),	/* junk field */
			VMGPU_INSN(VMGPU_OP_ADD, 4, 0, 0, 0),	/* r4 >= .regs */
			VMGPU_INSN(VMGPU_OP_LD_64, 0, 3, 0, 0), /* pair r3:r4 */
			VMGPU_INSN(VMGPU_OP_NOT | VMGPU_OP_IMM, 0, 0, 0, 1),
			VMGPU_INSN(VMGPU_OP_LDARG, 0, 0, 0, 8),	/* past args */
			VMGPU_INSN(VMGPU_OP_LDARG, 0, 0, 0, 2),	/* unaligned */
			VMGPU_INSN(VMGPU_OP_S2R, 0, VMGPU_SREG_COUNT, 0, 0),
			VMGPU_INSN(VMGPU_OP_LEA, 0, 2, 1, 32),
			VMGPU_INSN(VMGPU_OP_SETP_EQ, 8, 0, 0, 0),
			VMGPU_INSN(VMGPU_OP_BRA, 0, 0x88, 0, 0),
			VMGPU_INSN(VMGPU_OP_SEL, 0, 0, 0, 8),
			/* version 2 in a version 1 executable */
			VMGPU_INSN(VMGPU_OP_ENQ, 0, 0, 2, 0),
			VMGPU_INSN(VMGPU_OP_LAUNCH, 0, 0, 2, 1),
			VMGPU_INSN(VMGPU_OP_S2R, 0, VMGPU_SREG_ITEM_BASE, 0, 0),
			VMGPU_INSN(VMGPU_OP_ATOMS_ADD, 0, 1, 2, 0),
			VMGPU_INSN(VMGPU_OP_ATOMS_CAS, 0, 1, 2, 3),
		};
		static const uint64_t v2_insns[] = {
			VMGPU_INSN(VMGPU_OP_ENQ, 0, 0, 2, 0),
			VMGPU_INSN(VMGPU_OP_LAUNCH, 0, 0, 2, 1),
			VMGPU_INSN(VMGPU_OP_S2R, 0, VMGPU_SREG_ITEM_BASE, 0, 0),
			VMGPU_INSN(VMGPU_OP_ATOMS_ADD, 0, 1, 2, 0),
			VMGPU_INSN(VMGPU_OP_ATOMS_CAS, 0, 1, 2, 3),
		};
		uint32_t v2 = 2;

		for (i = 0; i < sizeof(bad_insns) / 8; i++) {
			memcpy(copy, img, bytes);
			memcpy(copy + 40, &bad_insns[i], 8);
			bad_pc = 99;
			EXPECT_EQ(VMGPU_FAULT_ILLEGAL_INSTR,
				  vg_kernel_load(&k, copy, bytes,
						 VMGPU_ISA_VERSION, &bad_pc));
			EXPECT_EQ(1, bad_pc);
		}
		/* ... and fine in a version 2 one */
		for (i = 0; i < sizeof(v2_insns) / 8; i++) {
			memcpy(copy, img, bytes);
			memcpy(copy + 4, &v2, 4);
			memcpy(copy + 40, &v2_insns[i], 8);
			EXPECT_EQ(VMGPU_FAULT_NONE,
				  vg_kernel_load(&k, copy, bytes,
						 VMGPU_ISA_VERSION, NULL));
			vg_kernel_free(k);
		}
	}
	w = 0;
	memcpy(copy, img, bytes);
	memcpy(copy + 32, &w, 8);		/* nop is fine */
	ASSERT_EQ(VMGPU_FAULT_NONE, vg_kernel_load(&k, copy, bytes,
						   VMGPU_ISA_VERSION, NULL));
	vg_kernel_free(k);
	free(img);
}

/*
 * The loader on a device of each ISA version: an executable of version 1
 * loads on both, one of version 2 (it reads %itembase) only on a
 * version 2 device; a version 1 device refuses it as a bad executable.
 */
TEST(kernel_load_isa_version)
{
	size_t b1, b2;
	uint8_t *v1 = assemble(".regs 4\ns2r r1, %tid.x\nexit\n", &b1);
	uint8_t *v2 = assemble(".regs 4\ns2r r1, %itembase\nexit\n", &b2);
	struct vmgpu_exec_header h;
	struct vg_kernel *k;
	uint32_t dev;

	memcpy(&h, v1, sizeof(h));
	ASSERT_EQ(1, h.isa_version);
	memcpy(&h, v2, sizeof(h));
	ASSERT_EQ(2, h.isa_version);
	for (dev = VMGPU_ISA_VERSION_MIN; dev <= VMGPU_ISA_VERSION; dev++) {
		EXPECT_EQ(VMGPU_FAULT_NONE, vg_kernel_load(&k, v1, b1, dev,
							   NULL));
		vg_kernel_free(k);
		EXPECT_EQ(dev >= 2 ? VMGPU_FAULT_NONE :
				     VMGPU_FAULT_BAD_EXECUTABLE,
			  vg_kernel_load(&k, v2, b2, dev, NULL));
		EXPECT_EQ(dev >= 2, k != NULL);
		vg_kernel_free(k);
	}
	free(v1);
	free(v2);
}

/*
 * Garbage: random images never load wrongly; random instruction words
 * that happen to be valid run without crashing, with a budget.
 */
TEST(garbage)
{
	struct testmem *tm = testmem_new(MEM_BASE, 1 << 20);
	struct vg_interp *it = vg_interp_new();
	struct vg_storelog *log = vg_storelog_new();
	uint32_t seed = 99, i, j, k2, loaded = 0, pos[3] = { 0, 0, 0 };
	uint8_t img[32 + 16 * 8], args[64] = { 0 };
	static const uint8_t valid_ops[] = {
#define X_CODE(name, code, mnem, fmt, flags, bytes) code,
		VMGPU_ISA_OPCODES(X_CODE)
#undef X_CODE
	};
	uint32_t nvalid = sizeof(valid_ops);

	for (i = 0; i < 20000; i++) {
		struct vmgpu_exec_header h = {
			.magic = VMGPU_EXEC_MAGIC,
			.isa_version = VMGPU_ISA_VERSION,
			.num_regs = 16, .shared_bytes = 64, .args_bytes = 64,
			.code_insns = 16,
		};
		struct vg_fault_info f;
		struct vg_kernel *k;
		uint64_t budget = 500;
		struct vg_launch l = {
			.args = args, .args_bytes = sizeof(args),
			.grid = { 1, 1, 1 }, .block = { 40, 1, 1 },
			.grid_total = { 1, 1, 1 }, .mem = &tm->memif,
		};

		for (j = 0; j < sizeof(img); j++) {
			seed = seed * 1103515245u + 12345u;
			img[j] = seed >> 16;
		}
		ASSERT_NE(VMGPU_FAULT_NONE,
			  vg_kernel_load(&k, img, sizeof(img),
					 VMGPU_ISA_VERSION, NULL));
		memcpy(img, &h, sizeof(h));
		/* Random words until one is valid (biased to real opcodes
		 * and small fields), so random valid programs run. */
		for (j = 0; j < 16; j++) {
			uint8_t w[8];
			uint64_t word;
			int tries;

			for (tries = 0; tries < 1000; tries++) {
				for (k2 = 0; k2 < 8; k2++) {
					seed = seed * 1103515245u + 12345u;
					w[k2] = seed >> 16;
				}
				w[0] = (w[0] & 0x80) | valid_ops[w[0] % nvalid];
				w[1] &= 0x07;
				w[2] &= tries & 1 ? 0x07 : 0xc7;
				w[3] &= tries & 2 ? 0x07 : 0x00;
				if (tries & 4)
					memset(w + 4, 0, 4);
				else if (tries & 8)
					memset(w + 5, 0, 3);
				memcpy(&word, w, 8);
				if (vmgpu_insn_valid(word, VMGPU_ISA_VERSION, 16, 64))
					break;
			}
			memcpy(img + 32 + j * 8, w, 8);
		}
		if (vg_kernel_load(&k, img, sizeof(img),
				   VMGPU_ISA_VERSION, NULL))
			continue;
		loaded++;
		l.kernel = k;
		if (vg_interp_run_block(it, &l, pos, 0, i & 4 ? log : NULL,
					&budget, NULL, &f))
			vg_storelog_discard(log);
		else
			vg_storelog_apply(log);
		vg_kernel_free(k);
	}
	TH_LOG("%u of 20000 random kernels loaded and ran", loaded);
	EXPECT_LT(100, loaded);
	vg_storelog_free(log);
	vg_interp_free(it);
	testmem_free(tm);
}

TEST_HARNESS_MAIN
