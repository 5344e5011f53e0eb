/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * vmgpu region dependencies (SPEC R): the one definition of
 *
 * - how a consumer portion names the producer entries it waits for: the
 *   mapping functions (R4) and out-of-range policies (R5), encoded in
 *   struct vmgpu_region_map, enumerated by vmgpu_region_map_needs();
 * - a dependency-table entry and its epoch rule (R2): struct
 *   vmgpu_dep_entry, vmgpu_dep_satisfies();
 * - the dynamic allocator (R7): each GPU's space-filling curve (struct
 *   vmgpu_curve) and the shared progress, one take word per portion that
 *   an atomic exchange claims (vmgpu_alloc_next()).
 *
 * Used by the device model, the driver if it needs to, the library and
 * the tests. Everything in memory is little-endian and fixed-width, as in
 * vmgpu_hw.h; the functions are pure (memory is read by the caller and
 * passed in, atomics are the caller's). Documentation/regions.rst
 * explains every rule with the worked examples the host tests check.
 */
#ifndef _VMGPU_REGION_H_
#define _VMGPU_REGION_H_

#include "vmgpu_hw.h"

#if defined(__KERNEL__)
#include <linux/types.h>
typedef __s16 vmgpu_s16;
typedef __s32 vmgpu_s32;
typedef __s64 vmgpu_s64;
#else
#include <stdint.h>
typedef int16_t vmgpu_s16;
typedef int32_t vmgpu_s32;
typedef int64_t vmgpu_s64;
#endif

/* ------------------------------------------------------------------ */
/* Portion grids                                                        */
/* ------------------------------------------------------------------ */

/*
 * A kernel's index space is split into a grid of portions, 1-3 D: grid[3]
 * portions per dimension, unused dimensions 1. A portion's linear index is
 * x + grid[0] * (y + grid[1] * z); tables are indexed by it.
 */
#define VMGPU_REGION_MAX_GRID_DIM	32767	/* fits a table entry's s16 */
#define VMGPU_REGION_MAX_PORTIONS	65536	/* grid[0] * grid[1] * grid[2] */
#define VMGPU_PORTION_NONE		0xffffffffu

enum vmgpu_region_verdict {
	VMGPU_REGION_OK = 0,
	VMGPU_REGION_ILLEGAL,		/* malformed encoding */
	VMGPU_REGION_TOO_MANY,		/* over a bound */
};

/* Say why, and return the verdict. */
static inline enum vmgpu_region_verdict
vmgpu_region_reject(const char **why, enum vmgpu_region_verdict v,
		    const char *text)
{
	*why = text;
	return v;
}

/* A little-endian 16- or 32-bit value at @p, any alignment. */
static inline vmgpu_u16 vmgpu_region_ld16(const void *p)
{
	const vmgpu_u8 *b = (const vmgpu_u8 *)p;

	return (vmgpu_u16)(b[0] | b[1] << 8);
}

static inline vmgpu_u32 vmgpu_region_ld32(const void *p)
{
	const vmgpu_u8 *b = (const vmgpu_u8 *)p;

	return b[0] | b[1] << 8 | b[2] << 16 | (vmgpu_u32)b[3] << 24;
}

static inline vmgpu_u64 vmgpu_region_ld64(const void *p)
{
	const vmgpu_u8 *b = (const vmgpu_u8 *)p;

	return vmgpu_region_ld32(b) | (vmgpu_u64)vmgpu_region_ld32(b + 4) << 32;
}

/* Portions of @grid, 0 if it is not a valid grid. */
static inline vmgpu_u32 vmgpu_region_portions(const vmgpu_u32 grid[3])
{
	vmgpu_u64 n = 1;
	int i;

	for (i = 0; i < 3; i++) {
		if (!grid[i] || grid[i] > VMGPU_REGION_MAX_GRID_DIM)
			return 0;
		n *= grid[i];
	}
	return n > VMGPU_REGION_MAX_PORTIONS ? 0 : (vmgpu_u32)n;
}

static inline enum vmgpu_region_verdict
vmgpu_region_grid_check(const vmgpu_u32 grid[3], const char **why)
{
	int i;

	for (i = 0; i < 3; i++) {
		if (!grid[i])
			return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
						   "zero portion-grid dimension");
		if (grid[i] > VMGPU_REGION_MAX_GRID_DIM)
			return vmgpu_region_reject(why, VMGPU_REGION_TOO_MANY,
						   "portion-grid dimension over VMGPU_REGION_MAX_GRID_DIM");
	}
	if (!vmgpu_region_portions(grid))
		return vmgpu_region_reject(why, VMGPU_REGION_TOO_MANY,
					   "portion grid over VMGPU_REGION_MAX_PORTIONS");
	return VMGPU_REGION_OK;
}

