// SPDX-License-Identifier: GPL-2.0-only
/*
 * The error cases of the OpenCL 1.2 calls on kernels, commands and
 * events (those of the other objects: test_opencl_errors.c): foreign,
 * NULL and released handles (testclerr.h), objects of another context,
 * ranges out of the buffer, unknown flags, wrong wait lists. Then every
 * kind of object made, used and released from several threads at once
 * in one context.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "testclerr.h"

static const char *add_src =
	"__kernel void add(__global int *a, int v)\n"
	"{ a[get_global_id(0)] += v; }\n"
	"__kernel void one(__global int *a)\n"
	"{ a[0] = 1; }\n";

static void CL_CALLBACK on_event(cl_event ev, cl_int st, void *user)
{
}

TEST(kernel)
{
	struct env e;
	struct fake f, g;
	const cl_icd_dispatch *t;
	cl_program pr, unbuilt;
	cl_kernel k, ks[2], fk;
	cl_device_id fd;
	cl_mem b;
	cl_uint u = 0;
	cl_int err;
	size_t sz, wg[3];
	char s[64];

	env_open(_metadata, &e, 0);
	t = icd(e.p);
	fd = foreign(&g, e.d);
	k = build_kernel(_metadata, &e, add_src, "add", &pr);
	ASSERT_NE(NULL, k);
	fk = foreign(&f, k);
	b = clCreateBuffer(e.c, 0, 64, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	/* Made from: a built program, by a name it has. */
	EXPECT_EQ(NULL, clCreateKernel(foreign(&f, pr), "add", &err));
	EXPECT_EQ(CL_INVALID_PROGRAM, err);
	EXPECT_EQ(NULL, t->clCreateKernel(NULL, "add", &err));
	EXPECT_EQ(CL_INVALID_PROGRAM, err);
	EXPECT_EQ(NULL, clCreateKernel(pr, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateKernel(pr, "no_such_kernel", &err));
	EXPECT_EQ(CL_INVALID_KERNEL_NAME, err);
	unbuilt = clCreateProgramWithSource(e.c, 1, &add_src, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(NULL, clCreateKernel(unbuilt, "add", &err));
	EXPECT_EQ(CL_INVALID_PROGRAM_EXECUTABLE, err);
	/* All of a program's. */
	EXPECT_EQ(CL_INVALID_PROGRAM,
		  clCreateKernelsInProgram(foreign(&f, pr), 2, ks, &u));
	EXPECT_EQ(CL_INVALID_PROGRAM,
		  t->clCreateKernelsInProgram(NULL, 2, ks, &u));
	EXPECT_EQ(CL_INVALID_PROGRAM_EXECUTABLE,
		  clCreateKernelsInProgram(unbuilt, 2, ks, &u));
	EXPECT_EQ(CL_INVALID_VALUE, clCreateKernelsInProgram(pr, 1, ks, &u));
	ASSERT_EQ(CL_SUCCESS, clCreateKernelsInProgram(pr, 0, NULL, &u));
	EXPECT_EQ(2, u);
	ASSERT_EQ(CL_SUCCESS, clCreateKernelsInProgram(pr, 2, ks, &u));
	clReleaseKernel(ks[0]);
	clReleaseKernel(ks[1]);
	fk = foreign(&f, k);
	/* Arguments. */
	EXPECT_EQ(CL_INVALID_KERNEL, clSetKernelArg(fk, 0, sizeof(b), &b));
	EXPECT_EQ(CL_INVALID_KERNEL, t->clSetKernelArg(NULL, 0, sizeof(b),
						       &b));
	EXPECT_EQ(CL_INVALID_ARG_INDEX, clSetKernelArg(k, 2, sizeof(b), &b));
	EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 1, 8, &u));
	EXPECT_EQ(CL_INVALID_ARG_VALUE, clSetKernelArg(k, 1, sizeof(u), NULL));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  clSetKernelArg(k, 0, sizeof(cl_mem), &e.q));
	/* Info. */
	EXPECT_EQ(CL_INVALID_VALUE, clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, 2,
						    &u, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME,
						    2, s, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clGetKernelInfo(k, 0x7777, sizeof(s), s,
						    NULL));
	EXPECT_EQ(CL_INVALID_KERNEL, clGetKernelInfo(fk, CL_KERNEL_NUM_ARGS,
						     sizeof(u), &u, NULL));
	EXPECT_EQ(CL_INVALID_KERNEL,
		  t->clGetKernelInfo(NULL, CL_KERNEL_NUM_ARGS, sizeof(u), &u,
				     NULL));
	EXPECT_EQ(CL_INVALID_KERNEL,
		  clGetKernelWorkGroupInfo(fk, e.d, CL_KERNEL_WORK_GROUP_SIZE,
					   sizeof(sz), &sz, NULL));
	EXPECT_EQ(CL_INVALID_KERNEL,
		  t->clGetKernelWorkGroupInfo(NULL, e.d,
					      CL_KERNEL_WORK_GROUP_SIZE,
					      sizeof(sz), &sz, NULL));
	EXPECT_EQ(CL_INVALID_DEVICE,
		  clGetKernelWorkGroupInfo(k, fd, CL_KERNEL_WORK_GROUP_SIZE,
					   sizeof(sz), &sz, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetKernelWorkGroupInfo(k, e.d, CL_KERNEL_WORK_GROUP_SIZE,
					   4, &sz, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetKernelWorkGroupInfo(k, e.d,
					   CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
					   sizeof(size_t), wg, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetKernelWorkGroupInfo(k, e.d, 0x7777, sizeof(wg), wg,
					   NULL));
	/* Not a custom device nor a built-in kernel. */
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetKernelWorkGroupInfo(k, e.d, CL_KERNEL_GLOBAL_WORK_SIZE,
					   sizeof(wg), wg, NULL));
	EXPECT_EQ(CL_INVALID_KERNEL,
		  clGetKernelArgInfo(fk, 0, CL_KERNEL_ARG_NAME, sizeof(s), s,
				     NULL));
	EXPECT_EQ(CL_INVALID_ARG_INDEX,
		  clGetKernelArgInfo(k, 2, CL_KERNEL_ARG_NAME, sizeof(s), s,
				     NULL));
	/* References; released. */
	EXPECT_EQ(CL_INVALID_KERNEL, clRetainKernel(fk));
	EXPECT_EQ(CL_INVALID_KERNEL, clReleaseKernel(fk));
	EXPECT_EQ(CL_INVALID_KERNEL, t->clRetainKernel(NULL));
	EXPECT_EQ(CL_INVALID_KERNEL, t->clReleaseKernel(NULL));
	EXPECT_EQ(CL_INVALID_KERNEL, clRetainKernel((cl_kernel)pr));
	ASSERT_EQ(CL_SUCCESS, clRetainKernel(k));
	ASSERT_EQ(CL_SUCCESS, clReleaseKernel(k));
	ASSERT_EQ(CL_SUCCESS, clReleaseKernel(k));
	EXPECT_EQ(CL_INVALID_KERNEL, t->clRetainKernel(k));
	EXPECT_EQ(CL_INVALID_KERNEL, t->clReleaseKernel(k));
	EXPECT_EQ(CL_INVALID_KERNEL, t->clSetKernelArg(k, 0, sizeof(b), &b));
	EXPECT_EQ(CL_INVALID_KERNEL,
		  t->clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof(u), &u,
				     NULL));
	EXPECT_EQ(CL_INVALID_KERNEL,
		  t->clGetKernelWorkGroupInfo(k, e.d, CL_KERNEL_WORK_GROUP_SIZE,
					      sizeof(sz), &sz, NULL));
	EXPECT_EQ(CL_INVALID_KERNEL,
		  clEnqueueTask(e.q, k, 0, NULL, NULL));
	/* Its program, free of kernels, builds again. */
	EXPECT_EQ(CL_SUCCESS, clBuildProgram(pr, 0, NULL, NULL, NULL, NULL));
	clReleaseMemObject(b);
	clReleaseProgram(unbuilt);
	clReleaseProgram(pr);
	env_close(&e);
}

