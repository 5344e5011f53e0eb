// SPDX-License-Identifier: GPL-2.0-only
/*
 * Region dependencies in the command processor (SPEC R2, R3):
 * DEP_SIGNAL writes a table entry when the blocks of a region finished,
 * DEP_WAIT stalls a GPU's command processor until exactly the entries its
 * consumer portions need are READY in its epoch, with no interrupt and no
 * register access, and continues no earlier than their writes in device
 * time. Command rules and faults are checked too.
 */
#include <string.h>

#include "kselftest_harness.h"

#include "../ref_kernels.h"
#include "testhost.h"
#include "vmgpu_cmd.h"
#include "vmgpu_region.h"

#define VA0 0x20000000ull
#define RW  (VMGPU_PTE_READ | VMGPU_PTE_WRITE)

/* out[ctaid.x] = ctaid.x + 1 after spinning arg 8 times (one thread). */
static const char mark_src[] =
	".args 16\n"
	"	ldarg.64 r0, 0\n"
	"	ldarg r2, 8\n"
	"	mov r3, 0\n"
	"loop:\n"
	"	setp.ge p0, r3, r2\n"
	"	bra p0, done\n"
	"	add r3, r3, 1\n"
	"	bra loop\n"
	"done:\n"
	"	s2r r4, %ctaid.x\n"
	"	add r5, r4, 1\n"
	"	lea r6, r0, r4, 2\n"
	"	st.32 [r6], r5\n"
	"	exit\n";

/* dst[ctaid.x] = src[ctaid.x] (one thread). */
static const char copy_src[] =
	".args 16\n"
	"	ldarg.64 r0, 0\n"
	"	ldarg.64 r2, 8\n"
	"	s2r r4, %ctaid.x\n"
	"	lea r6, r0, r4, 2\n"
	"	ld.32 r5, [r6]\n"
	"	lea r7, r2, r4, 2\n"
	"	st.32 [r7], r5\n"
	"	exit\n";

static const uint32_t one[3] = { 1, 1, 1 };

FIXTURE(deps) {
	struct testhost *th;
	struct vg_device *dev;
	struct th_as as;
	uint64_t mark, copy;
	uint64_t table;		/* 64 entries */
	uint64_t *entry;
};

FIXTURE_SETUP(deps)
{
	struct vg_config c;

	vg_config_defaults(&c);
	c.gpus = 2;
	self->th = th_new(64 << 20);
	self->dev = th_device_new(self->th, &c, 2);
	vg_device_trace_keep(self->dev, true);
	th_gpus_share_as(self->th, &self->as, VA0, 2, 16);
	self->mark = th_kernel(self->th, &self->as, mark_src);
	self->copy = th_kernel(self->th, &self->as, copy_src);
	self->table = th_as_alloc(self->th, &self->as, 64 * 8, RW);
	self->entry = th_va(self->th, &self->as, self->table);
}

FIXTURE_TEARDOWN(deps)
{
	th_free(self->th);
}

static struct vmgpu_region_map map_of(uint8_t kind, uint8_t policy,
				      int32_t vx, int32_t vy)
{
	struct vmgpu_region_map m;

	memset(&m, 0, sizeof(m));
	m.kind = kind;
	m.policy = policy;
	m.v[0] = vx;
	m.v[1] = vy;
	return m;
}

/* A mark dispatch of @n blocks of the index space [0, total) at @origin. */
static void mark_dispatch(struct th_cmdbuf *cb, uint64_t code, uint64_t args,
			  uint32_t origin, uint32_t n, uint32_t total,
			  uint32_t flags)
{
	uint32_t grid[3] = { n, 1, 1 }, org[3] = { origin, 0, 0 };
	uint32_t tot[3] = { total, 1, 1 };
	struct vmgpu_cmd_dispatch d;

	d = vmgpu_encode_dispatch(code, args, 16, grid, one, org, tot, 0, 0);
	d.flags = flags;
	TH_CB_PUT(cb, d);
}

static uint64_t two_ptrs(struct testhost *th, struct th_as *as, uint64_t a,
			 uint64_t b)
{
	uint64_t v[2] = { a, b };

	return th_upload(th, as, v, 16);
}

static uint64_t cnt(struct testhost *th, unsigned int gpu, uint32_t n)
{
	return th_rd64(th, gpu, VMGPU_GPU_CNT_LO(n));
}

/* The BLOCK record of block @block of a dispatch. */
static const struct vmgpu_trace_record *
find_block(struct vg_device *dev, unsigned int gpu, uint64_t seqno,
	   uint32_t dispatch, uint32_t block)
{
	return th_trace_match(dev, VMGPU_TRACE_BLOCK, gpu, seqno, dispatch, block,
			      VMGPU_TRACE_NONE);
}

/*
 * One portion per GPU: GPU 1's consumer waits on the entry GPU 0's
 * producer portion writes, submitted before it, and reads what it wrote.
 * The wait is in memory only: no interrupt, no register write.
 */
TEST_F(deps, coarse_signal_releases_a_waiter_on_another_gpu)
{
	uint64_t data = th_as_alloc(self->th, &self->as, 4096, RW);
	uint64_t out = th_as_alloc(self->th, &self->as, 4096, RW);
	uint32_t *pout = th_va(self->th, &self->as, out);
	struct vmgpu_region_map id = map_of(VMGPU_MAP_IDENTITY, 0, 0, 0);
	uint32_t g4[3] = { 4, 1, 1 }, g1[3] = { 1, 1, 1 }, zero[3] = { 0 };
	const struct vmgpu_trace_record *prod, *cons;
	struct th_cmdbuf cb0, cb1;
	uint64_t mmio, irqs;
	int i;

	/* GPU 1: wait for portion 0 (4 blocks), then copy it. */
	th_cb_init(&cb1);
	th_cb_dep_wait(&cb1, 7, self->table, 64, 0, g1, g1, zero, one, &id);
	th_cb_dispatch(&cb1, self->copy, two_ptrs(self->th, &self->as, data, out),
		       16, g4, one, 0, 0);
	th_cb_end(&cb1);
	th_cb_submit(self->th, &self->as, 1, &cb1, 11);
	vg_device_run(self->dev);
	EXPECT_EQ(0, th_fence_mem(self->th, 1));
	mmio = cnt(self->th, 1, VMGPU_CNT_MMIO_WRITES);
	irqs = cnt(self->th, 1, VMGPU_CNT_INTERRUPTS);

	/* GPU 0: the producer portion, coarse: one region = the portion. */
	th_cb_init(&cb0);
	th_cb_dep_signal(&cb0, 0, 7, self->table, 64, 0, g4);
	mark_dispatch(&cb0, self->mark, two_ptrs(self->th, &self->as, data, 500),
		      0, 4, 4, 0);
	th_cb_end(&cb0);
	th_cb_submit(self->th, &self->as, 0, &cb0, 21);
	vg_device_run(self->dev);

	EXPECT_EQ(21, th_fence_mem(self->th, 0));
	EXPECT_EQ(11, th_fence_mem(self->th, 1));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(i + 1, pout[i]);
	EXPECT_EQ(vmgpu_dep_pack(7, 0, VMGPU_DEP_READY), self->entry[0]);
	EXPECT_EQ(1, cnt(self->th, 0, VMGPU_CNT_DEP_ENTRIES));
	EXPECT_EQ(1, cnt(self->th, 1, VMGPU_CNT_DEP_WAITS));
	EXPECT_LT(0, cnt(self->th, 1, VMGPU_CNT_DEP_WAIT_NS));
	/* Released through memory: GPU 1 saw no register write, no IRQ. */
	EXPECT_EQ(mmio, cnt(self->th, 1, VMGPU_CNT_MMIO_WRITES));
	EXPECT_EQ(irqs + 1, cnt(self->th, 1, VMGPU_CNT_INTERRUPTS));
	/* The consumer starts after the producer's last block, in device time. */
	prod = th_trace_find(self->dev, VMGPU_TRACE_DISPATCH, 0, 21, 0);
	cons = th_trace_find(self->dev, VMGPU_TRACE_DISPATCH, 1, 11, 0);
	ASSERT_NE(NULL, prod);
	ASSERT_NE(NULL, cons);
	EXPECT_LE(prod->end_ns, cons->start_ns);
}

