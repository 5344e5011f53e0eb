// SPDX-License-Identifier: MIT
/*
 * vmgpu-dis: disassemble a vmgpu executable to stdout, in a form vmgpu-as
 * assembles back to the same bytes.
 *
 *   vmgpu-dis EXECUTABLE         "-" reads stdin
 *
 * The exit status is 1 on any error (unreadable file, invalid header,
 * truncated image).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmgpu.h"

int main(int argc, char **argv)
{
	size_t len = 0, cap = 65536;
	char err[256], *text;
	uint8_t *buf;
	FILE *f;
	int r;

	if (argc != 2 || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: vmgpu-dis EXECUTABLE\n");
		return argc == 2 ? 0 : 1;
	}
	f = strcmp(argv[1], "-") ? fopen(argv[1], "rb") : stdin;
	if (!f) {
		fprintf(stderr, "vmgpu-dis: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	buf = malloc(cap);
	while (buf) {
		size_t n = fread(buf + len, 1, cap - len, f);

		len += n;
		if (n == 0)
			break;
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (!buf || ferror(f)) {
		fprintf(stderr, "vmgpu-dis: %s: cannot read\n", argv[1]);
		return 1;
	}
	if (f != stdin)
		fclose(f);
	r = vmgpu_disasm_image(buf, len, &text, err, sizeof(err));
	free(buf);
	if (r) {
		fprintf(stderr, "vmgpu-dis: %s: %s\n", argv[1],
			r == -EINVAL ? err : strerror(-r));
		return 1;
	}
	fputs(text, stdout);
	free(text);
	return 0;
}
