// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the work distribution unit (qemu-device/core/wdist.c,
 * SPEC W1-W5, W8): step-by-step scenarios that assert each decision, and
 * a randomized property test (every CTA exactly once; load balance).
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "core/wdist.h"

/* Roomy SMs unless a test says otherwise. */
static const struct vg_wd_limits big = { 2048, 65536, 65536, 32 };

static void task(struct vg_wd_task *t, uint32_t prio, uint32_t blocks,
		 uint32_t threads)
{
	memset(t, 0, sizeof(*t));
	t->priority = prio;
	t->blocks_total = blocks;
	t->need.threads = threads;
}

struct issue {
	struct vg_wd_task *t;
	uint32_t sm, block, item_base, item_count;
	uint64_t wake;
	bool ok;
};

static struct issue next_at(struct vg_wdist *wd, uint64_t now)
{
	struct issue i = { 0 };
	struct vg_wd_cta c;

	i.ok = vg_wdist_next(wd, now, &c, &i.wake);
	if (i.ok) {
		i.t = c.task;
		i.sm = c.sm;
		i.block = c.block;
		i.item_base = c.item_base;
		i.item_count = c.item_count;
	}
	return i;
}

static struct issue next(struct vg_wdist *wd)
{
	return next_at(wd, 0);
}

TEST(priority_then_arrival_and_load_balance)
{
	struct vg_wd_limits lim = { 2048, 65536, 65536, 4 };
	struct vg_wdist wd;
	struct vg_wd_task a, b, c;
	uint32_t i, per_sm[3] = { 0 };
	struct issue x;

	vg_wdist_init(&wd, 3, &lim);
	task(&a, 5, 2, 1024);
	task(&b, 1, 7, 256);
	task(&c, 5, 1, 32);
	vg_wdist_submit(&wd, &a);
	vg_wdist_submit(&wd, &b);
	vg_wdist_submit(&wd, &c);
	/* b first (priority 1), spread over the SMs with most room. */
	for (i = 0; i < 7; i++) {
		x = next(&wd);
		ASSERT_TRUE(x.ok);
		ASSERT_EQ(&b, x.t);
		ASSERT_EQ(i, x.block);
		per_sm[x.sm]++;
	}
	EXPECT_EQ(3, per_sm[0]);	/* ties go to the first in the SM list */
	EXPECT_EQ(2, per_sm[1]);
	EXPECT_EQ(2, per_sm[2]);
	/* then a (same priority as c, allocated earlier) */
	x = next(&wd);
	EXPECT_EQ(&a, x.t);
	EXPECT_EQ(0, x.sm);		/* room 1 everywhere: first SM */
	x = next(&wd);
	EXPECT_EQ(&a, x.t);
	EXPECT_EQ(1, x.sm);		/* SM 0 has no block slot left */
	x = next(&wd);
	EXPECT_EQ(&c, x.t);
	EXPECT_EQ(2, x.sm);		/* SM 2: room 2, SM 1: room 1 */
	EXPECT_FALSE(next(&wd).ok);	/* none left */
	EXPECT_EQ(0, vg_wdist_sm_room(&wd, 0, &c.need));
	vg_wdist_block_done(&wd, &b, 0);
	EXPECT_EQ(1, vg_wdist_sm_room(&wd, 0, &c.need));
}

TEST(pending_lists_head_and_tail)
{
	struct vg_wd_policy pol;
	struct vg_wdist wd;
	struct vg_wd_task a, b, c;
	struct issue x;

	vg_wdist_init(&wd, 1, &big);
	vg_wdist_default_policy(&pol, 1);
	pol.table_slots = 1;
	ASSERT_EQ(0, vg_wdist_set_policy(&wd, &pol));
	task(&a, 3, 1, 32);
	task(&b, 3, 1, 32);
	task(&c, 3, 1, 32);
	c.head = true;
	vg_wdist_submit(&wd, &a);
	vg_wdist_submit(&wd, &b);	/* tail */
	vg_wdist_submit(&wd, &c);	/* head: before b */
	EXPECT_EQ(VG_WD_TABLE, a.where);
	EXPECT_EQ(VG_WD_PENDING, b.where);
	EXPECT_EQ(VG_WD_PENDING, c.where);
	x = next(&wd);
	EXPECT_EQ(&a, x.t);
	EXPECT_FALSE(next(&wd).ok);	/* a has no CTA left; the slot drains */
	vg_wdist_block_done(&wd, &a, 0);
	EXPECT_EQ(VG_WD_NONE, a.where);
	EXPECT_EQ(&c, next(&wd).t);
	vg_wdist_block_done(&wd, &c, 0);
	EXPECT_EQ(&b, next(&wd).t);
}

