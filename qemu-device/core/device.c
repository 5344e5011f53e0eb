// SPDX-License-Identifier: MIT
/*
 * vmgpu device model, the top of qemu-device/core: the register file (the
 * global page and one page per GPU) and the event loop that runs each
 * GPU's units on the GPU's own virtual clock. Every unit sits below this
 * file and is reached only from here (Documentation/device-model.rst has
 * the map of the rooms).
 *
 * Locking (gpu_common.h, Documentation/device-model.rst "Threads and
 * locks"): per GPU, a register lock held for one register access or
 * update, never while work runs; the execution state belongs to the GPU's
 * runner. The trace sink's lock covers the global registers and the
 * trace. Interrupts and kicks are sent with no lock held, because the
 * QEMU glue takes the big QEMU lock in raise_irq while vCPU threads hold
 * it around their MMIO calls.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdproc.h"
#include "copy_engine.h"
#include "device.h"
#include "gpu_common.h"
#include "mmu.h"
#include "sm.h"
#include "wdist.h"

/* One GPU: its shared state and its units. */
struct vg_gpu {
    struct vg_gpu_common c;
    struct vg_mmu mmu;
    struct vg_wdist wd;
    struct vg_sms sms;
    struct vg_copy_engine ce;
    struct vg_cp cp;
    uint64_t tlb_misses_seen; /* mmu.misses already counted */
    /* A committed WD_* policy the distributor could not take yet. */
    bool wd_pending;
    struct vg_wd_regs wd_next;
    /*
     * Runner threads only (vg_device_run_gpu()): the time of the event
     * this GPU runs or runs next (VG_TIME_NEVER: none), and, while it is
     * held back, the time of its next event (device-model.rst, "Device
     * time across GPUs").
     */
    vg_time_t next_ev;
    vg_time_t held_at;
    bool dropped; /* a reset dropped its blocks not priced yet */
};

#define VG_TIME_NEVER UINT64_MAX

struct vg_device {
    struct vg_config cfg;
    struct vg_host host;
    struct vg_cost cost;
    /* The trace, and the global registers under its lock. */
    struct vg_trace_sink sink;
    uint32_t scratch;
    uint32_t trace_ctrl;
    uint64_t trace_addr;
    uint32_t trace_size;
    /*
     * Device time across GPUs (device-model.rst): the latest device time
     * the host has read (H), and when GPUs last wrote each line (W).
     */
    vg_time_t host_seen;
    struct vg_wtimes wtimes;
    struct vg_links links; /* GPU-GPU links, shared by the GPUs */
    uint32_t held;         /* runners held back: a bit per GPU (atomic) */
    /*
     * vg_device_run(): the GPU of each block issued and not priced, in
     * issue order over all GPUs (a ring), so that blocks are priced, and
     * book the links, in the order they were issued.
     */
    uint8_t *issued;
    uint32_t issued_cap, issued_head, issued_len;
    struct vg_gpu gpu[VMGPU_MAX_GPUS];
};

static void cost_from_config(struct vg_cost *c, const struct vg_config *cfg)
{
    memset(c, 0, sizeof(*c));
    c->clock_khz = cfg->clock_khz;
    c->issue_width = cfg->issue_width;
    c->cycle_ps = (1000000000ull + cfg->clock_khz - 1) / cfg->clock_khz;
    c->bw_bytes_per_s[VG_MEM_LOCAL] = cfg->local_bw_mbps * 1000000ull;
    c->bw_bytes_per_s[VG_MEM_LINK] = cfg->link_bw_mbps * 1000000ull;
    c->bw_bytes_per_s[VG_MEM_HOST] = cfg->host_bw_mbps * 1000000ull;
    c->lat[VG_MEM_LOCAL] = VG_NS(cfg->local_lat_ns);
    c->lat[VG_MEM_LINK] = VG_NS(cfg->link_lat_ns);
    c->lat[VG_MEM_HOST] = VG_NS(cfg->host_lat_ns);
    c->cp_cmd = VG_NS(cfg->cp_cmd_ns);
    c->launch = VG_NS(cfg->launch_ns);
    c->block_launch = VG_NS(cfg->block_launch_ns);
    c->fence = VG_NS(cfg->fence_ns);
}

/* ------------------------------------------------------------------ */
/* Reset                                                                */
/* ------------------------------------------------------------------ */

/*
 * Register side of a GPU reset, with its reg_lock held: the registers are
 * back to power-on state at once, and the runner is told to stop (abort)
 * and to drop its execution state (reset_gen) before it goes on. A device
 * reset (@clock) also sets the GPU's clock back to 0.
 */
static void gpu_regs_reset(struct vg_gpu_common *c, bool clock)
{
    uint64_t now = clock ? 0 : c->regs.now;

    memset(&c->regs, 0, sizeof(c->regs));
    c->regs.status = VMGPU_STATUS_IDLE;
    c->regs.wd_staged = c->wd_reset;
    c->regs.wd_policy = c->wd_reset;
    c->regs.now = now;
    vg_mmu_regs_reset(&c->mmu_regs);
    __atomic_store_n(&c->req, 0, __ATOMIC_RELAXED);
    c->mem_time = 0;
    c->clock_reset |= clock;
    __atomic_store_n(&c->abort, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&c->reset_gen, c->reset_gen + 1, __ATOMIC_RELEASE);
}

static void device_reset(struct vg_device *dev);
static void kick_gpus(struct vg_device *dev, uint32_t kicks);
static int wd_set(struct vg_gpu *g, const struct vg_wd_regs *w);

/* Runner side: drop everything the GPU was doing (after a reset). */
static void gpu_drop(struct vg_gpu *g, bool clock)
{
    /* First: the executor stops using the packet's kernels and memory. */
    vg_sms_reset(&g->sms);
    g->dropped = true;
    vg_cp_reset(&g->cp);
    vg_wdist_reset(&g->wd);
    /* The reset's policy: the settings (always valid with no task). */
    wd_set(g, &g->c.wd_reset);
    g->wd_pending = false;
    vg_ce_reset(&g->ce);
    g->ce.unpriced = false; /* its place in the pending ring goes too */
    vg_gpu_common_drop(&g->c, clock);
    /* The roots come back from the (reset) registers at the next walk. */
    vg_mmu_invalidate(&g->mmu, ~0u);
    g->tlb_misses_seen = g->mmu.misses;
}

