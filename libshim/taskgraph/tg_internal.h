/* SPDX-License-Identifier: MIT */
/*
 * libvmgpu task graphs (SPEC T1-T4): what the graph, the stream runner,
 * the scheduler and the recorder share. Not installed.
 */
#ifndef VMGPU_TG_INTERNAL_H
#define VMGPU_TG_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmgpu.h"
#include "shim_internal.h"

/* SET_STATE keys a pass may give: VMGPU_STATE_INSTR_BUDGET..SM_MASK_HI. */
#define TG_STATE_KEYS		5

enum tg_cmd_type {
	TG_CMD_DISPATCH,
	TG_CMD_COPY,
	TG_CMD_CLEAR,
};

struct tg_cmd {
	enum tg_cmd_type type;
	/* DISPATCH: a copy of the descriptor; args and typed_args point
	 * into this command's own copies. */
	struct vmgpu_dispatch_desc desc;
	void *args;
	struct vmgpu_args *typed;
	/* COPY: src -> dst; CLEAR: dst, value. */
	int src, dst;
	uint64_t src_offset, dst_offset, bytes;
	uint32_t value;
};

struct tg_pass {
	char *name;
	uint32_t *reads, nreads;	/* resource ids, sorted, distinct */
	uint32_t *writes, nwrites;
	uint32_t state_set;		/* bit k: key k + 1 given */
	uint32_t state[TG_STATE_KEYS];
	bool needs_given;
	struct vmgpu_graph_needs needs;	/* given, or derived */
	struct tg_cmd *cmds;
	uint32_t ncmds;
	/* Dependencies on earlier passes (computed at pass_end). */
	struct vmgpu_graph_dep *deps;
	uint32_t ndeps;
};

struct tg_resource {
	char *name;
	const struct vmgpu_bo *bo;	/* NULL: transient */
	uint64_t size;
	/* Dependency tracking while passes are added. */
	int64_t last_writer;		/* -1: none */
	uint32_t *readers, nreaders, cap_readers;	/* since last writer */
};

struct vmgpu_graph {
	struct tg_resource *res;
	uint32_t nres, cap_res;
	struct tg_pass *passes;
	uint32_t npasses, cap_passes;
	bool open;			/* passes[npasses - 1] being built */
	pthread_mutex_t err_lock;
	char err_msg[256];
};

struct tg_wait {
	uint32_t first;			/* index into waits */
	uint32_t count;
};

struct vmgpu_schedule {
	/* The graph's shape when compiled (tg_shape()). */
	uint32_t *shape;
	size_t nshape;
	uint32_t npasses;
	uint32_t nstages;
	uint32_t *order;		/* passes, stage by stage */
	uint32_t *stage_start;		/* nstages + 1 offsets into order */
	uint32_t *stage_of;		/* per pass */
	uint32_t *wait_first;		/* npasses + 1 offsets into waits */
	struct vmgpu_graph_dep *waits;
};

int tg_error(struct vmgpu_graph *g, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Grow *@arr of *@cap elements to hold @need. */
int tg_grow(void **arr, uint32_t *cap, uint32_t need, size_t elem);
/*
 * The graph's shape: everything the schedule depends on (passes, their
 * edges, command kinds, state and needs, resource sizes), as words.
 */
/* Forget the pass being built (a failed format B run). */
void tg_drop_open_pass(struct vmgpu_graph *g);
/* VMGPU_DEP_* bits as "raw+war". */
void tg_print_kinds(char *buf, size_t len, uint32_t kinds);
int tg_shape(const struct vmgpu_graph *g, uint32_t **words, size_t *count);

#endif
