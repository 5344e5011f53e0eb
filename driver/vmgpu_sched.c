// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmgpu: one drm_gpu_scheduler per GPU ring, contexts with one entity per
 * GPU, and recovery: a packet that does not complete in time bans its
 * context, the GPU is reset and the innocent packets are resubmitted; a
 * PCI reset stops every GPU, and afterwards every packet that had not
 * started is resubmitted. A packet a reset interrupts fails with -ENODEV
 * instead of running again: blocks it completed have changed memory, and
 * running them twice would give a wrong result reported as success.
 *
 * Every recovery action (the schedulers' timeout handlers and both halves
 * of a PCI reset) runs on the device's ordered workqueue reset_wq, so no
 * two of them ever run at once.
 */
#include <linux/capability.h>
#include <linux/interrupt.h>
#include <linux/slab.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "vmgpu_drm.h"
#include "vmgpu_drv.h"
#include "vmgpu_trace.h"

static struct dma_fence *vmgpu_job_run(struct drm_sched_job *sched_job)
{
	struct vmgpu_job *job = to_vmgpu_job(sched_job);
	struct dma_fence *fence;
	int idx;

	/* Resubmitted after a reset: the packet may have finished already. */
	if (job->done_fence) {
		if (job->completed)
			return dma_fence_get(job->done_fence);
		dma_fence_put(job->done_fence);
		job->done_fence = NULL;
	}
	/* Banned context, or cancelled by the reset: do not run it. */
	if (unlikely(sched_job->s_fence->finished.error))
		return NULL;
	/*
	 * The device is gone: fail the job at once, so that the entities of
	 * files still open drain and every fence a waiter holds signals.
	 */
	if (!drm_dev_enter(&job->gpu->vdev->drm, &idx))
		return ERR_PTR(-ENODEV);
	fence = vmgpu_ring_emit(job->gpu, job);
	drm_dev_exit(idx);
	return fence;
}

/* Take a GPU's interrupt path out of service (the first half of a reset). */
static void vmgpu_gpu_quiesce(struct vmgpu_gpu *gpu)
{
	u32 head;

	disable_irq(gpu->irq);
	cancel_work_sync(&gpu->irq_work);
	atomic_set(&gpu->pending, 0);
	/*
	 * No further packet starts; the one running goes on. The entry
	 * before RING_HEAD is the last the device took: every packet up to
	 * its seqno has started (one runs at a time, in ring order).
	 */
	vmgpu_gpu_write(gpu, VMGPU_GPU_CONTROL, 0);
	head = vmgpu_gpu_read(gpu, VMGPU_GPU_RING_HEAD);
	if (head < gpu->ring_entries)
		gpu->reset_started =
			READ_ONCE(gpu->ring[(head - 1) & (gpu->ring_entries - 1)].seqno);
	else
		gpu->reset_started = U64_MAX;
	/*
	 * The GPU runs on until the reset, and a packet it abandons until
	 * then has its error reported in registers the reset wipes, then its
	 * fence written. So: the fence word first, then what error the
	 * registers hold. Every packet up to that fence had its error
	 * reported before it and so latched now; a packet fenced later only
	 * passes for done if the restart sees it done by this fence.
	 */
	gpu->reset_fence = READ_ONCE(*gpu->fence_cpu);
	/* The fence word before the error registers, as said above. */
	rmb();
	vmgpu_irq_latch_pending(gpu);
}

/*
 * Reset a quiesced GPU and bring it back: rings and address spaces
 * reprogrammed, what completed before the reset retired, every other
 * packet taken off the ring for the scheduler to resubmit.
 */
static void vmgpu_gpu_restart(struct vmgpu_gpu *gpu)
{
	vmgpu_gpu_write(gpu, VMGPU_GPU_RESET, 1);
	vmgpu_ring_hw_init(gpu);
	/* Errors latched before the reset still name their packets. */
	vmgpu_ring_handle_errors(gpu);
	vmgpu_ring_retire(gpu, true);
	vmgpu_stat_add(gpu->stats, VMGPU_STAT_RESETS, 1);
	enable_irq(gpu->irq);
}

/*
 * Give a job the timeout handler decided not to act on back to the head of
 * the pending list the scheduler took it off, or it would never be freed.
 */
static void vmgpu_job_requeue(struct drm_sched_job *sched_job)
{
	struct drm_gpu_scheduler *sched = sched_job->sched;

	spin_lock(&sched->job_list_lock);
	list_add(&sched_job->list, &sched->pending_list);
	spin_unlock(&sched->job_list_lock);
}

