// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OpenCL platform (libshim/opencl) as a program sees it: through
 * Debian's ICD loader (libOpenCL), which finds the build's ICD with
 * OCL_ICD_VENDORS. Platform and device queries, contexts, and the errors
 * the OpenCL 1.2 specification names for bad arguments; the calls from
 * several threads at once.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "testcl.h"

TEST(platform_info)
{
	cl_platform_id p = the_platform(_metadata);
	char s[256];
	size_t n = 0;

	ASSERT_EQ(CL_SUCCESS, clGetPlatformInfo(p, CL_PLATFORM_NAME,
						sizeof(s), s, &n));
	EXPECT_STREQ("vmgpu", s);
	EXPECT_EQ(strlen(s) + 1, n);
	ASSERT_EQ(CL_SUCCESS, clGetPlatformInfo(p, CL_PLATFORM_VERSION,
						sizeof(s), s, NULL));
	/* pyopencl and others parse "OpenCL X.Y <space>". */
	EXPECT_EQ(0, strncmp(s, "OpenCL 1.2 vmgpu ", 17)) TH_LOG("%s", s);
	ASSERT_EQ(CL_SUCCESS, clGetPlatformInfo(p, CL_PLATFORM_PROFILE,
						sizeof(s), s, NULL));
	EXPECT_STREQ("FULL_PROFILE", s);
	ASSERT_EQ(CL_SUCCESS, clGetPlatformInfo(p, CL_PLATFORM_EXTENSIONS,
						sizeof(s), s, NULL));
	EXPECT_NE(NULL, strstr(s, "cl_khr_icd"));
	ASSERT_EQ(CL_SUCCESS, clGetPlatformInfo(p, CL_PLATFORM_ICD_SUFFIX_KHR,
						sizeof(s), s, NULL));
	EXPECT_STREQ("VMGPU", s);
	/* The size alone; a buffer too small; an unknown name. */
	ASSERT_EQ(CL_SUCCESS, clGetPlatformInfo(p, CL_PLATFORM_VENDOR, 0, NULL,
						&n));
	EXPECT_EQ(6, n);
	EXPECT_EQ(CL_INVALID_VALUE, clGetPlatformInfo(p, CL_PLATFORM_VENDOR, 3,
						      s, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clGetPlatformInfo(p, 0x12345, sizeof(s), s,
						      NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clGetPlatformIDs(0, &p, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clGetPlatformIDs(1, NULL, NULL));
}

TEST(devices_one_type_each)
{
	cl_platform_id p = the_platform(_metadata);
	cl_device_id d[16], def;
	cl_uint n = 0, i, ncpu = 0, ngpu = 0, m = 0;

	ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 16, d, &n));
	ASSERT_LE(1, n);
	for (i = 0; i < n; i++) {
		cl_device_type t = 0;
		cl_platform_id dp = NULL;

		ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(d[i], CL_DEVICE_TYPE,
						      sizeof(t), &t, NULL));
		EXPECT_TRUE(t == CL_DEVICE_TYPE_GPU || t == CL_DEVICE_TYPE_CPU)
			TH_LOG("device %u: type %#llx", i,
			       (unsigned long long)t);
		ncpu += t == CL_DEVICE_TYPE_CPU;
		ngpu += t == CL_DEVICE_TYPE_GPU;
		ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(d[i], CL_DEVICE_PLATFORM,
						      sizeof(dp), &dp, NULL));
		EXPECT_EQ(p, dp);
	}
	/* The runtime's CPU device is always there, last. */
	EXPECT_EQ(1, ncpu);
	ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 0, NULL,
					     &m));
	EXPECT_EQ(1, m);
	if (ngpu) {
		EXPECT_EQ(CL_SUCCESS, clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 0,
						     NULL, &m));
	} else {
		EXPECT_EQ(CL_DEVICE_NOT_FOUND,
			  clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 0, NULL, &m));
	}
	ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(p, CL_DEVICE_TYPE_DEFAULT, 1,
					     &def, &m));
	EXPECT_EQ(1, m);
	EXPECT_EQ(d[0], def);
	EXPECT_EQ(CL_INVALID_DEVICE_TYPE, clGetDeviceIDs(p, 1ull << 40, 1, d,
							 NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, d,
						   NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1,
						   NULL, NULL));
}

