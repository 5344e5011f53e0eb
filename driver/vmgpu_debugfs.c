// SPDX-License-Identifier: GPL-2.0
/*
 * vmgpu: debugfs files under /sys/kernel/debug/dri/<minor>/.
 */
#include <linux/seq_file.h>
#include <drm/drm_debugfs.h>
#include <drm/drm_file.h>

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

static const struct drm_info_list vmgpu_debugfs_list[] = {
	{ "regs", vmgpu_debugfs_regs, 0 },
};

void vmgpu_debugfs_init(struct drm_minor *minor)
{
	drm_debugfs_create_files(vmgpu_debugfs_list,
				 ARRAY_SIZE(vmgpu_debugfs_list),
				 minor->debugfs_root, minor);
}
