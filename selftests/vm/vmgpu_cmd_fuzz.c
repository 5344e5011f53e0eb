// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM selftest of the submit ioctl's command validation: thousands of
 * mutations of a valid packet (bit flips, random words, truncation). Each
 * is either rejected by the driver with -EINVAL/-E2BIG, or it runs; and
 * when it runs, the device's own packet validation must never refuse it
 * (VMGPU_FAULT_BAD_COMMAND without a dispatch, or _RING): that is the
 * driver's job. Faults of the kernels it launches, and launch-time
 * mismatches with the executable only the device can see, are fine.
 */
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "vmgpu_cmd.h"
#include "vmgpu_test_util.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

struct rig {
	struct vmgpu_device *dev;
	struct vmgpu_context *ctx;
	struct vmgpu_bo *k, *data;
	uint32_t base[128], nbase, syncobj;
};

static void put(struct rig *r, const void *cmd, uint32_t words)
{
	memcpy(r->base + r->nbase, cmd, 4 * words);
	r->nbase += words;
}

/* The argument block, which a mutated command may have overwritten. */
static void reset_args(struct rig *r)
{
	uint64_t data = vmgpu_bo_gpu_va(r->data);
	struct add_one_args *a;
	void *map;

	vmgpu_bo_map(r->data, &map);
	memset(map, 0, 8192);
	a = map;
	a->src = data + 1024;
	a->dst = data + 1028;
	a->spin = 0;
}

/* A valid packet using every command but WAIT_VALUE (could wait forever). */
static void build_base(struct rig *r)
{
	uint64_t data = vmgpu_bo_gpu_va(r->data);
	static const uint32_t one[3] = { 1, 1, 1 };
	struct vmgpu_cmd_set_state ss =
		vmgpu_encode_set_state(VMGPU_STATE_INSTR_BUDGET, 100000);
	struct vmgpu_cmd_dispatch d =
		vmgpu_encode_dispatch(vmgpu_bo_gpu_va(r->k), data, 24, one, one,
				      NULL, NULL, 0, 0);
	struct vmgpu_cmd_sync sy = vmgpu_encode_sync(1, 0);
	struct vmgpu_cmd_timestamp ts = vmgpu_encode_timestamp(data + 2048);
	struct vmgpu_cmd_write_value wv =
		vmgpu_encode_write_value(data + 2056, 5);
	struct vmgpu_cmd_copy cp =
		vmgpu_encode_copy(data + 1024, data + 3072, 64, 2, 64, 64);
	struct vmgpu_cmd_barrier b = vmgpu_encode_barrier();
	struct vmgpu_cmd_nop nop = vmgpu_encode_nop();
	struct vmgpu_cmd_end end = vmgpu_encode_end();

	reset_args(r);
	r->nbase = 0;
	put(r, &ss, VMGPU_CMD_NWORDS(&ss));
	put(r, &d, VMGPU_CMD_NWORDS(&d));
	put(r, &sy, VMGPU_CMD_NWORDS(&sy));
	put(r, &d, VMGPU_CMD_NWORDS(&d));
	put(r, &ts, VMGPU_CMD_NWORDS(&ts));
	put(r, &wv, VMGPU_CMD_NWORDS(&wv));
	put(r, &cp, VMGPU_CMD_NWORDS(&cp));
	put(r, &b, VMGPU_CMD_NWORDS(&b));
	put(r, &nop, VMGPU_CMD_NWORDS(&nop));
	put(r, &end, VMGPU_CMD_NWORDS(&end));
}

static int submit(struct rig *r, const uint32_t *w, uint32_t n)
{
	struct drm_vmgpu_submit_bo bos[2] = {
		{ .handle = vmgpu_bo_handle(r->k),
		  .flags = DRM_VMGPU_SUBMIT_BO_READ },
		{ .handle = vmgpu_bo_handle(r->data) },
	};
	struct drm_vmgpu_sync out = { .handle = r->syncobj };
	struct drm_vmgpu_submit s;

	memset(&s, 0, sizeof(s));
	s.cmdbuf = (uintptr_t)w;
	s.cmdbuf_bytes = 4 * n;
	s.ctx_id = vmgpu_context_id(r->ctx);
	s.bos = (uintptr_t)bos;
	s.bo_count = 2;
	s.out_syncs = (uintptr_t)&out;
	s.out_sync_count = 1;
	return ioctl(vmgpu_device_fd(r->dev), DRM_IOCTL_VMGPU_SUBMIT, &s) ?
	       -errno : 0;
}

