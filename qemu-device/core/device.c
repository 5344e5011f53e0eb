// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmgpu device model: the register file, the per-GPU register pages and
 * the runners that drive each GPU's command processor and SMs on the
 * GPU's own virtual clock.
 *
 * Locking (model.h, Documentation/device-model.rst "Threads and locks"):
 * per GPU, a register lock held for one register access or update, never
 * while work runs; the execution state belongs to the GPU's runner. A
 * device-wide trace lock covers the global registers and the trace.
 * Interrupts and kicks are sent with no lock held, because the QEMU glue
 * takes the big QEMU lock in raise_irq while vCPU threads hold it around
 * their MMIO calls.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "vmgpu_isa.h"

void vg_config_defaults(struct vg_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->gpus = VG_DEFAULT_GPUS;
    cfg->sms = VG_DEFAULT_SMS;
    cfg->clock_khz = VG_DEFAULT_CLOCK_KHZ;
    cfg->local_mem_mb = VG_DEFAULT_LOCAL_MB;
    cfg->issue_width = VG_DEFAULT_ISSUE_WIDTH;
    cfg->sm_threads = VG_DEFAULT_SM_THREADS;
    cfg->sm_regs = VG_DEFAULT_SM_REGS;
    cfg->sm_shared_kb = VG_DEFAULT_SM_SHARED_KB;
    cfg->sm_blocks = VG_DEFAULT_SM_BLOCKS;
    cfg->local_bw_mbps = VG_DEFAULT_LOCAL_BW;
    cfg->local_lat_ns = VG_DEFAULT_LOCAL_LAT;
    cfg->link_bw_mbps = VG_DEFAULT_LINK_BW;
    cfg->link_lat_ns = VG_DEFAULT_LINK_LAT;
    cfg->host_bw_mbps = VG_DEFAULT_HOST_BW;
    cfg->host_lat_ns = VG_DEFAULT_HOST_LAT;
    cfg->cp_cmd_ns = VG_DEFAULT_CP_CMD_NS;
    cfg->launch_ns = VG_DEFAULT_LAUNCH_NS;
    cfg->block_launch_ns = VG_DEFAULT_BLOCK_LAUNCH_NS;
    cfg->fence_ns = VG_DEFAULT_FENCE_NS;
    cfg->instr_budget = VG_DEFAULT_INSTR_BUDGET;
}

struct cfg_range {
    const char *name; /* the QOM property */
    size_t offset;
    uint32_t min, max;
};

#define RANGE(field, prop, lo, hi)                                             \
    {                                                                          \
        prop, offsetof(struct vg_config, field), lo, hi                        \
    }

static const struct cfg_range cfg_ranges[] = {
    RANGE(gpus, "gpus", 1, VMGPU_MAX_GPUS),
    RANGE(sms, "sms", 1, VMGPU_MAX_SMS),
    RANGE(clock_khz, "clock-khz", 1000, 10000000),
    RANGE(local_mem_mb, "local-mem-mb", 1, 1024 * 1024),
    RANGE(issue_width, "issue-width", 1, 64),
    /* An SM must hold at least one block of the largest legal shape. */
    RANGE(sm_threads, "sm-threads", VMGPU_MAX_BLOCK_THREADS, 65536),
    RANGE(sm_regs, "sm-regs", 1024, 1u << 24),
    RANGE(sm_shared_kb, "sm-shared-kb", VMGPU_MAX_SHARED_BYTES / 1024, 4096),
    RANGE(sm_blocks, "sm-blocks", 1, 1024),
    RANGE(local_bw_mbps, "local-bw-mbps", 1, UINT32_MAX),
    RANGE(local_lat_ns, "local-lat-ns", 0, 10000000),
    RANGE(link_bw_mbps, "link-bw-mbps", 1, UINT32_MAX),
    RANGE(link_lat_ns, "link-lat-ns", 0, 10000000),
    RANGE(host_bw_mbps, "host-bw-mbps", 1, UINT32_MAX),
    RANGE(host_lat_ns, "host-lat-ns", 0, 10000000),
    RANGE(cp_cmd_ns, "cp-cmd-ns", 0, 10000000),
    RANGE(launch_ns, "launch-ns", 0, 10000000),
    RANGE(block_launch_ns, "block-launch-ns", 0, 10000000),
    RANGE(fence_ns, "fence-ns", 0, 10000000),
    RANGE(instr_budget, "instr-budget", 1, UINT32_MAX),
};

