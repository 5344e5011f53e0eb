// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OpenCL platform's programs through the loader (opencl.rst):
 * binaries and programs made from them, clCompileProgram with headers,
 * clLinkProgram, build options, clGetKernelArgInfo; global work offsets
 * and get_work_dim() (the hidden parameters every build has), binaries
 * of an older ICD without them built again; kernel attributes and
 * reqd_work_group_size; kernels of CL_DEVICE_MAX_PARAMETER_SIZE bytes
 * of parameters.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testcl.h"

static const char add_src[] =
	"kernel void add(global const int *a, global int *out, int n)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	if (i < n)\n"
	"		out[i] = a[i] + BUMP;\n"
	"}\n";

/* Run add on 64 items and check out[i] == i + bump. */
static void run_add(struct __test_metadata *_metadata, struct env *e,
		    cl_program prog, int bump)
{
	int in[64], out[64], n = 64, i;
	size_t global = 64;
	cl_mem a, o;
	cl_kernel k;
	cl_int err;

	for (i = 0; i < 64; i++)
		in[i] = i;
	k = clCreateKernel(prog, "add", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	a = clCreateBuffer(e->c, CL_MEM_COPY_HOST_PTR, sizeof(in), in, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	o = clCreateBuffer(e->c, 0, sizeof(out), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(a), &a));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(o), &o));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 2, sizeof(n), &n));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(e->q, k, 1, NULL, &global,
						     NULL, 0, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e->q, o, CL_TRUE, 0,
						  sizeof(out), out, 0, NULL,
						  NULL));
	for (i = 0; i < 64; i++)
		ASSERT_EQ(i + bump, out[i]);
	clReleaseMemObject(a);
	clReleaseMemObject(o);
	clReleaseKernel(k);
}

static cl_program built(struct __test_metadata *_metadata, struct env *e,
			const char *src, const char *opts, cl_int want)
{
	cl_program p;
	cl_int err;

	p = clCreateProgramWithSource(e->c, 1, &src, NULL, &err);
	EXPECT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(want, clBuildProgram(p, 1, &e->d, opts, NULL, NULL));
	return p;
}

static cl_program_binary_type btype(struct env *e, cl_program p)
{
	cl_program_binary_type t = 99;

	clGetProgramBuildInfo(p, e->d, CL_PROGRAM_BINARY_TYPE, sizeof(t), &t,
			      NULL);
	return t;
}

/* The program's binary for the one device (free() it). */
static unsigned char *binary_of(struct __test_metadata *_metadata,
				cl_program p, size_t *n)
{
	unsigned char *b;
	size_t ret = 0;

	EXPECT_EQ(CL_SUCCESS, clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES,
					       sizeof(*n), n, &ret));
	EXPECT_EQ(sizeof(size_t), ret);
	b = malloc(*n ? *n : 1);
	EXPECT_EQ(CL_SUCCESS, clGetProgramInfo(p, CL_PROGRAM_BINARIES,
					       sizeof(b), &b, &ret));
	EXPECT_EQ(sizeof(b), ret);
	return b;
}

