// SPDX-License-Identifier: GPL-2.0-only
/*
 * opencl-vs-pocl: the same OpenCL programs on whatever OpenCL device the
 * ICD loader offers, timed on the host and checked against C. A plain
 * OpenCL 1.2 host program (no vmgpu header), so that it runs as well on
 * vmgpu's ICD as on PoCL's; scripts/bench/opencl-vs-pocl builds it and
 * runs it on both, one kernel at a time, alternating.
 *
 *   opencl-vs-pocl -l                      the kernels' names
 *   opencl-vs-pocl [-t gpu|cpu] [-r REPS] [-s SCALE] [KERNEL...]
 *
 * -t: the first device of that type of the first platform that has one
 * (gpu by default); -r: timed runs after one untimed warm-up (3);
 * -s: divide each kernel's size by SCALE (1), for a quick try.
 *
 * The kernels are the compiler corpus's (selftests/host/compiler_corpus.h,
 * selftests/cl_sources.h) and libshim/builtin_kernels.c's tiled matrix
 * multiply and histogram, copied as they are. For each kernel: build it
 * (the build's wall time), write its inputs, run it REPS + 1 times, the
 * inputs written again before each run and its outputs read and checked
 * after each (neither timed); the wall time of a run is clEnqueueNDRangeKernel
 * to the end of clFinish. One line a kernel:
 *
 *   name size build_ms wall_ms_median wall_ms_min device_ms cpu_ms result
 *
 * device_ms is the median CL_PROFILING_COMMAND_END - START; cpu_ms the
 * median CPU time of the process (all its threads: the embedded device's
 * and PoCL's run in it) over the same span, which a loaded machine
 * disturbs less than wall time. result is
 * "ok" or "WRONG: ..."; the exit status is 1 if any kernel was wrong or
 * failed.
 */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXBUF 6
#define MAXARG 8

/* What a kernel is given: buffers (in order), then scalars, by position. */
struct buf {
	size_t size;
	void *init;		/* written before each run; NULL: zeroed */
	void *out;		/* read back after each run when not NULL */
};

struct arg {
	int buf;		/* >= 0: that buffer */
	size_t size;		/* else a scalar of this size */
	union { int32_t i; uint32_t u; float f; } v;
};

struct bench {
	const char *name, *size;
	const char *src, *kernel;
	int dim;
	size_t global[2], local[2];
	struct buf b[MAXBUF];
	int nb;
	struct arg a[MAXARG];
	int na;
	/* NULL when right, else what is wrong (a static string) */
	const char *(*check)(struct bench *);
	void *ref;		/* the C reference's output */
	size_t n, m, k;	/* sizes the check needs */
};

static double clock_ms(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

static uint32_t seed = 12345;
static uint32_t rnd(void)
{
	seed = seed * 1664525u + 1013904223u;
	return seed >> 8;
}

static float rndf(void)		/* in [-1, 1) */
{
	return (float)(rnd() & 0xffff) / 32768.0f - 1.0f;
}

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p) {
		perror("calloc");
		exit(2);
	}
	return p;
}

static char msg[256];

/* Floats within rel * max(1, |ref|) of the reference. */
static const char *near(const float *got, const float *ref, size_t n,
			float rel)
{
	for (size_t i = 0; i < n; i++) {
		float tol = rel * fmaxf(1.0f, fabsf(ref[i]));

		if (!(fabsf(got[i] - ref[i]) <= tol)) {
			snprintf(msg, sizeof(msg), "[%zu] = %g, C says %g", i,
				 got[i], ref[i]);
			return msg;
		}
	}
	return NULL;
}

static const char *same(const void *got, const void *ref, size_t bytes)
{
	const unsigned char *g = got, *r = ref;

	for (size_t i = 0; i < bytes; i++)
		if (g[i] != r[i]) {
			snprintf(msg, sizeof(msg), "byte %zu = %u, C says %u", i,
				 g[i], r[i]);
			return msg;
		}
	return NULL;
}

static void addbuf(struct bench *k, size_t size, void *init, void *out)
{
	k->b[k->nb] = (struct buf){ size, init, out };
	k->a[k->na++] = (struct arg){ .buf = k->nb++ };
}

static void addi(struct bench *k, int32_t v)
{
	k->a[k->na++] = (struct arg){ .buf = -1, .size = 4, .v.i = v };
}

static void addf(struct bench *k, float v)
{
	k->a[k->na++] = (struct arg){ .buf = -1, .size = 4, .v.f = v };
}

/* ------------------------------------------------------------------ */
/* The kernels, each with its setup and check.                        */

#define SAXPY_SRC \
	"kernel void saxpy(int n, float a, global const float *x, global float *y)\n" \
	"{\n" \
	"	int i = get_global_id(0);\n" \
	"	if (i < n)\n" \
	"		y[i] = a * x[i] + y[i];\n" \
	"}\n"

