/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * vmgpu instruction set: the one definition of the instruction encoding,
 * the opcode table, the register numbering and the executable format.
 *
 * Included by the device model (interpreter), the kernel driver (executable
 * validation) and the user library (assembler, disassembler).
 * Documentation/isa.rst explains every instruction.
 *
 * Every instruction is one little-endian 64-bit word:
 *
 *   bits  0..6   opcode (VMGPU_OP_*)
 *   bit   7      VMGPU_OP_IMM: operand B is the immediate, not register B
 *   bits  8..15  D: destination register (or predicate)
 *   bits 16..23  A: first source register (or predicate / special register)
 *   bits 24..31  B: second source register (or predicate)
 *   bits 32..63  IMM: 32-bit immediate (offset, constant, branch target);
 *                for four-operand instructions its low byte is register C
 *                and the rest must be zero
 */
#ifndef _VMGPU_ISA_H_
#define _VMGPU_ISA_H_

#include "vmgpu_hw.h"

/*
 * Version 2 adds device-side work (LAUNCH, ENQ), the work-item special
 * registers of queue tasks and atomics on shared memory (ATOMS_*, what the
 * OpenCL C compiler needs for atomics on local memory). A device of version N runs executables of
 * versions VMGPU_ISA_VERSION_MIN..N; an executable may use only the
 * instructions and special registers of its own version.
 */
#define VMGPU_ISA_VERSION		2
#define VMGPU_ISA_VERSION_MIN		1
#define VMGPU_ISA_MAX_REGS		128	/* general registers per thread */
#define VMGPU_ISA_NUM_PREDS		8	/* p0..p7, per thread */
#define VMGPU_ISA_MAX_CODE		(1u << 20)	/* instructions */

/* Instruction fields. */
#define VMGPU_INSN_OP(w)		((vmgpu_u32)(w) & 0x7f)
#define VMGPU_INSN_IS_IMM(w)		(((vmgpu_u32)(w) >> 7) & 1)
#define VMGPU_INSN_D(w)			(((vmgpu_u32)(w) >> 8) & 0xff)
#define VMGPU_INSN_A(w)			(((vmgpu_u32)(w) >> 16) & 0xff)
#define VMGPU_INSN_B(w)			(((vmgpu_u32)(w) >> 24) & 0xff)
#define VMGPU_INSN_IMM(w)		((vmgpu_u32)((vmgpu_u64)(w) >> 32))
#define VMGPU_OP_IMM			0x80
#define VMGPU_INSN(op, d, a, b, imm) \
	((vmgpu_u64)((op) & 0xff) | ((vmgpu_u64)((d) & 0xff) << 8) | \
	 ((vmgpu_u64)((a) & 0xff) << 16) | ((vmgpu_u64)((b) & 0xff) << 24) | \
	 ((vmgpu_u64)(vmgpu_u32)(imm) << 32))

/* Branch condition, in field A of BRA. */
#define VMGPU_BRA_PRED_MASK		0x07	/* predicate number */
#define VMGPU_BRA_NEGATE		0x40	/* branch if the predicate is false */
#define VMGPU_BRA_ALWAYS		0x80	/* unconditional; predicate bits 0 */

/*
 * Operand formats. They say how D, A, B and IMM are used; the assembler and
 * disassembler print and parse operands by format.
 */
enum vmgpu_isa_format {
	VMGPU_FMT_NONE,		/* op */
	VMGPU_FMT_BRA,		/* op [!]pA, target | op target */
	VMGPU_FMT_MOV,		/* op rD, rB|imm */
	VMGPU_FMT_SREG,		/* op rD, %sreg(A) */
	VMGPU_FMT_SEL,		/* op rD, pC, rA, rB */
	VMGPU_FMT_ARG,		/* op rD, imm (byte offset in the argument block) */
	VMGPU_FMT_ALU,		/* op rD, rA, rB|imm */
	VMGPU_FMT_UNARY,	/* op rD, rA */
	VMGPU_FMT_ALU3,		/* op rD, rA, rB, rC */
	VMGPU_FMT_SETP,		/* op pD, rA, rB|imm */
	VMGPU_FMT_PRED2,	/* op pD, pA, pB */
	VMGPU_FMT_PRED1,	/* op pD, pA */
	VMGPU_FMT_LOAD,		/* op rD, [rA + imm] */
	VMGPU_FMT_STORE,	/* op [rA + imm], rB */
	VMGPU_FMT_ATOM,		/* op rD, [rA + imm], rB */
	VMGPU_FMT_CAS,		/* op rD, [rA], rB, rC */
	VMGPU_FMT_LEA,		/* op rD, rA, rB, shift(imm) */
	VMGPU_FMT_LAUNCH,	/* op [rA], rB, rC (version 2) */
};

/* Operand properties (flags column of the opcode table). */
#define VMGPU_OPF_IMM		0x01	/* immediate form allowed */
#define VMGPU_OPF_D_PAIR	0x02	/* D names a register pair */
#define VMGPU_OPF_A_PAIR	0x04	/* A names a register pair */
#define VMGPU_OPF_B_PAIR	0x08	/* B (register form) names a pair */
#define VMGPU_OPF_FLOAT		0x10	/* immediate is a float */
#define VMGPU_OPF_SHARED	0x20	/* shared-memory access */
#define VMGPU_OPF_ISA2		0x40	/* new in ISA version 2 */
#define VMGPU_OPF_WORK		0x80	/* device-side work: no memory access */

