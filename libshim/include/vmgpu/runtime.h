/* SPDX-License-Identifier: MIT */
/*
 * libvmgpurt: the parallel runtime over vmgpu GPUs and the CPU (SPEC P1-P7,
 * Documentation/runtime.rst).
 *
 * An application states what it needs (a capability request), gets a
 * device identifier for the set of devices that match, creates a context
 * on it, and enqueues kernel instances on queues of that context; the
 * runtime orders them by their dependencies (explicit events and data
 * flow on buffers) and priorities and places each one on a device of the
 * set: whichever is expected to finish it first (queue + transfers +
 * execution, from the kernel's history on that device).
 *
 * The runtime is its own library (libvmgpurt, pkg-config vmgpurt): its
 * CPU device runs the kernels' executables with the device model's ISA
 * interpreter (libvgcore), which libvmgpu does not carry. It links
 * libvmgpu and libvgcore.
 *
 * Conventions, as in vmgpu.h: an int return is 0 (or a count) on success
 * and a negative errno on failure, with a message for
 * vmgpu_rt_error_message(); one runtime may be used from several threads;
 * nothing is global.
 *
 * Handles. Contexts, buffers, kernels, queues and events are named by
 * 64-bit handles, not pointers: a handle carries its runtime's tag, its
 * kind, a slot and the slot's generation. Every call looks a handle up
 * and refuses, never dereferencing anything:
 *   -ESTALE  a handle released (its last reference dropped): the design's
 *            "invalid context" for a context handle;
 *   -EBADF   a handle of another runtime, of another kind, or garbage.
 * Each handle is reference counted: created with one reference,
 * vmgpu_rt_retain() adds one, vmgpu_rt_release() drops one; the object
 * goes when the last one is dropped and the work that still uses it (a
 * queued instance holds its kernel, buffers and events) is done.
 */
#ifndef VMGPU_RUNTIME_H
#define VMGPU_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include <vmgpu.h>
#include <vmgpu/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vmgpu_rt;
typedef uint64_t vmgpu_rt_handle;	/* 0 is never a valid handle */

/* ------------------------------------------------------------------ */
/* Device back ends                                                     */
/* ------------------------------------------------------------------ */

/*
 * What a physical device says about itself (P1). The runtime fills the
 * CPU device's; a GPU back end fills its GPUs'.
 */
#define VMGPU_RT_TYPE_GPU		1u
#define VMGPU_RT_TYPE_CPU		2u

struct vmgpu_rt_caps {
	uint32_t type;			/* VMGPU_RT_TYPE_* */
	char vendor[32];
	char name[64];
	uint32_t isa_version;		/* newest ISA version it runs */
	uint32_t compute_units;		/* SMs, or CPU worker cores */
	uint32_t warp_width;		/* lanes a warp instruction moves */
	uint32_t clock_khz;
	uint32_t local_mem_mb;		/* its own memory (CPU: 0, host's) */
	uint32_t shared_mem_per_block;	/* bytes of local (shared) memory */
	uint32_t max_block_threads;
	uint32_t fp64;			/* 1 if it has double precision */
	/* Transfers, for placement: to/from the host, to/from a peer. */
	uint32_t host_bw_mbps, host_lat_ns;
	uint32_t peer_bw_mbps, peer_lat_ns;
};

/*
 * A GPU back end: the runtime's only way to one group of GPUs (the GPUs
 * of one render node through libvmgpu, or of the in-process device model
 * in host tests). Every call is made from the runtime's scheduler thread
 * or under its lock, one at a time per back end. @gpu is the back end's
 * GPU index. run() is synchronous: it returns when the dispatch is done,
 * with its device time (ns on the GPU's clock) and a VMGPU_FAULT_* code
 * (0: none). Memory is GPU-local memory of @gpu; a back end gives each
 * allocation a GPU address and a host pointer the runtime copies through.
 */
struct vmgpu_rt_launch_desc {
	uint64_t code;			/* kernel_load()'s token */
	const void *args;
	uint32_t args_bytes;
	uint32_t grid[3], block[3];
	/* A portion (P7): its first block and the whole grid. */
	uint32_t origin[3], grid_total[3];
	uint32_t shared_bytes;
};

