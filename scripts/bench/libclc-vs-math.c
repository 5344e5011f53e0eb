// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmgpu's built-in float math against LLVM's libclc on the vmgpu device
 * (issue 24: how the built-in library is made). Each function of OpenCL
 * C 1.2's float math (and some half_* and native_*) is compiled twice into a kernel that applies it to
 * one input per work-item: with vmgpu_program_build() (the library of
 * clclib*.cpp), and with vmgpu_program_compile() + vmgpu_program_link()
 * of the kernel's object and libclc's bitcode (scripts/bench/libclc-vs
 * makes it from Debian's libclc-16), whose definitions then stand in for
 * ours; both go through the same optimiser and back end. Both kernels run
 * through the SM interpreter on the same inputs:
 *
 *   - the largest error in ULP against C's double-precision function
 *     (mathref.h, test_compiler_math's measure) over a typical range and
 *     over random bit patterns of the whole float range with the special
 *     values (zeros, infinities, NaN, subnormals, the largest float) and
 *     their pairs first, as the CTS's math_brute_force draws inputs;
 *   - the code size: the kernel's instructions less those of the same
 *     kernel returning its input;
 *   - the dynamic cost: warp instructions per warp of 32 calls over the
 *     typical range, less the same kernel's (divergent paths count
 *     each), as the device executes them.
 *
 *   build/bench/libclc-vs-math LIBCLC.bc [N] [FUNCTION]
 *
 * N inputs per row (65536), FUNCTION to measure one (its rows). An ULP
 * cell "2.09/3" says 3 results were past OpenCL 1.2's bound, "wrong" that
 * the worst was a NaN, an infinity or a number where another was due. A
 * function libclc's bitcode cannot give on vmgpu (a build error) is
 * reported as such. LIBCLC_VS_VERBOSE=1 adds the worst inputs and the
 * kernels' constant tables, =2 the first inputs past the bound. Exit
 * status 1 only when this build's own library fails.
 */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmgpu.h"
#include "vmgpu/compiler.h"
#include "flatmem.h"
#include "mathref.h"

/* a result OpenCL leaves unspecified: not measured */
static const double any_result = 0x1.2345p+1000;

/* references C lacks */
static double acospi_d(double x) { return acos(x) / M_PI; }
static double asinpi_d(double x) { return asin(x) / M_PI; }
static double atanpi_d(double x) { return atan(x) / M_PI; }
static double fdim_d(double x, double y) { return isnan(x) || isnan(y) ? NAN : x > y ? x - y : 0; }
static double fma_d(double x, double y) { return fmaf((float)x, (float)y, 0.5f); }
static double nextafter_d(double x, double y) { return nextafterf((float)x, (float)y); }
static double pown_d(double x, double y) { return pow(x, (int)(float)y); }
static double frexp_m(double x) { int e; return frexp(x, &e); }
static double frexp_e(double x) { int e; frexp(x, &e); return isfinite(x) ? e : any_result; }
static double modf_f(double x) { double i; return modf(x, &i); }
static double modf_i(double x) { double i; modf(x, &i); return i; }
/*
 * remquo's quotient as OpenCL gives it: the sign of x/y and the 7 low
 * bits of the integral quotient k nearest x/y (C's remquo promises 3).
 * |x| mod 128|y| is exact in long double; k mod 128 is the nearest
 * integer to it over |y| (ties to even: 128 is even).
 */
static double remquo_q(double x, double y)
{
	long double t, q;

	if (isnan(x) || isinf(x) || y == 0 || isnan(y))
		return any_result;
	t = fmodl(fabsl((long double)x), 128.0L * fabsl((long double)y));
	q = fmodl(rintl(t / fabsl((long double)y)), 128.0L);
	return (x < 0) != (y < 0) ? -(double)q : (double)q;
}
static double fract_d(double x)
{
	if (isnan(x))
		return NAN;
	if (isinf(x))
		return copysign(0, x);
	/* the spec's fmin(x - floor(x), 0x1.fffffep-1f) */
	return fmin(x - floor(x), 0x1.fffffep-1);
}
static double ilogb_d(double x)
{
	if (isnan(x) || isinf(x))
		return INT_MAX;
	return x == 0 ? INT_MIN : ilogb(x);
}
static double powr_d(double x, double y)
{
	/* OpenCL 1.2 7.5.1: pow for x >= 0, NaN where it would not be */
	if (isnan(x) || isnan(y) || x < 0)
		return NAN;
	x = fabs(x);	/* -0 is +0: powr(-0, -1) is +inf, not pow's -inf */
	if (x == 0 && y == 0)
		return NAN;
	if (isinf(x) && y == 0)
		return NAN;
	if (x == 1 && isinf(y))
		return NAN;
	return pow(x, y);
}
static double lgamma_d(double x) { return lgamma(x); }
static double fdiv_d(double x, double y) { return x / y; }

/*
 * One row: an OpenCL C statement setting the float r from the floats a
 * and b (a row's x and y), the reference, OpenCL 1.2's bound in ULP
 * (< 0: none) and the typical range. @yint: b holds an integer.
 */
struct fn {
	const char *name, *body;
	double (*ref1)(double);
	double (*ref2)(double, double);
	double bound;
	float lo, hi, ylo, yhi;
	int yint;
};

#define F1(n, f, ref, b, lo, hi) { n, "r = " f "(a);", ref, NULL, b, lo, hi, 0, 0, 0 }
#define F2(n, f, ref, b, lo, hi, ylo, yhi) \
	{ n, "r = " f "(a, b);", NULL, ref, b, lo, hi, ylo, yhi, 0 }
#define FI(n, f, ref, b, lo, hi, ylo, yhi) \
	{ n, "r = " f "(a, (int)b);", NULL, ref, b, lo, hi, ylo, yhi, 1 }

/* OpenCL 1.2's float math (6.12.2) with its ULP bounds (7.4, table 7.1) */
static const struct fn fns[] = {
	F1("acos", "acos", acos, 4, -1, 1),
	F1("acosh", "acosh", acosh, 4, 1, 1e30f),
	F1("acospi", "acospi", acospi_d, 5, -1, 1),
	F1("asin", "asin", asin, 4, -1, 1),
	F1("asinh", "asinh", asinh, 4, -1e4f, 1e4f),
	F1("asinpi", "asinpi", asinpi_d, 5, -1, 1),
	F1("atan", "atan", atan, 5, -1e4f, 1e4f),
	F2("atan2", "atan2", atan2, 6, -10, 10, -10, 10),
	F1("atanh", "atanh", atanh, 5, -1, 1),
	F1("atanpi", "atanpi", atanpi_d, 5, -1e4f, 1e4f),
	F2("atan2pi", "atan2pi", atan2pi_d, 6, -10, 10, -10, 10),
	F1("cbrt", "cbrt", cbrt, 2, -1e30f, 1e30f),
	F1("ceil", "ceil", ceil, 0, -1e4f, 1e4f),
	F2("copysign", "copysign", copysign, 0, -10, 10, -10, 10),
	F1("cos", "cos", cos, 4, -1e4f, 1e4f),
	F1("cosh", "cosh", cosh, 4, -89, 89),
	F1("cospi", "cospi", cospi_d, 4, -1e4f, 1e4f),
	F1("erfc", "erfc", erfc, 16, -2, 11),
	F1("erf", "erf", erf, 16, -4, 4),
	F1("exp", "exp", exp, 3, -87, 88),
	F1("exp2", "exp2", exp2, 3, -126, 127),
	F1("exp10", "exp10", exp10, 3, -44, 38),
	F1("expm1", "expm1", expm1, 3, -20, 88),
	F1("fabs", "fabs", fabs, 0, -1e4f, 1e4f),
	F2("fdim", "fdim", fdim_d, 0, -10, 10, -10, 10),
	F1("floor", "floor", floor, 0, -1e4f, 1e4f),
	{ "fma", "r = fma(a, b, 0.5f);", NULL, fma_d, 0, -10, 10, -10, 10, 0 },
	F2("fmax", "fmax", fmax, 0, -10, 10, -10, 10),
	F2("fmin", "fmin", fmin, 0, -10, 10, -10, 10),
	F2("fmod", "fmod", fmod, 0, -100, 100, -3, 3),
	{ "fract", "float ip; r = fract(a, &ip);", fract_d, NULL, 0, -1e4f, 1e4f, 0, 0, 0 },
	{ "frexp", "int e; r = frexp(a, &e);", frexp_m, NULL, 0, -1e30f, 1e30f, 0, 0, 0 },
	{ "frexp:e", "int e; frexp(a, &e); r = e;", frexp_e, NULL, 0, -1e30f, 1e30f, 0, 0, 0 },
	F2("hypot", "hypot", hypot, 4, -1e30f, 1e30f, -1e30f, 1e30f),
	{ "ilogb", "r = ilogb(a);", ilogb_d, NULL, 0, 1e-44f, 1e38f, 0, 0, 0 },
	FI("ldexp", "ldexp", ldexp_d, 0, -10, 10, -300, 300),
	F1("lgamma", "lgamma", lgamma_d, -1, -30, 30),
	F1("log", "log", log, 3, 1e-30f, 1e30f),
	F1("log2", "log2", log2, 3, 1e-30f, 1e30f),
	F1("log10", "log10", log10, 3, 1e-30f, 1e30f),
	F1("log1p", "log1p", log1p, 2, -0.999f, 1e30f),
	F1("logb", "logb", logb, 0, 1e-44f, 1e38f),
	F2("maxmag", "maxmag", maxmag_d, 0, -10, 10, -10, 10),
	F2("minmag", "minmag", minmag_d, 0, -10, 10, -10, 10),
	{ "modf", "float ip; r = modf(a, &ip);", modf_f, NULL, 0, -1e4f, 1e4f, 0, 0, 0 },
	{ "modf:i", "float ip; modf(a, &ip); r = ip;", modf_i, NULL, 0, -1e4f, 1e4f, 0, 0, 0 },
	F2("nextafter", "nextafter", nextafter_d, 0, -10, 10, -10, 10),
	F2("pow", "pow", pow, 16, 0.5f, 2, -100, 100),
	FI("pown", "pown", pown_d, 16, 0.5f, 2, -40, 40),
	F2("powr", "powr", powr_d, 16, 1e-3f, 16, -4, 4),
	F2("remainder", "remainder", remainder, 0, -100, 100, -3, 3),
	{ "remquo", "int q; r = remquo(a, b, &q);", NULL, remainder, 0, -100, 100, -3, 3, 0 },
	{ "remquo:q", "int q; remquo(a, b, &q); r = q;",
	  NULL, remquo_q, 0, -100, 100, -3, 3, 0 },
	F1("rint", "rint", rint, 0, -1e4f, 1e4f),
	FI("rootn", "rootn", rootn_d, 16, -1e30f, 1e30f, -40, 40),
	F1("round", "round", round, 0, -1e4f, 1e4f),
	F1("rsqrt", "rsqrt", rsqrt_d, 2, 1e-6f, 1e6f),
	F1("sin", "sin", sin, 4, -1e4f, 1e4f),
	{ "sincos", "float c; r = sincos(a, &c);", sin, NULL, 4, -1e4f, 1e4f, 0, 0, 0 },
	{ "sincos:c", "float s = sincos(a, &r);", cos, NULL, 4, -1e4f, 1e4f, 0, 0, 0 },
	F1("sinh", "sinh", sinh, 4, -89, 89),
	F1("sinpi", "sinpi", sinpi_d, 4, -1e4f, 1e4f),
	F1("sqrt", "sqrt", sqrt, 3, 0, 1e6f),
	F1("tan", "tan", tan, 5, -10, 10),
	F1("tanh", "tanh", tanh, 5, -10, 10),
	F1("tanpi", "tanpi", tanpi_d, 6, -1e4f, 1e4f),
	F1("tgamma", "tgamma", tgamma, 16, -30, 35),
	F1("trunc", "trunc", trunc, 0, -1e4f, 1e4f),
	/* half_*: 8192 ulp; native_*: the implementation's */
	F1("half_exp", "half_exp", exp, 8192, -87, 88),
	F1("half_log", "half_log", log, 8192, 1e-30f, 1e30f),
	F1("half_sin", "half_sin", sin, 8192, -1e4f, 1e4f),
	F1("half_sqrt", "half_sqrt", sqrt, 8192, 0, 1e6f),
	F2("half_divide", "half_divide", fdiv_d, 8192, -10, 10, -10, 10),
	F1("native_exp", "native_exp", exp, -1, -87, 88),
	F1("native_log", "native_log", log, -1, 1e-30f, 1e30f),
	F1("native_sin", "native_sin", sin, -1, -1e4f, 1e4f),
	F1("native_cos", "native_cos", cos, -1, -1e4f, 1e4f),
	F1("native_sqrt", "native_sqrt", sqrt, -1, 0, 1e6f),
	F2("native_divide", "native_divide", fdiv_d, -1, -10, 10, -10, 10),
};

static const char kernel_fmt[] =
	"kernel void k(global const float *x, global const float *y,\n"
	"	       global float *o, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i < n) {\n"
	"		float a = x[i], b = y[i], r;\n"
	"		%s\n"
	"		o[i] = r;\n"
	"	}\n"
	"}\n";

/* the inputs every "all floats" row starts with (and their pairs) */
static const float specials[] = {
	0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 0.5f, -0.5f,
	2.0f, -2.0f, 3.0f, -2.5f, 100.5f, FLT_MIN, -FLT_MIN, 0x1p-149f,
	-0x1p-149f, 0x1.fffffcp-127f, FLT_MAX, -FLT_MAX, 0x1.921fb6p+0f,
};
#define NSPEC (sizeof(specials) / sizeof(specials[0]))

static uint32_t rng_state;

static float rnd_range(float lo, float hi)
{
	return lo + (hi - lo) * (float)(bench_rng(&rng_state) % 16777216u) /
		16777216.0f;
}

static float rnd_bits(void)
{
	uint32_t v = bench_rng(&rng_state) << 8;	/* 24 random bits */
	float f;

	v ^= bench_rng(&rng_state);

	memcpy(&f, &v, 4);
	return f;
}

/* The inputs of row @all (0: the typical range) of @f. */
static void inputs(const struct fn *f, int all, float *x, float *y, uint32_t n)
{
	uint32_t i = 0, j, ns = f->ref2 ? NSPEC * NSPEC : NSPEC;

	rng_state = 12345 + all;
	for (j = 0; all && j < ns && i < n; j++, i++) {
		x[i] = specials[f->ref2 ? j / NSPEC : j];
		y[i] = specials[j % NSPEC];
	}
	for (; i < n; i++) {
		if (all)
			x[i] = rnd_bits();
		else if (f->lo > 0 && f->hi / f->lo > 1e3f)	/* log scale */
			x[i] = expf(rnd_range(logf(f->lo), logf(f->hi)));
		else
			x[i] = rnd_range(f->lo, f->hi);
		y[i] = all && !f->yint ? rnd_bits() : rnd_range(f->ylo, f->yhi);
		if (f->yint)
			y[i] = rintf(y[i]);
	}
	if (f->yint)	/* the integer of a special value: its conversion */
		for (j = 0; j < n; j++)
			if (!(fabsf(y[j]) < 1e9f))
				y[j] = 0;
}

/* One side's kernel and its baseline (the same kernel returning a). */
struct side {
	const char *what;
	struct vg_kernel *k, *base;
	uint32_t insns, base_insns;
	uint32_t shared;		/* static shared memory: constant tables */
	char err[160];
};

static const void *clc;
static size_t clc_bytes;
/* seconds spent building, and builds, per side */
static double build_s[2];
static unsigned builds[2];

/* Build @body's kernel with our library (!@libclc) or libclc's. */
static struct vmgpu_program *build(const char *body, int libclc, char *err,
				   size_t errlen)
{
	char src[1024];
	struct vmgpu_program *prog = NULL;
	char *log = NULL;
	double t0 = bench_now();
	int r;

	snprintf(src, sizeof(src), kernel_fmt, body);
	if (!libclc) {
		r = vmgpu_program_build(src, NULL, &prog, &log);
	} else {
		void *obj = NULL;
		size_t bytes = 0;

		r = vmgpu_program_compile(src, NULL, &obj, &bytes, &log);
		if (!r) {
			const void *objs[2] = { obj, clc };
			size_t sizes[2] = { bytes, clc_bytes };

			free(log);
			log = NULL;
			r = vmgpu_program_link(objs, sizes, 2, NULL, &prog,
					       NULL, NULL, &log);
		}
		free(obj);
	}
	if (r) {
		/* the log's first error, for the table */
		const char *e = log ? strstr(log, "error: ") : NULL;
		size_t len;

		e = e ? e + 7 : "build failed";
		len = strcspn(e, "\n");
		snprintf(err, errlen, "%.*s", (int)len, e);
		if (getenv("LIBCLC_VS_LOG"))
			fprintf(stderr, "%s\n", log ? log : "");
	}
	free(log);
	build_s[libclc] += bench_now() - t0;
	builds[libclc]++;
	return r ? NULL : prog;
}

static struct vg_kernel *load(struct vmgpu_program *prog, uint32_t *insns,
			      uint32_t *shared)
{
	const struct vmgpu_exec_header *h;
	struct vg_kernel *k;
	const void *image;
	size_t bytes;

	if (vmgpu_program_kernel_image(prog, "k", &image, &bytes) ||
	    vg_kernel_load(&k, image, bytes, VMGPU_ISA_VERSION, NULL)) {
		fprintf(stderr, "libclc-vs: cannot load a kernel\n");
		exit(1);
	}
	h = image;
	*insns = h->code_insns;
	if (shared)
		*shared = h->shared_bytes;
	return k;
}

static int side_build(struct side *s, const char *body, int libclc)
{
	struct vmgpu_program *p, *b;

	p = build(body, libclc, s->err, sizeof(s->err));
	if (!p)
		return -1;
	b = build("r = a;", libclc, s->err, sizeof(s->err));
	if (!b) {
		vmgpu_program_destroy(p);
		return -1;
	}
	s->k = load(p, &s->insns, &s->shared);
	s->base = load(b, &s->base_insns, NULL);
	vmgpu_program_destroy(p);
	vmgpu_program_destroy(b);
	return 0;
}

/* Run @k over the n inputs at @va[0..1] into @va[2]: warp instructions. */
static uint64_t run(struct flatmem *m, const struct vg_kernel *k,
		    const uint64_t va[3], uint32_t n)
{
	const uint32_t block[3] = { 128, 1, 1 }, grid[3] = { n / 128, 1, 1 };
	struct vg_block_stats st;
	uint8_t args[32];

	memcpy(args, &va[0], 8);
	memcpy(args + 8, &va[1], 8);
	memcpy(args + 16, &va[2], 8);
	memcpy(args + 24, &n, 4);
	flat_run_grid(m, k, args, 28, grid, block, &st);
	return st.warp_instrs;
}

struct result {
	double worst;
	uint32_t wi, over;		/* the worst input, results past the bound */
	double dyn;			/* warp instructions per warp of calls */
};

static void measure(struct flatmem *m, const struct fn *f, const struct side *s,
		    const uint64_t va[3], uint32_t n, const double *ref,
		    struct result *res)
{
	float *o = flat_ptr(m, va[2]);
	double lim = f->bound < 0 ? INFINITY : f->bound ? f->bound : 0.5;
	uint64_t w = run(m, s->k, va, n), wb;
	uint32_t i;

	memset(res, 0, sizeof(*res));
	for (i = 0; i < n; i++) {
		double e;

		if (ref[i] == any_result)
			continue;
		e = ulp_error(o[i], ref[i]);

		if (e > lim)
			res->over++;
		if (e > res->worst) {
			res->worst = e;
			res->wi = i;
		}
	}
	wb = run(m, s->base, va, n);
	res->dyn = (double)(w - wb) / (n / VMGPU_WARP_SIZE);
}

/* LIBCLC_VS_VERBOSE=2: the first 16 results past the bound */
static void print_past(struct flatmem *m, const struct fn *f, const char *what,
		       const uint64_t va[3], uint32_t n, const double *ref)
{
	const float *x = flat_ptr(m, va[0]), *y = flat_ptr(m, va[1]),
		*o = flat_ptr(m, va[2]);
	double lim = f->bound < 0 ? INFINITY : f->bound ? f->bound : 0.5;
	uint32_t i, k = 0;

	for (i = 0; i < n && k < 16; i++)
		if (ref[i] != any_result && ulp_error(o[i], ref[i]) > lim) {
			printf("#     %s: x=%a y=%a: %a, want %a\n", what,
			       x[i], y[i], o[i], ref[i]);
			k++;
		}
}

/* "-" (not built), "1.23" or "wrong" (a NaN, an infinity or a number
 * where another was due), with the results past the bound ("/17") */
static void ulp_cell(char *buf, size_t len, const struct side *s,
		     const struct result *r)
{
	char past[16] = "";

	if (r->over)
		snprintf(past, sizeof(past), "/%u", r->over);
	if (!s->k)
		snprintf(buf, len, "-");
	else if (r->worst >= 1e9)
		snprintf(buf, len, "wrong%s", past);
	else
		snprintf(buf, len, "%.2f%s", r->worst, past);
}

int main(int argc, char **argv)
{
	uint32_t n = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : 65536;
	const char *only = argc > 3 ? argv[3] : NULL;
	const char *v = getenv("LIBCLC_VS_VERBOSE");
	int verbose = v ? atoi(v) : 0, status = 0;
	struct flatmem m;
	uint64_t va[3];
	double *ref;
	size_t fi;
	FILE *fp;

	if (argc < 2 || n < 128 || n % 128) {
		fprintf(stderr, "usage: libclc-vs-math LIBCLC.bc [N (a multiple "
			"of 128)] [FUNCTION]\n");
		return 2;
	}
	fp = fopen(argv[1], "rb");
	if (!fp) {
		fprintf(stderr, "libclc-vs: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	fseek(fp, 0, SEEK_END);
	clc_bytes = (size_t)ftell(fp);
	rewind(fp);
	clc = malloc(clc_bytes);
	if (!clc || fread((void *)clc, 1, clc_bytes, fp) != clc_bytes) {
		fprintf(stderr, "libclc-vs: cannot read %s\n", argv[1]);
		return 1;
	}
	fclose(fp);
	flat_init(&m, 3ull * n * 4 + 3 * VMGPU_PAGE_SIZE);
	for (fi = 0; fi < 3; fi++)
		va[fi] = flat_alloc(&m, (uint64_t)n * 4);
	ref = malloc(n * sizeof(*ref));
	if (!ref)
		return 1;

	printf("%-10s %-13s %5s %13s %13s %6s %6s %7s %7s\n", "function",
	       "inputs", "bound", "ours", "libclc", "size", "size",
	       "dyn", "dyn");
	printf("%-10s %-13s %5s %13s %13s %6s %6s %7s %7s\n", "", "", "ulp",
	       "ulp/past", "ulp/past", "ours", "libclc", "ours", "libclc");
	for (fi = 0; fi < sizeof(fns) / sizeof(fns[0]); fi++) {
		const struct fn *f = &fns[fi];
		struct side s[2] = { { .what = "ours" }, { .what = "libclc" } };
		int all, j;

		/* FUNCTION: its rows (frexp: frexp and frexp:e) */
		if (only && (strlen(only) != strcspn(f->name, ":") ||
			     strncmp(only, f->name, strlen(only))))
			continue;
		if (side_build(&s[0], f->body, 0)) {
			fprintf(stderr, "libclc-vs: %s: our library: %s\n",
				f->name, s[0].err);
			status = 1;
			continue;
		}
		side_build(&s[1], f->body, 1);
		for (all = 0; all < 2; all++) {
			float *x = flat_ptr(&m, va[0]), *y = flat_ptr(&m, va[1]);
			struct result r[2];
			char cell[2][24], size[2][16], dyn[2][16];
			uint32_t i;

			memset(r, 0, sizeof(r));
			inputs(f, all, x, y, n);
			for (i = 0; i < n; i++)
				ref[i] = f->ref1 ? f->ref1(x[i]) :
					f->ref2(x[i], y[i]);
			for (j = 0; j < 2; j++) {
				snprintf(size[j], 16, "-");
				snprintf(dyn[j], 16, "-");
				if (!s[j].k)
					continue;
				measure(&m, f, &s[j], va, n, ref, &r[j]);
				ulp_cell(cell[j], sizeof(cell[j]), &s[j], &r[j]);
				if (!all) {
					snprintf(size[j], 16, "%u",
						 s[j].insns - s[j].base_insns);
					snprintf(dyn[j], 16, "%.1f", r[j].dyn);
				}
			}
			if (!s[1].k)
				snprintf(cell[1], sizeof(cell[1]), "-");
			{
				char range[32], bound[16];

				if (all)
					snprintf(range, sizeof(range), "all floats");
				else
					snprintf(range, sizeof(range), "[%g,%g]",
						 f->lo, f->hi);
				if (f->bound < 0)
					snprintf(bound, sizeof(bound), "none");
				else
					snprintf(bound, sizeof(bound), "%g", f->bound);
				printf("%-10s %-13s %5s %13s %13s %6s %6s %7s %7s\n",
				       f->name, range, bound, cell[0], cell[1],
				       size[0], size[1], dyn[0], dyn[1]);
			}
			for (j = 0; j < 2 && verbose; j++) {
				if (!s[j].k || !r[j].worst)
					continue;
				i = r[j].wi;
				/* the worst input; rerun to read its output */
				run(&m, s[j].k, va, n);
				printf("#   %s: x=%a y=%a: %a, want %a (%u past "
				       "the bound)\n", s[j].what, x[i], y[i],
				       ((float *)flat_ptr(&m, va[2]))[i], ref[i],
				       r[j].over);
				if (verbose > 1)
					print_past(&m, f, s[j].what, va, n, ref);
			}
		}
		if (!s[1].k)
			printf("#   libclc: %s\n", s[1].err);
		for (j = 0; j < 2 && verbose; j++)
			if (s[j].k && s[j].shared)
				printf("#   %s: %u bytes of constant tables in "
				       "shared memory\n", s[j].what, s[j].shared);
		for (j = 0; j < 2; j++) {
			if (s[j].k) {
				vg_kernel_free(s[j].k);
				vg_kernel_free(s[j].base);
			}
		}
		fflush(stdout);
	}
	printf("build time per kernel: ours %.0f ms, libclc %.0f ms (its "
	       "%zu bytes of bitcode read and linked each time)\n",
	       1e3 * build_s[0] / (builds[0] ? builds[0] : 1),
	       1e3 * build_s[1] / (builds[1] ? builds[1] : 1), clc_bytes);
	free(ref);
	free((void *)clc);
	free(m.data);
	return status;
}
