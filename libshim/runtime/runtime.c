// SPDX-License-Identifier: MIT
/*
 * libvmgpurt: the runtime object, the device table with capability
 * matching and logical devices (SPEC P1), contexts (P2) and device status
 * (P6); the top of the runtime, which creates and tears down what the
 * files below it (handle.c at the bottom) define. The locking and
 * lifetime rule is in rt_internal.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/kernel.h"
#include "rt_internal.h"

/* ---- creation ---- */

static void rt_phys_power(struct rt_phys *p)
{
	p->power = (uint64_t)p->caps.compute_units * p->caps.warp_width *
		   p->caps.clock_khz;
	if (!p->power)
		p->power = 1;
}

static int rt_add_backend(struct vmgpu_rt *rt, const struct vmgpu_rt_backend *be)
{
	const struct vmgpu_rt_gpu_ops *ops = be->ops;
	int n, i, r;

	if (!ops || !ops->count || !ops->query || !ops->mem_alloc ||
	    !ops->mem_free || !ops->kernel_load || !ops->run)
		return rt_err(rt, -EINVAL, "back end %u lacks an operation",
			      rt->num_backends);
	n = ops->count(be->opaque);
	if (n < 0)
		return rt_err(rt, n, "back end %u: no GPU count",
			      rt->num_backends);
	for (i = 0; i < n; i++) {
		struct rt_phys *p = &rt->phys[rt->nphys];

		if (rt->nphys + 1 >= VMGPU_RT_MAX_DEVICES)
			return rt_err(rt, -E2BIG, "more than %u devices",
				      VMGPU_RT_MAX_DEVICES - 1);
		memset(p, 0, sizeof(*p));
		r = ops->query(be->opaque, i, &p->caps);
		if (r)
			return rt_err(rt, r, "back end %u: GPU %d not queried",
				      rt->num_backends, i);
		p->caps.type = VMGPU_RT_TYPE_GPU;
		p->backend = rt->num_backends;
		p->index = i;
		rt_phys_power(p);
		rt->nphys++;
	}
	rt->backends[rt->num_backends++] = *be;
	return 0;
}

int vmgpu_rt_create(const struct vmgpu_rt_config *cfg, struct vmgpu_rt **out)
{
	struct vmgpu_rt_config def = { 0 };
	struct vmgpu_rt *rt;
	struct timespec ts;
	struct rt_phys *cpu;
	uint32_t i;
	int r;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!cfg)
		cfg = &def;
	if (cfg->policy >= VMGPU_RT_POLICY_NUM ||
	    cfg->num_backends > VMGPU_MAX_GPUS ||
	    (cfg->num_backends && !cfg->backends) || cfg->cpu_threads > 256)
		return -EINVAL;
	rt = calloc(1, sizeof(*rt));
	if (!rt)
		return -ENOMEM;
	pthread_mutex_init(&rt->lock, NULL);
	pthread_mutex_init(&rt->be_lock, NULL);
	pthread_cond_init(&rt->work, NULL);
	{
		pthread_condattr_t a;

		/* vmgpu_rt_wait()'s deadlines are on CLOCK_MONOTONIC. */
		pthread_condattr_init(&a);
		pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
		pthread_cond_init(&rt->done, &a);
		pthread_condattr_destroy(&a);
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	rt->tag = (uint16_t)(((uintptr_t)rt >> 4) ^ (uintptr_t)ts.tv_nsec ^
			     ((uintptr_t)ts.tv_nsec >> 16));
	if (!rt->tag)
		rt->tag = 1;
	rt->policy = cfg->policy;
	rt->next_cpu_va = 1ull << 32;
	for (i = 0; i < cfg->num_backends; i++) {
		r = rt_add_backend(rt, &cfg->backends[i]);
		if (r)
			goto fail;
	}
	if (!cfg->num_backends) {
		/* Every render node that opens (none: the CPU alone). */
		int n = vmgpu_device_count();

		for (i = 0; n > 0 && i < (uint32_t)n && i < VMGPU_MAX_GPUS;
		     i++) {
			struct vmgpu_rt_backend be = { .ops = &rt_drm_ops };

			if (rt_drm_open(i, &rt->drm[rt->ndrm]))
				continue;
			be.opaque = rt->drm[rt->ndrm++];
			r = rt_add_backend(rt, &be);
			if (r)
				goto fail;
		}
	}
	rt->cpu_budget = cfg->cpu_budget;
	r = rt_cpu_new(cfg->cpu_threads ? cfg->cpu_threads : 4, &rt->cpu_budget,
		       &rt->cpu_budget_from, &rt->cpudev);
	if (r)
		goto fail;
	rt->cpu = rt->nphys++;
	cpu = &rt->phys[rt->cpu];
	rt_cpu_caps(rt->cpudev, &cpu->caps);
	cpu->backend = -1;
	rt_phys_power(cpu);
	r = pthread_create(&rt->thread, NULL, rt_scheduler, rt);
	if (r) {
		r = -r;
		goto fail;
	}
	rt->thread_started = true;
	*out = rt;
	return 0;
fail:
	vmgpu_rt_destroy(rt);
	return r;
}

