// SPDX-License-Identifier: MIT
/*
 * libvmgpu task graphs: the graph a specification program builds (SPEC
 * T1, T3). Format A is this file's pass API; format B (stream.c) calls
 * the same internal steps. Each executed pass is a pass node with read
 * edges from the resources it imports and write edges to those it
 * exports. When a pass ends, its dependencies on earlier passes follow
 * from program order per resource: read after the last writer (RAW),
 * write after the last writer (WAW) and after every reader since it
 * (WAR). Documentation/taskgraph.rst has the rules.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tg_internal.h"
#include "vmgpu/graph.h"

int vmgpu_graph_create(struct vmgpu_graph **out)
{
	struct vmgpu_graph *g;

	if (!out)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	*out = g;
	if (!g)
		return -ENOMEM;
	pthread_mutex_init(&g->err_lock, NULL);
	return 0;
}

static void free_pass(struct tg_pass *p)
{
	uint32_t i;

	for (i = 0; i < p->ncmds; i++) {
		free(p->cmds[i].args);
		free(p->cmds[i].typed);
	}
	free(p->cmds);
	free(p->name);
	free(p->reads);
	free(p->writes);
	free(p->deps);
}

void tg_drop_open_pass(struct vmgpu_graph *g)
{
	if (!g->open)
		return;
	free_pass(&g->passes[--g->npasses]);
	g->open = false;
}

void vmgpu_graph_reset(struct vmgpu_graph *g)
{
	uint32_t i;

	if (!g)
		return;
	for (i = 0; i < g->npasses; i++)
		free_pass(&g->passes[i]);
	g->npasses = 0;
	g->open = false;
	for (i = 0; i < g->nres; i++) {
		g->res[i].nwriters = 0;
		g->res[i].nreaders = 0;
	}
}

void vmgpu_graph_destroy(struct vmgpu_graph *g)
{
	uint32_t i;

	if (!g)
		return;
	vmgpu_graph_reset(g);
	for (i = 0; i < g->nres; i++) {
		free(g->res[i].name);
		free(g->res[i].readers);
		free(g->res[i].writers);
	}
	free(g->res);
	free(g->passes);
	free(g->costs);
	free(g->prio);
	pthread_mutex_destroy(&g->err_lock);
	free(g);
}

int vmgpu_graph_resource(struct vmgpu_graph *g, const char *name,
			 const struct vmgpu_bo *bo, uint64_t size)
{
	struct tg_resource *r;
	uint32_t i;

	if (!g)
		return -EINVAL;
	if (bo) {
		for (i = 0; i < g->nres; i++)
			if (g->res[i].bo == bo)
				return (int)i;
		if (!size)
			size = bo->size;
		if (size > bo->size)
			return tg_error(g, -EINVAL,
					"resource '%s': %llu bytes, the buffer has %llu",
					name ? name : "",
					(unsigned long long)size,
					(unsigned long long)bo->size);
	}
	if (g->nres >= INT32_MAX)
		return tg_error(g, -E2BIG, "too many resources");
	if (vmgpu_grow((void **)&g->res, &g->cap_res, g->nres + 1,
		    sizeof(*g->res)))
		return tg_error(g, -ENOMEM, "out of memory");
	r = &g->res[g->nres];
	memset(r, 0, sizeof(*r));
	r->name = strdup(name ? name : "");
	if (!r->name)
		return tg_error(g, -ENOMEM, "out of memory");
	r->bo = bo;
	r->size = size;
	return (int)g->nres++;
}

int vmgpu_graph_resource_count(const struct vmgpu_graph *g)
{
	return g ? (int)g->nres : -EINVAL;
}

int vmgpu_dispatch_needs(const void *image, size_t bytes,
			 const struct vmgpu_dispatch_desc *d,
			 struct vmgpu_graph_needs *n)
{
	struct vmgpu_exec_header h = { 0 };
	uint64_t blocks = 1, threads = 1;
	int i;

	if (!d || !n)
		return -EINVAL;
	if (image) {
		if (bytes < sizeof(h))
			return -EINVAL;
		vmgpu_exec_header_read(&h, image);
		if (!vmgpu_exec_header_valid(&h))
			return -EINVAL;
	}
	for (i = 0; i < 3; i++) {
		blocks *= d->grid[i] ? d->grid[i] : 1;
		threads *= d->block[i] ? d->block[i] : 1;
	}
	n->blocks = blocks;
	n->threads = blocks * threads;
	n->regs = n->threads * h.num_regs;
	n->shared_bytes = blocks * ((uint64_t)h.shared_bytes + d->shared_bytes);
	return 0;
}

static struct tg_pass *open_pass(struct vmgpu_graph *g, const char *what)
{
	if (!g->open) {
		tg_error(g, -EINVAL, "%s: no pass begun", what);
		return NULL;
	}
	return &g->passes[g->npasses - 1];
}

int vmgpu_graph_pass_begin(struct vmgpu_graph *g, const char *name)
{
	struct tg_pass *p;

	if (!g)
		return -EINVAL;
	if (g->open)
		return tg_error(g, -EINVAL,
				"pass_begin '%s': pass '%s' not ended",
				name ? name : "", g->passes[g->npasses - 1].name);
	if (g->npasses >= INT32_MAX)
		return tg_error(g, -E2BIG, "too many passes");
	if (vmgpu_grow((void **)&g->passes, &g->cap_passes, g->npasses + 1,
		    sizeof(*g->passes)))
		return tg_error(g, -ENOMEM, "out of memory");
	p = &g->passes[g->npasses];
	memset(p, 0, sizeof(*p));
	p->name = strdup(name ? name : "");
	if (!p->name)
		return tg_error(g, -ENOMEM, "out of memory");
	g->open = true;
	return (int)g->npasses++;
}

/* Insert @v into the sorted set @set of *@n entries (no duplicates). */
static int set_add(uint32_t **set, uint32_t *n, uint32_t v)
{
	uint32_t i, *p;

	for (i = 0; i < *n && (*set)[i] < v; i++)
		;
	if (i < *n && (*set)[i] == v)
		return 0;
	p = realloc(*set, (*n + 1) * sizeof(**set));
	if (!p)
		return -ENOMEM;
	memmove(p + i + 1, p + i, (*n - i) * sizeof(*p));
	p[i] = v;
	*set = p;
	(*n)++;
	return 0;
}

