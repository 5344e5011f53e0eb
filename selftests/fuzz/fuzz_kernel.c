// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: kernels of any header and instructions (random words or
 * well-formed instructions aimed at interesting addresses: their own
 * buffers, the command area, page tables, other kernels, nothing), run by
 * the interpreter with argument blocks of interesting pointers
 * (fuzzdev.h; Documentation/robustness.rst, "Fuzzing the device model").
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzzdev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fz_one_input(data, size,
			    FZ_ALLOW(FZ_OP_KERNEL) | FZ_ALLOW(FZ_OP_LAUNCH) |
			    FZ_ALLOW(FZ_OP_RUN) | FZ_ALLOW(FZ_OP_POKE) |
			    FZ_ALLOW(FZ_OP_DATA));
}
