// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime's placement (SPEC P5, P6) in virtual time: a mixed workload
 * on 4 GPUs of the host device model (selftests/host/testrt.h) and the
 * CPU device (4 workers), one logical device of all five:
 *
 *  - 96 independent instances of the built-in "fill" kernel of three
 *    lengths (4, 16 and 64 blocks of 256 threads, 300 idle iterations
 *    per thread), in turn;
 *  - 8 dependent chains of 6 instances (a fill, then saxpy back and
 *    forth between two buffers of 16 blocks: RAW and WAR on each),
 *    priority 1.
 *
 * Enqueued together, one flush; makespan = the last instance's end on
 * the virtual clock. Each policy runs the workload three times in one
 * runtime, each after the previous one finished: the first (no history
 * yet) and the third are printed, with the third's instances per device. The lower bound:
 * the larger of the longest chain (its instances' device times on a GPU,
 * back to back) and the fractional (LP) bound of spreading the work over
 * the devices: the CPU takes the kinds of instance it is relatively
 * fastest at first, in fractions, until its time equals the GPUs' (each
 * instance's device time alone on a GPU, and each kind's on the CPU).
 * Transfers and dependencies are left out: a true lower bound. Then timing outliers: on GPUs 1, 2 and 3 the first run of
 * each kernel and size takes 50 times its device time (a cold start);
 * dmda's median against dmda with the mean of all samples.
 *
 *   build/bench/runtime
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vmgpu/runtime.h>
#include "testrt.h"

#define GPUS		4
#define NIND		96
#define NCHAIN		8
#define CHAIN_LEN	6
#define NINST		(NIND + NCHAIN * CHAIN_LEN)
#define SPIN		300
#define BLOCK		256

static const uint32_t lengths[3] = { 4, 16, 64 };	/* blocks */

struct run {
	struct trt *t;
	struct vmgpu_rt *rt;
	vmgpu_rt_handle ctx, q, fill, saxpy;
	vmgpu_rt_handle ind[NIND];
	vmgpu_rt_handle cx[NCHAIN], cy[NCHAIN];
	vmgpu_rt_handle ev[NINST];
	int chain_of[NINST];			/* -1: independent */
	int kind[NINST];			/* 0..2 fill lengths, 3 saxpy */
};

static void die(struct vmgpu_rt *rt, const char *what, int r)
{
	char msg[256] = "";

	if (rt)
		vmgpu_rt_error_message(rt, msg, sizeof(msg));
	fprintf(stderr, "bench/runtime: %s: %d %s\n", what, r, msg);
	exit(1);
}

#define CHECK(rt, what, call)                                              \
	do {                                                               \
		int r_ = (call);                                           \
		if (r_ < 0)                                                \
			die(rt, what, r_);                                 \
	} while (0)

static vmgpu_rt_handle builtin(struct vmgpu_rt *rt, vmgpu_rt_handle ctx,
			       const char *name)
{
	char err[256];
	vmgpu_rt_handle k;
	void *image;
	size_t bytes;

	if (vmgpu_asm_assemble(vmgpu_builtin_kernel_source(name), &image,
			       &bytes, err, sizeof(err)))
		die(NULL, err, -EINVAL);
	CHECK(rt, "kernel", vmgpu_rt_kernel_create(rt, ctx, image, bytes, 0,
						   &k));
	free(image);
	return k;
}