static bool set_has(const uint32_t *set, uint32_t n, uint32_t v)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (set[i] == v)
			return true;
	return false;
}

static int check_res(struct vmgpu_graph *g, const char *what, int r)
{
	if (r < 0 || (uint32_t)r >= g->nres)
		return tg_error(g, -EINVAL, "%s: no resource %d (%u declared)",
				what, r, g->nres);
	return 0;
}

static int pass_io(struct vmgpu_graph *g, int r, bool write)
{
	const char *what = write ? "pass_write" : "pass_read";
	struct tg_pass *p;
	int ret;

	if (!g)
		return -EINVAL;
	p = open_pass(g, what);
	if (!p)
		return -EINVAL;
	ret = check_res(g, what, r);
	if (ret)
		return ret;
	ret = write ? set_add(&p->writes, &p->nwrites, (uint32_t)r) :
		      set_add(&p->reads, &p->nreads, (uint32_t)r);
	return ret ? tg_error(g, ret, "out of memory") : 0;
}

int vmgpu_graph_pass_read(struct vmgpu_graph *g, int resource)
{
	return pass_io(g, resource, false);
}

int vmgpu_graph_pass_write(struct vmgpu_graph *g, int resource)
{
	return pass_io(g, resource, true);
}

int vmgpu_graph_pass_state(struct vmgpu_graph *g, uint32_t key,
			   uint32_t value)
{
	struct tg_pass *p;

	if (!g)
		return -EINVAL;
	p = open_pass(g, "pass_state");
	if (!p)
		return -EINVAL;
	if (key < 1 || key > TG_STATE_KEYS)
		return tg_error(g, -EINVAL, "pass_state: unknown key %u", key);
	p->state_set |= 1u << (key - 1);
	p->state[key - 1] = value;
	return 0;
}

