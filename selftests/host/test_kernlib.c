// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel libraries (SPEC P4): one library of OpenCL C and hand-assembled
 * executables built for each device's ISA version by the rules, online
 * compilation, the kernel cache on disk (damaged entries ignored and
 * replaced, its directory from the argument or the environment), the
 * library file format, builds in several threads sharing one compiler.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testcc.h"
#include "vmgpu/compiler.h"

/* ------------------------------------------------------------------ */
/* Kernel libraries, online compilation, the kernel cache (SPEC P4)     */
/* ------------------------------------------------------------------ */

/*
 * The kernel "mark": out[i] = f(v), f telling where it came from: the
 * source computes v * 3 + TAG (TAG from the library's options), the
 * hand-assembled executables v + 100 (version 1) and v + 200 + %itemcount
 * (version 2: %itemcount is 0 outside queue tasks).
 */
static const char mark_src[] =
	"kernel void mark(global uint *out, uint v)\n"
	"{\n"
	"	out[get_global_id(0)] = v * 3u + TAG;\n"
	"}\n";

/* Needs ISA version 2: reads the queue task's item count. */
static const char mark_v2_src[] =
	"kernel void mark(global uint *out, uint v)\n"
	"{\n"
	"	out[get_global_id(0)] = v * 3u + TAG + vmgpu_item_count();\n"
	"}\n";

static const char mark_asm_head[] =
	".args 16\n.kernel mark\n.param out, buf_wo, 0\n.param v, i32, 8\n"
	"	s2r r0, %ctaid.x\n	s2r r1, %ntid.x\n	s2r r2, %tid.x\n"
	"	mad r0, r0, r1, r2\n	ldarg.64 r2, 0\n	lea r2, r2, r0, 2\n"
	"	ldarg r4, 8\n";

static void *mark_exec(uint32_t version, size_t *bytes)
{
	char src[1024], err[256];
	void *image;

	snprintf(src, sizeof(src), "%s%s", mark_asm_head, version == 1 ?
		 "	add r4, r4, 100\n	st.32 [r2], r4\n	exit\n" :
		 "	add r4, r4, 200\n	s2r r5, %itemcount\n"
		 "	add r4, r4, r5\n	st.32 [r2], r4\n	exit\n");
	if (vmgpu_asm_assemble(src, &image, bytes, err, sizeof(err))) {
		fprintf(stderr, "mark_exec: %s\n", err);
		abort();
	}
	return image;
}

/* Add the hand-assembled mark executable of @version. */
static void add_mark(struct __test_metadata *_metadata,
		     struct vmgpu_kernlib *lib, uint32_t version)
{
	char err[200] = "";
	size_t bytes;
	void *image = mark_exec(version, &bytes);
	struct vmgpu_exec_header h;

	vmgpu_exec_header_read(&h, image);
	ASSERT_EQ(version, h.isa_version);
	EXPECT_EQ(0, vmgpu_kernlib_add_executable(lib, version, image, bytes,
						  0, err, sizeof(err)))
		TH_LOG("%s", err);
	free(image);
}

/* Run @prog's mark(v) as a device of ISA version @isa; out[5]. */
static uint32_t run_mark(struct __test_metadata *_metadata,
			 struct testmem *tm, struct vmgpu_program *prog,
			 uint32_t isa, uint32_t v)
{
	uint64_t va = testmem_alloc(tm, 64 * 4);
	uint32_t *out = testmem_ptr(tm, va);
	struct ck c;
	uint32_t i, r;

	load_isa(_metadata, prog, "mark", isa, &c);
	if (!c.k)
		return ~0u;
	set_u64(&c, 0, va);
	set_u32(&c, 1, v);
	EXPECT_EQ(0, run1d(tm, &c, 64, 32));
	for (i = 1; i < 64; i++)
		EXPECT_EQ(out[0], out[i]);
	r = out[5];
	vg_kernel_free(c.k);
	return r;
}

