// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OpenCL C compiler's common, geometric and relational built-ins,
 * select, bitselect, any, all, shuffle and shuffle2 (OpenCL C 1.2,
 * 6.12.4-6.12.6 and 6.12.12) against C: scalars and every vector width,
 * relationals giving 1/0 as scalars and -1/0 as vectors, and the cases
 * the Khronos CTS found (issue 24).
 */
#include <float.h>
#include <math.h>

#include "testcc.h"
#include "vmgpu/compiler.h"

/* ------------------------------------------------------------------ */
/* Relationals: every function, scalars and widths 2, 3, 4, 8, 16      */
/* ------------------------------------------------------------------ */

#define NREL 14
static const char rel_src[] =
	"#define ST_(n, e, p) vstore##n(e, 0, p);\n"
	"#define ST(n, e, p) ST_(n, e, p)\n"
	"#define F(k, e) ST(N, e, o + (k) * 64 + OFF)\n"
	"#define ALL(a, b) F(0, isequal(a, b)) F(1, isnotequal(a, b))\\\n"
	"	F(2, isgreater(a, b)) F(3, isgreaterequal(a, b)) F(4, isless(a, b))\\\n"
	"	F(5, islessequal(a, b)) F(6, islessgreater(a, b))\\\n"
	"	F(7, isordered(a, b)) F(8, isunordered(a, b)) F(9, isnan(a))\\\n"
	"	F(10, isinf(a)) F(11, isfinite(a)) F(12, isnormal(a)) F(13, signbit(a))\n"
	"kernel void rel(global const float *x, global const float *y,\n"
	"		 global int *o)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i == 0) {\n"
	"#define N 2\n#define OFF 0\n	{ float2 a = vload2(0, x), b = vload2(0, y); ALL(a, b) }\n"
	"#undef N\n#undef OFF\n#define N 3\n#define OFF 2\n"
	"	{ float3 a = vload3(0, x + 2), b = vload3(0, y + 2); ALL(a, b) }\n"
	"#undef N\n#undef OFF\n#define N 4\n#define OFF 5\n"
	"	{ float4 a = vload4(0, x + 5), b = vload4(0, y + 5); ALL(a, b) }\n"
	"#undef N\n#undef OFF\n#define N 8\n#define OFF 9\n"
	"	{ float8 a = vload8(0, x + 9), b = vload8(0, y + 9); ALL(a, b) }\n"
	"#undef N\n#undef OFF\n#define N 16\n#define OFF 17\n"
	"	{ float16 a = vload16(0, x + 17), b = vload16(0, y + 17); ALL(a, b) }\n"
	"#undef N\n#undef OFF\n"
	"	}\n"
	"	if (i >= 33 && i < 64) {\n"
	"#define G(k, e) o[(k) * 64 + i] = e;\n"
	"		float a = x[i], b = y[i];\n"
	"		G(0, isequal(a, b)) G(1, isnotequal(a, b))\n"
	"		G(2, isgreater(a, b)) G(3, isgreaterequal(a, b)) G(4, isless(a, b))\n"
	"		G(5, islessequal(a, b)) G(6, islessgreater(a, b))\n"
	"		G(7, isordered(a, b)) G(8, isunordered(a, b)) G(9, isnan(a))\n"
	"		G(10, isinf(a)) G(11, isfinite(a)) G(12, isnormal(a)) G(13, signbit(a))\n"
	"	}\n"
	"}\n";

static int rel_ref(int k, float a, float b)
{
	switch (k) {
	case 0: return a == b;
	case 1: return a != b;
	case 2: return isgreater(a, b);
	case 3: return isgreaterequal(a, b);
	case 4: return isless(a, b);
	case 5: return islessequal(a, b);
	case 6: return islessgreater(a, b);
	case 7: return !isunordered(a, b);
	case 8: return isunordered(a, b);
	case 9: return isnan(a) != 0;
	case 10: return isinf(a) != 0;
	case 11: return isfinite(a) != 0;
	case 12: return isnormal(a) != 0;
	default: return signbit(a) != 0;
	}
}

