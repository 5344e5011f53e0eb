// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OpenCL C compiler's corpus (compiler_corpus.h): typical GPU kernels
 * (scans and reductions, stencils, transposes and filters, a sort, n-body,
 * divergence, private arrays, atomics, vectors, sparse matrices), each
 * against C; and the built-in kernels in OpenCL C against their assembly
 * on the same inputs (builtin_cases.h).
 */
#include <math.h>

#include "testcc.h"
#include "../builtin_cases.h"

/* ------------------------------------------------------------------ */
/* The corpus: typical GPU kernels, each against C (bit-exact: built    */
/* with -ffp-contract=off, C doing the same operations in the same     */
/* order; n-body within 2 ulp-ish because C's compiler may reorder)    */
/* ------------------------------------------------------------------ */

#include "compiler_corpus.h"
#include "vmgpu/compiler.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

/* Run @c over a 2-D index space of w x h items in blocks of bx x by. */
static int run2d(struct testmem *tm, struct ck *c, uint32_t w, uint32_t h,
		 uint32_t bx, uint32_t by)
{
	uint32_t g[3] = { div_up(w, bx), div_up(h, by), 1 };
	uint32_t b[3] = { bx, by, 1 };

	return run_portion(tm, c, g, b, NULL, NULL, 0);
}

static struct vmgpu_program *corpus_prog(struct __test_metadata *_metadata)
{
	return build(_metadata, corpus_src, "-ffp-contract=off");
}

TEST_F(cc, corpus_scans_and_reductions)
{
	const uint32_t groups = 6, n = groups * 128;
	struct vmgpu_program *prog = corpus_prog(_metadata);
	struct ck c;
	ALLOC(uint32_t, in, n);
	ALLOC(uint32_t, out, n);
	ALLOC(float, fin, n);
	ALLOC(float, fout, groups);
	ALLOC(uint64_t, lin, n);
	ALLOC(uint64_t, lout, groups);
	ALLOC(int32_t, xi, n);
	ALLOC(int32_t, yi, n);
	ALLOC(int32_t, dsum, 1);
	uint32_t i, g, acc = 0;
	int32_t dref = 0;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++) {
		in[i] = rng() % 1000;
		fin[i] = rng_float();
		lin[i] = (uint64_t)rng() << 31 | rng();
		xi[i] = (int32_t)(rng() % 2001) - 1000;
		yi[i] = (int32_t)(rng() % 2001) - 1000;
		dref += xi[i] * yi[i];
	}
	/* inclusive (Hillis-Steele) and exclusive (Blelloch) scans */
	load(_metadata, prog, "scan_incl", &c);
	set_u64(&c, 0, in_va);
	set_u64(&c, 1, out_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 128));
	for (i = 0; i < n; i++) {
		acc = i % 128 ? acc + in[i] : in[i];
		ASSERT_EQ(acc, out[i]) TH_LOG("scan_incl %u", i);
	}
	vg_kernel_free(c.k);
	load(_metadata, prog, "scan_excl", &c);
	set_u64(&c, 0, in_va);
	set_u64(&c, 1, out_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 128));
	for (i = 0, acc = 0; i < n; i++) {
		if (i % 128 == 0)
			acc = 0;
		ASSERT_EQ(acc, out[i]) TH_LOG("scan_excl %u", i);
		acc += in[i];
	}
	vg_kernel_free(c.k);
	/* max of floats, 64-bit sums, an int dot product */
	load(_metadata, prog, "reduce_maxf", &c);
	set_u64(&c, 0, fin_va);
	set_u64(&c, 1, fout_va);
	set_u32(&c, 2, n - 5);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 128));
	for (g = 0; g < groups; g++) {
		float m = -INFINITY;

		for (i = g * 128; i < (g + 1) * 128 && i < n - 5; i++)
			m = fmaxf(m, fin[i]);
		EXPECT_EQ(m, fout[g]);
	}
	vg_kernel_free(c.k);
	load(_metadata, prog, "reduce_sum64", &c);
	set_u64(&c, 0, lin_va);
	set_u64(&c, 1, lout_va);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 128));
	for (g = 0; g < groups; g++) {
		uint64_t s = 0;

		for (i = g * 128; i < (g + 1) * 128; i++)
			s += lin[i];
		EXPECT_EQ(s, lout[g]);
	}
	vg_kernel_free(c.k);
	load(_metadata, prog, "dot_int", &c);
	set_u64(&c, 0, xi_va);
	set_u64(&c, 1, yi_va);
	set_u64(&c, 2, dsum_va);
	set_u32(&c, 3, n - 3);
	dsum[0] = 0;
	for (i = n - 3; i < n; i++)
		dref -= xi[i] * yi[i];
	ASSERT_EQ(0, run1d(self->tm, &c, n, 128));
	EXPECT_EQ(dref, dsum[0]);
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

