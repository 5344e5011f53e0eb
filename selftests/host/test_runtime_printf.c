// SPDX-License-Identifier: GPL-2.0-only
/*
 * OpenCL C's printf end to end (Documentation/compiler.rst, "printf"):
 * kernels compiled from source append records to their hidden printf
 * buffer, the runtime writes them to standard output when the instance
 * has run, before vmgpu_rt_wait() returns. Compared with the C library's
 * printf of the same values: every conversion and flag of scalars,
 * vectors of every element type and width with the hh, h, hl and l
 * modifiers, string literals, %c, %p and %%; 4096 work-items each
 * printing its id; a buffer that overflows (printf returns -1 for what
 * was dropped, the rest whole); a GPU of the device model and the CPU
 * device; the compile errors; and vmgpu_printf_write() on damaged and
 * random buffers (under ASan: nothing read outside them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "testcapture.h"
#include "testrt.h"
#include "vmgpu/compiler.h"

FIXTURE(pf) {
	struct trt *t;
	struct vmgpu_rt *rt;
	uint32_t cpu;
	char msg[512];
};

FIXTURE_SETUP(pf)
{
	struct vmgpu_rt_backend be;
	struct vmgpu_rt_config cfg = { 0 };

	self->t = trt_new(1, 4, 256);
	ASSERT_NE(NULL, self->t);
	be = trt_backend(self->t);
	cfg.backends = &be;
	cfg.num_backends = 1;
	cfg.cpu_threads = 2;
	ASSERT_EQ(0, vmgpu_rt_create(&cfg, &self->rt));
	self->cpu = 1;
}

FIXTURE_TEARDOWN(pf)
{
	vmgpu_rt_destroy(self->rt);
	trt_free(self->t);
}

/*
 * Build @src, run kernel "k" with @items work-items (blocks of at most
 * 256) on device @phys, its one argument a buffer of @out_bytes (NULL:
 * none) read back into @out; returns what it printed (free() it).
 */
static char *run(struct __test_metadata *_metadata, FIXTURE_DATA(pf) *self,
		 const char *src, uint32_t phys, uint32_t items,
		 void *out, size_t out_bytes)
{
	vmgpu_rt_handle ctx, q, k, buf = 0, ev;
	struct vmgpu_rt_instance inst = { 0 };
	struct vmgpu_rt_arg arg = { 0 };
	struct vmgpu_program *prog = NULL;
	struct vmgpu_rt_param_info info;
	struct capture c;
	uint32_t dev;
	char *log = NULL, *text;
	int r;

	r = vmgpu_program_build(src, NULL, &prog, &log);
	EXPECT_EQ(0, r) TH_LOG("%s", log ? log : "no log");
	free(log);
	if (r)
		return strdup("");
	EXPECT_EQ(0, vmgpu_rt_logical_device(self->rt, &phys, 1, &dev));
	EXPECT_EQ(0, vmgpu_rt_context_create(self->rt, dev, 0, &ctx));
	EXPECT_EQ(0, vmgpu_rt_queue_create(self->rt, ctx, &q));
	EXPECT_EQ(0, vmgpu_rt_kernel_from_program(self->rt, ctx, prog, "k", &k));
	/* the printf buffer is hidden: not counted, the runtime's */
	EXPECT_EQ(out ? 1 : 0, vmgpu_rt_kernel_param_count(self->rt, k));
	EXPECT_EQ(0, vmgpu_rt_kernel_param_info(self->rt, k, out ? 1 : 0,
						&info));
	EXPECT_EQ(VMGPU_RT_PARAM_PRINTF, info.kind);
	EXPECT_STREQ(VMGPU_PRINTF_PARAM, info.name);
	if (out) {
		EXPECT_EQ(0, vmgpu_rt_buffer_create(self->rt, ctx, out_bytes,
						    &buf));
		arg.type = VMGPU_PARAM_BUF_RW;
		arg.buf = buf;
		inst.num_args = 1;
		inst.args = &arg;
	}
	inst.kernel = k;
	inst.block[0] = items < 256 ? items : 256;
	inst.grid[0] = (items + inst.block[0] - 1) / inst.block[0];
	capture_start(&c);
	r = vmgpu_rt_enqueue(self->rt, q, &inst, &ev);
	if (!r)
		r = vmgpu_rt_wait(self->rt, ev, -1);
	/* written before the wait returned: nothing flushed after */
	text = capture_end(&c, NULL);
	EXPECT_EQ(0, r) TH_LOG("%s", (vmgpu_rt_error_message(self->rt,
				self->msg, sizeof(self->msg)), self->msg));
	if (!r)
		vmgpu_rt_release(self->rt, ev);
	if (out)
		EXPECT_EQ(0, vmgpu_rt_buffer_read(self->rt, buf, 0, out,
						  out_bytes));
	if (buf)
		vmgpu_rt_release(self->rt, buf);
	vmgpu_rt_release(self->rt, k);
	vmgpu_rt_release(self->rt, q);
	vmgpu_rt_release(self->rt, ctx);
	vmgpu_program_destroy(prog);
	return text;
}

