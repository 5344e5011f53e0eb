// SPDX-License-Identifier: MIT
/*
 * libvmgpu task graphs: the command scheduler (SPEC T4). Passes are put
 * into stages, earliest first: a stage takes, in program order, every
 * pass whose dependencies are all in earlier stages and that fits with
 * the passes already in it (the fit rule, Documentation/taskgraph.rst);
 * a pass that does not fit waits for the next stage. A pass starts after
 * its dependencies and after every pass of the stage before its own, so
 * only passes of one stage run together; of those waits, each pass keeps
 * only the ones no other of its waits implies.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tg_internal.h"
#include "vmgpu/graph.h"

/* Largest graph compiled: the waits' reduction keeps a bit matrix. */
#define TG_MAX_COMPILE_PASSES	16384

struct fit {
	struct vmgpu_graph_needs cap;	/* 0: no limit */
	uint64_t mem_cap;
	uint64_t budget;		/* transient bytes live; 0: none */
	struct vmgpu_graph_needs used;
	uint64_t mem_used;
	bool copy_used;			/* a pass of the stage copies or clears */
};

static bool dim_fits(uint64_t cap, uint64_t used, uint64_t need)
{
	return !cap || (need <= cap && used <= cap - need);
}

static uint64_t pass_new_memory(const struct vmgpu_graph *g,
				const struct tg_pass *p, const uint32_t *mark,
				uint32_t stamp)
{
	uint64_t bytes = 0;
	uint32_t i;

	for (i = 0; i < p->nreads; i++)
		if (mark[p->reads[i]] != stamp)
			bytes += g->res[p->reads[i]].size;
	for (i = 0; i < p->nwrites; i++) {
		uint32_t r = p->writes[i], j;

		for (j = 0; j < p->nreads && p->reads[j] != r; j++)
			;
		if (mark[r] != stamp && j == p->nreads)
			bytes += g->res[r].size;
	}
	return bytes;
}

/*
 * Does @p use the copy engine (a COPY or a CLEAR)? The engine runs one
 * copy at a time, so a stage takes at most one such pass, and puts it
 * beside passes that use the SMs (T4: units paired).
 */
static bool pass_copies(const struct tg_pass *p)
{
	uint32_t i;

	for (i = 0; i < p->ncmds; i++)
		if (p->cmds[i].type == TG_CMD_COPY ||
		    p->cmds[i].type == TG_CMD_CLEAR)
			return true;
	return false;
}

static bool pass_fits(const struct fit *f, const struct tg_pass *p,
		      uint64_t mem)
{
	return !(f->copy_used && pass_copies(p)) && dim_fits(f->cap.blocks, f->used.blocks, p->needs.blocks) &&
	       dim_fits(f->cap.threads, f->used.threads, p->needs.threads) &&
	       dim_fits(f->cap.regs, f->used.regs, p->needs.regs) &&
	       dim_fits(f->cap.shared_bytes, f->used.shared_bytes,
			p->needs.shared_bytes) &&
	       dim_fits(f->mem_cap, f->mem_used, mem);
}

/*
 * Bytes of the transient resources @p would bring to life: not touched
 * by a scheduled pass nor by one taken into this stage (@born == @stamp);
 * with @take, mark them taken.
 */
static uint64_t new_transients(const struct vmgpu_graph *g,
			       const struct tg_pass *p, const uint32_t *sched,
			       uint32_t *born, uint32_t stamp, bool take)
{
	uint64_t bytes = 0;
	uint32_t j, r;

	for (j = 0; j < tg_pass_nres(p); j++) {
		r = tg_pass_res(p, j);
		if (g->res[r].bo || sched[r] || born[r] == stamp ||
		    tg_pass_dup(p, j))
			continue;
		bytes += g->res[r].size;
		if (take)
			born[r] = stamp;
	}
	return bytes;
}

static void mark_pass(const struct tg_pass *p, uint32_t *mark, uint32_t stamp)
{
	uint32_t i;

	for (i = 0; i < p->nreads; i++)
		mark[p->reads[i]] = stamp;
	for (i = 0; i < p->nwrites; i++)
		mark[p->writes[i]] = stamp;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

struct prio_pass {
	uint64_t prio;
	uint32_t pass;
};

/* Higher priority first, then program order. */
static int cmp_prio(const void *a, const void *b)
{
	const struct prio_pass *x = a, *y = b;

	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	return x->pass < y->pass ? -1 : x->pass > y->pass;
}

/* s->by_prio from s->prio. */
static int sort_by_prio(struct vmgpu_schedule *s)
{
	struct prio_pass *v = calloc(s->npasses + 1, sizeof(*v));
	uint32_t i;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < s->npasses; i++) {
		v[i].prio = s->prio[i];
		v[i].pass = i;
	}
	qsort(v, s->npasses, sizeof(*v), cmp_prio);
	for (i = 0; i < s->npasses; i++)
		s->by_prio[i] = v[i].pass;
	free(v);
	return 0;
}

