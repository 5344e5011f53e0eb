/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmgpu: DRM driver for the vmgpu virtual multi-GPU compute device.
 */
#ifndef _VMGPU_DRV_H_
#define _VMGPU_DRV_H_

#include <linux/io.h>
#include <linux/pci.h>
#include <linux/workqueue.h>
#include <drm/drm_device.h>

#include "vmgpu_hw.h"

#define DRIVER_NAME		"vmgpu"
#define DRIVER_DESC		"vmgpu virtual multi-GPU compute device"
#define DRIVER_DATE		"20261121"
#define DRIVER_MAJOR		1
#define DRIVER_MINOR		0

struct vmgpu_device;

/**
 * struct vmgpu_gpu - one GPU of the device
 * @vdev: the device it belongs to
 * @index: GPU number, also its MSI-X vector
 * @regs: this GPU's register page
 * @irq: Linux IRQ number of its vector
 * @pending: interrupt causes acknowledged by the hard handler and not yet
 *	handled by @irq_work
 * @irq_work: deferred half of the interrupt path
 */
struct vmgpu_gpu {
	struct vmgpu_device *vdev;
	unsigned int index;
	void __iomem *regs;
	int irq;
	atomic_t pending;
	struct work_struct irq_work;
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
	struct vmgpu_gpu gpu[VMGPU_MAX_GPUS];
};

static inline struct vmgpu_device *to_vmgpu(struct drm_device *drm)
{
	return container_of(drm, struct vmgpu_device, drm);
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

int vmgpu_irq_init(struct vmgpu_device *vdev);
void vmgpu_irq_fini(struct vmgpu_device *vdev);

void vmgpu_debugfs_init(struct drm_minor *minor);

#endif /* _VMGPU_DRV_H_ */
