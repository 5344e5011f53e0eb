// SPDX-License-Identifier: MIT
/*
 * vmgpu-stress: the checker, a process of its own: known kernels (fill,
 * saxpy, vecadd, pipelines, a cross-GPU dependency) on an innocent
 * context, every result compared bit for bit; and the checked fill that
 * the probes and the hang injector use too.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress.h"

/* ------------------------------------------------------------------ */
/* The checker                                                          */
/* ------------------------------------------------------------------ */

#define CN		8192	/* elements per buffer */
#define CGUARD		64	/* words past n that must stay untouched */
#define GUARD_WORD	0x7fc0dea1u

enum { CB_A, CB_B, CB_C, CB_Y, CB_NUM };
enum { CK_FILL, CK_SAXPY, CK_VECADD, CK_NUM };
static const char *const ck_names[CK_NUM] = { "fill", "saxpy", "vecadd" };

struct chk {
	struct vmgpu_device *dev;
	struct vmgpu_context *ctx;
	struct vmgpu_bo *k[CK_NUM], *b[CB_NUM];
	uint32_t *m[CB_NUM];
	uint32_t sync[2];
	unsigned int open_window;
	uint64_t rng;
	uint32_t gpus[16], ngpus;
	uint32_t *want;
};

static void chk_close(struct chk *c)
{
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (c->sync[i])
			vmgpu_syncobj_destroy(c->dev, c->sync[i]);
	for (i = 0; i < CK_NUM; i++)
		vmgpu_bo_destroy(c->k[i]);
	for (i = 0; i < CB_NUM; i++)
		vmgpu_bo_destroy(c->b[i]);
	vmgpu_context_destroy(c->ctx);
	vmgpu_device_close(c->dev);
	memset(c->k, 0, sizeof(c->k));
	memset(c->b, 0, sizeof(c->b));
	memset(c->m, 0, sizeof(c->m));
	c->sync[0] = c->sync[1] = 0;
	c->ctx = NULL;
	c->dev = NULL;
}

/* Everything the checker needs; -errno with @what set on failure. */
static int chk_open(struct chk *c, char *what, size_t wl)
{
	unsigned int i;
	void *img;
	size_t bytes;
	int ret;

	c->open_window = S->window;
	ret = vmgpu_device_open(0, &c->dev, what, wl);
	note(C_OPEN, ret);
	if (ret)
		return ret;
	for (i = 0; i < CK_NUM; i++) {
		assemble(vmgpu_builtin_kernel_source(ck_names[i]), &img, &bytes);
		ret = vmgpu_kernel_create(c->dev, img, bytes, &c->k[i]);
		free(img);
		note(C_BO_CREATE, ret);
		if (ret) {
			snprintf(what, wl, "kernel_create %s", ck_names[i]);
			return ret;
		}
	}
	for (i = 0; i < CB_NUM; i++) {
		ret = vmgpu_bo_create(c->dev, 4 * (CN + CGUARD), 0,
				      VMGPU_PLACEMENT_GPU(c->gpus[i % c->ngpus]),
				      &c->b[i]);
		note(C_BO_CREATE, ret);
		if (!ret) {
			ret = vmgpu_bo_map(c->b[i], (void **)&c->m[i]);
			note(C_MMAP, ret);
		}
		if (ret) {
			snprintf(what, wl, "buffer %u", i);
			return ret;
		}
	}
	for (i = 0; i < 2; i++) {
		ret = vmgpu_syncobj_create(c->dev, &c->sync[i]);
		note(C_SYNCOBJ_CREATE, ret);
		if (ret) {
			c->sync[i] = 0;
			snprintf(what, wl, "syncobj_create");
			return ret;
		}
	}
	ret = vmgpu_context_create(c->dev, VMGPU_PRIORITY_NORMAL, &c->ctx);
	note(C_CTX_CREATE, ret);
	if (ret)
		snprintf(what, wl, "context_create");
	return ret;
}

static float chk_float(struct chk *c)
{
	return (float)((int)(rnd(&c->rng) % 2001) - 1000) / 8.0f;
}

static void put_f(uint32_t *m, uint32_t i, float f)
{
	memcpy(&m[i], &f, 4);
}

static float get_f(const uint32_t *m, uint32_t i)
{
	float f;

	memcpy(&f, &m[i], 4);
	return f;
}

static void chk_desc(struct vmgpu_dispatch_desc *d, struct vmgpu_bo *k,
		     const void *args, uint32_t bytes, uint32_t n,
		     uint32_t block)
{
	memset(d, 0, sizeof(*d));
	d->kernel = k;
	d->args = args;
	d->args_bytes = bytes;
	d->block[0] = block;
	d->grid[0] = (n + block - 1) / block;
}

