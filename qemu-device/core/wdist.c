// SPDX-License-Identifier: MIT
/*
 * The work distribution unit (wdist.h): pending lists, task table with
 * eviction, per-SM assignment and CTA issue.
 */
#include <string.h>

#include "wdist.h"

/*
 * The first slot at or after @i that holds a task, or VG_WD_MAX_SLOTS.
 * The distributor scans the table for every CTA it issues, and the
 * table is mostly empty: a scan visits only the slots in use, in slot
 * order, as a scan of every slot would.
 */
static uint32_t next_task_slot(const struct vg_wdist *wd, uint32_t i)
{
    while (i < VG_WD_MAX_SLOTS) {
        uint64_t w = wd->occupied[i / 64] >> (i % 64);

        if (w) {
            return i + (uint32_t)__builtin_ctzll(w);
        }
        i = (i / 64 + 1) * 64;
    }
    return VG_WD_MAX_SLOTS;
}

#define FOR_EACH_TASK(wd, i)                                      \
    for ((i) = next_task_slot((wd), 0); (i) < VG_WD_MAX_SLOTS; \
         (i) = next_task_slot((wd), (i) + 1))

static uint32_t level_of(const struct vg_wd_task *t)
{
    return t->level;
}

/* Has it a CTA left to issue (a queue task: an item waiting)? */
static bool has_work(const struct vg_wd_task *t)
{
    return t->queue ? t->items != t->items_issued
                    : t->next_block < t->blocks_total;
}

/* A queue task in its last state: nothing waits and nothing will come. */
static bool queue_idle(const struct vg_wd_task *t)
{
    return t->queue && t->items == t->items_issued;
}

/* W5's coalescing rule: may a CTA of @t be issued at @now? */
static bool batch_ready(const struct vg_wd_task *t, uint64_t now)
{
    uint32_t waiting = t->items - t->items_issued;

    return !t->queue || waiting >= t->coalesce ||
           (waiting && now >= t->wait_since + t->coalesce_timeout);
}

/* More urgent, or as urgent and allocated earlier. */
static bool task_before(const struct vg_wd_task *a, const struct vg_wd_task *b)
{
    if (level_of(a) != level_of(b)) {
        return level_of(a) < level_of(b);
    }
    return a->alloc_order < b->alloc_order;
}

void vg_wdist_default_policy(struct vg_wd_policy *pol, uint32_t num_sms)
{
    uint32_t s;

    memset(pol, 0, sizeof(*pol));
    /* As many concurrent kernels as recent NVIDIA GPUs run (32..128). */
    pol->table_slots = 32;
    pol->mode = VG_WD_LOAD_BALANCE;
    pol->sync_latency = 0;
    for (s = 0; s < num_sms && s < VMGPU_MAX_SMS; s++) {
        pol->sm_order[s] = (uint8_t)s;
    }
}

/* Every SM back to its own share of the shared-memory pool. */
static void normal_portions(struct vg_wdist *wd)
{
    uint32_t s;

    for (s = 0; s < wd->num_sms; s++) {
        wd->sm[s].shared_size = wd->lim.shared;
        wd->sm[s].shared_base = s * wd->lim.shared;
    }
}

void vg_wdist_init(struct vg_wdist *wd, uint32_t num_sms,
                   const struct vg_wd_limits *lim)
{
    memset(wd, 0, sizeof(*wd));
    wd->num_sms = num_sms;
    wd->lim = *lim;
    wd->last_sm = -1;
    vg_wdist_default_policy(&wd->pol, num_sms);
    normal_portions(wd);
}

uint64_t vg_wdist_throttle_sms(const struct vg_wdist *wd)
{
    uint64_t all = vg_wdist_all_sms(wd), half;

    if (wd->pol.throttle_sms & all) {
        return wd->pol.throttle_sms & all;
    }
    half = (wd->num_sms + 1) / 2;
    return half >= 64 ? ~0ull : (1ull << half) - 1;
}

/* Shared memory of one subset SM in throttle mode: the pool, split. */
static uint32_t throttle_portion(const struct vg_wdist *wd)
{
    uint32_t k = (uint32_t)__builtin_popcountll(vg_wdist_throttle_sms(wd));
    uint64_t pool = (uint64_t)wd->num_sms * wd->lim.shared;

    return (uint32_t)(pool / k) & ~1023u;
}

static void unassign(struct vg_wdist *wd, const struct vg_wd_task *t)
{
    uint32_t s;

    for (s = 0; s < wd->num_sms; s++) {
        if (wd->sm[s].assigned == t) {
            wd->sm[s].assigned = NULL;
            wd->sm[s].state = VG_WD_SM_IDLE;
        }
    }
}

