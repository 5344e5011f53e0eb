// SPDX-License-Identifier: MIT
/*
 * libvmgpurt queues, instances and events (SPEC P5) and the scheduler
 * that places them (P6). The locking and lifetime rule is in
 * rt_internal.h.
 *
 * Dependencies are found when an instance is enqueued, in the runtime's
 * enqueue order over all queues: the events it names, and per buffer the
 * last instance that writes it (read after write, write after write) and
 * the instances that read it since (write after read), by the kernel's
 * parameter types (buf_ro reads, buf_wo writes, buf_rw both).
 *
 * The scheduler is one thread per runtime; it runs one instance at a
 * time on the host and keeps each device's timeline on the virtual
 * clock. Among the instances whose dependencies are done it takes the
 * one that can start first (the later of when it became ready and when
 * a device it may use is free), then the one of highest priority, then
 * the longest expected, then the earliest enqueued; then places it by
 * the policy:
 *   dmda: for each device it may use, expected completion = when the
 *     device is free (its queue) + moving its buffers there + its
 *     execution estimated from history (kernel.c), slowed by the GPU's
 *     graphics load; the earliest wins.
 *   round robin, first: for the benchmark's comparisons.
 * It moves the buffers, runs the kernel on the device's back end (or the
 * CPU device), and the device's timeline advances by the transfer and
 * the device time the run reported.
 *
 * The devices an instance may use: its context's logical device, less
 * the GPUs whose graphics load is 100 % and those of an ISA version the
 * kernel has no executable for; plus, when the context allows
 * CPU fallback and the set has no CPU, the CPU when every GPU of the set
 * is busy (running work or busy with graphics) as the instance becomes
 * ready. Off by default: no silent host fallback (kokkos#5254).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/interp.h"
#include "core/kernel.h"
#include "rt_internal.h"

/* ---- objects ---- */

static void rt_queue_unlist(struct vmgpu_rt *rt, struct rt_queue *q)
{
	uint32_t i;

	for (i = 0; i < rt->nqueues; i++)
		if (rt->queues[i] == q) {
			rt->queues[i] = rt->queues[--rt->nqueues];
			return;
		}
}

void rt_queue_free(struct vmgpu_rt *rt, struct rt_queue *q)
{
	rt_queue_unlist(rt, q);
	rt_put(rt, &q->ctx->o);
	free(q);
}

/* What an instance holds, dropped when it completes (or is freed). */
static void rt_instance_drop(struct vmgpu_rt *rt, struct rt_instance *in)
{
	uint32_t i, j;

	for (i = 0; i < in->nuses; i++) {
		struct rt_buffer *b = in->uses[i].buf;

		if (b->writer == in)
			b->writer = NULL;
		for (j = 0; j < b->nreaders;)
			if (b->readers[j] == in)
				b->readers[j] = b->readers[--b->nreaders];
			else
				j++;
		rt_put(rt, &b->o);
	}
	in->nuses = 0;
	for (i = 0; i < in->ndeps; i++)
		rt_put(rt, &in->deps[i]->o);
	in->ndeps = 0;
	if (in->priv) {
		rt_put(rt, &in->priv->o);
		in->priv = NULL;
	}
	if (in->pbuf) {
		rt_put(rt, &in->pbuf->o);
		in->pbuf = NULL;
	}
	if (in->kernel) {
		rt_put(rt, &in->kernel->o);
		in->kernel = NULL;
	}
}

void rt_instance_free(struct vmgpu_rt *rt, struct rt_instance *in)
{
	rt_instance_drop(rt, in);
	if (in->queue)
		rt_put(rt, &in->queue->o);
	free(in->deps);
	free(in->waiters);
	free(in);
}

static void queue_release(struct vmgpu_rt *rt, struct rt_obj *o)
{
	rt_queue_free(rt, (struct rt_queue *)o);
}

static void instance_release(struct vmgpu_rt *rt, struct rt_obj *o)
{
	rt_instance_free(rt, (struct rt_instance *)o);
}

int vmgpu_rt_queue_create(struct vmgpu_rt *rt, vmgpu_rt_handle ctx,
			  vmgpu_rt_handle *queue)
{
	struct rt_queue *q;
	struct rt_obj *o;
	int r;

	if (!rt || !queue)
		return -EINVAL;
	*queue = 0;
	pthread_mutex_lock(&rt->lock);
	r = rt_lookup(rt, ctx, RT_KIND_CONTEXT, &o);
	if (r)
		goto out;
	q = calloc(1, sizeof(*q));
	if (!q || vmgpu_grow((void **)&rt->queues, &rt->cap_queues,
			  rt->nqueues + 1, sizeof(*rt->queues))) {
		free(q);
		r = rt_err(rt, -ENOMEM, "out of memory");
		goto out;
	}
	q->o.kind = RT_KIND_QUEUE;
	q->o.refs = 1;
	q->o.release = queue_release;
	q->ctx = (struct rt_context *)o;
	rt_get(o);
	q->pending_tail = &q->pending;
	r = rt_handle_new(rt, &q->o, queue);
	if (r) {
		rt_put(rt, o);
		free(q);
		goto out;
	}
	rt->queues[rt->nqueues++] = q;
out:
	pthread_mutex_unlock(&rt->lock);
	return r;
}

/* ---- enqueue ---- */

/* Has @k an executable a device of ISA version @isa runs? */
static bool runs_on(const struct rt_kernel *k, uint32_t isa)
{
	uint32_t v;

	for (v = VMGPU_ISA_VERSION_MIN; v <= isa && v <= VMGPU_ISA_VERSION;
	     v++)
		if (k->exec[v].image)
			return true;
	return false;
}


