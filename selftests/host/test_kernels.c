// SPDX-License-Identifier: GPL-2.0-only
/*
 * The built-in reference kernels (libshim/builtin_kernels.c), assembled and
 * run block by block through the interpreter over whole grids with partial
 * blocks at the edges, compared bit for bit with C references that use the
 * same operation order (fmaf where the kernel uses ffma).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "core/interp.h"
#include "../ref_kernels.h"
#include "testmem.h"

#define MEM_BASE	0x100000000ull
#define MEM_BYTES	(64u << 20)

static uint32_t rng_state = 12345;

static uint32_t rng(void)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return rng_state >> 8;
}

/* Values in [-8, 8) with varied low bits. */
static float rng_float(void)
{
	return (float)(int32_t)(rng() % 16777216u - 8388608u) / 1048576.0f;
}

static void put_u32(uint8_t *args, uint32_t off, uint32_t v)
{
	memcpy(args + off, &v, 4);
}

static void put_u64(uint8_t *args, uint32_t off, uint64_t v)
{
	memcpy(args + off, &v, 8);
}

static void put_f32(uint8_t *args, uint32_t off, float v)
{
	memcpy(args + off, &v, 4);
}

static uint32_t div_up(uint32_t a, uint32_t b)
{
	return (a + b - 1) / b;
}

FIXTURE(kern) {
	struct testmem *tm;
	struct vg_fault_info fault;
};

FIXTURE_SETUP(kern)
{
	self->tm = testmem_new(MEM_BASE, MEM_BYTES);
	memset(&self->fault, 0, sizeof(self->fault));
}

FIXTURE_TEARDOWN(kern)
{
	testmem_free(self->tm);
}

TEST_F(kern, saxpy)
{
	const uint32_t n = 100003;
	struct vg_kernel *k = testmem_builtin("saxpy");
	uint64_t xva = testmem_alloc(self->tm, n * 4);
	uint64_t yva = testmem_alloc(self->tm, n * 4);
	float *x = testmem_ptr(self->tm, xva), *y = testmem_ptr(self->tm, yva);
	float *ref = malloc(n * 4), a = 1.7f;
	struct vg_block_stats st = { 0 };
	uint8_t args[24] = { 0 };
	struct testmem_launch tl = {
		.grid = { div_up(n, 256), 1, 1 }, .block = { 256, 1, 1 },
		.args = args, .args_bytes = sizeof(args),
	};
	uint32_t i;

	for (i = 0; i < n; i++) {
		x[i] = rng_float();
		y[i] = rng_float();
		ref[i] = fmaf(a, x[i], y[i]);
	}
	put_u32(args, 0, n);
	put_f32(args, 4, a);
	put_u64(args, 8, xva);
	put_u64(args, 16, yva);
	ASSERT_EQ(0, testmem_run(self->tm, k, &tl, &self->fault, &st));
	ASSERT_EQ(0, memcmp(ref, y, n * 4));
	/* Every thread of the grid issued; the partial block's idle lanes
	 * are not threads. */
	EXPECT_EQ(2 * n * 4, st.bytes[VMGPU_LOC_SYSTEM] - n * 4);
	EXPECT_EQ(3 * div_up(n, 32), st.global_instrs);
	free(ref);
	vg_kernel_free(k);
}

TEST_F(kern, vecadd)
{
	const uint32_t n = 4099;
	struct vg_kernel *k = testmem_builtin("vecadd");
	uint64_t ava = testmem_alloc(self->tm, n * 4);
	uint64_t bva = testmem_alloc(self->tm, n * 4);
	uint64_t cva = testmem_alloc(self->tm, n * 4);
	float *a = testmem_ptr(self->tm, ava), *b = testmem_ptr(self->tm, bva);
	float *c = testmem_ptr(self->tm, cva);
	uint8_t args[32] = { 0 };
	struct testmem_launch tl = {
		.grid = { div_up(n, 96), 1, 1 }, .block = { 96, 1, 1 },
		.args = args, .args_bytes = sizeof(args),
	};
	uint32_t i;

	for (i = 0; i < n; i++) {
		a[i] = rng_float();
		b[i] = rng_float();
	}
	put_u32(args, 0, n);
	put_u64(args, 8, ava);
	put_u64(args, 16, bva);
	put_u64(args, 24, cva);
	ASSERT_EQ(0, testmem_run(self->tm, k, &tl, &self->fault, NULL));
	for (i = 0; i < n; i++) {
		float r = a[i] + b[i];

		ASSERT_EQ(0, memcmp(&r, &c[i], 4));
	}
	vg_kernel_free(k);
}


