// SPDX-License-Identifier: GPL-2.0-only
/*
 * Compiler benchmark: each built-in kernel in its assembly and in its
 * OpenCL C version (vmgpu_builtin_kernels_opencl(), compiled with
 * vmgpu_program_build()) run through the SM interpreter on the same inputs
 * over a realistic grid. Prints the dynamic warp-instruction counts side by
 * side with their ratio (the goal: at most 1.5), whether the outputs are
 * bit-identical, and the compile time of the OpenCL C program (first build
 * and best of REPS).
 *
 *   build/bench/compiler [REPS]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vmgpu.h"
#include "vmgpu/compiler.h"
#include "flatmem.h"
#include "core/interp.h"

static uint32_t rng_state = 1;

static uint32_t rng(void)
{
	return bench_rng(&rng_state);
}

static struct vg_kernel *load_image(const void *image, size_t bytes,
				    const char *name)
{
	struct vg_kernel *k;

	if (vg_kernel_load(&k, image, bytes, VMGPU_ISA_VERSION, NULL)) {
		fprintf(stderr, "bench: cannot load %s\n", name);
		exit(1);
	}
	return k;
}

/* Run a whole grid; its warp instructions. */
static uint64_t run_grid(struct flatmem *m, const struct vg_kernel *k,
			 const void *args, uint32_t args_bytes,
			 const uint32_t grid[3], const uint32_t block[3])
{
	struct vg_block_stats st;

	flat_run_grid(m, k, args, args_bytes, grid, block, &st);
	return st.warp_instrs;
}

/* A kernel's buffers: random floats, random bytes or zeros. */
enum { FLOATS, BYTES, ZEROS };

struct bench {
	const char *name, *size;
	uint32_t grid[3], block[3];
	uint32_t nscal, scal[4][2];	/* argument offset, value bits */
	uint32_t nbuf, buf[3][3];	/* argument offset, bytes, kind */
};

