// SPDX-License-Identifier: MIT
/*
 * OpenCL C's printf on the host: the records a kernel appended to its
 * printf buffer (VMGPU_PRINTF_PARAM, vmgpu/compiler.h; the compiler's
 * side is printf.cpp) written out as C's printf would. C, beside the
 * compiler's C++: the runtime calls it, and nothing of LLVM is needed.
 *
 * The buffer is the device's memory, so any bytes may be in it: every
 * size is checked against the record and the buffer before it is read,
 * the format is parsed here and never given to the C library as it is
 * (each conversion is rebuilt from the parts parsed, with a width and
 * precision of at most VMGPU_PRINTF_MAX_FIELD), and a conversion the
 * record's argument does not match is written as its text.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmgpu.h"
#include "vmgpu/compiler.h"

struct pf_out {
	FILE *f;
	bool err;
};

static void out_bytes(struct pf_out *o, const void *s, size_t n)
{
	if (n && fwrite(s, 1, n, o->f) != n)
		o->err = true;
}

static void out_pad(struct pf_out *o, unsigned int n)
{
	static const char sp[16] = "                ";

	while (n) {
		unsigned int k = n < sizeof(sp) ? n : sizeof(sp);

		out_bytes(o, sp, k);
		n -= k;
	}
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* One argument of a record, checked. */
struct pf_arg {
	uint32_t kind, esize, count, bytes;
	const uint8_t *data;
};

/* A conversion as parsed. */
struct pf_conv {
	char flags[6];			/* each flag once */
	unsigned int width, prec;
	bool has_width, has_prec;
	unsigned int vec;		/* 0: a scalar */
	char len[3];			/* "", hh, h, hl, l */
	char conv;
};

/* Element @i of @a, zero-extended. */
static uint64_t elem(const struct pf_arg *a, uint32_t i)
{
	uint64_t v = 0;
	uint32_t k;

	for (k = 0; k < a->esize; k++)
		v |= (uint64_t)a->data[i * a->esize + k] << (8 * k);
	return v;
}

static int64_t sext(uint64_t v, unsigned int bytes)
{
	unsigned int sh = 64 - 8 * bytes;

	return bytes >= 8 ? (int64_t)v : (int64_t)(v << sh) >> sh;
}

/* snprintf of @fmt with one value, however long, to @o. */
#define EMIT(o, fmt, val)						\
	do {								\
		char small_[256], *big_;				\
		int n_ = snprintf(small_, sizeof(small_), fmt, val);	\
									\
		if (n_ < 0) {						\
			(o)->err = true;				\
		} else if ((size_t)n_ < sizeof(small_)) {		\
			out_bytes(o, small_, (size_t)n_);		\
		} else if ((big_ = malloc((size_t)n_ + 1))) {		\
			snprintf(big_, (size_t)n_ + 1, fmt, val);	\
			out_bytes(o, big_, (size_t)n_);			\
			free(big_);					\
		} else {						\
			(o)->err = true;				\
		}							\
	} while (0)

/* One element: a number or a pointer, as C's printf writes it. */
static void one(struct pf_out *o, const struct pf_conv *c,
		const struct pf_arg *a, uint32_t i)
{
	char fmt[48];
	int n = 0;
	uint64_t v = elem(a, i);
	const char *fl = c->flags;

	if (c->conv == 'p')	/* C leaves the other flags undefined */
		fl = strchr(c->flags, '-') ? "-" : "";
	n = snprintf(fmt, sizeof(fmt), "%%%s", fl);
	if (c->has_width)
		n += snprintf(fmt + n, sizeof(fmt) - (size_t)n, "%u", c->width);
	if (c->has_prec && c->conv != 'p')
		n += snprintf(fmt + n, sizeof(fmt) - (size_t)n, ".%u", c->prec);
	switch (c->conv) {
	case 'd':
	case 'i': {
		int64_t s = sext(v, a->esize);

		if (!strcmp(c->len, "hh"))
			s = (signed char)s;
		else if (!strcmp(c->len, "h"))
			s = (short)s;
		else if (strcmp(c->len, "l"))
			s = (int)s;
		snprintf(fmt + n, sizeof(fmt) - (size_t)n, "ll%c", c->conv);
		EMIT(o, fmt, (long long)s);
		return;
	}
	case 'o':
	case 'u':
	case 'x':
	case 'X':
		if (!strcmp(c->len, "hh"))
			v = (unsigned char)v;
		else if (!strcmp(c->len, "h"))
			v = (unsigned short)v;
		else if (strcmp(c->len, "l"))
			v = (unsigned int)v;
		snprintf(fmt + n, sizeof(fmt) - (size_t)n, "ll%c", c->conv);
		EMIT(o, fmt, (unsigned long long)v);
		return;
	case 'p':
		snprintf(fmt + n, sizeof(fmt) - (size_t)n, "p");
		EMIT(o, fmt, (void *)(uintptr_t)v);
		return;
	default: {	/* f F e E g G a A */
		double d;

		if (a->esize == 8) {
			memcpy(&d, &v, sizeof(d));
		} else {
			uint32_t w = (uint32_t)v;
			float fv;

			memcpy(&fv, &w, sizeof(fv));
			d = fv;
		}
		snprintf(fmt + n, sizeof(fmt) - (size_t)n, "%c", c->conv);
		EMIT(o, fmt, d);
		return;
	}
	}
}

