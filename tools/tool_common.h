/* SPDX-License-Identifier: MIT */
/*
 * The command-line conventions every vmgpu tool keeps, in one place:
 *  - --help (and -h) prints the usage on stdout and exits 0;
 *  - --version prints "TOOL VERSION" (the library's VMGPU_VERSION), exit 0;
 *  - bad usage (an unknown option, a missing argument or operand) says
 *    what was wrong on stderr, then the usage, and exits 2.
 *
 * A tool parses with getopt_long(), its option table ending in
 * TOOL_COMMON_OPTIONS and its short options including "h", and hands every
 * option it does not handle itself to tool_common_option().
 */
#ifndef TOOL_COMMON_H
#define TOOL_COMMON_H

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmgpu.h"

#define TOOL_EXIT_USAGE		2

/* getopt_long()'s value for --version: beyond any short option. */
#define TOOL_OPT_VERSION	0x100

#define TOOL_COMMON_OPTIONS					\
	{ "help", no_argument, NULL, 'h' },			\
	{ "version", no_argument, NULL, TOOL_OPT_VERSION },	\
	{ NULL, 0, NULL, 0 }

struct tool {
	const char *name;
	const char *usage;	/* "usage: ..." and the options, \n-ended */
};

static inline void __attribute__((noreturn, format(printf, 2, 3)))
tool_usage_error(const struct tool *t, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", t->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s", t->usage);
	exit(TOOL_EXIT_USAGE);
}

/* --help, --version, and getopt_long()'s '?' for anything it refused. */
static inline void __attribute__((noreturn))
tool_common_option(const struct tool *t, int opt)
{
	switch (opt) {
	case 'h':
		fputs(t->usage, stdout);
		exit(0);
	case TOOL_OPT_VERSION:
		printf("%s %s\n", t->name, VMGPU_VERSION);
		exit(0);
	default:
		/* getopt_long() has already said what it refused. */
		fputs(t->usage, stderr);
		exit(TOOL_EXIT_USAGE);
	}
}

/*
 * The whole of file @path ("-": standard input), NUL-terminated (the NUL
 * is not counted in *@len, which may be NULL). NULL with errno set if it
 * cannot be opened or read.
 */
static inline char *tool_read_file(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t n = 0, cap = 4096;
	char *buf;
	int err = 0;

	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		n += got;
		if (!got)
			break;
		if (cap - n < 2) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (!buf)
		err = ENOMEM;
	else if (ferror(f))
		err = EIO;
	if (f != stdin)
		fclose(f);
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

#endif /* TOOL_COMMON_H */
