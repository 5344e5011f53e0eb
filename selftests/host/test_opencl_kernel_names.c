// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OpenCL platform's kernels of names longer than an executable's
 * signature holds (31 characters; compiler.rst), as the CTS's
 * conversions and vectors suites name them: built from source, the
 * kernel is created, named and run by its whole name; from the
 * program's binary (its executables used as they are) it is created and
 * run by its whole name too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testcl.h"

#define LONG_NAME	"test_convert_ushort16_sat_rte_float16"

static const char src[] =
	"kernel void " LONG_NAME "(global int *out)\n"
	"{\n"
	"	out[get_global_id(0)] = 37 + get_global_id(0);\n"
	"}\n"
	"kernel void test_convert_ushort16_sat_rtz_float16(global int *out)\n"
	"{\n"
	"	out[get_global_id(0)] = 1000;\n"
	"}\n";

/* Create LONG_NAME of @p by its whole name and run it on 16 items. */
static void run_long(struct __test_metadata *_metadata, struct env *e,
		     cl_program p)
{
	int out[16], i;
	size_t global = 16;
	char name[64] = "";
	cl_kernel k;
	cl_mem o;
	cl_int err;

	k = clCreateKernel(p, LONG_NAME, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME,
					      sizeof(name), name, NULL));
	EXPECT_EQ(0, strcmp(LONG_NAME, name));
	o = clCreateBuffer(e->c, 0, sizeof(out), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(o), &o));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(e->q, k, 1, NULL, &global,
						     NULL, 0, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e->q, o, CL_TRUE, 0,
						  sizeof(out), out, 0, NULL,
						  NULL));
	for (i = 0; i < 16; i++)
		EXPECT_EQ(37 + i, out[i]);
	clReleaseMemObject(o);
	clReleaseKernel(k);
}

TEST(long_kernel_names)
{
	const char *s = src;
	const unsigned char *bp;
	unsigned char *b;
	char names[256] = "";
	struct env e;
	cl_program p, q;
	cl_int err, st = 99;
	size_t n = 0;

	env_open(_metadata, &e, 0);
	p = clCreateProgramWithSource(e.c, 1, &s, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clBuildProgram(p, 1, &e.d, NULL, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES,
					       sizeof(names), names, NULL));
	EXPECT_EQ(0, strcmp(LONG_NAME ";test_convert_ushort16_sat_rtz_float16",
			    names)) TH_LOG("names: %s", names);
	run_long(_metadata, &e, p);

	/* the binary's executables, used as they are */
	ASSERT_EQ(CL_SUCCESS, clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES,
					       sizeof(n), &n, NULL));
	b = malloc(n);
	ASSERT_NE(NULL, b);
	ASSERT_EQ(CL_SUCCESS, clGetProgramInfo(p, CL_PROGRAM_BINARIES,
					       sizeof(b), &b, NULL));
	bp = b;
	q = clCreateProgramWithBinary(e.c, 1, &e.d, &n, &bp, &st, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clBuildProgram(q, 1, &e.d, NULL, NULL, NULL));
	run_long(_metadata, &e, q);
	clReleaseProgram(q);
	clReleaseProgram(p);
	free(b);
	env_close(&e);
}

TEST_HARNESS_MAIN
