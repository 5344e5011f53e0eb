// SPDX-License-Identifier: MIT
/*
 * Command processor (one per GPU).
 *
 * A packet is validated as a whole when it is fetched (structure, lengths,
 * reserved fields, SYNC rules, address alignment), then run one command
 * per CP_STEP event. Whatever depends on memory at the time a command is
 * reached (executables, argument blocks, MMU faults, WAIT_VALUE) is
 * checked when the command runs. Documentation/device-model.rst describes
 * the semantics; the comments here say why the code does what it does.
 *
 * This file is the packet walker: ring fetch, validation, the commands,
 * task completion (SYNC, BARRIER, END, queue closing), copies, errors and
 * the fence. Setting up a task (DISPATCH, LAUNCH_TMD, a kernel's LAUNCH
 * and ENQ) is launch.c's, and TAKE's portions are take.c's: both below
 * this unit, sharing the CP's state (cp_state.h) and returning their
 * failures for cp_fail() here.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "cmdproc.h"
#include "kernel.h"
#include "launch.h"
#include "take.h"
#include "vmgpu_cmd.h"

#define NONE          VMGPU_TRACE_NONE
#define CMD_WORDS_MAX (VMGPU_CMDBUF_MAX_BYTES / 4)
#define MAX_SYNCS     (CMD_WORDS_MAX / VMGPU_CMD_LEN_SYNC + 1)

/* A field of a ring entry, by name (uapi/vmgpu_hw.h). */
#define RING_U32(p, f) VMGPU_CMD_U32(p, vmgpu_ring_entry, f)
#define RING_U64(p, f) VMGPU_CMD_U64(p, vmgpu_ring_entry, f)

int vg_cp_init(struct vg_cp *cp, struct vg_gpu_common *gc, struct vg_mmu *mmu,
               struct vg_wdist *wd, struct vg_sms *sms,
               struct vg_copy_engine *ce)
{
    uint32_t i;

    memset(cp, 0, sizeof(*cp));
    cp->gc = gc;
    cp->mmu = mmu;
    cp->wd = wd;
    cp->sms = sms;
    cp->ce = ce;
    cp->buf = malloc(VMGPU_CMDBUF_MAX_BYTES);
    cp->disp = calloc(VMGPU_MAX_TASKS_PER_PACKET, sizeof(*cp->disp));
    cp->dstate = calloc(VMGPU_MAX_TASKS_PER_PACKET, sizeof(*cp->dstate));
    /* Untouched pages of the arena cost no host memory. */
    cp->args_arena =
        malloc((size_t)VMGPU_MAX_TASKS_PER_PACKET * VMGPU_MAX_ARGS_BYTES);
    cp->syncs = calloc(MAX_SYNCS, sizeof(*cp->syncs));
    cp->deps = malloc(sizeof(*cp->deps));
    if (cp->deps && vg_deps_init(cp->deps)) {
        free(cp->deps);
        cp->deps = NULL;
    }
    if (!cp->buf || !cp->disp || !cp->dstate || !cp->args_arena || !cp->syncs ||
        !cp->deps) {
        vg_cp_destroy(cp);
        return -1;
    }
    for (i = 0; i < VMGPU_MAX_TASKS_PER_PACKET; i++) {
        cp->disp[i].args = cp->args_arena + (size_t)i * VMGPU_MAX_ARGS_BYTES;
    }
    return 0;
}

/*
 * One past the last task the packet may have touched: a SYNC counts in
 * the state of a consumer not reached yet, up to the packet's dispatch
 * count, even when the packet ends before it (an error).
 */
static uint32_t cp_tasks_touched(const struct vg_cp *cp)
{
    uint32_t end = cp->num_dispatches + cp->num_children;

    return end > cp->seen_dispatches ? end : cp->seen_dispatches;
}

static void cp_free_packet(struct vg_cp *cp)
{
    uint32_t i, touched = cp_tasks_touched(cp);

    for (i = 0; i < touched; i++) {
        struct vg_dispatch *d = &cp->disp[i];
        uint8_t *args = d->args;

        vg_kernel_free(d->kernel);
        memset(d, 0, sizeof(*d));
        d->args = args;
    }
    memset(cp->dstate, 0, touched * sizeof(*cp->dstate));
    cp->have_packet = false;
    cp->gc->packet = NULL;
    cp->num_dispatches = cp->seen_dispatches = 0;
    cp->num_children = 0;
    cp->open_queues = 0;
    cp->num_syncs = 0;
    cp->sync_next = 0;
    if (cp->deps) {
        vg_deps_reset(cp->deps);
    }
    cp->take.active = false;
    vg_ce_reset(cp->ce);
    vg_mmu_replicas_clear(cp->mmu);
    cp->ce_waits = false;
    cp->outstanding = 0;
    cp->aborted = false;
    cp->in_wait = false;
}

void vg_cp_destroy(struct vg_cp *cp)
{
    if (cp->disp) {
        cp_free_packet(cp);
    }
    free(cp->buf);
    free(cp->disp);
    free(cp->dstate);
    free(cp->args_arena);
    free(cp->syncs);
    if (cp->deps) {
        vg_deps_destroy(cp->deps);
        free(cp->deps);
    }
    cp->deps = NULL;
    cp->buf = NULL;
    cp->disp = NULL;
    cp->dstate = NULL;
    cp->args_arena = NULL;
    cp->syncs = NULL;
}

void vg_cp_reset(struct vg_cp *cp)
{
    cp_free_packet(cp);
    cp->state = VG_CP_IDLE;
    cp->step_pending = false;
    cp->instr_budget = 0;
    cp->default_priority = 0;
    cp->launch_quota = 0;
    cp->sm_mask = 0;
}

/* ------------------------------------------------------------------ */
/* Scheduling helpers                                                   */
/* ------------------------------------------------------------------ */

static void cp_schedule_state(struct vg_cp *cp, enum vg_cp_state state,
                              vg_time_t t)
{
    cp->state = state;
    if (cp->step_pending) {
        return;
    }
    cp->step_pending = true;
    vg_gpu_post(cp->gc, t, VG_EV_CP_STEP, 0, 0);
}

static void cp_schedule(struct vg_cp *cp, vg_time_t t)
{
    cp_schedule_state(cp, VG_CP_RUN, t);
}

