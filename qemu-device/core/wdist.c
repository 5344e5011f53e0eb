// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Work distributor: priority-ordered ready list and load-balanced block
 * issue (SPEC W5 "load-balance" mode, SM number as the fixed tie order).
 */
#include <string.h>

#include "wdist.h"

void vg_wdist_init(struct vg_wdist *wd, uint32_t num_sms,
                   const struct vg_wd_limits *lim)
{
    memset(wd, 0, sizeof(*wd));
    wd->num_sms = num_sms;
    wd->lim = *lim;
}

void vg_wdist_reset(struct vg_wdist *wd)
{
    struct vg_wd_task *t = wd->ready;

    while (t) {
        struct vg_wd_task *next = t->next;

        t->queued = false;
        t->next = NULL;
        t = next;
    }
    wd->ready = NULL;
    memset(wd->sm, 0, sizeof(wd->sm));
    wd->next_order = 0;
}

bool vg_wdist_fits(const struct vg_wdist *wd, const struct vg_wd_need *need)
{
    return need->threads <= wd->lim.threads && need->regs <= wd->lim.regs &&
           need->shared <= wd->lim.shared && wd->lim.blocks >= 1;
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
    r = room_for(wd->lim.shared, s->shared, need->shared);
    return r < room ? r : room;
}

static bool task_before(const struct vg_wd_task *a, const struct vg_wd_task *b)
{
    if (a->priority != b->priority) {
        return a->priority < b->priority;
    }
    return a->alloc_order < b->alloc_order;
}

void vg_wdist_submit(struct vg_wdist *wd, struct vg_wd_task *task)
{
    struct vg_wd_task **p = &wd->ready;

    task->alloc_order = wd->next_order++;
    task->queued = true;
    while (*p && !task_before(task, *p)) {
        p = &(*p)->next;
    }
    task->next = *p;
    *p = task;
}

void vg_wdist_remove(struct vg_wdist *wd, struct vg_wd_task *task)
{
    struct vg_wd_task **p = &wd->ready;

    if (!task->queued) {
        return;
    }
    while (*p && *p != task) {
        p = &(*p)->next;
    }
    if (*p) {
        *p = task->next;
    }
    task->next = NULL;
    task->queued = false;
}

bool vg_wdist_next(struct vg_wdist *wd, struct vg_wd_task **task, uint32_t *sm,
                   uint32_t *block)
{
    struct vg_wd_task *t = wd->ready;
    uint32_t best = UINT32_MAX, best_room = 0, s;

    if (!t) {
        return false;
    }
    for (s = 0; s < wd->num_sms; s++) {
        uint32_t room;

        if (t->sm_mask && !(t->sm_mask >> s & 1)) {
            continue;
        }
        room = vg_wdist_sm_room(wd, s, &t->need);
        if (room > best_room) {
            best_room = room;
            best = s;
        }
    }
    if (best == UINT32_MAX) {
        return false;
    }
    wd->sm[best].threads += t->need.threads;
    wd->sm[best].regs += t->need.regs;
    wd->sm[best].shared += t->need.shared;
    wd->sm[best].blocks++;
    *task = t;
    *sm = best;
    *block = t->next_block++;
    t->blocks_running++;
    wd->issued++;
    if (t->next_block == t->blocks_total) {
        vg_wdist_remove(wd, t);
    }
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
    task->blocks_running--;
}