static void run_new(struct run *w, uint32_t policy, bool spikes)
{
	struct vmgpu_rt_backend be;
	struct vmgpu_rt_config cfg = { 0 };
	uint32_t phys[GPUS + 1], dev, i;

	memset(w, 0, sizeof(*w));
	w->t = trt_new(GPUS, 0, 512);
	if (spikes) {
		/* GPUs 1..3: the first 2 runs of each kernel and size */
		w->t->spike_first_mask = 0xe;
		w->t->spike_first = 1;
		w->t->spike_factor = 50;
	}
	be = trt_backend(w->t);
	cfg.backends = &be;
	cfg.num_backends = 1;
	cfg.cpu_threads = 4;
	cfg.policy = policy;
	CHECK(NULL, "runtime", vmgpu_rt_create(&cfg, &w->rt));
	for (i = 0; i <= GPUS; i++)
		phys[i] = i;
	CHECK(w->rt, "device", vmgpu_rt_logical_device(w->rt, phys, GPUS + 1,
						       &dev));
	CHECK(w->rt, "context", vmgpu_rt_context_create(w->rt, dev, 0,
							&w->ctx));
	CHECK(w->rt, "queue", vmgpu_rt_queue_create(w->rt, w->ctx, &w->q));
	w->fill = builtin(w->rt, w->ctx, "fill");
	w->saxpy = builtin(w->rt, w->ctx, "saxpy");
	for (i = 0; i < NIND; i++)
		CHECK(w->rt, "buffer", vmgpu_rt_buffer_create(
			      w->rt, w->ctx, 64 * BLOCK * 4, &w->ind[i]));
	for (i = 0; i < NCHAIN; i++) {
		CHECK(w->rt, "buffer", vmgpu_rt_buffer_create(
			      w->rt, w->ctx, 16 * BLOCK * 4, &w->cx[i]));
		CHECK(w->rt, "buffer", vmgpu_rt_buffer_create(
			      w->rt, w->ctx, 16 * BLOCK * 4, &w->cy[i]));
	}
}

static void run_free(struct run *w)
{
	vmgpu_rt_destroy(w->rt);
	trt_free(w->t);
}

static vmgpu_rt_handle enq_fill(struct run *w, vmgpu_rt_handle buf,
				uint32_t blocks, int32_t prio)
{
	struct vmgpu_rt_arg a[5] = {
		{ .type = VMGPU_PARAM_BUF_WO },
		{ .type = VMGPU_PARAM_I32 }, { .type = VMGPU_PARAM_I32 },
		{ .type = VMGPU_PARAM_I32 }, { .type = VMGPU_PARAM_I32 },
	};
	struct vmgpu_rt_instance inst = {
		.kernel = w->fill, .num_args = 5, .args = a,
		.grid = { blocks }, .block = { BLOCK }, .priority = prio,
	};
	vmgpu_rt_handle ev;

	a[0].buf = buf;
	a[1].i32 = (int32_t)(blocks * BLOCK);
	a[2].i32 = 3;
	a[3].i32 = 1;
	a[4].i32 = SPIN;
	CHECK(w->rt, "enqueue", vmgpu_rt_enqueue(w->rt, w->q, &inst, &ev));
	return ev;
}

static vmgpu_rt_handle enq_saxpy(struct run *w, vmgpu_rt_handle x,
				 vmgpu_rt_handle y, int32_t prio)
{
	struct vmgpu_rt_arg a[4] = {
		{ .type = VMGPU_PARAM_I32 }, { .type = VMGPU_PARAM_F32 },
		{ .type = VMGPU_PARAM_BUF_RO }, { .type = VMGPU_PARAM_BUF_RW },
	};
	struct vmgpu_rt_instance inst = {
		.kernel = w->saxpy, .num_args = 4, .args = a,
		.grid = { 16 }, .block = { BLOCK }, .priority = prio,
	};
	vmgpu_rt_handle ev;

	a[0].i32 = 16 * BLOCK;
	a[1].f32 = 0.5f;
	a[2].buf = x;
	a[3].buf = y;
	CHECK(w->rt, "enqueue", vmgpu_rt_enqueue(w->rt, w->q, &inst, &ev));
	return ev;
}

/* The workload once; its makespan from the earliest start. */
static uint64_t workload(struct run *w, uint32_t *per_dev, uint64_t *gpu_ns)
{
	struct vmgpu_rt_event_info info;
	uint64_t first = UINT64_MAX, last = 0;
	uint32_t i, c, k, n = 0;

	/* Chains first in program order interleaved with the rest. */
	for (i = 0; i < NIND; i++) {
		if (i % (NIND / NCHAIN) == 0) {
			c = i / (NIND / NCHAIN);
			w->chain_of[n] = (int)c;
			w->kind[n] = 1;
			w->ev[n++] = enq_fill(w, w->cx[c], 16, 1);
			for (k = 1; k < CHAIN_LEN; k++) {
				w->chain_of[n] = (int)c;
				w->kind[n] = 3;
				w->ev[n++] = k % 2 ?
					enq_saxpy(w, w->cx[c], w->cy[c], 1) :
					enq_saxpy(w, w->cy[c], w->cx[c], 1);
			}
		}
		w->chain_of[n] = -1;
		w->kind[n] = (int)(i % 3);
		w->ev[n++] = enq_fill(w, w->ind[i], lengths[i % 3], 0);
	}
	CHECK(w->rt, "finish", vmgpu_rt_finish(w->rt, w->q));
	for (i = 0; i < n; i++) {
		CHECK(w->rt, "query", vmgpu_rt_event_query(w->rt, w->ev[i],
							   &info));
		if (info.error)
			die(w->rt, "instance failed", info.error);
		if (info.start_ns < first)
			first = info.start_ns;
		if (info.end_ns > last)
			last = info.end_ns;
		if (per_dev)
			per_dev[info.phys]++;
		if (gpu_ns)
			gpu_ns[i] = info.exec_ns;
		vmgpu_rt_release(w->rt, w->ev[i]);
	}
	return last - first;
}