static void cp_trace_cmd(struct vg_cp *cp, uint32_t op, vg_time_t start,
                         vg_time_t end, uint32_t dispatch, uint64_t value)
{
    vg_gpu_trace(cp->gc, VMGPU_TRACE_CMD, VMGPU_TRACE_SM_NONE, start, end,
                 dispatch, NONE, op, value, 0);
}

/* The command at pc is done: trace it and go on after the CP overhead. */
static void cp_next(struct vg_cp *cp, uint32_t op, uint32_t len,
                    uint32_t dispatch, uint64_t value)
{
    vg_time_t end = vg_gpu_now(cp->gc) + cp->gc->cost->cp_cmd;

    cp_trace_cmd(cp, op, cp->in_wait ? cp->cmd_start : vg_gpu_now(cp->gc), end,
                 dispatch, value);
    cp->in_wait = false;
    cp->pc += len;
    cp_schedule(cp, end);
}

static void cp_ce_kick(struct vg_cp *cp);

void vg_cp_memory_poll(struct vg_cp *cp, vg_time_t t)
{
    if (cp->state == VG_CP_WAIT_VALUE) {
        cp_schedule(cp, (t > vg_gpu_now(cp->gc) ? t : vg_gpu_now(cp->gc)) +
                            cp->gc->cost->cp_cmd);
    }
    if (cp->ce_waits) {
        cp_ce_kick(cp);
    }
}

/* The CP wrote memory: it may release its own WAIT_VALUE, or others'. */
static void cp_memory_changed(struct vg_cp *cp)
{
    vg_cp_memory_poll(cp, vg_gpu_now(cp->gc));
    vg_gpu_memory_changed(cp->gc);
}

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

static uint32_t fault_int(uint32_t code)
{
    switch (code) {
    case VMGPU_FAULT_UNMAPPED:
    case VMGPU_FAULT_PERMISSION:
    case VMGPU_FAULT_MISALIGNED:
        return VMGPU_INT_FAULT;
    case VMGPU_FAULT_BUDGET:
        return VMGPU_INT_BUDGET;
    case VMGPU_FAULT_RING:
        return VMGPU_INT_RING;
    default:
        return VMGPU_INT_ILLEGAL;
    }
}

/* Between vg_gpu_regs_begin() and _end(). */
static void cp_report(struct vg_cp *cp, const struct vg_error *e)
{
    struct vg_gpu_regs *r = &cp->gc->regs;

    r->err = *e;
    r->err_seqno = cp->have_packet ? cp->entry.seqno : 0;
    cp->gc->cnt[VMGPU_CNT_ERRORS]++;
    vg_gpu_trace(cp->gc, VMGPU_TRACE_ERROR, VMGPU_TRACE_SM_NONE,
                 vg_gpu_now(cp->gc), vg_gpu_now(cp->gc), e->dispatch, NONE,
                 e->code, e->addr, e->pc);
    vg_gpu_raise(cp->gc, fault_int(e->code));
}

static void cp_go_fence(struct vg_cp *cp)
{
    cp_schedule_state(cp, VG_CP_FENCE,
                      vg_gpu_now(cp->gc) + cp->gc->cost->fence);
}

/* The error is reported: finish the packet once its blocks drained. */
static void cp_after_error(struct vg_cp *cp)
{
    if (!cp->have_packet) {
        cp->state = VG_CP_HALTED;
    } else if (cp->sms->resident) {
        cp->state = VG_CP_DRAIN;
    } else {
        cp_go_fence(cp);
    }
}

/*
 * Report an error and abandon the rest of the packet. Nothing of the
 * packet is issued any more; blocks already on SMs run to their end in
 * device time (they hold SM resources) and their stores are discarded.
 * If an earlier error is still latched, the report waits for its
 * acknowledgement so that ERR_* never changes under the driver's feet.
 */
static void cp_fail(struct vg_cp *cp, uint32_t code, uint64_t addr, uint32_t pc,
                    uint32_t dispatch)
{
    struct vg_error e = {
        .code = code,
        .slot = cp->have_packet ? cp->entry.as_slot : 0,
        .addr = addr,
        .pc = pc,
        .dispatch = dispatch,
    };
    uint32_t i;

    if (cp->have_packet && !cp->aborted) {
        cp->aborted = true;
        for (i = 0; i < vg_cp_tasks_end(cp); i++) {
            cp->disp[i].cancelled = true;
            vg_wdist_remove(cp->wd, &cp->disp[i].task);
        }
        /* Copies not landed are dropped: the packet's writes end here. */
        vg_ce_reset(cp->ce);
        cp->ce_waits = false;
    }
    cp->in_wait = false;
    if (!vg_gpu_regs_begin(cp->gc)) {
        return; /* reset: all of this is about to be dropped */
    }
    if (cp->gc->regs.int_status & VMGPU_INT_ERROR_MASK) {
        vg_gpu_regs_end(cp->gc);
        cp->pending_err = e;
        cp->state = VG_CP_WAIT_ACK;
        return;
    }
    cp_report(cp, &e);
    vg_gpu_regs_end(cp->gc);
    cp_after_error(cp);
}

/* cp_fail() for what a unit below returned (launch.c, take.c). */
static void cp_fail_error(struct vg_cp *cp, const struct vg_error *e)
{
    cp_fail(cp, e->code, e->addr, e->pc, e->dispatch);
}

/* ------------------------------------------------------------------ */
/* Packet fetch and validation                                          */
/* ------------------------------------------------------------------ */

/*
 * Validate every command of the packet before running any. Returns
 * VMGPU_FAULT_NONE or the fault with *bad_word / *bad_addr set.
 */