int vmgpu_graph_pass_needs(struct vmgpu_graph *g,
			   const struct vmgpu_graph_needs *needs)
{
	struct tg_pass *p;

	if (!g)
		return -EINVAL;
	p = open_pass(g, "pass_needs");
	if (!p)
		return -EINVAL;
	if (!needs)
		return tg_error(g, -EINVAL, "pass_needs: no needs");
	p->needs_given = true;
	p->needs = *needs;
	return 0;
}

static int add_cmd(struct vmgpu_graph *g, struct tg_pass *p,
		   const struct tg_cmd *c)
{
	struct tg_cmd *n;

	n = realloc(p->cmds, (p->ncmds + 1) * sizeof(*n));
	if (!n)
		return tg_error(g, -ENOMEM, "out of memory");
	p->cmds = n;
	p->cmds[p->ncmds++] = *c;
	return 0;
}

static void needs_max(struct vmgpu_graph_needs *a,
		      const struct vmgpu_graph_needs *b)
{
	if (b->blocks > a->blocks)
		a->blocks = b->blocks;
	if (b->threads > a->threads)
		a->threads = b->threads;
	if (b->regs > a->regs)
		a->regs = b->regs;
	if (b->shared_bytes > a->shared_bytes)
		a->shared_bytes = b->shared_bytes;
}

int vmgpu_graph_pass_dispatch(struct vmgpu_graph *g,
			      const struct vmgpu_dispatch_desc *d)
{
	struct vmgpu_graph_needs n;
	struct tg_cmd c = { .type = TG_CMD_DISPATCH };
	struct tg_pass *p;
	const void *image = NULL;
	size_t bytes = 0;
	int ret;

	if (!g)
		return -EINVAL;
	p = open_pass(g, "pass_dispatch");
	if (!p)
		return -EINVAL;
	if (!d)
		return tg_error(g, -EINVAL, "pass_dispatch: no descriptor");
	if (d->typed_args && d->typed_args->kernel != d->kernel)
		return tg_error(g, -EINVAL,
				"pass_dispatch: arguments made for another kernel");
	if (d->args_bytes && !d->args)
		return tg_error(g, -EINVAL,
				"pass_dispatch: %u argument bytes and no arguments",
				d->args_bytes);
	if (d->kernel && d->kernel->map) {
		image = d->kernel->map;
		bytes = d->kernel->size;
	}
	ret = vmgpu_dispatch_needs(image, bytes, d, &n);
	if (ret)
		return tg_error(g, ret, "pass_dispatch: invalid kernel header");
	c.desc = *d;
	if (d->args_bytes) {
		c.args = malloc(d->args_bytes);
		if (!c.args)
			return tg_error(g, -ENOMEM, "out of memory");
		memcpy(c.args, d->args, d->args_bytes);
		c.desc.args = c.args;
	}
	if (d->typed_args) {
		c.typed = malloc(sizeof(*c.typed));
		if (!c.typed) {
			free(c.args);
			return tg_error(g, -ENOMEM, "out of memory");
		}
		*c.typed = *d->typed_args;
		c.desc.typed_args = c.typed;
	}
	ret = add_cmd(g, p, &c);
	if (ret) {
		free(c.args);
		free(c.typed);
		return ret;
	}
	if (!p->needs_given)
		needs_max(&p->needs, &n);
	return 0;
}

static int check_range(struct vmgpu_graph *g, const char *what, int r,
		       uint64_t offset, uint64_t bytes)
{
	const struct tg_resource *res;
	int ret = check_res(g, what, r);

	if (ret)
		return ret;
	res = &g->res[r];
	if (!bytes || offset > res->size || bytes > res->size - offset)
		return tg_error(g, -EINVAL,
				"%s: %llu bytes at %llu outside resource '%s' (%llu bytes)",
				what, (unsigned long long)bytes,
				(unsigned long long)offset, res->name,
				(unsigned long long)res->size);
	return 0;
}