struct vmgpu_rt_gpu_ops {
	int (*count)(void *be);
	int (*query)(void *be, uint32_t gpu, struct vmgpu_rt_caps *caps);
	int (*mem_alloc)(void *be, uint32_t gpu, uint64_t bytes,
			 uint64_t *gpu_va, void **host);
	void (*mem_free)(void *be, uint32_t gpu, uint64_t gpu_va);
	int (*kernel_load)(void *be, uint32_t gpu, const void *image,
			   size_t bytes, uint64_t *code);
	int (*run)(void *be, uint32_t gpu,
		   const struct vmgpu_rt_launch_desc *l, uint64_t *device_ns,
		   uint32_t *fault);
};

struct vmgpu_rt_backend {
	const struct vmgpu_rt_gpu_ops *ops;
	void *opaque;
};

/*
 * The embedded device (libshim/runtime/embedded.c): a back end of GPUs
 * simulated in the process by the device model, for hosts without a VM.
 * @config: comma-separated name=value, the device's settings (gpus,
 * sms, clock-khz, ...: vmgpu-settings), memory=MB, the guest memory
 * it simulates (default 1024), and trace=FILE, where the device trace
 * goes (Chrome JSON, or SVG for a name ending in .svg: vmgpu-trace's
 * formats), written when the back end is closed and by
 * vmgpu_rt_embedded_trace_write(); NULL: the environment variable
 * VMGPU_EMBEDDED; unset or empty: the defaults with gpus=4. -EINVAL and
 * a message naming the setting in @err for a bad one. Close it after the
 * runtimes using it are destroyed.
 */
int vmgpu_rt_embedded_open(const char *config, struct vmgpu_rt_backend *out,
			   char *err, size_t errlen);
void vmgpu_rt_embedded_close(struct vmgpu_rt_backend *be);
/*
 * Write the trace=FILE of the records so far (the whole trace since
 * the back end opened): 0, 0 without trace=, or -errno (also said on
 * standard error, as the setting asked for it).
 */
int vmgpu_rt_embedded_trace_write(struct vmgpu_rt_backend *be);

/* ------------------------------------------------------------------ */
/* The runtime                                                          */
/* ------------------------------------------------------------------ */

/* Placement policies (vmgpu_rt_config.policy, vmgpu_rt_set_policy). */
enum vmgpu_rt_policy {
	/*
	 * dmda: the device with the earliest expected completion (queue +
	 * transfers + execution); execution estimated per kernel, size and
	 * device as the median of its last samples. The default.
	 */
	VMGPU_RT_POLICY_DMDA = 0,
	/* dmda with the mean of every sample (outliers count fully) */
	VMGPU_RT_POLICY_DMDA_MEAN,
	/* the next device of the set in turn */
	VMGPU_RT_POLICY_ROUND_ROBIN,
	/* always the first device of the set */
	VMGPU_RT_POLICY_FIRST,
	VMGPU_RT_POLICY_NUM
};

struct vmgpu_rt_config {
	/*
	 * GPU back ends; none: the GPUs of every vmgpu render node that
	 * opens, through libvmgpu (libshim/runtime/drm.c), and with none,
	 * the CPU device alone.
	 */
	const struct vmgpu_rt_backend *backends;
	uint32_t num_backends;
	/* Worker threads of the CPU device (its compute units); 0: 4. */
	uint32_t cpu_threads;
	uint32_t policy;		/* VMGPU_RT_POLICY_* */
	/*
	 * The CPU device's instruction budget: the warp instructions one
	 * launch may run, for each VMGPU_BUDGET_WARPS (65536) of its warps
	 * started, before it is stopped (-ETIMEDOUT). 0: the
	 * environment variable VMGPU_RT_CPU_BUDGET if set, else
	 * VMGPU_RT_CPU_BUDGET_DEFAULT.
	 */
	uint64_t cpu_budget;
};
#define VMGPU_RT_CPU_BUDGET_DEFAULT	(1ull << 28)

