// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fake embedding for device-model host tests (see testhost.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmgpu.h"
#include "testhost.h"
#include "vmgpu_cmd.h"

#define TH_PAGE		((uint64_t)VMGPU_PAGE_SIZE)

void th_die(const char *what)
{
	fprintf(stderr, "testhost: %s\n", what);
	abort();
}

static int th_dma_read(void *opaque, uint64_t addr, void *buf, uint64_t len)
{
	struct testhost *th = opaque;

	if (addr > th->mem_bytes || len > th->mem_bytes - addr)
		return -1;
	memcpy(buf, th->mem + addr, len);
	return 0;
}

static int th_dma_write(void *opaque, uint64_t addr, const void *buf,
			uint64_t len)
{
	struct testhost *th = opaque;

	if (addr > th->mem_bytes || len > th->mem_bytes - addr)
		return -1;
	memcpy(th->mem + addr, buf, len);
	return 0;
}

static uint8_t *th_map_page(void *opaque, uint64_t addr, bool write)
{
	struct testhost *th = opaque;

	if (addr % TH_PAGE || addr >= th->mem_bytes)
		return NULL;
	return th->mem + addr;
}

/* Both may be called from runner threads (test_threads): atomics. */
static void th_raise_irq(void *opaque, unsigned int gpu)
{
	struct testhost *th = opaque;
	unsigned int n;

	if (gpu < VMGPU_MAX_GPUS)
		__atomic_fetch_add(&th->irqs[gpu], 1, __ATOMIC_RELAXED);
	n = __atomic_fetch_add(&th->irq_log_len, 1, __ATOMIC_RELAXED);
	if (n < TH_MAX_IRQ_LOG)
		th->irq_log[n] = gpu;
	else
		__atomic_store_n(&th->irq_log_len, TH_MAX_IRQ_LOG,
				 __ATOMIC_RELAXED);
}

static void th_kick(void *opaque, unsigned int gpu)
{
	struct testhost *th = opaque;

	__atomic_fetch_add(&th->kicks, 1, __ATOMIC_RELAXED);
	if (th->kick_hook)
		th->kick_hook(th->hook_opaque, gpu);
}

struct testhost *th_new(uint64_t mem_bytes)
{
	struct testhost *th = calloc(1, sizeof(*th));

	if (!th)
		th_die("out of memory");
	th->mem = aligned_alloc(TH_PAGE, mem_bytes);
	if (!th->mem)
		th_die("out of memory");
	memset(th->mem, 0, mem_bytes);
	th->mem_bytes = mem_bytes;
	/* Bus page 0 stays unused, so 0 never looks like a real address. */
	th->next_page = TH_PAGE;
	th->host.opaque = th;
	th->host.dma_read = th_dma_read;
	th->host.dma_write = th_dma_write;
	th->host.map_page = th_map_page;
	th->host.raise_irq = th_raise_irq;
	th->host.kick = th_kick;
	return th;
}

void th_free(struct testhost *th)
{
	if (!th)
		return;
	vg_device_free(th->dev);
	free(th->mem);
	free(th);
}

struct vg_device *th_device_new(struct testhost *th,
				const struct vg_config *cfg,
				unsigned int gpus)
{
	struct vg_config c;

	if (cfg) {
		c = *cfg;
	} else {
		vg_config_defaults(&c);
		c.gpus = gpus;
	}
	th->dev = vg_device_new(&c, &th->host);
	if (!th->dev)
		th_die("vg_device_new failed");
	return th->dev;
}

uint64_t th_alloc(struct testhost *th, uint64_t bytes)
{
	uint64_t addr = th->next_page;
	uint64_t size = (bytes + TH_PAGE - 1) & ~(TH_PAGE - 1);

	if (!size)
		size = TH_PAGE;
	if (size > th->mem_bytes - addr)
		th_die("guest memory full");
	th->next_page += size;
	memset(th->mem + addr, 0, size);
	return addr;
}

void *th_ptr(struct testhost *th, uint64_t bus)
{
	if (bus >= th->mem_bytes)
		th_die("bus address out of range");
	return th->mem + bus;
}

static uint64_t th_get64(struct testhost *th, uint64_t bus)
{
	uint64_t v;

	memcpy(&v, th_ptr(th, bus), 8);
	return v;
}

static void th_put64(struct testhost *th, uint64_t bus, uint64_t v)
{
	memcpy(th_ptr(th, bus), &v, 8);
}

void th_as_init(struct testhost *th, struct th_as *as, uint64_t first_va)
{
	as->root = th_alloc(th, TH_PAGE);
	as->next_va = first_va;
}

