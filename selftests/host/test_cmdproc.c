// SPDX-License-Identifier: GPL-2.0-only
/*
 * Command processor (qemu-device/core/cmdproc.c) through the device's
 * registers, commands that run: completion, interrupts and fences,
 * SYNC/BARRIER ordering in device time and the 33-dispatch chain race,
 * TIMESTAMP, WRITE_VALUE, WAIT_VALUE across GPUs, COPY, the work
 * distributor's options, task descriptors, device-side work (child tasks,
 * queue tasks), ring entry priority levels. Errors: test_cmdproc_errors.c.
 */
#include "testcp.h"

static size_t count_recs(struct vg_device *dev, uint8_t kind)
{
	const struct vmgpu_trace_record *r;
	size_t n, i, c = 0;

	r = vg_device_trace_records(dev, &n);
	for (i = 0; i < n; i++)
		c += r[i].kind == kind;
	return c;
}

/* ------------------------------------------------------------------ */
/* Basic completion, fences and interrupts                             */
/* ------------------------------------------------------------------ */

TEST_F(cp, empty_packet_completes_with_fence_and_irq)
{
	struct th_cmdbuf cb;

	unsigned int kicks = self->th->kicks;

	th_cb_init(&cb);
	th_cb_nop(&cb);
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 7, VMGPU_RING_F_IRQ);
	EXPECT_EQ(kicks + 1, self->th->kicks);	/* the doorbell kicked */
	vg_device_run(self->dev);
	EXPECT_EQ(7, th_fence_mem(self->th, 0));
	EXPECT_EQ(7, th_rd64(self->th, 0, VMGPU_GPU_FENCE_LO));
	EXPECT_EQ(VMGPU_INT_COMPLETE, th_rd(self->th, 0, VMGPU_GPU_INT_STATUS));
	EXPECT_EQ(1, self->th->irqs[0]);
	EXPECT_EQ(0, self->th->irqs[1]);
	EXPECT_EQ(1, th_rd(self->th, 0, VMGPU_GPU_RING_HEAD));
	EXPECT_EQ(VMGPU_STATUS_IDLE, th_rd(self->th, 0, VMGPU_GPU_STATUS));
	EXPECT_EQ(1, th_rd(self->th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_PACKETS)));
	EXPECT_EQ(1, th_rd(self->th, 0,
			   VMGPU_GPU_CNT_LO(VMGPU_CNT_INTERRUPTS)));
	EXPECT_LT(0, th_rd(self->th, 0, VMGPU_GPU_TIMESTAMP_LO));
}

TEST_F(cp, one_irq_per_flagged_entry_none_for_sync)
{
	struct th_cmdbuf cb;
	uint64_t cva;
	uint32_t *c = counter_ptr(self->th, &self->as, &cva);
	uint64_t args = ptr_args(self->th, &self->as, cva);
	int p, i;

	for (p = 0; p < 3; p++) {
		th_cb_init(&cb);
		for (i = 0; i < 4; i++) {
			dispatch1(&cb, self->add_one, args);
			if (i < 3)
				th_cb_sync(&cb, i + 1, i);
		}
		th_cb_end(&cb);
		/* Entries 0 and 2 ask for an interrupt, entry 1 does not. */
		submit(self->th, &self->as, 0, &cb, 100 + p,
		       p == 1 ? 0 : VMGPU_RING_F_IRQ);
	}
	vg_device_run(self->dev);
	EXPECT_EQ(12, *c);
	EXPECT_EQ(102, th_fence_mem(self->th, 0));
	EXPECT_EQ(2, self->th->irqs[0]);
	EXPECT_EQ(2, self->th->irq_log_len);
	EXPECT_EQ(2, count_recs(self->dev, VMGPU_TRACE_IRQ));
	EXPECT_EQ(12, th_rd(self->th, 0,
			    VMGPU_GPU_CNT_LO(VMGPU_CNT_DISPATCHES)));
	EXPECT_EQ(3, th_rd(self->th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_PACKETS)));
	EXPECT_EQ(0, th_rd(self->th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_ERRORS)));
}

TEST_F(cp, masked_interrupt_is_latched_then_delivered)
{
	struct th_cmdbuf cb;

	th_wr(self->th, 0, VMGPU_GPU_INT_MASK, 0);
	th_cb_init(&cb);
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 1, VMGPU_RING_F_IRQ);
	vg_device_run(self->dev);
	EXPECT_EQ(0, self->th->irqs[0]);
	EXPECT_EQ(VMGPU_INT_COMPLETE, th_rd(self->th, 0, VMGPU_GPU_INT_STATUS));
	th_wr(self->th, 0, VMGPU_GPU_INT_MASK, ~0u);
	EXPECT_EQ(1, self->th->irqs[0]);
	th_ack_all(self->th, 0);
	EXPECT_EQ(0, th_rd(self->th, 0, VMGPU_GPU_INT_STATUS));
}

TEST_F(cp, fence_written_after_all_dispatches)
{
	const struct vmgpu_trace_record *pk, *d;
	struct th_cmdbuf cb;
	uint64_t va[4];
	int i;

	th_cb_init(&cb);
	for (i = 0; i < 4; i++) {
		uint32_t *p = counter_ptr(self->th, &self->as, &va[i]);

		*p = 0;
		dispatch1(&cb, self->slow, ptr_args(self->th, &self->as, va[i]));
	}
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 5, VMGPU_RING_F_IRQ);
	vg_device_run(self->dev);
	pk = th_trace_find(self->dev, VMGPU_TRACE_PACKET, 0, 5, NONE);
	ASSERT_NE(NULL, pk);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(1, *(uint32_t *)th_va(self->th, &self->as, va[i]));
		d = th_trace_find(self->dev, VMGPU_TRACE_DISPATCH, 0, 5, i);
		ASSERT_NE(NULL, d);
		EXPECT_LE(d->end_ns, pk->end_ns);
		/* The record order is the event order: before the packet. */
		EXPECT_LT(d, pk);
	}
	EXPECT_EQ(5, th_fence_mem(self->th, 0));
}

