// SPDX-License-Identifier: GPL-2.0-only
/*
 * The built-in families of OpenCL C 1.2 in every vector width each has,
 * scalars and widths 2, 3, 4, 8 and 16 (geometric: 1 to 4): each
 * family's kernel written once and instantiated by the preprocessor for
 * every width (math and common: one kernel per function and width), run
 * through the interpreter (testcc.h) and compared element by element
 * with a C reference computed here. Math (the full functions, native_*
 * and half_*) within the specification's bound in ulp of a
 * double-precision reference, at the special values (signed zeros,
 * infinities, NaN, subnormals, the largest floats) and at seeded random
 * ones; the common functions; the geometric ones with overflowing and
 * underflowing squares; the integer functions of every type char to
 * ulong at every pair of edge values, exactly; select, bitselect, any
 * and all of every type, exactly; conversions with _sat and rounding
 * modes and as_T, exactly; vload_half/vstore_half in every rounding mode
 * and vloada_half/vstorea_half over global, local, private and constant
 * memory; the asynchronous copies between global and local memory;
 * atomic_* and atom_* on int and uint in global and local memory (the
 * values they return as well as the cells' final ones); the work-item
 * functions of every dimension, past the third too. The
 * other compiler tests check most families at one or two widths; these
 * check every width on the same inputs, so a width whose scalarisation
 * or library form differs shows as a wrong element (issue 24).
 */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "mathref.h"
#include "testcc.h"
#include "vmgpu/compiler.h"

#define NW 6
static const int widths[NW] = { 1, 2, 3, 4, 8, 16 };

/*
 * What every family's source starts with: V(T, n) the type of width n
 * (n = 1 the scalar), LD/ST the load and store of element i of width n,
 * AS/CV the reinterpretation and conversion to width n (CVM with a
 * suffix: _sat, _rte, ...), WIDTHS(K, ...) the kernel K for every width.
 */
static const char prelude[] =
	"#define V_1(T) T\n#define V_2(T) T##2\n#define V_3(T) T##3\n"
	"#define V_4(T) T##4\n#define V_8(T) T##8\n#define V_16(T) T##16\n"
	"#define V(T, n) V_##n(T)\n"
	"#define LD_1(i, p) (p)[i]\n#define LD_2(i, p) vload2(i, p)\n"
	"#define LD_3(i, p) vload3(i, p)\n#define LD_4(i, p) vload4(i, p)\n"
	"#define LD_8(i, p) vload8(i, p)\n#define LD_16(i, p) vload16(i, p)\n"
	"#define LD(n, i, p) LD_##n(i, p)\n"
	"#define ST_1(v, i, p) ((p)[i] = (v))\n#define ST_2(v, i, p) vstore2(v, i, p)\n"
	"#define ST_3(v, i, p) vstore3(v, i, p)\n#define ST_4(v, i, p) vstore4(v, i, p)\n"
	"#define ST_8(v, i, p) vstore8(v, i, p)\n#define ST_16(v, i, p) vstore16(v, i, p)\n"
	"#define ST(n, v, i, p) ST_##n(v, i, p)\n"
	"#define AS_1(T) as_##T\n#define AS_2(T) as_##T##2\n#define AS_3(T) as_##T##3\n"
	"#define AS_4(T) as_##T##4\n#define AS_8(T) as_##T##8\n#define AS_16(T) as_##T##16\n"
	"#define AS(T, n) AS_##n(T)\n"
	"#define CV_1(T) convert_##T\n#define CV_2(T) convert_##T##2\n"
	"#define CV_3(T) convert_##T##3\n#define CV_4(T) convert_##T##4\n"
	"#define CV_8(T) convert_##T##8\n#define CV_16(T) convert_##T##16\n"
	"#define CV(T, n) CV_##n(T)\n"
	"#define CVM_1(T, m) convert_##T##m\n#define CVM_2(T, m) convert_##T##2##m\n"
	"#define CVM_3(T, m) convert_##T##3##m\n#define CVM_4(T, m) convert_##T##4##m\n"
	"#define CVM_8(T, m) convert_##T##8##m\n#define CVM_16(T, m) convert_##T##16##m\n"
	"#define CVM(T, n, m) CVM_##n(T, m)\n"
	"#define WIDTHS(K, ...) K(1, __VA_ARGS__) K(2, __VA_ARGS__) K(3, __VA_ARGS__)\\\n"
	"	K(4, __VA_ARGS__) K(8, __VA_ARGS__) K(16, __VA_ARGS__)\n";

static uint64_t rnd64(void) { return (uint64_t)rng() << 40 ^ (uint64_t)rng() << 20 ^ rng(); }

/* prelude + @body, one string (freed by the caller) */
static char *with_prelude(const char *body)
{
	size_t a = strlen(prelude), b = strlen(body);
	char *s = malloc(a + b + 1);

	if (!s)
		abort();
	memcpy(s, prelude, a);
	memcpy(s + a, body, b + 1);
	return s;
}

/* prelude + @body, built (NULL, the failure reported, if it did not) */
static struct vmgpu_program *build_family(struct __test_metadata *_metadata,
					  const char *body)
{
	char *src = with_prelude(body);
	struct vmgpu_program *prog = build(_metadata, src, NULL);

	free(src);
	return prog;
}

static void run_kernel(struct __test_metadata *_metadata, struct testmem *tm,
		       struct vmgpu_program *prog, const char *name,
		       const uint64_t *va, int nargs, uint32_t threads,
		       uint32_t block)
{
	struct ck c;
	int k;

	load(_metadata, prog, name, &c);
	for (k = 0; k < nargs; k++)
		set_u64(&c, k, va[k]);
	ASSERT_EQ(0, run1d(tm, &c, threads, block));
	vg_kernel_free(c.k);
}

/* ------------------------------------------------------------------ */
/* Float functions: math and common, from a table                      */
/* ------------------------------------------------------------------ */

#define NE 96		/* elements per function: a multiple of 48 */

/* the inputs each function meets first: specials; those past index
 * NFIN are not finite */
static const float specials[] = {
	0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -2.5f, 3.0f, 0x1p-149f, -0x1p-149f,
	0x1.fffffcp-127f, -0x1p-130f, FLT_MIN, FLT_MAX, -FLT_MAX, 0x1.8p+23f,
	INFINITY, -INFINITY, NAN,
};
#define NSPEC 18
#define NFIN 15

enum {
	SX = 1, SY = 2, SZ = 4,	/* specials in x, y, z */
	FIN = 8,		/* finite specials only */
	ZS = 16,		/* the sign of a zero result matters */
	SCALED = 32,		/* the error in ulp of max |x|, |y|, |z|, |ref| */
};

/* A function of a family: its OpenCL C expression of x, y and z (n the
 * width), the reference, the bound, where its inputs come from. */
struct ffn {
	const char *expr;
	double (*ref)(double x, double y, double z);
	double ulp;
	float lo[3], hi[3];
	unsigned int flags;
};

#define R1(f) static double r_##f(double x, double y, double z) { return f(x); }
#define R2(f) static double r_##f(double x, double y, double z) { return f(x, y); }
R1(sin) R1(cos) R1(tan) R1(exp) R1(exp2) R1(exp10) R1(expm1) R1(log) R1(log2)
R1(log10) R1(log1p) R1(sqrt) R1(cbrt) R1(asin) R1(acos) R1(atan) R1(sinh)
R1(tanh) R1(floor) R1(ceil) R1(rint) R1(round) R1(trunc) R1(fabs)
R1(logb) R1(erf) R1(erfc) R1(tgamma) R1(rsqrt_d) R1(sinpi_d) R1(cospi_d)
R2(pow) R2(atan2) R2(fmin) R2(fmax) R2(copysign) R2(hypot) R2(fmod)
R2(remainder)

static double r_fma(double x, double y, double z) { return fmaf(x, y, z); }
static double r_fdim(double x, double y, double z) { return fdimf(x, y); }
static double r_nextafter(double x, double y, double z) { return nextafterf(x, y); }
static double r_div(double x, double y, double z) { return x / y; }
static double r_recip(double x, double y, double z) { return 1 / x; }
static double r_pown(double x, double y, double z) { return pow(x, (int)y); }
static double r_ldexp(double x, double y, double z) { return ldexp(x, (int)y); }
static double r_modf_f(double x, double y, double z) { return modf(x, &y); }
static double r_modf_i(double x, double y, double z) { modf(x, &y); return y; }
static double r_frexp_m(double x, double y, double z) { int e; return frexp(x, &e); }
static double r_frexp_e(double x, double y, double z) { int e; frexp(x, &e); return e; }

/* fract: fmin(x - floor(x), 0x1.fffffep-1f), 0 for an infinity */
static double r_fract(double x, double y, double z)
{
	return isinf(x) ? 0 : isnan(x) ? x : fmin(x - floor(x), 0x1.fffffep-1);
}

/* powr: pow for x >= 0 alone, and its own special values (OpenCL C
 * 1.2, 7.5.1) */
static double r_powr(double x, double y, double z)
{
	if (x < 0 || isnan(x) || isnan(y))
		return NAN;
	if (x == 0)
		return y == 0 ? NAN : y < 0 ? INFINITY : 0;
	if (x == 1)
		return isinf(y) ? NAN : 1;
	if (isinf(x) && y == 0)
		return NAN;
	return pow(x, y);
}

/*
 * The math family: OpenCL C 1.2's bounds for the full profile (7.4,
 * table 7.1), half_* 8192 ulp on the ranges they are defined on.
 * native_* are implementation-defined: vmgpu's are the full functions
 * (compiler.rst), checked to the full functions' bounds on ordinary
 * inputs.
 */