/* Bus address of the leaf entry of @va, creating tables if @create. */
static uint64_t th_leaf(struct testhost *th, struct th_as *as, uint64_t va,
			bool create)
{
	uint64_t table = as->root;
	int level;

	for (level = VMGPU_PT_LEVELS - 1; level > 0; level--) {
		uint64_t e = table + VMGPU_PT_INDEX(va, level) * 8;
		uint64_t pte = th_get64(th, e);

		if (!(pte & VMGPU_PTE_VALID)) {
			if (!create)
				return 0;
			pte = th_alloc(th, TH_PAGE) | VMGPU_PTE_VALID;
			th_put64(th, e, pte);
		}
		table = pte & VMGPU_PTE_ADDR_MASK;
	}
	return table + VMGPU_PT_INDEX(va, 0) * 8;
}

void th_map(struct testhost *th, struct th_as *as, uint64_t va, uint64_t bus,
	    uint64_t pte_flags)
{
	th_put64(th, th_leaf(th, as, va, true),
		 (bus & VMGPU_PTE_ADDR_MASK) | VMGPU_PTE_VALID | pte_flags);
}

void th_unmap(struct testhost *th, struct th_as *as, uint64_t va)
{
	uint64_t e = th_leaf(th, as, va, false);

	if (e)
		th_put64(th, e, 0);
}

void th_place(struct testhost *th, struct th_as *as, uint64_t va,
	      uint64_t bytes, uint32_t location)
{
	uint64_t end = va + bytes, e;

	for (va &= ~(uint64_t)(TH_PAGE - 1); va < end; va += TH_PAGE) {
		e = th_leaf(th, as, va, false);
		if (e)
			th_put64(th, e, (th_get64(th, e) & ~VMGPU_PTE_LOC_MASK) |
					VMGPU_PTE_LOC(location));
	}
}

uint64_t th_as_alloc(struct testhost *th, struct th_as *as, uint64_t bytes,
		     uint64_t pte_flags)
{
	uint64_t pages = (bytes + TH_PAGE - 1) / TH_PAGE, i;
	uint64_t va = as->next_va, bus;

	if (!pages)
		pages = 1;
	bus = th_alloc(th, pages * TH_PAGE);
	for (i = 0; i < pages; i++)
		th_map(th, as, va + i * TH_PAGE, bus + i * TH_PAGE, pte_flags);
	/* One unmapped guard page between allocations. */
	as->next_va += (pages + 1) * TH_PAGE;
	return va;
}

void *th_va(struct testhost *th, struct th_as *as, uint64_t va)
{
	uint64_t e = th_leaf(th, as, va, false), pte;

	if (!e)
		return NULL;
	pte = th_get64(th, e);
	if (!(pte & VMGPU_PTE_VALID))
		return NULL;
	return th_ptr(th, (pte & VMGPU_PTE_ADDR_MASK) + (va & (TH_PAGE - 1)));
}

void th_wr(struct testhost *th, unsigned int gpu, uint32_t off, uint32_t v)
{
	vg_device_mmio_write(th->dev, VMGPU_GPU_REGS(gpu) + off, v);
}

uint32_t th_rd(struct testhost *th, unsigned int gpu, uint32_t off)
{
	return vg_device_mmio_read(th->dev, VMGPU_GPU_REGS(gpu) + off);
}

uint64_t th_rd64(struct testhost *th, unsigned int gpu, uint32_t off_lo)
{
	uint64_t lo = th_rd(th, gpu, off_lo);

	return lo | (uint64_t)th_rd(th, gpu, off_lo + 4) << 32;
}

void th_gpu_setup(struct testhost *th, unsigned int gpu, uint32_t entries)
{
	uint64_t ring = th_alloc(th, (uint64_t)entries * VMGPU_RING_ENTRY_SIZE);
	uint64_t fence = th_alloc(th, 8);

	th->ring_base[gpu] = ring;
	th->ring_entries[gpu] = entries;
	th->fence_addr[gpu] = fence;
	th_gpu_program(th, gpu);
}

void th_gpu_program(struct testhost *th, unsigned int gpu)
{
	uint64_t ring = th->ring_base[gpu], fence = th->fence_addr[gpu];

	th->ring_tail[gpu] = 0;
	th_wr(th, gpu, VMGPU_GPU_RING_BASE_LO, (uint32_t)ring);
	th_wr(th, gpu, VMGPU_GPU_RING_BASE_HI, ring >> 32);
	th_wr(th, gpu, VMGPU_GPU_RING_ENTRIES, th->ring_entries[gpu]);
	th_wr(th, gpu, VMGPU_GPU_FENCE_ADDR_LO, (uint32_t)fence);
	th_wr(th, gpu, VMGPU_GPU_FENCE_ADDR_HI, fence >> 32);
	th_wr(th, gpu, VMGPU_GPU_INT_MASK, ~0u);
	th_wr(th, gpu, VMGPU_GPU_CONTROL, VMGPU_CTRL_ENABLE);
}

