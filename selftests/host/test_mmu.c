// SPDX-License-Identifier: GPL-2.0-only
/*
 * GPU MMU (qemu-device/core/mmu.c): page-table walks, faults, permissions,
 * locations, the per-slot TLB and its invalidation, isolation of slots.
 */
#include <string.h>

#include "kselftest_harness.h"

#include "core/mmu.h"
#include "testhost.h"

#define VA0	0x10000000ull

FIXTURE(mmu) {
	struct testhost *th;
	struct vg_mmu mmu;
	struct th_as a, b;
};

FIXTURE_SETUP(mmu)
{
	self->th = th_new(16 << 20);
	vg_mmu_init(&self->mmu, &self->th->host, 0, 2);
	th_as_init(self->th, &self->a, VA0);
	th_as_init(self->th, &self->b, VA0);
	vg_mmu_set_root(&self->mmu, 0, self->a.root);
	vg_mmu_set_root(&self->mmu, 1, self->b.root);
}

FIXTURE_TEARDOWN(mmu)
{
	th_free(self->th);
}

TEST_F(mmu, walk_maps_page_and_offset)
{
	uint64_t bus = th_alloc(self->th, 2 * VMGPU_PAGE_SIZE);
	struct vg_xlat x;

	th_map(self->th, &self->a, VA0 + 0x5000, bus + VMGPU_PAGE_SIZE,
	       VMGPU_PTE_READ | VMGPU_PTE_WRITE | VMGPU_PTE_LOC(VMGPU_LOC_GPU(1)));
	ASSERT_EQ(VMGPU_FAULT_NONE,
		  vg_mmu_translate(&self->mmu, 0, VA0 + 0x5123, false, &x));
	EXPECT_EQ(self->th->mem + bus + VMGPU_PAGE_SIZE, x.host);
	EXPECT_EQ(VA0 + 0x5000, x.page_va);
	EXPECT_EQ(VMGPU_LOC_GPU(1), x.loc);
	EXPECT_TRUE(x.writable);
	/* A high VA uses all three levels' upper indices. */
	th_map(self->th, &self->a, 0x7ffffff000ull, bus, VMGPU_PTE_READ);
	ASSERT_EQ(VMGPU_FAULT_NONE, vg_mmu_translate(&self->mmu, 0,
						     0x7ffffffffcull, false,
						     &x));
	EXPECT_EQ(self->th->mem + bus, x.host);
	EXPECT_EQ(VMGPU_LOC_SYSTEM, x.loc);
	EXPECT_FALSE(x.writable);
}

TEST_F(mmu, unmapped_faults)
{
	struct vg_xlat x;
	uint64_t bus = th_alloc(self->th, VMGPU_PAGE_SIZE);

	/* No L2 entry at all. */
	EXPECT_EQ(VMGPU_FAULT_UNMAPPED,
		  vg_mmu_translate(&self->mmu, 0, 0x4000000000ull - 0x1000,
				   false, &x));
	/* L2/L1 present, leaf not. */
	th_map(self->th, &self->a, VA0, bus, VMGPU_PTE_READ);
	EXPECT_EQ(VMGPU_FAULT_UNMAPPED,
		  vg_mmu_translate(&self->mmu, 0, VA0 + 0x1000, false, &x));
	/* Beyond 39 bits. */
	EXPECT_EQ(VMGPU_FAULT_UNMAPPED,
		  vg_mmu_translate(&self->mmu, 0, (1ull << 39) | VA0, false,
				   &x));
	/* A page that is not RAM (map_page refuses it). */
	th_map(self->th, &self->a, VA0 + 0x2000, self->th->mem_bytes,
	       VMGPU_PTE_READ);
	EXPECT_EQ(VMGPU_FAULT_UNMAPPED,
		  vg_mmu_translate(&self->mmu, 0, VA0 + 0x2000, false, &x));
	/* Location of a GPU that does not exist (2 GPUs). */
	th_map(self->th, &self->a, VA0 + 0x3000, bus,
	       VMGPU_PTE_READ | VMGPU_PTE_LOC(VMGPU_LOC_GPU(2)));
	EXPECT_EQ(VMGPU_FAULT_UNMAPPED,
		  vg_mmu_translate(&self->mmu, 0, VA0 + 0x3000, false, &x));
	/* Slot without a root, slot out of range. */
	EXPECT_EQ(VMGPU_FAULT_UNMAPPED,
		  vg_mmu_translate(&self->mmu, 2, VA0, false, &x));
	EXPECT_EQ(VMGPU_FAULT_UNMAPPED,
		  vg_mmu_translate(&self->mmu, VMGPU_AS_SLOTS, VA0, false, &x));
	/* The mapped page still works. */
	EXPECT_EQ(VMGPU_FAULT_NONE,
		  vg_mmu_translate(&self->mmu, 0, VA0, false, &x));
}