/* Every clGetDeviceInfo name of OpenCL 1.2, with the size of its value. */
static const struct {
	cl_device_info name;
	size_t size;			/* 0: a string */
} queries[] = {
	{ CL_DEVICE_TYPE, sizeof(cl_device_type) },
	{ CL_DEVICE_VENDOR_ID, sizeof(cl_uint) },
	{ CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cl_uint) },
	{ CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof(cl_uint) },
	{ CL_DEVICE_MAX_WORK_ITEM_SIZES, 3 * sizeof(size_t) },
	{ CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(size_t) },
	{ CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, sizeof(cl_uint) },
	{ CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, sizeof(cl_uint) },
	{ CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, sizeof(cl_uint) },
	{ CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, sizeof(cl_uint) },
	{ CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, sizeof(cl_uint) },
	{ CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, sizeof(cl_uint) },
	{ CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, sizeof(cl_uint) },
	{ CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, sizeof(cl_uint) },
	{ CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, sizeof(cl_uint) },
	{ CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, sizeof(cl_uint) },
	{ CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, sizeof(cl_uint) },
	{ CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, sizeof(cl_uint) },
	{ CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, sizeof(cl_uint) },
	{ CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, sizeof(cl_uint) },
	{ CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof(cl_uint) },
	{ CL_DEVICE_ADDRESS_BITS, sizeof(cl_uint) },
	{ CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(cl_ulong) },
	{ CL_DEVICE_IMAGE_SUPPORT, sizeof(cl_bool) },
	{ CL_DEVICE_MAX_READ_IMAGE_ARGS, sizeof(cl_uint) },
	{ CL_DEVICE_MAX_WRITE_IMAGE_ARGS, sizeof(cl_uint) },
	{ CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof(size_t) },
	{ CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof(size_t) },
	{ CL_DEVICE_IMAGE3D_MAX_WIDTH, sizeof(size_t) },
	{ CL_DEVICE_IMAGE3D_MAX_HEIGHT, sizeof(size_t) },
	{ CL_DEVICE_IMAGE3D_MAX_DEPTH, sizeof(size_t) },
	{ CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, sizeof(size_t) },
	{ CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, sizeof(size_t) },
	{ CL_DEVICE_MAX_SAMPLERS, sizeof(cl_uint) },
	{ CL_DEVICE_MAX_PARAMETER_SIZE, sizeof(size_t) },
	{ CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(cl_uint) },
	{ CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, sizeof(cl_uint) },
	{ CL_DEVICE_SINGLE_FP_CONFIG, sizeof(cl_device_fp_config) },
	{ CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(cl_device_fp_config) },
	{ CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, sizeof(cl_device_mem_cache_type) },
	{ CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, sizeof(cl_uint) },
	{ CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof(cl_ulong) },
	{ CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(cl_ulong) },
	{ CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, sizeof(cl_ulong) },
	{ CL_DEVICE_MAX_CONSTANT_ARGS, sizeof(cl_uint) },
	{ CL_DEVICE_LOCAL_MEM_TYPE, sizeof(cl_device_local_mem_type) },
	{ CL_DEVICE_LOCAL_MEM_SIZE, sizeof(cl_ulong) },
	{ CL_DEVICE_ERROR_CORRECTION_SUPPORT, sizeof(cl_bool) },
	{ CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof(cl_bool) },
	{ CL_DEVICE_PROFILING_TIMER_RESOLUTION, sizeof(size_t) },
	{ CL_DEVICE_ENDIAN_LITTLE, sizeof(cl_bool) },
	{ CL_DEVICE_AVAILABLE, sizeof(cl_bool) },
	{ CL_DEVICE_COMPILER_AVAILABLE, sizeof(cl_bool) },
	{ CL_DEVICE_LINKER_AVAILABLE, sizeof(cl_bool) },
	{ CL_DEVICE_EXECUTION_CAPABILITIES,
	  sizeof(cl_device_exec_capabilities) },
	{ CL_DEVICE_QUEUE_PROPERTIES, sizeof(cl_command_queue_properties) },
	{ CL_DEVICE_BUILT_IN_KERNELS, 0 },
	{ CL_DEVICE_PLATFORM, sizeof(cl_platform_id) },
	{ CL_DEVICE_NAME, 0 },
	{ CL_DEVICE_VENDOR, 0 },
	{ CL_DRIVER_VERSION, 0 },
	{ CL_DEVICE_PROFILE, 0 },
	{ CL_DEVICE_VERSION, 0 },
	{ CL_DEVICE_OPENCL_C_VERSION, 0 },
	{ CL_DEVICE_EXTENSIONS, 0 },
	{ CL_DEVICE_PRINTF_BUFFER_SIZE, sizeof(size_t) },
	{ CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, sizeof(cl_bool) },
	{ CL_DEVICE_PARENT_DEVICE, sizeof(cl_device_id) },
	{ CL_DEVICE_PARTITION_MAX_SUB_DEVICES, sizeof(cl_uint) },
	{ CL_DEVICE_PARTITION_PROPERTIES, sizeof(cl_device_partition_property) },
	{ CL_DEVICE_PARTITION_AFFINITY_DOMAIN,
	  sizeof(cl_device_affinity_domain) },
	{ CL_DEVICE_PARTITION_TYPE, sizeof(cl_device_partition_property) },
	{ CL_DEVICE_REFERENCE_COUNT, sizeof(cl_uint) },
};

