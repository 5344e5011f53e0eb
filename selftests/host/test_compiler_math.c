// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OpenCL C compiler's math built-ins: the error in ULP against the C
 * library in double precision, and their special values (NaN, infinities,
 * -0, out of domain).
 */
#include <math.h>

#include "mathref.h"
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
	"K1(sinh) K1(cosh) K1(tanh) K1(asinh) K1(acosh) K1(atanh) K1(sinpi) K1(cospi)\n"
	"K1(tanpi) K1(expm1) K1(log1p) K1(cbrt) K1(exp10) K1(logb) K2(hypot) K2(fmod)\n"
	"K2(remainder) K2(maxmag) K2(minmag) K1(erf) K1(erfc) K1(tgamma) K1(lgamma)\n"
	"kernel void k_rootn(global const float *x, global const float *y,\n"
	"	global float *o, int n) { int i = get_global_id(0);\n"
	"	if (i < n) o[i] = rootn(x[i], (int)y[i]); }\n"
	"kernel void k_ldexp(global const float *x, global const float *y,\n"
	"	global float *o, int n) { int i = get_global_id(0);\n"
	"	if (i < n) o[i] = ldexp(x[i], (int)y[i]); }\n"
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
	{ "k_sinh", sinh, NULL, -89, 89, 0, 0, 4 },
	{ "k_sinh", sinh, NULL, -1, 1, 0, 0, 4 },
	{ "k_cosh", cosh, NULL, -89, 89, 0, 0, 4 },
	{ "k_tanh", tanh, NULL, -10, 10, 0, 0, 5 },
	{ "k_tanh", tanh, NULL, -0.1f, 0.1f, 0, 0, 5 },
	{ "k_asinh", asinh, NULL, -1e4f, 1e4f, 0, 0, 4 },
	{ "k_asinh", asinh, NULL, -1, 1, 0, 0, 4 },
	{ "k_acosh", acosh, NULL, 1, 1e30f, 0, 0, 4 },
	{ "k_acosh", acosh, NULL, 1, 2, 0, 0, 4 },
	{ "k_atanh", atanh, NULL, -1, 1, 0, 0, 5 },
	{ "k_sinpi", sinpi_d, NULL, -1e4f, 1e4f, 0, 0, 4 },
	{ "k_cospi", cospi_d, NULL, -1e4f, 1e4f, 0, 0, 4 },
	{ "k_tanpi", tanpi_d, NULL, -1e4f, 1e4f, 0, 0, 6 },
	{ "k_expm1", expm1, NULL, -20, 88, 0, 0, 3 },
	{ "k_expm1", expm1, NULL, -1, 1, 0, 0, 3 },
	{ "k_log1p", log1p, NULL, -0.999f, 1e30f, 0, 0, 2 },
	{ "k_log1p", log1p, NULL, -0.5f, 0.5f, 0, 0, 2 },
	{ "k_cbrt", cbrt, NULL, -1e30f, 1e30f, 0, 0, 2 },
	{ "k_cbrt", cbrt, NULL, 1e-44f, 1e-30f, 0, 0, 2 },
	{ "k_exp10", exp10, NULL, -44, 38, 0, 0, 3 },
	{ "k_logb", logb, NULL, 1e-44f, 1e38f, 0, 0, 0 },
	{ "k_hypot", NULL, hypot, -1e30f, 1e30f, -1e30f, 1e30f, 4 },
	{ "k_hypot", NULL, hypot, -1e-30f, 1e-30f, -1e-30f, 1e-30f, 4 },
	{ "k_fmod", NULL, fmod, -1e30f, 1e30f, -10, 10, 0 },
	{ "k_fmod", NULL, fmod, -100, 100, -3, 3, 0 },
	{ "k_remainder", NULL, remainder, -1e30f, 1e30f, -10, 10, 0 },
	{ "k_remainder", NULL, remainder, -100, 100, -3, 3, 0 },
	{ "k_maxmag", NULL, maxmag_d, -10, 10, -10, 10, 0 },
	{ "k_minmag", NULL, minmag_d, -10, 10, -10, 10, 0 },
	{ "k_ldexp", NULL, ldexp_d, -10, 10, -300, 300, 0 },
	{ "k_erf", erf, NULL, -4, 4, 0, 0, 4 },
	{ "k_erf", erf, NULL, -0.6f, 0.6f, 0, 0, 4 },
	{ "k_erfc", erfc, NULL, -2, 11, 0, 0, 4 },
	{ "k_erfc", erfc, NULL, 0.4f, 2.2f, 0, 0, 4 },
	{ "k_tgamma", tgamma, NULL, 0.01f, 35, 0, 0, 16 },
	{ "k_tgamma", tgamma, NULL, -30, -0.01f, 0, 0, 16 },
	{ "k_lgamma", lgamma, NULL, 3, 1e30f, 0, 0, 16 },
	/* lgamma: OpenCL sets no bound; near its zeros (-2.5 is an edge
	 * value) the error is absolute, not relative */
	{ "k_lgamma", lgamma, NULL, -30, -5.1f, 0, 0, 32 },
	{ "k_rootn", NULL, rootn_d, 1e-30f, 1e30f, -10, 10, 2 },
	{ "k_rootn", NULL, rootn_d, -1e30f, 1e30f, -40, 40, 2 },
	{ "k_rootn", NULL, rootn_d, 0.5f, 2, -3, 3, 2 },
};

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