static const struct ffn math_fns[] = {
	{ "sin(x)", r_sin, 4, { -1e4f }, { 1e4f }, SX | ZS },
	{ "cos(x)", r_cos, 4, { -1e4f }, { 1e4f }, SX },
	{ "tan(x)", r_tan, 5, { -100 }, { 100 }, SX | ZS },
	{ "exp(x)", r_exp, 3, { -104 }, { 89 }, SX },
	{ "exp2(x)", r_exp2, 3, { -150 }, { 128 }, SX },
	{ "exp10(x)", r_exp10, 3, { -45 }, { 39 }, SX },
	{ "expm1(x)", r_expm1, 3, { -20 }, { 89 }, SX | ZS },
	{ "log(x)", r_log, 3, { 1e-44f }, { 3e38f }, SX },
	{ "log2(x)", r_log2, 3, { 1e-44f }, { 3e38f }, SX },
	{ "log10(x)", r_log10, 3, { 1e-30f }, { 1e30f }, SX },
	{ "log1p(x)", r_log1p, 2, { -0.99f }, { 1e4f }, SX | ZS },
	{ "pow(x, y)", r_pow, 16, { 1e-3f, -8 }, { 16, 8 }, SX | SY | ZS },
	{ "powr(x, y)", r_powr, 16, { 1e-3f, -8 }, { 16, 8 }, SX | SY },
	{ "pown(x, CV(int, n)(y))", r_pown, 16, { -8, -20 }, { 8, 20 }, SX | ZS },
	{ "sqrt(x)", r_sqrt, 3, { 0 }, { 1e30f }, SX | ZS },
	{ "rsqrt(x)", r_rsqrt_d, 2, { 1e-30f }, { 1e30f }, SX },
	{ "cbrt(x)", r_cbrt, 2, { -1e30f }, { 1e30f }, SX | ZS },
	{ "atan2(x, y)", r_atan2, 6, { -10, -10 }, { 10, 10 }, SX | SY | ZS },
	{ "asin(x)", r_asin, 4, { -1 }, { 1 }, SX | ZS },
	{ "acos(x)", r_acos, 4, { -1 }, { 1 }, SX },
	{ "atan(x)", r_atan, 5, { -1e4f }, { 1e4f }, SX | ZS },
	{ "sinh(x)", r_sinh, 4, { -89 }, { 89 }, SX | ZS },
	{ "tanh(x)", r_tanh, 5, { -10 }, { 10 }, SX | ZS },
	{ "sinpi(x)", r_sinpi_d, 4, { -1e3f }, { 1e3f }, 0 },
	{ "cospi(x)", r_cospi_d, 4, { -1e3f }, { 1e3f }, 0 },
	{ "erf(x)", r_erf, 16, { -4 }, { 4 }, SX | ZS },
	{ "erfc(x)", r_erfc, 16, { -2 }, { 11 }, SX },
	{ "tgamma(x)", r_tgamma, 16, { 0.01f }, { 35 }, SX },
	{ "fma(x, y, z)", r_fma, 0, { -1e3f, -1e3f, -1e3f }, { 1e3f, 1e3f, 1e3f },
	  SX | SY | SZ | ZS },
	{ "fmin(x, y)", r_fmin, 0, { -10, -10 }, { 10, 10 }, SX | SY },
	{ "fmax(x, y)", r_fmax, 0, { -10, -10 }, { 10, 10 }, SX | SY },
	{ "fdim(x, y)", r_fdim, 0, { -1e30f, -1e30f }, { 1e30f, 1e30f }, SX | SY },
	{ "copysign(x, y)", r_copysign, 0, { -10, -10 }, { 10, 10 }, SX | SY | ZS },
	{ "floor(x)", r_floor, 0, { -1e4f }, { 1e4f }, SX | ZS },
	{ "ceil(x)", r_ceil, 0, { -1e4f }, { 1e4f }, SX | ZS },
	{ "rint(x)", r_rint, 0, { -1e4f }, { 1e4f }, SX | ZS },
	{ "round(x)", r_round, 0, { -1e4f }, { 1e4f }, SX | ZS },
	{ "trunc(x)", r_trunc, 0, { -1e4f }, { 1e4f }, SX | ZS },
	{ "fabs(x)", r_fabs, 0, { -1e4f }, { 1e4f }, SX | ZS },
	{ "hypot(x, y)", r_hypot, 4, { -1e30f, -1e30f }, { 1e30f, 1e30f }, SX | SY },
	{ "fmod(x, y)", r_fmod, 0, { -100, -3 }, { 100, 3 }, SX | SY | ZS },
	{ "remainder(x, y)", r_remainder, 0, { -100, -3 }, { 100, 3 }, SX | SY | ZS },
	{ "ldexp(x, CV(int, n)(y))", r_ldexp, 0, { -10, -300 }, { 10, 300 }, SX | ZS },
	{ "nextafter(x, y)", r_nextafter, 0, { -10, -10 }, { 10, 10 }, SX | SY | ZS },
	{ "logb(x)", r_logb, 0, { 1e-44f }, { 1e38f }, SX },
	/* the results through a pointer (private t and q) */
	{ "fract(x, &t)", r_fract, 0, { -100 }, { 100 }, SX },
	{ "(fract(x, &t), t)", r_floor, 0, { -100 }, { 100 }, SX | ZS },
	{ "modf(x, &t)", r_modf_f, 0, { -100 }, { 100 }, SX | ZS },
	{ "(modf(x, &t), t)", r_modf_i, 0, { -100 }, { 100 }, SX | ZS },
	{ "frexp(x, &q)", r_frexp_m, 0, { -1e30f }, { 1e30f }, SX | ZS },
	{ "CV(float, n)((frexp(x, &q), q))", r_frexp_e, 0, { -1e30f }, { 1e30f },
	  SX | FIN },
	{ "sincos(x, &t)", r_sin, 4, { -1e4f }, { 1e4f }, SX | ZS },
	{ "(sincos(x, &t), t)", r_cos, 4, { -1e4f }, { 1e4f }, SX },
	{ "x / y", r_div, 2.5, { -1e30f, -1e30f }, { 1e30f, 1e30f }, SX | SY | ZS },
	{ "native_sin(x)", r_sin, 4, { -100 }, { 100 }, 0 },
	{ "native_exp(x)", r_exp, 3, { -80 }, { 80 }, 0 },
	{ "native_log2(x)", r_log2, 3, { 1e-30f }, { 1e30f }, 0 },
	{ "native_sqrt(x)", r_sqrt, 3, { 0 }, { 1e30f }, 0 },
	{ "native_rsqrt(x)", r_rsqrt_d, 2, { 1e-30f }, { 1e30f }, 0 },
	{ "native_recip(x)", r_recip, 2.5, { 1e-30f }, { 1e30f }, 0 },
	{ "native_divide(x, y)", r_div, 2.5, { -1e10f, 1e-10f }, { 1e10f, 1e10f }, 0 },
	{ "native_powr(x, y)", r_powr, 16, { 1e-3f, -8 }, { 16, 8 }, 0 },
	{ "half_cos(x)", r_cos, 8192, { -65536 }, { 65536 }, 0 },
	{ "half_tan(x)", r_tan, 8192, { -100 }, { 100 }, 0 },
	{ "half_exp(x)", r_exp, 8192, { -80 }, { 80 }, 0 },
	{ "half_exp10(x)", r_exp10, 8192, { -30 }, { 30 }, 0 },
	{ "half_log(x)", r_log, 8192, { 1e-30f }, { 1e30f }, 0 },
	{ "half_rsqrt(x)", r_rsqrt_d, 8192, { 1e-30f }, { 1e30f }, 0 },
	{ "half_recip(x)", r_recip, 8192, { 1e-30f }, { 1e30f }, 0 },
	{ "half_divide(x, y)", r_div, 8192, { -1e10f, 1e-10f }, { 1e10f, 1e10f }, 0 },
	{ "half_powr(x, y)", r_powr, 8192, { 1e-3f, -8 }, { 16, 8 }, 0 },
};

/* clamp: fmin(fmax(x, lo), hi) (OpenCL C 1.2, 6.12.4) */
#define clamp_d(x, lo, hi) fmin(fmax(x, lo), hi)
static double r_clamp(double x, double y, double z) { return clamp_d(x, fmin(y, z), fmax(y, z)); }

static double r_clamp_s(double x, double y, double z) { return clamp_d(x, -1.5, 2); }
static double r_degrees(double x, double y, double z) { return x * (180 / M_PI); }
static double r_radians(double x, double y, double z) { return x * (M_PI / 180); }
static double r_max(double x, double y, double z) { return x < y ? y : x; }
static double r_max_s(double x, double y, double z) { return r_max(x, 0.5, 0); }
static double r_min(double x, double y, double z) { return y < x ? y : x; }
static double r_min_s(double x, double y, double z) { return r_min(x, -0.5, 0); }
static double r_mix(double x, double y, double z) { return x + (y - x) * z; }
static double r_mix_s(double x, double y, double z) { return x + (y - x) * 0.25; }
static double r_step(double x, double y, double z) { return x < y ? 0 : 1; }
static double r_step_s(double x, double y, double z) { return x < 0.5 ? 0 : 1; }

static double smoothstep_d(double e0, double e1, double x)
{
	double t = clamp_d((x - e0) / (e1 - e0), 0, 1);

	return t * t * (3 - 2 * t);
}

static double r_smooth(double x, double y, double z) { return smoothstep_d(y, z, x); }
static double r_smooth_s(double x, double y, double z) { return smoothstep_d(-1, 2, x); }

static double r_sign(double x, double y, double z)
{
	return x > 0 ? 1 : x < 0 ? -1 : x == 0 ? x : 0;
}

/*
 * The common family (6.12.4), with the forms of a scalar operand.
 * max, min, clamp and step are undefined at NaN and infinities; mix and
 * smoothstep's accuracy is implementation-defined: a few ulp of their
 * operands' magnitude.
 */
