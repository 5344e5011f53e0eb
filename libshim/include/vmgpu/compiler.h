/* SPDX-License-Identifier: MIT */
/*
 * libvmgpu's OpenCL C compiler (vmgpu_program_*, vmgpu_compiler_*) and
 * kernel libraries (vmgpu_kernlib_*): kernels compiled in-process by clang
 * and LLVM into executables per ISA version, with an on-disk cache (SPEC
 * P4, P8; Documentation/compiler.rst). Part of libvmgpu; the conventions
 * of <vmgpu.h> hold.
 */
#ifndef VMGPU_COMPILER_H
#define VMGPU_COMPILER_H

#include <stdio.h>

#include <vmgpu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* OpenCL C compiler (Documentation/compiler.rst)                       */
/* ------------------------------------------------------------------ */

struct vmgpu_program;

/*
 * Compile @source, OpenCL C 1.2: every kernel of it becomes an executable
 * with its signature. @options (NULL or "") holds clang's
 * -D/-I/-U/-w/-Werror/-cl-* options and the compiler's own
 * -vmgpu-source-name=NAME (the file name in messages, default input.cl),
 * -vmgpu-max-regs=N (16..128) and -vmgpu-isa=N (the device ISA version to
 * compile for, default VMGPU_ISA_VERSION; each executable's header names
 * the oldest version that has what it uses), VMGPU_NDRANGE_OPTION and
 * VMGPU_KERNEL_CALLS_OPTION, below. *@log (free() it; may be NULL when
 * out of memory) receives the build log: clang's diagnostics and the back
 * end's, "FILE:LINE:COL: error: ...". -EINVAL on a compile error, -ENOMEM.
 * Builds in several threads run independently.
 */
int vmgpu_program_build(const char *source, const char *options,
			struct vmgpu_program **out, char **log);
/*
 * VMGPU_NDRANGE_OPTION: OpenCL's global work offset and work dimension
 * (get_global_offset, get_global_id, get_work_dim) reach a kernel that
 * reads them in two hidden i64 parameters after its own (before
 * vmgpu_private): VMGPU_NDRANGE_PARAM0 (offset x, then y, 32 bits each)
 * and VMGPU_NDRANGE_PARAM1 (offset z, then the work dimension), which the
 * runtime fills from vmgpu_rt_instance. Without it a kernel's parameters
 * are its own, the offset is 0 and get_work_dim() a guess (compiler.rst).
 */
#define VMGPU_NDRANGE_OPTION	"-vmgpu-ndrange-args"
#define VMGPU_NDRANGE_PARAM0	"vmgpu_ndrange0"
#define VMGPU_NDRANGE_PARAM1	"vmgpu_ndrange1"
/*
 * OpenCL C's printf: a kernel that calls it has the hidden buffer
 * parameter VMGPU_PRINTF_PARAM (buf_rw, after the ndrange pair, before
 * vmgpu_private) of VMGPU_PRINTF_HEADER_BYTES + VMGPU_PRINTF_BUFFER_BYTES
 * bytes, its header zero: the first word counts the bytes of records
 * its work-items appended after the header (it may pass the capacity:
 * what did not fit was dropped). The runtime gives it and writes the
 * records out when the kernel is done (vmgpu/runtime.h); with the plain
 * APIs the caller does, with vmgpu_printf_write(). A record, all 32-bit
 * little-endian words: its bytes, the format's bytes F, the arguments N;
 * the format (F bytes, zero-padded to a word); N arguments, each a word
 * VMGPU_PRINTF_ARG(kind, element bytes, elements), its data bytes D and
 * the data (D bytes, padded). Documentation/compiler.rst, "printf".
 */
#define VMGPU_PRINTF_PARAM		"vmgpu_printf"
#define VMGPU_PRINTF_BUFFER_BYTES	(1u << 20)
#define VMGPU_PRINTF_HEADER_BYTES	8u
#define VMGPU_PRINTF_INT		1u	/* integers, 1, 2, 4, 8 bytes */
#define VMGPU_PRINTF_FLOAT		2u	/* float, 4 bytes */
#define VMGPU_PRINTF_STRING		3u	/* %s: D bytes, no NUL */
#define VMGPU_PRINTF_POINTER		4u	/* 8 bytes */
#define VMGPU_PRINTF_ARG(kind, esize, count)	\
	((uint32_t)(kind) | (uint32_t)(esize) << 8 | (uint32_t)(count) << 16)
/* The largest field width or precision a format may give. */
#define VMGPU_PRINTF_MAX_FIELD		4096u
/* The most arguments one call may give (after the format). */
#define VMGPU_PRINTF_MAX_ARGS		64u
/*
 * Write the records of @buf, a printf buffer of @bytes bytes (its
 * header included) as a kernel left it, to @out as OpenCL C's printf
 * formats them, in the order they were appended. Any bytes are safe:
 * the used count is bounded by the buffer, a record that does not parse
 * ends the output, a conversion the record does not match is written
 * as its text. Returns the records written, -EINVAL for NULL or a
 * damaged record (what came before it written), -EIO if writing failed.
 */
