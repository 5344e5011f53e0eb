// SPDX-License-Identifier: MIT
/*
 * libvmgpu task graphs: recording a schedule as commands (SPEC T4, and
 * the way to the submission path). The passes go out in the schedule's
 * order. The device runs a packet's dispatches concurrently unless a
 * SYNC or BARRIER orders them, and runs COPY and WRITE_VALUE when its
 * command processor reaches them, waiting for a copy but not for earlier
 * dispatches (Documentation/device-model.rst). So:
 *
 *  - a pass's first dispatch SYNCs on the last dispatch of each pass it
 *    waits for, unless a BARRIER since has completed that dispatch;
 *  - a pass whose first command is a copy or clear gets a BARRIER before
 *    it if a pass it waits for has a dispatch not yet completed;
 *  - inside a pass, commands run in order: a dispatch SYNCs on the
 *    pass's previous dispatch, a copy after a dispatch gets a BARRIER;
 *  - state (SET_STATE) is emitted where a pass's differs from the one in
 *    effect.
 *
 * Everything goes through one callback (struct vmgpu_graph_op), which
 * vmgpu_graph_record() implements with the command-buffer builder and
 * the host tests with an encoder of their own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tg_internal.h"
#include "vmgpu/graph.h"

struct recorder {
	struct vmgpu_graph *g;
	const struct vmgpu_schedule *s;
	vmgpu_graph_emit_fn emit;
	void *opaque;
	uint32_t next;			/* index the next dispatch gets */
	uint32_t mark;			/* dispatches below it are complete */
	struct tg_state_track st;
	/* Per pass: dispatches whose completion means the pass's. */
	uint32_t **done;
	uint32_t *ndone;
};

static int put(struct recorder *r, struct vmgpu_graph_op *op, uint32_t pass)
{
	int ret;

	op->pass = pass;
	ret = r->emit(r->opaque, op);
	if (ret < 0)
		return tg_error(r->g, ret, "record: pass %u '%s': %s failed (%d)",
				pass, r->g->passes[pass].name,
				op->type == VMGPU_GRAPH_OP_DISPATCH ? "dispatch" :
				op->type == VMGPU_GRAPH_OP_SYNC	    ? "sync" :
				op->type == VMGPU_GRAPH_OP_BARRIER  ? "barrier" :
				op->type == VMGPU_GRAPH_OP_COPY	    ? "copy" :
				op->type == VMGPU_GRAPH_OP_WRITE_VALUE ?
								      "write_value" :
				op->type == VMGPU_GRAPH_OP_STATE ? "set_state" :
				op->type == VMGPU_GRAPH_OP_TIMESTAMP ?
								   "timestamp" :
								   "use",
				ret);
	return ret;
}

static int sync_on(struct recorder *r, uint32_t pass, uint32_t producer)
{
	struct vmgpu_graph_op op = { .type = VMGPU_GRAPH_OP_SYNC };
	int ret;

	if (producer < r->mark)
		return 0;
	op.consumer = r->next;
	op.producer = producer;
	ret = put(r, &op, pass);
	return ret < 0 ? ret : 0;
}

static int barrier(struct recorder *r, uint32_t pass)
{
	struct vmgpu_graph_op op = { .type = VMGPU_GRAPH_OP_BARRIER };
	int ret = put(r, &op, pass);

	if (ret < 0)
		return ret;
	r->mark = r->next;
	return 0;
}

static int emit_copy(struct recorder *r, uint32_t pass, const struct tg_cmd *c)
{
	struct vmgpu_graph_op op = { .type = VMGPU_GRAPH_OP_COPY };
	int ret = 0;

	op.src = c->src;
	op.dst = c->dst;
	op.src_bo = r->g->res[c->src].bo;	/* NULL: transient */
	op.dst_bo = r->g->res[c->dst].bo;
	op.src_offset = c->src_offset;
	op.dst_offset = c->dst_offset;
	op.bytes = c->bytes;
	ret = put(r, &op, pass);
	return ret < 0 ? ret : 0;
}

/*
 * CLEAR: the device has no fill command; one WRITE_VALUE of the first
 * word, then COPYs that double the filled range (each copy completes
 * before the next command runs).
 */