/*
 * The fractional bound: the least T such that the CPU, taking kinds by
 * its speed relative to a GPU (best first, in fractions) for at most T of
 * its time, leaves at most 4 T of GPU work.
 */
static uint64_t lp_bound(const uint64_t *gpu_ns, const int *kind,
			 const uint64_t *gk, const uint64_t *ck)
{
	double work[4] = { 0 }, r[4], lo = 0, hi = 0, t;
	int order[4] = { 0, 1, 2, 3 }, i, j, it;

	for (i = 0; i < NINST; i++) {
		work[kind[i]] += (double)gpu_ns[i];
		hi += (double)gpu_ns[i];
	}
	for (i = 0; i < 4; i++)
		r[i] = (double)gk[i] / (double)ck[i];
	for (i = 0; i < 4; i++)
		for (j = i + 1; j < 4; j++)
			if (r[order[j]] > r[order[i]]) {
				int x = order[i];

				order[i] = order[j];
				order[j] = x;
			}
	hi /= GPUS;
	for (it = 0; it < 100; it++) {
		double cpu = 0, left = 0;

		t = (lo + hi) / 2;
		for (i = 0; i < 4; i++) {
			int k = order[i];
			double take = (t - cpu) * r[k];

			if (take > work[k])
				take = work[k];
			if (take < 0)
				take = 0;
			cpu += take / r[k];
			left += work[k] - take;
		}
		if (left / GPUS <= t)
			hi = t;
		else
			lo = t;
	}
	return (uint64_t)hi;
}

static void print_row(const char *name, uint64_t cold, uint64_t warm,
		      uint64_t lb, const uint32_t *per)
{
	uint32_t d;

	printf("%-22s %10.1f %10.1f %7.3f", name, cold / 1000.0, warm / 1000.0,
	       (double)warm / lb);
	for (d = 0; d <= GPUS; d++)
		printf(" %4u", per[d]);
	printf("\n");
}

