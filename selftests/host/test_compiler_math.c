// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OpenCL C compiler's math built-ins: the error in ULP against the C
 * library in double precision, and their special values (NaN, infinities,
 * -0, out of domain).
 */
#include <math.h>

#include "testcc.h"
#include "vmgpu/compiler.h"

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
	"K2(pow) K2(fmin) K2(fmax) K2(atan2) K2(atan2pi) K1(atan) K1(asin) K1(acos)\n"
	"kernel void k_sincos_s(global const float *x, global const float *y,\n"
	"	global float *o, int n) { int i = get_global_id(0); float4 c;\n"
	"	if (i < n / 4) vstore4(sincos(vload4(i, x), &c) + c * 0.0f, i, o); }\n"
	"kernel void k_sincos_c(global const float *x, global const float *y,\n"
	"	global float *o, int n) { int i = get_global_id(0);\n"
	"	if (i < n) { float s = sincos(x[i], o + i); if (s > 2.0f) o[i] = s; } }\n"
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
static double atan2pi_d(double y, double x) { return atan2(y, x) / M_PI; }

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
	{ "k_sincos_s", sin, NULL, -1e4f, 1e4f, 0, 0, 2 },
	{ "k_sincos_c", cos, NULL, -1e4f, 1e4f, 0, 0, 2 },
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
	{ "k_atan2", NULL, atan2, -10, 10, -10, 10, 3 },
	{ "k_atan2", NULL, atan2, -1e30f, 1e30f, -1e-30f, 1e-30f, 3 },
	{ "k_atan2", NULL, atan2, -1e-30f, 1e-30f, -1e30f, 1e30f, 3 },
	{ "k_atan2pi", NULL, atan2pi_d, -10, 10, -10, 10, 3 },
	{ "k_atan", atan, NULL, -1e4f, 1e4f, 0, 0, 3 },
	{ "k_atan", atan, NULL, -2, 2, 0, 0, 3 },
	{ "k_asin", asin, NULL, -1, 1, 0, 0, 3 },
	{ "k_acos", acos, NULL, -1, 1, 0, 0, 3 },
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

/* atan2 and its kin at C99's special values, and every vector width
 * giving the scalar's bits (issue 24) */
static const char atan2_src[] =
	"kernel void sp(global const float *y, global const float *x,\n"
	"	global float *o, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i < n)\n"
	"		o[i] = atan2(y[i], x[i]);\n"
	"}\n"
	"kernel void vec(global const float *y, global const float *x,\n"
	"	global float *o, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i != 0)\n"
	"		return;\n"
	"	vstore2(atan2(vload2(0, y), vload2(0, x)), 0, o);\n"
	"	vstore3(atan2(vload3(0, y + 2), vload3(0, x + 2)), 0, o + 2);\n"
	"	vstore4(atan2(vload4(0, y + 5), vload4(0, x + 5)), 0, o + 5);\n"
	"	vstore8(atan2(vload8(0, y + 9), vload8(0, x + 9)), 0, o + 9);\n"
	"	vstore16(atan2(vload16(0, y + 17), vload16(0, x + 17)), 0, o + 17);\n"
	"	vstore16(atan2pi(vload16(0, y + 33), vload16(0, x + 33)), 0, o + 33);\n"
	"	vstore4(atan(vload4(0, y + 49)) + asin(vload4(0, x + 49)) * 0.0f +\n"
	"		acos(vload4(0, x + 49)) * 0.0f + atanpi(vload4(0, y + 49)) * 0.0f,\n"
	"		0, o + 49);\n"
	"}\n";

