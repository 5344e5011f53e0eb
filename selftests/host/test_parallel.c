// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parallel and exact (Documentation/device-model.rst, "Parallel and
 * exact"): the splitter's chain of stencils on 4 GPUs, in every mode and
 * movement, run by vg_device_run() from one thread and with each GPU's
 * blocks on an executor thread of its own, several times: every run
 * gives the same per-GPU start and end, the same counters (link bytes
 * per link included), the same trace records byte for byte and the same
 * results.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "testsplit.h"
#include "vmgpu/split.h"

#define VA0	0x40000000ull
#define GPUS	4
#define W	64
#define H	64
#define BLK	8
#define KERNELS	3

/* What one run produced: everything that must not depend on threads. */
struct outcome {
	uint64_t makespan, start[GPUS], end[GPUS];
	uint64_t cnt[GPUS][VMGPU_CNT_NUM];
	struct vmgpu_trace_record *rec;
	size_t nrec;
	float out[GPUS][W * H];
};

static void run(uint32_t mode, uint32_t movement, uint32_t allocation,
		bool executors, uint32_t link_mbps, struct outcome *o)
{
	uint64_t shared[VMGPU_SPLIT_MAX_RESOURCES] = { 0 };
	struct ts_kernel k[VMGPU_SPLIT_MAX_KERNELS];
	const struct vmgpu_trace_record *rec;
	uint32_t i, gpu, n, args[10] = { 0 };
	struct split_geom g;
	struct testhost *th;
	struct vg_config c;
	struct th_as as;
	struct ts_split t;
	uint64_t code;
	float *in;
	size_t nrec;

	vg_config_defaults(&c);
	c.gpus = GPUS;
	c.link_bw_mbps = link_mbps;
	th = th_new(32 << 20);
	th_device_new(th, &c, GPUS);
	if (executors && vg_device_executors(th->dev, true))
		th_die("vg_device_executors failed");
	vg_device_trace_keep(th->dev, true);
	th_as_init(th, &as, VA0);
	for (gpu = 0; gpu < GPUS; gpu++) {
		th_gpu_setup(th, gpu, 16);
		th_set_root(th, gpu, 0, &as);
	}
	code = th_builtin(th, &as, "stencil5");
	memset(&g, 0, sizeof(g));
	g.width = W;
	g.height = H;
	g.block[0] = g.block[1] = BLK;
	g.num_kernels = KERNELS;
	g.num_resources = KERNELS + 1;
	g.gpus = GPUS;
	g.mode = mode;
	g.movement = movement;
	g.allocation = allocation;
	/* Some work per pixel, more in the top-left quarter. */
	args[0] = W;
	args[1] = H;
	args[6] = 40;
	args[7] = W / 2;
	args[8] = H / 2;
	args[9] = 20;
	memset(k, 0, sizeof(k));
	for (i = 0; i < KERNELS; i++) {
		g.k[i].num_reads = 1;
		g.k[i].read[0] = i;
		g.k[i].radius[0][0] = g.k[i].radius[0][1] = 1;
		g.k[i].write = i + 1;
		k[i].code_va = code;
		k[i].args_bytes = 40;
		memcpy(k[i].args, args, 40);
		k[i].read_offset[0] = 8;
		k[i].write_offset = 16;
	}
	ts_split_init(&t, th, &as, &g, k, shared);
	for (gpu = 0; gpu < GPUS; gpu++) {
		in = th_va(th, &as, t.res_va[0][gpu]);
		for (i = 0; i < W * H; i++)
			in[i] = (float)((i * 2654435761u) >> 20);
	}
	o->makespan = ts_split_run(&t, o->start, o->end);
	for (gpu = 0; gpu < GPUS; gpu++) {
		memcpy(o->out[gpu], th_va(th, &as, t.res_va[KERNELS][gpu]),
		       sizeof(o->out[gpu]));
		for (n = 0; n < VMGPU_CNT_NUM; n++)
			o->cnt[gpu][n] = th_rd64(th, gpu, VMGPU_GPU_CNT_LO(n));
	}
	rec = vg_device_trace_records(th->dev, &nrec);
	o->rec = malloc(nrec * sizeof(*rec));
	if (!o->rec)
		th_die("out of memory");
	memcpy(o->rec, rec, nrec * sizeof(*rec));
	o->nrec = nrec;
	ts_split_free(&t);
	th_free(th);
}

static const struct {
	const char *name;
	uint32_t mode, movement, allocation;
} modes[] = {
	{ "barrier+copy-all", VMGPU_SPLIT_BARRIER, 0, 0 },
	{ "copy overlapped", VMGPU_SPLIT_OVERLAP, 0, 0 },
	{ "per-portion", VMGPU_SPLIT_PORTION, 0, 0 },
	{ "region pull", VMGPU_SPLIT_REGION, VMGPU_MOVE_PULL, 0 },
	{ "region push", VMGPU_SPLIT_REGION, VMGPU_MOVE_PUSH, 0 },
	{ "region prefetch", VMGPU_SPLIT_REGION, VMGPU_MOVE_PREFETCH, 0 },
	{ "region remote", VMGPU_SPLIT_REGION, VMGPU_MOVE_REMOTE, 0 },
	{ "region hybrid", VMGPU_SPLIT_REGION, VMGPU_MOVE_HYBRID, 0 },
	{ "dynamic", VMGPU_SPLIT_PORTION, 0, VMGPU_SPLIT_DYNAMIC },
};

/* One thread once, executors three times: all four the same. */
static void same_every_run(struct __test_metadata *_metadata,
			   uint32_t link_mbps)
{
	static struct outcome ref, o;
	uint32_t m, r, gpu;

	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		run(modes[m].mode, modes[m].movement, modes[m].allocation,
		    false, link_mbps, &ref);
		ASSERT_LT(0, ref.makespan);
		for (r = 0; r < 3; r++) {
			run(modes[m].mode, modes[m].movement,
			    modes[m].allocation, true, link_mbps, &o);
			EXPECT_EQ(ref.makespan, o.makespan)
				TH_LOG("%s, run %u", modes[m].name, r);
			for (gpu = 0; gpu < GPUS; gpu++) {
				EXPECT_EQ(ref.start[gpu], o.start[gpu]);
				EXPECT_EQ(ref.end[gpu], o.end[gpu])
					TH_LOG("%s, run %u, GPU %u",
					       modes[m].name, r, gpu);
				EXPECT_EQ(ref.cnt[gpu][VMGPU_CNT_BYTES_LINK],
					  o.cnt[gpu][VMGPU_CNT_BYTES_LINK]);
			}
			EXPECT_EQ(0, memcmp(ref.cnt, o.cnt, sizeof(o.cnt)))
				TH_LOG("%s, run %u: counters differ",
				       modes[m].name, r);
			ASSERT_EQ(ref.nrec, o.nrec)
				TH_LOG("%s, run %u", modes[m].name, r);
			EXPECT_EQ(0, memcmp(ref.rec, o.rec,
					    o.nrec * sizeof(*o.rec)))
				TH_LOG("%s, run %u: trace differs",
				       modes[m].name, r);
			EXPECT_EQ(0, memcmp(ref.out, o.out, sizeof(o.out)))
				TH_LOG("%s, run %u: results differ",
				       modes[m].name, r);
			free(o.rec);
		}
		free(ref.rec);
	}
}

TEST(chain_on_executors_equals_one_thread)
{
	same_every_run(_metadata, 300000);
}

/* A slow link: transfers of the GPUs overlap and wait for each other. */
TEST(chain_with_link_contention_equals_one_thread)
{
	same_every_run(_metadata, 4000);
}

TEST_HARNESS_MAIN
