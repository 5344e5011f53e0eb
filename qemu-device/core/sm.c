// SPDX-License-Identifier: MIT
/*
 * The SMs of one GPU (sm.h): block issue, pricing and retirement.
 */
#include <stdlib.h>
#include <string.h>

#include "sm.h"

/* The distributor's observer: a TMD trace record per state change. */
static void observe_task(void *opaque, const struct vg_wd_task *t,
                         enum vg_wd_event ev)
{
    static const uint32_t state[] = {
        [VG_WD_EV_PENDING] = VMGPU_TRACE_TMD_PENDING,
        [VG_WD_EV_TABLE] = VMGPU_TRACE_TMD_TABLE,
        [VG_WD_EV_EVICTED] = VMGPU_TRACE_TMD_EVICTED,
        [VG_WD_EV_RESUMED] = VMGPU_TRACE_TMD_RESUMED,
        [VG_WD_EV_DONE] = VMGPU_TRACE_TMD_DONE,
        [VG_WD_EV_REMOVED] = VMGPU_TRACE_TMD_REMOVED,
    };
    struct vg_sms *sms = opaque;
    /* The task is the first member of its dispatch. */
    const struct vg_dispatch *d = (const struct vg_dispatch *)t;
    struct vmgpu_trace_record r;

    memset(&r, 0, sizeof(r));
    r.start_ns = r.end_ns = vg_gpu_now(sms->gc) / VG_PS_PER_NS;
    r.kind = VMGPU_TRACE_TMD;
    r.sm = VMGPU_TRACE_SM_NONE;
    r.dispatch = d->index;
    r.block = t->next_block;
    r.aux = state[ev];
    r.wd_slot = ev == VG_WD_EV_PENDING ? 0 : t->slot + 1;
    r.value = t->level;
    r.value2 = t->evictions;
    vg_gpu_trace_record(sms->gc, &r);
}

int vg_sms_init(struct vg_sms *sms, struct vg_gpu_common *gc,
                struct vg_wdist *wd)
{
    uint32_t s;

    memset(sms, 0, sizeof(*sms));
    sms->gc = gc;
    sms->wd = wd;
    sms->num_sms = gc->cfg->sms;
    sms->slots_per_sm = gc->cfg->sm_blocks;
    wd->observe = observe_task;
    wd->observe_opaque = sms;
    sms->interp = vg_interp_new();
    if (!sms->interp) {
        return -1;
    }
    for (s = 0; s < sms->num_sms; s++) {
        sms->sm[s].slots =
            calloc(sms->slots_per_sm, sizeof(struct vg_block_slot));
        if (!sms->sm[s].slots) {
            vg_sms_destroy(sms);
            return -1;
        }
    }
    return 0;
}

void vg_sms_destroy(struct vg_sms *sms)
{
    uint32_t s, b;

    for (s = 0; s < sms->num_sms; s++) {
        if (!sms->sm[s].slots) {
            continue;
        }
        for (b = 0; b < sms->slots_per_sm; b++) {
            vg_storelog_free(sms->sm[s].slots[b].log);
        }
        free(sms->sm[s].slots);
        sms->sm[s].slots = NULL;
    }
    vg_interp_free(sms->interp);
    sms->interp = NULL;
}

void vg_sms_reset(struct vg_sms *sms)
{
    uint32_t s, i;

    for (s = 0; s < sms->num_sms; s++) {
        sms->sm[s].pipe.free_at = 0;
        for (i = 0; i < sms->slots_per_sm; i++) {
            vg_storelog_discard(sms->sm[s].slots[i].log);
            sms->sm[s].slots[i].used = false;
        }
    }
    sms->resident = 0;
    sms->wake_at = 0;
}

