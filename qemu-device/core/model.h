/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal: the device model's state, shared by device.c (registers,
 * runners) and cmdproc.c (command processors, SMs). Not for the QEMU glue,
 * which only sees device.h.
 *
 * Threads and locks (Documentation/device-model.rst, "Threads and locks"):
 *
 * Each GPU is split in two halves.
 *
 * - Its register file (struct vg_gpu_regs, the MMU registers, the requests
 *   to its runner, the published status and clock) is protected by the
 *   GPU's reg_lock. An MMIO access holds it for one register access; the
 *   runner holds it for one register update (a counter flush, an error
 *   report, a ring-head advance, the fence write). Nobody holds it while
 *   a block runs, a kernel loads, a copy moves or a store log is applied,
 *   so an MMIO access waits for nothing longer than a register update.
 *
 * - Its execution state (command processor, distributor, SMs, memory
 *   channels, MMU TLBs, event queue and clock, interpreter) belongs to
 *   the GPU's runner: the one thread at a time that calls
 *   vg_device_run_gpu() for it (or vg_device_run(), which is the runner
 *   of every GPU). No lock protects it; nobody else touches it.
 *
 * MMIO talks to the runner through requests (req, mem_time: doorbell,
 * acknowledgement, memory changed) and the MMU registers, both picked up
 * by the runner, and through a reset: RESET clears the register file at
 * once under reg_lock, bumps reset_gen and sets abort. The runner stops
 * a block within VG_INTERP_SLICE warp instructions of abort, and at its
 * next event boundary sees reset_gen != exec_gen and drops its execution
 * state. Until then every register update of the runner checks the
 * generation under reg_lock and is dropped if it is stale, so no fence,
 * status, counter or interrupt of the old work appears after the reset.
 *
 * GPUs talk to each other only through requests (a memory change that
 * may release another GPU's WAIT_VALUE), under the other GPU's reg_lock.
 *
 * The trace and the global registers are shared by all GPUs: trace_lock.
 * Lock order: a GPU's reg_lock, then trace_lock. The model never holds
 * two reg_locks, and never calls vg_host.raise_irq or vg_host.kick with
 * a lock held (QEMU's raise_irq takes the big QEMU lock, which a vCPU
 * holds while it waits for a reg_lock).
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

/* The register file of one GPU (under vg_gpu.reg_lock). */
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
    uint32_t status;  /* VMGPU_STATUS_*, published by the runner */
    bool wait_value;  /* the CP waits for memory (WAIT_VALUE) */
    uint64_t now;     /* the GPU's clock (ps), published by the runner */
    uint64_t counters[VMGPU_CNT_NUM];
    uint32_t counter_hi_latch;
    struct vg_cp_error err; /* ERR_* registers */
    uint64_t err_seqno;
};

/* Requests from MMIO (or another GPU) to a GPU's runner. */
enum {
    VG_REQ_WAKE = 1 << 0, /* doorbell or enable: look at the ring */
    VG_REQ_ACK = 1 << 1,  /* error causes acknowledged */
    VG_REQ_MEM = 1 << 2,  /* memory changed: poll WAIT_VALUE again */
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

    /* ---- Register side: under reg_lock ---- */
    pthread_mutex_t reg_lock;
    struct vg_gpu_regs regs;
    struct vg_mmu_regs mmu_regs;
    uint32_t req;       /* VG_REQ_*; read without the lock as a hint */
    vg_time_t mem_time; /* latest writer's time of a VG_REQ_MEM */
    uint32_t reset_gen; /* bumped by a reset; read without the lock too */
    bool clock_reset;   /* the reset was a device reset: time back to 0 */
    uint32_t abort;     /* set with reset_gen, cleared by the runner */

    /* ---- Execution side: owned by the GPU's runner ---- */
    uint32_t exec_gen; /* reset_gen the execution state belongs to */
    struct vg_mmu mmu;
    struct vg_cp cp;
    struct vg_wdist wd;
    struct vg_sm sm[VMGPU_MAX_SMS];
    struct vg_server chan[VG_MEM_NUM_CLASSES]; /* memory channels */
    struct vg_evq evq;                         /* this GPU's clock */
    struct vg_interp *interp;
    /* Register updates of the current event, flushed after it. */
    uint64_t cnt[VMGPU_CNT_NUM]; /* counter increments */
    uint64_t tlb_misses_seen;    /* mmu.misses already counted */
    bool irq_out;                /* an interrupt cause was raised */
    uint32_t kick_out;           /* GPUs given a request: kick them */
    bool pub_wait_value;         /* last regs.wait_value published */
};

struct vg_device {
    struct vg_config cfg;
    struct vg_host host;
    struct vg_cost cost;
    /* Global registers and the trace, shared by all GPUs. */
    pthread_mutex_t trace_lock;
    uint32_t scratch;
    uint32_t trace_ctrl;
    uint64_t trace_addr;
    uint32_t trace_size;
    struct vg_trace trace;
    bool trace_on; /* keep or DMA: read without the lock as a hint */
    struct vg_gpu gpu[VMGPU_MAX_GPUS];
};

/*
 * Helpers for cmdproc.c, implemented in device.c, called by @g's runner.
 */

/*
 * Lock @g's register file for an update, unless a reset made the
 * runner's state stale: then return false without the lock.
 */
bool vg_gpu_regs_begin(struct vg_gpu *g);
void vg_gpu_regs_end(struct vg_gpu *g);
/* A reset is waiting for the runner (a hint, without the lock). */
bool vg_gpu_stale(struct vg_gpu *g);
/* Publish, before reading memory for WAIT_VALUE, that @g waits for it. */
void vg_gpu_publish_wait(struct vg_gpu *g);
/* Raise interrupt causes; between vg_gpu_regs_begin() and _end(). */
void vg_dev_raise(struct vg_device *dev, struct vg_gpu *g, uint32_t bits);
void vg_dev_trace(struct vg_device *dev, struct vg_gpu *g, uint8_t kind,
                  uint16_t sm, vg_time_t start, vg_time_t end,
                  uint32_t dispatch, uint32_t block, uint32_t aux,
                  uint64_t value, uint64_t value2);
void vg_dev_event(struct vg_device *dev, struct vg_gpu *g, vg_time_t time,
                  uint32_t kind, uint32_t a, uint32_t b);
/* @g changed memory: other GPUs waiting for memory poll again. */
void vg_dev_memory_changed(struct vg_device *dev, struct vg_gpu *g);

#endif
