// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: the set of live objects every handle is checked
 * against, their references, and the copy-out of clGet*Info. The bottom
 * of the library: every other file calls it, it calls none of them.
 *
 * The set is open-addressed by the object's address (a removed entry
 * leaves a tombstone until the next growth), so a check is a few probes
 * under the platform's lock, whatever the number of objects.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

#define TOMBSTONE	((void *)1)

static size_t slot_of(const void *o, size_t cap)
{
	uint64_t h = (uintptr_t)o;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (size_t)h & (cap - 1);
}

/* Under the lock: the slot of @o, or of the first free one on its path. */
static size_t find(struct _cl_platform_id *p, const void *o, bool *found)
{
	size_t i = slot_of(o, p->cap_live), first_free = SIZE_MAX;

	for (;;) {
		void *e = p->live[i];

		if (e == o) {
			*found = true;
			return i;
		}
		if (e == TOMBSTONE && first_free == SIZE_MAX)
			first_free = i;
		if (!e) {
			*found = false;
			return first_free == SIZE_MAX ? i : first_free;
		}
		i = (i + 1) & (p->cap_live - 1);
	}
}

static int rehash(struct _cl_platform_id *p, size_t cap)
{
	void **old = p->live;
	size_t i, oldcap = p->cap_live;
	bool found;

	p->live = calloc(cap, sizeof(*p->live));
	if (!p->live) {
		p->live = old;
		return -ENOMEM;
	}
	p->cap_live = cap;
	p->nused = 0;
	for (i = 0; i < oldcap; i++)
		if (old[i] && old[i] != TOMBSTONE) {
			p->live[find(p, old[i], &found)] = old[i];
			p->nused++;
		}
	free(old);
	return 0;
}

int vcl_obj_add(struct _cl_platform_id *p, void *o)
{
	bool found;
	int ret = 0;

	pthread_mutex_lock(&p->lock);
	/* Keep at most half the slots used (live or tombstones). */
	if (2 * (p->nused + 1) > p->cap_live)
		ret = rehash(p, 2 * (p->nlive + 1) > p->cap_live / 2 ?
			     2 * p->cap_live : p->cap_live);
	if (!ret) {
		size_t i = find(p, o, &found);

		if (!found) {
			if (!p->live[i])
				p->nused++;
			p->live[i] = o;
			p->nlive++;
		}
	}
	pthread_mutex_unlock(&p->lock);
	return ret;
}

void vcl_obj_remove(struct _cl_platform_id *p, void *o)
{
	bool found;
	size_t i;

	pthread_mutex_lock(&p->lock);
	i = find(p, o, &found);
	if (found) {
		p->live[i] = TOMBSTONE;
		p->nlive--;
	}
	pthread_mutex_unlock(&p->lock);
}

/*
 * @o's header if it is a live object of @kind with a reference, else
 * NULL; its place in the set to *@i. Under @p's lock.
 */
static struct vcl_obj *live_obj(struct _cl_platform_id *p, const void *o,
				enum vcl_kind kind, size_t *i)
{
	struct vcl_obj *h;
	bool found = false;

	*i = find(p, o, &found);
	if (!found)
		return NULL;
	/* Every object is { dispatch, struct vcl_obj, ... }. */
	h = (struct vcl_obj *)((const char *)o + sizeof(void *));
	return h->kind == kind && h->refs ? h : NULL;
}

bool vcl_obj_get(struct _cl_platform_id *p, const void *o, enum vcl_kind kind,
		 bool ref)
{
	struct vcl_obj *h;
	size_t i;

	if (!o || !p)
		return false;
	pthread_mutex_lock(&p->lock);
	h = live_obj(p, o, kind, &i);
	if (h && ref)
		h->refs++;
	pthread_mutex_unlock(&p->lock);
	return h != NULL;
}

int vcl_obj_release(struct _cl_platform_id *p, void *o, enum vcl_kind kind)
{
	struct vcl_obj *h;
	size_t i;
	int ret = -1;

	if (!o || !p)
		return -1;
	pthread_mutex_lock(&p->lock);
	h = live_obj(p, o, kind, &i);
	if (h) {
		ret = !--h->refs;
		if (ret) {
			/* Gone from the set at once: no call finds it again. */
			p->live[i] = TOMBSTONE;
			p->nlive--;
		}
	}
	pthread_mutex_unlock(&p->lock);
	return ret;
}

bool vcl_obj_put_shared(struct _cl_platform_id *p, void *o,
			enum vcl_kind kind)
{
	struct vcl_obj *h;
	size_t i;

	pthread_mutex_lock(&p->lock);
	h = live_obj(p, o, kind, &i);
	if (h && h->refs > 1)
		h->refs--;
	else
		h = NULL;
	pthread_mutex_unlock(&p->lock);
	return h != NULL;
}

cl_int vcl_info(const void *src, size_t n, size_t size, void *value,
		size_t *size_ret)
{
	if (value) {
		if (size < n)
			return CL_INVALID_VALUE;
		memcpy(value, src, n);
	}
	if (size_ret)
		*size_ret = n;
	return CL_SUCCESS;
}

cl_int vcl_info_str(const char *s, size_t size, void *value,
		    size_t *size_ret)
{
	return vcl_info(s, strlen(s) + 1, size, value, size_ret);
}