TEST_F(cc, relationals_all_widths)
{
	static const float sv[] = {
		0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, -NAN,
		0x1p-149f, -0x1p-140f, 0x1p-126f, -0x1.fffffcp-127f, FLT_MAX,
		-FLT_MAX, 2.5f, 3.0f,
	};
	const int nsv = sizeof(sv) / sizeof(sv[0]);
	struct vmgpu_program *prog = build(_metadata, rel_src, NULL);
	ALLOC(float, x, 64);
	ALLOC(float, y, 64);
	ALLOC(int32_t, o, NREL * 64);
	struct ck c;
	int i, k;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < 64; i++) {	/* every pair comes by */
		x[i] = sv[i % nsv];
		y[i] = sv[(i * 7 + i / nsv) % nsv];
	}
	x[20] = y[20] = 1.0f;
	x[40] = y[40] = NAN;
	memset(o, 0x55, NREL * 64 * sizeof(int32_t));
	load(_metadata, prog, "rel", &c);
	set_u64(&c, 0, x_va);
	set_u64(&c, 1, y_va);
	set_u64(&c, 2, o_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 64, 64));
	for (k = 0; k < NREL; k++)
		for (i = 0; i < 64; i++) {
			int want = rel_ref(k, x[i], y[i]);

			if (i < 33)	/* vectors: -1 for true */
				want = -want;
			if (o[k * 64 + i] != want)
				fprintf(stderr, "# relational %d element %d (%a, %a): %d, want %d\n",
					k, i, x[i], y[i], o[k * 64 + i], want);
			EXPECT_EQ(want, o[k * 64 + i]);
		}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */
/* select, bitselect, any, all                                         */
/* ------------------------------------------------------------------ */

/* (typed loads, not as_typeN of one vector: the back end cannot split
 * every reinterpretation of a vector as one of another element size) */
static const char sel_src[] =
	"#define P(T, p) ((global const T *)(p))\n"
	"#define L(n, T, p) vload##n(0, P(T, p))\n"
	"kernel void sel(global const char *c8, global const char *a8,\n"
	"		 global const char *b8, global long *o)\n"
	"{\n"
	"	char16 c = vload16(0, c8), a = vload16(0, a8), b = vload16(0, b8);\n"
	"	vstore16(select(a, b, c), 0, (global char *)o);\n"
	"	vstore16(select(L(16, uchar, a8), L(16, uchar, b8), L(16, uchar, c8)),\n"
	"		 0, (global uchar *)(o + 2));\n"
	"	vstore4(select(L(4, float, a8), L(4, float, b8), L(4, int, c8)),\n"
	"		0, (global float *)(o + 4));\n"
	"	vstore4(select(L(4, float, a8), L(4, float, b8), L(4, uint, c8)),\n"
	"		0, (global float *)(o + 6));\n"
	"	vstore2(select(L(2, long, a8), L(2, long, b8), L(2, ulong, c8)), 0, o + 8);\n"
	"	vstore3(select(L(3, short, a8), L(3, short, b8), L(3, short, c8)),\n"
	"		0, (global short *)(o + 10));\n"
	"	o[11] = select(a.s0, b.s0, c.s1) + 256 * select(a.s1, b.s1, (char)0x40);\n"
	"	o[12] = as_uint(select(P(float, a8)[0], P(float, b8)[0], (uint)2));\n"
	"	vstore16(bitselect(a, b, c), 0, (global char *)(o + 13));\n"
	"	vstore4(bitselect(L(4, float, a8), L(4, float, b8), L(4, float, c8)),\n"
	"		0, (global float *)(o + 15));\n"
	"	o[17] = bitselect(P(long, a8)[0], P(long, b8)[0], P(long, c8)[0]);\n"
	"	o[18] = any(c.s012) | any(L(8, short, c8)) << 1 | any(L(4, int, c8)) << 2 |\n"
	"		any(L(2, long, c8)) << 3 | any(c) << 4 | any(c.s5) << 5 |\n"
	"		all(c.s012) << 6 | all(L(8, short, c8)) << 7 | all(L(4, int, c8)) << 8 |\n"
	"		all(L(2, long, c8)) << 9 | all(c) << 10 | all(c.s1) << 11 |\n"
	"		all(c.s89) << 12 | any(c.s67) << 13 | all(c.sfe) << 14;\n"
	"}\n";

