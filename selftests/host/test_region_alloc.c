// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dynamic allocation of portions (uapi/vmgpu_region.h, SPEC R7;
 * Documentation/regions.rst): serpentine curves and curve tables, the
 * four curves of the design's Figure 14 and its allocation sequence
 * (Figure 14b) step by step, a randomized property test (random portion
 * durations, 1-8 GPUs, 1-3 D grids: every portion taken exactly once,
 * each GPU following its curve and skipping only what others took),
 * threads racing on real atomics over epochs without clearing, and the
 * curve encoding's refusals.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "vmgpu_region.h"

#define MAXP	4096
#define MAXG	8

static uint32_t rng = 77;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

/* The atomic exchange the device does on a take word in GPU memory. */
static uint32_t xchg_word(void *ctx, uint32_t portion, uint32_t epoch)
{
	uint32_t *words = ctx;

	return __atomic_exchange_n(&words[portion], epoch, __ATOMIC_ACQ_REL);
}

static struct vmgpu_curve serpentine(const uint32_t *grid, uint32_t x,
				     uint32_t y, uint32_t z, uint8_t flags,
				     uint16_t band)
{
	const uint32_t p[3] = { x, y, z };
	struct vmgpu_curve c;

	memset(&c, 0, sizeof(c));
	c.kind = VMGPU_CURVE_SERPENTINE;
	c.flags = flags;
	c.band = band;
	c.start = vmgpu_region_linear(grid, p);
	return c;
}

static int adjacent(const uint32_t *grid, uint32_t a, uint32_t b)
{
	uint32_t p[3], q[3];
	int i, d = 0;

	vmgpu_region_coords(grid, a, p);
	vmgpu_region_coords(grid, b, q);
	for (i = 0; i < 3; i++)
		d += p[i] > q[i] ? p[i] - q[i] : q[i] - p[i];
	return d == 1;
}

/*
 * Every serpentine (all flags, bands, starts; 1-D, 2-D, 3-D) visits every
 * portion once; position and portion are inverse; with whole rows each
 * step goes to a neighbour (but the wrap back to the start), with bands
 * only a change of band may jump.
 */
TEST(serpentines_are_permutations_and_walk_neighbours)
{
	static const uint32_t grids[][3] = {
		{ 1, 1, 1 }, { 7, 1, 1 }, { 1, 5, 1 }, { 6, 4, 1 },
		{ 5, 3, 1 }, { 4, 4, 1 }, { 3, 2, 2 }, { 4, 3, 3 },
		{ 2, 5, 4 }, { 1, 1, 6 },
	};
	static uint8_t seen[MAXP];
	unsigned int gi, flags, band, start, i, jumps, checked = 0;

	for (gi = 0; gi < sizeof(grids) / sizeof(grids[0]); gi++) {
		const uint32_t *g = grids[gi];
		uint32_t n = vmgpu_region_portions(g);

		for (flags = 0; flags <= VMGPU_CURVE_F_ALL; flags++)
			for (band = 0; band <= g[0] + g[1]; band++)
				for (start = 0; start < n; start++) {
					struct vmgpu_curve c;
					uint32_t p[3], s[3], first = 0, prev = 0;
					const char *why = NULL;
					uint32_t u = flags & VMGPU_CURVE_F_COLUMNS ?
						     g[1] : g[0];
					uint32_t bw = band && band < u ? band : u;

					vmgpu_region_coords(g, start, s);
					c = serpentine(g, s[0], s[1], s[2],
						       flags, band);
					ASSERT_EQ(VMGPU_REGION_OK,
						  vmgpu_curve_check(&c, g, &why));
					memset(seen, 0, n);
					jumps = 0;
					for (i = 0; i < n; i++) {
						uint32_t lin = vmgpu_curve_at(&c, g, NULL, i);

						ASSERT_LT(lin, n);
						ASSERT_EQ(0, seen[lin]);
						seen[lin] = 1;
						vmgpu_region_coords(g, lin, p);
						if (i == 0)
							first = lin;
						else if (!adjacent(g, prev, lin))
							jumps++;
						prev = lin;
					}
					EXPECT_EQ(start, first);
					EXPECT_EQ(VMGPU_PORTION_NONE,
						  vmgpu_curve_at(&c, g, NULL, n));
					/* bands - 1 changes per layer, one wrap */
					ASSERT_GE(((u + bw - 1) / bw - 1) * g[2] + 1,
						  jumps) {
						TH_LOG("grid %u flags %u band %u start %u",
						       gi, flags, band, start);
					}
					/* position <-> portion */
					for (i = 0; i < n; i++) {
						vmgpu_region_coords(g, i, p);
						vmgpu_serpentine_at(&c, g,
							vmgpu_serpentine_pos(&c, g, p), s);
						ASSERT_EQ(0, memcmp(p, s, sizeof(p)));
					}
					checked++;
				}
	}
	TH_LOG("%u curves checked", checked);
}