int vg_config_check(const struct vg_config *cfg, char *err, size_t errlen)
{
    size_t i;

    for (i = 0; i < sizeof(cfg_ranges) / sizeof(cfg_ranges[0]); i++) {
        const struct cfg_range *r = &cfg_ranges[i];
        uint32_t v;

        memcpy(&v, (const uint8_t *)cfg + r->offset, sizeof(v));
        if (v < r->min || v > r->max) {
            snprintf(err, errlen, "%s=%u out of range %u..%u", r->name, v,
                     r->min, r->max);
            return -1;
        }
    }
    if (cfg->sm_threads % VMGPU_WARP_SIZE) {
        snprintf(err, errlen, "sm-threads=%u is not a multiple of %u",
                 cfg->sm_threads, VMGPU_WARP_SIZE);
        return -1;
    }
    return 0;
}

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
static void gpu_regs_reset(struct vg_gpu *g, bool clock)
{
    uint64_t now = clock ? 0 : g->regs.now;

    memset(&g->regs, 0, sizeof(g->regs));
    g->regs.status = VMGPU_STATUS_IDLE;
    g->regs.now = now;
    vg_mmu_regs_reset(&g->mmu_regs);
    __atomic_store_n(&g->req, 0, __ATOMIC_RELAXED);
    g->mem_time = 0;
    g->clock_reset |= clock;
    __atomic_store_n(&g->abort, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&g->reset_gen, g->reset_gen + 1, __ATOMIC_RELEASE);
}

static void device_reset(struct vg_device *dev);
static void kick_gpus(struct vg_device *dev, uint32_t kicks);

/* Runner side: drop everything the GPU was doing (after a reset). */
static void gpu_drop(struct vg_device *dev, struct vg_gpu *g, bool clock)
{
    uint32_t s, i;

    vg_cp_reset(&g->cp);
    vg_wdist_reset(&g->wd);
    for (s = 0; s < dev->cfg.sms; s++) {
        g->sm[s].pipe.free_at = 0;
        for (i = 0; i < dev->cfg.sm_blocks; i++) {
            vg_storelog_discard(g->sm[s].slots[i].log);
            g->sm[s].slots[i].used = false;
        }
    }
    memset(g->chan, 0, sizeof(g->chan));
    if (clock) {
        vg_evq_clear(&g->evq);
    } else {
        vg_evq_drop(&g->evq); /* device time keeps running */
    }
    /* The roots come back from the (reset) registers at the next walk. */
    vg_mmu_invalidate(&g->mmu, ~0u);
    memset(g->cnt, 0, sizeof(g->cnt));
    g->tlb_misses_seen = g->mmu.misses;
    g->irq_out = false;
    g->pub_wait_value = false;
}

void vg_device_free(struct vg_device *dev)
{
    uint32_t i, s, b;

    if (!dev) {
        return;
    }
    for (i = 0; i < dev->cfg.gpus; i++) {
        struct vg_gpu *g = &dev->gpu[i];

        vg_cp_destroy(&g->cp);
        for (s = 0; s < dev->cfg.sms; s++) {
            if (!g->sm[s].slots) {
                continue;
            }
            for (b = 0; b < dev->cfg.sm_blocks; b++) {
                vg_storelog_free(g->sm[s].slots[b].log);
            }
            free(g->sm[s].slots);
        }
        vg_interp_free(g->interp);
        vg_evq_destroy(&g->evq);
        pthread_mutex_destroy(&g->reg_lock);
    }
    vg_trace_destroy(&dev->trace);
    pthread_mutex_destroy(&dev->trace_lock);
    free(dev);
}