static int add_dep(struct vmgpu_rt *rt, struct rt_instance *in,
		   struct rt_instance *dep)
{
	uint32_t i;

	if (dep == in)
		return 0;
	if (dep->state == RT_COMPLETE) {
		if (dep->end_ns > in->ready_ns)
			in->ready_ns = dep->end_ns;
		if (dep->error && !in->error)
			in->error = -ECANCELED;
		return 0;
	}
	for (i = 0; i < in->ndeps; i++)
		if (in->deps[i] == dep)
			return 0;
	if (vmgpu_grow((void **)&in->deps, &in->cap_deps, in->ndeps + 1,
		    sizeof(*in->deps)) ||
	    vmgpu_grow((void **)&dep->waiters, &dep->cap_waiters,
		    dep->nwaiters + 1, sizeof(*dep->waiters)))
		return rt_err(rt, -ENOMEM, "out of memory");
	rt_get(&dep->o);
	in->deps[in->ndeps++] = dep;
	dep->waiters[dep->nwaiters++] = in;
	in->pending_deps++;
	return 0;
}

/* Undo add_dep()s of a refused instance. */
static void undo_deps(struct vmgpu_rt *rt, struct rt_instance *in)
{
	uint32_t i, j;

	for (i = 0; i < in->ndeps; i++) {
		struct rt_instance *d = in->deps[i];

		for (j = 0; j < d->nwaiters; j++)
			if (d->waiters[j] == in) {
				d->waiters[j] = d->waiters[--d->nwaiters];
				break;
			}
	}
}

static uint64_t threads_of(const struct rt_instance *in)
{
	return (uint64_t)in->grid[0] * in->grid[1] * in->grid[2] *
	       in->block[0] * in->block[1] * in->block[2];
}

/*
 * Is use @i the first of its buffer in @in's uses? Then *@wr says whether
 * any of the instance's uses of that buffer writes it.
 */
static bool first_use(const struct rt_instance *in, uint32_t i, bool *wr)
{
	const struct rt_buffer *b = in->uses[i].buf;
	uint32_t j;

	for (j = 0; j < i; j++)
		if (in->uses[j].buf == b)
			return false;
	*wr = false;
	for (j = i; j < in->nuses; j++)
		if (in->uses[j].buf == b)
			*wr |= in->uses[j].write;
	return true;
}

/*
 * The local memory a block may have on every device @q's instances may
 * run on (its set, and the CPU with CPU fallback).
 */
static uint32_t shared_limit(struct vmgpu_rt *rt, const struct rt_queue *q)
{
	const struct rt_logical *l = &rt->logical[q->ctx->device];
	uint32_t i, limit = VMGPU_MAX_SHARED_BYTES, m;

	for (i = 0; i < l->count; i++) {
		m = rt->phys[l->phys[i]].caps.shared_mem_per_block;
		if (m < limit)
			limit = m;
	}
	if (q->ctx->flags & VMGPU_RT_CTX_CPU_FALLBACK &&
	    rt->phys[rt->cpu].caps.shared_mem_per_block < limit)
		limit = rt->phys[rt->cpu].caps.shared_mem_per_block;
	return limit;
}

/* Check and record the arguments of @inst into @in (rt->lock held). */
static int take_args(struct vmgpu_rt *rt, struct rt_instance *in,
		     const struct vmgpu_rt_instance *inst,
		     const struct rt_queue *q)
{
	struct rt_kernel *k = in->kernel;
	uint32_t i, j;
	int r;

	r = rt_args_set(rt, in, inst, shared_limit(rt, q));
	if (r)
		return r;
	if (k->private_bytes) {
		uint64_t bytes = threads_of(in) * k->private_bytes;

		r = rt_buffer_alloc(rt, bytes, &in->priv);
		if (r)
			return r;
		in->uses[in->nuses++] = (struct rt_use){
			.buf = in->priv, .param = k->sig.num_params - 1,
			.read = true, .write = true,
		};
		rt_get(&in->priv->o);
	}
	if (k->printf_param >= 0) {
		/* zeroed: no record yet (the first word counts bytes used) */
		r = rt_buffer_alloc(rt, VMGPU_PRINTF_HEADER_BYTES +
				    VMGPU_PRINTF_BUFFER_BYTES, &in->pbuf);
		if (r)
			return r;
		in->uses[in->nuses++] = (struct rt_use){
			.buf = in->pbuf, .param = (uint32_t)k->printf_param,
			.read = true, .write = true,
		};
		rt_get(&in->pbuf->o);
	}
	/* Data flow, once per buffer with the union of its uses. */
	for (i = 0; i < in->nuses; i++) {
		struct rt_buffer *b = in->uses[i].buf;
		bool wr;

		if (!first_use(in, i, &wr))
			continue;
		/* RAW, or WAW: after the last writer, reading or writing. */
		r = b->writer ? add_dep(rt, in, b->writer) : 0;
		/* WAR: a writer after the readers since. */
		for (j = 0; wr && !r && j < b->nreaders; j++)
			r = add_dep(rt, in, b->readers[j]);
		if (r)
			return r;
	}
	return 0;
}

/* Record @in as the user of its buffers (after every check passed). */
static int note_uses(struct vmgpu_rt *rt, struct rt_instance *in)
{
	uint32_t i;

	for (i = 0; i < in->nuses; i++) {
		struct rt_buffer *b = in->uses[i].buf;
		bool wr;

		if (!first_use(in, i, &wr))
			continue;
		if (wr) {
			b->writer = in;
			b->nreaders = 0;
		} else {
			if (vmgpu_grow((void **)&b->readers, &b->cap_readers,
				    b->nreaders + 1, sizeof(*b->readers)))
				return rt_err(rt, -ENOMEM, "out of memory");
			b->readers[b->nreaders++] = in;
		}
	}
	return 0;
}

