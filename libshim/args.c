// SPDX-License-Identifier: MIT
/*
 * libvmgpu: typed kernel arguments. A kernel assembled with .kernel and
 * .param carries its signature; arguments are then set by index with
 * their type checked, the argument block is built here, and every buffer
 * argument is declared to the command buffer with the access its type
 * says, so implicit synchronisation and buffer lifetime follow.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmgpu.h"
#include "shim_internal.h"

const char *vmgpu_kernel_name(const struct vmgpu_bo *kernel)
{
	return kernel && kernel->sig ? kernel->sig->name : NULL;
}

int vmgpu_kernel_param_count(const struct vmgpu_bo *kernel)
{
	if (!kernel)
		return -EINVAL;
	if (!kernel->sig)
		return shim_set_error(kernel->dev, -ENOENT,
				      "kernel has no signature (.kernel/.param)");
	return (int)kernel->sig->num_params;
}

int vmgpu_kernel_param(const struct vmgpu_bo *kernel, uint32_t index,
		       struct vmgpu_param_info *info)
{
	const struct vmgpu_exec_param *p;
	int n = vmgpu_kernel_param_count(kernel);

	if (n < 0)
		return n;
	if (!info)
		return shim_set_error(kernel->dev, -EINVAL,
				      "kernel_param: info is NULL");
	if (index >= (uint32_t)n)
		return shim_set_error(kernel->dev, -EINVAL,
				      "kernel '%s' has %d parameters, no parameter %u",
				      kernel->sig->name, n, index);
	p = &kernel->sig->params[index];
	info->name = p->name;
	info->type = p->type;
	info->offset = p->offset;
	info->size = vmgpu_param_size(p->type);
	return 0;
}

int vmgpu_args_create(const struct vmgpu_bo *kernel, struct vmgpu_args **out)
{
	struct vmgpu_args *a;
	int n;

	if (!out)
		return kernel ? shim_set_error(kernel->dev, -EINVAL,
					       "args_create: out is NULL") :
				-EINVAL;
	*out = NULL;
	n = vmgpu_kernel_param_count(kernel);
	if (n < 0)
		return n;
	a = calloc(1, sizeof(*a));
	if (!a)
		return shim_set_error(kernel->dev, -ENOMEM, "out of memory");
	a->kernel = kernel;
	*out = a;
	return 0;
}

void vmgpu_args_destroy(struct vmgpu_args *args)
{
	free(args);
}

/* Parameter @index of @a, if it is of a type @ok accepts. */
static const struct vmgpu_exec_param *
param_for(struct vmgpu_args *a, uint32_t index, const char *what,
	  int (*ok)(uint32_t type), int *err)
{
	const struct shim_kernel_sig *ks = a->kernel->sig;
	const struct vmgpu_exec_param *p;

	if (index >= ks->num_params) {
		*err = shim_set_error(a->kernel->dev, -EINVAL,
				      "kernel '%s' has %u parameters: no argument %u",
				      ks->name, ks->num_params, index);
		return NULL;
	}
	p = &ks->params[index];
	if (!ok(p->type)) {
		*err = shim_set_error(a->kernel->dev, -EINVAL,
				      "kernel '%s' argument %u '%s' is %s, not %s",
				      ks->name, index, p->name,
				      vmgpu_param_type_name(p->type), what);
		return NULL;
	}
	return p;
}

/* A __local pointer (VMGPU_PARAM_LOCAL) takes its shared-memory offset. */
static int is_i32(uint32_t t)
{
	return t == VMGPU_PARAM_I32 || t == VMGPU_PARAM_LOCAL;
}

static int is_i64(uint32_t t)
{
	return t == VMGPU_PARAM_I64;
}

static int is_f32(uint32_t t)
{
	return t == VMGPU_PARAM_F32;
}

static int is_buffer(uint32_t t)
{
	return vmgpu_param_is_buffer(t);
}

static void args_mark_set(struct vmgpu_args *a, uint32_t index)
{
	a->set[index / 64] |= 1ull << (index % 64);
}

