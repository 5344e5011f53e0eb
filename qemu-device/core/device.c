// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmgpu device model: the register file, the per-GPU register pages and
 * the event loop that drives the command processors and SMs of all GPUs
 * on one virtual timeline.
 *
 * Locking (model.h): one mutex protects everything. An MMIO access holds
 * it for that access; the event loop holds it for one event at a time, so
 * register writes (doorbells, acknowledgements, resets) interleave with
 * the model between events. Interrupts found while holding the lock are
 * collected in irq_pending and raised after unlocking, because the QEMU
 * glue takes the big QEMU lock in raise_irq while vCPU threads hold it
 * around their MMIO calls.
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

/* Back to power-on state; the caller holds the lock. */
static void gpu_reset_locked(struct vg_device *dev, struct vg_gpu *g)
{
    uint32_t s, i;

    g->gen++; /* its queued events are now stale */
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
    memset(&g->regs, 0, sizeof(g->regs));
    vg_mmu_init(&g->mmu, &dev->host, g->index, dev->cfg.gpus);
    __atomic_store_n(&g->abort, 0, __ATOMIC_RELAXED);
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
    }
    vg_interp_free(dev->interp);
    vg_evq_destroy(&dev->evq);
    vg_trace_destroy(&dev->trace);
    pthread_mutex_destroy(&dev->lock);
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
    pthread_mutex_init(&dev->lock, NULL);
    cost_from_config(&dev->cost, cfg);
    vg_trace_init(&dev->trace, &dev->host);
    lim.threads = cfg->sm_threads;
    lim.regs = cfg->sm_regs;
    lim.shared = cfg->sm_shared_kb * 1024;
    lim.blocks = cfg->sm_blocks;
    dev->interp = vg_interp_new();
    if (!dev->interp || vg_evq_init(&dev->evq)) {
        goto fail;
    }
    for (i = 0; i < cfg->gpus; i++) {
        struct vg_gpu *g = &dev->gpu[i];

        g->index = i;
        if (vg_cp_init(&g->cp)) {
            goto fail;
        }
        vg_wdist_init(&g->wd, cfg->sms, &lim);
        for (s = 0; s < cfg->sms; s++) {
            g->sm[s].slots = calloc(cfg->sm_blocks, sizeof(*g->sm[s].slots));
            if (!g->sm[s].slots) {
                goto fail;
            }
        }
    }
    vg_device_reset(dev);
    return dev;
fail:
    vg_device_free(dev);
    return NULL;
}

