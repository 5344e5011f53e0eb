// SPDX-License-Identifier: GPL-2.0-only
/*
 * The multi-GPU OpenCL device against one GPU (Documentation/opencl.rst,
 * "The multi-GPU device"; benchmarks.rst): unmodified OpenCL programs —
 * a tiled matrix multiply, an n-body step, a 2-D heat stencil, saxpy —
 * each run on GPU 0 and on the multi-GPU device in one process, through
 * the ICD loader, with the kernel's device time (CL_PROFILING_COMMAND_END
 * - START, the virtual clock of the device model) side by side and the
 * ratio; every output buffer is compared byte for byte between the two.
 * The second of two runs is timed (the first loads the kernel and gives
 * the runtime its history). Exit status 1 if an output differs.
 *
 *   OCL_ICD_VENDORS=build/opencl/vendors build/bench/opencl-multigpu [scale]
 *
 * scale (1..8, default 4) multiplies the problem sizes.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CL/cl.h>

#define MAXARGS 6

struct karg {
	size_t bytes;		/* a buffer's (a __local one's); 0: a scalar */
	const void *init;	/* a buffer's contents, NULL: zeroes */
	bool local;
	uint32_t scalar;	/* int or float bits */
};

struct prog {
	const char *what, *src, *name;
	cl_uint nargs, dim;
	struct karg a[MAXARGS];
	size_t global[2], local[2];
};

static void die(const char *what, cl_int err)
{
	fprintf(stderr, "opencl-multigpu: %s: error %d\n", what, err);
	exit(2);
}

#define CHECK(call) do { cl_int e_ = (call); if (e_) die(#call, e_); } while (0)

/* Run @pg twice on @dev; the second run's device time, its buffers. */
static cl_ulong run(cl_device_id dev, const struct prog *pg, void **out)
{
	cl_mem m[MAXARGS] = { NULL };
	cl_context c;
	cl_command_queue q;
	cl_program p;
	cl_kernel k;
	cl_event ev;
	cl_ulong t0, t1;
	const char *src = pg->src;
	char log[4096];
	cl_int err;
	cl_uint i, round;

	c = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	if (err)
		die("clCreateContext", err);
	q = clCreateCommandQueue(c, dev, CL_QUEUE_PROFILING_ENABLE, &err);
	if (err)
		die("clCreateCommandQueue", err);
	p = clCreateProgramWithSource(c, 1, &src, NULL, &err);
	if (err)
		die("clCreateProgramWithSource", err);
	if (clBuildProgram(p, 1, &dev, NULL, NULL, NULL)) {
		clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof(log),
				      log, NULL);
		fprintf(stderr, "%s: %s\n", pg->name, log);
		exit(2);
	}
	k = clCreateKernel(p, pg->name, &err);
	if (err)
		die("clCreateKernel", err);
	for (round = 0; round < 2; round++) {
		for (i = 0; i < pg->nargs; i++) {
			const struct karg *a = &pg->a[i];

			if (a->local) {
				CHECK(clSetKernelArg(k, i, a->bytes, NULL));
				continue;
			}
			if (!a->bytes) {
				CHECK(clSetKernelArg(k, i, 4, &a->scalar));
				continue;
			}
			if (!out[i] && !(out[i] = calloc(1, a->bytes)))
				die("calloc", CL_OUT_OF_HOST_MEMORY);
			if (a->init)
				memcpy(out[i], a->init, a->bytes);
			else
				memset(out[i], 0, a->bytes);
			if (m[i])
				clReleaseMemObject(m[i]);
			m[i] = clCreateBuffer(c, CL_MEM_COPY_HOST_PTR, a->bytes,
					      out[i], &err);
			if (err)
				die("clCreateBuffer", err);
			CHECK(clSetKernelArg(k, i, sizeof(m[i]), &m[i]));
		}
		CHECK(clEnqueueNDRangeKernel(q, k, pg->dim, NULL, pg->global,
					     pg->local, 0, NULL, &ev));
		CHECK(clWaitForEvents(1, &ev));
		CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START,
					      sizeof(t0), &t0, NULL));
		CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END,
					      sizeof(t1), &t1, NULL));
		clReleaseEvent(ev);
	}
	for (i = 0; i < pg->nargs; i++)
		if (m[i]) {
			CHECK(clEnqueueReadBuffer(q, m[i], CL_TRUE, 0,
						  pg->a[i].bytes, out[i], 0,
						  NULL, NULL));
			clReleaseMemObject(m[i]);
		}
	clReleaseKernel(k);
	clReleaseProgram(p);
	clReleaseCommandQueue(q);
	clReleaseContext(c);
	return t1 - t0;
}

