// SPDX-License-Identifier: GPL-2.0-only
/*
 * The multi-GPU splitter's plans (libshim/split/plan.c) on the device
 * model: a chain of 3x3 blurs split over 1, 2 and 4 GPUs in each mode and
 * movement gives exactly the one-GPU result (and the CPU's), with one
 * packet and one interrupt per GPU and no register write between
 * portions; a delayed producer holds exactly the GPUs that read it; a
 * draw pass takes part in the scheme both ways; bad chains are refused
 * with their rule.
 */
#include <string.h>

#include "kselftest_harness.h"

#include "../ref_kernels.h"
#include "testsplit.h"
#include "vmgpu/split.h"

#define VA0	0x40000000ull
#define W	64
#define H	64
#define KERNELS	4

/* The chain on the CPU (each test runs in its own process). */
static float cpu_out[W * H];

static void input(float *in)
{
	uint32_t i, v = 12345;

	for (i = 0; i < W * H; i++) {
		v = v * 1103515245u + 12345u;
		in[i] = (float)(v >> 8) / (float)(1u << 24) * 100.0f;
	}
}

/* The chain: R0 (input) -> blur -> R1 -> ... -> R4 (output). */
static void chain_geom(struct split_geom *g, uint32_t gpus, uint32_t mode,
		       uint32_t movement)
{
	uint32_t k;

	memset(g, 0, sizeof(*g));
	g->width = W;
	g->height = H;
	g->block[0] = 8;
	g->block[1] = 8;
	g->num_kernels = KERNELS;
	g->num_resources = KERNELS + 1;
	for (k = 0; k < KERNELS; k++) {
		g->k[k].num_reads = 1;
		g->k[k].read[0] = k;
		g->k[k].radius[0][0] = 1;
		g->k[k].radius[0][1] = 1;
		g->k[k].write = k + 1;
	}
	g->shared[0] = 1;
	g->shared[KERNELS] = 1;
	g->gpus = gpus;
	g->mode = mode;
	g->movement = movement;
}

static void cpu_chain(void)
{
	static float tmp[W * H];
	uint32_t k;

	input(tmp);
	for (k = 0; k < KERNELS; k++) {
		ref_blur3x3(tmp, cpu_out, W, H);
		memcpy(tmp, cpu_out, sizeof(tmp));
	}
}

struct rig {
	struct testhost *th;
	struct th_as as;
	struct ts_split t;
	uint64_t in, out;
};

static void rig_init(struct rig *r, const struct split_geom *g, uint32_t gpus)
{
	struct ts_kernel k[KERNELS];
	uint64_t shared[KERNELS + 1] = { 0 };
	struct vg_config c;
	uint64_t blur;
	uint32_t i, wh[2] = { W, H };

	vg_config_defaults(&c);
	c.gpus = 4;
	c.sms = 2;
	r->th = th_new(64 << 20);
	th_device_new(r->th, &c, 4);
	vg_device_trace_keep(r->th->dev, true);
	th_as_init(r->th, &r->as, VA0);
	for (i = 0; i < 4; i++) {
		th_gpu_setup(r->th, i, 16);
		th_set_root(r->th, i, 0, &r->as);
	}
	blur = th_builtin(r->th, &r->as, "blur3x3");
	r->in = th_as_alloc(r->th, &r->as, W * H * 4,
			    VMGPU_PTE_READ | VMGPU_PTE_WRITE);
	r->out = th_as_alloc(r->th, &r->as, W * H * 4,
			     VMGPU_PTE_READ | VMGPU_PTE_WRITE);
	input(th_va(r->th, &r->as, r->in));
	shared[0] = r->in;
	shared[KERNELS] = r->out;
	memset(k, 0, sizeof(k));
	for (i = 0; i < KERNELS; i++) {
		k[i].code_va = blur;
		k[i].args_bytes = 24;
		memcpy(k[i].args, wh, 8);
		k[i].read_offset[0] = 8;
		k[i].write_offset = 16;
	}
	(void)gpus;
	ts_split_init(&r->t, r->th, &r->as, g, k, shared);
}

static void rig_free(struct rig *r)
{
	ts_split_free(&r->t);
	th_free(r->th);
}

static uint64_t counter(struct testhost *th, unsigned int gpu, uint32_t n)
{
	return th_rd64(th, gpu, VMGPU_GPU_CNT_LO(n));
}

