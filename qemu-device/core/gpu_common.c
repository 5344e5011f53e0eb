// SPDX-License-Identifier: MIT
/*
 * The per-GPU helpers every unit reports through (gpu_common.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_common.h"

int vg_gpu_common_init(struct vg_gpu_common *gc, uint32_t index,
                       const struct vg_config *cfg, const struct vg_cost *cost,
                       const struct vg_host *host, struct vg_trace_sink *sink,
                       struct vg_wtimes *wtimes, struct vg_links *links)
{
    memset(gc, 0, sizeof(*gc));
    gc->index = index;
    gc->cfg = cfg;
    gc->cost = cost;
    gc->host = host;
    gc->sink = sink;
    gc->wtimes = wtimes;
    gc->links = links;
    /* Every block of the GPU resident, and the copy engine's copy. */
    gc->pending_cap = cfg->sms * cfg->sm_blocks + 1;
    gc->pending = calloc(gc->pending_cap, sizeof(*gc->pending));
    if (!gc->pending) {
        return -1;
    }
    pthread_mutex_init(&gc->reg_lock, NULL);
    gc->mmu_regs.lock = &gc->reg_lock;
    if (vg_evq_init(&gc->evq)) {
        pthread_mutex_destroy(&gc->reg_lock);
        free(gc->pending);
        return -1;
    }
    return 0;
}

void vg_gpu_common_destroy(struct vg_gpu_common *gc)
{
    free(gc->pending);
    gc->pending = NULL;
    vg_evq_destroy(&gc->evq);
    pthread_mutex_destroy(&gc->reg_lock);
}

void vg_gpu_common_drop(struct vg_gpu_common *gc, bool clock)
{
    memset(gc->chan, 0, sizeof(gc->chan));
    if (clock) {
        vg_evq_clear(&gc->evq);
    } else {
        vg_evq_drop(&gc->evq); /* device time keeps running */
    }
    gc->packet = NULL;
    memset(gc->cnt, 0, sizeof(gc->cnt));
    gc->irq_out = false;
    gc->mem_out = false;
    gc->pub_wait_value = false;
    gc->pending_len = gc->pending_new = 0;
}

void vg_gpu_pending_push(struct vg_gpu_common *gc, uint32_t kind,
                         vg_time_t bound)
{
    struct vg_pending *p;

    if (gc->pending_len == gc->pending_cap) {
        return; /* the units' limits make this impossible */
    }
    p = &gc->pending[(gc->pending_head + gc->pending_len) % gc->pending_cap];
    p->kind = kind;
    p->bound = bound;
    gc->pending_len++;
    gc->pending_new++;
}

void vg_gpu_pending_pop(struct vg_gpu_common *gc)
{
    if (gc->pending_len) {
        gc->pending_head = (gc->pending_head + 1) % gc->pending_cap;
        gc->pending_len--;
    }
}

uint32_t vg_gpu_pending_new(struct vg_gpu_common *gc)
{
    uint32_t n = gc->pending_new;

    gc->pending_new = 0;
    return n;
}

bool vg_gpu_regs_begin(struct vg_gpu_common *gc)
{
    pthread_mutex_lock(&gc->reg_lock);
    if (gc->reset_gen != gc->exec_gen) {
        pthread_mutex_unlock(&gc->reg_lock);
        return false;
    }
    return true;
}

void vg_gpu_regs_end(struct vg_gpu_common *gc)
{
    pthread_mutex_unlock(&gc->reg_lock);
}

bool vg_gpu_stale(struct vg_gpu_common *gc)
{
    return __atomic_load_n(&gc->reset_gen, __ATOMIC_ACQUIRE) != gc->exec_gen;
}