/*
 * Is the job innocent of the timeout? True if the device has finished its
 * packet (the fence word passed its seqno; the deferred work may simply not
 * have run yet), or if the packet went on the ring again less than the
 * timeout ago (resubmitted after another packet's reset or a PCI reset).
 */
static bool vmgpu_job_not_hung(struct vmgpu_job *job)
{
	struct vmgpu_gpu *gpu = job->gpu;
	bool done, fresh;

	spin_lock_irq(&gpu->fence_lock);
	done = !job->done_fence || job->completed ||
	       dma_fence_is_signaled_locked(job->done_fence) ||
	       (job->on_ring && job->seqno <= READ_ONCE(*gpu->fence_cpu));
	fresh = job->on_ring &&
		ktime_ms_delta(ktime_get(), job->start) < vmgpu_job_timeout_ms;
	spin_unlock_irq(&gpu->fence_lock);
	return done || fresh;
}

static enum drm_gpu_sched_stat vmgpu_job_timedout(struct drm_sched_job *sched_job)
{
	struct vmgpu_job *job = to_vmgpu_job(sched_job);
	struct vmgpu_gpu *gpu = job->gpu;
	struct vmgpu_device *vdev = gpu->vdev;
	struct drm_device *drm = &vdev->drm;
	int idx;

	/* Unplugged: the unplug cancels every packet on the ring. */
	if (!drm_dev_enter(drm, &idx)) {
		vmgpu_job_requeue(sched_job);
		return DRM_GPU_SCHED_STAT_ENODEV;
	}
	if (vmgpu_job_not_hung(job)) {
		vmgpu_job_requeue(sched_job);
		queue_work(system_highpri_wq, &gpu->irq_work);
		drm_dev_exit(idx);
		return DRM_GPU_SCHED_STAT_NOMINAL;
	}

	drm_info(drm, "gpu%u: packet %llu timed out, resetting the GPU\n",
		 gpu->index, job->seqno);
	trace_vmgpu_reset(gpu->index, job->seqno);
	drm_sched_stop(&gpu->sched, sched_job);
	drm_sched_increase_karma(sched_job);
	atomic_set(&job->ctx->guilty, 1);
	if (!job->completed)
		vmgpu_ctx_set_error(job->ctx, DRM_VMGPU_FAULT_TIMEOUT,
				    gpu->index, 0, 0, 0);
	vmgpu_stat_add(gpu->stats, VMGPU_STAT_TIMEOUTS, 1);
	vmgpu_stat_add(gpu->stats, VMGPU_STAT_ERRORS, 1);
	vmgpu_stat_add(job->vf->stats, VMGPU_STAT_ERRORS, 1);

	vmgpu_gpu_quiesce(gpu);
	vmgpu_gpu_restart(gpu);

