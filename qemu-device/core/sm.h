/* SPDX-License-Identifier: MIT */
/*
 * The SMs of one GPU: block issue (from the work distributor), residency
 * (a slot per resident block), pricing in device time, and completion.
 *
 * A block runs in the interpreter when it is issued, against memory as
 * it is at that time; its stores wait in its slot's store log. Its end
 * time is priced from its instructions on the SM's issue pipeline and
 * its bytes on the GPU's memory channels and the links, later: the
 * event loop prices the blocks issued on every GPU in the order they
 * were issued (vg_sms_price_next()), before it runs any event at or
 * after a block's issue time plus the block launch latency, the
 * earliest it can end. So the interpreter may run the block on another
 * thread meanwhile, the GPU's executor (vg_sms_executor_start()), while
 * the event loop goes on: the blocks of several GPUs issued within that
 * latency of each other run in parallel, and every booking, event and
 * trace record is made in the same order as with the block run at once
 * (Documentation/device-model.rst, "Device time across GPUs"). A kernel
 * with global atomics runs at issue on the event loop's thread, after
 * the blocks issued before it, so its atomics act in issue order.
 * The SMs translate through an MMU of their own, which follows the
 * GPU's register file and the command processor's read replicas.
 *
 * At its end a VG_EV_BLOCK_DONE event retires it: the log is applied
 * (or discarded), its resources go back to the distributor, and the
 * outcome is handed back to the event loop, which passes it on to the
 * command processor. The SMs never call the command processor.
 *
 * The SMs also wire the distributor's observer to the trace: each state
 * change of a task (pending, in the table, evicted, resumed, done,
 * removed) becomes a VMGPU_TRACE_TMD record, and block records carry the
 * task-table slot their task held at issue.
 */
#ifndef VG_SM_H
#define VG_SM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "gpu_common.h"
#include "interp.h"
#include "wdist.h"

/*
 * A dispatch as the SMs run it: owned by the command processor (which
 * fills it from a DISPATCH command), read and counted by the SMs.
 */
struct vg_dispatch {
    struct vg_wd_task task; /* first: the distributor's view */
    uint32_t index;         /* in the packet, stream order */
    uint32_t serial;        /* packet it belongs to, 0 when unused */
    bool cancelled;         /* its packet was abandoned: drop its blocks */
    uint32_t blocks_done;
    struct vg_kernel *kernel;
    struct vg_launch launch;
    uint8_t *args;        /* VMGPU_MAX_ARGS_BYTES, preallocated */
    uint64_t budget;      /* warp instructions left */
    vg_time_t start, end; /* first block issued, last done */
    bool started;
    /* Device-side work (W7): the command processor's bookkeeping. */
    uint64_t tmd_va;      /* LAUNCH_TMD or LAUNCH: its descriptor, else 0 */
    uint32_t parent;      /* index of the task that launched it, or ~0 */
    uint32_t children;    /* its child tasks not done yet */
    bool blocks_finished; /* its own blocks are all done */
    uint64_t items_va;    /* queue task: where its items go */
    uint32_t portion;     /* a TAKE's portion: its index + 1, else 0 */
    uint32_t capacity;    /* queue task: items it can take */
};

/* A block resident on an SM, between issue and completion. */
struct vg_block_slot {
    bool used;
    struct vg_storelog *log; /* created once, reused */
    struct vg_dispatch *d;
    uint32_t serial; /* d->serial at issue */
    uint32_t block;
    vg_time_t start, end;
    bool faulted;
    struct vg_fault_info fault;
    uint64_t warp_instrs, bytes;
    uint32_t wd_slot; /* its task's task-table slot at issue */
    /* Issued, not priced yet: what the interpreter needs and gives. */
    uint64_t seq; /* its VG_EV_BLOCK_DONE's place among equal times */
    uint32_t item_base, item_count;
    struct vg_launch launch; /* the dispatch's, through the SMs' MMU */
    struct vg_block_stats stats;
    uint64_t tlb_misses;
    int result;
    uint32_t ran; /* the interpreter is done with it (atomic) */
};