void vg_device_free(struct vg_device *dev)
{
    uint32_t i;

    if (!dev) {
        return;
    }
    vg_device_executors(dev, false);
    for (i = 0; i < dev->cfg.gpus; i++) {
        struct vg_gpu *g = &dev->gpu[i];

        vg_cp_destroy(&g->cp);
        vg_sms_destroy(&g->sms);
        vg_gpu_common_destroy(&g->c);
    }
    vg_trace_destroy(&dev->sink.trace);
    vg_links_destroy(&dev->links);
    vg_wtimes_destroy(&dev->wtimes);
    pthread_mutex_destroy(&dev->sink.lock);
    free(dev->issued);
    free(dev);
}

static int gpu_init(struct vg_device *dev, struct vg_gpu *g, uint32_t index)
{
    const struct vg_config *cfg = &dev->cfg;
    struct vg_wd_limits lim = {
        .threads = cfg->sm_threads,
        .regs = cfg->sm_regs,
        .shared = cfg->sm_shared_kb * 1024,
        .blocks = cfg->sm_blocks,
    };
    struct vg_wd_policy pol;

    if (vg_gpu_common_init(&g->c, index, cfg, &dev->cost, &dev->host,
                           &dev->sink, &dev->wtimes, &dev->links)) {
        return -1;
    }
    vg_mmu_init(&g->mmu, &dev->host, index, cfg->gpus);
    vg_mmu_attach(&g->mmu, &g->c.mmu_regs);
    vg_wdist_init(&g->wd, cfg->sms, &lim);
    vg_wdist_default_policy(&pol, cfg->sms);
    pol.table_slots = cfg->wd_table_slots;
    pol.mode = cfg->wd_round_robin ? VG_WD_ROUND_ROBIN : VG_WD_LOAD_BALANCE;
    pol.fifo = cfg->wd_fifo;
    pol.throttle_sms = cfg->wd_throttle_sms;
    pol.sync_latency = VG_NS(cfg->wd_sync_ns);
    pol.evict_latency = VG_NS(cfg->wd_evict_ns);
    if (vg_wdist_set_policy(&g->wd, &pol)) {
        vg_gpu_common_destroy(&g->c);
        return -1;
    }
    g->c.wd_reset.mode = cfg->wd_round_robin ? VMGPU_WD_MODE_ROUND_ROBIN : 0;
    g->c.wd_reset.slots = pol.table_slots;
    memcpy(g->c.wd_reset.order, pol.sm_order, sizeof(pol.sm_order));
    vg_ce_init(&g->ce, &g->c, &g->mmu);
    if (vg_sms_init(&g->sms, &g->c, &g->wd, &g->c.mmu_regs, &g->mmu)) {
        vg_gpu_common_destroy(&g->c);
        return -1;
    }
    if (vg_cp_init(&g->cp, &g->c, &g->mmu, &g->wd, &g->sms, &g->ce)) {
        vg_sms_destroy(&g->sms);
        vg_gpu_common_destroy(&g->c);
        return -1;
    }
    g->next_ev = VG_TIME_NEVER;
    return 0;
}

struct vg_device *vg_device_new(const struct vg_config *cfg,
                                const struct vg_host *host)
{
    struct vg_device *dev;
    char err[160];
    uint32_t i;

    if (vg_config_check(cfg, err, sizeof(err))) {
        return NULL;
    }
    dev = calloc(1, sizeof(*dev));
    if (!dev) {
        return NULL;
    }
    dev->cfg = *cfg;
    dev->host = *host;
    pthread_mutex_init(&dev->sink.lock, NULL);
    vg_links_init(&dev->links, cfg->gpus, cfg->link_topology);
    if (vg_wtimes_init(&dev->wtimes)) {
        dev->cfg.gpus = 0;
        vg_device_free(dev);
        return NULL;
    }
    cost_from_config(&dev->cost, cfg);
    vg_trace_init(&dev->sink.trace, &dev->host);
    for (i = 0; i < cfg->gpus; i++) {
        if (gpu_init(dev, &dev->gpu[i], i)) {
            dev->cfg.gpus = i; /* free the GPUs made so far */
            vg_device_free(dev);
            return NULL;
        }
        dev->issued_cap += dev->gpu[i].c.pending_cap;
    }
    dev->issued = calloc(dev->issued_cap, 1);
    if (!dev->issued) {
        vg_device_free(dev);
        return NULL;
    }
    device_reset(dev); /* no runner to kick yet */
    return dev;
}

static void device_reset(struct vg_device *dev)
{
    unsigned int i;

    pthread_mutex_lock(&dev->sink.lock);
    dev->scratch = 0;
    dev->trace_ctrl = 0;
    dev->trace_addr = 0;
    dev->trace_size = 0;
    dev->sink.trace.dma_on = false;
    dev->sink.trace.dma_written = 0;
    dev->sink.trace.dma_dropped = 0;
    vg_trace_clear(&dev->sink.trace);
    __atomic_store_n(&dev->sink.on, dev->sink.trace.keep, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&dev->sink.lock);
    /* Device time goes back to 0 everywhere. */
    __atomic_store_n(&dev->host_seen, 0, __ATOMIC_RELAXED);
    vg_wtimes_clear(&dev->wtimes);
    vg_links_reset(&dev->links);
    for (i = 0; i < dev->cfg.gpus; i++) {
        pthread_mutex_lock(&dev->gpu[i].c.reg_lock);
        gpu_regs_reset(&dev->gpu[i].c, true);
        pthread_mutex_unlock(&dev->gpu[i].c.reg_lock);
    }
}

void vg_device_reset(struct vg_device *dev)
{
    device_reset(dev);
    /* The runners drop their work now rather than at the next doorbell. */
    kick_gpus(dev, (1u << dev->cfg.gpus) - 1);
}

/* ------------------------------------------------------------------ */
/* Helpers for the runner                                               */
/* ------------------------------------------------------------------ */

