// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmgpu: the work distributor policy of each GPU (the WD_* registers) and
 * the WD_POLICY ioctl.
 *
 * Lifetime and locking (Documentation/lifetimes.rst, "Distributor
 * policy"): the driver's copy in vmgpu_gpu.wd is the truth and lives as
 * long as the vmgpu_device; the registers are an image of it. The GPU's
 * wd_lock covers the copy and the whole register sequence, so two sets
 * never interleave their staging writes. A set changes the copy and
 * programs it under the lock inside drm_dev_enter(); a get only reads the
 * copy. Every reset path ends in vmgpu_ring_hw_init(), which programs the
 * copy again under the lock, so a set racing a reset leaves the device
 * with the last policy set either way. No other driver lock is held with
 * wd_lock, and nothing under it waits for reset_wq.
 */
#include <linux/capability.h>
#include <linux/mutex.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "vmgpu_drm.h"
#include "vmgpu_drv.h"

static_assert(DRM_VMGPU_WD_MAX_SMS == VMGPU_MAX_SMS);
static_assert(DRM_VMGPU_WD_MAX_SLOTS == VMGPU_WD_MAX_SLOTS);
static_assert(DRM_VMGPU_WD_MODE_ROUND_ROBIN == VMGPU_WD_MODE_ROUND_ROBIN);

/**
 * vmgpu_wd_init() - take the device's reset policy as the driver's own
 * @gpu: the GPU, just reset (at probe)
 *
 * The registers hold the device's settings after a reset; the driver
 * starts from them.
 */
void vmgpu_wd_init(struct vmgpu_gpu *gpu)
{
	struct vmgpu_wd_policy *wd = &gpu->wd;
	unsigned int n, k;
	u32 v;

	mutex_init(&gpu->wd_lock);
	memset(wd, 0, sizeof(*wd));
	if (!(gpu->vdev->caps & VMGPU_CAP_WD_POLICY))
		return;
	wd->mode = vmgpu_gpu_read(gpu, VMGPU_GPU_WD_MODE);
	wd->table_slots = vmgpu_gpu_read(gpu, VMGPU_GPU_WD_SLOTS);
	for (n = 0; n < VMGPU_WD_SM_ORDER_REGS; n++) {
		v = vmgpu_gpu_read(gpu, VMGPU_GPU_WD_SM_ORDER(n));
		for (k = 0; k < 4; k++)
			wd->sm_order[n * 4 + k] = v >> (8 * k);
	}
}

/* Stage the driver's copy and commit it. wd_lock held. */
static void vmgpu_wd_write_locked(struct vmgpu_gpu *gpu)
{
	const struct vmgpu_wd_policy *wd = &gpu->wd;
	unsigned int n;
	u32 status;

	lockdep_assert_held(&gpu->wd_lock);
	vmgpu_gpu_write(gpu, VMGPU_GPU_WD_MODE, wd->mode);
	vmgpu_gpu_write(gpu, VMGPU_GPU_WD_SLOTS, wd->table_slots);
	for (n = 0; n < VMGPU_WD_SM_ORDER_REGS; n++)
		vmgpu_gpu_write(gpu, VMGPU_GPU_WD_SM_ORDER(n),
				wd->sm_order[n * 4] |
				wd->sm_order[n * 4 + 1] << 8 |
				wd->sm_order[n * 4 + 2] << 16 |
				(u32)wd->sm_order[n * 4 + 3] << 24);
	vmgpu_gpu_write(gpu, VMGPU_GPU_WD_CTRL, VMGPU_WD_CTRL_COMMIT);
	/*
	 * The policy was checked before, so a refusal means a reset wiped
	 * the staging registers midway; the reset path programs it again.
	 */
	status = vmgpu_gpu_read(gpu, VMGPU_GPU_WD_STATUS);
	if (status & VMGPU_WD_STATUS_INVALID)
		drm_dbg(&gpu->vdev->drm, "GPU %u: policy refused (status %#x)\n",
			gpu->index, status);
}

/**
 * vmgpu_wd_program() - program the driver's policy into a GPU
 * @gpu: the GPU (at probe and after every reset, from vmgpu_ring_hw_init())
 */
void vmgpu_wd_program(struct vmgpu_gpu *gpu)
{
	if (!(gpu->vdev->caps & VMGPU_CAP_WD_POLICY))
		return;
	mutex_lock(&gpu->wd_lock);
	vmgpu_wd_write_locked(gpu);
	mutex_unlock(&gpu->wd_lock);
}

/**
 * vmgpu_wd_get() - a GPU's policy as the driver keeps it
 * @gpu: the GPU
 * @mode: out: DRM_VMGPU_WD_MODE_*
 * @table_slots: out: task-table slots
 */
void vmgpu_wd_get(struct vmgpu_gpu *gpu, u32 *mode, u32 *table_slots)
{
	mutex_lock(&gpu->wd_lock);
	*mode = gpu->wd.mode;
	*table_slots = gpu->wd.table_slots;
	mutex_unlock(&gpu->wd_lock);
}

/* A policy the GPU can take: every field in range, SMs a permutation. */
static int vmgpu_wd_check(struct vmgpu_device *vdev,
			  const struct drm_vmgpu_wd_policy *args)
{
	u32 sms = vdev->sms_per_gpu;
	u64 seen = 0;
	unsigned int i;

	if (args->mode != DRM_VMGPU_WD_MODE_LOAD_BALANCE &&
	    args->mode != DRM_VMGPU_WD_MODE_ROUND_ROBIN)
		return -EINVAL;
	if (args->table_slots < 1 ||
	    args->table_slots > DRM_VMGPU_WD_MAX_SLOTS)
		return -EINVAL;
	if (args->num_sms && args->num_sms != sms)
		return -EINVAL;
	for (i = 0; i < DRM_VMGPU_WD_MAX_SMS; i++) {
		u8 sm = args->sm_order[i];

		if (i >= sms) {
			if (sm)
				return -EINVAL;
			continue;
		}
		if (sm >= sms || (seen & BIT_ULL(sm)))
			return -EINVAL;
		seen |= BIT_ULL(sm);
	}
	return 0;
}

/**
 * vmgpu_ioctl_wd_policy() - DRM_IOCTL_VMGPU_WD_POLICY
 * @drm: the DRM device
 * @data: struct drm_vmgpu_wd_policy
 * @file: the caller's file
 *
 * Return: 0, -EINVAL for malformed arguments, -EPERM for a set without
 * CAP_SYS_ADMIN, -EOPNOTSUPP without policy registers, -ENODEV after an
 * unbind.
 */
int vmgpu_ioctl_wd_policy(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct vmgpu_device *vdev = to_vmgpu(drm);
	struct drm_vmgpu_wd_policy *args = data;
	struct vmgpu_gpu *gpu;
	int idx, ret;

	if (args->pad || (args->flags & ~DRM_VMGPU_WD_POLICY_FLAGS_ALL))
		return -EINVAL;
	if (args->gpu >= vdev->num_gpus)
		return -EINVAL;
	if (!(vdev->caps & VMGPU_CAP_WD_POLICY))
		return -EOPNOTSUPP;
	gpu = &vdev->gpu[args->gpu];

	if (!(args->flags & DRM_VMGPU_WD_POLICY_SET)) {
		mutex_lock(&gpu->wd_lock);
		args->mode = gpu->wd.mode;
		args->table_slots = gpu->wd.table_slots;
		memcpy(args->sm_order, gpu->wd.sm_order,
		       sizeof(args->sm_order));
		mutex_unlock(&gpu->wd_lock);
		args->num_sms = vdev->sms_per_gpu;
		return 0;
	}

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = vmgpu_wd_check(vdev, args);
	if (ret) {
		drm_dbg(drm, "GPU %u: invalid distributor policy\n", args->gpu);
		return ret;
	}
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	mutex_lock(&gpu->wd_lock);
	gpu->wd.mode = args->mode;
	gpu->wd.table_slots = args->table_slots;
	memcpy(gpu->wd.sm_order, args->sm_order, sizeof(gpu->wd.sm_order));
	vmgpu_wd_write_locked(gpu);
	mutex_unlock(&gpu->wd_lock);
	drm_dev_exit(idx);
	args->num_sms = vdev->sms_per_gpu;
	drm_dbg(drm, "GPU %u: distributor mode %u, %u slots\n", args->gpu,
		args->mode, args->table_slots);
	return 0;
}
