// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmgpu: buffer objects. drm_gem_shmem objects, mapped into a file's GPU
 * address space when the file gets its first handle to them (creation,
 * PRIME import, GEM_OPEN of a flink name) and unmapped when its last
 * handle is closed and no packet uses the buffer any more. Every buffer's
 * size is charged to the device's memory limit while it exists. Also the
 * kernel-owned copies of command buffers.
 *
 * Lifetimes (Documentation/lifetimes.rst): a mapping holds a reference to
 * its buffer and its file; the mapping itself is held once per handle of
 * that file naming the buffer, once per job using it, and once by a
 * pooled command buffer.
 */
#include <linux/dma-mapping.h>
#include <linux/iosys-map.h>
#include <linux/slab.h>
#include <drm/drm_file.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_print.h>

#include "vmgpu_drm.h"
#include "vmgpu_drv.h"

/* Take @bytes from the device-wide budget of buffer memory. */
static int vmgpu_mem_charge(struct vmgpu_device *vdev, u64 bytes)
{
	s64 used = atomic64_read(&vdev->mem_used);

	do {
		if (bytes > vdev->mem_limit ||
		    (u64)used > vdev->mem_limit - bytes)
			return -ENOMEM;
	} while (!atomic64_try_cmpxchg(&vdev->mem_used, &used, used + bytes));
	return 0;
}

static void vmgpu_gem_free(struct drm_gem_object *obj)
{
	struct vmgpu_bo *bo = to_vmgpu_bo(obj);
	struct vmgpu_device *vdev = to_vmgpu(obj->dev);

	WARN_ON(!list_empty(&bo->mappings));
	atomic64_sub(bo->charged, &vdev->mem_used);
	mutex_lock(&vdev->bos_lock);
	list_del(&bo->dev_link);
	mutex_unlock(&vdev->bos_lock);
	mutex_destroy(&bo->mappings_lock);
	drm_gem_shmem_free(&bo->base);
}

static void vmgpu_mapping_release(struct kref *kref)
{
	struct vmgpu_mapping *map =
		container_of(kref, struct vmgpu_mapping, refcount);

	mutex_lock(&map->bo->mappings_lock);
	list_del(&map->bo_link);
	mutex_unlock(&map->bo->mappings_lock);
	vmgpu_vm_unmap(map);
	drm_gem_object_put(&map->bo->base.base);
	vmgpu_file_put(map->vf);
	kfree(map);
}

/**
 * vmgpu_mapping_put() - drop a reference; the last one unmaps
 * @map: the mapping
 */
void vmgpu_mapping_put(struct vmgpu_mapping *map)
{
	kref_put(&map->refcount, vmgpu_mapping_release);
}

/*
 * The mapping @vf's handles to @bo share, or with @unnamed the one
 * BO_CREATE made for the first handle; caller holds mappings_lock.
 */
static struct vmgpu_mapping *vmgpu_mapping_of_handles(struct vmgpu_bo *bo,
						      struct vmgpu_file *vf,
						      bool unnamed)
{
	struct vmgpu_mapping *map;

	lockdep_assert_held(&bo->mappings_lock);
	list_for_each_entry(map, &bo->mappings, bo_link)
		if (map->vf == vf && (map->handles || (unnamed && map->unnamed)))
			return map;
	return NULL;
}

/**
 * vmgpu_mapping_find() - @vf's mapping of @bo, with a reference
 * @bo: the buffer
 * @vf: the file
 *
 * Return: the mapping, or NULL if the file has no open handle to @bo.
 */
struct vmgpu_mapping *vmgpu_mapping_find(struct vmgpu_bo *bo,
					 struct vmgpu_file *vf)
{
	struct vmgpu_mapping *map;

	mutex_lock(&bo->mappings_lock);
	map = vmgpu_mapping_of_handles(bo, vf, false);
	if (map)
		kref_get(&map->refcount);
	mutex_unlock(&bo->mappings_lock);
	return map;
}

/* A new mapping with one reference, named by @handles handles. */
static struct vmgpu_mapping *vmgpu_mapping_create(struct vmgpu_bo *bo,
						  struct vmgpu_file *vf,
						  bool read_only, u32 handles)
{
	struct vmgpu_mapping *map;
	int ret;

	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (!map)
		return ERR_PTR(-ENOMEM);
	kref_init(&map->refcount);
	drm_gem_object_get(&bo->base.base);
	map->bo = bo;
	kref_get(&vf->refcount);
	map->vf = vf;
	map->read_only = read_only;
	map->handles = handles;
	ret = vmgpu_vm_map(map);
	if (ret) {
		drm_gem_object_put(&bo->base.base);
		vmgpu_file_put(vf);
		kfree(map);
		return ERR_PTR(ret);
	}
	mutex_lock(&bo->mappings_lock);
	list_add_tail(&map->bo_link, &bo->mappings);
	mutex_unlock(&bo->mappings_lock);
	return map;
}