/*
 * The opcode table: X(NAME, code, "mnemonic", format, flags, access bytes).
 * A 64-bit "pair" rN is rN (low 32 bits) and rN+1 (high 32 bits).
 */
#define VMGPU_ISA_OPCODES(X) \
	X(NOP,     0x00, "nop",      NONE,  0, 0) \
	X(EXIT,    0x01, "exit",     NONE,  0, 0) \
	X(BAR,     0x02, "bar",      NONE,  0, 0) \
	X(BRA,     0x03, "bra",      BRA,   0, 0) \
	X(MOV,     0x04, "mov",      MOV,   VMGPU_OPF_IMM, 0) \
	X(S2R,     0x05, "s2r",      SREG,  0, 0) \
	X(SEL,     0x06, "sel",      SEL,   0, 0) \
	X(LDARG,   0x07, "ldarg",    ARG,   0, 4) \
	X(LDARG64, 0x08, "ldarg.64", ARG,   VMGPU_OPF_D_PAIR, 8) \
	X(LAUNCH,  0x09, "launch",   LAUNCH, VMGPU_OPF_ISA2 | VMGPU_OPF_WORK | \
					    VMGPU_OPF_A_PAIR | VMGPU_OPF_B_PAIR, 0) \
	X(ENQ,     0x0a, "enq",      STORE, VMGPU_OPF_ISA2 | VMGPU_OPF_WORK | \
					    VMGPU_OPF_A_PAIR, 0) \
	X(ADD,     0x10, "add",      ALU,   VMGPU_OPF_IMM, 0) \
	X(SUB,     0x11, "sub",      ALU,   VMGPU_OPF_IMM, 0) \
	X(MUL,     0x12, "mul",      ALU,   VMGPU_OPF_IMM, 0) \
	X(MULHI,   0x13, "mulhi",    ALU,   VMGPU_OPF_IMM, 0) \
	X(MULHIU,  0x14, "mulhiu",   ALU,   VMGPU_OPF_IMM, 0) \
	X(DIV,     0x15, "div",      ALU,   VMGPU_OPF_IMM, 0) \
	X(DIVU,    0x16, "divu",     ALU,   VMGPU_OPF_IMM, 0) \
	X(REM,     0x17, "rem",      ALU,   VMGPU_OPF_IMM, 0) \
	X(REMU,    0x18, "remu",     ALU,   VMGPU_OPF_IMM, 0) \
	X(AND,     0x19, "and",      ALU,   VMGPU_OPF_IMM, 0) \
	X(OR,      0x1a, "or",       ALU,   VMGPU_OPF_IMM, 0) \
	X(XOR,     0x1b, "xor",      ALU,   VMGPU_OPF_IMM, 0) \
	X(SHL,     0x1c, "shl",      ALU,   VMGPU_OPF_IMM, 0) \
	X(SHR,     0x1d, "shr",      ALU,   VMGPU_OPF_IMM, 0) \
	X(SRA,     0x1e, "sra",      ALU,   VMGPU_OPF_IMM, 0) \
	X(MIN,     0x1f, "min",      ALU,   VMGPU_OPF_IMM, 0) \
	X(MAX,     0x20, "max",      ALU,   VMGPU_OPF_IMM, 0) \
	X(MINU,    0x21, "minu",     ALU,   VMGPU_OPF_IMM, 0) \
	X(MAXU,    0x22, "maxu",     ALU,   VMGPU_OPF_IMM, 0) \
	X(NOT,     0x23, "not",      UNARY, 0, 0) \
	X(NEG,     0x24, "neg",      UNARY, 0, 0) \
	X(MAD,     0x25, "mad",      ALU3,  0, 0) \
	X(ADD64,   0x26, "add64",    ALU,   VMGPU_OPF_IMM | VMGPU_OPF_D_PAIR | \
					    VMGPU_OPF_A_PAIR | VMGPU_OPF_B_PAIR, 0) \
	X(LEA,     0x27, "lea",      LEA,   VMGPU_OPF_D_PAIR | VMGPU_OPF_A_PAIR, 0) \
	X(FADD,    0x30, "fadd",     ALU,   VMGPU_OPF_IMM | VMGPU_OPF_FLOAT, 0) \
	X(FSUB,    0x31, "fsub",     ALU,   VMGPU_OPF_IMM | VMGPU_OPF_FLOAT, 0) \
	X(FMUL,    0x32, "fmul",     ALU,   VMGPU_OPF_IMM | VMGPU_OPF_FLOAT, 0) \
	X(FDIV,    0x33, "fdiv",     ALU,   VMGPU_OPF_IMM | VMGPU_OPF_FLOAT, 0) \
	X(FMIN,    0x34, "fmin",     ALU,   VMGPU_OPF_IMM | VMGPU_OPF_FLOAT, 0) \
	X(FMAX,    0x35, "fmax",     ALU,   VMGPU_OPF_IMM | VMGPU_OPF_FLOAT, 0) \
	X(FFMA,    0x36, "ffma",     ALU3,  0, 0) \
	X(FSQRT,   0x37, "fsqrt",    UNARY, 0, 0) \
	X(FABS,    0x38, "fabs",     UNARY, 0, 0) \
	X(FNEG,    0x39, "fneg",     UNARY, 0, 0) \
	X(I2F,     0x3a, "i2f",      UNARY, 0, 0) \
	X(U2F,     0x3b, "u2f",      UNARY, 0, 0) \
	X(F2I,     0x3c, "f2i",      UNARY, 0, 0) \
	X(F2U,     0x3d, "f2u",      UNARY, 0, 0) \
	X(SETP_EQ, 0x40, "setp.eq",  SETP,  VMGPU_OPF_IMM, 0) \
	X(SETP_NE, 0x41, "setp.ne",  SETP,  VMGPU_OPF_IMM, 0) \
	X(SETP_LT, 0x42, "setp.lt",  SETP,  VMGPU_OPF_IMM, 0) \
	X(SETP_LE, 0x43, "setp.le",  SETP,  VMGPU_OPF_IMM, 0) \
	X(SETP_GT, 0x44, "setp.gt",  SETP,  VMGPU_OPF_IMM, 0) \
	X(SETP_GE, 0x45, "setp.ge",  SETP,  VMGPU_OPF_IMM, 0) \
	X(SETP_LTU, 0x46, "setp.ltu", SETP, VMGPU_OPF_IMM, 0) \
	X(SETP_LEU, 0x47, "setp.leu", SETP, VMGPU_OPF_IMM, 0) \
	X(SETP_GTU, 0x48, "setp.gtu", SETP, VMGPU_OPF_IMM, 0) \
	X(SETP_GEU, 0x49, "setp.geu", SETP, VMGPU_OPF_IMM, 0) \
	X(FSETP_EQ, 0x4a, "fsetp.eq", SETP, VMGPU_OPF_IMM | VMGPU_OPF_FLOAT, 0) \
	X(FSETP_NE, 0x4b, "fsetp.ne", SETP, VMGPU_OPF_IMM | VMGPU_OPF_FLOAT, 0) \
	X(FSETP_LT, 0x4c, "fsetp.lt", SETP, VMGPU_OPF_IMM | VMGPU_OPF_FLOAT, 0) \
	X(FSETP_LE, 0x4d, "fsetp.le", SETP, VMGPU_OPF_IMM | VMGPU_OPF_FLOAT, 0) \
	X(FSETP_GT, 0x4e, "fsetp.gt", SETP, VMGPU_OPF_IMM | VMGPU_OPF_FLOAT, 0) \
	X(FSETP_GE, 0x4f, "fsetp.ge", SETP, VMGPU_OPF_IMM | VMGPU_OPF_FLOAT, 0) \
	X(PAND,    0x50, "pand",     PRED2, 0, 0) \
	X(POR,     0x51, "por",      PRED2, 0, 0) \
	X(PXOR,    0x52, "pxor",     PRED2, 0, 0) \
	X(PNOT,    0x53, "pnot",     PRED1, 0, 0) \
	X(ATOM_ADD,  0x58, "atom.add",  ATOM, VMGPU_OPF_A_PAIR, 4) \
	X(ATOM_MIN,  0x59, "atom.min",  ATOM, VMGPU_OPF_A_PAIR, 4) \
	X(ATOM_MAX,  0x5a, "atom.max",  ATOM, VMGPU_OPF_A_PAIR, 4) \
	X(ATOM_MINU, 0x5b, "atom.minu", ATOM, VMGPU_OPF_A_PAIR, 4) \
	X(ATOM_MAXU, 0x5c, "atom.maxu", ATOM, VMGPU_OPF_A_PAIR, 4) \
	X(ATOM_XCHG, 0x5d, "atom.xchg", ATOM, VMGPU_OPF_A_PAIR, 4) \
	X(ATOM_CAS,  0x5e, "atom.cas",  CAS,  VMGPU_OPF_A_PAIR, 4) \
	X(ATOMS_ADD,  0x54, "atoms.add",  ATOM, VMGPU_OPF_SHARED | VMGPU_OPF_ISA2, 4) \
	X(ATOMS_MIN,  0x55, "atoms.min",  ATOM, VMGPU_OPF_SHARED | VMGPU_OPF_ISA2, 4) \
	X(ATOMS_MAX,  0x56, "atoms.max",  ATOM, VMGPU_OPF_SHARED | VMGPU_OPF_ISA2, 4) \
	X(ATOMS_MINU, 0x57, "atoms.minu", ATOM, VMGPU_OPF_SHARED | VMGPU_OPF_ISA2, 4) \
	X(ATOMS_MAXU, 0x7c, "atoms.maxu", ATOM, VMGPU_OPF_SHARED | VMGPU_OPF_ISA2, 4) \
	X(ATOMS_XCHG, 0x7d, "atoms.xchg", ATOM, VMGPU_OPF_SHARED | VMGPU_OPF_ISA2, 4) \
	X(ATOMS_CAS,  0x7e, "atoms.cas",  CAS,  VMGPU_OPF_SHARED | VMGPU_OPF_ISA2, 4) \
	X(LD_U8,   0x60, "ld.u8",    LOAD,  VMGPU_OPF_A_PAIR, 1) \
	X(LD_S8,   0x61, "ld.s8",    LOAD,  VMGPU_OPF_A_PAIR, 1) \
	X(LD_U16,  0x62, "ld.u16",   LOAD,  VMGPU_OPF_A_PAIR, 2) \
	X(LD_S16,  0x63, "ld.s16",   LOAD,  VMGPU_OPF_A_PAIR, 2) \
	X(LD_32,   0x64, "ld.32",    LOAD,  VMGPU_OPF_A_PAIR, 4) \
	X(LD_64,   0x65, "ld.64",    LOAD,  VMGPU_OPF_A_PAIR | VMGPU_OPF_D_PAIR, 8) \
	X(ST_8,    0x68, "st.8",     STORE, VMGPU_OPF_A_PAIR, 1) \
	X(ST_16,   0x69, "st.16",    STORE, VMGPU_OPF_A_PAIR, 2) \
	X(ST_32,   0x6a, "st.32",    STORE, VMGPU_OPF_A_PAIR, 4) \
	X(ST_64,   0x6b, "st.64",    STORE, VMGPU_OPF_A_PAIR | VMGPU_OPF_B_PAIR, 8) \
	X(LDS_U8,  0x70, "lds.u8",   LOAD,  VMGPU_OPF_SHARED, 1) \
	X(LDS_S8,  0x71, "lds.s8",   LOAD,  VMGPU_OPF_SHARED, 1) \
	X(LDS_U16, 0x72, "lds.u16",  LOAD,  VMGPU_OPF_SHARED, 2) \
	X(LDS_S16, 0x73, "lds.s16",  LOAD,  VMGPU_OPF_SHARED, 2) \
	X(LDS_32,  0x74, "lds.32",   LOAD,  VMGPU_OPF_SHARED, 4) \
	X(LDS_64,  0x75, "lds.64",   LOAD,  VMGPU_OPF_SHARED | VMGPU_OPF_D_PAIR, 8) \
	X(STS_8,   0x78, "sts.8",    STORE, VMGPU_OPF_SHARED, 1) \
	X(STS_16,  0x79, "sts.16",   STORE, VMGPU_OPF_SHARED, 2) \
	X(STS_32,  0x7a, "sts.32",   STORE, VMGPU_OPF_SHARED, 4) \
	X(STS_64,  0x7b, "sts.64",   STORE, VMGPU_OPF_SHARED | VMGPU_OPF_B_PAIR, 8)