/* A block issued and not priced yet: its SM and slot. */
struct vg_sms_issued {
    uint16_t sm;
    uint16_t slot;
};

/* A job of the GPU's executor thread. */
struct vg_sms_job {
    struct vg_block_slot *slot; /* a block to run, or NULL: */
    struct vg_mmu_replicas *rep; /* replicas to take (malloc()ed) */
    uint32_t sm;
};

/* The GPU's executor: a thread that runs the issued blocks in order. */
struct vg_sms_exec {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    struct vg_sms_job *q; /* ring of @cap jobs */
    uint32_t cap, head, len;
    bool stop;
};

struct vg_sm {
    struct vg_server pipe;       /* instruction issue */
    struct vg_block_slot *slots; /* cfg.sm_blocks */
};

struct vg_sms {
    struct vg_gpu_common *gc;
    struct vg_wdist *wd;
    struct vg_interp *interp;
    uint32_t num_sms, slots_per_sm;
    uint32_t resident; /* blocks issued and not retired */
    uint64_t wake_at;  /* a VG_EV_WD_WAKE is queued for then (0: none) */
    struct vg_sm sm[VMGPU_MAX_SMS];
    struct vg_mmu mmu;        /* the SMs' own: the executor's thread uses it */
    const struct vg_mmu *cp_mmu; /* whose read replicas it follows */
    uint32_t rep_gen;         /* cp_mmu->rep_gen last taken */
    /* Blocks issued and not priced, in issue order (a ring). */
    struct vg_sms_issued *issued;
    uint32_t issued_cap, issued_head, issued_len;
    struct vg_sms_exec *exec; /* NULL: blocks run at issue */
};

/* What retiring a block means for its dispatch. */
struct vg_block_outcome {
    struct vg_dispatch *d;
    bool current;   /* d still holds the dispatch the block belongs to */
    bool stored;    /* its stores reached memory */
    bool faulted;   /* it stopped on a fault: fault says where */
    bool finished;  /* it was the dispatch's last block */
    uint32_t block; /* its index in the dispatch's grid (linear) */
    struct vg_fault_info fault;
    /*
     * The LAUNCH and ENQ records of a block whose stores reached memory,
     * valid until the SMs issue another block.
     */
    const struct vg_work *work;
    uint32_t nwork;
};

int vg_sms_init(struct vg_sms *sms, struct vg_gpu_common *gc,
                struct vg_wdist *wd, struct vg_mmu_regs *regs,
                const struct vg_mmu *cp_mmu);
void vg_sms_destroy(struct vg_sms *sms);
/*
 * Drop every resident block and its stores (GPU reset), once the
 * executor has stopped running them (the reset's abort stops a block
 * within a slice).
 */
void vg_sms_reset(struct vg_sms *sms);
/* Run blocks on an executor thread from now on; -1 if none could start. */
int vg_sms_executor_start(struct vg_sms *sms);
/* Back to running blocks at issue (waits for the executor's blocks). */
void vg_sms_executor_stop(struct vg_sms *sms);
/*
 * Price the oldest block issued and not priced (waiting for the
 * executor to have run it) and queue its VG_EV_BLOCK_DONE: the GPU's
 * VG_PENDING_BLOCK (gpu_common.h), before the GPU runs an event at or
 * after its issue time plus the cost model's block launch latency.
 */
void vg_sms_price_next(struct vg_sms *sms);
/*
 * Issue every block the distributor places now; none once a reset waits
 * for the runner (each would run a slice before it looked at abort). If
 * an SM's acknowledgement will allow more later, a VG_EV_WD_WAKE is
 * queued for then (it calls this again).
 */
void vg_sms_issue(struct vg_sms *sms);
/*
 * VG_EV_BLOCK_DONE for slot @slot of SM @sm: retire the block. Returns
 * false if there was none (a stale event); else fills @out.
 */
bool vg_sms_retire(struct vg_sms *sms, uint32_t sm, uint32_t slot,
                   struct vg_block_outcome *out);

#endif
