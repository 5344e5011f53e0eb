/* SPDX-License-Identifier: MIT */
/*
 * libvmgpurt internals shared between the runtime's files; not installed.
 *
 * Locking and lifetime rule, for every file of the runtime:
 *  - one mutex per runtime, rt->lock, guards everything in it: the handle
 *    table, the device table and status, the logical devices, every
 *    object's fields that change (buffers' validity and users, instances'
 *    states and dependencies, queues' lists, kernels' per-device loads
 *    and histories) and the error message;
 *  - the scheduler thread takes rt->lock to choose and place an instance,
 *    drops it to move data and run the kernel (the instance is RUNNING:
 *    nothing else touches its buffers' device copies, which the data-flow
 *    dependencies guarantee), and takes it again to complete it;
 *  - objects are reference counted (rt_obj.refs, under rt->lock): the
 *    handle holds one while the application holds any reference; an
 *    instance holds its kernel, buffers, queue and the instances it waits
 *    for. An object is freed when its last reference goes.
 */
#ifndef VMGPU_RT_INTERNAL_H
#define VMGPU_RT_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "grow.h"
#include "vmgpu/runtime.h"

struct vg_kernel;

enum rt_kind {
	RT_KIND_CONTEXT = 1,
	RT_KIND_BUFFER,
	RT_KIND_KERNEL,
	RT_KIND_QUEUE,
	RT_KIND_EVENT,
	RT_KIND_NUM
};

/* Every object starts with this. */
struct vmgpu_rt;

struct rt_obj {
	uint32_t kind;			/* RT_KIND_* */
	uint32_t refs;			/* internal references + 1 for the handle */
	uint32_t slot;			/* handle table slot, while it has one */
	/*
	 * Frees the object at its last reference (rt_put). Set by the file
	 * that makes the object, so that handle.c, below every other file,
	 * calls none of them by name.
	 */
	void (*release)(struct vmgpu_rt *rt, struct rt_obj *o);
};

/* A handle table slot. */
struct rt_slot {
	struct rt_obj *obj;		/* NULL: free */
	uint32_t gen;			/* bumped when freed */
	uint32_t users;			/* application references */
	uint32_t next_free;
};

#define RT_SAMPLES		5	/* history kept per kernel and device */
#define RT_MAX_FOOTPRINTS	8
#define RT_CALIBRATED		3	/* samples before a device's own estimate */

struct rt_phys {
	struct vmgpu_rt_caps caps;
	int backend;			/* -1: the CPU */
	uint32_t index;			/* GPU index in its back end */
	uint32_t graphics_load;
	uint32_t running;
	uint64_t busy_until;		/* virtual ns */
	uint64_t busy_ns;
	uint64_t instances;
	uint64_t transfer_bytes;
	uint64_t power;			/* units x lanes x clock, for estimates */
};

struct rt_logical {
	uint32_t count;
	uint32_t phys[VMGPU_RT_MAX_DEVICES];
	uint32_t rr_next;		/* round robin */
};

struct rt_context {
	struct rt_obj o;
	uint32_t device;
	uint32_t flags;
};

/* A device copy of a buffer. */
struct rt_copy {
	uint64_t va;			/* 0: none */
	void *host;			/* where the runtime writes it */
	bool valid;
};

struct rt_instance;

struct rt_buffer {
	struct rt_obj o;
	uint64_t bytes, alloc_bytes;
	uint8_t *host;			/* page aligned */
	bool host_valid;
	uint64_t cpu_va;		/* the CPU device's address of it */
	bool mapped;
	struct rt_copy copy[VMGPU_RT_MAX_DEVICES];
	/* Data flow: the last writer and the readers since. */
	struct rt_instance *writer;
	struct rt_instance **readers;
	uint32_t nreaders, cap_readers;
};

/* Execution time samples of one kernel for one size on one device. */
struct rt_hist {
	uint64_t threads;
	uint32_t n, next;
	uint64_t count;			/* samples ever */
	uint64_t sum;			/* of every sample (the mean policy) */
	uint64_t samples[RT_SAMPLES];
};

struct rt_kernel {
	struct rt_obj o;
	/* the printf buffer's parameter (VMGPU_PRINTF_PARAM), -1: none */
	int32_t printf_param;
	/*
	 * Executables per ISA version (the header's: the oldest version
	 * that runs it); a device of version V runs the newest one <= V.
	 * The first one added gives the signature and the CPU's load.
	 */
	struct {
		uint8_t *image;
		size_t bytes;
	} exec[VMGPU_ISA_VERSION + 1];
	struct vmgpu_exec_header h;
	struct vmgpu_exec_sig sig;
	struct vmgpu_exec_param params[VMGPU_MAX_PARAMS];
	uint32_t private_bytes;
	/* sig.num_params less the hidden ones (ndrange pair, private) */
	uint32_t user_params;
	int32_t ndrange_off;		/* the ndrange pair's offset, -1: none */
	struct vg_kernel *cpu;		/* loaded for the CPU device */
	uint64_t code[VMGPU_RT_MAX_DEVICES];	/* per GPU, 0: not loaded */
	struct rt_hist hist[VMGPU_RT_MAX_DEVICES][RT_MAX_FOOTPRINTS];
};

