// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OpenCL C compiler (libshim/compiler), vectors: vectors and structs
 * as kernel parameters by value (VMGPU_PARAM_BYTES, laid out with
 * OpenCL C's sizes and alignments, read with ldarg or copied to the
 * private area), vloadN/vstoreN of every width over global, local,
 * constant and private memory, as_typeN (3-component rules included),
 * vector literals, swizzles of every width and conversions of every
 * width, 64-bit division of vectors; the format's checks of the new
 * parameter type; disassembly that assembles back. Run through the
 * interpreter (testcc.h) and compared with C.
 */
#include <math.h>

#include "testcc.h"
#include "vmgpu/compiler.h"

static void set_bytes(struct ck *c, uint32_t i, const void *v, size_t n)
{
	memcpy(c->args + c->params[i].offset, v, n);
}

/* ------------------------------------------------------------------ */

static const char params_src[] =
	"typedef struct { int a; float b; short c[3]; char d; } S;\n"
	"typedef struct { float4 v; long l; } T;\n"
	"kernel void p(global float *out, char2 c2, float4 f, int3 i3,\n"
	"              uchar u, S s, long2 l2, T t, short3 s3, float8 f8,\n"
	"              int idx)\n"
	"{\n"
	"	out[0] = c2.x; out[1] = c2.y;\n"
	"	out[2] = f.x; out[3] = f.y; out[4] = f.z; out[5] = f.w;\n"
	"	out[6] = i3.x; out[7] = i3.y; out[8] = i3.z;\n"
	"	out[9] = u;\n"
	"	out[10] = s.a; out[11] = s.b; out[12] = s.c[idx]; out[13] = s.d;\n"
	"	out[14] = (float)(l2.x >> 32); out[15] = (float)(int)l2.y;\n"
	"	out[16] = t.v.w; out[17] = (float)(t.l >> 33);\n"
	"	out[18] = s3.x; out[19] = s3.y; out[20] = s3.z;\n"
	"	out[21] = f8.s7 + f8.s0;\n"
	"	out[22] = as_int(c2.xyxy) == as_int((char4)(c2, c2)) ? 1 : 0;\n"
	"}\n";

struct S {
	int32_t a;
	float b;
	int16_t c[3];
	int8_t d;
};

struct T {
	float v[4];
	int64_t l;
	int64_t pad;
};

