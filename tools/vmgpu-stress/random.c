// SPDX-License-Identifier: MIT
/*
 * vmgpu-stress: random packets and kernels (finding 13), as
 * op_submit_random (random_op.c) sends them: random and well-formed
 * instructions, kernels, task descriptors and argument blocks, commands,
 * whole packets, and the fixup that keeps them from waiting for ever.
 * Apart from the operation: it only makes words, in the thread's buffers
 * or in a packet, and neither opens nor submits anything.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "vmgpu_cmd.h"
#include "vmgpu_isa.h"

#include "stress.h"

/* ---- random packets and kernels (finding 13) ---- */

/*
 * A hostile user crashed QEMU with random packets (finding 13): valid
 * headers and random command words, random grids, SYNC indices such as
 * 0xffffffff, addresses just inside and just past buffers, random kernels
 * in buffers another thread rewrote while they ran. op_submit_random makes
 * that input, on every GPU (the checker's too: a fault must only ever hurt
 * the guilty context). Each thread does it in a private file of its own,
 * on a descriptor above RND_FD_BASE, so that no other thread closes or
 * replaces its buffers (not even through a stale copy of a small fd):
 *
 *   exec   RND_SLOTS kernels (GPU-writable or read-only), rewritten by the
 *          process's rewriter thread while packets using them run
 *   data   stores, copies, queues, take words, signalled tables; placed
 *          in any GPU's memory
 *   args   the argument block (interesting addresses, small numbers) and
 *          task descriptors, rewritten before packets
 *   table  GPU-read-only, every entry READY in the thread's epoch
 *
 * Fields are in range, at the edges, or (in "wild" packets) anything; 40%
 * of the other packets then get a few command words replaced. Three in
 * ten packets are "tame": new kernels of well-formed instructions on
 * addresses that work, clean task descriptors, the packet's own queue
 * task, no mutation, so that they get as far as LAUNCH, ENQ, queue
 * blocks, TAKE portions and copies before anything faults.
 *
 * Nothing it sends may wait for ever, since it runs next to the checker:
 * every packet starts with SET_STATE INSTR_BUDGET of at most
 * RND_MAX_BUDGET (which bounds every task of the packet, children too),
 * a WAIT_VALUE's condition holds for every word, DEP_WAITs and the
 * after-entries of COPY_ASYNCs read the read-only table, TAKEs do not
 * wait. rnd_fixup() puts these back after the words were mutated.
 */

const uint64_t rnd_bo_bytes[RB_NUM] = {
	[RB_EXEC] = RND_SLOTS * RND_SLOT_BYTES, [RB_DATA] = 65536,
	[RB_ARGS] = 8192, [RB_TAB] = 4096,
};

/* The opcode table, for well-formed random instructions. */
struct isa_op {
	uint8_t code, fmt, flags, bytes;
};