/*
 * Memory changed (by GPU @from at its time @t, or by the CPU: @from NULL):
 * ask every other GPU that waits for memory to poll again. Returns the
 * GPUs to kick.
 */
static uint32_t memory_changed(struct vg_device *dev, struct vg_gpu *from,
                               vg_time_t t)
{
    uint32_t i, kicks = 0;

    /* Our stores before their wait_value: see vg_gpu_publish_wait(). */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (i = 0; i < dev->cfg.gpus; i++) {
        struct vg_gpu *h = &dev->gpu[i];

        if (h == from ||
            !__atomic_load_n(&h->c.regs.wait_value, __ATOMIC_RELAXED)) {
            continue;
        }
        pthread_mutex_lock(&h->c.reg_lock);
        if (h->c.regs.wait_value) {
            h->c.mem_time = t > h->c.mem_time ? t : h->c.mem_time;
            __atomic_store_n(&h->c.req, h->c.req | VG_REQ_MEM,
                             __ATOMIC_RELEASE);
            kicks |= 1u << i;
        }
        pthread_mutex_unlock(&h->c.reg_lock);
    }
    return kicks;
}

static void kick_gpus(struct vg_device *dev, uint32_t kicks)
{
    while (kicks) {
        unsigned int i = __builtin_ctz(kicks);

        kicks &= kicks - 1;
        if (dev->host.kick) {
            dev->host.kick(dev->host.opaque, i);
        }
    }
}

/* Signal @g's vector if a cause is pending and unmasked; call unlocked. */
static void raise_if_asserted(struct vg_device *dev, struct vg_gpu *g)
{
    bool asserted;

    pthread_mutex_lock(&g->c.reg_lock);
    asserted = g->c.regs.int_status & g->c.regs.int_mask;
    pthread_mutex_unlock(&g->c.reg_lock);
    if (asserted) {
        dev->host.raise_irq(dev->host.opaque, g->c.index);
    }
}

/* ------------------------------------------------------------------ */
/* Registers                                                            */
/* ------------------------------------------------------------------ */

/* trace_lock held */
static uint32_t global_read(struct vg_device *dev, uint32_t off)
{
    switch (off) {
    case VMGPU_REG_MAGIC:
        return VMGPU_HW_MAGIC;
    case VMGPU_REG_VERSION:
        return VMGPU_HW_VERSION;
    case VMGPU_REG_NUM_GPUS:
        return dev->cfg.gpus;
    case VMGPU_REG_SMS_PER_GPU:
        return dev->cfg.sms;
    case VMGPU_REG_ISA_VERSION:
        return dev->cfg.isa_version;
    case VMGPU_REG_CAPS:
        return VMGPU_CAP_MMU | VMGPU_CAP_SYNC | VMGPU_CAP_TIMESTAMP |
               VMGPU_CAP_COPY | VMGPU_CAP_WAIT_VALUE | VMGPU_CAP_TRACE |
               VMGPU_CAP_TRACE_TMD | VMGPU_CAP_WD_POLICY |
               VMGPU_CAP_DEP_TABLES | VMGPU_CAP_SKIP_IF | VMGPU_CAP_TAKE |
               VMGPU_CAP_COPY_ASYNC | VMGPU_CAP_DISPATCH_SPAN |
               VMGPU_CAP_BUDGET_PER_WARPS;
    case VMGPU_REG_SCRATCH:
        return dev->scratch;
    case VMGPU_REG_WARP_SIZE:
        return VMGPU_WARP_SIZE;
    case VMGPU_REG_AS_SLOTS:
        return VMGPU_AS_SLOTS;
    case VMGPU_REG_RING_MAX_ENTRIES:
        return VMGPU_RING_MAX_ENTRIES;
    case VMGPU_REG_CMDBUF_MAX_BYTES:
        return VMGPU_CMDBUF_MAX_BYTES;
    case VMGPU_REG_MAX_DISPATCHES:
        return VMGPU_MAX_DISPATCHES_PER_PACKET;
    case VMGPU_REG_CLOCK_KHZ:
        return dev->cfg.clock_khz;
    case VMGPU_REG_LOCAL_MEM_MB:
        return dev->cfg.local_mem_mb;
    case VMGPU_REG_TRACE_CTRL:
        return dev->trace_ctrl;
    case VMGPU_REG_TRACE_ADDR_LO:
        return (uint32_t)dev->trace_addr;
    case VMGPU_REG_TRACE_ADDR_HI:
        return dev->trace_addr >> 32;
    case VMGPU_REG_TRACE_SIZE:
        return dev->trace_size;
    case VMGPU_REG_TRACE_WRITTEN:
        return dev->sink.trace.dma_written;
    case VMGPU_REG_TRACE_DROPPED:
        return dev->sink.trace.dma_dropped;
    default:
        return 0;
    }
}

static void set_lo(uint64_t *reg, uint32_t val)
{
    *reg = (*reg & ~0xffffffffull) | val;
}

static void set_hi(uint64_t *reg, uint32_t val)
{
    *reg = (*reg & 0xffffffffull) | ((uint64_t)val << 32);
}

/* trace_lock held */
static void global_write(struct vg_device *dev, uint32_t off, uint32_t val)
{
    switch (off) {
    case VMGPU_REG_SCRATCH:
        dev->scratch = val;
        break;
    case VMGPU_REG_TRACE_CTRL:
        /* Enabling starts a fresh buffer; the address is latched. */
        if ((val & VMGPU_TRACE_ENABLE) &&
            !(dev->trace_ctrl & VMGPU_TRACE_ENABLE)) {
            dev->sink.trace.dma_addr = dev->trace_addr;
            dev->sink.trace.dma_size = dev->trace_size;
            dev->sink.trace.dma_written = 0;
            dev->sink.trace.dma_dropped = 0;
        }
        dev->trace_ctrl = val & VMGPU_TRACE_ENABLE;
        dev->sink.trace.dma_on = dev->trace_ctrl & VMGPU_TRACE_ENABLE;
        __atomic_store_n(&dev->sink.on,
                         dev->sink.trace.keep || dev->sink.trace.dma_on,
                         __ATOMIC_RELAXED);
        break;
    case VMGPU_REG_TRACE_ADDR_LO:
        set_lo(&dev->trace_addr, val);
        break;
    case VMGPU_REG_TRACE_ADDR_HI:
        set_hi(&dev->trace_addr, val);
        break;
    case VMGPU_REG_TRACE_SIZE:
        dev->trace_size = val;
        break;
    default:
        break;
    }
}

