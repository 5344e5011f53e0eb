// SPDX-License-Identifier: GPL-2.0-only
/*
 * Region-dependency mapping functions, out-of-range policies and
 * dependency-table epochs (uapi/vmgpu_region.h, SPEC R2, R4, R5;
 * Documentation/regions.rst): the design's Figure 12 and 13 examples
 * entry by entry, every kind under every policy at edges and corners in
 * 1-D, 2-D and 3-D against an independent reference, odd downsampling,
 * tables with out-of-range entries, the encoding's refusals and the
 * epoch rule (a stale entry never satisfies a wait).
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "vmgpu_region.h"

static uint32_t rng = 2024;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

static struct vmgpu_region_map map_of(uint8_t kind, uint8_t policy,
				      int32_t vx, int32_t vy, int32_t vz)
{
	struct vmgpu_region_map m;

	memset(&m, 0, sizeof(m));
	m.kind = kind;
	m.policy = policy;
	m.v[0] = vx;
	m.v[1] = vy;
	m.v[2] = vz;
	return m;
}

static const uint32_t g64[3] = { 6, 4, 1 };	/* the design's 6 x 4 */

/* Entries of portion (cx, cy, cz), or -1; @out as linear indices. */
static int needs(const struct vmgpu_region_map *m, const uint32_t *cgrid,
		 const uint32_t *pgrid, uint32_t cx, uint32_t cy, uint32_t cz,
		 const void *row, uint32_t *out)
{
	const uint32_t c[3] = { cx, cy, cz };
	const char *why = NULL;
	int n;

	if (vmgpu_region_map_fit(m, cgrid, pgrid, &why) != VMGPU_REGION_OK) {
		fprintf(stderr, "map refused: %s\n", why);
		return -2;
	}
	n = vmgpu_region_map_needs(m, cgrid, pgrid, c, row, out, &why);
	if (n > (int)vmgpu_region_map_span(m, pgrid))
		return -3;
	return n;
}

/* (x, y) pairs of a 2-D grid of width @w as sorted linear indices. */
static unsigned int xy(uint32_t *want, uint32_t w, const int *pairs,
		       unsigned int n)
{
	unsigned int i, j;
	uint32_t t;

	for (i = 0; i < n; i++)
		want[i] = pairs[2 * i] + w * pairs[2 * i + 1];
	for (i = 1; i < n; i++)		/* insertion sort */
		for (j = i; j > 0 && want[j - 1] > want[j]; j--) {
			t = want[j];
			want[j] = want[j - 1];
			want[j - 1] = t;
		}
	return n;
}

#define EXPECT_ENTRIES(got, n, w, ...) do {				\
	static const int pairs_[] = { __VA_ARGS__ };			\
	uint32_t want_[64];						\
	unsigned int nw_ = xy(want_, (w), pairs_,			\
			      sizeof(pairs_) / sizeof(pairs_[0]) / 2);	\
	ASSERT_EQ((int)nw_, (n));					\
	for (unsigned int k_ = 0; k_ < nw_; k_++)			\
		EXPECT_EQ(want_[k_], (got)[k_]);			\
} while (0)

TEST(figure12_identity)
{
	struct vmgpu_region_map m = map_of(VMGPU_MAP_IDENTITY,
					   VMGPU_MAP_CLAMP, 0, 0, 0);
	uint32_t out[VMGPU_MAP_MAX_ENTRIES];

	EXPECT_ENTRIES(out, needs(&m, g64, g64, 2, 2, 0, NULL, out), 6, 2, 2);
	EXPECT_EQ(1, vmgpu_region_map_span(&m, g64));
}

TEST(figure12_radius1_is_3x3)
{
	struct vmgpu_region_map m = map_of(VMGPU_MAP_RADIUS, VMGPU_MAP_CLAMP,
					   1, 1, 0);
	uint32_t out[VMGPU_MAP_MAX_ENTRIES];

	EXPECT_EQ(9, vmgpu_region_map_span(&m, g64));
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 2, 2, 0, NULL, out), 6,
		       1, 1, 2, 1, 3, 1, 1, 2, 2, 2, 3, 2, 1, 3, 2, 3, 3, 3);
	/* At the corner (0, 0): clamp folds onto the grid, deduplicated. */
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 0, 0, 0, NULL, out), 6,
		       0, 0, 1, 0, 0, 1, 1, 1);
	m.policy = VMGPU_MAP_WRAP;
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 0, 0, 0, NULL, out), 6,
		       5, 3, 0, 3, 1, 3, 5, 0, 0, 0, 1, 0, 5, 1, 0, 1, 1, 1);
	m.policy = VMGPU_MAP_IGNORE;
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 0, 0, 0, NULL, out), 6,
		       0, 0, 1, 0, 0, 1, 1, 1);
	/* On the right edge (5, 2). */
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 5, 2, 0, NULL, out), 6,
		       4, 1, 5, 1, 4, 2, 5, 2, 4, 3, 5, 3);
	m.policy = VMGPU_MAP_WRAP;
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 5, 2, 0, NULL, out), 6,
		       4, 1, 5, 1, 0, 1, 4, 2, 5, 2, 0, 2, 4, 3, 5, 3, 0, 3);
	m.policy = VMGPU_MAP_CLAMP;
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 5, 3, 0, NULL, out), 6,
		       4, 2, 5, 2, 4, 3, 5, 3);
}

