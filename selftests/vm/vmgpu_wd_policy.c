// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM selftest: the work distributor policy through the driver
 * (DRM_IOCTL_VMGPU_WD_POLICY, GET_PARAM WD_MODE / WD_TABLE_SLOTS) and the
 * library: read by anyone, set as root only, invalid values refused with
 * nothing changed, round-robin over a reversed SM list really moves the
 * blocks, and sets from several threads racing submissions. Every test
 * puts the policy it found back.
 */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xf86drm.h>

#include "kselftest_harness.h"
#include "vmgpu_drm.h"
#include "vmgpu_test_util.h"

#define BLOCKS	64

FIXTURE(wd) {
	struct vmgpu_device *dev;
	struct vmgpu_info info;
	struct vmgpu_wd_policy saved[VMGPU_MAX_GPUS];
};

FIXTURE_SETUP(wd)
{
	uint32_t g;

	ASSERT_EQ(0, vmgpu_device_open(0, &self->dev, NULL, 0));
	ASSERT_EQ(0, vmgpu_device_query(self->dev, &self->info));
	if (!(self->info.caps & VMGPU_CAP_WD_POLICY))
		SKIP(return, "device without WD_* registers");
	for (g = 0; g < self->info.num_gpus; g++)
		ASSERT_EQ(0, vmgpu_wd_policy_get(self->dev, g,
						 &self->saved[g]));
}

FIXTURE_TEARDOWN(wd)
{
	uint32_t g;

	if (self->info.caps & VMGPU_CAP_WD_POLICY)
		for (g = 0; g < self->info.num_gpus; g++)
			vmgpu_wd_policy_set(self->dev, g, &self->saved[g]);
	vmgpu_device_close(self->dev);
}

static int raw_policy(int fd, struct drm_vmgpu_wd_policy *a)
{
	return drmIoctl(fd, DRM_IOCTL_VMGPU_WD_POLICY, a) ? -errno : 0;
}

TEST_F(wd, read_by_get_param_ioctl_and_library)
{
	struct vmgpu_wd_policy p;
	uint64_t mode = 0, slots = 0, ver = 0;
	uint32_t g, s;

	ASSERT_EQ(0, vmgpu_get_param(self->dev, DRM_VMGPU_PARAM_UAPI_VERSION,
				     &ver));
	EXPECT_LE(4, ver);
	ASSERT_EQ(0, vmgpu_get_param(self->dev, DRM_VMGPU_PARAM_WD_MODE,
				     &mode));
	ASSERT_EQ(0, vmgpu_get_param(self->dev,
				     DRM_VMGPU_PARAM_WD_TABLE_SLOTS, &slots));
	for (g = 0; g < self->info.num_gpus; g++) {
		uint64_t seen = 0;

		ASSERT_EQ(0, vmgpu_wd_policy_get(self->dev, g, &p));
		EXPECT_EQ(self->info.sms_per_gpu, p.num_sms);
		EXPECT_EQ(p.mode, (mode >> (8 * g)) & 0xff);
		EXPECT_EQ(p.table_slots, (slots >> (8 * g)) & 0xff);
		EXPECT_LE(1, p.table_slots);
		EXPECT_GE(128, p.table_slots);
		for (s = 0; s < p.num_sms; s++)
			seen |= 1ull << p.sm_order[s];
		EXPECT_EQ((1ull << p.num_sms) - 1, seen);
	}
	EXPECT_EQ(-EINVAL, vmgpu_wd_policy_get(self->dev,
					       self->info.num_gpus, &p));
}

TEST_F(wd, set_as_root_and_read_back)
{
	struct vmgpu_wd_policy p = self->saved[0], q;
	uint32_t n = self->info.sms_per_gpu, s;
	uint64_t slots = 0;

	p.mode = VMGPU_WD_ROUND_ROBIN;
	p.table_slots = 7;
	for (s = 0; s < n; s++)
		p.sm_order[s] = n - 1 - s;
	ASSERT_EQ(0, vmgpu_wd_policy_set(self->dev, 0, &p));
	ASSERT_EQ(0, vmgpu_wd_policy_get(self->dev, 0, &q));
	EXPECT_EQ(VMGPU_WD_ROUND_ROBIN, q.mode);
	EXPECT_EQ(7, q.table_slots);
	EXPECT_EQ(0, memcmp(p.sm_order, q.sm_order, sizeof(p.sm_order)));
	ASSERT_EQ(0, vmgpu_get_param(self->dev,
				     DRM_VMGPU_PARAM_WD_TABLE_SLOTS, &slots));
	EXPECT_EQ(7, slots & 0xff);
	/* num_sms 0 is accepted as "the GPU's". */
	p.num_sms = 0;
	p.table_slots = 128;
	EXPECT_EQ(0, vmgpu_wd_policy_set(self->dev, 0, &p));
}

