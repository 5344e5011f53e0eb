// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OpenCL C compiler's conversions with _sat and rounding modes
 * (OpenCL C 1.2, 6.2.3): convert_<D>4<M> for every destination type D,
 * source type S and suffix M, on edge values of S (each type's bounds
 * and their neighbours, NaN, infinities, halves, values that float
 * cannot hold exactly), run through the interpreter and compared with a
 * C reference: integers rounded as the mode says (toward zero without
 * one), _sat clamping and taking NaN to 0; to float exact, or rounded as
 * the mode says (the reference rounds in long double with fesetround).
 * Without _sat a float out of the destination's range is undefined in
 * OpenCL C: not compared.
 */
#include <fenv.h>
#include <math.h>

#include "testcc.h"
#include "vmgpu/compiler.h"

enum { T_CHAR, T_UCHAR, T_SHORT, T_USHORT, T_INT, T_UINT, T_LONG, T_ULONG,
       T_FLOAT, NT };
static const char *const tname[NT] = {
	"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
	"float",
};
static const unsigned tsize[NT] = { 1, 1, 2, 2, 4, 4, 8, 8, 4 };
static const char *const suffix[] = {
	"_sat", "_rte", "_rtz", "_rtp", "_rtn", "_sat_rte", "_sat_rtz",
	"_sat_rtp", "_sat_rtn",
};
#define NSUF (sizeof(suffix) / sizeof(suffix[0]))
#define NV 96		/* values per source type, a multiple of 4 */

static long double tmin(int t)
{
	switch (t) {
	case T_CHAR: return -128;
	case T_SHORT: return -32768;
	case T_INT: return -2147483648.0L;
	case T_LONG: return -9223372036854775808.0L;
	default: return 0;
	}
}

static long double tmax(int t)
{
	switch (t) {
	case T_CHAR: return 127;
	case T_UCHAR: return 255;
	case T_SHORT: return 32767;
	case T_USHORT: return 65535;
	case T_INT: return 2147483647.0L;
	case T_UINT: return 4294967295.0L;
	case T_LONG: return 9223372036854775807.0L;
	default: return 18446744073709551615.0L;
	}
}

static int is_signed(int t)
{
	return t == T_CHAR || t == T_SHORT || t == T_INT || t == T_LONG;
}

/* the value of element i of an array of type t, exactly */
static long double get(int t, const void *p, int i)
{
	switch (t) {
	case T_CHAR: return ((const int8_t *)p)[i];
	case T_UCHAR: return ((const uint8_t *)p)[i];
	case T_SHORT: return ((const int16_t *)p)[i];
	case T_USHORT: return ((const uint16_t *)p)[i];
	case T_INT: return ((const int32_t *)p)[i];
	case T_UINT: return ((const uint32_t *)p)[i];
	case T_LONG: return ((const int64_t *)p)[i];
	case T_ULONG: return ((const uint64_t *)p)[i];
	default: return ((const float *)p)[i];
	}
}

/* an integer value into t's bytes (wrapping), as OpenCL's plain
 * conversion between integers */
static uint64_t wrap(long double v)
{
	if (v < 0)
		return (uint64_t)(int64_t)v;
	return (uint64_t)v;
}