/*
 * A new handle of @file names the buffer. A file may hold several handles
 * to one buffer (GEM_OPEN of its own flink name, PRIME import of its own
 * export): they share one mapping, one reference per handle. The first
 * handle BO_CREATE makes takes the mapping it made beforehand.
 */
static int vmgpu_gem_open(struct drm_gem_object *obj, struct drm_file *file)
{
	struct vmgpu_file *vf = file->driver_priv;
	struct vmgpu_bo *bo = to_vmgpu_bo(obj);
	struct vmgpu_mapping *map;

	mutex_lock(&bo->mappings_lock);
	map = vmgpu_mapping_of_handles(bo, vf, true);
	if (map) {
		map->unnamed = false;
		map->handles++;
		kref_get(&map->refcount);
	}
	mutex_unlock(&bo->mappings_lock);
	if (map)
		return 0;
	map = vmgpu_mapping_create(bo, vf,
				   bo->flags & DRM_VMGPU_BO_GPU_READ_ONLY, 1);
	return PTR_ERR_OR_ZERO(map);
}

static void vmgpu_gem_close(struct drm_gem_object *obj, struct drm_file *file)
{
	struct vmgpu_file *vf = file->driver_priv;
	struct vmgpu_bo *bo = to_vmgpu_bo(obj);
	struct vmgpu_mapping *map;

	mutex_lock(&bo->mappings_lock);
	map = vmgpu_mapping_of_handles(bo, vf, false);
	if (map)
		map->handles--;
	mutex_unlock(&bo->mappings_lock);
	if (map)
		vmgpu_mapping_put(map);
}

static const struct drm_gem_object_funcs vmgpu_gem_funcs = {
	.free = vmgpu_gem_free,
	.open = vmgpu_gem_open,
	.close = vmgpu_gem_close,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = drm_gem_shmem_object_mmap,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

/**
 * vmgpu_gem_create_object() - &drm_driver.gem_create_object hook
 * @drm: the DRM device
 * @size: object size
 *
 * Return: the new object's GEM base, or an ERR_PTR.
 */
struct drm_gem_object *vmgpu_gem_create_object(struct drm_device *drm,
					       size_t size)
{
	struct vmgpu_device *vdev = to_vmgpu(drm);
	struct vmgpu_bo *bo = kzalloc(sizeof(*bo), GFP_KERNEL);

	if (!bo)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&vdev->bos_lock);
	list_add(&bo->dev_link, &vdev->bos);
	mutex_unlock(&vdev->bos_lock);
	mutex_init(&bo->mappings_lock);
	INIT_LIST_HEAD(&bo->mappings);
	bo->placement = DRM_VMGPU_PLACEMENT_SYSTEM;
	bo->base.base.funcs = &vmgpu_gem_funcs;
	return &bo->base.base;
}

/*
 * A new buffer, its size charged to the device's memory limit before any
 * page is allocated, so a process over the limit gets -ENOMEM instead of
 * waking the OOM killer. The pages themselves are charged by shmem to the
 * memory cgroup of the process that allocates them.
 */
static struct vmgpu_bo *vmgpu_bo_create(struct vmgpu_device *vdev, u64 size,
					u32 flags, u32 placement)
{
	struct drm_gem_shmem_object *shmem;
	struct vmgpu_bo *bo;
	int ret;

	size = PAGE_ALIGN(size);
	ret = vmgpu_mem_charge(vdev, size);
	if (ret) {
		drm_dbg(&vdev->drm,
			"buffer of %llu bytes: %lld of %llu bytes in use\n",
			size, (s64)atomic64_read(&vdev->mem_used),
			vdev->mem_limit);
		return ERR_PTR(ret);
	}
	shmem = drm_gem_shmem_create(&vdev->drm, size);
	if (IS_ERR(shmem)) {
		atomic64_sub(size, &vdev->mem_used);
		return ERR_CAST(shmem);
	}
	bo = container_of(shmem, struct vmgpu_bo, base);
	bo->charged = size;
	bo->flags = flags;
	bo->placement = placement;
	return bo;
}