int vg_wdist_set_policy(struct vg_wdist *wd, const struct vg_wd_policy *pol)
{
    uint64_t seen = 0;
    uint32_t p, s;

    if (wd->throttle || pol->table_slots < 1 ||
        pol->table_slots > VG_WD_MAX_SLOTS ||
        (pol->mode != VG_WD_LOAD_BALANCE && pol->mode != VG_WD_ROUND_ROBIN)) {
        return -1;
    }
    for (p = 0; p < wd->num_sms; p++) {
        if (pol->sm_order[p] >= wd->num_sms || seen >> pol->sm_order[p] & 1) {
            return -1;
        }
        seen |= 1ull << pol->sm_order[p];
    }
    /* Fewer slots: the tasks in slots past the end wait again. */
    for (p = pol->table_slots; p < wd->pol.table_slots; p++) {
        if (wd->table[p]) {
            return -1;
        }
    }
    wd->pol = *pol;
    for (s = 0; s < wd->num_sms; s++) {
        wd->sm[s].assigned = NULL;
        wd->sm[s].state = VG_WD_SM_IDLE;
    }
    wd->last_sm = -1;
    return 0;
}

void vg_wdist_reset(struct vg_wdist *wd)
{
    struct vg_wd_policy pol = wd->pol;
    struct vg_wd_limits lim = wd->lim;
    void (*observe)(void *, const struct vg_wd_task *, enum vg_wd_event) =
        wd->observe;
    void *observe_opaque = wd->observe_opaque;
    uint32_t l, i;

    for (l = 0; l < VG_WD_LEVELS; l++) {
        struct vg_wd_task *t = wd->pending[l];

        while (t) {
            struct vg_wd_task *next = t->next;

            t->where = VG_WD_NONE;
            t->next = NULL;
            t = next;
        }
    }
    for (i = 0; i < VG_WD_MAX_SLOTS; i++) {
        if (wd->table[i]) {
            wd->table[i]->where = VG_WD_NONE;
        }
    }
    vg_wdist_init(wd, wd->num_sms, &lim);
    wd->pol = pol;
    wd->observe = observe;
    wd->observe_opaque = observe_opaque;
}

bool vg_wdist_fits(const struct vg_wdist *wd, const struct vg_wd_need *need,
                   bool throttle)
{
    uint32_t shared = throttle ? throttle_portion(wd) : wd->lim.shared;

    return need->threads <= wd->lim.threads && need->regs <= wd->lim.regs &&
           need->shared <= shared && wd->lim.blocks >= 1;
}

static uint32_t room_for(uint32_t limit, uint32_t used, uint32_t need)
{
    if (!need) {
        return UINT32_MAX;
    }
    return used >= limit ? 0 : (limit - used) / need;
}

uint32_t vg_wdist_sm_room(const struct vg_wdist *wd, uint32_t sm,
                          const struct vg_wd_need *need)
{
    const struct vg_wd_sm *s = &wd->sm[sm];
    uint32_t room = room_for(wd->lim.blocks, s->blocks, 1), r;

    r = room_for(wd->lim.threads, s->threads, need->threads);
    room = r < room ? r : room;
    r = room_for(wd->lim.regs, s->regs, need->regs);
    room = r < room ? r : room;
    r = room_for(s->shared_size, s->shared, need->shared);
    return r < room ? r : room;
}

/* ---- Task management and the task table (W1, W2) ---- */

static void pending_push(struct vg_wdist *wd, struct vg_wd_task *t, bool head)
{
    struct vg_wd_task **p = &wd->pending[level_of(t)];

    if (!head) {
        while (*p) {
            p = &(*p)->next;
        }
    }
    t->next = *p;
    *p = t;
    t->where = VG_WD_PENDING;
}

static void pending_unlink(struct vg_wdist *wd, struct vg_wd_task *t)
{
    struct vg_wd_task **p = &wd->pending[level_of(t)];

    while (*p && *p != t) {
        p = &(*p)->next;
    }
    if (*p) {
        *p = t->next;
    }
    t->next = NULL;
}

/* The first pending TMD with work (an idle queue task waits for items). */
static struct vg_wd_task *pending_first(struct vg_wdist *wd)
{
    struct vg_wd_task *t;
    uint32_t l;

    for (l = 0; l < VG_WD_LEVELS; l++) {
        for (t = wd->pending[l]; t; t = t->next) {
            if (has_work(t)) {
                return t;
            }
        }
    }
    return NULL;
}

