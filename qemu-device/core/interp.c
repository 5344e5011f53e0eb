// SPDX-License-Identifier: MIT
/*
 * The SM interpreter: execution. A block runs warp by warp; a warp runs
 * until it exits, reaches a barrier or faults, and every instruction is
 * applied to all 32 lanes in a loop over a [register][lane] file, so the
 * all-lanes-active case vectorises.
 *
 * Divergence uses per-lane program counters with "minimum pc first"
 * scheduling: the lanes at the lowest pc run, the others wait, and a waiting
 * lane joins again when the running lanes reach its pc. Structured code (if,
 * if/else, loops, early exit) therefore reconverges at the first instruction
 * after the construct without reconvergence annotations.
 *
 * One file, over 1,500 lines, on purpose: run_warp() is the dispatch loop
 * (one switch over the opcodes) and the instruction handlers live in it,
 * as statement macros (ALU, UNARY, SETP) and always_inline functions of
 * this file (gmem_prepare, gload, gstore, sload, sstore). run_warp() is
 * compiled twice (target_clones: AVX2 and baseline) and everything
 * inlined into it with it, so the AVX2 clone runs every lane loop eight
 * lanes per vector, and pc, the active mask and the budget stay in
 * locals from one instruction to the next. Handlers in another file
 * would be calls (the build has no link-time optimisation), compiled
 * once, for the baseline only. Out of line are only functions called
 * once per warp instruction or off the common path: address translation,
 * accesses across pages, atomics, special registers, divergence,
 * LAUNCH/ENQ records.
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
#include "kernel.h"
#include "storelog.h"

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
    uint32_t item_base, item_count; /* a queue task's block: its items */
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
        if (write) {
            it->stats->wbytes[e->loc] += size;
        }
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
    if (write) {
        it->stats->wbytes[e->loc] +=
            (uint64_t)size * __builtin_popcount(active);
    }
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
         !vg_storelog_find(log, gaccess_va(&g, __builtin_ctz(active)) &
                                    ~PAGE_MASK))) {
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
                p = vg_storelog_find(log, gaccess_va(&g, l) & ~PAGE_MASK);
            }
            v = p ? vg_storelog_read(p, g.va_lo[l] & PAGE_MASK, size)
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
            p = vg_storelog_get(log, va & ~PAGE_MASK,
                                gaccess_host(&g, l) - (va & PAGE_MASK));
            if (!p) {
                /* Out of host memory: fail the block. */
                set_fault(it, VMGPU_FAULT_UNMAPPED, va, pc);
                return false;
            }
        }
        vg_storelog_write(p, va & PAGE_MASK, size,
                          (uint64_t)hi[l] << 32 | lo[l]);
    }
    return true;
}

