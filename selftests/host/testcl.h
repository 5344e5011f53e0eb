/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the OpenCL platform's host tests (test_opencl*.c) share: the
 * build's ICD found through OCL_ICD_VENDORS, the platform, a context and
 * queue on the default device, a kernel built from source. Header only:
 * each of those tests links nothing but itself and the ICD loader.
 */
#ifndef VMGPU_TESTCL_H
#define VMGPU_TESTCL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include "kselftest_harness.h"

/* build/host-tests/test_opencl -> build/opencl/vendors */
static inline void use_build_icd(void)
{
	char exe[PATH_MAX], dir[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		abort();
	exe[n] = 0;
	snprintf(dir, sizeof(dir), "%s/../opencl/vendors", dirname(exe));
	setenv("OCL_ICD_VENDORS", dir, 1);
}

static inline cl_platform_id the_platform(struct __test_metadata *_metadata)
{
	cl_platform_id p = NULL;
	cl_uint n = 0;

	use_build_icd();
	ASSERT_EQ(CL_SUCCESS, clGetPlatformIDs(1, &p, &n));
	ASSERT_EQ(1, n);
	return p;
}

/* A context and a queue (of the given properties) on the default device. */
struct env {
	cl_platform_id p;
	cl_device_id d;
	cl_context c;
	cl_command_queue q;
};

static inline void env_open(struct __test_metadata *_metadata, struct env *e,
		     cl_command_queue_properties props)
{
	cl_int err;

	e->p = the_platform(_metadata);
	ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(e->p, CL_DEVICE_TYPE_DEFAULT, 1,
					     &e->d, NULL));
	e->c = clCreateContext(NULL, 1, &e->d, NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	e->q = clCreateCommandQueue(e->c, e->d, props, &err);
	ASSERT_EQ(CL_SUCCESS, err);
}

static inline void env_close(struct env *e)
{
	clReleaseCommandQueue(e->q);
	clReleaseContext(e->c);
}

static inline cl_kernel build_kernel(struct __test_metadata *_metadata,
			      struct env *e, const char *src, const char *name,
			      cl_program *prog)
{
	char log[4096] = "";
	cl_kernel k;
	cl_int err;

	*prog = clCreateProgramWithSource(e->c, 1, &src, NULL, &err);
	EXPECT_EQ(CL_SUCCESS, err);
	err = clBuildProgram(*prog, 1, &e->d, NULL, NULL, NULL);
	clGetProgramBuildInfo(*prog, e->d, CL_PROGRAM_BUILD_LOG, sizeof(log),
			      log, NULL);
	EXPECT_EQ(CL_SUCCESS, err) TH_LOG("log: %s", log);
	k = clCreateKernel(*prog, name, &err);
	EXPECT_EQ(CL_SUCCESS, err);
	return k;
}

#endif /* VMGPU_TESTCL_H */
