/* SPDX-License-Identifier: MIT */
/*
 * Test-facing: what the host tests and the benchmarks need of libvmgpu
 * when they run its task-graph recorders against the device model of
 * selftests/host (testhost.h) instead of a driver. There is no render
 * node there, so no buffer object: a stand-in handle carries only the GPU
 * address and size the recorders read. Never for programs: such a handle
 * works with no call that reaches the driver. The shim_ prefix keeps these
 * out of libvmgpu.so's exports (libvmgpu.map); the tests link libvmgpu.a.
 */
#ifndef VMGPU_TESTING_H
#define VMGPU_TESTING_H

#include <vmgpu.h>

/* A stand-in for a buffer at @gpu_va of @size bytes; NULL if out of memory. */
struct vmgpu_bo *shim_test_bo_new(uint64_t gpu_va, uint64_t size);
/* Free a stand-in of shim_test_bo_new(); NULL is accepted. */
void shim_test_bo_free(struct vmgpu_bo *bo);

#endif /* VMGPU_TESTING_H */
