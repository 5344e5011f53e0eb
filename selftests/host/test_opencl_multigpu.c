// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OpenCL platform's multi-GPU device through the loader (opencl.rst,
 * "The multi-GPU device"): listed between the GPUs and the CPU with the
 * answers of the GPUs together; realistic kernels (saxpy, a 2-D stencil,
 * a reduction per work-group, a matrix multiply) and ones writing their
 * work-item ids, with and without a global work offset, give the bytes
 * GPU 0 gives; a kernel with global atomics runs whole and is right; a
 * context with the multi-GPU device and GPU 0 shares its buffers; a
 * kernel large enough takes less device time than on GPU 0.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testcl.h"

#define MAXDEV 16

/* The platform's devices: the GPUs, the multi-GPU device, the CPU. */
struct devs {
	cl_platform_id p;
	cl_device_id all[MAXDEV], multi, cpu;
	cl_uint n, ngpus;		/* ngpus: the single GPUs */
};

static void get_devs(struct __test_metadata *_metadata, struct devs *d)
{
	char name[128];
	cl_uint i;

	memset(d, 0, sizeof(*d));
	d->p = the_platform(_metadata);
	ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(d->p, CL_DEVICE_TYPE_ALL, MAXDEV,
					     d->all, &d->n));
	ASSERT_LE(d->n, MAXDEV);
	for (i = 0; i < d->n; i++) {
		ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(d->all[i], CL_DEVICE_NAME,
						      sizeof(name), name,
						      NULL));
		if (strstr(name, "as one"))
			d->multi = d->all[i];
		else if (!d->multi)
			d->ngpus++;
	}
	d->cpu = d->all[d->n - 1];
}

static cl_ulong ulong_info(cl_device_id dev, cl_device_info what)
{
	cl_ulong v = 0;

	clGetDeviceInfo(dev, what, sizeof(v), &v, NULL);
	return v;
}

static cl_uint uint_info(cl_device_id dev, cl_device_info what)
{
	cl_uint v = 0;

	clGetDeviceInfo(dev, what, sizeof(v), &v, NULL);
	return v;
}