/* Every scalar conversion, flags, widths, precisions; its return 0. */
TEST_F(pf, scalars)
{
	static const char src[] =
	"void f(int x) { printf(\"f%d\\n\", x); }\n"
	"kernel void k(global int *r)\n"
	"{\n"
	"	r[0] = printf(\"%d|%5d|%-5d|%05d|%+d|% d|%.3i|%hhd|%hd|%ld\\n\",\n"
	"		-42, 42, 42, -42, 7, 7, 5, 300, 70000, -1234567890123l);\n"
	"	r[1] = printf(\"%u|%o|%#o|%x|%#X|%08x|%lu|%lx\\n\",\n"
	"		3000000000u, 8, 8, 0xabcdef, 0xabcdef, 255,\n"
	"		18446744073709551615ul, 0x123456789al);\n"
	"	r[2] = printf(\"%f|%.2f|%10.3e|%E|%g|%G|%a|%.0f|%-8.1f|%+f\\n\",\n"
	"		1.5f, 3.14159f, 12345.678f, 0.000123f, 100000.0f,\n"
	"		1e-10f, 0.1f, 0.6f, 2.25f, 1.0f);\n"
	"	r[3] = printf(\"%f %f %f\\n\", 1.0f / 0.0f, -1.0f / 0.0f,\n"
	"		-0.0f);\n"
	"	r[4] = printf(\"%c%c|%4c|%-4c|100%%|%s|%5s|%-5s|%.2s|%s\\n\",\n"
	"		'o', 'k', 'x', 'y', \"str\", \"ab\", \"cd\", \"efgh\", \"%%d\");\n"
	"	f(11);\n"
	"	r[5] = printf(\"no conversion\\n\");\n"
	"	r[6] = printf(\"%p\\n\", r);\n"
	"}\n";
	char want[2048], line[256];
	int r[8], i;
	uint32_t devs[2] = { 0, self->cpu }, d;

	for (d = 0; d < 2; d++) {
		char *got;

		memset(r, 0x55, sizeof(r));
		got = run(_metadata, self, src, devs[d], 1, r, sizeof(r));
		snprintf(want, sizeof(want),
			 "%d|%5d|%-5d|%05d|%+d|% d|%.3i|%hhd|%hd|%ld\n",
			 -42, 42, 42, -42, 7, 7, 5, (char)300, (short)70000,
			 -1234567890123l);
		snprintf(line, sizeof(line), "%u|%o|%#o|%x|%#X|%08x|%lu|%lx\n",
			 3000000000u, 8, 8, 0xabcdef, 0xabcdef, 255,
			 18446744073709551615ul, 0x123456789al);
		strcat(want, line);
		snprintf(line, sizeof(line),
			 "%f|%.2f|%10.3e|%E|%g|%G|%a|%.0f|%-8.1f|%+f\n",
			 1.5f, 3.14159f, 12345.678f, 0.000123f, 100000.0f,
			 1e-10f, 0.1f, 0.6f, 2.25f, 1.0f);
		strcat(want, line);
		snprintf(line, sizeof(line), "%f %f %f\n", 1.0 / 0.0,
			 -1.0 / 0.0, -0.0);
		strcat(want, line);
		strcat(want, "ok|   x|y   |100%|str|   ab|cd   |ef|%%d\n"
			     "f11\nno conversion\n");
		/* the last line: the pointer, checked by its value */
		EXPECT_EQ(0, strncmp(want, got, strlen(want)))
			TH_LOG("device %u:\nwant:\n%sgot:\n%s", devs[d], want, got);
		if (strlen(got) >= strlen(want))
			EXPECT_EQ(0, strncmp(got + strlen(want), "0x", 2))
				TH_LOG("%%p: %s", got + strlen(want));
		for (i = 0; i < 7; i++)
			EXPECT_EQ(0, r[i]) TH_LOG("printf %d returned %d", i,
						  r[i]);
		free(got);
	}
}

