/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vmgpu: DRM driver for the vmgpu virtual multi-GPU compute device.
 */
#ifndef _VMGPU_DRV_H_
#define _VMGPU_DRV_H_

#include <linux/dma-fence.h>
#include <linux/io.h>
#include <linux/kref.h>
#include <linux/pci.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <drm/drm_device.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_mm.h>
#include <drm/gpu_scheduler.h>

#include "vmgpu_hw.h"

#define DRIVER_NAME		"vmgpu"
#define DRIVER_DESC		"vmgpu virtual multi-GPU compute device"
#define DRIVER_DATE		"20261123"
#define DRIVER_MAJOR		1
#define DRIVER_MINOR		2

/* Ring entries per GPU; the device takes up to VMGPU_RING_MAX_ENTRIES. */
#define VMGPU_RING_ENTRIES	256
/* Error reports the hard IRQ handler can hold for the deferred work. */
#define VMGPU_ERR_FIFO		16
/* Limits of one submit. */
#define VMGPU_MAX_SUBMIT_BOS	1024
#define VMGPU_MAX_SUBMIT_SYNCS	64
#define VMGPU_MAX_BO_SIZE	BIT_ULL(30)
/* GPU virtual addresses handed out: the first 1 MiB is never mapped. */
#define VMGPU_VA_START		BIT_ULL(20)
#define VMGPU_VA_END		BIT_ULL(VMGPU_VA_BITS)
/* Kernel-owned command buffers kept for reuse per file. */
#define VMGPU_CMDBUF_POOL	8

struct vmgpu_device;
struct vmgpu_file;
struct vmgpu_job;

/**
 * enum vmgpu_stat - driver counters, per GPU and per file
 * @VMGPU_STAT_SUBMITS: packets accepted by the submit ioctl
 * @VMGPU_STAT_PACKETS: packets completed (with or without error)
 * @VMGPU_STAT_DISPATCHES: DISPATCH commands of completed packets
 * @VMGPU_STAT_IRQS: interrupts handled (hard handler, any cause)
 * @VMGPU_STAT_IRQS_COMPLETE: interrupts with VMGPU_INT_COMPLETE
 * @VMGPU_STAT_IRQS_ERROR: interrupts with an error cause
 * @VMGPU_STAT_WORK_RUNS: runs of the deferred completion work
 * @VMGPU_STAT_ERRORS: packets that failed (device error or timeout)
 * @VMGPU_STAT_TIMEOUTS: packets caught by the scheduler timeout
 * @VMGPU_STAT_RESETS: GPU resets
 * @VMGPU_STAT_BUSY_NS: wall time with a packet of this GPU/file running
 * @VMGPU_STAT_NUM: number of counters
 */
enum vmgpu_stat {
	VMGPU_STAT_SUBMITS,
	VMGPU_STAT_PACKETS,
	VMGPU_STAT_DISPATCHES,
	VMGPU_STAT_IRQS,
	VMGPU_STAT_IRQS_COMPLETE,
	VMGPU_STAT_IRQS_ERROR,
	VMGPU_STAT_WORK_RUNS,
	VMGPU_STAT_ERRORS,
	VMGPU_STAT_TIMEOUTS,
	VMGPU_STAT_RESETS,
	VMGPU_STAT_BUSY_NS,
	VMGPU_STAT_NUM
};

extern const char *const vmgpu_stat_names[VMGPU_STAT_NUM];

/**
 * struct vmgpu_hw_error - one error report latched by the device
 * @status: the VMGPU_INT_* error bits
 * @code: VMGPU_FAULT_*
 * @slot: address-space slot
 * @addr: faulting GPU VA
 * @pc: instruction index
 * @seqno: seqno of the failing packet
 * @dispatch: dispatch index in the packet
 */
struct vmgpu_hw_error {
	u32 status;
	u32 code;
	u32 slot;
	u32 pc;
	u64 addr;
	u64 seqno;
	u32 dispatch;
};

/**
 * struct vmgpu_wd_policy - a GPU's work distributor policy (WD_* registers)
 * @mode: DRM_VMGPU_WD_MODE_*
 * @table_slots: task-table slots
 * @sm_order: SM priority list; entries past the GPU's SMs are 0
 */