/* One packet: its dispatches into @cb, submitted on @gpu. */
static int chk_submit(struct chk *c, struct vmgpu_cmdbuf *cb, uint32_t gpu,
		      int in, int outi, char *what, size_t wl)
{
	struct vmgpu_sync is = { 0 }, os = { 0 };
	struct vmgpu_submit_info info = { .gpu = gpu };
	int ret;

	if (in >= 0) {
		is.handle = c->sync[in];
		info.in = &is;
		info.in_count = 1;
	}
	os.handle = c->sync[outi];
	info.out = &os;
	info.out_count = 1;
	ret = vmgpu_submit(c->ctx, cb, &info);
	note(C_SUBMIT, ret < 0 ? ret : 0);
	if (ret < 0) {
		vmgpu_error_message(c->dev, what, wl);
		return ret;
	}
	add(ST_PK_SUBMITTED);
	return 0;
}

static int chk_wait(struct chk *c, int i, uint32_t gpu, char *what, size_t wl)
{
	int ret = wait_sync(c->dev, c->sync[i], 30000);

	if (ret == -EINTR)
		return ret;
	if (ret) {
		snprintf(what, wl, "wait for the packet on GPU %u: %s", gpu,
			 strerror(-ret));
		return ret;
	}
	ret = sync_status(c->dev, c->sync[i]);
	if (ret != 1) {
		snprintf(what, wl, "packet on GPU %u ended with fence status %d (%s)",
			 gpu, ret, ret < 0 ? strerror(-ret) : "pending");
		return ret < 0 ? ret : -EBUSY;
	}
	add(ST_PK_COMPLETED);
	return 0;
}

/*
 * One checker job. 0 when verified; -errno for a failed call (described
 * in @what); 1 when a packet claimed success but its data is wrong.
 */
