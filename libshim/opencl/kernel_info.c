// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: clGetKernelArgInfo. The executable's signature gives
 * each parameter's name and kind (vmgpu_rt_kernel_param_info: a global
 * buffer, a __local pointer, a scalar), hence the address qualifier; the
 * access qualifier is NONE (no images). The signature has no C type
 * names, and the compiler's API does not hand out clang's argument info,
 * so the type name and type qualifiers are read from the kernel's
 * declaration in the program's text: the parameter list of
 * "kernel void NAME(", split at its commas, each parameter's last word
 * its name. When that declaration cannot be read that way (it comes from
 * a macro, a name differs from the signature's, a program from a plain
 * kernel library with no text) those two queries answer
 * CL_KERNEL_ARG_INFO_NOT_AVAILABLE. All of it only for a program built
 * with -cl-kernel-arg-info, as OpenCL 1.2 says.
 *
 * The kernel's attributes (CL_KERNEL_ATTRIBUTES, reqd_work_group_size)
 * come from the same declaration, each __attribute__((...)) before the
 * kernel's name as it is written there: what a macro expands to is not
 * seen (a reqd_work_group_size whose sizes are not numbers is then not
 * enforced).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

/* @s without comments (same length: comments become spaces). */
static char *no_comments(const char *s)
{
	char *t = strdup(s), *c;

	if (!t)
		return NULL;
	for (c = t; *c; c++) {
		if (c[0] == '/' && c[1] == '/') {
			while (*c && *c != '\n')
				*c++ = ' ';
			if (!*c)
				break;
		} else if (c[0] == '/' && c[1] == '*') {
			*c++ = ' ';
			*c++ = ' ';
			while (*c && !(c[0] == '*' && c[1] == '/'))
				*c++ = ' ';
			if (!*c)
				break;
			*c++ = ' ';
			*c = ' ';
		} else if (*c == '"') {
			for (c++; *c && *c != '"' && *c != '\n'; c++)
				if (*c == '\\' && c[1])
					c++;
			if (!*c)
				break;
		}
	}
	return t;
}

static bool ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The word at @s (an identifier) equals @w. */
static bool word_is(const char *start, const char *s, const char *w)
{
	size_t n = strlen(w);

	return (s == start || !ident(s[-1])) && !strncmp(s, w, n) &&
	       !ident(s[n]);
}

/*
 * The text between the parentheses of kernel @name's declaration; *@at
 * (when not NULL) where its name is.
 */
static const char *params_of(const char *t, const char *name, size_t *len,
			     const char **at)
{
	const char *s, *q;
	size_t n = strlen(name);
	int depth;

	for (s = t; (s = strstr(s, name)); s += n) {
		if (!word_is(t, s, name))
			continue;
		for (q = s + n; isspace((unsigned char)*q); q++)
			;
		if (*q != '(')
			continue;
		/* "kernel" or "__kernel" before it (attributes between) */
		for (size_t back = 0; back <= (size_t)(s - t) && back < 512;
		     back++)
			if (word_is(t, s - back, "kernel") ||
			    word_is(t, s - back, "__kernel"))
				goto found;
		continue;
found:
		if (at)
			*at = s;
		s = ++q;
		for (depth = 1; *q && depth; q++)
			depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
		if (depth)
			return NULL;
		*len = (size_t)(q - 1 - s);
		return s;
	}
	return NULL;
}

struct decl {
	char type[256];			/* CL_KERNEL_ARG_TYPE_NAME */
	cl_kernel_arg_type_qualifier q;
	bool constant;			/* __constant */
};

/*
 * When the @n words of @w spell an integer type of C ("unsigned", "short
 * signed int", "long unsigned"), its OpenCL C name ("uint", "short",
 * "ulong") into w[0].
 */
