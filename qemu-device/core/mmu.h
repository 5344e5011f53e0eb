/* SPDX-License-Identifier: MIT */
/*
 * The GPU MMU of one GPU: per address-space slot a page-table root, a
 * three-level walk (uapi/vmgpu_hw.h), and a TLB. Page-table entries are
 * read by DMA at bus addresses; data pages are reached through
 * vg_host.map_page, so an access needs no host call once translated.
 *
 * Slots are independent: a translation in slot s only ever uses slot s's
 * root and slot s's TLB entries, so one address space cannot reach a page
 * another address space maps unless its own page tables map it too.
 *
 * One thread uses an MMU: its GPU's runner (or a host test). Roots and
 * invalidations arrive either directly (vg_mmu_set_root(),
 * vg_mmu_invalidate(), from that thread) or, in the device, through the
 * GPU's register file (struct vg_mmu_regs), written by MMIO from any
 * thread and picked up at the MMU's next translation.
 */
#ifndef VG_MMU_H
#define VG_MMU_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host.h"
#include "memif.h"

#define VG_TLB_ENTRIES 64 /* per slot, direct mapped */

/*
 * The MMU registers of a GPU (AS_ROOT, MMU_INVALIDATE) as its register
 * file keeps them. MMIO changes them under @lock (the GPU's register lock)
 * and bumps @seq; the MMU compares @seq with the value it last saw before
 * every translation and, when it moved, takes the new roots and flushes
 * under @lock. So a root change or an invalidation never waits for the
 * GPU's runner, yet reaches even a block that is running: its next page
 * walk or TLB lookup uses the new roots.
 */
struct vg_mmu_regs {
    pthread_mutex_t *lock;
    uint32_t seq; /* bumped by every change; read without @lock */
    uint64_t root[VMGPU_AS_SLOTS];
    /* Invalidations of each slot so far: every MMU following it flushes. */
    uint32_t inval[VMGPU_AS_SLOTS];
};

/* Register-side updates, called with @r->lock held. */
void vg_mmu_regs_set_root(struct vg_mmu_regs *r, uint32_t slot, uint64_t root);
void vg_mmu_regs_invalidate(struct vg_mmu_regs *r, uint32_t slots);
/* Every root 0, every TLB to flush (GPU reset). */
void vg_mmu_regs_reset(struct vg_mmu_regs *r);

struct vg_tlb_entry {
    uint64_t page_va;
    uint8_t *host;           /* NULL: entry empty */
    uint8_t loc;             /* VMGPU_LOC_* */
    bool readable, writable; /* PTE permissions */
    bool host_writable;      /* @host was mapped for writing */
    bool replica;            /* reads are local (vg_mmu_replicate()) */
};

/*
 * The read replicas of the packet running on the GPU (COPY_ASYNC with
 * VMGPU_COPY_REPLICATE): pages of one slot, ascending, that this GPU
 * reads from its own memory.
 */
struct vg_mmu_replicas {
    uint32_t slot, n;
    uint64_t page[VMGPU_COPY_MAX_REPLICA_PAGES];
};

struct vg_mmu;

/* The vg_memif opaque of one slot. */
struct vg_mmu_as {
    struct vg_mmu *mmu;
    uint32_t slot;
};

struct vg_mmu {
    const struct vg_host *host;
    struct vg_mmu_regs *regs; /* NULL: roots only by vg_mmu_set_root() */
    uint32_t regs_seq;        /* regs->seq last taken */
    uint32_t inval_seen[VMGPU_AS_SLOTS]; /* regs->inval last taken */
    uint32_t gpu;             /* owner: prices locations */
    uint32_t num_gpus;        /* locations of GPUs >= this fault */
    uint64_t root[VMGPU_AS_SLOTS];
    struct vg_tlb_entry tlb[VMGPU_AS_SLOTS][VG_TLB_ENTRIES];
    struct vg_mmu_as as[VMGPU_AS_SLOTS];
    struct vg_memif memif[VMGPU_AS_SLOTS];
    uint64_t hits, misses; /* whole GPU */
    uint64_t slot_hits[VMGPU_AS_SLOTS], slot_misses[VMGPU_AS_SLOTS];
    struct vg_mmu_replicas rep;
    uint32_t rep_gen; /* bumped whenever rep changes */
};

void vg_mmu_init(struct vg_mmu *mmu, const struct vg_host *host, uint32_t gpu,
                 uint32_t num_gpus);
/* Follow the register file @regs from now on. */
void vg_mmu_attach(struct vg_mmu *mmu, struct vg_mmu_regs *regs);
/* Set slot @slot's root (bus address); flushes the slot if it changed. */
void vg_mmu_set_root(struct vg_mmu *mmu, uint32_t slot, uint64_t root);
/* Flush the TLBs of the slots in bitmask @slots. */
void vg_mmu_invalidate(struct vg_mmu *mmu, uint32_t slots);

/*
 * Translate @va in @slot for a read or a write. Returns VMGPU_FAULT_NONE
 * and fills @out, or VMGPU_FAULT_UNMAPPED (no valid entry on the walk, a
 * VA beyond 39 bits, a page that is not RAM, a location naming a GPU that
 * does not exist, a bad slot) or VMGPU_FAULT_PERMISSION.
 */
int vg_mmu_translate(struct vg_mmu *mmu, uint32_t slot, uint64_t va, bool write,
                     struct vg_xlat *out);
/*
 * Reads of the pages covering [@va, @va + @len) in @slot are local from
 * now on (until vg_mmu_replicas_clear()): the hybrid movement of SPEC R6,
 * priced as where the data is read from; the data itself is not
 * duplicated. Writes are priced at the pages' home. Pages past
 * VMGPU_COPY_MAX_REPLICA_PAGES stay remote.
 */
void vg_mmu_replicate(struct vg_mmu *mmu, uint32_t slot, uint64_t va,
                      uint64_t len);
/* Drop every replica (the packet ended, or the GPU was reset). */
void vg_mmu_replicas_clear(struct vg_mmu *mmu);
/*
 * Make @mmu's replicas @rep (another MMU's of the same GPU, which the
 * SMs' MMU follows: sm.c), dropping the TLB entries either set names.
 */
void vg_mmu_replicas_set(struct vg_mmu *mmu, const struct vg_mmu_replicas *rep);

/* The interface the interpreter uses for slot @slot. */
const struct vg_memif *vg_mmu_memif(struct vg_mmu *mmu, uint32_t slot);

/*
 * Copy between GPU memory of @slot and a host buffer, page by page. On a
 * fault nothing more is copied; returns the fault code with *fault_va set.
 * @bytes_by_loc, if not NULL, accumulates the bytes moved per location.
 */
int vg_mmu_read(struct vg_mmu *mmu, uint32_t slot, uint64_t va, void *buf,
                size_t len, uint64_t *fault_va, uint64_t *bytes_by_loc);
int vg_mmu_write(struct vg_mmu *mmu, uint32_t slot, uint64_t va,
                 const void *buf, size_t len, uint64_t *fault_va,
                 uint64_t *bytes_by_loc);
/*
 * Atomically store @value in the little-endian word at @va (4-byte
 * aligned) and return what it held in *@old: atomic with respect to every
 * other GPU's exchanges and atomics. 0 or a fault code with *@fault_va.
 */
int vg_mmu_xchg32(struct vg_mmu *mmu, uint32_t slot, uint64_t va,
                  uint32_t value, uint32_t *old, uint64_t *fault_va);

#endif