TEST_F(cc, atan2_special_values_and_vectors)
{
	static const float pi = 0x1.921fb6p+1f, hp = 0x1.921fb6p+0f,
		qp = 0x1.921fb6p-1f, tqp = 0x1.2d97c8p+1f;
	const float inf = INFINITY;
	/* y, x, atan2(y, x) (C99 F.9.1.4) */
	const float sv[][3] = {
		{ 0.0f, 0.0f, 0.0f }, { -0.0f, 0.0f, -0.0f },
		{ 0.0f, -0.0f, pi }, { -0.0f, -0.0f, -pi },
		{ 0.0f, -3.0f, pi }, { -0.0f, -3.0f, -pi },
		{ 0.0f, 3.0f, 0.0f }, { -0.0f, 3.0f, -0.0f },
		{ 2.0f, 0.0f, hp }, { 2.0f, -0.0f, hp }, { -2.0f, 0.0f, -hp },
		{ 5.0f, -inf, pi }, { -5.0f, -inf, -pi },
		{ 5.0f, inf, 0.0f }, { -5.0f, inf, -0.0f },
		{ inf, 7.0f, hp }, { -inf, -7.0f, -hp },
		{ inf, -inf, tqp }, { -inf, -inf, -tqp },
		{ inf, inf, qp }, { -inf, inf, -qp },
		{ 1.0f, 1.0f, qp }, { -1.0f, -1.0f, -tqp },
		{ 0x1p-149f, 0x1p+127f, 0.0f }, { 0x1p+127f, 0x1p-149f, hp },
		{ NAN, 1.0f, NAN }, { 1.0f, NAN, NAN }, { NAN, NAN, NAN },
	};
	const uint32_t n = sizeof(sv) / sizeof(sv[0]), nv = 64;
	struct vmgpu_program *prog = build(_metadata, atan2_src, NULL);
	ALLOC(float, y, nv);
	ALLOC(float, x, nv);
	ALLOC(float, o, nv);
	float ref[64];
	struct ck c;
	uint32_t i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++) {
		y[i] = sv[i][0];
		x[i] = sv[i][1];
	}
	load(_metadata, prog, "sp", &c);
	set_u64(&c, 0, y_va);
	set_u64(&c, 1, x_va);
	set_u64(&c, 2, o_va);
	set_u32(&c, 3, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 32));
	for (i = 0; i < n; i++) {
		if (isnan(sv[i][2])) {
			EXPECT_TRUE(isnan(o[i]));
			continue;
		}
		if (memcmp(&sv[i][2], &o[i], 4))
			fprintf(stderr, "# atan2(%a, %a) = %a, want %a\n",
				y[i], x[i], o[i], sv[i][2]);
		EXPECT_EQ(0, memcmp(&sv[i][2], &o[i], 4));
	}
	vg_kernel_free(c.k);

	/* the vector forms: the scalar's results, element by element */
	for (i = 0; i < nv; i++) {
		y[i] = i < n ? sv[i][0] : rng_range(-100, 100);
		x[i] = i < n ? sv[i][1] : rng_range(-1, 1);
		o[i] = 0;
	}
	load(_metadata, prog, "sp", &c);
	set_u64(&c, 0, y_va);
	set_u64(&c, 1, x_va);
	set_u64(&c, 2, o_va);
	set_u32(&c, 3, nv);
	ASSERT_EQ(0, run1d(self->tm, &c, nv, 32));
	memcpy(ref, o, sizeof(ref));
	vg_kernel_free(c.k);
	for (i = 33; i < 49; i++)	/* atan2pi: atan2 / pi, within 3 ulp */
		ref[i] = (float)(atan2((double)y[i], (double)x[i]) / M_PI);
	for (i = 49; i < 53; i++)
		ref[i] = (float)atan((double)y[i]);
	memset(o, 0, nv * sizeof(float));
	load(_metadata, prog, "vec", &c);
	set_u64(&c, 0, y_va);
	set_u64(&c, 1, x_va);
	set_u64(&c, 2, o_va);
	set_u32(&c, 3, nv);
	ASSERT_EQ(0, run1d(self->tm, &c, 1, 1));
	for (i = 0; i < 53; i++) {
		if (i < 33) {
			if (memcmp(&ref[i], &o[i], 4) && !(isnan(ref[i]) && isnan(o[i])))
				fprintf(stderr, "# vector element %u: %a, want %a\n",
					i, o[i], ref[i]);
			EXPECT_TRUE(!memcmp(&ref[i], &o[i], 4) ||
				    (isnan(ref[i]) && isnan(o[i])));
		} else {
			EXPECT_LE(ulp_error(o[i], ref[i]), 3);
		}
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

TEST_HARNESS_MAIN
