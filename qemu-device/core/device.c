// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmgpu device model: the register file and the per-GPU register pages.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "vmgpu_isa.h"

struct vg_gpu_regs {
	uint64_t ring_base;
	uint32_t ring_entries;
	uint32_t ring_head;
	uint32_t ring_tail;
	uint64_t fence_addr;
	uint64_t fence;
	uint32_t int_status;
	uint32_t int_mask;
	uint32_t control;
	uint32_t status;
	uint64_t as_root[VMGPU_AS_SLOTS];
	uint64_t counters[VMGPU_CNT_NUM];
	uint32_t counter_hi_latch;
};

struct vg_device {
	struct vg_config cfg;
	struct vg_host host;
	pthread_mutex_t lock;
	uint32_t scratch;
	struct vg_gpu_regs gpu[VMGPU_MAX_GPUS];
};

void vg_config_defaults(struct vg_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->gpus = VG_DEFAULT_GPUS;
	cfg->sms = VG_DEFAULT_SMS;
	cfg->clock_khz = VG_DEFAULT_CLOCK_KHZ;
	cfg->local_mem_mb = VG_DEFAULT_LOCAL_MB;
}

int vg_config_check(const struct vg_config *cfg, char *err, size_t errlen)
{
	if (cfg->gpus < 1 || cfg->gpus > VMGPU_MAX_GPUS) {
		snprintf(err, errlen, "gpus=%u out of range 1..%u",
			 cfg->gpus, VMGPU_MAX_GPUS);
		return -1;
	}
	if (cfg->sms < 1 || cfg->sms > VMGPU_MAX_SMS) {
		snprintf(err, errlen, "sms=%u out of range 1..%u",
			 cfg->sms, VMGPU_MAX_SMS);
		return -1;
	}
	if (cfg->clock_khz < 1000 || cfg->clock_khz > 10000000) {
		snprintf(err, errlen, "clock-khz=%u out of range 1000..10000000",
			 cfg->clock_khz);
		return -1;
	}
	if (cfg->local_mem_mb < 1 || cfg->local_mem_mb > 1024 * 1024) {
		snprintf(err, errlen, "local-mem-mb=%u out of range 1..1048576",
			 cfg->local_mem_mb);
		return -1;
	}
	return 0;
}

struct vg_device *vg_device_new(const struct vg_config *cfg,
				const struct vg_host *host)
{
	struct vg_device *dev = calloc(1, sizeof(*dev));

	if (!dev)
		return NULL;
	dev->cfg = *cfg;
	dev->host = *host;
	pthread_mutex_init(&dev->lock, NULL);
	vg_device_reset(dev);
	return dev;
}

void vg_device_free(struct vg_device *dev)
{
	if (!dev)
		return;
	pthread_mutex_destroy(&dev->lock);
	free(dev);
}

void vg_device_reset(struct vg_device *dev)
{
	unsigned int i;

	pthread_mutex_lock(&dev->lock);
	dev->scratch = 0;
	memset(dev->gpu, 0, sizeof(dev->gpu));
	for (i = 0; i < dev->cfg.gpus; i++)
		dev->gpu[i].status = VMGPU_STATUS_IDLE;
	pthread_mutex_unlock(&dev->lock);
}

static uint32_t global_read(struct vg_device *dev, uint32_t off)
{
	switch (off) {
	case VMGPU_REG_MAGIC:
		return VMGPU_HW_MAGIC;
	case VMGPU_REG_VERSION:
		return VMGPU_HW_VERSION;
	case VMGPU_REG_NUM_GPUS:
		return dev->cfg.gpus;
	case VMGPU_REG_SMS_PER_GPU:
		return dev->cfg.sms;
	case VMGPU_REG_ISA_VERSION:
		return VMGPU_ISA_VERSION;
	case VMGPU_REG_CAPS:
		return VMGPU_CAP_MMU | VMGPU_CAP_SYNC | VMGPU_CAP_TIMESTAMP |
		       VMGPU_CAP_COPY | VMGPU_CAP_WAIT_VALUE;
	case VMGPU_REG_SCRATCH:
		return dev->scratch;
	case VMGPU_REG_WARP_SIZE:
		return VMGPU_WARP_SIZE;
	case VMGPU_REG_AS_SLOTS:
		return VMGPU_AS_SLOTS;
	case VMGPU_REG_RING_MAX_ENTRIES:
		return VMGPU_RING_MAX_ENTRIES;
	case VMGPU_REG_CMDBUF_MAX_BYTES:
		return VMGPU_CMDBUF_MAX_BYTES;
	case VMGPU_REG_MAX_DISPATCHES:
		return VMGPU_MAX_DISPATCHES_PER_PACKET;
	case VMGPU_REG_CLOCK_KHZ:
		return dev->cfg.clock_khz;
	case VMGPU_REG_LOCAL_MEM_MB:
		return dev->cfg.local_mem_mb;
	default:
		return 0;
	}
}

static void global_write(struct vg_device *dev, uint32_t off, uint32_t val)
{
	if (off == VMGPU_REG_SCRATCH)
		dev->scratch = val;
}