TEST_F(cc, corpus_stencils_transposes_filters)
{
	const int w = 45, h = 30, n = 1000;
	struct vmgpu_program *prog = corpus_prog(_metadata);
	struct ck c;
	ALLOC(float, x, n);
	ALLOC(float, y, n);
	ALLOC(int32_t, u, w * h);
	ALLOC(int32_t, v, w * h);
	ALLOC(float, img, w * h);
	ALLOC(float, out, w * h);
	ALLOC(uint8_t, px, w * h);
	ALLOC(uint8_t, sob, w * h);
	int i, xx, yy, dx, dy;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++)
		x[i] = rng_float();
	for (i = 0; i < w * h; i++) {
		u[i] = (int32_t)(rng() % 1000) - 500;
		img[i] = rng_float();
		px[i] = (uint8_t)rng();
	}
	load(_metadata, prog, "stencil1d", &c);
	set_u64(&c, 0, x_va);
	set_u64(&c, 1, y_va);
	set_u32(&c, 2, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		float l = x[i > 0 ? i - 1 : 0], r = x[i < n - 1 ? i + 1 : n - 1];
		float t0 = 0.25f * l, t1 = 0.5f * x[i], t2 = 0.25f * r;

		ASSERT_EQ(t0 + t1 + t2, y[i]) TH_LOG("stencil1d %d", i);
	}
	vg_kernel_free(c.k);
	load(_metadata, prog, "laplace2d", &c);
	set_u64(&c, 0, u_va);
	set_u64(&c, 1, v_va);
	set_u32(&c, 2, w);
	set_u32(&c, 3, h);
	ASSERT_EQ(0, run2d(self->tm, &c, w, h, 16, 8));
	for (yy = 0; yy < h; yy++)
		for (xx = 0; xx < w; xx++) {
			int k = yy * w + xx, want = u[k];

			if (xx && yy && xx < w - 1 && yy < h - 1)
				want = u[k - w] + u[k + w] + u[k - 1] +
				       u[k + 1] - 4 * u[k];
			ASSERT_EQ(want, v[k]);
		}
	vg_kernel_free(c.k);
	/* both transposes, 2-D blocks of 16 x 16 */
	for (i = 0; i < 2; i++) {
		load(_metadata, prog, i ? "transpose_tiled" : "transpose_naive",
		     &c);
		memset(out, 0, w * h * 4);
		set_u64(&c, 0, img_va);
		set_u64(&c, 1, out_va);
		set_u32(&c, 2, w);
		set_u32(&c, 3, h);
		ASSERT_EQ(0, run2d(self->tm, &c, w, h, 16, 16));
		for (yy = 0; yy < h; yy++)
			for (xx = 0; xx < w; xx++)
				ASSERT_EQ(img[yy * w + xx], out[xx * h + yy]);
		vg_kernel_free(c.k);
	}
	/* box blur and Sobel with clamped edges */
	load(_metadata, prog, "blur_clamp", &c);
	set_u64(&c, 0, img_va);
	set_u64(&c, 1, out_va);
	set_u32(&c, 2, w);
	set_u32(&c, 3, h);
	ASSERT_EQ(0, run2d(self->tm, &c, w, h, 8, 8));
	for (yy = 0; yy < h; yy++)
		for (xx = 0; xx < w; xx++) {
			float s = 0.0f;

			for (dy = -1; dy <= 1; dy++)
				for (dx = -1; dx <= 1; dx++) {
					int cy = yy + dy < 0 ? 0 : yy + dy >= h ? h - 1 : yy + dy;
					int cx = xx + dx < 0 ? 0 : xx + dx >= w ? w - 1 : xx + dx;

					s += img[cy * w + cx];
				}
			ASSERT_EQ(s * (1.0f / 9.0f), out[yy * w + xx]);
		}
	vg_kernel_free(c.k);
	load(_metadata, prog, "sobel", &c);
	set_u64(&c, 0, px_va);
	set_u64(&c, 1, sob_va);
	set_u32(&c, 2, w);
	set_u32(&c, 3, h);
	ASSERT_EQ(0, run2d(self->tm, &c, w, h, 16, 4));
	for (yy = 0; yy < h; yy++)
		for (xx = 0; xx < w; xx++) {
#define PX(i_, j_) (int)px[(yy + (j_) < 0 ? 0 : yy + (j_) >= h ? h - 1 : yy + (j_)) * w + \
			   (xx + (i_) < 0 ? 0 : xx + (i_) >= w ? w - 1 : xx + (i_))]
			int gx = PX(1, -1) + 2 * PX(1, 0) + PX(1, 1) - PX(-1, -1) -
				 2 * PX(-1, 0) - PX(-1, 1);
			int gy = PX(-1, 1) + 2 * PX(0, 1) + PX(1, 1) - PX(-1, -1) -
				 2 * PX(0, -1) - PX(1, -1);