static const char *chk_f32(struct bench *k)
{
	return near(k->b[k->nb - 1].out, k->ref, k->n, 1e-4f);
}

static void mk_saxpy(struct bench *k, size_t n)
{
	float *x = xmalloc(n * 4), *y = xmalloc(n * 4), *r = xmalloc(n * 4);

	for (size_t i = 0; i < n; i++) {
		x[i] = rndf();
		y[i] = rndf();
		r[i] = 1.5f * x[i] + y[i];
	}
	addi(k, (int)n);
	addf(k, 1.5f);
	addbuf(k, n * 4, x, NULL);
	addbuf(k, n * 4, y, xmalloc(n * 4));
	k->ref = r;
	k->n = n;
	k->dim = 1;
	k->global[0] = n;
	k->local[0] = 128;
	k->check = chk_f32;
}

#define MATMUL_SRC \
	"kernel void matmul_tiled(uint M, uint N, uint K, global const float *A,\n" \
	"                         global const float *B, global float *C)\n" \
	"{\n" \
	"	local float As[16][16], Bs[16][16];\n" \
	"	uint tx = get_local_id(0), ty = get_local_id(1);\n" \
	"	uint col = get_group_id(0) * 16 + tx, row = get_group_id(1) * 16 + ty;\n" \
	"	float acc = 0.0f;\n" \
	"	for (uint t = 0; t < K; t += 16) {\n" \
	"		As[ty][tx] = row < M && t + tx < K ? A[row * K + t + tx] : 0.0f;\n" \
	"		Bs[ty][tx] = col < N && t + ty < K ? B[(t + ty) * N + col] : 0.0f;\n" \
	"		barrier(CLK_LOCAL_MEM_FENCE);\n" \
	"		for (uint k = 0; k < 16; k++)\n" \
	"			acc = fma(As[ty][k], Bs[k][tx], acc);\n" \
	"		barrier(CLK_LOCAL_MEM_FENCE);\n" \
	"	}\n" \
	"	if (row < M && col < N)\n" \
	"		C[row * N + col] = acc;\n" \
	"}\n"

static void mk_matmul(struct bench *k, size_t n)
{
	float *a = xmalloc(n * n * 4), *b = xmalloc(n * n * 4);
	float *c = xmalloc(n * n * 4);

	for (size_t i = 0; i < n * n; i++) {
		a[i] = rndf();
		b[i] = rndf();
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			float s = 0.0f;

			for (size_t l = 0; l < n; l++)
				s = fmaf(a[i * n + l], b[l * n + j], s);
			c[i * n + j] = s;
		}
	addi(k, (int)n);
	addi(k, (int)n);
	addi(k, (int)n);
	addbuf(k, n * n * 4, a, NULL);
	addbuf(k, n * n * 4, b, NULL);
	addbuf(k, n * n * 4, NULL, xmalloc(n * n * 4));
	k->ref = c;
	k->n = n * n;
	k->dim = 2;
	k->global[0] = k->global[1] = n;
	k->local[0] = k->local[1] = 16;
	k->check = chk_f32;
}

#define BLUR_SRC \
	"kernel void blur_clamp(global const float *in, global float *out,\n" \
	"                       int w, int h)\n" \
	"{\n" \
	"	int x = get_global_id(0), y = get_global_id(1);\n" \
	"	if (x >= w || y >= h)\n" \
	"		return;\n" \
	"	float s = 0.0f;\n" \
	"	for (int dy = -1; dy <= 1; dy++)\n" \
	"		for (int dx = -1; dx <= 1; dx++)\n" \
	"			s += in[clamp(y + dy, 0, h - 1) * w + clamp(x + dx, 0, w - 1)];\n" \
	"	out[y * w + x] = s * (1.0f / 9.0f);\n" \
	"}\n"

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static const char *chk_blur(struct bench *k)
{
	return near(k->b[1].out, k->ref, k->n, 1e-5f);
}

static void mk_blur(struct bench *k, size_t n)
{
	int w = (int)n, h = (int)n;
	float *in = xmalloc(n * n * 4), *r = xmalloc(n * n * 4);

	for (size_t i = 0; i < n * n; i++)
		in[i] = rndf();
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			float s = 0.0f;

			for (int dy = -1; dy <= 1; dy++)
				for (int dx = -1; dx <= 1; dx++)
					s += in[clampi(y + dy, 0, h - 1) * w +
						clampi(x + dx, 0, w - 1)];
			r[y * w + x] = s * (1.0f / 9.0f);
		}
	addbuf(k, n * n * 4, in, NULL);
	addbuf(k, n * n * 4, NULL, xmalloc(n * n * 4));
	addi(k, w);
	addi(k, h);
	k->ref = r;
	k->n = n * n;
	k->dim = 2;
	k->global[0] = k->global[1] = n;
	k->local[0] = k->local[1] = 16;
	k->check = chk_blur;
}