static const struct isa_op isa_ops[] = {
#define RND_ISA_X(name, code, mnem, fmt, flags, bytes) \
	{ code, VMGPU_FMT_##fmt, flags, bytes },
	VMGPU_ISA_OPCODES(RND_ISA_X)
#undef RND_ISA_X
};
#define NISA_OPS (sizeof(isa_ops) / sizeof(isa_ops[0]))

static bool isa_mem(const struct isa_op *o)
{
	return o->fmt == VMGPU_FMT_LOAD || o->fmt == VMGPU_FMT_STORE ||
	       o->fmt == VMGPU_FMT_ATOM || o->fmt == VMGPU_FMT_CAS ||
	       o->fmt == VMGPU_FMT_LAUNCH;
}

/* A dispatch index a validator must get right. */
static uint32_t rnd_index(struct thr *t, uint32_t disp)
{
	static const uint32_t v[] = {
		0xfffffffeu, 0x80000000u, 255, 256, 257, 1023, 1024, 1025,
	};

	switch (R32(t, 6)) {
	case 0:		/* finding 13: one past it wrapped to 0 */
		return 0xffffffffu;
	case 1:
		return v[R32(t, sizeof(v) / sizeof(v[0]))];
	case 2:		/* around the packet's limit */
		return S->max_dispatches - 1 + R32(t, 3);
	case 3:		/* around this command */
		return disp - 1 + R32(t, 3);
	case 4:
		return R32(t, 8);
	default:
		return (uint32_t)R(t);
	}
}

/*
 * An address a hostile user would try: inside, at the start, at the end
 * and just past the end of the thread's buffers, the kernel buffer, a
 * command buffer a fault revealed, buffers of other files, unmapped
 * pages, 0 and the first page, the top of the 39-bit address space and
 * beyond, task descriptors.
 */
static uint64_t rnd_addr(struct thr *t)
{
	struct proc *p = t->p;
	unsigned int b = R32(t, RB_NUM), i, k;
	uint64_t va = t->rva[b], size = rnd_bo_bytes[b], top;
	uint64_t lo = S->va_start, hi = S->va_end;
	struct bo_ent e;

	top = 1ull << VMGPU_VA_BITS;
	if (hi <= lo)
		lo = 0, hi = top;
	switch (R32(t, 16)) {
	case 0:
	case 1:
		return va + 8 * R32(t, (uint32_t)(size / 8));
	case 2:
		return va;
	case 3:
		return va + size - 4 * (1 + R32(t, 4));
	case 4:
		return va + size;		/* just past the end */
	case 5:
		return va + size + 4096 * R32(t, 4) - 4 * R32(t, 3);
	case 6:		/* the kernel buffer */
		return t->rva[RB_EXEC] + RND_SLOT_BYTES * R32(t, RND_SLOTS) +
		       8 * R32(t, 8);
	case 7:		/* a command buffer, or the page before a buffer */
		return t->rcmdbuf ? t->rcmdbuf + 4 * R32(t, 64) - 4 * R32(t, 8) :
		       va - 4096 + 4 * R32(t, 1024);
	case 8:		/* buffers of other files of the process */
		if (t->index < 0)	/* the rewriter: it holds xlock */
			return hi - 4096;
		if (bo_pick(p, R(t), -1, &e, false))
			return e.va + (chance(t, 50) ? 0 : e.size);
		return t->out ? vmgpu_bo_gpu_va(t->out) : 0;
	case 9:		/* another thread's kernel buffer */
		if (t->index < 0)
			return hi - 8192;
		pthread_mutex_lock(&p->xlock);
		k = R32(t, cfg.threads);
		for (i = 0; i < cfg.threads; i++)
			if (p->xmaps[(k + i) % cfg.threads].m)
				break;
		va = i < cfg.threads ? p->xmaps[(k + i) % cfg.threads].va : 0;
		pthread_mutex_unlock(&p->xlock);
		return va;
	case 10:	/* unmapped, most likely */
		return hi - 4096 * (1 + R32(t, 64));
	case 11:
		return (lo + R(t) % (hi - lo)) & ~4095ull;
	case 12:
		return chance(t, 50) ? 0 : R32(t, 4096);
	case 13:	/* the top of the address space, and past it */
		return top - 8 * R32(t, 3) + (chance(t, 30) ? 4096 : 0);
	case 14:
		switch (R32(t, 4)) {
		case 0: return 1ull << 63;
		case 1: return ~0ull - 7;
		case 2: return 0x0000800000000000ull;
		default: return top + (R(t) & 0xffffff8ull);
		}
	default:	/* task descriptors */
		return t->rva[RB_ARGS] + RND_TMD_OFF +
		       VMGPU_TMD_BYTES * R32(t, RND_TMDS);
	}
}

/* A word to put in a command field. */
uint32_t rnd_word(struct thr *t)
{
	static const uint32_t v[] = {
		0, 1, 2, 0xffffffffu, 0xfffffffeu, 0x80000000u, 255, 256, 1024,
		4096, 1u << 24, VMGPU_MAX_BLOCK_THREADS + 1,
	};
	uint64_t a;

	switch (R32(t, 6)) {
	case 0:
	case 1:
		return v[R32(t, sizeof(v) / sizeof(v[0]))];
	case 2:
		return rnd_index(t, R32(t, 4));
	case 3:
		a = rnd_addr(t);
		return chance(t, 60) ? (uint32_t)a : (uint32_t)(a >> 32);
	case 4:
		return 1u << R32(t, 32);
	default:
		return (uint32_t)R(t);
	}
}

/*
 * The first register of a (pair of) register(s) of @n; for an address,
 * in @pct% of cases one of the @npairs pairs the prologue loaded from the
 * arguments.
 */
static uint32_t rnd_reg(struct thr *t, bool pair, uint32_t n, uint32_t npairs,
			unsigned int pct)
{
	if (pct && npairs && chance(t, pct))
		return 2 * R32(t, npairs);
	if (n <= (pair ? 1u : 0u))
		return 0;
	return R32(t, n - (pair ? 1 : 0));
}

/*
 * An offset for [rA + imm]: 0, near, a page off, misaligned, anything;
 * @gentle: 0 or a few aligned words on.
 */
static uint32_t rnd_off(struct thr *t, uint32_t size, bool gentle)
{
	if (!size)
		size = 4;
	if (gentle)
		return chance(t, 50) ? 0 : size * R32(t, 16);
	switch (R32(t, 8)) {
	case 0:
	case 1:
	case 2:
		return 0;
	case 3:
		return size * R32(t, 16);
	case 4:
		return (uint32_t)-(int32_t)(size * (1 + R32(t, 16)));
	case 5:
		return chance(t, 50) ? 4096 : (uint32_t)-4096;
	case 6:
		return 1 + R32(t, 7);
	default:
		return (uint32_t)R(t);
	}
}

/*
 * A well-formed random instruction (vmgpu_insn_valid()) at @pc of a
 * kernel of ISA version @isa, @n registers, @args_bytes of arguments and
 * @ncode instructions. Loads, stores, atomics, LAUNCH and ENQ are half of
 * them, mostly on the address pairs of the prologue; branches go anywhere
 * in the code or just past it. @gentle: only on those pairs, near them,
 * no shared memory, branches forward within the code.
 */
uint64_t rnd_insn(struct thr *t, uint32_t isa, uint32_t n,
			 uint32_t args_bytes, uint32_t pc, uint32_t ncode,
			 uint32_t npairs, bool gentle)
{
	unsigned int tries, k, apct;

	for (tries = 0; tries < 16; tries++) {
		const struct isa_op *o = &isa_ops[R32(t, NISA_OPS)];
		bool want_mem = chance(t, 50), use_imm, dp, ap, bp;
		uint32_t d = 0, a = 0, b = 0, imm = 0;
		uint64_t w;

		for (k = 0; want_mem && !isa_mem(o) && k < 64; k++)
			o = &isa_ops[R32(t, NISA_OPS)];
		/* Shared memory takes small addresses gentle kernels lack. */
		if (gentle && (o->flags & VMGPU_OPF_SHARED))
			continue;
		/* Gentle: device-side work on the packet's (queue) task. */
		if (gentle && want_mem && isa >= 2 && npairs && chance(t, 15)) {
			/* Every lane launches: children multiply. */
			if (chance(t, 25)) {
				w = VMGPU_INSN(VMGPU_OP_LAUNCH, 0, 0,
					       2 * R32(t, npairs),
					       2 * npairs + R32(t, 2));
			} else {
				w = VMGPU_INSN(VMGPU_OP_ENQ, 0,
					       npairs > 1 ? 2 : 0,
					       R32(t, n), 0);
			}
			if (vmgpu_insn_valid(w, isa, n, args_bytes))
				return w;
		}
		dp = o->flags & VMGPU_OPF_D_PAIR;
		ap = o->flags & VMGPU_OPF_A_PAIR;
		bp = o->flags & VMGPU_OPF_B_PAIR;
		apct = ap ? (gentle ? 100 : 85) : 0;
		use_imm = (o->flags & VMGPU_OPF_IMM) && chance(t, 40);
		switch (o->fmt) {
		case VMGPU_FMT_NONE:
			break;
		case VMGPU_FMT_BRA:
			a = chance(t, 40) ? VMGPU_BRA_ALWAYS :
			    R32(t, VMGPU_ISA_NUM_PREDS) |
			    (chance(t, 50) ? VMGPU_BRA_NEGATE : 0);
			if (gentle)
				imm = pc + 1 + R32(t, ncode > pc ? ncode - pc : 1);
			else if (chance(t, 90))
				imm = R32(t, ncode + 2);
			else
				imm = (uint32_t)R(t);
			break;
		case VMGPU_FMT_MOV:
			d = rnd_reg(t, false, n, npairs, 0);
			if (use_imm)
				imm = rnd_word(t);
			else
				b = rnd_reg(t, false, n, npairs, 0);
			break;
		case VMGPU_FMT_SREG:
			d = rnd_reg(t, false, n, npairs, 0);
			a = R32(t, vmgpu_isa_sregs(isa));
			break;
		case VMGPU_FMT_SEL:
			d = rnd_reg(t, false, n, npairs, 0);
			a = rnd_reg(t, false, n, npairs, 0);
			b = rnd_reg(t, false, n, npairs, 0);
			imm = R32(t, VMGPU_ISA_NUM_PREDS);
			break;
		case VMGPU_FMT_ARG:
			d = rnd_reg(t, dp, n, npairs, 0);
			imm = args_bytes >= o->bytes ?
			      4 * R32(t, (args_bytes - o->bytes) / 4 + 1) : 0;
			break;
		case VMGPU_FMT_ALU:
			d = rnd_reg(t, dp, n, npairs, 0);
			a = rnd_reg(t, ap, n, npairs, apct);
			if (use_imm)
				imm = rnd_word(t);
			else
				b = rnd_reg(t, bp, n, npairs, 0);
			break;
		case VMGPU_FMT_UNARY:
			d = rnd_reg(t, false, n, npairs, 0);
			a = rnd_reg(t, false, n, npairs, 0);
			break;
		case VMGPU_FMT_ALU3:
		case VMGPU_FMT_CAS:
			d = rnd_reg(t, false, n, npairs, 0);
			a = rnd_reg(t, ap, n, npairs, apct);
			b = rnd_reg(t, false, n, npairs, 0);
			imm = R32(t, n);
			break;
		case VMGPU_FMT_SETP:
			d = R32(t, VMGPU_ISA_NUM_PREDS);
			a = rnd_reg(t, false, n, npairs, 0);
			if (use_imm)
				imm = rnd_word(t);
			else
				b = rnd_reg(t, false, n, npairs, 0);
			break;
		case VMGPU_FMT_PRED2:
			b = R32(t, VMGPU_ISA_NUM_PREDS);
			/* fall through */
		case VMGPU_FMT_PRED1:
			d = R32(t, VMGPU_ISA_NUM_PREDS);
			a = R32(t, VMGPU_ISA_NUM_PREDS);
			break;
		case VMGPU_FMT_LOAD:
			d = rnd_reg(t, dp, n, npairs, 0);
			a = rnd_reg(t, ap, n, npairs, apct);
			imm = rnd_off(t, o->bytes, gentle);
			break;
		case VMGPU_FMT_STORE:
			a = rnd_reg(t, ap, n, npairs, apct);
			b = rnd_reg(t, bp, n, npairs, 0);
			imm = rnd_off(t, o->bytes, gentle);
			break;
		case VMGPU_FMT_ATOM:
			d = rnd_reg(t, false, n, npairs, 0);
			a = rnd_reg(t, ap, n, npairs, apct);
			b = rnd_reg(t, false, n, npairs, 0);
			imm = rnd_off(t, o->bytes, gentle);
			break;
		case VMGPU_FMT_LEA:
			d = rnd_reg(t, dp, n, npairs, 0);
			a = rnd_reg(t, ap, n, npairs, gentle ? 100 : 85);
			b = rnd_reg(t, false, n, npairs, 0);
			imm = R32(t, 32);
			break;
		case VMGPU_FMT_LAUNCH:
			a = rnd_reg(t, true, n, npairs, gentle ? 100 : 85);
			b = rnd_reg(t, true, n, npairs, gentle ? 100 : 85);
			/* The child's blocks: the prologue's small numbers. */
			if (npairs && 2 * npairs + 1 < n && chance(t, 70))
				imm = 2 * npairs + R32(t, 2);
			else
				imm = R32(t, n);
			break;
		}
		/* Gentle: the prologue's registers keep their addresses. */
		k = 2 * npairs + 2 + (dp ? 1 : 0);
		if (gentle && d < k - (dp ? 1 : 0) && n > k &&
		    o->fmt != VMGPU_FMT_SETP && o->fmt != VMGPU_FMT_PRED1 &&
		    o->fmt != VMGPU_FMT_PRED2)
			d = k - (dp ? 1 : 0) + R32(t, n - k);
		w = VMGPU_INSN(o->code | (use_imm ? VMGPU_OP_IMM : 0), d, a, b,
			       imm);
		if (vmgpu_insn_valid(w, isa, n, args_bytes))
			return w;
	}
	return VMGPU_INSN(VMGPU_OP_NOP, 0, 0, 0, 0);
}

/*
 * A kernel in slot @s of the executable buffer: random words (the device
 * must refuse them), well-formed random instructions behind a broken
 * header, or well-formed random instructions after a prologue that loads
 * address pairs and small numbers from the argument block. @tame: the
 * last kind, on addresses that work (it lives to LAUNCH and ENQ).
 */
void rnd_kernel(struct thr *t, unsigned int s, bool tame)
{
	uint64_t code[(RND_SLOT_BYTES - VMGPU_EXEC_HEADER_BYTES) / 8], w;
	struct vmgpu_exec_header h;
	uint32_t r = tame ? 100 : R32(t, 100), n = 0, np = 0, j;
	uint32_t max = 1 + R32(t, 48);
	bool gentle = tame || (r >= 30 && chance(t, 30));
	uint8_t *dst = t->rmap[RB_EXEC] + s * RND_SLOT_BYTES;

	memset(&h, 0, sizeof(h));
	h.magic = VMGPU_EXEC_MAGIC;
	h.isa_version = S->isa_version >= 2 && chance(t, 85) ? 2 : 1;
	h.num_regs = tame || chance(t, 90) ? 12 + R32(t, 53) :
		     1 + R32(t, VMGPU_ISA_MAX_REGS);
	h.shared_bytes = chance(t, 25) ? 4 * R32(t, 1025) : 0;
	h.args_bytes = tame || chance(t, 95) ? RND_ARGS :
		       4 * R32(t, RND_ARGS / 4 + 1);
	if (r < 20) {
		for (n = 0; n < max; n++)
			code[n] = R(t);
		add(ST_RND_KERN_RANDOM);
	} else {
		if (h.num_regs >= 12 && h.args_bytes == RND_ARGS)
			np = 1 + R32(t, 4);
		/* Gentle: pair 0 a task, pair 1 a queue task, then inside. */
		for (j = 0; j < np; j++)
			code[n++] = VMGPU_INSN(VMGPU_OP_LDARG64, 2 * j, 0, 0,
					       8 * (gentle && j < 2 ? j :
						    R32(t, gentle ? RND_INSIDE :
							  RND_SMALL)));
		for (j = 0; np && j < 2; j++)
			code[n++] = VMGPU_INSN(VMGPU_OP_LDARG, 2 * np + j, 0, 0,
					       8 * (RND_SMALL +
						    R32(t, RND_NADDR - RND_SMALL)));
		w = n + max;	/* the EXIT */
		for (j = 0; j < max; j++, n++)
			code[n] = rnd_insn(t, h.isa_version, h.num_regs,
					   h.args_bytes, n, w, np, gentle);
		if (gentle || chance(t, 90))	/* or run off the end */
			code[n++] = VMGPU_INSN(VMGPU_OP_EXIT, 0, 0, 0, 0);
		add(r < 30 ? ST_RND_KERN_BADHDR : ST_RND_KERN_WELL);
	}
	h.code_insns = n;
	if (r >= 20 && r < 30) {
		switch (R32(t, 8)) {
		case 0:
			h.magic ^= 1u << R32(t, 32);
			break;
		case 1:
			h.isa_version = chance(t, 50) ? 0 : VMGPU_ISA_VERSION + 1;
			break;
		case 2:
			h.num_regs = chance(t, 50) ? 0 : VMGPU_ISA_MAX_REGS + 1;
			break;
		case 3:		/* longer than the slot, the buffer, the ISA */
			w = R32(t, 4);
			h.code_insns = w == 0 ? 0 : w == 1 ? n + 1 + R32(t, 300) :
				       w == 2 ? VMGPU_ISA_MAX_CODE : 0xffffffffu;
			break;
		case 4:
			h.args_bytes = chance(t, 50) ? 2 : VMGPU_MAX_ARGS_BYTES + 4;
			break;
		case 5:
			h.shared_bytes = VMGPU_MAX_SHARED_BYTES + 4 * R32(t, 4);
			break;
		case 6:
			h.sig_bytes = chance(t, 50) ? 4 : (uint32_t)R(t);
			break;
		default:
			h.reserved = 1 + R32(t, 100);
			break;
		}
	}
	memcpy(dst, &h, sizeof(h));
	memcpy(dst + VMGPU_EXEC_HEADER_BYTES, code, 8 * n);
	t->rslot_args[s] = h.args_bytes;
}

/*
 * The argument block: task descriptors (for LAUNCH and ENQ), addresses
 * well inside the thread's buffers, interesting addresses, then small
 * numbers.
 */
static void rnd_args(struct thr *t, uint32_t task, uint32_t queue)
{
	uint64_t a[RND_NADDR];
	unsigned int i, b;

	for (i = 0; i < 4; i++)
		a[i] = t->rva[RB_ARGS] + RND_TMD_OFF + VMGPU_TMD_BYTES *
		       (i == 0 ? task : i == 1 ? queue : R32(t, RND_TMDS));
	for (; i < RND_INSIDE; i++) {	/* writable ones */
		b = chance(t, 80) || t->rexec_ro ? RB_DATA :
		    chance(t, 50) ? RB_ARGS : RB_EXEC;
		a[i] = t->rva[b] + 8 * R32(t, (uint32_t)(rnd_bo_bytes[b] - 256) / 8);
	}
	for (; i < RND_SMALL; i++)
		a[i] = rnd_addr(t);
	for (i = RND_SMALL; i < RND_NADDR; i++)
		a[i] = chance(t, 90) ? R32(t, 4) : rnd_word(t);
	memcpy(t->rmap[RB_ARGS], a, sizeof(a));
}

/*
 * Task descriptor @i: a task, a queue task, or random bytes (@kind: any
 * of them, a task, a queue task); @tame: of a new tame kernel, not bytes.
 */
void rnd_tmd(struct thr *t, unsigned int i, bool tame, int kind)
{
	uint8_t *m = t->rmap[RB_ARGS] + RND_TMD_OFF + VMGPU_TMD_BYTES * i;
	unsigned int s = R32(t, RND_SLOTS), k;
	uint64_t code = t->rva[RB_EXEC] + s * RND_SLOT_BYTES;
	uint8_t junk[VMGPU_TMD_BYTES];

	if (tame)
		rnd_kernel(t, s, true);
	switch (kind == TMD_TASK ? 9 : kind == TMD_QUEUE ? 1 :
		tame ? 1 + R32(t, 9) : R32(t, 10)) {
	case 0:
		for (k = 0; k < sizeof(junk); k++)
			junk[k] = (uint8_t)R(t);
		memcpy(m, junk, sizeof(junk));
		break;
	case 1:
	case 2: {
		struct vmgpu_tmd_queue q;

		memset(&q, 0, sizeof(q));
		q.code_va = code;
		q.args_va = t->rva[RB_ARGS];
		q.args_bytes = t->rslot_args[s];
		q.flags = VMGPU_TMD_F_QUEUE;
		q.items_va = chance(t, 90) ? t->rva[RB_DATA] + RND_ITEMS_OFF +
					     4 * R32(t, tame ? 1 : 4096) :
			     rnd_addr(t);
		if (tame)	/* room for a few ENQs of whole warps */
			q.capacity = 1024 + R32(t, 3072);
		else
			q.capacity = chance(t, 90) ? 1 + R32(t, 64) : rnd_word(t);
		q.block[0] = 32 * (1 + R32(t, 2));
		q.block[1] = q.block[2] = 1;
		q.coalesce = tame || chance(t, 90) ? 1 + R32(t, 8) : rnd_word(t);
		q.coalesce_timeout_ns = R32(t, 100000);
		memcpy(m, &q, sizeof(q));
		break;
	}
	default: {
		struct vmgpu_tmd d;

		memset(&d, 0, sizeof(d));
		d.code_va = tame || chance(t, 90) ? code : rnd_addr(t);
		d.args_va = t->rva[RB_ARGS];
		d.args_bytes = t->rslot_args[s];
		if (chance(t, 15))
			d.flags = R32(t, VMGPU_DISPATCH_F_ALL + 1);
		for (k = 0; k < 3; k++) {
			d.grid[k] = k ? 1 : 1 + R32(t, 4);
			d.block[k] = k ? 1 : 32 * (1 + R32(t, 4));
			d.grid_total[k] = d.grid[k];
		}
		if (!tame && chance(t, 10))
			d.grid[R32(t, 3)] = rnd_word(t);
		if (!tame && chance(t, 10))
			d.sm_mask = chance(t, 50) ? 1ull << R32(t, 64) : R(t);
		if (chance(t, 10))
			d.quota = R32(t, 4);
		memcpy(m, &d, sizeof(d));
		break;
	}
	}
}

/*
 * Task descriptor @i for a TAKE over @pgrid: portions of 1-2 blocks in x
 * of a new tame kernel, its index space cut into exactly @pgrid.
 */
static void rnd_tmd_take(struct thr *t, unsigned int i, const uint32_t pgrid[3])
{
	uint8_t *m = t->rmap[RB_ARGS] + RND_TMD_OFF + VMGPU_TMD_BYTES * i;
	unsigned int s = R32(t, RND_SLOTS), k;
	struct vmgpu_tmd d;

	rnd_kernel(t, s, true);
	memset(&d, 0, sizeof(d));
	d.code_va = t->rva[RB_EXEC] + s * RND_SLOT_BYTES;
	d.args_va = t->rva[RB_ARGS];
	d.args_bytes = t->rslot_args[s];
	for (k = 0; k < 3; k++) {
		d.grid[k] = k ? 1 : 1 + R32(t, 2);
		d.block[k] = k ? 1 : 32 * (1 + R32(t, 2));
		d.grid_total[k] = pgrid[k] * d.grid[k] - (k ? 0 : R32(t, d.grid[k]));
	}
	memcpy(m, &d, sizeof(d));
}

static void rpk_put(struct rpk *k, const void *cmd, uint32_t words)
{
	if (k->n + words >= RND_MAX_WORDS)	/* room for END */
		return;
	memcpy(k->w + k->n, cmd, 4 * words);
	memset(k->hdr + k->n, 0, words);
	k->hdr[k->n] = 1;
	k->n += words;
}

#define RPK_PUT(k, c)	rpk_put((k), &(c), sizeof(c) / 4)

/* A later dispatch @idx is named: clean packets add it before END. */
static void rpk_names(struct rpk *k, uint32_t idx)
{
	if (idx < 16 && idx + 1 > k->need)
		k->need = idx + 1;
}

/*
 * An address for a command: mostly inside one of the thread's buffers
 * (writable ones if @write), @len bytes, @align-aligned, often at its
 * first or last possible place; in a wild packet often any address.
 */
static uint64_t rnd_cmd_addr(struct thr *t, const struct rpk *k, bool write,
			     uint32_t align, uint64_t len)
{
	unsigned int b;
	uint64_t size, off;

	if (k->wild_addr && chance(t, 35)) {
		off = rnd_addr(t);
		return chance(t, 85) ? off & ~(uint64_t)(align - 1) : off;
	}
	do {
		b = R32(t, RB_NUM);
	} while (write && (b == RB_TAB || (b == RB_EXEC && t->rexec_ro)));
	if (b == RB_EXEC && chance(t, 60))
		b = RB_DATA;
	size = rnd_bo_bytes[b];
	if (len > size)
		len = size;
	switch (R32(t, 8)) {
	case 0:
		off = 0;
		break;
	case 1:
		off = (size - len) & ~(uint64_t)(align - 1);
		break;
	default:
		off = (R(t) % (size - len + 1)) & ~(uint64_t)(align - 1);
		break;
	}
	return t->rva[b] + off;
}

/* A rectangle of a COPY: inside the thread's buffers or not. */
static struct vmgpu_cmd_copy rnd_rect(struct thr *t, const struct rpk *k,
				      bool replicate)
{
	uint32_t width = chance(t, 80) ? 1 + R32(t, 256) : 1 + R32(t, 16384);
	uint32_t height = chance(t, 70) ? 1 : 1 + R32(t, 4);
	uint32_t spitch = width + R32(t, 64), dpitch = width + R32(t, 64);
	uint64_t src, dst;

	if (k->wild_idx && chance(t, 20)) {
		width = chance(t, 50) ? 0 : rnd_word(t);
		height = chance(t, 50) ? 0 : rnd_word(t);
		spitch = R32(t, width + 1);
	}
	if (replicate)
		dpitch = spitch;
	src = rnd_cmd_addr(t, k, false, 1,
			   (uint64_t)(height - 1) * spitch + width);
	dst = replicate ? src :
	      rnd_cmd_addr(t, k, true, 1, (uint64_t)(height - 1) * dpitch + width);
	return vmgpu_encode_copy(src, dst, width, height, spitch, dpitch);
}

static void rnd_dispatch(struct thr *t, struct rpk *k)
{
	uint32_t grid[3], block[3], origin[3] = { 0, 0, 0 }, total[3], i;
	uint32_t s = R32(t, RND_SLOTS), shared = 0, prio = 0, args_bytes;
	const uint32_t *tp = NULL;
	struct vmgpu_cmd_dispatch d;
	uint64_t code, args;

	if (k->tame || chance(t, 70))	/* a new kernel, or the slot as it is */
		rnd_kernel(t, s, k->tame);
	code = t->rva[RB_EXEC] + s * RND_SLOT_BYTES;
	args = t->rva[RB_ARGS];
	args_bytes = t->rslot_args[s];
	if (!k->tame && chance(t, 5))	/* the image runs off the buffer */
		code = t->rva[RB_EXEC] + RND_SLOTS * RND_SLOT_BYTES -
		       VMGPU_EXEC_HEADER_BYTES - VMGPU_INSN_BYTES;
	if (k->wild_addr && chance(t, 30))
		code = chance(t, 80) ? rnd_addr(t) & ~7ull : rnd_addr(t);
	if (k->wild_addr && chance(t, 20)) {
		args = rnd_addr(t) & ~3ull;
		args_bytes = 4 * R32(t, VMGPU_MAX_ARGS_BYTES / 4 + 2);
	} else if (!k->tame && chance(t, 5)) {
		args_bytes = 4 * R32(t, RND_ARGS / 4 + 1);	/* wrong size */
	}
	if (!args_bytes && !k->wild_addr)
		args = 0;
	for (i = 0; i < 3; i++) {
		grid[i] = i ? 1 + (chance(t, 15) ? R32(t, 2) : 0) : 1 + R32(t, 4);
		block[i] = i ? 1 : 32 * (1 + R32(t, 4));
	}
	if (chance(t, 15))
		block[0] = 1 + R32(t, 64);	/* a partial warp */
	if (k->wild_idx && chance(t, 30)) {
		switch (R32(t, 6)) {
		case 0:
			grid[R32(t, 3)] = rnd_word(t);
			break;
		case 1:
			block[0] = chance(t, 50) ? VMGPU_MAX_BLOCK_THREADS :
				   VMGPU_MAX_BLOCK_THREADS + 1 + R32(t, 64);
			break;
		case 2:
			block[R32(t, 3)] = rnd_word(t);
			break;
		case 3:
			for (i = 0; i < 3; i++) {
				origin[i] = R32(t, 4);
				total[i] = origin[i] + grid[i] - R32(t, 2);
			}
			tp = chance(t, 50) ? total : NULL;
			break;
		case 4:
			shared = chance(t, 50) ?
				 4 * R32(t, VMGPU_MAX_SHARED_BYTES / 4 + 2) :
				 rnd_word(t);
			break;
		default:
			prio = R32(t, VMGPU_PRIORITY_LEVELS + 2);
			break;
		}
	}
	d = vmgpu_encode_dispatch(code, args, args_bytes, grid, block, origin,
				  tp, shared, prio);
	if (chance(t, 10))
		d.flags = R32(t, VMGPU_DISPATCH_F_ALL + 1);
	if (k->wild_idx && chance(t, 5))
		d.flags = rnd_word(t);
	RPK_PUT(k, d);
	k->disp++;
}

/* One command of a random packet (not END). */
static void rnd_command(struct thr *t, struct rpk *k)
{
	static const uint8_t weight[VMGPU_CMD_NUM_OPS] = {
		[VMGPU_CMD_NOP] = 2, [VMGPU_CMD_SET_STATE] = 5,
		[VMGPU_CMD_DISPATCH] = 24, [VMGPU_CMD_SYNC] = 10,
		[VMGPU_CMD_BARRIER] = 4, [VMGPU_CMD_TIMESTAMP] = 4,
		[VMGPU_CMD_WRITE_VALUE] = 6, [VMGPU_CMD_WAIT_VALUE] = 5,
		[VMGPU_CMD_COPY] = 5, [VMGPU_CMD_LAUNCH_TMD] = 7,
		[VMGPU_CMD_DEP_SIGNAL] = 5, [VMGPU_CMD_DEP_WAIT] = 5,
		[VMGPU_CMD_SKIP_IF] = 5, [VMGPU_CMD_TAKE] = 4,
		[VMGPU_CMD_COPY_ASYNC] = 5,
	};
	uint32_t op, r, sum = 0, i;

	for (op = 0; op < VMGPU_CMD_NUM_OPS; op++)
		sum += weight[op];
	r = R32(t, sum);
	for (op = 0; r >= weight[op]; op++)
		r -= weight[op];
	/* A clean SYNC or SKIP_IF needs an earlier dispatch. */
	if (!k->disp && !k->wild_idx &&
	    (op == VMGPU_CMD_SYNC || (op == VMGPU_CMD_SKIP_IF && chance(t, 50))))
		op = VMGPU_CMD_DISPATCH;

	switch (op) {
	case VMGPU_CMD_NOP: {
		struct vmgpu_cmd_nop c = vmgpu_encode_nop();

		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_BARRIER: {
		struct vmgpu_cmd_barrier c = vmgpu_encode_barrier();

		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_SET_STATE: {
		uint32_t key = 1 + R32(t, VMGPU_STATE_SM_MASK_HI), v;
		struct vmgpu_cmd_set_state c;

		if (k->wild_idx && chance(t, 20))
			key = chance(t, 50) ? 0 : rnd_word(t);
		if (k->tame)	/* nothing that makes its tasks fail */
			key = chance(t, 50) ? VMGPU_STATE_LAUNCH_QUOTA :
			      VMGPU_STATE_DEFAULT_PRIORITY;
		switch (key) {
		case VMGPU_STATE_INSTR_BUDGET:
			v = 1 + R32(t, RND_MAX_BUDGET);
			break;
		case VMGPU_STATE_DEFAULT_PRIORITY:
			v = k->tame ? 0 : R32(t, VMGPU_PRIORITY_LEVELS + 2);
			break;
		case VMGPU_STATE_LAUNCH_QUOTA:
			v = R32(t, 8);
			break;
		default:
			v = chance(t, 30) ? 0 : chance(t, 50) ? 1u << R32(t, 4) :
			    (uint32_t)R(t);
			break;
		}
		c = vmgpu_encode_set_state(key, v);
		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_DISPATCH:
		rnd_dispatch(t, k);
		break;
	case VMGPU_CMD_LAUNCH_TMD: {
		struct vmgpu_cmd_launch_tmd c;
		uint64_t va;

		/* Tame: the packet's task or queue task (for ENQ). */
		i = k->tame ? (chance(t, 50) ? k->tmd_task : k->tmd_queue) :
		    R32(t, RND_TMDS);
		if (!k->tame && chance(t, 60))
			rnd_tmd(t, i, false, TMD_ANY);
		va = t->rva[RB_ARGS] + RND_TMD_OFF + VMGPU_TMD_BYTES * i;
		if (k->wild_addr && chance(t, 35))
			va = chance(t, 80) ? rnd_addr(t) & ~7ull : rnd_addr(t);
		c = vmgpu_encode_launch_tmd(va);
		RPK_PUT(k, c);
		k->disp++;
		break;
	}
	case VMGPU_CMD_SYNC: {
		uint32_t prod = k->disp ? R32(t, k->disp) : 0;
		uint32_t cons = k->disp + R32(t, 2);
		struct vmgpu_cmd_sync c;

		if (k->wild_idx) {
			if (chance(t, 60))
				cons = rnd_index(t, k->disp);
			if (chance(t, 40))
				prod = rnd_index(t, k->disp);
		}
		rpk_names(k, cons);
		c = vmgpu_encode_sync(cons, prod);
		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_TIMESTAMP: {
		struct vmgpu_cmd_timestamp c =
			vmgpu_encode_timestamp(rnd_cmd_addr(t, k, true, 8, 8));

		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_WRITE_VALUE: {
		/* Into the kernels too, when they are writable. */
		struct vmgpu_cmd_write_value c =
			vmgpu_encode_write_value(rnd_cmd_addr(t, k, true, 4, 4),
						 rnd_word(t));

		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_WAIT_VALUE: {
		/* Conditions every word satisfies: the wait ends at once. */
		static const uint32_t conds[5][3] = {	/* op, value, mask */
			{ VMGPU_WAIT_GE, 0, 0 }, { VMGPU_WAIT_LE, 0xffffffffu, 0 },
			{ VMGPU_WAIT_EQ, 0, 0 }, { VMGPU_WAIT_NE, 1, 0 },
			{ VMGPU_WAIT_LT, 1, 0 },
		};
		const uint32_t *cd = conds[R32(t, 5)];
		uint32_t mask = cd[0] == VMGPU_WAIT_GE || cd[0] == VMGPU_WAIT_LE ?
				(uint32_t)R(t) : 0;
		struct vmgpu_cmd_wait_value c =
			vmgpu_encode_wait_value(rnd_cmd_addr(t, k, false, 4, 4),
						cd[0], cd[1], mask);

		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_COPY: {
		struct vmgpu_cmd_copy c = rnd_rect(t, k, false);

		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_COPY_ASYNC: {
		bool repl = chance(t, 25);
		struct vmgpu_cmd_copy rect = rnd_rect(t, k, repl);
		uint64_t after = 0, sig = 0;
		uint32_t ai = 0, si = 0, epoch = 1 + R32(t, 1000);
		struct vmgpu_cmd_copy_async c;

		if (chance(t, 40)) {	/* after an entry of the ready table */
			ai = R32(t, (uint32_t)(rnd_bo_bytes[RB_TAB] / 8));
			after = t->rva[RB_TAB];
			epoch = t->repoch;
		}
		if (chance(t, 40)) {
			si = R32(t, 8);
			sig = rnd_cmd_addr(t, k, true, 8, 64);
		}
		c = vmgpu_encode_copy_async(&rect, epoch, after, ai, sig, si);
		if (repl)
			c.flags |= VMGPU_COPY_REPLICATE;
		if (k->wild_idx && chance(t, 10))
			c.flags = R32(t, 16);
		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_SKIP_IF: {
		uint32_t after = chance(t, 40) || !k->disp ? VMGPU_SKIP_IF_NOW :
				 R32(t, k->disp);
		uint32_t skip = R32(t, 4);
		struct vmgpu_cmd_skip_if c;

		if (k->wild_idx) {
			if (chance(t, 25))
				after = rnd_index(t, k->disp);
			if (chance(t, 25))
				skip = rnd_index(t, 0);
		}
		c = vmgpu_encode_skip_if(rnd_cmd_addr(t, k, false, 4, 4),
					 R32(t, VMGPU_WAIT_NUM_OPS + (k->wild_idx ? 2 : 0)),
					 rnd_word(t), (uint32_t)R(t), after, skip);
		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_DEP_SIGNAL: {
		uint32_t entries = 1 + R32(t, 64), disp = k->disp + R32(t, 2);
		uint32_t region[3] = { 1 + R32(t, 2), 1, 1 };
		struct vmgpu_cmd_dep_signal c;

		if (k->wild_idx && chance(t, 30))
			disp = rnd_index(t, k->disp);
		rpk_names(k, disp);
		c = vmgpu_encode_dep_signal(disp, 1 + R32(t, 1000),
					    rnd_cmd_addr(t, k, true, 8, 8ull * entries),
					    entries, R32(t, entries), region);
		if (k->wild_idx && chance(t, 20))
			c.region[R32(t, 3)] = rnd_word(t);
		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_DEP_WAIT: {
		uint32_t pgrid[3] = { 1 + R32(t, 4), 1 + R32(t, 2), 1 };
		uint32_t cgrid[3], cfirst[3], ccount[3], first = R32(t, 16);
		uint32_t entries, tab = (uint32_t)(rnd_bo_bytes[RB_TAB] / 8);
		struct vmgpu_region_map m;
		struct vmgpu_cmd_dep_wait c;

		memset(&m, 0, sizeof(m));
		m.kind = chance(t, 50) ? VMGPU_MAP_IDENTITY :
			 1 + R32(t, VMGPU_MAP_NUM_KINDS - 1);
		m.policy = R32(t, VMGPU_MAP_NUM_POLICIES);
		for (i = 0; i < 3; i++) {
			cgrid[i] = pgrid[i];
			switch (m.kind) {
			case VMGPU_MAP_OFFSET:
				m.v[i] = (int32_t)R32(t, 5) - 2;
				break;
			case VMGPU_MAP_RADIUS:
				m.v[i] = i < 2 ? (int32_t)R32(t, 3) : 0;
				break;
			case VMGPU_MAP_DOWNSAMPLE:
				m.v[i] = i == 0;
				cgrid[i] = (pgrid[i] + (i == 0)) >> (i == 0);
				break;
			case VMGPU_MAP_SUPERSET:
				m.size[i] = i < 2 ? 1 + R32(t, 2) : 1;
				if (m.size[i] > pgrid[i])
					m.size[i] = pgrid[i];
				break;
			default:
				break;
			}
			cfirst[i] = R32(t, cgrid[i]);
			ccount[i] = 1 + R32(t, cgrid[i] - cfirst[i]);
		}
		if (m.kind == VMGPU_MAP_TABLE) {
			m.table_count = 1 + R32(t, 4);
			m.table_va = rnd_cmd_addr(t, k, false, 8,
						  8ull * m.table_count *
						  vmgpu_region_portions(cgrid));
		}
		entries = first + vmgpu_region_portions(pgrid) + R32(t, 8);
		c = vmgpu_encode_dep_wait(t->repoch,
					  t->rva[RB_TAB] + 8 * R32(t, tab - entries),
					  entries, first, pgrid, cgrid, cfirst,
					  ccount, &m);
		if (k->wild_addr && chance(t, 30))
			c.table_va = rnd_addr(t) & ~7ull;
		if (k->wild_idx && chance(t, 30))
			c.first_index = rnd_index(t, 0);
		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_TAKE: {
		uint32_t pgrid[3] = { 1 + R32(t, 3), 1 + R32(t, 2), 1 };
		uint32_t n = vmgpu_region_portions(pgrid), entries, tmd;
		struct vmgpu_curve cv;
		struct vmgpu_cmd_take c;

		entries = n + R32(t, 8);
		memset(&cv, 0, sizeof(cv));
		cv.kind = VMGPU_CURVE_SERPENTINE;
		cv.flags = R32(t, VMGPU_CURVE_F_ALL + 1);
		cv.band = R32(t, 3);
		cv.start = R32(t, n);
		tmd = R32(t, RND_TMDS);
		if (k->tame)
			rnd_tmd_take(t, tmd, pgrid);
		else if (chance(t, 50))
			rnd_tmd(t, tmd, false, TMD_ANY);
		c = vmgpu_encode_take(1 + R32(t, 1000),
				      t->rva[RB_ARGS] + RND_TMD_OFF +
				      VMGPU_TMD_BYTES * tmd,
				      rnd_cmd_addr(t, k, true, 4, 4ull * n),
				      rnd_cmd_addr(t, k, true, 8, 8ull * entries),
				      entries, R32(t, entries - n + 1),
				      VMGPU_TAKE_NO_WAIT, 1 + R32(t, 8), pgrid,
				      &cv, NULL);
		if (k->wild_idx && chance(t, 15))
			c.inflight = rnd_word(t);
		RPK_PUT(k, c);
		break;
	}
	default:
		break;
	}
}

/* Is [va, va + len) inside buffer @b of the thread? */
static bool rnd_in(const struct thr *t, unsigned int b, uint64_t va,
		   uint64_t len)
{
	return va >= t->rva[b] && va - t->rva[b] <= rnd_bo_bytes[b] &&
	       len <= rnd_bo_bytes[b] - (va - t->rva[b]);
}

/* ... inside a buffer the submit lists (@listed: bits of RB_*)? */
static bool rnd_in_listed(const struct thr *t, unsigned int listed,
			  uint64_t va, uint64_t len)
{
	unsigned int b;

	for (b = 0; b < RB_NUM; b++)
		if ((listed & (1u << b)) && rnd_in(t, b, va, len))
			return true;
	return false;
}

/* Does (word & mask) OP value hold for every word? */
static bool rnd_always(uint32_t op, uint32_t value, uint32_t mask)
{
	if ((op == VMGPU_WAIT_GE && !value) ||
	    (op == VMGPU_WAIT_LE && value == 0xffffffffu))
		return true;
	if (mask)
		return false;
	return (op == VMGPU_WAIT_EQ && !value) || (op == VMGPU_WAIT_NE && value) ||
	       op == VMGPU_WAIT_LE || (op == VMGPU_WAIT_LT && value);
}

/*
 * After the mutation: whatever the words now say, nothing may wait for
 * ever and no task may run long (see the comment above RND_SLOT_BYTES).
 * Walks the commands as the driver does; a packet the driver refuses
 * anyway is left as it is from its first malformed command on.
 */
void rnd_fixup(struct thr *t, struct rpk *k, unsigned int listed)
{
	uint32_t i = 0;

	while (i < k->n) {
		uint32_t *c = &k->w[i], op = VMGPU_CMD_OP(c[0]);
		uint32_t len = vmgpu_cmd_len(op);

		if (!len || VMGPU_CMD_LEN(c[0]) != len ||
		    (c[0] & VMGPU_CMD_RESERVED_MASK) || len > k->n - i)
			break;
		switch (op) {
		case VMGPU_CMD_SET_STATE: {
			struct vmgpu_cmd_set_state s;

			memcpy(&s, c, sizeof(s));
			if (s.key == VMGPU_STATE_INSTR_BUDGET &&
			    (!s.value || s.value > RND_MAX_BUDGET))
				s.value = 1 + s.value % RND_MAX_BUDGET;
			memcpy(c, &s, sizeof(s));
			break;
		}
		case VMGPU_CMD_WAIT_VALUE: {
			struct vmgpu_cmd_wait_value w;

			memcpy(&w, c, sizeof(w));
			if (w.op < VMGPU_WAIT_NUM_OPS &&
			    !rnd_always(w.op, w.value, w.mask)) {
				w.op = VMGPU_WAIT_GE;
				w.value = 0;
			}
			memcpy(c, &w, sizeof(w));
			break;
		}
		case VMGPU_CMD_DEP_WAIT: {
			struct vmgpu_cmd_dep_wait w;
			uint64_t bytes;

			memcpy(&w, c, sizeof(w));
			bytes = 8ull * w.entries;
			if (!rnd_in(t, RB_TAB, w.table_va, bytes) &&
			    rnd_in_listed(t, listed, w.table_va, bytes))
				w.table_va = t->rva[RB_TAB];
			if (w.epoch)
				w.epoch = t->repoch;
			memcpy(c, &w, sizeof(w));
			break;
		}
		case VMGPU_CMD_COPY_ASYNC: {
			struct vmgpu_cmd_copy_async a;
			uint64_t e;

			memcpy(&a, c, sizeof(a));
			if (a.flags & VMGPU_COPY_AFTER_ENTRY) {
				e = a.after_table + 8ull * a.after_index;
				if (!rnd_in(t, RB_TAB, e, 8) &&
				    rnd_in_listed(t, listed, e, 8)) {
					a.after_table = t->rva[RB_TAB];
					a.after_index %= rnd_bo_bytes[RB_TAB] / 8;
				}
				if (a.epoch)
					a.epoch = t->repoch;
			}
			memcpy(c, &a, sizeof(a));
			break;
		}
		case VMGPU_CMD_TAKE: {
			struct vmgpu_cmd_take tk;

			memcpy(&tk, c, sizeof(tk));
			tk.wait_index = VMGPU_TAKE_NO_WAIT;
			memset(tk.map, 0, sizeof(tk.map));
			memcpy(c, &tk, sizeof(tk));
			break;
		}
		default:
			break;
		}
		i += len;
	}
}

/*
 * The words of a random packet: the budget, 1-12 commands of any kind
 * (their fields in range, at the edges or wild), END; then, in 30% of
 * packets, a few command words (not headers, not the budget) replaced.
 */
void rnd_build(struct thr *t, struct rpk *k)
{
	struct vmgpu_cmd_set_state budget;
	uint32_t i, n;

	memset(k, 0, sizeof(*k));
	k->tame = chance(t, 30);
	k->wild_addr = !k->tame && chance(t, 35);
	k->wild_idx = !k->tame && chance(t, 35);
	/*
	 * A task and a queue task, in argument slots 0 and 1 (what gentle
	 * kernels LAUNCH and ENQ to); in a tame packet, of tame kernels.
	 */
	k->tmd_task = R32(t, RND_TMDS);
	k->tmd_queue = (k->tmd_task + 1 + R32(t, RND_TMDS - 1)) % RND_TMDS;
	if (k->tame) {
		rnd_tmd(t, k->tmd_task, true, TMD_TASK);
		rnd_tmd(t, k->tmd_queue, true, TMD_QUEUE);
	}
	rnd_args(t, k->tmd_task, k->tmd_queue);

	/* First the budget: every task of the packet ends soon. */
	budget = vmgpu_encode_set_state(VMGPU_STATE_INSTR_BUDGET,
					k->tame ? RND_MAX_BUDGET :
					chance(t, 70) ? 1 + R32(t, 256) :
					chance(t, 80) ? 1 + R32(t, 2048) :
					RND_MAX_BUDGET);
	RPK_PUT(k, budget);
	if (k->tame && chance(t, 60)) {	/* the queue kernels ENQ to */
		struct vmgpu_cmd_launch_tmd q = vmgpu_encode_launch_tmd(
			t->rva[RB_ARGS] + RND_TMD_OFF +
			VMGPU_TMD_BYTES * k->tmd_queue);

		RPK_PUT(k, q);
		k->disp++;
	}
	for (n = 1 + R32(t, 12); n; n--)
		rnd_command(t, k);
	while (k->need > k->disp && !k->wild_idx && chance(t, 80))
		rnd_dispatch(t, k);
	if (!k->wild_idx || chance(t, 95)) {
		struct vmgpu_cmd_end e = vmgpu_encode_end();

		RPK_PUT(k, e);
	}
	/* Random words in the commands (headers and the budget stay). */
	if (!k->tame && chance(t, 40) && k->n > VMGPU_CMD_LEN_SET_STATE + 1) {
		for (n = 1 + R32(t, 4); n; n--) {
			i = VMGPU_CMD_LEN_SET_STATE +
			    R32(t, k->n - VMGPU_CMD_LEN_SET_STATE);
			if (k->hdr[i])
				continue;
			k->w[i] = chance(t, 25) ? k->w[i] ^ (1u << R32(t, 32)) :
				  rnd_word(t);
		}
		add(ST_RND_MUTATED);
	}
}