/* Each invalid argument: -EINVAL and the policy unchanged. */
TEST_F(wd, invalid_values_refused_and_nothing_changes)
{
	int fd = vmgpu_device_fd(self->dev);
	uint32_t n = self->info.sms_per_gpu, s, i;
	struct drm_vmgpu_wd_policy good = { .gpu = 0 }, a;
	struct vmgpu_wd_policy before, after;

	ASSERT_EQ(0, raw_policy(fd, &good));
	good.flags = DRM_VMGPU_WD_POLICY_SET;
	ASSERT_EQ(0, vmgpu_wd_policy_get(self->dev, 0, &before));
	for (i = 0; i < 9; i++) {
		a = good;
		switch (i) {
		case 0: a.flags |= 1u << 7; break;
		case 1: a.pad = 1; break;
		case 2: a.gpu = self->info.num_gpus; break;
		case 3: a.mode = 2; break;
		case 4: a.table_slots = 0; break;
		case 5: a.table_slots = 129; break;
		case 6: a.num_sms = n + 1; break;
		case 7: a.sm_order[n - 1] = a.sm_order[0]; break;
		case 8: a.sm_order[n] = 1; break;
		}
		if (i == 7 && n < 2)
			continue;
		if (i == 8 && n >= DRM_VMGPU_WD_MAX_SMS)
			continue;
		EXPECT_EQ(-EINVAL, raw_policy(fd, &a)) TH_LOG("case %u", i);
	}
	/* An SM index out of range. */
	a = good;
	a.sm_order[0] = n;
	for (s = 1; s < n; s++)
		a.sm_order[s] = s;
	EXPECT_EQ(-EINVAL, raw_policy(fd, &a));
	ASSERT_EQ(0, vmgpu_wd_policy_get(self->dev, 0, &after));
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));
	/* The library reports it with a message. */
	before.table_slots = 0;
	EXPECT_EQ(-EINVAL, vmgpu_wd_policy_set(self->dev, 0, &before));
}

/*
 * A set without CAP_SYS_ADMIN: -EPERM, from a child that dropped root
 * (setuid to nobody); a get still works there.
 */
