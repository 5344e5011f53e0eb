/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * vmgpu DRM uAPI: the ioctls of the vmgpu render node.
 *
 * Rules every ioctl follows: fixed-width fields, pointers carried as __u64,
 * explicit padding that must be zero, a flags field whose unknown bits are
 * rejected with -EINVAL. DRM_VMGPU_PARAM_UAPI_VERSION tells user space which
 * revision of this file the running driver implements.
 */
#ifndef _VMGPU_DRM_H_
#define _VMGPU_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* Name the driver registers with DRM; libdrm finds the device by it. */
#define DRM_VMGPU_DRIVER_NAME		"vmgpu"

/* Bumped whenever an ioctl or parameter is added. */
#define DRM_VMGPU_UAPI_VERSION		5

#define DRM_VMGPU_GET_PARAM		0x00
#define DRM_VMGPU_BO_CREATE		0x01
#define DRM_VMGPU_BO_MMAP_OFFSET	0x02
#define DRM_VMGPU_BO_INFO		0x03
#define DRM_VMGPU_CTX_CREATE		0x04
#define DRM_VMGPU_CTX_DESTROY		0x05
#define DRM_VMGPU_CTX_QUERY		0x06
#define DRM_VMGPU_SUBMIT		0x07
#define DRM_VMGPU_WD_POLICY		0x08
#define DRM_VMGPU_BO_PLACE		0x09

/**
 * enum drm_vmgpu_param - what DRM_IOCTL_VMGPU_GET_PARAM can report
 *
 * @DRM_VMGPU_PARAM_UAPI_VERSION: DRM_VMGPU_UAPI_VERSION of the driver.
 * @DRM_VMGPU_PARAM_HW_VERSION: the device's interface version (major << 16 |
 *	minor), see uapi/vmgpu_hw.h.
 * @DRM_VMGPU_PARAM_NUM_GPUS: number of GPUs behind this render node.
 * @DRM_VMGPU_PARAM_SMS_PER_GPU: streaming multiprocessors per GPU.
 * @DRM_VMGPU_PARAM_ISA_VERSION: instruction set version the GPUs run.
 * @DRM_VMGPU_PARAM_CAPS: VMGPU_CAP_* bits of the device.
 * @DRM_VMGPU_PARAM_WARP_SIZE: threads per warp.
 * @DRM_VMGPU_PARAM_CLOCK_KHZ: SM clock of the device's timing model.
 * @DRM_VMGPU_PARAM_LOCAL_MEM_MB: modelled local memory per GPU.
 * @DRM_VMGPU_PARAM_CMDBUF_MAX_BYTES: largest command buffer a submit takes
 *	(the device's limit); larger is -E2BIG.
 * @DRM_VMGPU_PARAM_MAX_DISPATCHES: most DISPATCH commands in one packet
 *	(the device's limit); more is -E2BIG.
 * @DRM_VMGPU_PARAM_AS_SLOTS: address-space slots per GPU.
 * @DRM_VMGPU_PARAM_RING_ENTRIES: ring entries per GPU the driver uses.
 * @DRM_VMGPU_PARAM_INFLIGHT_PACKETS: most packets the driver keeps on one
 *	GPU's ring at once; more wait in the scheduler.
 * @DRM_VMGPU_PARAM_MAX_SUBMIT_BOS: most buffers one submit may list.
 * @DRM_VMGPU_PARAM_MAX_SUBMIT_SYNCS: most in (or out) syncobjs per submit.
 * @DRM_VMGPU_PARAM_MAX_BO_SIZE: largest buffer object, in bytes.
 * @DRM_VMGPU_PARAM_JOB_TIMEOUT_MS: a packet running longer is declared hung:
 *	its context is banned and its GPU reset.
 * @DRM_VMGPU_PARAM_VA_START: lowest GPU virtual address the driver hands
 *	out.
 * @DRM_VMGPU_PARAM_VA_END: one past the highest GPU virtual address.
 * @DRM_VMGPU_PARAM_MAX_USER_INSTR_BUDGET: largest per-dispatch instruction
 *	budget (SET_STATE VMGPU_STATE_INSTR_BUDGET, in warp instructions) a
 *	process without CAP_SYS_NICE may set; a larger one is -EACCES at
 *	submit. Since uAPI version 3.
 * @DRM_VMGPU_PARAM_MEM_LIMIT: bytes of buffer memory all files of the
 *	device together may hold (module parameter mem_limit_mb); a
 *	BO_CREATE or CREATE_DUMB past it is -ENOMEM. Since uAPI version 3.
 * @DRM_VMGPU_PARAM_MEM_USED: bytes of buffer memory held now, command
 *	buffers included. Since uAPI version 3.
 * @DRM_VMGPU_PARAM_WD_MODE: the work distributor's CTA issue mode of every
 *	GPU: byte g of the value is GPU g's DRM_VMGPU_WD_MODE_*. Since uAPI
 *	version 4.
 * @DRM_VMGPU_PARAM_WD_TABLE_SLOTS: the work distributor's task-table slots
 *	of every GPU: byte g of the value is GPU g's (1..128). Since uAPI
 *	version 4.
 * @DRM_VMGPU_PARAM_COUNT: number of parameters; not itself a parameter.
 */