/*
 * An entry from an earlier epoch never satisfies a wait: a table left
 * READY by epoch 3 holds the epoch-4 waiter until epoch 4 writes it.
 */
TEST_F(deps, stale_epoch_does_not_satisfy_a_wait)
{
	uint64_t data = th_as_alloc(self->th, &self->as, 4096, RW);
	struct vmgpu_region_map id = map_of(VMGPU_MAP_IDENTITY, 0, 0, 0);
	uint32_t g1[3] = { 1, 1, 1 }, zero[3] = { 0 };
	struct th_cmdbuf cb0, cb1;

	self->entry[0] = vmgpu_dep_pack(3, 0, VMGPU_DEP_READY);
	self->entry[1] = vmgpu_dep_pack(4, 0, VMGPU_DEP_EMPTY);
	th_cb_init(&cb1);
	th_cb_dep_wait(&cb1, 4, self->table, 64, 0, g1, g1, zero, one, &id);
	th_cb_end(&cb1);
	th_cb_submit(self->th, &self->as, 1, &cb1, 5);
	vg_device_run(self->dev);
	EXPECT_EQ(0, th_fence_mem(self->th, 1));
	/* An EMPTY entry of the right epoch does not either (entry 1). */
	th_cb_init(&cb1);
	th_cb_dep_wait(&cb1, 4, self->table, 64, 1, g1, g1, zero, one, &id);
	th_cb_end(&cb1);
	th_cb_submit(self->th, &self->as, 0, &cb1, 6);
	vg_device_run(self->dev);
	EXPECT_EQ(0, th_fence_mem(self->th, 0));

	/* GPU 0 is busy waiting; the host writes entry 1, then epoch 4's
	 * producer on GPU 0 (after that wait) writes entry 0. */
	self->entry[1] = vmgpu_dep_pack(4, 1, VMGPU_DEP_READY);
	th_doorbell(self->th, 0);
	vg_device_run(self->dev);
	EXPECT_EQ(6, th_fence_mem(self->th, 0));
	EXPECT_EQ(0, th_fence_mem(self->th, 1));
	th_cb_init(&cb0);
	th_cb_dep_signal(&cb0, 0, 4, self->table, 64, 0, g1);
	mark_dispatch(&cb0, self->mark, two_ptrs(self->th, &self->as, data, 10),
		      0, 1, 1, 0);
	th_cb_end(&cb0);
	th_cb_submit(self->th, &self->as, 0, &cb0, 7);
	vg_device_run(self->dev);
	EXPECT_EQ(5, th_fence_mem(self->th, 1));
	EXPECT_EQ(vmgpu_dep_pack(4, 0, VMGPU_DEP_READY), self->entry[0]);
}

/*
 * Fine regions: a sequential producer portion of 8 blocks signals one
 * entry per block. A consumer of region 1 only starts once block 1 is
 * done, long before the producer's last block; a consumer of region 7
 * waits for block 7.
 */
TEST_F(deps, fine_regions_release_consumers_before_the_portion_ends)
{
	uint64_t data = th_as_alloc(self->th, &self->as, 4096, RW);
	uint64_t out = th_as_alloc(self->th, &self->as, 4096, RW);
	uint32_t *pout = th_va(self->th, &self->as, out);
	struct vmgpu_region_map id = map_of(VMGPU_MAP_IDENTITY, 0, 0, 0);
	uint32_t g8[3] = { 8, 1, 1 }, c1[3] = { 1, 0, 0 }, c7[3] = { 7, 0, 0 };
	const struct vmgpu_trace_record *b1, *b7, *prod, *w1, *w7;
	uint64_t args = two_ptrs(self->th, &self->as, data, out);
	struct th_cmdbuf cb0, cb1;
	uint32_t org[3] = { 0 };

	th_cb_init(&cb0);
	th_cb_dep_signal(&cb0, 0, 9, self->table, 64, 0, one);
	mark_dispatch(&cb0, self->mark, two_ptrs(self->th, &self->as, data, 300),
		      0, 8, 8, VMGPU_DISPATCH_F_SEQUENTIAL);
	th_cb_end(&cb0);

	/* GPU 1: region 1's consumer, then region 7's (one block each). */
	th_cb_init(&cb1);
	th_cb_dep_wait(&cb1, 9, self->table, 64, 0, g8, g8, c1, one, &id);
	org[0] = 1;
	TH_CB_PUT(&cb1, vmgpu_encode_dispatch(self->copy, args, 16, one, one,
					      org, g8, 0, 0));
	th_cb_dep_wait(&cb1, 9, self->table, 64, 0, g8, g8, c7, one, &id);
	org[0] = 7;
	TH_CB_PUT(&cb1, vmgpu_encode_dispatch(self->copy, args, 16, one, one,
					      org, g8, 0, 0));
	th_cb_end(&cb1);

	th_cb_submit(self->th, &self->as, 0, &cb0, 1);
	th_cb_submit(self->th, &self->as, 1, &cb1, 2);
	vg_device_run(self->dev);
	ASSERT_EQ(1, th_fence_mem(self->th, 0));
	ASSERT_EQ(2, th_fence_mem(self->th, 1));
	EXPECT_EQ(2, pout[1]);
	EXPECT_EQ(8, pout[7]);
	EXPECT_EQ(0, pout[0]);
	EXPECT_EQ(8, cnt(self->th, 0, VMGPU_CNT_DEP_ENTRIES));

	b1 = find_block(self->dev, 0, 1, 0, 1);
	b7 = find_block(self->dev, 0, 1, 0, 7);
	prod = th_trace_find(self->dev, VMGPU_TRACE_DISPATCH, 0, 1, 0);
	w1 = th_trace_find(self->dev, VMGPU_TRACE_DISPATCH, 1, 2, 0);
	w7 = th_trace_find(self->dev, VMGPU_TRACE_DISPATCH, 1, 2, 1);
	ASSERT_NE(NULL, b1);
	ASSERT_NE(NULL, b7);
	ASSERT_NE(NULL, prod);
	ASSERT_NE(NULL, w1);
	ASSERT_NE(NULL, w7);
	EXPECT_LE(b1->end_ns, w1->start_ns);
	EXPECT_LT(w1->end_ns, prod->end_ns);	/* done before the portion */
	EXPECT_LE(b7->end_ns, w7->start_ns);
}