#define SOBEL_SRC \
	"kernel void sobel(global const uchar *in, global uchar *out, int w, int h)\n" \
	"{\n" \
	"	int x = get_global_id(0), y = get_global_id(1);\n" \
	"	if (x >= w || y >= h)\n" \
	"		return;\n" \
	"#define P(i, j) (int)in[clamp(y + (j), 0, h - 1) * w + clamp(x + (i), 0, w - 1)]\n" \
	"	int gx = P(1, -1) + 2 * P(1, 0) + P(1, 1) - P(-1, -1) - 2 * P(-1, 0) - P(-1, 1);\n" \
	"	int gy = P(-1, 1) + 2 * P(0, 1) + P(1, 1) - P(-1, -1) - 2 * P(0, -1) - P(1, -1);\n" \
	"	out[y * w + x] = (uchar)min((int)(abs(gx) + abs(gy)), 255);\n" \
	"}\n"

static const char *chk_bytes(struct bench *k)
{
	return same(k->b[k->nb - 1].out, k->ref, k->n);
}

static void mk_sobel(struct bench *k, size_t n)
{
	int w = (int)n, h = (int)n;
	uint8_t *in = xmalloc(n * n), *r = xmalloc(n * n);

	for (size_t i = 0; i < n * n; i++)
		in[i] = (uint8_t)rnd();
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
#define P(i, j) (int)in[clampi(y + (j), 0, h - 1) * w + clampi(x + (i), 0, w - 1)]
			int gx = P(1, -1) + 2 * P(1, 0) + P(1, 1) - P(-1, -1) -
				 2 * P(-1, 0) - P(-1, 1);
			int gy = P(-1, 1) + 2 * P(0, 1) + P(1, 1) - P(-1, -1) -
				 2 * P(0, -1) - P(1, -1);
#undef P
			int s = abs(gx) + abs(gy);

			r[y * w + x] = (uint8_t)(s < 255 ? s : 255);
		}
	addbuf(k, n * n, in, NULL);
	addbuf(k, n * n, NULL, xmalloc(n * n));
	addi(k, w);
	addi(k, h);
	k->ref = r;
	k->n = n * n;
	k->dim = 2;
	k->global[0] = k->global[1] = n;
	k->local[0] = k->local[1] = 16;
	k->check = chk_bytes;
}

#define REDUCE_SRC \
	"#define B 128\n" \
	"kernel void reduce(int n, global const float *in, global float *out)\n" \
	"{\n" \
	"	local float s[B];\n" \
	"	int t = get_local_id(0), i = get_global_id(0);\n" \
	"	s[t] = i < n ? in[i] : 0.0f;\n" \
	"	barrier(CLK_LOCAL_MEM_FENCE);\n" \
	"	for (int st = B / 2; st > 0; st >>= 1) {\n" \
	"		if (t < st)\n" \
	"			s[t] += s[t + st];\n" \
	"		barrier(CLK_LOCAL_MEM_FENCE);\n" \
	"	}\n" \
	"	if (t == 0)\n" \
	"		out[get_group_id(0)] = s[0];\n" \
	"}\n"

static void mk_reduce(struct bench *k, size_t n)
{
	size_t groups = n / 128;
	float *in = xmalloc(n * 4), *r = xmalloc(groups * 4);

	for (size_t i = 0; i < n; i++)
		in[i] = rndf();
	for (size_t g = 0; g < groups; g++) {
		float s[128];

		for (int t = 0; t < 128; t++)
			s[t] = in[g * 128 + t];
		for (int st = 64; st > 0; st >>= 1)
			for (int t = 0; t < st; t++)
				s[t] += s[t + st];
		r[g] = s[0];
	}
	addi(k, (int)n);
	addbuf(k, n * 4, in, NULL);
	addbuf(k, groups * 4, NULL, xmalloc(groups * 4));
	k->ref = r;
	k->n = groups;
	k->dim = 1;
	k->global[0] = n;
	k->local[0] = 128;
	k->check = chk_f32;
}

#define SCAN_SRC \
	"#define WG 128\n" \
	"kernel void scan_incl(global const uint *in, global uint *out)\n" \
	"{\n" \
	"	local uint a[2][WG];\n" \
	"	uint t = get_local_id(0), g = get_global_id(0), p = 0;\n" \
	"	a[0][t] = in[g];\n" \
	"	barrier(CLK_LOCAL_MEM_FENCE);\n" \
	"	for (uint s = 1; s < WG; s <<= 1) {\n" \
	"		a[p ^ 1][t] = a[p][t] + (t >= s ? a[p][t - s] : 0);\n" \
	"		p ^= 1;\n" \
	"		barrier(CLK_LOCAL_MEM_FENCE);\n" \
	"	}\n" \
	"	out[g] = a[p][t];\n" \
	"}\n"

