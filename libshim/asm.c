// SPDX-License-Identifier: MIT
/*
 * vmgpu assembler: one instruction per line, two passes (labels, then
 * encoding). The syntax is in Documentation/isa.rst; the encoding and the
 * opcode table in uapi/vmgpu_isa.h.
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmgpu.h"
#include "vmgpu_isa.h"

#define MAX_OPERANDS	5
#define MAX_NAME	64

struct mnemonic {
	const char *name;
	uint8_t code;
};

static const struct mnemonic mnemonics[] = {
#define X_MNEM(name, code, mnem, fmt, flags, bytes) { mnem, code },
	VMGPU_ISA_OPCODES(X_MNEM)
#undef X_MNEM
};

struct symbol {
	char name[MAX_NAME];
	uint32_t value;
	bool is_label;
};

struct assembler {
	char *err;
	size_t errlen;
	bool failed;
	unsigned int line;

	struct symbol *syms;
	size_t nsyms, cap_syms;

	uint64_t *code;
	uint32_t ncode, cap_code;

	uint32_t regs, shared, args;
	bool regs_set, args_set;
	uint32_t regs_used;		/* highest register used + 1 */
	uint32_t args_used;		/* highest argument byte read + 1 */

	/* The signature (.kernel, .param), if any. */
	char kernel[VMGPU_KERNEL_NAME_MAX];
	struct vmgpu_exec_param params[VMGPU_MAX_PARAMS];
	uint32_t nparams;
	uint32_t params_end;		/* first byte after every parameter */
	uint32_t isa;			/* ISA version the code needs */
};