/*
 * A DEP_WAIT checks exactly the entries its map gives: radius 1 around
 * consumer (1, 1) of a 4 x 3 grid (clamped) needs the 3 x 3 box; entries
 * outside it may stay EMPTY. Then (0, 0) with an upward-left offset and
 * IGNORE needs nothing and does not wait at all.
 */
TEST_F(deps, a_wait_checks_exactly_the_mapped_entries)
{
	struct vmgpu_region_map r1 = map_of(VMGPU_MAP_RADIUS, VMGPU_MAP_CLAMP,
					    1, 1);
	struct vmgpu_region_map up = map_of(VMGPU_MAP_OFFSET, VMGPU_MAP_IGNORE,
					    -1, -1);
	uint32_t g[3] = { 4, 3, 1 }, c[3] = { 1, 1, 0 }, origin[3] = { 0 };
	struct th_cmdbuf cb;
	uint32_t x, y;

	for (y = 0; y < 3; y++)
		for (x = 0; x < 4; x++)
			if (x <= 2)
				self->entry[2 + y * 4 + x] =
					vmgpu_dep_pack(5, 1, VMGPU_DEP_READY);
	/* (1, 1)'s box is x 0..2, y 0..2, all READY; x = 3 is EMPTY. */
	th_cb_init(&cb);
	th_cb_dep_wait(&cb, 5, self->table, 64, 2, g, g, c, one, &r1);
	th_cb_end(&cb);
	th_cb_submit(self->th, &self->as, 0, &cb, 1);
	vg_device_run(self->dev);
	EXPECT_EQ(1, th_fence_mem(self->th, 0));
	EXPECT_EQ(0, cnt(self->th, 0, VMGPU_CNT_DEP_WAITS));
	/* (2, 1)'s box reaches x = 3: it waits. */
	c[0] = 2;
	th_cb_init(&cb);
	th_cb_dep_wait(&cb, 5, self->table, 64, 2, g, g, c, one, &r1);
	th_cb_end(&cb);
	th_cb_submit(self->th, &self->as, 0, &cb, 2);
	vg_device_run(self->dev);
	EXPECT_EQ(1, th_fence_mem(self->th, 0));
	EXPECT_EQ(1, cnt(self->th, 0, VMGPU_CNT_DEP_WAITS));
	for (y = 0; y < 3; y++)
		self->entry[2 + y * 4 + 3] = vmgpu_dep_pack(5, 1, VMGPU_DEP_READY);
	th_doorbell(self->th, 0);
	vg_device_run(self->dev);
	EXPECT_EQ(2, th_fence_mem(self->th, 0));
	/* Offset (-1, -1) from (0, 0), ignored outside: no entry at all. */
	th_cb_init(&cb);
	th_cb_dep_wait(&cb, 6, self->table, 64, 2, g, g, origin, one, &up);
	th_cb_end(&cb);
	th_cb_submit(self->th, &self->as, 0, &cb, 3);
	vg_device_run(self->dev);
	EXPECT_EQ(3, th_fence_mem(self->th, 0));
	EXPECT_EQ(1, cnt(self->th, 0, VMGPU_CNT_DEP_WAITS));
}

/* Submit @cb on GPU 0 expecting error @code at @addr; then recover. */
static void expect_fault(struct __test_metadata *_metadata,
			 FIXTURE_DATA(deps) *self, const struct th_cmdbuf *cb,
			 uint32_t code, uint64_t addr)
{
	static uint64_t seq = 100;
	struct th_cmdbuf good;

	seq++;
	th_cb_submit(self->th, &self->as, 0, cb, seq);
	vg_device_run(self->dev);
	ASSERT_EQ(code, th_rd(self->th, 0, VMGPU_GPU_ERR_CODE));
	if (addr)
		EXPECT_EQ(addr, th_rd64(self->th, 0, VMGPU_GPU_ERR_ADDR_LO));
	EXPECT_EQ(seq, th_fence_mem(self->th, 0));
	th_ack_all(self->th, 0);
	th_cb_init(&good);
	th_cb_end(&good);
	seq++;
	th_cb_submit(self->th, &self->as, 0, &good, seq);
	vg_device_run(self->dev);
	EXPECT_EQ(seq, th_fence_mem(self->th, 0));
	th_ack_all(self->th, 0);
}

TEST_F(deps, bad_signals_and_waits_are_refused)
{
	struct vmgpu_region_map id = map_of(VMGPU_MAP_IDENTITY, 0, 0, 0);
	struct vmgpu_region_map bad = map_of(VMGPU_MAP_RADIUS, 0, 99, 0);
	uint64_t data = th_as_alloc(self->th, &self->as, 4096, RW);
	uint64_t args = two_ptrs(self->th, &self->as, data, 0);
	uint64_t ro = th_as_alloc(self->th, &self->as, 4096, VMGPU_PTE_READ);
	uint32_t g4[3] = { 4, 1, 1 }, g2[3] = { 2, 1, 1 }, zero[3] = { 0 };
	uint32_t g3[3] = { 3, 1, 1 };
	struct th_cmdbuf cb;
	uint32_t at;

	/* Static rules: epoch 0, no entries, first entry outside. */
	th_cb_init(&cb);
	th_cb_dep_signal(&cb, 0, 0, self->table, 64, 0, g4);
	mark_dispatch(&cb, self->mark, args, 0, 4, 4, 0);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	th_cb_init(&cb);
	th_cb_dep_signal(&cb, 0, 1, self->table, 0, 0, g4);
	mark_dispatch(&cb, self->mark, args, 0, 4, 4, 0);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	th_cb_init(&cb);
	th_cb_dep_signal(&cb, 0, 1, self->table, 4, 4, g4);
	mark_dispatch(&cb, self->mark, args, 0, 4, 4, 0);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	/* a zero region side; a misaligned table */
	th_cb_init(&cb);
	th_cb_dep_signal(&cb, 0, 1, self->table, 64, 0, zero);
	mark_dispatch(&cb, self->mark, args, 0, 4, 4, 0);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	th_cb_init(&cb);
	th_cb_dep_signal(&cb, 0, 1, self->table + 4, 64, 0, g4);
	mark_dispatch(&cb, self->mark, args, 0, 4, 4, 0);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_MISALIGNED,
		     self->table + 4);
	/* a signal on an earlier dispatch, or on one that never comes */
	th_cb_init(&cb);
	mark_dispatch(&cb, self->mark, args, 0, 4, 4, 0);
	th_cb_dep_signal(&cb, 0, 1, self->table, 64, 0, g4);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	th_cb_init(&cb);
	th_cb_dep_signal(&cb, 1, 1, self->table, 64, 0, g4);
	mark_dispatch(&cb, self->mark, args, 0, 4, 4, 0);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);

	/* When the dispatch is known: portion not made of whole regions. */
	th_cb_init(&cb);
	at = cb.n;
	th_cb_dep_signal(&cb, 0, 1, self->table, 64, 0, g3);
	mark_dispatch(&cb, self->mark, args, 0, 4, 8, 0);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	EXPECT_EQ(at, th_rd(self->th, 0, VMGPU_GPU_ERR_PC));
	/* ... or whose regions run past the table (8 / 2 = 4 > 63 - 60) */
	th_cb_init(&cb);
	th_cb_dep_signal(&cb, 0, 1, self->table, 64, 61, g2);
	mark_dispatch(&cb, self->mark, args, 0, 4, 8, 0);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	/* a read-only table faults when the entry is written */
	th_cb_init(&cb);
	th_cb_dep_signal(&cb, 0, 1, ro, 64, 0, g4);
	mark_dispatch(&cb, self->mark, args, 0, 4, 4, 0);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_PERMISSION, ro);

	/* DEP_WAIT: consumer box outside its grid, bad map, table too short */
	th_cb_init(&cb);
	th_cb_dep_wait(&cb, 1, self->table, 64, 0, g4, g4, g4, one, &id);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	th_cb_init(&cb);
	th_cb_dep_wait(&cb, 1, self->table, 64, 0, g4, g4, zero, one, &bad);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	th_cb_init(&cb);
	th_cb_dep_wait(&cb, 1, self->table, 3, 0, g4, g4, zero, one, &id);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	/* an unmapped table faults when read */
	th_cb_init(&cb);
	th_cb_dep_wait(&cb, 1, 0x1000, 64, 0, g4, g4, zero, one, &id);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_UNMAPPED, 0x1000);
}

