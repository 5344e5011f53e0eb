// SPDX-License-Identifier: MIT
/*
 * libvmgpurt: whether a kernel's instances may be split (P7,
 * VMGPU_RT_INSTANCE_SPLIT) with results bit for bit those of one device.
 * A split run merges the bytes each portion wrote; what it cannot
 * reproduce is found in the kernel's code, every executable of it (one
 * per ISA version) scanned: global atomics (atom.*), whose blocks combine
 * results in one word of memory, and device-side work (launch, enq),
 * whose grids the split does not see. Atomics on shared memory (atoms.*)
 * stay within a block and are no hazard.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "rt_internal.h"

/* What one executable's code holds (@image checked at kernel creation). */
static uint32_t scan(const uint8_t *image, size_t bytes)
{
	struct vmgpu_exec_header h;
	uint32_t why = 0, pc;

	if (bytes < VMGPU_EXEC_HEADER_BYTES)
		return 0;
	memcpy(&h, image, sizeof(h));
	h.code_insns = le32toh(h.code_insns);
	if (h.code_insns > (bytes - VMGPU_EXEC_HEADER_BYTES) / VMGPU_INSN_BYTES)
		return 0;
	for (pc = 0; pc < h.code_insns; pc++) {
		uint64_t w;

		memcpy(&w, image + VMGPU_EXEC_HEADER_BYTES +
			   (size_t)pc * VMGPU_INSN_BYTES, sizeof(w));
		switch (VMGPU_INSN_OP(le64toh(w))) {
		case VMGPU_OP_ATOM_ADD:
		case VMGPU_OP_ATOM_MIN:
		case VMGPU_OP_ATOM_MAX:
		case VMGPU_OP_ATOM_MINU:
		case VMGPU_OP_ATOM_MAXU:
		case VMGPU_OP_ATOM_XCHG:
		case VMGPU_OP_ATOM_CAS:
			why |= VMGPU_RT_SPLIT_ATOMICS;
			break;
		case VMGPU_OP_LAUNCH:
		case VMGPU_OP_ENQ:
			why |= VMGPU_RT_SPLIT_DEVICE_WORK;
			break;
		default:
			break;
		}
	}
	return why;
}

int vmgpu_rt_kernel_split_hazards(struct vmgpu_rt *rt, vmgpu_rt_handle kernel,
				  uint32_t *hazards)
{
	struct rt_kernel *k;
	struct rt_obj *o;
	uint32_t v, why = 0;
	int r;

	if (!rt || !hazards)
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	r = rt_lookup(rt, kernel, RT_KIND_KERNEL, &o);
	if (!r) {
		k = (struct rt_kernel *)o;
		for (v = 0; v <= VMGPU_ISA_VERSION; v++)
			if (k->exec[v].image)
				why |= scan(k->exec[v].image, k->exec[v].bytes);
		*hazards = why;
	}
	pthread_mutex_unlock(&rt->lock);
	return r;
}
