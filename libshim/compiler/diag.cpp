// SPDX-License-Identifier: MIT
/*
 * The compiler's error messages at a source position (file:line:col, or
 * the kernel's function without debug locations): the front end's
 * language checks and the back end's refusals write them the same way.
 * A file of its own, below both, so that the front end (which runs the
 * back end) and the back end (which reports through it) call only down.
 */
#include <string>

#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instruction.h>
#include <llvm/Support/raw_ostream.h>

#include "compiler.h"

using namespace llvm;

namespace vmgpu_cc {

static const DILocation *outermost(const DILocation *loc)
{
	while (loc && loc->getInlinedAt())
		loc = loc->getInlinedAt();
	return loc;
}

std::string diag_at(const Instruction *inst, const std::string &msg,
		    const char *fallback_file)
{
	std::string s;
	raw_string_ostream os(s);
	const DILocation *loc = inst ? outermost(inst->getDebugLoc().get()) :
				       nullptr;

	if (loc && loc->getLine())
		os << loc->getFilename() << ":" << loc->getLine() << ":"
		   << loc->getColumn() << ": error: " << msg;
	else
		os << fallback_file << ": error: " << msg;
	if (inst && !loc)
		os << " (in function '" << inst->getFunction()->getName() << "')";
	os << "\n";
	return os.str();
}

} // namespace vmgpu_cc
