// SPDX-License-Identifier: GPL-2.0-only
/*
 * Command processor (qemu-device/core/cmdproc.c) errors and recovery:
 * ring entry, ring configuration and header validation; DISPATCH, SYNC
 * and memory command validation; kernel faults and the instruction
 * budget; a second error waits for the first's acknowledgement; an error
 * leaves no SYNC count to the next packet; a fault in one address-space
 * slot leaves the other alone.
 */
#include "testcp.h"

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

TEST_F(cp, ring_entry_validation)
{
	struct th_cmdbuf cb;

	th_cb_init(&cb);
	th_cb_end(&cb);
	/* min_level past the levels */
	expect_error_entry(_metadata, self, &cb, ~0u, 0, 0, VMGPU_PRIORITY_LEVELS,
			   VMGPU_FAULT_RING, VMGPU_INT_RING);
	/* default_level past the levels, or more urgent than min_level */
	expect_error_entry(_metadata, self, &cb, ~0u, 0, 0,
			   VMGPU_PRIORITY_LEVELS << 16, VMGPU_FAULT_RING,
			   VMGPU_INT_RING);
	expect_error_entry(_metadata, self, &cb, ~0u, 0, 0, 4 | 3 << 16,
			   VMGPU_FAULT_RING, VMGPU_INT_RING);
	/* unknown flag */
	expect_error_entry(_metadata, self, &cb, ~0u, 0x80, 0, 0,
			   VMGPU_FAULT_RING, VMGPU_INT_RING);
	/* size not a multiple of 4, too large */
	expect_error_entry(_metadata, self, &cb, 6, 0, 0, 0,
			   VMGPU_FAULT_RING, VMGPU_INT_RING);
	expect_error_entry(_metadata, self, &cb, VMGPU_CMDBUF_MAX_BYTES + 4,
			   0, 0, 0, VMGPU_FAULT_RING, VMGPU_INT_RING);
	/* slot out of range */
	expect_error_entry(_metadata, self, &cb, ~0u, 0, VMGPU_AS_SLOTS, 0,
			   VMGPU_FAULT_RING, VMGPU_INT_RING);
	/* slot without page tables: the command buffer is unreachable */
	expect_error_entry(_metadata, self, &cb, ~0u, 0, 3, 0,
			   VMGPU_FAULT_UNMAPPED, VMGPU_INT_FAULT);
	EXPECT_EQ(3, th_rd(self->th, 0, VMGPU_GPU_ERR_SLOT));
	/* empty command buffer: no END */
	expect_error_entry(_metadata, self, &cb, 0, 0, 0, 0,
			   VMGPU_FAULT_BAD_COMMAND, VMGPU_INT_ILLEGAL);
}

TEST_F(cp, ring_config_validation)
{
	struct th_cmdbuf cb;
	uint32_t bad[][2] = {
		{ VMGPU_GPU_RING_ENTRIES, 12 },		/* not a power of 2 */
		{ VMGPU_GPU_RING_ENTRIES, 2048 },	/* over the maximum */
		{ VMGPU_GPU_RING_BASE_LO, 0x10 },	/* misaligned */
	};
	unsigned int i;

	th_cb_init(&cb);
	th_cb_end(&cb);
	for (i = 0; i < 3; i++) {
		uint32_t old = th_rd(self->th, 0, bad[i][0]);

		th_wr(self->th, 0, bad[i][0], bad[i][1]);
		th_push(self->th, 0, th_cb_upload(self->th, &self->as, &cb),
			4, 50 + i, VMGPU_RING_F_IRQ, 0, 0);
		th_doorbell(self->th, 0);
		vg_device_run(self->dev);
		EXPECT_EQ(VMGPU_FAULT_RING, th_rd(self->th, 0,
						  VMGPU_GPU_ERR_CODE));
		EXPECT_EQ(VMGPU_INT_RING, th_rd(self->th, 0,
						VMGPU_GPU_INT_STATUS));
		EXPECT_EQ(0, th_rd64(self->th, 0, VMGPU_GPU_ERR_SEQNO_LO));
		EXPECT_EQ(VMGPU_STATUS_HALTED,
			  th_rd(self->th, 0, VMGPU_GPU_STATUS));
		th_ack_all(self->th, 0);
		/* Fixing the register and ringing again runs the entry. */
		th_wr(self->th, 0, bad[i][0], old);
		th_doorbell(self->th, 0);
		vg_device_run(self->dev);
		EXPECT_EQ(50 + i, th_fence_mem(self->th, 0));
		EXPECT_EQ(VMGPU_INT_COMPLETE,
			  th_rd(self->th, 0, VMGPU_GPU_INT_STATUS));
		th_ack_all(self->th, 0);
	}
}

