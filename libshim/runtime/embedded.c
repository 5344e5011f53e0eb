// SPDX-License-Identifier: MIT
/*
 * libvmgpurt's embedded GPU back end: the vmgpu device model (the
 * qemu-device/core/ code QEMU runs) in the process itself, so that a
 * program on a plain host, without a VM or a driver, gets simulated vmgpu
 * GPUs (Documentation/runtime.rst, "The embedded device").
 *
 * The back end is the device's embedding (core/host.h) and its driver at
 * once: it owns the simulated guest memory (embedded_mem.c: pages, the
 * page tables of the one address space every GPU's slot 0 points at,
 * kernel code), sets up a ring and a fence per GPU, and runs each
 * dispatch as a packet DISPATCH, BARRIER, TIMESTAMP of the dispatch span, END:
 * doorbell, vg_device_run() until the fence, device time from the
 * timestamps, the fault from the GPU's error registers. Each buffer's
 * pages carry its GPU's location (VMGPU_PTE_LOC), as the driver's do.
 *
 * Every op takes the back end's mutex: the runtime calls one at a time
 * per runtime (rt->be_lock), but several runtimes may share a back end.
 * Nothing is global.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/trace.h"
#include "core/trace_svg.h"
#include "embedded.h"
#include "vmgpu/runtime.h"
#include "vmgpu_cmd.h"

#define EMB_RING		64		/* ring entries per GPU */
#define EMB_GPUS		4		/* gpus= when not given */
#define EMB_MEMORY_MB		1024		/* memory= when not given */
#define EMB_MEMORY_MIN		8
#define EMB_MEMORY_MAX		65536

struct emb_gpu {
	uint64_t ring, fence;			/* bus addresses */
	uint64_t cmd, args, stamp;		/* bus addresses, mapped */
	uint32_t tail;
	uint64_t seqno;
};

struct rt_embedded {
	pthread_mutex_t lock;
	struct vg_config cfg;
	uint32_t memory_mb;
	struct vg_host host;
	struct vg_device *dev;
	struct emb_mem mem;
	struct emb_gpu gpu[VMGPU_MAX_GPUS];
	char *trace_path;			/* trace=: kept records go here */
	char preset[32];			/* preset=, applied last */
	vg_setting_mask given;			/* settings named explicitly */
};

/* ---- The embedding: guest memory, interrupts, wake-ups ---- */

static int emb_dma_read(void *opaque, uint64_t addr, void *buf, uint64_t len)
{
	struct rt_embedded *e = opaque;

	if (addr > e->mem.bytes || len > e->mem.bytes - addr)
		return -1;
	memcpy(buf, e->mem.base + addr, len);
	return 0;
}

static int emb_dma_write(void *opaque, uint64_t addr, const void *buf,
			 uint64_t len)
{
	struct rt_embedded *e = opaque;

	if (addr > e->mem.bytes || len > e->mem.bytes - addr)
		return -1;
	memcpy(e->mem.base + addr, buf, len);
	return 0;
}

static uint8_t *emb_map_page(void *opaque, uint64_t addr, bool write)
{
	struct rt_embedded *e = opaque;

	if (addr % EMB_PAGE || addr >= e->mem.bytes)
		return NULL;
	return e->mem.base + addr;
}

/* run() waits for the fence itself: interrupts and kicks need nothing. */
static void emb_raise_irq(void *opaque, unsigned int gpu)
{
}

static void emb_kick(void *opaque, unsigned int gpu)
{
}

/* ---- The GPU ops ---- */

static uint32_t emb_rd(struct rt_embedded *e, uint32_t gpu, uint32_t off)
{
	return vg_device_mmio_read(e->dev, VMGPU_GPU_REGS(gpu) + off);
}

static void emb_wr(struct rt_embedded *e, uint32_t gpu, uint32_t off,
		   uint32_t v)
{
	vg_device_mmio_write(e->dev, VMGPU_GPU_REGS(gpu) + off, v);
}

