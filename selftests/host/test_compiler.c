// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OpenCL C compiler (libshim/compiler), the language: kernels compiled
 * with vmgpu_program_build(), loaded and run block by block through the
 * interpreter (testcc.h), compared with the same computation in C:
 * arithmetic, 64-bit integers and division, control flow and
 * reconvergence, local memory and barriers, constant and private arrays,
 * register spilling, work-item functions, vectors, atomics (on local
 * memory with ISA version 2); the signature; disassembly that assembles
 * back; builds in two threads at once.
 */
#include <math.h>
#include <pthread.h>

#include "testcc.h"
#include "../cl_sources.h"
#include "vmgpu/compiler.h"

/* ------------------------------------------------------------------ */

static const char basic_src[] =
	"kernel void vadd(global const float *a, global const float *b,\n"
	"                 global float *c, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i < n)\n"
	"		c[i] = a[i] + b[i];\n"
	"}\n"
	CL_SAXPY_SRC
	"kernel void sig(global int *rw, global const int *ro, global int *wo,\n"
	"                long l, uint u, constant float *c, local float *sh)\n"
	"{\n"
	"	wo[0] = ro[0] + (int)l + u + (int)c[0];\n"
	"	rw[0] += 1;\n"
	"}\n";

TEST_F(cc, vector_add_and_saxpy)
{
	const uint32_t n = 4099;
	struct vmgpu_program *prog = build(_metadata, basic_src, NULL);
	struct ck c;
	ALLOC(float, a, n);
	ALLOC(float, b, n);
	ALLOC(float, out, n);
	uint32_t i;

	ASSERT_NE(NULL, prog);
	ASSERT_EQ(3, vmgpu_program_kernel_count(prog));
	for (i = 0; i < n; i++) {
		a[i] = rng_float();
		b[i] = rng_float();
		out[i] = rng_float();
	}
	load(_metadata, prog, "vadd", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, b_va);
	set_u64(&c, 2, out_va);
	set_u32(&c, 3, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 96));
	for (i = 0; i < n; i++) {
		float r = a[i] + b[i];

		ASSERT_EQ(0, memcmp(&r, &out[i], 4));
	}
	vg_kernel_free(c.k);

	/* a * x + y is contracted (OpenCL's default): one fma */
	load(_metadata, prog, "saxpy", &c);
	set_u32(&c, 0, n);
	set_f32(&c, 1, 1.7f);
	set_u64(&c, 2, a_va);
	set_u64(&c, 3, b_va);
	memcpy(out, b, n * 4);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 256));
	for (i = 0; i < n; i++) {
		float r = fmaf(1.7f, a[i], out[i]);

		ASSERT_EQ(0, memcmp(&r, &b[i], 4));
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* Compiled executables disassemble to source that assembles back. */
TEST(disassembly_round_trip)
{
	struct vmgpu_program *prog = build(_metadata, basic_src, NULL);
	int i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < vmgpu_program_kernel_count(prog); i++) {
		const char *name = vmgpu_program_kernel_name(prog, i);
		const void *image;
		void *again;
		size_t bytes, bytes2;
		char err[256], *text;

		ASSERT_EQ(0, vmgpu_program_kernel_image(prog, name, &image, &bytes));
		ASSERT_EQ(0, vmgpu_disasm_image(image, bytes, &text, err, sizeof(err)));
		ASSERT_EQ(0, vmgpu_asm_assemble(text, &again, &bytes2, err, sizeof(err)));
		ASSERT_EQ(bytes, bytes2);
		EXPECT_EQ(0, memcmp(image, again, bytes));
		free(again);
		free(text);
	}
	vmgpu_program_destroy(prog);
}

TEST_F(cc, signature)
{
	struct vmgpu_program *prog = build(_metadata, basic_src, NULL);
	static const struct { const char *name; uint32_t type, offset; } want[] = {
		{ "rw", VMGPU_PARAM_BUF_RW, 0 },
		{ "ro", VMGPU_PARAM_BUF_RO, 8 },
		{ "wo", VMGPU_PARAM_BUF_WO, 16 },
		{ "l", VMGPU_PARAM_I64, 24 },
		{ "u", VMGPU_PARAM_I32, 32 },
		{ "c", VMGPU_PARAM_BUF_RO, 40 },
		{ "sh", VMGPU_PARAM_LOCAL, 48 },	/* shared-memory offset */
	};
	const void *image;
	size_t bytes;
	struct ck c;
	uint32_t i;

	ASSERT_NE(NULL, prog);
	EXPECT_EQ(0, strcmp("vadd", vmgpu_program_kernel_name(prog, 0)));
	EXPECT_EQ(0, strcmp("saxpy", vmgpu_program_kernel_name(prog, 1)));
	EXPECT_EQ(0, strcmp("sig", vmgpu_program_kernel_name(prog, 2)));
	EXPECT_EQ(NULL, vmgpu_program_kernel_name(prog, 3));
	EXPECT_EQ(-ENOENT, vmgpu_program_kernel_image(prog, "nope", &image, &bytes));
	EXPECT_EQ(0, vmgpu_program_kernel_private_bytes(prog, "vadd"));
	load(_metadata, prog, "sig", &c);
	ASSERT_EQ(7, c.sig.num_params);
	for (i = 0; i < 7; i++) {
		EXPECT_EQ(0, strcmp(want[i].name, c.params[i].name));
		EXPECT_EQ(want[i].type, c.params[i].type);
		EXPECT_EQ(want[i].offset, c.params[i].offset);
	}
	EXPECT_EQ(52, c.h.args_bytes);
	EXPECT_EQ(1, c.h.isa_version);	/* only version-1 instructions */
	vg_kernel_free(c.k);
	load(_metadata, prog, "saxpy", &c);
	EXPECT_EQ(VMGPU_PARAM_I32, c.params[0].type);
	EXPECT_EQ(VMGPU_PARAM_F32, c.params[1].type);
	EXPECT_EQ(VMGPU_PARAM_BUF_RO, c.params[2].type);
	EXPECT_EQ(VMGPU_PARAM_BUF_RW, c.params[3].type);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */

static const char reduce_src[] =
	CL_REDUCE_SRC
	/* dynamic local memory through a local pointer parameter */
	"kernel void rev(global int *io, local int *tmp)\n"
	"{\n"
	"	int t = get_local_id(0), nt = get_local_size(0);\n"
	"	int base = get_group_id(0) * nt;\n"
	"	tmp[t] = io[base + t];\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	io[base + t] = tmp[nt - 1 - t];\n"
	"}\n";

TEST_F(cc, reduction_local_memory_barrier)
{
	const uint32_t n = 10000, bs = 128, nb = div_up(n, bs);
	struct vmgpu_program *prog = build(_metadata, reduce_src, NULL);
	struct ck c;
	ALLOC(float, in, n);
	ALLOC(float, out, nb);
	ALLOC(int32_t, io, 96 * 5);
	uint32_t i, b, t, st;
	float s[128];

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++)
		in[i] = rng_float();
	load(_metadata, prog, "reduce", &c);
	EXPECT_EQ(bs * 4, c.h.shared_bytes);
	set_u32(&c, 0, n);
	set_u64(&c, 1, in_va);
	set_u64(&c, 2, out_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, bs));
	for (b = 0; b < nb; b++) {
		for (t = 0; t < bs; t++)
			s[t] = b * bs + t < n ? in[b * bs + t] : 0.0f;
		for (st = bs / 2; st; st >>= 1)
			for (t = 0; t < st; t++)
				s[t] += s[t + st];
		ASSERT_EQ(0, memcmp(&s[0], &out[b], 4));
	}
	vg_kernel_free(c.k);

	load(_metadata, prog, "rev", &c);
	EXPECT_EQ(0, c.h.shared_bytes);
	for (i = 0; i < 96 * 5; i++)
		io[i] = (int32_t)i;
	set_u64(&c, 0, io_va);
	set_u32(&c, 1, 0);		/* offset in dynamic shared memory */
	{
		uint32_t g[3] = { 5, 1, 1 }, bl[3] = { 96, 1, 1 };

		ASSERT_EQ(0, run_portion(self->tm, &c, g, bl, NULL, NULL, 96 * 4));
	}
	for (i = 0; i < 96 * 5; i++)
		ASSERT_EQ((int32_t)((i / 96) * 96 + 95 - i % 96), io[i]);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */

static const char flow_src[] =
	"kernel void flow(global const int *in, global int *out, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i >= n)\n"
	"		return;\n"
	"	int x = in[i], acc = 0;\n"
	"	if (x & 1) {\n"
	"		if (x & 2)\n"
	"			acc = x * 3;\n"
	"		else\n"
	"			acc = x - 7;\n"
	"	} else {\n"
	"		acc = x ^ 0x55;\n"
	"	}\n"
	"	for (int k = 0; k < (x & 15); k++) {\n"
	"		if (acc > 1000)\n"
	"			break;\n"
	"		if (k == 5)\n"
	"			continue;\n"
	"		acc += k * x;\n"
	"	}\n"
	"	int m = x;\n"
	"	while (m > 1)\n"
	"		m = (m & 1) ? 3 * m + 1 : m / 2, acc++;\n"
	"	switch (x % 5) {\n"
	"	case 0: acc += 11; break;\n"
	"	case 1: acc *= 2; break;\n"
	"	case 3: acc -= 4;\n"
	"	default: acc ^= 1;\n"
	"	}\n"
	"	out[i] = acc;\n"
	"}\n"
	/* a barrier after divergent loops: every lane must arrive */
	"kernel void flowbar(global int *out)\n"
	"{\n"
	"	local int s[64];\n"
	"	int t = get_local_id(0), a = 0;\n"
	"	for (int k = 0; k < t; k++) {\n"
	"		if (k > 40) break;\n"
	"		a += k;\n"
	"	}\n"
	"	s[t] = a;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	out[t] = s[63 - t];\n"
	"}\n";

static int32_t flow_ref(int32_t x)
{
	int32_t acc, k, m;

	if (x & 1)
		acc = (x & 2) ? x * 3 : x - 7;
	else
		acc = x ^ 0x55;
	for (k = 0; k < (x & 15); k++) {
		if (acc > 1000)
			break;
		if (k == 5)
			continue;
		acc += k * x;
	}
	for (m = x; m > 1; acc++)
		m = (m & 1) ? 3 * m + 1 : m / 2;
	switch (x % 5) {
	case 0: acc += 11; break;
	case 1: acc *= 2; break;
	case 3: acc -= 4; /* fall through */
	default: acc ^= 1;
	}
	return acc;
}