/* A fresh directory under /tmp, and its removal (one level of files). */
static char *tmp_dir(void)
{
	char *d = strdup("/tmp/vmgpu-kc-XXXXXX");

	if (!d || !mkdtemp(d))
		abort();
	return d;
}

static void rm_dir(char *d)
{
	struct dirent *e;
	DIR *dir = opendir(d);
	char path[512];

	while (dir && (e = readdir(dir))) {
		if (e->d_name[0] == '.' && (!e->d_name[1] ||
		    (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		snprintf(path, sizeof(path), "%s/%s", d, e->d_name);
		unlink(path);
	}
	if (dir)
		closedir(dir);
	rmdir(d);
	free(d);
}

static uint8_t *read_bytes(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = malloc(1 << 20);

	if (!f || !b)
		abort();
	*n = fread(b, 1, 1 << 20, f);
	fclose(f);
	return b;
}

/* Files in @d ending in .vkl; the path of the last one into @path. */
static int cache_entries(const char *d, char *path, size_t len)
{
	struct dirent *e;
	DIR *dir = opendir(d);
	int n = 0;

	while (dir && (e = readdir(dir))) {
		size_t l = strlen(e->d_name);

		if (l > 4 && !strcmp(e->d_name + l - 4, ".vkl")) {
			n++;
			if (path)
				snprintf(path, len, "%s/%s", d, e->d_name);
		}
	}
	if (dir)
		closedir(dir);
	return n;
}

static struct vmgpu_program *kl_build(struct __test_metadata *_metadata,
				      struct vmgpu_compiler *cc,
				      struct vmgpu_kernlib *lib, uint32_t isa,
				      int want_r, int want_origin,
				      const char *want_log)
{
	struct vmgpu_program *prog = NULL;
	char *log = NULL;
	int r = vmgpu_kernlib_build(cc, lib, isa, NULL, &prog, &log);

	EXPECT_EQ(want_r, r) TH_LOG("log:\n%s", log ? log : "");
	if (!r) {
		EXPECT_EQ(want_origin, vmgpu_program_origin(prog));
		EXPECT_EQ((int)isa, vmgpu_program_isa_version(prog));
	} else {
		EXPECT_EQ(NULL, prog);
	}
	ASSERT_NE(NULL, log);
	if (want_log)
		EXPECT_NE(NULL, strstr(log, want_log)) TH_LOG("log:\n%s", log);
	free(log);
	return prog;
}

static struct vmgpu_compiler_stats kl_stats(struct vmgpu_compiler *cc)
{
	struct vmgpu_compiler_stats st;

	if (vmgpu_compiler_get_stats(cc, &st))
		abort();
	return st;
}

/*
 * The four rules (compiler.rst), on a device of ISA version 1 and one of
 * version 2, each result run through the interpreter as that device.
 */
TEST_F(cc, kernlib_four_rules_on_both_isa_versions)
{
	uint32_t isa;

	for (isa = VMGPU_ISA_VERSION_MIN; isa <= VMGPU_ISA_VERSION; isa++) {
		char *dir = tmp_dir(), *log = NULL;
		struct vmgpu_compiler *cc;
		struct vmgpu_compiler_stats st;
		struct vmgpu_kernlib *lib;
		struct vmgpu_program *p;
		uint32_t other = isa == 1 ? 2 : 1;

		ASSERT_EQ(0, vmgpu_compiler_create(dir, 0, &cc));
		EXPECT_STREQ(dir, vmgpu_compiler_cache_dir(cc));

		/* 1. an executable of the device's version: as is (the
		 * source, here, is not even compiled) */
		ASSERT_EQ(0, vmgpu_kernlib_create("as-is", mark_src, "-DTAG=7",
						  &lib));
		if (isa != 1)
			add_mark(_metadata, lib, 1);
		add_mark(_metadata, lib, isa);
		EXPECT_EQ(isa == 1 ? 2 : 6, vmgpu_kernlib_isa_versions(lib));
		p = kl_build(_metadata, cc, lib, isa, 0, VMGPU_PROGRAM_AS_IS,
			     "used as they are");
		EXPECT_EQ(isa == 1 ? 105u : 205u,
			  run_mark(_metadata, self->tm, p, isa, 5));
		vmgpu_program_destroy(p);
		vmgpu_kernlib_destroy(lib);
		st = kl_stats(cc);
		EXPECT_EQ(1, st.as_is);
		EXPECT_EQ(0, st.compiles);

		/* 2. a mismatch with source: compiled once, then the cache */
		ASSERT_EQ(0, vmgpu_kernlib_create("mismatch", mark_src,
						  "-DTAG=7", &lib));
		if (other <= isa)
			add_mark(_metadata, lib, other);
		p = kl_build(_metadata, cc, lib, isa, 0,
			     VMGPU_PROGRAM_COMPILED, "compiled for ISA version");
		EXPECT_EQ(22u, run_mark(_metadata, self->tm, p, isa, 5));
		vmgpu_program_destroy(p);
		st = kl_stats(cc);
		EXPECT_EQ(1, st.compiles);
		EXPECT_EQ(1, st.cache_misses);
		EXPECT_EQ(1, st.cache_stores);
		EXPECT_EQ(0, st.cache_hits);
		EXPECT_EQ(1, cache_entries(dir, NULL, 0));
		p = kl_build(_metadata, cc, lib, isa, 0, VMGPU_PROGRAM_CACHED,
			     "from the kernel cache");
		EXPECT_EQ(22u, run_mark(_metadata, self->tm, p, isa, 5));
		vmgpu_program_destroy(p);
		st = kl_stats(cc);
		EXPECT_EQ(1, st.compiles);
		EXPECT_EQ(1, st.cache_hits);
		/* other options: another entry */
		ASSERT_EQ(0, vmgpu_kernlib_build(cc, lib, isa, "-DEXTRA", &p,
						 &log));
		free(log);
		EXPECT_EQ(VMGPU_PROGRAM_COMPILED, vmgpu_program_origin(p));
		vmgpu_program_destroy(p);
		EXPECT_EQ(2, cache_entries(dir, NULL, 0));
		vmgpu_kernlib_destroy(lib);

		/* 3. the source does not compile for this version: the
		 * newest older executable (none older than 1: rule 4) */
		ASSERT_EQ(0, vmgpu_kernlib_create("fallback", mark_v2_src,
						  "-DTAG=7", &lib));
		if (isa == 2) {
			/* ... it compiles for 2, so break it for 2 only */
			vmgpu_kernlib_destroy(lib);
			ASSERT_EQ(0, vmgpu_kernlib_create("fallback",
							  "kernel void mark(",
							  NULL, &lib));
		}
		add_mark(_metadata, lib, 1);
		p = kl_build(_metadata, cc, lib, isa, 0,
			     isa == 1 ? VMGPU_PROGRAM_AS_IS :
					VMGPU_PROGRAM_FALLBACK,
			     isa == 1 ? "used as they are" :
			     "using the executables for ISA version 1");
		EXPECT_EQ(105u, run_mark(_metadata, self->tm, p, isa, 5));
		vmgpu_program_destroy(p);
		vmgpu_kernlib_destroy(lib);

		/* 4. neither: -ENOEXEC naming the library and versions */
		ASSERT_EQ(0, vmgpu_kernlib_create("nothing", mark_v2_src,
						  "-DTAG=7", &lib));
		if (isa == 1) {
			add_mark(_metadata, lib, 2);
			p = kl_build(_metadata, cc, lib, 1, -ENOEXEC, 0,
				     "nothing: error: no executable for ISA "
				     "version 1 (the library has executables "
				     "for: 2) and its source does not compile");
			vmgpu_program_destroy(p);
			st = kl_stats(cc);
			EXPECT_EQ(1, st.compile_failures);
			EXPECT_EQ(1, st.failures);
		} else {
			/* ISA 2 compiles what needs it */
			p = kl_build(_metadata, cc, lib, 2, 0,
				     VMGPU_PROGRAM_COMPILED, NULL);
			EXPECT_EQ(22u, run_mark(_metadata, self->tm, p, 2, 5));
			vmgpu_program_destroy(p);
		}
		vmgpu_kernlib_destroy(lib);
		ASSERT_EQ(0, vmgpu_kernlib_create("no-source", NULL, NULL,
						  &lib));
		p = kl_build(_metadata, cc, lib, isa, -ENOEXEC, 0,
			     "(the library has executables for: none) and no "
			     "source to compile");
		vmgpu_kernlib_destroy(lib);
		vmgpu_compiler_destroy(cc);
		rm_dir(dir);
	}
}

/* The compile error of a version-2 feature for version 1, at its line. */
TEST(kernlib_isa2_feature_is_a_compile_error_for_isa1)
{
	static const char *const want[] = {
		"input.cl:3:", "error: special register %itemcount needs ISA "
		"version 2; compiling for ISA version 1", NULL };
	struct vmgpu_program *p;
	struct vmgpu_exec_header h;
	const void *image;
	size_t bytes;

	build_fails(_metadata, mark_v2_src, "-DTAG=1 -vmgpu-isa=1", want);
	p = build(_metadata, mark_v2_src, "-DTAG=1 -vmgpu-isa=2");
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, vmgpu_program_kernel_image(p, "mark", &image, &bytes));
	vmgpu_exec_header_read(&h, image);
	EXPECT_EQ(2, h.isa_version);
	vmgpu_program_destroy(p);
	/* without it, a version-1 executable even when built for 2 */
	p = build(_metadata, mark_src, "-DTAG=1 -vmgpu-isa=2");
	ASSERT_EQ(0, vmgpu_program_kernel_image(p, "mark", &image, &bytes));
	vmgpu_exec_header_read(&h, image);
	EXPECT_EQ(1, h.isa_version);
	vmgpu_program_destroy(p);
}

/* A damaged cache entry is detected, ignored, and replaced. */
TEST_F(cc, kernlib_corrupt_cache_entries_ignored)
{
	char *dir = tmp_dir(), path[512], *log;
	struct vmgpu_compiler *cc;
	struct vmgpu_kernlib *lib;
	struct vmgpu_program *p;
	struct vmgpu_compiler_stats st;
	uint8_t *data;
	size_t n;
	int fd, round;

	ASSERT_EQ(0, vmgpu_compiler_create(dir, 0, &cc));
	ASSERT_EQ(0, vmgpu_kernlib_create("c", mark_src, "-DTAG=1", &lib));
	p = kl_build(_metadata, cc, lib, 2, 0, VMGPU_PROGRAM_COMPILED, NULL);
	vmgpu_program_destroy(p);
	ASSERT_EQ(1, cache_entries(dir, path, sizeof(path)));
	data = read_bytes(path, &n);
	ASSERT_NE(NULL, data);
	/* truncated; a flipped header byte; a bad instruction; garbage */
	for (round = 0; round < 4; round++) {
		fd = open(path, O_WRONLY | O_TRUNC);
		ASSERT_LE(0, fd);
		if (round == 0) {
			ASSERT_EQ((ssize_t)(n - 9), write(fd, data, n - 9));
		} else if (round == 1) {
			data[4] ^= 1;
			ASSERT_EQ((ssize_t)n, write(fd, data, n));
			data[4] ^= 1;
		} else if (round == 2) {
			/* the first instruction's opcode of the executable
			 * (file header, two set words, two kernel words,
			 * executable header): 0x7f is no instruction */
			uint8_t save = data[32 + 8 + 8 + 32];

			data[32 + 8 + 8 + 32] = 0x7f;
			ASSERT_EQ((ssize_t)n, write(fd, data, n));
			data[32 + 8 + 8 + 32] = save;
		} else {
			ASSERT_EQ(5, write(fd, "junk\n", 5));
		}
		close(fd);
		log = NULL;
		ASSERT_EQ(0, vmgpu_kernlib_build(cc, lib, 2, NULL, &p, &log));
		EXPECT_EQ(VMGPU_PROGRAM_COMPILED, vmgpu_program_origin(p));
		EXPECT_EQ(4u, run_mark(_metadata, self->tm, p, 2, 1));
		vmgpu_program_destroy(p);
		free(log);
		st = kl_stats(cc);
		EXPECT_EQ((uint64_t)round + 1, st.cache_corrupt);
		EXPECT_EQ((uint64_t)round + 2, st.compiles);
		EXPECT_EQ((uint64_t)round + 2, st.cache_stores);
	}
	/* and the replaced entry is good again */
	p = kl_build(_metadata, cc, lib, 2, 0, VMGPU_PROGRAM_CACHED, NULL);
	vmgpu_program_destroy(p);
	/* an unwritable cache is counted, the build still works */
	vmgpu_compiler_destroy(cc);
	ASSERT_EQ(0, vmgpu_compiler_create("/proc/vmgpu-no-such-dir", 0, &cc));
	p = kl_build(_metadata, cc, lib, 2, 0, VMGPU_PROGRAM_COMPILED, NULL);
	vmgpu_program_destroy(p);
	EXPECT_EQ(1, kl_stats(cc).cache_store_failures);
	vmgpu_compiler_destroy(cc);
	free(data);
	vmgpu_kernlib_destroy(lib);
	rm_dir(dir);
}

/* The cache directory: the argument, then the environment. */
TEST(kernlib_cache_directory)
{
	struct vmgpu_compiler *cc;
	char *save[3];
	static const char *const vars[3] = {
		"VMGPU_KERNEL_CACHE", "XDG_CACHE_HOME", "HOME" };
	int i;

	for (i = 0; i < 3; i++) {
		save[i] = getenv(vars[i]) ? strdup(getenv(vars[i])) : NULL;
		unsetenv(vars[i]);
	}
	ASSERT_EQ(0, vmgpu_compiler_create(NULL, 0, &cc));
	EXPECT_STREQ("", vmgpu_compiler_cache_dir(cc));
	vmgpu_compiler_destroy(cc);
	setenv("HOME", "/", 1);
	ASSERT_EQ(0, vmgpu_compiler_create(NULL, 0, &cc));
	EXPECT_STREQ("/.cache/vmgpu/kernels", vmgpu_compiler_cache_dir(cc));
	vmgpu_compiler_destroy(cc);
	setenv("HOME", "relative", 1);		/* not absolute: ignored */
	ASSERT_EQ(0, vmgpu_compiler_create(NULL, 0, &cc));
	EXPECT_STREQ("", vmgpu_compiler_cache_dir(cc));
	vmgpu_compiler_destroy(cc);
	setenv("HOME", "/h", 1);
	ASSERT_EQ(0, vmgpu_compiler_create(NULL, 0, &cc));
	EXPECT_STREQ("/h/.cache/vmgpu/kernels", vmgpu_compiler_cache_dir(cc));
	vmgpu_compiler_destroy(cc);
	setenv("XDG_CACHE_HOME", "/x/", 1);
	ASSERT_EQ(0, vmgpu_compiler_create(NULL, 0, &cc));
	EXPECT_STREQ("/x/vmgpu/kernels", vmgpu_compiler_cache_dir(cc));
	vmgpu_compiler_destroy(cc);
	setenv("VMGPU_KERNEL_CACHE", "/k/", 1);
	ASSERT_EQ(0, vmgpu_compiler_create(NULL, 0, &cc));
	EXPECT_STREQ("/k", vmgpu_compiler_cache_dir(cc));
	vmgpu_compiler_destroy(cc);
	ASSERT_EQ(0, vmgpu_compiler_create("/o", 0, &cc));
	EXPECT_STREQ("/o", vmgpu_compiler_cache_dir(cc));
	vmgpu_compiler_destroy(cc);
	ASSERT_EQ(0, vmgpu_compiler_create("/o", VMGPU_COMPILER_NO_CACHE,
					   &cc));
	EXPECT_STREQ("", vmgpu_compiler_cache_dir(cc));
	vmgpu_compiler_destroy(cc);
	EXPECT_EQ(-EINVAL, vmgpu_compiler_create("rel", 0, &cc));
	EXPECT_EQ(NULL, cc);
	EXPECT_EQ(-EINVAL, vmgpu_compiler_create(NULL, 2, &cc));
	EXPECT_EQ(-EINVAL, vmgpu_compiler_create(NULL, 0, NULL));
	for (i = 0; i < 3; i++) {
		if (save[i])
			setenv(vars[i], save[i], 1);
		else
			unsetenv(vars[i]);
		free(save[i]);
	}
}

/* A library file: round trip, then every kind of damage refused. */
TEST(kernlib_file_format)
{
	struct vmgpu_kernlib *lib, *back;
	struct vmgpu_program *p;
	char err[256], *dir = tmp_dir(), path[512];
	void *data, *data2, *img;
	size_t n, n2, i, ibytes;
	uint8_t *d;

	ASSERT_EQ(0, vmgpu_kernlib_create("f", mark_src, "-DTAG=3", &lib));
	p = build(_metadata, mark_src, "-DTAG=3 -vmgpu-isa=1");
	ASSERT_EQ(0, vmgpu_kernlib_add_program(lib, p, err, sizeof(err)));
	EXPECT_EQ(-EEXIST, vmgpu_kernlib_add_program(lib, p, err,
						     sizeof(err)));
	vmgpu_program_destroy(p);
	img = mark_exec(2, &ibytes);
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_add_executable(lib, 1, img, ibytes,
							0, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "ISA version 2 for version 1"));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_add_executable(lib, 3, img, ibytes,
							0, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_add_executable(lib, 2, img,
							ibytes - 1, 0, err,
							sizeof(err)));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_add_executable(lib, 2, img, ibytes,
							3, err, sizeof(err)));
	ASSERT_EQ(0, vmgpu_kernlib_add_executable(lib, 2, img, ibytes, 0,
						  err, sizeof(err)));
	free(img);
	EXPECT_EQ(6, vmgpu_kernlib_isa_versions(lib));

	ASSERT_EQ(0, vmgpu_kernlib_write(lib, &data, &n));
	d = data;
	EXPECT_EQ(0, memcmp(d, "VKLB", 4));
	EXPECT_EQ(0, n % 8);
	snprintf(path, sizeof(path), "%s/lib.vkl", dir);
	ASSERT_EQ(0, vmgpu_kernlib_write_file(lib, path));
	ASSERT_EQ(0, vmgpu_kernlib_read_file(path, &back, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, vmgpu_kernlib_write(back, &data2, &n2));
	ASSERT_EQ(n, n2);
	EXPECT_EQ(0, memcmp(data, data2, n));
	free(data2);
	vmgpu_kernlib_destroy(back);

	/* every truncation, and a byte more */
	for (i = 0; i < n; i += (i < 64 ? 1 : 7))
		EXPECT_EQ(-EINVAL, vmgpu_kernlib_read(data, i, "t", &back, err,
						      sizeof(err)));
	d = realloc(data, n + 1);
	ASSERT_NE(NULL, d);
	data = d;
	d[n] = 0;
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_read(d, n + 1, "t", &back, err,
					      sizeof(err)));
	/* each header word changed */
	for (i = 0; i < 32; i += 4) {
		d[i] ^= 0x40;
		EXPECT_EQ(-EINVAL, vmgpu_kernlib_read(d, n, "t", &back, err,
						      sizeof(err)))
			TH_LOG("header byte %zu", i);
		EXPECT_EQ(NULL, back);
		d[i] ^= 0x40;
	}
	d[0] ^= 1;
	vmgpu_kernlib_read(d, n, "t", &back, err, sizeof(err));
	EXPECT_NE(NULL, strstr(err, "bad magic"));
	d[0] ^= 1;
	ASSERT_EQ(0, vmgpu_kernlib_read(d, n, "t", &back, err, sizeof(err)));
	vmgpu_kernlib_destroy(back);
	EXPECT_EQ(-ENOENT, vmgpu_kernlib_read_file("/nonexistent/x.vkl",
						   &back, err, sizeof(err)));
	free(data);
	vmgpu_kernlib_destroy(lib);
	rm_dir(dir);
}

