// SPDX-License-Identifier: GPL-2.0-only
/*
 * The work distributor's policy registers (WD_* in uapi/vmgpu_hw.h,
 * qemu-device/core/device.c): reset values from the settings, staging and
 * COMMIT, refusal of invalid policies, a GPU reset restoring the settings,
 * the policy reaching block placement, and a change while blocks run
 * (every block still runs exactly once).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "testhost.h"

#define VA0	0x40000000ull
#define RW	(VMGPU_PTE_READ | VMGPU_PTE_WRITE)

static uint32_t order_reg(const uint8_t *order, unsigned int n)
{
	return order[4 * n] | order[4 * n + 1] << 8 | order[4 * n + 2] << 16 |
	       (uint32_t)order[4 * n + 3] << 24;
}

/* Stage @mode, @slots and @order (@sms entries) on GPU 0 and commit. */
static void wd_commit(struct testhost *th, uint32_t mode, uint32_t slots,
		      const uint8_t *order, unsigned int sms)
{
	uint8_t full[VMGPU_MAX_SMS] = { 0 };
	unsigned int n;

	memcpy(full, order, sms);
	th_wr(th, 0, VMGPU_GPU_WD_MODE, mode);
	th_wr(th, 0, VMGPU_GPU_WD_SLOTS, slots);
	for (n = 0; n < VMGPU_WD_SM_ORDER_REGS; n++)
		th_wr(th, 0, VMGPU_GPU_WD_SM_ORDER(n), order_reg(full, n));
	th_wr(th, 0, VMGPU_GPU_WD_CTRL, VMGPU_WD_CTRL_COMMIT);
}

TEST(reset_values_come_from_the_settings)
{
	struct testhost *th = th_new(1 << 20);
	struct vg_config c;
	struct vg_device *dev;

	vg_config_defaults(&c);
	c.sms = 6;
	c.wd_round_robin = 1;
	c.wd_table_slots = 7;
	dev = th_device_new(th, &c, 1);
	ASSERT_NE(NULL, dev);
	EXPECT_TRUE(vg_device_mmio_read(dev, VMGPU_REG_CAPS) &
		    VMGPU_CAP_WD_POLICY);
	EXPECT_LE(2, vg_device_mmio_read(dev, VMGPU_REG_VERSION) & 0xffff);
	EXPECT_EQ(VMGPU_WD_MODE_ROUND_ROBIN, th_rd(th, 0, VMGPU_GPU_WD_MODE));
	EXPECT_EQ(7, th_rd(th, 0, VMGPU_GPU_WD_SLOTS));
	EXPECT_EQ(0, th_rd(th, 0, VMGPU_GPU_WD_STATUS));
	EXPECT_EQ(0x03020100, th_rd(th, 0, VMGPU_GPU_WD_SM_ORDER(0)));
	EXPECT_EQ(0x0504, th_rd(th, 0, VMGPU_GPU_WD_SM_ORDER(1)));
	EXPECT_EQ(0, th_rd(th, 0, VMGPU_GPU_WD_SM_ORDER(15)));
	th_free(th);
}

