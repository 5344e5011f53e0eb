/* SPDX-License-Identifier: MIT */
/*
 * Device trace: per-command and per-block events in device time, kept as
 * struct vmgpu_trace_record (uapi/vmgpu_hw.h) so that the records a guest
 * fetches by DMA and the ones a host test collects are the same thing,
 * and one converter turns either into Chrome/Perfetto trace-event JSON.
 *
 * The converter half (track layout, vg_trace_json_*, the summary,
 * vg_trace_record_{encode,decode}) depends on nothing but vmgpu_hw.h and
 * libc, so host tools can link this file alone (or libvgcore.a) to convert
 * records fetched from a VM; trace_svg.c draws them.
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
 * The tracks of a timeline. A viewer draws the complete spans of one track
 * as a stack, so spans that overlap in time must not share one: each group
 * of spans (a GPU's packets, its commands, the blocks resident on one SM)
 * is split into lanes. The group's records, in (start, end, dispatch,
 * block, seqno, position) order, each take the lowest lane that is free at
 * their start (greedy interval partitioning: as few lanes as the most
 * spans alive at once). Instants (errors, interrupts) and dispatches go on
 * lane 0 of the GPU's CP group, which every GPU with records has.
 */
enum vg_trace_group {
    VG_TRACE_GROUP_CP,       /* packets, errors, interrupts, dispatches */
    VG_TRACE_GROUP_COMMANDS, /* commands */
    VG_TRACE_GROUP_SLOT,     /* TMD records of one task-table slot */
    VG_TRACE_GROUP_SM,       /* blocks of one SM */
};

struct vg_trace_track {
    uint8_t gpu;
    uint8_t group;           /* enum vg_trace_group */
    uint16_t sm;             /* VG_TRACE_GROUP_SM: SM; _SLOT: slot */
    uint32_t lane;
    uint32_t index;          /* among its GPU's tracks, from 0 (CP lane 0) */
};

struct vg_trace_layout {
    struct vg_trace_track *tracks;  /* by gpu, group, sm, lane */
    size_t ntracks;
    size_t *track_of;               /* per record: its index in tracks */
    /*
     * Per record that puts a task in a slot (vg_trace_slot_entry()): the
     * end of its stay, the slot's next TMD record in record order (the
     * task evicted, done or removed), or the trace's last end if none.
     */
    uint64_t *slot_end;
};

/* Returns 0, or -1 if out of memory. */
int vg_trace_layout_init(struct vg_trace_layout *l,
                         const struct vmgpu_trace_record *recs, size_t n);
void vg_trace_layout_destroy(struct vg_trace_layout *l);
/*
 * "CP", "CP commands", "slot 2", "SM 3 / lane 1"; lanes past 0 of CP
 * groups too.
 */
void vg_trace_track_name(const struct vg_trace_track *t, char *buf,
                         size_t len);
/*
 * A TMD record that puts a task in a task-table slot (TABLE, RESUMED):
 * it occupies the slot's track until the slot's next TMD record.
 */
bool vg_trace_slot_entry(const struct vmgpu_trace_record *r);
/* "pending", "table", "evicted", "resumed", "done", "removed" or "?". */
const char *vg_trace_tmd_state_name(uint32_t state);
/* The end of a record's span; never before its start. */
uint64_t vg_trace_end_ns(const struct vmgpu_trace_record *r);
/* "unmapped", "budget"... for VMGPU_FAULT_*; "?" for other values. */
const char *vg_trace_fault_name(uint32_t fault);

/*
 * Chrome/Perfetto trace-event JSON of @n records: one process per GPU, one
 * thread per track (pid = GPU, tid = track index, with thread_name and
 * sort-index metadata), so no two complete events on a thread overlap;
 * dispatches as async spans with an id of their own. Times in
 * microseconds with nanosecond decimals. Events come in record order. The
 * output depends only on the records, byte for byte. Returns 0, or -1 on
 * a write error or without memory.
 */
int vg_trace_json_write(const struct vmgpu_trace_record *recs, size_t n,
                        FILE *out);
/* The same into a malloc()ed NUL-terminated string; NULL if no memory. */
char *vg_trace_json_string(const struct vmgpu_trace_record *recs, size_t n,
                           size_t *len);
/* Convert a raw buffer of @bytes fetched from the device. */
int vg_trace_json_from_buffer(const void *buf, size_t bytes, FILE *out);
/*
 * The records of a raw buffer (whole records only), malloc()ed; NULL if
 * out of memory. *n is their number.
 */
struct vmgpu_trace_record *vg_trace_records_from_buffer(const void *buf,
                                                        size_t bytes,
                                                        size_t *n);

/* Per GPU totals of a trace; the GPU has records if records != 0. */
struct vg_trace_gpu_summary {
    size_t records;
    uint64_t first_ns, last_ns;     /* extent of its records */
    uint64_t busy_ns;               /* union of its packets' spans */
    uint64_t compute_ns;            /* union of its blocks' spans */
    uint32_t packets, dispatches, blocks, errors, irqs;
    /* TMD records: slot entries (TABLE, RESUMED), evictions, resumes. */
    uint32_t tmd_records, slot_entries, evictions, resumes;
};

struct vg_trace_summary {
    size_t records;
    uint64_t first_ns, last_ns;     /* the makespan: first start, last end */
    unsigned int gpus;              /* GPUs with records */
    struct vg_trace_gpu_summary gpu[256];
};

/* Returns 0, or -1 if out of memory. */
int vg_trace_summarize(const struct vmgpu_trace_record *recs, size_t n,
                       struct vg_trace_summary *s);
/*
 * The summary as a few lines of text: the makespan, and per GPU busy %
 * (its packets' union over the trace's makespan), the span of its records,
 * packets, dispatches, blocks, errors, interrupts; if there are TMD
 * records, per task-table slot its occupancy (time and share of the
 * makespan), the tasks that entered it, evictions from it and resumes
 * into it. Returns 0, or -1 on a write error or without memory.
 */
int vg_trace_summary_write(const struct vmgpu_trace_record *recs, size_t n,
                           FILE *out);

#endif
