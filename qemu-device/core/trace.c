// SPDX-License-Identifier: MIT
/*
 * Device trace: collection, the DMA record sink and the JSON converter.
 */
#include <endian.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "le.h"
#include "trace.h"
#include "vmgpu_cmd.h"

void vg_trace_init(struct vg_trace *t, const struct vg_host *host)
{
    memset(t, 0, sizeof(*t));
    t->host = host;
}

void vg_trace_destroy(struct vg_trace *t)
{
    free(t->recs);
    t->recs = NULL;
    t->len = t->cap = 0;
}

void vg_trace_clear(struct vg_trace *t)
{
    t->len = 0;
}

void vg_trace_record_encode(const struct vmgpu_trace_record *r,
                            uint8_t out[VMGPU_TRACE_RECORD_SIZE])
{
    vg_st_le64(out + 0, r->start_ns);
    vg_st_le64(out + 8, r->end_ns);
    vg_st_le64(out + 16, r->seqno);
    out[24] = r->kind;
    out[25] = r->gpu;
    out[26] = r->sm & 0xff;
    out[27] = r->sm >> 8;
    vg_st_le32(out + 28, r->dispatch);
    vg_st_le32(out + 32, r->block);
    vg_st_le32(out + 36, r->aux);
    vg_st_le32(out + 40, r->as_slot);
    vg_st_le32(out + 44, r->wd_slot);
    vg_st_le64(out + 48, r->value);
    vg_st_le64(out + 56, r->value2);
}

void vg_trace_record_decode(const uint8_t in[VMGPU_TRACE_RECORD_SIZE],
                            struct vmgpu_trace_record *r)
{
    r->start_ns = vg_ld_le64(in + 0);
    r->end_ns = vg_ld_le64(in + 8);
    r->seqno = vg_ld_le64(in + 16);
    r->kind = in[24];
    r->gpu = in[25];
    r->sm = in[26] | in[27] << 8;
    r->dispatch = vg_ld_le32(in + 28);
    r->block = vg_ld_le32(in + 32);
    r->aux = vg_ld_le32(in + 36);
    r->as_slot = vg_ld_le32(in + 40);
    r->wd_slot = vg_ld_le32(in + 44);
    r->value = vg_ld_le64(in + 48);
    r->value2 = vg_ld_le64(in + 56);
}

void vg_trace_emit(struct vg_trace *t, const struct vmgpu_trace_record *r)
{
    if (t->keep) {
        if (t->len == t->cap) {
            size_t cap = t->cap ? t->cap * 2 : 1024;
            void *n = realloc(t->recs, cap * sizeof(*t->recs));

            if (n) {
                t->recs = n;
                t->cap = cap;
            }
        }
        if (t->len < t->cap) {
            t->recs[t->len++] = *r;
        }
    }
    if (t->dma_on) {
        uint8_t raw[VMGPU_TRACE_RECORD_SIZE];
        uint64_t addr = t->dma_addr + t->dma_written;
        uint64_t mask = ~(uint64_t)(VMGPU_PAGE_SIZE - 1);

        if ((uint64_t)t->dma_written + VMGPU_TRACE_RECORD_SIZE > t->dma_size) {
            t->dma_dropped++;
            return;
        }
        vg_trace_record_encode(r, raw);
        /* Only into RAM: see vg_bus_write() in mmu.h for why. */
        if (!t->host->map_page(t->host->opaque, addr & mask, true) ||
            !t->host->map_page(t->host->opaque, (addr + sizeof(raw) - 1) & mask,
                               true) ||
            t->host->dma_write(t->host->opaque, addr, raw, sizeof(raw))) {
            t->dma_dropped++;
            return;
        }
        t->dma_written += VMGPU_TRACE_RECORD_SIZE;
    }
}

/* ------------------------------------------------------------------ */
/* Tracks                                                               */
/* ------------------------------------------------------------------ */

uint64_t vg_trace_end_ns(const struct vmgpu_trace_record *r)
{
    return r->end_ns > r->start_ns ? r->end_ns : r->start_ns;
}

bool vg_trace_slot_entry(const struct vmgpu_trace_record *r)
{
    return r->kind == VMGPU_TRACE_TMD && r->wd_slot &&
           (r->aux == VMGPU_TRACE_TMD_TABLE ||
            r->aux == VMGPU_TRACE_TMD_RESUMED);
}

