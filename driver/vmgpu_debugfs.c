// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmgpu: debugfs files under /sys/kernel/debug/dri/<minor>/ (registers,
 * per-GPU and per-file counters) and the DRM fdinfo usage keys.
 */
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <drm/drm_debugfs.h>
#include <drm/drm_file.h>

#include "vmgpu_drm.h"

#include "vmgpu_drv.h"

struct vmgpu_reg_name {
	u32 offset;
	const char *name;
};

#define REG(r) { VMGPU_REG_##r, #r }
static const struct vmgpu_reg_name vmgpu_global_regs[] = {
	REG(MAGIC), REG(VERSION), REG(NUM_GPUS), REG(SMS_PER_GPU),
	REG(ISA_VERSION), REG(CAPS), REG(SCRATCH), REG(WARP_SIZE),
	REG(AS_SLOTS), REG(RING_MAX_ENTRIES), REG(CMDBUF_MAX_BYTES),
	REG(MAX_DISPATCHES), REG(CLOCK_KHZ), REG(LOCAL_MEM_MB),
};

#undef REG

#define REG(r) { VMGPU_GPU_##r, #r }
static const struct vmgpu_reg_name vmgpu_gpu_regs[] = {
	REG(RING_BASE_LO), REG(RING_BASE_HI), REG(RING_ENTRIES),
	REG(RING_HEAD), REG(RING_TAIL), REG(FENCE_ADDR_LO), REG(FENCE_ADDR_HI),
	REG(FENCE_LO), REG(FENCE_HI), REG(INT_STATUS), REG(INT_MASK),
	REG(CONTROL), REG(STATUS), REG(TIMESTAMP_LO), REG(TIMESTAMP_HI),
	REG(ERR_CODE), REG(ERR_SLOT), REG(ERR_ADDR_LO), REG(ERR_ADDR_HI),
	REG(ERR_PC), REG(ERR_SEQNO_LO), REG(ERR_SEQNO_HI), REG(ERR_DISPATCH),
};

#undef REG

static int vmgpu_debugfs_regs(struct seq_file *m, void *unused)
{
	struct drm_info_node *node = m->private;
	struct vmgpu_device *vdev = to_vmgpu(node->minor->dev);
	unsigned int i, g;

	for (i = 0; i < ARRAY_SIZE(vmgpu_global_regs); i++)
		seq_printf(m, "%-20s 0x%08x\n", vmgpu_global_regs[i].name,
			   vmgpu_read(vdev, vmgpu_global_regs[i].offset));
	for (g = 0; g < vdev->num_gpus; g++) {
		seq_printf(m, "gpu%u:\n", g);
		for (i = 0; i < ARRAY_SIZE(vmgpu_gpu_regs); i++)
			seq_printf(m, "  %-18s 0x%08x\n", vmgpu_gpu_regs[i].name,
				   vmgpu_gpu_read(&vdev->gpu[g],
						  vmgpu_gpu_regs[i].offset));
	}
	return 0;
}

const char *const vmgpu_stat_names[VMGPU_STAT_NUM] = {
	[VMGPU_STAT_SUBMITS] = "submits",
	[VMGPU_STAT_PACKETS] = "packets",
	[VMGPU_STAT_DISPATCHES] = "dispatches",
	[VMGPU_STAT_IRQS] = "irqs",
	[VMGPU_STAT_IRQS_COMPLETE] = "irqs_complete",
	[VMGPU_STAT_IRQS_ERROR] = "irqs_error",
	[VMGPU_STAT_WORK_RUNS] = "work_runs",
	[VMGPU_STAT_ERRORS] = "errors",
	[VMGPU_STAT_TIMEOUTS] = "timeouts",
	[VMGPU_STAT_RESETS] = "resets",
	[VMGPU_STAT_BUSY_NS] = "busy_ns",
};