static int cp_validate(struct vg_cp *cp, uint32_t *bad_word, uint64_t *bad_addr)
{
    struct vmgpu_cmd_checker ck;
    enum vmgpu_cmd_verdict verdict = VMGPU_CMD_OK;
    const char *why;

    /* The rules of the command format: vmgpu_cmd.h, as the driver's. */
    vmgpu_cmd_checker_init(&ck, VMGPU_MAX_DISPATCHES_PER_PACKET);
    cp->num_syncs = 0;
    while (ck.word < cp->words && !ck.ended) {
        const uint8_t *p = cp->buf + 4 * ck.word;

        *bad_word = ck.word;
        *bad_addr = cp->entry.cmdbuf_va + 4ull * ck.word;
        verdict = vmgpu_cmd_check(&ck, p, cp->words - ck.word, &why);
        /*
         * A misaligned TIMESTAMP, WRITE_VALUE or WAIT_VALUE address (at
         * byte 8 of each), or dependency table (byte 16), is reported as
         * such; a DISPATCH's is a malformed dispatch.
         */
        if (verdict == VMGPU_CMD_MISALIGNED &&
            VMGPU_CMD_OP(vmgpu_cmd_ld32(p)) != VMGPU_CMD_DISPATCH) {
            switch (VMGPU_CMD_OP(vmgpu_cmd_ld32(p))) {
            case VMGPU_CMD_DEP_SIGNAL:
                *bad_addr = VMGPU_CMD_U64(p, vmgpu_cmd_dep_signal, table_va);
                break;
            case VMGPU_CMD_DEP_WAIT:
                *bad_addr = VMGPU_CMD_U64(p, vmgpu_cmd_dep_wait, table_va);
                break;
            case VMGPU_CMD_COPY_ASYNC:
                *bad_addr =
                    VMGPU_CMD_U64(p, vmgpu_cmd_copy_async, after_table) %
                            VMGPU_DEP_ENTRY_BYTES
                        ? VMGPU_CMD_U64(p, vmgpu_cmd_copy_async, after_table)
                        : VMGPU_CMD_U64(p, vmgpu_cmd_copy_async, signal_table);
                break;
            default: /* TIMESTAMP, WRITE_VALUE, WAIT_VALUE: one offset */
                *bad_addr = VMGPU_CMD_U64(p, vmgpu_cmd_write_value, va);
                break;
            }
            return VMGPU_FAULT_MISALIGNED;
        }
        if (verdict) {
            return VMGPU_FAULT_BAD_COMMAND;
        }
        if (VMGPU_CMD_OP(vmgpu_cmd_ld32(p)) == VMGPU_CMD_SYNC) {
            cp->syncs[cp->num_syncs].consumer =
                VMGPU_CMD_U32(p, vmgpu_cmd_sync, consumer);
            cp->syncs[cp->num_syncs].producer =
                VMGPU_CMD_U32(p, vmgpu_cmd_sync, producer);
            cp->syncs[cp->num_syncs].word = *bad_word;
            cp->syncs[cp->num_syncs].counted = false;
            cp->num_syncs++;
        }
    }
    cp->num_dispatches = ck.dispatches;
    *bad_word = ck.ended ? ck.word : cp->words;
    *bad_addr = cp->entry.cmdbuf_va + 4ull * *bad_word;
    if (vmgpu_cmd_check_end(&ck, &why)) {
        if (ck.ended) { /* a SYNC names a dispatch that never came */
            *bad_word = ck.consumer_word;
            *bad_addr = cp->entry.cmdbuf_va + 4ull * *bad_word;
        }
        return VMGPU_FAULT_BAD_COMMAND;
    }
    return VMGPU_FAULT_NONE;
}

static bool is_pow2(uint32_t v)
{
    return v && !(v & (v - 1));
}

/* Take the next ring entry, if any, and validate it and its packet. */
static void cp_fetch(struct vg_cp *cp)
{
    struct vg_gpu_regs *r = &cp->gc->regs;
    uint64_t bytes_by_loc[VMGPU_LOC_COUNT] = { 0 };
    uint8_t raw[VMGPU_RING_ENTRY_SIZE];
    uint64_t entry_addr, fault_va = 0;
    uint32_t bad_word = 0;
    vg_time_t t, stamp;
    int code;

    /* The ring registers, the entry (32 bytes) and the head move as one. */
    if (!vg_gpu_regs_begin(cp->gc)) {
        cp->state = VG_CP_IDLE;
        return;
    }
    if (!(r->control & VMGPU_CTRL_ENABLE) || r->ring_head == r->ring_tail) {
        vg_gpu_regs_end(cp->gc);
        cp->state = VG_CP_IDLE;
        return;
    }
    if (!is_pow2(r->ring_entries) || r->ring_entries > VMGPU_RING_MAX_ENTRIES ||
        (r->ring_base & (VMGPU_PAGE_SIZE - 1)) ||
        r->ring_head >= r->ring_entries || r->ring_tail >= r->ring_entries) {
        entry_addr = r->ring_base;
        vg_gpu_regs_end(cp->gc);
        cp_fail(cp, VMGPU_FAULT_RING, entry_addr, 0, NONE);
        return;
    }
    /*
     * Not before the device time the host had observed when it made the
     * entry visible (device-model.rst, "Device time across GPUs").
     */
    stamp = r->ring_stamp[r->ring_head];
    if (stamp > vg_gpu_now(cp->gc)) {
        vg_gpu_regs_end(cp->gc);
        cp_schedule(cp, stamp);
        return;
    }
    entry_addr = r->ring_base + (uint64_t)r->ring_head * VMGPU_RING_ENTRY_SIZE;
    if (vg_bus_read(cp->gc->host, entry_addr, raw, sizeof(raw))) {
        vg_gpu_regs_end(cp->gc);
        cp_fail(cp, VMGPU_FAULT_RING, entry_addr, 0, NONE);
        return;
    }
    r->ring_head = (r->ring_head + 1) & (r->ring_entries - 1);
    vg_gpu_regs_end(cp->gc);

    cp_free_packet(cp);
    cp->have_packet = true;
    cp->serial++;
    cp->entry.cmdbuf_va = RING_U64(raw, cmdbuf_va);
    cp->entry.cmdbuf_bytes = RING_U32(raw, cmdbuf_bytes);
    cp->entry.flags = RING_U32(raw, flags);
    cp->entry.seqno = RING_U64(raw, seqno);
    cp->entry.as_slot = RING_U32(raw, as_slot);
    cp->entry.min_level = (uint16_t)RING_U32(raw, min_level);
    cp->entry.default_level = (uint16_t)(RING_U32(raw, min_level) >> 16);
    cp->gc->packet = &cp->entry;
    cp->packet_start = vg_gpu_now(cp->gc);
    cp->span_any = false;
    cp->pc = 0;
    cp->instr_budget = 0;
    cp->default_priority = cp->entry.default_level;
    cp->launch_quota = 0;
    cp->sm_mask = 0;

    if (cp->entry.min_level >= VMGPU_PRIORITY_LEVELS ||
        cp->entry.default_level >= VMGPU_PRIORITY_LEVELS ||
        (cp->entry.default_level &&
         cp->entry.default_level < cp->entry.min_level) ||
        (cp->entry.flags & ~VMGPU_RING_F_ALL) || cp->entry.cmdbuf_bytes % 4 ||
        cp->entry.cmdbuf_bytes > VMGPU_CMDBUF_MAX_BYTES ||
        cp->entry.as_slot >= VMGPU_AS_SLOTS) {
        /* Keep ERR_SLOT meaningful even for a bad slot number. */
        code = VMGPU_FAULT_RING;
        cp_fail(cp, code, entry_addr, 0, NONE);
        return;
    }
    cp->words = cp->entry.cmdbuf_bytes / 4;
    code = vg_mmu_read(cp->mmu, cp->entry.as_slot, cp->entry.cmdbuf_va, cp->buf,
                       cp->entry.cmdbuf_bytes, &fault_va, bytes_by_loc);
    if (code) {
        cp_fail(cp, code, fault_va, 0, NONE);
        return;
    }
    code = cp_validate(cp, &bad_word, &fault_va);
    if (code) {
        cp_fail(cp, code, fault_va, bad_word, NONE);
        return;
    }
    /* The CP reads the packet over the bus its pages live behind. */
    t = vg_gpu_price_bytes(cp->gc, vg_gpu_now(cp->gc), bytes_by_loc, false);
    cp_schedule(cp, t + cp->gc->cost->cp_cmd);
}

