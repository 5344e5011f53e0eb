/* SPDX-License-Identifier: MIT */
/*
 * Format B of a task-graph specification program (SPEC T2): the binary
 * encoding, shared by the runner and the text form. Documented in
 * Documentation/taskgraph.rst. Words are little-endian; a command is a
 * header word (opcode in bits 0..7, bits 8..15 zero, total length in
 * words in bits 16..31) and its operands; 64-bit operands are two words,
 * low first.
 */
#ifndef VMGPU_TG_STREAM_H
#define VMGPU_TG_STREAM_H

#include <stddef.h>
#include <stdint.h>

#define TGB_MAGIC		0x42475456u	/* "VTGB" in memory order */
#define TGB_VERSION		1u
#define TGB_HDR(op, len)	((uint32_t)(op) | (uint32_t)(len) << 16)
#define TGB_OP(hdr)		((hdr) & 0xff)
#define TGB_LEN(hdr)		((hdr) >> 16)

/* X(name, opcode, words or 0 for a NAME's variable length, text) */
#define TGB_TABLE(X) \
	X(PASS, 0x01, 1, "pass") \
	X(END_PASS, 0x02, 1, "end_pass") \
	X(NAME, 0x03, 0, "name") \
	X(READ, 0x04, 2, "read") \
	X(WRITE, 0x05, 2, "write") \
	X(DROP, 0x06, 2, "drop") \
	X(STATE, 0x07, 3, "state") \
	X(NEEDS, 0x08, 9, "needs") \
	X(DISPATCH, 0x09, 2, "dispatch") \
	X(COPY, 0x0a, 9, "copy") \
	X(CLEAR, 0x0b, 7, "clear") \
	X(LOOP, 0x10, 3, "loop") \
	X(IF, 0x11, 5, "if") \
	X(ELSE, 0x12, 1, "else") \
	X(END, 0x13, 1, "end")

enum tgb_op {
#define TGB_X_ENUM(name, code, len, text) TGB_##name = (code),
	TGB_TABLE(TGB_X_ENUM)
#undef TGB_X_ENUM
};

/* LOOP count kinds; IF comparisons (signed 64-bit). */
#define TGB_COUNT_IMM		0u
#define TGB_COUNT_PARAM		1u
enum tgb_cmp { TGB_EQ, TGB_NE, TGB_LT, TGB_LE, TGB_GT, TGB_GE, TGB_NCMP };

#define TGB_MAX_NAME		255	/* bytes of a NAME, NUL excluded */
#define TGB_MAX_DEPTH		64	/* nested LOOP/IF/PASS */

/* One decoded command: where it is, and the END/ELSE that matches it. */
struct tgb_cmd {
	uint32_t at;			/* word offset */
	uint32_t op;
	uint32_t len;
	uint32_t match;			/* LOOP/IF/ELSE/PASS: index of its end */
};

/*
 * Check @words (magic, version, every command's length and operands,
 * the nesting) and list the commands in *@cmds (malloc()ed). On error a
 * "word N: ..." message in @err.
 */
int tgb_decode(const uint32_t *words, size_t count, struct tgb_cmd **cmds,
	       uint32_t *ncmds, char *err, size_t errlen);
uint32_t tgb_word(const uint32_t *words, uint32_t at);
uint64_t tgb_word64(const uint32_t *words, uint32_t at);

#endif
