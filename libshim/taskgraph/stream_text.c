// SPDX-License-Identifier: MIT
/*
 * libvmgpu task graphs: the text form of format B, for tools and tests.
 * One command a line, its name and decimal (or 0x) operands; "#" starts
 * a comment; "name" takes a quoted string ("\\" and "\"" escaped);
 * "loop" a count or a parameter "$P"; "if $P OP VALUE" with OP one of
 * == != < <= > >=. The printer writes the canonical form (nested
 * commands indented by a tab), which parses back to the same words.
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tg_internal.h"
#include "stream.h"
#include "vmgpu/graph.h"

static const char *const cmp_text[TGB_NCMP] = {
	"==", "!=", "<", "<=", ">", ">=",
};

static const struct {
	enum tgb_op op;
	uint32_t len;
	const char *text;
} ops[] = {
#define TGB_X_LIST(name, code, len, text) { TGB_##name, len, text },
	TGB_TABLE(TGB_X_LIST)
#undef TGB_X_LIST
};

struct words {
	uint32_t *w;
	uint32_t n, cap;
};

static int put(struct words *b, uint32_t v)
{
	if (vmgpu_grow((void **)&b->w, &b->cap, b->n + 1, sizeof(*b->w)))
		return -ENOMEM;
	b->w[b->n++] = htole32(v);
	return 0;
}

struct parser {
	const char *p;			/* current position in the line */
	unsigned int line;
	char *err;
	size_t errlen;
};

