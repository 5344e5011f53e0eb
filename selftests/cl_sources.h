/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * OpenCL C kernels that more than one test compiles: the compiler's host
 * tests run them on the interpreter (test_compiler.c, the corpus of
 * compiler_corpus.h), the VM test on the device (vmgpu_compile.c). Each
 * is a string literal macro, so that a test's source can be several of
 * them and more text, one string; with what a kernel's result must be
 * where more than one test checks it. Header only, as ref_kernels.h.
 */
#ifndef VMGPU_CL_SOURCES_H
#define VMGPU_CL_SOURCES_H

#include <stdint.h>
#include <string.h>

/* y = a * x + y */
#define CL_SAXPY_SRC \
	"kernel void saxpy(int n, float a, global const float *x, global float *y)\n" \
	"{\n" \
	"	int i = get_global_id(0);\n" \
	"	if (i < n)\n" \
	"		y[i] = a * x[i] + y[i];\n" \
	"}\n"

/* The sum of each group's 128 items in local memory (B), barriers. */
#define CL_REDUCE_SRC \
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

/* A 3x3 box filter, the edges clamped. */
#define CL_BLUR_CLAMP_SRC \
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

/*
 * The head of the kernel hist: a histogram and the atomics whose result
 * does not depend on the order of the work items. The body goes on after
 * it (more atomics) and ends with "}\n".
 */
#define CL_HIST_HEAD_SRC \
	"kernel void hist(global const uchar *d, global uint *bins, int n,\n" \
	"                 global int *mm, global uint *bits)\n" \
	"{\n" \
	"	int i = get_global_id(0);\n" \
	"	if (i >= n) return;\n" \
	"	atomic_inc(&bins[d[i]]);\n" \
	"	atomic_add(&bins[256], d[i]);\n" \
	"	atomic_min(&mm[0], (int)d[i] - 100);\n" \
	"	atomic_max(&mm[1], (int)d[i] * 3);\n" \
	"	atomic_or(&bits[0], 1u << (d[i] & 31));\n" \
	"	atomic_and(&bits[1], ~(1u << (d[i] & 31)));\n" \
	"	atomic_xor(&bits[2], (uint)d[i] * 0x01010101u);\n"

/* What CL_HIST_HEAD_SRC's atomics leave over @n items of @d. */
struct cl_hist_ref {
	uint32_t bins[257];		/* 256 counts, then the sum */
	int32_t mn, mx;			/* mm[0], mm[1] */
	uint32_t or, and, xr;		/* bits[0..2] */
};

static inline void cl_hist_ref(const uint8_t *d, uint32_t n,
			       struct cl_hist_ref *r)
{
	uint32_t i;

	memset(r, 0, sizeof(*r));
	r->mn = 1 << 30;
	r->mx = -(1 << 30);
	r->and = ~0u;
	for (i = 0; i < n; i++) {
		r->bins[d[i]]++;
		r->bins[256] += d[i];
		r->mn = r->mn < d[i] - 100 ? r->mn : d[i] - 100;
		r->mx = r->mx > d[i] * 3 ? r->mx : d[i] * 3;
		r->or |= 1u << (d[i] & 31);
		r->and &= ~(1u << (d[i] & 31));
		r->xr ^= d[i] * 0x01010101u;
	}
}

#endif