int vmgpu_rt_enqueue(struct vmgpu_rt *rt, vmgpu_rt_handle queue,
		     const struct vmgpu_rt_instance *inst,
		     vmgpu_rt_handle *event)
{
	struct rt_instance *in = NULL;
	struct rt_queue *q;
	struct rt_obj *o;
	uint32_t i;
	int r;

	if (!rt || !inst || !event || (inst->num_wait && !inst->wait))
		return -EINVAL;
	*event = 0;
	pthread_mutex_lock(&rt->lock);
	r = rt_lookup(rt, queue, RT_KIND_QUEUE, &o);
	if (r)
		goto out;
	q = (struct rt_queue *)o;
	if (inst->flags & ~VMGPU_RT_INSTANCE_SPLIT) {
		r = rt_err(rt, -EINVAL, "unknown instance flags %#x",
			   inst->flags);
		goto out;
	}
	r = rt_lookup(rt, inst->kernel, RT_KIND_KERNEL, &o);
	if (r)
		goto out;
	in = calloc(1, sizeof(*in) + (((struct rt_kernel *)o)->sig.num_params +
				      1) * sizeof(in->uses[0]));
	if (!in) {
		r = rt_err(rt, -ENOMEM, "out of memory");
		goto out;
	}
	in->o.kind = RT_KIND_EVENT;
	in->o.refs = 1;
	in->o.release = instance_release;
	in->kernel = (struct rt_kernel *)o;
	rt_get(o);
	{
		const struct rt_logical *l = &rt->logical[q->ctx->device];
		bool any = q->ctx->flags & VMGPU_RT_CTX_CPU_FALLBACK;

		/* A device of the set (or the CPU) must run some version. */

		for (i = 0; i < l->count; i++)
			any |= runs_on(in->kernel,
				       rt->phys[l->phys[i]].caps.isa_version);
		if (!any) {
			r = rt_err(rt, -ENOEXEC,
				   "kernel %s has no executable for a device of the queue's set",
				   in->kernel->sig.name);
			goto fail;
		}
	}
	for (i = 0; i < 3; i++) {
		in->grid[i] = inst->grid[i] ? inst->grid[i] : 1;
		in->block[i] = inst->block[i] ? inst->block[i] : 1;
	}
	if ((uint64_t)in->grid[0] * in->grid[1] * in->grid[2] >
	    VMGPU_MAX_GRID_BLOCKS ||
	    in->block[0] * in->block[1] * in->block[2] >
	    VMGPU_MAX_BLOCK_THREADS) {
		r = rt_err(rt, -EINVAL, "grid or block too large");
		goto fail;
	}
	in->priority = inst->priority;
	in->flags = inst->flags;
	for (i = 0; i < inst->num_wait; i++) {
		r = rt_lookup(rt, inst->wait[i], RT_KIND_EVENT, &o);
		if (!r)
			r = add_dep(rt, in, (struct rt_instance *)o);
		if (r)
			goto fail;
	}
	r = take_args(rt, in, inst, q);
	if (r)
		goto fail;
	r = note_uses(rt, in);
	if (r)
		goto fail;
	r = rt_handle_new(rt, &in->o, event);
	if (r)
		goto fail;
	in->queue = q;
	rt_get(&q->o);
	in->seq = ++rt->seq;
	in->state = RT_QUEUED;
	/* The queue's pending list holds a reference until completion. */
	rt_get(&in->o);
	in->next = NULL;
	*q->pending_tail = in;
	q->pending_tail = &in->next;
	q->enqueued++;
	rt->unflushed++;
	goto out;
fail:
	undo_deps(rt, in);
	{
		uint32_t j;

		/* Not yet a user of any buffer: only drop the references. */
		for (j = 0; j < in->nuses; j++) {
			struct rt_buffer *b = in->uses[j].buf;

			if (b->writer == in)
				b->writer = NULL;
		}
	}
	rt_instance_free(rt, in);
out:
	pthread_mutex_unlock(&rt->lock);
	return r;
}

static void flush_queue(struct vmgpu_rt *rt, struct rt_queue *q)
{
	struct rt_instance *in, *next, **tail = &rt->runnable;

	if (!q->pending)
		return;
	while (*tail)
		tail = &(*tail)->rnext;
	for (in = q->pending; in; in = next) {
		next = in->next;
		in->next = NULL;
		in->state = RT_SUBMITTED;
		if (in->ready_ns < rt->now)
			in->ready_ns = rt->now;
		in->rnext = NULL;
		*tail = in;
		tail = &in->rnext;
		rt->unflushed--;
	}
	q->pending = NULL;
	q->pending_tail = &q->pending;
	pthread_cond_broadcast(&rt->work);
}

void rt_flush_all(struct vmgpu_rt *rt)
{
	uint32_t i;

	for (i = 0; i < rt->nqueues; i++)
		flush_queue(rt, rt->queues[i]);
}

int vmgpu_rt_flush(struct vmgpu_rt *rt, vmgpu_rt_handle queue)
{
	struct rt_obj *o;
	int r;

	if (!rt)
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	r = rt_lookup(rt, queue, RT_KIND_QUEUE, &o);
	if (!r)
		flush_queue(rt, (struct rt_queue *)o);
	pthread_mutex_unlock(&rt->lock);
	return r;
}

