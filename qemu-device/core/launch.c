// SPDX-License-Identifier: MIT
/*
 * Task launch (one per GPU, under the command processor): a task of the
 * packet set up from a DISPATCH, from a task descriptor (LAUNCH_TMD, a
 * TAKE's portion) or from a kernel's LAUNCH, its kernel loaded and its
 * arguments read, checked against the distributor's limits and sent to
 * the distributor after the launch latency; and a kernel's ENQs stored
 * into their queue task.
 *
 * Separate from the command processor (cmdproc.c), which walks the packet
 * and calls these, so that the CP is the packet walker and this is what a
 * task is made of. It sits below cmdproc and take in the layering: a
 * failure is not reported from here but returned in a struct vg_error,
 * which the CP reports with cp_fail() before doing anything else, so the
 * packet is abandoned at the same point as before the split.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "launch.h"

#define NONE VMGPU_TRACE_NONE

/* A field of a DISPATCH, by name (uapi/vmgpu_hw.h). */
#define DISPATCH_U32(p, f) VMGPU_CMD_U32(p, vmgpu_cmd_dispatch, f)
#define DISPATCH_U64(p, f) VMGPU_CMD_U64(p, vmgpu_cmd_dispatch, f)

void vg_launch_send(struct vg_cp *cp, struct vg_dispatch *d)
{
    cp->dstate[d->index].state = VG_DISP_LAUNCHING;
    vg_gpu_post(cp->gc, vg_gpu_now(cp->gc) + cp->gc->cost->launch,
                VG_EV_DISPATCH_READY, d->index, cp->serial);
}

/*
 * Set up task @src->index from the DISPATCH at @p (or the one a task
 * descriptor stands for), with the launch quota and affinity @quota and
 * @sm_mask and, for a queue task, its queue @q (capacity 0: none); then
 * send it on its way. Returns false with @err set.
 */
bool vg_launch_dispatch(struct vg_cp *cp, const struct vg_task_src *src,
                        const uint8_t *p, uint32_t quota, uint64_t sm_mask,
                        const struct vmgpu_tmd_queue_info *q,
                        struct vg_error *err)
{
    uint64_t usable;
    uint32_t slot = cp->entry.as_slot, index = src->index;
    struct vg_dispatch *d = &cp->disp[index];
    struct vmgpu_exec_header hdr;
    uint64_t code_va = DISPATCH_U64(p, code_va);
    uint64_t args_va = DISPATCH_U64(p, args_va), fault_va = 0;
    uint32_t args_bytes = DISPATCH_U32(p, args_bytes);
    uint32_t shared_bytes = DISPATCH_U32(p, shared_bytes);
    uint32_t bad_pc = 0, threads = 1, i;
    struct vg_kernel *k = NULL;
    struct vg_launch *l = &d->launch;
    void *image;
    size_t size;
    int code;

    d->index = index;
    d->serial = cp->serial;
    d->tmd_va = src->tmd_va;
    d->parent = src->parent;
    code =
        vg_mmu_read(cp->mmu, slot, code_va, &hdr, sizeof(hdr), &fault_va, NULL);
    if (code) {
        return vg_cp_error(err, code, fault_va, src->err_pc, index);
    }
    /* The header is little-endian like everything else; so is the host. */
    size = vg_exec_image_bytes(&hdr);
    if (!size) {
        return vg_cp_error(err, VMGPU_FAULT_BAD_EXECUTABLE, code_va, 0, index);
    }
    image = malloc(size);
    if (!image) {
        return vg_cp_error(err, VMGPU_FAULT_BAD_EXECUTABLE, code_va, 0, index);
    }
    code = vg_mmu_read(cp->mmu, slot, code_va, image, size, &fault_va, NULL);
    if (code) {
        free(image);
        return vg_cp_error(err, code, fault_va, src->err_pc, index);
    }
    code = vg_kernel_load(&k, image, size, cp->gc->cfg->isa_version, &bad_pc);
    free(image);
    if (code) {
        return vg_cp_error(err, code, code_va, bad_pc, index);
    }
    d->kernel = k;
    if (vg_kernel_args_bytes(k) != args_bytes ||
        (uint64_t)vg_kernel_shared_bytes(k) + shared_bytes >
            VMGPU_MAX_SHARED_BYTES) {
        return vg_cp_error(err, src->bad_code, src->err_addr, src->err_pc,
                           index);
    }
    if (args_bytes) {
        code = vg_mmu_read(cp->mmu, slot, args_va, d->args, args_bytes,
                           &fault_va, NULL);
        if (code) {
            return vg_cp_error(err, code, fault_va, src->err_pc, index);
        }
    }
    memset(l, 0, sizeof(*l));
    l->kernel = k;
    l->args = d->args;
    l->args_bytes = args_bytes;
    for (i = 0; i < 3; i++) {
        l->grid[i] = DISPATCH_U32(p, grid[i]);
        l->block[i] = DISPATCH_U32(p, block[i]);
        l->origin[i] = DISPATCH_U32(p, origin[i]);
        l->grid_total[i] = DISPATCH_U32(p, grid_total[i]);
        threads *= l->block[i];
    }
    l->shared_bytes = shared_bytes;
    l->gpu = cp->gc->index;
    l->mem = vg_mmu_memif(cp->mmu, slot);
    l->abort = &cp->gc->abort;

