// SPDX-License-Identifier: MIT
/*
 * OpenCL C's printf (1.2, 6.12.13), lowered before optimisation: each
 * call becomes code that appends one record to the kernel's printf
 * buffer, the hidden parameter VMGPU_PRINTF_PARAM (vmgpu/compiler.h),
 * whose address __vmgpu_printf_buffer() gives (the back end reads it
 * with ldarg). The host writes the records out when the kernel has run
 * (vmgpu_printf_write(), printf_host.c; the runtime calls it).
 *
 * The format and every %s argument are string literals (OpenCL C
 * requires it), known here: a record holds them as constant words, the
 * work-item adds its arguments' bytes. Records are whole 32-bit words,
 * reserved with one atomic add on the buffer's first word (the bytes
 * used); a record that does not fit is not written and printf returns
 * -1, else 0. The layout is in Documentation/compiler.rst ("printf").
 */
#include <cstring>
#include <string>
#include <vector>

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include "compiler.h"

using namespace llvm;

namespace vmgpu_cc {

namespace {

/* One conversion of a format: 'd', 's', ...; vec: its vN, 0 if none */
struct Conv {
	char conv;
	unsigned vec;
	std::string text;
};

/*
 * The conversions of @f as OpenCL C 1.2 writes them: flags, width,
 * precision, a vector specifier vN (N 2, 3, 4, 8, 16), a length
 * modifier (hh, h, hl, l), the conversion. False with @why.
 */
bool parse_format(StringRef f, std::vector<Conv> &out, std::string &why)
{
	auto digits = [&](size_t &i, unsigned &v) {
		v = 0;
		while (i < f.size() && f[i] >= '0' && f[i] <= '9') {
			v = std::min(v * 10 + unsigned(f[i] - '0'), 100000u);
			i++;
		}
	};

	for (size_t i = 0; i < f.size(); i++) {
		if (f[i] != '%')
			continue;
		size_t s = i++;
		unsigned w, p = 0, vec = 0;
		std::string len;

		if (i < f.size() && f[i] == '%')
			continue;
		while (i < f.size() && f[i] && strchr("-+ #0", f[i]))
			i++;
		if (i < f.size() && f[i] == '*') {
			why = "'*' widths and precisions are not OpenCL C's";
			return false;
		}
		digits(i, w);
		if (i < f.size() && f[i] == '.') {
			i++;
			if (i < f.size() && f[i] == '*') {
				why = "'*' widths and precisions are not OpenCL C's";
				return false;
			}
			digits(i, p);
		}
		if (i < f.size() && f[i] == 'v') {
			i++;
			digits(i, vec);
			if (vec != 2 && vec != 3 && vec != 4 && vec != 8 &&
			    vec != 16) {
				why = "a vector specifier is v2, v3, v4, v8 or v16";
				return false;
			}
		}
		if (f.substr(i).startswith("hh") || f.substr(i).startswith("hl"))
			len = f.substr(i, 2).str();
		else if (i < f.size() && (f[i] == 'h' || f[i] == 'l'))
			len = f.substr(i, 1).str();
		i += len.size();
		if (i >= f.size()) {
			why = "the format ends inside the conversion '" +
			      f.substr(s).str() + "'";
			return false;
		}
		std::string text = f.substr(s, i + 1 - s).str();
		char c = f[i];
		if (!c || !strchr("diouxXfFeEgGaAcsp", c)) {
			why = "unknown conversion '" + text + "'";
			return false;
		}
		if (w > VMGPU_PRINTF_MAX_FIELD || p > VMGPU_PRINTF_MAX_FIELD) {
			why = "'" + text + "': widths and precisions are at most " +
			      std::to_string(VMGPU_PRINTF_MAX_FIELD);
			return false;
		}
		if (vec && strchr("csp", c)) {
			why = "'" + text + "': %c, %s and %p take no vector";
			return false;
		}
		if (len == "hl" && !vec) {
			why = "'" + text + "': the length modifier hl is for "
			      "vectors only";
			return false;
		}
		out.push_back({ c, vec, text });
	}
	return true;
}

/* A string literal's bytes (without its NUL), if @v is one. */
bool literal(Value *v, std::string &s)
{
	StringRef r;

	if (!getConstantStringInfo(v, r))
		return false;
	s = r.str();
	return true;
}

struct Rec {
	std::vector<Value *> words;	/* i32 each */
};

/* The words of @bytes, zero-padded to a multiple of 4. */
void put_bytes(IRBuilder<> &b, Rec &rec, const std::string &bytes)
{
	for (size_t k = 0; k < bytes.size(); k += 4) {
		uint32_t w = 0;

		for (size_t j = 0; j < 4 && k + j < bytes.size(); j++)
			w |= uint32_t(uint8_t(bytes[k + j])) << (8 * j);
		rec.words.push_back(b.getInt32(w));
	}
}

/*
 * Argument @v of a conversion @c (nullptr: an argument past the format's
 * conversions) into @rec: its descriptor word, its data bytes, the data.
 * False with @why.
 */
bool put_arg(IRBuilder<> &b, Rec &rec, Value *v, const Conv *c,
	     std::string &why)
{
	Type *t = v->getType();
	auto *vt = dyn_cast<FixedVectorType>(t);
	Type *et = vt ? vt->getElementType() : t;
	unsigned count = vt ? vt->getNumElements() : 1, kind, esize;
	std::string s;

	if (c && c->conv == 's') {
		if (!t->isPointerTy() || !literal(v, s)) {
			why = "the argument of '" + c->text + "' must be a "
			      "string literal";
			return false;
		}
		rec.words.push_back(b.getInt32(VMGPU_PRINTF_ARG(
			VMGPU_PRINTF_STRING, 1, 0)));
		rec.words.push_back(b.getInt32(uint32_t(s.size())));
		put_bytes(b, rec, s);
		return true;
	}
	if (c && c->vec && c->vec != count) {
		why = "'" + c->text + "' takes a vector of " +
		      std::to_string(c->vec) + " elements, " +
		      (vt ? "one of " + std::to_string(count) : "a scalar") +
		      " given";
		return false;
	}
	if (c && !c->vec && vt) {
		why = "'" + c->text + "' takes a scalar, a vector given (use "
		      "'%v" + std::to_string(count) + "...')";
		return false;
	}
	if (et->isPointerTy()) {
		if (vt) {
			why = "a vector of pointers cannot be printed";
			return false;
		}
		kind = VMGPU_PRINTF_POINTER;
		esize = 8;
	} else if (et->isFloatTy()) {
		kind = VMGPU_PRINTF_FLOAT;
		esize = 4;
	} else if (et->isIntegerTy() && et->getIntegerBitWidth() <= 64) {
		kind = VMGPU_PRINTF_INT;
		esize = std::max(1u, et->getIntegerBitWidth() / 8);
		if (et->getIntegerBitWidth() % 8 && !et->isIntegerTy(1)) {
			why = "an integer of " +
			      std::to_string(et->getIntegerBitWidth()) +
			      " bits cannot be printed";
			return false;
		}
	} else {
		why = "an argument of this type cannot be printed";
		return false;
	}
	unsigned bytes = esize * count, first = unsigned(rec.words.size()) + 2;
	rec.words.push_back(b.getInt32(VMGPU_PRINTF_ARG(kind, esize, count)));
	rec.words.push_back(b.getInt32(bytes));
	rec.words.resize(first + (bytes + 3) / 4, b.getInt32(0));
	for (unsigned e = 0; e < count; e++) {
		Value *x = vt ? b.CreateExtractElement(v, b.getInt32(e)) : v;
		unsigned off = e * esize;

		if (kind == VMGPU_PRINTF_POINTER)
			x = b.CreatePtrToInt(x, b.getInt64Ty());
		else if (kind == VMGPU_PRINTF_FLOAT)
			x = b.CreateBitCast(x, b.getInt32Ty());
		if (esize == 8) {
			rec.words[first + off / 4] = b.CreateTrunc(x, b.getInt32Ty());
			rec.words[first + off / 4 + 1] = b.CreateTrunc(
				b.CreateLShr(x, 32), b.getInt32Ty());
			continue;
		}
		x = b.CreateZExt(x, b.getInt32Ty());
		if (off % 4)
			x = b.CreateShl(x, 8 * (off % 4));
		Value *&w = rec.words[first + off / 4];
		w = off % 4 ? b.CreateOr(w, x) : x;
	}
	return true;
}

/* Replace the printf call @call. False with an error in @log. */
bool lower_call(CallInst *call, Function *buffer, const char *file,
		std::string &log)
{
	std::string fmt, why;
	std::vector<Conv> convs;
	IRBuilder<> b(call);
	Rec rec;
	unsigned nargs = call->arg_size() - 1;

	b.SetCurrentDebugLocation(call->getDebugLoc());
	if (!call->arg_size() || !literal(call->getArgOperand(0), fmt)) {
		log += diag_at(call, "printf: the format must be a string "
			       "literal", file);
		return false;
	}
	if (!parse_format(fmt, convs, why)) {
		log += diag_at(call, "printf: " + why, file);
		return false;
	}
	if (nargs > VMGPU_PRINTF_MAX_ARGS) {
		log += diag_at(call, "printf: " + std::to_string(nargs) +
			       " arguments, more than " +
			       std::to_string(VMGPU_PRINTF_MAX_ARGS), file);
		return false;
	}
	if (convs.size() > nargs) {
		log += diag_at(call, "printf: the format has " +
			       std::to_string(convs.size()) + " conversions, " +
			       std::to_string(nargs) + " arguments given", file);
		return false;
	}
	rec.words.push_back(nullptr);	/* the record's bytes, below */
	rec.words.push_back(b.getInt32(uint32_t(fmt.size())));
	rec.words.push_back(b.getInt32(nargs));
	put_bytes(b, rec, fmt);
	for (unsigned k = 0; k < nargs; k++)
		if (!put_arg(b, rec, call->getArgOperand(k + 1),
			     k < convs.size() ? &convs[k] : nullptr, why)) {
			log += diag_at(call, "printf: argument " +
				       std::to_string(k + 1) + ": " + why, file);
			return false;
		}
	uint64_t size = 4 * uint64_t(rec.words.size());
	if (size > VMGPU_PRINTF_BUFFER_BYTES) {
		log += diag_at(call, "printf: a record of " +
			       std::to_string(size) + " bytes does not fit the "
			       "printf buffer", file);
		return false;
	}
	rec.words[0] = b.getInt32(uint32_t(size));

	/*
	 *   used = buf[0]; if (used > CAP - size) return -1;
	 *   off = atomic_add(&buf[0], size);
	 *   if (off > CAP - size) return -1;
	 *   the words at buf + HEADER + off; return 0;
	 * Reading first keeps the word from growing without bound once the
	 * buffer is full.
	 */
	BasicBlock *head = call->getParent();
	BasicBlock *join = head->splitBasicBlock(call, "printf.join");
	LLVMContext &ctx = call->getContext();
	Function *f = head->getParent();
	BasicBlock *take = BasicBlock::Create(ctx, "printf.take", f, join);
	BasicBlock *write = BasicBlock::Create(ctx, "printf.write", f, join);
	uint32_t last = VMGPU_PRINTF_BUFFER_BYTES - uint32_t(size);

	head->getTerminator()->eraseFromParent();
	b.SetInsertPoint(head);
	Value *buf = b.CreateCall(buffer);
	LoadInst *used = b.CreateAlignedLoad(b.getInt32Ty(), buf, Align(4));
	used->setVolatile(true);
	b.CreateCondBr(b.CreateICmpULE(used, b.getInt32(last)), take, join);
	b.SetInsertPoint(take);
	Value *off = b.CreateAtomicRMW(AtomicRMWInst::Add, buf,
				       b.getInt32(uint32_t(size)), Align(4),
				       AtomicOrdering::Monotonic);
	b.CreateCondBr(b.CreateICmpULE(off, b.getInt32(last)), write, join);
	b.SetInsertPoint(write);
	Value *at = b.CreateGEP(b.getInt8Ty(), buf,
				b.CreateAdd(b.CreateZExt(off, b.getInt64Ty()),
					    b.getInt64(VMGPU_PRINTF_HEADER_BYTES)));
	for (size_t k = 0; k < rec.words.size(); k++)
		b.CreateAlignedStore(rec.words[k],
				     b.CreateConstGEP1_64(b.getInt8Ty(), at, 4 * k),
				     Align(4));
	b.CreateBr(join);
	b.SetInsertPoint(&*join->begin());
	PHINode *r = b.CreatePHI(b.getInt32Ty(), 3);
	r->addIncoming(b.getInt32(-1), head);
	r->addIncoming(b.getInt32(-1), take);
	r->addIncoming(b.getInt32(0), write);
	if (!call->getType()->isVoidTy())
		call->replaceAllUsesWith(r);
	call->eraseFromParent();
	return true;
}

} // namespace

bool lower_printf(Module &m, const char *file, std::string &log)
{
	Function *pf = m.getFunction("printf");
	std::vector<CallInst *> calls;
	bool ok = true;

	if (!pf || !pf->isDeclaration())
		return true;
	for (User *u : pf->users())
		if (auto *c = dyn_cast<CallInst>(u))
			if (c->getCalledFunction() == pf)
				calls.push_back(c);
	if (calls.empty())
		return true;
	LLVMContext &ctx = m.getContext();
	FunctionCallee fc = m.getOrInsertFunction(
		"__vmgpu_printf_buffer",
		FunctionType::get(PointerType::get(ctx, 1), false));
	auto *buffer = cast<Function>(fc.getCallee());
	buffer->setDoesNotAccessMemory();
	buffer->setDoesNotThrow();
	buffer->setWillReturn();
	for (CallInst *c : calls)
		ok &= lower_call(c, buffer, file, log);
	if (ok && pf->use_empty())
		pf->eraseFromParent();
	return ok;
}

} // namespace vmgpu_cc
