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
 * duplicate of @fd: the caller keeps @fd and closes it when it likes.
 * -ENODEV if @fd is not a vmgpu device.
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
	uint32_t size;			/* bytes: 4 or 8 */
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
/* Multi-GPU splitter (SPEC R; Documentation/regions.rst, "The splitter") */
/* ------------------------------------------------------------------ */

#define VMGPU_SPLIT_MAX_KERNELS		16
#define VMGPU_SPLIT_MAX_READS		4
#define VMGPU_SPLIT_MAX_RESOURCES	32

/* How the GPUs wait for each other between kernels of the chain. */
enum vmgpu_split_mode {
	/* (a) every GPU waits for every portion, then copies all of them */
	VMGPU_SPLIT_BARRIER = 0,
	/* (b) the same wait; halo copies overlap the portion's interior */
	VMGPU_SPLIT_OVERLAP,
	/* (c) a portion waits for the portions it reads (dependency table) */
	VMGPU_SPLIT_PORTION,
	/* (d) a region waits for the regions it reads, signalled per region */
	VMGPU_SPLIT_REGION,
	VMGPU_SPLIT_NUM_MODES
};

/* How data another GPU wrote reaches a reader (modes c and d; SPEC R6). */
enum vmgpu_split_movement {
	/* copy-then-read: after its wait the reader copies what it reads */
	VMGPU_MOVE_PULL = 0,
	/*
	 * the writer's copy engine copies each region, as soon as it is
	 * written, to the GPUs that read it; readers wait for its arrival
	 */
	VMGPU_MOVE_PUSH,
	/*
	 * prefetch (R8): at the start of each kernel the reader's copy
	 * engine queues copies of all its portions' inputs, each starting
	 * as soon as its region is written; units wait for their arrival
	 */
	VMGPU_MOVE_PREFETCH,
	/*
	 * direct remote read: one buffer per resource, each page in the
	 * memory of the GPU that writes it (vmgpu_bo_place()); no copy
	 */
	VMGPU_MOVE_REMOTE,
	/*
	 * hybrid: as REMOTE, and the reader's copy engine brings the pages
	 * it reads of other GPUs into its memory as read replicas as soon
	 * as they are written: reads are remote until they land, then local
	 */
	VMGPU_MOVE_HYBRID,
	VMGPU_MOVE_NUM
};

/*
 * A resource a kernel reads, @radius pixels around each of its pixels,
 * or anywhere (VMGPU_SPLIT_WHOLE in both: a texture sampled at computed
 * coordinates; its portions wait for every portion of the writer).
 */
struct vmgpu_split_read {
	uint32_t resource;
	uint32_t radius[2];		/* x, y; at most one block, or WHOLE */
	uint32_t args_offset;		/* its u64 address in the arguments */
};

#define VMGPU_SPLIT_WHOLE		UINT32_MAX

/*
 * One kernel of the chain: one thread per pixel of the whole image, in
 * blocks of the chain's @block threads (the portion's origin in
 * %ctaid). The splitter writes each resource's address for the GPU that
 * runs it at the given offsets of a copy of @args.
 */
struct vmgpu_split_kernel {
	const struct vmgpu_bo *kernel;
	const void *args;
	uint32_t args_bytes;
	uint32_t num_reads;
	struct vmgpu_split_read reads[VMGPU_SPLIT_MAX_READS];
	uint32_t write;			/* the resource it writes */
	uint32_t write_args_offset;
	uint32_t flags;			/* VMGPU_SPLIT_DRAW */
};

/*
 * A draw-style pass (SPEC R9): its blocks are screen tiles. Each portion
 * is one dispatch whose tiles the device issues in raster order, waiting
 * before it starts for all its tiles read, and signalling each region
 * (rows of tiles) as soon as it is drawn, so compute kernels after it
 * start region by region, and compute before it is waited for as any
 * consumer waits: dependencies in both directions.
 */
#define VMGPU_SPLIT_DRAW		(1u << 0)

/*
 * A chain of kernels over one 2-D index space split across GPUs 0..gpus-1.
 * Every resource is @width x @height pixels of 4 bytes, row-major. A
 * resource with a buffer here is shared by the GPUs (inputs and outputs:
 * read where it is, written by each GPU for its own pixels); one without
 * is kept by the splitter, one copy in each GPU's memory. Each resource is
 * written by at most one kernel, after any kernel that reads it.
 */
