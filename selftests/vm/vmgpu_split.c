// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM selftest: the library's multi-GPU splitter through the driver
 * (Documentation/regions.rst, "The splitter"). A chain of four 3x3 blurs
 * split over 1, 2 and 4 GPUs (as many as the device has) in every mode
 * and movement gives exactly the CPU's result, run after run (epochs);
 * each GPU takes one packet per run: one interrupt, and no more register
 * writes than a one-dispatch packet (the GPUs wait for each other in
 * memory). Runs from several threads at once on their own splits do not
 * disturb each other; bad chains are refused.
 */
#include <pthread.h>

#include "kselftest_harness.h"
#include "vmgpu_test_util.h"
#include "../ref_kernels.h"
#include "vmgpu/split.h"

#define W	64
#define H	64
#define KERNELS	4

static void cpu_chain(float *out)
{
	static float tmp[W * H];
	int k, x;

	for (x = 0; x < W * H; x++)
		tmp[x] = (float)((x * 2654435761u) >> 22);
	for (k = 0; k < KERNELS; k++) {
		ref_blur3x3(tmp, out, W, H);
		memcpy(tmp, out, sizeof(tmp));
	}
}

FIXTURE(split) {
	struct vmgpu_device *dev;
	struct vmgpu_context *ctx;
	struct vmgpu_info info;
	struct vmgpu_bo *blur, *in, *out;
	float *pin, *pout;
	float ref[W * H];
};

FIXTURE_SETUP(split)
{
	uint32_t i;

	ASSERT_EQ(0, vmgpu_device_open(0, &self->dev, NULL, 0));
	ASSERT_EQ(0, vmgpu_device_query(self->dev, &self->info));
	ASSERT_EQ(0, vmgpu_context_create(self->dev, VMGPU_PRIORITY_NORMAL,
					  &self->ctx));
	self->blur = make_kernel(self->dev,
				 vmgpu_builtin_kernel_source("blur3x3"));
	ASSERT_NE(NULL, self->blur);
	self->in = make_bo(self->dev, W * H * 4, (void **)&self->pin);
	ASSERT_NE(NULL, self->in);
	self->out = make_bo(self->dev, W * H * 4, (void **)&self->pout);
	ASSERT_NE(NULL, self->out);
	for (i = 0; i < W * H; i++)
		self->pin[i] = (float)((i * 2654435761u) >> 22);
	cpu_chain(self->ref);
}

FIXTURE_TEARDOWN(split)
{
	vmgpu_bo_destroy(self->out);
	vmgpu_bo_destroy(self->in);
	vmgpu_bo_destroy(self->blur);
	vmgpu_context_destroy(self->ctx);
	vmgpu_device_close(self->dev);
}

/* R0 (in) -> blur -> R1 -> ... -> R4 (out); R1..R3 one copy per GPU. */
static void chain_desc(struct vmgpu_split_desc *d, struct vmgpu_bo *blur,
		       struct vmgpu_bo *in, struct vmgpu_bo *out,
		       uint32_t gpus, uint32_t mode, uint32_t movement,
		       uint32_t *args)
{
	uint32_t k;

	memset(d, 0, sizeof(*d));
	args[0] = W;
	args[1] = H;
	d->width = W;
	d->height = H;
	d->block[0] = d->block[1] = 8;
	d->num_kernels = KERNELS;
	d->num_resources = KERNELS + 1;
	d->resources[0] = in;
	d->resources[KERNELS] = out;
	for (k = 0; k < KERNELS; k++) {
		struct vmgpu_split_kernel *sk = &d->kernels[k];

		sk->kernel = blur;
		sk->args = args;
		sk->args_bytes = 24;
		sk->num_reads = 1;
		sk->reads[0].resource = k;
		sk->reads[0].radius[0] = sk->reads[0].radius[1] = 1;
		sk->reads[0].args_offset = 8;
		sk->write = k + 1;
		sk->write_args_offset = 16;
	}
	d->gpus = gpus;
	d->mode = mode;
	d->movement = movement;
}