TEST(chain_is_bit_identical_on_1_2_4_gpus_in_every_mode)
{
	static const uint32_t gpus[] = { 1, 2, 4 };
	uint32_t gi, mode, mv, gpu, runs = 0;
	struct split_geom g;

	cpu_chain();
	for (gi = 0; gi < 3; gi++) {
		for (mode = 0; mode < VMGPU_SPLIT_NUM_MODES; mode++) {
			for (mv = 0; mv < VMGPU_MOVE_NUM; mv++) {
				struct rig r;
				uint64_t irq[4], mmio[4];

				if (mv != VMGPU_MOVE_PULL &&
				    mode < VMGPU_SPLIT_PORTION)
					continue;
				chain_geom(&g, gpus[gi], mode, mv);
				rig_init(&r, &g, gpus[gi]);
				for (gpu = 0; gpu < gpus[gi]; gpu++) {
					irq[gpu] = counter(r.th, gpu, VMGPU_CNT_INTERRUPTS);
					mmio[gpu] = counter(r.th, gpu, VMGPU_CNT_MMIO_WRITES);
				}
				ts_split_run(&r.t, NULL, NULL);
				ASSERT_EQ(0, memcmp(cpu_out,
						    th_va(r.th, &r.as, r.out),
						    sizeof(cpu_out))) {
					TH_LOG("%u GPUs, mode %u, movement %u",
					       gpus[gi], mode, mv);
				}
				for (gpu = 0; gpu < gpus[gi]; gpu++) {
					/* One packet: its interrupt, its tail and doorbell. */
					EXPECT_EQ(irq[gpu] + 1,
						  counter(r.th, gpu, VMGPU_CNT_INTERRUPTS));
					EXPECT_EQ(mmio[gpu] + 2,
						  counter(r.th, gpu, VMGPU_CNT_MMIO_WRITES));
					EXPECT_EQ(0, counter(r.th, gpu, VMGPU_CNT_ERRORS));
				}
				/* A second run (next epoch) on the same tables. */
				memset(th_va(r.th, &r.as, r.out), 0, W * H * 4);
				ts_split_run(&r.t, NULL, NULL);
				EXPECT_EQ(0, memcmp(cpu_out,
						    th_va(r.th, &r.as, r.out),
						    sizeof(cpu_out)));
				rig_free(&r);
				runs++;
			}
		}
	}
	TH_LOG("%u configurations, each bit-identical to the CPU", runs);
}

/* A counter summed over the GPUs. */
static uint64_t total(struct testhost *th, uint32_t gpus, uint32_t n)
{
	uint64_t sum = 0;
	uint32_t gpu;

	for (gpu = 0; gpu < gpus; gpu++)
		sum += counter(th, gpu, n);
	return sum;
}

/*
 * Only what is read moves (R6): on 4 GPUs, per-region, push and prefetch
 * copy exactly the halo each GPU's portion reads of the others' (the
 * 2 x 2 portions of the design's Figure 9: 65 pixels per GPU and
 * intermediate resource), pull at least that; direct remote reads copy
 * nothing and read over the links instead; hybrid replicates exactly the
 * rows each band reads of its neighbours (row bands: 6 rows of 64
 * pixels per resource), and every result is the CPU's.
 */