TEST_F(cp, header_validation)
{
	struct th_cmdbuf cb;
	uint32_t w;

	/* unknown opcode */
	th_cb_init(&cb);
	w = VMGPU_CMD_HDR(0x09, 1);
	th_cb_raw(&cb, &w, 1);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);
	EXPECT_EQ(0, th_rd(self->th, 0, VMGPU_GPU_ERR_PC));
	/* reserved header bits */
	th_cb_init(&cb);
	th_cb_nop(&cb);
	w = VMGPU_CMD_HDR(VMGPU_CMD_NOP, 1) | 0x100;
	th_cb_raw(&cb, &w, 1);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);
	EXPECT_EQ(1, th_rd(self->th, 0, VMGPU_GPU_ERR_PC));
	/* wrong length */
	th_cb_init(&cb);
	w = VMGPU_CMD_HDR(VMGPU_CMD_NOP, 2);
	th_cb_raw(&cb, &w, 1);
	th_cb_nop(&cb);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);
	/* command cut off by the end of the buffer */
	th_cb_init(&cb);
	th_cb_end(&cb);
	w = VMGPU_CMD_HDR(VMGPU_CMD_SYNC, VMGPU_CMD_LEN_SYNC);
	th_cb_raw(&cb, &w, 1);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);
	/* missing END; something after END */
	th_cb_init(&cb);
	th_cb_nop(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);
	th_cb_init(&cb);
	th_cb_end(&cb);
	th_cb_nop(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);
	/* SET_STATE with an unknown key */
	th_cb_init(&cb);
	th_cb_set_state(&cb, 99, 1);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);
}

/* A valid single-block dispatch, then one field changed. */
static void bad_dispatch(struct __test_metadata *_metadata,
			 FIXTURE_DATA(cp) *self, unsigned int word,
			 uint32_t value, uint32_t code)
{
	struct th_cmdbuf cb;
	uint64_t cva;
	uint32_t at;

	counter_ptr(self->th, &self->as, &cva);
	th_cb_init(&cb);
	at = dispatch1(&cb, self->add_one, ptr_args(self->th, &self->as, cva));
	cb.w[at + word] = value;
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, code);
	EXPECT_EQ(0, th_rd(self->th, 0, VMGPU_GPU_ERR_PC));
}

TEST_F(cp, dispatch_validation)
{
	struct th_cmdbuf cb;
	uint64_t cva;
	int i;

	bad_dispatch(_metadata, self, 1, 1u << 31, VMGPU_FAULT_BAD_COMMAND); /* flags */
	bad_dispatch(_metadata, self, 21, 1, VMGPU_FAULT_BAD_COMMAND); /* rsvd */
	bad_dispatch(_metadata, self, 7, 0, VMGPU_FAULT_BAD_COMMAND); /* grid */
	bad_dispatch(_metadata, self, 11, 0, VMGPU_FAULT_BAD_COMMAND);
	bad_dispatch(_metadata, self, 10, 1025, VMGPU_FAULT_BAD_COMMAND);
	bad_dispatch(_metadata, self, 19, VMGPU_MAX_SHARED_BYTES + 1,
		     VMGPU_FAULT_BAD_COMMAND);
	bad_dispatch(_metadata, self, 6, VMGPU_MAX_ARGS_BYTES + 4,
		     VMGPU_FAULT_BAD_COMMAND);
	bad_dispatch(_metadata, self, 6, 6, VMGPU_FAULT_BAD_COMMAND);
	/* args_bytes different from the executable's (checked when run) */
	bad_dispatch(_metadata, self, 6, 16, VMGPU_FAULT_BAD_COMMAND);
	EXPECT_EQ(0, th_rd(self->th, 0, VMGPU_GPU_ERR_DISPATCH));
	/* origin + grid beyond grid_total */
	bad_dispatch(_metadata, self, 13, 1, VMGPU_FAULT_BAD_COMMAND);
	/* args_va 0 with arguments */
	bad_dispatch(_metadata, self, 4, 0, VMGPU_FAULT_BAD_COMMAND);
	/* code_va unmapped; code_va pointing at data, not an executable */
	bad_dispatch(_metadata, self, 2, 0x1000, VMGPU_FAULT_UNMAPPED);
	EXPECT_EQ(0x1000, th_rd(self->th, 0, VMGPU_GPU_ERR_ADDR_LO));
	counter_ptr(self->th, &self->as, &cva);
	bad_dispatch(_metadata, self, 2, (uint32_t)cva,
		     VMGPU_FAULT_BAD_EXECUTABLE);

	/* more than VMGPU_MAX_DISPATCHES_PER_PACKET */
	th_cb_init(&cb);
	for (i = 0; i <= VMGPU_MAX_DISPATCHES_PER_PACKET; i++)
		dispatch1(&cb, self->add_one,
			  ptr_args(self->th, &self->as, cva));
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);
	EXPECT_EQ(VMGPU_MAX_DISPATCHES_PER_PACKET * VMGPU_CMD_LEN_DISPATCH,
		  th_rd(self->th, 0, VMGPU_GPU_ERR_PC));
}