void vmgpu_rt_destroy(struct vmgpu_rt *rt)
{
	uint32_t i;

	if (!rt)
		return;
	if (rt->thread_started) {
		pthread_mutex_lock(&rt->lock);
		rt_flush_all(rt);
		rt->stop = true;
		pthread_cond_broadcast(&rt->work);
		pthread_mutex_unlock(&rt->lock);
		pthread_join(rt->thread, NULL);
	}
	/* Every handle the application still holds goes now. */
	pthread_mutex_lock(&rt->lock);
	rt_handles_drop_all(rt);
	pthread_mutex_unlock(&rt->lock);
	rt_cpu_free(rt->cpudev);
	for (i = 0; i < rt->ndrm; i++)
		rt_drm_free(rt->drm[i]);
	free(rt->slots);
	free(rt->logical);
	free(rt->queues);
	pthread_cond_destroy(&rt->work);
	pthread_cond_destroy(&rt->done);
	pthread_mutex_destroy(&rt->be_lock);
	pthread_mutex_destroy(&rt->lock);
	free(rt);
}

int vmgpu_rt_set_policy(struct vmgpu_rt *rt, uint32_t policy)
{
	if (!rt)
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	if (policy >= VMGPU_RT_POLICY_NUM) {
		rt_err(rt, -EINVAL, "no placement policy %u", policy);
		pthread_mutex_unlock(&rt->lock);
		return -EINVAL;
	}
	rt->policy = policy;
	pthread_mutex_unlock(&rt->lock);
	return 0;
}

/* ---- device table, matching ---- */

int vmgpu_rt_device_count(struct vmgpu_rt *rt)
{
	return rt ? (int)rt->nphys : -EINVAL;
}

int vmgpu_rt_device_caps(struct vmgpu_rt *rt, uint32_t phys,
			 struct vmgpu_rt_caps *caps)
{
	if (!rt || !caps)
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	if (phys >= rt->nphys) {
		rt_err(rt, -ENODEV, "no physical device %u (%u)", phys,
		       rt->nphys);
		pthread_mutex_unlock(&rt->lock);
		return -ENODEV;
	}
	*caps = rt->phys[phys].caps;
	pthread_mutex_unlock(&rt->lock);
	return 0;
}

static uint64_t cap_value(const struct vmgpu_rt_caps *c, uint32_t key)
{
	switch (key) {
	case VMGPU_RT_CAP_TYPE: return c->type;
	case VMGPU_RT_CAP_ISA_VERSION: return c->isa_version;
	case VMGPU_RT_CAP_COMPUTE_UNITS: return c->compute_units;
	case VMGPU_RT_CAP_WARP_WIDTH: return c->warp_width;
	case VMGPU_RT_CAP_CLOCK_KHZ: return c->clock_khz;
	case VMGPU_RT_CAP_LOCAL_MEM_MB: return c->local_mem_mb;
	case VMGPU_RT_CAP_SHARED_MEM: return c->shared_mem_per_block;
	case VMGPU_RT_CAP_MAX_BLOCK_THREADS: return c->max_block_threads;
	case VMGPU_RT_CAP_FP64: return c->fp64;
	}
	return 0;
}

static bool term_holds(const struct vmgpu_rt_caps *c,
		       const struct vmgpu_rt_cap_term *t)
{
	uint64_t v = cap_value(c, t->key);

	switch (t->op) {
	case VMGPU_RT_OP_EQ: return v == t->value;
	case VMGPU_RT_OP_NE: return v != t->value;
	case VMGPU_RT_OP_GE: return v >= t->value;
	case VMGPU_RT_OP_LE: return v <= t->value;
	}
	return false;
}

static int check_request(struct vmgpu_rt *rt,
			 const struct vmgpu_rt_cap_request *req)
{
	uint32_t i;

	if (!req)
		return rt_err(rt, -EINVAL, "no capability request");
	if (req->mode > VMGPU_RT_MATCH_SCORE)
		return rt_err(rt, -EINVAL, "no match mode %u", req->mode);
	if (req->num_terms > VMGPU_RT_MAX_TERMS ||
	    (req->num_terms && !req->terms))
		return rt_err(rt, -EINVAL, "bad term list (%u terms)",
			      req->num_terms);
	for (i = 0; i < req->num_terms; i++) {
		const struct vmgpu_rt_cap_term *t = &req->terms[i];

		if (t->key >= VMGPU_RT_CAP_NUM_KEYS || t->op >= VMGPU_RT_OP_NUM ||
		    t->flags & ~VMGPU_RT_TERM_REQUIRED)
			return rt_err(rt, -EINVAL,
				      "term %u: bad key %u, op %u or flags %#x",
				      i, t->key, t->op, t->flags);
	}
	return 0;
}

