// SPDX-License-Identifier: MIT
/*
 * GPU MMU: page-table walk, per-slot TLB, permissions and locations.
 */
#include <endian.h>
#include <string.h>

#include "mmu.h"

#define PAGE_MASK ((uint64_t)VMGPU_PAGE_SIZE - 1)

static int mmu_memif_translate(void *opaque, uint64_t va, bool write,
                               struct vg_xlat *out)
{
    struct vg_mmu_as *as = opaque;

    return vg_mmu_translate(as->mmu, as->slot, va, write, out);
}

void vg_mmu_init(struct vg_mmu *mmu, const struct vg_host *host, uint32_t gpu,
                 uint32_t num_gpus)
{
    uint32_t s;

    memset(mmu, 0, sizeof(*mmu));
    mmu->host = host;
    mmu->gpu = gpu;
    mmu->num_gpus = num_gpus;
    for (s = 0; s < VMGPU_AS_SLOTS; s++) {
        mmu->as[s].mmu = mmu;
        mmu->as[s].slot = s;
        mmu->memif[s].translate = mmu_memif_translate;
        mmu->memif[s].opaque = &mmu->as[s];
    }
}

void vg_mmu_regs_set_root(struct vg_mmu_regs *r, uint32_t slot, uint64_t root)
{
    if (slot >= VMGPU_AS_SLOTS || r->root[slot] == root) {
        return;
    }
    r->root[slot] = root;
    __atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELEASE);
}

void vg_mmu_regs_invalidate(struct vg_mmu_regs *r, uint32_t slots)
{
    uint32_t s;

    for (s = 0; s < VMGPU_AS_SLOTS; s++) {
        r->inval[s] += slots >> s & 1;
    }
    __atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELEASE);
}

void vg_mmu_regs_reset(struct vg_mmu_regs *r)
{
    memset(r->root, 0, sizeof(r->root));
    vg_mmu_regs_invalidate(r, ~0u);
}

void vg_mmu_attach(struct vg_mmu *mmu, struct vg_mmu_regs *regs)
{
    mmu->regs = regs;
    mmu->regs_seq = regs->seq - 1; /* take the roots at first use */
}

/* Take root changes and invalidations written since the last look. */
static void mmu_sync(struct vg_mmu *mmu)
{
    struct vg_mmu_regs *r = mmu->regs;
    uint32_t s, flush;

    flush = 0;
    pthread_mutex_lock(r->lock);
    mmu->regs_seq = r->seq;
    for (s = 0; s < VMGPU_AS_SLOTS; s++) {
        if (mmu->inval_seen[s] != r->inval[s]) {
            mmu->inval_seen[s] = r->inval[s];
            flush |= 1u << s;
        }
        if (mmu->root[s] != r->root[s]) {
            mmu->root[s] = r->root[s];
            flush |= 1u << s;
        }
    }
    pthread_mutex_unlock(r->lock);
    vg_mmu_invalidate(mmu, flush);
}

void vg_mmu_set_root(struct vg_mmu *mmu, uint32_t slot, uint64_t root)
{
    if (slot >= VMGPU_AS_SLOTS || mmu->root[slot] == root) {
        return;
    }
    mmu->root[slot] = root;
    vg_mmu_invalidate(mmu, 1u << slot);
}

void vg_mmu_invalidate(struct vg_mmu *mmu, uint32_t slots)
{
    uint32_t s;

    for (s = 0; s < VMGPU_AS_SLOTS; s++) {
        if (slots & (1u << s)) {
            memset(mmu->tlb[s], 0, sizeof(mmu->tlb[s]));
        }
    }
}

/* Walk the tables of @slot; returns the leaf PTE or a fault code. */
static int mmu_walk(struct vg_mmu *mmu, uint32_t slot, uint64_t va,
                    uint64_t *leaf)
{
    uint64_t table = mmu->root[slot] & VMGPU_PTE_ADDR_MASK;
    uint64_t pte = 0;
    int level;

    if (!mmu->root[slot]) {
        return VMGPU_FAULT_UNMAPPED;
    }
    for (level = VMGPU_PT_LEVELS - 1; level >= 0; level--) {
        uint64_t addr = table + VMGPU_PT_INDEX(va, level) * 8;
        uint8_t raw[8];
        int i;

        if (vg_bus_read(mmu->host, addr, raw, 8)) {
            return VMGPU_FAULT_UNMAPPED;
        }
        pte = 0;
        for (i = 7; i >= 0; i--) {
            pte = pte << 8 | raw[i]; /* little-endian */
        }
        if (!(pte & VMGPU_PTE_VALID)) {
            return VMGPU_FAULT_UNMAPPED;
        }
        table = pte & VMGPU_PTE_ADDR_MASK;
    }
    *leaf = pte;
    return VMGPU_FAULT_NONE;
}