enum drm_vmgpu_param {
	DRM_VMGPU_PARAM_UAPI_VERSION = 0,
	DRM_VMGPU_PARAM_HW_VERSION = 1,
	DRM_VMGPU_PARAM_NUM_GPUS = 2,
	DRM_VMGPU_PARAM_SMS_PER_GPU = 3,
	DRM_VMGPU_PARAM_ISA_VERSION = 4,
	DRM_VMGPU_PARAM_CAPS = 5,
	DRM_VMGPU_PARAM_WARP_SIZE = 6,
	DRM_VMGPU_PARAM_CLOCK_KHZ = 7,
	DRM_VMGPU_PARAM_LOCAL_MEM_MB = 8,
	DRM_VMGPU_PARAM_CMDBUF_MAX_BYTES = 9,
	DRM_VMGPU_PARAM_MAX_DISPATCHES = 10,
	DRM_VMGPU_PARAM_AS_SLOTS = 11,
	DRM_VMGPU_PARAM_RING_ENTRIES = 12,
	DRM_VMGPU_PARAM_INFLIGHT_PACKETS = 13,
	DRM_VMGPU_PARAM_MAX_SUBMIT_BOS = 14,
	DRM_VMGPU_PARAM_MAX_SUBMIT_SYNCS = 15,
	DRM_VMGPU_PARAM_MAX_BO_SIZE = 16,
	DRM_VMGPU_PARAM_JOB_TIMEOUT_MS = 17,
	DRM_VMGPU_PARAM_VA_START = 18,
	DRM_VMGPU_PARAM_VA_END = 19,
	DRM_VMGPU_PARAM_MAX_USER_INSTR_BUDGET = 20,
	DRM_VMGPU_PARAM_MEM_LIMIT = 21,
	DRM_VMGPU_PARAM_MEM_USED = 22,
	DRM_VMGPU_PARAM_WD_MODE = 23,
	DRM_VMGPU_PARAM_WD_TABLE_SLOTS = 24,
	DRM_VMGPU_PARAM_COUNT
};

/**
 * struct drm_vmgpu_get_param - argument of DRM_IOCTL_VMGPU_GET_PARAM
 *
 * @param: one of enum drm_vmgpu_param; anything else is -EINVAL.
 * @pad: must be zero.
 * @value: filled in by the driver.
 */
struct drm_vmgpu_get_param {
	__u32 param;
	__u32 pad;
	__u64 value;
};

/*
 * Buffer object flags (struct drm_vmgpu_bo_create.flags).
 * DRM_VMGPU_BO_GPU_READ_ONLY: the GPU may read but not write the buffer.
 */
#define DRM_VMGPU_BO_GPU_READ_ONLY	(1u << 0)
#define DRM_VMGPU_BO_FLAGS_ALL		DRM_VMGPU_BO_GPU_READ_ONLY

/* Placement: system memory, or the local memory of GPU k. */
#define DRM_VMGPU_PLACEMENT_SYSTEM	0
#define DRM_VMGPU_PLACEMENT_GPU(k)	(1 + (k))