/* ------------------------------------------------------------------ */
/* Ordering                                                             */
/* ------------------------------------------------------------------ */

static void two_slow(struct __test_metadata *_metadata, FIXTURE_DATA(cp) *self,
		     int mode, uint64_t seqno)
{
	const struct vmgpu_trace_record *d0, *d1;
	struct th_cmdbuf cb;
	uint64_t a, b;

	counter_ptr(self->th, &self->as, &a);
	counter_ptr(self->th, &self->as, &b);
	th_cb_init(&cb);
	dispatch1(&cb, self->slow, ptr_args(self->th, &self->as, a));
	if (mode == 1)
		th_cb_sync(&cb, 1, 0);
	if (mode == 2)
		th_cb_barrier(&cb);
	dispatch1(&cb, self->slow, ptr_args(self->th, &self->as, b));
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, seqno, VMGPU_RING_F_IRQ);
	vg_device_run(self->dev);
	d0 = th_trace_find(self->dev, VMGPU_TRACE_DISPATCH, 0, seqno, 0);
	d1 = th_trace_find(self->dev, VMGPU_TRACE_DISPATCH, 0, seqno, 1);
	ASSERT_NE(NULL, d0);
	ASSERT_NE(NULL, d1);
	EXPECT_LT(d0->start_ns, d0->end_ns);
	if (mode == 0) {
		/* Independent dispatches overlap in device time. */
		EXPECT_LT(d1->start_ns, d0->end_ns);
		EXPECT_LT(d0->start_ns, d1->end_ns);
	} else {
		EXPECT_GE(d1->start_ns, d0->end_ns);
	}
}

TEST_F(cp, without_sync_dispatches_overlap)
{
	two_slow(_metadata, self, 0, 1);
}

TEST_F(cp, sync_orders_consumer_after_producer)
{
	two_slow(_metadata, self, 1, 2);
}

TEST_F(cp, barrier_orders_later_dispatches)
{
	two_slow(_metadata, self, 2, 3);
}

TEST_F(cp, sync_only_orders_its_pair)
{
	const struct vmgpu_trace_record *d[3];
	struct th_cmdbuf cb;
	uint64_t a;
	int i;

	counter_ptr(self->th, &self->as, &a);
	th_cb_init(&cb);
	for (i = 0; i < 3; i++) {
		dispatch1(&cb, self->slow, ptr_args(self->th, &self->as, a));
		if (i == 1)
			th_cb_sync(&cb, 2, 0);
	}
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 9, 0);
	vg_device_run(self->dev);
	for (i = 0; i < 3; i++) {
		d[i] = th_trace_find(self->dev, VMGPU_TRACE_DISPATCH, 0, 9, i);
		ASSERT_NE(NULL, d[i]);
	}
	EXPECT_GE(d[2]->start_ns, d[0]->end_ns);
	EXPECT_LT(d[1]->start_ns, d[0]->end_ns);	/* 1 is free */
}

static uint32_t chain(struct testhost *th, struct th_as *as, uint64_t code,
		      bool with_sync)
{
	struct th_cmdbuf cb;
	uint64_t cva, args;
	uint32_t *c = counter_ptr(th, as, &cva);
	int i;

	args = ptr_args(th, as, cva);
	th_cb_init(&cb);
	for (i = 0; i < 33; i++) {
		if (with_sync && i)
			th_cb_sync(&cb, i, i - 1);
		dispatch1(&cb, code, args);
	}
	th_cb_end(&cb);
	submit(th, as, 0, &cb, 33, VMGPU_RING_F_IRQ);
	vg_device_run(th->dev);
	return *c;
}

TEST_F(cp, chain_of_33_with_sync_counts_33)
{
	EXPECT_EQ(33, chain(self->th, &self->as, self->add_one, true));
	EXPECT_EQ(1, self->th->irqs[0]);
}

TEST_F(cp, chain_of_33_without_sync_races)
{
	uint32_t v = chain(self->th, &self->as, self->add_one, false);

	/* Concurrent blocks read before the others' stores complete. */
	EXPECT_NE(33, v);
	EXPECT_LE(1, v);
	EXPECT_EQ(1, self->th->irqs[0]);
}

/* ------------------------------------------------------------------ */
/* TIMESTAMP, WRITE_VALUE, WAIT_VALUE, COPY                             */
/* ------------------------------------------------------------------ */

TEST_F(cp, timestamp_and_write_value)
{
	struct th_cmdbuf cb;
	uint64_t ts = th_as_alloc(self->th, &self->as, 16, RW);
	uint64_t w;
	uint64_t *t = th_va(self->th, &self->as, ts);
	uint32_t *pw = counter_ptr(self->th, &self->as, &w);

	th_cb_init(&cb);
	th_cb_timestamp(&cb, ts);
	dispatch1(&cb, self->slow, ptr_args(self->th, &self->as, w + 0));
	th_cb_barrier(&cb);
	th_cb_timestamp(&cb, ts + 8);
	th_cb_write(&cb, w, 0xabc);
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 1, 0);
	vg_device_run(self->dev);
	EXPECT_LT(t[0], t[1]);
	/* The slow kernel (thousands of cycles) lies between them. */
	EXPECT_LT(t[0] + 1000, t[1]);
	EXPECT_EQ(0xabc, *pw);
	EXPECT_LE(t[1], vg_device_now_ns(self->dev));
}

/*
 * TIMESTAMP of VMGPU_TIMESTAMP_DISPATCHES: the span of the dispatches
 * finished since the last one, exactly the trace's DISPATCH records
 * (what a profiler reports as a kernel's start and end); 0, 0 after
 * none.
 */
