// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OpenCL C compiler's diagnostics: a build that fails leaves a log
 * naming the file, line and column of what the language rules (SPEC P8)
 * or the ISA forbid: syntax errors, recursion, kernels calling kernels,
 * function pointers, double without cl_khr_fp64, local atomics on ISA
 * version 1, 64-bit atomics, unknown options and functions, vector code
 * the back end cannot split.
 */
#include "testcc.h"
#include "vmgpu/compiler.h"

/* ------------------------------------------------------------------ */
/* Diagnostics                                                          */
/* ------------------------------------------------------------------ */

TEST(diag_syntax_error_has_file_line_col)
{
	static const char *const want[] = { "input.cl:3:", ": error:", NULL };
	static const char *const want2[] = { "my.cl:2:", "undeclared", NULL };

	build_fails(_metadata, "kernel void k(global int *p)\n{\n\tp[0] = 1 +;\n}\n",
		    NULL, want);
	build_fails(_metadata, "kernel void k(global int *p)\n{ p[0] = q; }\n",
		    "-vmgpu-source-name=my.cl", want2);
}

TEST(diag_recursion)
{
	static const char *const want[] = {
		"input.cl:3:", "error: recursion is not supported", NULL };

	build_fails(_metadata,
		    "int f(int x)\n{\n\treturn x > 1 ? x * f(x - 1) : 1;\n}\n"
		    "kernel void k(global int *p) { p[0] = f(p[1]); }\n",
		    NULL, want);
}

TEST(diag_kernel_calls_kernel)
{
	static const char *const want[] = {
		"input.cl:2:", "a kernel cannot call a kernel", NULL };

	build_fails(_metadata,
		    "kernel void a(global int *p) { p[0] = 1; }\n"
		    "kernel void b(global int *p) { a(p); }\n", NULL, want);
}

/* OpenCL C's kernel calls (VMGPU_KERNEL_CALLS_OPTION) are still calls:
 * no recursion, and a kernel declared only is not there. */
TEST(diag_kernel_calls_option)
{
	static const char *const rec[] = {
		"input.cl:2:", "error: recursion is not supported", NULL };
	static const char *const undef[] = {
		"input.cl:2:", "function 'b' is not available on vmgpu", NULL };

	build_fails(_metadata,
		    "kernel void a(global int *p)\n"
		    "{ if (p[0]) a(p + 1); }\n", VMGPU_KERNEL_CALLS_OPTION, rec);
	build_fails(_metadata,
		    "kernel void b(global int *p);\n"
		    "kernel void a(global int *p) { b(p); }\n",
		    VMGPU_KERNEL_CALLS_OPTION, undef);
}

TEST(diag_function_pointer)
{
	static const char *const want[] = {
		"input.cl:2:37: error: pointers to functions are not allowed",
		NULL };

	build_fails(_metadata,
		    "int f(int x) { return x; }\n"
		    "kernel void k(global int *p) { int (*fp)(int) = f; p[0] = fp(1); }\n",
		    NULL, want);
}

TEST(diag_double_without_fp64)
{
	static const char *const want[] = {
		"input.cl:3:2: error: use of type 'double' requires "
		"cl_khr_fp64 support", NULL };

	build_fails(_metadata,
		    "kernel void k(global float *p)\n{\n"
		    "\tdouble d = p[0];\n\tp[1] = (float)d;\n}\n", NULL, want);
}