/* Linear index of portion @p of @grid (p inside the grid). */
static inline vmgpu_u32 vmgpu_region_linear(const vmgpu_u32 grid[3],
					    const vmgpu_u32 p[3])
{
	return p[0] + grid[0] * (p[1] + grid[1] * p[2]);
}

/* Coordinates @p of linear index @lin of @grid. */
static inline void vmgpu_region_coords(const vmgpu_u32 grid[3],
				       vmgpu_u32 lin, vmgpu_u32 p[3])
{
	p[0] = lin % grid[0];
	lin /= grid[0];
	p[1] = lin % grid[1];
	p[2] = lin / grid[1];
}

/* ------------------------------------------------------------------ */
/* Mapping functions and out-of-range policies (R4, R5)                  */
/* ------------------------------------------------------------------ */

/*
 * Which producer portions consumer portion c (of the consumer's grid)
 * needs, per kernel and per resource. 40 bytes, little-endian. A kind
 * gives a set of producer coordinates, possibly outside the producer's
 * grid; the policy then clamps, wraps or drops each one outside it.
 *
 * IDENTITY	c. v, size zero.
 * OFFSET	c + v (v = dx, dy, dz; negative: up/left/front). size zero.
 * RADIUS	the box c - v .. c + v, v = radius per dimension (0 in unused
 *		dimensions): radius 1 in 2-D is v = (1, 1, 0), 3 x 3 entries.
 * DOWNSAMPLE	the consumer reads the producer at 2^k times its resolution:
 *		the box c * 2^k .. c * 2^k + 2^k - 1, v = k per dimension
 *		(0: not scaled in that dimension). 2x in 2-D: v = (1, 1, 0).
 * SUPERSET	a box of the producer's grid whatever c: origin v, size[3];
 *		v and size all zero: the whole producer grid.
 * TABLE	any function: table_count entries per consumer portion, in a
 *		table in GPU memory at table_va (struct vmgpu_region_table_entry,
 *		row of consumer portion c at vmgpu_region_table_row_va()).
 *
 * Every kind gives at most VMGPU_MAP_MAX_ENTRIES coordinates
 * (vmgpu_region_map_span()), checked when the map is.
 */
struct vmgpu_region_map {
	vmgpu_u8 kind;			/* VMGPU_MAP_* */
	vmgpu_u8 policy;		/* VMGPU_MAP_CLAMP, _WRAP or _IGNORE */
	vmgpu_u16 reserved;		/* must be zero */
	vmgpu_u32 table_count;		/* TABLE: 1..VMGPU_MAP_MAX_ENTRIES, else 0 */
	vmgpu_u64 table_va;		/* TABLE: 8-byte aligned, else 0 */
	vmgpu_s32 v[3];			/* per kind, see above */
	vmgpu_u32 size[3];		/* SUPERSET: box size, else 0 */
};

#define VMGPU_REGION_MAP_BYTES		40
/*
 * DEP_WAIT (vmgpu_hw.h) carries a map as its words: the sizes must agree
 * (a negative bit-field width does not compile).
 */
struct vmgpu_region_map_bytes_check {
	int map_is_40_bytes : sizeof(struct vmgpu_region_map) ==
			      VMGPU_REGION_MAP_BYTES &&
			      sizeof(((struct vmgpu_cmd_dep_wait *)0)->map) ==
			      VMGPU_REGION_MAP_BYTES ? 1 : -1;
};

enum vmgpu_map_kind {
	VMGPU_MAP_IDENTITY = 1,		/* 0 is refused: an unset map */
	VMGPU_MAP_OFFSET,
	VMGPU_MAP_RADIUS,
	VMGPU_MAP_DOWNSAMPLE,
	VMGPU_MAP_SUPERSET,
	VMGPU_MAP_TABLE,
	VMGPU_MAP_NUM_KINDS
};

/*
 * Out of range, per dimension of the producer's grid (n portions):
 * CLAMP to 0..n-1; WRAP to the non-negative residue modulo n (-1 -> n-1,
 * n -> 0); IGNORE drops the coordinate: no entry, no wait.
 */
enum vmgpu_map_policy {
	VMGPU_MAP_CLAMP = 0,
	VMGPU_MAP_WRAP,
	VMGPU_MAP_IGNORE,
	VMGPU_MAP_NUM_POLICIES
};

#define VMGPU_MAP_MAX_ENTRIES		1024	/* coordinates of one portion */
#define VMGPU_MAP_MAX_RADIUS		15	/* per dimension */
#define VMGPU_MAP_MAX_SHIFT		5	/* 32x per dimension */

/*
 * A TABLE entry, 8 bytes, little-endian: a producer coordinate (possibly
 * out of range, the policy applies) if flags has VMGPU_MAP_ENTRY_VALID;
 * an entry without it is an unused slot of a shorter row.
 */