/* The registers of GPU @gpu, as after power-on or a reset. */
static void emb_gpu_program(struct rt_embedded *e, uint32_t gpu)
{
	struct emb_gpu *g = &e->gpu[gpu];

	g->tail = 0;
	emb_wr(e, gpu, VMGPU_GPU_RING_BASE_LO, (uint32_t)g->ring);
	emb_wr(e, gpu, VMGPU_GPU_RING_BASE_HI, (uint32_t)(g->ring >> 32));
	emb_wr(e, gpu, VMGPU_GPU_RING_ENTRIES, EMB_RING);
	emb_wr(e, gpu, VMGPU_GPU_FENCE_ADDR_LO, (uint32_t)g->fence);
	emb_wr(e, gpu, VMGPU_GPU_FENCE_ADDR_HI, (uint32_t)(g->fence >> 32));
	emb_wr(e, gpu, VMGPU_GPU_INT_MASK, ~0u);
	emb_wr(e, gpu, VMGPU_GPU_AS_ROOT_LO(0), (uint32_t)e->mem.root);
	emb_wr(e, gpu, VMGPU_GPU_AS_ROOT_HI(0), (uint32_t)(e->mem.root >> 32));
	emb_wr(e, gpu, VMGPU_GPU_CONTROL, VMGPU_CTRL_ENABLE);
}

static int emb_count(void *be)
{
	struct rt_embedded *e = be;

	return (int)e->cfg.gpus;
}

static int emb_query(void *be, uint32_t gpu, struct vmgpu_rt_caps *c)
{
	struct rt_embedded *e = be;
	uint32_t shared = e->cfg.sm_shared_kb * 1024;

	if (gpu >= e->cfg.gpus)
		return -ENODEV;
	memset(c, 0, sizeof(*c));
	c->type = VMGPU_RT_TYPE_GPU;
	strcpy(c->vendor, "vmgpu");
	snprintf(c->name, sizeof(c->name), "vmgpu embedded GPU %u", gpu);
	c->isa_version = e->cfg.isa_version;
	c->compute_units = e->cfg.sms;
	c->warp_width = VMGPU_WARP_SIZE;
	c->clock_khz = e->cfg.clock_khz;
	/* what it may really allocate: the GPUs share the guest memory */
	c->local_mem_mb = e->cfg.local_mem_mb < e->memory_mb ?
			  e->cfg.local_mem_mb : e->memory_mb;
	c->shared_mem_per_block = shared < VMGPU_MAX_SHARED_BYTES ?
				  shared : VMGPU_MAX_SHARED_BYTES;
	c->max_block_threads = VMGPU_MAX_BLOCK_THREADS;
	c->fp64 = 0;
	c->host_bw_mbps = e->cfg.host_bw_mbps;
	c->host_lat_ns = e->cfg.host_lat_ns;
	c->peer_bw_mbps = e->cfg.link_bw_mbps;
	c->peer_lat_ns = e->cfg.link_lat_ns;
	return 0;
}

static int emb_op_alloc(void *be, uint32_t gpu, uint64_t bytes,
			uint64_t *gpu_va, void **host)
{
	struct rt_embedded *e = be;
	uint64_t bus;

	if (gpu >= e->cfg.gpus)
		return -ENODEV;
	pthread_mutex_lock(&e->lock);
	bus = rt_emb_mem_alloc(&e->mem, bytes,
			       EMB_RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(gpu)));
	pthread_mutex_unlock(&e->lock);
	if (!bus)
		return -ENOMEM;
	*gpu_va = EMB_VA0 + bus;
	*host = e->mem.base + bus;
	return 0;
}

static void emb_op_free(void *be, uint32_t gpu, uint64_t gpu_va)
{
	struct rt_embedded *e = be;
	uint32_t g;

	if (gpu_va < EMB_VA0)
		return;
	pthread_mutex_lock(&e->lock);
	/* then no GPU reaches the pages through its TLB any more */
	if (rt_emb_mem_free(&e->mem, gpu_va - EMB_VA0))
		for (g = 0; g < e->cfg.gpus; g++)
			emb_wr(e, g, VMGPU_GPU_MMU_INVALIDATE, 1u);
	pthread_mutex_unlock(&e->lock);
}

static int emb_kernel_load(void *be, uint32_t gpu, const void *image,
			   size_t bytes, uint64_t *code)
{
	struct rt_embedded *e = be;
	struct vmgpu_exec_header h;
	uint64_t bus;

	if (gpu >= e->cfg.gpus)
		return -ENODEV;
	if (!image || bytes < VMGPU_EXEC_HEADER_BYTES)
		return -EINVAL;
	vmgpu_exec_header_read(&h, image);
	if (!vmgpu_exec_header_valid(&h) || vmgpu_exec_file_bytes(&h) != bytes)
		return -EINVAL;
	pthread_mutex_lock(&e->lock);
	bus = rt_emb_mem_code(&e->mem, image, bytes);
	pthread_mutex_unlock(&e->lock);
	if (!bus)
		return -ENOMEM;
	*code = EMB_VA0 + bus;
	return 0;
}

