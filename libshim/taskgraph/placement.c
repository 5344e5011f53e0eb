// SPDX-License-Identifier: MIT
/*
 * libvmgpu task graphs: placements (b) and (c) of SPEC T8
 * (Documentation/taskgraph.rst, "Placements").
 *
 * (b) The host builds the graph; the device's command processor
 * schedules it. Every dispatch becomes a task descriptor in GPU memory
 * (LAUNCH_TMD), the passes go out in program order, and each pass's
 * first dispatch SYNCs on the passes it depends on by data alone (no
 * stages, no capacity rule): the command processor issues a pass when
 * its producers finish, and the work distributor overlaps whatever is
 * issued.
 *
 * (c) The device builds and schedules it: a format B program whose
 * conditions and loop counts may be words the GPU wrote. Each pass block
 * under such a condition is recorded inside a SKIP_IF region that the
 * command processor skips when the condition fails, read after the
 * passes before it that write the word. A skipped pass's dispatches
 * count as finished, so a pass cannot rely on a skippable pass for
 * ordering: it SYNCs on every earlier conflicting pass back to the last
 * one that surely ran (its region encloses the consumer's).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tg_internal.h"
#include "vmgpu/graph.h"

struct prec {
	struct vmgpu_graph *g;
	const struct tg_dprog *dp;	/* NULL: no conditions */
	uint32_t first;			/* first pass recorded */
	uint32_t next;			/* index the next dispatch gets */
	struct vmgpu_graph_op *ops;	/* buffered: SKIP_IF counts */
	uint32_t nops, cap_ops;
	int64_t *last;			/* per pass: last dispatch, -1 */
	uint32_t open[TG_MAX_REGIONS];	/* open regions: nodes */
	uint32_t open_op[TG_MAX_REGIONS];	/* and their SKIP_IF ops */
	uint32_t depth;
	struct tg_state_track st;
	uint32_t *prod;			/* scratch: producers */
	uint32_t nprod, cap_prod;
};

static uint32_t node_of(const struct prec *r, uint32_t pass)
{
	return r->dp ? r->dp->pass_node[pass] : 0;
}

/* Whether node @a is node @b or encloses it. */
static bool encloses(const struct prec *r, uint32_t a, uint32_t b)
{
	while (b != a && b != 0)
		b = r->dp->nodes[b].parent;
	return a == b;
}

static int put(struct prec *r, const struct vmgpu_graph_op *op)
{
	if (vmgpu_grow((void **)&r->ops, &r->cap_ops, r->nops + 1,
		    sizeof(*r->ops)))
		return tg_error(r->g, -ENOMEM, "out of memory");
	r->ops[r->nops++] = *op;
	return 0;
}

static bool touches(const struct tg_pass *p, uint32_t res, bool *writes)
{
	uint32_t j;

	*writes = false;
	for (j = 0; j < p->nwrites; j++)
		if (p->writes[j] == res)
			*writes = true;
	if (*writes)
		return true;
	for (j = 0; j < p->nreads; j++)
		if (p->reads[j] == res)
			return true;
	return false;
}

/*
 * The last dispatches of the passes before @x (from @before down) that
 * conflict with an access to @res (a write when @write), into r->prod,
 * back to a pass that writes @res and surely ran when node @ctx runs.
 */