TEST_F(mmu, permissions)
{
	uint64_t bus = th_alloc(self->th, 2 * VMGPU_PAGE_SIZE);
	struct vg_xlat x;

	th_map(self->th, &self->a, VA0, bus, VMGPU_PTE_READ);
	th_map(self->th, &self->a, VA0 + 0x1000, bus + 0x1000,
	       VMGPU_PTE_WRITE);
	EXPECT_EQ(VMGPU_FAULT_NONE,
		  vg_mmu_translate(&self->mmu, 0, VA0, false, &x));
	EXPECT_EQ(VMGPU_FAULT_PERMISSION,
		  vg_mmu_translate(&self->mmu, 0, VA0, true, &x));
	/* Cached in the TLB now: still refused. */
	EXPECT_EQ(VMGPU_FAULT_PERMISSION,
		  vg_mmu_translate(&self->mmu, 0, VA0 + 8, true, &x));
	EXPECT_EQ(VMGPU_FAULT_PERMISSION,
		  vg_mmu_translate(&self->mmu, 0, VA0 + 0x1000, false, &x));
	EXPECT_EQ(VMGPU_FAULT_NONE,
		  vg_mmu_translate(&self->mmu, 0, VA0 + 0x1000, true, &x));
}

TEST_F(mmu, tlb_hits_and_invalidate)
{
	uint64_t bus = th_alloc(self->th, 2 * VMGPU_PAGE_SIZE);
	struct vg_xlat x;
	uint64_t misses;

	th_map(self->th, &self->a, VA0, bus, VMGPU_PTE_READ);
	th_map(self->th, &self->b, VA0, bus, VMGPU_PTE_READ);
	ASSERT_EQ(0, vg_mmu_translate(&self->mmu, 0, VA0, false, &x));
	ASSERT_EQ(0, vg_mmu_translate(&self->mmu, 1, VA0, false, &x));
	EXPECT_EQ(2, self->mmu.misses);
	ASSERT_EQ(0, vg_mmu_translate(&self->mmu, 0, VA0 + 4, false, &x));
	EXPECT_EQ(1, self->mmu.hits);
	EXPECT_EQ(1, self->mmu.slot_hits[0]);

	/* Remap in memory: the TLB keeps the old page until invalidated. */
	th_map(self->th, &self->a, VA0, bus + 0x1000, VMGPU_PTE_READ);
	ASSERT_EQ(0, vg_mmu_translate(&self->mmu, 0, VA0, false, &x));
	EXPECT_EQ(self->th->mem + bus, x.host);
	/* Invalidating another slot does not help... */
	vg_mmu_invalidate(&self->mmu, 1u << 1);
	ASSERT_EQ(0, vg_mmu_translate(&self->mmu, 0, VA0, false, &x));
	EXPECT_EQ(self->th->mem + bus, x.host);
	/* ...invalidating this one does. */
	misses = self->mmu.misses;
	vg_mmu_invalidate(&self->mmu, 1u << 0);
	ASSERT_EQ(0, vg_mmu_translate(&self->mmu, 0, VA0, false, &x));
	EXPECT_EQ(self->th->mem + bus + 0x1000, x.host);
	EXPECT_EQ(misses + 1, self->mmu.misses);

	/* Unmap + invalidate faults. */
	th_unmap(self->th, &self->a, VA0);
	vg_mmu_invalidate(&self->mmu, 0xff);
	EXPECT_EQ(VMGPU_FAULT_UNMAPPED,
		  vg_mmu_translate(&self->mmu, 0, VA0, false, &x));

	/* A new root flushes that slot. */
	th_map(self->th, &self->b, VA0 + 0x1000, bus, VMGPU_PTE_READ);
	vg_mmu_set_root(&self->mmu, 0, self->b.root);
	EXPECT_EQ(VMGPU_FAULT_NONE,
		  vg_mmu_translate(&self->mmu, 0, VA0 + 0x1000, false, &x));
}