TEST_F(cc, select_bitselect_any_all)
{
	struct vmgpu_program *prog = build(_metadata, sel_src, NULL);
	ALLOC(int8_t, cm, 16);
	ALLOC(int8_t, a, 16);
	ALLOC(int8_t, b, 16);
	ALLOC(int64_t, o, 20);
	int8_t want8[16];
	uint8_t r[16];
	struct ck c;
	int i, j, bits;

	ASSERT_NE(NULL, prog);
	/* the mask: bytes with and without their top bit, zero and not */
	static const int8_t cv[16] = {
		(int8_t)0x80, 0x7f, 0, (int8_t)0xff, 1, 0, (int8_t)0x90, 0x10,
		(int8_t)0xc0, (int8_t)0x81, 0, 0, 0x40, 0, (int8_t)0xff, (int8_t)0xfe,
	};
	for (i = 0; i < 16; i++) {
		cm[i] = cv[i];
		a[i] = (int8_t)(0x11 * i);
		b[i] = (int8_t)(0xa5 ^ i);
	}
	load(_metadata, prog, "sel", &c);
	set_u64(&c, 0, cm_va);
	set_u64(&c, 1, a_va);
	set_u64(&c, 2, b_va);
	set_u64(&c, 3, o_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 1, 1));
	/* element size n: element i from b when the top bit of its top
	 * byte is set (little-endian: byte n - 1 of it) */
	for (j = 0; j < 5; j++) {
		static const int size[5] = { 1, 1, 4, 4, 8 };
		int n = size[j];

		for (i = 0; i < 16; i++)
			want8[i] = (cm[(i / n) * n + n - 1] < 0 ? b : a)[i];
		memcpy(r, &o[2 * j], 16);
		EXPECT_EQ(0, memcmp(want8, r, 16));
	}
	/* short3: elements 0..2 */
	for (i = 0; i < 6; i++)
		want8[i] = (cm[(i / 2) * 2 + 1] < 0 ? b : a)[i];
	memcpy(r, &o[10], 6);
	EXPECT_EQ(0, memcmp(want8, r, 6));
	/* scalars: any non-zero c picks b */
	EXPECT_EQ(b[0] + 256 * b[1], o[11]);
	{
		uint32_t fb;

		memcpy(&fb, b, 4);
		EXPECT_EQ(fb, (uint32_t)o[12]);
	}
	for (i = 0; i < 16; i++)
		want8[i] = (int8_t)((a[i] & ~cm[i]) | (b[i] & cm[i]));
	memcpy(r, &o[13], 16);
	EXPECT_EQ(0, memcmp(want8, r, 16));
	memcpy(r, &o[15], 16);
	EXPECT_EQ(0, memcmp(want8, r, 16));
	memcpy(r, &o[17], 8);
	EXPECT_EQ(0, memcmp(want8, r, 8));
	/* any, all: the most significant bits */
	{
		int16_t s[8];
		int32_t w[4];
		int64_t l[2];
		int any_s = 0, all_s = 1, any_w = 0, all_w = 1, any_c = 0, all_c = 1;

		memcpy(s, cm, 16);
		memcpy(w, cm, 16);
		memcpy(l, cm, 16);
		for (i = 0; i < 8; i++) {
			any_s |= s[i] < 0;
			all_s &= s[i] < 0;
		}
		for (i = 0; i < 4; i++) {
			any_w |= w[i] < 0;
			all_w &= w[i] < 0;
		}
		for (i = 0; i < 16; i++) {
			any_c |= cm[i] < 0;
			all_c &= cm[i] < 0;
		}
		bits = (cm[0] < 0 || cm[1] < 0 || cm[2] < 0) | any_s << 1 |
		       any_w << 2 | (l[0] < 0 || l[1] < 0) << 3 | any_c << 4 |
		       (cm[5] < 0) << 5 |
		       (cm[0] < 0 && cm[1] < 0 && cm[2] < 0) << 6 | all_s << 7 |
		       all_w << 8 | (l[0] < 0 && l[1] < 0) << 9 | all_c << 10 |
		       (cm[1] < 0) << 11 | (cm[8] < 0 && cm[9] < 0) << 12 |
		       (cm[6] < 0 || cm[7] < 0) << 13 |
		       (cm[15] < 0 && cm[14] < 0) << 14;
		EXPECT_EQ(bits, o[18]);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */
/* shuffle, shuffle2: only the mask's low bits count                    */
/* ------------------------------------------------------------------ */

static const char shuf_src[] =
	"kernel void shuf(global const uint *m, global const int *x,\n"
	"		  global int *o)\n"
	"{\n"
	"	uint16 mk = vload16(0, m);\n"
	"	int16 v = vload16(0, x), w = vload16(1, x);\n"
	"	vstore16(shuffle(v, mk), 0, o);\n"
	"	vstore16(shuffle2(v, w, mk), 1, o);\n"
	"	vstore8(shuffle(v.s0123, mk.s89abcdef), 0, o + 32);\n"
	"	vstore2(shuffle2(v.s01234567, w.s01234567, mk.s9f), 0, o + 40);\n"
	"	vstore4(convert_int4(shuffle(convert_char2(v.s01),\n"
	"		convert_uchar4(mk.s0123))), 0, o + 42);\n"
	"	vstore4(as_int4(shuffle2(as_float2(v.s01), as_float2(w.s01),\n"
	"		mk.s4567)), 0, o + 46);\n"
	"	vstore4(convert_int4(shuffle(convert_long8(v.s01234567),\n"
	"		convert_ulong4(mk.sfedc))), 0, o + 50);\n"
	"}\n";

TEST_F(cc, shuffles)
{
	struct vmgpu_program *prog = build(_metadata, shuf_src, NULL);
	ALLOC(uint32_t, m, 16);
	ALLOC(int32_t, x, 32);
	ALLOC(int32_t, o, 64);
	struct ck c;
	int i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < 16; i++)
		m[i] = (uint32_t)(i * 7 + 3) | (i & 1 ? 0xffffff00u : 0x100u * i);
	for (i = 0; i < 32; i++)
		x[i] = 1000 + i;
	load(_metadata, prog, "shuf", &c);
	set_u64(&c, 0, m_va);
	set_u64(&c, 1, x_va);
	set_u64(&c, 2, o_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 1, 1));
	for (i = 0; i < 16; i++) {
		EXPECT_EQ(x[m[i] & 15], o[i]);
		EXPECT_EQ(x[m[i] & 31], o[16 + i]);
	}
	for (i = 0; i < 8; i++)
		EXPECT_EQ(x[m[8 + i] & 3], o[32 + i]);
	EXPECT_EQ((m[9] & 15) < 8 ? x[m[9] & 7] : x[16 + (m[9] & 7)], o[40]);
	EXPECT_EQ((m[15] & 15) < 8 ? x[m[15] & 7] : x[16 + (m[15] & 7)], o[41]);
	for (i = 0; i < 4; i++) {
		const int32_t f[4] = { x[0], x[1], x[16], x[17] };

		EXPECT_EQ((int8_t)x[(uint8_t)m[i] & 1], o[42 + i]);
		EXPECT_EQ(f[m[4 + i] & 3], o[46 + i]);
		EXPECT_EQ(x[m[15 - i] & 7], o[50 + i]);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */
/* Geometric and common functions                                      */
/* ------------------------------------------------------------------ */

static const char geo_src[] =
	"kernel void geo(global const float *x, global float *o)\n"
	"{\n"
	"	float4 a = vload4(0, x), b = vload4(1, x);\n"
	"	o[0] = length(a); o[1] = length(a.xyz); o[2] = length(a.xy);\n"
	"	o[3] = length(a.x); o[4] = distance(a, b); o[5] = dot(a.xyz, b.xyz);\n"
	"	vstore4(normalize(a), 0, o + 6);\n"
	"	vstore3(normalize(a.xyz), 0, o + 10);\n"
	"	vstore4(cross(a, b), 0, o + 13);\n"
	"	o[17] = fast_length(a); o[18] = fast_distance(a.xy, b.xy);\n"
	"	vstore2(fast_normalize(a.zw), 0, o + 19);\n"
	"	o[21] = normalize(a.x);\n"
	"}\n"
	"kernel void common(global const float *x, global float *o)\n"
	"{\n"
	"	float8 a = vload8(0, x), b = vload8(1, x);\n"
	"	vstore8(smoothstep(-1.0f, 2.0f, a), 0, o);\n"
	"	vstore8(smoothstep(b, b + 3.0f, a), 1, o);\n"
	"	vstore8(step(0.5f, a), 2, o);\n"
	"	vstore8(step(b, a), 3, o);\n"
	"	vstore8(degrees(a), 4, o);\n"
	"	vstore8(radians(a), 5, o);\n"
	"	vstore8(sign(a), 6, o);\n"
	"	vstore3(sign(a.s567), 0, o + 56);\n"
	"}\n";

static double ulps(float got, double want)
{
	float w = (float)want;
	double u;

	if (isnan(want))
		return isnan(got) ? 0 : 1e9;
	if (isinf(w) || isinf(got))
		return got == w ? 0 : 1e9;
	u = fabsf(w) < 0x1p-126f ? 0x1p-149 : ldexp(1.0, ilogb(w) - 23);
	return fabs(got - want) / u;
}

static void geo_ref(const float *a, const float *b, double *r)
{
	double l4 = 0, l3 = 0, l2 = 0, d = 0, m;
	int i;

	for (i = 0; i < 4; i++) {
		l4 += (double)a[i] * a[i];
		d += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
	}
	l2 = (double)a[0] * a[0] + (double)a[1] * a[1];
	l3 = l2 + (double)a[2] * a[2];
	r[0] = sqrt(l4);
	r[1] = sqrt(l3);
	r[2] = sqrt(l2);
	r[3] = fabs(a[0]);
	r[4] = sqrt(d);
	r[5] = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
	for (i = 0; i < 4; i++)
		r[6 + i] = r[0] ? a[i] / r[0] : a[i];
	for (i = 0; i < 3; i++)
		r[10 + i] = r[1] ? a[i] / r[1] : a[i];
	r[13] = (double)a[1] * b[2] - (double)a[2] * b[1];
	r[14] = (double)a[2] * b[0] - (double)a[0] * b[2];
	r[15] = (double)a[0] * b[1] - (double)a[1] * b[0];
	r[16] = 0;
	r[17] = r[0];
	r[18] = sqrt(((double)a[0] - b[0]) * ((double)a[0] - b[0]) +
		     ((double)a[1] - b[1]) * ((double)a[1] - b[1]));
	m = sqrt((double)a[2] * a[2] + (double)a[3] * a[3]);
	r[19] = m ? a[2] / m : a[2];
	r[20] = m ? a[3] / m : a[3];
	r[21] = a[0] ? copysign(1.0, a[0]) : a[0];
}

TEST_F(cc, geometric_range_and_specials)
{
	/* a, b: huge (the squares overflow), tiny (they underflow), the
	 * CTS's normalize cases, ordinary ones */
	static const float cases[][8] = {
		{ 3e30f, -4e30f, 0, 1e-30f, 1, 2, 3, 4 },
		{ 3e-30f, 4e-30f, -1e-40f, 0, 1e-30f, 0, 0, 1e-30f },
		{ 0x1.b18dd2p+71f, -0x1.1172b2p+37f, -0x1.096322p-59f, 0, 1, 1, 1, 1 },
		{ 0x1.e39d1cp-90f, 0x1.245e08p-81f, -0x1.0cbcd6p-113f, -0x1.937376p+60f,
		  -1, 0.5f, 2, 0 },
		{ 1.5f, -2.25f, 0.125f, 7, -3, 8.5f, 0.75f, -1 },
		{ 0x1p-149f, 0x1p-149f, 0x1p-148f, -0x1p-149f, 0, 0, 0, 0 },
		{ FLT_MAX, FLT_MAX, -FLT_MAX, 1, 1, -1, 0, 0 },
	};
	struct vmgpu_program *prog = build(_metadata, geo_src, NULL);
	ALLOC(float, x, 8);
	ALLOC(float, o, 24);
	unsigned int k;
	struct ck c;
	int i;

	ASSERT_NE(NULL, prog);
	load(_metadata, prog, "geo", &c);
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		double r[22];

		memcpy(x, cases[k], sizeof(cases[k]));
		set_u64(&c, 0, x_va);
		set_u64(&c, 1, o_va);
		ASSERT_EQ(0, run1d(self->tm, &c, 1, 1));
		geo_ref(cases[k], cases[k] + 4, r);
		for (i = 0; i < 22; i++) {
			/* dot and cross: within a few ulp of the largest
			 * product (cancellation), the rest within 3 ulp */
			double e = ulps(o[i], r[i]);

			if (i == 5 || (i >= 13 && i < 16)) {
				if (isinf(o[i]) && isinf((float)r[i]) && o[i] == (float)r[i])
					continue;
				e = fabs(o[i] - r[i]) / fmax(0x1p-149, ldexp(1.0, -23) *
				    (fabs(cases[k][0] * cases[k][4]) +
				     fabs(cases[k][1] * cases[k][5]) + fabs(cases[k][2] * cases[k][6]) +
				     fabs(cases[k][1] * cases[k][6]) + fabs(cases[k][2] * cases[k][4]) +
				     fabs(cases[k][0] * cases[k][5]) + fabs(cases[k][0] * cases[k][6]) +
				     fabs(cases[k][1] * cases[k][4]) + fabs(cases[k][2] * cases[k][5])));
			}
			if (e > 3)
				fprintf(stderr, "# geometric case %u result %d: %a, want %a (%.1f ulp)\n",
					k, i, o[i], r[i], e);
			EXPECT_LE(e, 3);
		}
	}
	vg_kernel_free(c.k);

	/* normalize with infinities: +-1 there, +-0 elsewhere; zero stays */
	{
		static const float in[8] = { INFINITY, -2, -INFINITY, 0, 0, -0.0f, 0, 0 };
		static const float want[4] = { 1, -0.0f, -1, 0 };

		memcpy(x, in, sizeof(in));
		load(_metadata, prog, "geo", &c);
		set_u64(&c, 0, x_va);
		set_u64(&c, 1, o_va);
		ASSERT_EQ(0, run1d(self->tm, &c, 1, 1));
		EXPECT_EQ(0, memcmp(want, o + 6, sizeof(want)));
		EXPECT_EQ(INFINITY, o[0]);
		EXPECT_EQ(-1.0f, o[19]);	/* fast_normalize(-inf, 0) */
		EXPECT_EQ(0.0f, o[20]);
		EXPECT_EQ(1.0f, o[21]);		/* normalize(inf) */
		vg_kernel_free(c.k);
	}
	vmgpu_program_destroy(prog);
}