	drm_sched_resubmit_jobs(&gpu->sched);
	drm_sched_start(&gpu->sched, true);
	drm_dev_exit(idx);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

static void vmgpu_job_free(struct drm_sched_job *sched_job)
{
	struct vmgpu_job *job = to_vmgpu_job(sched_job);

	drm_sched_job_cleanup(sched_job);
	vmgpu_job_put_resources(job);
}

static const struct drm_sched_backend_ops vmgpu_sched_ops = {
	.run_job = vmgpu_job_run,
	.timedout_job = vmgpu_job_timedout,
	.free_job = vmgpu_job_free,
};

/**
 * vmgpu_sched_init() - rings and schedulers of every GPU
 * @vdev: the device
 *
 * Return: 0 or a negative errno.
 */
int vmgpu_sched_init(struct vmgpu_device *vdev)
{
	struct drm_sched_init_args args = {
		.ops = &vmgpu_sched_ops,
		.hang_limit = 0,
		.timeout = msecs_to_jiffies(vmgpu_job_timeout_ms),
		.dev = vdev->drm.dev,
	};
	unsigned int i;
	int ret;

	vdev->reset_wq = alloc_ordered_workqueue("vmgpu-reset", 0);
	if (!vdev->reset_wq)
		return -ENOMEM;
	args.timeout_wq = vdev->reset_wq;
	for (i = 0; i < vdev->num_gpus; i++) {
		struct vmgpu_gpu *gpu = &vdev->gpu[i];

		mutex_init(&gpu->as_lock);
		ret = vmgpu_ring_init(gpu);
		if (ret)
			goto fail;
		/*
		 * Each packet on the ring holds an address-space slot, so at
		 * most as many packets as slots are in flight.
		 */
		gpu->inflight = min_t(u32, vdev->as_slots, gpu->ring_entries - 1);
		args.credit_limit = gpu->inflight;
		args.name = gpu->name;
		ret = drm_sched_init(&gpu->sched, &args);
		if (ret) {
			vmgpu_ring_fini(gpu);
			goto fail;
		}
		vmgpu_ring_hw_init(gpu);
	}
	return 0;

fail:
	while (i--) {
		drm_sched_fini(&vdev->gpu[i].sched);
		vmgpu_ring_fini(&vdev->gpu[i]);
	}
	destroy_workqueue(vdev->reset_wq);
	return ret;
}

/* Free the jobs drm_sched_fini() of this kernel leaves on the pending list. */
static void vmgpu_sched_free_pending(struct drm_gpu_scheduler *sched)
{
	struct drm_sched_job *job, *tmp;
	LIST_HEAD(list);

	spin_lock(&sched->job_list_lock);
	list_splice_init(&sched->pending_list, &list);
	spin_unlock(&sched->job_list_lock);
	list_for_each_entry_safe(job, tmp, &list, list) {
		struct dma_fence *f = &job->s_fence->finished;

		list_del_init(&job->list);
		if (!dma_fence_is_signaled(f)) {
			dma_fence_set_error(f, -ENODEV);
			dma_fence_signal(f);
		}
		sched->ops->free_job(job);
	}
}

/**
 * vmgpu_sched_fini() - stop the schedulers, once no file is left
 * @vdev: the device
 *
 * Runs when the DRM device is released: an unbind leaves the schedulers
 * running (failing every job with -ENODEV) so that files still open can
 * drain their entities. The rings are already gone (vmgpu_ring_fini()).
 */
void vmgpu_sched_fini(struct vmgpu_device *vdev)
{
	unsigned int i;

	for (i = 0; i < vdev->num_gpus; i++) {
		drm_sched_fini(&vdev->gpu[i].sched);
		vmgpu_sched_free_pending(&vdev->gpu[i].sched);
		mutex_destroy(&vdev->gpu[i].as_lock);
	}
	destroy_workqueue(vdev->reset_wq);
}

struct vmgpu_reset_work {
	struct work_struct work;
	struct vmgpu_device *vdev;
};

/* Both halves of a PCI reset, on reset_wq (so never during a timeout). */
static void vmgpu_sched_stop_work(struct work_struct *work)
{
	struct vmgpu_device *vdev =
		container_of(work, struct vmgpu_reset_work, work)->vdev;
	unsigned int i;

	for (i = 0; i < vdev->num_gpus; i++) {
		struct vmgpu_gpu *gpu = &vdev->gpu[i];

		drm_sched_stop(&gpu->sched, NULL);
		vmgpu_gpu_quiesce(gpu);
	}
}

static void vmgpu_sched_restart_work(struct work_struct *work)
{
	struct vmgpu_device *vdev =
		container_of(work, struct vmgpu_reset_work, work)->vdev;
	unsigned int i;

	for (i = 0; i < vdev->num_gpus; i++) {
		struct vmgpu_gpu *gpu = &vdev->gpu[i];

		vmgpu_gpu_restart(gpu);
		drm_sched_resubmit_jobs(&gpu->sched);
		drm_sched_start(&gpu->sched, true);
	}
}

static void vmgpu_sched_run_on_reset_wq(struct vmgpu_device *vdev,
					work_func_t fn)
{
	struct vmgpu_reset_work w = { .vdev = vdev };

	INIT_WORK_ONSTACK(&w.work, fn);
	queue_work(vdev->reset_wq, &w.work);
	flush_work(&w.work);
	destroy_work_on_stack(&w.work);
}

/**
 * vmgpu_sched_stop_all() - quiesce every GPU before a PCI reset
 * @vdev: the device
 *
 * Waits for a timeout handler in progress, parks every scheduler and
 * masks every GPU's interrupt. Packets on the rings stay queued.
 */
void vmgpu_sched_stop_all(struct vmgpu_device *vdev)
{
	vmgpu_sched_run_on_reset_wq(vdev, vmgpu_sched_stop_work);
}

/**
 * vmgpu_sched_restart_all() - bring every GPU back after a PCI reset
 * @vdev: the device, reset, its config space restored
 *
 * Reprograms rings and address spaces, retires what completed before the
 * reset, and resubmits every other packet from its beginning: no context
 * is blamed for a reset it did not cause.
 */
void vmgpu_sched_restart_all(struct vmgpu_device *vdev)
{
	vmgpu_sched_run_on_reset_wq(vdev, vmgpu_sched_restart_work);
}

static void vmgpu_ctx_release(struct kref *kref)
{
	struct vmgpu_ctx *ctx = container_of(kref, struct vmgpu_ctx, refcount);

	mutex_destroy(&ctx->submit_lock);
	kfree(ctx);
}

/**
 * vmgpu_ctx_put() - drop a reference to a context
 * @ctx: the context
 */
void vmgpu_ctx_put(struct vmgpu_ctx *ctx)
{
	kref_put(&ctx->refcount, vmgpu_ctx_release);
}

/**
 * vmgpu_ctx_lookup() - a context of a file, with a reference
 * @vf: the file
 * @id: the context id
 *
 * Return: the context or NULL.
 */
struct vmgpu_ctx *vmgpu_ctx_lookup(struct vmgpu_file *vf, u32 id)
{
	struct vmgpu_ctx *ctx;