/*
 * W2: a full table, a more urgent TMD evicts the least urgent one, whose
 * CTAs in flight drain; it resumes at its next CTA, each run once.
 */
TEST(eviction_and_resume)
{
	struct vg_wd_policy pol;
	struct vg_wdist wd;
	struct vg_wd_task lo, mid, hi;
	uint32_t seen[10] = { 0 }, i;
	struct issue x;

	vg_wdist_init(&wd, 2, &(struct vg_wd_limits){ 2048, 65536, 65536, 2 });
	vg_wdist_default_policy(&pol, 2);
	pol.table_slots = 2;
	ASSERT_EQ(0, vg_wdist_set_policy(&wd, &pol));
	task(&lo, 7, 10, 32);
	task(&mid, 5, 1, 32);
	task(&hi, 1, 2, 32);
	vg_wdist_submit(&wd, &lo);
	for (i = 0; i < 3; i++) {	/* SM 0, 1, 0 */
		x = next(&wd);
		ASSERT_EQ(&lo, x.t);
		seen[x.block]++;
	}
	vg_wdist_submit(&wd, &mid);	/* a free slot: no eviction */
	EXPECT_EQ(VG_WD_TABLE, mid.where);
	EXPECT_EQ(0, wd.stats.evictions);
	vg_wdist_submit(&wd, &hi);	/* full: evicts lo, the least urgent */
	EXPECT_EQ(VG_WD_TABLE, hi.where);
	EXPECT_EQ(VG_WD_PENDING, lo.where);
	EXPECT_EQ(1, lo.evictions);
	EXPECT_EQ(3, lo.next_block);	/* where it stopped */
	EXPECT_EQ(3, lo.blocks_running);	/* drain */
	x = next(&wd);			/* room left only on SM 1 */
	EXPECT_EQ(&hi, x.t);
	EXPECT_EQ(1, x.sm);
	EXPECT_FALSE(next(&wd).ok);
	/* lo's CTAs drain; hi and mid use the room. */
	vg_wdist_block_done(&wd, &lo, 0);
	x = next(&wd);
	EXPECT_EQ(&hi, x.t);
	EXPECT_EQ(0, x.sm);
	vg_wdist_block_done(&wd, &lo, 1);
	x = next(&wd);
	EXPECT_EQ(&mid, x.t);
	vg_wdist_block_done(&wd, &lo, 0);
	EXPECT_EQ(VG_WD_PENDING, lo.where);	/* hi and mid hold the slots */
	vg_wdist_block_done(&wd, &hi, 1);
	vg_wdist_block_done(&wd, &hi, 0);	/* hi done: lo comes back */
	EXPECT_EQ(VG_WD_TABLE, lo.where);
	while ((x = next(&wd)).ok) {
		ASSERT_EQ(&lo, x.t);
		seen[x.block]++;
		vg_wdist_block_done(&wd, &lo, x.sm);
	}
	for (i = 0; i < 10; i++)
		EXPECT_EQ(1, seen[i]) TH_LOG("block %u", i);
	/* Equal urgency never evicts. */
	EXPECT_EQ(1, wd.stats.evictions);
}

/* What the observer saw: task, event and slot, in order. */
struct seen_ev {
	const struct vg_wd_task *t;
	enum vg_wd_event ev;
	uint32_t slot, next_block;
};

struct observed {
	struct seen_ev ev[64];
	unsigned int n;
};

static void observe(void *opaque, const struct vg_wd_task *t,
		    enum vg_wd_event ev)
{
	struct observed *o = opaque;

	if (o->n < 64)
		o->ev[o->n++] = (struct seen_ev){ t, ev, t->slot,
						  t->next_block };
}

/* The events of one task, as a string: "PTEBD" etc. */
static void events_of(const struct observed *o, const struct vg_wd_task *t,
		      char *buf)
{
	static const char letter[] = {
		[VG_WD_EV_PENDING] = 'P', [VG_WD_EV_TABLE] = 'T',
		[VG_WD_EV_EVICTED] = 'E', [VG_WD_EV_RESUMED] = 'R',
		[VG_WD_EV_DONE] = 'D', [VG_WD_EV_REMOVED] = 'X',
	};
	unsigned int i;

	for (i = 0; i < o->n; i++)
		if (o->ev[i].t == t)
			*buf++ = letter[o->ev[i].ev];
	*buf = 0;
}

/*
 * The observer sees every state change, in order, with the slot; it
 * survives a reset. An eviction delays the newcomer's state sync by
 * evict_latency (on top of sync_latency).
 */