/* ---- Work distributor policy (WD_*): staged, checked at COMMIT ---- */

_Static_assert(VG_WD_MAX_SLOTS == VMGPU_WD_MAX_SLOTS, "task-table slots");

static bool is_wd_reg(uint32_t off)
{
    return off >= VMGPU_GPU_WD_CTRL &&
           off < VMGPU_GPU_WD_SM_ORDER(VMGPU_WD_SM_ORDER_REGS);
}

/* reg_lock held */
static uint32_t wd_read(struct vg_gpu *g, uint32_t off)
{
    const struct vg_wd_regs *w = &g->c.regs.wd_staged;
    uint32_t n, k, val = 0;

    if (off >= VMGPU_GPU_WD_SM_ORDER(0)) {
        n = (off - VMGPU_GPU_WD_SM_ORDER(0)) / 4;
        for (k = 0; k < 4; k++) {
            val |= (uint32_t)w->order[n * 4 + k] << (8 * k);
        }
        return val;
    }
    switch (off) {
    case VMGPU_GPU_WD_STATUS:
        return g->c.regs.wd_status;
    case VMGPU_GPU_WD_MODE:
        return w->mode;
    case VMGPU_GPU_WD_SLOTS:
        return w->slots;
    default:
        return 0;
    }
}

/* A policy the GPU can take: known mode bits, slots, SMs a permutation. */
static bool wd_valid(const struct vg_wd_regs *w, uint32_t sms)
{
    uint64_t seen = 0;
    uint32_t p;

    if ((w->mode & ~VMGPU_WD_MODE_ALL) || w->slots < 1 ||
        w->slots > VMGPU_WD_MAX_SLOTS) {
        return false;
    }
    for (p = 0; p < sms; p++) {
        if (w->order[p] >= sms || (seen >> w->order[p] & 1)) {
            return false;
        }
        seen |= 1ull << w->order[p];
    }
    return true;
}

/* reg_lock held; returns true if the runner has a policy to apply */
static bool wd_write(struct vg_gpu *g, uint32_t off, uint32_t val)
{
    struct vg_gpu_regs *r = &g->c.regs;
    uint32_t sms = g->c.cfg->sms, n, k;

    if (off >= VMGPU_GPU_WD_SM_ORDER(0)) {
        n = (off - VMGPU_GPU_WD_SM_ORDER(0)) / 4;
        for (k = 0; k < 4; k++) {
            r->wd_staged.order[n * 4 + k] = (uint8_t)(val >> (8 * k));
        }
        return false;
    }
    switch (off) {
    case VMGPU_GPU_WD_MODE:
        r->wd_staged.mode = val;
        break;
    case VMGPU_GPU_WD_SLOTS:
        r->wd_staged.slots = val;
        break;
    case VMGPU_GPU_WD_CTRL:
        if (!(val & VMGPU_WD_CTRL_COMMIT)) {
            break;
        }
        if (!wd_valid(&r->wd_staged, sms)) {
            r->wd_staged = r->wd_policy;
            r->wd_status |= VMGPU_WD_STATUS_INVALID;
            break;
        }
        memset(r->wd_staged.order + sms, 0, VMGPU_MAX_SMS - sms);
        r->wd_policy = r->wd_staged;
        r->wd_status = VMGPU_WD_STATUS_PENDING;
        return true;
    default:
        break;
    }
    return false;
}

/* Runner: make @w the distributor's policy; -1 if it cannot now. */
static int wd_set(struct vg_gpu *g, const struct vg_wd_regs *w)
{
    struct vg_wd_policy pol = g->wd.pol;

    pol.mode = w->mode & VMGPU_WD_MODE_ROUND_ROBIN ? VG_WD_ROUND_ROBIN
                                                   : VG_WD_LOAD_BALANCE;
    pol.table_slots = w->slots;
    memcpy(pol.sm_order, w->order, sizeof(pol.sm_order));
    return vg_wdist_set_policy(&g->wd, &pol);
}

/*
 * Runner, between two events: apply the committed policy. The distributor
 * refuses a change in throttle mode, or a smaller table while a task sits
 * in a slot past its end; the policy then stays pending and is tried
 * again after every event until those have drained.
 */
static void wd_apply(struct vg_gpu *g)
{
    if (!g->wd_pending || wd_set(g, &g->wd_next)) {
        return;
    }
    g->wd_pending = false;
    if (vg_gpu_regs_begin(&g->c)) {
        if (!(g->c.req & VG_REQ_WD)) {
            g->c.regs.wd_status &= ~VMGPU_WD_STATUS_PENDING;
        }
        vg_gpu_regs_end(&g->c);
    }
    /* SMs were unassigned; a larger table may take more tasks. */
    vg_sms_issue(&g->sms);
}

/* The host read device time @t (device-model.rst, "Device time ..."). */
static void host_observed(struct vg_device *dev, vg_time_t t)
{
    vg_time_raise(&dev->host_seen, t);
}