TEST(commit_accepts_valid_and_refuses_invalid)
{
	struct testhost *th = th_new(1 << 20);
	struct vg_device *dev = th_device_new(th, NULL, 1); /* 4 SMs */
	const uint8_t good[4] = { 3, 1, 0, 2 };
	const uint8_t dup[4] = { 3, 1, 1, 2 };
	const uint8_t range[4] = { 3, 1, 4, 2 };

	ASSERT_NE(NULL, dev);
	/* Staging alone changes nothing but the staging register. */
	th_wr(th, 0, VMGPU_GPU_WD_SLOTS, 9);
	EXPECT_EQ(9, th_rd(th, 0, VMGPU_GPU_WD_SLOTS));
	EXPECT_EQ(0, th_rd(th, 0, VMGPU_GPU_WD_STATUS));

	wd_commit(th, VMGPU_WD_MODE_ROUND_ROBIN, 5, good, 4);
	EXPECT_EQ(0, th_rd(th, 0, VMGPU_GPU_WD_STATUS) &
		     VMGPU_WD_STATUS_INVALID);
	vg_device_run(dev); /* the runner applies it */
	EXPECT_EQ(0, th_rd(th, 0, VMGPU_GPU_WD_STATUS));
	EXPECT_EQ(VMGPU_WD_MODE_ROUND_ROBIN, th_rd(th, 0, VMGPU_GPU_WD_MODE));
	EXPECT_EQ(5, th_rd(th, 0, VMGPU_GPU_WD_SLOTS));
	EXPECT_EQ(0x02000103, th_rd(th, 0, VMGPU_GPU_WD_SM_ORDER(0)));

	/* Each kind of invalid value: refused, the policy reads back. */
	wd_commit(th, VMGPU_WD_MODE_ROUND_ROBIN, 5, dup, 4);
	EXPECT_EQ(VMGPU_WD_STATUS_INVALID, th_rd(th, 0, VMGPU_GPU_WD_STATUS));
	EXPECT_EQ(0x02000103, th_rd(th, 0, VMGPU_GPU_WD_SM_ORDER(0)));
	wd_commit(th, 0, 5, range, 4);
	EXPECT_EQ(VMGPU_WD_STATUS_INVALID, th_rd(th, 0, VMGPU_GPU_WD_STATUS));
	EXPECT_EQ(VMGPU_WD_MODE_ROUND_ROBIN, th_rd(th, 0, VMGPU_GPU_WD_MODE));
	wd_commit(th, 0, 0, good, 4);
	EXPECT_EQ(5, th_rd(th, 0, VMGPU_GPU_WD_SLOTS));
	wd_commit(th, 0, VMGPU_WD_MAX_SLOTS + 1, good, 4);
	EXPECT_EQ(5, th_rd(th, 0, VMGPU_GPU_WD_SLOTS));
	wd_commit(th, 1u << 5, 5, good, 4);
	EXPECT_EQ(VMGPU_WD_MODE_ROUND_ROBIN, th_rd(th, 0, VMGPU_GPU_WD_MODE));
	EXPECT_EQ(VMGPU_WD_STATUS_INVALID, th_rd(th, 0, VMGPU_GPU_WD_STATUS));

	/* The largest table is valid; an accepted commit clears INVALID. */
	wd_commit(th, 0, VMGPU_WD_MAX_SLOTS, good, 4);
	vg_device_run(dev);
	EXPECT_EQ(0, th_rd(th, 0, VMGPU_GPU_WD_STATUS));
	EXPECT_EQ(VMGPU_WD_MAX_SLOTS, th_rd(th, 0, VMGPU_GPU_WD_SLOTS));

	/* Entries past the GPU's SMs are stored as 0. */
	th_wr(th, 0, VMGPU_GPU_WD_SM_ORDER(1), 0x01020304);
	th_wr(th, 0, VMGPU_GPU_WD_CTRL, VMGPU_WD_CTRL_COMMIT);
	EXPECT_EQ(0, th_rd(th, 0, VMGPU_GPU_WD_SM_ORDER(1)));
	/* WD_CTRL without COMMIT does nothing. */
	th_wr(th, 0, VMGPU_GPU_WD_SLOTS, 3);
	th_wr(th, 0, VMGPU_GPU_WD_CTRL, 0);
	EXPECT_EQ(3, th_rd(th, 0, VMGPU_GPU_WD_SLOTS));

	/* A GPU reset brings the settings back. */
	th_wr(th, 0, VMGPU_GPU_RESET, 1);
	EXPECT_EQ(0, th_rd(th, 0, VMGPU_GPU_WD_MODE));
	EXPECT_EQ(32, th_rd(th, 0, VMGPU_GPU_WD_SLOTS));
	EXPECT_EQ(0x03020100, th_rd(th, 0, VMGPU_GPU_WD_SM_ORDER(0)));
	EXPECT_EQ(0, th_rd(th, 0, VMGPU_GPU_WD_STATUS));
	th_free(th);
}

struct rig {
	struct testhost *th;
	struct vg_device *dev;
	struct th_as as;
	uint64_t code, count_va, smid_va, args_va;
	uint32_t *count, *smid;
};

/* @issue_hook: the host's block-issue observer, or NULL. */
static void rig_init(struct rig *r, uint32_t blocks,
		     void (*issue_hook)(void *, unsigned int, unsigned int,
					uint32_t, uint32_t, uint64_t))
{
	uint64_t args[2];

	r->th = th_new(32 << 20);
	r->th->host.trace_block_issue = issue_hook;
	r->dev = th_device_new(r->th, NULL, 1);
	th_as_init(r->th, &r->as, VA0);
	th_gpu_setup(r->th, 0, 64);
	th_set_root(r->th, 0, 0, &r->as);
	r->code = th_builtin(r->th, &r->as, "block_sm");
	r->count_va = th_as_alloc(r->th, &r->as, blocks * 4, RW);
	r->smid_va = th_as_alloc(r->th, &r->as, blocks * 4, RW);
	r->count = th_va(r->th, &r->as, r->count_va);
	r->smid = th_va(r->th, &r->as, r->smid_va);
	args[0] = r->count_va;
	args[1] = r->smid_va;
	r->args_va = th_upload(r->th, &r->as, args, sizeof(args));
}

/* One packet of @dispatches dispatches of @blocks blocks each. */
static void rig_submit(struct rig *r, uint32_t blocks, uint32_t dispatches,
		       uint64_t seqno)
{
	uint32_t grid[3] = { blocks, 1, 1 }, block[3] = { 32, 1, 1 };
	struct th_cmdbuf cb;
	uint32_t i;

	th_cb_init(&cb);
	for (i = 0; i < dispatches; i++)
		th_cb_dispatch(&cb, r->code, r->args_va, 16, grid, block, 0,
			       0);
	th_cb_end(&cb);
	th_cb_submit(r->th, &r->as, 0, &cb, seqno);
}

