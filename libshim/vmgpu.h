/* SPDX-License-Identifier: MIT */
/*
 * libvmgpu: the user-space library for vmgpu devices.
 *
 * Conventions, for every function:
 *  - handles are opaque and created/destroyed in pairs;
 *  - an int return is 0 (or a non-negative count) on success and a negative
 *    errno value on failure;
 *  - after a failure on a device handle, vmgpu_error_message() tells what
 *    went wrong in words;
 *  - no global mutable state: two handles never share anything, and one
 *    handle may be used from several threads.
 */
#ifndef VMGPU_H
#define VMGPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vmgpu_device;

/**
 * struct vmgpu_info - what a device reports about itself
 */
struct vmgpu_info {
	char node[64];			/* render node path, e.g. /dev/dri/renderD128 */
	char driver_version[32];	/* "major.minor.patchlevel" */
	uint32_t uapi_version;		/* DRM_VMGPU_UAPI_VERSION of the driver */
	uint32_t hw_version;		/* device interface, major << 16 | minor */
	uint32_t num_gpus;
	uint32_t sms_per_gpu;
	uint32_t isa_version;
	uint32_t caps;			/* VMGPU_CAP_* */
	uint32_t warp_size;
	uint32_t clock_khz;
	uint32_t local_mem_mb;
	uint32_t cmdbuf_max_bytes;
	uint32_t max_dispatches;
};

/*
 * Number of vmgpu devices present (render nodes whose DRM driver is
 * "vmgpu"), or a negative errno.
 */
int vmgpu_device_count(void);

/*
 * Open the @index-th vmgpu device (0-based, in the order libdrm lists
 * them). On failure *@out is NULL and, if @errbuf is not NULL, a message is
 * written there (the handle that would carry it does not exist).
 */
int vmgpu_device_open(unsigned int index, struct vmgpu_device **out,
		      char *errbuf, size_t errlen);

/* Close a device handle; NULL is accepted. */
void vmgpu_device_close(struct vmgpu_device *dev);

/* The DRM file descriptor behind @dev, for use with libdrm directly. */
int vmgpu_device_fd(const struct vmgpu_device *dev);

/* Fill @info from the driver's parameters. */
int vmgpu_device_query(struct vmgpu_device *dev, struct vmgpu_info *info);

/* Read one DRM_VMGPU_PARAM_* parameter. */
int vmgpu_get_param(struct vmgpu_device *dev, uint32_t param,
		    uint64_t *value);

/*
 * Copy the message of the most recent failed call on @dev into @buf
 * (always NUL-terminated). Returns the message length.
 */
size_t vmgpu_error_message(struct vmgpu_device *dev, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* VMGPU_H */
