// SPDX-License-Identifier: MIT
/*
 * Device trace as an SVG timeline.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace_svg.h"

/* Geometry in SVG user units (pixels). */
#define WIDTH 1200
#define LABEL_W 120
#define RIGHT_W 16
#define PLOT_W (WIDTH - LABEL_W - RIGHT_W)
#define TOP_H 56            /* title, axis labels */
#define GPU_H 22            /* a GPU's heading */
#define CP_H 16             /* a CP lane */
#define LANE_PITCH 6        /* an SM residency lane: 5 drawn, 1 gap */
#define SM_MIN_H 12         /* room for an SM's label */
#define SM_GAP 3
#define SLOT_H 11           /* a task-table slot row: 10 drawn, 1 gap */
#define LEGEND_ITEM_W 44
#define LEGEND_MAX 64       /* dispatch indices with a legend swatch */

struct svg {
    FILE *f;
    uint64_t t0, span;      /* the makespan, from t0 */
};

/* Text content or attribute value: XML's five specials escaped. */
static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

static double x_of(const struct svg *s, uint64_t t)
{
    return LABEL_W + (double)(t - s->t0) * PLOT_W / (double)s->span;
}

/* Device time @ns in microseconds with @decimals (0..3) decimals. */
static void fmt_us(char *buf, size_t len, uint64_t ns, unsigned int decimals)
{
    if (decimals) {
        snprintf(buf, len, "%" PRIu64 ".%03u", ns / 1000,
                 (unsigned int)(ns % 1000));
        buf[strlen(buf) - (3 - decimals)] = 0;
    } else {
        snprintf(buf, len, "%" PRIu64, ns / 1000);
    }
}

static void put_title(FILE *f, const char *s)
{
    fputs("<title>", f);
    put_escaped(f, s);
    fputs("</title>", f);
}

static void put_label(FILE *f, double x, double y, const char *anchor,
                      const char *attrs, const char *s)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y,
            anchor, attrs);
    put_escaped(f, s);
    fputs("</text>\n", f);
}

/*
 * Neighbouring dispatch indices get far-apart hues (golden angle steps)
 * and one of three lightnesses, so a dozen concurrent dispatches stay
 * distinguishable.
 */
static void put_dispatch_fill(FILE *f, uint32_t dispatch)
{
    if (dispatch == VMGPU_TRACE_NONE) {
        fputs("fill=\"#999999\"", f);
        return;
    }
    fprintf(f, "fill=\"hsl(%u,62%%,%u%%)\"", (dispatch * 137u) % 360u,
            42u + (dispatch % 3u) * 11u);
}

/* A tick step of 1, 2 or 5 times a power of ten: about 8 ticks. */
static uint64_t tick_step(uint64_t span)
{
    uint64_t step = 1, raw = span / 8;

    for (;;) {
        if (step >= raw) {
            return step;
        }
        if (2 * step >= raw) {
            return 2 * step;
        }
        if (5 * step >= raw) {
            return 5 * step;
        }
        step *= 10;
    }
}

static void put_axis(const struct svg *s, int bottom)
{
    uint64_t step = tick_step(s->span), t;
    unsigned int decimals = step >= 1000 ? 0 : step >= 100 ? 1
                                           : step >= 10    ? 2
                                                           : 3;
    char buf[48];

    put_label(s->f, LABEL_W - 8, TOP_H - 10, "end", "",
              "device time (us)");
    fprintf(s->f,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
            "stroke=\"#444444\"/>\n",
            LABEL_W, TOP_H - 4, LABEL_W + PLOT_W, TOP_H - 4);
    for (t = (s->t0 + step - 1) / step * step; t <= s->t0 + s->span;
         t += step) {
        double x = x_of(s, t);

        fprintf(s->f,
                "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
                "stroke=\"#dddddd\"/>\n",
                x, TOP_H - 8, x, bottom);
        fmt_us(buf, sizeof(buf), t, decimals);
        put_label(s->f, x, TOP_H - 10, "middle", "", buf);
    }
}

/* Where each track is drawn; commands are left to the JSON. */
struct row {
    int y, h;               /* h == 0: not drawn */
    int band;               /* lane 0 of an SM: the height of all its lanes */
};

