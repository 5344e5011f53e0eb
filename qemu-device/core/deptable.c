// SPDX-License-Identifier: MIT
/*
 * Region dependency tables, the command processor's part (deptable.h).
 * Everything a DEP_SIGNAL or DEP_WAIT needs from the packet was checked
 * with it (vmgpu_cmd_check()); what depends on the dispatch it names or on
 * memory is checked here, when it is known.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "deptable.h"
#include "vmgpu_cmd.h"
#include "vmgpu_region.h"

#define NO_SIGNAL UINT32_MAX

int vg_deps_init(struct vg_deps *deps)
{
    memset(deps, 0, sizeof(*deps));
    /* Untouched pages of the arena cost no host memory. */
    deps->left_arena = malloc((size_t)VMGPU_DEP_MAX_SIGNALS *
                              VMGPU_DEP_MAX_SIGNAL_REGIONS * sizeof(uint32_t));
    deps->needs = malloc(VMGPU_REGION_MAX_PORTIONS * sizeof(uint32_t));
    deps->bitmap = calloc(VMGPU_REGION_MAX_PORTIONS / 32, sizeof(uint32_t));
    deps->row = malloc(VMGPU_MAP_MAX_ENTRIES * VMGPU_REGION_TABLE_ENTRY_BYTES);
    if (!deps->left_arena || !deps->needs || !deps->bitmap || !deps->row) {
        vg_deps_destroy(deps);
        return -1;
    }
    return 0;
}

void vg_deps_destroy(struct vg_deps *deps)
{
    free(deps->left_arena);
    free(deps->needs);
    free(deps->bitmap);
    free(deps->row);
    deps->left_arena = NULL;
    deps->needs = NULL;
    deps->bitmap = NULL;
    deps->row = NULL;
}

void vg_deps_reset(struct vg_deps *deps)
{
    uint32_t i;

    for (i = 0; i < deps->num_signals; i++) {
        uint32_t d = deps->sig[i].dispatch;

        if (d < VMGPU_MAX_DISPATCHES_PER_PACKET) {
            deps->head[d] = 0;
        }
    }
    deps->num_signals = 0;
    vg_deps_wait_end(deps);
}

void vg_deps_add_signal(struct vg_deps *deps, const uint8_t *cmd, uint32_t pc)
{
    struct vg_dep_signal *s = &deps->sig[deps->num_signals];
    uint32_t i;

    memset(s, 0, sizeof(*s));
    s->dispatch = VMGPU_CMD_U32(cmd, vmgpu_cmd_dep_signal, dispatch);
    s->epoch = VMGPU_CMD_U32(cmd, vmgpu_cmd_dep_signal, epoch);
    s->first_index = VMGPU_CMD_U32(cmd, vmgpu_cmd_dep_signal, first_index);
    s->entries = VMGPU_CMD_U32(cmd, vmgpu_cmd_dep_signal, entries);
    s->table_va = VMGPU_CMD_U64(cmd, vmgpu_cmd_dep_signal, table_va);
    for (i = 0; i < 3; i++) {
        s->region[i] = VMGPU_CMD_U32(cmd, vmgpu_cmd_dep_signal, region[i]);
    }
    s->pc = pc;
    /* The packet's check bounds both the count and the dispatch index. */
    s->next = deps->head[s->dispatch] ? deps->head[s->dispatch] - 1 : NO_SIGNAL;
    deps->head[s->dispatch] = ++deps->num_signals;
}

/* Blocks of the dispatch in region @r (absolute) along dimension @i. */
static uint32_t region_span(const struct vg_dep_signal *s,
                            const struct vg_launch *l, int i, uint32_t r)
{
    uint64_t lo = (uint64_t)r * s->region[i];
    uint64_t hi = lo + s->region[i];
    uint64_t end = (uint64_t)l->origin[i] + l->grid[i];

    return (uint32_t)((hi < end ? hi : end) - lo);
}

static int arm_one(struct vg_dep_signal *s, uint32_t *left,
                   const struct vg_launch *l)
{
    uint64_t regions = 1, total = 1;
    uint32_t x, y, z, n = 0;
    int i;

    for (i = 0; i < 3; i++) {
        uint64_t end = (uint64_t)l->origin[i] + l->grid[i];

        /* Whole regions only: a region is one dispatch's to signal. */
        if (l->origin[i] % s->region[i] ||
            (end % s->region[i] && end != l->grid_total[i])) {
            return -1;
        }
        s->rtotal[i] =
            (uint32_t)(((uint64_t)l->grid_total[i] + s->region[i] - 1) /
                       s->region[i]);
        s->rfirst[i] = l->origin[i] / s->region[i];
        s->rcount[i] =
            (uint32_t)((end + s->region[i] - 1) / s->region[i]) - s->rfirst[i];
        regions *= s->rcount[i];
        total *= s->rtotal[i];
        /* Stop before three 32-bit sides wrap the product (2^64 is 0). */
        if (total > s->entries) {
            return -1;
        }
    }
    if (regions > VMGPU_DEP_MAX_SIGNAL_REGIONS ||
        s->first_index + total > s->entries) {
        return -1;
    }
    s->left = left;
    for (z = 0; z < s->rcount[2]; z++) {
        for (y = 0; y < s->rcount[1]; y++) {
            for (x = 0; x < s->rcount[0]; x++) {
                left[n++] = region_span(s, l, 0, s->rfirst[0] + x) *
                            region_span(s, l, 1, s->rfirst[1] + y) *
                            region_span(s, l, 2, s->rfirst[2] + z);
            }
        }
    }
    return 0;
}

