// SPDX-License-Identifier: MIT
/*
 * vmgpu-stress: the small helpers every process uses: the clock, the
 * output (say, verbose, violation, lines in the kernel log), reading and
 * writing files, and the counting of every call on the device (note,
 * xioctl and the ioctl wrappers and waits built on it). Apart because the
 * controller, the workers, the checker and the hang injector all use them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <xf86drm.h>

#include "stress.h"

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */
/* ------------------------------------------------------------------ */

int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void out(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
	char buf[2048];
	int n;

	n = snprintf(buf, sizeof(buf), "[%7.2f] %s%s[%d]: ",
		     (now_ns() - t0) / 1e9, prefix, role, getpid());
	if (n < 0 || n >= (int)sizeof(buf))
		return;
	vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	n = strlen(buf);
	buf[n++] = '\n';
	fflush(f);
	if (write(fileno(f), buf, n) < 0)
		return;
}

void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out(stdout, "", fmt, ap);
	va_end(ap);
}

void __attribute__((format(printf, 1, 2))) verbose(const char *fmt, ...)
{
	va_list ap;

	if (!cfg.verbose)
		return;
	va_start(ap, fmt);
	out(stdout, "", fmt, ap);
	va_end(ap);
}

void __attribute__((format(printf, 1, 2))) violation(const char *fmt, ...)
{
	va_list ap;

	__atomic_add_fetch(&S->violations, 1, __ATOMIC_RELAXED);
	va_start(ap, fmt);
	out(stdout, "VIOLATION: ", fmt, ap);
	va_end(ap);
}

/* A line in the kernel log, so reports can be matched with events. */
void kmsg(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int fd, n;

	n = snprintf(buf, sizeof(buf), "<5>vmgpu-stress: ");
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, buf, strlen(buf)) < 0)
		(void)0;
	close(fd);
}

int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return (int)n;
}

/* First @len - 1 bytes of a file; -errno. */
int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n <= 0)
			break;
		got += n;
	}
	buf[got] = 0;
	close(fd);
	return (int)got;
}

/*
 * The device node @dev opened ("" if it cannot be told): libdrm reads it
 * from sysfs for the file, as the library does for a handle made from a
 * file descriptor.
 */
void device_node(struct vmgpu_device *dev, char *buf, size_t len)
{
	char *name = drmGetDeviceNameFromFd2(vmgpu_device_fd(dev));

	snprintf(buf, len, "%s", name ? name : "");
	free(name);
}

/* ------------------------------------------------------------------ */
/* Counting every call on the device                                    */
/* ------------------------------------------------------------------ */

__thread struct proc *cur_proc;

/* Count one call of type @c that failed with @err (0: success). */
int note(enum call c, int err)
{
	__atomic_add_fetch(&S->calls[c], 1, __ATOMIC_RELAXED);
	if (err < 0)
		err = -err;
	if (!err)
		return 0;
	__atomic_add_fetch(&S->call_errs[c], 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&S->errnos[err < ERRNO_SLOTS ? err : ERRNO_SLOTS - 1],
			   1, __ATOMIC_RELAXED);
	/* Only an unplugged DRM device answers an ioctl with ENODEV. */
	if (err == ENODEV && c < C_IOCTL_END && cur_proc)
		proc_lost(cur_proc);
	return -err;
}

int xioctl(enum call c, int fd, unsigned long req, void *arg)
{
	int r = ioctl(fd, req, arg);

	return note(c, r ? errno : 0);
}

int gem_close(int fd, uint32_t h)
{
	struct drm_gem_close gc = { .handle = h };

	return xioctl(C_GEM_CLOSE, fd, DRM_IOCTL_GEM_CLOSE, &gc);
}

int ctx_destroy(int fd, uint32_t id)
{
	struct drm_vmgpu_ctx_destroy d = { .ctx_id = id };

	return xioctl(C_CTX_DESTROY, fd, DRM_IOCTL_VMGPU_CTX_DESTROY, &d);
}

int syncobj_destroy(int fd, uint32_t h)
{
	struct drm_syncobj_destroy d = { .handle = h };

	return xioctl(C_SYNCOBJ_DESTROY, fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
}

int get_param(int fd, uint32_t param, uint64_t *v)
{
	struct drm_vmgpu_get_param gp = { .param = param };
	int ret = xioctl(C_GET_PARAM, fd, DRM_IOCTL_VMGPU_GET_PARAM, &gp);

	if (!ret)
		*v = gp.value;
	return ret;
}

/*
 * Wait for a syncobj in slices of a second, up to @timeout_ms, returning
 * early (-EINTR) when the run stops. 0, -ETIME, or the wait's error.
 */
/*
 * Wait until @h is signalled: 0 also when its packet failed (the wait
 * returns the packet's error; callers read it from the status), or the
 * wait's own error.
 */
int wait_signalled(struct vmgpu_device *dev, uint32_t h,
			  int64_t timeout_ns)
{
	int ret = vmgpu_syncobj_wait(dev, h, 0, timeout_ns);

	if (ret < 0 && ret != -ETIME && vmgpu_syncobj_status(dev, h) < 0)
		return 0;
	return ret;
}

int wait_sync(struct vmgpu_device *dev, uint32_t h, unsigned int timeout_ms)
{
	int64_t end = now_ns() + (int64_t)timeout_ms * MS;
	int ret;

	for (;;) {
		int64_t left = end - now_ns();

		if (left <= 0)
			return -ETIME;
		ret = wait_signalled(dev, h, left < NS ? left : NS);
		note(C_SYNCOBJ_WAIT, ret == -ETIME ? 0 : ret);
		if (ret != -ETIME)
			return ret;
		if (S->stop)
			return -EINTR;
	}
}

int sync_status(struct vmgpu_device *dev, uint32_t h)
{
	/* Negative: the fence's error, or the export's. */
	int st = vmgpu_syncobj_status(dev, h);

	note(C_SYNCOBJ_EXPORT_SYNC_FILE, 0);
	return st;
}

/* Assemble a built-in or given kernel; exits on failure (a bug here). */
void assemble(const char *src, void **image, size_t *bytes)
{
	char err[256];

	if (vmgpu_asm_assemble(src, image, bytes, err, sizeof(err))) {
		fprintf(stderr, "vmgpu-stress: assembler: %s\n", err);
		exit(1);
	}
}
