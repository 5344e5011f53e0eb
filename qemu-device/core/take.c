// SPDX-License-Identifier: MIT
/*
 * TAKE (SPEC R7), one GPU's dynamic allocation of portions: the command
 * claims portions of a grid along its curve, one atomic exchange on a
 * portion's take word each (every GPU that runs the same TAKE claims from
 * the same words); waits, if asked, for a claimed portion's dependency
 * entries; runs it as a task from the TAKE's descriptor (launch.c); and
 * writes the portion's entry when its task is done.
 *
 * Separate from the command processor (cmdproc.c): the CP walks the
 * packet, runs the TAKE at pc through vg_take_run() and waits as its
 * result says; the claiming, the portions' geometry and their entries
 * are here. Below cmdproc in the layering, above launch: what would
 * change the CP's own state (a wait, a failure) is returned to it.
 */
#include <endian.h>
#include <string.h>

#include "launch.h"
#include "take.h"

#define NONE VMGPU_TRACE_NONE

struct take_claim {
    struct vg_cp *cp;
    uint64_t take_va;
};

/* vmgpu_alloc_next()'s exchange: the take word of @portion, atomically. */
static uint32_t take_xchg(void *ctx, uint32_t portion, uint32_t epoch)
{
    struct take_claim *c = ctx;
    struct vg_cp_take *tk = &c->cp->take;
    uint32_t old = epoch;

    if (!tk->fault) {
        tk->fault = vg_mmu_xchg32(c->cp->mmu, c->cp->entry.as_slot,
                                  vmgpu_alloc_word_va(c->take_va, portion),
                                  epoch, &old, &tk->fault_va);
    }
    return tk->fault ? epoch : old; /* after a fault: as if taken */
}

/*
 * Start a TAKE: its descriptor must describe the portions of @pgrid.
 * Returns false with @err set.
 */
static bool take_start(struct vg_cp *cp, const uint8_t *p, struct vg_error *err)
{
    struct vg_cp_take *tk = &cp->take;
    uint64_t va = VMGPU_CMD_U64(p, vmgpu_cmd_take, tmd_va), fault_va = 0;
    struct vmgpu_tmd_queue_info q;
    struct vmgpu_cmd_dispatch c;
    struct vmgpu_region_map m;
    const char *why;
    uint32_t i;
    int code;

    code = vg_mmu_read(cp->mmu, cp->entry.as_slot, va, tk->tmd, sizeof(tk->tmd),
                       &fault_va, NULL);
    if (code) {
        return vg_cp_error(err, code, fault_va, cp->pc, NONE);
    }
    vmgpu_cmd_take_parts(p, &tk->curve, &m);
    if (vmgpu_tmd_decode(tk->tmd, &c, &q, &why) || q.capacity) {
        return vg_cp_error(err, VMGPU_FAULT_BAD_COMMAND, va, cp->pc, NONE);
    }
    for (i = 0; i < 3; i++) {
        tk->pgrid[i] = VMGPU_CMD_U32(p, vmgpu_cmd_take, pgrid[i]);
        if (c.origin[i] || !c.grid[i] ||
            tk->pgrid[i] !=
                ((uint64_t)c.grid_total[i] + c.grid[i] - 1) / c.grid[i]) {
            return vg_cp_error(err, VMGPU_FAULT_BAD_COMMAND, va, cp->pc, NONE);
        }
    }
    tk->cursor = 0;
    tk->running = 0;
    tk->pending = NONE;
    tk->walked = false;
    tk->fault = 0;
    tk->active = true;
    return true;
}

/*
 * Run taken portion @tk->pending as a task of the packet. Returns false
 * with @err set.
 */
static bool take_launch(struct vg_cp *cp, const uint8_t *p,
                        struct vg_error *err)
{
    struct vg_cp_take *tk = &cp->take;
    struct vg_task_src src = {
        .index = cp->num_dispatches + cp->num_children,
        .err_addr = VMGPU_CMD_U64(p, vmgpu_cmd_take, tmd_va),
        .err_pc = cp->pc,
        .bad_code = VMGPU_FAULT_BAD_COMMAND,
        .tmd_va = VMGPU_CMD_U64(p, vmgpu_cmd_take, tmd_va),
        .parent = NONE,
    };
    uint8_t tmd[VMGPU_TMD_BYTES];
    uint32_t coord[3], i;

