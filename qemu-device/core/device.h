/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The vmgpu device model, independent of QEMU: N GPUs behind one register
 * file. The embedding (QEMU's glue in qemu-device/vmgpu.c, or a host test)
 * provides memory access and interrupts through struct vg_host and runs
 * the GPUs: either one runner thread per GPU, each calling
 * vg_device_run_gpu() for its GPU whenever it is kicked for it (QEMU), or
 * one thread calling vg_device_run() for all of them (host tests, tools:
 * deterministic).
 *
 * Threading: vg_device_mmio_read()/vg_device_mmio_write() may be called from
 * any thread concurrently with the runners and never wait for work to run:
 * at most for another thread's register access or update. Each GPU has at
 * most one runner at a time (vg_device_run() counts as the runner of every
 * GPU). The model never calls vg_host.raise_irq or vg_host.kick with a lock
 * of its own held. Documentation/device-model.rst, "Threads and locks".
 */
#ifndef VG_DEVICE_H
#define VG_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmgpu_hw.h"

struct vg_host {
    void *opaque;
    /* DMA at bus addresses; return 0, or -1 when the access failed. */
    int (*dma_read)(void *opaque, uint64_t addr, void *buf, uint64_t len);
    int (*dma_write)(void *opaque, uint64_t addr, const void *buf,
                     uint64_t len);
    /*
     * Host address of the 4 KiB page of RAM at bus address @addr (page
     * aligned), valid for the device's lifetime, or NULL when it is not
     * plain RAM. Lets the SMs access memory without a call per access.
     */
    uint8_t *(*map_page)(void *opaque, uint64_t addr, bool write);
    /*
     * Signal GPU @gpu's interrupt vector. From a runner or from an MMIO
     * write (unmasking a pending cause); never with a model lock held.
     */
    void (*raise_irq)(void *opaque, unsigned int gpu);
    /*
     * GPU @gpu has work (a doorbell, a reset, another GPU's write): ask
     * its runner to call vg_device_run_gpu(dev, @gpu) soon (or, with one
     * thread for all, vg_device_run()). Called from any thread.
     */
    void (*kick)(void *opaque, unsigned int gpu);
};

/*
 * Everything tunable about the model. QEMU exposes each field as a QOM
 * property of the same name; Documentation/device-model.rst gives the
 * defaults and where they come from.
 */
struct vg_config {
    uint32_t gpus;         /* 1..VMGPU_MAX_GPUS */
    uint32_t sms;          /* SMs per GPU, 1..VMGPU_MAX_SMS */
    uint32_t clock_khz;    /* SM clock */
    uint32_t local_mem_mb; /* modelled local memory per GPU */
    /* SM resources (work distributor capacity). */
    uint32_t issue_width;  /* warp instructions per cycle per SM */
    uint32_t sm_threads;   /* resident threads per SM */
    uint32_t sm_regs;      /* 32-bit registers per SM */
    uint32_t sm_shared_kb; /* shared memory per SM, KiB */
    uint32_t sm_blocks;    /* resident blocks per SM */
    /* Memory system, priced per access by page location. */
    uint32_t local_bw_mbps; /* GPU's own memory, MB/s */
    uint32_t local_lat_ns;
    uint32_t link_bw_mbps; /* GPU<->GPU link, per GPU, MB/s */
    uint32_t link_lat_ns;
    uint32_t host_bw_mbps; /* host bus, per GPU, MB/s */
    uint32_t host_lat_ns;
    /* Fixed costs. */
    uint32_t cp_cmd_ns;       /* command processor, per command */
    uint32_t launch_ns;       /* dispatch hand-off to first block */
    uint32_t block_launch_ns; /* per block, SM setup */
    uint32_t fence_ns;        /* fence write + interrupt */
    uint32_t instr_budget;    /* default warp instrs per dispatch */
};

#define VG_DEFAULT_GPUS            1
#define VG_DEFAULT_SMS             4
#define VG_DEFAULT_CLOCK_KHZ       1500000
#define VG_DEFAULT_LOCAL_MB        1024
#define VG_DEFAULT_ISSUE_WIDTH     4
#define VG_DEFAULT_SM_THREADS      2048
#define VG_DEFAULT_SM_REGS         65536
#define VG_DEFAULT_SM_SHARED_KB    164
#define VG_DEFAULT_SM_BLOCKS       32
#define VG_DEFAULT_LOCAL_BW        1555000 /* 1555 GB/s */
#define VG_DEFAULT_LOCAL_LAT       500
#define VG_DEFAULT_LINK_BW         300000 /* 300 GB/s */
#define VG_DEFAULT_LINK_LAT        1000
#define VG_DEFAULT_HOST_BW         25000 /* 25 GB/s */
#define VG_DEFAULT_HOST_LAT        1500
#define VG_DEFAULT_CP_CMD_NS       100
#define VG_DEFAULT_LAUNCH_NS       2000
#define VG_DEFAULT_BLOCK_LAUNCH_NS 100
#define VG_DEFAULT_FENCE_NS        1000
#define VG_DEFAULT_INSTR_BUDGET    (1u << 28)

void vg_config_defaults(struct vg_config *cfg);
/* 0 if @cfg is usable, else -1 with a message in @err. */
int vg_config_check(const struct vg_config *cfg, char *err, size_t errlen);

struct vg_device;

struct vg_device *vg_device_new(const struct vg_config *cfg,
                                const struct vg_host *host);
void vg_device_free(struct vg_device *dev);
/*
 * Back to power-on state: rings disabled, counters and registers cleared,
 * clocks at 0. Does not wait for running work: the runners drop it.
 */
void vg_device_reset(struct vg_device *dev);

/* 32-bit register access at @offset into BAR0. */
uint32_t vg_device_mmio_read(struct vg_device *dev, uint32_t offset);
void vg_device_mmio_write(struct vg_device *dev, uint32_t offset,
                          uint32_t value);
/*
 * Is an interrupt cause of GPU @gpu pending and unmasked? The QEMU glue
 * asks again under the big QEMU lock before it signals, so that an
 * interrupt decided before a RESET is not delivered after it.
 */
bool vg_device_irq_asserted(struct vg_device *dev, unsigned int gpu);

/* GPU @gpu's runner: process its work until it is idle or waiting. */
void vg_device_run_gpu(struct vg_device *dev, unsigned int gpu);
/*
 * All GPUs from the calling thread, until every GPU is idle or waiting:
 * events in (time, GPU) order, so the run is deterministic.
 */
void vg_device_run(struct vg_device *dev);

/* ---- For host tests and host tools (not used by the QEMU glue) ---- */

/* Keep every trace record in memory (off by default). */
void vg_device_trace_keep(struct vg_device *dev, bool keep);
/* The records kept so far, in event order; valid until the next run. */
const struct vmgpu_trace_record *vg_device_trace_records(struct vg_device *dev,
                                                         size_t *n);
/* Kept records as Chrome/Perfetto JSON (malloc()ed), NULL if no memory. */
char *vg_device_trace_json(struct vg_device *dev, size_t *len);
/* Device time in ns: the latest of the GPUs' clocks. */
uint64_t vg_device_now_ns(struct vg_device *dev);
/* GPU @gpu's clock in ns (its TIMESTAMP register). */
uint64_t vg_device_gpu_now_ns(struct vg_device *dev, unsigned int gpu);
/* TLB statistics of one GPU (read while its runner is not running). */
void vg_device_tlb_stats(struct vg_device *dev, unsigned int gpu,
                         uint64_t *hits, uint64_t *misses);

#endif
