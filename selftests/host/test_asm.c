// SPDX-License-Identifier: GPL-2.0-only
/*
 * Assembler and disassembler: round trips (assemble, disassemble,
 * assemble gives identical bytes) for every built-in kernel and every
 * opcode, and error messages with line numbers for bad input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "vmgpu.h"
#include "core/interp.h"
#include "vmgpu_isa.h"

static void round_trip(struct __test_metadata *_metadata, const char *src,
		       bool loadable)
{
	void *img1, *img2;
	size_t n1, n2;
	char err[256], *text;
	struct vg_kernel *k;

	ASSERT_EQ(0, vmgpu_asm_assemble(src, &img1, &n1, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, vmgpu_disasm_image(img1, n1, &text, err, sizeof(err)));
	ASSERT_EQ(0, vmgpu_asm_assemble(text, &img2, &n2, err, sizeof(err)))
		TH_LOG("%s\n%s", err, text);
	ASSERT_EQ(n1, n2);
	ASSERT_EQ(0, memcmp(img1, img2, n1)) TH_LOG("%s", text);
	if (loadable) {
		ASSERT_EQ(VMGPU_FAULT_NONE,
			  vg_kernel_load(&k, img1, n1, VMGPU_ISA_VERSION, NULL));
		vg_kernel_free(k);
	}
	free(text);
	free(img1);
	free(img2);
}

TEST(builtin_round_trip)
{
	const char *const *names = vmgpu_builtin_kernel_names();
	int n = 0;

	for (; *names; names++, n++)
		round_trip(_metadata, vmgpu_builtin_kernel_source(*names), true);
	EXPECT_GE(n, 5);
	EXPECT_EQ(NULL, vmgpu_builtin_kernel_source("nope"));
	EXPECT_EQ(NULL, vmgpu_builtin_kernel_source(NULL));
}

/* One line per operand form of every opcode. */
static const char every_op[] =
	".regs 32\n.shared 256\n.args 16\n"
	".equ FOUR, 4\n"
	"top: nop\n"
	"	mov r1, r2\n	mov r1, -7\n	mov r1, FOUR\n"
	"	s2r r3, %tid.y\n	s2r r3, %smid\n"
	"	sel r1, p7, r2, r3\n"
	"	ldarg r4, 12\n	ldarg.64 r4, 8\n"
	"	add r1, r2, r3\n	add r1, r2, 0x7fffffff\n"
	"	sub r1, r2, -1\n	mul r1, r2, r3\n	mulhi r1, r2, r3\n"
	"	mulhiu r1, r2, 9\n	div r1, r2, r3\n	divu r1, r2, 0\n"
	"	rem r1, r2, r3\n	remu r1, r2, 3\n	and r1, r2, r3\n"
	"	or r1, r2, 0xff00ff00\n	xor r1, r2, r3\n	shl r1, r2, 33\n"
	"	shr r1, r2, r3\n	sra r1, r2, 1\n	min r1, r2, r3\n"
	"	max r1, r2, -100000\n	minu r1, r2, r3\n	maxu r1, r2, 4\n"
	"	not r1, r2\n	neg r1, r2\n	mad r1, r2, r3, r4\n"
	"	add64 r2, r4, r6\n	add64 r2, r4, -8\n	lea r2, r4, r9, 31\n"
	"	fadd r1, r2, r3\n	fadd r1, r2, 1.5\n	fsub r1, r2, -0.0\n"
	"	fmul r1, r2, 3.40282347e+38\n	fdiv r1, r2, 1e-45\n"
	"	fmin r1, r2, 0x7fc00001\n	fmax r1, r2, 0xff800000\n"
	"	ffma r1, r2, r3, r4\n	fsqrt r1, r2\n	fabs r1, r2\n"
	"	fneg r1, r2\n	i2f r1, r2\n	u2f r1, r2\n	f2i r1, r2\n"
	"	f2u r1, r2\n"
	"	setp.eq p0, r1, r2\n	setp.ne p1, r1, 5\n	setp.lt p2, r1, r2\n"
	"	setp.le p3, r1, -5\n	setp.gt p4, r1, r2\n	setp.ge p5, r1, r2\n"
	"	setp.ltu p6, r1, r2\n	setp.leu p7, r1, r2\n"
	"	setp.gtu p0, r1, r2\n	setp.geu p0, r1, 0\n"
	"	fsetp.eq p0, r1, r2\n	fsetp.ne p0, r1, 2.5\n"
	"	fsetp.lt p0, r1, r2\n	fsetp.le p0, r1, r2\n"
	"	fsetp.gt p0, r1, r2\n	fsetp.ge p0, r1, -1e10\n"
	"	pand p0, p1, p2\n	por p3, p4, p5\n	pxor p6, p7, p0\n"
	"	pnot p1, p2\n"
	"	atom.add r1, [r2 + 8], r3\n	atom.min r1, [r2], r3\n"
	"	atom.max r1, [r2 - 4], r3\n	atom.minu r1, [r2], r3\n"
	"	atom.maxu r1, [r2], r3\n	atom.xchg r1, [r2], r3\n"
	"	atom.cas r1, [r2], r3, r4\n"
	"	ld.u8 r1, [r2 + 1]\n	ld.s8 r1, [r2]\n	ld.u16 r1, [r2]\n"
	"	ld.s16 r1, [r2]\n	ld.32 r1, [r2 - 0x100]\n	ld.64 r4, [r2]\n"
	"	st.8 [r2], r1\n	st.16 [r2], r1\n	st.32 [r2+4], r1\n"
	"	st.64 [r2 + 16], r4\n"
	"	lds.u8 r1, [r2]\n	lds.s8 r1, [r2]\n	lds.u16 r1, [r2]\n"
	"	lds.s16 r1, [r2]\n	lds.32 r1, [r2 + 4]\n	lds.64 r4, [r2]\n"
	"	sts.8 [r2], r1\n	sts.16 [r2], r1\n	sts.32 [r2], r1\n"
	"	sts.64 [r2], r4\n"
	"	bar\n"
	"	launch [r2], r4, r6\n	enq [r2 + 8], r1\n	enq [r2], r3\n"
	"	s2r r1, %itembase\n	s2r r1, %itemcount\n"
	"	atoms.add r1, [r2 + 8], r3\n	atoms.min r1, [r2], r3\n"
	"	atoms.max r1, [r2 - 4], r3\n	atoms.minu r1, [r2], r3\n"
	"	atoms.maxu r1, [r2], r3\n	atoms.xchg r1, [r2], r3\n"
	"	atoms.cas r1, [r2], r3, r4\n"
	"	bra p1, top\n	bra !p2, end\n	bra end\n	bra 5000\n"
	"	.insn 0x7f\n"
	"end:	exit\n";