TEST(observer_and_eviction_latency)
{
	struct vg_wd_policy pol;
	struct vg_wdist wd;
	struct vg_wd_task lo, hi, gone;
	struct observed o = { .n = 0 };
	struct issue x;
	char buf[16];

	vg_wdist_init(&wd, 1, &(struct vg_wd_limits){ 2048, 65536, 65536, 1 });
	vg_wdist_default_policy(&pol, 1);
	pol.table_slots = 1;
	pol.sync_latency = 10;
	pol.evict_latency = 500;
	ASSERT_EQ(0, vg_wdist_set_policy(&wd, &pol));
	wd.observe = observe;
	wd.observe_opaque = &o;
	task(&lo, 7, 2, 32);
	task(&hi, 1, 1, 32);
	vg_wdist_submit(&wd, &lo);
	EXPECT_EQ(1010, next_at(&wd, 1000).wake);	/* no eviction: sync */
	x = next_at(&wd, 1010);
	ASSERT_EQ(&lo, x.t);
	vg_wdist_submit(&wd, &hi);			/* evicts lo */
	vg_wdist_block_done(&wd, &lo, 0);		/* drained at 2000 */
	x = next_at(&wd, 2000);
	EXPECT_FALSE(x.ok);
	EXPECT_EQ(2500, x.wake);	/* evict_latency > sync_latency */
	EXPECT_FALSE(next_at(&wd, 2499).ok);
	x = next_at(&wd, 2500);
	ASSERT_EQ(&hi, x.t);
	vg_wdist_block_done(&wd, &hi, 0);		/* lo resumes */
	x = next_at(&wd, 3000);
	EXPECT_FALSE(x.ok);
	EXPECT_EQ(3010, x.wake);	/* a resume after a done: sync only */
	x = next_at(&wd, 3010);
	ASSERT_EQ(&lo, x.t);
	EXPECT_EQ(1, x.block);
	vg_wdist_block_done(&wd, &lo, 0);

	events_of(&o, &lo, buf);
	EXPECT_STREQ("PTERD", buf);
	events_of(&o, &hi, buf);
	EXPECT_STREQ("PTD", buf);
	/* lo evicted with one block issued, resumed there, in slot 0. */
	EXPECT_EQ(VG_WD_EV_EVICTED, o.ev[3].ev);
	EXPECT_EQ(1, o.ev[3].next_block);
	EXPECT_EQ(0, o.ev[3].slot);

	/* Removal, and the observer kept across a reset. */
	vg_wdist_reset(&wd);
	EXPECT_EQ(&o, wd.observe_opaque);
	task(&gone, 3, 4, 32);
	vg_wdist_submit(&wd, &gone);
	vg_wdist_remove(&wd, &gone);
	events_of(&o, &gone, buf);
	EXPECT_STREQ("PTX", buf);
}

/* W4: a reached quota rotates to another TMD of the same priority. */
TEST(quota_rotation)
{
	struct vg_wdist wd;
	struct vg_wd_task a, b, c;
	const char *want = "aabbaabbaabbc";
	char got[16] = "";
	uint32_t i;
	struct issue x;

	vg_wdist_init(&wd, 1, &big);
	task(&a, 2, 6, 32);
	task(&b, 2, 6, 32);
	task(&c, 4, 1, 32);
	a.quota = 2;
	b.quota = 2;
	vg_wdist_submit(&wd, &a);
	vg_wdist_submit(&wd, &b);
	vg_wdist_submit(&wd, &c);
	for (i = 0; i < strlen(want); i++) {
		x = next(&wd);
		ASSERT_TRUE(x.ok);
		got[i] = x.t == &a ? 'a' : x.t == &b ? 'b' : 'c';
	}
	EXPECT_STREQ(want, got);
	EXPECT_EQ(2, wd.stats.turns);
}

/* W4: affinity masks steer SMs to different TMDs. */
TEST(affinity)
{
	struct vg_wdist wd;
	struct vg_wd_task a, b;
	struct issue x;

	vg_wdist_init(&wd, 2, &big);
	task(&a, 1, 4, 32);
	task(&b, 3, 4, 32);
	a.sm_mask = 1u << 1;
	vg_wdist_submit(&wd, &a);
	vg_wdist_submit(&wd, &b);
	x = next(&wd);
	EXPECT_EQ(0, x.sm);			/* equal room: the first SM */
	EXPECT_EQ(&b, x.t);			/* a may not run there */
	EXPECT_EQ(&a, wd.sm[1].assigned);
	EXPECT_EQ(&b, wd.sm[0].assigned);
	x = next(&wd);
	EXPECT_EQ(1, x.sm);			/* more room on SM 1 now */
	EXPECT_EQ(&a, x.t);
}