TEST_F(cc, common_functions)
{
	struct vmgpu_program *prog = build(_metadata, geo_src, NULL);
	ALLOC(float, x, 16);
	ALLOC(float, o, 64);
	struct ck c;
	int i;

	ASSERT_NE(NULL, prog);
	static const float in[16] = {
		-3, -1, -0.0f, 0.25f, 0.5f, 1.75f, 2, NAN,
		-4, -2, 0, 0, 0.5f, 1, 1, 2,
	};
	memcpy(x, in, sizeof(in));
	load(_metadata, prog, "common", &c);
	set_u64(&c, 0, x_va);
	set_u64(&c, 1, o_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 1, 1));
	for (i = 0; i < 8; i++) {
		double a = x[i], b = x[8 + i], t, want[7];
		int k;

		t = (a + 1) / 3;
		t = t < 0 ? 0 : t > 1 ? 1 : t;
		want[0] = t * t * (3 - 2 * t);
		t = (a - b) / 3;
		t = t < 0 ? 0 : t > 1 ? 1 : t;
		want[1] = t * t * (3 - 2 * t);
		want[2] = a < 0.5 ? 0 : 1;
		want[3] = a < b ? 0 : 1;
		want[4] = a * (180 / M_PI);
		want[5] = a * (M_PI / 180);
		want[6] = a > 0 ? 1 : a < 0 ? -1 : a == 0 ? a : 0;	/* NaN: 0 */
		for (k = 0; k < 7; k++) {
			double e;

			if (isnan(a) && k != 3 && k != 2 && k != 6) {
				EXPECT_TRUE(isnan(o[k * 8 + i]) || k < 2);
				continue;
			}
			e = ulps(o[k * 8 + i], want[k]);
			if (e > 2)
				fprintf(stderr, "# common %d of %a, %a: %a, want %a\n",
					k, a, b, o[k * 8 + i], want[k]);
			EXPECT_LE(e, 2);
		}
	}
	EXPECT_EQ(0, memcmp(&o[6 * 8 + 5], &o[56], 3 * sizeof(float)));
	EXPECT_TRUE(signbit(o[6 * 8 + 2]));	/* sign(-0) = -0 */
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */
/* Integer functions (6.12.3): every type, against C on edge values    */
/* ------------------------------------------------------------------ */

