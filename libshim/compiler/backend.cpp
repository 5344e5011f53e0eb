// SPDX-License-Identifier: MIT
/*
 * The vmgpu back end: optimised, scalarised LLVM IR of one kernel to an
 * executable for ISA version 1.
 *
 *  1. layout: blocks in reverse post-order with every loop contiguous, so
 *     that a join point always has a larger pc than the code that reaches
 *     it and the ISA's min-pc rule reconverges at every if/else and loop
 *     exit (Documentation/isa.rst, "Divergence");
 *  2. instruction selection to machine instructions over virtual
 *     registers of one or two (a pair) 32-bit registers; predicates are
 *     set right before the instruction that reads them, so they are never
 *     live across IR instructions;
 *  3. linear-scan register allocation over live intervals from a
 *     liveness analysis; what does not fit goes to spill slots in the
 *     per-thread private area (global memory at the hidden parameter
 *     vmgpu_private + linear thread id * private bytes);
 *  4. encoding, branch targets resolved, header and signature.
 */
#include <algorithm>
#include <functional>
#include <cstring>
#include <map>
#include <set>

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GetElementPtrTypeIterator.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>
#include <llvm/Support/MathExtras.h>
#include <llvm/Support/raw_ostream.h>

#include "compiler.h"
#include "vmgpu_isa.h"

using namespace llvm;

namespace vmgpu_cc {
namespace {

enum {
	P_COPY = 0x100,		/* d = a (one register or a pair) */
	P_MKPAIR,		/* pair d = (a, b) */
};

/* Address spaces of the spir64 target. */
enum { AS_PRIVATE = 0, AS_GLOBAL = 1, AS_CONSTANT = 2, AS_LOCAL = 3 };

/* Predicates: p0..p3 results, p4..p7 temporaries of one expansion. */
enum { PT0 = 4, PT1 = 5, PT2 = 6 };

struct MI {
	unsigned op;
	bool imm = false;
	int d = -1, a = -1, b = -1, c = -1;	/* virtual registers */
	uint8_t ah = 0, bh = 0, ch = 0;		/* read the high half of a pair */
	int dl = -1, al = -1, bl = -1;		/* literal D/A/B fields */
	uint32_t immv = 0;
	int target = -1;			/* block index (bra) */
};

struct MBlock {
	std::vector<MI> insts;
	std::vector<int> succs;
};

/* A register operand: virtual register and which half of a pair. */
struct R {
	int v;
	uint8_t h;
};

/* The shared-memory form (ISA version 2) of a global atomic. */
unsigned shared_atomic(unsigned op)
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

const int VR_SCRATCH = 0;	/* precoloured pair: base of this thread's area */

class Backend {
public:
	Backend(Function &f, const BackendOptions &o, std::string &log,
		const char *file)
		: F(f), DL(f.getParent()->getDataLayout()), opts(o), log(log),
		  file(file)
	{
		vsize.push_back(2);	/* VR_SCRATCH */
	}

	bool run(Kernel &out);

private:
	Function &F;
	const DataLayout &DL;
	const BackendOptions &opts;
	std::string &log;
	const char *file;
	bool failed = false;
	unsigned need_isa = VMGPU_ISA_VERSION_MIN;	/* what the code uses */

	std::vector<uint8_t> vsize;
	std::map<const Value *, int> vmap;
	std::map<const BasicBlock *, int> bidx;
	std::vector<const BasicBlock *> order;
	std::vector<MBlock> blocks;
	int cur = 0;

	uint32_t priv_bytes = 0;	/* allocas, then spill slots */
	std::map<const AllocaInst *, uint32_t> alloca_off;
	bool uses_scratch = false;
	uint32_t shared_bytes = 0;
	std::map<const GlobalVariable *, uint32_t> shared_off;
	std::vector<vmgpu_exec_param> params;
	uint32_t args_bytes = 0;
	/* program-scope constant arrays: copied into shared memory at entry;
	 * pointers into them are 32-bit shared offsets */
	std::vector<const GlobalVariable *> tables;
	std::set<const Value *> in_table;
	bool is_table(const Value *v)
	{
		v = v->stripPointerCasts();
		if (auto *g = dyn_cast<GlobalVariable>(v))
			return g->getAddressSpace() != AS_LOCAL;
		if (auto *ce = dyn_cast<ConstantExpr>(v))
			if (ce->getOpcode() == Instruction::GetElementPtr)
				return is_table(ce->getOperand(0));
		return in_table.count(v) != 0;
	}
	bool collect_tables();
	void init_tables();
	void write_const(const Constant *c, uint8_t *buf, const Instruction *at);

	/* register allocation results */
	std::vector<int> phys;		/* -1: spilled */
	std::vector<int> slot;
	int tmp_base = -1, scratch_reg = -1;
	unsigned max_used = 0;

	void error(const Instruction *i, const std::string &msg)
	{
		/* after a real error, follow-on internal ones are noise;
		 * so is the same message at the same place again (one
		 * library call inlines several offending instructions) */
		std::string d = diag_at(i, msg, file);

		if ((!failed || msg.rfind("internal:", 0) != 0) &&
		    log.find(d) == std::string::npos)
			log += d;
		failed = true;
	}

	int newv(int size)
	{
		vsize.push_back(size);
		return static_cast<int>(vsize.size()) - 1;
	}

	MI &emit(unsigned op)
	{
		blocks[cur].insts.emplace_back();
		MI &m = blocks[cur].insts.back();
		m.op = op;
		return m;
	}

