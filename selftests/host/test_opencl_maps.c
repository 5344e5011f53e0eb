// SPDX-License-Identifier: GPL-2.0-only
/*
 * Maps of a buffer's parts (Documentation/opencl.rst): a map moves only
 * the bytes it maps, so that other parts of the same buffer can be
 * written, filled, read and used by kernels meanwhile, from this thread
 * or others (as the CTS's math_brute_force does, a sub-buffer per
 * thread); an unmap writes back only what it mapped; a map deferred
 * behind an event gives, at once, the pointer it will map at.
 */
#include <pthread.h>
#include <string.h>

#include "testcl.h"

static const char *add_src =
	"__kernel void add(__global int *a, int v)\n"
	"{ a[get_global_id(0)] += v; }\n";

#define HALF 1024

static cl_mem half_of(struct __test_metadata *_metadata, cl_mem buf,
		      int which)
{
	cl_buffer_region r = { which * HALF * sizeof(int),
			       HALF * sizeof(int) };
	cl_int err;
	cl_mem sub = clCreateSubBuffer(buf, CL_MEM_READ_WRITE,
				       CL_BUFFER_CREATE_TYPE_REGION, &r, &err);

	EXPECT_EQ(CL_SUCCESS, err);
	return sub;
}

static void add_to(struct __test_metadata *_metadata, struct env *e,
		   cl_command_queue q, cl_kernel k, cl_mem m, int v)
{
	size_t g = HALF;

	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(m), &m));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(v), &v));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL,
						     0, NULL, NULL));
}

/*
 * One half mapped for writing while the other is filled, run on and
 * read; the unmap leaves the other half as the kernel made it. @flags:
 * the buffer's (CL_MEM_USE_HOST_PTR: the map is into the program's
 * memory, which then holds the whole buffer).
 */
static void map_one_half_use_other(struct __test_metadata *_metadata,
				   cl_mem_flags flags)
{
	static int host[2 * HALF];
	int back[2 * HALF], pattern = 7, i, *p;
	cl_program prog;
	cl_mem buf, a, b;
	struct env e;
	cl_kernel k;
	cl_int err;

	env_open(_metadata, &e, 0);
	k = build_kernel(_metadata, &e, add_src, "add", &prog);
	memset(host, 0, sizeof(host));
	buf = clCreateBuffer(e.c, CL_MEM_READ_WRITE | flags, sizeof(host),
			     flags ? host : NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	a = half_of(_metadata, buf, 0);
	b = half_of(_metadata, buf, 1);
	p = clEnqueueMapBuffer(e.q, a, CL_TRUE, CL_MAP_WRITE, 0,
			       HALF * sizeof(int), 0, NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	if (flags & CL_MEM_USE_HOST_PTR)
		EXPECT_EQ((void *)host, (void *)p);
	for (i = 0; i < HALF; i++)
		p[i] = i;
	ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(e.q, b, &pattern,
						  sizeof(pattern), 0,
						  HALF * sizeof(int), 0, NULL,
						  NULL));
	add_to(_metadata, &e, e.q, k, b, 100);
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, b, CL_TRUE, 0,
						  HALF * sizeof(int), back, 0,
						  NULL, NULL));
	EXPECT_EQ(107, back[0]);
	EXPECT_EQ(107, back[HALF - 1]);
	ASSERT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(e.q, a, p, 0, NULL,
						      NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, buf, CL_TRUE, 0,
						  sizeof(back), back, 0, NULL,
						  NULL));
	for (i = 0; i < HALF; i++) {
		ASSERT_EQ(i, back[i]);
		ASSERT_EQ(107, back[HALF + i]);
	}
	clReleaseMemObject(a);
	clReleaseMemObject(b);
	clReleaseMemObject(buf);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	env_close(&e);
}

TEST(other_half_while_mapped)
{
	map_one_half_use_other(_metadata, 0);
}

TEST(other_half_while_mapped_use_host_ptr)
{
	map_one_half_use_other(_metadata, CL_MEM_USE_HOST_PTR);
}