    memset(&d->task, 0, sizeof(d->task));
    d->task.priority = DISPATCH_U32(p, priority);
    if (!d->task.priority) {
        d->task.priority = cp->default_priority;
    }
    d->task.head = DISPATCH_U32(p, flags) & VMGPU_DISPATCH_F_HEAD;
    d->task.sequential = DISPATCH_U32(p, flags) & VMGPU_DISPATCH_F_SEQUENTIAL;
    d->task.throttle = DISPATCH_U32(p, flags) & VMGPU_DISPATCH_F_THROTTLE;
    /* No task of the packet is more urgent than its ring entry allows. */
    if (cp->entry.min_level && d->task.priority < cp->entry.min_level) {
        d->task.priority = cp->entry.min_level;
    }
    d->task.quota = quota;
    d->task.sm_mask = sm_mask;
    d->task.blocks_total = l->grid[0] * l->grid[1] * l->grid[2];
    if (q->capacity) {
        /* Its blocks are numbered in x; at most one block per item. */
        d->task.queue = true;
        d->task.blocks_total = 0;
        d->task.coalesce = q->coalesce;
        d->task.coalesce_timeout = VG_NS(q->coalesce_timeout_ns);
        d->items_va = q->items_va;
        d->capacity = q->capacity;
        l->grid[0] = l->grid_total[0] = q->capacity;
        cp->open_queues++;
    }
    threads = (threads + VMGPU_WARP_SIZE - 1) & ~(VMGPU_WARP_SIZE - 1);
    d->task.need.threads = threads;
    d->task.need.regs = vg_kernel_regs(k) * threads;
    d->task.need.shared = vg_kernel_shared_bytes(k) + l->shared_bytes;
    /*
     * A block that fits no SM, or an affinity naming no SM it may run on
     * (for throttle work: of the throttle subset), would never run:
     * refuse the launch.
     */
    usable = d->task.throttle ? vg_wdist_throttle_sms(cp->wd)
                              : vg_wdist_all_sms(cp->wd);
    if (!vg_wdist_fits(cp->wd, &d->task.need, d->task.throttle) ||
        (d->task.sm_mask && !(d->task.sm_mask & usable))) {
        return vg_cp_error(err, src->bad_code, src->err_addr, src->err_pc,
                           index);
    }
    /* Signals armed on it need its regions (SPEC R3). */
    if (src->parent == NONE &&
        vg_deps_arm(cp->deps, index, l, d->task.queue, &bad_pc)) {
        return vg_cp_error(err, VMGPU_FAULT_BAD_COMMAND,
                           cp->entry.cmdbuf_va + 4ull * bad_pc, bad_pc, index);
    }
    d->budget = vg_budget_scaled(cp->instr_budget ? cp->instr_budget
                                                  : cp->gc->cfg->instr_budget,
                                 l->grid, l->block);
    cp->outstanding++;
    if (cp->dstate[index].deps) {
        cp->dstate[index].state = VG_DISP_WAITING;
    } else {
        vg_launch_send(cp, d);
    }
    return true;
}