static const char *const vmgpu_hw_counter_names[VMGPU_CNT_NUM] = {
	[VMGPU_CNT_PACKETS] = "hw_packets",
	[VMGPU_CNT_DISPATCHES] = "hw_dispatches",
	[VMGPU_CNT_BLOCKS] = "hw_blocks",
	[VMGPU_CNT_WARP_INSTRS] = "hw_warp_instrs",
	[VMGPU_CNT_THREAD_INSTRS] = "hw_thread_instrs",
	[VMGPU_CNT_INTERRUPTS] = "hw_interrupts",
	[VMGPU_CNT_ERRORS] = "hw_errors",
	[VMGPU_CNT_BUSY_NS] = "hw_busy_ns",
	[VMGPU_CNT_TLB_MISSES] = "hw_tlb_misses",
	[VMGPU_CNT_BYTES_LOCAL] = "hw_bytes_local",
	[VMGPU_CNT_BYTES_LINK] = "hw_bytes_link",
	[VMGPU_CNT_BYTES_HOST] = "hw_bytes_host",
	[VMGPU_CNT_MMIO_WRITES] = "hw_mmio_writes",
	[VMGPU_CNT_DEVICE_LAUNCHES] = "hw_device_launches",
	[VMGPU_CNT_QUEUE_ITEMS] = "hw_queue_items",
	[VMGPU_CNT_BYTES_REMOTE_READ] = "hw_bytes_remote_read",
	[VMGPU_CNT_BYTES_COPY] = "hw_bytes_copy",
	[VMGPU_CNT_LINK_BYTES0] = "hw_link_bytes0",
	[VMGPU_CNT_LINK_BYTES1] = "hw_link_bytes1",
	[VMGPU_CNT_LINK_BYTES2] = "hw_link_bytes2",
	[VMGPU_CNT_LINK_BYTES3] = "hw_link_bytes3",
	[VMGPU_CNT_LINK_BYTES4] = "hw_link_bytes4",
	[VMGPU_CNT_LINK_BYTES5] = "hw_link_bytes5",
	[VMGPU_CNT_LINK_BYTES6] = "hw_link_bytes6",
	[VMGPU_CNT_LINK_BYTES7] = "hw_link_bytes7",
	[VMGPU_CNT_DEP_ENTRIES] = "hw_dep_entries",
	[VMGPU_CNT_DEP_WAITS] = "hw_dep_waits",
	[VMGPU_CNT_DEP_WAIT_NS] = "hw_dep_wait_ns",
};

/*
 * One line per GPU: "gpuN name value name value ...", the driver's
 * counters then the device's own; then "device jobs_alive N mem_used N
 * mem_limit N" (the leak checks of the stress suite read it).
 */
static int vmgpu_debugfs_counters(struct seq_file *m, void *unused)
{
	struct drm_info_node *node = m->private;
	struct vmgpu_device *vdev = to_vmgpu(node->minor->dev);
	unsigned int g, i;

	for (g = 0; g < vdev->num_gpus; g++) {
		struct vmgpu_gpu *gpu = &vdev->gpu[g];

		seq_printf(m, "gpu%u", g);
		for (i = 0; i < VMGPU_STAT_NUM; i++)
			seq_printf(m, " %s %lld", vmgpu_stat_names[i],
				   atomic64_read(&gpu->stats[i]));
		for (i = 0; i < VMGPU_CNT_NUM; i++) {
			u64 v = vmgpu_gpu_read(gpu, VMGPU_GPU_CNT_LO(i));

			v |= (u64)vmgpu_gpu_read(gpu, VMGPU_GPU_CNT_HI(i)) << 32;
			seq_printf(m, " %s %llu", vmgpu_hw_counter_names[i], v);
		}
		seq_printf(m, " fence %llu irq_fence %llu emitted %llu\n",
			   READ_ONCE(*gpu->fence_cpu), READ_ONCE(gpu->irq_seqno),
			   gpu->emit_seqno);
	}
	seq_printf(m, "device jobs_alive %d mem_used %lld mem_limit %llu\n",
		   atomic_read(&vdev->jobs_alive),
		   (s64)atomic64_read(&vdev->mem_used), vdev->mem_limit);
	return 0;
}

/*
 * One line per open file: "client N name value ..." (DRM's own "clients"
 * file lists the files' owners).
 */
