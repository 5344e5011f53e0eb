// SPDX-License-Identifier: MIT
/*
 * libvmgpu: submission contexts and syncobj helpers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/sync_file.h>
#include <xf86drm.h>

#include "vmgpu.h"
#include "vmgpu_drm.h"
#include "shim_internal.h"

int vmgpu_context_create(struct vmgpu_device *dev, uint32_t priority,
			 struct vmgpu_context **out)
{
	struct drm_vmgpu_ctx_create args = { .priority = priority };
	struct vmgpu_context *ctx;

	if (!dev)
		return -EINVAL;
	if (!out)
		return shim_set_error(dev, -EINVAL, "context_create: out is NULL");
	*out = NULL;
	if (priority > VMGPU_PRIORITY_HIGH)
		return shim_set_error(dev, -EINVAL,
				      "context_create: priority %u unknown",
				      priority);
	if (drmIoctl(dev->fd, DRM_IOCTL_VMGPU_CTX_CREATE, &args))
		return shim_set_error(dev, -errno, "CTX_CREATE: %s",
				      strerror(errno));
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx) {
		struct drm_vmgpu_ctx_destroy d = { .ctx_id = args.ctx_id };

		drmIoctl(dev->fd, DRM_IOCTL_VMGPU_CTX_DESTROY, &d);
		return shim_set_error(dev, -ENOMEM, "out of memory");
	}
	ctx->dev = dev;
	ctx->id = args.ctx_id;
	*out = ctx;
	return 0;
}

void vmgpu_context_destroy(struct vmgpu_context *ctx)
{
	struct drm_vmgpu_ctx_destroy d;

	if (!ctx)
		return;
	memset(&d, 0, sizeof(d));
	d.ctx_id = ctx->id;
	drmIoctl(ctx->dev->fd, DRM_IOCTL_VMGPU_CTX_DESTROY, &d);
	free(ctx);
}

int vmgpu_context_adopt(struct vmgpu_device *dev, uint32_t ctx_id,
			struct vmgpu_context **out)
{
	struct vmgpu_context *ctx;

	if (!dev)
		return -EINVAL;
	if (!out)
		return shim_set_error(dev, -EINVAL, "context_adopt: out is NULL");
	*out = NULL;
	if (!ctx_id)
		return shim_set_error(dev, -EINVAL,
				      "context_adopt: context id 0 is never valid");
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return shim_set_error(dev, -ENOMEM, "out of memory");
	ctx->dev = dev;
	ctx->id = ctx_id;
	*out = ctx;
	return 0;
}

uint32_t vmgpu_context_id(const struct vmgpu_context *ctx)
{
	return ctx ? ctx->id : 0;
}

int vmgpu_context_query(struct vmgpu_context *ctx,
			struct vmgpu_context_status *st)
{
	struct drm_vmgpu_ctx_query q;

	if (!ctx)
		return -EINVAL;
	if (!st)
		return shim_set_error(ctx->dev, -EINVAL,
				      "context_query: status is NULL");
	memset(&q, 0, sizeof(q));
	q.ctx_id = ctx->id;
	if (drmIoctl(ctx->dev->fd, DRM_IOCTL_VMGPU_CTX_QUERY, &q))
		return shim_set_error(ctx->dev, -errno, "CTX_QUERY: %s",
				      strerror(errno));
	st->banned = !!(q.state & DRM_VMGPU_CTX_BANNED);
	st->fault = q.fault;
	st->gpu = q.gpu;
	st->dispatch = q.dispatch;
	st->pc = q.pc;
	st->addr = q.addr;
	st->errors = q.errors;
	st->bo_handle = 0;
	st->bo_offset = 0;
	if (st->fault && st->fault != VMGPU_FAULT_TIMEOUT)
		shim_find_bo(ctx->dev, st->addr, &st->bo_handle,
			     &st->bo_offset);
	return 0;
}

int vmgpu_context_describe_fault(struct vmgpu_context *ctx,
				 const struct vmgpu_context_status *st,
				 char *buf, size_t len)
{
	int n;

	if (!ctx || !st || !buf || !len)
		return -EINVAL;
	if (!st->fault) {
		n = snprintf(buf, len, "no fault");
	} else if (st->fault == VMGPU_FAULT_TIMEOUT) {
		n = snprintf(buf, len,
			     "GPU %u: %s (the packet ran over the driver's job timeout)",
			     st->gpu, vmgpu_fault_name(st->fault));
	} else {
		char where[96];

		if (st->bo_handle)
			snprintf(where, sizeof(where),
				 "offset %llu of buffer handle %u",
				 (unsigned long long)st->bo_offset,
				 st->bo_handle);
		else
			snprintf(where, sizeof(where),
				 "in no buffer of this device handle");
		n = snprintf(buf, len,
			     "GPU %u dispatch %u pc %u: %s at GPU address %#llx, %s",
			     st->gpu, st->dispatch, st->pc,
			     vmgpu_fault_name(st->fault),
			     (unsigned long long)st->addr, where);
	}
	return n < 0 ? -EINVAL : n;
}

int vmgpu_syncobj_create(struct vmgpu_device *dev, uint32_t *handle)
{
	if (!dev)
		return -EINVAL;
	if (!handle)
		return shim_set_error(dev, -EINVAL, "syncobj_create: handle is NULL");
	if (drmSyncobjCreate(dev->fd, 0, handle))
		return shim_set_error(dev, -errno, "SYNCOBJ_CREATE: %s",
				      strerror(errno));
	return 0;
}

void vmgpu_syncobj_destroy(struct vmgpu_device *dev, uint32_t handle)
{
	if (dev && handle)
		drmSyncobjDestroy(dev->fd, handle);
}

static int64_t abs_timeout(int64_t timeout_ns)
{
	struct timespec ts;
	int64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if (timeout_ns < 0 || timeout_ns > INT64_MAX - now)
		return INT64_MAX;
	return now + timeout_ns;
}

static int fence_status(struct vmgpu_device *dev, uint32_t handle,
			uint64_t point);

int vmgpu_syncobj_wait(struct vmgpu_device *dev, uint32_t handle,
		       uint64_t point, int64_t timeout_ns)
{
	uint32_t flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	int ret;

	if (!dev)
		return -EINVAL;
	if (point)
		ret = drmSyncobjTimelineWait(dev->fd, &handle, &point, 1,
					     abs_timeout(timeout_ns), flags,
					     NULL);
	else
		ret = drmSyncobjWait(dev->fd, &handle, 1,
				     abs_timeout(timeout_ns), flags, NULL);
	if (ret) {
		ret = ret < 0 ? ret : -errno;
		if (ret == -ETIME)
			return shim_set_error(dev, ret,
					      "syncobj %u point %llu: timed out",
					      handle, (unsigned long long)point);
		return shim_set_error(dev, ret, "syncobj %u wait: %s", handle,
				      strerror(-ret));
	}
	/* Signalled; by a packet that failed? Then that is the answer. */
	ret = fence_status(dev, handle, point);
	if (ret < 0)
		return shim_set_error(dev, ret,
				      "syncobj %u point %llu: the packet failed: %s",
				      handle, (unsigned long long)point,
				      vmgpu_strerror(ret));
	return 0;
}