/* A 2-D serpentine drawn: rows alternate, bands turn back. */
TEST(serpentine_order_by_hand)
{
	const uint32_t g[3] = { 4, 3, 1 };
	/* rows along x from (0, 0): 0 1 2 3 / 7 6 5 4 / 8 9 10 11 */
	static const uint32_t rows[12] = { 0, 1, 2, 3, 7, 6, 5, 4,
					   8, 9, 10, 11 };
	/* bands of 2: band 0 rows 0..2, band 1 rows 2..0 */
	static const uint32_t band2[12] = { 0, 1, 5, 4, 8, 9,
					    11, 10, 6, 7, 3, 2 };
	/* columns, mirrored in x: (3, 0) down, (2, 2) up, ... */
	static const uint32_t cols[12] = { 3, 7, 11, 10, 6, 2,
					   1, 5, 9, 8, 4, 0 };
	struct vmgpu_curve c = serpentine(g, 0, 0, 0, 0, 0);
	uint32_t i;

	for (i = 0; i < 12; i++)
		EXPECT_EQ(rows[i], vmgpu_curve_at(&c, g, NULL, i));
	c = serpentine(g, 0, 0, 0, 0, 2);
	for (i = 0; i < 12; i++)
		EXPECT_EQ(band2[i], vmgpu_curve_at(&c, g, NULL, i));
	c = serpentine(g, 3, 0, 0, VMGPU_CURVE_F_COLUMNS | VMGPU_CURVE_F_FLIP_X,
		       0);
	for (i = 0; i < 12; i++)
		EXPECT_EQ(cols[i], vmgpu_curve_at(&c, g, NULL, i));
	/* Started in the middle, the walk goes on cyclically. */
	c = serpentine(g, 1, 1, 0, 0, 0);
	for (i = 0; i < 12; i++)
		EXPECT_EQ(rows[(i + 6) % 12], vmgpu_curve_at(&c, g, NULL, i));
	/* 3-D: layer 1 walks layer 0's order backwards. */
	{
		const uint32_t g3[3] = { 2, 2, 2 };
		static const uint32_t want[8] = { 0, 1, 3, 2, 6, 7, 5, 4 };

		c = serpentine(g3, 0, 0, 0, 0, 0);
		for (i = 0; i < 8; i++)
			EXPECT_EQ(want[i], vmgpu_curve_at(&c, g3, NULL, i));
	}
}

/* ------------------------------------------------------------------ */
/* Figure 14                                                             */
/* ------------------------------------------------------------------ */

static const uint32_t fig[3] = { 6, 4, 1 };

/* The curves of A, B, C and D (Documentation/regions.rst, Figure 14). */
static struct vmgpu_curve fig14_curve(unsigned int gpu)
{
	switch (gpu) {
	case 0:	/* A: 3-wide bands of rows, from (0, 1) rightwards, up */
		return serpentine(fig, 0, 1, 0, VMGPU_CURVE_F_FLIP_Y, 3);
	case 1:	/* B: whole rows, from (5, 1) leftwards, down */
		return serpentine(fig, 5, 1, 0, 0, 0);
	case 2:	/* C: columns, from (0, 2) down, rightwards */
		return serpentine(fig, 0, 2, 0, VMGPU_CURVE_F_COLUMNS, 0);
	default: /* D: C mirrored, from (5, 2) down, leftwards */
		return serpentine(fig, 5, 2, 0,
				  VMGPU_CURVE_F_COLUMNS | VMGPU_CURVE_F_FLIP_X,
				  0);
	}
}

#define P(x, y)	((x) + 6 * (y))