static int chk_job(struct chk *c, char *what, size_t wl)
{
	struct vmgpu_cmdbuf *cb[2] = { NULL, NULL };
	struct vmgpu_dispatch_desc d;
	struct vmgpu_context_status st;
	uint32_t kind = rnd(&c->rng) % 5, n = 1 + rnd(&c->rng) % CN, i, k;
	uint32_t block = 32u << (rnd(&c->rng) % 4), res, packets = 1;
	uint32_t g1 = c->gpus[rnd(&c->rng) % c->ngpus];
	uint32_t g2 = c->gpus[rnd(&c->rng) % c->ngpus];
	float alpha = (float)((int)(rnd(&c->rng) % 17) - 8) / 4.0f;
	struct { uint32_t n; float a; uint64_t x, y; } sx;
	struct { uint32_t n, pad; uint64_t a, b, c; } va;
	struct fill_args fa;
	int ret;

	if (kind == 4 && c->ngpus < 2)
		kind = 3;
	for (k = 0; k < CB_NUM; k++)
		for (i = 0; i < CN + CGUARD; i++)
			c->m[k][i] = GUARD_WORD;
	for (i = 0; i < n; i++) {
		put_f(c->m[CB_A], i, chk_float(c));
		put_f(c->m[CB_B], i, chk_float(c));
		put_f(c->m[CB_Y], i, chk_float(c));
	}
	res = kind == CK_FILL || kind == CK_VECADD ? CB_C : CB_Y;
	memcpy(c->want, c->m[res], 4 * (CN + CGUARD));
	fa = (struct fill_args){ vmgpu_bo_gpu_va(c->b[CB_C]), n,
				 (uint32_t)rnd(&c->rng), (uint32_t)rnd(&c->rng), 0 };
	sx.n = n;
	sx.a = alpha;
	sx.x = vmgpu_bo_gpu_va(c->b[kind == CK_SAXPY ? CB_A : CB_C]);
	sx.y = vmgpu_bo_gpu_va(c->b[CB_Y]);
	memset(&va, 0, sizeof(va));
	va.n = n;
	va.a = vmgpu_bo_gpu_va(c->b[CB_A]);
	va.b = vmgpu_bo_gpu_va(c->b[CB_B]);
	va.c = vmgpu_bo_gpu_va(c->b[CB_C]);
	for (i = 0; i < n; i++) {
		switch (kind) {
		case CK_FILL:
			c->want[i] = i * fa.mul + fa.add;
			break;
		case CK_SAXPY:
			put_f(c->want, i, fmaf(alpha, get_f(c->m[CB_A], i),
					       get_f(c->m[CB_Y], i)));
			break;
		case CK_VECADD:
			put_f(c->want, i, get_f(c->m[CB_A], i) +
					  get_f(c->m[CB_B], i));
			break;
		default:	/* vecadd then saxpy of its result */
			put_f(c->want, i, fmaf(alpha, get_f(c->m[CB_A], i) +
						      get_f(c->m[CB_B], i),
					       get_f(c->m[CB_Y], i)));
			break;
		}
	}

	for (k = 0; k < 2; k++) {
		ret = vmgpu_cmdbuf_create(c->dev, &cb[k]);
		if (ret) {
			snprintf(what, wl, "cmdbuf_create");
			goto out;
		}
		for (i = 0; i < CB_NUM; i++)
			vmgpu_cmdbuf_use(cb[k], c->b[i], 0);
	}
	switch (kind) {
	case CK_FILL:
		chk_desc(&d, c->k[CK_FILL], &fa, sizeof(fa), n, block);
		ret = vmgpu_cmdbuf_dispatch(cb[0], &d);
		break;
	case CK_SAXPY:
		chk_desc(&d, c->k[CK_SAXPY], &sx, sizeof(sx), n, block);
		ret = vmgpu_cmdbuf_dispatch(cb[0], &d);
		break;
	case CK_VECADD:
		chk_desc(&d, c->k[CK_VECADD], &va, sizeof(va), n, block);
		ret = vmgpu_cmdbuf_dispatch(cb[0], &d);
		break;
	case 3:		/* one packet, two dispatches, a SYNC between */
		chk_desc(&d, c->k[CK_VECADD], &va, sizeof(va), n, block);
		ret = vmgpu_cmdbuf_dispatch(cb[0], &d);
		if (ret >= 0)
			ret = vmgpu_cmdbuf_sync(cb[0], 1, 0);
		chk_desc(&d, c->k[CK_SAXPY], &sx, sizeof(sx), n, block);
		if (ret >= 0)
			ret = vmgpu_cmdbuf_dispatch(cb[0], &d);
		break;
	default:	/* two GPUs: the second waits for the first's syncobj */
		chk_desc(&d, c->k[CK_VECADD], &va, sizeof(va), n, block);
		ret = vmgpu_cmdbuf_dispatch(cb[0], &d);
		chk_desc(&d, c->k[CK_SAXPY], &sx, sizeof(sx), n, block);
		if (ret >= 0)
			ret = vmgpu_cmdbuf_dispatch(cb[1], &d);
		packets = 2;
		break;
	}
	if (ret < 0) {
		vmgpu_error_message(c->dev, what, wl);
		goto out;
	}
	ret = chk_submit(c, cb[0], g1, -1, 0, what, wl);
	if (!ret && packets == 2)
		ret = chk_submit(c, cb[1], g2, 0, 1, what, wl);
	if (!ret)
		ret = chk_wait(c, 0, g1, what, wl);
	if (!ret && packets == 2)
		ret = chk_wait(c, 1, g2, what, wl);
	if (ret)
		goto out;
	ret = vmgpu_context_query(c->ctx, &st);
	note(C_CTX_QUERY, ret);
	if (!ret && (st.banned || st.errors)) {
		snprintf(what, wl, "innocent context banned=%d errors=%u fault %#x on GPU %u",
			 st.banned, st.errors, st.fault, st.gpu);
		ret = -ECANCELED;
	}
	if (ret)
		goto out;
	for (i = 0; i < CN + CGUARD; i++) {
		if (c->m[res][i] != c->want[i]) {
			snprintf(what, wl,
				 "%s on GPU %u%s%u, n %u block %u: word %u is %#x, want %#x",
				 kind == 3 ? "vecadd+saxpy" : kind == 4 ?
				 "vecadd->saxpy" : ck_names[kind], g1,
				 packets == 2 ? " and " : "",
				 packets == 2 ? g2 : g1, n, block, i,
				 c->m[res][i], c->want[i]);
			ret = 1;
			goto out;
		}
	}
	for (k = 0; k < packets; k++)
		add(ST_PK_VERIFIED);
	add(ST_CHK_JOBS);
out:
	/* After the waits: the heaps the packets read die with the builders. */
	vmgpu_cmdbuf_destroy(cb[0]);
	vmgpu_cmdbuf_destroy(cb[1]);
	return ret;
}