/* A TMD record of a slot (not a pending one): on the slot's track. */
static bool is_slot_rec(const struct vmgpu_trace_record *r)
{
    return r->kind == VMGPU_TRACE_TMD && r->wd_slot;
}

/*
 * Spans and slot records get lanes; everything else sits on the CP's
 * first lane.
 */
static bool is_span(const struct vmgpu_trace_record *r)
{
    return r->kind == VMGPU_TRACE_CMD || r->kind == VMGPU_TRACE_PACKET ||
           r->kind == VMGPU_TRACE_BLOCK || is_slot_rec(r);
}

static unsigned int group_of(const struct vmgpu_trace_record *r)
{
    switch (r->kind) {
    case VMGPU_TRACE_CMD:
        return VG_TRACE_GROUP_COMMANDS;
    case VMGPU_TRACE_BLOCK:
        return VG_TRACE_GROUP_SM;
    case VMGPU_TRACE_TMD:
        return r->wd_slot ? VG_TRACE_GROUP_SLOT : VG_TRACE_GROUP_CP;
    default:
        return VG_TRACE_GROUP_CP;
    }
}

/* The SM of a block, the slot of a slot record (kept to 16 bits). */
static unsigned int group_sm_of(const struct vmgpu_trace_record *r)
{
    if (r->kind == VMGPU_TRACE_BLOCK) {
        return r->sm;
    }
    return is_slot_rec(r) ? (r->wd_slot - 1) & 0xffff : 0;
}

#define CMP(a, b)                                                              \
    do {                                                                       \
        if ((a) != (b)) {                                                      \
            return (a) < (b) ? -1 : 1;                                         \
        }                                                                      \
    } while (0)

static int cmp_group(const struct vmgpu_trace_record *a,
                     const struct vmgpu_trace_record *b)
{
    CMP(a->gpu, b->gpu);
    CMP(group_of(a), group_of(b));
    CMP(group_sm_of(a), group_sm_of(b));
    return 0;
}

/*
 * Group, then the order lanes are handed out in. The records' position
 * breaks the last ties, so the order is total and qsort() cannot make the
 * result depend on anything but the records.
 */
static int cmp_span(const void *pa, const void *pb)
{
    const struct vmgpu_trace_record *a =
        *(const struct vmgpu_trace_record *const *)pa;
    const struct vmgpu_trace_record *b =
        *(const struct vmgpu_trace_record *const *)pb;
    int c = cmp_group(a, b);

    if (c) {
        return c;
    }
    CMP(a->start_ns, b->start_ns);
    CMP(vg_trace_end_ns(a), vg_trace_end_ns(b));
    CMP(a->dispatch, b->dispatch);
    CMP(a->block, b->block);
    CMP(a->seqno, b->seqno);
    CMP((uintptr_t)a, (uintptr_t)b);
    return 0;
}

struct lane_group {
    const struct vmgpu_trace_record *first;
    uint32_t lanes;
    size_t first_track;
};

static void add_track(struct vg_trace_layout *l, unsigned int gpu,
                      unsigned int group, unsigned int sm, uint32_t lane,
                      uint32_t *index)
{
    struct vg_trace_track *t = &l->tracks[l->ntracks++];

    t->gpu = gpu;
    t->group = group;
    t->sm = sm;
    t->lane = lane;
    t->index = (*index)++;
}

/* A slot record: its track, then its position in the records. */
struct slot_key {
    size_t track, rec;
};

static int cmp_slot_key(const void *pa, const void *pb)
{
    const struct slot_key *a = pa, *b = pb;

    CMP(a->track, b->track);
    CMP(a->rec, b->rec);
    return 0;
}

/*
 * Each slot entry lasts until the next record on its slot's track, in
 * record order (the device writes a slot's records in the order they
 * happen), or until the trace's last end.
 */
