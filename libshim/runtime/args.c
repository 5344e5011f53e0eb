// SPDX-License-Identifier: MIT
/*
 * libvmgpurt: a kernel's parameters and an instance's arguments
 * (Documentation/runtime.rst, "Arguments").
 *
 * The signature types a parameter i32, i64, f32, buffer, bytes or
 * local; a __local pointer is VMGPU_PARAM_LOCAL there (the byte offset
 * of the buffer in the block's shared memory, Documentation/compiler.rst).
 * Such a parameter takes VMGPU_RT_ARG_LOCAL only, by size; the runtime
 * places it after the kernel's static local memory, so that no offset a
 * caller computes can overlap it. An i32 takes an i32 only.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

/* ---- names in messages ---- */

static const char *given_name(uint32_t type)
{
	switch (type) {
	case VMGPU_PARAM_I32: return "an i32";
	case VMGPU_PARAM_I64: return "an i64";
	case VMGPU_PARAM_F32: return "an f32";
	case VMGPU_PARAM_BUF_RO: return "a read-only buffer";
	case VMGPU_PARAM_BUF_WO: return "a write-only buffer";
	case VMGPU_PARAM_BUF_RW: return "a read-write buffer";
	case VMGPU_RT_ARG_LOCAL: return "a local buffer (VMGPU_RT_ARG_LOCAL)";
	case VMGPU_PARAM_LOCAL: return "a local buffer";
	}
	if (VMGPU_PARAM_KIND(type) == VMGPU_PARAM_BYTES)
		return "a by-value aggregate (VMGPU_PARAM_BYTES)";
	return "an unknown type";
}

static const char *expected_name(const struct rt_kernel *k, uint32_t i)
{
	if (k->params[i].type == VMGPU_PARAM_LOCAL)
		return "a local buffer, by size (VMGPU_RT_ARG_LOCAL: a __local pointer)";
	switch (k->params[i].type) {
	case VMGPU_PARAM_I32: return "an i32";
	case VMGPU_PARAM_I64: return "an i64";
	case VMGPU_PARAM_F32: return "an f32";
	case VMGPU_PARAM_BUF_RO:
		return "a read-only buffer expected (const or only read in the kernel), or a read-write one";
	case VMGPU_PARAM_BUF_WO:
		return "a write-only buffer expected (only written in the kernel), or a read-write one";
	case VMGPU_PARAM_BUF_RW:
		return "a read-write buffer expected (read and written in the kernel)";
	}
	if (VMGPU_PARAM_KIND(k->params[i].type) == VMGPU_PARAM_BYTES)
		return "a by-value vector or struct (VMGPU_PARAM_BYTES) of its size";
	return "an unknown type";
}

/* "parameter 2 'x'" */
#define PARAM_FMT	"kernel '%s': parameter %u '%s'"
#define PARAM_ARGS(k, i)	(k)->sig.name, (i), (k)->params[i].name

static int type_err(struct vmgpu_rt *rt, const struct rt_kernel *k,
		    uint32_t i, uint32_t given)
{
	const char *e = expected_name(k, i);
	bool buf = vmgpu_param_is_buffer(k->params[i].type);

	return rt_err(rt, -EINVAL, PARAM_FMT ": %s%s, %s given", PARAM_ARGS(k, i),
		      e, buf ? "" : " expected", given_name(given));
}

/* Does a @given buffer serve a parameter of type @want? */
static bool buffer_fits(uint32_t want, uint32_t given)
{
	return given == want || given == VMGPU_PARAM_BUF_RW;
}

/*
 * The global offset and work dimension of @inst: checked, and into the
 * kernel's hidden ndrange pair (VMGPU_NDRANGE_OPTION) when it has one.
 */
static int ndrange_set(struct vmgpu_rt *rt, struct rt_instance *in,
		       const struct vmgpu_rt_instance *inst)
{
	const struct rt_kernel *k = in->kernel;
	uint32_t w[4], i, dim = inst->work_dim;

	/*
	 * Checked for every kernel: an offset the ids cannot express is the
	 * caller's error whether this kernel reads it or not. No offset:
	 * any size, as before offsets (ids wrap past 2^32).
	 */
	for (i = 0; i < 3; i++) {
		uint64_t items = (uint64_t)in->grid[i] * in->block[i];

		if (inst->global_offset[i] &&
		    (items > (1ull << 32) ||
		     inst->global_offset[i] > (1ull << 32) - items))
			return rt_err(rt, -EINVAL,
				      "kernel '%s': global offset %llu + %llu "
				      "work-items in dimension %u pass the "
				      "32-bit ids (2^32)", k->sig.name,
				      (unsigned long long)inst->global_offset[i],
				      (unsigned long long)items, i);
		w[i] = (uint32_t)inst->global_offset[i];
	}
	if (dim > 3)
		return rt_err(rt, -EINVAL, "kernel '%s': work_dim %u (0..3)",
			      k->sig.name, dim);
	if (!dim)	/* the highest dimension of more than one item */
		dim = (uint64_t)in->grid[2] * in->block[2] > 1 ? 3 :
		      (uint64_t)in->grid[1] * in->block[1] > 1 ? 2 : 1;
	w[3] = dim;
	/* In the argument block every portion of a split run copies. */
	if (k->ndrange_off >= 0)
		memcpy(in->args + k->ndrange_off, w, sizeof(w));
	return 0;
}

