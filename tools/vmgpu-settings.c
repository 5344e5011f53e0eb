// SPDX-License-Identifier: MIT
/*
 * vmgpu-settings: the device model's settings (QOM properties of
 * -device vmgpu), from the one list in qemu-device/core/config.h.
 *
 *   vmgpu-settings          a table: name, default, range, unit, doc; then
 *                           each preset's settings, values and sources
 *   vmgpu-settings --rst    the tables of Documentation/device-model.rst
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/config.h"
#include "tool_common.h"

static const struct tool tool = {
	.name = "vmgpu-settings",
	.usage =
	"usage: vmgpu-settings [--rst]\n"
	"Print the device model's settings (the properties of -device vmgpu):\n"
	"name, default, range, unit, meaning; then the presets (preset=NAME):\n"
	"the settings each sets, their values and sources.\n"
	"  --rst           as the reStructuredText table of the documentation\n"
	"  -h, --help      this help\n"
	"  --version       the version\n",
};

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

/* Each preset's settings, value and source: a table each if @rst. */
static void print_presets(bool rst)
{
	static const char rule[] =
		"===================  ==========  "
		"=================================================================";
	const struct vg_setting *s;
	const struct vg_preset *p;
	size_t n, ns, i, k;

	s = vg_settings(&ns);
	p = vg_presets(&n);
	for (i = 0; i < n; i++) {
		if (rst)
			printf("\nPreset ``%s``: %s.\n\n%s\n%-19s  %-10s  %s\n%s\n",
			       p[i].name, p[i].doc, rule, "Property", "Value",
			       "Source", rule);
		else
			printf("\npreset=%s: %s\n", p[i].name, p[i].doc);
		for (k = 0; k < p[i].count; k++) {
			const char *name =
				s[vg_setting_index(p[i].values[k].offset)].name;
			char quoted[40];

			snprintf(quoted, sizeof(quoted), "``%s``", name);
			printf(rst ? "%-19s  %-10u  %s\n" : "  %-16s %10u  %s\n",
			       rst ? quoted : name, p[i].values[k].value,
			       p[i].values[k].source);
		}
		if (rst)
			printf("%s\n", rule);
	}
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "rst", no_argument, NULL, 'r' },
		TOOL_COMMON_OPTIONS,
	};
	size_t n, i;
	const struct vg_setting *s = vg_settings(&n);
	bool rst = false;
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c == 'r')
			rst = true;
		else
			tool_common_option(&tool, c);
	}
	if (optind < argc)
		tool_usage_error(&tool, "unexpected operand %s", argv[optind]);
	if (rst) {
		print_rst(s, n);
		print_presets(true);
		return 0;
	}
	for (i = 0; i < n; i++)
		printf("%-16s %10u  %u..%u %s  %s\n", s[i].name, s[i].def,
		       s[i].min, s[i].max, s[i].unit, s[i].doc);
	print_presets(false);
	return 0;
}