static int producers(struct prec *r, uint32_t before, uint32_t res,
		     bool write, uint32_t ctx)
{
	uint32_t y;
	bool w;

	for (y = before; y-- > r->first;) {
		const struct tg_pass *p = &r->g->passes[y];

		if (!p->ncmds || !touches(p, res, &w))
			continue;
		if ((w || write) && r->last[y] >= 0) {
			if (vmgpu_grow((void **)&r->prod, &r->cap_prod,
				    r->nprod + 1, sizeof(*r->prod)))
				return tg_error(r->g, -ENOMEM, "out of memory");
			r->prod[r->nprod++] = (uint32_t)r->last[y];
		}
		if (w && encloses(r, node_of(r, y), ctx))
			break;
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort and deduplicate r->prod. */
static void prod_unique(struct prec *r)
{
	uint32_t i, n = 0;

	if (r->nprod)
		qsort(r->prod, r->nprod, sizeof(*r->prod), cmp_u32);
	for (i = 0; i < r->nprod; i++)
		if (!n || r->prod[n - 1] != r->prod[i])
			r->prod[n++] = r->prod[i];
	r->nprod = n;
}

/* Open the region of node @n (its parent's is open) before pass @x. */
static int open_region(struct prec *r, uint32_t x, uint32_t n)
{
	const struct tg_dcond *c = &r->dp->nodes[n];
	struct vmgpu_graph_op op = { .type = VMGPU_GRAPH_OP_SKIP_IF };
	uint32_t i;
	int ret;

	if (r->depth == TG_MAX_REGIONS)
		return tg_error(r->g, -E2BIG,
				"record: more than %u nested conditions",
				TG_MAX_REGIONS);
	/* The word is read after the passes before that write it. */
	r->nprod = 0;
	ret = producers(r, x, (uint32_t)c->resource, false, c->parent);
	if (ret)
		return ret;
	prod_unique(r);
	op.pass = x;
	op.dst = c->resource;
	op.dst_bo = r->g->res[c->resource].bo;
	op.dst_offset = c->offset;
	op.cond_op = c->op;
	op.value = c->value;
	op.mask = ~0u;
	op.after = VMGPU_SKIP_IF_NOW;
	/* One SKIP_IF waits for one dispatch: empty ones for the others. */
	for (i = 0; i + 1 < r->nprod; i++) {
		op.after = r->prod[i];
		ret = put(r, &op);
		if (ret)
			return ret;
	}
	if (r->nprod)
		op.after = r->prod[r->nprod - 1];
	r->open[r->depth] = n;
	r->open_op[r->depth++] = r->nops;
	return put(r, &op);
}

/* Close the innermost region: its SKIP_IF skips the commands since. */
static void close_region(struct prec *r)
{
	uint32_t at = r->open_op[--r->depth], i, n = 0;

	for (i = at + 1; i < r->nops; i++)
		n += r->ops[i].type != VMGPU_GRAPH_OP_USE;
	r->ops[at].skip = n;
	/* State set inside may or may not have been run. */
	r->st.known = 0;
}

/* Make the open regions those of node @n and its ancestors. */
static int enter_node(struct prec *r, uint32_t x, uint32_t n)
{
	uint32_t chain[TG_MAX_REGIONS], len = 0, m;
	int ret;

	while (r->depth && !encloses(r, r->open[r->depth - 1], n))
		close_region(r);
	for (m = n; m && (!r->depth || m != r->open[r->depth - 1]);
	     m = r->dp->nodes[m].parent) {
		if (len == TG_MAX_REGIONS)
			return tg_error(r->g, -E2BIG,
					"record: more than %u nested conditions",
					TG_MAX_REGIONS);
		chain[len++] = m;
	}
	while (len) {
		ret = open_region(r, x, chain[--len]);
		if (ret)
			return ret;
	}
	return 0;
}

static int emit_state(struct prec *r, uint32_t x)
{
	struct vmgpu_graph_op ops[TG_STATE_KEYS];
	uint32_t i, n = tg_state_changes(&r->st, r->g, x, ops);
	int ret = 0;

	for (i = 0; i < n && !ret; i++)
		ret = put(r, &ops[i]);
	return ret;
}

static int emit_uses(struct prec *r, uint32_t x)
{
	const struct tg_pass *p = &r->g->passes[x];
	struct vmgpu_graph_op op = { .type = VMGPU_GRAPH_OP_USE, .pass = x };
	uint32_t j;
	bool w;
	int ret;

	for (j = 0; j < tg_pass_nres(p); j++) {
		uint32_t res = tg_pass_res(p, j);

		if (!r->g->res[res].bo || (j < p->nreads &&
					   touches(p, res, &w) && w))
			continue;	/* transient, or declared as written */
		op.dst = (int)res;
		op.dst_bo = r->g->res[res].bo;
		op.flags = j < p->nreads ? VMGPU_USE_READ : 0;
		ret = put(r, &op);
		if (ret)
			return ret;
	}
	return 0;
}

static int emit_clear(struct prec *r, uint32_t x, const struct tg_cmd *c)
{
	struct vmgpu_graph_op op = { .type = VMGPU_GRAPH_OP_WRITE_VALUE };
	uint64_t done = 4, n;
	int ret;

	op.pass = x;
	op.dst = c->dst;
	op.dst_bo = r->g->res[c->dst].bo;
	op.dst_offset = c->dst_offset;
	op.value = c->value;
	ret = put(r, &op);
	while (!ret && done < c->bytes) {
		n = c->bytes - done < done ? c->bytes - done : done;
		memset(&op, 0, sizeof(op));
		op.type = VMGPU_GRAPH_OP_COPY;
		op.pass = x;
		op.src = op.dst = c->dst;
		op.src_bo = op.dst_bo = r->g->res[c->dst].bo;
		op.src_offset = c->dst_offset;
		op.dst_offset = c->dst_offset + done;
		op.bytes = n;
		ret = put(r, &op);
		done += n;
	}
	return ret;
}

static int emit_pass(struct prec *r, uint32_t x)
{
	const struct tg_pass *p = &r->g->passes[x];
	struct vmgpu_graph_op op;
	int64_t prev = -1;
	uint32_t i, j;
	bool w;
	int ret;

	ret = r->dp ? enter_node(r, x, node_of(r, x)) : 0;
	if (!ret)
		ret = emit_state(r, x);
	if (!ret)
		ret = emit_uses(r, x);
	if (ret || !p->ncmds)
		return ret;	/* nothing runs: nothing to wait for */
	r->nprod = 0;
	for (j = 0; j < tg_pass_nres(p) && !ret; j++) {
		uint32_t res = tg_pass_res(p, j);

		if (!tg_pass_dup(p, j))
			ret = producers(r, x, res, touches(p, res, &w) && w,
					node_of(r, x));
	}
	if (ret)
		return ret;
	prod_unique(r);
	for (i = 0; i < p->ncmds && !ret; i++) {
		const struct tg_cmd *c = &p->cmds[i];

		memset(&op, 0, sizeof(op));
		op.pass = x;
		if (c->type == TG_CMD_DISPATCH) {
			for (j = 0; i == 0 && j < r->nprod && !ret; j++) {
				op.type = VMGPU_GRAPH_OP_SYNC;
				op.consumer = r->next;
				op.producer = r->prod[j];
				ret = put(r, &op);
			}
			if (prev >= 0 && !ret) {
				op.type = VMGPU_GRAPH_OP_SYNC;
				op.consumer = r->next;
				op.producer = (uint32_t)prev;
				ret = put(r, &op);
			}
			memset(&op, 0, sizeof(op));
			op.pass = x;
			op.type = VMGPU_GRAPH_OP_DISPATCH;
			op.dispatch = &c->desc;
			op.tmd = 1;
			op.quota = p->state_set & (1u << 2) ? p->state[2] : 0;
			op.sm_mask = (p->state_set & (1u << 3) ? p->state[3] :
								  0) |
				     (uint64_t)(p->state_set & (1u << 4) ?
							p->state[4] : 0)
					     << 32;
			if (!ret)
				ret = put(r, &op);
			prev = r->next++;
			continue;
		}
		/* A copy or clear runs when the CP gets there. */
		if ((i == 0 && r->nprod) || (i > 0 && prev >= 0)) {
			op.type = VMGPU_GRAPH_OP_BARRIER;
			ret = put(r, &op);
			if (ret)
				return ret;
		}
		if (c->type == TG_CMD_CLEAR) {
			ret = emit_clear(r, x, c);
			continue;
		}
		memset(&op, 0, sizeof(op));
		op.pass = x;
		op.type = VMGPU_GRAPH_OP_COPY;
		op.src = c->src;
		op.dst = c->dst;
		op.src_bo = r->g->res[c->src].bo;
		op.dst_bo = r->g->res[c->dst].bo;
		op.src_offset = c->src_offset;
		op.dst_offset = c->dst_offset;
		op.bytes = c->bytes;
		ret = put(r, &op);
	}
	r->last[x] = prev;
	return ret;
}

/* Record passes @first.. of @g, under @dp's conditions (NULL: none). */
static int record_program(struct vmgpu_graph *g, const struct tg_dprog *dp,
			  uint32_t first, uint32_t first_dispatch,
			  vmgpu_graph_emit_fn emit, void *opaque)
{
	struct prec r = {
		.g = g, .dp = dp, .first = first, .next = first_dispatch,
	};
	uint32_t i, index = first_dispatch;
	int ret = 0;

	if (!emit)
		return tg_error(g, -EINVAL, "record: no callback");
	if (g->open)
		return tg_error(g, -EINVAL, "record: pass '%s' not ended",
				g->passes[g->npasses - 1].name);
	r.last = malloc((g->npasses + 1) * sizeof(*r.last));
	if (!r.last)
		return tg_error(g, -ENOMEM, "out of memory");
	for (i = 0; i < g->npasses; i++)
		r.last[i] = -1;
	tg_state_begin(&r.st, g);
	for (i = first; i < g->npasses && !ret; i++)
		ret = emit_pass(&r, i);
	while (!ret && r.depth)
		close_region(&r);
	for (i = 0; i < r.nops && !ret; i++) {
		ret = emit(opaque, &r.ops[i]);
		if (ret < 0)
			ret = tg_error(g, ret,
				       "record: pass %u '%s': command %u failed (%d)",
				       r.ops[i].pass,
				       g->passes[r.ops[i].pass].name,
				       r.ops[i].type, ret);
		else if (r.ops[i].type == VMGPU_GRAPH_OP_DISPATCH &&
			 (uint32_t)ret != index++)
			ret = tg_error(g, -EPROTO,
				       "record: dispatch got index %d, expected %u",
				       ret, index - 1);
		else
			ret = 0;
	}
	free(r.ops);
	free(r.last);
	free(r.prod);
	return ret;
}

int vmgpu_graph_record_cp_ops(struct vmgpu_graph *g, uint32_t first_dispatch,
			      vmgpu_graph_emit_fn emit, void *opaque)
{
	if (!g)
		return -EINVAL;
	return record_program(g, NULL, 0, first_dispatch, emit, opaque);
}

int vmgpu_graph_record_stream_ops(struct vmgpu_graph *g, const uint32_t *words,
				  size_t count,
				  const struct vmgpu_graph_bindings *b,
				  uint32_t first_dispatch,
				  vmgpu_graph_emit_fn emit, void *opaque)
{
	struct tg_dprog dp = { 0 };
	int ret;

	if (!g)
		return -EINVAL;
	if (g->npasses)
		return tg_error(g, -EINVAL,
				"record_stream: the graph has passes (vmgpu_graph_reset() first)");
	ret = tg_run_stream_device(g, words, count, b, &dp);
	if (!ret && g->npasses &&
	    vmgpu_grow((void **)&dp.pass_node, &dp.cap_pass_node, g->npasses,
		    sizeof(uint32_t)))
		ret = tg_error(g, -ENOMEM, "out of memory");
	if (!ret)
		ret = record_program(g, &dp, 0, first_dispatch, emit, opaque);
	free(dp.nodes);
	free(dp.pass_node);
	return ret;
}

struct sink {
	struct vmgpu_cmdbuf *cb;
	bool failed;			/* the builder refused a command */
};

static int builder_emit(struct vmgpu_cmdbuf *cb,
			const struct vmgpu_graph_op *op)
{
	switch (op->type) {
	case VMGPU_GRAPH_OP_DISPATCH:
		if (op->tmd)
			return vmgpu_cmdbuf_dispatch_tmd(cb, op->dispatch,
							 op->quota,
							 op->sm_mask);
		return vmgpu_cmdbuf_dispatch(cb, op->dispatch);
	case VMGPU_GRAPH_OP_SKIP_IF:
		return vmgpu_cmdbuf_skip_if(cb, op->dst_bo, op->dst_offset,
					    op->cond_op, op->value, op->mask,
					    op->after, op->skip);
	case VMGPU_GRAPH_OP_USE:
		return vmgpu_cmdbuf_use(cb, op->dst_bo, op->flags);
	case VMGPU_GRAPH_OP_STATE:
		return vmgpu_cmdbuf_set_state(cb, op->key, op->value);
	case VMGPU_GRAPH_OP_SYNC:
		return vmgpu_cmdbuf_sync(cb, op->consumer, op->producer);
	case VMGPU_GRAPH_OP_BARRIER:
		return vmgpu_cmdbuf_barrier(cb);
	case VMGPU_GRAPH_OP_COPY:
		return vmgpu_cmdbuf_copy(cb, op->src_bo, op->src_offset,
					 op->dst_bo, op->dst_offset,
					 op->bytes);
	case VMGPU_GRAPH_OP_WRITE_VALUE:
		return vmgpu_cmdbuf_write_value(cb, op->dst_bo, op->dst_offset,
						op->value);
	default:
		return -EINVAL;
	}
}

static int sink_emit(void *opaque, const struct vmgpu_graph_op *op)
{
	struct sink *k = opaque;
	int ret = builder_emit(k->cb, op);

	k->failed = ret < 0;
	return ret;
}

/* Add the builder's reason (on the device handle) to the graph's. */
static int with_reason(struct vmgpu_graph *g, const struct sink *k, int ret)
{
	char msg[200];
	size_t n;

	if (ret >= 0 || !k->failed)
		return ret;
	vmgpu_error_message(k->cb->dev, msg, sizeof(msg));
	pthread_mutex_lock(&g->err_lock);
	n = strlen(g->err_msg);
	snprintf(g->err_msg + n, sizeof(g->err_msg) - n, ": %s", msg);
	pthread_mutex_unlock(&g->err_lock);
	return ret;
}

int vmgpu_graph_record_cp(struct vmgpu_graph *g, struct vmgpu_cmdbuf *cb)
{
	struct sink k = { .cb = cb };

	if (!g)
		return -EINVAL;
	if (!cb)
		return tg_error(g, -EINVAL, "record: no command buffer");
	return with_reason(g, &k,
			   vmgpu_graph_record_cp_ops(g,
						     vmgpu_cmdbuf_dispatch_count(cb),
						     sink_emit, &k));
}

int vmgpu_graph_record_stream(struct vmgpu_graph *g, const uint32_t *words,
			      size_t count,
			      const struct vmgpu_graph_bindings *b,
			      struct vmgpu_cmdbuf *cb)
{
	struct sink k = { .cb = cb };

	if (!g)
		return -EINVAL;
	if (!cb)
		return tg_error(g, -EINVAL, "record: no command buffer");
	return with_reason(g, &k,
			   vmgpu_graph_record_stream_ops(g, words, count, b,
							 vmgpu_cmdbuf_dispatch_count(cb),
							 sink_emit, &k));
}