static int cmp_dep(const void *a, const void *b)
{
	const struct vmgpu_graph_dep *x = a, *y = b;

	return x->pass < y->pass ? -1 : x->pass > y->pass;
}

void vmgpu_schedule_destroy(struct vmgpu_schedule *s)
{
	if (!s)
		return;
	free(s->shape);
	free(s->order);
	free(s->stage_start);
	free(s->stage_of);
	free(s->wait_first);
	free(s->waits);
	free(s->by_prio);
	free(s->prio);
	free(s->heap_offset);
	free(s->live_first);
	free(s->live_last);
	free(s);
}

/* Stages: fills s->order, s->stage_start, s->stage_of, s->nstages. */
static int make_stages(const struct vmgpu_graph *g, struct vmgpu_schedule *s,
		       const struct fit *limits)
{
	uint32_t n = g->npasses, i, j, nready = 0, done = 0;
	uint32_t *remaining, *ready, *rev_first, *rev, *mark, *rank, *taken;
	uint32_t *touch, *sched, *mark2;
	uint64_t live = 0;
	int ret = -ENOMEM;

	remaining = calloc(n + 1, sizeof(*remaining));
	ready = calloc(n + 1, sizeof(*ready));
	rev_first = calloc(n + 2, sizeof(*rev_first));
	rank = calloc(n + 1, sizeof(*rank));
	taken = calloc(n + 1, sizeof(*taken));
	mark = calloc(g->nres + 1, sizeof(*mark));
	mark2 = calloc(g->nres + 1, sizeof(*mark2));
	touch = calloc(g->nres + 1, sizeof(*touch));
	sched = calloc(g->nres + 1, sizeof(*sched));
	rev = NULL;
	if (!remaining || !ready || !rev_first || !rank || !taken || !mark ||
	    !mark2 || !touch || !sched)
		goto out;
	for (i = 0; i < n; i++)
		rank[s->by_prio[i]] = i;
	/* Reverse edges: the passes that depend on each pass. */
	for (i = 0; i < n; i++)
		for (j = 0; j < g->passes[i].ndeps; j++)
			rev_first[g->passes[i].deps[j].pass + 1]++;
	for (i = 0; i < n; i++)
		rev_first[i + 1] += rev_first[i];
	rev = calloc(rev_first[n] + 1, sizeof(*rev));
	if (!rev)
		goto out;
	{
		uint32_t *fill = calloc(n + 1, sizeof(*fill));

		if (!fill)
			goto out;
		for (i = 0; i < n; i++) {
			for (j = 0; j < g->passes[i].ndeps; j++) {
				uint32_t d = g->passes[i].deps[j].pass;

				rev[rev_first[d] + fill[d]++] = i;
			}
		}
		free(fill);
	}
	for (i = 0; i < n; i++) {
		remaining[i] = g->passes[i].ndeps;
		if (!remaining[i])
			ready[nready++] = rank[i];
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < tg_pass_nres(&g->passes[i]); j++)
			touch[tg_pass_res(&g->passes[i], j)]++;
	s->nstages = 0;
	s->stage_start[0] = 0;
	while (done < n) {
		struct fit f = *limits;
		uint32_t first = done, keep = 0, stamp = s->nstages + 1;
		uint32_t round, rounds = limits->budget ? 2 : 1;
		uint64_t live_proj = live;

		qsort(ready, nready, sizeof(*ready), cmp_u32);
		/*
		 * Under a transient-memory budget, first the passes that
		 * bring no new transient resource to life (last consumers
		 * among them), then the others while the budget holds.
		 */
		for (round = 0; round < rounds; round++) {
			for (i = 0; i < nready; i++) {
				uint32_t x = s->by_prio[ready[i]];
				const struct tg_pass *p = &g->passes[x];
				uint64_t mem, born;

				if (taken[x] == stamp)
					continue;
				born = new_transients(g, p, sched, mark2,
						      stamp, false);
				if (rounds == 2 && round == 0 && born)
					continue;
				if (rounds == 2 && done != first &&
				    live_proj + born > limits->budget)
					continue;
				mem = pass_new_memory(g, p, mark, stamp);
				if (done != first && !pass_fits(&f, p, mem))
					continue;
				f.used.blocks += p->needs.blocks;
				f.used.threads += p->needs.threads;
				f.used.regs += p->needs.regs;
				f.used.shared_bytes += p->needs.shared_bytes;
				f.mem_used += mem;
				f.copy_used |= pass_copies(p);
				mark_pass(p, mark, stamp);
				live_proj += new_transients(g, p, sched, mark2,
							    stamp, true);
				taken[x] = stamp;
				s->stage_of[x] = s->nstages;
				s->order[done++] = x;
			}
		}
		for (i = 0; i < nready; i++)
			if (taken[s->by_prio[ready[i]]] != stamp)
				ready[keep++] = ready[i];
		nready = keep;
		for (i = first; i < done; i++) {
			const struct tg_pass *p = &g->passes[s->order[i]];

			for (j = 0; j < tg_pass_nres(p); j++) {
				uint32_t r = tg_pass_res(p, j);

				if (!g->res[r].bo && ++sched[r] == touch[r])
					live_proj -= g->res[r].size;
			}
		}
		live = live_proj;
		for (i = first; i < done; i++) {
			uint32_t p = s->order[i];

			for (j = rev_first[p]; j < rev_first[p + 1]; j++)
				if (!--remaining[rev[j]])
					ready[nready++] = rank[rev[j]];
		}
		s->stage_start[++s->nstages] = done;
	}
	ret = 0;
out:
	free(remaining);
	free(ready);
	free(rev_first);
	free(rev);
	free(rank);
	free(taken);
	free(mark);
	free(mark2);
	free(touch);
	free(sched);
	return ret;
}