static uint32_t seed = 1;

static float *floats(size_t n)
{
	float *f = malloc(n * sizeof(*f));
	size_t i;

	if (!f)
		die("malloc", CL_OUT_OF_HOST_MEMORY);
	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		f[i] = (float)((seed >> 8) % 2000001) / 1000000.0f - 1.0f;
	}
	return f;
}

static uint32_t fbits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

#define TILE 16

static const char matmul_src[] =
	"#define TILE 16\n"
	"kernel void matmul(global const float *a, global const float *b,\n"
	"                   global float *c, int n)\n"
	"{\n"
	"	local float ta[TILE][TILE], tb[TILE][TILE];\n"
	"	int lx = get_local_id(0), ly = get_local_id(1);\n"
	"	int col = get_global_id(0), row = get_global_id(1), t, k;\n"
	"	float s = 0.0f;\n"
	"	for (t = 0; t < n; t += TILE) {\n"
	"		ta[ly][lx] = a[row * n + t + lx];\n"
	"		tb[ly][lx] = b[(t + ly) * n + col];\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		for (k = 0; k < TILE; k++)\n"
	"			s += ta[ly][k] * tb[k][lx];\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	}\n"
	"	c[row * n + col] = s;\n"
	"}\n";

static const char nbody_src[] =
	"kernel void nbody(global const float *pos, global const float *vel,\n"
	"                  global float *npos, global float *nvel, int n,\n"
	"                  float dt)\n"
	"{\n"
	"	int i = get_global_id(0), j;\n"
	"	float x = pos[4 * i], y = pos[4 * i + 1], z = pos[4 * i + 2];\n"
	"	float ax = 0.0f, ay = 0.0f, az = 0.0f;\n"
	"	for (j = 0; j < n; j++) {\n"
	"		float dx = pos[4 * j] - x, dy = pos[4 * j + 1] - y;\n"
	"		float dz = pos[4 * j + 2] - z;\n"
	"		float d2 = dx * dx + dy * dy + dz * dz + 0.01f;\n"
	"		float inv = 1.0f / sqrt(d2);\n"
	"		float f = pos[4 * j + 3] * inv * inv * inv;\n"
	"		ax += f * dx;\n"
	"		ay += f * dy;\n"
	"		az += f * dz;\n"
	"	}\n"
	"	nvel[4 * i] = vel[4 * i] + dt * ax;\n"
	"	nvel[4 * i + 1] = vel[4 * i + 1] + dt * ay;\n"
	"	nvel[4 * i + 2] = vel[4 * i + 2] + dt * az;\n"
	"	nvel[4 * i + 3] = 0.0f;\n"
	"	npos[4 * i] = x + dt * nvel[4 * i];\n"
	"	npos[4 * i + 1] = y + dt * nvel[4 * i + 1];\n"
	"	npos[4 * i + 2] = z + dt * nvel[4 * i + 2];\n"
	"	npos[4 * i + 3] = pos[4 * i + 3];\n"
	"}\n";

static const char heat_src[] =
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

static const char saxpy_src[] =
	"kernel void saxpy(float a, global const float *x, global float *y)\n"
	"{\n"
	"	int i = get_global_id(0);\n"
	"	y[i] = a * x[i] + y[i];\n"
	"}\n";