enum vmgpu_isa_op {
#define VMGPU_ISA_X_ENUM(name, code, mnem, fmt, flags, bytes) \
	VMGPU_OP_##name = code,
	VMGPU_ISA_OPCODES(VMGPU_ISA_X_ENUM)
#undef VMGPU_ISA_X_ENUM
	VMGPU_OP_COUNT = 0x80
};

/* Special registers, read with S2R (field A). */
enum vmgpu_sreg {
	VMGPU_SREG_TID_X = 0,	/* thread index within the block */
	VMGPU_SREG_TID_Y,
	VMGPU_SREG_TID_Z,
	VMGPU_SREG_NTID_X,	/* block size in threads */
	VMGPU_SREG_NTID_Y,
	VMGPU_SREG_NTID_Z,
	VMGPU_SREG_CTAID_X,	/* block index: origin + position in grid */
	VMGPU_SREG_CTAID_Y,
	VMGPU_SREG_CTAID_Z,
	VMGPU_SREG_NCTAID_X,	/* whole index space in blocks (grid_total) */
	VMGPU_SREG_NCTAID_Y,
	VMGPU_SREG_NCTAID_Z,
	VMGPU_SREG_ORIGIN_X,	/* block index offset of this dispatch */
	VMGPU_SREG_ORIGIN_Y,
	VMGPU_SREG_ORIGIN_Z,
	VMGPU_SREG_LANEID,	/* 0..31 */
	VMGPU_SREG_WARPID,	/* warp within the block */
	VMGPU_SREG_GPUID,	/* GPU index */
	VMGPU_SREG_SMID,	/* SM index within the GPU */
	VMGPU_SREG_COUNT_V1,
	/* Version 2: the work items of a queue task's block (0 otherwise). */
	VMGPU_SREG_ITEM_BASE = VMGPU_SREG_COUNT_V1, /* first item's index */
	VMGPU_SREG_ITEM_COUNT,	/* items in this block, 1..coalesce */
	VMGPU_SREG_COUNT
};