/* Waits: dependencies and the previous stage, reduced. */
static int make_waits(const struct vmgpu_graph *g, struct vmgpu_schedule *s)
{
	uint32_t n = g->npasses, words = (n + 63) / 64, k, i, j, c;
	uint64_t *anc;
	struct vmgpu_graph_dep *cand = NULL, *waits = NULL;
	uint32_t ncand, nwaits = 0, cap_waits = 0;
	int ret = -ENOMEM;

	anc = calloc((size_t)n * words + 1, sizeof(*anc));
	cand = calloc(n + 1, sizeof(*cand));
	if (!anc || !cand)
		goto out;
#define ANC(p, q)	(anc[(size_t)(p) * words + (q) / 64] >> ((q) % 64) & 1)
	for (k = 0; k < n; k++) {
		uint32_t x = s->order[k], st = s->stage_of[x];
		const struct tg_pass *p = &g->passes[x];

		/* Candidates: data dependencies, then the stage before. */
		ncand = 0;
		for (i = 0; i < p->ndeps; i++)
			cand[ncand++] = p->deps[i];
		if (st > 0) {
			for (i = s->stage_start[st - 1];
			     i < s->stage_start[st]; i++) {
				uint32_t y = s->order[i];

				for (j = 0; j < ncand && cand[j].pass != y; j++)
					;
				if (j == ncand) {
					cand[ncand].pass = y;
					cand[ncand++].kinds = VMGPU_DEP_STAGE;
				}
			}
		}
		s->wait_first[x] = nwaits;
		for (i = 0; i < ncand; i++) {
			bool implied = false;

			for (j = 0; j < ncand && !implied; j++)
				implied = j != i &&
					  ANC(cand[j].pass, cand[i].pass);
			if (implied)
				continue;
			if (vmgpu_grow((void **)&waits, &cap_waits, nwaits + 1,
				    sizeof(*waits)))
				goto out;
			waits[nwaits++] = cand[i];
		}
		/* Ancestors of x: its candidates and theirs. */
		for (i = 0; i < ncand; i++) {
			uint32_t y = cand[i].pass;

			for (c = 0; c < words; c++)
				anc[(size_t)x * words + c] |=
					anc[(size_t)y * words + c];
			anc[(size_t)x * words + y / 64] |= 1ull << (y % 64);
		}
	}
#undef ANC
	/* wait_first is per pass; turn it into offsets with counts. */
	{
		uint32_t *cnt = calloc(n + 1, sizeof(*cnt));
		struct vmgpu_graph_dep *sorted;

		sorted = calloc(nwaits + 1, sizeof(*sorted));
		if (!cnt || !sorted) {
			free(cnt);
			free(sorted);
			goto out;
		}
		/* waits were appended in emission order: count per pass. */
		for (k = 0; k < n; k++) {
			uint32_t x = s->order[k];
			uint32_t end = k + 1 < n ?
					       s->wait_first[s->order[k + 1]] :
					       nwaits;

			cnt[x] = end - s->wait_first[x];
		}
		c = 0;
		for (i = 0; i < n; i++) {
			if (cnt[i])
				memcpy(sorted + c, waits + s->wait_first[i],
				       cnt[i] * sizeof(*sorted));
			s->wait_first[i] = c;
			c += cnt[i];
		}
		s->wait_first[n] = c;
		free(cnt);
		free(waits);
		waits = sorted;
	}
	for (i = 0; i < n; i++)
		qsort(waits + s->wait_first[i],
		      s->wait_first[i + 1] - s->wait_first[i], sizeof(*waits),
		      cmp_dep);
	s->waits = waits;
	waits = NULL;
	ret = 0;
out:
	free(anc);
	free(cand);
	free(waits);
	return ret;
}