/*
 * Create a buffer and this file's first handle to it. The mapping comes
 * first, with our own reference, and the handle's open adopts it: the
 * address returned is the buffer's even when another thread guesses the
 * new handle and closes it before this returns (the close then unmaps
 * it, as any close does).
 */
static int vmgpu_bo_create_handle(struct drm_file *file, u64 size, u32 flags,
				  u32 placement, u32 *handle, u64 *gpu_va)
{
	struct vmgpu_file *vf = file->driver_priv;
	struct vmgpu_mapping *map;
	struct vmgpu_bo *bo;
	int ret;

	bo = vmgpu_bo_create(vf->vdev, size, flags, placement);
	if (IS_ERR(bo))
		return PTR_ERR(bo);
	map = vmgpu_mapping_create(bo, vf, flags & DRM_VMGPU_BO_GPU_READ_ONLY,
				   0);
	if (IS_ERR(map)) {
		drm_gem_object_put(&bo->base.base);
		return PTR_ERR(map);
	}
	mutex_lock(&bo->mappings_lock);
	map->unnamed = true;
	mutex_unlock(&bo->mappings_lock);
	ret = drm_gem_handle_create(file, &bo->base.base, handle);
	if (!ret)
		*gpu_va = map->node.start;
	vmgpu_mapping_put(map);
	drm_gem_object_put(&bo->base.base);
	return ret;
}

/**
 * vmgpu_ioctl_bo_create() - DRM_IOCTL_VMGPU_BO_CREATE
 * @drm: the DRM device
 * @data: struct drm_vmgpu_bo_create
 * @file: the calling file
 *
 * Return: 0 or a negative errno (see the uAPI header).
 */
int vmgpu_ioctl_bo_create(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct vmgpu_device *vdev = to_vmgpu(drm);
	struct drm_vmgpu_bo_create *args = data;

	if (args->pad || args->handle || args->gpu_va) {
		drm_dbg(drm, "bo_create: non-zero padding or output field\n");
		return -EINVAL;
	}
	if (args->flags & ~DRM_VMGPU_BO_FLAGS_ALL) {
		drm_dbg(drm, "bo_create: unknown flags %#x\n", args->flags);
		return -EINVAL;
	}
	if (args->placement > DRM_VMGPU_PLACEMENT_GPU(vdev->num_gpus - 1)) {
		drm_dbg(drm, "bo_create: bad placement %u\n", args->placement);
		return -EINVAL;
	}
	if (!args->size) {
		drm_dbg(drm, "bo_create: size 0\n");
		return -EINVAL;
	}
	if (args->size > VMGPU_MAX_BO_SIZE) {
		drm_dbg(drm, "bo_create: size %llu over %llu\n", args->size,
			VMGPU_MAX_BO_SIZE);
		return -E2BIG;
	}
	return vmgpu_bo_create_handle(file, args->size, args->flags,
				      args->placement, &args->handle,
				      &args->gpu_va);
}

/**
 * vmgpu_dumb_create() - &drm_driver.dumb_create: a linear buffer
 * @file: the calling file (primary node only; the core checks that)
 * @drm: the DRM device
 * @args: width, height and bpp in; pitch, size and handle out
 *
 * The same buffers as BO_CREATE makes, under the same size and memory
 * limits.
 *
 * Return: 0 or a negative errno.
 */
int vmgpu_dumb_create(struct drm_file *file, struct drm_device *drm,
		      struct drm_mode_create_dumb *args)
{
	u64 pitch = DIV_ROUND_UP((u64)args->width * args->bpp, 8);
	u64 size = PAGE_ALIGN(pitch * args->height);
	u64 gpu_va;

	if (!size || size > VMGPU_MAX_BO_SIZE) {
		drm_dbg(drm, "dumb_create: size %llu over %llu\n", size,
			VMGPU_MAX_BO_SIZE);
		return -E2BIG;
	}
	args->pitch = pitch;
	args->size = size;
	return vmgpu_bo_create_handle(file, size, 0, DRM_VMGPU_PLACEMENT_SYSTEM,
				      &args->handle, &gpu_va);
}

/**
 * vmgpu_bos_release_dma() - unmap every buffer from the device at unbind
 * @vdev: the device, unplugged
 *
 * Buffers outlive an unbind while files or dma-bufs hold them; their
 * pages stay (and stay mapped for the CPU), only the DMA mapping the
 * shmem helper made for the device goes, as DMA mappings must not outlive
 * the device's binding. Nothing maps a buffer for the device after the
 * unplug (vmgpu_vm_map() is inside drm_dev_enter()).
 */