struct vmgpu_region_table_entry {
	vmgpu_s16 x, y, z;
	vmgpu_u16 flags;		/* VMGPU_MAP_ENTRY_*; other bits zero */
};

#define VMGPU_REGION_TABLE_ENTRY_BYTES	8
#define VMGPU_MAP_ENTRY_VALID		(1u << 0)

/* A map from its 40 little-endian bytes at @p (device side). */
static inline void vmgpu_region_map_read(struct vmgpu_region_map *m,
					 const void *p)
{
	const vmgpu_u8 *b = (const vmgpu_u8 *)p;
	int i;

	m->kind = b[0];
	m->policy = b[1];
	m->reserved = vmgpu_region_ld16(b + 2);
	m->table_count = vmgpu_region_ld32(b + 4);
	m->table_va = vmgpu_region_ld64(b + 8);
	for (i = 0; i < 3; i++) {
		m->v[i] = (vmgpu_s32)vmgpu_region_ld32(b + 16 + 4 * i);
		m->size[i] = vmgpu_region_ld32(b + 28 + 4 * i);
	}
}

/*
 * Coordinates map @m, which vmgpu_region_map_check() accepted, gives one
 * consumer portion before the policy: the bound on what
 * vmgpu_region_map_needs() writes. @pgrid is needed for a whole-grid
 * SUPERSET only. 0 for an unknown kind; for a SUPERSET box of more than
 * VMGPU_MAP_MAX_ENTRIES, some value above that, not its exact size.
 */
static inline vmgpu_u64 vmgpu_region_map_span(const struct vmgpu_region_map *m,
					      const vmgpu_u32 pgrid[3])
{
	vmgpu_u64 n = 1;
	int i;

	switch (m->kind) {
	case VMGPU_MAP_IDENTITY:
	case VMGPU_MAP_OFFSET:
		return 1;
	case VMGPU_MAP_RADIUS:
		for (i = 0; i < 3; i++)
			n *= 2 * (vmgpu_u64)(vmgpu_u32)m->v[i] + 1;
		return n;
	case VMGPU_MAP_DOWNSAMPLE:
		for (i = 0; i < 3; i++)
			n <<= (vmgpu_u32)m->v[i] & 63;
		return n;
	case VMGPU_MAP_SUPERSET:
		if (!m->size[0] && !m->size[1] && !m->size[2])
			return vmgpu_region_portions(pgrid);
		/*
		 * Stop once over the bound: three 32-bit sides could wrap
		 * the product to a small value (2^22 * 2^21 * 2^21 = 0).
		 */
		for (i = 0; i < 3 && n <= VMGPU_MAP_MAX_ENTRIES; i++)
			n *= m->size[i];
		return n;
	case VMGPU_MAP_TABLE:
		return m->table_count;
	}
	return 0;
}

/*
 * The rules a map follows from its own fields (vmgpu_region_map_fit()
 * adds those that need the grids).
 */
static inline enum vmgpu_region_verdict
vmgpu_region_map_check(const struct vmgpu_region_map *m, const char **why)
{
	int i, zero_v = 1, zero_size = 1;

	if (!m->kind || m->kind >= VMGPU_MAP_NUM_KINDS)
		return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
					   "unknown mapping kind");
	if (m->policy >= VMGPU_MAP_NUM_POLICIES)
		return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
					   "unknown out-of-range policy");
	if (m->reserved)
		return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
					   "mapping reserved field");
	for (i = 0; i < 3; i++) {
		zero_v &= !m->v[i];
		zero_size &= !m->size[i];
	}
	if (m->kind != VMGPU_MAP_TABLE && (m->table_count || m->table_va))
		return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
					   "table fields in a mapping without a table");
	if (m->kind != VMGPU_MAP_SUPERSET && !zero_size)
		return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
					   "box size in a mapping without a box");
	switch (m->kind) {
	case VMGPU_MAP_IDENTITY:
	case VMGPU_MAP_TABLE:
		if (!zero_v)
			return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
						   "vector in a mapping without one");
		break;
	case VMGPU_MAP_RADIUS:
		for (i = 0; i < 3; i++) {
			if (m->v[i] < 0 || m->v[i] > VMGPU_MAP_MAX_RADIUS)
				return vmgpu_region_reject(why, VMGPU_REGION_TOO_MANY,
							   "radius over VMGPU_MAP_MAX_RADIUS");
		}
		break;
	case VMGPU_MAP_DOWNSAMPLE:
		for (i = 0; i < 3; i++) {
			if (m->v[i] < 0 || m->v[i] > VMGPU_MAP_MAX_SHIFT)
				return vmgpu_region_reject(why, VMGPU_REGION_TOO_MANY,
							   "downsample shift over VMGPU_MAP_MAX_SHIFT");
		}
		if (zero_v)
			return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
						   "downsample by 1: use IDENTITY");
		break;
	case VMGPU_MAP_SUPERSET:
		if (zero_size && !zero_v)
			return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
						   "whole-grid superset with an origin");
		for (i = 0; i < 3; i++) {
			if (!zero_size && !m->size[i])
				return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
							   "superset box with a zero side");
		}
		break;
	}
	if (m->kind == VMGPU_MAP_TABLE) {
		if (!m->table_count)
			return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
						   "table of zero entries per portion");
		if (!m->table_va || m->table_va % VMGPU_REGION_TABLE_ENTRY_BYTES)
			return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
						   "table address zero or not 8-byte aligned");
	}
	/* A whole-grid superset is bounded by vmgpu_region_map_fit(). */
	if (m->kind != VMGPU_MAP_SUPERSET || !zero_size) {
		const vmgpu_u32 one[3] = { 1, 1, 1 };

		if (vmgpu_region_map_span(m, one) > VMGPU_MAP_MAX_ENTRIES)
			return vmgpu_region_reject(why, VMGPU_REGION_TOO_MANY,
						   "mapping over VMGPU_MAP_MAX_ENTRIES entries");
	}
	return VMGPU_REGION_OK;
}