#define NIF 15
static const char int_src[] =
	"#define K(T) kernel void k_##T(global const T *a, global const T *b,\\\n"
	"	global const T *c, global T *o)\\\n"
	"{\\\n"
	"	int g = get_global_id(0), i = g / 16, j = g % 16;\\\n"
	"	T x = a[i], y = b[j], z = c[(i + j) % 16];\\\n"
	"	o[g] = add_sat(x, y); o[256 + g] = sub_sat(x, y);\\\n"
	"	o[512 + g] = hadd(x, y); o[768 + g] = rhadd(x, y);\\\n"
	"	o[1024 + g] = mul_hi(x, y); o[1280 + g] = mad_hi(x, y, z);\\\n"
	"	o[1536 + g] = mad_sat(x, y, z); o[1792 + g] = abs_diff(x, y);\\\n"
	"	o[2048 + g] = abs(x); o[2304 + g] = clz(x); o[2560 + g] = popcount(x);\\\n"
	"	o[2816 + g] = rotate(x, y); o[3072 + g] = min(x, y);\\\n"
	"	o[3328 + g] = max(x, y); o[3584 + g] = clamp(x, min(y, z), max(y, z));\\\n"
	"}\n"
	"K(char) K(uchar) K(short) K(ushort) K(int) K(uint) K(long) K(ulong)\n"
	"#define V(T, N) kernel void v_##T(global const T *a, global const T *b,\\\n"
	"	global const T *c, global T *o)\\\n"
	"{\\\n"
	"	int g = get_global_id(0) * N, i = g / 16, j = g % 16;\\\n"
	"	T##N x = (T##N)(a[i]), y = vload##N(0, b + j), z;\\\n"
	"	for (int k = 0; k < N; k++) ((T *)&z)[k] = c[(i + j + k) % 16];\\\n"
	"	vstore##N(add_sat(x, y), 0, o + g); vstore##N(sub_sat(x, y), 0, o + 256 + g);\\\n"
	"	vstore##N(hadd(x, y), 0, o + 512 + g); vstore##N(rhadd(x, y), 0, o + 768 + g);\\\n"
	"	vstore##N(mul_hi(x, y), 0, o + 1024 + g);\\\n"
	"	vstore##N(mad_hi(x, y, z), 0, o + 1280 + g);\\\n"
	"	vstore##N(mad_sat(x, y, z), 0, o + 1536 + g);\\\n"
	"	vstore##N(as_##T##N(abs_diff(x, y)), 0, o + 1792 + g);\\\n"
	"	vstore##N(as_##T##N(abs(x)), 0, o + 2048 + g);\\\n"
	"	vstore##N(clz(x), 0, o + 2304 + g); vstore##N(popcount(x), 0, o + 2560 + g);\\\n"
	"	vstore##N(rotate(x, y), 0, o + 2816 + g); vstore##N(min(x, y), 0, o + 3072 + g);\\\n"
	"	vstore##N(max(x, a[i]), 0, o + 3328 + g);\\\n"
	"	vstore##N(clamp(x, min(y, z), max(y, z)), 0, o + 3584 + g);\\\n"
	"}\n"
	"V(char, 16) V(uchar, 2) V(short, 8) V(ushort, 4) V(int, 4) V(uint, 2)\n"
	"V(long, 2) V(ulong, 16)\n"
	"kernel void up(global const char *a, global const uchar *b, global short *s,\n"
	"	global int *i, global long *l, global ulong *u)\n"
	"{\n"
	"	int g = get_global_id(0);\n"
	"	s[g] = upsample(a[g], b[g]);\n"
	"	i[g] = upsample((short)s[g], (ushort)s[15 - g]);\n"
	"	l[g] = upsample(i[g], (uint)i[(g + 3) % 16]);\n"
	"	u[g] = upsample((uint)i[g], (uint)g);\n"
	"	vstore4(upsample(vload4(0, s + (g & 12)), vload4(0, (global const ushort *)s)),\n"
	"		0, i + 16 + (g & 12));\n"
	"}\n";