struct vmgpu_split_desc {
	uint32_t width, height;
	uint32_t block[2];		/* threads per block; divide the image */
	uint32_t num_kernels;
	struct vmgpu_split_kernel kernels[VMGPU_SPLIT_MAX_KERNELS];
	uint32_t num_resources;
	struct vmgpu_bo *resources[VMGPU_SPLIT_MAX_RESOURCES];
	uint32_t gpus;
	uint32_t mode;			/* VMGPU_SPLIT_* */
	uint32_t movement;		/* VMGPU_MOVE_* (modes c, d) */
	/* Portion grid in x, y, dividing the blocks; 0, 0: by GPU count. */
	uint32_t portions[2];
	/* Mode d: blocks per region, dividing a portion; 0, 0: 4 rows. */
	uint32_t region[2];
	/*
	 * VMGPU_SPLIT_STATIC: portion i runs on GPU i % gpus.
	 * VMGPU_SPLIT_DYNAMIC (R7): the GPUs take portions as they become
	 * free, each walking its own curve (TAKE); mode PORTION only, each
	 * kernel reading at most one resource another kernel writes, and
	 * every resource one buffer the GPUs share (the splitter's own in
	 * GPU r % gpus's memory). Portions default to 8 x 8.
	 */
	uint32_t allocation;
};

#define VMGPU_SPLIT_STATIC		0u
#define VMGPU_SPLIT_DYNAMIC		1u

/* What one run did, in device time (TIMESTAMP at each packet's ends). */
struct vmgpu_split_stats {
	uint64_t makespan_ns;		/* first start to last end */
	uint64_t start_ns[VMGPU_MAX_GPUS], end_ns[VMGPU_MAX_GPUS];
	uint32_t dispatches[VMGPU_MAX_GPUS];
	uint32_t copies[VMGPU_MAX_GPUS];
	uint32_t waits[VMGPU_MAX_GPUS];	/* DEP_WAIT commands */
};

struct vmgpu_split;

/*
 * Plan the chain (every field checked: -EINVAL or -E2BIG with the rule in
 * vmgpu_error_message()) and allocate its per-GPU resources and table.
 */
int vmgpu_split_create(struct vmgpu_device *dev,
		       const struct vmgpu_split_desc *desc,
		       struct vmgpu_split **out);
void vmgpu_split_destroy(struct vmgpu_split *split);
/*
 * Run the chain once on @ctx: one packet per GPU, submitted together,
 * every wait between GPUs done by the GPUs (no interrupt, no register),
 * then wait for them (@timeout_ns each). @stats may be NULL.
 */
int vmgpu_split_run(struct vmgpu_split *split, struct vmgpu_context *ctx,
		    int64_t timeout_ns, struct vmgpu_split_stats *stats);

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
/* Task graphs (SPEC T1-T7, Documentation/taskgraph.rst)                 */
/* ------------------------------------------------------------------ */

/*
 * A task graph is built by running a specification program: format A is
 * this C API (a pass definition is a C function calling
 * vmgpu_graph_pass_begin() ... vmgpu_graph_pass_end(); an invocation is a
 * call of it under the program's own loops and conditions), format B a
 * flat command stream (vmgpu_graph_run_stream()). Each executed pass is a
 * pass node; each distinct resource a resource node. Building needs no
 * device. One thread at a time builds a graph; a compiled schedule is
 * immutable and may be recorded from several threads at once. After a
 * failure, vmgpu_graph_error_message() tells what went wrong.
 */
struct vmgpu_graph;
struct vmgpu_schedule;

int vmgpu_graph_create(struct vmgpu_graph **out);
void vmgpu_graph_destroy(struct vmgpu_graph *g);
/* Forget the passes (a new run of the program); resources stay. */
void vmgpu_graph_reset(struct vmgpu_graph *g);
/* The message of the most recent failed call on @g; returns its length. */
size_t vmgpu_graph_error_message(struct vmgpu_graph *g, char *buf,
				 size_t len);