/* W4: a sequential TMD never has two CTAs in flight. */
TEST(sequential)
{
	struct vg_wdist wd;
	struct vg_wd_task s, o;
	uint32_t i, sm;
	struct issue x;

	vg_wdist_init(&wd, 2, &big);
	task(&s, 1, 3, 32);
	task(&o, 5, 1, 32);
	s.sequential = true;
	vg_wdist_submit(&wd, &s);
	vg_wdist_submit(&wd, &o);
	for (i = 0; i < 3; i++) {
		x = next(&wd);
		ASSERT_EQ(&s, x.t);
		EXPECT_EQ(i, x.block);
		sm = x.sm;
		/* Until it finishes the SMs run o, or nothing. */
		x = next(&wd);
		EXPECT_TRUE(!x.ok || x.t == &o);
		EXPECT_FALSE(next(&wd).ok);
		EXPECT_EQ(1, s.blocks_running);
		vg_wdist_block_done(&wd, &s, sm);
	}
	EXPECT_EQ(3, s.next_block);
}

/* W5: round-robin follows the SM priority list after the last SM. */
TEST(round_robin_and_sm_priority_list)
{
	struct vg_wd_policy pol;
	struct vg_wdist wd;
	struct vg_wd_task a;
	const uint32_t want[] = { 2, 0, 1, 2, 0, 1, 2 };
	uint32_t i;
	struct issue x;

	vg_wdist_init(&wd, 3, &big);
	vg_wdist_default_policy(&pol, 3);
	pol.sm_order[0] = 2;
	pol.sm_order[1] = 0;
	pol.sm_order[2] = 1;
	pol.mode = VG_WD_ROUND_ROBIN;
	ASSERT_EQ(0, vg_wdist_set_policy(&wd, &pol));
	task(&a, 1, 7, 32);
	vg_wdist_submit(&wd, &a);
	for (i = 0; i < 7; i++) {
		x = next(&wd);
		ASSERT_TRUE(x.ok);
		EXPECT_EQ(want[i], x.sm) TH_LOG("CTA %u", i);
	}
	/* Load balance: equal room, the list breaks the tie (SM 2 first). */
	vg_wdist_init(&wd, 3, &big);
	pol.mode = VG_WD_LOAD_BALANCE;
	ASSERT_EQ(0, vg_wdist_set_policy(&wd, &pol));
	task(&a, 1, 1, 32);
	vg_wdist_submit(&wd, &a);
	EXPECT_EQ(2, next(&wd).sm);
	/* A list that is not a permutation is refused. */
	pol.sm_order[1] = 2;
	EXPECT_EQ(-1, vg_wdist_set_policy(&wd, &pol));
}

/* W4: state goes to an SM when its TMD changes, CTAs after the ack. */
TEST(state_sync_and_acknowledge)
{
	struct vg_wd_policy pol;
	struct vg_wdist wd;
	struct vg_wd_task a, b;
	struct issue x;

	vg_wdist_init(&wd, 1, &big);
	vg_wdist_default_policy(&pol, 1);
	pol.sync_latency = 100;
	ASSERT_EQ(0, vg_wdist_set_policy(&wd, &pol));
	task(&a, 1, 2, 32);
	task(&b, 1, 1, 32);
	vg_wdist_submit(&wd, &a);
	x = next_at(&wd, 1000);
	EXPECT_FALSE(x.ok);
	EXPECT_EQ(1100, x.wake);
	EXPECT_EQ(VG_WD_SM_SYNC, wd.sm[0].state);
	EXPECT_FALSE(next_at(&wd, 1099).ok);
	x = next_at(&wd, 1100);
	EXPECT_TRUE(x.ok);
	EXPECT_EQ(&a, x.t);
	EXPECT_TRUE(next_at(&wd, 1101).ok);	/* same TMD: no new sync */
	EXPECT_EQ(1, wd.stats.state_syncs);
	vg_wdist_submit(&wd, &b);
	x = next_at(&wd, 2000);			/* a is issued: b, synced */
	EXPECT_FALSE(x.ok);
	EXPECT_EQ(2100, x.wake);
	EXPECT_EQ(2, wd.stats.state_syncs);
	EXPECT_EQ(&b, next_at(&wd, 2100).t);
}

/*
 * W6: a throttle TMD waits for the others to drain, then runs alone on
 * the subset with larger shared-memory portions; the mode ends with it.
 */