static int slot_ends(struct vg_trace_layout *l,
                     const struct vmgpu_trace_record *recs, size_t n)
{
    struct slot_key *key = calloc(n ? n : 1, sizeof(*key));
    size_t m = 0, i;
    uint64_t last = 0;

    l->slot_end = calloc(n ? n : 1, sizeof(*l->slot_end));
    if (!key || !l->slot_end) {
        free(key);
        return -1;
    }
    for (i = 0; i < n; i++) {
        if (vg_trace_end_ns(&recs[i]) > last) {
            last = vg_trace_end_ns(&recs[i]);
        }
        if (is_slot_rec(&recs[i])) {
            key[m].track = l->track_of[i];
            key[m++].rec = i;
        }
    }
    qsort(key, m, sizeof(*key), cmp_slot_key);
    for (i = 0; i < m; i++) {
        const struct vmgpu_trace_record *r = &recs[key[i].rec];
        uint64_t end = last;

        if (!vg_trace_slot_entry(r)) {
            continue;
        }
        if (i + 1 < m && key[i + 1].track == key[i].track) {
            end = recs[key[i + 1].rec].start_ns;
        }
        l->slot_end[key[i].rec] = end > r->start_ns ? end : r->start_ns;
    }
    free(key);
    return 0;
}

int vg_trace_layout_init(struct vg_trace_layout *l,
                         const struct vmgpu_trace_record *recs, size_t n)
{
    size_t m = n ? n : 1, nspans = 0, ngroups = 0, gi, i, j;
    const struct vmgpu_trace_record **order = calloc(m, sizeof(*order));
    struct lane_group *groups = calloc(m, sizeof(*groups));
    uint64_t *lane_end = calloc(m, sizeof(*lane_end));
    uint32_t *lane = calloc(m, sizeof(*lane));
    size_t *group_idx = calloc(m, sizeof(*group_idx));
    size_t cp_track[256];
    bool gpus[256];
    unsigned int g;
    int ret = -1;

    memset(l, 0, sizeof(*l));
    memset(gpus, 0, sizeof(gpus));
    /* At most one track per span, plus each GPU's CP lane 0. */
    l->tracks = calloc(n + 256, sizeof(*l->tracks));
    l->track_of = calloc(m, sizeof(*l->track_of));
    if (!order || !groups || !lane_end || !lane || !group_idx ||
        !l->tracks || !l->track_of) {
        vg_trace_layout_destroy(l);
        goto out;
    }
    for (i = 0; i < n; i++) {
        gpus[recs[i].gpu] = true;
        if (is_span(&recs[i])) {
            order[nspans++] = &recs[i];
        }
    }
    qsort(order, nspans, sizeof(*order), cmp_span);

    /*
     * One group at a time; lane_end[k] is when lane k's last span ends.
     * The scan is linear in the lanes, which for records the device wrote
     * are bounded by the blocks an SM holds at once (sm-blocks).
     */
    for (i = 0; i < nspans; i = j) {
        struct lane_group *grp = &groups[ngroups];

        grp->first = order[i];
        grp->lanes = 0;
        for (j = i; j < nspans && !cmp_group(order[i], order[j]); j++) {
            const struct vmgpu_trace_record *r = order[j];
            uint32_t k = 0;

            /* A slot's records are instants: its one lane. */
            while (k < grp->lanes && lane_end[k] > r->start_ns &&
                   !is_slot_rec(r)) {
                k++;
            }
            if (k == grp->lanes) {
                grp->lanes++;
            }
            lane_end[k] = is_slot_rec(r) ? r->start_ns : vg_trace_end_ns(r);
            lane[r - recs] = k;
            group_idx[r - recs] = ngroups;
        }
        ngroups++;
    }

    /* Tracks in display order: per GPU CP lanes, commands, slots, SMs. */
    gi = 0;
    for (g = 0; g < 256; g++) {
        uint32_t index = 0, k;

        if (!gpus[g]) {
            continue;
        }
        cp_track[g] = l->ntracks;
        if (gi == ngroups || groups[gi].first->gpu != g ||
            group_of(groups[gi].first) != VG_TRACE_GROUP_CP) {
            add_track(l, g, VG_TRACE_GROUP_CP, 0, 0, &index);
        }
        for (; gi < ngroups && groups[gi].first->gpu == g; gi++) {
            groups[gi].first_track = l->ntracks;
            for (k = 0; k < groups[gi].lanes; k++) {
                add_track(l, g, group_of(groups[gi].first),
                          group_sm_of(groups[gi].first), k, &index);
            }
        }
    }
    for (i = 0; i < n; i++) {
        l->track_of[i] = is_span(&recs[i])
                             ? groups[group_idx[i]].first_track + lane[i]
                             : cp_track[recs[i].gpu];
    }
    if (slot_ends(l, recs, n)) {
        vg_trace_layout_destroy(l);
        goto out;
    }
    ret = 0;
out:
    free(order);
    free(groups);
    free(lane_end);
    free(lane);
    free(group_idx);
    return ret;
}