/* Under rt->lock: matching devices, best first, into @phys (room: all). */
static uint32_t rt_match(struct vmgpu_rt *rt,
			 const struct vmgpu_rt_cap_request *req,
			 uint32_t *phys, uint32_t *scores)
{
	uint32_t n = 0, d, i, j;

	for (d = 0; d < rt->nphys; d++) {
		const struct vmgpu_rt_caps *c = &rt->phys[d].caps;
		uint32_t score = 0, held = 0;
		bool ok = true;

		for (i = 0; i < req->num_terms; i++) {
			const struct vmgpu_rt_cap_term *t = &req->terms[i];

			if (term_holds(c, t)) {
				score += t->weight;
				held++;
			} else if (req->mode == VMGPU_RT_MATCH_ALL ||
				   t->flags & VMGPU_RT_TERM_REQUIRED) {
				ok = false;
			}
		}
		if (!ok || (req->mode == VMGPU_RT_MATCH_SCORE &&
			    req->num_terms && !held))
			continue;
		/* Insert: score desc, power desc, index asc. */
		for (j = n; j > 0; j--) {
			uint32_t o = phys[j - 1];

			if (scores[j - 1] > score ||
			    (scores[j - 1] == score &&
			     rt->phys[o].power >= rt->phys[d].power))
				break;
			phys[j] = o;
			scores[j] = scores[j - 1];
		}
		phys[j] = d;
		scores[j] = score;
		n++;
	}
	if (req->max_devices && n > req->max_devices)
		n = req->max_devices;
	return n;
}

int vmgpu_rt_match(struct vmgpu_rt *rt, const struct vmgpu_rt_cap_request *req,
		   uint32_t *phys, uint32_t *scores, uint32_t max)
{
	uint32_t p[VMGPU_RT_MAX_DEVICES], s[VMGPU_RT_MAX_DEVICES], n, i;
	int r;

	if (!rt || (max && !phys))
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	r = check_request(rt, req);
	if (!r) {
		n = rt_match(rt, req, p, s);
		for (i = 0; i < n && i < max; i++) {
			phys[i] = p[i];
			if (scores)
				scores[i] = s[i];
		}
		r = (int)n;
	}
	pthread_mutex_unlock(&rt->lock);
	return r;
}

/* Under rt->lock: the id of the logical device of @phys[0..n). */
static int rt_logical(struct vmgpu_rt *rt, const uint32_t *phys, uint32_t n,
		      uint32_t *device)
{
	struct rt_logical *l;
	uint32_t i, j;

	if (!n || n > rt->nphys)
		return rt_err(rt, -EINVAL, "a logical device of %u devices", n);
	for (i = 0; i < n; i++) {
		if (phys[i] >= rt->nphys)
			return rt_err(rt, -ENODEV, "no physical device %u",
				      phys[i]);
		for (j = 0; j < i; j++)
			if (phys[j] == phys[i])
				return rt_err(rt, -EINVAL,
					      "device %u twice in a set",
					      phys[i]);
	}
	for (i = 0; i < rt->nlogical; i++)
		if (rt->logical[i].count == n &&
		    !memcmp(rt->logical[i].phys, phys, n * sizeof(*phys))) {
			*device = i;
			return 0;
		}
	if (vmgpu_grow((void **)&rt->logical, &rt->cap_logical, rt->nlogical + 1,
		    sizeof(*rt->logical)))
		return rt_err(rt, -ENOMEM, "out of memory");
	l = &rt->logical[rt->nlogical];
	memset(l, 0, sizeof(*l));
	l->count = n;
	memcpy(l->phys, phys, n * sizeof(*phys));
	*device = rt->nlogical++;
	return 0;
}

int vmgpu_rt_request(struct vmgpu_rt *rt,
		     const struct vmgpu_rt_cap_request *req, uint32_t *device)
{
	uint32_t p[VMGPU_RT_MAX_DEVICES], s[VMGPU_RT_MAX_DEVICES], n;
	int r;

	if (!rt || !device)
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	r = check_request(rt, req);
	if (!r) {
		n = rt_match(rt, req, p, s);
		r = n ? rt_logical(rt, p, n, device) :
			rt_err(rt, -ENODEV, "no device matches the request");
	}
	pthread_mutex_unlock(&rt->lock);
	return r;
}