TEST(figure14_curves)
{
	static const uint32_t want[4][24] = {
		{ P(0, 1), P(1, 1), P(2, 1), P(2, 0), P(1, 0), P(0, 0),
		  P(3, 0), P(4, 0), P(5, 0), P(5, 1), P(4, 1), P(3, 1),
		  P(3, 2), P(4, 2), P(5, 2), P(5, 3), P(4, 3), P(3, 3),
		  P(0, 3), P(1, 3), P(2, 3), P(2, 2), P(1, 2), P(0, 2) },
		{ P(5, 1), P(4, 1), P(3, 1), P(2, 1), P(1, 1), P(0, 1),
		  P(0, 2), P(1, 2), P(2, 2), P(3, 2), P(4, 2), P(5, 2),
		  P(5, 3), P(4, 3), P(3, 3), P(2, 3), P(1, 3), P(0, 3),
		  P(0, 0), P(1, 0), P(2, 0), P(3, 0), P(4, 0), P(5, 0) },
		{ P(0, 2), P(0, 3), P(1, 3), P(1, 2), P(1, 1), P(1, 0),
		  P(2, 0), P(2, 1), P(2, 2), P(2, 3), P(3, 3), P(3, 2),
		  P(3, 1), P(3, 0), P(4, 0), P(4, 1), P(4, 2), P(4, 3),
		  P(5, 3), P(5, 2), P(5, 1), P(5, 0), P(0, 0), P(0, 1) },
		{ P(5, 2), P(5, 3), P(4, 3), P(4, 2), P(4, 1), P(4, 0),
		  P(3, 0), P(3, 1), P(3, 2), P(3, 3), P(2, 3), P(2, 2),
		  P(2, 1), P(2, 0), P(1, 0), P(1, 1), P(1, 2), P(1, 3),
		  P(0, 3), P(0, 2), P(0, 1), P(0, 0), P(5, 0), P(5, 1) },
	};
	unsigned int gpu, i;

	for (gpu = 0; gpu < 4; gpu++) {
		struct vmgpu_curve c = fig14_curve(gpu);

		for (i = 0; i < 24; i++)
			EXPECT_EQ(want[gpu][i], vmgpu_curve_at(&c, fig, NULL, i)) {
				TH_LOG("GPU %c step %u", 'A' + gpu, i + 1);
			}
	}
}

/*
 * The step model: at each step every free GPU, in the order @order (the
 * order its atomic lands), walks its curve from its cursor and takes the
 * first portion not yet taken; a portion keeps its GPU busy for
 * dur(portion) steps. Records who took what, when, in what global order.
 */
struct sim {
	unsigned int gpus;
	uint32_t grid[3], n, epoch;
	struct vmgpu_curve curve[MAXG];
	const void *table[MAXG];
	uint32_t words[MAXP];
	/* per portion */
	uint32_t owner[MAXP], step[MAXP], ord[MAXP], dur[MAXP];
	/* per GPU */
	uint32_t cursor[MAXG], free_at[MAXG], done_ord[MAXG];
	uint32_t seq[MAXG][MAXP], nseq[MAXG];
	uint32_t takes, last_step;
};

static void sim_init(struct sim *s, unsigned int gpus, const uint32_t *grid,
		     uint32_t epoch)
{
	memset(s, 0, sizeof(*s));
	s->gpus = gpus;
	memcpy(s->grid, grid, sizeof(s->grid));
	s->n = vmgpu_region_portions(grid);
	s->epoch = epoch;
	memset(s->owner, 0xff, sizeof(s->owner));
	for (unsigned int i = 0; i < s->n; i++)
		s->dur[i] = 1;
	for (unsigned int g = 0; g < gpus; g++)
		s->free_at[g] = 1;
}

/* Run to the end; @shuffle: a random GPU order at each step. */
static int sim_run(struct sim *s, int shuffle)
{
	unsigned int order[MAXG], g, k, live = s->gpus, t;

	for (t = 1; live; t++) {
		for (k = 0; k < s->gpus; k++)
			order[k] = k;
		for (k = s->gpus; shuffle && k > 1; k--) {
			unsigned int j = rnd(k), tmp = order[k - 1];

			order[k - 1] = order[j];
			order[j] = tmp;
		}
		for (k = 0; k < s->gpus; k++) {
			uint32_t p;

			g = order[k];
			if (s->free_at[g] != t)
				continue;
			p = vmgpu_alloc_next(&s->curve[g], s->grid,
					     s->table[g], s->epoch,
					     &s->cursor[g], xchg_word,
					     s->words);
			if (p == VMGPU_PORTION_NONE) {
				s->done_ord[g] = s->takes;
				s->free_at[g] = 0;
				live--;
				continue;
			}
			if (p >= s->n || s->owner[p] != 0xffffffffu)
				return -1;	/* taken twice */
			s->owner[p] = g;
			s->step[p] = t;
			s->ord[p] = s->takes++;
			s->seq[g][s->nseq[g]++] = p;
			s->free_at[g] = t + s->dur[p];
			s->last_step = t;
		}
	}
	return 0;
}