/* ------------------------------------------------------------------ */
/* Tasks in flight                                                      */
/* ------------------------------------------------------------------ */

void vg_cp_dispatch_ready(struct vg_cp *cp, uint32_t index, uint32_t serial)
{
    struct vg_dispatch *d;

    if (!cp->have_packet || serial != cp->serial || cp->aborted ||
        index >= vg_cp_tasks_end(cp) ||
        cp->dstate[index].state != VG_DISP_LAUNCHING) {
        return; /* stale, or a queue closed on its way */
    }
    d = &cp->disp[index];
    cp->dstate[index].state = VG_DISP_RUNNING;
    vg_wdist_submit(cp->wd, &d->task);
    vg_sms_issue(cp->sms);
}

/*
 * A TAKE's portion is done: its entry is written (take.c), and the TAKE
 * may take another. Returns false after cp_fail().
 */
static bool cp_take_portion_done(struct vg_cp *cp, struct vg_dispatch *d)
{
    struct vg_error err;

    if (!vg_take_portion_done(cp, d, &err)) {
        cp_fail_error(cp, &err);
        return false;
    }
    if (cp->state == VG_CP_WAIT_TAKE) {
        cp_schedule(cp, vg_gpu_now(cp->gc));
    }
    return true;
}

/* Nothing of the packet runs: neither a dispatch nor a copy. */
static bool cp_quiet(const struct vg_cp *cp)
{
    return !cp->outstanding && vg_ce_idle(cp->ce);
}

/* A dispatch or a copy ended: a BARRIER or END may go on. */
static void cp_drained(struct vg_cp *cp)
{
    if (!cp_quiet(cp)) {
        return;
    }
    if (cp->state == VG_CP_WAIT_BARRIER) {
        cp_next(cp, VMGPU_CMD_BARRIER, VMGPU_CMD_LEN_BARRIER, NONE, 0);
    } else if (cp->state == VG_CP_WAIT_END) {
        cp_trace_cmd(cp, VMGPU_CMD_END, cp->cmd_start,
                     vg_gpu_now(cp->gc) + cp->gc->cost->fence, NONE, 0);
        cp->in_wait = false;
        cp_go_fence(cp);
    }
}

static void dispatch_done(struct vg_cp *cp, struct vg_dispatch *d)
{
    uint32_t i;

    cp->dstate[d->index].state = VG_DISP_DONE;
    d->end = vg_gpu_now(cp->gc);
    cp->outstanding--;
    cp->gc->cnt[VMGPU_CNT_DISPATCHES]++;
    vg_gpu_trace(cp->gc, VMGPU_TRACE_DISPATCH, VMGPU_TRACE_SM_NONE, d->start,
                 d->end, d->index, NONE, 0,
                 d->task.queue ? d->task.next_block : d->task.blocks_total, 0);
    if (!cp->span_any || d->start < cp->span_start) {
        cp->span_start = d->start;
    }
    if (!cp->span_any || d->end > cp->span_end) {
        cp->span_end = d->end;
    }
    cp->span_any = true;
    /*
     * Only the SYNCs that counted this producer: not one SKIP_IF stepped
     * over, nor one reached after the producer had ended.
     */
    for (i = 0; i < cp->num_syncs; i++) {
        uint32_t consumer = cp->syncs[i].consumer;
        struct vg_cp_dispatch_state *c = &cp->dstate[consumer];

        if (cp->syncs[i].producer != d->index || !cp->syncs[i].counted) {
            continue;
        }
        cp->syncs[i].counted = false;
        if (c->deps && --c->deps == 0 && c->state == VG_DISP_WAITING) {
            vg_launch_send(cp, &cp->disp[consumer]);
        }
    }
    if (cp->state == VG_CP_WAIT_SKIP &&
        cp->dstate[cp->skip_after].state == VG_DISP_DONE) {
        cp_schedule(cp, vg_gpu_now(cp->gc));
    }
    if (d->portion && !cp_take_portion_done(cp, d)) {
        return;
    }
    cp_drained(cp);
}

/*
 * A task's own blocks are done: it is done once its children are, and
 * then so may be its parent, up the chain (a parent's completion, and so
 * its SYNC consumers and the packet's fence, waits for its children).
 */
static void task_blocks_finished(struct vg_cp *cp, struct vg_dispatch *d)
{
    d->blocks_finished = true;
    while (d && d->blocks_finished && !d->children) {
        struct vg_dispatch *parent =
            d->parent == NONE ? NULL : &cp->disp[d->parent];

        dispatch_done(cp, d);
        if (parent) {
            parent->children--;
        }
        d = parent;
    }
}