TEST(listed_with_the_gpus_together)
{
	struct devs d;
	cl_device_id dflt, gpus[MAXDEV];
	cl_device_type type;
	char name[128], want[128], ext0[1024], ext[1024];
	cl_uint i, units = 0, n;
	cl_ulong mem = 0;
	size_t wg0, wg;

	get_devs(_metadata, &d);
	/* The embedded device's default: 4 GPUs. */
	ASSERT_EQ(4, d.ngpus);
	ASSERT_NE(NULL, d.multi);
	ASSERT_EQ(d.all[d.ngpus], d.multi);
	ASSERT_EQ(d.ngpus + 2, d.n);
	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(d.cpu, CL_DEVICE_TYPE,
					      sizeof(type), &type, NULL));
	EXPECT_EQ(CL_DEVICE_TYPE_CPU, type);
	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(d.multi, CL_DEVICE_TYPE,
					      sizeof(type), &type, NULL));
	EXPECT_EQ(CL_DEVICE_TYPE_GPU, type);
	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(d.multi, CL_DEVICE_NAME,
					      sizeof(name), name, NULL));
	snprintf(want, sizeof(want), "vmgpu \xc3\x97%u (GPUs 0-%u as one)",
		 d.ngpus, d.ngpus - 1);
	EXPECT_STREQ(want, name);
	/* The default device stays GPU 0; the GPU type has it too. */
	ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(d.p, CL_DEVICE_TYPE_DEFAULT, 1,
					     &dflt, &n));
	EXPECT_EQ(1, n);
	EXPECT_EQ(d.all[0], dflt);
	ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(d.p, CL_DEVICE_TYPE_GPU, MAXDEV,
					     gpus, &n));
	EXPECT_EQ(d.ngpus + 1, n);
	EXPECT_EQ(d.multi, gpus[d.ngpus]);
	/* Compute units: all the SMs; memory: what one buffer can be. */
	for (i = 0; i < d.ngpus; i++) {
		cl_ulong m = ulong_info(d.all[i], CL_DEVICE_GLOBAL_MEM_SIZE);

		units += uint_info(d.all[i], CL_DEVICE_MAX_COMPUTE_UNITS);
		if (!i || m < mem)
			mem = m;
	}
	EXPECT_EQ(units, uint_info(d.multi, CL_DEVICE_MAX_COMPUTE_UNITS));
	EXPECT_EQ(mem, ulong_info(d.multi, CL_DEVICE_GLOBAL_MEM_SIZE));
	EXPECT_EQ(ulong_info(d.all[0], CL_DEVICE_MAX_MEM_ALLOC_SIZE),
		  ulong_info(d.multi, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
	EXPECT_EQ(ulong_info(d.all[0], CL_DEVICE_LOCAL_MEM_SIZE),
		  ulong_info(d.multi, CL_DEVICE_LOCAL_MEM_SIZE));
	EXPECT_EQ(uint_info(d.all[0], CL_DEVICE_MAX_CLOCK_FREQUENCY),
		  uint_info(d.multi, CL_DEVICE_MAX_CLOCK_FREQUENCY));
	clGetDeviceInfo(d.all[0], CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(wg0),
			&wg0, NULL);
	clGetDeviceInfo(d.multi, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(wg),
			&wg, NULL);
	EXPECT_EQ(wg0, wg);
	clGetDeviceInfo(d.all[0], CL_DEVICE_EXTENSIONS, sizeof(ext0), ext0,
			NULL);
	clGetDeviceInfo(d.multi, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, NULL);
	EXPECT_STREQ(ext0, ext);
	EXPECT_EQ(0, uint_info(d.multi, CL_DEVICE_HOST_UNIFIED_MEMORY));
}

/* ---- One kernel on a device: its arguments, its output, its time ---- */

#define MAXARGS 6

struct karg {
	size_t bytes;		/* a buffer's (or __local's); 0: a scalar */
	const void *init;	/* a buffer's contents, NULL: zeroes */
	bool local;
	uint32_t scalar;	/* int or float bits */
};

struct job {
	const char *src, *name;
	cl_uint nargs, dim;
	struct karg a[MAXARGS];
	size_t global[2], local[2];
	const size_t *offset;	/* the global work offset, NULL: none */
};

/* Every buffer of @j after one run on @dev (into out[i], malloc'ed). */
static cl_ulong run_job(struct __test_metadata *_metadata, cl_device_id dev,
			const struct job *j, void **out)
{
	cl_mem m[MAXARGS] = { NULL };
	const char *src;
	cl_context c;
	cl_command_queue q;
	cl_program prog;
	cl_kernel k;
	cl_event ev;
	cl_ulong t0 = 0, t1 = 0;
	char log[4096] = "";
	cl_int err;
	cl_uint i;

	c = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	q = clCreateCommandQueue(c, dev, CL_QUEUE_PROFILING_ENABLE, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	src = j->src;
	prog = clCreateProgramWithSource(c, 1, &src, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	err = clBuildProgram(prog, 1, &dev, NULL, NULL, NULL);
	clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof(log),
			      log, NULL);
	ASSERT_EQ(CL_SUCCESS, err) TH_LOG("log: %s", log);
	k = clCreateKernel(prog, j->name, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	for (i = 0; i < j->nargs; i++) {
		const struct karg *a = &j->a[i];

		if (a->local) {
			err = clSetKernelArg(k, i, a->bytes, NULL);
		} else if (a->bytes) {
			out[i] = calloc(1, a->bytes);
			ASSERT_NE(NULL, out[i]);
			if (a->init)
				memcpy(out[i], a->init, a->bytes);
			m[i] = clCreateBuffer(c, CL_MEM_COPY_HOST_PTR, a->bytes,
					      out[i], &err);
			ASSERT_EQ(CL_SUCCESS, err);
			err = clSetKernelArg(k, i, sizeof(m[i]), &m[i]);
		} else {
			err = clSetKernelArg(k, i, 4, &a->scalar);
		}
		ASSERT_EQ(CL_SUCCESS, err) TH_LOG("argument %u", i);
	}
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(q, k, j->dim, j->offset,
						     j->global, j->local, 0,
						     NULL, &ev));
	ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &ev));
	ASSERT_EQ(CL_SUCCESS, clGetEventProfilingInfo(
		ev, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, NULL));
	ASSERT_EQ(CL_SUCCESS, clGetEventProfilingInfo(
		ev, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, NULL));
	EXPECT_LE(t0, t1);
	for (i = 0; i < j->nargs; i++)
		if (m[i]) {
			ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(
				q, m[i], CL_TRUE, 0, j->a[i].bytes, out[i], 0,
				NULL, NULL));
			clReleaseMemObject(m[i]);
		}
	clReleaseEvent(ev);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	clReleaseCommandQueue(q);
	clReleaseContext(c);
	return t1 - t0;
}