TEST(every_opcode_round_trip)
{
	void *img;
	size_t n;
	char err[256], *text, line[128];
	uint32_t ops_seen[VMGPU_OP_COUNT] = { 0 }, i;
	const uint8_t *code;

	ASSERT_EQ(0, vmgpu_asm_assemble(every_op, &img, &n, err, sizeof(err)))
		TH_LOG("%s", err);
	code = (const uint8_t *)img + VMGPU_EXEC_HEADER_BYTES;
	for (i = 0; i < (n - VMGPU_EXEC_HEADER_BYTES) / 8; i++)
		ops_seen[code[i * 8] & 0x7f]++;
#define X_SEEN(name, c, mnem, fmt, flags, bytes) \
	EXPECT_NE(0, ops_seen[c]) TH_LOG("opcode %s not covered", mnem);
	VMGPU_ISA_OPCODES(X_SEEN)
#undef X_SEEN
	/* The disassembly reassembles to the same bytes. */
	ASSERT_EQ(0, vmgpu_disasm_image(img, n, &text, err, sizeof(err)));
	free(text);
	round_trip(_metadata, every_op, false);
	/* Single instructions. */
	EXPECT_EQ(0, vmgpu_disasm_insn(VMGPU_INSN(VMGPU_OP_ADD, 1, 2, 3, 0),
				       line, sizeof(line)));
	EXPECT_STREQ("add r1, r2, r3", line);
	EXPECT_EQ(0, vmgpu_disasm_insn(VMGPU_INSN(VMGPU_OP_FADD | VMGPU_OP_IMM,
						  1, 2, 0, 0x3fc00000),
				       line, sizeof(line)));
	EXPECT_STREQ("fadd r1, r2, 1.5", line);
	EXPECT_EQ(0, vmgpu_disasm_insn(VMGPU_INSN(VMGPU_OP_BRA, 0,
						  VMGPU_BRA_NEGATE | 3, 0, 9),
				       line, sizeof(line)));
	EXPECT_STREQ("bra !p3, 9", line);
	EXPECT_EQ(-EINVAL, vmgpu_disasm_insn(0x7f, line, sizeof(line)));
	EXPECT_STREQ(".insn 0x000000000000007f", line);
	/* Truncated output buffer: no overflow. */
	EXPECT_EQ(0, vmgpu_disasm_insn(VMGPU_INSN(VMGPU_OP_ADD, 1, 2, 3, 0),
				       line, 5));
	EXPECT_STREQ("add ", line);
	free(img);
}