static bool int_type_name(char w[][64], int n)
{
	char base[8] = "int";
	bool is_unsigned = false, any = false;
	int i;

	for (i = 0; i < n; i++) {
		if (!strcmp(w[i], "unsigned"))
			is_unsigned = true;
		else if (!strcmp(w[i], "char") || !strcmp(w[i], "short") ||
			 !strcmp(w[i], "long"))
			strcpy(base, w[i]);
		else if (strcmp(w[i], "signed") && strcmp(w[i], "int"))
			return false;
		any = true;
	}
	if (!any || (n == 1 && strcmp(w[0], "unsigned") &&
		     strcmp(w[0], "signed")))
		return false;	/* one word that is its own name */
	snprintf(w[0], sizeof(w[0]), "%s%s", is_unsigned ? "u" : "", base);
	return true;
}

/* Parameter @index of the list @s (@n bytes) named @want. */
static bool param_decl(const char *s, size_t n, cl_uint index,
		       const char *want, struct decl *d)
{
	static const char *const skip[] = {
		"global", "__global", "local", "__local", "private",
		"__private", "read_only", "__read_only", "write_only",
		"__write_only", "read_write", "__read_write", "struct",
	};
	char words[32][64], *name;
	const char *e = s + n, *p;
	int nw = 0, stars = 0, i, depth = 0;
	size_t k;

	memset(d, 0, sizeof(*d));
	for (p = s; index && p < e; p++) {	/* to the parameter */
		depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
		if (*p == ',' && !depth)
			index--;
	}
	if (index)
		return false;
	s = p;
	for (p = s; p < e && *p != ','; ) {
		if (isspace((unsigned char)*p)) {
			p++;
		} else if (*p == '*') {
			/* qualifiers after the star are the pointer's */
			stars++;
			p++;
		} else if (ident(*p)) {
			for (k = 0; p + k < e && ident(p[k]); k++)
				;
			if (nw == 32 || k >= 64)
				return false;
			memcpy(words[nw], p, k);
			words[nw][k] = 0;
			p += k;
			if (!strcmp(words[nw], "const") ||
			    !strcmp(words[nw], "__const")) {
				if (!stars)
					d->q |= CL_KERNEL_ARG_TYPE_CONST;
			} else if (!strcmp(words[nw], "restrict") ||
				   !strcmp(words[nw], "__restrict")) {
				d->q |= CL_KERNEL_ARG_TYPE_RESTRICT;
			} else if (!strcmp(words[nw], "volatile") ||
				   !strcmp(words[nw], "__volatile")) {
				if (!stars)
					d->q |= CL_KERNEL_ARG_TYPE_VOLATILE;
			} else if (!strcmp(words[nw], "constant") ||
				   !strcmp(words[nw], "__constant")) {
				d->constant = true;
			} else {
				for (i = 0; i < (int)(sizeof(skip) /
						      sizeof(skip[0])); i++)
					if (!strcmp(words[nw], skip[i]))
						break;
				if (i == (int)(sizeof(skip) / sizeof(skip[0])))
					nw++;
			}
		} else {
			return false;	/* arrays, macros' tokens: not read */
		}
	}
	if (nw < 2)
		return false;
	name = words[nw - 1];
	if (strcmp(name, want) &&
	    !(want[0] && !strncmp(name, want, strlen(want))))
		return false;
	/* OpenCL C's integer types by their names ("short unsigned": ushort) */
	if (int_type_name(words, nw - 1)) {
		memmove(words[1], words[nw - 1], sizeof(words[1]));
		nw = 2;
	}
	for (i = 0; i < nw - 1; i++) {
		if (i)
			strcat(d->type, " ");
		if (strlen(d->type) + strlen(words[i]) + 8 >= sizeof(d->type))
			return false;
		strcat(d->type, words[i]);
	}
	if (strlen(d->type) + (size_t)stars >= sizeof(d->type))
		return false;
	while (stars--)
		strcat(d->type, "*");
	if (d->constant)
		d->q |= CL_KERNEL_ARG_TYPE_CONST;
	/* the qualifiers are those of a pointer's referenced type (1.2, 5.7.3) */
	if (!strchr(d->type, '*'))
		d->q = CL_KERNEL_ARG_TYPE_NONE;
	return true;
}