/* reg_lock held */
static uint32_t gpu_read(struct vg_device *dev, struct vg_gpu *g, uint32_t off)
{
    struct vg_gpu_regs *r = &g->c.regs;
    uint64_t now_ns = r->now / VG_PS_PER_NS;
    unsigned int n;

    if (off >= VMGPU_GPU_AS_ROOT_LO(0) &&
        off < VMGPU_GPU_AS_ROOT_LO(VMGPU_AS_SLOTS)) {
        uint64_t root;

        n = (off - VMGPU_GPU_AS_ROOT_LO(0)) / 8;
        root = g->c.mmu_regs.root[n];
        return off & 4 ? root >> 32 : (uint32_t)root;
    }
    if (is_wd_reg(off)) {
        return wd_read(g, off);
    }
    if (off >= VMGPU_GPU_CNT_BASE && off < VMGPU_GPU_CNT_LO(VMGPU_CNT_NUM)) {
        uint64_t v;

        n = (off - VMGPU_GPU_CNT_BASE) / 8;
        if (off & 4) {
            return r->counter_hi_latch;
        }
        v = r->counters[n];
        if (n >= VMGPU_CNT_LINK_BYTES0 && n <= VMGPU_CNT_LINK_BYTES7) {
            /* A link's count is the device's, seen from either end. */
            v = vg_links_bytes(&dev->links, g->c.index,
                               n - VMGPU_CNT_LINK_BYTES0);
        }
        r->counter_hi_latch = v >> 32;
        return (uint32_t)v;
    }
    switch (off) {
    case VMGPU_GPU_RING_BASE_LO:
        return (uint32_t)r->ring_base;
    case VMGPU_GPU_RING_BASE_HI:
        return r->ring_base >> 32;
    case VMGPU_GPU_RING_ENTRIES:
        return r->ring_entries;
    case VMGPU_GPU_RING_HEAD:
        return r->ring_head;
    case VMGPU_GPU_RING_TAIL:
        return r->ring_tail;
    case VMGPU_GPU_FENCE_ADDR_LO:
        return (uint32_t)r->fence_addr;
    case VMGPU_GPU_FENCE_ADDR_HI:
        return r->fence_addr >> 32;
    case VMGPU_GPU_FENCE_LO:
        host_observed(dev, r->fence_time);
        return (uint32_t)r->fence;
    case VMGPU_GPU_FENCE_HI:
        host_observed(dev, r->fence_time);
        return r->fence >> 32;
    case VMGPU_GPU_INT_STATUS:
        if (r->int_status) {
            host_observed(dev, r->int_time);
        }
        return r->int_status;
    case VMGPU_GPU_INT_MASK:
        return r->int_mask;
    case VMGPU_GPU_CONTROL:
        return r->control;
    case VMGPU_GPU_STATUS:
        /* A doorbell the runner has not taken yet: not idle any more. */
        return g->c.req & VG_REQ_WAKE ? 0 : r->status;
    case VMGPU_GPU_TIMESTAMP_LO:
        host_observed(dev, r->now);
        return (uint32_t)now_ns;
    case VMGPU_GPU_TIMESTAMP_HI:
        host_observed(dev, r->now);
        return now_ns >> 32;
    case VMGPU_GPU_ERR_CODE:
        return r->err.code;
    case VMGPU_GPU_ERR_SLOT:
        return r->err.slot;
    case VMGPU_GPU_ERR_ADDR_LO:
        return (uint32_t)r->err.addr;
    case VMGPU_GPU_ERR_ADDR_HI:
        return r->err.addr >> 32;
    case VMGPU_GPU_ERR_PC:
        return r->err.pc;
    case VMGPU_GPU_ERR_SEQNO_LO:
        return (uint32_t)r->err_seqno;
    case VMGPU_GPU_ERR_SEQNO_HI:
        return r->err_seqno >> 32;
    case VMGPU_GPU_ERR_DISPATCH:
        return r->err.dispatch;
    default:
        return 0;
    }
}

/* What an MMIO write asks for once the lock is released. */
enum {
    ACT_KICK = 1 << 0, /* the GPU's runner has a request */
    ACT_IRQ = 1 << 1,  /* signal the GPU's vector */
    ACT_MEM = 1 << 2,  /* the CPU may have written memory */
};

static void post_req(struct vg_gpu *g, uint32_t req)
{
    __atomic_store_n(&g->c.req, g->c.req | req, __ATOMIC_RELEASE);
}

/*
 * reg_lock held: the host makes ring entries up to @tail visible. Each new
 * entry starts no earlier than the device time the host has read so far.
 */
static void ring_stamp(struct vg_device *dev, struct vg_gpu_regs *r,
                       uint32_t tail)
{
    vg_time_t h = __atomic_load_n(&dev->host_seen, __ATOMIC_RELAXED);
    uint32_t i = r->ring_tail, n = r->ring_entries;

    if (n > VMGPU_RING_MAX_ENTRIES || n & (n - 1) || !n || i >= n ||
        tail >= n) {
        return; /* the CP refuses such a ring anyway */
    }
    while (i != tail) {
        r->ring_stamp[i] = h;
        i = (i + 1) & (n - 1);
    }
}

/* reg_lock held; returns ACT_* */
static uint32_t gpu_write(struct vg_device *dev, struct vg_gpu *g, uint32_t off,
                          uint32_t val)
{
    struct vg_gpu_regs *r = &g->c.regs;
    uint32_t old;
    unsigned int n;

    /* What the host did to this GPU; device-side work does none. */
    r->counters[VMGPU_CNT_MMIO_WRITES]++;
    if (off >= VMGPU_GPU_AS_ROOT_LO(0) &&
        off < VMGPU_GPU_AS_ROOT_LO(VMGPU_AS_SLOTS)) {
        uint64_t root;

        n = (off - VMGPU_GPU_AS_ROOT_LO(0)) / 8;
        root = g->c.mmu_regs.root[n];
        if (off & 4) {
            set_hi(&root, val);
        } else {
            set_lo(&root, val);
        }
        vg_mmu_regs_set_root(&g->c.mmu_regs, n, root);
        return 0;
    }
    if (is_wd_reg(off)) {
        if (wd_write(g, off, val)) {
            post_req(g, VG_REQ_WD);
            return ACT_KICK;
        }
        return 0;
    }
    switch (off) {
    case VMGPU_GPU_RING_BASE_LO:
        set_lo(&r->ring_base, val);
        break;
    case VMGPU_GPU_RING_BASE_HI:
        set_hi(&r->ring_base, val);
        break;
    case VMGPU_GPU_RING_ENTRIES:
        r->ring_entries = val;
        break;
    case VMGPU_GPU_RING_TAIL:
        ring_stamp(dev, r, val);
        r->ring_tail = val;
        break;
    case VMGPU_GPU_DOORBELL:
        /* The CPU may also have written memory a WAIT_VALUE reads. */
        post_req(g, VG_REQ_WAKE | (r->wait_value ? VG_REQ_MEM : 0));
        return ACT_KICK | ACT_MEM;
    case VMGPU_GPU_FENCE_ADDR_LO:
        set_lo(&r->fence_addr, val);
        break;
    case VMGPU_GPU_FENCE_ADDR_HI:
        set_hi(&r->fence_addr, val);
        break;
    case VMGPU_GPU_INT_MASK:
        old = r->int_mask;
        r->int_mask = val;
        /* Unmasking a pending cause delivers it now. */
        return r->int_status & val & ~old ? ACT_IRQ : 0;
    case VMGPU_GPU_INT_ACK:
        old = r->int_status;
        r->int_status &= ~val;
        /* A report waiting for this acknowledgement can go out. */
        if ((old & VMGPU_INT_ERROR_MASK) &&
            !(r->int_status & VMGPU_INT_ERROR_MASK)) {
            post_req(g, VG_REQ_ACK);
            return ACT_KICK;
        }
        break;
    case VMGPU_GPU_CONTROL:
        old = r->control;
        r->control = val & VMGPU_CTRL_ENABLE;
        if (r->control & ~old) {
            post_req(g, VG_REQ_WAKE);
            return ACT_KICK;
        }
        break;
    case VMGPU_GPU_RESET:
        if (val & 1) {
            /* At once; the runner drops its work when it next looks. */
            gpu_regs_reset(&g->c, false);
            return ACT_KICK;
        }
        break;
    case VMGPU_GPU_MMU_INVALIDATE:
        vg_mmu_regs_invalidate(&g->c.mmu_regs, val);
        break;
    default:
        break;
    }
    return 0;
}