void vmgpu_bos_release_dma(struct vmgpu_device *vdev)
{
	struct vmgpu_bo *bo;

	mutex_lock(&vdev->bos_lock);
	list_for_each_entry(bo, &vdev->bos, dev_link) {
		struct drm_gem_shmem_object *shmem = &bo->base;

		if (shmem->base.import_attach)
			continue;
		mutex_lock(&shmem->pages_lock);
		if (shmem->sgt) {
			dma_unmap_sgtable(vdev->drm.dev, shmem->sgt,
					  DMA_BIDIRECTIONAL, 0);
			sg_free_table(shmem->sgt);
			kfree(shmem->sgt);
			shmem->sgt = NULL;
		}
		mutex_unlock(&shmem->pages_lock);
	}
	mutex_unlock(&vdev->bos_lock);
}

/**
 * vmgpu_ioctl_bo_mmap_offset() - DRM_IOCTL_VMGPU_BO_MMAP_OFFSET
 * @drm: the DRM device
 * @data: struct drm_vmgpu_bo_mmap_offset
 * @file: the calling file
 *
 * Return: 0 or a negative errno.
 */
int vmgpu_ioctl_bo_mmap_offset(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct drm_vmgpu_bo_mmap_offset *args = data;
	struct drm_gem_object *obj;
	int ret;

	if (args->pad) {
		drm_dbg(drm, "bo_mmap_offset: non-zero padding\n");
		return -EINVAL;
	}
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj) {
		drm_dbg(drm, "bo_mmap_offset: no handle %u\n", args->handle);
		return -ENOENT;
	}
	ret = drm_gem_create_mmap_offset(obj);
	if (!ret)
		args->offset = drm_vma_node_offset_addr(&obj->vma_node);
	drm_gem_object_put(obj);
	return ret;
}

/**
 * vmgpu_ioctl_bo_info() - DRM_IOCTL_VMGPU_BO_INFO
 * @drm: the DRM device
 * @data: struct drm_vmgpu_bo_info
 * @file: the calling file
 *
 * Return: 0 or a negative errno.
 */
int vmgpu_ioctl_bo_info(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct vmgpu_file *vf = file->driver_priv;
	struct drm_vmgpu_bo_info *args = data;
	struct vmgpu_mapping *map;
	struct drm_gem_object *obj;
	struct vmgpu_bo *bo;

	if (args->pad) {
		drm_dbg(drm, "bo_info: non-zero padding\n");
		return -EINVAL;
	}
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj) {
		drm_dbg(drm, "bo_info: no handle %u\n", args->handle);
		return -ENOENT;
	}
	bo = to_vmgpu_bo(obj);
	map = vmgpu_mapping_find(bo, vf);
	if (!map) {
		drm_gem_object_put(obj);
		return -ENOENT;
	}
	args->flags = bo->flags;
	args->size = obj->size;
	args->gpu_va = map->node.start;
	args->placement = bo->placement;
	vmgpu_mapping_put(map);
	drm_gem_object_put(obj);
	return 0;
}

/**
 * vmgpu_ioctl_bo_place() - DRM_IOCTL_VMGPU_BO_PLACE
 * @drm: the DRM device
 * @data: struct drm_vmgpu_bo_place
 * @file: the calling file
 *
 * The handle's object reference keeps the buffer, the mapping reference
 * its VA range; the page-table entries change under the file's vm_lock
 * (vmgpu_vm_place()).
 *
 * Return: 0 or a negative errno.
 */
int vmgpu_ioctl_bo_place(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct vmgpu_device *vdev = to_vmgpu(drm);
	struct vmgpu_file *vf = file->driver_priv;
	struct drm_vmgpu_bo_place *args = data;
	struct vmgpu_mapping *map;
	struct drm_gem_object *obj;
	int ret;

	if (args->flags || args->pad) {
		drm_dbg(drm, "bo_place: unknown flags or non-zero padding\n");
		return -EINVAL;
	}
	if (args->placement > DRM_VMGPU_PLACEMENT_GPU(vdev->num_gpus - 1)) {
		drm_dbg(drm, "bo_place: bad placement %u\n", args->placement);
		return -EINVAL;
	}
	if (!args->size || !IS_ALIGNED(args->offset, VMGPU_PAGE_SIZE) ||
	    !IS_ALIGNED(args->size, VMGPU_PAGE_SIZE)) {
		drm_dbg(drm, "bo_place: range not whole pages\n");
		return -EINVAL;
	}
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj) {
		drm_dbg(drm, "bo_place: no handle %u\n", args->handle);
		return -ENOENT;
	}
	if (args->offset > obj->size || args->size > obj->size - args->offset) {
		drm_dbg(drm, "bo_place: range past the buffer\n");
		drm_gem_object_put(obj);
		return -EINVAL;
	}
	map = vmgpu_mapping_find(to_vmgpu_bo(obj), vf);
	if (!map) {
		drm_gem_object_put(obj);
		return -ENOENT;
	}
	ret = vmgpu_vm_place(map, args->offset, args->size, args->placement);
	vmgpu_mapping_put(map);
	drm_gem_object_put(obj);
	return ret;
}