/* The declaration of @k's parameter @index in its program's text. */
static bool find_decl(struct _cl_kernel *k, cl_uint index, struct decl *d)
{
	struct _cl_program *pr = k->program;
	const char *src, *list;
	char *t = NULL;
	bool ok = false;
	size_t n;

	pthread_mutex_lock(&pr->lock);
	src = pr->source && !pr->object ? pr->source : pr->object;
	if (src)
		t = no_comments(src);
	pthread_mutex_unlock(&pr->lock);
	if (!t)
		return false;
	list = params_of(t, k->name, &n, NULL);
	if (list)
		ok = param_decl(list, n, index, k->params[index].name, d);
	free(t);
	return ok;
}

cl_int vcl_clGetKernelArgInfo(cl_kernel kernel, cl_uint arg_indx,
			      cl_kernel_arg_info param_name,
			      size_t param_value_size, void *param_value,
			      size_t *param_value_size_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	const struct vmgpu_rt_param_info *pi;
	cl_kernel_arg_address_qualifier aq;
	cl_kernel_arg_access_qualifier acc = CL_KERNEL_ARG_ACCESS_NONE;
	struct decl d;
	bool info, have;
	cl_int err;

	/* No reference taken: as for clSetKernelArg, the application keeps
	 * the kernel alive during the call. */
	if (!vcl_obj_get(p, kernel, VCL_KERNEL, false))
		return CL_INVALID_KERNEL;
	err = CL_INVALID_ARG_INDEX;
	if (arg_indx >= kernel->nparams ||
	    kernel->params[arg_indx].kind == VMGPU_RT_PARAM_PRIVATE)
		goto out;
	pthread_mutex_lock(&kernel->program->lock);
	info = kernel->program->arg_info;
	pthread_mutex_unlock(&kernel->program->lock);
	err = CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
	if (!info)
		goto out;
	pi = &kernel->params[arg_indx];
	have = find_decl(kernel, arg_indx, &d);
	switch (param_name) {
	case CL_KERNEL_ARG_ADDRESS_QUALIFIER:
		aq = pi->kind == VMGPU_RT_PARAM_LOCAL ?
			     CL_KERNEL_ARG_ADDRESS_LOCAL :
		     pi->kind == VMGPU_RT_PARAM_SCALAR ?
			     CL_KERNEL_ARG_ADDRESS_PRIVATE :
		     have && d.constant ? CL_KERNEL_ARG_ADDRESS_CONSTANT :
					  CL_KERNEL_ARG_ADDRESS_GLOBAL;
		err = vcl_info(&aq, sizeof(aq), param_value_size, param_value,
			       param_value_size_ret);
		break;
	case CL_KERNEL_ARG_ACCESS_QUALIFIER:
		err = vcl_info(&acc, sizeof(acc), param_value_size,
			       param_value, param_value_size_ret);
		break;
	case CL_KERNEL_ARG_TYPE_NAME:
		err = have ? vcl_info_str(d.type, param_value_size,
					  param_value, param_value_size_ret) :
			     CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
		break;
	case CL_KERNEL_ARG_TYPE_QUALIFIER:
		err = have ? vcl_info(&d.q, sizeof(d.q), param_value_size,
				      param_value, param_value_size_ret) :
			     CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
		break;
	case CL_KERNEL_ARG_NAME:
		err = vcl_info_str(pi->name, param_value_size, param_value,
				   param_value_size_ret);
		break;
	default:
		err = CL_INVALID_VALUE;
	}
out:
	return err;
}

int vcl_kernel_arg_narrow(struct _cl_kernel *k, cl_uint index, size_t *size,
			  bool *is_signed)
{
	static const struct {
		const char *type;
		size_t size;
		bool is_signed;
	} narrow[] = {
		{ "char", 1, true }, { "uchar", 1, false },
		{ "unsigned char", 1, false }, { "bool", 1, false },
		{ "short", 2, true }, { "ushort", 2, false },
		{ "unsigned short", 2, false },
	};
	struct decl d;
	size_t i;

	if (!find_decl(k, index, &d))
		return -1;
	for (i = 0; i < sizeof(narrow) / sizeof(narrow[0]); i++)
		if (!strcmp(d.type, narrow[i].type)) {
			*size = narrow[i].size;
			*is_signed = narrow[i].is_signed;
			return 0;
		}
	return -1;
}