void vg_trace_layout_destroy(struct vg_trace_layout *l)
{
    free(l->tracks);
    free(l->track_of);
    free(l->slot_end);
    memset(l, 0, sizeof(*l));
}

void vg_trace_track_name(const struct vg_trace_track *t, char *buf,
                         size_t len)
{
    static const char *const group_names[] = {
        [VG_TRACE_GROUP_CP] = "CP",
        [VG_TRACE_GROUP_COMMANDS] = "CP commands",
    };

    if (t->group == VG_TRACE_GROUP_SM) {
        snprintf(buf, len, "SM %u / lane %u", t->sm, t->lane);
    } else if (t->group == VG_TRACE_GROUP_SLOT) {
        snprintf(buf, len, "slot %u", t->sm);
    } else if (t->lane) {
        snprintf(buf, len, "%s / lane %u", group_names[t->group], t->lane);
    } else {
        snprintf(buf, len, "%s", group_names[t->group]);
    }
}

/* ------------------------------------------------------------------ */
/* JSON                                                                 */
/* ------------------------------------------------------------------ */

static const char *const fault_names[] = {
    [VMGPU_FAULT_NONE] = "none",
    [VMGPU_FAULT_UNMAPPED] = "unmapped",
    [VMGPU_FAULT_PERMISSION] = "permission",
    [VMGPU_FAULT_MISALIGNED] = "misaligned",
    [VMGPU_FAULT_ILLEGAL_INSTR] = "illegal-instruction",
    [VMGPU_FAULT_BAD_EXECUTABLE] = "bad-executable",
    [VMGPU_FAULT_BUDGET] = "budget",
    [VMGPU_FAULT_BAD_COMMAND] = "bad-command",
    [VMGPU_FAULT_RING] = "ring",
    [VMGPU_FAULT_PC_RANGE] = "pc-range",
    [VMGPU_FAULT_TASK] = "task",
};

const char *vg_trace_fault_name(uint32_t fault)
{
    return fault < VMGPU_FAULT_NUM && fault_names[fault] ? fault_names[fault]
                                                         : "?";
}

static const char *const tmd_state_names[] = {
    [VMGPU_TRACE_TMD_PENDING] = "pending",
    [VMGPU_TRACE_TMD_TABLE] = "table",
    [VMGPU_TRACE_TMD_EVICTED] = "evicted",
    [VMGPU_TRACE_TMD_RESUMED] = "resumed",
    [VMGPU_TRACE_TMD_DONE] = "done",
    [VMGPU_TRACE_TMD_REMOVED] = "removed",
};

const char *vg_trace_tmd_state_name(uint32_t state)
{
    return state < sizeof(tmd_state_names) / sizeof(tmd_state_names[0]) &&
                   tmd_state_names[state]
               ? tmd_state_names[state]
               : "?";
}

/* Device time in ns as trace-event microseconds. */
static void put_ts(FILE *f, const char *key, uint64_t ns)
{
    fprintf(f, "\"%s\":%" PRIu64 ".%03u", key, ns / 1000,
            (unsigned int)(ns % 1000));
}

static void put_common(FILE *f, const struct vmgpu_trace_record *r,
                       unsigned int tid)
{
    fprintf(f, "\"pid\":%u,\"tid\":%u,", r->gpu, tid);
    put_ts(f, "ts", r->start_ns);
}

static void put_args(FILE *f, const struct vmgpu_trace_record *r)
{
    fprintf(f, ",\"args\":{\"seqno\":%" PRIu64 ",\"slot\":%u", r->seqno,
            r->as_slot);
    if (r->dispatch != VMGPU_TRACE_NONE) {
        fprintf(f, ",\"dispatch\":%u", r->dispatch);
    }
    if (r->block != VMGPU_TRACE_NONE) {
        fprintf(f, ",\"block\":%u", r->block);
    }
    if (r->kind == VMGPU_TRACE_BLOCK) {
        fprintf(f, ",\"warp_instrs\":%" PRIu64 ",\"bytes\":%" PRIu64, r->value,
                r->value2);
        if (r->wd_slot) {
            fprintf(f, ",\"tmd_slot\":%u", r->wd_slot - 1);
        }
    }
    if (r->kind == VMGPU_TRACE_LINK) {
        fprintf(f, ",\"peer\":%u,\"hops\":%u,\"bytes\":%" PRIu64,
                VMGPU_TRACE_LINK_PEER(r->aux), VMGPU_TRACE_LINK_HOPS(r->aux),
                r->value);
        fputc(',', f);
        put_ts(f, "end", vg_trace_end_ns(r));
    }
    if (r->kind == VMGPU_TRACE_CMD &&
        (r->aux == VMGPU_CMD_COPY || r->aux == VMGPU_CMD_COPY_ASYNC)) {
        fprintf(f, ",\"bytes\":%" PRIu64, r->value);
    }
    fputs("}}", f);
}