/* The consumer at half resolution reads 2 x 2 producer portions. */
TEST(figure12_downsample_2x)
{
	struct vmgpu_region_map m = map_of(VMGPU_MAP_DOWNSAMPLE,
					   VMGPU_MAP_CLAMP, 1, 1, 0);
	const uint32_t half[3] = { 3, 2, 1 };
	uint32_t out[VMGPU_MAP_MAX_ENTRIES];

	EXPECT_EQ(4, vmgpu_region_map_span(&m, g64));
	EXPECT_ENTRIES(out, needs(&m, half, g64, 1, 1, 0, NULL, out), 6,
		       2, 2, 3, 2, 2, 3, 3, 3);
	EXPECT_ENTRIES(out, needs(&m, half, g64, 0, 0, 0, NULL, out), 6,
		       0, 0, 1, 0, 0, 1, 1, 1);
	EXPECT_ENTRIES(out, needs(&m, half, g64, 2, 0, 0, NULL, out), 6,
		       4, 0, 5, 0, 4, 1, 5, 1);
}

TEST(figure12_upward_offset)
{
	struct vmgpu_region_map m = map_of(VMGPU_MAP_OFFSET, VMGPU_MAP_CLAMP,
					   0, -1, 0);
	uint32_t out[VMGPU_MAP_MAX_ENTRIES];

	EXPECT_ENTRIES(out, needs(&m, g64, g64, 2, 2, 0, NULL, out), 6, 2, 1);
	/* The top row has nothing above it. */
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 2, 0, 0, NULL, out), 6, 2, 0);
	m.policy = VMGPU_MAP_WRAP;
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 2, 0, 0, NULL, out), 6, 2, 3);
	m.policy = VMGPU_MAP_IGNORE;
	EXPECT_EQ(0, needs(&m, g64, g64, 2, 0, 0, NULL, out));
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 2, 2, 0, NULL, out), 6, 2, 1);
}

/* Offset (-3, -1) from (2, 2) in the 6-wide space reaches (-1, 1). */
TEST(figure13_offset_out_of_range)
{
	struct vmgpu_region_map m = map_of(VMGPU_MAP_OFFSET, VMGPU_MAP_CLAMP,
					   -3, -1, 0);
	uint32_t out[VMGPU_MAP_MAX_ENTRIES];

	EXPECT_ENTRIES(out, needs(&m, g64, g64, 2, 2, 0, NULL, out), 6, 0, 1);
	m.policy = VMGPU_MAP_WRAP;
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 2, 2, 0, NULL, out), 6, 5, 1);
	m.policy = VMGPU_MAP_IGNORE;
	EXPECT_EQ(0, needs(&m, g64, g64, 2, 2, 0, NULL, out));
	/* In range, every policy gives the same entry. */
	for (m.policy = 0; m.policy < VMGPU_MAP_NUM_POLICIES; m.policy++)
		EXPECT_ENTRIES(out, needs(&m, g64, g64, 4, 3, 0, NULL, out), 6,
			       1, 2);
}

/* Wrap is the non-negative residue, whatever the distance. */
TEST(wrap_is_the_non_negative_residue)
{
	struct vmgpu_region_map m = map_of(VMGPU_MAP_OFFSET, VMGPU_MAP_WRAP,
					   -13, 9, 0);
	uint32_t out[VMGPU_MAP_MAX_ENTRIES];

	/* (2 - 13, 2 + 9) = (-11, 11) -> (1, 3) */
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 2, 2, 0, NULL, out), 6, 1, 3);
	m.v[0] = INT32_MIN;
	m.v[1] = INT32_MAX;
	/* (2 - 2^31) mod 6 = 0, (2 + 2^31 - 1) mod 4 = 1 */
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 2, 2, 0, NULL, out), 6, 0, 1);
	m.policy = VMGPU_MAP_CLAMP;
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 2, 2, 0, NULL, out), 6, 0, 3);
}