int vmgpu_graph_pass_copy(struct vmgpu_graph *g, int src, uint64_t src_offset,
			  int dst, uint64_t dst_offset, uint64_t bytes)
{
	struct tg_cmd c = { .type = TG_CMD_COPY };
	struct tg_pass *p;
	int ret;

	if (!g)
		return -EINVAL;
	p = open_pass(g, "pass_copy");
	if (!p)
		return -EINVAL;
	ret = check_range(g, "pass_copy", src, src_offset, bytes);
	if (!ret)
		ret = check_range(g, "pass_copy", dst, dst_offset, bytes);
	if (ret)
		return ret;
	if (bytes > UINT32_MAX)
		return tg_error(g, -EINVAL, "pass_copy: %llu bytes, at most %u",
				(unsigned long long)bytes, UINT32_MAX);
	if (src == dst && src_offset < dst_offset + bytes &&
	    dst_offset < src_offset + bytes)
		return tg_error(g, -EINVAL, "pass_copy: ranges overlap");
	c.src = src;
	c.dst = dst;
	c.src_offset = src_offset;
	c.dst_offset = dst_offset;
	c.bytes = bytes;
	return add_cmd(g, p, &c);
}

int vmgpu_graph_pass_clear(struct vmgpu_graph *g, int resource,
			   uint64_t offset, uint64_t bytes, uint32_t value)
{
	struct tg_cmd c = { .type = TG_CMD_CLEAR };
	struct tg_pass *p;
	int ret;

	if (!g)
		return -EINVAL;
	p = open_pass(g, "pass_clear");
	if (!p)
		return -EINVAL;
	ret = check_range(g, "pass_clear", resource, offset, bytes);
	if (ret)
		return ret;
	if (offset % 4 || bytes % 4)
		return tg_error(g, -EINVAL,
				"pass_clear: offset %llu and size %llu must be multiples of 4",
				(unsigned long long)offset,
				(unsigned long long)bytes);
	c.dst = resource;
	c.dst_offset = offset;
	c.bytes = bytes;
	c.value = value;
	return add_cmd(g, p, &c);
}

static int add_dep(struct tg_pass *p, uint32_t on, uint32_t kind)
{
	struct vmgpu_graph_dep *d;
	uint32_t i;

	for (i = 0; i < p->ndeps; i++) {
		if (p->deps[i].pass == on) {
			p->deps[i].kinds |= kind;
			return 0;
		}
	}
	d = realloc(p->deps, (p->ndeps + 1) * sizeof(*d));
	if (!d)
		return -ENOMEM;
	p->deps = d;
	d[p->ndeps].pass = on;
	d[p->ndeps].kinds = kind;
	p->ndeps++;
	return 0;
}

static int cmp_dep(const void *a, const void *b)
{
	const struct vmgpu_graph_dep *x = a, *y = b;

	return x->pass < y->pass ? -1 : x->pass > y->pass;
}

/*
 * Dependencies of pass @q (the newest) on earlier ones, and the
 * resources' tracking updated: a resource node stands for every version
 * of its data, ordered by program order (no renaming).
 */
/* The dependencies of pass @q on the passes before the resources' state. */
static int pass_deps(struct vmgpu_graph *g, uint32_t q)
{
	struct tg_pass *p = &g->passes[q];
	struct tg_resource *r;
	uint32_t i, j;
	int ret = 0;

	for (i = 0; i < p->nreads && !ret; i++) {
		r = &g->res[p->reads[i]];
		for (j = 0; j < r->nwriters && !ret; j++)
			ret = add_dep(p, r->writers[j], VMGPU_DEP_RAW);
	}
	for (i = 0; i < p->nwrites && !ret; i++) {
		r = &g->res[p->writes[i]];
		for (j = 0; j < r->nwriters && !ret; j++)
			ret = add_dep(p, r->writers[j], VMGPU_DEP_WAW);
		for (j = 0; j < r->nreaders && !ret; j++)
			if (r->readers[j] != q)
				ret = add_dep(p, r->readers[j], VMGPU_DEP_WAR);
	}
	if (ret)
		return ret;
	if (p->ndeps)
		qsort(p->deps, p->ndeps, sizeof(*p->deps), cmp_dep);
	return 0;
}

