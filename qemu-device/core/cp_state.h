/* SPDX-License-Identifier: MIT */
/*
 * The state of one GPU's command processor: the packet being run, its
 * tasks (the DISPATCHes and LAUNCH_TMDs it reached, then the tasks
 * kernels and TAKEs launched) and where the CP is in it.
 *
 * A header of its own, below the command processor (cmdproc.c) and the
 * units it runs commands through (launch.c: tasks; take.c: TAKE), so
 * that those can share the state while sitting below cmdproc in the
 * layering: they read and update it, cmdproc calls them, nothing calls
 * up. cmdproc.h is the interface the rest of the device uses.
 */
#ifndef VG_CP_STATE_H
#define VG_CP_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "copy_engine.h"
#include "deptable.h"
#include "gpu_common.h"
#include "mmu.h"
#include "sm.h"
#include "vmgpu_region.h"
#include "wdist.h"

enum vg_dispatch_state {
    VG_DISP_UNSEEN = 0, /* the CP has not reached it */
    VG_DISP_WAITING,    /* reached; producers still running */
    VG_DISP_LAUNCHING,  /* on its way to the distributor */
    VG_DISP_RUNNING,    /* with the distributor / on SMs */
    VG_DISP_DONE,
};

/* The CP's own view of a dispatch of the packet (by index). */
struct vg_cp_dispatch_state {
    enum vg_dispatch_state state;
    uint32_t deps; /* unfinished SYNC producers */
};

struct vg_sync_dep {
    uint32_t consumer, producer;
    uint32_t word; /* where the SYNC is, for errors */
    /* It ran before its producer ended: the consumer counts it. */
    bool counted;
};

enum vg_cp_state {
    VG_CP_IDLE = 0,       /* no packet; waits for a doorbell */
    VG_CP_RUN,            /* a CP step is scheduled */
    VG_CP_WAIT_BARRIER,   /* BARRIER: earlier dispatches */
    VG_CP_WAIT_END,       /* END: every dispatch */
    VG_CP_WAIT_VALUE,     /* WAIT_VALUE or DEP_WAIT: memory to change */
    VG_CP_WAIT_COPY,      /* COPY (and the copies queued before it) */
    VG_CP_WAIT_COPY_SLOT, /* COPY or COPY_ASYNC: the engine's queue full */
    VG_CP_WAIT_SKIP,      /* SKIP_IF: its dispatch to be done */
    VG_CP_WAIT_TAKE,      /* TAKE: a portion to finish */
    VG_CP_WAIT_ACK,       /* error to report, previous latched */
    VG_CP_DRAIN,          /* packet abandoned, blocks in flight */
    VG_CP_FENCE,          /* fence write scheduled */
    VG_CP_HALTED,         /* bad ring configuration */
};

/*
 * The TAKE being run (SPEC R7): the portions this GPU claims and runs
 * (take.c).
 */
struct vg_cp_take {
    bool active; /* the TAKE at pc has started */
    uint8_t tmd[VMGPU_TMD_BYTES];
    struct vmgpu_curve curve;
    uint32_t pgrid[3];
    uint32_t cursor;  /* position on the curve */
    uint32_t running; /* portions taken and not done */
    uint32_t pending; /* taken, waiting for its entries; or ~0 */
    bool walked;      /* the curve is walked to its end */
    int fault;        /* a claim's fault, with fault_va */
    uint64_t fault_va;
};

struct vg_cp {
    /* The units below the CP, and what they all share. */
    struct vg_gpu_common *gc;
    struct vg_mmu *mmu;
    struct vg_wdist *wd;
    struct vg_sms *sms;
    struct vg_copy_engine *ce;

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
    struct vg_dispatch *disp;            /* VMGPU_MAX_TASKS_PER_PACKET */
    struct vg_cp_dispatch_state *dstate; /* the same, by index */
    uint8_t *args_arena;                 /* their argument blocks */
    struct vg_sync_dep *syncs; /* the packet's SYNCs, in command order */
    uint32_t num_syncs;
    uint32_t sync_next; /* the first of them not reached yet */
    struct vg_deps *deps; /* DEP_SIGNAL and DEP_WAIT of the packet */
    struct vg_cp_take take;
    uint32_t num_children; /* tasks launched by kernels (after dispatches) */
    uint32_t open_queues;  /* queue tasks not closed yet */
    uint32_t outstanding;  /* reached, not done */
    bool aborted;
    uint64_t instr_budget; /* SET_STATE INSTR_BUDGET, 0 = default */
    uint32_t default_priority;
    uint32_t launch_quota; /* SET_STATE LAUNCH_QUOTA */
    uint64_t sm_mask;      /* SET_STATE SM_MASK_LO/HI, 0 = all */
    vg_time_t packet_start;
    /*
     * First block issued and last block done of the tasks finished since
     * the packet's previous TIMESTAMP of VMGPU_TIMESTAMP_DISPATCHES.
     */
    bool span_any;
    vg_time_t span_start, span_end;
    vg_time_t cmd_start; /* for the trace of a waiting command */
    bool in_wait;        /* cmd_start belongs to a waiting cmd */
    uint32_t skip_after; /* VG_CP_WAIT_SKIP: the dispatch it waits for */
    bool ce_waits;       /* the engine's next copy waits for its entry */
    /* Error waiting for the previous one to be acknowledged. */
    struct vg_error pending_err;
    enum vg_cp_state err_next; /* where to go once it is reported */
};

/* One past the last task of the packet: its commands', then children. */
static inline uint32_t vg_cp_tasks_end(const struct vg_cp *cp)
{
    return cp->num_children ? cp->num_dispatches + cp->num_children
                            : cp->seen_dispatches;
}

/*
 * A command or task failed in a unit below the CP: @err gets what the CP
 * is to report (cmdproc.c's cp_fail(), which abandons the packet; it
 * fills in the slot). Returns false, for "return vg_cp_error(...)".
 */
static inline bool vg_cp_error(struct vg_error *err, uint32_t code,
                               uint64_t addr, uint32_t pc, uint32_t dispatch)
{
    err->code = code;
    err->slot = 0;
    err->addr = addr;
    err->pc = pc;
    err->dispatch = dispatch;
    return false;
}

#endif