/*
 * Queue tasks end (W7) when nothing of the packet can give them items any
 * more: the CP waits at a BARRIER, END or SKIP_IF, no block of the packet
 * runs, no item waits, and every task not done waits for SYNC producers
 * (or is a queue). Checked whenever one of these may have become true.
 */
static void cp_close_queues(struct vg_cp *cp)
{
    uint32_t i, end = vg_cp_tasks_end(cp);

    if (!cp->open_queues || cp->aborted ||
        (cp->state != VG_CP_WAIT_BARRIER && cp->state != VG_CP_WAIT_END &&
         cp->state != VG_CP_WAIT_SKIP)) {
        return;
    }
    for (i = 0; i < end; i++) {
        const struct vg_dispatch *d = &cp->disp[i];
        enum vg_dispatch_state st = cp->dstate[i].state;

        if (st == VG_DISP_DONE || st == VG_DISP_UNSEEN ||
            st == VG_DISP_WAITING) {
            continue;
        }
        if (d->task.blocks_running ||
            (d->task.queue ? vg_wdist_items_waiting(&d->task) != 0
                           : !d->blocks_finished)) {
            return;
        }
    }
    for (i = 0; i < end && cp->open_queues; i++) {
        struct vg_dispatch *d = &cp->disp[i];

        if (d->task.queue && cp->dstate[i].state != VG_DISP_DONE &&
            cp->dstate[i].state != VG_DISP_UNSEEN) {
            cp->open_queues--;
            vg_wdist_close(cp->wd, &d->task);
            task_blocks_finished(cp, d);
        }
    }
}

/*
 * Act on a completed block's LAUNCH and ENQ records (launch.c). Returns
 * false after cp_fail().
 */
static bool cp_block_work(struct vg_cp *cp, const struct vg_block_outcome *o)
{
    struct vg_error err;

    if (!vg_launch_block_work(cp, o, &err)) {
        cp_fail_error(cp, &err);
        return false;
    }
    return true;
}

/*
 * A block of a dispatch with DEP_SIGNALs finished: write the entries of
 * the regions it completed. Returns false after cp_fail().
 */
static bool cp_block_signals(struct vg_cp *cp, const struct vg_block_outcome *o)
{
    uint64_t fault_va = 0;
    uint32_t pc = 0;
    int code;

    if (!o->stored || !vg_deps_signalled(cp->deps, o->d->index) ||
        o->d->parent != NONE) {
        return true;
    }
    code = vg_deps_block_done(cp->deps, cp->gc, cp->mmu, cp->entry.as_slot,
                              o->d->index, &o->d->launch, o->block, &fault_va,
                              &pc);
    if (code) {
        cp_fail(cp, code, fault_va, pc, o->d->index);
        return false;
    }
    return true;
}

void vg_cp_block_retired(struct vg_cp *cp, const struct vg_block_outcome *o)
{
    if (o->stored) {
        vg_cp_memory_poll(cp, vg_gpu_now(cp->gc));
    }
    if (o->current && o->faulted && !cp->aborted) {
        cp_fail(cp, o->fault.code, o->fault.addr, o->fault.pc, o->d->index);
    } else if (cp_block_signals(cp, o) && cp_block_work(cp, o) && o->finished) {
        task_blocks_finished(cp, o->d);
    }
    cp_close_queues(cp);
    if (cp->ce_waits) {
        cp_ce_kick(cp); /* its entry may be one the block just wrote */
    }
    if (cp->aborted && cp->state == VG_CP_DRAIN && !cp->sms->resident) {
        cp_go_fence(cp);
    }
}

/* ------------------------------------------------------------------ */
/* Copy                                                                 */
/* ------------------------------------------------------------------ */

/*
 * The copy engine runs the packet's COPY and COPY_ASYNC commands in
 * order, one at a time. Every page of a copy is checked (and the copy
 * priced) when it starts; the bytes move when it completes in device
 * time, so the copy sees every store completed before then. The CP waits
 * for a COPY (and so for the copies queued before it), not for a
 * COPY_ASYNC; BARRIER and END wait for all of them. Earlier dispatches
 * are not waited for (use BARRIER, or COPY_ASYNC after an entry).
 */

/*
 * Start the copy at the head of the queue, once the entry it waits for
 * (if any) is READY, no earlier than that entry was written. Called
 * whenever that may have become possible: a copy queued or done, memory
 * changed.
 */
static void cp_ce_kick(struct vg_cp *cp)
{
    struct vg_ce_job *j = vg_ce_head(cp->ce);
    vg_time_t ready = vg_gpu_now(cp->gc);
    uint64_t fault_va = 0;
    int code;

    if (!j || cp->ce->busy || cp->aborted) {
        return;
    }
    if (j->flags & VMGPU_COPY_AFTER_ENTRY) {
        /* As DEP_WAIT: announce the wait before reading. */
        vg_gpu_publish_wait(cp->gc);
        switch (vg_deps_entry_check(cp->gc, cp->mmu, cp->entry.as_slot,
                                    j->after_table, j->after_index, j->epoch,
                                    &ready, &code, &fault_va)) {
        case VG_DEP_FAULT:
            cp_fail(cp, code, fault_va, j->pc, NONE);
            return;
        case VG_DEP_BLOCKED:
            cp->ce_waits = true;
            return;
        default:
            break;
        }
    }
    cp->ce_waits = false;
    code = vg_ce_start(cp->ce, ready, cp->serial, &fault_va);
    if (code) {
        cp_fail(cp, code, fault_va, j->pc, NONE);
    }
}

/* Queue the COPY or COPY_ASYNC at pc, or wait for room in the queue. */
static void cp_copy(struct vg_cp *cp, const uint8_t *p, uint32_t op)
{
    if (vg_ce_full(cp->ce)) {
        cp->in_wait = true;
        cp->state = VG_CP_WAIT_COPY_SLOT;
        return;
    }
    vg_ce_push(cp->ce, p, cp->pc, cp->entry.as_slot);
    cp_ce_kick(cp);
    if (cp->aborted) {
        return;
    }
    if (op == VMGPU_CMD_COPY) {
        cp->in_wait = true;
        cp->state = VG_CP_WAIT_COPY;
        return;
    }
    /* The copy's own record comes when it lands. */
    cp->in_wait = false;
    cp->pc += VMGPU_CMD_LEN_COPY_ASYNC;
    cp_schedule(cp, vg_gpu_now(cp->gc) + cp->gc->cost->cp_cmd);
}