/* Lay the tracks out from @y; returns the y below the last one. */
static int layout_rows(const struct vg_trace_layout *l, struct row *rows,
                       int y)
{
    size_t i, j;

    for (i = 0; i < l->ntracks; i++) {
        const struct vg_trace_track *t = &l->tracks[i];

        rows[i].h = 0;
        if (t->index == 0) {
            y += GPU_H;
        }
        if (t->group == VG_TRACE_GROUP_CP) {
            rows[i].y = y;
            rows[i].h = CP_H;
            y += CP_H + SM_GAP;
        } else if (t->group == VG_TRACE_GROUP_SLOT) {
            /* The GPU's slots: one band of rows above its SMs. */
            for (j = i;
                 j < l->ntracks && l->tracks[j].group == VG_TRACE_GROUP_SLOT &&
                 l->tracks[j].gpu == t->gpu;
                 j++) {
                rows[j].y = y + (int)(j - i) * SLOT_H;
                rows[j].h = SLOT_H - 1;
                rows[j].band = 0;
            }
            rows[i].band = (int)(j - i) * SLOT_H;
            y += rows[i].band + SM_GAP;
            i = j - 1;
        } else if (t->group == VG_TRACE_GROUP_SM) {
            int lanes = 1, band;

            for (j = i + 1; j < l->ntracks &&
                            l->tracks[j].group == VG_TRACE_GROUP_SM &&
                            l->tracks[j].gpu == t->gpu &&
                            l->tracks[j].sm == t->sm;
                 j++) {
                lanes++;
            }
            band = lanes * LANE_PITCH > SM_MIN_H ? lanes * LANE_PITCH
                                                 : SM_MIN_H;
            for (j = i; j < i + lanes; j++) {
                rows[j].y = y + (int)(j - i) * LANE_PITCH;
                rows[j].h = LANE_PITCH - 1;
                rows[j].band = 0;
            }
            rows[i].band = band;
            y += band + SM_GAP;
            i += lanes - 1;
        }
    }
    return y;
}

/* GPU headings, CP labels, SM bands and labels. */
static void put_track_labels(const struct svg *s,
                             const struct vg_trace_layout *l,
                             const struct row *rows)
{
    size_t i;
    char buf[64];
    unsigned int sm_band = 0;

    for (i = 0; i < l->ntracks; i++) {
        const struct vg_trace_track *t = &l->tracks[i];

        if (t->index == 0) {
            snprintf(buf, sizeof(buf), "GPU %u", t->gpu);
            put_label(s->f, 4, rows[i].y - 6, "start",
                      " font-weight=\"bold\" font-size=\"13\"", buf);
            fprintf(s->f,
                    "<line x1=\"0\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                    "stroke=\"#888888\"/>\n",
                    rows[i].y - GPU_H + 2, WIDTH, rows[i].y - GPU_H + 2);
            sm_band = 0;
        }
        if (!rows[i].h) {
            continue;
        }
        if (t->group == VG_TRACE_GROUP_CP) {
            vg_trace_track_name(t, buf, sizeof(buf));
            put_label(s->f, LABEL_W - 8, rows[i].y + 12, "end", "", buf);
        } else if (t->group == VG_TRACE_GROUP_SLOT) {
            if (rows[i].band) {
                fprintf(s->f,
                        "<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" "
                        "fill=\"#e8eef6\"/>\n",
                        rows[i].y - 1, WIDTH, rows[i].band + 1);
                put_label(s->f, 4, rows[i].y + 9, "start",
                          " font-size=\"10\" fill=\"#405070\"", "task table");
            }
            vg_trace_track_name(t, buf, sizeof(buf));
            put_label(s->f, LABEL_W - 8, rows[i].y + 8, "end",
                      " font-size=\"9\"", buf);
        } else if (rows[i].band) {
            /* Alternate shading tells an SM's lanes from the next SM's. */
            if (sm_band++ % 2 == 0) {
                fprintf(s->f,
                        "<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" "
                        "fill=\"#f2f2f2\"/>\n",
                        rows[i].y - 1, WIDTH, rows[i].band + 1);
            }
            snprintf(buf, sizeof(buf), "SM %u", t->sm);
            put_label(s->f, LABEL_W - 8, rows[i].y + 9, "end",
                      " font-size=\"10\"", buf);
        }
    }
}

/*
 * A task's stay in a slot (coloured by dispatch, outlined dashed if it
 * resumed after an eviction) or an eviction mark; the other TMD records
 * are left to the JSON.
 */
