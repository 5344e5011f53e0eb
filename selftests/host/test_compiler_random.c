// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OpenCL C compiler on random programs, each compared with an
 * evaluator in C: integer expressions of every width and signedness,
 * structured programs (divergent if/else, loops with break), float
 * expressions with every comparison predicate, NaN, -0 and infinities.
 * VMGPU_TEST_SEED picks other programs.
 */
#include <math.h>

#include "testcc.h"
#include "vmgpu/compiler.h"

/* ------------------------------------------------------------------ */
/* Random integer expressions, compared with an evaluator in C          */
/* ------------------------------------------------------------------ */

enum { T_INT, T_UINT, T_LONG, T_ULONG, T_SHORT, T_UCHAR, T_COUNT };
static const char *const ty_name[T_COUNT] = {
	"int", "uint", "long", "ulong", "short", "uchar" };
static const char *const uty_name[T_COUNT] = {
	"uint", "uint", "ulong", "ulong", "ushort", "uchar" };
static const int ty_bits[T_COUNT] = { 32, 32, 64, 64, 16, 8 };
static const int ty_signed[T_COUNT] = { 1, 0, 1, 0, 1, 0 };

enum { E_VAR, E_CONST, E_ADD, E_SUB, E_MUL, E_AND, E_OR, E_XOR, E_NOT,
       E_NEG, E_SHL, E_SHR, E_DIV, E_REM, E_LT, E_EQ, E_SEL, E_MIN,
       E_COUNT };

struct enode {
	int op, a, b, c;
	uint64_t k;
};

#define EXPR_NODES	128	/* a full ternary tree of depth 4: 121 */
#define EXPRS_PER_TYPE	20
#define EXPR_INPUTS	256

struct expr {
	int ty, root, n;
	struct enode nodes[EXPR_NODES];
};

/* a value of type @t, sign- or zero-extended to 64 bits */
static uint64_t norm(int t, uint64_t v)
{
	int b = ty_bits[t];

	if (b == 64)
		return v;
	v &= (1ull << b) - 1;
	if (ty_signed[t] && (v >> (b - 1)) & 1)
		v |= ~0ull << b;
	return v;
}

static int gen(struct expr *e, int depth)
{
	int i = e->n++, op;
	struct enode *n = &e->nodes[i];

	op = depth <= 0 ? (int)(rng() % 2) :
	     2 + (int)(rng() % (E_COUNT - 2));
	n->op = op;
	if (op == E_VAR) {
		n->k = rng() % 4;
	} else if (op == E_CONST) {
		static const uint64_t edge[] = { 0, 1, 2, 3, 7, 31, 32, 63,
			0x7fffffffull, 0x80000000ull, ~0ull, 0xffffull,
			0x8000000000000000ull };
		n->k = rng() % 3 ? edge[rng() % 13] :
		       (uint64_t)rng() << 40 ^ (uint64_t)rng() << 16 ^ rng();
	} else {
		n->a = gen(e, depth - 1);
		if (op != E_NOT && op != E_NEG)
			n->b = gen(e, depth - 1);
		if (op == E_SEL)
			n->c = gen(e, depth - 1);
	}
	return i;
}

