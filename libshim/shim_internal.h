/* SPDX-License-Identifier: MIT */
/*
 * libvmgpu internals shared between the library's files; not installed.
 */
#ifndef VMGPU_SHIM_INTERNAL_H
#define VMGPU_SHIM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "vmgpu_cmd.h"

struct vmgpu_device {
	int fd;
	char node[64];
	uint32_t num_gpus;
	uint32_t max_dispatches;
	uint32_t cmdbuf_max_bytes;
	pthread_mutex_t err_lock;	/* guards err_msg */
	char err_msg[256];
};

struct vmgpu_bo {
	struct vmgpu_device *dev;
	uint32_t handle;
	uint32_t flags;
	uint32_t placement;
	uint64_t size;
	uint64_t gpu_va;
	pthread_mutex_t map_lock;	/* guards map */
	void *map;
};

struct vmgpu_context {
	struct vmgpu_device *dev;
	uint32_t id;
};

struct shim_bo_use {
	uint32_t handle;
	uint32_t flags;			/* DRM_VMGPU_SUBMIT_BO_* */
};

struct vmgpu_cmdbuf {
	struct vmgpu_device *dev;
	uint32_t *words;
	uint32_t nwords, cap_words;
	/* The command-format rules, checked on each builder command; also
	 * counts the dispatches. */
	struct vmgpu_cmd_checker check;
	bool ended;			/* raw END appended by the user */
	struct shim_bo_use *bos;
	uint32_t nbos, cap_bos;
	/* Argument heaps: each dispatch's block is copied into one. */
	struct vmgpu_bo **heaps;
	uint32_t nheaps, cap_heaps;
	uint64_t heap_used;		/* bytes used in the last heap */
};

/* Record a message for vmgpu_error_message() and return @err. */
int shim_set_error(struct vmgpu_device *dev, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