/* @cfg NULL: every render node, 4 CPU workers, dmda. */
int vmgpu_rt_create(const struct vmgpu_rt_config *cfg, struct vmgpu_rt **out);
/* Stops the scheduler after the work queued; NULL is accepted. */
void vmgpu_rt_destroy(struct vmgpu_rt *rt);
/* The message of the most recent failed call; returns its length. */
size_t vmgpu_rt_error_message(struct vmgpu_rt *rt, char *buf, size_t len);
int vmgpu_rt_set_policy(struct vmgpu_rt *rt, uint32_t policy);

/* ------------------------------------------------------------------ */
/* Device table and capability matching (P1)                            */
/* ------------------------------------------------------------------ */

/*
 * Physical devices: the GPUs of the back ends in order, then the CPU
 * (always the last one).
 */
int vmgpu_rt_device_count(struct vmgpu_rt *rt);
int vmgpu_rt_device_caps(struct vmgpu_rt *rt, uint32_t phys,
			 struct vmgpu_rt_caps *caps);

/* Capability keys and comparisons of a request's terms. */
enum vmgpu_rt_cap_key {
	VMGPU_RT_CAP_TYPE = 0,		/* VMGPU_RT_TYPE_* */
	VMGPU_RT_CAP_ISA_VERSION,
	VMGPU_RT_CAP_COMPUTE_UNITS,
	VMGPU_RT_CAP_WARP_WIDTH,
	VMGPU_RT_CAP_CLOCK_KHZ,
	VMGPU_RT_CAP_LOCAL_MEM_MB,
	VMGPU_RT_CAP_SHARED_MEM,
	VMGPU_RT_CAP_MAX_BLOCK_THREADS,
	VMGPU_RT_CAP_FP64,
	VMGPU_RT_CAP_NUM_KEYS
};

enum vmgpu_rt_cap_op {
	VMGPU_RT_OP_EQ = 0,
	VMGPU_RT_OP_NE,
	VMGPU_RT_OP_GE,
	VMGPU_RT_OP_LE,
	VMGPU_RT_OP_NUM
};

/* A term: @key @op @value, worth @weight points when it holds. */
#define VMGPU_RT_TERM_REQUIRED		(1u << 0)	/* must hold */
struct vmgpu_rt_cap_term {
	uint32_t key, op;
	uint64_t value;
	uint32_t weight;
	uint32_t flags;			/* VMGPU_RT_TERM_* */
};

/*
 * VMGPU_RT_MATCH_ALL: every term must hold. VMGPU_RT_MATCH_SCORE: the
 * REQUIRED terms must hold and at least one term; devices are ranked by
 * the sum of the weights of their terms that hold. Either way, ties go
 * to the more powerful device (compute units x warp width x clock), then
 * to the lower index. @max_devices keeps the best ones (0: all).
 */
#define VMGPU_RT_MATCH_ALL		0u
#define VMGPU_RT_MATCH_SCORE		1u

struct vmgpu_rt_cap_request {
	uint32_t mode;			/* VMGPU_RT_MATCH_* */
	uint32_t num_terms;		/* 0..VMGPU_RT_MAX_TERMS */
	const struct vmgpu_rt_cap_term *terms;
	uint32_t max_devices;
};
#define VMGPU_RT_MAX_TERMS		32
#define VMGPU_RT_MAX_DEVICES		64	/* physical devices */

/*
 * The physical devices matching @req, best first, into @phys (and their
 * scores into @scores, may be NULL); returns how many match (even beyond
 * @max), 0 if none.
 */
int vmgpu_rt_match(struct vmgpu_rt *rt, const struct vmgpu_rt_cap_request *req,
		   uint32_t *phys, uint32_t *scores, uint32_t max);
/*
 * The device identifier of the set of devices @req matches (the first
 * request of the three-request flow): a logical device. -ENODEV if none
 * matches. The same set gets the same identifier.
 */