static void fill(int t, void *p)
{
	static const double iedge[] = {
		0, 1, -1, 2, -2, 126, 127, 128, 129, -127, -128, -129, 254, 255,
		256, 32766, 32767, 32768, -32767, -32768, -32769, 65535, 65536,
		16777217, 16777219, -16777219, 2147483647.0, 2147483648.0,
		-2147483647.0, -2147483648.0, -2147483649.0, 4294967295.0,
		4294967296.0,
	};
	static const float fedge[] = {
		0.0f, -0.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 0.49999997f,
		-0.49999997f, 126.5f, 127.5f, 127.99f, 128.0f, -128.5f, -128.99f,
		-129.0f, 255.5f, 256.0f, 32767.5f, -32768.5f, 65535.5f, 65536.0f,
		2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f,
		4294967040.0f, 4294967296.0f, 9223371487098961920.0f,
		9223372036854775808.0f, -9223372036854775808.0f,
		-9223373136366403584.0f, 18446742974197923840.0f,
		18446744073709551616.0f, 1e30f, -1e30f, 1e-40f, -1e-40f,
		16777217.0f, 8388607.5f, -8388607.5f,
	};
	unsigned i, n = 0;

	for (i = 0; i < NV; i++) {
		uint64_t r = (uint64_t)rng() << 32 | rng();
		long double v;

		if (t == T_FLOAT) {
			float f;

			if (i < sizeof(fedge) / sizeof(fedge[0]))
				f = fedge[i];
			else if (i == 60)
				f = NAN;
			else if (i == 61)
				f = INFINITY;
			else if (i == 62)
				f = -INFINITY;
			else if (i == 63)
				f = -NAN;
			else	/* any magnitude, halves often */
				f = ldexpf((float)(int32_t)rng() / 2147483648.0f,
					   (int)(rng() % 70)) * ((i & 1) ? 1 : -1);
			((float *)p)[i] = f;
			continue;
		}
		if (i < sizeof(iedge) / sizeof(iedge[0]))
			v = iedge[n++];
		else if (i < 40)	/* the type's bounds and neighbours */
			v = (i & 1 ? tmax(t) : tmin(t)) + (long double)((int)(i % 6) - 2) / 2;
		else if (i < 64)	/* near powers of two: rounding to float */
			v = ldexpl(1, 24 + (int)(rng() % 40)) + (long double)(rng() % 5) - 2;
		else
			v = (long double)(t >= T_LONG ? r : (uint64_t)(int32_t)r);
		v = floorl(v);
		if (!is_signed(t) && v < 0)
			v = -v;
		/* in the type: the C conversion, wrapping */
		switch (tsize[t]) {
		case 1: ((uint8_t *)p)[i] = (uint8_t)wrap(v); break;
		case 2: ((uint16_t *)p)[i] = (uint16_t)wrap(fmodl(v, 18446744073709551616.0L)); break;
		case 4: ((uint32_t *)p)[i] = (uint32_t)wrap(fmodl(v, 18446744073709551616.0L)); break;
		default:
			((uint64_t *)p)[i] = v >= 18446744073709551616.0L ? ~0ull :
					     wrap(v);
		}
	}
}

static long double round_mode(long double v, const char *m)
{
	if (strstr(m, "_rte"))
		return nearbyintl(v);
	if (strstr(m, "_rtp"))
		return ceill(v);
	if (strstr(m, "_rtn"))
		return floorl(v);
	return truncl(v);
}

/* the expected bits of convert_<d><m>(x) of value v; 0 if undefined */
static int expect(int d, int s, const char *m, long double v, uint64_t *bits)
{
	int sat = strstr(m, "_sat") != NULL;

	if (d == T_FLOAT) {
		volatile long double vv = v;
		volatile float f;
		uint32_t u;
		int mode = strstr(m, "_rtz") ? FE_TOWARDZERO :
			   strstr(m, "_rtp") ? FE_UPWARD :
			   strstr(m, "_rtn") ? FE_DOWNWARD : FE_TONEAREST;

		fesetround(mode);
		f = (float)vv;
		fesetround(FE_TONEAREST);
		memcpy(&u, (const float *)&f, 4);
		*bits = u;
		return 1;
	}
	if (isnan(v)) {
		*bits = 0;
		return sat;
	}
	if (s == T_FLOAT)
		v = round_mode(v, m);
	if (v < tmin(d) || v > tmax(d)) {
		if (!sat) {
			if (s == T_FLOAT)
				return 0;	/* undefined */
			*bits = wrap(v);
			return 1;
		}
		v = v < tmin(d) ? tmin(d) : tmax(d);
	}
	*bits = wrap(v);
	return 1;
}

static uint64_t got_bits(int d, const void *p, int i)
{
	switch (tsize[d]) {
	case 1: return ((const uint8_t *)p)[i];
	case 2: return ((const uint16_t *)p)[i];
	case 4: return ((const uint32_t *)p)[i];
	default: return ((const uint64_t *)p)[i];
	}
}