int vmgpu_printf_write(const void *buf, size_t bytes, FILE *out);
/*
 * VMGPU_KERNEL_CALLS_OPTION: OpenCL C's rule for a kernel called from
 * another kernel or a function: an ordinary call, the called kernel's
 * body inlined like any function's (its work-item functions are the
 * caller's). Without it SPEC P8's rule holds: such a call is an error
 * (compiler.rst). The OpenCL ICD passes it to every build.
 */
#define VMGPU_KERNEL_CALLS_OPTION	"-vmgpu-kernel-calls"
/*
 * Separate compilation (OpenCL's clCompileProgram and clLinkProgram):
 * vmgpu_program_compile() compiles @source alone, one translation unit,
 * into an object, *@object (free() it) of *@bytes bytes: LLVM bitcode of
 * the unoptimised program; only clang's errors fail it (a function or
 * kernel it calls and does not define is the link's). The options are
 * vmgpu_program_build()'s.
 * vmgpu_program_link() joins @count objects (or earlier links' libraries)
 * with llvm::Linker: a symbol two of them define is an error ("'f(int)'
 * is defined in objects 1 and 2"); types and static functions are each
 * object's own. With @out the result is built as vmgpu_program_build()
 * builds a source (@options: the back end's, -vmgpu-*); with @library
 * instead it is given as one object (*@library, free() it). -EINVAL with
 * the log, -ENOMEM.
 */
int vmgpu_program_compile(const char *source, const char *options,
			  void **object, size_t *bytes, char **log);
int vmgpu_program_link(const void *const *objects, const size_t *bytes,
		       unsigned count, const char *options,
		       struct vmgpu_program **out, void **library,
		       size_t *library_bytes, char **log);
/* Free a program; NULL is accepted. */
void vmgpu_program_destroy(struct vmgpu_program *prog);
/* Number of kernels, and the name of kernel @index (NULL if none). */
int vmgpu_program_kernel_count(const struct vmgpu_program *prog);
const char *vmgpu_program_kernel_name(const struct vmgpu_program *prog,
				      uint32_t index);
/*
 * The executable of kernel @name (for vmgpu_kernel_create()): valid while
 * the program lives. -ENOENT if there is no such kernel.
 */
int vmgpu_program_kernel_image(const struct vmgpu_program *prog,
			       const char *name, const void **image,
			       size_t *bytes);
/*
 * Bytes of private memory each thread of kernel @name needs (private
 * arrays, spilled registers), 0 if none. When not 0 the kernel's last
 * parameter is the buffer "vmgpu_private" (buf_rw): at least this many
 * bytes times the threads of the whole index space (grid_total x block).
 */
int vmgpu_program_kernel_private_bytes(const struct vmgpu_program *prog,
				       const char *name);

/* How a program was obtained (vmgpu_program_origin()). */
enum vmgpu_program_origin {
	VMGPU_PROGRAM_COMPILED = 1,	/* compiled from source just now */
	VMGPU_PROGRAM_CACHED,		/* compiled before: the kernel cache */
	VMGPU_PROGRAM_AS_IS,		/* a library's executables, its version */
	VMGPU_PROGRAM_FALLBACK,		/* a library's older executables */
};

/* VMGPU_PROGRAM_*, -EINVAL for NULL. */
int vmgpu_program_origin(const struct vmgpu_program *prog);
/* The ISA version the program was built or chosen for, -EINVAL for NULL. */
int vmgpu_program_isa_version(const struct vmgpu_program *prog);

/* ------------------------------------------------------------------ */
/* Kernel libraries, online compilation, the kernel cache (SPEC P4,    */
/* Documentation/compiler.rst)                                         */
/* ------------------------------------------------------------------ */

struct vmgpu_compiler;
struct vmgpu_kernlib;

/* vmgpu_compiler_create() flags */
#define VMGPU_COMPILER_NO_CACHE		(1u << 0)	/* no kernel cache */

/*
 * A compiler: the kernel cache's directory and counters. @cache_dir NULL
 * means $VMGPU_KERNEL_CACHE, else $XDG_CACHE_HOME/vmgpu/kernels, else
 * $HOME/.cache/vmgpu/kernels (created when first written, mode 0700);
 * with none of them set, or VMGPU_COMPILER_NO_CACHE, there is no cache.
 * -EINVAL (unknown flag, relative or empty @cache_dir), -ENOMEM. One
 * compiler may be used from several threads.
 */
int vmgpu_compiler_create(const char *cache_dir, uint32_t flags,
			  struct vmgpu_compiler **out);
void vmgpu_compiler_destroy(struct vmgpu_compiler *cc);
/* The cache directory, "" when there is no cache. */
const char *vmgpu_compiler_cache_dir(const struct vmgpu_compiler *cc);

