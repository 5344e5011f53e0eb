// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmgpu: PCI binding, DRM device registration and the parameter ioctl.
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "vmgpu_drm.h"
#include "vmgpu_drv.h"

unsigned int vmgpu_job_timeout_ms = 2000;
module_param_named(job_timeout_ms, vmgpu_job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms,
		 "a packet running longer is hung: its GPU is reset (default 2000)");

/*
 * At the device's default budget a dispatch spends about a second of host
 * time in the interpreter, well inside job_timeout_ms on an idle host.
 */
unsigned int vmgpu_max_user_instr_budget = 1u << 28;
module_param_named(max_user_instr_budget, vmgpu_max_user_instr_budget, uint,
		   0444);
MODULE_PARM_DESC(max_user_instr_budget,
		 "largest instruction budget (per 65536 warps of a dispatch) a process without CAP_SYS_NICE may set (default 268435456)");

static unsigned int vmgpu_mem_limit_mb;
module_param_named(mem_limit_mb, vmgpu_mem_limit_mb, uint, 0444);
MODULE_PARM_DESC(mem_limit_mb,
		 "buffer memory all files of a device may hold, MiB (default 0: half of RAM)");

static int vmgpu_ioctl_get_param(struct drm_device *drm, void *data,
				 struct drm_file *file)
{
	struct vmgpu_device *vdev = to_vmgpu(drm);
	struct drm_vmgpu_get_param *args = data;
	unsigned int i;
	u32 mode, slots;

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
		args->value = vdev->warp_size;
		break;
	case DRM_VMGPU_PARAM_CLOCK_KHZ:
		args->value = vdev->clock_khz;
		break;
	case DRM_VMGPU_PARAM_LOCAL_MEM_MB:
		args->value = vdev->local_mem_mb;
		break;
	case DRM_VMGPU_PARAM_CMDBUF_MAX_BYTES:
		args->value = vdev->cmdbuf_max_bytes;
		break;
	case DRM_VMGPU_PARAM_MAX_DISPATCHES:
		args->value = vdev->max_dispatches;
		break;
	case DRM_VMGPU_PARAM_AS_SLOTS:
		args->value = vdev->as_slots;
		break;
	case DRM_VMGPU_PARAM_RING_ENTRIES:
		args->value = vdev->gpu[0].ring_entries;
		break;
	case DRM_VMGPU_PARAM_INFLIGHT_PACKETS:
		args->value = vdev->gpu[0].inflight;
		break;
	case DRM_VMGPU_PARAM_MAX_SUBMIT_BOS:
		args->value = VMGPU_MAX_SUBMIT_BOS;
		break;
	case DRM_VMGPU_PARAM_MAX_SUBMIT_SYNCS:
		args->value = VMGPU_MAX_SUBMIT_SYNCS;
		break;
	case DRM_VMGPU_PARAM_MAX_BO_SIZE:
		args->value = VMGPU_MAX_BO_SIZE;
		break;
	case DRM_VMGPU_PARAM_JOB_TIMEOUT_MS:
		args->value = vmgpu_job_timeout_ms;
		break;
	case DRM_VMGPU_PARAM_VA_START:
		args->value = VMGPU_VA_START;
		break;
	case DRM_VMGPU_PARAM_VA_END:
		args->value = VMGPU_VA_END;
		break;
	case DRM_VMGPU_PARAM_MAX_USER_INSTR_BUDGET:
		args->value = vmgpu_max_user_instr_budget;
		break;
	case DRM_VMGPU_PARAM_MEM_LIMIT:
		args->value = vdev->mem_limit;
		break;
	case DRM_VMGPU_PARAM_MEM_USED:
		args->value = atomic64_read(&vdev->mem_used);
		break;
	case DRM_VMGPU_PARAM_WD_MODE:
	case DRM_VMGPU_PARAM_WD_TABLE_SLOTS:
		if (!(vdev->caps & VMGPU_CAP_WD_POLICY))
			return -EOPNOTSUPP;
		args->value = 0;
		for (i = 0; i < vdev->num_gpus; i++) {
			vmgpu_wd_get(&vdev->gpu[i], &mode, &slots);
			args->value |= (u64)(args->param ==
					     DRM_VMGPU_PARAM_WD_MODE ?
					     mode : slots) << (8 * i);
		}
		break;
	default:
		drm_dbg(drm, "unknown parameter %u\n", args->param);
		return -EINVAL;
	}
	return 0;
}