/* Code using a version-2 instruction or register says version 2. */
TEST(isa_version_from_use)
{
	static const char *const v2[] = {
		"launch [r0], r2, r4\nexit\n",
		"enq [r0], r2\nexit\n",
		"s2r r0, %itemcount\nexit\n",
	};
	struct vmgpu_exec_header h;
	unsigned int i;
	char err[256];
	void *img;
	size_t n;

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, vmgpu_asm_assemble(v2[i], &img, &n, err,
						sizeof(err)))
			TH_LOG("%s", err);
		memcpy(&h, img, sizeof(h));
		EXPECT_EQ(2, h.isa_version);
		free(img);
	}
	/* launch has no address offset */
	EXPECT_EQ(-EINVAL, vmgpu_asm_assemble("launch [r0 + 8], r2, r4\n",
					      &img, &n, err, sizeof(err)));
}

TEST(header_directives)
{
	struct vmgpu_exec_header h;
	void *img;
	size_t n;
	char err[256];

	/* Defaults: registers and argument bytes from use. */
	ASSERT_EQ(0, vmgpu_asm_assemble("ldarg.64 r6, 16\nexit\n", &img, &n,
					err, sizeof(err)));
	memcpy(&h, img, sizeof(h));
	EXPECT_EQ(VMGPU_EXEC_MAGIC, h.magic);
	/* The oldest version with every instruction used. */
	EXPECT_EQ(VMGPU_ISA_VERSION_MIN, h.isa_version);
	EXPECT_EQ(8, h.num_regs);
	EXPECT_EQ(24, h.args_bytes);
	EXPECT_EQ(0, h.shared_bytes);
	EXPECT_EQ(2, h.code_insns);
	EXPECT_EQ(0, h.sig_bytes);
	EXPECT_EQ(0, h.reserved);
	free(img);
	ASSERT_EQ(0, vmgpu_asm_assemble(".regs 100\n.shared 4096\n.args 64\n"
					"exit\n", &img, &n, err, sizeof(err)));
	memcpy(&h, img, sizeof(h));
	EXPECT_EQ(100, h.num_regs);
	EXPECT_EQ(4096, h.shared_bytes);
	EXPECT_EQ(64, h.args_bytes);
	free(img);
}

static void expect_error(struct __test_metadata *_metadata, const char *src,
			 const char *msg)
{
	void *img = (void *)1;
	size_t n = 1;
	char err[256];

	ASSERT_EQ(-EINVAL, vmgpu_asm_assemble(src, &img, &n, err,
					      sizeof(err)));
	EXPECT_EQ(NULL, img);
	EXPECT_EQ(0, n);
	EXPECT_NE(NULL, strstr(err, msg)) TH_LOG("got '%s', want '%s'", err,
						  msg);
}