static const struct ffn common_fns[] = {
	{ "clamp(x, fmin(y, z), fmax(y, z))", r_clamp, 0, { -10, -10, -10 },
	  { 10, 10, 10 }, SX | SY | SZ | FIN | ZS },
	{ "clamp(x, -1.5f, 2.0f)", r_clamp_s, 0, { -10 }, { 10 }, SX | FIN | ZS },
	{ "degrees(x)", r_degrees, 2, { -1e4f }, { 1e4f }, SX | ZS },
	{ "radians(x)", r_radians, 2, { -1e4f }, { 1e4f }, SX | ZS },
	{ "max(x, y)", r_max, 0, { -10, -10 }, { 10, 10 }, SX | SY | FIN },
	{ "max(x, 0.5f)", r_max_s, 0, { -10 }, { 10 }, SX | FIN },
	{ "min(x, y)", r_min, 0, { -10, -10 }, { 10, 10 }, SX | SY | FIN },
	{ "min(x, -0.5f)", r_min_s, 0, { -10 }, { 10 }, SX | FIN },
	{ "mix(x, y, z)", r_mix, 3, { -100, -100, 0 }, { 100, 100, 1 },
	  SX | SY | FIN | SCALED },
	{ "mix(x, y, 0.25f)", r_mix_s, 3, { -100, -100 }, { 100, 100 },
	  SX | SY | FIN | SCALED },
	{ "step(y, x)", r_step, 0, { -10, -10 }, { 10, 10 }, SX | SY | FIN },
	{ "step(0.5f, x)", r_step_s, 0, { -10 }, { 10 }, SX | FIN },
	{ "smoothstep(y, z, x)", r_smooth, 4, { -10, -10, 1 }, { 10, -1, 10 },
	  SX | FIN | SCALED },
	{ "smoothstep(-1.0f, 2.0f, x)", r_smooth_s, 4, { -3 }, { 4 },
	  SX | FIN | SCALED },
	{ "sign(x)", r_sign, 0, { -10 }, { 10 }, SX | ZS },
};

static float rnd_in(float lo, float hi)
{
	if (lo > 0 && hi / lo > 1e3f)	/* log scale */
		return expf(rng_range(logf(lo), logf(hi)));
	return rng_range(lo, hi);
}

/* inputs of function f: its range, then specials where its flags say:
 * x's alone, y's alone, z's alone, x and y's pairs */
static void ffn_inputs(const struct ffn *f, float *in[3])
{
	int nspec = f->flags & FIN ? NFIN : NSPEC, e, a;

	for (e = 0; e < NE; e++)
		for (a = 0; a < 3; a++)
			in[a][e] = rnd_in(f->lo[a], f->hi[a]);
	for (a = 0; a < 3; a++)
		if (f->flags & (SX << a))
			for (e = 0; e < nspec; e++)
				in[a][a * NSPEC + e] = specials[e];
	if ((f->flags & (SX | SY)) == (SX | SY))
		for (e = 0; e < NSPEC; e++) {
			in[0][3 * NSPEC + e] = specials[e % nspec];
			in[1][3 * NSPEC + e] = specials[(e * 7 + 3) % nspec];
		}
}

/*
 * The kernels of a table: <fam>_<f>_<n> for function f and width n. One
 * kernel per function: LLVM's time grows faster than the size of a
 * function (16 elements of every math function in one kernel take twice
 * as long as in one kernel each).
 */
static char *ffn_source(const char *fam, const struct ffn *fns, int nf)
{
	size_t cap = 65536, len;
	char *body = malloc(cap), *src;
	int f;

	if (!body)
		abort();
	len = (size_t)snprintf(body, cap,
		"#define K(n, fam, f) kernel void fam##_##f##_##n(global const float *X,\\\n"
		"	global const float *Y, global const float *Z, global float *O)\\\n"
		"	{ int i = get_global_id(0); V(float, n) x = LD(n, i, X),\\\n"
		"	  y = LD(n, i, Y), z = LD(n, i, Z), t = 0; V(int, n) q = 0;\\\n"
		"	  ST(n, F##f(n), i, O); }\n");
	for (f = 0; f < nf && len < cap - 512; f++)
		len += (size_t)snprintf(body + len, cap - len,
			"#define F%d(n) %s\nWIDTHS(K, %s, %d)\n", f, fns[f].expr,
			fam, f);
	if (len >= cap - 512)
		abort();
	src = with_prelude(body);
	free(body);
	return src;
}

static void float_family(struct __test_metadata *_metadata, struct testmem *tm,
			 const char *fam, const struct ffn *fns, int nf)
{
	char *src = ffn_source(fam, fns, nf);
	struct vmgpu_program *prog = build(_metadata, src, NULL);
	uint64_t va[4];
	float *in[3], *o;
	double *ref;
	int f, e, w, a, fail, bad = 0;

	free(src);
	ASSERT_NE(NULL, prog);
	for (a = 0; a < 4; a++)
		va[a] = testmem_alloc(tm, (size_t)nf * NE * sizeof(float));
	for (a = 0; a < 3; a++)
		in[a] = testmem_ptr(tm, va[a]);
	o = testmem_ptr(tm, va[3]);
	ref = calloc((size_t)nf * NE, sizeof(*ref));
	ASSERT_NE(NULL, ref);
	for (f = 0; f < nf; f++) {
		float *fin[3] = { in[0] + f * NE, in[1] + f * NE, in[2] + f * NE };

		ffn_inputs(&fns[f], fin);
		for (e = 0; e < NE; e++)
			ref[f * NE + e] = fns[f].ref(fin[0][e], fin[1][e], fin[2][e]);
	}
	for (w = 0; w < NW; w++) {
		int n = widths[w];
		char name[32];

		/* a value no function gives here: an element not stored fails */
		memset(o, 0x5a, (size_t)nf * NE * sizeof(float));
		for (f = 0; f < nf; f++) {
			uint64_t fva[4];

			for (a = 0; a < 4; a++)
				fva[a] = va[a] + (uint64_t)f * NE * sizeof(float);
			snprintf(name, sizeof(name), "%s_%d_%d", fam, f, n);
			run_kernel(_metadata, tm, prog, name, fva, 4, NE / n, NE / n);
		}
		for (f = 0; f < nf; f++)
			for (e = 0; e < NE; e++) {
				const struct ffn *fn = &fns[f];
				float got = o[f * NE + e], x = in[0][f * NE + e],
				      y = in[1][f * NE + e], z = in[2][f * NE + e];
				double want = ref[f * NE + e], err;

				if (fn->flags & SCALED) {
					double m = fmax(fmax(fabs(x), fabs(y)),
							fmax(fabs(z), fabs(want)));

					err = fabs(got - want) /
					      (m < 0x1p-126 ? 0x1p-149 :
					       ldexp(1.0, ilogb(m) - 23));
					if (isnan(got))
						err = 1e9;
				} else {
					err = ulp_error(got, want);
				}
				/* a bound of 0: correctly rounded, within
				 * half an ulp of the exact result */
				fail = err > fn->ulp + (fn->ulp ? 0 : 0.5) ||
				       ((fn->flags & ZS) && want == 0 && got == 0 &&
					!signbit(got) != !signbit(want));
				if (fail && bad++ < 24)
					fprintf(stderr, "# %s width %d: %s at x=%a y=%a z=%a: %a, want %a (%.3g ulp)\n",
						fam, n, fn->expr, x, y, z, got, want, err);
				EXPECT_FALSE(fail);
			}
	}
	free(ref);
	vmgpu_program_destroy(prog);
}

/* some 400 kernels to build: longer than the harness's 30 s on a loaded
 * machine */
TEST_F_TIMEOUT(cc, family_math_every_width, 180)
{
	float_family(_metadata, self->tm, "math", math_fns,
		     sizeof(math_fns) / sizeof(math_fns[0]));
}

TEST_F(cc, family_common_every_width)
{
	float_family(_metadata, self->tm, "common", common_fns,
		     sizeof(common_fns) / sizeof(common_fns[0]));
}

/* ------------------------------------------------------------------ */
/* Integer functions: every type, every width                           */
/* ------------------------------------------------------------------ */

#define NI 384		/* elements per function: 16 x 16 edge pairs, random */
#define NIF 19		/* int_ref's 15, min and clamp with scalars, 24-bit */

/*
 * int_<T>_<n>: the functions of int_ref() (testcc.h) in its order, then
 * min(x, (T)5) and clamp(x, (T)3, (T)100), the forms of a scalar
 * operand; mul24 and mad24 of the operands' low 24 bits (sign-extended
 * for int: their results are undefined past 24 bits) for int and uint,
 * (T)0 for the others; up_<T>_<n>: upsample(x, y) of the types that
 * have a wider one.
 */
