/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vmgpu tracepoints: the life of a packet (submit, ring, interrupt,
 * retire) and of errors and resets. Enable with
 * echo 1 > /sys/kernel/tracing/events/vmgpu/enable.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM vmgpu

#if !defined(_VMGPU_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _VMGPU_TRACE_H_

#include <linux/tracepoint.h>

TRACE_EVENT(vmgpu_submit,
	    TP_PROTO(u32 gpu, u64 client, u32 ctx, u32 bytes, u32 dispatches),
	    TP_ARGS(gpu, client, ctx, bytes, dispatches),
	    TP_STRUCT__entry(__field(u32, gpu)
			     __field(u64, client)
			     __field(u32, ctx)
			     __field(u32, bytes)
			     __field(u32, dispatches)),
	    TP_fast_assign(__entry->gpu = gpu;
			   __entry->client = client;
			   __entry->ctx = ctx;
			   __entry->bytes = bytes;
			   __entry->dispatches = dispatches;),
	    TP_printk("gpu=%u client=%llu ctx=%u bytes=%u dispatches=%u",
		      __entry->gpu, __entry->client, __entry->ctx,
		      __entry->bytes, __entry->dispatches)
);

TRACE_EVENT(vmgpu_ring_emit,
	    TP_PROTO(u32 gpu, u64 seqno, u32 slot, u32 tail),
	    TP_ARGS(gpu, seqno, slot, tail),
	    TP_STRUCT__entry(__field(u32, gpu)
			     __field(u64, seqno)
			     __field(u32, slot)
			     __field(u32, tail)),
	    TP_fast_assign(__entry->gpu = gpu;
			   __entry->seqno = seqno;
			   __entry->slot = slot;
			   __entry->tail = tail;),
	    TP_printk("gpu=%u seqno=%llu slot=%u tail=%u", __entry->gpu,
		      __entry->seqno, __entry->slot, __entry->tail)
);

TRACE_EVENT(vmgpu_irq,
	    TP_PROTO(u32 gpu, u32 status, u64 seqno),
	    TP_ARGS(gpu, status, seqno),
	    TP_STRUCT__entry(__field(u32, gpu)
			     __field(u32, status)
			     __field(u64, seqno)),
	    TP_fast_assign(__entry->gpu = gpu;
			   __entry->status = status;
			   __entry->seqno = seqno;),
	    TP_printk("gpu=%u status=%#x completed=%llu", __entry->gpu,
		      __entry->status, __entry->seqno)
);

TRACE_EVENT(vmgpu_retire,
	    TP_PROTO(u32 gpu, u64 seqno, u32 dispatches, int error),
	    TP_ARGS(gpu, seqno, dispatches, error),
	    TP_STRUCT__entry(__field(u32, gpu)
			     __field(u64, seqno)
			     __field(u32, dispatches)
			     __field(int, error)),
	    TP_fast_assign(__entry->gpu = gpu;
			   __entry->seqno = seqno;
			   __entry->dispatches = dispatches;
			   __entry->error = error;),
	    TP_printk("gpu=%u seqno=%llu dispatches=%u error=%d",
		      __entry->gpu, __entry->seqno, __entry->dispatches,
		      __entry->error)
);

TRACE_EVENT(vmgpu_error,
	    TP_PROTO(u32 gpu, u32 status, u32 code, u64 seqno, u32 dispatch,
		     u64 addr),
	    TP_ARGS(gpu, status, code, seqno, dispatch, addr),
	    TP_STRUCT__entry(__field(u32, gpu)
			     __field(u32, status)
			     __field(u32, code)
			     __field(u64, seqno)
			     __field(u32, dispatch)
			     __field(u64, addr)),
	    TP_fast_assign(__entry->gpu = gpu;
			   __entry->status = status;
			   __entry->code = code;
			   __entry->seqno = seqno;
			   __entry->dispatch = dispatch;
			   __entry->addr = addr;),
	    TP_printk("gpu=%u status=%#x code=%u seqno=%llu dispatch=%u addr=%#llx",
		      __entry->gpu, __entry->status, __entry->code,
		      __entry->seqno, __entry->dispatch, __entry->addr)
);

TRACE_EVENT(vmgpu_reset,
	    TP_PROTO(u32 gpu, u64 seqno),
	    TP_ARGS(gpu, seqno),
	    TP_STRUCT__entry(__field(u32, gpu)
			     __field(u64, seqno)),
	    TP_fast_assign(__entry->gpu = gpu;
			   __entry->seqno = seqno;),
	    TP_printk("gpu=%u hung seqno=%llu", __entry->gpu, __entry->seqno)
);

#endif /* _VMGPU_TRACE_H_ */

/* This part must be outside the multi-read protection. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE vmgpu_trace
#include <trace/define_trace.h>