/* out[linear block] += 1 (atomic) after spinning a per-block count. */
static const char count_src[] =
	".args 16\n"
	"	ldarg.64 r0, 0\n"
	"	ldarg r2, 8\n"
	"	s2r r4, %ctaid.x\n"
	"	s2r r5, %ctaid.y\n"
	"	s2r r6, %nctaid.x\n"
	"	mad r4, r5, r6, r4\n"
	"	mul r7, r4, r2\n"
	"	and r7, r7, 1023\n"
	"	mov r3, 0\n"
	"spin:\n"
	"	setp.ge p0, r3, r7\n"
	"	bra p0, done\n"
	"	add r3, r3, 1\n"
	"	bra spin\n"
	"done:\n"
	"	lea r8, r0, r4, 2\n"
	"	mov r10, 1\n"
	"	atom.add r11, [r8], r10\n"
	"	exit\n";

/* @cb: the packet of TAKE @t alone. */
static void take_alone(struct th_cmdbuf *cb, const struct vmgpu_cmd_take *t)
{
	th_cb_init(cb);
	th_cb_raw(cb, VMGPU_CMD_WORDS(t), VMGPU_CMD_NWORDS(t));
	th_cb_end(cb);
}

/* A task descriptor: @code over @total blocks in portions of @grid. */
static uint64_t take_tmd(struct testhost *th, struct th_as *as, uint64_t code,
			 uint64_t args, uint32_t args_bytes,
			 const uint32_t grid[3], const uint32_t block[3],
			 const uint32_t total[3])
{
	struct vmgpu_tmd t;

	memset(&t, 0, sizeof(t));
	t.code_va = code;
	t.args_va = args;
	t.args_bytes = args_bytes;
	memcpy(t.grid, grid, sizeof(t.grid));
	memcpy(t.block, block, sizeof(t.block));
	memcpy(t.grid_total, total, sizeof(t.grid_total));
	return th_upload(th, as, &t, sizeof(t));
}

static struct vmgpu_curve serpentine(uint32_t x, uint32_t y, uint32_t flags,
				     const uint32_t grid[3])
{
	struct vmgpu_curve c;
	uint32_t p[3] = { x, y, 0 };

	memset(&c, 0, sizeof(c));
	c.kind = VMGPU_CURVE_SERPENTINE;
	c.flags = flags;
	c.start = vmgpu_region_linear(grid, p);
	return c;
}

/*
 * Regressions: products of three 32-bit guest values that wrapped to 0 in
 * 64 bits and so passed a bound.
 * - A DEP_SIGNAL's index space of 2^22 x 2^21 x 2^21 regions counted as
 *   0 entries, inside a table of 1: the block at x = 5 wrote entry 5,
 *   outside the table the command names.
 * - A SUPERSET box of 2^22 x 2^21 x 2^21 coordinates counted as 0 <=
 *   VMGPU_MAP_MAX_ENTRIES (the check shared with the driver): a DEP_WAIT's
 *   portion, or a TAKE's, needed 2048 producer entries, written into the
 *   device's buffer of 1024 (a stack overflow in find_needs()).
 */
TEST_F(deps, products_that_wrap_are_refused)
{
	struct vmgpu_region_map box = map_of(VMGPU_MAP_SUPERSET,
					     VMGPU_MAP_CLAMP, 0, 0);
	uint32_t total[3] = { 1u << 22, 1u << 21, 1u << 21 };
	uint32_t org[3] = { 5, 0, 0 }, pg[3] = { 2048, 1, 1 }, zero[3] = { 0 };
	uint64_t data = th_as_alloc(self->th, &self->as, 4096, RW);
	uint64_t args = two_ptrs(self->th, &self->as, data, 0);
	uint64_t big = th_as_alloc(self->th, &self->as, 4096 * 8, RW);
	uint64_t take = th_as_alloc(self->th, &self->as, 2048 * 4, RW);
	uint64_t code = th_kernel(self->th, &self->as, count_src);
	uint64_t tmd = take_tmd(self->th, &self->as, code, take, 16, one, one,
				pg);
	struct vmgpu_curve c = serpentine(0, 0, 0, pg);
	struct vmgpu_cmd_take t;
	struct th_cmdbuf cb;

	th_cb_init(&cb);
	th_cb_dep_signal(&cb, 0, 1, self->table, 1, 0, one);
	TH_CB_PUT(&cb, vmgpu_encode_dispatch(self->mark, args, 16, one, one,
					     org, total, 0, 0));
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	EXPECT_EQ(0, th_rd(self->th, 0, VMGPU_GPU_ERR_PC));
	EXPECT_EQ(0, self->entry[5]);

	memcpy(box.size, total, sizeof(box.size));
	th_cb_init(&cb);
	th_cb_dep_wait(&cb, 1, big, 2048, 0, pg, one, zero, one, &box);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	t = vmgpu_encode_take(1, tmd, take, big, 4096, 0, 2048, 1, pg, &c,
			      &box);
	take_alone(&cb, &t);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
}

/*
 * Dynamic allocation (R7): two GPUs walk their curves over a 6 x 4 grid
 * of portions from opposite corners, claiming portions in shared take
 * words. Whatever the blocks' durations (several seeds), every portion
 * runs exactly once, its entry is written, and both GPUs took some.
 */