TEST_F(cp, sync_validation)
{
	static const uint32_t cases[][3] = {
		/* consumer, producer, where (0: before d0, 1: between) */
		{ 1, 1, 1 },	/* self */
		{ 0, 1, 1 },	/* producer after consumer */
		{ 1, 0, 0 },	/* producer not seen yet */
		{ 0, 0, 1 },	/* consumer already seen (and self) */
		{ 2, 0, 1 },	/* consumer beyond the packet */
		/*
		 * Regression (robustness.rst, finding 13): "one past" the
		 * largest index wrapped to 0 and END let it through; the
		 * device then wrote through dstate[0xffffffff].
		 */
		{ 0xffffffffu, 0, 1 },
		{ VMGPU_MAX_DISPATCHES_PER_PACKET, 0, 1 },
		{ VMGPU_MAX_TASKS_PER_PACKET, 0, 1 },
	};
	struct th_cmdbuf cb;
	uint64_t cva, args;
	unsigned int i;

	counter_ptr(self->th, &self->as, &cva);
	args = ptr_args(self->th, &self->as, cva);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		th_cb_init(&cb);
		if (!cases[i][2])
			th_cb_sync(&cb, cases[i][0], cases[i][1]);
		dispatch1(&cb, self->add_one, args);
		if (cases[i][2])
			th_cb_sync(&cb, cases[i][0], cases[i][1]);
		dispatch1(&cb, self->add_one, args);
		th_cb_end(&cb);
		expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);
	}
	/* Rejected before anything ran. */
	EXPECT_EQ(0, *(uint32_t *)th_va(self->th, &self->as, cva));
}

/*
 * A packet that ends on an error before it reaches a SYNC's consumer
 * leaves nothing behind: the consumer's count was cleared only up to
 * the dispatches the packet had reached, and the next packet on the GPU
 * (any context's) waited forever at the same index; in the VM the driver
 * then reset the GPU and banned that innocent context (robustness.rst,
 * finding 19; found by the stress suite's random submitter). A GPU reset
 * did not clear it either.
 */