int vmgpu_rt_request(struct vmgpu_rt *rt,
		     const struct vmgpu_rt_cap_request *req, uint32_t *device);
/* A logical device of the given physical devices (in that order). */
int vmgpu_rt_logical_device(struct vmgpu_rt *rt, const uint32_t *phys,
			    uint32_t count, uint32_t *device);
/* Its members, in order; returns how many. */
int vmgpu_rt_device_members(struct vmgpu_rt *rt, uint32_t device,
			    uint32_t *phys, uint32_t max);

/* ------------------------------------------------------------------ */
/* Device status (P6)                                                   */
/* ------------------------------------------------------------------ */

struct vmgpu_rt_status {
	uint32_t running;		/* instances placed, not finished */
	uint32_t queued;		/* runnable instances that could go here */
	uint32_t graphics_load;		/* percent, vmgpu_rt_set_graphics_load */
	uint32_t utilisation;		/* percent of the virtual time so far */
	uint64_t busy_until_ns;		/* virtual time its placed work ends */
	uint64_t busy_ns;		/* virtual time spent running instances */
	uint64_t instances;		/* instances it ran */
	uint64_t transfer_bytes;	/* bytes moved to it */
};
int vmgpu_rt_device_status(struct vmgpu_rt *rt, uint32_t phys,
			   struct vmgpu_rt_status *st);
/*
 * The share of GPU @phys that graphics takes (0..100 %): its compute runs
 * at (100 - load) % speed; at 100 it takes no instance. A GPU with a load
 * of VMGPU_RT_GRAPHICS_BUSY or more is "busy with graphics".
 */
#define VMGPU_RT_GRAPHICS_BUSY		50u
int vmgpu_rt_set_graphics_load(struct vmgpu_rt *rt, uint32_t phys,
			       uint32_t percent);
/*
 * The virtual time (ns): the latest decision of the scheduler, or the end
 * of the latest instance the application waited for; instances flushed
 * become ready then.
 */
uint64_t vmgpu_rt_now_ns(struct vmgpu_rt *rt);

/* ------------------------------------------------------------------ */
/* Handles and contexts (P2)                                            */
/* ------------------------------------------------------------------ */

int vmgpu_rt_retain(struct vmgpu_rt *rt, vmgpu_rt_handle h);
int vmgpu_rt_release(struct vmgpu_rt *rt, vmgpu_rt_handle h);

/*
 * Context flags. CPU fallback: for a logical device without the CPU, the
 * CPU becomes a candidate of placement (it wins when the GPUs are busy:
 * queued work, graphics load). Off by default: an instance never lands
 * on the CPU unless the application's device set has it or it allowed
 * this.
 */
#define VMGPU_RT_CTX_CPU_FALLBACK	(1u << 0)

int vmgpu_rt_context_create(struct vmgpu_rt *rt, uint32_t device,
			    uint32_t flags, vmgpu_rt_handle *ctx);
/* The logical device of @ctx. */
int vmgpu_rt_context_device(struct vmgpu_rt *rt, vmgpu_rt_handle ctx,
			    uint32_t *device);

/* ------------------------------------------------------------------ */
/* Buffers and kernels (P3)                                             */
/* ------------------------------------------------------------------ */

/*
 * A buffer of @bytes: host memory the application maps, and a copy in
 * each device's memory that the runtime makes when an instance there
 * needs it (priced on the virtual clock) and keeps while it is valid.
 */
int vmgpu_rt_buffer_create(struct vmgpu_rt *rt, vmgpu_rt_handle ctx,
			   uint64_t bytes, vmgpu_rt_handle *buf);
/*
 * Map the whole buffer: waits for the instances that write it (and, with
 * VMGPU_RT_MAP_WRITE, those that read it), brings its contents to the
 * host. While mapped, enqueuing an instance that uses it is -EBUSY.
 */
#define VMGPU_RT_MAP_READ		(1u << 0)
#define VMGPU_RT_MAP_WRITE		(1u << 1)
int vmgpu_rt_buffer_map(struct vmgpu_rt *rt, vmgpu_rt_handle buf,
			uint32_t flags, void **ptr);
