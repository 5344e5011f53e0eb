/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the interpreter and compiler benchmarks share: one flat range of
 * GPU memory the interpreter sees directly (no MMU, every page local and
 * writable), a clock, a repeatable random sequence, and a whole grid run
 * block by block with the store log applied after each, as the device
 * does. A header, as every .c file of scripts/bench is a program.
 */
#ifndef VMGPU_BENCH_FLATMEM_H
#define VMGPU_BENCH_FLATMEM_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/interp.h"

#define FLAT_BASE_VA	0x10000000ull

struct flatmem {
	struct vg_memif memif;
	uint8_t *data;
	uint64_t bytes, next;
};

static inline int flat_translate(void *opaque, uint64_t va, bool write,
				 struct vg_xlat *out)
{
	struct flatmem *m = opaque;

	if (va < FLAT_BASE_VA || va - FLAT_BASE_VA >= m->bytes)
		return VMGPU_FAULT_UNMAPPED;
	out->page_va = va & ~(uint64_t)(VMGPU_PAGE_SIZE - 1);
	out->host = m->data + (out->page_va - FLAT_BASE_VA);
	out->loc = VMGPU_LOC_GPU(0);
	out->writable = true;
	return VMGPU_FAULT_NONE;
}

/* @bytes of zeroed memory at FLAT_BASE_VA; exits if there is none. */
static inline void flat_init(struct flatmem *m, uint64_t bytes)
{
	memset(m, 0, sizeof(*m));
	m->bytes = bytes;
	m->data = aligned_alloc(VMGPU_PAGE_SIZE, bytes);
	if (!m->data) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	memset(m->data, 0, bytes);
	m->memif.translate = flat_translate;
	m->memif.opaque = m;
}

static inline uint64_t flat_alloc(struct flatmem *m, uint64_t bytes)
{
	uint64_t va = FLAT_BASE_VA + m->next;

	m->next += (bytes + VMGPU_PAGE_SIZE - 1) & ~(uint64_t)(VMGPU_PAGE_SIZE - 1);
	if (m->next > m->bytes) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	return va;
}

static inline void *flat_ptr(struct flatmem *m, uint64_t va)
{
	return m->data + (va - FLAT_BASE_VA);
}

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The same pseudo-random sequence on every run (seeded by *@state). */
static inline uint32_t bench_rng(uint32_t *state)
{
	*state = *state * 1664525u + 1013904223u;
	return *state >> 8;
}

/*
 * Run a whole grid of @k, one store log applied per block; exits on a
 * fault. The seconds it took; the counts in *@st.
 */
static inline double flat_run_grid(struct flatmem *m, const struct vg_kernel *k,
				   const void *args, uint32_t args_bytes,
				   const uint32_t grid[3],
				   const uint32_t block[3],
				   struct vg_block_stats *st)
{
	struct vg_interp *it = vg_interp_new();
	struct vg_storelog *log = vg_storelog_new();
	struct vg_fault_info fault;
	uint64_t budget = UINT64_MAX;
	struct vg_launch l = {
		.kernel = k, .args = args, .args_bytes = args_bytes,
		.mem = &m->memif,
	};
	uint32_t pos[3];
	double t0;
	int i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < 3; i++) {
		l.grid[i] = grid[i];
		l.block[i] = block[i];
		l.grid_total[i] = grid[i];
	}
	t0 = bench_now();
	for (pos[2] = 0; pos[2] < grid[2]; pos[2]++)
		for (pos[1] = 0; pos[1] < grid[1]; pos[1]++)
			for (pos[0] = 0; pos[0] < grid[0]; pos[0]++) {
				if (vg_interp_run_block(it, &l, pos, 0, log,
							&budget, st, &fault)) {
					fprintf(stderr, "bench: fault %u at pc %u\n",
						fault.code, fault.pc);
					exit(1);
				}
				vg_storelog_apply(log);
			}
	t0 = bench_now() - t0;
	vg_storelog_free(log);
	vg_interp_free(it);
	return t0;
}

#endif /* VMGPU_BENCH_FLATMEM_H */