TEST(every_device_query_of_1_2)
{
	cl_platform_id p = the_platform(_metadata);
	cl_device_id d[16];
	cl_uint n = 0, i, q;
	char buf[1024];

	ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 16, d, &n));
	for (i = 0; i < n; i++)
		for (q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
			size_t sz = 0;

			ASSERT_EQ(CL_SUCCESS,
				  clGetDeviceInfo(d[i], queries[q].name,
						  sizeof(buf), buf, &sz))
				TH_LOG("device %u query %#x", i,
				       queries[q].name);
			if (queries[q].size) {
				EXPECT_EQ(queries[q].size, sz)
					TH_LOG("query %#x", queries[q].name);
			} else {
				EXPECT_EQ(strlen(buf) + 1, sz)
					TH_LOG("query %#x", queries[q].name);
			}
		}
	/* The limits a program sizes its work by are the device's. */
	{
		cl_uint cu = 0, dims = 0;
		size_t wg = 0;
		cl_bool img = CL_TRUE;
		cl_ulong local = 0, alloc = 0, global = 0;

		clGetDeviceInfo(d[0], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cu),
				&cu, NULL);
		clGetDeviceInfo(d[0], CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS,
				sizeof(dims), &dims, NULL);
		clGetDeviceInfo(d[0], CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(wg),
				&wg, NULL);
		clGetDeviceInfo(d[0], CL_DEVICE_IMAGE_SUPPORT, sizeof(img),
				&img, NULL);
		clGetDeviceInfo(d[0], CL_DEVICE_LOCAL_MEM_SIZE, sizeof(local),
				&local, NULL);
		clGetDeviceInfo(d[0], CL_DEVICE_MAX_MEM_ALLOC_SIZE,
				sizeof(alloc), &alloc, NULL);
		clGetDeviceInfo(d[0], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(global),
				&global, NULL);
		EXPECT_LE(1, cu);
		EXPECT_EQ(3, dims);
		EXPECT_EQ(1024, wg);
		EXPECT_EQ(CL_FALSE, img);
		EXPECT_EQ(48 * 1024, local);
		EXPECT_LE(alloc, global);
		EXPECT_LE(128ull << 20, alloc);
	}
	EXPECT_EQ(CL_INVALID_VALUE, clGetDeviceInfo(d[0], 0x7fff, sizeof(buf),
						    buf, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clGetDeviceInfo(d[0], CL_DEVICE_NAME, 2,
						    buf, NULL));
	EXPECT_EQ(CL_INVALID_DEVICE, clGetDeviceInfo(NULL, CL_DEVICE_NAME,
						     sizeof(buf), buf, NULL));
}

TEST(context_lifetime_and_info)
{
	cl_platform_id p = the_platform(_metadata);
	cl_context_properties props[] = {
		CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0
	};
	cl_context_properties got[3];
	cl_device_id d[16], cd[16];
	cl_uint n = 0, refs = 0, nd = 0;
	cl_context c;
	cl_int err = 1;
	size_t sz = 0;

	ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 16, d, &n));
	c = clCreateContext(props, n, d, NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(CL_SUCCESS, clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES,
					       sizeof(nd), &nd, NULL));
	EXPECT_EQ(n, nd);
	ASSERT_EQ(CL_SUCCESS, clGetContextInfo(c, CL_CONTEXT_DEVICES,
					       sizeof(cd), cd, &sz));
	EXPECT_EQ(n * sizeof(cl_device_id), sz);
	EXPECT_EQ(0, memcmp(d, cd, sz));
	ASSERT_EQ(CL_SUCCESS, clGetContextInfo(c, CL_CONTEXT_PROPERTIES,
					       sizeof(got), got, &sz));
	EXPECT_EQ(sizeof(props), sz);
	EXPECT_EQ(0, memcmp(props, got, sz));
	ASSERT_EQ(CL_SUCCESS, clRetainContext(c));
	ASSERT_EQ(CL_SUCCESS, clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT,
					       sizeof(refs), &refs, NULL));
	EXPECT_EQ(2, refs);
	EXPECT_EQ(CL_SUCCESS, clReleaseContext(c));
	EXPECT_EQ(CL_SUCCESS, clReleaseContext(c));
	/* Another kind of object where a context is wanted. */
	EXPECT_EQ(CL_INVALID_CONTEXT, clRetainContext((cl_context)d[0]));
	EXPECT_EQ(CL_INVALID_DEVICE,
		  clGetDeviceInfo((cl_device_id)p, CL_DEVICE_NAME, 0, NULL,
				  &sz));

	c = clCreateContextFromType(NULL, CL_DEVICE_TYPE_CPU, NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(CL_SUCCESS, clReleaseContext(c));
}

static void CL_CALLBACK notify(const char *msg, const void *info, size_t n,
			       void *user)
{
}