/* Assembly name of special register @s ("%tid.x"), NULL if none. */
static inline const char *vmgpu_sreg_name(vmgpu_u32 s)
{
	static const char *const names[VMGPU_SREG_COUNT] = {
		"%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z",
		"%ctaid.x", "%ctaid.y", "%ctaid.z", "%nctaid.x", "%nctaid.y",
		"%nctaid.z", "%origin.x", "%origin.y", "%origin.z", "%laneid",
		"%warpid", "%gpuid", "%smid", "%itembase", "%itemcount",
	};

	return s < VMGPU_SREG_COUNT ? names[s] : 0;
}

/* Special registers an executable of ISA version @isa may read. */
static inline vmgpu_u32 vmgpu_isa_sregs(vmgpu_u32 isa)
{
	return isa >= 2 ? VMGPU_SREG_COUNT : VMGPU_SREG_COUNT_V1;
}

/* ------------------------------------------------------------------ */
/* Instruction validation                                                 */
/* ------------------------------------------------------------------ */

struct vmgpu_isa_opinfo {
	vmgpu_u8 fmt;			/* enum vmgpu_isa_format */
	vmgpu_u8 flags;			/* VMGPU_OPF_* */
	vmgpu_u8 bytes;			/* memory access size, 0 if none */
};

/* Look up opcode @op (without the immediate bit); 0 if it does not exist. */
static inline int vmgpu_isa_opinfo(vmgpu_u32 op, struct vmgpu_isa_opinfo *oi)
{
	switch (op) {
#define VMGPU_ISA_X_INFO(name, code, mnem, fmt_, flags_, bytes_) \
	case code: \
		oi->fmt = VMGPU_FMT_##fmt_; \
		oi->flags = (flags_); \
		oi->bytes = (bytes_); \
		return 1;
	VMGPU_ISA_OPCODES(VMGPU_ISA_X_INFO)
#undef VMGPU_ISA_X_INFO
	}
	return 0;
}

