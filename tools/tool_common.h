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

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

#endif /* TOOL_COMMON_H */
