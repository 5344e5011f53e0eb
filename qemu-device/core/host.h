/* SPDX-License-Identifier: MIT */
/*
 * What the embedding (QEMU's glue, a host test, a host tool) provides to
 * the model: bus-master DMA, a direct view of guest RAM pages, interrupts,
 * wake-ups of the GPUs' runners and, optionally, observers for its own
 * tracing. The lowest layer of the model: it depends on nothing else.
 */
#ifndef VG_HOST_H
#define VG_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "vmgpu_hw.h"

struct vg_host {
    void *opaque;
    /* DMA at bus addresses; return 0, or -1 when the access failed. */
    int (*dma_read)(void *opaque, uint64_t addr, void *buf, uint64_t len);
    int (*dma_write)(void *opaque, uint64_t addr, const void *buf,
                     uint64_t len);
    /*
     * Host address of the 4 KiB page of RAM at bus address @addr (page
     * aligned), valid for the device's lifetime, or NULL when it is not
     * plain RAM. Lets the SMs access memory without a call per access.
     */
    uint8_t *(*map_page)(void *opaque, uint64_t addr, bool write);
    /*
     * Signal GPU @gpu's interrupt vector. From a runner or from an MMIO
     * write (unmasking a pending cause); never with a model lock held.
     */
    void (*raise_irq)(void *opaque, unsigned int gpu);
    /*
     * GPU @gpu has work (a doorbell, a reset, another GPU's write): ask
     * its runner to call vg_device_run_gpu(dev, @gpu) soon (or, with one
     * thread for all, vg_device_run()). Called from any thread.
     */
    void (*kick)(void *opaque, unsigned int gpu);

    /*
     * Optional observers (NULL: none), for the embedding's own tracing
     * (QEMU's trace-events). Called by a GPU's runner, possibly with a
     * lock of the model held: they must not call into the model or take
     * a lock a vCPU holds around MMIO (the big QEMU lock).
     *
     * trace_record: every trace record the model makes (commands,
     * packets, dispatches, blocks, errors, interrupts), whether or not
     * the guest or a test collects records. Not after a reset dropped
     * the work it belongs to.
     */
    void (*trace_record)(void *opaque, const struct vmgpu_trace_record *r);
    /* A block is issued to an SM at device time @ns. */
    void (*trace_block_issue)(void *opaque, unsigned int gpu, unsigned int sm,
                              uint32_t dispatch, uint32_t block, uint64_t ns);
    /*
     * A page-table walk of GPU @gpu's MMU for @va in @slot: the leaf
     * entry @pte, and VMGPU_FAULT_NONE or the fault it gave.
     */
    void (*trace_mmu_walk)(void *opaque, unsigned int gpu, unsigned int slot,
                           uint64_t va, uint64_t pte, int fault);
};

/*
 * DMA at bus addresses for the device's own structures (page tables, ring
 * entries, fences, trace records), refused unless every page is plain RAM.
 * The model may hold a register lock during such DMA (the fence write);
 * a guest pointing one of these at MMIO (even our own BAR) would
 * otherwise make QEMU take the big lock under ours, the reverse of a
 * vCPU's MMIO access: a deadlock. Returns 0 or -1 like
 * vg_host.dma_read/dma_write.
 */
int vg_bus_read(const struct vg_host *host, uint64_t addr, void *buf,
                uint64_t len);
int vg_bus_write(const struct vg_host *host, uint64_t addr, const void *buf,
                 uint64_t len);

#endif