TEST_F(cp, timestamp_of_the_dispatch_span)
{
	const struct vmgpu_trace_record *r;
	uint64_t ts = th_as_alloc(self->th, &self->as, 64, RW);
	uint64_t *t = th_va(self->th, &self->as, ts);
	uint64_t w, first = UINT64_MAX, last = 0;
	struct th_cmdbuf cb;
	size_t n, i, dispatches = 0;

	counter_ptr(self->th, &self->as, &w);
	vg_device_trace_keep(self->dev, true);
	th_cb_init(&cb);
	th_cb_timestamp(&cb, ts + 48);
	dispatch1(&cb, self->slow, ptr_args(self->th, &self->as, w));
	dispatch1(&cb, self->add_one, ptr_args(self->th, &self->as, w + 4));
	th_cb_barrier(&cb);
	th_cb_dispatch_span(&cb, ts);
	th_cb_dispatch_span(&cb, ts + 16);
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 1, 0);
	vg_device_run(self->dev);
	r = vg_device_trace_records(self->dev, &n);
	for (i = 0; i < n; i++) {
		if (r[i].kind != VMGPU_TRACE_DISPATCH)
			continue;
		dispatches++;
		first = r[i].start_ns < first ? r[i].start_ns : first;
		last = r[i].end_ns > last ? r[i].end_ns : last;
	}
	ASSERT_EQ(2, dispatches);
	EXPECT_EQ(first, t[0]);
	EXPECT_EQ(last, t[1]);
	/* after the CP's own time: later than the plain stamp before */
	EXPECT_LT(t[6], t[0]);
	EXPECT_EQ(0, t[2]);
	EXPECT_EQ(0, t[3]);
}

TEST_F(cp, wait_value_released_by_other_gpu)
{
	struct th_cmdbuf cb0, cb1;
	uint64_t flag, out, ts;
	uint32_t *pf = counter_ptr(self->th, &self->as, &flag);
	uint32_t *po = counter_ptr(self->th, &self->as, &out);
	uint64_t *t;
	uint64_t scratch;

	ts = th_as_alloc(self->th, &self->as, 16, RW);
	t = th_va(self->th, &self->as, ts);
	counter_ptr(self->th, &self->as, &scratch);

	/* GPU 1 waits for flag >= 5, then writes out. */
	th_cb_init(&cb1);
	th_cb_wait(&cb1, flag, VMGPU_WAIT_GE, 5, 0xff);
	th_cb_timestamp(&cb1, ts + 8);
	th_cb_write(&cb1, out, 77);
	th_cb_end(&cb1);
	submit(self->th, &self->as, 1, &cb1, 11, VMGPU_RING_F_IRQ);
	vg_device_run(self->dev);
	/* Nothing can change the flag: GPU 1 stays blocked, run returned. */
	EXPECT_EQ(0, *po);
	EXPECT_EQ(0, th_fence_mem(self->th, 1));
	EXPECT_EQ(0, th_rd(self->th, 1, VMGPU_GPU_STATUS) & VMGPU_STATUS_IDLE);

	/* GPU 0: a slow kernel, a barrier, then the flag (upper bits set,
	 * masked off by the wait). */
	th_cb_init(&cb0);
	dispatch1(&cb0, self->slow, ptr_args(self->th, &self->as, scratch));
	th_cb_barrier(&cb0);
	th_cb_timestamp(&cb0, ts);
	th_cb_write(&cb0, flag, 0x1205);
	th_cb_end(&cb0);
	submit(self->th, &self->as, 0, &cb0, 22, VMGPU_RING_F_IRQ);
	vg_device_run(self->dev);
	EXPECT_EQ(0x1205, *pf);
	EXPECT_EQ(77, *po);
	EXPECT_EQ(11, th_fence_mem(self->th, 1));
	EXPECT_EQ(22, th_fence_mem(self->th, 0));
	EXPECT_LE(t[0], t[1]);		/* released after the write */
	EXPECT_EQ(1, self->th->irqs[0]);
	EXPECT_EQ(1, self->th->irqs[1]);
}

TEST_F(cp, wait_value_satisfied_by_cpu_write_and_doorbell)
{
	struct th_cmdbuf cb;
	uint64_t flag;
	uint32_t *pf = counter_ptr(self->th, &self->as, &flag);

	th_cb_init(&cb);
	th_cb_wait(&cb, flag, VMGPU_WAIT_EQ, 3, ~0u);
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 4, 0);
	vg_device_run(self->dev);
	EXPECT_EQ(0, th_fence_mem(self->th, 0));
	*pf = 3;
	th_doorbell(self->th, 0);	/* no new entry, only a poke */
	vg_device_run(self->dev);
	EXPECT_EQ(4, th_fence_mem(self->th, 0));
}

