// SPDX-License-Identifier: MIT
/*
 * vmgpu-trace: control the device's trace and turn its records into
 * Chrome/Perfetto trace-event JSON.
 *
 *   vmgpu-trace start [KIB]   allocate a KIB KiB buffer (default 1024), record
 *   vmgpu-trace stop          stop recording, keep the buffer for dump
 *   vmgpu-trace dump [FILE]   JSON of the records in FILE (raw records, as
 *                             read from debugfs) or of the device's buffer
 *
 * The records are struct vmgpu_trace_record (uapi/vmgpu_hw.h), read from
 * the driver's debugfs file "trace"; the JSON converter is the device
 * model's own (qemu-device/core/trace.c), so host and VM agree.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "vmgpu_hw.h"

#define DRI_DEBUGFS "/sys/kernel/debug/dri"

/* The debugfs directory of the first DRM minor whose driver is vmgpu. */
static int find_debugfs(char *dir, size_t len)
{
	DIR *d = opendir(DRI_DEBUGFS);
	struct dirent *e;
	int ret = -ENODEV;

	if (!d)
		return -errno;
	while ((e = readdir(d)) && ret) {
		char path[512], name[64] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), DRI_DEBUGFS "/%s/name", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f) && !strncmp(name, "vmgpu ", 6)) {
			snprintf(dir, len, DRI_DEBUGFS "/%s", e->d_name);
			ret = 0;
		}
		fclose(f);
	}
	closedir(d);
	return ret;
}

static int write_ctrl(const char *value)
{
	char dir[300], path[400];
	FILE *f;
	int ret = find_debugfs(dir, sizeof(dir));

	if (ret) {
		fprintf(stderr, "vmgpu-trace: no vmgpu debugfs directory under %s: %s\n",
			DRI_DEBUGFS, strerror(-ret));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/trace_enable", dir);
	f = fopen(path, "w");
	if (!f || fputs(value, f) < 0 || fclose(f)) {
		fprintf(stderr, "vmgpu-trace: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

/* Read all of @f into a malloc'd buffer. */
static void *slurp(FILE *f, size_t *bytes)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);

	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);
		char *bigger;

		n += got;
		if (got == 0)
			break;
		if (n < cap)
			continue;
		bigger = realloc(buf, cap * 2);
		if (!bigger) {
			free(buf);
			return NULL;
		}
		buf = bigger;
		cap *= 2;
	}
	*bytes = n;
	return buf;
}

static int dump(const char *file)
{
	char dir[300], path[400];
	size_t bytes;
	void *buf;
	FILE *f;
	int ret;

	if (!file) {
		ret = find_debugfs(dir, sizeof(dir));
		if (ret) {
			fprintf(stderr, "vmgpu-trace: no vmgpu debugfs directory: %s\n",
				strerror(-ret));
			return 1;
		}
		snprintf(path, sizeof(path), "%s/trace", dir);
		file = path;
	}
	f = fopen(file, "rb");
	if (!f) {
		fprintf(stderr, "vmgpu-trace: %s: %s\n", file, strerror(errno));
		return 1;
	}
	buf = slurp(f, &bytes);
	fclose(f);
	if (!buf) {
		fprintf(stderr, "vmgpu-trace: out of memory reading %s\n", file);
		return 1;
	}
	if (bytes % VMGPU_TRACE_RECORD_SIZE)
		fprintf(stderr, "vmgpu-trace: %s: %zu trailing bytes ignored\n",
			file, bytes % VMGPU_TRACE_RECORD_SIZE);
	ret = vg_trace_json_from_buffer(buf, bytes - bytes % VMGPU_TRACE_RECORD_SIZE,
					stdout);
	free(buf);
	if (ret) {
		fprintf(stderr, "vmgpu-trace: %s: not a vmgpu trace\n", file);
		return 1;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: vmgpu-trace start [KIB] | stop | dump [FILE]\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "start") && argc <= 3) {
		char value[32];
		char *end;
		unsigned long kib = argc == 3 ? strtoul(argv[2], &end, 0) : 1024;

		if ((argc == 3 && (*end || !kib)) || kib > 256 * 1024) {
			fprintf(stderr, "vmgpu-trace: buffer size must be 1..262144 KiB\n");
			return 2;
		}
		snprintf(value, sizeof(value), "%lu\n", kib);
		return write_ctrl(value);
	}
	if (!strcmp(argv[1], "stop") && argc == 2)
		return write_ctrl("0\n");
	if (!strcmp(argv[1], "dump") && argc <= 3)
		return dump(argc == 3 ? argv[2] : NULL);
	return usage();
}
