// SPDX-License-Identifier: MIT
/*
 * The embedded device's guest memory (embedded.h): the simulated RAM,
 * its page allocator, the page tables of the one address space the GPUs
 * use, and the kernel code kept in it. The embedded back end
 * (embedded.c) is the memory's only user and holds its lock around
 * every call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "embedded.h"

/* A range of free pages. */
struct emb_range {
	uint64_t start, pages;			/* bus address, length */
};

/* A live allocation: its pages, the guard page included. */
struct emb_alloc {
	uint64_t bus, pages;
};

/* An executable loaded once: by its hash and bytes. */
struct emb_code {
	uint64_t hash, bus, bytes;
};

static int emb_grow(void **arr, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*arr, (size_t)n * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

uint64_t rt_emb_mem_pages(struct emb_mem *m, uint64_t pages)
{
	uint32_t i;

	for (i = 0; i < m->nfree; i++) {
		struct emb_range *r = &m->free[i];
		uint64_t bus = r->start;

		if (r->pages < pages)
			continue;
		r->start += pages * EMB_PAGE;
		r->pages -= pages;
		if (!r->pages) {
			memmove(r, r + 1, (m->nfree - i - 1) * sizeof(*r));
			m->nfree--;
		}
		memset(m->base + bus, 0, pages * EMB_PAGE);
		return bus;
	}
	return 0;
}

/* Give pages back: sorted by address, merged with their neighbours. */
static int emb_pages_put(struct emb_mem *m, uint64_t bus, uint64_t pages)
{
	uint64_t end = bus + pages * EMB_PAGE;
	uint32_t lo = 0, hi = m->nfree, i;
	struct emb_range *f;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (m->free[mid].start < bus)
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo;
	f = m->free;
	if (i > 0 && f[i - 1].start + f[i - 1].pages * EMB_PAGE == bus) {
		f[i - 1].pages += pages;
		if (i < m->nfree && f[i].start == end) {
			f[i - 1].pages += f[i].pages;
			memmove(&f[i], &f[i + 1],
				(m->nfree - i - 1) * sizeof(*f));
			m->nfree--;
		}
		return 0;
	}
	if (i < m->nfree && f[i].start == end) {
		f[i].start = bus;
		f[i].pages += pages;
		return 0;
	}
	if (emb_grow((void **)&m->free, &m->cap_free, m->nfree + 1,
		     sizeof(*f)))
		return -ENOMEM;
	f = m->free;
	memmove(&f[i + 1], &f[i], (m->nfree - i) * sizeof(*f));
	f[i].start = bus;
	f[i].pages = pages;
	m->nfree++;
	return 0;
}

/*
 * Bus address of the leaf entry of @va, making the tables on the way;
 * 0 if there is no memory for one.
 */
static uint64_t emb_leaf(struct emb_mem *m, uint64_t va)
{
	uint64_t table = m->root;
	int level;

	for (level = VMGPU_PT_LEVELS - 1; level > 0; level--) {
		uint64_t at = table + VMGPU_PT_INDEX(va, level) * 8;
		uint64_t pte = emb_mem_get64(m, at);

		if (!(pte & VMGPU_PTE_VALID)) {
			uint64_t page = rt_emb_mem_pages(m, 1);

			if (!page)
				return 0;
			pte = page | VMGPU_PTE_VALID;
			emb_mem_put64(m, at, pte);
		}
		table = pte & VMGPU_PTE_ADDR_MASK;
	}
	return table + VMGPU_PT_INDEX(va, 0) * 8;
}

/* Map (@flags != 0) or unmap @pages pages at bus @bus. */
static void emb_map(struct emb_mem *m, uint64_t bus, uint64_t pages,
		    uint64_t flags)
{
	uint64_t i;

	/* every table exists (rt_emb_mem_init): emb_leaf() cannot fail */
	for (i = 0; i < pages; i++) {
		uint64_t b = bus + i * EMB_PAGE;

		emb_mem_put64(m, emb_leaf(m, EMB_VA0 + b),
			      flags ? b | VMGPU_PTE_VALID | flags : 0);
	}
}

uint64_t rt_emb_mem_alloc(struct emb_mem *m, uint64_t bytes,
			  uint64_t pte_flags)
{
	uint64_t pages, bus;

	if (bytes >= m->bytes ||
	    emb_grow((void **)&m->live, &m->cap_live, m->nlive + 1,
		     sizeof(m->live[0])))
		return 0;
	pages = bytes ? (bytes + EMB_PAGE - 1) / EMB_PAGE : 1;
	bus = rt_emb_mem_pages(m, pages + 1);
	if (!bus)
		return 0;
	emb_map(m, bus, pages, pte_flags);
	m->live[m->nlive].bus = bus;
	m->live[m->nlive++].pages = pages + 1;
	return bus;
}

bool rt_emb_mem_free(struct emb_mem *m, uint64_t bus)
{
	uint64_t pages;
	uint32_t i;

	for (i = 0; i < m->nlive; i++)
		if (m->live[i].bus == bus)
			break;
	if (i == m->nlive)
		return false;
	pages = m->live[i].pages;
	emb_map(m, bus, pages - 1, 0);
	m->live[i] = m->live[--m->nlive];
	/* if the free list cannot grow, the pages are lost, not reused */
	emb_pages_put(m, bus, pages);
	return true;
}

static uint64_t emb_hash(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

uint64_t rt_emb_mem_code(struct emb_mem *m, const void *image,
			 size_t bytes)
{
	uint64_t hash = emb_hash(image, bytes), bus;
	uint32_t i;

	for (i = 0; i < m->ncode; i++)
		if (m->code[i].hash == hash && m->code[i].bytes == bytes &&
		    !memcmp(m->base + m->code[i].bus, image, bytes))
			return m->code[i].bus;
	if (emb_grow((void **)&m->code, &m->cap_code, m->ncode + 1,
		     sizeof(m->code[0])))
		return 0;
	/* read-only: no kernel changes any kernel's code */
	bus = rt_emb_mem_alloc(m, bytes, VMGPU_PTE_READ);
	if (!bus)
		return 0;
	memcpy(m->base + bus, image, bytes);
	m->code[m->ncode].hash = hash;
	m->code[m->ncode].bus = bus;
	m->code[m->ncode++].bytes = bytes;
	return bus;
}

void rt_emb_mem_fini(struct emb_mem *m)
{
	if (m->base)
		munmap(m->base, m->bytes);
	free(m->free);
	free(m->live);
	free(m->code);
	memset(m, 0, sizeof(*m));
}

int rt_emb_mem_init(struct emb_mem *m, uint64_t bytes)
{
	uint64_t va;

	memset(m, 0, sizeof(*m));
	/* untouched pages cost nothing: the host gives them when used */
	m->base = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		return -ENOMEM;
	}
	m->bytes = bytes;
	/* bus page 0 stays unused: 0 is never an allocation */
	if (emb_pages_put(m, EMB_PAGE, bytes / EMB_PAGE - 1))
		goto fail;
	m->root = rt_emb_mem_pages(m, 1);
	/*
	 * Every page table now, at the start of the memory (one page per
	 * 2 MiB): mapping never needs memory later, and the tables do not
	 * cut the free ranges up.
	 */
	for (va = EMB_VA0; m->root && va < EMB_VA0 + bytes;
	     va += EMB_PAGE * VMGPU_PT_ENTRIES)
		if (!emb_leaf(m, va))
			goto fail;
	if (m->root)
		return 0;
fail:
	rt_emb_mem_fini(m);
	return -ENOMEM;
}