static const char int_src[] =
	"#define NI 384\n"
	"#define IF(n, k, e) ST(n, e, i, o + (k) * NI);\n"
	"#define LO24_int(n, v) (AS(int, n)(AS(uint, n)(v) << 8) >> 8)\n"
	"#define LO24_uint(n, v) ((v) & 0xffffffu)\n"
	"#define M24_int(n, x, y, z) IF(n, 17, mul24(LO24_int(n, x), LO24_int(n, y)))\\\n"
	"	IF(n, 18, mad24(LO24_int(n, x), LO24_int(n, y), z))\n"
	"#define M24_uint(n, x, y, z) IF(n, 17, mul24(LO24_uint(n, x), LO24_uint(n, y)))\\\n"
	"	IF(n, 18, mad24(LO24_uint(n, x), LO24_uint(n, y), z))\n"
	"#define M24_(n, x, y, z)\n"
	"#define IK(n, T, U, M) kernel void int_##T##_##n(global const T *a,\\\n"
	"	global const T *b, global const T *c, global T *o)\\\n"
	"{\\\n"
	"	int i = get_global_id(0);\\\n"
	"	V(T, n) x = LD(n, i, a), y = LD(n, i, b), z = LD(n, i, c);\\\n"
	"	IF(n, 0, add_sat(x, y)) IF(n, 1, sub_sat(x, y)) IF(n, 2, hadd(x, y))\\\n"
	"	IF(n, 3, rhadd(x, y)) IF(n, 4, mul_hi(x, y)) IF(n, 5, mad_hi(x, y, z))\\\n"
	"	IF(n, 6, mad_sat(x, y, z)) IF(n, 7, AS(T, n)(abs_diff(x, y)))\\\n"
	"	IF(n, 8, AS(T, n)(abs(x))) IF(n, 9, clz(x)) IF(n, 10, popcount(x))\\\n"
	"	IF(n, 11, rotate(x, y)) IF(n, 12, min(x, y)) IF(n, 13, max(x, y))\\\n"
	"	IF(n, 14, clamp(x, min(y, z), max(y, z))) IF(n, 15, min(x, (T)5))\\\n"
	"	IF(n, 16, clamp(x, (T)3, (T)100)) M24_##M(n, x, y, z)\\\n"
	"}\n"
	"#define UP(n, T, U, W) kernel void up_##T##_##n(global const T *a,\\\n"
	"	global const T *b, global W *w)\\\n"
	"{\\\n"
	"	int i = get_global_id(0);\\\n"
	"	ST(n, upsample(LD(n, i, a), AS(U, n)(LD(n, i, b))), i, w);\\\n"
	"}\n"
	"WIDTHS(IK, char, uchar, ) WIDTHS(IK, uchar, uchar, )\n"
	"WIDTHS(IK, short, ushort, ) WIDTHS(IK, ushort, ushort, )\n"
	"WIDTHS(IK, int, uint, int) WIDTHS(IK, uint, uint, uint)\n"
	"WIDTHS(IK, long, ulong, ) WIDTHS(IK, ulong, ulong, )\n"
	"WIDTHS(UP, char, uchar, short) WIDTHS(UP, uchar, uchar, ushort)\n"
	"WIDTHS(UP, short, ushort, int) WIDTHS(UP, ushort, ushort, uint)\n"
	"WIDTHS(UP, int, uint, long) WIDTHS(UP, uint, uint, ulong)\n";

static const int64_t int_edges[16] = {
	0, 1, -1, 2, -2, 3, 0x7f, -0x80, 0x7fff, -0x8000, 0x7fffffff,
	-0x7fffffff - 1, 0x7fffffffffffffffll, (int64_t)0x8000000000000000ull,
	0x123456789abcdefll, -0x5a5a5a5a5a5a5all,
};

/* the reference of output k of int_<t> at element e */
static __int128 int_want(int k, const struct itype *t, const void *a,
			 const void *b, const void *c, int e)
{
	__int128 x = get_int(a, e, t), y = get_int(b, e, t), z = get_int(c, e, t);
	int w = t->bytes * 8;

	if (k == 15)
		return int_ref(IF_MIN, x, 5, 0, w, t->sgn);
	if (k == 16)
		return int_ref(IF_CLAMP, x, 3, 100, w, t->sgn);
	if (k >= 17) {
		if (w != 32)
			return 0;
		x = int_wrap(x, 24, t->sgn);
		y = int_wrap(y, 24, t->sgn);
		return int_ref(k == 17 ? IF_MUL24 : IF_MAD24, x, y, z, w, t->sgn);
	}
	return int_wrap(int_ref(k, x, y, z, w, t->sgn), w, t->sgn);
}

/* int_<t>_<n> and up_<t>_<n> of every width against int_want() */
static void int_family_type(struct __test_metadata *_metadata,
			    struct testmem *tm, struct vmgpu_program *prog,
			    const struct itype *t, const uint64_t va[5])
{
	const struct itype wide = { "", 2 * t->bytes, t->sgn, 0 };
	uint8_t *a = testmem_ptr(tm, va[0]), *b = testmem_ptr(tm, va[1]),
		*c = testmem_ptr(tm, va[2]), *o = testmem_ptr(tm, va[3]),
		*up = testmem_ptr(tm, va[4]);
	int e, w, k, bad = 0;

	/* every pair of edge values, then random bits */
	for (e = 0; e < NI; e++) {
		int64_t v[3] = {
			int_edges[e / 16 % 16], int_edges[e % 16],
			int_edges[(e / 16 + e % 16) % 16],
		};

		if (e >= 256)
			for (k = 0; k < 3; k++)
				v[k] = (int64_t)rnd64();
		memcpy(a + e * t->bytes, &v[0], t->bytes);
		memcpy(b + e * t->bytes, &v[1], t->bytes);
		memcpy(c + e * t->bytes, &v[2], t->bytes);
	}
	for (w = 0; w < NW; w++) {
		int n = widths[w];
		uint64_t upva[3] = { va[0], va[1], va[4] };
		char name[32];

		memset(o, 0xa5, NIF * NI * t->bytes);
		snprintf(name, sizeof(name), "int_%s_%d", t->name, n);
		run_kernel(_metadata, tm, prog, name, va, 4, NI / n, NI / n);
		for (k = 0; k < NIF; k++)
			for (e = 0; e < NI; e++) {
				__int128 want, got;

				if (k >= 17 && t->bytes != 4)
					continue;
				want = int_want(k, t, a, b, c, e);
				got = get_int(o, k * NI + e, t);
				if (got != want && bad++ < 16)
					fprintf(stderr, "# %s%d function %d element %d (%lld, %lld, %lld): %lld, want %lld\n",
						t->name, n, k, e,
						(long long)get_int(a, e, t),
						(long long)get_int(b, e, t),
						(long long)get_int(c, e, t),
						(long long)got, (long long)want);
				EXPECT_TRUE(got == want);
			}
		if (t->bytes == 8)
			continue;
		memset(up, 0xa5, NI * wide.bytes);
		snprintf(name, sizeof(name), "up_%s_%d", t->name, n);
		run_kernel(_metadata, tm, prog, name, upva, 3, NI / n, NI / n);
		for (e = 0; e < NI; e++) {
			/* hi's bits over lo's, lo unsigned */
			unsigned __int128 hi = (unsigned __int128)get_int(a, e, t),
					  lo = (unsigned __int128)int_wrap(get_int(b, e, t),
								 t->bytes * 8, 0);
			__int128 want = int_wrap((__int128)(hi << (t->bytes * 8) | lo),
						 wide.bytes * 8, t->sgn),
				 got = get_int(up, e, &wide);

			if (got != want && bad++ < 16)
				fprintf(stderr, "# upsample %s%d element %d: %lld, want %lld\n",
					t->name, n, e, (long long)got, (long long)want);
			EXPECT_TRUE(got == want);
		}
	}
}