TEST(binary_round_trip)
{
	const unsigned char *bp;
	struct env e;
	cl_program p, q;
	unsigned char *b, *b2;
	cl_int err, st = 99;
	size_t n, n2;
	char log[4096] = "";

	env_open(_metadata, &e, 0);
	p = built(_metadata, &e, add_src, "-DBUMP=7", CL_SUCCESS);
	EXPECT_EQ(CL_PROGRAM_BINARY_TYPE_EXECUTABLE, btype(&e, p));
	run_add(_metadata, &e, p, 7);
	b = binary_of(_metadata, p, &n);
	ASSERT_LT(32, n);
	EXPECT_EQ(0, memcmp(b, "VCLB", 4));

	bp = b;
	q = clCreateProgramWithBinary(e.c, 1, &e.d, &n, &bp, &st, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(CL_SUCCESS, st);
	EXPECT_EQ(CL_PROGRAM_BINARY_TYPE_EXECUTABLE, btype(&e, q));
	/* no kernel before the build */
	clReleaseKernel(clCreateKernel(q, "add", &err));
	EXPECT_EQ(CL_INVALID_PROGRAM_EXECUTABLE, err);
	/* -D is not applied again: the executables are used as they are */
	ASSERT_EQ(CL_SUCCESS, clBuildProgram(q, 1, &e.d, "-DBUMP=1", NULL,
					     NULL));
	clGetProgramBuildInfo(q, e.d, CL_PROGRAM_BUILD_LOG, sizeof(log), log,
			      NULL);
	EXPECT_NE(NULL, strstr(log, "used as they are")) TH_LOG("log: %s", log);
	run_add(_metadata, &e, q, 7);
	/* and the binary of a program from a binary is the same */
	b2 = binary_of(_metadata, q, &n2);
	EXPECT_EQ(n, n2);
	EXPECT_EQ(0, memcmp(b, b2, n));
	free(b2);
	clReleaseProgram(q);
	clReleaseProgram(p);
	free(b);
	env_close(&e);
}

TEST(binary_none_before_build)
{
	struct env e;
	cl_program p;
	cl_int err;
	size_t n = 99;
	const char *src = add_src;

	env_open(_metadata, &e, 0);
	p = clCreateProgramWithSource(e.c, 1, &src, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(CL_PROGRAM_BINARY_TYPE_NONE, btype(&e, p));
	EXPECT_EQ(CL_SUCCESS, clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES,
					       sizeof(n), &n, NULL));
	EXPECT_EQ(0, n);
	clReleaseProgram(p);
	env_close(&e);
}

TEST(binary_garbage_refused)
{
	const unsigned char *bp;
	unsigned char *b, *g;
	struct env e;
	cl_program p, q;
	cl_int err, st;
	size_t n, m, i;

	env_open(_metadata, &e, 0);
	p = built(_metadata, &e, add_src, "-DBUMP=1", CL_SUCCESS);
	b = binary_of(_metadata, p, &n);
	g = malloc(n);
	ASSERT_NE(NULL, g);
	/* every truncation */
	for (m = 1; m < n; m += m < 64 ? 1 : 97) {
		bp = b;
		st = 99;
		q = clCreateProgramWithBinary(e.c, 1, &e.d, &m, &bp, &st, &err);
		ASSERT_EQ(NULL, q) TH_LOG("length %zu", m);
		ASSERT_EQ(CL_INVALID_BINARY, err);
		ASSERT_EQ(CL_INVALID_BINARY, st);
	}
	/* every byte of the head changed, and bytes further in */
	for (i = 0; i < n; i += i < 40 ? 1 : 13) {
		memcpy(g, b, n);
		g[i] ^= 0x5a;
		bp = g;
		q = clCreateProgramWithBinary(e.c, 1, &e.d, &n, &bp, &st, &err);
		if (q) {	/* text or padding: still a valid program */
			EXPECT_EQ(CL_SUCCESS, st);
			clReleaseProgram(q);
			continue;
		}
		EXPECT_EQ(CL_INVALID_BINARY, err) TH_LOG("byte %zu", i);
		EXPECT_EQ(CL_INVALID_BINARY, st);
	}
	/* random bytes */
	srand(23);
	for (i = 0; i < n; i++)
		g[i] = (unsigned char)rand();
	bp = g;
	q = clCreateProgramWithBinary(e.c, 1, &e.d, &n, &bp, &st, &err);
	EXPECT_EQ(NULL, q);
	EXPECT_EQ(CL_INVALID_BINARY, err);
	EXPECT_EQ(CL_INVALID_BINARY, st);
	/* no length, no binary */
	m = 0;
	bp = b;
	clCreateProgramWithBinary(e.c, 1, &e.d, &m, &bp, &st, &err);
	EXPECT_EQ(CL_INVALID_VALUE, err);
	free(g);
	free(b);
	clReleaseProgram(p);
	env_close(&e);
}

static const char header_src[] =
	"#ifndef TWICE_H\n#define TWICE_H\n"
	"int twice(int x);\n"
	"#endif\n";
static const char lib_src[] =
	"#include \"inc/twice.h\"\n"
	"int twice(int x) { return 2 * x + EXTRA; }\n";
static const char main_src[] =
	"#include \"inc/twice.h\"\n"
	"kernel void add(global const int *a, global int *out, int n)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	if (i < n)\n"
	"		out[i] = twice(a[i]) - a[i];\n"
	"}\n";

static cl_program compiled(struct __test_metadata *_metadata, struct env *e,
			   const char *src, const char *opts, cl_program hdr,
			   cl_int want)
{
	const char *name = "inc/twice.h";
	cl_program p;
	cl_int err;

	p = clCreateProgramWithSource(e->c, 1, &src, NULL, &err);
	EXPECT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(want, clCompileProgram(p, 1, &e->d, opts, 1, &hdr, &name,
					 NULL, NULL));
	return p;
}

TEST(compile_and_link_with_a_header)
{
	cl_program hdr, a, b, ins[2], lib, exe;
	const char *src = header_src;
	struct env e;
	cl_int err;

	env_open(_metadata, &e, 0);
	hdr = clCreateProgramWithSource(e.c, 1, &src, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	a = compiled(_metadata, &e, lib_src, "-D EXTRA=5", hdr, CL_SUCCESS);
	b = compiled(_metadata, &e, main_src, NULL, hdr, CL_SUCCESS);
	EXPECT_EQ(CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, btype(&e, a));
	EXPECT_EQ(CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, btype(&e, b));
	/* an object has no kernels */
	clReleaseKernel(clCreateKernel(b, "add", &err));
	EXPECT_EQ(CL_INVALID_PROGRAM_EXECUTABLE, err);

	ins[0] = a;
	ins[1] = b;
	exe = clLinkProgram(e.c, 1, &e.d, NULL, 2, ins, NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(CL_PROGRAM_BINARY_TYPE_EXECUTABLE, btype(&e, exe));
	run_add(_metadata, &e, exe, 5);
	clReleaseProgram(exe);

	/* a library of one object, then linked with the other */
	lib = clLinkProgram(e.c, 1, &e.d, "-create-library", 1, &a, NULL, NULL,
			    &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(CL_PROGRAM_BINARY_TYPE_LIBRARY, btype(&e, lib));
	ins[0] = lib;
	exe = clLinkProgram(e.c, 1, &e.d, "-cl-fast-relaxed-math", 2, ins,
			    NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	run_add(_metadata, &e, exe, 5);
	clReleaseProgram(exe);

	/* an object's binary, back, linked */
	{
		const unsigned char *bp;
		unsigned char *bin;
		cl_program c;
		size_t n;
		cl_int st;

		bin = binary_of(_metadata, a, &n);
		bp = bin;
		c = clCreateProgramWithBinary(e.c, 1, &e.d, &n, &bp, &st, &err);
		ASSERT_EQ(CL_SUCCESS, err);
		EXPECT_EQ(CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
			  btype(&e, c));
		ins[0] = c;
		exe = clLinkProgram(e.c, 1, &e.d, NULL, 2, ins, NULL, NULL,
				    &err);
		ASSERT_EQ(CL_SUCCESS, err);
		run_add(_metadata, &e, exe, 5);
		clReleaseProgram(exe);
		clReleaseProgram(c);
		free(bin);
	}

	/* the same function twice: a link failure with its log */
	ins[0] = a;
	ins[1] = a;
	exe = clLinkProgram(e.c, 1, &e.d, NULL, 2, ins, NULL, NULL, &err);
	EXPECT_EQ(CL_LINK_PROGRAM_FAILURE, err);
	if (exe) {
		char log[4096] = "";

		clGetProgramBuildInfo(exe, e.d, CL_PROGRAM_BUILD_LOG,
				      sizeof(log), log, NULL);
		EXPECT_NE(NULL, strstr(log, "twice")) TH_LOG("log: %s", log);
		clReleaseProgram(exe);
	}
	/* bad linker options, a program that is not an object */
	ins[0] = a;
	ins[1] = b;
	exe = clLinkProgram(e.c, 1, &e.d, "-DX=1", 2, ins, NULL, NULL, &err);
	EXPECT_EQ(NULL, exe);
	EXPECT_EQ(CL_INVALID_LINKER_OPTIONS, err);
	exe = clLinkProgram(e.c, 1, &e.d, NULL, 1, &hdr, NULL, NULL, &err);
	EXPECT_EQ(NULL, exe);
	EXPECT_EQ(CL_INVALID_OPERATION, err);

	clReleaseProgram(lib);
	clReleaseProgram(a);
	clReleaseProgram(b);
	clReleaseProgram(hdr);
	env_close(&e);
}

/* OpenCL C: a kernel called like a function, in one program and from
 * another object (extern kernel) through compile and link. */
static const char bump_src[] =
	"kernel void bump(global int *out, int i, int v)\n"
	"{\n"
	"	out[i] = v + 3;\n"
	"}\n";
static const char bump_caller_src[] =
	"extern kernel void bump(global int *out, int i, int v);\n"
	"kernel void add(global const int *a, global int *out, int n)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	if (i < n)\n"
	"		bump(out, i, a[i]);\n"
	"}\n";

TEST(kernel_calls_kernel)
{
	cl_program a, b, ins[2], exe;
	char both[1024];
	const char *src;
	struct env e;
	cl_int err;

	env_open(_metadata, &e, 0);
	snprintf(both, sizeof(both), "%s%s", bump_src, bump_caller_src);
	exe = built(_metadata, &e, both, NULL, CL_SUCCESS);
	run_add(_metadata, &e, exe, 3);
	clReleaseProgram(exe);

	src = bump_src;
	a = clCreateProgramWithSource(e.c, 1, &src, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	src = bump_caller_src;
	b = clCreateProgramWithSource(e.c, 1, &src, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clCompileProgram(a, 1, &e.d, NULL, 0, NULL, NULL,
					       NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clCompileProgram(b, 1, &e.d, NULL, 0, NULL, NULL,
					       NULL, NULL));
	ins[0] = b;
	ins[1] = a;
	exe = clLinkProgram(e.c, 1, &e.d, NULL, 2, ins, NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	run_add(_metadata, &e, exe, 3);
	clReleaseProgram(exe);
	clReleaseProgram(a);
	clReleaseProgram(b);
	env_close(&e);
}

/* Each compiled object is its own translation unit: a struct and a
 * static function of the same name in two objects are each one's; a
 * library's binary carries its bitcode. */
static const char tu1_src[] =
	"typedef struct { int a; } S;\n"
	"static int f(S s) { return s.a + 1; }\n"
	"int g(int x) { S s = { x }; return f(s); }\n";
static const char tu2_src[] =
	"typedef struct { int a, b; } S;\n"
	"static int f(S s) { return s.a * 2 + s.b; }\n"
	"int g(int x);\n"
	"kernel void add(global const int *a, global int *out, int n)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	S s = { a[i], 0 };\n"
	"	if (i < n)\n"
	"		out[i] = g(a[i]) + f(s) - 2 * a[i];\n"
	"}\n";

TEST(objects_are_translation_units)
{
	cl_program a, b, c, lib, ins[2], exe;
	const unsigned char *bp;
	unsigned char *bin;
	const char *src;
	struct env e;
	cl_int err, st;
	size_t n;

	env_open(_metadata, &e, 0);
	src = tu1_src;
	a = clCreateProgramWithSource(e.c, 1, &src, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	src = tu2_src;
	b = clCreateProgramWithSource(e.c, 1, &src, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clCompileProgram(a, 1, &e.d, NULL, 0, NULL, NULL,
					       NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clCompileProgram(b, 1, &e.d, NULL, 0, NULL, NULL,
					       NULL, NULL));
	ins[0] = a;
	ins[1] = b;
	exe = clLinkProgram(e.c, 1, &e.d, NULL, 2, ins, NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	run_add(_metadata, &e, exe, 1);
	clReleaseProgram(exe);

	/* a library of the first, through its binary, then linked */
	lib = clLinkProgram(e.c, 1, &e.d, "-create-library", 1, &a, NULL, NULL,
			    &err);
	ASSERT_EQ(CL_SUCCESS, err);
	bin = binary_of(_metadata, lib, &n);
	bp = bin;
	c = clCreateProgramWithBinary(e.c, 1, &e.d, &n, &bp, &st, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(CL_PROGRAM_BINARY_TYPE_LIBRARY, btype(&e, c));
	ins[0] = c;
	exe = clLinkProgram(e.c, 1, &e.d, NULL, 2, ins, NULL, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	run_add(_metadata, &e, exe, 1);
	clReleaseProgram(exe);
	/* damaged bitcode: refused at the link, with a log */
	bin[n - 5] ^= 0x5a;
	bin[n - 40] ^= 0xa5;
	clReleaseProgram(c);
	c = clCreateProgramWithBinary(e.c, 1, &e.d, &n, &bp, &st, &err);
	if (c) {
		ins[0] = c;
		exe = clLinkProgram(e.c, 1, &e.d, NULL, 2, ins, NULL, NULL,
				    &err);
		if (err == CL_SUCCESS)	/* bits that did not matter */
			run_add(_metadata, &e, exe, 1);
		else
			EXPECT_EQ(CL_LINK_PROGRAM_FAILURE, err);
		if (exe)
			clReleaseProgram(exe);
		clReleaseProgram(c);
	}
	free(bin);
	clReleaseProgram(lib);
	clReleaseProgram(a);
	clReleaseProgram(b);
	env_close(&e);
}

TEST(compile_error_has_a_log)
{
	const char *src = header_src;
	char log[4096] = "";
	cl_program hdr, p;
	cl_int st = 0;
	struct env e;
	cl_int err;

	env_open(_metadata, &e, 0);
	hdr = clCreateProgramWithSource(e.c, 1, &src, NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	p = compiled(_metadata, &e,
		     "#include \"inc/twice.h\"\nint f(void) { return nope; }\n",
		     NULL, hdr, CL_COMPILE_PROGRAM_FAILURE);
	clGetProgramBuildInfo(p, e.d, CL_PROGRAM_BUILD_LOG, sizeof(log), log,
			      NULL);
	EXPECT_NE(NULL, strstr(log, "nope")) TH_LOG("log: %s", log);
	EXPECT_NE(NULL, strstr(log, "error")) TH_LOG("log: %s", log);
	clGetProgramBuildInfo(p, e.d, CL_PROGRAM_BUILD_STATUS, sizeof(st), &st,
			      NULL);
	EXPECT_EQ(CL_BUILD_ERROR, st);
	clReleaseProgram(p);
	/* a header not given: the include fails */
	src = main_src;
	p = clCreateProgramWithSource(e.c, 1, &src, NULL, &err);
	EXPECT_EQ(CL_COMPILE_PROGRAM_FAILURE,
		  clCompileProgram(p, 1, &e.d, NULL, 0, NULL, NULL, NULL,
				   NULL));
	clReleaseProgram(p);
	clReleaseProgram(hdr);
	env_close(&e);
}

TEST(build_options)
{
	static const char *const good[] = {
		"-DBUMP=3 -cl-std=CL1.1", "-D BUMP=3 -cl-std=CL1.2 -w",
		"-DBUMP=3 -cl-fast-relaxed-math -cl-mad-enable "
		"-cl-no-signed-zeros -cl-finite-math-only "
		"-cl-unsafe-math-optimizations -cl-denorms-are-zero "
		"-cl-single-precision-constant -cl-opt-disable "
		"-cl-fp32-correctly-rounded-divide-sqrt",
		"-DBUMP=3 -cl-kernel-arg-info -I /tmp -Werror",
	};
	static const char *const bad[] = {
		"-DBUMP=3 -cl-no-such-option", "-DBUMP=3 -cl-std=CL2.0",
		"-DBUMP=3 -D", "-DBUMP=3 --", "-DBUMP=3 -create-library",
	};
	struct env e;
	cl_program p;
	size_t i;

	env_open(_metadata, &e, 0);
	p = built(_metadata, &e, add_src, "-DBUMP=2", CL_SUCCESS);
	run_add(_metadata, &e, p, 2);
	clReleaseProgram(p);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		p = built(_metadata, &e, add_src, good[i], CL_SUCCESS);
		run_add(_metadata, &e, p, 3);
		clReleaseProgram(p);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = built(_metadata, &e, add_src, bad[i],
			  CL_INVALID_BUILD_OPTIONS);
		clReleaseProgram(p);
	}
	/* -Werror makes a warning an error, -w silences it */
	p = built(_metadata, &e, "#warning hello\nkernel void w(global int *o)"
		  " { o[0] = 1; }\n", "-w", CL_SUCCESS);
	clReleaseProgram(p);
	p = built(_metadata, &e, "#warning hello\nkernel void w(global int *o)"
		  " { o[0] = 1; }\n", "-Werror", CL_BUILD_PROGRAM_FAILURE);
	clReleaseProgram(p);
	env_close(&e);
}

static const char info_src[] =
	"kernel void info(global const float *restrict in, /* x */\n"
	"		  global volatile int *out, local uint *tmp,\n"
	"		  constant int *tab, unsigned int n, float f,\n"
	"		  const short unsigned s, volatile int4 v,\n"
	"		  long signed l)\n"
	"{\n"
	"	tmp[0] = n;\n"
	"	out[0] = (int)(in[0] * f) + tab[0] + tmp[0] + s + v.w + l;\n"
	"}\n";

TEST(kernel_arg_info)
{
	static const struct {
		cl_kernel_arg_address_qualifier aq;
		const char *type, *name;
		cl_kernel_arg_type_qualifier tq;
	} want[] = {
		{ CL_KERNEL_ARG_ADDRESS_GLOBAL, "float*", "in",
		  CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT },
		{ CL_KERNEL_ARG_ADDRESS_GLOBAL, "int*", "out",
		  CL_KERNEL_ARG_TYPE_VOLATILE },
		{ CL_KERNEL_ARG_ADDRESS_LOCAL, "uint*", "tmp", 0 },
		{ CL_KERNEL_ARG_ADDRESS_CONSTANT, "int*", "tab",
		  CL_KERNEL_ARG_TYPE_CONST },
		{ CL_KERNEL_ARG_ADDRESS_PRIVATE, "uint", "n", 0 },
		{ CL_KERNEL_ARG_ADDRESS_PRIVATE, "float", "f", 0 },
		/* C's spellings by OpenCL C's names; a value's qualifiers
		 * are not the argument's (only a pointer's referenced type's) */
		{ CL_KERNEL_ARG_ADDRESS_PRIVATE, "ushort", "s", 0 },
		{ CL_KERNEL_ARG_ADDRESS_PRIVATE, "int4", "v", 0 },
		{ CL_KERNEL_ARG_ADDRESS_PRIVATE, "long", "l", 0 },
	};
	cl_kernel_arg_address_qualifier aq;
	cl_kernel_arg_access_qualifier acc;
	cl_kernel_arg_type_qualifier tq;
	struct env e;
	cl_program p;
	cl_kernel k;
	char s[64];
	cl_int err;
	cl_uint i;

	env_open(_metadata, &e, 0);
	/* without -cl-kernel-arg-info: not available */
	p = built(_metadata, &e, info_src, NULL, CL_SUCCESS);
	k = clCreateKernel(p, "info", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
		  clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof(s), s,
				     NULL));
	EXPECT_EQ(CL_INVALID_ARG_INDEX,
		  clGetKernelArgInfo(k, 9, CL_KERNEL_ARG_NAME, sizeof(s), s,
				     NULL));
	clReleaseKernel(k);
	clReleaseProgram(p);

	p = built(_metadata, &e, info_src, "-cl-kernel-arg-info", CL_SUCCESS);
	k = clCreateKernel(p, "info", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	for (i = 0; i < 9; i++) {
		ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(
			k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(aq),
			&aq, NULL));
		EXPECT_EQ(want[i].aq, aq) TH_LOG("argument %u", i);
		ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(
			k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof(acc),
			&acc, NULL));
		EXPECT_EQ(CL_KERNEL_ARG_ACCESS_NONE, acc);
		ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(
			k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof(s), s, NULL));
		EXPECT_STREQ(want[i].type, s);
		ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(
			k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof(tq), &tq,
			NULL));
		EXPECT_EQ(want[i].tq, tq) TH_LOG("argument %u", i);
		ASSERT_EQ(CL_SUCCESS, clGetKernelArgInfo(
			k, i, CL_KERNEL_ARG_NAME, sizeof(s), s, NULL));
		EXPECT_STREQ(want[i].name, s);
	}
	EXPECT_EQ(CL_INVALID_ARG_INDEX,
		  clGetKernelArgInfo(k, 9, CL_KERNEL_ARG_NAME, sizeof(s), s,
				     NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetKernelArgInfo(k, 0, 0x7777, sizeof(s), s, NULL));
	EXPECT_EQ(CL_INVALID_VALUE,
		  clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, 1, s, NULL));
	clReleaseKernel(k);
	clReleaseProgram(p);
	env_close(&e);
}

/* ---- global work offsets, get_work_dim() ---- */

static const char nd_src[] =
	"kernel void nd(global uint *o)\n"
	"{\n"
	"	uint x = get_global_id(0) - get_global_offset(0);\n"
	"	uint y = get_global_id(1) - get_global_offset(1);\n"
	"	uint i = y * get_global_size(0) + x;\n"
	"	o[3 * i] = get_global_id(0);\n"
	"	o[3 * i + 1] = get_global_id(1);\n"
	"	o[3 * i + 2] = get_work_dim();\n"
	"}\n";

/* Run nd over @global (@dim dimensions, at @off) and check each item. */
static void run_nd(struct __test_metadata *_metadata, struct env *e,
		   cl_kernel k, cl_uint dim, const size_t *off,
		   const size_t *global)
{
	static cl_uint out[3 * 256];
	size_t gy = dim > 1 ? global[1] : 1, x, y;
	cl_mem o;
	cl_int err;

	memset(out, 0xff, sizeof(out));
	o = clCreateBuffer(e->c, CL_MEM_COPY_HOST_PTR, sizeof(out), out, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(o), &o));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(e->q, k, dim, off, global,
						     NULL, 0, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e->q, o, CL_TRUE, 0,
						  sizeof(out), out, 0, NULL,
						  NULL));
	for (y = 0; y < gy; y++)
		for (x = 0; x < global[0]; x++) {
			const cl_uint *r = &out[3 * (y * global[0] + x)];

			ASSERT_EQ((cl_uint)(off[0] + x), r[0]);
			ASSERT_EQ(dim > 1 ? (cl_uint)(off[1] + y) : 0, r[1]);
			ASSERT_EQ(dim, r[2]);
		}
	clReleaseMemObject(o);
}

TEST(global_offset_and_work_dim)
{
	size_t off[2] = { 100, 5 }, global[2] = { 16, 1 };
	cl_program p;
	cl_kernel k;
	cl_uint nargs = 0;
	cl_mem o;
	struct env e;
	cl_int err;

	env_open(_metadata, &e, 0);
	k = build_kernel(_metadata, &e, nd_src, "nd", &p);
	/* the hidden parameters are not the application's */
	EXPECT_EQ(CL_SUCCESS, clGetKernelInfo(k, CL_KERNEL_NUM_ARGS,
					      sizeof(nargs), &nargs, NULL));
	EXPECT_EQ(1u, nargs);
	o = NULL;
	EXPECT_EQ(CL_INVALID_ARG_INDEX, clSetKernelArg(k, 1, sizeof(o), &o));
	/* 2-D of height 1: work_dim 2, not guessed from the extents */
	run_nd(_metadata, &e, k, 2, off, global);
	global[1] = 8;
	run_nd(_metadata, &e, k, 2, off, global);
	run_nd(_metadata, &e, k, 1, off, global);
	/* the last ids there are: offset + size = 2^32 */
	off[0] = 0xfffffff0u;
	run_nd(_metadata, &e, k, 1, off, global);
	/* past them: CL_INVALID_GLOBAL_OFFSET, as OpenCL 1.2 says */
	off[0] = 0xfffffff1u;
	err = clEnqueueNDRangeKernel(e.q, k, 1, off, global, NULL, 0, NULL,
				     NULL);
	EXPECT_EQ(CL_INVALID_GLOBAL_OFFSET, err);
	clReleaseKernel(k);
	clReleaseProgram(p);
	env_close(&e);
}

/* Build @q from binary @b (@n bytes); its build log into @log. */
static cl_program from_binary(struct __test_metadata *_metadata,
			      struct env *e, const unsigned char *b, size_t n,
			      char *log, size_t cap)
{
	cl_program q;
	cl_int err, st;

	q = clCreateProgramWithBinary(e->c, 1, &e->d, &n, &b, &st, &err);
	EXPECT_EQ(CL_SUCCESS, err);
	EXPECT_EQ(CL_SUCCESS, clBuildProgram(q, 1, &e->d, NULL, NULL, NULL));
	log[0] = 0;
	clGetProgramBuildInfo(q, e->d, CL_PROGRAM_BUILD_LOG, cap, log, NULL);
	return q;
}

/*
 * A binary of an older ICD (its options without -vmgpu-ndrange-args: its
 * executables would ignore offsets) is built again from its text.
 */
TEST(old_binary_built_again)
{
	size_t off[1] = { 40 }, global[1] = { 32 }, n;
	unsigned char *b, *opt;
	char log[4096];
	cl_program p, q;
	cl_kernel k;
	struct env e;
	cl_int err;

	env_open(_metadata, &e, 0);
	p = built(_metadata, &e, nd_src, NULL, CL_SUCCESS);
	b = binary_of(_metadata, p, &n);
	/* the option blanked: the same length, an older ICD's options */
	opt = memmem(b, n, "-vmgpu-ndrange-args", 19);
	ASSERT_NE(NULL, opt);
	memset(opt, ' ', 19);
	q = from_binary(_metadata, &e, b, n, log, sizeof(log));
	EXPECT_EQ(NULL, strstr(log, "used as they are")) TH_LOG("log: %s", log);
	k = clCreateKernel(q, "nd", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	run_nd(_metadata, &e, k, 1, off, global);
	clReleaseKernel(k);
	clReleaseProgram(q);
	clReleaseProgram(p);
	free(b);
	env_close(&e);
}

/*
 * A binary carries its compiler's identity (vmgpu_compiler_id(), at its
 * end): this compiler's executables are used as they are, another's are
 * built again from the binary's text (a program cache across a compiler
 * change), and either runs right.
 */
TEST(binary_of_another_compiler_built_again)
{
	size_t off[1] = { 7 }, global[1] = { 32 }, n;
	char log[4096];
	unsigned char *b;
	cl_program p, q;
	cl_kernel k;
	struct env e;
	cl_int err;

	env_open(_metadata, &e, 0);
	p = built(_metadata, &e, nd_src, NULL, CL_SUCCESS);
	b = binary_of(_metadata, p, &n);
	ASSERT_LT(20, n);
	ASSERT_EQ(0, memcmp(b + n - 16 - strlen(", library "), ", library ",
			    strlen(", library ")));
	q = from_binary(_metadata, &e, b, n, log, sizeof(log));
	EXPECT_NE(NULL, strstr(log, "used as they are")) TH_LOG("log: %s", log);
	clReleaseProgram(q);
	/* another built-in library: the digest's last digit changed */
	b[n - 1] = b[n - 1] == '0' ? '1' : '0';
	q = from_binary(_metadata, &e, b, n, log, sizeof(log));
	EXPECT_EQ(NULL, strstr(log, "used as they are")) TH_LOG("log: %s", log);
	k = clCreateKernel(q, "nd", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	run_nd(_metadata, &e, k, 1, off, global);
	clReleaseKernel(k);
	clReleaseProgram(q);
	clReleaseProgram(p);
	free(b);
	env_close(&e);
}

/* ---- kernel attributes, reqd_work_group_size ---- */

static const char attr_src[] =
	"#define HINT __attribute__((work_group_size_hint(8, 1, 1)))\n"
	"__attribute__((vec_type_hint(float4)))\n"
	"kernel __attribute__((reqd_work_group_size(4,\n"
	"		2, 1))) void r(global int *o)\n"
	"{\n"
	"	o[get_global_id(1) * get_global_size(0) + get_global_id(0)] =\n"
	"		get_local_size(0) * 10 + get_local_size(1);\n"
	"}\n"
	"HINT kernel void plain(global int *o) { o[0] = 1; }\n";

static void attrs_of(struct __test_metadata *_metadata, cl_kernel k,
		     char *s, size_t cap, size_t *compile, size_t *wg)
{
	ASSERT_EQ(CL_SUCCESS, clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, cap, s,
					      NULL));
	ASSERT_EQ(CL_SUCCESS, clGetKernelWorkGroupInfo(
			k, NULL, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
			3 * sizeof(size_t), compile, NULL));
	ASSERT_EQ(CL_SUCCESS, clGetKernelWorkGroupInfo(
			k, NULL, CL_KERNEL_WORK_GROUP_SIZE, sizeof(*wg), wg,
			NULL));
}

TEST(kernel_attributes_and_reqd_size)
{
	size_t global[2] = { 8, 4 }, local[2] = { 4, 2 }, c[3], wg, n;
	const unsigned char *bp;
	unsigned char *b;
	char attrs[256];
	int out[32], i;
	cl_program p, q;
	cl_kernel k;
	struct env e;
	cl_mem o;
	cl_int err, st;

	env_open(_metadata, &e, 0);
	k = build_kernel(_metadata, &e, attr_src, "r", &p);
	attrs_of(_metadata, k, attrs, sizeof(attrs), c, &wg);
	/* as written, newlines gone, one space between attributes */
	EXPECT_STREQ("vec_type_hint(float4) reqd_work_group_size(4,\t\t2, 1)",
		     attrs);
	EXPECT_EQ(4u, c[0]);
	EXPECT_EQ(2u, c[1]);
	EXPECT_EQ(1u, c[2]);
	EXPECT_EQ(8u, wg);

	o = clCreateBuffer(e.c, 0, sizeof(out), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(o), &o));
	EXPECT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(e.q, k, 2, NULL, global,
						     local, 0, NULL, NULL));
	/* any other local size, or dimensions, is refused */
	local[0] = 2;
	EXPECT_EQ(CL_INVALID_WORK_GROUP_SIZE,
		  clEnqueueNDRangeKernel(e.q, k, 2, NULL, global, local, 0,
					 NULL, NULL));
	local[0] = 4;
	EXPECT_EQ(CL_INVALID_WORK_GROUP_SIZE,
		  clEnqueueNDRangeKernel(e.q, k, 1, NULL, global, local, 0,
					 NULL, NULL));
	/* none given: the required one */
	memset(out, 0, sizeof(out));
	ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(e.q, o, CL_TRUE, 0,
						   sizeof(out), out, 0, NULL,
						   NULL));
	EXPECT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(e.q, k, 2, NULL, global,
						     NULL, 0, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, o, CL_TRUE, 0,
						  sizeof(out), out, 0, NULL,
						  NULL));
	for (i = 0; i < 32; i++)
		ASSERT_EQ(42, out[i]);
	clReleaseMemObject(o);
	clReleaseKernel(k);

	/* a macro's attribute is not seen; nothing required */
	k = clCreateKernel(p, "plain", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	attrs_of(_metadata, k, attrs, sizeof(attrs), c, &wg);
	EXPECT_STREQ("", attrs);
	EXPECT_EQ(0u, c[0] + c[1] + c[2]);
	EXPECT_LT(8u, wg);
	clReleaseKernel(k);

	/* a program from the binary: the same (the text travels) */
	b = binary_of(_metadata, p, &n);
	bp = b;
	q = clCreateProgramWithBinary(e.c, 1, &e.d, &n, &bp, &st, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clBuildProgram(q, 1, &e.d, NULL, NULL, NULL));
	k = clCreateKernel(q, "r", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	attrs_of(_metadata, k, attrs, sizeof(attrs), c, &wg);
	EXPECT_NE(NULL, strstr(attrs, "reqd_work_group_size(4,"));
	EXPECT_EQ(2u, c[1]);
	clReleaseKernel(k);
	clReleaseProgram(q);
	clReleaseProgram(p);
	free(b);
	env_close(&e);
}

/*
 * The kernel: out[i] = i + the sum of n int parameters p0..p(n-1): with
 * the output buffer, n + 1 parameters (and the hidden ndrange pair).
 */
static char *many_params_src(unsigned int n)
{
	size_t cap = 128 + 40 * (size_t)n, len;
	char *s = malloc(cap);
	unsigned int i;

	len = (size_t)snprintf(s, cap, "kernel void many(global int *out");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len, ", int p%u", i);
	len += (size_t)snprintf(s + len, cap - len,
				")\n{\n\tint t = get_global_id(0);\n");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len, "\tt += p%u;\n", i);
	snprintf(s + len, cap - len, "\tout[get_global_id(0)] = t;\n}\n");
	return s;
}

/*
 * CL_DEVICE_MAX_PARAMETER_SIZE bytes of parameters: a buffer and as many
 * ints as fit with it, each with its value, in a kernel run; one more
 * parameter than a signature holds is a build error that says so.
 */
TEST(max_parameter_size)
{
	size_t max = 0, global = 4;
	unsigned int n, i;
	int out[4], want = 0;
	char *src, log[4096];
	cl_program p;
	cl_kernel k;
	cl_mem o;
	struct env e;
	cl_int err;

	env_open(_metadata, &e, 0);
	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(e.d, CL_DEVICE_MAX_PARAMETER_SIZE,
					      sizeof(max), &max, NULL));
	ASSERT_LE(1024, max);	/* the full profile's minimum */
	n = (unsigned int)((max - sizeof(cl_mem)) / sizeof(cl_int));
	src = many_params_src(n);
	p = built(_metadata, &e, src, NULL, CL_SUCCESS);
	free(src);
	k = clCreateKernel(p, "many", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	o = clCreateBuffer(e.c, 0, sizeof(out), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(o), &o));
	for (i = 0; i < n; i++) {
		int v = (int)(i * 7 + 1);

		want += v;
		ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, i + 1, sizeof(v), &v));
	}
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global,
						     NULL, 0, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, o, CL_TRUE, 0,
						  sizeof(out), out, 0, NULL,
						  NULL));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(want + (int)i, out[i]);
	clReleaseMemObject(o);
	clReleaseKernel(k);
	clReleaseProgram(p);

	/* 261 parameters: more than a signature holds (VMGPU_MAX_PARAMS) */
	src = many_params_src(260);
	p = built(_metadata, &e, src, NULL, CL_BUILD_PROGRAM_FAILURE);
	free(src);
	ASSERT_EQ(CL_SUCCESS, clGetProgramBuildInfo(p, e.d,
						    CL_PROGRAM_BUILD_LOG,
						    sizeof(log), log, NULL));
	EXPECT_NE(NULL, strstr(log, "kernel 'many' has 261 parameters, "
				    "more than 260"));
	clReleaseProgram(p);
	env_close(&e);
}