int rt_args_set(struct vmgpu_rt *rt, struct rt_instance *in,
		const struct vmgpu_rt_instance *inst, uint32_t limit)
{
	struct rt_kernel *k = in->kernel;
	uint64_t end = (uint64_t)k->h.shared_bytes + inst->shared_bytes;
	uint32_t i;
	int r;

	if (inst->num_args && !inst->args)
		return rt_err(rt, -EINVAL, "kernel '%s': %u arguments, no array",
			      k->sig.name, inst->num_args);
	if (inst->num_args != k->user_params) {
		if (inst->num_args < k->user_params)
			return rt_err(rt, -EINVAL,
				      "kernel '%s' takes %u arguments, %u given: "
				      "parameter %u '%s' (%s) missing",
				      k->sig.name, k->user_params,
				      inst->num_args, inst->num_args,
				      k->params[inst->num_args].name,
				      k->params[inst->num_args].type == VMGPU_PARAM_LOCAL ?
				      "a local buffer" :
				      given_name(k->params[inst->num_args].type) + 2 +
				      (given_name(k->params[inst->num_args].type)[1] == 'n'));
		return rt_err(rt, -EINVAL,
			      "kernel '%s' takes %u arguments, %u given",
			      k->sig.name, k->user_params, inst->num_args);
	}
	for (i = 0; i < inst->num_args; i++) {
		const struct vmgpu_rt_arg *a = &inst->args[i];
		const struct vmgpu_exec_param *p = &k->params[i];
		bool local = k->params[i].type == VMGPU_PARAM_LOCAL;
		struct rt_buffer *b;
		struct rt_obj *o;

		if (a->type == VMGPU_RT_ARG_LOCAL && local) {
			uint32_t off;

			if (!a->local_bytes)
				return rt_err(rt, -EINVAL,
					      PARAM_FMT ": a local buffer of 0 bytes",
					      PARAM_ARGS(k, i));
			end = (end + VMGPU_RT_LOCAL_ALIGN - 1) &
			      ~(uint64_t)(VMGPU_RT_LOCAL_ALIGN - 1);
			off = (uint32_t)(end < UINT32_MAX ? end : UINT32_MAX);
			end += a->local_bytes;
			if (end > limit)
				return rt_err(rt, -EINVAL,
					      PARAM_FMT ": %u bytes of local memory at %u: "
					      "%llu bytes per block in all, over the limit of "
					      "%u (vmgpu_rt_caps.shared_mem_per_block of the "
					      "queue's devices; %u static)",
					      PARAM_ARGS(k, i), a->local_bytes, off,
					      (unsigned long long)end, limit,
					      k->h.shared_bytes);
			memcpy(in->args + p->offset, &off, 4);
			continue;
		}
		if (local || a->type == VMGPU_RT_ARG_LOCAL)
			return type_err(rt, k, i, a->type);
		if (VMGPU_PARAM_KIND(p->type) == VMGPU_PARAM_BYTES) {
			uint32_t n = vmgpu_param_size(p->type);

			if (VMGPU_PARAM_KIND(a->type) != VMGPU_PARAM_BYTES)
				return type_err(rt, k, i, a->type);
			if (VMGPU_PARAM_BYTES_SIZE(a->type) != n || !a->bytes)
				return rt_err(rt, -EINVAL,
					      PARAM_FMT ": %u bytes by value expected, "
					      "%u given%s", PARAM_ARGS(k, i), n,
					      VMGPU_PARAM_BYTES_SIZE(a->type),
					      a->bytes ? "" : " (no pointer)");
			memcpy(in->args + p->offset, a->bytes, n);
			continue;
		}
		if (!vmgpu_param_is_buffer(p->type)) {
			if (a->type != p->type)
				return type_err(rt, k, i, a->type);
			memcpy(in->args + p->offset, &a->i64,
			       vmgpu_param_size(p->type));
			continue;
		}
		if (!vmgpu_param_is_buffer(a->type) ||
		    !buffer_fits(p->type, a->type))
			return type_err(rt, k, i, a->type);
		if (!a->buf) {
			/* A NULL pointer: nothing to move, no data flow; a
			 * kernel that uses it faults. */
			uint64_t null = 0;

			memcpy(in->args + p->offset, &null, sizeof(null));
			continue;
		}
		r = rt_lookup(rt, a->buf, RT_KIND_BUFFER, &o);
		if (r)
			return rt_err(rt, r, PARAM_FMT ": not a buffer handle (%s)",
				      PARAM_ARGS(k, i),
				      r == -ESTALE ? "released" : "invalid");
		b = (struct rt_buffer *)o;
		if (b->mapped)
			return rt_err(rt, -EBUSY, PARAM_FMT ": the buffer is mapped",
				      PARAM_ARGS(k, i));
		if (a->offset > b->bytes)
			return rt_err(rt, -EINVAL,
				      PARAM_FMT ": offset %llu past the buffer (%llu bytes)",
				      PARAM_ARGS(k, i),
				      (unsigned long long)a->offset,
				      (unsigned long long)b->bytes);
		rt_get(o);
		/*
		 * By the parameter's access, not the buffer's: the kernel
		 * does no more than its signature says (the CPU device maps
		 * a read-only one read-only), so a read-write buffer for a
		 * read-only parameter is a reader to the data flow.
		 */
		in->uses[in->nuses++] = (struct rt_use){
			.buf = b, .offset = a->offset, .param = i,
			.read = p->type != VMGPU_PARAM_BUF_WO,
			.write = p->type != VMGPU_PARAM_BUF_RO,
		};
	}
	if (end > limit)
		return rt_err(rt, -EINVAL,
			      "kernel '%s': %llu bytes of local memory per block "
			      "(%u static, %u shared_bytes), over the limit of %u "
			      "(vmgpu_rt_caps.shared_mem_per_block of the queue's devices)",
			      k->sig.name, (unsigned long long)end,
			      k->h.shared_bytes, inst->shared_bytes, limit);
	in->shared_bytes = (uint32_t)(end - k->h.shared_bytes);
	return ndrange_set(rt, in, inst);
}