/*
 * What an enqueue is given besides: a complete event of the queue's
 * context, one of another context, one released, a foreign one; a
 * buffer of another context, one released.
 */
struct others {
	cl_context c2;
	cl_command_queue q2;
	cl_event done, other, released, fe;
	cl_mem b2, gone;
	struct fake f;
};

static void others_open(struct __test_metadata *_metadata, struct env *e,
			struct others *o)
{
	cl_int err;

	o->c2 = clCreateContext(NULL, 1, &e->d, NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	o->q2 = clCreateCommandQueue(o->c2, e->d, 0, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clEnqueueMarkerWithWaitList(o->q2, 0, NULL,
							  &o->other));
	ASSERT_EQ(CL_SUCCESS, clEnqueueMarkerWithWaitList(e->q, 0, NULL,
							  &o->released));
	/* The queue's last command no longer: its last reference is ours. */
	ASSERT_EQ(CL_SUCCESS, clEnqueueMarkerWithWaitList(e->q, 0, NULL,
							  &o->done));
	ASSERT_EQ(CL_SUCCESS, clReleaseEvent(o->released));
	o->fe = foreign(&o->f, o->done);
	o->b2 = clCreateBuffer(o->c2, 0, 64, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	o->gone = clCreateBuffer(e->c, 0, 64, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clReleaseMemObject(o->gone));
}

static void others_close(struct others *o)
{
	clReleaseEvent(o->done);
	clReleaseEvent(o->other);
	clReleaseMemObject(o->b2);
	clReleaseCommandQueue(o->q2);
	clReleaseContext(o->c2);
}

/*
 * The wait-list errors of one enqueue, CALL written with n and list: a
 * count without a list, a list without a count, a foreign event, a
 * released one, one of another context.
 */
#define WAIT_LIST_ERRORS(CALL) do {					\
	cl_uint n = 1;							\
	const cl_event *list = NULL;					\
									\
	EXPECT_EQ(CL_INVALID_EVENT_WAIT_LIST, (CALL)) TH_LOG("no list");\
	n = 0;								\
	list = &o.done;							\
	EXPECT_EQ(CL_INVALID_EVENT_WAIT_LIST, (CALL)) TH_LOG("no count");\
	n = 1;								\
	list = &o.fe;							\
	EXPECT_EQ(CL_INVALID_EVENT_WAIT_LIST, (CALL)) TH_LOG("foreign");\
	list = &o.released;						\
	EXPECT_EQ(CL_INVALID_EVENT_WAIT_LIST, (CALL)) TH_LOG("released");\
	list = &o.other;						\
	EXPECT_EQ(CL_INVALID_CONTEXT, (CALL)) TH_LOG("other context");	\
} while (0)

/* The handle errors of one enqueue, CALL written with q and m. */
#define HANDLE_ERRORS(CALL) do {					\
	cl_command_queue q = fq;					\
	cl_mem m = b;							\
									\
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, (CALL)) TH_LOG("queue");	\
	q = e.q;							\
	m = fb;								\
	EXPECT_EQ(CL_INVALID_MEM_OBJECT, (CALL)) TH_LOG("foreign");	\
	m = o.gone;							\
	EXPECT_EQ(CL_INVALID_MEM_OBJECT, (CALL)) TH_LOG("released");	\
	m = o.b2;							\
	EXPECT_EQ(CL_INVALID_CONTEXT, (CALL)) TH_LOG("other context");	\
} while (0)

