// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: command buffers of any commands and words, with task
 * descriptors, queues, dependency tables and TAKE words of any bytes behind
 * them, rewritten between runs, and resets
 * (fuzzdev.h; Documentation/robustness.rst, "Fuzzing the device model").
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzzdev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fz_one_input(data, size,
			    FZ_ALLOW(FZ_OP_CMD) | FZ_ALLOW(FZ_OP_SUBMIT) |
			    FZ_ALLOW(FZ_OP_RUN) | FZ_ALLOW(FZ_OP_DATA) |
			    FZ_ALLOW(FZ_OP_POKE) | FZ_ALLOW(FZ_OP_RESET));
}
