// SPDX-License-Identifier: GPL-2.0-only
/*
 * Vectors and structs passed by value to OpenCL C kernels through the
 * ICD loader: a float4, an int3 (the size of an int4), a uchar2 and a
 * struct set with clSetKernelArg and read by the kernel; wrong sizes
 * refused; the argument's type name; the value the kernel had when
 * enqueued, behind a user event (Documentation/opencl.rst).
 */
#include <string.h>

#include "testcl.h"

static const char *vec_src =
	"typedef struct { int a; float b; short c[3]; char d; } S;\n"
	"__kernel void vec(__global float *out, float4 f, int3 i, S s,\n"
	"                  uchar2 u, int idx)\n"
	"{\n"
	"	out[0] = f.x; out[1] = f.y; out[2] = f.z; out[3] = f.w;\n"
	"	out[4] = i.x; out[5] = i.y; out[6] = i.z;\n"
	"	out[7] = s.a; out[8] = s.b; out[9] = s.c[idx];\n"
	"	out[10] = s.d; out[11] = u.x; out[12] = u.y;\n"
	"	float4 g = f.wzyx * 2.0f + convert_float4(i.xyzz);\n"
	"	vstore4(g, 0, out + 13);\n"
	"}\n";

typedef struct {
	cl_int a;
	cl_float b;
	cl_short c[3];
	cl_char d;
} S;

TEST(vector_and_struct_arguments)
{
	struct env e;
	cl_program prog;
	cl_kernel k;
	cl_mem buf;
	cl_int err, idx = 2;
	cl_float4 f = { { 1.5f, -2.0f, 3.25f, 8.0f } };
	cl_int3 i = { { 7, -9, 100000, 0 } };
	cl_uchar2 u = { { 200, 3 } };
	S s = { -4, 0.5f, { 11, 12, -13 }, 'x' };
	float out[17], want[17] = {
		1.5f, -2.0f, 3.25f, 8.0f, 7, -9, 100000, -4, 0.5f, -13, 'x',
		200, 3, 16.0f + 7, 6.5f - 9, -4.0f + 100000, 3.0f + 100000,
	};
	char name[64] = "";
	cl_kernel_arg_address_qualifier aq = 0;
	size_t g = 1;
	int n;

	env_open(_metadata, &e, 0);
	k = build_kernel(_metadata, &e, vec_src, "vec", &prog);
	buf = clCreateBuffer(e.c, CL_MEM_READ_WRITE, sizeof(out), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(buf), &buf));
	/* exactly the type's size: a 3-component vector has the size of 4 */
	EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 1, 8, &f));
	EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 2, 12, &i));
	EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 3, sizeof(s) + 4, &s));
	EXPECT_EQ(CL_INVALID_ARG_VALUE, clSetKernelArg(k, 1, sizeof(f), NULL));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(f), &f));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof(i), &i));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 3, sizeof(s), &s));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 4, sizeof(u), &u));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 5, sizeof(idx), &idx));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(e.q, k, 1, NULL, &g, NULL,
						     0, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, buf, CL_TRUE, 0,
						  sizeof(out), out, 0, NULL,
						  NULL));
	for (n = 0; n < 17; n++) {
		EXPECT_EQ(want[n], out[n]) TH_LOG("out[%d]", n);
	}

	/* the type names, with -cl-kernel-arg-info */
	clReleaseKernel(k);
	clReleaseProgram(prog);
	prog = clCreateProgramWithSource(e.c, 1, &vec_src, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clBuildProgram(prog, 1, &e.d, "-cl-kernel-arg-info",
					     NULL, NULL));
	k = clCreateKernel(prog, "vec", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_TYPE_NAME,
						 sizeof(name), name, NULL));
	EXPECT_STREQ("float4", name);
	ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(k, 2, CL_KERNEL_ARG_TYPE_NAME,
						 sizeof(name), name, NULL));
	EXPECT_STREQ("int3", name);
	ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(k, 1,
						 CL_KERNEL_ARG_ADDRESS_QUALIFIER,
						 sizeof(aq), &aq, NULL));
	EXPECT_EQ(CL_KERNEL_ARG_ADDRESS_PRIVATE, aq);

	clReleaseMemObject(buf);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	env_close(&e);
}

/* A launch behind a user event keeps the vector it was enqueued with. */
TEST(vector_argument_as_enqueued)
{
	static const char *src =
		"__kernel void put(__global float4 *o, float4 v)\n"
		"{ o[get_global_id(0)] = v; }\n";
	struct env e;
	cl_program prog;
	cl_kernel k;
	cl_event gate;
	cl_mem buf;
	cl_int err;
	cl_float4 v = { { 1, 2, 3, 4 } }, w = { { 9, 9, 9, 9 } }, out[4];
	size_t g = 4;
	int n, c;

	env_open(_metadata, &e, 0);
	k = build_kernel(_metadata, &e, src, "put", &prog);
	buf = clCreateBuffer(e.c, CL_MEM_READ_WRITE, sizeof(out), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	gate = clCreateUserEvent(e.c, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(buf), &buf));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(v), &v));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(e.q, k, 1, NULL, &g, NULL,
						     1, &gate, NULL));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(w), &w));
	ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(gate, CL_COMPLETE));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, buf, CL_TRUE, 0,
						  sizeof(out), out, 0, NULL,
						  NULL));
	for (n = 0; n < 4; n++)
		for (c = 0; c < 4; c++)
			EXPECT_EQ(c + 1, out[n].s[c]);
	clReleaseEvent(gate);
	clReleaseMemObject(buf);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	env_close(&e);
}

TEST_HARNESS_MAIN
