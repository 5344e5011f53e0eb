// SPDX-License-Identifier: MIT
/*
 * The vmgpu back end, encoding (stage 4 of backend.cpp's list): machine
 * instructions with their allocated registers to 64-bit ISA words. Spilled
 * operands are reloaded and spilled results stored around their
 * instruction, copies and pairs become moves, the prologue computes the
 * per-thread private area's address when the kernel uses one, and branch
 * targets are resolved once every block's pc is known. Separate because
 * it is the only stage that knows the instruction encoding; it shares
 * class Backend (backend.h) with the other stages.
 */

#include "backend.h"

using namespace llvm;

namespace vmgpu_cc {
namespace backend {

/* ------------------------------------------------------------------ */
/* Encoding                                                             */
/* ------------------------------------------------------------------ */

static uint64_t insn(unsigned op, bool imm, unsigned d, unsigned a, unsigned b,
		     uint32_t iv)
{
	return VMGPU_INSN(op | (imm ? VMGPU_OP_IMM : 0), d, a, b, iv);
}

void Backend::encode(std::vector<uint64_t> &code)
{
	std::vector<int> bpc(blocks.size());
	std::vector<std::pair<size_t, int>> fix;
	int T = tmp_base, S = scratch_reg;

	if (uses_scratch) {
		/* S = vmgpu_private + linear thread id * priv_bytes */
		unsigned t0 = T, t1 = T + 1, t2 = T + 2, t3 = T + 3;
		auto s2r = [&](unsigned d, unsigned sr) {
			code.push_back(insn(VMGPU_OP_S2R, false, d, sr, 0, 0));
		};
		auto a3 = [&](unsigned op, unsigned d, unsigned a, unsigned b) {
			code.push_back(insn(op, false, d, a, b, 0));
		};
		auto mad = [&](unsigned d, unsigned a, unsigned b, unsigned c) {
			code.push_back(insn(VMGPU_OP_MAD, false, d, a, b, c));
		};
		s2r(t0, VMGPU_SREG_CTAID_Z);
		s2r(t1, VMGPU_SREG_NCTAID_Y);
		s2r(t2, VMGPU_SREG_CTAID_Y);
		mad(t0, t0, t1, t2);
		s2r(t1, VMGPU_SREG_NCTAID_X);
		s2r(t2, VMGPU_SREG_CTAID_X);
		mad(t0, t0, t1, t2);		/* linear block */
		s2r(t1, VMGPU_SREG_NTID_X);
		s2r(t2, VMGPU_SREG_NTID_Y);
		a3(VMGPU_OP_MUL, t3, t1, t2);
		s2r(t2, VMGPU_SREG_NTID_Z);
		a3(VMGPU_OP_MUL, t3, t3, t2);	/* block size */
		a3(VMGPU_OP_MUL, t0, t0, t3);
		s2r(t2, VMGPU_SREG_TID_Z);
		s2r(t3, VMGPU_SREG_NTID_Y);
		s2r(t1, VMGPU_SREG_TID_Y);
		mad(t2, t2, t3, t1);
		s2r(t3, VMGPU_SREG_NTID_X);
		s2r(t1, VMGPU_SREG_TID_X);
		mad(t2, t2, t3, t1);		/* linear thread in block */
		a3(VMGPU_OP_ADD, t0, t0, t2);
		code.push_back(insn(VMGPU_OP_MOV, true, t1, 0, 0, priv_bytes));
		a3(VMGPU_OP_MUL, t2, t0, t1);
		a3(VMGPU_OP_MULHIU, t3, t0, t1);
		code.push_back(insn(VMGPU_OP_LDARG64, false, S, 0, 0, args_bytes));
		a3(VMGPU_OP_ADD64, S, S, t2);
	}

	for (size_t k = 0; k < blocks.size(); k++) {
		bpc[k] = int(code.size());
		for (MI &m : blocks[k].insts) {
			/* operands: physical registers, reloading spills */
			unsigned pa = 0, pb = 0, pc = 0, pd = 0;
			int tmps[3] = { T, T + 2, T + 4 };
			int vv[3] = { m.a, m.b, m.c };
			uint8_t hh[3] = { m.ah, m.bh, m.ch };
			unsigned *pp[3] = { &pa, &pb, &pc };

			for (int o = 0; o < 3; o++) {
				int v = vv[o];
				if (v < 0)
					continue;
				if (phys[v] >= 0) {
					*pp[o] = unsigned(phys[v] + hh[o]);
					continue;
				}
				/* a pair operand is read whole unless a half is named;
				 * 32-bit uses of pairs always name the half */
				bool whole = vsize[v] == 2 && !hh[o];
				uint32_t so = uint32_t(slot[v] + 4 * hh[o]);
				code.push_back(insn(whole ? VMGPU_OP_LD_64 : VMGPU_OP_LD_32,
						    false, tmps[o], S, 0, so));
				*pp[o] = unsigned(tmps[o]);
			}
			bool dspill = m.d >= 0 && phys[m.d] < 0;
			if (m.d >= 0)
				pd = dspill ? unsigned(T) : unsigned(phys[m.d]);
			switch (m.op) {
			case P_COPY:
				if (vsize[m.d] == 2) {
					if (pd == pa) {
					} else if (pd == pa + 1) {
						code.push_back(insn(VMGPU_OP_MOV, false, pd + 1, 0, pa + 1, 0));
						code.push_back(insn(VMGPU_OP_MOV, false, pd, 0, pa, 0));
					} else {
						code.push_back(insn(VMGPU_OP_MOV, false, pd, 0, pa, 0));
						code.push_back(insn(VMGPU_OP_MOV, false, pd + 1, 0, pa + 1, 0));
					}
				} else if (pd != pa) {
					code.push_back(insn(VMGPU_OP_MOV, false, pd, 0, pa, 0));
				}
				break;
			case P_MKPAIR:
				if (pd == pb && pd + 1 == pa) {
					code.push_back(insn(VMGPU_OP_XOR, false, pd, pd, pd + 1, 0));
					code.push_back(insn(VMGPU_OP_XOR, false, pd + 1, pd, pd + 1, 0));
					code.push_back(insn(VMGPU_OP_XOR, false, pd, pd, pd + 1, 0));
				} else if (pd == pb) {
					code.push_back(insn(VMGPU_OP_MOV, false, pd + 1, 0, pb, 0));
					if (pd != pa)
						code.push_back(insn(VMGPU_OP_MOV, false, pd, 0, pa, 0));
				} else {
					if (pd != pa)
						code.push_back(insn(VMGPU_OP_MOV, false, pd, 0, pa, 0));
					if (pd + 1 != pb)
						code.push_back(insn(VMGPU_OP_MOV, false, pd + 1, 0, pb, 0));
				}
				break;
			default: {
				struct vmgpu_isa_opinfo oi = {};
				vmgpu_isa_opinfo(m.op, &oi);
				unsigned D = m.dl >= 0 ? unsigned(m.dl) : pd;
				unsigned A = m.al >= 0 ? unsigned(m.al) :
					     m.a == VR_SCRATCH ? unsigned(S) : pa;
				unsigned B = m.bl >= 0 ? unsigned(m.bl) : pb;
				uint32_t iv = m.immv;

				if (m.a < 0 && m.al < 0)
					A = 0;
				if (m.b < 0 && m.bl < 0)
					B = 0;
				if (m.d < 0 && m.dl < 0)
					D = 0;
				if (oi.fmt == VMGPU_FMT_ALU3 || oi.fmt == VMGPU_FMT_CAS)
					iv = pc;
				if (oi.fmt == VMGPU_FMT_MOV && !m.imm)
					A = 0;
				if (m.op == VMGPU_OP_BRA)
					fix.emplace_back(code.size(), m.target);
				code.push_back(insn(m.op, m.imm, D, A, B, iv));
				break;
			}
			}
			if (dspill)
				code.push_back(insn(vsize[m.d] == 2 ? VMGPU_OP_ST_64 :
						    VMGPU_OP_ST_32, false, 0, S, T,
						    uint32_t(slot[m.d])));
		}
	}
	for (auto &f : fix)
		code[f.first] = (code[f.first] & 0xffffffffull) |
				(uint64_t(uint32_t(bpc[f.second])) << 32);
}

} // namespace backend
} // namespace vmgpu_cc
