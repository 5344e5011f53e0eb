/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the VM selftests that run work on the device: kernels
 * assembled at run time, buffers, and waiting. Header-only because every
 * selftests/vm C file is its own test binary.
 */
#ifndef VMGPU_TEST_UTIL_H
#define VMGPU_TEST_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "vmgpu.h"
#include "vmgpu_drm.h"
#include "vmgpu_hw.h"
#include "vmgpu_isa.h"

#define SEC_NS		1000000000ll

static inline unsigned long env_ul(const char *name, unsigned long def)
{
	const char *v = getenv(name);

	return v ? strtoul(v, NULL, 0) : def;
}

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * SEC_NS + ts.tv_nsec;
}

/*
 * Wait until @handle is signalled, whether its packet succeeded or not:
 * 0 then (vmgpu_syncobj_status() tells which), or the wait's own error
 * (-ETIME). For tests that look at a failed packet's status themselves;
 * vmgpu_syncobj_wait() returns the packet's error instead.
 */
static inline int wait_signalled(struct vmgpu_device *dev, uint32_t handle,
				 int64_t timeout_ns)
{
	int ret = vmgpu_syncobj_wait(dev, handle, 0, timeout_ns);

	/* Signalled with an error: the status says so. */
	if (ret < 0 && ret != -ETIME && vmgpu_syncobj_status(dev, handle) < 0)
		return 0;
	return ret;
}

/* Write @s to the file at @path (sysfs, debugfs); 0 or -errno. */
static inline int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n < 0 ? -errno : 0;
}

#define VMGPU_DRV_DIR "/sys/bus/pci/drivers/vmgpu"

/* Wait up to 5 s for the one render node (after a bind); 0 once it is there. */
static inline int wait_bound(void)
{
	int i;

	for (i = 0; i < 250; i++) {
		if (vmgpu_device_count() == 1)
			return 0;
		usleep(20000);
	}
	return -1;
}

/* The PCI address vmgpu.ko is bound to, in @bdf. */
static inline int bound_device(char *bdf, size_t len)
{
	struct dirent *de;
	DIR *d;

	bdf[0] = 0;
	d = opendir(VMGPU_DRV_DIR);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "0000:", 5))
			snprintf(bdf, len, "%s", de->d_name);
	closedir(d);
	return bdf[0] ? 0 : -1;
}

/* Write @bdf to the driver's "bind" or "unbind" file. */
static inline int driver_op(const char *op, const char *bdf)
{
	char path[128];

	snprintf(path, sizeof(path), VMGPU_DRV_DIR "/%s", op);
	return write_file(path, bdf);
}

/* Assemble @src into a kernel buffer; NULL (and a message) on failure. */
static inline struct vmgpu_bo *make_kernel(struct vmgpu_device *dev,
					   const char *src)
{
	struct vmgpu_bo *bo = NULL;
	char err[256];
	size_t bytes;
	void *image;

	if (vmgpu_asm_assemble(src, &image, &bytes, err, sizeof(err))) {
		fprintf(stderr, "# assemble: %s\n", err);
		return NULL;
	}
	if (vmgpu_kernel_create(dev, image, bytes, &bo)) {
		vmgpu_error_message(dev, err, sizeof(err));
		fprintf(stderr, "# kernel_create: %s\n", err);
		bo = NULL;
	}
	free(image);
	return bo;
}

static inline struct vmgpu_bo *make_bo(struct vmgpu_device *dev,
				       uint64_t size, void **map)
{
	struct vmgpu_bo *bo;

	if (vmgpu_bo_create(dev, size, 0, VMGPU_PLACEMENT_SYSTEM, &bo))
		return NULL;
	if (vmgpu_bo_map(bo, map)) {
		vmgpu_bo_destroy(bo);
		return NULL;
	}
	memset(*map, 0, size);
	return bo;
}

/*
 * add_one: *dst = *src + 1 after a delay of @spin loop iterations between
 * the load and the store, so that dispatches that overlap read stale data.
 * args: +0 src (u32 *), +8 dst (u32 *), +16 spin (u32). One thread.
 */
static const char add_one_src[] =
	".args 24\n"
	"	ldarg.64 r0, 0\n"
	"	ldarg.64 r2, 8\n"
	"	ldarg r4, 16\n"
	"	ld.32 r5, [r0]\n"
	"	mov r6, 0\n"
	"spin:\n"
	"	setp.geu p0, r6, r4\n"
	"	bra p0, store\n"
	"	add r6, r6, 1\n"
	"	bra spin\n"
	"store:\n"
	"	add r5, r5, 1\n"
	"	st.32 [r2], r5\n"
	"	exit\n";

struct add_one_args {
	uint64_t src;
	uint64_t dst;
	uint32_t spin;
	uint32_t pad;
};

/* Arguments of the built-in "fill" kernel (libshim/builtin_kernels.c). */
struct fill_args {
	uint64_t out;
	uint32_t n, mul, add, spin;
};

/* store_to: *(u32 *)addr = value. args: +0 addr, +8 value. */
static const char store_to_src[] =
	".args 16\n"
	"	ldarg.64 r0, 0\n"
	"	ldarg r2, 8\n"
	"	st.32 [r0], r2\n"
	"	exit\n";

struct store_to_args {
	uint64_t addr;
	uint32_t value;
	uint32_t pad;
};

/* forever: a loop that never ends (the instruction budget ends it). */
static const char forever_src[] =
	"loop:\n"
	"	bra loop\n"
	"	exit\n";

static inline void fill_dispatch(struct vmgpu_dispatch_desc *d,
				 struct vmgpu_bo *k, void *args, uint32_t bytes,
				 uint32_t grid, uint32_t block)
{
	memset(d, 0, sizeof(*d));
	d->kernel = k;
	d->args = args;
	d->args_bytes = bytes;
	d->grid[0] = grid;
	d->block[0] = block;
}

#endif