int main(void)
{
	static const struct {
		const char *name;
		uint32_t policy;
	} pols[] = {
		{ "dmda (median)", VMGPU_RT_POLICY_DMDA },
		{ "round-robin", VMGPU_RT_POLICY_ROUND_ROBIN },
		{ "always GPU 0", VMGPU_RT_POLICY_FIRST },
	};
	uint64_t gpu_ns[NINST], cpu_kind[4] = { 0 }, gpu_kind[4] = { 0 };
	uint64_t total = 0, chain = 0, lb, cold, warm;
	int w_kind[NINST];
	uint32_t per[GPUS + 1], i, k, p;
	struct run w;

	/* Device time of every instance on a GPU, alone: always GPU 0. */
	run_new(&w, VMGPU_RT_POLICY_FIRST, false);
	workload(&w, NULL, gpu_ns);
	for (i = 0; i < NINST; i++) {
		total += gpu_ns[i];
		w_kind[i] = w.kind[i];
	}
	for (i = 0; i < NINST; i++)
		if (w.chain_of[i] == 0)
			chain += gpu_ns[i];
	run_free(&w);
	{
		/* The CPU alone: each length once, and a saxpy. */
		struct run c;

		run_new(&c, VMGPU_RT_POLICY_FIRST, false);
		for (k = 0; k < 4; k++) {
			struct vmgpu_rt_event_info ic, ig;
			vmgpu_rt_handle e1, e2;
			uint32_t set = GPUS, dev;
			vmgpu_rt_handle ctx, q;

			/* on the CPU: a context of the CPU alone */
			CHECK(c.rt, "dev", vmgpu_rt_logical_device(c.rt, &set,
								   1, &dev));
			CHECK(c.rt, "ctx", vmgpu_rt_context_create(c.rt, dev, 0,
								   &ctx));
			CHECK(c.rt, "q", vmgpu_rt_queue_create(c.rt, ctx, &q));
			{
				vmgpu_rt_handle saved = c.q;

				c.q = q;
				e1 = k < 3 ? enq_fill(&c, c.ind[0], lengths[k], 0) :
					     enq_saxpy(&c, c.cx[0], c.cy[0], 0);
				c.q = saved;
				e2 = k < 3 ? enq_fill(&c, c.ind[1], lengths[k], 0) :
					     enq_saxpy(&c, c.cx[1], c.cy[1], 0);
			}
			CHECK(c.rt, "wait", vmgpu_rt_wait(c.rt, e1, -1));
			CHECK(c.rt, "wait", vmgpu_rt_wait(c.rt, e2, -1));
			vmgpu_rt_event_query(c.rt, e1, &ic);
			vmgpu_rt_event_query(c.rt, e2, &ig);
			cpu_kind[k] = ic.exec_ns;
			gpu_kind[k] = ig.exec_ns;
		}
		run_free(&c);
	}
	lb = lp_bound(gpu_ns, w_kind, gpu_kind, cpu_kind);
	if (chain > lb)
		lb = chain;

	printf("Runtime placement: %u instances (%u independent fill of %u/%u/%u "
	       "blocks x %u threads, %u chains of %u), %u GPUs + CPU (4 workers)\n",
	       NINST, NIND, lengths[0], lengths[1], lengths[2], BLOCK, NCHAIN,
	       CHAIN_LEN, GPUS);
	printf("device time per instance, GPU / CPU (us): fill %u: %.1f / %.1f, "
	       "fill %u: %.1f / %.1f, fill %u: %.1f / %.1f, saxpy: %.1f / %.1f\n",
	       lengths[0], gpu_kind[0] / 1000.0, cpu_kind[0] / 1000.0,
	       lengths[1], gpu_kind[1] / 1000.0, cpu_kind[1] / 1000.0,
	       lengths[2], gpu_kind[2] / 1000.0, cpu_kind[2] / 1000.0,
	       gpu_kind[3] / 1000.0, cpu_kind[3] / 1000.0);
	printf("lower bound: max(LP bound of total GPU work %.1f us over %u GPUs + "
	       "CPU, chain %.1f us) = %.1f us\n\n", total / 1000.0, GPUS,
	       chain / 1000.0, lb / 1000.0);
	printf("%-22s %10s %10s %7s %4s %4s %4s %4s %4s\n", "policy",
	       "1st us", "3rd us", "3rd/LB", "gpu0", "gpu1", "gpu2", "gpu3",
	       "cpu");
	for (p = 0; p < 3; p++) {
		run_new(&w, pols[p].policy, false);
		cold = workload(&w, NULL, NULL);
		workload(&w, NULL, NULL);
		memset(per, 0, sizeof(per));
		warm = workload(&w, per, NULL);
		print_row(pols[p].name, cold, warm, lb, per);
		run_free(&w);
	}
	printf("\nTiming outliers: on GPUs 1-3 the first run of each kernel and "
	       "size takes 50x\n");
	printf("%-22s %10s %10s %7s %4s %4s %4s %4s %4s\n", "policy",
	       "1st us", "3rd us", "3rd/LB", "gpu0", "gpu1", "gpu2", "gpu3",
	       "cpu");
	for (p = 0; p < 2; p++) {
		uint32_t pol = p ? VMGPU_RT_POLICY_DMDA_MEAN :
				   VMGPU_RT_POLICY_DMDA;

		run_new(&w, pol, true);
		cold = workload(&w, NULL, NULL);
		workload(&w, NULL, NULL);
		memset(per, 0, sizeof(per));
		warm = workload(&w, per, NULL);
		print_row(p ? "dmda (mean), spikes" : "dmda (median), spikes",
			  cold, warm, lb, per);
		printf("%-22s %llu spikes\n", "",
		       (unsigned long long)w.t->spikes);
		run_free(&w);
	}
	return 0;
}