static void print_expr(const struct expr *e, int i, char *buf, size_t len)
{
	const struct enode *n = &e->nodes[i];
	const char *T = ty_name[e->ty], *UT = uty_name[e->ty];
	int w = ty_bits[e->ty] == 64 ? 64 : 32;
	const char *WT = w == 64 ? "ulong" : "uint";
	char A[16384], B[16384], C[16384];
	static const char *const bin[] = { [E_ADD] = "+", [E_SUB] = "-",
					   [E_MUL] = "*" };
	static const char *const bit[] = { [E_AND] = "&", [E_OR] = "|",
					   [E_XOR] = "^" };

	A[0] = B[0] = C[0] = 0;
	if (n->op >= E_ADD)
		print_expr(e, n->a, A, sizeof(A));
	if (n->op >= E_ADD && n->op != E_NOT && n->op != E_NEG)
		print_expr(e, n->b, B, sizeof(B));
	if (n->op == E_SEL)
		print_expr(e, n->c, C, sizeof(C));
	switch (n->op) {
	case E_VAR: snprintf(buf, len, "x%d", (int)n->k); break;
	case E_CONST: snprintf(buf, len, "((%s)0x%llxul)", T, (unsigned long long)n->k); break;
	case E_ADD: case E_SUB: case E_MUL:
		snprintf(buf, len, "((%s)((%s)%s %s (%s)%s))", T, UT, A, bin[n->op], UT, B);
		break;
	case E_AND: case E_OR: case E_XOR:
		snprintf(buf, len, "((%s)(%s %s %s))", T, A, bit[n->op], B);
		break;
	case E_NOT: snprintf(buf, len, "((%s)~%s)", T, A); break;
	case E_NEG: snprintf(buf, len, "((%s)-(%s)%s)", T, UT, A); break;
	case E_SHL:
		snprintf(buf, len, "((%s)((%s)(%s)%s << (%s & %d)))", T, WT, UT, A, B, w - 1);
		break;
	case E_SHR: snprintf(buf, len, "((%s)(%s >> (%s & %d)))", T, A, B, w - 1); break;
	case E_DIV: case E_REM:
		snprintf(buf, len, "%s_%s(%s, %s)", n->op == E_DIV ? "dv" : "rm", T, A, B);
		break;
	case E_LT: snprintf(buf, len, "((%s)(%s < %s))", T, A, B); break;
	case E_EQ: snprintf(buf, len, "((%s)(%s == %s))", T, A, B); break;
	case E_SEL: snprintf(buf, len, "((%s & 1) ? %s : %s)", A, B, C); break;
	case E_MIN: snprintf(buf, len, "mn_%s(%s, %s)", T, A, B); break;
	}
}

static uint64_t eval(const struct expr *e, int i, const uint64_t *x)
{
	const struct enode *n = &e->nodes[i];
	int t = e->ty, sg = ty_signed[t], w = ty_bits[t] == 64 ? 64 : 32;
	uint64_t a = 0, b = 0, c = 0, um = ty_bits[t] == 64 ? ~0ull :
					       (1ull << ty_bits[t]) - 1;

	if (n->op >= E_ADD)
		a = eval(e, n->a, x);
	if (n->op >= E_ADD && n->op != E_NOT && n->op != E_NEG)
		b = eval(e, n->b, x);
	if (n->op == E_SEL)
		c = eval(e, n->c, x);
	switch (n->op) {
	case E_VAR: return x[n->k];
	case E_CONST: return norm(t, n->k);
	case E_ADD: return norm(t, a + b);
	case E_SUB: return norm(t, a - b);
	case E_MUL: return norm(t, a * b);
	case E_AND: return norm(t, a & b);
	case E_OR: return norm(t, a | b);
	case E_XOR: return norm(t, a ^ b);
	case E_NOT: return norm(t, ~a);
	case E_NEG: return norm(t, 0 - a);
	case E_SHL: {
		int s = (int)(b & (uint64_t)(w - 1));
		uint64_t v = a & um;

		return norm(t, w == 64 ? v << s : (uint64_t)(uint32_t)((uint32_t)v << s));
	}
	case E_SHR: {
		int s = (int)(b & (uint64_t)(w - 1));

		if (w == 64)
			return norm(t, sg ? (uint64_t)((int64_t)a >> s) : a >> s);
		return norm(t, sg ? (uint64_t)(int64_t)((int32_t)a >> s) :
			       (uint64_t)((uint32_t)a >> s));
	}
	case E_DIV: case E_REM:
		if (b == 0 || (sg && (int64_t)b == -1))
			return a;
		if (sg)
			return norm(t, (uint64_t)(n->op == E_DIV ? (int64_t)a / (int64_t)b :
						  (int64_t)a % (int64_t)b));
		return norm(t, n->op == E_DIV ? a / b : a % b);
	case E_LT: return sg ? (int64_t)a < (int64_t)b : a < b;
	case E_EQ: return a == b;
	case E_SEL: return (a & 1) ? b : c;
	case E_MIN: return (sg ? (int64_t)a < (int64_t)b : a < b) ? a : b;
	}
	return 0;
}