struct rt_queue {
	struct rt_obj o;
	struct rt_context *ctx;
	struct rt_instance *pending;	/* enqueued, not flushed (list) */
	struct rt_instance **pending_tail;
	uint64_t enqueued, done;
	uint64_t last_end;		/* virtual: latest end of its instances */
	int first_error;
	char first_why[200];		/* its message */
};

enum rt_state {
	RT_QUEUED = VMGPU_RT_EVENT_QUEUED,
	RT_SUBMITTED = VMGPU_RT_EVENT_SUBMITTED,
	RT_RUNNING = VMGPU_RT_EVENT_RUNNING,
	RT_COMPLETE = VMGPU_RT_EVENT_COMPLETE,
};

struct rt_use {
	struct rt_buffer *buf;
	uint64_t offset;
	uint32_t param;			/* index, UINT32_MAX: private buffer */
	bool read, write;
};

/* An instance; its event handle names it. */
struct rt_instance {
	struct rt_obj o;
	struct rt_queue *queue;
	struct rt_kernel *kernel;
	uint32_t grid[3], block[3], shared_bytes;
	int32_t priority;
	uint32_t flags;
	uint64_t seq;			/* enqueue order in the runtime */
	uint8_t args[VMGPU_MAX_ARGS_BYTES];	/* scalars set */
	uint32_t nuses;
	struct rt_buffer *priv;		/* runtime's private buffer */
	struct rt_buffer *pbuf;		/* its printf buffer, written out */
	/* Instances it waits for (references held), done or not. */
	struct rt_instance **deps;
	uint32_t ndeps, cap_deps;
	uint32_t pending_deps;		/* not COMPLETE yet */
	/* Instances waiting for it (no references: they hold it). */
	struct rt_instance **waiters;
	uint32_t nwaiters, cap_waiters;
	enum rt_state state;
	int error;
	uint64_t ready_ns;		/* virtual: flush and deps' ends */
	uint32_t phys, parts;
	uint32_t budget_phys;		/* 1 + the device out of budget, 0 */
	char why[200];			/* the error's message */
	uint64_t order;
	uint64_t start_ns, end_ns, exec_ns, transfer_ns;
	struct rt_instance *next;	/* queue pending list / runnable list */
	struct rt_instance *rnext;	/* rt->runnable */
	/* Its buffers: one per buffer parameter and the private buffer. */
	struct rt_use uses[];
};

struct vmgpu_rt {
	pthread_mutex_t lock;
	/*
	 * Taken around every call of a GPU back end (inside rt->lock when
	 * both are held, never the other way): the scheduler runs a kernel
	 * holding only this one.
	 */
	pthread_mutex_t be_lock;
	pthread_cond_t work;		/* the scheduler: something to do */
	pthread_cond_t done;		/* waiters: an instance completed */
	pthread_t thread;
	bool thread_started, stop;
	uint16_t tag;			/* this runtime's mark in its handles */
	uint32_t policy;
	char err_msg[256];

	struct rt_slot *slots;
	uint32_t nslots, cap_slots, free_slot;	/* free list, +1 (0: none) */

	struct vmgpu_rt_backend backends[VMGPU_MAX_GPUS];
	uint32_t num_backends;
	struct rt_drm *drm[VMGPU_MAX_GPUS];	/* render nodes it opened */
	uint32_t ndrm;
	struct rt_phys phys[VMGPU_RT_MAX_DEVICES];
	uint32_t nphys, cpu;		/* the CPU is phys[cpu], the last */
	struct rt_logical *logical;
	uint32_t nlogical, cap_logical;

	struct rt_cpu *cpudev;
	uint64_t cpu_budget;		/* warp instructions per CPU launch */
	const char *cpu_budget_from;	/* the setting that gave it */
	uint64_t next_cpu_va;

	uint64_t seq;			/* instances enqueued */
	uint64_t order;			/* instances started */
	/*
	 * The virtual clock: the latest scheduling decision, or the end of
	 * an instance the application waited for (it cannot enqueue
	 * earlier than it saw that end). Flushed instances are ready then.
	 */
	uint64_t now;
	struct rt_instance *runnable;	/* SUBMITTED (list, by seq) */
	uint32_t unflushed;		/* instances QUEUED in any queue */
	struct rt_queue **queues;	/* live queues, for a flush of all */
	uint32_t nqueues, cap_queues;
};

