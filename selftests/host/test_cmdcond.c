// SPDX-License-Identifier: GPL-2.0-only
/*
 * SKIP_IF (hardware interface 1.3): device-side control flow in the
 * command stream. The condition is read once, after the dispatch it
 * names; skipped dispatches keep their indices and satisfy SYNCs and
 * SKIP_IFs naming them; a bounded loop by a GPU-produced count; every
 * rule of the command checked, by the shared checker and by the device.
 */
#include <string.h>

#include "kselftest_harness.h"

#include "testhost.h"
#include "testkernels.h"
#include "vmgpu_cmd.h"

#define VA0		0x20000000ull
#define RW		(VMGPU_PTE_READ | VMGPU_PTE_WRITE)
#define NOW		VMGPU_SKIP_IF_NOW

static const char add_one_src[] = TK_ADD_ONE_SRC;

static const char slow3_src[] = TK_SLOW_STORE_SRC(3);

static const uint32_t one[3] = { 1, 1, 1 };

FIXTURE(cond) {
	struct testhost *th;
	struct vg_device *dev;
	struct th_as as;
	uint64_t add_one, slow3;
	uint64_t words_va;		/* 16 zeroed words */
	uint32_t *words;
	uint64_t args[16];		/* args[i]: a pointer to words[i] */
};

FIXTURE_SETUP(cond)
{
	int i;

	self->th = th_new(32 << 20);
	self->dev = th_device_new(self->th, NULL, 1);
	th_as_init(self->th, &self->as, VA0);
	th_gpu_setup(self->th, 0, 16);
	th_set_root(self->th, 0, 0, &self->as);
	self->add_one = th_kernel(self->th, &self->as, add_one_src);
	self->slow3 = th_kernel(self->th, &self->as, slow3_src);
	self->words_va = th_as_alloc(self->th, &self->as, 4096, RW);
	self->words = th_va(self->th, &self->as, self->words_va);
	for (i = 0; i < 16; i++) {
		uint64_t p = self->words_va + 4 * i;

		self->args[i] = th_upload(self->th, &self->as, &p, 8);
	}
}

FIXTURE_TEARDOWN(cond)
{
	th_free(self->th);
}

static void skip_if(struct th_cmdbuf *cb, uint64_t va, uint32_t op,
		    uint32_t value, uint32_t after, uint32_t skip)
{
	struct vmgpu_cmd_skip_if c =
		vmgpu_encode_skip_if(va, op, value, ~0u, after, skip);

	th_cb_raw(cb, VMGPU_CMD_WORDS(&c), VMGPU_CMD_NWORDS(&c));
}

/* A dispatch of @code on words[@w]. */
static void disp(struct th_cmdbuf *cb, uint64_t code, uint64_t args)
{
	th_cb_dispatch(cb, code, args, 8, one, one, 0, 0);
}

static void run(FIXTURE_DATA(cond) *self, struct th_cmdbuf *cb)
{
	th_cb_end(cb);
	th_cb_submit(self->th, &self->as, 0, cb, 1);
	vg_device_run(self->dev);
}

static uint32_t cnt(FIXTURE_DATA(cond) *self, uint32_t n)
{
	return th_rd(self->th, 0, VMGPU_GPU_CNT_LO(n));
}

/*
 * words[0] becomes 3 late. Waiting for its dispatch, the SKIP_IF sees 3
 * and skips; without the wait it reads 0 and runs the next command.
 */
TEST_F(cond, reads_after_its_dispatch)
{
	struct th_cmdbuf cb;

	th_cb_init(&cb);
	disp(&cb, self->slow3, self->args[0]);
	skip_if(&cb, self->words_va, VMGPU_WAIT_EQ, 3, 0, 1);
	disp(&cb, self->add_one, self->args[1]);	/* skipped */
	skip_if(&cb, self->words_va, VMGPU_WAIT_NE, 3, 0, 1);
	disp(&cb, self->add_one, self->args[2]);	/* runs */
	run(self, &cb);
	EXPECT_EQ(3, self->words[0]);
	EXPECT_EQ(0, self->words[1]);
	EXPECT_EQ(1, self->words[2]);
	EXPECT_EQ(1, th_fence_mem(self->th, 0));
	EXPECT_EQ(2, cnt(self, VMGPU_CNT_DISPATCHES));
	EXPECT_EQ(0, cnt(self, VMGPU_CNT_ERRORS));
}