TEST_F(cp, copy_linear_and_2d)
{
	struct th_cmdbuf cb;
	uint64_t src = th_as_alloc(self->th, &self->as, 3 * 4096, RW);
	uint64_t dst = th_as_alloc(self->th, &self->as, 3 * 4096, RW);
	uint64_t dst2 = th_as_alloc(self->th, &self->as, 3 * 4096, RW);
	uint8_t expect[3 * 4096];
	uint32_t i, r;

	for (i = 0; i < 3 * 4096; i++)
		*(uint8_t *)th_va(self->th, &self->as, src + i) = i * 7 + 3;
	th_cb_init(&cb);
	/* Linear: odd offsets, crossing pages on both sides. */
	th_cb_copy(&cb, src + 5, dst + 4000, 7000, 1, 0, 0);
	/* 2-D: 20 rows of 300 bytes, pitches 500 -> 310. */
	th_cb_copy(&cb, src + 100, dst2 + 11, 300, 20, 500, 310);
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 3, VMGPU_RING_F_IRQ);
	vg_device_run(self->dev);
	ASSERT_EQ(3, th_fence_mem(self->th, 0));
	ASSERT_EQ(0, th_rd(self->th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_ERRORS)));
	for (i = 0; i < 7000; i++)
		ASSERT_EQ((uint8_t)((i + 5) * 7 + 3),
			  *(uint8_t *)th_va(self->th, &self->as,
					    dst + 4000 + i));
	EXPECT_EQ(0, *(uint8_t *)th_va(self->th, &self->as, dst + 3999));
	EXPECT_EQ(0, *(uint8_t *)th_va(self->th, &self->as, dst + 11000));
	memset(expect, 0, sizeof(expect));
	for (r = 0; r < 20; r++)
		for (i = 0; i < 300; i++)
			expect[11 + r * 310 + i] =
				(uint8_t)((100 + r * 500 + i) * 7 + 3);
	for (i = 0; i < 3 * 4096; i++)
		ASSERT_EQ(expect[i],
			  *(uint8_t *)th_va(self->th, &self->as, dst2 + i));
}

/* The blocks of packet @seqno, by start time. */
static size_t blocks_of(struct vg_device *dev, uint64_t seqno,
			struct vmgpu_trace_record *out, size_t max)
{
	const struct vmgpu_trace_record *r;
	size_t n, i, k = 0, j;

	r = vg_device_trace_records(dev, &n);
	for (i = 0; i < n && k < max; i++) {
		if (r[i].kind != VMGPU_TRACE_BLOCK || r[i].seqno != seqno)
			continue;
		for (j = k; j > 0 && out[j - 1].start_ns > r[i].start_ns; j--)
			out[j] = out[j - 1];
		out[j] = r[i];
		k++;
	}
	return k;
}

/*
 * The work distributor's per-dispatch options, as commands give them:
 * SM affinity and launch quota (SET_STATE), sequential (DISPATCH flag).
 */
TEST_F(cp, distributor_options_from_commands)
{
	const uint32_t six[3] = { 6, 1, 1 }, two[3] = { 2, 1, 1 };
	const uint32_t wide[3] = { 1024, 1, 1 };
	uint64_t normal_end = 0, throttle_start = UINT64_MAX;
	struct vmgpu_trace_record b[16];
	struct th_cmdbuf cb;
	uint64_t cva;
	uint32_t at;
	size_t n, i;

	counter_ptr(self->th, &self->as, &cva);
	/* Affinity: every block on SM 2. */
	th_cb_init(&cb);
	th_cb_set_state(&cb, VMGPU_STATE_SM_MASK_LO, 1u << 2);
	th_cb_dispatch(&cb, self->slow, ptr_args(self->th, &self->as, cva), 8,
		       six, one, 0, 0);
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 1, VMGPU_RING_F_IRQ);
	vg_device_run(self->dev);
	ASSERT_EQ(1, th_fence_mem(self->th, 0));
	n = blocks_of(self->dev, 1, b, 16);
	ASSERT_EQ(6, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ(2, b[i].sm);

	/* Sequential: one block in flight at a time. */
	th_cb_init(&cb);
	at = th_cb_dispatch(&cb, self->slow, ptr_args(self->th, &self->as, cva),
			    8, six, one, 0, 0);
	cb.w[at + 1] = VMGPU_DISPATCH_F_SEQUENTIAL;
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 2, VMGPU_RING_F_IRQ);
	vg_device_run(self->dev);
	ASSERT_EQ(2, th_fence_mem(self->th, 0));
	n = blocks_of(self->dev, 2, b, 16);
	ASSERT_EQ(6, n);
	for (i = 1; i < n; i++)
		EXPECT_LE(b[i - 1].end_ns, b[i].start_ns) TH_LOG("block %zu", i);

	/*
	 * Quota 1: dispatches 1 and 2 (two blocks each) wait behind
	 * dispatch 0 on one SM that holds two such blocks; when it is done
	 * they take turns: the next two blocks are one of each (without a
	 * quota both are dispatch 1's).
	 */
	th_cb_init(&cb);
	th_cb_set_state(&cb, VMGPU_STATE_SM_MASK_LO, 1u << 0);
	th_cb_set_state(&cb, VMGPU_STATE_LAUNCH_QUOTA, 1);
	for (i = 0; i < 3; i++)
		th_cb_dispatch(&cb, self->slow,
			       ptr_args(self->th, &self->as, cva), 8, two,
			       wide, 0, 0);
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 3, VMGPU_RING_F_IRQ);
	vg_device_run(self->dev);
	ASSERT_EQ(3, th_fence_mem(self->th, 0));
	EXPECT_EQ(0, th_rd(self->th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_ERRORS)));
	n = blocks_of(self->dev, 3, b, 16);
	ASSERT_EQ(6, n);
	EXPECT_EQ(0, b[0].dispatch);
	EXPECT_EQ(0, b[1].dispatch);
	EXPECT_EQ(1, b[2].dispatch);
	EXPECT_EQ(2, b[3].dispatch);

	/*
	 * Throttle: the throttle dispatch waits for the other to drain, then
	 * runs on the subset (SMs 0 and 1 of 4).
	 */
	th_cb_init(&cb);
	th_cb_dispatch(&cb, self->slow, ptr_args(self->th, &self->as, cva), 8,
		       six, one, 0, 0);
	at = th_cb_dispatch(&cb, self->slow, ptr_args(self->th, &self->as, cva),
			    8, six, one, 0, 0);
	cb.w[at + 1] = VMGPU_DISPATCH_F_THROTTLE;
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 4, VMGPU_RING_F_IRQ);
	vg_device_run(self->dev);
	ASSERT_EQ(4, th_fence_mem(self->th, 0));
	n = blocks_of(self->dev, 4, b, 16);
	ASSERT_EQ(12, n);
	for (i = 0; i < n; i++) {
		if (b[i].dispatch == 0 && b[i].end_ns > normal_end)
			normal_end = b[i].end_ns;
		if (b[i].dispatch == 1) {
			EXPECT_LT(b[i].sm, 2);
			if (b[i].start_ns < throttle_start)
				throttle_start = b[i].start_ns;
		}
	}
	EXPECT_LE(normal_end, throttle_start);
	/* Throttle work whose affinity misses the subset is refused. */
	th_ack_all(self->th, 0);
	th_cb_init(&cb);
	th_cb_set_state(&cb, VMGPU_STATE_SM_MASK_LO, 1u << 3);
	at = dispatch1(&cb, self->store, ptr_args(self->th, &self->as, cva));
	cb.w[at + 1] = VMGPU_DISPATCH_F_THROTTLE;
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);

	/* An affinity naming no SM of the GPU: the launch is refused. */
	th_ack_all(self->th, 0);
	th_cb_init(&cb);
	th_cb_set_state(&cb, VMGPU_STATE_SM_MASK_HI, 1u << 20);
	dispatch1(&cb, self->store, ptr_args(self->th, &self->as, cva));
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);
}