TEST(throttle_mode)
{
	struct vg_wd_limits lim = { 2048, 65536, 48 << 10, 32 };
	struct vg_wdist wd;
	struct vg_wd_task n, t;
	struct running { uint32_t sm; } run[8];
	uint32_t i, k;
	struct issue x;

	vg_wdist_init(&wd, 4, &lim);
	task(&n, 3, 12, 32);
	n.need.shared = 16 << 10;
	task(&t, 5, 6, 32);	/* less urgent: throttle still takes over */
	t.need.shared = 32 << 10;
	t.throttle = true;
	EXPECT_EQ(0x3, vg_wdist_throttle_sms(&wd));	/* the first half */
	t.need.shared = 64 << 10;
	EXPECT_FALSE(vg_wdist_fits(&wd, &t.need, false));
	EXPECT_TRUE(vg_wdist_fits(&wd, &t.need, true));	/* 96 KiB portions */
	t.need.shared = 32 << 10;

	vg_wdist_submit(&wd, &n);
	for (i = 0; i < 4; i++) {
		x = next(&wd);
		ASSERT_EQ(&n, x.t);
		run[i].sm = x.sm;
	}
	vg_wdist_submit(&wd, &t);
	/* Draining: n issues nothing more, t nothing yet. */
	EXPECT_FALSE(next(&wd).ok);
	EXPECT_FALSE(wd.throttle);
	for (i = 0; i < 4; i++)
		vg_wdist_block_done(&wd, &n, run[i].sm);
	/* In the mode: t only on SMs 0 and 1, three blocks each. */
	for (i = 0; i < 6; i++) {
		x = next(&wd);
		ASSERT_TRUE(x.ok);
		ASSERT_EQ(&t, x.t);
		ASSERT_LT(x.sm, 2);
		run[i].sm = x.sm;
	}
	EXPECT_TRUE(wd.throttle);
	EXPECT_EQ(1, wd.stats.throttle_entries);
	EXPECT_EQ(96 << 10, wd.sm[0].shared_size);
	EXPECT_EQ(0, wd.sm[0].shared_base);
	EXPECT_EQ(96 << 10, wd.sm[1].shared_size);
	EXPECT_EQ(96 << 10, wd.sm[1].shared_base);
	EXPECT_EQ(0, wd.sm[2].shared_size);
	EXPECT_EQ(3, wd.sm[0].blocks);
	EXPECT_EQ(3, wd.sm[1].blocks);
	EXPECT_FALSE(next(&wd).ok);	/* n stays out while t is present */
	for (i = 0; i < 6; i++)
		vg_wdist_block_done(&wd, &t, run[i].sm);
	/* Out of the mode: portions back, n resumes at its block 4. */
	x = next(&wd);
	ASSERT_TRUE(x.ok);
	EXPECT_EQ(&n, x.t);
	EXPECT_EQ(4, x.block);
	EXPECT_FALSE(wd.throttle);
	for (k = 0; k < 4; k++) {
		EXPECT_EQ(48 << 10, wd.sm[k].shared_size);
		EXPECT_EQ(k * (48 << 10), wd.sm[k].shared_base);
	}
}

/* A deallocation request: nothing more of the TMD is issued. */
TEST(remove_stops_issue)
{
	struct vg_wdist wd;
	struct vg_wd_task a, b;
	struct issue x;

	vg_wdist_init(&wd, 1, &big);
	task(&a, 1, 5, 32);
	task(&b, 2, 1, 32);
	vg_wdist_submit(&wd, &a);
	vg_wdist_submit(&wd, &b);
	EXPECT_EQ(&a, next(&wd).t);
	vg_wdist_remove(&wd, &a);
	EXPECT_EQ(VG_WD_NONE, a.where);
	x = next(&wd);
	EXPECT_EQ(&b, x.t);
	EXPECT_FALSE(next(&wd).ok);
	vg_wdist_block_done(&wd, &a, 0);	/* its running block drains */
	EXPECT_EQ(0, a.blocks_running);
}

/* ---- Randomized: exactly once, and load balance ---- */

static uint32_t rng = 12345;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

static void queue_task(struct vg_wd_task *t, uint32_t prio, uint32_t coalesce,
		       uint64_t timeout)
{
	memset(t, 0, sizeof(*t));
	t->priority = prio;
	t->queue = true;
	t->coalesce = coalesce;
	t->coalesce_timeout = timeout;
	t->need.threads = 32;
}

/*
 * W7/W5: a queue task's CTAs take @coalesce items, or the items waiting
 * once the oldest has waited the timeout; one timer per task, restarted
 * when a CTA leaves items behind.
 */