TEST_F(wd, unprivileged_set_is_eperm)
{
	struct vmgpu_wd_policy p = self->saved[0];
	int status = -1;
	pid_t pid;

	if (geteuid() != 0)
		SKIP(return, "needs root to drop privileges");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct vmgpu_wd_policy q;
		char msg[256];

		if (setgid(65534) || setuid(65534))
			_exit(10);
		if (vmgpu_wd_policy_get(self->dev, 0, &q))
			_exit(11);
		if (vmgpu_wd_policy_set(self->dev, 0, &p) != -EPERM)
			_exit(12);
		vmgpu_error_message(self->dev, msg, sizeof(msg));
		_exit(strstr(msg, "CAP_SYS_ADMIN") ? 0 : 13);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

struct rig {
	struct vmgpu_context *ctx;
	struct vmgpu_cmdbuf *cb;
	struct vmgpu_bo *k, *count_bo, *smid_bo;
	uint32_t *count, *smid;
	uint32_t syncobj;
};

static int rig_init(struct vmgpu_device *dev, struct rig *r)
{
	memset(r, 0, sizeof(*r));
	if (vmgpu_context_create(dev, VMGPU_PRIORITY_NORMAL, &r->ctx) ||
	    vmgpu_cmdbuf_create(dev, &r->cb) ||
	    vmgpu_syncobj_create(dev, &r->syncobj))
		return -1;
	r->k = make_kernel(dev, vmgpu_builtin_kernel_source("block_sm"));
	r->count_bo = make_bo(dev, BLOCKS * 4, (void **)&r->count);
	r->smid_bo = make_bo(dev, BLOCKS * 4, (void **)&r->smid);
	return r->k && r->count_bo && r->smid_bo ? 0 : -1;
}

static void rig_fini(struct vmgpu_device *dev, struct rig *r)
{
	vmgpu_bo_destroy(r->smid_bo);
	vmgpu_bo_destroy(r->count_bo);
	vmgpu_bo_destroy(r->k);
	vmgpu_syncobj_destroy(dev, r->syncobj);
	vmgpu_cmdbuf_destroy(r->cb);
	vmgpu_context_destroy(r->ctx);
}

/* @dispatches dispatches of BLOCKS blocks of 32 threads on GPU @gpu. */
static int rig_run(struct vmgpu_device *dev, struct rig *r, uint32_t gpu,
		   uint32_t dispatches)
{
	uint64_t args[2] = { vmgpu_bo_gpu_va(r->count_bo),
			     vmgpu_bo_gpu_va(r->smid_bo) };
	struct vmgpu_sync out = { .handle = r->syncobj };
	struct vmgpu_submit_info si = { .gpu = gpu, .out = &out,
					.out_count = 1 };
	struct vmgpu_dispatch_desc d;
	uint32_t i;
	int ret;

	vmgpu_cmdbuf_reset(r->cb);
	if (vmgpu_cmdbuf_use(r->cb, r->count_bo, 0) ||
	    vmgpu_cmdbuf_use(r->cb, r->smid_bo, 0))
		return -1;
	fill_dispatch(&d, r->k, args, sizeof(args), BLOCKS, 32);
	for (i = 0; i < dispatches; i++)
		if (vmgpu_cmdbuf_dispatch(r->cb, &d) < 0)
			return -1;
	ret = vmgpu_submit(r->ctx, r->cb, &si);
	if (ret < 0)
		return ret;
	return vmgpu_syncobj_wait(dev, r->syncobj, 0, 60 * SEC_NS);
}

/*
 * Round-robin over the reversed list: block b of a lone dispatch runs on
 * SM n-1 - b % n; load-balance over the list in order puts block b on
 * SM b % n (every SM as roomy as the others, ties by the list).
 */
TEST_F(wd, round_robin_moves_blocks)
{
	struct vmgpu_wd_policy p = self->saved[0];
	uint32_t n = self->info.sms_per_gpu, s, b;
	struct rig r;

	ASSERT_EQ(0, rig_init(self->dev, &r));
	p.mode = VMGPU_WD_ROUND_ROBIN;
	for (s = 0; s < n; s++)
		p.sm_order[s] = n - 1 - s;
	ASSERT_EQ(0, vmgpu_wd_policy_set(self->dev, 0, &p));
	ASSERT_EQ(0, rig_run(self->dev, &r, 0, 1));
	for (b = 0; b < BLOCKS; b++) {
		EXPECT_EQ(1, r.count[b]);
		EXPECT_EQ(n - 1 - b % n, r.smid[b]) TH_LOG("block %u", b);
	}
	p.mode = VMGPU_WD_LOAD_BALANCE;
	for (s = 0; s < n; s++)
		p.sm_order[s] = s;
	ASSERT_EQ(0, vmgpu_wd_policy_set(self->dev, 0, &p));
	memset(r.count, 0, BLOCKS * 4);
	ASSERT_EQ(0, rig_run(self->dev, &r, 0, 1));
	for (b = 0; b < BLOCKS; b++) {
		EXPECT_EQ(1, r.count[b]);
		EXPECT_EQ(b % n, r.smid[b]) TH_LOG("block %u", b);
	}
	rig_fini(self->dev, &r);
}

/*
 * A packet that never completes (WAIT_VALUE on a word nobody writes) is
 * caught by the timeout and its GPU reset, which puts the device's
 * settings back into the WD_* registers: the driver programs its policy
 * again, so round-robin over the reversed list still places the blocks.
 */
TEST_F(wd, policy_survives_a_gpu_reset)
{
	struct vmgpu_wd_policy p = self->saved[0];
	uint32_t n = self->info.sms_per_gpu, s, b;
	struct vmgpu_gpu_counters c0, c1;
	struct vmgpu_context *hung_ctx;
	struct vmgpu_cmdbuf *hung_cb;
	struct vmgpu_bo *flag;
	uint32_t hung_sync;
	struct vmgpu_sync out;
	struct vmgpu_submit_info si = { .gpu = 0, .out = &out,
					.out_count = 1 };
	struct rig r;
	void *fmap;
	int ret;

	ASSERT_EQ(0, rig_init(self->dev, &r));
	p.mode = VMGPU_WD_ROUND_ROBIN;
	for (s = 0; s < n; s++)
		p.sm_order[s] = n - 1 - s;
	ASSERT_EQ(0, vmgpu_wd_policy_set(self->dev, 0, &p));
	/* Counters need debugfs: the reset count is a bonus check. */
	memset(&c0, 0, sizeof(c0));
	memset(&c1, 0, sizeof(c1));
	vmgpu_gpu_counters(self->dev, 0, &c0);

	ASSERT_EQ(0, vmgpu_context_create(self->dev, VMGPU_PRIORITY_NORMAL,
					  &hung_ctx));
	ASSERT_EQ(0, vmgpu_cmdbuf_create(self->dev, &hung_cb));
	ASSERT_EQ(0, vmgpu_syncobj_create(self->dev, &hung_sync));
	flag = make_bo(self->dev, 4096, &fmap);
	ASSERT_NE(NULL, flag);
	ASSERT_EQ(0, vmgpu_cmdbuf_wait_value(hung_cb, flag, 0, VMGPU_WAIT_EQ,
					     1, ~0u));
	out.handle = hung_sync;
	out.point = 0;
	ASSERT_LE(0, vmgpu_submit(hung_ctx, hung_cb, &si));
	/* The hung packet fails once the timeout resets the GPU. */
	ret = vmgpu_syncobj_wait(self->dev, hung_sync, 0, 60 * SEC_NS);
	EXPECT_NE(0, ret);
	EXPECT_NE(-ETIME, ret);
	if (!vmgpu_gpu_counters(self->dev, 0, &c1))
		EXPECT_LE(1, c1.resets - c0.resets);

	ASSERT_EQ(0, rig_run(self->dev, &r, 0, 1));
	for (b = 0; b < BLOCKS; b++) {
		EXPECT_EQ(1, r.count[b]);
		EXPECT_EQ(n - 1 - b % n, r.smid[b]) TH_LOG("block %u", b);
	}
	vmgpu_bo_destroy(flag);
	vmgpu_syncobj_destroy(self->dev, hung_sync);
	vmgpu_cmdbuf_destroy(hung_cb);
	vmgpu_context_destroy(hung_ctx);
	rig_fini(self->dev, &r);
}

struct setter {
	struct vmgpu_device *dev;
	uint32_t gpus, sms, seed;
	int stop, errors;
	uint32_t sets;
};

static void *setter_thread(void *p)
{
	struct setter *st = p;
	struct vmgpu_wd_policy pol;
	uint32_t x = st->seed, s;

	while (!__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE)) {
		memset(&pol, 0, sizeof(pol));
		x = x * 1664525u + 1013904223u;
		pol.mode = x >> 31;
		pol.table_slots = 1 + (x >> 8) % 16;
		for (s = 0; s < st->sms; s++)
			pol.sm_order[s] = (s + (x >> 20)) % st->sms;
		if (vmgpu_wd_policy_set(st->dev, (x >> 4) % st->gpus, &pol))
			__atomic_add_fetch(&st->errors, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&st->sets, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Whether every setter of @st (@n of them) has set a policy yet. */
static bool all_set(struct setter *st, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!__atomic_load_n(&st[i].sets, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

/*
 * Three threads set policies on every GPU while packets run on each:
 * every block of every dispatch runs exactly once. The packets go on,
 * past their six rounds if need be, until every setter has set a policy
 * during them: how soon a thread first runs is the scheduler's.
 */
TEST_F(wd, sets_from_threads_race_submissions)
{
	const uint32_t dispatches = 4;
	uint32_t rounds = 6, i, g, b;
	struct setter st[3];
	pthread_t th[3];
	struct rig r;

	ASSERT_EQ(0, rig_init(self->dev, &r));
	for (i = 0; i < 3; i++) {
		st[i] = (struct setter){ .dev = self->dev,
					 .gpus = self->info.num_gpus,
					 .sms = self->info.sms_per_gpu,
					 .seed = 17 + i };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, setter_thread,
					    &st[i]));
	}
	for (i = 0; i < rounds || !all_set(st, 3); i++)
		for (g = 0; g < self->info.num_gpus; g++)
			EXPECT_EQ(0, rig_run(self->dev, &r, g, dispatches));
	rounds = i;
	for (i = 0; i < 3; i++) {
		__atomic_store_n(&st[i].stop, 1, __ATOMIC_RELEASE);
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, st[i].errors);
	}
	for (b = 0; b < BLOCKS; b++)
		ASSERT_EQ(rounds * self->info.num_gpus * dispatches,
			  r.count[b]) TH_LOG("block %u", b);
	rig_fini(self->dev, &r);
}

TEST_HARNESS_MAIN