TEST_F_TIMEOUT(cc, family_integer_every_type_and_width, 120)
{
	static const struct itype types[] = {
		{ "char", 1, 1, 0 }, { "uchar", 1, 0, 0 }, { "short", 2, 1, 0 },
		{ "ushort", 2, 0, 0 }, { "int", 4, 1, 0 }, { "uint", 4, 0, 0 },
		{ "long", 8, 1, 0 }, { "ulong", 8, 0, 0 },
	};
	struct vmgpu_program *prog = build_family(_metadata, int_src);
	uint64_t va[5];
	unsigned int ti;
	int k;

	ASSERT_NE(NULL, prog);
	for (k = 0; k < 5; k++)
		va[k] = testmem_alloc(self->tm, (k == 3 ? NIF : 1) * NI * 8 + 4);
	for (ti = 0; ti < sizeof(types) / sizeof(types[0]); ti++)
		int_family_type(_metadata, self->tm, prog, &types[ti], va);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */
/* select, bitselect, any, all: every type, every width                 */
/* ------------------------------------------------------------------ */

/*
 * rel_<T>_<n>: select with a signed and an unsigned mask, bitselect,
 * and any | all << 1 of the signed mask (one int per work-item).
 */
static const char rel_src[] =
	"#define NI 384\n"
	"#define RK(n, T, S, U) kernel void rel_##T##_##n(global const T *a,\\\n"
	"	global const T *b, global const S *c, global T *o, global int *q)\\\n"
	"{\\\n"
	"	int i = get_global_id(0);\\\n"
	"	V(T, n) x = LD(n, i, a), y = LD(n, i, b);\\\n"
	"	V(S, n) m = LD(n, i, c);\\\n"
	"	ST(n, select(x, y, m), i, o);\\\n"
	"	ST(n, select(x, y, AS(U, n)(m)), i, o + NI);\\\n"
	"	ST(n, bitselect(x, y, AS(T, n)(m)), i, o + 2 * NI);\\\n"
	"	q[i] = any(m) | all(m) << 1;\\\n"
	"}\n"
	"WIDTHS(RK, char, char, uchar) WIDTHS(RK, uchar, char, uchar)\n"
	"WIDTHS(RK, short, short, ushort) WIDTHS(RK, ushort, short, ushort)\n"
	"WIDTHS(RK, int, int, uint) WIDTHS(RK, uint, int, uint)\n"
	"WIDTHS(RK, long, long, ulong) WIDTHS(RK, ulong, long, ulong)\n"
	"WIDTHS(RK, float, int, uint)\n";


static void rel_family_type(struct __test_metadata *_metadata,
			    struct testmem *tm, struct vmgpu_program *prog,
			    const char *tn, int bytes, const uint64_t va[5])
{
	uint8_t *a = testmem_ptr(tm, va[0]), *b = testmem_ptr(tm, va[1]),
		*c = testmem_ptr(tm, va[2]), *o = testmem_ptr(tm, va[3]);
	int32_t *q = testmem_ptr(tm, va[4]);
	uint64_t top = 1ull << (bytes * 8 - 1), all = top | (top - 1);
	int e, w, k, bad = 0;

	/*
	 * The mask by blocks of 48 elements (every width divides 48):
	 * random; every top bit set; none; all but the block's last; 0, -1,
	 * the top bit alone, the rest alone, in turn.
	 */
	for (e = 0; e < NI; e++) {
		uint64_t x = rnd64(), y = rnd64(), m = rnd64();
		static const int kind[8] = { 0, 1, 2, 3, 4, 0, 3, 1 };

		switch (kind[e / 48]) {
		case 1: m |= top; break;
		case 2: m &= ~top; break;
		case 3: m = e % 48 == 47 ? m & ~top : m | top; break;
		case 4: m = (uint64_t[]){ 0, all, top, top - 1 }[e % 4]; break;
		}
		memcpy(a + e * bytes, &x, bytes);
		memcpy(b + e * bytes, &y, bytes);
		memcpy(c + e * bytes, &m, bytes);
	}
	for (w = 0; w < NW; w++) {
		int n = widths[w];
		char name[32];

		memset(o, 0xa5, 3 * NI * bytes);
		memset(q, 0xa5, NI * 4);
		snprintf(name, sizeof(name), "rel_%s_%d", tn, n);
		run_kernel(_metadata, tm, prog, name, va, 5, NI / n, NI / n);
		for (e = 0; e < NI; e++) {
			uint64_t x = 0, y = 0, m = 0, want[3], got;

			memcpy(&x, a + e * bytes, bytes);
			memcpy(&y, b + e * bytes, bytes);
			memcpy(&m, c + e * bytes, bytes);
			/* scalars: c != 0; vectors: c's top bit */
			want[0] = (n == 1 ? m != 0 : (m & top) != 0) ? y : x;
			want[1] = want[0];
			want[2] = (x & ~m) | (y & m);
			for (k = 0; k < 3; k++) {
				got = 0;
				memcpy(&got, o + (k * NI + e) * bytes, bytes);
				want[k] &= all;
				if (got != want[k] && bad++ < 16)
					fprintf(stderr, "# %s%d %s element %d (%#llx, %#llx, mask %#llx): %#llx, want %#llx\n",
						tn, n, k == 2 ? "bitselect" : "select", e,
						(unsigned long long)x, (unsigned long long)y,
						(unsigned long long)m, (unsigned long long)got,
						(unsigned long long)want[k]);
				EXPECT_EQ(want[k], got);
			}
		}
		for (e = 0; e < NI / n; e++) {
			int any = 0, every = 1, want;

			for (k = 0; k < n; k++) {
				uint64_t m = 0;

				memcpy(&m, c + (e * n + k) * bytes, bytes);
				any |= (m & top) != 0;
				every &= (m & top) != 0;
			}
			want = any | every << 1;
			if (q[e] != want && bad++ < 16)
				fprintf(stderr, "# %s%d any, all of vector %d: %d, want %d\n",
					tn, n, e, q[e], want);
			EXPECT_EQ(want, q[e]);
		}
	}
}

TEST_F(cc, family_select_any_all_every_type_and_width)
{
	static const struct { const char *name; int bytes; } types[] = {
		{ "char", 1 }, { "uchar", 1 }, { "short", 2 }, { "ushort", 2 },
		{ "int", 4 }, { "uint", 4 }, { "long", 8 }, { "ulong", 8 },
		{ "float", 4 },
	};
	struct vmgpu_program *prog = build_family(_metadata, rel_src);
	uint64_t va[5];
	unsigned int ti;
	int k;

	ASSERT_NE(NULL, prog);
	for (k = 0; k < 5; k++)
		va[k] = testmem_alloc(self->tm, (k == 3 ? 3 : 1) * NI * 8 + 4);
	for (ti = 0; ti < sizeof(types) / sizeof(types[0]); ti++)
		rel_family_type(_metadata, self->tm, prog, types[ti].name,
				types[ti].bytes, va);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */
/* Geometric functions: float to float4                                 */
/* ------------------------------------------------------------------ */

#define NG 96		/* floats per operand: a multiple of 12 */

/*
 * geo_<n>: per vector i, dot, length, distance, fast_length and
 * fast_distance at o[k * NG + i]; normalize, fast_normalize and (widths
 * 3 and 4) cross element by element at o[k * NG + element].
 */
static const char geo_src[] =
	"#define NG 96\n"
	"#define CROSS_1\n#define CROSS_2\n"
	"#define CROSS_3 ST(3, cross(x, y), i, o + 7 * NG);\n"
	"#define CROSS_4 ST(4, cross(x, y), i, o + 7 * NG);\n"
	"#define GK(n, T) kernel void geo_##n(global const T *a, global const T *b,\\\n"
	"	global T *o)\\\n"
	"{\\\n"
	"	int i = get_global_id(0);\\\n"
	"	V(T, n) x = LD(n, i, a), y = LD(n, i, b);\\\n"
	"	o[i] = dot(x, y); o[NG + i] = length(x); o[2 * NG + i] = distance(x, y);\\\n"
	"	o[3 * NG + i] = fast_length(x); o[4 * NG + i] = fast_distance(x, y);\\\n"
	"	ST(n, normalize(x), i, o + 5 * NG);\\\n"
	"	ST(n, fast_normalize(x), i, o + 6 * NG);\\\n"
	"	CROSS_##n\\\n"
	"}\n"
	"GK(1, float) GK(2, float) GK(3, float) GK(4, float)\n";

/*
 * The vectors by index: ordinary ones, the zero vector, ones whose
 * squares overflow or underflow (length, distance and normalize must
 * scale), subnormals.
 * fast_* may overflow and underflow there (half_sqrt of the sum of
 * squares, OpenCL C 1.2, 6.12.5): ordinary vectors only.
 */
static float geo_in(int e, int n, int which)
{
	int v = e / n;

	switch (v % 8) {
	case 1: return which ? rng_range(-1, 1) : 0;
	case 3: return rng_range(-1, 1) * 0x1p100f;
	case 5: return rng_range(-1, 1) * 0x1p-100f;
	case 6: return rng_range(-1, 1) * 0x1p-140f;
	default: return rng_range(-100, 100);
	}
}

/* dot product's error in ulp of the sum of its terms' magnitudes (the
 * products may cancel) */
static double sum_ulp(double got, double want, double mag)
{
	if (isinf((float)want) || isinf(got))	/* overflowed: inf */
		return got == (float)want ? 0 : 1e9;
	return fabs(got - want) / fmax(0x1p-149, ldexp(mag, -23));
}

static void geo_check(struct __test_metadata *_metadata, const float *a,
		      const float *b, const float *o, int n, int *bad)
{
	int nv = NG / n, i, k, m;

	for (i = 0; i < nv; i++) {
		const float *x = a + i * n, *y = b + i * n;
		double d = 0, l = 0, dd = 0, mag = 0, err[8] = { 0 }, want;
		int ordinary = i % 8 != 3 && i % 8 != 5 && i % 8 != 6;

		for (k = 0; k < n; k++) {
			d += (double)x[k] * y[k];
			mag += fabs((double)x[k] * y[k]);
			l += (double)x[k] * x[k];
			dd += ((double)x[k] - y[k]) * ((double)x[k] - y[k]);
		}
		/* dot and cross are sums of products, without scaling:
		 * products past FLT_MAX make infinities and NaN */
		if (i % 8 != 3)
			err[0] = sum_ulp(o[i], d, mag);
		err[1] = ulp_error(o[NG + i], sqrt(l));
		err[2] = ulp_error(o[2 * NG + i], sqrt(dd));
		if (ordinary) {
			err[3] = ulp_error(o[3 * NG + i], sqrt(l)) / 2048;
			err[4] = ulp_error(o[4 * NG + i], sqrt(dd)) / 2048;
		}
		for (k = 0; k < n; k++) {
			/* normalize(0) is 0 */
			want = l ? x[k] / sqrt(l) : x[k];
			/* (elements far below the largest are a few ulp of
			 * it: the sum's rounding) */
			err[5] = fmax(err[5], fmin(ulp_error(o[5 * NG + i * n + k], want),
				      sum_ulp(o[5 * NG + i * n + k], want, 1)));
			if (ordinary)
				err[6] = fmax(err[6], ulp_error(o[6 * NG + i * n + k], want) / 2048);
		}
		if (n >= 3 && i % 8 != 3)
			for (k = 0; k < 3; k++) {
				int p = (k + 1) % 3, q = (k + 2) % 3;
				double c = (double)x[p] * y[q] - (double)x[q] * y[p];

				m = 7 * NG + i * n + k;
				err[7] = fmax(err[7], sum_ulp(o[m], c, fabs((double)x[p] * y[q]) +
							   fabs((double)x[q] * y[p])));
			}
		if (n == 4 && o[7 * NG + i * n + 3] != 0)	/* cross's w */
			err[7] = 1e9;
		/* dot: n ulp of the terms; length, distance, normalize: 3
		 * ulp (as test_compiler_builtins); fast_*: 8192 (err / 2048
		 * <= 4); cross: 2 ulp of its terms */
		for (k = 0; k < 8; k++) {
			static const double bound[8] = { 4, 3, 3, 4, 4, 3, 4, 2 };

			if (err[k] > bound[k] && (*bad)++ < 16)
				fprintf(stderr, "# float%d geometric %d of vector %d: error %.3g\n",
					n, k, i, err[k]);
			EXPECT_LE(err[k], bound[k]);
		}
	}
}

TEST_F(cc, family_geometric_every_width)
{
	struct vmgpu_program *prog = build_family(_metadata, geo_src);
	ALLOC(float, a, NG);
	ALLOC(float, b, NG);
	ALLOC(float, o, 8 * NG);
	uint64_t va[3] = { a_va, b_va, o_va };
	int w, e, bad = 0;

	ASSERT_NE(NULL, prog);
	for (w = 0; w < 4; w++) {
		int n = widths[w];
		char name[16];

		for (e = 0; e < NG; e++) {
			a[e] = geo_in(e, n, 0);
			b[e] = geo_in(e, n, 1);
		}
		memset(o, 0, 8 * NG * sizeof(float));
		snprintf(name, sizeof(name), "geo_%d", n);
		run_kernel(_metadata, self->tm, prog, name, va, 3, NG / n, NG / n);
		geo_check(_metadata, a, b, o, n, &bad);
	}
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */
/* Asynchronous copies: every width                                     */
/* ------------------------------------------------------------------ */

/*
 * async_<n>, one work-group of 16 per 32 elements: 32 elements of
 * floatn gathered from global memory with a stride of 3 into local
 * memory, doubled there, scattered back with a stride of 2 and copied
 * back whole; prefetch of the source (a hint: no effect to see).
 */
static const char async_src[] =
	"#define AK(n, T) kernel void async_##n(global const V(T, n) *s,\\\n"
	"	global V(T, n) *d, global V(T, n) *d2)\\\n"
	"{\\\n"
	"	local V(T, n) l[32];\\\n"
	"	size_t g = get_group_id(0), t = get_local_id(0);\\\n"
	"	prefetch(s + g * 96, 96);\\\n"
	"	event_t e = async_work_group_strided_copy(l, s + g * 96, 32, 3, 0);\\\n"
	"	wait_group_events(1, &e);\\\n"
	"	l[t] *= 2; l[t + 16] *= 2;\\\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\\\n"
	"	e = async_work_group_strided_copy(d + g * 64, l, 32, 2, 0);\\\n"
	"	e = async_work_group_copy(d2 + g * 32, l, 32, e);\\\n"
	"	wait_group_events(1, &e);\\\n"
	"}\n"
	"WIDTHS(AK, float)\n";

TEST_F(cc, family_async_copies_every_width)
{
	const uint32_t groups = 3;
	struct vmgpu_program *prog = build_family(_metadata, async_src);
	ALLOC(float, s, groups * 96 * 16);
	ALLOC(float, d, groups * 64 * 16);
	ALLOC(float, d2, groups * 32 * 16);
	uint64_t va[3] = { s_va, d_va, d2_va };
	uint32_t i;
	int w, k, bad = 0;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < groups * 96 * 16; i++)
		s[i] = rng_float();
	for (w = 0; w < NW; w++) {
		int n = widths[w], m = n == 3 ? 4 : n;	/* float3: 4 floats */
		char name[16];

		memset(d, 0, groups * 64 * 16 * sizeof(float));
		memset(d2, 0, groups * 32 * 16 * sizeof(float));
		snprintf(name, sizeof(name), "async_%d", n);
		run_kernel(_metadata, self->tm, prog, name, va, 3, groups * 16, 16);
		for (i = 0; i < groups * 32; i++)
			for (k = 0; k < n; k++) {
				uint32_t g = i / 32, j = i % 32;
				float want = 2 * s[((g * 96) + 3 * j) * m + k],
				      got = d[(g * 64 + 2 * j) * m + k],
				      gap = d[(g * 64 + 2 * j + 1) * m + k],
				      whole = d2[i * m + k];

				if ((got != want || gap != 0 || whole != want) && bad++ < 16)
					fprintf(stderr, "# async float%d element %u.%d: %a, %a, %a, want %a, 0, %a\n",
						n, i, k, got, gap, whole, want, want);
				EXPECT_EQ(want, got);
				EXPECT_EQ(0, gap);
				EXPECT_EQ(want, whole);
			}
	}
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */
/* Conversions and reinterpretation: every width                        */
/* ------------------------------------------------------------------ */

/*
 * cvt_<n>: from float, int and long, with and without _sat, in each
 * rounding mode, and as_T both ways; each result as a long
 * (o[k * NE + element], unsigned 64-bit ones reinterpreted). Without
 * _sat a value out of the destination's range is undefined: clamped
 * first (as the reference does).
 */
#define NCV 13
static const char cvt_src[] =
	"#define NE 96\n"
	"#define O(n, k, e) ST(n, CV(long, n)(e), i, o + (k) * NE);\n"
	"#define CK(n, T) kernel void cvt_##n(global const float *f,\\\n"
	"	global const int *d, global const long *l, global long *o)\\\n"
	"{\\\n"
	"	int i = get_global_id(0);\\\n"
	"	V(float, n) x = LD(n, i, f);\\\n"
	"	V(int, n) y = LD(n, i, d);\\\n"
	"	V(long, n) z = LD(n, i, l);\\\n"
	"	O(n, 0, CVM(int, n, _sat_rte)(x)) O(n, 1, CVM(uchar, n, _sat)(x))\\\n"
	"	O(n, 2, CVM(short, n, _sat_rtn)(x))\\\n"
	"	ST(n, AS(long, n)(CVM(ulong, n, _sat_rtp)(x)), i, o + 3 * NE);\\\n"
	"	O(n, 4, CVM(long, n, _rtz)(clamp(x, -0x1p62f, 0x1p62f)))\\\n"
	"	O(n, 5, CVM(int, n, _rte)(clamp(x, -0x1p30f, 0x1p30f)))\\\n"
	"	O(n, 6, AS(int, n)(CVM(float, n, _rtp)(y)))\\\n"
	"	O(n, 7, AS(int, n)(CVM(float, n, _rtn)(z)))\\\n"
	"	O(n, 8, CVM(char, n, _sat)(y)) O(n, 9, CV(ushort, n)(y))\\\n"
	"	O(n, 10, CVM(uint, n, _sat)(z)) O(n, 11, AS(uint, n)(x))\\\n"
	"	O(n, 12, AS(int, n)(AS(float, n)(y)))\\\n"
	"}\n"
	"WIDTHS(CK, )\n";

static int64_t sat_ll(double v, double lo, double hi)
{
	if (isnan(v))
		return 0;
	return (int64_t)(v < lo ? lo : v > hi ? hi : v);
}

static int64_t cvt_ref(int k, float x, int32_t y, int64_t z)
{
	volatile int32_t vy = y;
	volatile int64_t vz = z;
	volatile float r;
	uint32_t u;
	double c;

	switch (k) {
	case 0: return sat_ll(nearbyint(x), -0x1p31, 0x1p31 - 1);
	case 1: return sat_ll(trunc(x), 0, 255);
	case 2: return sat_ll(floor(x), -32768, 32767);
	case 3:
		c = ceil(x);
		if (isnan(c) || c <= 0)
			return 0;
		return c >= 0x1p64 ? -1 : (int64_t)(uint64_t)c;
	case 4: return (int64_t)truncf(fminf(fmaxf(x, -0x1p62f), 0x1p62f));
	case 5: return (int64_t)nearbyintf(fminf(fmaxf(x, -0x1p30f), 0x1p30f));
	case 6:
	case 7:
		fesetround(k == 6 ? FE_UPWARD : FE_DOWNWARD);
		r = k == 6 ? (float)vy : (float)vz;
		fesetround(FE_TONEAREST);
		memcpy(&u, (const float *)&r, 4);
		return (int32_t)u;
	case 8: return y < -128 ? -128 : y > 127 ? 127 : y;
	case 9: return (uint16_t)y;
	case 10: return z < 0 ? 0 : z > (int64_t)UINT32_MAX ? UINT32_MAX : z;
	case 11: memcpy(&u, &x, 4); return u;
	default: return y;
	}
}

TEST_F(cc, family_conversions_every_width)
{
	static const float fedge[] = {
		0.0f, -0.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 0.49999997f,
		127.5f, 255.5f, 256.0f, -128.5f, 32767.5f, -32768.5f, -32769.0f,
		0x1p31f, -0x1p31f, 0x1p31f - 128, 0x1p63f, 0x1p64f, 0x1p62f,
		-0x1p62f, 0x1p30f + 64, 1e30f, -1e30f, NAN, INFINITY, -INFINITY,
		0x1p-149f, 0x1.8p+23f, -0x1.4p+1f,
	};
	static const int64_t iedge[] = {
		0, 1, -1, 127, 128, -129, 65535, 65536, INT32_MAX, INT32_MIN,
		16777217, -16777217, 16777219, 0x7fffffc1, UINT32_MAX,
		0x100000000ll, INT64_MAX, INT64_MIN, (1ll << 53) + 1,
		-(1ll << 40) - 1,
	};
	struct vmgpu_program *prog = build_family(_metadata, cvt_src);
	ALLOC(float, f, NE);
	ALLOC(int32_t, d, NE);
	ALLOC(int64_t, l, NE);
	ALLOC(int64_t, o, NCV * NE);
	uint64_t va[4] = { f_va, d_va, l_va, o_va };
	int e, w, k, bad = 0;

	ASSERT_NE(NULL, prog);
	for (e = 0; e < NE; e++) {
		int nf = sizeof(fedge) / sizeof(fedge[0]),
		    ni = sizeof(iedge) / sizeof(iedge[0]);

		/* past the edges: random magnitudes from 2^-10 to 2^70 */
		f[e] = e < nf ? fedge[e] :
		       ldexpf(rng_range(-1, 1), (int)(rng() % 81) - 10);
		l[e] = e < ni ? iedge[e] : (int64_t)rnd64() >> (rng() % 64);
		d[e] = (int32_t)l[e];
	}
	for (w = 0; w < NW; w++) {
		int n = widths[w];
		char name[16];

		memset(o, 0xa5, NCV * NE * sizeof(int64_t));
		snprintf(name, sizeof(name), "cvt_%d", n);
		run_kernel(_metadata, self->tm, prog, name, va, 4, NE / n, NE / n);
		for (k = 0; k < NCV; k++)
			for (e = 0; e < NE; e++) {
				int64_t want = cvt_ref(k, f[e], d[e], l[e]);

				if (o[k * NE + e] != want && bad++ < 16)
					fprintf(stderr, "# conversion %d width %d of %a, %d, %lld: %lld, want %lld\n",
						k, n, f[e], d[e], (long long)l[e],
						(long long)o[k * NE + e], (long long)want);
				EXPECT_EQ(want, o[k * NE + e]);
			}
	}
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */
/* half as storage: every width, every address space                    */
/* ------------------------------------------------------------------ */

/*
 * half_<n>, element e of work-item i = e / n: o holds x stored as halves
 * in each rounding mode (the default, _rte, _rtz, _rtp, _rtn), then
 * with vstorea_half (4 apart for half3; the scalar has no aligned form,
 * vstore_half stands in); f the halves loaded back: from global memory,
 * through local and private copies, from constant memory (h) and with
 * vloada_half. Private and local half arrays do not exist in OpenCL C:
 * ushort arrays seen as half.
 */
#define NH 96
static const char half_src[] =
	"#define NH 96\n"
	"#define VSH_1(m) vstore_half##m\n#define VSH_2(m) vstore_half2##m\n"
	"#define VSH_3(m) vstore_half3##m\n#define VSH_4(m) vstore_half4##m\n"
	"#define VSH_8(m) vstore_half8##m\n#define VSH_16(m) vstore_half16##m\n"
	"#define VLH_1 vload_half\n#define VLH_2 vload_half2\n#define VLH_3 vload_half3\n"
	"#define VLH_4 vload_half4\n#define VLH_8 vload_half8\n#define VLH_16 vload_half16\n"
	"#define VSA_1(m) vstore_half##m\n#define VSA_2(m) vstorea_half2##m\n"
	"#define VSA_3(m) vstorea_half3##m\n#define VSA_4(m) vstorea_half4##m\n"
	"#define VSA_8(m) vstorea_half8##m\n#define VSA_16(m) vstorea_half16##m\n"
	"#define VLA_1 vload_half\n#define VLA_2 vloada_half2\n#define VLA_3 vloada_half3\n"
	"#define VLA_4 vloada_half4\n#define VLA_8 vloada_half8\n#define VLA_16 vloada_half16\n"
	"#define HK(n, T) kernel void half_##n(global const float *x, global half *o,\\\n"
	"	constant half *h, global float *f)\\\n"
	"{\\\n"
	"	local ushort lh[NH]; ushort ph[16];\\\n"
	"	int i = get_global_id(0), k;\\\n"
	"	V(float, n) v = LD(n, i, x);\\\n"
	"	VSH_##n()(v, i, o); VSH_##n(_rte)(v, i, o + NH);\\\n"
	"	VSH_##n(_rtz)(v, i, o + 2 * NH); VSH_##n(_rtp)(v, i, o + 3 * NH);\\\n"
	"	VSH_##n(_rtn)(v, i, o + 4 * NH); VSA_##n(_rtz)(v, i, o + 5 * NH);\\\n"
	"	ST(n, VLH_##n(i, o), i, f);\\\n"
	"	for (k = 0; k < n; k++)\\\n"
	"		lh[i * n + k] = ph[k] = ((global ushort *)o)[NH + i * n + k];\\\n"
	"	ST(n, VLH_##n(i, (local half *)lh), i, f + NH);\\\n"
	"	ST(n, VLH_##n(0, (half *)ph), i, f + 2 * NH);\\\n"
	"	ST(n, VLH_##n(i, h), i, f + 3 * NH);\\\n"
	"	ST(n, VLA_##n(i, o + 5 * NH), i, f + 4 * NH);\\\n"
	"}\n"
	"WIDTHS(HK, )\n";

TEST_F(cc, family_half_loads_and_stores_every_width)
{
	struct vmgpu_program *prog = build_family(_metadata, half_src);
	ALLOC(float, x, NH);
	ALLOC(uint16_t, o, 5 * NH + NH / 3 * 4);
	ALLOC(uint16_t, h, NH);
	ALLOC(float, f, 5 * NH);
	uint64_t va[4] = { x_va, o_va, h_va, f_va };
	static const float edge[] = {
		0.0f, -0.0f, 1.0f, 65504.0f, 65519.99f, 65520.0f, -65520.0f,
		1e9f, -1e9f, 0x1p-25f, 0x1.000002p-25f, -0x1p-25f, 1e-40f,
		0x1.ffcp-15f, 0x1.ffep-15f, NAN, INFINITY, -INFINITY,
		1.0009765625f, 1.00146484375f, -1.00048828125f,
	};
	int e, w, m, bad = 0;

	ASSERT_NE(NULL, prog);
	for (e = 0; e < NH; e++) {
		uint16_t r = (uint16_t)(rng() & 0xfbff);	/* a finite half */

		/* exact, halfway and between halves, then the edges */
		x[e] = (float)(half_value(r) * (1 + (double)(e % 5 - 2) * 0x1p-12));
		if (e < (int)(sizeof(edge) / sizeof(edge[0])))
			x[e] = edge[e];
		h[e] = (uint16_t)(rng() & 0xfbff);
	}
	for (w = 0; w < NW; w++) {
		int n = widths[w];
		char name[16];

		memset(o, 0xff, (5 * NH + NH / 3 * 4) * 2);
		memset(f, 0, 5 * NH * sizeof(float));
		snprintf(name, sizeof(name), "half_%d", n);
		run_kernel(_metadata, self->tm, prog, name, va, 4, NH / n, NH / n);
		for (e = 0; e < NH; e++) {
			/* the aligned store's place: half3 4 apart */
			int ea = n == 3 ? e / 3 * 4 + e % 3 : e;

			for (m = 0; m < 6; m++) {
				static const int mode[6] = { 0, 0, 1, 2, 3, 1 };
				uint16_t got = o[m * NH + (m == 5 ? ea : e)], want;

				if (isnan(x[e])) {	/* any NaN */
					want = (got & 0x7c00) == 0x7c00 && (got & 0x3ff) ? got : 0x7e00;
				} else {
					want = half_round(x[e], mode[m]);
				}
				if (got != want && bad++ < 16)
					fprintf(stderr, "# half%d store %d of %a: %#x, want %#x\n",
						n, m, x[e], got, want);
				EXPECT_EQ(want, got);
			}
			for (m = 0; m < 5; m++) {
				/* global (rounded to nearest), local, private (the
				 * _rte halves), constant, aligned (_rtz) */
				uint16_t src_h = m == 0 ? o[e] : m == 3 ? h[e] :
						 m == 4 ? o[5 * NH + ea] : o[NH + e];
				double want = half_value(src_h);
				float got = f[m * NH + e];

				if ((isnan(want) ? !isnan(got) : got != want ||
				     !signbit(got) != !signbit(want)) && bad++ < 16)
					fprintf(stderr, "# half%d load %d of %#x: %a, want %a\n",
						n, m, src_h, got, want);
				EXPECT_TRUE(isnan(want) ? isnan(got) :
					    got == want && !signbit(got) == !signbit(want));
			}
		}
	}
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */
/* Atomics: int and uint, global and local, atomic_* and atom_*         */
/* ------------------------------------------------------------------ */

#define NA 128		/* work-items: two groups of 64 */
#define NAC 11		/* the cells, one per function */

/*
 * at_<A>_<T>_<S>: every work-item applies each function once to cell k
 * (global memory, or a local copy per group written back at the end)
 * and keeps what it returned in old[k * NA + i]; a is 1 to 1000,
 * b random bits. cmpxchg moves the cell from i to i + 1. Local atomics
 * need ISA version 2.
 */
static const char atom_src[] =
	"#define NA 128\n"
	"#define OPS(A, T, m)\\\n"
	"	old[i] = A##_add(&m[0], a[i]); old[NA + i] = A##_sub(&m[1], a[i]);\\\n"
	"	old[2 * NA + i] = A##_inc(&m[2]); old[3 * NA + i] = A##_dec(&m[3]);\\\n"
	"	old[4 * NA + i] = A##_min(&m[4], b[i]); old[5 * NA + i] = A##_max(&m[5], b[i]);\\\n"
	"	old[6 * NA + i] = A##_and(&m[6], b[i]); old[7 * NA + i] = A##_or(&m[7], b[i]);\\\n"
	"	old[8 * NA + i] = A##_xor(&m[8], b[i]); old[9 * NA + i] = A##_xchg(&m[9], b[i]);\\\n"
	"	old[10 * NA + i] = A##_cmpxchg(&m[10], (T)i, (T)(i + 1));\n"
	"#define AG(A, T) kernel void at_##A##_##T##_global(volatile global T *g,\\\n"
	"	global T *old, global const T *a, global const T *b)\\\n"
	"{\\\n"
	"	int i = get_global_id(0);\\\n"
	"	OPS(A, T, g)\\\n"
	"}\\\n"
	"kernel void at_##A##_##T##_local(volatile global T *g, global T *old,\\\n"
	"	global const T *a, global const T *b)\\\n"
	"{\\\n"
	"	volatile local T m[11];\\\n"
	"	int i = get_global_id(0), t = get_local_id(0), base = get_group_id(0) * 11;\\\n"
	"	if (t < 11)\\\n"
	"		m[t] = g[base + t];\\\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\\\n"
	"	OPS(A, T, m)\\\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\\\n"
	"	if (t < 11)\\\n"
	"		g[base + t] = m[t];\\\n"
	"}\n"
	"#pragma OPENCL EXTENSION cl_khr_global_int32_base_atomics : enable\n"
	"#pragma OPENCL EXTENSION cl_khr_global_int32_extended_atomics : enable\n"
	"#pragma OPENCL EXTENSION cl_khr_local_int32_base_atomics : enable\n"
	"#pragma OPENCL EXTENSION cl_khr_local_int32_extended_atomics : enable\n"
	"AG(atomic, int) AG(atomic, uint) AG(atom, int) AG(atom, uint)\n";

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * The threads of one domain (all, or one group for local memory): the
 * cells' final values, and what each returned. add (sub) returned the
 * running sums in some order: sorted, each step one thread's a; inc and
 * dec every count once; xchg's returns and the final value the initial
 * value and every b; cmpxchg succeeded for 0 .. final - 1 exactly.
 */
static void atom_check(struct __test_metadata *_metadata, int sgn,
		       const uint32_t *init, const uint32_t *fin,
		       const uint32_t *old, const uint32_t *a,
		       const uint32_t *b, int first, int n, int *bad)
{
	uint32_t want[NAC], sorted[NA + 1], bag[NA + 1];
	int i, k, ok;

	memcpy(want, init, sizeof(want));
	for (i = first; i < first + n; i++) {
		int32_t sw = (int32_t)want[4], sb = (int32_t)b[i];

		want[0] += a[i];
		want[1] -= a[i];
		want[2]++;
		want[3]--;
		want[4] = sgn ? (uint32_t)(sb < sw ? sb : sw) : (b[i] < want[4] ? b[i] : want[4]);
		sw = (int32_t)want[5];
		want[5] = sgn ? (uint32_t)(sb > sw ? sb : sw) : (b[i] > want[5] ? b[i] : want[5]);
		want[6] &= b[i];
		want[7] |= b[i];
		want[8] ^= b[i];
	}
	for (k = 0; k < 9; k++) {
		if (fin[k] != want[k] && (*bad)++ < 16)
			fprintf(stderr, "# atomic %d over threads %d..%d: %#x, want %#x\n",
				k, first, first + n - 1, fin[k], want[k]);
		EXPECT_EQ(want[k], fin[k]);
	}
	for (k = 0; k < 4; k++) {
		/* as a sequence from the initial value: sorted (sub and dec
		 * negated), each step one thread's operand */
		for (i = 0; i < n; i++)
			sorted[i] = (k & 1 ? init[k] - old[k * NA + first + i] :
				     old[k * NA + first + i] - init[k]);
		qsort(sorted, n, 4, cmp_u32);
		ok = sorted[0] == 0;
		for (i = 1; i < n; i++)
			if (k < 2)	/* a step of some thread's a */
				ok &= sorted[i] > sorted[i - 1] &&
				      sorted[i] - sorted[i - 1] <= 1000;
			else
				ok &= sorted[i] == (uint32_t)i;
		if (k < 2) {	/* and the steps sum to the whole */
			uint64_t sum = 0;

			for (i = first; i < first + n; i++)
				sum += a[i];
			ok &= (uint64_t)sorted[n - 1] < sum;
		}
		if (!ok && (*bad)++ < 16)
			fprintf(stderr, "# atomic %d's returns over threads %d..%d are no sequence\n",
				k, first, first + n - 1);
		EXPECT_TRUE(ok);
	}
	for (i = 0; i < n; i++) {
		sorted[i] = old[9 * NA + first + i];
		bag[i] = b[first + i];
	}
	sorted[n] = fin[9];
	bag[n] = init[9];
	qsort(sorted, n + 1, 4, cmp_u32);
	qsort(bag, n + 1, 4, cmp_u32);
	EXPECT_EQ(0, memcmp(sorted, bag, (n + 1) * 4));
	ok = fin[10] <= (uint32_t)(first + n) && fin[10] >= init[10];
	for (i = first; i < first + n; i++)
		ok &= (old[10 * NA + i] == (uint32_t)i) ==
		      ((uint32_t)i >= init[10] && (uint32_t)i < fin[10]);
	if (!ok && (*bad)++ < 16)
		fprintf(stderr, "# cmpxchg over threads %d..%d: final %u\n",
			first, first + n - 1, fin[10]);
	EXPECT_TRUE(ok);
}

TEST_F(cc, family_atomics_global_and_local)
{
	static const char *const names[] = { "atomic", "atom" };
	static const char *const types[] = { "int", "uint" };
	static const char *const spaces[] = { "global", "local" };
	static const uint32_t init[NAC] = {
		5, 1000000, 7, 3, 0x7fff0000, 0x00010000, 0xffffffff, 0, 0x5a5a5a5a,
		42, 0,
	};
	uint32_t init1[NAC];	/* the second group's: cmpxchg from 64 */
	struct vmgpu_program *prog = build(_metadata, atom_src, "-vmgpu-isa=2");
	ALLOC(uint32_t, g, 2 * NAC);
	ALLOC(uint32_t, old, NAC * NA);
	ALLOC(uint32_t, a, NA);
	ALLOC(uint32_t, b, NA);
	uint64_t va[4] = { g_va, old_va, a_va, b_va };
	int i, n, t, sp, bad = 0;

	ASSERT_NE(NULL, prog);
	memcpy(init1, init, sizeof(init));
	init1[10] = 64;
	for (i = 0; i < NA; i++) {
		a[i] = 1 + rng() % 1000;
		b[i] = (uint32_t)rng() << 8 ^ rng();
	}
	b[17] = 0;
	b[99] = 0x80000000u;
	for (n = 0; n < 2; n++)
		for (t = 0; t < 2; t++)
			for (sp = 0; sp < 2; sp++) {
				char name[48];
				struct ck c;
				int k;

				snprintf(name, sizeof(name), "at_%s_%s_%s", names[n],
					 types[t], spaces[sp]);
				memcpy(g, init, sizeof(init));
				memcpy(g + NAC, init1, sizeof(init1));
				memset(old, 0xa5, NAC * NA * 4);
				load_isa(_metadata, prog, name, 2, &c);
				for (k = 0; k < 4; k++)
					set_u64(&c, k, va[k]);
				ASSERT_EQ(0, run1d(self->tm, &c, NA, 64));
				vg_kernel_free(c.k);
				if (sp)		/* each group its own cells */
					for (k = 0; k < 2; k++)
						atom_check(_metadata, t == 0, k ? init1 : init,
							   g + k * NAC, old, a, b, 64 * k,
							   64, &bad);
				else
					atom_check(_metadata, t == 0, init, g, old,
						   a, b, 0, NA, &bad);
			}
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */
/* Work-item functions: every dimension, also as a value known late     */
/* ------------------------------------------------------------------ */

/*
 * wi: for dimensions 0 to 4 and 100, given as a run-time value (not a
 * constant the compiler folds), the seven functions that take one; past
 * the work's dimensions sizes are 1 and ids 0 (OpenCL C 1.2, 6.12.1).
 */
static const char wi_src[] =
	"kernel void wi(global uint *o, global const uint *dims)\n"
	"{\n"
	"	size_t g = get_global_id(0) + get_global_size(0) *\n"
	"		   (get_global_id(1) + get_global_size(1) * get_global_id(2));\n"
	"	for (int k = 0; k < 6; k++) {\n"
	"		uint d = dims[k];\n"
	"		global uint *p = o + (g * 6 + k) * 8;\n"
	"		p[0] = get_global_id(d); p[1] = get_global_size(d);\n"
	"		p[2] = get_local_id(d); p[3] = get_local_size(d);\n"
	"		p[4] = get_group_id(d); p[5] = get_num_groups(d);\n"
	"		p[6] = get_global_offset(d); p[7] = get_work_dim();\n"
	"	}\n"
	"}\n";

TEST_F(cc, family_work_item_every_dimension)
{
	static const uint32_t dims[6] = { 0, 1, 2, 3, 4, 100 };
	const uint32_t grid[3] = { 3, 2, 2 }, block[3] = { 4, 2, 3 };
	const uint32_t n = 3 * 4 * 2 * 2 * 2 * 3;
	struct vmgpu_program *prog = build(_metadata, wi_src, NULL);
	ALLOC(uint32_t, o, n * 6 * 8);
	ALLOC(uint32_t, dv, 6);
	uint32_t x, y, z, k, bad = 0;
	struct ck c;

	ASSERT_NE(NULL, prog);
	memcpy(dv, dims, sizeof(dims));
	memset(o, 0xa5, n * 6 * 8 * 4);
	load(_metadata, prog, "wi", &c);
	set_u64(&c, 0, o_va);
	set_u64(&c, 1, dv_va);
	ASSERT_EQ(0, run_portion(self->tm, &c, grid, block, NULL, NULL, 0));
	vg_kernel_free(c.k);
	for (z = 0; z < 6; z++)
		for (y = 0; y < 4; y++)
			for (x = 0; x < 12; x++)
				for (k = 0; k < 6; k++) {
					uint32_t id[3] = { x, y, z }, d = dims[k], want[8], f;
					const uint32_t *p = o + (((z * 4 + y) * 12 + x) * 6 + k) * 8;

					want[0] = d < 3 ? id[d] : 0;
					want[1] = d < 3 ? grid[d] * block[d] : 1;
					want[2] = d < 3 ? id[d] % block[d] : 0;
					want[3] = d < 3 ? block[d] : 1;
					want[4] = d < 3 ? id[d] / block[d] : 0;
					want[5] = d < 3 ? grid[d] : 1;
					want[6] = 0;
					want[7] = 3;
					for (f = 0; f < 8; f++) {
						if (p[f] != want[f] && bad++ < 16)
							fprintf(stderr, "# work-item (%u, %u, %u) function %u of dimension %u: %u, want %u\n",
								x, y, z, f, d, p[f], want[f]);
						EXPECT_EQ(want[f], p[f]);
					}
				}
	vmgpu_program_destroy(prog);
}

TEST_HARNESS_MAIN