/* the less common functions (the library's __VMGPU_LIB_MATHX section) at
 * their special values, and their vector forms against the scalars */
static const char mathx_src[] =
	"kernel void sp(global float *o, global int *q, float inf, float qnan)\n"
	"{\n"
	"	int e; float ip;\n"
	"	o[0] = sinpi(1.0f); o[1] = sinpi(-1.0f); o[2] = cospi(0.5f);\n"
	"	o[3] = tanpi(0.5f); o[4] = tanpi(1.5f); o[5] = tanpi(1.0f);\n"
	"	o[6] = tanpi(2.0f); o[7] = fmod(3.0f, 0.0f); o[8] = fmod(inf, 1.0f);\n"
	"	o[9] = fmod(1.0f, inf); o[10] = remainder(5.0f, 2.0f);\n"
	"	o[11] = remainder(7.0f, 2.0f); o[12] = remquo(7.0f, 2.0f, q);\n"
	"	o[13] = remquo(-7.0f, 2.0f, q + 1); o[14] = frexp(0x1p-149f, q + 2);\n"
	"	o[15] = ldexp(1.0f, -149); o[16] = ldexp(1.0f, 128);\n"
	"	q[3] = ilogb(0.0f); q[4] = ilogb(qnan); q[5] = ilogb(inf);\n"
	"	o[17] = logb(0.0f); o[18] = modf(-3.5f, &ip); o[19] = ip;\n"
	"	o[20] = modf(-inf, &ip); o[21] = ip; o[22] = expm1(-inf);\n"
	"	o[23] = log1p(-1.0f); o[24] = sinh(inf); o[25] = cosh(-inf);\n"
	"	o[26] = tanh(-inf); o[27] = asinh(-0.0f); o[28] = acosh(1.0f);\n"
	"	o[29] = atanh(1.0f); o[30] = atanh(-1.0f); o[31] = cbrt(-8.0f);\n"
	"	o[32] = hypot(inf, qnan); o[33] = maxmag(-3.0f, 2.0f);\n"
	"	o[34] = minmag(-3.0f, 2.0f); o[35] = nan(5u); o[36] = exp10(2.0f);\n"
	"	o[37] = cospi(-1.0f); o[38] = sinpi(-0.0f); o[39] = remainder(-3.0f, 2.0f);\n"
	"	q[6] = ilogb(0x1p-149f);\n"
	"	o[40] = rootn(-8.0f, 3); o[41] = rootn(-0.0f, -3); o[42] = rootn(0.0f, -2);\n"
	"	o[43] = rootn(-4.0f, 2); o[44] = rootn(inf, -2); o[45] = rootn(-inf, 3);\n"
	"	o[46] = erf(inf); o[47] = erf(-inf); o[48] = erfc(inf); o[49] = erfc(-inf);\n"
	"	o[50] = erf(-0.0f); o[51] = erfc(-0.0f);\n"
	"	o[52] = tgamma(-0.0f); o[53] = tgamma(-1.0f); o[54] = lgamma(0.0f);\n"
	"	o[55] = tgamma(inf) + 0.0f * lgamma_r(-0.5f, q + 7);\n"
	"}\n"
	"kernel void vec(global const float *x, global const float *y,\n"
	"	global float *o, global int *q)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	float16 a = vload16(0, x), b = vload16(0, y);\n"
	"	int16 n = convert_int16(b);\n"
	"	if (i == 0) {	/* scalars */\n"
	"		for (int k = 0; k < 16; k++) {\n"
	"			int t;\n"
	"			o[k] = sinh(x[k]) + cospi(x[k]);\n"
	"			o[16 + k] = ldexp(x[k], (int)y[k]);\n"
	"			o[32 + k] = frexp(x[k], &t);\n"
	"			q[k] = t;\n"
	"			o[48 + k] = remquo(x[k], y[k], &t);\n"
	"			q[16 + k] = t;\n"
	"			o[64 + k] = fmod(x[k], y[k]) + hypot(x[k], y[k]);\n"
	"			q[32 + k] = ilogb(x[k]);\n"
	"		}\n"
	"		return;\n"
	"	}\n"
	"	o += 80; q += 48;\n"
	"	vstore3(sinh(a.s012) + cospi(a.s012), 0, o);\n"
	"	vstore8(sinh(a.s3456789a) + cospi(a.s3456789a), 0, o + 3);\n"
	"	vstore4(sinh(a.sbcde) + cospi(a.sbcde), 0, o + 11);\n"
	"	o[15] = sinh(a.sf) + cospi(a.sf);\n"
	"	vstore16(ldexp(a, n), 1, o);\n"
	"	int16 e, r;\n"
	"	vstore16(frexp(a, &e), 2, o);\n"
	"	vstore16(e, 0, q);\n"
	"	int2 e2; int3 e3;\n"
	"	vstore2(remquo(a.s01, b.s01, &e2), 0, o + 48);\n"
	"	vstore2(e2, 0, q + 16);\n"
	"	vstore3(remquo(a.s234, b.s234, &e3), 0, o + 50);\n"
	"	vstore3(e3, 0, q + 18);\n"
	"	int8 e8; int3 ez;\n"
	"	vstore8(remquo(a.s56789abc, b.s56789abc, &e8), 0, o + 53);\n"
	"	vstore8(e8, 0, q + 21);\n"
	"	vstore3(remquo(a.sdef, b.sdef, &ez), 0, o + 61);\n"
	"	vstore3(ez, 0, q + 29);\n"
	"	vstore16(fmod(a, b) + hypot(a, b), 4, o);\n"
	"	vstore16(ilogb(a), 2, q);\n"
	"}\n";