static int vmgpu_debugfs_clients(struct seq_file *m, void *unused)
{
	struct drm_info_node *node = m->private;
	struct vmgpu_device *vdev = to_vmgpu(node->minor->dev);
	struct vmgpu_file *vf;
	unsigned int i;

	mutex_lock(&vdev->files_lock);
	list_for_each_entry(vf, &vdev->files, link) {
		seq_printf(m, "client %llu", vf->client_id);
		for (i = 0; i < VMGPU_STAT_NUM; i++) {
			if (i == VMGPU_STAT_BUSY_NS)
				continue;
			seq_printf(m, " %s %lld", vmgpu_stat_names[i],
				   atomic64_read(&vf->stats[i]));
		}
		for (i = 0; i < vdev->num_gpus; i++)
			seq_printf(m, " busy_ns_gpu%u %lld", i,
				   atomic64_read(&vf->busy_ns[i]));
		seq_puts(m, "\n");
	}
	mutex_unlock(&vdev->files_lock);
	return 0;
}

static const struct drm_info_list vmgpu_debugfs_list[] = {
	{ "regs", vmgpu_debugfs_regs, 0 },
	{ "counters", vmgpu_debugfs_counters, 0 },
	{ "client_counters", vmgpu_debugfs_clients, 0 },
};

/* fdinfo's name of memory region @placement (DRM_VMGPU_PLACEMENT_*). */
static void vmgpu_region_name(char *buf, size_t len, u32 placement)
{
	if (placement == DRM_VMGPU_PLACEMENT_SYSTEM)
		strscpy(buf, "system", len);
	else
		snprintf(buf, len, "gpu%u", placement - 1);
}

/**
 * vmgpu_show_fdinfo() - the DRM fdinfo usage keys of one open file
 * @m: the fdinfo seq_file
 * @f: the DRM file
 *
 * drm-driver, drm-pdev, drm-client-id, drm-engine-gpu<k> (busy time in ns
 * on GPU k) and, per memory region (system, gpu<k>: the buffers'
 * placements), the size of the buffers the file has handles to as
 * drm-total-<region> and drm-memory-<region> (the older name of the same
 * figure) and the part of it with pages as drm-resident-<region>, as in the
 * kernel's Documentation/gpu/drm-usage-stats.rst. A buffer the file holds
 * two handles to counts twice.
 */
void vmgpu_show_fdinfo(struct seq_file *m, struct file *f)
{
	struct drm_file *file = f->private_data;
	struct vmgpu_device *vdev = to_vmgpu(file->minor->dev);
	struct vmgpu_file *vf = file->driver_priv;
	u64 total[1 + VMGPU_MAX_GPUS] = {}, resident[1 + VMGPU_MAX_GPUS] = {};
	struct drm_gem_object *obj;
	char region[16];
	unsigned int i;
	int id;

	seq_printf(m, "drm-driver:\t%s\n", DRIVER_NAME);
	seq_printf(m, "drm-pdev:\t%s\n", pci_name(vdev->pdev));
	seq_printf(m, "drm-client-id:\t%llu\n", vf->client_id);
	for (i = 0; i < vdev->num_gpus; i++)
		seq_printf(m, "drm-engine-gpu%u:\t%lld ns\n", i,
			   atomic64_read(&vf->busy_ns[i]));

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		struct vmgpu_bo *bo = to_vmgpu_bo(obj);
		u32 p = min_t(u32, bo->placement, vdev->num_gpus);

		total[p] += obj->size;
		if (READ_ONCE(bo->base.pages) || READ_ONCE(bo->base.sgt))
			resident[p] += obj->size;
	}
	spin_unlock(&file->table_lock);
	for (i = 0; i <= vdev->num_gpus; i++) {
		vmgpu_region_name(region, sizeof(region), i);
		seq_printf(m, "drm-total-%s:\t%llu KiB\n", region,
			   total[i] >> 10);
		seq_printf(m, "drm-memory-%s:\t%llu KiB\n", region,
			   total[i] >> 10);
		seq_printf(m, "drm-resident-%s:\t%llu KiB\n", region,
			   resident[i] >> 10);
	}
}

void vmgpu_debugfs_init(struct drm_minor *minor)
{
	drm_debugfs_create_files(vmgpu_debugfs_list,
				 ARRAY_SIZE(vmgpu_debugfs_list),
				 minor->debugfs_root, minor);
	vmgpu_devtrace_debugfs_init(to_vmgpu(minor->dev), minor->debugfs_root);
}