	/* -------- small emitters -------- */
	int mov_imm(uint32_t v)
	{
		int d = newv(1);
		MI &m = emit(VMGPU_OP_MOV);
		m.d = d;
		m.imm = true;
		m.immv = v;
		return d;
	}
	int alu(unsigned op, R a, R b)
	{
		int d = newv(1);
		MI &m = emit(op);
		m.d = d;
		m.a = a.v;
		m.ah = a.h;
		m.b = b.v;
		m.bh = b.h;
		return d;
	}
	int alui(unsigned op, R a, uint32_t imm)
	{
		int d = newv(1);
		MI &m = emit(op);
		m.d = d;
		m.a = a.v;
		m.ah = a.h;
		m.imm = true;
		m.immv = imm;
		return d;
	}
	int unary(unsigned op, R a)
	{
		int d = newv(1);
		MI &m = emit(op);
		m.d = d;
		m.a = a.v;
		m.ah = a.h;
		return d;
	}
	int alu3(unsigned op, R a, R b, R c)
	{
		int d = newv(1);
		MI &m = emit(op);
		m.d = d;
		m.a = a.v;
		m.ah = a.h;
		m.b = b.v;
		m.bh = b.h;
		m.c = c.v;
		m.ch = c.h;
		return d;
	}
	int mkpair(R lo, R hi)
	{
		int d = newv(2);
		MI &m = emit(P_MKPAIR);
		m.d = d;
		m.a = lo.v;
		m.ah = lo.h;
		m.b = hi.v;
		m.bh = hi.h;
		return d;
	}
	int copy(R a)
	{
		int d = newv(a.h ? 1 : vsize[a.v]);
		MI &m = emit(P_COPY);
		m.d = d;
		m.a = a.v;
		m.ah = a.h;
		return d;
	}
	void copy_to(int d, int a)
	{
		MI &m = emit(P_COPY);
		m.d = d;
		m.a = a;
	}
	void setp(unsigned op, int p, R a, R b)
	{
		MI &m = emit(op);
		m.dl = p;
		m.a = a.v;
		m.ah = a.h;
		m.b = b.v;
		m.bh = b.h;
	}
	void setpi(unsigned op, int p, R a, uint32_t imm)
	{
		MI &m = emit(op);
		m.dl = p;
		m.a = a.v;
		m.ah = a.h;
		m.imm = true;
		m.immv = imm;
	}
	void pred2(unsigned op, int d, int a, int b)
	{
		MI &m = emit(op);
		m.dl = d;
		m.al = a;
		m.bl = b;
	}
	void pnot(int d, int a)
	{
		MI &m = emit(VMGPU_OP_PNOT);
		m.dl = d;
		m.al = a;
	}
	int sel(int p, R a, R b)
	{
		int d = newv(1);
		MI &m = emit(VMGPU_OP_SEL);
		m.d = d;
		m.a = a.v;
		m.ah = a.h;
		m.b = b.v;
		m.bh = b.h;
		m.immv = p;
		return d;
	}
	int pred_to_reg(int p)
	{
		int one = mov_imm(1), zero = mov_imm(0);
		return sel(p, { one, 0 }, { zero, 0 });
	}

	static R r(int v) { return { v, 0 }; }
	static R lo(int v) { return { v, 0 }; }
	static R hi(int v) { return { v, 1 }; }

	/* -------- types -------- */
	unsigned bits(Type *t)
	{
		/* cmpxchg's { old, success }: a pair (old, flag) */
		if (auto *st = dyn_cast<StructType>(t))
			if (st->getNumElements() == 2 &&
			    st->getElementType(0)->isIntegerTy(32) &&
			    st->getElementType(1)->isIntegerTy(1))
				return 64;
		if (t->isIntegerTy())
			return t->getIntegerBitWidth();
		if (t->isFloatTy())
			return 32;
		if (t->isPointerTy())
			return t->getPointerAddressSpace() == AS_LOCAL ? 32 : 64;
		return 0;
	}
	/* Integers of any width up to 64 (LLVM's loop passes make i33):
	 * up to 32 bits in a register, wider in a pair, always kept
	 * zero-extended to the container; pointers; float. */
	bool type_ok(Type *t)
	{
		unsigned b = bits(t);

		return b >= 1 && b <= 64;
	}
	int size_of(Type *t) { return bits(t) > 32 ? 2 : 1; }
	/* a pair holding an N-bit value (32 < N < 64): clear or extend the
	 * bits above N */
	int mask64(int v, unsigned b)
	{
		if (b >= 64)
			return v;
		int h = alui(VMGPU_OP_AND, hi(v), (1u << (b - 32)) - 1);
		return mkpair(lo(v), r(h));
	}
	int sext64(int v, unsigned b)
	{
		if (b >= 64)
			return v;
		int h = alui(VMGPU_OP_SHL, hi(v), 64 - b);
		h = alui(VMGPU_OP_SRA, r(h), 64 - b);
		return mkpair(lo(v), r(h));
	}

	int mask_narrow(int v, unsigned b)
	{
		if (b >= 32)
			return b > 32 ? mask64(v, b) : v;
		return alui(VMGPU_OP_AND, r(v), b == 1 ? 1u : (1u << b) - 1);
	}
	int sext_narrow(int v, unsigned b)
	{
		if (b >= 32)
			return v;
		int t = alui(VMGPU_OP_SHL, r(v), 32 - b);
		return alui(VMGPU_OP_SRA, r(t), 32 - b);
	}