/* Builds in several threads share one compiler, library and cache. */
struct kl_thread {
	struct vmgpu_compiler *cc;
	struct vmgpu_kernlib *lib;
	int r, origin;
};

static void *kl_thread_fn(void *arg)
{
	struct kl_thread *t = arg;
	struct vmgpu_program *p = NULL;

	t->r = vmgpu_kernlib_build(t->cc, t->lib, 2, NULL, &p, NULL);
	t->origin = vmgpu_program_origin(p);
	vmgpu_program_destroy(p);
	return NULL;
}

TEST(kernlib_concurrent_builds)
{
	struct kl_thread t[3];
	pthread_t th[3];
	struct vmgpu_compiler *cc;
	struct vmgpu_kernlib *lib;
	struct vmgpu_compiler_stats st;
	char *dir = tmp_dir();
	int i;

	ASSERT_EQ(0, vmgpu_compiler_create(dir, 0, &cc));
	ASSERT_EQ(0, vmgpu_kernlib_create("t", mark_src, "-DTAG=2", &lib));
	for (i = 0; i < 3; i++) {
		t[i].cc = cc;
		t[i].lib = lib;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, kl_thread_fn, &t[i]));
	}
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, pthread_join(th[i], NULL));
		EXPECT_EQ(0, t[i].r);
	}
	st = kl_stats(cc);
	EXPECT_EQ(3, st.builds);
	EXPECT_EQ(3, st.compiles + st.cache_hits);
	EXPECT_EQ(st.compiles, st.cache_stores);
	EXPECT_EQ(0, st.cache_corrupt);
	EXPECT_EQ(1, cache_entries(dir, NULL, 0));
	vmgpu_kernlib_destroy(lib);
	vmgpu_compiler_destroy(cc);
	rm_dir(dir);
}