TEST(context_errors)
{
	cl_platform_id p = the_platform(_metadata);
	cl_context_properties twice[] = {
		CL_CONTEXT_PLATFORM, (cl_context_properties)p,
		CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0
	};
	cl_context_properties unknown[] = { 0x7777, 1, 0 };
	cl_context_properties bad_platform[] = {
		CL_CONTEXT_PLATFORM, (cl_context_properties)0x1000, 0
	};
	cl_device_id d;
	cl_int err = 0;
	int user = 0;

	ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(p, CL_DEVICE_TYPE_DEFAULT, 1, &d,
					     NULL));
	EXPECT_EQ(NULL, clCreateContext(NULL, 0, &d, NULL, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateContext(NULL, 1, NULL, NULL, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateContext(NULL, 1, &d, NULL, &user, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(NULL, clCreateContext(twice, 1, &d, notify, &user, &err));
	EXPECT_EQ(CL_INVALID_PROPERTY, err);
	EXPECT_EQ(NULL, clCreateContext(unknown, 1, &d, NULL, NULL, &err));
	EXPECT_EQ(CL_INVALID_PROPERTY, err);
	EXPECT_EQ(NULL, clCreateContext(bad_platform, 1, &d, NULL, NULL,
					&err));
	EXPECT_EQ(CL_INVALID_PLATFORM, err);
	EXPECT_EQ(NULL, clCreateContextFromType(NULL, 1ull << 40, NULL, NULL,
						&err));
	EXPECT_EQ(CL_INVALID_DEVICE_TYPE, err);
	EXPECT_EQ(CL_INVALID_CONTEXT, clReleaseContext(NULL));
}

struct worker {
	cl_platform_id p;
	int failures;
};

static void *hammer(void *arg)
{
	struct worker *w = arg;
	cl_device_id d[16];
	cl_uint n = 0;
	char name[256];
	int i;

	for (i = 0; i < 200; i++) {
		cl_context c;
		cl_int err;

		if (clGetDeviceIDs(w->p, CL_DEVICE_TYPE_ALL, 16, d, &n) ||
		    clGetDeviceInfo(d[i % n], CL_DEVICE_NAME, sizeof(name),
				    name, NULL)) {
			w->failures++;
			continue;
		}
		c = clCreateContext(NULL, n, d, NULL, NULL, &err);
		if (err || clRetainContext(c)) {
			w->failures++;
			continue;
		}
		/* A queue and a buffer of its own, written and read back. */
		if (i % 10 == 0) {
			cl_command_queue q = clCreateCommandQueue(c, d[0], 0,
								  &err);
			cl_mem b = err ? NULL :
				   clCreateBuffer(c, 0, sizeof(name), NULL,
						  &err);
			char back[sizeof(name)];

			if (err ||
			    clEnqueueWriteBuffer(q, b, CL_TRUE, 0, sizeof(name),
						 name, 0, NULL, NULL) ||
			    clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof(back),
						back, 0, NULL, NULL) ||
			    memcmp(name, back, sizeof(back)))
				w->failures++;
			if (b)
				clReleaseMemObject(b);
			if (q)
				clReleaseCommandQueue(q);
		}
		if (clReleaseContext(c) || clReleaseContext(c))
			w->failures++;
	}
	return NULL;
}

/* OpenCL 1.2 calls are thread-safe (but clSetKernelArg on one kernel). */
TEST(calls_from_several_threads)
{
	cl_platform_id p = the_platform(_metadata);
	struct worker w[4];
	pthread_t t[4];
	int i;

	for (i = 0; i < 4; i++) {
		w[i] = (struct worker){ .p = p };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, hammer, &w[i]));
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, w[i].failures) TH_LOG("thread %d", i);
	}
}

static const char *saxpy_src =
	"kernel void saxpy(float a, global const float *x, global float *y)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	y[i] = a * x[i] + y[i];\n"
	"}\n";