TEST_F(cc, random_integer_expressions)
{
	static struct expr ex[T_COUNT * EXPRS_PER_TYPE];
	size_t cap = 1 << 20, len = 0;
	char *src = malloc(cap), *body = malloc(1 << 16);
	struct vmgpu_program *prog, *prog16;
	ALLOC(uint64_t, in, 4 * EXPR_INPUTS);
	ALLOC(uint64_t, out, EXPR_INPUTS);
	int k, t, failures = 0, pass, spilled = 0;

	ASSERT_NE(NULL, src);
	/* a fixed seed; VMGPU_TEST_SEED=N explores others */
	if (getenv("VMGPU_TEST_SEED"))
		rng_state = (uint32_t)strtoul(getenv("VMGPU_TEST_SEED"), NULL, 0);
	/* helpers (inlined): division defined everywhere, a minimum */
	for (t = 0; t < T_COUNT; t++)
		len += (size_t)snprintf(src + len, cap - len,
			"%s dv_%s(%s a, %s b) { return b == 0 || (%d && b == (%s)-1) ? a : (%s)(a / b); }\n"
			"%s rm_%s(%s a, %s b) { return b == 0 || (%d && b == (%s)-1) ? a : (%s)(a %% b); }\n"
			"%s mn_%s(%s a, %s b) { return a < b ? a : b; }\n",
			ty_name[t], ty_name[t], ty_name[t], ty_name[t], ty_signed[t], ty_name[t], ty_name[t],
			ty_name[t], ty_name[t], ty_name[t], ty_name[t], ty_signed[t], ty_name[t], ty_name[t],
			ty_name[t], ty_name[t], ty_name[t], ty_name[t]);
	for (k = 0; k < T_COUNT * EXPRS_PER_TYPE; k++) {
		struct expr *e = &ex[k];

		e->ty = k / EXPRS_PER_TYPE;
		e->n = 0;
		e->root = gen(e, 2 + (int)(rng() % 3));
		print_expr(e, e->root, body, 1 << 16);
		len += (size_t)snprintf(src + len, cap - len,
			"kernel void e%d(global const %s *in, global %s *out)\n"
			"{\n\tsize_t i = get_global_id(0);\n"
			"\t%s x0 = in[4 * i], x1 = in[4 * i + 1], x2 = in[4 * i + 2],"
			" x3 = in[4 * i + 3];\n\tout[i] = %s;\n}\n",
			k, ty_name[e->ty], ty_name[e->ty], ty_name[e->ty], body);
	}
	prog = build(_metadata, src, NULL);
	ASSERT_NE(NULL, prog);
	EXPECT_EQ(T_COUNT * EXPRS_PER_TYPE, vmgpu_program_kernel_count(prog));
	/* the same with 16 registers: the large ones spill */
	prog16 = build(_metadata, src, "-vmgpu-max-regs=16");
	ASSERT_NE(NULL, prog16);
	for (k = 0; k < T_COUNT * EXPRS_PER_TYPE; k++) {
		struct expr *e = &ex[k];
		int bytes = ty_bits[e->ty] / 8, i, j;
		uint8_t *inb = (uint8_t *)in, *outb = (uint8_t *)out;
		char name[32];
		struct ck c;

		t = e->ty;
		for (i = 0; i < 4 * EXPR_INPUTS; i++) {
			static const uint64_t edge[] = { 0, 1, ~0ull, 2, 0x80000000ull,
				0x7fffffffull, 0x8000000000000000ull, 0x7fff, 0x8000, 0xff };
			uint64_t v = rng() % 4 ? (uint64_t)rng() << 40 ^
				     (uint64_t)rng() << 20 ^ rng() : edge[rng() % 10];

			if (rng() % 3 == 0)
				v = norm(t, rng() % 64) - (rng() % 2 ? 32 : 0);
			memcpy(inb + (size_t)i * bytes, &v, bytes);
		}
		snprintf(name, sizeof(name), "e%d", k);
		for (pass = 0; pass < 2; pass++) {
		load(_metadata, pass ? prog16 : prog, name, &c);
		if (pass && c.priv)
			spilled++;
		set_u64(&c, 0, in_va);
		set_u64(&c, 1, out_va);
		ASSERT_EQ(0, run1d(self->tm, &c, EXPR_INPUTS, 64));
		for (i = 0; i < EXPR_INPUTS; i++) {
			uint64_t x[4], got = 0, want;

			for (j = 0; j < 4; j++) {
				uint64_t v = 0;

				memcpy(&v, inb + (size_t)(4 * i + j) * bytes, bytes);
				x[j] = norm(t, v);
			}
			want = eval(e, e->root, x);
			memcpy(&got, outb + (size_t)i * bytes, bytes);
			if (norm(t, got) != norm(t, want)) {
				print_expr(e, e->root, body, 1 << 16);
				fprintf(stderr, "# %s%s %s: x=%llx %llx %llx %llx got %llx want %llx\n#   %s\n",
					name, pass ? " (16 registers)" : "", ty_name[t],
					(unsigned long long)x[0],
					(unsigned long long)x[1], (unsigned long long)x[2],
					(unsigned long long)x[3], (unsigned long long)got,
					(unsigned long long)want, body);
				failures++;
				break;
			}
		}
		vg_kernel_free(c.k);
		}
	}
	EXPECT_EQ(0, failures);
	EXPECT_GT(spilled, 0);
	vmgpu_program_destroy(prog);
	vmgpu_program_destroy(prog16);
	free(src);
	free(body);
}