TEST(every_movement_moves_only_what_is_read)
{
	const uint64_t halo = 65ull * 4 * 4 * (KERNELS - 1);
	const uint64_t rows = 6ull * W * 4 * (KERNELS - 1);
	uint64_t copied[VMGPU_MOVE_NUM], remote[VMGPU_MOVE_NUM];
	struct split_geom g;
	uint32_t mv;

	cpu_chain();
	for (mv = 0; mv < VMGPU_MOVE_NUM; mv++) {
		struct rig r;

		chain_geom(&g, 4, VMGPU_SPLIT_REGION, mv);
		rig_init(&r, &g, 4);
		ts_split_run(&r.t, NULL, NULL);
		ASSERT_EQ(0, memcmp(cpu_out, th_va(r.th, &r.as, r.out),
				    sizeof(cpu_out)));
		copied[mv] = total(r.th, 4, VMGPU_CNT_BYTES_COPY);
		remote[mv] = total(r.th, 4, VMGPU_CNT_BYTES_REMOTE_READ);
		rig_free(&r);
	}
	EXPECT_LE(halo, copied[VMGPU_MOVE_PULL]);
	EXPECT_EQ(halo, copied[VMGPU_MOVE_PUSH]);
	EXPECT_EQ(halo, copied[VMGPU_MOVE_PREFETCH]);
	EXPECT_EQ(0, copied[VMGPU_MOVE_REMOTE]);
	EXPECT_EQ(rows, copied[VMGPU_MOVE_HYBRID]);
	/* Copies make every read local; remote reads read over links. */
	EXPECT_EQ(0, remote[VMGPU_MOVE_PUSH]);
	EXPECT_EQ(0, remote[VMGPU_MOVE_PREFETCH]);
	EXPECT_LT(0, remote[VMGPU_MOVE_REMOTE]);
	EXPECT_LE(remote[VMGPU_MOVE_HYBRID], remote[VMGPU_MOVE_REMOTE]);
}

/*
 * Draw-style work (R9): blur (compute) -> relief_shadow (a draw pass over
 * screen tiles, reading the blurred image anywhere: a whole read) ->
 * blur. Every mode and movement on 1, 2 and 4 GPUs gives the CPU's
 * image. On 4 GPUs per region: no draw portion starts before the last
 * compute portion it reads (all of them) ends, and the compute after the
 * draw starts before the last draw portion ends (region by region).
 */
#define DRAW_STEPS	48

static void draw_chain_geom(struct split_geom *g, uint32_t gpus,
			    uint32_t mode, uint32_t movement)
{
	chain_geom(g, gpus, mode, movement);
	g->num_kernels = 3;
	g->num_resources = 4;
	g->shared[KERNELS] = 0;
	g->shared[3] = 1;
	g->k[1].radius[0][0] = VMGPU_SPLIT_WHOLE;
	g->k[1].radius[0][1] = VMGPU_SPLIT_WHOLE;
	g->k[1].flags = VMGPU_SPLIT_DRAW;
}