int vmgpu_rt_kernel_param_info(struct vmgpu_rt *rt, vmgpu_rt_handle kernel,
			       uint32_t index,
			       struct vmgpu_rt_param_info *info)
{
	const struct vmgpu_exec_param *p;
	struct rt_kernel *k;
	struct rt_obj *o;
	int r;

	if (!rt || !info)
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	r = rt_lookup(rt, kernel, RT_KIND_KERNEL, &o);
	if (r)
		goto out;
	k = (struct rt_kernel *)o;
	if (index >= k->sig.num_params) {
		r = rt_err(rt, -ERANGE, "kernel '%s' has %u parameters, not %u",
			   k->sig.name, k->sig.num_params, index + 1);
		goto out;
	}
	p = &k->params[index];
	memset(info, 0, sizeof(*info));
	memcpy(info->name, p->name, sizeof(info->name));
	info->name[sizeof(info->name) - 1] = 0;
	info->type = p->type;
	if (index >= k->user_params && k->ndrange_off >= 0 &&
	    index < k->user_params + 2) {
		info->kind = VMGPU_RT_PARAM_NDRANGE;
		info->size = vmgpu_param_size(p->type);
	} else if ((int32_t)index == k->printf_param) {
		info->kind = VMGPU_RT_PARAM_PRINTF;
		info->access = VMGPU_RT_MAP_READ | VMGPU_RT_MAP_WRITE;
	} else if (index >= k->user_params) {
		info->kind = VMGPU_RT_PARAM_PRIVATE;
		info->access = VMGPU_RT_MAP_READ | VMGPU_RT_MAP_WRITE;
	} else if (p->type == VMGPU_PARAM_LOCAL) {
		info->kind = VMGPU_RT_PARAM_LOCAL;
		info->type = VMGPU_RT_ARG_LOCAL;
	} else if (vmgpu_param_is_buffer(p->type)) {
		info->kind = VMGPU_RT_PARAM_BUFFER;
		info->access = (p->type != VMGPU_PARAM_BUF_WO ?
				VMGPU_RT_MAP_READ : 0) |
			       (p->type != VMGPU_PARAM_BUF_RO ?
				VMGPU_RT_MAP_WRITE : 0);
	} else {
		info->kind = VMGPU_RT_PARAM_SCALAR;
		info->size = vmgpu_param_size(p->type);
	}
out:
	pthread_mutex_unlock(&rt->lock);
	return r;
}
