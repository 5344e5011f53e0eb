/* SPDX-License-Identifier: MIT */
/*
 * The built-in kernels' arithmetic on the CPU, in the kernels' own order
 * of operations, so that results compare bit for bit: one copy for the
 * host tests, the VM tests and the demo (header only: the VM tests are
 * single files; MIT, unlike the rest of selftests/, as the demo is).
 */
#ifndef VMGPU_REF_KERNELS_H
#define VMGPU_REF_KERNELS_H

#include <math.h>
#include <stdint.h>

/* blur3x3 over a @w x @h image: the 3 x 3 box mean, edges clamped. */
static inline void ref_blur3x3(const float *in, float *out, uint32_t w,
			       uint32_t h)
{
	uint32_t x, y;

	for (y = 0; y < h; y++) {
		uint32_t rows[3] = { y ? y - 1 : 0, y, y + 1 < h ? y + 1 : h - 1 };

		for (x = 0; x < w; x++) {
			uint32_t cols[3] = { x ? x - 1 : 0, x,
					     x + 1 < w ? x + 1 : w - 1 };
			float s = in[rows[0] * w + cols[0]];
			int i, j;

			for (i = 0; i < 3; i++)
				for (j = 0; j < 3; j++)
					if (i || j)
						s += in[rows[i] * w + cols[j]];
			out[y * w + x] = s / 9.0f;
		}
	}
}

/* stencil5: (c + left + right + up + down) * 0.2, edges clamped. */
static inline void ref_stencil5(const float *in, float *out, uint32_t w,
				uint32_t h)
{
	uint32_t x, y;

	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			uint32_t l = x ? x - 1 : 0, r = x + 1 < w ? x + 1 : w - 1;
			uint32_t u = y ? y - 1 : 0, d = y + 1 < h ? y + 1 : h - 1;
			float s = in[y * w + x];

			s = s + in[y * w + l];
			s = s + in[y * w + r];
			s = s + in[u * w + x];
			s = s + in[d * w + x];
			out[y * w + x] = s * 0.2f;
		}
}

/*
 * relief_shadow: h0 halved if a sample up-left along the diagonal rises
 * above h0 + 0.25 i, in the kernel's arithmetic.
 */
static inline void ref_relief_shadow(const float *in, float *out, uint32_t w,
				     uint32_t h, uint32_t steps)
{
	uint32_t x, y, i;

	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			float h0 = in[y * w + x], lit = 1.0f;

			for (i = 1; i <= steps; i++) {
				uint32_t xs = x > i ? x - i : 0;
				uint32_t ys = y > i ? y - i : 0;

				if (in[ys * w + xs] > (float)i * 0.25f + h0)
					lit = 0.5f;
			}
			out[y * w + x] = h0 * lit;
		}
}

/*
 * matmul_tiled: C = A B (@m x @kk by @kk x @n), each sum as the kernel
 * forms it: fused multiply-adds over @kk rounded up to the tile of 16,
 * the padding adding zeros.
 */
static inline void ref_matmul_tiled(const float *a, const float *b, float *c,
				    uint32_t m, uint32_t n, uint32_t kk)
{
	uint32_t i, j, l, kpad = (kk + 15) / 16 * 16;

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			float acc = 0.0f;

			for (l = 0; l < kpad; l++)
				acc = fmaf(l < kk ? a[i * kk + l] : 0.0f,
					   l < kk ? b[l * n + j] : 0.0f, acc);
			c[i * n + j] = acc;
		}
}

#endif