#undef PX
			int m = abs(gx) + abs(gy);

			ASSERT_EQ(m > 255 ? 255 : m, sob[yy * w + xx]);
		}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

TEST_F(cc, corpus_sort_nbody_divergence)
{
	const uint32_t n = 700, nb = 200, groups = 3, mw = 64, mh = 48;
	struct vmgpu_program *prog = corpus_prog(_metadata);
	struct ck c;
	ALLOC(uint32_t, keys, 256 * groups);
	ALLOC(float, p, nb * 4);
	ALLOC(float, acc, nb * 4);
	ALLOC(uint32_t, in, n);
	ALLOC(uint32_t, in2, n);
	ALLOC(uint32_t, out, n);
	ALLOC(uint32_t, it, mw * mh);
	uint32_t ref[256 * 3], i, j, g;

	ASSERT_NE(NULL, prog);
	/* bitonic sort, one work-group of 128 per 256 keys */
	for (i = 0; i < 256 * groups; i++)
		keys[i] = ref[i] = rng() % 5000;
	for (g = 0; g < groups; g++)
		qsort(ref + g * 256, 256, 4, cmp_u32);
	load(_metadata, prog, "bitonic256", &c);
	set_u64(&c, 0, keys_va);
	ASSERT_EQ(0, run1d(self->tm, &c, 128 * groups, 128));
	EXPECT_EQ(0, memcmp(ref, keys, 256 * groups * 4));
	vg_kernel_free(c.k);
	/* n-body accelerations (sqrt, fdiv), each term as C computes it */
	for (i = 0; i < nb * 4; i++)
		p[i] = i % 4 == 3 ? rng_range(0.5f, 2.0f) : rng_range(-10, 10);
	load(_metadata, prog, "nbody", &c);
	set_u64(&c, 0, p_va);
	set_u64(&c, 1, acc_va);
	set_u32(&c, 2, nb);
	set_f32(&c, 3, 0.01f);
	ASSERT_EQ(0, run1d(self->tm, &c, nb, 64));
	for (i = 0; i < nb; i++) {
		float ax = 0, ay = 0, az = 0;

		for (j = 0; j < nb; j++) {
			float dx = p[4 * j] - p[4 * i];
			float dy = p[4 * j + 1] - p[4 * i + 1];
			float dz = p[4 * j + 2] - p[4 * i + 2];
			float r2 = dx * dx + dy * dy + dz * dz + 0.01f;
			float s = p[4 * j + 3] * (1.0f / (r2 * sqrtf(r2)));

			ax += dx * s;
			ay += dy * s;
			az += dz * s;
		}
		EXPECT_EQ(ax, acc[4 * i]) TH_LOG("nbody %u", i);
		EXPECT_EQ(ay, acc[4 * i + 1]);
		EXPECT_EQ(az, acc[4 * i + 2]);
		EXPECT_EQ(0.0f, acc[4 * i + 3]);
	}
	vg_kernel_free(c.k);
	/* Collatz steps (a divergent 64-bit loop) and gcd */
	for (i = 0; i < n; i++) {
		in[i] = 1 + rng() % 100000;
		in2[i] = 1 + rng() % 5000;
	}
	load(_metadata, prog, "collatz", &c);
	set_u64(&c, 0, in_va);
	set_u64(&c, 1, out_va);
	set_u32(&c, 2, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		uint64_t v = in[i];
		uint32_t s = 0;

		while (v != 1 && s < 1000) {
			v = v & 1 ? 3 * v + 1 : v >> 1;
			s++;
		}
		ASSERT_EQ(s, out[i]);
	}
	vg_kernel_free(c.k);
	load(_metadata, prog, "gcd", &c);
	set_u64(&c, 0, in_va);
	set_u64(&c, 1, in2_va);
	set_u64(&c, 2, out_va);
	set_u32(&c, 3, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		uint32_t a = in[i], b = in2[i];

		while (b) {
			uint32_t r = a % b;

			a = b;
			b = r;
		}
		ASSERT_EQ(a, out[i]);
	}
	vg_kernel_free(c.k);
	/* Mandelbrot: per-pixel trip counts of a float loop */
	load(_metadata, prog, "mandel", &c);
	set_u64(&c, 0, it_va);
	set_u32(&c, 1, mw);
	set_u32(&c, 2, mh);
	set_u32(&c, 3, 200);
	ASSERT_EQ(0, run2d(self->tm, &c, mw, mh, 16, 4));
	for (j = 0; j < mh; j++)
		for (i = 0; i < mw; i++) {
			float cx = -2.0f + (float)(int)i * (3.0f / (float)mw);
			float cy = -1.25f + (float)(int)j * (2.5f / (float)mh);
			float x = 0.0f, y = 0.0f;
			uint32_t k = 0;

			while (k < 200 && x * x + y * y <= 4.0f) {
				float xt = x * x - y * y + cx;

				y = 2.0f * x * y + cy;
				x = xt;
				k++;
			}
			ASSERT_EQ(k, it[j * mw + i]) TH_LOG("mandel %u %u", i, j);
		}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

TEST_F(cc, corpus_private_atomics_vectors_sparse)
{
	const int n = 900, m = 300, dn = 256, dm = 200, deg = 6;
	struct vmgpu_program *prog = corpus_prog(_metadata);
	struct ck c;
	ALLOC(int32_t, a, n);
	ALLOC(int32_t, b, n);
	ALLOC(int32_t, r1, n);
	ALLOC(uint32_t, cnt, 1);
	ALLOC(uint8_t, rgba, n * 4);
	ALLOC(uint8_t, gr, n);
	ALLOC(float, fx, n * 4);
	ALLOC(float, fy, n * 4);
	ALLOC(float, fy0, n * 4);
	ALLOC(int32_t, rows, m + 1);
	ALLOC(int32_t, cols, m * 12);
	ALLOC(float, vals, m * 12);
	ALLOC(float, xv, dn);
	ALLOC(float, yv, dm);
	ALLOC(float, mat, dm * dn);
	ALLOC(float, coef, deg + 1);
	int32_t ref[1000], i, k, nref = 0;

	ASSERT_NE(NULL, prog);
	for (i = 0; i < n; i++) {
		a[i] = (int32_t)(rng() % 20000) - 2000;
		if (i % 17 == 0)
			a[i] = 0;
	}
	/* early returns */
	load(_metadata, prog, "classify", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, r1_va);
	set_u32(&c, 2, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		int32_t v = a[i], want = v, d;

		if (v < 0)
			want = -1;
		else if (v == 0)
			want = 0;
		else
			for (d = 2; d * d <= v; d++)
				if (v % d == 0) {
					want = d;
					break;
				}
		ASSERT_EQ(want, r1[i]) TH_LOG("classify %d", v);
	}
	vg_kernel_free(c.k);
	/* a private array sorted per thread */
	load(_metadata, prog, "median8", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, r1_va);
	set_u32(&c, 2, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		int32_t v[8];

		for (k = 0; k < 8; k++)
			v[k] = a[(i + k * 7) % n];
		qsort(v, 8, 4, cmp_i32);
		ASSERT_EQ(v[3] + v[4], r1[i]);
	}
	vg_kernel_free(c.k);
	/* stream compaction with a global atomic counter */
	load(_metadata, prog, "compact", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, b_va);
	set_u64(&c, 2, cnt_va);
	set_u32(&c, 3, n);
	set_u32(&c, 4, 9000);
	cnt[0] = 0;
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++)
		if (a[i] > 9000)
			ref[nref++] = a[i];
	ASSERT_EQ((uint32_t)nref, cnt[0]);
	qsort(ref, nref, 4, cmp_i32);
	qsort(b, nref, 4, cmp_i32);
	EXPECT_EQ(0, memcmp(ref, b, nref * 4));
	vg_kernel_free(c.k);
	/* vector types: uchar4 -> uint4 and float4 with a swizzle */
	for (i = 0; i < n * 4; i++) {
		rgba[i] = (uint8_t)rng();
		fx[i] = rng_float();
		fy[i] = fy0[i] = rng_float();
	}
	load(_metadata, prog, "gray", &c);
	set_u64(&c, 0, rgba_va);
	set_u64(&c, 1, gr_va);
	set_u32(&c, 2, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++)
		ASSERT_EQ((rgba[4 * i] * 77u + rgba[4 * i + 1] * 150u +
			   rgba[4 * i + 2] * 29u) >> 8, gr[i]);
	vg_kernel_free(c.k);
	load(_metadata, prog, "axpy4", &c);
	set_f32(&c, 0, 1.75f);
	set_u64(&c, 1, fx_va);
	set_u64(&c, 2, fy_va);
	set_u32(&c, 3, n);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++)
		for (k = 0; k < 4; k++)
			ASSERT_EQ(1.75f * fx[4 * i + k] + fy0[4 * i + 3 - k],
				  fy[4 * i + k]);
	vg_kernel_free(c.k);
	/* 64-bit index arithmetic: ulong products wrap, % is 64-bit */
	load(_metadata, prog, "gather64", &c);
	set_u64(&c, 0, a_va);
	set_u64(&c, 1, r1_va);
	set_u64(&c, 2, n);
	set_u64(&c, 3, 0x100000007ull);
	set_u64(&c, 4, (uint64_t)-5ll);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		uint64_t j = ((uint64_t)i * 0x100000007ull + (uint64_t)-5ll) % n;

		ASSERT_EQ(a[j] + (int32_t)(j >> 3), r1[i]) TH_LOG("gather64 %d", i);
	}
	vg_kernel_free(c.k);
	/* CSR sparse matrix-vector product (per-row trip counts) */
	rows[0] = 0;
	for (i = 0; i < m; i++) {
		int nnz = (int)(rng() % 13);

		rows[i + 1] = rows[i] + nnz;
		for (k = rows[i]; k < rows[i + 1]; k++) {
			cols[k] = (int32_t)(rng() % dn);
			vals[k] = rng_float();
		}
	}
	for (i = 0; i < dn; i++)
		xv[i] = rng_float();
	load(_metadata, prog, "spmv_csr", &c);
	set_u64(&c, 0, rows_va);
	set_u64(&c, 1, cols_va);
	set_u64(&c, 2, vals_va);
	set_u64(&c, 3, xv_va);
	set_u64(&c, 4, fy_va);
	set_u32(&c, 5, m);
	ASSERT_EQ(0, run1d(self->tm, &c, m, 64));
	for (i = 0; i < m; i++) {
		float s = 0.0f;

		for (k = rows[i]; k < rows[i + 1]; k++)
			s += vals[k] * xv[cols[k]];
		ASSERT_EQ(s, fy[i]) TH_LOG("spmv row %d", i);
	}
	vg_kernel_free(c.k);
	/* dense matrix-vector product with x cached in local memory */
	for (i = 0; i < dm * dn; i++)
		mat[i] = rng_float();
	load(_metadata, prog, "gemv_local", &c);
	set_u64(&c, 0, mat_va);
	set_u64(&c, 1, xv_va);
	set_u64(&c, 2, yv_va);
	set_u32(&c, 3, dm);
	set_u32(&c, 4, dn);
	ASSERT_EQ(0, run1d(self->tm, &c, dm, 64));
	for (i = 0; i < dm; i++) {
		float s = 0.0f;

		for (k = 0; k < dn; k++)
			s += mat[i * dn + k] * xv[k];
		ASSERT_EQ(s, yv[i]) TH_LOG("gemv row %d", i);
	}
	vg_kernel_free(c.k);
	/* Horner's rule with coefficients in constant memory */
	for (i = 0; i <= deg; i++)
		coef[i] = rng_range(-2, 2);
	load(_metadata, prog, "horner", &c);
	set_u64(&c, 0, fx_va);
	set_u64(&c, 1, fy_va);
	set_u32(&c, 2, n);
	set_u64(&c, 3, coef_va);
	set_u32(&c, 4, deg);
	ASSERT_EQ(0, run1d(self->tm, &c, n, 64));
	for (i = 0; i < n; i++) {
		float v = coef[deg];

		for (k = deg - 1; k >= 0; k--)
			v = v * fx[i] + coef[k];
		ASSERT_EQ(v, fy[i]);
	}
	vg_kernel_free(c.k);
	vmgpu_program_destroy(prog);
}