/*
 * A resource node: the buffer @bo (its size when @size is 0), or, with @bo
 * NULL, a transient resource of @size bytes with no memory yet: it orders
 * passes like any other, but a copy or clear of it reaches the recording
 * callback without a buffer, which vmgpu_graph_record() refuses. The same
 * buffer declared again is the same resource. Returns the id (>= 0) or
 * -errno.
 */
int vmgpu_graph_resource(struct vmgpu_graph *g, const char *name,
			 const struct vmgpu_bo *bo, uint64_t size);
int vmgpu_graph_resource_count(const struct vmgpu_graph *g);

/*
 * What a pass occupies on one GPU while it runs, for the overlap rule:
 * resident blocks, threads, 32-bit registers and shared-memory bytes
 * (the largest of its dispatches: the commands of a pass run in order).
 */
struct vmgpu_graph_needs {
	uint64_t blocks;
	uint64_t threads;
	uint64_t regs;
	uint64_t shared_bytes;
};

/*
 * The needs of dispatch @d of the executable @image (NULL: registers and
 * static shared memory unknown, counted 0): blocks = grid, threads =
 * blocks x block threads, regs = threads x the header's num_regs,
 * shared = blocks x (static + dynamic shared bytes).
 */
int vmgpu_dispatch_needs(const void *image, size_t bytes,
			 const struct vmgpu_dispatch_desc *d,
			 struct vmgpu_graph_needs *needs);

/* Format A: a pass invocation. Returns the pass's index, or -errno. */
int vmgpu_graph_pass_begin(struct vmgpu_graph *g, const char *name);
/* Resource import (read edge resource -> pass), export (write edge). */
int vmgpu_graph_pass_read(struct vmgpu_graph *g, int resource);
int vmgpu_graph_pass_write(struct vmgpu_graph *g, int resource);
/* Optional state of the pass: SET_STATE @key (VMGPU_STATE_*) = @value. */
int vmgpu_graph_pass_state(struct vmgpu_graph *g, uint32_t key,
			   uint32_t value);
/* Needs given by hand; they replace the ones derived from dispatches. */
int vmgpu_graph_pass_needs(struct vmgpu_graph *g,
			   const struct vmgpu_graph_needs *needs);
/*
 * Pass commands, run in the order given. A dispatch is copied (its
 * argument block or typed arguments too); its kernel may be NULL in a
 * graph that is only compiled and inspected, not recorded.
 */
int vmgpu_graph_pass_dispatch(struct vmgpu_graph *g,
			      const struct vmgpu_dispatch_desc *d);
int vmgpu_graph_pass_copy(struct vmgpu_graph *g, int src, uint64_t src_offset,
			  int dst, uint64_t dst_offset, uint64_t bytes);
/* Fill @bytes (4-aligned, as @offset) at @offset of @resource with @value. */
int vmgpu_graph_pass_clear(struct vmgpu_graph *g, int resource,
			   uint64_t offset, uint64_t bytes, uint32_t value);
/*
 * Splitting (T7): the pass's blocks are independent of each other (none
 * waits for or reads what another writes), so it may run as parts of at
 * most @max_blocks blocks along x. At pass_end a pass of one dispatch
 * with more blocks becomes that many passes (this one and the next
 * indices), each a portion of the index space (origin, grid_total),
 * with the pass's edges and state and no dependency on each other.
 */
int vmgpu_graph_pass_split(struct vmgpu_graph *g, uint32_t max_blocks);
int vmgpu_graph_pass_end(struct vmgpu_graph *g);
int vmgpu_graph_pass_count(const struct vmgpu_graph *g);

/*
 * Inspection. The passes @pass depends on (earlier passes it must follow),
 * each with VMGPU_DEP_* bits; returns how many (all of them, even beyond
 * @max).
 */
#define VMGPU_DEP_RAW		(1u << 0)	/* reads what it wrote */
#define VMGPU_DEP_WAR		(1u << 1)	/* writes what it read */
#define VMGPU_DEP_WAW		(1u << 2)	/* writes what it wrote */
#define VMGPU_DEP_STAGE		(1u << 3)	/* schedule: the stage before */
struct vmgpu_graph_dep {
	uint32_t pass;
	uint32_t kinds;			/* VMGPU_DEP_* */
};
int vmgpu_graph_pass_deps(const struct vmgpu_graph *g, uint32_t pass,
			  struct vmgpu_graph_dep *deps, uint32_t max);
