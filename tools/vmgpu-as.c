// SPDX-License-Identifier: MIT
/*
 * vmgpu-as: assemble a vmgpu kernel.
 *
 *   vmgpu-as [-o OUT] SOURCE      SOURCE "-" reads stdin; OUT defaults to
 *                                 SOURCE with ".vx" instead of ".s"
 *   vmgpu-as --builtin NAME -o OUT   assemble a built-in kernel
 *
 * Errors name the file and line; the exit status is 1 on any error, 2 on
 * bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_common.h"
#include "vmgpu.h"

static const struct tool tool = {
	.name = "vmgpu-as",
	.usage =
	"usage: vmgpu-as [-o OUT] SOURCE\n"
	"       vmgpu-as --builtin NAME -o OUT\n"
	"Assemble a vmgpu kernel into an executable image.\n"
	"  -o OUT          output file (default: SOURCE with .vx for .s,\n"
	"                  a.vx when SOURCE is \"-\", standard input)\n"
	"  --builtin NAME  assemble the library's built-in kernel NAME\n"
	"  -h, --help      this help\n"
	"  --version       the version\n",
};

int main(int argc, char **argv)
{
	const char *in = NULL, *outname = NULL, *builtin = NULL;
	char err[512], *src = NULL, *deflt = NULL;
	size_t bytes;
	void *image;
	static const struct option lo[] = {
		{ "builtin", required_argument, NULL, 'b' },
		TOOL_COMMON_OPTIONS,
	};
	FILE *f;
	int c, r;

	while ((c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'o':
			outname = optarg;
			break;
		case 'b':
			builtin = optarg;
			break;
		default:
			tool_common_option(&tool, c);
		}
	}
	if (optind < argc)
		in = argv[optind++];
	if (optind < argc)
		tool_usage_error(&tool, "one SOURCE only");
	if (builtin) {
		const char *s = vmgpu_builtin_kernel_source(builtin);

		if (in || !outname)
			tool_usage_error(&tool, "--builtin needs -o and no SOURCE");
		if (!s) {
			fprintf(stderr, "vmgpu-as: no built-in kernel %s\n",
				builtin);
			return 1;
		}
		src = strdup(s);
		in = builtin;
	} else {
		if (!in)
			tool_usage_error(&tool, "no SOURCE");
		src = tool_read_file(in, NULL);
		if (!src) {
			fprintf(stderr, "vmgpu-as: %s: %s\n", in,
				strerror(errno));
			return 1;
		}
	}
	if (!src) {
		fprintf(stderr, "vmgpu-as: %s: out of memory\n", in);
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