TEST_F(cc, control_flow_divergence)
{
	const uint32_t n = 3000;
	struct vmgpu_program *prog = build(_metadata, flow_src, NULL);
	struct ck c;
	ALLOC(int32_t, in, n);
	ALLOC(int32_t, out, n + 64);
	uint32_t i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++)
		in[i] = (int32_t)(rng() % 2000) - 300;
	load(_metadata, prog, "flow", &c);
	set_u64(&c, 0, in_va);
	set_u64(&c, 1, out_va);
	set_u32(&c, 2, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++)
		ASSERT_EQ(flow_ref(in[i]), out[i]);
	EXPECT_EQ(0, out[n]);
	vg_kernel_free(c.k);

	load(_metadata, prog, "flowbar", &c);
	set_u64(&c, 0, out_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 64, 64));
	for (i = 0; i < 64; i++) {
		int32_t t = 63 - (int32_t)i, k, a = 0;

		for (k = 0; k < t && k <= 40; k++)
			a += k;
		ASSERT_EQ(a, out[i]);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/*
 * The layout makes the ISA's min-pc rule reconverge: after an if/else
 * split by lane parity and a loop with per-lane trip counts, the long
 * tail runs once per warp, not once per group of lanes.
 */
static const char reconv_src[] =
	"#define TAIL(x) x = x * 3u + 1u; x ^= x >> 3; x = x * 5u + 7u; x ^= x << 2;\n"
	"kernel void rc(global uint *o, int diverge)\n"
	"{\n"
	"	uint t = get_local_id(0), x = t;\n"
	"	if (((t & 1) && diverge) || t == 1000) {\n"
	"		x = x * 7u + 3u; x ^= 0x55u;\n"
	"	} else {\n"
	"		x = x * 9u + 1u; x ^= 0xaau; x += t << 3;\n"
	"	}\n"
	"	for (uint k = 0; k < (diverge ? (t & 7) : 7u); k++)\n"
	"		x = x * 13u + k;\n"
	"	TAIL(x) TAIL(x) TAIL(x) TAIL(x) TAIL(x) TAIL(x) TAIL(x) TAIL(x)\n"
	"	o[get_global_id(0)] = x;\n"
	"}\n";

TEST_F(cc, reconvergence_after_if_else_and_loop)
{
	struct vmgpu_program *prog = build(_metadata, reconv_src, NULL);
	ALLOC(uint32_t, o, 64);
	uint64_t uniform, divergent;
	struct ck c;

	ASSERT_NE(NULL, prog);
	load(_metadata, prog, "rc", &c);
	set_u64(&c, 0, o_va);
	set_u32(&c, 1, 0);
	ASSERT_EQ(0, run1d(self->tm, &c, 32, 32));
	uniform = last_stats.warp_instrs;
	set_u32(&c, 1, 1);
	ASSERT_EQ(0, run1d(self->tm, &c, 32, 32));
	divergent = last_stats.warp_instrs;
	/* the tail (> 60 instructions) once: the divergent run costs
	 * only the other arm more (the loop runs 7 trips either way) */
	fprintf(stderr, "# warp instructions: uniform %llu, divergent %llu\n",
		(unsigned long long)uniform, (unsigned long long)divergent);
	EXPECT_LT(divergent, uniform + 20);
	EXPECT_NE(o[1], o[2]);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */

static const char int_src[] =
	"kernel void i64ops(global const long *a, global const long *b,\n"
	"                   global long *o, int n)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	if (i >= (size_t)n) return;\n"
	"	long x = a[i], y = b[i];\n"
	"	int s = (int)(y & 63);\n"
	"	ulong ux = x;\n"
	"	o[12 * i + 0] = x + y;\n"
	"	o[12 * i + 1] = x - y;\n"
	"	o[12 * i + 2] = x * y;\n"
	"	o[12 * i + 3] = x << s;\n"
	"	o[12 * i + 4] = x >> s;\n"
	"	o[12 * i + 5] = (long)(ux >> s);\n"
	"	o[12 * i + 6] = (x < y) | (x <= y) << 1 | (ux > (ulong)y) << 2 |\n"
	"	               (x == y) << 3 | (ux >= (ulong)y) << 4 | (x != y) << 5;\n"
	"	o[12 * i + 7] = (x & y) ^ (x | 12345) ^ ~y;\n"
	"	o[12 * i + 8] = x > y ? x : y;\n"
	"	o[12 * i + 9] = (long)(int)x * 7 + (x >> 40) + (ux >> 33) + (x << 17);\n"
	"	o[12 * i + 10] = (long)(uint)y + (long)(int)(x >> 3);\n"
	"	o[12 * i + 11] = -x * 1000003L + (long)i * 0x100000001L;\n"
	"}\n"
	"kernel void divs(global const int *a, global const int *b,\n"
	"                 global int *o, global uint *uo, global short *so,\n"
	"                 global uchar *co, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i >= n) return;\n"
	"	int x = a[i], y = b[i];\n"
	"	o[2 * i] = x / y;\n"
	"	o[2 * i + 1] = x % y;\n"
	"	uo[2 * i] = (uint)x / (uint)y;\n"
	"	uo[2 * i + 1] = (uint)x % (uint)y;\n"
	"	short sx = (short)x, sy = (short)(y | 1);\n"
	"	so[i] = (short)(sx / sy + (sx >> 3) + (short)(sx * 3));\n"
	"	uchar cx = (uchar)x, cy = (uchar)(y | 1);\n"
	"	co[i] = (uchar)(cx / cy + cx * 5 + (cx >> 1) + (x < 0 ? 7 : 0));\n"
	"}\n";

TEST_F(cc, int64_and_division)
{
	const uint32_t n = 700;
	struct vmgpu_program *prog = build(_metadata, int_src, NULL);
	struct ck c;
	ALLOC(int64_t, a, n);
	ALLOC(int64_t, b, n);
	ALLOC(int64_t, o, 12 * n);
	ALLOC(int32_t, ia, n);
	ALLOC(int32_t, ib, n);
	ALLOC(int32_t, io, 2 * n);
	ALLOC(uint32_t, uo, 2 * n);
	ALLOC(int16_t, so, n);
	ALLOC(uint8_t, co, n);
	uint32_t i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++) {
		a[i] = (int64_t)((uint64_t)rng() << 40 ^ (uint64_t)rng() << 20 ^ rng());
		b[i] = (int64_t)((uint64_t)rng() << 41 ^ rng());
		if (i % 7 == 0)
			b[i] = a[i];
		if (i % 11 == 0)
			a[i] = -a[i];
		ia[i] = (int32_t)(rng() << 8 ^ rng());
		ib[i] = (int32_t)(rng() % 2001) - 1000;
		if (!ib[i])
			ib[i] = 3;
	}
	load(_metadata, prog, "i64ops", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, b_va);
	set_u64(&c, 2, o_va);
	set_u32(&c, 3, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		int64_t x = a[i], y = b[i], r[12];
		uint64_t ux = (uint64_t)x;
		int s = (int)(y & 63), k;

		r[0] = (int64_t)(ux + (uint64_t)y);
		r[1] = (int64_t)(ux - (uint64_t)y);
		r[2] = (int64_t)(ux * (uint64_t)y);
		r[3] = (int64_t)(ux << s);
		r[4] = x >> s;
		r[5] = (int64_t)(ux >> s);
		r[6] = (x < y) | (x <= y) << 1 | (ux > (uint64_t)y) << 2 |
		       (x == y) << 3 | (ux >= (uint64_t)y) << 4 | (x != y) << 5;
		r[7] = (x & y) ^ (x | 12345) ^ ~y;
		r[8] = x > y ? x : y;
		r[9] = (int64_t)((uint64_t)(int64_t)(int32_t)x * 7 +
				 (uint64_t)(x >> 40) + (ux >> 33) + (ux << 17));
		r[10] = (int64_t)(uint32_t)y + (int64_t)(int32_t)(x >> 3);
		r[11] = (int64_t)((uint64_t)-x * 1000003u + (uint64_t)i * 0x100000001ull);
		for (k = 0; k < 12; k++)
			if (r[k] != o[12 * i + k]) {
				fprintf(stderr, "i %u op %d: %llx vs %llx\n", i, k,
					(unsigned long long)r[k],
					(unsigned long long)o[12 * i + k]);
				ASSERT_EQ(r[k], o[12 * i + k]);
			}
	}
	vg_kernel_free(c.k);

	load(_metadata, prog, "divs", &c);
	set_u64(&c, 0, ia_va);
	set_u64(&c, 1, ib_va);
	set_u64(&c, 2, io_va);
	set_u64(&c, 3, uo_va);
	set_u64(&c, 4, so_va);
	set_u64(&c, 5, co_va);
	set_u32(&c, 6, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 32));
	for (i = 0; i < n; i++) {
		int32_t x = ia[i], y = ib[i];
		int16_t sx = (int16_t)x, sy = (int16_t)(y | 1);
		uint8_t cx = (uint8_t)x, cy = (uint8_t)(y | 1);

		ASSERT_EQ(x / y, io[2 * i]);
		ASSERT_EQ(x % y, io[2 * i + 1]);
		ASSERT_EQ((uint32_t)x / (uint32_t)y, uo[2 * i]);
		ASSERT_EQ((uint32_t)x % (uint32_t)y, uo[2 * i + 1]);
		ASSERT_EQ((int16_t)(sx / sy + (sx >> 3) + (int16_t)(sx * 3)), so[i]);
		ASSERT_EQ((uint8_t)(cx / cy + cx * 5 + (cx >> 1) + (x < 0 ? 7 : 0)),
			  co[i]);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */

static const char div64_src[] =
	"kernel void d64(global const long *a, global const long *b,\n"
	"                global long *o, global float *f, global long *g, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i >= n) return;\n"
	"	long x = a[i], y = b[i];\n"
	"	o[4 * i] = x / y;\n"
	"	o[4 * i + 1] = x % y;\n"
	"	o[4 * i + 2] = (long)((ulong)x / (ulong)y);\n"
	"	o[4 * i + 3] = (long)((ulong)x % (ulong)y);\n"
	"	f[2 * i] = (float)x;\n"
	"	f[2 * i + 1] = (float)(ulong)y;\n"
	"	g[2 * i] = (long)(f[2 * i] * 0.75f);\n"
	"	g[2 * i + 1] = (long)(ulong)(fabs(f[2 * i + 1]) * 0.5f);\n"
	"}\n";

TEST_F(cc, int64_division_and_conversions)
{
	const uint32_t n = 500;
	struct vmgpu_program *prog = build(_metadata, div64_src, NULL);
	struct ck c;
	ALLOC(int64_t, a, n);
	ALLOC(int64_t, b, n);
	ALLOC(int64_t, o, 4 * n);
	ALLOC(float, f, 2 * n);
	ALLOC(int64_t, g, 2 * n);
	uint32_t i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++) {
		int sh = (int)(rng() % 60);

		a[i] = (int64_t)((uint64_t)rng() << 40 ^ (uint64_t)rng() << 16 ^ rng());
		b[i] = (int64_t)(((uint64_t)rng() << 32 ^ rng()) >> sh);
		if (i % 3 == 0)
			a[i] = -a[i];
		if (i % 5 == 0)
			b[i] = -b[i];
		if (i % 7 == 0)
			a[i] >>= 30;		/* small: the 32-bit path */
		if (!b[i])
			b[i] = 1;
	}
	load(_metadata, prog, "d64", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, b_va);
	set_u64(&c, 2, o_va);
	set_u64(&c, 3, f_va);
	set_u64(&c, 4, g_va);
	set_u32(&c, 5, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		int64_t x = a[i], y = b[i];
		float fx = (float)x, fy = (float)(uint64_t)y;

		ASSERT_EQ(x / y, o[4 * i]);
		ASSERT_EQ(x % y, o[4 * i + 1]);
		ASSERT_EQ((int64_t)((uint64_t)x / (uint64_t)y), o[4 * i + 2]);
		ASSERT_EQ((int64_t)((uint64_t)x % (uint64_t)y), o[4 * i + 3]);
		ASSERT_EQ(0, memcmp(&fx, &f[2 * i], 4));
		ASSERT_EQ(0, memcmp(&fy, &f[2 * i + 1], 4));
		ASSERT_EQ((int64_t)(fx * 0.75f), g[2 * i]);
		ASSERT_EQ((int64_t)(uint64_t)(fabsf(fy) * 0.5f), g[2 * i + 1]);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

static const char table_src[] =
	"constant float coef[5] = { 0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f };\n"
	"constant int perm[2][4] = { { 3, 1, 0, 2 }, { 0, 0, 7, -9 } };\n"
	"kernel void filt(global const float *in, global float *out, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	if (i >= n) return;\n"
	"	float s = 0.0f;\n"
	"	for (int k = 0; k < 5; k++)\n"
	"		s += coef[(k + i) % 5] * in[(i + k) % n];\n"
	"	out[i] = s + (float)perm[i & 1][i & 3];\n"
	"}\n";

TEST_F(cc, constant_arrays)
{
	const uint32_t n = 300;
	static const float coef[5] = { 0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f };
	static const int perm[2][4] = { { 3, 1, 0, 2 }, { 0, 0, 7, -9 } };
	struct vmgpu_program *prog = build(_metadata, table_src, NULL);
	struct ck c;
	ALLOC(float, in, n);
	ALLOC(float, out, n);
	uint32_t i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++)
		in[i] = rng_float();
	load(_metadata, prog, "filt", &c);
	EXPECT_GE(c.h.shared_bytes, 52u);
	set_u64(&c, 0, in_va);
	set_u64(&c, 1, out_va);
	set_u32(&c, 2, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		float s = 0.0f;
		int k;

		for (k = 0; k < 5; k++)
			s = fmaf(coef[(k + i) % 5], in[(i + k) % n], s);
		s += (float)perm[i & 1][i & 3];
		if (memcmp(&s, &out[i], 4))
			fprintf(stderr, "# %u: %a vs %a\n", i, out[i], s);
		ASSERT_EQ(0, memcmp(&s, &out[i], 4));
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* A tiled matrix multiply (2-D, local tiles, barriers in a loop) and a
 * grab bag: structs in a private array, 8/16-bit types, a char
 * parameter, an inlined helper with an early return, a 64-bit loop with a
 * data-dependent break, while (1) with two exits. */
static const char mm_src[] =
	"#define T 16\n"
	"kernel void matmul(int M, int N, int K, global const float *A,\n"
	"\t\t   global const float *B, global float *C)\n"
	"{\n"
	"\tlocal float As[T][T], Bs[T][T];\n"
	"\tint tx = get_local_id(0), ty = get_local_id(1);\n"
	"\tint col = get_global_id(0), row = get_global_id(1);\n"
	"\tfloat acc = 0.0f;\n"
	"\tfor (int t = 0; t < (K + T - 1) / T; t++) {\n"
	"\t\tint ac = t * T + tx, br = t * T + ty;\n"
	"\t\tAs[ty][tx] = row < M && ac < K ? A[row * K + ac] : 0.0f;\n"
	"\t\tBs[ty][tx] = br < K && col < N ? B[br * N + col] : 0.0f;\n"
	"\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n"
	"\t\tfor (int k = 0; k < T; k++)\n"
	"\t\t\tacc += As[ty][k] * Bs[k][tx];\n"
	"\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n"
	"\t}\n"
	"\tif (row < M && col < N)\n"
	"\t\tC[row * N + col] = acc;\n"
	"}\n"
	"typedef struct { int a; short b; uchar c; float f; } S;\n"
	"int helper(global int *p, int n) { int s = 0; for (int i = 0; i < n; i++) { if (p[i] < 0) return -s; s += p[i]; } return s; }\n"
	"kernel void misc(global int *o, global const short *sh, global uchar *uc, ulong big, char ch, global long *lo)\n"
	"{\n"
	"\tsize_t g = get_global_id(0);\n"
	"\tS arr[4];\n"
	"\tfor (int i = 0; i < 4; i++) { arr[i].a = (int)g * i; arr[i].b = sh[(g + i) & 7]; arr[i].c = uc[i]; arr[i].f = 0.5f * i; }\n"
	"\tint k = (int)(g % 4);\n"
	"\to[g] = arr[k].a + arr[k].b + arr[k].c + (int)arr[(k + 1) & 3].f + ch + helper(o + 100, (int)(g & 7));\n"
	"\tuc[16 + g] = (uchar)(arr[k].c * 3 + ch);\n"
	"\tulong acc = big;\n"
	"\tfor (size_t j = 0; j < g; j++) {\n"
	"\t\tacc = acc * 6364136223846793005ul + 1442695040888963407ul;\n"
	"\t\tif ((acc >> 60) == 7) break;\n"
	"\t}\n"
	"\tlo[g] = (long)acc;\n"
	"\twhile (1) {\n"
	"\t\tif (acc & 1) { lo[64 + g] = 1; break; }\n"
	"\t\tacc >>= 1;\n"
	"\t\tif (acc == 0) { lo[64 + g] = 2; break; }\n"
	"\t}\n"
	"}\n";

static int helper_ref(const int32_t *p, int n)
{
	int s = 0, i;

	for (i = 0; i < n; i++) {
		if (p[i] < 0)
			return -s;
		s += p[i];
	}
	return s;
}

TEST_F(cc, matmul_and_misc)
{
	const uint32_t M = 37, N = 45, K = 29;
	struct vmgpu_program *prog = build(_metadata, mm_src, NULL);
	struct ck c;
	ALLOC(float, A, M * K);
	ALLOC(float, B, K * N);
	ALLOC(float, C, M * N);
	ALLOC(int32_t, o, 108);
	ALLOC(int16_t, sh, 8);
	ALLOC(uint8_t, uc, 16 + 64);
	ALLOC(int64_t, lo, 128);
	const uint64_t big = 0x0123456789abcdefull;
	const int8_t ch = -5;
	uint32_t i, j, k;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < M * K; i++)
		A[i] = rng_float();
	for (i = 0; i < K * N; i++)
		B[i] = rng_float();
	load(_metadata, prog, "matmul", &c);
	EXPECT_EQ(2 * 16 * 16 * 4, c.h.shared_bytes);
	set_u32(&c, 0, M);
	set_u32(&c, 1, N);
	set_u32(&c, 2, K);
	set_u64(&c, 3, A_va);
	set_u64(&c, 4, B_va);
	set_u64(&c, 5, C_va);
	{
		uint32_t g[3] = { div_up(N, 16), div_up(M, 16), 1 };
		uint32_t bl[3] = { 16, 16, 1 };

		ASSERT_EQ(0, run_portion(self->tm, &c, g, bl, NULL, NULL, 0));
	}
	for (i = 0; i < M; i++)
		for (j = 0; j < N; j++) {
			float acc = 0.0f;

			for (k = 0; k < (K + 15) / 16 * 16; k++)
				acc = fmaf(k < K ? A[i * K + k] : 0.0f,
					   k < K ? B[k * N + j] : 0.0f, acc);
			ASSERT_EQ(0, memcmp(&acc, &C[i * N + j], 4));
		}
	vg_kernel_free(c.k);

	for (i = 0; i < 8; i++) {
		sh[i] = (int16_t)(rng() - 30000);
		o[100 + i] = (int32_t)(rng() % 100) - (i == 5 ? 200 : 0);
	}
	for (i = 0; i < 4; i++)
		uc[i] = (uint8_t)(200 + i * 17);
	load(_metadata, prog, "misc", &c);
	EXPECT_EQ(VMGPU_PARAM_I64, c.params[3].type);
	EXPECT_EQ(VMGPU_PARAM_I32, c.params[4].type);
	set_u64(&c, 0, o_va);
	set_u64(&c, 1, sh_va);
	set_u64(&c, 2, uc_va);
	set_u64(&c, 3, big);
	set_u32(&c, 4, (uint32_t)(int32_t)ch);
	set_u64(&c, 5, lo_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 64, 32));
	for (i = 0; i < 64; i++) {
		uint32_t kk = i % 4, n1 = (kk + 1) & 3;
		int32_t v = (int32_t)(i * kk) + sh[(i + kk) & 7] + uc[kk] +
			    (int32_t)(0.5f * n1) + ch +
			    helper_ref(&o[100], (int)(i & 7));
		uint64_t acc = big;

		ASSERT_EQ(v, o[i]);
		ASSERT_EQ((uint8_t)(uc[kk] * 3 + ch), uc[16 + i]);
		for (j = 0; j < i; j++) {
			acc = acc * 6364136223846793005ull + 1442695040888963407ull;
			if ((acc >> 60) == 7)
				break;
		}
		ASSERT_EQ((int64_t)acc, lo[i]);
		while (1) {
			if (acc & 1) {
				ASSERT_EQ(1, lo[64 + i]);
				break;
			}
			acc >>= 1;
			if (!acc) {
				ASSERT_EQ(2, lo[64 + i]);
				break;
			}
		}
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

static const char bits_src[] =
	"kernel void bits(global const uint *a, global const long *l,\n"
	"                 global uint *o, global long *lo)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	uint x = a[2 * i], y = a[2 * i + 1];\n"
	"	long p = l[2 * i], q = l[2 * i + 1];\n"
	"	o[8 * i + 0] = popcount(x);\n"
	"	o[8 * i + 1] = clz(x);\n"
	"	o[8 * i + 2] = rotate(x, y);\n"
	"	o[8 * i + 3] = add_sat(x, y);\n"
	"	o[8 * i + 4] = sub_sat(x, y);\n"
	"	o[8 * i + 5] = (uint)add_sat((int)x, (int)y);\n"
	"	o[8 * i + 6] = (uint)sub_sat((int)x, (int)y);\n"
	"	o[8 * i + 7] = (x >> 24) | ((x >> 8) & 0xff00) | ((x << 8) & 0xff0000) | (x << 24);\n"
	"	lo[4 * i + 0] = popcount(p) + clz(q);\n"
	"	lo[4 * i + 1] = rotate(p, q);\n"
	"	lo[4 * i + 2] = add_sat(p, q);\n"
	"	lo[4 * i + 3] = sub_sat(p, q);\n"
	"}\n";

static uint32_t clz32(uint32_t x) { return x ? (uint32_t)__builtin_clz(x) : 32; }
static int64_t clz64(uint64_t x) { return x ? __builtin_clzll(x) : 64; }

TEST_F(cc, bit_functions_and_saturation)
{
	const uint32_t n = 256;
	struct vmgpu_program *prog = build(_metadata, bits_src, NULL);
	struct ck c;
	ALLOC(uint32_t, a, 2 * n);
	ALLOC(int64_t, l, 2 * n);
	ALLOC(uint32_t, o, 8 * n);
	ALLOC(int64_t, lo, 4 * n);
	uint32_t i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < 2 * n; i++) {
		a[i] = i % 5 == 0 ? 0 : i % 7 == 0 ? 0x80000000u - (i & 3) :
		       (uint32_t)(rng() << 8 ^ rng()) >> (rng() % 32);
		l[i] = (int64_t)((uint64_t)rng() << 40 ^ (uint64_t)rng() << 16 ^ rng()) >> (rng() % 64);
		if (i % 9 == 0)
			l[i] = i % 2 ? INT64_MAX - 3 : INT64_MIN + 2;
	}
	load(_metadata, prog, "bits", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, l_va);
	set_u64(&c, 2, o_va);
	set_u64(&c, 3, lo_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		uint32_t x = a[2 * i], y = a[2 * i + 1], s = y & 31, us;
		int32_t sx = (int32_t)x, sy = (int32_t)y;
		int64_t p = l[2 * i], q = l[2 * i + 1], ss;
		uint64_t sq = (uint64_t)q & 63;

		ASSERT_EQ((uint32_t)__builtin_popcount(x), o[8 * i + 0]);
		ASSERT_EQ(clz32(x), o[8 * i + 1]);
		ASSERT_EQ(s ? x << s | x >> (32 - s) : x, o[8 * i + 2]);
		us = x + y;
		ASSERT_EQ(us < x ? 0xffffffffu : us, o[8 * i + 3]);
		ASSERT_EQ(x < y ? 0u : x - y, o[8 * i + 4]);
		ss = (int64_t)sx + sy;
		ASSERT_EQ((uint32_t)(int32_t)(ss > INT32_MAX ? INT32_MAX : ss < INT32_MIN ? INT32_MIN : ss),
			  o[8 * i + 5]);
		ss = (int64_t)sx - sy;
		ASSERT_EQ((uint32_t)(int32_t)(ss > INT32_MAX ? INT32_MAX : ss < INT32_MIN ? INT32_MIN : ss),
			  o[8 * i + 6]);
		ASSERT_EQ(__builtin_bswap32(x), o[8 * i + 7]);
		ASSERT_EQ(__builtin_popcountll((uint64_t)p) + clz64((uint64_t)q), lo[4 * i + 0]);
		ASSERT_EQ((int64_t)(sq ? (uint64_t)p << sq | (uint64_t)p >> (64 - sq) : (uint64_t)p),
			  lo[4 * i + 1]);
		{
			int64_t r;

			if (__builtin_add_overflow(p, q, &r))
				r = p < 0 ? INT64_MIN : INT64_MAX;
			ASSERT_EQ(r, lo[4 * i + 2]);
			if (__builtin_sub_overflow(p, q, &r))
				r = p < 0 ? INT64_MIN : INT64_MAX;
			ASSERT_EQ(r, lo[4 * i + 3]);
		}
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* The VM test's hist (cl_sources.h), then order-dependent atomics. */
static const char atom_src[] =
	CL_HIST_HEAD_SRC
	"	int old = atomic_cmpxchg(&mm[2], i, i + 1);\n"
	"	(void)old;\n"
	"	atomic_sub(&mm[3], 2);\n"
	"	atomic_xchg(&mm[4], 42);\n"
	"}\n";

TEST_F(cc, atomics)
{
	const uint32_t n = 5000;
	struct vmgpu_program *prog = build(_metadata, atom_src, NULL);
	struct ck c;
	ALLOC(uint8_t, d, n);
	ALLOC(uint32_t, bins, 257);
	ALLOC(int32_t, mm, 5);
	ALLOC(uint32_t, bits, 3);
	struct cl_hist_ref ref;
	uint32_t i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++)
		d[i] = (uint8_t)(rng() % 200);
	cl_hist_ref(d, n, &ref);
	mm[0] = 1 << 30;
	mm[1] = -(1 << 30);
	mm[2] = 0;
	mm[3] = 0;
	bits[1] = ~0u;
	load(_metadata, prog, "hist", &c);
	set_u64(&c, 0, d_va);
	set_u64(&c, 1, bins_va);
	set_u32(&c, 2, n);
	set_u64(&c, 3, mm_va);
	set_u64(&c, 4, bits_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 128));
	ASSERT_EQ(0, memcmp(ref.bins, bins, sizeof(ref.bins)));
	EXPECT_EQ(ref.mn, mm[0]);
	EXPECT_EQ(ref.mx, mm[1]);
	/* blocks and lanes run in order: the cmpxchg chain 0->1->...->n */
	EXPECT_EQ((int32_t)n, mm[2]);
	EXPECT_EQ(-2 * (int32_t)n, mm[3]);
	EXPECT_EQ(42, mm[4]);
	EXPECT_EQ(ref.or, bits[0]);
	EXPECT_EQ(ref.and, bits[1]);
	EXPECT_EQ(ref.xr, bits[2]);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */

static const char priv_src[] =
	"kernel void sieve(global const int *in, global int *out, int n)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	int buf[40];\n"
	"	if (i >= n) return;\n"
	"	int k = in[i] & 31;\n"
	"	for (int j = 0; j < 40; j++)\n"
	"		buf[j] = j * i;\n"
	"	for (int j = 0; j < 40; j++)\n"
	"		buf[(j * 7 + k) % 40] += buf[j] ^ k;\n"
	"	out[i] = buf[k] + buf[(k + 13) % 40];\n"
	"}\n";

static int32_t sieve_ref(int32_t i, int32_t v)
{
	int32_t buf[40], k = v & 31, j;

	for (j = 0; j < 40; j++)
		buf[j] = j * i;
	for (j = 0; j < 40; j++)
		buf[(j * 7 + k) % 40] += buf[j] ^ k;
	return buf[k] + buf[(k + 13) % 40];
}

TEST_F(cc, private_array)
{
	const uint32_t n = 333;
	struct vmgpu_program *prog = build(_metadata, priv_src, NULL);
	struct ck c;
	ALLOC(int32_t, in, n);
	ALLOC(int32_t, out, n);
	uint32_t i;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++)
		in[i] = (int32_t)rng();
	load(_metadata, prog, "sieve", &c);
	EXPECT_GE(c.priv, 160u);
	/* reserved registers at the bottom: num_regs is what is used */
	EXPECT_LT(c.h.num_regs, 64u);
	EXPECT_EQ(4, c.sig.num_params);
	EXPECT_EQ(VMGPU_PARAM_BUF_RW, c.params[3].type);
	set_u64(&c, 0, in_va);
	set_u64(&c, 1, out_va);
	set_u32(&c, 2, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++)
		ASSERT_EQ(sieve_ref((int32_t)i, in[i]), out[i]);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* Many values live at once: with 16 registers they must spill. */
static const char spill_src[] =
	"kernel void many(global const float *in, global float *out)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	float v[24];\n"
	"	for (int k = 0; k < 24; k++)\n"
	"		v[k] = in[i * 24 + k];\n"
	"	float s = 0.0f;\n"
	"	for (int k = 0; k < 24; k++)\n"
	"		for (int j = 0; j < 24; j++)\n"
	"			s += v[k] * v[j] * (float)(k - j);\n"
	"	for (int k = 0; k < 24; k++)\n"
	"		out[i * 24 + k] = v[k] * s + v[23 - k];\n"
	"}\n";

TEST_F(cc, register_spilling)
{
	const uint32_t n = 70;
	struct vmgpu_program *prog = build(_metadata, spill_src,
					   "-vmgpu-max-regs=16");
	struct vmgpu_program *prog2 = build(_metadata, spill_src, NULL);
	struct ck c, c2;
	ALLOC(float, in, n * 24);
	ALLOC(float, out, n * 24);
	ALLOC(float, out2, n * 24);
	uint32_t i;

	ASSERT_NE(NULL, prog);
	ASSERT_NE(NULL, prog2);
	for (i = 0; i < n * 24; i++)
		in[i] = rng_float();
	load(_metadata, prog, "many", &c);
	load(_metadata, prog2, "many", &c2);
	EXPECT_LE(c.h.num_regs, 16u);
	EXPECT_GT(c.priv, 0u);		/* spill slots */
	EXPECT_GT(c2.h.num_regs, 16u);
	set_u64(&c, 0, in_va);
	set_u64(&c, 1, out_va);
	set_u64(&c2, 0, in_va);
	set_u64(&c2, 1, out2_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 32));
	ASSERT_EQ(0, run1d(self->tm, &c2, n, 32));
	/* same code before allocation: bit-identical results */
	ASSERT_EQ(0, memcmp(out, out2, n * 24 * 4));
	for (i = 0; i < n; i++) {
		const float *v = &in[i * 24];
		float s = 0.0f;
		int k, j;

		for (k = 0; k < 24; k++)
			for (j = 0; j < 24; j++)
				s = fmaf(v[k] * v[j], (float)(k - j), s);
		for (k = 0; k < 24; k++)
			ASSERT_LE(fabsf(fmaf(v[k], s, v[23 - k]) - out[i * 24 + k]),
				  1e-3f * (1.0f + fabsf(s)));
	}
	vg_kernel_free(c.k);
	vg_kernel_free(c2.k);
	vmgpu_program_destroy(prog);
	vmgpu_program_destroy(prog2);
}

/* ------------------------------------------------------------------ */

static const char wi_src[] =
	"kernel void ids(global uint *o)\n"
	"{\n"
	"	uint x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
	"	uint w = get_global_size(0), h = get_global_size(1);\n"
	"	global uint *p = o + 8 * ((z * h + y) * w + x);\n"
	"	p[0] = get_local_id(0) | get_local_id(1) << 8 | get_local_id(2) << 16;\n"
	"	p[1] = get_group_id(0) | get_group_id(1) << 8 | get_group_id(2) << 16;\n"
	"	p[2] = get_local_size(0) | get_local_size(1) << 8 | get_local_size(2) << 16;\n"
	"	p[3] = get_num_groups(0) | get_num_groups(1) << 8 | get_num_groups(2) << 16;\n"
	"	p[4] = get_global_offset(0) | get_global_offset(1) << 8 | get_global_offset(2) << 16;\n"
	"	p[5] = get_work_dim();\n"
	"	p[6] = x | y << 8 | z << 16;\n"
	"	p[7] = 0xabcd;\n"
	"}\n";

TEST_F(cc, work_item_functions_and_portions)
{
	/* index space 6x4x2 blocks of 4x3x2; this portion: origin (2,1,1),
	 * 3x2x1 blocks */
	const uint32_t tot[3] = { 6, 4, 2 }, bl[3] = { 4, 3, 2 };
	const uint32_t org[3] = { 2, 1, 1 }, g[3] = { 3, 2, 1 };
	const uint32_t W = 24, H = 12, D = 4;
	struct vmgpu_program *prog = build(_metadata, wi_src, NULL);
	struct ck c;
	ALLOC(uint32_t, o, 8 * W * H * D);
	uint32_t x, y, z;

	ASSERT_NE(NULL, prog);
	load(_metadata, prog, "ids", &c);
	set_u64(&c, 0, o_va);
	ASSERT_EQ(0, run_portion(self->tm, &c, g, bl, org, tot, 0));
	for (z = 0; z < D; z++)
		for (y = 0; y < H; y++)
			for (x = 0; x < W; x++) {
				uint32_t *p = &o[8 * ((z * H + y) * W + x)];
				int in = x / 4 >= 2 && x / 4 < 5 && y / 3 >= 1 &&
					 y / 3 < 3 && z / 2 == 1;

				if (!in) {
					ASSERT_EQ(0u, p[7]);
					continue;
				}
				ASSERT_EQ(0xabcdu, p[7]);
				ASSERT_EQ((x % 4) | (y % 3) << 8 | (z % 2) << 16, p[0]);
				ASSERT_EQ((x / 4) | (y / 3) << 8 | (z / 2) << 16, p[1]);
				ASSERT_EQ(4u | 3 << 8 | 2 << 16, p[2]);
				ASSERT_EQ(6u | 4 << 8 | 2 << 16, p[3]);
				/* no offset without -vmgpu-ndrange-args,
				 * whatever the portion */
				ASSERT_EQ(0u, p[4]);
				ASSERT_EQ(3u, p[5]);
				ASSERT_EQ(x | y << 8 | z << 16, p[6]);
			}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/*
 * -vmgpu-ndrange-args: the global offset and the work dimension in the
 * hidden vmgpu_ndrange0/1 pair, the same for every portion of a split
 * index space (group ids stay absolute). Item i of the range writes
 * record i: its global id, the offset, the work dimension.
 */
static const char nd_src[] =
	"kernel void nd(global uint *o, uint tag)\n"
	"{\n"
	"	uint x = get_global_id(0) - get_global_offset(0);\n"
	"	uint y = get_global_id(1) - get_global_offset(1);\n"
	"	uint z = get_global_id(2) - get_global_offset(2);\n"
	"	global uint *p = o + 4 * ((z * get_global_size(1) + y) *\n"
	"				  get_global_size(0) + x);\n"
	"	p[0] = get_global_id(0) | get_global_id(1) << 10 | get_global_id(2) << 20;\n"
	"	p[1] = get_global_offset(0) | get_global_offset(1) << 10 |\n"
	"	       get_global_offset(2) << 20;\n"
	"	p[2] = get_work_dim();\n"
	"	p[3] = tag;\n"
	"}\n"
	"kernel void plain(global uint *o) { o[get_local_id(0)] = 1; }\n";

TEST_F(cc, ndrange_args)
{
	const uint32_t bl[3] = { 4, 3, 2 }, org[3] = { 2, 1, 1 },
		       g[3] = { 3, 2, 1 }, tot[3] = { 6, 4, 2 };
	const uint32_t off[3] = { 5, 7, 9 }, W = 24, H = 12, D = 4;
	struct vmgpu_program *prog = build(_metadata, nd_src,
					   VMGPU_NDRANGE_OPTION);
	struct vmgpu_program *plain = build(_metadata, nd_src, NULL);
	struct ck c, c0;
	ALLOC(uint32_t, o, 4 * W * H * D);
	uint32_t x, y, z, w[4] = { off[0], off[1], off[2], 3 };

	ASSERT_NE(NULL, prog);
	ASSERT_NE(NULL, plain);
	load(_metadata, prog, "nd", &c);
	/* its own, then the hidden pair (8-aligned) */
	ASSERT_EQ(4u, c.sig.num_params);
	EXPECT_EQ(0, strcmp(VMGPU_NDRANGE_PARAM0, c.params[2].name));
	EXPECT_EQ(0, strcmp(VMGPU_NDRANGE_PARAM1, c.params[3].name));
	EXPECT_EQ(VMGPU_PARAM_I64, c.params[2].type);
	EXPECT_EQ(VMGPU_PARAM_I64, c.params[3].type);
	EXPECT_EQ(16u, c.params[2].offset);
	EXPECT_EQ(24u, c.params[3].offset);
	/* without, and in a kernel that reads neither: its own only */
	load(_metadata, plain, "nd", &c0);
	EXPECT_EQ(2u, c0.sig.num_params);
	vg_kernel_free(c0.k);
	load(_metadata, prog, "plain", &c0);
	EXPECT_EQ(1u, c0.sig.num_params);
	vg_kernel_free(c0.k);

	set_u64(&c, 0, o_va);
	set_u32(&c, 1, 0xabcd);
	memcpy(c.args + c.params[2].offset, w, sizeof(w));
	ASSERT_EQ(0, run_portion(self->tm, &c, g, bl, org, tot, 0));
	for (z = 0; z < D; z++)
		for (y = 0; y < H; y++)
			for (x = 0; x < W; x++) {
				uint32_t *p = &o[4 * ((z * H + y) * W + x)];
				int in = x / 4 >= 2 && x / 4 < 5 && y / 3 >= 1 &&
					 y / 3 < 3 && z / 2 == 1;

				if (!in) {
					ASSERT_EQ(0u, p[3]);
					continue;
				}
				ASSERT_EQ(0xabcdu, p[3]);
				ASSERT_EQ((x + off[0]) | (y + off[1]) << 10 |
					  (z + off[2]) << 20, p[0]);
				ASSERT_EQ(off[0] | off[1] << 10 | off[2] << 20, p[1]);
				ASSERT_EQ(3u, p[2]);
			}
	/* the work dimension is what the enqueue says: 2 with D = 1 */
	w[3] = 2;
	memcpy(c.args + c.params[2].offset, w, sizeof(w));
	ASSERT_EQ(0, run_portion(self->tm, &c, g, bl, org, tot, 0));
	ASSERT_EQ(2u, o[4 * ((2 * H + 3) * W + 8) + 2]);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
	vmgpu_program_destroy(plain);
}

static const char vec_src[] =
	"kernel void v4(global const float4 *a, global const float *b,\n"
	"               global float4 *o, global float *d, global int4 *ii)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	float4 x = a[i], y = vload4(i, b);\n"
	"	float4 r = x * y + (float4)(1.0f, 2.0f, 3.0f, 4.0f);\n"
	"	o[i] = r.wzyx - fabs(x);\n"
	"	d[i] = dot(x, y);\n"
	"	int4 k = convert_int4(x * 100.0f);\n"
	"	ii[i] = (k >> 2) + (int4)(i, -i, 2 * i, 7) + min(k, (int4)(3));\n"
	"}\n"
	"kernel void v16(global const float16 *a, global float16 *o)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	o[i] = clamp(sqrt(fabs(a[i])), 0.5f, 2.0f) + fmax(a[i], a[i].sfedcba9876543210);\n"
	"}\n";

TEST_F(cc, vectors_scalarised)
{
	const uint32_t n = 100;
	struct vmgpu_program *prog = build(_metadata, vec_src, NULL);
	struct ck c;
	ALLOC(float, a, 4 * n);
	ALLOC(float, b, 4 * n);
	ALLOC(float, o, 4 * n);
	ALLOC(float, d, n);
	ALLOC(int32_t, ii, 4 * n);
	uint32_t i, k;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < 4 * n; i++) {
		a[i] = rng_float();
		b[i] = rng_float();
	}
	load(_metadata, prog, "v4", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, b_va);
	set_u64(&c, 2, o_va);
	set_u64(&c, 3, d_va);
	set_u64(&c, 4, ii_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 32));
	for (i = 0; i < n; i++) {
		const float *x = &a[4 * i], *y = &b[4 * i];
		float dd = fmaf(x[3], y[3], fmaf(x[2], y[2], fmaf(x[1], y[1], x[0] * y[0])));

		for (k = 0; k < 4; k++) {
			float r = fmaf(x[3 - k], y[3 - k], (float)(4 - k)) - fabsf(x[k]);
			int32_t kk = (int32_t)(x[k] * 100.0f);
			int32_t add[4] = { (int32_t)i, -(int32_t)i, 2 * (int32_t)i, 7 };

			ASSERT_EQ(0, memcmp(&r, &o[4 * i + k], 4));
			ASSERT_EQ((kk >> 2) + add[k] + (kk < 3 ? kk : 3), ii[4 * i + k]);
		}
		ASSERT_EQ(0, memcmp(&dd, &d[i], 4));
	}
	vg_kernel_free(c.k);

	/* float16: clamp, sqrt, fabs, fmax by halves, a reversing swizzle */
	load(_metadata, prog, "v16", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, o_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n / 4, 32));
	for (i = 0; i < n / 4; i++)
		for (k = 0; k < 16; k++) {
			float x = a[16 * i + k], y = a[16 * i + 15 - k];
			float r = fminf(fmaxf(sqrtf(fabsf(x)), 0.5f), 2.0f) + fmaxf(x, y);

			ASSERT_EQ(0, memcmp(&r, &o[16 * i + k], 4));
		}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* Builds in two threads at once share nothing. */
/*
 * VMGPU_KERNEL_CALLS_OPTION: a kernel called like a function (OpenCL C),
 * its local array and work-item functions its caller's; the called
 * kernel's own executable is what it is in a program where nothing
 * calls it. Without the option the call is SPEC P8's error
 * (test_compiler_diag).
 */
static const char kcall_inner_src[] =
	"kernel void kc_inner(global int *p, int k)\n"
	"{\n"
	"	local int t[64];\n"
	"	int l = get_local_id(0), i = get_global_id(0);\n"
	"	t[l] = p[i] * k;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	p[i] = t[get_local_size(0) - 1 - l];\n"
	"}\n";
static const char kcall_outer_src[] =
	"kernel void kc_outer(global int *p)\n"
	"{\n"
	"	kc_inner(p, 3);\n"
	"	p[get_global_id(0)] += 1;\n"
	"}\n";

TEST_F(cc, kernel_calls_kernel)
{
	const uint32_t n = 256, bs = 64;
	char src[1024];
	struct vmgpu_program *prog, *alone;
	const void *a, *b;
	size_t na, nb;
	struct ck c;
	ALLOC(int32_t, p, n);
	uint32_t i;

	snprintf(src, sizeof(src), "%s%s", kcall_inner_src, kcall_outer_src);
	prog = build(_metadata, src, VMGPU_KERNEL_CALLS_OPTION);
	alone = build(_metadata, kcall_inner_src, NULL);
	ASSERT_NE(NULL, prog);
	ASSERT_NE(NULL, alone);
	ASSERT_EQ(2, vmgpu_program_kernel_count(prog));
	ASSERT_EQ(0, vmgpu_program_kernel_image(prog, "kc_inner", &a, &na));
	ASSERT_EQ(0, vmgpu_program_kernel_image(alone, "kc_inner", &b, &nb));
	ASSERT_EQ(na, nb);
	EXPECT_EQ(0, memcmp(a, b, na));

	for (i = 0; i < n; i++)
		p[i] = (int32_t)(i * 7 - 100);
	load(_metadata, prog, "kc_outer", &c);
	EXPECT_EQ(64 * 4, c.h.shared_bytes);
	set_u64(&c, 0, p_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, bs));
	for (i = 0; i < n; i++) {
		uint32_t src_i = i / bs * bs + bs - 1 - i % bs;

		ASSERT_EQ((int32_t)(src_i * 7 - 100) * 3 + 1, p[i]);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(alone);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */

/*
 * isnormal, nextafter and __OPENCL_VERSION__ (the CTS's limit constants
 * and macros), and a constant string of 4n+2 bytes: its table's last
 * word stored inside the kernel's shared memory.
 */
static const char misc12_src[] =
	"kernel void m12(global int *o, global float *f)\n"
	"{\n"
	"	constant char *s = \"abcdefghij\";\n"
	"	o[0] = isnormal(f[0]) + 2 * isnormal(f[1]) + 4 * isnormal(f[2])\n"
	"	       + 8 * isnormal(f[3]);\n"
	"	o[1] = __OPENCL_VERSION__;\n"
	"	o[2] = s[(int)f[4]];\n"
	"	f[5] = nextafter(f[0], f[3]);\n"
	"	f[6] = nextafter(0.0f, -1.0f);\n"
	"	f[7] = nextafter(-f[0], 0.0f);\n"
	"}\n";

TEST_F(cc, isnormal_nextafter_and_macros)
{
	struct vmgpu_program *prog = build(_metadata, misc12_src, NULL);
	struct ck c;
	ALLOC(int32_t, o, 3);
	ALLOC(float, f, 8);

	ASSERT_NE(NULL, prog);
	f[0] = 1.0f;
	f[1] = 0x1p-130f;
	f[2] = 0.0f;
	f[3] = INFINITY;
	f[4] = 9.0f;
	load(_metadata, prog, "m12", &c);
	EXPECT_EQ(0, c.h.shared_bytes % 4);
	set_u64(&c, 0, o_va);
	set_u64(&c, 1, f_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 1, 1));
	EXPECT_EQ(1, o[0]);
	EXPECT_EQ(120, o[1]);
	EXPECT_EQ('j', o[2]);
	EXPECT_EQ(nextafterf(1.0f, INFINITY), f[5]);
	EXPECT_EQ(-0x1p-149f, f[6]);
	EXPECT_EQ(nextafterf(-1.0f, 0.0f), f[7]);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/* ------------------------------------------------------------------ */

static void *build_thread(void *arg)
{
	struct vmgpu_program *prog = NULL;
	char *log = NULL;
	intptr_t r = vmgpu_program_build(flow_src, NULL, &prog, &log);

	free(log);
	vmgpu_program_destroy(prog);
	return (void *)r;
}

TEST(concurrent_builds)
{
	pthread_t t[2];
	void *r;
	int i;

	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, build_thread, NULL));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_join(t[i], &r));
		EXPECT_EQ(NULL, r);
	}
}

