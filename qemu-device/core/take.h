/* SPDX-License-Identifier: MIT */
/*
 * TAKE (SPEC R7; take.c): the command processor's dynamic allocation of
 * portions. The CP (cmdproc.c) runs the TAKE at pc with vg_take_run()
 * and does what its result says; a portion's task, when done, is
 * reported with vg_take_portion_done(). The TAKE's own state is
 * cp->take (cp_state.h).
 */
#ifndef VG_TAKE_H
#define VG_TAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "cp_state.h"

/* What the CP is to do after vg_take_run(). */
enum vg_take_step {
    VG_TAKE_DONE,    /* the curve is walked and nothing taken runs: next */
    VG_TAKE_FAILED,  /* report @err */
    VG_TAKE_BLOCKED, /* a portion's entries are not READY: wait for memory */
    VG_TAKE_LATER,   /* they are, written after now: run it again at *@t */
    VG_TAKE_RUNNING, /* inflight portions run: again when one is done */
};

enum vg_take_step vg_take_run(struct vg_cp *cp, const uint8_t *p, vg_time_t *t,
                              struct vg_error *err);
bool vg_take_portion_done(struct vg_cp *cp, struct vg_dispatch *d,
                          struct vg_error *err);

#endif