/* A map and the two grids it connects: everything checked. */
static inline enum vmgpu_region_verdict
vmgpu_region_map_fit(const struct vmgpu_region_map *m,
		     const vmgpu_u32 cgrid[3], const vmgpu_u32 pgrid[3],
		     const char **why)
{
	enum vmgpu_region_verdict v;

	v = vmgpu_region_map_check(m, why);
	if (v != VMGPU_REGION_OK)
		return v;
	v = vmgpu_region_grid_check(cgrid, why);
	if (v != VMGPU_REGION_OK)
		return v;
	v = vmgpu_region_grid_check(pgrid, why);
	if (v != VMGPU_REGION_OK)
		return v;
	if (vmgpu_region_map_span(m, pgrid) > VMGPU_MAP_MAX_ENTRIES)
		return vmgpu_region_reject(why, VMGPU_REGION_TOO_MANY,
					   "mapping over VMGPU_MAP_MAX_ENTRIES entries");
	return VMGPU_REGION_OK;
}

/* Where a TABLE map's row for consumer portion @c (of @cgrid) is. */
static inline vmgpu_u64
vmgpu_region_table_row_va(const struct vmgpu_region_map *m,
			  const vmgpu_u32 cgrid[3], const vmgpu_u32 c[3])
{
	return m->table_va + (vmgpu_u64)vmgpu_region_linear(cgrid, c) *
			     m->table_count * VMGPU_REGION_TABLE_ENTRY_BYTES;
}

/*
 * Producer coordinate @p under @policy in @pgrid: 1 and its linear index
 * in @lin, or 0 if it is dropped.
 */
static inline int vmgpu_region_apply_policy(vmgpu_u32 policy,
					    const vmgpu_u32 pgrid[3],
					    const vmgpu_s64 p[3],
					    vmgpu_u32 *lin)
{
	vmgpu_u32 q[3];
	int i;

	for (i = 0; i < 3; i++) {
		vmgpu_s64 n = pgrid[i], x = p[i];

		if (x < 0 || x >= n) {
			if (policy == VMGPU_MAP_IGNORE)
				return 0;
			if (policy == VMGPU_MAP_WRAP) {
				x %= n;
				if (x < 0)
					x += n;
			} else {
				x = x < 0 ? 0 : n - 1;
			}
		}
		q[i] = (vmgpu_u32)x;
	}
	*lin = vmgpu_region_linear(pgrid, q);
	return 1;
}

/* Insert @v into the ascending, duplicate-free @out[0..n); new n. */
static inline vmgpu_u32 vmgpu_region_insert(vmgpu_u32 *out, vmgpu_u32 n,
					    vmgpu_u32 v)
{
	vmgpu_u32 i = n, j;

	while (i > 0 && out[i - 1] > v)
		i--;
	if (i > 0 && out[i - 1] == v)
		return n;
	for (j = n; j > i; j--)
		out[j] = out[j - 1];
	out[i] = v;
	return n + 1;
}

