/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The task-graph program of the placement tests (SPEC T8), recorded by
 * the host test on the device model (test_placement.c) and by the VM
 * test through the driver (vmgpu_taskgraph.c): two kernels in assembly,
 * one format B program with a condition and a loop on values a kernel
 * writes, its seven dispatches, the buffers' first contents and the
 * serial CPU run every placement must match. Header only, as
 * ref_kernels.h.
 */
#ifndef VMGPU_TASKGRAPH_CASES_H
#define VMGPU_TASKGRAPH_CASES_H

#include <stdint.h>
#include <string.h>

#include "vmgpu.h"
#include "vmgpu/graph.h"

#define N		256	/* words per buffer: 4 blocks of 64 */
#define NBUF		4
#define MAX_LOOP	4

/* dst[i] = dst[i] * 3 + src[i] + k: order matters for every hazard. */
static const char mix_src[] =
	".args 24\n"
	"	ldarg.64 r0, 0\n"
	"	ldarg.64 r2, 8\n"
	"	ldarg r4, 16\n"
	"	s2r r5, %ctaid.x\n"
	"	s2r r6, %ntid.x\n"
	"	s2r r7, %tid.x\n"
	"	mad r8, r5, r6, r7\n"
	"	lea r10, r0, r8, 2\n"
	"	ld.32 r12, [r10]\n"
	"	lea r10, r2, r8, 2\n"
	"	ld.32 r13, [r10]\n"
	"	mul r13, r13, 3\n"
	"	add r13, r13, r12\n"
	"	add r13, r13, r4\n"
	"	st.32 [r10], r13\n"
	"	exit\n";

/* Spin, then p[0] = a, p[1] = b: values the GPU produces late. */
static const char gen_src[] =
	".args 16\n"
	"	mov r0, 0\n"
	"loop:\n"
	"	add r0, r0, 1\n"
	"	setp.lt p0, r0, 3000\n"
	"	bra p0, loop\n"
	"	ldarg.64 r2, 0\n"
	"	ldarg r4, 8\n"
	"	ldarg r5, 12\n"
	"	st.32 [r2], r4\n"
	"	st.32 [r2 + 4], r5\n"
	"	exit\n";

/*
 * Resources 0..3 are the data buffers, 4 the values' buffer. Dispatch
 * D is mix(buf[mix_from[D]], buf[mix_to[D]], D + 1) below; dispatch 6 is
 * gen(buf[4], v0, v1).
 */
static const int mix_from[6] = { 0, 1, 2, 1, 0, 3 };
static const int mix_to[6] = { 1, 2, 0, 3, 3, 1 };

static const char program[] =
	"name \"gen\"\n"
	"write 4\n"
	"dispatch 6\n"
	"drop 4\n"
	"name \"a\"\nread 0\nwrite 1\ndispatch 0\ndrop 0\ndrop 1\n"
	"name \"b\"\nread 1\nwrite 2\ndispatch 1\ndrop 1\ndrop 2\n"
	"if $0 >= 2\n"
	"	name \"c\"\n"
	"	read 2\n	write 0\n	dispatch 2\n	drop 2\n	drop 0\n"
	"else\n"
	"	name \"d\"\n"
	"	read 1\n	write 3\n	dispatch 3\n	drop 1\n	drop 3\n"
	"end\n"
	"loop $1\n"
	"	name \"e\"\n"
	"	read 0\n	write 3\n	dispatch 4\n	drop 0\n	drop 3\n"
	"	if $0 == 3\n"
	"		name \"f\"\n"
	"		read 3\n	write 1\n	dispatch 5\n	drop 3\n"
	"		drop 1\n"
	"	end\n"
	"end\n"
	"name \"g\"\nread 3\nwrite 1\ndispatch 5\ndrop 3\ndrop 1\n";

/*
 * The program's parameters $0 and $1 as values the GPU produces (the
 * words gen writes to resource 4), for the device-built placement (c).
 */
static const struct vmgpu_graph_gpu_value gen_values[2] = {
	{ 4, 0, MAX_LOOP }, { 4, 4, MAX_LOOP },
};

/* (a) scheduled on the host, (b) by the command processor, (c) on the GPU */
enum place { HOST, CP, DEVICE };

/*
 * The seven dispatches @d of the program over buffers @buf (their
 * arguments in @mix_args and @gen_args; gen's values v0, v1 go to
 * gen_args[2] and [3] before each run).
 */
static inline void tg_dispatches(struct vmgpu_dispatch_desc d[7],
				 const struct vmgpu_bo *mix,
				 const struct vmgpu_bo *gen,
				 struct vmgpu_bo *const buf[NBUF + 1],
				 uint64_t mix_args[6][3], uint32_t gen_args[4])
{
	uint64_t va;
	int i;

	for (i = 0; i < 6; i++) {
		mix_args[i][0] = vmgpu_bo_gpu_va(buf[mix_from[i]]);
		mix_args[i][1] = vmgpu_bo_gpu_va(buf[mix_to[i]]);
		mix_args[i][2] = i + 1;
		memset(&d[i], 0, sizeof(d[i]));
		d[i].kernel = mix;
		d[i].args = mix_args[i];
		d[i].args_bytes = 24;
		d[i].grid[0] = N / 64;
		d[i].block[0] = 64;
	}
	va = vmgpu_bo_gpu_va(buf[NBUF]);
	memcpy(gen_args, &va, 8);
	memset(&d[6], 0, sizeof(d[6]));
	d[6].kernel = gen;
	d[6].args = gen_args;
	d[6].args_bytes = 16;
}

/* The first contents of data buffer @b at word @i. */
static inline uint32_t tg_initial(uint32_t b, uint32_t i)
{
	return b * 1000 + i * 7 + 1;
}

/* The buffers as before a run: the data buffers' first contents, no values. */
static inline void tg_init_data(uint32_t *const data[NBUF + 1])
{
	uint32_t b, i;

	for (b = 0; b < NBUF; b++)
		for (i = 0; i < N; i++)
			data[b][i] = tg_initial(b, i);
	memset(data[NBUF], 0, 4 * N);
}

/* The program run serially on the CPU with the values v0, v1. */
static inline void tg_reference(uint32_t out[NBUF][N], uint32_t v0,
				uint32_t v1)
{
	uint32_t seq[16], n = 0, k, b, i;

	for (b = 0; b < NBUF; b++)
		for (i = 0; i < N; i++)
			out[b][i] = tg_initial(b, i);
	seq[n++] = 0;
	seq[n++] = 1;
	seq[n++] = v0 >= 2 ? 2 : 3;
	for (k = 0; k < v1; k++) {
		seq[n++] = 4;
		if (v0 == 3)
			seq[n++] = 5;
	}
	seq[n++] = 5;
	for (k = 0; k < n; k++)
		for (i = 0; i < N; i++)
			out[mix_to[seq[k]]][i] = out[mix_to[seq[k]]][i] * 3 +
						 out[mix_from[seq[k]]][i] +
						 seq[k] + 1;
}

#endif