/**
 * struct drm_vmgpu_bo_create - argument of DRM_IOCTL_VMGPU_BO_CREATE
 *
 * Creates a buffer object of shmem pages, maps it into the calling file's
 * GPU address space and returns a handle. The placement is recorded in the
 * location field of every page-table entry of the buffer; the device's
 * timing model prices accesses by it (the data itself always lives in
 * system RAM).
 *
 * @size: bytes, 1..DRM_VMGPU_PARAM_MAX_BO_SIZE; rounded up to whole 4 KiB
 *	pages. 0 or too large is -EINVAL (-E2BIG when too large).
 * @flags: DRM_VMGPU_BO_* bits; unknown bits are -EINVAL.
 * @placement: DRM_VMGPU_PLACEMENT_SYSTEM or DRM_VMGPU_PLACEMENT_GPU(k)
 *	with k < number of GPUs; anything else is -EINVAL.
 * @handle: out: the GEM handle.
 * @pad: must be zero.
 * @gpu_va: out: GPU virtual address of the buffer in this file's address
 *	space (the same value DRM_IOCTL_VMGPU_BO_INFO reports).
 */
struct drm_vmgpu_bo_create {
	__u64 size;
	__u32 flags;
	__u32 placement;
	__u32 handle;
	__u32 pad;
	__u64 gpu_va;
};

/**
 * struct drm_vmgpu_bo_mmap_offset - argument of DRM_IOCTL_VMGPU_BO_MMAP_OFFSET
 *
 * @handle: GEM handle of a buffer of this file.
 * @pad: must be zero.
 * @offset: out: pass to mmap() on the DRM file descriptor.
 */
struct drm_vmgpu_bo_mmap_offset {
	__u32 handle;
	__u32 pad;
	__u64 offset;
};

/**
 * struct drm_vmgpu_bo_info - argument of DRM_IOCTL_VMGPU_BO_INFO
 *
 * @handle: GEM handle of a buffer of this file (created or PRIME-imported).
 * @flags: out: DRM_VMGPU_BO_* of the buffer.
 * @size: out: size in bytes (whole pages).
 * @gpu_va: out: GPU virtual address in this file's address space.
 * @placement: out: DRM_VMGPU_PLACEMENT_*.
 * @pad: must be zero.
 */
struct drm_vmgpu_bo_info {
	__u32 handle;
	__u32 flags;
	__u64 size;
	__u64 gpu_va;
	__u32 placement;
	__u32 pad;
};

/**
 * struct drm_vmgpu_bo_place - argument of DRM_IOCTL_VMGPU_BO_PLACE
 *
 * Sets where a page range of a buffer lives as the calling file's GPU
 * address space sees it: the location field of the page-table entries of
 * [@offset, @offset + @size) of the buffer's mapping in this file (SPEC
 * R6, R10). The device prices every access by it; the data does not move
 * (it always lives in system RAM). A resource split over GPUs can so have
 * each part's pages in the memory of the GPU that writes them, read by
 * the others over the links (direct remote read). Other files mapping
 * the same buffer, and DRM_IOCTL_VMGPU_BO_INFO's @placement (the
 * placement at creation), are not changed. Accesses after the call
 * returns see the new location; work already running may see either.
 * Since uAPI version 5.
 *
 * @handle: GEM handle of a buffer of this file; else -ENOENT.
 * @placement: DRM_VMGPU_PLACEMENT_SYSTEM or DRM_VMGPU_PLACEMENT_GPU(k)
 *	with k < number of GPUs; else -EINVAL.
 * @offset: first byte, a multiple of 4096 inside the buffer; else -EINVAL.
 * @size: bytes, a non-zero multiple of 4096 with @offset + @size inside
 *	the buffer; else -EINVAL.
 * @flags: must be zero (no flag is defined yet).
 * @pad: must be zero.
 */
struct drm_vmgpu_bo_place {
	__u32 handle;
	__u32 placement;
	__u64 offset;
	__u64 size;
	__u32 flags;
	__u32 pad;
};

/**
 * enum drm_vmgpu_priority - scheduling priority of a context
 *
 * @DRM_VMGPU_PRIORITY_LOW: runs when nothing more urgent is queued.
 * @DRM_VMGPU_PRIORITY_NORMAL: the default.
 * @DRM_VMGPU_PRIORITY_HIGH: needs CAP_SYS_NICE, else -EACCES.
 * @DRM_VMGPU_PRIORITY_COUNT: number of priorities; not itself one.
 */
enum drm_vmgpu_priority {
	DRM_VMGPU_PRIORITY_LOW = 0,
	DRM_VMGPU_PRIORITY_NORMAL = 1,
	DRM_VMGPU_PRIORITY_HIGH = 2,
	DRM_VMGPU_PRIORITY_COUNT
};