/*
 * Round-robin over the list 3, 2, 1, 0 puts consecutive blocks of one
 * dispatch on consecutive SMs of the list: block b on SM 3 - b % 4.
 */
TEST(round_robin_policy_places_blocks_in_list_order)
{
	const uint8_t rev[4] = { 3, 2, 1, 0 };
	const uint32_t blocks = 16;
	struct rig r;
	uint32_t b;

	rig_init(&r, blocks, NULL);
	wd_commit(r.th, VMGPU_WD_MODE_ROUND_ROBIN, 4, rev, 4);
	rig_submit(&r, blocks, 1, 1);
	vg_device_run(r.dev);
	ASSERT_EQ(1, th_fence_mem(r.th, 0));
	for (b = 0; b < blocks; b++) {
		EXPECT_EQ(1, r.count[b]);
		EXPECT_EQ(3 - b % 4, r.smid[b]) TH_LOG("block %u", b);
	}
	th_free(r.th);
}

struct changer {
	struct testhost *th;
	int stop;
	uint32_t commits;
};

/* Commit a new policy over and over, from another thread (a vCPU). */
static void *change_thread(void *p)
{
	struct changer *c = p;
	uint8_t order[4] = { 0, 1, 2, 3 };
	uint32_t i = 0;

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		uint8_t t = order[i % 4];

		order[i % 4] = order[(i + 1) % 4];
		order[(i + 1) % 4] = t;
		wd_commit(c->th, i & 1 ? VMGPU_WD_MODE_ROUND_ROBIN : 0,
			  1 + i % 8, order, 4);
		i++;
	}
	c->commits = i;
	return NULL;
}

/*
 * Policies committed from another thread while blocks run, table
 * shrinking and growing: every block of every dispatch runs exactly once
 * and the packets complete.
 */
TEST(policy_changes_while_blocks_run)
{
	const uint32_t blocks = 200, dispatches = 6, packets = 8;
	struct changer ch = { 0 };
	pthread_t thread;
	struct rig r;
	uint32_t b, p;

	rig_init(&r, blocks, NULL);
	ch.th = r.th;
	ASSERT_EQ(0, pthread_create(&thread, NULL, change_thread, &ch));
	for (p = 1; p <= packets; p++) {
		rig_submit(&r, blocks, dispatches, p);
		vg_device_run(r.dev);
	}
	__atomic_store_n(&ch.stop, 1, __ATOMIC_RELEASE);
	pthread_join(thread, NULL);
	vg_device_run(r.dev);
	ASSERT_EQ(packets, th_fence_mem(r.th, 0));
	for (b = 0; b < blocks; b++)
		ASSERT_EQ(dispatches * packets, r.count[b]) TH_LOG("block %u", b);
	EXPECT_LT(0, ch.commits);
	EXPECT_EQ(0, th_rd(r.th, 0, VMGPU_GPU_WD_STATUS));
	th_free(r.th);
}

/* Block-issue observer: commit a one-slot table at the first block. */
struct shrink {
	uint32_t issued;
	uint32_t issued_pending; /* blocks issued while the commit waited */
};

static struct shrink shrink_state;

static void shrink_hook(void *opaque, unsigned int gpu, unsigned int sm,
			uint32_t dispatch, uint32_t block, uint64_t ns)
{
	static const uint8_t id[4] = { 0, 1, 2, 3 };
	struct testhost *th = opaque;

	/* No lock of the model is held here: this is a vCPU's write. */
	if (shrink_state.issued++ == 0)
		wd_commit(th, 0, 1, id, 4);
	else if (th_rd(th, 0, VMGPU_GPU_WD_STATUS) & VMGPU_WD_STATUS_PENDING)
		shrink_state.issued_pending++;
}

/*
 * A smaller table committed while tasks sit in the slots past its end
 * stays PENDING, blocks keep running, and it is applied once they have
 * drained; every block runs exactly once.
 */
TEST(smaller_table_waits_for_its_slots_to_drain)
{
	const uint32_t blocks = 64;
	struct rig r;
	uint32_t b;

	memset(&shrink_state, 0, sizeof(shrink_state));
	rig_init(&r, blocks, shrink_hook);
	rig_submit(&r, blocks, 4, 1);
	vg_device_run(r.dev);
	EXPECT_EQ(1, th_fence_mem(r.th, 0));
	EXPECT_LT(0, shrink_state.issued_pending);
	EXPECT_EQ(0, th_rd(r.th, 0, VMGPU_GPU_WD_STATUS));
	EXPECT_EQ(1, th_rd(r.th, 0, VMGPU_GPU_WD_SLOTS));
	for (b = 0; b < blocks; b++)
		EXPECT_EQ(4, r.count[b]);
	th_free(r.th);
}

TEST_HARNESS_MAIN
