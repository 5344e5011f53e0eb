/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small kernels in the ISA's assembly that several host tests, the fuzz
 * engine and the benchmarks run on the device model (th_kernel()). One
 * copy each, as string literals so that a user can still name its own.
 */
#ifndef VMGPU_TESTKERNELS_H
#define VMGPU_TESTKERNELS_H

/* *p += 1 from every thread, atomically: counts the threads that ran. */
#define TK_ATOM_ADD_SRC				\
	".args 8\n"				\
	"	ldarg.64 r0, 0\n"		\
	"	mov r2, 1\n"			\
	"	atom.add r3, [r0], r2\n"	\
	"	exit\n"

/* *p += 1, not atomically: one thread, or a race the test wants. */
#define TK_ADD_ONE_SRC				\
	".args 8\n"				\
	"	ldarg.64 r0, 0\n"		\
	"	ld.32 r2, [r0]\n"		\
	"	add r2, r2, 1\n"		\
	"	st.32 [r0], r2\n"		\
	"	exit\n"

/* Spin 2000 iterations, then *p = @v: a value the GPU produces late. */
#define TK_SLOW_STORE_SRC(v)			\
	".args 8\n"				\
	"	mov r0, 0\n"			\
	"loop:\n"				\
	"	add r0, r0, 1\n"		\
	"	setp.lt p0, r0, 2000\n"	\
	"	bra p0, loop\n"		\
	"	ldarg.64 r2, 0\n"		\
	"	mov r4, " #v "\n"		\
	"	st.32 [r2], r4\n"		\
	"	exit\n"

/*
 * A parent that launches, from each thread, the child whose task
 * descriptor is at args+0 (4 blocks), and the same parent with a nop for
 * the launch, of the same length: the host's way, for comparison.
 */
#define TK_LAUNCH_PARENT_BODY(launch_or_nop)	\
	".args 8\n"				\
	"	ldarg.64 r0, 0\n"		\
	"	mov r4, 0\n"			\
	"	mov r5, 0\n"			\
	"	mov r6, 4\n"			\
	"	" launch_or_nop "\n"		\
	"	exit\n"
#define TK_LAUNCH_PARENT_SRC	TK_LAUNCH_PARENT_BODY("launch [r0], r4, r6")
#define TK_LAUNCH_PARENT_HOST_SRC	TK_LAUNCH_PARENT_BODY("nop")

/*
 * Kernel @name (out, n, base): thread i < n spins base * (1 + CLASS %
 * DIV) iterations of four warp instructions, then out[i] = i. CLASS is
 * register @class_reg, after the instruction @class_load (a line, or "")
 * has set it: r0 holds the block index ("", "r0": blocks of one kernel
 * last from 1x to DIVx), "s2r r10, %smid" the SM's. Every argument a
 * string literal.
 */
#define TK_SPIN_SRC(name, class_load, class_reg, div)	\
	".kernel " name "\n"			\
	".param out, buf_wo\n"			\
	".param n, i32\n"			\
	".param base, i32\n"			\
	"	s2r r0, %ctaid.x\n"		\
	"	s2r r1, %ntid.x\n"		\
	"	s2r r2, %tid.x\n"		\
	"	mad r3, r0, r1, r2\n"		\
	"	ldarg r1, n\n"			\
	"	setp.geu p0, r3, r1\n"		\
	"	bra p0, done\n"			\
	"	" class_load "\n"		\
	"	remu r4, " class_reg ", " div "\n"	\
	"	add r4, r4, 1\n"		\
	"	ldarg r5, base\n"		\
	"	mul r4, r4, r5\n"		\
	"	mov r6, 0\n"			\
	"idle:\n"				\
	"	setp.geu p1, r6, r4\n"		\
	"	bra p1, work\n"			\
	"	add r6, r6, 1\n"		\
	"	bra idle\n"			\
	"work:\n"				\
	"	ldarg.64 r8, out\n"		\
	"	lea r8, r8, r3, 2\n"		\
	"	st.32 [r8], r3\n"		\
	"done:\n"				\
	"	exit\n"

#endif /* VMGPU_TESTKERNELS_H */