/*
 * The compiler's identity: clang/LLVM's version, the back end's and a
 * digest of the built-in library ("clang/LLVM 16.0.6, vmgpu-backend 6,
 * library 1a2b3c4d5e6f7a8b"). Code built by a compiler of another
 * identity may differ; a program binary carries it (the OpenCL ICD
 * compiles a binary's text again when it is not this one). Static.
 */
const char *vmgpu_compiler_id(void);

/* What a compiler did, since its creation. */
struct vmgpu_compiler_stats {
	uint64_t builds;		/* vmgpu_kernlib_build*() that succeeded */
	uint64_t as_is;			/* ... with executables of the version */
	uint64_t compiles;		/* sources compiled */
	uint64_t compile_failures;	/* ... that did not compile */
	uint64_t cache_hits;		/* executables read from the cache */
	uint64_t cache_misses;		/* no usable entry */
	uint64_t cache_corrupt;		/* entries found invalid, ignored */
	uint64_t cache_stores;		/* entries written */
	uint64_t cache_store_failures;	/* entries that could not be */
	uint64_t fallbacks;		/* older executables used */
	uint64_t failures;		/* nothing usable: -ENOEXEC */
};

/* Fill @st (thread-safe; each counter is read atomically). */
int vmgpu_compiler_get_stats(struct vmgpu_compiler *cc,
			     struct vmgpu_compiler_stats *st);

/*
 * A kernel library: OpenCL C source (NULL: none) with its build @options
 * (NULL or ""), and executables per ISA version, added later or read from
 * a file. @name (NULL: "kernels") names it in messages. -EINVAL, -ENOMEM.
 */
int vmgpu_kernlib_create(const char *name, const char *source,
			 const char *options, struct vmgpu_kernlib **out);
void vmgpu_kernlib_destroy(struct vmgpu_kernlib *lib);

/*
 * Add the executable @image (header, code and signature: the kernel's
 * name comes from it) of @bytes for devices of ISA version @isa_version,
 * with the private bytes per thread it needs. The image is validated
 * (header, every instruction for its own version, which must not be above
 * @isa_version, signature). -EINVAL with the reason in @err, -EEXIST if
 * the library has that kernel for that version, -ENOMEM.
 */
int vmgpu_kernlib_add_executable(struct vmgpu_kernlib *lib,
				 uint32_t isa_version, const void *image,
				 size_t bytes, uint32_t private_bytes,
				 char *err, size_t errlen);
/* Add every kernel of @prog for its ISA version (as above). */
int vmgpu_kernlib_add_program(struct vmgpu_kernlib *lib,
			      const struct vmgpu_program *prog, char *err,
			      size_t errlen);
/* Bit N set if the library has executables for ISA version N; -EINVAL. */
int vmgpu_kernlib_isa_versions(struct vmgpu_kernlib *lib);

/*
 * The library as a file (the format is in Documentation/compiler.rst):
 * *data is malloc()ed. write_file writes a temporary file next to @path
 * and renames it, so readers never see a partial one. -EINVAL, -ENOMEM,
 * or the file system's error.
 */
int vmgpu_kernlib_write(struct vmgpu_kernlib *lib, void **data,
			size_t *bytes);
int vmgpu_kernlib_write_file(struct vmgpu_kernlib *lib, const char *path);
/*
 * Read a library file, validating everything in it (a truncated or
 * corrupt file, a bad executable: -EINVAL with the reason in @err).
 * @name as for vmgpu_kernlib_create() (read_file: the path).
 */
int vmgpu_kernlib_read(const void *data, size_t bytes, const char *name,
		       struct vmgpu_kernlib **out, char *err, size_t errlen);
int vmgpu_kernlib_read_file(const char *path, struct vmgpu_kernlib **out,
			    char *err, size_t errlen);

/*
 * The library's kernels for a device of ISA version @isa_version
 * (VMGPU_ISA_VERSION_MIN..VMGPU_ISA_VERSION), in this order:
 *  1. executables for that version: used as is;
 *  2. the source, with the library's options then @options (NULL or ""):
 *     from the cache if it was compiled before (same source, options,
 *     compiler and version), else compiled and stored in the cache;
 *  3. when that fails (or there is no source), the executables of the
 *     newest older version;
 *  4. else -ENOEXEC, the log naming the library and the versions.
 * *@log (free() it; may be NULL) gets the compiler's messages and a line
 * saying which rule applied. -EINVAL for bad arguments, -ENOMEM.
 */
int vmgpu_kernlib_build(struct vmgpu_compiler *cc, struct vmgpu_kernlib *lib,
			uint32_t isa_version, const char *options,
			struct vmgpu_program **out, char **log);
/* The same for @dev's ISA version (DRM_VMGPU_PARAM_ISA_VERSION). */
int vmgpu_kernlib_build_for_device(struct vmgpu_compiler *cc,
				   struct vmgpu_kernlib *lib,
				   struct vmgpu_device *dev,
				   const char *options,
				   struct vmgpu_program **out, char **log);

#ifdef __cplusplus
}
#endif

#endif /* VMGPU_COMPILER_H */