TEST_F(deps, take_runs_every_portion_exactly_once)
{
	uint32_t pgrid[3] = { 6, 4, 1 }, one3[3] = { 1, 1, 1 }, seed;
	uint64_t code = th_kernel(self->th, &self->as, count_src);
	uint64_t out = th_as_alloc(self->th, &self->as, 4096, RW);
	uint64_t take = th_as_alloc(self->th, &self->as, 4096, RW);
	uint32_t *pout = th_va(self->th, &self->as, out), i;

	for (seed = 1; seed <= 6; seed++) {
		uint64_t args[2] = { out, seed * 2654435761u };
		uint64_t tmd = take_tmd(self->th, &self->as, code,
					th_upload(self->th, &self->as, args, 16),
					16, one3, one3, pgrid);
		struct vmgpu_curve c0 = serpentine(0, 1, 0, pgrid);
		struct vmgpu_curve c1 = serpentine(5, 2, VMGPU_CURVE_F_FLIP_X |
						   VMGPU_CURVE_F_FLIP_Y, pgrid);
		uint64_t d0 = cnt(self->th, 0, VMGPU_CNT_DISPATCHES);
		uint64_t d1 = cnt(self->th, 1, VMGPU_CNT_DISPATCHES);
		struct th_cmdbuf cb;
		struct vmgpu_cmd_take t;

		memset(pout, 0, 24 * 4);
		t = vmgpu_encode_take(seed, tmd, take, self->table, 64, 0,
				      VMGPU_TAKE_NO_WAIT, 1 + seed % 3, pgrid,
				      &c0, NULL);
		take_alone(&cb, &t);
		th_cb_submit(self->th, &self->as, 0, &cb, 100 + seed);
		memcpy(t.curve, &c1, sizeof(t.curve));
		take_alone(&cb, &t);
		th_cb_submit(self->th, &self->as, 1, &cb, 100 + seed);
		vg_device_run(self->dev);
		ASSERT_EQ(100 + seed, th_fence_mem(self->th, 0));
		ASSERT_EQ(100 + seed, th_fence_mem(self->th, 1));
		for (i = 0; i < 24; i++) {
			EXPECT_EQ(1, pout[i]) {
				TH_LOG("seed %u portion %u ran %u times", seed,
				       i, pout[i]);
			}
			EXPECT_TRUE(vmgpu_dep_satisfies(self->entry[i], seed));
		}
		d0 = cnt(self->th, 0, VMGPU_CNT_DISPATCHES) - d0;
		d1 = cnt(self->th, 1, VMGPU_CNT_DISPATCHES) - d1;
		EXPECT_EQ(24, d0 + d1);
		EXPECT_LT(0, d0);
		EXPECT_LT(0, d1);
	}
}

/*
 * out[linear block] = its index + 1, after spinning a per-block count,
 * 3000 more on GPUs other than 0 (so GPU 0 runs ahead).
 */
static const char mark2d_src[] =
	".args 16\n"
	"	ldarg.64 r0, 0\n"
	"	ldarg r2, 8\n"
	"	s2r r4, %ctaid.x\n"
	"	s2r r5, %ctaid.y\n"
	"	s2r r6, %nctaid.x\n"
	"	mad r4, r5, r6, r4\n"
	"	mul r7, r4, r2\n"
	"	and r7, r7, 1023\n"
	"	s2r r9, %gpuid\n"
	"	setp.ne p1, r9, 0\n"
	"	mov r11, 3000\n"
	"	mov r12, 0\n"
	"	sel r11, p1, r11, r12\n"
	"	add r7, r7, r11\n"
	"	mov r3, 0\n"
	"spin:\n"
	"	setp.ge p0, r3, r7\n"
	"	bra p0, done\n"
	"	add r3, r3, 1\n"
	"	bra spin\n"
	"done:\n"
	"	lea r8, r0, r4, 2\n"
	"	add r10, r4, 1\n"
	"	st.32 [r8], r10\n"
	"	exit\n";


/*
 * Two kernels taken dynamically by both GPUs over 6 x 4 one-block
 * portions: the first marks each portion after a per-portion delay (seeded,
 * longer on GPU 1), the second blurs the marks (one pixel a portion), so
 * reads every neighbour, starting where the other GPU marked last; it
 * waits for them (radius 1). For every seed the blur is the CPU's: no
 * portion read a neighbour before it was written.
 */
TEST_F(deps, taken_portions_wait_for_the_portions_they_read)
{
	uint32_t pgrid[3] = { 6, 4, 1 }, one3[3] = { 1, 1, 1 }, k, gpu, seed;
	uint64_t mark = th_kernel(self->th, &self->as, mark2d_src);
	uint64_t blur = th_builtin(self->th, &self->as, "blur3x3");
	uint64_t take = th_as_alloc(self->th, &self->as, 4096, RW);
	uint64_t a = th_as_alloc(self->th, &self->as, 4096, RW);
	uint64_t b = th_as_alloc(self->th, &self->as, 4096, RW);
	struct vmgpu_region_map r1 = map_of(VMGPU_MAP_RADIUS, VMGPU_MAP_IGNORE,
					    1, 1);
	uint32_t *pa = th_va(self->th, &self->as, a);
	float *pb = th_va(self->th, &self->as, b), ref[24], marks[24];
	struct { uint32_t w, h; uint64_t in, out; } ba = { 6, 4, a, b };
	uint64_t tmd_blur = take_tmd(self->th, &self->as, blur,
				     th_upload(self->th, &self->as, &ba, 24), 24,
				     one3, one3, pgrid);

	for (k = 0; k < 24; k++) {
		uint32_t v = k + 1;

		memcpy(&marks[k], &v, 4);	/* the marks as f32 bits */
	}
	ref_blur3x3(marks, ref, 6, 4);
	for (seed = 1; seed <= 6; seed++) {
		uint64_t args[2] = { a, seed * 2654435761u };
		uint64_t tmd_mark = take_tmd(self->th, &self->as, mark,
					     th_upload(self->th, &self->as, args, 16),
					     16, one3, one3, pgrid);

		memset(pa, 0, 24 * 4);
		memset(pb, 0, 24 * 4);
		for (gpu = 0; gpu < 2; gpu++) {
			struct vmgpu_curve c =
				serpentine(gpu ? 5 : 0, gpu ? 3 : 0,
					   gpu ? VMGPU_CURVE_F_FLIP_X |
						 VMGPU_CURVE_F_FLIP_Y : 0,
					   pgrid);
			/* The blur starts where the other GPU marked last. */
			struct vmgpu_curve c2 =
				serpentine(gpu ? 0 : 5, gpu ? 0 : 3,
					   gpu ? 0 : VMGPU_CURVE_F_FLIP_X |
						     VMGPU_CURVE_F_FLIP_Y,
					   pgrid);
			struct th_cmdbuf cb;

			th_cb_init(&cb);
			/* marks: entries 0..23; the blur waits on them */
			TH_CB_PUT(&cb, vmgpu_encode_take(seed, tmd_mark, take,
							 self->table, 64, 0,
							 VMGPU_TAKE_NO_WAIT, 2,
							 pgrid, &c, NULL));
			TH_CB_PUT(&cb, vmgpu_encode_take(seed, tmd_blur,
							 take + 1024,
							 self->table, 64, 24, 0,
							 2, pgrid, &c2, &r1));
			th_cb_end(&cb);
			th_cb_submit(self->th, &self->as, gpu, &cb, 10 + seed);
		}
		vg_device_run(self->dev);
		ASSERT_EQ(10 + seed, th_fence_mem(self->th, 0));
		ASSERT_EQ(10 + seed, th_fence_mem(self->th, 1));
		EXPECT_EQ(0, memcmp(ref, pb, sizeof(ref))) {
			TH_LOG("seed %u", seed);
		}
	}
	EXPECT_LT(0, cnt(self->th, 0, VMGPU_CNT_DEP_WAITS) +
		     cnt(self->th, 1, VMGPU_CNT_DEP_WAITS));
}