TEST(kernlib_bad_arguments)
{
	struct vmgpu_compiler *cc;
	struct vmgpu_kernlib *lib;
	struct vmgpu_program *p;
	char *log;

	ASSERT_EQ(0, vmgpu_compiler_create(NULL, VMGPU_COMPILER_NO_CACHE,
					   &cc));
	ASSERT_EQ(0, vmgpu_kernlib_create(NULL, mark_src, "-DTAG=1", &lib));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_build(cc, lib, 0, NULL, &p, &log));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_build(cc, lib, VMGPU_ISA_VERSION + 1,
					       NULL, &p, &log));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_build(NULL, lib, 1, NULL, &p, &log));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_build(cc, NULL, 1, NULL, &p, &log));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_build(cc, lib, 1, NULL, NULL, &log));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_build_for_device(cc, lib, NULL, NULL,
							  &p, &log));
	EXPECT_EQ(-EINVAL, vmgpu_kernlib_isa_versions(NULL));
	EXPECT_EQ(-EINVAL, vmgpu_program_origin(NULL));
	/* without a cache every build compiles */
	p = kl_build(_metadata, cc, lib, 1, 0, VMGPU_PROGRAM_COMPILED,
		     "kernels: note: compiled");
	vmgpu_program_destroy(p);
	p = kl_build(_metadata, cc, lib, 1, 0, VMGPU_PROGRAM_COMPILED, NULL);
	vmgpu_program_destroy(p);
	EXPECT_EQ(2, kl_stats(cc).compiles);
	EXPECT_EQ(0, kl_stats(cc).cache_misses);
	vmgpu_kernlib_destroy(lib);
	vmgpu_compiler_destroy(cc);
}

TEST_HARNESS_MAIN