TEST_F(cp, error_leaves_no_sync_count_to_the_next_packet)
{
	static const uint32_t b32[3] = { 32, 1, 1 };
	uint64_t tmd = th_as_alloc(self->th, &self->as, 4096, RW);
	struct th_cmdbuf cb;
	uint64_t cva, args;
	int reset;

	counter_ptr(self->th, &self->as, &cva);
	args = ptr_args(self->th, &self->as, cva);
	for (reset = 0; reset < 2; reset++) {
		/* Dispatch 0, SYNC 2 <- 0, a LAUNCH_TMD of zeros (refused). */
		th_cb_init(&cb);
		dispatch1(&cb, self->add_one, args);
		th_cb_sync(&cb, 2, 0);
		TH_CB_PUT(&cb, vmgpu_encode_launch_tmd(tmd));
		dispatch1(&cb, self->add_one, args);
		th_cb_end(&cb);
		submit(self->th, &self->as, 0, &cb, 30 + 2 * reset, 0);
		vg_device_run(self->dev);
		EXPECT_EQ(VMGPU_FAULT_BAD_COMMAND,
			  th_rd(self->th, 0, VMGPU_GPU_ERR_CODE));
		th_ack_all(self->th, 0);
		vg_device_run(self->dev);
		EXPECT_EQ(30 + 2 * reset, th_fence_mem(self->th, 0));
		if (reset) {
			th_wr(self->th, 0, VMGPU_GPU_RESET, 1);
			vg_device_run(self->dev);
			th_gpu_setup(self->th, 0, 16);
			th_set_root(self->th, 0, 0, &self->as);
		}
		/* Three dispatches, no SYNC: all run. */
		th_cb_init(&cb);
		th_cb_dispatch(&cb, self->store, args, 8, one, b32, 0, 0);
		th_cb_dispatch(&cb, self->store, args, 8, one, b32, 0, 0);
		th_cb_dispatch(&cb, self->store, args, 8, one, b32, 0, 0);
		th_cb_end(&cb);
		submit(self->th, &self->as, 0, &cb, 31 + 2 * reset, 0);
		vg_device_run(self->dev);
		EXPECT_EQ(31 + 2 * reset, th_fence_mem(self->th, 0))
			TH_LOG("%s: the next packet did not complete",
			       reset ? "after a GPU reset" : "no reset");
	}
}

TEST_F(cp, memory_command_validation)
{
	struct th_cmdbuf cb;
	uint64_t va = th_as_alloc(self->th, &self->as, 4096, RW);
	uint64_t ro = th_as_alloc(self->th, &self->as, 4096, VMGPU_PTE_READ);
	uint32_t at, w;

	th_cb_init(&cb);
	th_cb_timestamp(&cb, va + 4);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_MISALIGNED);
	EXPECT_EQ(va + 4, th_rd64(self->th, 0, VMGPU_GPU_ERR_ADDR_LO));
	th_cb_init(&cb);
	th_cb_timestamp(&cb, va);
	cb.w[1] = 2;				/* a flag no device has */
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);
	/* the dispatches' span: two words, so 16-byte aligned */
	th_cb_init(&cb);
	th_cb_dispatch_span(&cb, va + 8);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_MISALIGNED);
	EXPECT_EQ(va + 8, th_rd64(self->th, 0, VMGPU_GPU_ERR_ADDR_LO));
	th_cb_init(&cb);
	th_cb_write(&cb, va + 2, 1);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_MISALIGNED);
	th_cb_init(&cb);
	th_cb_wait(&cb, va + 1, VMGPU_WAIT_EQ, 0, ~0u);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_MISALIGNED);
	th_cb_init(&cb);
	th_cb_wait(&cb, va, VMGPU_WAIT_NUM_OPS, 0, ~0u);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);

	/* COPY: reserved, zero width, zero height, overlapping rows */
	th_cb_init(&cb);
	at = cb.n;
	th_cb_copy(&cb, va, va + 2048, 16, 1, 0, 0);
	cb.w[at + 9] = 1;
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);
	th_cb_init(&cb);
	th_cb_copy(&cb, va, va + 2048, 0, 1, 0, 0);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);
	th_cb_init(&cb);
	th_cb_copy(&cb, va, va + 2048, 16, 0, 0, 0);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);
	th_cb_init(&cb);
	th_cb_copy(&cb, va, va + 2048, 16, 2, 8, 16);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);

	/* Faults when the command runs: unmapped, read-only, copy source. */
	th_cb_init(&cb);
	th_cb_timestamp(&cb, 0x1000);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_UNMAPPED);
	th_cb_init(&cb);
	th_cb_write(&cb, ro, 5);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_PERMISSION);
	EXPECT_EQ(ro, th_rd64(self->th, 0, VMGPU_GPU_ERR_ADDR_LO));
	th_cb_init(&cb);
	th_cb_copy(&cb, va + 4000, va, 200, 1, 0, 0);	/* runs off va's page */
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_UNMAPPED);
	EXPECT_EQ(va + 4096, th_rd64(self->th, 0, VMGPU_GPU_ERR_ADDR_LO));
	th_cb_init(&cb);
	th_cb_copy(&cb, va, ro, 16, 1, 0, 0);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_PERMISSION);
	/* A WAIT_VALUE on an unmapped address */
	th_cb_init(&cb);
	th_cb_wait(&cb, 0x2000, VMGPU_WAIT_EQ, 0, ~0u);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_UNMAPPED);
	(void)w;
}