static void run_blur(struct __test_metadata *_metadata,
		     struct testmem *tm, uint32_t w, uint32_t h,
		     uint32_t bx, uint32_t by)
{
	struct vg_kernel *k = testmem_builtin("blur3x3");
	uint64_t inva = testmem_alloc(tm, (size_t)w * h * 4);
	uint64_t outva = testmem_alloc(tm, (size_t)w * h * 4);
	float *in = testmem_ptr(tm, inva), *out = testmem_ptr(tm, outva);
	float *ref = malloc((size_t)w * h * 4);
	struct vg_fault_info fault;
	uint8_t args[24] = { 0 };
	struct testmem_launch tl = {
		.grid = { div_up(w, bx), div_up(h, by), 1 },
		.block = { bx, by, 1 },
		.args = args, .args_bytes = sizeof(args),
	};
	uint32_t i;

	for (i = 0; i < w * h; i++)
		in[i] = rng_float();
	ref_blur3x3(in, ref, w, h);
	put_u32(args, 0, w);
	put_u32(args, 4, h);
	put_u64(args, 8, inva);
	put_u64(args, 16, outva);
	ASSERT_EQ(0, testmem_run(tm, k, &tl, &fault, NULL));
	ASSERT_EQ(0, memcmp(ref, out, (size_t)w * h * 4));
	free(ref);
	vg_kernel_free(k);
}

TEST_F(kern, blur3x3)
{
	run_blur(_metadata, self->tm, 517, 263, 16, 16);
}

TEST_F(kern, blur3x3_odd_blocks)
{
	/* Blocks whose rows do not fill warps; 1-pixel-wide images. */
	run_blur(_metadata, self->tm, 77, 45, 13, 7);
	run_blur(_metadata, self->tm, 1, 33, 8, 8);
	run_blur(_metadata, self->tm, 40, 1, 32, 1);
}

/* relief_shadow: the CPU's shading, bit for bit, on two step counts. */
TEST_F(kern, relief_shadow)
{
	const uint32_t w = 48, h = 40, bx = 16, by = 8;
	struct vg_kernel *k = testmem_builtin("relief_shadow");
	uint64_t inva = testmem_alloc(self->tm, w * h * 4);
	uint64_t outva = testmem_alloc(self->tm, w * h * 4);
	float *in = testmem_ptr(self->tm, inva);
	float *out = testmem_ptr(self->tm, outva);
	float *ref = malloc(w * h * 4);
	struct vg_fault_info fault;
	uint8_t args[28] = { 0 };
	struct testmem_launch tl = {
		.grid = { w / bx, h / by, 1 }, .block = { bx, by, 1 },
		.args = args, .args_bytes = sizeof(args),
	};
	uint32_t x, steps, shaded = 0;

	ASSERT_NE(NULL, ref);
	for (x = 0; x < w * h; x++)
		in[x] = rng_float() * 8.0f;
	put_u32(args, 0, w);
	put_u32(args, 4, h);
	put_u64(args, 8, inva);
	put_u64(args, 16, outva);
	for (steps = 4; steps <= 24; steps += 20) {
		ref_relief_shadow(in, ref, w, h, steps);
		put_u32(args, 24, steps);
		memset(out, 0, w * h * 4);
		ASSERT_EQ(0, testmem_run(self->tm, k, &tl, &fault, NULL));
		ASSERT_EQ(0, memcmp(ref, out, w * h * 4));
	}
	for (x = 0; x < w * h; x++)
		shaded += out[x] != in[x];
	/* Both outcomes occur: the test sees the condition. */
	EXPECT_LT(0, shaded);
	EXPECT_GT(w * h, shaded);
	free(ref);
}

/*
 * stencil5: the 5-point mean in the kernel's order; the work it spins
 * (more in the hot rectangle) shows in its instruction count only.
 */