static uint64_t dur_of(const struct vmgpu_trace_record *r)
{
    return vg_trace_end_ns(r) - r->start_ns;
}

/*
 * A TMD record: a slot entry is a complete event on the slot's track for
 * its stay; the other state changes are instants (pending on the CP's
 * track, the rest on the slot's).
 */
static void put_tmd(FILE *f, const struct vmgpu_trace_record *r,
                    unsigned int tid, uint64_t slot_end)
{
    const char *state = vg_trace_tmd_state_name(r->aux);

    if (vg_trace_slot_entry(r)) {
        fprintf(f, "{\"name\":\"d%u\",\"cat\":\"tmd\",\"ph\":\"X\",",
                r->dispatch);
        put_common(f, r, tid);
        fputc(',', f);
        put_ts(f, "dur", slot_end - r->start_ns);
    } else {
        fprintf(f,
                "{\"name\":\"%s d%u\",\"cat\":\"tmd\",\"ph\":\"i\","
                "\"s\":\"t\",",
                state, r->dispatch);
        put_common(f, r, tid);
    }
    fprintf(f,
            ",\"args\":{\"seqno\":%" PRIu64 ",\"dispatch\":%u,"
            "\"state\":\"%s\",\"resume_block\":%u,\"level\":%" PRIu64
            ",\"evictions\":%" PRIu64,
            r->seqno, r->dispatch, state, r->block, r->value, r->value2);
    if (r->wd_slot) {
        fprintf(f, ",\"tmd_slot\":%u", r->wd_slot - 1);
    }
    fputs("}}", f);
}

/* Record @idx of a trace, on thread @tid of its GPU. */
static void put_event(FILE *f, const struct vmgpu_trace_record *r, size_t idx,
                      unsigned int tid, const struct vg_trace_layout *l)
{
    switch (r->kind) {
    case VMGPU_TRACE_TMD:
        put_tmd(f, r, tid, l->slot_end[idx]);
        return;
    case VMGPU_TRACE_CMD:
        fprintf(f, "{\"name\":\"%s\",\"cat\":\"cmd\",\"ph\":\"X\",",
                vmgpu_cmd_name(r->aux) ? vmgpu_cmd_name(r->aux) : "CMD?");
        put_common(f, r, tid);
        fputc(',', f);
        put_ts(f, "dur", dur_of(r));
        break;
    case VMGPU_TRACE_PACKET:
        fprintf(f,
                "{\"name\":\"packet %" PRIu64 "\",\"cat\":\"packet\","
                "\"ph\":\"X\",",
                r->seqno);
        put_common(f, r, tid);
        fputc(',', f);
        put_ts(f, "dur", dur_of(r));
        break;
    case VMGPU_TRACE_BLOCK:
        fprintf(f,
                "{\"name\":\"d%u b%u\",\"cat\":\"block\","
                "\"ph\":\"X\",",
                r->dispatch, r->block);
        put_common(f, r, tid);
        fputc(',', f);
        put_ts(f, "dur", dur_of(r));
        break;
    case VMGPU_TRACE_DISPATCH:
        /*
         * Dispatches overlap: an async span each, begin and end. The
         * record's position in the id keeps two spans apart even if a
         * seqno comes back (a test, a GPU reset).
         */
        fprintf(f,
                "{\"name\":\"dispatch %u\",\"cat\":\"dispatch\","
                "\"ph\":\"b\",\"id\":\"g%u.s%" PRIu64 ".d%u.r%zu\",",
                r->dispatch, r->gpu, r->seqno, r->dispatch, idx);
        put_common(f, r, tid);
        put_args(f, r);
        fprintf(f,
                ",\n{\"name\":\"dispatch %u\",\"cat\":\"dispatch\","
                "\"ph\":\"e\",\"id\":\"g%u.s%" PRIu64 ".d%u.r%zu\","
                "\"pid\":%u,\"tid\":%u,",
                r->dispatch, r->gpu, r->seqno, r->dispatch, idx, r->gpu, tid);
        put_ts(f, "ts", vg_trace_end_ns(r));
        fputc('}', f);
        return;
    case VMGPU_TRACE_ERROR:
        fprintf(f,
                "{\"name\":\"error %s\",\"cat\":\"error\","
                "\"ph\":\"i\",\"s\":\"t\",",
                vg_trace_fault_name(r->aux));
        put_common(f, r, tid);
        break;
    case VMGPU_TRACE_IRQ:
        fprintf(f,
                "{\"name\":\"irq 0x%x\",\"cat\":\"irq\","
                "\"ph\":\"i\",\"s\":\"t\",",
                r->aux);
        put_common(f, r, tid);
        break;
    case VMGPU_TRACE_LINK:
        /* An instant at the transfer's start; args give bytes and end. */
        fprintf(f,
                "{\"name\":\"link %u-%u\",\"cat\":\"link\","
                "\"ph\":\"i\",\"s\":\"t\",",
                VMGPU_TRACE_LINK_PEER(r->aux), r->gpu);
        put_common(f, r, tid);
        break;
    default:
        fprintf(f, "{\"name\":\"kind %u\",\"ph\":\"i\",\"s\":\"t\",", r->kind);
        put_common(f, r, tid);
        break;
    }
    put_args(f, r);
}