/*
 * Figure 14b: C's first portion lasts 3 steps (busy through step 3), B's
 * first 2, every other portion 1 step; at a step the free GPUs take in
 * the order A, B, C, D.
 */
TEST(figure14b_allocation_sequence)
{
	static const struct {
		uint32_t step;
		char gpu;
		uint32_t x, y;
	} want[24] = {
		{ 1, 'A', 0, 1 }, { 1, 'B', 5, 1 }, { 1, 'C', 0, 2 },
		{ 1, 'D', 5, 2 },
		{ 2, 'A', 1, 1 }, { 2, 'D', 5, 3 },
		{ 3, 'A', 2, 1 }, { 3, 'B', 4, 1 }, { 3, 'D', 4, 3 },
		{ 4, 'A', 2, 0 }, { 4, 'B', 3, 1 }, { 4, 'C', 0, 3 },
		{ 4, 'D', 4, 2 },
		{ 5, 'A', 1, 0 }, { 5, 'B', 1, 2 }, { 5, 'C', 1, 3 },
		{ 5, 'D', 4, 0 },
		{ 6, 'A', 0, 0 }, { 6, 'B', 2, 2 }, { 6, 'C', 2, 3 },
		{ 6, 'D', 3, 0 },
		{ 7, 'A', 5, 0 }, { 7, 'B', 3, 2 }, { 7, 'C', 3, 3 },
	};
	static struct sim s;
	uint32_t by_ord[24], i, g;

	sim_init(&s, 4, fig, 1);
	for (g = 0; g < 4; g++)
		s.curve[g] = fig14_curve(g);
	s.dur[P(0, 2)] = 3;
	s.dur[P(5, 1)] = 2;
	ASSERT_EQ(0, sim_run(&s, 0));
	ASSERT_EQ(24, s.takes);
	for (i = 0; i < 24; i++)
		by_ord[s.ord[i]] = i;
	for (i = 0; i < 24; i++) {
		uint32_t p = by_ord[i];

		EXPECT_EQ(want[i].step, s.step[p]);
		EXPECT_EQ(want[i].gpu, 'A' + s.owner[p]);
		EXPECT_EQ(P(want[i].x, want[i].y), p) {
			TH_LOG("take %u: want %c (%u,%u) at step %u", i,
			       want[i].gpu, want[i].x, want[i].y, want[i].step);
		}
	}
	/* The design's statements, one by one. */
	EXPECT_EQ(4, s.step[P(0, 3)]);	/* C busy through step 3 */
	EXPECT_EQ(P(1, 1), s.seq[0][1]);	/* A: (1,1), (2,1), (2,0) */
	EXPECT_EQ(P(2, 1), s.seq[0][2]);
	EXPECT_EQ(P(2, 0), s.seq[0][3]);
	EXPECT_GE(4, s.step[P(2, 0)]);
	EXPECT_EQ(P(4, 1), s.seq[1][1]);	/* B: (4,1), (3,1) */
	EXPECT_EQ(P(3, 1), s.seq[1][2]);
	EXPECT_GE(4, s.step[P(3, 1)]);
	/* B at step 5 skips (2,1), (1,1), (0,1), (0,2): cursor 3 -> 8 */
	EXPECT_EQ(P(1, 2), s.seq[1][3]);
	EXPECT_EQ(5, s.step[P(1, 2)]);
	EXPECT_EQ(7, s.last_step);
	EXPECT_EQ(7, s.nseq[0]);
	EXPECT_EQ(6, s.nseq[1]);
	EXPECT_EQ(5, s.nseq[2]);
	EXPECT_EQ(6, s.nseq[3]);
}

/*
 * GPU @g's takes are its curve with only portions other GPUs took first
 * left out, and it stopped only when all of the rest was taken.
 */
