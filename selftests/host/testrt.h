/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A GPU back end of the runtime (<vmgpu/runtime.h>) on the host
 * tests' device model (testhost.h): the GPUs of one in-process vg_device,
 * one address space for all of them, each dispatch run to completion with
 * vg_device_run() between two TIMESTAMPs. For the host tests and the
 * benchmark; the runtime's scheduler and queue are the same code as with
 * render nodes. Memory is never given back (a bump allocator): enough
 * for a test program.
 */
#ifndef VMGPU_TESTRT_H
#define VMGPU_TESTRT_H

#include <vmgpu/runtime.h>

#include "testhost.h"

struct trt {
	struct testhost *th;
	struct th_as as;
	struct vg_config cfg;
	uint64_t cb_va[VMGPU_MAX_GPUS];
	uint64_t args_va[VMGPU_MAX_GPUS];
	uint64_t stamp_va[VMGPU_MAX_GPUS];
	uint64_t seqno[VMGPU_MAX_GPUS];
	uint64_t runs;			/* dispatches run, all GPUs */
	/*
	 * Timing outliers (the benchmark's): every @spike_period-th run
	 * takes @spike_factor times its device time (0: none); and on the
	 * GPUs of @spike_first_mask, the first @spike_first runs of each
	 * kernel and grid do (a cold start, as the outliers that corrupt
	 * performance models in the field).
	 */
	uint32_t spike_period, spike_factor;
	uint32_t spike_first_mask, spike_first;
	uint64_t spikes;
	struct {
		uint64_t code;
		uint32_t grid, runs;
	} seen[VMGPU_MAX_GPUS][32];
};

/* @gpus GPUs of @sms SMs (0: the model's default), @mem_mb of memory. */
struct trt *trt_new(unsigned int gpus, unsigned int sms, unsigned int mem_mb);
void trt_free(struct trt *t);
/* The back end to give vmgpu_rt_create(). */
struct vmgpu_rt_backend trt_backend(struct trt *t);

#endif
