// SPDX-License-Identifier: MIT
/*
 * libvmgpurt kernels from the OpenCL C compiler's programs and kernel
 * libraries (SPEC P3, P4): online compilation for each ISA version among
 * a context's devices, through the kernel library's rules (as is,
 * compiled and cached, older executable, else an error).
 * Its own file: a program that does not call it does not link clang and
 * LLVM (libvmgpu.a's compiler objects) through the runtime.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"
#include "vmgpu/compiler.h"

int vmgpu_rt_kernel_from_program(struct vmgpu_rt *rt, vmgpu_rt_handle ctx,
				 const struct vmgpu_program *prog,
				 const char *name, vmgpu_rt_handle *kernel)
{
	const void *image;
	size_t bytes;
	int priv, r;

	if (!rt || !prog || !name || !kernel)
		return -EINVAL;
	r = vmgpu_program_kernel_image(prog, name, &image, &bytes);
	if (r) {
		pthread_mutex_lock(&rt->lock);
		rt_err(rt, r, "program has no kernel %s", name);
		pthread_mutex_unlock(&rt->lock);
		return r;
	}
	priv = vmgpu_program_kernel_private_bytes(prog, name);
	if (priv < 0)
		return priv;
	return vmgpu_rt_kernel_create(rt, ctx, image, bytes, (uint32_t)priv,
				      kernel);
}

int vmgpu_rt_kernel_from_library(struct vmgpu_rt *rt, vmgpu_rt_handle ctx,
				 struct vmgpu_compiler *cc,
				 struct vmgpu_kernlib *lib, const char *name,
				 const char *options, vmgpu_rt_handle *kernel,
				 char **log)
{
	bool want[VMGPU_ISA_VERSION + 1] = { false };
	struct rt_kernel *k = NULL;
	uint32_t i, v, built = 0, priv = 0;
	size_t loglen = 0;
	struct rt_obj *o;
	char *all = NULL;
	int r, first_err = -ENOEXEC;

	if (!rt || !cc || !lib || !name || !kernel)
		return -EINVAL;
	*kernel = 0;
	if (log)
		*log = NULL;
	/* The ISA versions of the context's devices. */
	pthread_mutex_lock(&rt->lock);
	r = rt_lookup(rt, ctx, RT_KIND_CONTEXT, &o);
	if (!r) {
		const struct rt_context *c = (const struct rt_context *)o;
		const struct rt_logical *l = &rt->logical[c->device];

		for (i = 0; i < l->count; i++)
			want[rt->phys[l->phys[i]].caps.isa_version] = true;
		if (c->flags & VMGPU_RT_CTX_CPU_FALLBACK)
			want[rt->phys[rt->cpu].caps.isa_version] = true;
	}
	pthread_mutex_unlock(&rt->lock);
	if (r)
		return r;
	/* Built outside the lock (compiling takes time), newest first. */
	for (v = VMGPU_ISA_VERSION; v >= VMGPU_ISA_VERSION_MIN; v--) {
		struct vmgpu_program *prog = NULL;
		const void *image;
		size_t bytes;
		char *one = NULL;
		int p;

		if (!want[v])
			continue;
		r = vmgpu_kernlib_build(cc, lib, v, options, &prog, &one);
		if (one) {
			size_t n = strlen(one);
			char *m = realloc(all, loglen + n + 1);

			if (m) {
				memcpy(m + loglen, one, n + 1);
				all = m;
				loglen += n;
			}
			free(one);
		}
		if (!r)
			r = vmgpu_program_kernel_image(prog, name, &image,
						       &bytes);
		if (r) {
			if (first_err == -ENOEXEC)
				first_err = r;	/* the first version's reason */
			vmgpu_program_destroy(prog);
			continue;
		}
		p = vmgpu_program_kernel_private_bytes(prog, name);
		if (p > (int)priv)
			priv = (uint32_t)p;
		pthread_mutex_lock(&rt->lock);
		r = k ? rt_kernel_add_exec(rt, k, image, bytes) :
			rt_kernel_new(rt, image, bytes, (uint32_t)p, &k);
		pthread_mutex_unlock(&rt->lock);
		vmgpu_program_destroy(prog);
		if (r)
			goto fail;
		built++;
	}
	pthread_mutex_lock(&rt->lock);
	if (!built) {
		r = rt_err(rt, first_err,
			   "kernel %s: no executable for any device of the context",
			   name);
	} else {
		k->private_bytes = priv;
		/* The context may have gone while compiling. */
		r = rt_lookup(rt, ctx, RT_KIND_CONTEXT, &o);
		if (!r)
			r = rt_handle_new(rt, &k->o, kernel);
		if (!r)
			k = NULL;
	}
	pthread_mutex_unlock(&rt->lock);
fail:
	if (k) {
		pthread_mutex_lock(&rt->lock);
		rt_kernel_free(rt, k);
		pthread_mutex_unlock(&rt->lock);
	}
	if (log)
		*log = all;
	else
		free(all);
	return r;
}