void vg_cp_copy_done(struct vg_cp *cp, uint32_t seq, uint32_t serial)
{
    struct vg_ce_job j;
    uint64_t fault_va = 0;
    int code;

    if (!cp->have_packet || serial != cp->serial || seq != cp->ce->seq ||
        !cp->ce->busy || cp->aborted) {
        return;
    }
    if (vg_gpu_stale(cp->gc)) {
        return; /* a reset drops the copy */
    }
    code = vg_ce_finish(cp->ce, &j, &fault_va);
    if (code) {
        /* Page tables changed since the check: a partial copy. */
        cp_fail(cp, code, fault_va, j.pc, NONE);
        return;
    }
    vg_gpu_trace(cp->gc, VMGPU_TRACE_CMD, VMGPU_TRACE_SM_NONE,
                 j.op == VMGPU_CMD_COPY ? cp->cmd_start : j.start,
                 vg_gpu_now(cp->gc), NONE,
                 j.flags & VMGPU_COPY_SIGNAL_ENTRY ? j.signal_index : NONE,
                 j.op, (uint64_t)j.copy.width * j.copy.height, 0);
    if (j.flags & VMGPU_COPY_SIGNAL_ENTRY) {
        code = vg_deps_write_entry(cp->gc, cp->mmu, cp->entry.as_slot,
                                   j.signal_table, j.signal_index, j.epoch,
                                   &fault_va);
        if (code) {
            cp_fail(cp, code, fault_va, j.pc, NONE);
            return;
        }
    }
    cp_memory_changed(cp);
    if (j.op == VMGPU_CMD_COPY && cp->state == VG_CP_WAIT_COPY) {
        cp->in_wait = false;
        cp->pc += VMGPU_CMD_LEN_COPY;
        cp_schedule(cp, vg_gpu_now(cp->gc));
    } else if (cp->state == VG_CP_WAIT_COPY_SLOT) {
        cp_schedule(cp, vg_gpu_now(cp->gc)); /* run the copy at pc again */
    }
    cp_ce_kick(cp);
    cp_drained(cp);
}

/* ------------------------------------------------------------------ */
/* Command execution                                                    */
/* ------------------------------------------------------------------ */

static bool wait_holds(uint32_t op, uint32_t v, uint32_t ref)
{
    switch (op) {
    case VMGPU_WAIT_EQ:
        return v == ref;
    case VMGPU_WAIT_NE:
        return v != ref;
    case VMGPU_WAIT_GE:
        return v >= ref;
    case VMGPU_WAIT_GT:
        return v > ref;
    case VMGPU_WAIT_LE:
        return v <= ref;
    case VMGPU_WAIT_LT:
        return v < ref;
    default:
        return false;
    }
}

/*
 * SKIP_IF: wait for its dispatch, read the word once, and step over the
 * commands it skips: a skipped DISPATCH or LAUNCH_TMD keeps its index
 * and is done at once (SYNCs naming it are satisfied, nothing runs).
 * Only forward, within a packet the check accepted (END is never
 * skipped). Returns false while waiting or after cp_fail().
 */
static bool cp_skip_if(struct vg_cp *cp, const uint8_t *p)
{
    uint32_t after = VMGPU_CMD_U32(p, vmgpu_cmd_skip_if, after);
    uint32_t n = VMGPU_CMD_U32(p, vmgpu_cmd_skip_if, skip), at, i, v, op;
    uint64_t va = VMGPU_CMD_U64(p, vmgpu_cmd_skip_if, va), fault_va = 0;
    vg_time_t t;
    int code;

    if (after != VMGPU_SKIP_IF_NOW && cp->dstate[after].state != VG_DISP_DONE) {
        cp->skip_after = after;
        cp->in_wait = true;
        cp->state = VG_CP_WAIT_SKIP;
        cp_close_queues(cp);
        return false;
    }
    code = vg_mmu_read(cp->mmu, cp->entry.as_slot, va, &v, 4, &fault_va, NULL);
    if (code) {
        cp_fail(cp, code, fault_va, cp->pc, NONE);
        return false;
    }
    /* Not before the GPU write it reads (as WAIT_VALUE). */
    t = vg_wtimes_lookup(cp->gc->wtimes, va, 4);
    if (t > vg_gpu_now(cp->gc)) {
        cp->in_wait = true;
        cp_schedule(cp, t);
        return false;
    }
    if (!wait_holds(VMGPU_CMD_U32(p, vmgpu_cmd_skip_if, op),
                    le32toh(v) & VMGPU_CMD_U32(p, vmgpu_cmd_skip_if, mask),
                    VMGPU_CMD_U32(p, vmgpu_cmd_skip_if, value))) {
        n = 0;
    }
    at = cp->pc + VMGPU_CMD_LEN_SKIP_IF;
    for (i = 0; i < n; i++) {
        op = VMGPU_CMD_OP(vmgpu_cmd_ld32(cp->buf + 4 * at));
        if (op == VMGPU_CMD_DISPATCH || op == VMGPU_CMD_LAUNCH_TMD) {
            cp->dstate[cp->seen_dispatches++].state = VG_DISP_DONE;
        }
        at += vmgpu_cmd_len(op);
    }
    cp_next(cp, VMGPU_CMD_SKIP_IF, at - cp->pc, NONE, n);
    return false;
}