static void mk_scan(struct bench *k, size_t n)
{
	uint32_t *in = xmalloc(n * 4), *r = xmalloc(n * 4);

	for (size_t i = 0; i < n; i++)
		in[i] = rnd() & 0xffff;
	for (size_t i = 0; i < n; i++)
		r[i] = (i % 128 ? r[i - 1] : 0) + in[i];
	addbuf(k, n * 4, in, NULL);
	addbuf(k, n * 4, NULL, xmalloc(n * 4));
	k->ref = r;
	k->n = n * 4;
	k->dim = 1;
	k->global[0] = n;
	k->local[0] = 128;
	k->check = chk_bytes;
}

#define HIST_SRC \
	"kernel void histogram(uint n, global const uchar *data,\n" \
	"                      global uint *bins)\n" \
	"{\n" \
	"	uint stride = get_local_size(0) * get_num_groups(0);\n" \
	"	for (uint i = get_global_id(0); i < n; i += stride)\n" \
	"		atomic_inc(&bins[data[i]]);\n" \
	"}\n"

static void mk_hist(struct bench *k, size_t n)
{
	uint8_t *d = xmalloc(n);
	uint32_t *r = xmalloc(256 * 4);

	for (size_t i = 0; i < n; i++) {
		/* a skewed distribution: contention on a few bins */
		uint32_t v = rnd();

		d[i] = (uint8_t)((v & 3) ? (v >> 8) & 15 : v >> 16);
		r[d[i]]++;
	}
	addi(k, (int)n);
	addbuf(k, n, d, NULL);
	addbuf(k, 256 * 4, NULL, xmalloc(256 * 4));
	k->ref = r;
	k->n = 256 * 4;
	k->dim = 1;
	k->global[0] = 64 * 128;
	k->local[0] = 128;
	k->check = chk_bytes;
}

#define NBODY_SRC \
	"kernel void nbody(global const float4 *p, global float4 *acc, int n,\n" \
	"                  float eps2)\n" \
	"{\n" \
	"	int i = get_global_id(0);\n" \
	"	if (i >= n)\n" \
	"		return;\n" \
	"	float4 me = p[i];\n" \
	"	float ax = 0.0f, ay = 0.0f, az = 0.0f;\n" \
	"	for (int j = 0; j < n; j++) {\n" \
	"		float4 o = p[j];\n" \
	"		float dx = o.x - me.x, dy = o.y - me.y, dz = o.z - me.z;\n" \
	"		float r2 = dx * dx + dy * dy + dz * dz + eps2;\n" \
	"		float inv = 1.0f / (r2 * sqrt(r2));\n" \
	"		float s = o.w * inv;\n" \
	"		ax += dx * s;\n" \
	"		ay += dy * s;\n" \
	"		az += dz * s;\n" \
	"	}\n" \
	"	acc[i] = (float4)(ax, ay, az, 0.0f);\n" \
	"}\n"

static const char *chk_nbody(struct bench *k)
{
	/* sums of n terms of both signs: relative to the sum of |terms| */
	const float *got = k->b[1].out, *ref = k->ref;
	const float *mag = (const float *)k->ref + k->n;

	for (size_t i = 0; i < k->n; i++)
		if (!(fabsf(got[i] - ref[i]) <= 1e-4f * mag[i] + 1e-6f)) {
			snprintf(msg, sizeof(msg), "[%zu] = %g, C says %g", i,
				 got[i], ref[i]);
			return msg;
		}
	return NULL;
}

static void mk_nbody(struct bench *k, size_t n)
{
	float *p = xmalloc(n * 16), *r = xmalloc(n * 16 * 2);
	float *mag = r + n * 4;
	const float eps2 = 0.01f;

	for (size_t i = 0; i < n; i++) {
		p[4 * i] = rndf() * 10;
		p[4 * i + 1] = rndf() * 10;
		p[4 * i + 2] = rndf() * 10;
		p[4 * i + 3] = rndf() + 1.5f;
	}
	for (size_t i = 0; i < n; i++) {
		float a[3] = { 0 }, m[3] = { 0 };

		for (size_t j = 0; j < n; j++) {
			float d[3], r2, s;

			for (int c = 0; c < 3; c++)
				d[c] = p[4 * j + c] - p[4 * i + c];
			r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
			s = p[4 * j + 3] * (1.0f / (r2 * sqrtf(r2)));
			for (int c = 0; c < 3; c++) {
				a[c] += d[c] * s;
				m[c] += fabsf(d[c] * s);
			}
		}
		for (int c = 0; c < 3; c++) {
			r[4 * i + c] = a[c];
			mag[4 * i + c] = m[c];
		}
		r[4 * i + 3] = mag[4 * i + 3] = 0.0f;
	}
	addbuf(k, n * 16, p, NULL);
	addbuf(k, n * 16, NULL, xmalloc(n * 16));
	addi(k, (int)n);
	addf(k, eps2);
	k->ref = r;
	k->n = n * 4;
	k->dim = 1;
	k->global[0] = n;
	k->local[0] = 128;
	k->check = chk_nbody;
}