static void run_block(struct vg_sms *sms, const struct vg_wd_cta *cta)
{
    struct vg_dispatch *d = (struct vg_dispatch *)cta->task;
    uint32_t sm = cta->sm, block = cta->block;
    struct vg_gpu_common *gc = sms->gc;
    const struct vg_cost *cost = gc->cost;
    struct vg_sm *s = &sms->sm[sm];
    struct vg_block_slot *slot = NULL;
    struct vg_block_stats stats;
    vg_time_t now = vg_gpu_now(gc), t0, end;
    uint64_t bytes = 0;
    uint32_t pos[3], i, loc;
    int r;

    for (i = 0; i < sms->slots_per_sm; i++) {
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
    if (gc->host->trace_block_issue) {
        gc->host->trace_block_issue(gc->host->opaque, gc->index, sm, d->index,
                                    block, now / VG_PS_PER_NS);
    }
    pos[0] = block % d->launch.grid[0];
    pos[1] = block / d->launch.grid[0] % d->launch.grid[1];
    pos[2] = block / d->launch.grid[0] / d->launch.grid[1];
    memset(&stats, 0, sizeof(stats));
    memset(&slot->fault, 0, sizeof(slot->fault));
    r = vg_interp_run_items(sms->interp, &d->launch, pos, cta->item_base,
                            cta->item_count, sm, slot->log, &d->budget, &stats,
                            &slot->fault);

    /*
     * Price the block: its warp instructions on the SM's issue pipeline
     * (shared first-come first-served with the other resident blocks),
     * its global bytes on the GPU's memory channels by location, then
     * one exposed latency of the slowest memory it touched.
     */
    t0 = now + cost->block_launch;
    end = vg_server_book(&s->pipe, t0, vg_cost_issue(cost, stats.warp_instrs));
    t0 = vg_gpu_price_bytes(gc, t0, stats.bytes, true);
    end = t0 > end ? t0 : end;
    for (loc = 0; loc < VMGPU_LOC_COUNT; loc++) {
        bytes += stats.bytes[loc];
        if (vg_mem_class_of(loc, gc->index) == VG_MEM_LINK) {
            gc->cnt[VMGPU_CNT_BYTES_REMOTE_READ] +=
                stats.bytes[loc] - stats.wbytes[loc];
        }
    }
    gc->cnt[VMGPU_CNT_WARP_INSTRS] += stats.warp_instrs;
    gc->cnt[VMGPU_CNT_THREAD_INSTRS] += stats.thread_instrs;

    slot->used = true;
    slot->d = d;
    slot->serial = d->serial;
    slot->block = block;
    slot->start = now;
    slot->end = end;
    slot->faulted = r != 0;
    slot->warp_instrs = stats.warp_instrs;
    slot->bytes = bytes;
    slot->wd_slot = d->task.slot;
    sms->resident++;
    if (!d->started) {
        d->started = true;
        d->start = now;
    }
    vg_gpu_post(gc, end, VG_EV_BLOCK_DONE, sm, (uint32_t)(slot - s->slots));
}

void vg_sms_issue(struct vg_sms *sms)
{
    vg_time_t now = vg_gpu_now(sms->gc);
    uint64_t wake = 0;
    struct vg_wd_cta cta;

    if (sms->wake_at && sms->wake_at <= now) {
        sms->wake_at = 0;
    }
    while (!__atomic_load_n(&sms->gc->abort, __ATOMIC_RELAXED) &&
           vg_wdist_next(sms->wd, now, &cta, &wake)) {
        run_block(sms, &cta);
    }
    if (wake && (!sms->wake_at || wake < sms->wake_at)) {
        sms->wake_at = wake;
        vg_gpu_post(sms->gc, wake, VG_EV_WD_WAKE, 0, 0);
    }
}

/* The lines a block's stores reach memory at now, for WAIT_VALUEs. */
static void sm_record_writes(struct vg_gpu_common *gc,
                             const struct vg_storelog *log)
{
    uint32_t i, k;

    for (i = 0; i < log->npages; i++) {
        const struct vg_logpage *pg = log->pages[i];

        for (k = 0; k < VMGPU_PAGE_SIZE / 64; k++) {
            if (pg->dirty[k]) {
                vg_gpu_wrote(gc, pg->page_va + 64ull * k, 64);
            }
        }
    }
}

bool vg_sms_retire(struct vg_sms *sms, uint32_t sm, uint32_t slot_index,
                   struct vg_block_outcome *out)
{
    struct vg_gpu_common *gc = sms->gc;
    struct vg_block_slot *slot;
    struct vmgpu_trace_record r;
    struct vg_dispatch *d;

    if (sm >= sms->num_sms || slot_index >= sms->slots_per_sm) {
        return false;
    }
    slot = &sms->sm[sm].slots[slot_index];
    if (!slot->used) {
        return false;
    }
    d = slot->d;
    slot->used = false;
    vg_wdist_block_done(sms->wd, &d->task, sm);
    sms->resident--;
    gc->cnt[VMGPU_CNT_BLOCKS]++;
    memset(&r, 0, sizeof(r));
    r.start_ns = slot->start / VG_PS_PER_NS;
    r.end_ns = slot->end / VG_PS_PER_NS;
    r.kind = VMGPU_TRACE_BLOCK;
    r.sm = (uint16_t)sm;
    r.dispatch = d->index;
    r.block = slot->block;
    r.aux = slot->faulted ? slot->fault.code : 0;
    r.wd_slot = slot->wd_slot + 1;
    r.value = slot->warp_instrs;
    r.value2 = slot->bytes;
    vg_gpu_trace_record(gc, &r);

    memset(out, 0, sizeof(*out));
    out->d = d;
    out->block = slot->block;
    /* The dispatch's storage is reused by later packets: compare serials. */
    out->current = d->serial && slot->serial == d->serial;
    out->faulted = slot->faulted;
    out->fault = slot->fault;
    if (!out->current || d->cancelled || slot->faulted || vg_gpu_stale(gc)) {
        vg_storelog_discard(slot->log);
    } else {
        sm_record_writes(gc, slot->log);
        vg_storelog_apply(slot->log);
        vg_gpu_memory_changed(gc);
        out->stored = true;
        out->work = vg_storelog_work(slot->log, &out->nwork);
    }
    if (out->current && !d->cancelled && !slot->faulted) {
        out->finished = ++d->blocks_done == d->task.blocks_total;
    }
    return true;
}
