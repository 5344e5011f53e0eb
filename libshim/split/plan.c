// SPDX-License-Identifier: MIT
/*
 * The multi-GPU splitter's planner (plan.h): the policy of SPEC R, which
 * GPU runs what, in which order, what it waits for and which pixels move.
 *
 * Units: the index space (blocks) is cut into portions (a grid, portion i
 * on GPU i % gpus); a portion is one signalled unit in modes a-c, and is
 * cut into regions, each its own unit and dispatch, in mode d. The table
 * is made of sections of one entry per unit (entry section * U + u):
 * section k, "kernel k wrote u"; section K + k, "u of kernel k reached
 * the GPUs that read it" (push); section (2 + g) * K + k, "what GPU g's
 * kernel k reads of u has reached GPU g" (prefetch), K kernels.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "vmgpu/split.h"

#define NONE UINT32_MAX

static int reject(const char **why, int err, const char *text)
{
	*why = text;
	return err;
}

uint32_t split_portion_gpu(const struct split_plan *p, uint32_t px,
			   uint32_t py)
{
	return (px + p->g.portions[0] * py) % p->g.gpus;
}

static uint32_t num_units(const struct split_plan *p)
{
	return p->units[0] * p->units[1];
}

/* Table sections (entry section * units + u). */
static uint32_t sec_pushed(const struct split_plan *p, uint32_t k)
{
	return p->g.num_kernels + k;
}

static uint32_t sec_fetched(const struct split_plan *p, uint32_t gpu,
			    uint32_t k)
{
	return (2 + gpu) * p->g.num_kernels + k;
}

int split_all_shared(const struct split_geom *g)
{
	return g->allocation == VMGPU_SPLIT_DYNAMIC ||
	       g->movement == VMGPU_MOVE_REMOTE ||
	       g->movement == VMGPU_MOVE_HYBRID;
}

