// SPDX-License-Identifier: GPL-2.0-only
/*
 * Child-task launch latency (SPEC W7), in device time: a parent kernel's
 * 32 threads each start a child of 4 blocks.
 *
 * - device: the parent launches the children itself (launch); latency
 *   from the parent's block end to each child's first block.
 * - host round trip: the parent packet completes (fence, interrupt), the
 *   host submits the 32 children as DISPATCHes of a second packet, the
 *   command processor fetches it; latency from the parent's block end to
 *   each child's first block. The host's own time between the interrupt
 *   and the doorbell (wake-up, ioctl) is not in it: the device clock does
 *   not run while the GPU is idle, so this is the least a round trip
 *   costs (Documentation/benchmarks.rst gives the VM's submit-to-signal
 *   times for the host's part).
 *
 *   build/bench/child-launch
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "testhost.h"
#include "testkernels.h"
#include "core/trace.h"

#define VA0	 0x40000000ull
#define RW	 (VMGPU_PTE_READ | VMGPU_PTE_WRITE)
#define CHILDREN 32

static const char child_src[] = TK_ATOM_ADD_SRC;

/* The parent, and the same for the host's way (testkernels.h). */
static const char parent_src[] = TK_LAUNCH_PARENT_SRC;
static const char parent_host_src[] = TK_LAUNCH_PARENT_HOST_SRC;

struct rig {
	struct testhost *th;
	struct th_as as;
	uint64_t child, counter, tmd, child_args;
	uint32_t *count;
};

static void rig_init(struct rig *r)
{
	struct vmgpu_tmd t;
	int i;

	r->th = th_new(64 << 20);
	th_device_new(r->th, NULL, 1);
	vg_device_trace_keep(r->th->dev, true);
	th_as_init(r->th, &r->as, VA0);
	th_gpu_setup(r->th, 0, 8);
	th_set_root(r->th, 0, 0, &r->as);
	r->child = th_kernel(r->th, &r->as, child_src);
	r->counter = th_as_alloc(r->th, &r->as, 4, RW);
	r->count = th_va(r->th, &r->as, r->counter);
	r->child_args = th_upload(r->th, &r->as, &r->counter, 8);
	memset(&t, 0, sizeof(t));
	t.code_va = r->child;
	t.args_va = r->child_args;
	t.args_bytes = 8;
	for (i = 0; i < 3; i++)
		t.grid[i] = t.block[i] = t.grid_total[i] = 1;
	t.block[0] = 32;
	r->tmd = th_upload(r->th, &r->as, &t, sizeof(t));
}

static void run_packet(struct rig *r, struct th_cmdbuf *cb, uint64_t seqno)
{
	th_cb_end(cb);
	th_cb_submit(r->th, &r->as, 0, cb, seqno);
	vg_device_run(r->th->dev);
	if (th_fence_mem(r->th, 0) != seqno ||
	    th_rd(r->th, 0, VMGPU_GPU_INT_STATUS) != VMGPU_INT_COMPLETE) {
		fprintf(stderr, "child-launch bench: packet %llu failed\n",
			(unsigned long long)seqno);
		exit(1);
	}
	th_ack_all(r->th, 0);
}

struct result {
	double mean_ns;
	uint64_t min_ns, max_ns, makespan_ns;
};

/*
 * From the parent's block (packet 1, dispatch 0) end to the first block
 * of each child: dispatches 1.. of packet @child_seqno.
 */
static struct result measure(struct rig *r, uint64_t child_seqno)
{
	uint64_t parent_end = 0, first = UINT64_MAX, last = 0, sum = 0;
	uint64_t start[CHILDREN + 1];
	const struct vmgpu_trace_record *rec;
	struct result res = { 0, UINT64_MAX, 0, 0 };
	size_t n, i;
	uint32_t c, base = child_seqno == 1 ? 1 : 0;

