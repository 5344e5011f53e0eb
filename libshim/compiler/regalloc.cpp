// SPDX-License-Identifier: MIT
/*
 * The vmgpu back end, register allocation (stage 3 of backend.cpp's
 * list): selection's leftovers that nothing reads are dropped, then
 * linear scan over live intervals from a liveness analysis assigns the
 * virtual registers to the ISA's registers. What does not fit goes to
 * spill slots in the per-thread private area (global memory at the hidden
 * parameter vmgpu_private + linear thread id * private bytes), with
 * r0..r6 reserved for reloads and the area's address. Separate because it
 * works on machine instructions only, not on LLVM IR; it shares class
 * Backend (backend.h) with the other stages.
 */
#include <algorithm>

#include <llvm/Support/MathExtras.h>

#include "backend.h"

using namespace llvm;

namespace vmgpu_cc {
namespace backend {

/* ------------------------------------------------------------------ */
/* Register allocation                                                  */
/* ------------------------------------------------------------------ */

static void uses_of(const MI &m, int out[3])
{
	out[0] = m.a;
	out[1] = m.b;
	out[2] = m.c;
}

/* Instructions whose only effect is their destination register. */
static bool pure(const MI &m)
{
	if (m.op == P_COPY || m.op == P_MKPAIR)
		return true;
	if (m.d < 0)
		return false;
	struct vmgpu_isa_opinfo oi = {};
	vmgpu_isa_opinfo(m.op, &oi);
	return oi.fmt != VMGPU_FMT_ATOM && oi.fmt != VMGPU_FMT_CAS;
}

/* Drop what selection made but nothing reads (a zero-extension feeding
 * only lea's 32-bit form, a pair whose halves are read directly, ...). */
void Backend::dead_code()
{
	for (bool changed = true; changed;) {
		std::vector<int> uses(vsize.size(), 0);

		changed = false;
		for (MBlock &mb : blocks)
			for (MI &m : mb.insts) {
				int u[3];

				uses_of(m, u);
				for (int v : u)
					if (v >= 0)
						uses[v]++;
			}
		for (MBlock &mb : blocks) {
			size_t w = 0;

			for (size_t k = 0; k < mb.insts.size(); k++) {
				MI &m = mb.insts[k];

				if (pure(m) && m.d > 0 && !uses[m.d]) {
					changed = true;
					continue;
				}
				mb.insts[w++] = m;
			}
			mb.insts.resize(w);
		}
	}
}

bool Backend::allocate(unsigned nregs, bool reserve)
{
	size_t nv = vsize.size();
	std::vector<int> start(nv, INT32_MAX), end(nv, -1);

	max_used = 0;
	std::vector<int> bstart(blocks.size()), bend(blocks.size());
	int pos = 0;

	for (size_t k = 0; k < blocks.size(); k++) {
		bstart[k] = 2 * pos;
		for (MI &m : blocks[k].insts) {
			int u[3];

			uses_of(m, u);
			for (int v : u)
				if (v >= 0) {
					start[v] = std::min(start[v], 2 * pos);
					end[v] = std::max(end[v], 2 * pos);
				}
			if (m.d >= 0) {
				start[m.d] = std::min(start[m.d], 2 * pos + 1);
				end[m.d] = std::max(end[m.d], 2 * pos + 1);
			}
			pos++;
		}
		bend[k] = 2 * pos;
	}
	/* liveness: live-in = use ∪ (live-out − def) */
	size_t nb = blocks.size(), words = (nv + 63) / 64;
	std::vector<std::vector<uint64_t>> use(nb, std::vector<uint64_t>(words)),
		def(nb, std::vector<uint64_t>(words)), in(nb, std::vector<uint64_t>(words)),
		out(nb, std::vector<uint64_t>(words));
	auto setb = [](std::vector<uint64_t> &s, int v) { s[v / 64] |= 1ull << (v % 64); };
	auto getb = [](const std::vector<uint64_t> &s, size_t v) {
		return (s[v / 64] >> (v % 64)) & 1;
	};
	for (size_t k = 0; k < nb; k++)
		for (MI &m : blocks[k].insts) {
			int u[3];

			uses_of(m, u);
			for (int v : u)
				if (v >= 0 && !getb(def[k], v))
					setb(use[k], v);
			if (m.d >= 0)
				setb(def[k], m.d);
		}
	for (bool changed = true; changed;) {
		changed = false;
		for (size_t k = nb; k-- > 0;) {
			std::vector<uint64_t> o(words, 0), n(words);
			for (int s : blocks[k].succs)
				for (size_t w = 0; w < words; w++)
					o[w] |= in[s][w];
			for (size_t w = 0; w < words; w++)
				n[w] = use[k][w] | (o[w] & ~def[k][w]);
			if (n != in[k] || o != out[k]) {
				in[k] = n;
				out[k] = o;
				changed = true;
			}
		}
	}
	for (size_t k = 0; k < nb; k++)
		for (size_t v = 0; v < nv; v++) {
			if (getb(in[k], v)) {
				start[v] = std::min(start[v], bstart[k]);
				end[v] = std::max(end[v], bstart[k]);
			}
			if (getb(out[k], v)) {
				start[v] = std::min(start[v], bend[k]);
				end[v] = std::max(end[v], bend[k]);
			}
		}

	/* linear scan */
	unsigned avail = reserve ? nregs - 7 : nregs;
	phys.assign(nv, -1);
	slot.assign(nv, -1);
	std::vector<int> owner(avail, -1);
	std::vector<int> ivs;
	for (size_t v = 1; v < nv; v++)
		if (end[v] >= 0)
			ivs.push_back(int(v));
	std::sort(ivs.begin(), ivs.end(), [&](int x, int y) {
		return start[x] != start[y] ? start[x] < start[y] : x < y;
	});
	std::vector<int> active;
	bool spilled = false;
	uint32_t spill_base = uint32_t(alignTo(priv_bytes, 8));
	uint32_t spill_top = spill_base;

	auto release = [&](int v) {
		for (int k = 0; k < vsize[v]; k++)
			owner[phys[v] + k] = -1;
	};
	/* hints: a copy's or pair's destination where its source is, the
	 * high half of a pair right after the low one */
	std::vector<int> hint_same(nv, -1), hint_after(nv, -1);
	for (MBlock &mb : blocks)
		for (MI &m : mb.insts) {
			if (m.op == P_COPY && m.a > 0 && !m.ah)
				hint_same[m.d] = m.a;
			if (m.op == P_MKPAIR) {
				if (m.a > 0 && !m.ah && vsize[m.a] == 1)
					hint_same[m.d] = m.a;
				if (m.b > 0 && !m.bh && vsize[m.b] == 1 &&
				    m.a > 0 && !m.ah && vsize[m.a] == 1)
					hint_after[m.b] = m.a;
			}
		}
	auto is_free = [&](int p, int size) {
		if (p < 0 || unsigned(p + size) > avail)
			return false;
		for (int k = 0; k < size; k++)
			if (owner[p + k] >= 0)
				return false;
		return true;
	};
	auto find_free = [&](int size) -> int {
		for (unsigned p = 0; p + size <= avail; p++) {
			bool ok = true;
			for (int k = 0; k < size; k++)
				ok = ok && owner[p + k] < 0;
			if (ok)
				return int(p);
		}
		return -1;
	};
	auto spill = [&](int v) {
		spilled = true;
		phys[v] = -1;
		spill_top = uint32_t(alignTo(spill_top, vsize[v] * 4));
		slot[v] = int(spill_top);
		spill_top += vsize[v] * 4;
	};
	for (int v : ivs) {
		/* expire */
		for (size_t k = 0; k < active.size();) {
			int w = active[k];
			if (end[w] < start[v]) {
				release(w);
				active.erase(active.begin() + k);
			} else {
				k++;
			}
		}
		int p = -1;
		if (hint_same[v] > 0 && phys[hint_same[v]] >= 0 &&
		    is_free(phys[hint_same[v]], vsize[v]))
			p = phys[hint_same[v]];
		else if (hint_after[v] > 0 && phys[hint_after[v]] >= 0 &&
			 is_free(phys[hint_after[v]] + 1, vsize[v]))
			p = phys[hint_after[v]] + 1;
		else
			p = find_free(vsize[v]);
		if (p < 0) {
			/* spill the active interval ending last if that frees
			 * room and it ends after this one */
			int best = -1;
			for (int w : active) {
				if (end[w] <= end[v])
					continue;
				release(w);
				bool fits = find_free(vsize[v]) >= 0;
				for (int k = 0; k < vsize[w]; k++)
					owner[phys[w] + k] = w;
				if (fits && (best < 0 || end[w] > end[best]))
					best = w;
			}
			if (best >= 0) {
				release(best);
				active.erase(std::find(active.begin(), active.end(), best));
				spill(best);
				p = find_free(vsize[v]);
			}
		}
		if (p < 0) {
			spill(v);
			continue;
		}
		phys[v] = p;
		for (int k = 0; k < vsize[v]; k++)
			owner[p + k] = v;
		active.push_back(v);
		max_used = std::max(max_used, unsigned(p + vsize[v]));
	}
	if (spilled && !reserve)
		return false;
	if (reserve) {
		/* the reserved registers are r0..r6: the allocated ones move
		 * up, and num_regs stays what is used */
		for (size_t v = 1; v < nv; v++)
			if (phys[v] >= 0)
				phys[v] += 7;
		tmp_base = 0;
		scratch_reg = 5;
		phys[VR_SCRATCH] = scratch_reg;
		max_used += 7;
		priv_bytes = std::max(8u, uint32_t(alignTo(spill_top, 8)));
		uses_scratch = true;
	}
	return true;
}

} // namespace backend
} // namespace vmgpu_cc
