/* SPDX-License-Identifier: MIT */
/*
 * How the SMs of the model see GPU memory: an address translation callback
 * that returns a host pointer to a whole page. The MMU (mmu.c) provides it in
 * the device, host tests provide flat or paged memories of their own.
 */
#ifndef VG_MEMIF_H
#define VG_MEMIF_H

#include <stdbool.h>
#include <stdint.h>

#include "vmgpu_hw.h"

struct vg_xlat {
    uint8_t *host;    /* host address of the start of the page */
    uint64_t page_va; /* GPU VA of the start of the page */
    uint8_t loc;      /* VMGPU_LOC_* where the page lives */
    bool writable;
};

struct vg_memif {
    /*
     * Translate @va for a read (@write false) or write access. Returns
     * VMGPU_FAULT_NONE and fills @out, or a VMGPU_FAULT_* code.
     */
    int (*translate)(void *opaque, uint64_t va, bool write,
                     struct vg_xlat *out);
    void *opaque;
};

#endif
