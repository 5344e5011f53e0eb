/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Command processor of one GPU: fetches ring entries, fetches and validates
 * their command buffers through the MMU, and runs the commands in device
 * time (uapi/vmgpu_hw.h; Documentation/device-model.rst gives the rules).
 */
#ifndef VG_CMDPROC_H
#define VG_CMDPROC_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "interp.h"
#include "wdist.h"

struct vg_device;
struct vg_gpu;

enum vg_dispatch_state {
    VG_DISP_UNSEEN = 0, /* the CP has not reached it */
    VG_DISP_WAITING,    /* reached; producers still running */
    VG_DISP_LAUNCHING,  /* on its way to the distributor */
    VG_DISP_RUNNING,    /* with the distributor / on SMs */
    VG_DISP_DONE,
};

struct vg_dispatch {
    struct vg_wd_task task; /* first: the distributor's view */
    uint32_t index;         /* in the packet, stream order */
    uint32_t cmd_word;      /* word offset of its command */
    enum vg_dispatch_state state;
    uint32_t deps; /* unfinished SYNC producers */
    uint32_t blocks_done;
    struct vg_kernel *kernel;
    struct vg_launch launch;
    uint8_t *args;        /* VMGPU_MAX_ARGS_BYTES, preallocated */
    uint64_t budget;      /* warp instructions left */
    vg_time_t start, end; /* first block issued, last done */
    bool started;
};

struct vg_sync_dep {
    uint32_t consumer, producer;
    uint32_t word; /* where the SYNC is, for errors */
};

enum vg_cp_state {
    VG_CP_IDLE = 0,     /* no packet; waits for a doorbell */
    VG_CP_RUN,          /* a CP step is scheduled */
    VG_CP_WAIT_BARRIER, /* BARRIER: earlier dispatches */
    VG_CP_WAIT_END,     /* END: every dispatch */
    VG_CP_WAIT_VALUE,   /* WAIT_VALUE: memory to change */
    VG_CP_WAIT_COPY,    /* COPY in flight */
    VG_CP_WAIT_ACK,     /* error to report, previous latched */
    VG_CP_DRAIN,        /* packet abandoned, blocks in flight */
    VG_CP_FENCE,        /* fence write scheduled */
    VG_CP_HALTED,       /* bad ring configuration */
};

struct vg_cp_error {
    uint32_t code; /* VMGPU_FAULT_* */
    uint32_t slot;
    uint64_t addr;
    uint32_t pc;
    uint32_t dispatch; /* VMGPU_TRACE_NONE if none */
};

struct vg_cp {
    enum vg_cp_state state;
    bool step_pending; /* a CP_STEP event is queued */
    bool have_packet;
    /* The packet being run. */
    struct vmgpu_ring_entry entry;
    uint32_t serial; /* packets fetched; tags events */
    uint8_t *buf;    /* command buffer copy */
    uint32_t words;
    uint32_t pc; /* word index of the next command */
    uint32_t num_dispatches;
    uint32_t seen_dispatches;
    struct vg_dispatch *disp; /* VMGPU_MAX_DISPATCHES_PER_PACKET */
    uint8_t *args_arena;      /* their argument blocks */
    struct vg_sync_dep *syncs;
    uint32_t num_syncs;
    uint32_t outstanding; /* reached, not done */
    uint32_t blocks_in_flight;
    bool aborted;
    uint64_t instr_budget; /* SET_STATE INSTR_BUDGET, 0 = default */
    uint32_t default_priority;
    vg_time_t packet_start;
    vg_time_t cmd_start; /* for the trace of a waiting command */
    bool in_wait;        /* cmd_start belongs to a waiting cmd */
    /* A COPY in flight. */
    uint64_t copy_bytes;
    /* Error waiting for the previous one to be acknowledged. */
    struct vg_cp_error pending_err;
    enum vg_cp_state err_next; /* where to go once it is reported */
};

int vg_cp_init(struct vg_cp *cp);
void vg_cp_destroy(struct vg_cp *cp);
/* Abandon everything (GPU reset): frees kernels, back to idle. */
void vg_cp_reset(struct vg_cp *cp);

/*
 * Event handlers and requests, called by the GPU's runner (model.h): no
 * lock held; register updates lock the GPU's register file themselves.
 */
void vg_cp_step(struct vg_device *dev, struct vg_gpu *g);
void vg_cp_dispatch_ready(struct vg_device *dev, struct vg_gpu *g,
                          uint32_t index, uint32_t serial);
void vg_cp_block_done(struct vg_device *dev, struct vg_gpu *g, uint32_t sm,
                      uint32_t slot);
void vg_cp_copy_done(struct vg_device *dev, struct vg_gpu *g, uint32_t serial);
/* A doorbell, an enable or an error acknowledgement: look at the ring. */
void vg_cp_wake(struct vg_device *dev, struct vg_gpu *g);
/* @g changed memory: WAIT_VALUE waiters on every GPU poll again. */
void vg_cp_memory_changed(struct vg_device *dev, struct vg_gpu *g);
/* Memory may have changed at time @t: poll again if waiting on memory. */
void vg_cp_memory_poll(struct vg_device *dev, struct vg_gpu *g, vg_time_t t);

#endif