/* A task descriptor for @code, @grid blocks of @threads threads. */
static uint64_t upload_tmd(struct testhost *th, struct th_as *as,
			   uint64_t code, uint64_t args, uint32_t grid,
			   uint32_t threads, uint32_t priority)
{
	struct vmgpu_tmd t;
	int i;

	memset(&t, 0, sizeof(t));
	t.code_va = code;
	t.args_va = args;
	t.args_bytes = 8;
	for (i = 0; i < 3; i++) {
		t.grid[i] = t.block[i] = t.grid_total[i] = 1;
	}
	t.grid[0] = t.grid_total[0] = grid;
	t.block[0] = threads;
	t.priority = priority;
	return th_upload(th, as, &t, sizeof(t));
}

/*
 * LAUNCH_TMD: a dispatch read from memory when the command runs, checked
 * then by the rules of a DISPATCH; SYNC can name it.
 */
TEST_F(cp, launch_tmd_from_memory)
{
	struct th_cmdbuf cb;
	uint64_t cva, tmd, bad;
	uint32_t *counter = counter_ptr(self->th, &self->as, &cva);
	struct vmgpu_cmd_launch_tmd l;
	struct vmgpu_tmd t;

	tmd = upload_tmd(self->th, &self->as, self->add_one,
			 ptr_args(self->th, &self->as, cva), 1, 1, 0);
	th_cb_init(&cb);
	dispatch1(&cb, self->add_one, ptr_args(self->th, &self->as, cva));
	th_cb_sync(&cb, 1, 0);
	l = vmgpu_encode_launch_tmd(tmd);
	th_cb_raw(&cb, VMGPU_CMD_WORDS(&l), VMGPU_CMD_NWORDS(&l));
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 1, VMGPU_RING_F_IRQ);
	vg_device_run(self->dev);
	ASSERT_EQ(1, th_fence_mem(self->th, 0));
	EXPECT_EQ(0, th_rd(self->th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_ERRORS)));
	EXPECT_EQ(2, *counter);		/* ordered by the SYNC: no lost add */
	EXPECT_EQ(2, th_rd(self->th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_DISPATCHES)));

	/* A TMD breaking a DISPATCH rule fails the packet at its address. */
	memset(&t, 0, sizeof(t));
	t.code_va = self->add_one;
	t.block[0] = t.block[1] = t.block[2] = 1;	/* grid 0 */
	bad = th_upload(self->th, &self->as, &t, sizeof(t));
	th_ack_all(self->th, 0);
	th_cb_init(&cb);
	l = vmgpu_encode_launch_tmd(bad);
	th_cb_raw(&cb, VMGPU_CMD_WORDS(&l), VMGPU_CMD_NWORDS(&l));
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_BAD_COMMAND);
	EXPECT_EQ(bad, th_rd64(self->th, 0, VMGPU_GPU_ERR_ADDR_LO));
}

/* ------------------------------------------------------------------ */
/* Device-side work (SPEC W7): child tasks and queue tasks               */
/* ------------------------------------------------------------------ */

static const char atom_add_src[] = TK_ATOM_ADD_SRC;

/* Thread t launches a child from the template at arg 8 with t + 1 blocks. */
static const char parent_src[] =
	".args 16\n"
	"	ldarg.64 r0, 8\n"
	"	s2r r2, %tid.x\n"
	"	add r4, r2, 1\n"
	"	mov r6, 0\n"
	"	mov r7, 0\n"
	"	launch [r0], r6, r4\n"
	"	exit\n";

/* p[1] = p[0]: what a SYNC consumer of the parent sees. */
static const char snapshot_src[] =
	".args 8\n"
	"	ldarg.64 r0, 0\n"
	"	ld.32 r2, [r0]\n"
	"	st.32 [r0 + 4], r2\n"
	"	exit\n";

/* Every thread appends its global index to the queue task at arg 0. */
static const char producer_src[] =
	".args 8\n"
	"	ldarg.64 r0, 0\n"
	"	s2r r2, %ctaid.x\n"
	"	s2r r3, %ntid.x\n"
	"	s2r r4, %tid.x\n"
	"	mad r5, r2, r3, r4\n"
	"	enq [r0], r5\n"
	"	exit\n";

