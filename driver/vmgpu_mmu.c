// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmgpu: per-file GPU address spaces. Each DRM file owns three-level page
 * tables (uapi/vmgpu_hw.h) in coherent DMA memory and a drm_mm range
 * allocator. A file's tables are bound to one of a GPU's address-space
 * slots while the file has packets on that GPU's ring; idle slots are
 * recycled least recently used first.
 */
#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "vmgpu_drv.h"

static int vmgpu_pt_alloc(struct vmgpu_device *vdev, struct vmgpu_pt *pt,
			  bool leaf)
{
	pt->cpu = dma_alloc_coherent(vdev->drm.dev, VMGPU_PAGE_SIZE, &pt->dma,
				     GFP_KERNEL);
	if (!pt->cpu)
		return -ENOMEM;
	pt->child = NULL;
	if (!leaf) {
		pt->child = kcalloc(VMGPU_PT_ENTRIES, sizeof(*pt->child),
				    GFP_KERNEL);
		if (!pt->child) {
			dma_free_coherent(vdev->drm.dev, VMGPU_PAGE_SIZE,
					  pt->cpu, pt->dma);
			pt->cpu = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

static void vmgpu_pt_free(struct vmgpu_device *vdev, struct vmgpu_pt *pt)
{
	unsigned int i;

	if (!pt->cpu)
		return;
	if (pt->child) {
		for (i = 0; i < VMGPU_PT_ENTRIES; i++) {
			if (!pt->child[i])
				continue;
			vmgpu_pt_free(vdev, pt->child[i]);
			kfree(pt->child[i]);
		}
		kfree(pt->child);
	}
	dma_free_coherent(vdev->drm.dev, VMGPU_PAGE_SIZE, pt->cpu, pt->dma);
	pt->cpu = NULL;
}

/**
 * vmgpu_vm_init() - set up a file's empty address space
 * @vf: the file
 *
 * Return: 0 or -ENOMEM.
 */
int vmgpu_vm_init(struct vmgpu_file *vf)
{
	unsigned int i;

	mutex_init(&vf->vm_lock);
	drm_mm_init(&vf->mm, VMGPU_VA_START, VMGPU_VA_END - VMGPU_VA_START);
	for (i = 0; i < VMGPU_MAX_GPUS; i++)
		vf->slot[i] = -1;
	return vmgpu_pt_alloc(vf->vdev, &vf->root, false);
}

/**
 * vmgpu_vm_fini() - release a file's address space
 * @vf: the file, with no mapping and no packet left
 *
 * Frees the slots the tables still occupy and the tables.
 */
void vmgpu_vm_fini(struct vmgpu_file *vf)
{
	struct vmgpu_device *vdev = vf->vdev;
	unsigned int g;
	/* A file may outlive an unbind; then there is no device to tell. */
	bool present;
	int idx;

	present = drm_dev_enter(&vdev->drm, &idx);
	for (g = 0; g < vdev->num_gpus; g++) {
		struct vmgpu_gpu *gpu = &vdev->gpu[g];
		int slot;

		mutex_lock(&gpu->as_lock);
		slot = vf->slot[g];
		if (slot >= 0) {
			gpu->slots[slot].owner = NULL;
			if (present) {
				vmgpu_gpu_write(gpu, VMGPU_GPU_AS_ROOT_LO(slot), 0);
				vmgpu_gpu_write(gpu, VMGPU_GPU_AS_ROOT_HI(slot), 0);
				vmgpu_gpu_write(gpu, VMGPU_GPU_MMU_INVALIDATE,
						BIT(slot));
			}
			vf->slot[g] = -1;
		}
		mutex_unlock(&gpu->as_lock);
	}
	if (present)
		drm_dev_exit(idx);
	drm_mm_takedown(&vf->mm);
	vmgpu_pt_free(vdev, &vf->root);
	mutex_destroy(&vf->vm_lock);
}

/* Flush the GPUs' TLBs for @vf's slots. */
static void vmgpu_vm_flush(struct vmgpu_file *vf)
{
	struct vmgpu_device *vdev = vf->vdev;
	unsigned int g;
	int idx;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return;		/* unbound: no TLB left to flush */
	for (g = 0; g < vdev->num_gpus; g++) {
		struct vmgpu_gpu *gpu = &vdev->gpu[g];

		mutex_lock(&gpu->as_lock);
		if (vf->slot[g] >= 0)
			vmgpu_gpu_write(gpu, VMGPU_GPU_MMU_INVALIDATE,
					BIT(vf->slot[g]));
		mutex_unlock(&gpu->as_lock);
	}
	drm_dev_exit(idx);
}

/*
 * The leaf entry for @va, allocating tables on the way when @alloc; NULL
 * also once an unbind has released the tables.
 */
static u64 *vmgpu_pte(struct vmgpu_file *vf, u64 va, bool alloc)
{
	struct vmgpu_pt *pt = &vf->root;
	int level;

	if (!pt->cpu)
		return NULL;

	for (level = VMGPU_PT_LEVELS - 1; level > 0; level--) {
		unsigned int idx = VMGPU_PT_INDEX(va, level);
		struct vmgpu_pt *next = pt->child[idx];

		if (!next) {
			if (!alloc)
				return NULL;
			next = kzalloc(sizeof(*next), GFP_KERNEL);
			if (!next)
				return NULL;
			if (vmgpu_pt_alloc(vf->vdev, next, level == 1)) {
				kfree(next);
				return NULL;
			}
			pt->child[idx] = next;
			pt->cpu[idx] = (next->dma & VMGPU_PTE_ADDR_MASK) |
				       VMGPU_PTE_VALID;
		}
		pt = next;
	}
	return &pt->cpu[VMGPU_PT_INDEX(va, 0)];
}

static void vmgpu_vm_clear(struct vmgpu_file *vf, u64 va, u64 size)
{
	u64 end = va + size;
	u64 *pte;

	for (; va < end; va += VMGPU_PAGE_SIZE) {
		pte = vmgpu_pte(vf, va, false);
		if (pte)
			WRITE_ONCE(*pte, 0);
	}
}

/**
 * vmgpu_vm_map() - give a mapping a VA range and write its page tables
 * @map: the mapping; its buffer's pages are pinned here
 *
 * Return: 0, -ENOSPC when the address space is full, -ENOMEM, or the
 * error of pinning the pages.
 */
int vmgpu_vm_map(struct vmgpu_mapping *map)
{
	struct vmgpu_file *vf = map->vf;
	struct vmgpu_bo *bo = map->bo;
	u64 size = bo->base.base.size;
	struct sg_dma_page_iter iter;
	struct sg_table *sgt;
	u64 flags, va;
	int ret, idx;

	/* After an unbind there is no device to map for. */
	if (!drm_dev_enter(&vf->vdev->drm, &idx))
		return -ENODEV;
	sgt = drm_gem_shmem_get_pages_sgt(&bo->base);
	if (IS_ERR(sgt)) {
		drm_dev_exit(idx);
		return PTR_ERR(sgt);
	}

	flags = VMGPU_PTE_VALID | VMGPU_PTE_READ |
		VMGPU_PTE_LOC(bo->placement);
	if (!map->read_only)
		flags |= VMGPU_PTE_WRITE;

	mutex_lock(&vf->vm_lock);
	/* A guard page after each buffer catches small overruns. */
	ret = drm_mm_insert_node_generic(&vf->mm, &map->node,
					 size + VMGPU_PAGE_SIZE,
					 VMGPU_PAGE_SIZE, 0, DRM_MM_INSERT_BEST);
	if (ret)
		goto out;
	va = map->node.start;
	for_each_sgtable_dma_page(sgt, &iter, 0) {
		u64 *pte = vmgpu_pte(vf, va, true);

		if (!pte) {
			vmgpu_vm_clear(vf, map->node.start, va - map->node.start);
			drm_mm_remove_node(&map->node);
			ret = -ENOMEM;
			goto out;
		}
		WRITE_ONCE(*pte, (sg_page_iter_dma_address(&iter) &
				  VMGPU_PTE_ADDR_MASK) | flags);
		va += VMGPU_PAGE_SIZE;
	}
out:
	mutex_unlock(&vf->vm_lock);
	/* The device walks the tables through DMA: publish them. */
	wmb();
	drm_dev_exit(idx);
	return ret;
}

/**
 * vmgpu_vm_release_dma() - give a file's page tables back at unbind
 * @vf: a file still open when its device is unbound
 *
 * DMA memory must not outlive the device's binding. The file's mappings
 * may still be unmapped later; with no tables left that is a no-op.
 */
void vmgpu_vm_release_dma(struct vmgpu_file *vf)
{
	mutex_lock(&vf->vm_lock);
	vmgpu_pt_free(vf->vdev, &vf->root);
	mutex_unlock(&vf->vm_lock);
}

/**
 * vmgpu_vm_unmap() - remove a mapping's page-table entries and VA range
 * @map: a mapping vmgpu_vm_map() set up
 *
 * Invalidates the TLB of every slot the file's tables are bound to.
 */
void vmgpu_vm_unmap(struct vmgpu_mapping *map)
{
	struct vmgpu_file *vf = map->vf;

	if (!drm_mm_node_allocated(&map->node))
		return;
	mutex_lock(&vf->vm_lock);
	vmgpu_vm_clear(vf, map->node.start, map->bo->base.base.size);
	drm_mm_remove_node(&map->node);
	mutex_unlock(&vf->vm_lock);
	/* The cleared entries must be in memory before the TLB flush. */
	wmb();
	vmgpu_vm_flush(vf);
}

/**
 * vmgpu_vm_place() - set the location field of some of a mapping's pages
 * @map: the mapping (its caller holds a reference, so its range stays)
 * @offset: first byte in the buffer, page aligned
 * @size: bytes, page aligned, inside the buffer with @offset
 * @placement: DRM_VMGPU_PLACEMENT_*, checked by the caller
 *
 * Rewrites only the location bits of the entries under the file's
 * vm_lock, then flushes the TLBs of the slots the file is bound to.
 *
 * Return: 0, or -ENODEV once the device is unbound.
 */
int vmgpu_vm_place(struct vmgpu_mapping *map, u64 offset, u64 size,
		   u32 placement)
{
	struct vmgpu_file *vf = map->vf;
	u64 va = map->node.start + offset, end = va + size;
	int idx;

	if (!drm_dev_enter(&vf->vdev->drm, &idx))
		return -ENODEV;
	mutex_lock(&vf->vm_lock);
	for (; va < end; va += VMGPU_PAGE_SIZE) {
		u64 *pte = vmgpu_pte(vf, va, false);
		u64 old;

		if (!pte)
			continue;
		old = READ_ONCE(*pte);
		if (old & VMGPU_PTE_VALID)
			WRITE_ONCE(*pte, (old & ~VMGPU_PTE_LOC_MASK) |
				   VMGPU_PTE_LOC(placement));
	}
	mutex_unlock(&vf->vm_lock);
	/* The new entries must be in memory before the TLB flush. */
	wmb();
	vmgpu_vm_flush(vf);
	drm_dev_exit(idx);
	return 0;
}

static void vmgpu_as_program(struct vmgpu_gpu *gpu, int slot, dma_addr_t root)
{
	vmgpu_gpu_write(gpu, VMGPU_GPU_AS_ROOT_LO(slot), lower_32_bits(root));
	vmgpu_gpu_write(gpu, VMGPU_GPU_AS_ROOT_HI(slot), upper_32_bits(root));
	vmgpu_gpu_write(gpu, VMGPU_GPU_MMU_INVALIDATE, BIT(slot));
}

/**
 * vmgpu_as_get() - bind a file's address space to a slot of a GPU
 * @gpu: the GPU
 * @vf: the file
 *
 * Reuses the file's slot if it has one, else takes a free slot or the
 * least recently used idle one. Every packet on the ring holds its slot,
 * and the scheduler never puts more packets on a ring than there are
 * slots, so an idle slot always exists.
 *
 * Return: the slot number, or -EBUSY if every slot is busy.
 */
int vmgpu_as_get(struct vmgpu_gpu *gpu, struct vmgpu_file *vf)
{
	struct vmgpu_device *vdev = gpu->vdev;
	struct vmgpu_as_slot *s;
	int slot = -1;
	u32 i;

	mutex_lock(&gpu->as_lock);
	slot = vf->slot[gpu->index];
	if (slot < 0) {
		for (i = 0; i < vdev->as_slots; i++) {
			s = &gpu->slots[i];
			if (s->active)
				continue;
			if (!s->owner) {
				slot = i;
				break;
			}
			if (slot < 0 ||
			    s->last_used < gpu->slots[slot].last_used)
				slot = i;
		}
		if (slot < 0) {
			mutex_unlock(&gpu->as_lock);
			return -EBUSY;
		}
		s = &gpu->slots[slot];
		if (s->owner)
			s->owner->slot[gpu->index] = -1;
		s->owner = vf;
		vf->slot[gpu->index] = slot;
		vmgpu_as_program(gpu, slot, vf->root.dma);
	}
	s = &gpu->slots[slot];
	s->active++;
	s->last_used = ++gpu->slot_stamp;
	mutex_unlock(&gpu->as_lock);
	return slot;
}

/**
 * vmgpu_as_put() - a packet using @slot left the ring
 * @gpu: the GPU
 * @slot: what vmgpu_as_get() returned
 */
void vmgpu_as_put(struct vmgpu_gpu *gpu, int slot)
{
	mutex_lock(&gpu->as_lock);
	if (!WARN_ON_ONCE(!gpu->slots[slot].active))
		gpu->slots[slot].active--;
	mutex_unlock(&gpu->as_lock);
}

/**
 * vmgpu_as_restore() - reprogram every bound slot after a GPU reset
 * @gpu: the GPU
 */
void vmgpu_as_restore(struct vmgpu_gpu *gpu)
{
	u32 i;

	mutex_lock(&gpu->as_lock);
	for (i = 0; i < gpu->vdev->as_slots; i++) {
		struct vmgpu_file *vf = gpu->slots[i].owner;

		vmgpu_as_program(gpu, i, vf ? vf->root.dma : 0);
	}
	mutex_unlock(&gpu->as_lock);
}
