// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmgpu: the per-GPU ring of DMA packets. Each ring entry carries a fence
 * seqno the device writes back when the packet is done; each entry has a
 * dma_fence the deferred interrupt work signals. Error reports the hard
 * IRQ handler latched are charged to the packet that caused them here.
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>
#include <drm/drm_print.h>

#include "vmgpu_drv.h"
#include "vmgpu_trace.h"

struct vmgpu_fence {
	struct dma_fence base;
	struct vmgpu_gpu *gpu;
};

static const char *vmgpu_fence_driver_name(struct dma_fence *fence)
{
	return DRIVER_NAME;
}

static const char *vmgpu_fence_timeline_name(struct dma_fence *fence)
{
	return container_of(fence, struct vmgpu_fence, base)->gpu->name;
}

static const struct dma_fence_ops vmgpu_fence_ops = {
	.get_driver_name = vmgpu_fence_driver_name,
	.get_timeline_name = vmgpu_fence_timeline_name,
};

/**
 * vmgpu_ring_init() - allocate a GPU's ring and fence word
 * @gpu: the GPU
 *
 * Return: 0 or -ENOMEM.
 */
int vmgpu_ring_init(struct vmgpu_gpu *gpu)
{
	struct device *dev = gpu->vdev->drm.dev;

	gpu->ring_entries = VMGPU_RING_ENTRIES;
	gpu->ring = dma_alloc_coherent(dev, gpu->ring_entries *
				       VMGPU_RING_ENTRY_SIZE, &gpu->ring_dma,
				       GFP_KERNEL);
	if (!gpu->ring)
		return -ENOMEM;
	gpu->fence_cpu = dma_alloc_coherent(dev, VMGPU_PAGE_SIZE,
					    &gpu->fence_dma, GFP_KERNEL);
	if (!gpu->fence_cpu) {
		dma_free_coherent(dev, gpu->ring_entries * VMGPU_RING_ENTRY_SIZE,
				  gpu->ring, gpu->ring_dma);
		gpu->ring = NULL;
		return -ENOMEM;
	}
	spin_lock_init(&gpu->fence_lock);
	spin_lock_init(&gpu->err_lock);
	INIT_LIST_HEAD(&gpu->active);
	gpu->fence_context = dma_fence_context_alloc(1);
	gpu->emit_seqno = 0;
	gpu->last_retire = ktime_get();
	snprintf(gpu->name, sizeof(gpu->name), "vmgpu-gpu%u", gpu->index);
	return 0;
}

/**
 * vmgpu_ring_fini() - stop a GPU and free its ring
 * @gpu: the GPU, with nothing on the ring
 */
void vmgpu_ring_fini(struct vmgpu_gpu *gpu)
{
	struct device *dev = gpu->vdev->drm.dev;

	if (!gpu->ring)
		return;
	vmgpu_gpu_write(gpu, VMGPU_GPU_CONTROL, 0);
	vmgpu_gpu_write(gpu, VMGPU_GPU_RESET, 1);
	dma_free_coherent(dev, VMGPU_PAGE_SIZE, gpu->fence_cpu, gpu->fence_dma);
	dma_free_coherent(dev, gpu->ring_entries * VMGPU_RING_ENTRY_SIZE,
			  gpu->ring, gpu->ring_dma);
	gpu->ring = NULL;
}

/**
 * vmgpu_ring_hw_init() - program the ring registers and the distributor
 * policy (at probe and after a reset) and enable the GPU
 * @gpu: the GPU
 */