int vg_deps_arm(struct vg_deps *deps, uint32_t dispatch,
                const struct vg_launch *l, bool queue, uint32_t *pc)
{
    uint32_t i;

    if (!vg_deps_signalled(deps, dispatch)) {
        return 0;
    }
    for (i = deps->head[dispatch] - 1; i != NO_SIGNAL; i = deps->sig[i].next) {
        struct vg_dep_signal *s = &deps->sig[i];

        if (queue ||
            arm_one(s,
                    deps->left_arena + (size_t)i * VMGPU_DEP_MAX_SIGNAL_REGIONS,
                    l)) {
            *pc = s->pc;
            return VMGPU_FAULT_BAD_COMMAND;
        }
    }
    return 0;
}

int vg_deps_write_entry(struct vg_gpu_common *gc, struct vg_mmu *mmu,
                        uint32_t slot, uint64_t table_va, uint32_t index,
                        uint32_t epoch, uint64_t *fault_va)
{
    uint64_t va = vmgpu_dep_entry_va(table_va, index), word;
    int code;

    /* A waiter on another thread that sees the entry sees the data. */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    word = htole64(vmgpu_dep_pack(epoch, gc->index, VMGPU_DEP_READY));
    code = vg_mmu_write(mmu, slot, va, &word, sizeof(word), fault_va, NULL);
    if (code) {
        return code;
    }
    vg_gpu_wrote(gc, va, sizeof(word));
    gc->cnt[VMGPU_CNT_DEP_ENTRIES]++;
    return 0;
}

int vg_deps_block_done(struct vg_deps *deps, struct vg_gpu_common *gc,
                       struct vg_mmu *mmu, uint32_t slot, uint32_t dispatch,
                       const struct vg_launch *l, uint32_t block,
                       uint64_t *fault_va, uint32_t *pc)
{
    uint32_t b[3], i, k;
    int code;

    b[0] = block % l->grid[0];
    b[1] = block / l->grid[0] % l->grid[1];
    b[2] = block / l->grid[0] / l->grid[1];
    for (i = deps->head[dispatch] - 1; i != NO_SIGNAL; i = deps->sig[i].next) {
        struct vg_dep_signal *s = &deps->sig[i];
        uint32_t r[3], local, index;

        for (k = 0; k < 3; k++) {
            r[k] = (l->origin[k] + b[k]) / s->region[k];
        }
        local = (r[0] - s->rfirst[0]) +
                s->rcount[0] * ((r[1] - s->rfirst[1]) +
                                s->rcount[1] * (r[2] - s->rfirst[2]));
        if (--s->left[local]) {
            continue;
        }
        index =
            s->first_index + r[0] + s->rtotal[0] * (r[1] + s->rtotal[1] * r[2]);
        code = vg_deps_write_entry(gc, mmu, slot, s->table_va, index, s->epoch,
                                   fault_va);
        if (code) {
            *pc = s->pc;
            return code;
        }
    }
    return 0;
}

/* Mark the producer portions consumer portion @c needs in the bitmap. */
static int mark_needs(struct vg_deps *deps, struct vg_mmu *mmu, uint32_t slot,
                      const struct vmgpu_region_map *m, const uint32_t cgrid[3],
                      const uint32_t pgrid[3], const uint32_t c[3],
                      uint32_t *out, int *code, uint64_t *fault_va)
{
    const char *why;
    int n, i;

    if (m->kind == VMGPU_MAP_TABLE) {
        *code = vg_mmu_read(
            mmu, slot, vmgpu_region_table_row_va(m, cgrid, c), deps->row,
            (size_t)m->table_count * VMGPU_REGION_TABLE_ENTRY_BYTES, fault_va,
            NULL);
        if (*code) {
            return -1;
        }
    }
    n = vmgpu_region_map_needs(m, cgrid, pgrid, c, deps->row, out, &why);
    if (n < 0) {
        *code = VMGPU_FAULT_BAD_COMMAND; /* a bad TABLE entry */
        *fault_va = vmgpu_region_table_row_va(m, cgrid, c);
        return -1;
    }
    for (i = 0; i < n; i++) {
        deps->bitmap[out[i] / 32] |= 1u << (out[i] % 32);
    }
    return 0;
}

