// SPDX-License-Identifier: MIT
/*
 * libvmgpu: the work distributor policy of a GPU (DRM_IOCTL_VMGPU_WD_POLICY).
 */
#include <errno.h>
#include <string.h>
#include <xf86drm.h>

#include "vmgpu.h"
#include "vmgpu_drm.h"
#include "shim_internal.h"

_Static_assert(sizeof(((struct vmgpu_wd_policy *)0)->sm_order) ==
	       DRM_VMGPU_WD_MAX_SMS, "SM list size");
_Static_assert(VMGPU_WD_ROUND_ROBIN == DRM_VMGPU_WD_MODE_ROUND_ROBIN &&
	       VMGPU_WD_LOAD_BALANCE == DRM_VMGPU_WD_MODE_LOAD_BALANCE,
	       "modes");

const char *vmgpu_wd_mode_name(uint32_t mode)
{
	switch (mode) {
	case VMGPU_WD_LOAD_BALANCE:
		return "load-balance";
	case VMGPU_WD_ROUND_ROBIN:
		return "round-robin";
	default:
		return "?";
	}
}

int vmgpu_wd_policy_get(struct vmgpu_device *dev, uint32_t gpu,
			struct vmgpu_wd_policy *policy)
{
	struct drm_vmgpu_wd_policy a = { .gpu = gpu };

	if (!dev)
		return -EINVAL;
	if (!policy)
		return shim_set_error(dev, -EINVAL,
				      "wd_policy_get: policy is NULL");
	if (drmIoctl(dev->fd, DRM_IOCTL_VMGPU_WD_POLICY, &a))
		return shim_set_error(dev, -errno, "WD_POLICY get, GPU %u: %s",
				      gpu, strerror(errno));
	memset(policy, 0, sizeof(*policy));
	policy->mode = a.mode;
	policy->table_slots = a.table_slots;
	policy->num_sms = a.num_sms;
	memcpy(policy->sm_order, a.sm_order, sizeof(policy->sm_order));
	return 0;
}

int vmgpu_wd_policy_set(struct vmgpu_device *dev, uint32_t gpu,
			const struct vmgpu_wd_policy *policy)
{
	struct drm_vmgpu_wd_policy a = {
		.gpu = gpu,
		.flags = DRM_VMGPU_WD_POLICY_SET,
	};

	if (!dev)
		return -EINVAL;
	if (!policy)
		return shim_set_error(dev, -EINVAL,
				      "wd_policy_set: policy is NULL");
	a.mode = policy->mode;
	a.table_slots = policy->table_slots;
	a.num_sms = policy->num_sms;
	memcpy(a.sm_order, policy->sm_order, sizeof(a.sm_order));
	if (drmIoctl(dev->fd, DRM_IOCTL_VMGPU_WD_POLICY, &a)) {
		int err = errno;

		return shim_set_error(dev, -err, "WD_POLICY set, GPU %u: %s%s",
				      gpu, strerror(err),
				      err == EPERM ? " (needs CAP_SYS_ADMIN)" :
				      err == EINVAL ? " (mode, slots 1..128 or "
						      "SM list not a permutation)" :
				      "");
	}
	return 0;
}