TEST_F(cp, kernel_fault_reports_and_next_packet_runs)
{
	struct th_cmdbuf cb;
	uint64_t cva, args;
	uint32_t *c = counter_ptr(self->th, &self->as, &cva);
	uint64_t bad = 0x7000000000ull - 0x1000;	/* unmapped */
	uint32_t st;

	args = ptr_args(self->th, &self->as, cva);
	th_cb_init(&cb);
	dispatch1(&cb, self->add_one, args);
	th_cb_barrier(&cb);
	dispatch1(&cb, self->store, ptr_args(self->th, &self->as, bad + 8));
	th_cb_barrier(&cb);
	dispatch1(&cb, self->add_one, args);	/* abandoned */
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 61, VMGPU_RING_F_IRQ);
	th_cb_init(&cb);
	dispatch1(&cb, self->add_one, args);
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 62, VMGPU_RING_F_IRQ);
	vg_device_run(self->dev);

	st = th_rd(self->th, 0, VMGPU_GPU_INT_STATUS);
	EXPECT_EQ(VMGPU_INT_FAULT | VMGPU_INT_COMPLETE, st);
	EXPECT_EQ(VMGPU_FAULT_UNMAPPED, th_rd(self->th, 0, VMGPU_GPU_ERR_CODE));
	EXPECT_EQ(bad + 8, th_rd64(self->th, 0, VMGPU_GPU_ERR_ADDR_LO));
	EXPECT_EQ(61, th_rd64(self->th, 0, VMGPU_GPU_ERR_SEQNO_LO));
	EXPECT_EQ(1, th_rd(self->th, 0, VMGPU_GPU_ERR_DISPATCH));
	EXPECT_EQ(2, th_rd(self->th, 0, VMGPU_GPU_ERR_PC));	/* the st */
	EXPECT_EQ(0, th_rd(self->th, 0, VMGPU_GPU_ERR_SLOT));
	/* Dispatch 0 ran, dispatch 2 was abandoned, packet 62 ran. */
	EXPECT_EQ(2, *c);
	EXPECT_EQ(62, th_fence_mem(self->th, 0));
	/* One error interrupt, one completion (packet 62 only). */
	EXPECT_EQ(2, self->th->irqs[0]);
	EXPECT_EQ(1, th_rd(self->th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_ERRORS)));
	EXPECT_EQ(1, th_rd(self->th, 0,
			   VMGPU_GPU_CNT_LO(VMGPU_CNT_INTERRUPTS)));
}

TEST_F(cp, budget_stops_a_runaway_kernel)
{
	struct th_cmdbuf cb;

	th_cb_init(&cb);
	th_cb_set_state(&cb, VMGPU_STATE_INSTR_BUDGET, 5000);
	th_cb_dispatch(&cb, self->spin, 0, 0, one, one, 0, 0);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BUDGET);
}

TEST_F(cp, second_error_waits_for_acknowledgement)
{
	struct th_cmdbuf cb;
	uint64_t va;
	uint32_t w = VMGPU_CMD_HDR(0x0e, 1);

	counter_ptr(self->th, &self->as, &va);
	th_cb_init(&cb);
	th_cb_raw(&cb, &w, 1);
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 71, VMGPU_RING_F_IRQ);
	th_cb_init(&cb);
	th_cb_write(&cb, va + 2, 1);
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 72, VMGPU_RING_F_IRQ);
	vg_device_run(self->dev);
	EXPECT_EQ(71, th_rd64(self->th, 0, VMGPU_GPU_ERR_SEQNO_LO));
	EXPECT_EQ(VMGPU_FAULT_BAD_COMMAND,
		  th_rd(self->th, 0, VMGPU_GPU_ERR_CODE));
	EXPECT_EQ(71, th_fence_mem(self->th, 0));
	EXPECT_EQ(1, self->th->irqs[0]);
	th_ack_all(self->th, 0);	/* releases the second report */
	vg_device_run(self->dev);
	EXPECT_EQ(72, th_rd64(self->th, 0, VMGPU_GPU_ERR_SEQNO_LO));
	EXPECT_EQ(VMGPU_FAULT_MISALIGNED,
		  th_rd(self->th, 0, VMGPU_GPU_ERR_CODE));
	EXPECT_EQ(VMGPU_INT_FAULT, th_rd(self->th, 0, VMGPU_GPU_INT_STATUS));
	EXPECT_EQ(72, th_fence_mem(self->th, 0));
	EXPECT_EQ(2, self->th->irqs[0]);
}

