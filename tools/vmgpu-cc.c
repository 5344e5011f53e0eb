// SPDX-License-Identifier: MIT
/*
 * vmgpu-cc: compile OpenCL C kernels to vmgpu executables.
 *
 *   vmgpu-cc [-o DIR|FILE.vx | --library FILE] [-D NAME[=VALUE]]...
 *            [-I DIR]... [-O0|-O1|-O2|-O3|-Os] [-O OPTIONS] [-S] SOURCE
 *
 * Writes DIR/KERNEL.vx for every kernel of SOURCE (DIR defaults to the
 * current directory and is created, with its parents, when missing; -o
 * FILE.vx, not a directory, is the file of a program's one kernel) and
 * prints the build log (clang's and the back
 * end's diagnostics, FILE:LINE:COL) on stderr. -S prints each kernel's
 * disassembly on stdout as well. -O0 .. -O3 and -Os are accepted as C
 * compilers take them and change nothing: the compiler always runs LLVM's
 * O2 pipeline (its back end needs O2's SSA form). --library FILE writes a
 * kernel library instead: the source, its options and the executables
 * for every ISA version it compiles for (Documentation/compiler.rst). The exit status
 * is 1 on a compile error or an unwritable output, 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tool_common.h"
#include "vmgpu.h"
#include "vmgpu/compiler.h"

static const struct tool tool = {
	.name = "vmgpu-cc",
	.usage =
	"usage: vmgpu-cc [-o DIR|FILE.vx | --library FILE] [-D NAME[=VALUE]]...\n"
	"                [-I DIR]... [-O0|-O1|-O2|-O3|-Os] [-O OPTIONS] [-S]\n"
	"                SOURCE\n"
	"Compile the OpenCL C 1.2 kernels of SOURCE into vmgpu executables,\n"
	"DIR/KERNEL.vx for each kernel; the build log goes to standard error.\n"
	"  -o DIR          output directory, created if missing (default: .);\n"
	"                  a name ending in .vx that is no directory: the\n"
	"                  file of a program's one kernel\n"
	"  --library FILE  write a kernel library instead: the source and\n"
	"                  the executables for each ISA version it compiles for\n"
	"  -D NAME[=VALUE] define a macro\n"
	"  -I DIR          add an include directory\n"
	"  -O0, -O1, -O2, -O3, -Os\n"
	"                  accepted for C compilers' sake, all the same: the\n"
	"                  compiler always optimises as LLVM's -O2 (its back\n"
	"                  end needs the optimised SSA form)\n"
	"  -O OPTIONS      more build options (Documentation/compiler.rst),\n"
	"                  e.g. \"-cl-fast-relaxed-math -vmgpu-max-regs=32\"\n"
	"  -S              print each kernel's disassembly on standard output\n"
	"  -h, --help      this help\n"
	"  --version       the version\n",
};

/*
 * The kernel library of @src: its source and options, and the kernels
 * built for each ISA version (those it does not compile for are left out,
 * with a note; none at all is an error).
 */
static int write_library(const char *path, const char *in, const char *src,
			 const char *opts)
{
	struct vmgpu_kernlib *lib;
	char err[256], *o, *log;
	unsigned int v, built = 0;
	int r;

	r = vmgpu_kernlib_create(in, src, opts, &lib);
	if (r)
		return r;
	for (v = VMGPU_ISA_VERSION_MIN; v <= VMGPU_ISA_VERSION; v++) {
		struct vmgpu_program *prog;
		size_t n = strlen(opts) + 32;

		o = malloc(n);
		if (!o) {
			vmgpu_kernlib_destroy(lib);
			return -ENOMEM;
		}
		snprintf(o, n, "%s -vmgpu-isa=%u", opts, v);
		log = NULL;
		r = vmgpu_program_build(src, o, &prog, &log);
		free(o);
		if (log && *log && (r || v == VMGPU_ISA_VERSION_MIN))
			fputs(log, stderr);
		free(log);
		if (r == -EINVAL) {
			fprintf(stderr, "vmgpu-cc: %s: note: no executables for ISA version %u\n",
				in, v);
			continue;
		}
		if (!r)
			r = vmgpu_kernlib_add_program(lib, prog, err,
						      sizeof(err));
		vmgpu_program_destroy(prog);
		if (r) {
			vmgpu_kernlib_destroy(lib);
			return r;
		}
		built++;
	}
	r = built ? vmgpu_kernlib_write_file(lib, path) : -EINVAL;
	if (r && r != -EINVAL)
		fprintf(stderr, "vmgpu-cc: %s: %s\n", path, strerror(-r));
	vmgpu_kernlib_destroy(lib);
	return r ? 1 : 0;
}