int vmgpu_rt_buffer_unmap(struct vmgpu_rt *rt, vmgpu_rt_handle buf);
/*
 * Copies of part of a buffer: each waits as a mapping would, but takes
 * none, so several threads may read and write one buffer, mapped or not.
 */
int vmgpu_rt_buffer_write(struct vmgpu_rt *rt, vmgpu_rt_handle buf,
			  uint64_t offset, const void *data, uint64_t bytes);
int vmgpu_rt_buffer_read(struct vmgpu_rt *rt, vmgpu_rt_handle buf,
			 uint64_t offset, void *data, uint64_t bytes);

/*
 * A kernel from an executable with a signature (vmgpu_asm_assemble(),
 * vmgpu_program_kernel_image()), checked as a device loads it; the
 * image is copied. @private_bytes: what the kernel needs per thread
 * (vmgpu_program_kernel_private_bytes()): its last parameter,
 * "vmgpu_private", is then given by the runtime, not the application.
 */
int vmgpu_rt_kernel_create(struct vmgpu_rt *rt, vmgpu_rt_handle ctx,
			   const void *image, size_t bytes,
			   uint32_t private_bytes, vmgpu_rt_handle *kernel);
/* Kernel @name of @prog (its private bytes included). */
int vmgpu_rt_kernel_from_program(struct vmgpu_rt *rt, vmgpu_rt_handle ctx,
				 const struct vmgpu_program *prog,
				 const char *name, vmgpu_rt_handle *kernel);
/*
 * Online compilation (P4): kernel @name of the library @lib, for every
 * ISA version among @ctx's devices (and the CPU's with CPU fallback),
 * each by vmgpu_kernlib_build() with @cc and @options: the library's
 * executables of that version as they are, else its source compiled
 * (once: @cc's kernel cache), else an older executable. A version that
 * gives nothing is left out, and its devices do not take the kernel's
 * instances. When no version gives anything: the reason of the first
 * one that failed (-ENOENT: the library has no kernel @name), else
 * -ENOEXEC (nothing compiled for any version). *@log (NULL
 * allowed; free() it) gets the builds' logs, each saying which rule
 * applied.
 */
int vmgpu_rt_kernel_from_library(struct vmgpu_rt *rt, vmgpu_rt_handle ctx,
				 struct vmgpu_compiler *cc,
				 struct vmgpu_kernlib *lib, const char *name,
				 const char *options, vmgpu_rt_handle *kernel,
				 char **log);
/* Parameters the application sets (the hidden ones not counted). */
int vmgpu_rt_kernel_param_count(struct vmgpu_rt *rt, vmgpu_rt_handle kernel);

/* What a parameter is (vmgpu_rt_param_info.kind). */
/* i32, i64, f32, a by-value vector or struct (VMGPU_PARAM_BYTES): @size
 * bytes */
#define VMGPU_RT_PARAM_SCALAR		1u
#define VMGPU_RT_PARAM_BUFFER		2u	/* global memory, @access */
#define VMGPU_RT_PARAM_LOCAL		3u	/* __local pointer: by size */
#define VMGPU_RT_PARAM_PRIVATE		4u	/* vmgpu_private: the runtime's */
/* vmgpu_ndrange0/1 (VMGPU_NDRANGE_OPTION): the runtime's, from the
 * instance's global_offset and work_dim */
#define VMGPU_RT_PARAM_NDRANGE		5u
/*
 * vmgpu_printf (VMGPU_PRINTF_PARAM, a kernel calling OpenCL C's printf):
 * the runtime's, a fresh buffer per instance whose records it writes to
 * standard output (vmgpu_printf_write(), then fflush()) when the
 * instance has run, before it is complete: a vmgpu_rt_wait() that
 * returns finds the output written.
 */
#define VMGPU_RT_PARAM_PRINTF		6u

