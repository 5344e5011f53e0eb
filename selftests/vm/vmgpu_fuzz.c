// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM selftests that drive the device's registers directly, with vmgpu.ko
 * unbound: a ring entry written by hand completes and raises its interrupt
 * status, and thousands of random register writes and random ring contents
 * leave QEMU responsive and the device usable.
 *
 * Safety: every bus address given to the device (ring, fence, page-table
 * roots) points into this process's own locked pages, and the page tables
 * map only those pages, so whatever garbage the device is fed it cannot
 * write outside them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "vmgpu_test_util.h"

#define POOL_PAGES	64
#define DRV_DIR		"/sys/bus/pci/drivers/vmgpu"
#define PAGE		VMGPU_PAGE_SIZE

/* Pool page roles. */
enum {
	PG_RING = 0,
	PG_FENCE,
	PG_PT2,
	PG_PT1,
	PG_PT0,
	PG_CMD,		/* command buffer, GPU VA CMD_VA */
	PG_DATA,	/* data, GPU VA DATA_VA */
	PG_FIRST_FREE,
};
#define CMD_VA		0x100000ull
#define DATA_VA		0x101000ull

struct pool {
	uint8_t *mem;
	uint64_t bus[POOL_PAGES];
};

/* The PCI address of the (single) device vmgpu.ko is bound to. */
static int find_bound_device(char *bdf, size_t len)
{
	DIR *d = opendir(DRV_DIR);
	struct dirent *e;
	int ret = -ENODEV;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (strchr(e->d_name, ':')) {
			snprintf(bdf, len, "%s", e->d_name);
			ret = 0;
			break;
		}
	}
	closedir(d);
	return ret;
}

static uint64_t virt_to_bus(const void *p)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	uint64_t ent = 0;
	off_t off = (uintptr_t)p / PAGE * sizeof(ent);

	if (fd < 0)
		return 0;
	if (pread(fd, &ent, sizeof(ent), off) != sizeof(ent))
		ent = 0;
	close(fd);
	if (!(ent & (1ull << 63)))
		return 0;
	return (ent & ((1ull << 55) - 1)) * PAGE;
}

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

FIXTURE(raw) {
	char bdf[256];
	char sysdir[320];
	volatile uint32_t *bar;
	struct pool pool;
	unsigned int gpus;
};

static void reg_w(FIXTURE_DATA(raw) *self, uint32_t off, uint32_t v)
{
	self->bar[off / 4] = v;
}

static uint32_t reg_r(FIXTURE_DATA(raw) *self, uint32_t off)
{
	return self->bar[off / 4];
}

static uint64_t pte(uint64_t bus, uint64_t flags)
{
	return (bus & VMGPU_PTE_ADDR_MASK) | flags;
}

/* Page tables for slot 0: CMD_VA read-only, DATA_VA read-write. */
static void build_page_tables(struct pool *p)
{
	uint64_t *l2 = (uint64_t *)(p->mem + PG_PT2 * PAGE);
	uint64_t *l1 = (uint64_t *)(p->mem + PG_PT1 * PAGE);
	uint64_t *l0 = (uint64_t *)(p->mem + PG_PT0 * PAGE);

	memset(l2, 0, 3 * PAGE);
	l2[VMGPU_PT_INDEX(CMD_VA, 2)] = pte(p->bus[PG_PT1], VMGPU_PTE_VALID);
	l1[VMGPU_PT_INDEX(CMD_VA, 1)] = pte(p->bus[PG_PT0], VMGPU_PTE_VALID);
	l0[VMGPU_PT_INDEX(CMD_VA, 0)] =
		pte(p->bus[PG_CMD], VMGPU_PTE_VALID | VMGPU_PTE_READ);
	l0[VMGPU_PT_INDEX(DATA_VA, 0)] =
		pte(p->bus[PG_DATA], VMGPU_PTE_VALID | VMGPU_PTE_READ |
		    VMGPU_PTE_WRITE);
}

