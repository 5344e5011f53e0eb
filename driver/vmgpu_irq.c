// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmgpu: interrupts. One MSI-X vector per GPU. The hard handler only reads
 * and acknowledges the GPU's status, latches an error report if there is
 * one, and queues the deferred work; the work charges errors to their
 * packets, signals the fences of completed packets and so lets the
 * scheduler push the next ones.
 */
#include <linux/interrupt.h>
#include <linux/pci.h>
#include <drm/drm_print.h>

#include "vmgpu_drv.h"
#include "vmgpu_trace.h"

/*
 * Copy the device's error registers while the error bit is pending. From
 * the hard handler, or from a reset with the interrupt disabled.
 */
static void vmgpu_irq_latch_error(struct vmgpu_gpu *gpu, u32 status)
{
	struct vmgpu_hw_error *e;
	unsigned long flags;

	spin_lock_irqsave(&gpu->err_lock, flags);
	if (gpu->err_tail - gpu->err_head >= VMGPU_ERR_FIFO) {
		gpu->err_lost++;
		spin_unlock_irqrestore(&gpu->err_lock, flags);
		return;
	}
	e = &gpu->errs[gpu->err_tail % VMGPU_ERR_FIFO];
	e->status = status & VMGPU_INT_ERROR_MASK;
	e->code = vmgpu_gpu_read(gpu, VMGPU_GPU_ERR_CODE);
	e->slot = vmgpu_gpu_read(gpu, VMGPU_GPU_ERR_SLOT);
	e->addr = vmgpu_gpu_read(gpu, VMGPU_GPU_ERR_ADDR_LO) |
		  (u64)vmgpu_gpu_read(gpu, VMGPU_GPU_ERR_ADDR_HI) << 32;
	e->pc = vmgpu_gpu_read(gpu, VMGPU_GPU_ERR_PC);
	e->seqno = vmgpu_gpu_read(gpu, VMGPU_GPU_ERR_SEQNO_LO) |
		   (u64)vmgpu_gpu_read(gpu, VMGPU_GPU_ERR_SEQNO_HI) << 32;
	e->dispatch = vmgpu_gpu_read(gpu, VMGPU_GPU_ERR_DISPATCH);
	gpu->err_tail++;
	spin_unlock_irqrestore(&gpu->err_lock, flags);
}

/**
 * vmgpu_irq_latch_pending() - keep an error report the handler has not seen
 * @gpu: the GPU, its interrupt disabled
 *
 * A reset clears the device's error registers, but the packet they name
 * may already show as done in the fence word (the device writes the fence
 * of a packet it abandoned). Latched here, before the reset, the error is
 * charged to its packet instead of the packet passing for a success.
 */
void vmgpu_irq_latch_pending(struct vmgpu_gpu *gpu)
{
	u32 status = vmgpu_gpu_read(gpu, VMGPU_GPU_INT_STATUS);

	if (!(status & VMGPU_INT_ERROR_MASK))
		return;
	vmgpu_irq_latch_error(gpu, status);
	vmgpu_stat_add(gpu->stats, VMGPU_STAT_IRQS_ERROR, 1);
	vmgpu_gpu_write(gpu, VMGPU_GPU_INT_ACK, status & VMGPU_INT_ERROR_MASK);
}

static irqreturn_t vmgpu_irq_handler(int irq, void *arg)
{
	struct vmgpu_gpu *gpu = arg;
	u32 status = vmgpu_gpu_read(gpu, VMGPU_GPU_INT_STATUS);

	if (!status)
		return IRQ_NONE;
	if (status & VMGPU_INT_ERROR_MASK) {
		vmgpu_irq_latch_error(gpu, status);
		vmgpu_stat_add(gpu->stats, VMGPU_STAT_IRQS_ERROR, 1);
	}
	if (status & VMGPU_INT_COMPLETE)
		vmgpu_stat_add(gpu->stats, VMGPU_STAT_IRQS_COMPLETE, 1);
	vmgpu_stat_add(gpu->stats, VMGPU_STAT_IRQS, 1);
	/* The completed seqno, from the fence word (memory, not MMIO). */
	WRITE_ONCE(gpu->irq_seqno, READ_ONCE(*gpu->fence_cpu));
	trace_vmgpu_irq(gpu->index, status, gpu->irq_seqno);
	/* Acknowledging an error lets the device report the next one. */
	vmgpu_gpu_write(gpu, VMGPU_GPU_INT_ACK, status);
	atomic_or(status, &gpu->pending);
	queue_work(system_highpri_wq, &gpu->irq_work);
	return IRQ_HANDLED;
}

static void vmgpu_irq_work(struct work_struct *work)
{
	struct vmgpu_gpu *gpu = container_of(work, struct vmgpu_gpu, irq_work);
	u32 status = atomic_xchg(&gpu->pending, 0);

	vmgpu_stat_add(gpu->stats, VMGPU_STAT_WORK_RUNS, 1);
	if (status & VMGPU_INT_ERROR_MASK)
		vmgpu_ring_handle_errors(gpu);
	vmgpu_ring_retire(gpu, false);
}

/**
 * vmgpu_irq_init() - allocate one MSI-X vector per GPU and install handlers
 * @vdev: the device
 *
 * Return: 0 or a negative errno.
 */
int vmgpu_irq_init(struct vmgpu_device *vdev)
{
	struct pci_dev *pdev = vdev->pdev;
	unsigned int i;
	int ret;

	ret = pci_alloc_irq_vectors(pdev, vdev->num_gpus, vdev->num_gpus,
				    PCI_IRQ_MSIX);
	if (ret < 0) {
		drm_err(&vdev->drm, "need %u MSI-X vectors: %d\n",
			vdev->num_gpus, ret);
		return ret;
	}

	for (i = 0; i < vdev->num_gpus; i++) {
		struct vmgpu_gpu *gpu = &vdev->gpu[i];

		INIT_WORK(&gpu->irq_work, vmgpu_irq_work);
		atomic_set(&gpu->pending, 0);
		vmgpu_gpu_write(gpu, VMGPU_GPU_INT_MASK, 0);
		gpu->irq = pci_irq_vector(pdev, VMGPU_MSIX_VECTOR(i));
		ret = request_irq(gpu->irq, vmgpu_irq_handler, 0, gpu->name,
				  gpu);
		if (ret) {
			drm_err(&vdev->drm, "gpu%u: request_irq: %d\n", i, ret);
			gpu->irq = 0;
			vmgpu_irq_fini(vdev);
			return ret;
		}
	}
	return 0;
}

/**
 * vmgpu_irq_fini() - mask and free the interrupts, flush the deferred work
 * @vdev: the device
 */
void vmgpu_irq_fini(struct vmgpu_device *vdev)
{
	unsigned int i;

	for (i = 0; i < vdev->num_gpus; i++) {
		struct vmgpu_gpu *gpu = &vdev->gpu[i];

		if (!gpu->irq)
			continue;
		vmgpu_gpu_write(gpu, VMGPU_GPU_INT_MASK, 0);
		free_irq(gpu->irq, gpu);
		cancel_work_sync(&gpu->irq_work);
		gpu->irq = 0;
	}
	pci_free_irq_vectors(vdev->pdev);
}
