/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Launches of the built-in kernels for comparing their assembly and
 * OpenCL C forms (vmgpu_builtin_kernels_opencl()) on the same inputs: the
 * host tests run them on the interpreter, the VM tests on the device.
 * Header only, as ref_kernels.h.
 */
#ifndef VMGPU_BUILTIN_CASES_H
#define VMGPU_BUILTIN_CASES_H

#include <stdint.h>
#include <string.h>

/* A buffer argument: its parameter, size and first contents. */
struct bk_buf {
	uint32_t param, bytes;
	int kind;		/* 0 random floats, 1 random words, 2 zeros */
};

struct bk_case {
	const char *name;
	uint32_t grid[3], block[3];
	uint32_t nscal, scal[6][2];	/* parameter, value bits */
	uint32_t nbuf;
	struct bk_buf buf[3];
};

static const struct bk_case bk_cases[] = {
	{ "saxpy", { 12, 1, 1 }, { 256, 1, 1 }, 2, { { 0, 3000 },
	  { 1, 0x3fa00000 } }, 2, { { 2, 12000, 0 }, { 3, 12000, 0 } } },
	{ "vecadd", { 12, 1, 1 }, { 256, 1, 1 }, 1, { { 0, 3000 } }, 3,
	  { { 1, 12000, 0 }, { 2, 12000, 0 }, { 3, 12000, 2 } } },
	{ "fill", { 12, 1, 1 }, { 256, 1, 1 }, 4, { { 1, 3000 }, { 2, 7 },
	  { 3, 3 }, { 4, 0 } }, 1, { { 0, 12000, 2 } } },
	{ "blur3x3", { 4, 5, 1 }, { 16, 8, 1 }, 2, { { 0, 61 }, { 1, 37 } },
	  2, { { 2, 61 * 37 * 4, 0 }, { 3, 61 * 37 * 4, 2 } } },
	{ "reduce_sum", { 20, 1, 1 }, { 256, 1, 1 }, 1, { { 0, 5000 } }, 2,
	  { { 1, 20000, 0 }, { 2, 80, 2 } } },
	{ "histogram", { 8, 1, 1 }, { 128, 1, 1 }, 1, { { 0, 20000 } }, 2,
	  { { 1, 20000, 1 }, { 2, 1024, 2 } } },
	{ "matmul_tiled", { 3, 3, 1 }, { 16, 16, 1 }, 3, { { 0, 40 },
	  { 1, 36 }, { 2, 50 } }, 3, { { 3, 40 * 50 * 4, 0 },
	  { 4, 50 * 36 * 4, 0 }, { 5, 40 * 36 * 4, 2 } } },
	{ "stencil5", { 4, 5, 1 }, { 16, 8, 1 }, 6, { { 0, 64 }, { 1, 40 },
	  { 4, 9 }, { 5, 32 }, { 6, 16 }, { 7, 3 } },
	  2, { { 2, 64 * 40 * 4, 0 }, { 3, 64 * 40 * 4, 2 } } },
	{ "relief_shadow", { 4, 5, 1 }, { 16, 8, 1 }, 3, { { 0, 64 },
	  { 1, 40 }, { 4, 12 } },
	  2, { { 2, 64 * 40 * 4, 0 }, { 3, 64 * 40 * 4, 2 } } },
};

#define BK_CASES (sizeof(bk_cases) / sizeof(bk_cases[0]))

/*
 * Fill @a and @b (@b->bytes each) with the same first contents of @b's
 * kind, drawing from @word (random words) and @flt (random floats).
 */
static inline void bk_fill(const struct bk_buf *b, void *a, void *c,
			   uint32_t (*word)(void), float (*flt)(void))
{
	uint32_t i;

	for (i = 0; i < b->bytes; i += 4) {
		uint32_t v = b->kind == 1 ? word() : 0;
		float f = flt();

		if (b->kind == 0)
			memcpy(&v, &f, 4);
		memcpy((uint8_t *)a + i, &v, 4);
	}
	memcpy(c, a, b->bytes);
}

#endif