struct vmgpu_wd_policy {
	u32 mode;
	u32 table_slots;
	u8 sm_order[VMGPU_MAX_SMS];
};

/**
 * struct vmgpu_as_slot - one address-space slot of a GPU
 * @owner: file whose page tables the slot holds, NULL if free
 * @active: packets on the ring that use the slot
 * @last_used: LRU stamp
 */
struct vmgpu_as_slot {
	struct vmgpu_file *owner;
	u32 active;
	u64 last_used;
};

/**
 * struct vmgpu_gpu - one GPU of the device
 * @vdev: the device it belongs to
 * @index: GPU number, also its MSI-X vector
 * @regs: this GPU's register page
 * @irq: Linux IRQ number of its vector
 * @pending: interrupt causes acknowledged by the hard handler and not yet
 *	handled by @irq_work
 * @irq_work: deferred half of the interrupt path
 * @irq_seqno: completed seqno the hard handler saw last
 * @reset_fence: the fence word when the GPU was quiesced for a reset
 * @reset_started: seqno of the last packet the device had taken off the
 *	ring when it was quiesced (U64_MAX: unknown): a packet up to it that
 *	did not complete had started, and is not run again
 * @ring: the ring of entries, @ring_entries long, device-visible
 * @ring_dma: bus address of @ring
 * @ring_entries: ring size (power of two)
 * @ring_tail: next entry the driver writes
 * @fence_cpu: the u64 the device writes completed seqnos to
 * @fence_dma: bus address of @fence_cpu
 * @fence_context: dma_fence context of the ring
 * @emit_seqno: last seqno handed out
 * @err_seqno: highest seqno of a packet the device abandoned on an error
 * @fence_lock: lock of the ring's fences, @active and @err_seqno
 * @active: jobs on the ring, oldest first
 * @last_retire: when the last packet retired (busy-time accounting)
 * @err_lock: protects the error FIFO
 * @errs: error reports from the hard handler
 * @err_head: next report to consume
 * @err_tail: next free report
 * @err_lost: reports dropped because the FIFO was full
 * @as_lock: protects @slots and the files' slot numbers on this GPU
 * @slots: address-space slots
 * @slot_stamp: LRU clock for @slots
 * @sched: the scheduler feeding this GPU's ring
 * @inflight: most packets on the ring at once
 * @stats: counters, enum vmgpu_stat
 * @wd_lock: protects @wd and the sequence of WD_* register writes
 * @wd: the distributor policy the driver keeps and programs after resets
 * @name: "vmgpu-gpuN"
 */
struct vmgpu_gpu {
	struct vmgpu_device *vdev;
	unsigned int index;
	void __iomem *regs;
	int irq;
	atomic_t pending;
	struct work_struct irq_work;
	u64 irq_seqno;
	u64 reset_fence;
	u64 reset_started;

	struct vmgpu_ring_entry *ring;
	dma_addr_t ring_dma;
	u32 ring_entries;
	u32 ring_tail;
	u64 *fence_cpu;
	dma_addr_t fence_dma;
	u64 fence_context;
	u64 emit_seqno;
	u64 err_seqno;
	spinlock_t fence_lock;		/* ring fences, active, err_seqno */
	struct list_head active;
	ktime_t last_retire;

	spinlock_t err_lock;		/* the error FIFO */
	struct vmgpu_hw_error errs[VMGPU_ERR_FIFO];
	u32 err_head;
	u32 err_tail;
	u32 err_lost;

	struct mutex as_lock;		/* slots, files' slot numbers */
	struct vmgpu_as_slot slots[VMGPU_AS_SLOTS];
	u64 slot_stamp;

	struct drm_gpu_scheduler sched;
	u32 inflight;
	atomic64_t stats[VMGPU_STAT_NUM];
	struct mutex wd_lock;		/* wd, WD_* register sequences */
	struct vmgpu_wd_policy wd;
	char name[16];
};

/**
 * struct vmgpu_devtrace - the device's trace buffer (see vmgpu_devtrace.c)
 * @lock: serialises debugfs users; guards the buffer and TRACE registers
 * @cpu: kernel address of the buffer, NULL when none
 * @dma: its bus address
 * @size: its size in bytes
 * @enabled: the device is recording into it
 */