TEST_F(cc, integer_functions_every_type)
{
	static const struct itype types[] = {
		{ "char", 1, 1, 16 }, { "uchar", 1, 0, 2 }, { "short", 2, 1, 8 },
		{ "ushort", 2, 0, 4 }, { "int", 4, 1, 4 }, { "uint", 4, 0, 2 },
		{ "long", 8, 1, 2 }, { "ulong", 8, 0, 16 },
	};
	static const int64_t ev[16] = {
		0, 1, -1, 2, -2, 3, 0x7f, -0x80, 0x7fff, -0x8000, 0x7fffffff,
		-0x7fffffff - 1, 0x7fffffffffffffffll, (int64_t)0x8000000000000000ull,
		0x123456789abcdefll, -0x5a5a5a5a5a5a5all,
	};
	struct vmgpu_program *prog = build(_metadata, int_src, NULL);
	ALLOC(uint8_t, a, 16 * 8);
	ALLOC(uint8_t, b, 16 * 8);
	ALLOC(uint8_t, cz, 16 * 8);
	ALLOC(uint8_t, o, NIF * 256 * 8);
	ALLOC(uint8_t, ov, NIF * 256 * 8);
	char name[16];
	unsigned int ti;
	struct ck c;
	int i, f;

	ASSERT_NE(NULL, prog);
	for (ti = 0; ti < sizeof(types) / sizeof(types[0]); ti++) {
		const struct itype *t = &types[ti];
		int w = t->bytes * 8, bad = 0;

		for (i = 0; i < 16; i++) {
			int64_t vb = ev[(i * 5 + 3) % 16], vc = ev[(i * 7 + 1) % 16];

			memcpy(a + i * t->bytes, &ev[i], t->bytes);
			memcpy(b + i * t->bytes, &vb, t->bytes);
			memcpy(cz + i * t->bytes, &vc, t->bytes);
		}
		snprintf(name, sizeof(name), "k_%s", t->name);
		load(_metadata, prog, name, &c);
		set_u64(&c, 0, a_va);
		set_u64(&c, 1, b_va);
		set_u64(&c, 2, cz_va);
		set_u64(&c, 3, o_va);
		ASSERT_EQ(0, run1d(self->tm, &c, 256, 64));
		vg_kernel_free(c.k);
		for (f = 0; f < NIF; f++)
			for (i = 0; i < 256; i++) {
				__int128 x = get_int(a, i / 16, t), y = get_int(b, i % 16, t),
					 z = get_int(cz, (i / 16 + i % 16) % 16, t);
				__int128 want = int_wrap(int_ref(f, x, y, z, w, t->sgn), w, t->sgn),
					 got = get_int(o, f * 256 + i, t);

				if (got != want && bad++ < 8)
					fprintf(stderr, "# %s function %d (%lld, %lld, %lld): %lld, want %lld\n",
						t->name, f, (long long)x, (long long)y,
						(long long)z, (long long)got, (long long)want);
				EXPECT_TRUE(got == want);
			}
		/* the vector forms: the scalars' results (max against x) */
		snprintf(name, sizeof(name), "v_%s", t->name);
		load(_metadata, prog, name, &c);
		set_u64(&c, 0, a_va);
		set_u64(&c, 1, b_va);
		set_u64(&c, 2, cz_va);
		set_u64(&c, 3, ov_va);
		ASSERT_EQ(0, run1d(self->tm, &c, 256 / t->vec, 256 / t->vec));
		vg_kernel_free(c.k);
		for (f = 0; f < NIF; f++) {
			if (f == 13)
				continue;
			for (i = 0; i < 256; i++) {
				__int128 x = get_int(a, i / 16, t), y = get_int(b, i % 16, t),
					 z = get_int(cz, (i / 16 + i % 16) % 16, t);
				__int128 want = int_wrap(int_ref(f, x, y, z, w, t->sgn), w, t->sgn);

				if (get_int(ov, f * 256 + i, t) != want && bad++ < 16)
					fprintf(stderr, "# %s%d function %d element %d: %lld, want %lld\n",
						t->name, t->vec, f, i,
						(long long)get_int(ov, f * 256 + i, t), (long long)want);
				EXPECT_TRUE(get_int(ov, f * 256 + i, t) == want);
			}
		}
	}
	vmgpu_program_destroy(prog);
}

