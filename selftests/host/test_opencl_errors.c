// SPDX-License-Identifier: GPL-2.0-only
/*
 * The error cases of the OpenCL 1.2 calls the platform implements,
 * through the ICD loader as programs make them, object by object: a
 * handle that names no object, a released one, sizes too small or out of
 * range, unknown or conflicting flags, a failing build and its log;
 * image and sampler calls as 1.2 answers them for devices without
 * images. Kernels, commands, events and several threads at once are in
 * test_opencl_errors_enqueue.c; the handles both make, in testclerr.h.
 */
#include <stdio.h>
#include <string.h>

#include "testclerr.h"

static const char *add_src =
	"__kernel void add(__global int *a, int v)\n"
	"{ a[get_global_id(0)] += v; }\n"
	"__kernel void one(__global int *a)\n"
	"{ a[0] = 1; }\n";

static void CL_CALLBACK on_mem(cl_mem m, void *user)
{
}

static void CL_CALLBACK on_program(cl_program p, void *user)
{
}

static void CL_CALLBACK on_context(const char *msg, const void *info,
				   size_t n, void *user)
{
}

TEST(platform_and_device)
{
	struct env e;
	struct fake f;
	const cl_icd_dispatch *t;
	cl_platform_id fp;
	cl_device_id fd, d[16], sub[4];
	cl_device_partition_property eq[] = { CL_DEVICE_PARTITION_EQUALLY, 1,
					      0 };
	cl_device_partition_property bogus[] = { 0x7777, 0 };
	cl_uint n = 0;
	char s[256];
	size_t sz;

	env_open(_metadata, &e, 0);
	t = icd(e.p);
	/* Platforms: the counts, sizes and names. */
	EXPECT_EQ(CL_INVALID_VALUE, t->clGetPlatformIDs(0, &e.p, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, t->clGetPlatformIDs(1, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, t->clGetPlatformIDs(0, NULL, NULL));
	EXPECT_EQ(CL_SUCCESS, t->clGetPlatformIDs(0, NULL, &n));
	EXPECT_EQ(1, n);
	fp = foreign(&f, e.p);
	EXPECT_EQ(CL_INVALID_PLATFORM,
		  clGetPlatformInfo(fp, CL_PLATFORM_NAME, sizeof(s), s, NULL));
	EXPECT_EQ(CL_INVALID_PLATFORM,
		  clGetPlatformInfo((cl_platform_id)e.d, CL_PLATFORM_NAME,
				    sizeof(s), s, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetPlatformInfo(e.p, CL_PLATFORM_NAME, 1, s, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetPlatformInfo(e.p, 0x7777, sizeof(s), s, NULL));
	EXPECT_EQ(CL_SUCCESS,
		  clGetPlatformInfo(e.p, CL_PLATFORM_NAME, 0, NULL, &sz));
	EXPECT_LT(1, sz);
	/* Devices. */
	EXPECT_EQ(CL_INVALID_PLATFORM,
		  clGetDeviceIDs(fp, CL_DEVICE_TYPE_ALL, 16, d, &n));
	EXPECT_EQ(CL_INVALID_DEVICE_TYPE, clGetDeviceIDs(e.p, 0, 16, d, &n));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetDeviceIDs(e.p, CL_DEVICE_TYPE_ALL, 0, d, &n));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetDeviceIDs(e.p, CL_DEVICE_TYPE_ALL, 16, NULL, NULL));
	EXPECT_EQ(CL_DEVICE_NOT_FOUND,
		  clGetDeviceIDs(e.p, CL_DEVICE_TYPE_ACCELERATOR, 16, d, &n));
	fd = foreign(&f, e.d);
	EXPECT_EQ(CL_INVALID_DEVICE,
		  clGetDeviceInfo(fd, CL_DEVICE_NAME, sizeof(s), s, NULL));
	EXPECT_EQ(CL_INVALID_DEVICE,
		  t->clGetDeviceInfo(NULL, CL_DEVICE_NAME, sizeof(s), s, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetDeviceInfo(e.d, CL_DEVICE_NAME, 1, s, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetDeviceInfo(e.d, CL_DEVICE_MAX_COMPUTE_UNITS, 2, s,
				  NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clGetDeviceInfo(e.d, 0x7777, sizeof(s), s,
						    NULL));
	/* A root device's references: nothing to count, but checked. */
	EXPECT_EQ(CL_SUCCESS, clRetainDevice(e.d));
	EXPECT_EQ(CL_SUCCESS, clReleaseDevice(e.d));
	EXPECT_EQ(CL_INVALID_DEVICE, clRetainDevice(fd));
	EXPECT_EQ(CL_INVALID_DEVICE, clReleaseDevice(fd));
	EXPECT_EQ(CL_INVALID_DEVICE, t->clRetainDevice(NULL));
	EXPECT_EQ(CL_INVALID_DEVICE, t->clReleaseDevice(NULL));
	EXPECT_EQ(CL_INVALID_DEVICE, clRetainDevice((cl_device_id)e.c));
	/* No partition is supported (CL_DEVICE_PARTITION_PROPERTIES). */
	EXPECT_EQ(CL_INVALID_DEVICE, clCreateSubDevices(fd, eq, 4, sub, &n));
	EXPECT_EQ(CL_INVALID_DEVICE,
		  t->clCreateSubDevices(NULL, eq, 4, sub, &n));
	EXPECT_EQ(CL_INVALID_VALUE, clCreateSubDevices(e.d, eq, 4, sub, &n));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clCreateSubDevices(e.d, bogus, 4, sub, &n));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clCreateSubDevices(e.d, NULL, 4, sub, &n));
	/* Extensions: none by those names; the compiler stays loaded. */
	EXPECT_EQ(NULL, clGetExtensionFunctionAddressForPlatform(
				e.p, "clNoSuchFunctionVMGPU"));
	EXPECT_EQ(NULL, t->clGetExtensionFunctionAddressForPlatform(
				fp, "clIcdGetPlatformIDsKHR"));
	EXPECT_EQ(NULL, t->clGetExtensionFunctionAddressForPlatform(e.p,
								    NULL));
	EXPECT_EQ(NULL, t->clGetExtensionFunctionAddress("clNoSuchFunction"));
	EXPECT_EQ(NULL, t->clGetExtensionFunctionAddress(NULL));
	EXPECT_EQ(CL_SUCCESS, clUnloadCompiler());
	EXPECT_EQ(CL_SUCCESS, clUnloadPlatformCompiler(e.p));
	EXPECT_EQ(CL_INVALID_PLATFORM, clUnloadPlatformCompiler(fp));
	EXPECT_EQ(CL_INVALID_PLATFORM, t->clUnloadPlatformCompiler(NULL));
	env_close(&e);
}

TEST(context)
{
	struct env e;
	struct fake f;
	const cl_icd_dispatch *t;
	cl_context_properties bad_platform[] = { CL_CONTEXT_PLATFORM, 0, 0 };
	cl_context_properties unknown[] = { 0x7777, 1, 0 };
	cl_device_id two[2];
	cl_context c, fc;
	cl_uint u;
	cl_int err;
	int user;

	env_open(_metadata, &e, 0);
	t = icd(e.p);
	fc = foreign(&f, e.c);
	bad_platform[1] = (cl_context_properties)fc;
	two[0] = e.d;
	two[1] = foreign(&f, e.d);
	err = 0;
	EXPECT_EQ(NULL, clCreateContext(NULL, 2, two, NULL, NULL, &err));
	EXPECT_EQ(CL_INVALID_DEVICE, err);
	two[1] = NULL;
	EXPECT_EQ(NULL, clCreateContext(NULL, 2, two, NULL, NULL, &err));
	EXPECT_EQ(CL_INVALID_DEVICE, err);
	EXPECT_EQ(NULL, clCreateContext(bad_platform, 1, &e.d, NULL, NULL,
					&err));
	EXPECT_EQ(CL_INVALID_PLATFORM, err);
	/* From a type. */
	EXPECT_EQ(NULL, clCreateContextFromType(NULL,
						CL_DEVICE_TYPE_ACCELERATOR,
						NULL, NULL, &err));
	EXPECT_EQ(CL_DEVICE_NOT_FOUND, err);
	EXPECT_EQ(NULL, clCreateContextFromType(NULL, 0, NULL, NULL, &err));
	EXPECT_EQ(CL_INVALID_DEVICE_TYPE, err);
	EXPECT_EQ(NULL, clCreateContextFromType(NULL, CL_DEVICE_TYPE_ALL, NULL,
						&user, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	/* The loader reads these properties itself (for the platform to
	 * call), and refuses them with CL_INVALID_PLATFORM: the platform's
	 * own answer, then. */
	EXPECT_EQ(NULL, t->clCreateContextFromType(unknown, CL_DEVICE_TYPE_ALL,
						   NULL, NULL, &err));
	EXPECT_EQ(CL_INVALID_PROPERTY, err);
	EXPECT_EQ(NULL, t->clCreateContextFromType(bad_platform,
						   CL_DEVICE_TYPE_ALL, NULL,
						   NULL, &err));
	EXPECT_EQ(CL_INVALID_PLATFORM, err);
	c = clCreateContextFromType(NULL, CL_DEVICE_TYPE_DEFAULT, on_context,
				    &user, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	/* Info. */
	EXPECT_EQ(CL_INVALID_VALUE, clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES,
						     2, &u, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clGetContextInfo(c, 0x7777, sizeof(u), &u,
						     NULL));
	EXPECT_EQ(CL_INVALID_CONTEXT,
		  clGetContextInfo(fc, CL_CONTEXT_NUM_DEVICES, sizeof(u), &u,
				   NULL));
	EXPECT_EQ(CL_INVALID_CONTEXT, clRetainContext(fc));
	EXPECT_EQ(CL_INVALID_CONTEXT, clReleaseContext(fc));
	EXPECT_EQ(CL_INVALID_CONTEXT, clRetainContext((cl_context)e.q));
	EXPECT_EQ(CL_INVALID_CONTEXT, t->clRetainContext(NULL));
	EXPECT_EQ(CL_INVALID_CONTEXT, t->clReleaseContext(NULL));
	EXPECT_EQ(CL_INVALID_CONTEXT,
		  t->clGetContextInfo(NULL, CL_CONTEXT_NUM_DEVICES, sizeof(u),
				      &u, NULL));
	/* Released: no call finds it. */
	ASSERT_EQ(CL_SUCCESS, clReleaseContext(c));
	EXPECT_EQ(CL_INVALID_CONTEXT, t->clRetainContext(c));
	EXPECT_EQ(CL_INVALID_CONTEXT, t->clReleaseContext(c));
	EXPECT_EQ(CL_INVALID_CONTEXT,
		  t->clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, sizeof(u), &u,
				      NULL));
	EXPECT_EQ(NULL, t->clCreateCommandQueue(c, e.d, 0, &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	EXPECT_EQ(NULL, t->clCreateBuffer(c, 0, 4, NULL, &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	EXPECT_EQ(NULL, t->clCreateUserEvent(c, &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	EXPECT_EQ(NULL, t->clCreateProgramWithSource(c, 1, &add_src, NULL,
						     &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	env_close(&e);
}

TEST(command_queue)
{
	struct env e;
	struct fake f, g;
	const cl_icd_dispatch *t;
	cl_command_queue q, fq;
	cl_device_id d[16], other = NULL;
	cl_command_queue_properties props;
	cl_context c;
	cl_uint n = 0, i;
	cl_int err;

	env_open(_metadata, &e, 0);
	t = icd(e.p);
	fq = foreign(&f, e.q);
	EXPECT_EQ(NULL, clCreateCommandQueue(foreign(&g, e.c), e.d, 0, &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	EXPECT_EQ(NULL, clCreateCommandQueue(e.c, foreign(&g, e.d), 0, &err));
	EXPECT_EQ(CL_INVALID_DEVICE, err);
	EXPECT_EQ(NULL, clCreateCommandQueue(e.c, NULL, 0, &err));
	EXPECT_EQ(CL_INVALID_DEVICE, err);
	EXPECT_EQ(NULL, clCreateCommandQueue(e.c, e.d, 1ull << 20, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	/* A device of the platform not in the context. */
	ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(e.p, CL_DEVICE_TYPE_ALL, 16, d,
					     &n));
	for (i = 0; i < n; i++)
		if (d[i] != e.d)
			other = d[i];
	if (other) {
		EXPECT_EQ(NULL, clCreateCommandQueue(e.c, other, 0, &err));
		EXPECT_EQ(CL_INVALID_DEVICE, err);
	}
	/* Info. */
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetCommandQueueInfo(e.q, CL_QUEUE_PROPERTIES, 4, &props,
					NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetCommandQueueInfo(e.q, 0x7777, sizeof(props), &props,
					NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetCommandQueueInfo(e.q, CL_QUEUE_CONTEXT, 1, &c, NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  clGetCommandQueueInfo(fq, CL_QUEUE_CONTEXT, sizeof(c), &c,
					NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  t->clGetCommandQueueInfo(NULL, CL_QUEUE_CONTEXT, sizeof(c),
					   &c, NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, clRetainCommandQueue(fq));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, clReleaseCommandQueue(fq));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  clRetainCommandQueue((cl_command_queue)e.c));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, t->clRetainCommandQueue(NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, t->clReleaseCommandQueue(NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, clFlush(fq));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, clFinish(fq));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, t->clFlush(NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, t->clFinish(NULL));
	/* Released. */
	q = clCreateCommandQueue(e.c, e.d, CL_QUEUE_PROFILING_ENABLE, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clRetainCommandQueue(q));
	ASSERT_EQ(CL_SUCCESS, clReleaseCommandQueue(q));
	ASSERT_EQ(CL_SUCCESS, clReleaseCommandQueue(q));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, t->clRetainCommandQueue(q));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, t->clReleaseCommandQueue(q));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  t->clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof(c), &c,
					   NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, t->clFlush(q));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, t->clFinish(q));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, t->clEnqueueBarrier(q));
	env_close(&e);
}

TEST(buffer)
{
	struct env e;
	struct fake f;
	const cl_icd_dispatch *t;
	cl_ulong max = 0;
	cl_mem b, fb;
	size_t sz;
	cl_int err;
	int host[4] = { 0 };

	env_open(_metadata, &e, 0);
	t = icd(e.p);
	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(e.d, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
					      sizeof(max), &max, NULL));
	EXPECT_EQ(NULL, clCreateBuffer(foreign(&f, e.c), 0, 4, NULL, &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	EXPECT_EQ(NULL, t->clCreateBuffer(NULL, 0, 4, NULL, &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	/* Sizes. */
	EXPECT_EQ(NULL, clCreateBuffer(e.c, 0, 0, NULL, &err));
	EXPECT_EQ(CL_INVALID_BUFFER_SIZE, err);
	EXPECT_EQ(NULL, clCreateBuffer(e.c, 0, (size_t)max + 1, NULL, &err));
	EXPECT_EQ(CL_INVALID_BUFFER_SIZE, err);
	EXPECT_EQ(NULL, clCreateBuffer(e.c, 0, SIZE_MAX, NULL, &err));
	EXPECT_EQ(CL_INVALID_BUFFER_SIZE, err);
	/* Flags: unknown bits, two accesses, two host accesses, USE_HOST_PTR
	 * with ALLOC or COPY. */
	EXPECT_EQ(NULL, clCreateBuffer(e.c, 1ull << 40, 4, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateBuffer(e.c, CL_MEM_READ_WRITE |
				       CL_MEM_READ_ONLY, 4, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateBuffer(e.c, CL_MEM_READ_WRITE |
				       CL_MEM_WRITE_ONLY, 4, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateBuffer(e.c, CL_MEM_HOST_READ_ONLY |
				       CL_MEM_HOST_WRITE_ONLY, 4, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateBuffer(e.c, CL_MEM_HOST_NO_ACCESS |
				       CL_MEM_HOST_READ_ONLY, 4, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateBuffer(e.c, CL_MEM_USE_HOST_PTR |
				       CL_MEM_ALLOC_HOST_PTR, sizeof(host),
				       host, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateBuffer(e.c, CL_MEM_USE_HOST_PTR |
				       CL_MEM_COPY_HOST_PTR, sizeof(host),
				       host, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	/* The host pointer: with USE or COPY only, and then required. */
	EXPECT_EQ(NULL, clCreateBuffer(e.c, 0, sizeof(host), host, &err));
	EXPECT_EQ(CL_INVALID_HOST_PTR, err);
	EXPECT_EQ(NULL, clCreateBuffer(e.c, CL_MEM_ALLOC_HOST_PTR,
				       sizeof(host), host, &err));
	EXPECT_EQ(CL_INVALID_HOST_PTR, err);
	EXPECT_EQ(NULL, clCreateBuffer(e.c, CL_MEM_USE_HOST_PTR, sizeof(host),
				       NULL, &err));
	EXPECT_EQ(CL_INVALID_HOST_PTR, err);
	/* Info, references, destructor callbacks. */
	b = clCreateBuffer(e.c, CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR,
			   sizeof(host), host, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	fb = foreign(&f, b);
	EXPECT_EQ(CL_INVALID_VALUE, clGetMemObjectInfo(b, CL_MEM_SIZE, 4, &sz,
						       NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clGetMemObjectInfo(b, 0x7777, sizeof(sz),
						       &sz, NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  clGetMemObjectInfo(fb, CL_MEM_SIZE, sizeof(sz), &sz, NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  t->clGetMemObjectInfo(NULL, CL_MEM_SIZE, sizeof(sz), &sz,
					NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  clGetMemObjectInfo((cl_mem)e.q, CL_MEM_SIZE, sizeof(sz), &sz,
				     NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT, clRetainMemObject(fb));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT, clReleaseMemObject(fb));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT, t->clRetainMemObject(NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT, t->clReleaseMemObject(NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clSetMemObjectDestructorCallback(b, NULL, NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  clSetMemObjectDestructorCallback(fb, on_mem, NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  t->clSetMemObjectDestructorCallback(NULL, on_mem, NULL));
	ASSERT_EQ(CL_SUCCESS, clRetainMemObject(b));
	ASSERT_EQ(CL_SUCCESS, clReleaseMemObject(b));
	ASSERT_EQ(CL_SUCCESS, clReleaseMemObject(b));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT, t->clRetainMemObject(b));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT, t->clReleaseMemObject(b));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  t->clGetMemObjectInfo(b, CL_MEM_SIZE, sizeof(sz), &sz, NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  t->clSetMemObjectDestructorCallback(b, on_mem, NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  clEnqueueWriteBuffer(e.q, b, CL_TRUE, 0, sizeof(host), host,
				       0, NULL, NULL));
	env_close(&e);
}

TEST(sub_buffer)
{
	struct env e;
	struct fake f;
	const cl_icd_dispatch *t;
	cl_buffer_region r = { 0, 64 };
	cl_mem b, wo, hro, sub, s2;
	cl_uint align = 0;
	cl_int err;

	env_open(_metadata, &e, 0);
	t = icd(e.p);
	b = clCreateBuffer(e.c, 0, 4096, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	wo = clCreateBuffer(e.c, CL_MEM_WRITE_ONLY, 4096, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	hro = clCreateBuffer(e.c, CL_MEM_HOST_READ_ONLY, 4096, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(NULL, clCreateSubBuffer(foreign(&f, b), 0,
					  CL_BUFFER_CREATE_TYPE_REGION, &r,
					  &err));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT, err);
	EXPECT_EQ(NULL, t->clCreateSubBuffer(NULL, 0,
					     CL_BUFFER_CREATE_TYPE_REGION, &r,
					     &err));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT, err);
	EXPECT_EQ(NULL, clCreateSubBuffer(b, 0, 0x7777, &r, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION,
					  NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	/* Flags: unknown, host pointer ones, two accesses, wider access. */
	EXPECT_EQ(NULL, clCreateSubBuffer(b, 1ull << 40,
					  CL_BUFFER_CREATE_TYPE_REGION, &r,
					  &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateSubBuffer(b, CL_MEM_USE_HOST_PTR,
					  CL_BUFFER_CREATE_TYPE_REGION, &r,
					  &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateSubBuffer(b, CL_MEM_READ_ONLY |
					  CL_MEM_WRITE_ONLY,
					  CL_BUFFER_CREATE_TYPE_REGION, &r,
					  &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateSubBuffer(wo, CL_MEM_READ_ONLY,
					  CL_BUFFER_CREATE_TYPE_REGION, &r,
					  &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateSubBuffer(hro, CL_MEM_HOST_WRITE_ONLY,
					  CL_BUFFER_CREATE_TYPE_REGION, &r,
					  &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	/* The region: empty, past the end, wrapping, misaligned. */
	r.size = 0;
	EXPECT_EQ(NULL, clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION,
					  &r, &err));
	EXPECT_EQ(CL_INVALID_BUFFER_SIZE, err);
	r.size = 4097;
	EXPECT_EQ(NULL, clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION,
					  &r, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	r.origin = 4096;
	r.size = 1;
	EXPECT_EQ(NULL, clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION,
					  &r, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	r.origin = 2048;
	r.size = SIZE_MAX - 1024;
	EXPECT_EQ(NULL, clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION,
					  &r, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(e.d, CL_DEVICE_MEM_BASE_ADDR_ALIGN,
					      sizeof(align), &align, NULL));
	if (align > 8) {
		r.origin = 1;
		r.size = 64;
		EXPECT_EQ(NULL, clCreateSubBuffer(b, 0,
						  CL_BUFFER_CREATE_TYPE_REGION,
						  &r, &err));
		EXPECT_EQ(CL_MISALIGNED_SUB_BUFFER_OFFSET, err);
	}
	/* Not of a sub-buffer. */
	r.origin = 0;
	r.size = 1024;
	sub = clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	r.size = 64;
	EXPECT_EQ(NULL, clCreateSubBuffer(sub, 0, CL_BUFFER_CREATE_TYPE_REGION,
					  &r, &err));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT, err);
	ASSERT_EQ(CL_SUCCESS, clReleaseMemObject(sub));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT, t->clReleaseMemObject(sub));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  t->clGetMemObjectInfo(sub, CL_MEM_SIZE, sizeof(r.size),
					&r.size, NULL));
	ASSERT_EQ(CL_SUCCESS, clReleaseMemObject(b));
	/* Released, then: gone. */
	s2 = clCreateSubBuffer(wo, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clReleaseMemObject(s2));
	ASSERT_EQ(CL_SUCCESS, clReleaseMemObject(wo));
	EXPECT_EQ(NULL, t->clCreateSubBuffer(wo, 0,
					     CL_BUFFER_CREATE_TYPE_REGION, &r,
					     &err));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT, err);
	clReleaseMemObject(hro);
	env_close(&e);
}

/*
 * No device has images (CL_DEVICE_IMAGE_SUPPORT false): 1.2 lists no
 * format, refuses an image or sampler the arguments of which are right
 * with CL_INVALID_OPERATION, and no handle is an image; arguments wrong
 * in themselves are still those arguments' errors.
 */
TEST(image_and_sampler)
{
	struct env e;
	struct fake f, g;
	const cl_icd_dispatch *t;
	cl_image_format fmt = { CL_RGBA, CL_UNORM_INT8 };
	cl_image_desc desc = { .image_type = CL_MEM_OBJECT_IMAGE2D,
			       .image_width = 4, .image_height = 4 };
	size_t origin[3] = { 0, 0, 0 }, region[3] = { 1, 1, 1 }, rp, sp;
	cl_image_format formats[4];
	cl_bool support = CL_TRUE;
	cl_context fc;
	cl_command_queue fq;
	cl_mem b;
	cl_uint n = 99;
	cl_int err;
	float color[4] = { 0 };
	char host[256], info[64];

	env_open(_metadata, &e, 0);
	t = icd(e.p);
	fc = foreign(&f, e.c);
	fq = foreign(&g, e.q);
	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(e.d, CL_DEVICE_IMAGE_SUPPORT,
					      sizeof(support), &support, NULL));
	ASSERT_EQ(CL_FALSE, support);
	b = clCreateBuffer(e.c, 0, sizeof(host), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	/* Formats: none, after the context, type and flags are checked. */
	EXPECT_EQ(CL_SUCCESS, clGetSupportedImageFormats(e.c, CL_MEM_READ_WRITE,
							 CL_MEM_OBJECT_IMAGE2D,
							 4, formats, &n));
	EXPECT_EQ(0, n);
	EXPECT_EQ(CL_INVALID_CONTEXT,
		  clGetSupportedImageFormats(fc, CL_MEM_READ_WRITE,
					     CL_MEM_OBJECT_IMAGE2D, 4, formats,
					     &n));
	EXPECT_EQ(CL_INVALID_CONTEXT,
		  t->clGetSupportedImageFormats(NULL, CL_MEM_READ_WRITE,
						CL_MEM_OBJECT_IMAGE2D, 4,
						formats, &n));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetSupportedImageFormats(e.c, CL_MEM_READ_WRITE,
					     CL_MEM_OBJECT_BUFFER, 4, formats,
					     &n));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetSupportedImageFormats(e.c, CL_MEM_READ_WRITE,
					     CL_MEM_OBJECT_IMAGE2D, 0, formats,
					     &n));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetSupportedImageFormats(e.c, 1ull << 40,
					     CL_MEM_OBJECT_IMAGE2D, 4, formats,
					     &n));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetSupportedImageFormats(e.c, CL_MEM_READ_ONLY |
					     CL_MEM_WRITE_ONLY,
					     CL_MEM_OBJECT_IMAGE2D, 4, formats,
					     &n));
	/* Images. */
	EXPECT_EQ(NULL, clCreateImage(e.c, 0, &fmt, &desc, NULL, &err));
	EXPECT_EQ(CL_INVALID_OPERATION, err);
	EXPECT_EQ(NULL, clCreateImage(fc, 0, &fmt, &desc, NULL, &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	EXPECT_EQ(NULL, t->clCreateImage(NULL, 0, &fmt, &desc, NULL, &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	EXPECT_EQ(NULL, clCreateImage(e.c, 1ull << 40, &fmt, &desc, NULL,
				      &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateImage(e.c, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
				      &fmt, &desc, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateImage(e.c, 0, NULL, &desc, NULL, &err));
	EXPECT_EQ(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, err);
	EXPECT_EQ(NULL, clCreateImage(e.c, 0, &fmt, NULL, NULL, &err));
	EXPECT_EQ(CL_INVALID_IMAGE_DESCRIPTOR, err);
	desc.image_type = CL_MEM_OBJECT_BUFFER;
	EXPECT_EQ(NULL, clCreateImage(e.c, 0, &fmt, &desc, NULL, &err));
	EXPECT_EQ(CL_INVALID_IMAGE_DESCRIPTOR, err);
	desc.image_type = CL_MEM_OBJECT_IMAGE2D;
	EXPECT_EQ(NULL, clCreateImage(e.c, 0, &fmt, &desc, host, &err));
	EXPECT_EQ(CL_INVALID_HOST_PTR, err);
	EXPECT_EQ(NULL, clCreateImage(e.c, CL_MEM_COPY_HOST_PTR, &fmt, &desc,
				      NULL, &err));
	EXPECT_EQ(CL_INVALID_HOST_PTR, err);
	EXPECT_EQ(NULL, clCreateImage2D(e.c, 0, &fmt, 4, 4, 0, NULL, &err));
	EXPECT_EQ(CL_INVALID_OPERATION, err);
	EXPECT_EQ(NULL, clCreateImage2D(fc, 0, &fmt, 4, 4, 0, NULL, &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	EXPECT_EQ(NULL, clCreateImage2D(e.c, 0, NULL, 4, 4, 0, NULL, &err));
	EXPECT_EQ(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, err);
	EXPECT_EQ(NULL, clCreateImage3D(e.c, 0, &fmt, 4, 4, 4, 0, 0, NULL,
					&err));
	EXPECT_EQ(CL_INVALID_OPERATION, err);
	EXPECT_EQ(NULL, clCreateImage3D(fc, 0, &fmt, 4, 4, 4, 0, 0, NULL,
					&err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	EXPECT_EQ(NULL, clCreateImage3D(e.c, 1ull << 40, &fmt, 4, 4, 4, 0, 0,
					NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	/* Samplers. */
	EXPECT_EQ(NULL, clCreateSampler(e.c, CL_FALSE, CL_ADDRESS_CLAMP,
					CL_FILTER_NEAREST, &err));
	EXPECT_EQ(CL_INVALID_OPERATION, err);
	EXPECT_EQ(NULL, clCreateSampler(fc, CL_FALSE, CL_ADDRESS_CLAMP,
					CL_FILTER_NEAREST, &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	EXPECT_EQ(NULL, t->clCreateSampler(NULL, CL_FALSE, CL_ADDRESS_CLAMP,
					   CL_FILTER_NEAREST, &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	EXPECT_EQ(NULL, clCreateSampler(e.c, 7, CL_ADDRESS_CLAMP,
					CL_FILTER_NEAREST, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateSampler(e.c, CL_FALSE, 0x7777,
					CL_FILTER_NEAREST, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateSampler(e.c, CL_FALSE, CL_ADDRESS_CLAMP,
					0x7777, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	/* No handle is a sampler: none can be made. */
	EXPECT_EQ(CL_INVALID_SAMPLER, t->clRetainSampler(NULL));
	EXPECT_EQ(CL_INVALID_SAMPLER, t->clReleaseSampler(NULL));
	EXPECT_EQ(CL_INVALID_SAMPLER, clRetainSampler((cl_sampler)fc));
	EXPECT_EQ(CL_INVALID_SAMPLER, clReleaseSampler((cl_sampler)fc));
	EXPECT_EQ(CL_INVALID_SAMPLER,
		  clGetSamplerInfo((cl_sampler)fc, CL_SAMPLER_CONTEXT,
				   sizeof(info), info, NULL));
	/* No handle is an image: a buffer is not, nor a foreign one. */
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  clGetImageInfo(b, CL_IMAGE_WIDTH, sizeof(info), info, NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  clGetImageInfo((cl_mem)fc, CL_IMAGE_WIDTH, sizeof(info), info,
				 NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  t->clGetImageInfo(NULL, CL_IMAGE_WIDTH, sizeof(info), info,
				    NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  clEnqueueReadImage(e.q, b, CL_TRUE, origin, region, 0, 0,
				     host, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  clEnqueueReadImage(fq, b, CL_TRUE, origin, region, 0, 0,
				     host, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  clEnqueueWriteImage(e.q, b, CL_TRUE, origin, region, 0, 0,
				      host, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  clEnqueueWriteImage(fq, b, CL_TRUE, origin, region, 0, 0,
				      host, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  clEnqueueFillImage(e.q, b, color, origin, region, 0, NULL,
				     NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  clEnqueueFillImage(fq, b, color, origin, region, 0, NULL,
				     NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  clEnqueueCopyImage(e.q, b, b, origin, origin, region, 0, NULL,
				     NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  clEnqueueCopyImage(fq, b, b, origin, origin, region, 0, NULL,
				     NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  clEnqueueCopyImageToBuffer(e.q, b, b, origin, region, 0, 0,
					     NULL, NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  clEnqueueCopyImageToBuffer(fq, b, b, origin, region, 0, 0,
					     NULL, NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  clEnqueueCopyBufferToImage(e.q, b, b, 0, origin, region, 0,
					     NULL, NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  clEnqueueCopyBufferToImage(fq, b, b, 0, origin, region, 0,
					     NULL, NULL));
	EXPECT_EQ(NULL, clEnqueueMapImage(e.q, b, CL_TRUE, CL_MAP_READ, origin,
					  region, &rp, &sp, 0, NULL, NULL,
					  &err));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT, err);
	EXPECT_EQ(NULL, clEnqueueMapImage(fq, b, CL_TRUE, CL_MAP_READ, origin,
					  region, &rp, &sp, 0, NULL, NULL,
					  &err));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, err);
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  t->clEnqueueReadImage(NULL, b, CL_TRUE, origin, region, 0, 0,
					host, 0, NULL, NULL));
	clReleaseMemObject(b);
	env_close(&e);
}

static const char *bad_src =
	"__kernel void f(__global int *o)\n"
	"{\n"
	"	o[0] = no_such_name_vmgpu;\n"
	"}\n";

/* clLinkProgram's program was not made from source or a binary. */
static void linked_program_is_built(struct __test_metadata *_metadata,
				    cl_context c)
{
	static const char *src = "int twice(int v) { return 2 * v; }\n";
	cl_program obj, lib;
	cl_int err;

	obj = clCreateProgramWithSource(c, 1, &src, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clCompileProgram(obj, 0, NULL, NULL, 0, NULL,
					       NULL, NULL, NULL));
	lib = clLinkProgram(c, 0, NULL, "-create-library", 1, &obj, NULL, NULL,
			    &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(CL_INVALID_OPERATION,
		  clBuildProgram(lib, 0, NULL, NULL, NULL, NULL));
	clReleaseProgram(lib);
	clReleaseProgram(obj);
}

TEST(program)
{
	struct env e;
	struct fake f, g;
	const cl_icd_dispatch *t;
	const char *nul = NULL, *srcs[1] = { add_src };
	const unsigned char *bins[1];
	unsigned char junk[16] = "not a binary";
	size_t len = sizeof(junk), sz;
	cl_program pr, bad, fpr, hdrs[1];
	const char *names[1] = { "h.h" };
	cl_build_status st;
	cl_device_id fd;
	cl_kernel k;
	cl_uint u;
	cl_int err, bst = 0;
	char log[4096] = "";
	int user;

	env_open(_metadata, &e, 0);
	t = icd(e.p);
	fd = foreign(&g, e.d);
	/* From source. */
	EXPECT_EQ(NULL, clCreateProgramWithSource(foreign(&f, e.c), 1, srcs,
						  NULL, &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	EXPECT_EQ(NULL, clCreateProgramWithSource(e.c, 0, srcs, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateProgramWithSource(e.c, 1, NULL, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateProgramWithSource(e.c, 1, &nul, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	/* From a binary. */
	bins[0] = junk;
	EXPECT_EQ(NULL, clCreateProgramWithBinary(foreign(&f, e.c), 1, &e.d,
						  &len, bins, &bst, &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	EXPECT_EQ(NULL, clCreateProgramWithBinary(e.c, 0, &e.d, &len, bins,
						  &bst, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateProgramWithBinary(e.c, 1, NULL, &len, bins,
						  &bst, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateProgramWithBinary(e.c, 1, &fd, &len, bins,
						  &bst, &err));
	EXPECT_EQ(CL_INVALID_DEVICE, err);
	EXPECT_EQ(NULL, clCreateProgramWithBinary(e.c, 1, &e.d, NULL, bins,
						  &bst, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateProgramWithBinary(e.c, 1, &e.d, &len, NULL,
						  &bst, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	sz = 0;
	EXPECT_EQ(NULL, clCreateProgramWithBinary(e.c, 1, &e.d, &sz, bins,
						  &bst, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	bst = 0;
	EXPECT_EQ(NULL, clCreateProgramWithBinary(e.c, 1, &e.d, &len, bins,
						  &bst, &err));
	EXPECT_EQ(CL_INVALID_BINARY, err);
	EXPECT_EQ(CL_INVALID_BINARY, bst);
	/* A build that fails: its status and a log naming line 3. */
	bad = clCreateProgramWithSource(e.c, 1, &bad_src, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE,
		  clBuildProgram(bad, 1, &e.d, NULL, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(bad, e.d,
						    CL_PROGRAM_BUILD_LOG,
						    sizeof(log), log, NULL));
	EXPECT_NE(NULL, strstr(log, "no_such_name_vmgpu")) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, ":3:")) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, "error")) TH_LOG("%s", log);
	ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(bad, e.d,
						    CL_PROGRAM_BUILD_STATUS,
						    sizeof(st), &st, NULL));
	EXPECT_EQ(CL_BUILD_ERROR, st);
	EXPECT_EQ(NULL, clCreateKernel(bad, "f", &err));
	EXPECT_EQ(CL_INVALID_PROGRAM_EXECUTABLE, err);
	EXPECT_EQ(CL_INVALID_PROGRAM_EXECUTABLE,
		  clGetProgramInfo(bad, CL_PROGRAM_NUM_KERNELS, sizeof(sz), &sz,
				   NULL));
	/* The build's own arguments. */
	pr = clCreateProgramWithSource(e.c, 1, srcs, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	fpr = foreign(&f, pr);
	EXPECT_EQ(CL_INVALID_PROGRAM, clBuildProgram(fpr, 0, NULL, NULL, NULL,
						     NULL));
	EXPECT_EQ(CL_INVALID_PROGRAM, t->clBuildProgram(NULL, 0, NULL, NULL,
							NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clBuildProgram(pr, 1, NULL, NULL, NULL,
						   NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clBuildProgram(pr, 0, &e.d, NULL, NULL,
						   NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clBuildProgram(pr, 0, NULL, NULL, NULL,
						   &user));
	EXPECT_EQ(CL_INVALID_DEVICE, clBuildProgram(pr, 1, &fd, NULL, NULL,
						    NULL));
	EXPECT_EQ(CL_INVALID_BUILD_OPTIONS,
		  clBuildProgram(pr, 0, NULL, "-no-such-option-vmgpu", NULL,
				 NULL));
	ASSERT_EQ(CL_SUCCESS, clBuildProgram(pr, 1, &e.d, NULL, on_program,
					     &user));
	/* A kernel of it: no rebuild, no compile. */
	k = clCreateKernel(pr, "add", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(CL_INVALID_OPERATION, clBuildProgram(pr, 0, NULL, NULL, NULL,
						       NULL));
	EXPECT_EQ(CL_INVALID_OPERATION, clCompileProgram(pr, 0, NULL, NULL, 0,
							 NULL, NULL, NULL,
							 NULL));
	clReleaseKernel(k);
	/* Compile. */
	EXPECT_EQ(CL_INVALID_PROGRAM, clCompileProgram(fpr, 0, NULL, NULL, 0,
						       NULL, NULL, NULL, NULL));
	EXPECT_EQ(CL_INVALID_PROGRAM, t->clCompileProgram(NULL, 0, NULL, NULL,
							  0, NULL, NULL, NULL,
							  NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clCompileProgram(bad, 1, NULL, NULL, 0,
						     NULL, NULL, NULL, NULL));
	EXPECT_EQ(CL_INVALID_DEVICE, clCompileProgram(bad, 1, &fd, NULL, 0,
						      NULL, NULL, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clCompileProgram(bad, 0, NULL, NULL, 1,
						     NULL, names, NULL, NULL));
	hdrs[0] = pr;
	EXPECT_EQ(CL_INVALID_VALUE, clCompileProgram(bad, 0, NULL, NULL, 1,
						     hdrs, NULL, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clCompileProgram(bad, 0, NULL, NULL, 0,
						     hdrs, names, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clCompileProgram(bad, 0, NULL, NULL, 0,
						     NULL, NULL, NULL, &user));
	hdrs[0] = fpr;
	EXPECT_EQ(CL_INVALID_PROGRAM, clCompileProgram(bad, 0, NULL, NULL, 1,
						       hdrs, names, NULL,
						       NULL));
	EXPECT_EQ(CL_INVALID_COMPILER_OPTIONS,
		  clCompileProgram(bad, 0, NULL, "-no-such-option-vmgpu", 0,
				   NULL, NULL, NULL, NULL));
	EXPECT_EQ(CL_COMPILE_PROGRAM_FAILURE,
		  clCompileProgram(bad, 0, NULL, NULL, 0, NULL, NULL, NULL,
				   NULL));
	ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(bad, e.d,
						    CL_PROGRAM_BUILD_LOG,
						    sizeof(log), log, NULL));
	EXPECT_NE(NULL, strstr(log, "no_such_name_vmgpu")) TH_LOG("%s", log);
	/* Link: a failed compile is no object. */
	EXPECT_EQ(NULL, clLinkProgram(foreign(&g, e.c), 0, NULL, NULL, 1, &pr,
				      NULL, NULL, &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	EXPECT_EQ(NULL, clLinkProgram(e.c, 0, NULL, NULL, 0, NULL, NULL, NULL,
				      &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clLinkProgram(e.c, 0, NULL, NULL, 1, NULL, NULL, NULL,
				      &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clLinkProgram(e.c, 0, NULL, NULL, 1, &pr, NULL, &user,
				      &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clLinkProgram(e.c, 1, &fd, NULL, 1, &pr, NULL, NULL,
				      &err));
	EXPECT_EQ(CL_INVALID_DEVICE, err);
	EXPECT_EQ(NULL, clLinkProgram(e.c, 0, NULL, NULL, 1, &fpr, NULL, NULL,
				      &err));
	EXPECT_EQ(CL_INVALID_PROGRAM, err);
	EXPECT_EQ(NULL, clLinkProgram(e.c, 0, NULL, NULL, 1, &bad, NULL, NULL,
				      &err));
	EXPECT_EQ(CL_INVALID_OPERATION, err);
	/* A linked program is built: clBuildProgram is not for it. */
	linked_program_is_built(_metadata, e.c);
	/* Info. */
	EXPECT_EQ(CL_INVALID_VALUE, clGetProgramInfo(pr, CL_PROGRAM_NUM_DEVICES,
						     2, &u, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clGetProgramInfo(pr, CL_PROGRAM_SOURCE, 4,
						     log, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clGetProgramInfo(pr, 0x7777, sizeof(log),
						     log, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetProgramInfo(pr, CL_PROGRAM_BINARIES, 1, log, NULL));
	EXPECT_EQ(CL_INVALID_PROGRAM,
		  clGetProgramInfo(fpr, CL_PROGRAM_NUM_DEVICES, sizeof(u), &u,
				   NULL));
	EXPECT_EQ(CL_INVALID_PROGRAM,
		  t->clGetProgramInfo(NULL, CL_PROGRAM_NUM_DEVICES, sizeof(u),
				      &u, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetProgramBuildInfo(pr, e.d, CL_PROGRAM_BUILD_STATUS, 1,
					&st, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetProgramBuildInfo(pr, e.d, 0x7777, sizeof(log), log,
					NULL));
	EXPECT_EQ(CL_INVALID_DEVICE,
		  clGetProgramBuildInfo(pr, fd, CL_PROGRAM_BUILD_STATUS,
					sizeof(st), &st, NULL));
	EXPECT_EQ(CL_INVALID_PROGRAM,
		  clGetProgramBuildInfo(fpr, e.d, CL_PROGRAM_BUILD_STATUS,
					sizeof(st), &st, NULL));
	/* References; released. */
	EXPECT_EQ(CL_INVALID_PROGRAM, clRetainProgram(fpr));
	EXPECT_EQ(CL_INVALID_PROGRAM, clReleaseProgram(fpr));
	EXPECT_EQ(CL_INVALID_PROGRAM, t->clRetainProgram(NULL));
	EXPECT_EQ(CL_INVALID_PROGRAM, t->clReleaseProgram(NULL));
	EXPECT_EQ(CL_INVALID_PROGRAM, clRetainProgram((cl_program)e.c));
	ASSERT_EQ(CL_SUCCESS, clRetainProgram(pr));
	ASSERT_EQ(CL_SUCCESS, clReleaseProgram(pr));
	ASSERT_EQ(CL_SUCCESS, clReleaseProgram(pr));
	EXPECT_EQ(CL_INVALID_PROGRAM, t->clRetainProgram(pr));
	EXPECT_EQ(CL_INVALID_PROGRAM, t->clReleaseProgram(pr));
	EXPECT_EQ(CL_INVALID_PROGRAM, t->clBuildProgram(pr, 0, NULL, NULL,
							NULL, NULL));
	EXPECT_EQ(CL_INVALID_PROGRAM,
		  t->clGetProgramInfo(pr, CL_PROGRAM_NUM_DEVICES, sizeof(u), &u,
				      NULL));
	EXPECT_EQ(CL_INVALID_PROGRAM,
		  t->clGetProgramBuildInfo(pr, e.d, CL_PROGRAM_BUILD_STATUS,
					   sizeof(st), &st, NULL));
	EXPECT_EQ(NULL, t->clCreateKernel(pr, "add", &err));
	EXPECT_EQ(CL_INVALID_PROGRAM, err);
	EXPECT_EQ(CL_INVALID_PROGRAM, t->clCreateKernelsInProgram(pr, 0, NULL,
								  &u));
	clReleaseProgram(bad);
	env_close(&e);
}

TEST_HARNESS_MAIN
