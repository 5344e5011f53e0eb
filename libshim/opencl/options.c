// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: OpenCL 1.2's build, compile and link options checked
 * and translated for the compiler (vmgpu_program_build, whose options are
 * libshim/compiler/frontend.cpp's). What is translated:
 *  - "-D NAME", "-I DIR", "-U NAME" (two words) become one word;
 *  - -cl-kernel-arg-info is the ICD's (the compiler always keeps the
 *    argument names): it is noted, not passed;
 *  - -cl-denorms-are-zero is dropped (clang 16's front end refuses it; it
 *    only allows flushing denormals), -cl-strict-aliasing (OpenCL 1.0's)
 *    too;
 *  - anything else OpenCL 1.2 does not define, or the compiler does not
 *    take, is CL_INVALID_BUILD_OPTIONS (CL_INVALID_LINKER_OPTIONS for a
 *    link), and so is -cl-std= other than CL1.0, CL1.1, CL1.2.
 */
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

struct buf {
	char *s;
	size_t n, cap;
	bool ok;
};

static void puts_(struct buf *b, const char *s)
{
	size_t n = strlen(s);
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
	memcpy(b->s + b->n, s, n + 1);
	b->n += n;
}

/* Options OpenCL 1.2 gives clLinkProgram (section 5.6.5.2). */
static bool link_option(const char *w)
{
	return !strcmp(w, "-cl-denorms-are-zero") ||
	       !strcmp(w, "-cl-no-signed-zeros") ||
	       !strcmp(w, "-cl-unsafe-math-optimizations") ||
	       !strcmp(w, "-cl-finite-math-only") ||
	       !strcmp(w, "-cl-fast-relaxed-math");
}

/* The compiler takes these as they are (libshim/compiler/frontend.cpp). */
static bool compiler_option(const char *w)
{
	static const char *const ok[] = {
		"-w", "-Werror", "-cl-mad-enable", "-cl-opt-disable",
		"-cl-single-precision-constant", "-cl-std=CL1.0",
		"-cl-std=CL1.1", "-cl-std=CL1.2", "-ffp-contract=off",
		"-ffp-contract=on", "-ffp-contract=fast",
		"-cl-fp32-correctly-rounded-divide-sqrt",
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(w, ok[i]))
			return true;
	return link_option(w) || !strncmp(w, "-vmgpu-", 7);
}

cl_int vcl_build_options(const char *in, int mode, char **out,
			 bool *arg_info, bool *create_library)
{
	cl_int bad = mode == VCL_OPTS_LINK ? CL_INVALID_LINKER_OPTIONS :
		     mode == VCL_OPTS_COMPILE ? CL_INVALID_COMPILER_OPTIONS :
						CL_INVALID_BUILD_OPTIONS;
	struct buf b = { .ok = true };
	const char *s = in ? in : "";
	char w[4096];
	size_t n;

	*out = NULL;
	puts_(&b, "");
	while (*s) {
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		n = strcspn(s, " \t\n");
		if (!n)
			break;
		if (n >= sizeof(w))
			goto bad;
		memcpy(w, s, n);
		w[n] = 0;
		s += n;
		if (mode == VCL_OPTS_LINK) {
			/* -enable-link-options: the library's options are
			 * the compiler's own (nothing to keep apart). */
			if (!strcmp(w, "-create-library") && create_library)
				*create_library = true;
			else if (strcmp(w, "-enable-link-options") &&
				 !link_option(w))
				goto bad;
			if (link_option(w) &&
			    strcmp(w, "-cl-denorms-are-zero")) {
				puts_(&b, " ");
				puts_(&b, w);
			}
			continue;
		}
		if (!strcmp(w, "-cl-kernel-arg-info")) {
			/* Not the compiler's option: it always keeps the
			 * argument names; the ICD answers the queries. */
			*arg_info = true;
			continue;
		}
		/*
		 * -cl-strict-aliasing: OpenCL 1.0's, without effect.
		 * -cl-denorms-are-zero: the compiler takes it but clang 16's
		 * front end does not; it only allows flushing denormals
		 * ("may"), so keeping them is correct.
		 */
		if (!strcmp(w, "-cl-strict-aliasing") ||
		    !strcmp(w, "-cl-denorms-are-zero"))
			continue;
		if (!strcmp(w, "-D") || !strcmp(w, "-I") || !strcmp(w, "-U")) {
			/* "-D NAME": one word for the compiler */
			while (*s == ' ' || *s == '\t' || *s == '\n')
				s++;
			n = strcspn(s, " \t\n");
			if (!n || n + 3 >= sizeof(w))
				goto bad;
			memcpy(w + 2, s, n);
			w[n + 2] = 0;
			s += n;
		} else if (strncmp(w, "-D", 2) && strncmp(w, "-I", 2) &&
			   strncmp(w, "-U", 2) && !compiler_option(w)) {
			goto bad;
		}
		if (w[0] == '-' && (w[1] == 'D' || w[1] == 'U') &&
		    (w[2] == '=' || !w[2]))
			goto bad;
		puts_(&b, " ");
		puts_(&b, w);
	}
	/*
	 * Always: OpenCL's global work offset and work dimension reach
	 * the kernels in hidden parameters (compiler.rst). A link's
	 * objects have it already; once more does no harm.
	 */
	puts_(&b, " " VMGPU_NDRANGE_OPTION " " VMGPU_KERNEL_CALLS_OPTION);
	if (!b.ok) {
		free(b.s);
		return CL_OUT_OF_HOST_MEMORY;
	}
	*out = b.s;
	return CL_SUCCESS;
bad:
	free(b.s);
	return bad;
}

