// SPDX-License-Identifier: MIT
/*
 * libvmgpu's base: what every file of the library calls on a device
 * handle — its error message, its descriptor, its parameters. The bottom
 * of the library's core: it calls no other file, so device.c, whose
 * close destroys the buffers (bo.c) still made on a handle, sits above.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <xf86drm.h>

#include "vmgpu.h"
#include "vmgpu_drm.h"
#include "shim_internal.h"

int shim_set_error(struct vmgpu_device *dev, int err, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&dev->err_lock);
	va_start(ap, fmt);
	vsnprintf(dev->err_msg, sizeof(dev->err_msg), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&dev->err_lock);
	return err;
}

size_t vmgpu_error_message(struct vmgpu_device *dev, char *buf, size_t len)
{
	size_t n;

	if (!buf || !len)
		return 0;
	if (!dev) {
		snprintf(buf, len, "no device handle");
		return strlen(buf);
	}
	pthread_mutex_lock(&dev->err_lock);
	snprintf(buf, len, "%s", dev->err_msg);
	n = strlen(dev->err_msg);
	pthread_mutex_unlock(&dev->err_lock);
	return n;
}

int vmgpu_device_fd(const struct vmgpu_device *dev)
{
	return dev ? dev->fd : -EINVAL;
}

int vmgpu_get_param(struct vmgpu_device *dev, uint32_t param,
		    uint64_t *value)
{
	struct drm_vmgpu_get_param gp = { .param = param };

	if (!dev)
		return -EINVAL;
	if (!value)
		return shim_set_error(dev, -EINVAL, "get_param: value is NULL");
	if (drmIoctl(dev->fd, DRM_IOCTL_VMGPU_GET_PARAM, &gp))
		return shim_set_error(dev, -errno, "GET_PARAM %u: %s", param,
				      strerror(errno));
	*value = gp.value;
	return 0;
}