TEST_F(cc, integer_upsample)
{
	struct vmgpu_program *prog = build(_metadata, int_src, NULL);
	ALLOC(int8_t, a, 16);
	ALLOC(uint8_t, b, 16);
	ALLOC(int16_t, s, 16);
	ALLOC(int32_t, iv, 32);
	ALLOC(int64_t, l, 16);
	ALLOC(uint64_t, u, 16);
	struct ck c;
	int g;

	ASSERT_NE(NULL, prog);
	for (g = 0; g < 16; g++) {
		a[g] = (int8_t)(0x93 * g + 0x80);
		b[g] = (uint8_t)(0x5b * g + 7);
	}
	load(_metadata, prog, "up", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, b_va);
	set_u64(&c, 2, s_va);
	set_u64(&c, 3, iv_va);
	set_u64(&c, 4, l_va);
	set_u64(&c, 5, u_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 16, 16));
	for (g = 0; g < 16; g++) {
		int16_t ws = (int16_t)((uint16_t)(uint8_t)a[g] << 8 | b[g]);
		int32_t wi = (int32_t)((uint32_t)(uint16_t)s[g] << 16 | (uint16_t)s[15 - g]);

		EXPECT_EQ(ws, s[g]);
		EXPECT_EQ(wi, iv[g]);
		EXPECT_EQ((int64_t)((uint64_t)(uint32_t)iv[g] << 32 | (uint32_t)iv[(g + 3) % 16]), l[g]);
		EXPECT_EQ((uint64_t)(uint32_t)iv[g] << 32 | (uint32_t)g, u[g]);
		EXPECT_EQ((int32_t)((uint32_t)(uint16_t)s[(g & 12) + (g & 3)] << 16 |
				    (uint16_t)s[g & 3]), iv[16 + g]);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

TEST_HARNESS_MAIN