static void put_tmd(const struct svg *s, const struct vmgpu_trace_record *r,
                    const struct row *row, const struct vg_trace_track *t,
                    uint64_t slot_end)
{
    double x = x_of(s, r->start_ns);
    double w = 0;
    char a[24], b[24], title[160];

    fmt_us(a, sizeof(a), r->start_ns, 3);
    fmt_us(b, sizeof(b), slot_end, 3);
    if (vg_trace_slot_entry(r)) {
        w = x_of(s, slot_end) - x;
        bool resumed = r->aux == VMGPU_TRACE_TMD_RESUMED;

        w = w < 0.5 ? 0.5 : w;
        fprintf(s->f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" ",
                x, row->y, w, row->h);
        put_dispatch_fill(s->f, r->dispatch);
        fputs(resumed ? " stroke=\"#202020\" stroke-dasharray=\"3,2\">" : ">",
              s->f);
        snprintf(title, sizeof(title),
                 "d%u in slot %u%s at block %u, %s - %s us", r->dispatch, t->sm,
                 resumed ? ", resumed" : "", r->block, a, b);
        put_title(s->f, title);
        fputs("</rect>\n", s->f);
        if (w >= 18) {
            snprintf(title, sizeof(title), "d%u", r->dispatch);
            put_label(s->f, x + 3, row->y + 8, "start",
                      " font-size=\"9\" fill=\"#ffffff\"", title);
        }
    } else if (r->aux == VMGPU_TRACE_TMD_EVICTED) {
        fprintf(s->f,
                "<path d=\"M%.2f %dl-4 -5h8z M%.2f %dv%d\" fill=\"#d00000\" "
                "stroke=\"#d00000\">",
                x, row->y + 5, x, row->y, row->h);
        snprintf(title, sizeof(title),
                 "d%u evicted from slot %u at %s us, resumes at block %u",
                 r->dispatch, t->sm, a, r->block);
        put_title(s->f, title);
        fputs("</path>\n", s->f);
    }
}

static void put_record(const struct svg *s, const struct vmgpu_trace_record *r,
                       const struct row *row, const struct vg_trace_track *t)
{
    double x = x_of(s, r->start_ns);
    double w = x_of(s, vg_trace_end_ns(r)) - x;
    char a[24], b[24], title[160];

    fmt_us(a, sizeof(a), r->start_ns, 3);
    fmt_us(b, sizeof(b), vg_trace_end_ns(r), 3);
    /* Below half a pixel a span would not show. */
    w = w < 0.5 ? 0.5 : w;
    switch (r->kind) {
    case VMGPU_TRACE_BLOCK:
        fprintf(s->f,
                "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" ", x,
                row->y, w, row->h);
        put_dispatch_fill(s->f, r->dispatch);
        fputs(r->aux ? " stroke=\"#d00000\">" : ">", s->f);
        snprintf(title, sizeof(title),
                 "d%u b%u, SM %u lane %u, %s - %s us%s", r->dispatch,
                 r->block, r->sm, t->lane, a, b, r->aux ? ", faulted" : "");
        put_title(s->f, title);
        fputs("</rect>\n", s->f);
        break;
    case VMGPU_TRACE_PACKET:
        fprintf(s->f,
                "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
                "fill=\"%s\" stroke=\"#5f6b7a\" stroke-width=\"0.6\">",
                x, row->y + 2, w, row->h - 4,
                r->aux ? "#e8a0a0" : "#a9b4c2");
        snprintf(title, sizeof(title), "packet seqno %" PRIu64 "%s, %s - %s us",
                 r->seqno, r->aux ? " (failed)" : "", a, b);
        put_title(s->f, title);
        fputs("</rect>\n", s->f);
        break;
    case VMGPU_TRACE_IRQ:
        fprintf(s->f,
                "<path d=\"M%.2f %dl-3.5 -6h7z\" fill=\"#202020\">", x,
                row->y + 6);
        snprintf(title, sizeof(title), "interrupt 0x%x at %s us", r->aux, a);
        put_title(s->f, title);
        fputs("</path>\n", s->f);
        break;
    case VMGPU_TRACE_ERROR:
        fprintf(s->f,
                "<rect x=\"%.2f\" y=\"%d\" width=\"2\" height=\"%d\" "
                "fill=\"#d00000\">",
                x - 1, row->y, row->h);
        snprintf(title, sizeof(title),
                 "error %s at %s us, seqno %" PRIu64 ", address 0x%" PRIx64,
                 vg_trace_fault_name(r->aux), a, r->seqno, r->value);
        put_title(s->f, title);
        fputs("</rect>\n", s->f);
        break;
    }
}