TEST(downsample_with_odd_sizes)
{
	struct vmgpu_region_map m = map_of(VMGPU_MAP_DOWNSAMPLE,
					   VMGPU_MAP_CLAMP, 1, 1, 0);
	const uint32_t prod[3] = { 5, 3, 1 }, cons[3] = { 3, 2, 1 };
	const uint32_t p1[3] = { 7, 1, 1 }, c1[3] = { 4, 1, 1 };
	uint32_t out[VMGPU_MAP_MAX_ENTRIES];

	/* Consumer (2, 1) covers x 4..5, y 2..3 of a 5 x 3 producer. */
	EXPECT_ENTRIES(out, needs(&m, cons, prod, 2, 1, 0, NULL, out), 5, 4, 2);
	EXPECT_ENTRIES(out, needs(&m, cons, prod, 1, 0, 0, NULL, out), 5,
		       2, 0, 3, 0, 2, 1, 3, 1);
	m.policy = VMGPU_MAP_WRAP;
	EXPECT_ENTRIES(out, needs(&m, cons, prod, 2, 1, 0, NULL, out), 5,
		       0, 0, 4, 0, 0, 2, 4, 2);
	m.policy = VMGPU_MAP_IGNORE;
	EXPECT_ENTRIES(out, needs(&m, cons, prod, 2, 1, 0, NULL, out), 5, 4, 2);
	/* 1-D, 4x: 7 producer portions, consumer 1 reads 4..7. */
	m = map_of(VMGPU_MAP_DOWNSAMPLE, VMGPU_MAP_IGNORE, 2, 0, 0);
	EXPECT_ENTRIES(out, needs(&m, c1, p1, 1, 0, 0, NULL, out), 7,
		       4, 0, 5, 0, 6, 0);
	m.policy = VMGPU_MAP_CLAMP;
	EXPECT_ENTRIES(out, needs(&m, c1, p1, 1, 0, 0, NULL, out), 7,
		       4, 0, 5, 0, 6, 0);
	m.policy = VMGPU_MAP_WRAP;
	EXPECT_ENTRIES(out, needs(&m, c1, p1, 1, 0, 0, NULL, out), 7,
		       0, 0, 4, 0, 5, 0, 6, 0);
	/* Past the producer entirely: consumer 3 reads 12..15. */
	EXPECT_ENTRIES(out, needs(&m, c1, p1, 3, 0, 0, NULL, out), 7,
		       5, 0, 6, 0, 0, 0, 1, 0);
	m.policy = VMGPU_MAP_IGNORE;
	EXPECT_EQ(0, needs(&m, c1, p1, 3, 0, 0, NULL, out));
	m.policy = VMGPU_MAP_CLAMP;
	EXPECT_ENTRIES(out, needs(&m, c1, p1, 3, 0, 0, NULL, out), 7, 6, 0);
}

TEST(three_d_radius_and_offset)
{
	const uint32_t g[3] = { 3, 3, 3 };
	struct vmgpu_region_map m = map_of(VMGPU_MAP_RADIUS, VMGPU_MAP_IGNORE,
					   1, 1, 1);
	uint32_t out[VMGPU_MAP_MAX_ENTRIES];
	int i;

	ASSERT_EQ(27, needs(&m, g, g, 1, 1, 1, NULL, out));
	for (i = 0; i < 27; i++)
		EXPECT_EQ(i, out[i]);
	ASSERT_EQ(8, needs(&m, g, g, 0, 0, 0, NULL, out));
	EXPECT_EQ(0, out[0]);
	EXPECT_EQ(1 + 3 + 9, out[7]);
	m.policy = VMGPU_MAP_WRAP;
	EXPECT_EQ(27, needs(&m, g, g, 0, 0, 0, NULL, out));
	m.policy = VMGPU_MAP_CLAMP;
	EXPECT_EQ(8, needs(&m, g, g, 2, 2, 2, NULL, out));
	m = map_of(VMGPU_MAP_OFFSET, VMGPU_MAP_WRAP, 0, 0, -1);
	ASSERT_EQ(1, needs(&m, g, g, 1, 2, 0, NULL, out));
	EXPECT_EQ(1 + 3 * 2 + 9 * 2, out[0]);
	m.policy = VMGPU_MAP_IGNORE;
	EXPECT_EQ(0, needs(&m, g, g, 1, 2, 0, NULL, out));
}

TEST(superset_whole_grid_and_box)
{
	struct vmgpu_region_map m = map_of(VMGPU_MAP_SUPERSET,
					   VMGPU_MAP_CLAMP, 0, 0, 0);
	uint32_t out[VMGPU_MAP_MAX_ENTRIES];
	int i;

	ASSERT_EQ(24, needs(&m, g64, g64, 3, 1, 0, NULL, out));
	for (i = 0; i < 24; i++)
		EXPECT_EQ(i, out[i]);
	/* A box (4, 2) + 3 x 3, reaching past the right and bottom edges. */
	m.v[0] = 4;
	m.v[1] = 2;
	m.size[0] = 3;
	m.size[1] = 3;
	m.size[2] = 1;
	EXPECT_EQ(9, vmgpu_region_map_span(&m, g64));
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 0, 0, 0, NULL, out), 6,
		       4, 2, 5, 2, 4, 3, 5, 3);
	m.policy = VMGPU_MAP_WRAP;
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 5, 3, 0, NULL, out), 6,
		       0, 0, 4, 0, 5, 0, 0, 2, 4, 2, 5, 2, 0, 3, 4, 3, 5, 3);
	m.policy = VMGPU_MAP_IGNORE;
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 1, 1, 0, NULL, out), 6,
		       4, 2, 5, 2, 4, 3, 5, 3);
}