struct vmgpu_rt_param_info {
	char name[VMGPU_PARAM_NAME_MAX];	/* from the signature, "" if none */
	uint32_t kind;			/* VMGPU_RT_PARAM_* */
	/*
	 * The vmgpu_rt_arg.type it takes: VMGPU_PARAM_* of the signature,
	 * VMGPU_RT_ARG_LOCAL for a local one (a buffer parameter also takes
	 * a buffer of more access: BUF_RW for BUF_RO or BUF_WO).
	 */
	uint32_t type;
	uint32_t size;			/* scalar, bytes: its bytes */
	uint32_t access;		/* buffer: VMGPU_RT_MAP_READ | _WRITE */
};
/*
 * Parameter @index of @kernel, 0..vmgpu_rt_kernel_param_count(), then
 * the hidden ones the kernel has (NDRANGE, PRINTF, then PRIVATE, the
 * last);
 * -ERANGE past them.
 */
int vmgpu_rt_kernel_param_info(struct vmgpu_rt *rt, vmgpu_rt_handle kernel,
			       uint32_t index,
			       struct vmgpu_rt_param_info *info);

/* ------------------------------------------------------------------ */
/* Queues, instances, events (P5)                                       */
/* ------------------------------------------------------------------ */

/*
 * One argument, by the kernel's parameter types (vmgpu_rt_kernel_param_info):
 * a scalar of the parameter's type; a buffer of the parameter's access or
 * more (a read-write buffer for a read-only or write-only parameter); a
 * __local parameter by its size, VMGPU_RT_ARG_LOCAL: the runtime places
 * it in the block's shared memory after the kernel's static local memory
 * and the instance's shared_bytes (aligned to VMGPU_RT_LOCAL_ALIGN) and
 * passes its offset. A local parameter takes nothing else. A by-value
 * aggregate (a VMGPU_PARAM_BYTES parameter: an OpenCL vector or struct)
 * takes @bytes, its size in the type word: the parameter's type, or
 * VMGPU_PARAM_BYTES_TYPE(size, 0) (the size must be the parameter's);
 * the bytes are copied when the instance is made.
 */
#define VMGPU_RT_ARG_LOCAL		0x100u
/* 128: the alignment of OpenCL C's largest type (long16), which a __local
 * pointer parameter may point to */
#define VMGPU_RT_LOCAL_ALIGN		128u
struct vmgpu_rt_arg {
	uint32_t type;			/* VMGPU_PARAM_*, VMGPU_RT_ARG_LOCAL */
	union {
		int32_t i32;
		int64_t i64;
		float f32;
		vmgpu_rt_handle buf;	/* BUF_RO, BUF_WO, BUF_RW; 0: NULL */
		uint32_t local_bytes;	/* VMGPU_RT_ARG_LOCAL */
		const void *bytes;	/* VMGPU_PARAM_BYTES */
	};
	uint64_t offset;		/* bytes into @buf */
};

/*
 * vmgpu_rt_instance.flags. SPLIT (P7): the grid is cut along x into one
 * portion per device it may use (sized by their expected speed), run
 * at once on all of them; the bytes each portion wrote are merged into
 * the buffer. For kernels whose blocks write disjoint bytes and do not
 * combine results with atomics across blocks: then the results are those
 * of one device, bit for bit.
 */
#define VMGPU_RT_INSTANCE_SPLIT		(1u << 0)

/*
 * What in @kernel's code keeps a split run from giving the results of
 * one device, into *@hazards (0: nothing; every executable of it
 * scanned): global atomics (atom.*: blocks combining results in one
 * word) and device-side work (launch, enq). What the code cannot show —
 * two blocks writing one byte, a block reading what another wrote in the
 * same run — is a race in the kernel, not found here.
 */
#define VMGPU_RT_SPLIT_ATOMICS		(1u << 0)
#define VMGPU_RT_SPLIT_DEVICE_WORK	(1u << 1)
int vmgpu_rt_kernel_split_hazards(struct vmgpu_rt *rt, vmgpu_rt_handle kernel,
				  uint32_t *hazards);

