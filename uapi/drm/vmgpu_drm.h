/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * vmgpu DRM uAPI: the ioctls of the vmgpu render node.
 *
 * Rules every ioctl follows: fixed-width fields, pointers carried as __u64,
 * explicit padding that must be zero, a flags field whose unknown bits are
 * rejected with -EINVAL. DRM_VMGPU_PARAM_UAPI_VERSION tells user space which
 * revision of this file the running driver implements.
 */
#ifndef _VMGPU_DRM_H_
#define _VMGPU_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* Name the driver registers with DRM; libdrm finds the device by it. */
#define DRM_VMGPU_DRIVER_NAME		"vmgpu"

/* Bumped whenever an ioctl or parameter is added. */
#define DRM_VMGPU_UAPI_VERSION		1

#define DRM_VMGPU_GET_PARAM		0x00

/**
 * enum drm_vmgpu_param - what DRM_IOCTL_VMGPU_GET_PARAM can report
 *
 * @DRM_VMGPU_PARAM_UAPI_VERSION: DRM_VMGPU_UAPI_VERSION of the driver.
 * @DRM_VMGPU_PARAM_HW_VERSION: the device's interface version (major << 16 |
 *	minor), see uapi/vmgpu_hw.h.
 * @DRM_VMGPU_PARAM_NUM_GPUS: number of GPUs behind this render node.
 * @DRM_VMGPU_PARAM_SMS_PER_GPU: streaming multiprocessors per GPU.
 * @DRM_VMGPU_PARAM_ISA_VERSION: instruction set version the GPUs run.
 * @DRM_VMGPU_PARAM_CAPS: VMGPU_CAP_* bits of the device.
 * @DRM_VMGPU_PARAM_WARP_SIZE: threads per warp.
 * @DRM_VMGPU_PARAM_CLOCK_KHZ: SM clock of the device's timing model.
 * @DRM_VMGPU_PARAM_LOCAL_MEM_MB: modelled local memory per GPU.
 * @DRM_VMGPU_PARAM_CMDBUF_MAX_BYTES: largest command buffer a submit takes.
 * @DRM_VMGPU_PARAM_MAX_DISPATCHES: most DISPATCH commands in one packet.
 * @DRM_VMGPU_PARAM_COUNT: number of parameters; not itself a parameter.
 */
enum drm_vmgpu_param {
	DRM_VMGPU_PARAM_UAPI_VERSION = 0,
	DRM_VMGPU_PARAM_HW_VERSION = 1,
	DRM_VMGPU_PARAM_NUM_GPUS = 2,
	DRM_VMGPU_PARAM_SMS_PER_GPU = 3,
	DRM_VMGPU_PARAM_ISA_VERSION = 4,
	DRM_VMGPU_PARAM_CAPS = 5,
	DRM_VMGPU_PARAM_WARP_SIZE = 6,
	DRM_VMGPU_PARAM_CLOCK_KHZ = 7,
	DRM_VMGPU_PARAM_LOCAL_MEM_MB = 8,
	DRM_VMGPU_PARAM_CMDBUF_MAX_BYTES = 9,
	DRM_VMGPU_PARAM_MAX_DISPATCHES = 10,
	DRM_VMGPU_PARAM_COUNT
};

/**
 * struct drm_vmgpu_get_param - argument of DRM_IOCTL_VMGPU_GET_PARAM
 *
 * @param: one of enum drm_vmgpu_param; anything else is -EINVAL.
 * @pad: must be zero.
 * @value: filled in by the driver.
 */
struct drm_vmgpu_get_param {
	__u32 param;
	__u32 pad;
	__u64 value;
};

#define DRM_IOCTL_VMGPU_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VMGPU_GET_PARAM, \
		 struct drm_vmgpu_get_param)

#if defined(__cplusplus)
}
#endif

#endif /* _VMGPU_DRM_H_ */