/* Add the box @lo + [0, @len) of coordinates to @out[0..n); new n. */
static inline vmgpu_u32 vmgpu_region_add_box(vmgpu_u32 policy,
					     const vmgpu_u32 pgrid[3],
					     const vmgpu_s64 lo[3],
					     const vmgpu_u64 len[3],
					     vmgpu_u32 *out, vmgpu_u32 n)
{
	vmgpu_s64 p[3];
	vmgpu_u64 i, j, k;
	vmgpu_u32 lin;

	for (k = 0; k < len[2]; k++) {
		p[2] = lo[2] + (vmgpu_s64)k;
		for (j = 0; j < len[1]; j++) {
			p[1] = lo[1] + (vmgpu_s64)j;
			for (i = 0; i < len[0]; i++) {
				p[0] = lo[0] + (vmgpu_s64)i;
				if (vmgpu_region_apply_policy(policy, pgrid, p,
							      &lin))
					n = vmgpu_region_insert(out, n, lin);
			}
		}
	}
	return n;
}

/*
 * The producer entries (linear portion indices of @pgrid) consumer
 * portion @c of @cgrid needs under map @m, which vmgpu_region_map_fit()
 * accepted for these grids: written to @out in ascending order, each
 * once, at most vmgpu_region_map_span() <= VMGPU_MAP_MAX_ENTRIES of them.
 * @row is a TABLE map's row for @c (table_count entries, little-endian,
 * read from vmgpu_region_table_row_va()), else unused. Returns how many,
 * or -1 with @why for a portion outside its grid or a bad table entry.
 */
static inline int vmgpu_region_map_needs(const struct vmgpu_region_map *m,
					 const vmgpu_u32 cgrid[3],
					 const vmgpu_u32 pgrid[3],
					 const vmgpu_u32 c[3], const void *row,
					 vmgpu_u32 *out, const char **why)
{
	vmgpu_s64 lo[3];
	vmgpu_u64 len[3];
	vmgpu_u32 n = 0, e;
	int i;

	for (i = 0; i < 3; i++) {
		if (c[i] >= cgrid[i]) {
			*why = "consumer portion outside its grid";
			return -1;
		}
	}
	if (m->kind == VMGPU_MAP_TABLE) {
		const vmgpu_u8 *b = (const vmgpu_u8 *)row;

		for (e = 0; e < m->table_count; e++) {
			const vmgpu_u8 *t = b + e * VMGPU_REGION_TABLE_ENTRY_BYTES;
			vmgpu_u16 flags = vmgpu_region_ld16(t + 6);

			if (flags & ~VMGPU_MAP_ENTRY_VALID) {
				*why = "table entry with unknown flags";
				return -1;
			}
			if (!(flags & VMGPU_MAP_ENTRY_VALID))
				continue;
			for (i = 0; i < 3; i++) {
				lo[i] = (vmgpu_s16)vmgpu_region_ld16(t + 2 * i);
				len[i] = 1;
			}
			n = vmgpu_region_add_box(m->policy, pgrid, lo, len,
						 out, n);
		}
		return (int)n;
	}
	for (i = 0; i < 3; i++) {
		vmgpu_s64 ci = c[i], v = m->v[i];

		switch (m->kind) {
		case VMGPU_MAP_IDENTITY:
			lo[i] = ci;
			len[i] = 1;
			break;
		case VMGPU_MAP_OFFSET:
			lo[i] = ci + v;
			len[i] = 1;
			break;
		case VMGPU_MAP_RADIUS:
			lo[i] = ci - v;
			len[i] = (vmgpu_u64)(2 * v + 1);
			break;
		case VMGPU_MAP_DOWNSAMPLE:
			lo[i] = ci << v;
			len[i] = (vmgpu_u64)1 << v;
			break;
		default:	/* SUPERSET */
			if (!m->size[0] && !m->size[1] && !m->size[2]) {
				lo[i] = 0;
				len[i] = pgrid[i];
			} else {
				lo[i] = v;
				len[i] = m->size[i];
			}
			break;
		}
	}
	return (int)vmgpu_region_add_box(m->policy, pgrid, lo, len, out, n);
}

/* ------------------------------------------------------------------ */
/* Dependency-table entries and epochs (R2)                              */
/* ------------------------------------------------------------------ */

/*
 * One entry per producer portion (coarse) or per (resource, region)
 * (fine), at table_va + 8 * index (vmgpu_dep_entry_va()), 8 bytes,
 * little-endian. The producer writes it as one aligned 64-bit store
 * (vmgpu_dep_pack()), so a waiter reads the old or the new entry, never a
 * mix. Every dispatch (or frame) of a chain has an epoch, never 0
 * (vmgpu_dep_epoch_next()): an entry satisfies a wait only if it is READY
 * and its epoch equals the waiter's, so an entry left by an earlier
 * dispatch never releases a later one, and a table needs no clearing.
 */
struct vmgpu_dep_entry {
	vmgpu_u32 epoch;		/* epoch of the writer's dispatch; 0: none */
	vmgpu_u8 writer;		/* GPU that wrote the region */
	vmgpu_u8 state;			/* VMGPU_DEP_* */
	vmgpu_u16 reserved;		/* must be zero */
};