TEST_F(kern, stencil5)
{
	const uint32_t w = 96, h = 64, bx = 16, by = 8;
	struct vg_kernel *k = testmem_builtin("stencil5");
	uint64_t inva = testmem_alloc(self->tm, w * h * 4);
	uint64_t outva = testmem_alloc(self->tm, w * h * 4);
	float *in = testmem_ptr(self->tm, inva);
	float *out = testmem_ptr(self->tm, outva);
	float *ref = malloc(w * h * 4);
	struct vg_block_stats st[2];
	struct vg_fault_info fault;
	uint8_t args[40] = { 0 };
	struct testmem_launch tl = {
		.grid = { w / bx, h / by, 1 }, .block = { bx, by, 1 },
		.args = args, .args_bytes = sizeof(args),
	};
	uint32_t x, run;

	ASSERT_NE(NULL, ref);
	for (x = 0; x < w * h; x++)
		in[x] = rng_float();
	ref_stencil5(in, ref, w, h);
	put_u32(args, 0, w);
	put_u32(args, 4, h);
	put_u64(args, 8, inva);
	put_u64(args, 16, outva);
	for (run = 0; run < 2; run++) {
		put_u32(args, 24, run ? 50 : 0);	/* extra in the hot area */
		put_u32(args, 28, w / 2);
		put_u32(args, 32, h / 2);
		put_u32(args, 36, 10);			/* work everywhere */
		memset(out, 0, w * h * 4);
		memset(&st[run], 0, sizeof(st[run]));
		ASSERT_EQ(0, testmem_run(self->tm, k, &tl, &fault, &st[run]));
		ASSERT_EQ(0, memcmp(ref, out, w * h * 4));
	}
	/* The hot quarter's 50 more iterations cost instructions. */
	EXPECT_LT(st[0].thread_instrs + (uint64_t)w * h / 4 * 50,
		  st[1].thread_instrs);
	free(ref);
	vg_kernel_free(k);
}

static void reduce_ref(const float *in, uint32_t n, uint32_t block,
		       uint32_t nblocks, float *out)
{
	float *s = malloc(block * sizeof(*s));
	uint32_t b, t, stride;

	for (b = 0; b < nblocks; b++) {
		for (t = 0; t < block; t++) {
			uint32_t i = b * block + t;

			s[t] = i < n ? in[i] : 0.0f;
		}
		for (stride = block / 2; stride; stride /= 2)
			for (t = 0; t < stride; t++)
				s[t] = s[t] + s[t + stride];
		out[b] = s[0];
	}
	free(s);
}

static void run_reduce(struct __test_metadata *_metadata,
		       struct testmem *tm, uint32_t n, uint32_t block)
{
	struct vg_kernel *k = testmem_builtin("reduce_sum");
	uint32_t nb = div_up(n, block), i;
	uint64_t inva = testmem_alloc(tm, n * 4);
	uint64_t outva = testmem_alloc(tm, nb * 4);
	float *in = testmem_ptr(tm, inva), *out = testmem_ptr(tm, outva);
	float *ref = malloc(nb * 4);
	struct vg_block_stats st = { 0 };
	struct vg_fault_info fault;
	uint8_t args[24] = { 0 };
	struct testmem_launch tl = {
		.grid = { nb, 1, 1 }, .block = { block, 1, 1 },
		.args = args, .args_bytes = sizeof(args),
	};

	for (i = 0; i < n; i++)
		in[i] = rng_float();
	reduce_ref(in, n, block, nb, ref);
	put_u32(args, 0, n);
	put_u64(args, 8, inva);
	put_u64(args, 16, outva);
	ASSERT_EQ(0, testmem_run(tm, k, &tl, &fault, &st));
	ASSERT_EQ(0, memcmp(ref, out, nb * 4));
	EXPECT_NE(0, st.barriers);
	EXPECT_NE(0, st.shared_instrs);
	free(ref);
	vg_kernel_free(k);
}

TEST_F(kern, reduce_sum)
{
	run_reduce(_metadata, self->tm, 100000, 256);
	run_reduce(_metadata, self->tm, 5000, 1024);
	run_reduce(_metadata, self->tm, 333, 16);
	run_reduce(_metadata, self->tm, 1, 1);
}