TEST(error_messages)
{
	expect_error(_metadata, "nop\n\tfrob r1, r2\n",
		     "line 2: unknown mnemonic 'frob'");
	expect_error(_metadata, "add r1, r2, r300\n",
		     "line 1: bad register 'r300'");
	expect_error(_metadata, "nop\nnop\nadd r1, x2, r3\n",
		     "line 3: expected a register, got 'x2'");
	expect_error(_metadata, "add r1, r2, 12zz\n",
		     "line 1: bad immediate '12zz'");
	expect_error(_metadata, "add r1, r2, 0x100000000\n",
		     "line 1: bad immediate");
	expect_error(_metadata, "fadd r1, r2, 1.5.5\n",
		     "line 1: bad immediate '1.5.5'");
	expect_error(_metadata, "\n\nbra nowhere\n",
		     "line 3: undefined label 'nowhere'");
	expect_error(_metadata, "add r1, r2, NOPE\n",
		     "line 1: undefined constant 'NOPE'");
	expect_error(_metadata, "x:\nx: exit\n", "line 2: 'x' defined twice");
	expect_error(_metadata, "add r1, r2\n",
		     "line 1: 'add' takes 3 operands, got 2");
	expect_error(_metadata, "not r1, 5\n",
		     "line 1: expected a register, got '5'");
	expect_error(_metadata, "setp.eq p8, r1, r2\n",
		     "line 1: bad predicate 'p8'");
	expect_error(_metadata, "s2r r1, %bogus\n",
		     "line 1: unknown special register '%bogus'");
	expect_error(_metadata, "ld.32 r1, r2\n",
		     "line 1: expected a memory operand");
	expect_error(_metadata, "ld.64 r127, [r2]\n",
		     "line 1: register pair r127:r128 does not exist");
	expect_error(_metadata, ".regs 4\nadd r4, r1, r2\n",
		     "line 2: register r4 beyond .regs 4");
	expect_error(_metadata, ".args 8\nldarg r1, 8\n",
		     "line 2: argument offset 8 beyond .args 8");
	expect_error(_metadata, "ldarg r1, 6\n",
		     "line 1: argument offset 6 not a multiple of 4");
	expect_error(_metadata, "lea r2, r4, r1, 32\n",
		     "line 1: shift 32 out of range 0..31");
	expect_error(_metadata, "atom.cas r1, [r2 + 4], r3, r4\n",
		     "line 1: 'atom.cas' takes no address offset");
	expect_error(_metadata, ".frob 3\n", "line 1: unknown directive '.frob'");
	expect_error(_metadata, ".shared 100000\n",
		     "line 1: bad value '100000' for .shared");
	expect_error(_metadata, "; nothing\n", "no instructions");
	expect_error(_metadata, "bar r1\n", "'bar' takes 0 operands, got 1");
}

