// SPDX-License-Identifier: GPL-2.0-only
/*
 * OpenCL C's printf through the ICD loader (Documentation/opencl.rst,
 * compiler.rst "printf"): CL_DEVICE_PRINTF_BUFFER_SIZE is the full
 * profile's 1 MiB on every device; the hidden buffer is no argument
 * (CL_KERNEL_NUM_ARGS); a kernel's output is on standard output when
 * clWaitForEvents or clFinish returns, its event CL_COMPLETE; on the
 * GPUs and the CPU device.
 */
#include <stdio.h>
#include <string.h>

#include "testcapture.h"
#include "testcl.h"

static const char *src =
	"kernel void k(global int *r, int base)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	r[i] = printf(\"%d:%v2hlf:%s\\n\", base + i,\n"
	"		(float2)(i, 0.5f), \"end\");\n"
	"}\n";

/* The lines written, counted and checked: "base+i:i.000000,0.500000:end". */
static int lines_ok(struct capture *c, int base, int n)
{
	char *text = capture_end(c, NULL), *line, *save = NULL;
	int seen = 0, i, ok = 0;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char want[128];

		if (sscanf(line, "%d:", &i) != 1 || i < base || i >= base + n)
			continue;
		snprintf(want, sizeof(want), "%d:%f,%f:end", i,
			 (double)(i - base), 0.5);
		if (!strcmp(line, want))
			ok++;
		seen++;
	}
	free(text);
	return ok == seen ? ok : -1;
}

TEST(printf_on_every_device)
{
	cl_platform_id p = the_platform(_metadata);
	cl_device_id devs[8];
	cl_uint nd = 0, d;

	ASSERT_EQ(CL_SUCCESS, clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 8, devs,
					     &nd));
	for (d = 0; d < nd; d++) {
		enum { N = 64 };
		cl_int err, st = 0, r[N];
		cl_uint nargs = 0;
		size_t size = 0, n = N;
		struct capture c;
		cl_context ctx;
		cl_command_queue q;
		cl_program prog;
		cl_kernel k;
		cl_event ev;
		cl_mem buf;
		int base, i;

		ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(devs[d],
				CL_DEVICE_PRINTF_BUFFER_SIZE, sizeof(size),
				&size, NULL));
		EXPECT_LE(1u << 20, size);
		ctx = clCreateContext(NULL, 1, &devs[d], NULL, NULL, &err);
		ASSERT_EQ(CL_SUCCESS, err);
		q = clCreateCommandQueue(ctx, devs[d], 0, &err);
		ASSERT_EQ(CL_SUCCESS, err);
		prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
		ASSERT_EQ(CL_SUCCESS, clBuildProgram(prog, 1, &devs[d], NULL,
						     NULL, NULL));
		k = clCreateKernel(prog, "k", &err);
		ASSERT_EQ(CL_SUCCESS, err);
		ASSERT_EQ(CL_SUCCESS, clGetKernelInfo(k, CL_KERNEL_NUM_ARGS,
						      sizeof(nargs), &nargs,
						      NULL));
		EXPECT_EQ(2u, nargs);
		buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(r), NULL,
				     &err);
		ASSERT_EQ(CL_SUCCESS, err);
		ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(buf), &buf));

		/* clWaitForEvents: the output is there, the event complete */
		base = 1000 * (int)(d + 1);
		ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(base), &base));
		capture_start(&c);
		err = clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL,
					     &ev);
		if (!err)
			err = clWaitForEvents(1, &ev);
		i = lines_ok(&c, base, N);
		ASSERT_EQ(CL_SUCCESS, err);
		EXPECT_EQ(N, i) TH_LOG("device %u", d);
		EXPECT_EQ(CL_SUCCESS, clGetEventInfo(ev,
				CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st),
				&st, NULL));
		EXPECT_EQ(CL_COMPLETE, st);
		clReleaseEvent(ev);
		ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(q, buf, CL_TRUE, 0,
							  sizeof(r), r, 0,
							  NULL, NULL));
		for (i = 0; i < N; i++)
			if (r[i])
				break;
		EXPECT_EQ(N, i) TH_LOG("printf returned %d", r[i]);

		/* clFinish: the same */
		base += 500;
		ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(base), &base));
		capture_start(&c);
		err = clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL,
					     NULL);
		if (!err)
			err = clFinish(q);
		i = lines_ok(&c, base, N);
		ASSERT_EQ(CL_SUCCESS, err);
		EXPECT_EQ(N, i) TH_LOG("device %u", d);

		clReleaseMemObject(buf);
		clReleaseKernel(k);
		clReleaseProgram(prog);
		clReleaseCommandQueue(q);
		clReleaseContext(ctx);
	}
}

TEST_HARNESS_MAIN