/* A queue task's block: adds its items to out[0], counts itself in out[1]. */
static const char consumer_src[] =
	".args 16\n"
	"	ldarg.64 r0, 0\n"
	"	ldarg.64 r2, 8\n"
	"	s2r r6, %itembase\n"
	"	s2r r7, %itemcount\n"
	"	mov r8, 0\n"
	"loop:\n"
	"	setp.eq p0, r7, 0\n"
	"	bra p0, done\n"
	"	lea r10, r0, r6, 2\n"
	"	ld.32 r9, [r10]\n"
	"	add r8, r8, r9\n"
	"	add r6, r6, 1\n"
	"	sub r7, r7, 1\n"
	"	bra loop\n"
	"done:\n"
	"	atom.add r9, [r2], r8\n"
	"	mov r12, 1\n"
	"	atom.add r9, [r2 + 4], r12\n"
	"	exit\n";

/*
 * A parent's four threads launch children of 1..4 blocks (10 atomic adds)
 * with no host involvement: one interrupt for the packet, and the SYNC
 * consumer of the parent, like the fence, comes after every child.
 */
TEST_F(cp, child_tasks_complete_before_their_parent)
{
	uint64_t child = th_kernel(self->th, &self->as, atom_add_src);
	uint64_t parent = th_kernel(self->th, &self->as, parent_src);
	uint64_t snap = th_kernel(self->th, &self->as, snapshot_src);
	const uint32_t four[3] = { 4, 1, 1 };
	uint64_t cva, tmd, pargs[2], mmio;
	uint32_t *counter = counter_ptr(self->th, &self->as, &cva);
	uint32_t irqs = self->th->irqs[0];
	struct th_cmdbuf cb;

	th_as_alloc(self->th, &self->as, 4, RW);	/* counter[1] */
	tmd = upload_tmd(self->th, &self->as, child,
			 ptr_args(self->th, &self->as, cva), 1, 1, 0);
	pargs[0] = cva;
	pargs[1] = tmd;
	th_cb_init(&cb);
	th_cb_dispatch(&cb, parent, th_upload(self->th, &self->as, pargs, 16),
		       16, one, four, 0, 0);
	th_cb_sync(&cb, 1, 0);
	dispatch1(&cb, snap, ptr_args(self->th, &self->as, cva));
	th_cb_end(&cb);
	submit(self->th, &self->as, 0, &cb, 1, VMGPU_RING_F_IRQ);
	mmio = th_rd64(self->th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_MMIO_WRITES));
	vg_device_run(self->dev);
	ASSERT_EQ(1, th_fence_mem(self->th, 0));
	EXPECT_EQ(0, th_rd(self->th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_ERRORS)))
		TH_LOG("fault %u at %#llx pc %u", th_rd(self->th, 0, VMGPU_GPU_ERR_CODE),
		       (unsigned long long)th_rd64(self->th, 0, VMGPU_GPU_ERR_ADDR_LO),
		       th_rd(self->th, 0, VMGPU_GPU_ERR_PC));
	EXPECT_EQ(10, counter[0]);
	EXPECT_EQ(10, counter[1]);	/* the consumer ran after the children */
	EXPECT_EQ(4, th_rd(self->th, 0,
			   VMGPU_GPU_CNT_LO(VMGPU_CNT_DEVICE_LAUNCHES)));
	EXPECT_EQ(6, th_rd(self->th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_DISPATCHES)));
	EXPECT_EQ(irqs + 1, self->th->irqs[0]);
	EXPECT_EQ(mmio,
		  th_rd64(self->th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_MMIO_WRITES)));
	/* The children's blocks are in the trace, after the parent's. */
	EXPECT_NE(NULL, th_trace_find(self->dev, VMGPU_TRACE_DISPATCH, 0, 1, 5));
}

/* A queue task's descriptor for @code with @args (16 bytes). */
static uint64_t upload_queue(struct testhost *th, struct th_as *as,
			     uint64_t code, uint64_t args, uint64_t items,
			     uint32_t capacity, uint32_t coalesce,
			     uint32_t timeout_ns)
{
	struct vmgpu_tmd_queue q;

	memset(&q, 0, sizeof(q));
	q.code_va = code;
	q.args_va = args;
	q.args_bytes = 16;
	q.flags = VMGPU_TMD_F_QUEUE;
	q.items_va = items;
	q.capacity = capacity;
	q.block[0] = q.block[1] = q.block[2] = 1;
	q.coalesce = coalesce;
	q.coalesce_timeout_ns = timeout_ns;
	return th_upload(th, as, &q, sizeof(q));
}

struct queue_run {
	uint64_t tmd, items, out;
	uint32_t *items_p, *out_p;
};

static void queue_setup(FIXTURE_DATA(cp) *self, struct queue_run *q,
			uint32_t capacity, uint32_t coalesce, uint32_t timeout)
{
	uint64_t consumer = th_kernel(self->th, &self->as, consumer_src);
	uint64_t args[2];

	q->items = th_as_alloc(self->th, &self->as, 4 * capacity, RW);
	q->items_p = th_va(self->th, &self->as, q->items);
	q->out = th_as_alloc(self->th, &self->as, 8, RW);
	q->out_p = th_va(self->th, &self->as, q->out);
	args[0] = q->items;
	args[1] = q->out;
	q->tmd = upload_queue(self->th, &self->as, consumer,
			      th_upload(self->th, &self->as, args, 16),
			      q->items, capacity, coalesce, timeout);
}

/* A packet: LAUNCH_TMD of the queue, a producer of @blocks x @threads. */
static void queue_packet(FIXTURE_DATA(cp) *self, struct th_cmdbuf *cb,
			 const struct queue_run *q, uint64_t queue_va,
			 uint32_t blocks, uint32_t threads)
{
	uint64_t producer = th_kernel(self->th, &self->as, producer_src);
	const uint32_t grid[3] = { blocks, 1, 1 }, blk[3] = { threads, 1, 1 };
	struct vmgpu_cmd_launch_tmd l = vmgpu_encode_launch_tmd(q->tmd);

	th_cb_init(cb);
	th_cb_raw(cb, VMGPU_CMD_WORDS(&l), VMGPU_CMD_NWORDS(&l));
	th_cb_dispatch(cb, producer, ptr_args(self->th, &self->as, queue_va),
		       8, grid, blk, 0, 0);
	th_cb_end(cb);
}