/* Tell the observer, if any, of a state change of @t. */
static void note(struct vg_wdist *wd, const struct vg_wd_task *t,
                 enum vg_wd_event ev)
{
    if (wd->observe) {
        wd->observe(wd->observe_opaque, t, ev);
    }
}

static void table_leave(struct vg_wdist *wd, struct vg_wd_task *t)
{
    wd->table[t->slot] = NULL;
    wd->occupied[t->slot / 64] &= ~(1ull << (t->slot % 64));
    t->where = VG_WD_NONE;
    unassign(wd, t);
}

/*
 * The table TMD to evict for a more urgent one: the least urgent that
 * still has CTAs to issue (one with none left only drains), the most
 * recently allocated among equals. An idle queue task goes first, for
 * any pending TMD (*@any set).
 */
static struct vg_wd_task *victim(struct vg_wdist *wd, bool *any)
{
    struct vg_wd_task *v = NULL;
    uint32_t i;

    *any = false;
    FOR_EACH_TASK(wd, i) {
        struct vg_wd_task *t = wd->table[i];

        if (queue_idle(t)) {
            *any = true;
            return t;
        }
        if (has_work(t) && (!v || task_before(v, t))) {
            v = t;
        }
    }
    return v;
}

/* The first free slot of the table, or table_slots if it is full. */
static uint32_t free_slot(const struct vg_wdist *wd)
{
    uint32_t i = 0;

    while (i < wd->pol.table_slots && wd->table[i]) {
        i++;
    }
    return i;
}

/* Move pending TMDs into the table while slots allow, evicting if urgent. */
static void admit(struct vg_wdist *wd)
{
    struct vg_wd_task *t, *v;
    bool any;
    uint32_t i;

    while ((t = pending_first(wd))) {
        v = NULL;
        i = free_slot(wd);
        if (i == wd->pol.table_slots) {
            v = victim(wd, &any);
            if (!v || (!any && level_of(t) >= level_of(v))) {
                return;
            }
            i = v->slot;
            table_leave(wd, v);
            v->evictions++;
            wd->stats.evictions++;
            note(wd, v, VG_WD_EV_EVICTED);
            /* It comes back first among its level, where it stopped. */
            pending_push(wd, v, true);
        }
        pending_unlink(wd, t);
        t->where = VG_WD_TABLE;
        t->slot = i;
        t->alloc_order = wd->next_order++;
        t->quota_used = 0;
        /* After an eviction: timed at the next assignment (UINT64_MAX). */
        t->ready_at = v && wd->pol.evict_latency ? UINT64_MAX : 0;
        wd->table[i] = t;
        wd->occupied[i / 64] |= 1ull << (i % 64);
        note(wd, t, t->evictions ? VG_WD_EV_RESUMED : VG_WD_EV_TABLE);
    }
}

void vg_wdist_submit(struct vg_wdist *wd, struct vg_wd_task *task)
{
    task->level = wd->pol.fifo                    ? 0
                  : task->priority < VG_WD_LEVELS ? task->priority
                                                  : VG_WD_LEVELS - 1;
    task->next_block = 0;
    task->blocks_running = 0;
    task->quota_used = 0;
    task->evictions = 0;
    task->ready_at = 0;
    /* A queue task may have items already: they came during its launch. */
    pending_push(wd, task, task->head);
    note(wd, task, VG_WD_EV_PENDING);
    admit(wd);
}

void vg_wdist_add_items(struct vg_wdist *wd, struct vg_wd_task *task,
                        uint32_t n, uint64_t now)
{
    if (!n) {
        return;
    }
    if (queue_idle(task)) {
        task->wait_since = now;
    }
    task->items += n;
    if (task->where == VG_WD_PENDING) {
        admit(wd);
    }
}

/* @task leaves the unit for good, pending or in the table: event @ev. */
static void leave(struct vg_wdist *wd, struct vg_wd_task *task,
                  enum vg_wd_event ev)
{
    if (task->where == VG_WD_PENDING) {
        pending_unlink(wd, task);
        task->where = VG_WD_NONE;
        note(wd, task, ev);
    } else if (task->where == VG_WD_TABLE) {
        table_leave(wd, task);
        note(wd, task, ev);
        admit(wd);
    }
}

bool vg_wdist_close(struct vg_wdist *wd, struct vg_wd_task *task)
{
    leave(wd, task, VG_WD_EV_DONE);
    return !task->blocks_running;
}

void vg_wdist_remove(struct vg_wdist *wd, struct vg_wd_task *task)
{
    leave(wd, task, VG_WD_EV_REMOVED);
}