int vg_trace_json_write(const struct vmgpu_trace_record *recs, size_t n,
                        FILE *out)
{
    struct vg_trace_layout l;
    char name[64];
    size_t i;

    if (vg_trace_layout_init(&l, recs, n)) {
        return -1;
    }
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
    for (i = 0; i < l.ntracks; i++) {
        const struct vg_trace_track *t = &l.tracks[i];

        if (t->index == 0) {
            fprintf(out,
                    "%s\n{\"name\":\"process_name\",\"ph\":\"M\","
                    "\"pid\":%u,\"tid\":0,\"args\":{\"name\":\"GPU %u\"}},"
                    "\n{\"name\":\"process_sort_index\",\"ph\":\"M\","
                    "\"pid\":%u,\"tid\":0,\"args\":{\"sort_index\":%u}},",
                    i ? "," : "", t->gpu, t->gpu, t->gpu, t->gpu);
        } else {
            fputc(',', out);
        }
        vg_trace_track_name(t, name, sizeof(name));
        fprintf(out,
                "\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,"
                "\"tid\":%u,\"args\":{\"name\":\"%s\"}},"
                "\n{\"name\":\"thread_sort_index\",\"ph\":\"M\","
                "\"pid\":%u,\"tid\":%u,\"args\":{\"sort_index\":%u}}",
                t->gpu, t->index, name, t->gpu, t->index, t->index);
    }
    for (i = 0; i < n; i++) {
        fputs(i || l.ntracks ? ",\n" : "\n", out);
        put_event(out, &recs[i], i, l.tracks[l.track_of[i]].index, &l);
    }
    fputs("\n]}\n", out);
    vg_trace_layout_destroy(&l);
    return ferror(out) ? -1 : 0;
}

char *vg_trace_json_string(const struct vmgpu_trace_record *recs, size_t n,
                           size_t *len)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    int r;

    if (!f) {
        return NULL;
    }
    r = vg_trace_json_write(recs, n, f);
    if (fclose(f) || r) {
        free(buf);
        return NULL;
    }
    if (len) {
        *len = size;
    }
    return buf;
}

struct vmgpu_trace_record *vg_trace_records_from_buffer(const void *buf,
                                                        size_t bytes,
                                                        size_t *n)
{
    size_t count = bytes / VMGPU_TRACE_RECORD_SIZE, i;
    struct vmgpu_trace_record *recs = calloc(count ? count : 1, sizeof(*recs));

    if (!recs) {
        return NULL;
    }
    for (i = 0; i < count; i++) {
        vg_trace_record_decode(
            (const uint8_t *)buf + i * VMGPU_TRACE_RECORD_SIZE, &recs[i]);
    }
    *n = count;
    return recs;
}