/*
 * Two producer blocks append 30 items each; the queue task makes blocks of
 * 8 and, after the timeout, one of the 6 left of each producer block. Every
 * item is in exactly one block; the packet ends when the queue drained.
 */
TEST_F(cp, queue_task_coalesces_items_into_blocks)
{
	struct queue_run q;
	struct th_cmdbuf cb;
	uint32_t i, seen[60] = { 0 };

	queue_setup(self, &q, 64, 8, 5000);
	queue_packet(self, &cb, &q, q.tmd, 2, 30);
	submit(self->th, &self->as, 0, &cb, 1, VMGPU_RING_F_IRQ);
	vg_device_run(self->dev);
	ASSERT_EQ(1, th_fence_mem(self->th, 0));
	EXPECT_EQ(0, th_rd(self->th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_ERRORS)));
	EXPECT_EQ(60 * 59 / 2, q.out_p[0]);
	EXPECT_EQ(2 * (3 + 1), q.out_p[1]);	/* blocks of the queue task */
	EXPECT_EQ(60, th_rd(self->th, 0,
			    VMGPU_GPU_CNT_LO(VMGPU_CNT_QUEUE_ITEMS)));
	for (i = 0; i < 60; i++) {
		ASSERT_LT(q.items_p[i], 60);
		seen[q.items_p[i]]++;
	}
	for (i = 0; i < 60; i++)
		EXPECT_EQ(1, seen[i]);
}

/* Device-side work that cannot be done fails the packet, at the TMD. */
TEST_F(cp, device_side_work_errors)
{
	uint64_t parent = th_kernel(self->th, &self->as, parent_src);
	struct queue_run q;
	struct th_cmdbuf cb;
	uint64_t stray, pargs[2];

	/* ENQ to an address no queue task of the packet has */
	queue_setup(self, &q, 64, 8, 0);
	stray = th_as_alloc(self->th, &self->as, 96, RW);
	queue_packet(self, &cb, &q, stray, 1, 4);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_TASK);
	EXPECT_EQ(stray, th_rd64(self->th, 0, VMGPU_GPU_ERR_ADDR_LO));
	/* a full queue */
	queue_setup(self, &q, 10, 8, 0);
	queue_packet(self, &cb, &q, q.tmd, 1, 32);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_TASK);
	EXPECT_EQ(q.tmd, th_rd64(self->th, 0, VMGPU_GPU_ERR_ADDR_LO));
	/* a child from a queue descriptor, then from a malformed one */
	pargs[0] = 0;
	pargs[1] = q.tmd;
	th_cb_init(&cb);
	th_cb_dispatch(&cb, parent, th_upload(self->th, &self->as, pargs, 16),
		       16, one, one, 0, 0);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_TASK);
	EXPECT_EQ(q.tmd, th_rd64(self->th, 0, VMGPU_GPU_ERR_ADDR_LO));
	pargs[1] = stray;	/* all zero: no grid, no code */
	th_cb_init(&cb);
	th_cb_dispatch(&cb, parent, th_upload(self->th, &self->as, pargs, 16),
		       16, one, one, 0, 0);
	th_cb_end(&cb);
	expect_cmd_error(_metadata, self, &cb, VMGPU_FAULT_TASK);
	EXPECT_EQ(stray, th_rd64(self->th, 0, VMGPU_GPU_ERR_ADDR_LO));
}

/*
 * The ring entry's min_level: no task of the packet is more urgent. B
 * (priority 9) and then A (priority 1) wait behind a blocker on one SM;
 * A goes first, unless the entry holds both at level 10.
 */
TEST_F(cp, ring_entry_min_level_bounds_priorities)
{
	const uint32_t two[3] = { 2, 1, 1 }, wide[3] = { 1024, 1, 1 };
	struct vmgpu_trace_record b[8];
	uint32_t min_level, first[2];
	struct th_cmdbuf cb;
	uint64_t cva, va;
	size_t n;
	int i;

	counter_ptr(self->th, &self->as, &cva);
	for (i = 0; i < 2; i++) {
		min_level = i ? 10 : 0;
		th_cb_init(&cb);
		th_cb_set_state(&cb, VMGPU_STATE_SM_MASK_LO, 1);
		th_cb_dispatch(&cb, self->slow,
			       ptr_args(self->th, &self->as, cva), 8, two,
			       wide, 0, 12);
		th_cb_dispatch(&cb, self->slow,
			       ptr_args(self->th, &self->as, cva), 8, two,
			       wide, 0, 9);
		th_cb_dispatch(&cb, self->slow,
			       ptr_args(self->th, &self->as, cva), 8, two,
			       wide, 0, 1);
		th_cb_end(&cb);
		va = th_cb_upload(self->th, &self->as, &cb);
		th_push(self->th, 0, va, cb.n * 4, 10 + i, VMGPU_RING_F_IRQ, 0,
			min_level);
		th_doorbell(self->th, 0);
		vg_device_run(self->dev);
		ASSERT_EQ(10 + i, th_fence_mem(self->th, 0));
		n = blocks_of(self->dev, 10 + i, b, 8);
		ASSERT_EQ(6, n);
		first[i] = b[2].dispatch;	/* the first after the blocker */
	}
	EXPECT_EQ(2, first[0]);		/* A, more urgent */
	EXPECT_EQ(1, first[1]);		/* both level 10: B came first */
}

