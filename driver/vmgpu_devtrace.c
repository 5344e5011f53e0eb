// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmgpu: the device's own trace (per command, block, dispatch and packet,
 * in device time), recorded by DMA into a driver buffer and read through
 * debugfs:
 *
 *   trace_enable  write N: record into a fresh N KiB buffer; write 0: stop
 *                 (the records stay readable); read: state and counts
 *   trace         read: the records written so far, struct
 *                 vmgpu_trace_record each (tools/vmgpu-trace makes JSON)
 */
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/uaccess.h>
#include <drm/drm_print.h>

#include "vmgpu_drm.h"
#include "vmgpu_drv.h"

static void vmgpu_devtrace_stop(struct vmgpu_device *vdev)
{
	vmgpu_write(vdev, VMGPU_REG_TRACE_CTRL, 0);
	/* The read-back makes sure the device has seen the stop. */
	vmgpu_read(vdev, VMGPU_REG_TRACE_CTRL);
	vdev->devtrace.enabled = false;
}

static void vmgpu_devtrace_free(struct vmgpu_device *vdev)
{
	struct vmgpu_devtrace *t = &vdev->devtrace;

	if (!t->cpu)
		return;
	dma_free_coherent(&vdev->pdev->dev, t->size, t->cpu, t->dma);
	t->cpu = NULL;
	t->size = 0;
}

static int vmgpu_devtrace_start(struct vmgpu_device *vdev, size_t bytes)
{
	struct vmgpu_devtrace *t = &vdev->devtrace;

	vmgpu_devtrace_free(vdev);
	t->cpu = dma_alloc_coherent(&vdev->pdev->dev, bytes, &t->dma,
				    GFP_KERNEL);
	if (!t->cpu)
		return -ENOMEM;
	t->size = bytes;
	vmgpu_write(vdev, VMGPU_REG_TRACE_ADDR_LO, lower_32_bits(t->dma));
	vmgpu_write(vdev, VMGPU_REG_TRACE_ADDR_HI, upper_32_bits(t->dma));
	vmgpu_write(vdev, VMGPU_REG_TRACE_SIZE, bytes);
	vmgpu_write(vdev, VMGPU_REG_TRACE_CTRL, VMGPU_TRACE_ENABLE);
	t->enabled = true;
	return 0;
}

static ssize_t vmgpu_devtrace_ctrl_write(struct file *file,
					 const char __user *ubuf,
					 size_t len, loff_t *pos)
{
	struct vmgpu_device *vdev = file->private_data;
	unsigned int kib;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 0, &kib);
	if (ret)
		return ret;
	if (kib > DRM_VMGPU_TRACE_MAX_KIB) {
		drm_dbg(&vdev->drm, "trace buffer over %u KiB\n",
			DRM_VMGPU_TRACE_MAX_KIB);
		return -E2BIG;
	}
	mutex_lock(&vdev->devtrace.lock);
	vmgpu_devtrace_stop(vdev);
	ret = kib ? vmgpu_devtrace_start(vdev, (size_t)kib * SZ_1K) : 0;
	mutex_unlock(&vdev->devtrace.lock);
	return ret ? ret : len;
}

static ssize_t vmgpu_devtrace_ctrl_read(struct file *file, char __user *ubuf,
					size_t len, loff_t *pos)
{
	struct vmgpu_device *vdev = file->private_data;
	char buf[128];
	int n;

	mutex_lock(&vdev->devtrace.lock);
	n = scnprintf(buf, sizeof(buf),
		      "enabled %d\nbuffer_kib %zu\nwritten %u\ndropped %u\n",
		      vdev->devtrace.enabled, vdev->devtrace.size / SZ_1K,
		      vmgpu_read(vdev, VMGPU_REG_TRACE_WRITTEN),
		      vmgpu_read(vdev, VMGPU_REG_TRACE_DROPPED));
	mutex_unlock(&vdev->devtrace.lock);
	return simple_read_from_buffer(ubuf, len, pos, buf, n);
}

static ssize_t vmgpu_devtrace_read(struct file *file, char __user *ubuf,
				   size_t len, loff_t *pos)
{
	struct vmgpu_device *vdev = file->private_data;
	struct vmgpu_devtrace *t = &vdev->devtrace;
	ssize_t ret = 0;
	size_t avail;

	mutex_lock(&t->lock);
	if (t->cpu) {
		/* Whole records only: the device updates WRITTEN after each. */
		avail = min_t(size_t, vmgpu_read(vdev, VMGPU_REG_TRACE_WRITTEN),
			      t->size);
		ret = simple_read_from_buffer(ubuf, len, pos, t->cpu, avail);
	}
	mutex_unlock(&t->lock);
	return ret;
}

static const struct file_operations vmgpu_devtrace_ctrl_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = vmgpu_devtrace_ctrl_read,
	.write = vmgpu_devtrace_ctrl_write,
	.llseek = default_llseek,
};

static const struct file_operations vmgpu_devtrace_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = vmgpu_devtrace_read,
	.llseek = default_llseek,
};

/**
 * vmgpu_devtrace_init - prepare the device-trace state (recording off)
 * @vdev: the device
 */
void vmgpu_devtrace_init(struct vmgpu_device *vdev)
{
	mutex_init(&vdev->devtrace.lock);
	vmgpu_write(vdev, VMGPU_REG_TRACE_CTRL, 0);
}

/**
 * vmgpu_devtrace_fini - stop recording and free the buffer
 * @vdev: the device
 *
 * Called on unbind, before the device can no longer be reached.
 */
void vmgpu_devtrace_fini(struct vmgpu_device *vdev)
{
	mutex_lock(&vdev->devtrace.lock);
	vmgpu_devtrace_stop(vdev);
	vmgpu_devtrace_free(vdev);
	mutex_unlock(&vdev->devtrace.lock);
	mutex_destroy(&vdev->devtrace.lock);
}

/**
 * vmgpu_devtrace_debugfs_init - create trace_enable and trace
 * @vdev: the device
 * @root: the DRM minor's debugfs directory
 */
void vmgpu_devtrace_debugfs_init(struct vmgpu_device *vdev,
				 struct dentry *root)
{
	debugfs_create_file("trace_enable", 0600, root, vdev,
			    &vmgpu_devtrace_ctrl_fops);
	debugfs_create_file("trace", 0400, root, vdev, &vmgpu_devtrace_fops);
}
