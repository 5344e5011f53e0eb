// SPDX-License-Identifier: MIT
/*
 * vmgpu-trace: control the device's trace and turn its records into
 * Chrome/Perfetto trace-event JSON, an SVG timeline or a summary.
 *
 *   vmgpu-trace start [KIB]          allocate a KIB KiB buffer (default
 *                                    1024) and record
 *   vmgpu-trace stop                 stop recording, keep the buffer
 *   vmgpu-trace dump [IN]            trace-event JSON on stdout
 *   vmgpu-trace svg [IN] OUT.svg     SVG timeline ("-": stdout)
 *   vmgpu-trace summary [IN]         per GPU busy %, packets, dispatches...;
 *                                    per task-table slot its occupancy,
 *                                    evictions and resumes
 *
 * IN is a file of raw records (struct vmgpu_trace_record, uapi/vmgpu_hw.h)
 * as read from the driver's debugfs file "trace"; without it the device's
 * buffer is read. The converters are the device model's own
 * (qemu-device/core/trace.c, trace_svg.c), so host and VM agree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devtrace.h"
#include "tool_common.h"
#include "core/trace.h"
#include "core/trace_svg.h"
#include "vmgpu_drm.h"
#include "vmgpu_hw.h"

static const struct tool tool = {
	.name = "vmgpu-trace",
	.usage =
	"usage: vmgpu-trace start [KIB]        record into a fresh KIB KiB buffer\n"
	"                                      (default 1024)\n"
	"       vmgpu-trace stop               stop recording, keep the records\n"
	"       vmgpu-trace dump [IN]          Chrome/Perfetto trace-event JSON\n"
	"       vmgpu-trace svg [IN] OUT.svg   SVG timeline (OUT.svg - : stdout)\n"
	"       vmgpu-trace summary [IN]       per GPU busy %, packets, dispatches;\n"
	"                                      per task-table slot occupancy,\n"
	"                                      evictions, resumes\n"
	"IN: raw records as read from debugfs (default: the device's buffer)\n"
	"  -h, --help      this help\n"
	"  --version       the version\n",
};

static int control(unsigned long kib)
{
	int ret = devtrace_enable(kib);

	if (ret == -ENODEV || ret == -ENOENT)
		fprintf(stderr, "vmgpu-trace: no vmgpu debugfs directory under %s\n",
			DEVTRACE_DRI_DEBUGFS);
	else if (ret)
		fprintf(stderr, "vmgpu-trace: trace_enable: %s\n", strerror(-ret));
	return ret ? 1 : 0;
}

/* The records of @file, or of the device's buffer if NULL. */
static struct vmgpu_trace_record *load(const char *file, size_t *n)
{
	struct vmgpu_trace_record *recs;
	char path[400];
	size_t bytes;
	void *buf;
	FILE *f;
	int ret;

	if (!file) {
		ret = devtrace_path("trace", path, sizeof(path));
		if (ret) {
			fprintf(stderr, "vmgpu-trace: no vmgpu debugfs directory: %s\n",
				strerror(-ret));
			return NULL;
		}
		file = path;
	}
	f = fopen(file, "rb");
	if (!f) {
		fprintf(stderr, "vmgpu-trace: %s: %s\n", file, strerror(errno));
		return NULL;
	}
	buf = devtrace_slurp(f, &bytes);
	fclose(f);
	if (!buf) {
		fprintf(stderr, "vmgpu-trace: out of memory reading %s\n", file);
		return NULL;
	}
	if (bytes % VMGPU_TRACE_RECORD_SIZE)
		fprintf(stderr, "vmgpu-trace: %s: %zu trailing bytes ignored\n",
			file, bytes % VMGPU_TRACE_RECORD_SIZE);
	recs = vg_trace_records_from_buffer(buf, bytes, n);
	free(buf);
	if (!recs)
		fprintf(stderr, "vmgpu-trace: out of memory decoding %s\n", file);
	return recs;
}

enum output { OUT_JSON, OUT_SVG, OUT_SUMMARY };

static int convert(const char *in, const char *out, enum output what)
{
	struct vmgpu_trace_record *recs;
	FILE *f = stdout;
	size_t n;
	int ret;

	recs = load(in, &n);
	if (!recs)
		return 1;
	if (out && strcmp(out, "-")) {
		f = fopen(out, "w");
		if (!f) {
			fprintf(stderr, "vmgpu-trace: %s: %s\n", out, strerror(errno));
			free(recs);
			return 1;
		}
	}
	switch (what) {
	case OUT_JSON:
		ret = vg_trace_json_write(recs, n, f);
		break;
	case OUT_SVG:
		ret = vg_trace_svg_write(recs, n, f);
		break;
	default:
		ret = vg_trace_summary_write(recs, n, f);
		break;
	}
	if (f != stdout && fclose(f))
		ret = -1;
	else if (f == stdout && fflush(f))
		ret = -1;
	free(recs);
	if (ret) {
		fprintf(stderr, "vmgpu-trace: writing %s failed\n",
			out && strcmp(out, "-") ? out : "stdout");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = { TOOL_COMMON_OPTIONS };
	const char *cmd;
	int c, args;

	/* "+": options end at the command, whose operands may start with '-'. */
	while ((c = getopt_long(argc, argv, "+h", lo, NULL)) != -1)
		tool_common_option(&tool, c);
	if (optind == argc)
		tool_usage_error(&tool, "no command");
	cmd = argv[optind];
	argv += optind + 1;
	args = argc - optind - 1;
	if (!strcmp(cmd, "start")) {
		char *end = NULL;
		unsigned long kib = args ? strtoul(argv[0], &end, 0) : 1024;

		if (args > 1)
			tool_usage_error(&tool, "start takes one operand");
		if ((args && (*end || !kib)) || kib > DRM_VMGPU_TRACE_MAX_KIB)
			tool_usage_error(&tool, "buffer size must be 1..%u KiB",
					 DRM_VMGPU_TRACE_MAX_KIB);
		return control(kib);
	}
	if (!strcmp(cmd, "stop")) {
		if (args)
			tool_usage_error(&tool, "stop takes no operand");
		return control(0);
	}
	if (!strcmp(cmd, "dump") || !strcmp(cmd, "summary")) {
		if (args > 1)
			tool_usage_error(&tool, "%s takes at most one operand", cmd);
		return convert(args ? argv[0] : NULL, NULL,
			       cmd[0] == 'd' ? OUT_JSON : OUT_SUMMARY);
	}
	if (!strcmp(cmd, "svg")) {
		if (args < 1 || args > 2)
			tool_usage_error(&tool, "svg takes [IN] OUT.svg");
		return convert(args == 2 ? argv[0] : NULL, argv[args - 1], OUT_SVG);
	}
	tool_usage_error(&tool, "unknown command '%s'", cmd);
}
