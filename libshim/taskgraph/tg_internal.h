/* SPDX-License-Identifier: MIT */
/*
 * libvmgpu task graphs (SPEC T1-T7): what the graph, the stream runner,
 * the scheduler and the recorder share. Not installed.
 */
#ifndef VMGPU_TG_INTERNAL_H
#define VMGPU_TG_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmgpu.h"
#include "vmgpu/graph.h"
#include "grow.h"
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
	uint32_t split_blocks;		/* T7: parts of at most this; 0 */
	/* Dependencies on earlier passes (computed at pass_end). */
	struct vmgpu_graph_dep *deps;
	uint32_t ndeps;
};

/*
 * The resources a pass reads or writes: reads, then writes (a resource
 * both read and written comes twice; tg_pass_dup() says so).
 */
static inline uint32_t tg_pass_nres(const struct tg_pass *p)
{
	return p->nreads + p->nwrites;
}

static inline uint32_t tg_pass_res(const struct tg_pass *p, uint32_t j)
{
	return j < p->nreads ? p->reads[j] : p->writes[j - p->nreads];
}

static inline bool tg_pass_dup(const struct tg_pass *p, uint32_t j)
{
	uint32_t i, r;

	if (j < p->nreads)
		return false;
	r = p->writes[j - p->nreads];
	for (i = 0; i < p->nreads; i++)
		if (p->reads[i] == r)
			return true;
	return false;
}

/*
 * Measured costs of the pass at one index (SPEC T5), kept across runs of
 * the program: the last TG_COST_SAMPLES durations in ns, while the pass
 * at that index keeps its name (@name_hash).
 */
#define TG_COST_SAMPLES		5
struct tg_cost {
	uint32_t name_hash;
	uint32_t nsamples;		/* up to TG_COST_SAMPLES */
	uint32_t next;			/* where the next sample goes */
	uint64_t samples[TG_COST_SAMPLES];
};

struct tg_resource {
	char *name;
	const struct vmgpu_bo *bo;	/* NULL: transient */
	uint64_t size;
	/* Dependency tracking while passes are added: the last writers
	 * (several: the parts of a split pass). */
	uint32_t *writers, nwriters, cap_writers;
	uint32_t *readers, nreaders, cap_readers;	/* since last writer */
};

struct vmgpu_graph {
	struct tg_resource *res;
	uint32_t nres, cap_res;
	struct tg_pass *passes;
	uint32_t npasses, cap_passes;
	bool open;			/* passes[npasses - 1] being built */
	/* Costs (cost.c): per pass index; prio is scratch. */
	struct tg_cost *costs;
	uint32_t cap_costs;
	uint64_t *prio;
	uint32_t cap_prio;
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
	/* Passes by priority as compiled (feedback.c), and the priorities. */
	uint32_t *by_prio;
	uint64_t *prio;
	/* Transient memory (SPEC T6): per resource, its heap offset
	 * (TG_NO_OFFSET: not transient, or unused) and live stages. */
	uint32_t nres;
	uint64_t *heap_offset;
	uint32_t *live_first, *live_last;
	struct vmgpu_graph_memory mem;
};

#define TG_NO_OFFSET		UINT64_MAX
/* Alignment of transient resources in the heap. */
#define TG_HEAP_ALIGN		256u

int tg_error(struct vmgpu_graph *g, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * The graph's shape: everything the schedule depends on (passes, their
 * edges, command kinds, state and needs, resource sizes), as words.
 */
/*
 * The estimated cost in ns of each pass (0: never measured) and its
 * priority, the cost of the longest path from it to the end, into
 * g->prio (npasses entries).
 */
int tg_priorities(struct vmgpu_graph *g);
uint64_t tg_cost_estimate(const struct vmgpu_graph *g, uint32_t pass);
/* Start the cost history of pass @q afresh if its name changed. */
int tg_cost_track(struct vmgpu_graph *g, uint32_t q);
/* Lifetimes and heap offsets of transient resources (memory.c). */
int tg_place_transients(const struct vmgpu_graph *g,
			struct vmgpu_schedule *s);
/* FNV-1a */
uint32_t tg_hash(const void *data, size_t n);
/* Forget the pass being built (a failed format B run). */
void tg_drop_open_pass(struct vmgpu_graph *g);
/* VMGPU_DEP_* bits as "raw+war". */
void tg_print_kinds(char *buf, size_t len, uint32_t kinds);

/*
 * What the recorders know of the state keys in effect on the device
 * (vmgpu_graph_pass_state), so that a STATE op goes out only when a pass
 * sets a key differently. used: keys some pass of the graph gives;
 * known: bit k, state[k] is in effect.
 */
struct tg_state_track {
	uint32_t state[TG_STATE_KEYS];
	uint32_t known, used;
};

/* Start over for @g: nothing known, the keys its passes give used. */
void tg_state_begin(struct tg_state_track *t, const struct vmgpu_graph *g);
/*
 * The STATE ops pass @pass needs, in key order, into @ops (room for
 * TG_STATE_KEYS); the tracker then takes them as in effect. Returns their
 * count.
 */
uint32_t tg_state_changes(struct tg_state_track *t,
			  const struct vmgpu_graph *g, uint32_t pass,
			  struct vmgpu_graph_op *ops);
int tg_shape(const struct vmgpu_graph *g, uint32_t **words, size_t *count);

/*
 * T8 (c): a condition the device evaluates (SKIP_IF). Node 0 is the
 * root, no condition; a node's passes run if its parent's do and the
 * device finds (word & ~0) @op @value does NOT hold (@op: VMGPU_WAIT_*,
 * the skip condition).
 */
struct tg_dcond {
	uint32_t parent;
	int resource;
	uint64_t offset;
	uint32_t op, value;
};

/* Nested device conditions (the format B nesting bound). */
#define TG_MAX_REGIONS		64

/* A format B run with device conditions: per new pass, its node. */
struct tg_dprog {
	struct tg_dcond *nodes;
	uint32_t nnodes, cap_nodes;
	uint32_t *pass_node;		/* per graph pass */
	uint32_t cap_pass_node;
};

int tg_run_stream_device(struct vmgpu_graph *g, const uint32_t *words,
			 size_t count, const struct vmgpu_graph_bindings *b,
			 struct tg_dprog *prog);

#endif
