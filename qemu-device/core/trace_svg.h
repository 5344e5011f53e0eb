/* SPDX-License-Identifier: MIT */
/*
 * A picture of a device trace: an SVG timeline drawn from the same
 * records and the same tracks (trace.h) as the JSON, with nothing but libc,
 * so it can be made inside a VM's initramfs as well as on the host.
 */
#ifndef VG_TRACE_SVG_H
#define VG_TRACE_SVG_H

#include <stddef.h>
#include <stdio.h>

#include "trace.h"

/*
 * An SVG of @n records: a time axis in device time, per GPU a CP lane
 * (packet spans, interrupt and error marks), a band of task-table slot
 * rows (each task's stay coloured by dispatch index, dashed when it
 * resumed after an eviction, red eviction marks) and per SM its residency
 * lanes with one rectangle per block, coloured by dispatch index. Byte for
 * byte a function of the records. Returns 0, or -1 on a write error or
 * without memory.
 */
int vg_trace_svg_write(const struct vmgpu_trace_record *recs, size_t n,
                       FILE *out);

#endif