static void setup_gpu(FIXTURE_DATA(raw) *self, unsigned int g)
{
	uint32_t base = VMGPU_GPU_REGS(g);
	struct pool *p = &self->pool;

	reg_w(self, base + VMGPU_GPU_RESET, 1);
	reg_w(self, base + VMGPU_GPU_INT_ACK, ~0u);
	reg_w(self, base + VMGPU_GPU_AS_ROOT_LO(0), (uint32_t)p->bus[PG_PT2]);
	reg_w(self, base + VMGPU_GPU_AS_ROOT_HI(0), p->bus[PG_PT2] >> 32);
	reg_w(self, base + VMGPU_GPU_MMU_INVALIDATE, ~0u);
	reg_w(self, base + VMGPU_GPU_RING_BASE_LO, (uint32_t)p->bus[PG_RING]);
	reg_w(self, base + VMGPU_GPU_RING_BASE_HI, p->bus[PG_RING] >> 32);
	reg_w(self, base + VMGPU_GPU_RING_ENTRIES, PAGE / VMGPU_RING_ENTRY_SIZE);
	reg_w(self, base + VMGPU_GPU_FENCE_ADDR_LO,
	      (uint32_t)(p->bus[PG_FENCE] + 8 * g));
	reg_w(self, base + VMGPU_GPU_FENCE_ADDR_HI, p->bus[PG_FENCE] >> 32);
	reg_w(self, base + VMGPU_GPU_INT_MASK, 0);
	reg_w(self, base + VMGPU_GPU_CONTROL, VMGPU_CTRL_ENABLE);
}

