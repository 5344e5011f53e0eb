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
	uint64_t max_bo_size;
	pthread_mutex_t bos_lock;	/* guards bos */
	struct vmgpu_bo *bos;		/* live buffers, for fault reports */
	/*
	 * Held while one multi-GPU run submits its packets, so every GPU's
	 * ring gets the runs in the same order: a run's packets wait for
	 * each other, and two runs queued in opposite orders on two GPUs
	 * would each wait behind the other.
	 */
	pthread_mutex_t gang_lock;
	pthread_mutex_t err_lock;	/* guards err_msg */
	char err_msg[256];
};

/* A kernel's signature, read and checked by vmgpu_kernel_create(). */
struct shim_kernel_sig {
	char name[VMGPU_KERNEL_NAME_MAX];
	uint32_t num_params;
	uint32_t args_bytes;
	struct vmgpu_exec_param params[VMGPU_MAX_PARAMS];
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
	struct shim_kernel_sig *sig;	/* a kernel with a signature */
	struct vmgpu_bo *prev, *next;	/* on dev->bos */
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

/* Typed arguments of one kernel (vmgpu_args_*). */
struct vmgpu_args {
	const struct vmgpu_bo *kernel;
	uint64_t set[(VMGPU_MAX_PARAMS + 63) / 64];	/* bit i: parameter i set */
	const struct vmgpu_bo *bufs[VMGPU_MAX_PARAMS];
	uint8_t block[VMGPU_MAX_ARGS_BYTES];
};

/* The argument block of @a for a dispatch of @kernel, every parameter set. */
int shim_args_block(struct vmgpu_cmdbuf *cb, const struct vmgpu_args *a,
		    const struct vmgpu_bo *kernel, const void **block,
		    uint32_t *bytes);
/* Its buffer arguments and their use (VMGPU_USE_*); returns how many. */
uint32_t shim_args_buffers(const struct vmgpu_args *a,
			   const struct vmgpu_bo **bos, uint32_t *use);

/* The buffer of @dev holding GPU address @va, if any. */
bool shim_find_bo(struct vmgpu_device *dev, uint64_t va, uint32_t *handle,
		  uint64_t *offset);

/* Record a message for vmgpu_error_message() and return @err. */
int shim_set_error(struct vmgpu_device *dev, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
