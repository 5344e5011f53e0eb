// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Device trace: collection, the DMA record sink and the JSON converter.
 */
#include <endian.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "le.h"
#include "trace.h"

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
    vg_st_le32(out + 44, 0);
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
    r->reserved = vg_ld_le32(in + 44);
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
/* JSON                                                                 */
/* ------------------------------------------------------------------ */

static const char *const cmd_names[] = {
    [VMGPU_CMD_NOP] = "NOP",
    [VMGPU_CMD_SET_STATE] = "SET_STATE",
    [VMGPU_CMD_DISPATCH] = "DISPATCH",
    [VMGPU_CMD_SYNC] = "SYNC",
    [VMGPU_CMD_BARRIER] = "BARRIER",
    [VMGPU_CMD_TIMESTAMP] = "TIMESTAMP",
    [VMGPU_CMD_WRITE_VALUE] = "WRITE_VALUE",
    [VMGPU_CMD_WAIT_VALUE] = "WAIT_VALUE",
    [VMGPU_CMD_COPY] = "COPY",
    [VMGPU_CMD_END] = "END",
};

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
};

#define TRACE_MAX_SM_TRACKS VMGPU_MAX_SMS

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
    }
    if (r->kind == VMGPU_TRACE_CMD && r->aux == VMGPU_CMD_COPY) {
        fprintf(f, ",\"bytes\":%" PRIu64, r->value);
    }
    fputs("}}", f);
}

static uint64_t dur_of(const struct vmgpu_trace_record *r)
{
    return r->end_ns > r->start_ns ? r->end_ns - r->start_ns : 0;
}

static void put_event(FILE *f, const struct vmgpu_trace_record *r)
{
    unsigned int tid = r->sm < TRACE_MAX_SM_TRACKS ? r->sm + 1u : 0u;

    switch (r->kind) {
    case VMGPU_TRACE_CMD:
        fprintf(f, "{\"name\":\"%s\",\"cat\":\"cmd\",\"ph\":\"X\",",
                r->aux < VMGPU_CMD_NUM_OPS && cmd_names[r->aux]
                    ? cmd_names[r->aux]
                    : "CMD?");
        put_common(f, r, 0);
        fputc(',', f);
        put_ts(f, "dur", dur_of(r));
        break;
    case VMGPU_TRACE_PACKET:
        fprintf(f,
                "{\"name\":\"packet %" PRIu64 "\",\"cat\":\"packet\","
                "\"ph\":\"X\",",
                r->seqno);
        put_common(f, r, 0);
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
        /* Dispatches overlap: an async span each, begin and end. */
        fprintf(f,
                "{\"name\":\"dispatch %u\",\"cat\":\"dispatch\","
                "\"ph\":\"b\",\"id\":\"g%u.s%" PRIu64 ".d%u\",",
                r->dispatch, r->gpu, r->seqno, r->dispatch);
        put_common(f, r, 0);
        put_args(f, r);
        fprintf(f,
                ",\n{\"name\":\"dispatch %u\",\"cat\":\"dispatch\","
                "\"ph\":\"e\",\"id\":\"g%u.s%" PRIu64 ".d%u\","
                "\"pid\":%u,\"tid\":0,",
                r->dispatch, r->gpu, r->seqno, r->dispatch, r->gpu);
        put_ts(f, "ts", r->end_ns);
        fputc('}', f);
        return;
    case VMGPU_TRACE_ERROR:
        fprintf(f,
                "{\"name\":\"error %s\",\"cat\":\"error\","
                "\"ph\":\"i\",\"s\":\"t\",",
                r->aux < VMGPU_FAULT_NUM ? fault_names[r->aux] : "?");
        put_common(f, r, 0);
        break;
    case VMGPU_TRACE_IRQ:
        fprintf(f,
                "{\"name\":\"irq 0x%x\",\"cat\":\"irq\","
                "\"ph\":\"i\",\"s\":\"t\",",
                r->aux);
        put_common(f, r, 0);
        break;
    default:
        fprintf(f, "{\"name\":\"kind %u\",\"ph\":\"i\",\"s\":\"t\",", r->kind);
        put_common(f, r, 0);
        break;
    }
    put_args(f, r);
}

int vg_trace_json_write(const struct vmgpu_trace_record *recs, size_t n,
                        FILE *out)
{
    static const size_t words = (TRACE_MAX_SM_TRACKS + 63) / 64;
    uint64_t sms[256][(TRACE_MAX_SM_TRACKS + 63) / 64];
    bool gpus[256];
    bool first = true;
    unsigned int g, s;
    size_t i;

    memset(sms, 0, sizeof(sms));
    memset(gpus, 0, sizeof(gpus));
    for (i = 0; i < n; i++) {
        gpus[recs[i].gpu] = true;
        if (recs[i].sm < TRACE_MAX_SM_TRACKS) {
            sms[recs[i].gpu][recs[i].sm / 64] |= 1ull << (recs[i].sm % 64);
        }
    }
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", out);
    for (g = 0; g < 256; g++) {
        if (!gpus[g]) {
            continue;
        }
        fprintf(out,
                "%s{\"name\":\"process_name\",\"ph\":\"M\","
                "\"pid\":%u,\"tid\":0,\"args\":{\"name\":\"GPU %u\"}},\n"
                "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,"
                "\"tid\":0,\"args\":{\"name\":\"CP\"}}",
                first ? "" : ",\n", g, g, g);
        first = false;
        for (s = 0; s < words * 64; s++) {
            if (!(sms[g][s / 64] >> (s % 64) & 1)) {
                continue;
            }
            fprintf(out,
                    ",\n{\"name\":\"thread_name\",\"ph\":\"M\","
                    "\"pid\":%u,\"tid\":%u,\"args\":{\"name\":"
                    "\"SM %u\"}}",
                    g, s + 1, s);
        }
    }
    for (i = 0; i < n; i++) {
        if (!first) {
            fputs(",\n", out);
        }
        first = false;
        put_event(out, &recs[i]);
    }
    fputs("\n]}\n", out);
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

int vg_trace_json_from_buffer(const void *buf, size_t bytes, FILE *out)
{
    size_t n = bytes / VMGPU_TRACE_RECORD_SIZE, i;
    struct vmgpu_trace_record *recs = calloc(n ? n : 1, sizeof(*recs));
    int r;

    if (!recs) {
        return -1;
    }
    for (i = 0; i < n; i++) {
        vg_trace_record_decode(
            (const uint8_t *)buf + i * VMGPU_TRACE_RECORD_SIZE, &recs[i]);
    }
    r = vg_trace_json_write(recs, n, out);
    free(recs);
    return r;
}