void vmgpu_ring_hw_init(struct vmgpu_gpu *gpu)
{
	gpu->ring_tail = 0;
	vmgpu_gpu_write(gpu, VMGPU_GPU_CONTROL, 0);
	vmgpu_gpu_write(gpu, VMGPU_GPU_RING_BASE_LO, lower_32_bits(gpu->ring_dma));
	vmgpu_gpu_write(gpu, VMGPU_GPU_RING_BASE_HI, upper_32_bits(gpu->ring_dma));
	vmgpu_gpu_write(gpu, VMGPU_GPU_RING_ENTRIES, gpu->ring_entries);
	vmgpu_gpu_write(gpu, VMGPU_GPU_RING_TAIL, 0);
	vmgpu_gpu_write(gpu, VMGPU_GPU_FENCE_ADDR_LO,
			lower_32_bits(gpu->fence_dma));
	vmgpu_gpu_write(gpu, VMGPU_GPU_FENCE_ADDR_HI,
			upper_32_bits(gpu->fence_dma));
	vmgpu_as_restore(gpu);
	/* A reset put the device's settings back: the driver's policy again. */
	vmgpu_wd_program(gpu);
	vmgpu_gpu_write(gpu, VMGPU_GPU_INT_ACK, ~0u);
	vmgpu_gpu_write(gpu, VMGPU_GPU_INT_MASK,
			VMGPU_INT_COMPLETE | VMGPU_INT_ERROR_MASK);
	vmgpu_gpu_write(gpu, VMGPU_GPU_CONTROL, VMGPU_CTRL_ENABLE);
}

/**
 * vmgpu_ring_emit() - put a job's packet on the ring and ring the doorbell
 * @gpu: the GPU
 * @job: the job, its command buffer validated and mapped
 *
 * Called by the scheduler (&drm_sched_backend_ops.run_job), one at a time
 * per GPU, and by drm_sched_resubmit_jobs() with the scheduler stopped.
 *
 * Return: the packet's hardware fence, or an ERR_PTR.
 */
struct dma_fence *vmgpu_ring_emit(struct vmgpu_gpu *gpu, struct vmgpu_job *job)
{
	struct vmgpu_ring_entry *entry;
	struct vmgpu_fence *fence;
	unsigned long flags;
	int slot;

	fence = kzalloc(sizeof(*fence), GFP_KERNEL);
	if (!fence)
		return ERR_PTR(-ENOMEM);
	fence->gpu = gpu;
	slot = vmgpu_as_get(gpu, job->vf);
	if (slot < 0) {
		kfree(fence);
		return ERR_PTR(slot);
	}

	spin_lock_irqsave(&gpu->fence_lock, flags);
	job->seqno = ++gpu->emit_seqno;
	dma_fence_init(&fence->base, &vmgpu_fence_ops, &gpu->fence_lock,
		       gpu->fence_context, job->seqno);
	job->done_fence = dma_fence_get(&fence->base);
	job->completed = false;
	job->on_ring = true;
	job->slot = slot;
	job->start = ktime_get();
	list_add_tail(&job->link, &gpu->active);
	spin_unlock_irqrestore(&gpu->fence_lock, flags);

	entry = &gpu->ring[gpu->ring_tail];
	entry->cmdbuf_va = job->cmdbuf->map->node.start;
	entry->cmdbuf_bytes = job->cmd_bytes;
	entry->flags = VMGPU_RING_F_IRQ;
	entry->seqno = job->seqno;
	entry->as_slot = slot;
	entry->min_level = job->ctx->level_min;
	entry->default_level = job->ctx->level_default;
	gpu->ring_tail = (gpu->ring_tail + 1) & (gpu->ring_entries - 1);
	/* The entry must be in memory before the device sees the tail. */
	wmb();
	trace_vmgpu_ring_emit(gpu->index, job->seqno, slot, gpu->ring_tail);
	vmgpu_gpu_write(gpu, VMGPU_GPU_RING_TAIL, gpu->ring_tail);
	vmgpu_gpu_write(gpu, VMGPU_GPU_DOORBELL, 1);
	return &fence->base;
}

static int vmgpu_error_errno(u32 status)
{
	if (status & VMGPU_INT_FAULT)
		return -EFAULT;
	if (status & VMGPU_INT_ILLEGAL)
		return -EINVAL;
	if (status & VMGPU_INT_BUDGET)
		return -ETIMEDOUT;
	return -EIO;
}