/* %s or %c: the bytes, padded to the width. */
static void chars(struct pf_out *o, const struct pf_conv *c,
		  const uint8_t *s, uint32_t n)
{
	unsigned int pad = c->has_width && c->width > n ? c->width - n : 0;
	bool left = strchr(c->flags, '-');

	if (!left)
		out_pad(o, pad);
	out_bytes(o, s, n);
	if (left)
		out_pad(o, pad);
}

/* Does argument @a suit conversion @c? */
static bool fits(const struct pf_conv *c, const struct pf_arg *a)
{
	if (c->conv == 's')
		return a->kind == VMGPU_PRINTF_STRING;
	if (a->kind == VMGPU_PRINTF_STRING)
		return false;
	if (c->vec ? a->count != c->vec : a->count != 1)
		return false;
	if (c->conv == 'p' || c->conv == 'c')
		return true;
	if (strchr("fFeEgGaA", c->conv))
		return a->kind == VMGPU_PRINTF_FLOAT;
	return a->kind == VMGPU_PRINTF_INT || a->kind == VMGPU_PRINTF_POINTER;
}

static void convert(struct pf_out *o, const struct pf_conv *c,
		    const struct pf_arg *a)
{
	uint32_t i;

	if (c->conv == 's') {
		chars(o, c, a->data,
		      c->has_prec && c->prec < a->bytes ? c->prec : a->bytes);
		return;
	}
	if (c->conv == 'c') {
		uint8_t ch = (uint8_t)elem(a, 0);

		chars(o, c, &ch, 1);
		return;
	}
	for (i = 0; i < a->count; i++) {
		if (i)
			out_bytes(o, ",", 1);
		one(o, c, a, i);
	}
}

/* Parse a conversion at @f[*@i] (just after the '%'); false: not one. */
static bool parse(const uint8_t *f, uint32_t n, uint32_t *i,
		  struct pf_conv *c)
{
	uint32_t k = *i, nf = 0;

	memset(c, 0, sizeof(*c));
	while (k < n && f[k] && strchr("-+ #0", f[k])) {
		if (!strchr(c->flags, f[k]) && nf < 5)
			c->flags[nf++] = (char)f[k];
		k++;
	}
	while (k < n && f[k] >= '0' && f[k] <= '9') {
		c->has_width = true;
		c->width = c->width * 10 + (unsigned int)(f[k++] - '0');
		if (c->width > VMGPU_PRINTF_MAX_FIELD)
			return false;
	}
	if (k < n && f[k] == '.') {
		c->has_prec = true;
		for (k++; k < n && f[k] >= '0' && f[k] <= '9'; k++) {
			c->prec = c->prec * 10 + (unsigned int)(f[k] - '0');
			if (c->prec > VMGPU_PRINTF_MAX_FIELD)
				return false;
		}
	}
	if (k < n && f[k] == 'v') {
		for (k++; k < n && f[k] >= '0' && f[k] <= '9'; k++) {
			c->vec = c->vec * 10 + (unsigned int)(f[k] - '0');
			if (c->vec > 16)
				return false;
		}
		if (c->vec != 2 && c->vec != 3 && c->vec != 4 && c->vec != 8 &&
		    c->vec != 16)
			return false;
	}
	if (k + 1 < n && f[k] == 'h' && (f[k + 1] == 'h' || f[k + 1] == 'l')) {
		c->len[0] = 'h';
		c->len[1] = (char)f[k + 1];
		k += 2;
	} else if (k < n && (f[k] == 'h' || f[k] == 'l')) {
		c->len[0] = (char)f[k++];
	}
	if (k >= n || !f[k] || !strchr("diouxXfFeEgGaAcsp", f[k]))
		return false;
	if (c->vec && strchr("csp", f[k]))
		return false;
	c->conv = (char)f[k];
	*i = k + 1;
	return true;
}