TEST_F(cc, mathx_special_values_and_vectors)
{
	const float inf = INFINITY;
	static const float want[56] = {
		0.0f, -0.0f, 0.0f, INFINITY, -INFINITY, -0.0f, 0.0f, NAN, NAN,
		1.0f, 1.0f, -1.0f, -1.0f, 1.0f, 0.5f, 0x1p-149f, INFINITY,
		-INFINITY, -0.5f, -3.0f, -0.0f, -INFINITY, -1.0f, -INFINITY,
		INFINITY, INFINITY, -1.0f, -0.0f, 0.0f, INFINITY, -INFINITY,
		-2.0f, INFINITY, -3.0f, 2.0f, NAN, 100.0f, -1.0f, -0.0f, 1.0f,
		-2.0f, -INFINITY, INFINITY, NAN, 0.0f, -INFINITY,
		1.0f, -1.0f, 0.0f, 2.0f, -0.0f, 1.0f, -INFINITY, NAN, INFINITY,
		INFINITY,
	};
	static const int32_t wantq[8] = {
		4, -4, -148, INT32_MIN, INT32_MAX, INT32_MAX, -149, -1,
	};
	struct vmgpu_program *prog = build(_metadata, mathx_src, NULL);
	ALLOC(float, o, 160);
	ALLOC(int32_t, q, 96);
	ALLOC(float, x, 16);
	ALLOC(float, y, 16);
	struct ck c;
	int i;

	ASSERT_NE(NULL, prog);
	load(_metadata, prog, "sp", &c);
	set_u64(&c, 0, o_va);
	set_u64(&c, 1, q_va);
	set_f32(&c, 2, inf);
	set_f32(&c, 3, NAN);
	ASSERT_EQ(0, run1d(self->tm, &c, 1, 1));
	for (i = 0; i < 56; i++) {
		if (isnan(want[i])) {
			EXPECT_TRUE(isnan(o[i]));
			continue;
		}
		if (memcmp(&want[i], &o[i], 4))
			fprintf(stderr, "# mathx special %d: %a, want %a\n", i, o[i], want[i]);
		EXPECT_EQ(0, memcmp(&want[i], &o[i], 4));
	}
	for (i = 0; i < 8; i++)
		EXPECT_EQ(wantq[i], q[i]);
	vg_kernel_free(c.k);

	for (i = 0; i < 16; i++) {
		x[i] = rng_range(-200, 200);
		y[i] = rng_range(-40, 40);
	}
	x[3] = 0x1p-140f;
	x[9] = -0.0f;
	y[4] = 0.0f;
	load(_metadata, prog, "vec", &c);
	set_u64(&c, 0, x_va);
	set_u64(&c, 1, y_va);
	set_u64(&c, 2, o_va);
	set_u64(&c, 3, q_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 2, 2));
	for (i = 0; i < 80; i++) {
		if (memcmp(&o[i], &o[80 + i], 4) && !(isnan(o[i]) && isnan(o[80 + i])))
			fprintf(stderr, "# vector %d: %a, scalar %a\n", i, o[80 + i], o[i]);
		EXPECT_TRUE(!memcmp(&o[i], &o[80 + i], 4) || (isnan(o[i]) && isnan(o[80 + i])));
	}
	for (i = 0; i < 48; i++)
		EXPECT_EQ(q[i], q[48 + i]);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

TEST_HARNESS_MAIN