TEST(queue_coalescing_and_timeout)
{
	struct vg_wdist wd;
	struct vg_wd_task q;
	struct issue x;

	vg_wdist_init(&wd, 2, &big);
	queue_task(&q, 4, 4, 100);
	vg_wdist_submit(&wd, &q);
	EXPECT_EQ(VG_WD_PENDING, q.where);	/* no item: not admitted */
	x = next_at(&wd, 0);
	EXPECT_FALSE(x.ok);
	EXPECT_EQ(0, x.wake);
	vg_wdist_add_items(&wd, &q, 3, 10);
	EXPECT_EQ(VG_WD_TABLE, q.where);
	x = next_at(&wd, 10);			/* 3 of 4: wait */
	EXPECT_FALSE(x.ok);
	EXPECT_EQ(110, x.wake);
	vg_wdist_add_items(&wd, &q, 1, 50);	/* the 4th */
	x = next_at(&wd, 50);
	ASSERT_TRUE(x.ok);
	EXPECT_EQ(0, x.block);
	EXPECT_EQ(0, x.item_base);
	EXPECT_EQ(4, x.item_count);
	x = next_at(&wd, 50);
	EXPECT_FALSE(x.ok);
	EXPECT_EQ(0, x.wake);			/* nothing waits */
	vg_wdist_add_items(&wd, &q, 6, 60);
	x = next_at(&wd, 60);			/* a full CTA at once */
	ASSERT_TRUE(x.ok);
	EXPECT_EQ(1, x.block);
	EXPECT_EQ(4, x.item_base);
	EXPECT_EQ(4, x.item_count);
	x = next_at(&wd, 60);			/* 2 left: timer restarted */
	EXPECT_FALSE(x.ok);
	EXPECT_EQ(160, x.wake);
	EXPECT_FALSE(next_at(&wd, 159).ok);
	x = next_at(&wd, 160);
	ASSERT_TRUE(x.ok);
	EXPECT_EQ(2, x.block);
	EXPECT_EQ(8, x.item_base);
	EXPECT_EQ(2, x.item_count);
	/* Closed with CTAs running: out of the table, done when they end. */
	EXPECT_FALSE(vg_wdist_close(&wd, &q));
	EXPECT_EQ(VG_WD_NONE, q.where);
	vg_wdist_block_done(&wd, &q, 0);
	vg_wdist_block_done(&wd, &q, 0);
	vg_wdist_block_done(&wd, &q, 1);
	EXPECT_EQ(0, q.blocks_running);
}

/*
 * An idle queue task (nothing waiting) gives its slot to any pending TMD,
 * even a less urgent one, and comes back by the usual rule when items do.
 */
TEST(idle_queue_gives_up_its_slot)
{
	struct vg_wd_policy pol;
	struct vg_wdist wd;
	struct vg_wd_task q, g;
	struct issue x;

	vg_wdist_init(&wd, 1, &big);
	vg_wdist_default_policy(&pol, 1);
	pol.table_slots = 1;
	ASSERT_EQ(0, vg_wdist_set_policy(&wd, &pol));
	queue_task(&q, 1, 1, 0);
	vg_wdist_submit(&wd, &q);
	vg_wdist_add_items(&wd, &q, 1, 0);
	x = next(&wd);
	ASSERT_TRUE(x.ok);
	ASSERT_EQ(&q, x.t);
	task(&g, 9, 2, 32);
	vg_wdist_submit(&wd, &g);
	EXPECT_EQ(VG_WD_TABLE, g.where);
	EXPECT_EQ(VG_WD_PENDING, q.where);
	EXPECT_EQ(1, q.evictions);
	x = next(&wd);
	ASSERT_TRUE(x.ok);
	EXPECT_EQ(&g, x.t);
	vg_wdist_add_items(&wd, &q, 1, 0);	/* more urgent than g: evicts */
	EXPECT_EQ(VG_WD_TABLE, q.where);
	EXPECT_EQ(VG_WD_PENDING, g.where);
	x = next(&wd);
	ASSERT_TRUE(x.ok);
	EXPECT_EQ(&q, x.t);
	EXPECT_EQ(1, x.item_base);
}

/*
 * Random queue tasks beside grid tasks: items arrive at random times,
 * every item goes to exactly one CTA, in order, at most @coalesce per
 * CTA, and closing a drained queue ends it.
 */
