// SPDX-License-Identifier: MIT
/*
 * libvmgpu: buffer objects (create, map, share) and kernel executables.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>

#include "vmgpu.h"
#include "vmgpu_drm.h"
#include "vmgpu_isa.h"
#include "shim_internal.h"
#include "testing.h"

static int bo_new(struct vmgpu_device *dev, uint32_t handle,
		  struct vmgpu_bo **out)
{
	struct drm_vmgpu_bo_info info = { .handle = handle };
	struct vmgpu_bo *bo;

	if (drmIoctl(dev->fd, DRM_IOCTL_VMGPU_BO_INFO, &info))
		return shim_set_error(dev, -errno, "BO_INFO %u: %s", handle,
				      strerror(errno));
	bo = calloc(1, sizeof(*bo));
	if (!bo)
		return shim_set_error(dev, -ENOMEM, "out of memory");
	bo->dev = dev;
	bo->handle = handle;
	bo->flags = info.flags;
	bo->placement = info.placement;
	bo->size = info.size;
	bo->gpu_va = info.gpu_va;
	pthread_mutex_init(&bo->map_lock, NULL);
	pthread_mutex_lock(&dev->bos_lock);
	bo->next = dev->bos;
	if (dev->bos)
		dev->bos->prev = bo;
	dev->bos = bo;
	pthread_mutex_unlock(&dev->bos_lock);
	*out = bo;
	return 0;
}

static void close_handle(struct vmgpu_device *dev, uint32_t handle)
{
	struct drm_gem_close gc = { .handle = handle };

	drmIoctl(dev->fd, DRM_IOCTL_GEM_CLOSE, &gc);
}

int vmgpu_bo_create(struct vmgpu_device *dev, uint64_t size, uint32_t flags,
		    uint32_t placement, struct vmgpu_bo **out)
{
	struct drm_vmgpu_bo_create args = {
		.size = size, .flags = flags, .placement = placement,
	};
	int ret;

	if (!dev)
		return -EINVAL;
	if (!out)
		return shim_set_error(dev, -EINVAL, "bo_create: out is NULL");
	*out = NULL;
	if (!size)
		return shim_set_error(dev, -EINVAL, "bo_create: size 0");
	if (flags & ~VMGPU_BO_GPU_READ_ONLY)
		return shim_set_error(dev, -EINVAL,
				      "bo_create: unknown flags %#x", flags);
	if (placement > VMGPU_PLACEMENT_GPU(dev->num_gpus - 1))
		return shim_set_error(dev, -EINVAL,
				      "bo_create: placement VMGPU_PLACEMENT_GPU(%u): no such GPU (GPUs 0..%u)",
				      placement - 1, dev->num_gpus - 1);
	if (size > dev->max_bo_size)
		return shim_set_error(dev, -E2BIG,
				      "bo_create: %llu bytes, the limit is %llu (DRM_VMGPU_PARAM_MAX_BO_SIZE)",
				      (unsigned long long)size,
				      (unsigned long long)dev->max_bo_size);
	if (drmIoctl(dev->fd, DRM_IOCTL_VMGPU_BO_CREATE, &args)) {
		int err = -errno;
		uint64_t used = 0, limit = 0;

		/* Over the device's memory budget: say how much is in use. */
		if ((err == -ENOMEM || err == -ENOSPC) &&
		    !vmgpu_get_param(dev, DRM_VMGPU_PARAM_MEM_USED, &used) &&
		    !vmgpu_get_param(dev, DRM_VMGPU_PARAM_MEM_LIMIT, &limit))
			return shim_set_error(dev, err,
					      "BO_CREATE of %llu bytes: %s (device memory in use %llu of %llu bytes)",
					      (unsigned long long)size,
					      strerror(-err),
					      (unsigned long long)used,
					      (unsigned long long)limit);
		return shim_set_error(dev, err, "BO_CREATE of %llu bytes: %s",
				      (unsigned long long)size, strerror(-err));
	}
	ret = bo_new(dev, args.handle, out);
	if (ret)
		close_handle(dev, args.handle);
	return ret;
}