TEST_F(cond, now_reads_at_once)
{
	struct th_cmdbuf cb;

	th_cb_init(&cb);
	disp(&cb, self->slow3, self->args[0]);
	skip_if(&cb, self->words_va, VMGPU_WAIT_EQ, 3, NOW, 1);
	disp(&cb, self->add_one, self->args[1]);	/* read 0: runs */
	run(self, &cb);
	EXPECT_EQ(3, self->words[0]);
	EXPECT_EQ(1, self->words[1]);
}

/*
 * Dispatch 1 is skipped: the SYNC of dispatch 2 on it is satisfied, a
 * SKIP_IF waiting for it goes on, the indices after it do not move, and
 * the SYNC and BARRIER skipped with it have no effect.
 */
TEST_F(cond, skipped_dispatch_satisfies_syncs)
{
	struct th_cmdbuf cb;

	th_cb_init(&cb);
	disp(&cb, self->slow3, self->args[0]);		/* 0 */
	skip_if(&cb, self->words_va, VMGPU_WAIT_GE, 2, 0, 3);
	disp(&cb, self->add_one, self->args[1]);	/* 1: skipped */
	th_cb_barrier(&cb);				/* skipped */
	th_cb_sync(&cb, 2, 0);				/* skipped */
	th_cb_sync(&cb, 2, 1);
	disp(&cb, self->add_one, self->args[2]);	/* 2 */
	skip_if(&cb, self->words_va + 4, VMGPU_WAIT_EQ, 0, 1, 1);
	disp(&cb, self->add_one, self->args[3]);	/* 3: skipped */
	th_cb_sync(&cb, 4, 3);
	th_cb_sync(&cb, 4, 2);
	disp(&cb, self->add_one, self->args[2]);	/* 4, after 2 */
	run(self, &cb);
	EXPECT_EQ(0, self->words[1]);
	EXPECT_EQ(2, self->words[2]);
	EXPECT_EQ(0, self->words[3]);
	EXPECT_EQ(1, th_fence_mem(self->th, 0));
	EXPECT_EQ(3, cnt(self, VMGPU_CNT_DISPATCHES));
	EXPECT_EQ(0, cnt(self, VMGPU_CNT_ERRORS));
}

/*
 * A loop by a count the GPU produced (3), unrolled to 6 iterations:
 * iteration i runs if count > i, i.e. is skipped if count <= i. Each
 * iteration's pass waits for the one before; nested regions too.
 */
TEST_F(cond, bounded_loop_by_gpu_count)
{
	struct th_cmdbuf cb;
	uint32_t i, d = 1;

	th_cb_init(&cb);
	disp(&cb, self->slow3, self->args[0]);
	for (i = 0; i < 6; i++) {
		skip_if(&cb, self->words_va, VMGPU_WAIT_LE, i, 0,
			i ? 3 : 2);
		if (i)
			th_cb_sync(&cb, d, d - 1);
		disp(&cb, self->add_one, self->args[1]);
		/* a SKIP_IF of no commands inside: skipped with it */
		skip_if(&cb, self->words_va, VMGPU_WAIT_EQ, 0, NOW, 0);
		d++;
	}
	/* An outer region holding an inner one: both skipped. */
	skip_if(&cb, self->words_va, VMGPU_WAIT_NE, 0, 0, 3);
	skip_if(&cb, self->words_va, VMGPU_WAIT_EQ, 7, 0, 1);
	disp(&cb, self->add_one, self->args[2]);
	disp(&cb, self->add_one, self->args[2]);
	disp(&cb, self->add_one, self->args[3]);
	run(self, &cb);
	EXPECT_EQ(3, self->words[1]);
	EXPECT_EQ(0, self->words[2]);
	EXPECT_EQ(1, self->words[3]);
	EXPECT_EQ(5, cnt(self, VMGPU_CNT_DISPATCHES));
	EXPECT_EQ(0, cnt(self, VMGPU_CNT_ERRORS));
}