void th_set_root(struct testhost *th, unsigned int gpu, unsigned int slot,
		 const struct th_as *as)
{
	th_wr(th, gpu, VMGPU_GPU_AS_ROOT_LO(slot), (uint32_t)as->root);
	th_wr(th, gpu, VMGPU_GPU_AS_ROOT_HI(slot), as->root >> 32);
}

void th_gpus_share_as(struct testhost *th, struct th_as *as,
		      uint64_t first_va, unsigned int gpus, uint32_t entries)
{
	unsigned int g;

	th_as_init(th, as, first_va);
	for (g = 0; g < gpus; g++) {
		th_gpu_setup(th, g, entries);
		th_set_root(th, g, 0, as);
	}
}

void th_push(struct testhost *th, unsigned int gpu, uint64_t cmdbuf_va,
	     uint32_t bytes, uint64_t seqno, uint32_t flags, uint32_t slot,
	     uint32_t levels)
{
	struct vmgpu_ring_entry e = {
		.cmdbuf_va = cmdbuf_va, .cmdbuf_bytes = bytes, .flags = flags,
		.seqno = seqno, .as_slot = slot, .min_level = (uint16_t)levels,
		.default_level = (uint16_t)(levels >> 16),
	};
	uint32_t tail = th->ring_tail[gpu];

	memcpy(th_ptr(th, th->ring_base[gpu] +
			  (uint64_t)tail * VMGPU_RING_ENTRY_SIZE), &e,
	       sizeof(e));
	th->ring_tail[gpu] = (tail + 1) & (th->ring_entries[gpu] - 1);
}

void th_doorbell(struct testhost *th, unsigned int gpu)
{
	th_wr(th, gpu, VMGPU_GPU_RING_TAIL, th->ring_tail[gpu]);
	th_wr(th, gpu, VMGPU_GPU_DOORBELL, 1);
}

uint64_t th_fence_mem(struct testhost *th, unsigned int gpu)
{
	return th_get64(th, th->fence_addr[gpu]);
}

void th_ack_all(struct testhost *th, unsigned int gpu)
{
	th_wr(th, gpu, VMGPU_GPU_INT_ACK, th_rd(th, gpu, VMGPU_GPU_INT_STATUS));
}

void th_cb_init(struct th_cmdbuf *cb)
{
	cb->n = 0;
}

void th_cb_raw(struct th_cmdbuf *cb, const uint32_t *words, uint32_t n)
{
	if (cb->n + n > sizeof(cb->w) / sizeof(cb->w[0]))
		th_die("command buffer full");
	memcpy(cb->w + cb->n, words, n * 4);
	cb->n += n;
}

void th_cb_nop(struct th_cmdbuf *cb)
{
	TH_CB_PUT(cb, vmgpu_encode_nop());
}

void th_cb_set_state(struct th_cmdbuf *cb, uint32_t key, uint32_t value)
{
	TH_CB_PUT(cb, vmgpu_encode_set_state(key, value));
}

uint32_t th_cb_dispatch(struct th_cmdbuf *cb, uint64_t code_va,
			uint64_t args_va, uint32_t args_bytes,
			const uint32_t grid[3], const uint32_t block[3],
			uint32_t shared, uint32_t priority)
{
	uint32_t at = cb->n;

	TH_CB_PUT(cb, vmgpu_encode_dispatch(code_va, args_va, args_bytes, grid,
					    block, NULL, NULL, shared,
					    priority));
	return at;
}

void th_cb_sync(struct th_cmdbuf *cb, uint32_t consumer, uint32_t producer)
{
	TH_CB_PUT(cb, vmgpu_encode_sync(consumer, producer));
}

void th_cb_barrier(struct th_cmdbuf *cb)
{
	TH_CB_PUT(cb, vmgpu_encode_barrier());
}

void th_cb_timestamp(struct th_cmdbuf *cb, uint64_t va)
{
	TH_CB_PUT(cb, vmgpu_encode_timestamp(va));
}

void th_cb_dispatch_span(struct th_cmdbuf *cb, uint64_t va)
{
	TH_CB_PUT(cb, vmgpu_encode_timestamp_dispatches(va));
}

void th_cb_write(struct th_cmdbuf *cb, uint64_t va, uint32_t value)
{
	TH_CB_PUT(cb, vmgpu_encode_write_value(va, value));
}

void th_cb_wait(struct th_cmdbuf *cb, uint64_t va, uint32_t op,
		uint32_t value, uint32_t mask)
{
	TH_CB_PUT(cb, vmgpu_encode_wait_value(va, op, value, mask));
}