int vmgpu_bo_place(struct vmgpu_bo *bo, uint64_t offset, uint64_t size,
		   uint32_t placement)
{
	struct drm_vmgpu_bo_place args = {
		.handle = bo ? bo->handle : 0, .placement = placement,
		.offset = offset, .size = size,
	};
	struct vmgpu_device *dev = bo ? bo->dev : NULL;

	if (!bo)
		return -EINVAL;
	if (placement > VMGPU_PLACEMENT_GPU(dev->num_gpus - 1))
		return shim_set_error(dev, -EINVAL,
				      "bo_place: placement VMGPU_PLACEMENT_GPU(%u): no such GPU (GPUs 0..%u)",
				      placement - 1, dev->num_gpus - 1);
	if (!size || offset % VMGPU_PAGE_SIZE || size % VMGPU_PAGE_SIZE ||
	    offset > bo->size || size > bo->size - offset)
		return shim_set_error(dev, -EINVAL,
				      "bo_place: %llu bytes at %llu are not whole pages inside the buffer of %llu",
				      (unsigned long long)size,
				      (unsigned long long)offset,
				      (unsigned long long)bo->size);
	if (drmIoctl(dev->fd, DRM_IOCTL_VMGPU_BO_PLACE, &args))
		return shim_set_error(dev, -errno, "BO_PLACE: %s",
				      strerror(errno));
	return 0;
}

bool shim_find_bo(struct vmgpu_device *dev, uint64_t va, uint32_t *handle,
		  uint64_t *offset)
{
	const struct vmgpu_bo *bo;
	bool found = false;

	pthread_mutex_lock(&dev->bos_lock);
	for (bo = dev->bos; bo && !found; bo = bo->next) {
		if (va >= bo->gpu_va && va - bo->gpu_va < bo->size) {
			*handle = bo->handle;
			*offset = va - bo->gpu_va;
			found = true;
		}
	}
	pthread_mutex_unlock(&dev->bos_lock);
	return found;
}

void vmgpu_bo_destroy(struct vmgpu_bo *bo)
{
	if (!bo)
		return;
	pthread_mutex_lock(&bo->dev->bos_lock);
	if (bo->prev)
		bo->prev->next = bo->next;
	else
		bo->dev->bos = bo->next;
	if (bo->next)
		bo->next->prev = bo->prev;
	pthread_mutex_unlock(&bo->dev->bos_lock);
	if (bo->map)
		munmap(bo->map, bo->size);
	close_handle(bo->dev, bo->handle);
	pthread_mutex_destroy(&bo->map_lock);
	free(bo->sig);
	free(bo);
}

int vmgpu_bo_map(struct vmgpu_bo *bo, void **ptr)
{
	struct drm_vmgpu_bo_mmap_offset args;
	int ret = 0;
	void *p;

	if (!bo)
		return -EINVAL;
	if (!ptr)
		return shim_set_error(bo->dev, -EINVAL, "bo_map: ptr is NULL");
	pthread_mutex_lock(&bo->map_lock);
	if (!bo->map) {
		memset(&args, 0, sizeof(args));
		args.handle = bo->handle;
		if (drmIoctl(bo->dev->fd, DRM_IOCTL_VMGPU_BO_MMAP_OFFSET,
			     &args)) {
			ret = shim_set_error(bo->dev, -errno,
					     "BO_MMAP_OFFSET: %s",
					     strerror(errno));
			goto out;
		}
		p = mmap(NULL, bo->size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 bo->dev->fd, args.offset);
		if (p == MAP_FAILED) {
			ret = shim_set_error(bo->dev, -errno, "mmap: %s",
					     strerror(errno));
			goto out;
		}
		bo->map = p;
	}
	*ptr = bo->map;
out:
	pthread_mutex_unlock(&bo->map_lock);
	return ret;
}

uint64_t vmgpu_bo_gpu_va(const struct vmgpu_bo *bo)
{
	return bo ? bo->gpu_va : 0;
}

uint64_t vmgpu_bo_size(const struct vmgpu_bo *bo)
{
	return bo ? bo->size : 0;
}

uint32_t vmgpu_bo_handle(const struct vmgpu_bo *bo)
{
	return bo ? bo->handle : 0;
}