TEST(buffer_commands)
{
	struct env e;
	struct others o;
	struct fake f, g;
	const cl_icd_dispatch *t;
	cl_command_queue fq;
	cl_mem b, fb, ro;
	cl_int err, pat = 0;
	char host[64];
	size_t zero[3] = { 0, 0, 0 }, reg[3] = { 8, 2, 1 }, off[3] = { 0, 0, 0 };
	void *p;

	env_open(_metadata, &e, 0);
	t = icd(e.p);
	others_open(_metadata, &e, &o);
	memset(host, 0, sizeof(host));
	b = clCreateBuffer(e.c, 0, sizeof(host), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ro = clCreateBuffer(e.c, CL_MEM_HOST_NO_ACCESS, sizeof(host), NULL,
			    &err);
	ASSERT_EQ(CL_SUCCESS, err);
	fq = foreign(&f, e.q);
	fb = foreign(&g, b);
	/* Read and write: handles, ranges, pointer, host access, lists. */
	HANDLE_ERRORS(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 4, host, 0, NULL,
					  NULL));
	HANDLE_ERRORS(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, 4, host, 0, NULL,
					   NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  t->clEnqueueReadBuffer(NULL, b, CL_TRUE, 0, 4, host, 0, NULL,
					 NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueReadBuffer(e.q, b, CL_TRUE, 60, 8,
							host, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueReadBuffer(e.q, b, CL_TRUE, 65, 0,
							host, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueWriteBuffer(e.q, b, CL_TRUE, 8, SIZE_MAX, host, 0,
				       NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueReadBuffer(e.q, b, CL_TRUE, 0, 4,
							NULL, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueWriteBuffer(e.q, b, CL_TRUE, 0, 0,
							 host, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_OPERATION,
		  clEnqueueReadBuffer(e.q, ro, CL_TRUE, 0, 4, host, 0, NULL,
				      NULL));
	EXPECT_EQ(CL_INVALID_OPERATION,
		  clEnqueueWriteBuffer(e.q, ro, CL_TRUE, 0, 4, host, 0, NULL,
				       NULL));
	WAIT_LIST_ERRORS(clEnqueueReadBuffer(e.q, b, CL_TRUE, 0, 4, host, n,
					     list, NULL));
	WAIT_LIST_ERRORS(clEnqueueWriteBuffer(e.q, b, CL_TRUE, 0, 4, host, n,
					      list, NULL));
	/* Rectangles. */
	HANDLE_ERRORS(clEnqueueReadBufferRect(q, m, CL_TRUE, zero, zero, reg,
					      0, 0, 0, 0, host, 0, NULL,
					      NULL));
	HANDLE_ERRORS(clEnqueueWriteBufferRect(q, m, CL_TRUE, zero, zero, reg,
					       0, 0, 0, 0, host, 0, NULL,
					       NULL));
	off[1] = 7;	/* rows 7 and 8 of 8 bytes: past 64 */
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueWriteBufferRect(e.q, b, CL_TRUE, off, zero, reg, 0,
					   0, 0, 0, host, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueReadBufferRect(e.q, b, CL_TRUE, off, zero, reg, 0,
					  0, 0, 0, host, 0, NULL, NULL));
	reg[2] = 0;
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueWriteBufferRect(e.q, b, CL_TRUE, zero, zero, reg, 0,
					   0, 0, 0, host, 0, NULL, NULL));
	reg[2] = 1;
	EXPECT_EQ(CL_INVALID_VALUE,	/* a row pitch under a row */
		  clEnqueueWriteBufferRect(e.q, b, CL_TRUE, zero, zero, reg, 4,
					   0, 0, 0, host, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,	/* a slice pitch not of rows */
		  clEnqueueWriteBufferRect(e.q, b, CL_TRUE, zero, zero, reg, 0,
					   0, 8, 20, host, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueWriteBufferRect(e.q, b, CL_TRUE, NULL, zero, reg, 0,
					   0, 0, 0, host, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueWriteBufferRect(e.q, b, CL_TRUE, zero, zero, reg, 0,
					   0, 0, 0, NULL, 0, NULL, NULL));
	WAIT_LIST_ERRORS(clEnqueueWriteBufferRect(e.q, b, CL_TRUE, zero, zero,
						  reg, 0, 0, 0, 0, host, n,
						  list, NULL));
	WAIT_LIST_ERRORS(clEnqueueReadBufferRect(e.q, b, CL_TRUE, zero, zero,
						 reg, 0, 0, 0, 0, host, n, list,
						 NULL));
	/* Copies: each buffer's handle, ranges, overlap. */
	HANDLE_ERRORS(clEnqueueCopyBuffer(q, m, b, 0, 32, 4, 0, NULL, NULL));
	HANDLE_ERRORS(clEnqueueCopyBuffer(q, b, m, 0, 32, 4, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueCopyBuffer(e.q, b, ro, 0, 60, 8, 0,
							NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueCopyBuffer(e.q, b, ro, 60, 0, 8, 0,
							NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueCopyBuffer(e.q, b, ro, 0, 0, 0, 0,
							NULL, NULL));
	EXPECT_EQ(CL_MEM_COPY_OVERLAP, clEnqueueCopyBuffer(e.q, b, b, 0, 4, 8,
							   0, NULL, NULL));
	WAIT_LIST_ERRORS(clEnqueueCopyBuffer(e.q, b, ro, 0, 0, 4, n, list,
					     NULL));
	HANDLE_ERRORS(clEnqueueCopyBufferRect(q, m, b, zero, off, reg, 0, 0, 0,
					      0, 0, NULL, NULL));
	HANDLE_ERRORS(clEnqueueCopyBufferRect(q, b, m, zero, off, reg, 0, 0, 0,
					      0, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueCopyBufferRect(e.q, b, ro, zero, off, reg, 0, 0, 0,
					  0, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueCopyBufferRect(e.q, b, ro, zero, zero, reg, 2, 0, 0,
					  0, 0, NULL, NULL));
	EXPECT_EQ(CL_MEM_COPY_OVERLAP,
		  clEnqueueCopyBufferRect(e.q, b, b, zero, zero, reg, 0, 0, 0,
					  0, 0, NULL, NULL));
	WAIT_LIST_ERRORS(clEnqueueCopyBufferRect(e.q, b, ro, zero, zero, reg,
						 0, 0, 0, 0, n, list, NULL));
	/* Fill: the pattern's size, alignment and range. */
	HANDLE_ERRORS(clEnqueueFillBuffer(q, m, &pat, 4, 0, 8, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueFillBuffer(e.q, b, NULL, 4, 0, 8,
							0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueFillBuffer(e.q, b, &pat, 0, 0, 8,
							0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueFillBuffer(e.q, b, &pat, 3, 0, 6,
							0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueFillBuffer(e.q, b, host, 256, 0,
							256, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueFillBuffer(e.q, b, &pat, 4, 2, 8,
							0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueFillBuffer(e.q, b, &pat, 4, 0, 6,
							0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueFillBuffer(e.q, b, &pat, 4, 60, 8,
							0, NULL, NULL));
	WAIT_LIST_ERRORS(clEnqueueFillBuffer(e.q, b, &pat, 4, 0, 8, n, list,
					     NULL));
	/* Map and unmap. */
	HANDLE_ERRORS((clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, 8, 0,
					  NULL, NULL, &err), err));
	EXPECT_EQ(NULL, clEnqueueMapBuffer(e.q, b, CL_TRUE, CL_MAP_READ, 60, 8,
					   0, NULL, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clEnqueueMapBuffer(e.q, b, CL_TRUE, CL_MAP_READ, 0, 0,
					   0, NULL, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clEnqueueMapBuffer(e.q, b, CL_TRUE, 1ull << 40, 0, 8,
					   0, NULL, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clEnqueueMapBuffer(e.q, b, CL_TRUE, CL_MAP_READ |
					   CL_MAP_WRITE_INVALIDATE_REGION, 0,
					   8, 0, NULL, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clEnqueueMapBuffer(e.q, ro, CL_TRUE, CL_MAP_READ, 0, 8,
					   0, NULL, NULL, &err));
	EXPECT_EQ(CL_INVALID_OPERATION, err);
	WAIT_LIST_ERRORS((clEnqueueMapBuffer(e.q, b, CL_TRUE, CL_MAP_READ, 0,
					     8, n, list, NULL, &err), err));
	p = clEnqueueMapBuffer(e.q, b, CL_TRUE, CL_MAP_WRITE, 0, 8, 0, NULL,
			       NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	HANDLE_ERRORS(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueUnmapMemObject(e.q, b, host, 0,
							    NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueUnmapMemObject(e.q, ro, p, 0,
							    NULL, NULL));
	WAIT_LIST_ERRORS(clEnqueueUnmapMemObject(e.q, b, p, n, list, NULL));
	EXPECT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(e.q, b, p, 0, NULL,
						      NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueUnmapMemObject(e.q, b, p, 0,
							    NULL, NULL));
	/* Migration. */
	HANDLE_ERRORS(clEnqueueMigrateMemObjects(q, 1, &m, 0, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueMigrateMemObjects(e.q, 0, &b, 0, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueMigrateMemObjects(e.q, 1, NULL, 0, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueMigrateMemObjects(e.q, 1, &b, 1ull << 40, 0, NULL,
					     NULL));
	WAIT_LIST_ERRORS(clEnqueueMigrateMemObjects(e.q, 1, &b, 0, n, list,
						    NULL));
	clReleaseMemObject(ro);
	clReleaseMemObject(b);
	others_close(&o);
	env_close(&e);
}

TEST(kernel_commands)
{
	struct env e;
	struct others o;
	struct fake f, g;
	const cl_icd_dispatch *t;
	cl_command_queue fq;
	cl_program pr, pr2;
	cl_kernel k, one, k2, fk;
	cl_mem b;
	cl_int err, v = 1;
	size_t gsz = 16, lsz = 5, big[3] = { 16, 1, 1 };

	env_open(_metadata, &e, 0);
	t = icd(e.p);
	others_open(_metadata, &e, &o);
	k = build_kernel(_metadata, &e, add_src, "add", &pr);
	one = clCreateKernel(pr, "one", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	b = clCreateBuffer(e.c, 0, 64, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	fq = foreign(&f, e.q);
	fk = foreign(&g, k);
	/* Arguments unset: refused at the enqueue. */
	EXPECT_EQ(CL_INVALID_KERNEL_ARGS,
		  clEnqueueNDRangeKernel(e.q, k, 1, NULL, &gsz, NULL, 0, NULL,
					 NULL));
	EXPECT_EQ(CL_INVALID_KERNEL_ARGS,
		  clEnqueueTask(e.q, one, 0, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(b), &b));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(v), &v));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(one, 0, sizeof(b), &b));
	/* A released buffer as an argument. */
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  clSetKernelArg(k, 0, sizeof(cl_mem), &o.gone));
	/* The queue, the kernel, their contexts. */
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  clEnqueueNDRangeKernel(fq, k, 1, NULL, &gsz, NULL, 0, NULL,
					 NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  t->clEnqueueNDRangeKernel(NULL, k, 1, NULL, &gsz, NULL, 0,
					    NULL, NULL));
	EXPECT_EQ(CL_INVALID_KERNEL,
		  clEnqueueNDRangeKernel(e.q, fk, 1, NULL, &gsz, NULL, 0, NULL,
					 NULL));
	EXPECT_EQ(CL_INVALID_KERNEL,
		  clEnqueueNDRangeKernel(e.q, NULL, 1, NULL, &gsz, NULL, 0,
					 NULL, NULL));
	EXPECT_EQ(CL_INVALID_CONTEXT,
		  clEnqueueNDRangeKernel(o.q2, k, 1, NULL, &gsz, NULL, 0, NULL,
					 NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  clEnqueueTask(fq, one, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  t->clEnqueueTask(NULL, one, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_KERNEL, clEnqueueTask(e.q, fk, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_CONTEXT, clEnqueueTask(o.q2, one, 0, NULL, NULL));
	/* Sizes. */
	EXPECT_EQ(CL_INVALID_WORK_DIMENSION,
		  clEnqueueNDRangeKernel(e.q, k, 0, NULL, &gsz, NULL, 0, NULL,
					 NULL));
	EXPECT_EQ(CL_INVALID_WORK_DIMENSION,
		  clEnqueueNDRangeKernel(e.q, k, 4, NULL, big, NULL, 0, NULL,
					 NULL));
	EXPECT_EQ(CL_INVALID_GLOBAL_WORK_SIZE,
		  clEnqueueNDRangeKernel(e.q, k, 1, NULL, NULL, NULL, 0, NULL,
					 NULL));
	EXPECT_EQ(CL_INVALID_WORK_GROUP_SIZE,
		  clEnqueueNDRangeKernel(e.q, k, 1, NULL, &gsz, &lsz, 0, NULL,
					 NULL));
	WAIT_LIST_ERRORS(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &gsz, NULL, n,
						list, NULL));
	WAIT_LIST_ERRORS(clEnqueueTask(e.q, one, n, list, NULL));
	/* A kernel of another context's program. */
	pr2 = clCreateProgramWithSource(o.c2, 1, &add_src, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clBuildProgram(pr2, 0, NULL, NULL, NULL, NULL));
	k2 = clCreateKernel(pr2, "one", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k2, 0, sizeof(o.b2), &o.b2));
	EXPECT_EQ(CL_INVALID_CONTEXT, clEnqueueTask(e.q, k2, 0, NULL, NULL));
	EXPECT_EQ(CL_SUCCESS, clEnqueueTask(e.q, one, 0, NULL, NULL));
	EXPECT_EQ(CL_SUCCESS, clFinish(e.q));
	clReleaseKernel(k2);
	clReleaseProgram(pr2);
	clReleaseMemObject(b);
	clReleaseKernel(one);
	clReleaseKernel(k);
	clReleaseProgram(pr);
	others_close(&o);
	env_close(&e);
}

TEST(markers_barriers_and_waits)
{
	struct env e;
	struct others o;
	struct fake f;
	const cl_icd_dispatch *t;
	cl_command_queue fq;
	cl_event ev = NULL, two[2];

	env_open(_metadata, &e, 0);
	t = icd(e.p);
	others_open(_metadata, &e, &o);
	fq = foreign(&f, e.q);
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  clEnqueueMarkerWithWaitList(fq, 0, NULL, &ev));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  t->clEnqueueMarkerWithWaitList(NULL, 0, NULL, &ev));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  clEnqueueBarrierWithWaitList(fq, 0, NULL, &ev));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, clEnqueueMarker(fq, &ev));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, t->clEnqueueMarker(NULL, &ev));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueMarker(e.q, NULL));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, clEnqueueBarrier(fq));
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE, t->clEnqueueBarrier(NULL));
	WAIT_LIST_ERRORS(clEnqueueMarkerWithWaitList(e.q, n, list, NULL));
	WAIT_LIST_ERRORS(clEnqueueBarrierWithWaitList(e.q, n, list, NULL));
	/* clEnqueueWaitForEvents: its list is events, not a wait list. */
	EXPECT_EQ(CL_INVALID_COMMAND_QUEUE,
		  clEnqueueWaitForEvents(fq, 1, &o.done));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueWaitForEvents(e.q, 0, &o.done));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueWaitForEvents(e.q, 1, NULL));
	EXPECT_EQ(CL_INVALID_EVENT, clEnqueueWaitForEvents(e.q, 1, &o.fe));
	EXPECT_EQ(CL_INVALID_EVENT, clEnqueueWaitForEvents(e.q, 1,
							   &o.released));
	EXPECT_EQ(CL_INVALID_CONTEXT, clEnqueueWaitForEvents(e.q, 1, &o.other));
	two[0] = o.done;
	two[1] = NULL;
	EXPECT_EQ(CL_INVALID_EVENT, clEnqueueWaitForEvents(e.q, 2, two));
	EXPECT_EQ(CL_SUCCESS, clEnqueueWaitForEvents(e.q, 1, &o.done));
	EXPECT_EQ(CL_SUCCESS, clEnqueueBarrier(e.q));
	ASSERT_EQ(CL_SUCCESS, clEnqueueMarker(e.q, &ev));
	clReleaseEvent(ev);
	others_close(&o);
	env_close(&e);
}

TEST(events)
{
	struct env e, p;
	struct others o;
	const cl_icd_dispatch *t;
	cl_event u, ev, two[2];
	cl_ulong ns;
	cl_int err, st;
	cl_uint refs;
	cl_context c;

	env_open(_metadata, &e, 0);
	env_open(_metadata, &p, CL_QUEUE_PROFILING_ENABLE);
	t = icd(e.p);
	others_open(_metadata, &e, &o);
	/* User events. */
	EXPECT_EQ(NULL, clCreateUserEvent(foreign(&o.f, e.c), &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	o.fe = foreign(&o.f, o.done);
	EXPECT_EQ(NULL, t->clCreateUserEvent(NULL, &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	u = clCreateUserEvent(e.c, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(CL_INVALID_EVENT, clSetUserEventStatus(o.fe, CL_COMPLETE));
	EXPECT_EQ(CL_INVALID_EVENT, t->clSetUserEventStatus(NULL,
							    CL_COMPLETE));
	EXPECT_EQ(CL_INVALID_EVENT, clSetUserEventStatus(o.done, CL_COMPLETE));
	EXPECT_EQ(CL_INVALID_VALUE, clSetUserEventStatus(u, CL_QUEUED));
	EXPECT_EQ(CL_INVALID_VALUE, clSetUserEventStatus(u, 7));
	/* Waits. */
	EXPECT_EQ(CL_INVALID_VALUE, clWaitForEvents(0, &o.done));
	EXPECT_EQ(CL_INVALID_VALUE, t->clWaitForEvents(1, NULL));
	EXPECT_EQ(CL_INVALID_EVENT, clWaitForEvents(1, &o.fe));
	EXPECT_EQ(CL_INVALID_EVENT, t->clWaitForEvents(1, &o.released));
	two[0] = o.done;
	two[1] = o.other;
	EXPECT_EQ(CL_INVALID_CONTEXT, clWaitForEvents(2, two));
	two[1] = NULL;
	EXPECT_EQ(CL_INVALID_EVENT, clWaitForEvents(2, two));
	EXPECT_EQ(CL_SUCCESS, clWaitForEvents(1, &o.done));
	/* Info. */
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetEventInfo(o.done, CL_EVENT_COMMAND_EXECUTION_STATUS, 2,
				 &st, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetEventInfo(o.done, CL_EVENT_CONTEXT, 4, &c, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetEventInfo(o.done, 0x7777, sizeof(st), &st, NULL));
	EXPECT_EQ(CL_INVALID_EVENT,
		  clGetEventInfo(o.fe, CL_EVENT_CONTEXT, sizeof(c), &c, NULL));
	EXPECT_EQ(CL_INVALID_EVENT,
		  t->clGetEventInfo(NULL, CL_EVENT_CONTEXT, sizeof(c), &c,
				    NULL));
	/* Profiling: only of a profiling queue's command, complete. */
	EXPECT_EQ(CL_PROFILING_INFO_NOT_AVAILABLE,
		  clGetEventProfilingInfo(o.done, CL_PROFILING_COMMAND_END,
					  sizeof(ns), &ns, NULL));
	EXPECT_EQ(CL_PROFILING_INFO_NOT_AVAILABLE,
		  clGetEventProfilingInfo(u, CL_PROFILING_COMMAND_END,
					  sizeof(ns), &ns, NULL));
	EXPECT_EQ(CL_INVALID_EVENT,
		  clGetEventProfilingInfo(o.fe, CL_PROFILING_COMMAND_END,
					  sizeof(ns), &ns, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueMarkerWithWaitList(p.q, 0, NULL, &ev));
	ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &ev));
	EXPECT_EQ(CL_SUCCESS, clGetEventProfilingInfo(ev,
						      CL_PROFILING_COMMAND_END,
						      sizeof(ns), &ns, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, 4, &ns,
					  NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetEventProfilingInfo(ev, 0x7777, sizeof(ns), &ns, NULL));
	/* Callbacks. */
	EXPECT_EQ(CL_INVALID_EVENT,
		  clSetEventCallback(o.fe, CL_COMPLETE, on_event, NULL));
	EXPECT_EQ(CL_INVALID_EVENT,
		  t->clSetEventCallback(NULL, CL_COMPLETE, on_event, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clSetEventCallback(u, CL_COMPLETE, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clSetEventCallback(u, CL_QUEUED, on_event, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clSetEventCallback(u, 0x7777, on_event,
						       NULL));
	/* References; released. */
	EXPECT_EQ(CL_INVALID_EVENT, clRetainEvent(o.fe));
	EXPECT_EQ(CL_INVALID_EVENT, clReleaseEvent(o.fe));
	EXPECT_EQ(CL_INVALID_EVENT, t->clRetainEvent(NULL));
	EXPECT_EQ(CL_INVALID_EVENT, t->clReleaseEvent(NULL));
	EXPECT_EQ(CL_INVALID_EVENT, clRetainEvent((cl_event)e.q));
	ASSERT_EQ(CL_SUCCESS, clRetainEvent(ev));
	ASSERT_EQ(CL_SUCCESS, clGetEventInfo(ev, CL_EVENT_REFERENCE_COUNT,
					     sizeof(refs), &refs, NULL));
	EXPECT_LE(2, refs);
	ASSERT_EQ(CL_SUCCESS, clReleaseEvent(ev));
	/* The profiling queue's last command no longer, then ours only. */
	ASSERT_EQ(CL_SUCCESS, clEnqueueBarrier(p.q));
	ASSERT_EQ(CL_SUCCESS, clReleaseEvent(ev));
	EXPECT_EQ(CL_INVALID_EVENT, t->clRetainEvent(ev));
	EXPECT_EQ(CL_INVALID_EVENT, t->clReleaseEvent(ev));
	EXPECT_EQ(CL_INVALID_EVENT,
		  t->clGetEventInfo(ev, CL_EVENT_CONTEXT, sizeof(c), &c, NULL));
	EXPECT_EQ(CL_INVALID_EVENT,
		  t->clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END,
					     sizeof(ns), &ns, NULL));
	EXPECT_EQ(CL_INVALID_EVENT,
		  t->clSetEventCallback(ev, CL_COMPLETE, on_event, NULL));
	ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(u, CL_COMPLETE));
	EXPECT_EQ(CL_INVALID_OPERATION, clSetUserEventStatus(u, CL_COMPLETE));
	ASSERT_EQ(CL_SUCCESS, clReleaseEvent(u));
	EXPECT_EQ(CL_INVALID_EVENT, t->clSetUserEventStatus(u, CL_COMPLETE));
	others_close(&o);
	env_close(&p);
	env_close(&e);
}

/*
 * Four threads in one context, each making, using and releasing every
 * kind of object at once with the others: a context of its own, queues,
 * buffers, a program it builds, kernels, user and command events.
 */
struct worker {
	cl_context c;
	cl_device_id d;
	int id, failures;
	char why[128];
};

#define FAIL_IF(cond) do {						\
	if (cond) {							\
		snprintf(w->why, sizeof(w->why), "line %d: %s",		\
			 __LINE__, #cond);				\
		w->failures++;						\
		goto out;						\
	}								\
} while (0)

static void *worker(void *arg)
{
	struct worker *w = arg;
	int iter, i, data[64];

	for (iter = 0; iter < 4; iter++) {
		cl_context own = NULL;
		cl_command_queue q = NULL;
		cl_program pr = NULL;
		cl_kernel k = NULL;
		cl_mem b = NULL;
		cl_event gate = NULL, run = NULL;
		cl_int err, v = w->id * 100 + iter;
		size_t g = 64;
		char opts[64];

		own = clCreateContext(NULL, 1, &w->d, NULL, NULL, &err);
		FAIL_IF(err != CL_SUCCESS);
		q = clCreateCommandQueue(w->c, w->d, iter & 1 ?
					 CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE :
					 0, &err);
		FAIL_IF(err != CL_SUCCESS);
		for (i = 0; i < 64; i++)
			data[i] = i;
		b = clCreateBuffer(w->c, CL_MEM_COPY_HOST_PTR, sizeof(data),
				   data, &err);
		FAIL_IF(err != CL_SUCCESS);
		/* A build of its own: options differ per thread. */
		pr = clCreateProgramWithSource(w->c, 1, &add_src, NULL, &err);
		FAIL_IF(err != CL_SUCCESS);
		snprintf(opts, sizeof(opts), "-DTHREAD=%d", w->id);
		FAIL_IF(clBuildProgram(pr, 1, &w->d, opts, NULL, NULL));
		k = clCreateKernel(pr, "add", &err);
		FAIL_IF(err != CL_SUCCESS);
		FAIL_IF(clSetKernelArg(k, 0, sizeof(b), &b) ||
			clSetKernelArg(k, 1, sizeof(v), &v));
		gate = clCreateUserEvent(w->c, &err);
		FAIL_IF(err != CL_SUCCESS);
		FAIL_IF(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 1,
					       &gate, &run));
		FAIL_IF(clSetUserEventStatus(gate, CL_COMPLETE));
		FAIL_IF(clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof(data),
					    data, 1, &run, NULL));
		for (i = 0; i < 64; i++)
			FAIL_IF(data[i] != i + v);
		FAIL_IF(clFinish(q));
out:
		if (run && clReleaseEvent(run))
			w->failures++;
		if (gate && clReleaseEvent(gate))
			w->failures++;
		if (k && clReleaseKernel(k))
			w->failures++;
		if (pr && clReleaseProgram(pr))
			w->failures++;
		if (b && clReleaseMemObject(b))
			w->failures++;
		if (q && clReleaseCommandQueue(q))
			w->failures++;
		if (own && clReleaseContext(own))
			w->failures++;
		if (w->failures)
			break;
	}
	return NULL;
}

TEST(every_object_from_several_threads)
{
	struct env e;
	struct worker w[4];
	pthread_t th[4];
	cl_uint refs = 0;
	int i;

	env_open(_metadata, &e, 0);
	for (i = 0; i < 4; i++) {
		w[i] = (struct worker){ .c = e.c, .d = e.d, .id = i };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, worker, &w[i]));
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, w[i].failures) TH_LOG("thread %d: %s", i,
						   w[i].why);
	}
	/* Everything they made is gone: the context is ours and the queue's. */
	ASSERT_EQ(CL_SUCCESS, clGetContextInfo(e.c, CL_CONTEXT_REFERENCE_COUNT,
					       sizeof(refs), &refs, NULL));
	EXPECT_EQ(2, refs);
	env_close(&e);
}

TEST_HARNESS_MAIN