/* ---- waiting ---- */

static int timed_wait(struct vmgpu_rt *rt, const struct timespec *deadline)
{
	if (!deadline) {
		pthread_cond_wait(&rt->done, &rt->lock);
		return 0;
	}
	return pthread_cond_timedwait(&rt->done, &rt->lock, deadline);
}

static const struct timespec *deadline_of(int64_t timeout_ns,
					  struct timespec *ts)
{
	if (timeout_ns < 0)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += timeout_ns / 1000000000;
	ts->tv_nsec += timeout_ns % 1000000000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
	return ts;
}

int vmgpu_rt_wait(struct vmgpu_rt *rt, vmgpu_rt_handle event,
		  int64_t timeout_ns)
{
	const struct timespec *dl;
	struct rt_instance *in;
	struct timespec ts;
	struct rt_obj *o;
	int r;

	if (!rt)
		return -EINVAL;
	dl = deadline_of(timeout_ns, &ts);
	pthread_mutex_lock(&rt->lock);
	r = rt_lookup(rt, event, RT_KIND_EVENT, &o);
	if (r)
		goto out;
	in = (struct rt_instance *)o;
	rt_get(o);
	rt_flush_all(rt);
	while (in->state != RT_COMPLETE)
		if (timed_wait(rt, dl)) {
			r = rt_err(rt, -ETIME, "instance not done in time");
			break;
		}
	if (!r) {
		/* The application saw the end: its clock is past it. */
		if (in->end_ns > rt->now)
			rt->now = in->end_ns;
		r = in->error;
		if (r)
			rt_err(rt, r, "%s", in->why);
	}
	rt_put(rt, o);
out:
	pthread_mutex_unlock(&rt->lock);
	return r;
}

int vmgpu_rt_finish(struct vmgpu_rt *rt, vmgpu_rt_handle queue)
{
	struct rt_queue *q;
	struct rt_obj *o;
	int r;

	if (!rt)
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	r = rt_lookup(rt, queue, RT_KIND_QUEUE, &o);
	if (r)
		goto out;
	q = (struct rt_queue *)o;
	rt_get(o);
	rt_flush_all(rt);
	while (q->done != q->enqueued)
		pthread_cond_wait(&rt->done, &rt->lock);
	if (q->last_end > rt->now)
		rt->now = q->last_end;
	r = q->first_error;
	if (r)
		rt_err(rt, r, "%s", q->first_why);
	q->first_error = 0;
	rt_put(rt, o);
out:
	pthread_mutex_unlock(&rt->lock);
	return r;
}

int vmgpu_rt_event_query(struct vmgpu_rt *rt, vmgpu_rt_handle event,
			 struct vmgpu_rt_event_info *info)
{
	struct rt_instance *in;
	struct rt_obj *o;
	int r;

	if (!rt || !info)
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	r = rt_lookup(rt, event, RT_KIND_EVENT, &o);
	if (!r) {
		in = (struct rt_instance *)o;
		memset(info, 0, sizeof(*info));
		info->state = in->state;
		if (in->state == RT_COMPLETE)
			info->error = in->error;
		if (in->state >= RT_RUNNING) {
			info->phys = in->phys;
			info->parts = in->parts;
			info->order = in->order;
			info->start_ns = in->start_ns;
			info->end_ns = in->end_ns;
			info->exec_ns = in->exec_ns;
			info->transfer_ns = in->transfer_ns;
		}
	}
	pthread_mutex_unlock(&rt->lock);
	return r;
}

/* ---- the scheduler ---- */

static const struct rt_logical *set_of(struct vmgpu_rt *rt,
				       const struct rt_instance *in)
{
	return &rt->logical[in->queue->ctx->device];
}

/*
 * The devices @in may use (into @d, returns how many), and the earliest
 * time one of them is free.
 */
static uint32_t candidates(struct vmgpu_rt *rt, const struct rt_instance *in,
			   uint32_t *d, uint64_t *free_at)
{
	const struct rt_logical *l = set_of(rt, in);
	bool has_cpu = false, all_busy = true;
	uint32_t i, n = 0;

	*free_at = UINT64_MAX;
	for (i = 0; i < l->count; i++) {
		const struct rt_phys *p = &rt->phys[l->phys[i]];

		if (l->phys[i] == rt->cpu) {
			has_cpu = true;
		} else {
			if (p->graphics_load < VMGPU_RT_GRAPHICS_BUSY &&
			    p->busy_until <= in->ready_ns)
				all_busy = false;
			if (p->graphics_load >= 100 ||
			    !runs_on(in->kernel, p->caps.isa_version))
				continue;
		}
		d[n++] = l->phys[i];
	}
	if (!has_cpu && all_busy &&
	    in->queue->ctx->flags & VMGPU_RT_CTX_CPU_FALLBACK)
		d[n++] = rt->cpu;
	for (i = 0; i < n; i++)
		if (rt->phys[d[i]].busy_until < *free_at)
			*free_at = rt->phys[d[i]].busy_until;
	return n;
}

static uint64_t slowed(const struct rt_phys *p, uint64_t ns)
{
	if (!p->graphics_load || p->graphics_load >= 100)
		return ns;
	return ns * 100 / (100 - p->graphics_load);
}

/*
 * The instance to run next (removed from the list), or NULL: the one that
 * can start first, then the highest priority, then the longest expected
 * (the longest first leaves the short ones to fill the devices' last
 * gaps), then the earliest enqueued.
 */
