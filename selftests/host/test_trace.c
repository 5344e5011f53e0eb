// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trace converters (qemu-device/core/trace.c, trace_svg.c): residency
 * lanes, the JSON held to the Trace Event Format rules a viewer relies on
 * (checked by a small JSON reader here), the SVG checked for well-formed
 * XML, and the summary. Each checker is also shown a broken input it must
 * reject.
 *
 * VMGPU_TRACE_RECORDS=FILE writes the raw records of the workload to FILE,
 * the input of Documentation/images/timeline.svg (device-model.rst).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "testhost.h"
#include "core/trace.h"
#include "core/trace_svg.h"

#define VA0	0x40000000ull
#define RW	(VMGPU_PTE_READ | VMGPU_PTE_WRITE)

/* ------------------------------------------------------------------ */
/* A JSON reader, just enough for the converter's output                */
/* ------------------------------------------------------------------ */

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype type;
	double num;
	char *str;		/* J_STR */
	size_t n;		/* J_ARR, J_OBJ: members */
	struct jval *items;
	char **keys;		/* J_OBJ */
};

struct jparser {
	const char *p;
	const char *err;
};

static void jfree(struct jval *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		jfree(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

static void jskip(struct jparser *jp)
{
	while (*jp->p == ' ' || *jp->p == '\n' || *jp->p == '\r' ||
	       *jp->p == '\t')
		jp->p++;
}

static int jfail(struct jparser *jp, const char *why)
{
	if (!jp->err)
		jp->err = why;
	return -1;
}

static int jstring(struct jparser *jp, char **out)
{
	size_t cap = 16, n = 0;
	char *s;

	if (*jp->p != '"')
		return jfail(jp, "string expected");
	jp->p++;
	s = malloc(cap);
	for (;;) {
		char c = *jp->p++;

		if (n + 2 > cap)
			s = realloc(s, cap *= 2);
		if (c == '"')
			break;
		if (!c || (unsigned char)c < 0x20) {
			free(s);
			return jfail(jp, "unterminated string or control character");
		}
		if (c == '\\') {
			c = *jp->p++;
			switch (c) {
			case '"':
			case '\\':
			case '/':
				break;
			case 'b':
			case 'f':
			case 'n':
			case 'r':
			case 't':
				/* Only validity matters here, not the character. */
				c = ' ';
				break;
			case 'u': {
				int i;

				for (i = 0; i < 4; i++)
					if (!strchr("0123456789abcdefABCDEF",
						    jp->p[i]) || !jp->p[i]) {
						free(s);
						return jfail(jp, "bad \\u escape");
					}
				jp->p += 4;
				c = '?';	/* not needed beyond validity */
				break;
			}
			default:
				free(s);
				return jfail(jp, "bad escape");
			}
		}
		s[n++] = c;
	}
	s[n] = 0;
	*out = s;
	return 0;
}

/* JSON's number grammar, strictly: no leading zeros, no bare dots. */
static int jnumber(struct jparser *jp, double *out)
{
	const char *start = jp->p, *q = jp->p;

	if (*q == '-')
		q++;
	if (*q == '0')
		q++;
	else if (*q >= '1' && *q <= '9')
		while (*q >= '0' && *q <= '9')
			q++;
	else
		return jfail(jp, "bad number");
	if (*q == '.') {
		q++;
		if (!(*q >= '0' && *q <= '9'))
			return jfail(jp, "bad fraction");
		while (*q >= '0' && *q <= '9')
			q++;
	}
	if (*q == 'e' || *q == 'E') {
		q++;
		if (*q == '+' || *q == '-')
			q++;
		if (!(*q >= '0' && *q <= '9'))
			return jfail(jp, "bad exponent");
		while (*q >= '0' && *q <= '9')
			q++;
	}
	*out = strtod(start, NULL);
	jp->p = q;
	return 0;
}

static int jvalue(struct jparser *jp, struct jval *v, int depth)
{
	memset(v, 0, sizeof(*v));
	if (depth > 32)
		return jfail(jp, "too deep");
	jskip(jp);
	if (*jp->p == '{' || *jp->p == '[') {
		bool obj = *jp->p == '{';
		size_t cap = 0;

		v->type = obj ? J_OBJ : J_ARR;
		jp->p++;
		jskip(jp);
		if (*jp->p == (obj ? '}' : ']')) {
			jp->p++;
			return 0;
		}
		for (;;) {
			if (v->n == cap) {
				cap = cap ? 2 * cap : 8;
				v->items = realloc(v->items,
						   cap * sizeof(*v->items));
				if (obj)
					v->keys = realloc(v->keys,
							  cap * sizeof(*v->keys));
			}
			jskip(jp);
			if (obj) {
				if (jstring(jp, &v->keys[v->n]))
					return -1;
				jskip(jp);
				if (*jp->p++ != ':') {
					free(v->keys[v->n]);
					return jfail(jp, "':' expected");
				}
			}
			/* A member that fails is freed here, v's own by the caller. */
			if (jvalue(jp, &v->items[v->n], depth + 1)) {
				jfree(&v->items[v->n]);
				if (obj)
					free(v->keys[v->n]);
				return -1;
			}
			v->n++;
			jskip(jp);
			if (*jp->p == ',') {
				jp->p++;
				continue;
			}
			if (*jp->p++ != (obj ? '}' : ']'))
				return jfail(jp, "',' or end of container expected");
			return 0;
		}
	}
	if (*jp->p == '"') {
		v->type = J_STR;
		return jstring(jp, &v->str);
	}
	if (!strncmp(jp->p, "true", 4) || !strncmp(jp->p, "false", 5)) {
		v->type = J_BOOL;
		v->num = *jp->p == 't';
		jp->p += *jp->p == 't' ? 4 : 5;
		return 0;
	}
	if (!strncmp(jp->p, "null", 4)) {
		jp->p += 4;
		return 0;
	}
	v->type = J_NUM;
	return jnumber(jp, &v->num);
}

/* The whole of @text as one JSON value; NULL and *why on an error. */
static int jparse(const char *text, struct jval *v, const char **why)
{
	struct jparser jp = { text, NULL };

	if (jvalue(&jp, v, 0)) {
		jfree(v);
		*why = jp.err;
		return -1;
	}
	jskip(&jp);
	if (*jp.p) {
		jfree(v);
		*why = "trailing characters after the JSON value";
		return -1;
	}
	return 0;
}

static const struct jval *jget(const struct jval *obj, const char *key)
{
	size_t i;

	if (obj->type != J_OBJ)
		return NULL;
	for (i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			return &obj->items[i];
	return NULL;
}

static const struct jval *jget_type(const struct jval *obj, const char *key,
				    enum jtype type)
{
	const struct jval *v = jget(obj, key);

	return v && v->type == type ? v : NULL;
}

/* ------------------------------------------------------------------ */
/* The Trace Event Format rules the JSON is held to                     */
/* ------------------------------------------------------------------ */

struct span {
	long long pid, tid, start, end;	/* ns */
	size_t event;
};

struct async {
	long long pid, ts;
	const char *cat, *id, *name;
	char ph;
	size_t event;
};

/* pid/tid pairs with a given metadata name. */
struct named {
	long long pid, tid;
	bool process;
};

static long long ns_of(double us)
{
	return llround(us * 1000.0);
}

static int cmp_span(const void *pa, const void *pb)
{
	const struct span *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return 0;
}

static int cmp_async(const void *pa, const void *pb)
{
	const struct async *a = pa, *b = pb;
	int c = strcmp(a->cat, b->cat);

	if (c)
		return c;
	c = strcmp(a->id, b->id);
	if (c)
		return c;
	/* begin before end of the same id */
	return a->ph == b->ph ? 0 : a->ph == 'b' ? -1 : 1;
}

static bool has_name(const struct named *names, size_t n, long long pid,
		     long long tid, bool process)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (names[i].pid == pid && names[i].process == process &&
		    (process || names[i].tid == tid))
			return true;
	return false;
}

/* Say which rule broke (into @why of the checker) and stop. */
#define BAD(...)						\
	do {							\
		snprintf(why, len, __VA_ARGS__);		\
		goto out;					\
	} while (0)

/*
 * 0 if @text is a trace the way the converter promises it: a JSON object
 * with a traceEvents array; every event has name, ph, pid and tid, and ts
 * unless it is metadata; X has dur >= 0; b/e have cat and id, and each id
 * has exactly one begin and one end, the end not before the begin, same
 * name and pid; instants have scope g, p or t; metadata names its process
 * or thread; every process and every thread with a complete event is
 * named; and no two complete events on one (pid, tid) overlap (spans are
 * half-open, so one may start where another ends). Otherwise -1 and the
 * first broken rule in @why.
 */
static int check_trace_json(const char *text, char *why, size_t len)
{
	struct jval root;
	const struct jval *events;
	struct span *spans = NULL;
	struct async *asyncs = NULL;
	struct named *names = NULL;
	size_t nspans = 0, nasyncs = 0, nnames = 0, i;
	const char *perr;
	int ret = -1;

	if (jparse(text, &root, &perr)) {
		snprintf(why, len, "not JSON: %s", perr);
		return -1;
	}
	events = jget_type(&root, "traceEvents", J_ARR);
	if (!events)
		BAD("no traceEvents array");
	spans = calloc(events->n + 1, sizeof(*spans));
	asyncs = calloc(events->n + 1, sizeof(*asyncs));
	names = calloc(events->n + 1, sizeof(*names));
	for (i = 0; i < events->n; i++) {
		const struct jval *e = &events->items[i];
		const struct jval *name = jget_type(e, "name", J_STR);
		const struct jval *ph = jget_type(e, "ph", J_STR);
		const struct jval *pid = jget_type(e, "pid", J_NUM);
		const struct jval *tid = jget_type(e, "tid", J_NUM);
		const struct jval *ts = jget_type(e, "ts", J_NUM);
		const struct jval *args = jget_type(e, "args", J_OBJ);

		if (e->type != J_OBJ)
			BAD("event %zu is not an object", i);
		if (!name || !ph || !pid || !tid)
			BAD("event %zu lacks name, ph, pid or tid", i);
		if (strlen(ph->str) != 1)
			BAD("event %zu: ph \"%s\"", i, ph->str);
		if (ph->str[0] != 'M' && !ts)
			BAD("event %zu (%s) has no ts", i, name->str);
		switch (ph->str[0]) {
		case 'M':
			if (!strcmp(name->str, "process_name") ||
			    !strcmp(name->str, "thread_name")) {
				if (!args || !jget_type(args, "name", J_STR))
					BAD("event %zu: %s without args.name",
					    i, name->str);
				names[nnames].pid = (long long)pid->num;
				names[nnames].tid = (long long)tid->num;
				names[nnames].process = name->str[0] == 'p';
				nnames++;
			} else if (!strcmp(name->str, "process_sort_index") ||
				   !strcmp(name->str, "thread_sort_index")) {
				if (!args || !jget_type(args, "sort_index", J_NUM))
					BAD("event %zu: %s without args.sort_index",
					    i, name->str);
			} else {
				BAD("event %zu: unknown metadata %s", i,
				    name->str);
			}
			break;
		case 'X': {
			const struct jval *dur = jget_type(e, "dur", J_NUM);

			if (!dur || dur->num < 0)
				BAD("event %zu (%s): X without dur >= 0", i,
				    name->str);
			spans[nspans].pid = (long long)pid->num;
			spans[nspans].tid = (long long)tid->num;
			spans[nspans].start = ns_of(ts->num);
			spans[nspans].end = ns_of(ts->num) + ns_of(dur->num);
			spans[nspans].event = i;
			nspans++;
			break;
		}
		case 'b':
		case 'e': {
			const struct jval *cat = jget_type(e, "cat", J_STR);
			const struct jval *id = jget_type(e, "id", J_STR);

			if (!cat || !id)
				BAD("event %zu (%s): async without cat or id",
				    i, name->str);
			asyncs[nasyncs].pid = (long long)pid->num;
			asyncs[nasyncs].ts = ns_of(ts->num);
			asyncs[nasyncs].cat = cat->str;
			asyncs[nasyncs].id = id->str;
			asyncs[nasyncs].name = name->str;
			asyncs[nasyncs].ph = ph->str[0];
			asyncs[nasyncs].event = i;
			nasyncs++;
			break;
		}
		case 'i': {
			const struct jval *s = jget_type(e, "s", J_STR);

			if (s && strcmp(s->str, "g") && strcmp(s->str, "p") &&
			    strcmp(s->str, "t"))
				BAD("event %zu: instant scope \"%s\"", i,
				    s->str);
			break;
		}
		default:
			BAD("event %zu: phase '%s' not used by the converter",
			    i, ph->str);
		}
	}

	qsort(spans, nspans, sizeof(*spans), cmp_span);
	for (i = 0; i < nspans; i++) {
		if (!has_name(names, nnames, spans[i].pid, 0, true) ||
		    !has_name(names, nnames, spans[i].pid, spans[i].tid, false))
			BAD("pid %lld tid %lld has no process_name/thread_name",
			    spans[i].pid, spans[i].tid);
		if (i && spans[i].pid == spans[i - 1].pid &&
		    spans[i].tid == spans[i - 1].tid &&
		    spans[i].start < spans[i - 1].end)
			BAD("complete events %zu and %zu overlap on pid %lld tid %lld",
			    spans[i - 1].event, spans[i].event, spans[i].pid,
			    spans[i].tid);
	}

	qsort(asyncs, nasyncs, sizeof(*asyncs), cmp_async);
	for (i = 0; i < nasyncs; i += 2) {
		const struct async *b = &asyncs[i], *e = &asyncs[i + 1];

		if (b->ph != 'b' || i + 1 == nasyncs || e->ph != 'e' ||
		    strcmp(b->cat, e->cat) || strcmp(b->id, e->id) ||
		    (i + 2 < nasyncs && !strcmp(asyncs[i + 2].cat, b->cat) &&
		     !strcmp(asyncs[i + 2].id, b->id)))
			BAD("async id \"%s\" (event %zu) is not one begin and one end",
			    b->id, b->event);
		if (e->ts < b->ts || strcmp(b->name, e->name) ||
		    b->pid != e->pid)
			BAD("async id \"%s\": end before begin, or another name or pid",
			    b->id);
	}
	ret = 0;
out:
	free(spans);
	free(asyncs);
	free(names);
	jfree(&root);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Well-formed XML, as much of it as an SVG writer can get wrong         */
/* ------------------------------------------------------------------ */

static bool xml_name_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
	       c == ':';
}

static bool xml_name_char(char c)
{
	return xml_name_start(c) || (c >= '0' && c <= '9') || c == '-' ||
	       c == '.';
}

static size_t xml_name(const char *p)
{
	size_t n = 0;

	if (!xml_name_start(*p))
		return 0;
	while (xml_name_char(p[n]))
		n++;
	return n;
}

/* Length of the entity reference at @p ("&...;"), 0 if it is not one. */
static size_t xml_entity(const char *p)
{
	static const char *const named[] = { "&amp;", "&lt;", "&gt;",
					     "&quot;", "&apos;" };
	size_t i, n;

	for (i = 0; i < 5; i++)
		if (!strncmp(p, named[i], strlen(named[i])))
			return strlen(named[i]);
	if (p[1] != '#')
		return 0;
	n = 2;
	if (p[2] == 'x') {
		n++;
		while (strchr("0123456789abcdefABCDEF", p[n]) && p[n])
			n++;
		return n > 3 && p[n] == ';' ? n + 1 : 0;
	}
	while (p[n] >= '0' && p[n] <= '9')
		n++;
	return n > 2 && p[n] == ';' ? n + 1 : 0;
}

static bool xml_space(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

/*
 * 0 if @text is well-formed XML: an optional declaration, then exactly one
 * root element; tags balanced and properly nested; attributes unique per
 * element and quoted, without '<' in values; '&' only as an entity
 * reference in text and values; comments closed. Otherwise -1 and why.
 */
static int check_xml(const char *text, char *why, size_t len)
{
	const char *stack[64];
	size_t stack_len[64];
	int depth = 0, roots = 0, ret = -1;
	const char *p = text;

	if (!strncmp(p, "<?xml", 5)) {
		p = strstr(p, "?>");
		if (!p)
			BAD("unterminated XML declaration");
		p += 2;
	}
	while (*p) {
		if (!strncmp(p, "<!--", 4)) {
			const char *end = strstr(p + 4, "-->");

			if (!end)
				BAD("unterminated comment");
			p = end + 3;
		} else if (p[0] == '<' && p[1] == '/') {
			size_t n = xml_name(p + 2);

			if (!n)
				BAD("bad closing tag at offset %td", p - text);
			if (!depth || stack_len[depth - 1] != n ||
			    strncmp(stack[depth - 1], p + 2, n))
				BAD("closing tag </%.*s> at offset %td does not match",
				     (int)n, p + 2, p - text);
			p += 2 + n;
			while (xml_space(*p))
				p++;
			if (*p++ != '>')
				BAD("closing tag </%.*s> not closed", (int)n,
				     stack[depth - 1]);
			depth--;
		} else if (*p == '<') {
			const char *attrs[64];
			size_t attr_len[64], nattrs = 0, n = xml_name(p + 1), i;

			if (!n)
				BAD("bad tag at offset %td", p - text);
			if (!depth && roots++)
				BAD("second root element at offset %td",
				     p - text);
			if (depth == 64)
				BAD("elements nested too deep");
			stack[depth] = p + 1;
			stack_len[depth] = n;
			p += 1 + n;
			for (;;) {
				size_t an;
				char q;

				if (!xml_space(*p) && *p != '>' && *p != '/')
					BAD("attribute not separated by space at offset %td",
					     p - text);
				while (xml_space(*p))
					p++;
				if (*p == '>' || (p[0] == '/' && p[1] == '>'))
					break;
				an = xml_name(p);
				if (!an)
					BAD("bad attribute name at offset %td",
					     p - text);
				for (i = 0; i < nattrs; i++)
					if (attr_len[i] == an &&
					    !strncmp(attrs[i], p, an))
						BAD("attribute %.*s repeated",
						     (int)an, p);
				if (nattrs < 64) {
					attrs[nattrs] = p;
					attr_len[nattrs++] = an;
				}
				p += an;
				while (xml_space(*p))
					p++;
				if (*p++ != '=')
					BAD("attribute %.*s without value",
					     (int)an, attrs[nattrs - 1]);
				while (xml_space(*p))
					p++;
				q = *p++;
				if (q != '"' && q != '\'')
					BAD("attribute %.*s value not quoted",
					     (int)an, attrs[nattrs - 1]);
				while (*p != q) {
					if (!*p || *p == '<')
						BAD("'<' or end of text in attribute %.*s",
						     (int)an, attrs[nattrs - 1]);
					if (*p == '&') {
						size_t en = xml_entity(p);

						if (!en)
							BAD("bare '&' in attribute %.*s",
							     (int)an,
							     attrs[nattrs - 1]);
						p += en;
					} else {
						p++;
					}
				}
				p++;
			}
			if (*p == '/') {
				p += 2;
			} else {
				p++;
				depth++;
			}
		} else {
			if (!depth && !xml_space(*p))
				BAD("text outside the root element at offset %td",
				     p - text);
			if (*p == '&') {
				size_t en = xml_entity(p);

				if (!en)
					BAD("bare '&' in text at offset %td",
					     p - text);
				p += en;
			} else {
				p++;
			}
		}
	}
	if (depth)
		BAD("<%.*s> never closed", (int)stack_len[depth - 1],
		     stack[depth - 1]);
	if (!roots)
		BAD("no root element");
	ret = 0;
out:
	return ret;
}

/* ------------------------------------------------------------------ */
/* Records and workloads                                                */
/* ------------------------------------------------------------------ */

static struct vmgpu_trace_record rec(uint8_t kind, uint8_t gpu, uint16_t sm,
				     uint64_t start, uint64_t end,
				     uint32_t dispatch, uint32_t block)
{
	struct vmgpu_trace_record r = {
		.start_ns = start, .end_ns = end, .seqno = 1, .kind = kind,
		.gpu = gpu, .sm = sm, .dispatch = dispatch, .block = block,
	};

	return r;
}

static char *json_of(const struct vmgpu_trace_record *recs, size_t n)
{
	return vg_trace_json_string(recs, n, NULL);
}

static char *svg_of(const struct vmgpu_trace_record *recs, size_t n,
		    size_t *len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	if (vg_trace_svg_write(recs, n, f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	if (len)
		*len = size;
	return buf;
}

static void put32(uint8_t *a, uint32_t off, uint32_t v)
{
	memcpy(a + off, &v, 4);
}

static void put64(uint8_t *a, uint32_t off, uint64_t v)
{
	memcpy(a + off, &v, 8);
}

/* A saxpy over @n floats in blocks of @threads. */
static void saxpy(struct th_cmdbuf *cb, struct testhost *th, struct th_as *as,
		  uint64_t code, uint64_t x, uint64_t y, uint32_t n,
		  uint32_t threads)
{
	uint32_t grid[3] = { (n + threads - 1) / threads, 1, 1 };
	uint32_t block[3] = { threads, 1, 1 };
	uint8_t args[24] = { 0 };
	float a = 0.5f;

	put32(args, 0, n);
	memcpy(args + 4, &a, 4);
	put64(args, 8, x);
	put64(args, 16, y);
	th_cb_dispatch(cb, code, th_upload(th, as, args, sizeof(args)),
		       sizeof(args), grid, block, 0, 0);
}

/*
 * Two GPUs of two SMs each, fed many small blocks so that an SM holds
 * many at once (sm-blocks 32): GPU 0 one packet of four dispatches (two
 * concurrent, one after a SYNC, one after a BARRIER), GPU 1 two packets.
 * Returns the device's records (a malloc()ed copy).
 */
static struct vmgpu_trace_record *resident_workload(size_t *n)
{
	const uint32_t len = 4096;
	struct testhost *th = th_new(64 << 20);
	struct vmgpu_trace_record *copy;
	const struct vmgpu_trace_record *recs;
	struct vg_device *dev;
	struct th_cmdbuf cb;
	struct vg_config cfg;
	struct th_as as;
	uint64_t code, x, y[2];
	unsigned int g;

	vg_config_defaults(&cfg);
	cfg.gpus = 2;
	cfg.sms = 2;
	dev = th_device_new(th, &cfg, 2);
	vg_device_trace_keep(dev, true);
	th_as_init(th, &as, VA0);
	for (g = 0; g < 2; g++) {
		th_gpu_setup(th, g, 8);
		th_set_root(th, g, 0, &as);
		y[g] = th_as_alloc(th, &as, len * 4,
				   RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(g)));
	}
	x = th_as_alloc(th, &as, len * 4, RW);
	code = th_builtin(th, &as, "saxpy");

	th_cb_init(&cb);
	saxpy(&cb, th, &as, code, x, y[0], 2048, 32);
	saxpy(&cb, th, &as, code, x, y[0] + 8192, 2048, 64);
	th_cb_sync(&cb, 2, 0);
	saxpy(&cb, th, &as, code, x, y[0], 2048, 128);
	th_cb_barrier(&cb);
	saxpy(&cb, th, &as, code, x, y[0], 1024, 32);
	th_cb_end(&cb);
	th_cb_submit(th, &as, 0, &cb, 1);

	th_cb_init(&cb);
	saxpy(&cb, th, &as, code, x, y[1], len, 64);
	th_cb_end(&cb);
	th_cb_submit(th, &as, 1, &cb, 1);
	th_cb_init(&cb);
	saxpy(&cb, th, &as, code, x, y[1], 1024, 32);
	saxpy(&cb, th, &as, code, x, y[1] + 4096, 1024, 32);
	th_cb_end(&cb);
	th_cb_submit(th, &as, 1, &cb, 2);

	vg_device_run(dev);
	recs = vg_device_trace_records(dev, n);
	copy = malloc(*n * sizeof(*copy));
	memcpy(copy, recs, *n * sizeof(*copy));
	th_free(th);
	return copy;
}

/*
 * Eviction on one GPU of two SMs with a one-slot task table: a long
 * low-priority fill (dispatch 0, 16 blocks of 1024 threads, two resident
 * per SM) is in the slot when a two-block high-priority fill (dispatch 1)
 * arrives 40 NOPs later; it evicts dispatch 0, runs, and dispatch 0
 * resumes where it stopped. Returns the records (a malloc()ed copy).
 */
static struct vmgpu_trace_record *eviction_workload(size_t *n)
{
	struct testhost *th = th_new(64 << 20);
	struct vmgpu_trace_record *copy;
	const struct vmgpu_trace_record *recs;
	struct vg_device *dev;
	struct th_cmdbuf cb;
	struct vg_config cfg;
	struct th_as as;
	uint64_t code;
	unsigned int k, i;

	vg_config_defaults(&cfg);
	cfg.sms = 2;
	cfg.wd_table_slots = 1;
	dev = th_device_new(th, &cfg, 1);
	vg_device_trace_keep(dev, true);
	th_as_init(th, &as, VA0);
	th_gpu_setup(th, 0, 8);
	th_set_root(th, 0, 0, &as);
	code = th_builtin(th, &as, "fill");
	th_cb_init(&cb);
	for (k = 0; k < 2; k++) {
		uint32_t blocks = k ? 2 : 16, threads = 1024;
		uint32_t grid[3] = { blocks, 1, 1 }, block[3] = { threads, 1, 1 };
		uint8_t args[24] = { 0 };

		put64(args, 0, th_as_alloc(th, &as, blocks * threads * 4, RW));
		put32(args, 8, blocks * threads);	/* n */
		put32(args, 12, 1);			/* mul */
		put32(args, 16, 1);			/* add */
		put32(args, 20, k ? 0 : 200);		/* spin */
		th_cb_dispatch(&cb, code, th_upload(th, &as, args, sizeof(args)),
			       sizeof(args), grid, block, 0, k ? 1 : 8);
		for (i = 0; !k && i < 40; i++)
			th_cb_nop(&cb);
	}
	th_cb_end(&cb);
	th_cb_submit(th, &as, 0, &cb, 1);
	vg_device_run(dev);
	recs = vg_device_trace_records(dev, n);
	copy = malloc(*n * sizeof(*copy));
	memcpy(copy, recs, *n * sizeof(*copy));
	th_free(th);
	return copy;
}

/* The most blocks resident on one SM at one time, from the records. */
static unsigned int max_resident(const struct vmgpu_trace_record *recs,
				 size_t n)
{
	unsigned int best = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		unsigned int alive = 0;

		if (recs[i].kind != VMGPU_TRACE_BLOCK)
			continue;
		for (j = 0; j < n; j++)
			alive += recs[j].kind == VMGPU_TRACE_BLOCK &&
				 recs[j].gpu == recs[i].gpu &&
				 recs[j].sm == recs[i].sm &&
				 recs[j].start_ns <= recs[i].start_ns &&
				 vg_trace_end_ns(&recs[j]) > recs[i].start_ns;
		if (alive > best)
			best = alive;
	}
	return best;
}

/* ------------------------------------------------------------------ */
/* Tests                                                                */
/* ------------------------------------------------------------------ */

TEST(block_takes_lowest_lane_free_at_its_start)
{
	struct vmgpu_trace_record r[] = {
		rec(VMGPU_TRACE_BLOCK, 0, 0, 0, 10, 0, 0),	/* lane 0 */
		rec(VMGPU_TRACE_BLOCK, 0, 0, 5, 15, 0, 1),	/* lane 1 */
		rec(VMGPU_TRACE_BLOCK, 0, 0, 10, 20, 0, 2),	/* 0 is free at 10 */
		rec(VMGPU_TRACE_BLOCK, 0, 0, 12, 14, 1, 0),	/* 0, 1 busy */
		rec(VMGPU_TRACE_BLOCK, 0, 0, 20, 30, 1, 1),	/* 0 again */
		rec(VMGPU_TRACE_BLOCK, 0, 1, 5, 15, 0, 3),	/* SM 1: lane 0 */
		rec(VMGPU_TRACE_PACKET, 0, VMGPU_TRACE_SM_NONE, 0, 40,
		    VMGPU_TRACE_NONE, VMGPU_TRACE_NONE),
		rec(VMGPU_TRACE_CMD, 0, VMGPU_TRACE_SM_NONE, 1, 2, 0,
		    VMGPU_TRACE_NONE),
		rec(VMGPU_TRACE_IRQ, 0, VMGPU_TRACE_SM_NONE, 40, 40,
		    VMGPU_TRACE_NONE, VMGPU_TRACE_NONE),
		rec(VMGPU_TRACE_IRQ, 2, VMGPU_TRACE_SM_NONE, 7, 7,
		    VMGPU_TRACE_NONE, VMGPU_TRACE_NONE),
	};
	const uint32_t lane[] = { 0, 1, 0, 2, 0, 0 };
	const size_t n = sizeof(r) / sizeof(r[0]);
	struct vmgpu_trace_record reversed[sizeof(r) / sizeof(r[0])];
	struct vg_trace_layout l, lr;
	char name[64];
	size_t i;

	ASSERT_EQ(0, vg_trace_layout_init(&l, r, n));
	for (i = 0; i < 6; i++) {
		const struct vg_trace_track *t = &l.tracks[l.track_of[i]];

		EXPECT_EQ(VG_TRACE_GROUP_SM, t->group);
		EXPECT_EQ(r[i].sm, t->sm);
		EXPECT_EQ(lane[i], t->lane) TH_LOG("record %zu", i);
	}
	/* GPU 0: CP, CP commands, SM 0 lanes 0-2, SM 1; GPU 2: CP. */
	ASSERT_EQ(7, l.ntracks);
	EXPECT_EQ(0, l.tracks[l.track_of[6]].index);
	EXPECT_EQ(1, l.tracks[l.track_of[7]].index);
	EXPECT_EQ(0, l.tracks[l.track_of[8]].index);
	EXPECT_EQ(2, l.tracks[l.track_of[9]].gpu);
	EXPECT_EQ(0, l.tracks[l.track_of[9]].index);
	EXPECT_EQ(5, l.tracks[l.track_of[5]].index);
	vg_trace_track_name(&l.tracks[l.track_of[3]], name, sizeof(name));
	EXPECT_STREQ("SM 0 / lane 2", name);
	vg_trace_track_name(&l.tracks[l.track_of[7]], name, sizeof(name));
	EXPECT_STREQ("CP commands", name);

	/* The records' order does not move a block to another lane. */
	for (i = 0; i < n; i++)
		reversed[i] = r[n - 1 - i];
	ASSERT_EQ(0, vg_trace_layout_init(&lr, reversed, n));
	for (i = 0; i < n; i++)
		EXPECT_EQ(l.track_of[i], lr.track_of[n - 1 - i]);
	vg_trace_layout_destroy(&lr);
	vg_trace_layout_destroy(&l);
}

TEST(resident_blocks_get_their_own_tracks)
{
	size_t n, len1, len2, i;
	struct vmgpu_trace_record *recs = resident_workload(&n);
	struct vmgpu_trace_record *again;
	unsigned int resident = max_resident(recs, n);
	const char *path = getenv("VMGPU_TRACE_RECORDS");
	char *json, *json2, *svg, *svg2, why[200] = "";
	char lane_name[64];

	/* Without lanes these blocks would overlap on their SM's track. */
	EXPECT_LE(8, resident) TH_LOG("only %u blocks resident at once",
				      resident);
	json = json_of(recs, n);
	ASSERT_NE(NULL, json);
	EXPECT_EQ(0, check_trace_json(json, why, sizeof(why)))
		TH_LOG("%s", why);
	snprintf(lane_name, sizeof(lane_name), "\"SM 1 / lane %u\"",
		 resident - 1);
	EXPECT_NE(NULL, strstr(json, lane_name)) TH_LOG("no %s", lane_name);
	EXPECT_NE(NULL, strstr(json, "\"name\":\"GPU 1\""));

	svg = svg_of(recs, n, &len1);
	ASSERT_NE(NULL, svg);
	EXPECT_EQ(0, check_xml(svg, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_NE(NULL, strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	EXPECT_NE(NULL, strstr(svg, ">GPU 1</text>"));
	EXPECT_GT(200 * 1024, len1);

	/* A second run: the same records, the same bytes. */
	again = resident_workload(&i);
	ASSERT_EQ(n, i);
	EXPECT_EQ(0, memcmp(recs, again, n * sizeof(*recs)));
	json2 = json_of(again, n);
	svg2 = svg_of(again, n, &len2);
	ASSERT_NE(NULL, json2);
	ASSERT_NE(NULL, svg2);
	EXPECT_STREQ(json, json2);
	ASSERT_EQ(len1, len2);
	EXPECT_EQ(0, memcmp(svg, svg2, len1));

	if (path) {
		FILE *f = fopen(path, "wb");
		uint8_t raw[VMGPU_TRACE_RECORD_SIZE];

		ASSERT_NE(NULL, f);
		for (i = 0; i < n; i++) {
			vg_trace_record_encode(&recs[i], raw);
			ASSERT_EQ(1, fwrite(raw, sizeof(raw), 1, f));
		}
		ASSERT_EQ(0, fclose(f));
	}
	free(json);
	free(json2);
	free(svg);
	free(svg2);
	free(again);
	free(recs);
}

/*
 * The demo's trace from a VM run (scripts/check brings it back and names
 * it in VMGPU_DEMO_TRACE): several blocks resident per SM, every rule.
 */
TEST(demo_trace_keeps_the_rules)
{
	const char *path = getenv("VMGPU_DEMO_TRACE");
	char *text, why[200] = "";

	if (!path)
		SKIP(return, "VMGPU_DEMO_TRACE not set (scripts/check sets it)");
	text = th_read_file(path, NULL);
	ASSERT_NE(NULL, text) TH_LOG("%s", path);
	EXPECT_EQ(0, check_trace_json(text, why, sizeof(why)))
		TH_LOG("%s", why);
	EXPECT_NE(NULL, strstr(text, "SM 0 / lane 1"))
		TH_LOG("no SM ran two blocks at once");
	free(text);
}

/*
 * The distributor's trace: each TMD's state changes in order (pending,
 * table, evicted, resumed, done), the slot in each, the resume location,
 * block records with the slot at issue, slot tracks that never overlap,
 * the JSON and SVG within their rules, and the summary's slot table.
 */
TEST(eviction_shows_on_the_slot_tracks)
{
	static const uint32_t want0[] = {
		VMGPU_TRACE_TMD_PENDING, VMGPU_TRACE_TMD_TABLE,
		VMGPU_TRACE_TMD_EVICTED, VMGPU_TRACE_TMD_RESUMED,
		VMGPU_TRACE_TMD_DONE,
	};
	static const uint32_t want1[] = {
		VMGPU_TRACE_TMD_PENDING, VMGPU_TRACE_TMD_TABLE,
		VMGPU_TRACE_TMD_DONE,
	};
	size_t n, i, got[2] = { 0, 0 }, blocks = 0;
	struct vmgpu_trace_record *recs = eviction_workload(&n);
	uint32_t resume_at = 0, seen[16] = { 0 };
	uint64_t evicted_ns = 0, resumed_ns = 0, last_end = 0, prev_end = 0;
	unsigned int stays = 0;
	struct vg_trace_layout l;
	char *json, *svg, *text = NULL, why[200] = "";
	size_t len = 0;
	FILE *f;

	for (i = 0; i < n; i++) {
		const struct vmgpu_trace_record *r = &recs[i];

		if (r->kind == VMGPU_TRACE_TMD) {
			uint32_t d = r->dispatch;

			ASSERT_GT(2, d);
			ASSERT_GT(d ? 3 : 5, got[d]) TH_LOG("d%u: one too many", d);
			EXPECT_EQ(d ? want1[got[d]] : want0[got[d]], r->aux)
				TH_LOG("d%u, state change %zu: %s", d, got[d],
				       vg_trace_tmd_state_name(r->aux));
			/* pending has no slot; then the one slot, 0 */
			EXPECT_EQ(r->aux == VMGPU_TRACE_TMD_PENDING ? 0 : 1,
				  r->wd_slot);
			EXPECT_EQ(d ? 1 : 8, r->value);	/* level */
			EXPECT_EQ(VMGPU_TRACE_SM_NONE, r->sm);
			if (!d && r->aux == VMGPU_TRACE_TMD_EVICTED) {
				resume_at = r->block;
				evicted_ns = r->start_ns;
			}
			if (!d && r->aux == VMGPU_TRACE_TMD_RESUMED) {
				EXPECT_EQ(resume_at, r->block);
				EXPECT_EQ(1, r->value2);	/* evicted once */
				resumed_ns = r->start_ns;
			}
			got[d]++;
		}
		if (vg_trace_end_ns(r) > last_end)
			last_end = vg_trace_end_ns(r);
	}
	EXPECT_EQ(5, got[0]);
	EXPECT_EQ(3, got[1]);
	/* Evicted with blocks left, and resumed later. */
	EXPECT_LT(0, resume_at);
	EXPECT_GT(16, resume_at);
	EXPECT_LT(evicted_ns, resumed_ns);
	for (i = 0; i < n; i++) {
		const struct vmgpu_trace_record *r = &recs[i];

		if (r->kind != VMGPU_TRACE_BLOCK)
			continue;
		EXPECT_EQ(1, r->wd_slot);	/* slot 0 at issue */
		if (r->dispatch == 0) {
			ASSERT_GT(16, r->block);
			seen[r->block]++;
			/* issued after the resume iff past the stop */
			EXPECT_EQ(r->block >= resume_at,
				  r->start_ns >= resumed_ns)
				TH_LOG("block %u at %llu", r->block,
				       (unsigned long long)r->start_ns);
		}
		blocks++;
	}
	EXPECT_EQ(18, blocks);
	for (i = 0; i < 16; i++) {
		EXPECT_EQ(1, seen[i]) TH_LOG("block %zu", i);
	}

	/* The slot's stays, in time order, never overlap. */
	ASSERT_EQ(0, vg_trace_layout_init(&l, recs, n));
	for (i = 0; i < n; i++) {
		if (!vg_trace_slot_entry(&recs[i]))
			continue;
		EXPECT_EQ(VG_TRACE_GROUP_SLOT, l.tracks[l.track_of[i]].group);
		EXPECT_EQ(0, l.tracks[l.track_of[i]].sm);
		EXPECT_LE(prev_end, recs[i].start_ns);
		EXPECT_LE(recs[i].start_ns, l.slot_end[i]);
		EXPECT_GE(last_end, l.slot_end[i]);
		prev_end = l.slot_end[i];
		stays++;
	}
	EXPECT_EQ(3, stays);	/* d0, d1, d0 again */
	vg_trace_layout_destroy(&l);

	json = json_of(recs, n);
	ASSERT_NE(NULL, json);
	EXPECT_EQ(0, check_trace_json(json, why, sizeof(why)))
		TH_LOG("%s", why);
	EXPECT_NE(NULL, strstr(json, "\"name\":\"slot 0\""));
	EXPECT_NE(NULL, strstr(json, "\"name\":\"evicted d0\""));
	EXPECT_NE(NULL, strstr(json, "\"state\":\"resumed\""));
	svg = svg_of(recs, n, NULL);
	ASSERT_NE(NULL, svg);
	EXPECT_EQ(0, check_xml(svg, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_NE(NULL, strstr(svg, ">slot 0</text>"));
	EXPECT_NE(NULL, strstr(svg, "d0 evicted from slot 0 at"));
	EXPECT_NE(NULL, strstr(svg, "d0 in slot 0, resumed at block"));

	f = open_memstream(&text, &len);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, vg_trace_summary_write(recs, n, f));
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "gpu slot occupied_us   occ% entries evictions resumes\n"))
		TH_LOG("%s", text);
	/* slot 0 of GPU 0: three stays, one eviction, one resume */
	EXPECT_NE(NULL, strstr(text, "       3         1       1\n"))
		TH_LOG("%s", text);
	free(text);
	free(svg);
	free(json);
	free(recs);
}

TEST(tmd_records_round_trip_and_convert)
{
	struct vmgpu_trace_record r[] = {
		rec(VMGPU_TRACE_TMD, 0, VMGPU_TRACE_SM_NONE, 10, 10, 3, 0),
		rec(VMGPU_TRACE_TMD, 0, VMGPU_TRACE_SM_NONE, 20, 20, 3, 0),
		rec(VMGPU_TRACE_TMD, 0, VMGPU_TRACE_SM_NONE, 50, 50, 3, 5),
		rec(VMGPU_TRACE_BLOCK, 0, 1, 20, 60, 3, 4),
	};
	uint8_t raw[VMGPU_TRACE_RECORD_SIZE];
	struct vmgpu_trace_record back;
	struct vg_trace_layout l;
	char *json, why[200] = "";

	r[0].aux = VMGPU_TRACE_TMD_PENDING;
	r[1].aux = VMGPU_TRACE_TMD_TABLE;
	r[1].wd_slot = 7;
	r[2].aux = VMGPU_TRACE_TMD_DONE;
	r[2].wd_slot = 7;
	r[3].wd_slot = 7;
	vg_trace_record_encode(&r[1], raw);
	vg_trace_record_decode(raw, &back);
	EXPECT_EQ(0, memcmp(&r[1], &back, sizeof(back)));
	EXPECT_EQ(7, raw[44]);

	ASSERT_EQ(0, vg_trace_layout_init(&l, r, 4));
	/* pending on the CP; table and done on "slot 6"; its stay 20..50 */
	EXPECT_EQ(VG_TRACE_GROUP_CP, l.tracks[l.track_of[0]].group);
	EXPECT_EQ(VG_TRACE_GROUP_SLOT, l.tracks[l.track_of[1]].group);
	EXPECT_EQ(l.track_of[1], l.track_of[2]);
	EXPECT_EQ(6, l.tracks[l.track_of[1]].sm);
	EXPECT_EQ(50, l.slot_end[1]);
	/* slots come before the SMs */
	EXPECT_LT(l.tracks[l.track_of[1]].index,
		  l.tracks[l.track_of[3]].index);
	vg_trace_layout_destroy(&l);
	json = json_of(r, 4);
	ASSERT_NE(NULL, json);
	EXPECT_EQ(0, check_trace_json(json, why, sizeof(why)))
		TH_LOG("%s", why);
	EXPECT_NE(NULL, strstr(json, "\"name\":\"slot 6\""));
	EXPECT_NE(NULL, strstr(json, "\"name\":\"pending d3\""));
	EXPECT_NE(NULL, strstr(json, "\"tmd_slot\":6"));
	free(json);
	/* An old record (wd_slot 0) of a block has no slot argument. */
	r[3].wd_slot = 0;
	json = json_of(&r[3], 1);
	ASSERT_NE(NULL, json);
	EXPECT_EQ(NULL, strstr(json, "tmd_slot"));
	free(json);
}

/* test_device's mixed workload: copies, waits, syncs, two GPUs. */
TEST(recorded_determinism_trace_keeps_the_rules)
{
	char *text = th_read_file(VMGPU_GOLDEN_DIR "/determinism-trace.json",
				  NULL);
	char why[200] = "";

	ASSERT_NE(NULL, text);
	EXPECT_EQ(0, check_trace_json(text, why, sizeof(why)))
		TH_LOG("%s", why);
	EXPECT_NE(NULL, strstr(text, "\"name\":\"WAIT_VALUE\""));
	free(text);
}

TEST(trace_checker_rejects_what_a_viewer_cannot_draw)
{
	static const char meta[] =
		"{\"traceEvents\":["
		"{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,"
		"\"args\":{\"name\":\"GPU 0\"}},"
		"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":1,"
		"\"args\":{\"name\":\"SM 0\"}},"
		"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":2,"
		"\"args\":{\"name\":\"SM 0 / lane 1\"}},";
	static const struct {
		const char *events, *expect;	/* expect NULL: accepted */
	} cases[] = {
		/* two blocks overlapping on one track: the old converter */
		{ "{\"name\":\"d0 b0\",\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":1.000,\"dur\":2.000},"
		  "{\"name\":\"d0 b1\",\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":2.500,\"dur\":2.000}",
		  "overlap" },
		/* one inside the other is an overlap too */
		{ "{\"name\":\"d0 b0\",\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":1.000,\"dur\":5.000},"
		  "{\"name\":\"d0 b1\",\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":1.000,\"dur\":2.000}",
		  "overlap" },
		/* the same two on two lanes */
		{ "{\"name\":\"d0 b0\",\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":1.000,\"dur\":2.000},"
		  "{\"name\":\"d0 b1\",\"ph\":\"X\",\"pid\":0,\"tid\":2,\"ts\":2.500,\"dur\":2.000}",
		  NULL },
		/* back to back on one lane */
		{ "{\"name\":\"d0 b0\",\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":1.000,\"dur\":1.500},"
		  "{\"name\":\"d0 b1\",\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":2.500,\"dur\":2.000}",
		  NULL },
		{ "{\"name\":\"d0 b0\",\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":1.000}",
		  "without dur" },
		{ "{\"name\":\"d0 b0\",\"ph\":\"X\",\"pid\":0,\"ts\":1.000,\"dur\":1}",
		  "lacks" },
		{ "{\"name\":\"d0 b0\",\"ph\":\"X\",\"pid\":0,\"tid\":3,\"ts\":1.000,\"dur\":1}",
		  "thread_name" },
		{ "{\"name\":\"dispatch 0\",\"cat\":\"dispatch\",\"ph\":\"b\",\"id\":\"a\",\"pid\":0,\"tid\":0,\"ts\":1}",
		  "one begin and one end" },
		{ "{\"name\":\"dispatch 0\",\"cat\":\"dispatch\",\"ph\":\"b\",\"id\":\"a\",\"pid\":0,\"tid\":0,\"ts\":1},"
		  "{\"name\":\"dispatch 0\",\"cat\":\"dispatch\",\"ph\":\"e\",\"id\":\"a\",\"pid\":0,\"tid\":0,\"ts\":0.5}",
		  "end before begin" },
		{ "{\"name\":\"dispatch 0\",\"cat\":\"dispatch\",\"ph\":\"b\",\"id\":\"a\",\"pid\":0,\"tid\":0,\"ts\":1},"
		  "{\"name\":\"dispatch 0\",\"cat\":\"dispatch\",\"ph\":\"e\",\"id\":\"a\",\"pid\":0,\"tid\":0,\"ts\":2},"
		  "{\"name\":\"dispatch 1\",\"cat\":\"dispatch\",\"ph\":\"b\",\"id\":\"a\",\"pid\":0,\"tid\":0,\"ts\":1.5},"
		  "{\"name\":\"dispatch 1\",\"cat\":\"dispatch\",\"ph\":\"e\",\"id\":\"a\",\"pid\":0,\"tid\":0,\"ts\":3}",
		  "one begin and one end" },
		{ "{\"name\":\"dispatch 0\",\"cat\":\"dispatch\",\"ph\":\"e\",\"pid\":0,\"tid\":0,\"ts\":1}",
		  "without cat or id" },
		{ "{\"name\":\"irq\",\"ph\":\"i\",\"s\":\"x\",\"pid\":0,\"tid\":0,\"ts\":1}",
		  "scope" },
		{ "{\"name\":\"irq\",\"ph\":\"i\",\"s\":\"t\",\"pid\":0,\"tid\":0,\"ts\":01}",
		  "not JSON" },
		{ "{\"name\":\"irq\",\"ph\":\"i\",\"s\":\"t\",\"pid\":0,\"tid\":0,\"ts\":1},",
		  "not JSON" },
	};
	char text[2048], why[200];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;

		snprintf(text, sizeof(text), "%s%s]}", meta, cases[i].events);
		why[0] = 0;
		ret = check_trace_json(text, why, sizeof(why));
		if (!cases[i].expect) {
			EXPECT_EQ(0, ret) TH_LOG("case %zu: %s", i, why);
		} else {
			EXPECT_EQ(-1, ret) TH_LOG("case %zu accepted", i);
			EXPECT_NE(NULL, strstr(why, cases[i].expect))
				TH_LOG("case %zu: \"%s\", not \"%s\"", i, why,
				       cases[i].expect);
		}
	}
}

TEST(xml_checker_rejects_malformed_svg)
{
	static const struct {
		const char *text, *expect;	/* expect NULL: accepted */
	} cases[] = {
		{ "<?xml version=\"1.0\"?>\n<svg a=\"1\" b='x &amp; y'><g><rect/>"
		  "<text>a &lt; b &#38; c &#x26;</text></g><!-- <b> --></svg>\n",
		  NULL },
		{ "<svg><g></svg>", "does not match" },
		{ "<svg><g>", "never closed" },
		{ "<svg></svg><svg></svg>", "second root" },
		{ "<svg width=100></svg>", "not quoted" },
		{ "<svg width></svg>", "without value" },
		{ "<svg a=\"1\" a=\"2\"></svg>", "repeated" },
		{ "<svg a=\"1\"b=\"2\"></svg>", "separated" },
		{ "<svg><text>a & b</text></svg>", "bare '&' in text" },
		{ "<svg><text a=\"x & y\"/></svg>", "bare '&' in attribute" },
		{ "<svg><text a=\"x < y\"/></svg>", "'<'" },
		{ "<svg><text>a < b</text></svg>", "bad tag" },
		{ "<svg><!-- open </svg>", "unterminated comment" },
		{ "junk<svg/>", "outside the root" },
	};
	char why[200];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;

		why[0] = 0;
		ret = check_xml(cases[i].text, why, sizeof(why));
		if (!cases[i].expect) {
			EXPECT_EQ(0, ret) TH_LOG("case %zu: %s", i, why);
		} else {
			EXPECT_EQ(-1, ret) TH_LOG("case %zu accepted", i);
			EXPECT_NE(NULL, strstr(why, cases[i].expect))
				TH_LOG("case %zu: \"%s\", not \"%s\"", i, why,
				       cases[i].expect);
		}
	}
}

TEST(svg_of_no_records_and_of_every_kind_is_well_formed)
{
	struct vmgpu_trace_record r[] = {
		rec(VMGPU_TRACE_PACKET, 1, VMGPU_TRACE_SM_NONE, 100, 900,
		    VMGPU_TRACE_NONE, VMGPU_TRACE_NONE),
		rec(VMGPU_TRACE_CMD, 1, VMGPU_TRACE_SM_NONE, 100, 200, 0,
		    VMGPU_TRACE_NONE),
		rec(VMGPU_TRACE_DISPATCH, 1, VMGPU_TRACE_SM_NONE, 200, 800, 0,
		    VMGPU_TRACE_NONE),
		rec(VMGPU_TRACE_BLOCK, 1, 3, 200, 800, 0, 0),
		rec(VMGPU_TRACE_BLOCK, 1, 3, 200, 200, 70, 1),
		rec(VMGPU_TRACE_ERROR, 1, VMGPU_TRACE_SM_NONE, 500, 500, 0,
		    VMGPU_TRACE_NONE),
		rec(VMGPU_TRACE_IRQ, 1, VMGPU_TRACE_SM_NONE, 900, 900,
		    VMGPU_TRACE_NONE, VMGPU_TRACE_NONE),
		rec(42, 1, VMGPU_TRACE_SM_NONE, 950, 950, VMGPU_TRACE_NONE,
		    VMGPU_TRACE_NONE),
	};
	char *svg, *json, why[200] = "";

	r[4].aux = VMGPU_FAULT_UNMAPPED;
	r[5].aux = VMGPU_FAULT_UNMAPPED;
	svg = svg_of(r, 0, NULL);
	ASSERT_NE(NULL, svg);
	EXPECT_EQ(0, check_xml(svg, why, sizeof(why))) TH_LOG("%s", why);
	free(svg);
	json = json_of(r, 0);
	ASSERT_NE(NULL, json);
	EXPECT_EQ(0, check_trace_json(json, why, sizeof(why)))
		TH_LOG("%s", why);
	free(json);

	svg = svg_of(r, sizeof(r) / sizeof(r[0]), NULL);
	ASSERT_NE(NULL, svg);
	EXPECT_EQ(0, check_xml(svg, why, sizeof(why))) TH_LOG("%s", why);
	/* An empty span holds no lane: it comes first and leaves lane 0. */
	EXPECT_NE(NULL, strstr(svg, "d0 b0, SM 3 lane 0"));
	EXPECT_NE(NULL, strstr(svg, "d70 b1, SM 3 lane 0"));
	EXPECT_NE(NULL, strstr(svg, "interrupt"));
	EXPECT_NE(NULL, strstr(svg, "error unmapped at 0.500 us"));
	free(svg);
	json = json_of(r, sizeof(r) / sizeof(r[0]));
	ASSERT_NE(NULL, json);
	EXPECT_EQ(0, check_trace_json(json, why, sizeof(why)))
		TH_LOG("%s", why);
	free(json);
}

/* A command added to the table is named in the JSON without more work. */
TEST(every_command_of_the_table_is_named)
{
#define NAME_OF(name, code, type) { code, "\"name\":\"" #name "\"" },
	static const struct {
		uint32_t op;
		const char *json;
	} cmds[] = { VMGPU_CMD_TABLE(NAME_OF) };
#undef NAME_OF
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct vmgpu_trace_record r = rec(VMGPU_TRACE_CMD, 0,
						  VMGPU_TRACE_SM_NONE, 1, 2,
						  VMGPU_TRACE_NONE,
						  VMGPU_TRACE_NONE);
		char *json;

		r.aux = cmds[i].op;
		json = json_of(&r, 1);
		ASSERT_NE(NULL, json);
		EXPECT_NE(NULL, strstr(json, cmds[i].json)) TH_LOG("%s", json);
		free(json);
	}
}

TEST(summary_busy_is_the_union_of_packets_over_the_makespan)
{
	struct vmgpu_trace_record r[] = {
		rec(VMGPU_TRACE_PACKET, 0, VMGPU_TRACE_SM_NONE, 100, 200,
		    VMGPU_TRACE_NONE, VMGPU_TRACE_NONE),
		rec(VMGPU_TRACE_PACKET, 0, VMGPU_TRACE_SM_NONE, 150, 300,
		    VMGPU_TRACE_NONE, VMGPU_TRACE_NONE),
		rec(VMGPU_TRACE_PACKET, 0, VMGPU_TRACE_SM_NONE, 400, 500,
		    VMGPU_TRACE_NONE, VMGPU_TRACE_NONE),
		rec(VMGPU_TRACE_DISPATCH, 0, VMGPU_TRACE_SM_NONE, 110, 190, 0,
		    VMGPU_TRACE_NONE),
		rec(VMGPU_TRACE_BLOCK, 0, 0, 110, 190, 0, 0),
		rec(VMGPU_TRACE_BLOCK, 0, 1, 110, 190, 0, 1),
		rec(VMGPU_TRACE_ERROR, 0, VMGPU_TRACE_SM_NONE, 450, 450, 0,
		    VMGPU_TRACE_NONE),
		rec(VMGPU_TRACE_IRQ, 0, VMGPU_TRACE_SM_NONE, 500, 500,
		    VMGPU_TRACE_NONE, VMGPU_TRACE_NONE),
		rec(VMGPU_TRACE_PACKET, 3, VMGPU_TRACE_SM_NONE, 0, 50,
		    VMGPU_TRACE_NONE, VMGPU_TRACE_NONE),
	};
	struct vg_trace_summary s;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	ASSERT_EQ(0, vg_trace_summarize(r, sizeof(r) / sizeof(r[0]), &s));
	EXPECT_EQ(0, s.first_ns);
	EXPECT_EQ(500, s.last_ns);
	EXPECT_EQ(2, s.gpus);
	EXPECT_EQ(300, s.gpu[0].busy_ns);	/* 100..300 and 400..500 */
	EXPECT_EQ(3, s.gpu[0].packets);
	EXPECT_EQ(1, s.gpu[0].dispatches);
	EXPECT_EQ(2, s.gpu[0].blocks);
	EXPECT_EQ(1, s.gpu[0].errors);
	EXPECT_EQ(1, s.gpu[0].irqs);
	EXPECT_EQ(100, s.gpu[0].first_ns);
	EXPECT_EQ(50, s.gpu[3].busy_ns);
	EXPECT_EQ(0, s.gpu[1].records);

	f = open_memstream(&text, &len);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, vg_trace_summary_write(r, sizeof(r) / sizeof(r[0]), f));
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "makespan 0.500 us"));
	/* GPU 0: 60 % busy, 0.3 us, span 0.4 us, 3 packets, 1, 2, 1, 1 */
	EXPECT_NE(NULL, strstr(text, "  0   60.0       0.300       0.400       3          1       2      1     1\n"))
		TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "  3   10.0 "));
	free(text);
}

TEST_HARNESS_MAIN