/*
 * Append the attributes in "__attribute__((A, B(x, y)))" at @s to @out
 * (@cap bytes), each one without its surrounding blanks and newlines,
 * space-separated; returns the end of the construct, or NULL when @s is
 * not one.
 */
static const char *attrs_at(const char *s, char *out, size_t cap)
{
	const char *a, *b;
	int depth = 2;
	size_t n, o;

	s += strlen("__attribute__");
	while (isspace((unsigned char)*s))
		s++;
	if (s[0] != '(' || s[1] != '(')
		return NULL;
	/* depth 2 inside both parentheses: each attribute ends at a ','
	 * there or at the inner ')' */
	for (a = s += 2; *s && depth > 1; s++) {
		depth += *s == '(' ? 1 : *s == ')' ? -1 : 0;
		if ((*s != ',' || depth != 2) && depth != 1)
			continue;
		/* one attribute: [a, s) */
		for (b = s; b > a && isspace((unsigned char)b[-1]); b--)
			;
		while (a < b && isspace((unsigned char)*a))
			a++;
		o = strlen(out);
		if (a < b && o + (size_t)(b - a) + 2 < cap) {
			if (o)
				out[o++] = ' ';
			for (n = 0; a + n < b; n++)
				if (a[n] != '\n' && a[n] != '\r')
					out[o++] = a[n];
			out[o] = 0;
		}
		a = s + 1;
	}
	while (isspace((unsigned char)*s))
		s++;
	return depth == 1 && *s == ')' ? s + 1 : NULL;
}

/* Is @s on a preprocessor line of @t? */
static bool in_directive(const char *t, const char *s)
{
	while (s > t && s[-1] != '\n')
		s--;
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == '#';
}

/* "reqd_work_group_size(X, Y, Z)" in @attrs: the sizes, if numbers. */
static bool reqd_of(const char *attrs, size_t reqd[3])
{
	const char *s = attrs;
	char *end;
	int i;

	while ((s = strstr(s, "reqd_work_group_size"))) {
		if ((s == attrs || s[-1] == ' ') &&
		    (s += strlen("reqd_work_group_size"), *s == '('))
			break;
		s++;
	}
	if (!s)
		return false;
	s++;
	for (i = 0; i < 3; i++) {
		unsigned long long v = strtoull(s, &end, 0);

		while (*end == 'u' || *end == 'U' || *end == 'l' ||
		       *end == 'L')
			end++;
		while (isspace((unsigned char)*end))
			end++;
		if (end == s || !v || v > SIZE_MAX ||
		    *end != (i < 2 ? ',' : ')'))
			return false;
		reqd[i] = (size_t)v;
		s = end + 1;
	}
	return true;
}

int vcl_kernel_attributes(struct _cl_kernel *k)
{
	struct _cl_program *pr = k->program;
	char *t = NULL, *out;
	const char *src, *name = NULL, *s, *e;
	size_t n, cap;

	memset(k->reqd, 0, sizeof(k->reqd));
	pthread_mutex_lock(&pr->lock);
	src = pr->source && !pr->object ? pr->source : pr->object;
	if (src)
		t = no_comments(src);
	pthread_mutex_unlock(&pr->lock);
	if (src && !t)
		return -1;
	cap = t ? strlen(t) + 1 : 1;
	out = calloc(1, cap);
	if (!out) {
		free(t);
		return -1;
	}
	if (t && params_of(t, k->name, &n, &name)) {
		/*
		 * The declaration's start: after the text before it ends (a
		 * ';' or '}'); the attributes are between there and the
		 * name, in the order written, those of a preprocessor line
		 * (a macro's definition) not.
		 */
		for (s = name; s > t && s[-1] != ';' && s[-1] != '}'; s--)
			;
		while ((s = strstr(s, "__attribute__")) && s < name) {
			e = word_is(t, s, "__attribute__") &&
			    !in_directive(t, s) ? attrs_at(s, out, cap) : NULL;
			s = e ? e : s + 1;
		}
	}
	free(t);
	reqd_of(out, k->reqd);
	k->attributes = out;
	return 0;
}