TEST_F(cc, convert_sat_and_rounding_modes)
{
	char *src = malloc(256 * 1024), *at = src;
	struct vmgpu_program *prog;
	unsigned d, s, k, checked = 0, bad = 0;
	ALLOC(uint64_t, in, NV);
	ALLOC(uint64_t, out, NV);

	ASSERT_NE(NULL, src);
	at += sprintf(at, "#define K(D, S, M) kernel void k_##D##_##S##M(global const S *x,"
		      " global D *o, int n) { int i = get_global_id(0);"
		      " if (i < n / 4) vstore4(convert_##D##4##M(vload4(i, x)), i, o); }\n");
	for (d = 0; d < NT; d++)
		for (s = 0; s < NT; s++)
			for (k = 0; k < NSUF; k++)
				if (d != T_FLOAT || !strstr(suffix[k], "_sat"))
					at += sprintf(at, "K(%s, %s, %s)\n", tname[d],
						      tname[s], suffix[k]);
	prog = build(_metadata, src, NULL);
	ASSERT_NE(NULL, prog);
	for (s = 0; s < NT; s++) {
		fill(s, in);
		for (d = 0; d < NT; d++)
			for (k = 0; k < NSUF; k++) {
				char name[64];
				struct ck c;
				unsigned i;

				if (d == T_FLOAT && strstr(suffix[k], "_sat"))
					continue;
				snprintf(name, sizeof(name), "k_%s_%s%s", tname[d],
					 tname[s], suffix[k]);
				memset(out, 0xa5, NV * 8);
				load(_metadata, prog, name, &c);
				set_u64(&c, 0, in_va);
				set_u64(&c, 1, out_va);
				set_u32(&c, 2, NV);
				ASSERT_EQ(0, run1d(self->tm, &c, NV / 4, 32));
				for (i = 0; i < NV; i++) {
					long double v = get(s, in, i);
					uint64_t want, got = got_bits(d, out, i);

					if (!expect(d, s, suffix[k], v, &want))
						continue;
					if (tsize[d] < 8)
						want &= (1ull << (8 * tsize[d])) - 1;
					if (d == T_FLOAT && isnan(v) && isnan(get(d, out, i)))
						got = want;
					checked++;
					if (got != want && bad++ < 20)
						fprintf(stderr, "# %s(%.21Lg): %#llx, want %#llx\n",
							name, v, (unsigned long long)got,
							(unsigned long long)want);
				}
				vg_kernel_free(c.k);
			}
	}
	fprintf(stderr, "# %u conversions compared\n", checked);
	EXPECT_EQ(0, bad);
	vmgpu_program_destroy(prog);
	free(src);
}

/* The plain conversions and the other widths use the same scalar ones:
 * every width of one pair, and a kernel without the suffixes unchanged
 * by them (the section is built only when called). */
static const char widths_src[] =
	"kernel void w(global const float *x, global int *o)\n"
	"{\n"
	"	vstore2(convert_int2_sat_rtp(vload2(0, x)), 0, o);\n"
	"	vstore3(convert_int3_sat_rtn(vload3(0, x + 2)), 0, o + 2);\n"
	"	vstore8(convert_int8_sat(vload8(0, x + 5)), 0, o + 5);\n"
	"	vstore16(convert_int16_rte(vload16(0, x + 13)), 0, o + 13);\n"
	"	o[29] = convert_int_sat_rte(x[29]);\n"
	"	o[30] = convert_int(convert_float_rtz(0x7fffffc1));\n"
	"	o[31] = convert_int(convert_float_rtp(0x7fffff81) - 2147483648.0f);\n"
	"}\n";

TEST_F(cc, convert_every_width)
{
	struct vmgpu_program *prog = build(_metadata, widths_src, NULL);
	ALLOC(float, x, 32);
	ALLOC(int32_t, o, 32);
	struct ck c;
	int i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < 32; i++)
		x[i] = (i & 1 ? -1.0f : 1.0f) * (float)i * 0.75f;
	x[5] = 3e9f;
	x[6] = -3e9f;
	x[7] = NAN;
	load(_metadata, prog, "w", &c);
	set_u64(&c, 0, x_va);
	set_u64(&c, 1, o_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 1, 1));
	for (i = 0; i < 29; i++) {
		float r = i < 2 ? ceilf(x[i]) : i < 5 ? floorf(x[i]) :
			  i < 13 ? truncf(x[i]) : nearbyintf(x[i]);
		int32_t want = isnan(r) ? 0 : r >= 2147483648.0f ? INT32_MAX :
			       r <= -2147483648.0f ? INT32_MIN : (int32_t)r;

		EXPECT_EQ(want, o[i]) TH_LOG("o[%d] of %g", i, x[i]);
	}
	EXPECT_EQ((int32_t)nearbyintf(x[29]), o[29]);
	/* 0x7fffffc1 toward zero: 0x7fffff80; 0x7fffff81 up: 2^31 */
	EXPECT_EQ(0x7fffff80, o[30]);
	EXPECT_EQ(0, o[31]);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */
/* half as storage: vload_half of every bit pattern, vstore_half in every
 * rounding mode against a reference that searches the halves, and the
 * vector and aligned forms over global and private memory (the
 * references half_value() and half_round() in testcc.h) */