/*
 * The work distributor's levels a context's dispatches may use (the
 * DISPATCH priority field and SET_STATE DEFAULT_PRIORITY; lower is more
 * urgent): HIGH contexts DRM_VMGPU_LEVEL_MIN_HIGH..15, NORMAL
 * DRM_VMGPU_LEVEL_MIN_NORMAL..15, LOW DRM_VMGPU_LEVEL_MIN_LOW..15;
 * anything more urgent is -EACCES. Level 0 belongs to nobody's packets.
 * A task giving priority 0 (a dispatch, a task descriptor in memory, a
 * kernel's child task) gets the packet's default: the context's
 * DRM_VMGPU_LEVEL_DEFAULT_* until a SET_STATE DEFAULT_PRIORITY in the
 * packet changes it (0 there restores it). Descriptors and children are
 * held in the band by the device (the ring entry carries both bounds).
 */
#define DRM_VMGPU_LEVEL_MIN_HIGH	1
#define DRM_VMGPU_LEVEL_DEFAULT_HIGH	2
#define DRM_VMGPU_LEVEL_MIN_NORMAL	4
#define DRM_VMGPU_LEVEL_DEFAULT_NORMAL	6
#define DRM_VMGPU_LEVEL_MIN_LOW		10
#define DRM_VMGPU_LEVEL_DEFAULT_LOW	12

/*
 * The largest device-trace buffer the debugfs file "trace_enable" accepts,
 * in KiB (one physically contiguous buffer: the page allocator's largest
 * block); more is -E2BIG.
 */
#define DRM_VMGPU_TRACE_MAX_KIB		4096

/**
 * struct drm_vmgpu_ctx_create - argument of DRM_IOCTL_VMGPU_CTX_CREATE
 *
 * A context is a submission queue: one scheduler entity per GPU. Packets
 * of one context on one GPU run in submission order; contexts are
 * scheduled against each other by priority. An error caused by a packet
 * bans its context only.
 *
 * @priority: enum drm_vmgpu_priority; anything else is -EINVAL.
 * @flags: must be zero.
 * @ctx_id: out: the context's id in this file (never 0).
 * @pad: must be zero.
 */
struct drm_vmgpu_ctx_create {
	__u32 priority;
	__u32 flags;
	__u32 ctx_id;
	__u32 pad;
};

/**
 * struct drm_vmgpu_ctx_destroy - argument of DRM_IOCTL_VMGPU_CTX_DESTROY
 *
 * Work already submitted still runs to completion.
 *
 * @ctx_id: a context of this file; unknown is -ENOENT.
 * @pad: must be zero.
 */
struct drm_vmgpu_ctx_destroy {
	__u32 ctx_id;
	__u32 pad;
};

/*
 * struct drm_vmgpu_ctx_query.state bits.
 * DRM_VMGPU_CTX_BANNED: a packet of the context failed; submits fail.
 */
#define DRM_VMGPU_CTX_BANNED		(1u << 0)

/* Fault code of a hang the driver detected (no device error code). */
#define DRM_VMGPU_FAULT_TIMEOUT		0x100

/**
 * struct drm_vmgpu_ctx_query - argument of DRM_IOCTL_VMGPU_CTX_QUERY
 *
 * Tells whether a context was banned and why: the first error of one of
 * its packets, as the device reported it (uapi/vmgpu_hw.h ERR_*
 * registers), or DRM_VMGPU_FAULT_TIMEOUT when the driver's timeout caught
 * a packet that never completed.
 *
 * @ctx_id: a context of this file; unknown is -ENOENT.
 * @state: out: DRM_VMGPU_CTX_* bits.
 * @fault: out: enum vmgpu_fault, DRM_VMGPU_FAULT_TIMEOUT, or 0.
 * @gpu: out: GPU the failing packet ran on.
 * @dispatch: out: index of the failing command's dispatch in its packet.
 * @pc: out: instruction index of the failing instruction.
 * @addr: out: faulting GPU virtual address, if any.
 * @errors: out: error interrupts and timeouts charged to the context.
 * @pad: must be zero.
 */
struct drm_vmgpu_ctx_query {
	__u32 ctx_id;
	__u32 state;
	__u32 fault;
	__u32 gpu;
	__u32 dispatch;
	__u32 pc;
	__u64 addr;
	__u32 errors;
	__u32 pad;
};