static int legend_height(uint64_t present, bool more)
{
    int items = __builtin_popcountll(present) + (more ? 1 : 0);
    int per_line = PLOT_W / LEGEND_ITEM_W;

    return items ? 20 + (items + per_line - 1) / per_line * 16 : 0;
}

static void put_legend(const struct svg *s, int y, uint64_t present,
                       bool more)
{
    int per_line = PLOT_W / LEGEND_ITEM_W, k = 0;
    unsigned int d;
    char buf[32];

    if (!present && !more) {
        return;
    }
    put_label(s->f, LABEL_W - 8, y + 28, "end", "", "dispatch");
    for (d = 0; d < LEGEND_MAX; d++) {
        int x = LABEL_W + k % per_line * LEGEND_ITEM_W;
        int yy = y + 18 + k / per_line * 16;

        if (!(present >> d & 1)) {
            continue;
        }
        fprintf(s->f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" ",
                x, yy);
        put_dispatch_fill(s->f, d);
        fputs("/>\n", s->f);
        snprintf(buf, sizeof(buf), "%u", d);
        put_label(s->f, x + 15, yy + 10, "start", "", buf);
        k++;
    }
    if (more) {
        put_label(s->f, LABEL_W + k % per_line * LEGEND_ITEM_W,
                  y + 28 + k / per_line * 16, "start", "", "...");
    }
}

int vg_trace_svg_write(const struct vmgpu_trace_record *recs, size_t n,
                       FILE *out)
{
    struct svg s = { .f = out };
    struct vg_trace_layout l;
    struct row *rows;
    uint64_t t1 = 0, present = 0;
    bool more = false;
    int bottom, height;
    char a[24], b[24], title[160];
    size_t i;

    if (vg_trace_layout_init(&l, recs, n)) {
        return -1;
    }
    rows = calloc(l.ntracks ? l.ntracks : 1, sizeof(*rows));
    if (!rows) {
        vg_trace_layout_destroy(&l);
        return -1;
    }
    for (i = 0; i < n; i++) {
        if (i == 0 || recs[i].start_ns < s.t0) {
            s.t0 = recs[i].start_ns;
        }
        if (vg_trace_end_ns(&recs[i]) > t1) {
            t1 = vg_trace_end_ns(&recs[i]);
        }
        if ((recs[i].kind == VMGPU_TRACE_BLOCK ||
             vg_trace_slot_entry(&recs[i])) &&
            recs[i].dispatch != VMGPU_TRACE_NONE) {
            if (recs[i].dispatch < LEGEND_MAX) {
                present |= 1ull << recs[i].dispatch;
            } else {
                more = true;
            }
        }
    }
    s.span = t1 > s.t0 ? t1 - s.t0 : 1;
    bottom = layout_rows(&l, rows, TOP_H);
    height = bottom + legend_height(present, more) + 8;

    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
            "font-size=\"11\">\n",
            WIDTH, height, WIDTH, height);
    fmt_us(a, sizeof(a), s.t0, 3);
    fmt_us(b, sizeof(b), t1, 3);
    snprintf(title, sizeof(title),
             "vmgpu device trace: %zu records, device time %s - %s us", n, a,
             b);
    put_title(out, title);
    fprintf(out, "\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
            WIDTH, height);
    put_label(out, 4, 16, "start", " font-size=\"13\"", title);
    if (n) {
        put_track_labels(&s, &l, rows);
        put_axis(&s, bottom);
    }
    for (i = 0; i < n; i++) {
        size_t t = l.track_of[i];

        if (!rows[t].h) {
            continue;
        }
        if (recs[i].kind == VMGPU_TRACE_TMD) {
            /* Stays first, eviction marks on top of them below. */
            if (vg_trace_slot_entry(&recs[i])) {
                put_tmd(&s, &recs[i], &rows[t], &l.tracks[t], l.slot_end[i]);
            }
        } else {
            put_record(&s, &recs[i], &rows[t], &l.tracks[t]);
        }
    }
    for (i = 0; i < n; i++) {
        size_t t = l.track_of[i];

        if (rows[t].h && recs[i].kind == VMGPU_TRACE_TMD &&
            recs[i].aux == VMGPU_TRACE_TMD_EVICTED && recs[i].wd_slot) {
            put_tmd(&s, &recs[i], &rows[t], &l.tracks[t], 0);
        }
    }
    put_legend(&s, bottom, present, more);
    fputs("</svg>\n", out);
    free(rows);
    vg_trace_layout_destroy(&l);
    return ferror(out) ? -1 : 0;
}
