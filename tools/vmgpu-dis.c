// SPDX-License-Identifier: MIT
/*
 * vmgpu-dis: disassemble a vmgpu executable to stdout, in a form vmgpu-as
 * assembles back to the same bytes.
 *
 *   vmgpu-dis EXECUTABLE         "-" reads stdin
 *
 * The exit status is 1 on any error (unreadable file, invalid header,
 * truncated image), 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_common.h"
#include "vmgpu.h"

static const struct tool tool = {
	.name = "vmgpu-dis",
	.usage =
	"usage: vmgpu-dis EXECUTABLE\n"
	"Disassemble a vmgpu executable image to standard output, as source\n"
	"vmgpu-as assembles back to the same bytes. EXECUTABLE \"-\" reads\n"
	"standard input.\n"
	"  -h, --help      this help\n"
	"  --version       the version\n",
};

int main(int argc, char **argv)
{
	static const struct option lo[] = { TOOL_COMMON_OPTIONS };
	char err[256], *text, *buf;
	const char *in;
	size_t len = 0;
	int c, r;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1)
		tool_common_option(&tool, c);
	if (argc - optind != 1)
		tool_usage_error(&tool, argc == optind ? "no EXECUTABLE" :
				 "one EXECUTABLE only");
	in = argv[optind];
	buf = tool_read_file(in, &len);
	if (!buf) {
		fprintf(stderr, "vmgpu-dis: %s: %s\n", in, strerror(errno));
		return 1;
	}
	r = vmgpu_disasm_image(buf, len, &text, err, sizeof(err));
	free(buf);
	if (r) {
		fprintf(stderr, "vmgpu-dis: %s: %s\n", in,
			r == -EINVAL ? err : strerror(-r));
		return 1;
	}
	fputs(text, stdout);
	free(text);
	return 0;
}
