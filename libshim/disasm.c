// SPDX-License-Identifier: MIT
/*
 * vmgpu disassembler. Its output assembles back to the same bytes: header
 * values become directives, branch targets labels "L<pc>", float
 * immediates either "%.9g" (exact for every finite float) or raw hex, and
 * anything undecodable ".insn 0x...".
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmgpu.h"
#include "vmgpu_isa.h"

static const char *mnemonic_of(uint32_t op)
{
	switch (op) {
#define X_NAME(name, code, mnem, fmt, flags, bytes) case code: return mnem;
	VMGPU_ISA_OPCODES(X_NAME)
#undef X_NAME
	}
	return NULL;
}


struct outbuf {
	char *buf;
	size_t len, cap;
	bool overflow;
	bool grow;		/* malloc()ed and growable */
};

static void out(struct outbuf *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void out(struct outbuf *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = o->cap - o->len;

		va_start(ap, fmt);
		n = vsnprintf(o->buf + o->len, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			o->overflow = true;
			return;
		}
		if ((size_t)n < room) {
			o->len += n;
			return;
		}
		if (!o->grow) {
			o->len = o->cap - 1;
			o->overflow = true;
			return;
		}
		{
			size_t cap = o->cap * 2 + n;
			char *nb = realloc(o->buf, cap);

			if (!nb) {
				o->overflow = true;
				return;
			}
			o->buf = nb;
			o->cap = cap;
		}
	}
}

static void out_int(struct outbuf *o, uint32_t v)
{
	if (v < 0x10000)
		out(o, "%u", v);
	else if ((int32_t)v < 0 && (int32_t)v >= -0x10000)
		out(o, "%d", (int32_t)v);
	else
		out(o, "0x%x", v);
}

static void out_float(struct outbuf *o, uint32_t v)
{
	char tmp[32];
	float f, back;

	memcpy(&f, &v, sizeof(f));
	if (f == f && f - f == 0.0f) {
		uint32_t bits;

		snprintf(tmp, sizeof(tmp), "%.9g", f);
		back = strtof(tmp, NULL);
		memcpy(&bits, &back, sizeof(bits));
		if (bits == v) {
			/* Keep it a float literal to the eye. */
			out(o, "%s%s", tmp, strpbrk(tmp, ".en") ? "" : ".0");
			return;
		}
	}
	out(o, "0x%08x", v);
}

static void out_mem(struct outbuf *o, uint32_t reg, uint32_t off)
{
	if (!off)
		out(o, "[r%u]", reg);
	else if ((int32_t)off < 0)
		out(o, "[r%u - %u]", reg, 0u - off);
	else
		out(o, "[r%u + %u]", reg, off);
}

/* Print one instruction; @labels: print branch targets as L<n>. */
static int disasm_one(struct outbuf *o, uint64_t w, bool labels,
		      uint32_t ninsns)
{
	uint32_t op = VMGPU_INSN_OP(w), d = VMGPU_INSN_D(w);
	uint32_t a = VMGPU_INSN_A(w), b = VMGPU_INSN_B(w);
	uint32_t imm = VMGPU_INSN_IMM(w);
	bool is_imm = VMGPU_INSN_IS_IMM(w), fl;
	struct vmgpu_isa_opinfo oi = { 0 };

	if (!vmgpu_insn_valid(w, VMGPU_ISA_VERSION, VMGPU_ISA_MAX_REGS,
			      VMGPU_MAX_ARGS_BYTES)) {
		out(o, ".insn 0x%016" PRIx64, w);
		return -EINVAL;
	}
	vmgpu_isa_opinfo(op, &oi);
	fl = oi.flags & VMGPU_OPF_FLOAT;
	out(o, "%s", mnemonic_of(op));

	switch (oi.fmt) {
	case VMGPU_FMT_NONE:
		break;
	case VMGPU_FMT_BRA:
		out(o, " ");
		if (!(a & VMGPU_BRA_ALWAYS))
			out(o, "%sp%u, ", a & VMGPU_BRA_NEGATE ? "!" : "",
			    a & VMGPU_BRA_PRED_MASK);
		if (labels && imm < ninsns)
			out(o, "L%u", imm);
		else
			out(o, "%u", imm);
		break;
	case VMGPU_FMT_MOV:
		out(o, " r%u, ", d);
		if (is_imm)
			out_int(o, imm);
		else
			out(o, "r%u", b);
		break;
	case VMGPU_FMT_SREG:
		out(o, " r%u, %s", d, vmgpu_sreg_name(a));
		break;
	case VMGPU_FMT_SEL:
		out(o, " r%u, p%u, r%u, r%u", d, imm, a, b);
		break;
	case VMGPU_FMT_ARG:
		out(o, " r%u, %u", d, imm);
		break;
	case VMGPU_FMT_ALU:
	case VMGPU_FMT_SETP:
		out(o, oi.fmt == VMGPU_FMT_SETP ? " p%u, r%u, " : " r%u, r%u, ",
		    d, a);
		if (!is_imm)
			out(o, "r%u", b);
		else if (fl)
			out_float(o, imm);
		else
			out_int(o, imm);
		break;
	case VMGPU_FMT_UNARY:
		out(o, " r%u, r%u", d, a);
		break;
	case VMGPU_FMT_ALU3:
		out(o, " r%u, r%u, r%u, r%u", d, a, b, imm);
		break;
	case VMGPU_FMT_PRED2:
		out(o, " p%u, p%u, p%u", d, a, b);
		break;
	case VMGPU_FMT_PRED1:
		out(o, " p%u, p%u", d, a);
		break;
	case VMGPU_FMT_LOAD:
		out(o, " r%u, ", d);
		out_mem(o, a, imm);
		break;
	case VMGPU_FMT_STORE:
		out(o, " ");
		out_mem(o, a, imm);
		out(o, ", r%u", b);
		break;
	case VMGPU_FMT_ATOM:
		out(o, " r%u, ", d);
		out_mem(o, a, imm);
		out(o, ", r%u", b);
		break;
	case VMGPU_FMT_CAS:
		out(o, " r%u, [r%u], r%u, r%u", d, a, b, imm);
		break;
	case VMGPU_FMT_LEA:
		out(o, " r%u, r%u, r%u, %u", d, a, b, imm);
		break;
	case VMGPU_FMT_LAUNCH:
		out(o, " [r%u], r%u, r%u", a, b, imm);
		break;
	}
	return 0;
}