TEST(kernel_runs_with_profiling_in_device_time)
{
	enum { N = 4096 };
	struct env e;
	cl_program prog;
	cl_kernel k;
	cl_mem xb, yb;
	cl_event ev;
	cl_ulong t[4];
	cl_int err, st = 1;
	float a = 3.0f, x[N], y[N];
	size_t global = N, local = 64, i;
	cl_uint nargs = 0;
	char name[32];

	env_open(_metadata, &e, CL_QUEUE_PROFILING_ENABLE);
	for (i = 0; i < N; i++) {
		x[i] = (float)i;
		y[i] = 0.5f;
	}
	k = build_kernel(_metadata, &e, saxpy_src, "saxpy", &prog);
	ASSERT_NE(NULL, k);
	ASSERT_EQ(CL_SUCCESS, clGetKernelInfo(k, CL_KERNEL_NUM_ARGS,
					      sizeof(nargs), &nargs, NULL));
	EXPECT_EQ(3, nargs);
	ASSERT_EQ(CL_SUCCESS, clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME,
					      sizeof(name), name, NULL));
	EXPECT_STREQ("saxpy", name);
	xb = clCreateBuffer(e.c, CL_MEM_COPY_HOST_PTR, sizeof(x), x, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	yb = clCreateBuffer(e.c, CL_MEM_COPY_HOST_PTR, sizeof(y), y, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(a), &a));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(xb), &xb));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof(yb), &yb));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global,
						     &local, 0, NULL, &ev));
	/* In order: the read sees the kernel's result. */
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, yb, CL_TRUE, 0,
						  sizeof(y), y, 0, NULL, NULL));
	for (i = 0; i < N; i++)
		ASSERT_EQ(a * (float)i + 0.5f, y[i]) TH_LOG("y[%zu]", i);
	ASSERT_EQ(CL_SUCCESS, clGetEventInfo(ev,
					     CL_EVENT_COMMAND_EXECUTION_STATUS,
					     sizeof(st), &st, NULL));
	EXPECT_EQ(CL_COMPLETE, st);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(CL_SUCCESS,
			  clGetEventProfilingInfo(ev,
						  CL_PROFILING_COMMAND_QUEUED + i,
						  sizeof(t[i]), &t[i], NULL));
	EXPECT_LE(t[0], t[1]);
	EXPECT_LE(t[1], t[2]);
	EXPECT_LT(t[2], t[3]);
	clReleaseEvent(ev);
	clReleaseMemObject(xb);
	clReleaseMemObject(yb);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	env_close(&e);
}

/* The runtime pitfall of issue 23: a static local array and a __local
 * argument in one kernel. */
TEST(local_argument_beside_static_local_memory)
{
	static const char *src =
		"kernel void lsum(global const int *in, global int *out,\n"
		"                 local int *scratch)\n"
		"{\n"
		"	local int fixed[64];\n"
		"	int l = get_local_id(0), g = get_global_id(0);\n"
		"	fixed[l] = 1000;\n"
		"	scratch[l] = in[g];\n"
		"	barrier(CLK_LOCAL_MEM_FENCE);\n"
		"	out[g] = scratch[63 - l] + fixed[63 - l];\n"
		"}\n";
	enum { N = 1024 };
	struct env e;
	cl_program prog;
	cl_kernel k;
	cl_mem ib, ob;
	cl_int err, in[N], out[N];
	size_t global = N, local = 64, i;

	env_open(_metadata, &e, 0);
	for (i = 0; i < N; i++)
		in[i] = (cl_int)i;
	k = build_kernel(_metadata, &e, src, "lsum", &prog);
	ASSERT_NE(NULL, k);
	ib = clCreateBuffer(e.c, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY,
			    sizeof(in), in, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ob = clCreateBuffer(e.c, CL_MEM_WRITE_ONLY, sizeof(out), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(ib), &ib));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(ob), &ob));
	/* A local argument takes a size and no value. */
	EXPECT_EQ(CL_INVALID_ARG_VALUE, clSetKernelArg(k, 2, 64 * 4, in));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, 64 * 4, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global,
						     &local, 0, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, ob, CL_TRUE, 0,
						  sizeof(out), out, 0, NULL,
						  NULL));
	for (i = 0; i < N; i++)
		ASSERT_EQ((cl_int)(i / 64 * 64 + 63 - i % 64) + 1000, out[i])
			TH_LOG("out[%zu]", i);
	clReleaseMemObject(ib);
	clReleaseMemObject(ob);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	env_close(&e);
}

/*
 * An unused __local parameter is still a local one (the signature types
 * it; the runtime once guessed from the code, and an unused one looked
 * like an int), and an int parameter is an int: the kernel runs.
 */
TEST(unused_local_argument)
{
	static const char *src =
		"__kernel void k(__global int *a, __local int *l, int v)\n"
		"{\n"
		"	a[0] = v;\n"
		"}\n";
	struct env e;
	cl_program prog;
	cl_kernel k;
	cl_mem ab;
	cl_int err, v = 42, got = 0;
	size_t global = 1;

	env_open(_metadata, &e, 0);
	k = build_kernel(_metadata, &e, src, "k", &prog);
	ASSERT_NE(NULL, k);
	ab = clCreateBuffer(e.c, CL_MEM_READ_WRITE, sizeof(got), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(ab), &ab));
	EXPECT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, 16, NULL));
	EXPECT_EQ(CL_INVALID_ARG_VALUE, clSetKernelArg(k, 1, 16, &v));
	EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 1, 0, NULL));
	EXPECT_EQ(CL_INVALID_ARG_VALUE, clSetKernelArg(k, 2, sizeof(v), NULL));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof(v), &v));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global,
						     NULL, 0, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, ab, CL_TRUE, 0,
						  sizeof(got), &got, 0, NULL,
						  NULL));
	EXPECT_EQ(42, got);
	clReleaseMemObject(ab);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	env_close(&e);
}