TEST_F(deps, bad_takes_are_refused)
{
	uint32_t pgrid[3] = { 6, 4, 1 }, one3[3] = { 1, 1, 1 }, big[3] = { 2, 1, 1 };
	uint64_t take = th_as_alloc(self->th, &self->as, 4096, RW);
	uint64_t code = th_kernel(self->th, &self->as, count_src);
	uint64_t tmd = take_tmd(self->th, &self->as, code, take, 16, one3, one3,
				pgrid);
	uint64_t tmd2 = take_tmd(self->th, &self->as, code, take, 16, big, one3,
				 pgrid);
	struct vmgpu_curve c = serpentine(0, 0, 0, pgrid);
	struct vmgpu_region_map id = map_of(VMGPU_MAP_IDENTITY, 0, 0, 0);
	struct vmgpu_cmd_take t;
	struct th_cmdbuf cb;

	/* epoch 0; no in-flight; a curve starting outside; table too short */
	t = vmgpu_encode_take(0, tmd, take, self->table, 64, 0,
			      VMGPU_TAKE_NO_WAIT, 1, pgrid, &c, NULL);
	take_alone(&cb, &t);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	t = vmgpu_encode_take(1, tmd, take, self->table, 64, 0,
			      VMGPU_TAKE_NO_WAIT, 0, pgrid, &c, NULL);
	take_alone(&cb, &t);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	c.start = 24;
	t = vmgpu_encode_take(1, tmd, take, self->table, 64, 0,
			      VMGPU_TAKE_NO_WAIT, 1, pgrid, &c, NULL);
	take_alone(&cb, &t);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	c.start = 0;
	t = vmgpu_encode_take(1, tmd, take, self->table, 30, 10, 0, 1, pgrid,
			      &c, &id);
	take_alone(&cb, &t);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	/* a descriptor whose portions are not the grid's: at its address */
	t = vmgpu_encode_take(1, tmd2, take, self->table, 64, 0,
			      VMGPU_TAKE_NO_WAIT, 1, pgrid, &c, NULL);
	take_alone(&cb, &t);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, tmd2);
	/* read-only take words: the claim faults */
	t = vmgpu_encode_take(1, tmd, th_as_alloc(self->th, &self->as, 4096,
						  VMGPU_PTE_READ),
			      self->table, 64, 0, VMGPU_TAKE_NO_WAIT, 1, pgrid,
			      &c, NULL);
	take_alone(&cb, &t);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_PERMISSION, 0);
}

/* COPY_ASYNC of @bytes from @src to @dst (one row). */
static void copy_async(struct th_cmdbuf *cb, uint64_t src, uint64_t dst,
		       uint32_t bytes, uint32_t epoch, uint64_t after_table,
		       uint32_t after_index, uint64_t signal_table,
		       uint32_t signal_index)
{
	struct vmgpu_cmd_copy rect = vmgpu_encode_copy(src, dst, bytes, 1, 0, 0);

	TH_CB_PUT(cb, vmgpu_encode_copy_async(&rect, epoch, after_table,
					      after_index, signal_table,
					      signal_index));
}

/* The copy engine's record of the copy that signalled @entry (or any). */
static const struct vmgpu_trace_record *
find_copy(struct vg_device *dev, unsigned int gpu, uint64_t seqno,
	  uint32_t op, uint32_t entry)
{
	return th_trace_match(dev, VMGPU_TRACE_CMD, gpu, seqno,
			      VMGPU_TRACE_NONE, entry, op);
}

/*
 * A COPY_ASYNC runs on the copy engine while the dispatch after it runs
 * on the SMs; END (the fence) waits for it. The same packet with a COPY
 * runs the dispatch only after the copy.
 */
TEST_F(deps, async_copies_overlap_dispatches_and_end_waits_for_them)
{
	uint64_t src = th_as_alloc(self->th, &self->as, 256 << 10, RW);
	uint64_t dst = th_as_alloc(self->th, &self->as, 256 << 10, RW);
	uint64_t data = th_as_alloc(self->th, &self->as, 4096, RW);
	uint64_t args = two_ptrs(self->th, &self->as, data, 3000);
	uint8_t *psrc = th_va(self->th, &self->as, src);
	uint8_t *pdst = th_va(self->th, &self->as, dst);
	const struct vmgpu_trace_record *cp, *d;
	uint64_t makespan[2];
	struct th_cmdbuf cb;
	int i, sync;

	for (i = 0; i < (256 << 10); i++)
		psrc[i] = (uint8_t)(i * 7 + 1);
	for (sync = 0; sync < 2; sync++) {
		memset(pdst, 0, 256 << 10);
		th_cb_init(&cb);
		if (sync)
			th_cb_copy(&cb, src, dst, 256 << 10, 1, 0, 0);
		else
			copy_async(&cb, src, dst, 256 << 10, 0, 0, 0, 0, 0);
		mark_dispatch(&cb, self->mark, args, 0, 4, 4, 0);
		th_cb_end(&cb);
		th_cb_submit(self->th, &self->as, 0, &cb, 30 + sync);
		vg_device_run(self->dev);
		ASSERT_EQ(30 + sync, th_fence_mem(self->th, 0));
		EXPECT_EQ(0, memcmp(psrc, pdst, 256 << 10));
		cp = find_copy(self->dev, 0, 30 + sync,
			       sync ? VMGPU_CMD_COPY : VMGPU_CMD_COPY_ASYNC,
			       VMGPU_TRACE_NONE);
		d = th_trace_find(self->dev, VMGPU_TRACE_DISPATCH, 0, 30 + sync,
				  0);
		ASSERT_NE(NULL, cp);
		ASSERT_NE(NULL, d);
		EXPECT_EQ(256 << 10, cp->value);
		if (sync) {
			EXPECT_LE(cp->end_ns, d->start_ns);
		} else {
			/* the dispatch starts while the copy runs */
			EXPECT_LT(cp->start_ns, d->start_ns);
			EXPECT_LT(d->start_ns, cp->end_ns);
		}
		makespan[sync] = th_trace_find(self->dev, VMGPU_TRACE_PACKET,
					       0, 30 + sync, VMGPU_TRACE_NONE)
				 ->end_ns;
		makespan[sync] -= th_trace_find(self->dev, VMGPU_TRACE_PACKET,
						0, 30 + sync, VMGPU_TRACE_NONE)
				  ->start_ns;
		EXPECT_LE(cp->end_ns, th_trace_find(self->dev,
						    VMGPU_TRACE_PACKET, 0,
						    30 + sync,
						    VMGPU_TRACE_NONE)->end_ns);
	}
	EXPECT_LT(makespan[0], makespan[1]);
}

/*
 * Push: GPU 0's producer portion signals one entry per block; copies
 * queued behind it start as soon as their region's entry is written (not
 * when the portion ends), and signal the entries GPU 1 waits for. GPU 1
 * continues once the copy of the region it reads has landed.
 */