void vg_gpu_publish_wait(struct vg_gpu_common *gc)
{
    if (!gc->pub_wait_value) {
        if (vg_gpu_regs_begin(gc)) {
            __atomic_store_n(&gc->regs.wait_value, true, __ATOMIC_RELAXED);
            vg_gpu_regs_end(gc);
        }
        gc->pub_wait_value = true;
    }
    /* Pairs with the fence of the writer's memory-changed notice (Dekker). */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void vg_gpu_raise(struct vg_gpu_common *gc, uint32_t bits)
{
    gc->regs.int_status |= bits;
    gc->regs.int_time = gc->evq.now;
    vg_gpu_trace(gc, VMGPU_TRACE_IRQ, VMGPU_TRACE_SM_NONE, gc->evq.now,
                 gc->evq.now, VMGPU_TRACE_NONE, VMGPU_TRACE_NONE, bits, 0, 0);
    if (bits & gc->regs.int_mask) {
        gc->irq_out = true;
    }
}

void vg_gpu_trace_record(struct vg_gpu_common *gc, struct vmgpu_trace_record *r)
{
    bool keep = __atomic_load_n(&gc->sink->on, __ATOMIC_RELAXED);

    if ((!keep && !gc->host->trace_record) || vg_gpu_stale(gc)) {
        return;
    }
    r->seqno = gc->packet ? gc->packet->seqno : 0;
    r->gpu = (uint8_t)gc->index;
    r->as_slot = gc->packet ? gc->packet->as_slot : 0;
    if (gc->host->trace_record) {
        gc->host->trace_record(gc->host->opaque, r);
    }
    if (keep) {
        pthread_mutex_lock(&gc->sink->lock);
        vg_trace_emit(&gc->sink->trace, r);
        pthread_mutex_unlock(&gc->sink->lock);
    }
}

void vg_gpu_trace(struct vg_gpu_common *gc, uint8_t kind, uint16_t sm,
                  vg_time_t start, vg_time_t end, uint32_t dispatch,
                  uint32_t block, uint32_t aux, uint64_t value, uint64_t value2)
{
    struct vmgpu_trace_record r;

    memset(&r, 0, sizeof(r));
    r.start_ns = start / VG_PS_PER_NS;
    r.end_ns = end / VG_PS_PER_NS;
    r.kind = kind;
    r.sm = sm;
    r.dispatch = dispatch;
    r.block = block;
    r.aux = aux;
    r.value = value;
    r.value2 = value2;
    vg_gpu_trace_record(gc, &r);
}

void vg_gpu_post(struct vg_gpu_common *gc, vg_time_t time, uint32_t kind,
                 uint32_t a, uint32_t b)
{
    vg_gpu_post_seq(gc, time, vg_evq_reserve(&gc->evq), kind, a, b);
}

void vg_gpu_post_seq(struct vg_gpu_common *gc, vg_time_t time, uint64_t seq,
                     uint32_t kind, uint32_t a, uint32_t b)
{
    /*
     * Out of host memory the event is lost and that GPU stops making
     * progress; there is nothing better to do without an event to run.
     */
    if (vg_evq_push_seq(&gc->evq, time, seq, kind, gc->index, gc->exec_gen, a,
                        b)) {
        fprintf(stderr, "vmgpu: event queue out of memory\n");
    }
}

/* @bytes of GPU @owner's memory over the links; returns the end. */
static vg_time_t price_link(struct vg_gpu_common *gc, uint32_t owner,
                            vg_time_t ready, uint64_t bytes, bool book,
                            vg_time_t *lat)
{
    const struct vg_cost *cost = gc->cost;
    vg_time_t dur = vg_cost_transfer(cost, VG_MEM_LINK, bytes), start, end;
    uint32_t hops;

    end = vg_links_transfer(gc->links, owner, gc->index, ready, dur, bytes,
                            book, &start, &hops);
    if (cost->lat[VG_MEM_LINK] * hops > *lat) {
        *lat = cost->lat[VG_MEM_LINK] * hops;
    }
    vg_gpu_trace(gc, VMGPU_TRACE_LINK, VMGPU_TRACE_SM_NONE, start, end,
                 VMGPU_TRACE_NONE, VMGPU_TRACE_NONE,
                 VMGPU_TRACE_LINK_AUX(owner, hops), bytes, 0);
    return end;
}

vg_time_t vg_gpu_price_bytes(struct vg_gpu_common *gc, vg_time_t ready,
                             const uint64_t *bytes_by_loc, bool book)
{
    const struct vg_cost *cost = gc->cost;
    vg_time_t end = ready, lat = 0, dur, e;
    uint32_t loc, c;

    for (loc = 0; loc < VMGPU_LOC_COUNT; loc++) {
        uint64_t b = bytes_by_loc[loc];

        if (!b) {
            continue;
        }
        c = vg_mem_class_of(loc, gc->index);
        gc->cnt[VMGPU_CNT_BYTES_LOCAL + c] += b;
        if (c == VG_MEM_LINK) {
            e = price_link(gc, loc - VMGPU_LOC_GPU(0), ready, b, book, &lat);
        } else {
            dur = vg_cost_transfer(cost, c, b);
            e = book ? vg_server_book(&gc->chan[c], ready, dur) : ready + dur;
            lat = cost->lat[c] > lat ? cost->lat[c] : lat;
        }
        end = e > end ? e : end;
    }
    return end + lat;
}