void th_cb_copy(struct th_cmdbuf *cb, uint64_t src, uint64_t dst,
		uint32_t width, uint32_t height, uint32_t src_pitch,
		uint32_t dst_pitch)
{
	TH_CB_PUT(cb, vmgpu_encode_copy(src, dst, width, height, src_pitch,
					dst_pitch));
}

void th_cb_dep_signal(struct th_cmdbuf *cb, uint32_t dispatch, uint32_t epoch,
		      uint64_t table_va, uint32_t entries, uint32_t first_index,
		      const uint32_t region[3])
{
	TH_CB_PUT(cb, vmgpu_encode_dep_signal(dispatch, epoch, table_va,
					      entries, first_index, region));
}

void th_cb_dep_wait(struct th_cmdbuf *cb, uint32_t epoch, uint64_t table_va,
		    uint32_t entries, uint32_t first_index,
		    const uint32_t pgrid[3], const uint32_t cgrid[3],
		    const uint32_t cfirst[3], const uint32_t ccount[3],
		    const struct vmgpu_region_map *map)
{
	TH_CB_PUT(cb, vmgpu_encode_dep_wait(epoch, table_va, entries,
					    first_index, pgrid, cgrid, cfirst,
					    ccount, map));
}

void th_cb_end(struct th_cmdbuf *cb)
{
	TH_CB_PUT(cb, vmgpu_encode_end());
}

uint64_t th_upload(struct testhost *th, struct th_as *as, const void *data,
		   uint64_t bytes)
{
	uint64_t va = th_as_alloc(th, as, bytes,
				  VMGPU_PTE_READ | VMGPU_PTE_WRITE);
	uint64_t done = 0;

	/* Backing pages are contiguous: one walk suffices per page anyway. */
	while (done < bytes) {
		uint64_t n = TH_PAGE - ((va + done) & (TH_PAGE - 1));

		if (n > bytes - done)
			n = bytes - done;
		memcpy(th_va(th, as, va + done), (const uint8_t *)data + done,
		       n);
		done += n;
	}
	return va;
}

uint64_t th_cb_upload(struct testhost *th, struct th_as *as,
		      const struct th_cmdbuf *cb)
{
	return th_upload(th, as, cb->w, (uint64_t)cb->n * 4);
}

void th_cb_submit(struct testhost *th, struct th_as *as, unsigned int gpu,
		  const struct th_cmdbuf *cb, uint64_t seqno)
{
	th_push(th, gpu, th_cb_upload(th, as, cb), cb->n * 4, seqno,
		VMGPU_RING_F_IRQ, 0, 0);
	th_doorbell(th, gpu);
}

uint64_t th_kernel(struct testhost *th, struct th_as *as, const char *src)
{
	char err[256];
	void *image;
	size_t bytes;
	uint64_t va;

	if (vmgpu_asm_assemble(src, &image, &bytes, err, sizeof(err))) {
		fprintf(stderr, "testhost: assembly failed: %s\n", err);
		abort();
	}
	va = th_upload(th, as, image, bytes);
	free(image);
	return va;
}

uint64_t th_builtin(struct testhost *th, struct th_as *as, const char *name)
{
	const char *src = vmgpu_builtin_kernel_source(name);

	if (!src)
		th_die("no such built-in kernel");
	return th_kernel(th, as, src);
}

char *th_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 &&
	    !fseek(f, 0, SEEK_SET)) {
		text = malloc(n + 1);
		if (text && fread(text, 1, n, f) == (size_t)n) {
			text[n] = 0;
			if (len)
				*len = n;
		} else {
			free(text);
			text = NULL;
		}
	}
	fclose(f);
	return text;
}

const struct vmgpu_trace_record *
th_trace_match(struct vg_device *dev, uint8_t kind, unsigned int gpu,
	       uint64_t seqno, uint32_t dispatch, uint32_t block, uint32_t aux)
{
	const struct vmgpu_trace_record *r;
	size_t n, i;

	r = vg_device_trace_records(dev, &n);
	for (i = 0; i < n; i++)
		if (r[i].kind == kind && r[i].gpu == gpu &&
		    r[i].seqno == seqno && r[i].dispatch == dispatch &&
		    (block == VMGPU_TRACE_NONE || r[i].block == block) &&
		    (aux == VMGPU_TRACE_NONE || r[i].aux == aux))
			return &r[i];
	return NULL;
}

const struct vmgpu_trace_record *th_trace_find(struct vg_device *dev,
					       uint8_t kind, unsigned int gpu,
					       uint64_t seqno, uint32_t dispatch)
{
	return th_trace_match(dev, kind, gpu, seqno, dispatch,
			      VMGPU_TRACE_NONE, VMGPU_TRACE_NONE);
}