    if (src.index >= VMGPU_MAX_TASKS_PER_PACKET) {
        return vg_cp_error(err, VMGPU_FAULT_TASK, src.err_addr, cp->pc, NONE);
    }
    memcpy(tmd, tk->tmd, sizeof(tmd));
    vmgpu_region_coords(tk->pgrid, tk->pending, coord);
    for (i = 0; i < 3; i++) {
        uint32_t grid = VMGPU_CMD_U32(tk->tmd, vmgpu_tmd, grid[i]);
        uint32_t total = VMGPU_CMD_U32(tk->tmd, vmgpu_tmd, grid_total[i]);
        uint32_t origin = coord[i] * grid;
        uint32_t n = htole32(total - origin < grid ? total - origin : grid);

        origin = htole32(origin);
        memcpy(tmd + offsetof(struct vmgpu_tmd, origin[i]), &origin, 4);
        memcpy(tmd + offsetof(struct vmgpu_tmd, grid[i]), &n, 4);
    }
    cp->num_children++;
    if (!vg_launch_from_tmd(cp, &src, tmd, false, err)) {
        return false;
    }
    cp->disp[src.index].portion = tk->pending + 1;
    tk->running++;
    tk->pending = NONE;
    return true;
}

/*
 * TAKE (SPEC R7): claim portions along the curve while fewer than
 * inflight run, wait for each one's entries, run it; the command is done
 * when the curve is walked and nothing taken runs. Returns what the CP
 * is to do (enum vg_take_step).
 */
enum vg_take_step vg_take_run(struct vg_cp *cp, const uint8_t *p, vg_time_t *t,
                              struct vg_error *err)
{
    struct vg_cp_take *tk = &cp->take;
    uint32_t epoch = VMGPU_CMD_U32(p, vmgpu_cmd_take, epoch);
    uint32_t wait = VMGPU_CMD_U32(p, vmgpu_cmd_take, wait_index);
    struct take_claim claim = {
        cp,
        VMGPU_CMD_U64(p, vmgpu_cmd_take, take_va),
    };
    uint64_t fault_va = 0;
    int code;

    if (!tk->active && !take_start(cp, p, err)) {
        return VG_TAKE_FAILED;
    }
    for (;;) {
        if (tk->pending == NONE && !tk->walked &&
            tk->running < VMGPU_CMD_U32(p, vmgpu_cmd_take, inflight)) {
            tk->pending = vmgpu_alloc_next(&tk->curve, tk->pgrid, NULL, epoch,
                                           &tk->cursor, take_xchg, &claim);
            if (tk->fault) {
                vg_cp_error(err, tk->fault, tk->fault_va, cp->pc, NONE);
                return VG_TAKE_FAILED;
            }
            tk->walked = tk->pending == NONE;
        }
        if (tk->pending != NONE) {
            if (wait != VMGPU_TAKE_NO_WAIT) {
                struct vmgpu_region_map m;
                struct vmgpu_curve cv;
                struct vmgpu_cmd_dep_wait dw;
                const uint32_t one[3] = { 1, 1, 1 };
                uint32_t c[3];

                vmgpu_cmd_take_parts(p, &cv, &m);
                vmgpu_region_coords(tk->pgrid, tk->pending, c);
                dw = vmgpu_encode_dep_wait(
                    epoch, VMGPU_CMD_U64(p, vmgpu_cmd_take, table_va),
                    VMGPU_CMD_U32(p, vmgpu_cmd_take, entries), wait, tk->pgrid,
                    tk->pgrid, c, one, &m);
                vg_gpu_publish_wait(cp->gc);
                switch (vg_deps_wait(cp->deps, cp->gc, cp->mmu,
                                     cp->entry.as_slot, (const uint8_t *)&dw, t,
                                     &code, &fault_va)) {
                case VG_DEP_FAULT:
                    vg_cp_error(err, code, fault_va, cp->pc, NONE);
                    return VG_TAKE_FAILED;
                case VG_DEP_BLOCKED:
                    return VG_TAKE_BLOCKED;
                default:
                    break;
                }
                if (*t > vg_gpu_now(cp->gc)) {
                    return VG_TAKE_LATER;
                }
                vg_deps_wait_end(cp->deps);
            }
            if (!take_launch(cp, p, err)) {
                return VG_TAKE_FAILED;
            }
            continue;
        }
        if (tk->walked && !tk->running) {
            tk->active = false;
            return VG_TAKE_DONE;
        }
        return VG_TAKE_RUNNING;
    }
}

/*
 * A TAKE's portion is done: its entry is written, and the TAKE may take
 * another. Returns false with @err set.
 */
bool vg_take_portion_done(struct vg_cp *cp, struct vg_dispatch *d,
                          struct vg_error *err)
{
    const uint8_t *p = cp->buf + 4 * cp->pc;
    uint64_t fault_va = 0;
    int code;

    code = vg_deps_write_entry(
        cp->gc, cp->mmu, cp->entry.as_slot,
        VMGPU_CMD_U64(p, vmgpu_cmd_take, table_va),
        VMGPU_CMD_U32(p, vmgpu_cmd_take, signal_index) + d->portion - 1,
        VMGPU_CMD_U32(p, vmgpu_cmd_take, epoch), &fault_va);
    if (code) {
        return vg_cp_error(err, code, fault_va, cp->pc, d->index);
    }
    cp->take.running--;
    return true;
}