/* ------------------------------------------------------------------ */
/* Isolation                                                            */
/* ------------------------------------------------------------------ */

TEST_F(cp, fault_in_one_slot_leaves_other_slot_alone)
{
	struct th_as b;
	struct th_cmdbuf cb;
	uint64_t bva, bva2, aargs, bargs, bargs2, bcode, bcb, bcb2, acb;
	uint32_t *bc, *bc2;

	/* Address space B in slot 1 on GPU 1; A (slot 0) on GPU 0. */
	th_as_init(self->th, &b, VA0 + 0x10000000);
	th_set_root(self->th, 1, 1, &b);
	bcode = th_kernel(self->th, &b, add_one_src);
	bva = th_as_alloc(self->th, &b, 4, RW);
	bc = th_va(self->th, &b, bva);
	*bc = 100;
	bargs = ptr_args(self->th, &b, bva);
	bva2 = th_as_alloc(self->th, &b, 4, RW);
	bc2 = th_va(self->th, &b, bva2);
	bargs2 = ptr_args(self->th, &b, bva2);
	/* A's kernel writes to B's VA, which A does not map. */
	aargs = ptr_args(self->th, &self->as, bva);
	ASSERT_EQ(NULL, th_va(self->th, &self->as, bva));

	th_cb_init(&cb);
	dispatch1(&cb, self->store, aargs);
	th_cb_end(&cb);
	acb = th_cb_upload(self->th, &self->as, &cb);
	th_cb_init(&cb);
	dispatch1(&cb, bcode, bargs);
	th_cb_barrier(&cb);
	dispatch1(&cb, bcode, bargs);
	th_cb_end(&cb);
	bcb = th_cb_upload(self->th, &b, &cb);
	th_cb_init(&cb);
	dispatch1(&cb, bcode, bargs2);
	th_cb_barrier(&cb);
	dispatch1(&cb, bcode, bargs2);
	th_cb_end(&cb);
	bcb2 = th_cb_upload(self->th, &b, &cb);

	/* Both GPUs run at the same time; slot 1 also on GPU 0 after A. */
	th_push(self->th, 0, acb, 4 * (VMGPU_CMD_LEN_DISPATCH + 1), 1,
		VMGPU_RING_F_IRQ, 0, 0);
	th_set_root(self->th, 0, 1, &b);
	th_push(self->th, 0, bcb, 4 * (2 * VMGPU_CMD_LEN_DISPATCH + 2), 2,
		VMGPU_RING_F_IRQ, 1, 0);
	th_push(self->th, 1, bcb2, 4 * (2 * VMGPU_CMD_LEN_DISPATCH + 2), 3,
		VMGPU_RING_F_IRQ, 1, 0);
	th_doorbell(self->th, 0);
	th_doorbell(self->th, 1);
	vg_device_run(self->dev);

	EXPECT_EQ(VMGPU_FAULT_UNMAPPED, th_rd(self->th, 0, VMGPU_GPU_ERR_CODE));
	EXPECT_EQ(0, th_rd(self->th, 0, VMGPU_GPU_ERR_SLOT));
	EXPECT_EQ(bva, th_rd64(self->th, 0, VMGPU_GPU_ERR_ADDR_LO));
	EXPECT_EQ(102, *bc);		/* two increments, no 42 */
	EXPECT_EQ(2, *bc2);
	EXPECT_EQ(0, th_rd(self->th, 1, VMGPU_GPU_INT_STATUS) &
		     VMGPU_INT_ERROR_MASK);
	EXPECT_EQ(2, th_fence_mem(self->th, 0));
	EXPECT_EQ(3, th_fence_mem(self->th, 1));
}

TEST_HARNESS_MAIN
