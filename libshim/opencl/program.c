// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: programs from OpenCL C source, built by the compiler
 * in-process (libshim/compiler, vmgpu_program_build) for the ISA version
 * of the newest device; the runtime loads the executables on each device
 * of the context when a kernel is made. Build options are checked and
 * translated first (options.c); programs from binaries build from
 * their executables (binary.c); clCompileProgram and clLinkProgram are in
 * program_link.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"
#include "vmgpu/compiler.h"

void vcl_program_free(struct _cl_program *pr)
{
	struct _cl_context *c = pr->ctx;

	vmgpu_program_destroy(pr->prog);
	vmgpu_kernlib_destroy(pr->lib);
	free(pr->object);
	free(pr->cc_options);
	free(pr->bc);
	free(pr->bin);
	free(pr->source);
	free(pr->log);
	free(pr->options);
	pthread_mutex_destroy(&pr->lock);
	free(pr);
	vcl_context_put(c);
}

void vcl_program_put(struct _cl_program *pr)
{
	if (vcl_obj_release(pr->ctx->platform, pr, VCL_PROGRAM) == 1)
		vcl_program_free(pr);
}

cl_program vcl_clCreateProgramWithSource(cl_context context, cl_uint count,
					 const char **strings,
					 const size_t *lengths,
					 cl_int *errcode_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	struct _cl_program *pr;
	size_t total = 0, n, at = 0;
	cl_int err;
	cl_uint i;

	if (!vcl_obj_get(p, context, VCL_CONTEXT, true)) {
		err = CL_INVALID_CONTEXT;
		goto fail;
	}
	err = CL_INVALID_VALUE;
	if (!count || !strings)
		goto fail_ctx;
	for (i = 0; i < count; i++) {
		if (!strings[i])
			goto fail_ctx;
		total += lengths && lengths[i] ? lengths[i] :
						 strlen(strings[i]);
	}
	err = CL_OUT_OF_HOST_MEMORY;
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		goto fail_ctx;
	pr->source = malloc(total + 1);
	if (!pr->source) {
		free(pr);
		goto fail_ctx;
	}
	for (i = 0; i < count; i++) {
		n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
		memcpy(pr->source + at, strings[i], n);
		at += n;
	}
	pr->source[at] = 0;
	pr->dispatch = &vcl_dispatch;
	pr->o.kind = VCL_PROGRAM;
	pr->o.refs = 1;
	pr->ctx = context;
	pr->status = CL_BUILD_NONE;
	pthread_mutex_init(&pr->lock, NULL);
	if (vcl_obj_add(p, pr)) {
		vcl_program_free(pr);
		goto fail;
	}
	if (errcode_ret)
		*errcode_ret = CL_SUCCESS;
	return pr;
fail_ctx:
	vcl_context_put(context);
fail:
	if (errcode_ret)
		*errcode_ret = err;
	return NULL;
}

cl_int vcl_clRetainProgram(cl_program program)
{
	return vcl_obj_get(vcl_platform(NULL), program, VCL_PROGRAM, true) ?
	       CL_SUCCESS : CL_INVALID_PROGRAM;
}

cl_int vcl_clReleaseProgram(cl_program program)
{
	switch (vcl_obj_release(vcl_platform(NULL), program, VCL_PROGRAM)) {
	case 1:
		vcl_program_free(program);
		return CL_SUCCESS;
	case 0:
		return CL_SUCCESS;
	default:
		return CL_INVALID_PROGRAM;
	}
}