/* ------------------------------------------------------------------ */
/* Random structured programs: divergent if/else, loops with break      */
/* ------------------------------------------------------------------ */

#define PV	6		/* variables v0..v5 */
#define PNODES	512

enum { S_ASSIGN, S_IF, S_LOOP };
enum { X_VAR, X_CONST, X_ADD, X_SUB, X_MUL, X_XOR, X_AND, X_SHR, X_LT,
       X_SEL, X_COUNT };

struct pnode {
	int kind, v, a, b, c;	/* statement: kind, var, expr, first, second */
	int next;		/* next statement of the block, -1 */
	uint32_t k;
};

struct prog {
	int n, root;
	struct pnode nd[PNODES];
};

static int pnew(struct prog *p)
{
	if (p->n >= PNODES)
		abort();
	memset(&p->nd[p->n], 0, sizeof(p->nd[0]));
	p->nd[p->n].next = -1;
	return p->n++;
}

static int pexpr(struct prog *p, int depth)
{
	int i = pnew(p), op = depth <= 0 ? (int)(rng() % 2) :
			      (int)(rng() % X_COUNT);

	p->nd[i].kind = op;
	if (op == X_VAR)
		p->nd[i].k = rng() % PV;
	else if (op == X_CONST)
		p->nd[i].k = rng() % 3 ? rng() % 16 : rng() << 8;
	else {
		p->nd[i].a = pexpr(p, depth - 1);
		p->nd[i].b = pexpr(p, depth - 1);
		if (op == X_SEL)
			p->nd[i].c = pexpr(p, depth - 1);
	}
	return i;
}

static int pblock(struct prog *p, int depth, int len)
{
	int first = -1, last = -1, j;

	for (j = 0; j < len && p->n < PNODES - 40; j++) {
		int i = pnew(p), r = (int)(rng() % 10);
		struct pnode *s = &p->nd[i];

		s->kind = depth >= 3 || r < 6 ? S_ASSIGN : r < 8 ? S_IF : S_LOOP;
		s->v = (int)(rng() % PV);
		s->a = pexpr(p, 1 + (int)(rng() % 2));
		if (s->kind == S_IF) {
			p->nd[i].b = pblock(p, depth + 1, 1 + (int)(rng() % 3));
			p->nd[i].c = rng() % 2 ? pblock(p, depth + 1, 1 + (int)(rng() % 2)) : -1;
		} else if (s->kind == S_LOOP) {
			p->nd[i].b = pblock(p, depth + 1, 1 + (int)(rng() % 3));
			p->nd[i].c = pexpr(p, 1);	/* break condition */
		}
		if (last >= 0)
			p->nd[last].next = i;
		else
			first = i;
		last = i;
	}
	return first;
}