int vg_trace_json_from_buffer(const void *buf, size_t bytes, FILE *out)
{
    size_t n;
    struct vmgpu_trace_record *recs =
        vg_trace_records_from_buffer(buf, bytes, &n);
    int r;

    if (!recs) {
        return -1;
    }
    r = vg_trace_json_write(recs, n, out);
    free(recs);
    return r;
}

/* ------------------------------------------------------------------ */
/* Summary                                                              */
/* ------------------------------------------------------------------ */

static int cmp_packet(const void *pa, const void *pb)
{
    const struct vmgpu_trace_record *a =
        *(const struct vmgpu_trace_record *const *)pa;
    const struct vmgpu_trace_record *b =
        *(const struct vmgpu_trace_record *const *)pb;

    CMP(a->gpu, b->gpu);
    CMP(a->start_ns, b->start_ns);
    CMP((uintptr_t)a, (uintptr_t)b);
    return 0;
}

/*
 * Add to each GPU's busy_ns (or, for @blocks, compute_ns) the union of
 * the spans of its records among @recs (sorted by cmp_packet() here).
 */
static void add_union(const struct vmgpu_trace_record **recs, size_t n,
                      struct vg_trace_summary *s, bool blocks)
{
    size_t i;

    qsort(recs, n, sizeof(*recs), cmp_packet);
    for (i = 0; i < n;) {
        unsigned int gpu = recs[i]->gpu;
        uint64_t start = recs[i]->start_ns;
        uint64_t end = vg_trace_end_ns(recs[i]);

        for (i++; i < n && recs[i]->gpu == gpu && recs[i]->start_ns <= end;
             i++) {
            if (vg_trace_end_ns(recs[i]) > end) {
                end = vg_trace_end_ns(recs[i]);
            }
        }
        if (blocks) {
            s->gpu[gpu].compute_ns += end - start;
        } else {
            s->gpu[gpu].busy_ns += end - start;
        }
    }
}

int vg_trace_summarize(const struct vmgpu_trace_record *recs, size_t n,
                       struct vg_trace_summary *s)
{
    const struct vmgpu_trace_record **packets =
        calloc(n ? n : 1, sizeof(*packets));
    const struct vmgpu_trace_record **blocks =
        calloc(n ? n : 1, sizeof(*blocks));
    size_t npackets = 0, nblocks = 0, i;

    memset(s, 0, sizeof(*s));
    if (!packets || !blocks) {
        free(packets);
        free(blocks);
        return -1;
    }
    s->records = n;
    for (i = 0; i < n; i++) {
        const struct vmgpu_trace_record *r = &recs[i];
        struct vg_trace_gpu_summary *g = &s->gpu[r->gpu];

        if (i == 0 || r->start_ns < s->first_ns) {
            s->first_ns = r->start_ns;
        }
        if (vg_trace_end_ns(r) > s->last_ns) {
            s->last_ns = vg_trace_end_ns(r);
        }
        if (!g->records++) {
            s->gpus++;
            g->first_ns = r->start_ns;
        }
        if (r->start_ns < g->first_ns) {
            g->first_ns = r->start_ns;
        }
        if (vg_trace_end_ns(r) > g->last_ns) {
            g->last_ns = vg_trace_end_ns(r);
        }
        switch (r->kind) {
        case VMGPU_TRACE_BLOCK:
            g->blocks++;
            blocks[nblocks++] = r;
            break;
        case VMGPU_TRACE_DISPATCH:
            g->dispatches++;
            break;
        case VMGPU_TRACE_PACKET:
            g->packets++;
            packets[npackets++] = r;
            break;
        case VMGPU_TRACE_ERROR:
            g->errors++;
            break;
        case VMGPU_TRACE_IRQ:
            g->irqs++;
            break;
        case VMGPU_TRACE_TMD:
            g->tmd_records++;
            g->slot_entries += vg_trace_slot_entry(r);
            g->evictions += r->aux == VMGPU_TRACE_TMD_EVICTED;
            g->resumes += r->aux == VMGPU_TRACE_TMD_RESUMED;
            break;
        }
    }
    /* Busy: the union of each GPU's packet spans; computing: blocks'. */
    add_union(packets, npackets, s, false);
    add_union(blocks, nblocks, s, true);
    free(packets);
    free(blocks);
    return 0;
}

