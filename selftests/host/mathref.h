/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How the float math built-ins are measured, shared by their test
 * (test_compiler_math.c) and the library comparison
 * (scripts/bench/libclc-vs-math.c): the error in ULP of a float result
 * against a reference in double precision, and the references C's
 * library lacks. Header only: each user is a program of its own.
 */
#ifndef VMGPU_MATHREF_H
#define VMGPU_MATHREF_H

#include <math.h>

/*
 * |got - ref| in units in the last place of float at ref rounded to
 * float (below 2^-126 the subnormals' 2^-149). A NaN reference wants a
 * NaN; an infinite rounded reference wants that infinity (a finite
 * result is then measured against ref in ULP of float's largest binade).
 * 1e9 stands for "wrong kind of value".
 */
static inline double ulp_error(float got, double ref)
{
	float rf = (float)ref;
	double ulp;

	if (isnan(ref))
		return isnan(got) ? 0 : 1e9;
	if (isnan(got))
		return 1e9;
	if (isinf(rf))
		return got == rf ? 0 : (isinf(got) ? 1e9 : fabs(ref - got) /
					ldexp(1.0, 127 - 23));
	if (fabsf(rf) < 0x1p-126f)
		ulp = 0x1p-149;
	else
		ulp = ldexp(1.0, ilogb(rf) - 23);
	return fabs((double)got - ref) / ulp;
}

static inline double rsqrt_d(double x) { return 1.0 / sqrt(x); }
static inline double atan2pi_d(double y, double x) { return atan2(y, x) / M_PI; }

/* sin(pi x), the argument reduced exactly to [-1/2, 1/2] first: exact
 * zeros where they are */
static inline double sinpi_d(double x)
{
	double t = fmod(x, 2.0);

	if (t > 1)
		t -= 2;
	else if (t < -1)
		t += 2;
	if (t > 0.5)
		t = 1 - t;
	else if (t < -0.5)
		t = -1 - t;
	return sin(M_PI * t);
}

/* cos(pi x) = sin(pi (|x| + 1/2)), |x| reduced mod 2 first (exact) so
 * that adding 1/2 is exact too */
static inline double cospi_d(double x) { return sinpi_d(fmod(fabs(x), 2.0) + 0.5); }
static inline double tanpi_d(double x) { return sinpi_d(x) / cospi_d(x); }

/* the integer argument arrives as a float (y of a two-argument row) */
static inline double ldexp_d(double x, double n) { return ldexp(x, (int)(float)n); }

static inline double rootn_d(double x, double y)
{
	int n = (int)(float)y;

	if (n == 0 || (x < 0 && !(n & 1)))
		return NAN;
	return x < 0 ? -pow(-x, 1.0 / n) : pow(x, 1.0 / n);
}

static inline double maxmag_d(double x, double y)
{
	return fabs(x) > fabs(y) ? x : fabs(y) > fabs(x) ? y : fmax(x, y);
}

static inline double minmag_d(double x, double y)
{
	return fabs(x) < fabs(y) ? x : fabs(y) < fabs(x) ? y : fmin(x, y);
}

#endif /* VMGPU_MATHREF_H */
