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
 *
 * This file is the driver (Backend::run(): the stages in order, then the
 * executable's header and signature) and what concerns the kernel as a
 * whole rather than one instruction: layout (1), the signature and the
 * argument loads, and the program-scope constant arrays copied into
 * shared memory at entry. Stages 2-4 are isel.cpp, regalloc.cpp and
 * encode.cpp; backend.h declares class Backend, which they share.
 */
#include <algorithm>
#include <cstring>
#include <functional>
#include <set>

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/Support/MathExtras.h>

#include "backend.h"

using namespace llvm;

namespace vmgpu_cc {
namespace backend {

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
	/* by-value structs that cannot be read with ldarg: a private copy */
	for (const Argument &a : F.args())
		if (a.hasByValAttr() && !byval_direct(a)) {
			uint64_t sz = DL.getTypeAllocSize(a.getParamByValType());

			priv_bytes = uint32_t(alignTo(priv_bytes, 8));
			byval_off[&a] = priv_bytes;
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

	if (!vmgpu_sig_name_ok(sig_name(F.getName().str()).c_str(),
			       VMGPU_KERNEL_NAME_MAX, 0)) {
		error(at, "kernel name '" + F.getName().str() + "' is not an "
		      "identifier");
		return false;
	}
	if (F.arg_size() > VMGPU_MAX_PARAMS) {
		error(at, "kernel '" + F.getName().str() + "' has " +
		      std::to_string(F.arg_size()) + " parameters, more than " +
		      std::to_string(VMGPU_MAX_PARAMS));
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
		uint32_t align = 0;

		if (a.hasByValAttr() || t->isVectorTy()) {
			/*
			 * A struct or a vector by value: its bytes, laid out
			 * as OpenCL C lays them out (a 3-component vector
			 * has the size and alignment of 4).
			 */
			Type *vt = a.hasByValAttr() ? a.getParamByValType() : t;
			uint64_t size = DL.getTypeAllocSize(vt);
			uint64_t al = DL.getABITypeAlign(vt).value();
			auto *vec = dyn_cast<FixedVectorType>(vt);

			if (a.hasByValAttr())
				al = std::max<uint64_t>(al, a.getParamAlign() ?
						a.getParamAlign()->value() : 1);
			if (vec && !(vec->getElementType()->isFloatTy() ||
				     (vec->getElementType()->isIntegerTy() &&
				      bits(vec->getElementType()) >= 8 &&
				      bits(vec->getElementType()) <= 64))) {
				error(at, "kernel parameter '" + name + "' is a "
				      "vector of a type the device does not have");
				return false;
			}
			if (!size || size > VMGPU_MAX_ARGS_BYTES || al > 128 ||
			    size % al) {
				error(at, "kernel parameter '" + name + "' of " +
				      std::to_string(size) + " bytes is too large "
				      "for the argument block");
				return false;
			}
			p.type = VMGPU_PARAM_BYTES_TYPE(size, Log2_64(al));
			align = uint32_t(al);
		} else if (t->isPointerTy()) {
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
				p.type = VMGPU_PARAM_LOCAL;	/* shared offset */
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
		off = uint32_t(alignTo(off, align ? align : sz));
		if (uint64_t(off) + sz > VMGPU_MAX_ARGS_BYTES) {
			error(at, "the parameters of kernel '" + F.getName().str() +
			      "' take more than the argument block's " +
			      std::to_string(VMGPU_MAX_ARGS_BYTES) + " bytes");
			return false;
		}
		p.offset = off;
		off += sz;
		strncpy(p.name, name.c_str(), sizeof(p.name) - 1);
		params.push_back(p);
	}
	/*
	 * The global offset and work dimension (-vmgpu-ndrange-args): two
	 * hidden i64 parameters after the kernel's own, only when the
	 * kernel reads them, so that the others keep their parameters.
	 */
	for (Instruction &i : instructions(F)) {
		auto *call = dyn_cast<CallInst>(&i);
		Function *callee = call ? call->getCalledFunction() : nullptr;

		if (!callee || callee->getName() != "__vmgpu_ndrange")
			continue;
		if (!opts.ndrange_args) {
			error(&i, "__vmgpu_ndrange needs " VMGPU_NDRANGE_OPTION);
			return false;
		}
		off = uint32_t(alignTo(off, 8));
		ndrange_off = int(off);
		for (const char *n : { VMGPU_NDRANGE_PARAM0, VMGPU_NDRANGE_PARAM1 }) {
			vmgpu_exec_param p = {};

			p.type = VMGPU_PARAM_I64;
			p.offset = off;
			off += 8;
			strncpy(p.name, n, sizeof(p.name) - 1);
			params.push_back(p);
		}
		break;
	}
	args_bytes = off;
	return true;
}

/*
 * The printf buffer (printf.cpp): a hidden buffer parameter after the
 * others so far (the ndrange pair), before vmgpu_private, only for a
 * kernel that calls printf.
 */
bool Backend::printf_param()
{
	for (Instruction &i : instructions(F)) {
		auto *call = dyn_cast<CallInst>(&i);
		Function *callee = call ? call->getCalledFunction() : nullptr;

		if (!callee || callee->getName() != "__vmgpu_printf_buffer")
			continue;
		vmgpu_exec_param p = {};

		p.type = VMGPU_PARAM_BUF_RW;
		p.offset = uint32_t(alignTo(args_bytes, 8));
		strncpy(p.name, VMGPU_PRINTF_PARAM, sizeof(p.name) - 1);
		params.push_back(p);
		printf_off = int(p.offset);
		args_bytes = p.offset + 8;
		break;
	}
	return true;
}

void Backend::prologue_args()
{
	for (Argument &a : F.args()) {
		const vmgpu_exec_param &p = params[a.getArgNo()];
		unsigned b = bits(a.getType());

		if (VMGPU_PARAM_KIND(p.type) == VMGPU_PARAM_BYTES) {
			/* vectors and directly read structs: ldarg where
			 * they are read; the others copied to the private
			 * area, a word at a time */
			auto it = byval_off.find(&a);

			if (it == byval_off.end())
				continue;
			for (uint32_t k = 0; k < vmgpu_param_size(p.type); k += 4) {
				int w = newv(1);
				MI &m = emit(VMGPU_OP_LDARG);
				m.d = w;
				m.immv = p.offset + k;
				MI &st = emit(VMGPU_OP_ST_32);
				st.a = VR_SCRATCH;
				st.b = w;
				st.immv = it->second + k;
			}
			uses_scratch = true;
			continue;
		}
		int d = newv(b == 64 ? 2 : 1);
		MI &m = emit(b == 64 ? VMGPU_OP_LDARG64 : VMGPU_OP_LDARG);

		m.d = d;
		m.immv = p.offset;
		vmap[&a] = b < 32 ? mask_narrow(d, b) : d;
	}
}

/* ------------------------------------------------------------------ */
/* What the Scalarizer leaves of vectors                                */
/* ------------------------------------------------------------------ */

/*
 * Element @j of the vector @v as a scalar, from what built it: an
 * insertelement chain, a constant, a scalar reinterpreted as a vector
 * (as_uchar4(uint): a shift and a truncation, little-endian) or a vector
 * parameter (an extractelement, read with ldarg). nullptr if none.
 */
static Value *vec_elem(Value *v, unsigned j, Instruction *at,
		       const DataLayout &DL, int depth = 0)
{
	auto *vt = dyn_cast<FixedVectorType>(v->getType());

	if (!vt || j >= vt->getNumElements() || depth > 64)
		return nullptr;
	Type *et = vt->getElementType();
	if (auto *c = dyn_cast<Constant>(v))
		return c->getAggregateElement(j);
	if (auto *ie = dyn_cast<InsertElementInst>(v)) {
		auto *k = dyn_cast<ConstantInt>(ie->getOperand(2));
		if (!k)
			return nullptr;
		if (k->getZExtValue() == j)
			return ie->getOperand(1);
		return vec_elem(ie->getOperand(0), j, at, DL, depth + 1);
	}
	if (auto *sv = dyn_cast<ShuffleVectorInst>(v)) {
		int m = sv->getMaskValue(j);
		unsigned n0 = cast<FixedVectorType>(sv->getOperand(0)->getType())->
			      getNumElements();
		if (m < 0)
			return UndefValue::get(et);
		return unsigned(m) < n0 ?
		       vec_elem(sv->getOperand(0), unsigned(m), at, DL, depth + 1) :
		       vec_elem(sv->getOperand(1), unsigned(m) - n0, at, DL, depth + 1);
	}
	IRBuilder<> b(at);
	if (isa<Argument>(v))
		return b.CreateExtractElement(v, b.getInt32(j));
	if (auto *bc = dyn_cast<BitCastInst>(v);
	    bc && isa<FixedVectorType>(bc->getOperand(0)->getType())) {
		/* a vector reinterpreted as another: element j's bits from
		 * the source's elements */
		Value *src = bc->getOperand(0);
		auto *st = cast<FixedVectorType>(src->getType());
		unsigned eb = unsigned(DL.getTypeSizeInBits(et));
		unsigned sb = unsigned(DL.getTypeSizeInBits(st->getElementType()));
		Value *x;

		if (!et->isIntegerTy() && !et->isFloatTy())
			return nullptr;
		if (eb <= sb) {
			Value *e = vec_elem(src, j * eb / sb, at, DL, depth + 1);
			if (!e)
				return nullptr;
			IRBuilder<> b(at);
			if (!e->getType()->isIntegerTy())
				e = b.CreateBitCast(e, b.getIntNTy(sb));
			x = b.CreateTrunc(b.CreateLShr(e, uint64_t(j * eb % sb)),
					  b.getIntNTy(eb));
		} else {
			IRBuilder<> b(at);
			x = b.getIntN(eb, 0);
			for (unsigned q = 0; q < eb / sb; q++) {
				Value *e = vec_elem(src, j * (eb / sb) + q, at, DL,
						    depth + 1);
				if (!e)
					return nullptr;
				if (!e->getType()->isIntegerTy())
					e = b.CreateBitCast(e, b.getIntNTy(sb));
				x = b.CreateOr(x, b.CreateShl(b.CreateZExt(e,
						b.getIntNTy(eb)), uint64_t(q) * sb));
			}
		}
		IRBuilder<> b(at);
		return et->isFloatTy() ? b.CreateBitCast(x, et) : x;
	}
	if (auto *bc = dyn_cast<BitCastInst>(v)) {
		Value *src = bc->getOperand(0);
		unsigned eb = unsigned(DL.getTypeSizeInBits(et));

		if (src->getType()->isVectorTy() || (!et->isIntegerTy() &&
		    !et->isFloatTy()))
			return nullptr;
		unsigned sb = unsigned(DL.getTypeSizeInBits(src->getType()));
		if (!src->getType()->isIntegerTy())
			src = b.CreateBitCast(src, b.getIntNTy(sb));
		Value *x = b.CreateTrunc(b.CreateLShr(src, uint64_t(j) * eb),
					 b.getIntNTy(eb));
		return et->isFloatTy() ? b.CreateBitCast(x, et) : x;
	}
	return nullptr;
}

/* What the vector code at @i is, for a message: "reading element 2 of
 * a <4 x i8> made by a phi". */
static std::string vec_leftover_what(const Instruction *i)
{
	const Value *v = i->getOperand(0);
	std::string ty, what;
	raw_string_ostream os(ty);

	v->getType()->print(os);
	os.flush();
	if (auto *ee = dyn_cast<ExtractElementInst>(i))
		what = "reading element " + std::to_string(
			cast<ConstantInt>(ee->getIndexOperand())->getZExtValue()) +
		       " of a " + ty + " vector";
	else
		what = "reinterpreting a " + ty + " vector as a scalar (as_type)";
	/* the first thing the vector is made of that is not a plain
	 * insertelement/shufflevector/bitcast chain */
	for (int depth = 0; depth < 64; depth++) {
		if (auto *ie = dyn_cast<InsertElementInst>(v)) {
			if (!isa<ConstantInt>(ie->getOperand(2)))
				return what + " built by an insertelement at a "
				       "variable index";
			v = ie->getOperand(0);
		} else if (auto *sv = dyn_cast<ShuffleVectorInst>(v)) {
			v = sv->getOperand(0);
		} else if (auto *bc = dyn_cast<BitCastInst>(v)) {
			v = bc->getOperand(0);
		} else {
			break;
		}
	}
	if (auto *vi = dyn_cast<Instruction>(v))
		return what + " made by a '" + vi->getOpcodeName() + "'";
	return what;
}

bool Backend::lower_vector_leftovers()
{
	std::vector<Instruction *> work;

	for (Instruction &i : instructions(F)) {
		if (auto *ee = dyn_cast<ExtractElementInst>(&i)) {
			if (!isa<Argument>(ee->getVectorOperand()) &&
			    isa<ConstantInt>(ee->getIndexOperand()))
				work.push_back(&i);
		} else if (auto *bc = dyn_cast<BitCastInst>(&i)) {
			if (bc->getOperand(0)->getType()->isVectorTy() &&
			    !bc->getType()->isVectorTy() &&
			    !isa<Argument>(bc->getOperand(0)))
				work.push_back(&i);
		}
	}
	for (Instruction *i : work) {
		Value *r = nullptr;

		if (auto *ee = dyn_cast<ExtractElementInst>(i)) {
			unsigned j = unsigned(cast<ConstantInt>(ee->getIndexOperand())->
					      getZExtValue());
			r = vec_elem(ee->getVectorOperand(), j, i, DL);
		} else {
			/* a vector reinterpreted as a scalar: its elements
			 * shifted into place */
			Value *v = i->getOperand(0);
			auto *vt = cast<FixedVectorType>(v->getType());
			unsigned eb = unsigned(DL.getTypeSizeInBits(vt->getElementType()));
			unsigned tb = unsigned(DL.getTypeSizeInBits(i->getType()));
			IRBuilder<> b(i);
			Value *acc = b.getIntN(tb, 0);

			for (unsigned j = 0; j < vt->getNumElements(); j++) {
				Value *e = vec_elem(v, j, i, DL);
				if (!e) {
					acc = nullptr;
					break;
				}
				if (!e->getType()->isIntegerTy())
					e = b.CreateBitCast(e, b.getIntNTy(eb));
				e = b.CreateZExt(e, b.getIntNTy(tb));
				acc = b.CreateOr(acc, b.CreateShl(e, uint64_t(j) * eb));
			}
			r = acc && !i->getType()->isIntegerTy() ?
			    b.CreateBitCast(acc, i->getType()) : acc;
		}
		if (!r || r->getType() != i->getType()) {
			/* never left as it is: the back end would compile
			 * the vector wrong (an error, not a miscompile) */
			error(i, vec_leftover_what(i) + ": a vector operation "
			      "the back end cannot split into scalars");
			return false;
		}
		i->replaceAllUsesWith(r);
		i->eraseFromParent();
	}
	/* the vectors nothing reads any more */
	bool changed = true;
	while (changed) {
		changed = false;
		for (BasicBlock &bb : F)
			for (auto it = bb.begin(); it != bb.end(); ) {
				Instruction &i = *it++;
				if (i.getType()->isVectorTy() && i.use_empty() &&
				    !i.mayHaveSideEffects()) {
					i.eraseFromParent();
					changed = true;
				}
			}
	}
	return true;
}

bool Backend::run(Kernel &out)
{
	if (!lower_vector_leftovers() || !signature() || !printf_param() ||
	    !layout() || !collect_tables())
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
		error(nullptr, "kernel '" + F.getName().str() + "' has " +
		      std::to_string(nparams) + " parameters with the hidden "
		      "ones (vmgpu_ndrange0/1, vmgpu_private), more than " +
		      std::to_string(VMGPU_MAX_PARAMS));
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
	strncpy(sig.name, sig_name(F.getName().str()).c_str(),
		sizeof(sig.name) - 1);

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

} // namespace backend

std::string sig_name(const std::string &name)
{
	static const char hex[] = "0123456789abcdef";
	uint32_t h = 2166136261u;	/* FNV-1a */
	std::string s = name.substr(0, VMGPU_KERNEL_NAME_MAX - 10) + "_";

	if (name.size() < VMGPU_KERNEL_NAME_MAX)
		return name;
	for (unsigned char c : name)
		h = (h ^ c) * 16777619u;
	for (int i = 28; i >= 0; i -= 4)
		s += hex[h >> i & 15];
	return s;
}

bool backend_compile(Function &f, const BackendOptions &opts, Kernel &out,
		     std::string &log, const char *file)
{
	backend::Backend be(f, opts, log, file);

	return be.run(out);
}

} // namespace vmgpu_cc