struct vg_device *vg_device_new(const struct vg_config *cfg,
                                const struct vg_host *host)
{
    struct vg_device *dev;
    struct vg_wd_limits lim;
    char err[160];
    uint32_t i, s;

    if (vg_config_check(cfg, err, sizeof(err))) {
        return NULL;
    }
    dev = calloc(1, sizeof(*dev));
    if (!dev) {
        return NULL;
    }
    dev->cfg = *cfg;
    dev->host = *host;
    pthread_mutex_init(&dev->trace_lock, NULL);
    cost_from_config(&dev->cost, cfg);
    vg_trace_init(&dev->trace, &dev->host);
    lim.threads = cfg->sm_threads;
    lim.regs = cfg->sm_regs;
    lim.shared = cfg->sm_shared_kb * 1024;
    lim.blocks = cfg->sm_blocks;
    for (i = 0; i < cfg->gpus; i++) {
        struct vg_gpu *g = &dev->gpu[i];

        g->index = i;
        pthread_mutex_init(&g->reg_lock, NULL);
        g->mmu_regs.lock = &g->reg_lock;
        vg_mmu_init(&g->mmu, &dev->host, i, cfg->gpus);
        vg_mmu_attach(&g->mmu, &g->mmu_regs);
        g->interp = vg_interp_new();
        if (!g->interp || vg_evq_init(&g->evq) || vg_cp_init(&g->cp)) {
            dev->cfg.gpus = i + 1; /* free what this GPU has */
            goto fail;
        }
        vg_wdist_init(&g->wd, cfg->sms, &lim);
        for (s = 0; s < cfg->sms; s++) {
            g->sm[s].slots = calloc(cfg->sm_blocks, sizeof(*g->sm[s].slots));
            if (!g->sm[s].slots) {
                dev->cfg.gpus = i + 1;
                goto fail;
            }
        }
    }
    device_reset(dev); /* no runner to kick yet */
    return dev;
fail:
    vg_device_free(dev);
    return NULL;
}