int vmgpu_graph_compile(struct vmgpu_graph *g,
			const struct vmgpu_graph_limits *limits,
			struct vmgpu_schedule **out)
{
	struct vmgpu_schedule *s;
	struct fit f = { 0 };
	uint32_t n;
	int ret;

	if (!g)
		return -EINVAL;
	if (!out)
		return tg_error(g, -EINVAL, "compile: out is NULL");
	*out = NULL;
	if (g->open)
		return tg_error(g, -EINVAL, "compile: pass '%s' not ended",
				g->passes[g->npasses - 1].name);
	n = g->npasses;
	if (n > TG_MAX_COMPILE_PASSES)
		return tg_error(g, -E2BIG,
				"compile: %u passes, the limit is %u", n,
				TG_MAX_COMPILE_PASSES);
	if (limits) {
		f.cap.blocks = (uint64_t)limits->sms * limits->sm_blocks;
		f.cap.threads = (uint64_t)limits->sms * limits->sm_threads;
		f.cap.regs = (uint64_t)limits->sms * limits->sm_regs;
		f.cap.shared_bytes =
			(uint64_t)limits->sms * limits->sm_shared_bytes;
		f.mem_cap = limits->memory_bytes;
		f.budget = limits->transient_budget;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return tg_error(g, -ENOMEM, "out of memory");
	s->npasses = n;
	s->order = calloc(n + 1, sizeof(*s->order));
	s->stage_start = calloc(n + 2, sizeof(*s->stage_start));
	s->stage_of = calloc(n + 1, sizeof(*s->stage_of));
	s->wait_first = calloc(n + 2, sizeof(*s->wait_first));
	s->by_prio = calloc(n + 1, sizeof(*s->by_prio));
	s->prio = calloc(n + 1, sizeof(*s->prio));
	ret = -ENOMEM;
	if (s->order && s->stage_start && s->stage_of && s->wait_first &&
	    s->by_prio && s->prio && !tg_priorities(g)) {
		memcpy(s->prio, g->prio, n * sizeof(*s->prio));
		ret = sort_by_prio(s);
		if (!ret)
			ret = tg_shape(g, &s->shape, &s->nshape);
	}
	if (!ret)
		ret = make_stages(g, s, &f);
	if (!ret)
		ret = make_waits(g, s);
	if (!ret)
		ret = tg_place_transients(g, s);
	if (ret) {
		vmgpu_schedule_destroy(s);
		return tg_error(g, ret, "out of memory");
	}
	*out = s;
	return 0;
}

int vmgpu_schedule_matches(const struct vmgpu_schedule *s,
			   const struct vmgpu_graph *g)
{
	uint32_t *shape;
	size_t n;
	int same;

	if (!s || !g || g->open)
		return 0;
	if (tg_shape(g, &shape, &n))
		return 0;
	same = n == s->nshape && !memcmp(shape, s->shape, n * sizeof(*shape));
	free(shape);
	return same;
}

int vmgpu_schedule_stage_count(const struct vmgpu_schedule *s)
{
	return s ? (int)s->nstages : -EINVAL;
}

int vmgpu_schedule_stage(const struct vmgpu_schedule *s, uint32_t stage,
			 uint32_t *passes, uint32_t max)
{
	uint32_t i, n;

	if (!s || stage >= s->nstages || (max && !passes))
		return -EINVAL;
	n = s->stage_start[stage + 1] - s->stage_start[stage];
	for (i = 0; i < n && i < max; i++)
		passes[i] = s->order[s->stage_start[stage] + i];
	return (int)n;
}

int vmgpu_schedule_pass_stage(const struct vmgpu_schedule *s, uint32_t pass)
{
	if (!s || pass >= s->npasses)
		return -EINVAL;
	return (int)s->stage_of[pass];
}

int vmgpu_schedule_waits(const struct vmgpu_schedule *s, uint32_t pass,
			 struct vmgpu_graph_dep *waits, uint32_t max)
{
	uint32_t i, n;

	if (!s || pass >= s->npasses || (max && !waits))
		return -EINVAL;
	n = s->wait_first[pass + 1] - s->wait_first[pass];
	for (i = 0; i < n && i < max; i++)
		waits[i] = s->waits[s->wait_first[pass] + i];
	return (int)n;
}