/*
 * Atomics on local memory (ISA version 2's atoms.*): a per-work-group
 * histogram counted in local memory then added to the global one, and
 * every other atomic on local words, compared with C.
 */
static const char local_atom_src[] =
	"kernel void lhist(global const uchar *d, global uint *bins, uint n,\n"
	"                  global int *res)\n"
	"{\n"
	"	local uint lb[64];\n"
	"	local int w[8];\n"
	"	uint t = get_local_id(0), i = get_global_id(0);\n"
	"	for (uint b = t; b < 64; b += get_local_size(0))\n"
	"		lb[b] = 0;\n"
	"	if (t < 8)\n"
	"		w[t] = t == 2 ? -1 : t == 3 ? 1000 : 0;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	if (i < n) {\n"
	"		int v = d[i];\n"
	"		atomic_inc(&lb[v & 63]);\n"
	"		atomic_add(&w[0], v);\n"
	"		atomic_sub(&w[1], 1);\n"
	"		atomic_max(&w[2], v);\n"
	"		atomic_min(&w[3], v);\n"
	"		atomic_or(&w[4], 1 << (v & 31));\n"
	"		atomic_xor(&w[5], v);\n"
	"		atom_cmpxchg(&w[6], (int)t, (int)t + 1);\n"
	"		atomic_xchg(&w[7], 7);\n"
	"	}\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	for (uint b = t; b < 64; b += get_local_size(0))\n"
	"		atomic_add(&bins[b], lb[b]);\n"
	"	if (t < 8)\n"
	"		res[get_group_id(0) * 8 + t] = w[t];\n"
	"}\n";

