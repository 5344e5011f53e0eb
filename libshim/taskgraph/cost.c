// SPDX-License-Identifier: MIT
/*
 * libvmgpu task graphs: pass costs and priorities (SPEC T5). A pass's
 * estimated cost is the median of its last TG_COST_SAMPLES measured
 * durations (the lower median of an even count): one outlier among
 * three samples or more does not move it. Its priority is the longest
 * path of estimated costs from it to the end of the graph (its own cost
 * included): the scheduler takes ready passes by priority, so the passes
 * on the critical path, and among independent ones the longest, go
 * first. Costs are kept per pass index across runs of the program, as
 * long as the pass at that index keeps its name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tg_internal.h"
#include "vmgpu/graph.h"

int tg_cost_track(struct vmgpu_graph *g, uint32_t q)
{
	const char *name = g->passes[q].name;
	uint32_t h = tg_hash(name, strlen(name)), old = g->cap_costs;
	struct tg_cost *c;

	if (vmgpu_grow((void **)&g->costs, &g->cap_costs, q + 1,
		    sizeof(*g->costs)))
		return -ENOMEM;
	if (g->cap_costs > old)
		memset(g->costs + old, 0,
		       (g->cap_costs - old) * sizeof(*g->costs));
	c = &g->costs[q];
	if (c->name_hash != h) {
		memset(c, 0, sizeof(*c));
		c->name_hash = h;
	}
	return 0;
}

uint64_t tg_cost_estimate(const struct vmgpu_graph *g, uint32_t pass)
{
	const struct tg_cost *c;
	uint64_t v[TG_COST_SAMPLES], t;
	uint32_t i, j;

	if (pass >= g->cap_costs || !g->costs[pass].nsamples)
		return 0;
	c = &g->costs[pass];
	/* Insertion sort of at most TG_COST_SAMPLES values. */
	for (i = 0; i < c->nsamples; i++) {
		t = c->samples[i];
		for (j = i; j > 0 && v[j - 1] > t; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
	return v[(c->nsamples - 1) / 2];
}

int tg_priorities(struct vmgpu_graph *g)
{
	uint32_t n = g->npasses, i, j;
	uint64_t *succ;

	if (vmgpu_grow((void **)&g->prio, &g->cap_prio, 2 * n + 1,
		    sizeof(*g->prio)))
		return -ENOMEM;
	succ = g->prio + n;
	memset(succ, 0, n * sizeof(*succ));
	/* Dependencies point to earlier passes: one pass backwards. */
	for (i = n; i-- > 0;) {
		const struct tg_pass *p = &g->passes[i];

		g->prio[i] = tg_cost_estimate(g, i) + succ[i];
		for (j = 0; j < p->ndeps; j++)
			if (succ[p->deps[j].pass] < g->prio[i])
				succ[p->deps[j].pass] = g->prio[i];
	}
	return 0;
}

int vmgpu_graph_pass_sample(struct vmgpu_graph *g, uint32_t pass,
			    uint64_t ns)
{
	struct tg_cost *c;

	if (!g)
		return -EINVAL;
	if (pass >= g->npasses || (g->open && pass == g->npasses - 1))
		return tg_error(g, -EINVAL, "sample: no ended pass %u", pass);
	c = &g->costs[pass];
	c->samples[c->next] = ns;
	c->next = (c->next + 1) % TG_COST_SAMPLES;
	if (c->nsamples < TG_COST_SAMPLES)
		c->nsamples++;
	return 0;
}

int vmgpu_graph_pass_cost(const struct vmgpu_graph *g, uint32_t pass,
			  uint64_t *ns)
{
	if (!g || !ns || pass >= g->npasses ||
	    (g->open && pass == g->npasses - 1))
		return -EINVAL;
	if (!g->costs[pass].nsamples)
		return -ENODATA;
	*ns = tg_cost_estimate(g, pass);
	return 0;
}