/*
 * The ring entry's default_level is the level of every task giving
 * priority 0 — a DISPATCH, a task descriptor — until SET_STATE
 * DEFAULT_PRIORITY. Behind a blocker on one SM, A (priority 0) and B
 * (priority 7) wait: A goes first when the default is 5, second when it
 * is 9, and the same for a descriptor.
 */
TEST_F(cp, ring_entry_default_level)
{
	const uint32_t two[3] = { 2, 1, 1 }, wide[3] = { 1024, 1, 1 };
	struct vmgpu_trace_record b[8];
	struct vmgpu_cmd_launch_tmd l;
	uint32_t first[4];
	struct th_cmdbuf cb;
	uint64_t cva, va, args, tmd;
	size_t n;
	int i;

	counter_ptr(self->th, &self->as, &cva);
	args = ptr_args(self->th, &self->as, cva);
	tmd = upload_tmd(self->th, &self->as, self->slow, args, 2, 1024, 0);
	/* A descriptor's affinity is its own: SM 0 like the SET_STATE's. */
	((struct vmgpu_tmd *)th_va(self->th, &self->as, tmd))->sm_mask = 1;
	for (i = 0; i < 4; i++) {
		uint32_t dflt = i % 2 ? 9 : 5;

		th_cb_init(&cb);
		th_cb_set_state(&cb, VMGPU_STATE_SM_MASK_LO, 1);
		th_cb_dispatch(&cb, self->slow, args, 8, two, wide, 0, 12);
		th_cb_dispatch(&cb, self->slow, args, 8, two, wide, 0, 7);
		if (i < 2) {
			th_cb_dispatch(&cb, self->slow, args, 8, two, wide, 0,
				       0);
		} else {
			l = vmgpu_encode_launch_tmd(tmd);
			th_cb_raw(&cb, VMGPU_CMD_WORDS(&l),
				  VMGPU_CMD_NWORDS(&l));
		}
		th_cb_end(&cb);
		va = th_cb_upload(self->th, &self->as, &cb);
		th_push(self->th, 0, va, cb.n * 4, 20 + i, VMGPU_RING_F_IRQ, 0,
			2 | dflt << 16);
		th_doorbell(self->th, 0);
		vg_device_run(self->dev);
		ASSERT_EQ(20 + i, th_fence_mem(self->th, 0));
		ASSERT_EQ(0, th_rd(self->th, 0,
				   VMGPU_GPU_CNT_LO(VMGPU_CNT_ERRORS)));
		n = blocks_of(self->dev, 20 + i, b, 8);
		ASSERT_EQ(6, n);
		first[i] = b[2].dispatch;
	}
	EXPECT_EQ(2, first[0]);		/* default 5 < 7 */
	EXPECT_EQ(1, first[1]);		/* default 9 > 7 */
	EXPECT_EQ(2, first[2]);		/* the descriptor alike */
	EXPECT_EQ(1, first[3]);
}

/*
 * A consumer waits for every producer its SYNCs name, however often a
 * pair is named and whatever SKIP_IF steps over: a SYNC reached after
 * its producer ended, or one skipped, must not release the consumer
 * from another producer (robustness.rst, finding 17: dispatch 2 started
 * at 7.5 us while dispatch 1 ran until 104 us).
 */
TEST_F(cp, sync_counts_only_syncs_that_waited)
{
	static const char very_slow[] =
		".args 8\n"
		"	mov r0, 0\n"
		"loop:\n"
		"	add r0, r0, 1\n"
		"	setp.lt p0, r0, 200000\n"
		"	bra p0, loop\n"
		"	ldarg.64 r2, 0\n"
		"	mov r4, 1\n"
		"	st.32 [r2], r4\n"
		"	exit\n";
	uint64_t vs = th_kernel(self->th, &self->as, very_slow);
	const struct vmgpu_trace_record *d[3];
	struct th_cmdbuf cb;
	uint64_t a, b;
	int skip, i;

	for (skip = 0; skip < 2; skip++) {
		counter_ptr(self->th, &self->as, &a);
		counter_ptr(self->th, &self->as, &b);
		th_cb_init(&cb);
		dispatch1(&cb, self->add_one, ptr_args(self->th, &self->as, a));
		dispatch1(&cb, vs, ptr_args(self->th, &self->as, b));
		if (!skip) {
			/* SYNC(2, 0) again once dispatch 0 has ended. */
			th_cb_sync(&cb, 2, 0);
			th_cb_sync(&cb, 2, 1);
			th_cb_wait(&cb, a, VMGPU_WAIT_EQ, 1, ~0u);
			th_cb_sync(&cb, 2, 0);
		} else {
			/* A SYNC(2, 0) that SKIP_IF steps over. */
			th_cb_sync(&cb, 2, 1);
			TH_CB_PUT(&cb, vmgpu_encode_skip_if(a, VMGPU_WAIT_EQ, 0,
							    0, VMGPU_SKIP_IF_NOW,
							    1));
			th_cb_sync(&cb, 2, 0);
		}
		dispatch1(&cb, self->add_one, ptr_args(self->th, &self->as, a));
		th_cb_end(&cb);
		submit(self->th, &self->as, 0, &cb, 20 + skip, 0);
		vg_device_run(self->dev);
		for (i = 0; i < 3; i++) {
			d[i] = th_trace_find(self->dev, VMGPU_TRACE_DISPATCH, 0,
					     20 + skip, i);
			ASSERT_NE(NULL, d[i]);
		}
		EXPECT_GE(d[2]->start_ns, d[1]->end_ns)
			TH_LOG("%s: dispatch 2 started at %llu ns, dispatch 1 ended at %llu ns",
			       skip ? "skipped SYNC" : "SYNC after its producer",
			       (unsigned long long)d[2]->start_ns,
			       (unsigned long long)d[1]->end_ns);
	}
}

TEST_HARNESS_MAIN