/* handle.c */
int rt_err(struct vmgpu_rt *rt, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Under rt->lock: the object of @h of @kind (with the error set if not). */
int rt_lookup(struct vmgpu_rt *rt, vmgpu_rt_handle h, uint32_t kind,
	      struct rt_obj **out);
int rt_handle_new(struct vmgpu_rt *rt, struct rt_obj *o, vmgpu_rt_handle *h);
void rt_get(struct rt_obj *o);
/* Drop a reference under rt->lock; frees the object at 0. */
void rt_put(struct vmgpu_rt *rt, struct rt_obj *o);
/* Under rt->lock: every handle goes, whatever its users (teardown). */
void rt_handles_drop_all(struct vmgpu_rt *rt);

/* memory.c */
void rt_buffer_free(struct vmgpu_rt *rt, struct rt_buffer *b);
int rt_buffer_alloc(struct vmgpu_rt *rt, uint64_t bytes,
		    struct rt_buffer **out);
/* Bytes that must move for @b to be valid on @phys, and the time. */
uint64_t rt_transfer_estimate(struct vmgpu_rt *rt, const struct rt_buffer *b,
			      uint32_t phys, uint64_t *ns);
/* Make @b valid on @phys (without rt->lock; the instance owns it). */
int rt_buffer_make_valid(struct vmgpu_rt *rt, struct rt_buffer *b,
			 uint32_t phys, uint64_t *ns, uint64_t *moved);
/* Bring @b to the host (without rt->lock, nothing runs on it). */
int rt_buffer_to_host(struct vmgpu_rt *rt, struct rt_buffer *b);
/* @phys's address of @b (after make_valid). */
uint64_t rt_buffer_va(struct vmgpu_rt *rt, const struct rt_buffer *b,
		      uint32_t phys);

/* kernel.c */
void rt_kernel_free(struct vmgpu_rt *rt, struct rt_kernel *k);
/* The executable a device of ISA version @isa runs; -ENOEXEC if none. */
int rt_kernel_image(struct vmgpu_rt *rt, const struct rt_kernel *k,
		    uint32_t isa, const void **image, size_t *bytes);
/* Another executable of the same kernel (same signature). */
int rt_kernel_add_exec(struct vmgpu_rt *rt, struct rt_kernel *k,
		       const void *image, size_t bytes);
int rt_kernel_new(struct vmgpu_rt *rt, const void *image, size_t bytes,
		  uint32_t private_bytes, struct rt_kernel **out);
uint64_t rt_estimate(struct vmgpu_rt *rt, struct rt_kernel *k, uint32_t phys,
		     uint64_t threads, bool mean);
void rt_sample(struct rt_kernel *k, uint32_t phys, uint64_t threads,
	       uint64_t ns);

/* args.c */
/*
 * Check @inst's arguments and set them into @in: scalars, local offsets
 * (in->shared_bytes: the dynamic shared memory, at most @limit bytes per
 * block with the static), buffers (in->uses, references taken), the
 * global offset and work dimension (the hidden ndrange pair).
 */
int rt_args_set(struct vmgpu_rt *rt, struct rt_instance *in,
		const struct vmgpu_rt_instance *inst, uint32_t limit);

/* cpu.c: the CPU device */
/*
 * A CPU device of @threads workers, each launch stopped after
 * @budget warp instructions (0: VMGPU_RT_CPU_BUDGET, else the default);
 * *@budget and *@from get what applies and the setting that gave it.
 */
int rt_cpu_new(uint32_t threads, uint64_t *budget, const char **from,
	       struct rt_cpu **out);
void rt_cpu_free(struct rt_cpu *c);
void rt_cpu_caps(const struct rt_cpu *c, struct vmgpu_rt_caps *caps);
/* One address range the kernel may access. */
struct rt_cpu_range {
	uint64_t va, bytes;
	uint8_t *host;
	bool write;
};
struct rt_cpu_launch {
	const struct vg_kernel *kernel;
	const uint8_t *args;
	uint32_t args_bytes;
	uint32_t grid[3], block[3], origin[3], grid_total[3];
	uint32_t shared_bytes;
	const struct rt_cpu_range *ranges;
	uint32_t nranges;
};
/* Run a launch on the workers: device time on the cost model, fault. */
int rt_cpu_run(struct rt_cpu *c, const struct rt_cpu_launch *l,
	       uint64_t *device_ns, uint32_t *fault);

/* drm.c: the back end over a render node */
struct rt_drm;
extern const struct vmgpu_rt_gpu_ops rt_drm_ops;
int rt_drm_open(unsigned int index, struct rt_drm **out);
void rt_drm_free(struct rt_drm *d);

/* queue.c */
void rt_instance_free(struct vmgpu_rt *rt, struct rt_instance *in);
void rt_queue_free(struct vmgpu_rt *rt, struct rt_queue *q);
void *rt_scheduler(void *arg);
/* Hand every queue's enqueued instances to the scheduler (rt->lock). */
void rt_flush_all(struct vmgpu_rt *rt);

#endif
