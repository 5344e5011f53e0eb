/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Standard output into a temporary file while a kernel runs, for the
 * tests of printf (test_runtime_printf.c, test_opencl_printf.c): the
 * runtime writes a kernel's output to file descriptor 1. Header only.
 */
#ifndef VMGPU_TESTCAPTURE_H
#define VMGPU_TESTCAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct capture {
	FILE *f;
	int saved;
};

static inline void capture_start(struct capture *c)
{
	fflush(stdout);
	c->f = tmpfile();
	c->saved = dup(1);
	if (!c->f || c->saved < 0 || dup2(fileno(c->f), 1) < 0)
		abort();
}

/* What was written, NUL-terminated (free() it); stdout back. */
static inline char *capture_end(struct capture *c, size_t *len)
{
	long n;
	char *s;

	fflush(stdout);
	dup2(c->saved, 1);
	close(c->saved);
	n = ftell(c->f);
	if (n < 0 || fseek(c->f, 0, SEEK_SET))
		abort();
	s = malloc((size_t)n + 1);
	if (!s || fread(s, 1, (size_t)n, c->f) != (size_t)n)
		abort();
	s[n] = 0;
	fclose(c->f);
	if (len)
		*len = (size_t)n;
	return s;
}

#endif