static size_t pprint_expr(const struct prog *p, int i, char *buf, size_t len)
{
	const struct pnode *n = &p->nd[i];
	static const char *const op[] = { [X_ADD] = "+", [X_SUB] = "-",
		[X_MUL] = "*", [X_XOR] = "^", [X_AND] = "&" };
	size_t w = 0;

#define PUT(...) (w += (size_t)snprintf(buf + w, w < len ? len - w : 0, __VA_ARGS__))
	switch (n->kind) {
	case X_VAR: PUT("v%u", n->k); break;
	case X_CONST: PUT("%uu", n->k); break;
	case X_SHR:
		PUT("(");
		w += pprint_expr(p, n->a, buf + w, len - w);
		PUT(" >> (");
		w += pprint_expr(p, n->b, buf + w, len - w);
		PUT(" & 31u))");
		break;
	case X_LT:
		PUT("(uint)(");
		w += pprint_expr(p, n->a, buf + w, len - w);
		PUT(" < ");
		w += pprint_expr(p, n->b, buf + w, len - w);
		PUT(")");
		break;
	case X_SEL:
		PUT("((");
		w += pprint_expr(p, n->a, buf + w, len - w);
		PUT(" & 1u) ? ");
		w += pprint_expr(p, n->b, buf + w, len - w);
		PUT(" : ");
		w += pprint_expr(p, n->c, buf + w, len - w);
		PUT(")");
		break;
	default:
		PUT("(");
		w += pprint_expr(p, n->a, buf + w, len - w);
		PUT(" %s ", op[n->kind]);
		w += pprint_expr(p, n->b, buf + w, len - w);
		PUT(")");
	}
	return w;
}

static size_t pprint_block(const struct prog *p, int i, int depth, char *buf,
			   size_t len)
{
	size_t w = 0;

	for (; i >= 0; i = p->nd[i].next) {
		const struct pnode *s = &p->nd[i];

		switch (s->kind) {
		case S_ASSIGN:
			PUT("v%d = ", s->v);
			w += pprint_expr(p, s->a, buf + w, len - w);
			PUT(";\n");
			break;
		case S_IF:
			PUT("if (");
			w += pprint_expr(p, s->a, buf + w, len - w);
			PUT(" & 1u) {\n");
			w += pprint_block(p, s->b, depth + 1, buf + w, len - w);
			PUT("}");
			if (s->c >= 0) {
				PUT(" else {\n");
				w += pprint_block(p, s->c, depth + 1, buf + w, len - w);
				PUT("}");
			}
			PUT("\n");
			break;
		case S_LOOP:
			PUT("for (uint k%d = 0; k%d < (", depth, depth);
			w += pprint_expr(p, s->a, buf + w, len - w);
			PUT(" & 7u); k%d++) {\n", depth);
			w += pprint_block(p, s->b, depth + 1, buf + w, len - w);
			PUT("if ((");
			w += pprint_expr(p, s->c, buf + w, len - w);
			PUT(" & 3u) == 0) break;\n}\n");
			break;
		}
	}
#undef PUT
	return w;
}

static uint32_t peval(const struct prog *p, int i, const uint32_t *v)
{
	const struct pnode *n = &p->nd[i];
	uint32_t a = 0, b = 0;

	if (n->kind >= X_ADD) {
		a = peval(p, n->a, v);
		b = peval(p, n->b, v);
	}
	switch (n->kind) {
	case X_VAR: return v[n->k];
	case X_CONST: return n->k;
	case X_ADD: return a + b;
	case X_SUB: return a - b;
	case X_MUL: return a * b;
	case X_XOR: return a ^ b;
	case X_AND: return a & b;
	case X_SHR: return a >> (b & 31);
	case X_LT: return a < b;
	case X_SEL: return (a & 1) ? b : peval(p, n->c, v);
	}
	return 0;
}

static void prun(const struct prog *p, int i, uint32_t *v)
{
	for (; i >= 0; i = p->nd[i].next) {
		const struct pnode *s = &p->nd[i];
		uint32_t k;

		switch (s->kind) {
		case S_ASSIGN:
			v[s->v] = peval(p, s->a, v);
			break;
		case S_IF:
			if (peval(p, s->a, v) & 1)
				prun(p, s->b, v);
			else if (s->c >= 0)
				prun(p, s->c, v);
			break;
		case S_LOOP:
			for (k = 0; k < (peval(p, s->a, v) & 7); k++) {
				prun(p, s->b, v);
				if ((peval(p, s->c, v) & 3) == 0)
					break;
			}
			break;
		}
	}
}

#define NPROGS		24
#define PINPUTS		256

