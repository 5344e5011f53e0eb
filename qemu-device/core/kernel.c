// SPDX-License-Identifier: MIT
/*
 * Kernel loading and validation (kernel.h).
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

size_t vg_exec_image_bytes(const struct vmgpu_exec_header *hdr)
{
    if (!hdr || !vmgpu_exec_header_valid(hdr)) {
        return 0;
    }
    return (size_t)vmgpu_exec_image_bytes(hdr);
}

int vg_kernel_load(struct vg_kernel **out, const void *image, size_t bytes,
                   uint32_t isa_version, uint32_t *bad_pc)
{
    struct vmgpu_exec_header h;
    const uint8_t *code;
    struct vg_kernel *k;
    uint32_t pc;

    *out = NULL;
    if (bad_pc) {
        *bad_pc = 0;
    }
    if (!image || bytes < sizeof(h)) {
        return VMGPU_FAULT_BAD_EXECUTABLE;
    }
    vmgpu_exec_header_read(&h, image);
    if (!vmgpu_exec_header_valid(&h) || bytes < vmgpu_exec_image_bytes(&h) ||
        h.isa_version > isa_version) {
        return VMGPU_FAULT_BAD_EXECUTABLE;
    }

    code = (const uint8_t *)image + VMGPU_EXEC_HEADER_BYTES;
    for (pc = 0; pc < h.code_insns; pc++) {
        uint64_t w;

        memcpy(&w, code + (size_t)pc * VMGPU_INSN_BYTES, sizeof(w));
        if (!vmgpu_insn_valid(le64toh(w), h.isa_version, h.num_regs,
                              h.args_bytes)) {
            if (bad_pc) {
                *bad_pc = pc;
            }
            return VMGPU_FAULT_ILLEGAL_INSTR;
        }
    }

    k = calloc(1, sizeof(*k) +
                      ((size_t)h.code_insns + 1) * sizeof(struct vg_insn));
    if (!k) {
        return VMGPU_FAULT_BAD_EXECUTABLE;
    }
    k->num_regs = h.num_regs;
    k->shared_bytes = h.shared_bytes;
    k->args_bytes = h.args_bytes;
    k->code_insns = h.code_insns;
    for (pc = 0; pc < h.code_insns; pc++) {
        uint64_t w;

        memcpy(&w, code + (size_t)pc * VMGPU_INSN_BYTES, sizeof(w));
        w = le64toh(w);
        k->code[pc].op = w & 0xff;
        k->code[pc].d = VMGPU_INSN_D(w);
        k->code[pc].a = VMGPU_INSN_A(w);
        k->code[pc].b = VMGPU_INSN_B(w);
        k->code[pc].imm = VMGPU_INSN_IMM(w);
        if ((k->code[pc].op & ~VMGPU_OP_IMM) >= VMGPU_OP_ATOM_ADD &&
            (k->code[pc].op & ~VMGPU_OP_IMM) <= VMGPU_OP_ATOM_CAS) {
            k->global_atomics = true;
        }
    }
    k->code[h.code_insns].op = VG_OP_END;
    *out = k;
    return VMGPU_FAULT_NONE;
}

void vg_kernel_free(struct vg_kernel *k)
{
    free(k);
}

uint32_t vg_kernel_args_bytes(const struct vg_kernel *k)
{
    return k->args_bytes;
}

uint32_t vg_kernel_shared_bytes(const struct vg_kernel *k)
{
    return k->shared_bytes;
}

uint32_t vg_kernel_regs(const struct vg_kernel *k)
{
    return k->num_regs;
}

uint32_t vg_kernel_code_insns(const struct vg_kernel *k)
{
    return k->code_insns;
}