static uint64_t cnt(struct vmgpu_device *dev, uint32_t gpu, const char *name)
{
	uint64_t v = 0;

	if (vmgpu_gpu_counter(dev, gpu, name, &v))
		return ~0ull;
	return v;
}

/* Register writes of one empty packet on @gpu, the yardstick. */
static uint64_t mmio_per_packet(struct __test_metadata *_metadata,
				FIXTURE_DATA(split) *self, uint32_t gpu)
{
	struct vmgpu_submit_info info = { .gpu = gpu };
	struct vmgpu_sync out = { 0 };
	struct vmgpu_cmdbuf *cb;
	uint64_t before;

	EXPECT_EQ(0, vmgpu_syncobj_create(self->dev, &out.handle));
	info.out = &out;
	info.out_count = 1;
	EXPECT_EQ(0, vmgpu_cmdbuf_create(self->dev, &cb));
	before = cnt(self->dev, gpu, "hw_mmio_writes");
	EXPECT_EQ(1, vmgpu_submit(self->ctx, cb, &info));
	EXPECT_EQ(0, vmgpu_syncobj_wait(self->dev, out.handle, 0,
					10 * SEC_NS));
	vmgpu_cmdbuf_destroy(cb);
	vmgpu_syncobj_destroy(self->dev, out.handle);
	return cnt(self->dev, gpu, "hw_mmio_writes") - before;
}

TEST_F(split, chain_matches_the_cpu_on_1_2_4_gpus_in_every_mode)
{
	static const uint32_t gpus[] = { 1, 2, 4 };
	uint32_t gi, mode, mv, g, args[6] = { 0 }, runs = 0;
	uint64_t irq[VMGPU_MAX_GPUS], mmio[VMGPU_MAX_GPUS], yard[VMGPU_MAX_GPUS];
	struct vmgpu_split_stats st;
	struct vmgpu_split_desc d;

	for (g = 0; g < self->info.num_gpus; g++)
		yard[g] = mmio_per_packet(_metadata, self, g);
	for (gi = 0; gi < 3 && gpus[gi] <= self->info.num_gpus; gi++) {
		for (mode = 0; mode < VMGPU_SPLIT_NUM_MODES; mode++) {
			for (mv = 0; mv < VMGPU_MOVE_NUM; mv++) {
				struct vmgpu_split *s;
				int run;

				if (mv != VMGPU_MOVE_PULL &&
				    mode < VMGPU_SPLIT_PORTION)
					continue;
				chain_desc(&d, self->blur, self->in, self->out,
					   gpus[gi], mode, mv, args);
				ASSERT_EQ(0, vmgpu_split_create(self->dev, &d, &s));
				for (run = 0; run < 2; run++) {
					memset(self->pout, 0, W * H * 4);
					for (g = 0; g < gpus[gi]; g++) {
						irq[g] = cnt(self->dev, g, "hw_interrupts");
						mmio[g] = cnt(self->dev, g, "hw_mmio_writes");
					}
					ASSERT_EQ(0, vmgpu_split_run(s, self->ctx,
								     30 * SEC_NS, &st));
					ASSERT_EQ(0, memcmp(self->ref, self->pout,
							    sizeof(self->ref))) {
						TH_LOG("%u GPUs, mode %u, movement %u, run %d",
						       gpus[gi], mode, mv, run);
					}
					for (g = 0; g < gpus[gi]; g++) {
						EXPECT_EQ(irq[g] + 1,
							  cnt(self->dev, g, "hw_interrupts"));
						/*
						 * No more than one packet's, once
						 * the driver's command-buffer pool
						 * has grown to this split's packets
						 * (the first run may replace a
						 * pooled buffer: a TLB flush at
						 * submission, not between portions).
						 */
						if (run)
							EXPECT_GE(mmio[g] + yard[g],
								  cnt(self->dev, g,
								      "hw_mmio_writes"));
						EXPECT_LE(st.start_ns[g], st.end_ns[g]);
					}
					EXPECT_LT(0, st.makespan_ns);
				}
				vmgpu_split_destroy(s);
				runs++;
			}
		}
	}
	TH_LOG("%u configurations on up to %u GPUs match the CPU", runs,
	       self->info.num_gpus);
}