TEST_F(mmu, slots_are_isolated)
{
	uint64_t pa = th_alloc(self->th, VMGPU_PAGE_SIZE);
	uint64_t pb = th_alloc(self->th, VMGPU_PAGE_SIZE);
	struct vg_xlat x;

	/* Same VA, different pages. */
	th_map(self->th, &self->a, VA0, pa, VMGPU_PTE_READ | VMGPU_PTE_WRITE);
	th_map(self->th, &self->b, VA0, pb, VMGPU_PTE_READ | VMGPU_PTE_WRITE);
	/* B maps one more page that A does not. */
	th_map(self->th, &self->b, VA0 + 0x1000, pb,
	       VMGPU_PTE_READ | VMGPU_PTE_WRITE);
	ASSERT_EQ(0, vg_mmu_translate(&self->mmu, 1, VA0, true, &x));
	EXPECT_EQ(self->th->mem + pb, x.host);
	ASSERT_EQ(0, vg_mmu_translate(&self->mmu, 1, VA0 + 0x1000, true, &x));
	/* B's TLB entries do not leak into A. */
	ASSERT_EQ(0, vg_mmu_translate(&self->mmu, 0, VA0, true, &x));
	EXPECT_EQ(self->th->mem + pa, x.host);
	EXPECT_EQ(VMGPU_FAULT_UNMAPPED,
		  vg_mmu_translate(&self->mmu, 0, VA0 + 0x1000, false, &x));
	/* Through the interpreter's interface too. */
	EXPECT_EQ(VMGPU_FAULT_UNMAPPED,
		  vg_mmu_memif(&self->mmu, 0)->translate(
			  vg_mmu_memif(&self->mmu, 0)->opaque, VA0 + 0x1000,
			  false, &x));
	EXPECT_EQ(VMGPU_FAULT_NONE,
		  vg_mmu_memif(&self->mmu, 1)->translate(
			  vg_mmu_memif(&self->mmu, 1)->opaque, VA0 + 0x1000,
			  false, &x));
}

TEST_F(mmu, read_write_across_pages)
{
	uint64_t bus = th_alloc(self->th, 2 * VMGPU_PAGE_SIZE);
	uint64_t by_loc[VMGPU_LOC_COUNT] = { 0 };
	uint8_t in[100], out[100];
	uint64_t fva = 0;
	int i;

	/* Two VA-adjacent pages backed by non-adjacent bus pages. */
	th_map(self->th, &self->a, VA0, bus + 0x1000,
	       VMGPU_PTE_READ | VMGPU_PTE_WRITE);
	th_map(self->th, &self->a, VA0 + 0x1000, bus,
	       VMGPU_PTE_READ | VMGPU_PTE_WRITE |
	       VMGPU_PTE_LOC(VMGPU_LOC_GPU(0)));
	for (i = 0; i < 100; i++)
		in[i] = i;
	ASSERT_EQ(0, vg_mmu_write(&self->mmu, 0, VA0 + 0xfd0, in, 100, &fva,
				  by_loc));
	EXPECT_EQ(48, by_loc[VMGPU_LOC_SYSTEM]);
	EXPECT_EQ(52, by_loc[VMGPU_LOC_GPU(0)]);
	EXPECT_EQ(0, memcmp(self->th->mem + bus + 0x1fd0, in, 48));
	EXPECT_EQ(0, memcmp(self->th->mem + bus, in + 48, 52));
	ASSERT_EQ(0, vg_mmu_read(&self->mmu, 0, VA0 + 0xfd0, out, 100, &fva,
				 NULL));
	EXPECT_EQ(0, memcmp(in, out, 100));
	/* Running off the end faults at the first unmapped byte. */
	EXPECT_EQ(VMGPU_FAULT_UNMAPPED,
		  vg_mmu_read(&self->mmu, 0, VA0 + 0x1fd0, out, 100, &fva,
			      NULL));
	EXPECT_EQ(VA0 + 0x2000, fva);
}

TEST_HARNESS_MAIN