static int follows_curve(const struct sim *s, unsigned int g)
{
	uint32_t i, k = 0, p;

	for (i = 0; i < s->n; i++) {
		p = vmgpu_curve_at(&s->curve[g], s->grid, s->table[g], i);
		if (k < s->nseq[g] && p == s->seq[g][k]) {
			k++;
			continue;
		}
		if (s->owner[p] == g)
			return 0;	/* its own, out of order */
		/* skipped: someone had it before g moved past it */
		if (k < s->nseq[g] ? s->ord[p] > s->ord[s->seq[g][k]] :
				     s->ord[p] >= s->done_ord[g])
			return 0;
	}
	return k == s->nseq[g];
}

/*
 * Random portion durations, 1-8 GPUs, 1-3 D grids, serpentines and
 * tables, random landing order of simultaneous takes, take words left
 * with other epochs' values: every portion taken exactly once, each GPU
 * following its curve.
 */
TEST(random_durations_take_every_portion_exactly_once)
{
	static struct sim s;
	static uint32_t tables[MAXG][MAXP];
	unsigned int iter, g, i, total_skips = 0;

	for (iter = 0; iter < 1500; iter++) {
		uint32_t grid[3] = { 1, 1, 1 }, epoch = 1 + rnd(0xfffffffe);
		unsigned int gpus = 1 + rnd(MAXG), dims = 1 + rnd(3), d;

		for (d = 0; d < dims; d++)
			grid[d] = 1 + rnd(dims == 1 ? 64 : dims == 2 ? 12 : 6);
		sim_init(&s, gpus, grid, epoch);
		for (i = 0; i < s.n; i++) {
			s.dur[i] = 1 + rnd(rnd(2) ? 3 : 12);
			/* stale words: earlier, later, zero, anything */
			s.words[i] = rnd(4) == 0 ? epoch - 1 : rnd(3) == 0 ?
				     epoch + 1 : rnd(2) ? 0 : rng;
			if (s.words[i] == epoch)
				s.words[i] = 0;
		}
		for (g = 0; g < gpus; g++) {
			const char *why;

			if (rnd(3) == 0) {	/* a random permutation */
				uint32_t scratch[MAXP / 32];

				for (i = 0; i < s.n; i++)
					tables[g][i] = i;
				for (i = s.n; i > 1; i--) {
					uint32_t j = rnd(i), t = tables[g][i - 1];

					tables[g][i - 1] = tables[g][j];
					tables[g][j] = t;
				}
				memset(&s.curve[g], 0, sizeof(s.curve[g]));
				s.curve[g].kind = VMGPU_CURVE_TABLE;
				s.curve[g].table_va = 0x1000 + 0x10000 * g;
				s.curve[g].table_count = s.n;
				s.table[g] = tables[g];
				ASSERT_EQ(VMGPU_REGION_OK,
					  vmgpu_curve_table_check(tables[g], s.n,
								  scratch, &why));
			} else {
				s.curve[g].kind = VMGPU_CURVE_SERPENTINE;
				s.curve[g].flags = rnd(VMGPU_CURVE_F_ALL + 1);
				s.curve[g].band = rnd(grid[0] + grid[1] + 1);
				s.curve[g].start = rnd(s.n);
			}
			ASSERT_EQ(VMGPU_REGION_OK,
				  vmgpu_curve_check(&s.curve[g], grid, &why));
		}
		ASSERT_EQ(0, sim_run(&s, 1)) {
			TH_LOG("iteration %u: a portion taken twice", iter);
		}
		ASSERT_EQ(s.n, s.takes);
		for (i = 0; i < s.n; i++) {
			ASSERT_LT(s.owner[i], gpus);
			ASSERT_EQ(epoch, s.words[i]);
		}
		for (g = 0; g < gpus; g++) {
			ASSERT_TRUE(follows_curve(&s, g)) {
				TH_LOG("iteration %u GPU %u", iter, g);
			}
			total_skips += s.cursor[g] - s.nseq[g];
		}
	}
	TH_LOG("%u portions skipped as taken", total_skips);
	EXPECT_LT(0, total_skips);
}

/* Threads racing on shared take words, epoch after epoch, no clearing. */
struct racer {
	pthread_barrier_t *bar;
	uint32_t *words, grid[3], rounds;
	struct vmgpu_curve curve;
	uint32_t *count;	/* [rounds][portions]: times taken */
};

