/* SPDX-License-Identifier: MIT */
/*
 * Growing an array by doubling: the one helper the library's builders
 * (command buffers, task graphs, the runtime's tables) share. A header,
 * not a function of libvmgpu: the runtime is its own library and links
 * libvmgpu's shared object, which exports only the API.
 */
#ifndef VMGPU_GROW_H
#define VMGPU_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Make room for @need elements of @elem bytes in *@arr, whose capacity is
 * *@cap: the capacity doubles (from 16) until it holds @need. -ENOMEM,
 * with *@arr and *@cap unchanged, when that fails or would overflow.
 */
static inline int vmgpu_grow(void **arr, uint32_t *cap, uint32_t need,
			     size_t elem)
{
	uint64_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	if (ncap > UINT32_MAX)
		ncap = UINT32_MAX;
	if (elem && ncap > SIZE_MAX / elem)
		return -ENOMEM;
	p = realloc(*arr, (size_t)ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = (uint32_t)ncap;
	return 0;
}

#endif /* VMGPU_GROW_H */