TEST(disasm_rejects_bad_images)
{
	void *img;
	size_t n;
	char err[256], *text;

	ASSERT_EQ(0, vmgpu_asm_assemble("exit\n", &img, &n, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, vmgpu_disasm_image(img, n - 1, &text, err,
					      sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "truncated"));
	((uint8_t *)img)[0] ^= 1;
	EXPECT_EQ(-EINVAL, vmgpu_disasm_image(img, n, &text, err,
					      sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "invalid executable header"));
	free(img);
}

static const char typed_src[] =
	".kernel scale\n"
	".param n, i32\n"
	".param k, f32\n"
	".param x, buf_ro\n"
	".param y, buf_wo, 24\n"
	"\tldarg r1, n\n"
	"\tldarg.64 r2, x\n"
	"\tldarg.64 r4, y\n"
	"\texit\n";

TEST(typed_signature)
{
	struct vmgpu_exec_param params[VMGPU_MAX_PARAMS];
	struct vmgpu_exec_header h;
	struct vmgpu_exec_sig sig;
	const char *why = NULL;
	void *img, *img2;
	size_t n, n2;
	char err[256], *text;

	ASSERT_EQ(0, vmgpu_asm_assemble(typed_src, &img, &n, err,
					sizeof(err))) TH_LOG("%s", err);
	vmgpu_exec_header_read(&h, img);
	ASSERT_TRUE(vmgpu_exec_header_valid(&h));
	EXPECT_EQ(32, h.args_bytes);	/* y ends at 32 */
	EXPECT_EQ(VMGPU_EXEC_SIG_BYTES(4), h.sig_bytes);
	EXPECT_EQ(vmgpu_exec_file_bytes(&h), n);
	ASSERT_EQ(1, vmgpu_exec_sig_read(&h, img, n, &sig, params, &why));
	EXPECT_STREQ("scale", sig.name);
	ASSERT_EQ(4, sig.num_params);
	EXPECT_STREQ("n", params[0].name);
	EXPECT_EQ(VMGPU_PARAM_I32, params[0].type);
	EXPECT_EQ(0, params[0].offset);
	EXPECT_EQ(VMGPU_PARAM_F32, params[1].type);
	EXPECT_EQ(4, params[1].offset);
	EXPECT_EQ(VMGPU_PARAM_BUF_RO, params[2].type);
	EXPECT_EQ(8, params[2].offset);	/* aligned to 8 */
	EXPECT_EQ(VMGPU_PARAM_BUF_WO, params[3].type);
	EXPECT_EQ(24, params[3].offset);

	/* The disassembler prints it back; it reassembles to the same bytes. */
	ASSERT_EQ(0, vmgpu_disasm_image(img, n, &text, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(text, ".kernel scale\n"));
	EXPECT_NE(NULL, strstr(text, ".param y, buf_wo, 24\n"));
	ASSERT_EQ(0, vmgpu_asm_assemble(text, &img2, &n2, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(n, n2);
	EXPECT_EQ(0, memcmp(img, img2, n));

	/* A damaged signature is refused by its reader and the disassembler. */
	((uint8_t *)img)[vmgpu_exec_image_bytes(&h) + 8 +
			 VMGPU_KERNEL_NAME_MAX + 0] = 99;	/* type */
	EXPECT_EQ(-1, vmgpu_exec_sig_read(&h, img, n, &sig, params, &why));
	EXPECT_STREQ("unknown parameter type", why);
	free(text);
	EXPECT_EQ(-EINVAL, vmgpu_disasm_image(img, n, &text, err, sizeof(err)));
	EXPECT_STREQ("unknown parameter type", err);
	free(img);
	free(img2);
}

/*
 * A __local pointer typed VMGPU_PARAM_LOCAL (".param l, local"): 4 bytes,
 * round-trips through the disassembler; the next type word is unknown.
 */
TEST(local_param)
{
	static const char lsrc[] =
		".kernel lk\n"
		".param l, local\n"
		".param n, i32\n"
		"\tldarg r1, l\n"
		"\tldarg r2, n\n"
		"\texit\n";
	struct vmgpu_exec_param params[VMGPU_MAX_PARAMS];
	struct vmgpu_exec_header h;
	struct vmgpu_exec_sig sig;
	const char *why = NULL;
	void *img, *img2;
	size_t n, n2;
	char err[256], *text;

	EXPECT_EQ(4, vmgpu_param_size(VMGPU_PARAM_LOCAL));
	EXPECT_STREQ("local", vmgpu_param_type_name(VMGPU_PARAM_LOCAL));
	EXPECT_EQ(0, vmgpu_param_size(VMGPU_PARAM_NUM_TYPES));
	ASSERT_EQ(0, vmgpu_asm_assemble(lsrc, &img, &n, err, sizeof(err)))
		TH_LOG("%s", err);
	vmgpu_exec_header_read(&h, img);
	ASSERT_EQ(1, vmgpu_exec_sig_read(&h, img, n, &sig, params, &why));
	EXPECT_EQ(VMGPU_PARAM_LOCAL, params[0].type);
	EXPECT_EQ(0, params[0].offset);
	EXPECT_EQ(VMGPU_PARAM_I32, params[1].type);
	EXPECT_EQ(4, params[1].offset);
	ASSERT_EQ(0, vmgpu_disasm_image(img, n, &text, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(text, ".param l, local, 0\n"));
	ASSERT_EQ(0, vmgpu_asm_assemble(text, &img2, &n2, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(n, n2);
	EXPECT_EQ(0, memcmp(img, img2, n));
	free(text);
	/* a type after it: unknown to this reader, as LOCAL is to older ones */
	((uint8_t *)img)[vmgpu_exec_image_bytes(&h) + 8 +
			 VMGPU_KERNEL_NAME_MAX + 0] = VMGPU_PARAM_NUM_TYPES;
	EXPECT_EQ(-1, vmgpu_exec_sig_read(&h, img, n, &sig, params, &why));
	EXPECT_STREQ("unknown parameter type", why);
	free(img);
	free(img2);
}

TEST(typed_signature_errors)
{
	expect_error(_metadata, ".param n, i32\nexit\n",
		     "line 1: .param needs a .kernel NAME first");
	expect_error(_metadata, ".kernel k\n.param n, u16\nexit\n",
		     "line 2: unknown parameter type 'u16'");
	expect_error(_metadata, ".kernel k\n.param p, i64, 4\nexit\n",
		     "line 2: parameter 'p' at 4 is not aligned to its 8 bytes");
	expect_error(_metadata, ".kernel k\n.param n\nexit\n",
		     "line 2: .param takes NAME, TYPE[, OFFSET]");
	expect_error(_metadata, ".kernel k\n.kernel j\nexit\n",
		     "line 2: .kernel given twice");
	expect_error(_metadata, ".kernel 9k\nexit\n",
		     "line 1: bad kernel name '9k'");
	expect_error(_metadata,
		     ".kernel k\n.args 8\n.param a, i32\n.param b, i64\nexit\n",
		     "signature of 'k': parameter misaligned or outside the argument block (.args 8)");
	expect_error(_metadata,
		     ".kernel k\n.param a, i64\n.param b, i32, 4\nexit\n",
		     "signature of 'k': parameters overlap");
	expect_error(_metadata, ".kernel k\n.param a, i32\n.param a, i32\nexit\n",
		     "line 3:");
}

TEST_HARNESS_MAIN
