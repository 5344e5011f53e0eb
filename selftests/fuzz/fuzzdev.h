/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The device model under a coverage-guided fuzzer (libFuzzer): one engine
 * that turns arbitrary bytes into what a hostile guest can do to the
 * device, shared by the fuzz targets (fuzz_regs.c, fuzz_packet.c,
 * fuzz_kernel.c), each of which allows a subset of its operations.
 *
 * Every input starts from a fresh device on a fresh fake machine (the
 * host tests' testhost): a few GPUs, rings set up as a driver would,
 * two address spaces whose pages hold read-write and read-only buffers,
 * a remote page, an unmapped hole, command buffers, a data area for task
 * descriptors, dependency tables and TAKE words, argument blocks full of
 * interesting pointers, kernels, and a window that maps every page of
 * the machine (page tables, rings, fences) into the first address space,
 * so that kernels and copies can rewrite the device's own structures
 * while it uses them. Then the input is read as a list of operations
 * (Documentation/robustness.rst, "Fuzzing the device model").
 */
#ifndef VMGPU_FUZZDEV_H
#define VMGPU_FUZZDEV_H

#include <stddef.h>
#include <stdint.h>

/* The operations an input is made of; a target allows a subset. */
enum fz_op {
	FZ_OP_CMD,		/* append one command to the open buffer */
	FZ_OP_SUBMIT,		/* close the buffer, put it on a ring */
	FZ_OP_RUN,		/* run the GPUs, acknowledge interrupts */
	FZ_OP_POKE,		/* write guest memory (another CPU thread) */
	FZ_OP_DATA,		/* bytes into the data area */
	FZ_OP_RESET,		/* GPU or device reset */
	FZ_OP_MMIO,		/* any register write (or read) */
	FZ_OP_KERNEL,		/* a kernel (header + instructions) */
	FZ_OP_LAUNCH,		/* a well-formed packet dispatching a kernel */
	FZ_OP_COUNT
};

#define FZ_ALLOW(op)	(1u << (op))

/*
 * Run one input with the operations in @allowed (FZ_ALLOW() bits); an
 * input whose operation is not allowed takes the next allowed one.
 * Returns 0 (libFuzzer's convention).
 */
int fz_one_input(const uint8_t *data, size_t size, uint32_t allowed);

/*
 * Inputs as a test writes them: an operation and its bytes, as
 * fz_one_input() reads them back (mkseeds.c writes the seed corpora with
 * these).
 */
struct fz_writer {
	uint8_t buf[65536];
	size_t n;
};

void fz_put8(struct fz_writer *w, uint8_t v);
void fz_put32(struct fz_writer *w, uint32_t v);
/* A command word: a small value, an interesting address, or raw. */
void fz_put_small(struct fz_writer *w, uint8_t v);
void fz_put_addr(struct fz_writer *w, uint8_t which, uint8_t delta);
void fz_put_raw(struct fz_writer *w, uint32_t v);
/* A register value that is bus page @page + @offset of the machine. */
#define FZ_MMIO_BUS_PAGE	0xf0

/* Interesting addresses (fz_put_addr's @which). */
enum fz_addr {
	FZ_A_RW,		/* read-write buffer, 4 pages */
	FZ_A_RW_END,		/* its last word */
	FZ_A_RO,		/* read-only buffer */
	FZ_A_REMOTE,		/* a page in another GPU's memory */
	FZ_A_HOLE,		/* an unmapped page between buffers */
	FZ_A_CMD,		/* the command-buffer area (read-only) */
	FZ_A_DATA,		/* task descriptors, tables, TAKE words */
	FZ_A_QUEUE,		/* a queue task's descriptor in the data area */
	FZ_A_ARGS,		/* argument blocks of interesting pointers */
	FZ_A_KERNEL0,		/* kernel slots 0..3 */
	FZ_A_KERNEL1,
	FZ_A_KERNEL2,
	FZ_A_KERNEL3,
	FZ_A_STORE,		/* built-in kernels */
	FZ_A_ATOM,
	FZ_A_PARENT,
	FZ_A_PRODUCER,
	FZ_A_WINDOW,		/* every bus page: page tables, rings, fences */
	FZ_A_ZERO,
	FZ_A_TOP,		/* the last page of the VA space */
	FZ_A_BEYOND,		/* past VMGPU_VA_BITS */
	FZ_A_COUNT
};

#endif
