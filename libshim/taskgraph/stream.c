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
		if (tg_grow((void **)&c, &cap, n + 1, sizeof(*c))) {
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

/* Run commands [from, to). */
static int run(struct runner *r, uint32_t from, uint32_t to)
{
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
			if (tgb_word(w, 1) == TGB_COUNT_PARAM)
				ret = param(r, c, tgb_word(w, 2), &v);
			for (k = 0; !ret && (int64_t)k < v; k++)
				ret = run(r, i + 1, c->match);
			i = c->match + 1;
			continue;
		case TGB_IF: {
			const struct tgb_cmd *e = &r->cmds[c->match];

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

int vmgpu_graph_run_stream(struct vmgpu_graph *g, const uint32_t *words,
			   size_t count, const struct vmgpu_graph_bindings *b)
{
	struct runner r = { .g = g, .w = words, .b = b };
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
