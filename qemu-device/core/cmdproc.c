// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Command processor (one per GPU) and the SMs' block issue/completion.
 *
 * A packet is validated as a whole when it is fetched (structure, lengths,
 * reserved fields, SYNC rules, address alignment), then run one command
 * per CP_STEP event. Whatever depends on memory at the time a command is
 * reached (executables, argument blocks, MMU faults, WAIT_VALUE) is
 * checked when the command runs. Documentation/device-model.rst describes
 * the semantics; the comments here say why the code does what it does.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "le.h"
#include "model.h"
#include "vmgpu_cmd.h"

#define NONE          VMGPU_TRACE_NONE
#define CMD_WORDS_MAX (VMGPU_CMDBUF_MAX_BYTES / 4)
#define MAX_SYNCS     (CMD_WORDS_MAX / VMGPU_CMD_LEN_SYNC + 1)

int vg_cp_init(struct vg_cp *cp)
{
    uint32_t i;

    memset(cp, 0, sizeof(*cp));
    cp->buf = malloc(VMGPU_CMDBUF_MAX_BYTES);
    cp->disp = calloc(VMGPU_MAX_DISPATCHES_PER_PACKET, sizeof(*cp->disp));
    cp->args_arena =
        malloc((size_t)VMGPU_MAX_DISPATCHES_PER_PACKET * VMGPU_MAX_ARGS_BYTES);
    cp->syncs = calloc(MAX_SYNCS, sizeof(*cp->syncs));
    if (!cp->buf || !cp->disp || !cp->args_arena || !cp->syncs) {
        vg_cp_destroy(cp);
        return -1;
    }
    for (i = 0; i < VMGPU_MAX_DISPATCHES_PER_PACKET; i++) {
        cp->disp[i].args = cp->args_arena + (size_t)i * VMGPU_MAX_ARGS_BYTES;
    }
    return 0;
}

static void cp_free_packet(struct vg_cp *cp)
{
    uint32_t i;

    for (i = 0; i < cp->seen_dispatches; i++) {
        struct vg_dispatch *d = &cp->disp[i];
        uint8_t *args = d->args;

        vg_kernel_free(d->kernel);
        memset(d, 0, sizeof(*d));
        d->args = args;
    }
    /* Unseen dispatches only ever had deps counted. */
    for (; i < cp->num_dispatches; i++) {
        cp->disp[i].deps = 0;
    }
    cp->have_packet = false;
    cp->num_dispatches = cp->seen_dispatches = 0;
    cp->num_syncs = 0;
    cp->outstanding = 0;
    cp->blocks_in_flight = 0;
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
    free(cp->args_arena);
    free(cp->syncs);
    cp->buf = NULL;
    cp->disp = NULL;
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
}

/* ------------------------------------------------------------------ */
/* Scheduling helpers                                                   */
/* ------------------------------------------------------------------ */

static void cp_schedule_state(struct vg_device *dev, struct vg_gpu *g,
                              enum vg_cp_state state, vg_time_t t)
{
    g->cp.state = state;
    if (g->cp.step_pending) {
        return;
    }
    g->cp.step_pending = true;
    vg_dev_event(dev, g, t, VG_EV_CP_STEP, 0, 0);
}

static void cp_schedule(struct vg_device *dev, struct vg_gpu *g, vg_time_t t)
{
    cp_schedule_state(dev, g, VG_CP_RUN, t);
}

/* The GPU's own clock: the time of the event being run. */
static vg_time_t now_of(const struct vg_gpu *g)
{
    return g->evq.now;
}

static void cp_trace_cmd(struct vg_device *dev, struct vg_gpu *g, uint32_t op,
                         vg_time_t start, vg_time_t end, uint32_t dispatch,
                         uint64_t value)
{
    vg_dev_trace(dev, g, VMGPU_TRACE_CMD, VMGPU_TRACE_SM_NONE, start, end,
                 dispatch, NONE, op, value, 0);
}

/* The command at pc is done: trace it and go on after the CP overhead. */
static void cp_next(struct vg_device *dev, struct vg_gpu *g, uint32_t op,
                    uint32_t len, uint32_t dispatch, uint64_t value)
{
    struct vg_cp *cp = &g->cp;
    vg_time_t end = now_of(g) + dev->cost.cp_cmd;

    cp_trace_cmd(dev, g, op, cp->in_wait ? cp->cmd_start : now_of(g), end,
                 dispatch, value);
    cp->in_wait = false;
    cp->pc += len;
    cp_schedule(dev, g, end);
}

void vg_cp_memory_poll(struct vg_device *dev, struct vg_gpu *g, vg_time_t t)
{
    if (g->cp.state == VG_CP_WAIT_VALUE) {
        cp_schedule(dev, g, (t > now_of(g) ? t : now_of(g)) + dev->cost.cp_cmd);
    }
}