/**
 * vmgpu_ring_handle_errors() - charge latched device errors to their packets
 * @gpu: the GPU
 *
 * For each report the hard handler recorded: the packet with the reported
 * seqno gets the error on its fences and its context is banned. Nothing
 * else is touched: other contexts' packets keep running.
 */
void vmgpu_ring_handle_errors(struct vmgpu_gpu *gpu)
{
	struct drm_device *drm = &gpu->vdev->drm;
	struct vmgpu_hw_error e;
	struct vmgpu_job *job;

	for (;;) {
		bool found = false;

		spin_lock_irq(&gpu->err_lock);
		if (gpu->err_head == gpu->err_tail) {
			spin_unlock_irq(&gpu->err_lock);
			break;
		}
		e = gpu->errs[gpu->err_head % VMGPU_ERR_FIFO];
		gpu->err_head++;
		spin_unlock_irq(&gpu->err_lock);

		spin_lock_irq(&gpu->fence_lock);
		list_for_each_entry(job, &gpu->active, link) {
			if (job->seqno != e.seqno)
				continue;
			found = true;
			/* The device abandoned it: it is done, with an error. */
			gpu->err_seqno = max(gpu->err_seqno, e.seqno);
			dma_fence_set_error(job->done_fence,
					    vmgpu_error_errno(e.status));
			dma_fence_set_error(&job->base.s_fence->finished,
					    vmgpu_error_errno(e.status));
			atomic_set(&job->ctx->guilty, 1);
			vmgpu_ctx_set_error(job->ctx, e.code, gpu->index,
					    e.dispatch, e.pc, e.addr);
			vmgpu_stat_add(job->vf->stats, VMGPU_STAT_ERRORS, 1);
			break;
		}
		spin_unlock_irq(&gpu->fence_lock);
		vmgpu_stat_add(gpu->stats, VMGPU_STAT_ERRORS, 1);
		trace_vmgpu_error(gpu->index, e.status, e.code, e.seqno,
				  e.dispatch, e.addr);
		drm_dbg(drm,
			"gpu%u: error %#x code %u seqno %llu dispatch %u pc %u addr %#llx slot %u%s\n",
			gpu->index, e.status, e.code, e.seqno, e.dispatch, e.pc,
			e.addr, e.slot, found ? "" : " (no such packet)");
	}
}

/*
 * Take packets off the ring: those the fence word shows completed (all of
 * them up to the first that is not, or every one with @drop_rest), then
 * signal their hardware fences. A packet taken off without completing gets
 * @error on its hardware fence and, if @fail_job, on the job's own fence
 * too (the job is over); otherwise the scheduler resubmits it.
 */
static void vmgpu_ring_take_off(struct vmgpu_gpu *gpu, u64 completed,
				bool drop_rest, int error, bool fail_job)
{
	struct vmgpu_job *job, *tmp;
	struct vmgpu_file *last = NULL;
	ktime_t now = ktime_get();
	LIST_HEAD(done);

	spin_lock_irq(&gpu->fence_lock);
	/* Packets run in ring order: an abandoned one ends those before it. */
	completed = max(completed, gpu->err_seqno);
	list_for_each_entry_safe(job, tmp, &gpu->active, link) {
		if (job->seqno <= completed)
			job->completed = true;
		else if (!drop_rest)
			break;
		job->on_ring = false;
		list_move_tail(&job->link, &done);
	}
	spin_unlock_irq(&gpu->fence_lock);

	list_for_each_entry_safe(job, tmp, &done, link) {
		struct dma_fence *fence = dma_fence_get(job->done_fence);
		struct vmgpu_file *vf = job->vf;
		ktime_t start = ktime_after(job->start, gpu->last_retire) ?
				job->start : gpu->last_retire;
		s64 busy = ktime_to_ns(ktime_sub(now, start));

		list_del_init(&job->link);
		vmgpu_as_put(gpu, job->slot);
		if (busy > 0) {
			vmgpu_stat_add(gpu->stats, VMGPU_STAT_BUSY_NS, busy);
			atomic64_add(busy, &vf->busy_ns[gpu->index]);
		}
		if (job->completed) {
			vmgpu_stat_add(gpu->stats, VMGPU_STAT_PACKETS, 1);
			vmgpu_stat_add(gpu->stats, VMGPU_STAT_DISPATCHES,
				       job->dispatches);
			vmgpu_stat_add(vf->stats, VMGPU_STAT_PACKETS, 1);
			vmgpu_stat_add(vf->stats, VMGPU_STAT_DISPATCHES,
				       job->dispatches);
			vmgpu_stat_add(vf->stats, VMGPU_STAT_IRQS, 1);
			if (vf != last && !drop_rest)
				vmgpu_stat_add(vf->stats,
					       VMGPU_STAT_WORK_RUNS, 1);
			last = vf;
		} else if (drop_rest && !fail_job &&
			   job->seqno <= gpu->reset_started) {
			/* Interrupted by the reset: over, not run again. */
			dma_fence_set_error(fence, -ENODEV);
			dma_fence_set_error(&job->base.s_fence->finished,
					    -ENODEV);
		} else {
			dma_fence_set_error(fence, error);
			if (fail_job)
				dma_fence_set_error(&job->base.s_fence->finished,
						    error);
		}
		trace_vmgpu_retire(gpu->index, job->seqno, job->dispatches,
				   fence->error);
		/* After this the scheduler may free the job. */
		dma_fence_signal(fence);
		dma_fence_put(fence);
	}
	gpu->last_retire = now;
}

