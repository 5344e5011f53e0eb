// SPDX-License-Identifier: MIT
/*
 * y = a * x + y with OpenCL, as any OpenCL tutorial writes it: nothing
 * here is vmgpu's. Build and run (Documentation/opencl.rst):
 *
 *   cc -o saxpy opencl_saxpy.c $(pkg-config --cflags --libs OpenCL)
 *   OCL_ICD_VENDORS=build/opencl/vendors ./saxpy
 *
 * Prints the device, whether every value is right, and the kernel's time
 * from the event's profiling stamps.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <stdio.h>
#include <stdlib.h>
#include <CL/cl.h>

static const char *source =
	"kernel void saxpy(float a, global const float *x, global float *y)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	y[i] = a * x[i] + y[i];\n"
	"}\n";

#define CHECK(call)							\
	do {								\
		cl_int err_ = (call);					\
		if (err_ != CL_SUCCESS) {				\
			fprintf(stderr, "%s: error %d\n", #call, err_);	\
			return 1;					\
		}							\
	} while (0)

int main(void)
{
	enum { N = 1 << 16 };
	cl_platform_id platform;
	cl_device_id device;
	cl_context context;
	cl_command_queue queue;
	cl_program program;
	cl_kernel kernel;
	cl_mem xb, yb;
	cl_event done;
	cl_ulong start, end;
	cl_int err;
	float a = 2.0f, *x = malloc(N * sizeof(float));
	float *y = malloc(N * sizeof(float));
	size_t global = N, i, bad = 0;
	char name[128], log[4096];

	if (!x || !y)
		return 1;
	for (i = 0; i < N; i++) {
		x[i] = (float)i;
		y[i] = 1.0f;
	}
	CHECK(clGetPlatformIDs(1, &platform, NULL));
	CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &device,
			     NULL));
	CHECK(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof(name), name,
			      NULL));
	context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
	CHECK(err);
	queue = clCreateCommandQueue(context, device,
				     CL_QUEUE_PROFILING_ENABLE, &err);
	CHECK(err);
	program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
	CHECK(err);
	if (clBuildProgram(program, 1, &device, "", NULL, NULL)) {
		clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG,
				      sizeof(log), log, NULL);
		fprintf(stderr, "build failed:\n%s\n", log);
		return 1;
	}
	kernel = clCreateKernel(program, "saxpy", &err);
	CHECK(err);
	xb = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
			    N * sizeof(float), x, &err);
	CHECK(err);
	yb = clCreateBuffer(context, CL_MEM_READ_WRITE, N * sizeof(float),
			    NULL, &err);
	CHECK(err);
	CHECK(clEnqueueWriteBuffer(queue, yb, CL_TRUE, 0, N * sizeof(float),
				   y, 0, NULL, NULL));
	CHECK(clSetKernelArg(kernel, 0, sizeof(a), &a));
	CHECK(clSetKernelArg(kernel, 1, sizeof(xb), &xb));
	CHECK(clSetKernelArg(kernel, 2, sizeof(yb), &yb));
	CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0,
				     NULL, &done));
	CHECK(clEnqueueReadBuffer(queue, yb, CL_TRUE, 0, N * sizeof(float), y,
				  0, NULL, NULL));
	CHECK(clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_START,
				      sizeof(start), &start, NULL));
	CHECK(clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_END,
				      sizeof(end), &end, NULL));
	for (i = 0; i < N; i++)
		bad += y[i] != a * (float)i + 1.0f;
	printf("%s: %s, kernel %llu ns\n", name, bad ? "WRONG" : "right",
	       (unsigned long long)(end - start));
	clReleaseEvent(done);
	clReleaseMemObject(xb);
	clReleaseMemObject(yb);
	clReleaseKernel(kernel);
	clReleaseProgram(program);
	clReleaseCommandQueue(queue);
	clReleaseContext(context);
	free(x);
	free(y);
	return bad != 0;
}