TEST_F(deps, async_copy_after_an_entry_pushes_a_region_once_it_is_done)
{
	uint64_t data = th_as_alloc(self->th, &self->as, 4096, RW);
	uint64_t out = th_as_alloc(self->th, &self->as, 4096, RW);
	uint64_t stamp = th_as_alloc(self->th, &self->as, 4096, RW);
	uint32_t *pout = th_va(self->th, &self->as, out);
	uint64_t *pstamp = th_va(self->th, &self->as, stamp);
	struct vmgpu_region_map id = map_of(VMGPU_MAP_IDENTITY, 0, 0, 0);
	uint32_t g1[3] = { 1, 1, 1 }, zero[3] = { 0 };
	const struct vmgpu_trace_record *b1, *b7, *prod, *c1, *c7;
	struct th_cmdbuf cb0, cb1;

	th_cb_init(&cb0);
	th_cb_dep_signal(&cb0, 0, 9, self->table, 64, 0, one);
	mark_dispatch(&cb0, self->mark, two_ptrs(self->th, &self->as, data, 300),
		      0, 8, 8, VMGPU_DISPATCH_F_SEQUENTIAL);
	copy_async(&cb0, data + 4, out + 4, 4, 9, self->table, 1, self->table,
		   41);
	copy_async(&cb0, data + 28, out + 28, 4, 9, self->table, 7,
		   self->table, 47);
	th_cb_end(&cb0);
	th_cb_init(&cb1);
	th_cb_dep_wait(&cb1, 9, self->table, 64, 41, g1, g1, zero, one, &id);
	th_cb_timestamp(&cb1, stamp);
	th_cb_end(&cb1);
	th_cb_submit(self->th, &self->as, 1, &cb1, 2);
	th_cb_submit(self->th, &self->as, 0, &cb0, 1);
	vg_device_run(self->dev);
	ASSERT_EQ(1, th_fence_mem(self->th, 0));
	ASSERT_EQ(2, th_fence_mem(self->th, 1));
	EXPECT_EQ(2, pout[1]);
	EXPECT_EQ(8, pout[7]);
	EXPECT_EQ(0, pout[0]);
	EXPECT_EQ(vmgpu_dep_pack(9, 0, VMGPU_DEP_READY), self->entry[41]);
	EXPECT_EQ(vmgpu_dep_pack(9, 0, VMGPU_DEP_READY), self->entry[47]);

	b1 = find_block(self->dev, 0, 1, 0, 1);
	b7 = find_block(self->dev, 0, 1, 0, 7);
	prod = th_trace_find(self->dev, VMGPU_TRACE_DISPATCH, 0, 1, 0);
	c1 = find_copy(self->dev, 0, 1, VMGPU_CMD_COPY_ASYNC, 41);
	c7 = find_copy(self->dev, 0, 1, VMGPU_CMD_COPY_ASYNC, 47);
	ASSERT_NE(NULL, b1);
	ASSERT_NE(NULL, b7);
	ASSERT_NE(NULL, prod);
	ASSERT_NE(NULL, c1);
	ASSERT_NE(NULL, c7);
	EXPECT_LE(b1->end_ns, c1->start_ns);
	EXPECT_LT(c1->end_ns, prod->end_ns);	/* pushed during the portion */
	EXPECT_LE(b7->end_ns, c7->start_ns);
	EXPECT_LE(c1->end_ns, pstamp[0]);
	EXPECT_LT(pstamp[0], prod->end_ns);
	/* No CPU: one interrupt per packet, no register write in between. */
	EXPECT_EQ(1, cnt(self->th, 1, VMGPU_CNT_INTERRUPTS));
}

/*
 * More copies than the queue holds: the CP waits for room, every copy
 * lands, in order. A COPY after COPY_ASYNCs waits for them.
 */
TEST_F(deps, a_full_copy_queue_holds_the_command_processor)
{
	uint64_t src = th_as_alloc(self->th, &self->as, 4096, RW);
	uint64_t dst = th_as_alloc(self->th, &self->as, 4096, RW);
	uint64_t dst2 = th_as_alloc(self->th, &self->as, 4096, RW);
	uint32_t *psrc = th_va(self->th, &self->as, src);
	uint32_t *pdst = th_va(self->th, &self->as, dst);
	uint32_t *pdst2 = th_va(self->th, &self->as, dst2);
	struct th_cmdbuf cb;
	uint32_t i, n = VMGPU_COPY_QUEUE_DEPTH + 30;

	for (i = 0; i < 1024; i++)
		psrc[i] = i ^ 0x5a5a;
	th_cb_init(&cb);
	/* word i of src to word i of dst, then dst to dst2 by one COPY */
	for (i = 0; i < n; i++)
		copy_async(&cb, src + 4 * i, dst + 4 * i, 4, 0, 0, 0, 0, 0);
	th_cb_copy(&cb, dst, dst2, 4 * n, 1, 0, 0);
	th_cb_end(&cb);
	th_cb_submit(self->th, &self->as, 0, &cb, 50);
	vg_device_run(self->dev);
	ASSERT_EQ(50, th_fence_mem(self->th, 0));
	EXPECT_EQ(0, th_rd(self->th, 0, VMGPU_GPU_ERR_CODE));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(i ^ 0x5a5a, pdst[i]);
		EXPECT_EQ(i ^ 0x5a5a, pdst2[i]);
	}
	EXPECT_EQ(0, pdst[n]);
}

TEST_F(deps, bad_async_copies_are_refused)
{
	uint64_t buf = th_as_alloc(self->th, &self->as, 4096, RW);
	uint64_t ro = th_as_alloc(self->th, &self->as, 4096, VMGPU_PTE_READ);
	struct vmgpu_cmd_copy rect = vmgpu_encode_copy(buf, buf + 64, 16, 1, 0, 0);
	struct vmgpu_cmd_copy_async c;
	struct th_cmdbuf cb;
	uint32_t at;

	/* Static rules: unknown flag, epoch 0, fields without their flag. */
	c = vmgpu_encode_copy_async(&rect, 1, 0, 0, self->table, 0);
	c.flags |= 1u << 7;
	th_cb_init(&cb);
	TH_CB_PUT(&cb, c);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	c = vmgpu_encode_copy_async(&rect, 0, 0, 0, self->table, 0);
	th_cb_init(&cb);
	TH_CB_PUT(&cb, c);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	c = vmgpu_encode_copy_async(&rect, 1, 0, 0, 0, 0);
	c.after_index = 3;
	th_cb_init(&cb);
	TH_CB_PUT(&cb, c);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
	c = vmgpu_encode_copy_async(&rect, 1, self->table + 4, 0, 0, 0);
	th_cb_init(&cb);
	TH_CB_PUT(&cb, c);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_MISALIGNED,
		     self->table + 4);
	rect.height = 2;	/* pitch 0 below the width */
	c = vmgpu_encode_copy_async(&rect, 0, 0, 0, 0, 0);
	th_cb_init(&cb);
	TH_CB_PUT(&cb, c);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);

	/* Run-time faults name the COPY_ASYNC's word: an unmapped source, */
	rect = vmgpu_encode_copy(0x1000, buf, 16, 1, 0, 0);
	th_cb_init(&cb);
	th_cb_nop(&cb);
	at = cb.n;
	TH_CB_PUT(&cb, vmgpu_encode_copy_async(&rect, 0, 0, 0, 0, 0));
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_UNMAPPED, 0x1000);
	EXPECT_EQ(at, th_rd(self->th, 0, VMGPU_GPU_ERR_PC));
	/* a read-only signal table, when the entry is written, */
	rect = vmgpu_encode_copy(buf, buf + 64, 16, 1, 0, 0);
	th_cb_init(&cb);
	at = cb.n;
	TH_CB_PUT(&cb, vmgpu_encode_copy_async(&rect, 2, 0, 0, ro, 5));
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_PERMISSION, ro + 40);
	EXPECT_EQ(at, th_rd(self->th, 0, VMGPU_GPU_ERR_PC));
	/* an unmapped entry to wait for. */
	th_cb_init(&cb);
	TH_CB_PUT(&cb, vmgpu_encode_copy_async(&rect, 2, 0x2000, 1, 0, 0));
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_UNMAPPED, 0x2008);
}