/*
 * The file's state stays on the device's list until its last reference
 * goes, not just until the DRM file closes: an unbind in between must
 * still find its page tables to release them.
 */
static void vmgpu_file_release(struct kref *kref)
{
	struct vmgpu_file *vf = container_of(kref, struct vmgpu_file, refcount);
	struct vmgpu_device *vdev = vf->vdev;

	mutex_lock(&vdev->files_lock);
	list_del(&vf->link);
	mutex_unlock(&vdev->files_lock);
	vmgpu_vm_fini(vf);
	kfree(vf);
}

/**
 * vmgpu_file_put() - drop a reference to a file's state
 * @vf: the file state
 */
void vmgpu_file_put(struct vmgpu_file *vf)
{
	kref_put(&vf->refcount, vmgpu_file_release);
}

static int vmgpu_open(struct drm_device *drm, struct drm_file *file)
{
	struct vmgpu_device *vdev = to_vmgpu(drm);
	struct vmgpu_file *vf;
	int ret;

	vf = kzalloc(sizeof(*vf), GFP_KERNEL);
	if (!vf)
		return -ENOMEM;
	kref_init(&vf->refcount);
	vf->vdev = vdev;
	vf->client_id = atomic64_inc_return(&vdev->next_client_id);
	xa_init_flags(&vf->ctxs, XA_FLAGS_ALLOC1);
	spin_lock_init(&vf->pool_lock);
	INIT_LIST_HEAD(&vf->pool);
	ret = vmgpu_vm_init(vf);
	if (ret) {
		vmgpu_vm_fini(vf);
		kfree(vf);
		return ret;
	}
	mutex_lock(&vdev->files_lock);
	list_add_tail(&vf->link, &vdev->files);
	mutex_unlock(&vdev->files_lock);
	file->driver_priv = vf;
	return 0;
}

static void vmgpu_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct vmgpu_file *vf = file->driver_priv;

	vmgpu_ctx_destroy_all(vf);
	vmgpu_cmdbuf_pool_drain(vf);
	/* Running packets and mappings keep the address space alive. */
	vmgpu_file_put(vf);
}

static const struct drm_ioctl_desc vmgpu_ioctls[] = {
	DRM_IOCTL_DEF_DRV(VMGPU_GET_PARAM, vmgpu_ioctl_get_param,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VMGPU_BO_CREATE, vmgpu_ioctl_bo_create,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VMGPU_BO_MMAP_OFFSET, vmgpu_ioctl_bo_mmap_offset,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VMGPU_BO_INFO, vmgpu_ioctl_bo_info,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VMGPU_CTX_CREATE, vmgpu_ioctl_ctx_create,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VMGPU_CTX_DESTROY, vmgpu_ioctl_ctx_destroy,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VMGPU_CTX_QUERY, vmgpu_ioctl_ctx_query,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VMGPU_SUBMIT, vmgpu_ioctl_submit, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VMGPU_WD_POLICY, vmgpu_ioctl_wd_policy,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VMGPU_BO_PLACE, vmgpu_ioctl_bo_place,
			  DRM_RENDER_ALLOW),
};

static const struct file_operations vmgpu_fops = {
	.owner = THIS_MODULE,
	DRM_GEM_FOPS,
	.show_fdinfo = vmgpu_show_fdinfo,
};