/*
 * Passes @first..@last (one pass, or the parts of a split one, with the
 * same edges) are the latest: their writes are the resources' versions,
 * their reads readers of them.
 */
static int pass_commit(struct vmgpu_graph *g, uint32_t first, uint32_t last)
{
	struct tg_pass *p = &g->passes[first];
	struct tg_resource *r;
	uint32_t i, q, n = last - first + 1;

	for (i = 0; i < p->nwrites; i++) {
		r = &g->res[p->writes[i]];
		if (vmgpu_grow((void **)&r->writers, &r->cap_writers, n,
			    sizeof(*r->writers)))
			return -ENOMEM;
		for (q = first; q <= last; q++)
			r->writers[q - first] = q;
		r->nwriters = n;
		r->nreaders = 0;
	}
	for (i = 0; i < p->nreads; i++) {
		if (set_has(p->writes, p->nwrites, p->reads[i]))
			continue;
		r = &g->res[p->reads[i]];
		if (vmgpu_grow((void **)&r->readers, &r->cap_readers,
			    r->nreaders + n, sizeof(*r->readers)))
			return -ENOMEM;
		for (q = first; q <= last; q++)
			r->readers[r->nreaders++] = q;
	}
	return 0;
}

int vmgpu_graph_pass_split(struct vmgpu_graph *g, uint32_t max_blocks)
{
	struct tg_pass *p;

	if (!g)
		return -EINVAL;
	p = open_pass(g, "pass_split");
	if (!p)
		return -EINVAL;
	if (!max_blocks)
		return tg_error(g, -EINVAL, "pass_split: 0 blocks per part");
	p->split_blocks = max_blocks;
	return 0;
}

/*
 * Split the open pass @q (one dispatch of more than split_blocks blocks
 * along x) into parts: it keeps the first portion, passes q + 1.. get
 * the others, each with the pass's edges, state and given needs. Returns
 * the number of parts, or -errno with the graph as before.
 */
static int split_pass(struct vmgpu_graph *g, uint32_t q)
{
	struct vmgpu_dispatch_desc d = g->passes[q].cmds[0].desc;
	uint32_t gx = d.grid[0] ? d.grid[0] : 1, chunk, parts, k, i;
	struct vmgpu_graph_needs given = g->passes[q].needs;
	bool needs_given = g->passes[q].needs_given;
	char *name = NULL;
	int ret = 0;

	chunk = g->passes[q].split_blocks;
	parts = (uint32_t)(((uint64_t)gx + chunk - 1) / chunk);
	for (i = 0; i < 3; i++)
		if (!d.grid_total[i])
			d.grid_total[i] = d.origin[i] + (d.grid[i] ? d.grid[i] : 1);
	for (k = 1; k < parts && !ret; k++) {
		struct vmgpu_dispatch_desc part = d;
		struct tg_pass *p = &g->passes[q];
		int at;

		part.origin[0] = d.origin[0] + k * chunk;
		part.grid[0] = gx - k * chunk < chunk ? gx - k * chunk : chunk;
		name = p->name;
		g->open = false;
		at = vmgpu_graph_pass_begin(g, name);
		ret = at < 0 ? at : 0;
		p = &g->passes[q];
		for (i = 0; i < p->nreads && !ret; i++)
			ret = vmgpu_graph_pass_read(g, (int)p->reads[i]);
		for (i = 0; i < p->nwrites && !ret; i++)
			ret = vmgpu_graph_pass_write(g, (int)p->writes[i]);
		for (i = 0; i < TG_STATE_KEYS && !ret; i++)
			if (p->state_set & (1u << i))
				ret = vmgpu_graph_pass_state(g, i + 1,
							     p->state[i]);
		if (!ret && needs_given)
			ret = vmgpu_graph_pass_needs(g, &given);
		if (!ret)
			ret = vmgpu_graph_pass_dispatch(g, &part);
	}
	if (!ret) {
		struct tg_pass *p = &g->passes[q];
		const void *image = NULL;
		size_t bytes = 0;

		p->cmds[0].desc.grid[0] = chunk;
		memcpy(p->cmds[0].desc.grid_total, d.grid_total,
		       sizeof(d.grid_total));
		if (d.kernel && d.kernel->map) {
			image = d.kernel->map;
			bytes = d.kernel->size;
		}
		if (!needs_given)
			ret = vmgpu_dispatch_needs(image, bytes,
						   &p->cmds[0].desc, &p->needs);
	}
	if (ret) {
		while (g->npasses > q + 1) {
			g->open = true;
			tg_drop_open_pass(g);
		}
		g->open = true;
		return ret;
	}
	g->open = true;
	return (int)parts;
}