/*
 * A map of the second half behind a user event: its pointer, given at
 * once, is where the map puts the bytes when it runs, and where a
 * blocking map of the same bytes puts them.
 */
TEST(deferred_map_of_a_sub_buffer)
{
	int in[2 * HALF], *early, *late, i;
	cl_event gate, mapped;
	cl_mem buf, b;
	struct env e;
	cl_int err;

	env_open(_metadata, &e, 0);
	for (i = 0; i < 2 * HALF; i++)
		in[i] = 3 * i;
	buf = clCreateBuffer(e.c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
			     sizeof(in), in, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	b = half_of(_metadata, buf, 1);
	gate = clCreateUserEvent(e.c, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	early = clEnqueueMapBuffer(e.q, b, CL_FALSE, CL_MAP_READ,
				   4 * sizeof(int), 16 * sizeof(int), 1, &gate,
				   &mapped, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_NE((void *)NULL, (void *)early);
	ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(gate, CL_COMPLETE));
	ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &mapped));
	for (i = 0; i < 16; i++)
		ASSERT_EQ(3 * (HALF + 4 + i), early[i]);
	late = clEnqueueMapBuffer(e.q, b, CL_TRUE, CL_MAP_READ,
				  4 * sizeof(int), 16 * sizeof(int), 0, NULL,
				  NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ((void *)early, (void *)late);
	ASSERT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(e.q, b, early, 0, NULL,
						      NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(e.q, b, late, 0, NULL,
						      NULL));
	ASSERT_EQ(CL_SUCCESS, clFinish(e.q));
	clReleaseEvent(mapped);
	clReleaseEvent(gate);
	clReleaseMemObject(b);
	clReleaseMemObject(buf);
	env_close(&e);
}

/* Each thread its own half and queue: map, fill, unmap, run, read. */
struct half_job {
	struct __test_metadata *md;
	struct env *e;
	cl_mem buf;
	int which, failures;
};

#define ROUNDS 40

static void *half_worker(void *arg)
{
	struct half_job *j = arg;
	struct __test_metadata *_metadata = j->md;
	int back[HALF], r, i, *p;
	cl_command_queue q;
	cl_program prog;
	cl_kernel k;
	cl_int err;
	cl_mem m;

	q = clCreateCommandQueue(j->e->c, j->e->d, 0, &err);
	m = half_of(_metadata, j->buf, j->which);
	k = build_kernel(_metadata, j->e, add_src, "add", &prog);
	for (r = 0; r < ROUNDS && !err; r++) {
		p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_WRITE, 0,
				       HALF * sizeof(int), 0, NULL, NULL,
				       &err);
		if (err)
			break;
		for (i = 0; i < HALF; i++)
			p[i] = r * 1000 + j->which;
		err = clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL);
		if (err)
			break;
		add_to(_metadata, j->e, q, k, m, 1);
		err = clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof(back), back,
					  0, NULL, NULL);
		for (i = 0; !err && i < HALF; i++)
			if (back[i] != r * 1000 + j->which + 1)
				err = CL_INVALID_VALUE;
	}
	j->failures = err != CL_SUCCESS;
	clReleaseKernel(k);
	clReleaseProgram(prog);
	clReleaseMemObject(m);
	clReleaseCommandQueue(q);
	return NULL;
}

TEST(halves_from_two_threads)
{
	struct half_job jobs[2];
	pthread_t t[2];
	struct env e;
	cl_int err;
	cl_mem buf;
	int i;

	env_open(_metadata, &e, 0);
	buf = clCreateBuffer(e.c, CL_MEM_READ_WRITE, 2 * HALF * sizeof(int),
			     NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	for (i = 0; i < 2; i++) {
		jobs[i] = (struct half_job){ _metadata, &e, buf, i, 0 };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, half_worker,
					    &jobs[i]));
	}
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, jobs[i].failures);
	}
	clReleaseMemObject(buf);
	env_close(&e);
}

TEST_HARNESS_MAIN