/* The mask selects bits; every comparison (unsigned). */
TEST_F(cond, ops_and_mask)
{
	static const struct {
		uint32_t op, value, mask, word;
		bool skips;
	} c[] = {
		{ VMGPU_WAIT_EQ, 5, 0xf, 0x25, true },
		{ VMGPU_WAIT_EQ, 5, ~0u, 0x25, false },
		{ VMGPU_WAIT_NE, 5, 0xf, 0x25, false },
		{ VMGPU_WAIT_GE, 0x80000000u, ~0u, 0xffffffffu, true },
		{ VMGPU_WAIT_GT, 7, ~0u, 7, false },
		{ VMGPU_WAIT_LE, 7, ~0u, 7, true },
		{ VMGPU_WAIT_LT, 7, ~0u, 7, false },
		{ VMGPU_WAIT_LT, 8, ~0u, 7, true },
	};
	struct th_cmdbuf cb;
	uint32_t i;

	th_cb_init(&cb);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		struct vmgpu_cmd_skip_if s = vmgpu_encode_skip_if(
			self->words_va + 64 + 4 * i, c[i].op, c[i].value,
			c[i].mask, NOW, 1);

		self->words[16 + i] = c[i].word;
		th_cb_raw(&cb, VMGPU_CMD_WORDS(&s), VMGPU_CMD_NWORDS(&s));
		th_cb_write(&cb, self->words_va + 4 * i, 1);
	}
	run(self, &cb);
	for (i = 0; i < ARRAY_SIZE(c); i++)
		EXPECT_EQ(c[i].skips ? 0 : 1, self->words[i]) {
			TH_LOG("case %u", i);
		}
}

/* The shared checker (driver, device, library) refuses bad SKIP_IFs. */
TEST(checker_rules)
{
	struct vmgpu_cmd_skip_if s;
	struct vmgpu_cmd_checker ck;
	struct th_cmdbuf cb;
	const char *why = "";
	uint32_t i, v = 0;

	/* op, after, alignment */
	vmgpu_cmd_checker_init(&ck, 256);
	s = vmgpu_encode_skip_if(0x1000, VMGPU_WAIT_NUM_OPS, 0, ~0u, NOW, 0);
	EXPECT_EQ(VMGPU_CMD_ILLEGAL, vmgpu_cmd_check(&ck, &s, 8, &why));
	s = vmgpu_encode_skip_if(0x1000, VMGPU_WAIT_EQ, 0, ~0u, 0, 0);
	EXPECT_EQ(VMGPU_CMD_ILLEGAL, vmgpu_cmd_check(&ck, &s, 8, &why));
	EXPECT_STREQ("skip_if waits for no earlier dispatch", why);
	s = vmgpu_encode_skip_if(0x1002, VMGPU_WAIT_EQ, 0, ~0u, NOW, 0);
	EXPECT_EQ(VMGPU_CMD_MISALIGNED, vmgpu_cmd_check(&ck, &s, 8, &why));
	s = vmgpu_encode_skip_if(0x1000, VMGPU_WAIT_EQ, 0, ~0u, NOW, 0);
	EXPECT_EQ(VMGPU_CMD_OK, vmgpu_cmd_check(&ck, &s, 8, &why));
	EXPECT_EQ(1, ck.cmds);

	/* The skipped range must end before END: 2 commands, then END. */
	for (i = 1; i <= 4; i++) {
		th_cb_init(&cb);
		s = vmgpu_encode_skip_if(0x1000, VMGPU_WAIT_EQ, 0, ~0u, NOW,
					 i == 4 ? 0xffffffffu : i);
		th_cb_raw(&cb, VMGPU_CMD_WORDS(&s), VMGPU_CMD_NWORDS(&s));
		th_cb_nop(&cb);
		th_cb_barrier(&cb);
		th_cb_end(&cb);
		vmgpu_cmd_checker_init(&ck, 256);
		for (v = 0; ck.word < cb.n && !v;)
			v = vmgpu_cmd_check(&ck, cb.w + ck.word,
					    cb.n - ck.word, &why);
		if (i <= 2) {
			EXPECT_EQ(VMGPU_CMD_OK, v);
			EXPECT_EQ(VMGPU_CMD_OK, vmgpu_cmd_check_end(&ck, &why));
		} else {
			EXPECT_EQ(VMGPU_CMD_ILLEGAL, v);
			EXPECT_STREQ("skip_if skips END", why);
		}
	}
}