int vmgpu_graph_pass_end(struct vmgpu_graph *g)
{
	struct tg_pass *p;
	uint32_t i, q, parts;
	int ret;

	if (!g)
		return -EINVAL;
	p = open_pass(g, "pass_end");
	if (!p)
		return -EINVAL;
	/* A copy or clear touches resources: they must be declared. */
	for (i = 0; i < p->ncmds; i++) {
		const struct tg_cmd *c = &p->cmds[i];

		if (c->type == TG_CMD_COPY &&
		    !set_has(p->reads, p->nreads, (uint32_t)c->src) &&
		    !set_has(p->writes, p->nwrites, (uint32_t)c->src))
			return tg_error(g, -EINVAL,
					"pass '%s': copies from resource '%s' it does not read",
					p->name, g->res[c->src].name);
		if (c->type != TG_CMD_DISPATCH &&
		    !set_has(p->writes, p->nwrites, (uint32_t)c->dst))
			return tg_error(g, -EINVAL,
					"pass '%s': %s resource '%s' it does not write",
					p->name,
					c->type == TG_CMD_COPY ? "copies to" :
								 "clears",
					g->res[c->dst].name);
	}
	q = g->npasses - 1;
	parts = 1;
	if (p->split_blocks && p->ncmds == 1 &&
	    p->cmds[0].type == TG_CMD_DISPATCH &&
	    (p->cmds[0].desc.grid[0] ? p->cmds[0].desc.grid[0] : 1) >
		    p->split_blocks) {
		ret = split_pass(g, q);
		if (ret < 0)
			return tg_error(g, ret, "pass '%s': split failed",
					g->passes[q].name);
		parts = (uint32_t)ret;
	} else if (p->split_blocks && (p->ncmds != 1 ||
				       p->cmds[0].type != TG_CMD_DISPATCH)) {
		return tg_error(g, -EINVAL,
				"pass '%s': only a pass of one dispatch splits",
				p->name);
	}
	ret = 0;
	for (i = q; i < q + parts && !ret; i++)
		ret = pass_deps(g, i);
	if (!ret)
		ret = pass_commit(g, q, q + parts - 1);
	for (i = q; i < q + parts && !ret; i++)
		ret = tg_cost_track(g, i);
	if (ret)
		return tg_error(g, ret, "out of memory");
	g->open = false;
	return 0;
}

int vmgpu_graph_pass_count(const struct vmgpu_graph *g)
{
	return g ? (int)g->npasses : -EINVAL;
}

int vmgpu_graph_pass_deps(const struct vmgpu_graph *g, uint32_t pass,
			  struct vmgpu_graph_dep *deps, uint32_t max)
{
	const struct tg_pass *p;
	uint32_t i;

