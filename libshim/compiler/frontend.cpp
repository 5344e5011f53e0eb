// SPDX-License-Identifier: MIT
/*
 * The compiler's front end and its C API (vmgpu.h): OpenCL C 1.2 through
 * clang in-process (one CompilerInstance and one LLVMContext per build
 * call, so builds in several threads share nothing), the built-in
 * library linked in and inlined, LLVM's O2 pipeline, the language rules
 * the ISA imposes, then the back end for every kernel.
 */
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <sstream>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticSema.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/PreprocessorOptions.h>

#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/DCE.h>
#include <llvm/Transforms/Scalar/Scalarizer.h>
#include <llvm/Transforms/Utils/BreakCriticalEdges.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/LowerMemIntrinsics.h>
#include <llvm/Transforms/Utils/LowerSwitch.h>

#include "compiler.h"
#include "vmgpu.h"
#include "vmgpu/compiler.h"

#ifndef VMGPU_CLANG_RESOURCE_DIR
#define VMGPU_CLANG_RESOURCE_DIR "/usr/lib/llvm-16/lib/clang/16"
#endif

using namespace llvm;


using namespace vmgpu_cc;

namespace {

struct Options {
	std::string name = "input.cl";
	std::vector<std::string> clang;		/* passed to clang */
	BackendOptions be;
};

bool parse_options(const char *opts, Options &o, std::string &log)
{
	std::istringstream in(opts ? opts : "");
	std::string w;

	while (in >> w) {
		if (w.rfind("-vmgpu-source-name=", 0) == 0) {
			o.name = w.substr(19);
		} else if (w.rfind("-vmgpu-isa=", 0) == 0) {
			char *end;
			unsigned long n = strtoul(w.c_str() + 11, &end, 10);

			if (*end || n < VMGPU_ISA_VERSION_MIN ||
			    n > VMGPU_ISA_VERSION) {
				log += "error: -vmgpu-isa must be " +
				       std::to_string(VMGPU_ISA_VERSION_MIN) +
				       ".." + std::to_string(VMGPU_ISA_VERSION) +
				       "\n";
				return false;
			}
			o.be.isa = unsigned(n);
		} else if (w == VMGPU_NDRANGE_OPTION) {
			o.be.ndrange_args = true;
		} else if (w == VMGPU_KERNEL_CALLS_OPTION) {
			o.be.kernel_calls = true;
		} else if (w.rfind("-vmgpu-max-regs=", 0) == 0) {
			unsigned long n = strtoul(w.c_str() + 16, nullptr, 10);

			if (n < 16 || n > VMGPU_ISA_MAX_REGS) {
				log += "error: -vmgpu-max-regs must be 16..128\n";
				return false;
			}
			o.be.max_regs = n;
		} else if ((w == "-D" || w == "-I" || w == "-U") && in >> std::ws) {
			std::string v;

			in >> v;
			o.clang.push_back(w);
			o.clang.push_back(v);
		} else if (w.rfind("-D", 0) == 0 || w.rfind("-I", 0) == 0 ||
			   w.rfind("-U", 0) == 0 || w == "-w" || w == "-Werror" ||
			   w == "-cl-fast-relaxed-math" || w == "-cl-mad-enable" ||
			   w == "-cl-no-signed-zeros" ||
			   w == "-cl-finite-math-only" ||
			   w == "-cl-unsafe-math-optimizations" ||
			   w == "-cl-denorms-are-zero" ||
			   w == "-cl-single-precision-constant" ||
			   w == "-cl-fp32-correctly-rounded-divide-sqrt" ||
			   w == "-cl-opt-disable" || w == "-cl-std=CL1.2" ||
			   w == "-cl-std=CL1.1" || w == "-cl-std=CL1.0" ||
			   w == "-ffp-contract=off" || w == "-ffp-contract=on" ||
			   w == "-ffp-contract=fast") {
			if (w == "-cl-opt-disable")
				continue;	/* the back end needs O2's SSA */
			o.clang.push_back(w);
		} else {
			log += "error: unknown build option '" + w + "'\n";
			return false;
		}
	}
	return true;
}

/*
 * Declarations every program sees (vmgpu's own built-ins, defined in
 * clclib.cpp), included before its first line.
 */
const char prelude_name[] = "/vmgpu-virtual/vmgpu-prelude.h";
const char prelude[] =
	"uint vmgpu_item_base(void);\n"
	"uint vmgpu_item_count(void);\n";

/* OpenCL C source to an unoptimised module; diagnostics into @log. */
std::unique_ptr<Module> compile_cl(const std::string &src,
				   const std::string &name,
				   const std::vector<std::string> &extra,
				   bool debug, LLVMContext &ctx, std::string &log)
{
	std::string diags;
	raw_string_ostream dos(diags);
	IntrusiveRefCntPtr<clang::DiagnosticOptions> dopts =
		new clang::DiagnosticOptions();
	dopts->ShowColors = false;
	auto *printer = new clang::TextDiagnosticPrinter(dos, dopts.get());
	IntrusiveRefCntPtr<clang::DiagnosticIDs> ids(new clang::DiagnosticIDs());
	clang::DiagnosticsEngine engine(ids, dopts.get(), printer);
	std::vector<const char *> args = {
		"-triple", "spir64-unknown-unknown", "-cl-std=CL1.2",
		"-finclude-default-header", "-fdeclare-opencl-builtins",
		"-O2", "-disable-llvm-passes", "-cl-kernel-arg-info",
		"-emit-llvm-only", "-x", "cl",
	};
	auto inv = std::make_shared<clang::CompilerInvocation>();
	std::unique_ptr<Module> m;

	for (const std::string &e : extra)
		args.push_back(e.c_str());
	/* ISA version 1 has no fp64: clang itself rejects double, naming
	 * the line (after the user's options, so they cannot enable it). */
	args.push_back("-cl-ext=-cl_khr_fp64");
	if (debug)
		args.push_back("-debug-info-kind=line-tables-only");
	args.push_back(name.c_str());
	if (!clang::CompilerInvocation::CreateFromArgs(*inv, args, engine)) {
		dos.flush();
		log += diags;
		return nullptr;
	}
	inv->getHeaderSearchOpts().ResourceDir = VMGPU_CLANG_RESOURCE_DIR;
	/* No vmgpu device has images: OpenCL C says the macro is then
	 * not defined at all (clang's SPIR target defines it). */
	inv->getPreprocessorOpts().addMacroUndef("__IMAGE_SUPPORT__");
	/* The platform's OpenCL version (clang defines only the C one). */
	inv->getPreprocessorOpts().addMacroDef("__OPENCL_VERSION__=120");
	inv->getPreprocessorOpts().addRemappedFile(
		name, MemoryBuffer::getMemBufferCopy(src, name).release());
	if (debug) {	/* the program, not the library */
		inv->getPreprocessorOpts().addRemappedFile(
			prelude_name,
			MemoryBuffer::getMemBufferCopy(prelude, prelude_name)
				.release());
		inv->getPreprocessorOpts().Includes.push_back(prelude_name);
	}
	inv->getCodeGenOpts().DiscardValueNames = false;

	clang::CompilerInstance ci;
	ci.setInvocation(inv);
	ci.createDiagnostics(new clang::TextDiagnosticPrinter(
				     dos, &ci.getDiagnosticOpts()), true);
	/*
	 * printf's "format specifies type 'double' but the argument has
	 * type 'float'": clang checks OpenCL C's printf as C's, where a
	 * float is promoted; without fp64 OpenCL passes it as it is, so
	 * every %f of a float was warned of (an error with -Werror). The
	 * compiler checks the conversions itself (printf.cpp).
	 */
	ci.getDiagnostics().setSeverity(
		clang::diag::warn_format_conversion_argument_type_mismatch,
		clang::diag::Severity::Ignored, clang::SourceLocation());
	/* "N errors generated." into the log too, not to stderr */
	ci.setVerboseOutputStream(dos);
	clang::EmitLLVMOnlyAction act(&ctx);
	bool ok = ci.ExecuteAction(act);

	if (ok)
		m = act.takeModule();
	dos.flush();
	log += diags;
	return m;
}

/* spir64's address spaces (compiler.rst) */
const unsigned AS_GLOBAL_MEM = 1, AS_LOCAL_MEM = 3;

bool is_kernel(const Function &f)
{
	return f.getCallingConv() == CallingConv::SPIR_KERNEL;
}

std::string pretty(StringRef mangled)
{
	std::string d = demangle(mangled.str());

	return d;
}

/*
 * Does @st put a pointer to local memory where other work-groups can read
 * it? Local memory is the block's shared memory: its offsets mean nothing
 * outside the block. An address converted to an integer is a number, not
 * a pointer (OpenCL C's local addresses are each group's own; the CTS's
 * kernel_memory_alignment_local stores them to check their alignment):
 * it may be stored (Documentation/compiler.rst, SPEC P8).
 */
bool escapes_local(const StoreInst *st)
{
	const Value *v = st->getValueOperand();

	if (st->getPointerAddressSpace() != AS_GLOBAL_MEM)
		return false;
	while (auto *c = dyn_cast<CastInst>(v)) {
		if (isa<PtrToIntInst>(c))
			return false;
		if (c->getSrcTy()->isPointerTy() &&
		    c->getSrcTy()->getPointerAddressSpace() == AS_LOCAL_MEM)
			return true;
		v = c->getOperand(0);
	}
	if (auto *ce = dyn_cast<ConstantExpr>(v)) {
		if (ce->getOpcode() == Instruction::PtrToInt)
			return false;
		if (ce->isCast())
			v = ce->getOperand(0);
	}
	return v->getType()->isPointerTy() &&
	       v->getType()->getPointerAddressSpace() == AS_LOCAL_MEM;
}

/*
 * The rules of the kernel language the ISA imposes (SPEC P8), on the
 * program before optimisation so that every call is still there: no
 * kernel calls a kernel (unless @kernel_calls: OpenCL C allows it),
 * nothing is recursive, no call is indirect, every function called
 * exists (the program or the built-in library).
 */
bool check_rules(Module &m, const std::string &file, bool kernel_calls,
		 std::string &log)
{
	bool ok = true;
	std::set<const Function *> reported;

	for (Function &f : m) {
		for (Instruction &i : instructions(f)) {
			auto *call = dyn_cast<CallBase>(&i);
			Function *callee;

			if (auto *st = dyn_cast<StoreInst>(&i)) {
				if (escapes_local(st)) {
					log += diag_at(&i, "a pointer to local "
						       "memory cannot leave its "
						       "work-group: stored to "
						       "global memory",
						       file.c_str());
					ok = false;
				}
				continue;
			}
			if (!call)
				continue;
			callee = call->getCalledFunction();
			if (!callee) {
				log += diag_at(&i, "indirect calls (function "
					       "pointers) are not supported",
					       file.c_str());
				ok = false;
				continue;
			}
			if (callee->isIntrinsic())
				continue;
			if (is_kernel(*callee) && !kernel_calls) {
				log += diag_at(&i, std::string(is_kernel(f) ?
					       "kernel '" : "function '") +
					       pretty(f.getName()) +
					       "' calls kernel '" +
					       callee->getName().str() +
					       "': a kernel cannot call a kernel",
					       file.c_str());
				ok = false;
				continue;
			}
			if (callee->isDeclaration() &&
			    !callee->getName().startswith("__vmgpu_")) {
				log += diag_at(&i, "function '" +
					       pretty(callee->getName()) +
					       "' is not available on vmgpu",
					       file.c_str());
				ok = false;
			}
		}
	}
	/* Recursion: a call from f to a function from which f is reachable. */
	for (Function &f : m) {
		std::vector<Function *> stack;
		std::set<Function *> seen;

		if (f.isDeclaration())
			continue;
		for (Instruction &i : instructions(f)) {
			auto *call = dyn_cast<CallBase>(&i);
			Function *callee = call ? call->getCalledFunction() :
						  nullptr;
			bool cycle = false;

			if (!callee || callee->isDeclaration())
				continue;
			stack.assign(1, callee);
			seen.clear();
			while (!stack.empty() && !cycle) {
				Function *g = stack.back();

				stack.pop_back();
				if (g == &f) {
					cycle = true;
					break;
				}
				if (!seen.insert(g).second || g->isDeclaration())
					continue;
				for (Instruction &j : instructions(*g))
					if (auto *c2 = dyn_cast<CallBase>(&j))
						if (Function *h = c2->getCalledFunction())
							stack.push_back(h);
			}
			if (cycle && reported.insert(&f).second) {
				log += diag_at(&i, "recursion is not supported: '" +
					       pretty(callee->getName()) +
					       "' calls back into '" +
					       pretty(f.getName()) + "'",
					       file.c_str());
				ok = false;
			}
		}
	}
	return ok;
}

/*
 * OpenCL C: a kernel called from a kernel or a function is an ordinary
 * function. Each kernel something calls gets a copy of its body as a
 * plain function (internal, inlined like any other: its work-item
 * functions are its caller's), and the calls go to the copy; the kernel
 * itself stays as it was, so its executable does not change.
 */
void kernels_as_functions(Module &m)
{
	std::vector<Function *> called;

	for (Function &f : m)
		if (is_kernel(f) && !f.isDeclaration())
			for (User *u : f.users())
				if (auto *c = dyn_cast<CallBase>(u))
					if (c->getCalledFunction() == &f) {
						called.push_back(&f);
						break;
					}
	for (Function *k : called) {
		ValueToValueMapTy vmap;
		Function *body = CloneFunction(k, vmap);
		std::vector<CallBase *> calls;

		body->setName("__vmgpu_kernel_body." + k->getName());
		body->setCallingConv(CallingConv::SPIR_FUNC);
		body->setLinkage(GlobalValue::InternalLinkage);
		for (const char *md : { "kernel_arg_addr_space",
					"kernel_arg_access_qual",
					"kernel_arg_type", "kernel_arg_base_type",
					"kernel_arg_type_qual", "kernel_arg_name",
					"reqd_work_group_size",
					"work_group_size_hint", "vec_type_hint" })
			body->setMetadata(md, nullptr);
		for (User *u : k->users())
			if (auto *c = dyn_cast<CallBase>(u))
				if (c->getCalledFunction() == k)
					calls.push_back(c);
		for (CallBase *c : calls) {
			c->setCalledFunction(body);
			c->setCallingConv(CallingConv::SPIR_FUNC);
		}
	}
}

/*
 * 64-bit division and 64-bit integer <-> float conversions become calls
 * of the built-in library's __vmgpu_* functions (before linking it, so
 * that linking brings them in; inlined like every library function).
 * Vector ones (long4 / 4294967296l) are first split into one scalar
 * operation per element.
 */
bool lowered_to_library(Instruction &i)
{
	unsigned op = i.getOpcode();
	Type *t = i.getType()->getScalarType();

	if (op == Instruction::UDiv || op == Instruction::SDiv ||
	    op == Instruction::URem || op == Instruction::SRem)
		return t->isIntegerTy(64);
	if (op == Instruction::SIToFP || op == Instruction::UIToFP)
		return t->isFloatTy() &&
		       i.getOperand(0)->getType()->getScalarType()->isIntegerTy(64);
	if (op == Instruction::FPToSI || op == Instruction::FPToUI)
		return t->isIntegerTy(64) &&
		       i.getOperand(0)->getType()->getScalarType()->isFloatTy();
	return false;
}

void split_vector_ops(Module &m)
{
	std::vector<Instruction *> todo;

	for (Function &f : m)
		for (Instruction &i : instructions(f))
			if (isa<FixedVectorType>(i.getType()) && lowered_to_library(i))
				todo.push_back(&i);
	for (Instruction *i : todo) {
		auto *vt = cast<FixedVectorType>(i->getType());
		IRBuilder<> b(i);
		Value *v = PoisonValue::get(vt);

		b.SetCurrentDebugLocation(i->getDebugLoc());
		for (unsigned e = 0; e < vt->getNumElements(); e++) {
			Value *x = b.CreateExtractElement(i->getOperand(0), e), *r;
			if (auto *bo = dyn_cast<BinaryOperator>(i))
				r = b.CreateBinOp(bo->getOpcode(), x,
						  b.CreateExtractElement(i->getOperand(1), e));
			else
				r = b.CreateCast(cast<CastInst>(i)->getOpcode(), x,
						 vt->getElementType());
			v = b.CreateInsertElement(v, r, e);
		}
		i->replaceAllUsesWith(v);
		i->eraseFromParent();
	}
}

/*
 * Signed division and remainder by a constant 2^k (k 1..62): a shift
 * with the bias that rounds toward zero, as LLVM's code generators do
 * (InstCombine leaves them, and the library's loop would take 64 steps).
 */
bool signed_pow2(Instruction *i)
{
	unsigned op = i->getOpcode();
	if (op != Instruction::SDiv && op != Instruction::SRem)
		return false;
	auto *c = dyn_cast<ConstantInt>(i->getOperand(1));
	if (!c || !c->getValue().isPowerOf2() || c->getValue().isOne() ||
	    c->getValue().isNegative())
		return false;
	unsigned k = c->getValue().logBase2();
	IRBuilder<> b(i);
	b.SetCurrentDebugLocation(i->getDebugLoc());
	Value *x = i->getOperand(0);
	Value *bias = b.CreateLShr(b.CreateAShr(x, 63), 64 - k);
	Value *t = b.CreateAdd(x, bias), *r;

	if (op == Instruction::SDiv)
		r = b.CreateAShr(t, k);
	else
		r = b.CreateSub(x, b.CreateAnd(t, -((uint64_t)1 << k)));
	i->replaceAllUsesWith(r);
	i->eraseFromParent();
	return true;
}

void lower_to_library(Module &m)
{
	std::vector<Instruction *> todo;
	LLVMContext &ctx = m.getContext();
	Type *i64 = Type::getInt64Ty(ctx), *f32 = Type::getFloatTy(ctx);

	split_vector_ops(m);
	for (Function &f : m)
		for (Instruction &i : instructions(f)) {
			Type *t = i.getType();
			unsigned op = i.getOpcode();

			auto *k = i.getNumOperands() > 1 ?
				  dyn_cast<ConstantInt>(i.getOperand(1)) : nullptr;
			bool pow2u = k && k->getValue().isPowerOf2() &&
				     (op == Instruction::UDiv || op == Instruction::URem);

			if (t->isIntegerTy(64) && !pow2u &&	/* O2: shift, and */
			    (op == Instruction::UDiv || op == Instruction::SDiv ||
			     op == Instruction::URem || op == Instruction::SRem))
				todo.push_back(&i);
			else if ((op == Instruction::SIToFP || op == Instruction::UIToFP) &&
				 t->isFloatTy() && i.getOperand(0)->getType()->isIntegerTy(64))
				todo.push_back(&i);
			else if ((op == Instruction::FPToSI || op == Instruction::FPToUI) &&
				 t->isIntegerTy(64) && i.getOperand(0)->getType()->isFloatTy())
				todo.push_back(&i);
		}
	for (Instruction *i : todo) {
		const char *name = nullptr;
		FunctionType *ft;

		if (signed_pow2(i))
			continue;
		switch (i->getOpcode()) {
		case Instruction::UDiv: name = "__vmgpu_udiv64"; break;
		case Instruction::SDiv: name = "__vmgpu_sdiv64"; break;
		case Instruction::URem: name = "__vmgpu_urem64"; break;
		case Instruction::SRem: name = "__vmgpu_srem64"; break;
		case Instruction::SIToFP: name = "__vmgpu_l2f"; break;
		case Instruction::UIToFP: name = "__vmgpu_ul2f"; break;
		case Instruction::FPToSI: name = "__vmgpu_f2l"; break;
		default: name = "__vmgpu_f2ul"; break;
		}
		if (isa<BinaryOperator>(i))
			ft = FunctionType::get(i64, { i64, i64 }, false);
		else if (i->getType()->isFloatTy())
			ft = FunctionType::get(f32, { i64 }, false);
		else
			ft = FunctionType::get(i64, { f32 }, false);
		FunctionCallee fc = m.getOrInsertFunction(name, ft);
		if (auto *fn = dyn_cast<Function>(fc.getCallee()))
			fn->setCallingConv(CallingConv::SPIR_FUNC);
		std::vector<Value *> args(i->op_begin(), i->op_end());
		CallInst *call = CallInst::Create(fc, args, "", i);
		call->setCallingConv(CallingConv::SPIR_FUNC);
		call->setDebugLoc(i->getDebugLoc());
		i->replaceAllUsesWith(call);
		i->eraseFromParent();
	}
}

/*
 * Intrinsics InstCombine forms from ordinary code (saturating arithmetic,
 * bit counts, byte swaps, funnel shifts) as plain IR the back end
 * selects, after the last InstCombine so that they stay expanded.
 */
Value *popcount(IRBuilder<> &b, Value *x)
{
	auto *t = cast<IntegerType>(x->getType());
	unsigned w = t->getBitWidth(), cw = w <= 32 ? 32 : 64;
	Type *ct = b.getIntNTy(cw);
	auto k = [&](uint64_t v) { return ConstantInt::get(ct, v); };
	uint64_t m1 = 0x5555555555555555ull, m2 = 0x3333333333333333ull,
		 m4 = 0x0f0f0f0f0f0f0f0full, h01 = 0x0101010101010101ull;

	x = b.CreateZExt(x, ct);
	x = b.CreateSub(x, b.CreateAnd(b.CreateLShr(x, k(1)), k(m1)));
	x = b.CreateAdd(b.CreateAnd(x, k(m2)),
			b.CreateAnd(b.CreateLShr(x, k(2)), k(m2)));
	x = b.CreateAnd(b.CreateAdd(x, b.CreateLShr(x, k(4))), k(m4));
	x = b.CreateLShr(b.CreateMul(x, k(h01)), k(cw - 8));
	return b.CreateTrunc(x, t);
}

bool expand_intrinsic(IntrinsicInst *ii)
{
	IRBuilder<> b(ii);
	Type *t = ii->getType();
	auto *it = dyn_cast<IntegerType>(t);
	Value *x = ii->arg_size() > 0 ? ii->getArgOperand(0) : nullptr;
	Value *y = ii->arg_size() > 1 ? ii->getArgOperand(1) : nullptr;
	Value *r = nullptr;

	if (!it)
		return false;
	unsigned w = it->getBitWidth();
	switch (ii->getIntrinsicID()) {
	case Intrinsic::usub_sat:
		r = b.CreateSelect(b.CreateICmpUGT(x, y), b.CreateSub(x, y),
				   ConstantInt::get(t, 0));
		break;
	case Intrinsic::uadd_sat: {
		Value *s = b.CreateAdd(x, y);
		r = b.CreateSelect(b.CreateICmpULT(s, x),
				   ConstantInt::getAllOnesValue(t), s);
		break;
	}
	case Intrinsic::sadd_sat:
	case Intrinsic::ssub_sat: {
		bool add = ii->getIntrinsicID() == Intrinsic::sadd_sat;
		Value *s = add ? b.CreateAdd(x, y) : b.CreateSub(x, y);
		Value *ov = add ? b.CreateAnd(b.CreateXor(x, s), b.CreateXor(y, s)) :
				  b.CreateAnd(b.CreateXor(x, y), b.CreateXor(x, s));
		Value *lim = b.CreateSelect(
			b.CreateICmpSLT(x, ConstantInt::get(t, 0)),
			ConstantInt::get(t, APInt::getSignedMinValue(w)),
			ConstantInt::get(t, APInt::getSignedMaxValue(w)));
		r = b.CreateSelect(b.CreateICmpSLT(ov, ConstantInt::get(t, 0)),
				   lim, s);
		break;
	}
	case Intrinsic::ctpop:
		r = popcount(b, x);
		break;
	case Intrinsic::ctlz: {
		for (unsigned sh = 1; sh < w; sh *= 2)
			x = b.CreateOr(x, b.CreateLShr(x, ConstantInt::get(t, sh)));
		r = b.CreateSub(ConstantInt::get(t, w), popcount(b, x));
		break;
	}
	case Intrinsic::cttz:
		r = popcount(b, b.CreateAnd(b.CreateNot(x),
					    b.CreateSub(x, ConstantInt::get(t, 1))));
		break;
	case Intrinsic::bswap:
		r = ConstantInt::get(t, 0);
		for (unsigned k = 0; k < w / 8; k++) {
			Value *byte = b.CreateAnd(b.CreateLShr(x, ConstantInt::get(t, 8 * k)),
						  ConstantInt::get(t, 0xff));
			r = b.CreateOr(r, b.CreateShl(byte,
				ConstantInt::get(t, 8 * (w / 8 - 1 - k))));
		}
		break;
	case Intrinsic::fshl:
	case Intrinsic::fshr: {
		/* fshl(x, y, s) = x << s | y >> (w - s), s = z % w; s = 0: x
		 * (fshl) or y (fshr) */
		bool left = ii->getIntrinsicID() == Intrinsic::fshl;
		Value *sh = isPowerOf2_32(w) ?
			b.CreateAnd(ii->getArgOperand(2), ConstantInt::get(t, w - 1)) :
			b.CreateURem(ii->getArgOperand(2), ConstantInt::get(t, w));
		Value *inv = b.CreateSub(ConstantInt::get(t, w), sh);
		Value *v = left ?
			b.CreateOr(b.CreateShl(x, sh), b.CreateLShr(y, inv)) :
			b.CreateOr(b.CreateShl(x, inv), b.CreateLShr(y, sh));
		r = b.CreateSelect(b.CreateICmpEQ(sh, ConstantInt::get(t, 0)),
				   left ? x : y, v);
		break;
	}
	default:
		return false;
	}
	ii->replaceAllUsesWith(r);
	ii->eraseFromParent();
	return true;
}

void expand_intrinsics(Module &m)
{
	for (Function &f : m) {
		std::vector<IntrinsicInst *> todo;

		for (Instruction &i : instructions(f))
			if (auto *ii = dyn_cast<IntrinsicInst>(&i))
				todo.push_back(ii);
		for (IntrinsicInst *ii : todo)
			expand_intrinsic(ii);
	}
}

/*
 * A volatile load or store of a vector (a volatile vector parameter or
 * variable, a pointer to volatile vectors), which the Scalarizer leaves
 * whole, as one volatile access per element, in order: the ISA's
 * accesses are scalar.
 */
static void split_volatile_vectors(Function &f)
{
	std::vector<Instruction *> todo;

	for (Instruction &i : instructions(f)) {
		auto *ld = dyn_cast<LoadInst>(&i);
		auto *st = dyn_cast<StoreInst>(&i);

		if ((ld && ld->isVolatile() && ld->getType()->isVectorTy()) ||
		    (st && st->isVolatile() &&
		     st->getValueOperand()->getType()->isVectorTy()))
			todo.push_back(&i);
	}
	for (Instruction *i : todo) {
		auto *ld = dyn_cast<LoadInst>(i);
		auto *st = dyn_cast<StoreInst>(i);
		auto *vt = cast<FixedVectorType>(ld ? ld->getType() :
					st->getValueOperand()->getType());
		Type *et = vt->getElementType();
		Value *ptr = ld ? ld->getPointerOperand() : st->getPointerOperand();
		Align al = ld ? ld->getAlign() : st->getAlign();
		uint64_t esz = f.getParent()->getDataLayout().getTypeAllocSize(et);
		IRBuilder<> b(i);
		Value *v = PoisonValue::get(vt);

		for (unsigned k = 0; k < vt->getNumElements(); k++) {
			Value *ep = b.CreateConstInBoundsGEP1_32(et, ptr, k);
			Align eal = commonAlignment(al, k * esz);

			if (ld) {
				LoadInst *e = b.CreateAlignedLoad(et, ep, eal, true);
				v = b.CreateInsertElement(v, e, k);
			} else {
				b.CreateAlignedStore(b.CreateExtractElement(
					st->getValueOperand(), k), ep, eal, true);
			}
		}
		if (ld)
			ld->replaceAllUsesWith(v);
		i->eraseFromParent();
	}
}

void optimise(Module &m)
{
	LoopAnalysisManager lam;
	FunctionAnalysisManager fam;
	CGSCCAnalysisManager cgam;
	ModuleAnalysisManager mam;
	PassBuilder pb;

	pb.registerModuleAnalyses(mam);
	pb.registerCGSCCAnalyses(cgam);
	pb.registerFunctionAnalyses(fam);
	pb.registerLoopAnalyses(lam);
	pb.crossRegisterProxies(lam, fam, cgam, mam);

	ModulePassManager mpm;
	mpm.addPass(AlwaysInlinerPass());
	mpm.addPass(pb.buildPerModuleDefaultPipeline(OptimizationLevel::O2));
	mpm.run(m, mam);

	/* memcpy/memset (private array initialisers, struct copies) as
	 * loops: the ISA has no block copy. After O2, whose loop idiom pass
	 * would make them intrinsics again. */
	for (Function &f : m) {
		std::vector<MemIntrinsic *> mems;

		if (f.isDeclaration())
			continue;
		for (Instruction &i : instructions(f))
			if (auto *mi = dyn_cast<MemIntrinsic>(&i))
				mems.push_back(mi);
		for (MemIntrinsic *mi : mems) {
			if (auto *cpy = dyn_cast<MemCpyInst>(mi)) {
				const TargetTransformInfo &tti =
					fam.getResult<TargetIRAnalysis>(f);
				expandMemCpyAsLoop(cpy, tti);
			} else if (auto *mv = dyn_cast<MemMoveInst>(mi)) {
				expandMemMoveAsLoop(mv);
			} else if (auto *ms = dyn_cast<MemSetInst>(mi)) {
				expandMemSetAsLoop(ms);
			} else {
				continue;
			}
			mi->eraseFromParent();
		}
		fam.invalidate(f, PreservedAnalyses::none());
	}

	for (Function &f : m)
		split_volatile_vectors(f);
	/* Vectors become scalars; switches branches; critical edges get a
	 * block of their own (where the back end puts phi copies). */
	FunctionPassManager fpm;
	ScalarizerPass sc;
	sc.setScalarizeLoadStore(true);
	sc.setScalarizeVariableInsertExtract(true);
	fpm.addPass(std::move(sc));
	fpm.addPass(InstCombinePass());
	fpm.addPass(DCEPass());
	fpm.addPass(LowerSwitchPass());
	fpm.addPass(BreakCriticalEdgesPass());
	ModulePassManager mpm2;
	mpm2.addPass(createModuleToFunctionPassAdaptor(std::move(fpm)));
	mpm2.run(m, mam);
	expand_intrinsics(m);
}

/* The program's module @m (one source's, or linked objects') built. */
int build_module(std::unique_ptr<Module> m, Options &o, LLVMContext &ctx,
		 vmgpu_program *prog, std::string &log);

int build(const char *source, const char *options, vmgpu_program *prog,
	  std::string &log)
{
	Options o;
	LLVMContext ctx;

	if (!parse_options(options, o, log))
		return -EINVAL;
	prog->isa = o.be.isa;
	std::unique_ptr<Module> m = compile_cl(source, o.name, o.clang, true,
					       ctx, log);
	if (!m)
		return -EINVAL;
	return build_module(std::move(m), o, ctx, prog, log);
}

/*
 * Separate compilation: an object is the bitcode of one translation
 * unit as clang leaves it (before the built-in library, the rules and
 * any optimisation); linking joins objects' modules with llvm::Linker,
 * then builds them as one program or gives their bitcode (a library).
 */
int compile_object(const char *source, const char *options,
		   std::string &bc, std::string &log)
{
	Options o;
	LLVMContext ctx;

	if (!parse_options(options, o, log))
		return -EINVAL;
	std::unique_ptr<Module> m = compile_cl(source, o.name, o.clang, true,
					       ctx, log);
	if (!m)
		return -EINVAL;
	raw_string_ostream os(bc);
	WriteBitcodeToFile(*m, os);
	os.flush();
	return 0;
}

int link_objects(const void *const *objs, const size_t *sizes, unsigned n,
		 const char *options, vmgpu_program *prog, std::string *lib,
		 std::string &log)
{
	Options o;
	LLVMContext ctx;
	std::unique_ptr<Module> all;
	std::map<std::string, unsigned> defined;

	if (!parse_options(options, o, log))
		return -EINVAL;
	prog->isa = o.be.isa;
	for (unsigned i = 0; i < n; i++) {
		MemoryBufferRef mb(StringRef(static_cast<const char *>(objs[i]),
					     sizes[i]), "object");
		Expected<std::unique_ptr<Module>> em = parseBitcodeFile(mb, ctx);

		if (!em) {
			log += "error: object " + std::to_string(i + 1) +
			       " is not LLVM bitcode: " +
			       toString(em.takeError()) + "\n";
			return -EINVAL;
		}
		std::unique_ptr<Module> m = std::move(*em);
		std::string err;
		raw_string_ostream es(err);
		bool bad = false;

		if (verifyModule(*m, &es)) {
			log += "error: object " + std::to_string(i + 1) +
			       " is not valid: " + es.str() + "\n";
			return -EINVAL;
		}
		/* what a linker calls a duplicate symbol, named as in C */
		for (GlobalValue &g : m->global_values()) {
			if (g.isDeclaration() || g.hasLocalLinkage() ||
			    g.hasLinkOnceLinkage() || g.hasWeakLinkage())
				continue;
			auto d = defined.emplace(g.getName().str(), i);
			if (!d.second) {
				log += o.name + ": error: '" +
				       pretty(g.getName()) +
				       "' is defined in objects " +
				       std::to_string(d.first->second + 1) +
				       " and " + std::to_string(i + 1) + "\n";
				bad = true;
			}
		}
		if (bad)
			return -EINVAL;
		if (!all) {
			all = std::move(m);
		} else if (Linker::linkModules(*all, std::move(m))) {
			log += "error: linking object " + std::to_string(i + 1) +
			       " failed\n";
			return -EINVAL;
		}
	}
	if (!all) {
		log += "error: nothing to link\n";
		return -EINVAL;
	}
	if (lib) {
		raw_string_ostream os(*lib);
		WriteBitcodeToFile(*all, os);
		os.flush();
		return 0;
	}
	return build_module(std::move(all), o, ctx, prog, log);
}

/*
 * The conversions with _sat or a rounding mode the program calls
 * (convert_int4_sat_rte...), as the library's __VMGPU_CONVERT_EXT: one
 * __VMGPU_CX(type, suffix) or __VMGPU_CXF(suffix) each, so that only
 * those are compiled (all of them would triple a build's time).
 */
std::string convert_variants(Module &m)
{
	static const std::set<std::string> types = {
		"char", "uchar", "short", "ushort", "int", "uint", "long",
		"ulong", "float",
	};
	static const std::set<std::string> suffixes = {
		"_sat", "_rte", "_rtz", "_rtp", "_rtn", "_sat_rte",
		"_sat_rtz", "_sat_rtp", "_sat_rtn",
	};
	std::set<std::string> want;
	std::string r;

	for (Function &f : m) {
		StringRef n = f.getName();
		size_t len = 0;

		if (!f.isDeclaration() || !n.consume_front("_Z") ||
		    n.consumeInteger(10, len) || len > n.size())
			continue;
		n = n.take_front(len);
		if (!n.consume_front("convert_"))
			continue;
		size_t t = n.find_first_of("0123456789_");
		std::string ty = n.take_front(t).str(), suf;
		n = n.drop_front(std::min(t, n.size()));
		n = n.drop_while([](char c) { return c >= '0' && c <= '9'; });
		suf = n.str();
		if (!types.count(ty) || !suffixes.count(suf) ||
		    (ty == "float" && suf.rfind("_sat", 0) == 0))
			continue;
		want.insert(ty == "float" ? "__VMGPU_CXF(" + suf + ")" :
			    "__VMGPU_CX(" + ty + "," + suf + ")");
	}
	for (const std::string &w : want)
		r += (r.empty() ? "" : " ") + w;
	return r;
}

/* The functions of the library's __VMGPU_LIB_MATHX section
 * (clclib_math.cpp): the less common math functions, and the vector forms
 * of these */
static bool mathx_name(StringRef base)
{
	static const std::set<std::string> names = {
		"sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sinpi",
		"cospi", "tanpi", "maxmag", "minmag", "nan", "ldexp", "ilogb",
		"logb", "fmod", "remainder", "remquo", "frexp", "modf",
		"fract", "cbrt", "exp10", "expm1", "log10", "log1p",
		"copysign", "fdim", "hypot", "nextafter", "powr", "pown",
		"rootn", "erf", "erfc", "tgamma", "lgamma", "lgamma_r",
	};
	return names.count(base.str()) || base.startswith("native_") ||
	       base.startswith("half_");
}

/* The integer functions of the library's __VMGPU_LIB_INTEGER section
 * (clclib_math.cpp), called with integer arguments: the mangled
 * parameters (@params) name an integer type (c h s t i j l m) */
static bool integer_call(StringRef base, StringRef params)
{
	static const std::set<std::string> names = {
		"abs", "abs_diff", "add_sat", "sub_sat", "hadd", "rhadd",
		"clamp", "clz", "mad_hi", "mad_sat", "max", "min", "mul_hi",
		"rotate", "upsample", "popcount", "mad24", "mul24",
	};
	return names.count(base.str()) &&
	       params.find_first_of("chstijlm") != StringRef::npos;
}

int build_module(std::unique_ptr<Module> m, Options &o, LLVMContext &ctx,
		 vmgpu_program *prog, std::string &log)
{
	/* The library's work-item functions read the hidden parameters
	 * only when asked to: without, the kernels stay as they were. */
	std::vector<std::string> lib_opts;
	if (o.be.ndrange_args)
		lib_opts.push_back("-D__VMGPU_NDRANGE_ARGS");
	/* The large sections of the library only for a program that calls
	 * them (clclib.cpp; compile time, Documentation/compiler.rst). */
	bool conv = false, vls = false, wg = false, half = false;
	bool sel = false, shuf = false, mathx = false, integer = false;
	for (Function &f : *m) {
		StringRef n = f.getName(), base = n;
		size_t len = 0;

		if (!f.isDeclaration())
			continue;
		/* the unmangled name of an overloaded built-in */
		if (base.consume_front("_Z") && !base.consumeInteger(10, len) &&
		    len <= base.size()) {
			StringRef params = base.drop_front(len);

			base = base.take_front(len);
			sel |= base == "select" || base == "bitselect" ||
			       base == "any" || base == "all";
			shuf |= base == "shuffle" || base == "shuffle2";
			mathx |= mathx_name(base);
			integer |= integer_call(base, params);
		}
		conv |= n.contains("convert_");
		vls |= n.contains("vload") || n.contains("vstore");
		half |= (n.contains("vload") || n.contains("vstore")) &&
			n.contains("_half");
		wg |= n.contains("async_work_group") ||
		      n.contains("wait_group_events") || n.contains("prefetch");
	}
	if (conv)
		lib_opts.push_back("-D__VMGPU_LIB_CONVERT");
	if (vls)
		lib_opts.push_back("-D__VMGPU_LIB_VLOADSTORE");
	if (wg)
		lib_opts.push_back("-D__VMGPU_LIB_WGCOPY");
	if (half)
		lib_opts.push_back("-D__VMGPU_LIB_HALF");
	if (sel)
		lib_opts.push_back("-D__VMGPU_LIB_SELECT");
	if (shuf)
		lib_opts.push_back("-D__VMGPU_LIB_SHUFFLE");
	if (mathx)
		lib_opts.push_back("-D__VMGPU_LIB_MATHX");
	if (integer)
		lib_opts.push_back("-D__VMGPU_LIB_INTEGER");
	std::string cx = convert_variants(*m);
	if (!cx.empty())
		lib_opts.push_back("-D__VMGPU_CONVERT_EXT=" + cx);
	std::unique_ptr<Module> lib = compile_cl(std::string(clclib_source) +
						 clclib_math_source,
						 "<vmgpu-builtins>", lib_opts,
						 false, ctx, log);
	if (!lib) {
		log += "error: the built-in library does not compile\n";
		return -EINVAL;
	}
	if (!lower_printf(*m, o.name.c_str(), log))
		return -EINVAL;
	lower_to_library(*m);
	/* The library's functions are internal, inlined where called. */
	for (Function &f : *lib)
		if (!f.isDeclaration())
			f.setLinkage(GlobalValue::LinkOnceODRLinkage);
	if (Linker::linkModules(*m, std::move(lib),
				Linker::Flags::LinkOnlyNeeded)) {
		log += "error: linking the built-in library failed\n";
		return -EINVAL;
	}
	if (!check_rules(*m, o.name, o.be.kernel_calls, log))
		return -EINVAL;
	if (o.be.kernel_calls)
		kernels_as_functions(*m);
	unsigned nkernels = 0;
	for (Function &f : *m) {
		if (f.isDeclaration())
			continue;
		if (is_kernel(f)) {
			nkernels++;
			continue;
		}
		f.setLinkage(GlobalValue::InternalLinkage);
		f.removeFnAttr(Attribute::NoInline);
		f.removeFnAttr(Attribute::OptimizeNone);
		f.addFnAttr(Attribute::AlwaysInline);
	}
	if (!nkernels) {
		log += o.name + ": error: the program has no kernel\n";
		return -EINVAL;
	}
	optimise(*m);
	{
		std::string err;
		raw_string_ostream es(err);

		if (verifyModule(*m, &es)) {
			log += "error: internal: invalid IR after optimisation: " +
			       es.str() + "\n";
			return -EINVAL;
		}
	}
	/* developers: the IR the back end sees (Documentation/compiler.rst) */
	if (getenv("VMGPU_CC_DUMP_IR"))
		m->print(errs(), nullptr);
	bool ok = true;
	for (Function &f : *m) {
		if (f.isDeclaration() || !is_kernel(f))
			continue;
		Kernel k;

		if (!backend_compile(f, o.be, k, log, o.name.c_str()))
			ok = false;
		else
			prog->kernels.push_back(std::move(k));
		/* two long names of the same signature name */
		for (size_t i = 0; ok && i + 1 < prog->kernels.size(); i++)
			if (sig_name(prog->kernels[i].name) ==
			    sig_name(prog->kernels.back().name)) {
				log += o.name + ": error: kernels '" +
				       prog->kernels[i].name + "' and '" +
				       prog->kernels.back().name + "' have "
				       "the same first 22 characters and "
				       "hash (" +
				       sig_name(prog->kernels[i].name) + ")\n";
				ok = false;
			}
	}
	return ok ? 0 : -EINVAL;
}

char *dup_log(const std::string &s)
{
	char *p = static_cast<char *>(malloc(s.size() + 1));

	if (p)
		memcpy(p, s.c_str(), s.size() + 1);
	return p;
}

const vmgpu_cc::Kernel *find(const vmgpu_program *prog, const char *name)
{
	if (!prog || !name)
		return nullptr;
	for (const Kernel &k : prog->kernels)
		if (k.name == name)
			return &k;
	/* a long name or its signature's form (a kernel library's) */
	for (const Kernel &k : prog->kernels)
		if (sig_name(k.name) == sig_name(name))
			return &k;
	return nullptr;
}

} // namespace

