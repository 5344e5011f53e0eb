/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Device trace: per-command and per-block events in device time, kept as
 * struct vmgpu_trace_record (uapi/vmgpu_hw.h) so that the records a guest
 * fetches by DMA and the ones a host test collects are the same thing,
 * and one converter turns either into Chrome/Perfetto trace-event JSON.
 *
 * The converter half (vg_trace_json_*, vg_trace_record_{encode,decode})
 * depends on nothing but vmgpu_hw.h and libc, so host tools can link this
 * file alone (or libvgcore.a) to convert records fetched from a VM.
 */
#ifndef VG_TRACE_H
#define VG_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vmgpu_hw.h"

struct vg_host;

/* Where the device's records go. Used by the device thread only. */
struct vg_trace {
    /* In-memory copy for host tests (vg_device_trace_keep()). */
    bool keep;
    struct vmgpu_trace_record *recs;
    size_t len, cap;
    /* DMA sink, mirrored from the VMGPU_REG_TRACE_* registers. */
    bool dma_on;
    uint64_t dma_addr;
    uint32_t dma_size, dma_written, dma_dropped;
    const struct vg_host *host;
};

void vg_trace_init(struct vg_trace *t, const struct vg_host *host);
void vg_trace_destroy(struct vg_trace *t);
/* Forget the in-memory records (the DMA sink is left alone). */
void vg_trace_clear(struct vg_trace *t);
/* Record one event: appended in memory if kept, DMAed if enabled. */
void vg_trace_emit(struct vg_trace *t, const struct vmgpu_trace_record *r);

/* Little-endian wire format of one record (VMGPU_TRACE_RECORD_SIZE). */
void vg_trace_record_encode(const struct vmgpu_trace_record *r,
                            uint8_t out[VMGPU_TRACE_RECORD_SIZE]);
void vg_trace_record_decode(const uint8_t in[VMGPU_TRACE_RECORD_SIZE],
                            struct vmgpu_trace_record *r);

/*
 * Chrome/Perfetto trace-event JSON of @n records: one process per GPU,
 * thread 0 "CP" (commands, packets, errors, interrupts), thread 1 + s
 * "SM s" (blocks), dispatches as async spans. Times in microseconds with
 * nanosecond decimals. The output depends only on the records, byte for
 * byte. Returns 0, or -1 on a write error.
 */
int vg_trace_json_write(const struct vmgpu_trace_record *recs, size_t n,
                        FILE *out);
/* The same into a malloc()ed NUL-terminated string; NULL if no memory. */
char *vg_trace_json_string(const struct vmgpu_trace_record *recs, size_t n,
                           size_t *len);
/* Convert a raw buffer of @bytes fetched from the device. */
int vg_trace_json_from_buffer(const void *buf, size_t bytes, FILE *out);

#endif
