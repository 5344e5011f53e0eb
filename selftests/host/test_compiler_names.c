// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OpenCL C compiler: kernel names longer than a signature holds
 * (VMGPU_KERNEL_NAME_MAX, 31 characters), as the CTS names its kernels
 * (test_convert_ushort16_sat_rte_float16, 37). The program keeps the
 * whole name; the signature holds its first 22 characters, '_' and 8 hex
 * digits of its FNV-1a hash; the kernel is found by either, from a build
 * and from a kernel library (whose names are the signatures'). Two long
 * names of the same signature name are an error.
 */
#include <stdio.h>

#include "testcc.h"

#define LONG_NAME	"test_convert_ushort16_sat_rte_float16"

static const char names_src[] =
	"kernel void " LONG_NAME "(global int *out)\n"
	"{\n"
	"	out[get_global_id(0)] = 37;\n"
	"}\n"
	/* 31 characters: held whole */
	"kernel void kernel_name_of_31_characters_a(global int *out)\n"
	"{\n"
	"	out[get_global_id(0)] = 31;\n"
	"}\n"
	/* the same 22 first characters as LONG_NAME, another hash */
	"kernel void test_convert_ushort16_sat_rtz_float16(global int *out)\n"
	"{\n"
	"	out[get_global_id(0)] = 38;\n"
	"}\n";

/* What the compiler's sig_name() gives, written again in C. */
static void sig_name(const char *name, char out[VMGPU_KERNEL_NAME_MAX])
{
	uint32_t h = 2166136261u;
	const char *p;

	if (strlen(name) < VMGPU_KERNEL_NAME_MAX) {
		strcpy(out, name);
		return;
	}
	for (p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	snprintf(out, VMGPU_KERNEL_NAME_MAX, "%.22s_%08x", name, h);
}

/* Kernel @name of @prog: its signature's name is @want. */
static void check_kernel(struct __test_metadata *_metadata,
			 struct vmgpu_program *prog, const char *name,
			 const char *want)
{
	const void *image, *image2;
	struct vmgpu_exec_header h;
	struct vmgpu_exec_sig sig;
	struct vmgpu_exec_param params[VMGPU_MAX_PARAMS];
	const char *why = "";
	size_t bytes, bytes2;

	ASSERT_EQ(0, vmgpu_program_kernel_image(prog, name, &image, &bytes));
	vmgpu_exec_header_read(&h, image);
	ASSERT_TRUE(vmgpu_exec_header_valid(&h));
	ASSERT_EQ(1, vmgpu_exec_sig_read(&h, image, bytes, &sig, params,
					 &why));
	EXPECT_EQ(0, strcmp(want, sig.name));
	EXPECT_EQ(1, sig.num_params);
	/* the signature's name finds the same kernel */
	ASSERT_EQ(0, vmgpu_program_kernel_image(prog, want, &image2, &bytes2));
	EXPECT_EQ(image, image2);
	EXPECT_EQ(0, vmgpu_program_kernel_private_bytes(prog, name));
}

TEST(long_kernel_names)
{
	struct vmgpu_program *prog = build(_metadata, names_src, NULL);
	char s1[VMGPU_KERNEL_NAME_MAX], s3[VMGPU_KERNEL_NAME_MAX];
	const void *image;
	size_t bytes;

	ASSERT_NE(NULL, prog);
	sig_name(LONG_NAME, s1);
	sig_name("test_convert_ushort16_sat_rtz_float16", s3);
	EXPECT_EQ(0, strcmp("test_convert_ushort16__10bbcf41", s1));
	EXPECT_EQ(31, strlen(s1));
	EXPECT_NE(0, strcmp(s1, s3));
	ASSERT_EQ(3, vmgpu_program_kernel_count(prog));
	/* the program keeps the whole names */
	EXPECT_EQ(0, strcmp(LONG_NAME, vmgpu_program_kernel_name(prog, 0)));
	EXPECT_EQ(0, strcmp("kernel_name_of_31_characters_a",
			    vmgpu_program_kernel_name(prog, 1)));
	EXPECT_EQ(0, strcmp("test_convert_ushort16_sat_rtz_float16",
			    vmgpu_program_kernel_name(prog, 2)));
	check_kernel(_metadata, prog, LONG_NAME, s1);
	check_kernel(_metadata, prog, "kernel_name_of_31_characters_a",
		     "kernel_name_of_31_characters_a");
	check_kernel(_metadata, prog, "test_convert_ushort16_sat_rtz_float16",
		     s3);
	EXPECT_EQ(-ENOENT, vmgpu_program_kernel_image(prog,
		  "test_convert_ushort16_sat_rte_float8", &image, &bytes));
	vmgpu_program_destroy(prog);
}

/* Through a kernel library file (as an OpenCL program binary holds it). */
TEST(long_kernel_names_in_a_library)
{
	struct vmgpu_program *prog = build(_metadata, names_src, NULL), *p2 = NULL;
	struct vmgpu_kernlib *lib = NULL, *lib2 = NULL;
	struct vmgpu_compiler *cc = NULL;
	char s1[VMGPU_KERNEL_NAME_MAX], err[256] = "";
	char *log = NULL;
	void *data = NULL;
	size_t bytes = 0;

	ASSERT_NE(NULL, prog);
	sig_name(LONG_NAME, s1);
	ASSERT_EQ(0, vmgpu_kernlib_create("names", NULL, NULL, &lib));
	ASSERT_EQ(0, vmgpu_kernlib_add_program(lib, prog, err, sizeof(err)));
	ASSERT_EQ(0, vmgpu_kernlib_write(lib, &data, &bytes));
	ASSERT_EQ(0, vmgpu_kernlib_read(data, bytes, "names", &lib2, err,
					sizeof(err)));
	ASSERT_EQ(0, vmgpu_compiler_create(NULL, VMGPU_COMPILER_NO_CACHE, &cc));
	ASSERT_EQ(0, vmgpu_kernlib_build(cc, lib2, vmgpu_program_isa_version(prog),
					 NULL, &p2, &log));
	ASSERT_EQ(3, vmgpu_program_kernel_count(p2));
	/* the library's names are the signatures' ... */
	EXPECT_EQ(0, strcmp(s1, vmgpu_program_kernel_name(p2, 0)));
	/* ... and the whole name finds the kernel */
	check_kernel(_metadata, p2, LONG_NAME, s1);
	check_kernel(_metadata, p2, "kernel_name_of_31_characters_a",
		     "kernel_name_of_31_characters_a");
	free(log);
	free(data);
	vmgpu_program_destroy(p2);
	vmgpu_kernlib_destroy(lib2);
	vmgpu_kernlib_destroy(lib);
	vmgpu_compiler_destroy(cc);
	vmgpu_program_destroy(prog);
}

/* Two long names of one signature name (FNV-1a 8536dc4f both). */
TEST(long_kernel_names_collide)
{
	static const char src[] =
		"kernel void collide_kernel_name_ab_long_ilbvs(global int *o)\n"
		"{ o[0] = 1; }\n"
		"kernel void collide_kernel_name_ab_long_wacxa(global int *o)\n"
		"{ o[0] = 2; }\n";
	static const char *const want[] = {
		"error: kernels 'collide_kernel_name_ab_long_ilbvs' and "
		"'collide_kernel_name_ab_long_wacxa' have the same first 22 "
		"characters and hash (collide_kernel_name_ab_8536dc4f)",
		NULL
	};

	build_fails(_metadata, src, NULL, want);
}

TEST_HARNESS_MAIN