static void cp_fence(struct vg_cp *cp)
{
    struct vg_gpu_regs *r = &cp->gc->regs;
    uint64_t seq = htole64(cp->entry.seqno);

    cp->gc->cnt[VMGPU_CNT_PACKETS]++;
    cp->gc->cnt[VMGPU_CNT_BUSY_NS] +=
        (vg_gpu_now(cp->gc) - cp->packet_start) / VG_PS_PER_NS;
    /*
     * The fence (memory and register) and the interrupt under the
     * register lock: a reset either comes after all of them or drops
     * them all, never a fence of the old work after the reset.
     */
    if (vg_gpu_regs_begin(cp->gc)) {
        /* Address 0 means "no fence in memory", the register still moves. */
        if (r->fence_addr) {
            vg_bus_write(cp->gc->host, r->fence_addr, &seq, sizeof(seq));
        }
        r->fence = cp->entry.seqno;
        r->fence_time = vg_gpu_now(cp->gc);
        vg_gpu_trace(cp->gc, VMGPU_TRACE_PACKET, VMGPU_TRACE_SM_NONE,
                     cp->packet_start, vg_gpu_now(cp->gc), NONE, NONE,
                     cp->aborted ? 1 : 0, cp->words, 0);
        /* One completion interrupt per flagged packet, never for errors. */
        if (!cp->aborted && (cp->entry.flags & VMGPU_RING_F_IRQ)) {
            cp->gc->cnt[VMGPU_CNT_INTERRUPTS]++;
            vg_gpu_raise(cp->gc, VMGPU_INT_COMPLETE);
        }
        vg_gpu_regs_end(cp->gc);
    }
    cp_free_packet(cp);
    cp_memory_changed(cp);
    cp->state = VG_CP_RUN;
    cp_fetch(cp);
}

/*
 * TAKE (take.c): run it, and wait as it says. Returns true when it is
 * done; false while it waits, or after cp_fail().
 */
static bool cp_take(struct vg_cp *cp, const uint8_t *p)
{
    struct vg_error err;
    vg_time_t t;

    switch (vg_take_run(cp, p, &t, &err)) {
    case VG_TAKE_DONE:
        return true;
    case VG_TAKE_FAILED:
        cp_fail_error(cp, &err);
        return false;
    case VG_TAKE_BLOCKED:
        cp->in_wait = true;
        cp->state = VG_CP_WAIT_VALUE;
        return false;
    case VG_TAKE_LATER:
        cp->in_wait = true;
        cp_schedule(cp, t);
        return false;
    default: /* VG_TAKE_RUNNING */
        cp->in_wait = true;
        cp->state = VG_CP_WAIT_TAKE;
        return false;
    }
}

