// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: build options, clCompileProgram and clLinkProgram.
 *
 * A compiled object is its own translation unit: the compiler's bitcode
 * (vmgpu_program_compile) of its text, the program's source with its
 * input_headers put in place of their #include lines and its -D/-U
 * options as #define/#undef lines around it. Linking joins the objects'
 * bitcode (vmgpu_program_link: llvm::Linker) and builds it with the
 * link's options, or keeps the joined bitcode as a library
 * (Documentation/opencl.rst, *Compile and link*): a function two objects
 * define is an error as a linker's duplicate symbol; a struct each
 * defines is each one's. The text is kept too (kernel argument
 * information reads declarations in it; a binary carries it), and an
 * object without bitcode (an older ICD's binary) is compiled from it
 * when linked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"
#include "vmgpu/compiler.h"

/* A growing string; ok false once out of memory. */
struct buf {
	char *s;
	size_t n, cap;
	bool ok;
};

static void put(struct buf *b, const char *s, size_t n)
{
	char *t;

	if (!b->ok)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = (b->n + n + 1) * 2;

		t = realloc(b->s, cap);
		if (!t) {
			b->ok = false;
			return;
		}
		b->s = t;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* A compiled object's #define / #undef lines for its -D and -U. */
static void macros(struct buf *b, const char *opts, bool undo)
{
	const char *s = opts;
	size_t n;

	while (*s) {
		while (*s == ' ')
			s++;
		n = strcspn(s, " ");
		if (n > 2 && s[0] == '-' && (s[1] == 'D' || s[1] == 'U')) {
			size_t k = strcspn(s + 2, "= ");

			if (undo || s[1] == 'U') {
				if (!undo || s[1] == 'D') {
					puts_(b, "#undef ");
					put(b, s + 2, k);
					puts_(b, "\n");
				}
			} else {
				puts_(b, "#define ");
				put(b, s + 2, k);
				puts_(b, " ");
				if (s[2 + k] == '=')
					put(b, s + 3 + k, n - 3 - k);
				else
					puts_(b, "1");
				puts_(b, "\n");
			}
		}
		s += n;
	}
}

/* The options without -D/-U (they are in the object's text). */
static char *other_options(const char *opts)
{
	struct buf b = { .ok = true };
	const char *s = opts;
	size_t n;

	put(&b, "", 0);
	while (*s) {
		while (*s == ' ')
			s++;
		n = strcspn(s, " ");
		if (n && !(s[0] == '-' && (s[1] == 'D' || s[1] == 'U'))) {
			puts_(&b, " ");
			put(&b, s, n);
		}
		s += n;
	}
	if (!b.ok)
		free(b.s);
	return b.ok ? b.s : NULL;
}

/* #include "NAME" or <NAME>: NAME's bytes, NULL if not such a line. */
static const char *include_name(const char *l, size_t *n)
{
	char close;

	while (*l == ' ' || *l == '\t')
		l++;
	if (*l++ != '#')
		return NULL;
	while (*l == ' ' || *l == '\t')
		l++;
	if (strncmp(l, "include", 7))
		return NULL;
	l += 7;
	while (*l == ' ' || *l == '\t')
		l++;
	if (*l != '"' && *l != '<')
		return NULL;
	close = *l == '"' ? '"' : '>';
	*n = strcspn(++l, close == '"' ? "\"\n" : ">\n");
	return l[*n] == close ? l : NULL;
}

/* @src with the input headers in place of their #include lines. */
static int expand(struct buf *b, const char *src, const char *file,
		  cl_uint nh, const cl_program *headers, const char **names,
		  int depth)
{
	const char *l = src, *name, *hs;
	unsigned line = 1;
	char at[64];
	size_t n, ll;
	cl_uint i;

	if (depth > 16)
		return -ELOOP;
	while (*l) {
		ll = strcspn(l, "\n");
		name = include_name(l, &n);
		for (i = 0; name && i < nh; i++) {
			if (strlen(names[i]) != n || strncmp(names[i], name, n))
				continue;
			hs = headers[i]->source ? headers[i]->source : "";
			puts_(b, "#line 1 \"");
			puts_(b, names[i]);
			puts_(b, "\"\n");
			if (expand(b, hs, names[i], nh, headers, names,
				   depth + 1))
				return -ELOOP;
			snprintf(at, sizeof(at), "\n#line %u \"", line + 1);
			puts_(b, at);
			puts_(b, file);
			puts_(b, "\"\n");
			break;
		}
		if (!name || i == nh) {
			put(b, l, ll);
			puts_(b, "\n");
		}
		l += ll;
		if (*l)
			l++;
		line++;
	}
	return 0;
}

static bool devices_ok(struct _cl_context *c, cl_uint n,
		       const cl_device_id *list, cl_int *err)
{
	cl_uint i;

	if ((!list && n) || (list && !n)) {
		*err = CL_INVALID_VALUE;
		return false;
	}
	for (i = 0; i < n; i++)
		if (!vcl_context_has_device(c, list[i])) {
			*err = CL_INVALID_DEVICE;
			return false;
		}
	return true;
}

cl_int vcl_clCompileProgram(cl_program program, cl_uint num_devices,
			    const cl_device_id *device_list,
			    const char *options, cl_uint num_input_headers,
			    const cl_program *input_headers,
			    const char **header_include_names,
			    void (CL_CALLBACK *pfn_notify)(cl_program, void *),
			    void *user_data)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	struct buf text = { .ok = true };
	char *cc = NULL, *rest = NULL, *log = NULL, *opts = NULL;
	void *bc = NULL;
	size_t bc_bytes = 0;
	bool arg_info = false;
	cl_uint i, got = 0;
	cl_int err;
	int r;

	if (!vcl_obj_get(p, program, VCL_PROGRAM, true))
		return CL_INVALID_PROGRAM;
	if (!devices_ok(program->ctx, num_devices, device_list, &err))
		goto out;
	err = CL_INVALID_VALUE;
	if ((!pfn_notify && user_data) ||
	    (num_input_headers && (!input_headers || !header_include_names)) ||
	    (!num_input_headers && (input_headers || header_include_names)))
		goto out;
	for (i = 0; i < num_input_headers; i++, got++) {
		if (!header_include_names[i])
			goto out;
		if (!vcl_obj_get(p, input_headers[i], VCL_PROGRAM, true)) {
			err = CL_INVALID_PROGRAM;
			goto out;
		}
	}
	err = vcl_build_options(options, VCL_OPTS_COMPILE, &cc, &arg_info,
				NULL);
	if (err)
		goto out;
	err = CL_INVALID_OPERATION;
	if (!program->source)	/* a program from a binary */
		goto out;
	rest = other_options(cc);
	opts = strdup(options ? options : "");
	macros(&text, cc, false);
	puts_(&text, "#line 1 \"input.cl\"\n");
	r = expand(&text, program->source, "input.cl", num_input_headers,
		   input_headers, header_include_names, 0);
	macros(&text, cc, true);
	err = CL_OUT_OF_HOST_MEMORY;
	if (!rest || !opts || !text.ok)
		goto out;
	pthread_mutex_lock(&program->lock);
	if (program->nkernels) {
		pthread_mutex_unlock(&program->lock);
		err = CL_INVALID_OPERATION;
		goto out;
	}
	if (r) {
		log = strdup("input.cl: error: headers include each other "
			     "too deep\n");
	} else {
		r = vmgpu_program_compile(text.s, rest, &bc, &bc_bytes, &log);
	}
	vmgpu_program_destroy(program->prog);
	program->prog = NULL;
	free(program->log);
	free(program->options);
	free(program->object);
	free(program->cc_options);
	free(program->bc);
	program->bc = r ? NULL : bc;
	program->bc_bytes = r ? 0 : bc_bytes;
	bc = NULL;
	free(program->bin);
	program->bin = NULL;
	program->log = log;
	program->options = opts;
	opts = NULL;
	program->object = r ? NULL : text.s;
	program->cc_options = r ? NULL : rest;
	if (!r)
		text.s = rest = NULL;
	program->arg_info = arg_info;
	program->status = r ? CL_BUILD_ERROR : CL_BUILD_SUCCESS;
	program->btype = r ? CL_PROGRAM_BINARY_TYPE_NONE :
			     CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
	pthread_mutex_unlock(&program->lock);
	err = !r ? CL_SUCCESS : r == -ENOMEM ? CL_OUT_OF_HOST_MEMORY :
					      CL_COMPILE_PROGRAM_FAILURE;
	if (pfn_notify)
		pfn_notify(program, user_data);
out:
	free(bc);
	free(text.s);
	free(rest);
	free(cc);
	free(opts);
	while (got--)
		vcl_program_put(input_headers[got]);
	vcl_program_put(program);
	return err;
}

cl_program vcl_clLinkProgram(cl_context context, cl_uint num_devices,
			     const cl_device_id *device_list,
			     const char *options, cl_uint num_input_programs,
			     const cl_program *input_programs,
			     void (CL_CALLBACK *pfn_notify)(cl_program, void *),
			     void *user_data, cl_int *errcode_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	struct buf text = { .ok = true }, opts = { .ok = true };
	struct vmgpu_program *prog = NULL;
	struct _cl_program *pr = NULL, *in;
	bool library = false, arg_info = false;
	char *cc = NULL, *log = NULL, *olog = NULL;
	const void **bcs = NULL;
	size_t *sizes = NULL, lib_bytes = 0;
	void **own = NULL, *lib = NULL;	/* bitcode compiled here */
	cl_uint i, got = 0;
	cl_int err;
	int r = 0;

	if (!vcl_obj_get(p, context, VCL_CONTEXT, false)) {
		err = CL_INVALID_CONTEXT;
		goto fail;
	}
	if (!devices_ok(context, num_devices, device_list, &err))
		goto fail;
	err = CL_INVALID_VALUE;
	if (!num_input_programs || !input_programs || (!pfn_notify && user_data))
		goto fail;
	for (; got < num_input_programs; got++)
		if (!vcl_obj_get(p, input_programs[got], VCL_PROGRAM, true)) {
			err = CL_INVALID_PROGRAM;
			goto fail;
		}
	err = vcl_build_options(options, VCL_OPTS_LINK, &cc, &arg_info,
				&library);
	if (err)
		goto fail;
	put(&opts, cc, strlen(cc));
	err = CL_OUT_OF_HOST_MEMORY;
	bcs = calloc(num_input_programs, sizeof(*bcs));
	sizes = calloc(num_input_programs, sizeof(*sizes));
	own = calloc(num_input_programs, sizeof(*own));
	if (!bcs || !sizes || !own)
		goto fail;
	for (i = 0; i < num_input_programs; i++) {
		in = input_programs[i];
		pthread_mutex_lock(&in->lock);
		if (in->ctx != context ||
		    (in->btype != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT &&
		     in->btype != CL_PROGRAM_BINARY_TYPE_LIBRARY) ||
		    !in->object) {
			pthread_mutex_unlock(&in->lock);
			err = in->ctx != context ? CL_INVALID_CONTEXT :
						   CL_INVALID_OPERATION;
			goto fail;
		}
		put(&text, in->object, strlen(in->object));
		puts_(&text, "\n");
		/* an object from an older binary: its bitcode now */
		if (!in->bc && !r) {
			r = vmgpu_program_compile(in->object, in->cc_options,
						  &own[i], &sizes[i], &olog);
			bcs[i] = own[i];
			if (r) {
				free(log);
				log = olog;
				olog = NULL;
			}
			free(olog);
			olog = NULL;
		} else if (in->bc) {	/* a copy: it may be compiled again */
			own[i] = malloc(in->bc_bytes);
			if (own[i])
				memcpy(own[i], in->bc, in->bc_bytes);
			else
				r = -ENOMEM;
			bcs[i] = own[i];
			sizes[i] = in->bc_bytes;
		}
		arg_info |= in->arg_info;
		pthread_mutex_unlock(&in->lock);
	}
	err = CL_OUT_OF_HOST_MEMORY;
	if (!text.ok || !opts.ok)
		goto fail;
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		goto fail;
	if (!r)	/* the objects' compile options are in their bitcode */
		r = vmgpu_program_link(bcs, sizes, num_input_programs, opts.s,
				       library ? NULL : &prog,
				       library ? &lib : NULL, &lib_bytes,
				       &log);
	vcl_context_get(context);
	pr->dispatch = &vcl_dispatch;
	pr->o.kind = VCL_PROGRAM;
	pr->o.refs = 1;
	pr->ctx = context;
	pr->status = r ? CL_BUILD_ERROR : CL_BUILD_SUCCESS;
	pr->btype = r ? CL_PROGRAM_BINARY_TYPE_NONE : library ?
		    CL_PROGRAM_BINARY_TYPE_LIBRARY :
		    CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
	pr->prog = r ? NULL : prog;
	pr->log = log;
	pr->options = strdup(options ? options : "");
	pr->object = text.s;
	pr->cc_options = opts.s;
	pr->bc = lib;
	pr->bc_bytes = lib_bytes;
	lib = NULL;
	pr->arg_info = arg_info;
	text.s = opts.s = NULL;
	pthread_mutex_init(&pr->lock, NULL);
	if (!pr->options || vcl_obj_add(p, pr)) {
		vcl_program_free(pr);
		pr = NULL;
		err = CL_OUT_OF_HOST_MEMORY;
		goto fail;
	}
	err = !r ? CL_SUCCESS : r == -ENOMEM ? CL_OUT_OF_HOST_MEMORY :
					      CL_LINK_PROGRAM_FAILURE;
	if (pfn_notify)
		pfn_notify(pr, user_data);
	while (got--)
		vcl_program_put(input_programs[got]);
	for (i = 0; i < num_input_programs; i++)
		free(own[i]);
	free(own);
	free(bcs);
	free(sizes);
	free(cc);
	if (errcode_ret)
		*errcode_ret = err;
	/* A failed link's program holds the log (OpenCL 1.2 5.6.3). */
	return pr;
fail:
	for (i = 0; own && i < num_input_programs; i++)
		free(own[i]);
	free(own);
	free(bcs);
	free(sizes);
	free(lib);
	free(log);
	free(text.s);
	free(opts.s);
	free(cc);
	while (got--)
		vcl_program_put(input_programs[got]);
	if (errcode_ret)
		*errcode_ret = err;
	return NULL;
}
