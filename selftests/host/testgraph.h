/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the task-graph tests (test_taskgraph.c, test_taskgraph_random.c)
 * share: a recorder behind the library's callback interface that encodes
 * the device's command words (uapi/vmgpu_cmd.h) and logs each operation,
 * so no device is needed; the SYNCs between two passes; a random number
 * generator. Header only.
 */
#ifndef VMGPU_TESTGRAPH_H
#define VMGPU_TESTGRAPH_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "vmgpu.h"
#include "vmgpu/graph.h"
#include "vmgpu_cmd.h"

/* ---- A recorder: command words and a log of operations ---- */

#define MAX_OPS		8192

struct op {
	uint32_t type, pass, consumer, producer, index;
	uint32_t origin, grid, total;	/* DISPATCH, x */
};

struct rec {
	uint32_t words[4 * MAX_OPS];
	uint32_t nwords;
	struct op ops[MAX_OPS];
	uint32_t nops;
	uint32_t dispatches;
	uint32_t syncs, barriers;
};

static inline void put_words(struct rec *r, const void *cmd, uint32_t n)
{
	if (r->nwords + n <= sizeof(r->words) / 4)
		memcpy(r->words + r->nwords, cmd, 4 * n);
	r->nwords += n;
}

static inline int rec_emit(void *opaque, const struct vmgpu_graph_op *o)
{
	struct rec *r = opaque;
	struct op *op;

	if (r->nops == MAX_OPS)
		return -E2BIG;
	op = &r->ops[r->nops++];
	memset(op, 0, sizeof(*op));
	op->type = o->type;
	op->pass = o->pass;
	switch (o->type) {
	case VMGPU_GRAPH_OP_DISPATCH: {
		const struct vmgpu_dispatch_desc *d = o->dispatch;
		uint32_t g[3], b[3], t[3], i;
		struct vmgpu_cmd_dispatch c;

		for (i = 0; i < 3; i++) {
			g[i] = d->grid[i] ? d->grid[i] : 1;
			b[i] = d->block[i] ? d->block[i] : 1;
			t[i] = d->grid_total[i] ? d->grid_total[i] :
						  d->origin[i] + g[i];
		}
		op->origin = d->origin[0];
		op->grid = g[0];
		op->total = t[0];
		c = vmgpu_encode_dispatch(0x100000ull + 0x1000ull * o->pass,
					  0, 0, g, b, d->origin, t,
					  d->shared_bytes, d->priority);
		put_words(r, &c, VMGPU_CMD_LEN_DISPATCH);
		op->index = r->dispatches++;
		return (int)op->index;
	}
	case VMGPU_GRAPH_OP_SYNC: {
		struct vmgpu_cmd_sync c = vmgpu_encode_sync(o->consumer,
							    o->producer);

		put_words(r, &c, VMGPU_CMD_LEN_SYNC);
		op->consumer = o->consumer;
		op->producer = o->producer;
		r->syncs++;
		return 0;
	}
	case VMGPU_GRAPH_OP_BARRIER: {
		struct vmgpu_cmd_barrier c = vmgpu_encode_barrier();

		put_words(r, &c, VMGPU_CMD_LEN_BARRIER);
		r->barriers++;
		return 0;
	}
	case VMGPU_GRAPH_OP_STATE: {
		struct vmgpu_cmd_set_state c =
			vmgpu_encode_set_state(o->key, o->value);

		put_words(r, &c, VMGPU_CMD_LEN_SET_STATE);
		return 0;
	}
	case VMGPU_GRAPH_OP_COPY: {
		struct vmgpu_cmd_copy c = vmgpu_encode_copy(
			0x10000000ull * (o->src + 1) + o->src_offset,
			0x10000000ull * (o->dst + 1) + o->dst_offset,
			(uint32_t)o->bytes, 1, 0, 0);

		put_words(r, &c, VMGPU_CMD_LEN_COPY);
		return 0;
	}
	case VMGPU_GRAPH_OP_WRITE_VALUE: {
		struct vmgpu_cmd_write_value c = vmgpu_encode_write_value(
			0x10000000ull * (o->dst + 1) + o->dst_offset, o->value);

		put_words(r, &c, VMGPU_CMD_LEN_WRITE_VALUE);
		return 0;
	}
	case VMGPU_GRAPH_OP_TIMESTAMP: {
		struct vmgpu_cmd_timestamp c = vmgpu_encode_timestamp(
			0x20000000ull + 8ull * o->value);

		put_words(r, &c, VMGPU_CMD_LEN_TIMESTAMP);
		op->index = o->value;
		return 0;
	}
	}
	return 0;
}

static inline int record(struct vmgpu_graph *g, struct vmgpu_schedule *s,
			 struct rec *r)
{
	memset(r, 0, sizeof(*r));
	return vmgpu_graph_record_ops(g, s, 0, rec_emit, r);
}

/* The (consumer pass, producer pass) of each recorded SYNC. */
static inline int sync_between(const struct rec *r, uint32_t consumer_pass,
			       uint32_t producer_pass)
{
	uint32_t i, j, k, n = 0;

	for (i = 0; i < r->nops; i++) {
		if (r->ops[i].type != VMGPU_GRAPH_OP_SYNC)
			continue;
		for (j = 0; j < r->nops; j++) {
			if (r->ops[j].type != VMGPU_GRAPH_OP_DISPATCH ||
			    r->ops[j].index != r->ops[i].consumer ||
			    r->ops[j].pass != consumer_pass)
				continue;
			for (k = 0; k < r->nops; k++)
				if (r->ops[k].type == VMGPU_GRAPH_OP_DISPATCH &&
				    r->ops[k].index == r->ops[i].producer &&
				    r->ops[k].pass == producer_pass)
					n++;
		}
	}
	return n;
}

/* ---- Random numbers (each test sets the seed) ---- */

static uint64_t rng_state;

static inline uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng_state >> 33) % n;
}

#endif
