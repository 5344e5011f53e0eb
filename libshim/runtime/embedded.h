/* SPDX-License-Identifier: MIT */
/*
 * The embedded device's guest memory (embedded_mem.c), for its back end
 * (embedded.c); not installed.
 *
 * One anonymous mapping is the simulated machine's RAM: bus address =
 * offset into it. Pages are handed out first fit from a list of free
 * ranges, sorted and merged when pages come back, so memory freed is
 * reused. One address space, the one every GPU's slot 0 points at, maps
 * bus address B at GPU VA EMB_VA0 + B; its page tables (the format of
 * uapi/vmgpu_hw.h, as a driver writes them) are all made when the memory
 * is, at its start. Each allocation is followed by an unmapped guard
 * page, so running off its end faults. Kernel code is kept once per
 * distinct executable, read-only, until the memory goes.
 *
 * Not thread safe: the back end calls it under its lock.
 */
#ifndef VMGPU_RT_EMBEDDED_H
#define VMGPU_RT_EMBEDDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vmgpu/runtime.h"

#define EMB_PAGE		((uint64_t)VMGPU_PAGE_SIZE)
#define EMB_VA0			(1ull << 32)	/* GPU VA of bus address 0 */
#define EMB_RW			(VMGPU_PTE_READ | VMGPU_PTE_WRITE)

struct emb_range;
struct emb_alloc;
struct emb_code;

struct emb_mem {
	uint8_t *base;
	uint64_t bytes;
	uint64_t root;				/* bus address of the L2 table */
	struct emb_range *free;			/* by address */
	uint32_t nfree, cap_free;
	struct emb_alloc *live;
	uint32_t nlive, cap_live;
	struct emb_code *code;
	uint32_t ncode, cap_code;
};

/* @bytes of memory (whole pages) and its page tables; 0 or -ENOMEM. */
int rt_emb_mem_init(struct emb_mem *m, uint64_t bytes);
void rt_emb_mem_fini(struct emb_mem *m);
/* @pages zeroed pages no GPU VA maps (rings, fences); bus address or 0. */
uint64_t rt_emb_mem_pages(struct emb_mem *m, uint64_t pages);
/*
 * Zeroed pages for @bytes mapped with @pte_flags (VMGPU_PTE_*, location
 * included), and the guard page; bus address or 0 if there is no room.
 */
uint64_t rt_emb_mem_alloc(struct emb_mem *m, uint64_t bytes,
			  uint64_t pte_flags);
/*
 * Unmap and give back the allocation at bus @bus; false if there is none
 * (then nothing changed). The caller invalidates the GPUs' TLBs.
 */
bool rt_emb_mem_free(struct emb_mem *m, uint64_t bus);
/* The executable @image loaded once, read-only; bus address or 0. */
uint64_t rt_emb_mem_code(struct emb_mem *m, const void *image,
			 size_t bytes);

static inline uint64_t emb_mem_get64(struct emb_mem *m, uint64_t bus)
{
	uint64_t v;

	memcpy(&v, m->base + bus, 8);
	return v;
}

static inline void emb_mem_put64(struct emb_mem *m, uint64_t bus, uint64_t v)
{
	memcpy(m->base + bus, &v, 8);
}

#endif