static int emit_clear(struct recorder *r, uint32_t pass, const struct tg_cmd *c)
{
	struct vmgpu_graph_op op = { .type = VMGPU_GRAPH_OP_WRITE_VALUE };
	uint64_t done = 4, n;
	int ret = 0;

	op.dst = c->dst;
	op.dst_bo = r->g->res[c->dst].bo;
	op.dst_offset = c->dst_offset;
	op.value = c->value;
	ret = put(r, &op, pass);
	while (ret >= 0 && done < c->bytes) {
		n = c->bytes - done < done ? c->bytes - done : done;
		memset(&op, 0, sizeof(op));
		op.type = VMGPU_GRAPH_OP_COPY;
		op.src = op.dst = c->dst;
		op.src_bo = op.dst_bo = r->g->res[c->dst].bo;
		op.src_offset = c->dst_offset;
		op.dst_offset = c->dst_offset + done;
		op.bytes = n;
		ret = put(r, &op, pass);
		done += n;
	}
	return ret < 0 ? ret : 0;
}

static int emit_state(struct recorder *r, uint32_t pass)
{
	struct vmgpu_graph_op ops[TG_STATE_KEYS];
	uint32_t i, n = tg_state_changes(&r->st, r->g, pass, ops);
	int ret;

	for (i = 0; i < n; i++) {
		ret = put(r, &ops[i], pass);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int emit_uses(struct recorder *r, uint32_t pass)
{
	const struct tg_pass *p = &r->g->passes[pass];
	struct vmgpu_graph_op op = { .type = VMGPU_GRAPH_OP_USE };
	uint32_t i;
	int ret;

	for (i = 0; i < p->nreads + p->nwrites; i++) {
		bool w = i >= p->nreads;
		uint32_t res = w ? p->writes[i - p->nreads] : p->reads[i];
		uint32_t j;

		if (!r->g->res[res].bo)
			continue;
		if (!w) {
			for (j = 0; j < p->nwrites && p->writes[j] != res; j++)
				;
			if (j < p->nwrites)
				continue;	/* declared as written */
		}
		op.dst = (int)res;
		op.dst_bo = r->g->res[res].bo;
		op.flags = w ? 0 : VMGPU_USE_READ;
		ret = put(r, &op, pass);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Add the dispatches completing pass @w to pass @x's list. */
static int inherit_done(struct recorder *r, uint32_t x, uint32_t w)
{
	uint32_t i, *p;

	for (i = 0; i < r->ndone[w]; i++) {
		if (r->done[w][i] < r->mark)
			continue;
		p = realloc(r->done[x], (r->ndone[x] + 1) * sizeof(*p));
		if (!p)
			return tg_error(r->g, -ENOMEM, "out of memory");
		r->done[x] = p;
		p[r->ndone[x]++] = r->done[w][i];
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* SYNCs of pass @x's first dispatch: one per producer, in order. */
static int sync_waits(struct recorder *r, uint32_t x, uint32_t first_w,
		      uint32_t nw)
{
	uint32_t *prod = NULL, n = 0, cap = 0, j, k;
	int ret = 0;

	for (j = 0; j < nw; j++) {
		uint32_t w = r->s->waits[first_w + j].pass;

		for (k = 0; k < r->ndone[w]; k++) {
			if (vmgpu_grow((void **)&prod, &cap, n + 1,
				    sizeof(*prod))) {
				free(prod);
				return tg_error(r->g, -ENOMEM, "out of memory");
			}
			prod[n++] = r->done[w][k];
		}
	}
	if (n)
		qsort(prod, n, sizeof(*prod), cmp_u32);
	for (j = 0; j < n && !ret; j++)
		if (!j || prod[j] != prod[j - 1])
			ret = sync_on(r, x, prod[j]);
	free(prod);
	return ret;
}

static int emit_pass(struct recorder *r, uint32_t x)
{
	const struct tg_pass *p = &r->g->passes[x];
	const struct vmgpu_schedule *s = r->s;
	uint32_t i, j, first_w = s->wait_first[x], nw;
	int64_t prev = -1;		/* this pass's previous dispatch */
	int ret;

	nw = s->wait_first[x + 1] - first_w;
	ret = emit_state(r, x);
	if (!ret)
		ret = emit_uses(r, x);
	if (ret)
		return ret;
	if (!p->ncmds) {
		/* Nothing runs: the pass is done when its waits are. */
		for (i = 0; i < nw && !ret; i++)
			ret = inherit_done(r, x, s->waits[first_w + i].pass);
		return ret;
	}
	for (i = 0; i < p->ncmds; i++) {
		const struct tg_cmd *c = &p->cmds[i];

		if (c->type == TG_CMD_DISPATCH) {
			struct vmgpu_graph_op op = {
				.type = VMGPU_GRAPH_OP_DISPATCH,
				.dispatch = &c->desc,
			};

			if (i == 0) {
				ret = sync_waits(r, x, first_w, nw);
			} else if (prev >= 0) {
				ret = sync_on(r, x, (uint32_t)prev);
			}
			if (ret)
				return ret;
			ret = put(r, &op, x);
			if (ret < 0)
				return ret;
			if ((uint32_t)ret != r->next)
				return tg_error(r->g, -EPROTO,
						"record: pass '%s': dispatch got index %d, expected %u",
						p->name, ret, r->next);
			prev = r->next++;
			continue;
		}
		/* A copy or clear runs when the command processor gets
		 * there: what it waits for must be complete by then. */
		if (i == 0) {
			bool pending = false;

			for (j = 0; j < nw; j++) {
				uint32_t w = s->waits[first_w + j].pass, k;

				for (k = 0; k < r->ndone[w]; k++)
					pending |= r->done[w][k] >= r->mark;
			}
			if (pending)
				ret = barrier(r, x);
		} else if (prev >= (int64_t)r->mark) {
			ret = barrier(r, x);
		}
		if (!ret)
			ret = c->type == TG_CMD_COPY ? emit_copy(r, x, c) :
						       emit_clear(r, x, c);
		if (ret)
			return ret;
	}
	if (prev >= (int64_t)r->mark) {
		r->done[x] = malloc(sizeof(*r->done[x]));
		if (!r->done[x])
			return tg_error(r->g, -ENOMEM, "out of memory");
		r->done[x][0] = (uint32_t)prev;
		r->ndone[x] = 1;
	}
	return 0;
}

static int timestamp(struct recorder *r, uint32_t pass, uint32_t slot)
{
	struct vmgpu_graph_op op = { .type = VMGPU_GRAPH_OP_TIMESTAMP };
	int ret;

	op.value = slot;
	ret = put(r, &op, pass);
	return ret < 0 ? ret : 0;
}

static int record_sched(struct vmgpu_graph *g, const struct vmgpu_schedule *s,
		  uint32_t first_dispatch, bool timed, vmgpu_graph_emit_fn emit,
		  void *opaque)
{
	struct recorder r = {
		.g = g, .s = s, .emit = emit, .opaque = opaque,
		.next = first_dispatch, .mark = 0,
	};
	uint32_t i;
	int ret = 0;

	if (!g)
		return -EINVAL;
	if (!s || !emit)
		return tg_error(g, -EINVAL, "record: no schedule or callback");
	if (!vmgpu_schedule_matches(s, g))
		return tg_error(g, -ESTALE,
				"record: the graph's shape is not the one the schedule was compiled for");
	r.done = calloc(g->npasses + 1, sizeof(*r.done));
	r.ndone = calloc(g->npasses + 1, sizeof(*r.ndone));
	if (!r.done || !r.ndone) {
		free(r.done);
		free(r.ndone);
		return tg_error(g, -ENOMEM, "out of memory");
	}
	tg_state_begin(&r.st, g);
	if (timed && g->npasses)
		ret = timestamp(&r, s->order[0], 0);
	for (i = 0; i < g->npasses && !ret; i++) {
		ret = emit_pass(&r, s->order[i]);
		if (!ret && timed)
			ret = barrier(&r, s->order[i]);
		if (!ret && timed)
			ret = timestamp(&r, s->order[i], i + 1);
	}
	for (i = 0; i < g->npasses; i++)
		free(r.done[i]);
	free(r.done);
	free(r.ndone);
	return ret;
}

int vmgpu_graph_record_ops(struct vmgpu_graph *g,
			   const struct vmgpu_schedule *s,
			   uint32_t first_dispatch, vmgpu_graph_emit_fn emit,
			   void *opaque)
{
	return record_sched(g, s, first_dispatch, false, emit, opaque);
}

int vmgpu_graph_record_timed_ops(struct vmgpu_graph *g,
				 const struct vmgpu_schedule *s,
				 uint32_t first_dispatch,
				 vmgpu_graph_emit_fn emit, void *opaque)
{
	return record_sched(g, s, first_dispatch, true, emit, opaque);
}

struct cmdbuf_sink {
	struct vmgpu_cmdbuf *cb;
	const struct vmgpu_bo *ts_bo;	/* timed: the timestamps' buffer */
	uint64_t ts_offset;
	bool failed;			/* the builder refused a command */
};

static int cmdbuf_emit(void *opaque, const struct vmgpu_graph_op *op)
{
	struct cmdbuf_sink *k = opaque;
	struct vmgpu_cmdbuf *cb = k->cb;
	int ret = -EINVAL;

	switch (op->type) {
	case VMGPU_GRAPH_OP_USE:
		ret = vmgpu_cmdbuf_use(cb, op->dst_bo, op->flags);
		break;
	case VMGPU_GRAPH_OP_STATE:
		ret = vmgpu_cmdbuf_set_state(cb, op->key, op->value);
		break;
	case VMGPU_GRAPH_OP_DISPATCH:
		ret = vmgpu_cmdbuf_dispatch(cb, op->dispatch);
		break;
	case VMGPU_GRAPH_OP_SYNC:
		ret = vmgpu_cmdbuf_sync(cb, op->consumer, op->producer);
		break;
	case VMGPU_GRAPH_OP_BARRIER:
		ret = vmgpu_cmdbuf_barrier(cb);
		break;
	case VMGPU_GRAPH_OP_COPY:
		ret = vmgpu_cmdbuf_copy(cb, op->src_bo, op->src_offset,
					op->dst_bo, op->dst_offset, op->bytes);
		break;
	case VMGPU_GRAPH_OP_WRITE_VALUE:
		ret = vmgpu_cmdbuf_write_value(cb, op->dst_bo, op->dst_offset,
					       op->value);
		break;
	case VMGPU_GRAPH_OP_TIMESTAMP:
		ret = vmgpu_cmdbuf_timestamp(cb, k->ts_bo,
					     k->ts_offset + 8ull * op->value);
		break;
	}
	k->failed = ret < 0;
	return ret;
}

static int record_cb(struct vmgpu_graph *g, const struct vmgpu_schedule *s,
		     struct vmgpu_cmdbuf *cb, bool timed,
		     const struct vmgpu_bo *bo, uint64_t offset)
{
	struct cmdbuf_sink k = { .cb = cb, .ts_bo = bo, .ts_offset = offset };
	char msg[200];
	size_t n;
	int ret;

	if (!g)
		return -EINVAL;
	if (!cb)
		return tg_error(g, -EINVAL, "record: no command buffer");
	if (timed && (!bo || offset % 8))
		return tg_error(g, -EINVAL,
				"record: no timestamp buffer, or offset not 8-aligned");
	ret = record_sched(g, s, vmgpu_cmdbuf_dispatch_count(cb), timed,
		     cmdbuf_emit, &k);
	if (ret && k.failed) {
		/* The builder's reason is on the device handle. */
		vmgpu_error_message(cb->dev, msg, sizeof(msg));
		pthread_mutex_lock(&g->err_lock);
		n = strlen(g->err_msg);
		snprintf(g->err_msg + n, sizeof(g->err_msg) - n, ": %s", msg);
		pthread_mutex_unlock(&g->err_lock);
	}
	return ret;
}

int vmgpu_graph_record(struct vmgpu_graph *g, const struct vmgpu_schedule *s,
		       struct vmgpu_cmdbuf *cb)
{
	return record_cb(g, s, cb, false, NULL, 0);
}

int vmgpu_graph_record_timed(struct vmgpu_graph *g,
			     const struct vmgpu_schedule *s,
			     struct vmgpu_cmdbuf *cb, const struct vmgpu_bo *bo,
			     uint64_t offset)
{
	return record_cb(g, s, cb, true, bo, offset);
}
