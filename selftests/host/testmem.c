// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test memory for host tests; see testmem.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmgpu.h"
#include "core/interp.h"
#include "testmem.h"

static int testmem_translate(void *opaque, uint64_t va, bool write,
			     struct vg_xlat *out)
{
	struct testmem *tm = opaque;
	uint64_t page;

	tm->translations++;
	if (va < tm->base || (va - tm->base) / VMGPU_PAGE_SIZE >= tm->pages)
		return VMGPU_FAULT_UNMAPPED;
	page = (va - tm->base) / VMGPU_PAGE_SIZE;
	if (!(tm->flags[page] & TESTMEM_MAPPED))
		return VMGPU_FAULT_UNMAPPED;
	if (write && !(tm->flags[page] & TESTMEM_WRITABLE))
		return VMGPU_FAULT_PERMISSION;
	out->host = tm->data + page * VMGPU_PAGE_SIZE;
	out->page_va = tm->base + page * VMGPU_PAGE_SIZE;
	out->loc = tm->loc[page];
	out->writable = tm->flags[page] & TESTMEM_WRITABLE;
	return VMGPU_FAULT_NONE;
}

struct testmem *testmem_new(uint64_t base, size_t bytes)
{
	struct testmem *tm = calloc(1, sizeof(*tm));

	if (!tm)
		abort();
	tm->base = base;
	tm->next = base;
	tm->pages = (bytes + VMGPU_PAGE_SIZE - 1) / VMGPU_PAGE_SIZE;
	tm->data = aligned_alloc(VMGPU_PAGE_SIZE,
				 tm->pages * VMGPU_PAGE_SIZE);
	tm->flags = malloc(tm->pages);
	tm->loc = calloc(tm->pages, 1);
	if (!tm->data || !tm->flags || !tm->loc)
		abort();
	memset(tm->data, 0, tm->pages * VMGPU_PAGE_SIZE);
	memset(tm->flags, TESTMEM_MAPPED | TESTMEM_WRITABLE, tm->pages);
	tm->memif.translate = testmem_translate;
	tm->memif.opaque = tm;
	return tm;
}

void testmem_free(struct testmem *tm)
{
	if (!tm)
		return;
	free(tm->data);
	free(tm->flags);
	free(tm->loc);
	free(tm);
}

uint64_t testmem_alloc(struct testmem *tm, size_t bytes)
{
	uint64_t va = tm->next;
	size_t rounded = (bytes + VMGPU_PAGE_SIZE - 1) &
			 ~(size_t)(VMGPU_PAGE_SIZE - 1);

	if (rounded == 0)
		rounded = VMGPU_PAGE_SIZE;
	if ((va - tm->base) + rounded > tm->pages * VMGPU_PAGE_SIZE) {
		fprintf(stderr, "testmem: out of memory\n");
		abort();
	}
	tm->next += rounded;
	return va;
}

void *testmem_ptr(struct testmem *tm, uint64_t va)
{
	if (va < tm->base || va - tm->base >= tm->pages * VMGPU_PAGE_SIZE) {
		fprintf(stderr, "testmem: va %#llx outside\n",
			(unsigned long long)va);
		abort();
	}
	return tm->data + (va - tm->base);
}

void testmem_set_flags(struct testmem *tm, uint64_t va, size_t bytes,
		       uint8_t flags)
{
	uint64_t p;

	for (p = (va - tm->base) / VMGPU_PAGE_SIZE;
	     p < tm->pages && p * VMGPU_PAGE_SIZE < va - tm->base + bytes; p++)
		tm->flags[p] = flags;
}

void testmem_set_loc(struct testmem *tm, uint64_t va, size_t bytes,
		     uint8_t loc)
{
	uint64_t p;

	for (p = (va - tm->base) / VMGPU_PAGE_SIZE;
	     p < tm->pages && p * VMGPU_PAGE_SIZE < va - tm->base + bytes; p++)
		tm->loc[p] = loc;
}

struct vg_kernel *testmem_kernel(const char *src)
{
	struct vg_kernel *k;
	char err[256];
	uint32_t bad_pc;
	size_t bytes;
	void *image;
	int r;

	if (vmgpu_asm_assemble(src, &image, &bytes, err, sizeof(err))) {
		fprintf(stderr, "testmem: assembly failed: %s\n", err);
		abort();
	}
	r = vg_kernel_load(&k, image, bytes, VMGPU_ISA_VERSION, &bad_pc);
	free(image);
	if (r != VMGPU_FAULT_NONE) {
		fprintf(stderr, "testmem: load failed: %d at pc %u\n", r,
			bad_pc);
		abort();
	}
	return k;
}

struct vg_kernel *testmem_builtin(const char *name)
{
	const char *src = vmgpu_builtin_kernel_source(name);

	if (!src) {
		fprintf(stderr, "testmem: no built-in kernel %s\n", name);
		abort();
	}
	return testmem_kernel(src);
}

int testmem_run(struct testmem *tm, const struct vg_kernel *k,
		const struct testmem_launch *tl, struct vg_fault_info *fault,
		struct vg_block_stats *stats)
{
	struct vg_interp *it = vg_interp_new();
	struct vg_storelog *log = tl->write_through ? NULL : vg_storelog_new();
	uint64_t budget = tl->budget ? tl->budget : 1ull << 40;
	struct vg_block_stats local;
	struct vg_launch l = {
		.kernel = k,
		.args = tl->args,
		.args_bytes = tl->args_bytes,
		.shared_bytes = tl->shared_bytes,
		.mem = &tm->memif,
	};
	uint32_t pos[3];
	int r = 0, i;

	if (!it || (!tl->write_through && !log))
		abort();
	if (!stats) {
		memset(&local, 0, sizeof(local));
		stats = &local;
	}
	for (i = 0; i < 3; i++) {
		l.grid[i] = tl->grid[i] ? tl->grid[i] : 1;
		l.block[i] = tl->block[i] ? tl->block[i] : 1;
		l.grid_total[i] = l.grid[i];
	}
	for (pos[2] = 0; pos[2] < l.grid[2] && !r; pos[2]++)
		for (pos[1] = 0; pos[1] < l.grid[1] && !r; pos[1]++)
			for (pos[0] = 0; pos[0] < l.grid[0] && !r; pos[0]++) {
				r = vg_interp_run_block(it, &l, pos, 0, log,
							&budget, stats, fault);
				if (r)
					vg_storelog_discard(log);
				else
					vg_storelog_apply(log);
			}
	vg_storelog_free(log);
	vg_interp_free(it);
	return r;
}
