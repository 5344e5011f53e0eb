// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The SM interpreter. A block runs warp by warp; a warp runs until it exits,
 * reaches a barrier or faults, and every instruction is applied to all 32
 * lanes in a loop over a [register][lane] file, so the all-lanes-active case
 * vectorises.
 *
 * Divergence uses per-lane program counters with "minimum pc first"
 * scheduling: the lanes at the lowest pc run, the others wait, and a waiting
 * lane joins again when the running lanes reach its pc. Structured code (if,
 * if/else, loops, early exit) therefore reconverges at the first instruction
 * after the construct without reconvergence annotations.
 *
 * Documentation/isa.rst is the reference for every rule implemented here.
 */
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "interp.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define W         VMGPU_WARP_SIZE
#define ALL_LANES 0xffffffffu
#define PAGE_MASK ((uint64_t)VMGPU_PAGE_SIZE - 1)
#define CANON_NAN 0x7fc00000u
#define NO_PC     UINT32_MAX
#define MAX_WARPS (VMGPU_MAX_BLOCK_THREADS / W)

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Internal opcode of the sentinel after the last instruction. */
#define OP_END 0xff

/* ------------------------------------------------------------------ */
/* Kernels                                                              */
/* ------------------------------------------------------------------ */

/* Pre-decoded instruction: the encoding's fields, op including the imm bit. */
struct vg_insn {
    uint8_t op, d, a, b;
    uint32_t imm;
};

struct vg_kernel {
    uint32_t num_regs, shared_bytes, args_bytes, code_insns;
    struct vg_insn code[]; /* code_insns + 1 (the OP_END sentinel) */
};

size_t vg_exec_image_bytes(const struct vmgpu_exec_header *hdr)
{
    if (!hdr || !vmgpu_exec_header_valid(hdr)) {
        return 0;
    }
    return (size_t)vmgpu_exec_image_bytes(hdr);
}

int vg_kernel_load(struct vg_kernel **out, const void *image, size_t bytes,
                   uint32_t *bad_pc)
{
    struct vmgpu_exec_header h;
    const uint8_t *code;
    struct vg_kernel *k;
    uint32_t pc;

    *out = NULL;
    if (bad_pc) {
        *bad_pc = 0;
    }
    if (!image || bytes < sizeof(h)) {
        return VMGPU_FAULT_BAD_EXECUTABLE;
    }
    vmgpu_exec_header_read(&h, image);
    if (!vmgpu_exec_header_valid(&h) || bytes < vmgpu_exec_image_bytes(&h)) {
        return VMGPU_FAULT_BAD_EXECUTABLE;
    }

    code = (const uint8_t *)image + VMGPU_EXEC_HEADER_BYTES;
    for (pc = 0; pc < h.code_insns; pc++) {
        uint64_t w;

        memcpy(&w, code + (size_t)pc * VMGPU_INSN_BYTES, sizeof(w));
        if (!vmgpu_insn_valid(le64toh(w), h.num_regs, h.args_bytes)) {
            if (bad_pc) {
                *bad_pc = pc;
            }
            return VMGPU_FAULT_ILLEGAL_INSTR;
        }
    }

    k = calloc(1, sizeof(*k) +
                      ((size_t)h.code_insns + 1) * sizeof(struct vg_insn));
    if (!k) {
        return VMGPU_FAULT_BAD_EXECUTABLE;
    }
    k->num_regs = h.num_regs;
    k->shared_bytes = h.shared_bytes;
    k->args_bytes = h.args_bytes;
    k->code_insns = h.code_insns;
    for (pc = 0; pc < h.code_insns; pc++) {
        uint64_t w;

        memcpy(&w, code + (size_t)pc * VMGPU_INSN_BYTES, sizeof(w));
        w = le64toh(w);
        k->code[pc].op = w & 0xff;
        k->code[pc].d = VMGPU_INSN_D(w);
        k->code[pc].a = VMGPU_INSN_A(w);
        k->code[pc].b = VMGPU_INSN_B(w);
        k->code[pc].imm = VMGPU_INSN_IMM(w);
    }
    k->code[h.code_insns].op = OP_END;
    *out = k;
    return VMGPU_FAULT_NONE;
}

void vg_kernel_free(struct vg_kernel *k)
{
    free(k);
}

uint32_t vg_kernel_args_bytes(const struct vg_kernel *k)
{
    return k->args_bytes;
}

uint32_t vg_kernel_shared_bytes(const struct vg_kernel *k)
{
    return k->shared_bytes;
}

uint32_t vg_kernel_regs(const struct vg_kernel *k)
{
    return k->num_regs;
}

uint32_t vg_kernel_code_insns(const struct vg_kernel *k)
{
    return k->code_insns;
}

/* ------------------------------------------------------------------ */
/* Store log                                                            */
/* ------------------------------------------------------------------ */

/*
 * One shadow page per page the block stored to: the bytes stored and a
 * bitmap of which bytes are valid. Later stores overwrite earlier ones in
 * the shadow, so applying the shadow gives program order. Pages are kept in
 * a pool and reused, so a steady state does not allocate.
 */
struct vg_logpage {
    uint64_t page_va;
    uint8_t *host;
    uint64_t dirty[VMGPU_PAGE_SIZE / 64];
    uint8_t data[VMGPU_PAGE_SIZE];
};

#define LOG_FILTER_BITS 4096

struct vg_storelog {
    struct vg_logpage **pages; /* in use */
    uint32_t npages, cap_pages;
    struct vg_logpage **pool; /* free */
    uint32_t npool, cap_pool;
    uint32_t *hash; /* page index + 1, 0 = empty */
    uint32_t hash_mask;
    struct vg_logpage *last; /* last page found, checked first */
    /*
     * One bit per (page number mod LOG_FILTER_BITS): loads from pages
     * whose bit is clear skip the log.
     */
    uint64_t filter[LOG_FILTER_BITS / 64];
};

struct vg_storelog *vg_storelog_new(void)
{
    struct vg_storelog *log = calloc(1, sizeof(*log));

    if (!log) {
        return NULL;
    }
    log->hash_mask = 63;
    log->hash = calloc(log->hash_mask + 1, sizeof(*log->hash));
    if (!log->hash) {
        free(log);
        return NULL;
    }
    return log;
}

void vg_storelog_free(struct vg_storelog *log)
{
    uint32_t i;

    if (!log) {
        return;
    }
    for (i = 0; i < log->npages; i++) {
        free(log->pages[i]);
    }
    for (i = 0; i < log->npool; i++) {
        free(log->pool[i]);
    }
    free(log->pages);
    free(log->pool);
    free(log->hash);
    free(log);
}

uint32_t vg_storelog_pages(const struct vg_storelog *log)
{
    return log->npages;
}

static uint32_t page_hash(uint64_t page_va)
{
    uint64_t x = (page_va >> VMGPU_PAGE_SHIFT) * 0x9e3779b97f4a7c15ull;

    return (uint32_t)(x >> 32);
}

static bool filter_test(const struct vg_storelog *log, uint64_t page_va)
{
    uint32_t bit = (page_va >> VMGPU_PAGE_SHIFT) % LOG_FILTER_BITS;

    return log->filter[bit / 64] >> (bit % 64) & 1;
}

static struct vg_logpage *log_find(struct vg_storelog *log, uint64_t page_va)
{
    uint32_t i;

    if (log->last && log->last->page_va == page_va) {
        return log->last;
    }
    if (!filter_test(log, page_va)) {
        return NULL;
    }
    for (i = page_hash(page_va) & log->hash_mask; log->hash[i];
         i = (i + 1) & log->hash_mask) {
        struct vg_logpage *p = log->pages[log->hash[i] - 1];

        if (p->page_va == page_va) {
            log->last = p;
            return p;
        }
    }
    return NULL;
}

static void log_hash_insert(struct vg_storelog *log, uint32_t idx)
{
    uint32_t i = page_hash(log->pages[idx]->page_va) & log->hash_mask;

    while (log->hash[i]) {
        i = (i + 1) & log->hash_mask;
    }
    log->hash[i] = idx + 1;
}