static void emb_put_cmd(uint32_t *w, uint32_t *n, const uint32_t *words,
			uint32_t nwords)
{
	memcpy(w + *n, words, nwords * 4);
	*n += nwords;
}

#define EMB_PUT(w, n, cmd)                                                 \
	do {                                                               \
		__typeof__(cmd) c_ = (cmd);                                \
		emb_put_cmd((w), (n), VMGPU_CMD_WORDS(&c_),                \
			    VMGPU_CMD_NWORDS(&c_));                        \
	} while (0)

static int emb_run(void *be, uint32_t gpu, const struct vmgpu_rt_launch_desc *l,
		   uint64_t *device_ns, uint32_t *fault)
{
	struct rt_embedded *e = be;
	struct vmgpu_ring_entry re = { .flags = VMGPU_RING_F_IRQ };
	uint32_t w[EMB_PAGE / 4], n = 0, status;
	uint64_t t0, t1, stamp;
	struct emb_gpu *g;
	int r = 0;

	if (gpu >= e->cfg.gpus)
		return -ENODEV;
	g = &e->gpu[gpu];
	stamp = EMB_VA0 + g->stamp;
	if (l->args_bytes > VMGPU_MAX_ARGS_BYTES)
		return -E2BIG;
	if (l->args_bytes && !l->args)
		return -EINVAL;
	/* No arguments: no argument address either (the command's rule). */
	EMB_PUT(w, &n, vmgpu_encode_dispatch(l->code,
					     l->args_bytes ? EMB_VA0 + g->args :
							     0,
					     l->args_bytes, l->grid, l->block,
					     l->origin, l->grid_total,
					     l->shared_bytes, 0));
	EMB_PUT(w, &n, vmgpu_encode_barrier());
	/* the dispatch's first block issued .. last done, as traced */
	EMB_PUT(w, &n, vmgpu_encode_timestamp_dispatches(stamp));
	EMB_PUT(w, &n, vmgpu_encode_end());

	pthread_mutex_lock(&e->lock);
	if (l->args_bytes)
		memcpy(e->mem.base + g->args, l->args, l->args_bytes);
	memcpy(e->mem.base + g->cmd, w, n * 4);
	emb_mem_put64(&e->mem, g->stamp, 0);
	emb_mem_put64(&e->mem, g->stamp + 8, 0);
	re.cmdbuf_va = EMB_VA0 + g->cmd;
	re.cmdbuf_bytes = n * 4;
	re.seqno = ++g->seqno;
	memcpy(e->mem.base + g->ring + (uint64_t)g->tail * VMGPU_RING_ENTRY_SIZE,
	       &re, sizeof(re));
	g->tail = (g->tail + 1) & (EMB_RING - 1);
	emb_wr(e, gpu, VMGPU_GPU_RING_TAIL, g->tail);
	emb_wr(e, gpu, VMGPU_GPU_DOORBELL, 1);
	vg_device_run(e->dev);
	*fault = VMGPU_FAULT_NONE;
	status = emb_rd(e, gpu, VMGPU_GPU_INT_STATUS);
	if (status & VMGPU_INT_ERROR_MASK)
		*fault = emb_rd(e, gpu, VMGPU_GPU_ERR_CODE);
	emb_wr(e, gpu, VMGPU_GPU_INT_ACK, status);
	t0 = emb_mem_get64(&e->mem, g->stamp);
	t1 = emb_mem_get64(&e->mem, g->stamp + 8);
	if (emb_mem_get64(&e->mem, g->fence) != g->seqno) {
		/* stuck (waiting for what never comes): reset the GPU */
		emb_wr(e, gpu, VMGPU_GPU_RESET, 1);
		vg_device_run(e->dev);
		emb_gpu_program(e, gpu);
		r = -EIO;
	}
	pthread_mutex_unlock(&e->lock);
	*device_ns = t1 > t0 ? t1 - t0 : 0;
	return r;
}