/*
 * @j on GPU 0 and on the multi-GPU device: every buffer the same bytes.
 * The device times into @t (GPU 0's, the multi-GPU device's).
 */
static void same_bytes(struct __test_metadata *_metadata, const struct job *j,
		       cl_ulong *t)
{
	void *one[MAXARGS] = { NULL }, *all[MAXARGS] = { NULL };
	struct devs d;
	cl_uint i;

	get_devs(_metadata, &d);
	ASSERT_NE(NULL, d.multi);
	t[0] = run_job(_metadata, d.all[0], j, one);
	t[1] = run_job(_metadata, d.multi, j, all);
	for (i = 0; i < j->nargs; i++) {
		if (one[i])
			EXPECT_EQ(0, memcmp(one[i], all[i], j->a[i].bytes))
				TH_LOG("%s: buffer %u differs", j->name, i);
		free(one[i]);
		free(all[i]);
	}
	TH_LOG("%s: %llu ns on GPU 0, %llu ns on the multi-GPU device",
	       j->name, (unsigned long long)t[0], (unsigned long long)t[1]);
}

static uint32_t rng_state = 12345;

static uint32_t rng(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 1;
}

/* @n floats in [-1, 1), made once per call (free() them). */
static float *random_floats(size_t n)
{
	float *f = malloc(n * sizeof(*f));
	size_t i;

	for (i = 0; f && i < n; i++)
		f[i] = (float)(rng() % 2000001) / 1000000.0f - 1.0f;
	return f;
}

static uint32_t fbits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

TEST(saxpy_same_bytes)
{
	enum { N = 64 * 1024 };
	float *x = random_floats(N), *y = random_floats(N);
	struct job j = {
		.src = "kernel void saxpy(float a, global const float *x,\n"
		       "                  global float *y, int n)\n"
		       "{\n"
		       "	int i = get_global_id(0);\n"
		       "	if (i < n)\n"
		       "		y[i] = a * x[i] + y[i];\n"
		       "}\n",
		.name = "saxpy", .nargs = 4, .dim = 1,
		.a = { { .scalar = fbits(2.5f) },
		       { .bytes = N * 4, .init = x },
		       { .bytes = N * 4, .init = y },
		       { .scalar = N - 100 } },
		.global = { N }, .local = { 256 },
	};
	cl_ulong t[2];

	ASSERT_NE(NULL, x);
	ASSERT_NE(NULL, y);
	same_bytes(_metadata, &j, t);
	free(x);
	free(y);
}

static const char stencil_src[] =
	"kernel void heat(global const float *in, global float *out,\n"
	"                 int w, int h)\n"
	"{\n"
	"	int x = get_global_id(0), y = get_global_id(1);\n"
	"	int l = x > 0 ? x - 1 : x, r = x < w - 1 ? x + 1 : x;\n"
	"	int u = y > 0 ? y - 1 : y, d = y < h - 1 ? y + 1 : y;\n"
	"	out[y * w + x] = 0.5f * in[y * w + x] + 0.125f *\n"
	"		(in[y * w + l] + in[y * w + r] + in[u * w + x] +\n"
	"		 in[d * w + x]);\n"
	"}\n";

TEST(stencil_2d_same_bytes)
{
	enum { W = 128, H = 96 };
	float *in = random_floats(W * H);
	struct job j = {
		.src = stencil_src, .name = "heat", .nargs = 4, .dim = 2,
		.a = { { .bytes = W * H * 4, .init = in },
		       { .bytes = W * H * 4 },
		       { .scalar = W }, { .scalar = H } },
		.global = { W, H }, .local = { 16, 8 },
	};
	cl_ulong t[2];

	ASSERT_NE(NULL, in);
	same_bytes(_metadata, &j, t);
	free(in);
}