/* SPEC P8, each rule at its line and column, on both ISA versions. */
TEST(diag_language_rules_p8)
{
	static const struct {
		const char *src, *want;
	} cases[] = {
		/* kernels cannot call kernels */
		{ "kernel void a(global int *p) { p[0] = 1; }\n"
		  "kernel void b(global int *p)\n{\n\ta(p);\n}\n",
		  "input.cl:4:2: error: kernel 'b' calls kernel 'a': a kernel "
		  "cannot call a kernel" },
		/* ... not even through a function */
		{ "kernel void a(global int *p) { p[0] = 1; }\n"
		  "void f(global int *p)\n{\n\ta(p);\n}\n"
		  "kernel void b(global int *p) { f(p); }\n",
		  "input.cl:4:2: error: function 'f' calls kernel 'a': a "
		  "kernel cannot call a kernel" },
		/* local memory: only at a kernel's outermost scope ... */
		{ "void f(global int *p)\n{\n\tlocal int x;\n"
		  "\tx = 1; p[0] = x;\n}\n"
		  "kernel void k(global int *p) { f(p); }\n",
		  "input.cl:3:12: error: non-kernel function variable cannot "
		  "be declared in local address space" },
		{ "local int x;\nkernel void k(global int *p) { p[0] = x; }\n",
		  "input.cl:1:11: error: program scope variable must reside "
		  "in constant address space" },
		{ "kernel void k(global int *p)\n{\n\tif (p[0]) {\n"
		  "\t\tlocal int x;\n\t\tx = 1; p[1] = x;\n\t}\n}\n",
		  "input.cl:4:13: error: variables in the local address space "
		  "can only be declared in the outermost scope of a kernel "
		  "function" },
		/* ... shared within its work-group only */
		{ "kernel void k(global int *p, local int *l)\n{\n"
		  "\tglobal int *q = (global int *)l;\n\tq[0] = 1;\n}\n",
		  "input.cl:3:18: error: casting '__local int *' to type "
		  "'__global int *' changes address space of pointer" },
		{ "kernel void k(global ulong *p, local int *l)\n{\n"
		  "\t*(local int * global *)p = l;\n}\n",
		  "input.cl:3:27: error: a pointer to local memory cannot leave "
		  "its work-group: stored to global memory" },
		/* recursion, direct and mutual */
		{ "int odd(int);\nint even(int n) { return n ? odd(n - 1) : 1; }\n"
		  "int odd(int n) { return n ? even(n - 1) : 0; }\n"
		  "kernel void k(global int *p) { p[0] = even(p[1]); }\n",
		  "input.cl:2:30: error: recursion is not supported: 'odd' "
		  "calls back into 'even'" },
		/* no variable-length arrays, kernels return void */
		{ "kernel void k(global int *p, int n)\n{\n\tint a[n];\n"
		  "\ta[0] = 1; p[0] = a[0];\n}\n",
		  "input.cl:3:8: error: variable length arrays are not "
		  "supported in OpenCL" },
		{ "kernel int k(global int *p) { return 1; }\n",
		  "input.cl:1:12: error: kernel must have void return type" },
		/* no fp64 on either version, whatever the options say */
		{ "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
		  "kernel void k(global float *p)\n{\n\tdouble d = p[0];\n"
		  "\tp[1] = (float)d;\n}\n",
		  "input.cl:4:2: error: use of type 'double' requires "
		  "cl_khr_fp64 support" },
	};
	static const char *const isa_opts[] = { "-vmgpu-isa=1", "-vmgpu-isa=2" };
	unsigned int i, v;

	for (v = 0; v < 2; v++)
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			const char *want[] = { cases[i].want, NULL };

			build_fails(_metadata, cases[i].src, isa_opts[v], want);
		}
}

/*
 * Local pointers kept in private variables and local memory are fine; so
 * is a local address converted to an integer and stored to global memory
 * (a number, not a pointer another group can use: the CTS's
 * kernel_memory_alignment_local).
 */
TEST(local_pointers_inside_the_work_group_compile)
{
	struct vmgpu_program *p2 = build(_metadata,
		"kernel void k(global ulong *p, local int *l)\n{\n"
		"\tlocal int x[4];\n"
		"\tp[0] = (ulong)&x[1];\n"
		"\tp[get_global_id(0) + 1] = (ulong)l;\n}\n", NULL);
	struct vmgpu_program *p = build(_metadata,
		"kernel void k(global int *g, local int *l)\n{\n"
		"\tlocal int *q = l + get_local_id(0);\n"
		"\tlocal int x[2];\n"
		"\t*q = g[0];\n\tx[0] = (int)(q - l);\n"
		"\tbarrier(CLK_LOCAL_MEM_FENCE);\n"
		"\tg[get_global_id(0)] = *q + x[0];\n}\n", NULL);

	EXPECT_NE(NULL, p2);
	vmgpu_program_destroy(p2);
	vmgpu_program_destroy(p);
}

TEST(diag_local_atomics_and_unknown_function)
{
	static const char *const want[] = {
		"input.cl:4:2: error: atomics on local memory need ISA version "
		"2; compiling for ISA version 1", NULL };
	static const char *const want2[] = {
		"input.cl:2:", "'helper'", "not available", NULL };

	build_fails(_metadata,
		    "kernel void k(global int *p)\n{\n\tlocal int c;\n"
		    "\tatomic_add(&c, 1);\n\tp[0] = c;\n}\n", "-vmgpu-isa=1",
		    want);
	build_fails(_metadata,
		    "int helper(int x);\n"
		    "kernel void k(global int *p) { p[0] = helper(p[0]); }\n",
		    NULL, want2);
}

TEST(diag_bad_options_and_no_kernel)
{
	static const char *const want[] = { "unknown build option", NULL };
	static const char *const want2[] = { "no kernel", NULL };

	build_fails(_metadata, "kernel void k(global int *p) { }\n",
		    "-fno-such-thing", want);
	build_fails(_metadata, "int f(int x) { return x; }\n", NULL, want2);
}

/* 64-bit atomics: the ISA's are 32-bit; an error at the line. */
TEST(diag_64bit_atomics)
{
	static const char *const want[] = {
		"input.cl:4:2: error: 64-bit atomics are not supported: the "
		"ISA's atomics are 32-bit", NULL };
	static const char *const want2[] = {
		"input.cl:3:2: error: 64-bit atomics are not supported", NULL };

	build_fails(_metadata,
		    "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
		    "kernel void k(global long *p)\n{\n\tatom_add(p, 1L);\n}\n",
		    NULL, want);
	build_fails(_metadata,
		    "kernel void k(local ulong *p)\n{\n"
		    "\t__sync_fetch_and_or(p, 1ul);\n}\n", NULL, want2);
}

TEST_HARNESS_MAIN
