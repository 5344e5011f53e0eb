/* SPDX-License-Identifier: MIT */
/*
 * libvmgpu internals shared between the library's files; not installed.
 */
#ifndef VMGPU_SHIM_INTERNAL_H
#define VMGPU_SHIM_INTERNAL_H

#include <pthread.h>

struct vmgpu_device {
	int fd;
	char node[64];
	pthread_mutex_t err_lock;	/* guards err_msg */
	char err_msg[256];
};

/* Record a message for vmgpu_error_message() and return @err. */
int shim_set_error(struct vmgpu_device *dev, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