TEST(draw_pass_takes_part_in_region_dependencies)
{
	static const uint32_t gpus[] = { 1, 2, 4 };
	static float tmp[W * H], tmp2[W * H], ref[W * H];
	uint32_t gi, mode, mv, gpu, i, runs = 0;
	struct split_geom g;

	input(tmp);
	ref_blur3x3(tmp, tmp2, W, H);
	ref_relief_shadow(tmp2, tmp, W, H, DRAW_STEPS);
	ref_blur3x3(tmp, ref, W, H);
	for (gi = 0; gi < 3; gi++) {
		for (mode = 0; mode < VMGPU_SPLIT_NUM_MODES; mode++) {
			for (mv = 0; mv < VMGPU_MOVE_NUM; mv++) {
				struct ts_kernel k[3];
				uint64_t shared[4] = { 0 };
				uint32_t wh[2] = { W, H };
				struct testhost *th;
				struct vg_config c;
				struct ts_split t;
				struct th_as as;
				uint64_t in, out, blur, relief;

				if (mv != VMGPU_MOVE_PULL &&
				    mode < VMGPU_SPLIT_PORTION)
					continue;
				draw_chain_geom(&g, gpus[gi], mode, mv);
				/*
				 * Direct remote reads on the design's 2 x 2
				 * portions (4 tile rows each) for the timing.
				 */
				if (gpus[gi] == 4 && mv == VMGPU_MOVE_REMOTE) {
					g.portions[0] = 2;
					g.portions[1] = 2;
				}
				vg_config_defaults(&c);
				c.gpus = 4;
				c.sms = 2;
				/* Launches shorter than a draw portion. */
				c.launch_ns = 200;
				th = th_new(64 << 20);
				th_device_new(th, &c, 4);
				vg_device_trace_keep(th->dev, true);
				th_as_init(th, &as, VA0);
				for (i = 0; i < 4; i++) {
					th_gpu_setup(th, i, 16);
					th_set_root(th, i, 0, &as);
				}
				blur = th_builtin(th, &as, "blur3x3");
				relief = th_builtin(th, &as, "relief_shadow");
				in = th_as_alloc(th, &as, W * H * 4,
						 VMGPU_PTE_READ | VMGPU_PTE_WRITE);
				out = th_as_alloc(th, &as, W * H * 4,
						  VMGPU_PTE_READ | VMGPU_PTE_WRITE);
				input(th_va(th, &as, in));
				shared[0] = in;
				shared[3] = out;
				memset(k, 0, sizeof(k));
				for (i = 0; i < 3; i++) {
					k[i].code_va = i == 1 ? relief : blur;
					k[i].args_bytes = i == 1 ? 28 : 24;
					memcpy(k[i].args, wh, 8);
					k[i].read_offset[0] = 8;
					k[i].write_offset = 16;
				}
				k[1].args[24] = DRAW_STEPS;
				ts_split_init(&t, th, &as, &g, k, shared);
				ts_split_run(&t, NULL, NULL);
				ASSERT_EQ(0, memcmp(ref, th_va(th, &as, out),
						    sizeof(ref))) {
					TH_LOG("%u GPUs, mode %u, movement %u",
					       gpus[gi], mode, mv);
				}
				if (gpus[gi] == 4 && mode == VMGPU_SPLIT_REGION &&
				    mv == VMGPU_MOVE_REMOTE) {
					uint64_t end0 = 0, start2 = UINT64_MAX;
					uint64_t start1 = UINT64_MAX, end1 = 0;

					for (gpu = 0; gpu < 4; gpu++) {
						uint32_t d = 0, o;

						for (o = 0; o < t.plan.nops[gpu]; o++) {
							const struct split_op *op =
								&t.plan.ops[gpu][o];
							const struct vmgpu_trace_record *rec;

							if (op->kind != SPLIT_OP_DISPATCH)
								continue;
							rec = th_trace_find(th->dev,
								VMGPU_TRACE_DISPATCH, gpu,
								t.seqno, d++);
							ASSERT_NE(NULL, rec);
							if (op->kernel == 0 && rec->end_ns > end0)
								end0 = rec->end_ns;
							if (op->kernel == 1 && rec->start_ns < start1)
								start1 = rec->start_ns;
							if (op->kernel == 1 && rec->end_ns > end1)
								end1 = rec->end_ns;
							if (op->kernel == 2 && rec->start_ns < start2)
								start2 = rec->start_ns;
						}
					}
					EXPECT_LE(end0, start1);
					EXPECT_LT(start2, end1);
					TH_LOG("compute ends %llu, draw %llu..%llu, compute after it from %llu",
					       (unsigned long long)end0,
					       (unsigned long long)start1,
					       (unsigned long long)end1,
					       (unsigned long long)start2);
				}
				ts_split_free(&t);
				th_free(th);
				runs++;
			}
		}
	}
	TH_LOG("%u configurations, each bit-identical to the CPU", runs);
}

/*
 * Dynamic allocation (R7): the GPUs take 8 x 8 portions as they become
 * free; 1, 2 and 4 GPUs, two runs each, give the CPU's result, and every
 * portion of every kernel ran once (the GPUs' dispatch counters add up).
 */
TEST(dynamic_chain_is_bit_identical_on_1_2_4_gpus)
{
	static const uint32_t gpus[] = { 1, 2, 4 };
	struct split_geom g;
	uint32_t gi, gpu, run;

	cpu_chain();
	for (gi = 0; gi < 3; gi++) {
		struct rig r;

		chain_geom(&g, gpus[gi], VMGPU_SPLIT_PORTION, VMGPU_MOVE_PULL);
		g.allocation = VMGPU_SPLIT_DYNAMIC;
		rig_init(&r, &g, gpus[gi]);
		for (run = 0; run < 2; run++) {
			uint64_t before = 0, after = 0;

			for (gpu = 0; gpu < gpus[gi]; gpu++)
				before += counter(r.th, gpu, VMGPU_CNT_DISPATCHES);
			memset(th_va(r.th, &r.as, r.out), 0, W * H * 4);
			ts_split_run(&r.t, NULL, NULL);
			ASSERT_EQ(0, memcmp(cpu_out, th_va(r.th, &r.as, r.out),
					    sizeof(cpu_out))) {
				TH_LOG("%u GPUs, run %u", gpus[gi], run);
			}
			for (gpu = 0; gpu < gpus[gi]; gpu++)
				after += counter(r.th, gpu, VMGPU_CNT_DISPATCHES);
			EXPECT_EQ(KERNELS * 64, after - before);
		}
		rig_free(&r);
	}
}