/*
 * The devices report CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT, and a program
 * built with -cl-fp32-correctly-rounded-divide-sqrt divides and takes
 * square roots as IEEE 754 does (the host's SSE): bit for bit, over
 * random bit patterns, subnormals, infinities and NaNs among them.
 */
TEST(correctly_rounded_divide_sqrt)
{
	static const char *src =
		"__kernel void k(__global const float *a, __global const float *b,\n"
		"		__global float *q, __global float *r)\n"
		"{ size_t i = get_global_id(0); q[i] = a[i] / b[i]; r[i] = sqrt(a[i]); }\n";
	enum { N = 4096 };
	static float a[N], b[N], q[N], r[N];
	cl_device_fp_config fp = 0;
	cl_mem ba, bb, bq, br;
	cl_program p;
	struct env e;
	cl_kernel k;
	size_t g = N;
	cl_int err;
	uint32_t x = 12345;
	int i;

	env_open(_metadata, &e, 0);
	ASSERT_EQ(CL_SUCCESS, clGetDeviceInfo(e.d, CL_DEVICE_SINGLE_FP_CONFIG,
					      sizeof(fp), &fp, NULL));
	EXPECT_TRUE(fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT);
	for (i = 0; i < N; i++) {
		uint32_t u, v;

		x = x * 1664525u + 1013904223u;
		u = x;
		x = x * 1664525u + 1013904223u;
		v = x;
		memcpy(&a[i], &u, 4);
		memcpy(&b[i], &v, 4);
		if (i % 7 == 0)		/* positive, for sqrt */
			a[i] = a[i] < 0 ? -a[i] : a[i];
	}
	p = built(_metadata, &e, src, "-cl-fp32-correctly-rounded-divide-sqrt",
		  CL_SUCCESS);
	k = clCreateKernel(p, "k", &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ba = clCreateBuffer(e.c, CL_MEM_COPY_HOST_PTR, sizeof(a), a, &err);
	bb = clCreateBuffer(e.c, CL_MEM_COPY_HOST_PTR, sizeof(b), b, &err);
	bq = clCreateBuffer(e.c, CL_MEM_WRITE_ONLY, sizeof(q), NULL, &err);
	br = clCreateBuffer(e.c, CL_MEM_WRITE_ONLY, sizeof(r), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	clSetKernelArg(k, 0, sizeof(ba), &ba);
	clSetKernelArg(k, 1, sizeof(bb), &bb);
	clSetKernelArg(k, 2, sizeof(bq), &bq);
	clSetKernelArg(k, 3, sizeof(br), &br);
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(e.q, k, 1, NULL, &g, NULL,
						     0, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, bq, CL_TRUE, 0,
						  sizeof(q), q, 0, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, br, CL_TRUE, 0,
						  sizeof(r), r, 0, NULL, NULL));
	for (i = 0; i < N; i++) {
		volatile float wq = a[i] / b[i], wr = __builtin_sqrtf(a[i]);
		uint32_t gq, gr, eq, er;

		memcpy(&gq, &q[i], 4);
		memcpy(&gr, &r[i], 4);
		memcpy(&eq, (const float *)&wq, 4);
		memcpy(&er, (const float *)&wr, 4);
		/* any NaN for a NaN: OpenCL does not fix its payload */
		if (wq != wq) {
			ASSERT_NE(q[i], q[i]);
		} else {
			ASSERT_EQ(eq, gq) TH_LOG("%a / %a", a[i], b[i]);
		}
		if (wr != wr) {
			ASSERT_NE(r[i], r[i]);
		} else {
			ASSERT_EQ(er, gr) TH_LOG("sqrt(%a)", a[i]);
		}
	}
	clReleaseMemObject(ba);
	clReleaseMemObject(bb);
	clReleaseMemObject(bq);
	clReleaseMemObject(br);
	clReleaseKernel(k);
	clReleaseProgram(p);
	env_close(&e);
}

TEST_HARNESS_MAIN