cl_int vcl_clBuildProgram(cl_program program, cl_uint num_devices,
			  const cl_device_id *device_list, const char *options,
			  void (CL_CALLBACK *pfn_notify)(cl_program, void *),
			  void *user_data)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	struct vmgpu_program *prog = NULL;
	char *log = NULL, *opts, *cc = NULL, *all = NULL;
	cl_int err = CL_SUCCESS;
	bool arg_info = false, stale;
	cl_uint i;
	int r;

	if (!vcl_obj_get(p, program, VCL_PROGRAM, true))
		return CL_INVALID_PROGRAM;
	if ((!device_list && num_devices) || (device_list && !num_devices) ||
	    (!pfn_notify && user_data)) {
		err = CL_INVALID_VALUE;
		goto out;
	}
	for (i = 0; i < num_devices; i++)
		if (!vcl_context_has_device(program->ctx, device_list[i])) {
			err = CL_INVALID_DEVICE;
			goto out;
		}
	err = vcl_build_options(options, VCL_OPTS_BUILD, &cc, &arg_info, NULL);
	if (err)
		goto out;
	opts = strdup(options ? options : "");
	if (!opts) {
		free(cc);
		err = CL_OUT_OF_HOST_MEMORY;
		goto out;
	}
	pthread_mutex_lock(&program->lock);
	/* clLinkProgram's programs are built already (1.2, 5.6.2). */
	if (program->nkernels || (!program->source && !program->from_binary)) {
		pthread_mutex_unlock(&program->lock);
		free(opts);
		free(cc);
		err = CL_INVALID_OPERATION;
		goto out;
	}
	/*
	 * A binary with executables: those (vmgpu_kernlib_build, no compile
	 * when they are of the ISA version); a compiled object or library
	 * from a binary: its text with its compile options, then these.
	 */
	/*
	 * A binary's executables of another compiler (an older ICD's, in a
	 * program cache: built before VMGPU_NDRANGE_OPTION they would ignore
	 * global offsets, before VMGPU_PARAM_LOCAL they type a __local
	 * pointer as an i32): their text is built again, with this one.
	 */
	stale = program->lib && program->object &&
		(program->stale || !(program->cc_options &&
				     strstr(program->cc_options,
					    VMGPU_NDRANGE_OPTION)));
	if (program->lib && program->btype == CL_PROGRAM_BINARY_TYPE_EXECUTABLE &&
	    !stale) {
		r = vcl_program_build_lib(program, cc, &prog, &log);
		if (!r)
			arg_info = program->arg_info;
	} else if (program->source) {
		r = vmgpu_program_build(program->source, cc, &prog, &log);
	} else if (asprintf(&all, "%s %s", program->cc_options ?
			    program->cc_options : "", cc) < 0) {
		r = -ENOMEM;
	} else {
		r = vmgpu_program_build(program->object, all, &prog, &log);
		if (!r && stale) {	/* what its binary says now */
			arg_info = program->arg_info;
			free(program->cc_options);
			program->cc_options = all;
			all = NULL;
		}
		free(all);
	}
	if (!r && program->source && !program->lib) {	/* the binary's */
		free(program->cc_options);
		program->cc_options = cc;
		cc = NULL;
		free(program->object);
		program->object = NULL;
	}
	free(cc);
	vmgpu_program_destroy(program->prog);
	free(program->log);
	free(program->options);
	free(program->bin);
	program->bin = NULL;
	program->prog = r ? NULL : prog;
	program->log = log;
	program->options = opts;
	program->status = r ? CL_BUILD_ERROR : CL_BUILD_SUCCESS;
	if (!r) {
		program->btype = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
		program->arg_info = arg_info;
	}
	pthread_mutex_unlock(&program->lock);
	if (r)	/* -ENOEXEC: a binary with nothing for the devices */
		err = r == -ENOEXEC ? CL_INVALID_BINARY :
		      r == -ENOMEM ? CL_OUT_OF_HOST_MEMORY :
				     CL_BUILD_PROGRAM_FAILURE;
	if (pfn_notify)
		pfn_notify(program, user_data);
out:
	vcl_program_put(program);
	return err;
}

