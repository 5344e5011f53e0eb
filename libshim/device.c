// SPDX-License-Identifier: MIT
/*
 * libvmgpu: finding, opening and querying vmgpu devices.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "vmgpu.h"
#include "vmgpu_drm.h"
#include "shim_internal.h"

#define MAX_DRM_DEVICES 64

/* Is @fd a vmgpu node? Decided by the DRM driver's name, as libdrm reports it. */
static int is_vmgpu_fd(int fd, char *version, size_t vlen)
{
	drmVersionPtr v = drmGetVersion(fd);
	int match;

	if (!v)
		return 0;
	match = v->name && !strcmp(v->name, DRM_VMGPU_DRIVER_NAME);
	if (match && version)
		snprintf(version, vlen, "%d.%d.%d", v->version_major,
			 v->version_minor, v->version_patchlevel);
	drmFreeVersion(v);
	return match;
}

/*
 * Walk libdrm's device list and call @fn for each vmgpu render node, in
 * order, with its open fd; stop when @fn returns non-zero.
 */
static int for_each_vmgpu(int (*fn)(int fd, const char *node, void *ctx),
			  void *ctx)
{
	drmDevicePtr devs[MAX_DRM_DEVICES];
	int n, i, found = 0, stop = 0;

	n = drmGetDevices2(0, devs, MAX_DRM_DEVICES);
	if (n == -ENOENT)	/* no /dev/dri at all: no DRM device */
		return 0;
	if (n < 0)
		return n;
	for (i = 0; i < n && !stop; i++) {
		const char *node;
		int fd;

		if (!(devs[i]->available_nodes & (1 << DRM_NODE_RENDER)))
			continue;
		node = devs[i]->nodes[DRM_NODE_RENDER];
		fd = open(node, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (is_vmgpu_fd(fd, NULL, 0)) {
			found++;
			stop = fn(fd, node, ctx);
		}
		if (!stop || stop < 0)
			close(fd);
	}
	drmFreeDevices(devs, n);
	return found;
}

static int count_one(int fd, const char *node, void *ctx)
{
	return 0;
}

int vmgpu_device_count(void)
{
	return for_each_vmgpu(count_one, NULL);
}

struct open_ctx {
	unsigned int want;
	unsigned int seen;
	int fd;
	char node[64];
};

static int open_one(int fd, const char *node, void *ctx)
{
	struct open_ctx *oc = ctx;

	if (oc->seen++ != oc->want)
		return 0;
	oc->fd = fd;
	snprintf(oc->node, sizeof(oc->node), "%s", node);
	return 1;		/* keep this fd open */
}

/*
 * A handle over the open vmgpu file @fd (which it then owns): the
 * driver's uAPI checked, the limits the library enforces read.
 */
static int device_init(int fd, const char *node, struct vmgpu_device **out,
		       char *errbuf, size_t errlen)
{
	struct vmgpu_device *dev;
	uint64_t uapi, v = 0;
	int ret;

	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		close(fd);
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	dev->fd = fd;
	snprintf(dev->node, sizeof(dev->node), "%s", node);
	pthread_mutex_init(&dev->err_lock, NULL);
	pthread_mutex_init(&dev->bos_lock, NULL);
	pthread_mutex_init(&dev->gang_lock, NULL);

	ret = vmgpu_get_param(dev, DRM_VMGPU_PARAM_UAPI_VERSION, &uapi);
	if (!ret && uapi < DRM_VMGPU_UAPI_VERSION)
		ret = shim_set_error(dev, -ENOTSUP,
				     "driver uAPI %llu older than library's %u",
				     (unsigned long long)uapi,
				     DRM_VMGPU_UAPI_VERSION);
	if (!ret)
		ret = vmgpu_get_param(dev, DRM_VMGPU_PARAM_NUM_GPUS, &v);
	dev->num_gpus = (uint32_t)v;
	if (!ret)
		ret = vmgpu_get_param(dev, DRM_VMGPU_PARAM_MAX_DISPATCHES, &v);
	dev->max_dispatches = (uint32_t)v;
	if (!ret)
		ret = vmgpu_get_param(dev, DRM_VMGPU_PARAM_CMDBUF_MAX_BYTES, &v);
	dev->cmdbuf_max_bytes = (uint32_t)v;
	if (!ret)
		ret = vmgpu_get_param(dev, DRM_VMGPU_PARAM_MAX_BO_SIZE, &v);
	dev->max_bo_size = v;
	if (ret) {
		if (errbuf && errlen)
			vmgpu_error_message(dev, errbuf, errlen);
		vmgpu_device_close(dev);
		return ret;
	}
	*out = dev;
	return 0;
}

int vmgpu_device_open(unsigned int index, struct vmgpu_device **out,
		      char *errbuf, size_t errlen)
{
	struct open_ctx oc = { .want = index, .fd = -1 };
	int n;

	if (!out) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "vmgpu_device_open: out is NULL");
		return -EINVAL;
	}
	*out = NULL;
	n = for_each_vmgpu(open_one, &oc);
	if (n < 0 || oc.fd < 0) {
		if (errbuf && errlen && n < 0)
			snprintf(errbuf, errlen, "cannot list DRM devices: %s",
				 strerror(-n));
		else if (errbuf && errlen)
			snprintf(errbuf, errlen,
				 "no vmgpu device %u (%d found)", index, n);
		return n < 0 ? n : -ENODEV;
	}
	return device_init(oc.fd, oc.node, out, errbuf, errlen);
}