/* The kernel of the DISPATCH that follows operation @i on @gpu. */
static uint32_t kernel_after(const struct split_plan *p, uint32_t gpu,
			     uint32_t i)
{
	for (; i < p->nops[gpu]; i++)
		if (p->ops[gpu][i].kind == SPLIT_OP_DISPATCH)
			return p->ops[gpu][i].kernel;
	return ~0u;
}

/*
 * Four GPUs in bands (portion grid 1 x 4), per-region dependencies. GPU 0
 * is held by another packet first: GPU 1, which reads GPU 0's rows, waits
 * for it in its first kernel reading them; GPU 2's kernel 1 reads GPUs 1
 * and 3 only, and GPU 3 reads GPU 0's results only through GPUs 1 and 2,
 * three kernels later: they run those kernels while GPU 0 is still held.
 */
TEST(delayed_producer_holds_exactly_its_readers)
{
	static const char spin_src[] =
		"	mov r0, 0\n"
		"loop:\n"
		"	add r0, r0, 1\n"
		"	setp.lt p0, r0, 30000\n"
		"	bra p0, loop\n"
		"	exit\n";
	const struct vmgpu_trace_record *rec;
	struct th_cmdbuf *cb = calloc(1, sizeof(*cb));
	uint32_t one[3] = { 1, 1, 1 }, gpu, i;
	uint64_t start[4], end[4];
	uint64_t first_wait_end[4] = { 0 };
	uint64_t last_early_wait[4] = { 0 };
	struct split_geom g;
	struct rig r;
	size_t nrec, j;

	ASSERT_NE(NULL, cb);
	cpu_chain();
	chain_geom(&g, 4, VMGPU_SPLIT_REGION, VMGPU_MOVE_PULL);
	g.portions[0] = 1;
	g.portions[1] = 4;
	g.region[0] = 8;
	g.region[1] = 1;
	rig_init(&r, &g, 4);
	th_cb_init(cb);
	th_cb_dispatch(cb, th_kernel(r.th, &r.as, spin_src), 0, 0, one, one,
		       0, 0);
	th_cb_end(cb);
	th_cb_submit(r.th, &r.as, 0, cb, 1000);
	r.t.seqno = 1000;
	ts_split_run(&r.t, start, end);
	ASSERT_EQ(0, memcmp(cpu_out, th_va(r.th, &r.as, r.out),
			    sizeof(cpu_out)));
	EXPECT_LT(start[3] + 1000, start[0]);	/* GPU 0 starts late */

	/* Each GPU's DEP_WAITs in order, matched with the plan's waits. */
	rec = vg_device_trace_records(r.th->dev, &nrec);
	for (gpu = 0; gpu < 4; gpu++) {
		const struct split_plan *p = &r.t.plan;

		j = 0;
		for (i = 0; i < p->nops[gpu]; i++) {
			uint32_t k;

			if (p->ops[gpu][i].kind != SPLIT_OP_WAIT)
				continue;
			k = kernel_after(p, gpu, i);
			while (j < nrec &&
			       (rec[j].kind != VMGPU_TRACE_CMD ||
				rec[j].gpu != gpu || rec[j].seqno != r.t.seqno ||
				rec[j].aux != VMGPU_CMD_DEP_WAIT))
				j++;
			ASSERT_LT(j, nrec);
			if (k == 1 && !first_wait_end[gpu])
				first_wait_end[gpu] = rec[j].end_ns;
			if (k <= 2 && rec[j].end_ns > last_early_wait[gpu])
				last_early_wait[gpu] = rec[j].end_ns;
			j++;
		}
	}
	/* GPU 1 waited for GPU 0's kernel 0 in its kernel 1 ... */
	EXPECT_GT(first_wait_end[1], start[0]);
	/* ... GPU 3 ran its kernels 1 and 2 meanwhile. */
	EXPECT_LT(last_early_wait[3], start[0]);
	/* GPU 2's kernel 1 reads GPUs 1 and 3 only: it did not wait for 0. */
	EXPECT_LT(first_wait_end[2], start[0]);
	EXPECT_LT(0, counter(r.th, 1, VMGPU_CNT_DEP_WAITS));
	rig_free(&r);
	free(cb);
}