static uint32_t gpu_read(struct vg_gpu_regs *g, uint32_t off)
{
	unsigned int n;

	if (off >= VMGPU_GPU_AS_ROOT_LO(0) &&
	    off < VMGPU_GPU_AS_ROOT_LO(VMGPU_AS_SLOTS)) {
		n = (off - VMGPU_GPU_AS_ROOT_LO(0)) / 8;
		return off & 4 ? g->as_root[n] >> 32 : (uint32_t)g->as_root[n];
	}
	if (off >= VMGPU_GPU_CNT_BASE && off < VMGPU_GPU_CNT_LO(VMGPU_CNT_NUM)) {
		n = (off - VMGPU_GPU_CNT_BASE) / 8;
		if (off & 4)
			return g->counter_hi_latch;
		g->counter_hi_latch = g->counters[n] >> 32;
		return (uint32_t)g->counters[n];
	}
	switch (off) {
	case VMGPU_GPU_RING_BASE_LO:
		return (uint32_t)g->ring_base;
	case VMGPU_GPU_RING_BASE_HI:
		return g->ring_base >> 32;
	case VMGPU_GPU_RING_ENTRIES:
		return g->ring_entries;
	case VMGPU_GPU_RING_HEAD:
		return g->ring_head;
	case VMGPU_GPU_RING_TAIL:
		return g->ring_tail;
	case VMGPU_GPU_FENCE_ADDR_LO:
		return (uint32_t)g->fence_addr;
	case VMGPU_GPU_FENCE_ADDR_HI:
		return g->fence_addr >> 32;
	case VMGPU_GPU_FENCE_LO:
		return (uint32_t)g->fence;
	case VMGPU_GPU_FENCE_HI:
		return g->fence >> 32;
	case VMGPU_GPU_INT_STATUS:
		return g->int_status;
	case VMGPU_GPU_INT_MASK:
		return g->int_mask;
	case VMGPU_GPU_CONTROL:
		return g->control;
	case VMGPU_GPU_STATUS:
		return g->status;
	default:
		return 0;
	}
}

static void set_lo(uint64_t *reg, uint32_t val)
{
	*reg = (*reg & ~0xffffffffull) | val;
}

static void set_hi(uint64_t *reg, uint32_t val)
{
	*reg = (*reg & 0xffffffffull) | ((uint64_t)val << 32);
}

static void gpu_write(struct vg_gpu_regs *g, uint32_t off, uint32_t val)
{
	unsigned int n;

	if (off >= VMGPU_GPU_AS_ROOT_LO(0) &&
	    off < VMGPU_GPU_AS_ROOT_LO(VMGPU_AS_SLOTS)) {
		n = (off - VMGPU_GPU_AS_ROOT_LO(0)) / 8;
		if (off & 4)
			set_hi(&g->as_root[n], val);
		else
			set_lo(&g->as_root[n], val);
		return;
	}
	switch (off) {
	case VMGPU_GPU_RING_BASE_LO:
		set_lo(&g->ring_base, val);
		break;
	case VMGPU_GPU_RING_BASE_HI:
		set_hi(&g->ring_base, val);
		break;
	case VMGPU_GPU_RING_ENTRIES:
		g->ring_entries = val;
		break;
	case VMGPU_GPU_RING_TAIL:
		g->ring_tail = val;
		break;
	case VMGPU_GPU_FENCE_ADDR_LO:
		set_lo(&g->fence_addr, val);
		break;
	case VMGPU_GPU_FENCE_ADDR_HI:
		set_hi(&g->fence_addr, val);
		break;
	case VMGPU_GPU_INT_MASK:
		g->int_mask = val;
		break;
	case VMGPU_GPU_INT_ACK:
		g->int_status &= ~val;
		break;
	case VMGPU_GPU_CONTROL:
		g->control = val & VMGPU_CTRL_ENABLE;
		break;
	default:
		break;
	}
}

uint32_t vg_device_mmio_read(struct vg_device *dev, uint32_t offset)
{
	uint32_t page = offset / VMGPU_REG_PAGE_SIZE;
	uint32_t off = offset % VMGPU_REG_PAGE_SIZE;
	uint32_t val = 0;

	pthread_mutex_lock(&dev->lock);
	if (page == 0)
		val = global_read(dev, off);
	else if (page <= dev->cfg.gpus)
		val = gpu_read(&dev->gpu[page - 1], off);
	pthread_mutex_unlock(&dev->lock);
	return val;
}

void vg_device_mmio_write(struct vg_device *dev, uint32_t offset,
			  uint32_t value)
{
	uint32_t page = offset / VMGPU_REG_PAGE_SIZE;
	uint32_t off = offset % VMGPU_REG_PAGE_SIZE;

	pthread_mutex_lock(&dev->lock);
	if (page == 0)
		global_write(dev, off, value);
	else if (page <= dev->cfg.gpus)
		gpu_write(&dev->gpu[page - 1], off, value);
	pthread_mutex_unlock(&dev->lock);
}

void vg_device_run(struct vg_device *dev)
{
}
