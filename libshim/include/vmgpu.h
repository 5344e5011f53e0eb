/* SPDX-License-Identifier: MIT */
/*
 * libvmgpu: the user-space library for vmgpu devices.
 *
 * Conventions, for every function:
 *  - handles are opaque and created/destroyed in pairs;
 *  - an int return is 0 (or a non-negative count) on success and a negative
 *    errno value on failure;
 *  - after a failure on a device handle, vmgpu_error_message() tells what
 *    went wrong in words;
 *  - no global mutable state: two handles never share anything, and one
 *    handle may be used from several threads.
 */
#ifndef VMGPU_H
#define VMGPU_H

#include <stddef.h>
#include <stdint.h>

/*
 * The library's version, the one definition of it: the Makefile derives
 * the shared library's SONAME (libvmgpu.so.MAJOR) and vmgpu.pc's Version
 * from these lines, the tools print it for --version. MAJOR changes when
 * the ABI breaks, MINOR when functions are added.
 */
#define VMGPU_VERSION_MAJOR	1
#define VMGPU_VERSION_MINOR	0
#define VMGPU_VERSION_PATCH	0

#define VMGPU_STRINGIFY_(x)	#x
#define VMGPU_STRINGIFY(x)	VMGPU_STRINGIFY_(x)
/* "MAJOR.MINOR.PATCH" */
#define VMGPU_VERSION	VMGPU_STRINGIFY(VMGPU_VERSION_MAJOR) "." \
			VMGPU_STRINGIFY(VMGPU_VERSION_MINOR) "." \
			VMGPU_STRINGIFY(VMGPU_VERSION_PATCH)

/* The device's codes the API uses: VMGPU_FAULT_*, VMGPU_WAIT_*,
 * VMGPU_STATE_*, VMGPU_CAP_* (vmgpu_hw.h) and VMGPU_PARAM_* (vmgpu_isa.h). */
#include "vmgpu_hw.h"
#include "vmgpu_isa.h"
#include "vmgpu_region.h"