TEST(random_queues_give_every_item_to_one_cta)
{
	enum { NQ = 4, NG = 3 };
	static struct { struct vg_wd_task *t; uint32_t sm; } run[4096];
	uint32_t iter;

	for (iter = 0; iter < 500; iter++) {
		struct vg_wd_limits lim = { 2048, 65536, 65536, 1 + rnd(4) };
		uint32_t sms = 1 + rnd(4), i, nrun = 0, target[NQ], seen[NQ];
		struct vg_wd_task q[NQ], g[NG];
		struct vg_wd_policy pol;
		struct vg_wdist wd;
		bool closed[NQ], busy = true;
		uint64_t now = 0;

		vg_wdist_init(&wd, sms, &lim);
		vg_wdist_default_policy(&pol, sms);
		pol.table_slots = 1 + rnd(4);
		pol.mode = rnd(2) ? VG_WD_ROUND_ROBIN : VG_WD_LOAD_BALANCE;
		pol.sync_latency = rnd(3) * 20;
		ASSERT_EQ(0, vg_wdist_set_policy(&wd, &pol));
		for (i = 0; i < NQ; i++) {
			queue_task(&q[i], rnd(16), 1 + rnd(8), rnd(3) * 30);
			target[i] = 1 + rnd(200);
			seen[i] = 0;
			closed[i] = false;
			vg_wdist_submit(&wd, &q[i]);
		}
		for (i = 0; i < NG; i++) {
			task(&g[i], rnd(16), 1 + rnd(20), 32 * (1 + rnd(8)));
			vg_wdist_submit(&wd, &g[i]);
		}
		while (busy) {
			struct issue x;
			uint32_t k = rnd(NQ);

			if (q[k].items < target[k] && rnd(2)) {
				uint32_t n = 1 + rnd(6);

				if (n > target[k] - q[k].items)
					n = target[k] - q[k].items;
				vg_wdist_add_items(&wd, &q[k], n, now);
			}
			while ((x = next_at(&wd, now)).ok) {
				if (x.t->queue) {
					k = (uint32_t)(x.t - q);
					ASSERT_EQ(seen[k], x.item_base);
					ASSERT_GE(x.item_count, 1);
					ASSERT_LE(x.item_count, x.t->coalesce);
					seen[k] += x.item_count;
				}
				ASSERT_LT(nrun, 4096);
				run[nrun].t = x.t;
				run[nrun++].sm = x.sm;
			}
			if (nrun && rnd(2)) {
				uint32_t r = rnd(nrun);

				vg_wdist_block_done(&wd, run[r].t, run[r].sm);
				run[r] = run[--nrun];
			}
			busy = nrun > 0;
			for (i = 0; i < NQ; i++) {
				if (!closed[i] && q[i].items == target[i] &&
				    !vg_wdist_items_waiting(&q[i])) {
					vg_wdist_close(&wd, &q[i]);
					closed[i] = true;
				}
				busy |= !closed[i];
			}
			for (i = 0; i < NG; i++)
				busy |= g[i].where != VG_WD_NONE;
			now += 10;
			ASSERT_LT(now, 10000000) TH_LOG("iter %u stuck", iter);
		}
		for (i = 0; i < NQ; i++)
			EXPECT_EQ(target[i], seen[i]);
		for (i = 0; i < NG; i++)
			EXPECT_EQ(g[i].blocks_total, g[i].next_block);
	}
}

#define NT	24
#define NB	40

struct running {
	struct vg_wd_task *t;
	uint32_t sm;
};

