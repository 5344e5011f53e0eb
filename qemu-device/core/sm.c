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
                struct vg_wdist *wd, struct vg_mmu_regs *regs,
                const struct vg_mmu *cp_mmu)
{
    uint32_t s;

    memset(sms, 0, sizeof(*sms));
    sms->gc = gc;
    sms->wd = wd;
    sms->num_sms = gc->cfg->sms;
    sms->slots_per_sm = gc->cfg->sm_blocks;
    wd->observe = observe_task;
    wd->observe_opaque = sms;
    vg_mmu_init(&sms->mmu, gc->host, gc->index, gc->cfg->gpus);
    vg_mmu_attach(&sms->mmu, regs);
    sms->cp_mmu = cp_mmu;
    sms->rep_gen = cp_mmu->rep_gen;
    /* Every block of the GPU can be issued and not priced at once. */
    sms->issued_cap = sms->num_sms * sms->slots_per_sm;
    sms->issued = calloc(sms->issued_cap, sizeof(*sms->issued));
    sms->interp = vg_interp_new();
    if (!sms->interp || !sms->issued) {
        vg_interp_free(sms->interp);
        free(sms->issued);
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

    vg_sms_executor_stop(sms);

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
    free(sms->issued);
    sms->issued = NULL;
}

static void exec_drain(struct vg_sms *sms);

void vg_sms_reset(struct vg_sms *sms)
{
    uint32_t s, i;

    exec_drain(sms);
    sms->issued_len = 0;
    vg_mmu_replicas_clear(&sms->mmu);
    vg_mmu_invalidate(&sms->mmu, ~0u);
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

/* Run the block of @slot on SM @sm in the interpreter (any thread). */
static void interpret(struct vg_sms *sms, uint32_t sm,
                      struct vg_block_slot *slot)
{
    const struct vg_launch *l = &slot->launch;
    uint64_t misses = sms->mmu.misses;
    uint32_t pos[3];

    pos[0] = slot->block % l->grid[0];
    pos[1] = slot->block / l->grid[0] % l->grid[1];
    pos[2] = slot->block / l->grid[0] / l->grid[1];
    memset(&slot->stats, 0, sizeof(slot->stats));
    memset(&slot->fault, 0, sizeof(slot->fault));
    slot->result = vg_interp_run_items(sms->interp, l, pos, slot->item_base,
                                       slot->item_count, sm, slot->log,
                                       &slot->d->budget, &slot->stats,
                                       &slot->fault);
    slot->tlb_misses = sms->mmu.misses - misses;
    __atomic_store_n(&slot->ran, 1, __ATOMIC_RELEASE);
}

/* ---- The executor: a thread running the GPU's blocks in issue order ---- */

static void exec_apply(struct vg_sms *sms, struct vg_sms_job *j)
{
    if (j->slot) {
        interpret(sms, j->sm, j->slot);
    } else {
        vg_mmu_replicas_set(&sms->mmu, j->rep);
        free(j->rep);
    }
}

static void *exec_thread(void *opaque)
{
    struct vg_sms *sms = opaque;
    struct vg_sms_exec *x = sms->exec;
    struct vg_sms_job j;

    pthread_mutex_lock(&x->lock);
    for (;;) {
        while (!x->len && !x->stop) {
            pthread_cond_wait(&x->work, &x->lock);
        }
        if (!x->len) {
            break;
        }
        j = x->q[x->head];
        pthread_mutex_unlock(&x->lock);
        exec_apply(sms, &j);
        pthread_mutex_lock(&x->lock);
        x->head = (x->head + 1) % x->cap;
        x->len--;
        pthread_cond_broadcast(&x->done);
    }
    pthread_mutex_unlock(&x->lock);
    return NULL;
}

/* Hand @j to the executor, or apply it now without one. */
static void exec_push(struct vg_sms *sms, struct vg_sms_job j)
{
    struct vg_sms_exec *x = sms->exec;

    if (!x) {
        exec_apply(sms, &j);
        return;
    }
    pthread_mutex_lock(&x->lock);
    /* The ring holds every resident block and a replica change each. */
    while (x->len == x->cap) {
        pthread_cond_wait(&x->done, &x->lock);
    }
    x->q[(x->head + x->len) % x->cap] = j;
    x->len++;
    pthread_cond_signal(&x->work);
    pthread_mutex_unlock(&x->lock);
}

/* Wait until the executor has run everything handed to it. */
static void exec_drain(struct vg_sms *sms)
{
    struct vg_sms_exec *x = sms->exec;

    if (!x) {
        return;
    }
    pthread_mutex_lock(&x->lock);
    while (x->len) {
        pthread_cond_wait(&x->done, &x->lock);
    }
    pthread_mutex_unlock(&x->lock);
}

/* An executor whose thread is not running (never was, or joined). */
static void exec_free(struct vg_sms_exec *x)
{
    pthread_cond_destroy(&x->done);
    pthread_cond_destroy(&x->work);
    pthread_mutex_destroy(&x->lock);
    free(x->q);
    free(x);
}

int vg_sms_executor_start(struct vg_sms *sms)
{
    struct vg_sms_exec *x;

    if (sms->exec) {
        return 0;
    }
    x = calloc(1, sizeof(*x));
    if (!x) {
        return -1;
    }
    x->cap = 2 * sms->issued_cap;
    x->q = calloc(x->cap, sizeof(*x->q));
    if (!x->q) {
        free(x);
        return -1;
    }
    pthread_mutex_init(&x->lock, NULL);
    pthread_cond_init(&x->work, NULL);
    pthread_cond_init(&x->done, NULL);
    sms->exec = x;
    if (pthread_create(&x->thread, NULL, exec_thread, sms)) {
        sms->exec = NULL;
        exec_free(x);
        return -1;
    }
    return 0;
}

void vg_sms_executor_stop(struct vg_sms *sms)
{
    struct vg_sms_exec *x = sms->exec;

    if (!x) {
        return;
    }
    pthread_mutex_lock(&x->lock);
    x->stop = true;
    pthread_cond_signal(&x->work);
    pthread_mutex_unlock(&x->lock);
    pthread_join(x->thread, NULL); /* after it ran what it had */
    sms->exec = NULL;
    exec_free(x);
}

/*
 * Issue the block @cta: take a slot, hand the block to the interpreter
 * (the executor, or at once) and keep it for pricing.
 */
static void run_block(struct vg_sms *sms, const struct vg_wd_cta *cta)
{
    struct vg_dispatch *d = (struct vg_dispatch *)cta->task;
    uint32_t sm = cta->sm, block = cta->block, i;
    struct vg_gpu_common *gc = sms->gc;
    struct vg_sm *s = &sms->sm[sm];
    struct vg_block_slot *slot = NULL;
    vg_time_t now = vg_gpu_now(gc);
    struct vg_sms_job j = { .sm = sm };

    for (i = 0; i < sms->slots_per_sm; i++) {
        if (!s->slots[i].used) {
            slot = &s->slots[i];
            break;
        }
    }
    if (!slot || sms->issued_len == sms->issued_cap) {
        return; /* the distributor's block limit makes this impossible */
    }
    if (!slot->log) {
        slot->log = vg_storelog_new(); /* once per slot, then reused */
    }
    if (gc->host->trace_block_issue) {
        gc->host->trace_block_issue(gc->host->opaque, gc->index, sm, d->index,
                                    block, now / VG_PS_PER_NS);
    }
    if (sms->rep_gen != sms->cp_mmu->rep_gen) {
        /* The blocks issued from now on read the command processor's. */
        j.rep = malloc(sizeof(*j.rep));
        if (j.rep) {
            sms->rep_gen = sms->cp_mmu->rep_gen;
            *j.rep = sms->cp_mmu->rep;
            exec_push(sms, j);
        }
    }
    slot->used = true;
    slot->d = d;
    slot->serial = d->serial;
    slot->block = block;
    slot->start = now;
    slot->end = now;
    slot->wd_slot = d->task.slot;
    slot->item_base = cta->item_base;
    slot->item_count = cta->item_count;
    slot->launch = d->launch;
    if (d->launch.mem >= sms->cp_mmu->memif &&
        d->launch.mem < sms->cp_mmu->memif + VMGPU_AS_SLOTS) {
        /* The same address space, through the SMs' MMU. */
        slot->launch.mem = vg_mmu_memif(
            &sms->mmu, (uint32_t)(d->launch.mem - sms->cp_mmu->memif));
    }
    slot->ran = 0;
    slot->seq = vg_evq_reserve(&gc->evq);
    sms->resident++;
    if (!d->started) {
        d->started = true;
        d->start = now;
    }
    sms->issued[(sms->issued_head + sms->issued_len) % sms->issued_cap] =
        (struct vg_sms_issued) { .sm = (uint16_t)sm,
                                 .slot = (uint16_t)(slot - s->slots) };
    sms->issued_len++;
    vg_gpu_pending_push(gc, VG_PENDING_BLOCK, now + gc->cost->block_launch);
    if (d->launch.kernel && d->launch.kernel->global_atomics) {
        /* Its atomics act in issue order, not the executors' order. */
        exec_drain(sms);
        interpret(sms, sm, slot);
        return;
    }
    j.slot = slot;
    exec_push(sms, j);
}

void vg_sms_price_next(struct vg_sms *sms)
{
    struct vg_gpu_common *gc = sms->gc;
    const struct vg_cost *cost = gc->cost;
    struct vg_sms_issued b;
    struct vg_block_slot *slot;
    struct vg_sm *s;
    vg_time_t t0, end;
    uint64_t bytes = 0;
    uint32_t loc;

    if (!sms->issued_len) {
        return;
    }
    b = sms->issued[sms->issued_head];
    sms->issued_head = (sms->issued_head + 1) % sms->issued_cap;
    sms->issued_len--;
    s = &sms->sm[b.sm];
    slot = &s->slots[b.slot];
    if (!__atomic_load_n(&slot->ran, __ATOMIC_ACQUIRE)) {
        struct vg_sms_exec *x = sms->exec;

        pthread_mutex_lock(&x->lock);
        while (!__atomic_load_n(&slot->ran, __ATOMIC_ACQUIRE)) {
            pthread_cond_wait(&x->done, &x->lock);
        }
        pthread_mutex_unlock(&x->lock);
    }

    /*
     * Price the block: its warp instructions on the SM's issue pipeline
     * (shared first-come first-served with the other resident blocks),
     * its global bytes on the GPU's memory channels by location, then
     * one exposed latency of the slowest memory it touched.
     */
    t0 = slot->start + cost->block_launch;
    end = vg_server_book(&s->pipe, t0,
                         vg_cost_issue(cost, slot->stats.warp_instrs));
    t0 = vg_gpu_price_bytes(gc, t0, slot->stats.bytes, true);
    end = t0 > end ? t0 : end;
    for (loc = 0; loc < VMGPU_LOC_COUNT; loc++) {
        bytes += slot->stats.bytes[loc];
        if (vg_mem_class_of(loc, gc->index) == VG_MEM_LINK) {
            gc->cnt[VMGPU_CNT_BYTES_REMOTE_READ] +=
                slot->stats.bytes[loc] - slot->stats.wbytes[loc];
        }
    }
    gc->cnt[VMGPU_CNT_WARP_INSTRS] += slot->stats.warp_instrs;
    gc->cnt[VMGPU_CNT_THREAD_INSTRS] += slot->stats.thread_instrs;
    gc->cnt[VMGPU_CNT_TLB_MISSES] += slot->tlb_misses;
    slot->end = end;
    slot->faulted = slot->result != 0;
    slot->warp_instrs = slot->stats.warp_instrs;
    slot->bytes = bytes;
    vg_gpu_post_seq(gc, end, slot->seq, VG_EV_BLOCK_DONE, b.sm, b.slot);
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