/**
 * vmgpu_ring_retire() - signal the fences of completed packets
 * @gpu: the GPU
 * @drop_rest: the GPU was reset: also take every other packet off the
 *	ring (its fence gets -ECANCELED; the scheduler resubmits the job)
 *
 * Runs in the deferred interrupt work, or in the reset path with the
 * interrupt disabled. Completion is read from the fence word the device
 * writes, so one interrupt retires every packet done by then.
 */
void vmgpu_ring_retire(struct vmgpu_gpu *gpu, bool drop_rest)
{
	u64 completed;

	completed = READ_ONCE(*gpu->fence_cpu);
	/* Read the fence word before anything the device wrote before it. */
	rmb();
	/*
	 * Let the device see that the host now knows of this fence: work
	 * submitted after it starts no earlier in device time. The register
	 * is written with the word, so it is at least as new.
	 */
	vmgpu_gpu_read(gpu, VMGPU_GPU_FENCE_LO);
	/*
	 * After a reset, only what was done when the GPU was quiesced: a
	 * packet fenced between then and the reset may have lost its error
	 * with the registers, and is run again instead.
	 */
	if (drop_rest)
		completed = min(completed, gpu->reset_fence);
	/*
	 * An error the hard handler has not latched yet: its packet may
	 * already show as done in the fence word. Leave it (and what
	 * follows) for the run the error interrupt queues, so the packet
	 * is never signalled without its error.
	 */
	if (!drop_rest &&
	    (vmgpu_gpu_read(gpu, VMGPU_GPU_INT_STATUS) & VMGPU_INT_ERROR_MASK)) {
		u64 bad = vmgpu_gpu_read(gpu, VMGPU_GPU_ERR_SEQNO_LO) |
			  (u64)vmgpu_gpu_read(gpu, VMGPU_GPU_ERR_SEQNO_HI) << 32;

		if (bad && completed >= bad)
			completed = bad - 1;
	}
	vmgpu_ring_take_off(gpu, completed, drop_rest, -ECANCELED, false);
}

/**
 * vmgpu_ring_cancel() - fail every packet on the ring, the device is gone
 * @gpu: the GPU, its interrupt freed and its scheduler still running
 * @error: what the packets' fences get
 *
 * Packets the fence word shows completed still complete.
 */
void vmgpu_ring_cancel(struct vmgpu_gpu *gpu, int error)
{
	u64 completed = READ_ONCE(*gpu->fence_cpu);

	/* As in vmgpu_ring_retire(): the fence word first. */
	rmb();
	vmgpu_ring_take_off(gpu, completed, true, error, true);
}