static void put_entry(uint8_t *row, unsigned int i, int x, int y, int z,
		      unsigned int flags)
{
	uint8_t *t = row + 8 * i;
	const int v[3] = { x, y, z };
	int k;

	for (k = 0; k < 3; k++) {
		t[2 * k] = (uint8_t)v[k];
		t[2 * k + 1] = (uint8_t)((unsigned int)v[k] >> 8);
	}
	t[6] = (uint8_t)flags;
	t[7] = (uint8_t)(flags >> 8);
}

TEST(table_with_out_of_range_entries)
{
	struct vmgpu_region_map m = map_of(VMGPU_MAP_TABLE, VMGPU_MAP_CLAMP,
					   0, 0, 0);
	const uint32_t c[3] = { 4, 3, 0 };
	uint32_t out[VMGPU_MAP_MAX_ENTRIES];
	uint8_t row[6 * 8];
	const char *why;

	m.table_count = 6;
	m.table_va = 0x100000;
	/* Row of consumer (4, 3): linear 22, 6 entries of 8 bytes each. */
	EXPECT_EQ(0x100000 + 22 * 48, vmgpu_region_table_row_va(&m, g64, c));
	put_entry(row, 0, 3, 1, 0, VMGPU_MAP_ENTRY_VALID);
	put_entry(row, 1, -1, 1, 0, VMGPU_MAP_ENTRY_VALID);	/* left of x 0 */
	put_entry(row, 2, 0, 0, 0, 0);				/* unused slot */
	put_entry(row, 3, 7, -2, 0, VMGPU_MAP_ENTRY_VALID);	/* off 2 edges */
	put_entry(row, 4, 3, 1, 0, VMGPU_MAP_ENTRY_VALID);	/* duplicate */
	put_entry(row, 5, 2, 2, 1, VMGPU_MAP_ENTRY_VALID);	/* z 1 of 1 */
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 4, 3, 0, row, out), 6,
		       3, 1, 0, 1, 5, 0, 2, 2);
	m.policy = VMGPU_MAP_WRAP;
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 4, 3, 0, row, out), 6,
		       3, 1, 5, 1, 1, 2, 2, 2);
	m.policy = VMGPU_MAP_IGNORE;
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 4, 3, 0, row, out), 6, 3, 1);
	/* Unknown entry flags fail the portion. */
	put_entry(row, 2, 0, 0, 0, 2);
	why = NULL;
	EXPECT_EQ(-1, vmgpu_region_map_needs(&m, g64, g64, c, row, out, &why));
	EXPECT_STREQ("table entry with unknown flags", why);
	/* Extreme s16 coordinates. */
	m.table_count = 2;
	put_entry(row, 0, -32768, 32767, 0, VMGPU_MAP_ENTRY_VALID);
	put_entry(row, 1, 32767, -32768, 0, VMGPU_MAP_ENTRY_VALID);
	m.policy = VMGPU_MAP_CLAMP;
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 0, 0, 0, row, out), 6,
		       0, 3, 5, 0);
	m.policy = VMGPU_MAP_WRAP;	/* -32768 % 6 = 4, 32767 % 4 = 3 ... */
	EXPECT_ENTRIES(out, needs(&m, g64, g64, 0, 0, 0, row, out), 6,
		       4, 3, 1, 0);
}

TEST(consumer_outside_its_grid_is_refused)
{
	struct vmgpu_region_map m = map_of(VMGPU_MAP_IDENTITY,
					   VMGPU_MAP_CLAMP, 0, 0, 0);
	const uint32_t c[3] = { 6, 0, 0 }, c2[3] = { 0, 0, 1 };
	uint32_t out[VMGPU_MAP_MAX_ENTRIES];
	const char *why = NULL;

	EXPECT_EQ(-1, vmgpu_region_map_needs(&m, g64, g64, c, NULL, out, &why));
	EXPECT_STREQ("consumer portion outside its grid", why);
	EXPECT_EQ(-1, vmgpu_region_map_needs(&m, g64, g64, c2, NULL, out, &why));
}

/*
 * The reference: every non-table kind is a box, and every policy acts on
 * each dimension alone, so the entries are the product of per-dimension
 * sets of producer coordinates.
 */
static int reference(const struct vmgpu_region_map *m, const uint32_t *pg,
		     const uint32_t *c, uint32_t *out)
{
	static uint8_t mark[3][64];
	int64_t lo, len, x, q;
	int d, n = 0;
	uint32_t i, j, k;

	memset(mark, 0, sizeof(mark));
	for (d = 0; d < 3; d++) {
		int64_t v = m->v[d];

		switch (m->kind) {
		case VMGPU_MAP_IDENTITY: lo = c[d]; len = 1; break;
		case VMGPU_MAP_OFFSET: lo = c[d] + v; len = 1; break;
		case VMGPU_MAP_RADIUS: lo = c[d] - v; len = 2 * v + 1; break;
		case VMGPU_MAP_DOWNSAMPLE:
			lo = (int64_t)c[d] << v;
			len = 1 << v;
			break;
		default:
			if (!m->size[0] && !m->size[1] && !m->size[2]) {
				lo = 0;
				len = pg[d];
			} else {
				lo = v;
				len = m->size[d];
			}
		}
		for (x = lo; x < lo + len; x++) {
			q = x;
			if (x < 0 || x >= pg[d]) {
				if (m->policy == VMGPU_MAP_IGNORE)
					continue;
				if (m->policy == VMGPU_MAP_CLAMP)
					q = x < 0 ? 0 : pg[d] - 1;
				else
					q = ((x % pg[d]) + pg[d]) % pg[d];
			}
			mark[d][q] = 1;
		}
	}
	for (k = 0; k < pg[2]; k++)
		for (j = 0; j < pg[1]; j++)
			for (i = 0; i < pg[0]; i++)
				if (mark[0][i] && mark[1][j] && mark[2][k])
					out[n++] = i + pg[0] * (j + pg[1] * k);
	return n;
}