static inline int vmgpu_isa_reg_ok(vmgpu_u32 r, int pair, vmgpu_u32 num_regs)
{
	return r + (pair ? 1 : 0) < num_regs;
}

/*
 * Is instruction @w well formed for an executable of ISA version @isa
 * with @num_regs registers and an argument block of @args_bytes? The
 * opcode and special registers must exist in that version, every field a
 * format does not use must be zero, registers (both halves of a pair)
 * must exist, predicates must exist, LEA shifts are 0..31, argument reads
 * are aligned and inside the block. Branch targets are not checked here:
 * a branch past the code faults only when taken (VMGPU_FAULT_PC_RANGE).
 */
static inline int vmgpu_insn_valid(vmgpu_u64 w, vmgpu_u32 isa,
				   vmgpu_u32 num_regs, vmgpu_u32 args_bytes)
{
	vmgpu_u32 d = VMGPU_INSN_D(w), a = VMGPU_INSN_A(w);
	vmgpu_u32 b = VMGPU_INSN_B(w), imm = VMGPU_INSN_IMM(w);
	vmgpu_u32 n = num_regs, np = VMGPU_ISA_NUM_PREDS;
	int is_imm = VMGPU_INSN_IS_IMM(w), dp, ap, bp;
	struct vmgpu_isa_opinfo oi;

	if (!vmgpu_isa_opinfo(VMGPU_INSN_OP(w), &oi))
		return 0;
	if (is_imm && !(oi.flags & VMGPU_OPF_IMM))
		return 0;
	if ((oi.flags & VMGPU_OPF_ISA2) && isa < 2)
		return 0;
	dp = oi.flags & VMGPU_OPF_D_PAIR;
	ap = oi.flags & VMGPU_OPF_A_PAIR;
	bp = oi.flags & VMGPU_OPF_B_PAIR;

	switch (oi.fmt) {
	case VMGPU_FMT_NONE:
		return !d && !a && !b && !imm;
	case VMGPU_FMT_BRA:
		if (d || b)
			return 0;
		if (a & VMGPU_BRA_ALWAYS)
			return a == VMGPU_BRA_ALWAYS;
		return !(a & ~(VMGPU_BRA_PRED_MASK | VMGPU_BRA_NEGATE));
	case VMGPU_FMT_MOV:
		if (!vmgpu_isa_reg_ok(d, 0, n) || a)
			return 0;
		return is_imm ? !b : vmgpu_isa_reg_ok(b, 0, n) && !imm;
	case VMGPU_FMT_SREG:
		return vmgpu_isa_reg_ok(d, 0, n) && a < vmgpu_isa_sregs(isa) &&
		       !b && !imm;
	case VMGPU_FMT_SEL:
		return vmgpu_isa_reg_ok(d, 0, n) && vmgpu_isa_reg_ok(a, 0, n) &&
		       vmgpu_isa_reg_ok(b, 0, n) && imm < np;
	case VMGPU_FMT_ARG:
		return vmgpu_isa_reg_ok(d, dp, n) && !a && !b &&
		       imm % 4 == 0 && imm <= args_bytes &&
		       oi.bytes <= args_bytes - imm;
	case VMGPU_FMT_ALU:
		if (!vmgpu_isa_reg_ok(d, dp, n) || !vmgpu_isa_reg_ok(a, ap, n))
			return 0;
		return is_imm ? !b : vmgpu_isa_reg_ok(b, bp, n) && !imm;
	case VMGPU_FMT_UNARY:
		return vmgpu_isa_reg_ok(d, 0, n) && vmgpu_isa_reg_ok(a, 0, n) &&
		       !b && !imm;
	case VMGPU_FMT_ALU3:
	case VMGPU_FMT_CAS:
		return vmgpu_isa_reg_ok(d, 0, n) && vmgpu_isa_reg_ok(a, ap, n) &&
		       vmgpu_isa_reg_ok(b, 0, n) && imm < n;
	case VMGPU_FMT_SETP:
		if (d >= np || !vmgpu_isa_reg_ok(a, 0, n))
			return 0;
		return is_imm ? !b : vmgpu_isa_reg_ok(b, 0, n) && !imm;
	case VMGPU_FMT_PRED2:
		return d < np && a < np && b < np && !imm;
	case VMGPU_FMT_PRED1:
		return d < np && a < np && !b && !imm;
	case VMGPU_FMT_LOAD:
		return vmgpu_isa_reg_ok(d, dp, n) && vmgpu_isa_reg_ok(a, ap, n) &&
		       !b;
	case VMGPU_FMT_STORE:
		return !d && vmgpu_isa_reg_ok(a, ap, n) &&
		       vmgpu_isa_reg_ok(b, bp, n);
	case VMGPU_FMT_ATOM:
		return vmgpu_isa_reg_ok(d, 0, n) && vmgpu_isa_reg_ok(a, ap, n) &&
		       vmgpu_isa_reg_ok(b, 0, n);
	case VMGPU_FMT_LEA:
		return vmgpu_isa_reg_ok(d, dp, n) && vmgpu_isa_reg_ok(a, ap, n) &&
		       vmgpu_isa_reg_ok(b, 0, n) && imm < 32;
	case VMGPU_FMT_LAUNCH:
		return !d && vmgpu_isa_reg_ok(a, ap, n) &&
		       vmgpu_isa_reg_ok(b, bp, n) && imm < n;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Executable format                                                      */
/* ------------------------------------------------------------------ */

#define VMGPU_EXEC_MAGIC		0x58454756	/* "VGEX" in memory order */

/*
 * An executable is this 32-byte header followed by code_insns 64-bit
 * little-endian instructions (the image the device fetches: exactly
 * sizeof(header) + 8 * code_insns bytes), then, when sig_bytes is not
 * zero, the kernel's signature (struct vmgpu_exec_sig): its name and
 * typed parameters, for the library. The device never reads the
 * signature.
 */
struct vmgpu_exec_header {
	vmgpu_u32 magic;		/* VMGPU_EXEC_MAGIC */
	vmgpu_u32 isa_version;		/* VMGPU_ISA_VERSION_MIN.. */
	vmgpu_u32 num_regs;		/* general registers per thread, 1..128 */
	vmgpu_u32 shared_bytes;		/* static shared memory per block */
	vmgpu_u32 args_bytes;		/* argument block, multiple of 4 */
	vmgpu_u32 code_insns;		/* 1..VMGPU_ISA_MAX_CODE */
	vmgpu_u32 sig_bytes;		/* signature after the code, 0: none */
	vmgpu_u32 reserved;		/* must be zero */
};

#define VMGPU_EXEC_HEADER_BYTES		32
#define VMGPU_INSN_BYTES		8

/*
 * The signature: a kernel's name and its parameters, each a typed slot of
 * the argument block. A library uses it to set arguments by index with
 * type checks and to know which buffers a dispatch reads and writes.
 */
#define VMGPU_SIG_MAGIC			0x47495356	/* "VSIG" in memory order */
#define VMGPU_KERNEL_NAME_MAX		32	/* bytes, NUL included */
#define VMGPU_PARAM_NAME_MAX		24	/* bytes, NUL included */
/*
 * Parameters of a signature: OpenCL's 1024 bytes of them
 * (CL_DEVICE_MAX_PARAMETER_SIZE) as 256 parameters of 4 bytes, the
 * narrowest the argument block has, and the compiler's hidden ones (at
 * most 4: the ndrange pair, printf's buffer, the private buffer). Readers
 * built when the limit was 32 refuse a longer signature.
 */
#define VMGPU_MAX_PARAMS		260

enum vmgpu_param_type {
	VMGPU_PARAM_I32 = 1,		/* 32-bit integer */
	VMGPU_PARAM_I64,		/* 64-bit integer */
	VMGPU_PARAM_F32,		/* IEEE single */
	VMGPU_PARAM_BUF_RO,		/* GPU VA of a buffer the kernel reads */
	VMGPU_PARAM_BUF_WO,		/* ... writes */
	VMGPU_PARAM_BUF_RW,		/* ... reads and writes */
	/*
	 * A by-value aggregate (an OpenCL vector, a struct): raw bytes. Its
	 * type word also holds its size and alignment,
	 * VMGPU_PARAM_BYTES_TYPE(); the word's low byte is the kind.
	 */
	VMGPU_PARAM_BYTES,
	/*
	 * A __local pointer: a 32-bit byte offset into the block's shared
	 * memory, like an i32 in the argument block, but typed so that a
	 * library places the buffer (given by its size) itself. Readers
	 * older than it refuse it ("unknown parameter type").
	 */
	VMGPU_PARAM_LOCAL,
	VMGPU_PARAM_NUM_TYPES
};

/*
 * A VMGPU_PARAM_BYTES type word: kind in bits 0..7, size in bytes in
 * bits 8..23 (1..VMGPU_MAX_ARGS_BYTES), log2 of the alignment in bits
 * 24..27 (0..7: 1..128 bytes, the size a multiple of it), bits 28..31
 * zero. Every other type word is its kind alone.
 */
#define VMGPU_PARAM_KIND(t)		((t) & 0xffu)
#define VMGPU_PARAM_BYTES_TYPE(size, align_log2) \
	(VMGPU_PARAM_BYTES | (vmgpu_u32)(size) << 8 | \
	 (vmgpu_u32)(align_log2) << 24)
#define VMGPU_PARAM_BYTES_SIZE(t)	(((t) >> 8) & 0xffffu)
#define VMGPU_PARAM_BYTES_ALIGN_LOG2(t)	(((t) >> 24) & 0xfu)
#define VMGPU_PARAM_BYTES_MAX_ALIGN_LOG2	7

struct vmgpu_exec_param {
	vmgpu_u32 type;			/* VMGPU_PARAM_* */
	vmgpu_u32 offset;		/* in the argument block, aligned to size */
	char name[VMGPU_PARAM_NAME_MAX];	/* NUL-terminated, not "" */
};

struct vmgpu_exec_sig {
	vmgpu_u32 magic;		/* VMGPU_SIG_MAGIC */
	vmgpu_u32 num_params;		/* 0..VMGPU_MAX_PARAMS */
	char name[VMGPU_KERNEL_NAME_MAX];	/* NUL-terminated, not "" */
	/* struct vmgpu_exec_param params[num_params] follow */
};

#define VMGPU_EXEC_SIG_BYTES(n) \
	(sizeof(struct vmgpu_exec_sig) + (n) * sizeof(struct vmgpu_exec_param))
#define VMGPU_EXEC_MAX_SIG_BYTES	VMGPU_EXEC_SIG_BYTES(VMGPU_MAX_PARAMS)

/* Is @type a well-formed VMGPU_PARAM_BYTES type word? */
static inline int vmgpu_param_bytes_ok(vmgpu_u32 type)
{
	vmgpu_u32 size = VMGPU_PARAM_BYTES_SIZE(type);
	vmgpu_u32 al = VMGPU_PARAM_BYTES_ALIGN_LOG2(type);

	return VMGPU_PARAM_KIND(type) == VMGPU_PARAM_BYTES &&
	       !(type >> 28) && size >= 1 && size <= VMGPU_MAX_ARGS_BYTES &&
	       al <= VMGPU_PARAM_BYTES_MAX_ALIGN_LOG2 &&
	       size % (1u << al) == 0;
}

/* Bytes of a parameter of type @type in the argument block, 0 if none. */
static inline vmgpu_u32 vmgpu_param_size(vmgpu_u32 type)
{
	if (VMGPU_PARAM_KIND(type) == VMGPU_PARAM_BYTES)
		return vmgpu_param_bytes_ok(type) ?
		       VMGPU_PARAM_BYTES_SIZE(type) : 0;
	switch (type) {
	case VMGPU_PARAM_I32:
	case VMGPU_PARAM_F32:
	case VMGPU_PARAM_LOCAL:
		return 4;
	case VMGPU_PARAM_I64:
	case VMGPU_PARAM_BUF_RO:
	case VMGPU_PARAM_BUF_WO:
	case VMGPU_PARAM_BUF_RW:
		return 8;
	}
	return 0;
}

/* Alignment of a parameter of type @type in the argument block, 0 if none. */
static inline vmgpu_u32 vmgpu_param_align(vmgpu_u32 type)
{
	if (VMGPU_PARAM_KIND(type) == VMGPU_PARAM_BYTES)
		return vmgpu_param_bytes_ok(type) ?
		       1u << VMGPU_PARAM_BYTES_ALIGN_LOG2(type) : 0;
	return vmgpu_param_size(type);
}

/*
 * Name of a parameter type in assembly and messages, NULL if unknown;
 * "bytes" for every VMGPU_PARAM_BYTES word (assembly writes
 * bytesSIZE/ALIGN).
 */
static inline const char *vmgpu_param_type_name(vmgpu_u32 type)
{
	switch (type) {
	case VMGPU_PARAM_I32:
		return "i32";
	case VMGPU_PARAM_I64:
		return "i64";
	case VMGPU_PARAM_F32:
		return "f32";
	case VMGPU_PARAM_BUF_RO:
		return "buf_ro";
	case VMGPU_PARAM_BUF_WO:
		return "buf_wo";
	case VMGPU_PARAM_BUF_RW:
		return "buf_rw";
	case VMGPU_PARAM_LOCAL:
		return "local";
	}
	if (vmgpu_param_bytes_ok(type))
		return "bytes";
	return 0;
}

static inline int vmgpu_param_is_buffer(vmgpu_u32 type)
{
	return type == VMGPU_PARAM_BUF_RO || type == VMGPU_PARAM_BUF_WO ||
	       type == VMGPU_PARAM_BUF_RW;
}

/* True if the header alone is acceptable (the code is checked separately). */
static inline int vmgpu_exec_header_valid(const struct vmgpu_exec_header *h)
{
	return h->magic == VMGPU_EXEC_MAGIC &&
	       h->isa_version >= VMGPU_ISA_VERSION_MIN &&
	       h->isa_version <= VMGPU_ISA_VERSION &&
	       h->num_regs >= 1 && h->num_regs <= VMGPU_ISA_MAX_REGS &&
	       h->shared_bytes <= VMGPU_MAX_SHARED_BYTES &&
	       h->args_bytes <= VMGPU_MAX_ARGS_BYTES &&
	       h->args_bytes % 4 == 0 &&
	       h->code_insns >= 1 && h->code_insns <= VMGPU_ISA_MAX_CODE &&
	       h->sig_bytes % 4 == 0 && h->sig_bytes <= VMGPU_EXEC_MAX_SIG_BYTES &&
	       h->reserved == 0;
}

/* Image size announced by a valid header: what the device fetches. */
static inline vmgpu_u64 vmgpu_exec_image_bytes(const struct vmgpu_exec_header *h)
{
	return VMGPU_EXEC_HEADER_BYTES +
	       (vmgpu_u64)h->code_insns * VMGPU_INSN_BYTES;
}

/* Bytes of the whole executable file: image, then signature. */
static inline vmgpu_u64 vmgpu_exec_file_bytes(const struct vmgpu_exec_header *h)
{
	return vmgpu_exec_image_bytes(h) + h->sig_bytes;
}

#ifndef __KERNEL__
#include <endian.h>
#include <string.h>

/*
 * A little-endian word in host order. Not le32toh(): strict ISO C
 * (-std=c11) hides it, and programs include this header through vmgpu.h.
 */
static inline vmgpu_u32 vmgpu_le32_to_host(vmgpu_u32 v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return __builtin_bswap32(v);
#else
	return v;
#endif
}

/*
 * Read an image's header (little-endian in memory, possibly unaligned)
 * into host order. The caller has checked that @image holds at least
 * VMGPU_EXEC_HEADER_BYTES.
 */
static inline void vmgpu_exec_header_read(struct vmgpu_exec_header *h,
					  const void *image)
{
	memcpy(h, image, sizeof(*h));
	h->magic = vmgpu_le32_to_host(h->magic);
	h->isa_version = vmgpu_le32_to_host(h->isa_version);
	h->num_regs = vmgpu_le32_to_host(h->num_regs);
	h->shared_bytes = vmgpu_le32_to_host(h->shared_bytes);
	h->args_bytes = vmgpu_le32_to_host(h->args_bytes);
	h->code_insns = vmgpu_le32_to_host(h->code_insns);
	h->sig_bytes = vmgpu_le32_to_host(h->sig_bytes);
	h->reserved = vmgpu_le32_to_host(h->reserved);
}

static inline int vmgpu_sig_name_ok(const char *name, size_t max, int empty_ok)
{
	size_t i;

	for (i = 0; i < max && name[i]; i++)
		if (!(name[i] == '_' || (name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= 'A' && name[i] <= 'Z') ||
		      (i && name[i] >= '0' && name[i] <= '9')))
			return 0;
	return i < max && (empty_ok || i > 0);
}

/*
 * Read and check the signature of an executable of @bytes bytes whose
 * header is @h (already valid): its name and parameters into @sig and
 * @params (room for VMGPU_MAX_PARAMS), in host order. Returns 1 if the
 * file has a signature, 0 if it has none, -1 with *why set if the
 * signature is malformed: a bad magic or size, a bad name, an unknown
 * type (a VMGPU_PARAM_BYTES word with a bad size or alignment too), a
 * parameter outside the argument block, misaligned (to its size, or a
 * BYTES one to its alignment), or overlapping another.
 */
static inline int vmgpu_exec_sig_read(const struct vmgpu_exec_header *h,
				      const void *file, size_t bytes,
				      struct vmgpu_exec_sig *sig,
				      struct vmgpu_exec_param *params,
				      const char **why)
{
	const unsigned char *p = (const unsigned char *)file +
				 vmgpu_exec_image_bytes(h);
	vmgpu_u32 i, j;

	if (!h->sig_bytes)
		return 0;
	*why = "signature truncated";
	if (bytes < vmgpu_exec_file_bytes(h) ||
	    h->sig_bytes < sizeof(*sig))
		return -1;
	memcpy(sig, p, sizeof(*sig));
	sig->magic = vmgpu_le32_to_host(sig->magic);
	sig->num_params = vmgpu_le32_to_host(sig->num_params);
	*why = "bad signature magic";
	if (sig->magic != VMGPU_SIG_MAGIC)
		return -1;
	*why = "signature size does not match its parameter count";
	if (sig->num_params > VMGPU_MAX_PARAMS ||
	    h->sig_bytes != VMGPU_EXEC_SIG_BYTES(sig->num_params))
		return -1;
	*why = "bad kernel name";
	if (!vmgpu_sig_name_ok(sig->name, sizeof(sig->name), 0))
		return -1;
	for (i = 0; i < sig->num_params; i++) {
		struct vmgpu_exec_param *a = &params[i];
		vmgpu_u32 size;

		memcpy(a, p + sizeof(*sig) + i * sizeof(*a), sizeof(*a));
		a->type = vmgpu_le32_to_host(a->type);
		a->offset = vmgpu_le32_to_host(a->offset);
		size = vmgpu_param_size(a->type);
		*why = "unknown parameter type";
		if (!size)
			return -1;
		*why = "bad parameter name";
		if (!vmgpu_sig_name_ok(a->name, sizeof(a->name), 0))
			return -1;
		*why = "parameter misaligned or outside the argument block";
		if (a->offset % vmgpu_param_align(a->type) ||
		    (vmgpu_u64)a->offset + size > h->args_bytes)
			return -1;
		*why = "parameters overlap";
		for (j = 0; j < i; j++)
			if (a->offset < params[j].offset +
					vmgpu_param_size(params[j].type) &&
			    params[j].offset < a->offset + size)
				return -1;
	}
	return 1;
}
#endif

#endif /* _VMGPU_ISA_H_ */
