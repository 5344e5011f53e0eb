// SPDX-License-Identifier: GPL-2.0
/*
 * vmgpu: PCI binding, DRM device registration and the parameter ioctl.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_print.h>

#include "vmgpu_drm.h"
#include "vmgpu_drv.h"

static int vmgpu_ioctl_get_param(struct drm_device *drm, void *data,
				 struct drm_file *file)
{
	struct vmgpu_device *vdev = to_vmgpu(drm);
	struct drm_vmgpu_get_param *args = data;

	if (args->pad)
		return -EINVAL;

	switch (args->param) {
	case DRM_VMGPU_PARAM_UAPI_VERSION:
		args->value = DRM_VMGPU_UAPI_VERSION;
		break;
	case DRM_VMGPU_PARAM_HW_VERSION:
		args->value = vdev->hw_version;
		break;
	case DRM_VMGPU_PARAM_NUM_GPUS:
		args->value = vdev->num_gpus;
		break;
	case DRM_VMGPU_PARAM_SMS_PER_GPU:
		args->value = vdev->sms_per_gpu;
		break;
	case DRM_VMGPU_PARAM_ISA_VERSION:
		args->value = vdev->isa_version;
		break;
	case DRM_VMGPU_PARAM_CAPS:
		args->value = vdev->caps;
		break;
	case DRM_VMGPU_PARAM_WARP_SIZE:
		args->value = vmgpu_read(vdev, VMGPU_REG_WARP_SIZE);
		break;
	case DRM_VMGPU_PARAM_CLOCK_KHZ:
		args->value = vmgpu_read(vdev, VMGPU_REG_CLOCK_KHZ);
		break;
	case DRM_VMGPU_PARAM_LOCAL_MEM_MB:
		args->value = vmgpu_read(vdev, VMGPU_REG_LOCAL_MEM_MB);
		break;
	case DRM_VMGPU_PARAM_CMDBUF_MAX_BYTES:
		args->value = vmgpu_read(vdev, VMGPU_REG_CMDBUF_MAX_BYTES);
		break;
	case DRM_VMGPU_PARAM_MAX_DISPATCHES:
		args->value = vmgpu_read(vdev, VMGPU_REG_MAX_DISPATCHES);
		break;
	default:
		drm_dbg(drm, "unknown parameter %u\n", args->param);
		return -EINVAL;
	}
	return 0;
}

static const struct drm_ioctl_desc vmgpu_ioctls[] = {
	DRM_IOCTL_DEF_DRV(VMGPU_GET_PARAM, vmgpu_ioctl_get_param,
			  DRM_RENDER_ALLOW),
};

DEFINE_DRM_GEM_FOPS(vmgpu_fops);

static const struct drm_driver vmgpu_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER,
	.ioctls = vmgpu_ioctls,
	.num_ioctls = ARRAY_SIZE(vmgpu_ioctls),
	.fops = &vmgpu_fops,
#if IS_ENABLED(CONFIG_DEBUG_FS)
	.debugfs_init = vmgpu_debugfs_init,
#endif
	.name = DRIVER_NAME,
	.desc = DRIVER_DESC,
	.date = DRIVER_DATE,
	.major = DRIVER_MAJOR,
	.minor = DRIVER_MINOR,
};

/* Read the device's identity and refuse what this driver cannot drive. */
static int vmgpu_hw_identify(struct vmgpu_device *vdev)
{
	struct drm_device *drm = &vdev->drm;
	u32 magic = vmgpu_read(vdev, VMGPU_REG_MAGIC);

	if (magic != VMGPU_HW_MAGIC) {
		drm_err(drm, "bad magic %#x, not a vmgpu device\n", magic);
		return -ENODEV;
	}
	vdev->hw_version = vmgpu_read(vdev, VMGPU_REG_VERSION);
	if (VMGPU_HW_VERSION_MAJOR_OF(vdev->hw_version) !=
	    VMGPU_HW_VERSION_MAJOR) {
		drm_err(drm,
			"device interface version %u.%u unsupported (driver knows %u.x)\n",
			vdev->hw_version >> 16, vdev->hw_version & 0xffff,
			VMGPU_HW_VERSION_MAJOR);
		return -ENODEV;
	}
	vdev->num_gpus = vmgpu_read(vdev, VMGPU_REG_NUM_GPUS);
	vdev->sms_per_gpu = vmgpu_read(vdev, VMGPU_REG_SMS_PER_GPU);
	vdev->isa_version = vmgpu_read(vdev, VMGPU_REG_ISA_VERSION);
	vdev->caps = vmgpu_read(vdev, VMGPU_REG_CAPS);
	if (!vdev->num_gpus || vdev->num_gpus > VMGPU_MAX_GPUS ||
	    !vdev->sms_per_gpu || vdev->sms_per_gpu > VMGPU_MAX_SMS) {
		drm_err(drm, "device reports %u GPUs of %u SMs, out of range\n",
			vdev->num_gpus, vdev->sms_per_gpu);
		return -ENODEV;
	}
	return 0;
}

static int vmgpu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct vmgpu_device *vdev;
	unsigned int i;
	int ret;

	vdev = devm_drm_dev_alloc(&pdev->dev, &vmgpu_drm_driver,
				  struct vmgpu_device, drm);
	if (IS_ERR(vdev))
		return PTR_ERR(vdev);
	vdev->pdev = pdev;
	pci_set_drvdata(pdev, vdev);

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(VMGPU_BAR_MMIO), DRIVER_NAME);
	if (ret)
		return ret;
	vdev->mmio = pcim_iomap_table(pdev)[VMGPU_BAR_MMIO];
	if (pci_resource_len(pdev, VMGPU_BAR_MMIO) < VMGPU_BAR0_SIZE) {
		drm_err(&vdev->drm, "BAR0 too small\n");
		return -ENODEV;
	}
	pci_set_master(pdev);
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(48));
	if (ret)
		return ret;

	ret = vmgpu_hw_identify(vdev);
	if (ret)
		return ret;
	for (i = 0; i < vdev->num_gpus; i++) {
		vdev->gpu[i].vdev = vdev;
		vdev->gpu[i].index = i;
		vdev->gpu[i].regs = vdev->mmio + VMGPU_GPU_REGS(i);
	}

	ret = vmgpu_irq_init(vdev);
	if (ret)
		return ret;

	ret = drm_dev_register(&vdev->drm, 0);
	if (ret) {
		vmgpu_irq_fini(vdev);
		return ret;
	}
	drm_info(&vdev->drm,
		 "%u GPUs x %u SMs, interface %u.%u, ISA %u\n",
		 vdev->num_gpus, vdev->sms_per_gpu, vdev->hw_version >> 16,
		 vdev->hw_version & 0xffff, vdev->isa_version);
	return 0;
}

static void vmgpu_remove(struct pci_dev *pdev)
{
	struct vmgpu_device *vdev = pci_get_drvdata(pdev);

	drm_dev_unplug(&vdev->drm);
	vmgpu_irq_fini(vdev);
}

static const struct pci_device_id vmgpu_pci_ids[] = {
	{ PCI_DEVICE(VMGPU_PCI_VENDOR_ID, VMGPU_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, vmgpu_pci_ids);

static struct pci_driver vmgpu_pci_driver = {
	.name = DRIVER_NAME,
	.id_table = vmgpu_pci_ids,
	.probe = vmgpu_probe,
	.remove = vmgpu_remove,
};
module_pci_driver(vmgpu_pci_driver);

MODULE_DESCRIPTION(DRIVER_DESC);
MODULE_LICENSE("GPL");