/*
 * Every kind under every policy, 1-D, 2-D and 3-D, at every consumer
 * portion (edges and corners included), against the reference.
 */
TEST(every_kind_and_policy_matches_the_reference)
{
	uint32_t out[VMGPU_MAP_MAX_ENTRIES], ref[64 * 64];
	unsigned int iter, checked = 0;

	for (iter = 0; iter < 3000; iter++) {
		struct vmgpu_region_map m;
		uint32_t pg[3] = { 1, 1, 1 }, cg[3] = { 1, 1, 1 }, c[3];
		unsigned int dims = 1 + rnd(3), d;
		int n, r;

		m = map_of(1 + rnd(VMGPU_MAP_SUPERSET), rnd(3), 0, 0, 0);
		for (d = 0; d < dims; d++) {
			pg[d] = 1 + rnd(7);
			cg[d] = 1 + rnd(7);
			switch (m.kind) {
			case VMGPU_MAP_OFFSET:
				m.v[d] = (int32_t)rnd(21) - 10;
				break;
			case VMGPU_MAP_RADIUS:
				m.v[d] = rnd(4);
				break;
			case VMGPU_MAP_DOWNSAMPLE:
				m.v[d] = rnd(3);
				break;
			case VMGPU_MAP_SUPERSET:
				m.v[d] = (int32_t)rnd(13) - 6;
				m.size[d] = 1 + rnd(8);
				break;
			}
		}
		if (m.kind == VMGPU_MAP_DOWNSAMPLE && !m.v[0] && !m.v[1] &&
		    !m.v[2])
			m.v[0] = 1;
		if (m.kind == VMGPU_MAP_SUPERSET && rnd(3) == 0) {
			memset(m.v, 0, sizeof(m.v));
			memset(m.size, 0, sizeof(m.size));
		} else if (m.kind == VMGPU_MAP_SUPERSET) {
			for (d = dims; d < 3; d++)
				m.size[d] = 1;
		}
		for (c[2] = 0; c[2] < cg[2]; c[2]++)
			for (c[1] = 0; c[1] < cg[1]; c[1]++)
				for (c[0] = 0; c[0] < cg[0]; c[0]++) {
					n = needs(&m, cg, pg, c[0], c[1], c[2],
						  NULL, out);
					r = reference(&m, pg, c, ref);
					ASSERT_EQ(r, n) {
						TH_LOG("kind %u policy %u at %u,%u,%u",
						       m.kind, m.policy, c[0],
						       c[1], c[2]);
					}
					ASSERT_EQ(0, memcmp(out, ref,
							    4 * (size_t)n));
					checked++;
				}
	}
	TH_LOG("%u consumer portions checked", checked);
}