static bool gatomic(struct vg_interp *it, uint32_t (*R)[W],
                    const struct vg_insn *in, uint32_t active, uint32_t pc)
{
    uint32_t op = in->op, res[W], l, m;
    const uint32_t *src = R[in->b];
    /* Register C (IMM's low byte) exists for CAS only: else an offset. */
    const uint32_t *cmp = R[in->b],
                   *swp = op == VMGPU_OP_ATOM_CAS ? R[in->imm & 0xff] : src;
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
            vg_storelog_flush(it->log, gaccess_va(&g, l) & ~PAGE_MASK,
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

/*
 * Shared-memory atomics (version 2): lanes in order, each reading and
 * writing the block's shared memory, which no other block sees.
 */
static bool satomic(struct vg_interp *it, uint32_t (*R)[W],
                    const struct vg_insn *in, uint32_t active, uint32_t pc)
{
    uint32_t op = in->op, off[W], res[W], l, m;
    /* Register C (IMM's low byte) exists for CAS only: else an offset. */
    const uint32_t *src = R[in->b],
                   *swp = op == VMGPU_OP_ATOMS_CAS ? R[in->imm & 0xff] : src;
    struct vg_insn addr = *in;

    if (op == VMGPU_OP_ATOMS_CAS) {
        addr.imm = 0; /* IMM's low byte is register C */
    }
    if (!smem_check(it, R, &addr, active, 4, pc, off)) {
        return false;
    }
    for (m = active; m; m &= m - 1) {
        uint32_t old, v, nv;

        l = __builtin_ctz(m);
        old = (uint32_t)host_read(it->shared + off[l], 4);
        v = src[l];
        switch (op) {
        case VMGPU_OP_ATOMS_ADD:
            nv = old + v;
            break;
        case VMGPU_OP_ATOMS_MIN:
            nv = (int32_t)v < (int32_t)old ? v : old;
            break;
        case VMGPU_OP_ATOMS_MAX:
            nv = (int32_t)v > (int32_t)old ? v : old;
            break;
        case VMGPU_OP_ATOMS_MINU:
            nv = v < old ? v : old;
            break;
        case VMGPU_OP_ATOMS_MAXU:
            nv = v > old ? v : old;
            break;
        case VMGPU_OP_ATOMS_XCHG:
            nv = v;
            break;
        default: /* CAS: rB compared, rC stored */
            nv = old == v ? swp[l] : old;
            break;
        }
        host_write(it->shared + off[l], 4, nv);
        res[l] = old;
    }
    write_row(R[in->d], res, active);
    return true;
}

/*
 * LAUNCH and ENQ: one record per active lane, in lane order, into the
 * block's log; the device acts on them when the block completes, like on
 * its stores. Without a log (a block run outside a GPU) there is nobody
 * to act on them: refused.
 */
static bool device_work(struct vg_interp *it, uint32_t (*R)[W],
                        const struct vg_insn *in, uint32_t active, uint32_t pc)
{
    struct vg_work w = { .pc = pc };
    uint32_t l, m;

    for (m = active; m; m &= m - 1) {
        l = __builtin_ctz(m);
        w.va = (uint64_t)R[in->a + 1][l] << 32 | R[in->a][l];
        if (in->op == VMGPU_OP_LAUNCH) {
            /* IMM's low byte is register C: no address offset */
            w.kind = VG_WORK_LAUNCH;
            w.args_va = (uint64_t)R[in->b + 1][l] << 32 | R[in->b][l];
            w.value = R[in->imm & 0xff][l];
        } else {
            w.kind = VG_WORK_ENQ;
            w.va += (uint64_t)(int64_t)(int32_t)in->imm;
            w.value = R[in->b][l];
        }
        if (!it->log || !vg_storelog_add_work(it->log, &w)) {
            set_fault(it, VMGPU_FAULT_TASK, w.va, pc);
            return false;
        }
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
    case VMGPU_SREG_ITEM_BASE:
        return it->item_base;
    case VMGPU_SREG_ITEM_COUNT:
        return it->item_count;
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
        if (unlikely(in->op == VG_OP_END)) {
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
        case VMGPU_OP_ATOMS_ADD:
        case VMGPU_OP_ATOMS_MIN:
        case VMGPU_OP_ATOMS_MAX:
        case VMGPU_OP_ATOMS_MINU:
        case VMGPU_OP_ATOMS_MAXU:
        case VMGPU_OP_ATOMS_XCHG:
        case VMGPU_OP_ATOMS_CAS:
            ok = satomic(it, R, in, active, pc);
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
        case VMGPU_OP_LAUNCH:
        case VMGPU_OP_ENQ:
            ok = device_work(it, R, in, active, pc);
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
    return vg_interp_run_items(it, l, pos, 0, 0, sm, log, budget, stats, fault);
}

int vg_interp_run_items(struct vg_interp *it, const struct vg_launch *l,
                        const uint32_t pos[3], uint32_t item_base,
                        uint32_t item_count, uint32_t sm,
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
    if (log) {
        vg_storelog_begin(log);
    }
    it->stats = stats;
    it->budget = *budget;
    it->abort = l->abort;
    it->sm = sm;
    it->shared_total = l->kernel->shared_bytes + l->shared_bytes;
    for (i = 0; i < 3; i++) {
        it->ctaid[i] = l->origin[i] + pos[i];
    }
    it->item_base = item_base;
    it->item_count = item_count;
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
