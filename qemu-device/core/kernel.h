/* SPDX-License-Identifier: MIT */
/*
 * Kernel loading: an executable image (uapi/vmgpu_isa.h) as copied from
 * GPU memory is validated as a whole, instruction by instruction, and
 * pre-decoded for the interpreter. Nothing runs that was not checked
 * here; Documentation/isa.rst gives the rules.
 */
#ifndef VG_KERNEL_H
#define VG_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmgpu_hw.h"
#include "vmgpu_isa.h"

/* Internal opcode of the sentinel after the last instruction. */
#define VG_OP_END 0xff

/* Pre-decoded instruction: the encoding's fields, op including the imm bit. */
struct vg_insn {
    uint8_t op, d, a, b;
    uint32_t imm;
};

/* A validated, pre-decoded executable. */
struct vg_kernel {
    uint32_t num_regs, shared_bytes, args_bytes, code_insns;
    bool global_atomics; /* it has ATOM_* (global memory) instructions */
    struct vg_insn code[]; /* code_insns + 1 (the VG_OP_END sentinel) */
};

/*
 * Validate an executable image (header + code) for a device of ISA version
 * @isa_version: an executable of a later version is refused. Returns
 * VMGPU_FAULT_NONE and a kernel, or VMGPU_FAULT_BAD_EXECUTABLE /
 * VMGPU_FAULT_ILLEGAL_INSTR with *bad_pc set where it applies (@bad_pc may
 * be NULL).
 */
int vg_kernel_load(struct vg_kernel **out, const void *image, size_t bytes,
                   uint32_t isa_version, uint32_t *bad_pc);
void vg_kernel_free(struct vg_kernel *k);
/* Total image size announced by a header (header + code), 0 if invalid. */
size_t vg_exec_image_bytes(const struct vmgpu_exec_header *hdr);
uint32_t vg_kernel_args_bytes(const struct vg_kernel *k);
uint32_t vg_kernel_shared_bytes(const struct vg_kernel *k); /* static */
uint32_t vg_kernel_regs(const struct vg_kernel *k);
uint32_t vg_kernel_code_insns(const struct vg_kernel *k);

#endif
