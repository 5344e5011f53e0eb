/* SPDX-License-Identifier: MIT */
/*
 * The driver's device-trace files in debugfs, for the tools that record a
 * trace (vmgpu-trace, vmgpu-demo): "trace_enable" starts recording into a
 * fresh buffer (KiB written) or stops (0), "trace" reads the raw records
 * (driver/vmgpu_devtrace.c).
 */
#ifndef VMGPU_TOOLS_DEVTRACE_H
#define VMGPU_TOOLS_DEVTRACE_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEVTRACE_DRI_DEBUGFS "/sys/kernel/debug/dri"

/* The debugfs directory of the first DRM minor whose driver is vmgpu. */
static inline int devtrace_dir(char *dir, size_t len)
{
	DIR *d = opendir(DEVTRACE_DRI_DEBUGFS);
	struct dirent *e;
	int ret = -ENODEV;

	if (!d)
		return -errno;
	while ((e = readdir(d)) && ret) {
		char path[512], name[64] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), DEVTRACE_DRI_DEBUGFS "/%s/name",
			 e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f) && !strncmp(name, "vmgpu ", 6)) {
			snprintf(dir, len, DEVTRACE_DRI_DEBUGFS "/%s", e->d_name);
			ret = 0;
		}
		fclose(f);
	}
	closedir(d);
	return ret;
}

/* The path of debugfs file @name of the device; 0 or -errno. */
static inline int devtrace_path(const char *name, char *path, size_t len)
{
	char dir[300];
	int ret = devtrace_dir(dir, sizeof(dir));

	if (!ret)
		snprintf(path, len, "%s/%s", dir, name);
	return ret;
}

/* Start recording into a fresh @kib KiB buffer, or stop (0): 0 or -errno. */
static inline int devtrace_enable(unsigned long kib)
{
	char path[400];
	FILE *f;
	int ret = devtrace_path("trace_enable", path, sizeof(path));

	if (ret)
		return ret;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	/* The driver's answer (-E2BIG, -ENOMEM) comes with the flush. */
	if (fprintf(f, "%lu\n", kib) < 0) {
		ret = -errno;
		fclose(f);
		return ret;
	}
	return fclose(f) ? -errno : 0;
}

/* Records the device could not write (buffer full): 0 or -errno. */
static inline int devtrace_dropped(unsigned int *dropped)
{
	char path[400], line[64];
	FILE *f;
	int ret = devtrace_path("trace_enable", path, sizeof(path));

	if (ret)
		return ret;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	ret = -EINVAL;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "dropped %u", dropped) == 1)
			ret = 0;
	fclose(f);
	return ret;
}

/* All of @f, malloc()ed; NULL if out of memory. */
static inline void *devtrace_slurp(FILE *f, size_t *bytes)
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

#endif
