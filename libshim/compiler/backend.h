/* SPDX-License-Identifier: MIT */
/*
 * The vmgpu back end's private interface: the machine instructions over
 * virtual registers that instruction selection makes, and class Backend,
 * the state of one kernel's compilation. The back end's stages are
 * separate files that share this class:
 *
 *   backend.cpp   the driver (Backend::run()), block layout, signature
 *                 and arguments, program-scope constant arrays;
 *   isel.cpp      instruction selection: LLVM IR to machine instructions;
 *   regalloc.cpp  dead-code removal and linear-scan register allocation;
 *   encode.cpp    encoding: spill reloads, the scratch prologue, branch
 *                 targets.
 *
 * Only the back end includes it; compiler.h is the interface of the
 * compiler as a whole (backend_compile()).
 */
#ifndef VMGPU_CC_BACKEND_H
#define VMGPU_CC_BACKEND_H

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include "compiler.h"
#include "vmgpu_isa.h"

namespace vmgpu_cc {
namespace backend {

using namespace llvm;

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
	/* by-value struct parameters read other than by loads at constant
	 * offsets: copied into the private area at entry, their offset
	 * there (the others are read with ldarg where they are loaded) */
	std::map<const Argument *, uint32_t> byval_off;
	bool uses_scratch = false;
	uint32_t shared_bytes = 0;
	std::map<const GlobalVariable *, uint32_t> shared_off;
	std::vector<vmgpu_exec_param> params;
	uint32_t args_bytes = 0;
	/* the hidden vmgpu_ndrange0/1 pair's offset, -1: none */
	int ndrange_off = -1;
	/* the hidden printf buffer's offset (VMGPU_PRINTF_PARAM), -1: none */
	int printf_off = -1;
	bool printf_param();
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
	bool lower_vector_leftovers();
	bool signature();
	void prologue_args();
	/* by-value parameters (vectors, structs: VMGPU_PARAM_BYTES) */
	int ldarg_bits(uint32_t off, unsigned b, const Instruction *at);
	bool byval_direct(const Argument &a);
	bool byval_load(LoadInst &ld);
	bool vector_arg_use(Instruction &i);
	bool allocate(unsigned nregs, bool reserve);
	void dead_code();
	void encode(std::vector<uint64_t> &code);
};

} // namespace backend
} // namespace vmgpu_cc

#endif