static const struct vmgpu_rt_gpu_ops emb_ops = {
	.count = emb_count,
	.query = emb_query,
	.mem_alloc = emb_op_alloc,
	.mem_free = emb_op_free,
	.kernel_load = emb_kernel_load,
	.run = emb_run,
};

/* ---- Settings ---- */

static int emb_value(const char *name, const char *text, uint32_t lo,
		     uint32_t hi, uint32_t *out, char *err, size_t errlen)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(text, &end, 0);
	if (!*text || *end || errno || *text == '-' || *text == '+' ||
	    v > UINT32_MAX) {
		snprintf(err, errlen, "%s=%s: not a number (%s is %u..%u)",
			 name, text, name, lo, hi);
		return -EINVAL;
	}
	if (v < lo || v > hi) {
		snprintf(err, errlen, "%s=%llu out of range %u..%u", name, v,
			 lo, hi);
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

/* One "name=value" of @len bytes. */
static int emb_setting(struct rt_embedded *e, const char *item, size_t len,
		       char *err, size_t errlen)
{
	const struct vg_setting *s;
	char buf[4096], *value;
	size_t n, i;
	uint32_t v;
	int r;

	s = vg_settings(&n);
	if (len >= sizeof(buf)) {
		snprintf(err, errlen, "%.40s...: setting too long", item);
		return -EINVAL;
	}
	memcpy(buf, item, len);
	buf[len] = 0;
	value = strchr(buf, '=');
	if (!value) {
		snprintf(err, errlen, "%s: no value (name=value)", buf);
		return -EINVAL;
	}
	*value++ = 0;
	if (!strcmp(buf, "trace")) {
		if (!*value) {
			snprintf(err, errlen, "trace=: no file name");
			return -EINVAL;
		}
		free(e->trace_path);
		e->trace_path = strdup(value);
		if (!e->trace_path) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		return 0;
	}
	if (!strcmp(buf, "preset")) {
		if (!*value) {
			snprintf(err, errlen, "preset=: no preset name");
			return -EINVAL;
		}
		if (strlen(value) >= sizeof(e->preset)) {
			snprintf(err, errlen, "preset=%.40s...: no such preset",
				 value);
			return -EINVAL;
		}
		strcpy(e->preset, value);
		return 0;
	}
	if (!strcmp(buf, "memory"))
		return emb_value(buf, value, EMB_MEMORY_MIN, EMB_MEMORY_MAX,
				 &e->memory_mb, err, errlen);
	for (i = 0; i < n; i++)
		if (!strcmp(buf, s[i].name))
			break;
	if (i == n) {
		snprintf(err, errlen,
			 "%s: no such setting (the device's, as vmgpu-settings lists them, memory or trace)",
			 buf);
		return -EINVAL;
	}
	r = emb_value(buf, value, s[i].min, s[i].max, &v, err, errlen);
	if (!r) {
		memcpy((uint8_t *)&e->cfg + s[i].offset, &v, sizeof(v));
		e->given |= 1ull << i;
	}
	return r;
}

static int emb_parse(struct rt_embedded *e, const char *config, char *err,
		     size_t errlen)
{
	const char *p;

	vg_config_defaults(&e->cfg);
	e->cfg.gpus = EMB_GPUS;
	e->memory_mb = EMB_MEMORY_MB;
	if (!config)
		config = getenv("VMGPU_EMBEDDED");
	for (p = config; p && *p;) {
		size_t len = strcspn(p, ",");
		int r = len ? emb_setting(e, p, len, err, errlen) : 0;

		if (r)
			return r;
		p += len + (p[len] == ',');
	}
	/* A preset is the base: settings named beside it win, in any order. */
	if (e->preset[0] &&
	    vg_config_preset(&e->cfg, e->preset, e->given, err, errlen))
		return -EINVAL;
	if (vg_config_check(&e->cfg, err, errlen))
		return -EINVAL;
	return 0;
}

/* ---- The device trace ---- */

static bool emb_svg_name(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && !strcmp(path + n - 4, ".svg");
}

/* Called with e->lock held: no run adds records meanwhile. */
static int emb_trace_write(struct rt_embedded *e)
{
	const struct vmgpu_trace_record *recs;
	size_t n;
	FILE *f;
	int r;

	if (!e->trace_path || !e->dev)
		return 0;
	recs = vg_device_trace_records(e->dev, &n);
	f = fopen(e->trace_path, "w");
	if (!f) {
		r = -errno;
		goto fail;
	}
	r = emb_svg_name(e->trace_path) ? vg_trace_svg_write(recs, n, f) :
					  vg_trace_json_write(recs, n, f);
	if (fclose(f) || r)
		r = -EIO;
	if (!r)
		return 0;
fail:
	/* asked for by a setting, so the one place to say it failed */
	fprintf(stderr, "vmgpu embedded device: cannot write the trace %s: %s\n",
		e->trace_path, strerror(-r));
	return r;
}

int vmgpu_rt_embedded_trace_write(struct vmgpu_rt_backend *be)
{
	struct rt_embedded *e;
	int r;

	if (!be || be->ops != &emb_ops || !be->opaque)
		return -EINVAL;
	e = be->opaque;
	pthread_mutex_lock(&e->lock);
	r = emb_trace_write(e);
	pthread_mutex_unlock(&e->lock);
	return r;
}

/* ---- Opening and closing ---- */

void vmgpu_rt_embedded_close(struct vmgpu_rt_backend *be)
{
	struct rt_embedded *e;

	if (!be || be->ops != &emb_ops)
		return;
	e = be->opaque;
	be->ops = NULL;
	be->opaque = NULL;
	if (!e)
		return;
	emb_trace_write(e);
	if (e->dev)
		vg_device_free(e->dev);
	rt_emb_mem_fini(&e->mem);
	pthread_mutex_destroy(&e->lock);
	free(e->trace_path);
	free(e);
}

/* Ring, fence, command, argument and timestamp pages of GPU @gpu. */
static int emb_gpu_setup(struct rt_embedded *e, uint32_t gpu)
{
	struct emb_gpu *g = &e->gpu[gpu];

	g->ring = rt_emb_mem_pages(&e->mem, (EMB_RING * VMGPU_RING_ENTRY_SIZE +
					     EMB_PAGE - 1) / EMB_PAGE);
	g->fence = rt_emb_mem_pages(&e->mem, 1);
	g->cmd = rt_emb_mem_alloc(&e->mem, EMB_PAGE, EMB_RW);
	g->args = rt_emb_mem_alloc(&e->mem, VMGPU_MAX_ARGS_BYTES, EMB_RW);
	g->stamp = rt_emb_mem_alloc(&e->mem, EMB_PAGE, EMB_RW);
	if (!g->ring || !g->fence || !g->cmd || !g->args || !g->stamp)
		return -ENOMEM;
	emb_gpu_program(e, gpu);
	return 0;
}

int vmgpu_rt_embedded_open(const char *config, struct vmgpu_rt_backend *out,
			   char *err, size_t errlen)
{
	struct rt_embedded *e;
	char dummy[1];
	uint32_t gpu;
	int r;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = 0;
	if (!out) {
		snprintf(err, errlen, "no back end to fill");
		return -EINVAL;
	}
	out->ops = NULL;
	out->opaque = NULL;
	e = calloc(1, sizeof(*e));
	if (!e) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&e->lock, NULL);
	out->ops = &emb_ops;
	out->opaque = e;
	r = emb_parse(e, config, err, errlen);
	if (r)
		goto fail;
	r = rt_emb_mem_init(&e->mem, (uint64_t)e->memory_mb << 20);
	if (r) {
		snprintf(err, errlen, "memory=%u: cannot map the guest memory",
			 e->memory_mb);
		goto fail;
	}
	e->host = (struct vg_host){
		.opaque = e,
		.dma_read = emb_dma_read,
		.dma_write = emb_dma_write,
		.map_page = emb_map_page,
		.raise_irq = emb_raise_irq,
		.kick = emb_kick,
	};
	e->dev = vg_device_new(&e->cfg, &e->host);
	r = e->dev ? 0 : -ENOMEM;
	if (e->dev && e->trace_path)
		vg_device_trace_keep(e->dev, true);
	for (gpu = 0; !r && gpu < e->cfg.gpus; gpu++)
		r = emb_gpu_setup(e, gpu);
	if (!r)
		return 0;
	snprintf(err, errlen, "out of memory setting up %u GPUs", e->cfg.gpus);
fail:
	vmgpu_rt_embedded_close(out);
	return r;
}