/*
 * The graph as text, one line per resource and per pass (its name, read
 * and write edges, needs, state and commands); *@text is malloc()ed.
 * Format A and format B runs of one program print the same text.
 */
int vmgpu_graph_print(const struct vmgpu_graph *g, char **text);

/*
 * Format B (Documentation/taskgraph.rst): a stream of little-endian
 * 32-bit words. Running it on the host evaluates its loops and conditions
 * against @b->params and adds its pass blocks to @g. Stream resource i is
 * graph resource @b->resources[i] (or i when @b->resources is NULL);
 * "dispatch i" is @b->dispatches[i].
 */
struct vmgpu_graph_bindings {
	const int *resources;
	uint32_t num_resources;
	const struct vmgpu_dispatch_desc *dispatches;
	uint32_t num_dispatches;
	const int64_t *params;
	uint32_t num_params;
	/*
	 * T8 placement (c), vmgpu_graph_record_stream() only: NULL, or
	 * @num_params entries saying which parameters are values the GPU
	 * produces (struct vmgpu_graph_gpu_value).
	 */
	const struct vmgpu_graph_gpu_value *gpu_values;
};

/*
 * A parameter the GPU produces: the 32-bit word at @offset (4-aligned)
 * of graph resource @resource (a buffer), read by the device as an
 * unsigned value when the command processor reaches the condition that
 * uses it, after the passes before it that write @resource. @resource
 * -1: the parameter is params[P], known on the host. A "loop $P" runs
 * at most @max_count iterations (unrolled, each skipped on the device
 * when the count says so).
 */
struct vmgpu_graph_gpu_value {
	int resource;
	uint64_t offset;
	uint32_t max_count;
};
int vmgpu_graph_run_stream(struct vmgpu_graph *g, const uint32_t *words,
			   size_t count, const struct vmgpu_graph_bindings *b);
/* Text form <-> words (*@words, *@text malloc()ed); "line N: ..." in @err. */
int vmgpu_graph_stream_parse(const char *text, uint32_t **words,
			     size_t *count, char *err, size_t errlen);
int vmgpu_graph_stream_print(const uint32_t *words, size_t count,
			     char **text, char *err, size_t errlen);

/*
 * One GPU's capacity for the overlap rule: SMs and per-SM resident
 * threads, registers, shared memory and blocks (the device's sm-*
 * settings), and memory bytes for the resources of passes that overlap.
 * 0 means no limit in that dimension.
 */
struct vmgpu_graph_limits {
	uint32_t sms;
	uint32_t sm_threads;
	uint32_t sm_regs;
	uint32_t sm_shared_bytes;
	uint32_t sm_blocks;
	uint64_t memory_bytes;
	/*
	 * Transient resources live at once (T6): when the ones already
	 * live and those a pass would bring to life exceed it, passes that
	 * bring none (their last consumers among them) go first and the
	 * others wait for a later stage. 0: no budget.
	 */
	uint64_t transient_budget;
};

/*
 * Order and overlap the passes into stages (passes of one stage may run
 * together; see the rule in Documentation/taskgraph.rst). @limits NULL:
 * no limit. The schedule remembers the graph's shape: it can be recorded
 * for any later run of the program that gives the same shape.
 */
int vmgpu_graph_compile(struct vmgpu_graph *g,
			const struct vmgpu_graph_limits *limits,
			struct vmgpu_schedule **out);
void vmgpu_schedule_destroy(struct vmgpu_schedule *s);
/* 1 if @s was compiled from a graph of @g's shape, else 0. */
int vmgpu_schedule_matches(const struct vmgpu_schedule *s,
			   const struct vmgpu_graph *g);
int vmgpu_schedule_stage_count(const struct vmgpu_schedule *s);
/* Passes of stage @stage in emission order; returns how many. */
int vmgpu_schedule_stage(const struct vmgpu_schedule *s, uint32_t stage,
			 uint32_t *passes, uint32_t max);
