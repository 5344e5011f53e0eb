// SPDX-License-Identifier: GPL-2.0-only
/*
 * compile-time: how long the OpenCL C compiler takes per kernel, over the
 * compiler's test corpus (selftests/host/compiler_corpus.h). Each kernel
 * is compiled alone, as its own program (the corpus's macros and helper
 * functions before it, its own text), REPS times with
 * vmgpu_program_build(), clang and LLVM in-process; a kernel's time is
 * its best, and the corpus's the median over the kernels.
 *
 *   compile-time [-r REPS] LIBVMGPU.so
 *
 * The compiler is that of the library given, loaded with dlopen(), so
 * that one binary times two builds of the library (scripts/bench/run's
 * compile-time step alternates the tree's and an older one's, each in a
 * process of its own). One line a kernel, "name ms", then
 * "median ms over N kernels"; a kernel the library does not compile is
 * "name -" (an older compiler lacks what later kernels use) and is left
 * out of the median. Exit status 1 when nothing compiled.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../selftests/host/compiler_corpus.h"

typedef int (*build_fn)(const char *source, const char *options,
			struct vmgpu_program **out, char **log);
typedef void (*destroy_fn)(struct vmgpu_program *prog);

#define MAX_UNITS	128

struct unit {
	char name[64];
	char *src;		/* the shared text before it, then its own */
	double best_ms;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * The corpus cut after each top-level "}" line: a piece with a kernel is
 * a unit; every preprocessor line, and every piece without a kernel (a
 * helper function), is shared by the units after it.
 */
static int split_corpus(const char *text, struct unit *u)
{
	size_t shared_len = 0, cap = strlen(text) + 1;
	char *shared = calloc(1, cap);
	const char *p = text;
	int n = 0;

	if (!shared)
		abort();
	while (*p && n < MAX_UNITS) {
		const char *end = strstr(p, "\n}\n"), *k, *line;

		end = end ? end + 3 : p + strlen(p);
		k = strstr(p, "kernel void ");
		if (!k || k >= end) {	/* no kernel: shared from now on */
			memcpy(shared + shared_len, p, (size_t)(end - p));
			shared_len += (size_t)(end - p);
			p = end;
			continue;
		}
		sscanf(k + strlen("kernel void "), "%63[A-Za-z0-9_]",
		       u[n].name);
		if (asprintf(&u[n].src, "%s%.*s", shared, (int)(end - p),
			     p) < 0)
			abort();
		/* its #define lines hold for the kernels after it */
		for (line = p; line < k; line = strchr(line, '\n') + 1) {
			const char *eol = strchr(line, '\n');

			if (!strncmp(line, "#define", 7)) {
				memcpy(shared + shared_len, line,
				       (size_t)(eol + 1 - line));
				shared_len += (size_t)(eol + 1 - line);
			}
		}
		n++;
		p = end;
	}
	free(shared);
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static struct unit u[MAX_UNITS];
	double times[MAX_UNITS];
	int reps = 3, n, i, r, ok = 0;
	build_fn build;
	destroy_fn destroy;
	void *lib;

	if (argc >= 3 && !strcmp(argv[1], "-r")) {
		reps = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc != 2 || reps < 1) {
		fprintf(stderr, "usage: compile-time [-r REPS] LIBVMGPU.so\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "compile-time: %s\n", dlerror());
		return 2;
	}
	build = (build_fn)dlsym(lib, "vmgpu_program_build");
	destroy = (destroy_fn)dlsym(lib, "vmgpu_program_destroy");
	if (!build || !destroy) {
		fprintf(stderr, "compile-time: %s has no vmgpu_program_build\n",
			argv[1]);
		return 2;
	}
	n = split_corpus(corpus_src, u);
	for (i = 0; i < n; i++) {
		u[i].best_ms = -1;
		for (r = 0; r < reps; r++) {
			struct vmgpu_program *prog = NULL;
			char *log = NULL;
			double t0 = now_ms(), t;
			int e = build(u[i].src, NULL, &prog, &log);

			t = now_ms() - t0;
			free(log);
			if (e)
				break;
			destroy(prog);
			if (u[i].best_ms < 0 || t < u[i].best_ms)
				u[i].best_ms = t;
		}
		if (u[i].best_ms < 0) {
			printf("%-20s -\n", u[i].name);
			continue;
		}
		printf("%-20s %.1f\n", u[i].name, u[i].best_ms);
		times[ok++] = u[i].best_ms;
	}
	if (!ok)
		return 1;
	qsort(times, (size_t)ok, sizeof(times[0]), cmp_double);
	printf("median %.1f ms over %d kernels\n",
	       ok % 2 ? times[ok / 2] : (times[ok / 2 - 1] + times[ok / 2]) / 2,
	       ok);
	return 0;
}