TEST(reduction_per_work_group_same_bytes)
{
	enum { N = 32 * 1024, WG = 128 };
	float *in = random_floats(N);
	struct job j = {
		.src = "kernel void partial_sums(global const float *in,\n"
		       "                         global float *sums,\n"
		       "                         local float *tmp)\n"
		       "{\n"
		       "	int l = get_local_id(0), s;\n"
		       "	tmp[l] = in[get_global_id(0)];\n"
		       "	barrier(CLK_LOCAL_MEM_FENCE);\n"
		       "	for (s = get_local_size(0) / 2; s > 0; s /= 2) {\n"
		       "		if (l < s)\n"
		       "			tmp[l] += tmp[l + s];\n"
		       "		barrier(CLK_LOCAL_MEM_FENCE);\n"
		       "	}\n"
		       "	if (!l)\n"
		       "		sums[get_group_id(0)] = tmp[0];\n"
		       "}\n",
		.name = "partial_sums", .nargs = 3, .dim = 1,
		.a = { { .bytes = N * 4, .init = in },
		       { .bytes = N / WG * 4 },
		       { .bytes = WG * 4, .local = true } },
		.global = { N }, .local = { WG },
	};
	cl_ulong t[2];

	ASSERT_NE(NULL, in);
	same_bytes(_metadata, &j, t);
	free(in);
}

/* Each portion sees the whole NDRange's ids and sizes. */
TEST(work_item_ids_same_bytes)
{
	enum { GX = 64 * 12, GY = 3 };
	struct job j = {
		.src = "kernel void ids(global uint *o)\n"
		       "{\n"
		       "	uint i = 6 * (get_global_id(1) * get_global_size(0) +\n"
		       "		      get_global_id(0));\n"
		       "	o[i] = get_global_id(0);\n"
		       "	o[i + 1] = get_group_id(0);\n"
		       "	o[i + 2] = get_num_groups(0);\n"
		       "	o[i + 3] = get_global_size(0);\n"
		       "	o[i + 4] = get_local_id(0) + 100 * get_group_id(1);\n"
		       "	o[i + 5] = get_num_groups(1);\n"
		       "}\n",
		.name = "ids", .nargs = 1, .dim = 2,
		.a = { { .bytes = GX * GY * 6 * 4 } },
		.global = { GX, GY }, .local = { 64, 1 },
	};
	cl_ulong t[2];

	same_bytes(_metadata, &j, t);
}

/* With a global work offset: the same offset in every portion. */
TEST(global_offset_same_bytes)
{
	enum { GX = 64 * 8, GY = 2 };
	static const size_t off[2] = { 1000, 7 };
	struct job j = {
		.src = "kernel void off(global uint *o)\n"
		       "{\n"
		       "	uint x = get_global_id(0) - get_global_offset(0);\n"
		       "	uint y = get_global_id(1) - get_global_offset(1);\n"
		       "	uint i = 3 * (y * get_global_size(0) + x);\n"
		       "	o[i] = get_global_id(0);\n"
		       "	o[i + 1] = get_global_id(1);\n"
		       "	o[i + 2] = get_group_id(0);\n"
		       "}\n",
		.name = "off", .nargs = 1, .dim = 2,
		.a = { { .bytes = GX * GY * 3 * 4 } },
		.global = { GX, GY }, .local = { 64, 1 }, .offset = off,
	};
	cl_ulong t[2];

	same_bytes(_metadata, &j, t);
}

static const char matmul_src[] =
	"kernel void matmul(global const float *a, global const float *b,\n"
	"                   global float *c, int n)\n"
	"{\n"
	"	int col = get_global_id(0), row = get_global_id(1), k;\n"
	"	float s = 0.0f;\n"
	"	for (k = 0; k < n; k++)\n"
	"		s += a[row * n + k] * b[k * n + col];\n"
	"	c[row * n + col] = s;\n"
	"}\n";