/* The stage of @pass, or -EINVAL. */
int vmgpu_schedule_pass_stage(const struct vmgpu_schedule *s, uint32_t pass);
/*
 * The passes @pass waits for when recorded (dependencies and stage order,
 * none implied by another): the SYNCs of its first dispatch, or the
 * BARRIER before a first copy or clear. Returns how many.
 */
int vmgpu_schedule_waits(const struct vmgpu_schedule *s, uint32_t pass,
			 struct vmgpu_graph_dep *waits, uint32_t max);

/*
 * Transient memory (T6). A transient resource used by the graph lives
 * from the first to the last stage of a pass that reads or writes it;
 * transients whose lives are disjoint share memory: each has an offset
 * (aligned to 256) in one heap of @heap_bytes. @peak_live_bytes is the
 * largest sum of sizes live in one stage, @unaliased_bytes the heap
 * without sharing.
 */
struct vmgpu_graph_memory {
	uint64_t heap_bytes;
	uint64_t peak_live_bytes;
	uint64_t unaliased_bytes;
	uint32_t transients;
};
int vmgpu_schedule_memory(const struct vmgpu_schedule *s,
			  struct vmgpu_graph_memory *m);
/* -ENOENT if @resource is a buffer or no pass uses it. Outputs may be NULL. */
int vmgpu_schedule_transient(const struct vmgpu_schedule *s,
			     uint32_t resource, uint64_t *offset,
			     uint32_t *first_stage, uint32_t *last_stage);

/*
 * Feedback (T5). Each pass's estimated cost is the median of its last 5
 * measured durations (ns), kept per pass index across runs of the
 * program while the pass there keeps its name; its priority is the
 * longest path of estimated costs from it to the end. The scheduler
 * takes ready passes by priority (unmeasured passes cost 0: program
 * order). vmgpu_schedule_is_current() is 0 when the graph's shape
 * changed or the estimates now order the passes otherwise than when @s
 * was compiled (a pass's priority above the one before it by more than
 * 1/8), then compile again; -errno on failure.
 */
int vmgpu_graph_pass_sample(struct vmgpu_graph *g, uint32_t pass,
			    uint64_t ns);
/* The estimate of @pass, -ENODATA if never measured. */
int vmgpu_graph_pass_cost(const struct vmgpu_graph *g, uint32_t pass,
			  uint64_t *ns);
/*
 * Durations from a timed recording's npasses + 1 timestamps (@count):
 * pass k of the schedule's order took @stamps[k + 1] - @stamps[k].
 */
int vmgpu_graph_feedback(struct vmgpu_graph *g, const struct vmgpu_schedule *s,
			 const uint64_t *stamps, uint32_t count);
int vmgpu_schedule_is_current(const struct vmgpu_schedule *s,
			      struct vmgpu_graph *g);
/* The priority @pass had when @s was compiled. */
int vmgpu_schedule_pass_priority(const struct vmgpu_schedule *s,
				 uint32_t pass, uint64_t *prio);

/*
 * Recording: the schedule's passes in order as commands, through @emit
 * (one call per command, @op valid during the call). A DISPATCH call
 * returns the dispatch's index in the packet (first @first_dispatch),
 * the others 0; a negative return stops recording with that error.
 */
#define VMGPU_GRAPH_OP_USE		0u	/* declare bo (flags VMGPU_USE_*) */
#define VMGPU_GRAPH_OP_STATE		1u
#define VMGPU_GRAPH_OP_DISPATCH		2u
#define VMGPU_GRAPH_OP_SYNC		3u
#define VMGPU_GRAPH_OP_BARRIER		4u
#define VMGPU_GRAPH_OP_COPY		5u
#define VMGPU_GRAPH_OP_WRITE_VALUE	6u
#define VMGPU_GRAPH_OP_TIMESTAMP	7u	/* clock to slot @value */
#define VMGPU_GRAPH_OP_SKIP_IF		8u	/* T8: see below */