/* Find or add the shadow of @page_va. NULL only when out of memory. */
static struct vg_logpage *log_get(struct vg_storelog *log, uint64_t page_va,
                                  uint8_t *host)
{
    struct vg_logpage *p = log_find(log, page_va);
    uint32_t bit;

    if (p) {
        return p;
    }
    if (log->npages == log->cap_pages) {
        uint32_t cap = log->cap_pages ? log->cap_pages * 2 : 16;
        void *n = realloc(log->pages, cap * sizeof(*log->pages));

        if (!n) {
            return NULL;
        }
        log->pages = n;
        log->cap_pages = cap;
    }
    /* Keep the hash at most half full. */
    if ((log->npages + 1) * 2 > log->hash_mask + 1) {
        uint32_t size = (log->hash_mask + 1) * 2, i;
        uint32_t *n = calloc(size, sizeof(*n));

        if (!n) {
            return NULL;
        }
        free(log->hash);
        log->hash = n;
        log->hash_mask = size - 1;
        for (i = 0; i < log->npages; i++) {
            log_hash_insert(log, i);
        }
    }
    if (log->npool) {
        p = log->pool[--log->npool];
    } else {
        p = malloc(sizeof(*p));
        if (!p) {
            return NULL;
        }
    }
    p->page_va = page_va;
    p->host = host;
    memset(p->dirty, 0, sizeof(p->dirty));
    log->pages[log->npages] = p;
    log_hash_insert(log, log->npages);
    log->npages++;
    bit = (page_va >> VMGPU_PAGE_SHIFT) % LOG_FILTER_BITS;
    log->filter[bit / 64] |= 1ull << (bit % 64);
    log->last = p;
    return p;
}

static void log_apply_page(const struct vg_logpage *p)
{
    uint32_t w;

    for (w = 0; w < VMGPU_PAGE_SIZE / 64; w++) {
        uint64_t m = p->dirty[w];
        uint32_t off = w * 64;

        if (!m) {
            continue;
        }
        if (m == UINT64_MAX) {
            memcpy(p->host + off, p->data + off, 64);
            continue;
        }
        while (m) {
            uint32_t b = __builtin_ctzll(m);

            p->host[off + b] = p->data[off + b];
            m &= m - 1;
        }
    }
}

/* Empty the log, returning its pages to the pool. */
static void log_reset(struct vg_storelog *log)
{
    uint32_t i;

    for (i = 0; i < log->npages; i++) {
        struct vg_logpage *p = log->pages[i];
        uint32_t h = page_hash(p->page_va) & log->hash_mask;

        while (log->hash[h]) {
            log->hash[h] = 0;
            h = (h + 1) & log->hash_mask;
        }
        if (log->npool == log->cap_pool) {
            uint32_t cap = log->cap_pool ? log->cap_pool * 2 : 16;
            void *n = realloc(log->pool, cap * sizeof(*log->pool));

            if (!n) {
                free(p);
                continue;
            }
            log->pool = n;
            log->cap_pool = cap;
        }
        log->pool[log->npool++] = p;
    }
    log->npages = 0;
    log->last = NULL;
    memset(log->filter, 0, sizeof(log->filter));
}

void vg_storelog_apply(struct vg_storelog *log)
{
    uint32_t i;

    if (!log) {
        return;
    }
    for (i = 0; i < log->npages; i++) {
        log_apply_page(log->pages[i]);
    }
    log_reset(log);
}

void vg_storelog_discard(struct vg_storelog *log)
{
    if (log) {
        log_reset(log);
    }
}

static inline uint64_t byte_mask(uint32_t off, uint32_t size)
{
    uint64_t m = size == 8 ? 0xff : (1u << size) - 1;

    return m << (off % 64);
}

/* Read @size bytes at page offset @off: memory overlaid with the shadow. */
static inline uint64_t log_read(const struct vg_logpage *p, uint32_t off,
                                uint32_t size)
{
    uint64_t m = byte_mask(off, size), dirty = p->dirty[off / 64] & m;
    uint64_t v = 0;
    uint32_t i;

    if (!dirty) {
        memcpy(&v, p->host + off, size);
    } else if (dirty == m) {
        memcpy(&v, p->data + off, size);
    } else {
        for (i = 0; i < size; i++) {
            uint8_t byte = dirty >> ((off + i) % 64) & 1 ? p->data[off + i]
                                                         : p->host[off + i];

            v |= (uint64_t)byte << (8 * i);
        }
    }
    return le64toh(v);
}

static inline void log_write(struct vg_logpage *p, uint32_t off, uint32_t size,
                             uint64_t v)
{
    v = htole64(v);
    memcpy(p->data + off, &v, size);
    p->dirty[off / 64] |= byte_mask(off, size);
}

/* Make the block's own pending bytes of [off, off + size) visible. */
static void log_flush_word(struct vg_storelog *log, uint64_t page_va,
                           uint32_t off, uint32_t size)
{
    struct vg_logpage *p = log_find(log, page_va);
    uint64_t m, dirty;
    uint32_t i;

    if (!p) {
        return;
    }
    m = byte_mask(off, size);
    dirty = p->dirty[off / 64] & m;
    for (i = 0; i < size; i++) {
        if (dirty >> ((off + i) % 64) & 1) {
            p->host[off + i] = p->data[off + i];
        }
    }
    p->dirty[off / 64] &= ~m;
}

/* ------------------------------------------------------------------ */
/* Interpreter state                                                    */
/* ------------------------------------------------------------------ */

enum warp_state { WARP_RUN, WARP_BAR, WARP_DONE };

struct vg_warp {
    uint32_t pc;       /* pc of the active lanes */
    uint32_t active;   /* lanes running at pc */
    uint32_t live;     /* lanes not exited */
    uint32_t wait_min; /* lowest pc of a waiting lane, NO_PC if none */
    uint32_t state;
    uint32_t pred[VMGPU_ISA_NUM_PREDS]; /* bit per lane */
    uint32_t lane_pc[W];                /* pc of waiting lanes */
};

#define TLB_ENTRIES 64

struct tlb_entry {
    uint64_t page_va;
    uint8_t *host;
    uint32_t gen;
    uint8_t loc;
    bool rd_ok, wr_ok;
};

struct vg_interp {
    uint32_t *regs; /* [warp][reg][lane] */
    size_t regs_words;
    struct vg_warp warps[MAX_WARPS];
    uint8_t shared[VMGPU_MAX_SHARED_BYTES];
    struct tlb_entry tlb[TLB_ENTRIES];
    uint32_t tlb_gen;

    /* The block being run. */
    const struct vg_launch *l;
    const struct vg_kernel *k;
    struct vg_storelog *log;
    struct vg_block_stats *stats;
    struct vg_fault_info *fault;
    uint64_t budget;
    const uint32_t *abort; /* vg_launch.abort of the running block */
    uint32_t shared_total;
    uint32_t ctaid[3];
    uint32_t sm;
};

struct vg_interp *vg_interp_new(void)
{
    return calloc(1, sizeof(struct vg_interp));
}

void vg_interp_free(struct vg_interp *it)
{
    if (!it) {
        return;
    }
    free(it->regs);
    free(it);
}

static inline float as_f(uint32_t u)
{
    float f;

    memcpy(&f, &u, sizeof(f));
    return f;
}

static inline uint32_t as_u(float f)
{
    uint32_t u;

    memcpy(&u, &f, sizeof(u));
    return u;
}

/* Arithmetic results: any NaN becomes the canonical quiet NaN. */
static inline uint32_t fres(float f)
{
    return f != f ? CANON_NAN : as_u(f);
}

static inline uint32_t op_div(uint32_t a, uint32_t b)
{
    if (b == 0) {
        return UINT32_MAX;
    }
    if (a == 0x80000000u && b == UINT32_MAX) {
        return a;
    }
    return (uint32_t)((int32_t)a / (int32_t)b);
}

static inline uint32_t op_rem(uint32_t a, uint32_t b)
{
    if (b == 0) {
        return a;
    }
    if (a == 0x80000000u && b == UINT32_MAX) {
        return 0;
    }
    return (uint32_t)((int32_t)a % (int32_t)b);
}

static inline uint32_t op_sra(uint32_t a, uint32_t b)
{
    return (uint32_t)((int32_t)a >> (b > 31 ? 31 : b));
}