	xa_lock(&vf->ctxs);
	ctx = xa_load(&vf->ctxs, id);
	if (ctx)
		kref_get(&ctx->refcount);
	xa_unlock(&vf->ctxs);
	return ctx;
}

/**
 * vmgpu_ctx_set_error() - record why a context was banned
 * @ctx: the context
 * @fault: VMGPU_FAULT_* or DRM_VMGPU_FAULT_TIMEOUT
 * @gpu: GPU index
 * @dispatch: dispatch index in the packet
 * @pc: instruction index
 * @addr: faulting address
 *
 * The first error is kept; later ones are only counted.
 */
void vmgpu_ctx_set_error(struct vmgpu_ctx *ctx, u32 fault, u32 gpu,
			 u32 dispatch, u32 pc, u64 addr)
{
	unsigned long flags;

	spin_lock_irqsave(&ctx->err_lock, flags);
	if (!ctx->errors++) {
		ctx->fault = fault;
		ctx->err_gpu = gpu;
		ctx->err_dispatch = dispatch;
		ctx->err_pc = pc;
		ctx->err_addr = addr;
	}
	spin_unlock_irqrestore(&ctx->err_lock, flags);
}

/*
 * Tear down a context taken out of its file's id table: after @destroyed
 * is set under submit_lock no SUBMIT pushes onto its entities, so they can
 * be flushed (queued packets still run; a killed process's are dropped)
 * and finalised. The memory lives on while jobs hold references.
 */
static void vmgpu_ctx_destroy(struct vmgpu_ctx *ctx)
{
	u32 i;

	mutex_lock(&ctx->submit_lock);
	ctx->destroyed = true;
	mutex_unlock(&ctx->submit_lock);
	for (i = 0; i < ctx->num_gpus; i++)
		drm_sched_entity_destroy(&ctx->entity[i]);
	vmgpu_ctx_put(ctx);
}

/**
 * vmgpu_ctx_destroy_all() - destroy every context of a closing file
 * @vf: the file
 */
void vmgpu_ctx_destroy_all(struct vmgpu_file *vf)
{
	struct vmgpu_ctx *ctx;
	unsigned long id;

	xa_for_each(&vf->ctxs, id, ctx) {
		xa_erase(&vf->ctxs, id);
		vmgpu_ctx_destroy(ctx);
	}
	xa_destroy(&vf->ctxs);
}

static const u32 vmgpu_level_min[DRM_VMGPU_PRIORITY_COUNT] = {
	[DRM_VMGPU_PRIORITY_LOW] = DRM_VMGPU_LEVEL_MIN_LOW,
	[DRM_VMGPU_PRIORITY_NORMAL] = DRM_VMGPU_LEVEL_MIN_NORMAL,
	[DRM_VMGPU_PRIORITY_HIGH] = DRM_VMGPU_LEVEL_MIN_HIGH,
};

static const u32 vmgpu_level_default[DRM_VMGPU_PRIORITY_COUNT] = {
	[DRM_VMGPU_PRIORITY_LOW] = DRM_VMGPU_LEVEL_DEFAULT_LOW,
	[DRM_VMGPU_PRIORITY_NORMAL] = DRM_VMGPU_LEVEL_DEFAULT_NORMAL,
	[DRM_VMGPU_PRIORITY_HIGH] = DRM_VMGPU_LEVEL_DEFAULT_HIGH,
};

static const enum drm_sched_priority vmgpu_prio[DRM_VMGPU_PRIORITY_COUNT] = {
	[DRM_VMGPU_PRIORITY_LOW] = DRM_SCHED_PRIORITY_MIN,
	[DRM_VMGPU_PRIORITY_NORMAL] = DRM_SCHED_PRIORITY_NORMAL,
	[DRM_VMGPU_PRIORITY_HIGH] = DRM_SCHED_PRIORITY_HIGH,
};

/**
 * vmgpu_ioctl_ctx_create() - DRM_IOCTL_VMGPU_CTX_CREATE
 * @drm: the DRM device
 * @data: struct drm_vmgpu_ctx_create
 * @file: the calling file
 *
 * Return: 0 or a negative errno.
 */
int vmgpu_ioctl_ctx_create(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct vmgpu_device *vdev = to_vmgpu(drm);
	struct vmgpu_file *vf = file->driver_priv;
	struct drm_vmgpu_ctx_create *args = data;
	struct vmgpu_ctx *ctx;
	u32 i;
	int ret;

	if (args->flags || args->pad || args->ctx_id) {
		drm_dbg(drm, "ctx_create: non-zero flags, padding or output\n");
		return -EINVAL;
	}
	if (args->priority >= DRM_VMGPU_PRIORITY_COUNT) {
		drm_dbg(drm, "ctx_create: bad priority %u\n", args->priority);
		return -EINVAL;
	}
	if (args->priority == DRM_VMGPU_PRIORITY_HIGH &&
	    !capable(CAP_SYS_NICE)) {
		drm_dbg(drm, "ctx_create: high priority needs CAP_SYS_NICE\n");
		return -EACCES;
	}

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	kref_init(&ctx->refcount);
	mutex_init(&ctx->submit_lock);
	ctx->level_min = vmgpu_level_min[args->priority];
	ctx->level_default = vmgpu_level_default[args->priority];
	spin_lock_init(&ctx->err_lock);
	for (i = 0; i < vdev->num_gpus; i++) {
		struct drm_gpu_scheduler *sched = &vdev->gpu[i].sched;

		ret = drm_sched_entity_init(&ctx->entity[i],
					    vmgpu_prio[args->priority],
					    &sched, 1, &ctx->guilty);
		if (ret)
			goto err;
		ctx->num_gpus++;
	}
	ret = xa_alloc(&vf->ctxs, &ctx->id, ctx, xa_limit_32b, GFP_KERNEL);
	if (ret)
		goto err;
	args->ctx_id = ctx->id;
	return 0;

err:
	vmgpu_ctx_destroy(ctx);
	return ret;
}

/**
 * vmgpu_ioctl_ctx_destroy() - DRM_IOCTL_VMGPU_CTX_DESTROY
 * @drm: the DRM device
 * @data: struct drm_vmgpu_ctx_destroy
 * @file: the calling file
 *
 * Return: 0 or a negative errno.
 */
int vmgpu_ioctl_ctx_destroy(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct vmgpu_file *vf = file->driver_priv;
	struct drm_vmgpu_ctx_destroy *args = data;
	struct vmgpu_ctx *ctx;

	if (args->pad)
		return -EINVAL;
	/*
	 * Never erase index 0 of the allocating xarray: that would free it
	 * for xa_alloc(), and 0 is not a context id.
	 */
	ctx = args->ctx_id ? xa_erase(&vf->ctxs, args->ctx_id) : NULL;
	if (!ctx) {
		drm_dbg(drm, "ctx_destroy: no context %u\n", args->ctx_id);
		return -ENOENT;
	}
	vmgpu_ctx_destroy(ctx);
	return 0;
}

/**
 * vmgpu_ioctl_ctx_query() - DRM_IOCTL_VMGPU_CTX_QUERY
 * @drm: the DRM device
 * @data: struct drm_vmgpu_ctx_query
 * @file: the calling file
 *
 * Return: 0 or a negative errno.
 */
int vmgpu_ioctl_ctx_query(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct vmgpu_file *vf = file->driver_priv;
	struct drm_vmgpu_ctx_query *args = data;
	struct vmgpu_ctx *ctx;

	if (args->pad)
		return -EINVAL;
	ctx = vmgpu_ctx_lookup(vf, args->ctx_id);
	if (!ctx) {
		drm_dbg(drm, "ctx_query: no context %u\n", args->ctx_id);
		return -ENOENT;
	}
	spin_lock_irq(&ctx->err_lock);
	args->state = atomic_read(&ctx->guilty) ? DRM_VMGPU_CTX_BANNED : 0;
	args->fault = ctx->fault;
	args->gpu = ctx->err_gpu;
	args->dispatch = ctx->err_dispatch;
	args->pc = ctx->err_pc;
	args->addr = ctx->err_addr;
	args->errors = ctx->errors;
	spin_unlock_irq(&ctx->err_lock);
	vmgpu_ctx_put(ctx);
	return 0;
}