static int perr(struct parser *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int perr(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ps->err && ps->errlen) {
		n = snprintf(ps->err, ps->errlen, "line %u: ", ps->line);
		if (n >= 0 && (size_t)n < ps->errlen) {
			va_start(ap, fmt);
			vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	return -EINVAL;
}

static void skip_space(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r')
		ps->p++;
}

static bool at_end(struct parser *ps)
{
	skip_space(ps);
	return !*ps->p || *ps->p == '\n' || *ps->p == '#';
}

static int number(struct parser *ps, uint64_t max, uint64_t *v)
{
	char *end;

	skip_space(ps);
	if (!isdigit((unsigned char)*ps->p))
		return perr(ps, "a number expected");
	errno = 0;
	*v = strtoull(ps->p, &end, 0);
	if (errno || *v > max)
		return perr(ps, "number out of range (at most %llu)",
			    (unsigned long long)max);
	ps->p = end;
	return 0;
}

static int snumber(struct parser *ps, int64_t *v)
{
	char *end;

	skip_space(ps);
	if (!isdigit((unsigned char)*ps->p) && *ps->p != '-')
		return perr(ps, "a number expected");
	errno = 0;
	*v = strtoll(ps->p, &end, 0);
	if (errno || end == ps->p)
		return perr(ps, "number out of range");
	ps->p = end;
	return 0;
}

static int param_ref(struct parser *ps, uint64_t *v)
{
	skip_space(ps);
	if (*ps->p != '$')
		return perr(ps, "a parameter $N expected");
	ps->p++;
	return number(ps, UINT32_MAX, v);
}

static int put64(struct words *b, uint64_t v)
{
	return put(b, (uint32_t)v) ?: put(b, (uint32_t)(v >> 32));
}

/* Operands of @op from the line into @b (header already there). */
static int operands(struct parser *ps, uint32_t op, struct words *b)
{
	/* Per op: operands as 'w' (32-bit) or 'd' (64-bit). */
	static const char *const shapes[256] = {
		[TGB_READ] = "w", [TGB_WRITE] = "w", [TGB_DROP] = "w",
		[TGB_DISPATCH] = "w", [TGB_STATE] = "ww", [TGB_NEEDS] = "dddd",
		[TGB_COPY] = "wdwdd", [TGB_CLEAR] = "wddw",
	};
	const char *s = shapes[op];
	uint64_t v = 0;
	int64_t sv = 0;
	int ret;

	if (op == TGB_LOOP) {
		skip_space(ps);
		if (*ps->p == '$') {
			ret = param_ref(ps, &v);
			return ret ?: put(b, TGB_COUNT_PARAM) ?: put(b, (uint32_t)v);
		}
		ret = number(ps, UINT32_MAX, &v);
		return ret ?: put(b, TGB_COUNT_IMM) ?: put(b, (uint32_t)v);
	}
	if (op == TGB_IF) {
		uint32_t c, best = TGB_NCMP;
		size_t len = 0;

		ret = param_ref(ps, &v);
		if (ret)
			return ret;
		skip_space(ps);
		for (c = 0; c < TGB_NCMP; c++) {
			size_t l = strlen(cmp_text[c]);

			if (!strncmp(ps->p, cmp_text[c], l) && l > len) {
				best = c;
				len = l;
			}
		}
		if (best == TGB_NCMP)
			return perr(ps, "a comparison (== != < <= > >=) expected");
		ps->p += len;
		ret = snumber(ps, &sv);
		return ret ?: put(b, (uint32_t)v) ?: put(b, best) ?:
			      put64(b, (uint64_t)sv);
	}
	if (op == TGB_NAME) {
		char buf[TGB_MAX_NAME + 1];
		size_t n = 0, i;

		skip_space(ps);
		if (*ps->p++ != '"')
			return perr(ps, "a quoted name expected");
		while (*ps->p != '"') {
			if (!*ps->p || *ps->p == '\n')
				return perr(ps, "unterminated name");
			if (*ps->p == '\\' && (ps->p[1] == '"' || ps->p[1] == '\\'))
				ps->p++;
			if (n == TGB_MAX_NAME)
				return perr(ps, "name longer than %d bytes",
					    TGB_MAX_NAME);
			buf[n++] = *ps->p++;
		}
		ps->p++;
		buf[n] = 0;
		/* NUL-terminated, padded with NULs to a whole word. */
		for (i = 0; i < n / 4 + 1; i++) {
			uint32_t w = 0;

			memcpy(&w, buf + 4 * i,
			       n + 1 - 4 * i < 4 ? n + 1 - 4 * i : 4);
			if (put(b, le32toh(w)))
				return -ENOMEM;
		}
		return 0;
	}
	for (; s && *s; s++) {
		ret = number(ps, *s == 'd' ? UINT64_MAX : UINT32_MAX, &v);
		if (!ret)
			ret = *s == 'd' ? put64(b, v) : put(b, (uint32_t)v);
		if (ret)
			return ret;
	}
	return 0;
}

int vmgpu_graph_stream_parse(const char *text, uint32_t **words,
			     size_t *count, char *err, size_t errlen)
{
	struct parser ps = { .p = text, .line = 1, .err = err,
			     .errlen = errlen };
	struct words b = { 0 };
	struct tgb_cmd *cmds;
	uint32_t ncmds;
	int ret = 0;

	if (!text || !words || !count)
		return -EINVAL;
	if (put(&b, TGB_MAGIC) || put(&b, TGB_VERSION))
		return -ENOMEM;
	for (; *ps.p && !ret; ps.line++) {
		const char *word;
		size_t len, i;
		uint32_t at = b.n, nw;

		if (at_end(&ps))
			goto next;
		word = ps.p;
		while (isalnum((unsigned char)*ps.p) || *ps.p == '_')
			ps.p++;
		len = (size_t)(ps.p - word);
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
			if (strlen(ops[i].text) == len &&
			    !strncmp(ops[i].text, word, len))
				break;
		if (i == sizeof(ops) / sizeof(ops[0])) {
			ret = perr(&ps, "unknown command '%.*s'", (int)len,
				   word);
			break;
		}
		ret = put(&b, 0);
		if (!ret)
			ret = operands(&ps, ops[i].op, &b);
		if (ret)
			break;
		if (!at_end(&ps)) {
			ret = perr(&ps, "unexpected '%.20s'", ps.p);
			break;
		}
		nw = b.n - at;
		b.w[at] = htole32(TGB_HDR(ops[i].op, nw));
next:
		while (*ps.p && *ps.p != '\n')
			ps.p++;
		if (*ps.p)
			ps.p++;
	}
	if (!ret) {
		/* Nesting: the decoder's rules, its word offsets. */
		char why[120];

		ret = tgb_decode(b.w, b.n, &cmds, &ncmds, why, sizeof(why));
		if (ret == -EINVAL) {
			if (err && errlen)
				snprintf(err, errlen, "%s", why);
		} else if (!ret) {
			free(cmds);
		}
	}
	if (ret) {
		if (ret == -ENOMEM && err && errlen)
			snprintf(err, errlen, "out of memory");
		free(b.w);
		return ret;
	}
	*words = b.w;
	*count = b.n;
	return 0;
}

struct text {
	char *s;
	size_t len, cap;
	bool oom;
};

static void tprintf(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void tprintf(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || t->len + (size_t)n + 1 > t->cap) {
		size_t cap = (t->cap + (size_t)(n < 0 ? 0 : n) + 64) * 2;
		char *p = n < 0 ? NULL : realloc(t->s, cap);

		if (!p) {
			t->oom = true;
			return;
		}
		t->s = p;
		t->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

int vmgpu_graph_stream_print(const uint32_t *words, size_t count,
			     char **text, char *err, size_t errlen)
{
	struct text t = { 0 };
	struct tgb_cmd *cmds;
	uint32_t n, i, depth = 0, d;
	int ret;

	if (!text)
		return -EINVAL;
	ret = tgb_decode(words, count, &cmds, &n, err, errlen);
	if (ret)
		return ret;
	tprintf(&t, "%s", "");
	for (i = 0; i < n; i++) {
		const uint32_t *w = words + cmds[i].at;
		uint32_t op = cmds[i].op;

		if (op == TGB_END || op == TGB_END_PASS || op == TGB_ELSE)
			depth--;
		for (d = 0; d < depth; d++)
			tprintf(&t, "\t");
		for (d = 0; d < sizeof(ops) / sizeof(ops[0]); d++)
			if (ops[d].op == op)
				tprintf(&t, "%s", ops[d].text);
		switch (op) {
		case TGB_NAME: {
			const char *s = (const char *)(w + 1);

			tprintf(&t, " \"");
			for (; *s; s++)
				tprintf(&t, "%s%c",
					*s == '"' || *s == '\\' ? "\\" : "",
					*s);
			tprintf(&t, "\"");
			break;
		}
		case TGB_READ:
		case TGB_WRITE:
		case TGB_DROP:
		case TGB_DISPATCH:
			tprintf(&t, " %u", tgb_word(w, 1));
			break;
		case TGB_STATE:
			tprintf(&t, " %u %u", tgb_word(w, 1), tgb_word(w, 2));
			break;
		case TGB_NEEDS:
			tprintf(&t, " %llu %llu %llu %llu",
				(unsigned long long)tgb_word64(w, 1),
				(unsigned long long)tgb_word64(w, 3),
				(unsigned long long)tgb_word64(w, 5),
				(unsigned long long)tgb_word64(w, 7));
			break;
		case TGB_COPY:
			tprintf(&t, " %u %llu %u %llu %llu", tgb_word(w, 1),
				(unsigned long long)tgb_word64(w, 2),
				tgb_word(w, 4),
				(unsigned long long)tgb_word64(w, 5),
				(unsigned long long)tgb_word64(w, 7));
			break;
		case TGB_CLEAR:
			tprintf(&t, " %u %llu %llu %u", tgb_word(w, 1),
				(unsigned long long)tgb_word64(w, 2),
				(unsigned long long)tgb_word64(w, 4),
				tgb_word(w, 6));
			break;
		case TGB_LOOP:
			tprintf(&t, tgb_word(w, 1) == TGB_COUNT_PARAM ?
					    " $%u" : " %u",
				tgb_word(w, 2));
			break;
		case TGB_IF:
			tprintf(&t, " $%u %s %lld", tgb_word(w, 1),
				cmp_text[tgb_word(w, 2)],
				(long long)tgb_word64(w, 3));
			break;
		}
		tprintf(&t, "\n");
		if (op == TGB_LOOP || op == TGB_IF || op == TGB_PASS ||
		    op == TGB_ELSE)
			depth++;
	}
	free(cmds);
	if (t.oom) {
		free(t.s);
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	*text = t.s;
	return 0;
}