int checker_main(void)
{
	struct chk c;
	char what[512];
	uint32_t g;
	int ret;

	role = "checker";
	memset(&c, 0, sizeof(c));
	c.rng = splitmix(cfg.seed ^ 0xc4ec4e7ull);
	for (g = S->num_gpus > 1 ? 1 : 0; g < S->num_gpus && c.ngpus < 16; g++)
		c.gpus[c.ngpus++] = g;
	c.want = calloc(CN + CGUARD, 4);
	if (!c.want)
		return 1;
	while (!S->stop) {
		unsigned int w0, w1;

		if (S->pause_req) {
			chk_close(&c);
			S->paused = 1;
			add(ST_CHK_PAUSES);
			while (S->pause_req && !S->stop)
				sleep_ms(20);
			S->paused = 0;
			continue;
		}
		w0 = S->window;
		what[0] = 0;
		if (c.dev && c.open_window != w0 && !(w0 & 1)) {
			chk_close(&c);	/* an event happened: start afresh */
			add(ST_CHK_REOPENS);
		}
		ret = c.dev ? 0 : chk_open(&c, what, sizeof(what));
		if (!ret)
			ret = chk_job(&c, what, sizeof(what));
		w1 = S->window;
		if (!ret || ret == -EINTR)
			continue;
		if (ret < 0 && ((w0 & 1) || w1 != w0 || c.open_window != w1)) {
			/* The job overlapped a lifecycle event: tolerated. */
			add(ST_CHK_TOLERATED);
			verbose("tolerated during an event: %s", what);
			chk_close(&c);
			sleep_ms(100);
			continue;
		}
		violation("checker: %s%s", what[0] ? what : strerror(-ret),
			  ret > 0 ? " (wrong result)" : "");
		chk_close(&c);
		sleep_ms(200);
	}
	chk_close(&c);
	return 0;
}

int fill_submit(struct vmgpu_device *dev, struct vmgpu_bo *k,
		       struct vmgpu_bo *o, uint32_t *m, uint32_t sync,
		       struct fillj *j, char *what, size_t wl)
{
	struct fill_args a = { vmgpu_bo_gpu_va(o), 256, 3, j->tag, 0 };
	struct vmgpu_submit_info info = { .gpu = j->gpu };
	struct vmgpu_sync os = { .handle = sync };
	struct vmgpu_dispatch_desc d;
	struct vmgpu_cmdbuf *cb = NULL;
	int ret;

	memset(m, 0, 4096);
	j->ctx = NULL;
	ret = vmgpu_context_create(dev, VMGPU_PRIORITY_NORMAL, &j->ctx);
	note(C_CTX_CREATE, ret);
	if (!ret)
		ret = vmgpu_cmdbuf_create(dev, &cb);
	if (!ret)
		ret = vmgpu_cmdbuf_use(cb, o, 0);
	chk_desc(&d, k, &a, sizeof(a), 256, 64);
	if (!ret)
		ret = vmgpu_cmdbuf_dispatch(cb, &d);
	info.out = &os;
	info.out_count = 1;
	if (ret >= 0) {
		ret = vmgpu_submit(j->ctx, cb, &info);
		note(C_SUBMIT, ret < 0 ? ret : 0);
	}
	if (ret < 0)
		vmgpu_error_message(dev, what, wl);
	else
		add(ST_PK_SUBMITTED);
	vmgpu_cmdbuf_destroy(cb);	/* the job keeps what it uses */
	return ret < 0 ? ret : 0;
}

int fill_finish(struct vmgpu_device *dev, uint32_t *m, uint32_t sync,
		       struct fillj *j, unsigned int timeout_ms, bool stoppable,
		       char *what, size_t wl)
{
	struct vmgpu_context_status st;
	uint32_t i;
	int ret;

	if (stoppable) {
		ret = wait_sync(dev, sync, timeout_ms);
	} else {
		ret = wait_signalled(dev, sync, (int64_t)timeout_ms * MS);
		note(C_SYNCOBJ_WAIT, ret);
	}
	if (ret) {
		snprintf(what, wl, "wait: %s", strerror(-ret));
		goto out;
	}
	ret = sync_status(dev, sync);
	if (ret != 1) {
		memset(&st, 0, sizeof(st));
		vmgpu_context_query(j->ctx, &st);
		snprintf(what, wl, "fence status %d (%s), context banned %d fault %#x",
			 ret, ret < 0 ? strerror(-ret) : "pending", st.banned,
			 st.fault);
		ret = ret < 0 ? ret : -EBUSY;
		goto out;
	}
	ret = 0;
	add(ST_PK_COMPLETED);
	for (i = 0; i < 256; i++) {
		if (m[i] != 3 * i + j->tag) {
			snprintf(what, wl, "word %u is %#x, want %#x", i, m[i],
				 3 * i + j->tag);
			ret = 1;
			goto out;
		}
	}
	add(ST_PK_VERIFIED);
out:
	vmgpu_context_destroy(j->ctx);
	j->ctx = NULL;
	return ret;
}