static const struct drm_driver vmgpu_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE,
	.open = vmgpu_open,
	.postclose = vmgpu_postclose,
	.ioctls = vmgpu_ioctls,
	.num_ioctls = ARRAY_SIZE(vmgpu_ioctls),
	.fops = &vmgpu_fops,
	.gem_create_object = vmgpu_gem_create_object,
	.prime_handle_to_fd = drm_gem_prime_handle_to_fd,
	.prime_fd_to_handle = drm_gem_prime_fd_to_handle,
	.gem_prime_import_sg_table = drm_gem_shmem_prime_import_sg_table,
	.gem_prime_mmap = drm_gem_prime_mmap,
	.dumb_create = vmgpu_dumb_create,
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
	/*
	 * 1.2: the ring entry's default_level, which packets rely on; 1.3:
	 * DEP_SIGNAL and DEP_WAIT, 1.4: COPY_ASYNC, which the validator
	 * lets through.
	 */
	if (VMGPU_HW_VERSION_MAJOR_OF(vdev->hw_version) !=
	    VMGPU_HW_VERSION_MAJOR || (vdev->hw_version & 0xffff) < 4) {
		drm_err(drm,
			"device interface version %u.%u unsupported (driver needs %u.4 or a later %u.x)\n",
			vdev->hw_version >> 16, vdev->hw_version & 0xffff,
			VMGPU_HW_VERSION_MAJOR, VMGPU_HW_VERSION_MAJOR);
		return -ENODEV;
	}
	vdev->num_gpus = vmgpu_read(vdev, VMGPU_REG_NUM_GPUS);
	vdev->sms_per_gpu = vmgpu_read(vdev, VMGPU_REG_SMS_PER_GPU);
	vdev->isa_version = vmgpu_read(vdev, VMGPU_REG_ISA_VERSION);
	vdev->caps = vmgpu_read(vdev, VMGPU_REG_CAPS);
	vdev->as_slots = min_t(u32, vmgpu_read(vdev, VMGPU_REG_AS_SLOTS),
			       VMGPU_AS_SLOTS);
	vdev->cmdbuf_max_bytes = vmgpu_read(vdev, VMGPU_REG_CMDBUF_MAX_BYTES);
	vdev->max_dispatches = vmgpu_read(vdev, VMGPU_REG_MAX_DISPATCHES);
	vdev->warp_size = vmgpu_read(vdev, VMGPU_REG_WARP_SIZE);
	vdev->clock_khz = vmgpu_read(vdev, VMGPU_REG_CLOCK_KHZ);
	vdev->local_mem_mb = vmgpu_read(vdev, VMGPU_REG_LOCAL_MEM_MB);
	if (!vdev->as_slots || vdev->cmdbuf_max_bytes < 4 ||
	    !vdev->max_dispatches) {
		drm_err(drm, "device reports no address-space slots or command space\n");
		return -ENODEV;
	}
	if (!vdev->num_gpus || vdev->num_gpus > VMGPU_MAX_GPUS ||
	    !vdev->sms_per_gpu || vdev->sms_per_gpu > VMGPU_MAX_SMS) {
		drm_err(drm, "device reports %u GPUs of %u SMs, out of range\n",
			vdev->num_gpus, vdev->sms_per_gpu);
		return -ENODEV;
	}
	return 0;
}

static void vmgpu_rings_fini(struct vmgpu_device *vdev)
{
	unsigned int i;

	for (i = 0; i < vdev->num_gpus; i++)
		vmgpu_ring_fini(&vdev->gpu[i]);
}