TEST_F(kern, histogram)
{
	const uint32_t n = 200003;
	struct vg_kernel *k = testmem_builtin("histogram");
	uint64_t dva = testmem_alloc(self->tm, n);
	uint64_t bva = testmem_alloc(self->tm, 256 * 4);
	uint8_t *data = testmem_ptr(self->tm, dva);
	uint32_t *bins = testmem_ptr(self->tm, bva), ref[256] = { 0 }, i;
	uint8_t args[24] = { 0 };
	struct testmem_launch tl = {
		.grid = { 37, 1, 1 }, .block = { 160, 1, 1 },
		.args = args, .args_bytes = sizeof(args),
	};

	for (i = 0; i < n; i++) {
		/* Skewed, so many lanes of a warp hit the same bin. */
		data[i] = (uint8_t)(rng() % 7 ? rng() % 16 : rng());
		ref[data[i]]++;
	}
	put_u32(args, 0, n);
	put_u64(args, 8, dva);
	put_u64(args, 16, bva);
	ASSERT_EQ(0, testmem_run(self->tm, k, &tl, &self->fault, NULL));
	ASSERT_EQ(0, memcmp(ref, bins, sizeof(ref)));
	vg_kernel_free(k);
}

static void run_matmul(struct __test_metadata *_metadata,
		       struct testmem *tm, uint32_t m, uint32_t n, uint32_t kk)
{
	struct vg_kernel *k = testmem_builtin("matmul_tiled");
	uint64_t ava = testmem_alloc(tm, (size_t)m * kk * 4);
	uint64_t bva = testmem_alloc(tm, (size_t)kk * n * 4);
	uint64_t cva = testmem_alloc(tm, (size_t)m * n * 4);
	float *a = testmem_ptr(tm, ava), *b = testmem_ptr(tm, bva);
	float *c = testmem_ptr(tm, cva), *ref = malloc((size_t)m * n * 4);
	struct vg_fault_info fault;
	uint8_t args[40] = { 0 };
	struct testmem_launch tl = {
		.grid = { div_up(n, 16), div_up(m, 16), 1 },
		.block = { 16, 16, 1 },
		.args = args, .args_bytes = sizeof(args),
	};
	uint32_t i;

	for (i = 0; i < m * kk; i++)
		a[i] = rng_float();
	for (i = 0; i < kk * n; i++)
		b[i] = rng_float();
	ref_matmul_tiled(a, b, ref, m, n, kk);
	put_u32(args, 0, m);
	put_u32(args, 4, n);
	put_u32(args, 8, kk);
	put_u64(args, 16, ava);
	put_u64(args, 24, bva);
	put_u64(args, 32, cva);
	ASSERT_EQ(0, testmem_run(tm, k, &tl, &fault, NULL));
	ASSERT_EQ(0, memcmp(ref, c, (size_t)m * n * 4));
	free(ref);
	vg_kernel_free(k);
}

TEST_F(kern, matmul_tiled)
{
	run_matmul(_metadata, self->tm, 77, 93, 50);
	run_matmul(_metadata, self->tm, 64, 48, 32);
	run_matmul(_metadata, self->tm, 1, 1, 1);
}

/* Every block counted once, on the SM the interpreter was told. */
TEST_F(kern, block_sm)
{
	const uint32_t blocks = 37;
	struct vg_kernel *k = testmem_builtin("block_sm");
	uint64_t cva = testmem_alloc(self->tm, blocks * 4);
	uint64_t sva = testmem_alloc(self->tm, blocks * 4);
	uint32_t *count = testmem_ptr(self->tm, cva);
	uint32_t *sm = testmem_ptr(self->tm, sva), i;
	uint8_t args[16] = { 0 };
	struct testmem_launch tl = {
		.grid = { blocks, 1, 1 }, .block = { 96, 1, 1 },
		.args = args, .args_bytes = sizeof(args),
	};

	memset(count, 0, blocks * 4);
	memset(sm, 0xff, blocks * 4);
	put_u64(args, 0, cva);
	put_u64(args, 8, sva);
	ASSERT_EQ(0, testmem_run(self->tm, k, &tl, &self->fault, NULL));
	for (i = 0; i < blocks; i++) {
		EXPECT_EQ(1, count[i]);
		EXPECT_EQ(0, sm[i]);	/* testmem runs every block on SM 0 */
	}
	vg_kernel_free(k);
}

TEST_HARNESS_MAIN