static int set_scalar(struct vmgpu_args *a, uint32_t index, const char *what,
		      int (*ok)(uint32_t type), const void *v)
{
	const struct vmgpu_exec_param *p;
	int err = -EINVAL;

	if (!a)
		return -EINVAL;
	p = param_for(a, index, what, ok, &err);
	if (!p)
		return err;
	/* Little-endian like the rest of the argument block. */
	memcpy(a->block + p->offset, v, vmgpu_param_size(p->type));
	a->bufs[index] = NULL;
	args_mark_set(a, index);
	return 0;
}

int vmgpu_args_set_i32(struct vmgpu_args *args, uint32_t index, int32_t v)
{
	return set_scalar(args, index, "i32", is_i32, &v);
}

int vmgpu_args_set_i64(struct vmgpu_args *args, uint32_t index, int64_t v)
{
	return set_scalar(args, index, "i64", is_i64, &v);
}

int vmgpu_args_set_f32(struct vmgpu_args *args, uint32_t index, float v)
{
	return set_scalar(args, index, "f32", is_f32, &v);
}

static int is_bytes(uint32_t t)
{
	return VMGPU_PARAM_KIND(t) == VMGPU_PARAM_BYTES;
}

int vmgpu_args_set_bytes(struct vmgpu_args *args, uint32_t index,
			 const void *v, uint32_t size)
{
	const struct vmgpu_exec_param *p;
	int err = -EINVAL;

	if (!args || !v)
		return -EINVAL;
	p = param_for(args, index, "bytes", is_bytes, &err);
	if (!p)
		return err;
	if (size != vmgpu_param_size(p->type))
		return shim_set_error(args->kernel->dev, -EINVAL,
				      "kernel argument %u '%s' takes %u bytes, not %u",
				      index, p->name,
				      vmgpu_param_size(p->type), size);
	return set_scalar(args, index, "bytes", is_bytes, v);
}

int vmgpu_args_set_buffer(struct vmgpu_args *args, uint32_t index,
			  const struct vmgpu_bo *bo, uint64_t offset)
{
	const struct vmgpu_exec_param *p;
	uint64_t va;
	int err = -EINVAL;

	if (!args)
		return -EINVAL;
	p = param_for(args, index, "a buffer", is_buffer, &err);
	if (!p)
		return err;
	if (!bo || bo->dev != args->kernel->dev)
		return shim_set_error(args->kernel->dev, -EINVAL,
				      "kernel '%s' argument %u '%s': %s",
				      args->kernel->sig->name, index, p->name,
				      bo ? "buffer of another device handle" :
					   "no buffer");
	if (offset >= bo->size)
		return shim_set_error(args->kernel->dev, -EINVAL,
				      "kernel '%s' argument %u '%s': offset %llu outside the %llu-byte buffer",
				      args->kernel->sig->name, index, p->name,
				      (unsigned long long)offset,
				      (unsigned long long)bo->size);
	va = bo->gpu_va + offset;
	memcpy(args->block + p->offset, &va, sizeof(va));
	args->bufs[index] = bo;
	args_mark_set(args, index);
	return 0;
}

int shim_args_block(struct vmgpu_cmdbuf *cb, const struct vmgpu_args *a,
		    const struct vmgpu_bo *kernel, const void **block,
		    uint32_t *bytes)
{
	const struct shim_kernel_sig *ks = a->kernel->sig;
	uint32_t i;

	if (a->kernel != kernel)
		return shim_set_error(cb->dev, -EINVAL,
				      "dispatch: arguments made for kernel '%s', not this one",
				      ks->name);
	for (i = 0; i < ks->num_params; i++)
		if (!(a->set[i / 64] & 1ull << (i % 64)))
			return shim_set_error(cb->dev, -EINVAL,
					      "dispatch: kernel '%s' argument %u '%s' (%s) not set",
					      ks->name, i, ks->params[i].name,
					      vmgpu_param_type_name(ks->params[i].type));
	*block = a->block;
	*bytes = ks->args_bytes;
	return 0;
}

uint32_t shim_args_buffers(const struct vmgpu_args *a,
			   const struct vmgpu_bo **bos, uint32_t *use)
{
	const struct shim_kernel_sig *ks = a->kernel->sig;
	uint32_t i, n = 0;

	for (i = 0; i < ks->num_params; i++) {
		if (!a->bufs[i])
			continue;
		bos[n] = a->bufs[i];
		use[n++] = ks->params[i].type == VMGPU_PARAM_BUF_RO ?
			   VMGPU_USE_READ : 0;
	}
	return n;
}
