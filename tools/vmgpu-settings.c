// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmgpu-settings: the device model's settings (QOM properties of
 * -device vmgpu), from the one list in qemu-device/core/config.h.
 *
 *   vmgpu-settings          a table: name, default, range, unit, doc
 *   vmgpu-settings --rst    the table of Documentation/device-model.rst
 */
#include <stdio.h>
#include <string.h>

#include "config.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: vmgpu-settings [--rst]\n");
}

static void print_rst(const struct vg_setting *s, size_t n)
{
	static const char rule[] =
		"===================  ==========  ====================  =====  "
		"=================================================================";
	size_t i;

	printf("%s\n", rule);
	printf("%-19s  %-10s  %-20s  %-5s  %s\n", "Property", "Default",
	       "Range", "Unit", "Meaning / source");
	printf("%s\n", rule);
	for (i = 0; i < n; i++) {
		char name[40], range[32];

		snprintf(name, sizeof(name), "``%s``", s[i].name);
		snprintf(range, sizeof(range), "%u..%u", s[i].min, s[i].max);
		printf("%-19s  %-10u  %-20s  %-5s  %s\n", name, s[i].def, range,
		       s[i].unit[0] ? s[i].unit : "-", s[i].doc);
	}
	printf("%s\n", rule);
}

int main(int argc, char **argv)
{
	size_t n, i;
	const struct vg_setting *s = vg_settings(&n);

	if (argc == 2 && !strcmp(argv[1], "--rst")) {
		print_rst(s, n);
		return 0;
	}
	if (argc != 1) {
		usage(stderr);
		return 2;
	}
	for (i = 0; i < n; i++)
		printf("%-16s %10u  %u..%u %s  %s\n", s[i].name, s[i].def,
		       s[i].min, s[i].max, s[i].unit, s[i].doc);
	return 0;
}