/* ---- Assignment (W4) ---- */

/*
 * While a throttle TMD is in the table only throttle TMDs issue, and only
 * once the mode is entered, on the subset's SMs.
 */
static bool may_run_on(const struct vg_wdist *wd, const struct vg_wd_task *t,
                       uint32_t sm, bool throttle_wanted)
{
    if (throttle_wanted && (!t->throttle || !wd->throttle ||
                            !(vg_wdist_throttle_sms(wd) >> sm & 1))) {
        return false;
    }
    return has_work(t) && (!t->sm_mask || (t->sm_mask >> sm & 1)) &&
           (!t->sequential || !t->blocks_running);
}

static bool throttle_present(const struct vg_wdist *wd)
{
    uint32_t i;

    FOR_EACH_TASK(wd, i) {
        if (wd->table[i]->throttle) {
            return true;
        }
    }
    return false;
}

/*
 * Throttle mode (W6): enter once a throttle TMD is present and the other
 * TMDs' blocks have drained, sending each subset SM its larger portion;
 * leave once none is present and its blocks have drained.
 */
static bool update_throttle(struct vg_wdist *wd)
{
    bool want = throttle_present(wd);
    uint64_t subset;
    uint32_t s, size, k = 0;

    if (want && !wd->throttle && !wd->running_normal) {
        subset = vg_wdist_throttle_sms(wd);
        size = throttle_portion(wd);
        for (s = 0; s < wd->num_sms; s++) {
            if (subset >> s & 1) {
                wd->sm[s].shared_size = size;
                wd->sm[s].shared_base = k++ * size;
                wd->stats.portion_syncs++;
            } else {
                wd->sm[s].shared_size = 0;
            }
        }
        wd->throttle = true;
        wd->stats.throttle_entries++;
    } else if (!want && wd->throttle && !wd->running_throttle) {
        normal_portions(wd);
        wd->stats.portion_syncs += wd->num_sms;
        wd->throttle = false;
    }
    return want;
}

static bool quota_left(const struct vg_wd_task *t)
{
    return !t->quota || t->quota_used < t->quota;
}

/* The TMD SM @sm should run now, or NULL. */
static struct vg_wd_task *pick(struct vg_wdist *wd, uint32_t sm, bool thr)
{
    struct vg_wd_task *best = NULL, *any = NULL, *t;
    uint32_t i, level;

    FOR_EACH_TASK(wd, i) {
        t = wd->table[i];
        if (!may_run_on(wd, t, sm, thr)) {
            continue;
        }
        if (!any || task_before(t, any)) {
            any = t;
        }
    }
    if (!any) {
        return NULL;
    }
    /* The most urgent level decides; quotas only rotate within it. */
    level = level_of(any);
    FOR_EACH_TASK(wd, i) {
        t = wd->table[i];
        if (level_of(t) == level && may_run_on(wd, t, sm, thr) &&
            quota_left(t) && (!best || task_before(t, best))) {
            best = t;
        }
    }
    if (best) {
        return best;
    }
    /* Every candidate of the level used its quota: a new turn. */
    FOR_EACH_TASK(wd, i) {
        t = wd->table[i];
        if (level_of(t) == level) {
            t->quota_used = 0;
        }
    }
    wd->stats.turns++;
    return any;
}

static void assign(struct vg_wdist *wd, uint64_t now)
{
    bool thr = update_throttle(wd);
    uint32_t s;

    /* Slots taken by eviction since the last pass: their costs start now. */
    FOR_EACH_TASK(wd, s) {
        if (wd->table[s]->ready_at == UINT64_MAX) {
            wd->table[s]->ready_at = now + wd->pol.evict_latency;
        }
    }

    for (s = 0; s < wd->num_sms; s++) {
        struct vg_wd_sm *m = &wd->sm[s];
        struct vg_wd_task *t = pick(wd, s, thr);

        if (t == m->assigned) {
            if (m->state == VG_WD_SM_SYNC && m->ack_at <= now) {
                m->state = VG_WD_SM_LAUNCH;
            }
            continue;
        }
        m->assigned = t;
        if (!t) {
            m->state = VG_WD_SM_IDLE;
            continue;
        }
        /* STATE_SYNC: the SM gets the TMD's state and acknowledges. */
        wd->stats.state_syncs++;
        m->ack_at = now + wd->pol.sync_latency;
        if (t->ready_at > m->ack_at) {
            m->ack_at = t->ready_at;
        }
        m->state = m->ack_at <= now ? VG_WD_SM_LAUNCH : VG_WD_SM_SYNC;
    }
}

