// SPDX-License-Identifier: GPL-2.0-only
/*
 * Interpreter benchmark: each built-in kernel run through the SM
 * interpreter over a realistic grid (store log applied per block, as in
 * the device), against the same computation compiled natively in this
 * binary. Prints thread instructions per second and the interp/native time
 * ratio, best of several repetitions.
 *
 *   build/bench/interp [REPS [KERNEL]]
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vmgpu.h"
#include "flatmem.h"
#include "core/interp.h"

static uint32_t rng_state = 1;

static uint32_t rng(void)
{
	return bench_rng(&rng_state);
}

static float rng_float(void)
{
	return (float)(rng() % 65536) / 4096.0f - 8.0f;
}

static struct vg_kernel *load_builtin(const char *name)
{
	struct vg_kernel *k;
	char err[256];
	size_t bytes;
	void *image;

	if (vmgpu_asm_assemble(vmgpu_builtin_kernel_source(name), &image,
			       &bytes, err, sizeof(err)) ||
	    vg_kernel_load(&k, image, bytes, VMGPU_ISA_VERSION, NULL)) {
		fprintf(stderr, "bench: cannot load %s: %s\n", name, err);
		exit(1);
	}
	free(image);
	return k;
}

/* Run a whole grid; the seconds it took, its thread instructions. */
static double run_grid(struct flatmem *m, const struct vg_kernel *k,
		       const void *args, uint32_t args_bytes,
		       const uint32_t grid[3], const uint32_t block[3],
		       uint64_t *thread_instrs)
{
	struct vg_block_stats st;
	double t = flat_run_grid(m, k, args, args_bytes, grid, block, &st);

	*thread_instrs = st.thread_instrs;
	return t;
}

/* ---- native versions (same operation order as the kernels) ---- */

static void native_saxpy(uint32_t n, float a, const float *x, float *y)
{
	for (uint32_t i = 0; i < n; i++)
		y[i] = fmaf(a, x[i], y[i]);
}

static void native_blur(uint32_t w, uint32_t h, const float *in, float *out)
{
	for (uint32_t y = 0; y < h; y++) {
		uint32_t r0 = (y ? y - 1 : 0) * w, r1 = y * w;
		uint32_t r2 = (y + 1 < h ? y + 1 : h - 1) * w;

		for (uint32_t x = 0; x < w; x++) {
			uint32_t c0 = x ? x - 1 : 0;
			uint32_t c2 = x + 1 < w ? x + 1 : w - 1;
			float s = in[r0 + c0];

			s += in[r0 + x];
			s += in[r0 + c2];
			s += in[r1 + c0];
			s += in[r1 + x];
			s += in[r1 + c2];
			s += in[r2 + c0];
			s += in[r2 + x];
			s += in[r2 + c2];
			out[r1 + x] = s / 9.0f;
		}
	}
}

static void native_reduce(uint32_t n, uint32_t block, const float *in,
			  float *out)
{
	float s[1024];

	for (uint32_t b = 0; b * block < n; b++) {
		for (uint32_t t = 0; t < block; t++)
			s[t] = b * block + t < n ? in[b * block + t] : 0.0f;
		for (uint32_t stride = block / 2; stride; stride /= 2)
			for (uint32_t t = 0; t < stride; t++)
				s[t] = s[t] + s[t + stride];
		out[b] = s[0];
	}
}

static void native_histogram(uint32_t n, const uint8_t *data, uint32_t *bins)
{
	for (uint32_t i = 0; i < n; i++)
		bins[data[i]]++;
}

static void native_matmul(uint32_t m, uint32_t n, uint32_t kk,
			  const float *a, const float *b, float *c)
{
	for (uint32_t i = 0; i < m; i++)
		for (uint32_t j = 0; j < n; j++) {
			float acc = 0.0f;

			for (uint32_t l = 0; l < kk; l++)
				acc = fmaf(a[i * kk + l], b[l * n + j], acc);
			c[i * n + j] = acc;
		}
}

struct result {
	const char *name;
	const char *size;
	double interp, native;
	uint64_t thread_instrs;
	bool same;
};

static void report(const struct result *r)
{
	printf("%-13s %-16s %12.1f %10.3f %10.3f %8.1fx  %s\n", r->name,
	       r->size, r->thread_instrs / r->interp / 1e6, r->interp * 1e3,
	       r->native * 1e3, r->interp / r->native,
	       r->same ? "match" : "MISMATCH");
}