	/* -------- values -------- */
	int val(Value *v);
	int const_int(uint64_t c, unsigned b)
	{
		if (b == 64)
			return mkpair(r(mov_imm(uint32_t(c))),
				      r(mov_imm(uint32_t(c >> 32))));
		return mov_imm(uint32_t(c));
	}
	uint32_t shared_offset(const GlobalVariable *g, const Instruction *at);
	int phi_reg(PHINode *p)
	{
		auto it = vmap.find(p);

		if (it != vmap.end())
			return it->second;
		int v = newv(size_of(p->getType()));
		vmap[p] = v;
		return v;
	}
	bool fused_cmp(const Instruction *i);
	void cond_to_pred(Value *c, int p);
	void cmp_to_pred(CmpInst *ci, int p);
	void icmp32(ICmpInst::Predicate pr, Value *a, Value *b, unsigned bw,
		    int p);
	void icmp64(ICmpInst::Predicate pr, int a, int b, int p);

	int add64(int a, int b)
	{
		int d = newv(2);
		MI &m = emit(VMGPU_OP_ADD64);
		m.d = d;
		m.a = a;
		m.b = b;
		return d;
	}
	int add64i(int a, int32_t imm)
	{
		int d = newv(2);
		MI &m = emit(VMGPU_OP_ADD64);
		m.d = d;
		m.a = a;
		m.imm = true;
		m.immv = uint32_t(imm);
		return d;
	}
	int add64_const(int a, int64_t c)
	{
		if (c == 0)
			return a;
		if (c >= INT32_MIN && c <= INT32_MAX)
			return add64i(a, int32_t(c));
		return add64(a, const_int(uint64_t(c), 64));
	}
	int lea(int a, R b, unsigned shift)
	{
		int d = newv(2);
		MI &m = emit(VMGPU_OP_LEA);
		m.d = d;
		m.a = a;
		m.b = b.v;
		m.bh = b.h;
		m.immv = shift;
		return d;
	}
	int shl64c(int a, unsigned s);
	int shr64c(int a, unsigned s, bool arith);
	int mul64(int a, int b);
	int mul64c(int a, uint64_t c);
	int neg64(int a)
	{
		int l = unary(VMGPU_OP_NOT, lo(a)), h = unary(VMGPU_OP_NOT, hi(a));
		return add64i(mkpair(r(l), r(h)), 1);
	}
	int pointer_index(Value *idx, uint64_t scale, int base);

	/* -------- instructions -------- */
	void select_block(const BasicBlock *bb);
	/* Blocks that are only a branch (edges split for phi copies that
	 * turned out to need none): branches go straight through them and
	 * they take no room. */
	std::vector<bool> skip;
	bool empty_block(const BasicBlock *bb)
	{
		auto *br = dyn_cast<BranchInst>(bb->getTerminator());

		if (bb == &F.getEntryBlock() || !br || br->isConditional() ||
		    &bb->front() != br || !bb->getSinglePredecessor())
			return false;
		const BasicBlock *s = br->getSuccessor(0);
		return !isa<PHINode>(s->front()) && s != bb;
	}
	int dest(const BasicBlock *bb)
	{
		int k = bidx.at(bb);

		for (size_t n = 0; skip[k] && n < order.size(); n++)
			k = bidx.at(order[k]->getTerminator()->getSuccessor(0));
		return k;
	}
	size_t next_real(size_t k)
	{
		for (k++; k < order.size() && skip[k]; k++)
			;
		return k;
	}
	void select_inst(Instruction &i);
	void binop(BinaryOperator &i);
	void cast_inst(CastInst &i);
	void call(CallInst &i);
	void memop(Instruction &i);
	void phi_copies(const BasicBlock *from, const BasicBlock *to);
	bool addr_of(Value *ptr, int &base, int32_t &off, unsigned &as,
		     const Instruction *at);