/* ---- CTA issue (W5) ---- */

/*
 * Room for another CTA of its TMD on an eligible SM (acknowledged, and
 * for a queue task its coalescing rule met), else 0.
 */
static uint32_t availability(const struct vg_wdist *wd, uint32_t sm,
                             uint64_t now)
{
    const struct vg_wd_sm *m = &wd->sm[sm];

    if (!m->assigned || m->state != VG_WD_SM_LAUNCH ||
        !batch_ready(m->assigned, now)) {
        return 0;
    }
    return vg_wdist_sm_room(wd, sm, &m->assigned->need);
}

/* Position in the SM priority list of the SM that gets the next CTA. */
static int32_t choose_sm(const struct vg_wdist *wd, uint64_t now)
{
    uint32_t n = wd->num_sms, k, best_room = 0;
    int32_t best = -1;

    if (wd->pol.mode == VG_WD_ROUND_ROBIN) {
        for (k = 1; k <= n; k++) {
            uint32_t p = (uint32_t)(wd->last_sm + (int32_t)k + (int32_t)n) % n;

            if (availability(wd, wd->pol.sm_order[p], now)) {
                return (int32_t)p;
            }
        }
        return -1;
    }
    for (k = 0; k < n; k++) {
        uint32_t room = availability(wd, wd->pol.sm_order[k], now);

        if (room > best_room) { /* ties: earlier in the list */
            best_room = room;
            best = (int32_t)k;
        }
    }
    return best;
}

/* When SM @m, which cannot take a CTA at @now, may take one; 0: not by time. */
static uint64_t eligible_at(const struct vg_wdist *wd, uint32_t s, uint64_t now)
{
    const struct vg_wd_sm *m = &wd->sm[s];
    const struct vg_wd_task *t = m->assigned;
    uint64_t at = 0;

    if (!t || !vg_wdist_sm_room(wd, s, &t->need)) {
        return 0;
    }
    if (m->state == VG_WD_SM_SYNC) {
        at = m->ack_at;
    }
    if (!batch_ready(t, at > now ? at : now)) {
        at = t->wait_since + t->coalesce_timeout;
    }
    return at > now ? at : 0;
}

bool vg_wdist_next(struct vg_wdist *wd, uint64_t now, struct vg_wd_cta *cta,
                   uint64_t *wake)
{
    struct vg_wd_task *t;
    struct vg_wd_sm *m;
    uint64_t at;
    int32_t p;
    uint32_t s;

    *wake = 0;
    assign(wd, now);
    p = choose_sm(wd, now);
    if (p < 0) {
        /* Nothing now: maybe once a state sync or a timeout is due. */
        for (s = 0; s < wd->num_sms; s++) {
            at = eligible_at(wd, s, now);
            if (at && (!*wake || at < *wake)) {
                *wake = at;
            }
        }
        return false;
    }
    s = wd->pol.sm_order[p];
    m = &wd->sm[s];
    t = m->assigned;
    m->threads += t->need.threads;
    m->regs += t->need.regs;
    m->shared += t->need.shared;
    m->blocks++;
    if (t->throttle) {
        wd->running_throttle++;
    } else {
        wd->running_normal++;
    }
    cta->task = t;
    cta->sm = s;
    cta->block = t->next_block++;
    cta->item_base = cta->item_count = 0;
    if (t->queue) {
        uint32_t waiting = t->items - t->items_issued;

        cta->item_base = t->items_issued;
        cta->item_count = waiting < t->coalesce ? waiting : t->coalesce;
        t->items_issued += cta->item_count;
        /* One timer per task: it restarts for the items still waiting. */
        t->wait_since = now;
    }
    t->blocks_running++;
    t->quota_used++;
    wd->stats.issued++;
    wd->last_sm = p;
    return true;
}

void vg_wdist_block_done(struct vg_wdist *wd, struct vg_wd_task *task,
                         uint32_t sm)
{
    struct vg_wd_sm *s = &wd->sm[sm];

    s->threads -= task->need.threads;
    s->regs -= task->need.regs;
    s->shared -= task->need.shared;
    s->blocks--;
    if (task->throttle) {
        wd->running_throttle--;
    } else {
        wd->running_normal--;
    }
    task->blocks_running--;
    /* Its last CTA: the slot is free for a pending TMD. */
    if (task->where == VG_WD_TABLE && !task->queue &&
        task->next_block == task->blocks_total && !task->blocks_running) {
        table_leave(wd, task);
        note(wd, task, VG_WD_EV_DONE);
        admit(wd);
    }
}