/*
 * vmgpu_cmd_check() on the DISPATCH a task descriptor stands for. Out of
 * line, as the checker was when it had two callers in cmdproc.c: inlined
 * where @c is a local, GCC follows the checker's branches for commands
 * longer than a DISPATCH (which its "len > left" rules out) and warns
 * that they would read past @c (-Warray-bounds).
 */
static __attribute__((noinline)) enum vmgpu_cmd_verdict
check_tmd_dispatch(const struct vmgpu_cmd_dispatch *c, const char **why)
{
    struct vmgpu_cmd_checker ck;

    vmgpu_cmd_checker_init(&ck, 1);
    return vmgpu_cmd_check(&ck, c, VMGPU_CMD_LEN_DISPATCH, why);
}

/*
 * Task @src->index from the descriptor at @src->tmd_va, whose bytes are
 * @tmd: checked by the rules of the DISPATCH it stands for (it was not
 * there when the packet was checked). A kernel's LAUNCH may not start a
 * queue task. Returns false with @err set.
 */
bool vg_launch_from_tmd(struct vg_cp *cp, const struct vg_task_src *src,
                        const uint8_t *tmd, bool queue_ok, struct vg_error *err)
{
    struct vmgpu_tmd_queue_info q;
    struct vmgpu_cmd_dispatch c;
    const char *why;

    if (vmgpu_tmd_decode(tmd, &c, &q, &why) || (q.capacity && !queue_ok) ||
        check_tmd_dispatch(&c, &why)) {
        return vg_cp_error(err, src->bad_code, src->err_addr, src->err_pc,
                           src->index);
    }
    return vg_launch_dispatch(cp, src, (const uint8_t *)&c,
                              VMGPU_CMD_U32(tmd, vmgpu_tmd, quota),
                              VMGPU_CMD_U64(tmd, vmgpu_tmd, sm_mask), &q, err);
}

/* LAUNCH_TMD: the task descriptor is read when the command runs. */
bool vg_launch_tmd(struct vg_cp *cp, const uint8_t *p, struct vg_error *err)
{
    uint64_t va = VMGPU_CMD_U64(p, vmgpu_cmd_launch_tmd, tmd_va), fault_va;
    struct vg_task_src src = {
        .index = cp->seen_dispatches++,
        .err_addr = va,
        .err_pc = cp->pc,
        .bad_code = VMGPU_FAULT_BAD_COMMAND,
        .tmd_va = va,
        .parent = NONE,
    };
    uint8_t tmd[VMGPU_TMD_BYTES];
    int code;

    code = vg_mmu_read(cp->mmu, cp->entry.as_slot, va, tmd, sizeof(tmd),
                       &fault_va, NULL);
    if (code) {
        return vg_cp_error(err, code, fault_va, cp->pc, src.index);
    }
    return vg_launch_from_tmd(cp, &src, tmd, true, err);
}

/*
 * A kernel's LAUNCH (W7), acted on when its block completes: a child task
 * of @parent from the descriptor at @w->va, with the argument block and
 * blocks in x the instruction gave (0: the descriptor's). It reaches the
 * distributor after the same launch latency as a command's dispatch, with
 * no interrupt and no register access. Returns false with @err set.
 */
static bool launch_child(struct vg_cp *cp, struct vg_dispatch *parent,
                         const struct vg_work *w, struct vg_error *err)
{
    struct vg_task_src src = {
        .index = cp->num_dispatches + cp->num_children,
        .err_addr = w->va,
        .err_pc = w->pc,
        .bad_code = VMGPU_FAULT_TASK,
        .tmd_va = w->va,
        .parent = parent->index,
    };
    uint8_t tmd[VMGPU_TMD_BYTES];
    uint64_t fault_va, args = htole64(w->args_va);
    uint32_t gx = htole32(w->value);
    int code;

    if (src.index >= VMGPU_MAX_TASKS_PER_PACKET || w->va % 8) {
        return vg_cp_error(err, VMGPU_FAULT_TASK, w->va, w->pc, parent->index);
    }
    code = vg_mmu_read(cp->mmu, cp->entry.as_slot, w->va, tmd, sizeof(tmd),
                       &fault_va, NULL);
    if (code) {
        return vg_cp_error(err, code, fault_va, w->pc, parent->index);
    }
    if (w->args_va) {
        memcpy(tmd + offsetof(struct vmgpu_tmd, args_va), &args, 8);
    }
    if (w->value) {
        /* The index space in x grows with the portion: origin + grid. */
        uint32_t total =
            htole32(VMGPU_CMD_U32(tmd, vmgpu_tmd, origin[0]) + w->value);

        memcpy(tmd + offsetof(struct vmgpu_tmd, grid), &gx, 4);
        memcpy(tmd + offsetof(struct vmgpu_tmd, grid_total), &total, 4);
    }
    cp->num_children++;
    parent->children++;
    cp->gc->cnt[VMGPU_CNT_DEVICE_LAUNCHES]++;
    return vg_launch_from_tmd(cp, &src, tmd, false, err);
}

