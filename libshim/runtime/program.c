// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libvmgpurt kernels from the OpenCL C compiler's programs (SPEC P3, P4).
 * Its own file: a program that does not call it does not link clang and
 * LLVM (libvmgpu.a's compiler objects) through the runtime.
 */
#include <errno.h>

#include "rt_internal.h"

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