/* Same bytes, and (large enough) less device time on all GPUs. */
TEST(matmul_same_bytes_less_time)
{
	enum { N = 96 };
	float *a = random_floats(N * N), *b = random_floats(N * N);
	struct job j = {
		.src = matmul_src, .name = "matmul", .nargs = 4, .dim = 2,
		.a = { { .bytes = N * N * 4, .init = a },
		       { .bytes = N * N * 4, .init = b },
		       { .bytes = N * N * 4 },
		       { .scalar = N } },
		.global = { N, N }, .local = { 8, 8 },
	};
	cl_ulong t[2];

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	same_bytes(_metadata, &j, t);
	/* 12 block columns over 4 GPUs: well under 3/4 of GPU 0's time. */
	EXPECT_LT(t[1] * 4, t[0] * 3);
	free(a);
	free(b);
}

/* Global atomics: not split (the portions' counts would not add up). */
TEST(global_atomics_run_whole)
{
	enum { N = 16 * 1024, BINS = 64 };
	uint32_t *data = malloc(N * 4), *bins, want[BINS] = { 0 }, i;
	void *out[MAXARGS] = { NULL };
	struct devs d;
	struct job j = {
		.src = "kernel void hist(global const uint *data,\n"
		       "                 global uint *bins)\n"
		       "{\n"
		       "	atomic_inc(&bins[data[get_global_id(0)] % 64]);\n"
		       "}\n",
		.name = "hist", .nargs = 2, .dim = 1,
		.a = { { .bytes = N * 4 }, { .bytes = BINS * 4 } },
		.global = { N }, .local = { 128 },
	};

	ASSERT_NE(NULL, data);
	for (i = 0; i < N; i++) {
		data[i] = rng();
		want[data[i] % BINS]++;
	}
	j.a[0].init = data;
	get_devs(_metadata, &d);
	ASSERT_NE(NULL, d.multi);
	run_job(_metadata, d.multi, &j, out);
	bins = out[1];
	for (i = 0; i < BINS; i++)
		EXPECT_EQ(want[i], bins[i]) TH_LOG("bin %u", i);
	free(out[0]);
	free(out[1]);
	free(data);
}

/*
 * One context of the multi-GPU device and GPU 0: a buffer GPU 0's queue
 * writes, the multi-GPU device's queue reads and writes, and back.
 */
TEST(context_with_gpu0_shares_buffers)
{
	enum { N = 8 * 1024 };
	static const char *src =
		"kernel void step(global int *a, int v)\n"
		"{ int i = get_global_id(0); a[i] = a[i] * 3 + v + i; }\n";
	struct devs d;
	cl_device_id two[2];
	cl_context c;
	cl_command_queue q0, qm;
	cl_program prog;
	cl_kernel k;
	cl_mem buf;
	cl_int err, v;
	int32_t *host = calloc(N, 4), want;
	size_t g = N, l = 64;
	int i, s;

	ASSERT_NE(NULL, host);
	get_devs(_metadata, &d);
	ASSERT_NE(NULL, d.multi);
	two[0] = d.multi;
	two[1] = d.all[0];
	c = clCreateContext(NULL, 2, two, NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	q0 = clCreateCommandQueue(c, d.all[0], 0, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	qm = clCreateCommandQueue(c, d.multi, 0, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	prog = clCreateProgramWithSource(c, 1, &src, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clBuildProgram(prog, 2, two, NULL, NULL, NULL));
	k = clCreateKernel(prog, "step", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	buf = clCreateBuffer(c, CL_MEM_COPY_HOST_PTR, N * 4, host, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(buf), &buf));
	/* GPU 0, the multi-GPU device, GPU 0: each after the other. */
	for (s = 0; s < 3; s++) {
		cl_command_queue q = s == 1 ? qm : q0;

		v = 7 + s;
		ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(v), &v));
		ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(q, k, 1, NULL, &g,
							     &l, 0, NULL,
							     NULL));
		ASSERT_EQ(CL_SUCCESS, clFinish(q));
	}
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(qm, buf, CL_TRUE, 0, N * 4,
						  host, 0, NULL, NULL));
	for (i = 0; i < N; i++) {
		want = 0;
		for (s = 0; s < 3; s++)
			want = (int32_t)((uint32_t)want * 3 + 7 + s + i);
		ASSERT_EQ(want, host[i]) TH_LOG("item %d", i);
	}
	clReleaseMemObject(buf);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	clReleaseCommandQueue(q0);
	clReleaseCommandQueue(qm);
	clReleaseContext(c);
	free(host);
}

TEST_HARNESS_MAIN