/* The device whose name says "as one", and GPU 0 (the first). */
static void devices(cl_device_id *gpu0, cl_device_id *multi, char *name,
		    size_t len)
{
	cl_platform_id p;
	cl_device_id d[16];
	cl_uint n, i;

	CHECK(clGetPlatformIDs(1, &p, NULL));
	CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 16, d, &n));
	*gpu0 = d[0];
	*multi = NULL;
	for (i = 0; i < n && i < 16; i++) {
		clGetDeviceInfo(d[i], CL_DEVICE_NAME, len, name, NULL);
		if (strstr(name, "as one")) {
			*multi = d[i];
			return;
		}
	}
	fprintf(stderr, "opencl-multigpu: no multi-GPU device (one GPU?)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 4;
	cl_device_id gpu0, multi;
	char name[128], name0[128];
	int rc = 0;
	size_t i;

	if (scale < 1 || scale > 8) {
		fprintf(stderr, "usage: %s [scale 1..8]\n", argv[0]);
		return 2;
	}
	devices(&gpu0, &multi, name, sizeof(name));
	clGetDeviceInfo(gpu0, CL_DEVICE_NAME, sizeof(name0), name0, NULL);
	{
		const int mn = 64 * scale, nb = 512 * scale;
		const int w = 256 * scale, h = 256 * scale;
		const int sn = 64 * 1024 * scale;
		float *ma = floats((size_t)mn * mn), *mb = floats((size_t)mn * mn);
		float *pos = floats((size_t)nb * 4), *vel = floats((size_t)nb * 4);
		float *img = floats((size_t)w * h), *sx = floats(sn);
		float *sy = floats(sn);
		struct prog progs[] = {
			{ "matrix multiply, tiled", matmul_src, "matmul", 4, 2,
			  { { .bytes = (size_t)mn * mn * 4, .init = ma },
			    { .bytes = (size_t)mn * mn * 4, .init = mb },
			    { .bytes = (size_t)mn * mn * 4 },
			    { .scalar = (uint32_t)mn } },
			  { mn, mn }, { TILE, TILE } },
			{ "n-body step", nbody_src, "nbody", 6, 1,
			  { { .bytes = (size_t)nb * 16, .init = pos },
			    { .bytes = (size_t)nb * 16, .init = vel },
			    { .bytes = (size_t)nb * 16 },
			    { .bytes = (size_t)nb * 16 },
			    { .scalar = (uint32_t)nb },
			    { .scalar = fbits(0.01f) } },
			  { nb }, { 64 } },
			{ "2-D heat stencil", heat_src, "heat", 4, 2,
			  { { .bytes = (size_t)w * h * 4, .init = img },
			    { .bytes = (size_t)w * h * 4 },
			    { .scalar = (uint32_t)w }, { .scalar = (uint32_t)h } },
			  { w, h }, { 16, 16 } },
			{ "saxpy", saxpy_src, "saxpy", 3, 1,
			  { { .scalar = fbits(2.5f) },
			    { .bytes = (size_t)sn * 4, .init = sx },
			    { .bytes = (size_t)sn * 4, .init = sy } },
			  { sn }, { 256 } },
		};
		char size[4][32];

		snprintf(size[0], 32, "%dx%d", mn, mn);
		snprintf(size[1], 32, "%d bodies", nb);
		snprintf(size[2], 32, "%dx%d", w, h);
		snprintf(size[3], 32, "%d", sn);
		printf("device time (CL_PROFILING_COMMAND_END - START, ns of "
		       "the virtual clock), scale %d\n", scale);
		printf("  one GPU:   %s\n  multi-GPU: %s\n", name0, name);
		printf("%-24s %-12s %12s %12s %8s  %s\n", "program", "size",
		       "GPU 0", "multi-GPU", "speed-up", "output");
		for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
			const struct prog *pg = &progs[i];
			void *one[MAXARGS] = { NULL }, *all[MAXARGS] = { NULL };
			cl_ulong t1 = run(gpu0, pg, one);
			cl_ulong tm = run(multi, pg, all);
			bool same = true;
			cl_uint j;

			for (j = 0; j < pg->nargs; j++) {
				if (one[j] && memcmp(one[j], all[j],
						     pg->a[j].bytes))
					same = false;
				free(one[j]);
				free(all[j]);
			}
			printf("%-24s %-12s %12llu %12llu %7.2fx  %s\n",
			       pg->what, size[i], (unsigned long long)t1,
			       (unsigned long long)tm,
			       tm ? (double)t1 / (double)tm : 0.0,
			       same ? "identical" : "DIFFERS");
			if (!same)
				rc = 1;
		}
		free(ma);
		free(mb);
		free(pos);
		free(vel);
		free(img);
		free(sx);
		free(sy);
	}
	return rc;
}