/* IEEE 754-2008 minNum/maxNum; -0 < +0; two NaNs give the canonical NaN. */
static inline uint32_t op_fmin(uint32_t a, uint32_t b)
{
    float x = as_f(a), y = as_f(b);

    if (x != x) {
        return y != y ? CANON_NAN : b;
    }
    if (y != y) {
        return a;
    }
    if (x != y) {
        return x < y ? a : b;
    }
    return a | b;
}

static inline uint32_t op_fmax(uint32_t a, uint32_t b)
{
    float x = as_f(a), y = as_f(b);

    if (x != x) {
        return y != y ? CANON_NAN : b;
    }
    if (y != y) {
        return a;
    }
    if (x != y) {
        return x > y ? a : b;
    }
    return a & b;
}

/* Truncating conversions that saturate; NaN gives 0. */
static inline uint32_t op_f2i(uint32_t a)
{
    float f = as_f(a);

    if (f != f) {
        return 0;
    }
    if (f >= 2147483648.0f) {
        return INT32_MAX;
    }
    if (f <= -2147483648.0f) {
        return (uint32_t)INT32_MIN;
    }
    return (uint32_t)(int32_t)f;
}

static inline uint32_t op_f2u(uint32_t a)
{
    float f = as_f(a);

    if (!(f > -1.0f)) {
        return 0;
    }
    if (f >= 4294967296.0f) {
        return UINT32_MAX;
    }
    return (uint32_t)f;
}

/* ------------------------------------------------------------------ */
/* Divergence                                                           */
/* ------------------------------------------------------------------ */

/*
 * Choose the lanes to run next: the live lanes at the lowest pc. lane_pc
 * must be valid for every live lane.
 */
static void warp_schedule(struct vg_warp *w)
{
    uint32_t min = NO_PC, next = NO_PC, m, l;

    for (m = w->live; m; m &= m - 1) {
        l = __builtin_ctz(m);
        if (w->lane_pc[l] < min) {
            min = w->lane_pc[l];
        }
    }
    w->active = 0;
    for (m = w->live; m; m &= m - 1) {
        l = __builtin_ctz(m);
        if (w->lane_pc[l] == min) {
            w->active |= 1u << l;
        } else if (w->lane_pc[l] < next) {
            next = w->lane_pc[l];
        }
    }
    w->pc = min;
    w->wait_min = next;
}

/* The running lanes reached w->pc == w->wait_min: let waiting lanes join. */
static void warp_merge(struct vg_warp *w)
{
    uint32_t l;

    for (l = 0; l < W; l++) {
        w->lane_pc[l] = w->active >> l & 1 ? w->pc : w->lane_pc[l];
    }
    warp_schedule(w);
}

/* Lanes @taken go to @target, the other active lanes to pc + 1. */
static void warp_branch(struct vg_warp *w, uint32_t taken, uint32_t target)
{
    uint32_t l;

    if (taken == w->active) {
        w->pc = target;
    } else if (!taken) {
        w->pc++;
    } else {
        for (l = 0; l < W; l++) {
            if (!(w->active >> l & 1)) {
                continue;
            }
            w->lane_pc[l] = taken >> l & 1 ? target : w->pc + 1;
        }
        warp_schedule(w);
        return;
    }
    if (w->pc > w->wait_min) {
        /* Uniform jump past waiting lanes: they run first. */
        for (l = 0; l < W; l++) {
            if (w->active >> l & 1) {
                w->lane_pc[l] = w->pc;
            }
        }
        warp_schedule(w);
    }
}

/* ------------------------------------------------------------------ */
/* Memory                                                               */
/* ------------------------------------------------------------------ */

static void set_fault(struct vg_interp *it, uint32_t code, uint64_t addr,
                      uint32_t pc)
{
    it->fault->code = code;
    it->fault->addr = addr;
    it->fault->pc = pc;
}

/* Translate with a per-block cache; returns VMGPU_FAULT_*. */
static int xlat(struct vg_interp *it, uint64_t va, bool write,
                struct tlb_entry **out)
{
    uint64_t page = va & ~PAGE_MASK;
    struct tlb_entry *e = &it->tlb[(page >> VMGPU_PAGE_SHIFT) % TLB_ENTRIES];
    struct vg_xlat x;
    int r;

    if (e->gen == it->tlb_gen && e->page_va == page &&
        (write ? e->wr_ok : e->rd_ok)) {
        *out = e;
        return VMGPU_FAULT_NONE;
    }
    if (va >> VMGPU_VA_BITS) {
        return VMGPU_FAULT_UNMAPPED;
    }
    memset(&x, 0, sizeof(x));
    r = it->l->mem->translate(it->l->mem->opaque, page, write, &x);
    if (r != VMGPU_FAULT_NONE) {
        return r;
    }
    if (!x.host) {
        return VMGPU_FAULT_UNMAPPED;
    }
    if (write && !x.writable) {
        return VMGPU_FAULT_PERMISSION;
    }
    if (e->gen != it->tlb_gen || e->page_va != page) {
        e->gen = it->tlb_gen;
        e->page_va = page;
        e->rd_ok = false;
        e->wr_ok = false;
    }
    e->host = x.host;
    e->loc = x.loc < VMGPU_LOC_COUNT ? x.loc : VMGPU_LOC_SYSTEM;
    if (write) {
        e->wr_ok = true;
    } else {
        e->rd_ok = true;
    }
    *out = e;
    return VMGPU_FAULT_NONE;
}

/*
 * Per-lane addresses of a global access and their host pages. Returns
 * false with the fault set (lowest faulting lane) if any lane faults;
 * nothing has been accessed then.
 */
struct gaccess {
    uint32_t va_lo[W], va_hi[W]; /* lane addresses, in 32-bit halves */
    uint64_t va[W];              /* !one_page: whole lane addresses */
    uint8_t *page;               /* one_page: host address of the page */
    uint8_t *host[W];            /* !one_page: host address of the byte at va */
    bool one_page;
};

static bool gmem_prepare_slow(struct vg_interp *it, uint32_t active,
                              uint32_t size, bool write, uint32_t pc,
                              struct gaccess *g)
{
    struct tlb_entry *e;
    uint32_t l, m;
    int r;

    for (l = 0; l < W; l++) {
        g->va[l] = (uint64_t)g->va_hi[l] << 32 | g->va_lo[l];
    }
    for (m = active; m; m &= m - 1) {
        l = __builtin_ctz(m);
        if (g->va[l] & (size - 1)) {
            set_fault(it, VMGPU_FAULT_MISALIGNED, g->va[l], pc);
            return false;
        }
        r = xlat(it, g->va[l], write, &e);
        if (r != VMGPU_FAULT_NONE) {
            set_fault(it, r, g->va[l], pc);
            return false;
        }
        g->host[l] = e->host + (g->va[l] & PAGE_MASK);
        it->stats->bytes[e->loc] += size;
    }
    g->one_page = false;
    return true;
}

/*
 * Per-lane addresses of a global access and their host pages. Returns
 * false with the fault set (lowest faulting lane) if any lane faults;
 * nothing has been accessed then. The common case, all lanes in one page,
 * costs one translation.
 */
static inline __attribute__((always_inline)) bool gmem_prepare(
    struct vg_interp *it, uint32_t (*R)[W], const struct vg_insn *in,
    uint32_t active, uint32_t size, bool write, uint32_t pc, struct gaccess *g)
{
    const uint32_t *lo = R[in->a], *hi = R[in->a + 1];
    uint32_t off_lo = in->imm, off_hi = (uint32_t)((int32_t)in->imm >> 31);
    uint32_t first_lo, first_hi, bad = 0, other_page = 0, l, m;
    struct tlb_entry *e;
    uint64_t first;
    int r;

    /* 64-bit adds in 32-bit halves with carry: twice the lanes per vector */
    for (l = 0; l < W; l++) {
        uint32_t sum = lo[l] + off_lo;

        g->va_lo[l] = sum;
        g->va_hi[l] = hi[l] + off_hi + (sum < off_lo);
    }
    l = __builtin_ctz(active);
    first_lo = g->va_lo[l];
    first_hi = g->va_hi[l];
    first = (uint64_t)first_hi << 32 | first_lo;
    if (active == ALL_LANES) {
        for (l = 0; l < W; l++) {
            bad |= g->va_lo[l] & (size - 1);
            other_page |= ((g->va_lo[l] ^ first_lo) & ~(uint32_t)PAGE_MASK) |
                          (g->va_hi[l] ^ first_hi);
        }
    } else {
        for (m = active; m; m &= m - 1) {
            l = __builtin_ctz(m);
            bad |= g->va_lo[l] & (size - 1);
            other_page |= ((g->va_lo[l] ^ first_lo) & ~(uint32_t)PAGE_MASK) |
                          (g->va_hi[l] ^ first_hi);
        }
    }
    it->stats->global_instrs++;
    if (unlikely(bad || other_page)) {
        return gmem_prepare_slow(it, active, size, write, pc, g);
    }
    r = xlat(it, first, write, &e);
    if (unlikely(r != VMGPU_FAULT_NONE)) {
        set_fault(it, r, first, pc);
        return false;
    }
    g->page = e->host;
    g->one_page = true;
    it->stats->bytes[e->loc] += (uint64_t)size * __builtin_popcount(active);
    return true;
}