static struct rt_instance *pick(struct vmgpu_rt *rt, uint64_t *key_out)
{
	struct rt_instance **pp, **best = NULL;
	uint64_t best_key = 0, best_len = 0;
	uint32_t d[VMGPU_RT_MAX_DEVICES];
	bool mean = rt->policy == VMGPU_RT_POLICY_DMDA_MEAN;

	for (pp = &rt->runnable; *pp; pp = &(*pp)->rnext) {
		struct rt_instance *in = *pp, *b;
		uint64_t free_at, key, len = 0;

		if (in->pending_deps)
			continue;
		if (in->error) {
			/* Cancelled: it goes at once. */
			key = in->ready_ns;
		} else {
			if (!candidates(rt, in, d, &free_at))
				continue;
			key = free_at > in->ready_ns ? free_at : in->ready_ns;
			len = rt_estimate(rt, in->kernel, d[0], threads_of(in),
					  mean);
		}
		b = best ? *best : NULL;
		if (!b || key < best_key ||
		    (key == best_key &&
		     (in->priority > b->priority ||
		      (in->priority == b->priority &&
		       (len > best_len ||
			(len == best_len && in->seq < b->seq)))))) {
			best = pp;
			best_key = key;
			best_len = len;
		}
	}
	if (!best)
		return NULL;
	{
		struct rt_instance *in = *best;

		*best = in->rnext;
		in->rnext = NULL;
		*key_out = best_key;
		return in;
	}
}

/* Choose the device for @in (rt->lock held). */
static uint32_t place(struct vmgpu_rt *rt, struct rt_instance *in,
		      uint64_t *est_transfer, uint64_t *est_exec)
{
	uint32_t d[VMGPU_RT_MAX_DEVICES], n, i, j, best = 0;
	struct rt_logical *l = &rt->logical[in->queue->ctx->device];
	uint64_t free_at, best_end = UINT64_MAX;
	bool mean = rt->policy == VMGPU_RT_POLICY_DMDA_MEAN;

	n = candidates(rt, in, d, &free_at);
	if (rt->policy == VMGPU_RT_POLICY_FIRST) {
		best = 0;
	} else if (rt->policy == VMGPU_RT_POLICY_ROUND_ROBIN) {
		/* The next member of the set in turn that may take it. */
		best = 0;
		for (i = 0; i < l->count; i++) {
			uint32_t m = l->phys[(l->rr_next + i) % l->count];

			for (j = 0; j < n; j++)
				if (d[j] == m)
					break;
			if (j < n) {
				best = j;
				l->rr_next = (l->rr_next + i + 1) % l->count;
				break;
			}
		}
	} else {
		for (i = 0; i < n; i++) {
			const struct rt_phys *p = &rt->phys[d[i]];
			uint64_t start = p->busy_until > in->ready_ns ?
					 p->busy_until : in->ready_ns;
			uint64_t xfer = 0, ns, exec, end;

			for (j = 0; j < in->nuses; j++) {
				rt_transfer_estimate(rt, in->uses[j].buf, d[i],
						     &ns);
				xfer += ns;
			}
			exec = slowed(p, rt_estimate(rt, in->kernel, d[i],
						     threads_of(in), mean));
			end = start + xfer + exec;
			if (end < best_end) {
				best_end = end;
				best = i;
			}
		}
	}
	*est_transfer = 0;
	for (j = 0; j < in->nuses; j++) {
		uint64_t ns;

		rt_transfer_estimate(rt, in->uses[j].buf, d[best], &ns);
		*est_transfer += ns;
	}
	*est_exec = slowed(&rt->phys[d[best]],
			   rt_estimate(rt, in->kernel, d[best], threads_of(in),
				       mean));
	return d[best];
}

static int fault_errno(uint32_t fault)
{
	switch (fault) {
	case VMGPU_FAULT_NONE:
		return 0;
	case VMGPU_FAULT_UNMAPPED:
	case VMGPU_FAULT_PERMISSION:
	case VMGPU_FAULT_MISALIGNED:
		return -EFAULT;
	case VMGPU_FAULT_BUDGET:
		return -ETIMEDOUT;
	case VMGPU_FAULT_ILLEGAL_INSTR:
	case VMGPU_FAULT_BAD_EXECUTABLE:
	case VMGPU_FAULT_PC_RANGE:
		return -ENOEXEC;
	}
	return -EIO;
}

static int cmp_range(const void *a, const void *b)
{
	const struct rt_cpu_range *x = a, *y = b;

	return x->va < y->va ? -1 : x->va > y->va;
}

/*
 * Run @in on @phys (buffers valid there): its device time and error.
 * Called without rt->lock.
 */
