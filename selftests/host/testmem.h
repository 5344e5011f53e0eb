/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A GPU memory for host tests: a range of GPU virtual addresses backed by
 * host memory, 4 KiB pages that can be unmapped, made read-only or given a
 * location, behind a struct vg_memif like the device's MMU.
 */
#ifndef VG_TESTMEM_H
#define VG_TESTMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/memif.h"

struct testmem {
	struct vg_memif memif;
	uint64_t base;			/* GPU VA of the first page */
	size_t pages;
	uint8_t *data;			/* pages * VMGPU_PAGE_SIZE bytes */
	uint8_t *flags;			/* TESTMEM_* per page */
	uint8_t *loc;			/* VMGPU_LOC_* per page */
	uint64_t next;			/* bump allocator */
	uint64_t translations;		/* calls to translate */
};

#define TESTMEM_MAPPED		0x1
#define TESTMEM_WRITABLE	0x2

/* @bytes rounded up to pages, all mapped read-write in system memory. */
struct testmem *testmem_new(uint64_t base, size_t bytes);
void testmem_free(struct testmem *tm);
/* Page-aligned allocation from the range; aborts when it is full. */
uint64_t testmem_alloc(struct testmem *tm, size_t bytes);
/* Host pointer of GPU VA @va (inside the range, mapped or not). */
void *testmem_ptr(struct testmem *tm, uint64_t va);
void testmem_set_flags(struct testmem *tm, uint64_t va, size_t bytes,
		       uint8_t flags);
void testmem_set_loc(struct testmem *tm, uint64_t va, size_t bytes,
		     uint8_t loc);

/*
 * Helpers for running kernels on a test memory (they abort with a message
 * when the kernel does not assemble or load: a test bug, not a result).
 */
struct vg_kernel;
struct vg_fault_info;
struct vg_block_stats;

struct vg_kernel *testmem_kernel(const char *src);
struct vg_kernel *testmem_builtin(const char *name);

struct testmem_launch {
	uint32_t grid[3], block[3];
	uint32_t shared_bytes;		/* dynamic */
	const void *args;
	uint32_t args_bytes;
	bool write_through;		/* no store log */
	uint64_t budget;		/* 0: a large default */
};

/*
 * Run every block of the grid in order on one interpreter, applying each
 * block's store log when it completes. Returns 0, or -1 with *fault set
 * (the faulting block's stores discarded). @stats may be NULL.
 */
int testmem_run(struct testmem *tm, const struct vg_kernel *k,
		const struct testmem_launch *tl, struct vg_fault_info *fault,
		struct vg_block_stats *stats);

#endif