struct vmgpu_graph_op {
	uint32_t type;			/* VMGPU_GRAPH_OP_* */
	uint32_t pass;			/* the pass it belongs to */
	const struct vmgpu_dispatch_desc *dispatch;
	uint32_t consumer, producer;	/* SYNC */
	uint32_t key, value;		/* STATE; WRITE_VALUE's value */
	int src, dst;			/* resources: COPY; WRITE_VALUE, USE dst */
	const struct vmgpu_bo *src_bo, *dst_bo;
	uint64_t src_offset, dst_offset, bytes;
	uint32_t flags;			/* USE: VMGPU_USE_READ */
	/* T8: DISPATCH as a task descriptor (LAUNCH_TMD) when @tmd. */
	uint32_t tmd, quota;
	uint64_t sm_mask;
	/*
	 * T8 SKIP_IF: after dispatch @after (or VMGPU_SKIP_IF_NOW), skip
	 * @skip commands if (the word at @dst_offset of @dst_bo & @mask)
	 * @cond_op @value.
	 */
	uint32_t cond_op, mask, after, skip;
};
typedef int (*vmgpu_graph_emit_fn)(void *opaque,
				   const struct vmgpu_graph_op *op);
/* -ESTALE if @g's shape is not the one @s was compiled for. */
int vmgpu_graph_record_ops(struct vmgpu_graph *g,
			   const struct vmgpu_schedule *s,
			   uint32_t first_dispatch, vmgpu_graph_emit_fn emit,
			   void *opaque);
/*
 * A timed recording (T5) runs the passes one at a time so that each
 * one's device time is its own: TIMESTAMP slot 0, then after each pass
 * a BARRIER and TIMESTAMP slot k + 1 (npasses + 1 slots, 8 bytes each).
 */
int vmgpu_graph_record_timed_ops(struct vmgpu_graph *g,
				 const struct vmgpu_schedule *s,
				 uint32_t first_dispatch,
				 vmgpu_graph_emit_fn emit, void *opaque);
/* Into @cb, the timestamps into @bo at @offset (8-aligned). */
int vmgpu_graph_record_timed(struct vmgpu_graph *g,
			     const struct vmgpu_schedule *s,
			     struct vmgpu_cmdbuf *cb, const struct vmgpu_bo *bo,
			     uint64_t offset);
/*
 * Record into @cb (vmgpu_cmdbuf_* calls): a SYNC only where a pass waits
 * for a dispatch, a BARRIER only before a copy or clear that waits for
 * one. Submit @cb as usual: one packet, one interrupt.
 */
int vmgpu_graph_record(struct vmgpu_graph *g, const struct vmgpu_schedule *s,
		       struct vmgpu_cmdbuf *cb);

/*
 * T8 placements (Documentation/taskgraph.rst). (a) is the above: the
 * host orders the passes into stages and records them.
 *
 * (b) Scheduled by the device's command processor: every dispatch is a
 * task descriptor in GPU memory (LAUNCH_TMD), the passes in program
 * order with a SYNC on each pass it depends on by data; the command
 * processor issues each pass as its producers finish. No schedule.
 */
int vmgpu_graph_record_cp_ops(struct vmgpu_graph *g, uint32_t first_dispatch,
			      vmgpu_graph_emit_fn emit, void *opaque);
int vmgpu_graph_record_cp(struct vmgpu_graph *g, struct vmgpu_cmdbuf *cb);
/*
 * (c) Built and scheduled on the device: run the format B program
 * @words into @g (which must have no passes) with @b, where the
 * parameters @b->gpu_values names are values the GPU produces, and
 * record it as (b) does, with a SKIP_IF around every pass block under a
 * condition or loop on such a value. -EINVAL if the program changes its
 * bindings (read, write, drop, state, needs, name) under such a
 * condition, or has one inside a pass group.
 */
int vmgpu_graph_record_stream_ops(struct vmgpu_graph *g, const uint32_t *words,
				  size_t count,
				  const struct vmgpu_graph_bindings *b,
				  uint32_t first_dispatch,
				  vmgpu_graph_emit_fn emit, void *opaque);
int vmgpu_graph_record_stream(struct vmgpu_graph *g, const uint32_t *words,
			      size_t count,
			      const struct vmgpu_graph_bindings *b,
			      struct vmgpu_cmdbuf *cb);

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

/* ------------------------------------------------------------------ */
/* OpenCL C compiler (Documentation/compiler.rst)                       */
/* ------------------------------------------------------------------ */

struct vmgpu_program;