	bool layout();
	bool signature();
	void prologue_args();
	bool allocate(unsigned nregs, bool reserve);
	void dead_code();
	void encode(std::vector<uint64_t> &code);
};

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

void Backend::select_inst(Instruction &i)
{
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
		    (isa<LoadInst>(i) && k == 0) || isa<CallInst>(i))
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

/* ------------------------------------------------------------------ */
/* Program-scope constant arrays                                        */
/* ------------------------------------------------------------------ */

bool Backend::collect_tables()
{
	std::set<const GlobalVariable *> seen;
	std::vector<const Constant *> work;

	for (Instruction &i : instructions(F))
		for (Value *op : i.operands()) {
			if (auto *c = dyn_cast<Constant>(op))
				work.push_back(c);
			while (!work.empty()) {
				const Constant *c = work.back();
				work.pop_back();
				if (auto *g = dyn_cast<GlobalVariable>(c)) {
					if (g->getAddressSpace() == AS_LOCAL ||
					    !seen.insert(g).second)
						continue;
					if (!g->isConstant() || !g->hasInitializer()) {
						error(&i, "program-scope variable '" +
						      g->getName().str() + "' is not "
						      "supported (only constant ones are)");
						return false;
					}
					tables.push_back(g);
					continue;
				}
				if (isa<ConstantExpr>(c))
					for (const Value *o : c->operands())
						work.push_back(cast<Constant>(o));
			}
		}
	return true;
}

void Backend::write_const(const Constant *c, uint8_t *buf, const Instruction *at)
{
	if (isa<ConstantAggregateZero>(c) || isa<UndefValue>(c) ||
	    isa<ConstantPointerNull>(c))
		return;
	if (auto *ci = dyn_cast<ConstantInt>(c)) {
		uint64_t v = ci->getZExtValue();
		memcpy(buf, &v, DL.getTypeStoreSize(ci->getType()));
		return;
	}
	if (auto *cf = dyn_cast<ConstantFP>(c)) {
		uint64_t v = cf->getValueAPF().bitcastToAPInt().getZExtValue();
		memcpy(buf, &v, DL.getTypeStoreSize(cf->getType()));
		return;
	}
	if (auto *cd = dyn_cast<ConstantDataSequential>(c)) {
		StringRef raw = cd->getRawDataValues();
		memcpy(buf, raw.data(), raw.size());
		return;
	}
	if (auto *st = dyn_cast<ConstantStruct>(c)) {
		const StructLayout *sl = DL.getStructLayout(st->getType());
		for (unsigned k = 0; k < st->getNumOperands(); k++)
			write_const(st->getOperand(k), buf + sl->getElementOffset(k), at);
		return;
	}
	if (auto *ca = dyn_cast<ConstantArray>(c)) {
		uint64_t es = DL.getTypeAllocSize(ca->getType()->getElementType());
		for (unsigned k = 0; k < ca->getNumOperands(); k++)
			write_const(ca->getOperand(k), buf + k * es, at);
		return;
	}
	if (auto *cv = dyn_cast<ConstantVector>(c)) {
		uint64_t es = DL.getTypeAllocSize(cv->getType()->getElementType());
		for (unsigned k = 0; k < cv->getNumOperands(); k++)
			write_const(cv->getOperand(k), buf + k * es, at);
		return;
	}
	error(at, "initializer of a constant array is not supported");
}

/* Every thread stores the tables' non-zero words (shared memory starts
 * zeroed), then one barrier: all threads are converged at entry. */
void Backend::init_tables()
{
	const Instruction *at = &*F.getEntryBlock().begin();
	int zero = -1;

	for (const GlobalVariable *g : tables) {
		uint64_t size = DL.getTypeAllocSize(g->getValueType());
		uint32_t off = shared_offset(g, at);
		std::vector<uint8_t> buf(alignTo(size, 4), 0);

		write_const(g->getInitializer(), buf.data(), at);
		for (size_t k = 0; k < buf.size(); k += 4) {
			uint32_t w;

			memcpy(&w, &buf[k], 4);
			if (!w)
				continue;
			if (zero < 0)
				zero = mov_imm(0);
			int v = mov_imm(w);
			MI &m = emit(VMGPU_OP_STS_32);	/* after mov_imm: emit
							 * moves the vector */
			m.a = zero;
			m.b = v;
			m.immv = uint32_t(off + k);
		}
	}
	if (!tables.empty())
		emit(VMGPU_OP_BAR);
}

/* ------------------------------------------------------------------ */
/* Layout                                                               */
/* ------------------------------------------------------------------ */

bool Backend::layout()
{
	DominatorTree dt(F);
	LoopInfo li(dt);
	ReversePostOrderTraversal<Function *> rpot(&F);
	std::vector<BasicBlock *> rpo(rpot.begin(), rpot.end());
	std::set<const BasicBlock *> placed;

	/* the loop directly inside @ctx that contains @bb, if any */
	auto child_loop = [&](BasicBlock *bb, Loop *ctx) -> Loop * {
		Loop *l = li.getLoopFor(bb);
		while (l && l->getParentLoop() != ctx)
			l = l->getParentLoop();
		return l;
	};
	std::function<void(Loop *)> place = [&](Loop *ctx) {
		for (BasicBlock *bb : rpo) {
			if (placed.count(bb) || (ctx && !ctx->contains(bb)))
				continue;
			Loop *l = child_loop(bb, ctx);
			if (l && l != ctx) {
				place(l);
				continue;
			}
			placed.insert(bb);
			order.push_back(bb);
		}
	};
	place(nullptr);
	for (size_t k = 0; k < order.size(); k++)
		bidx[order[k]] = int(k);
	/* Every backward branch must go to the header of a loop it is in:
	 * then min-pc scheduling reconverges at each join and loop exit. */
	for (const BasicBlock *bb : order) {
		for (const BasicBlock *s : successors(bb)) {
			if (bidx[s] > bidx[bb])
				continue;
			Loop *l = li.getLoopFor(s);
			if (!l || l->getHeader() != s || !l->contains(bb)) {
				error(bb->getTerminator(), "irreducible control "
				      "flow is not supported");
				return false;
			}
		}
	}
	/* private variables: offsets in this thread's area */
	for (const BasicBlock *bb : order)
		for (const Instruction &i : *bb)
			if (auto *a = dyn_cast<AllocaInst>(&i)) {
				auto *n = dyn_cast<ConstantInt>(a->getArraySize());
				if (!n || !a->isStaticAlloca()) {
					error(a, "variable-length private arrays "
					      "are not supported");
					return false;
				}
				uint64_t sz = DL.getTypeAllocSize(a->getAllocatedType()) *
					      n->getZExtValue();
				uint64_t al = std::max<uint64_t>(a->getAlign().value(), 4);
				priv_bytes = uint32_t(alignTo(priv_bytes, al));
				alloca_off[a] = priv_bytes;
				priv_bytes += uint32_t(alignTo(sz, 4));
			}
	return true;
}

/* ------------------------------------------------------------------ */
/* Signature and arguments                                              */
/* ------------------------------------------------------------------ */

static std::string md_string(const MDNode *md, unsigned k)
{
	if (!md || k >= md->getNumOperands())
		return "";
	if (auto *s = dyn_cast<MDString>(md->getOperand(k)))
		return s->getString().str();
	return "";
}

bool Backend::signature()
{
	const MDNode *names = F.getMetadata("kernel_arg_name");
	const MDNode *quals = F.getMetadata("kernel_arg_type_qual");
	const Instruction *at = &*F.getEntryBlock().begin();
	uint32_t off = 0;

	if (F.getName().size() >= VMGPU_KERNEL_NAME_MAX ||
	    !vmgpu_sig_name_ok(F.getName().str().c_str(), VMGPU_KERNEL_NAME_MAX, 0)) {
		error(at, "kernel name '" + F.getName().str() + "' is longer "
		      "than 31 characters");
		return false;
	}
	if (F.arg_size() >= VMGPU_MAX_PARAMS) {
		error(at, "kernel '" + F.getName().str() + "' has more than 31 "
		      "parameters");
		return false;
	}
	for (Argument &a : F.args()) {
		Type *t = a.getType();
		vmgpu_exec_param p = {};
		std::string name = md_string(names, a.getArgNo());

		if (name.empty())
			name = "arg" + std::to_string(a.getArgNo());
		if (name.size() >= VMGPU_PARAM_NAME_MAX) {
			error(at, "parameter name '" + name + "' of kernel '" +
			      F.getName().str() + "' is longer than 23 characters");
			return false;
		}
		if (t->isPointerTy()) {
			unsigned as = t->getPointerAddressSpace();
			std::string q = md_string(quals, a.getArgNo());

			if (as == AS_CONSTANT || (as == AS_GLOBAL &&
			    (q.find("const") != std::string::npos ||
			     a.onlyReadsMemory())))
				p.type = VMGPU_PARAM_BUF_RO;
			else if (as == AS_GLOBAL && a.hasAttribute(Attribute::WriteOnly))
				p.type = VMGPU_PARAM_BUF_WO;
			else if (as == AS_GLOBAL)
				p.type = VMGPU_PARAM_BUF_RW;
			else if (as == AS_LOCAL)
				p.type = VMGPU_PARAM_I32;	/* shared offset */
			else {
				error(at, "kernel parameter '" + name + "' is a "
				      "private pointer");
				return false;
			}
		} else if (t->isFloatTy()) {
			p.type = VMGPU_PARAM_F32;
		} else if (t->isIntegerTy() && bits(t) <= 32) {
			p.type = VMGPU_PARAM_I32;
		} else if (t->isIntegerTy(64)) {
			p.type = VMGPU_PARAM_I64;
		} else {
			error(at, "kernel parameter '" + name + "' has a type "
			      "the signature cannot describe (i32, i64, f32, "
			      "buffers)");
			return false;
		}
		uint32_t sz = vmgpu_param_size(p.type);
		off = uint32_t(alignTo(off, sz));
		p.offset = off;
		off += sz;
		strncpy(p.name, name.c_str(), sizeof(p.name) - 1);
		params.push_back(p);
	}
	args_bytes = off;
	return true;
}

void Backend::prologue_args()
{
	for (Argument &a : F.args()) {
		const vmgpu_exec_param &p = params[a.getArgNo()];
		unsigned b = bits(a.getType());
		int d = newv(b == 64 ? 2 : 1);
		MI &m = emit(b == 64 ? VMGPU_OP_LDARG64 : VMGPU_OP_LDARG);

		m.d = d;
		m.immv = p.offset;
		vmap[&a] = b < 32 ? mask_narrow(d, b) : d;
	}
}

/* ------------------------------------------------------------------ */
/* Register allocation                                                  */
/* ------------------------------------------------------------------ */

static void uses_of(const MI &m, int out[3])
{
	out[0] = m.a;
	out[1] = m.b;
	out[2] = m.c;
}

/* Instructions whose only effect is their destination register. */
static bool pure(const MI &m)
{
	if (m.op == P_COPY || m.op == P_MKPAIR)
		return true;
	if (m.d < 0)
		return false;
	struct vmgpu_isa_opinfo oi = {};
	vmgpu_isa_opinfo(m.op, &oi);
	return oi.fmt != VMGPU_FMT_ATOM && oi.fmt != VMGPU_FMT_CAS;
}

/* Drop what selection made but nothing reads (a zero-extension feeding
 * only lea's 32-bit form, a pair whose halves are read directly, ...). */
void Backend::dead_code()
{
	for (bool changed = true; changed;) {
		std::vector<int> uses(vsize.size(), 0);

		changed = false;
		for (MBlock &mb : blocks)
			for (MI &m : mb.insts) {
				int u[3];

				uses_of(m, u);
				for (int v : u)
					if (v >= 0)
						uses[v]++;
			}
		for (MBlock &mb : blocks) {
			size_t w = 0;

			for (size_t k = 0; k < mb.insts.size(); k++) {
				MI &m = mb.insts[k];

				if (pure(m) && m.d > 0 && !uses[m.d]) {
					changed = true;
					continue;
				}
				mb.insts[w++] = m;
			}
			mb.insts.resize(w);
		}
	}
}

bool Backend::allocate(unsigned nregs, bool reserve)
{
	size_t nv = vsize.size();
	std::vector<int> start(nv, INT32_MAX), end(nv, -1);

	max_used = 0;
	std::vector<int> bstart(blocks.size()), bend(blocks.size());
	int pos = 0;

	for (size_t k = 0; k < blocks.size(); k++) {
		bstart[k] = 2 * pos;
		for (MI &m : blocks[k].insts) {
			int u[3];

			uses_of(m, u);
			for (int v : u)
				if (v >= 0) {
					start[v] = std::min(start[v], 2 * pos);
					end[v] = std::max(end[v], 2 * pos);
				}
			if (m.d >= 0) {
				start[m.d] = std::min(start[m.d], 2 * pos + 1);
				end[m.d] = std::max(end[m.d], 2 * pos + 1);
			}
			pos++;
		}
		bend[k] = 2 * pos;
	}
	/* liveness: live-in = use ∪ (live-out − def) */
	size_t nb = blocks.size(), words = (nv + 63) / 64;
	std::vector<std::vector<uint64_t>> use(nb, std::vector<uint64_t>(words)),
		def(nb, std::vector<uint64_t>(words)), in(nb, std::vector<uint64_t>(words)),
		out(nb, std::vector<uint64_t>(words));
	auto setb = [](std::vector<uint64_t> &s, int v) { s[v / 64] |= 1ull << (v % 64); };
	auto getb = [](const std::vector<uint64_t> &s, size_t v) {
		return (s[v / 64] >> (v % 64)) & 1;
	};
	for (size_t k = 0; k < nb; k++)
		for (MI &m : blocks[k].insts) {
			int u[3];

			uses_of(m, u);
			for (int v : u)
				if (v >= 0 && !getb(def[k], v))
					setb(use[k], v);
			if (m.d >= 0)
				setb(def[k], m.d);
		}
	for (bool changed = true; changed;) {
		changed = false;
		for (size_t k = nb; k-- > 0;) {
			std::vector<uint64_t> o(words, 0), n(words);
			for (int s : blocks[k].succs)
				for (size_t w = 0; w < words; w++)
					o[w] |= in[s][w];
			for (size_t w = 0; w < words; w++)
				n[w] = use[k][w] | (o[w] & ~def[k][w]);
			if (n != in[k] || o != out[k]) {
				in[k] = n;
				out[k] = o;
				changed = true;
			}
		}
	}
	for (size_t k = 0; k < nb; k++)
		for (size_t v = 0; v < nv; v++) {
			if (getb(in[k], v)) {
				start[v] = std::min(start[v], bstart[k]);
				end[v] = std::max(end[v], bstart[k]);
			}
			if (getb(out[k], v)) {
				start[v] = std::min(start[v], bend[k]);
				end[v] = std::max(end[v], bend[k]);
			}
		}

	/* linear scan */
	unsigned avail = reserve ? nregs - 7 : nregs;
	phys.assign(nv, -1);
	slot.assign(nv, -1);
	std::vector<int> owner(avail, -1);
	std::vector<int> ivs;
	for (size_t v = 1; v < nv; v++)
		if (end[v] >= 0)
			ivs.push_back(int(v));
	std::sort(ivs.begin(), ivs.end(), [&](int x, int y) {
		return start[x] != start[y] ? start[x] < start[y] : x < y;
	});
	std::vector<int> active;
	bool spilled = false;
	uint32_t spill_base = uint32_t(alignTo(priv_bytes, 8));
	uint32_t spill_top = spill_base;

	auto release = [&](int v) {
		for (int k = 0; k < vsize[v]; k++)
			owner[phys[v] + k] = -1;
	};
	/* hints: a copy's or pair's destination where its source is, the
	 * high half of a pair right after the low one */
	std::vector<int> hint_same(nv, -1), hint_after(nv, -1);
	for (MBlock &mb : blocks)
		for (MI &m : mb.insts) {
			if (m.op == P_COPY && m.a > 0 && !m.ah)
				hint_same[m.d] = m.a;
			if (m.op == P_MKPAIR) {
				if (m.a > 0 && !m.ah && vsize[m.a] == 1)
					hint_same[m.d] = m.a;
				if (m.b > 0 && !m.bh && vsize[m.b] == 1 &&
				    m.a > 0 && !m.ah && vsize[m.a] == 1)
					hint_after[m.b] = m.a;
			}
		}
	auto is_free = [&](int p, int size) {
		if (p < 0 || unsigned(p + size) > avail)
			return false;
		for (int k = 0; k < size; k++)
			if (owner[p + k] >= 0)
				return false;
		return true;
	};
	auto find_free = [&](int size) -> int {
		for (unsigned p = 0; p + size <= avail; p++) {
			bool ok = true;
			for (int k = 0; k < size; k++)
				ok = ok && owner[p + k] < 0;
			if (ok)
				return int(p);
		}
		return -1;
	};
	auto spill = [&](int v) {
		spilled = true;
		phys[v] = -1;
		spill_top = uint32_t(alignTo(spill_top, vsize[v] * 4));
		slot[v] = int(spill_top);
		spill_top += vsize[v] * 4;
	};
	for (int v : ivs) {
		/* expire */
		for (size_t k = 0; k < active.size();) {
			int w = active[k];
			if (end[w] < start[v]) {
				release(w);
				active.erase(active.begin() + k);
			} else {
				k++;
			}
		}
		int p = -1;
		if (hint_same[v] > 0 && phys[hint_same[v]] >= 0 &&
		    is_free(phys[hint_same[v]], vsize[v]))
			p = phys[hint_same[v]];
		else if (hint_after[v] > 0 && phys[hint_after[v]] >= 0 &&
			 is_free(phys[hint_after[v]] + 1, vsize[v]))
			p = phys[hint_after[v]] + 1;
		else
			p = find_free(vsize[v]);
		if (p < 0) {
			/* spill the active interval ending last if that frees
			 * room and it ends after this one */
			int best = -1;
			for (int w : active) {
				if (end[w] <= end[v])
					continue;
				release(w);
				bool fits = find_free(vsize[v]) >= 0;
				for (int k = 0; k < vsize[w]; k++)
					owner[phys[w] + k] = w;
				if (fits && (best < 0 || end[w] > end[best]))
					best = w;
			}
			if (best >= 0) {
				release(best);
				active.erase(std::find(active.begin(), active.end(), best));
				spill(best);
				p = find_free(vsize[v]);
			}
		}
		if (p < 0) {
			spill(v);
			continue;
		}
		phys[v] = p;
		for (int k = 0; k < vsize[v]; k++)
			owner[p + k] = v;
		active.push_back(v);
		max_used = std::max(max_used, unsigned(p + vsize[v]));
	}
	if (spilled && !reserve)
		return false;
	if (reserve) {
		/* the reserved registers are r0..r6: the allocated ones move
		 * up, and num_regs stays what is used */
		for (size_t v = 1; v < nv; v++)
			if (phys[v] >= 0)
				phys[v] += 7;
		tmp_base = 0;
		scratch_reg = 5;
		phys[VR_SCRATCH] = scratch_reg;
		max_used += 7;
		priv_bytes = std::max(8u, uint32_t(alignTo(spill_top, 8)));
		uses_scratch = true;
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* Encoding                                                             */
/* ------------------------------------------------------------------ */

static uint64_t insn(unsigned op, bool imm, unsigned d, unsigned a, unsigned b,
		     uint32_t iv)
{
	return VMGPU_INSN(op | (imm ? VMGPU_OP_IMM : 0), d, a, b, iv);
}

void Backend::encode(std::vector<uint64_t> &code)
{
	std::vector<int> bpc(blocks.size());
	std::vector<std::pair<size_t, int>> fix;
	int T = tmp_base, S = scratch_reg;

	if (uses_scratch) {
		/* S = vmgpu_private + linear thread id * priv_bytes */
		unsigned t0 = T, t1 = T + 1, t2 = T + 2, t3 = T + 3;
		auto s2r = [&](unsigned d, unsigned sr) {
			code.push_back(insn(VMGPU_OP_S2R, false, d, sr, 0, 0));
		};
		auto a3 = [&](unsigned op, unsigned d, unsigned a, unsigned b) {
			code.push_back(insn(op, false, d, a, b, 0));
		};
		auto mad = [&](unsigned d, unsigned a, unsigned b, unsigned c) {
			code.push_back(insn(VMGPU_OP_MAD, false, d, a, b, c));
		};
		s2r(t0, VMGPU_SREG_CTAID_Z);
		s2r(t1, VMGPU_SREG_NCTAID_Y);
		s2r(t2, VMGPU_SREG_CTAID_Y);
		mad(t0, t0, t1, t2);
		s2r(t1, VMGPU_SREG_NCTAID_X);
		s2r(t2, VMGPU_SREG_CTAID_X);
		mad(t0, t0, t1, t2);		/* linear block */
		s2r(t1, VMGPU_SREG_NTID_X);
		s2r(t2, VMGPU_SREG_NTID_Y);
		a3(VMGPU_OP_MUL, t3, t1, t2);
		s2r(t2, VMGPU_SREG_NTID_Z);
		a3(VMGPU_OP_MUL, t3, t3, t2);	/* block size */
		a3(VMGPU_OP_MUL, t0, t0, t3);
		s2r(t2, VMGPU_SREG_TID_Z);
		s2r(t3, VMGPU_SREG_NTID_Y);
		s2r(t1, VMGPU_SREG_TID_Y);
		mad(t2, t2, t3, t1);
		s2r(t3, VMGPU_SREG_NTID_X);
		s2r(t1, VMGPU_SREG_TID_X);
		mad(t2, t2, t3, t1);		/* linear thread in block */
		a3(VMGPU_OP_ADD, t0, t0, t2);
		code.push_back(insn(VMGPU_OP_MOV, true, t1, 0, 0, priv_bytes));
		a3(VMGPU_OP_MUL, t2, t0, t1);
		a3(VMGPU_OP_MULHIU, t3, t0, t1);
		code.push_back(insn(VMGPU_OP_LDARG64, false, S, 0, 0, args_bytes));
		a3(VMGPU_OP_ADD64, S, S, t2);
	}

	for (size_t k = 0; k < blocks.size(); k++) {
		bpc[k] = int(code.size());
		for (MI &m : blocks[k].insts) {
			/* operands: physical registers, reloading spills */
			unsigned pa = 0, pb = 0, pc = 0, pd = 0;
			int tmps[3] = { T, T + 2, T + 4 };
			int vv[3] = { m.a, m.b, m.c };
			uint8_t hh[3] = { m.ah, m.bh, m.ch };
			unsigned *pp[3] = { &pa, &pb, &pc };

			for (int o = 0; o < 3; o++) {
				int v = vv[o];
				if (v < 0)
					continue;
				if (phys[v] >= 0) {
					*pp[o] = unsigned(phys[v] + hh[o]);
					continue;
				}
				/* a pair operand is read whole unless a half is named;
				 * 32-bit uses of pairs always name the half */
				bool whole = vsize[v] == 2 && !hh[o];
				uint32_t so = uint32_t(slot[v] + 4 * hh[o]);
				code.push_back(insn(whole ? VMGPU_OP_LD_64 : VMGPU_OP_LD_32,
						    false, tmps[o], S, 0, so));
				*pp[o] = unsigned(tmps[o]);
			}
			bool dspill = m.d >= 0 && phys[m.d] < 0;
			if (m.d >= 0)
				pd = dspill ? unsigned(T) : unsigned(phys[m.d]);
			switch (m.op) {
			case P_COPY:
				if (vsize[m.d] == 2) {
					if (pd == pa) {
					} else if (pd == pa + 1) {
						code.push_back(insn(VMGPU_OP_MOV, false, pd + 1, 0, pa + 1, 0));
						code.push_back(insn(VMGPU_OP_MOV, false, pd, 0, pa, 0));
					} else {
						code.push_back(insn(VMGPU_OP_MOV, false, pd, 0, pa, 0));
						code.push_back(insn(VMGPU_OP_MOV, false, pd + 1, 0, pa + 1, 0));
					}
				} else if (pd != pa) {
					code.push_back(insn(VMGPU_OP_MOV, false, pd, 0, pa, 0));
				}
				break;
			case P_MKPAIR:
				if (pd == pb && pd + 1 == pa) {
					code.push_back(insn(VMGPU_OP_XOR, false, pd, pd, pd + 1, 0));
					code.push_back(insn(VMGPU_OP_XOR, false, pd + 1, pd, pd + 1, 0));
					code.push_back(insn(VMGPU_OP_XOR, false, pd, pd, pd + 1, 0));
				} else if (pd == pb) {
					code.push_back(insn(VMGPU_OP_MOV, false, pd + 1, 0, pb, 0));
					if (pd != pa)
						code.push_back(insn(VMGPU_OP_MOV, false, pd, 0, pa, 0));
				} else {
					if (pd != pa)
						code.push_back(insn(VMGPU_OP_MOV, false, pd, 0, pa, 0));
					if (pd + 1 != pb)
						code.push_back(insn(VMGPU_OP_MOV, false, pd + 1, 0, pb, 0));
				}
				break;
			default: {
				struct vmgpu_isa_opinfo oi = {};
				vmgpu_isa_opinfo(m.op, &oi);
				unsigned D = m.dl >= 0 ? unsigned(m.dl) : pd;
				unsigned A = m.al >= 0 ? unsigned(m.al) :
					     m.a == VR_SCRATCH ? unsigned(S) : pa;
				unsigned B = m.bl >= 0 ? unsigned(m.bl) : pb;
				uint32_t iv = m.immv;

				if (m.a < 0 && m.al < 0)
					A = 0;
				if (m.b < 0 && m.bl < 0)
					B = 0;
				if (m.d < 0 && m.dl < 0)
					D = 0;
				if (oi.fmt == VMGPU_FMT_ALU3 || oi.fmt == VMGPU_FMT_CAS)
					iv = pc;
				if (oi.fmt == VMGPU_FMT_MOV && !m.imm)
					A = 0;
				if (m.op == VMGPU_OP_BRA)
					fix.emplace_back(code.size(), m.target);
				code.push_back(insn(m.op, m.imm, D, A, B, iv));
				break;
			}
			}
			if (dspill)
				code.push_back(insn(vsize[m.d] == 2 ? VMGPU_OP_ST_64 :
						    VMGPU_OP_ST_32, false, 0, S, T,
						    uint32_t(slot[m.d])));
		}
	}
	for (auto &f : fix)
		code[f.first] = (code[f.first] & 0xffffffffull) |
				(uint64_t(uint32_t(bpc[f.second])) << 32);
}

bool Backend::run(Kernel &out)
{
	if (!signature() || !layout() || !collect_tables())
		return false;
	blocks.resize(order.size());
	skip.assign(order.size(), false);
	for (size_t k = 0; k < order.size(); k++)
		skip[k] = empty_block(order[k]);
	for (size_t k = 0; k < order.size(); k++) {
		cur = int(k);
		if (skip[k])
			continue;
		if (k == 0) {
			prologue_args();
			init_tables();
		}
		select_block(order[k]);
	}
	if (failed)
		return false;

	dead_code();
	unsigned nregs = opts.max_regs;
	bool need_priv = uses_scratch || priv_bytes;
	/* first without reserved registers; again with them if anything
	 * spilled (with them, allocation always succeeds) */
	if (!allocate(nregs, need_priv))
		allocate(nregs, true);

	if (uses_scratch) {
		vmgpu_exec_param p = {};
		p.type = VMGPU_PARAM_BUF_RW;
		p.offset = uint32_t(alignTo(args_bytes, 8));
		strcpy(p.name, "vmgpu_private");
		params.push_back(p);
		args_bytes = p.offset;	/* where the prologue reads it */
	}
	std::vector<uint64_t> code;
	encode(code);
	if (code.size() > VMGPU_ISA_MAX_CODE) {
		error(nullptr, "kernel '" + F.getName().str() + "' is too long");
		return false;
	}

	if (uses_scratch) {
		args_bytes += 8;
		priv_bytes = uint32_t(alignTo(priv_bytes, 8));
		if (!priv_bytes)
			priv_bytes = 8;
	}
	uint32_t nparams = uint32_t(params.size());
	if (nparams > VMGPU_MAX_PARAMS) {
		error(nullptr, "too many parameters");
		return false;
	}
	vmgpu_exec_header h = {};
	h.magic = VMGPU_EXEC_MAGIC;
	/*
	 * The oldest version that has everything the code uses (as the
	 * assembler writes): version 1 unless the kernel reads a version-2
	 * special register, so most executables run on every device and
	 * reassemble to the same bytes.
	 */
	h.isa_version = need_isa;
	h.num_regs = std::max(1u, max_used);
	h.shared_bytes = shared_bytes;
	h.args_bytes = uint32_t(alignTo(args_bytes, 4));
	h.code_insns = uint32_t(code.size());
	h.sig_bytes = uint32_t(VMGPU_EXEC_SIG_BYTES(nparams));

	vmgpu_exec_sig sig = {};
	sig.magic = VMGPU_SIG_MAGIC;
	sig.num_params = nparams;
	strncpy(sig.name, F.getName().str().c_str(), sizeof(sig.name) - 1);

	out.name = F.getName().str();
	out.private_bytes = uses_scratch ? priv_bytes : 0;
	out.image.resize(sizeof(h) + code.size() * 8 + h.sig_bytes);
	uint8_t *p = out.image.data();
	memcpy(p, &h, sizeof(h));	/* little-endian host, as the library */
	p += sizeof(h);
	memcpy(p, code.data(), code.size() * 8);
	p += code.size() * 8;
	memcpy(p, &sig, sizeof(sig));
	p += sizeof(sig);
	memcpy(p, params.data(), nparams * sizeof(vmgpu_exec_param));
	return true;
}

} // namespace

bool backend_compile(Function &f, const BackendOptions &opts, Kernel &out,
		     std::string &log, const char *file)
{
	Backend be(f, opts, log, file);

	return be.run(out);
}

} // namespace vmgpu_cc