TEST_F(cc, vector_and_struct_parameters)
{
	struct vmgpu_program *prog = build(_metadata, params_src, NULL);
	/* OpenCL C's layout: a vector aligned to its size, a 3-component
	 * one the size of 4, a struct to its largest member */
	static const struct { const char *name; uint32_t size, align, offset; } want[] = {
		{ "out", 8, 8, 0 }, { "c2", 2, 2, 8 }, { "f", 16, 16, 16 },
		{ "i3", 16, 16, 32 }, { "u", 4, 4, 48 }, { "s", 16, 4, 52 },
		{ "l2", 16, 16, 80 }, { "t", 32, 16, 96 }, { "s3", 8, 8, 128 },
		{ "f8", 32, 32, 160 }, { "idx", 4, 4, 192 },
	};
	int8_t c2[2] = { -3, 7 };
	float f[4] = { 1.5f, -2, 3.25f, 8 }, f8[8] = { 1, 2, 3, 4, 5, 6, 7, 0.5f };
	int32_t i3[4] = { 7, -9, 100000, 0 }, idx = 1;
	int64_t l2[2] = { 5ll << 32, -12 };
	int16_t s3[4] = { -1, 2, 30000, 0 };
	struct S s = { -4, 0.5f, { 11, 12, -13 }, 'x' };
	struct T t = { { 0, 0, 0, -6.5f }, 3ll << 33, 0 };
	float expect[23] = {
		-3, 7, 1.5f, -2, 3.25f, 8, 7, -9, 100000, 200, -4, 0.5f, 12,
		'x', 5, -12, -6.5f, 3, -1, 2, 30000, 1.5f, 1,
	};
	struct ck c;
	uint32_t k;

	ASSERT_NE(NULL, prog);
	load(_metadata, prog, "p", &c);
	ASSERT_GE(c.sig.num_params, 11);
	for (k = 0; k < 11; k++) {
		uint32_t ty = c.params[k].type;

		EXPECT_EQ(0, strcmp(want[k].name, c.params[k].name));
		EXPECT_EQ(want[k].offset, c.params[k].offset) TH_LOG("%s", want[k].name);
		EXPECT_EQ(want[k].size, vmgpu_param_size(ty)) TH_LOG("%s", want[k].name);
		EXPECT_EQ(want[k].align, vmgpu_param_align(ty)) TH_LOG("%s", want[k].name);
	}
	EXPECT_EQ(VMGPU_PARAM_BYTES_TYPE(16, 4), c.params[2].type);
	EXPECT_EQ(VMGPU_PARAM_I32, c.params[4].type);
	/* the struct read at a variable index: copied to the private area */
	EXPECT_EQ(0, strcmp("vmgpu_private", c.params[c.sig.num_params - 1].name));

	ALLOC(float, out, 23);
	set_u64(&c, 0, out_va);
	set_bytes(&c, 1, c2, sizeof(c2));
	set_bytes(&c, 2, f, sizeof(f));
	set_bytes(&c, 3, i3, sizeof(i3));
	set_u32(&c, 4, 200);
	set_bytes(&c, 5, &s, sizeof(s));
	set_bytes(&c, 6, l2, sizeof(l2));
	set_bytes(&c, 7, &t, sizeof(t));
	set_bytes(&c, 8, s3, sizeof(s3));
	set_bytes(&c, 9, f8, sizeof(f8));
	set_u32(&c, 10, (uint32_t)idx);
	ASSERT_EQ(0, run1d(self->tm, &c, 1, 1));
	for (k = 0; k < 23; k++) {
		EXPECT_EQ(expect[k], out[k]) TH_LOG("out[%u]", k);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* A struct only read at constant offsets: ldarg, no private copy. */
TEST_F(cc, struct_parameter_read_directly)
{
	static const char src[] =
		"typedef struct { char a; short b; int c; ulong d; } U;\n"
		"kernel void q(global ulong *o, U u)\n"
		"{ o[0] = u.a + u.b + u.c; o[1] = u.d; }\n";
	struct vmgpu_program *prog = build(_metadata, src, NULL);
	struct { int8_t a; int16_t b; int32_t c; uint64_t d; } u = {
		-5, 300, 70000, 0x123456789abcdefull,
	};
	struct ck c;

	ASSERT_NE(NULL, prog);
	EXPECT_EQ(0, vmgpu_program_kernel_private_bytes(prog, "q"));
	load(_metadata, prog, "q", &c);
	ASSERT_EQ(2, c.sig.num_params);
	EXPECT_EQ(VMGPU_PARAM_BYTES_TYPE(16, 3), c.params[1].type);
	ALLOC(uint64_t, o, 2);
	set_u64(&c, 0, o_va);
	set_bytes(&c, 1, &u, sizeof(u));
	ASSERT_EQ(0, run1d(self->tm, &c, 1, 1));
	EXPECT_EQ((uint64_t)(-5 + 300 + 70000), o[0]);
	EXPECT_EQ(0x123456789abcdefull, o[1]);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */

/* vloadN/vstoreN of every width, from and to every address space. */
static const char vls_src[] =
	"#define CAT_(a, b) a##b\n"
	"#define CAT(a, b) CAT_(a, b)\n"
	"#define W(N) \\\n"
	"	{ CAT(T, N) v = vload##N(i, src + off); vstore##N(v, i, dst + off + 100); \\\n"
	"	  v = vload##N(i, csrc + off); vstore##N(v + (CAT(T, N))(1), i, dst + off + 200); \\\n"
	"	  vstore##N(v, 0, lm + 16 * i); \\\n"
	"	  vstore##N(vload##N(0, lm + 16 * i), i, dst + off + 300); \\\n"
	"	  vstore##N(v, 0, pm); vstore##N(vload##N(0, pm), i, dst + off + 400); }\n"
	"kernel void vls(global const T *src, constant T *csrc, global T *dst, int off)\n"
	"{\n"
	"	local T lm[32]; T pm[16];\n"
	"	int i = get_global_id(0);\n"
	"	W(2) W(3) W(4) W(8) W(16)\n"
	"}\n";

static void vls_type(struct __test_metadata *_metadata, struct testmem *tm,
		     const char *type, size_t es)
{
	char opts[64];
	struct vmgpu_program *prog;
	struct ck c;
	uint64_t src_va, dst_va;
	uint8_t *src, *dst;
	uint32_t n = 2, k, w, b;
	static const uint32_t widths[] = { 2, 3, 4, 8, 16 };

	snprintf(opts, sizeof(opts), "-DT=%s", type);
	prog = build(_metadata, vls_src, opts);
	ASSERT_NE(NULL, prog);
	load(_metadata, prog, "vls", &c);
	src_va = testmem_alloc(tm, 64 * es);
	dst_va = testmem_alloc(tm, 600 * es);
	src = testmem_ptr(tm, src_va);
	dst = testmem_ptr(tm, dst_va);
	for (k = 0; k < 64 * es; k++)
		src[k] = (uint8_t)(k * 37 + 11);
	if (!strcmp(type, "float"))	/* no NaN */
		for (k = 0; k < 64; k++) {
			float v = (float)k * 3.0f - 50.5f;

			memcpy(src + 4 * k, &v, 4);
		}
	memset(dst, 0, 600 * es);
	set_u64(&c, 0, src_va);
	set_u64(&c, 1, src_va);
	set_u64(&c, 2, dst_va);
	set_u32(&c, 3, 1);
	ASSERT_EQ(0, run1d(tm, &c, n, n));
	/* the last width written wins: 16 at i = 0, 1 */
	(void)widths;
	w = 16;
	for (k = 0; k < n * w * es; k++) {
		uint8_t want = src[es + k];

		ASSERT_EQ(want, dst[(101 + 0) * es + k]) TH_LOG("%s global byte %u", type, k);
		ASSERT_EQ(want, dst[301 * es + k]) TH_LOG("%s local byte %u", type, k);
		ASSERT_EQ(want, dst[401 * es + k]) TH_LOG("%s private byte %u", type, k);
	}
	/* constant + 1, element by element */
	for (k = 0; k < n * w; k++) {
		uint64_t a = 0, d = 0;

		memcpy(&a, src + es + k * es, es);
		memcpy(&d, dst + 201 * es + k * es, es);
		if (!strcmp(type, "float")) {
			float fa, fd;

			memcpy(&fa, &a, 4);
			memcpy(&fd, &d, 4);
			ASSERT_EQ(fa + 1.0f, fd);
		} else {
			b = (uint32_t)(es * 8);
			ASSERT_EQ((a + 1) & (b == 64 ? ~0ull : (1ull << b) - 1), d)
				TH_LOG("%s constant elem %u", type, k);
		}
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

TEST_F(cc, vload_vstore_every_width_and_space)
{
	vls_type(_metadata, self->tm, "char", 1);
	vls_type(_metadata, self->tm, "ushort", 2);
	vls_type(_metadata, self->tm, "int", 4);
	vls_type(_metadata, self->tm, "float", 4);
	vls_type(_metadata, self->tm, "ulong", 8);
}

/* vload3/vstore3 are packed: 3 elements apart, not 4. */
TEST_F(cc, vload3_vstore3_packed)
{
	static const char src[] =
		"kernel void v3(global const short *s, global short *d)\n"
		"{ int i = get_global_id(0); vstore3(vload3(i, s).zxy, i, d); }\n";
	struct vmgpu_program *prog = build(_metadata, src, NULL);
	struct ck c;
	int k;

	ASSERT_NE(NULL, prog);
	load(_metadata, prog, "v3", &c);
	ALLOC(int16_t, s, 12);
	ALLOC(int16_t, d, 12);
	for (k = 0; k < 12; k++)
		s[k] = (int16_t)(k * 1000 - 5000);
	set_u64(&c, 0, s_va);
	set_u64(&c, 1, d_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 4, 4));
	for (k = 0; k < 4; k++) {
		EXPECT_EQ(s[3 * k + 2], d[3 * k]);
		EXPECT_EQ(s[3 * k], d[3 * k + 1]);
		EXPECT_EQ(s[3 * k + 1], d[3 * k + 2]);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/*
 * Work-group copies: async_work_group_copy and the strided one in both
 * directions, short3 (of 4's size) and float, 16 work-items sharing 40
 * and 24 elements, two groups; wait_group_events, prefetch.
 */
TEST_F(cc, work_group_copies)
{
	static const char src[] =
		"kernel void wgc(global const short3 *s, global short3 *d)\n"
		"{\n"
		"	local short3 l[40];\n"
		"	event_t e = async_work_group_copy(l, s + get_group_id(0) * 40, 40, 0);\n"
		"	wait_group_events(1, &e);\n"
		"	e = async_work_group_strided_copy(d + get_group_id(0) * 80, l, 40, 2, 0);\n"
		"	wait_group_events(1, &e);\n"
		"	prefetch(s, 40);\n"
		"}\n"
		"kernel void wgs(global const float *s, global float *d)\n"
		"{\n"
		"	local float l[24];\n"
		"	event_t e = async_work_group_strided_copy(l, s + get_group_id(0) * 72, 24, 3, 0);\n"
		"	wait_group_events(1, &e);\n"
		"	l[get_local_id(0)] += 0.5f;\n"
		"	barrier(CLK_LOCAL_MEM_FENCE);\n"
		"	e = async_work_group_copy(d + get_group_id(0) * 24, l, 24, e);\n"
		"	wait_group_events(1, &e);\n"
		"}\n";
	struct vmgpu_program *prog = build(_metadata, src, NULL);
	uint32_t g[3] = { 2, 1, 1 }, b[3] = { 16, 1, 1 };
	struct ck c;
	int k, bad = 0;

	ASSERT_NE(NULL, prog);
	load(_metadata, prog, "wgc", &c);
	ALLOC(int16_t, s, 80 * 4);
	ALLOC(int16_t, d, 160 * 4);
	for (k = 0; k < 80 * 4; k++)
		s[k] = (int16_t)(k * 7 - 900);
	memset(d, 0x55, 160 * 4 * sizeof(*d));
	set_u64(&c, 0, s_va);
	set_u64(&c, 1, d_va);
	ASSERT_EQ(0, run_portion(self->tm, &c, g, b, NULL, NULL, 0));
	for (k = 0; k < 160; k++) {
		int e;

		for (e = 0; e < 3; e++)
			bad += d[4 * k + e] != (k % 2 ? 0x5555 :
						s[4 * (k / 2) + e]);
	}
	EXPECT_EQ(0, bad);
	vg_kernel_free(c.k);

	load(_metadata, prog, "wgs", &c);
	ALLOC(float, fs, 144);
	ALLOC(float, fd, 48);
	for (k = 0; k < 144; k++)
		fs[k] = (float)k;
	set_u64(&c, 0, fs_va);
	set_u64(&c, 1, fd_va);
	ASSERT_EQ(0, run_portion(self->tm, &c, g, b, NULL, NULL, 0));
	for (k = 0; k < 48; k++)
		EXPECT_EQ((float)(k * 3) + (k % 24 < 16 ? 0.5f : 0), fd[k])
			TH_LOG("fd[%d]", k);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/*
 * The address of a program-scope constant array as an integer (the CTS's
 * kernel_memory_alignment_constant): its offset in shared memory, at
 * the array's alignment, and read through it still.
 */
TEST_F(cc, constant_array_address_as_integer)
{
	static const char src[] =
		"constant char m0[3] = { 1, 2, 3 };\n"
		"constant short4 m1[3] = { (short4)(7) };\n"
		"constant float16 m2[3] = { (float16)(1.5f) };\n"
		"kernel void k(global ulong *r)\n"
		"{\n"
		"	r[0] = (ulong)&m0[0]; r[1] = (ulong)&m1[1];\n"
		"	r[2] = (ulong)&m2[0]; r[3] = (ulong)&m2[1];\n"
		"	r[4] = m0[2] + m1[0].w + (int)m2[0].sf;\n"
		"}\n";
	struct vmgpu_program *prog = build(_metadata, src, NULL);
	struct ck c;

	ASSERT_NE(NULL, prog);
	load(_metadata, prog, "k", &c);
	ALLOC(uint64_t, r, 5);
	set_u64(&c, 0, r_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 1, 1));
	EXPECT_EQ(0, r[1] % 8);
	EXPECT_EQ(0, r[2] % 64);
	EXPECT_EQ(64, r[3] - r[2]);
	EXPECT_GT(VMGPU_MAX_SHARED_BYTES, r[3]);
	EXPECT_EQ(3 + 7 + 1, r[4]);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */

/* as_typeN, literals, swizzles of every width, conversions. */
static const char misc_src[] =
	"kernel void misc(global const uint *in, global uint *o)\n"
	"{\n"
	"	uint4 a = vload4(0, in);\n"
	"	uchar16 b = as_uchar16(vload4(0, in));\n"
	"	o[0] = as_uint(b.s3210);\n"
	"	o[1] = as_uint(as_float(a.x) * 1.0f);\n"
	"	float3 f3 = as_float3(a);\n"	/* 3-component: the size of 4 */
	"	o[2] = as_uint(f3.z);\n"
	"	int3 i3 = as_int3(f3);\n"
	"	o[3] = (uint)i3.y;\n"
	"	ushort8 h = as_ushort8(a);\n"
	"	o[4] = h.s7 | (uint)h.s0 << 16;\n"
	"	uint2 e = a.even, d = a.odd, l = a.lo, hi = a.hi;\n"
	"	o[5] = e.y - d.x + l.y - hi.x;\n"
	"	uchar4 c4 = b.hi.odd.s0123.xyxy;\n"
	"	o[6] = as_uint(c4);\n"
	"	int16 w = (int16)((int4)(1, 2, 3, 4), (int2)(5, 6), 7, 8,\n"
	"			(int8)(9));\n"
	"	o[7] = w.sF + w.sa * 16 + w.s5 * 256 + w.s0 * 4096;\n"
	"	float8 f8 = convert_float8(as_char8(a.lo));\n"
	"	o[8] = (uint)(int)(f8.s0 + f8.s7 * 1000.0f);\n"
	"	long4 q = convert_long4(as_int4(a));\n"
	"	o[9] = (uint)(q.w >> 32);\n"
	"	float16 g = convert_float16(as_uchar16(a));\n"
	"	o[10] = (uint)(g.sf + g.s0);\n"
	"	o[11] = (uint)(int)(convert_float(as_long(a.hi)) / 4294967296.0f);\n"
	"	int2 ww = (int2)(3);\n"
	"	o[12] = ww.x * ww.y;\n"
	"	float3 z = (float3)(1.0f, 2.0f, 3.0f);\n"
	"	o[13] = (uint)(z.zyx.x * z.xxz.z);\n"
	"}\n";

TEST_F(cc, astype_literals_swizzles_conversions)
{
	struct vmgpu_program *prog = build(_metadata, misc_src, NULL);
	uint32_t a[4] = { 0x04030201, 0x3f800000, 0x80000005, 0xfedcba98 };
	uint8_t b[16];
	uint16_t h[8];
	int8_t c8[8];
	uint32_t want[14];
	struct ck c;
	int k;

	ASSERT_NE(NULL, prog);
	memcpy(b, a, 16);
	memcpy(h, a, 16);
	memcpy(c8, a, 8);
	want[0] = (uint32_t)b[3] | (uint32_t)b[2] << 8 | (uint32_t)b[1] << 16 |
		  (uint32_t)b[0] << 24;
	want[1] = a[0];
	want[2] = a[2];
	want[3] = a[1];
	want[4] = h[7] | (uint32_t)h[0] << 16;
	want[5] = a[2] - a[1] + a[1] - a[2];
	{
		/* b.hi = b[8..15], .odd = b[9], b[11], b[13], b[15] */
		uint8_t x[4] = { b[9], b[11], b[9], b[11] };

		memcpy(&want[6], x, 4);
	}
	want[7] = 9 + 9 * 16 + 6 * 256 + 1 * 4096;
	want[8] = (uint32_t)(int)((float)c8[0] + (float)c8[7] * 1000.0f);
	want[9] = (uint32_t)((int64_t)(int32_t)a[3] >> 32);
	want[10] = (uint32_t)((float)b[15] + (float)b[0]);
	{
		int64_t v;

		memcpy(&v, &a[2], 8);
		want[11] = (uint32_t)(int32_t)((float)v / 4294967296.0f);
	}
	want[12] = 9;
	want[13] = 9;
	load(_metadata, prog, "misc", &c);
	ALLOC(uint32_t, in, 4);
	ALLOC(uint32_t, o, 14);
	memcpy(in, a, sizeof(a));
	set_u64(&c, 0, in_va);
	set_u64(&c, 1, o_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 1, 1));
	for (k = 0; k < 14; k++) {
		EXPECT_EQ(want[k], o[k]) TH_LOG("o[%d] %#x %#x", k, want[k], o[k]);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */

/*
 * Volatile vectors (a parameter, a variable, a pointer's referenced type:
 * OpenCL CTS api/get_kernel_arg_info declares them): accessed element by
 * element, each access kept.
 */
static const char volatile_src[] =
	"kernel void vol(volatile global int4 *p, global int *o,\n"
	"                volatile int4 a, volatile float2 f,\n"
	"                volatile global uchar4 *u)\n"
	"{\n"
	"	volatile int4 t = a + (int4)(1);\n"
	"	uchar4 v = u[0];\n"
	"	p[0] = p[1] + t;\n"
	"	o[0] = t.y + (int)f.y;\n"
	"	o[1] = p[0].w;\n"
	"	o[2] = v.s1 + as_int(v);\n"
	"}\n";

TEST_F(cc, volatile_vectors)
{
	struct vmgpu_program *prog = build(_metadata, volatile_src, NULL);
	const int32_t a[4] = { 10, 20, 30, 40 }, p1[4] = { 1, 2, 3, 4 };
	const float f[2] = { 0.5f, 7.0f };
	struct ck c;
	int k;

	ASSERT_NE(NULL, prog);
	load(_metadata, prog, "vol", &c);
	ALLOC(int32_t, p, 8);
	ALLOC(int32_t, o, 3);
	ALLOC(uint8_t, u, 4);
	memcpy(p + 4, p1, sizeof(p1));
	memcpy(u, "\x01\x02\x03\x04", 4);
	set_u64(&c, 0, p_va);
	set_u64(&c, 1, o_va);
	set_bytes(&c, 2, a, sizeof(a));
	set_bytes(&c, 3, f, sizeof(f));
	set_u64(&c, 4, u_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 1, 1));
	for (k = 0; k < 4; k++)
		EXPECT_EQ(p1[k] + a[k] + 1, p[k]);
	EXPECT_EQ(21 + 7, o[0]);
	EXPECT_EQ(4 + 40 + 1, o[1]);
	/* the CTS's shape, once a build error (test_compiler_diag) */
	EXPECT_EQ(2 + 0x04030201, o[2]);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */

/* The format: a BYTES type word is checked, and round-trips through
 * the disassembler and the assembler. */
TEST(bytes_parameter_format)
{
	struct vmgpu_program *prog = build(_metadata, params_src, NULL);
	const void *image;
	void *again;
	size_t bytes, bytes2;
	char err[256], *text;

	EXPECT_EQ(16, vmgpu_param_size(VMGPU_PARAM_BYTES_TYPE(16, 4)));
	EXPECT_EQ(16, vmgpu_param_align(VMGPU_PARAM_BYTES_TYPE(16, 4)));
	EXPECT_EQ(12, vmgpu_param_size(VMGPU_PARAM_BYTES_TYPE(12, 2)));
	EXPECT_EQ(0, vmgpu_param_size(VMGPU_PARAM_BYTES));	/* size 0 */
	EXPECT_EQ(0, vmgpu_param_size(VMGPU_PARAM_BYTES_TYPE(12, 3)));	/* 12 % 8 */
	EXPECT_EQ(0, vmgpu_param_size(VMGPU_PARAM_BYTES_TYPE(256, 8)));	/* align 256 */
	EXPECT_EQ(0, vmgpu_param_size(VMGPU_PARAM_BYTES_TYPE(VMGPU_MAX_ARGS_BYTES + 4, 2)));
	EXPECT_EQ(0, vmgpu_param_size(VMGPU_PARAM_BYTES_TYPE(16, 4) | 1u << 30));
	EXPECT_EQ(0, vmgpu_param_size(VMGPU_PARAM_I32 | 16 << 8));
	EXPECT_EQ(NULL, vmgpu_param_type_name(VMGPU_PARAM_BYTES));
	EXPECT_EQ(0, vmgpu_param_is_buffer(VMGPU_PARAM_BYTES_TYPE(8, 3)));

	ASSERT_NE(NULL, prog);
	ASSERT_EQ(0, vmgpu_program_kernel_image(prog, "p", &image, &bytes));
	ASSERT_EQ(0, vmgpu_disasm_image(image, bytes, &text, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(text, ".param f, bytes16/16, 16\n"));
	EXPECT_NE(NULL, strstr(text, ".param s, bytes16/4, 52\n"));
	ASSERT_EQ(0, vmgpu_asm_assemble(text, &again, &bytes2, err, sizeof(err)));
	ASSERT_EQ(bytes, bytes2);
	EXPECT_EQ(0, memcmp(image, again, bytes));
	free(again);
	free(text);

	/* damaged: misaligned, a bad size, overlapping */
	{
		uint8_t *img = malloc(bytes);
		struct vmgpu_exec_header h;
		struct vmgpu_exec_sig sig;
		struct vmgpu_exec_param params[VMGPU_MAX_PARAMS];
		const char *why = "";
		size_t at;
		uint32_t v;

		ASSERT_NE(NULL, img);
		vmgpu_exec_header_read(&h, image);
		/* parameter 2 'f': its offset, then its type */
		at = vmgpu_exec_image_bytes(&h) + sizeof(sig) + 2 * sizeof(params[0]);
		memcpy(img, image, bytes);
		v = 20;
		memcpy(img + at + 4, &v, 4);
		EXPECT_EQ(-1, vmgpu_exec_sig_read(&h, img, bytes, &sig, params, &why));
		EXPECT_EQ(0, strcmp(why, "parameter misaligned or outside the argument block"));
		memcpy(img, image, bytes);
		v = VMGPU_PARAM_BYTES_TYPE(24, 4);
		memcpy(img + at, &v, 4);
		EXPECT_EQ(-1, vmgpu_exec_sig_read(&h, img, bytes, &sig, params, &why));
		EXPECT_EQ(0, strcmp(why, "unknown parameter type"));
		memcpy(img, image, bytes);
		v = VMGPU_PARAM_BYTES_TYPE(32, 4);
		memcpy(img + at, &v, 4);
		EXPECT_EQ(-1, vmgpu_exec_sig_read(&h, img, bytes, &sig, params, &why));
		EXPECT_EQ(0, strcmp(why, "parameters overlap"));
		free(img);
	}
	/* the assembler's syntax and its errors */
	{
		static const char ok[] =
			".kernel k\n.param a, bytes12/4\n.param b, bytes2/2\n"
			".param c, i32\n\tldarg r0, c\n\texit\n";
		static const char *const bad[] = {
			"bytes12/8", "bytes0/1", "bytes12", "bytes12/3",
			"bytes5000/4", "bytes16/256", "bytes", "bytes8/4x",
		};
		struct vmgpu_exec_header h;
		struct vmgpu_exec_sig sig;
		struct vmgpu_exec_param params[VMGPU_MAX_PARAMS];
		const char *why = "";
		char src[128];
		size_t i;

		ASSERT_EQ(0, vmgpu_asm_assemble(ok, &again, &bytes2, err, sizeof(err)))
			TH_LOG("%s", err);
		vmgpu_exec_header_read(&h, again);
		ASSERT_EQ(1, vmgpu_exec_sig_read(&h, again, bytes2, &sig, params, &why));
		EXPECT_EQ(VMGPU_PARAM_BYTES_TYPE(12, 2), params[0].type);
		EXPECT_EQ(0, params[0].offset);
		EXPECT_EQ(12, params[1].offset);
		EXPECT_EQ(16, params[2].offset);
		free(again);
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			snprintf(src, sizeof(src), ".kernel k\n.param a, %s\n\texit\n",
				 bad[i]);
			EXPECT_NE(0, vmgpu_asm_assemble(src, &again, &bytes2, err,
							 sizeof(err))) TH_LOG("%s", bad[i]);
		}
	}
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */

/*
 * 64-bit division of vectors (split into one library call per element,
 * a signed one by a constant 2^k into shifts) and the edges: a zero
 * divisor gives all ones and the dividend, as the ISA's 32-bit division;
 * INT64_MIN / -1 gives INT64_MIN and 0.
 */
static const char div64v_src[] =
	"kernel void d64v(global const long4 *a, global const long4 *b,\n"
	"                 global long4 *o, global ulong4 *u, global long2 *k)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	long4 x = a[i], y = b[i];\n"
	"	o[2 * i] = x / y;\n"
	"	o[2 * i + 1] = x % y;\n"
	"	u[2 * i] = as_ulong4(x) / as_ulong4(y);\n"
	"	u[2 * i + 1] = as_ulong4(x) % as_ulong4(y);\n"
	"	k[2 * i] = x.lo / 4294967296l;\n"
	"	k[2 * i + 1] = x.hi % (long2)(-7, 1099511627776l);\n"
	"}\n";

static int64_t sdiv_ref(int64_t x, int64_t y)
{
	if (!y)
		return -1;
	if (x == INT64_MIN && y == -1)
		return INT64_MIN;
	return x / y;
}

static int64_t srem_ref(int64_t x, int64_t y)
{
	if (!y)
		return x;
	if (x == INT64_MIN && y == -1)
		return 0;
	return x % y;
}

TEST_F(cc, int64_vector_division)
{
	const uint32_t n = 128;		/* threads, 4 elements each */
	static const int64_t edge[] = {
		INT64_MIN, -1, 0, 1, INT64_MAX, INT64_MIN + 1, 4294967296ll,
		-4294967296ll, 4294967295ll, 3, -3, 0x7fffffff, (int64_t)0x80000000ll,
	};
	const uint32_t ne = sizeof(edge) / sizeof(edge[0]);
	struct vmgpu_program *prog = build(_metadata, div64v_src, NULL);
	struct ck c;
	ALLOC(int64_t, a, 4 * n);
	ALLOC(int64_t, b, 4 * n);
	ALLOC(int64_t, o, 8 * n);
	ALLOC(uint64_t, u, 8 * n);
	ALLOC(int64_t, k, 4 * n);
	uint32_t i, e;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < 4 * n; i++) {
		if (i < ne * ne) {		/* every pair of edges */
			a[i] = edge[i / ne];
			b[i] = edge[i % ne];
			continue;
		}
		a[i] = (int64_t)((uint64_t)rng() << 32 ^ rng());
		b[i] = (int64_t)(((uint64_t)rng() << 32 ^ rng()) >> (rng() % 64));
		if (i & 1)
			b[i] = -b[i];
	}
	load(_metadata, prog, "d64v", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, b_va);
	set_u64(&c, 2, o_va);
	set_u64(&c, 3, u_va);
	set_u64(&c, 4, k_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++)
		for (e = 0; e < 4; e++) {
			int64_t x = a[4 * i + e], y = b[4 * i + e];
			uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
			int64_t ky = e == 2 ? -7 : 1099511627776ll;

			ASSERT_EQ(sdiv_ref(x, y), o[8 * i + e]) TH_LOG("%lld / %lld", (long long)x, (long long)y);
			ASSERT_EQ(srem_ref(x, y), o[8 * i + 4 + e]) TH_LOG("%lld %% %lld", (long long)x, (long long)y);
			ASSERT_EQ(uy ? ux / uy : ~0ull, u[8 * i + e]);
			ASSERT_EQ(uy ? ux % uy : ux, u[8 * i + 4 + e]);
			if (e < 2) {
				ASSERT_EQ(x / 4294967296ll, k[4 * i + e]);
			} else {
				ASSERT_EQ(x % ky, k[4 * i + e]);
			}
		}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

TEST_HARNESS_MAIN
