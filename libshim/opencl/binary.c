// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: program binaries (CL_PROGRAM_BINARIES,
 * clCreateProgramWithBinary). A binary is a small container around a
 * kernel library file (vmgpu_kernlib_write: the source and the
 * executables per ISA version, Documentation/compiler.rst), so that a
 * compiled object or a library (text only) and the build's
 * -cl-kernel-arg-info travel too (Documentation/opencl.rst, *Program
 * binaries*); all integers little-endian:
 *
 *   0   4  magic "VCLB"
 *   4   4  version: 2 (1: no compiler identity, the header's 32 bytes)
 *   8   4  CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, _LIBRARY or _EXECUTABLE
 *  12   4  flags: bit 0 built with -cl-kernel-arg-info (no other bit)
 *  16   4  text bytes T (at most 16 MiB): the program's text, no NUL
 *  20   4  options bytes O (at most 4096): the compiler's options of it
 *  24   4  library bytes L: 0 for an object or library, else a .vkl file
 *  28   4  bitcode bytes B: 0 for an executable; an object's or library's
 *          LLVM bitcode (vmgpu_program_compile), 0 in an older binary
 *          (its text is then compiled when linked)
 *  32   4  compiler identity bytes I (at most 256): vmgpu_compiler_id()
 *          of the compiler that made the library and the bitcode
 *  36      the text, the options, the library, the bitcode, the identity;
 *          nothing after
 *
 * A binary of another compiler identity (or of version 1) is stale: its
 * bitcode is dropped, and its text compiled again when it is built (an
 * executable) or linked (an object or a library), so that a program
 * cache survives a compiler change. Its executables are used as they are
 * only when it has no text.
 *
 * A plain kernel library file (vmgpu-cc --library) is taken too, as an
 * executable. Binaries are untrusted: every field is checked and the
 * library read by vmgpu_kernlib_read(), which validates every executable;
 * anything else is CL_INVALID_BINARY.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"
#include "vmgpu/compiler.h"

#define BIN_HEAD_V1	32u
#define BIN_HEAD	36u
#define BIN_MAX_TEXT	(16u << 20)
#define BIN_MAX_OPTS	4096u
#define BIN_MAX_ID	256u

static uint32_t get32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

static void put32(unsigned char *b, uint32_t v)
{
	b[0] = (unsigned char)v;
	b[1] = (unsigned char)(v >> 8);
	b[2] = (unsigned char)(v >> 16);
	b[3] = (unsigned char)(v >> 24);
}

/* What a valid binary holds. */
struct bin {
	cl_program_binary_type type;
	bool arg_info;
	char *text, *options;		/* NULL: none */
	struct vmgpu_kernlib *lib;	/* NULL: none */
	void *bc;			/* NULL: none */
	size_t bc_bytes;
	bool stale;			/* another compiler's */
};

static void bin_clear(struct bin *b)
{
	free(b->text);
	free(b->options);
	vmgpu_kernlib_destroy(b->lib);
	free(b->bc);
	memset(b, 0, sizeof(*b));
}

static char *dup_text(const unsigned char *s, size_t n)
{
	char *t;

	if (memchr(s, 0, n))
		return NULL;
	t = malloc(n + 1);
	if (t) {
		memcpy(t, s, n);
		t[n] = 0;
	}
	return t;
}

/* CL_SUCCESS, CL_INVALID_BINARY or CL_OUT_OF_HOST_MEMORY. */
static cl_int bin_parse(const unsigned char *b, size_t n, struct bin *out)
{
	char why[256];
	uint32_t head, t, o, l, c, id;

	memset(out, 0, sizeof(*out));
	if (n >= 4 && !memcmp(b, "VKLB", 4)) {
		out->type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
		if (vmgpu_kernlib_read(b, n, "binary", &out->lib, why,
				       sizeof(why)))
			out->lib = NULL;
		return out->lib ? CL_SUCCESS : CL_INVALID_BINARY;
	}
	if (n < BIN_HEAD_V1 || memcmp(b, "VCLB", 4) ||
	    (get32(b + 4) != 1 && get32(b + 4) != 2) || get32(b + 12) > 1)
		return CL_INVALID_BINARY;
	head = get32(b + 4) == 1 ? BIN_HEAD_V1 : BIN_HEAD;
	if (n < head)
		return CL_INVALID_BINARY;
	out->type = get32(b + 8);
	out->arg_info = get32(b + 12) & 1;
	t = get32(b + 16);
	o = get32(b + 20);
	l = get32(b + 24);
	c = get32(b + 28);
	id = head == BIN_HEAD ? get32(b + 32) : 0;
	if ((out->type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT &&
	     out->type != CL_PROGRAM_BINARY_TYPE_LIBRARY &&
	     out->type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE) ||
	    t > BIN_MAX_TEXT || o > BIN_MAX_OPTS || id > BIN_MAX_ID ||
	    (uint64_t)head + t + o + l + c + id != n ||
	    (out->type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE) != (l != 0) ||
	    (l && c) || (c && (c < 4 || memcmp(b + head + t + o,
					       "BC\xc0\xde", 4))) ||
	    (!t && out->type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE))
		return CL_INVALID_BINARY;
	b += head;
	out->stale = id != strlen(vmgpu_compiler_id()) ||
		     memcmp(b + t + o + l + c, vmgpu_compiler_id(), id);
	if (out->stale && t)
		c = 0;	/* perhaps another LLVM's: the text is compiled */
	if ((t && !(out->text = dup_text(b, t))) ||
	    !(out->options = dup_text(b + t, o)) ||
	    (l && vmgpu_kernlib_read(b + t + o, l, "binary", &out->lib, why,
				     sizeof(why)))) {
		bin_clear(out);
		return CL_INVALID_BINARY;
	}
	if (c) {	/* checked through and through when linked */
		out->bc = malloc(c);
		if (!out->bc) {
			bin_clear(out);
			return CL_OUT_OF_HOST_MEMORY;
		}
		memcpy(out->bc, b + t + o, c);
		out->bc_bytes = c;
	}
	return CL_SUCCESS;
}

cl_int vcl_program_binary(struct _cl_program *pr)
{
	const char *text = pr->object ? pr->object : pr->source;
	const char *opts = pr->cc_options ? pr->cc_options : "";
	struct vmgpu_kernlib *lib = NULL;
	void *data = NULL;
	const char *id = vmgpu_compiler_id();
	size_t l = 0, t, o, c, idb = strlen(id);
	unsigned char *b;
	char why[256];

	if (pr->bin || pr->btype == CL_PROGRAM_BINARY_TYPE_NONE)
		return CL_SUCCESS;	/* none: size 0 */
	t = text ? strlen(text) : 0;
	o = strlen(opts);
	c = pr->btype == CL_PROGRAM_BINARY_TYPE_EXECUTABLE ? 0 : pr->bc_bytes;
	if (t > BIN_MAX_TEXT || o > BIN_MAX_OPTS || c > UINT32_MAX)
		return CL_OUT_OF_RESOURCES;
	if (pr->btype == CL_PROGRAM_BINARY_TYPE_EXECUTABLE) {
		if (!pr->prog ||
		    vmgpu_kernlib_create("program", text, opts, &lib) ||
		    vmgpu_kernlib_add_program(lib, pr->prog, why,
					      sizeof(why)) ||
		    vmgpu_kernlib_write(lib, &data, &l)) {
			vmgpu_kernlib_destroy(lib);
			free(data);
			return CL_OUT_OF_RESOURCES;
		}
		vmgpu_kernlib_destroy(lib);
	}
	b = malloc(BIN_HEAD + t + o + l + c + idb);
	if (!b) {
		free(data);
		return CL_OUT_OF_HOST_MEMORY;
	}
	memcpy(b, "VCLB", 4);
	put32(b + 4, 2);
	put32(b + 8, (uint32_t)pr->btype);
	put32(b + 12, pr->arg_info ? 1 : 0);
	put32(b + 16, (uint32_t)t);
	put32(b + 20, (uint32_t)o);
	put32(b + 24, (uint32_t)l);
	put32(b + 28, (uint32_t)c);
	put32(b + 32, (uint32_t)idb);
	if (t)
		memcpy(b + BIN_HEAD, text, t);
	memcpy(b + BIN_HEAD + t, opts, o);
	if (l)
		memcpy(b + BIN_HEAD + t + o, data, l);
	free(data);
	if (c)
		memcpy(b + BIN_HEAD + t + o + l, pr->bc, c);
	memcpy(b + BIN_HEAD + t + o + l + c, id, idb);
	pr->bin = b;
	pr->bin_bytes = BIN_HEAD + t + o + l + c + idb;
	return CL_SUCCESS;
}

int vcl_program_build_lib(struct _cl_program *pr, const char *options,
			  struct vmgpu_program **out, char **log)
{
	struct vmgpu_compiler *cc;
	int r;

	*log = NULL;
	/* No kernel cache: the executables are used as they are, and a
	 * source compile (another ISA version) is the program's own. */
	r = vmgpu_compiler_create(NULL, VMGPU_COMPILER_NO_CACHE, &cc);
	if (r)
		return r;
	r = vmgpu_kernlib_build(cc, pr->lib, VMGPU_ISA_VERSION, options, out,
				log);
	vmgpu_compiler_destroy(cc);
	return r;
}

cl_program vcl_clCreateProgramWithBinary(cl_context context,
					 cl_uint num_devices,
					 const cl_device_id *device_list,
					 const size_t *lengths,
					 const unsigned char **binaries,
					 cl_int *binary_status,
					 cl_int *errcode_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	struct _cl_program *pr = NULL;
	struct bin b = { 0 }, other = { 0 };
	cl_int err, e;
	cl_uint i;

	if (!vcl_obj_get(p, context, VCL_CONTEXT, true)) {
		err = CL_INVALID_CONTEXT;
		goto fail;
	}
	err = CL_INVALID_VALUE;
	if (!num_devices || !device_list || !lengths || !binaries)
		goto fail_ctx;
	for (i = 0; i < num_devices; i++) {
		if (!vcl_context_has_device(context, device_list[i])) {
			err = CL_INVALID_DEVICE;
			goto fail_ctx;
		}
		if (!lengths[i] || !binaries[i])
			goto fail_ctx;
	}
	/* Each device's binary checked; the first valid one is kept. */
	err = CL_SUCCESS;
	for (i = 0; i < num_devices; i++) {
		struct bin *into = b.type ? &other : &b;

		e = bin_parse(binaries[i], lengths[i], into);
		if (e)
			bin_clear(into);
		if (into == &other)
			bin_clear(&other);
		if (binary_status)
			binary_status[i] = e;
		if (e && !err)
			err = e;
	}
	if (err)
		goto fail_bin;
	err = CL_OUT_OF_HOST_MEMORY;
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		goto fail_bin;
	pr->dispatch = &vcl_dispatch;
	pr->o.kind = VCL_PROGRAM;
	pr->o.refs = 1;
	pr->ctx = context;
	pr->status = CL_BUILD_NONE;
	pr->from_binary = true;
	pr->btype = b.type;
	pr->arg_info = b.arg_info;
	pr->object = b.text;
	pr->cc_options = b.options;
	pr->lib = b.lib;
	pr->bc = b.bc;
	pr->bc_bytes = b.bc_bytes;
	pr->stale = b.stale;
	pthread_mutex_init(&pr->lock, NULL);
	/* A raw library has no text: CL_PROGRAM_BINARIES gives it back
	 * as built. */
	if (vcl_obj_add(p, pr)) {
		pr->o.refs = 0;
		free(pr->object);
		free(pr->cc_options);
		free(pr->bc);
		vmgpu_kernlib_destroy(pr->lib);
		pthread_mutex_destroy(&pr->lock);
		free(pr);
		goto fail_ctx;
	}
	if (errcode_ret)
		*errcode_ret = CL_SUCCESS;
	return pr;
fail_bin:
	bin_clear(&b);
fail_ctx:
	vcl_context_put(context);
fail:
	if (errcode_ret)
		*errcode_ret = err;
	return NULL;
}