TEST_F(cc, local_atomics_isa2)
{
	const uint32_t n = 3000, bs = 96, groups = (n + bs - 1) / bs;
	struct vmgpu_program *prog = build(_metadata, local_atom_src,
					   "-vmgpu-isa=2");
	const void *image;
	struct vmgpu_exec_header h;
	size_t bytes;
	struct ck c;
	ALLOC(uint8_t, d, n);
	ALLOC(uint32_t, bins, 64);
	ALLOC(int32_t, res, groups * 8);
	uint32_t ref[64] = { 0 }, i, g;

	ASSERT_NE(NULL, prog);
	ASSERT_EQ(0, vmgpu_program_kernel_image(prog, "lhist", &image, &bytes));
	vmgpu_exec_header_read(&h, image);
	EXPECT_EQ(2, h.isa_version);
	for (i = 0; i < n; i++) {
		d[i] = (uint8_t)rng();
		ref[d[i] & 63]++;
	}
	load_isa(_metadata, prog, "lhist", 2, &c);
	set_u64(&c, 0, d_va);
	set_u64(&c, 1, bins_va);
	set_u32(&c, 2, n);
	set_u64(&c, 3, res_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, bs));
	EXPECT_EQ(0, memcmp(ref, bins, sizeof(ref)));
	for (g = 0; g < groups; g++) {
		int32_t sum = 0, mx = -1, mn = 1000, or = 0, xr = 0, cnt = 0;

		for (i = g * bs; i < (g + 1) * bs && i < n; i++, cnt++) {
			sum += d[i];
			mx = d[i] > mx ? d[i] : mx;
			mn = d[i] < mn ? d[i] : mn;
			or |= (int32_t)(1u << (d[i] & 31));
			xr ^= d[i];
		}
		EXPECT_EQ(sum, res[g * 8 + 0]);
		EXPECT_EQ(-cnt, res[g * 8 + 1]);
		EXPECT_EQ(mx, res[g * 8 + 2]);
		EXPECT_EQ(mn, res[g * 8 + 3]);
		EXPECT_EQ(or, res[g * 8 + 4]);
		EXPECT_EQ(xr, res[g * 8 + 5]);
		/* lanes and warps in order: the chain 0 -> 1 -> ... */
		EXPECT_EQ(cnt, res[g * 8 + 6]);
		EXPECT_EQ(7, res[g * 8 + 7]);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
	/* a device of version 1 cannot load it */
	ASSERT_EQ(0, vmgpu_program_kernel_image(prog = build(_metadata,
		local_atom_src, NULL), "lhist", &image, &bytes));
	EXPECT_EQ(VMGPU_FAULT_BAD_EXECUTABLE,
		  vg_kernel_load(&c.k, image, bytes, 1, NULL));
	vmgpu_program_destroy(prog);
}

TEST_HARNESS_MAIN
