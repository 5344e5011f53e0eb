// SPDX-License-Identifier: MIT
/*
 * vmgpu-as: assemble a vmgpu kernel.
 *
 *   vmgpu-as [-o OUT] SOURCE      SOURCE "-" reads stdin; OUT defaults to
 *                                 SOURCE with ".vx" instead of ".s"
 *   vmgpu-as --builtin NAME -o OUT   assemble a built-in kernel
 *
 * Errors name the file and line; the exit status is 1 on any error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmgpu.h"

static char *read_all(FILE *f)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);

	while (buf) {
		size_t n = fread(buf + len, 1, cap - len - 1, f);

		len += n;
		if (n == 0)
			break;
		if (cap - len < 2) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (buf)
		buf[len] = '\0';
	if (ferror(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void usage(void)
{
	fprintf(stderr, "usage: vmgpu-as [-o OUT] SOURCE\n"
		"       vmgpu-as --builtin NAME -o OUT\n");
}

int main(int argc, char **argv)
{
	const char *in = NULL, *outname = NULL, *builtin = NULL;
	char err[512], *src = NULL, *deflt = NULL;
	size_t bytes;
	void *image;
	FILE *f;
	int i, r;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			outname = argv[++i];
		} else if (!strcmp(argv[i], "--builtin") && i + 1 < argc) {
			builtin = argv[++i];
		} else if (!strcmp(argv[i], "-h") ||
			   !strcmp(argv[i], "--help")) {
			usage();
			return 0;
		} else if (!in && (argv[i][0] != '-' || !argv[i][1])) {
			in = argv[i];
		} else {
			usage();
			return 1;
		}
	}
	if (builtin) {
		const char *s = vmgpu_builtin_kernel_source(builtin);

		if (!s || in || !outname) {
			fprintf(stderr, "vmgpu-as: %s\n", s ?
				"--builtin needs -o and no SOURCE" :
				"no such built-in kernel");
			return 1;
		}
		src = strdup(s);
		in = builtin;
	} else {
		if (!in) {
			usage();
			return 1;
		}
		f = strcmp(in, "-") ? fopen(in, "r") : stdin;
		if (!f) {
			fprintf(stderr, "vmgpu-as: %s: %s\n", in,
				strerror(errno));
			return 1;
		}
		src = read_all(f);
		if (f != stdin)
			fclose(f);
	}
	if (!src) {
		fprintf(stderr, "vmgpu-as: %s: cannot read\n", in);
		return 1;
	}
	if (!outname) {
		size_t n = strlen(in);

		if (!strcmp(in, "-")) {
			outname = "a.vx";
		} else {
			deflt = malloc(n + 4);
			if (!deflt)
				return 1;
			strcpy(deflt, in);
			if (n > 2 && !strcmp(deflt + n - 2, ".s"))
				deflt[n - 2] = '\0';
			strcat(deflt, ".vx");
			outname = deflt;
		}
	}
	r = vmgpu_asm_assemble(src, &image, &bytes, err, sizeof(err));
	free(src);
	if (r) {
		fprintf(stderr, "%s: %s\n", in, r == -EINVAL ? err :
			strerror(-r));
		free(deflt);
		return 1;
	}
	f = fopen(outname, "wb");
	if (!f || fwrite(image, 1, bytes, f) != bytes || fclose(f)) {
		fprintf(stderr, "vmgpu-as: %s: %s\n", outname,
			strerror(errno));
		free(image);
		free(deflt);
		return 1;
	}
	free(image);
	free(deflt);
	return 0;
}