static int run_on(struct vmgpu_rt *rt, struct rt_instance *in, uint32_t phys,
		  uint64_t code, const uint32_t grid[3],
		  const uint32_t origin[3], uint64_t *device_ns)
{
	struct rt_kernel *k = in->kernel;
	uint8_t args[VMGPU_MAX_ARGS_BYTES];
	uint32_t i, fault = 0;
	int r;

	memcpy(args, in->args, sizeof(args));
	for (i = 0; i < in->nuses; i++) {
		uint64_t va = rt_buffer_va(rt, in->uses[i].buf, phys) +
			      in->uses[i].offset;

		memcpy(args + k->params[in->uses[i].param].offset, &va, 8);
	}
	if (phys == rt->cpu) {
		struct rt_cpu_range ranges[VMGPU_MAX_PARAMS + 1];
		struct rt_cpu_launch l = {
			.kernel = k->cpu, .args = args,
			.args_bytes = k->h.args_bytes,
			.shared_bytes = in->shared_bytes, .ranges = ranges,
		};
		uint32_t n = 0, j;

		for (i = 0; i < in->nuses; i++) {
			struct rt_buffer *b = in->uses[i].buf;
			bool dup = false;

			for (j = 0; j < n; j++)
				if (ranges[j].va == b->cpu_va) {
					ranges[j].write |= in->uses[i].write;
					dup = true;
				}
			if (!dup)
				ranges[n++] = (struct rt_cpu_range){
					.va = b->cpu_va, .bytes = b->alloc_bytes,
					.host = b->host,
					.write = in->uses[i].write,
				};
		}
		qsort(ranges, n, sizeof(*ranges), cmp_range);
		l.nranges = n;
		for (i = 0; i < 3; i++) {
			l.grid[i] = grid[i];
			l.block[i] = in->block[i];
			l.origin[i] = origin[i];
			l.grid_total[i] = in->grid[i];
		}
		r = rt_cpu_run(rt->cpudev, &l, device_ns, &fault);
	} else {
		const struct rt_phys *p = &rt->phys[phys];
		const struct vmgpu_rt_backend *be = &rt->backends[p->backend];
		struct vmgpu_rt_launch_desc l = {
			.code = code, .args = args,
			.args_bytes = k->h.args_bytes,
			.shared_bytes = in->shared_bytes,
		};

		for (i = 0; i < 3; i++) {
			l.grid[i] = grid[i];
			l.block[i] = in->block[i];
			l.origin[i] = origin[i];
			l.grid_total[i] = in->grid[i];
		}
		pthread_mutex_lock(&rt->be_lock);
		r = be->ops->run(be->opaque, p->index, &l, device_ns, &fault);
		pthread_mutex_unlock(&rt->be_lock);
	}
	if (r)
		return r;
	if (fault == VMGPU_FAULT_BUDGET)
		in->budget_phys = phys + 1;
	return fault_errno(fault);
}

/* Why @in failed with @err, for vmgpu_rt_wait() and vmgpu_rt_finish(). */
static void fail_message(struct vmgpu_rt *rt, struct rt_instance *in, int err)
{
	const char *name = in->kernel->sig.name;
	uint32_t d = in->budget_phys - 1;

	if (err == -ETIMEDOUT && in->budget_phys && d == rt->cpu)
		snprintf(in->why, sizeof(in->why),
			 "kernel '%s' on the CPU device: stopped after %llu warp "
			 "instructions (the CPU budget: %llu per %u warps; %s)",
			 name, (unsigned long long)vg_budget_scaled(rt->cpu_budget,
								    in->grid,
								    in->block),
			 (unsigned long long)rt->cpu_budget, VMGPU_BUDGET_WARPS,
			 rt->cpu_budget_from);
	else if (err == -ETIMEDOUT && in->budget_phys)
		snprintf(in->why, sizeof(in->why),
			 "kernel '%s' on device %u: stopped by the GPU's "
			 "instruction budget", name, d);
	else if (err == -ECANCELED)
		snprintf(in->why, sizeof(in->why),
			 "kernel '%s': not run, an instance it waits for failed",
			 name);
	else
		snprintf(in->why, sizeof(in->why),
			 "kernel '%s' on device %u failed (%d%s)", name, in->phys,
			 err, err == -EFAULT ? ": memory fault" :
			 err == -ENOEXEC ? ": bad executable or instruction" :
			 err == -ETIMEDOUT ? ": instruction budget" : "");
}

/*
 * The printf records @in's kernel wrote, to standard output: after it
 * ran on @phys, before it is complete (rt->lock held, dropped while
 * writing: the instance is RUNNING, nothing else uses its buffer).
 */
static void printf_out(struct vmgpu_rt *rt, struct rt_instance *in,
		       uint32_t phys)
{
	struct rt_buffer *b = in->pbuf;
	const uint8_t *mem;

	if (!b)
		return;
	/* where the kernel wrote it, whether it ended well or not */
	mem = phys == rt->cpu ? b->host : b->copy[phys].host;
	if (!mem)
		return;
	pthread_mutex_unlock(&rt->lock);
	vmgpu_printf_write(mem, b->bytes, stdout);
	fflush(stdout);
	pthread_mutex_lock(&rt->lock);
}

/* Complete @in (rt->lock held): wake its waiters and the application. */
static void complete(struct vmgpu_rt *rt, struct rt_instance *in, int err)
{
	uint32_t i;

	in->state = RT_COMPLETE;
	in->error = err;
	if (err)
		fail_message(rt, in, err);
	for (i = 0; i < in->nwaiters; i++) {
		struct rt_instance *w = in->waiters[i];

		w->pending_deps--;
		if (in->end_ns > w->ready_ns)
			w->ready_ns = in->end_ns;
		if (err && !w->error)
			w->error = -ECANCELED;
	}
	in->nwaiters = 0;
	rt_instance_drop(rt, in);
	in->queue->done++;
	if (in->end_ns > in->queue->last_end)
		in->queue->last_end = in->end_ns;
	if (err && !in->queue->first_error) {
		in->queue->first_error = err;
		memcpy(in->queue->first_why, in->why, sizeof(in->why));
	}
	pthread_cond_broadcast(&rt->done);
	rt_put(rt, &in->o);		/* the list's reference */
}


/* ---- split instances (P7) ---- */

#define RT_MAX_PARTS	8

struct rt_part {
	uint32_t phys;
	uint32_t origin[3], grid[3];
	uint64_t code, start, xfer, device_ns;
	int err;
};