static void *race(void *arg)
{
	struct racer *r = arg;
	uint32_t n = vmgpu_region_portions(r->grid), round, epoch = 0, p;

	for (round = 0; round < r->rounds; round++) {
		uint32_t cursor = 0;

		epoch = vmgpu_dep_epoch_next(epoch);
		pthread_barrier_wait(r->bar);
		while ((p = vmgpu_alloc_next(&r->curve, r->grid, NULL, epoch,
					     &cursor, xchg_word, r->words)) !=
		       VMGPU_PORTION_NONE)
			__atomic_fetch_add(&r->count[round * n + p], 1,
					   __ATOMIC_RELAXED);
	}
	return NULL;
}

TEST(threads_take_every_portion_exactly_once)
{
	enum { THREADS = 8, ROUNDS = 40 };
	const uint32_t grid[3] = { 16, 12, 2 };
	uint32_t n = vmgpu_region_portions(grid), i;
	static uint32_t words[MAXP], count[ROUNDS * MAXP];
	struct racer r[THREADS];
	pthread_t th[THREADS];
	pthread_barrier_t bar;

	ASSERT_EQ(0, pthread_barrier_init(&bar, NULL, THREADS));
	for (i = 0; i < THREADS; i++) {
		r[i].bar = &bar;
		r[i].words = words;
		memcpy(r[i].grid, grid, sizeof(grid));
		r[i].rounds = ROUNDS;
		r[i].count = count;
		r[i].curve = serpentine(grid, rnd(16), rnd(12), rnd(2),
					rnd(VMGPU_CURVE_F_ALL + 1), rnd(8));
		ASSERT_EQ(0, pthread_create(&th[i], NULL, race, &r[i]));
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&bar);
	for (i = 0; i < ROUNDS * n; i++)
		ASSERT_EQ(1, count[i]) {
			TH_LOG("round %u portion %u", i / n, i % n);
		}
}

TEST(curve_refusals)
{
	const uint32_t g[3] = { 6, 4, 1 }, bad_grid[3] = { 6, 0, 1 };
	struct vmgpu_curve c = serpentine(g, 5, 3, 0, VMGPU_CURVE_F_ALL, 9);
	const char *why = NULL;

	EXPECT_EQ(VMGPU_REGION_OK, vmgpu_curve_check(&c, g, &why));
	EXPECT_EQ(VMGPU_REGION_ILLEGAL, vmgpu_curve_check(&c, bad_grid, &why));
	EXPECT_STREQ("zero portion-grid dimension", why);
	c.reserved = 1;
	EXPECT_EQ(VMGPU_REGION_ILLEGAL, vmgpu_curve_check(&c, g, &why));
	EXPECT_STREQ("curve reserved field", why);
	c = serpentine(g, 0, 0, 0, 1u << 4, 0);
	EXPECT_EQ(VMGPU_REGION_ILLEGAL, vmgpu_curve_check(&c, g, &why));
	EXPECT_STREQ("unknown curve flags", why);
	c = serpentine(g, 0, 0, 0, 0, 0);
	c.table_count = 24;
	EXPECT_EQ(VMGPU_REGION_ILLEGAL, vmgpu_curve_check(&c, g, &why));
	EXPECT_STREQ("table fields in a serpentine", why);
	c = serpentine(g, 0, 0, 0, 0, 0);
	c.start = 24;
	EXPECT_EQ(VMGPU_REGION_ILLEGAL, vmgpu_curve_check(&c, g, &why));
	EXPECT_STREQ("curve start outside the grid", why);
	c.kind = 0;
	EXPECT_EQ(VMGPU_REGION_ILLEGAL, vmgpu_curve_check(&c, g, &why));
	EXPECT_STREQ("unknown curve kind", why);
	c.kind = VMGPU_CURVE_NUM_KINDS;
	EXPECT_EQ(VMGPU_REGION_ILLEGAL, vmgpu_curve_check(&c, g, &why));
	memset(&c, 0, sizeof(c));
	c.kind = VMGPU_CURVE_TABLE;
	c.table_va = 0x2000;
	c.table_count = 24;
	EXPECT_EQ(VMGPU_REGION_OK, vmgpu_curve_check(&c, g, &why));
	c.start = 1;
	EXPECT_EQ(VMGPU_REGION_ILLEGAL, vmgpu_curve_check(&c, g, &why));
	EXPECT_STREQ("serpentine fields in a table curve", why);
	c.start = 0;
	c.band = 2;
	EXPECT_EQ(VMGPU_REGION_ILLEGAL, vmgpu_curve_check(&c, g, &why));
	c.band = 0;
	c.table_va = 0x2002;
	EXPECT_EQ(VMGPU_REGION_ILLEGAL, vmgpu_curve_check(&c, g, &why));
	EXPECT_STREQ("curve table address zero or not 4-byte aligned", why);
	c.table_va = 0;
	EXPECT_EQ(VMGPU_REGION_ILLEGAL, vmgpu_curve_check(&c, g, &why));
	c.table_va = 0x2000;
	c.table_count = 23;
	EXPECT_EQ(VMGPU_REGION_ILLEGAL, vmgpu_curve_check(&c, g, &why));
	EXPECT_STREQ("curve table not one entry per portion", why);
}