uint32_t vg_device_mmio_read(struct vg_device *dev, uint32_t offset)
{
    uint32_t page = offset / VMGPU_REG_PAGE_SIZE;
    uint32_t off = offset % VMGPU_REG_PAGE_SIZE;
    uint32_t val = 0;

    if (page == 0) {
        pthread_mutex_lock(&dev->sink.lock);
        val = global_read(dev, off);
        pthread_mutex_unlock(&dev->sink.lock);
    } else if (page <= dev->cfg.gpus) {
        struct vg_gpu *g = &dev->gpu[page - 1];

        pthread_mutex_lock(&g->c.reg_lock);
        val = gpu_read(dev, g, off);
        pthread_mutex_unlock(&g->c.reg_lock);
    }
    return val;
}

void vg_device_mmio_write(struct vg_device *dev, uint32_t offset,
                          uint32_t value)
{
    uint32_t page = offset / VMGPU_REG_PAGE_SIZE;
    uint32_t off = offset % VMGPU_REG_PAGE_SIZE;
    uint32_t act, kicks = 0;
    struct vg_gpu *g;

    if (page == 0) {
        pthread_mutex_lock(&dev->sink.lock);
        global_write(dev, off, value);
        pthread_mutex_unlock(&dev->sink.lock);
        return;
    }
    if (page > dev->cfg.gpus) {
        return;
    }
    g = &dev->gpu[page - 1];
    pthread_mutex_lock(&g->c.reg_lock);
    act = gpu_write(dev, g, off, value);
    pthread_mutex_unlock(&g->c.reg_lock);
    if (act & ACT_MEM) {
        kicks |= memory_changed(dev, g, 0);
    }
    if (act & ACT_KICK) {
        kicks |= 1u << g->c.index;
    }
    if (act & ACT_IRQ) {
        dev->host.raise_irq(dev->host.opaque, g->c.index);
    }
    kick_gpus(dev, kicks);
}

bool vg_device_irq_asserted(struct vg_device *dev, unsigned int gpu)
{
    struct vg_gpu *g;
    bool asserted;

    if (gpu >= dev->cfg.gpus) {
        return false;
    }
    g = &dev->gpu[gpu];
    pthread_mutex_lock(&g->c.reg_lock);
    asserted = g->c.regs.int_status & g->c.regs.int_mask;
    pthread_mutex_unlock(&g->c.reg_lock);
    return asserted;
}

/* ------------------------------------------------------------------ */
/* Runners                                                              */
/* ------------------------------------------------------------------ */

/*
 * Look at the register side: adopt a reset (drop the execution state),
 * then take the requests. Returns true if anything was taken.
 */
static bool gpu_sync(struct vg_gpu *g)
{
    struct vg_gpu_common *c = &g->c;
    bool adopt = false, clock = false;
    vg_time_t mem_time;
    uint32_t req;

    if (!vg_gpu_stale(c) && !__atomic_load_n(&c->req, __ATOMIC_ACQUIRE)) {
        return false;
    }
    pthread_mutex_lock(&c->reg_lock);
    if (c->reset_gen != c->exec_gen) {
        adopt = true;
        clock = c->clock_reset;
        c->clock_reset = false;
        c->exec_gen = c->reset_gen;
        __atomic_store_n(&c->abort, 0, __ATOMIC_RELAXED);
    }
    req = c->req;
    __atomic_store_n(&c->req, 0, __ATOMIC_RELAXED);
    mem_time = c->mem_time;
    c->mem_time = 0;
    if (req & VG_REQ_WAKE) {
        c->regs.status = 0; /* busy until the runner says otherwise */
    }
    if (req & VG_REQ_WD) {
        g->wd_next = c->regs.wd_policy;
    }
    pthread_mutex_unlock(&c->reg_lock);

    if (adopt) {
        gpu_drop(g, clock);
    }
    if (req & VG_REQ_WD) {
        g->wd_pending = true;
        wd_apply(g);
    }
    if (req & VG_REQ_MEM) {
        vg_cp_memory_poll(&g->cp, mem_time);
    }
    if (req & VG_REQ_WAKE) {
        vg_cp_wake(&g->cp);
    }
    if ((req & VG_REQ_ACK) && g->cp.state == VG_CP_WAIT_ACK) {
        vg_cp_wake(&g->cp);
    }
    return true;
}

/*
 * After an event (or requests): publish counters, status and clock in
 * one register update, then send the interrupt and kicks, unlocked.
 */