FIXTURE_SETUP(raw)
{
	char path[400];
	uint16_t cmd;
	unsigned int i;
	int fd;

	ASSERT_EQ(0, find_bound_device(self->bdf, sizeof(self->bdf)));
	snprintf(self->sysdir, sizeof(self->sysdir), "/sys/bus/pci/devices/%s",
		 self->bdf);
	ASSERT_EQ(0, write_file(DRV_DIR "/unbind", self->bdf));
	snprintf(path, sizeof(path), "%s/enable", self->sysdir);
	ASSERT_EQ(0, write_file(path, "1"));

	/* Bus mastering, so the device may DMA into our pool. */
	snprintf(path, sizeof(path), "%s/config", self->sysdir);
	fd = open(path, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(2, pread(fd, &cmd, 2, 4));
	cmd |= 0x6;		/* memory space + bus master */
	ASSERT_EQ(2, pwrite(fd, &cmd, 2, 4));
	close(fd);

	snprintf(path, sizeof(path), "%s/resource0", self->sysdir);
	fd = open(path, O_RDWR | O_SYNC);
	ASSERT_LE(0, fd);
	self->bar = mmap(NULL, VMGPU_BAR0_SIZE, PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
	close(fd);
	ASSERT_NE(MAP_FAILED, self->bar);
	ASSERT_EQ(VMGPU_HW_MAGIC, reg_r(self, VMGPU_REG_MAGIC));
	self->gpus = reg_r(self, VMGPU_REG_NUM_GPUS);

	self->pool.mem = mmap(NULL, POOL_PAGES * PAGE, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED |
			      MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, self->pool.mem);
	memset(self->pool.mem, 0, POOL_PAGES * PAGE);
	for (i = 0; i < POOL_PAGES; i++) {
		self->pool.bus[i] = virt_to_bus(self->pool.mem + i * PAGE);
		ASSERT_NE(0, self->pool.bus[i]);
	}
	build_page_tables(&self->pool);
}

FIXTURE_TEARDOWN(raw)
{
	unsigned int g;
	char path[400];
	uint16_t cmd;
	int fd;

	/* Quiesce every GPU before the pool's pages go back to the kernel. */
	for (g = 0; g < self->gpus; g++) {
		reg_w(self, VMGPU_GPU_REGS(g) + VMGPU_GPU_CONTROL, 0);
		reg_w(self, VMGPU_GPU_REGS(g) + VMGPU_GPU_RESET, 1);
	}
	snprintf(path, sizeof(path), "%s/config", self->sysdir);
	fd = open(path, O_RDWR);
	if (fd >= 0) {
		if (pread(fd, &cmd, 2, 4) == 2) {
			cmd &= ~0x4;
			if (pwrite(fd, &cmd, 2, 4) != 2)
				TH_LOG("cannot clear bus master");
		}
		close(fd);
	}
	munmap((void *)self->bar, VMGPU_BAR0_SIZE);
	munmap(self->pool.mem, POOL_PAGES * PAGE);
	EXPECT_EQ(0, write_file(DRV_DIR "/bind", self->bdf));
}

/* Command buffer: TIMESTAMP, WRITE_VALUE @value, END. Returns its bytes. */
static uint32_t build_cmds(struct pool *p, uint32_t value)
{
	uint32_t *c = (uint32_t *)(p->mem + PG_CMD * PAGE);
	struct vmgpu_cmd_timestamp ts = {
		.hdr = VMGPU_CMD_HDR(VMGPU_CMD_TIMESTAMP, VMGPU_CMD_LEN_TIMESTAMP),
		.va = DATA_VA + 8,
	};
	struct vmgpu_cmd_write_value wv = {
		.hdr = VMGPU_CMD_HDR(VMGPU_CMD_WRITE_VALUE,
				     VMGPU_CMD_LEN_WRITE_VALUE),
		.value = value,
		.va = DATA_VA,
	};
	uint32_t n = 0;

	memcpy(c + n, &ts, sizeof(ts));
	n += sizeof(ts) / 4;
	memcpy(c + n, &wv, sizeof(wv));
	n += sizeof(wv) / 4;
	c[n++] = VMGPU_CMD_HDR(VMGPU_CMD_END, VMGPU_CMD_LEN_END);
	return n * 4;
}

static int wait_fence(FIXTURE_DATA(raw) *self, unsigned int g, uint64_t seqno)
{
	int i;

	for (i = 0; i < 2000; i++) {
		if (reg_r(self, VMGPU_GPU_REGS(g) + VMGPU_GPU_FENCE_LO) ==
		    (uint32_t)seqno)
			return 0;
		usleep(1000);
	}
	return -ETIMEDOUT;
}

/* Queue one entry at ring index @slot of GPU @g and ring the doorbell. */
static void submit_entry(FIXTURE_DATA(raw) *self, unsigned int g,
			 uint32_t idx, uint32_t bytes, uint64_t seqno)
{
	struct vmgpu_ring_entry *ring =
		(struct vmgpu_ring_entry *)(self->pool.mem + PG_RING * PAGE);
	uint32_t n = PAGE / VMGPU_RING_ENTRY_SIZE;

	ring[idx % n] = (struct vmgpu_ring_entry) {
		.cmdbuf_va = CMD_VA,
		.cmdbuf_bytes = bytes,
		.flags = VMGPU_RING_F_IRQ,
		.seqno = seqno,
		.as_slot = 0,
	};
	__sync_synchronize();
	reg_w(self, VMGPU_GPU_REGS(g) + VMGPU_GPU_RING_TAIL, (idx + 1) % n);
	reg_w(self, VMGPU_GPU_REGS(g) + VMGPU_GPU_DOORBELL, 1);
}

TEST_F(raw, hand_written_ring_entry_completes_and_interrupts)
{
	volatile uint32_t *data =
		(volatile uint32_t *)(self->pool.mem + PG_DATA * PAGE);
	volatile uint64_t *fence =
		(volatile uint64_t *)(self->pool.mem + PG_FENCE * PAGE);
	unsigned int g;

	for (g = 0; g < self->gpus; g++) {
		uint32_t bytes = build_cmds(&self->pool, 0xc0de0000 | g);

		setup_gpu(self, g);
		data[0] = 0;
		submit_entry(self, g, 0, bytes, 0x1000 + g);
		ASSERT_EQ(0, wait_fence(self, g, 0x1000 + g)) TH_LOG("gpu%u", g);
		EXPECT_EQ(0xc0de0000 | g, data[0]);
		EXPECT_EQ(0x1000 + g, fence[g]);
		EXPECT_NE(0, reg_r(self, VMGPU_GPU_REGS(g) +
				   VMGPU_GPU_INT_STATUS) & VMGPU_INT_COMPLETE);
		EXPECT_EQ(0, reg_r(self, VMGPU_GPU_REGS(g) +
				   VMGPU_GPU_INT_STATUS) & VMGPU_INT_ERROR_MASK);
		reg_w(self, VMGPU_GPU_REGS(g) + VMGPU_GPU_INT_ACK, ~0u);
	}
}

/* Registers whose value is a bus address: kept inside the pool. */
static int is_address_reg(uint32_t off)
{
	uint32_t in_page = off % VMGPU_REG_PAGE_SIZE;

	if (off < VMGPU_REG_PAGE_SIZE)
		return in_page >= VMGPU_REG_TRACE_ADDR_LO &&
		       in_page <= VMGPU_REG_TRACE_SIZE;
	return in_page == VMGPU_GPU_RING_BASE_LO ||
	       in_page == VMGPU_GPU_RING_BASE_HI ||
	       in_page == VMGPU_GPU_FENCE_ADDR_LO ||
	       in_page == VMGPU_GPU_FENCE_ADDR_HI ||
	       (in_page >= VMGPU_GPU_AS_ROOT_LO(0) &&
		in_page < VMGPU_GPU_AS_ROOT_LO(VMGPU_AS_SLOTS));
}

TEST_F(raw, random_registers_and_ring_contents_leave_device_usable)
{
	struct vmgpu_ring_entry *ring =
		(struct vmgpu_ring_entry *)(self->pool.mem + PG_RING * PAGE);
	uint32_t *cmd = (uint32_t *)(self->pool.mem + PG_CMD * PAGE);
	volatile uint32_t *data =
		(volatile uint32_t *)(self->pool.mem + PG_DATA * PAGE);
	const char *seed_env = getenv("VMGPU_FUZZ_SEED");
	unsigned int g, i, round;

	rng_state = seed_env ? strtoull(seed_env, NULL, 0) : 0x9e3779b97f4a7c15ull;
	TH_LOG("seed %#llx", (unsigned long long)rng_state);
	for (g = 0; g < self->gpus; g++)
		setup_gpu(self, g);

	for (round = 0; round < 40; round++) {
		/* Garbage ring entries and command words, sane page tables. */
		for (i = 0; i < PAGE / 8; i++)
			((uint64_t *)ring)[i] = rnd();
		for (i = 0; i < 16; i++) {
			struct vmgpu_ring_entry *e = &ring[rnd() % 128];

			e->cmdbuf_va = rnd() & 1 ? CMD_VA : rnd();
			e->cmdbuf_bytes = rnd() % (2 * PAGE);
			e->as_slot = rnd() % 2 ? 0 : rnd();
		}
		for (i = 0; i < PAGE / 4; i++)
			cmd[i] = rnd() % 4 ? (uint32_t)rnd() :
				 VMGPU_CMD_HDR(rnd() % 17, rnd() % 24);

		/* Random register writes, address registers kept in the pool. */
		for (i = 0; i < 250; i++) {
			uint32_t off = (rnd() % VMGPU_BAR0_SIZE) & ~3u;
			uint32_t val = rnd();

			if (is_address_reg(off))
				val = (off & 4) ? self->pool.bus[0] >> 32 :
				      (uint32_t)self->pool.bus[rnd() % 3];
			if ((off % VMGPU_REG_PAGE_SIZE) == VMGPU_GPU_RING_ENTRIES)
				val = 1u << (rnd() % 8);
			reg_w(self, off, val);
			(void)reg_r(self, (rnd() % VMGPU_BAR0_SIZE) & ~3u);
		}
		/* QEMU must still answer. */
		ASSERT_EQ(VMGPU_HW_MAGIC, reg_r(self, VMGPU_REG_MAGIC));
		/* Keep the page tables intact whatever the device did. */
		build_page_tables(&self->pool);
	}

	/* After a reset every GPU runs a correct packet again. */
	memset(ring, 0, PAGE);
	for (g = 0; g < self->gpus; g++) {
		uint32_t bytes = build_cmds(&self->pool, 0x600d0000 | g);

		setup_gpu(self, g);
		data[0] = 0;
		submit_entry(self, g, 0, bytes, 0x2000 + g);
		ASSERT_EQ(0, wait_fence(self, g, 0x2000 + g)) TH_LOG("gpu%u", g);
		EXPECT_EQ(0x600d0000 | g, data[0]);
	}
}

TEST_HARNESS_MAIN