/* Index of the first replica page >= @page. */
static uint32_t replica_pos(const struct vg_mmu_replicas *rep, uint64_t page)
{
    uint32_t lo = 0, hi = rep->n;

    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;

        if (rep->page[mid] < page) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

static bool is_replica(const struct vg_mmu *mmu, uint32_t slot, uint64_t page)
{
    const struct vg_mmu_replicas *rep = &mmu->rep;
    uint32_t i;

    if (!rep->n || rep->slot != slot) {
        return false;
    }
    i = replica_pos(rep, page);
    return i < rep->n && rep->page[i] == page;
}

/* Forget the TLB entry of @page in @slot, if it holds one. */
static void tlb_drop_page(struct vg_mmu *mmu, uint32_t slot, uint64_t page)
{
    struct vg_tlb_entry *e =
        &mmu->tlb[slot][(page >> VMGPU_PAGE_SHIFT) % VG_TLB_ENTRIES];

    if (e->page_va == page) {
        e->host = NULL;
    }
}

void vg_mmu_replicate(struct vg_mmu *mmu, uint32_t slot, uint64_t va,
                      uint64_t len)
{
    struct vg_mmu_replicas *rep = &mmu->rep;
    uint64_t page, end = va + len;

    if (slot >= VMGPU_AS_SLOTS || !len) {
        return;
    }
    if (rep->n && rep->slot != slot) {
        vg_mmu_replicas_clear(mmu);
    }
    rep->slot = slot;
    mmu->rep_gen++;
    for (page = va & ~PAGE_MASK; page < end; page += VMGPU_PAGE_SIZE) {
        uint32_t i = replica_pos(rep, page);

        if (i < rep->n && rep->page[i] == page) {
            continue;
        }
        if (rep->n == VMGPU_COPY_MAX_REPLICA_PAGES) {
            return;
        }
        memmove(&rep->page[i + 1], &rep->page[i],
                (rep->n - i) * sizeof(rep->page[0]));
        rep->page[i] = page;
        rep->n++;
        tlb_drop_page(mmu, slot, page);
    }
}

void vg_mmu_replicas_clear(struct vg_mmu *mmu)
{
    struct vg_mmu_replicas *rep = &mmu->rep;
    uint32_t i;

    for (i = 0; i < rep->n; i++) {
        tlb_drop_page(mmu, rep->slot, rep->page[i]);
    }
    rep->n = 0;
    mmu->rep_gen++;
}

void vg_mmu_replicas_set(struct vg_mmu *mmu, const struct vg_mmu_replicas *rep)
{
    uint32_t i;

    vg_mmu_replicas_clear(mmu);
    mmu->rep.slot = rep->slot;
    mmu->rep.n = rep->n;
    memcpy(mmu->rep.page, rep->page, rep->n * sizeof(rep->page[0]));
    for (i = 0; i < rep->n; i++) {
        tlb_drop_page(mmu, rep->slot, rep->page[i]);
    }
}

int vg_mmu_translate(struct vg_mmu *mmu, uint32_t slot, uint64_t va, bool write,
                     struct vg_xlat *out)
{
    uint64_t page = va & ~PAGE_MASK, pte;
    struct vg_tlb_entry *e;
    uint32_t loc;
    int r;

    if (mmu->regs &&
        __atomic_load_n(&mmu->regs->seq, __ATOMIC_ACQUIRE) != mmu->regs_seq) {
        mmu_sync(mmu);
    }
    if (slot >= VMGPU_AS_SLOTS || va >> VMGPU_VA_BITS) {
        return VMGPU_FAULT_UNMAPPED;
    }
    e = &mmu->tlb[slot][(page >> VMGPU_PAGE_SHIFT) % VG_TLB_ENTRIES];
    if (e->host && e->page_va == page) {
        mmu->hits++;
        mmu->slot_hits[slot]++;
    } else {
        mmu->misses++;
        mmu->slot_misses[slot]++;
        e->host = NULL;
        pte = 0;
        r = mmu_walk(mmu, slot, va, &pte);
        if (mmu->host->trace_mmu_walk) {
            mmu->host->trace_mmu_walk(mmu->host->opaque, mmu->gpu, slot, va,
                                      pte, r);
        }
        if (r) {
            return r;
        }
        loc = (pte & VMGPU_PTE_LOC_MASK) >> VMGPU_PTE_LOC_SHIFT;
        if (loc != VMGPU_LOC_SYSTEM && loc - 1 >= mmu->num_gpus) {
            return VMGPU_FAULT_UNMAPPED;
        }
        /* Entries without any access right are cached too. */
        e->host =
            mmu->host->map_page(mmu->host->opaque, pte & VMGPU_PTE_ADDR_MASK,
                                write && (pte & VMGPU_PTE_WRITE));
        if (!e->host) {
            return VMGPU_FAULT_UNMAPPED;
        }
        e->page_va = page;
        e->loc = loc;
        e->readable = pte & VMGPU_PTE_READ;
        e->writable = pte & VMGPU_PTE_WRITE;
        e->host_writable = write && e->writable;
        e->replica = is_replica(mmu, slot, page);
    }
    if (write ? !e->writable : !e->readable) {
        return VMGPU_FAULT_PERMISSION;
    }
    if (write && !e->host_writable) {
        /*
         * First write through an entry filled by a read: ask the host
         * again so it can track the page as written. The walk is
         * repeated (rare) rather than caching the physical address.
         */
        uint8_t *host;

        r = mmu_walk(mmu, slot, va, &pte);
        if (r) {
            e->host = NULL;
            return r;
        }
        host = mmu->host->map_page(mmu->host->opaque, pte & VMGPU_PTE_ADDR_MASK,
                                   true);
        if (!host) {
            e->host = NULL;
            return VMGPU_FAULT_UNMAPPED;
        }
        e->host = host;
        e->host_writable = true;
    }
    out->host = e->host;
    out->page_va = page;
    out->loc = e->replica && !write ? VMGPU_LOC_GPU(mmu->gpu) : e->loc;
    out->writable = e->writable;
    return VMGPU_FAULT_NONE;
}

const struct vg_memif *vg_mmu_memif(struct vg_mmu *mmu, uint32_t slot)
{
    return &mmu->memif[slot % VMGPU_AS_SLOTS];
}

static int mmu_copy(struct vg_mmu *mmu, uint32_t slot, uint64_t va,
                    uint8_t *buf, size_t len, bool write, uint64_t *fault_va,
                    uint64_t *bytes_by_loc)
{
    while (len) {
        uint32_t off = va & PAGE_MASK;
        size_t n = VMGPU_PAGE_SIZE - off;
        struct vg_xlat x;
        int r;

        if (n > len) {
            n = len;
        }
        r = vg_mmu_translate(mmu, slot, va, write, &x);
        if (r) {
            if (fault_va) {
                *fault_va = va;
            }
            return r;
        }
        if (write) {
            memcpy(x.host + off, buf, n);
        } else {
            memcpy(buf, x.host + off, n);
        }
        if (bytes_by_loc) {
            bytes_by_loc[x.loc] += n;
        }
        va += n;
        buf += n;
        len -= n;
    }
    return VMGPU_FAULT_NONE;
}

int vg_mmu_read(struct vg_mmu *mmu, uint32_t slot, uint64_t va, void *buf,
                size_t len, uint64_t *fault_va, uint64_t *bytes_by_loc)
{
    return mmu_copy(mmu, slot, va, buf, len, false, fault_va, bytes_by_loc);
}

int vg_mmu_write(struct vg_mmu *mmu, uint32_t slot, uint64_t va,
                 const void *buf, size_t len, uint64_t *fault_va,
                 uint64_t *bytes_by_loc)
{
    return mmu_copy(mmu, slot, va, (uint8_t *)buf, len, true, fault_va,
                    bytes_by_loc);
}

int vg_mmu_xchg32(struct vg_mmu *mmu, uint32_t slot, uint64_t va,
                  uint32_t value, uint32_t *old, uint64_t *fault_va)
{
    struct vg_xlat x;
    uint32_t *word;
    int r;

    if (va % 4) {
        *fault_va = va;
        return VMGPU_FAULT_MISALIGNED;
    }
    r = vg_mmu_translate(mmu, slot, va, true, &x);
    if (r) {
        *fault_va = va;
        return r;
    }
    word = (uint32_t *)(x.host + (va & PAGE_MASK));
    *old = le32toh(__atomic_exchange_n(word, htole32(value), __ATOMIC_SEQ_CST));
    return VMGPU_FAULT_NONE;
}