struct vmgpu_rt_instance {
	vmgpu_rt_handle kernel;
	uint32_t num_args;		/* the kernel's parameter count */
	const struct vmgpu_rt_arg *args;
	uint32_t grid[3], block[3];	/* 0 counts as 1 */
	uint32_t shared_bytes;		/* dynamic local memory per block,
					 * before the local arguments' */
	int32_t priority;		/* higher: sooner, among ready ones */
	uint32_t num_wait;
	const vmgpu_rt_handle *wait;	/* events it waits for */
	uint32_t flags;			/* VMGPU_RT_INSTANCE_* */
	/*
	 * OpenCL's global work offset, per dimension, and work dimension
	 * (0: the highest one of more than one work-item, at least 1),
	 * for a kernel compiled with VMGPU_NDRANGE_OPTION (its hidden
	 * parameters; other kernels ignore them). The ids are 32-bit: the
	 * offset plus the grid's work-items must not pass 2^32 (-EINVAL).
	 * The same for every portion of a split instance.
	 */
	uint64_t global_offset[3];
	uint32_t work_dim;		/* 0..3 */
};

/*
 * A queue of @ctx. Instances enqueued are handed to the scheduler when
 * the queue is flushed (vmgpu_rt_flush(), or any wait or map, which
 * flush every queue), so that what is enqueued together is placed
 * together, the same way on every run.
 */
int vmgpu_rt_queue_create(struct vmgpu_rt *rt, vmgpu_rt_handle ctx,
			  vmgpu_rt_handle *queue);
/*
 * Enqueue an instance and return at once with its event (released by
 * the caller). It runs after the events of @inst->wait and after the
 * earlier instances (of any queue of the runtime) whose use of one of its
 * buffers conflicts with its own: it reads what they write (RAW), writes
 * what they read (WAR) or write (WAW); by the kernel's parameter types.
 */
int vmgpu_rt_enqueue(struct vmgpu_rt *rt, vmgpu_rt_handle queue,
		     const struct vmgpu_rt_instance *inst,
		     vmgpu_rt_handle *event);
int vmgpu_rt_flush(struct vmgpu_rt *rt, vmgpu_rt_handle queue);
/* Wait for every instance of @queue. Returns the first error among them. */
int vmgpu_rt_finish(struct vmgpu_rt *rt, vmgpu_rt_handle queue);
/*
 * Wait until the event's instance finished (@timeout_ns < 0: no limit):
 * 0, or its error: -EFAULT (memory fault), -ETIMEDOUT (instruction
 * budget: on the CPU device vmgpu_rt_config.cpu_budget), -ENOEXEC (bad executable, illegal instruction), -ECANCELED (an
 * instance it waited for failed); -ETIME if not done in time.
 */
int vmgpu_rt_wait(struct vmgpu_rt *rt, vmgpu_rt_handle event,
		  int64_t timeout_ns);

#define VMGPU_RT_EVENT_QUEUED		0u	/* enqueued, not flushed */
#define VMGPU_RT_EVENT_SUBMITTED	1u	/* waiting for its turn */
#define VMGPU_RT_EVENT_RUNNING		2u
#define VMGPU_RT_EVENT_COMPLETE		3u

struct vmgpu_rt_event_info {
	uint32_t state;			/* VMGPU_RT_EVENT_* */
	int error;			/* when COMPLETE */
	uint32_t phys;			/* device it ran on (split: the first) */
	uint32_t parts;			/* devices it ran on */
	uint64_t order;			/* 1 + how many instances ran before */
	uint64_t start_ns, end_ns;	/* virtual time */
	uint64_t exec_ns;		/* device time of its execution */
	uint64_t transfer_ns;		/* moving its buffers there */
	/*
	 * A split instance: exec_ns its portions' together; transfer_ns
	 * until the first portion ran; end_ns when the last portion's
	 * written bytes were back on the host, merged.
	 */
};
int vmgpu_rt_event_query(struct vmgpu_rt *rt, vmgpu_rt_handle event,
			 struct vmgpu_rt_event_info *info);

#ifdef __cplusplus
}
#endif

#endif /* VMGPU_RUNTIME_H */
