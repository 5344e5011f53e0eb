// SPDX-License-Identifier: MIT
/*
 * The vmgpu back end, instruction selection (stage 2 of backend.cpp's
 * list): one kernel's optimised, scalarised LLVM IR to machine
 * instructions over virtual registers of one or two (a pair) 32-bit
 * registers, block by block in layout order. Values, comparisons (a
 * compare read only by branches and selects of its own block becomes a
 * predicate where it is read), arithmetic, casts, memory and atomics,
 * calls of the built-ins, phi copies and control flow. Predicates are set
 * right before the instruction that reads them, so they are never live
 * across IR instructions. Separate from the driver because it is most of
 * the back end; it shares class Backend (backend.h) with the other
 * stages.
 */
#include <algorithm>

#include <llvm/IR/GetElementPtrTypeIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Operator.h>
#include <llvm/Support/MathExtras.h>
#include <llvm/Support/raw_ostream.h>

#include "backend.h"

using namespace llvm;

namespace vmgpu_cc {
namespace backend {

/* The shared-memory form (ISA version 2) of a global atomic. */
static unsigned shared_atomic(unsigned op)
{
	switch (op) {
	case VMGPU_OP_ATOM_ADD: return VMGPU_OP_ATOMS_ADD;
	case VMGPU_OP_ATOM_MIN: return VMGPU_OP_ATOMS_MIN;
	case VMGPU_OP_ATOM_MAX: return VMGPU_OP_ATOMS_MAX;
	case VMGPU_OP_ATOM_MINU: return VMGPU_OP_ATOMS_MINU;
	case VMGPU_OP_ATOM_MAXU: return VMGPU_OP_ATOMS_MAXU;
	case VMGPU_OP_ATOM_XCHG: return VMGPU_OP_ATOMS_XCHG;
	default: return VMGPU_OP_ATOMS_CAS;
	}
}

/* ------------------------------------------------------------------ */
/* Values                                                               */
/* ------------------------------------------------------------------ */

uint32_t Backend::shared_offset(const GlobalVariable *g, const Instruction *at)
{
	auto it = shared_off.find(g);

	if (it != shared_off.end())
		return it->second;
	uint64_t size = DL.getTypeAllocSize(g->getValueType());
	uint64_t align = std::max<uint64_t>(g->getAlign().valueOrOne().value(), 4);
	uint32_t off = uint32_t(alignTo(shared_bytes, align));

	/* init_tables() stores a constant table in whole words: its last
	 * word must be inside the kernel's shared memory too */
	if (is_table(g))
		size = alignTo(size, 4);

	if (off + size > VMGPU_MAX_SHARED_BYTES) {
		error(at, "local memory of kernel '" + F.getName().str() +
		      "' exceeds 48 KiB");
		return 0;
	}
	shared_bytes = uint32_t(off + size);
	shared_off[g] = off;
	return off;
}

int Backend::val(Value *v)
{
	Type *t = v->getType();

	if (auto *ci = dyn_cast<ConstantInt>(v)) {
		unsigned b = ci->getBitWidth();

		if (b > 64) {
			error(nullptr, "integer constant wider than 64 bits");
			return mov_imm(0);
		}
		return const_int(ci->getZExtValue() &
				 (b == 64 ? ~0ull : (1ull << b) - 1), b > 32 ? 64 : 32);
	}
	if (auto *cf = dyn_cast<ConstantFP>(v)) {
		if (!t->isFloatTy()) {
			error(nullptr, "only 32-bit floating point is supported");
			return mov_imm(0);
		}
		return mov_imm(uint32_t(cf->getValueAPF().bitcastToAPInt().getZExtValue()));
	}
	if (isa<ConstantPointerNull>(v) || isa<UndefValue>(v) ||
	    isa<ConstantAggregateZero>(v))
		return const_int(0, bits(t) > 32 ? 64 : 32);
	if (auto *g = dyn_cast<GlobalVariable>(v)) {
		if (g->getAddressSpace() == AS_LOCAL || is_table(g))
			return mov_imm(shared_offset(g, nullptr));
		error(nullptr, "program-scope variable '" + g->getName().str() +
		      "' in address space " +
		      std::to_string(g->getAddressSpace()) +
		      " is not supported (only local variables are)");
		return const_int(0, 64);
	}
	if (auto *ce = dyn_cast<ConstantExpr>(v)) {
		Instruction *tmp = ce->getAsInstruction();
		BasicBlock *bb = const_cast<BasicBlock *>(order[cur]);

		tmp->insertBefore(bb->getTerminator());
		select_inst(*tmp);
		int res = vmap.count(tmp) ? vmap[tmp] : const_int(0, 32);
		vmap.erase(tmp);
		tmp->eraseFromParent();
		return res;
	}
	if (auto *a = dyn_cast<AllocaInst>(v)) {
		auto it = alloca_off.find(a);

		if (it == alloca_off.end()) {
			error(a, "internal: unknown private variable");
			return const_int(0, 64);
		}
		uses_scratch = true;
		return add64i(VR_SCRATCH, int32_t(it->second));
	}
	if (auto *p = dyn_cast<PHINode>(v))
		return phi_reg(p);
	if (auto *a = dyn_cast<Argument>(v)) {
		auto it = byval_off.find(a);

		if (it != byval_off.end()) {
			uses_scratch = true;
			return add64i(VR_SCRATCH, int32_t(it->second));
		}
		if (a->hasByValAttr() || a->getType()->isVectorTy()) {
			error(nullptr, "internal: by-value parameter '" +
			      a->getName().str() + "' used as a whole");
			return const_int(0, 64);
		}
	}
	auto it = vmap.find(v);
	if (it != vmap.end())
		return it->second;
	if (auto *ci = dyn_cast<CmpInst>(v)) {
		/* a fused compare read by something else: materialise here */
		cmp_to_pred(ci, 0);
		return pred_to_reg(0);
	}
	error(dyn_cast<Instruction>(v), "internal: value used before its definition");
	return const_int(0, bits(t) == 64 ? 64 : 32);
}

/* ------------------------------------------------------------------ */
/* 64-bit helpers                                                       */
/* ------------------------------------------------------------------ */

int Backend::shl64c(int a, unsigned s)
{
	s &= 63;
	if (!s)
		return a;
	if (s >= 32) {
		int h = s == 32 ? copy(lo(a)) : alui(VMGPU_OP_SHL, lo(a), s - 32);
		return mkpair(r(mov_imm(0)), r(h));
	}
	int h1 = alui(VMGPU_OP_SHL, hi(a), s);
	int h2 = alui(VMGPU_OP_SHR, lo(a), 32 - s);
	int h = alu(VMGPU_OP_OR, r(h1), r(h2));
	int l = alui(VMGPU_OP_SHL, lo(a), s);
	return mkpair(r(l), r(h));
}

int Backend::shr64c(int a, unsigned s, bool arith)
{
	unsigned sh = arith ? VMGPU_OP_SRA : VMGPU_OP_SHR;

	s &= 63;
	if (!s)
		return a;
	if (s >= 32) {
		int l = s == 32 ? copy(hi(a)) : alui(sh, hi(a), s - 32);
		int h = arith ? alui(VMGPU_OP_SRA, hi(a), 31) : mov_imm(0);
		return mkpair(r(l), r(h));
	}
	int l1 = alui(VMGPU_OP_SHR, lo(a), s);
	int l2 = alui(VMGPU_OP_SHL, hi(a), 32 - s);
	int l = alu(VMGPU_OP_OR, r(l1), r(l2));
	int h = alui(sh, hi(a), s);
	return mkpair(r(l), r(h));
}

int Backend::mul64(int a, int b)
{
	int l = alu(VMGPU_OP_MUL, lo(a), lo(b));
	int h = alu(VMGPU_OP_MULHIU, lo(a), lo(b));
	h = alu3(VMGPU_OP_MAD, lo(a), hi(b), r(h));
	h = alu3(VMGPU_OP_MAD, hi(a), lo(b), r(h));
	return mkpair(r(l), r(h));
}

int Backend::mul64c(int a, uint64_t c)
{
	if (c == 1)
		return a;
	if (isPowerOf2_64(c))
		return shl64c(a, Log2_64(c));
	return mul64(a, const_int(c, 64));
}

/* base (pair) + idx * scale, idx of any integer type */
int Backend::pointer_index(Value *idx, uint64_t scale, int base)
{
	Value *narrow = nullptr;

	/* values of up to 32 bits are zero-extended in their register */
	if (auto *z = dyn_cast<ZExtInst>(idx))
		if (z->getSrcTy()->isIntegerTy() &&
		    z->getSrcTy()->getIntegerBitWidth() <= 32)
			narrow = z->getOperand(0);
	if (narrow && isPowerOf2_64(scale) && scale < (1ull << 32))
		return lea(base, r(val(narrow)), Log2_64(scale));
	/* a sign-extended 32-bit index times 2^s: (x << s, x >>arith (32 - s)) */
	if (auto *sx = dyn_cast<SExtInst>(idx))
		if (sx->getSrcTy()->isIntegerTy(32) && isPowerOf2_64(scale) &&
		    scale < (1ull << 31)) {
			unsigned s = Log2_64(scale);
			int x = val(sx->getOperand(0));
			int l = s ? alui(VMGPU_OP_SHL, r(x), s) : x;
			int h = alui(VMGPU_OP_SRA, r(x), s ? 32 - s : 31);
			return add64(base, mkpair(r(l), r(h)));
		}

	int i64;
	unsigned b = bits(idx->getType());
	int v = val(idx);
	if (b == 64) {
		i64 = v;
	} else {
		int s = sext_narrow(v, b);
		i64 = mkpair(r(s), r(alui(VMGPU_OP_SRA, r(s), 31)));
	}
	return add64(base, mul64c(i64, scale));
}

/* ------------------------------------------------------------------ */
/* Comparisons                                                          */
/* ------------------------------------------------------------------ */

/* A compare read only by branches and selects of its own block is
 * evaluated into a predicate where it is read. */
bool Backend::fused_cmp(const Instruction *i)
{
	if (!isa<CmpInst>(i) || i->getType()->isVectorTy())
		return false;
	for (const User *u : i->users()) {
		auto *ui = dyn_cast<Instruction>(u);

		if (!ui || ui->getParent() != i->getParent())
			return false;
		if (auto *s = dyn_cast<SelectInst>(ui)) {
			if (s->getCondition() != i || s->getTrueValue() == i ||
			    s->getFalseValue() == i)
				return false;
		} else if (!isa<BranchInst>(ui)) {
			return false;
		}
	}
	return true;
}

void Backend::icmp32(ICmpInst::Predicate pr, Value *a, Value *b, unsigned bw,
		     int p)
{
	static const std::map<int, unsigned> ops = {
		{ ICmpInst::ICMP_EQ, VMGPU_OP_SETP_EQ },
		{ ICmpInst::ICMP_NE, VMGPU_OP_SETP_NE },
		{ ICmpInst::ICMP_SLT, VMGPU_OP_SETP_LT },
		{ ICmpInst::ICMP_SLE, VMGPU_OP_SETP_LE },
		{ ICmpInst::ICMP_SGT, VMGPU_OP_SETP_GT },
		{ ICmpInst::ICMP_SGE, VMGPU_OP_SETP_GE },
		{ ICmpInst::ICMP_ULT, VMGPU_OP_SETP_LTU },
		{ ICmpInst::ICMP_ULE, VMGPU_OP_SETP_LEU },
		{ ICmpInst::ICMP_UGT, VMGPU_OP_SETP_GTU },
		{ ICmpInst::ICMP_UGE, VMGPU_OP_SETP_GEU },
	};
	bool sgn = ICmpInst::isSigned(pr);

	if (isa<Constant>(a) && !isa<Constant>(b)) {
		std::swap(a, b);
		pr = ICmpInst::getSwappedPredicate(pr);
	}
	unsigned op = ops.at(pr);
	int va = val(a);
	if (sgn)
		va = sext_narrow(va, bw);
	if (auto *cb = dyn_cast<ConstantInt>(b)) {
		uint32_t c = uint32_t(sgn ? cb->getSExtValue() : cb->getZExtValue());
		setpi(op, p, r(va), c);
		return;
	}
	int vb = val(b);
	if (sgn)
		vb = sext_narrow(vb, bw);
	setp(op, p, r(va), r(vb));
}

void Backend::icmp64(ICmpInst::Predicate pr, int a, int b, int p)
{
	if (pr == ICmpInst::ICMP_EQ || pr == ICmpInst::ICMP_NE) {
		int x = alu(VMGPU_OP_XOR, lo(a), lo(b));
		int y = alu(VMGPU_OP_XOR, hi(a), hi(b));
		int o = alu(VMGPU_OP_OR, r(x), r(y));
		setpi(pr == ICmpInst::ICMP_EQ ? VMGPU_OP_SETP_EQ :
		      VMGPU_OP_SETP_NE, p, r(o), 0);
		return;
	}
	bool sgn = ICmpInst::isSigned(pr);
	ICmpInst::Predicate strict = ICmpInst::getStrictPredicate(pr);
	bool lt = strict == ICmpInst::ICMP_SLT || strict == ICmpInst::ICMP_ULT;
	bool orEq = !ICmpInst::isStrictPredicate(pr);
	unsigned hop = lt ? (sgn ? VMGPU_OP_SETP_LT : VMGPU_OP_SETP_LTU) :
			    (sgn ? VMGPU_OP_SETP_GT : VMGPU_OP_SETP_GTU);
	unsigned lop = lt ? (orEq ? VMGPU_OP_SETP_LEU : VMGPU_OP_SETP_LTU) :
			    (orEq ? VMGPU_OP_SETP_GEU : VMGPU_OP_SETP_GTU);

	setp(hop, PT0, hi(a), hi(b));
	setp(VMGPU_OP_SETP_EQ, PT1, hi(a), hi(b));
	setp(lop, PT2, lo(a), lo(b));
	pred2(VMGPU_OP_PAND, PT1, PT1, PT2);
	pred2(VMGPU_OP_POR, p, PT0, PT1);
}

void Backend::cmp_to_pred(CmpInst *ci, int p)
{
	Value *a = ci->getOperand(0), *b = ci->getOperand(1);

	if (auto *ic = dyn_cast<ICmpInst>(ci)) {
		unsigned bw = bits(a->getType());

		if (bw > 32) {
			int va = val(a), vb = val(b);

			if (ic->isSigned() && bw < 64) {
				va = sext64(va, bw);
				vb = sext64(vb, bw);
			}
			icmp64(ic->getPredicate(), va, vb, p);
		}
		else
			icmp32(ic->getPredicate(), a, b, bw, p);
		return;
	}
	if (!a->getType()->isFloatTy()) {
		error(ci, "only 32-bit floating point is supported");
		return;
	}
	FCmpInst::Predicate pr = ci->getPredicate();
	auto fop = [&](unsigned op, int pd) {
		int va = val(a);

		if (auto *cf = dyn_cast<ConstantFP>(b)) {
			setpi(op, pd, r(va), uint32_t(cf->getValueAPF()
				.bitcastToAPInt().getZExtValue()));
			return;
		}
		setp(op, pd, r(va), r(val(b)));
	};
	auto ord = [&](int pd) {
		int va = val(a), vb = val(b);

		setp(VMGPU_OP_FSETP_EQ, PT0, r(va), r(va));
		setp(VMGPU_OP_FSETP_EQ, PT1, r(vb), r(vb));
		pred2(VMGPU_OP_PAND, pd, PT0, PT1);
	};
	bool negate = false;

	switch (pr) {
	case FCmpInst::FCMP_UEQ: negate = true; pr = FCmpInst::FCMP_ONE; break;
	case FCmpInst::FCMP_UGT: negate = true; pr = FCmpInst::FCMP_OLE; break;
	case FCmpInst::FCMP_UGE: negate = true; pr = FCmpInst::FCMP_OLT; break;
	case FCmpInst::FCMP_ULT: negate = true; pr = FCmpInst::FCMP_OGE; break;
	case FCmpInst::FCMP_ULE: negate = true; pr = FCmpInst::FCMP_OGT; break;
	case FCmpInst::FCMP_UNO: negate = true; pr = FCmpInst::FCMP_ORD; break;
	default: break;
	}
	switch (pr) {
	case FCmpInst::FCMP_OEQ: fop(VMGPU_OP_FSETP_EQ, p); break;
	case FCmpInst::FCMP_OGT: fop(VMGPU_OP_FSETP_GT, p); break;
	case FCmpInst::FCMP_OGE: fop(VMGPU_OP_FSETP_GE, p); break;
	case FCmpInst::FCMP_OLT: fop(VMGPU_OP_FSETP_LT, p); break;
	case FCmpInst::FCMP_OLE: fop(VMGPU_OP_FSETP_LE, p); break;
	case FCmpInst::FCMP_UNE: fop(VMGPU_OP_FSETP_NE, p); break;
	case FCmpInst::FCMP_ORD: ord(p); break;
	case FCmpInst::FCMP_ONE:
		ord(PT2);
		fop(VMGPU_OP_FSETP_NE, p);
		pred2(VMGPU_OP_PAND, p, p, PT2);
		break;
	case FCmpInst::FCMP_TRUE:
	case FCmpInst::FCMP_FALSE: {
		int z = mov_imm(0);
		setpi(pr == FCmpInst::FCMP_TRUE ? VMGPU_OP_SETP_EQ :
		      VMGPU_OP_SETP_NE, p, r(z), 0);
		break;
	}
	default:
		error(ci, "internal: unexpected float comparison");
	}
	if (negate)
		pnot(p, p);
}

void Backend::cond_to_pred(Value *c, int p)
{
	if (auto *ci = dyn_cast<CmpInst>(c)) {
		if (fused_cmp(ci) && !vmap.count(ci)) {
			cmp_to_pred(ci, p);
			return;
		}
	}
	if (auto *k = dyn_cast<ConstantInt>(c)) {
		int z = mov_imm(0);
		setpi(k->isZero() ? VMGPU_OP_SETP_NE : VMGPU_OP_SETP_EQ, p,
		      r(z), 0);
		return;
	}
	setpi(VMGPU_OP_SETP_NE, p, r(val(c)), 0);
}

/* ------------------------------------------------------------------ */
/* Instruction selection                                                */
/* ------------------------------------------------------------------ */

void Backend::binop(BinaryOperator &i)
{
	Type *t = i.getType();
	Value *a = i.getOperand(0), *b = i.getOperand(1);
	unsigned bw = bits(t);
	auto opc = i.getOpcode();

	if (t->isFloatTy()) {
		unsigned op;

		switch (opc) {
		case Instruction::FAdd: op = VMGPU_OP_FADD; break;
		case Instruction::FSub: op = VMGPU_OP_FSUB; break;
		case Instruction::FMul: op = VMGPU_OP_FMUL; break;
		case Instruction::FDiv: op = VMGPU_OP_FDIV; break;
		default:
			error(&i, "floating-point remainder is not supported; "
			      "use fmod()");
			return;
		}
		if ((opc == Instruction::FAdd || opc == Instruction::FMul) &&
		    isa<ConstantFP>(a) && !isa<ConstantFP>(b))
			std::swap(a, b);
		if (auto *cf = dyn_cast<ConstantFP>(b)) {
			vmap[&i] = alui(op, r(val(a)), uint32_t(cf->getValueAPF()
				.bitcastToAPInt().getZExtValue()));
			return;
		}
		vmap[&i] = alu(op, r(val(a)), r(val(b)));
		return;
	}
	if (!t->isIntegerTy() || !type_ok(t)) {
		error(&i, "operation on an unsupported type");
		return;
	}
	bool commut = i.isCommutative();
	if (commut && isa<ConstantInt>(a) && !isa<ConstantInt>(b))
		std::swap(a, b);

	if (bw > 32) {
		int va = val(a);
		auto *cb = dyn_cast<ConstantInt>(b);
		int res;

		if (opc == Instruction::AShr && bw < 64)
			va = sext64(va, bw);
		if (bw < 64 && cb && (opc == Instruction::Add ||
				      opc == Instruction::Sub ||
				      opc == Instruction::Mul))
			cb = nullptr;	/* the constant is not sign-correct */

		switch (opc) {
		case Instruction::Add:
			res = cb ? add64_const(va, cb->getSExtValue()) :
				   add64(va, val(b));
			break;
		case Instruction::Sub:
			res = cb && cb->getSExtValue() != INT64_MIN ?
			      add64_const(va, -cb->getSExtValue()) :
			      add64(va, neg64(val(b)));
			break;
		case Instruction::Mul:
			res = cb ? mul64c(va, cb->getZExtValue()) :
				   mul64(va, val(b));
			break;
		case Instruction::And:
		case Instruction::Or:
		case Instruction::Xor: {
			unsigned op = opc == Instruction::And ? VMGPU_OP_AND :
				      opc == Instruction::Or ? VMGPU_OP_OR :
				      VMGPU_OP_XOR;
			if (auto *kb = dyn_cast<ConstantInt>(b)) {
				uint64_t k = kb->getZExtValue();
				res = mkpair(r(alui(op, lo(va), uint32_t(k))),
					     r(alui(op, hi(va), uint32_t(k >> 32))));
				break;
			}
			int vb = val(b);
			res = mkpair(r(alu(op, lo(va), lo(vb))),
				     r(alu(op, hi(va), hi(vb))));
			break;
		}
		case Instruction::Shl:
		case Instruction::LShr:
		case Instruction::AShr: {
			if (cb) {
				unsigned s = unsigned(cb->getZExtValue());
				res = opc == Instruction::Shl ? shl64c(va, s) :
				      shr64c(va, s, opc == Instruction::AShr);
				break;
			}
			/* Shifts by 32 or more give 0 (shl/shr) in the ISA,
			 * which makes the general case branch-free. */
			int s = val(b);
			int s32 = alui(VMGPU_OP_SUB, lo(s), 32);
			int r32 = alu(VMGPU_OP_SUB, r(mov_imm(32)), lo(s));
			if (opc == Instruction::Shl) {
				int h = alu(VMGPU_OP_SHL, hi(va), lo(s));
				h = alu(VMGPU_OP_OR, r(h),
					r(alu(VMGPU_OP_SHR, lo(va), r(r32))));
				h = alu(VMGPU_OP_OR, r(h),
					r(alu(VMGPU_OP_SHL, lo(va), r(s32))));
				int l = alu(VMGPU_OP_SHL, lo(va), lo(s));
				res = mkpair(r(l), r(h));
			} else {
				bool ar = opc == Instruction::AShr;
				int l = alu(VMGPU_OP_SHR, lo(va), lo(s));
				l = alu(VMGPU_OP_OR, r(l),
					r(alu(VMGPU_OP_SHL, hi(va), r(r32))));
				int x = alu(ar ? VMGPU_OP_SRA : VMGPU_OP_SHR,
					    hi(va), r(s32));
				if (ar) {
					setpi(VMGPU_OP_SETP_GEU, PT0, lo(s), 32);
					x = sel(PT0, r(x), r(mov_imm(0)));
				}
				l = alu(VMGPU_OP_OR, r(l), r(x));
				int h = alu(ar ? VMGPU_OP_SRA : VMGPU_OP_SHR,
					    hi(va), lo(s));
				res = mkpair(r(l), r(h));
			}
			break;
		}
		default:
			error(&i, "64-bit integer division and remainder are "
			      "not supported; use 32-bit operands");
			return;
		}
		if (bw < 64 && opc != Instruction::And && opc != Instruction::Or &&
		    opc != Instruction::Xor && opc != Instruction::LShr)
			res = mask64(res, bw);
		vmap[&i] = res;
		return;
	}

	unsigned op;
	bool sgn_in = false, mask_out = false;
	switch (opc) {
	case Instruction::Add: op = VMGPU_OP_ADD; mask_out = true; break;
	case Instruction::Sub: op = VMGPU_OP_SUB; mask_out = true; break;
	case Instruction::Mul: op = VMGPU_OP_MUL; mask_out = true; break;
	case Instruction::SDiv: op = VMGPU_OP_DIV; sgn_in = mask_out = true; break;
	case Instruction::UDiv: op = VMGPU_OP_DIVU; break;
	case Instruction::SRem: op = VMGPU_OP_REM; sgn_in = mask_out = true; break;
	case Instruction::URem: op = VMGPU_OP_REMU; break;
	case Instruction::And: op = VMGPU_OP_AND; break;
	case Instruction::Or: op = VMGPU_OP_OR; break;
	case Instruction::Xor: op = VMGPU_OP_XOR; break;
	case Instruction::Shl: op = VMGPU_OP_SHL; mask_out = true; break;
	case Instruction::LShr: op = VMGPU_OP_SHR; break;
	case Instruction::AShr: op = VMGPU_OP_SRA; mask_out = true; break;
	default:
		error(&i, "unsupported operation");
		return;
	}
	int va = val(a);
	if ((sgn_in || opc == Instruction::AShr) && bw < 32)
		va = sext_narrow(va, bw);
	int res;
	auto *cb = dyn_cast<ConstantInt>(b);
	if (cb && !(sgn_in && bw < 32)) {
		res = alui(op, r(va), uint32_t(cb->getZExtValue()));
	} else if (cb) {
		res = alui(op, r(va), uint32_t(cb->getSExtValue()));
	} else {
		int vb = val(b);
		if (sgn_in && bw < 32)
			vb = sext_narrow(vb, bw);
		res = alu(op, r(va), r(vb));
	}
	if (mask_out)
		res = mask_narrow(res, bw);
	vmap[&i] = res;
}

void Backend::cast_inst(CastInst &i)
{
	Value *s = i.getOperand(0);
	Type *st = s->getType(), *dt = i.getType();
	unsigned sb = bits(st), db = bits(dt);

	switch (i.getOpcode()) {
	case Instruction::Trunc:
		if (sb > 32 && db > 32)
			vmap[&i] = mask64(val(s), db);
		else if (sb > 32)
			vmap[&i] = db == 32 ? copy(lo(val(s))) :
				   alui(VMGPU_OP_AND, lo(val(s)), db == 1 ? 1 : (1u << db) - 1);
		else
			vmap[&i] = mask_narrow(val(s), db);
		return;
	case Instruction::ZExt:
		if (db > 32 && sb <= 32)
			vmap[&i] = mkpair(r(val(s)), r(mov_imm(0)));
		else
			vmap[&i] = copy(r(val(s)));
		return;
	case Instruction::SExt: {
		int v0 = val(s);
		if (sb > 32) {
			vmap[&i] = mask64(sext64(v0, sb), db);
			return;
		}
		int v = sext_narrow(v0, sb);
		if (db > 32)
			vmap[&i] = mask64(mkpair(r(v), r(alui(VMGPU_OP_SRA, r(v), 31))), db);
		else
			vmap[&i] = mask_narrow(v == v0 ? copy(r(v)) : v, db);
		return;
	}
	case Instruction::FPToSI:
	case Instruction::FPToUI:
		if (!st->isFloatTy() || db > 32)
			break;
		vmap[&i] = mask_narrow(unary(i.getOpcode() == Instruction::FPToSI ?
					     VMGPU_OP_F2I : VMGPU_OP_F2U,
					     r(val(s))), db);
		return;
	case Instruction::SIToFP:
	case Instruction::UIToFP: {
		if (!dt->isFloatTy() || sb > 32)
			break;
		bool sg = i.getOpcode() == Instruction::SIToFP;
		int v = val(s);
		if (sg)
			v = sext_narrow(v, sb);
		vmap[&i] = unary(sg ? VMGPU_OP_I2F : VMGPU_OP_U2F, r(v));
		return;
	}
	case Instruction::BitCast:
		if (sb != db || !type_ok(st) || !type_ok(dt))
			break;
		vmap[&i] = copy(r(val(s)));
		return;
	case Instruction::PtrToInt:
		if (is_table(s)) {
			/* a program-scope constant array's address: its
			 * 32-bit offset in shared memory (a number; its
			 * alignment is the array's) */
			int v = val(s);
			vmap[&i] = db == 64 ? mkpair(r(v), r(mov_imm(0))) :
				   mask_narrow(v, db);
			return;
		}
		[[fallthrough]];
	case Instruction::IntToPtr:
		if (sb == db)
			vmap[&i] = copy(r(val(s)));
		else if (sb == 64)
			vmap[&i] = mask_narrow(copy(lo(val(s))), db);
		else if (db == 64)
			vmap[&i] = mkpair(r(val(s)), r(mov_imm(0)));
		else
			vmap[&i] = mask_narrow(val(s), db);
		return;
	case Instruction::AddrSpaceCast:
		if ((st->getPointerAddressSpace() == AS_LOCAL) !=
		    (dt->getPointerAddressSpace() == AS_LOCAL)) {
			error(&i, "casts between local and other address "
			      "spaces are not supported");
			return;
		}
		vmap[&i] = copy(r(val(s)));
		return;
	default:
		break;
	}
	if (st->isDoubleTy() || dt->isDoubleTy())
		error(&i, "double precision is not supported by the device");
	else if ((st->isFloatTy() || dt->isFloatTy()) && (sb == 64 || db == 64))
		error(&i, "conversions between 64-bit integers and float are "
		      "not supported yet");
	else
		error(&i, "unsupported conversion");
}

/* Address of a load/store/atomic: base register + constant offset. */
bool Backend::addr_of(Value *ptr, int &base, int32_t &off, unsigned &as,
		      const Instruction *at)
{
	as = ptr->getType()->getPointerAddressSpace();
	off = 0;
	if (as != AS_PRIVATE && as != AS_GLOBAL && as != AS_CONSTANT &&
	    as != AS_LOCAL) {
		error(at, "pointer to an unsupported address space");
		return false;
	}
	if (auto *a = dyn_cast<AllocaInst>(ptr)) {
		uses_scratch = true;
		base = VR_SCRATCH;
		off = int32_t(alloca_off[a]);
		return true;
	}
	if (is_table(ptr))
		as = AS_LOCAL;
	if (auto *a = dyn_cast<Argument>(ptr->stripPointerCasts())) {
		auto it = byval_off.find(a);

		if (it != byval_off.end()) {
			uses_scratch = true;
			base = VR_SCRATCH;
			off = int32_t(it->second);
			return true;
		}
	}
	if (auto *g = dyn_cast<GEPOperator>(ptr)) {
		APInt c(64, 0);
		Value *bp = g->getPointerOperand();

		if (g->accumulateConstantOffset(DL, c) && c.isSignedIntN(31) &&
		    !isa<ConstantExpr>(ptr)) {
			if (auto *a = dyn_cast<AllocaInst>(bp)) {
				uses_scratch = true;
				base = VR_SCRATCH;
				off = int32_t(alloca_off[a] + c.getSExtValue());
				return true;
			}
			if (auto *a = dyn_cast<Argument>(bp))
				if (byval_off.count(a)) {
					uses_scratch = true;
					base = VR_SCRATCH;
					off = int32_t(byval_off[a] + c.getSExtValue());
					return true;
				}
			if (auto *gv = dyn_cast<GlobalVariable>(bp->stripPointerCasts())) {
				if (as == AS_LOCAL) {
					base = mov_imm(shared_offset(gv, at));
					off = int32_t(c.getSExtValue());
					return true;
				}
			} else {
				base = val(bp);
				off = int32_t(c.getSExtValue());
				return true;
			}
		}
	}
	base = val(ptr);
	return true;
}

void Backend::memop(Instruction &i)
{
	int base;
	int32_t off;
	unsigned as;

	if (auto *ld = dyn_cast<LoadInst>(&i)) {
		Type *t = ld->getType();
		unsigned b = bits(t);

		if (byval_load(*ld))
			return;

		if (!type_ok(t) || (t->isIntegerTy() && b != 1 && b != 8 &&
				    b != 16 && b != 32 && b != 64)) {
			error(&i, t->isDoubleTy() ? "double precision is not "
			      "supported by the device" : "load of an "
			      "unsupported type");
			return;
		}
		if (!addr_of(ld->getPointerOperand(), base, off, as, &i))
			return;
		bool sh = as == AS_LOCAL;
		unsigned al = unsigned(ld->getAlign().value());
		if (b > 8 && al < b / 8) {
			/* under-aligned (vstore2 at an odd address, loops
			 * LLVM merged): pieces of the alignment, shifted
			 * into place; the ISA's accesses must be aligned */
			unsigned pb = al * 8, lo = -1u, hi = -1u;
			for (unsigned k = 0; k < b / pb; k++) {
				int d = newv(1);
				MI &m = emit(pb == 8 ? (sh ? VMGPU_OP_LDS_U8 : VMGPU_OP_LD_U8) :
					     pb == 16 ? (sh ? VMGPU_OP_LDS_U16 : VMGPU_OP_LD_U16) :
					     (sh ? VMGPU_OP_LDS_32 : VMGPU_OP_LD_32));
				m.d = d;
				m.a = base;
				m.immv = uint32_t(off) + k * al;
				unsigned at = k * pb % 32;
				unsigned &w = k * pb < 32 ? lo : hi;
				if (at)
					d = alui(VMGPU_OP_SHL, r(d), at);
				w = w == -1u ? unsigned(d) : unsigned(alu(VMGPU_OP_OR,
							r(int(w)), r(d)));
			}
			vmap[&i] = b == 64 ? mkpair(r(int(lo)), r(int(hi))) : int(lo);
			return;
		}
		unsigned op = b <= 8 ? (sh ? VMGPU_OP_LDS_U8 : VMGPU_OP_LD_U8) :
			      b == 16 ? (sh ? VMGPU_OP_LDS_U16 : VMGPU_OP_LD_U16) :
			      b == 32 ? (sh ? VMGPU_OP_LDS_32 : VMGPU_OP_LD_32) :
			      (sh ? VMGPU_OP_LDS_64 : VMGPU_OP_LD_64);
		int d = newv(b == 64 ? 2 : 1);
		MI &m = emit(op);
		m.d = d;
		m.a = base;
		m.immv = uint32_t(off);
		vmap[&i] = b == 1 ? mask_narrow(d, 1) : d;
		return;
	}
	if (auto *st = dyn_cast<StoreInst>(&i)) {
		Value *v = st->getValueOperand();
		Type *t = v->getType();
		unsigned b = bits(t);

		if (!type_ok(t) || (t->isIntegerTy() && b != 1 && b != 8 &&
				    b != 16 && b != 32 && b != 64)) {
			error(&i, t->isDoubleTy() ? "double precision is not "
			      "supported by the device" : "store of an "
			      "unsupported type");
			return;
		}
		int vv = val(v);
		if (!addr_of(st->getPointerOperand(), base, off, as, &i))
			return;
		bool sh = as == AS_LOCAL;
		unsigned al = unsigned(st->getAlign().value());
		if (b > 8 && al < b / 8) {
			/* under-aligned: pieces of the alignment */
			unsigned pb = al * 8;
			for (unsigned k = 0; k < b / pb; k++) {
				R w = b == 64 ? (k * pb < 32 ? lo(vv) : hi(vv)) : r(vv);
				int x = k * pb % 32 ? alui(VMGPU_OP_SHR, w, k * pb % 32) :
					-1;
				MI &m = emit(pb == 8 ? (sh ? VMGPU_OP_STS_8 : VMGPU_OP_ST_8) :
					     pb == 16 ? (sh ? VMGPU_OP_STS_16 : VMGPU_OP_ST_16) :
					     (sh ? VMGPU_OP_STS_32 : VMGPU_OP_ST_32));
				m.a = base;
				if (x >= 0) {
					m.b = x;
				} else {
					m.b = w.v;
					m.bh = w.h;
				}
				m.immv = uint32_t(off) + k * al;
			}
			return;
		}
		unsigned op = b <= 8 ? (sh ? VMGPU_OP_STS_8 : VMGPU_OP_ST_8) :
			      b == 16 ? (sh ? VMGPU_OP_STS_16 : VMGPU_OP_ST_16) :
			      b == 32 ? (sh ? VMGPU_OP_STS_32 : VMGPU_OP_ST_32) :
			      (sh ? VMGPU_OP_STS_64 : VMGPU_OP_ST_64);
		MI &m = emit(op);
		m.a = base;
		m.b = vv;
		m.immv = uint32_t(off);
		return;
	}
	Value *ptr = isa<AtomicRMWInst>(i) ? cast<AtomicRMWInst>(i).getPointerOperand() :
		     cast<AtomicCmpXchgInst>(i).getPointerOperand();
	Type *vt = isa<AtomicRMWInst>(i) ? i.getType() :
		   cast<AtomicCmpXchgInst>(i).getCompareOperand()->getType();
	unsigned pas = ptr->getType()->getPointerAddressSpace();

	bool sh = pas == AS_LOCAL;

	if (sh && opts.isa < 2) {
		error(&i, "atomics on local memory need ISA version 2; "
		      "compiling for ISA version " + std::to_string(opts.isa));
		return;
	}
	if (sh)
		need_isa = std::max(need_isa, 2u);	/* atoms.* */
	if (pas == AS_PRIVATE) {
		error(&i, "atomics on private memory are not supported");
		return;
	}
	if (bits(vt) != 32) {
		error(&i, "64-bit atomics are not supported: the ISA's "
		      "atomics are 32-bit");
		return;
	}
	if (auto *rmw = dyn_cast<AtomicRMWInst>(&i)) {
		unsigned op;
		int v = val(rmw->getValOperand());

		switch (rmw->getOperation()) {
		case AtomicRMWInst::Add: op = VMGPU_OP_ATOM_ADD; break;
		case AtomicRMWInst::Sub:
			op = VMGPU_OP_ATOM_ADD;
			v = unary(VMGPU_OP_NEG, r(v));
			break;
		case AtomicRMWInst::Xchg: op = VMGPU_OP_ATOM_XCHG; break;
		case AtomicRMWInst::Min: op = VMGPU_OP_ATOM_MIN; break;
		case AtomicRMWInst::Max: op = VMGPU_OP_ATOM_MAX; break;
		case AtomicRMWInst::UMin: op = VMGPU_OP_ATOM_MINU; break;
		case AtomicRMWInst::UMax: op = VMGPU_OP_ATOM_MAXU; break;
		case AtomicRMWInst::Or:
		case AtomicRMWInst::Xor:
		case AtomicRMWInst::And: {
			/* InstCombine turns an atomic add of 0 (a read)
			 * into "or 0"; and/or/xor themselves are loops
			 * in the library */
			auto *k = dyn_cast<ConstantInt>(rmw->getValOperand());
			bool idem = k && (rmw->getOperation() == AtomicRMWInst::And ?
					  k->isMinusOne() : k->isZero());
			if (idem) {
				op = VMGPU_OP_ATOM_ADD;
				v = mov_imm(0);
				break;
			}
			error(&i, "this atomic operation is not supported");
			return;
		}
		default:
			error(&i, "this atomic operation is not supported");
			return;
		}
		if (!addr_of(ptr, base, off, as, &i))
			return;
		if (sh)
			op = shared_atomic(op);
		int d = newv(1);
		MI &m = emit(op);
		m.d = d;
		m.a = base;
		m.b = v;
		m.immv = uint32_t(off);
		vmap[&i] = d;
		return;
	}
	auto *cx = cast<AtomicCmpXchgInst>(&i);
	int cmpv = val(cx->getCompareOperand());
	int newval = val(cx->getNewValOperand());
	base = val(ptr);
	int d = newv(1);
	MI &m = emit(sh ? VMGPU_OP_ATOMS_CAS : VMGPU_OP_ATOM_CAS);
	m.d = d;
	m.a = base;
	m.b = cmpv;
	m.c = newval;
	/* { old, success } as a pair */
	setp(VMGPU_OP_SETP_EQ, 0, r(d), r(cmpv));
	vmap[&i] = mkpair(r(d), r(pred_to_reg(0)));
}

void Backend::call(CallInst &i)
{
	Function *f = i.getCalledFunction();

	if (!f) {
		error(&i, "indirect calls are not supported");
		return;
	}
	StringRef n = f->getName();
	if (auto *ii = dyn_cast<IntrinsicInst>(&i)) {
		Intrinsic::ID id = ii->getIntrinsicID();
		Type *t = i.getType();
		auto arg = [&](unsigned k) { return r(val(i.getArgOperand(k))); };

		switch (id) {
		case Intrinsic::dbg_declare:
		case Intrinsic::dbg_value:
		case Intrinsic::dbg_label:
		case Intrinsic::lifetime_start:
		case Intrinsic::lifetime_end:
		case Intrinsic::assume:
		case Intrinsic::experimental_noalias_scope_decl:
		case Intrinsic::donothing:
		case Intrinsic::invariant_start:
		case Intrinsic::invariant_end:
			return;
		default:
			break;
		}
		if (t->isFloatTy()) {
			switch (id) {
			case Intrinsic::fma:
			case Intrinsic::fmuladd:
				vmap[&i] = alu3(VMGPU_OP_FFMA, arg(0), arg(1), arg(2));
				return;
			case Intrinsic::sqrt:
				vmap[&i] = unary(VMGPU_OP_FSQRT, arg(0));
				return;
			case Intrinsic::fabs:
				vmap[&i] = unary(VMGPU_OP_FABS, arg(0));
				return;
			case Intrinsic::minnum:
				vmap[&i] = alu(VMGPU_OP_FMIN, arg(0), arg(1));
				return;
			case Intrinsic::maxnum:
				vmap[&i] = alu(VMGPU_OP_FMAX, arg(0), arg(1));
				return;
			case Intrinsic::copysign: {
				int m = alui(VMGPU_OP_AND, arg(0), 0x7fffffff);
				int s = alui(VMGPU_OP_AND, arg(1), 0x80000000);
				vmap[&i] = alu(VMGPU_OP_OR, r(m), r(s));
				return;
			}
			default:
				break;
			}
		}
		if (t->isIntegerTy() && bits(t) > 32 && id == Intrinsic::abs) {
			unsigned bw = bits(t);
			int x = sext64(arg(0).v, bw);
			int ng = neg64(x);
			setpi(VMGPU_OP_SETP_LT, 1, hi(x), 0);
			vmap[&i] = mask64(mkpair(r(sel(1, lo(ng), lo(x))),
						 r(sel(1, hi(ng), hi(x)))), bw);
			return;
		}
		if (t->isIntegerTy() && bits(t) > 32 &&
		    (id == Intrinsic::smin || id == Intrinsic::smax ||
		     id == Intrinsic::umin || id == Intrinsic::umax)) {
			unsigned bw = bits(t);
			int x = arg(0).v, y = arg(1).v;
			ICmpInst::Predicate pr = id == Intrinsic::smin ? ICmpInst::ICMP_SLT :
				id == Intrinsic::smax ? ICmpInst::ICMP_SGT :
				id == Intrinsic::umin ? ICmpInst::ICMP_ULT : ICmpInst::ICMP_UGT;
			int cx = x, cy = y;
			if (ICmpInst::isSigned(pr) && bw < 64) {
				cx = sext64(x, bw);
				cy = sext64(y, bw);
			}
			icmp64(pr, cx, cy, 1);
			vmap[&i] = mkpair(r(sel(1, lo(x), lo(y))), r(sel(1, hi(x), hi(y))));
			return;
		}
		if (t->isIntegerTy() && bits(t) <= 32) {
			unsigned bw = bits(t);
			bool sg = id == Intrinsic::smin || id == Intrinsic::smax;
			unsigned op = 0;

			switch (id) {
			case Intrinsic::smin: op = VMGPU_OP_MIN; break;
			case Intrinsic::smax: op = VMGPU_OP_MAX; break;
			case Intrinsic::umin: op = VMGPU_OP_MINU; break;
			case Intrinsic::umax: op = VMGPU_OP_MAXU; break;
			case Intrinsic::abs: {
				int x = sext_narrow(arg(0).v, bw);
				int ng = unary(VMGPU_OP_NEG, r(x));
				vmap[&i] = mask_narrow(alu(VMGPU_OP_MAX, r(x), r(ng)), bw);
				return;
			}
			default:
				break;
			}
			if (op) {
				int x = arg(0).v, y = arg(1).v;
				if (sg && bw < 32) {
					x = sext_narrow(x, bw);
					y = sext_narrow(y, bw);
				}
				vmap[&i] = mask_narrow(alu(op, r(x), r(y)), bw);
				return;
			}
		}
		error(&i, "the intrinsic '" + n.str() + "' is not supported");
		return;
	}
	if (n == "__vmgpu_sreg") {
		auto *c = dyn_cast<ConstantInt>(i.getArgOperand(0));

		if (!c || c->getZExtValue() >= VMGPU_SREG_COUNT) {
			error(&i, "work-item function with a dimension that is "
			      "not a constant");
			return;
		}
		if (c->getZExtValue() >= vmgpu_isa_sregs(1)) {
			const char *sn = vmgpu_sreg_name(
				uint32_t(c->getZExtValue()));

			if (opts.isa < 2) {
				error(&i, std::string("special register ") +
				      sn + " needs ISA version 2; compiling "
				      "for ISA version " +
				      std::to_string(opts.isa));
				return;
			}
			need_isa = std::max(need_isa, 2u);
		}
		int d = newv(1);
		MI &m = emit(VMGPU_OP_S2R);
		m.d = d;
		m.al = int(c->getZExtValue());
		vmap[&i] = d;
		return;
	}
	if (n == "__vmgpu_ndrange") {
		/* signature() made the hidden pair, or refused the call */
		auto *c = dyn_cast<ConstantInt>(i.getArgOperand(0));

		if (!c || c->getZExtValue() > 3 || ndrange_off < 0) {
			error(&i, "work-item function with a dimension that is "
			      "not a constant");
			return;
		}
		int d = newv(1);
		MI &m = emit(VMGPU_OP_LDARG);
		m.d = d;
		m.immv = uint32_t(ndrange_off) + 4 * uint32_t(c->getZExtValue());
		vmap[&i] = d;
		return;
	}
	if (n == "__vmgpu_printf_buffer" && printf_off >= 0) {
		/* printf_param() made the hidden buffer parameter */
		int d = newv(2);
		MI &m = emit(VMGPU_OP_LDARG64);
		m.d = d;
		m.immv = uint32_t(printf_off);
		vmap[&i] = d;
		return;
	}
	if (n == "__vmgpu_bar") {
		emit(VMGPU_OP_BAR);
		return;
	}
	error(&i, "call to '" + n.str() + "' cannot be compiled (not inlined)");
}

void Backend::phi_copies(const BasicBlock *from, const BasicBlock *to)
{
	std::vector<std::pair<int, Value *>> moves;
	bool reads_phi = false;

	for (const PHINode &p : to->phis()) {
		Value *v = p.getIncomingValueForBlock(from);
		if (v->getType()->isPointerTy() && is_table(v)) {
			error(&p, "a pointer into a program-scope constant array "
			      "may only be indexed and loaded from");
			return;
		}
		moves.emplace_back(phi_reg(const_cast<PHINode *>(&p)), v);
		if (auto *vp = dyn_cast<PHINode>(v))
			if (vp->getParent() == to)
				reads_phi = true;
	}
	if (!reads_phi) {
		for (auto &mv : moves)
			copy_to(mv.first, val(mv.second));
		return;
	}
	/* a parallel copy: through temporaries */
	std::vector<int> tmps;
	for (auto &mv : moves)
		tmps.push_back(copy(r(val(mv.second))));
	for (size_t k = 0; k < moves.size(); k++)
		copy_to(moves[k].first, tmps[k]);
}

/* ------------------------------------------------------------------ */
/* By-value parameters (VMGPU_PARAM_BYTES)                              */
/* ------------------------------------------------------------------ */

/* The @b-bit value at byte @off of the argument block (ldarg reads
 * aligned words: a narrower value is shifted out of its word). */
int Backend::ldarg_bits(uint32_t off, unsigned b, const Instruction *at)
{
	if (b == 64 && off % 4 == 0) {
		int d = newv(2);
		MI &m = emit(VMGPU_OP_LDARG64);
		m.d = d;
		m.immv = off;
		return d;
	}
	if (b > 32 || (off % 4) * 8 + b > 32) {
		error(at, "a by-value parameter's field across argument words "
		      "(a packed struct) is not supported");
		return const_int(0, b > 32 ? 64 : 32);
	}
	int d = newv(1);
	MI &m = emit(VMGPU_OP_LDARG);
	m.d = d;
	m.immv = off & ~3u;
	if (off % 4)
		d = alui(VMGPU_OP_SHR, r(d), (off % 4) * 8);
	return b < 32 ? mask_narrow(d, b) : d;
}

/* Is a by-value struct only loaded at constant offsets, each value in
 * one argument word (or an aligned 64-bit pair)? Then ldarg reads it. */
bool Backend::byval_direct(const Argument &a)
{
	std::vector<const Value *> work = { &a };

	while (!work.empty()) {
		const Value *v = work.back();
		work.pop_back();
		for (const User *u : v->users()) {
			if (auto *g = dyn_cast<GEPOperator>(u)) {
				if (g->getPointerOperand() != v ||
				    !g->hasAllConstantIndices())
					return false;
				work.push_back(g);
				continue;
			}
			auto *ld = dyn_cast<LoadInst>(u);
			if (!ld || ld->isVolatile() || !type_ok(ld->getType()))
				return false;
			unsigned b = bits(ld->getType());
			APInt c(64, 0);
			const Value *base = ld->getPointerOperand()->
				stripAndAccumulateConstantOffsets(DL, c, true);
			if (base != &a || c.isNegative() || c.getZExtValue() >=
			    DL.getTypeAllocSize(a.getParamByValType()))
				return false;
			uint64_t off = c.getZExtValue();
			if (!(b == 64 && off % 4 == 0) &&
			    (b > 32 || (off % 4) * 8 + b > 32))
				return false;
		}
	}
	return true;
}

/* A load from a by-value struct read with ldarg. */
bool Backend::byval_load(LoadInst &ld)
{
	APInt c(64, 0);
	const Value *base = ld.getPointerOperand()->
		stripAndAccumulateConstantOffsets(DL, c, true);
	auto *a = dyn_cast<Argument>(base);

	if (!a || !a->hasByValAttr() || byval_off.count(a))
		return false;
	unsigned b = bits(ld.getType());
	int d = ldarg_bits(params[a->getArgNo()].offset +
			   uint32_t(c.getZExtValue()), b, &ld);
	vmap[&ld] = d;
	return true;
}

/*
 * An element of a vector parameter (the Scalarizer's extractelement),
 * or the whole vector reinterpreted as one scalar (as_int(uchar4)):
 * ldarg of its bytes.
 */
bool Backend::vector_arg_use(Instruction &i)
{
	auto *a = i.getNumOperands() ? dyn_cast<Argument>(i.getOperand(0)) :
		  nullptr;

	/* address arithmetic on a struct read with ldarg: folded into the
	 * loads (byval_direct() saw only those) */
	if (auto *g = dyn_cast<GetElementPtrInst>(&i)) {
		auto *ba = dyn_cast<Argument>(g->getPointerOperand()->
					      stripInBoundsConstantOffsets());
		if (ba && ba->hasByValAttr() && !byval_off.count(ba))
			return true;
	}
	if (!a || !a->getType()->isVectorTy() || i.getType()->isVectorTy())
		return false;
	uint32_t off = params[a->getArgNo()].offset;
	if (auto *ee = dyn_cast<ExtractElementInst>(&i)) {
		auto *k = dyn_cast<ConstantInt>(ee->getIndexOperand());
		Type *et = ee->getType();

		if (!k) {
			error(&i, "a vector parameter indexed by a variable "
			      "is not supported");
			return true;
		}
		off += uint32_t(k->getZExtValue() * DL.getTypeStoreSize(et));
		vmap[&i] = ldarg_bits(off, bits(et), &i);
		return true;
	}
	if (isa<BitCastInst>(&i) && type_ok(i.getType()) &&
	    !i.getType()->isPointerTy()) {
		vmap[&i] = ldarg_bits(off, bits(i.getType()), &i);
		return true;
	}
	return false;
}

void Backend::select_inst(Instruction &i)
{
	if (vector_arg_use(i))
		return;
	for (Value *op : i.operands())
		if (op->getType()->isVectorTy() || i.getType()->isVectorTy()) {
			error(&i, "vector operation left after scalarisation");
			return;
		}
	for (unsigned k = 0; k < i.getNumOperands(); k++) {
		Value *op = i.getOperand(k);

		if (!op->getType()->isPointerTy() || !is_table(op))
			continue;
		if ((isa<GetElementPtrInst>(i) && k == 0) ||
		    (isa<LoadInst>(i) && k == 0) || isa<CallInst>(i) ||
		    isa<PtrToIntInst>(i))
			continue;
		error(&i, "a pointer into a program-scope constant array may "
		      "only be indexed and loaded from");
		return;
	}
	if (auto *b = dyn_cast<BinaryOperator>(&i)) {
		binop(*b);
		return;
	}
	if (auto *c = dyn_cast<CastInst>(&i)) {
		cast_inst(*c);
		return;
	}
	if (auto *ci = dyn_cast<CmpInst>(&i)) {
		if (fused_cmp(ci))
			return;
		cmp_to_pred(ci, 0);
		vmap[&i] = pred_to_reg(0);
		return;
	}
	if (isa<LoadInst>(i) || isa<StoreInst>(i) || isa<AtomicRMWInst>(i) ||
	    isa<AtomicCmpXchgInst>(i)) {
		memop(i);
		return;
	}
	if (auto *g = dyn_cast<GetElementPtrInst>(&i)) {
		unsigned as = g->getAddressSpace();
		MapVector<Value *, APInt> var;
		APInt c(64, 0);

		if (!g->collectOffset(DL, 64, var, c)) {
			error(&i, "unsupported address computation");
			return;
		}
		if (is_table(g->getPointerOperand()))
			in_table.insert(g);
		if (as == AS_LOCAL || in_table.count(g)) {
			Value *bp = g->getPointerOperand()->stripPointerCasts();
			auto *bg = dyn_cast<GlobalVariable>(bp);
			int base = -1, acc = -1;
			uint64_t coff = c.getZExtValue();
			if (bg)
				coff += shared_offset(bg, &i);	/* a constant */
			else
				base = acc = val(g->getPointerOperand());
			for (auto &kv : var) {
				Value *iv = kv.first;
				/* shared offsets are 32-bit: the low half will do */
				if (auto *ext = dyn_cast<CastInst>(iv))
					if ((isa<SExtInst>(ext) || isa<ZExtInst>(ext)) &&
					    bits(ext->getSrcTy()) == 32)
						iv = ext->getOperand(0);
				int ix = val(iv);
				R ixr = bits(iv->getType()) > 32 ? lo(ix) : r(ix);
				uint64_t sc = kv.second.getZExtValue();
				int prod = isPowerOf2_64(sc) ?
					alui(VMGPU_OP_SHL, ixr, Log2_64(sc)) :
					alui(VMGPU_OP_MUL, ixr, uint32_t(sc));
				acc = acc < 0 ? prod : alu(VMGPU_OP_ADD, r(acc), r(prod));
			}
			if (acc < 0)
				acc = mov_imm(uint32_t(coff));
			else if (coff)
				acc = alui(VMGPU_OP_ADD, r(acc), uint32_t(coff));
			vmap[&i] = acc == base ? copy(r(base)) : acc;
			return;
		}
		int acc = val(g->getPointerOperand());
		int base = acc;
		for (auto &kv : var)
			acc = pointer_index(kv.first, kv.second.getZExtValue(), acc);
		acc = add64_const(acc, c.getSExtValue());
		vmap[&i] = acc == base ? copy(r(base)) : acc;
		return;
	}
	if (auto *s = dyn_cast<SelectInst>(&i)) {
		Type *t = s->getType();
		if (!type_ok(t)) {
			error(&i, "select of an unsupported type");
			return;
		}
		int a = val(s->getTrueValue()), b = val(s->getFalseValue());
		cond_to_pred(s->getCondition(), 1);
		if (size_of(t) == 2)
			vmap[&i] = mkpair(r(sel(1, lo(a), lo(b))),
					  r(sel(1, hi(a), hi(b))));
		else
			vmap[&i] = sel(1, r(a), r(b));
		return;
	}
	if (auto *c = dyn_cast<CallInst>(&i)) {
		call(*c);
		return;
	}
	if (auto *fz = dyn_cast<FreezeInst>(&i)) {
		vmap[&i] = copy(r(val(fz->getOperand(0))));
		return;
	}
	if (auto *un = dyn_cast<UnaryOperator>(&i)) {
		if (un->getOpcode() == Instruction::FNeg && i.getType()->isFloatTy()) {
			vmap[&i] = unary(VMGPU_OP_FNEG, r(val(un->getOperand(0))));
			return;
		}
	}
	if (auto *ev = dyn_cast<ExtractValueInst>(&i)) {
		Value *agg = ev->getAggregateOperand();
		if (bits(agg->getType()) == 64 && ev->getNumIndices() == 1) {
			int v = val(agg);
			vmap[&i] = copy(ev->getIndices()[0] ? hi(v) : lo(v));
			return;
		}
	}
	if (isa<PHINode>(i) || isa<AllocaInst>(i))
		return;
	if (isa<BranchInst>(i) || isa<ReturnInst>(i) || isa<UnreachableInst>(i))
		return;		/* terminators: select_block */
	std::string s;
	raw_string_ostream os(s);
	os << i.getOpcodeName();
	error(&i, "cannot compile '" + os.str() + "' instructions");
}

void Backend::select_block(const BasicBlock *bb)
{
	for (const Instruction &ci : *bb) {
		Instruction &i = const_cast<Instruction &>(ci);

		if (i.isTerminator())
			break;
		select_inst(i);
	}
	const Instruction *term = bb->getTerminator();

	if (auto *br = dyn_cast<BranchInst>(term)) {
		for (const BasicBlock *s : successors(bb))
			if (s->begin() != s->end() && isa<PHINode>(s->front()))
				phi_copies(bb, s);
		size_t next = next_real(size_t(cur));
		if (br->isUnconditional()) {
			int t = dest(br->getSuccessor(0));
			blocks[cur].succs.push_back(t);
			if (size_t(t) != next) {
				MI &m = emit(VMGPU_OP_BRA);
				m.al = VMGPU_BRA_ALWAYS;
				m.target = t;
			}
			return;
		}
		int t = dest(br->getSuccessor(0)), f = dest(br->getSuccessor(1));
		blocks[cur].succs.push_back(t);
		blocks[cur].succs.push_back(f);
		cond_to_pred(br->getCondition(), 2);
		if (size_t(f) == next) {
			MI &m = emit(VMGPU_OP_BRA);
			m.al = 2;
			m.target = t;
		} else if (size_t(t) == next) {
			MI &m = emit(VMGPU_OP_BRA);
			m.al = 2 | VMGPU_BRA_NEGATE;
			m.target = f;
		} else {
			MI &m = emit(VMGPU_OP_BRA);
			m.al = 2;
			m.target = t;
			MI &m2 = emit(VMGPU_OP_BRA);
			m2.al = VMGPU_BRA_ALWAYS;
			m2.target = f;
		}
		return;
	}
	if (isa<ReturnInst>(term) || isa<UnreachableInst>(term)) {
		emit(VMGPU_OP_EXIT);
		return;
	}
	error(term, "unsupported control flow");
}

} // namespace backend
} // namespace vmgpu_cc