/* While a DEP_SIGNAL's dispatch is to come, no SKIP_IF (it could skip it). */
TEST(checker_signal_rule)
{
	static const uint32_t region[3] = { 1, 1, 1 };
	struct vmgpu_cmd_dep_signal sig =
		vmgpu_encode_dep_signal(0, 1, 0x1000, 4, 0, region);
	struct vmgpu_cmd_skip_if s =
		vmgpu_encode_skip_if(0x1000, VMGPU_WAIT_EQ, 0, ~0u, NOW, 0);
	struct vmgpu_cmd_dispatch d = vmgpu_encode_dispatch(
		0x10000, 0, 0, one, one, NULL, NULL, 0, 0);
	struct vmgpu_cmd_checker ck;
	const char *why = "";

	vmgpu_cmd_checker_init(&ck, 256);
	ASSERT_EQ(VMGPU_CMD_OK, vmgpu_cmd_check(&ck, &sig, 64, &why));
	EXPECT_EQ(VMGPU_CMD_ILLEGAL, vmgpu_cmd_check(&ck, &s, 64, &why));
	EXPECT_STREQ("skip_if while a DEP_SIGNAL's dispatch is to come", why);
	ASSERT_EQ(VMGPU_CMD_OK, vmgpu_cmd_check(&ck, &d, 64, &why));
	EXPECT_EQ(VMGPU_CMD_OK, vmgpu_cmd_check(&ck, &s, 64, &why));
}

/* The device refuses them too, and faults on an unmapped condition. */
TEST_F(cond, device_refuses_and_faults)
{
	struct th_cmdbuf cb;

	th_cb_init(&cb);
	skip_if(&cb, self->words_va, VMGPU_WAIT_EQ, 0, NOW, 2);
	th_cb_nop(&cb);
	th_cb_end(&cb);
	th_cb_submit(self->th, &self->as, 0, &cb, 1);
	vg_device_run(self->dev);
	EXPECT_EQ(VMGPU_FAULT_BAD_COMMAND,
		  th_rd(self->th, 0, VMGPU_GPU_ERR_CODE));
	EXPECT_EQ(9, th_rd(self->th, 0, VMGPU_GPU_ERR_PC));	/* END's word */
	th_ack_all(self->th, 0);

	th_cb_init(&cb);
	skip_if(&cb, self->words_va + 2, VMGPU_WAIT_EQ, 0, NOW, 0);
	th_cb_end(&cb);
	th_cb_submit(self->th, &self->as, 0, &cb, 2);
	vg_device_run(self->dev);
	EXPECT_EQ(VMGPU_FAULT_MISALIGNED,
		  th_rd(self->th, 0, VMGPU_GPU_ERR_CODE));
	EXPECT_EQ(self->words_va + 2,
		  th_rd64(self->th, 0, VMGPU_GPU_ERR_ADDR_LO));
	th_ack_all(self->th, 0);

	th_cb_init(&cb);
	skip_if(&cb, 0x7000000000ull, VMGPU_WAIT_EQ, 0, NOW, 1);
	th_cb_write(&cb, self->words_va, 9);
	th_cb_end(&cb);
	th_cb_submit(self->th, &self->as, 0, &cb, 3);
	vg_device_run(self->dev);
	EXPECT_EQ(VMGPU_FAULT_UNMAPPED, th_rd(self->th, 0, VMGPU_GPU_ERR_CODE));
	EXPECT_EQ(0, self->words[0]);
	EXPECT_EQ(3, th_fence_mem(self->th, 0));
	th_ack_all(self->th, 0);
	EXPECT_EQ(VMGPU_CAP_SKIP_IF,
		  vg_device_mmio_read(self->dev, VMGPU_REG_CAPS) &
			  VMGPU_CAP_SKIP_IF);
}

TEST_HARNESS_MAIN