/*
 * Hybrid movement: GPU 1 starts an in-place replicating copy of a buffer
 * that lives on GPU 0 and reads it at once (remotely: the copy has not
 * landed); after waiting for the copy's entry it reads it again, locally.
 * A later packet reads remotely again (replicas last one packet).
 */
TEST_F(deps, replicated_pages_are_read_locally_once_the_copy_lands)
{
	uint64_t src = th_as_alloc(self->th, &self->as, 16384,
				   RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(0)));
	uint64_t out = th_as_alloc(self->th, &self->as, 16384,
				   RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(1)));
	uint32_t *psrc = th_va(self->th, &self->as, src);
	uint32_t *pout = th_va(self->th, &self->as, out);
	uint64_t args = two_ptrs(self->th, &self->as, src, out);
	struct vmgpu_region_map id = map_of(VMGPU_MAP_IDENTITY, 0, 0, 0);
	uint32_t g1[3] = { 1, 1, 1 }, zero[3] = { 0 }, g[3] = { 4096, 1, 1 };
	struct vmgpu_cmd_copy rect = vmgpu_encode_copy(src, src, 16384, 1, 0, 0);
	struct vmgpu_cmd_copy_async c;
	uint64_t rr[4], link0, link1;
	struct th_cmdbuf cb;
	int i;

	for (i = 0; i < 4096; i++)
		psrc[i] = 3 * i + 1;
	/* The copy waits for the dispatch's entry: it lands after it. */
	c = vmgpu_encode_copy_async(&rect, 5, self->table, 8, self->table, 9);
	c.flags |= VMGPU_COPY_REPLICATE;
	th_cb_init(&cb);
	th_cb_dep_signal(&cb, 0, 5, self->table, 64, 8, g);
	TH_CB_PUT(&cb, c);
	th_cb_dispatch(&cb, self->copy, args, 16, g, one, 0, 0);
	th_cb_end(&cb);
	rr[0] = cnt(self->th, 1, VMGPU_CNT_BYTES_REMOTE_READ);
	link0 = cnt(self->th, 1, VMGPU_CNT_LINK_BYTES0);
	th_cb_submit(self->th, &self->as, 1, &cb, 60);
	vg_device_run(self->dev);
	ASSERT_EQ(60, th_fence_mem(self->th, 1));
	rr[1] = cnt(self->th, 1, VMGPU_CNT_BYTES_REMOTE_READ);
	link1 = cnt(self->th, 1, VMGPU_CNT_LINK_BYTES0);
	/* the dispatch read all of src remotely; the copy moved it too */
	EXPECT_EQ(16384, rr[1] - rr[0]);
	EXPECT_EQ(2 * 16384, link1 - link0);
	EXPECT_EQ(vmgpu_dep_pack(5, 1, VMGPU_DEP_READY), self->entry[9]);

	/* Now wait for the copy before reading. */
	c = vmgpu_encode_copy_async(&rect, 6, 0, 0, self->table, 9);
	c.flags |= VMGPU_COPY_REPLICATE;
	th_cb_init(&cb);
	TH_CB_PUT(&cb, c);
	th_cb_dep_wait(&cb, 6, self->table, 64, 9, g1, g1, zero, one, &id);
	th_cb_dispatch(&cb, self->copy, args, 16, g, one, 0, 0);
	th_cb_end(&cb);
	th_cb_submit(self->th, &self->as, 1, &cb, 61);
	vg_device_run(self->dev);
	ASSERT_EQ(61, th_fence_mem(self->th, 1));
	rr[2] = cnt(self->th, 1, VMGPU_CNT_BYTES_REMOTE_READ);
	EXPECT_EQ(0, rr[2] - rr[1]);	/* read from the replica */
	for (i = 0; i < 4096; i++)
		ASSERT_EQ(3 * i + 1, pout[i]);
	EXPECT_EQ(vmgpu_dep_pack(6, 1, VMGPU_DEP_READY), self->entry[9]);

	/* A new packet has no replica: remote again. */
	th_cb_init(&cb);
	th_cb_dispatch(&cb, self->copy, args, 16, g, one, 0, 0);
	th_cb_end(&cb);
	link0 = cnt(self->th, 1, VMGPU_CNT_LINK_BYTES0);
	th_cb_submit(self->th, &self->as, 1, &cb, 62);
	vg_device_run(self->dev);
	rr[3] = cnt(self->th, 1, VMGPU_CNT_BYTES_REMOTE_READ);
	link1 = cnt(self->th, 1, VMGPU_CNT_LINK_BYTES0);
	EXPECT_EQ(16384, rr[3] - rr[2]);
	EXPECT_EQ(16384, link1 - link0);

	/* Not in place: refused. */
	rect = vmgpu_encode_copy(src, out, 16384, 1, 0, 0);
	c = vmgpu_encode_copy_async(&rect, 0, 0, 0, 0, 0);
	c.flags |= VMGPU_COPY_REPLICATE;
	th_cb_init(&cb);
	TH_CB_PUT(&cb, c);
	th_cb_end(&cb);
	expect_fault(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND, 0);
}

/*
 * A copy waiting for an entry that never comes holds its packet (END
 * waits for it); a GPU reset drops it with the queue, and the GPU runs
 * the next packet, its copies included.
 */
TEST_F(deps, a_reset_drops_copies_waiting_for_their_entry)
{
	uint64_t buf = th_as_alloc(self->th, &self->as, 4096, RW);
	uint32_t *p = th_va(self->th, &self->as, buf);
	struct th_cmdbuf cb;

	p[0] = 77;
	th_cb_init(&cb);
	copy_async(&cb, buf, buf + 64, 4, 3, self->table, 20, 0, 0);
	th_cb_end(&cb);
	th_cb_submit(self->th, &self->as, 0, &cb, 90);
	vg_device_run(self->dev);
	EXPECT_EQ(0, th_fence_mem(self->th, 0));
	EXPECT_EQ(0, th_rd(self->th, 0, VMGPU_GPU_STATUS) & VMGPU_STATUS_IDLE);
	EXPECT_EQ(0, p[16]);
	th_wr(self->th, 0, VMGPU_GPU_RESET, 1);
	EXPECT_EQ(VMGPU_STATUS_IDLE, th_rd(self->th, 0, VMGPU_GPU_STATUS));
	/* The entry comes now: the dropped copy must not run. */
	self->entry[20] = vmgpu_dep_pack(3, 1, VMGPU_DEP_READY);
	th_gpu_setup(self->th, 0, 16);
	th_set_root(self->th, 0, 0, &self->as);
	th_cb_init(&cb);
	copy_async(&cb, buf, buf + 128, 4, 3, self->table, 20, 0, 0);
	th_cb_end(&cb);
	th_cb_submit(self->th, &self->as, 0, &cb, 91);
	vg_device_run(self->dev);
	EXPECT_EQ(91, th_fence_mem(self->th, 0));
	EXPECT_EQ(77, p[32]);
	EXPECT_EQ(0, p[16]);
}

TEST_HARNESS_MAIN
