// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM selftest: device-side work (SPEC W7) through the driver. A kernel
 * launches a child task, the child appends work items to a queue task,
 * and the queue task's blocks process them: the device runs all of it
 * with no interrupt and no register write beyond those of an ordinary
 * one-dispatch packet (read from the device's counters), and the results
 * match the CPU.
 */
#include "kselftest_harness.h"
#include "vmgpu_test_util.h"

#define N		1000	/* work items */
#define CAPACITY	1024
#define COALESCE	32

/* One thread: launch the child at args+0 with args+8 blocks. */
static const char parent_src[] =
	".args 16\n"
	"	ldarg.64 r0, 0\n"
	"	ldarg r2, 8\n"
	"	mov r4, 0\n"
	"	mov r5, 0\n"
	"	launch [r0], r4, r2\n"
	"	exit\n";

/* Thread i < n appends i to the queue task at args+0. */
static const char producer_src[] =
	".args 16\n"
	"	ldarg.64 r0, 0\n"
	"	ldarg r2, 8\n"
	"	s2r r3, %ctaid.x\n"
	"	s2r r4, %ntid.x\n"
	"	s2r r5, %tid.x\n"
	"	mad r6, r3, r4, r5\n"
	"	setp.ge p0, r6, r2\n"
	"	bra p0, end\n"
	"	enq [r0], r6\n"
	"end:\n"
	"	exit\n";

/* A queue task's block: out[v] = v * v + 3 for each of its items v. */
static const char consumer_src[] =
	".args 16\n"
	"	ldarg.64 r0, 0\n"
	"	ldarg.64 r2, 8\n"
	"	s2r r4, %itembase\n"
	"	s2r r5, %itemcount\n"
	"	s2r r6, %tid.x\n"
	"	setp.ge p0, r6, r5\n"
	"	bra p0, end\n"
	"	add r7, r4, r6\n"
	"	lea r8, r0, r7, 2\n"
	"	ld.32 r10, [r8]\n"
	"	mul r11, r10, r10\n"
	"	add r11, r11, 3\n"
	"	lea r8, r2, r10, 2\n"
	"	st.32 [r8], r11\n"
	"end:\n"
	"	exit\n";

static const char nop_src[] = "exit\n";

struct counts {
	uint64_t irqs, mmio, launches, items, dispatches;
};

static void read_counts(struct __test_metadata *_metadata,
			struct vmgpu_device *dev, struct counts *c)
{
	ASSERT_EQ(0, vmgpu_gpu_counter(dev, 0, "hw_interrupts", &c->irqs));
	ASSERT_EQ(0, vmgpu_gpu_counter(dev, 0, "hw_mmio_writes", &c->mmio));
	ASSERT_EQ(0, vmgpu_gpu_counter(dev, 0, "hw_device_launches",
				       &c->launches));
	ASSERT_EQ(0, vmgpu_gpu_counter(dev, 0, "hw_queue_items", &c->items));
	ASSERT_EQ(0, vmgpu_gpu_counter(dev, 0, "hw_dispatches",
				       &c->dispatches));
}

FIXTURE(work) {
	struct vmgpu_device *dev;
	struct vmgpu_context *ctx;
	struct vmgpu_cmdbuf *cb;
	uint32_t syncobj;
};

FIXTURE_SETUP(work)
{
	ASSERT_EQ(0, vmgpu_device_open(0, &self->dev, NULL, 0));
	ASSERT_EQ(0, vmgpu_context_create(self->dev, VMGPU_PRIORITY_NORMAL,
					  &self->ctx));
	ASSERT_EQ(0, vmgpu_cmdbuf_create(self->dev, &self->cb));
	ASSERT_EQ(0, vmgpu_syncobj_create(self->dev, &self->syncobj));
}

FIXTURE_TEARDOWN(work)
{
	vmgpu_syncobj_destroy(self->dev, self->syncobj);
	vmgpu_cmdbuf_destroy(self->cb);
	vmgpu_context_destroy(self->ctx);
	vmgpu_device_close(self->dev);
}

static int submit_wait(FIXTURE_DATA(work) *self)
{
	struct vmgpu_sync out = { .handle = self->syncobj };
	struct vmgpu_submit_info si = { .gpu = 0, .out = &out,
					.out_count = 1 };
	int ret;

	ret = vmgpu_submit(self->ctx, self->cb, &si);
	if (ret < 0)
		return ret;
	ret = vmgpu_syncobj_wait(self->dev, self->syncobj, 0, 60 * SEC_NS);
	vmgpu_cmdbuf_reset(self->cb);
	return ret;
}

TEST_F(work, child_and_queue_tasks_without_the_host)
{
	struct vmgpu_bo *parent, *producer, *consumer, *nop, *tmds, *args;
	struct vmgpu_bo *items, *out;
	struct vmgpu_dispatch_desc d = { 0 };
	struct counts c0, c1, c2;
	struct vmgpu_tmd_queue *q;
	struct vmgpu_tmd *child;
	uint8_t *t, *a;
	uint32_t *o, i, bad = 0;
	uint64_t *a64;
	void *m;

	parent = make_kernel(self->dev, parent_src);
	producer = make_kernel(self->dev, producer_src);
	consumer = make_kernel(self->dev, consumer_src);
	nop = make_kernel(self->dev, nop_src);
	ASSERT_NE(NULL, parent);
	ASSERT_NE(NULL, producer);
	ASSERT_NE(NULL, consumer);
	ASSERT_NE(NULL, nop);
	tmds = make_bo(self->dev, 4096, (void **)&t);
	args = make_bo(self->dev, 4096, (void **)&a);
	items = make_bo(self->dev, 4 * CAPACITY, &m);
	out = make_bo(self->dev, 4 * N, (void **)&o);
	ASSERT_NE(NULL, out);

	/* args: parent +0, producer +64, consumer +128 */
	a64 = (uint64_t *)(void *)a;
	a64[0] = vmgpu_bo_gpu_va(tmds);			/* child template */
	*(uint32_t *)(a + 8) = (N + 63) / 64;		/* its blocks */
	a64[8] = vmgpu_bo_gpu_va(tmds) + 128;		/* the queue task */
	*(uint32_t *)(a + 72) = N;
	a64[16] = vmgpu_bo_gpu_va(items);
	a64[17] = vmgpu_bo_gpu_va(out);

	child = (struct vmgpu_tmd *)(void *)t;
	child->code_va = vmgpu_bo_gpu_va(producer);
	child->args_va = vmgpu_bo_gpu_va(args) + 64;
	child->args_bytes = 16;
	for (i = 0; i < 3; i++)
		child->grid[i] = child->block[i] = child->grid_total[i] = 1;
	child->block[0] = 64;
	q = (struct vmgpu_tmd_queue *)(void *)(t + 128);
	q->code_va = vmgpu_bo_gpu_va(consumer);
	q->args_va = vmgpu_bo_gpu_va(args) + 128;
	q->args_bytes = 16;
	q->flags = VMGPU_TMD_F_QUEUE;
	q->items_va = vmgpu_bo_gpu_va(items);
	q->capacity = CAPACITY;
	q->block[0] = COALESCE;
	q->block[1] = q->block[2] = 1;
	q->coalesce = COALESCE;
	q->coalesce_timeout_ns = 2000;

	/*
	 * An ordinary one-dispatch packet: the host's share (after a first
	 * one, which also sets the GPU up).
	 */
	d.kernel = nop;
	d.grid[0] = d.grid[1] = d.grid[2] = 1;
	d.block[0] = d.block[1] = d.block[2] = 1;
	ASSERT_LE(0, vmgpu_cmdbuf_dispatch(self->cb, &d));
	ASSERT_EQ(0, submit_wait(self));
	ASSERT_LE(0, vmgpu_cmdbuf_dispatch(self->cb, &d));
	read_counts(_metadata, self->dev, &c0);
	ASSERT_EQ(0, submit_wait(self));
	read_counts(_metadata, self->dev, &c1);

	/* The same from the host's side, three tasks on the device. */
	ASSERT_EQ(0, vmgpu_cmdbuf_launch_tmd(self->cb, tmds, 128));
	d.kernel = parent;
	d.args = a;				/* copied into the packet */
	d.args_bytes = 16;
	ASSERT_LE(0, vmgpu_cmdbuf_dispatch(self->cb, &d));
	ASSERT_EQ(0, vmgpu_cmdbuf_use(self->cb, producer, VMGPU_USE_READ));
	ASSERT_EQ(0, vmgpu_cmdbuf_use(self->cb, consumer, VMGPU_USE_READ));
	ASSERT_EQ(0, vmgpu_cmdbuf_use(self->cb, args, VMGPU_USE_READ));
	ASSERT_EQ(0, vmgpu_cmdbuf_use(self->cb, items, 0));
	ASSERT_EQ(0, vmgpu_cmdbuf_use(self->cb, out, 0));
	ASSERT_EQ(0, submit_wait(self));
	read_counts(_metadata, self->dev, &c2);

	for (i = 0; i < N; i++)
		bad += o[i] != i * i + 3;
	EXPECT_EQ(0, bad);
	EXPECT_EQ(1, c2.launches - c1.launches);
	EXPECT_EQ(N, c2.items - c1.items);
	EXPECT_EQ(3, c2.dispatches - c1.dispatches);
	/* Zero extra interrupts and zero extra register writes. */
	EXPECT_EQ(c1.irqs - c0.irqs, c2.irqs - c1.irqs);
	EXPECT_EQ(c1.mmio - c0.mmio, c2.mmio - c1.mmio);

	vmgpu_bo_destroy(out);
	vmgpu_bo_destroy(items);
	vmgpu_bo_destroy(args);
	vmgpu_bo_destroy(tmds);
	vmgpu_bo_destroy(nop);
	vmgpu_bo_destroy(consumer);
	vmgpu_bo_destroy(producer);
	vmgpu_bo_destroy(parent);
}

TEST_HARNESS_MAIN