#define VMGPU_DEP_ENTRY_BYTES		8

enum vmgpu_dep_state {
	VMGPU_DEP_EMPTY = 0,		/* not written in this epoch */
	VMGPU_DEP_READY,		/* every write to the region is done */
	VMGPU_DEP_NUM_STATES
};

/* The entry as the 64-bit word the producer stores. */
static inline vmgpu_u64 vmgpu_dep_pack(vmgpu_u32 epoch, vmgpu_u32 writer,
				       vmgpu_u32 state)
{
	return epoch | (vmgpu_u64)(writer & 0xff) << 32 |
	       (vmgpu_u64)(state & 0xff) << 40;
}

static inline struct vmgpu_dep_entry vmgpu_dep_unpack(vmgpu_u64 w)
{
	struct vmgpu_dep_entry e;

	e.epoch = (vmgpu_u32)w;
	e.writer = (vmgpu_u8)(w >> 32);
	e.state = (vmgpu_u8)(w >> 40);
	e.reserved = (vmgpu_u16)(w >> 48);
	return e;
}

/*
 * Does entry word @w release a waiter of epoch @epoch? Only a READY entry
 * of exactly that epoch, from a real GPU, with its reserved bits clear.
 */
static inline int vmgpu_dep_satisfies(vmgpu_u64 w, vmgpu_u32 epoch)
{
	struct vmgpu_dep_entry e = vmgpu_dep_unpack(w);

	return epoch && e.epoch == epoch && e.state == VMGPU_DEP_READY &&
	       e.writer < VMGPU_MAX_GPUS && !e.reserved;
}

/* The epoch after @epoch: 1, 2, ..., 0xffffffff, 1, ... (never 0). */
static inline vmgpu_u32 vmgpu_dep_epoch_next(vmgpu_u32 epoch)
{
	return epoch == 0xffffffffu ? 1 : epoch + 1;
}

static inline vmgpu_u64 vmgpu_dep_entry_va(vmgpu_u64 table_va,
					   vmgpu_u32 index)
{
	return table_va + (vmgpu_u64)index * VMGPU_DEP_ENTRY_BYTES;
}

/* ------------------------------------------------------------------ */
/* Dynamic allocation: space-filling curves and shared progress (R7)     */
/* ------------------------------------------------------------------ */

/*
 * The order in which one GPU takes portions, 24 bytes, little-endian.
 * Every curve visits every portion of the grid exactly once.
 *
 * SERPENTINE	a boustrophedon: rows run along x (along y with
 *		VMGPU_CURVE_F_COLUMNS); the grid is cut into bands of @band
 *		portions along the rows (0: one band, whole rows). Band 0
 *		is walked row by row from row 0, band 1 from its last row
 *		back, and so on; successive rows alternate direction, the
 *		first going up the row axis; 3-D grids walk layer z = 0,
 *		then layer 1 in the reverse order, and so on. The FLIP
 *		flags mirror the result in x, y or z, and the walk starts
 *		at portion @start (a linear index), going on cyclically.
 * TABLE	the order is @table_count (= the grid's portions) u32
 *		linear indices at @table_va, a permutation; @start, @flags
 *		and @band zero.
 */
struct vmgpu_curve {
	vmgpu_u8 kind;			/* VMGPU_CURVE_* */
	vmgpu_u8 flags;			/* SERPENTINE: VMGPU_CURVE_F_* */
	vmgpu_u16 band;			/* SERPENTINE: 0 or band width */
	vmgpu_u32 start;		/* SERPENTINE: first portion */
	vmgpu_u64 table_va;		/* TABLE: 4-byte aligned */
	vmgpu_u32 table_count;		/* TABLE: portions of the grid */
	vmgpu_u32 reserved;		/* must be zero */
};

#define VMGPU_CURVE_BYTES		24
/* TAKE (vmgpu_hw.h) carries a curve as its words: the sizes must agree. */
struct vmgpu_curve_bytes_check {
	int curve_is_24_bytes : sizeof(struct vmgpu_curve) ==
				VMGPU_CURVE_BYTES &&
				sizeof(((struct vmgpu_cmd_take *)0)->curve) ==
				VMGPU_CURVE_BYTES ? 1 : -1;
};

enum vmgpu_curve_kind {
	VMGPU_CURVE_SERPENTINE = 1,
	VMGPU_CURVE_TABLE,
	VMGPU_CURVE_NUM_KINDS
};

#define VMGPU_CURVE_F_COLUMNS		(1u << 0)
#define VMGPU_CURVE_F_FLIP_X		(1u << 1)
#define VMGPU_CURVE_F_FLIP_Y		(1u << 2)
#define VMGPU_CURVE_F_FLIP_Z		(1u << 3)
#define VMGPU_CURVE_F_ALL \
	(VMGPU_CURVE_F_COLUMNS | VMGPU_CURVE_F_FLIP_X | \
	 VMGPU_CURVE_F_FLIP_Y | VMGPU_CURVE_F_FLIP_Z)