/* Every rule of the encoding refuses, with its reason. */
TEST(validation_refusals)
{
	static const struct {
		uint8_t kind, policy;
		uint16_t reserved;
		uint32_t table_count;
		uint64_t table_va;
		int32_t v[3];
		uint32_t size[3];
		enum vmgpu_region_verdict verdict;
		const char *why;
	} bad[] = {
		{ 0, 0, 0, 0, 0, { 0 }, { 0 }, VMGPU_REGION_ILLEGAL,
		  "unknown mapping kind" },
		{ 7, 0, 0, 0, 0, { 0 }, { 0 }, VMGPU_REGION_ILLEGAL,
		  "unknown mapping kind" },
		{ 1, 3, 0, 0, 0, { 0 }, { 0 }, VMGPU_REGION_ILLEGAL,
		  "unknown out-of-range policy" },
		{ 1, 0, 1, 0, 0, { 0 }, { 0 }, VMGPU_REGION_ILLEGAL,
		  "mapping reserved field" },
		{ 1, 0, 0, 0, 0, { 1, 0, 0 }, { 0 }, VMGPU_REGION_ILLEGAL,
		  "vector in a mapping without one" },
		{ 2, 0, 0, 1, 0, { 0 }, { 0 }, VMGPU_REGION_ILLEGAL,
		  "table fields in a mapping without a table" },
		{ 2, 0, 0, 0, 8, { 0 }, { 0 }, VMGPU_REGION_ILLEGAL,
		  "table fields in a mapping without a table" },
		{ 3, 0, 0, 0, 0, { 1, 1, 0 }, { 1, 1, 1 },
		  VMGPU_REGION_ILLEGAL, "box size in a mapping without a box" },
		{ 3, 0, 0, 0, 0, { 16, 0, 0 }, { 0 }, VMGPU_REGION_TOO_MANY,
		  "radius over VMGPU_MAP_MAX_RADIUS" },
		{ 3, 0, 0, 0, 0, { 0, -1, 0 }, { 0 }, VMGPU_REGION_TOO_MANY,
		  "radius over VMGPU_MAP_MAX_RADIUS" },
		{ 3, 0, 0, 0, 0, { 15, 15, 1 }, { 0 }, VMGPU_REGION_TOO_MANY,
		  "mapping over VMGPU_MAP_MAX_ENTRIES entries" },
		{ 4, 0, 0, 0, 0, { 6, 0, 0 }, { 0 }, VMGPU_REGION_TOO_MANY,
		  "downsample shift over VMGPU_MAP_MAX_SHIFT" },
		{ 4, 0, 0, 0, 0, { 4, 4, 3 }, { 0 }, VMGPU_REGION_TOO_MANY,
		  "mapping over VMGPU_MAP_MAX_ENTRIES entries" },
		{ 4, 0, 0, 0, 0, { 0, 0, 0 }, { 0 }, VMGPU_REGION_ILLEGAL,
		  "downsample by 1: use IDENTITY" },
		{ 5, 0, 0, 0, 0, { 1, 0, 0 }, { 0 }, VMGPU_REGION_ILLEGAL,
		  "whole-grid superset with an origin" },
		{ 5, 0, 0, 0, 0, { 0 }, { 2, 0, 1 }, VMGPU_REGION_ILLEGAL,
		  "superset box with a zero side" },
		{ 5, 0, 0, 0, 0, { 0 }, { 64, 32, 1 }, VMGPU_REGION_TOO_MANY,
		  "mapping over VMGPU_MAP_MAX_ENTRIES entries" },
		/*
		 * Regression: the box's product wrapped to 0 in 64 bits
		 * (2^22 * 2^21 * 2^21) and was accepted; the device then
		 * wrote thousands of entries into a 1024-entry buffer.
		 */
		{ 5, 0, 0, 0, 0, { 0 }, { 1u << 22, 1u << 21, 1u << 21 },
		  VMGPU_REGION_TOO_MANY,
		  "mapping over VMGPU_MAP_MAX_ENTRIES entries" },
		{ 5, 0, 0, 0, 0, { 0 }, { 8, 1u << 31, 1u << 31 },
		  VMGPU_REGION_TOO_MANY,
		  "mapping over VMGPU_MAP_MAX_ENTRIES entries" },
		{ 6, 0, 0, 0, 8, { 0 }, { 0 }, VMGPU_REGION_ILLEGAL,
		  "table of zero entries per portion" },
		{ 6, 0, 0, 1025, 8, { 0 }, { 0 }, VMGPU_REGION_TOO_MANY,
		  "mapping over VMGPU_MAP_MAX_ENTRIES entries" },
		{ 6, 0, 0, 4, 0, { 0 }, { 0 }, VMGPU_REGION_ILLEGAL,
		  "table address zero or not 8-byte aligned" },
		{ 6, 0, 0, 4, 12, { 0 }, { 0 }, VMGPU_REGION_ILLEGAL,
		  "table address zero or not 8-byte aligned" },
		{ 6, 0, 0, 4, 8, { 0, 0, 2 }, { 0 }, VMGPU_REGION_ILLEGAL,
		  "vector in a mapping without one" },
	};
	const uint32_t big[3] = { 64, 32, 1 };
	struct vmgpu_region_map m;
	const char *why;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&m, 0, sizeof(m));
		m.kind = bad[i].kind;
		m.policy = bad[i].policy;
		m.reserved = bad[i].reserved;
		m.table_count = bad[i].table_count;
		m.table_va = bad[i].table_va;
		memcpy(m.v, bad[i].v, sizeof(m.v));
		memcpy(m.size, bad[i].size, sizeof(m.size));
		why = NULL;
		EXPECT_EQ(bad[i].verdict, vmgpu_region_map_check(&m, &why)) {
			TH_LOG("case %u", i);
		}
		EXPECT_STREQ(bad[i].why, why);
	}
	/* At the bounds: accepted. */
	m = map_of(VMGPU_MAP_RADIUS, VMGPU_MAP_CLAMP, 15, 15, 0);
	EXPECT_EQ(VMGPU_REGION_OK, vmgpu_region_map_check(&m, &why));
	EXPECT_EQ(961, vmgpu_region_map_span(&m, big));
	m = map_of(VMGPU_MAP_DOWNSAMPLE, VMGPU_MAP_CLAMP, 5, 5, 0);
	EXPECT_EQ(VMGPU_REGION_OK, vmgpu_region_map_check(&m, &why));
	m = map_of(VMGPU_MAP_TABLE, VMGPU_MAP_IGNORE, 0, 0, 0);
	m.table_count = VMGPU_MAP_MAX_ENTRIES;
	m.table_va = 8;
	EXPECT_EQ(VMGPU_REGION_OK, vmgpu_region_map_check(&m, &why));
	m = map_of(VMGPU_MAP_OFFSET, VMGPU_MAP_WRAP, INT32_MIN, 0, INT32_MAX);
	EXPECT_EQ(VMGPU_REGION_OK, vmgpu_region_map_check(&m, &why));
	/* A whole-grid superset is bounded by the producer's grid. */
	m = map_of(VMGPU_MAP_SUPERSET, VMGPU_MAP_CLAMP, 0, 0, 0);
	EXPECT_EQ(VMGPU_REGION_OK, vmgpu_region_map_check(&m, &why));
	EXPECT_EQ(VMGPU_REGION_OK, vmgpu_region_map_fit(&m, big, g64, &why));
	EXPECT_EQ(VMGPU_REGION_TOO_MANY,
		  vmgpu_region_map_fit(&m, g64, big, &why));
	EXPECT_STREQ("mapping over VMGPU_MAP_MAX_ENTRIES entries", why);
}