#ifdef __cplusplus
extern "C" {
#endif

struct vmgpu_device;

/**
 * struct vmgpu_info - what a device reports about itself
 */
struct vmgpu_info {
	char node[64];			/* render node path, e.g. /dev/dri/renderD128 */
	char driver_version[32];	/* "major.minor.patchlevel" */
	uint32_t uapi_version;		/* DRM_VMGPU_UAPI_VERSION of the driver */
	uint32_t hw_version;		/* device interface, major << 16 | minor */
	uint32_t num_gpus;
	uint32_t sms_per_gpu;
	uint32_t isa_version;
	uint32_t caps;			/* VMGPU_CAP_* */
	uint32_t warp_size;
	uint32_t clock_khz;
	uint32_t local_mem_mb;
	uint32_t cmdbuf_max_bytes;
	uint32_t max_dispatches;
};

/*
 * Number of vmgpu devices present (render nodes whose DRM driver is
 * "vmgpu"), or a negative errno.
 */
int vmgpu_device_count(void);

/*
 * Open the @index-th vmgpu device (0-based, in the order libdrm lists
 * them). On failure *@out is NULL and, if @errbuf is not NULL, a message is
 * written there (the handle that would carry it does not exist).
 */
int vmgpu_device_open(unsigned int index, struct vmgpu_device **out,
		      char *errbuf, size_t errlen);

/*
 * A handle over an already open vmgpu DRM file @fd (a render node), e.g.
 * one a compositor or a test harness opened. The handle works on its own
 * duplicate of @fd, numbered above @fd: the caller keeps @fd and closes it
 * when it likes. -ENODEV if @fd is not a vmgpu device.
 */
int vmgpu_device_open_fd(int fd, struct vmgpu_device **out, char *errbuf,
			 size_t errlen);

/* Close a device handle (its buffers destroyed first); NULL is accepted. */
void vmgpu_device_close(struct vmgpu_device *dev);

/* The DRM file descriptor behind @dev, for use with libdrm directly. */
int vmgpu_device_fd(const struct vmgpu_device *dev);

/* Fill @info from the driver's parameters. */
int vmgpu_device_query(struct vmgpu_device *dev, struct vmgpu_info *info);

/* Read one DRM_VMGPU_PARAM_* parameter. */
int vmgpu_get_param(struct vmgpu_device *dev, uint32_t param,
		    uint64_t *value);

/*
 * Copy the message of the most recent failed call on @dev into @buf
 * (always NUL-terminated). Returns the message length.
 */
size_t vmgpu_error_message(struct vmgpu_device *dev, char *buf, size_t len);


/* ------------------------------------------------------------------ */
/* Buffers                                                              */
/* ------------------------------------------------------------------ */

struct vmgpu_bo;

/* Buffer flags (vmgpu_bo_create): the GPU may only read the buffer. */
#define VMGPU_BO_GPU_READ_ONLY		(1u << 0)
/* Placement: system memory, or the local memory of GPU k. */
#define VMGPU_PLACEMENT_SYSTEM		0u
#define VMGPU_PLACEMENT_GPU(k)		(1u + (k))

/*
 * Create a buffer of @size bytes (rounded up to 4 KiB), mapped into the
 * device handle's GPU address space. -EINVAL for a zero size, unknown
 * flags or a placement naming a GPU that does not exist; -E2BIG when too
 * large.
 */
int vmgpu_bo_create(struct vmgpu_device *dev, uint64_t size, uint32_t flags,
		    uint32_t placement, struct vmgpu_bo **out);
/*
 * Say that bytes [@offset, @offset + @size) of @bo (whole 4 KiB pages)
 * live in @placement's memory, as this device handle's GPU address space
 * sees them (SPEC R6, R10; DRM_IOCTL_VMGPU_BO_PLACE): the device prices
 * accesses by it, the data does not move. A resource split over GPUs
 * thus keeps each GPU's part in that GPU's memory, read remotely by the
 * others. -EINVAL for a range not of whole pages inside the buffer or a
 * GPU that does not exist.
 */
int vmgpu_bo_place(struct vmgpu_bo *bo, uint64_t offset, uint64_t size,
		   uint32_t placement);
/* Unmap (CPU) and close the buffer; NULL is accepted. */
void vmgpu_bo_destroy(struct vmgpu_bo *bo);
/* CPU mapping of the whole buffer (created on first call, kept). */
int vmgpu_bo_map(struct vmgpu_bo *bo, void **ptr);
uint64_t vmgpu_bo_gpu_va(const struct vmgpu_bo *bo);
uint64_t vmgpu_bo_size(const struct vmgpu_bo *bo);
uint32_t vmgpu_bo_handle(const struct vmgpu_bo *bo);
/* PRIME: share a buffer as a dma-buf file descriptor, and import one. */
int vmgpu_bo_export(struct vmgpu_bo *bo, int *fd);
int vmgpu_bo_import(struct vmgpu_device *dev, int fd, struct vmgpu_bo **out);
/*
 * Put an executable image (from vmgpu_asm_assemble()) in a new GPU
 * read-only buffer, after checking its header.
 */
int vmgpu_kernel_create(struct vmgpu_device *dev, const void *image,
			size_t bytes, struct vmgpu_bo **out);

/*
 * Typed arguments. A kernel assembled with ".kernel NAME" and
 * ".param NAME, TYPE[, OFFSET]" (Documentation/isa.rst) carries its
 * signature; its arguments are then set by index, each type checked, and
 * a dispatch with them (vmgpu_dispatch_desc.typed_args) builds the
 * argument block and declares every buffer argument to the command
 * buffer: read-only for buf_ro, written for buf_wo and buf_rw.
 */
struct vmgpu_args;

/* One parameter of a kernel's signature. */
struct vmgpu_param_info {
	const char *name;		/* valid while the kernel lives */
	uint32_t type;			/* VMGPU_PARAM_* (vmgpu_isa.h) */
	uint32_t offset;		/* in the argument block */
	uint32_t size;			/* bytes: 4 or 8; a BYTES one's */
};

/* The kernel's name, or NULL if it has no signature. */
const char *vmgpu_kernel_name(const struct vmgpu_bo *kernel);
/* Its number of parameters; -ENOENT if it has no signature. */
int vmgpu_kernel_param_count(const struct vmgpu_bo *kernel);
int vmgpu_kernel_param(const struct vmgpu_bo *kernel, uint32_t index,
		       struct vmgpu_param_info *info);

/*
 * Arguments for @kernel (which must outlive them), none set yet. One
 * thread at a time uses an argument set; it may be changed and used for
 * more dispatches (each copies the block).
 */
int vmgpu_args_create(const struct vmgpu_bo *kernel, struct vmgpu_args **out);
void vmgpu_args_destroy(struct vmgpu_args *args);
/* Set argument @index; -EINVAL (with a message) if its type differs. */
int vmgpu_args_set_i32(struct vmgpu_args *args, uint32_t index, int32_t v);
int vmgpu_args_set_i64(struct vmgpu_args *args, uint32_t index, int64_t v);
int vmgpu_args_set_f32(struct vmgpu_args *args, uint32_t index, float v);
/* A by-value aggregate (VMGPU_PARAM_BYTES): exactly its @size bytes. */
int vmgpu_args_set_bytes(struct vmgpu_args *args, uint32_t index,
			 const void *v, uint32_t size);
/* A buffer argument: the GPU address @offset bytes into @bo. */
int vmgpu_args_set_buffer(struct vmgpu_args *args, uint32_t index,
			  const struct vmgpu_bo *bo, uint64_t offset);

/* ------------------------------------------------------------------ */
/* Contexts                                                             */
/* ------------------------------------------------------------------ */

struct vmgpu_context;

/* Priorities (DRM_VMGPU_PRIORITY_*); HIGH needs CAP_SYS_NICE. */
#define VMGPU_PRIORITY_LOW		0u
#define VMGPU_PRIORITY_NORMAL		1u
#define VMGPU_PRIORITY_HIGH		2u

/* A submission queue with one scheduler entity per GPU. */
int vmgpu_context_create(struct vmgpu_device *dev, uint32_t priority,
			 struct vmgpu_context **out);
void vmgpu_context_destroy(struct vmgpu_context *ctx);
/* The driver's id of @ctx, for the ioctls used directly (0 for NULL). */
uint32_t vmgpu_context_id(const struct vmgpu_context *ctx);
/*
 * A handle for a context the program made itself with
 * DRM_IOCTL_VMGPU_CTX_CREATE on @dev's file (vmgpu_device_fd()). The id is
 * not checked here: a submit on an id the file does not own fails with
 * -ENOENT. vmgpu_context_destroy() destroys the context as for any other.
 */
int vmgpu_context_adopt(struct vmgpu_device *dev, uint32_t ctx_id,
			struct vmgpu_context **out);

/* vmgpu_context_status.fault of a packet the driver's timeout stopped. */
#define VMGPU_FAULT_TIMEOUT		0x100u

struct vmgpu_context_status {
	int banned;			/* a packet failed: submits fail */
	uint32_t fault;			/* VMGPU_FAULT_*, VMGPU_FAULT_TIMEOUT */
	uint32_t gpu;
	uint32_t dispatch;
	uint32_t pc;
	uint64_t addr;			/* GPU address of a memory fault */
	uint32_t errors;
	/* The buffer of this device handle @addr falls in (0: none). */
	uint32_t bo_handle;
	uint64_t bo_offset;
};
/* The first error of @ctx's packets, if any (a zeroed @st if none). */
int vmgpu_context_query(struct vmgpu_context *ctx,
			struct vmgpu_context_status *st);
/*
 * @st in words: the GPU, dispatch and pc, what went wrong, and for a
 * memory fault the buffer and offset the address falls in (or that it is
 * in none). Returns the length, like snprintf().
 */
int vmgpu_context_describe_fault(struct vmgpu_context *ctx,
				 const struct vmgpu_context_status *st,
				 char *buf, size_t len);

/* Names for messages: a fault code, a SET_STATE key, a WAIT_VALUE op. */
const char *vmgpu_fault_name(uint32_t fault);
const char *vmgpu_state_name(uint32_t key);
const char *vmgpu_wait_op_name(uint32_t op);
/*
 * What a negative return of this library means (Documentation/library.rst
 * has the table): -EFAULT a packet's memory fault, -ETIMEDOUT its budget,
 * -ECANCELED a hang or a banned context, -ENODEV the device is gone, ...
 */
const char *vmgpu_strerror(int err);

/* ------------------------------------------------------------------ */
/* Synchronisation objects (DRM syncobjs, binary or timeline)            */
/* ------------------------------------------------------------------ */

int vmgpu_syncobj_create(struct vmgpu_device *dev, uint32_t *handle);
void vmgpu_syncobj_destroy(struct vmgpu_device *dev, uint32_t handle);
/*
 * Wait until @handle (at timeline @point, 0 for binary) is signalled,
 * at most @timeout_ns from now. -ETIME on timeout; once signalled, the
 * error of a packet that failed (-EFAULT, -ETIMEDOUT, -ECANCELED, ...).
 */
int vmgpu_syncobj_wait(struct vmgpu_device *dev, uint32_t handle,
		       uint64_t point, int64_t timeout_ns);
/*
 * Completion status of a binary syncobj's fence: 1 signalled without
 * error, 0 pending, or the fence's negative error (the packet failed).
 */
int vmgpu_syncobj_status(struct vmgpu_device *dev, uint32_t handle);

/* ------------------------------------------------------------------ */
/* Command buffers                                                      */
/* ------------------------------------------------------------------ */

struct vmgpu_cmdbuf;

/*
 * One workload: a kernel, its arguments and thread space. Arguments are
 * either @typed_args (a kernel with a signature: checked, and its buffers
 * declared to the command buffer) or a raw block (@args, @args_bytes).
 */
struct vmgpu_dispatch_desc {
	const struct vmgpu_bo *kernel;	/* from vmgpu_kernel_create() */
	const void *args;		/* copied into the command buffer's heap */
	uint32_t args_bytes;		/* must match the kernel's .args */
	uint32_t grid[3];		/* blocks; 0 counts as 1 */
	uint32_t block[3];		/* threads; 0 counts as 1 */
	uint32_t origin[3];		/* portion offset in blocks */
	uint32_t grid_total[3];		/* 0: origin + grid */
	uint32_t shared_bytes;
	uint32_t priority;		/* 0: default; lower = more urgent */
	const struct vmgpu_args *typed_args;	/* or NULL: args, args_bytes */
	/*
	 * VMGPU_DISPATCH_F_HEAD (ahead of equal-priority tasks waiting) and
	 * VMGPU_DISPATCH_F_SEQUENTIAL (one block in flight at a time). Launch
	 * quota and SM affinity are state: vmgpu_cmdbuf_set_state() with
	 * VMGPU_STATE_LAUNCH_QUOTA, VMGPU_STATE_SM_MASK_LO/HI.
	 */
	uint32_t flags;
};

/*
 * A command-buffer builder. One builder is used by one thread at a time;
 * it may be reset and reused once its submissions completed.
 */
int vmgpu_cmdbuf_create(struct vmgpu_device *dev, struct vmgpu_cmdbuf **out);
void vmgpu_cmdbuf_destroy(struct vmgpu_cmdbuf *cb);
void vmgpu_cmdbuf_reset(struct vmgpu_cmdbuf *cb);
/* Number of dispatches recorded so far. */
uint32_t vmgpu_cmdbuf_dispatch_count(const struct vmgpu_cmdbuf *cb);
/* Size in bytes the packet will have (END included). */
uint32_t vmgpu_cmdbuf_bytes(const struct vmgpu_cmdbuf *cb);

/* Buffer use flags: the packet only reads the buffer. */
#define VMGPU_USE_READ			(1u << 0)
/*
 * The packet orders its use of the buffer itself (syncobjs, WAIT_VALUE,
 * dependency tables): no implicit fences either way (uapi.rst). Packets
 * of several GPUs that wait on each other through a buffer need it.
 */
#define VMGPU_USE_EXPLICIT		(1u << 1)
/* Declare a buffer the packet uses (kernels' pointers included). */
int vmgpu_cmdbuf_use(struct vmgpu_cmdbuf *cb, const struct vmgpu_bo *bo,
		     uint32_t flags);
/* Add a dispatch; returns its index in the packet (>= 0) or -errno. */
int vmgpu_cmdbuf_dispatch(struct vmgpu_cmdbuf *cb,
			  const struct vmgpu_dispatch_desc *d);
/*
 * Dispatch @consumer (a later one, not yet added) starts after dispatch
 * @producer (already added) finished. Never raises an interrupt.
 */
int vmgpu_cmdbuf_sync(struct vmgpu_cmdbuf *cb, uint32_t consumer,
		      uint32_t producer);
/* Later commands wait for every earlier dispatch. */
int vmgpu_cmdbuf_barrier(struct vmgpu_cmdbuf *cb);
/*
 * A dispatch whose task descriptor (struct vmgpu_tmd, vmgpu_hw.h) is at
 * @offset of @bo (8-byte aligned), read by the device when the command
 * runs: a kernel or another GPU may prepare it. The device checks it by
 * the rules of a DISPATCH then (a bad one fails the packet). Its kernel,
 * argument block and the buffers its kernel uses must be declared with
 * vmgpu_cmdbuf_use(). Returns its dispatch index, or -errno.
 */
int vmgpu_cmdbuf_launch_tmd(struct vmgpu_cmdbuf *cb, const struct vmgpu_bo *bo,
			    uint64_t offset);
/*
 * The dispatch @d as a task descriptor the builder writes into its
 * argument heap (with launch quota @quota and SM mask @sm_mask, 0: none)
 * and a LAUNCH_TMD of it: the device reads the dispatch from memory.
 * Returns its dispatch index, or -errno.
 */
int vmgpu_cmdbuf_dispatch_tmd(struct vmgpu_cmdbuf *cb,
			      const struct vmgpu_dispatch_desc *d,
			      uint32_t quota, uint64_t sm_mask);
/*
 * SKIP_IF (hardware 1.3): after dispatch @after (an earlier one;
 * VMGPU_SKIP_IF_NOW: no wait) the device reads the word at @offset of
 * @bo once and skips the next @skip commands if (word & @mask) @op
 * @value (VMGPU_WAIT_*). A skipped dispatch keeps its index and counts
 * as finished. The skipped commands must end before END.
 */
int vmgpu_cmdbuf_skip_if(struct vmgpu_cmdbuf *cb, const struct vmgpu_bo *bo,
			 uint64_t offset, uint32_t op, uint32_t value,
			 uint32_t mask, uint32_t after, uint32_t skip);
/*
 * COPY @bytes (1..4 GiB - 1) from @src_offset of @src to @dst_offset of
 * @dst, when the command processor reaches it; it waits for the copy,
 * not for earlier dispatches (a BARRIER before it does).
 */
int vmgpu_cmdbuf_copy(struct vmgpu_cmdbuf *cb, const struct vmgpu_bo *src,
		      uint64_t src_offset, const struct vmgpu_bo *dst,
		      uint64_t dst_offset, uint64_t bytes);
/*
 * A rectangle: @height rows of @width_bytes, row i at offset + i x pitch
 * on each side (the pitches at least the width when height > 1).
 */
struct vmgpu_copy_rect {
	uint64_t src_offset, dst_offset;
	uint32_t width_bytes, height;
	uint32_t src_pitch, dst_pitch;
};

/* COPY of a rectangle, as vmgpu_cmdbuf_copy(). */
int vmgpu_cmdbuf_copy_rect(struct vmgpu_cmdbuf *cb, const struct vmgpu_bo *src,
			   const struct vmgpu_bo *dst,
			   const struct vmgpu_copy_rect *r);
/* Write the GPU's clock (u64 ns) at @offset of @bo (8-byte aligned). */
int vmgpu_cmdbuf_timestamp(struct vmgpu_cmdbuf *cb, const struct vmgpu_bo *bo,
			   uint64_t offset);
/*
 * Write two u64 at @offset of @bo (16-byte aligned): when the first block
 * of the packet's dispatches finished since the previous such command was
 * issued and when the last of them finished (ns; 0, 0 if none did). After
 * a barrier: the dispatches' span, as the device trace gives it.
 */
int vmgpu_cmdbuf_dispatch_span(struct vmgpu_cmdbuf *cb,
			       const struct vmgpu_bo *bo, uint64_t offset);
int vmgpu_cmdbuf_write_value(struct vmgpu_cmdbuf *cb,
			     const struct vmgpu_bo *bo, uint64_t offset,
			     uint32_t value);
/* Stall until (word & mask) OP value; @op is VMGPU_WAIT_*. */
int vmgpu_cmdbuf_wait_value(struct vmgpu_cmdbuf *cb,
			    const struct vmgpu_bo *bo, uint64_t offset,
			    uint32_t op, uint32_t value, uint32_t mask);
/*
 * Region dependencies (SPEC R2, R3; Documentation/regions.rst). A
 * dependency table is @entries 8-byte entries (struct vmgpu_dep_entry,
 * vmgpu_region.h) at @offset (8-byte aligned) of @bo.
 */
struct vmgpu_dep_table {
	const struct vmgpu_bo *bo;
	uint64_t offset;
	uint32_t entries;
};

/*
 * DEP_SIGNAL: as the blocks of dispatch @dispatch (the next or a later
 * one, not yet added) finish, the device writes READY in @epoch (not 0)
 * to entry @first_index + r of @table for each region r of @region blocks
 * of that dispatch's index space it completes. The dispatch must cover
 * whole regions; checked by the device when it runs (a bad one fails the
 * packet at this command).
 */
int vmgpu_cmdbuf_dep_signal(struct vmgpu_cmdbuf *cb, uint32_t dispatch,
			    uint32_t epoch, const struct vmgpu_dep_table *table,
			    uint32_t first_index, const uint32_t region[3]);
/*
 * DEP_WAIT: the command processor waits (earlier dispatches run on) until
 * every entry the consumer portions @cfirst + [0, @ccount) of the grid
 * @cgrid need under @map (vmgpu_region.h) is READY in @epoch; producer
 * portion p of @pgrid is entry @first_index + p of @table. A TABLE map's
 * table must lie in a buffer declared with vmgpu_cmdbuf_use().
 */
int vmgpu_cmdbuf_dep_wait(struct vmgpu_cmdbuf *cb, uint32_t epoch,
			  const struct vmgpu_dep_table *table,
			  uint32_t first_index, const uint32_t pgrid[3],
			  const uint32_t cgrid[3], const uint32_t cfirst[3],
			  const uint32_t ccount[3],
			  const struct vmgpu_region_map *map);
/*
 * TAKE (SPEC R7): the GPU claims portions of the kernel whose task
 * descriptor (its grid the portion size) is at @tmd_offset of @tmd_bo,
 * walking @curve over @pgrid with take words (u32 a portion) at
 * @take_offset of @take_bo, runs at most @inflight of them at once, each
 * after the entries @map gives it at @wait_index + q of @table
 * (VMGPU_TAKE_NO_WAIT: none), and signals entry @signal_index + p.
 */
struct vmgpu_take_desc {
	uint32_t epoch;
	const struct vmgpu_bo *tmd_bo;
	uint64_t tmd_offset;
	const struct vmgpu_bo *take_bo;
	uint64_t take_offset;
	struct vmgpu_dep_table table;
	uint32_t signal_index, wait_index, inflight;
	uint32_t pgrid[3];
	struct vmgpu_curve curve;
	struct vmgpu_region_map map;	/* all zero without a wait */
};

int vmgpu_cmdbuf_take(struct vmgpu_cmdbuf *cb, const struct vmgpu_take_desc *t);
/* Entry @index of @table. */
struct vmgpu_dep_ref {
	struct vmgpu_dep_table table;
	uint32_t index;
};

/*
 * COPY_ASYNC (hardware 1.4; SPEC R6, R8): the copy of @r runs on the
 * GPU's copy engine, in order with the packet's other copies, while the
 * commands after it go on; BARRIER and the packet's end wait for it. With
 * @after it starts once that entry is READY in @epoch (a region pushed
 * as soon as it is written); with @signal it writes that entry READY in
 * @epoch once its bytes landed (a reader's DEP_WAIT waits for exactly the
 * data it reads). Both may be NULL (then @epoch is ignored).
 */
int vmgpu_cmdbuf_copy_async(struct vmgpu_cmdbuf *cb,
			    const struct vmgpu_bo *src,
			    const struct vmgpu_bo *dst,
			    const struct vmgpu_copy_rect *r, uint32_t epoch,
			    const struct vmgpu_dep_ref *after,
			    const struct vmgpu_dep_ref *signal);
/*
 * COPY_ASYNC with VMGPU_COPY_REPLICATE (SPEC R6, hybrid): the pages of
 * @bo that @r covers (in place: equal offsets and pitches) become read
 * replicas of the GPU running the packet, for the rest of the packet:
 * its reads of them are remote until the copy lands and local after.
 * Ordered by @after and @signal as vmgpu_cmdbuf_copy_async().
 */
int vmgpu_cmdbuf_replicate(struct vmgpu_cmdbuf *cb, const struct vmgpu_bo *bo,
			   const struct vmgpu_copy_rect *r, uint32_t epoch,
			   const struct vmgpu_dep_ref *after,
			   const struct vmgpu_dep_ref *signal);
/* SET_STATE (VMGPU_STATE_*), e.g. the per-dispatch instruction budget. */
int vmgpu_cmdbuf_set_state(struct vmgpu_cmdbuf *cb, uint32_t key,
			   uint32_t value);
/*
 * Append raw command words, unchecked (tests of the driver's checks). If
 * the last word is an END header the packet is finished as written: no
 * more builder calls, and submission appends nothing. Otherwise building
 * goes on and END is appended at submission as usual.
 */
int vmgpu_cmdbuf_raw(struct vmgpu_cmdbuf *cb, const uint32_t *words,
		     uint32_t count);

/* ------------------------------------------------------------------ */
/* Submission                                                           */
/* ------------------------------------------------------------------ */

struct vmgpu_sync {
	uint32_t handle;		/* syncobj */
	uint64_t point;			/* timeline point, 0 for binary */
};

/*
 * One packet per dispatch instead of one per command buffer (SPEC B8):
 * the baseline batching is compared with. SYNCs are dropped (packets of a
 * context run in order); state and other commands go with the next
 * dispatch, those after the last dispatch with the last one.
 */
#define VMGPU_SUBMIT_BASELINE		(1u << 0)

struct vmgpu_submit_info {
	uint32_t gpu;
	uint32_t flags;			/* VMGPU_SUBMIT_* */
	const struct vmgpu_sync *in;	/* waited for before the packet runs */
	uint32_t in_count;
	const struct vmgpu_sync *out;	/* signalled when the packet is done */
	uint32_t out_count;
};

/*
 * Submit the command buffer (END appended) as one packet on @info->gpu.
 * Returns the number of packets submitted (1, or one per dispatch in
 * baseline mode) or -errno.
 */
int vmgpu_submit(struct vmgpu_context *ctx, struct vmgpu_cmdbuf *cb,
		 const struct vmgpu_submit_info *info);

/* ------------------------------------------------------------------ */
/* Work distributor policy (Documentation/library.rst)                  */
/* ------------------------------------------------------------------ */

/* CTA issue modes (struct vmgpu_wd_policy.mode). */
#define VMGPU_WD_LOAD_BALANCE		0u	/* the SM with the most room */
#define VMGPU_WD_ROUND_ROBIN		1u	/* the next SM of the list */

/*
 * One GPU's work distributor policy: the CTA issue mode, the task-table
 * slots (dispatches running at once, 1..128) and the SM priority list
 * (the first num_sms entries: a permutation of the GPU's SMs; the rest 0).
 */
struct vmgpu_wd_policy {
	uint32_t mode;			/* VMGPU_WD_* */
	uint32_t table_slots;
	uint32_t num_sms;		/* out: entries of sm_order in use */
	uint8_t sm_order[64];
};

/* Read GPU @gpu's policy (any user). */
int vmgpu_wd_policy_get(struct vmgpu_device *dev, uint32_t gpu,
			struct vmgpu_wd_policy *policy);
/*
 * Set GPU @gpu's policy for every user of the device until the next set
 * or a reload of the driver. -EPERM without CAP_SYS_ADMIN, -EINVAL for a
 * value out of range or a list that is not a permutation (nothing
 * changes). @policy->num_sms may be 0 or the GPU's SMs.
 */
int vmgpu_wd_policy_set(struct vmgpu_device *dev, uint32_t gpu,
			const struct vmgpu_wd_policy *policy);
/* Name of a VMGPU_WD_* mode ("load-balance", "round-robin"), or "?". */
const char *vmgpu_wd_mode_name(uint32_t mode);

/* ------------------------------------------------------------------ */
/* Counters (debugfs; needs root and a mounted debugfs)                  */
/* ------------------------------------------------------------------ */

struct vmgpu_gpu_counters {
	uint64_t submits, packets, dispatches, irqs, irqs_complete, irqs_error;
	uint64_t work_runs, errors, timeouts, resets, busy_ns;
	uint64_t hw_packets, hw_dispatches, hw_interrupts, hw_errors;
	uint64_t hw_busy_ns;
};

/* Read GPU @gpu's driver and device counters. */
int vmgpu_gpu_counters(struct vmgpu_device *dev, uint32_t gpu,
		       struct vmgpu_gpu_counters *c);
/*
 * Read one counter of GPU @gpu by its name in the driver's debugfs
 * counters file: the driver's own, or "hw_" and a device counter's name
 * (Documentation/hardware-interface.rst), e.g. "hw_mmio_writes",
 * "hw_device_launches", "hw_queue_items", "hw_bytes_remote_read",
 * "hw_link_bytes1". -ENOENT if there is none.
 */
int vmgpu_gpu_counter(struct vmgpu_device *dev, uint32_t gpu,
		      const char *name, uint64_t *value);
/* Jobs the driver holds (queued, running or not yet freed), all files. */
int vmgpu_jobs_alive(struct vmgpu_device *dev);

/* ------------------------------------------------------------------ */
/* Assembler, disassembler, built-in kernels (Documentation/isa.rst)     */
/* ------------------------------------------------------------------ */

/*
 * Assemble @src into an executable image (struct vmgpu_exec_header + code),
 * returned in *image (free() it) and *bytes. -EINVAL with "line N: ..." in
 * @err on a syntax error, -ENOMEM when out of memory.
 */
int vmgpu_asm_assemble(const char *src, void **image, size_t *bytes,
		       char *err, size_t errlen);

/*
 * Disassemble an executable image into assembly source that assembles back
 * to the same bytes; *text is malloc()ed. -EINVAL if the header is invalid
 * or the image is truncated. Undecodable words come out as ".insn 0x...".
 */
int vmgpu_disasm_image(const void *image, size_t bytes, char **text,
		       char *err, size_t errlen);

/*
 * One instruction as text (branch targets as instruction numbers).
 * Returns 0, or -EINVAL if @insn is not a valid instruction (the text is
 * then ".insn 0x...").
 */
int vmgpu_disasm_insn(uint64_t insn, char *buf, size_t len);

/*
 * Assembly source of a built-in kernel, NULL if there is none by that name.
 * Argument blocks and launch shapes are documented with each kernel in
 * builtin_kernels.c and in Documentation/isa.rst.
 */
const char *vmgpu_builtin_kernel_source(const char *name);
/* NULL-terminated list of the built-in kernel names. */
const char *const *vmgpu_builtin_kernel_names(void);
/*
 * The built-in kernels but block_sm in OpenCL C, one program: the same
 * signatures and bit-identical results when compiled with
 * vmgpu_program_build() (the spin of fill and the work of stencil5 do
 * nothing there: LLVM removes the empty loops).
 */
const char *vmgpu_builtin_kernels_opencl(void);

#ifdef __cplusplus
}
#endif

#endif /* VMGPU_H */