TEST(mutated_packets_are_rejected_or_run_cleanly)
{
	uint32_t iters = env_ul("VMGPU_FUZZ_ITERS", 1500);
	uint32_t it, w[160], n, accepted = 0, rejected = 0, failed = 0;
	struct vmgpu_context_status st;
	struct rig r;

	rng_state ^= env_ul("VMGPU_FUZZ_SEED", 0) * 0x2545f4914f6cdd1dull;
	memset(&r, 0, sizeof(r));
	ASSERT_EQ(0, vmgpu_device_open(0, &r.dev, NULL, 0));
	ASSERT_EQ(0, vmgpu_context_create(r.dev, 1, &r.ctx));
	r.k = make_kernel(r.dev, add_one_src);
	ASSERT_NE(NULL, r.k);
	ASSERT_EQ(0, vmgpu_bo_create(r.dev, 8192, 0, 0, &r.data));
	ASSERT_EQ(0, vmgpu_syncobj_create(r.dev, &r.syncobj));
	build_base(&r);
	ASSERT_EQ(0, submit(&r, r.base, r.nbase));
	ASSERT_EQ(0, wait_signalled(r.dev, r.syncobj, 10 * SEC_NS));
	ASSERT_EQ(1, vmgpu_syncobj_status(r.dev, r.syncobj));

	for (it = 0; it < iters; it++) {
		uint32_t m, muts = 1 + rnd() % 3;
		int ret;

		memcpy(w, r.base, 4 * r.nbase);
		n = r.nbase;
		for (m = 0; m < muts; m++) {
			uint32_t pos = rnd() % n;

			switch (rnd() % 6) {
			case 0:
			case 1:
				w[pos] ^= 1u << (rnd() % 32);
				break;
			case 2:
				w[pos] = rnd();
				break;
			case 3:
				w[pos] = rnd() % 64;
				break;
			case 4:
				n = pos + 1;
				break;
			default:
				if (n < 150) {
					memmove(w + pos + 1, w + pos,
						4 * (n - pos));
					w[pos] = rnd() % 3 ?
						 VMGPU_CMD_HDR(rnd() % 16,
							       rnd() % 24) :
						 rnd();
					n++;
				}
				break;
			}
		}
		reset_args(&r);
		ret = submit(&r, w, n);
		/* -EACCES: a priority more urgent than the context's band. */
		if (ret == -EINVAL || ret == -E2BIG || ret == -EACCES) {
			rejected++;
			continue;
		}
		ASSERT_EQ(0, ret) TH_LOG("iteration %u", it);
		accepted++;
		ASSERT_EQ(0, wait_signalled(r.dev, r.syncobj,
						10 * SEC_NS))
			TH_LOG("iteration %u", it);
		if (vmgpu_syncobj_status(r.dev, r.syncobj) == 1)
			continue;
		/*
		 * A kernel fault is fine, and so is a launch-time mismatch
		 * with the executable (argument size, shared memory, SM
		 * resources: BAD_COMMAND naming a dispatch), which only the
		 * device can check. A packet the device's own validation
		 * refuses (no dispatch named) or a bad ring entry means the
		 * driver let a malformed command through.
		 */
		failed++;
		ASSERT_EQ(0, vmgpu_context_query(r.ctx, &st));
		if ((st.fault == VMGPU_FAULT_BAD_COMMAND &&
		     st.dispatch == 0xffffffffu) || st.fault == VMGPU_FAULT_RING) {
			uint32_t i;

			for (i = 0; i < n; i++)
				fprintf(stderr, "# word %u: %#x\n", i, w[i]);
			EXPECT_TRUE(false)
				TH_LOG("iteration %u: the device refused the packet (fault %u at word %u)",
				       it, st.fault, st.pc);
		}
		vmgpu_context_destroy(r.ctx);
		ASSERT_EQ(0, vmgpu_context_create(r.dev, 1, &r.ctx));
	}
	TH_LOG("%u packets: %u rejected, %u ran (%u of them failed on the GPU)",
	       iters, rejected, accepted, failed);
	EXPECT_LT(0, rejected);
	EXPECT_LT(0, accepted);
	vmgpu_syncobj_destroy(r.dev, r.syncobj);
	vmgpu_bo_destroy(r.data);
	vmgpu_bo_destroy(r.k);
	vmgpu_context_destroy(r.ctx);
	vmgpu_device_close(r.dev);
}

TEST_HARNESS_MAIN
