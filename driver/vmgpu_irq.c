// SPDX-License-Identifier: GPL-2.0
/*
 * vmgpu: interrupts. One MSI-X vector per GPU. The hard handler only reads
 * and acknowledges the GPU's status and records it; everything else runs
 * in the deferred work item.
 */
#include <linux/interrupt.h>
#include <linux/pci.h>
#include <drm/drm_print.h>

#include "vmgpu_drv.h"

static irqreturn_t vmgpu_irq_handler(int irq, void *arg)
{
	struct vmgpu_gpu *gpu = arg;
	u32 status = vmgpu_gpu_read(gpu, VMGPU_GPU_INT_STATUS);

	if (!status)
		return IRQ_NONE;
	vmgpu_gpu_write(gpu, VMGPU_GPU_INT_ACK, status);
	atomic_or(status, &gpu->pending);
	queue_work(system_highpri_wq, &gpu->irq_work);
	return IRQ_HANDLED;
}

static void vmgpu_irq_work(struct work_struct *work)
{
	struct vmgpu_gpu *gpu = container_of(work, struct vmgpu_gpu, irq_work);
	u32 status = atomic_xchg(&gpu->pending, 0);

	if (status & VMGPU_INT_ERROR_MASK)
		drm_dbg_driver(&gpu->vdev->drm, "gpu%u: error interrupt %#x\n",
			       gpu->index, status);
}

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
		gpu->irq = pci_irq_vector(pdev, VMGPU_MSIX_VECTOR(i));
		ret = request_irq(gpu->irq, vmgpu_irq_handler, 0, DRIVER_NAME,
				  gpu);
		if (ret) {
			drm_err(&vdev->drm, "gpu%u: request_irq: %d\n", i, ret);
			gpu->irq = 0;
			vmgpu_irq_fini(vdev);
			return ret;
		}
		vmgpu_gpu_write(gpu, VMGPU_GPU_INT_ACK, ~0u);
		vmgpu_gpu_write(gpu, VMGPU_GPU_INT_MASK,
				VMGPU_INT_COMPLETE | VMGPU_INT_ERROR_MASK);
	}
	return 0;
}

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