#define BITONIC_SRC \
	"kernel void bitonic256(global uint *keys)\n" \
	"{\n" \
	"	local uint k[256];\n" \
	"	uint t = get_local_id(0);\n" \
	"	global uint *g = keys + get_group_id(0) * 256;\n" \
	"	k[t] = g[t];\n" \
	"	k[t + 128] = g[t + 128];\n" \
	"	for (uint size = 2; size <= 256; size <<= 1)\n" \
	"		for (uint stride = size / 2; stride > 0; stride >>= 1) {\n" \
	"			barrier(CLK_LOCAL_MEM_FENCE);\n" \
	"			uint pos = 2 * t - (t & (stride - 1));\n" \
	"			bool up = ((pos & size) == 0) || size == 256;\n" \
	"			uint a = k[pos], b = k[pos + stride];\n" \
	"			if ((a > b) == up) {\n" \
	"				k[pos] = b;\n" \
	"				k[pos + stride] = a;\n" \
	"			}\n" \
	"		}\n" \
	"	barrier(CLK_LOCAL_MEM_FENCE);\n" \
	"	g[t] = k[t];\n" \
	"	g[t + 128] = k[t + 128];\n" \
	"}\n"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void mk_bitonic(struct bench *k, size_t n)
{
	uint32_t *in = xmalloc(n * 4), *r = xmalloc(n * 4);

	for (size_t i = 0; i < n; i++)
		in[i] = r[i] = rnd();
	for (size_t g = 0; g < n / 256; g++)
		qsort(r + g * 256, 256, 4, cmp_u32);
	addbuf(k, n * 4, in, xmalloc(n * 4));
	k->ref = r;
	k->n = n * 4;
	k->dim = 1;
	k->global[0] = n / 2;
	k->local[0] = 128;
	k->check = chk_bytes;
}

#define MANDEL_SRC \
	"kernel void mandel(global uint *it, int w, int h, int maxit)\n" \
	"{\n" \
	"	int px = get_global_id(0), py = get_global_id(1);\n" \
	"	if (px >= w || py >= h)\n" \
	"		return;\n" \
	"	float cx = -2.0f + px * (3.0f / w), cy = -1.25f + py * (2.5f / h);\n" \
	"	float x = 0.0f, y = 0.0f;\n" \
	"	int k = 0;\n" \
	"	while (k < maxit && x * x + y * y <= 4.0f) {\n" \
	"		float xt = x * x - y * y + cx;\n" \
	"		y = 2.0f * x * y + cy;\n" \
	"		x = xt;\n" \
	"		k++;\n" \
	"	}\n" \
	"	it[py * w + px] = k;\n" \
	"}\n"

static const char *chk_mandel(struct bench *k)
{
	/* An orbit is chaotic: the C reference rounds as the kernel's
	 * contracted multiply-adds do (below), and must then agree exactly. */
	const uint32_t *got = k->b[0].out, *ref = k->ref;
	size_t bad = 0, first = 0;

	for (size_t i = 0; i < k->n; i++)
		if (got[i] != ref[i] && !bad++)
			first = i;
	if (bad) {
		snprintf(msg, sizeof(msg), "%zu points differ, the first [%zu] = %u, C says %u",
			 bad, first, got[first], ref[first]);
		return msg;
	}
	return NULL;
}

static void mk_mandel(struct bench *k, size_t n)
{
	int w = (int)n, h = (int)(n * 3 / 4), maxit = 256;
	uint32_t *r = xmalloc((size_t)w * h * 4);

	for (int py = 0; py < h; py++)
		for (int px = 0; px < w; px++) {
			/* with the contractions of -ffp-contract=on, OpenCL
			 * C's default, where clang makes them */
			float cx = fmaf((float)px, 3.0f / w, -2.0f);
			float cy = fmaf((float)py, 2.5f / h, -1.25f);
			float x = 0.0f, y = 0.0f;
			int it = 0;

			while (it < maxit && fmaf(x, x, y * y) <= 4.0f) {
				float xt = fmaf(x, x, -(y * y)) + cx;

				y = fmaf(2.0f * x, y, cy);
				x = xt;
				it++;
			}
			r[py * w + px] = it;
		}
	addbuf(k, (size_t)w * h * 4, NULL, xmalloc((size_t)w * h * 4));
	addi(k, w);
	addi(k, h);
	addi(k, maxit);
	k->ref = r;
	k->n = (size_t)w * h;
	k->dim = 2;
	k->global[0] = w;
	k->global[1] = h;
	k->local[0] = k->local[1] = 16;
	k->check = chk_mandel;
}