/* GPU VA of lane @l's access. */
static inline uint64_t gaccess_va(const struct gaccess *g, uint32_t l)
{
    return (uint64_t)g->va_hi[l] << 32 | g->va_lo[l];
}

/* Host address of lane @l's access. */
static inline uint8_t *gaccess_host(const struct gaccess *g, uint32_t l)
{
    return g->one_page ? g->page + (g->va_lo[l] & PAGE_MASK) : g->host[l];
}

static inline uint64_t host_read(const uint8_t *p, uint32_t size)
{
    uint64_t v = 0;

    memcpy(&v, p, size);
    return le64toh(v);
}

static inline void host_write(uint8_t *p, uint32_t size, uint64_t v)
{
    v = htole64(v);
    memcpy(p, &v, size);
}

static inline uint64_t sext(uint64_t v, uint32_t size, bool sign)
{
    if (!sign || size >= 4) {
        return v;
    }
    if (size == 1) {
        return (uint64_t)(int64_t)(int8_t)v;
    }
    return (uint64_t)(int64_t)(int16_t)v;
}

/* Pack per-lane all-ones/zero words into a lane mask. */
static inline uint32_t lane_mask(const uint32_t *c)
{
#ifdef __SSE2__
    uint32_t m = 0, i;

    for (i = 0; i < W; i += 4) {
        __m128 v;

        memcpy(&v, c + i, sizeof(v));
        m |= (uint32_t)_mm_movemask_ps(v) << i;
    }
    return m;
#else
    uint32_t m = 0, i;

    for (i = 0; i < W; i++) {
        m |= (c[i] & 1) << i;
    }
    return m;
#endif
}

static inline void write_row(uint32_t *dst, const uint32_t *src,
                             uint32_t active)
{
    uint32_t l;

    if (active == ALL_LANES) {
        memcpy(dst, src, W * sizeof(*dst));
        return;
    }
    for (l = 0; l < W; l++) {
        dst[l] = active >> l & 1 ? src[l] : dst[l];
    }
}

static inline __attribute__((always_inline)) bool gload(
    struct vg_interp *it, uint32_t (*R)[W], const struct vg_insn *in,
    uint32_t active, uint32_t size, bool sign, uint32_t pc)
{
    struct vg_storelog *log = it->log;
    struct gaccess g;
    uint32_t lo[W], hi[W], l, m;

    if (!gmem_prepare(it, R, in, active, size, false, pc, &g)) {
        return false;
    }
    if (likely(g.one_page) &&
        (!log || !log->npages ||
         !log_find(log, gaccess_va(&g, __builtin_ctz(active)) & ~PAGE_MASK))) {
        /* One page, not in the log: the fast path. */
        const uint8_t *page = g.page;

        if (active == ALL_LANES) {
            for (l = 0; l < W; l++) {
                uint64_t v =
                    sext(host_read(page + (g.va_lo[l] & PAGE_MASK), size), size,
                         sign);

                lo[l] = (uint32_t)v;
                hi[l] = (uint32_t)(v >> 32);
            }
        } else {
            for (m = active; m; m &= m - 1) {
                uint64_t v;

                l = __builtin_ctz(m);
                v = sext(host_read(page + (g.va_lo[l] & PAGE_MASK), size), size,
                         sign);
                lo[l] = (uint32_t)v;
                hi[l] = (uint32_t)(v >> 32);
            }
        }
    } else {
        for (m = active; m; m &= m - 1) {
            struct vg_logpage *p = NULL;
            uint64_t v;

            l = __builtin_ctz(m);
            if (log && log->npages) {
                p = log_find(log, gaccess_va(&g, l) & ~PAGE_MASK);
            }
            v = p ? log_read(p, g.va_lo[l] & PAGE_MASK, size)
                  : host_read(gaccess_host(&g, l), size);
            v = sext(v, size, sign);
            lo[l] = (uint32_t)v;
            hi[l] = (uint32_t)(v >> 32);
        }
    }
    write_row(R[in->d], lo, active);
    if (size == 8) {
        write_row(R[in->d + 1], hi, active);
    }
    return true;
}

static inline __attribute__((always_inline)) bool gstore(
    struct vg_interp *it, uint32_t (*R)[W], const struct vg_insn *in,
    uint32_t active, uint32_t size, uint32_t pc)
{
    struct vg_storelog *log = it->log;
    const uint32_t *lo = R[in->b], *hi = R[in->b + (size == 8)];
    struct vg_logpage *p = NULL;
    struct gaccess g;
    uint32_t l, m;

    if (!gmem_prepare(it, R, in, active, size, true, pc, &g)) {
        return false;
    }
    if (!log) {
        for (m = active; m; m &= m - 1) {
            l = __builtin_ctz(m);
            host_write(gaccess_host(&g, l), size,
                       (uint64_t)hi[l] << 32 | lo[l]);
        }
        return true;
    }
    for (m = active; m; m &= m - 1) {
        uint64_t va;

        l = __builtin_ctz(m);
        va = gaccess_va(&g, l);
        if (!p || p->page_va != (va & ~PAGE_MASK)) {
            p = log_get(log, va & ~PAGE_MASK,
                        gaccess_host(&g, l) - (va & PAGE_MASK));
            if (!p) {
                /* Out of host memory: fail the block. */
                set_fault(it, VMGPU_FAULT_UNMAPPED, va, pc);
                return false;
            }
        }
        log_write(p, va & PAGE_MASK, size, (uint64_t)hi[l] << 32 | lo[l]);
    }
    return true;
}