int vmgpu_disasm_insn(uint64_t insn, char *buf, size_t len)
{
	struct outbuf o = { .buf = buf, .cap = len };

	if (!buf || !len)
		return -EINVAL;
	buf[0] = '\0';
	return disasm_one(&o, insn, false, 0);
}

int vmgpu_disasm_image(const void *image, size_t bytes, char **text,
		       char *err, size_t errlen)
{
	struct outbuf o = { .grow = true };
	struct vmgpu_exec_header h;
	const uint8_t *code;
	uint8_t *is_target;
	uint32_t pc;

	*text = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (!image || bytes < sizeof(h)) {
		if (err && errlen)
			snprintf(err, errlen, "image truncated (%zu bytes)",
				 bytes);
		return -EINVAL;
	}
	vmgpu_exec_header_read(&h, image);
	if (!vmgpu_exec_header_valid(&h)) {
		if (err && errlen)
			snprintf(err, errlen, "invalid executable header");
		return -EINVAL;
	}
	if (bytes < vmgpu_exec_image_bytes(&h)) {
		if (err && errlen)
			snprintf(err, errlen,
				 "image truncated: %zu bytes, header says %llu",
				 bytes, (unsigned long long)
				 vmgpu_exec_image_bytes(&h));
		return -EINVAL;
	}
	code = (const uint8_t *)image + VMGPU_EXEC_HEADER_BYTES;
	is_target = calloc(h.code_insns, 1);
	o.cap = 4096;
	o.buf = malloc(o.cap);
	if (!is_target || !o.buf) {
		free(is_target);
		free(o.buf);
		return -ENOMEM;
	}
	o.buf[0] = '\0';
	for (pc = 0; pc < h.code_insns; pc++) {
		uint64_t w;

		memcpy(&w, code + (size_t)pc * 8, 8);
		w = le64toh(w);
		if (VMGPU_INSN_OP(w) == VMGPU_OP_BRA && !VMGPU_INSN_IS_IMM(w) &&
		    VMGPU_INSN_IMM(w) < h.code_insns)
			is_target[VMGPU_INSN_IMM(w)] = 1;
	}
	out(&o, ".regs %u\n.shared %u\n.args %u\n", h.num_regs,
	    h.shared_bytes, h.args_bytes);
	if (h.sig_bytes) {
		struct vmgpu_exec_param params[VMGPU_MAX_PARAMS];
		struct vmgpu_exec_sig sig;
		const char *why;
		uint32_t i;

		if (vmgpu_exec_sig_read(&h, image, bytes, &sig, params,
					&why) < 0) {
			if (err && errlen)
				snprintf(err, errlen, "%s", why);
			free(is_target);
			free(o.buf);
			return -EINVAL;
		}
		out(&o, ".kernel %s\n", sig.name);
		for (i = 0; i < sig.num_params; i++)
			if (VMGPU_PARAM_KIND(params[i].type) == VMGPU_PARAM_BYTES)
				out(&o, ".param %s, bytes%u/%u, %u\n",
				    params[i].name,
				    vmgpu_param_size(params[i].type),
				    vmgpu_param_align(params[i].type),
				    params[i].offset);
			else
				out(&o, ".param %s, %s, %u\n", params[i].name,
				    vmgpu_param_type_name(params[i].type),
				    params[i].offset);
	}
	for (pc = 0; pc < h.code_insns; pc++) {
		uint64_t w;

		memcpy(&w, code + (size_t)pc * 8, 8);
		w = le64toh(w);
		if (is_target[pc])
			out(&o, "L%u:\n", pc);
		out(&o, "\t");
		disasm_one(&o, w, true, h.code_insns);
		out(&o, "\n");
	}
	free(is_target);
	if (o.overflow) {
		free(o.buf);
		return -ENOMEM;
	}
	*text = o.buf;
	return 0;
}