static void device_reset(struct vg_device *dev)
{
    unsigned int i;

    pthread_mutex_lock(&dev->trace_lock);
    dev->scratch = 0;
    dev->trace_ctrl = 0;
    dev->trace_addr = 0;
    dev->trace_size = 0;
    dev->trace.dma_on = false;
    dev->trace.dma_written = 0;
    dev->trace.dma_dropped = 0;
    vg_trace_clear(&dev->trace);
    __atomic_store_n(&dev->trace_on, dev->trace.keep, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&dev->trace_lock);
    for (i = 0; i < dev->cfg.gpus; i++) {
        pthread_mutex_lock(&dev->gpu[i].reg_lock);
        gpu_regs_reset(&dev->gpu[i], true);
        pthread_mutex_unlock(&dev->gpu[i].reg_lock);
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

bool vg_gpu_regs_begin(struct vg_gpu *g)
{
    pthread_mutex_lock(&g->reg_lock);
    if (g->reset_gen != g->exec_gen) {
        pthread_mutex_unlock(&g->reg_lock);
        return false;
    }
    return true;
}

void vg_gpu_regs_end(struct vg_gpu *g)
{
    pthread_mutex_unlock(&g->reg_lock);
}

bool vg_gpu_stale(struct vg_gpu *g)
{
    return __atomic_load_n(&g->reset_gen, __ATOMIC_ACQUIRE) != g->exec_gen;
}

void vg_gpu_publish_wait(struct vg_gpu *g)
{
    if (!g->pub_wait_value) {
        if (vg_gpu_regs_begin(g)) {
            __atomic_store_n(&g->regs.wait_value, true, __ATOMIC_RELAXED);
            vg_gpu_regs_end(g);
        }
        g->pub_wait_value = true;
    }
    /* Pairs with the fence in vg_dev_memory_changed() (Dekker). */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void vg_dev_raise(struct vg_device *dev, struct vg_gpu *g, uint32_t bits)
{
    g->regs.int_status |= bits;
    vg_dev_trace(dev, g, VMGPU_TRACE_IRQ, VMGPU_TRACE_SM_NONE, g->evq.now,
                 g->evq.now, VMGPU_TRACE_NONE, VMGPU_TRACE_NONE, bits, 0, 0);
    if (bits & g->regs.int_mask) {
        g->irq_out = true;
    }
}

void vg_dev_trace(struct vg_device *dev, struct vg_gpu *g, uint8_t kind,
                  uint16_t sm, vg_time_t start, vg_time_t end,
                  uint32_t dispatch, uint32_t block, uint32_t aux,
                  uint64_t value, uint64_t value2)
{
    struct vmgpu_trace_record r;

    if (!__atomic_load_n(&dev->trace_on, __ATOMIC_RELAXED) || vg_gpu_stale(g)) {
        return;
    }
    memset(&r, 0, sizeof(r));
    r.start_ns = start / VG_PS_PER_NS;
    r.end_ns = end / VG_PS_PER_NS;
    r.seqno = g->cp.have_packet ? g->cp.entry.seqno : 0;
    r.kind = kind;
    r.gpu = (uint8_t)g->index;
    r.sm = sm;
    r.dispatch = dispatch;
    r.block = block;
    r.aux = aux;
    r.as_slot = g->cp.have_packet ? g->cp.entry.as_slot : 0;
    r.value = value;
    r.value2 = value2;
    pthread_mutex_lock(&dev->trace_lock);
    vg_trace_emit(&dev->trace, &r);
    pthread_mutex_unlock(&dev->trace_lock);
}

void vg_dev_event(struct vg_device *dev, struct vg_gpu *g, vg_time_t time,
                  uint32_t kind, uint32_t a, uint32_t b)
{
    /*
     * Out of host memory the event is lost and that GPU stops making
     * progress; there is nothing better to do without an event to run.
     */
    if (vg_evq_push(&g->evq, time, kind, g->index, g->exec_gen, a, b)) {
        fprintf(stderr, "vmgpu: event queue out of memory\n");
    }
}

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
            !__atomic_load_n(&h->regs.wait_value, __ATOMIC_RELAXED)) {
            continue;
        }
        pthread_mutex_lock(&h->reg_lock);
        if (h->regs.wait_value) {
            h->mem_time = t > h->mem_time ? t : h->mem_time;
            __atomic_store_n(&h->req, h->req | VG_REQ_MEM, __ATOMIC_RELEASE);
            kicks |= 1u << i;
        }
        pthread_mutex_unlock(&h->reg_lock);
    }
    return kicks;
}