TEST(curve_tables)
{
	const uint32_t g[3] = { 3, 2, 1 };
	uint32_t table[6] = { 5, 0, 4, 1, 3, 2 }, scratch[1], words[6] = { 0 };
	struct vmgpu_curve c;
	const char *why = NULL;
	uint32_t i, cursor = 0;

	memset(&c, 0, sizeof(c));
	c.kind = VMGPU_CURVE_TABLE;
	c.table_va = 0x4000;
	c.table_count = 6;
	EXPECT_EQ(VMGPU_REGION_OK,
		  vmgpu_curve_table_check(table, 6, scratch, &why));
	for (i = 0; i < 6; i++)
		EXPECT_EQ(table[i], vmgpu_curve_at(&c, g, table, i));
	EXPECT_EQ(VMGPU_PORTION_NONE, vmgpu_curve_at(&c, g, table, 6));
	/* Another GPU took 0 and 4: this one takes 5, then 1. */
	words[0] = 9;
	words[4] = 9;
	EXPECT_EQ(5, vmgpu_alloc_next(&c, g, table, 9, &cursor, xchg_word,
				      words));
	EXPECT_EQ(1, cursor);
	EXPECT_EQ(1, vmgpu_alloc_next(&c, g, table, 9, &cursor, xchg_word,
				      words));
	EXPECT_EQ(4, cursor);
	EXPECT_EQ(9, words[5]);
	EXPECT_EQ(9, words[1]);
	/* Epoch 0 is never an epoch. */
	cursor = 0;
	EXPECT_EQ(VMGPU_PORTION_NONE,
		  vmgpu_alloc_next(&c, g, table, 0, &cursor, xchg_word, words));
	EXPECT_EQ(0, cursor);
	/* An entry outside the grid ends the walk; the check names it. */
	table[3] = 6;
	EXPECT_EQ(VMGPU_PORTION_NONE, vmgpu_curve_at(&c, g, table, 3));
	EXPECT_EQ(VMGPU_REGION_ILLEGAL,
		  vmgpu_curve_table_check(table, 6, scratch, &why));
	EXPECT_STREQ("curve table entry outside the grid", why);
	table[3] = 4;
	EXPECT_EQ(VMGPU_REGION_ILLEGAL,
		  vmgpu_curve_table_check(table, 6, scratch, &why));
	EXPECT_STREQ("curve table names a portion twice", why);
	EXPECT_EQ(0x8000 + 4 * 5, vmgpu_alloc_word_va(0x8000, 5));
}

/* The 24-byte little-endian encoding, as the device reads it. */
TEST(curve_reads_from_little_endian_bytes)
{
	static const uint8_t b[VMGPU_CURVE_BYTES] = {
		VMGPU_CURVE_SERPENTINE, 0x0b, 0x03, 0x01,
		0x17, 0x00, 0x00, 0x00,
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0x44, 0x33, 0x22, 0x11,
		0x01, 0x00, 0x00, 0x80,
	};
	struct vmgpu_curve c;
	uint8_t host[VMGPU_CURVE_BYTES];

	ASSERT_EQ(VMGPU_CURVE_BYTES, sizeof(c));
	vmgpu_curve_read(&c, b);
	EXPECT_EQ(VMGPU_CURVE_SERPENTINE, c.kind);
	EXPECT_EQ(0x0b, c.flags);
	EXPECT_EQ(0x0103, c.band);
	EXPECT_EQ(23, c.start);
	EXPECT_EQ(0x0102030405060708ull, c.table_va);
	EXPECT_EQ(0x11223344, c.table_count);
	EXPECT_EQ(0x80000001u, c.reserved);
	memcpy(host, &c, sizeof(host));
	EXPECT_EQ(0, memcmp(b, host, sizeof(b)));
}

TEST_HARNESS_MAIN