void vg_cp_memory_changed(struct vg_device *dev, struct vg_gpu *g)
{
    vg_cp_memory_poll(dev, g, now_of(g));
    vg_dev_memory_changed(dev, g);
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
static void cp_report(struct vg_device *dev, struct vg_gpu *g,
                      const struct vg_cp_error *e)
{
    struct vg_gpu_regs *r = &g->regs;

    r->err = *e;
    r->err_seqno = g->cp.have_packet ? g->cp.entry.seqno : 0;
    g->cnt[VMGPU_CNT_ERRORS]++;
    vg_dev_trace(dev, g, VMGPU_TRACE_ERROR, VMGPU_TRACE_SM_NONE, now_of(g),
                 now_of(g), e->dispatch, NONE, e->code, e->addr, e->pc);
    vg_dev_raise(dev, g, fault_int(e->code));
}

static void cp_go_fence(struct vg_device *dev, struct vg_gpu *g)
{
    cp_schedule_state(dev, g, VG_CP_FENCE, now_of(g) + dev->cost.fence);
}

/* The error is reported: finish the packet once its blocks drained. */
static void cp_after_error(struct vg_device *dev, struct vg_gpu *g)
{
    struct vg_cp *cp = &g->cp;

    if (!cp->have_packet) {
        cp->state = VG_CP_HALTED;
    } else if (cp->blocks_in_flight) {
        cp->state = VG_CP_DRAIN;
    } else {
        cp_go_fence(dev, g);
    }
}

/*
 * Report an error and abandon the rest of the packet. Nothing of the
 * packet is issued any more; blocks already on SMs run to their end in
 * device time (they hold SM resources) and their stores are discarded.
 * If an earlier error is still latched, the report waits for its
 * acknowledgement so that ERR_* never changes under the driver's feet.
 */
static void cp_fail(struct vg_device *dev, struct vg_gpu *g, uint32_t code,
                    uint64_t addr, uint32_t pc, uint32_t dispatch)
{
    struct vg_cp *cp = &g->cp;
    struct vg_cp_error e = {
        .code = code,
        .slot = cp->have_packet ? cp->entry.as_slot : 0,
        .addr = addr,
        .pc = pc,
        .dispatch = dispatch,
    };
    uint32_t i;

    if (cp->have_packet && !cp->aborted) {
        cp->aborted = true;
        for (i = 0; i < cp->seen_dispatches; i++) {
            vg_wdist_remove(&g->wd, &cp->disp[i].task);
        }
    }
    cp->in_wait = false;
    if (!vg_gpu_regs_begin(g)) {
        return; /* reset: all of this is about to be dropped */
    }
    if (g->regs.int_status & VMGPU_INT_ERROR_MASK) {
        vg_gpu_regs_end(g);
        cp->pending_err = e;
        cp->state = VG_CP_WAIT_ACK;
        return;
    }
    cp_report(dev, g, &e);
    vg_gpu_regs_end(g);
    cp_after_error(dev, g);
}

/* ------------------------------------------------------------------ */
/* Packet fetch and validation                                          */
/* ------------------------------------------------------------------ */

/* Word offsets inside struct vmgpu_cmd_dispatch. */
enum {
    DW_FLAGS = 1,
    DW_CODE = 2,
    DW_ARGS = 4,
    DW_ARGS_BYTES = 6,
    DW_GRID = 7,
    DW_BLOCK = 10,
    DW_ORIGIN = 13,
    DW_GRID_TOTAL = 16,
    DW_SHARED = 19,
    DW_PRIORITY = 20,
    DW_RESERVED = 21,
};


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
         * byte 8 of each) is reported as such; a DISPATCH's is a malformed
         * dispatch.
         */
        if (verdict == VMGPU_CMD_MISALIGNED &&
            VMGPU_CMD_OP(vg_ld_le32(p)) != VMGPU_CMD_DISPATCH) {
            *bad_addr = vg_ld_le64(p + 8);
            return VMGPU_FAULT_MISALIGNED;
        }
        if (verdict) {
            return VMGPU_FAULT_BAD_COMMAND;
        }
        if (VMGPU_CMD_OP(vg_ld_le32(p)) == VMGPU_CMD_SYNC) {
            cp->syncs[cp->num_syncs].consumer =
                VMGPU_CMD_U32(p, vmgpu_cmd_sync, consumer);
            cp->syncs[cp->num_syncs].producer =
                VMGPU_CMD_U32(p, vmgpu_cmd_sync, producer);
            cp->syncs[cp->num_syncs].word = *bad_word;
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

/* Time to move bytes_by_loc (as counted by the MMU) for GPU @g. */
static vg_time_t price_bytes(struct vg_device *dev, struct vg_gpu *g,
                             vg_time_t ready, const uint64_t *bytes_by_loc,
                             bool book)
{
    uint64_t cls_bytes[VG_MEM_NUM_CLASSES] = { 0 };
    vg_time_t end = ready, lat = 0;
    uint32_t loc, c;

    for (loc = 0; loc < VMGPU_LOC_COUNT; loc++) {
        cls_bytes[vg_mem_class_of(loc, g->index)] += bytes_by_loc[loc];
    }
    for (c = 0; c < VG_MEM_NUM_CLASSES; c++) {
        vg_time_t dur, e;

        if (!cls_bytes[c]) {
            continue;
        }
        dur = vg_cost_transfer(&dev->cost, c, cls_bytes[c]);
        if (book) {
            e = vg_server_book(&g->chan[c], ready, dur);
        } else {
            e = ready + dur;
        }
        end = e > end ? e : end;
        lat = dev->cost.lat[c] > lat ? dev->cost.lat[c] : lat;
        g->cnt[VMGPU_CNT_BYTES_LOCAL + c] += cls_bytes[c];
    }
    return end + lat;
}

static bool is_pow2(uint32_t v)
{
    return v && !(v & (v - 1));
}

/* Take the next ring entry, if any, and validate it and its packet. */
static void cp_fetch(struct vg_device *dev, struct vg_gpu *g)
{
    struct vg_gpu_regs *r = &g->regs;
    struct vg_cp *cp = &g->cp;
    uint64_t bytes_by_loc[VMGPU_LOC_COUNT] = { 0 };
    uint8_t raw[VMGPU_RING_ENTRY_SIZE];
    uint64_t entry_addr, fault_va = 0;
    uint32_t bad_word = 0;
    vg_time_t t;
    int code;

    /* The ring registers, the entry (32 bytes) and the head move as one. */
    if (!vg_gpu_regs_begin(g)) {
        cp->state = VG_CP_IDLE;
        return;
    }
    if (!(r->control & VMGPU_CTRL_ENABLE) || r->ring_head == r->ring_tail) {
        vg_gpu_regs_end(g);
        cp->state = VG_CP_IDLE;
        return;
    }
    if (!is_pow2(r->ring_entries) || r->ring_entries > VMGPU_RING_MAX_ENTRIES ||
        (r->ring_base & (VMGPU_PAGE_SIZE - 1)) ||
        r->ring_head >= r->ring_entries || r->ring_tail >= r->ring_entries) {
        entry_addr = r->ring_base;
        vg_gpu_regs_end(g);
        cp_fail(dev, g, VMGPU_FAULT_RING, entry_addr, 0, NONE);
        return;
    }
    entry_addr = r->ring_base + (uint64_t)r->ring_head * VMGPU_RING_ENTRY_SIZE;
    if (vg_bus_read(&dev->host, entry_addr, raw, sizeof(raw))) {
        vg_gpu_regs_end(g);
        cp_fail(dev, g, VMGPU_FAULT_RING, entry_addr, 0, NONE);
        return;
    }
    r->ring_head = (r->ring_head + 1) & (r->ring_entries - 1);
    vg_gpu_regs_end(g);

    cp_free_packet(cp);
    cp->have_packet = true;
    cp->serial++;
    cp->entry.cmdbuf_va = vg_ld_le64(raw + 0);
    cp->entry.cmdbuf_bytes = vg_ld_le32(raw + 8);
    cp->entry.flags = vg_ld_le32(raw + 12);
    cp->entry.seqno = vg_ld_le64(raw + 16);
    cp->entry.as_slot = vg_ld_le32(raw + 24);
    cp->entry.reserved = vg_ld_le32(raw + 28);
    cp->packet_start = now_of(g);
    cp->pc = 0;
    cp->instr_budget = 0;
    cp->default_priority = 0;

    if (cp->entry.reserved || (cp->entry.flags & ~VMGPU_RING_F_ALL) ||
        cp->entry.cmdbuf_bytes % 4 ||
        cp->entry.cmdbuf_bytes > VMGPU_CMDBUF_MAX_BYTES ||
        cp->entry.as_slot >= VMGPU_AS_SLOTS) {
        /* Keep ERR_SLOT meaningful even for a bad slot number. */
        code = VMGPU_FAULT_RING;
        cp_fail(dev, g, code, entry_addr, 0, NONE);
        return;
    }
    cp->words = cp->entry.cmdbuf_bytes / 4;
    code = vg_mmu_read(&g->mmu, cp->entry.as_slot, cp->entry.cmdbuf_va, cp->buf,
                       cp->entry.cmdbuf_bytes, &fault_va, bytes_by_loc);
    if (code) {
        cp_fail(dev, g, code, fault_va, 0, NONE);
        return;
    }
    code = cp_validate(cp, &bad_word, &fault_va);
    if (code) {
        cp_fail(dev, g, code, fault_va, bad_word, NONE);
        return;
    }
    /* The CP reads the packet over the bus its pages live behind. */
    t = price_bytes(dev, g, now_of(g), bytes_by_loc, false);
    cp_schedule(dev, g, t + dev->cost.cp_cmd);
}

/* ------------------------------------------------------------------ */
/* Dispatch                                                             */
/* ------------------------------------------------------------------ */

static void dispatch_launch(struct vg_device *dev, struct vg_gpu *g,
                            struct vg_dispatch *d)
{
    d->state = VG_DISP_LAUNCHING;
    vg_dev_event(dev, g, now_of(g) + dev->cost.launch, VG_EV_DISPATCH_READY,
                 d->index, g->cp.serial);
}

/* Returns false after cp_fail(). */
static bool cp_dispatch(struct vg_device *dev, struct vg_gpu *g,
                        const uint8_t *p)
{
    struct vg_cp *cp = &g->cp;
    uint32_t slot = cp->entry.as_slot, index = cp->seen_dispatches;
    struct vg_dispatch *d = &cp->disp[index];
    struct vmgpu_exec_header hdr;
    uint64_t code_va = vg_ld_le64(p + 4 * DW_CODE);
    uint64_t args_va = vg_ld_le64(p + 4 * DW_ARGS), fault_va = 0;
    uint32_t args_bytes = vg_ld_le32(p + 4 * DW_ARGS_BYTES);
    uint32_t bad_pc = 0, threads = 1, i;
    struct vg_kernel *k = NULL;
    struct vg_launch *l = &d->launch;
    void *image;
    size_t size;
    int code;

    cp->seen_dispatches++;
    d->index = index;
    d->cmd_word = cp->pc;
    code =
        vg_mmu_read(&g->mmu, slot, code_va, &hdr, sizeof(hdr), &fault_va, NULL);
    if (code) {
        cp_fail(dev, g, code, fault_va, cp->pc, index);
        return false;
    }
    /* The header is little-endian like everything else; so is the host. */
    size = vg_exec_image_bytes(&hdr);
    if (!size) {
        cp_fail(dev, g, VMGPU_FAULT_BAD_EXECUTABLE, code_va, 0, index);
        return false;
    }
    image = malloc(size);
    if (!image) {
        cp_fail(dev, g, VMGPU_FAULT_BAD_EXECUTABLE, code_va, 0, index);
        return false;
    }
    code = vg_mmu_read(&g->mmu, slot, code_va, image, size, &fault_va, NULL);
    if (code) {
        free(image);
        cp_fail(dev, g, code, fault_va, cp->pc, index);
        return false;
    }
    code = vg_kernel_load(&k, image, size, &bad_pc);
    free(image);
    if (code) {
        cp_fail(dev, g, code, code_va, bad_pc, index);
        return false;
    }
    d->kernel = k;
    if (vg_kernel_args_bytes(k) != args_bytes ||
        (uint64_t)vg_kernel_shared_bytes(k) + vg_ld_le32(p + 4 * DW_SHARED) >
            VMGPU_MAX_SHARED_BYTES) {
        cp_fail(dev, g, VMGPU_FAULT_BAD_COMMAND,
                cp->entry.cmdbuf_va + 4ull * cp->pc, cp->pc, index);
        return false;
    }
    if (args_bytes) {
        code = vg_mmu_read(&g->mmu, slot, args_va, d->args, args_bytes,
                           &fault_va, NULL);
        if (code) {
            cp_fail(dev, g, code, fault_va, cp->pc, index);
            return false;
        }
    }
    memset(l, 0, sizeof(*l));
    l->kernel = k;
    l->args = d->args;
    l->args_bytes = args_bytes;
    for (i = 0; i < 3; i++) {
        l->grid[i] = vg_ld_le32(p + 4 * (DW_GRID + i));
        l->block[i] = vg_ld_le32(p + 4 * (DW_BLOCK + i));
        l->origin[i] = vg_ld_le32(p + 4 * (DW_ORIGIN + i));
        l->grid_total[i] = vg_ld_le32(p + 4 * (DW_GRID_TOTAL + i));
        threads *= l->block[i];
    }
    l->shared_bytes = vg_ld_le32(p + 4 * DW_SHARED);
    l->gpu = g->index;
    l->mem = vg_mmu_memif(&g->mmu, slot);
    l->abort = &g->abort;

    memset(&d->task, 0, sizeof(d->task));
    d->task.priority = vg_ld_le32(p + 4 * DW_PRIORITY);
    if (!d->task.priority) {
        d->task.priority = cp->default_priority;
    }
    d->task.blocks_total = l->grid[0] * l->grid[1] * l->grid[2];
    threads = (threads + VMGPU_WARP_SIZE - 1) & ~(VMGPU_WARP_SIZE - 1);
    d->task.need.threads = threads;
    d->task.need.regs = vg_kernel_regs(k) * threads;
    d->task.need.shared = vg_kernel_shared_bytes(k) + l->shared_bytes;
    /* A block that fits no SM would never run: refuse the launch. */
    if (!vg_wdist_fits(&g->wd, &d->task.need)) {
        cp_fail(dev, g, VMGPU_FAULT_BAD_COMMAND,
                cp->entry.cmdbuf_va + 4ull * cp->pc, cp->pc, index);
        return false;
    }
    d->budget = cp->instr_budget ? cp->instr_budget : dev->cfg.instr_budget;
    cp->outstanding++;
    if (d->deps) {
        d->state = VG_DISP_WAITING;
    } else {
        dispatch_launch(dev, g, d);
    }
    return true;
}

static void run_block(struct vg_device *dev, struct vg_gpu *g,
                      struct vg_dispatch *d, uint32_t sm, uint32_t block)
{
    struct vg_sm *s = &g->sm[sm];
    struct vg_block_slot *slot = NULL;
    struct vg_block_stats stats;
    uint64_t bytes = 0;
    uint32_t pos[3], i, loc;
    vg_time_t t0, end;
    int r;

    for (i = 0; i < dev->cfg.sm_blocks; i++) {
        if (!s->slots[i].used) {
            slot = &s->slots[i];
            break;
        }
    }
    if (!slot) { /* the distributor's block limit makes this impossible */
        return;
    }
    if (!slot->log) {
        slot->log = vg_storelog_new(); /* once per slot, then reused */
    }
    pos[0] = block % d->launch.grid[0];
    pos[1] = block / d->launch.grid[0] % d->launch.grid[1];
    pos[2] = block / d->launch.grid[0] / d->launch.grid[1];
    memset(&stats, 0, sizeof(stats));
    memset(&slot->fault, 0, sizeof(slot->fault));
    r = vg_interp_run_block(g->interp, &d->launch, pos, sm, slot->log,
                            &d->budget, &stats, &slot->fault);

    /*
     * Price the block: its warp instructions on the SM's issue pipeline
     * (shared first-come first-served with the other resident blocks),
     * its global bytes on the GPU's memory channels by location, then
     * one exposed latency of the slowest memory it touched.
     */
    t0 = now_of(g) + dev->cost.block_launch;
    end = vg_server_book(&s->pipe, t0,
                         vg_cost_issue(&dev->cost, stats.warp_instrs));
    t0 = price_bytes(dev, g, t0, stats.bytes, true);
    end = t0 > end ? t0 : end;
    for (loc = 0; loc < VMGPU_LOC_COUNT; loc++) {
        bytes += stats.bytes[loc];
    }
    g->cnt[VMGPU_CNT_WARP_INSTRS] += stats.warp_instrs;
    g->cnt[VMGPU_CNT_THREAD_INSTRS] += stats.thread_instrs;

    slot->used = true;
    slot->d = d;
    slot->serial = g->cp.serial;
    slot->block = block;
    slot->start = now_of(g);
    slot->end = end;
    slot->faulted = r != 0;
    slot->warp_instrs = stats.warp_instrs;
    slot->bytes = bytes;
    g->cp.blocks_in_flight++;
    if (!d->started) {
        d->started = true;
        d->start = now_of(g);
    }
    vg_dev_event(dev, g, end, VG_EV_BLOCK_DONE, sm,
                 (uint32_t)(slot - s->slots));
}

/*
 * Issue every block that fits now; none once a reset waits for the
 * runner (each would run a slice before it looked at the abort word).
 */
static void issue_blocks(struct vg_device *dev, struct vg_gpu *g)
{
    struct vg_wd_task *t;
    uint32_t sm, block;

    while (!__atomic_load_n(&g->abort, __ATOMIC_RELAXED) &&
           vg_wdist_next(&g->wd, &t, &sm, &block)) {
        run_block(dev, g, (struct vg_dispatch *)t, sm, block);
    }
}

void vg_cp_dispatch_ready(struct vg_device *dev, struct vg_gpu *g,
                          uint32_t index, uint32_t serial)
{
    struct vg_cp *cp = &g->cp;
    struct vg_dispatch *d;

    if (!cp->have_packet || serial != cp->serial || cp->aborted ||
        index >= cp->seen_dispatches) {
        return;
    }
    d = &cp->disp[index];
    d->state = VG_DISP_RUNNING;
    vg_wdist_submit(&g->wd, &d->task);
    issue_blocks(dev, g);
}

static void dispatch_done(struct vg_device *dev, struct vg_gpu *g,
                          struct vg_dispatch *d)
{
    struct vg_cp *cp = &g->cp;
    uint32_t i;

    d->state = VG_DISP_DONE;
    d->end = now_of(g);
    cp->outstanding--;
    g->cnt[VMGPU_CNT_DISPATCHES]++;
    vg_dev_trace(dev, g, VMGPU_TRACE_DISPATCH, VMGPU_TRACE_SM_NONE, d->start,
                 d->end, d->index, NONE, 0, d->task.blocks_total, 0);
    for (i = 0; i < cp->num_syncs; i++) {
        struct vg_dispatch *c;

        if (cp->syncs[i].producer != d->index) {
            continue;
        }
        c = &cp->disp[cp->syncs[i].consumer];
        if (c->deps && --c->deps == 0 && c->state == VG_DISP_WAITING) {
            dispatch_launch(dev, g, c);
        }
    }
    if (cp->outstanding) {
        return;
    }
    if (cp->state == VG_CP_WAIT_BARRIER) {
        cp_next(dev, g, VMGPU_CMD_BARRIER, VMGPU_CMD_LEN_BARRIER, NONE, 0);
    } else if (cp->state == VG_CP_WAIT_END) {
        cp_trace_cmd(dev, g, VMGPU_CMD_END, cp->cmd_start,
                     now_of(g) + dev->cost.fence, NONE, 0);
        cp->in_wait = false;
        cp_go_fence(dev, g);
    }
}

void vg_cp_block_done(struct vg_device *dev, struct vg_gpu *g, uint32_t sm,
                      uint32_t slot_index)
{
    struct vg_cp *cp = &g->cp;
    struct vg_block_slot *slot;
    struct vg_dispatch *d;
    bool current;

    if (sm >= dev->cfg.sms || slot_index >= dev->cfg.sm_blocks) {
        return;
    }
    slot = &g->sm[sm].slots[slot_index];
    if (!slot->used) {
        return;
    }
    d = slot->d;
    slot->used = false;
    vg_wdist_block_done(&g->wd, &d->task, sm);
    cp->blocks_in_flight--;
    g->cnt[VMGPU_CNT_BLOCKS]++;
    vg_dev_trace(dev, g, VMGPU_TRACE_BLOCK, (uint16_t)sm, slot->start,
                 slot->end, d->index, slot->block,
                 slot->faulted ? slot->fault.code : 0, slot->warp_instrs,
                 slot->bytes);
    current = cp->have_packet && slot->serial == cp->serial;
    if (!current || cp->aborted || slot->faulted || vg_gpu_stale(g)) {
        vg_storelog_discard(slot->log);
    } else {
        vg_storelog_apply(slot->log);
        vg_cp_memory_changed(dev, g);
    }
    if (current && slot->faulted && !cp->aborted) {
        cp_fail(dev, g, slot->fault.code, slot->fault.addr, slot->fault.pc,
                d->index);
    } else if (current && !cp->aborted) {
        if (++d->blocks_done == d->task.blocks_total) {
            dispatch_done(dev, g, d);
        }
    }
    if (cp->aborted && cp->state == VG_CP_DRAIN && !cp->blocks_in_flight) {
        cp_go_fence(dev, g);
    }
    issue_blocks(dev, g);
}

/* ------------------------------------------------------------------ */
/* Copy                                                                 */
/* ------------------------------------------------------------------ */

struct copy_args {
    uint32_t width, height, src_pitch, dst_pitch;
    uint64_t src, dst;
};

static void copy_args_of(const uint8_t *p, struct copy_args *c)
{
    c->width = vg_ld_le32(p + 4);
    c->src = vg_ld_le64(p + 8);
    c->dst = vg_ld_le64(p + 16);
    c->height = vg_ld_le32(p + 24);
    c->src_pitch = vg_ld_le32(p + 28);
    c->dst_pitch = vg_ld_le32(p + 32);
}

/*
 * Walk the copy in chunks that stay inside one source and one destination
 * page. With @move false only translate (checking every page and counting
 * bytes by location); with @move true also copy. Returns a fault code.
 */
static int copy_walk(struct vg_gpu *g, const struct copy_args *c, bool move,
                     uint64_t *bytes_by_loc, uint64_t *fault_va)
{
    uint32_t slot = g->cp.entry.as_slot, row;

    for (row = 0; row < c->height; row++) {
        uint64_t src = c->src + (uint64_t)row * c->src_pitch;
        uint64_t dst = c->dst + (uint64_t)row * c->dst_pitch;
        uint64_t left = c->width;

        while (left) {
            uint64_t n = left;
            uint32_t so = src & (VMGPU_PAGE_SIZE - 1);
            uint32_t dof = dst & (VMGPU_PAGE_SIZE - 1);
            struct vg_xlat xs, xd;
            int code;

            if (n > VMGPU_PAGE_SIZE - so) {
                n = VMGPU_PAGE_SIZE - so;
            }
            if (n > VMGPU_PAGE_SIZE - dof) {
                n = VMGPU_PAGE_SIZE - dof;
            }
            code = vg_mmu_translate(&g->mmu, slot, src, false, &xs);
            if (code) {
                *fault_va = src;
                return code;
            }
            code = vg_mmu_translate(&g->mmu, slot, dst, true, &xd);
            if (code) {
                *fault_va = dst;
                return code;
            }
            if (move) {
                memmove(xd.host + dof, xs.host + so, n);
            }
            if (bytes_by_loc) {
                bytes_by_loc[xs.loc] += n;
                bytes_by_loc[xd.loc] += n;
            }
            src += n;
            dst += n;
            left -= n;
        }
    }
    return VMGPU_FAULT_NONE;
}

/*
 * COPY: every page is checked (and the copy priced) when the CP reaches
 * it; the bytes move when it completes in device time, so the copy sees
 * every store completed before then. The CP waits for the copy; earlier
 * dispatches are not waited for (use BARRIER).
 */
static void cp_copy(struct vg_device *dev, struct vg_gpu *g, const uint8_t *p)
{
    uint64_t bytes_by_loc[VMGPU_LOC_COUNT] = { 0 }, fault_va = 0;
    struct copy_args c;
    vg_time_t end;
    int code;

    copy_args_of(p, &c);
    code = copy_walk(g, &c, false, bytes_by_loc, &fault_va);
    if (code) {
        cp_fail(dev, g, code, fault_va, g->cp.pc, NONE);
        return;
    }
    end =
        price_bytes(dev, g, now_of(g) + dev->cost.cp_cmd, bytes_by_loc, true);
    g->cp.copy_bytes = (uint64_t)c.width * c.height;
    g->cp.cmd_start = now_of(g);
    g->cp.in_wait = true;
    g->cp.state = VG_CP_WAIT_COPY;
    vg_dev_event(dev, g, end, VG_EV_COPY_DONE, 0, g->cp.serial);
}

void vg_cp_copy_done(struct vg_device *dev, struct vg_gpu *g, uint32_t serial)
{
    struct vg_cp *cp = &g->cp;
    uint64_t fault_va = 0;
    struct copy_args c;
    int code;

    if (!cp->have_packet || serial != cp->serial ||
        cp->state != VG_CP_WAIT_COPY) {
        return;
    }
    copy_args_of(cp->buf + 4 * cp->pc, &c);
    if (vg_gpu_stale(g)) {
        return; /* a reset drops the copy */
    }
    code = copy_walk(g, &c, true, NULL, &fault_va);
    vg_cp_memory_changed(dev, g);
    if (code) {
        /* Page tables changed since the check: a partial copy. */
        cp_fail(dev, g, code, fault_va, cp->pc, NONE);
        return;
    }
    cp_trace_cmd(dev, g, VMGPU_CMD_COPY, cp->cmd_start, now_of(g), NONE,
                 cp->copy_bytes);
    cp->in_wait = false;
    cp->pc += VMGPU_CMD_LEN_COPY;
    cp_schedule(dev, g, now_of(g));
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

static void cp_fence(struct vg_device *dev, struct vg_gpu *g)
{
    struct vg_cp *cp = &g->cp;
    struct vg_gpu_regs *r = &g->regs;
    uint64_t seq = htole64(cp->entry.seqno);

    g->cnt[VMGPU_CNT_PACKETS]++;
    g->cnt[VMGPU_CNT_BUSY_NS] += (now_of(g) - cp->packet_start) / VG_PS_PER_NS;
    /*
     * The fence (memory and register) and the interrupt under the
     * register lock: a reset either comes after all of them or drops
     * them all, never a fence of the old work after the reset.
     */
    if (vg_gpu_regs_begin(g)) {
        /* Address 0 means "no fence in memory", the register still moves. */
        if (r->fence_addr) {
            vg_bus_write(&dev->host, r->fence_addr, &seq, sizeof(seq));
        }
        r->fence = cp->entry.seqno;
        vg_dev_trace(dev, g, VMGPU_TRACE_PACKET, VMGPU_TRACE_SM_NONE,
                     cp->packet_start, now_of(g), NONE, NONE,
                     cp->aborted ? 1 : 0, cp->words, 0);
        /* One completion interrupt per flagged packet, never for errors. */
        if (!cp->aborted && (cp->entry.flags & VMGPU_RING_F_IRQ)) {
            g->cnt[VMGPU_CNT_INTERRUPTS]++;
            vg_dev_raise(dev, g, VMGPU_INT_COMPLETE);
        }
        vg_gpu_regs_end(g);
    }
    cp_free_packet(cp);
    vg_cp_memory_changed(dev, g);
    cp->state = VG_CP_RUN;
    cp_fetch(dev, g);
}

static void cp_execute(struct vg_device *dev, struct vg_gpu *g)
{
    struct vg_cp *cp = &g->cp;
    const uint8_t *p = cp->buf + 4 * cp->pc;
    uint32_t op = VMGPU_CMD_OP(vg_ld_le32(p)), len = vmgpu_cmd_len(op);
    uint32_t slot = cp->entry.as_slot, v;
    uint64_t va, fault_va = 0, ts;
    int code;

    if (cp->pc >= cp->words) { /* cannot happen: END is last */
        cp_fail(dev, g, VMGPU_FAULT_BAD_COMMAND,
                cp->entry.cmdbuf_va + 4ull * cp->pc, cp->pc, NONE);
        return;
    }
    if (!cp->in_wait) {
        cp->cmd_start = now_of(g);
    }
    switch (op) {
    case VMGPU_CMD_SET_STATE:
        if (vg_ld_le32(p + 4) == VMGPU_STATE_INSTR_BUDGET) {
            cp->instr_budget = vg_ld_le32(p + 8);
        } else {
            cp->default_priority = vg_ld_le32(p + 8);
        }
        break;
    case VMGPU_CMD_DISPATCH:
        if (!cp_dispatch(dev, g, p)) {
            return;
        }
        cp_next(dev, g, op, len, cp->seen_dispatches - 1, 0);
        return;
    case VMGPU_CMD_SYNC: {
        struct vg_dispatch *c = &cp->disp[vg_ld_le32(p + 4)];

        if (cp->disp[vg_ld_le32(p + 8)].state != VG_DISP_DONE) {
            c->deps++;
        }
        break;
    }
    case VMGPU_CMD_BARRIER:
        if (cp->outstanding) {
            cp->in_wait = true;
            cp->state = VG_CP_WAIT_BARRIER;
            return;
        }
        break;
    case VMGPU_CMD_TIMESTAMP:
        if (vg_gpu_stale(g)) {
            return; /* a reset drops the packet: no more writes */
        }
        ts = htole64(now_of(g) / VG_PS_PER_NS);
        code = vg_mmu_write(&g->mmu, slot, vg_ld_le64(p + 8), &ts, 8, &fault_va,
                            NULL);
        if (code) {
            cp_fail(dev, g, code, fault_va, cp->pc, NONE);
            return;
        }
        vg_cp_memory_changed(dev, g);
        break;
    case VMGPU_CMD_WRITE_VALUE:
        if (vg_gpu_stale(g)) {
            return;
        }
        v = htole32(vg_ld_le32(p + 4));
        code = vg_mmu_write(&g->mmu, slot, vg_ld_le64(p + 8), &v, 4, &fault_va,
                            NULL);
        if (code) {
            cp_fail(dev, g, code, fault_va, cp->pc, NONE);
            return;
        }
        vg_cp_memory_changed(dev, g);
        break;
    case VMGPU_CMD_WAIT_VALUE:
        /*
         * Say we wait before reading: a writer on another GPU either
         * sees that and asks us to poll again, or wrote before our read.
         */
        vg_gpu_publish_wait(g);
        va = vg_ld_le64(p + 8);
        code = vg_mmu_read(&g->mmu, slot, va, &v, 4, &fault_va, NULL);
        if (code) {
            cp_fail(dev, g, code, fault_va, cp->pc, NONE);
            return;
        }
        if (!wait_holds(vg_ld_le32(p + 4), le32toh(v) & vg_ld_le32(p + 20),
                        vg_ld_le32(p + 16))) {
            /* Polled again when memory may have changed. */
            cp->in_wait = true;
            cp->state = VG_CP_WAIT_VALUE;
            return;
        }
        break;
    case VMGPU_CMD_COPY:
        cp_copy(dev, g, p);
        return;
    case VMGPU_CMD_END:
        if (cp->outstanding) {
            cp->in_wait = true;
            cp->state = VG_CP_WAIT_END;
            return;
        }
        cp_trace_cmd(dev, g, op, cp->cmd_start, now_of(g) + dev->cost.fence,
                     NONE, 0);
        cp->in_wait = false;
        cp_go_fence(dev, g);
        return;
    default: /* NOP */
        break;
    }
    cp_next(dev, g, op, len, NONE, 0);
}

void vg_cp_step(struct vg_device *dev, struct vg_gpu *g)
{
    struct vg_cp *cp = &g->cp;

    cp->step_pending = false;
    switch (cp->state) {
    case VG_CP_RUN:
        if (!cp->have_packet) {
            cp_fetch(dev, g);
        } else {
            cp_execute(dev, g);
        }
        break;
    case VG_CP_FENCE:
        cp_fence(dev, g);
        break;
    default:
        break;
    }
}

void vg_cp_wake(struct vg_device *dev, struct vg_gpu *g)
{
    struct vg_cp *cp = &g->cp;

    switch (cp->state) {
    case VG_CP_IDLE:
    case VG_CP_HALTED:
        cp_schedule(dev, g, now_of(g));
        break;
    case VG_CP_WAIT_ACK:
        if (!vg_gpu_regs_begin(g)) {
            break;
        }
        if (g->regs.int_status & VMGPU_INT_ERROR_MASK) {
            vg_gpu_regs_end(g);
            break;
        }
        cp_report(dev, g, &cp->pending_err);
        vg_gpu_regs_end(g);
        cp_after_error(dev, g);
        break;
    default:
        break;
    }
}
