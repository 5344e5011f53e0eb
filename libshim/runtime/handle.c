// SPDX-License-Identifier: MIT
/*
 * libvmgpurt's base: the error message, and the handle table every object
 * of the runtime is named through, with its references. The bottom of the
 * runtime: everything else calls down into it, it calls nothing back (an
 * object's maker gives it the function that frees it, rt_obj.release).
 *
 * A handle is tag:16 | kind:4 | generation:20 | slot + 1:24. The tag is
 * drawn per runtime from its address and the clock, so a handle of
 * another runtime is refused (-EBADF) unless the two tags collide (1 in
 * 65536; the slot's generation and kind are checked still). A slot's
 * generation is bumped when its handle goes, so a released handle is
 * -ESTALE for 2^20 reuses of its slot.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

#define RT_SLOT_BITS	24
#define RT_GEN_BITS	20
#define RT_KIND_SHIFT	44
#define RT_TAG_SHIFT	48

static const char *const kind_names[RT_KIND_NUM] = {
	[RT_KIND_CONTEXT] = "context",
	[RT_KIND_BUFFER] = "buffer",
	[RT_KIND_KERNEL] = "kernel",
	[RT_KIND_QUEUE] = "queue",
	[RT_KIND_EVENT] = "event",
};

int rt_err(struct vmgpu_rt *rt, int err, const char *fmt, ...)
{
	va_list ap;

	if (!rt)
		return err;
	va_start(ap, fmt);
	vsnprintf(rt->err_msg, sizeof(rt->err_msg), fmt, ap);
	va_end(ap);
	return err;
}

size_t vmgpu_rt_error_message(struct vmgpu_rt *rt, char *buf, size_t len)
{
	size_t n;

	if (!rt || !buf || !len)
		return 0;
	pthread_mutex_lock(&rt->lock);
	n = strlen(rt->err_msg);
	snprintf(buf, len, "%s", rt->err_msg);
	pthread_mutex_unlock(&rt->lock);
	return n;
}

/* ---- handles ---- */

int rt_handle_new(struct vmgpu_rt *rt, struct rt_obj *o, vmgpu_rt_handle *h)
{
	struct rt_slot *s;
	uint32_t i;

	if (rt->free_slot) {
		i = rt->free_slot - 1;
		rt->free_slot = rt->slots[i].next_free;
	} else {
		if (rt->nslots >= (1u << RT_SLOT_BITS) - 1)
			return rt_err(rt, -ENOSPC, "handle table full");
		if (vmgpu_grow((void **)&rt->slots, &rt->cap_slots,
			    rt->nslots + 1, sizeof(*rt->slots)))
			return rt_err(rt, -ENOMEM, "out of memory");
		i = rt->nslots++;
		rt->slots[i].gen = 1;
	}
	s = &rt->slots[i];
	s->obj = o;
	s->users = 1;
	s->next_free = 0;
	o->slot = i;
	*h = (uint64_t)rt->tag << RT_TAG_SHIFT |
	     (uint64_t)o->kind << RT_KIND_SHIFT |
	     (uint64_t)(s->gen & ((1u << RT_GEN_BITS) - 1)) << RT_SLOT_BITS |
	     (i + 1);
	return 0;
}

/* The slot of @h, or an error (set) if it names nothing of @kind. */
static int rt_slot_of(struct vmgpu_rt *rt, vmgpu_rt_handle h, uint32_t kind,
		      struct rt_slot **out)
{
	uint32_t tag = h >> RT_TAG_SHIFT;
	uint32_t k = (h >> RT_KIND_SHIFT) & 0xf;
	uint32_t gen = (h >> RT_SLOT_BITS) & ((1u << RT_GEN_BITS) - 1);
	uint32_t slot = h & ((1u << RT_SLOT_BITS) - 1);
	const char *want = kind && kind < RT_KIND_NUM ? kind_names[kind] :
			   "object";
	struct rt_slot *s;

	if (!h)
		return rt_err(rt, -EBADF, "invalid %s: handle 0", want);
	if (tag != rt->tag)
		return rt_err(rt, -EBADF,
			      "invalid %s: handle %#llx is not of this runtime",
			      want, (unsigned long long)h);
	if (!k || k >= RT_KIND_NUM || (kind && k != kind))
		return rt_err(rt, -EBADF, "invalid %s: handle %#llx is %s %s",
			      want, (unsigned long long)h,
			      k && k < RT_KIND_NUM ? "a" : "not a handle:",
			      k && k < RT_KIND_NUM ? kind_names[k] : "bad kind");
	if (!slot || slot > rt->nslots)
		return rt_err(rt, -EBADF,
			      "invalid %s: handle %#llx names no slot", want,
			      (unsigned long long)h);
	s = &rt->slots[slot - 1];
	if (!s->obj || (s->gen & ((1u << RT_GEN_BITS) - 1)) != gen ||
	    s->obj->kind != k)
		return rt_err(rt, -ESTALE,
			      "invalid %s: handle %#llx was released", want,
			      (unsigned long long)h);
	*out = s;
	return 0;
}

int rt_lookup(struct vmgpu_rt *rt, vmgpu_rt_handle h, uint32_t kind,
	      struct rt_obj **out)
{
	struct rt_slot *s;
	int r = rt_slot_of(rt, h, kind, &s);

	if (r)
		return r;
	*out = s->obj;
	return 0;
}

void rt_get(struct rt_obj *o)
{
	o->refs++;
}

void rt_put(struct vmgpu_rt *rt, struct rt_obj *o)
{
	if (!o || --o->refs)
		return;
	o->release(rt, o);
}

int vmgpu_rt_retain(struct vmgpu_rt *rt, vmgpu_rt_handle h)
{
	struct rt_slot *s;
	int r;

	if (!rt)
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	r = rt_slot_of(rt, h, 0, &s);
	if (!r) {
		if (s->users == UINT32_MAX)
			r = rt_err(rt, -EOVERFLOW, "too many references");
		else
			s->users++;
	}
	pthread_mutex_unlock(&rt->lock);
	return r;
}

/* Drop the handle of @s (its users gone): the slot is free again. */
static void rt_slot_drop(struct vmgpu_rt *rt, struct rt_slot *s)
{
	struct rt_obj *o = s->obj;
	uint32_t i = (uint32_t)(s - rt->slots);

	s->obj = NULL;
	s->gen++;
	s->next_free = rt->free_slot;
	rt->free_slot = i + 1;
	rt_put(rt, o);
}

void rt_handles_drop_all(struct vmgpu_rt *rt)
{
	uint32_t i;

	for (i = 0; i < rt->nslots; i++)
		if (rt->slots[i].obj) {
			rt->slots[i].users = 0;
			rt_slot_drop(rt, &rt->slots[i]);
		}
}

int vmgpu_rt_release(struct vmgpu_rt *rt, vmgpu_rt_handle h)
{
	struct rt_slot *s;
	int r;

	if (!rt)
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	r = rt_slot_of(rt, h, 0, &s);
	if (!r && !--s->users)
		rt_slot_drop(rt, s);
	pthread_mutex_unlock(&rt->lock);
	return r;
}