	if (!g || pass >= g->npasses || (max && !deps) ||
	    (g->open && pass == g->npasses - 1))
		return -EINVAL;
	p = &g->passes[pass];
	for (i = 0; i < p->ndeps && i < max; i++)
		deps[i] = p->deps[i];
	return (int)p->ndeps;
}

/* ---- Text dump ---- */

struct strbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_printf(struct strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL,
			      b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
			return;
		}
		if (b->s && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		b->cap = (b->cap + (size_t)n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		if (!b->s) {
			b->oom = true;
			return;
		}
	}
}

static void print_dispatch(struct strbuf *b, const struct tg_cmd *c)
{
	const struct vmgpu_dispatch_desc *d = &c->desc;
	const char *kname = d->kernel ? vmgpu_kernel_name(d->kernel) : NULL;
	const void *args = d->args;
	uint32_t bytes = d->args_bytes;

	if (d->typed_args) {
		args = d->typed_args->block;
		bytes = d->kernel->sig ? d->kernel->sig->args_bytes : 0;
	}
	sb_printf(b,
		  "\tdispatch kernel %s grid %ux%ux%u block %ux%ux%u origin %u,%u,%u total %ux%ux%u shared %u priority %u flags %#x args %u:%08x\n",
		  !d->kernel ? "-" : kname ? kname : "?", d->grid[0],
		  d->grid[1], d->grid[2], d->block[0], d->block[1],
		  d->block[2], d->origin[0], d->origin[1], d->origin[2],
		  d->grid_total[0], d->grid_total[1], d->grid_total[2],
		  d->shared_bytes, d->priority, d->flags, bytes,
		  bytes ? tg_hash(args, bytes) : 0);
}

static const char *const dep_names[] = { "raw", "war", "waw", "stage" };

void tg_print_kinds(char *buf, size_t len, uint32_t kinds)
{
	size_t n = 0;
	uint32_t k;

	buf[0] = 0;
	for (k = 0; k < 4; k++)
		if (kinds & (1u << k))
			n += (size_t)snprintf(buf + n, len > n ? len - n : 0,
					      "%s%s", n ? "+" : "",
					      dep_names[k]);
}

int vmgpu_graph_print(const struct vmgpu_graph *g, char **text)
{
	struct strbuf b = { 0 };
	uint32_t i, j;
	char kinds[32];

	if (!g || !text)
		return -EINVAL;
	for (i = 0; i < g->nres; i++)
		sb_printf(&b, "resource %u \"%s\" %llu %s\n", i, g->res[i].name,
			  (unsigned long long)g->res[i].size,
			  g->res[i].bo ? "buffer" : "transient");
	for (i = 0; i < g->npasses; i++) {
		const struct tg_pass *p = &g->passes[i];

		sb_printf(&b, "pass %u \"%s\"", i, p->name);
		sb_printf(&b, " reads");
		for (j = 0; j < p->nreads; j++)
			sb_printf(&b, " %u", p->reads[j]);
		sb_printf(&b, " writes");
		for (j = 0; j < p->nwrites; j++)
			sb_printf(&b, " %u", p->writes[j]);
		sb_printf(&b, " needs %llu %llu %llu %llu%s",
			  (unsigned long long)p->needs.blocks,
			  (unsigned long long)p->needs.threads,
			  (unsigned long long)p->needs.regs,
			  (unsigned long long)p->needs.shared_bytes,
			  p->needs_given ? " (given)" : "");
		for (j = 0; j < TG_STATE_KEYS; j++)
			if (p->state_set & (1u << j))
				sb_printf(&b, " state %u=%u", j + 1,
					  p->state[j]);
		sb_printf(&b, " after");
		for (j = 0; j < p->ndeps; j++) {
			tg_print_kinds(kinds, sizeof(kinds), p->deps[j].kinds);
			sb_printf(&b, " %u:%s", p->deps[j].pass, kinds);
		}
		sb_printf(&b, "\n");
		for (j = 0; j < p->ncmds; j++) {
			const struct tg_cmd *c = &p->cmds[j];

			if (c->type == TG_CMD_DISPATCH)
				print_dispatch(&b, c);
			else if (c->type == TG_CMD_COPY)
				sb_printf(&b, "\tcopy %d+%llu -> %d+%llu %llu\n",
					  c->src,
					  (unsigned long long)c->src_offset,
					  c->dst,
					  (unsigned long long)c->dst_offset,
					  (unsigned long long)c->bytes);
			else
				sb_printf(&b, "\tclear %d+%llu %llu %#x\n",
					  c->dst,
					  (unsigned long long)c->dst_offset,
					  (unsigned long long)c->bytes,
					  c->value);
		}
	}
	if (!b.s)
		sb_printf(&b, "%s", "");
	if (b.oom) {
		free(b.s);
		return -ENOMEM;
	}
	*text = b.s;
	return 0;
}