/* Dynamic allocation (R7, TAKE) through the driver: the CPU's result. */
TEST_F(split, dynamic_chain_matches_the_cpu)
{
	static const uint32_t gpus[] = { 1, 2, 4 };
	uint32_t gi, g, args[6] = { 0 };
	struct vmgpu_split_stats st;
	struct vmgpu_split_desc d;

	for (gi = 0; gi < 3 && gpus[gi] <= self->info.num_gpus; gi++) {
		struct vmgpu_split *s;
		uint64_t irq[VMGPU_MAX_GPUS];
		int run;

		chain_desc(&d, self->blur, self->in, self->out, gpus[gi],
			   VMGPU_SPLIT_PORTION, VMGPU_MOVE_PULL, args);
		d.allocation = VMGPU_SPLIT_DYNAMIC;
		ASSERT_EQ(0, vmgpu_split_create(self->dev, &d, &s));
		for (run = 0; run < 2; run++) {
			memset(self->pout, 0, W * H * 4);
			for (g = 0; g < gpus[gi]; g++)
				irq[g] = cnt(self->dev, g, "hw_interrupts");
			ASSERT_EQ(0, vmgpu_split_run(s, self->ctx, 30 * SEC_NS,
						     &st));
			ASSERT_EQ(0, memcmp(self->ref, self->pout,
					    sizeof(self->ref))) {
				TH_LOG("%u GPUs, run %d", gpus[gi], run);
			}
			for (g = 0; g < gpus[gi]; g++)
				EXPECT_EQ(irq[g] + 1,
					  cnt(self->dev, g, "hw_interrupts"));
		}
		vmgpu_split_destroy(s);
	}
}

struct racer {
	FIXTURE_DATA(split) *self;
	struct vmgpu_bo *out;
	float *pout;
	uint32_t mode;
	int ok;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	struct vmgpu_split_desc d;
	struct vmgpu_split *s;
	uint32_t args[6] = { 0 };
	int i;

	chain_desc(&d, r->self->blur, r->self->in, r->out,
		   r->self->info.num_gpus, r->mode, VMGPU_MOVE_PULL, args);
	if (vmgpu_split_create(r->self->dev, &d, &s))
		return NULL;
	r->ok = 1;
	for (i = 0; i < 3; i++) {
		memset(r->pout, 0, W * H * 4);
		if (vmgpu_split_run(s, r->self->ctx, 60 * SEC_NS, NULL) ||
		    memcmp(r->self->ref, r->pout, W * H * 4))
			r->ok = 0;
	}
	vmgpu_split_destroy(s);
	return NULL;
}

/*
 * Four threads, each its own split on all GPUs, share one context: the
 * library submits one run's packets at a time, so no GPU's ring holds
 * two runs in the other order from another's (they would wait for each
 * other for ever).
 */
TEST_F(split, concurrent_splits_do_not_disturb_each_other)
{
	struct racer r[4];
	pthread_t t[4];
	int i;

	for (i = 0; i < 4; i++) {
		r[i].self = self;
		r[i].mode = i % VMGPU_SPLIT_NUM_MODES;
		r[i].ok = 0;
		r[i].out = make_bo(self->dev, W * H * 4, (void **)&r[i].pout);
		ASSERT_NE(NULL, r[i].out);
		ASSERT_EQ(0, pthread_create(&t[i], NULL, race, &r[i]));
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(1, r[i].ok);
		vmgpu_bo_destroy(r[i].out);
	}
}