void vg_device_reset(struct vg_device *dev)
{
    unsigned int i;

    for (i = 0; i < dev->cfg.gpus; i++) {
        __atomic_store_n(&dev->gpu[i].abort, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_lock(&dev->lock);
    dev->scratch = 0;
    dev->trace_ctrl = 0;
    dev->trace_addr = 0;
    dev->trace_size = 0;
    dev->trace.dma_on = false;
    dev->trace.dma_written = 0;
    dev->trace.dma_dropped = 0;
    vg_trace_clear(&dev->trace);
    for (i = 0; i < dev->cfg.gpus; i++) {
        gpu_reset_locked(dev, &dev->gpu[i]);
    }
    vg_evq_clear(&dev->evq);
    dev->irq_pending = 0;
    pthread_mutex_unlock(&dev->lock);
}

/* ------------------------------------------------------------------ */
/* Helpers for the model (lock held)                                    */
/* ------------------------------------------------------------------ */

void vg_dev_raise(struct vg_device *dev, struct vg_gpu *g, uint32_t bits)
{
    g->regs.int_status |= bits;
    vg_dev_trace(dev, g, VMGPU_TRACE_IRQ, VMGPU_TRACE_SM_NONE, dev->evq.now,
                 dev->evq.now, VMGPU_TRACE_NONE, VMGPU_TRACE_NONE, bits, 0, 0);
    if (bits & g->regs.int_mask) {
        dev->irq_pending |= 1u << g->index;
    }
}

void vg_dev_trace(struct vg_device *dev, struct vg_gpu *g, uint8_t kind,
                  uint16_t sm, vg_time_t start, vg_time_t end,
                  uint32_t dispatch, uint32_t block, uint32_t aux,
                  uint64_t value, uint64_t value2)
{
    struct vmgpu_trace_record r;

    if (!dev->trace.keep && !dev->trace.dma_on) {
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
    vg_trace_emit(&dev->trace, &r);
}

void vg_dev_event(struct vg_device *dev, struct vg_gpu *g, vg_time_t time,
                  uint32_t kind, uint32_t a, uint32_t b)
{
    /*
     * Out of host memory the event is lost and that GPU stops making
     * progress; there is nothing better to do without an event to run.
     */
    if (vg_evq_push(&dev->evq, time, kind, g->index, g->gen, a, b)) {
        fprintf(stderr, "vmgpu: event queue out of memory\n");
    }
}

/* Raise the interrupts collected under the lock; call unlocked. */
static void flush_irqs(struct vg_device *dev, uint32_t pending)
{
    uint32_t i;

    for (i = 0; i < dev->cfg.gpus; i++) {
        if (pending & (1u << i)) {
            dev->host.raise_irq(dev->host.opaque, i);
        }
    }
}

static uint32_t take_irqs(struct vg_device *dev)
{
    uint32_t pending = dev->irq_pending;

    dev->irq_pending = 0;
    return pending;
}

/* ------------------------------------------------------------------ */
/* Registers                                                            */
/* ------------------------------------------------------------------ */

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

static uint32_t gpu_status(const struct vg_gpu *g)
{
    uint32_t st = 0;

    if (g->cp.state == VG_CP_HALTED) {
        st |= VMGPU_STATUS_HALTED;
    } else if (g->cp.state == VG_CP_IDLE && !g->cp.have_packet) {
        st |= VMGPU_STATUS_IDLE;
    }
    return st;
}

static uint32_t gpu_read(struct vg_device *dev, struct vg_gpu *g, uint32_t off)
{
    struct vg_gpu_regs *r = &g->regs;
    uint64_t now_ns = dev->evq.now / VG_PS_PER_NS;
    unsigned int n;

    if (off >= VMGPU_GPU_AS_ROOT_LO(0) &&
        off < VMGPU_GPU_AS_ROOT_LO(VMGPU_AS_SLOTS)) {
        n = (off - VMGPU_GPU_AS_ROOT_LO(0)) / 8;
        return off & 4 ? r->as_root[n] >> 32 : (uint32_t)r->as_root[n];
    }
    if (off >= VMGPU_GPU_CNT_BASE && off < VMGPU_GPU_CNT_LO(VMGPU_CNT_NUM)) {
        n = (off - VMGPU_GPU_CNT_BASE) / 8;
        if (off & 4) {
            return r->counter_hi_latch;
        }
        if (n == VMGPU_CNT_TLB_MISSES) {
            r->counters[n] = g->mmu.misses;
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
        return gpu_status(g);
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

/* Returns true when the embedding should be kicked. */
static bool gpu_write(struct vg_device *dev, struct vg_gpu *g, uint32_t off,
                      uint32_t val)
{
    struct vg_gpu_regs *r = &g->regs;
    uint32_t old;
    unsigned int n;

    if (off >= VMGPU_GPU_AS_ROOT_LO(0) &&
        off < VMGPU_GPU_AS_ROOT_LO(VMGPU_AS_SLOTS)) {
        n = (off - VMGPU_GPU_AS_ROOT_LO(0)) / 8;
        if (off & 4) {
            set_hi(&r->as_root[n], val);
        } else {
            set_lo(&r->as_root[n], val);
        }
        vg_mmu_set_root(&g->mmu, n, r->as_root[n]);
        return false;
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
        vg_cp_memory_changed(dev);
        vg_cp_wake(dev, g);
        return true;
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
        if (r->int_status & val & ~old) {
            dev->irq_pending |= 1u << g->index;
        }
        break;
    case VMGPU_GPU_INT_ACK:
        old = r->int_status;
        r->int_status &= ~val;
        if ((old & VMGPU_INT_ERROR_MASK) &&
            !(r->int_status & VMGPU_INT_ERROR_MASK) &&
            g->cp.state == VG_CP_WAIT_ACK) {
            vg_cp_wake(dev, g);
            return true;
        }
        break;
    case VMGPU_GPU_CONTROL:
        old = r->control;
        r->control = val & VMGPU_CTRL_ENABLE;
        if (r->control & ~old) {
            vg_cp_wake(dev, g);
            return true;
        }
        break;
    case VMGPU_GPU_RESET:
        if (val & 1) {
            gpu_reset_locked(dev, g);
        }
        break;
    case VMGPU_GPU_MMU_INVALIDATE:
        vg_mmu_invalidate(&g->mmu, val);
        break;
    default:
        break;
    }
    return false;
}

uint32_t vg_device_mmio_read(struct vg_device *dev, uint32_t offset)
{
    uint32_t page = offset / VMGPU_REG_PAGE_SIZE;
    uint32_t off = offset % VMGPU_REG_PAGE_SIZE;
    uint32_t val = 0;

    pthread_mutex_lock(&dev->lock);
    if (page == 0) {
        val = global_read(dev, off);
    } else if (page <= dev->cfg.gpus) {
        val = gpu_read(dev, &dev->gpu[page - 1], off);
    }
    pthread_mutex_unlock(&dev->lock);
    return val;
}

void vg_device_mmio_write(struct vg_device *dev, uint32_t offset,
                          uint32_t value)
{
    uint32_t page = offset / VMGPU_REG_PAGE_SIZE;
    uint32_t off = offset % VMGPU_REG_PAGE_SIZE;
    uint32_t irqs;
    bool kick = false;

    /*
     * A reset must not wait for a runaway block to spend its budget while
     * the device thread holds the lock: tell the interpreter to stop first.
     */
    if (page >= 1 && page <= dev->cfg.gpus && off == VMGPU_GPU_RESET &&
        (value & 1)) {
        __atomic_store_n(&dev->gpu[page - 1].abort, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_lock(&dev->lock);
    if (page == 0) {
        global_write(dev, off, value);
    } else if (page <= dev->cfg.gpus) {
        kick = gpu_write(dev, &dev->gpu[page - 1], off, value);
    }
    irqs = take_irqs(dev);
    pthread_mutex_unlock(&dev->lock);
    flush_irqs(dev, irqs);
    if (kick && dev->host.kick) {
        dev->host.kick(dev->host.opaque);
    }
}

/* ------------------------------------------------------------------ */
/* Event loop                                                           */
/* ------------------------------------------------------------------ */

static void run_event(struct vg_device *dev, const struct vg_event *ev)
{
    struct vg_gpu *g;

    if (ev->gpu >= dev->cfg.gpus) {
        return;
    }
    g = &dev->gpu[ev->gpu];
    if (ev->gen != g->gen) {
        return; /* queued before a reset of that GPU */
    }
    /*
     * A reset of this GPU is waiting for the lock: whatever its events
     * would do (such as report the block the abort just stopped as a
     * fault and write the fence) the reset is about to undo.
     */
    if (__atomic_load_n(&g->abort, __ATOMIC_RELAXED)) {
        return;
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

void vg_device_run(struct vg_device *dev)
{
    struct vg_event ev;
    uint32_t irqs;
    bool more;

    do {
        pthread_mutex_lock(&dev->lock);
        more = vg_evq_pop(&dev->evq, &ev);
        if (more) {
            run_event(dev, &ev);
        }
        irqs = take_irqs(dev);
        pthread_mutex_unlock(&dev->lock);
        flush_irqs(dev, irqs);
    } while (more);
}

/* ------------------------------------------------------------------ */
/* Host-side helpers                                                    */
/* ------------------------------------------------------------------ */

void vg_device_trace_keep(struct vg_device *dev, bool keep)
{
    pthread_mutex_lock(&dev->lock);
    dev->trace.keep = keep;
    pthread_mutex_unlock(&dev->lock);
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

    pthread_mutex_lock(&dev->lock);
    json = vg_trace_json_string(dev->trace.recs, dev->trace.len, len);
    pthread_mutex_unlock(&dev->lock);
    return json;
}

uint64_t vg_device_now_ns(struct vg_device *dev)
{
    uint64_t now;

    pthread_mutex_lock(&dev->lock);
    now = dev->evq.now / VG_PS_PER_NS;
    pthread_mutex_unlock(&dev->lock);
    return now;
}

void vg_device_tlb_stats(struct vg_device *dev, unsigned int gpu,
                         uint64_t *hits, uint64_t *misses)
{
    pthread_mutex_lock(&dev->lock);
    *hits = gpu < dev->cfg.gpus ? dev->gpu[gpu].mmu.hits : 0;
    *misses = gpu < dev->cfg.gpus ? dev->gpu[gpu].mmu.misses : 0;
    pthread_mutex_unlock(&dev->lock);
}