TEST(kernel_and_launch_errors)
{
	struct env e;
	cl_program prog, bad;
	cl_kernel k;
	cl_mem b;
	cl_int err;
	float a = 1.0f;
	size_t global = 100, local = 64, size = 0, zero = 0;
	cl_build_status st = CL_BUILD_NONE;
	char log[4096] = "";
	const char *broken = "kernel void k(global int *p) { p[0] = q; }\n";

	env_open(_metadata, &e, 0);
	k = build_kernel(_metadata, &e, saxpy_src, "saxpy", &prog);
	ASSERT_NE(NULL, k);
	b = clCreateBuffer(e.c, 0, 4096 * 4, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(CL_INVALID_ARG_INDEX, clSetKernelArg(k, 3, sizeof(a), &a));
	EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 0, 8, &a));
	EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 1, 4, &b));
	EXPECT_EQ(CL_INVALID_MEM_OBJECT, clSetKernelArg(k, 1, sizeof(cl_mem),
							&e.q));
	/* Arguments missing. */
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(a), &a));
	EXPECT_EQ(CL_INVALID_KERNEL_ARGS,
		  clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global, NULL, 0,
					 NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(b), &b));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof(b), &b));
	EXPECT_EQ(CL_INVALID_WORK_GROUP_SIZE,
		  clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global, &local, 0,
					 NULL, NULL));
	EXPECT_EQ(CL_INVALID_WORK_DIMENSION,
		  clEnqueueNDRangeKernel(e.q, k, 0, NULL, &global, NULL, 0,
					 NULL, NULL));
	EXPECT_EQ(CL_INVALID_GLOBAL_WORK_SIZE,
		  clEnqueueNDRangeKernel(e.q, k, 1, NULL, &zero, NULL, 0, NULL,
					 NULL));
	EXPECT_EQ(CL_INVALID_EVENT_WAIT_LIST,
		  clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global, NULL, 1,
					 NULL, NULL));
	EXPECT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global,
						     NULL, 0, NULL, NULL));
	EXPECT_EQ(CL_SUCCESS, clFinish(e.q));
	EXPECT_EQ(NULL, clCreateKernel(prog, "nosuch", &err));
	EXPECT_EQ(CL_INVALID_KERNEL_NAME, err);
	/* A build failure: its log says where. */
	bad = clCreateProgramWithSource(e.c, 1, &broken, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE,
		  clBuildProgram(bad, 0, NULL, NULL, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(bad, e.d,
						    CL_PROGRAM_BUILD_STATUS,
						    sizeof(st), &st, NULL));
	EXPECT_EQ(CL_BUILD_ERROR, st);
	ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(bad, e.d,
						    CL_PROGRAM_BUILD_LOG,
						    sizeof(log), log, &size));
	EXPECT_NE(NULL, strstr(log, "error")) TH_LOG("log: %s", log);
	EXPECT_EQ(NULL, clCreateKernel(bad, "k", &err));
	EXPECT_EQ(CL_INVALID_PROGRAM_EXECUTABLE, err);
	EXPECT_EQ(NULL, clCreateProgramWithSource(e.c, 0, &broken, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	clReleaseProgram(bad);
	clReleaseMemObject(b);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	env_close(&e);
}

static int destroyed[2], order;

static void CL_CALLBACK on_destroy(cl_mem m, void *user)
{
	destroyed[(intptr_t)user] = ++order;
}

TEST(buffer_commands)
{
	enum { N = 1024 };
	struct env e;
	cl_int err, host[N], got[N], pattern = 0x5a5a5a5a;
	cl_mem a, b, u;
	cl_uint maps = 9;
	cl_int *m;
	size_t i;

	env_open(_metadata, &e, 0);
	for (i = 0; i < N; i++)
		host[i] = (cl_int)i;
	a = clCreateBuffer(e.c, CL_MEM_COPY_HOST_PTR, sizeof(host), host, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	b = clCreateBuffer(e.c, 0, sizeof(host), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clEnqueueCopyBuffer(e.q, a, b, 4, 0, 400, 0, NULL,
						  NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, b, CL_TRUE, 0, 400, got,
						  0, NULL, NULL));
	for (i = 0; i < 100; i++)
		ASSERT_EQ((cl_int)i + 1, got[i]);
	ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(e.q, b, &pattern, 4, 8, 16, 0,
						  NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, b, CL_TRUE, 0, 32, got,
						  0, NULL, NULL));
	EXPECT_EQ(1, got[0]);
	EXPECT_EQ(pattern, got[2]);
	EXPECT_EQ(pattern, got[5]);
	EXPECT_EQ(7, got[6]);
	/* Maps: the buffer's bytes, and writes through one land. */
	m = clEnqueueMapBuffer(e.q, a, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 16,
			       64, 0, NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(4, m[0]);
	ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(a, CL_MEM_MAP_COUNT,
						 sizeof(maps), &maps, NULL));
	EXPECT_EQ(1, maps);
	m[1] = -5;
	ASSERT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(e.q, a, m, 0, NULL,
						      NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueUnmapMemObject(e.q, a, m, 0, NULL,
							    NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, a, CL_TRUE, 20, 4, got,
						  0, NULL, NULL));
	EXPECT_EQ(-5, got[0]);
	/* CL_MEM_USE_HOST_PTR: a map hands out the program's memory. */
	u = clCreateBuffer(e.c, CL_MEM_USE_HOST_PTR, sizeof(host), host, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	m = clEnqueueMapBuffer(e.q, u, CL_TRUE, CL_MAP_READ, 0, sizeof(host), 0,
			       NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ((void *)host, (void *)m);
	ASSERT_EQ(CL_SUCCESS, clEnqueueUnmapMemObject(e.q, u, m, 0, NULL,
						      NULL));
	/* Errors. */
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueReadBuffer(e.q, a, CL_TRUE, 4,
							sizeof(host), got, 0,
							NULL, NULL));
	EXPECT_EQ(CL_MEM_COPY_OVERLAP, clEnqueueCopyBuffer(e.q, a, a, 0, 8, 16,
							   0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clEnqueueFillBuffer(e.q, a, &pattern, 3, 0,
							12, 0, NULL, NULL));
	EXPECT_EQ(NULL, clCreateBuffer(e.c, 0, 0, NULL, &err));
	EXPECT_EQ(CL_INVALID_BUFFER_SIZE, err);
	EXPECT_EQ(NULL, clCreateBuffer(e.c, CL_MEM_COPY_HOST_PTR, 4, NULL,
				       &err));
	EXPECT_EQ(CL_INVALID_HOST_PTR, err);
	EXPECT_EQ(NULL, clCreateBuffer(e.c, CL_MEM_READ_ONLY |
				       CL_MEM_WRITE_ONLY, 4, NULL, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	EXPECT_EQ(CL_INVALID_MEM_OBJECT,
		  clEnqueueReadBuffer(e.q, (cl_mem)e.q, CL_TRUE, 0, 4, got, 0,
				      NULL, NULL));
	/* Destructor callbacks, the last registered first, at the free. */
	ASSERT_EQ(CL_SUCCESS, clSetMemObjectDestructorCallback(b, on_destroy,
							       (void *)0));
	ASSERT_EQ(CL_SUCCESS, clSetMemObjectDestructorCallback(b, on_destroy,
							       (void *)1));
	EXPECT_EQ(0, destroyed[0]);
	clReleaseMemObject(b);
	EXPECT_EQ(2, destroyed[0]);
	EXPECT_EQ(1, destroyed[1]);
	clReleaseMemObject(a);
	clReleaseMemObject(u);
	env_close(&e);
}

TEST(sub_buffers_rects_and_null_arguments)
{
	static const char *src =
		"kernel void twice(global int *p, global int *unused)\n"
		"{\n"
		"	int i = get_global_id(0);\n"
		"	if (!unused)\n"
		"		p[i] *= 2;\n"
		"}\n";
	enum { N = 4096, W = 16, H = 8 };
	struct env e;
	cl_program prog;
	cl_kernel k;
	cl_buffer_region reg = { .origin = 4096, .size = 1024 * 4 };
	cl_int err, *host = malloc(N * 4), got[W * H];
	cl_mem b, sub, none = NULL, assoc = NULL;
	size_t off = 0, global = 1024, i, x, y;
	size_t bo[3] = { 4, 2, 0 }, ho[3] = { 0, 0, 0 }, region[3] = { 8, 3, 1 };

	ASSERT_NE(NULL, host);
	env_open(_metadata, &e, 0);
	for (i = 0; i < N; i++)
		host[i] = (cl_int)i;
	b = clCreateBuffer(e.c, CL_MEM_COPY_HOST_PTR, N * 4, host, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	/* A sub-buffer: its own offset; a kernel on it sees its range. */
	sub = clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(sub, CL_MEM_OFFSET,
						 sizeof(off), &off, NULL));
	EXPECT_EQ(4096, off);
	ASSERT_EQ(CL_SUCCESS, clGetMemObjectInfo(sub,
						 CL_MEM_ASSOCIATED_MEMOBJECT,
						 sizeof(assoc), &assoc, NULL));
	EXPECT_EQ(b, assoc);
	k = build_kernel(_metadata, &e, src, "twice", &prog);
	ASSERT_NE(NULL, k);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(sub), &sub));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(cl_mem), &none));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global,
						     NULL, 0, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, b, CL_TRUE, 0, N * 4,
						  host, 0, NULL, NULL));
	for (i = 0; i < N; i++)
		ASSERT_EQ((cl_int)(i >= 1024 && i < 2048 ? 2 * i : i), host[i])
			TH_LOG("host[%zu]", i);
	/* Misaligned start, past the end, of a sub-buffer: refused. */
	reg.origin = 4;
	EXPECT_EQ(NULL, clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION,
					  &reg, &err));
	EXPECT_EQ(CL_MISALIGNED_SUB_BUFFER_OFFSET, err);
	reg.origin = N * 4;
	EXPECT_EQ(NULL, clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION,
					  &reg, &err));
	EXPECT_EQ(CL_INVALID_VALUE, err);
	/* A rectangle: rows of W ints, 8 of them from (4, 2). */
	memset(got, 0, sizeof(got));
	bo[0] = 4 * 4;
	region[0] = 8 * 4;
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBufferRect(e.q, b, CL_TRUE, bo, ho,
						      region, W * 4, 0, 8 * 4,
						      0, got, 0, NULL, NULL));
	for (y = 0; y < 3; y++)
		for (x = 0; x < 8; x++)
			ASSERT_EQ((cl_int)((2 + y) * W + 4 + x),
				  got[y * 8 + x]);
	ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBufferRect(e.q, b, CL_TRUE, bo, ho,
						       region, W * 4, 0, 8 * 4,
						       0, got, 0, NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueReadBufferRect(e.q, b, CL_TRUE, bo, ho, region, 4,
					  0, 8 * 4, 0, got, 0, NULL, NULL));
	/*
	 * One buffer, rows interleaved: the byte ranges of the two regions
	 * cross but no byte is in both, so the copy is allowed; one row in
	 * both is an overlap.
	 */
	{
		size_t so[3] = { 0, 0, 0 }, to[3] = { 0, 1, 0 };
		size_t rg[3] = { 16, 1, 4 };

		EXPECT_EQ(CL_SUCCESS,
			  clEnqueueCopyBufferRect(e.q, b, b, so, to, rg, 64,
						  128, 64, 128, 0, NULL, NULL));
		to[1] = 0;
		to[2] = 1;
		EXPECT_EQ(CL_MEM_COPY_OVERLAP,
			  clEnqueueCopyBufferRect(e.q, b, b, so, to, rg, 64,
						  128, 64, 128, 0, NULL, NULL));
	}
	clReleaseKernel(k);
	clReleaseProgram(prog);
	/* The sub-buffer keeps its buffer alive. */
	clReleaseMemObject(b);
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, sub, CL_TRUE, 0, 4, got,
						  0, NULL, NULL));
	EXPECT_EQ(2048, got[0]);
	clReleaseMemObject(sub);
	free(host);
	env_close(&e);
}