#define TRANSPOSE_SRC \
	"kernel void transpose_tiled(global const float *in, global float *out,\n" \
	"                            int w, int h)\n" \
	"{\n" \
	"	local float tile[16][17];\n" \
	"	int tx = get_local_id(0), ty = get_local_id(1);\n" \
	"	int x = get_group_id(0) * 16 + tx, y = get_group_id(1) * 16 + ty;\n" \
	"	if (x < w && y < h)\n" \
	"		tile[ty][tx] = in[y * w + x];\n" \
	"	barrier(CLK_LOCAL_MEM_FENCE);\n" \
	"	x = get_group_id(1) * 16 + tx;\n" \
	"	y = get_group_id(0) * 16 + ty;\n" \
	"	if (x < h && y < w)\n" \
	"		out[y * h + x] = tile[tx][ty];\n" \
	"}\n"

static const char *chk_transpose(struct bench *k)
{
	return same(k->b[1].out, k->ref, k->n);
}

static void mk_transpose(struct bench *k, size_t n)
{
	float *in = xmalloc(n * n * 4), *r = xmalloc(n * n * 4);

	for (size_t i = 0; i < n * n; i++)
		in[i] = rndf();
	for (size_t y = 0; y < n; y++)
		for (size_t x = 0; x < n; x++)
			r[x * n + y] = in[y * n + x];
	addbuf(k, n * n * 4, in, NULL);
	addbuf(k, n * n * 4, NULL, xmalloc(n * n * 4));
	addi(k, (int)n);
	addi(k, (int)n);
	k->ref = r;
	k->n = n * n * 4;
	k->dim = 2;
	k->global[0] = k->global[1] = n;
	k->local[0] = k->local[1] = 16;
	k->check = chk_transpose;
}

#define SPMV_SRC \
	"kernel void spmv_csr(global const int *rows, global const int *cols,\n" \
	"                     global const float *vals, global const float *x,\n" \
	"                     global float *y, int m)\n" \
	"{\n" \
	"	int r = get_global_id(0);\n" \
	"	if (r >= m)\n" \
	"		return;\n" \
	"	float s = 0.0f;\n" \
	"	for (int k = rows[r]; k < rows[r + 1]; k++)\n" \
	"		s += vals[k] * x[cols[k]];\n" \
	"	y[r] = s;\n" \
	"}\n"

static void mk_spmv(struct bench *k, size_t m)
{
	int32_t *rows = xmalloc((m + 1) * 4), *cols;
	float *vals, *x = xmalloc(m * 4), *r = xmalloc(m * 4);
	size_t nnz = 0;

	/* 1 to 15 entries a row, near the diagonal (a banded matrix) */
	for (size_t i = 0; i < m; i++) {
		rows[i] = (int32_t)nnz;
		nnz += 1 + rnd() % 15;
	}
	rows[m] = (int32_t)nnz;
	cols = xmalloc(nnz * 4);
	vals = xmalloc(nnz * 4);
	for (size_t i = 0; i < m; i++) {
		x[i] = rndf();
		for (int32_t e = rows[i]; e < rows[i + 1]; e++) {
			long c = (long)i + (long)(rnd() % 257) - 128;

			cols[e] = (int32_t)(c < 0 ? 0 : c >= (long)m ? (long)m - 1 : c);
			vals[e] = rndf();
		}
	}
	for (size_t i = 0; i < m; i++) {
		float s = 0.0f;

		for (int32_t e = rows[i]; e < rows[i + 1]; e++)
			s += vals[e] * x[cols[e]];
		r[i] = s;
	}
	addbuf(k, (m + 1) * 4, rows, NULL);
	addbuf(k, nnz * 4, cols, NULL);
	addbuf(k, nnz * 4, vals, NULL);
	addbuf(k, m * 4, x, NULL);
	addbuf(k, m * 4, NULL, xmalloc(m * 4));
	addi(k, (int)m);
	k->ref = r;
	k->n = m;
	k->dim = 1;
	k->global[0] = m;
	k->local[0] = 128;
	k->check = chk_f32;
}

#define GEMV_SRC \
	"kernel void gemv_local(global const float *a, global const float *x,\n" \
	"                       global float *y, int m, int n)\n" \
	"{\n" \
	"	local float xs[256];\n" \
	"	int r = get_global_id(0), t = get_local_id(0);\n" \
	"	for (int k = t; k < n; k += get_local_size(0))\n" \
	"		xs[k] = x[k];\n" \
	"	barrier(CLK_LOCAL_MEM_FENCE);\n" \
	"	if (r >= m)\n" \
	"		return;\n" \
	"	float s = 0.0f;\n" \
	"	for (int k = 0; k < n; k++)\n" \
	"		s += a[r * n + k] * xs[k];\n" \
	"	y[r] = s;\n" \
	"}\n"