cl_int vcl_clGetProgramInfo(cl_program program, cl_program_info param_name,
			    size_t param_value_size, void *param_value,
			    size_t *param_value_size_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_uint u;
	size_t sz, n;
	char *names = NULL;
	cl_int err;
	int i, k;

	if (!vcl_obj_get(p, program, VCL_PROGRAM, true))
		return CL_INVALID_PROGRAM;
	pthread_mutex_lock(&program->lock);
	switch (param_name) {
	case CL_PROGRAM_REFERENCE_COUNT:
		pthread_mutex_lock(&p->lock);
		u = program->o.refs - 1;
		pthread_mutex_unlock(&p->lock);
		err = vcl_info(&u, sizeof(u), param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_PROGRAM_CONTEXT:
		err = vcl_info(&program->ctx, sizeof(cl_context),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_PROGRAM_NUM_DEVICES:
		err = vcl_info(&program->ctx->ndevices, sizeof(cl_uint),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_PROGRAM_DEVICES:
		err = vcl_info(program->ctx->devices,
			       program->ctx->ndevices * sizeof(cl_device_id),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_PROGRAM_SOURCE:
		err = vcl_info_str(program->source ? program->source : "",
				   param_value_size,
				   param_value, param_value_size_ret);
		break;
	case CL_PROGRAM_NUM_KERNELS:
	case CL_PROGRAM_KERNEL_NAMES:
		if (!program->prog) {
			err = CL_INVALID_PROGRAM_EXECUTABLE;
			break;
		}
		k = vmgpu_program_kernel_count(program->prog);
		if (param_name == CL_PROGRAM_NUM_KERNELS) {
			sz = (size_t)k;
			err = vcl_info(&sz, sizeof(sz), param_value_size,
				       param_value, param_value_size_ret);
			break;
		}
		for (n = 1, i = 0; i < k; i++)
			n += strlen(vmgpu_program_kernel_name(program->prog,
							      (uint32_t)i)) + 1;
		names = calloc(1, n);
		if (!names) {
			err = CL_OUT_OF_HOST_MEMORY;
			break;
		}
		for (i = 0; i < k; i++) {
			if (i)
				strcat(names, ";");
			strcat(names, vmgpu_program_kernel_name(program->prog,
								(uint32_t)i));
		}
		err = vcl_info_str(names, param_value_size, param_value,
				   param_value_size_ret);
		free(names);
		break;
	case CL_PROGRAM_BINARY_SIZES:
	case CL_PROGRAM_BINARIES:
		/* The same binary for every device (binary.c) */
		err = vcl_program_binary(program);
		if (err)
			break;
		n = program->ctx->ndevices;
		if (param_name == CL_PROGRAM_BINARY_SIZES) {
			size_t *sizes = calloc(n ? n : 1, sizeof(size_t));

			if (!sizes) {
				err = CL_OUT_OF_HOST_MEMORY;
				break;
			}
			for (i = 0; i < (int)n; i++)
				sizes[i] = program->bin_bytes;
			err = vcl_info(sizes, n * sizeof(size_t),
				       param_value_size, param_value,
				       param_value_size_ret);
			free(sizes);
			break;
		}
		if (param_value && param_value_size < n * sizeof(char *)) {
			err = CL_INVALID_VALUE;
			break;
		}
		for (i = 0; param_value && i < (int)n; i++)
			if (((unsigned char **)param_value)[i] &&
			    program->bin_bytes)
				memcpy(((unsigned char **)param_value)[i],
				       program->bin, program->bin_bytes);
		if (param_value_size_ret)
			*param_value_size_ret = n * sizeof(char *);
		err = CL_SUCCESS;
		break;
	default:
		err = CL_INVALID_VALUE;
	}
	pthread_mutex_unlock(&program->lock);
	vcl_program_put(program);
	return err;
}

cl_int vcl_clGetProgramBuildInfo(cl_program program, cl_device_id device,
				 cl_program_build_info param_name,
				 size_t param_value_size, void *param_value,
				 size_t *param_value_size_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	cl_program_binary_type bt;
	cl_int err;

	if (!vcl_obj_get(p, program, VCL_PROGRAM, true))
		return CL_INVALID_PROGRAM;
	if (!vcl_context_has_device(program->ctx, device)) {
		vcl_program_put(program);
		return CL_INVALID_DEVICE;
	}
	pthread_mutex_lock(&program->lock);
	switch (param_name) {
	case CL_PROGRAM_BUILD_STATUS:
		err = vcl_info(&program->status, sizeof(cl_build_status),
			       param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_PROGRAM_BUILD_OPTIONS:
		err = vcl_info_str(program->options ? program->options : "",
				   param_value_size, param_value,
				   param_value_size_ret);
		break;
	case CL_PROGRAM_BUILD_LOG:
		err = vcl_info_str(program->log ? program->log : "",
				   param_value_size, param_value,
				   param_value_size_ret);
		break;
	case CL_PROGRAM_BINARY_TYPE:
		bt = program->btype;
		err = vcl_info(&bt, sizeof(bt), param_value_size, param_value,
			       param_value_size_ret);
		break;
	default:
		err = CL_INVALID_VALUE;
	}
	pthread_mutex_unlock(&program->lock);
	vcl_program_put(program);
	return err;
}

/*
 * The compiler is part of the library, with no state between builds
 * (compiler.rst): there is nothing to unload, and later builds work.
 */
cl_int vcl_clUnloadPlatformCompiler(cl_platform_id platform)
{
	struct _cl_platform_id *p = vcl_platform(NULL);

	return p && platform == p ? CL_SUCCESS : CL_INVALID_PLATFORM;
}

cl_int vcl_clUnloadCompiler(void)
{
	return CL_SUCCESS;
}
