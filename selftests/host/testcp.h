/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the command processor's tests (test_cmdproc.c,
 * test_cmdproc_errors.c) share: the fixture "cp" (two GPUs of the
 * device model in one address space, the kernels add_one, slow, store
 * and spin loaded), submitting a packet, argument blocks, a counter in
 * memory, and a packet expected to fail with an error code after which a
 * good one still runs. Header only.
 */
#ifndef VMGPU_TESTCP_H
#define VMGPU_TESTCP_H

#include <string.h>

#include "kselftest_harness.h"

#include "testhost.h"
#include "testkernels.h"
#include "vmgpu_cmd.h"
#include "vmgpu_isa.h"

#define VA0		0x20000000ull
#define RW		(VMGPU_PTE_READ | VMGPU_PTE_WRITE)
#define NONE		0xffffffffu

static const char add_one_src[] = TK_ADD_ONE_SRC;

static const char slow_src[] = TK_SLOW_STORE_SRC(1);

/* Store to the address in the argument block. */
static const char store_src[] =
	".args 8\n"
	"	ldarg.64 r0, 0\n"
	"	mov r2, 42\n"
	"	st.32 [r0], r2\n"
	"	exit\n";

static const char spin_src[] =
	"loop:\n"
	"	bra loop\n"
	"	exit\n";

static const uint32_t one[3] = { 1, 1, 1 };

FIXTURE(cp) {
	struct testhost *th;
	struct vg_device *dev;
	struct th_as as;
	uint64_t add_one, slow, store, spin;
};

/*
 * Two GPUs with the default model, except the distributor's state-sync
 * and eviction latencies: the tests below assert which dispatch's block
 * comes first after the CP reached each DISPATCH 100 ns (cp-cmd-ns) after
 * the last, which those latencies would shift; test_wdist and test_trace
 * cover them.
 */
FIXTURE_SETUP(cp)
{
	struct vg_config c;

	vg_config_defaults(&c);
	c.gpus = 2;
	c.wd_sync_ns = 0;
	c.wd_evict_ns = 0;
	self->th = th_new(64 << 20);
	self->dev = th_device_new(self->th, &c, 2);
	vg_device_trace_keep(self->dev, true);
	th_gpus_share_as(self->th, &self->as, VA0, 2, 16);
	self->add_one = th_kernel(self->th, &self->as, add_one_src);
	self->slow = th_kernel(self->th, &self->as, slow_src);
	self->store = th_kernel(self->th, &self->as, store_src);
	self->spin = th_kernel(self->th, &self->as, spin_src);
}

FIXTURE_TEARDOWN(cp)
{
	th_free(self->th);
}

/* Upload @cb, queue it on @gpu, ring the doorbell. */
static inline void submit(struct testhost *th, struct th_as *as,
			  unsigned int gpu, const struct th_cmdbuf *cb,
			  uint64_t seqno, uint32_t flags)
{
	uint64_t va = th_cb_upload(th, as, cb);

	th_push(th, gpu, va, cb->n * 4, seqno, flags, 0, 0);
	th_doorbell(th, gpu);
}

/* An argument block holding one pointer. */
static inline uint64_t ptr_args(struct testhost *th, struct th_as *as,
				uint64_t p)
{
	return th_upload(th, as, &p, 8);
}

static inline uint32_t dispatch1(struct th_cmdbuf *cb, uint64_t code,
				 uint64_t args)
{
	return th_cb_dispatch(cb, code, args, 8, one, one, 0, 0);
}

static inline uint32_t *counter_ptr(struct testhost *th, struct th_as *as,
				    uint64_t *va)
{
	*va = th_as_alloc(th, as, 4, RW);
	return th_va(th, as, *va);
}

/*
 * Submit @cb (or a raw entry when @cb is NULL) expecting an error with
 * @code and interrupt @bit, then check that a good packet still runs.
 */
static inline void expect_error_entry(struct __test_metadata *_metadata,
				      FIXTURE_DATA(cp) *self,
				      const struct th_cmdbuf *cb,
				      uint32_t bytes, uint32_t flags,
				      uint32_t slot, uint32_t min_level,
				      uint32_t code, uint32_t bit)
{
	uint64_t va = cb ? th_cb_upload(self->th, &self->as, cb) : VA0;
	struct th_cmdbuf good;
	uint32_t irqs = self->th->irqs[0];

	th_push(self->th, 0, va, cb && bytes == ~0u ? cb->n * 4 : bytes, 41,
		flags | VMGPU_RING_F_IRQ, slot, min_level);
	th_doorbell(self->th, 0);
	vg_device_run(self->dev);
	ASSERT_EQ(code, th_rd(self->th, 0, VMGPU_GPU_ERR_CODE));
	ASSERT_EQ(bit, th_rd(self->th, 0, VMGPU_GPU_INT_STATUS));
	EXPECT_EQ(41, th_rd64(self->th, 0, VMGPU_GPU_ERR_SEQNO_LO));
	/* The failed packet's seqno still reaches the fence. */
	EXPECT_EQ(41, th_fence_mem(self->th, 0));
	EXPECT_EQ(irqs + 1, self->th->irqs[0]);	/* the error, no COMPLETE */
	th_ack_all(self->th, 0);

	th_cb_init(&good);
	th_cb_end(&good);
	submit(self->th, &self->as, 0, &good, 42, VMGPU_RING_F_IRQ);
	vg_device_run(self->dev);
	EXPECT_EQ(42, th_fence_mem(self->th, 0));
	EXPECT_EQ(VMGPU_INT_COMPLETE, th_rd(self->th, 0, VMGPU_GPU_INT_STATUS));
	th_ack_all(self->th, 0);
}

static inline void expect_cmd_error(struct __test_metadata *_metadata,
				    FIXTURE_DATA(cp) *self,
				    const struct th_cmdbuf *cb, uint32_t code)
{
	uint32_t bit = code == VMGPU_FAULT_MISALIGNED ||
		       code == VMGPU_FAULT_UNMAPPED ||
		       code == VMGPU_FAULT_PERMISSION ? VMGPU_INT_FAULT :
		       code == VMGPU_FAULT_BUDGET ? VMGPU_INT_BUDGET :
		       VMGPU_INT_ILLEGAL;

	expect_error_entry(_metadata, self, cb, ~0u, 0, 0, 0, code, bit);
}

#endif