struct vmgpu_devtrace {
	struct mutex lock;		/* buffer, TRACE registers */
	void *cpu;
	dma_addr_t dma;
	size_t size;
	bool enabled;
};

/**
 * struct vmgpu_device - driver state of one vmgpu PCI function
 * @drm: the DRM device, embedded
 * @pdev: the PCI device
 * @mmio: BAR0, the global register page followed by the GPU pages
 * @hw_version: interface version the device reports
 * @num_gpus: GPUs behind the function
 * @sms_per_gpu: streaming multiprocessors per GPU
 * @isa_version: instruction set version
 * @caps: VMGPU_CAP_* bits
 * @as_slots: address-space slots per GPU
 * @cmdbuf_max_bytes: largest command buffer the device takes
 * @max_dispatches: most DISPATCH commands per packet
 * @warp_size: threads per warp
 * @clock_khz: SM clock of the device's timing model
 * @local_mem_mb: modelled local memory per GPU
 * @files_lock: protects @files
 * @files: file states (struct vmgpu_file.link), from open until their
 *	last reference goes; for debugfs and for the unbind
 * @next_client_id: fdinfo client ids
 * @jobs_alive: jobs allocated and not yet freed (leak check in debugfs)
 * @bos_lock: protects @bos
 * @bos: every buffer object of the device (vmgpu_bo.dev_link)
 * @mem_used: bytes of buffer memory charged by vmgpu_bo_create()
 * @mem_limit: most bytes @mem_used may reach (module parameter mem_limit_mb)
 * @reset_wq: ordered workqueue of every recovery action (the schedulers'
 *	timeout handlers, both halves of a PCI reset): one at a time
 * @devtrace: the device's trace buffer
 * @gpu: per-GPU state, @num_gpus used
 */
struct vmgpu_device {
	struct drm_device drm;
	struct pci_dev *pdev;
	void __iomem *mmio;
	u32 hw_version;
	u32 num_gpus;
	u32 sms_per_gpu;
	u32 isa_version;
	u32 caps;
	u32 as_slots;
	u32 cmdbuf_max_bytes;
	u32 max_dispatches;
	u32 warp_size;
	u32 clock_khz;
	u32 local_mem_mb;
	struct mutex files_lock;	/* files */
	struct list_head files;
	atomic64_t next_client_id;
	atomic_t jobs_alive;
	struct mutex bos_lock;		/* bos */
	struct list_head bos;
	atomic64_t mem_used;
	u64 mem_limit;
	struct workqueue_struct *reset_wq;
	struct vmgpu_devtrace devtrace;
	struct vmgpu_gpu gpu[VMGPU_MAX_GPUS];
};

/**
 * struct vmgpu_pt - one page-table page
 * @cpu: kernel address of the 512 entries
 * @dma: bus address the device walks
 * @child: next-level tables (NULL for the leaf level)
 */
struct vmgpu_pt {
	u64 *cpu;
	dma_addr_t dma;
	struct vmgpu_pt **child;
};

/**
 * struct vmgpu_file - per-DRM-file state: address space, contexts, stats
 * @refcount: the DRM file, jobs and mappings hold references
 * @vdev: the device
 * @client_id: fdinfo drm-client-id
 * @vm_lock: protects @mm and the page tables
 * @mm: GPU virtual address allocator
 * @root: top-level page table
 * @slot: address-space slot per GPU, -1 if none (under gpu->as_lock)
 * @ctxs: contexts by id
 * @pool_lock: protects @pool and @closed
 * @pool: kernel-owned command buffers ready for reuse
 * @pool_count: entries in @pool
 * @closed: the DRM file is gone; do not pool any more
 * @link: in vmgpu_device.files
 * @stats: counters, enum vmgpu_stat
 * @busy_ns: busy time per GPU
 */
struct vmgpu_file {
	struct kref refcount;
	struct vmgpu_device *vdev;
	u64 client_id;

	struct mutex vm_lock;		/* mm, page tables */
	struct drm_mm mm;
	struct vmgpu_pt root;
	int slot[VMGPU_MAX_GPUS];

	struct xarray ctxs;