int vmgpu_bo_export(struct vmgpu_bo *bo, int *fd)
{
	if (!bo)
		return -EINVAL;
	if (!fd)
		return shim_set_error(bo->dev, -EINVAL, "bo_export: fd is NULL");
	if (drmPrimeHandleToFD(bo->dev->fd, bo->handle, DRM_CLOEXEC | DRM_RDWR,
			       fd))
		return shim_set_error(bo->dev, -errno, "PRIME export: %s",
				      strerror(errno));
	return 0;
}

int vmgpu_bo_import(struct vmgpu_device *dev, int fd, struct vmgpu_bo **out)
{
	uint32_t handle;
	int ret;

	if (!dev)
		return -EINVAL;
	if (!out)
		return shim_set_error(dev, -EINVAL, "bo_import: out is NULL");
	*out = NULL;
	if (drmPrimeFDToHandle(dev->fd, fd, &handle))
		return shim_set_error(dev, -errno, "PRIME import of fd %d: %s",
				      fd, strerror(errno));
	ret = bo_new(dev, handle, out);
	if (ret)
		close_handle(dev, handle);
	return ret;
}

int vmgpu_kernel_create(struct vmgpu_device *dev, const void *image,
			size_t bytes, struct vmgpu_bo **out)
{
	struct vmgpu_exec_header h;
	struct shim_kernel_sig *ks = NULL;
	struct vmgpu_exec_sig sig;
	const char *why;
	uint32_t pc;
	void *p;
	int ret;

	if (!dev)
		return -EINVAL;
	if (!image || !out || bytes < sizeof(h))
		return shim_set_error(dev, -EINVAL,
				      "kernel_create: no image or too short");
	vmgpu_exec_header_read(&h, image);
	if (!vmgpu_exec_header_valid(&h) ||
	    vmgpu_exec_file_bytes(&h) != bytes)
		return shim_set_error(dev, -EINVAL,
				      "kernel_create: invalid executable header");
	if (h.sig_bytes) {
		ks = calloc(1, sizeof(*ks));
		if (!ks)
			return shim_set_error(dev, -ENOMEM, "out of memory");
		if (vmgpu_exec_sig_read(&h, image, bytes, &sig, ks->params,
					&why) < 0) {
			free(ks);
			return shim_set_error(dev, -EINVAL,
					      "kernel_create: bad signature: %s",
					      why);
		}
		memcpy(ks->name, sig.name, sizeof(ks->name));
		ks->num_params = sig.num_params;
		ks->args_bytes = h.args_bytes;
	}
	/* The device would fault on a bad word; say which one here instead. */
	for (pc = 0; pc < h.code_insns; pc++) {
		uint64_t w;

		memcpy(&w, (const uint8_t *)image + VMGPU_EXEC_HEADER_BYTES +
		       (size_t)pc * VMGPU_INSN_BYTES, sizeof(w));
		if (!vmgpu_insn_valid(le64toh(w), h.isa_version, h.num_regs,
				      h.args_bytes)) {
			free(ks);
			return shim_set_error(dev, -EINVAL,
					      "kernel_create: invalid instruction %#018llx at %u",
					      (unsigned long long)le64toh(w), pc);
		}
	}
	ret = vmgpu_bo_create(dev, bytes, VMGPU_BO_GPU_READ_ONLY,
			      VMGPU_PLACEMENT_SYSTEM, out);
	if (ret) {
		free(ks);
		return ret;
	}
	(*out)->sig = ks;
	ret = vmgpu_bo_map(*out, &p);
	if (ret) {
		vmgpu_bo_destroy(*out);
		*out = NULL;
		return ret;
	}
	memcpy(p, image, bytes);
	return 0;
}

struct vmgpu_bo *shim_test_bo_new(uint64_t gpu_va, uint64_t size)
{
	struct vmgpu_bo *bo = calloc(1, sizeof(*bo));

	if (!bo)
		return NULL;
	bo->gpu_va = gpu_va;
	bo->size = size;
	pthread_mutex_init(&bo->map_lock, NULL);
	return bo;
}

void shim_test_bo_free(struct vmgpu_bo *bo)
{
	if (!bo)
		return;
	pthread_mutex_destroy(&bo->map_lock);
	free(bo);
}