/*
 * struct drm_vmgpu_submit_bo.flags.
 * DRM_VMGPU_SUBMIT_BO_READ: the packet only reads the buffer, so it waits
 * only for earlier writers (implicit sync) and does not make later readers
 * wait. Without it the packet may write the buffer.
 * DRM_VMGPU_SUBMIT_BO_EXPLICIT: the packet orders its use of the buffer
 * itself (syncobjs, WAIT_VALUE, dependency tables): it does not wait for
 * the buffer's implicit fences, and its own fence is kept for bookkeeping
 * only, so later packets do not wait for it implicitly either. Packets of
 * several GPUs that wait on each other through a buffer need it, or the
 * implicit order would deadlock them.
 */
#define DRM_VMGPU_SUBMIT_BO_READ	(1u << 0)
#define DRM_VMGPU_SUBMIT_BO_EXPLICIT	(1u << 1)
#define DRM_VMGPU_SUBMIT_BO_FLAGS_ALL \
	(DRM_VMGPU_SUBMIT_BO_READ | DRM_VMGPU_SUBMIT_BO_EXPLICIT)

/**
 * struct drm_vmgpu_submit_bo - one buffer a packet uses
 *
 * @handle: GEM handle of this file; unknown is -ENOENT.
 * @flags: DRM_VMGPU_SUBMIT_BO_*; unknown bits are -EINVAL.
 */
struct drm_vmgpu_submit_bo {
	__u32 handle;
	__u32 flags;
};

/**
 * struct drm_vmgpu_sync - one syncobj and timeline point
 *
 * @handle: a drm_syncobj handle of this file; unknown is -ENOENT.
 * @flags: must be zero.
 * @point: timeline point; 0 for a binary syncobj. An in-fence waits for
 *	the point; an out-fence adds it (or replaces the fence when 0).
 */
struct drm_vmgpu_sync {
	__u32 handle;
	__u32 flags;
	__u64 point;
};

/**
 * struct drm_vmgpu_submit - argument of DRM_IOCTL_VMGPU_SUBMIT
 *
 * Queues one packet on GPU @gpu for context @ctx_id. The driver copies the
 * command buffer into a kernel-owned buffer mapped read-only into the
 * file's address space, validates every command of that copy (see
 * Documentation/submission.rst), and queues a job that runs after the
 * in-syncobjs and the implicit fences of the listed buffers. The packet
 * raises one interrupt when it completes. Errors: -EINVAL malformed
 * arguments or commands, -E2BIG over a limit reported by GET_PARAM,
 * -ENOENT unknown handle or context, -EFAULT bad user pointer,
 * -ECANCELED the context is banned.
 *
 * @cmdbuf: user pointer to the command words (uapi/vmgpu_hw.h).
 * @cmdbuf_bytes: multiple of 4, at most DRM_VMGPU_PARAM_CMDBUF_MAX_BYTES;
 *	the last command is END and END appears nowhere else.
 * @gpu: GPU index, < number of GPUs.
 * @ctx_id: a context of this file.
 * @flags: must be zero.
 * @pad: must be zero.
 * @bos: user pointer to @bo_count struct drm_vmgpu_submit_bo: every buffer
 *	the packet uses. Every address in the commands must lie inside one
 *	of them.
 * @bo_count: at most DRM_VMGPU_PARAM_MAX_SUBMIT_BOS.
 * @in_sync_count: at most DRM_VMGPU_PARAM_MAX_SUBMIT_SYNCS.
 * @in_syncs: user pointer to struct drm_vmgpu_sync the packet waits for.
 * @out_syncs: user pointer to struct drm_vmgpu_sync that receive the
 *	packet's completion fence.
 * @out_sync_count: at most DRM_VMGPU_PARAM_MAX_SUBMIT_SYNCS.
 * @pad2: must be zero.
 */
struct drm_vmgpu_submit {
	__u64 cmdbuf;
	__u32 cmdbuf_bytes;
	__u32 gpu;
	__u32 ctx_id;
	__u32 flags;
	__u64 bos;
	__u32 bo_count;
	__u32 in_sync_count;
	__u64 in_syncs;
	__u64 out_syncs;
	__u32 out_sync_count;
	__u32 pad2;
};

/*
 * Work distributor policy (struct drm_vmgpu_wd_policy).
 * DRM_VMGPU_WD_POLICY_SET: set the policy (CAP_SYS_ADMIN); without it the
 * ioctl only reads it.
 * DRM_VMGPU_WD_MODE_LOAD_BALANCE: the next block goes to the SM with the
 * most room for it, ties broken by the SM priority list.
 * DRM_VMGPU_WD_MODE_ROUND_ROBIN: the next block goes to the next SM of the
 * list, after the one that got the last block, that has room.
 */