/* The queue task of this packet whose descriptor is at @va, or NULL. */
static struct vg_dispatch *find_queue(struct vg_cp *cp, uint64_t va)
{
    uint32_t i;

    for (i = 0; i < vg_cp_tasks_end(cp); i++) {
        struct vg_dispatch *d = &cp->disp[i];

        if (d->task.queue && d->tmd_va == va &&
            cp->dstate[i].state != VG_DISP_DONE) {
            return d;
        }
    }
    return NULL;
}

/* ENQ records the device stores with one memory write. */
#define ENQ_RUN 256

/*
 * A kernel's ENQs (W7), acted on when its block completes: the @n (at
 * most ENQ_RUN) records at @w, which name the same queue task, in
 * program order. The device stores the items in the task's next places
 * and hands them to the distributor. Returns false with @err set; it
 * names the first record that could not be done.
 */
static bool enqueue(struct vg_cp *cp, struct vg_dispatch *from,
                    const struct vg_work *w, uint32_t n, struct vg_error *err)
{
    struct vg_dispatch *q = find_queue(cp, w->va);
    uint32_t items[ENQ_RUN], i;
    uint64_t fault_va = 0;
    int code;

    if (!q) {
        return vg_cp_error(err, VMGPU_FAULT_TASK, w->va, w->pc, from->index);
    }
    if (n > q->capacity - q->task.items) {
        i = q->capacity - q->task.items; /* the first one with no room */
        return vg_cp_error(err, VMGPU_FAULT_TASK, w->va, w[i].pc, from->index);
    }
    for (i = 0; i < n; i++) {
        items[i] = htole32(w[i].value);
    }
    code = vg_mmu_write(cp->mmu, cp->entry.as_slot,
                        q->items_va + 4ull * q->task.items, items, 4 * n,
                        &fault_va, NULL);
    if (code) {
        i = (uint32_t)((fault_va - q->items_va) / 4 - q->task.items);
        return vg_cp_error(err, code, fault_va, w[i < n ? i : 0].pc,
                           from->index);
    }
    vg_gpu_wrote(cp->gc, q->items_va + 4ull * q->task.items, 4 * n);
    vg_wdist_add_items(cp->wd, &q->task, n, vg_gpu_now(cp->gc));
    cp->gc->cnt[VMGPU_CNT_QUEUE_ITEMS] += n;
    return true;
}

/*
 * Act on a completed block's LAUNCH and ENQ records, in program order
 * (there are none unless its stores reached memory). Returns false with
 * @err set.
 */
bool vg_launch_block_work(struct vg_cp *cp, const struct vg_block_outcome *o,
                          struct vg_error *err)
{
    uint32_t i, n;
    bool items = false;

    for (i = 0; i < o->nwork; i += n) {
        const struct vg_work *w = &o->work[i];

        n = 1;
        if (w->kind == VG_WORK_LAUNCH) {
            if (!launch_child(cp, o->d, w, err)) {
                return false;
            }
            continue;
        }
        /* A run of ENQs to one queue: one lookup, one write. */
        while (i + n < o->nwork && n < ENQ_RUN && w[n].kind == VG_WORK_ENQ &&
               w[n].va == w->va) {
            n++;
        }
        if (!enqueue(cp, o->d, w, n, err)) {
            return false;
        }
        items = true;
    }
    if (items) {
        vg_sms_issue(cp->sms);
    }
    return true;
}
