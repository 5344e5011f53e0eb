/* SPDX-License-Identifier: MIT */
/*
 * vmgpu assembler, disassembler and the built-in reference kernels.
 * Documentation/isa.rst describes the assembly language.
 *
 * Functions return 0 or a negative errno; error text (first error, with
 * its line number) goes to the caller's buffer. No global mutable state.
 */
#ifndef VMGPU_ASM_H
#define VMGPU_ASM_H

#include <stddef.h>
#include <stdint.h>

/*
 * Assemble @src into an executable image (struct vmgpu_exec_header + code),
 * returned in *image (free() it) and *bytes. -EINVAL with "line N: ..." in
 * @err on a syntax error, -ENOMEM when out of memory.
 */
int vmgpu_asm_assemble(const char *src, void **image, size_t *bytes,
		       char *err, size_t errlen);

/*
 * Disassemble an executable image into assembly source that assembles back
 * to the same bytes; *text is malloc()ed. -EINVAL if the header is invalid
 * or the image is truncated. Undecodable words come out as ".insn 0x...".
 */
int vmgpu_disasm_image(const void *image, size_t bytes, char **text,
		       char *err, size_t errlen);

/*
 * One instruction as text (branch targets as instruction numbers).
 * Returns 0, or -EINVAL if @insn is not a valid instruction (the text is
 * then ".insn 0x...").
 */
int vmgpu_disasm_insn(uint64_t insn, char *buf, size_t len);

/*
 * Assembly source of a built-in kernel, NULL if there is none by that name.
 * Argument blocks and launch shapes are documented with each kernel in
 * builtin_kernels.c and in Documentation/isa.rst.
 */
const char *vmgpu_builtin_kernel_source(const char *name);
/* NULL-terminated list of the built-in kernel names. */
const char *const *vmgpu_builtin_kernel_names(void);

#endif /* VMGPU_ASM_H */
