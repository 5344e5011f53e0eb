// SPDX-License-Identifier: MIT
/*
 * libvmgpu task graphs: format B (SPEC T2), one flat stream of control
 * flow (LOOP, IF/ELSE, END), set-resource (READ, WRITE, DROP), set-state
 * (STATE, NEEDS, NAME) and pass commands (DISPATCH, COPY, CLEAR). Running
 * it on the host evaluates the control flow and cuts the stream into
 * pass blocks: each pass command outside PASS ... END_PASS is a block of
 * its own, a PASS ... END_PASS group is one block; a block takes the
 * resources and state in effect (at its pass command, or at END_PASS),
 * which carry forward from block to block. The blocks become the graph's
 * passes through the same steps as format A.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tg_internal.h"
#include "stream.h"
#include "vmgpu/graph.h"

static const struct {
	uint32_t len;
	const char *text;
} tgb_ops[256] = {
#define TGB_X_INFO(name, code, len, text) [code] = { len, text },
	TGB_TABLE(TGB_X_INFO)
#undef TGB_X_INFO
};

uint32_t tgb_word(const uint32_t *words, uint32_t at)
{
	return vmgpu_le32_to_host(words[at]);
}

uint64_t tgb_word64(const uint32_t *words, uint32_t at)
{
	return tgb_word(words, at) | (uint64_t)tgb_word(words, at + 1) << 32;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int tgb_decode(const uint32_t *words, size_t count, struct tgb_cmd **cmds,
	       uint32_t *ncmds, char *err, size_t errlen)
{
	uint32_t stack[TGB_MAX_DEPTH], depth = 0, n = 0, cap = 0, at, hdr;
	struct tgb_cmd *c = NULL;
	bool in_pass = false;

	if (!words && count)
		return fail(err, errlen, "no words");
	if (count > UINT32_MAX)
		return fail(err, errlen, "stream too long");
	if (count < 2 || tgb_word(words, 0) != TGB_MAGIC)
		return fail(err, errlen, "word 0: not a task-graph stream (magic %#x)",
			    count ? tgb_word(words, 0) : 0);
	if (tgb_word(words, 1) != TGB_VERSION)
		return fail(err, errlen, "word 1: version %u, this library reads %u",
			    tgb_word(words, 1), TGB_VERSION);
	for (at = 2; at < count; at += TGB_LEN(hdr)) {
		uint32_t op, len, want, top;

		hdr = tgb_word(words, at);
		op = TGB_OP(hdr);
		len = TGB_LEN(hdr);
		want = tgb_ops[op].len;
		if (!tgb_ops[op].text || (hdr & 0xff00))
			goto bad_free;
		if (op == TGB_NAME) {
			const char *s;

			if (len < 2 || len > 1 + (TGB_MAX_NAME + 4) / 4 ||
			    len > count - at)
				goto bad_len;
			s = (const char *)(words + at + 1);
			if (!memchr(s, 0, 4 * (len - 1)) ||
			    strlen(s) / 4 + 2 != len) {
				free(c);
				return fail(err, errlen,
					    "word %u: name not NUL-terminated in its shortest padding",
					    at);
			}
		} else if (len != want || len > count - at) {
			goto bad_len;
		}
		if (vmgpu_grow((void **)&c, &cap, n + 1, sizeof(*c))) {
			free(c);
			return -ENOMEM;
		}
		c[n] = (struct tgb_cmd){ .at = at, .op = op, .len = len,
					 .match = n };
		top = depth ? c[stack[depth - 1]].op : 0;
		switch (op) {
		case TGB_LOOP:
		case TGB_IF:
		case TGB_PASS:
			if (op == TGB_PASS && in_pass) {
				free(c);
				return fail(err, errlen,
					    "word %u: pass inside a pass", at);
			}
			if (op == TGB_LOOP &&
			    tgb_word(words, at + 1) > TGB_COUNT_PARAM)
				goto bad_operand;
			if (op == TGB_IF && tgb_word(words, at + 2) >= TGB_NCMP)
				goto bad_operand;
			if (depth == TGB_MAX_DEPTH) {
				free(c);
				return fail(err, errlen,
					    "word %u: nested deeper than %u", at,
					    TGB_MAX_DEPTH);
			}
			if (op == TGB_PASS)
				in_pass = true;
			stack[depth++] = n;
			break;
		case TGB_ELSE:
			if (top != TGB_IF) {
				free(c);
				return fail(err, errlen,
					    "word %u: else without if", at);
			}
			c[stack[depth - 1]].match = n;
			stack[depth - 1] = n;
			break;
		case TGB_END:
		case TGB_END_PASS:
			if ((op == TGB_END && top != TGB_LOOP && top != TGB_IF &&
			     top != TGB_ELSE) ||
			    (op == TGB_END_PASS && top != TGB_PASS)) {
				free(c);
				return fail(err, errlen,
					    "word %u: %s without its opening command",
					    at, tgb_ops[op].text);
			}
			if (op == TGB_END_PASS)
				in_pass = false;
			c[stack[--depth]].match = n;
			break;
		}
		n++;
		continue;
bad_operand:
		free(c);
		return fail(err, errlen, "word %u: %s: bad operand", at,
			    tgb_ops[op].text);
	}
	if (depth) {
		uint32_t open = c[stack[depth - 1]].at;

		free(c);
		return fail(err, errlen, "word %u: not closed at the end", open);
	}
	*cmds = c;
	*ncmds = n;
	return 0;
bad_free:
	free(c);
	return fail(err, errlen, "word %u: unknown command %#x", at, hdr);
bad_len:
	free(c);
	return fail(err, errlen, "word %u: %s with %u words", at,
		    tgb_ops[TGB_OP(hdr)].text, TGB_LEN(hdr));
}

/* ---- Running a stream on the host ---- */