/*
 * The built-in kernels in OpenCL C (vmgpu_builtin_kernels_opencl()):
 * the same signatures as the assembly, and bit-identical buffers after
 * running both on the same inputs. Prints the dynamic warp-instruction
 * counts side by side.
 */
TEST_F(cc, builtins_in_opencl_c)
{
	struct vmgpu_program *prog = build(_metadata,
					   vmgpu_builtin_kernels_opencl(), NULL);
	uint32_t ci, i, j;

	ASSERT_NE(NULL, prog);
	for (ci = 0; ci < BK_CASES; ci++) {
		const struct bk_case *bc = &bk_cases[ci];
		const char *why = "";
		uint64_t va[2][3], warps[2];
		struct ck c[2];
		void *img;
		size_t bytes;
		char err[256];

		/* the assembly as a program of one kernel */
		ASSERT_EQ(0, vmgpu_asm_assemble(vmgpu_builtin_kernel_source(
				bc->name), &img, &bytes, err, sizeof(err)));
		load(_metadata, prog, bc->name, &c[1]);
		memset(&c[0], 0, sizeof(c[0]));
		vmgpu_exec_header_read(&c[0].h, img);
		ASSERT_EQ(1, vmgpu_exec_sig_read(&c[0].h, img, bytes, &c[0].sig,
						 c[0].params, &why));
		ASSERT_EQ(VMGPU_FAULT_NONE, vg_kernel_load(&c[0].k, img, bytes,
							   1, NULL));
		free(img);
		ASSERT_EQ(c[0].sig.num_params, c[1].sig.num_params);
		ASSERT_EQ(c[0].h.args_bytes, c[1].h.args_bytes);
		EXPECT_EQ(0, c[1].priv);
		for (i = 0; i < c[0].sig.num_params; i++) {
			uint32_t ta = c[0].params[i].type;
			uint32_t tc = c[1].params[i].type;

			EXPECT_EQ(c[0].params[i].offset, c[1].params[i].offset);
			/* the same, or a buffer the assembly declares read
			 * and written that the compiler sees only written
			 * (reduce_sum's out) */
			EXPECT_TRUE(ta == tc || (ta == VMGPU_PARAM_BUF_RW &&
						 tc == VMGPU_PARAM_BUF_WO))
				TH_LOG("%s parameter %u: %u vs %u", bc->name, i,
				       ta, tc);
		}
		for (j = 0; j < bc->nbuf; j++) {
			const struct bk_buf *b = &bc->buf[j];

			va[0][j] = testmem_alloc(self->tm, b->bytes);
			va[1][j] = testmem_alloc(self->tm, b->bytes);
			bk_fill(b, testmem_ptr(self->tm, va[0][j]),
				testmem_ptr(self->tm, va[1][j]), rng, rng_float);
		}
		for (i = 0; i < 2; i++) {
			for (j = 0; j < bc->nscal; j++)
				set_u32(&c[i], bc->scal[j][0], bc->scal[j][1]);
			for (j = 0; j < bc->nbuf; j++)
				set_u64(&c[i], bc->buf[j].param, va[i][j]);
			ASSERT_EQ(0, run_portion(self->tm, &c[i], bc->grid,
						 bc->block, NULL, NULL, 0));
			warps[i] = last_stats.warp_instrs;
			vg_kernel_free(c[i].k);
		}
		for (j = 0; j < bc->nbuf; j++)
			EXPECT_EQ(0, memcmp(testmem_ptr(self->tm, va[0][j]),
					    testmem_ptr(self->tm, va[1][j]),
					    bc->buf[j].bytes))
				TH_LOG("%s: buffer %u differs", bc->name, j);
		fprintf(stderr, "# %-13s warp instructions: assembly %7llu, "
			"OpenCL C %7llu (%.2fx)\n", bc->name,
			(unsigned long long)warps[0],
			(unsigned long long)warps[1],
			(double)warps[1] / (double)warps[0]);
	}
	vmgpu_program_destroy(prog);
}

TEST_HARNESS_MAIN
