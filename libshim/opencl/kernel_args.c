// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: a kernel's arguments as clSetKernelArg left them,
 * copied for a deferred launch (defer.c), which runs a clone of the
 * kernel with the arguments it had when enqueued, and freed with the
 * kernel (kernel.c) or the clone. Below both: they call it, it calls
 * neither.
 */
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

void vcl_kernel_args_free(struct vcl_arg *args, cl_uint n)
{
	cl_uint i;

	for (i = 0; i < n; i++) {
		free(args[i].bytes);
		args[i].bytes = NULL;
	}
}

int vcl_kernel_args_dup(struct vcl_arg *args, cl_uint n)
{
	cl_uint i;

	for (i = 0; i < n; i++) {
		void *b;

		if (!args[i].bytes)
			continue;
		b = malloc(VMGPU_PARAM_BYTES_SIZE(args[i].a.type));
		if (!b) {
			while (i--)
				if (args[i].bytes)
					free(args[i].bytes);
			return -1;
		}
		memcpy(b, args[i].bytes, VMGPU_PARAM_BYTES_SIZE(args[i].a.type));
		args[i].bytes = b;
		args[i].a.bytes = b;
	}
	return 0;
}