/* A curve from its 24 little-endian bytes at @p (device side). */
static inline void vmgpu_curve_read(struct vmgpu_curve *c, const void *p)
{
	const vmgpu_u8 *b = (const vmgpu_u8 *)p;

	c->kind = b[0];
	c->flags = b[1];
	c->band = vmgpu_region_ld16(b + 2);
	c->start = vmgpu_region_ld32(b + 4);
	c->table_va = vmgpu_region_ld64(b + 8);
	c->table_count = vmgpu_region_ld32(b + 16);
	c->reserved = vmgpu_region_ld32(b + 20);
}

static inline enum vmgpu_region_verdict
vmgpu_curve_check(const struct vmgpu_curve *c, const vmgpu_u32 grid[3],
		  const char **why)
{
	enum vmgpu_region_verdict v = vmgpu_region_grid_check(grid, why);

	if (v != VMGPU_REGION_OK)
		return v;
	if (c->reserved)
		return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
					   "curve reserved field");
	if (c->kind == VMGPU_CURVE_SERPENTINE) {
		if (c->flags & ~VMGPU_CURVE_F_ALL)
			return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
						   "unknown curve flags");
		if (c->table_va || c->table_count)
			return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
						   "table fields in a serpentine");
		if (c->start >= vmgpu_region_portions(grid))
			return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
						   "curve start outside the grid");
		return VMGPU_REGION_OK;
	}
	if (c->kind != VMGPU_CURVE_TABLE)
		return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
					   "unknown curve kind");
	if (c->flags || c->band || c->start)
		return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
					   "serpentine fields in a table curve");
	if (!c->table_va || c->table_va % 4)
		return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
					   "curve table address zero or not 4-byte aligned");
	if (c->table_count != vmgpu_region_portions(grid))
		return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
					   "curve table not one entry per portion");
	return VMGPU_REGION_OK;
}

/*
 * Is the curve table @table (@n little-endian u32) a permutation of the
 * @n portions? @seen is scratch of (n + 31) / 32 words.
 */
static inline enum vmgpu_region_verdict
vmgpu_curve_table_check(const void *table, vmgpu_u32 n, vmgpu_u32 *seen,
			const char **why)
{
	const vmgpu_u8 *b = (const vmgpu_u8 *)table;
	vmgpu_u32 i, p;

	for (i = 0; i < (n + 31) / 32; i++)
		seen[i] = 0;
	for (i = 0; i < n; i++) {
		p = vmgpu_region_ld32(b + 4 * i);
		if (p >= n)
			return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
						   "curve table entry outside the grid");
		if (seen[p / 32] & (1u << (p % 32)))
			return vmgpu_region_reject(why, VMGPU_REGION_ILLEGAL,
						   "curve table names a portion twice");
		seen[p / 32] |= 1u << (p % 32);
	}
	return VMGPU_REGION_OK;
}

/*
 * A serpentine's frame: rows along axis @ax (0: x, 1: y) of @nu portions,
 * @nw rows per layer, bands of @bw portions.
 */
struct vmgpu_serpentine {
	vmgpu_u32 ax, nu, nw, nz, bw, nb;
};

static inline struct vmgpu_serpentine
vmgpu_serpentine_frame(const struct vmgpu_curve *c, const vmgpu_u32 grid[3])
{
	struct vmgpu_serpentine s;

	s.ax = c->flags & VMGPU_CURVE_F_COLUMNS ? 1 : 0;
	s.nu = grid[s.ax];
	s.nw = grid[1 - s.ax];
	s.nz = grid[2];
	s.bw = c->band && c->band < s.nu ? c->band : s.nu;
	s.nb = (s.nu + s.bw - 1) / s.bw;
	return s;
}

/* Position of portion @p on a serpentine walked from linear index 0. */
static inline vmgpu_u32 vmgpu_serpentine_pos(const struct vmgpu_curve *c,
					     const vmgpu_u32 grid[3],
					     const vmgpu_u32 p[3])
{
	struct vmgpu_serpentine s = vmgpu_serpentine_frame(c, grid);
	vmgpu_u32 q[3], u, w, b, wb, k, r, i, pos, layer = s.nu * s.nw;

	for (i = 0; i < 3; i++)
		q[i] = c->flags & (VMGPU_CURVE_F_FLIP_X << i) ?
		       grid[i] - 1 - p[i] : p[i];
	u = q[s.ax];
	w = q[1 - s.ax];
	b = u / s.bw;
	wb = b == s.nb - 1 ? s.nu - b * s.bw : s.bw;
	k = b % 2 ? s.nw - 1 - w : w;
	r = b * s.nw + k;
	i = r % 2 ? b * s.bw + wb - 1 - u : u - b * s.bw;
	pos = b * s.bw * s.nw + k * wb + i;
	if (q[2] % 2)
		pos = layer - 1 - pos;
	return q[2] * layer + pos;
}