#define DRM_VMGPU_WD_POLICY_SET		(1u << 0)
#define DRM_VMGPU_WD_POLICY_FLAGS_ALL	DRM_VMGPU_WD_POLICY_SET
#define DRM_VMGPU_WD_MODE_LOAD_BALANCE	0
#define DRM_VMGPU_WD_MODE_ROUND_ROBIN	1
#define DRM_VMGPU_WD_MAX_SLOTS		128
#define DRM_VMGPU_WD_MAX_SMS		64

/**
 * struct drm_vmgpu_wd_policy - argument of DRM_IOCTL_VMGPU_WD_POLICY
 *
 * Reads or sets the policy of one GPU's work distributor (the hardware
 * unit that spreads a dispatch's thread blocks over the SMs): its CTA
 * issue mode, the number of task-table slots (dispatches that run at once)
 * and the SM priority list. Reading is open to every client; setting
 * needs CAP_SYS_ADMIN (else -EPERM), affects every client of the GPU, and
 * holds until the next set or until the driver is loaded again: the
 * driver programs it again after every GPU or PCI reset. A set returns
 * once the device has accepted the policy; the GPU applies it between two
 * block issues, without disturbing blocks in flight. Since uAPI version 4;
 * -EOPNOTSUPP if the device has no policy registers.
 *
 * @gpu: GPU index, < number of GPUs; else -EINVAL.
 * @flags: DRM_VMGPU_WD_POLICY_*; unknown bits are -EINVAL.
 * @mode: DRM_VMGPU_WD_MODE_*: out, or in with DRM_VMGPU_WD_POLICY_SET
 *	(anything else is -EINVAL).
 * @table_slots: 1..DRM_VMGPU_WD_MAX_SLOTS: out, or in with
 *	DRM_VMGPU_WD_POLICY_SET (else -EINVAL).
 * @num_sms: out: the GPU's SMs, the entries of @sm_order used. In with
 *	DRM_VMGPU_WD_POLICY_SET: 0 or that number, else -EINVAL.
 * @pad: must be zero.
 * @sm_order: the SM priority list, most preferred first: out, or in with
 *	DRM_VMGPU_WD_POLICY_SET, where the first @num_sms entries must be a
 *	permutation of 0..@num_sms - 1 and the rest zero (else -EINVAL).
 */
struct drm_vmgpu_wd_policy {
	__u32 gpu;
	__u32 flags;
	__u32 mode;
	__u32 table_slots;
	__u32 num_sms;
	__u32 pad;
	__u8 sm_order[DRM_VMGPU_WD_MAX_SMS];
};

#define DRM_IOCTL_VMGPU_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VMGPU_GET_PARAM, \
		 struct drm_vmgpu_get_param)
#define DRM_IOCTL_VMGPU_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VMGPU_BO_CREATE, \
		 struct drm_vmgpu_bo_create)
#define DRM_IOCTL_VMGPU_BO_MMAP_OFFSET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VMGPU_BO_MMAP_OFFSET, \
		 struct drm_vmgpu_bo_mmap_offset)
#define DRM_IOCTL_VMGPU_BO_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VMGPU_BO_INFO, \
		 struct drm_vmgpu_bo_info)
#define DRM_IOCTL_VMGPU_CTX_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VMGPU_CTX_CREATE, \
		 struct drm_vmgpu_ctx_create)
#define DRM_IOCTL_VMGPU_CTX_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VMGPU_CTX_DESTROY, \
		struct drm_vmgpu_ctx_destroy)
#define DRM_IOCTL_VMGPU_CTX_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VMGPU_CTX_QUERY, \
		 struct drm_vmgpu_ctx_query)
#define DRM_IOCTL_VMGPU_SUBMIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VMGPU_SUBMIT, \
		struct drm_vmgpu_submit)
#define DRM_IOCTL_VMGPU_WD_POLICY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VMGPU_WD_POLICY, \
		 struct drm_vmgpu_wd_policy)
#define DRM_IOCTL_VMGPU_BO_PLACE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VMGPU_BO_PLACE, \
		struct drm_vmgpu_bo_place)

#if defined(__cplusplus)
}
#endif

#endif /* _VMGPU_DRM_H_ */