static void mk_gemv(struct bench *k, size_t m)
{
	const size_t n = 256;
	float *a = xmalloc(m * n * 4), *x = xmalloc(n * 4), *r = xmalloc(m * 4);

	for (size_t i = 0; i < m * n; i++)
		a[i] = rndf();
	for (size_t i = 0; i < n; i++)
		x[i] = rndf();
	for (size_t i = 0; i < m; i++) {
		float s = 0.0f;

		for (size_t l = 0; l < n; l++)
			s += a[i * n + l] * x[l];
		r[i] = s;
	}
	addbuf(k, m * n * 4, a, NULL);
	addbuf(k, n * 4, x, NULL);
	addbuf(k, m * 4, NULL, xmalloc(m * 4));
	addi(k, (int)m);
	addi(k, (int)n);
	k->ref = r;
	k->n = m;
	k->dim = 1;
	k->global[0] = m;
	k->local[0] = 128;
	k->check = chk_f32;
}

/* ------------------------------------------------------------------ */

struct entry {
	const char *name, *src, *kernel;
	void (*mk)(struct bench *, size_t);
	size_t n;		/* the size, before -s */
	size_t quantum;		/* the size stays a multiple of this */
	const char *unit;	/* how the size reads: %zu is n */
};

static const struct entry entries[] = {
	{ "saxpy", SAXPY_SRC, "saxpy", mk_saxpy, 1 << 22, 128, "%zu" },
	{ "matmul_tiled", MATMUL_SRC, "matmul_tiled", mk_matmul, 512, 16, "%zu^3" },
	{ "blur3x3", BLUR_SRC, "blur_clamp", mk_blur, 1024, 16, "%zu^2" },
	{ "sobel", SOBEL_SRC, "sobel", mk_sobel, 1024, 16, "%zu^2" },
	{ "reduce", REDUCE_SRC, "reduce", mk_reduce, 1 << 22, 128, "%zu" },
	{ "scan_incl", SCAN_SRC, "scan_incl", mk_scan, 1 << 20, 128, "%zu" },
	{ "histogram", HIST_SRC, "histogram", mk_hist, 1 << 22, 128, "%zu" },
	{ "nbody", NBODY_SRC, "nbody", mk_nbody, 2048, 128, "%zu" },
	{ "bitonic256", BITONIC_SRC, "bitonic256", mk_bitonic, 1 << 18, 256, "%zu" },
	{ "mandelbrot", MANDEL_SRC, "mandel", mk_mandel, 512, 64, "%zux3/4" },
	{ "transpose", TRANSPOSE_SRC, "transpose_tiled", mk_transpose, 1024, 16, "%zu^2" },
	{ "spmv_csr", SPMV_SRC, "spmv_csr", mk_spmv, 1 << 18, 128, "%zu" },
	{ "gemv", GEMV_SRC, "gemv_local", mk_gemv, 1 << 14, 128, "%zux256" },
};
#define NENTRIES (sizeof(entries) / sizeof(entries[0]))