/*
 * Compile @source, OpenCL C 1.2: every kernel of it becomes an executable
 * with its signature. @options (NULL or "") holds clang's
 * -D/-I/-U/-w/-Werror/-cl-* options and the compiler's own
 * -vmgpu-source-name=NAME (the file name in messages, default input.cl),
 * -vmgpu-max-regs=N (16..128) and -vmgpu-isa=N (the device ISA version to
 * compile for, default VMGPU_ISA_VERSION; each executable's header names
 * the oldest version that has what it uses). *@log (free() it; may be NULL when
 * out of memory) receives the build log: clang's diagnostics and the back
 * end's, "FILE:LINE:COL: error: ...". -EINVAL on a compile error, -ENOMEM.
 * Builds in several threads run independently.
 */
int vmgpu_program_build(const char *source, const char *options,
			struct vmgpu_program **out, char **log);
/* Free a program; NULL is accepted. */
void vmgpu_program_destroy(struct vmgpu_program *prog);
/* Number of kernels, and the name of kernel @index (NULL if none). */
int vmgpu_program_kernel_count(const struct vmgpu_program *prog);
const char *vmgpu_program_kernel_name(const struct vmgpu_program *prog,
				      uint32_t index);
/*
 * The executable of kernel @name (for vmgpu_kernel_create()): valid while
 * the program lives. -ENOENT if there is no such kernel.
 */
int vmgpu_program_kernel_image(const struct vmgpu_program *prog,
			       const char *name, const void **image,
			       size_t *bytes);
/*
 * Bytes of private memory each thread of kernel @name needs (private
 * arrays, spilled registers), 0 if none. When not 0 the kernel's last
 * parameter is the buffer "vmgpu_private" (buf_rw): at least this many
 * bytes times the threads of the whole index space (grid_total x block).
 */
int vmgpu_program_kernel_private_bytes(const struct vmgpu_program *prog,
				       const char *name);

/* How a program was obtained (vmgpu_program_origin()). */
enum vmgpu_program_origin {
	VMGPU_PROGRAM_COMPILED = 1,	/* compiled from source just now */
	VMGPU_PROGRAM_CACHED,		/* compiled before: the kernel cache */
	VMGPU_PROGRAM_AS_IS,		/* a library's executables, its version */
	VMGPU_PROGRAM_FALLBACK,		/* a library's older executables */
};

/* VMGPU_PROGRAM_*, -EINVAL for NULL. */
int vmgpu_program_origin(const struct vmgpu_program *prog);
/* The ISA version the program was built or chosen for, -EINVAL for NULL. */
int vmgpu_program_isa_version(const struct vmgpu_program *prog);

/* ------------------------------------------------------------------ */
/* Kernel libraries, online compilation, the kernel cache (SPEC P4,    */
/* Documentation/compiler.rst)                                         */
/* ------------------------------------------------------------------ */

struct vmgpu_compiler;
struct vmgpu_kernlib;

/* vmgpu_compiler_create() flags */
#define VMGPU_COMPILER_NO_CACHE		(1u << 0)	/* no kernel cache */

/*
 * A compiler: the kernel cache's directory and counters. @cache_dir NULL
 * means $VMGPU_KERNEL_CACHE, else $XDG_CACHE_HOME/vmgpu/kernels, else
 * $HOME/.cache/vmgpu/kernels (created when first written, mode 0700);
 * with none of them set, or VMGPU_COMPILER_NO_CACHE, there is no cache.
 * -EINVAL (unknown flag, relative or empty @cache_dir), -ENOMEM. One
 * compiler may be used from several threads.
 */
int vmgpu_compiler_create(const char *cache_dir, uint32_t flags,
			  struct vmgpu_compiler **out);
void vmgpu_compiler_destroy(struct vmgpu_compiler *cc);
/* The cache directory, "" when there is no cache. */
const char *vmgpu_compiler_cache_dir(const struct vmgpu_compiler *cc);

/* What a compiler did, since its creation. */
struct vmgpu_compiler_stats {
	uint64_t builds;		/* vmgpu_kernlib_build*() that succeeded */
	uint64_t as_is;			/* ... with executables of the version */
	uint64_t compiles;		/* sources compiled */
	uint64_t compile_failures;	/* ... that did not compile */
	uint64_t cache_hits;		/* executables read from the cache */
	uint64_t cache_misses;		/* no usable entry */
	uint64_t cache_corrupt;		/* entries found invalid, ignored */
	uint64_t cache_stores;		/* entries written */
	uint64_t cache_store_failures;	/* entries that could not be */
	uint64_t fallbacks;		/* older executables used */
	uint64_t failures;		/* nothing usable: -ENOEXEC */
};