TEST(grid_refusals)
{
	struct vmgpu_region_map m = map_of(VMGPU_MAP_SUPERSET,
					   VMGPU_MAP_CLAMP, 0, 0, 0);
	const char *why;
	const uint32_t zero[3] = { 4, 0, 1 };
	const uint32_t wide[3] = { 32768, 1, 1 };
	const uint32_t many[3] = { 257, 256, 1 };
	const uint32_t most[3] = { 256, 256, 1 };

	EXPECT_EQ(VMGPU_REGION_ILLEGAL,
		  vmgpu_region_map_fit(&m, zero, g64, &why));
	EXPECT_STREQ("zero portion-grid dimension", why);
	EXPECT_EQ(VMGPU_REGION_TOO_MANY,
		  vmgpu_region_map_fit(&m, g64, wide, &why));
	EXPECT_STREQ("portion-grid dimension over VMGPU_REGION_MAX_GRID_DIM",
		     why);
	EXPECT_EQ(VMGPU_REGION_TOO_MANY,
		  vmgpu_region_grid_check(many, &why));
	EXPECT_STREQ("portion grid over VMGPU_REGION_MAX_PORTIONS", why);
	EXPECT_EQ(VMGPU_REGION_OK, vmgpu_region_grid_check(most, &why));
	EXPECT_EQ(65536, vmgpu_region_portions(most));
	EXPECT_EQ(0, vmgpu_region_portions(many));
	m = map_of(VMGPU_MAP_DOWNSAMPLE, VMGPU_MAP_CLAMP, 1, 0, 0);
	EXPECT_EQ(VMGPU_REGION_ILLEGAL,
		  vmgpu_region_map_fit(&m, g64, zero, &why));
	m.reserved = 4;
	EXPECT_EQ(VMGPU_REGION_ILLEGAL,
		  vmgpu_region_map_fit(&m, g64, g64, &why));
	EXPECT_STREQ("mapping reserved field", why);
}

/* The 40-byte little-endian encoding, as the device reads it. */
TEST(map_reads_from_little_endian_bytes)
{
	static const uint8_t b[VMGPU_REGION_MAP_BYTES] = {
		VMGPU_MAP_SUPERSET, VMGPU_MAP_WRAP, 0x34, 0x12,
		0x78, 0x56, 0x34, 0x12,
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0xfd, 0xff, 0xff, 0xff,	/* -3 */
		0x01, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x80,	/* INT32_MIN */
		0x03, 0x00, 0x00, 0x00,
		0x00, 0x01, 0x00, 0x00,
		0x01, 0x00, 0x00, 0x00,
	};
	struct vmgpu_region_map m;
	uint8_t host[VMGPU_REGION_MAP_BYTES];

	ASSERT_EQ(VMGPU_REGION_MAP_BYTES, sizeof(m));
	ASSERT_EQ(VMGPU_REGION_TABLE_ENTRY_BYTES,
		  sizeof(struct vmgpu_region_table_entry));
	vmgpu_region_map_read(&m, b);
	EXPECT_EQ(VMGPU_MAP_SUPERSET, m.kind);
	EXPECT_EQ(VMGPU_MAP_WRAP, m.policy);
	EXPECT_EQ(0x1234, m.reserved);
	EXPECT_EQ(0x12345678, m.table_count);
	EXPECT_EQ(0x0102030405060708ull, m.table_va);
	EXPECT_EQ(-3, m.v[0]);
	EXPECT_EQ(1, m.v[1]);
	EXPECT_EQ(INT32_MIN, m.v[2]);
	EXPECT_EQ(3, m.size[0]);
	EXPECT_EQ(256, m.size[1]);
	EXPECT_EQ(1, m.size[2]);
	/* The struct is the layout (on this little-endian host). */
	memcpy(host, &m, sizeof(host));
	EXPECT_EQ(0, memcmp(b, host, sizeof(b)));
}