/* Portion @p at position @pos of a serpentine walked from index 0. */
static inline void vmgpu_serpentine_at(const struct vmgpu_curve *c,
				       const vmgpu_u32 grid[3], vmgpu_u32 pos,
				       vmgpu_u32 p[3])
{
	struct vmgpu_serpentine s = vmgpu_serpentine_frame(c, grid);
	vmgpu_u32 layer = s.nu * s.nw, z = pos / layer, q = pos % layer;
	vmgpu_u32 b, qb, wb, k, i, r, u, w;

	if (z % 2)
		q = layer - 1 - q;
	b = q / (s.bw * s.nw);
	qb = q - b * s.bw * s.nw;
	wb = b == s.nb - 1 ? s.nu - b * s.bw : s.bw;
	k = qb / wb;
	i = qb % wb;
	w = b % 2 ? s.nw - 1 - k : k;
	r = b * s.nw + k;
	u = b * s.bw + (r % 2 ? wb - 1 - i : i);
	p[s.ax] = u;
	p[1 - s.ax] = w;
	p[2] = z;
	for (i = 0; i < 3; i++) {
		if (c->flags & (VMGPU_CURVE_F_FLIP_X << i))
			p[i] = grid[i] - 1 - p[i];
	}
}

/*
 * The portion (linear index) at step @i (0 = the start) of curve @c,
 * which vmgpu_curve_check() accepted for @grid; @table is a TABLE curve's
 * table (little-endian u32, as read from table_va), else unused.
 * VMGPU_PORTION_NONE past the end, or for a table entry outside the grid.
 */
static inline vmgpu_u32 vmgpu_curve_at(const struct vmgpu_curve *c,
				       const vmgpu_u32 grid[3],
				       const void *table, vmgpu_u32 i)
{
	vmgpu_u32 n = vmgpu_region_portions(grid), p[3], pos;

	if (i >= n)
		return VMGPU_PORTION_NONE;
	if (c->kind == VMGPU_CURVE_TABLE) {
		pos = vmgpu_region_ld32((const vmgpu_u8 *)table + 4 * i);
		return pos < n ? pos : VMGPU_PORTION_NONE;
	}
	vmgpu_region_coords(grid, c->start, p);
	pos = vmgpu_serpentine_pos(c, grid, p);
	vmgpu_serpentine_at(c, grid, (pos + i) % n, p);
	return vmgpu_region_linear(grid, p);
}

/*
 * The shared progress: one u32 take word per portion, at take_va + 4 *
 * portion (vmgpu_alloc_word_va()). A GPU claims a portion for the
 * dispatch of epoch E with an atomic exchange writing E: it took it if
 * the old word was not E. Words left by other epochs read as free, so the
 * words need no clearing between dispatches.
 *
 * @take is that atomic exchange: it stores @epoch in @portion's word and
 * returns the old word.
 */
typedef vmgpu_u32 (*vmgpu_alloc_xchg_fn)(void *ctx, vmgpu_u32 portion,
					 vmgpu_u32 epoch);

static inline vmgpu_u64 vmgpu_alloc_word_va(vmgpu_u64 take_va,
					    vmgpu_u32 portion)
{
	return take_va + 4 * (vmgpu_u64)portion;
}

/*
 * The next portion a free GPU takes: walk its curve @c (and @table) from
 * position *@cursor, skipping portions already taken in @epoch, claim the
 * first free one and return it, *@cursor past it. VMGPU_PORTION_NONE when
 * the curve is walked to its end (every portion is taken), at a table
 * entry outside the grid, or for epoch 0 (never an epoch: fresh zeroed
 * take words would read as taken).
 */
static inline vmgpu_u32 vmgpu_alloc_next(const struct vmgpu_curve *c,
					 const vmgpu_u32 grid[3],
					 const void *table, vmgpu_u32 epoch,
					 vmgpu_u32 *cursor,
					 vmgpu_alloc_xchg_fn take, void *ctx)
{
	vmgpu_u32 p;

	if (!epoch)
		return VMGPU_PORTION_NONE;
	while ((p = vmgpu_curve_at(c, grid, table, *cursor)) !=
	       VMGPU_PORTION_NONE) {
		(*cursor)++;
		if (take(ctx, p, epoch) != epoch)
			return p;
	}
	return VMGPU_PORTION_NONE;
}

#endif /* _VMGPU_REGION_H_ */
