// SPDX-License-Identifier: MIT
/*
 * vmgpu-cc: compile OpenCL C kernels to vmgpu executables.
 *
 *   vmgpu-cc [-o DIR] [-D NAME[=VALUE]]... [-I DIR]... [-O OPTIONS]
 *            [-S] SOURCE
 *
 * Writes DIR/KERNEL.vx for every kernel of SOURCE (DIR defaults to the
 * current directory) and prints the build log (clang's and the back
 * end's diagnostics, FILE:LINE:COL) on stderr. -S prints each kernel's
 * disassembly on stdout as well. The exit status is 1 on a compile
 * error or an unwritable output, 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_common.h"
#include "vmgpu.h"

static const struct tool tool = {
	.name = "vmgpu-cc",
	.usage =
	"usage: vmgpu-cc [-o DIR] [-D NAME[=VALUE]]... [-I DIR]... [-O OPTIONS]\n"
	"                [-S] SOURCE\n"
	"Compile the OpenCL C 1.2 kernels of SOURCE into vmgpu executables,\n"
	"DIR/KERNEL.vx for each kernel; the build log goes to standard error.\n"
	"  -o DIR          output directory (default: .)\n"
	"  -D NAME[=VALUE] define a macro\n"
	"  -I DIR          add an include directory\n"
	"  -O OPTIONS      more build options (Documentation/compiler.rst),\n"
	"                  e.g. \"-cl-fast-relaxed-math -vmgpu-max-regs=32\"\n"
	"  -S              print each kernel's disassembly on standard output\n"
	"  -h, --help      this help\n"
	"  --version       the version\n",
};

static int append(char **opts, const char *a, const char *b)
{
	size_t n = strlen(*opts) + strlen(a) + (b ? strlen(b) : 0) + 3;
	char *s = malloc(n);

	if (!s)
		return -1;
	snprintf(s, n, "%s %s%s", *opts, a, b ? b : "");
	free(*opts);
	*opts = s;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = { TOOL_COMMON_OPTIONS };
	const char *dir = ".", *in;
	char *opts = strdup(""), *src, *log = NULL;
	struct vmgpu_program *prog;
	int c, r, i, n, dis = 0, rc = 0;

	while ((c = getopt_long(argc, argv, "o:D:I:O:Sh", lo, NULL)) != -1) {
		r = 0;
		switch (c) {
		case 'o':
			dir = optarg;
			break;
		case 'D':
			r = append(&opts, "-D", optarg);
			break;
		case 'I':
			r = append(&opts, "-I", optarg);
			break;
		case 'O':
			r = append(&opts, optarg, NULL);
			break;
		case 'S':
			dis = 1;
			break;
		default:
			tool_common_option(&tool, c);
		}
		if (r || !opts)
			return 1;
	}
	if (argc - optind != 1)
		tool_usage_error(&tool, argc == optind ? "no SOURCE" :
				 "one SOURCE only");
	in = argv[optind];
	src = tool_read_file(in, NULL);
	if (!src) {
		fprintf(stderr, "vmgpu-cc: %s: %s\n", in, strerror(errno));
		return 1;
	}
	if (append(&opts, "-vmgpu-source-name=", strcmp(in, "-") ? in : "stdin"))
		return 1;
	r = vmgpu_program_build(src, opts, &prog, &log);
	free(src);
	free(opts);
	if (log && *log)
		fputs(log, stderr);
	free(log);
	if (r) {
		if (r != -EINVAL)
			fprintf(stderr, "vmgpu-cc: %s: %s\n", in, strerror(-r));
		return 1;
	}
	n = vmgpu_program_kernel_count(prog);
	for (i = 0; i < n; i++) {
		const char *name = vmgpu_program_kernel_name(prog, i);
		char path[4096], err[256], *text;
		const void *image;
		size_t bytes;
		FILE *f;

		vmgpu_program_kernel_image(prog, name, &image, &bytes);
		snprintf(path, sizeof(path), "%s/%s.vx", dir, name);
		f = fopen(path, "wb");
		if (!f || fwrite(image, 1, bytes, f) != bytes || fclose(f)) {
			fprintf(stderr, "vmgpu-cc: %s: %s\n", path,
				strerror(errno));
			rc = 1;
			continue;
		}
		if (dis && !vmgpu_disasm_image(image, bytes, &text, err,
						   sizeof(err))) {
			printf("; %s (private bytes per thread: %d)\n%s\n", path,
			       vmgpu_program_kernel_private_bytes(prog, name),
			       text);
			free(text);
		}
	}
	vmgpu_program_destroy(prog);
	return rc;
}