TEST(random_mixes_run_every_cta_exactly_once)
{
	static struct running run[NT * NB];
	struct vg_wd_task tasks[NT];
	uint8_t count[NT][NB];
	uint32_t iter, i, nrun;

	for (iter = 0; iter < 2000; iter++) {
		struct vg_wd_limits lim = { 2048, 65536, 65536, 1 + rnd(6) };
		uint32_t sms = 1 + rnd(6), nt = 1 + rnd(NT), live;
		bool removed[NT] = { false };
		struct vg_wd_policy pol;
		struct vg_wdist wd;
		uint64_t now = 0;

		vg_wdist_init(&wd, sms, &lim);
		vg_wdist_default_policy(&pol, sms);
		pol.table_slots = 1 + rnd(6);
		pol.mode = rnd(2) ? VG_WD_ROUND_ROBIN : VG_WD_LOAD_BALANCE;
		pol.sync_latency = rnd(3) * 50;
		pol.evict_latency = rnd(3) * 70;
		for (i = 0; i < sms; i++) {	/* a random SM list */
			uint32_t j = rnd(i + 1);

			pol.sm_order[i] = pol.sm_order[j];
			pol.sm_order[j] = (uint8_t)i;
		}
		ASSERT_EQ(0, vg_wdist_set_policy(&wd, &pol));
		memset(count, 0, sizeof(count));
		for (i = 0; i < nt; i++) {
			task(&tasks[i], rnd(20), 1 + rnd(NB), 32 * (1 + rnd(32)));
			tasks[i].head = rnd(4) == 0;
			tasks[i].sequential = rnd(8) == 0;
			tasks[i].quota = rnd(3) ? 0 : 1 + rnd(4);
			tasks[i].sm_mask = rnd(3) ? 0 : (1ull << rnd(sms)) | 1;
			tasks[i].throttle = rnd(10) == 0;
		}
		nrun = 0;
		live = 0;
		/* Submissions, issue and completions interleaved at random. */
		for (i = 0; i < nt || nrun || live; now += 10) {
			struct issue x;

			if (i < nt && rnd(3) == 0) {
				vg_wdist_submit(&wd, &tasks[i++]);
				live++;
			}
			while ((x = next_at(&wd, now)).ok) {
				uint32_t k = (uint32_t)(x.t - tasks);

				ASSERT_LT(x.block, x.t->blocks_total);
				ASSERT_FALSE(removed[k]);
				count[k][x.block]++;
				ASSERT_EQ(1, count[k][x.block])
					TH_LOG("iter %u task %u block %u twice",
					       iter, k, x.block);
				ASSERT_FALSE(x.t->sequential &&
					     x.t->blocks_running > 1);
				ASSERT_TRUE(!x.t->sm_mask ||
					    (x.t->sm_mask >> x.sm & 1));
				run[nrun].t = x.t;
				run[nrun++].sm = x.sm;
			}
			/* Some blocks finish; now and then a task is dropped. */
			if (nrun && rnd(2)) {
				uint32_t r = rnd(nrun);

				vg_wdist_block_done(&wd, run[r].t, run[r].sm);
				run[r] = run[--nrun];
			}
			if (i && rnd(200) == 0) {
				uint32_t k = rnd(i);

				if (!removed[k] && tasks[k].where != VG_WD_NONE) {
					vg_wdist_remove(&wd, &tasks[k]);
					removed[k] = true;
				}
			}
			live = 0;
			for (uint32_t k = 0; k < i; k++)
				live += tasks[k].where != VG_WD_NONE;
			ASSERT_LT(now, 10000000) TH_LOG("iter %u stuck", iter);
		}
		/* Every CTA of every task not dropped ran exactly once. */
		for (i = 0; i < nt; i++) {
			uint32_t b;

			if (removed[i])
				continue;
			for (b = 0; b < tasks[i].blocks_total; b++)
				ASSERT_EQ(1, count[i][b])
					TH_LOG("iter %u task %u block %u", iter,
					       i, b);
		}
		/* A reset leaves nothing behind, and the unit works on. */
		vg_wdist_reset(&wd);
		EXPECT_FALSE(next_at(&wd, now).ok);
		task(&tasks[0], 0, 1, 32);
		vg_wdist_submit(&wd, &tasks[0]);
		{
			struct issue x = next_at(&wd, now);

			if (!x.ok)	/* after the state sync's latency */
				x = next_at(&wd, x.wake);
			ASSERT_TRUE(x.ok);
		}
	}
}

/*
 * Under saturation, load balance keeps the running CTAs of identical SMs
 * within one of each other whatever order blocks finish in.
 */
TEST(load_balance_spread_within_one)
{
	struct vg_wd_limits lim = { 2048, 65536, 65536, 8 };
	struct vg_wdist wd;
	struct vg_wd_task t;
	struct issue x;
	uint32_t step, s;

	vg_wdist_init(&wd, 6, &lim);
	task(&t, 1, 100000, 32);
	vg_wdist_submit(&wd, &t);
	for (step = 0; step < 20000; step++) {
		uint32_t lo = UINT32_MAX, hi = 0;

		while ((x = next(&wd)).ok)
			;
		for (s = 0; s < 6; s++) {
			lo = wd.sm[s].blocks < lo ? wd.sm[s].blocks : lo;
			hi = wd.sm[s].blocks > hi ? wd.sm[s].blocks : hi;
		}
		ASSERT_LE(hi - lo, 1) TH_LOG("step %u", step);
		/* one block finishes on a random busy SM */
		do
			s = rnd(6);
		while (!wd.sm[s].blocks);
		vg_wdist_block_done(&wd, &t, s);
		/* and sometimes a second one: the SMs are uneven for a while */
		if (rnd(2)) {
			do
				s = rnd(6);
			while (!wd.sm[s].blocks);
			vg_wdist_block_done(&wd, &t, s);
		}
	}
}

TEST_HARNESS_MAIN