	spinlock_t pool_lock;		/* pool, pool_count, closed */
	struct list_head pool;
	u32 pool_count;
	bool closed;

	struct list_head link;
	atomic64_t stats[VMGPU_STAT_NUM];
	atomic64_t busy_ns[VMGPU_MAX_GPUS];
};

/**
 * struct vmgpu_bo - a buffer object: shmem pages plus its GPU mappings
 * @base: the shmem GEM object
 * @flags: DRM_VMGPU_BO_*
 * @placement: DRM_VMGPU_PLACEMENT_*, the page-table location
 * @charged: bytes charged to the device's memory limit, returned at free
 * @dev_link: in vmgpu_device.bos
 * @mappings_lock: protects @mappings
 * @mappings: struct vmgpu_mapping.bo_link, one per file using the buffer
 */
struct vmgpu_bo {
	struct drm_gem_shmem_object base;
	u32 flags;
	u32 placement;
	u64 charged;
	struct list_head dev_link;
	struct mutex mappings_lock;	/* mappings */
	struct list_head mappings;
};

/**
 * struct vmgpu_mapping - a buffer mapped into one file's address space
 * @refcount: each of the file's handles, each job and the command-buffer
 *	pool hold one reference
 * @bo: the buffer (reference held)
 * @vf: the file (reference held)
 * @node: the VA range
 * @bo_link: in vmgpu_bo.mappings
 * @read_only: mapped without write permission
 * @handles: GEM handles of the file that name the buffer (under the
 *	buffer's mappings_lock); 0 once the last is closed, and always 0 for
 *	a kernel-owned command buffer
 * @unnamed: made by BO_CREATE before its first handle exists; that
 *	handle's &drm_gem_object_funcs.open adopts it (under mappings_lock)
 */
struct vmgpu_mapping {
	struct kref refcount;
	struct vmgpu_bo *bo;
	struct vmgpu_file *vf;
	struct drm_mm_node node;
	struct list_head bo_link;
	bool read_only;
	bool unnamed;
	u32 handles;
};

/**
 * struct vmgpu_cmdbuf - kernel-owned copy of a command buffer
 * @bo: shmem object holding the commands
 * @map: read-only mapping in the owning file's address space
 * @vaddr: kernel mapping of the commands
 * @capacity: bytes
 * @link: in vmgpu_file.pool while unused
 */
struct vmgpu_cmdbuf {
	struct vmgpu_bo *bo;
	struct vmgpu_mapping *map;
	void *vaddr;
	u32 capacity;
	struct list_head link;
};

/**
 * struct vmgpu_ctx - a submission context: one scheduler entity per GPU
 * @refcount: the file's id table, a SUBMIT or QUERY in progress and each
 *	job hold a reference; it keeps the memory (entities included) alive
 * @id: id in the file
 * @guilty: set when a packet of the context failed (the ban)
 * @submit_lock: orders job arming and pushing on the entities, and both
 *	against their teardown
 * @destroyed: the entities are torn down or about to be (under
 *	@submit_lock); a SUBMIT that sees it pushes nothing
 * @err_lock: protects the error record
 * @fault: first error's code (VMGPU_FAULT_* or DRM_VMGPU_FAULT_TIMEOUT)
 * @err_gpu: GPU of the first error
 * @err_dispatch: dispatch index of the first error
 * @err_pc: instruction index of the first error
 * @err_addr: faulting address of the first error
 * @errors: errors charged to the context
 * @num_gpus: entities initialised
 * @level_min: the most urgent distributor level its packets may use
 * @level_default: the level of a dispatch that gives none
 * @entity: one per GPU
 */
struct vmgpu_ctx {
	struct kref refcount;
	u32 id;
	atomic_t guilty;
	struct mutex submit_lock;	/* job arm + push, @destroyed */
	bool destroyed;
	spinlock_t err_lock;		/* the error record */
	u32 fault;
	u32 err_gpu;
	u32 err_dispatch;
	u32 err_pc;
	u64 err_addr;
	u32 errors;
	u32 num_gpus;
	u32 level_min;			/* distributor levels it may use */
	u32 level_default;
	struct drm_sched_entity entity[VMGPU_MAX_GPUS];
};