TEST(bad_chains_are_refused_with_their_rule)
{
	struct split_plan p;
	struct split_geom g;
	const char *why = NULL;

	chain_geom(&g, 4, VMGPU_SPLIT_PORTION, 0);
	g.k[1].write = 1;	/* written twice (by kernel 0 too) */
	EXPECT_EQ(-EINVAL, split_plan_build(&p, &g, &why));
	EXPECT_STREQ("a resource written by two kernels", why);
	chain_geom(&g, 4, VMGPU_SPLIT_PORTION, 0);
	g.k[0].radius[0][0] = 9;
	EXPECT_EQ(-EINVAL, split_plan_build(&p, &g, &why));
	EXPECT_STREQ("read radius over one block", why);
	chain_geom(&g, 4, VMGPU_SPLIT_BARRIER, VMGPU_MOVE_PUSH);
	EXPECT_EQ(-EINVAL, split_plan_build(&p, &g, &why));
	chain_geom(&g, 4, VMGPU_SPLIT_OVERLAP, VMGPU_MOVE_HYBRID);
	EXPECT_EQ(-EINVAL, split_plan_build(&p, &g, &why));
	chain_geom(&g, 4, VMGPU_SPLIT_PORTION, VMGPU_MOVE_NUM);
	EXPECT_EQ(-EINVAL, split_plan_build(&p, &g, &why));
	EXPECT_STREQ("unknown mode or movement", why);
	chain_geom(&g, 4, VMGPU_SPLIT_PORTION, 0);
	g.k[1].radius[0][0] = VMGPU_SPLIT_WHOLE;
	EXPECT_EQ(-EINVAL, split_plan_build(&p, &g, &why));
	EXPECT_STREQ("a whole read is whole in x and y", why);
	chain_geom(&g, 4, VMGPU_SPLIT_PORTION, 0);
	g.k[1].flags = 2;
	EXPECT_EQ(-EINVAL, split_plan_build(&p, &g, &why));
	EXPECT_STREQ("unknown kernel flags", why);
	chain_geom(&g, 4, VMGPU_SPLIT_PORTION, 0);
	g.k[1].flags = VMGPU_SPLIT_DRAW;
	g.allocation = VMGPU_SPLIT_DYNAMIC;
	EXPECT_EQ(-EINVAL, split_plan_build(&p, &g, &why));
	EXPECT_STREQ("dynamic allocation: no draw passes", why);
	chain_geom(&g, 4, VMGPU_SPLIT_REGION, 0);
	g.region[0] = 3;
	g.region[1] = 1;
	EXPECT_EQ(-EINVAL, split_plan_build(&p, &g, &why));
	EXPECT_STREQ("region size does not divide a portion", why);
	chain_geom(&g, 4, VMGPU_SPLIT_PORTION, 0);
	g.portions[0] = 3;
	g.portions[1] = 1;
	EXPECT_EQ(-EINVAL, split_plan_build(&p, &g, &why));
	chain_geom(&g, 4, VMGPU_SPLIT_PORTION, 0);
	g.k[0].read[0] = 2;	/* read before kernel 1 writes it */
	EXPECT_EQ(-EINVAL, split_plan_build(&p, &g, &why));
	EXPECT_STREQ("a resource read before the kernel that writes it", why);
	/* 512 one-block regions per GPU: over the packet's dispatches */
	chain_geom(&g, 1, VMGPU_SPLIT_REGION, 0);
	g.block[0] = g.block[1] = 1;
	g.width = g.height = 16;
	g.k[0].radius[0][0] = g.k[0].radius[0][1] = 1;
	g.region[0] = g.region[1] = 1;
	EXPECT_EQ(-E2BIG, split_plan_build(&p, &g, &why));
	chain_geom(&g, 9, VMGPU_SPLIT_PORTION, 0);
	EXPECT_EQ(-EINVAL, split_plan_build(&p, &g, &why));
	chain_geom(&g, 4, VMGPU_SPLIT_REGION, 0);
	g.allocation = VMGPU_SPLIT_DYNAMIC;
	EXPECT_EQ(-EINVAL, split_plan_build(&p, &g, &why));
	EXPECT_STREQ("dynamic allocation needs mode PORTION (and no push)", why);
}

TEST_HARNESS_MAIN