static void gpu_commit(struct vg_device *dev, struct vg_gpu *g)
{
    struct vg_gpu_common *c = &g->c;
    uint32_t n, kicks = 0;

    c->cnt[VMGPU_CNT_TLB_MISSES] += g->mmu.misses - g->tlb_misses_seen;
    g->tlb_misses_seen = g->mmu.misses;
    if (vg_gpu_regs_begin(c)) {
        for (n = 0; n < VMGPU_CNT_NUM; n++) {
            c->regs.counters[n] += c->cnt[n];
        }
        c->regs.status = vg_cp_status(&g->cp);
        c->pub_wait_value = vg_cp_waits_for_memory(&g->cp);
        __atomic_store_n(&c->regs.wait_value, c->pub_wait_value,
                         __ATOMIC_RELAXED);
        c->regs.now = c->evq.now;
        vg_gpu_regs_end(c);
    }
    memset(c->cnt, 0, sizeof(c->cnt));
    if (c->mem_out) {
        c->mem_out = false;
        if (dev->cfg.gpus > 1) {
            kicks = memory_changed(dev, g, c->evq.now);
        }
    }
    if (c->irq_out) {
        c->irq_out = false;
        raise_if_asserted(dev, g);
    }
    kick_gpus(dev, kicks);
}

/* Hand one event of @g to the unit it belongs to. */
static void run_event(struct vg_gpu *g, const struct vg_event *ev)
{
    struct vg_block_outcome done;

    if (ev->gen != g->c.exec_gen) {
        return; /* queued before a reset of that GPU */
    }
    switch (ev->kind) {
    case VG_EV_CP_STEP:
        vg_cp_step(&g->cp);
        break;
    case VG_EV_DISPATCH_READY:
        vg_cp_dispatch_ready(&g->cp, ev->a, ev->b);
        break;
    case VG_EV_BLOCK_DONE:
        /* The SMs retire the block, the CP learns what it meant. */
        if (vg_sms_retire(&g->sms, ev->a, ev->b, &done)) {
            vg_cp_block_retired(&g->cp, &done);
            vg_sms_issue(&g->sms);
        }
        break;
    case VG_EV_COPY_DONE:
        vg_cp_copy_done(&g->cp, ev->a, ev->b);
        break;
    case VG_EV_WD_WAKE:
        vg_sms_issue(&g->sms);
        break;
    default:
        break;
    }
    wd_apply(g); /* a policy the distributor could not take before */
}

/*
 * The earliest time @g can run something: its next event, or the
 * earliest end of its oldest work not priced yet. False if neither.
 */
static bool gpu_next_time(const struct vg_device *dev, const struct vg_gpu *g,
                          vg_time_t *t)
{
    const struct vg_pending *p = vg_gpu_pending_head(&g->c);
    bool have = vg_evq_peek(&g->c.evq, t);

    if (p && (!have || p->bound < *t)) {
        *t = p->bound;
        have = true;
    }
    return have;
}

/* Price @g's oldest work not priced (its unit queues its end event). */
static void gpu_price_one(struct vg_gpu *g)
{
    const struct vg_pending *p = vg_gpu_pending_head(&g->c);

    if (!p) {
        return;
    }
    if (p->kind == VG_PENDING_BLOCK) {
        vg_sms_price_next(&g->sms);
    } else {
        vg_ce_price(&g->ce);
    }
    vg_gpu_pending_pop(&g->c);
}

/*
 * Runner threads: price @g's work that could end by @t (all if @all),
 * in the order it began, before the GPU runs an event at or after the
 * earliest end of one.
 */
static void gpu_price_until(struct vg_gpu *g, vg_time_t t, bool all)
{
    const struct vg_pending *p;

    while ((p = vg_gpu_pending_head(&g->c)) && (all || p->bound <= t)) {
        gpu_price_one(g);
    }
    vg_gpu_pending_new(&g->c);
}

/*
 * Conservative synchronisation of the runner threads: a GPU whose command
 * processor waits for memory another GPU may write runs its next event
 * (at @e) only once no other GPU can still write at an earlier time: each
 * other GPU's current or next event is later (or as late, on a higher
 * GPU). Otherwise it is held: it sets its bit, and a GPU whose next event
 * moves past @e kicks it. Only waiting GPUs are ever held, and the GPU
 * with the earliest event never is, so no GPU's work waits for a GPU that
 * does not itself wait, and they cannot all wait.
 */
static bool gpu_held(struct vg_device *dev, struct vg_gpu *g)
{
    uint32_t bit = 1u << g->c.index, i;
    vg_time_t e;

    if (dev->cfg.gpus == 1 || !vg_cp_waits_for_memory(&g->cp) ||
        !gpu_next_time(dev, g, &e)) {
        __atomic_fetch_and(&dev->held, ~bit, __ATOMIC_SEQ_CST);
        return false;
    }
    /* Say so first: a GPU that moves on after our look kicks us. */
    __atomic_store_n(&g->held_at, e, __ATOMIC_SEQ_CST);
    __atomic_fetch_or(&dev->held, bit, __ATOMIC_SEQ_CST);
    for (i = 0; i < dev->cfg.gpus; i++) {
        vg_time_t n = __atomic_load_n(&dev->gpu[i].next_ev, __ATOMIC_SEQ_CST);

        if (i != g->c.index && (n < e || (n == e && i < g->c.index))) {
            return true;
        }
    }
    __atomic_fetch_and(&dev->held, ~bit, __ATOMIC_SEQ_CST);
    return false;
}

/* @g's next event moved to @n: kick the held GPUs that may now go on. */
static void gpu_moved(struct vg_device *dev, struct vg_gpu *g, vg_time_t n)
{
    uint32_t held, kicks = 0;

    __atomic_store_n(&g->next_ev, n, __ATOMIC_SEQ_CST);
    held = __atomic_load_n(&dev->held, __ATOMIC_SEQ_CST) & ~(1u << g->c.index);
    while (held) {
        unsigned int i = __builtin_ctz(held);
        vg_time_t at = __atomic_load_n(&dev->gpu[i].held_at, __ATOMIC_SEQ_CST);

        held &= held - 1;
        if (n > at || (n == at && g->c.index > i)) {
            kicks |= 1u << i;
        }
    }
    kick_gpus(dev, kicks);
}