/**
 * struct vmgpu_job_bo - one buffer of a job
 * @map: the file's mapping of the buffer (reference held)
 * @write: the packet may write it
 * @explicit_sync: no implicit fences (DRM_VMGPU_SUBMIT_BO_EXPLICIT)
 */
struct vmgpu_job_bo {
	struct vmgpu_mapping *map;
	bool write;
	bool explicit_sync;
};

/**
 * struct vmgpu_job - one packet on its way to a GPU
 * @base: the scheduler job
 * @gpu: target GPU
 * @vf: submitting file (reference held)
 * @ctx: submitting context (reference held)
 * @cmdbuf: kernel-owned command buffer
 * @cmd_bytes: bytes of commands
 * @dispatches: DISPATCH commands in the packet
 * @done_fence: hardware fence of the current ring entry
 * @seqno: seqno of the current ring entry
 * @completed: the device finished the packet
 * @on_ring: in gpu->active
 * @slot: address-space slot the entry uses
 * @start: when it was put on the ring
 * @link: in gpu->active
 * @bo_count: entries in @bos
 * @objs: GEM objects of @bos, for reservation locking
 * @bos: the buffers
 */
struct vmgpu_job {
	struct drm_sched_job base;
	struct vmgpu_gpu *gpu;
	struct vmgpu_file *vf;
	struct vmgpu_ctx *ctx;
	struct vmgpu_cmdbuf *cmdbuf;
	u32 cmd_bytes;
	u32 dispatches;
	struct dma_fence *done_fence;
	u64 seqno;
	bool completed;
	bool on_ring;
	int slot;
	ktime_t start;
	struct list_head link;
	u32 bo_count;
	struct drm_gem_object **objs;
	struct vmgpu_job_bo bos[];
};

static inline struct vmgpu_device *to_vmgpu(struct drm_device *drm)
{
	return container_of(drm, struct vmgpu_device, drm);
}

static inline struct vmgpu_bo *to_vmgpu_bo(struct drm_gem_object *obj)
{
	return container_of(to_drm_gem_shmem_obj(obj), struct vmgpu_bo, base);
}

static inline struct vmgpu_job *to_vmgpu_job(struct drm_sched_job *job)
{
	return container_of(job, struct vmgpu_job, base);
}

static inline u32 vmgpu_read(struct vmgpu_device *vdev, u32 reg)
{
	return readl(vdev->mmio + reg);
}

static inline void vmgpu_write(struct vmgpu_device *vdev, u32 reg, u32 val)
{
	writel(val, vdev->mmio + reg);
}

static inline u32 vmgpu_gpu_read(struct vmgpu_gpu *gpu, u32 reg)
{
	return readl(gpu->regs + reg);
}

static inline void vmgpu_gpu_write(struct vmgpu_gpu *gpu, u32 reg, u32 val)
{
	writel(val, gpu->regs + reg);
}

static inline void vmgpu_stat_add(atomic64_t *stats, enum vmgpu_stat s,
				  s64 n)
{
	atomic64_add(n, &stats[s]);
}

/* vmgpu_drv.c */
extern unsigned int vmgpu_job_timeout_ms;
extern unsigned int vmgpu_max_user_instr_budget;
void vmgpu_file_put(struct vmgpu_file *vf);

/* vmgpu_irq.c */
int vmgpu_irq_init(struct vmgpu_device *vdev);
void vmgpu_irq_fini(struct vmgpu_device *vdev);
void vmgpu_irq_latch_pending(struct vmgpu_gpu *gpu);

/* vmgpu_debugfs.c */
void vmgpu_debugfs_init(struct drm_minor *minor);

void vmgpu_devtrace_init(struct vmgpu_device *vdev);
void vmgpu_devtrace_fini(struct vmgpu_device *vdev);
void vmgpu_devtrace_debugfs_init(struct vmgpu_device *vdev,
				 struct dentry *root);
void vmgpu_show_fdinfo(struct seq_file *m, struct file *f);

/* vmgpu_mmu.c */
int vmgpu_vm_init(struct vmgpu_file *vf);
void vmgpu_vm_fini(struct vmgpu_file *vf);
int vmgpu_vm_map(struct vmgpu_mapping *map);
void vmgpu_vm_release_dma(struct vmgpu_file *vf);
void vmgpu_vm_unmap(struct vmgpu_mapping *map);
int vmgpu_vm_place(struct vmgpu_mapping *map, u64 offset, u64 size,
		   u32 placement);