int vmgpu_device_open_fd(int fd, struct vmgpu_device **out, char *errbuf,
			 size_t errlen)
{
	char node[64] = "";
	char *name;
	int own;

	if (!out) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen,
				 "vmgpu_device_open_fd: out is NULL");
		return -EINVAL;
	}
	*out = NULL;
	if (fd < 0 || !is_vmgpu_fd(fd, NULL, 0)) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen,
				 "fd %d is not an open vmgpu DRM device", fd);
		return fd < 0 ? -EBADF : -ENODEV;
	}
	/*
	 * The handle owns its own descriptor: the caller keeps @fd. Numbered
	 * above @fd, so that a program keeping its files out of the small
	 * numbers other code reuses keeps the handle's there too.
	 */
	own = fcntl(fd, F_DUPFD_CLOEXEC, fd);
	if (own < 0) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "dup of fd %d: %s", fd,
				 strerror(errno));
		return -errno;
	}
	name = drmGetDeviceNameFromFd2(own);
	if (name) {
		snprintf(node, sizeof(node), "%s", name);
		free(name);
	}
	return device_init(own, node, out, errbuf, errlen);
}

void vmgpu_device_close(struct vmgpu_device *dev)
{
	if (!dev)
		return;
	/* As documented: a buffer must not outlive the handle it points to. */
	while (dev->bos)
		vmgpu_bo_destroy(dev->bos);
	close(dev->fd);
	pthread_mutex_destroy(&dev->err_lock);
	pthread_mutex_destroy(&dev->bos_lock);
	pthread_mutex_destroy(&dev->gang_lock);
	free(dev);
}

int vmgpu_device_query(struct vmgpu_device *dev, struct vmgpu_info *info)
{
	static const struct {
		uint32_t param;
		size_t offset;
	} fields[] = {
#define F(p, f) { DRM_VMGPU_PARAM_##p, offsetof(struct vmgpu_info, f) }
		F(UAPI_VERSION, uapi_version),
		F(HW_VERSION, hw_version),
		F(NUM_GPUS, num_gpus),
		F(SMS_PER_GPU, sms_per_gpu),
		F(ISA_VERSION, isa_version),
		F(CAPS, caps),
		F(WARP_SIZE, warp_size),
		F(CLOCK_KHZ, clock_khz),
		F(LOCAL_MEM_MB, local_mem_mb),
		F(CMDBUF_MAX_BYTES, cmdbuf_max_bytes),
		F(MAX_DISPATCHES, max_dispatches),
#undef F
	};
	size_t i;
	int ret;

	if (!dev)
		return -EINVAL;
	if (!info)
		return shim_set_error(dev, -EINVAL, "query: info is NULL");
	memset(info, 0, sizeof(*info));
	snprintf(info->node, sizeof(info->node), "%s", dev->node);
	is_vmgpu_fd(dev->fd, info->driver_version,
		    sizeof(info->driver_version));
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		uint64_t v = 0;

		ret = vmgpu_get_param(dev, fields[i].param, &v);
		if (ret)
			return ret;
		*(uint32_t *)((char *)info + fields[i].offset) = (uint32_t)v;
	}
	return 0;
}