/* Vectors of every element type, width and modifier. */
TEST_F(pf, vectors)
{
	static const char src[] =
	"kernel void k(void)\n"
	"{\n"
	"	printf(\"%v4hlf\\n\", (float4)(1.0f, 2.5f, -3.0f, 0.125f));\n"
	"	printf(\"%2.2v4hlf\\n\", (float4)(1.0f, 2.0f, 3.0f, 4.0f));\n"
	"	printf(\"%#v2hhx\\n\", (uchar2)(0xFA, 0xFB));\n"
	"	printf(\"%v3hhd\\n\", (char3)(-1, 2, -128));\n"
	"	printf(\"%#v2hx\\n\", (ushort2)(0x1234, 0x8765));\n"
	"	printf(\"%v8hd\\n\", (short8)(-1, 2, -3, 4, -5, 6, -7, 32767));\n"
	"	printf(\"%#v2hlx\\n\", (uint2)(0x12345678, 0x87654321));\n"
	"	printf(\"%v4hli\\n\", (int4)(-1, 0, 1, 2147483647));\n"
	"	printf(\"%v2ld\\n\", (long2)(12345678, -98765432109l));\n"
	"	printf(\"%v3lu\\n\", (ulong3)(1, 18446744073709551615ul, 3));\n"
	"	printf(\"%v16hhu\\n\", (uchar16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9,\n"
	"		10, 11, 12, 13, 14, 255));\n"
	"	printf(\"%v2hle %v2hlg\\n\", (float2)(1e10f, -2.0f),\n"
	"		(float2)(0.5f, 1e-5f));\n"
	"}\n";
	char want[2048], line[256];
	uint32_t devs[2] = { 0, self->cpu }, d;

	want[0] = 0;
	snprintf(line, sizeof(line), "%f,%f,%f,%f\n", 1.0, 2.5, -3.0, 0.125);
	strcat(want, line);
	strcat(want, "1.00,2.00,3.00,4.00\n0xfa,0xfb\n-1,2,-128\n"
		     "0x1234,0x8765\n-1,2,-3,4,-5,6,-7,32767\n"
		     "0x12345678,0x87654321\n-1,0,1,2147483647\n"
		     "12345678,-98765432109\n1,18446744073709551615,3\n"
		     "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,255\n");
	snprintf(line, sizeof(line), "%e,%e %g,%g\n", 1e10f, -2.0, 0.5,
		 1e-5f);
	strcat(want, line);
	for (d = 0; d < 2; d++) {
		char *got = run(_metadata, self, src, devs[d], 1, NULL, 0);

		EXPECT_STREQ(want, got);
		free(got);
	}
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* 4096 work-items, each one line: every id once, whole lines. */
TEST_F(pf, many_work_items)
{
	static const char src[] =
	"kernel void k(global int *r)\n"
	"{\n"
	"	uint i = get_global_id(0);\n"
	"	r[i] = printf(\"item %u of %u: %v2hlu\\n\", i,\n"
	"		(uint)get_global_size(0), (uint2)(i * 2, i * 3));\n"
	"}\n";
	enum { N = 4096 };
	static int r[N], ids[N];
	char *got, *p;
	int n = 0, i;

	got = run(_metadata, self, src, 0, N, r, sizeof(r));
	for (p = got; *p && n < N;) {
		unsigned int id, size, a, b;
		char *nl = strchr(p, '\n');

		ASSERT_NE(NULL, nl);
		ASSERT_EQ(4, sscanf(p, "item %u of %u: %u,%u", &id, &size, &a,
				    &b)) TH_LOG("line %d: %.40s", n, p);
		EXPECT_EQ((unsigned int)N, size);
		EXPECT_EQ(id * 2, a);
		EXPECT_EQ(id * 3, b);
		ids[n++] = (int)id;
		p = nl + 1;
	}
	EXPECT_EQ(N, n);
	EXPECT_EQ(0, *p);
	qsort(ids, (size_t)n, sizeof(ids[0]), cmp_int);
	for (i = 0; i < n; i++)
		if (ids[i] != i)
			break;
	EXPECT_EQ(N, i) TH_LOG("id %d missing or twice", i);
	for (i = 0; i < N; i++)
		if (r[i])
			break;
	EXPECT_EQ(N, i) TH_LOG("item %d: printf returned %d", i, r[i]);
	free(got);
}

/*
 * More than the buffer holds: what fits is written whole, printf
 * returns -1 for each record dropped, the kernel's other memory is
 * untouched, and the next instance has a buffer of its own.
 */
TEST_F(pf, overflow_drops_whole_records)
{
	static const char src[] =
	"kernel void k(global int *r)\n"
	"{\n"
	"	uint i = get_global_id(0);\n"
	"	int ok = 0;\n"
	"	for (int j = 0; j < 64; j++)\n"
	"		ok += printf(\"%u.%d;\\n\", i, j) == 0;\n"
	"	r[i] = ok;\n"
	"	r[4096 + i] = 0x5a5a5a5a;\n"
	"}\n";
	enum { N = 2048 };
	/* record: 3 head words, the format ("%u.%d;\n", 2 words), 2 args */
	const unsigned int rec = 4 * (3 + 2 + 2 * 3);
	static int r[8192];
	int lines = 0, ok = 0, i, round;
	char *got, *p;
	size_t len;

	for (round = 0; round < 2; round++) {
		lines = ok = 0;
		memset(r, 0, sizeof(r));
		got = run(_metadata, self, src, 0, N, r, sizeof(r));
		len = strlen(got);
		for (p = got; *p; p++)
			lines += *p == '\n';
		for (i = 0; i < N; i++) {
			ok += r[i];
			if (r[4096 + i] != 0x5a5a5a5a)
				break;
		}
		EXPECT_EQ(N, i);
		/* every line whole: "U.D;" */
		for (p = got; *p;) {
			unsigned int u, v;
			char *nl = strchr(p, '\n');

			ASSERT_NE(NULL, nl);
			ASSERT_EQ(2, sscanf(p, "%u.%u;", &u, &v));
			EXPECT_GT(N, (int)u);
			EXPECT_GT(64, (int)v);
			p = nl + 1;
		}
		free(got);
		EXPECT_EQ(VMGPU_PRINTF_BUFFER_BYTES / rec, (unsigned int)ok);
		EXPECT_EQ(ok, lines);
		EXPECT_LT(0u, (unsigned int)len);
	}
}

#define A4 "1, 2, 3, 4"
#define A16 A4 "," A4 "," A4 "," A4

/* The errors the compiler gives, at the line. */
TEST_F(pf, compile_errors)
{
	static const struct {
		const char *body, *msg;
	} cases[] = {
		{ "constant char *f = \"%d\"; printf(f, 1);",
		  "" },
		{ "printf(\"%d %d\\n\", 1);",
		  "printf: the format has 2 conversions, 1 arguments given" },
		{ "printf(\"%v4hld\\n\", 1);",
		  "takes a vector of 4 elements, a scalar given" },
		{ "printf(\"%d\\n\", (int4)(1));", "takes a scalar, a vector" },
		{ "printf(\"%v5d\\n\", (int4)(1));", "v2, v3, v4, v8 or v16" },
		{ "printf(\"%k\\n\", 1);", "unknown conversion '%k'" },
		{ "printf(\"%*d\\n\", 1, 2);", "'*' widths" },
		{ "printf(\"%5000d\\n\", 1);", "at most 4096" },
		{ "printf(\"%d\", 1", "" },
		{ "printf(\"\", " A16 "," A16 "," A16 "," A16 ", 1);",
		  "65 arguments, more than 64" },
	};
	char src[1024], *log;
	struct vmgpu_program *prog;
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(src, sizeof(src), "kernel void k(void)\n{\n\t%s\n}\n",
			 cases[i].body);
		log = NULL;
		EXPECT_EQ(-EINVAL, vmgpu_program_build(src, NULL, &prog, &log))
			TH_LOG("case %u compiled", i);
		EXPECT_NE(NULL, strstr(log ? log : "", "input.cl:3:"))
			TH_LOG("case %u: %s", i, log);
		EXPECT_NE(NULL, strstr(log ? log : "", cases[i].msg))
			TH_LOG("case %u: %s", i, log);
		free(log);
	}
	/* a float for %f is right (no fp64: not promoted), even -Werror */
	log = NULL;
	EXPECT_EQ(0, vmgpu_program_build("kernel void k(global float *f)\n"
					 "{ printf(\"%f %e %g %a\\n\", f[0], f[1],"
					 " f[2], f[3]); }\n", "-Werror", &prog,
					 &log)) TH_LOG("%s", log);
	free(log);
	vmgpu_program_destroy(prog);
}