extern "C" {

int vmgpu_program_build(const char *source, const char *options,
			struct vmgpu_program **out, char **log)
{
	std::string text;
	int r;

	if (out)
		*out = nullptr;
	if (log)
		*log = nullptr;
	if (!source || !out)
		return -EINVAL;
	vmgpu_program *prog = new (std::nothrow) vmgpu_program;
	if (!prog)
		return -ENOMEM;
	/* LLVM is built without exceptions: running out of memory inside
	 * it is fatal, as everywhere LLVM is used. */
	r = build(source, options, prog, text);
	if (log) {
		*log = dup_log(text);
		if (!*log)
			r = r ? r : -ENOMEM;
	}
	if (r) {
		delete prog;
		return r;
	}
	*out = prog;
	return 0;
}

static int give_bytes(const std::string &s, void **out, size_t *bytes)
{
	void *p = malloc(s.size() ? s.size() : 1);

	if (!p)
		return -ENOMEM;
	memcpy(p, s.data(), s.size());
	*out = p;
	*bytes = s.size();
	return 0;
}

int vmgpu_program_compile(const char *source, const char *options,
			  void **object, size_t *bytes, char **log)
{
	std::string text, bc;
	int r;

	if (object)
		*object = nullptr;
	if (log)
		*log = nullptr;
	if (!source || !object || !bytes)
		return -EINVAL;
	r = compile_object(source, options, bc, text);
	if (!r)
		r = give_bytes(bc, object, bytes);
	if (log) {
		*log = dup_log(text);
		if (!*log && !r) {
			free(*object);
			*object = nullptr;
			r = -ENOMEM;
		}
	}
	return r;
}

int vmgpu_program_link(const void *const *objects, const size_t *bytes,
		       unsigned count, const char *options,
		       struct vmgpu_program **out, void **library,
		       size_t *library_bytes, char **log)
{
	std::string text, lib;
	int r;

	if (out)
		*out = nullptr;
	if (library)
		*library = nullptr;
	if (log)
		*log = nullptr;
	if (!objects || !bytes || !count || !out == !library ||
	    (library && !library_bytes))
		return -EINVAL;
	for (unsigned i = 0; i < count; i++)
		if (!objects[i])
			return -EINVAL;
	vmgpu_program *prog = new (std::nothrow) vmgpu_program;
	if (!prog)
		return -ENOMEM;
	r = link_objects(objects, bytes, count, options, prog,
			 library ? &lib : nullptr, text);
	if (!r && library)
		r = give_bytes(lib, library, library_bytes);
	if (log) {
		*log = dup_log(text);
		if (!*log)
			r = r ? r : -ENOMEM;
	}
	if (r || library) {
		delete prog;
		if (r && library && *library) {
			free(*library);
			*library = nullptr;
		}
		return r;
	}
	*out = prog;
	return 0;
}

void vmgpu_program_destroy(struct vmgpu_program *prog)
{
	delete prog;
}

int vmgpu_program_kernel_count(const struct vmgpu_program *prog)
{
	return prog ? static_cast<int>(prog->kernels.size()) : -EINVAL;
}

const char *vmgpu_program_kernel_name(const struct vmgpu_program *prog,
				      uint32_t index)
{
	if (!prog || index >= prog->kernels.size())
		return nullptr;
	return prog->kernels[index].name.c_str();
}

int vmgpu_program_kernel_image(const struct vmgpu_program *prog,
			       const char *name, const void **image,
			       size_t *bytes)
{
	const Kernel *k = find(prog, name);

	if (!image || !bytes)
		return -EINVAL;
	if (!k)
		return -ENOENT;
	*image = k->image.data();
	*bytes = k->image.size();
	return 0;
}

int vmgpu_program_kernel_private_bytes(const struct vmgpu_program *prog,
				       const char *name)
{
	const Kernel *k = find(prog, name);

	if (!k)
		return -ENOENT;
	return static_cast<int>(k->private_bytes);
}

int vmgpu_program_origin(const struct vmgpu_program *prog)
{
	return prog ? prog->origin : -EINVAL;
}

int vmgpu_program_isa_version(const struct vmgpu_program *prog)
{
	return prog ? static_cast<int>(prog->isa) : -EINVAL;
}

} // extern "C"