int vmgpu_as_get(struct vmgpu_gpu *gpu, struct vmgpu_file *vf);
void vmgpu_as_put(struct vmgpu_gpu *gpu, int slot);
void vmgpu_as_restore(struct vmgpu_gpu *gpu);

/* vmgpu_gem.c */
struct drm_gem_object *vmgpu_gem_create_object(struct drm_device *drm,
					       size_t size);
struct vmgpu_mapping *vmgpu_mapping_find(struct vmgpu_bo *bo,
					 struct vmgpu_file *vf);
int vmgpu_dumb_create(struct drm_file *file, struct drm_device *drm,
		      struct drm_mode_create_dumb *args);
void vmgpu_mapping_put(struct vmgpu_mapping *map);
struct vmgpu_cmdbuf *vmgpu_cmdbuf_get(struct vmgpu_file *vf, u32 bytes);
void vmgpu_cmdbuf_put(struct vmgpu_file *vf, struct vmgpu_cmdbuf *cb);
void vmgpu_cmdbuf_pool_drain(struct vmgpu_file *vf);
void vmgpu_bos_release_dma(struct vmgpu_device *vdev);
int vmgpu_ioctl_bo_create(struct drm_device *drm, void *data,
			  struct drm_file *file);
int vmgpu_ioctl_bo_mmap_offset(struct drm_device *drm, void *data,
			       struct drm_file *file);
int vmgpu_ioctl_bo_place(struct drm_device *drm, void *data,
			 struct drm_file *file);
int vmgpu_ioctl_bo_info(struct drm_device *drm, void *data,
			struct drm_file *file);

/* vmgpu_ring.c */
int vmgpu_ring_init(struct vmgpu_gpu *gpu);
void vmgpu_ring_fini(struct vmgpu_gpu *gpu);
void vmgpu_ring_hw_init(struct vmgpu_gpu *gpu);
struct dma_fence *vmgpu_ring_emit(struct vmgpu_gpu *gpu,
				  struct vmgpu_job *job);
void vmgpu_ring_retire(struct vmgpu_gpu *gpu, bool drop_rest);
void vmgpu_ring_cancel(struct vmgpu_gpu *gpu, int error);
void vmgpu_ring_handle_errors(struct vmgpu_gpu *gpu);

/* vmgpu_sched.c */
int vmgpu_sched_init(struct vmgpu_device *vdev);
void vmgpu_sched_fini(struct vmgpu_device *vdev);
void vmgpu_sched_stop_all(struct vmgpu_device *vdev);
void vmgpu_sched_restart_all(struct vmgpu_device *vdev);
void vmgpu_ctx_put(struct vmgpu_ctx *ctx);
struct vmgpu_ctx *vmgpu_ctx_lookup(struct vmgpu_file *vf, u32 id);
void vmgpu_ctx_set_error(struct vmgpu_ctx *ctx, u32 fault, u32 gpu,
			 u32 dispatch, u32 pc, u64 addr);
void vmgpu_ctx_destroy_all(struct vmgpu_file *vf);
int vmgpu_ioctl_ctx_create(struct drm_device *drm, void *data,
			   struct drm_file *file);
int vmgpu_ioctl_ctx_destroy(struct drm_device *drm, void *data,
			    struct drm_file *file);
int vmgpu_ioctl_ctx_query(struct drm_device *drm, void *data,
			  struct drm_file *file);

/* vmgpu_wd.c */
void vmgpu_wd_init(struct vmgpu_gpu *gpu);
void vmgpu_wd_program(struct vmgpu_gpu *gpu);
void vmgpu_wd_get(struct vmgpu_gpu *gpu, u32 *mode, u32 *table_slots);
int vmgpu_ioctl_wd_policy(struct drm_device *drm, void *data,
			  struct drm_file *file);

/* vmgpu_submit.c */
int vmgpu_ioctl_submit(struct drm_device *drm, void *data,
		       struct drm_file *file);
void vmgpu_job_put_resources(struct vmgpu_job *job);

#endif /* _VMGPU_DRV_H_ */
