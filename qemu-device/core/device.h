/* SPDX-License-Identifier: MIT */
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

#include "config.h"
#include "host.h"
#include "vmgpu_hw.h"

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
/*
 * With @on, each GPU runs its blocks' interpreter on a thread of its own
 * (an executor) while vg_device_run() goes on with the events that
 * cannot depend on them: the GPUs' blocks run in parallel and the run
 * gives the same results, timeline and trace as without (device-model.rst,
 * "Parallel and exact"). With runner threads (vg_device_run_gpu()) the
 * runners already are parallel: leave it off. Call while nothing runs;
 * -1 if a thread could not start (then none runs).
 */
int vg_device_executors(struct vg_device *dev, bool on);

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