void vg_dev_memory_changed(struct vg_device *dev, struct vg_gpu *g)
{
    if (dev->cfg.gpus > 1) {
        g->kick_out |= memory_changed(dev, g, g->evq.now);
    }
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

    pthread_mutex_lock(&g->reg_lock);
    asserted = g->regs.int_status & g->regs.int_mask;
    pthread_mutex_unlock(&g->reg_lock);
    if (asserted) {
        dev->host.raise_irq(dev->host.opaque, g->index);
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
        return VMGPU_ISA_VERSION;
    case VMGPU_REG_CAPS:
        return VMGPU_CAP_MMU | VMGPU_CAP_SYNC | VMGPU_CAP_TIMESTAMP |
               VMGPU_CAP_COPY | VMGPU_CAP_WAIT_VALUE | VMGPU_CAP_TRACE;
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
        return dev->trace.dma_written;
    case VMGPU_REG_TRACE_DROPPED:
        return dev->trace.dma_dropped;
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
            dev->trace.dma_addr = dev->trace_addr;
            dev->trace.dma_size = dev->trace_size;
            dev->trace.dma_written = 0;
            dev->trace.dma_dropped = 0;
        }
        dev->trace_ctrl = val & VMGPU_TRACE_ENABLE;
        dev->trace.dma_on = dev->trace_ctrl & VMGPU_TRACE_ENABLE;
        __atomic_store_n(&dev->trace_on, dev->trace.keep || dev->trace.dma_on,
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

/* reg_lock held */
static uint32_t gpu_read(struct vg_gpu *g, uint32_t off)
{
    struct vg_gpu_regs *r = &g->regs;
    uint64_t now_ns = r->now / VG_PS_PER_NS;
    unsigned int n;

    if (off >= VMGPU_GPU_AS_ROOT_LO(0) &&
        off < VMGPU_GPU_AS_ROOT_LO(VMGPU_AS_SLOTS)) {
        uint64_t root;

        n = (off - VMGPU_GPU_AS_ROOT_LO(0)) / 8;
        root = g->mmu_regs.root[n];
        return off & 4 ? root >> 32 : (uint32_t)root;
    }
    if (off >= VMGPU_GPU_CNT_BASE && off < VMGPU_GPU_CNT_LO(VMGPU_CNT_NUM)) {
        n = (off - VMGPU_GPU_CNT_BASE) / 8;
        if (off & 4) {
            return r->counter_hi_latch;
        }
        r->counter_hi_latch = r->counters[n] >> 32;
        return (uint32_t)r->counters[n];
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
        return (uint32_t)r->fence;
    case VMGPU_GPU_FENCE_HI:
        return r->fence >> 32;
    case VMGPU_GPU_INT_STATUS:
        return r->int_status;
    case VMGPU_GPU_INT_MASK:
        return r->int_mask;
    case VMGPU_GPU_CONTROL:
        return r->control;
    case VMGPU_GPU_STATUS:
        /* A doorbell the runner has not taken yet: not idle any more. */
        return g->req & VG_REQ_WAKE ? 0 : r->status;
    case VMGPU_GPU_TIMESTAMP_LO:
        return (uint32_t)now_ns;
    case VMGPU_GPU_TIMESTAMP_HI:
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
    __atomic_store_n(&g->req, g->req | req, __ATOMIC_RELEASE);
}

/* reg_lock held; returns ACT_* */
static uint32_t gpu_write(struct vg_gpu *g, uint32_t off, uint32_t val)
{
    struct vg_gpu_regs *r = &g->regs;
    uint32_t old;
    unsigned int n;

    if (off >= VMGPU_GPU_AS_ROOT_LO(0) &&
        off < VMGPU_GPU_AS_ROOT_LO(VMGPU_AS_SLOTS)) {
        uint64_t root;

        n = (off - VMGPU_GPU_AS_ROOT_LO(0)) / 8;
        root = g->mmu_regs.root[n];
        if (off & 4) {
            set_hi(&root, val);
        } else {
            set_lo(&root, val);
        }
        vg_mmu_regs_set_root(&g->mmu_regs, n, root);
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
            gpu_regs_reset(g, false);
            return ACT_KICK;
        }
        break;
    case VMGPU_GPU_MMU_INVALIDATE:
        vg_mmu_regs_invalidate(&g->mmu_regs, val);
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
        pthread_mutex_lock(&dev->trace_lock);
        val = global_read(dev, off);
        pthread_mutex_unlock(&dev->trace_lock);
    } else if (page <= dev->cfg.gpus) {
        struct vg_gpu *g = &dev->gpu[page - 1];

        pthread_mutex_lock(&g->reg_lock);
        val = gpu_read(g, off);
        pthread_mutex_unlock(&g->reg_lock);
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
        pthread_mutex_lock(&dev->trace_lock);
        global_write(dev, off, value);
        pthread_mutex_unlock(&dev->trace_lock);
        return;
    }
    if (page > dev->cfg.gpus) {
        return;
    }
    g = &dev->gpu[page - 1];
    pthread_mutex_lock(&g->reg_lock);
    act = gpu_write(g, off, value);
    pthread_mutex_unlock(&g->reg_lock);
    if (act & ACT_MEM) {
        kicks |= memory_changed(dev, g, 0);
    }
    if (act & ACT_KICK) {
        kicks |= 1u << g->index;
    }
    if (act & ACT_IRQ) {
        dev->host.raise_irq(dev->host.opaque, g->index);
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
    pthread_mutex_lock(&g->reg_lock);
    asserted = g->regs.int_status & g->regs.int_mask;
    pthread_mutex_unlock(&g->reg_lock);
    return asserted;
}

/* ------------------------------------------------------------------ */
/* Runners                                                              */
/* ------------------------------------------------------------------ */

static uint32_t cp_status(const struct vg_gpu *g)
{
    if (g->cp.state == VG_CP_HALTED) {
        return VMGPU_STATUS_HALTED;
    }
    if (g->cp.state == VG_CP_IDLE && !g->cp.have_packet) {
        return VMGPU_STATUS_IDLE;
    }
    return 0;
}

/*
 * Look at the register side: adopt a reset (drop the execution state),
 * then take the requests. Returns true if anything was taken.
 */
static bool gpu_sync(struct vg_device *dev, struct vg_gpu *g)
{
    bool adopt = false, clock = false;
    vg_time_t mem_time;
    uint32_t req;

    if (!vg_gpu_stale(g) && !__atomic_load_n(&g->req, __ATOMIC_ACQUIRE)) {
        return false;
    }
    pthread_mutex_lock(&g->reg_lock);
    if (g->reset_gen != g->exec_gen) {
        adopt = true;
        clock = g->clock_reset;
        g->clock_reset = false;
        g->exec_gen = g->reset_gen;
        __atomic_store_n(&g->abort, 0, __ATOMIC_RELAXED);
    }
    req = g->req;
    __atomic_store_n(&g->req, 0, __ATOMIC_RELAXED);
    mem_time = g->mem_time;
    g->mem_time = 0;
    if (req & VG_REQ_WAKE) {
        g->regs.status = 0; /* busy until the runner says otherwise */
    }
    pthread_mutex_unlock(&g->reg_lock);

    if (adopt) {
        gpu_drop(dev, g, clock);
    }
    if (req & VG_REQ_MEM) {
        vg_cp_memory_poll(dev, g, mem_time);
    }
    if (req & VG_REQ_WAKE) {
        vg_cp_wake(dev, g);
    }
    if ((req & VG_REQ_ACK) && g->cp.state == VG_CP_WAIT_ACK) {
        vg_cp_wake(dev, g);
    }
    return true;
}

/*
 * After an event (or requests): publish counters, status and clock in
 * one register update, then send the interrupt and kicks, unlocked.
 */
static void gpu_commit(struct vg_device *dev, struct vg_gpu *g)
{
    uint32_t n, kicks;

    g->cnt[VMGPU_CNT_TLB_MISSES] += g->mmu.misses - g->tlb_misses_seen;
    g->tlb_misses_seen = g->mmu.misses;
    if (vg_gpu_regs_begin(g)) {
        for (n = 0; n < VMGPU_CNT_NUM; n++) {
            g->regs.counters[n] += g->cnt[n];
        }
        g->regs.status = cp_status(g);
        g->pub_wait_value = g->cp.state == VG_CP_WAIT_VALUE;
        __atomic_store_n(&g->regs.wait_value, g->pub_wait_value,
                         __ATOMIC_RELAXED);
        g->regs.now = g->evq.now;
        vg_gpu_regs_end(g);
    }
    memset(g->cnt, 0, sizeof(g->cnt));
    if (g->irq_out) {
        g->irq_out = false;
        raise_if_asserted(dev, g);
    }
    kicks = g->kick_out;
    g->kick_out = 0;
    kick_gpus(dev, kicks);
}

static void run_event(struct vg_device *dev, struct vg_gpu *g,
                      const struct vg_event *ev)
{
    if (ev->gen != g->exec_gen) {
        return; /* queued before a reset of that GPU */
    }
    switch (ev->kind) {
    case VG_EV_CP_STEP:
        vg_cp_step(dev, g);
        break;
    case VG_EV_DISPATCH_READY:
        vg_cp_dispatch_ready(dev, g, ev->a, ev->b);
        break;
    case VG_EV_BLOCK_DONE:
        vg_cp_block_done(dev, g, ev->a, ev->b);
        break;
    case VG_EV_COPY_DONE:
        vg_cp_copy_done(dev, g, ev->b);
        break;
    default:
        break;
    }
}

void vg_device_run_gpu(struct vg_device *dev, unsigned int gpu)
{
    struct vg_gpu *g;
    struct vg_event ev;
    bool more;

    if (gpu >= dev->cfg.gpus) {
        return;
    }
    g = &dev->gpu[gpu];
    do {
        gpu_sync(dev, g);
        more = vg_evq_pop(&g->evq, &ev);
        if (more) {
            run_event(dev, g, &ev);
        }
        gpu_commit(dev, g);
    } while (more);
}

/*
 * Every GPU from this thread: always the earliest event (by its GPU's
 * clock; ties go to the lower GPU), requests taken between two events,
 * so the same inputs give the same interleaving and the same trace.
 */
void vg_device_run(struct vg_device *dev)
{
    struct vg_gpu *next;
    struct vg_event ev;
    vg_time_t t, best = 0;
    uint32_t i;

    for (;;) {
        next = NULL;
        for (i = 0; i < dev->cfg.gpus; i++) {
            struct vg_gpu *g = &dev->gpu[i];

            if (gpu_sync(dev, g)) {
                gpu_commit(dev, g);
            }
            if (vg_evq_peek(&g->evq, &t) && (!next || t < best)) {
                next = g;
                best = t;
            }
        }
        if (!next) {
            break;
        }
        vg_evq_pop(&next->evq, &ev);
        run_event(dev, next, &ev);
        gpu_commit(dev, next);
    }
}

/* ------------------------------------------------------------------ */
/* Host-side helpers                                                    */
/* ------------------------------------------------------------------ */

void vg_device_trace_keep(struct vg_device *dev, bool keep)
{
    pthread_mutex_lock(&dev->trace_lock);
    dev->trace.keep = keep;
    __atomic_store_n(&dev->trace_on, keep || dev->trace.dma_on,
                     __ATOMIC_RELAXED);
    pthread_mutex_unlock(&dev->trace_lock);
}

const struct vmgpu_trace_record *vg_device_trace_records(struct vg_device *dev,
                                                         size_t *n)
{
    *n = dev->trace.len;
    return dev->trace.recs;
}

char *vg_device_trace_json(struct vg_device *dev, size_t *len)
{
    char *json;

    pthread_mutex_lock(&dev->trace_lock);
    json = vg_trace_json_string(dev->trace.recs, dev->trace.len, len);
    pthread_mutex_unlock(&dev->trace_lock);
    return json;
}

uint64_t vg_device_gpu_now_ns(struct vg_device *dev, unsigned int gpu)
{
    uint64_t now;

    if (gpu >= dev->cfg.gpus) {
        return 0;
    }
    pthread_mutex_lock(&dev->gpu[gpu].reg_lock);
    now = dev->gpu[gpu].regs.now / VG_PS_PER_NS;
    pthread_mutex_unlock(&dev->gpu[gpu].reg_lock);
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
    *hits = gpu < dev->cfg.gpus ? dev->gpu[gpu].mmu.hits : 0;
    *misses = gpu < dev->cfg.gpus ? dev->gpu[gpu].mmu.misses : 0;
}