/*
 * Record @r of @size bytes (at least the three head words, checked):
 * its arguments checked, then its format written with them. False: the
 * record is damaged (nothing of it written).
 */
static bool record(struct pf_out *o, const uint8_t *r, uint32_t size)
{
	uint32_t fbytes = rd32(r + 4), nargs = rd32(r + 8), pos, i, k;
	struct pf_arg args[VMGPU_PRINTF_MAX_ARGS];
	const uint8_t *f = r + 12;

	if (fbytes > size - 12 || nargs > VMGPU_PRINTF_MAX_ARGS)
		return false;
	pos = 12 + ((fbytes + 3) & ~3u);
	if (pos > size)
		return false;
	for (i = 0; i < nargs; i++) {
		struct pf_arg *a = &args[i];
		uint32_t d;

		if (size - pos < 8)
			return false;
		d = rd32(r + pos);
		a->kind = d & 0xff;
		a->esize = (d >> 8) & 0xff;
		a->count = d >> 16;
		a->bytes = rd32(r + pos + 4);
		pos += 8;
		if (a->bytes > size - pos ||
		    ((a->bytes + 3) & ~3u) > size - pos)
			return false;
		a->data = r + pos;
		pos += (a->bytes + 3) & ~3u;
		if (a->kind == VMGPU_PRINTF_STRING)
			continue;
		if (a->kind < VMGPU_PRINTF_INT || a->kind > VMGPU_PRINTF_POINTER ||
		    (a->esize != 1 && a->esize != 2 && a->esize != 4 &&
		     a->esize != 8) || !a->count || a->count > 16 ||
		    a->bytes != a->esize * a->count)
			return false;
	}
	for (i = 0, k = 0; i < fbytes;) {
		struct pf_conv c;
		uint32_t start = i, j;

		if (f[i] != '%') {
			for (j = i; j < fbytes && f[j] != '%'; j++)
				;
			out_bytes(o, f + i, j - i);
			i = j;
			continue;
		}
		i++;
		if (i < fbytes && f[i] == '%') {
			out_bytes(o, "%", 1);
			i++;
			continue;
		}
		if (!parse(f, fbytes, &i, &c) || k >= nargs ||
		    !fits(&c, &args[k])) {
			/* not a conversion, or no argument for it */
			if (i == start + 1) {
				out_bytes(o, "%", 1);
			} else {
				out_bytes(o, f + start, i - start);
				k++;
			}
			continue;
		}
		convert(o, &c, &args[k++]);
	}
	return true;
}

int vmgpu_printf_write(const void *buf, size_t bytes, FILE *out)
{
	struct pf_out o = { .f = out };
	const uint8_t *b = buf;
	uint64_t used, pos = 0;
	int n = 0;

	if (!buf || !out || bytes < VMGPU_PRINTF_HEADER_BYTES)
		return -EINVAL;
	used = rd32(b);
	if (used > bytes - VMGPU_PRINTF_HEADER_BYTES)
		used = bytes - VMGPU_PRINTF_HEADER_BYTES;
	b += VMGPU_PRINTF_HEADER_BYTES;
	/* one kernel's output in one piece, whoever else writes to @out */
	flockfile(out);
	while (used - pos >= 12) {
		uint32_t size = rd32(b + pos);

		/* 0: reserved and not written (a fault), or the end */
		if (size < 12 || size % 4 || size > used - pos)
			break;
		if (!record(&o, b + pos, size)) {
			n = -EINVAL;
			break;
		}
		pos += size;
		n++;
	}
	funlockfile(out);
	if (n < 0)
		return n;
	if (o.err)
		return -EIO;
	return n;
}