/* Load @k on GPU @phys if needed (rt->lock held). */
static int load_on(struct vmgpu_rt *rt, struct rt_kernel *k, uint32_t phys)
{
	const struct rt_phys *p = &rt->phys[phys];
	const struct vmgpu_rt_backend *be;
	const void *image;
	size_t bytes;
	int r = 0;

	if (phys == rt->cpu || k->code[phys])
		return 0;
	r = rt_kernel_image(rt, k, p->caps.isa_version, &image, &bytes);
	if (r)
		return r;
	be = &rt->backends[p->backend];
	pthread_mutex_lock(&rt->be_lock);
	r = be->ops->kernel_load(be->opaque, p->index, image, bytes,
				 &k->code[phys]);
	pthread_mutex_unlock(&rt->be_lock);
	if (r)
		rt_err(rt, r, "loading kernel %s on device %u", k->sig.name,
		       phys);
	return r;
}

/*
 * Run @in in portions of its grid along x, one per device it may use,
 * at once; merge what each wrote. A written buffer's bytes before the
 * run are kept aside: a portion's device copy differs from them exactly
 * where the portion wrote (or wrote another value), so those bytes go
 * to the result; the CPU's portion writes into the host copy itself.
 */
static void execute_split(struct vmgpu_rt *rt, struct rt_instance *in,
			  uint64_t key, const uint32_t *cand, uint32_t n)
{
	struct rt_part part[RT_MAX_PARTS];
	uint8_t *base[VMGPU_MAX_PARAMS + 1] = { NULL };
	double w[RT_MAX_PARTS], wsum = 0;
	bool mean = rt->policy == VMGPU_RT_POLICY_DMDA_MEAN;
	uint32_t i, j, d, given = 0, np = 0;
	uint64_t end = 0, run = 0;
	int r = 0;

	if (n > RT_MAX_PARTS)
		n = RT_MAX_PARTS;
	if (n > in->grid[0])
		n = in->grid[0];
	/* Shares by expected speed: history, else compute power. */
	for (i = 0; i < n; i++) {
		uint64_t est = rt_estimate(rt, in->kernel, cand[i],
					   threads_of(in), mean);

		w[i] = est ? 1.0 / (double)slowed(&rt->phys[cand[i]], est) :
			     0;
	}
	for (i = 0; i < n; i++)
		if (!w[i])
			break;
	for (j = 0; j < n; j++) {
		if (i < n)
			w[j] = (double)rt->phys[cand[j]].power;
		wsum += w[j];
	}
	for (i = 0; i < n; i++) {
		uint32_t blocks = i + 1 == n ? in->grid[0] - given :
			(uint32_t)((double)in->grid[0] * w[i] / wsum + 0.5);

		if (blocks > in->grid[0] - given - (n - i - 1))
			blocks = in->grid[0] - given - (n - i - 1);
		if (!blocks)
			continue;
		memset(&part[np], 0, sizeof(part[np]));
		part[np].phys = cand[i];
		part[np].origin[0] = given;
		part[np].grid[0] = blocks;
		part[np].grid[1] = in->grid[1];
		part[np].grid[2] = in->grid[2];
		given += blocks;
		np++;
	}
	in->state = RT_RUNNING;
	in->order = ++rt->order;
	in->phys = part[0].phys;
	in->parts = np;
	if (key > rt->now)
		rt->now = key;
	/* The bytes of the written buffers before the run, on the host. */
	for (i = 0; i < in->nuses && !r; i++) {
		struct rt_buffer *b = in->uses[i].buf;

		if (!in->uses[i].write)
			continue;
		for (j = 0; j < i; j++)
			if (in->uses[j].buf == b && base[j])
				break;
		if (j < i)
			continue;
		r = rt_buffer_to_host(rt, b);
		base[i] = r ? NULL : malloc(b->bytes);
		if (!r && !base[i])
			r = -ENOMEM;
		if (!r)
			memcpy(base[i], b->host, b->bytes);
	}
	for (j = 0; j < np && !r; j++) {
		struct rt_part *pt = &part[j];
		struct rt_phys *p = &rt->phys[pt->phys];

		pt->start = p->busy_until > in->ready_ns ? p->busy_until :
							   in->ready_ns;
		for (i = 0; i < in->nuses && !r; i++) {
			uint64_t ns, moved;

			r = rt_buffer_make_valid(rt, in->uses[i].buf, pt->phys,
						 &ns, &moved);
			pt->xfer += ns;
			p->transfer_bytes += moved;
		}
		if (!r)
			r = load_on(rt, in->kernel, pt->phys);
		pt->code = in->kernel->code[pt->phys];
		p->running++;
	}
	if (r && r != -ENOEXEC) {
		rt_err(rt, r, "moving buffers or loading %s for a split run",
		       in->kernel->sig.name);
		r = -EIO;
	}
	if (!r) {
		pthread_mutex_unlock(&rt->lock);
		for (j = 0; j < np && !r; j++)
			r = part[j].err = run_on(rt, in, part[j].phys,
						 part[j].code, part[j].grid,
						 part[j].origin,
						 &part[j].device_ns);
		pthread_mutex_lock(&rt->lock);
	}
	/* Merge: the GPUs' portions over the host copy. */
	for (i = 0; i < in->nuses && !r; i++) {
		struct rt_buffer *b = in->uses[i].buf;

		if (!base[i])
			continue;
		for (j = 0; j < np; j++) {
			const uint8_t *c = b->copy[part[j].phys].host;
			uint64_t x;

			if (part[j].phys == rt->cpu)
				continue;
			for (x = 0; x < b->bytes; x++)
				if (c[x] != base[i][x])
					b->host[x] = c[x];
		}
		for (d = 0; d < rt->nphys; d++)
			b->copy[d].valid = false;
		b->host_valid = true;
	}
	for (j = 0; j < np; j++) {
		struct rt_part *pt = &part[j];
		struct rt_phys *p = &rt->phys[pt->phys];
		uint64_t back = 0, e;

		/* Each GPU's portion comes back over its host bus. */
		for (i = 0; i < in->nuses; i++)
			if (base[i] && pt->phys != rt->cpu)
				back += p->caps.host_lat_ns +
					in->uses[i].buf->bytes * 1000 /
					(p->caps.host_bw_mbps ?
					 p->caps.host_bw_mbps : 1);
		if (!r && pt->device_ns)
			rt_sample(in->kernel, pt->phys,
				  threads_of(in) / in->grid[0] * pt->grid[0],
				  pt->device_ns);
		e = pt->start + pt->xfer + slowed(p, pt->device_ns) + back;
		p->busy_until = e;
		p->busy_ns += e - pt->start;
		p->running--;
		p->instances++;
		if (e > end)
			end = e;
		if (!j || pt->start + pt->xfer < run)
			run = pt->start + pt->xfer;
		in->exec_ns += slowed(p, pt->device_ns);
	}
	for (i = 0; i < VMGPU_MAX_PARAMS + 1; i++)
		free(base[i]);
	in->start_ns = part[0].start;
	for (j = 1; j < np; j++)
		if (part[j].start < in->start_ns)
			in->start_ns = part[j].start;
	/*
	 * Its transfers: until the first portion ran (the portions move
	 * their buffers at once, each over its own bus); the end: the last
	 * portion's written buffers back on the host, merged.
	 */
	in->transfer_ns = np ? run - in->start_ns : 0;
	in->end_ns = end;
	complete(rt, in, r);
}