static int asm_error(struct assembler *as, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int asm_error(struct assembler *as, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (as->failed)
		return -EINVAL;
	as->failed = true;
	if (!as->err || !as->errlen)
		return -EINVAL;
	n = as->line ? snprintf(as->err, as->errlen, "line %u: ", as->line) : 0;
	if (n >= 0 && (size_t)n < as->errlen) {
		va_start(ap, fmt);
		vsnprintf(as->err + n, as->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static bool ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

static bool is_ident(const char *s)
{
	if (!ident_start(*s))
		return false;
	while (*++s)
		if (!ident_char(*s))
			return false;
	return true;
}

static struct symbol *sym_find(struct assembler *as, const char *name)
{
	size_t i;

	for (i = 0; i < as->nsyms; i++)
		if (!strcmp(as->syms[i].name, name))
			return &as->syms[i];
	return NULL;
}

static int sym_add(struct assembler *as, const char *name, uint32_t value,
		   bool is_label)
{
	struct symbol *s;

	if (strlen(name) >= MAX_NAME)
		return asm_error(as, "name '%s' too long", name);
	if (sym_find(as, name))
		return asm_error(as, "'%s' defined twice", name);
	if (as->nsyms == as->cap_syms) {
		size_t cap = as->cap_syms ? as->cap_syms * 2 : 32;

		s = realloc(as->syms, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		as->syms = s;
		as->cap_syms = cap;
	}
	s = &as->syms[as->nsyms++];
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->value = value;
	s->is_label = is_label;
	return 0;
}

/* Strip a comment (';', '#' or '//') in place. */
static void strip_comment(char *s)
{
	for (; *s; s++) {
		if (*s == ';' || *s == '#' || (s[0] == '/' && s[1] == '/')) {
			*s = '\0';
			return;
		}
	}
}

/* Parse an integer literal: decimal or 0x hex, optional sign. */
static bool parse_int_literal(const char *s, int64_t *v)
{
	bool neg = false;
	unsigned long long u;
	char *end;

	if (*s == '-' || *s == '+') {
		neg = *s == '-';
		s++;
	}
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	u = strtoull(s, &end, 0);
	if (errno || *end || u > 0xffffffffull)
		return false;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return true;
}

/* A 32-bit immediate: a number or an .equ name; floats for float ops. */
static int parse_imm(struct assembler *as, const char *tok, bool is_float,
		     uint32_t *out)
{
	struct symbol *sym;
	int64_t v;

	if (!*tok)
		return asm_error(as, "missing immediate");
	if (ident_start(*tok) && is_ident(tok)) {
		sym = sym_find(as, tok);
		if (!sym)
			return asm_error(as, "undefined constant '%s'", tok);
		if (sym->is_label)
			return asm_error(as, "label '%s' used as a constant",
					 tok);
		*out = sym->value;
		return 0;
	}
	if (is_float) {
		const char *p = tok + (*tok == '-' || *tok == '+');
		char *end;
		float f;

		/* Hex is the raw bit pattern (NaN payloads, exact values). */
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
			if (!parse_int_literal(tok, &v))
				goto bad;
			*out = (uint32_t)v;
			return 0;
		}
		errno = 0;
		f = strtof(tok, &end);
		if (*end || end == tok)
			goto bad;
		memcpy(out, &f, sizeof(*out));
		return 0;
	}
	if (!parse_int_literal(tok, &v) || v < -2147483648LL)
		goto bad;
	*out = (uint32_t)v;
	return 0;
bad:
	return asm_error(as, "bad immediate '%s'", tok);
}

static int use_reg(struct assembler *as, uint32_t r, bool pair)
{
	uint32_t top = r + (pair ? 1 : 0);

	if (top >= VMGPU_ISA_MAX_REGS)
		return asm_error(as, "register pair r%u:r%u does not exist",
				 r, top);
	if (as->regs_set && top >= as->regs)
		return asm_error(as, "register r%u beyond .regs %u", top,
				 as->regs);
	if (top + 1 > as->regs_used)
		as->regs_used = top + 1;
	return 0;
}

static bool looks_like_reg(const char *tok)
{
	return tok[0] == 'r' && isdigit((unsigned char)tok[1]);
}

static int parse_reg(struct assembler *as, const char *tok, bool pair,
		     uint32_t *out)
{
	unsigned long v;
	char *end;

	if (!looks_like_reg(tok))
		return asm_error(as, "expected a register, got '%s'", tok);
	errno = 0;
	v = strtoul(tok + 1, &end, 10);
	if (*end || errno || v >= VMGPU_ISA_MAX_REGS)
		return asm_error(as, "bad register '%s'", tok);
	*out = (uint32_t)v;
	return use_reg(as, *out, pair);
}

static int parse_pred(struct assembler *as, const char *tok, uint32_t *out)
{
	if (tok[0] != 'p' || tok[1] < '0' || tok[1] > '7' || tok[2])
		return asm_error(as, "bad predicate '%s' (p0..p7)", tok);
	*out = (uint32_t)(tok[1] - '0');
	return 0;
}

/* Operand B: a register, or an immediate (sets *is_imm). */
static int parse_b(struct assembler *as, const char *tok, bool pair,
		   bool imm_ok, bool is_float, uint32_t *reg, uint32_t *imm,
		   bool *is_imm)
{
	*is_imm = !looks_like_reg(tok);
	if (!*is_imm)
		return parse_reg(as, tok, pair, reg);
	if (!imm_ok)
		return asm_error(as, "expected a register, got '%s'", tok);
	return parse_imm(as, tok, is_float, imm);
}

/* "[rN]", "[rN + imm]" or "[rN - imm]". */
static int parse_mem(struct assembler *as, char *tok, bool pair,
		     uint32_t *reg, uint32_t *off)
{
	size_t n = strlen(tok);
	char *inner, *op;
	uint32_t v;
	int r;

	if (n < 2 || tok[0] != '[' || tok[n - 1] != ']')
		return asm_error(as, "expected a memory operand [rN + offset], got '%s'",
				 tok);
	tok[n - 1] = '\0';
	inner = tok + 1;
	op = strpbrk(inner, "+-");
	if (!op) {
		*off = 0;
		return parse_reg(as, trim(inner), pair, reg);
	}
	{
		char sign = *op;

		*op = '\0';
		r = parse_reg(as, trim(inner), pair, reg);
		if (r)
			return r;
		r = parse_imm(as, trim(op + 1), false, &v);
		if (r)
			return r;
		*off = sign == '-' ? 0u - v : v;
	}
	return 0;
}

static int parse_sreg(struct assembler *as, const char *tok, uint32_t *out)
{
	uint32_t i;

	for (i = 0; i < VMGPU_SREG_COUNT; i++) {
		if (!strcmp(tok, vmgpu_sreg_name(i))) {
			*out = i;
			if (i >= vmgpu_isa_sregs(1))
				as->isa = 2;
			return 0;
		}
	}
	return asm_error(as, "unknown special register '%s'", tok);
}

static int parse_target(struct assembler *as, const char *tok, uint32_t *out)
{
	struct symbol *sym;
	int64_t v;

	if (parse_int_literal(tok, &v) && v >= 0) {
		*out = (uint32_t)v;
		return 0;
	}
	if (!is_ident(tok))
		return asm_error(as, "bad branch target '%s'", tok);
	sym = sym_find(as, tok);
	if (!sym || !sym->is_label)
		return asm_error(as, "undefined label '%s'", tok);
	*out = sym->value;
	return 0;
}

static int split_operands(struct assembler *as, char *s, char **ops,
			  int *nops)
{
	int n = 0;

	s = trim(s);
	if (!*s) {
		*nops = 0;
		return 0;
	}
	for (;;) {
		char *comma = strchr(s, ',');

		if (n == MAX_OPERANDS)
			return asm_error(as, "too many operands");
		if (comma)
			*comma = '\0';
		ops[n] = trim(s);
		if (!*ops[n])
			return asm_error(as, "empty operand");
		n++;
		if (!comma)
			break;
		s = comma + 1;
	}
	*nops = n;
	return 0;
}

static const struct mnemonic *find_mnemonic(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(mnemonics) / sizeof(mnemonics[0]); i++)
		if (!strcmp(mnemonics[i].name, name))
			return &mnemonics[i];
	return NULL;
}

static const int format_operands[] = {
	[VMGPU_FMT_NONE] = 0, [VMGPU_FMT_BRA] = -1, [VMGPU_FMT_MOV] = 2,
	[VMGPU_FMT_SREG] = 2, [VMGPU_FMT_SEL] = 4, [VMGPU_FMT_ARG] = 2,
	[VMGPU_FMT_ALU] = 3, [VMGPU_FMT_UNARY] = 2, [VMGPU_FMT_ALU3] = 4,
	[VMGPU_FMT_SETP] = 3, [VMGPU_FMT_PRED2] = 3, [VMGPU_FMT_PRED1] = 2,
	[VMGPU_FMT_LOAD] = 2, [VMGPU_FMT_STORE] = 2, [VMGPU_FMT_ATOM] = 3,
	[VMGPU_FMT_CAS] = 4, [VMGPU_FMT_LEA] = 4, [VMGPU_FMT_LAUNCH] = 3,
};

/* Encode one instruction line (mnemonic + operands) into *out. */
static int encode(struct assembler *as, const char *mnem, char *rest,
		  uint64_t *out)
{
	const struct mnemonic *m = find_mnemonic(mnem);
	uint32_t d = 0, a = 0, b = 0, imm = 0, op;
	struct vmgpu_isa_opinfo oi = { 0 };
	bool is_imm = false, dp, ap, bp, fl;
	char *ops[MAX_OPERANDS];
	int nops = 0, r = 0;

	if (!m)
		return asm_error(as, "unknown mnemonic '%s'", mnem);
	op = m->code;
	vmgpu_isa_opinfo(op, &oi);
	dp = oi.flags & VMGPU_OPF_D_PAIR;
	ap = oi.flags & VMGPU_OPF_A_PAIR;
	bp = oi.flags & VMGPU_OPF_B_PAIR;
	fl = oi.flags & VMGPU_OPF_FLOAT;
	if (oi.flags & VMGPU_OPF_ISA2)
		as->isa = 2;
	r = split_operands(as, rest, ops, &nops);
	if (r)
		return r;
	if (format_operands[oi.fmt] >= 0 && nops != format_operands[oi.fmt])
		return asm_error(as, "'%s' takes %d operand%s, got %d", mnem,
				 format_operands[oi.fmt],
				 format_operands[oi.fmt] == 1 ? "" : "s",
				 nops);

	switch (oi.fmt) {
	case VMGPU_FMT_NONE:
		break;
	case VMGPU_FMT_BRA:
		if (nops == 1) {
			a = VMGPU_BRA_ALWAYS;
			r = parse_target(as, ops[0], &imm);
		} else if (nops == 2) {
			char *p = ops[0];

			if (*p == '!') {
				a |= VMGPU_BRA_NEGATE;
				p = trim(p + 1);
			}
			r = parse_pred(as, p, &b);
			a |= b;
			b = 0;
			if (!r)
				r = parse_target(as, ops[1], &imm);
		} else {
			r = asm_error(as, "'bra' takes [[!]pN,] target");
		}
		break;
	case VMGPU_FMT_MOV:
		r = parse_reg(as, ops[0], false, &d);
		if (!r)
			r = parse_b(as, ops[1], false, true, false, &b, &imm,
				    &is_imm);
		break;
	case VMGPU_FMT_SREG:
		r = parse_reg(as, ops[0], false, &d);
		if (!r)
			r = parse_sreg(as, ops[1], &a);
		break;
	case VMGPU_FMT_SEL:
		r = parse_reg(as, ops[0], false, &d);
		if (!r)
			r = parse_pred(as, ops[1], &imm);
		if (!r)
			r = parse_reg(as, ops[2], false, &a);
		if (!r)
			r = parse_reg(as, ops[3], false, &b);
		break;
	case VMGPU_FMT_ARG:
		r = parse_reg(as, ops[0], dp, &d);
		if (!r)
			r = parse_imm(as, ops[1], false, &imm);
		if (r)
			break;
		if (imm % 4)
			return asm_error(as, "argument offset %u not a multiple of 4",
					 imm);
		if ((uint64_t)imm + oi.bytes > VMGPU_MAX_ARGS_BYTES)
			return asm_error(as, "argument offset %u out of range",
					 imm);
		if (as->args_set && imm + oi.bytes > as->args)
			return asm_error(as, "argument offset %u beyond .args %u",
					 imm, as->args);
		if (imm + oi.bytes > as->args_used)
			as->args_used = imm + oi.bytes;
		break;
	case VMGPU_FMT_ALU:
		r = parse_reg(as, ops[0], dp, &d);
		if (!r)
			r = parse_reg(as, ops[1], ap, &a);
		if (!r)
			r = parse_b(as, ops[2], bp, oi.flags & VMGPU_OPF_IMM,
				    fl, &b, &imm, &is_imm);
		break;
	case VMGPU_FMT_UNARY:
		r = parse_reg(as, ops[0], false, &d);
		if (!r)
			r = parse_reg(as, ops[1], false, &a);
		break;
	case VMGPU_FMT_ALU3:
		r = parse_reg(as, ops[0], false, &d);
		if (!r)
			r = parse_reg(as, ops[1], false, &a);
		if (!r)
			r = parse_reg(as, ops[2], false, &b);
		if (!r)
			r = parse_reg(as, ops[3], false, &imm);
		break;
	case VMGPU_FMT_SETP:
		r = parse_pred(as, ops[0], &d);
		if (!r)
			r = parse_reg(as, ops[1], false, &a);
		if (!r)
			r = parse_b(as, ops[2], false, true, fl, &b, &imm,
				    &is_imm);
		break;
	case VMGPU_FMT_PRED2:
		r = parse_pred(as, ops[0], &d);
		if (!r)
			r = parse_pred(as, ops[1], &a);
		if (!r)
			r = parse_pred(as, ops[2], &b);
		break;
	case VMGPU_FMT_PRED1:
		r = parse_pred(as, ops[0], &d);
		if (!r)
			r = parse_pred(as, ops[1], &a);
		break;
	case VMGPU_FMT_LOAD:
		r = parse_reg(as, ops[0], dp, &d);
		if (!r)
			r = parse_mem(as, ops[1], ap, &a, &imm);
		break;
	case VMGPU_FMT_STORE:
		r = parse_mem(as, ops[0], ap, &a, &imm);
		if (!r)
			r = parse_reg(as, ops[1], bp, &b);
		break;
	case VMGPU_FMT_ATOM:
		r = parse_reg(as, ops[0], false, &d);
		if (!r)
			r = parse_mem(as, ops[1], ap, &a, &imm);
		if (!r)
			r = parse_reg(as, ops[2], false, &b);
		break;
	case VMGPU_FMT_CAS:
		r = parse_reg(as, ops[0], false, &d);
		if (!r)
			r = parse_mem(as, ops[1], ap, &a, &imm);
		if (!r && imm)
			return asm_error(as, "'%s' takes no address offset",
					 mnem);
		if (!r)
			r = parse_reg(as, ops[2], false, &b);
		if (!r)
			r = parse_reg(as, ops[3], false, &imm);
		break;
	case VMGPU_FMT_LAUNCH:
		r = parse_mem(as, ops[0], ap, &a, &imm);
		if (!r && imm)
			return asm_error(as, "'%s' takes no address offset",
					 mnem);
		if (!r)
			r = parse_reg(as, ops[1], bp, &b);
		if (!r)
			r = parse_reg(as, ops[2], false, &imm);
		break;
	case VMGPU_FMT_LEA:
		r = parse_reg(as, ops[0], dp, &d);
		if (!r)
			r = parse_reg(as, ops[1], ap, &a);
		if (!r)
			r = parse_reg(as, ops[2], false, &b);
		if (!r)
			r = parse_imm(as, ops[3], false, &imm);
		if (!r && imm > 31)
			return asm_error(as, "shift %u out of range 0..31",
					 imm);
		break;
	}
	if (r)
		return r;
	*out = VMGPU_INSN(op | (is_imm ? VMGPU_OP_IMM : 0), d, a, b, imm);
	return 0;
}

static int directive_value(struct assembler *as, const char *name,
			   const char *arg, uint32_t max, uint32_t *out)
{
	int64_t v;

	if (!parse_int_literal(arg, &v) || v < 0 || v > max)
		return asm_error(as, "bad value '%s' for %s (0..%u)", arg, name,
				 max);
	*out = (uint32_t)v;
	return 0;
}

/*
 * ".param NAME, TYPE[, OFFSET]": a typed slot of the argument block, at
 * OFFSET or else at the next offset aligned to its size (a bytesSIZE/ALIGN
 * one: to ALIGN). NAME also
 * becomes a constant with the offset, for ldarg.
 */
static int param_directive(struct assembler *as, char *arg)
{
	char *fields[3] = { arg, NULL, NULL };
	struct vmgpu_exec_param *p;
	uint32_t type, size, align, offset = 0;
	int n = 1, r;

	if (!as->kernel[0])
		return asm_error(as, ".param needs a .kernel NAME first");
	if (as->nparams == VMGPU_MAX_PARAMS)
		return asm_error(as, "more than %u parameters", VMGPU_MAX_PARAMS);
	while (n < 3 && (fields[n] = strchr(fields[n - 1], ','))) {
		*fields[n]++ = '\0';
		n++;
	}
	if (n < 2 || strchr(fields[n - 1], ','))
		return asm_error(as, ".param takes NAME, TYPE[, OFFSET]");
	for (r = 0; r < n; r++)
		fields[r] = trim(fields[r]);
	if (!is_ident(fields[0]) || strlen(fields[0]) >= VMGPU_PARAM_NAME_MAX)
		return asm_error(as, "bad parameter name '%s' (at most %u characters)",
				 fields[0], VMGPU_PARAM_NAME_MAX - 1);
	for (type = 1; type < VMGPU_PARAM_NUM_TYPES; type++)
		if (type != VMGPU_PARAM_BYTES &&
		    !strcmp(fields[1], vmgpu_param_type_name(type)))
			break;
	if (type == VMGPU_PARAM_NUM_TYPES) {
		/* bytesSIZE/ALIGN: a by-value aggregate */
		unsigned long sz = 0, al = 0;
		char *e = NULL;

		if (!strncmp(fields[1], "bytes", 5) &&
		    fields[1][5] >= '1' && fields[1][5] <= '9') {
			sz = strtoul(fields[1] + 5, &e, 10);
			if (*e == '/' && e[1] >= '1' && e[1] <= '9')
				al = strtoul(e + 1, &e, 10);
		}
		if (!e || *e || sz > VMGPU_MAX_ARGS_BYTES || !al || al > 128 ||
		    (al & (al - 1)) || sz % al)
			return asm_error(as, "unknown parameter type '%s' (i32, i64, f32, buf_ro, buf_wo, buf_rw, local or bytesSIZE/ALIGN)",
					 fields[1]);
		type = VMGPU_PARAM_BYTES_TYPE(sz, __builtin_ctzl(al));
	}
	size = vmgpu_param_size(type);
	align = vmgpu_param_align(type);
	if (n == 3) {
		r = directive_value(as, ".param offset", fields[2],
				    VMGPU_MAX_ARGS_BYTES - size, &offset);
		if (r)
			return r;
		if (offset % align)
			return asm_error(as, "parameter '%s' at %u is not aligned to its %u bytes",
					 fields[0], offset, align);
	} else {
		offset = (as->params_end + align - 1) & ~(align - 1);
		if (offset + size > VMGPU_MAX_ARGS_BYTES)
			return asm_error(as, "parameters over %u bytes",
					 VMGPU_MAX_ARGS_BYTES);
	}
	p = &as->params[as->nparams++];
	memset(p, 0, sizeof(*p));
	p->type = type;
	p->offset = offset;
	strcpy(p->name, fields[0]);
	if (offset + size > as->params_end)
		as->params_end = offset + size;
	return sym_add(as, fields[0], offset, false);
}

/*
 * Handle a directive. Pass 1 defines .equ names and the header values;
 * pass 2 emits .insn words.
 */
static int directive(struct assembler *as, char *line, int pass)
{
	char *arg = line, *name;

	while (*arg && !isspace((unsigned char)*arg))
		arg++;
	if (*arg)
		*arg++ = '\0';
	arg = trim(arg);
	name = line;

	if (!strcmp(name, ".insn")) {
		unsigned long long v;
		char *end;

		errno = 0;
		v = strtoull(arg, &end, 0);
		if (!*arg || *end || errno || *arg == '-')
			return asm_error(as, "bad value '%s' for .insn", arg);
		if (pass == 2)
			as->code[as->ncode++] = v;
		return 1;	/* one instruction */
	}
	if (pass == 2)
		return 0;
	if (!strcmp(name, ".regs")) {
		int r = directive_value(as, name, arg, VMGPU_ISA_MAX_REGS,
					&as->regs);

		if (!r && !as->regs)
			return asm_error(as, ".regs must be at least 1");
		as->regs_set = true;
		return r;
	}
	if (!strcmp(name, ".shared"))
		return directive_value(as, name, arg, VMGPU_MAX_SHARED_BYTES,
				       &as->shared);
	if (!strcmp(name, ".args")) {
		int r = directive_value(as, name, arg, VMGPU_MAX_ARGS_BYTES,
					&as->args);

		if (!r && as->args % 4)
			return asm_error(as, ".args must be a multiple of 4");
		as->args_set = true;
		return r;
	}
	if (!strcmp(name, ".kernel")) {
		if (as->kernel[0])
			return asm_error(as, ".kernel given twice");
		if (!is_ident(arg) || strlen(arg) >= sizeof(as->kernel))
			return asm_error(as, "bad kernel name '%s' (at most %zu characters)",
					 arg, sizeof(as->kernel) - 1);
		strcpy(as->kernel, arg);
		return 0;
	}
	if (!strcmp(name, ".param"))
		return param_directive(as, arg);
	if (!strcmp(name, ".equ")) {
		char *comma = strchr(arg, ',');
		uint32_t v;
		int r;

		if (!comma)
			return asm_error(as, ".equ takes NAME, VALUE");
		*comma = '\0';
		name = trim(arg);
		if (!is_ident(name))
			return asm_error(as, "bad name '%s'", name);
		r = parse_imm(as, trim(comma + 1), false, &v);
		return r ? r : sym_add(as, name, v, false);
	}
	return asm_error(as, "unknown directive '%s'", name);
}

/*
 * Process one source line. Pass 1 collects labels, constants and header
 * directives and counts instructions; pass 2 encodes.
 */
static int do_line(struct assembler *as, char *line, int pass)
{
	char *s, *colon, *rest;
	int r;

	strip_comment(line);
	s = trim(line);
	/* Labels: "name:" possibly followed by more on the same line. */
	while ((colon = strchr(s, ':')) != NULL) {
		*colon = '\0';
		if (!is_ident(trim(s))) {
			*colon = ':';
			break;
		}
		if (pass == 1) {
			r = sym_add(as, trim(s), as->ncode, true);
			if (r)
				return r;
		}
		s = trim(colon + 1);
	}
	if (!*s)
		return 0;
	if (*s == '.') {
		r = directive(as, s, pass);
		if (r < 0)
			return r;
		if (r == 1 && pass == 1)
			as->ncode++;
		return 0;
	}
	rest = s;
	while (*rest && !isspace((unsigned char)*rest))
		rest++;
	if (*rest)
		*rest++ = '\0';
	if (pass == 1) {
		if (!find_mnemonic(s))
			return asm_error(as, "unknown mnemonic '%s'", s);
		as->ncode++;
		return 0;
	}
	r = encode(as, s, rest, &as->code[as->ncode]);
	if (r)
		return r;
	as->ncode++;
	return 0;
}

static int run_pass(struct assembler *as, const char *src, int pass)
{
	const char *p = src;
	int r = 0;

	as->line = 0;
	as->ncode = 0;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = malloc(len + 1);

		if (!line)
			return -ENOMEM;
		memcpy(line, p, len);
		line[len] = '\0';
		as->line++;
		r = do_line(as, line, pass);
		free(line);
		if (r)
			return r;
		if (as->ncode > VMGPU_ISA_MAX_CODE)
			return asm_error(as, "more than %u instructions",
					 VMGPU_ISA_MAX_CODE);
		p += len + (nl ? 1 : 0);
	}
	return 0;
}

/*
 * Write the signature after the code of @file and check it with the same
 * reader the library uses, so a parameter outside .args is an assembly
 * error, not a load error.
 */
static int put_signature(struct assembler *as, struct vmgpu_exec_header *h,
			 uint8_t *file, size_t bytes)
{
	struct vmgpu_exec_param params[VMGPU_MAX_PARAMS];
	uint8_t *p = file + vmgpu_exec_image_bytes(h);
	struct vmgpu_exec_sig sig;
	struct vmgpu_exec_header host;
	const char *why;
	uint32_t i;

	memset(&sig, 0, sizeof(sig));
	sig.magic = htole32(VMGPU_SIG_MAGIC);
	sig.num_params = htole32(as->nparams);
	strcpy(sig.name, as->kernel);
	memcpy(p, &sig, sizeof(sig));
	for (i = 0; i < as->nparams; i++) {
		struct vmgpu_exec_param a = as->params[i];

		a.type = htole32(a.type);
		a.offset = htole32(a.offset);
		memcpy(p + sizeof(sig) + i * sizeof(a), &a, sizeof(a));
	}
	vmgpu_exec_header_read(&host, file);
	as->line = 0;
	if (vmgpu_exec_sig_read(&host, file, bytes, &sig, params, &why) < 0)
		return asm_error(as, "signature of '%s': %s (.args %u)",
				 as->kernel, why, host.args_bytes);
	return 0;
}

int vmgpu_asm_assemble(const char *src, void **image, size_t *bytes,
		       char *err, size_t errlen)
{
	struct assembler as = {
		.err = err, .errlen = errlen, .isa = VMGPU_ISA_VERSION_MIN,
	};
	struct vmgpu_exec_header h;
	uint8_t *img = NULL;
	uint32_t i, sig_bytes;
	size_t size;
	int r;

	*image = NULL;
	*bytes = 0;
	if (err && errlen)
		err[0] = '\0';
	if (!src) {
		r = asm_error(&as, "no source");
		goto out;
	}
	r = run_pass(&as, src, 1);
	if (r)
		goto out;
	if (!as.ncode) {
		as.line = 0;
		r = asm_error(&as, "no instructions");
		goto out;
	}
	as.code = calloc(as.ncode, sizeof(*as.code));
	if (!as.code) {
		r = -ENOMEM;
		goto out;
	}
	as.regs_used = 1;
	r = run_pass(&as, src, 2);
	if (r)
		goto out;

	memset(&h, 0, sizeof(h));
	h.magic = htole32(VMGPU_EXEC_MAGIC);
	/* The oldest version that has every instruction used. */
	h.isa_version = htole32(as.isa);
	h.num_regs = htole32(as.regs_set ? as.regs : as.regs_used);
	h.shared_bytes = htole32(as.shared);
	if (!as.args_set) {
		as.args = as.args_used > as.params_end ? as.args_used :
							 as.params_end;
		as.args = (as.args + 3) & ~3u;
	}
	if (as.args > VMGPU_MAX_ARGS_BYTES) {
		as.line = 0;
		r = asm_error(&as, "argument block of %u bytes over %u", as.args,
			      VMGPU_MAX_ARGS_BYTES);
		goto out;
	}
	h.args_bytes = htole32(as.args);
	h.code_insns = htole32(as.ncode);
	sig_bytes = as.kernel[0] ? VMGPU_EXEC_SIG_BYTES(as.nparams) : 0;
	h.sig_bytes = htole32(sig_bytes);
	size = VMGPU_EXEC_HEADER_BYTES + (size_t)as.ncode * VMGPU_INSN_BYTES;
	img = calloc(1, size + sig_bytes);
	if (!img) {
		r = -ENOMEM;
		goto out;
	}
	memcpy(img, &h, sizeof(h));
	for (i = 0; i < as.ncode; i++) {
		uint64_t w = htole64(as.code[i]);

		memcpy(img + VMGPU_EXEC_HEADER_BYTES + i * VMGPU_INSN_BYTES,
		       &w, sizeof(w));
	}
	if (sig_bytes) {
		r = put_signature(&as, &h, img, size + sig_bytes);
		if (r) {
			free(img);
			goto out;
		}
	}
	*image = img;
	*bytes = size + sig_bytes;
out:
	if (r == -ENOMEM && err && errlen && !as.failed)
		snprintf(err, errlen, "out of memory");
	free(as.code);
	free(as.syms);
	return r;
}