void vg_device_run_gpu(struct vg_device *dev, unsigned int gpu)
{
    struct vg_gpu *g;
    struct vg_event ev;
    vg_time_t next;
    bool more;

    if (gpu >= dev->cfg.gpus) {
        return;
    }
    g = &dev->gpu[gpu];
    do {
        gpu_sync(g);
        if (gpu_held(dev, g)) {
            gpu_commit(dev, g);
            break; /* kicked when another GPU moves past our event */
        }
        more = vg_evq_peek(&g->c.evq, &next);
        gpu_price_until(g, next, !more);
        more = vg_evq_pop(&g->c.evq, &ev);
        if (more) {
            /* It may write at this event's time. */
            gpu_moved(dev, g, ev.time);
            run_event(g, &ev);
        }
        gpu_commit(dev, g);
        gpu_moved(dev, g, gpu_next_time(dev, g, &next) ? next : VG_TIME_NEVER);
        more |= vg_gpu_pending_head(&g->c) != NULL;
    } while (more);
}

/* vg_device_run(): note the work @g began, in the device's order. */
static void note_issued(struct vg_device *dev, struct vg_gpu *g)
{
    uint32_t n = vg_gpu_pending_new(&g->c), i, j, k;

    if (g->dropped) {
        /* A reset dropped its blocks: forget their places. */
        g->dropped = false;
        for (i = j = 0; i < dev->issued_len; i++) {
            k = dev->issued[(dev->issued_head + i) % dev->issued_cap];
            if (k != g->c.index) {
                dev->issued[(dev->issued_head + j++) % dev->issued_cap] = k;
            }
        }
        dev->issued_len = j;
    }
    while (n--) {
        dev->issued[(dev->issued_head + dev->issued_len++) % dev->issued_cap] =
            (uint8_t)g->c.index;
    }
}

/*
 * Every GPU from this thread: always the earliest event (by its GPU's
 * clock; ties go to the lower GPU), requests taken between two events,
 * so the same inputs give the same interleaving and the same trace.
 * Blocks are priced in the order they were issued, on any GPU, before
 * any event at or after the earliest end of the oldest: with executors
 * their interpreters run meanwhile, and nothing else changes.
 */
void vg_device_run(struct vg_device *dev)
{
    struct vg_gpu *next, *p;
    struct vg_event ev;
    vg_time_t t, best = 0;
    uint32_t i;

    for (;;) {
        next = NULL;
        for (i = 0; i < dev->cfg.gpus; i++) {
            struct vg_gpu *g = &dev->gpu[i];

            if (gpu_sync(g)) {
                gpu_commit(dev, g);
            }
            note_issued(dev, g);
            if (vg_evq_peek(&g->c.evq, &t) && (!next || t < best)) {
                next = g;
                best = t;
            }
        }
        if (dev->issued_len) {
            const struct vg_pending *w;

            p = &dev->gpu[dev->issued[dev->issued_head]];
            w = vg_gpu_pending_head(&p->c);
            if (!w || !next || w->bound <= best) {
                dev->issued_head = (dev->issued_head + 1) % dev->issued_cap;
                dev->issued_len--;
                gpu_price_one(p);
                gpu_commit(dev, p);
                continue;
            }
        }
        if (!next) {
            break;
        }
        vg_evq_pop(&next->c.evq, &ev);
        run_event(next, &ev);
        gpu_commit(dev, next);
        note_issued(dev, next);
    }
}

int vg_device_executors(struct vg_device *dev, bool on)
{
    uint32_t i;

    for (i = 0; i < dev->cfg.gpus; i++) {
        if (!on) {
            vg_sms_executor_stop(&dev->gpu[i].sms);
        } else if (vg_sms_executor_start(&dev->gpu[i].sms)) {
            vg_device_executors(dev, false);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Host-side helpers                                                    */
/* ------------------------------------------------------------------ */

void vg_device_trace_keep(struct vg_device *dev, bool keep)
{
    pthread_mutex_lock(&dev->sink.lock);
    dev->sink.trace.keep = keep;
    __atomic_store_n(&dev->sink.on, keep || dev->sink.trace.dma_on,
                     __ATOMIC_RELAXED);
    pthread_mutex_unlock(&dev->sink.lock);
}

const struct vmgpu_trace_record *vg_device_trace_records(struct vg_device *dev,
                                                         size_t *n)
{
    *n = dev->sink.trace.len;
    return dev->sink.trace.recs;
}

char *vg_device_trace_json(struct vg_device *dev, size_t *len)
{
    char *json;

    pthread_mutex_lock(&dev->sink.lock);
    json = vg_trace_json_string(dev->sink.trace.recs, dev->sink.trace.len, len);
    pthread_mutex_unlock(&dev->sink.lock);
    return json;
}

uint64_t vg_device_gpu_now_ns(struct vg_device *dev, unsigned int gpu)
{
    uint64_t now;

    if (gpu >= dev->cfg.gpus) {
        return 0;
    }
    pthread_mutex_lock(&dev->gpu[gpu].c.reg_lock);
    now = dev->gpu[gpu].c.regs.now / VG_PS_PER_NS;
    pthread_mutex_unlock(&dev->gpu[gpu].c.reg_lock);
    return now;
}

uint64_t vg_device_now_ns(struct vg_device *dev)
{
    uint64_t now = 0, t;
    unsigned int i;

    for (i = 0; i < dev->cfg.gpus; i++) {
        t = vg_device_gpu_now_ns(dev, i);
        now = t > now ? t : now;
    }
    return now;
}

void vg_device_tlb_stats(struct vg_device *dev, unsigned int gpu,
                         uint64_t *hits, uint64_t *misses)
{
    const struct vg_gpu *g = &dev->gpu[gpu];

    *hits = gpu < dev->cfg.gpus ? g->mmu.hits + g->sms.mmu.hits : 0;
    *misses = gpu < dev->cfg.gpus ? g->mmu.misses + g->sms.mmu.misses : 0;
}