/* Write the records of @buf (@bytes) to a string (free() it). */
static char *format(const void *buf, size_t bytes, int *ret)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		abort();
	*ret = vmgpu_printf_write(buf, bytes, f);
	fclose(f);
	return s;
}

/* A record by hand: format @fmt, one int argument @v. */
static size_t put_record(uint8_t *p, const char *fmt, uint32_t v)
{
	uint32_t w[64] = { 0 }, n = 3, f = (uint32_t)strlen(fmt);

	w[1] = f;
	w[2] = 1;
	memcpy(&w[3], fmt, f);
	n += (f + 3) / 4;
	w[n++] = VMGPU_PRINTF_ARG(VMGPU_PRINTF_INT, 4, 1);
	w[n++] = 4;
	w[n++] = v;
	w[0] = 4 * n;
	memcpy(p, w, 4 * n);
	return 4 * n;
}

/*
 * The host's side against any bytes: a used count past the buffer, a
 * record cut short, sizes past it, an argument that does not match its
 * conversion, a format that is not C's; then random and mutated
 * buffers. Never a read outside (ASan), never the format given to C.
 */
TEST_F(pf, host_format_is_safe)
{
	uint8_t buf[512], *rnd;
	uint32_t used;
	size_t n;
	char *s;
	int ret, i, j;

	memset(buf, 0, sizeof(buf));
	n = put_record(buf + 8, "a%db\n", 5);
	n += put_record(buf + 8 + n, "%s%n%x %ld\n", 10);
	used = (uint32_t)n;
	memcpy(buf, &used, 4);
	s = format(buf, sizeof(buf), &ret);
	EXPECT_EQ(2, ret);
	/* %s does not take an int: its text; %n is no conversion */
	EXPECT_STREQ("a5b\n%s%n%x %ld\n", s);
	free(s);

	/* the count past the buffer: bounded by it */
	used = 0xffffffff;
	memcpy(buf, &used, 4);
	s = format(buf, sizeof(buf), &ret);
	EXPECT_EQ(2, ret);
	free(s);
	/* cut short: the first record only */
	s = format(buf, 8 + n - 4, &ret);
	EXPECT_EQ(1, ret);
	EXPECT_STREQ("a5b\n", s);
	free(s);
	/* a format size past the record: damaged */
	buf[8 + 4] = 0xff;
	s = format(buf, sizeof(buf), &ret);
	EXPECT_EQ(-EINVAL, ret);
	free(s);
	EXPECT_EQ(-EINVAL, vmgpu_printf_write(NULL, 64, stdout));
	EXPECT_EQ(-EINVAL, vmgpu_printf_write(buf, 4, stdout));

	/* random bytes, and valid records with bytes changed */
	rnd = malloc(4096);
	ASSERT_NE(NULL, rnd);
	srand(1);
	for (i = 0; i < 20000; i++) {
		size_t len = 8 + (size_t)(rand() % 4000);

		if (i % 2) {
			for (j = 0; j < (int)len; j++)
				rnd[j] = (uint8_t)rand();
			used = (uint32_t)rand();
			if (i % 4 == 1)
				used %= 4096;
			memcpy(rnd, &used, 4);
		} else {
			memset(rnd, 0, len);
			n = put_record(rnd + 8, "%5.3v4hlx|%s|%c%%%-9.2e", 7);
			n += put_record(rnd + 8 + n, "%#lo %p %v2hhd", 9);
			used = (uint32_t)n;
			memcpy(rnd, &used, 4);
			for (j = 0; j < 1 + rand() % 4; j++)
				rnd[8 + rand() % (int)n] = (uint8_t)rand();
			if (len < 8 + n)
				len = 8 + n;
		}
		s = format(rnd, len, &ret);
		EXPECT_TRUE(ret >= -EINVAL);
		free(s);
	}
	free(rnd);
}

TEST_HARNESS_MAIN
