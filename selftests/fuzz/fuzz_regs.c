// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: register writes and reads, doorbells, resets and ring entries
 * of any bytes, with well-formed work in flight and guest memory rewritten
 * under it
 * (fuzzdev.h; Documentation/robustness.rst, "Fuzzing the device model").
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzzdev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fz_one_input(data, size,
			    FZ_ALLOW(FZ_OP_MMIO) | FZ_ALLOW(FZ_OP_RESET) |
			    FZ_ALLOW(FZ_OP_RUN) | FZ_ALLOW(FZ_OP_POKE) |
			    FZ_ALLOW(FZ_OP_LAUNCH) | FZ_ALLOW(FZ_OP_SUBMIT));
}