static bool gatomic(struct vg_interp *it, uint32_t (*R)[W],
                    const struct vg_insn *in, uint32_t active, uint32_t pc)
{
    uint32_t op = in->op, res[W], l, m;
    const uint32_t *src = R[in->b];
    const uint32_t *cmp = R[in->b], *swp = R[in->imm & 0xff];
    struct vg_insn addr = *in;
    struct gaccess g;

    if (op == VMGPU_OP_ATOM_CAS) {
        addr.imm = 0;
    }
    if (!gmem_prepare(it, R, &addr, active, 4, true, pc, &g)) {
        return false;
    }
    /* Lanes in order, each on memory, after the block's own store. */
    for (m = active; m; m &= m - 1) {
        uint32_t *p, v, old;

        l = __builtin_ctz(m);
        v = src[l];
        if (it->log && it->log->npages) {
            log_flush_word(it->log, gaccess_va(&g, l) & ~PAGE_MASK,
                           g.va_lo[l] & PAGE_MASK, 4);
        }
        p = (uint32_t *)(void *)gaccess_host(&g, l);
        switch (op) {
        case VMGPU_OP_ATOM_ADD:
            old = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
            break;
        case VMGPU_OP_ATOM_XCHG:
            old = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
            break;
        case VMGPU_OP_ATOM_CAS:
            old = cmp[l];
            __atomic_compare_exchange_n(p, &old, swp[l], false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            break;
        default: {
            uint32_t nv;

            old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
            do {
                switch (op) {
                case VMGPU_OP_ATOM_MIN:
                    nv = (int32_t)v < (int32_t)old ? v : old;
                    break;
                case VMGPU_OP_ATOM_MAX:
                    nv = (int32_t)v > (int32_t)old ? v : old;
                    break;
                case VMGPU_OP_ATOM_MINU:
                    nv = v < old ? v : old;
                    break;
                default:
                    nv = v > old ? v : old;
                    break;
                }
            } while (!__atomic_compare_exchange_n(
                p, &old, nv, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
            break;
        }
        }
        res[l] = le32toh(old);
    }
    write_row(R[in->d], res, active);
    return true;
}

/* Shared memory: offsets are 32-bit, wrap around, and must be in range. */
static inline bool smem_check(struct vg_interp *it, uint32_t (*R)[W],
                              const struct vg_insn *in, uint32_t active,
                              uint32_t size, uint32_t pc, uint32_t off[W])
{
    uint32_t l, bad, limit = it->shared_total, c[W];

    /* Out of range or misaligned, per lane, without branches. */
    for (l = 0; l < W; l++) {
        off[l] = R[in->a][l] + in->imm;
        c[l] = 0u - (uint32_t)(((off[l] & (size - 1)) != 0) |
                               (off[l] > limit - size) | (limit < size));
    }
    bad = lane_mask(c);
    it->stats->shared_instrs++;
    bad &= active;
    if (likely(!bad)) {
        return true;
    }
    l = __builtin_ctz(bad);
    set_fault(
        it, off[l] & (size - 1) ? VMGPU_FAULT_MISALIGNED : VMGPU_FAULT_UNMAPPED,
        off[l], pc);
    return false;
}

static inline __attribute__((always_inline)) bool sload(
    struct vg_interp *it, uint32_t (*R)[W], const struct vg_insn *in,
    uint32_t active, uint32_t size, bool sign, uint32_t pc)
{
    uint32_t off[W], lo[W], hi[W], l, m;

    if (!smem_check(it, R, in, active, size, pc, off)) {
        return false;
    }
    if (active == ALL_LANES) {
        for (l = 0; l < W; l++) {
            uint64_t v = sext(host_read(it->shared + off[l], size), size, sign);

            lo[l] = (uint32_t)v;
            hi[l] = (uint32_t)(v >> 32);
        }
    } else {
        for (m = active; m; m &= m - 1) {
            uint64_t v;

            l = __builtin_ctz(m);
            v = sext(host_read(it->shared + off[l], size), size, sign);
            lo[l] = (uint32_t)v;
            hi[l] = (uint32_t)(v >> 32);
        }
    }
    write_row(R[in->d], lo, active);
    if (size == 8) {
        write_row(R[in->d + 1], hi, active);
    }
    return true;
}

static inline __attribute__((always_inline)) bool sstore(
    struct vg_interp *it, uint32_t (*R)[W], const struct vg_insn *in,
    uint32_t active, uint32_t size, uint32_t pc)
{
    const uint32_t *lo = R[in->b], *hi = R[in->b + (size == 8)];
    uint32_t off[W], l, m;

    if (!smem_check(it, R, in, active, size, pc, off)) {
        return false;
    }
    /* Lanes in order: the highest lane's store to a byte wins. */
    for (m = active; m; m &= m - 1) {
        l = __builtin_ctz(m);
        host_write(it->shared + off[l], size, (uint64_t)hi[l] << 32 | lo[l]);
    }
    return true;
}

/* ------------------------------------------------------------------ */
/* Execution                                                            */
/* ------------------------------------------------------------------ */

static uint32_t sreg_value(const struct vg_interp *it, uint32_t sreg,
                           uint32_t warp, uint32_t lane)
{
    const struct vg_launch *l = it->l;
    uint32_t t = warp * W + lane;

    switch (sreg) {
    case VMGPU_SREG_TID_X:
        return t % l->block[0];
    case VMGPU_SREG_TID_Y:
        return t / l->block[0] % l->block[1];
    case VMGPU_SREG_TID_Z:
        return t / l->block[0] / l->block[1];
    case VMGPU_SREG_NTID_X:
    case VMGPU_SREG_NTID_Y:
    case VMGPU_SREG_NTID_Z:
        return l->block[sreg - VMGPU_SREG_NTID_X];
    case VMGPU_SREG_CTAID_X:
    case VMGPU_SREG_CTAID_Y:
    case VMGPU_SREG_CTAID_Z:
        return it->ctaid[sreg - VMGPU_SREG_CTAID_X];
    case VMGPU_SREG_NCTAID_X:
    case VMGPU_SREG_NCTAID_Y:
    case VMGPU_SREG_NCTAID_Z:
        return l->grid_total[sreg - VMGPU_SREG_NCTAID_X];
    case VMGPU_SREG_ORIGIN_X:
    case VMGPU_SREG_ORIGIN_Y:
    case VMGPU_SREG_ORIGIN_Z:
        return l->origin[sreg - VMGPU_SREG_ORIGIN_X];
    case VMGPU_SREG_LANEID:
        return lane;
    case VMGPU_SREG_WARPID:
        return warp;
    case VMGPU_SREG_GPUID:
        return l->gpu;
    case VMGPU_SREG_SMID:
        return it->sm;
    }
    return 0;
}

/*
 * A special register for all lanes. Thread indices step through x, then y,
 * then z from the warp's first thread: one division per warp, not per lane.
 */
static void sreg_row(const struct vg_interp *it, uint32_t sreg, uint32_t warp,
                     uint32_t *t)
{
    const struct vg_launch *l = it->l;
    uint32_t bx = l->block[0], by = l->block[1], first = warp * W;
    uint32_t x = first % bx, y = first / bx % by, z = first / bx / by;
    uint32_t lane, v;

    if (sreg > VMGPU_SREG_TID_Z) {
        v = sreg_value(it, sreg, warp, 0);
        for (lane = 0; lane < W; lane++) {
            t[lane] = sreg == VMGPU_SREG_LANEID ? lane : v;
        }
        return;
    }
    for (lane = 0; lane < W; lane++) {
        t[lane] = sreg == VMGPU_SREG_TID_X   ? x
                  : sreg == VMGPU_SREG_TID_Y ? y
                                             : z;
        if (++x == bx) {
            x = 0;
            if (++y == by) {
                y = 0;
                z++;
            }
        }
    }
}

/*
 * Binary operations on all lanes: computed for every lane into a temporary
 * (every operation is total, so inactive lanes are harmless) and written
 * back under the active mask. The temporary keeps the compiler free of
 * aliasing worries between the destination and source rows.
 */
#define ALU_RR(expr)                                                           \
    do {                                                                       \
        const uint32_t *ra_ = R[in->a], *rb_ = R[in->b];                       \
        uint32_t t_[W];                                                        \
        for (uint32_t l_ = 0; l_ < W; l_++) {                                  \
            uint32_t a = ra_[l_], b = rb_[l_];                                 \
            t_[l_] = (expr);                                                   \
        }                                                                      \
        write_row(R[in->d], t_, active);                                       \
    } while (0)

#define ALU_RI(expr)                                                           \
    do {                                                                       \
        const uint32_t *ra_ = R[in->a], b = in->imm;                           \
        uint32_t t_[W];                                                        \
        for (uint32_t l_ = 0; l_ < W; l_++) {                                  \
            uint32_t a = ra_[l_];                                              \
            t_[l_] = (expr);                                                   \
        }                                                                      \
        write_row(R[in->d], t_, active);                                       \
    } while (0)

/* A binary operation, register or immediate form as the opcode says. */
#define ALU(expr)                                                              \
    do {                                                                       \
        if (in->op & VMGPU_OP_IMM) {                                           \
            ALU_RI(expr);                                                      \
        } else {                                                               \
            ALU_RR(expr);                                                      \
        }                                                                      \
    } while (0)

#define UNARY(expr)                                                            \
    do {                                                                       \
        const uint32_t *ra_ = R[in->a];                                        \
        uint32_t t_[W];                                                        \
        for (uint32_t l_ = 0; l_ < W; l_++) {                                  \
            uint32_t a = ra_[l_];                                              \
            t_[l_] = (expr);                                                   \
        }                                                                      \
        write_row(R[in->d], t_, active);                                       \
    } while (0)

/* A comparison into predicate D, register or immediate form. */
#define SETP(expr)                                                             \
    do {                                                                       \
        const uint32_t *ra_ = R[in->a], *rb_ = R[in->b];                       \
        uint32_t c_[W], m_, bi_ = in->imm;                                     \
        if (in->op & VMGPU_OP_IMM) {                                           \
            for (uint32_t l_ = 0; l_ < W; l_++) {                              \
                uint32_t a = ra_[l_], b = bi_;                                 \
                c_[l_] = 0u - (uint32_t)(expr);                                \
            }                                                                  \
        } else {                                                               \
            for (uint32_t l_ = 0; l_ < W; l_++) {                              \
                uint32_t a = ra_[l_], b = rb_[l_];                             \
                c_[l_] = 0u - (uint32_t)(expr);                                \
            }                                                                  \
        }                                                                      \
        m_ = lane_mask(c_);                                                    \
        w->pred[in->d] = (w->pred[in->d] & ~active) | (m_ & active);           \
    } while (0)

#define FA as_f(a)
#define FB as_f(b)

/*
 * fmaf() is a library call per lane unless the compiler may use the FMA
 * instruction; a clone for FMA hosts keeps the row in vector registers.
 */
static __attribute__((target_clones("fma", "default"))) void ffma_row(
    uint32_t *t, const uint32_t *a, const uint32_t *b, const uint32_t *c)
{
    for (uint32_t l = 0; l < W; l++) {
        t[l] = fres(fmaf(as_f(a[l]), as_f(b[l]), as_f(c[l])));
    }
}

enum run_result { RUN_BAR, RUN_DONE, RUN_FAULT };

/*
 * The lane loops are written for the vectoriser; an AVX2 clone (chosen at
 * load time on hosts that have it) runs 8 lanes per vector instead of 4.
 */
static __attribute__((target_clones("avx2", "default"))) enum run_result
run_warp(struct vg_interp *it, uint32_t warp)
{
    const struct vg_kernel *k = it->k;
    const struct vg_insn *code = k->code;
    struct vg_warp *w = &it->warps[warp];
    uint32_t(*R)[W] =
        (uint32_t(*)[W])(it->regs + (size_t)warp * k->num_regs * W);
    struct vg_block_stats *st = it->stats;
    /* The budget is spent in slices; between two, look for an abort. */
    uint64_t budget =
        it->budget < VG_INTERP_SLICE ? it->budget : VG_INTERP_SLICE;
    uint64_t reserve = it->budget - budget, issued = 0, thread_instrs = 0;
    uint32_t pc = w->pc, active = w->active, pop;
    enum run_result res = RUN_FAULT;
    bool ok;

    pop = __builtin_popcount(active);

/* Leave the fast locals for a slow path and come back. */
#define SYNC_OUT()                                                             \
    do {                                                                       \
        w->pc = pc;                                                            \
        w->active = active;                                                    \
    } while (0)
#define SYNC_IN()                                                              \
    do {                                                                       \
        pc = w->pc;                                                            \
        active = w->active;                                                    \
        pop = __builtin_popcount(active);                                      \
    } while (0)

    for (;;) {
        const struct vg_insn *in;

        if (unlikely(pc == w->wait_min)) {
            SYNC_OUT();
            warp_merge(w);
            SYNC_IN();
        }
        in = &code[pc];
        if (unlikely(in->op == OP_END)) {
            set_fault(it, VMGPU_FAULT_PC_RANGE, 0, pc);
            goto out;
        }
        if (unlikely(budget == 0)) {
            if (!reserve) {
                set_fault(it, VMGPU_FAULT_BUDGET, 0, pc);
                goto out;
            }
            if (it->abort && __atomic_load_n(it->abort, __ATOMIC_RELAXED)) {
                set_fault(it, VG_FAULT_ABORTED, 0, pc);
                goto out;
            }
            budget = reserve < VG_INTERP_SLICE ? reserve : VG_INTERP_SLICE;
            reserve -= budget;
        }
        budget--;
        issued++;
        thread_instrs += pop;

        ok = true;
        switch (in->op) {
        case VMGPU_OP_NOP:
            break;
        case VMGPU_OP_EXIT:
            w->live &= ~active;
            if (!w->live) {
                w->active = 0;
                w->pc = pc;
                w->state = WARP_DONE;
                res = RUN_DONE;
                goto out;
            }
            w->active = 0;
            warp_schedule(w);
            SYNC_IN();
            continue;
        case VMGPU_OP_BAR:
            st->barriers++;
            w->pc = pc + 1;
            w->active = active;
            w->state = WARP_BAR;
            res = RUN_BAR;
            goto out;
        case VMGPU_OP_BRA: {
            uint32_t taken, a = in->a;

            if (a & VMGPU_BRA_ALWAYS) {
                taken = active;
            } else if (a & VMGPU_BRA_NEGATE) {
                taken = ~w->pred[a & VMGPU_BRA_PRED_MASK] & active;
            } else {
                taken = w->pred[a & VMGPU_BRA_PRED_MASK] & active;
            }
            if (taken && in->imm >= k->code_insns) {
                set_fault(it, VMGPU_FAULT_PC_RANGE, in->imm, pc);
                goto out;
            }
            /* Uniform branches are the common case. */
            if (!taken) {
                break;
            }
            if (taken == active && in->imm <= w->wait_min) {
                pc = in->imm;
                continue;
            }
            SYNC_OUT();
            warp_branch(w, taken, in->imm);
            SYNC_IN();
            continue;
        }
        case VMGPU_OP_MOV: {
            uint32_t t[W];

            memcpy(t, R[in->b], sizeof(t));
            write_row(R[in->d], t, active);
            break;
        }
        case VMGPU_OP_MOV | VMGPU_OP_IMM: {
            uint32_t t[W];

            for (uint32_t l = 0; l < W; l++) {
                t[l] = in->imm;
            }
            write_row(R[in->d], t, active);
            break;
        }
        case VMGPU_OP_S2R: {
            uint32_t t[W];

            sreg_row(it, in->a, warp, t);
            write_row(R[in->d], t, active);
            break;
        }
        case VMGPU_OP_SEL: {
            const uint32_t *ra = R[in->a], *rb = R[in->b];
            uint32_t t[W], p = w->pred[in->imm];

            for (uint32_t l = 0; l < W; l++) {
                t[l] = p >> l & 1 ? ra[l] : rb[l];
            }
            write_row(R[in->d], t, active);
            break;
        }
        case VMGPU_OP_LDARG:
        case VMGPU_OP_LDARG64: {
            uint32_t t[W], v;
            uint32_t n = in->op == VMGPU_OP_LDARG64 ? 2 : 1;

            for (uint32_t i = 0; i < n; i++) {
                memcpy(&v, it->l->args + in->imm + 4 * i, 4);
                v = le32toh(v);
                for (uint32_t l = 0; l < W; l++) {
                    t[l] = v;
                }
                write_row(R[in->d + i], t, active);
            }
            break;
        }
        case VMGPU_OP_ADD:
        case VMGPU_OP_ADD | VMGPU_OP_IMM:
            ALU(a + b);
            break;
        case VMGPU_OP_SUB:
        case VMGPU_OP_SUB | VMGPU_OP_IMM:
            ALU(a - b);
            break;
        case VMGPU_OP_MUL:
        case VMGPU_OP_MUL | VMGPU_OP_IMM:
            ALU(a * b);
            break;
        case VMGPU_OP_MULHI:
        case VMGPU_OP_MULHI | VMGPU_OP_IMM:
            ALU((uint32_t)((uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32));
            break;
        case VMGPU_OP_MULHIU:
        case VMGPU_OP_MULHIU | VMGPU_OP_IMM:
            ALU((uint32_t)(((uint64_t)a * b) >> 32));
            break;
        case VMGPU_OP_DIV:
        case VMGPU_OP_DIV | VMGPU_OP_IMM:
            ALU(op_div(a, b));
            break;
        case VMGPU_OP_DIVU:
        case VMGPU_OP_DIVU | VMGPU_OP_IMM:
            ALU(b ? a / b : UINT32_MAX);
            break;
        case VMGPU_OP_REM:
        case VMGPU_OP_REM | VMGPU_OP_IMM:
            ALU(op_rem(a, b));
            break;
        case VMGPU_OP_REMU:
        case VMGPU_OP_REMU | VMGPU_OP_IMM:
            ALU(b ? a % b : a);
            break;
        case VMGPU_OP_AND:
        case VMGPU_OP_AND | VMGPU_OP_IMM:
            ALU(a & b);
            break;
        case VMGPU_OP_OR:
        case VMGPU_OP_OR | VMGPU_OP_IMM:
            ALU(a | b);
            break;
        case VMGPU_OP_XOR:
        case VMGPU_OP_XOR | VMGPU_OP_IMM:
            ALU(a ^ b);
            break;
        case VMGPU_OP_SHL:
        case VMGPU_OP_SHL | VMGPU_OP_IMM:
            ALU(b > 31 ? 0 : a << b);
            break;
        case VMGPU_OP_SHR:
        case VMGPU_OP_SHR | VMGPU_OP_IMM:
            ALU(b > 31 ? 0 : a >> b);
            break;
        case VMGPU_OP_SRA:
        case VMGPU_OP_SRA | VMGPU_OP_IMM:
            ALU(op_sra(a, b));
            break;
        case VMGPU_OP_MIN:
        case VMGPU_OP_MIN | VMGPU_OP_IMM:
            ALU((int32_t)a < (int32_t)b ? a : b);
            break;
        case VMGPU_OP_MAX:
        case VMGPU_OP_MAX | VMGPU_OP_IMM:
            ALU((int32_t)a > (int32_t)b ? a : b);
            break;
        case VMGPU_OP_MINU:
        case VMGPU_OP_MINU | VMGPU_OP_IMM:
            ALU(a < b ? a : b);
            break;
        case VMGPU_OP_MAXU:
        case VMGPU_OP_MAXU | VMGPU_OP_IMM:
            ALU(a > b ? a : b);
            break;
        case VMGPU_OP_NOT:
            UNARY(~a);
            break;
        case VMGPU_OP_NEG:
            UNARY(0u - a);
            break;
        case VMGPU_OP_MAD: {
            const uint32_t *ra = R[in->a], *rb = R[in->b];
            const uint32_t *rc = R[in->imm];
            uint32_t t[W];

            for (uint32_t l = 0; l < W; l++) {
                t[l] = ra[l] * rb[l] + rc[l];
            }
            write_row(R[in->d], t, active);
            break;
        }
        case VMGPU_OP_ADD64:
        case VMGPU_OP_ADD64 | VMGPU_OP_IMM: {
            const uint32_t *alo = R[in->a], *ahi = R[in->a + 1];
            const uint32_t *blo = R[in->b], *bhi = R[in->b + 1];
            bool imm = in->op & VMGPU_OP_IMM;
            uint64_t bi = (uint64_t)(int64_t)(int32_t)in->imm;
            uint32_t lo[W], hi[W];

            for (uint32_t l = 0; l < W; l++) {
                uint64_t x = (uint64_t)ahi[l] << 32 | alo[l];
                uint64_t y = imm ? bi : (uint64_t)bhi[l] << 32 | blo[l];

                x += y;
                lo[l] = (uint32_t)x;
                hi[l] = (uint32_t)(x >> 32);
            }
            write_row(R[in->d], lo, active);
            write_row(R[in->d + 1], hi, active);
            break;
        }
        case VMGPU_OP_LEA: {
            const uint32_t *alo = R[in->a], *ahi = R[in->a + 1];
            const uint32_t *rb = R[in->b];
            uint32_t lo[W], hi[W], sh = in->imm;

            /* In 32-bit halves with carry, as for addresses. */
            if (sh == 0) {
                for (uint32_t l = 0; l < W; l++) {
                    lo[l] = alo[l] + rb[l];
                    hi[l] = ahi[l] + (lo[l] < rb[l]);
                }
            } else {
                for (uint32_t l = 0; l < W; l++) {
                    uint32_t add = rb[l] << sh;

                    lo[l] = alo[l] + add;
                    hi[l] = ahi[l] + (rb[l] >> (32 - sh)) + (lo[l] < add);
                }
            }
            write_row(R[in->d], lo, active);
            write_row(R[in->d + 1], hi, active);
            break;
        }
        case VMGPU_OP_FADD:
        case VMGPU_OP_FADD | VMGPU_OP_IMM:
            ALU(fres(FA + FB));
            break;
        case VMGPU_OP_FSUB:
        case VMGPU_OP_FSUB | VMGPU_OP_IMM:
            ALU(fres(FA - FB));
            break;
        case VMGPU_OP_FMUL:
        case VMGPU_OP_FMUL | VMGPU_OP_IMM:
            ALU(fres(FA * FB));
            break;
        case VMGPU_OP_FDIV:
        case VMGPU_OP_FDIV | VMGPU_OP_IMM:
            ALU(fres(FA / FB));
            break;
        case VMGPU_OP_FMIN:
        case VMGPU_OP_FMIN | VMGPU_OP_IMM:
            ALU(op_fmin(a, b));
            break;
        case VMGPU_OP_FMAX:
        case VMGPU_OP_FMAX | VMGPU_OP_IMM:
            ALU(op_fmax(a, b));
            break;
        case VMGPU_OP_FFMA: {
            uint32_t t[W];

            ffma_row(t, R[in->a], R[in->b], R[in->imm]);
            write_row(R[in->d], t, active);
            break;
        }
        case VMGPU_OP_FSQRT:
            UNARY(fres(sqrtf(FA)));
            break;
        case VMGPU_OP_FABS:
            UNARY(a & 0x7fffffffu);
            break;
        case VMGPU_OP_FNEG:
            UNARY(a ^ 0x80000000u);
            break;
        case VMGPU_OP_I2F:
            UNARY(as_u((float)(int32_t)a));
            break;
        case VMGPU_OP_U2F:
            UNARY(as_u((float)a));
            break;
        case VMGPU_OP_F2I:
            UNARY(op_f2i(a));
            break;
        case VMGPU_OP_F2U:
            UNARY(op_f2u(a));
            break;
        case VMGPU_OP_SETP_EQ:
        case VMGPU_OP_SETP_EQ | VMGPU_OP_IMM:
            SETP(a == b);
            break;
        case VMGPU_OP_SETP_NE:
        case VMGPU_OP_SETP_NE | VMGPU_OP_IMM:
            SETP(a != b);
            break;
        case VMGPU_OP_SETP_LT:
        case VMGPU_OP_SETP_LT | VMGPU_OP_IMM:
            SETP((int32_t)a < (int32_t)b);
            break;
        case VMGPU_OP_SETP_LE:
        case VMGPU_OP_SETP_LE | VMGPU_OP_IMM:
            SETP((int32_t)a <= (int32_t)b);
            break;
        case VMGPU_OP_SETP_GT:
        case VMGPU_OP_SETP_GT | VMGPU_OP_IMM:
            SETP((int32_t)a > (int32_t)b);
            break;
        case VMGPU_OP_SETP_GE:
        case VMGPU_OP_SETP_GE | VMGPU_OP_IMM:
            SETP((int32_t)a >= (int32_t)b);
            break;
        case VMGPU_OP_SETP_LTU:
        case VMGPU_OP_SETP_LTU | VMGPU_OP_IMM:
            SETP(a < b);
            break;
        case VMGPU_OP_SETP_LEU:
        case VMGPU_OP_SETP_LEU | VMGPU_OP_IMM:
            SETP(a <= b);
            break;
        case VMGPU_OP_SETP_GTU:
        case VMGPU_OP_SETP_GTU | VMGPU_OP_IMM:
            SETP(a > b);
            break;
        case VMGPU_OP_SETP_GEU:
        case VMGPU_OP_SETP_GEU | VMGPU_OP_IMM:
            SETP(a >= b);
            break;
        case VMGPU_OP_FSETP_EQ:
        case VMGPU_OP_FSETP_EQ | VMGPU_OP_IMM:
            SETP(FA == FB);
            break;
        case VMGPU_OP_FSETP_NE:
        case VMGPU_OP_FSETP_NE | VMGPU_OP_IMM:
            SETP(!(FA == FB));
            break;
        case VMGPU_OP_FSETP_LT:
        case VMGPU_OP_FSETP_LT | VMGPU_OP_IMM:
            SETP(FA < FB);
            break;
        case VMGPU_OP_FSETP_LE:
        case VMGPU_OP_FSETP_LE | VMGPU_OP_IMM:
            SETP(FA <= FB);
            break;
        case VMGPU_OP_FSETP_GT:
        case VMGPU_OP_FSETP_GT | VMGPU_OP_IMM:
            SETP(FA > FB);
            break;
        case VMGPU_OP_FSETP_GE:
        case VMGPU_OP_FSETP_GE | VMGPU_OP_IMM:
            SETP(FA >= FB);
            break;
        case VMGPU_OP_PAND:
        case VMGPU_OP_POR:
        case VMGPU_OP_PXOR:
        case VMGPU_OP_PNOT: {
            uint32_t x = w->pred[in->a], y = w->pred[in->b], v;

            v = in->op == VMGPU_OP_PAND   ? x & y
                : in->op == VMGPU_OP_POR  ? x | y
                : in->op == VMGPU_OP_PXOR ? x ^ y
                                          : ~x;
            w->pred[in->d] = (w->pred[in->d] & ~active) | (v & active);
            break;
        }
        case VMGPU_OP_ATOM_ADD:
        case VMGPU_OP_ATOM_MIN:
        case VMGPU_OP_ATOM_MAX:
        case VMGPU_OP_ATOM_MINU:
        case VMGPU_OP_ATOM_MAXU:
        case VMGPU_OP_ATOM_XCHG:
        case VMGPU_OP_ATOM_CAS:
            if (!gatomic(it, R, in, active, pc)) {
                goto out;
            }
            break;

        case VMGPU_OP_LD_U8:
            ok = gload(it, R, in, active, 1, false, pc);
            break;
        case VMGPU_OP_LD_S8:
            ok = gload(it, R, in, active, 1, true, pc);
            break;
        case VMGPU_OP_LD_U16:
            ok = gload(it, R, in, active, 2, false, pc);
            break;
        case VMGPU_OP_LD_S16:
            ok = gload(it, R, in, active, 2, true, pc);
            break;
        case VMGPU_OP_LD_32:
            ok = gload(it, R, in, active, 4, false, pc);
            break;
        case VMGPU_OP_LD_64:
            ok = gload(it, R, in, active, 8, false, pc);
            break;
        case VMGPU_OP_ST_8:
            ok = gstore(it, R, in, active, 1, pc);
            break;
        case VMGPU_OP_ST_16:
            ok = gstore(it, R, in, active, 2, pc);
            break;
        case VMGPU_OP_ST_32:
            ok = gstore(it, R, in, active, 4, pc);
            break;
        case VMGPU_OP_ST_64:
            ok = gstore(it, R, in, active, 8, pc);
            break;
        case VMGPU_OP_LDS_U8:
            ok = sload(it, R, in, active, 1, false, pc);
            break;
        case VMGPU_OP_LDS_S8:
            ok = sload(it, R, in, active, 1, true, pc);
            break;
        case VMGPU_OP_LDS_U16:
            ok = sload(it, R, in, active, 2, false, pc);
            break;
        case VMGPU_OP_LDS_S16:
            ok = sload(it, R, in, active, 2, true, pc);
            break;
        case VMGPU_OP_LDS_32:
            ok = sload(it, R, in, active, 4, false, pc);
            break;
        case VMGPU_OP_LDS_64:
            ok = sload(it, R, in, active, 8, false, pc);
            break;
        case VMGPU_OP_STS_8:
            ok = sstore(it, R, in, active, 1, pc);
            break;
        case VMGPU_OP_STS_16:
            ok = sstore(it, R, in, active, 2, pc);
            break;
        case VMGPU_OP_STS_32:
            ok = sstore(it, R, in, active, 4, pc);
            break;
        case VMGPU_OP_STS_64:
            ok = sstore(it, R, in, active, 8, pc);
            break;
        default:
            /* Unreachable: vg_kernel_load() validated the code. */
            set_fault(it, VMGPU_FAULT_ILLEGAL_INSTR, 0, pc);
            goto out;
        }
        if (unlikely(!ok)) {
            goto out;
        }
        pc++;
    }
out:
    if (res == RUN_FAULT) {
        SYNC_OUT();
    }
    it->budget = budget + reserve;
    st->warp_instrs += issued;
    st->thread_instrs += thread_instrs;
    return res;
#undef SYNC_OUT
#undef SYNC_IN
}

static bool launch_ok(const struct vg_launch *l, uint64_t *threads)
{
    uint64_t n = (uint64_t)l->block[0] * l->block[1] * l->block[2];

    *threads = n;
    return l->kernel && l->mem && l->mem->translate && n >= 1 &&
           n <= VMGPU_MAX_BLOCK_THREADS &&
           (uint64_t)l->kernel->shared_bytes + l->shared_bytes <=
               VMGPU_MAX_SHARED_BYTES &&
           l->args_bytes >= l->kernel->args_bytes &&
           (l->args || !l->kernel->args_bytes);
}

int vg_interp_run_block(struct vg_interp *it, const struct vg_launch *l,
                        const uint32_t pos[3], uint32_t sm,
                        struct vg_storelog *log, uint64_t *budget,
                        struct vg_block_stats *stats,
                        struct vg_fault_info *fault)
{
    struct vg_block_stats dummy_stats;
    struct vg_fault_info dummy_fault;
    uint32_t nwarps, w, i, running;
    uint64_t threads;
    size_t words;

    if (!stats) {
        memset(&dummy_stats, 0, sizeof(dummy_stats));
        stats = &dummy_stats;
    }
    if (!fault) {
        fault = &dummy_fault;
    }
    memset(fault, 0, sizeof(*fault));
    it->fault = fault;
    if (!launch_ok(l, &threads)) {
        set_fault(it, VMGPU_FAULT_BAD_EXECUTABLE, 0, 0);
        return -1;
    }
    it->l = l;
    it->k = l->kernel;
    it->log = log;
    it->stats = stats;
    it->budget = *budget;
    it->abort = l->abort;
    it->sm = sm;
    it->shared_total = l->kernel->shared_bytes + l->shared_bytes;
    for (i = 0; i < 3; i++) {
        it->ctaid[i] = l->origin[i] + pos[i];
    }
    if (++it->tlb_gen == 0) {
        memset(it->tlb, 0, sizeof(it->tlb));
        it->tlb_gen = 1;
    }

    nwarps = (uint32_t)((threads + W - 1) / W);
    words = (size_t)nwarps * it->k->num_regs * W;
    if (words > it->regs_words) {
        /* Grows to the largest block seen, then stays. */
        size_t max = (size_t)MAX_WARPS * VMGPU_ISA_MAX_REGS * W;
        uint32_t *n = aligned_alloc(64, max * sizeof(*n));

        if (!n) {
            set_fault(it, VMGPU_FAULT_BAD_EXECUTABLE, 0, 0);
            return -1;
        }
        free(it->regs);
        it->regs = n;
        it->regs_words = max;
    }
    /* Zeroed so nothing leaks from the previous block or context. */
    memset(it->regs, 0, words * sizeof(*it->regs));
    memset(it->shared, 0, it->shared_total);
    for (w = 0; w < nwarps; w++) {
        struct vg_warp *wp = &it->warps[w];
        uint64_t left = threads - (uint64_t)w * W;

        memset(wp->pred, 0, sizeof(wp->pred));
        wp->pc = 0;
        wp->live = left >= W ? ALL_LANES : (1u << left) - 1;
        wp->active = wp->live;
        wp->wait_min = NO_PC;
        wp->state = WARP_RUN;
    }

    /*
     * Each warp runs until it exits or reaches a barrier; when every warp
     * that has not exited waits at a barrier, all are released. Exited
     * warps do not count, so a barrier some threads never reach is not a
     * deadlock.
     */
    for (;;) {
        running = 0;
        for (w = 0; w < nwarps; w++) {
            struct vg_warp *wp = &it->warps[w];

            if (wp->state != WARP_RUN) {
                continue;
            }
            if (run_warp(it, w) == RUN_FAULT) {
                *budget = it->budget;
                return -1;
            }
        }
        for (w = 0; w < nwarps; w++) {
            if (it->warps[w].state == WARP_BAR) {
                it->warps[w].state = WARP_RUN;
                running++;
            }
        }
        if (!running) {
            break;
        }
    }
    *budget = it->budget;
    return 0;
}