static const struct bench benches[] = {
	{ "saxpy", "1M", { 4096, 1, 1 }, { 256, 1, 1 }, 2,
	  { { 0, 1u << 20 }, { 4, 0x3fa00000 } }, 2,
	  { { 8, 4u << 20, FLOATS }, { 16, 4u << 20, FLOATS } } },
	{ "vecadd", "1M", { 4096, 1, 1 }, { 256, 1, 1 }, 1,
	  { { 0, 1u << 20 } }, 3,
	  { { 8, 4u << 20, FLOATS }, { 16, 4u << 20, FLOATS },
	    { 24, 4u << 20, ZEROS } } },
	{ "fill", "1M", { 4096, 1, 1 }, { 256, 1, 1 }, 4,
	  { { 8, 1u << 20 }, { 12, 7 }, { 16, 3 }, { 20, 0 } }, 1,
	  { { 0, 4u << 20, ZEROS } } },
	{ "blur3x3", "512x512", { 16, 64, 1 }, { 32, 8, 1 }, 2,
	  { { 0, 512 }, { 4, 512 } }, 2,
	  { { 8, 1u << 20, FLOATS }, { 16, 1u << 20, ZEROS } } },
	{ "reduce_sum", "1M", { 4096, 1, 1 }, { 256, 1, 1 }, 1,
	  { { 0, 1u << 20 } }, 2,
	  { { 8, 4u << 20, FLOATS }, { 16, 4096 * 4, ZEROS } } },
	{ "histogram", "4M bytes", { 64, 1, 1 }, { 256, 1, 1 }, 1,
	  { { 0, 4u << 20 } }, 2,
	  { { 8, 4u << 20, BYTES }, { 16, 1024, ZEROS } } },
	{ "matmul_tiled", "256^3", { 16, 16, 1 }, { 16, 16, 1 }, 3,
	  { { 0, 256 }, { 4, 256 }, { 8, 256 } }, 3,
	  { { 16, 256 * 256 * 4, FLOATS }, { 24, 256 * 256 * 4, FLOATS },
	    { 32, 256 * 256 * 4, ZEROS } } },
};

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5, rep;
	struct flatmem m;
	struct vmgpu_program *prog = NULL;
	double first = 0, best = 1e9, worst_ratio = 0;
	size_t bi;
	bool all_same = true;

	if (reps < 1)
		reps = 1;
	flat_init(&m, 512ull << 20);

	for (rep = 0; rep < reps; rep++) {
		struct vmgpu_program *p;
		char *log = NULL;
		double t = bench_now();

		if (vmgpu_program_build(vmgpu_builtin_kernels_opencl(), NULL,
					&p, &log)) {
			fprintf(stderr, "bench: build failed:\n%s\n",
				log ? log : "");
			return 1;
		}
		t = bench_now() - t;
		free(log);
		if (!rep)
			first = t;
		best = t < best ? t : best;
		if (prog)
			vmgpu_program_destroy(p);
		else
			prog = p;
	}
	printf("compile %d kernels of OpenCL C (vmgpu_program_build): first "
	       "%.1f ms, best of %d %.1f ms\n\n",
	       vmgpu_program_kernel_count(prog), first * 1e3, reps, best * 1e3);
	printf("%-13s %-9s %12s %12s %7s  %s\n", "kernel", "size",
	       "asm warps", "OpenCL warps", "ratio", "outputs");

	for (bi = 0; bi < sizeof(benches) / sizeof(benches[0]); bi++) {
		const struct bench *b = &benches[bi];
		uint64_t va[2][3], warps[2];
		struct vg_kernel *k[2];
		uint8_t args[2][64];
		const void *cimg;
		size_t cbytes, abytes;
		void *aimg;
		char err[256];
		bool same = true;
		uint32_t i, j;

		m.next = 0;
		if (vmgpu_asm_assemble(vmgpu_builtin_kernel_source(b->name),
				       &aimg, &abytes, err, sizeof(err)) ||
		    vmgpu_program_kernel_image(prog, b->name, &cimg, &cbytes)) {
			fprintf(stderr, "bench: no %s\n", b->name);
			return 1;
		}
		k[0] = load_image(aimg, abytes, b->name);
		k[1] = load_image(cimg, cbytes, b->name);
		free(aimg);
		memset(args, 0, sizeof(args));
		for (j = 0; j < b->nbuf; j++) {
			va[0][j] = flat_alloc(&m, b->buf[j][1]);
			va[1][j] = flat_alloc(&m, b->buf[j][1]);
			for (i = 0; i < b->buf[j][1]; i += 4) {
				uint32_t v = b->buf[j][2] == BYTES ? rng() : 0;

				if (b->buf[j][2] == FLOATS) {
					float f = (float)(rng() % 65536) / 4096.0f - 8.0f;

					memcpy(&v, &f, 4);
				}
				memcpy((uint8_t *)flat_ptr(&m, va[0][j]) + i, &v, 4);
			}
			memcpy(flat_ptr(&m, va[1][j]), flat_ptr(&m, va[0][j]),
			       b->buf[j][1]);
		}
		for (i = 0; i < 2; i++) {
			for (j = 0; j < b->nscal; j++)
				memcpy(args[i] + b->scal[j][0], &b->scal[j][1], 4);
			for (j = 0; j < b->nbuf; j++)
				memcpy(args[i] + b->buf[j][0], &va[i][j], 8);
			warps[i] = run_grid(&m, k[i], args[i],
					    vg_kernel_args_bytes(k[i]), b->grid,
					    b->block);
			vg_kernel_free(k[i]);
		}
		for (j = 0; j < b->nbuf; j++)
			same &= !memcmp(flat_ptr(&m, va[0][j]),
					flat_ptr(&m, va[1][j]), b->buf[j][1]);
		all_same &= same;
		if ((double)warps[1] / warps[0] > worst_ratio)
			worst_ratio = (double)warps[1] / warps[0];
		printf("%-13s %-9s %12llu %12llu %6.2fx  %s\n", b->name, b->size,
		       (unsigned long long)warps[0],
		       (unsigned long long)warps[1],
		       (double)warps[1] / warps[0],
		       same ? "bit-identical" : "DIFFER");
	}
	printf("\nworst ratio %.2fx (goal <= 1.50x)\n", worst_ratio);
	vmgpu_program_destroy(prog);
	free(m.data);
	return all_same ? 0 : 1;
}