/*
 * The status of the fence at @point of @handle (0: binary): 1 signalled,
 * 0 pending, or the fence's error. A timeline point is moved to a
 * temporary binary syncobj first: only those export as sync files.
 */
static int fence_status(struct vmgpu_device *dev, uint32_t handle,
			uint64_t point)
{
	uint32_t tmp;
	int ret;

	if (!point)
		return vmgpu_syncobj_status(dev, handle);
	if (drmSyncobjCreate(dev->fd, 0, &tmp))
		return shim_set_error(dev, -errno, "SYNCOBJ_CREATE: %s",
				      strerror(errno));
	if (drmSyncobjTransfer(dev->fd, tmp, 0, handle, point, 0))
		ret = shim_set_error(dev, -errno,
				     "syncobj %u point %llu transfer: %s", handle,
				     (unsigned long long)point, strerror(errno));
	else
		ret = vmgpu_syncobj_status(dev, tmp);
	drmSyncobjDestroy(dev->fd, tmp);
	return ret;
}

int vmgpu_syncobj_status(struct vmgpu_device *dev, uint32_t handle)
{
	struct sync_file_info info;
	int fd = -1, ret;

	if (!dev)
		return -EINVAL;
	if (drmSyncobjExportSyncFile(dev->fd, handle, &fd))
		return shim_set_error(dev, -errno, "syncobj %u export: %s",
				      handle, strerror(errno));
	memset(&info, 0, sizeof(info));
	ret = ioctl(fd, SYNC_IOC_FILE_INFO, &info);
	if (ret)
		ret = shim_set_error(dev, -errno, "SYNC_IOC_FILE_INFO: %s",
				     strerror(errno));
	else
		ret = info.status;
	close(fd);
	return ret;
}