/*
 * @dir and its missing parents, as mkdir -p makes them: mode 0777 less
 * the umask, an existing directory is fine. A build writes one file per
 * kernel into @dir, so a missing one would fail every kernel alike.
 * Returns 0, or -1 with errno set and @path naming the part that failed.
 */
static int make_dirs(const char *dir, char *path, size_t size)
{
	struct stat st;
	char *p;

	if (snprintf(path, size, "%s", dir) >= (int)size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!*path) {
		errno = ENOENT;
		return -1;
	}
	for (p = path + 1; ; p++) {
		if (*p && *p != '/')
			continue;
		if (p[-1] != '/') {
			char end = *p;

			*p = 0;
			/*
			 * Look first: mkdir of an existing directory on a
			 * read-only file system fails with EROFS. EEXIST is
			 * another mkdir -p winning the race.
			 */
			if (stat(path, &st) &&
			    ((mkdir(path, 0777) && errno != EEXIST) ||
			     stat(path, &st)))
				return -1;
			if (!S_ISDIR(st.st_mode)) {
				errno = ENOTDIR;
				return -1;
			}
			*p = end;
		}
		if (!*p)
			return 0;
	}
}

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
	static const struct option lo[] = {
		{ "library", required_argument, NULL, 'L' },
		TOOL_COMMON_OPTIONS
	};
	const char *dir = ".", *in, *library = NULL, *file = NULL;
	char *opts = strdup(""), *src, *log = NULL;
	struct vmgpu_program *prog;
	int c, r, i, n, dis = 0, rc = 0;

	while ((c = getopt_long(argc, argv, "o:D:I:O:Sh", lo, NULL)) != -1) {
		r = 0;
		switch (c) {
		case 'o':
			dir = optarg;
			break;
		case 'L':
			library = optarg;
			break;
		case 'D':
			r = append(&opts, "-D", optarg);
			break;
		case 'I':
			r = append(&opts, "-I", optarg);
			break;
		case 'O':
			/*
			 * -O0 .. -O3, -Os (also as -O 2): a level, which
			 * changes nothing (the usage says why). Else build
			 * options, which begin with '-': "-Ofoo" is a bad
			 * level, named as given.
			 */
			if (strlen(optarg) == 1 && strchr("0123s", *optarg))
				break;
			if (*optarg != '-')
				tool_usage_error(&tool, "unknown optimisation level "
						 "'-O%s' (-O0, -O1, -O2, -O3, -Os)",
						 optarg);
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
	if (library) {
		r = write_library(library, in, src, opts);
		free(src);
		free(opts);
		if (r < 0)
			fprintf(stderr, "vmgpu-cc: %s: %s\n", in, strerror(-r));
		return r ? 1 : 0;
	}
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
	/*
	 * -o FILE.vx (not a directory there): the one kernel's executable
	 * in that file, as a C compiler's -o names its output.
	 */
	{
		size_t l = strlen(dir);
		struct stat st;

		if (l > 3 && !strcmp(dir + l - 3, ".vx") &&
		    (stat(dir, &st) || !S_ISDIR(st.st_mode))) {
			if (n != 1) {
				fprintf(stderr, "vmgpu-cc: -o %s names a file, and the "
					"program has %d kernels: give a directory\n",
					dir, n);
				vmgpu_program_destroy(prog);
				return 1;
			}
			file = dir;
		}
	}
	/* Only now: a source that does not compile leaves no directory. */
	if (!file) {
		char path[4096];

		if (make_dirs(dir, path, sizeof(path))) {
			fprintf(stderr, "vmgpu-cc: cannot create directory %s: %s\n",
				path, strerror(errno));
			vmgpu_program_destroy(prog);
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		const char *name = vmgpu_program_kernel_name(prog, i);
		char path[4096], err[256], *text;
		const void *image;
		size_t bytes;
		FILE *f;

		vmgpu_program_kernel_image(prog, name, &image, &bytes);
		if (file)
			snprintf(path, sizeof(path), "%s", file);
		else
			snprintf(path, sizeof(path), "%s/%s.vx", dir, name);
		f = fopen(path, "wb");
		if (f && fwrite(image, 1, bytes, f) != bytes) {
			fclose(f);
			f = NULL;
		}
		if (!f || fclose(f)) {
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
