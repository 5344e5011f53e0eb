/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal: the device model's state, shared by device.c (registers, event
 * loop), cmdproc.c (command processors) and the SM code in cmdproc.c.
 * Not for the QEMU glue, which only sees device.h.
 *
 * Locking: every field is protected by vg_device.lock. MMIO handlers take
 * it for one register access; the event loop takes it for one event. The
 * host's raise_irq/kick are only called with it released: interrupts to
 * raise are collected in irq_pending and sent after unlocking.
 */
#ifndef VG_MODEL_H
#define VG_MODEL_H

#include <pthread.h>

#include "clock.h"
#include "cmdproc.h"
#include "device.h"
#include "interp.h"
#include "mmu.h"
#include "trace.h"
#include "wdist.h"

struct vg_gpu_regs {
    uint64_t ring_base;
    uint32_t ring_entries;
    uint32_t ring_head;
    uint32_t ring_tail;
    uint64_t fence_addr;
    uint64_t fence;
    uint32_t int_status;
    uint32_t int_mask;
    uint32_t control;
    uint32_t status;
    uint64_t as_root[VMGPU_AS_SLOTS];
    uint64_t counters[VMGPU_CNT_NUM];
    uint32_t counter_hi_latch;
    struct vg_cp_error err; /* ERR_* registers */
    uint64_t err_seqno;
};

/* A block resident on an SM, between issue and completion. */
struct vg_block_slot {
    bool used;
    struct vg_storelog *log; /* created once, reused */
    struct vg_dispatch *d;
    uint32_t serial; /* packet it belongs to */
    uint32_t block;
    vg_time_t start, end;
    bool faulted;
    struct vg_fault_info fault;
    uint64_t warp_instrs, bytes;
};

struct vg_sm {
    struct vg_server pipe;       /* instruction issue */
    struct vg_block_slot *slots; /* cfg.sm_blocks */
};

struct vg_gpu {
    uint32_t index;
    uint32_t gen;   /* bumped by a reset: stale events */
    uint32_t abort; /* set (atomically) while a reset waits for the lock */
    struct vg_gpu_regs regs;
    struct vg_mmu mmu;
    struct vg_cp cp;
    struct vg_wdist wd;
    struct vg_sm sm[VMGPU_MAX_SMS];
    struct vg_server chan[VG_MEM_NUM_CLASSES]; /* memory channels */
};

struct vg_device {
    struct vg_config cfg;
    struct vg_host host;
    struct vg_cost cost;
    pthread_mutex_t lock;
    uint32_t scratch;
    /* Trace registers. */
    uint32_t trace_ctrl;
    uint64_t trace_addr;
    uint32_t trace_size;
    struct vg_trace trace;
    struct vg_evq evq;
    struct vg_interp *interp; /* blocks run one at a time */
    uint32_t irq_pending;     /* GPUs to signal after unlocking */
    struct vg_gpu gpu[VMGPU_MAX_GPUS];
};

/* Helpers for cmdproc.c, implemented in device.c. */
void vg_dev_raise(struct vg_device *dev, struct vg_gpu *g, uint32_t bits);
void vg_dev_trace(struct vg_device *dev, struct vg_gpu *g, uint8_t kind,
                  uint16_t sm, vg_time_t start, vg_time_t end,
                  uint32_t dispatch, uint32_t block, uint32_t aux,
                  uint64_t value, uint64_t value2);
void vg_dev_event(struct vg_device *dev, struct vg_gpu *g, vg_time_t time,
                  uint32_t kind, uint32_t a, uint32_t b);

#endif