TEST_F(cc, random_structured_programs)
{
	static struct prog pg[NPROGS];
	size_t cap = 1 << 21, len = 0;
	char *src = malloc(cap);
	struct vmgpu_program *prog[2];
	ALLOC(uint32_t, in, PV * PINPUTS);
	ALLOC(uint32_t, out, PV * PINPUTS);
	int k, pass, failures = 0, spilled = 0;

	ASSERT_NE(NULL, src);
	if (getenv("VMGPU_TEST_SEED"))
		rng_state = (uint32_t)strtoul(getenv("VMGPU_TEST_SEED"), NULL, 0) * 7 + 1;
	for (k = 0; k < NPROGS; k++) {
		pg[k].n = 0;
		pg[k].root = pblock(&pg[k], 0, 4 + (int)(rng() % 6));
		len += (size_t)snprintf(src + len, cap - len,
			"kernel void p%d(global const uint *in, global uint *out)\n{\n"
			"uint i = get_global_id(0);\n", k);
		for (int j = 0; j < PV; j++)
			len += (size_t)snprintf(src + len, cap - len,
						"uint v%d = in[%d * i + %d];\n", j, PV, j);
		len += pprint_block(&pg[k], pg[k].root, 0, src + len, cap - len);
		for (int j = 0; j < PV; j++)
			len += (size_t)snprintf(src + len, cap - len,
						"out[%d * i + %d] = v%d;\n", PV, j, j);
		len += (size_t)snprintf(src + len, cap - len, "}\n");
		ASSERT_LT(len, cap);
	}
	prog[0] = build(_metadata, src, NULL);
	prog[1] = build(_metadata, src, "-vmgpu-max-regs=16");
	ASSERT_NE(NULL, prog[0]);
	ASSERT_NE(NULL, prog[1]);
	for (k = 0; k < NPROGS; k++) {
		char name[16];
		int i, j;

		snprintf(name, sizeof(name), "p%d", k);
		for (i = 0; i < PV * PINPUTS; i++)
			in[i] = rng() % 4 ? rng() : rng() % 8;
		for (pass = 0; pass < 2; pass++) {
			struct ck c;

			load(_metadata, prog[pass], name, &c);
			spilled += pass && c.priv;
			set_u64(&c, 0, in_va);
			set_u64(&c, 1, out_va);
			/* blocks of 64: two warps, each diverging its own way */
			ASSERT_EQ(0, run1d(self->tm, &c, PINPUTS, 64));
			for (i = 0; i < PINPUTS; i++) {
				uint32_t v[PV];

				memcpy(v, &in[PV * i], sizeof(v));
				prun(&pg[k], pg[k].root, v);
				for (j = 0; j < PV; j++)
					if (v[j] != out[PV * i + j])
						break;
				if (j < PV) {
					fprintf(stderr, "# %s%s: input %d v%d got %x want %x\n",
						name, pass ? " (16 registers)" : "",
						i, j, out[PV * i + j], v[j]);
					failures++;
					break;
				}
			}
			vg_kernel_free(c.k);
		}
	}
	fprintf(stderr, "# %d of %d programs spill with 16 registers\n",
		spilled, NPROGS);
	EXPECT_GT(spilled, 0);
	EXPECT_EQ(0, failures);
	if (failures)
		fprintf(stderr, "%s", src);
	vmgpu_program_destroy(prog[0]);
	vmgpu_program_destroy(prog[1]);
	free(src);
}

/* ------------------------------------------------------------------ */
/* Random float expressions: every comparison predicate, NaN, -0, inf    */
/* ------------------------------------------------------------------ */

enum { F_VAR, F_CONST, F_ADD, F_SUB, F_MUL, F_DIV, F_NEG, F_ABS, F_MIN,
       F_MAX, F_CVT, F_CMP, F_COUNT };
enum { C_LT, C_LE, C_GT, C_GE, C_EQ, C_NE, C_NLT, C_NLE, C_NGT, C_NGE,
       C_NEQ, C_UNO, C_ORD, C_COUNT };