static const char half_src[] =
	"kernel void hl(global const half *h, global float *o)\n"
	"{ int i = get_global_id(0); o[i] = vload_half(i, h); }\n"
	"kernel void hs(global const float *x, global half *o, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i >= n) return;\n"
	"	vstore_half(x[i], i, o);\n"
	"	vstore_half_rte(x[i], i + n, o);\n"
	"	vstore_half_rtz(x[i], i + 2 * n, o);\n"
	"	vstore_half_rtp(x[i], i + 3 * n, o);\n"
	"	vstore_half_rtn(x[i], i + 4 * n, o);\n"
	"}\n"
	"kernel void hv(global const half *h, global half *o)\n"
	"{\n"
	"	ushort p[16];\n"
	"	vstore_half16_rtz(vload_half16(0, h), 0, o);\n"
	"	vstorea_half3_rtp(vloada_half3(5, h), 5, o);\n"
	"	vstore_half3_rtn(vload_half3(8, h), 8, o);\n"
	"	vstore_half2(vload_half2(14, h), 14, o);\n"
	"	vstorea_half4_rte(vloada_half4(8, h), 8, o);\n"
	"	vstore_half8(vload_half8(1, h), 0, (half *)p);\n"
	"	vstorea_half8_rtn(vloada_half8(0, (const half *)p), 5, o);\n"
	"}\n";

TEST_F(cc, half_loads_and_stores)
{
	const uint32_t nx = 4096;
	struct vmgpu_program *prog = build(_metadata, half_src, NULL);
	ALLOC(uint16_t, h, 65536);
	ALLOC(float, f, 65536);
	ALLOC(float, x, nx);
	ALLOC(uint16_t, o, 5 * nx);
	unsigned i, m, bad = 0;
	struct ck c;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < 65536; i++)
		h[i] = (uint16_t)i;
	load(_metadata, prog, "hl", &c);
	set_u64(&c, 0, h_va);
	set_u64(&c, 1, f_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 65536, 128));
	for (i = 0; i < 65536; i++) {
		double want = half_value((uint16_t)i);

		if (isnan(want) ? !isnan(f[i]) : (double)f[i] != want ||
		    !signbit(f[i]) != !signbit(want))
			if (bad++ < 10)
				fprintf(stderr, "# vload_half(%#x): %a\n", i, f[i]);
	}
	EXPECT_EQ(0, bad);
	vg_kernel_free(c.k);

	bad = 0;
	for (i = 0; i < nx; i++) {
		uint32_t r = rng();

		if (i < 2048)	/* around every half: exact, halfway, between */
			x[i] = (float)(half_value((uint16_t)(r & 0xfbff)) *
				       (1 + (double)(i % 5 - 2) * 0x1p-12));
		else
			memcpy(&x[i], &r, 4);
	}
	x[0] = 65504; x[1] = 65519.99f; x[2] = 65520; x[3] = -65520;
	x[4] = 1e9f; x[5] = -1e9f; x[6] = 0x1p-25f; x[7] = 0x1.000002p-25f;
	x[8] = -0x1p-25f; x[9] = 1e-40f; x[10] = -1e-40f; x[11] = 0x1.ffcp-15f;
	x[12] = 0x1.ffep-15f; x[13] = NAN; x[14] = INFINITY; x[15] = -0.0f;
	load(_metadata, prog, "hs", &c);
	set_u64(&c, 0, x_va);
	set_u64(&c, 1, o_va);
	set_u32(&c, 2, nx);
	ASSERT_EQ(0, run1d(self->tm, &c, nx, 128));
	for (m = 0; m < 5; m++)
		for (i = 0; i < nx; i++) {
			uint16_t got = o[m * nx + i], want;

			if (isnan(x[i])) {
				if ((got & 0x7c00) != 0x7c00 || !(got & 0x3ff))
					bad++;
				continue;
			}
			want = half_round(x[i], m ? m - 1 : 0);
			if (got != want && bad++ < 10)
				fprintf(stderr, "# vstore_half mode %u (%a): %#x, want %#x\n",
					m, x[i], got, want);
		}
	EXPECT_EQ(0, bad);
	vg_kernel_free(c.k);

	/* the vector forms: finite halves round-trip exactly whatever the
	 * mode; vloada_half3/vstorea_half3 four apart */
	for (i = 0; i < 64; i++)
		h[i] = (uint16_t)(rng() % 0x7c00 | (i & 1) << 15);
	memset(o, 0, 64 * 2);
	load(_metadata, prog, "hv", &c);
	set_u64(&c, 0, h_va);
	set_u64(&c, 1, o_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 1, 1));
	for (i = 0; i < 64; i++) {
		int written = i < 16 || (i >= 20 && i < 23) || (i >= 24 && i < 27) ||
			      (i >= 28 && i < 30) || (i >= 32 && i < 36) ||
			      (i >= 40 && i < 48);
		uint16_t want = !written ? 0 : (i >= 40 ? h[i - 40 + 8] : h[i]);

		if (i >= 32 && i < 36)	/* vstorea_half4 at 8: 32..35 */
			want = h[i];
		EXPECT_EQ(want, o[i]) TH_LOG("o[%u]", i);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

TEST_HARNESS_MAIN