	for (c = 0; c <= CHILDREN; c++)
		start[c] = UINT64_MAX;
	rec = vg_device_trace_records(r->th->dev, &n);
	for (i = 0; i < n; i++) {
		const struct vmgpu_trace_record *x = &rec[i];

		if (x->kind != VMGPU_TRACE_BLOCK)
			continue;
		if (x->start_ns < first)
			first = x->start_ns;
		if (x->end_ns > last)
			last = x->end_ns;
		if (x->seqno == 1 && x->dispatch == 0)
			parent_end = x->end_ns;
		else if (x->seqno == child_seqno &&
			 x->dispatch - base < CHILDREN &&
			 x->start_ns < start[x->dispatch - base])
			start[x->dispatch - base] = x->start_ns;
	}
	for (c = 0; c < CHILDREN; c++) {
		uint64_t lat = start[c] - parent_end;

		if (start[c] == UINT64_MAX) {
			fprintf(stderr, "child-launch bench: child %u missing\n",
				c);
			exit(1);
		}
		sum += lat;
		res.min_ns = lat < res.min_ns ? lat : res.min_ns;
		res.max_ns = lat > res.max_ns ? lat : res.max_ns;
	}
	res.mean_ns = (double)sum / CHILDREN;
	res.makespan_ns = last - first;
	return res;
}

static struct result device_side(void)
{
	struct rig r;
	struct th_cmdbuf cb;
	const uint32_t one[3] = { 1, 1, 1 }, warp[3] = { CHILDREN, 1, 1 };
	struct result res;

	rig_init(&r);
	th_cb_init(&cb);
	th_cb_dispatch(&cb, th_kernel(r.th, &r.as, parent_src),
		       th_upload(r.th, &r.as, &r.tmd, 8), 8, one, warp, 0, 0);
	run_packet(&r, &cb, 1);
	if (*r.count != CHILDREN * 4 * 32) {
		fprintf(stderr, "child-launch bench: %u child blocks ran\n",
			*r.count);
		exit(1);
	}
	res = measure(&r, 1);
	th_free(r.th);
	return res;
}

static struct result host_round_trip(void)
{
	struct rig r;
	struct th_cmdbuf cb;
	const uint32_t one[3] = { 1, 1, 1 }, warp[3] = { CHILDREN, 1, 1 };
	const uint32_t four[3] = { 4, 1, 1 };
	struct result res;
	int c;

	rig_init(&r);
	th_cb_init(&cb);
	th_cb_dispatch(&cb, th_kernel(r.th, &r.as, parent_host_src),
		       th_upload(r.th, &r.as, &r.tmd, 8), 8, one, warp, 0, 0);
	run_packet(&r, &cb, 1);
	/* The interrupt is in: the host submits the children at once. */
	th_cb_init(&cb);
	for (c = 0; c < CHILDREN; c++)
		th_cb_dispatch(&cb, r.child, r.child_args, 8, four, warp, 0, 0);
	run_packet(&r, &cb, 2);
	if (*r.count != CHILDREN * 4 * 32) {
		fprintf(stderr, "child-launch bench: %u child blocks ran\n",
			*r.count);
		exit(1);
	}
	res = measure(&r, 2);
	th_free(r.th);
	return res;
}

int main(void)
{
	struct result d = device_side(), h = host_round_trip();

	printf("child-task launch latency, %u children of 4 blocks, device time (ns)\n",
	       CHILDREN);
	printf("%-28s %10s %10s %10s %12s\n", "", "mean", "min", "max",
	       "makespan");
	printf("%-28s %10.0f %10llu %10llu %12llu\n", "device-side launch",
	       d.mean_ns, (unsigned long long)d.min_ns,
	       (unsigned long long)d.max_ns,
	       (unsigned long long)d.makespan_ns);
	printf("%-28s %10.0f %10llu %10llu %12llu\n",
	       "host round trip (+ host)", h.mean_ns,
	       (unsigned long long)h.min_ns, (unsigned long long)h.max_ns,
	       (unsigned long long)h.makespan_ns);
	printf("ratio host/device: mean latency %.2f, makespan %.2f "
	       "(the host's software time comes on top)\n",
	       h.mean_ns / d.mean_ns,
	       (double)h.makespan_ns / (double)d.makespan_ns);
	return 0;
}
