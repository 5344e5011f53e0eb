/* SPDX-License-Identifier: MIT */
/*
 * The OpenCL C compiler's internal interface: the front end
 * (frontend.cpp: clang in-process, LLVM's O2 pipeline), the built-in
 * function library (clclib.cpp, OpenCL C compiled with the program) and
 * the vmgpu back end (backend.cpp driving isel.cpp, regalloc.cpp and
 * encode.cpp, its class in backend.h: optimised LLVM IR to ISA versions 1
 * and 2); diag.cpp writes the messages both give at a source position.
 * Documentation/compiler.rst describes the design.
 */
#ifndef VMGPU_COMPILER_INTERNAL_H
#define VMGPU_COMPILER_INTERNAL_H

#include <cstdint>
#include <string>
#include <vector>

#include "vmgpu.h"
#include "vmgpu/compiler.h"

namespace llvm {
class Module;
class Function;
class Instruction;
}

namespace vmgpu_cc {

/* One compiled kernel: its executable file (header, code, signature). */
struct Kernel {
	std::string name;
	std::vector<uint8_t> image;
	uint32_t private_bytes;		/* per thread, 0: no private buffer */
};

/*
 * The name a kernel's signature holds: @name itself when it fits
 * (VMGPU_KERNEL_NAME_MAX), else its first 22 characters, '_' and 8 hex
 * digits of a hash of the whole name (31 characters). The program keeps
 * the whole name; find() takes either.
 */
std::string sig_name(const std::string &name);

struct BackendOptions {
	unsigned max_regs = 128;	/* registers the allocator may use */
	unsigned isa = VMGPU_ISA_VERSION;	/* the target version */
	/*
	 * -vmgpu-ndrange-args: a kernel that reads the global offset or the
	 * work dimension gets them in the hidden parameters vmgpu_ndrange0
	 * and 1 (compiler.rst); without it they are 0 and a guess.
	 */
	bool ndrange_args = false;
	/*
	 * -vmgpu-kernel-calls: a kernel may call a kernel (OpenCL C); the
	 * front end's alone, the back end never sees such a call.
	 */
	bool kernel_calls = false;
};

/*
 * The back end's version: part of the kernel cache's key with LLVM's
 * version and the built-in library's source. Change it whenever the code
 * the back end emits changes, so that cached executables are rebuilt.
 */
#define VMGPU_CC_BACKEND_VERSION "vmgpu-backend 6"

/* The OpenCL C source of the built-in functions: clclib.cpp's, then
 * clclib_math.cpp's (one source, compiled as their concatenation). */
extern const char clclib_source[];
extern const char clclib_math_source[];

/*
 * "FILE:LINE:COL: error: MSG" for @inst (its outermost inlined-at
 * location), or "FILE: error: MSG in kernel K" without debug info.
 */
std::string diag_at(const llvm::Instruction *inst, const std::string &msg,
		    const char *fallback_file);

/*
 * OpenCL C's printf calls in @m (before optimisation) as code appending
 * records to the hidden printf buffer (printf.cpp). False with errors
 * (at each call) appended to @log.
 */
bool lower_printf(llvm::Module &m, const char *file, std::string &log);

/*
 * Compile kernel @f of the optimised module into @out. False with an
 * error (clang style) appended to @log when the kernel uses something
 * the ISA cannot do.
 */
bool backend_compile(llvm::Function &f, const BackendOptions &opts,
		     Kernel &out, std::string &log, const char *file);

} // namespace vmgpu_cc

/* vmgpu.h's program: a build's kernels, or a kernel library's. */
struct vmgpu_program {
	std::vector<vmgpu_cc::Kernel> kernels;
	uint32_t isa = VMGPU_ISA_VERSION;	/* the version built for */
	int origin = VMGPU_PROGRAM_COMPILED;
};

#endif