static const char *const fcmp_fmt[C_COUNT] = {
	"(%s < %s)", "(%s <= %s)", "(%s > %s)", "(%s >= %s)", "(%s == %s)",
	"(%s != %s)", "!(%s < %s)", "!(%s <= %s)", "!(%s > %s)", "!(%s >= %s)",
	"!(%s == %s)", "(isnan(%s) || isnan(%s))", "!(isnan(%s) || isnan(%s))" };

static int fcmp_eval(int c, float a, float b)
{
	switch (c) {
	case C_LT: return a < b;
	case C_LE: return a <= b;
	case C_GT: return a > b;
	case C_GE: return a >= b;
	case C_EQ: return a == b;
	case C_NE: return a != b;
	case C_NLT: return !(a < b);
	case C_NLE: return !(a <= b);
	case C_NGT: return !(a > b);
	case C_NGE: return !(a >= b);
	case C_NEQ: return !(a == b);
	case C_UNO: return isnan(a) || isnan(b);
	default: return !(isnan(a) || isnan(b));
	}
}

static int fgen(struct expr *e, int depth)
{
	int i = e->n++, op = depth <= 0 ? (int)(rng() % 2) :
			     2 + (int)(rng() % (F_COUNT - 2));
	struct enode *n = &e->nodes[i];

	n->op = op;
	if (op == F_VAR) {
		n->k = rng() % 4;
	} else if (op == F_CONST) {
		static const float c[] = { 0.0f, -0.0f, 1.0f, -2.5f, 0.1f, 3e38f,
					   1e-40f, 1e9f };
		float f = c[rng() % 8];

		memcpy(&n->k, &f, 4);
	} else {
		n->a = fgen(e, depth - 1);
		if (op != F_NEG && op != F_ABS && op != F_CVT)
			n->b = fgen(e, depth - 1);
		if (op == F_CMP) {
			n->c = fgen(e, depth - 1);
			n->k = rng() % C_COUNT;
		}
	}
	return i;
}

static void fprint(const struct expr *e, int i, char *buf, size_t len)
{
	const struct enode *n = &e->nodes[i];
	char A[16384], B[16384], C[16384], cond[40000];
	static const char *const op[] = { [F_ADD] = "+", [F_SUB] = "-",
					  [F_MUL] = "*", [F_DIV] = "/" };
	float f;

	A[0] = B[0] = C[0] = 0;
	if (n->op >= F_ADD)
		fprint(e, n->a, A, sizeof(A));
	if (n->op >= F_ADD && n->op != F_NEG && n->op != F_ABS && n->op != F_CVT)
		fprint(e, n->b, B, sizeof(B));
	if (n->op == F_CMP)
		fprint(e, n->c, C, sizeof(C));
	switch (n->op) {
	case F_VAR: snprintf(buf, len, "x%d", (int)n->k); break;
	case F_CONST:
		memcpy(&f, &n->k, 4);
		snprintf(buf, len, "as_float(0x%08xu)", (unsigned)n->k);
		break;
	case F_NEG: snprintf(buf, len, "(-%s)", A); break;
	case F_ABS: snprintf(buf, len, "fabs(%s)", A); break;
	case F_MIN: snprintf(buf, len, "fmin(%s, %s)", A, B); break;
	case F_MAX: snprintf(buf, len, "fmax(%s, %s)", A, B); break;
	case F_CVT: snprintf(buf, len, "cvt(%s)", A); break;
	case F_CMP:
		snprintf(cond, sizeof(cond), fcmp_fmt[n->k], A, B);
		snprintf(buf, len, "(%s ? %s : %s)", cond, A, C);
		break;
	default: snprintf(buf, len, "(%s %s %s)", A, op[n->op], B);
	}
}

static float cvt_ref(float a)
{
	return fabsf(a) < 1e9f ? (float)(int)a + (float)(unsigned)(int)fabsf(a) * 0.5f : a;
}

/* the ISA's minNum/maxNum: -0 below +0 (C leaves that open) */
static float fmin_ref(float a, float b)
{
	if (a == 0.0f && b == 0.0f)
		return signbit(a) ? a : b;
	return fminf(a, b);
}

static float fmax_ref(float a, float b)
{
	if (a == 0.0f && b == 0.0f)
		return signbit(a) ? b : a;
	return fmaxf(a, b);
}