static void cp_execute(struct vg_cp *cp)
{
    const uint8_t *p = cp->buf + 4 * cp->pc;
    uint32_t op = VMGPU_CMD_OP(vmgpu_cmd_ld32(p)), len = vmgpu_cmd_len(op);
    uint32_t slot = cp->entry.as_slot, v, n;
    uint64_t va, fault_va = 0, span[2];
    struct vg_error err;
    vg_time_t t;
    int code;

    if (cp->pc >= cp->words) { /* cannot happen: END is last */
        cp_fail(cp, VMGPU_FAULT_BAD_COMMAND,
                cp->entry.cmdbuf_va + 4ull * cp->pc, cp->pc, NONE);
        return;
    }
    if (!cp->in_wait) {
        cp->cmd_start = vg_gpu_now(cp->gc);
    }
    switch (op) {
    case VMGPU_CMD_SET_STATE:
        v = VMGPU_CMD_U32(p, vmgpu_cmd_set_state, value);
        switch (VMGPU_CMD_U32(p, vmgpu_cmd_set_state, key)) {
        case VMGPU_STATE_INSTR_BUDGET:
            cp->instr_budget = v;
            break;
        case VMGPU_STATE_DEFAULT_PRIORITY:
            /* 0: back to the ring entry's */
            cp->default_priority = v ? v : cp->entry.default_level;
            break;
        case VMGPU_STATE_LAUNCH_QUOTA:
            cp->launch_quota = v;
            break;
        case VMGPU_STATE_SM_MASK_LO:
            cp->sm_mask = (cp->sm_mask & ~0xffffffffull) | v;
            break;
        default: /* SM_MASK_HI; the packet's check allows no other key */
            cp->sm_mask = (cp->sm_mask & 0xffffffffull) | (uint64_t)v << 32;
            break;
        }
        break;
    case VMGPU_CMD_DISPATCH: {
        struct vg_task_src src = {
            .index = cp->seen_dispatches++,
            .err_addr = cp->entry.cmdbuf_va + 4ull * cp->pc,
            .err_pc = cp->pc,
            .bad_code = VMGPU_FAULT_BAD_COMMAND,
            .parent = NONE,
        };
        struct vmgpu_tmd_queue_info no_queue = { 0 };

        if (!vg_launch_dispatch(cp, &src, p, cp->launch_quota, cp->sm_mask,
                                &no_queue, &err)) {
            cp_fail_error(cp, &err);
            return;
        }
        cp_next(cp, op, len, cp->seen_dispatches - 1, 0);
        return;
    }
    case VMGPU_CMD_LAUNCH_TMD:
        if (!vg_launch_tmd(cp, p, &err)) {
            cp_fail_error(cp, &err);
            return;
        }
        cp_next(cp, op, len, cp->seen_dispatches - 1, 0);
        return;
    case VMGPU_CMD_SYNC: {
        uint32_t consumer = VMGPU_CMD_U32(p, vmgpu_cmd_sync, consumer);
        uint32_t producer = VMGPU_CMD_U32(p, vmgpu_cmd_sync, producer);

        /*
         * The packet's check bounds both, but it is the driver's check
         * too: an index into our arrays is checked where it is used
         * (robustness.rst, "The device's rule for guest data").
         */
        if (consumer >= cp->num_dispatches || producer >= consumer) {
            cp_fail(cp, VMGPU_FAULT_BAD_COMMAND,
                    cp->entry.cmdbuf_va + 4ull * cp->pc, cp->pc, NONE);
            return;
        }
        /* Its entry: the SYNCs are reached in order (SKIP_IF: forward). */
        while (cp->sync_next < cp->num_syncs &&
               cp->syncs[cp->sync_next].word < cp->pc) {
            cp->sync_next++;
        }
        if (cp->dstate[producer].state != VG_DISP_DONE &&
            cp->sync_next < cp->num_syncs &&
            cp->syncs[cp->sync_next].word == cp->pc) {
            cp->syncs[cp->sync_next].counted = true;
            cp->dstate[consumer].deps++;
        }
        break;
    }
    case VMGPU_CMD_BARRIER:
        if (!cp_quiet(cp)) {
            cp->in_wait = true;
            cp->state = VG_CP_WAIT_BARRIER;
            cp_close_queues(cp);
            return;
        }
        break;
    case VMGPU_CMD_TIMESTAMP:
        if (vg_gpu_stale(cp->gc)) {
            return; /* a reset drops the packet: no more writes */
        }
        va = VMGPU_CMD_U64(p, vmgpu_cmd_timestamp, va);
        n = vmgpu_timestamp_bytes(p);
        if (n == 16) {
            /* the same truncation to ns as the trace's records */
            span[0] = htole64(cp->span_any ? cp->span_start / VG_PS_PER_NS
                                           : 0);
            span[1] = htole64(cp->span_any ? cp->span_end / VG_PS_PER_NS
                                           : 0);
            cp->span_any = false;
        } else {
            span[0] = htole64(vg_gpu_now(cp->gc) / VG_PS_PER_NS);
        }
        code = vg_mmu_write(cp->mmu, slot, va, span, n, &fault_va, NULL);
        if (code) {
            cp_fail(cp, code, fault_va, cp->pc, NONE);
            return;
        }
        vg_gpu_wrote(cp->gc, va, n);
        cp_memory_changed(cp);
        break;
    case VMGPU_CMD_WRITE_VALUE:
        if (vg_gpu_stale(cp->gc)) {
            return;
        }
        v = htole32(VMGPU_CMD_U32(p, vmgpu_cmd_write_value, value));
        va = VMGPU_CMD_U64(p, vmgpu_cmd_write_value, va);
        code = vg_mmu_write(cp->mmu, slot, va, &v, 4, &fault_va, NULL);
        if (code) {
            cp_fail(cp, code, fault_va, cp->pc, NONE);
            return;
        }
        vg_gpu_wrote(cp->gc, va, 4);
        cp_memory_changed(cp);
        break;
    case VMGPU_CMD_WAIT_VALUE:
        /*
         * Say we wait before reading: a writer on another GPU either
         * sees that and asks us to poll again, or wrote before our read.
         */
        vg_gpu_publish_wait(cp->gc);
        va = VMGPU_CMD_U64(p, vmgpu_cmd_wait_value, va);
        code = vg_mmu_read(cp->mmu, slot, va, &v, 4, &fault_va, NULL);
        if (code) {
            cp_fail(cp, code, fault_va, cp->pc, NONE);
            return;
        }
        if (!wait_holds(VMGPU_CMD_U32(p, vmgpu_cmd_wait_value, op),
                        le32toh(v) &
                            VMGPU_CMD_U32(p, vmgpu_cmd_wait_value, mask),
                        VMGPU_CMD_U32(p, vmgpu_cmd_wait_value, value))) {
            /* Polled again when memory may have changed. */
            cp->in_wait = true;
            cp->state = VG_CP_WAIT_VALUE;
            return;
        }
        /* Not before the GPU write it saw: look again at that time. */
        t = vg_wtimes_lookup(cp->gc->wtimes, va, 4);
        if (t > vg_gpu_now(cp->gc)) {
            cp->in_wait = true;
            cp_schedule(cp, t);
            return;
        }
        break;
    case VMGPU_CMD_DEP_SIGNAL:
        vg_deps_add_signal(cp->deps, p, cp->pc);
        break;
    case VMGPU_CMD_DEP_WAIT:
        /* As WAIT_VALUE: announce the wait before reading. */
        vg_gpu_publish_wait(cp->gc);
        switch (vg_deps_wait(cp->deps, cp->gc, cp->mmu, slot, p, &t, &code,
                             &fault_va)) {
        case VG_DEP_FAULT:
            cp_fail(cp, code, fault_va, cp->pc, NONE);
            return;
        case VG_DEP_BLOCKED:
            cp->in_wait = true;
            cp->state = VG_CP_WAIT_VALUE;
            return;
        default:
            break;
        }
        if (t > vg_gpu_now(cp->gc)) {
            cp->in_wait = true;
            cp_schedule(cp, t);
            return;
        }
        vg_deps_wait_end(cp->deps);
        break;
    case VMGPU_CMD_SKIP_IF:
        cp_skip_if(cp, p);
        return;
    case VMGPU_CMD_TAKE:
        if (!cp_take(cp, p)) {
            return;
        }
        break;
    case VMGPU_CMD_COPY:
    case VMGPU_CMD_COPY_ASYNC:
        cp_copy(cp, p, op);
        return;
    case VMGPU_CMD_END:
        if (!cp_quiet(cp)) {
            cp->in_wait = true;
            cp->state = VG_CP_WAIT_END;
            cp_close_queues(cp);
            return;
        }
        cp_trace_cmd(cp, op, cp->cmd_start,
                     vg_gpu_now(cp->gc) + cp->gc->cost->fence, NONE, 0);
        cp->in_wait = false;
        cp_go_fence(cp);
        return;
    default: /* NOP */
        break;
    }
    cp_next(cp, op, len, NONE, 0);
}

void vg_cp_step(struct vg_cp *cp)
{
    cp->step_pending = false;
    switch (cp->state) {
    case VG_CP_RUN:
        if (!cp->have_packet) {
            cp_fetch(cp);
        } else {
            cp_execute(cp);
        }
        break;
    case VG_CP_FENCE:
        cp_fence(cp);
        break;
    default:
        break;
    }
}

void vg_cp_wake(struct vg_cp *cp)
{
    switch (cp->state) {
    case VG_CP_IDLE:
    case VG_CP_HALTED:
        cp_schedule(cp, vg_gpu_now(cp->gc));
        break;
    case VG_CP_WAIT_ACK:
        if (!vg_gpu_regs_begin(cp->gc)) {
            break;
        }
        if (cp->gc->regs.int_status & VMGPU_INT_ERROR_MASK) {
            vg_gpu_regs_end(cp->gc);
            break;
        }
        cp_report(cp, &cp->pending_err);
        vg_gpu_regs_end(cp->gc);
        cp_after_error(cp);
        break;
    default:
        break;
    }
}

uint32_t vg_cp_status(const struct vg_cp *cp)
{
    if (cp->state == VG_CP_HALTED) {
        return VMGPU_STATUS_HALTED;
    }
    if (cp->state == VG_CP_IDLE && !cp->have_packet) {
        return VMGPU_STATUS_IDLE;
    }
    return 0;
}
