// SPDX-License-Identifier: MIT
/*
 * The built-in functions of OpenCL C for vmgpu, second part: the
 * inverse trigonometric and hyperbolic functions, the less common math
 * functions, the vector forms of the math functions, the common,
 * geometric and relational functions, select, bitselect, any, all,
 * shuffle and shuffle2 (OpenCL C 1.2, 6.12.2-6.12.6, 6.12.12). The
 * front end compiles it after clclib_source (clclib.cpp), as one
 * source: it uses that part's functions and macros (OVL, INL, ...).
 *
 * Accuracy: Documentation/compiler.rst, measured by
 * selftests/host/test_compiler_math.c; the rest is checked against C by
 * selftests/host/test_compiler_builtins.c.
 */
#include "compiler.h"

namespace vmgpu_cc {

const char clclib_math_source[] = R"CLC(
/*
 * Inverse trigonometry: atan on [0, 1] (atan(a) = pi/4 + atan((a - 1) /
 * (a + 1)) above tan(pi/8), then a degree-9 odd polynomial, as Cephes'
 * atanf), the quadrants by exact reflections against pi/2 and pi held as
 * two floats each. atan2 within 2.5 ulp (test_compiler_math).
 */
#define PI_HI 3.14159274101257324f	/* pi rounded; PI_LO the rest */
#define PI_LO -8.74227800037e-08f
INL float __vmgpu_atan01(float a)
{
	float base = 0.0f, t = a;
	if (a > 0.414213562373095f) {
		t = (a - 1.0f) / (a + 1.0f);
		base = 0.25f * PI_HI;
	}
	float z = t * t;
	float p = __builtin_fmaf(8.05374449538e-2f, z, -1.38776856032e-1f);
	p = __builtin_fmaf(p, z, 1.99777106478e-1f);
	p = __builtin_fmaf(p, z, -3.33329491539e-1f);
	return base + (__builtin_fmaf(p * z, t, t) + (base != 0.0f ? 0.25f * PI_LO : 0.0f));
}
/* atan2 of |y|, |x| in [0, pi] (x's sign bit: the left half) */
INL float __vmgpu_atan2_abs(float ay, float ax, int left)
{
	float mx = fmax(ax, ay), mn = fmin(ax, ay);
	float a = mx == 0.0f ? 0.0f : mn == __builtin_inff() ? 1.0f : mn / mx;
	float r = __vmgpu_atan01(a);
	if (ay > ax)		/* pi/2 -+ r: one rounding */
		return 0.5f * PI_HI + (left ? r + 0.5f * PI_LO : 0.5f * PI_LO - r);
	return left ? PI_HI + (PI_LO - r) : r;
}
float OVL atan2(float y, float x)
{
	if (x != x || y != y)
		return x + y;
	return __builtin_copysignf(__vmgpu_atan2_abs(__builtin_fabsf(y),
			__builtin_fabsf(x), as_int(x) < 0), y);
}
float OVL atan(float x)
{
	if (x != x)
		return x;
	return __builtin_copysignf(__vmgpu_atan2_abs(__builtin_fabsf(x), 1.0f, 0), x);
}
/* asin, acos: atan2 of x and sqrt(1 - x^2) = sqrt((1 - x)(1 + x)) */
float OVL asin(float x)
{
	float ax = __builtin_fabsf(x);
	if (!(ax <= 1.0f))
		return __builtin_nanf("");
	return __builtin_copysignf(__vmgpu_atan2_abs(ax,
			__builtin_sqrtf((1.0f - ax) * (1.0f + ax)), 0), x);
}
float OVL acos(float x)
{
	float ax = __builtin_fabsf(x);
	if (!(ax <= 1.0f))
		return __builtin_nanf("");
	return __vmgpu_atan2_abs(__builtin_sqrtf((1.0f - ax) * (1.0f + ax)), ax,
				 x < 0.0f);
}
#define ONE_PI 0.318309886183790672f
float OVL atan2pi(float y, float x) { return atan2(y, x) * ONE_PI; }
float OVL atanpi(float x) { return atan(x) * ONE_PI; }
float OVL asinpi(float x) { return asin(x) * ONE_PI; }
float OVL acospi(float x) { return acos(x) * ONE_PI; }

#ifdef __VMGPU_LIB_MATHX	/* built when the program calls them */
/* ---- hyperbolic functions, through expm1 and log1p ---- */
/* e^x 2^dk, for x up to where e^x / 2 overflows */
INL float __vmgpu_exp_scaled(float x, int dk)
{
	float k = rint(x * 1.44269504088896341f);
	float r = __builtin_fmaf(k, -0.693145751953125f, x);
	r = __builtin_fmaf(k, -1.428606765330187045e-06f, r);
	return __vmgpu_expk(r, min((int)k + dk, 129));
}
float OVL sinh(float x)
{
	float a = __builtin_fabsf(x), r;
	if (a > 88.0f)		/* e^a / 2 */
		r = a > 90.0f ? __builtin_inff() : __vmgpu_exp_scaled(a, -1);
	else {
		float e = expm1(a);
		r = 0.5f * (e + e / (e + 1.0f));
	}
	return __builtin_copysignf(r, x);
}
float OVL cosh(float x)
{
	float a = __builtin_fabsf(x);
	if (a > 88.0f)
		return a > 90.0f ? __builtin_inff() : __vmgpu_exp_scaled(a, -1);
	float e = exp(a);
	return 0.5f * e + 0.5f / e;
}
float OVL tanh(float x)
{
	float a = __builtin_fabsf(x), r;
	if (a > 9.1f)
		r = 1.0f;
	else {
		float e = expm1(2.0f * a);
		r = e / (e + 2.0f);
	}
	return x != x ? x : __builtin_copysignf(r, x);
}
float OVL asinh(float x)
{
	float a = __builtin_fabsf(x), r;
	if (a > 0x1p12f)	/* log(2a), 1/(4a^2) below the rounding */
		r = log(a) + 0.693147182f;
	else
		r = log1p(a + a * a / (1.0f + __builtin_sqrtf(__builtin_fmaf(a, a, 1.0f))));
	return x != x || a == __builtin_inff() ? x : __builtin_copysignf(r, x);
}
float OVL acosh(float x)
{
	if (!(x >= 1.0f))
		return __builtin_nanf("");
	if (x > 0x1p12f)
		return x == __builtin_inff() ? x : log(x) + 0.693147182f;
	float t = x - 1.0f;	/* exact */
	return log1p(t + __builtin_sqrtf(__builtin_fmaf(t, t, 2.0f * t)));
}
float OVL atanh(float x)
{
	float a = __builtin_fabsf(x);
	if (!(a <= 1.0f))
		return __builtin_nanf("");
	return __builtin_copysignf(0.5f * log1p(2.0f * a / (1.0f - a)), x);
}

/* ---- sinpi, cospi, tanpi: x reduced exactly to r in [-1/4, 1/4]
 * (half-turns), then pi r as a float with fma's error term ---- */
INL float __vmgpu_pir(float r)
{
	float p = r * 3.14159274101257324f;
	return __builtin_fmaf(r, -8.74227800037e-08f, p);
}
/* x = 2n... : r and the quadrant q (x = q/2 + r) */
INL float __vmgpu_reduce_pi(float x, int *q)
{
	float k = rint(2.0f * x);	/* |x| < 2^22 here; exact */
	*q = (int)k & 3;
	return x - 0.5f * k;
}
float OVL sinpi(float x)
{
	int q;
	float a = __builtin_fabsf(x), v;
	if (a == __builtin_inff() || x != x)
		return __builtin_nanf("");
	if (a >= 0x1p23f)	/* an integer: +-0 */
		return __builtin_copysignf(0.0f, x);
	float r = __vmgpu_reduce_pi(a, &q), t = __vmgpu_pir(r);
	v = (q & 1) ? __vmgpu_cos_poly(t) : __vmgpu_sin_poly(t);
	v = (q & 2) ? -v : v;
	if (v == 0.0f)
		v = 0.0f;	/* +0, then x's sign: sinpi(n) = +0, sinpi(-n) = -0 */
	return __builtin_copysignf(1.0f, x) * v;
}
float OVL cospi(float x)
{
	int q;
	float a = __builtin_fabsf(x), v;
	if (a == __builtin_inff() || x != x)
		return __builtin_nanf("");
	if (a >= 0x1p24f)	/* an even integer */
		return 1.0f;
	if (a >= 0x1p23f)	/* an integer: odd ones give -1 */
		return (as_int(a) & 1) ? -1.0f : 1.0f;
	float r = __vmgpu_reduce_pi(a, &q), t = __vmgpu_pir(r);
	v = (q & 1) ? __vmgpu_sin_poly(t) : __vmgpu_cos_poly(t);
	v = ((q + 1) & 2) ? -v : v;
	return v == 0.0f ? 0.0f : v;	/* cospi(n + 1/2) is +0 */
}
float OVL tanpi(float x)
{
	int q;
	float a = __builtin_fabsf(x);
	if (a == __builtin_inff() || x != x)
		return __builtin_nanf("");
	if (a >= 0x1p23f)	/* an integer: +-0 by parity */
		return __builtin_copysignf(0.0f, (as_int(a) & 1) && a < 0x1p24f ? -x : x);
	float r = __vmgpu_reduce_pi(a, &q), t = __vmgpu_pir(r);
	float s = __vmgpu_sin_poly(t), c = __vmgpu_cos_poly(t), v;
	v = (q & 1) ? -c / s : s / c;
	/* tanpi(n) = +-0 and tanpi(n + 1/2) = +-inf, by n's parity */
	if (r == 0.0f)
		v = (q & 1) ? ((q & 2) ? -__builtin_inff() : __builtin_inff()) :
		    ((q & 2) ? -0.0f : 0.0f);
	return __builtin_copysignf(1.0f, x) * v;
}

/*
 * rootn: 2^(log2|x| / n) with log2|x| as hi + lo (pow's) and the
 * quotient's rounding error recovered with fma, so that the error does
 * not grow with |log2 x|; x < 0 for odd n only; C's rules for zeros
 */
INL float __vmgpu_rootn_pos(float ax, int n)
{
	float e, rl, rh = __vmgpu_log_parts_ext(ax, &e, &rl);
	float r = rh + rl;
	rl = (rh - r) + rl;
	float t = r * 1.44269504088896341f;
	float tl = __builtin_fmaf(r, 1.44269504088896341f, -t) +
		   r * 1.925963033500e-08f + rl * 1.44269504088896341f;
	float s = e + t;
	float sl = (__builtin_fabsf(e) >= __builtin_fabsf(t) ? (e - s) + t : (t - s) + e) + tl;
	float fn = (float)n, hi = s / fn;
	float lo = (__builtin_fmaf(-hi, fn, s) + sl) / fn;
	float k = rint(hi + lo);
	float f = (hi - k) + lo;
	float rr = f * 0.693147182f;
	rr = __builtin_fmaf(f, -1.90465421e-09f, rr);
	return __vmgpu_expk(rr, (int)k);
}
float OVL rootn(float x, int n)
{
	float ax = __builtin_fabsf(x);
	int odd = n & 1;
	if (n == 0 || x != x || (x < 0.0f && !odd))
		return __builtin_nanf("");
	if (ax == 0.0f)
		return n > 0 ? (odd ? x : 0.0f) :
		       (odd ? __builtin_copysignf(__builtin_inff(), x) : __builtin_inff());
	if (ax == __builtin_inff())
		return n > 0 ? x : __builtin_copysignf(0.0f, x);
	return __builtin_copysignf(__vmgpu_rootn_pos(ax, n), x);
}

/*
 * erf, erfc: erf(x) = x P(x^2) below 1/2; above, erfc(x) = e^(-x^2) h(x)
 * with h a polynomial in x - 5/4 on [1/2, 2] and h(x) x one in 1/x - 0.3
 * on [2, 10.1] (Chebyshev fits of degree 6, 13 and 11, made with mpmath;
 * centred, so that Horner's sums do not cancel), e^(-x^2) with
 * x^2's rounding error corrected; erf = 1 - erfc there
 */
INL float __vmgpu_erfc_pos(float a)	/* a >= 1/2 */
{
	if (a >= 10.1f)
		return 0.0f;
	float h;
	if (a < 2.0f) {		/* in a - 5/4 */
		float u = a - 1.25f;
		float p = -1.927854944e-06f;
		p = __builtin_fmaf(p, u, 6.437031513e-06f);
		p = __builtin_fmaf(p, u, -1.710734384e-05f);
		p = __builtin_fmaf(p, u, 5.322328082e-05f);
		p = __builtin_fmaf(p, u, -1.630520925e-04f);
		p = __builtin_fmaf(p, u, 4.742936750e-04f);
		p = __builtin_fmaf(p, u, -1.325764659e-03f);
		p = __builtin_fmaf(p, u, 3.553045719e-03f);
		p = __builtin_fmaf(p, u, -9.081629353e-03f);
		p = __builtin_fmaf(p, u, 2.201137030e-02f);
		p = __builtin_fmaf(p, u, -5.021827434e-02f);
		p = __builtin_fmaf(p, u, 1.067955713e-01f);
		p = __builtin_fmaf(p, u, -2.088218760e-01f);
		p = __builtin_fmaf(p, u, 3.678229165e-01f);
		h = p;
	} else {		/* in 1/a - 0.3 */
		float t = 1.0f / a, v = t - 0.3f;
		float q = -1.042297673e-01f;
		q = __builtin_fmaf(q, v, -9.717180898e-01f);
		q = __builtin_fmaf(q, v, 8.857464184e-01f);
		q = __builtin_fmaf(q, v, -1.927393015e-01f);
		q = __builtin_fmaf(q, v, -2.665289630e-01f);
		q = __builtin_fmaf(q, v, 3.415528251e-01f);
		q = __builtin_fmaf(q, v, -1.584491834e-01f);
		q = __builtin_fmaf(q, v, -8.154721375e-02f);
		q = __builtin_fmaf(q, v, 2.080724205e-01f);
		q = __builtin_fmaf(q, v, -1.355838498e-01f);
		q = __builtin_fmaf(q, v, -1.346010142e-01f);
		q = __builtin_fmaf(q, v, 5.416332031e-01f);
		h = q * t;
	}
	float x2 = a * a, x2l = __builtin_fmaf(a, a, -x2);
	return exp(-x2) * (h - h * x2l);
}
float OVL erf(float x)
{
	float a = __builtin_fabsf(x);
	if (x != x)
		return x;
	if (a < 0.5f) {
		float z = x * x;
		float p = 1.082277556e-04f;
		p = __builtin_fmaf(p, z, -8.506764817e-04f);
		p = __builtin_fmaf(p, z, 5.223275687e-03f);
		p = __builtin_fmaf(p, z, -2.686610954e-02f);
		p = __builtin_fmaf(p, z, 1.128379142e-01f);
		p = __builtin_fmaf(p, z, -3.761263890e-01f);
		p = __builtin_fmaf(p, z, 1.128379167e+00f);
		return x * p;
	}
	return __builtin_copysignf(1.0f - __vmgpu_erfc_pos(a), x);
}
float OVL erfc(float x)
{
	if (x != x)
		return x;
	if (__builtin_fabsf(x) < 0.5f)
		return 1.0f - erf(x);
	float r = __vmgpu_erfc_pos(__builtin_fabsf(x));
	return x < 0.0f ? 2.0f - r : r;
}

/*
 * tgamma, lgamma, lgamma_r: Gamma on [1, 2] a Chebyshev fit in x - 3/2
 * (degree 11, mpmath), brought there by the recurrence Gamma(x + 1) =
 * x Gamma(x) (one rounding a step, x up to 35; for x < 0 from x + n
 * down, each x + k exact); lgamma the log of that for |x| < 35,
 * Stirling's series above, with the reflection formula below -35
 */
INL float __vmgpu_gamma12(float x)
{
	float u = x - 1.5f;
	float p = -1.089769415e-02f;
	p = __builtin_fmaf(p, u, 1.633166025e-02f);
	p = __builtin_fmaf(p, u, -1.625704486e-02f);
	p = __builtin_fmaf(p, u, 2.439010879e-02f);
	p = __builtin_fmaf(p, u, -3.813110319e-02f);
	p = __builtin_fmaf(p, u, 5.880397661e-02f);
	p = __builtin_fmaf(p, u, -7.751535732e-02f);
	p = __builtin_fmaf(p, u, 1.446338212e-01f);
	p = __builtin_fmaf(p, u, -1.072949708e-01f);
	p = __builtin_fmaf(p, u, 4.148137029e-01f);
	p = __builtin_fmaf(p, u, 3.233839803e-02f);
	p = __builtin_fmaf(p, u, 8.862269246e-01f);
	return p;
}
INL float __vmgpu_tgamma_pos(float x)	/* x > 0 */
{
	float r = 1.0f;
	if (x > 35.1f)
		return __builtin_inff();
	if (x < 0x1p-24f)
		return 1.0f / x;
	while (x > 2.0f) {	/* Gamma(x) = (x - 1) Gamma(x - 1), exact steps */
		x -= 1.0f;
		r *= x;
	}
	if (x < 1.0f) {		/* Gamma(x) = Gamma(x + 1) / x */
		r /= x;
		x += 1.0f;
	}
	return r * __vmgpu_gamma12(x);
}
float OVL tgamma(float x)
{
	if (x != x || x == __builtin_inff())
		return x;
	if (x == 0.0f)
		return __builtin_copysignf(__builtin_inff(), x);
	if (x > 0.0f)
		return __vmgpu_tgamma_pos(x);
	if (x == -__builtin_inff() || trunc(x) == x)
		return __builtin_nanf("");
	if (x < -46.0f)		/* below the subnormals; odd floor(x): < 0 */
		return ((int)floor(x) & 1) ? -0.0f : 0.0f;
	/* Gamma(x) = Gamma(x + n) / (x (x + 1) ... (x + n - 1)), every
	 * x + k exact (a multiple of x's ulp, smaller) */
	float n = ceil(1.0f - x), g = __vmgpu_gamma12(x + n);
	for (float k = n - 1.0f; k >= 0.0f; k -= 1.0f)
		g /= x + k;
	return g;
}
INL float __vmgpu_lgamma_pos(float x)
{
	if (x < 35.0f)
		return log(__vmgpu_tgamma_pos(x));
	return (x - 0.5f) * (log(x) - 1.0f) + (0.918938533204673f - 0.5f) +
	       1.0f / (12.0f * x);
}
/* log|Gamma(x)|, and Gamma(x)'s sign in *s */
INL float __vmgpu_lgamma(float x, int *s)
{
	float a = __builtin_fabsf(x);
	*s = 1;
	if (x != x)
		return x;
	if (a == __builtin_inff())
		return __builtin_inff();
	if (x <= 0.0f && trunc(x) == x) {	/* the poles */
		*s = as_int(x) < 0 ? -1 : 1;
		return __builtin_inff();
	}
	if (a < 0x1p-24f) {
		*s = x < 0.0f ? -1 : 1;
		return -log(a);
	}
	if (x > 0.0f)
		return __vmgpu_lgamma_pos(x);
	if (x > -35.0f) {
		float g = tgamma(x);
		*s = g < 0.0f ? -1 : 1;
		return log(__builtin_fabsf(g));
	}
	/* Gamma(x) = -pi / (x sin(pi x) Gamma(-x)) */
	float sp = sinpi(x);
	*s = sp < 0.0f ? -1 : 1;
	return log(3.14159265358979f / __builtin_fabsf(x * sp)) - __vmgpu_lgamma_pos(a);
}
float OVL lgamma(float x) { int s; return __vmgpu_lgamma(x, &s); }

/* ---- by the bits: fmod, frexp, ldexp, ilogb, logb, modf, nan,
 * maxmag, minmag ---- */
float OVL maxmag(float x, float y)
{
	float ax = __builtin_fabsf(x), ay = __builtin_fabsf(y);
	return ax > ay ? x : ay > ax ? y : fmax(x, y);
}
float OVL minmag(float x, float y)
{
	float ax = __builtin_fabsf(x), ay = __builtin_fabsf(y);
	return ax < ay ? x : ay < ax ? y : fmin(x, y);
}
float OVL nan(uint c) { return as_float(0x7fc00000u | (c & 0x3fffffu)); }
/* x = m 2^e, m in [0.5, 1); 0, infinities and NaN as they are, e = 0 */
INL float __vmgpu_frexp(float x, int *e)
{
	int ix = as_int(x), a = ix & 0x7fffffff, k = 0;
	if (a == 0 || a >= 0x7f800000) {
		*e = 0;
		return x;
	}
	if (a < 0x00800000) {
		x *= 0x1p25f;
		ix = as_int(x);
		a = ix & 0x7fffffff;
		k = -25;
	}
	*e = (a >> 23) - 126 + k;
	return as_float((ix & 0x807fffff) | 0x3f000000);
}
/* one rounding, also into the subnormals */
float OVL ldexp(float x, int n)
{
	int e;
	float m = __vmgpu_frexp(x, &e);
	if (m == 0.0f || __builtin_fabsf(m) == __builtin_inff() || m != m)
		return x;
	int t = e + clamp(n, -400, 400);
	if (t > 128)
		return __builtin_copysignf(__builtin_inff(), x);
	if (t >= -125)
		return as_float(as_int(m) + (t << 23));
	if (t < -189)
		return __builtin_copysignf(0.0f, x);
	return (m * as_float((t + 64 + 127) << 23)) * 0x1p-64f;
}
int OVL ilogb(float x)
{
	int e, a = as_int(x) & 0x7fffffff;
	if (a == 0)
		return FP_ILOGB0;
	if (a >= 0x7f800000)
		return a == 0x7f800000 ? 0x7fffffff : FP_ILOGBNAN;
	__vmgpu_frexp(x, &e);
	return e - 1;
}
float OVL logb(float x)
{
	int a = as_int(x) & 0x7fffffff;
	if (a == 0)
		return -__builtin_inff();
	if (a >= 0x7f800000)
		return x * x;
	return (float)ilogb(x);
}
/*
 * fmod, exact, and the truncated quotient's low bits: (mx 2^(ex - ey))
 * mod my on the 24-bit mantissas, eight bits a step by the ISA's 32-bit
 * division (ix < iy < 2^24, so ix << 8 fits), the quotient's bits
 * shifted in as they come: 35 steps at most, where one bit a step took
 * 277 and remquo took three such loops (a float3 remquo of the CTS ran
 * past the instruction budget). NaN for a NaN, an infinite x or a zero
 * y; *quo is then 0, as for |x| < |y|.
 */
INL float __vmgpu_fmod_quo(float x, float y, uint *quo)
{
	float ax = __builtin_fabsf(x), ay = __builtin_fabsf(y);
	*quo = 0;
	if (x != x || y != y || ax == __builtin_inff() || ay == 0.0f)
		return __builtin_nanf("");
	if (ax < ay)
		return x;
	int ex, ey;
	float mx = __vmgpu_frexp(ax, &ex), my = __vmgpu_frexp(ay, &ey);
	uint ix = (uint)(mx * 0x1p24f), iy = (uint)(my * 0x1p24f);	/* 24 bits */
	uint q = ix / iy, t;
	int d = ex - ey;
	ix %= iy;
	for (; d >= 8; d -= 8) {
		t = ix << 8;
		q = (q << 8) + t / iy;
		ix = t % iy;
	}
	t = ix << d;
	*quo = (q << d) + t / iy;
	return __builtin_copysignf(ldexp((float)(t % iy), ey - 24), x);
}
float OVL fmod(float x, float y)
{
	uint q;
	return __vmgpu_fmod_quo(x, y, &q);
}
/* remainder and remquo: fmod's r = x - n y, n truncated, taken to the
 * nearest n, ties to even: one y more flips r's sign (|r| - |y|) */
INL float __vmgpu_remquo(float x, float y, int *quo)
{
	uint n;
	float r = __vmgpu_fmod_quo(x, y, &n);
	float ay = __builtin_fabsf(y), ar = __builtin_fabsf(r), t = 2.0f * ar;
	if (r != r) {
		*quo = 0;
		return r;
	}
	if (t > ay || (t == ay && (n & 1))) {
		r = as_int(x) < 0 ? ay - ar : ar - ay;
		n++;
	}
	n &= 127;
	*quo = (as_int(x) ^ as_int(y)) < 0 ? -(int)n : (int)n;
	return r == 0.0f ? __builtin_copysignf(0.0f, x) : r;
}
float OVL remainder(float x, float y)
{
	int q;
	return __vmgpu_remquo(x, y, &q);
}
#define PTRFN(AS) \
float OVL frexp(float x, AS int *e) { int t; float m = __vmgpu_frexp(x, &t); *e = t; return m; } \
float OVL modf(float x, AS float *ip) \
{ float t = trunc(x); *ip = t; \
  return __builtin_copysignf(__builtin_fabsf(x) == __builtin_inff() ? 0.0f : x - t, x); } \
float OVL remquo(float x, float y, AS int *q) \
{ int n; float r = __vmgpu_remquo(x, y, &n); *q = n; return r; } \
float OVL lgamma_r(float x, AS int *s) \
{ int t; float r = __vmgpu_lgamma(x, &t); *s = t; return r; }
PTRFN(global) PTRFN(local) PTRFN(private)
#endif

/* ---- vector forms, element by element (the back end scalarises) ---- */
/* 8 and 16 wide: by halves */
#define V1(R, T, f) \
R##2 OVL f(T##2 x) { return (R##2)(f(x.s0), f(x.s1)); } \
R##3 OVL f(T##3 x) { return (R##3)(f(x.s0), f(x.s1), f(x.s2)); } \
R##4 OVL f(T##4 x) { return (R##4)(f(x.s0), f(x.s1), f(x.s2), f(x.s3)); } \
R##8 OVL f(T##8 x) { return (R##8)(f(x.lo), f(x.hi)); } \
R##16 OVL f(T##16 x) { return (R##16)(f(x.lo), f(x.hi)); }
#define V2(T, f) \
T##2 OVL f(T##2 x, T##2 y) { return (T##2)(f(x.s0, y.s0), f(x.s1, y.s1)); } \
T##3 OVL f(T##3 x, T##3 y) { return (T##3)(f(x.s0, y.s0), f(x.s1, y.s1), f(x.s2, y.s2)); } \
T##4 OVL f(T##4 x, T##4 y) { return (T##4)(f(x.s0, y.s0), f(x.s1, y.s1), f(x.s2, y.s2), f(x.s3, y.s3)); } \
T##8 OVL f(T##8 x, T##8 y) { return (T##8)(f(x.lo, y.lo), f(x.hi, y.hi)); } \
T##16 OVL f(T##16 x, T##16 y) { return (T##16)(f(x.lo, y.lo), f(x.hi, y.hi)); }
#define V3(T, f) \
T##2 OVL f(T##2 x, T##2 y, T##2 z) { return (T##2)(f(x.s0, y.s0, z.s0), f(x.s1, y.s1, z.s1)); } \
T##3 OVL f(T##3 x, T##3 y, T##3 z) { return (T##3)(f(x.s0, y.s0, z.s0), f(x.s1, y.s1, z.s1), f(x.s2, y.s2, z.s2)); } \
T##4 OVL f(T##4 x, T##4 y, T##4 z) { return (T##4)(f(x.s0, y.s0, z.s0), f(x.s1, y.s1, z.s1), f(x.s2, y.s2, z.s2), f(x.s3, y.s3, z.s3)); } \
T##8 OVL f(T##8 x, T##8 y, T##8 z) { return (T##8)(f(x.lo, y.lo, z.lo), f(x.hi, y.hi, z.hi)); } \
T##16 OVL f(T##16 x, T##16 y, T##16 z) { return (T##16)(f(x.lo, y.lo, z.lo), f(x.hi, y.hi, z.hi)); }
V1(float, float, sqrt) V1(float, float, rsqrt) V1(float, float, fabs)
V1(float, float, floor) V1(float, float, ceil) V1(float, float, trunc)
V1(float, float, round) V1(float, float, rint) V1(float, float, exp)
V1(float, float, exp2) V1(float, float, log) V1(float, float, log2)
V1(float, float, sin) V1(float, float, cos) V1(float, float, tan)
V1(float, float, atan) V1(float, float, asin) V1(float, float, acos)
V1(float, float, atanpi) V1(float, float, asinpi) V1(float, float, acospi)
V2(float, atan2) V2(float, atan2pi)
#ifdef __VMGPU_LIB_MATHX
V1(float, float, cbrt) V1(float, float, exp10) V1(float, float, expm1)
V1(float, float, log10) V1(float, float, log1p) V1(float, float, logb)
V1(float, float, sinh) V1(float, float, cosh) V1(float, float, tanh)
V1(float, float, asinh) V1(float, float, acosh) V1(float, float, atanh)
V1(float, float, sinpi) V1(float, float, cospi) V1(float, float, tanpi)
V1(float, float, erf) V1(float, float, erfc)
V1(float, float, tgamma) V1(float, float, lgamma)
V1(int, float, ilogb) V1(float, uint, nan)
V2(float, copysign) V2(float, fdim) V2(float, hypot) V2(float, fmod)
V2(float, remainder) V2(float, maxmag) V2(float, minmag) V2(float, nextafter)
V2(float, powr)
float2 OVL rootn(float2 x, int2 n) { return (float2)(rootn(x.s0, n.s0), rootn(x.s1, n.s1)); }
float3 OVL rootn(float3 x, int3 n)
{ return (float3)(rootn(x.s0, n.s0), rootn(x.s1, n.s1), rootn(x.s2, n.s2)); }
float4 OVL rootn(float4 x, int4 n) { return (float4)(rootn(x.lo, n.lo), rootn(x.hi, n.hi)); }
float8 OVL rootn(float8 x, int8 n) { return (float8)(rootn(x.lo, n.lo), rootn(x.hi, n.hi)); }
float16 OVL rootn(float16 x, int16 n) { return (float16)(rootn(x.lo, n.lo), rootn(x.hi, n.hi)); }
/* the native_ and half_ forms: the same functions */
#define NH1(f) \
float OVL native_##f(float x) { return f(x); } \
float OVL half_##f(float x) { return f(x); } \
V1(float, float, native_##f) V1(float, float, half_##f)
NH1(exp10) NH1(log10)
float OVL half_exp2(float x) { return exp2(x); }
float OVL half_log2(float x) { return log2(x); }
float OVL half_rsqrt(float x) { return rsqrt(x); }
float OVL half_tan(float x) { return tan(x); }
float OVL half_powr(float x, float y) { return powr(x, y); }
V1(float, float, native_sqrt) V1(float, float, half_sqrt)
V1(float, float, native_rsqrt) V1(float, float, half_rsqrt)
V1(float, float, native_recip) V1(float, float, half_recip)
V1(float, float, native_exp) V1(float, float, half_exp)
V1(float, float, native_exp2) V1(float, float, half_exp2)
V1(float, float, native_log) V1(float, float, half_log)
V1(float, float, native_log2) V1(float, float, half_log2)
V1(float, float, native_sin) V1(float, float, half_sin)
V1(float, float, native_cos) V1(float, float, half_cos)
V1(float, float, native_tan) V1(float, float, half_tan)
V2(float, native_divide) V2(float, half_divide)
V2(float, native_powr) V2(float, half_powr)
/* with an int vector or an int: ldexp, pown */
#define VI(N) \
float##N OVL ldexp(float##N x, int##N n) \
{ return (float##N)(ldexp(x.lo, n.lo), ldexp(x.hi, n.hi)); } \
float##N OVL ldexp(float##N x, int n) { return ldexp(x, (int##N)(n)); } \
float##N OVL pown(float##N x, int##N n) \
{ return (float##N)(pown(x.lo, n.lo), pown(x.hi, n.hi)); }
float2 OVL ldexp(float2 x, int2 n) { return (float2)(ldexp(x.s0, n.s0), ldexp(x.s1, n.s1)); }
float2 OVL ldexp(float2 x, int n) { return ldexp(x, (int2)(n)); }
float2 OVL pown(float2 x, int2 n) { return (float2)(pown(x.s0, n.s0), pown(x.s1, n.s1)); }
float3 OVL ldexp(float3 x, int3 n)
{ return (float3)(ldexp(x.s0, n.s0), ldexp(x.s1, n.s1), ldexp(x.s2, n.s2)); }
float3 OVL ldexp(float3 x, int n) { return ldexp(x, (int3)(n)); }
float3 OVL pown(float3 x, int3 n)
{ return (float3)(pown(x.s0, n.s0), pown(x.s1, n.s1), pown(x.s2, n.s2)); }
VI(4) VI(8) VI(16)
/* with a pointer: frexp, modf, fract, remquo; element by element
 * through private temporaries */
#define VP(AS, N, H, PT) \
float##N OVL frexp(float##N x, AS int##N *e) \
{ int##H a, b; float##N r = (float##N)(frexp(x.lo, &a), frexp(x.hi, &b)); \
  *e = (int##N)(a, b); return r; } \
float##N OVL modf(float##N x, AS float##N *ip) \
{ float##H a, b; float##N r = (float##N)(modf(x.lo, &a), modf(x.hi, &b)); \
  *ip = (float##N)(a, b); return r; } \
float##N OVL fract(float##N x, AS float##N *ip) \
{ float##H a, b; float##N r = (float##N)(fract(x.lo, &a), fract(x.hi, &b)); \
  *ip = (float##N)(a, b); return r; } \
 \
float##N OVL remquo(float##N x, float##N y, AS int##N *q) \
{ int##H a, b; float##N r = (float##N)(remquo(x.lo, y.lo, &a), remquo(x.hi, y.hi, &b)); \
  *q = (int##N)(a, b); return r; } \
float##N OVL lgamma_r(float##N x, AS int##N *q) \
{ int##H a, b; float##N r = (float##N)(lgamma_r(x.lo, &a), lgamma_r(x.hi, &b)); \
  *q = (int##N)(a, b); return r; }
#define VP3(AS) \
float3 OVL frexp(float3 x, AS int3 *e) \
{ int a, b, c; float3 r = (float3)(frexp(x.s0, &a), frexp(x.s1, &b), frexp(x.s2, &c)); \
  *e = (int3)(a, b, c); return r; } \
float3 OVL modf(float3 x, AS float3 *ip) \
{ float a, b, c; float3 r = (float3)(modf(x.s0, &a), modf(x.s1, &b), modf(x.s2, &c)); \
  *ip = (float3)(a, b, c); return r; } \
float3 OVL fract(float3 x, AS float3 *ip) \
{ float a, b, c; float3 r = (float3)(fract(x.s0, &a), fract(x.s1, &b), fract(x.s2, &c)); \
  *ip = (float3)(a, b, c); return r; } \
float3 OVL remquo(float3 x, float3 y, AS int3 *q) \
{ int a, b, c; float3 r = (float3)(remquo(x.s0, y.s0, &a), remquo(x.s1, y.s1, &b), \
  remquo(x.s2, y.s2, &c)); *q = (int3)(a, b, c); return r; } \
float3 OVL lgamma_r(float3 x, AS int3 *q) \
{ int a, b, c; float3 r = (float3)(lgamma_r(x.s0, &a), lgamma_r(x.s1, &b), \
  lgamma_r(x.s2, &c)); *q = (int3)(a, b, c); return r; }
#define VPS(AS) VP(AS, 2, , ) VP3(AS) VP(AS, 4, 2, ) VP(AS, 8, 4, ) VP(AS, 16, 8, )
VPS(private) VPS(global) VPS(local)
#endif
V2(float, fmin) V2(float, fmax) V2(float, pow) V2(float, min) V2(float, max)
V2(int, min) V2(int, max) V2(uint, min) V2(uint, max)
V3(float, fma) V3(float, mad) V3(float, clamp) V3(int, clamp) V3(float, mix)
/* the forms with scalar second (and third) operands */
#define VS(T, N) \
T##N OVL fmin(T##N x, T y) { return fmin(x, (T##N)(y)); } \
T##N OVL fmax(T##N x, T y) { return fmax(x, (T##N)(y)); } \
T##N OVL min(T##N x, T y) { return min(x, (T##N)(y)); } \
T##N OVL max(T##N x, T y) { return max(x, (T##N)(y)); } \
T##N OVL clamp(T##N x, T lo, T hi) { return clamp(x, (T##N)(lo), (T##N)(hi)); } \
T##N OVL mix(T##N x, T##N y, T a) { return mix(x, y, (T##N)(a)); }
#define VSI(T, N) \
T##N OVL min(T##N x, T y) { return min(x, (T##N)(y)); } \
T##N OVL max(T##N x, T y) { return max(x, (T##N)(y)); } \
T##N OVL clamp(T##N x, T lo, T hi) { return clamp(x, (T##N)(lo), (T##N)(hi)); }
VS(float, 2) VS(float, 3) VS(float, 4) VS(float, 8) VS(float, 16)
VSI(int, 2) VSI(int, 3) VSI(int, 4) VSI(int, 8) VSI(int, 16)

/* ---- common functions (OpenCL C 1.2, 6.12.4) ---- */
float OVL degrees(float r) { return 57.295779513082321f * r; }
float OVL radians(float d) { return 0.017453292519943295f * d; }
float OVL smoothstep(float e0, float e1, float x)
{
	float t = clamp((x - e0) / (e1 - e0), 0.0f, 1.0f);
	return t * t * (3.0f - 2.0f * t);
}
V1(float, float, degrees) V1(float, float, radians) V1(float, float, sign)
V2(float, step) V3(float, smoothstep)
#define VSC(N) \
float##N OVL step(float e, float##N x) { return step((float##N)(e), x); } \
float##N OVL smoothstep(float e0, float e1, float##N x) \
{ return smoothstep((float##N)(e0), (float##N)(e1), x); }
VSC(2) VSC(3) VSC(4) VSC(8) VSC(16)

/* ---- geometric functions (6.12.5): float, float2, float3, float4 ---- */
float OVL dot(float x, float y) { return x * y; }
float OVL dot(float2 x, float2 y) { return __builtin_fmaf(x.s1, y.s1, x.s0 * y.s0); }
float OVL dot(float3 x, float3 y)
{
	return __builtin_fmaf(x.s2, y.s2, __builtin_fmaf(x.s1, y.s1, x.s0 * y.s0));
}
float OVL dot(float4 x, float4 y)
{
	return __builtin_fmaf(x.s3, y.s3, __builtin_fmaf(x.s2, y.s2,
			      __builtin_fmaf(x.s1, y.s1, x.s0 * y.s0)));
}
float3 OVL cross(float3 a, float3 b)
{
	return (float3)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
			a.x * b.y - a.y * b.x);
}
float4 OVL cross(float4 a, float4 b)
{
	return (float4)(cross(a.xyz, b.xyz), 0.0f);
}
/*
 * normalize: zero stays zero; with infinities, those components are +-1
 * and the others +-0 (as OpenCL C 2.0 says); NaN in, NaN out.
 *
 * length: the squares' sum neither overflows nor underflows: the vector
 * is scaled by a power of two (exact) chosen by its largest magnitude m,
 * so that m's square lies within [2^-98, 2^96], then scaled back.
 * normalize divides the vector scaled up, or the vector itself by the
 * scaled length and then scales down, so that no element underflows
 * before the division.
 */
INL float __vmgpu_len_scale(float m)
{
	return m > 0x1p60f ? 0x1p-80f : m < 0x1p-60f ? 0x1p100f : 1.0f;
}
float OVL length(float x) { return __builtin_fabsf(x); }
#define GEO(N, M) \
float OVL length(float##N x) \
{ \
	float##N a = fabs(x); \
	float s = __vmgpu_len_scale(M); \
	x *= s; \
	return __builtin_sqrtf(dot(x, x)) * (1.0f / s); \
} \
float##N OVL normalize(float##N x) \
{ \
	float##N a = fabs(x); \
	float m = M, s = __vmgpu_len_scale(m), l; \
	int##N i = as_int##N(x); \
	float##N y = x * s; \
	if (m == 0.0f) \
		return x; \
	l = __builtin_sqrtf(dot(y, y)); \
	if (m == __builtin_inff() && l == l) \
		return as_float##N((i & (int)0x80000000) | \
				   (((i & 0x7fffffff) == 0x7f800000) & 0x3f800000)); \
	/* scaled down: x's small elements divided before the scaling, \
	 * which then rounds once */ \
	return s < 1.0f ? (x / l) * s : y / l; \
} \
float OVL distance(float##N x, float##N y) { return length(x - y); } \
float OVL fast_length(float##N x) { return length(x); } \
float OVL fast_distance(float##N x, float##N y) { return length(x - y); } \
float##N OVL fast_normalize(float##N x) { return normalize(x); }
GEO(2, fmax(a.s0, a.s1)) GEO(3, fmax(fmax(a.s0, a.s1), a.s2))
GEO(4, fmax(fmax(a.s0, a.s1), fmax(a.s2, a.s3)))
float OVL normalize(float x) { return x == 0.0f || x != x ? x : copysign(1.0f, x); }
float OVL distance(float x, float y) { return __builtin_fabsf(x - y); }
float OVL fast_length(float x) { return __builtin_fabsf(x); }
float OVL fast_distance(float x, float y) { return __builtin_fabsf(x - y); }
float OVL fast_normalize(float x) { return normalize(x); }

/* ---- relational functions (6.12.6): scalars give 1 or 0, vectors -1
 * (all bits set) or 0 per element, as the vector comparisons do ---- */
int OVL isequal(float x, float y) { return x == y; }
int OVL isnotequal(float x, float y) { return x != y; }
int OVL isgreater(float x, float y) { return x > y; }
int OVL isgreaterequal(float x, float y) { return x >= y; }
int OVL isless(float x, float y) { return x < y; }
int OVL islessequal(float x, float y) { return x <= y; }
int OVL islessgreater(float x, float y) { return x < y || x > y; }
#define RELV(N) \
int##N OVL isequal(float##N x, float##N y) { return x == y; } \
int##N OVL isnotequal(float##N x, float##N y) { return x != y; } \
int##N OVL isgreater(float##N x, float##N y) { return x > y; } \
int##N OVL isgreaterequal(float##N x, float##N y) { return x >= y; } \
int##N OVL isless(float##N x, float##N y) { return x < y; } \
int##N OVL islessequal(float##N x, float##N y) { return x <= y; } \
int##N OVL islessgreater(float##N x, float##N y) { return (x < y) | (x > y); } \
int##N OVL isordered(float##N x, float##N y) { return (x == x) & (y == y); } \
int##N OVL isunordered(float##N x, float##N y) { return (x != x) | (y != y); } \
int##N OVL isnan(float##N x) { return x != x; } \
int##N OVL isinf(float##N x) { return (as_int##N(x) & 0x7fffffff) == 0x7f800000; } \
int##N OVL isfinite(float##N x) { return (as_int##N(x) & 0x7fffffff) < 0x7f800000; } \
int##N OVL isnormal(float##N x) \
{ \
	int##N a = as_int##N(x) & 0x7fffffff; \
	return (a >= 0x00800000) & (a < 0x7f800000); \
} \
int##N OVL signbit(float##N x) { return as_int##N(x) < 0; }
RELV(2) RELV(3) RELV(4) RELV(8) RELV(16)

#ifdef __VMGPU_LIB_SELECT	/* built when the program calls them */
/* any, all: the elements' most significant bits */
#define ANYALL(T) \
int OVL any(T x) { return x < 0; } \
int OVL all(T x) { return x < 0; } \
int OVL any(T##2 x) { return (x.s0 | x.s1) < 0; } \
int OVL all(T##2 x) { return (x.s0 & x.s1) < 0; } \
int OVL any(T##3 x) { return (x.s0 | x.s1 | x.s2) < 0; } \
int OVL all(T##3 x) { return (x.s0 & x.s1 & x.s2) < 0; } \
int OVL any(T##4 x) { return any(x.lo | x.hi); } \
int OVL all(T##4 x) { return all(x.lo & x.hi); } \
int OVL any(T##8 x) { return any(x.lo | x.hi); } \
int OVL all(T##8 x) { return all(x.lo & x.hi); } \
int OVL any(T##16 x) { return any(x.lo | x.hi); } \
int OVL all(T##16 x) { return all(x.lo & x.hi); }
ANYALL(char) ANYALL(short) ANYALL(int) ANYALL(long)
/*
 * bitselect: each bit from b where c's is set, else from a; select: a
 * scalar c picks b when not 0, a vector c's elements by their most
 * significant bit. T: the type, I and U: the signed and unsigned
 * integer types of its size (what floats are taken apart as).
 */
#define BSEL(T, U, N) \
T##N OVL bitselect(T##N a, T##N b, T##N c) \
{ return as_##T##N((U##N)((as_##U##N(a) & ~as_##U##N(c)) | (as_##U##N(b) & as_##U##N(c)))); }
#define SELV(T, I, U, N) BSEL(T, U, N) \
T##N OVL select(T##N a, T##N b, I##N c) { return c < (I##N)0 ? b : a; } \
T##N OVL select(T##N a, T##N b, U##N c) { return as_##I##N(c) < (I##N)0 ? b : a; }
#define SEL(T, I, U) BSEL(T, U, ) \
T OVL select(T a, T b, I c) { return c ? b : a; } \
T OVL select(T a, T b, U c) { return c ? b : a; } \
SELV(T, I, U, 2) SELV(T, I, U, 3) SELV(T, I, U, 4) SELV(T, I, U, 8) \
SELV(T, I, U, 16)
SEL(char, char, uchar) SEL(uchar, char, uchar) SEL(short, short, ushort)
SEL(ushort, short, ushort) SEL(int, int, uint) SEL(uint, int, uint)
SEL(long, long, ulong) SEL(ulong, long, ulong) SEL(float, int, uint)
#endif

#ifdef __VMGPU_LIB_SHUFFLE	/* built when the program calls them */
/*
 * shuffle, shuffle2 (6.12.12): element i of the result is the element
 * of x (or of x and y joined) the low bits of mask's element i name:
 * picked by a tree of selects on those bits, never by a variable index
 * into a vector (which the back end cannot split).
 */
#define PICK(T) \
INL OVL T __vmgpu_pick(T##2 x, uint i) { return (i & 1) ? x.s1 : x.s0; } \
INL OVL T __vmgpu_pick(T##4 x, uint i) { return __vmgpu_pick((i & 2) ? x.hi : x.lo, i); } \
INL OVL T __vmgpu_pick(T##8 x, uint i) { return __vmgpu_pick((i & 4) ? x.hi : x.lo, i); } \
INL OVL T __vmgpu_pick(T##16 x, uint i) { return __vmgpu_pick((i & 8) ? x.hi : x.lo, i); }
#define SHUF(T, U, M) \
T##2 OVL shuffle(T##M x, U##2 m) \
{ return (T##2)(__vmgpu_pick(x, (uint)m.s0), __vmgpu_pick(x, (uint)m.s1)); } \
T##4 OVL shuffle(T##M x, U##4 m) { return (T##4)(shuffle(x, m.lo), shuffle(x, m.hi)); } \
T##8 OVL shuffle(T##M x, U##8 m) { return (T##8)(shuffle(x, m.lo), shuffle(x, m.hi)); } \
T##16 OVL shuffle(T##M x, U##16 m) { return (T##16)(shuffle(x, m.lo), shuffle(x, m.hi)); } \
INL OVL T __vmgpu_pick2(T##M x, T##M y, uint i) \
{ return (i & M) ? __vmgpu_pick(y, i) : __vmgpu_pick(x, i); } \
T##2 OVL shuffle2(T##M x, T##M y, U##2 m) \
{ return (T##2)(__vmgpu_pick2(x, y, (uint)m.s0), __vmgpu_pick2(x, y, (uint)m.s1)); } \
T##4 OVL shuffle2(T##M x, T##M y, U##4 m) \
{ return (T##4)(shuffle2(x, y, m.lo), shuffle2(x, y, m.hi)); } \
T##8 OVL shuffle2(T##M x, T##M y, U##8 m) \
{ return (T##8)(shuffle2(x, y, m.lo), shuffle2(x, y, m.hi)); } \
T##16 OVL shuffle2(T##M x, T##M y, U##16 m) \
{ return (T##16)(shuffle2(x, y, m.lo), shuffle2(x, y, m.hi)); }
#define SHUFFLES(T, U) PICK(T) SHUF(T, U, 2) SHUF(T, U, 4) SHUF(T, U, 8) SHUF(T, U, 16)
SHUFFLES(char, uchar) SHUFFLES(uchar, uchar) SHUFFLES(short, ushort)
SHUFFLES(ushort, ushort) SHUFFLES(int, uint) SHUFFLES(uint, uint)
SHUFFLES(long, ulong) SHUFFLES(ulong, ulong) SHUFFLES(float, uint)
#endif

#ifdef __VMGPU_LIB_INTEGER	/* built when the program calls them */
/*
 * The integer functions (6.12.3) the first part lacks: every function
 * for char, uchar, short, ushort (computed in int), abs_diff, rhadd,
 * mad_hi, a saturating mad_sat, upsample, and 64-bit mul_hi; then the
 * vector forms of all of them for every type and width, and the forms
 * with a scalar second (and third) operand.
 */
#define ISMALL(T, UT, W, MIN, MAX) \
T OVL min(T a, T b) { return a < b ? a : b; } \
T OVL max(T a, T b) { return a > b ? a : b; } \
T OVL clamp(T x, T lo, T hi) { return min(max(x, lo), hi); } \
UT OVL abs(T x) { return (UT)(x < 0 ? -x : x); } \
T OVL popcount(T x) { return (T)__builtin_popcount((uint)(UT)x); } \
T OVL clz(T x) { return (T)(x == 0 ? W : __builtin_clz((uint)(UT)x) - (32 - W)); } \
T OVL rotate(T x, T n) \
{ uint s = (uint)(UT)n & (W - 1), u = (UT)x; \
  return s ? (T)(UT)((u << s) | (u >> (W - s))) : x; } \
T OVL add_sat(T a, T b) { int s = (int)a + (int)b; return s < MIN ? MIN : s > MAX ? MAX : s; } \
T OVL sub_sat(T a, T b) { int s = (int)a - (int)b; return s < MIN ? MIN : s > MAX ? MAX : s; } \
T OVL hadd(T a, T b) { return (T)(((int)a + (int)b) >> 1); } \
T OVL mul_hi(T a, T b) { return (T)(((long)a * (long)b) >> W); } \
T OVL mad_sat(T a, T b, T c) \
{ long s = (long)a * (long)b + c; return s < MIN ? MIN : s > MAX ? MAX : s; }
ISMALL(char, uchar, 8, -128, 127) ISMALL(uchar, uchar, 8, 0, 255)
ISMALL(short, ushort, 16, -32768, 32767) ISMALL(ushort, ushort, 16, 0, 65535)
ulong OVL abs(ulong x) { return x; }
ulong OVL clamp(ulong x, ulong lo, ulong hi) { return min(max(x, lo), hi); }
uint OVL mad24(uint a, uint b, uint c) { return a * b + c; }
uint OVL mul24(uint a, uint b) { return a * b; }
/* every type: abs_diff, rhadd, mad_hi */
#define IALL(T, UT) \
UT OVL abs_diff(T a, T b) { return a > b ? (UT)a - (UT)b : (UT)b - (UT)a; } \
T OVL rhadd(T a, T b) { return (a >> 1) + (b >> 1) + ((a | b) & 1); } \
T OVL mad_hi(T a, T b, T c) { return mul_hi(a, b) + c; }
IALL(char, uchar) IALL(uchar, uchar) IALL(short, ushort) IALL(ushort, ushort)
IALL(int, uint) IALL(uint, uint)
/* 64 x 64 -> 128 bits from 32-bit halves */
INL ulong __vmgpu_umulhi64(ulong a, ulong b)
{
	ulong al = (uint)a, ah = a >> 32, bl = (uint)b, bh = b >> 32;
	ulong ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	ulong mid = (ll >> 32) + (uint)lh + (uint)hl;
	return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
ulong OVL mul_hi(ulong a, ulong b) { return __vmgpu_umulhi64(a, b); }
long OVL mul_hi(long a, long b)
{
	ulong h = __vmgpu_umulhi64((ulong)a, (ulong)b);
	/* the signed product's high half: subtract b if a < 0, a if b < 0 */
	return (long)(h - (a < 0 ? (ulong)b : 0) - (b < 0 ? (ulong)a : 0));
}
IALL(long, ulong) IALL(ulong, ulong)
int OVL mad_sat(int a, int b, int c)
{
	long s = (long)a * b + c;
	return s < -2147483648l ? (int)0x80000000 : s > 2147483647l ? 0x7fffffff : (int)s;
}
uint OVL mad_sat(uint a, uint b, uint c)
{
	ulong s = (ulong)a * b + c;
	return s > 0xfffffffful ? 0xffffffffu : (uint)s;
}
ulong OVL mad_sat(ulong a, ulong b, ulong c)
{
	ulong lo = a * b;
	if (__vmgpu_umulhi64(a, b) || lo + c < lo)
		return ~0ul;
	return lo + c;
}
long OVL mad_sat(long a, long b, long c)
{
	/* |a b| as 128 bits, then + c, saturated */
	int neg = (a < 0) != (b < 0);
	ulong ua = a < 0 ? -(ulong)a : (ulong)a, ub = b < 0 ? -(ulong)b : (ulong)b;
	ulong hi = __vmgpu_umulhi64(ua, ub), lo = ua * ub;
	if (neg) {	/* -(hi:lo) */
		lo = -lo;
		hi = ~hi + (lo == 0);
	}
	/* + c, sign-extended */
	ulong l2 = lo + (ulong)c;
	hi += (ulong)(c < 0 ? -1l : 0) + (l2 < lo);
	/* in range iff hi is the sign extension of l2 */
	if ((long)hi == ((long)l2 >> 63))
		return (long)l2;
	return (long)hi < 0 ? (long)0x8000000000000000ul : 0x7fffffffffffffffl;
}
short OVL upsample(char h, uchar l) { return (short)(((ushort)(uchar)h << 8) | l); }
ushort OVL upsample(uchar h, uchar l) { return (ushort)(((ushort)h << 8) | l); }
int OVL upsample(short h, ushort l) { return (int)(((uint)(ushort)h << 16) | l); }
uint OVL upsample(ushort h, ushort l) { return ((uint)h << 16) | l; }
long OVL upsample(int h, uint l) { return (long)(((ulong)(uint)h << 32) | l); }
ulong OVL upsample(uint h, uint l) { return ((ulong)h << 32) | l; }

/* vector forms; V2R: a result type of its own, VUP: upsample's */
#define V2R(R, T, f) \
R##2 OVL f(T##2 x, T##2 y) { return (R##2)(f(x.s0, y.s0), f(x.s1, y.s1)); } \
R##3 OVL f(T##3 x, T##3 y) { return (R##3)(f(x.s0, y.s0), f(x.s1, y.s1), f(x.s2, y.s2)); } \
R##4 OVL f(T##4 x, T##4 y) { return (R##4)(f(x.lo, y.lo), f(x.hi, y.hi)); } \
R##8 OVL f(T##8 x, T##8 y) { return (R##8)(f(x.lo, y.lo), f(x.hi, y.hi)); } \
R##16 OVL f(T##16 x, T##16 y) { return (R##16)(f(x.lo, y.lo), f(x.hi, y.hi)); }
#define VUP(R, T, U) \
R##2 OVL upsample(T##2 x, U##2 y) \
{ return (R##2)(upsample(x.s0, y.s0), upsample(x.s1, y.s1)); } \
R##3 OVL upsample(T##3 x, U##3 y) \
{ return (R##3)(upsample(x.s0, y.s0), upsample(x.s1, y.s1), upsample(x.s2, y.s2)); } \
R##4 OVL upsample(T##4 x, U##4 y) { return (R##4)(upsample(x.lo, y.lo), upsample(x.hi, y.hi)); } \
R##8 OVL upsample(T##8 x, U##8 y) { return (R##8)(upsample(x.lo, y.lo), upsample(x.hi, y.hi)); } \
R##16 OVL upsample(T##16 x, U##16 y) { return (R##16)(upsample(x.lo, y.lo), upsample(x.hi, y.hi)); }
VUP(short, char, uchar) VUP(ushort, uchar, uchar) VUP(int, short, ushort)
VUP(uint, ushort, ushort) VUP(long, int, uint) VUP(ulong, uint, uint)
/* with a scalar second (and third) operand */
#define VSN(T, N) \
T##N OVL min(T##N x, T y) { return min(x, (T##N)(y)); } \
T##N OVL max(T##N x, T y) { return max(x, (T##N)(y)); } \
T##N OVL clamp(T##N x, T lo, T hi) { return clamp(x, (T##N)(lo), (T##N)(hi)); }
#define VSNS(T) VSN(T, 2) VSN(T, 3) VSN(T, 4) VSN(T, 8) VSN(T, 16)
/* the functions of every type; min, max and clamp of int and uint are
 * the first part's */
#define IVEC_(T, UT) \
V1(UT, T, abs) V1(T, T, popcount) V1(T, T, clz) V2(T, rotate) \
V2(T, add_sat) V2(T, sub_sat) V2(T, hadd) V2(T, rhadd) V2(T, mul_hi) \
V2R(UT, T, abs_diff) V3(T, mad_hi) V3(T, mad_sat)
#define IVEC(T, UT) IVEC_(T, UT) V2(T, min) V2(T, max) V3(T, clamp) VSNS(T)
IVEC(char, uchar) IVEC(uchar, uchar) IVEC(short, ushort) IVEC(ushort, ushort)
IVEC_(int, uint) IVEC_(uint, uint) V3(uint, clamp) VSNS(uint)
IVEC(long, ulong) IVEC(ulong, ulong)
V2(int, mul24) V3(int, mad24) V2(uint, mul24) V3(uint, mad24)
#endif
)CLC";

} // namespace vmgpu_cc