/* char, uchar, short arguments: OpenCL's sizes, extended by their sign. */
TEST(narrow_scalar_arguments)
{
	static const char *src =
		"kernel void narrow(global int *o, char t, uchar u, short s)\n"
		"{\n"
		"	o[0] = t;\n"
		"	o[1] = u;\n"
		"	o[2] = s;\n"
		"}\n";
	struct env e;
	cl_program prog;
	cl_kernel k;
	cl_mem b;
	cl_int err, o[3] = { 0, 0, 0 }, wide = 7;
	cl_char t = -5;
	cl_uchar u = 250;
	cl_short sh = -300;
	size_t one = 1;

	env_open(_metadata, &e, 0);
	k = build_kernel(_metadata, &e, src, "narrow", &prog);
	ASSERT_NE(NULL, k);
	b = clCreateBuffer(e.c, 0, sizeof(o), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(b), &b));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(t), &t));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof(u), &u));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 3, sizeof(sh), &sh));
	EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 3, 1, &sh));
	EXPECT_EQ(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 1, 8, &wide));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(e.q, k, 1, NULL, &one,
						     &one, 0, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, b, CL_TRUE, 0,
						  sizeof(o), o, 0, NULL, NULL));
	EXPECT_EQ(-5, o[0]);
	EXPECT_EQ(250, o[1]);
	EXPECT_EQ(-300, o[2]);
	clReleaseMemObject(b);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	env_close(&e);
}

/*
 * A kernel without arguments runs (its dispatch has no argument address),
 * and releasing its queue still completes it (the release flushes).
 */
TEST(kernel_without_arguments_completes_after_queue_release)
{
	static const char *src = "kernel void nothing(void) {}\n";
	struct env e;
	cl_program prog;
	cl_kernel k;
	cl_event ev;
	cl_int st = 1;
	size_t one = 1;

	env_open(_metadata, &e, 0);
	k = build_kernel(_metadata, &e, src, "nothing", &prog);
	ASSERT_NE(NULL, k);
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(e.q, k, 1, NULL, &one,
						     NULL, 0, NULL, &ev));
	ASSERT_EQ(CL_SUCCESS, clReleaseCommandQueue(e.q));
	ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &ev));
	ASSERT_EQ(CL_SUCCESS, clGetEventInfo(ev,
					     CL_EVENT_COMMAND_EXECUTION_STATUS,
					     sizeof(st), &st, NULL));
	EXPECT_EQ(CL_COMPLETE, st);
	clReleaseEvent(ev);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	clReleaseContext(e.c);
}

TEST_HARNESS_MAIN