static void die(const char *what, cl_int err)
{
	fprintf(stderr, "opencl-vs-pocl: %s: error %d\n", what, err);
	exit(2);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Build, run and check one kernel; 0 when right. */
static int run(cl_context ctx, cl_device_id dev, const struct entry *e,
	       size_t scale, int reps)
{
	struct bench k = { .name = e->name };
	size_t n = e->n / scale;
	cl_int err;
	cl_command_queue q;
	cl_program prog;
	cl_kernel kern;
	cl_mem mem[MAXBUF];
	double t0, c0, build_ms, wall[64], dev_ms[64], cpu[64];
	const char *wrong = NULL, *src = e->src;
	char size[32];

	n = n < e->quantum ? e->quantum : n / e->quantum * e->quantum;
	snprintf(size, sizeof(size), e->unit, n);
	e->mk(&k, n);

	q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
	if (err)
		die("clCreateCommandQueue", err);
	prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
	if (err)
		die("clCreateProgramWithSource", err);
	t0 = now_ms();
	err = clBuildProgram(prog, 1, &dev, "", NULL, NULL);
	build_ms = now_ms() - t0;
	if (err) {
		char log[8192] = "";

		clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG,
				      sizeof(log) - 1, log, NULL);
		printf("%-14s %-12s build failed (%d): %s\n", e->name, size,
		       err, log);
		return 1;
	}
	kern = clCreateKernel(prog, e->kernel, &err);
	if (err)
		die("clCreateKernel", err);
	for (int i = 0; i < k.nb; i++) {
		mem[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, k.b[i].size,
					NULL, &err);
		if (err)
			die("clCreateBuffer", err);
	}
	for (int i = 0; i < k.na; i++) {
		if (k.a[i].buf >= 0)
			err = clSetKernelArg(kern, i, sizeof(cl_mem),
					     &mem[k.a[i].buf]);
		else
			err = clSetKernelArg(kern, i, k.a[i].size, &k.a[i].v);
		if (err)
			die("clSetKernelArg", err);
	}
	for (int r = 0; r <= reps; r++) {
		cl_event ev;
		cl_ulong start, end;

		for (int i = 0; i < k.nb; i++) {
			if (k.b[i].init)
				err = clEnqueueWriteBuffer(q, mem[i], CL_TRUE, 0,
							   k.b[i].size,
							   k.b[i].init, 0,
							   NULL, NULL);
			else {
				static const cl_uchar zero;

				err = clEnqueueFillBuffer(q, mem[i], &zero, 1, 0,
							  k.b[i].size, 0, NULL,
							  NULL);
			}
			if (err)
				die("writing an input", err);
		}
		clFinish(q);
		c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
		t0 = now_ms();
		err = clEnqueueNDRangeKernel(q, kern, k.dim, NULL, k.global,
					     k.local, 0, NULL, &ev);
		if (err)
			die("clEnqueueNDRangeKernel", err);
		err = clFinish(q);
		if (err)
			die("clFinish", err);
		if (r) {
			wall[r - 1] = now_ms() - t0;
			cpu[r - 1] = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
		}
		clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START,
					sizeof(start), &start, NULL);
		clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END,
					sizeof(end), &end, NULL);
		if (r)
			dev_ms[r - 1] = (end - start) / 1e6;
		clReleaseEvent(ev);
		for (int i = 0; i < k.nb; i++)
			if (k.b[i].out) {
				err = clEnqueueReadBuffer(q, mem[i], CL_TRUE, 0,
							  k.b[i].size,
							  k.b[i].out, 0, NULL,
							  NULL);
				if (err)
					die("clEnqueueReadBuffer", err);
			}
		if (!wrong)
			wrong = k.check(&k);
	}
	qsort(wall, reps, sizeof(double), cmp_d);
	qsort(dev_ms, reps, sizeof(double), cmp_d);
	qsort(cpu, reps, sizeof(double), cmp_d);
	printf("%-14s %-12s %9.1f %10.3f %10.3f %10.3f %10.3f %s%s\n", e->name,
	       size, build_ms, wall[reps / 2], wall[0], dev_ms[reps / 2],
	       cpu[reps / 2],
	       wrong ? "WRONG: " : "ok", wrong ? wrong : "");
	fflush(stdout);
	for (int i = 0; i < k.nb; i++) {
		clReleaseMemObject(mem[i]);
		free(k.b[i].init);
		free(k.b[i].out);
	}
	free(k.ref);
	clReleaseKernel(kern);
	clReleaseProgram(prog);
	clReleaseCommandQueue(q);
	return wrong != NULL;
}

int main(int argc, char **argv)
{
	cl_device_type type = CL_DEVICE_TYPE_GPU;
	int reps = 3, rc = 0, i;
	size_t scale = 1;
	cl_platform_id plats[16];
	cl_uint np = 0;
	cl_device_id dev = NULL;
	cl_context ctx;
	cl_int err;
	char name[256];

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-l")) {
			for (size_t e = 0; e < NENTRIES; e++)
				printf("%s\n", entries[e].name);
			return 0;
		} else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			i++;
			type = !strcmp(argv[i], "cpu") ? CL_DEVICE_TYPE_CPU :
			       CL_DEVICE_TYPE_GPU;
		} else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
			reps = atoi(argv[++i]);
			reps = reps < 1 ? 1 : reps > 64 ? 64 : reps;
		} else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			scale = strtoul(argv[++i], NULL, 0);
			scale = scale ? scale : 1;
		} else {
			fprintf(stderr, "usage: %s [-l] [-t gpu|cpu] [-r REPS] [-s SCALE] [KERNEL...]\n",
				argv[0]);
			return 2;
		}
	}
	clGetPlatformIDs(16, plats, &np);
	for (cl_uint p = 0; p < np && !dev; p++)
		if (clGetDeviceIDs(plats[p], type, 1, &dev, NULL))
			dev = NULL;
	if (!dev) {
		fprintf(stderr, "opencl-vs-pocl: no %s device (OCL_ICD_VENDORS=%s)\n",
			type == CL_DEVICE_TYPE_CPU ? "CPU" : "GPU",
			getenv("OCL_ICD_VENDORS") ? getenv("OCL_ICD_VENDORS") : "");
		return 2;
	}
	clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof(name), name, NULL);
	fprintf(stderr, "device: %s\n", name);
	ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	if (err)
		die("clCreateContext", err);
	for (size_t e = 0; e < NENTRIES; e++) {
		int want = i == argc;

		for (int a = i; a < argc; a++)
			want |= !strcmp(argv[a], entries[e].name);
		if (want)
			rc |= run(ctx, dev, &entries[e], scale, reps);
	}
	clReleaseContext(ctx);
	return rc;
}