/* Fill @st (thread-safe; each counter is read atomically). */
int vmgpu_compiler_get_stats(struct vmgpu_compiler *cc,
			     struct vmgpu_compiler_stats *st);

/*
 * A kernel library: OpenCL C source (NULL: none) with its build @options
 * (NULL or ""), and executables per ISA version, added later or read from
 * a file. @name (NULL: "kernels") names it in messages. -EINVAL, -ENOMEM.
 */
int vmgpu_kernlib_create(const char *name, const char *source,
			 const char *options, struct vmgpu_kernlib **out);
void vmgpu_kernlib_destroy(struct vmgpu_kernlib *lib);

/*
 * Add the executable @image (header, code and signature: the kernel's
 * name comes from it) of @bytes for devices of ISA version @isa_version,
 * with the private bytes per thread it needs. The image is validated
 * (header, every instruction for its own version, which must not be above
 * @isa_version, signature). -EINVAL with the reason in @err, -EEXIST if
 * the library has that kernel for that version, -ENOMEM.
 */
int vmgpu_kernlib_add_executable(struct vmgpu_kernlib *lib,
				 uint32_t isa_version, const void *image,
				 size_t bytes, uint32_t private_bytes,
				 char *err, size_t errlen);
/* Add every kernel of @prog for its ISA version (as above). */
int vmgpu_kernlib_add_program(struct vmgpu_kernlib *lib,
			      const struct vmgpu_program *prog, char *err,
			      size_t errlen);
/* Bit N set if the library has executables for ISA version N; -EINVAL. */
int vmgpu_kernlib_isa_versions(struct vmgpu_kernlib *lib);

/*
 * The library as a file (the format is in Documentation/compiler.rst):
 * *data is malloc()ed. write_file writes a temporary file next to @path
 * and renames it, so readers never see a partial one. -EINVAL, -ENOMEM,
 * or the file system's error.
 */
int vmgpu_kernlib_write(struct vmgpu_kernlib *lib, void **data,
			size_t *bytes);
int vmgpu_kernlib_write_file(struct vmgpu_kernlib *lib, const char *path);
/*
 * Read a library file, validating everything in it (a truncated or
 * corrupt file, a bad executable: -EINVAL with the reason in @err).
 * @name as for vmgpu_kernlib_create() (read_file: the path).
 */
int vmgpu_kernlib_read(const void *data, size_t bytes, const char *name,
		       struct vmgpu_kernlib **out, char *err, size_t errlen);
int vmgpu_kernlib_read_file(const char *path, struct vmgpu_kernlib **out,
			    char *err, size_t errlen);

/*
 * The library's kernels for a device of ISA version @isa_version
 * (VMGPU_ISA_VERSION_MIN..VMGPU_ISA_VERSION), in this order:
 *  1. executables for that version: used as is;
 *  2. the source, with the library's options then @options (NULL or ""):
 *     from the cache if it was compiled before (same source, options,
 *     compiler and version), else compiled and stored in the cache;
 *  3. when that fails (or there is no source), the executables of the
 *     newest older version;
 *  4. else -ENOEXEC, the log naming the library and the versions.
 * *@log (free() it; may be NULL) gets the compiler's messages and a line
 * saying which rule applied. -EINVAL for bad arguments, -ENOMEM.
 */
int vmgpu_kernlib_build(struct vmgpu_compiler *cc, struct vmgpu_kernlib *lib,
			uint32_t isa_version, const char *options,
			struct vmgpu_program **out, char **log);
/* The same for @dev's ISA version (DRM_VMGPU_PARAM_ISA_VERSION). */
int vmgpu_kernlib_build_for_device(struct vmgpu_compiler *cc,
				   struct vmgpu_kernlib *lib,
				   struct vmgpu_device *dev,
				   const char *options,
				   struct vmgpu_program **out, char **log);

#ifdef __cplusplus
}
#endif

#endif /* VMGPU_H */