/* ---- Shape: what a compiled schedule depends on ---- */

struct wordbuf {
	uint32_t *w;
	uint32_t n, cap;
	bool oom;
};

static void wb_put(struct wordbuf *b, uint32_t v)
{
	if (b->oom)
		return;
	if (vmgpu_grow((void **)&b->w, &b->cap, b->n + 1, sizeof(*b->w))) {
		b->oom = true;
		return;
	}
	b->w[b->n++] = v;
}

static void wb_put64(struct wordbuf *b, uint64_t v)
{
	wb_put(b, (uint32_t)v);
	wb_put(b, (uint32_t)(v >> 32));
}


void tg_state_begin(struct tg_state_track *t, const struct vmgpu_graph *g)
{
	uint32_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < g->npasses; i++)
		t->used |= g->passes[i].state_set;
}

uint32_t tg_state_changes(struct tg_state_track *t,
			  const struct vmgpu_graph *g, uint32_t pass,
			  struct vmgpu_graph_op *ops)
{
	const struct tg_pass *p = &g->passes[pass];
	uint32_t k, v, n = 0;

	for (k = 0; k < TG_STATE_KEYS; k++) {
		if (!(t->used & (1u << k)))
			continue;
		v = p->state_set & (1u << k) ? p->state[k] : 0;
		if ((t->known & (1u << k)) && t->state[k] == v)
			continue;
		ops[n] = (struct vmgpu_graph_op){
			.type = VMGPU_GRAPH_OP_STATE, .pass = pass,
			.key = k + 1, .value = v,
		};
		n++;
		t->known |= 1u << k;
		t->state[k] = v;
	}
	return n;
}
int tg_shape(const struct vmgpu_graph *g, uint32_t **words, size_t *count)
{
	struct wordbuf b = { 0 };
	uint32_t i, j;

	wb_put(&b, g->nres);
	for (i = 0; i < g->nres; i++)
		wb_put64(&b, g->res[i].size);
	wb_put(&b, g->npasses);
	for (i = 0; i < g->npasses; i++) {
		const struct tg_pass *p = &g->passes[i];

		wb_put(&b, p->nreads);
		for (j = 0; j < p->nreads; j++)
			wb_put(&b, p->reads[j]);
		wb_put(&b, p->nwrites);
		for (j = 0; j < p->nwrites; j++)
			wb_put(&b, p->writes[j]);
		wb_put(&b, p->state_set);
		for (j = 0; j < TG_STATE_KEYS; j++)
			wb_put(&b, p->state[j]);
		wb_put64(&b, p->needs.blocks);
		wb_put64(&b, p->needs.threads);
		wb_put64(&b, p->needs.regs);
		wb_put64(&b, p->needs.shared_bytes);
		wb_put(&b, p->ncmds);
		for (j = 0; j < p->ncmds; j++)
			wb_put(&b, p->cmds[j].type);
	}
	if (b.oom) {
		free(b.w);
		return -ENOMEM;
	}
	*words = b.w;
	*count = b.n;
	return 0;
}