static int push_op(struct split_plan *p, uint32_t gpu,
		   const struct split_op *op)
{
	if (p->nops[gpu] == p->cap[gpu]) {
		uint32_t cap = p->cap[gpu] ? 2 * p->cap[gpu] : 64;
		struct split_op *n = realloc(p->ops[gpu], cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->ops[gpu] = n;
		p->cap[gpu] = cap;
	}
	p->ops[gpu][p->nops[gpu]++] = *op;
	return 0;
}

/* Pixels of a rectangle of blocks. */
static struct split_rect px_of(const struct split_plan *p,
			       struct split_rect b)
{
	struct split_rect r = {
		b.x * p->g.block[0], b.y * p->g.block[1],
		b.w * p->g.block[0], b.h * p->g.block[1],
	};

	return r;
}

/* @r grown by @rad pixels (VMGPU_SPLIT_WHOLE: all), cut to the image. */
static struct split_rect grow(const struct split_plan *p, struct split_rect r,
			      const uint32_t rad[2])
{
	uint32_t x0 = r.x > rad[0] ? r.x - rad[0] : 0;
	uint32_t y0 = r.y > rad[1] ? r.y - rad[1] : 0;
	uint64_t x1 = (uint64_t)r.x + r.w + rad[0];
	uint64_t y1 = (uint64_t)r.y + r.h + rad[1];
	struct split_rect g;

	if (x1 > p->g.width)
		x1 = p->g.width;
	if (y1 > p->g.height)
		y1 = p->g.height;
	g.x = x0;
	g.y = y0;
	g.w = (uint32_t)x1 - x0;
	g.h = (uint32_t)y1 - y0;
	return g;
}

static int meet(struct split_rect a, struct split_rect b, struct split_rect *o)
{
	uint32_t x0 = a.x > b.x ? a.x : b.x, y0 = a.y > b.y ? a.y : b.y;
	uint32_t x1 = a.x + a.w < b.x + b.w ? a.x + a.w : b.x + b.w;
	uint32_t y1 = a.y + a.h < b.y + b.h ? a.y + a.h : b.y + b.h;

	if (x0 >= x1 || y0 >= y1)
		return 0;
	o->x = x0;
	o->y = y0;
	o->w = x1 - x0;
	o->h = y1 - y0;
	return 1;
}

/* Blocks of unit @u (linear in the unit grid). */
static struct split_rect unit_blocks(const struct split_plan *p, uint32_t u)
{
	struct split_rect b = {
		(u % p->units[0]) * p->unit[0], (u / p->units[0]) * p->unit[1],
		p->unit[0], p->unit[1],
	};

	return b;
}

static uint32_t unit_gpu(const struct split_plan *p, uint32_t u)
{
	struct split_rect b = unit_blocks(p, u);
	uint32_t pw = p->blocks[0] / p->g.portions[0];
	uint32_t ph = p->blocks[1] / p->g.portions[1];

	return split_portion_gpu(p, b.x / pw, b.y / ph);
}

static struct split_rect portion_blocks(const struct split_plan *p,
					uint32_t px, uint32_t py)
{
	uint32_t pw = p->blocks[0] / p->g.portions[0];
	uint32_t ph = p->blocks[1] / p->g.portions[1];
	struct split_rect b = { px * pw, py * ph, pw, ph };

	return b;
}

uint32_t split_page_gpu(const struct split_plan *p, uint64_t offset)
{
	uint64_t pixel = (offset & ~(uint64_t)(VMGPU_PAGE_SIZE - 1)) / 4;
	uint32_t x = (uint32_t)(pixel % p->g.width);
	uint32_t y = (uint32_t)(pixel / p->g.width);
	uint32_t pw = p->blocks[0] / p->g.portions[0] * p->g.block[0];
	uint32_t ph = p->blocks[1] / p->g.portions[1] * p->g.block[1];

	if (y >= p->g.height)
		y = p->g.height - 1;
	return split_portion_gpu(p, x / pw, y / ph);
}

/* The largest radius any kernel reads resource @r with (0, 0: unread). */
static void read_radius(const struct split_plan *p, uint32_t r, uint32_t from,
			uint32_t rad[2])
{
	uint32_t k, i;

	rad[0] = rad[1] = 0;
	for (k = from; k < p->g.num_kernels; k++) {
		for (i = 0; i < p->g.k[k].num_reads; i++) {
			if (p->g.k[k].read[i] != r)
				continue;
			if (p->g.k[k].radius[i][0] > rad[0])
				rad[0] = p->g.k[k].radius[i][0];
			if (p->g.k[k].radius[i][1] > rad[1])
				rad[1] = p->g.k[k].radius[i][1];
		}
	}
}

static int is_read_later(const struct split_plan *p, uint32_t r, uint32_t k)
{
	uint32_t j, i;

	for (j = k + 1; j < p->g.num_kernels; j++)
		for (i = 0; i < p->g.k[j].num_reads; i++)
			if (p->g.k[j].read[i] == r)
				return 1;
	return 0;
}

/*
 * Does unit @u's rectangle, grown by the radius later kernels read kernel
 * @k's output with, reach a portion of another GPU?
 */
static int unit_on_boundary(const struct split_plan *p, uint32_t k,
			    uint32_t u)
{
	struct split_rect need, o;
	uint32_t rad[2], px, py, g = unit_gpu(p, u);

	read_radius(p, p->g.k[k].write, k + 1, rad);
	need = grow(p, px_of(p, unit_blocks(p, u)), rad);
	for (py = 0; py < p->g.portions[1]; py++)
		for (px = 0; px < p->g.portions[0]; px++)
			if (split_portion_gpu(p, px, py) != g &&
			    meet(need, px_of(p, portion_blocks(p, px, py)), &o))
				return 1;
	return 0;
}

/* The map a unit of a kernel reading with @rad waits with. */
static struct vmgpu_region_map wait_map(const struct split_plan *p,
					const uint32_t rad[2])
{
	struct vmgpu_region_map m;
	uint32_t i, span;

	memset(&m, 0, sizeof(m));
	if (rad[0] == VMGPU_SPLIT_WHOLE) {
		m.kind = VMGPU_MAP_SUPERSET;	/* all zero: every unit */
		return m;
	}
	m.kind = VMGPU_MAP_IDENTITY;
	m.policy = VMGPU_MAP_IGNORE;
	for (i = 0; i < 2; i++) {
		span = p->unit[i] * p->g.block[i];
		m.v[i] = (int32_t)((rad[i] + span - 1) / span);
		if (m.v[i])
			m.kind = VMGPU_MAP_RADIUS;
	}
	if (m.kind == VMGPU_MAP_IDENTITY)
		m.v[0] = m.v[1] = 0;
	return m;
}

/* A WAIT of unit @u on entries of table section @section (map unset). */
static void wait_op(const struct split_plan *p, struct split_op *op,
		    uint32_t section, uint32_t u)
{
	memset(op, 0, sizeof(*op));
	op->kind = SPLIT_OP_WAIT;
	op->index = section * p->units[0] * p->units[1];
	op->grid[0] = p->units[0];
	op->grid[1] = p->units[1];
	op->first[0] = u % p->units[0];
	op->first[1] = u / p->units[0];
}

/* Every entry of kernel @k's section: the barrier of modes a and b. */
static int op_wait_all(struct split_plan *p, uint32_t gpu, uint32_t k)
{
	struct split_op op;

	wait_op(p, &op, k, 0);
	op.map.kind = VMGPU_MAP_SUPERSET;
	return push_op(p, gpu, &op);
}

/*
 * Already copied into this GPU's copy of @r, in this chain? Copies of one
 * rectangle from one GPU are made once.
 */
struct copied {
	uint32_t n, cap;
	struct {
		uint32_t resource, src, dst;
		struct split_rect rect;
	} *c;
};

static int copied_before(const struct copied *seen, uint32_t r, uint32_t src,
			 uint32_t dst, struct split_rect rect)
{
	uint32_t i;

	for (i = 0; i < seen->n; i++)
		if (seen->c[i].resource == r && seen->c[i].src == src &&
		    seen->c[i].dst == dst && !memcmp(&seen->c[i].rect, &rect,
						     sizeof(rect)))
			return 1;
	return 0;
}

static int remember_copy(struct copied *seen, uint32_t r, uint32_t src,
			 uint32_t dst, struct split_rect rect)
{
	if (seen->n == seen->cap) {
		uint32_t cap = seen->cap ? 2 * seen->cap : 64;
		void *n = realloc(seen->c, cap * sizeof(*seen->c));

		if (!n)
			return -ENOMEM;
		seen->c = n;
		seen->cap = cap;
	}
	seen->c[seen->n].resource = r;
	seen->c[seen->n].src = src;
	seen->c[seen->n].dst = dst;
	seen->c[seen->n].rect = rect;
	seen->n++;
	return 0;
}

/*
 * A copy on @gpu of @rect of @r from @src's buffer to @dst's: a COPY, or
 * with @after not SPLIT_NO_ENTRY a COPY_ASYNC after that entry (it
 * signals nothing; the caller sets the last copy of a unit to).
 */
static int copy_op(struct split_plan *p, uint32_t gpu, uint32_t r,
		   uint32_t src, uint32_t dst, struct split_rect rect,
		   uint32_t after, int replicate)
{
	struct split_op op;

	memset(&op, 0, sizeof(op));
	op.kind = SPLIT_OP_COPY;
	op.resource = r;
	op.src_gpu = src;
	op.dst_gpu = dst;
	op.rect = rect;
	op.async = after != SPLIT_NO_ENTRY;
	op.replicate = (uint8_t)replicate;
	op.after = after;
	op.signal = SPLIT_NO_ENTRY;
	return push_op(p, gpu, &op);
}

static int copy_once(struct split_plan *p, struct copied *seen, uint32_t gpu,
		     uint32_t r, uint32_t src, uint32_t dst,
		     struct split_rect rect)
{
	int ret;

	if (copied_before(seen, r, src, dst, rect))
		return 0;
	ret = remember_copy(seen, r, src, dst, rect);
	if (ret)
		return ret;
	return copy_op(p, gpu, r, src, dst, rect, SPLIT_NO_ENTRY, 0);
}

/* Pull into @gpu what @need of per-GPU resource @r other GPUs hold. */
static int pull(struct split_plan *p, struct copied *seen, uint32_t gpu,
		uint32_t r, struct split_rect need)
{
	struct split_rect o;
	uint32_t px, py, owner;
	int ret;

	if (p->g.shared[r] || p->writer[r] == NONE)
		return 0;
	for (py = 0; py < p->g.portions[1]; py++) {
		for (px = 0; px < p->g.portions[0]; px++) {
			owner = split_portion_gpu(p, px, py);
			if (owner == gpu ||
			    !meet(need, px_of(p, portion_blocks(p, px, py)), &o))
				continue;
			ret = copy_once(p, seen, gpu, r, owner, gpu, o);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int op_dispatch(struct split_plan *p, uint32_t gpu, uint32_t k,
		       struct split_rect blocks, int signal)
{
	struct split_op op;
	int ret;

	memset(&op, 0, sizeof(op));
	if (signal) {
		/* One region: the unit this dispatch is. */
		op.kind = SPLIT_OP_SIGNAL;
		op.dispatch = p->dispatches[gpu];
		op.index = k * p->units[0] * p->units[1];
		op.region[0] = p->unit[0];
		op.region[1] = p->unit[1];
		ret = push_op(p, gpu, &op);
		if (ret)
			return ret;
		memset(&op, 0, sizeof(op));
	}
	op.kind = SPLIT_OP_DISPATCH;
	op.kernel = k;
	op.blocks = blocks;
	p->dispatches[gpu]++;
	return push_op(p, gpu, &op);
}

static int op_simple(struct split_plan *p, uint32_t gpu, uint32_t kind,
		     uint32_t index)
{
	struct split_op op;

	memset(&op, 0, sizeof(op));
	op.kind = kind;
	op.index = index;
	return push_op(p, gpu, &op);
}

/*
 * Modes a and b for kernel @k on @gpu: its portions (b: interior first,
 * the halo of what it reads copied meanwhile, then the rim), a BARRIER,
 * the portions' entries marked, then the wait for every GPU's portions.
 */
static int plan_barrier_kernel(struct split_plan *p, struct copied *seen,
			       uint32_t gpu, uint32_t k)
{
	uint32_t px, py, i, rad[2] = { 0, 0 }, bx, by;
	uint32_t units = p->units[0] * p->units[1];
	int ret;

	for (i = 0; i < p->g.k[k].num_reads; i++) {
		uint32_t r = p->g.k[k].read[i];

		if (p->g.shared[r] || p->writer[r] == NONE)
			continue;
		if (p->g.k[k].radius[i][0] > rad[0])
			rad[0] = p->g.k[k].radius[i][0];
		if (p->g.k[k].radius[i][1] > rad[1])
			rad[1] = p->g.k[k].radius[i][1];
	}
	/* Blocks of the rim whose pixels read another portion's (whole). */
	bx = (uint32_t)(((uint64_t)rad[0] + p->g.block[0] - 1) / p->g.block[0]);
	by = (uint32_t)(((uint64_t)rad[1] + p->g.block[1] - 1) / p->g.block[1]);
	for (py = 0; py < p->g.portions[1]; py++) {
		for (px = 0; px < p->g.portions[0]; px++) {
			struct split_rect b = portion_blocks(p, px, py), in = b;

			if (split_portion_gpu(p, px, py) != gpu)
				continue;
			if (p->g.mode == VMGPU_SPLIT_OVERLAP && (bx || by) &&
			    b.w > 2ull * bx && b.h > 2ull * by) {
				/* Interior first: it needs nothing copied. */
				in.x += bx;
				in.y += by;
				in.w -= 2 * bx;
				in.h -= 2 * by;
				ret = op_dispatch(p, gpu, k, in, 0);
				for (i = 0; !ret && i < p->g.k[k].num_reads; i++)
					ret = pull(p, seen, gpu, p->g.k[k].read[i],
						   grow(p, px_of(p, b),
							p->g.k[k].radius[i]));
				if (!ret)
					ret = op_dispatch(p, gpu, k,
							  (struct split_rect){
							  b.x, b.y, b.w, by }, 0);
				if (!ret)
					ret = op_dispatch(p, gpu, k,
							  (struct split_rect){
							  b.x, b.y + b.h - by,
							  b.w, by }, 0);
				if (!ret)
					ret = op_dispatch(p, gpu, k,
							  (struct split_rect){
							  b.x, b.y + by, bx,
							  b.h - 2 * by }, 0);
				if (!ret)
					ret = op_dispatch(p, gpu, k,
							  (struct split_rect){
							  b.x + b.w - bx,
							  b.y + by, bx,
							  b.h - 2 * by }, 0);
			} else {
				ret = 0;
				for (i = 0; !ret && i < p->g.k[k].num_reads; i++)
					if (p->g.mode == VMGPU_SPLIT_OVERLAP)
						ret = pull(p, seen, gpu,
							   p->g.k[k].read[i],
							   grow(p, px_of(p, b),
								p->g.k[k].radius[i]));
				if (!ret)
					ret = op_dispatch(p, gpu, k, b, 0);
			}
			if (ret)
				return ret;
		}
	}
	ret = op_simple(p, gpu, SPLIT_OP_BARRIER, 0);
	for (py = 0; !ret && py < p->g.portions[1]; py++)
		for (px = 0; !ret && px < p->g.portions[0]; px++)
			if (split_portion_gpu(p, px, py) == gpu)
				ret = op_simple(p, gpu, SPLIT_OP_MARK,
						k * units + px +
						p->g.portions[0] * py);
	if (!ret && k + 1 < p->g.num_kernels)
		ret = op_wait_all(p, gpu, k);
	/* Mode a: then every other GPU's portions, whole (copy-all). */
	if (!ret && p->g.mode == VMGPU_SPLIT_BARRIER &&
	    is_read_later(p, p->g.k[k].write, k)) {
		struct split_rect all = { 0, 0, p->g.width, p->g.height };

		ret = pull(p, seen, gpu, p->g.k[k].write, all);
	}
	return ret;
}

/* Units whose pixels unit @u reads with @rad: a rectangle of units. */
static struct split_rect read_units(const struct split_plan *p, uint32_t u,
				    const uint32_t rad[2])
{
	struct split_rect px = grow(p, px_of(p, unit_blocks(p, u)), rad), r;
	uint32_t uw = p->unit[0] * p->g.block[0], uh = p->unit[1] * p->g.block[1];

	r.x = px.x / uw;
	r.y = px.y / uh;
	r.w = (px.x + px.w + uw - 1) / uw - r.x;
	r.h = (px.y + px.h + uh - 1) / uh - r.y;
	return r;
}

/* Pull: unit @u waits for the units of kernel @w it reads, by radius. */
static int radius_wait(struct split_plan *p, uint32_t gpu, uint32_t w,
		       uint32_t u, const uint32_t rad[2])
{
	struct split_op op;

	wait_op(p, &op, w, u);
	op.map = wait_map(p, rad);
	return push_op(p, gpu, &op);
}

/*
 * Push and prefetch: unit @u waits, per portion its reads reach, for that
 * box of units: produced (its own GPU's, section @w) or arrived here
 * (another GPU's, section @arrived).
 */
static int arrived_waits(struct split_plan *p, uint32_t gpu, uint32_t w,
			 uint32_t arrived, uint32_t u, const uint32_t rad[2])
{
	struct split_rect need = read_units(p, u, rad), pr, o;
	uint32_t px, py, mine;
	struct split_op op;
	int ret;

	for (py = 0; py < p->g.portions[1]; py++) {
		for (px = 0; px < p->g.portions[0]; px++) {
			pr = portion_blocks(p, px, py);
			pr.x /= p->unit[0];
			pr.y /= p->unit[1];
			pr.w /= p->unit[0];
			pr.h /= p->unit[1];
			if (!meet(need, pr, &o))
				continue;
			mine = split_portion_gpu(p, px, py) == gpu;
			wait_op(p, &op, mine ? w : arrived, u);
			op.map.kind = VMGPU_MAP_SUPERSET;
			op.map.v[0] = (int32_t)o.x;
			op.map.v[1] = (int32_t)o.y;
			op.map.size[0] = o.w;
			op.map.size[1] = o.h;
			op.map.size[2] = 1;
			ret = push_op(p, gpu, &op);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* The last copy queued since op @first, if any, signals entry @index. */
static void signal_last(struct split_plan *p, uint32_t gpu, uint32_t first,
			uint32_t index)
{
	if (p->nops[gpu] > first)
		p->ops[gpu][p->nops[gpu] - 1].signal = index;
}

/*
 * Push: as soon as boundary unit @u of kernel @k is written (its entry),
 * @gpu's copy engine copies what other GPUs read of it into their
 * copies; the last copy marks it pushed.
 */
static int push_unit(struct split_plan *p, uint32_t gpu, uint32_t k,
		     uint32_t u)
{
	struct split_rect mine = px_of(p, unit_blocks(p, u)), o;
	uint32_t rad[2], px, py, owner, first = p->nops[gpu];
	uint32_t r = p->g.k[k].write;
	int ret = 0;

	read_radius(p, r, k + 1, rad);
	for (py = 0; !ret && py < p->g.portions[1]; py++) {
		for (px = 0; !ret && px < p->g.portions[0]; px++) {
			owner = split_portion_gpu(p, px, py);
			if (owner != gpu &&
			    meet(grow(p, px_of(p, portion_blocks(p, px, py)),
				      rad), mine, &o))
				ret = copy_op(p, gpu, r, gpu, owner, o,
						 k * num_units(p) + u, 0);
		}
	}
	signal_last(p, gpu, first, sec_pushed(p, k) * num_units(p) + u);
	return ret;
}

/*
 * Prefetch (R8) and hybrid: at the start of kernel @k, @gpu's copy engine
 * queues, for every unit another GPU writes of what @gpu's portions read,
 * a copy starting as soon as that unit is written: prefetch into @gpu's
 * copy (the last one of a unit marks it fetched for kernel @k), hybrid
 * in place as read replicas (nothing waits for them).
 */
static int plan_fetches(struct split_plan *p, struct copied *seen,
			uint32_t gpu, uint32_t k)
{
	int hybrid = p->g.movement == VMGPU_MOVE_HYBRID;
	uint32_t i, u, px, py, owner, first, r, w;
	struct split_rect mine, o;
	int ret = 0;

	for (i = 0; !ret && i < p->g.k[k].num_reads; i++) {
		r = p->g.k[k].read[i];
		w = p->writer[r];
		if (w == NONE)
			continue;
		for (u = 0; !ret && u < num_units(p); u++) {
			owner = unit_gpu(p, u);
			if (owner == gpu)
				continue;
			mine = px_of(p, unit_blocks(p, u));
			first = p->nops[gpu];
			for (py = 0; !ret && py < p->g.portions[1]; py++) {
				for (px = 0; !ret && px < p->g.portions[0];
				     px++) {
					if (split_portion_gpu(p, px, py) != gpu ||
					    !meet(grow(p, px_of(p, portion_blocks(p, px, py)),
						       p->g.k[k].radius[i]),
						  mine, &o))
						continue;
					if (hybrid && copied_before(seen, r, owner,
								    owner, o))
						continue;
					ret = copy_op(p, gpu, r, owner,
							 hybrid ? owner : gpu, o,
							 w * num_units(p) + u,
							 hybrid);
					if (!ret && hybrid)
						ret = remember_copy(seen, r, owner,
								    owner, o);
				}
			}
			if (!hybrid)
				signal_last(p, gpu, first,
					    sec_fetched(p, gpu, k) * num_units(p) + u);
		}
	}
	return ret;
}

/*
 * Before unit @u of kernel @k runs on @gpu: its waits for what it reads,
 * per the movement, and (pull) the copies of it.
 */
static int unit_waits(struct split_plan *p, struct copied *seen, uint32_t gpu,
		      uint32_t k, uint32_t u)
{
	struct split_rect b = unit_blocks(p, u);
	uint32_t mv = p->g.movement, i;
	int ret = 0;

	for (i = 0; !ret && i < p->g.k[k].num_reads; i++) {
		uint32_t r = p->g.k[k].read[i];
		uint32_t w = p->writer[r];
		const uint32_t *rad = p->g.k[k].radius[i];

		if (w == NONE)
			continue;
		if (mv == VMGPU_MOVE_PUSH && !p->g.shared[r])
			ret = arrived_waits(p, gpu, w, sec_pushed(p, w), u,
					    rad);
		else if (mv == VMGPU_MOVE_PREFETCH && !p->g.shared[r])
			ret = arrived_waits(p, gpu, w, sec_fetched(p, gpu, k),
					    u, rad);
		else
			ret = radius_wait(p, gpu, w, u, rad);
		if (!ret && mv == VMGPU_MOVE_PULL)
			ret = pull(p, seen, gpu, r, grow(p, px_of(p, b), rad));
	}
	return ret;
}

/* Push each boundary unit of @k other GPUs read, once it is issued. */
static int maybe_push(struct split_plan *p, uint32_t gpu, uint32_t k,
		      uint32_t u)
{
	if (p->g.movement != VMGPU_MOVE_PUSH || !unit_on_boundary(p, k, u) ||
	    p->g.shared[p->g.k[k].write] ||
	    !is_read_later(p, p->g.k[k].write, k))
		return 0;
	return push_unit(p, gpu, k, u);
}

static int contains(struct split_rect outer, struct split_rect in)
{
	return in.x >= outer.x && in.y >= outer.y &&
	       in.x + in.w <= outer.x + outer.w &&
	       in.y + in.h <= outer.y + outer.h;
}

/*
 * A draw pass (R9) on @gpu: each of its portions one dispatch, its tiles
 * issued by the device in raster order and signalled unit by unit (rows
 * of tiles) as they complete; before it, the waits of all its units.
 */
static int plan_draw_kernel(struct split_plan *p, struct copied *seen,
			    uint32_t gpu, uint32_t k)
{
	uint32_t px, py, u;
	int ret = 0;

	for (py = 0; !ret && py < p->g.portions[1]; py++) {
		for (px = 0; !ret && px < p->g.portions[0]; px++) {
			struct split_rect b = portion_blocks(p, px, py);

			if (split_portion_gpu(p, px, py) != gpu)
				continue;
			for (u = 0; !ret && u < num_units(p); u++)
				if (contains(b, unit_blocks(p, u)))
					ret = unit_waits(p, seen, gpu, k, u);
			if (!ret)
				ret = op_dispatch(p, gpu, k, b, 1);
			for (u = 0; !ret && u < num_units(p); u++)
				if (contains(b, unit_blocks(p, u)))
					ret = maybe_push(p, gpu, k, u);
		}
	}
	return ret;
}

/*
 * Modes c and d, kernel @k's units on @gpu, boundary units first; a draw
 * pass by portions.
 */
static int plan_dep_kernel(struct split_plan *p, struct copied *seen,
			   uint32_t gpu, uint32_t k)
{
	uint32_t units = num_units(p), pass, u;
	uint32_t mv = p->g.movement;
	int ret = 0;

	if (mv == VMGPU_MOVE_PREFETCH || mv == VMGPU_MOVE_HYBRID)
		ret = plan_fetches(p, seen, gpu, k);
	if (!ret && (p->g.k[k].flags & VMGPU_SPLIT_DRAW))
		return plan_draw_kernel(p, seen, gpu, k);
	for (pass = 0; !ret && pass < 2; pass++) {
		for (u = 0; !ret && u < units; u++) {
			if (unit_gpu(p, u) != gpu ||
			    unit_on_boundary(p, k, u) != !pass)
				continue;
			ret = unit_waits(p, seen, gpu, k, u);
			if (!ret)
				ret = op_dispatch(p, gpu, k, unit_blocks(p, u), 1);
			if (!ret)
				ret = maybe_push(p, gpu, k, u);
		}
	}
	return ret;
}

/*
 * GPU @gpu's curve for dynamic allocation: serpentines over the portion
 * grid from distinct starts, as the design's Figure 14 has them: the
 * corners first (0: top left, 1: bottom right, walking mirrored, 2: top
 * right, 3: bottom left), further GPUs spread along GPU 0's curve.
 */
static struct vmgpu_curve take_curve(const struct split_plan *p, uint32_t gpu)
{
	uint32_t grid[3] = { p->units[0], p->units[1], 1 }, c[3] = { 0, 0, 0 };
	uint32_t n = grid[0] * grid[1];
	struct vmgpu_curve cv;

	memset(&cv, 0, sizeof(cv));
	cv.kind = VMGPU_CURVE_SERPENTINE;
	switch (gpu) {
	case 0:
		break;
	case 1:
		c[0] = grid[0] - 1;
		c[1] = grid[1] - 1;
		cv.flags = VMGPU_CURVE_F_FLIP_X | VMGPU_CURVE_F_FLIP_Y;
		break;
	case 2:
		c[0] = grid[0] - 1;
		cv.flags = VMGPU_CURVE_F_FLIP_X;
		break;
	case 3:
		c[1] = grid[1] - 1;
		cv.flags = VMGPU_CURVE_F_FLIP_Y;
		break;
	default:
		cv.start = vmgpu_curve_at(&cv, grid, NULL, gpu * n / p->g.gpus);
		return cv;
	}
	cv.start = vmgpu_region_linear(grid, c);
	return cv;
}

/* Dynamic allocation: one TAKE per kernel, waiting on what it reads. */
static int plan_take_kernel(struct split_plan *p, uint32_t gpu, uint32_t k)
{
	uint32_t units = p->units[0] * p->units[1], i;
	struct split_op op;

	memset(&op, 0, sizeof(op));
	op.kind = SPLIT_OP_TAKE;
	op.kernel = k;
	op.index = k * units;
	op.dispatch = VMGPU_TAKE_NO_WAIT;	/* the wait section, if any */
	op.grid[0] = p->units[0];
	op.grid[1] = p->units[1];
	op.curve = take_curve(p, gpu);
	for (i = 0; i < p->g.k[k].num_reads; i++) {
		uint32_t w = p->writer[p->g.k[k].read[i]];

		if (w == NONE)
			continue;
		op.dispatch = w * units;
		op.map = wait_map(p, p->g.k[k].radius[i]);
	}
	return push_op(p, gpu, &op);
}

static int check_geom(const struct split_geom *g, const char **why)
{
	uint32_t i, k, written[VMGPU_SPLIT_MAX_RESOURCES] = { 0 };

	if (!g->width || !g->height || !g->block[0] || !g->block[1] ||
	    g->width % g->block[0] || g->height % g->block[1])
		return reject(why, -EINVAL,
			      "image empty or not a whole number of blocks");
	if ((uint64_t)g->block[0] * g->block[1] > VMGPU_MAX_BLOCK_THREADS)
		return reject(why, -EINVAL, "block over 1024 threads");
	if ((uint64_t)g->width * g->height * 4 > (1ull << 32) ||
	    g->width * 4ull > UINT32_MAX)
		return reject(why, -E2BIG, "image over 4 GiB");
	if (!g->num_kernels || g->num_kernels > VMGPU_SPLIT_MAX_KERNELS)
		return reject(why, -EINVAL, "1..VMGPU_SPLIT_MAX_KERNELS kernels");
	if (!g->num_resources || g->num_resources > VMGPU_SPLIT_MAX_RESOURCES)
		return reject(why, -EINVAL,
			      "1..VMGPU_SPLIT_MAX_RESOURCES resources");
	if (!g->gpus || g->gpus > VMGPU_MAX_GPUS)
		return reject(why, -EINVAL, "GPU count out of range");
	if (g->mode >= VMGPU_SPLIT_NUM_MODES || g->movement >= VMGPU_MOVE_NUM)
		return reject(why, -EINVAL, "unknown mode or movement");
	if (g->movement != VMGPU_MOVE_PULL && g->mode != VMGPU_SPLIT_PORTION &&
	    g->mode != VMGPU_SPLIT_REGION)
		return reject(why, -EINVAL,
			      "push, prefetch, remote and hybrid movement need mode PORTION or REGION");
	if (g->allocation > VMGPU_SPLIT_DYNAMIC)
		return reject(why, -EINVAL, "unknown allocation");
	if (g->allocation == VMGPU_SPLIT_DYNAMIC &&
	    (g->mode != VMGPU_SPLIT_PORTION || g->movement != VMGPU_MOVE_PULL))
		return reject(why, -EINVAL,
			      "dynamic allocation needs mode PORTION (and no push)");
	for (k = 0; k < g->num_kernels; k++) {
		if (g->k[k].write >= g->num_resources ||
		    g->k[k].num_reads > VMGPU_SPLIT_MAX_READS)
			return reject(why, -EINVAL,
				      "kernel writes no resource or reads too many");
		if (written[g->k[k].write]++)
			return reject(why, -EINVAL,
				      "a resource written by two kernels");
		if (g->k[k].flags & ~VMGPU_SPLIT_DRAW)
			return reject(why, -EINVAL, "unknown kernel flags");
		if ((g->k[k].flags & VMGPU_SPLIT_DRAW) &&
		    g->allocation == VMGPU_SPLIT_DYNAMIC)
			return reject(why, -EINVAL,
				      "dynamic allocation: no draw passes");
		if (g->allocation == VMGPU_SPLIT_DYNAMIC) {
			uint32_t inchain = 0, j;

			for (i = 0; i < g->k[k].num_reads; i++)
				for (j = 0; j < k; j++)
					inchain += g->k[j].write == g->k[k].read[i];
			if (inchain > 1)
				return reject(why, -EINVAL,
					      "dynamic allocation: a kernel reads two resources of the chain");
		}
		for (i = 0; i < g->k[k].num_reads; i++) {
			if (g->k[k].read[i] >= g->num_resources)
				return reject(why, -EINVAL,
					      "kernel reads an unknown resource");
			if (g->k[k].read[i] == g->k[k].write)
				return reject(why, -EINVAL,
					      "kernel reads what it writes");
			if ((g->k[k].radius[i][0] == VMGPU_SPLIT_WHOLE) !=
			    (g->k[k].radius[i][1] == VMGPU_SPLIT_WHOLE))
				return reject(why, -EINVAL,
					      "a whole read is whole in x and y");
			if (g->k[k].radius[i][0] != VMGPU_SPLIT_WHOLE &&
			    (g->k[k].radius[i][0] > g->block[0] ||
			     g->k[k].radius[i][1] > g->block[1]))
				return reject(why, -EINVAL,
					      "read radius over one block");
			if (g->k[k].radius[i][0] == VMGPU_SPLIT_WHOLE &&
			    g->allocation == VMGPU_SPLIT_DYNAMIC)
				return reject(why, -EINVAL,
					      "dynamic allocation: no whole reads");
		}
	}
	/* A resource read before its writer ran would need a WAR wait. */
	for (k = 0; k < g->num_kernels; k++)
		for (i = 0; i < g->k[k].num_reads; i++) {
			uint32_t j;

			for (j = k; j < g->num_kernels; j++)
				if (g->k[j].write == g->k[k].read[i])
					return reject(why, -EINVAL,
						      "a resource read before the kernel that writes it");
		}
	return 0;
}

int split_plan_build(struct split_plan *p, const struct split_geom *g,
		     const char **why)
{
	uint32_t i, gpu, k, units;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = check_geom(g, why);
	if (ret)
		return ret;
	p->g = *g;
	p->blocks[0] = g->width / g->block[0];
	p->blocks[1] = g->height / g->block[1];
	if (split_all_shared(g)) {
		/*
		 * Any GPU may run any portion, or reads what others wrote
		 * where it was written: every resource is shared.
		 */
		for (i = 0; i < g->num_resources; i++)
			p->g.shared[i] = 1;
	}
	if (g->allocation == VMGPU_SPLIT_DYNAMIC) {
		if (!p->g.portions[0] && !p->g.portions[1]) {
			p->g.portions[0] = p->blocks[0] % 8 ? 1 : 8;
			p->g.portions[1] = p->blocks[1] % 8 ? 1 : 8;
		}
	} else if (!p->g.portions[0] && !p->g.portions[1]) {
		/*
		 * Remote reads: row bands, so that no page holds two GPUs'
		 * pixels (pages live with their writer).
		 */
		p->g.portions[0] = g->gpus % 2 || g->gpus == 2 ||
				   split_all_shared(g) ? 1 : 2;
		p->g.portions[1] = g->gpus / p->g.portions[0];
	}
	for (i = 0; i < 2; i++) {
		if (!p->g.portions[i] || p->blocks[i] % p->g.portions[i])
			return reject(why, -EINVAL,
				      "portion grid does not divide the blocks");
		p->unit[i] = p->blocks[i] / p->g.portions[i];
	}
	if ((uint64_t)p->g.portions[0] * p->g.portions[1] < g->gpus)
		return reject(why, -EINVAL, "fewer portions than GPUs");
	if (g->mode == VMGPU_SPLIT_REGION) {
		if (!p->g.region[0] && !p->g.region[1]) {
			p->g.region[0] = p->unit[0];
			p->g.region[1] = p->unit[1] % 4 ? 1 : p->unit[1] / 4;
		}
		for (i = 0; i < 2; i++) {
			if (!p->g.region[i] || p->unit[i] % p->g.region[i])
				return reject(why, -EINVAL,
					      "region size does not divide a portion");
			p->unit[i] = p->g.region[i];
		}
	}
	p->units[0] = p->blocks[0] / p->unit[0];
	p->units[1] = p->blocks[1] / p->unit[1];
	units = p->units[0] * p->units[1];
	if (units > VMGPU_REGION_MAX_PORTIONS)
		return reject(why, -E2BIG, "over VMGPU_REGION_MAX_PORTIONS units");
	if ((uint64_t)units * g->num_kernels * (2 + g->gpus) > UINT32_MAX / 8)
		return reject(why, -E2BIG, "dependency table over 4 GiB");
	p->entries = units * g->num_kernels * (2 + g->gpus);
	if (g->allocation == VMGPU_SPLIT_DYNAMIC &&
	    (uint64_t)units * g->num_kernels > VMGPU_MAX_TASKS_PER_PACKET)
		return reject(why, -E2BIG,
			      "dynamic allocation: over 1024 portions of all kernels");
	for (i = 0; i < VMGPU_SPLIT_MAX_RESOURCES; i++)
		p->writer[i] = NONE;
	for (k = 0; k < g->num_kernels; k++)
		p->writer[g->k[k].write] = k;

	for (gpu = 0; gpu < g->gpus; gpu++) {
		struct copied seen = { 0 };

		ret = op_simple(p, gpu, SPLIT_OP_TIMESTAMP, 0);
		for (k = 0; !ret && k < g->num_kernels; k++)
			ret = g->allocation == VMGPU_SPLIT_DYNAMIC ?
			      plan_take_kernel(p, gpu, k) :
			      g->mode <= VMGPU_SPLIT_OVERLAP ?
			      plan_barrier_kernel(p, &seen, gpu, k) :
			      plan_dep_kernel(p, &seen, gpu, k);
		if (!ret)
			ret = op_simple(p, gpu, SPLIT_OP_BARRIER, 0);
		if (!ret)
			ret = op_simple(p, gpu, SPLIT_OP_TIMESTAMP, 1);
		free(seen.c);
		if (ret) {
			split_plan_free(p);
			return reject(why, ret, "out of memory");
		}
		if (p->dispatches[gpu] > VMGPU_MAX_DISPATCHES_PER_PACKET) {
			split_plan_free(p);
			return reject(why, -E2BIG,
				      "over 256 dispatches on a GPU: fewer regions");
		}
	}
	return 0;
}

void split_plan_free(struct split_plan *p)
{
	uint32_t i;

	for (i = 0; i < VMGPU_MAX_GPUS; i++) {
		free(p->ops[i]);
		p->ops[i] = NULL;
		p->nops[i] = p->cap[i] = 0;
	}
}

static int emit_op(const struct split_plan *p, uint32_t gpu, uint32_t epoch,
		   const struct split_op *op, const struct split_sink *sink,
		   void *ctx)
{
	uint32_t grid[3], first[3], origin[3], total[3];

	switch (op->kind) {
	case SPLIT_OP_DISPATCH:
		grid[0] = op->blocks.w;
		grid[1] = op->blocks.h;
		grid[2] = 1;
		origin[0] = op->blocks.x;
		origin[1] = op->blocks.y;
		origin[2] = 0;
		total[0] = p->blocks[0];
		total[1] = p->blocks[1];
		total[2] = 1;
		return sink->dispatch(ctx, op->kernel, grid, origin, total);
	case SPLIT_OP_SIGNAL:
		grid[0] = op->region[0];
		grid[1] = op->region[1];
		grid[2] = 1;
		return sink->signal(ctx, op->dispatch, epoch, op->index, grid);
	case SPLIT_OP_WAIT:
		grid[0] = op->grid[0];
		grid[1] = op->grid[1];
		grid[2] = 1;
		first[0] = op->first[0];
		first[1] = op->first[1];
		first[2] = 0;
		return sink->wait(ctx, epoch, op->index, grid, first, &op->map);
	case SPLIT_OP_MARK: {
		uint64_t off = (uint64_t)op->index * VMGPU_DEP_ENTRY_BYTES;
		uint64_t word = vmgpu_dep_pack(epoch, gpu, VMGPU_DEP_READY);
		/* The high word first: the entry is READY once the epoch lands. */
		int ret = sink->table_write(ctx, off + 4, (uint32_t)(word >> 32));

		return ret ? ret : sink->table_write(ctx, off, (uint32_t)word);
	}
	case SPLIT_OP_COPY: {
		uint64_t pitch = (uint64_t)p->g.width * 4;
		uint64_t at = op->rect.y * pitch + op->rect.x * 4ull;
		struct vmgpu_copy_rect r = {
			.src_offset = at, .dst_offset = at,
			.width_bytes = op->rect.w * 4, .height = op->rect.h,
			.src_pitch = (uint32_t)pitch,
			.dst_pitch = (uint32_t)pitch,
		};

		struct split_copy_opts o = {
			.after = op->after, .signal = op->signal,
			.replicate = op->replicate,
		};

		return sink->copy(ctx, op->resource, op->src_gpu, op->dst_gpu,
				  &r, epoch, op->async ? &o : NULL);
	}
	case SPLIT_OP_BARRIER:
		return sink->barrier(ctx);
	case SPLIT_OP_TAKE:
		grid[0] = op->grid[0];
		grid[1] = op->grid[1];
		grid[2] = 1;
		return sink->take(ctx, op->kernel, epoch,
				  SPLIT_TAKE_OFFSET(p, op->kernel), op->index,
				  op->dispatch, SPLIT_TAKE_INFLIGHT, grid,
				  &op->curve,
				  op->dispatch == VMGPU_TAKE_NO_WAIT ? NULL :
				  &op->map);
	default: /* TIMESTAMP */
		return sink->timestamp(ctx, 16ull * gpu + 8 * op->index);
	}
}

int split_plan_emit(const struct split_plan *p, uint32_t gpu, uint32_t epoch,
		    const struct split_sink *sink, void *ctx)
{
	uint32_t i;
	int ret = 0;

	for (i = 0; !ret && i < p->nops[gpu]; i++)
		ret = emit_op(p, gpu, epoch, &p->ops[gpu][i], sink, ctx);
	return ret;
}