/* @ns as microseconds with nanosecond decimals. */
static void put_us(FILE *f, int width, uint64_t ns)
{
    char buf[32];

    snprintf(buf, sizeof(buf), "%" PRIu64 ".%03u", ns / 1000,
             (unsigned int)(ns % 1000));
    fprintf(f, "%*s", width, buf);
}

/* What the records of one task-table slot add up to. */
struct slot_sum {
    uint64_t occupied_ns;
    uint32_t entries, evictions, resumes;
};

/* Per task-table slot with records: occupancy, entries, evictions. */
static int slots_write(const struct vmgpu_trace_record *recs, size_t n,
                       const struct vg_trace_summary *s, FILE *out)
{
    uint64_t makespan = s->last_ns - s->first_ns;
    struct vg_trace_layout l;
    struct slot_sum *sum;
    size_t i;
    unsigned int g;
    bool any = false;

    for (g = 0; g < 256; g++) {
        any |= s->gpu[g].tmd_records != 0;
    }
    if (!any) {
        return 0;
    }
    if (vg_trace_layout_init(&l, recs, n)) {
        return -1;
    }
    sum = calloc(l.ntracks ? l.ntracks : 1, sizeof(*sum));
    if (!sum) {
        vg_trace_layout_destroy(&l);
        return -1;
    }
    for (i = 0; i < n; i++) {
        struct slot_sum *t = &sum[l.track_of[i]];

        if (!is_slot_rec(&recs[i])) {
            continue;
        }
        if (vg_trace_slot_entry(&recs[i])) {
            t->entries++;
            t->occupied_ns += l.slot_end[i] - recs[i].start_ns;
        }
        t->evictions += recs[i].aux == VMGPU_TRACE_TMD_EVICTED;
        t->resumes += recs[i].aux == VMGPU_TRACE_TMD_RESUMED;
    }
    fprintf(out, "%3s %4s %11s %6s %7s %9s %7s\n", "gpu", "slot", "occupied_us",
            "occ%", "entries", "evictions", "resumes");
    for (i = 0; i < l.ntracks; i++) {
        const struct vg_trace_track *t = &l.tracks[i];

        if (t->group != VG_TRACE_GROUP_SLOT) {
            continue;
        }
        fprintf(out, "%3u %4u ", t->gpu, t->sm);
        put_us(out, 11, sum[i].occupied_ns);
        fprintf(out, " %6.1f %7u %9u %7u\n",
                makespan ? 100.0 * (double)sum[i].occupied_ns / (double)makespan
                         : 0.0,
                sum[i].entries, sum[i].evictions, sum[i].resumes);
    }
    free(sum);
    vg_trace_layout_destroy(&l);
    return 0;
}

int vg_trace_summary_write(const struct vmgpu_trace_record *recs, size_t n,
                           FILE *out)
{
    struct vg_trace_summary *s = malloc(sizeof(*s));
    uint64_t makespan;
    unsigned int g;

    if (!s || vg_trace_summarize(recs, n, s)) {
        free(s);
        return -1;
    }
    makespan = s->last_ns - s->first_ns;
    fprintf(out, "%zu records, %u GPU%s, device time ", s->records, s->gpus,
            s->gpus == 1 ? "" : "s");
    put_us(out, 0, s->first_ns);
    fputs(" .. ", out);
    put_us(out, 0, s->last_ns);
    fputs(" us, makespan ", out);
    put_us(out, 0, makespan);
    fputs(" us\n", out);
    fprintf(out, "%3s %6s %11s %11s %7s %10s %7s %6s %5s\n", "gpu", "busy%",
            "busy_us", "span_us", "packets", "dispatches", "blocks", "errors",
            "irqs");
    for (g = 0; g < 256; g++) {
        const struct vg_trace_gpu_summary *gs = &s->gpu[g];

        if (!gs->records) {
            continue;
        }
        fprintf(out, "%3u %6.1f ", g,
                makespan ? 100.0 * (double)gs->busy_ns / (double)makespan
                         : 0.0);
        put_us(out, 11, gs->busy_ns);
        fputc(' ', out);
        put_us(out, 11, gs->last_ns - gs->first_ns);
        fprintf(out, " %7u %10u %7u %6u %5u\n", gs->packets, gs->dispatches,
                gs->blocks, gs->errors, gs->irqs);
    }
    if (slots_write(recs, n, s, out)) {
        free(s);
        return -1;
    }
    free(s);
    return ferror(out) ? -1 : 0;
}