TEST_F(split, bad_chains_are_refused)
{
	struct vmgpu_split_desc d;
	struct vmgpu_split *s = NULL;
	uint32_t args[6] = { 0 };
	char msg[256];

	chain_desc(&d, self->blur, self->in, self->out, 1,
		   VMGPU_SPLIT_REGION, 0, args);
	d.kernels[2].reads[0].args_offset = 20;	/* past 24 bytes */
	EXPECT_EQ(-EINVAL, vmgpu_split_create(self->dev, &d, &s));
	chain_desc(&d, self->blur, self->in, self->out,
		   self->info.num_gpus + 1, VMGPU_SPLIT_REGION, 0, args);
	EXPECT_EQ(-EINVAL, vmgpu_split_create(self->dev, &d, &s));
	chain_desc(&d, self->blur, self->in, self->out, 1,
		   VMGPU_SPLIT_NUM_MODES, 0, args);
	EXPECT_EQ(-EINVAL, vmgpu_split_create(self->dev, &d, &s));
	vmgpu_error_message(self->dev, msg, sizeof(msg));
	EXPECT_NE(NULL, strstr(msg, "mode"));
	chain_desc(&d, self->blur, self->in, self->out, 1,
		   VMGPU_SPLIT_REGION, 0, args);
	d.width = 60;				/* not whole blocks */
	EXPECT_EQ(-EINVAL, vmgpu_split_create(self->dev, &d, &s));
	EXPECT_EQ(NULL, s);
}

/*
 * Draw-style work (R9) through the driver: blur -> relief_shadow (a draw
 * pass reading the blurred image anywhere) -> blur, on as many GPUs as
 * the device has, in the dependency modes with each movement: the CPU's
 * image, twice (epochs).
 */
TEST_F(split, draw_chain_matches_the_cpu)
{
	static float tmp[W * H], tmp2[W * H], ref[W * H];
	uint32_t bargs[6] = { 0 }, rargs[7] = { 0 }, mode, mv, k;
	struct vmgpu_split_desc d;
	struct vmgpu_bo *relief;
	int run;

	relief = make_kernel(self->dev,
			     vmgpu_builtin_kernel_source("relief_shadow"));
	ASSERT_NE(NULL, relief);
	ref_blur3x3(self->pin, tmp, W, H);
	ref_relief_shadow(tmp, tmp2, W, H, 20);
	ref_blur3x3(tmp2, ref, W, H);
	for (mode = VMGPU_SPLIT_PORTION; mode <= VMGPU_SPLIT_REGION; mode++) {
		for (mv = 0; mv < VMGPU_MOVE_NUM; mv++) {
			struct vmgpu_split *s;

			chain_desc(&d, self->blur, self->in, self->out,
				   self->info.num_gpus, mode, mv, bargs);
			d.num_kernels = 3;
			d.num_resources = 4;
			d.resources[KERNELS] = NULL;
			d.resources[3] = self->out;
			rargs[0] = W;
			rargs[1] = H;
			rargs[6] = 20;
			k = 1;
			d.kernels[k].kernel = relief;
			d.kernels[k].args = rargs;
			d.kernels[k].args_bytes = 28;
			d.kernels[k].reads[0].radius[0] = VMGPU_SPLIT_WHOLE;
			d.kernels[k].reads[0].radius[1] = VMGPU_SPLIT_WHOLE;
			d.kernels[k].flags = VMGPU_SPLIT_DRAW;
			ASSERT_EQ(0, vmgpu_split_create(self->dev, &d, &s)) {
				char why[256];

				vmgpu_error_message(self->dev, why, sizeof(why));
				TH_LOG("%s", why);
			}
			for (run = 0; run < 2; run++) {
				memset(self->pout, 0, W * H * 4);
				ASSERT_EQ(0, vmgpu_split_run(s, self->ctx,
							     30 * SEC_NS, NULL));
				ASSERT_EQ(0, memcmp(ref, self->pout,
						    sizeof(ref))) {
					TH_LOG("mode %u, movement %u, run %d",
					       mode, mv, run);
				}
			}
			vmgpu_split_destroy(s);
		}
	}
	vmgpu_bo_destroy(relief);
}

TEST_HARNESS_MAIN