/* The entries the DEP_WAIT at @cmd needs, ascending, into deps->needs. */
static int find_needs(struct vg_deps *deps, struct vg_mmu *mmu, uint32_t slot,
                      const uint8_t *cmd, int *code, uint64_t *fault_va)
{
    uint32_t cgrid[3], pgrid[3], first[3], count[3], c[3], i, w, portions;
    uint32_t out[VMGPU_MAP_MAX_ENTRIES];
    struct vmgpu_region_map m;

    for (i = 0; i < 3; i++) {
        cgrid[i] = VMGPU_CMD_U32(cmd, vmgpu_cmd_dep_wait, cgrid[i]);
        pgrid[i] = VMGPU_CMD_U32(cmd, vmgpu_cmd_dep_wait, pgrid[i]);
        first[i] = VMGPU_CMD_U32(cmd, vmgpu_cmd_dep_wait, cfirst[i]);
        count[i] = VMGPU_CMD_U32(cmd, vmgpu_cmd_dep_wait, ccount[i]);
    }
    vmgpu_cmd_dep_wait_map(cmd, &m);
    portions = vmgpu_region_portions(pgrid);
    for (c[2] = first[2]; c[2] < first[2] + count[2]; c[2]++) {
        for (c[1] = first[1]; c[1] < first[1] + count[1]; c[1]++) {
            for (c[0] = first[0]; c[0] < first[0] + count[0]; c[0]++) {
                if (mark_needs(deps, mmu, slot, &m, cgrid, pgrid, c, out, code,
                               fault_va)) {
                    memset(deps->bitmap, 0, (portions + 31) / 32 * 4);
                    return -1;
                }
            }
        }
    }
    deps->nneeds = 0;
    for (w = 0; w < (portions + 31) / 32; w++) {
        uint32_t bits = deps->bitmap[w];

        deps->bitmap[w] = 0;
        while (bits) {
            deps->needs[deps->nneeds++] = w * 32 + __builtin_ctz(bits);
            bits &= bits - 1;
        }
    }
    return 0;
}

enum vg_dep_wait_result vg_deps_entry_check(struct vg_gpu_common *gc,
                                            struct vg_mmu *mmu, uint32_t slot,
                                            uint64_t table_va, uint32_t index,
                                            uint32_t epoch, vg_time_t *written,
                                            int *code, uint64_t *fault_va)
{
    uint64_t va = vmgpu_dep_entry_va(table_va, index);
    uint64_t word;

    *code = vg_mmu_read(mmu, slot, va, &word, sizeof(word), fault_va, NULL);
    if (*code) {
        return VG_DEP_FAULT;
    }
    if (!vmgpu_dep_satisfies(le64toh(word), epoch)) {
        return VG_DEP_BLOCKED;
    }
    /* Pairs with the writer's fence: its data is visible now. */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    *written = vg_wtimes_lookup(gc->wtimes, va, sizeof(word));
    return VG_DEP_READY;
}

enum vg_dep_wait_result vg_deps_wait(struct vg_deps *deps,
                                     struct vg_gpu_common *gc,
                                     struct vg_mmu *mmu, uint32_t slot,
                                     const uint8_t *cmd, vg_time_t *ready_at,
                                     int *code, uint64_t *fault_va)
{
    uint32_t epoch = VMGPU_CMD_U32(cmd, vmgpu_cmd_dep_wait, epoch);
    uint32_t first = VMGPU_CMD_U32(cmd, vmgpu_cmd_dep_wait, first_index);
    uint64_t table = VMGPU_CMD_U64(cmd, vmgpu_cmd_dep_wait, table_va);

    if (!deps->wait_known) {
        if (find_needs(deps, mmu, slot, cmd, code, fault_va)) {
            return VG_DEP_FAULT;
        }
        deps->wait_known = true;
        deps->checked = 0;
        deps->latest = 0;
        deps->blocked = false;
    }
    /* Entries seen READY stay so in this epoch: resume at the first not. */
    while (deps->checked < deps->nneeds) {
        enum vg_dep_wait_result r;
        vg_time_t t;

        r = vg_deps_entry_check(gc, mmu, slot, table,
                                first + deps->needs[deps->checked], epoch, &t,
                                code, fault_va);
        if (r == VG_DEP_BLOCKED && !deps->blocked) {
            deps->blocked = true;
            deps->blocked_at = vg_gpu_now(gc);
            gc->cnt[VMGPU_CNT_DEP_WAITS]++;
        }
        if (r != VG_DEP_READY) {
            return r;
        }
        if (t > deps->latest) {
            deps->latest = t;
        }
        deps->checked++;
    }
    *ready_at = deps->latest > vg_gpu_now(gc) ? deps->latest : vg_gpu_now(gc);
    if (deps->blocked) {
        gc->cnt[VMGPU_CNT_DEP_WAIT_NS] +=
            (*ready_at - deps->blocked_at) / VG_PS_PER_NS;
        deps->blocked = false;
    }
    return VG_DEP_READY;
}

void vg_deps_wait_end(struct vg_deps *deps)
{
    deps->wait_known = false;
    deps->blocked = false;
    deps->nneeds = 0;
    deps->checked = 0;
}