static void vmgpu_drm_release(struct drm_device *drm, void *vdev)
{
	vmgpu_sched_fini(vdev);
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
	/* The GPU MMU maps page by page: a segment may be any length. */
	ret = dma_set_max_seg_size(&pdev->dev, UINT_MAX);
	if (ret)
		return ret;

	ret = vmgpu_hw_identify(vdev);
	if (ret)
		return ret;
	vdev->mem_limit = vmgpu_mem_limit_mb ?
			  (u64)vmgpu_mem_limit_mb << 20 :
			  (u64)totalram_pages() << PAGE_SHIFT >> 1;
	mutex_init(&vdev->files_lock);
	INIT_LIST_HEAD(&vdev->files);
	mutex_init(&vdev->bos_lock);
	INIT_LIST_HEAD(&vdev->bos);
	for (i = 0; i < vdev->num_gpus; i++) {
		struct vmgpu_gpu *gpu = &vdev->gpu[i];

		gpu->vdev = vdev;
		gpu->index = i;
		gpu->regs = vdev->mmio + VMGPU_GPU_REGS(i);
		snprintf(gpu->name, sizeof(gpu->name), "vmgpu-gpu%u", i);
		/* Nothing from before this driver: stop and clear the GPU. */
		vmgpu_gpu_write(gpu, VMGPU_GPU_CONTROL, 0);
		vmgpu_gpu_write(gpu, VMGPU_GPU_RESET, 1);
		/* The device's settings are the driver's first policy. */
		vmgpu_wd_init(gpu);
	}

	vmgpu_devtrace_init(vdev);
	ret = vmgpu_irq_init(vdev);
	if (ret)
		goto err_devtrace;
	ret = vmgpu_sched_init(vdev);
	if (ret)
		goto err_irq;
	/* The schedulers outlive an unbind until the last file is closed. */
	ret = drmm_add_action(&vdev->drm, vmgpu_drm_release, vdev);
	if (ret)
		goto err_sched;

	ret = drm_dev_register(&vdev->drm, 0);
	if (ret)
		goto err_rings;
	drm_info(&vdev->drm,
		 "%u GPUs x %u SMs, interface %u.%u, ISA %u\n",
		 vdev->num_gpus, vdev->sms_per_gpu, vdev->hw_version >> 16,
		 vdev->hw_version & 0xffff, vdev->isa_version);
	return 0;

err_rings:
	vmgpu_rings_fini(vdev);
	vmgpu_irq_fini(vdev);
	vmgpu_devtrace_fini(vdev);
	return ret;	/* the DRM device's release stops the schedulers */
err_sched:
	vmgpu_rings_fini(vdev);
	vmgpu_sched_fini(vdev);
err_irq:
	vmgpu_irq_fini(vdev);
err_devtrace:
	vmgpu_devtrace_fini(vdev);
	return ret;
}

/*
 * Unbind (also rmmod, and hot removal). Afterwards no ioctl, job or timeout
 * handler touches the device or the rings: drm_dev_unplug() waits for the
 * ones inside drm_dev_enter() and the rest see the device gone. Packets on
 * the rings fail with -ENODEV; jobs still queued in open files' entities
 * fail the same way when the schedulers, left running, reach them. The
 * schedulers stop when the DRM device is released, after the last close.
 */
static void vmgpu_remove(struct pci_dev *pdev)
{
	struct vmgpu_device *vdev = pci_get_drvdata(pdev);
	struct vmgpu_file *vf;
	unsigned int i;

	drm_dev_unplug(&vdev->drm);
	vmgpu_irq_fini(vdev);
	for (i = 0; i < vdev->num_gpus; i++) {
		vmgpu_gpu_write(&vdev->gpu[i], VMGPU_GPU_CONTROL, 0);
		vmgpu_gpu_write(&vdev->gpu[i], VMGPU_GPU_RESET, 1);
		vmgpu_ring_cancel(&vdev->gpu[i], -ENODEV);
	}
	vmgpu_rings_fini(vdev);
	vmgpu_devtrace_fini(vdev);
	/* DMA memory and mappings of files still open go now too. */
	mutex_lock(&vdev->files_lock);
	list_for_each_entry(vf, &vdev->files, link)
		vmgpu_vm_release_dma(vf);
	mutex_unlock(&vdev->files_lock);
	vmgpu_bos_release_dma(vdev);
}

/*
 * A reset of the function (sysfs reset, or a bus reset of its port) while
 * bound: quiesce every GPU first, then bring them back and resubmit.
 */
static void vmgpu_reset_prepare(struct pci_dev *pdev)
{
	struct vmgpu_device *vdev = pci_get_drvdata(pdev);

	drm_info(&vdev->drm, "PCI reset: stopping every GPU\n");
	vmgpu_sched_stop_all(vdev);
}

static void vmgpu_reset_done(struct pci_dev *pdev)
{
	struct vmgpu_device *vdev = pci_get_drvdata(pdev);

	vmgpu_sched_restart_all(vdev);
	drm_info(&vdev->drm, "PCI reset: every GPU running again\n");
}

static const struct pci_error_handlers vmgpu_pci_err_handlers = {
	.reset_prepare = vmgpu_reset_prepare,
	.reset_done = vmgpu_reset_done,
};

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
	.err_handler = &vmgpu_pci_err_handlers,
};
module_pci_driver(vmgpu_pci_driver);

MODULE_DESCRIPTION(DRIVER_DESC);
MODULE_LICENSE("GPL");