TEST(dependency_entry_layout)
{
	struct vmgpu_dep_entry e = { 0x01020304, 3, VMGPU_DEP_READY, 0 };
	uint64_t w = vmgpu_dep_pack(0x01020304, 3, VMGPU_DEP_READY);
	struct vmgpu_dep_entry u = vmgpu_dep_unpack(w | 0xabcdull << 48);

	ASSERT_EQ(VMGPU_DEP_ENTRY_BYTES, sizeof(e));
	EXPECT_EQ(0, memcmp(&e, &w, sizeof(w)));	/* little-endian host */
	EXPECT_EQ(0x01020304, u.epoch);
	EXPECT_EQ(3, u.writer);
	EXPECT_EQ(VMGPU_DEP_READY, u.state);
	EXPECT_EQ(0xabcd, u.reserved);
	EXPECT_EQ(0x5000 + 8 * 7, vmgpu_dep_entry_va(0x5000, 7));
	EXPECT_EQ(0x10000000ull + 8ull * 65535,
		  vmgpu_dep_entry_va(0x10000000ull, 65535));
}

TEST(epoch_rule)
{
	const uint32_t e = 41;

	EXPECT_TRUE(vmgpu_dep_satisfies(vmgpu_dep_pack(e, 0, VMGPU_DEP_READY),
					e));
	EXPECT_TRUE(vmgpu_dep_satisfies(vmgpu_dep_pack(e, 7, VMGPU_DEP_READY),
					e));
	/* Stale (earlier) and future epochs, and an empty entry. */
	EXPECT_FALSE(vmgpu_dep_satisfies(vmgpu_dep_pack(e - 1, 0,
							VMGPU_DEP_READY), e));
	EXPECT_FALSE(vmgpu_dep_satisfies(vmgpu_dep_pack(e + 1, 0,
							VMGPU_DEP_READY), e));
	EXPECT_FALSE(vmgpu_dep_satisfies(vmgpu_dep_pack(e, 0,
							VMGPU_DEP_EMPTY), e));
	/* A zeroed table satisfies nothing; epoch 0 is never waited for. */
	EXPECT_FALSE(vmgpu_dep_satisfies(0, 0));
	EXPECT_FALSE(vmgpu_dep_satisfies(vmgpu_dep_pack(0, 0, VMGPU_DEP_READY),
					 0));
	/* Malformed: no such GPU, unknown state, reserved bits. */
	EXPECT_FALSE(vmgpu_dep_satisfies(vmgpu_dep_pack(e, VMGPU_MAX_GPUS,
							VMGPU_DEP_READY), e));
	EXPECT_FALSE(vmgpu_dep_satisfies(vmgpu_dep_pack(e, 0, 2), e));
	EXPECT_FALSE(vmgpu_dep_satisfies(vmgpu_dep_pack(e, 0, VMGPU_DEP_READY) |
					 1ull << 48, e));
	/* Epochs count 1 .. 2^32 - 1 and wrap to 1, never 0. */
	EXPECT_EQ(2, vmgpu_dep_epoch_next(1));
	EXPECT_EQ(0xffffffffu, vmgpu_dep_epoch_next(0xfffffffeu));
	EXPECT_EQ(1, vmgpu_dep_epoch_next(0xffffffffu));
	EXPECT_EQ(1, vmgpu_dep_epoch_next(0));
	EXPECT_FALSE(vmgpu_dep_satisfies(vmgpu_dep_pack(0xffffffffu, 0,
							VMGPU_DEP_READY),
					 vmgpu_dep_epoch_next(0xffffffffu)));
}

/*
 * A dependency table reused over many dispatches, never cleared: in each
 * epoch producers write a random subset of the entries; a waiter of that
 * epoch is released by exactly the entries written READY in it, never by
 * one left by an earlier dispatch. Epochs run across the 2^32 wrap.
 */
TEST(stale_entries_never_satisfy)
{
	enum { N = 96 };
	uint64_t table[N] = { 0 };
	uint32_t ready_in[N] = { 0 };
	uint32_t epoch = 0xffffffffu - 40;
	unsigned int round, i, released = 0, held = 0;

	for (round = 0; round < 200; round++) {
		epoch = vmgpu_dep_epoch_next(epoch);
		for (i = 0; i < N; i++) {
			uint32_t state = rnd(2) ? VMGPU_DEP_READY :
						  VMGPU_DEP_EMPTY;

			if (rnd(3))
				continue;
			table[i] = vmgpu_dep_pack(epoch, rnd(8), state);
			ready_in[i] = state == VMGPU_DEP_READY ? epoch : 0;
		}
		for (i = 0; i < N; i++) {
			int sat = vmgpu_dep_satisfies(table[i], epoch);

			ASSERT_EQ(ready_in[i] == epoch, sat) {
				TH_LOG("epoch %u entry %u", epoch, i);
			}
			if (sat)
				released++;
			else
				held++;
		}
	}
	EXPECT_LT(0, released);
	EXPECT_LT(0, held);
}

TEST_HARNESS_MAIN
