// SPDX-License-Identifier: MIT
/*
 * libvmgpu task graphs: transient memory (SPEC T6). A transient resource
 * (declared without a buffer) lives from the first stage of a pass that
 * reads or writes it to the last such stage. Every pass of a stage waits
 * for every pass of the stage before, so two transients whose stage
 * ranges are disjoint are never accessed at the same time and may share
 * memory: they get offsets into one heap, placed greedily, largest first
 * (then by first stage and id), each at the lowest aligned offset free of
 * every placed transient whose range meets its own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tg_internal.h"
#include "vmgpu/graph.h"

struct span {
	uint64_t off, end;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

struct tr {
	uint64_t size;
	uint32_t first, id;
};

static int cmp_tr(const void *a, const void *b)
{
	const struct tr *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static uint64_t align_up(uint64_t v)
{
	return (v + TG_HEAP_ALIGN - 1) & ~(uint64_t)(TG_HEAP_ALIGN - 1);
}

int tg_place_transients(const struct vmgpu_graph *g, struct vmgpu_schedule *s)
{
	uint32_t nres = g->nres, i, j, nt = 0, nplaced = 0, ns;
	struct tr *t = NULL;
	struct span *spans = NULL;
	uint32_t *placed = NULL;
	int64_t *delta = NULL;
	int64_t live = 0;
	int ret = -ENOMEM;

	s->nres = nres;
	s->heap_offset = calloc(nres + 1, sizeof(*s->heap_offset));
	s->live_first = calloc(nres + 1, sizeof(*s->live_first));
	s->live_last = calloc(nres + 1, sizeof(*s->live_last));
	t = calloc(nres + 1, sizeof(*t));
	spans = calloc(nres + 1, sizeof(*spans));
	placed = calloc(nres + 1, sizeof(*placed));
	delta = calloc(s->nstages + 2, sizeof(*delta));
	if (!s->heap_offset || !s->live_first || !s->live_last || !t ||
	    !spans || !placed || !delta)
		goto out;
	for (i = 0; i < nres; i++) {
		s->heap_offset[i] = TG_NO_OFFSET;
		s->live_first[i] = UINT32_MAX;
	}
	for (i = 0; i < g->npasses; i++) {
		const struct tg_pass *p = &g->passes[i];
		uint32_t st = s->stage_of[i];

		for (j = 0; j < tg_pass_nres(p); j++) {
			uint32_t r = tg_pass_res(p, j);

			if (g->res[r].bo)
				continue;
			if (st < s->live_first[r])
				s->live_first[r] = st;
			if (st > s->live_last[r])
				s->live_last[r] = st;
		}
	}
	memset(&s->mem, 0, sizeof(s->mem));
	for (i = 0; i < nres; i++) {
		if (s->live_first[i] == UINT32_MAX)
			continue;
		t[nt].size = g->res[i].size;
		t[nt].first = s->live_first[i];
		t[nt++].id = i;
		s->mem.unaliased_bytes += align_up(g->res[i].size);
		delta[s->live_first[i]] += (int64_t)g->res[i].size;
		delta[s->live_last[i] + 1] -= (int64_t)g->res[i].size;
	}
	s->mem.transients = nt;
	for (i = 0; i < s->nstages; i++) {
		live += delta[i];
		if ((uint64_t)live > s->mem.peak_live_bytes)
			s->mem.peak_live_bytes = (uint64_t)live;
	}
	qsort(t, nt, sizeof(*t), cmp_tr);
	for (i = 0; i < nt; i++) {
		uint32_t r = t[i].id;
		uint64_t off = 0;

		ns = 0;
		for (j = 0; j < nplaced; j++) {
			uint32_t q = placed[j];

			if (s->live_first[q] > s->live_last[r] ||
			    s->live_last[q] < s->live_first[r])
				continue;
			spans[ns].off = s->heap_offset[q];
			spans[ns++].end = s->heap_offset[q] + g->res[q].size;
		}
		qsort(spans, ns, sizeof(*spans), cmp_span);
		for (j = 0; j < ns; j++) {
			if (off + t[i].size <= spans[j].off)
				break;
			if (align_up(spans[j].end) > off)
				off = align_up(spans[j].end);
		}
		s->heap_offset[r] = off;
		placed[nplaced++] = r;
		if (off + t[i].size > s->mem.heap_bytes)
			s->mem.heap_bytes = off + t[i].size;
	}
	ret = 0;
out:
	free(t);
	free(spans);
	free(placed);
	free(delta);
	return ret;
}

int vmgpu_schedule_memory(const struct vmgpu_schedule *s,
			  struct vmgpu_graph_memory *m)
{
	if (!s || !m)
		return -EINVAL;
	*m = s->mem;
	return 0;
}

int vmgpu_schedule_transient(const struct vmgpu_schedule *s,
			     uint32_t resource, uint64_t *offset,
			     uint32_t *first_stage, uint32_t *last_stage)
{
	if (!s || resource >= s->nres)
		return -EINVAL;
	if (s->heap_offset[resource] == TG_NO_OFFSET)
		return -ENOENT;
	if (offset)
		*offset = s->heap_offset[resource];
	if (first_stage)
		*first_stage = s->live_first[resource];
	if (last_stage)
		*last_stage = s->live_last[resource];
	return 0;
}