/* Commands run at most (loops multiply them). */
#define TGB_MAX_STEPS		(1u << 24)

struct runner {
	struct vmgpu_graph *g;
	const uint32_t *w;
	const struct tgb_cmd *cmds;
	const struct vmgpu_graph_bindings *b;
	uint64_t steps;
	/* Carried forward. */
	uint32_t *reads, nreads, *writes, nwrites;	/* stream indexes */
	uint32_t state_set, state[TG_STATE_KEYS];
	bool needs_given;
	struct vmgpu_graph_needs needs;
	char name[TGB_MAX_NAME + 1];	/* for the next block */
	bool in_pass;
	/* T8 (c): the device conditions, and the one blocks are under. */
	struct tg_dprog *dp;
	uint32_t cur;
};

static int set_put(uint32_t **set, uint32_t *n, uint32_t v)
{
	uint32_t i, *p;

	for (i = 0; i < *n; i++)
		if ((*set)[i] == v)
			return 0;
	p = realloc(*set, (*n + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	p[(*n)++] = v;
	*set = p;
	return 0;
}

static void set_del(uint32_t *set, uint32_t *n, uint32_t v)
{
	uint32_t i;

	for (i = 0; i < *n; i++) {
		if (set[i] == v) {
			set[i] = set[--*n];
			return;
		}
	}
}

static int map_res(struct runner *r, const struct tgb_cmd *c, uint32_t idx,
		   int *out)
{
	uint32_t n = r->b && r->b->resources ? r->b->num_resources :
					       r->g->nres;

	if (idx >= n)
		return tg_error(r->g, -EINVAL,
				"stream word %u: resource %u, %u bound", c->at,
				idx, n);
	*out = r->b && r->b->resources ? r->b->resources[idx] : (int)idx;
	return 0;
}

static int block_begin(struct runner *r)
{
	int ret = vmgpu_graph_pass_begin(r->g, r->name);

	r->name[0] = 0;
	return ret < 0 ? ret : 0;
}

static int block_end(struct runner *r, const struct tgb_cmd *c)
{
	uint32_t i;
	int ret = 0, res;

	for (i = 0; i < r->nreads && !ret; i++) {
		ret = map_res(r, c, r->reads[i], &res);
		if (!ret)
			ret = vmgpu_graph_pass_read(r->g, res);
	}
	for (i = 0; i < r->nwrites && !ret; i++) {
		ret = map_res(r, c, r->writes[i], &res);
		if (!ret)
			ret = vmgpu_graph_pass_write(r->g, res);
	}
	for (i = 0; i < TG_STATE_KEYS && !ret; i++)
		if (r->state_set & (1u << i))
			ret = vmgpu_graph_pass_state(r->g, i + 1, r->state[i]);
	if (!ret && r->needs_given)
		ret = vmgpu_graph_pass_needs(r->g, &r->needs);
	if (!ret)
		ret = vmgpu_graph_pass_end(r->g);
	if (!ret && r->dp) {
		if (vmgpu_grow((void **)&r->dp->pass_node, &r->dp->cap_pass_node,
			    r->g->npasses, sizeof(uint32_t)))
			return -ENOMEM;
		r->dp->pass_node[r->g->npasses - 1] = r->cur;
	}
	return ret;
}

static int pass_cmd(struct runner *r, const struct tgb_cmd *c)
{
	const uint32_t *w = r->w + c->at;
	uint32_t d;
	int ret = 0, a, b;

	switch (c->op) {
	case TGB_DISPATCH:
		d = tgb_word(w, 1);
		if (!r->b || d >= r->b->num_dispatches || !r->b->dispatches)
			return tg_error(r->g, -EINVAL,
					"stream word %u: dispatch %u, %u bound",
					c->at, d,
					r->b ? r->b->num_dispatches : 0);
		return vmgpu_graph_pass_dispatch(r->g, &r->b->dispatches[d]);
	case TGB_COPY:
		ret = map_res(r, c, tgb_word(w, 1), &a);
		if (!ret)
			ret = map_res(r, c, tgb_word(w, 4), &b);
		if (ret)
			return ret;
		return vmgpu_graph_pass_copy(r->g, a, tgb_word64(w, 2), b,
					     tgb_word64(w, 5),
					     tgb_word64(w, 7));
	default: /* TGB_CLEAR */
		ret = map_res(r, c, tgb_word(w, 1), &a);
		if (ret)
			return ret;
		return vmgpu_graph_pass_clear(r->g, a, tgb_word64(w, 2),
					      tgb_word64(w, 4), tgb_word(w, 6));
	}
}

static int param(struct runner *r, const struct tgb_cmd *c, uint32_t i,
		 int64_t *v)
{
	if (!r->b || !r->b->params || i >= r->b->num_params)
		return tg_error(r->g, -EINVAL,
				"stream word %u: parameter $%u, %u given", c->at,
				i, r->b && r->b->params ? r->b->num_params : 0);
	*v = r->b->params[i];
	return 0;
}

static bool compare(int64_t a, uint32_t op, int64_t b)
{
	switch (op) {
	case TGB_EQ:
		return a == b;
	case TGB_NE:
		return a != b;
	case TGB_LT:
		return a < b;
	case TGB_LE:
		return a <= b;
	case TGB_GT:
		return a > b;
	default:
		return a >= b;
	}
}

static int run(struct runner *r, uint32_t from, uint32_t to);

/* The GPU value parameter $@p stands for, or NULL (a host value). */
static const struct vmgpu_graph_gpu_value *gpu_value(struct runner *r,
							 uint32_t p)
{
	if (!r->b || !r->b->gpu_values || p >= r->b->num_params ||
	    r->b->gpu_values[p].resource < 0)
		return NULL;
	return &r->b->gpu_values[p];
}

/* The bindings carried forward, to tell if a device branch changed them. */
struct carried {
	uint32_t *reads, nreads, *writes, nwrites;
	uint32_t state_set, state[TG_STATE_KEYS];
	bool needs_given;
	struct vmgpu_graph_needs needs;
	char name[TGB_MAX_NAME + 1];
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* *@out = a sorted copy of @set, NULL when empty. */
static int set_sorted(const uint32_t *set, uint32_t n, uint32_t **out)
{
	*out = NULL;
	if (!n)
		return 0;
	*out = malloc(n * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, set, n * sizeof(**out));
	qsort(*out, n, sizeof(**out), cmp_u32);
	return 0;
}

static int carried_get(const struct runner *r, struct carried *c)
{
	memset(c, 0, sizeof(*c));
	c->nreads = r->nreads;
	c->nwrites = r->nwrites;
	c->state_set = r->state_set;
	memcpy(c->state, r->state, sizeof(c->state));
	c->needs_given = r->needs_given;
	c->needs = r->needs;
	memcpy(c->name, r->name, sizeof(c->name));
	if (set_sorted(r->reads, r->nreads, &c->reads) ||
	    set_sorted(r->writes, r->nwrites, &c->writes))
		return -ENOMEM;
	return 0;
}

static void carried_free(struct carried *c)
{
	free(c->reads);
	free(c->writes);
}

static bool carried_same(const struct carried *a, const struct carried *b)
{
	uint32_t k;

	if (a->nreads != b->nreads || a->nwrites != b->nwrites ||
	    a->state_set != b->state_set || a->needs_given != b->needs_given ||
	    strcmp(a->name, b->name) ||
	    (a->nreads &&
	     memcmp(a->reads, b->reads, a->nreads * sizeof(uint32_t))) ||
	    (a->nwrites &&
	     memcmp(a->writes, b->writes, a->nwrites * sizeof(uint32_t))))
		return false;
	for (k = 0; k < TG_STATE_KEYS; k++)
		if ((a->state_set & (1u << k)) && a->state[k] != b->state[k])
			return false;
	return !a->needs_given ||
	       !memcmp(&a->needs, &b->needs, sizeof(a->needs));
}

/*
 * Run commands [@from, @to) under a new device condition: their blocks
 * are skipped on the device when (word of @v) @op @value holds. The
 * bindings must come out as they went in: which blocks follow cannot
 * depend on a value only the device knows.
 */
static int run_device(struct runner *r, const struct tgb_cmd *c,
		      const struct vmgpu_graph_gpu_value *v, uint32_t op,
		      uint32_t value, uint32_t from, uint32_t to)
{
	struct tg_dprog *dp = r->dp;
	struct carried before, after;
	uint32_t parent = r->cur;
	int ret;

	if (!dp)
		return tg_error(r->g, -EINVAL,
				"stream word %u: a value the GPU produces needs vmgpu_graph_record_stream()",
				c->at);
	if (r->in_pass)
		return tg_error(r->g, -EINVAL,
				"stream word %u: a condition on a GPU value inside a pass group",
				c->at);
	if (v->offset % 4 || v->resource >= (int)r->g->nres ||
	    !r->g->res[v->resource].bo ||
	    v->offset + 4 > r->g->res[v->resource].size)
		return tg_error(r->g, -EINVAL,
				"stream word %u: GPU value not a word of a buffer resource",
				c->at);
	if (vmgpu_grow((void **)&dp->nodes, &dp->cap_nodes, dp->nnodes + 1,
		    sizeof(*dp->nodes)))
		return -ENOMEM;
	dp->nodes[dp->nnodes].parent = parent;
	dp->nodes[dp->nnodes].resource = v->resource;
	dp->nodes[dp->nnodes].offset = v->offset;
	dp->nodes[dp->nnodes].op = op;
	dp->nodes[dp->nnodes].value = value;
	r->cur = dp->nnodes++;
	ret = carried_get(r, &before);
	if (!ret)
		ret = run(r, from, to);
	r->cur = parent;
	if (!ret) {
		ret = carried_get(r, &after);
		if (!ret && !carried_same(&before, &after))
			ret = tg_error(r->g, -EINVAL,
				       "stream word %u: bindings changed under a condition on a GPU value",
				       c->at);
		carried_free(&after);
	}
	carried_free(&before);
	return ret;
}

/*
 * "if $P OP V" on a GPU word w (unsigned 32-bit, so compared with V as
 * a signed 64-bit value like a host parameter): 1 or 0 when V decides
 * it alone, else -1 with the SKIP_IF condition that skips the branch
 * in *@skip_op, *@skip_value (@negate: the else branch).
 */
static int device_compare(uint32_t op, int64_t v, bool negate,
			  uint32_t *skip_op, uint32_t *skip_value)
{
	/* VMGPU_WAIT_* of TGB_EQ..TGB_GE, and of their negations. */
	static const uint32_t same[TGB_NCMP] = {
		VMGPU_WAIT_EQ, VMGPU_WAIT_NE, VMGPU_WAIT_LT,
		VMGPU_WAIT_LE, VMGPU_WAIT_GT, VMGPU_WAIT_GE,
	};
	static const uint32_t neg[TGB_NCMP] = {
		VMGPU_WAIT_NE, VMGPU_WAIT_EQ, VMGPU_WAIT_GE,
		VMGPU_WAIT_GT, VMGPU_WAIT_LE, VMGPU_WAIT_LT,
	};
	int known = -1;

	if (v < 0)		/* w > v */
		known = op == TGB_NE || op == TGB_GT || op == TGB_GE;
	else if (v > 0xffffffffll)	/* w < v */
		known = op == TGB_NE || op == TGB_LT || op == TGB_LE;
	if (known >= 0)
		return negate ? !known : known;
	/* Skip the then-branch when the condition fails, else when it holds. */
	*skip_op = negate ? same[op] : neg[op];
	*skip_value = (uint32_t)v;
	return -1;
}

/* An "if" on a GPU value. */
static int run_device_if(struct runner *r, uint32_t i,
			 const struct vmgpu_graph_gpu_value *gv)
{
	const struct tgb_cmd *c = &r->cmds[i], *e = &r->cmds[c->match];
	const uint32_t *w = r->w + c->at;
	uint32_t op = tgb_word(w, 2), sop = 0, sval = 0;
	int64_t v = (int64_t)tgb_word64(w, 3);
	int k, ret = 0;

	k = device_compare(op, v, false, &sop, &sval);
	if (k == 1)
		ret = run(r, i + 1, c->match);
	else if (k < 0)
		ret = run_device(r, c, gv, sop, sval, i + 1, c->match);
	if (ret || e->op != TGB_ELSE)
		return ret;
	k = device_compare(op, v, true, &sop, &sval);
	if (k == 1)
		return run(r, c->match + 1, e->match);
	if (k < 0)
		return run_device(r, e, gv, sop, sval, c->match + 1,
				  e->match);
	return 0;
}

/* Run commands [from, to). */
static int run(struct runner *r, uint32_t from, uint32_t to)
{
	const struct vmgpu_graph_gpu_value *gv;
	uint32_t i = from, k;
	int64_t v;
	int ret = 0;

	while (i < to && !ret) {
		const struct tgb_cmd *c = &r->cmds[i];
		const uint32_t *w = r->w + c->at;

		if (++r->steps > TGB_MAX_STEPS)
			return tg_error(r->g, -E2BIG,
					"stream: more than %u commands run",
					TGB_MAX_STEPS);
		switch (c->op) {
		case TGB_LOOP:
			v = tgb_word(w, 2);
			gv = tgb_word(w, 1) == TGB_COUNT_PARAM ?
				     gpu_value(r, tgb_word(w, 2)) : NULL;
			/* Unrolled: iteration k skipped if count <= k. */
			for (k = 0; gv && !ret && k < gv->max_count; k++)
				ret = run_device(r, c, gv, VMGPU_WAIT_LE, k,
						 i + 1, c->match);
			if (gv) {
				i = c->match + 1;
				continue;
			}
			if (tgb_word(w, 1) == TGB_COUNT_PARAM)
				ret = param(r, c, tgb_word(w, 2), &v);
			for (k = 0; !ret && (int64_t)k < v; k++)
				ret = run(r, i + 1, c->match);
			i = c->match + 1;
			continue;
		case TGB_IF: {
			const struct tgb_cmd *e = &r->cmds[c->match];

			gv = gpu_value(r, tgb_word(w, 1));
			if (gv) {
				ret = run_device_if(r, i, gv);
				i = e->op == TGB_ELSE ? e->match + 1 :
							c->match + 1;
				continue;
			}
			ret = param(r, c, tgb_word(w, 1), &v);
			if (ret)
				break;
			if (compare(v, tgb_word(w, 2),
				    (int64_t)tgb_word64(w, 3)))
				ret = run(r, i + 1, c->match);
			else if (e->op == TGB_ELSE)
				ret = run(r, c->match + 1, e->match);
			i = e->op == TGB_ELSE ? e->match + 1 : c->match + 1;
			continue;
		}
		case TGB_PASS:
			ret = block_begin(r);
			r->in_pass = !ret;
			break;
		case TGB_END_PASS:
			ret = block_end(r, c);
			r->in_pass = false;
			break;
		case TGB_NAME:
			snprintf(r->name, sizeof(r->name), "%s",
				 (const char *)(w + 1));
			break;
		case TGB_READ:
		case TGB_WRITE:
		case TGB_DROP:
			/* READ and WRITE add an edge, DROP removes both. */
			k = tgb_word(w, 1);
			if (c->op == TGB_DROP) {
				set_del(r->reads, &r->nreads, k);
				set_del(r->writes, &r->nwrites, k);
			} else if (set_put(c->op == TGB_READ ? &r->reads :
							       &r->writes,
					   c->op == TGB_READ ? &r->nreads :
							       &r->nwrites,
					   k)) {
				ret = -ENOMEM;
			}
			break;
		case TGB_STATE:
			k = tgb_word(w, 1);
			if (k < 1 || k > TG_STATE_KEYS) {
				ret = tg_error(r->g, -EINVAL,
					       "stream word %u: unknown state key %u",
					       c->at, k);
				break;
			}
			r->state_set |= 1u << (k - 1);
			r->state[k - 1] = tgb_word(w, 2);
			break;
		case TGB_NEEDS:
			r->needs.blocks = tgb_word64(w, 1);
			r->needs.threads = tgb_word64(w, 3);
			r->needs.regs = tgb_word64(w, 5);
			r->needs.shared_bytes = tgb_word64(w, 7);
			r->needs_given = r->needs.blocks || r->needs.threads ||
					 r->needs.regs ||
					 r->needs.shared_bytes;
			break;
		default: /* a pass command */
			if (r->in_pass) {
				ret = pass_cmd(r, c);
				break;
			}
			ret = block_begin(r);
			if (!ret)
				ret = pass_cmd(r, c);
			if (!ret)
				ret = block_end(r, c);
			break;
		}
		i++;
	}
	return ret == -ENOMEM ? tg_error(r->g, ret, "out of memory") : ret;
}

static int run_stream(struct vmgpu_graph *g, const uint32_t *words,
		      size_t count, const struct vmgpu_graph_bindings *b,
		      struct tg_dprog *dp)
{
	struct runner r = { .g = g, .w = words, .b = b, .dp = dp };
	struct tgb_cmd *cmds;
	uint32_t n;
	char err[160];
	int ret;

	if (!g)
		return -EINVAL;
	if (g->open)
		return tg_error(g, -EINVAL, "run_stream: pass '%s' not ended",
				g->passes[g->npasses - 1].name);
	ret = tgb_decode(words, count, &cmds, &n, err, sizeof(err));
	if (ret)
		return tg_error(g, ret, "stream: %s", err);
	r.cmds = cmds;
	ret = run(&r, 0, n);
	if (ret && g->open)
		tg_drop_open_pass(g);	/* the blocks before it stay */
	free(r.reads);
	free(r.writes);
	free(cmds);
	return ret;
}

int vmgpu_graph_run_stream(struct vmgpu_graph *g, const uint32_t *words,
			   size_t count, const struct vmgpu_graph_bindings *b)
{
	return run_stream(g, words, count, b, NULL);
}

int tg_run_stream_device(struct vmgpu_graph *g, const uint32_t *words,
			 size_t count, const struct vmgpu_graph_bindings *b,
			 struct tg_dprog *dp)
{
	/* Node 0: the root, no condition. */
	if (vmgpu_grow((void **)&dp->nodes, &dp->cap_nodes, 1,
		    sizeof(*dp->nodes)))
		return tg_error(g, -ENOMEM, "out of memory");
	memset(&dp->nodes[0], 0, sizeof(dp->nodes[0]));
	dp->nnodes = 1;
	return run_stream(g, words, count, b, dp);
}