static void execute(struct vmgpu_rt *rt, struct rt_instance *in,
		    uint64_t key)
{
	uint64_t est_xfer, est_exec, xfer = 0, device_ns = 0, code = 0;
	struct rt_phys *p;
	uint32_t phys, i, d, cand[VMGPU_RT_MAX_DEVICES], n;
	int r = 0;

	if (in->flags & VMGPU_RT_INSTANCE_SPLIT && !in->pbuf) {
		n = candidates(rt, in, cand, &est_xfer);
		if (n > 1 && in->grid[0] > 1) {
			execute_split(rt, in, key, cand, n);
			return;
		}
	}
	phys = place(rt, in, &est_xfer, &est_exec);
	p = &rt->phys[phys];
	in->phys = phys;
	in->parts = 1;
	in->state = RT_RUNNING;
	in->order = ++rt->order;
	in->start_ns = p->busy_until > in->ready_ns ? p->busy_until :
						       in->ready_ns;
	if (key > rt->now)
		rt->now = key;
	p->running++;
	p->busy_until = in->start_ns + est_xfer + est_exec;

	/* Data moves and kernel loads under the lock (see rt_internal.h). */
	for (i = 0; i < in->nuses && !r; i++) {
		uint64_t ns, moved;

		r = rt_buffer_make_valid(rt, in->uses[i].buf, phys, &ns,
					 &moved);
		xfer += ns;
		p->transfer_bytes += moved;
	}
	if (!r) {
		r = load_on(rt, in->kernel, phys);
		code = in->kernel->code[phys];
	}
	if (r == -ENOEXEC) {
		/* no executable for the device's ISA: the message is set */
	} else if (r) {
		rt_err(rt, r, "moving buffers or loading %s on device %u",
		       in->kernel->sig.name, phys);
		r = -EIO;
	}
	if (!r) {
		pthread_mutex_unlock(&rt->lock);
		static const uint32_t zero[3];

		r = run_on(rt, in, phys, code, in->grid, zero, &device_ns);
		pthread_mutex_lock(&rt->lock);
	}
	if (!r)
		rt_sample(in->kernel, phys, threads_of(in), device_ns);
	/* Written buffers are now valid only here. */
	for (i = 0; i < in->nuses && !r; i++) {
		struct rt_buffer *b = in->uses[i].buf;

		if (!in->uses[i].write)
			continue;
		for (d = 0; d < rt->nphys; d++)
			b->copy[d].valid = d == phys && phys != rt->cpu;
		b->host_valid = phys == rt->cpu;
	}
	in->transfer_ns = xfer;
	in->exec_ns = slowed(p, device_ns);
	in->end_ns = in->start_ns + xfer + in->exec_ns;
	p->busy_until = in->end_ns;
	p->busy_ns += xfer + in->exec_ns;
	p->running--;
	p->instances++;
	printf_out(rt, in, phys);
	complete(rt, in, r);
}

void *rt_scheduler(void *arg)
{
	struct vmgpu_rt *rt = arg;
	struct rt_instance *in;
	uint64_t key;

	pthread_mutex_lock(&rt->lock);
	for (;;) {
		in = pick(rt, &key);
		if (!in) {
			if (rt->stop) {
				/* What can never run is cancelled. */
				while ((in = rt->runnable)) {
					rt->runnable = in->rnext;
					in->end_ns = in->ready_ns;
					complete(rt, in, -ECANCELED);
				}
				break;
			}
			pthread_cond_wait(&rt->work, &rt->lock);
			continue;
		}
		if (in->error) {
			in->order = ++rt->order;
			in->start_ns = in->end_ns = in->ready_ns;
			complete(rt, in, in->error);
			continue;
		}
		execute(rt, in, key);
	}
	pthread_mutex_unlock(&rt->lock);
	return NULL;
}