int vmgpu_rt_logical_device(struct vmgpu_rt *rt, const uint32_t *phys,
			    uint32_t count, uint32_t *device)
{
	int r;

	if (!rt || !phys || !device)
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	r = rt_logical(rt, phys, count, device);
	pthread_mutex_unlock(&rt->lock);
	return r;
}

int vmgpu_rt_device_members(struct vmgpu_rt *rt, uint32_t device,
			    uint32_t *phys, uint32_t max)
{
	uint32_t i;
	int r;

	if (!rt || (max && !phys))
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	if (device >= rt->nlogical) {
		r = rt_err(rt, -ENODEV, "no device identifier %u", device);
	} else {
		for (i = 0; i < rt->logical[device].count && i < max; i++)
			phys[i] = rt->logical[device].phys[i];
		r = (int)rt->logical[device].count;
	}
	pthread_mutex_unlock(&rt->lock);
	return r;
}

/* ---- status ---- */

int vmgpu_rt_device_status(struct vmgpu_rt *rt, uint32_t phys,
			   struct vmgpu_rt_status *st)
{
	const struct rt_phys *p;
	struct rt_instance *in;

	if (!rt || !st)
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	if (phys >= rt->nphys) {
		rt_err(rt, -ENODEV, "no physical device %u", phys);
		pthread_mutex_unlock(&rt->lock);
		return -ENODEV;
	}
	p = &rt->phys[phys];
	memset(st, 0, sizeof(*st));
	st->running = p->running;
	for (in = rt->runnable; in; in = in->rnext) {
		const struct rt_logical *l =
			&rt->logical[in->queue->ctx->device];
		uint32_t i;

		for (i = 0; i < l->count; i++)
			if (l->phys[i] == phys)
				st->queued++;
	}
	st->graphics_load = p->graphics_load;
	st->busy_until_ns = p->busy_until;
	st->busy_ns = p->busy_ns;
	st->instances = p->instances;
	st->transfer_bytes = p->transfer_bytes;
	st->utilisation = rt->now ? (uint32_t)(p->busy_ns * 100 /
					      (rt->now > p->busy_until ?
					       rt->now : p->busy_until)) : 0;
	pthread_mutex_unlock(&rt->lock);
	return 0;
}

int vmgpu_rt_set_graphics_load(struct vmgpu_rt *rt, uint32_t phys,
			       uint32_t percent)
{
	int r = 0;

	if (!rt)
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	if (phys >= rt->nphys || phys == rt->cpu)
		r = rt_err(rt, -ENODEV, "no GPU %u", phys);
	else if (percent > 100)
		r = rt_err(rt, -EINVAL, "graphics load %u%% over 100%%",
			   percent);
	else
		rt->phys[phys].graphics_load = percent;
	/* Instances that waited for a GPU may go now. */
	pthread_cond_broadcast(&rt->work);
	pthread_mutex_unlock(&rt->lock);
	return r;
}

uint64_t vmgpu_rt_now_ns(struct vmgpu_rt *rt)
{
	uint64_t now;

	if (!rt)
		return 0;
	pthread_mutex_lock(&rt->lock);
	now = rt->now;
	pthread_mutex_unlock(&rt->lock);
	return now;
}

/* ---- contexts ---- */

static void context_release(struct vmgpu_rt *rt, struct rt_obj *o)
{
	free(o);
}

int vmgpu_rt_context_create(struct vmgpu_rt *rt, uint32_t device,
			    uint32_t flags, vmgpu_rt_handle *ctx)
{
	struct rt_context *c;
	int r;

	if (!rt || !ctx)
		return -EINVAL;
	*ctx = 0;
	pthread_mutex_lock(&rt->lock);
	if (device >= rt->nlogical) {
		r = rt_err(rt, -ENODEV, "no device identifier %u", device);
		goto out;
	}
	if (flags & ~VMGPU_RT_CTX_CPU_FALLBACK) {
		r = rt_err(rt, -EINVAL, "unknown context flags %#x", flags);
		goto out;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		r = rt_err(rt, -ENOMEM, "out of memory");
		goto out;
	}
	c->o.kind = RT_KIND_CONTEXT;
	c->o.refs = 1;
	c->o.release = context_release;
	c->device = device;
	c->flags = flags;
	r = rt_handle_new(rt, &c->o, ctx);
	if (r)
		free(c);
out:
	pthread_mutex_unlock(&rt->lock);
	return r;
}

int vmgpu_rt_context_device(struct vmgpu_rt *rt, vmgpu_rt_handle ctx,
			    uint32_t *device)
{
	struct rt_obj *o;
	int r;

	if (!rt || !device)
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	r = rt_lookup(rt, ctx, RT_KIND_CONTEXT, &o);
	if (!r)
		*device = ((struct rt_context *)o)->device;
	pthread_mutex_unlock(&rt->lock);
	return r;
}
