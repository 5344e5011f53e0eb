// SPDX-License-Identifier: MIT
/*
 * libvmgpu task graphs: feedback from a schedule's run (SPEC T5): the
 * timestamps of a recorded schedule become samples of its passes' costs
 * (cost.c), and a schedule stays current while the priorities those
 * costs give keep its order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tg_internal.h"
#include "vmgpu/graph.h"

/*
 * A schedule stays current while no pass's priority exceeds that of the
 * pass before it in the compiled priority order by more than 1/8:
 * measurement noise does not make a new schedule every frame.
 */
#define TG_PRIO_SLACK_SHIFT	3

int vmgpu_graph_feedback(struct vmgpu_graph *g, const struct vmgpu_schedule *s,
			 const uint64_t *stamps, uint32_t count)
{
	uint32_t k;
	int ret;

	if (!g)
		return -EINVAL;
	if (!s || !stamps)
		return tg_error(g, -EINVAL, "feedback: no schedule or stamps");
	if (!vmgpu_schedule_matches(s, g))
		return tg_error(g, -ESTALE,
				"feedback: the graph's shape is not the one the schedule was compiled for");
	if (count != s->npasses + 1)
		return tg_error(g, -EINVAL,
				"feedback: %u timestamps for %u passes (want %u)",
				count, s->npasses, s->npasses + 1);
	for (k = 0; k < s->npasses; k++)
		if (stamps[k + 1] < stamps[k])
			return tg_error(g, -EINVAL,
					"feedback: timestamp %u goes back in time",
					k + 1);
	for (k = 0; k < s->npasses; k++) {
		ret = vmgpu_graph_pass_sample(g, s->order[k],
					      stamps[k + 1] - stamps[k]);
		if (ret)
			return ret;
	}
	return 0;
}

int vmgpu_schedule_is_current(const struct vmgpu_schedule *s,
			      struct vmgpu_graph *g)
{
	uint32_t i;

	if (!s || !g || !vmgpu_schedule_matches(s, g))
		return 0;
	if (tg_priorities(g))
		return tg_error(g, -ENOMEM, "out of memory");
	for (i = 0; i + 1 < s->npasses; i++) {
		uint64_t a = g->prio[s->by_prio[i]];
		uint64_t b = g->prio[s->by_prio[i + 1]];

		if (b > a + (a >> TG_PRIO_SLACK_SHIFT))
			return 0;
	}
	return 1;
}

int vmgpu_schedule_pass_priority(const struct vmgpu_schedule *s,
				 uint32_t pass, uint64_t *prio)
{
	if (!s || !prio || pass >= s->npasses)
		return -EINVAL;
	*prio = s->prio[pass];
	return 0;
}