static void vmgpu_cmdbuf_free(struct vmgpu_cmdbuf *cb)
{
	struct iosys_map vmap = IOSYS_MAP_INIT_VADDR(cb->vaddr);

	drm_gem_shmem_vunmap(&cb->bo->base, &vmap);
	vmgpu_mapping_put(cb->map);
	drm_gem_object_put(&cb->bo->base.base);
	kfree(cb);
}

/**
 * vmgpu_cmdbuf_get() - a kernel-owned command buffer of at least @bytes
 * @vf: the file whose address space it is mapped into (read-only)
 * @bytes: size needed
 *
 * Reuses a pooled buffer when one is large enough, so steady-state
 * submission allocates nothing here.
 *
 * Return: the buffer or an ERR_PTR.
 */
struct vmgpu_cmdbuf *vmgpu_cmdbuf_get(struct vmgpu_file *vf, u32 bytes)
{
	struct vmgpu_cmdbuf *cb, *found = NULL;
	struct iosys_map vmap;
	struct vmgpu_bo *bo;
	u32 capacity;
	int ret;

	spin_lock(&vf->pool_lock);
	list_for_each_entry(cb, &vf->pool, link) {
		if (cb->capacity >= bytes) {
			list_del(&cb->link);
			vf->pool_count--;
			found = cb;
			break;
		}
	}
	spin_unlock(&vf->pool_lock);
	if (found)
		return found;

	capacity = max_t(u32, roundup_pow_of_two(bytes), 16 * 1024);
	cb = kzalloc(sizeof(*cb), GFP_KERNEL);
	if (!cb)
		return ERR_PTR(-ENOMEM);
	bo = vmgpu_bo_create(vf->vdev, capacity, DRM_VMGPU_BO_GPU_READ_ONLY,
			     DRM_VMGPU_PLACEMENT_SYSTEM);
	if (IS_ERR(bo)) {
		kfree(cb);
		return ERR_CAST(bo);
	}
	ret = drm_gem_shmem_vmap(&bo->base, &vmap);
	if (ret)
		goto err_put;
	cb->bo = bo;
	cb->vaddr = vmap.vaddr;
	cb->capacity = capacity;
	/* Not reachable through any handle. */
	cb->map = vmgpu_mapping_create(bo, vf, true, 0);
	if (IS_ERR(cb->map)) {
		ret = PTR_ERR(cb->map);
		drm_gem_shmem_vunmap(&bo->base, &vmap);
		goto err_put;
	}
	return cb;

err_put:
	drm_gem_object_put(&bo->base.base);
	kfree(cb);
	return ERR_PTR(ret);
}

/**
 * vmgpu_cmdbuf_put() - return a command buffer to its file's pool
 * @vf: the file
 * @cb: the buffer, no longer used by the device
 */
void vmgpu_cmdbuf_put(struct vmgpu_file *vf, struct vmgpu_cmdbuf *cb)
{
	spin_lock(&vf->pool_lock);
	if (!vf->closed && vf->pool_count < VMGPU_CMDBUF_POOL) {
		list_add(&cb->link, &vf->pool);
		vf->pool_count++;
		cb = NULL;
	}
	spin_unlock(&vf->pool_lock);
	if (cb)
		vmgpu_cmdbuf_free(cb);
}

/**
 * vmgpu_cmdbuf_pool_drain() - free the pooled buffers of a closing file
 * @vf: the file
 */
void vmgpu_cmdbuf_pool_drain(struct vmgpu_file *vf)
{
	struct vmgpu_cmdbuf *cb, *tmp;
	LIST_HEAD(list);

	spin_lock(&vf->pool_lock);
	vf->closed = true;
	list_splice_init(&vf->pool, &list);
	vf->pool_count = 0;
	spin_unlock(&vf->pool_lock);
	list_for_each_entry_safe(cb, tmp, &list, link)
		vmgpu_cmdbuf_free(cb);
}