static double best(double a, double b)
{
	return a < b ? a : b;
}

static const char *only;

static bool wanted(const char *name)
{
	return !only || !strcmp(only, name);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 3, rep;
	struct flatmem m;
	struct result res[5];
	uint8_t args[40];

	if (reps < 1)
		reps = 1;
	only = argc > 2 ? argv[2] : NULL;
	flat_init(&m, 256ull << 20);

	/* saxpy, 4 M elements, blocks of 256 */
	res[0].name = NULL;
	if (wanted("saxpy")) {
		const uint32_t n = 4u << 20;
		struct vg_kernel *k = load_builtin("saxpy");
		uint64_t xva = flat_alloc(&m, n * 4), yva = flat_alloc(&m, n * 4);
		float *x = flat_ptr(&m, xva), *y = flat_ptr(&m, yva);
		float *y0 = malloc(n * 4), *yn = malloc(n * 4), a = 1.25f;
		uint32_t grid[3] = { n / 256, 1, 1 }, block[3] = { 256, 1, 1 };
		struct result *r = &res[0];

		for (uint32_t i = 0; i < n; i++) {
			x[i] = rng_float();
			y0[i] = rng_float();
		}
		memcpy(args, &n, 4);
		memcpy(args + 4, &a, 4);
		memcpy(args + 8, &xva, 8);
		memcpy(args + 16, &yva, 8);
		*r = (struct result){ "saxpy", "4M", 1e9, 1e9, 0, true };
		for (rep = 0; rep < reps; rep++) {
			double t;

			memcpy(y, y0, n * 4);
			r->interp = best(r->interp, run_grid(&m, k, args, 24,
					 grid, block, &r->thread_instrs));
			memcpy(yn, y0, n * 4);
			t = bench_now();
			native_saxpy(n, a, x, yn);
			r->native = best(r->native, bench_now() - t);
		}
		r->same = !memcmp(y, yn, n * 4);
		free(y0);
		free(yn);
		vg_kernel_free(k);
	}

	/* blur3x3, 2048 x 2048, blocks of 32 x 8 */
	res[1].name = NULL;
	if (wanted("blur3x3")) {
		const uint32_t w = 2048, h = 2048;
		struct vg_kernel *k = load_builtin("blur3x3");
		uint64_t iva = flat_alloc(&m, w * h * 4);
		uint64_t ova = flat_alloc(&m, w * h * 4);
		float *in = flat_ptr(&m, iva), *out = flat_ptr(&m, ova);
		float *ref = malloc(w * h * 4);
		uint32_t grid[3] = { w / 32, h / 8, 1 }, block[3] = { 32, 8, 1 };
		struct result *r = &res[1];

		for (uint32_t i = 0; i < w * h; i++)
			in[i] = rng_float();
		memcpy(args, &w, 4);
		memcpy(args + 4, &h, 4);
		memcpy(args + 8, &iva, 8);
		memcpy(args + 16, &ova, 8);
		*r = (struct result){ "blur3x3", "2048x2048", 1e9, 1e9, 0, true };
		for (rep = 0; rep < reps; rep++) {
			double t;

			r->interp = best(r->interp, run_grid(&m, k, args, 24,
					 grid, block, &r->thread_instrs));
			t = bench_now();
			native_blur(w, h, in, ref);
			r->native = best(r->native, bench_now() - t);
		}
		r->same = !memcmp(out, ref, w * h * 4);
		free(ref);
		vg_kernel_free(k);
	}

	/* reduce_sum, 4 M elements, blocks of 256 */
	res[2].name = NULL;
	if (wanted("reduce_sum")) {
		const uint32_t n = 4u << 20, blk = 256, nb = n / blk;
		struct vg_kernel *k = load_builtin("reduce_sum");
		uint64_t iva = flat_alloc(&m, n * 4), ova = flat_alloc(&m, nb * 4);
		float *in = flat_ptr(&m, iva), *out = flat_ptr(&m, ova);
		float *ref = malloc(nb * 4);
		uint32_t grid[3] = { nb, 1, 1 }, block[3] = { blk, 1, 1 };
		struct result *r = &res[2];

		for (uint32_t i = 0; i < n; i++)
			in[i] = rng_float();
		memset(args, 0, sizeof(args));
		memcpy(args, &n, 4);
		memcpy(args + 8, &iva, 8);
		memcpy(args + 16, &ova, 8);
		*r = (struct result){ "reduce_sum", "4M", 1e9, 1e9, 0, true };
		for (rep = 0; rep < reps; rep++) {
			double t;

			r->interp = best(r->interp, run_grid(&m, k, args, 24,
					 grid, block, &r->thread_instrs));
			t = bench_now();
			native_reduce(n, blk, in, ref);
			r->native = best(r->native, bench_now() - t);
		}
		r->same = !memcmp(out, ref, nb * 4);
		free(ref);
		vg_kernel_free(k);
	}

	/* histogram, 4 M bytes, 256 blocks of 256 threads (grid-stride) */
	res[3].name = NULL;
	if (wanted("histogram")) {
		const uint32_t n = 4u << 20;
		struct vg_kernel *k = load_builtin("histogram");
		uint64_t dva = flat_alloc(&m, n), bva = flat_alloc(&m, 1024);
		uint8_t *data = flat_ptr(&m, dva);
		uint32_t *bins = flat_ptr(&m, bva), ref[256];
		uint32_t grid[3] = { 256, 1, 1 }, block[3] = { 256, 1, 1 };
		struct result *r = &res[3];

		for (uint32_t i = 0; i < n; i++)
			data[i] = (uint8_t)rng();
		memset(args, 0, sizeof(args));
		memcpy(args, &n, 4);
		memcpy(args + 8, &dva, 8);
		memcpy(args + 16, &bva, 8);
		*r = (struct result){ "histogram", "4M", 1e9, 1e9, 0, true };
		for (rep = 0; rep < reps; rep++) {
			double t;

			memset(bins, 0, 1024);
			r->interp = best(r->interp, run_grid(&m, k, args, 24,
					 grid, block, &r->thread_instrs));
			memset(ref, 0, sizeof(ref));
			t = bench_now();
			native_histogram(n, data, ref);
			r->native = best(r->native, bench_now() - t);
		}
		r->same = !memcmp(bins, ref, sizeof(ref));
		vg_kernel_free(k);
	}

	/* matmul_tiled, 256 x 256 x 256 */
	res[4].name = NULL;
	if (wanted("matmul_tiled")) {
		const uint32_t dim = 256;
		struct vg_kernel *k = load_builtin("matmul_tiled");
		uint64_t ava = flat_alloc(&m, dim * dim * 4);
		uint64_t bva = flat_alloc(&m, dim * dim * 4);
		uint64_t cva = flat_alloc(&m, dim * dim * 4);
		float *a = flat_ptr(&m, ava), *b = flat_ptr(&m, bva);
		float *c = flat_ptr(&m, cva), *ref = malloc(dim * dim * 4);
		uint32_t grid[3] = { dim / 16, dim / 16, 1 };
		uint32_t block[3] = { 16, 16, 1 };
		struct result *r = &res[4];

		for (uint32_t i = 0; i < dim * dim; i++) {
			a[i] = rng_float();
			b[i] = rng_float();
		}
		memset(args, 0, sizeof(args));
		memcpy(args, &dim, 4);
		memcpy(args + 4, &dim, 4);
		memcpy(args + 8, &dim, 4);
		memcpy(args + 16, &ava, 8);
		memcpy(args + 24, &bva, 8);
		memcpy(args + 32, &cva, 8);
		*r = (struct result){ "matmul_tiled", "256^3", 1e9, 1e9, 0, true };
		for (rep = 0; rep < reps; rep++) {
			double t;

			r->interp = best(r->interp, run_grid(&m, k, args, 40,
					 grid, block, &r->thread_instrs));
			t = bench_now();
			native_matmul(dim, dim, dim, a, b, ref);
			r->native = best(r->native, bench_now() - t);
		}
		r->same = !memcmp(c, ref, dim * dim * 4);
		free(ref);
		vg_kernel_free(k);
	}

	printf("%-13s %-16s %12s %10s %10s %9s  %s\n", "kernel", "size",
	       "Mthr-ins/s", "interp ms", "native ms", "ratio", "result");
	for (int i = 0; i < 5; i++)
		if (res[i].name)
			report(&res[i]);
	free(m.data);
	return 0;
}