static float feval(const struct expr *e, int i, const float *x)
{
	const struct enode *n = &e->nodes[i];
	volatile float a = 0, b = 0, r;

	if (n->op >= F_ADD)
		a = feval(e, n->a, x);
	if (n->op >= F_ADD && n->op != F_NEG && n->op != F_ABS && n->op != F_CVT)
		b = feval(e, n->b, x);
	switch (n->op) {
	case F_VAR: return x[n->k];
	case F_CONST: memcpy((float *)&r, &n->k, 4); return r;
	case F_ADD: r = a + b; return r;
	case F_SUB: r = a - b; return r;
	case F_MUL: r = a * b; return r;
	case F_DIV: r = a / b; return r;
	case F_NEG: return -a;
	case F_ABS: return fabsf(a);
	case F_MIN: return fmin_ref(a, b);
	case F_MAX: return fmax_ref(a, b);
	case F_CVT: return cvt_ref(a);
	case F_CMP: return fcmp_eval((int)n->k, a, b) ? a : feval(e, n->c, x);
	}
	return 0;
}

#define FEXPRS	60

TEST_F(cc, random_float_expressions)
{
	static struct expr ex[FEXPRS];
	size_t cap = 1 << 21, len = 0;
	char *src = malloc(cap), *body = malloc(1 << 16);
	struct vmgpu_program *prog;
	ALLOC(float, in, 4 * EXPR_INPUTS);
	ALLOC(float, out, EXPR_INPUTS);
	int k, i, failures = 0;

	ASSERT_NE(NULL, src);
	if (getenv("VMGPU_TEST_SEED"))
		rng_state = (uint32_t)strtoul(getenv("VMGPU_TEST_SEED"), NULL, 0) * 13 + 5;
	len += (size_t)snprintf(src + len, cap - len,
		"float cvt(float a) { return fabs(a) < 1e9f ? (float)(int)a +"
		" (float)(uint)(int)fabs(a) * 0.5f : a; }\n");
	for (k = 0; k < FEXPRS; k++) {
		ex[k].n = 0;
		ex[k].root = fgen(&ex[k], 1 + (int)(rng() % 3));
		fprint(&ex[k], ex[k].root, body, 1 << 16);
		len += (size_t)snprintf(src + len, cap - len,
			"kernel void f%d(global const float *in, global float *out)\n"
			"{\n\tsize_t i = get_global_id(0);\n"
			"\tfloat x0 = in[4 * i], x1 = in[4 * i + 1], x2 = in[4 * i + 2],"
			" x3 = in[4 * i + 3];\n\tout[i] = %s;\n}\n", k, body);
	}
	/* no contraction: the C evaluator rounds every operation */
	prog = build(_metadata, src, "-ffp-contract=off");
	ASSERT_NE(NULL, prog);
	for (i = 0; i < 4 * EXPR_INPUTS; i++) {
		static const float sp[] = { 0.0f, -0.0f, 1.0f, -1.0f, NAN,
					    INFINITY, -INFINITY, 1e-45f, 0.5f };

		in[i] = rng() % 3 ? rng_float() * (float)(1 << (rng() % 20)) :
			sp[rng() % 9];
	}
	for (k = 0; k < FEXPRS; k++) {
		char name[16];
		struct ck c;

		snprintf(name, sizeof(name), "f%d", k);
		load(_metadata, prog, name, &c);
		set_u64(&c, 0, in_va);
		set_u64(&c, 1, out_va);
		ASSERT_EQ(0, run1d(self->tm, &c, EXPR_INPUTS, 64));
		for (i = 0; i < EXPR_INPUTS; i++) {
			float want = feval(&ex[k], ex[k].root, &in[4 * i]);
			float got = out[i];

			if ((isnan(want) && isnan(got)) || want == got)
				continue;
			fprint(&ex[k], ex[k].root, body, 1 << 16);
			fprintf(stderr, "# %s: x=%a %a %a %a got %a want %a\n#   %s\n",
				name, in[4 * i], in[4 * i + 1], in[4 * i + 2],
				in[4 * i + 3], got, want, body);
			failures++;
			break;
		}
		vg_kernel_free(c.k);
	}
	EXPECT_EQ(0, failures);
	vmgpu_program_destroy(prog);
	free(src);
	free(body);
}

TEST_HARNESS_MAIN
