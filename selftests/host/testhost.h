/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A fake embedding for device-model host tests: guest "physical" memory is
 * one host array whose bus address is the offset into it, interrupts are
 * recorded, and helpers build page tables, rings and command buffers the
 * way a driver would. Everything is prefixed th_ (this file is linked
 * into every host test).
 */
#ifndef VG_TESTHOST_H
#define VG_TESTHOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/device.h"
#include "vmgpu_region.h"

#define TH_MAX_IRQ_LOG	4096

struct testhost {
	struct vg_host host;
	uint8_t *mem;			/* guest memory, bus address = offset */
	uint64_t mem_bytes;
	uint64_t next_page;		/* bump allocator of guest pages */
	unsigned int irqs[VMGPU_MAX_GPUS];	/* raise_irq calls per GPU */
	unsigned int irq_log[TH_MAX_IRQ_LOG];	/* GPU of each call */
	unsigned int irq_log_len;
	unsigned int kicks;
	/* Called on every kick when set (runner threads of a test). */
	void (*kick_hook)(void *opaque, unsigned int gpu);
	void *hook_opaque;
	struct vg_device *dev;		/* set by th_device_new */
	/* per GPU: the ring the helpers set up */
	uint64_t ring_base[VMGPU_MAX_GPUS];
	uint32_t ring_entries[VMGPU_MAX_GPUS];
	uint32_t ring_tail[VMGPU_MAX_GPUS];
	uint64_t fence_addr[VMGPU_MAX_GPUS];
};

/* An address space (one slot) the test builds page tables for. */
struct th_as {
	uint64_t root;			/* bus address of the L2 table */
	uint64_t next_va;		/* bump allocator of GPU VAs */
};

/*
 * The kept trace's first record of @kind for dispatch @dispatch of packet
 * @seqno on @gpu, or NULL.
 */
const struct vmgpu_trace_record *th_trace_find(struct vg_device *dev,
					       uint8_t kind, unsigned int gpu,
					       uint64_t seqno, uint32_t dispatch);
/* The same, also of @block and with @aux (VMGPU_TRACE_NONE: any). */
const struct vmgpu_trace_record *
th_trace_match(struct vg_device *dev, uint8_t kind, unsigned int gpu,
	       uint64_t seqno, uint32_t dispatch, uint32_t block, uint32_t aux);
/* Print @what and abort: a test's setup cannot go on. */
void th_die(const char *what);
struct testhost *th_new(uint64_t mem_bytes);
void th_free(struct testhost *th);
/* Device with @cfg (NULL: defaults with @gpus GPUs) on this host. */
struct vg_device *th_device_new(struct testhost *th,
				const struct vg_config *cfg,
				unsigned int gpus);

/* Guest pages: allocate (zeroed, page aligned), host pointer of a bus addr. */
uint64_t th_alloc(struct testhost *th, uint64_t bytes);
void *th_ptr(struct testhost *th, uint64_t bus);

/* Page tables. @pte_flags: VMGPU_PTE_READ/WRITE | VMGPU_PTE_LOC(loc). */
void th_as_init(struct testhost *th, struct th_as *as, uint64_t first_va);
void th_map(struct testhost *th, struct th_as *as, uint64_t va, uint64_t bus,
	    uint64_t pte_flags);
/* Clear the leaf entry of @va (the page becomes unmapped). */
void th_unmap(struct testhost *th, struct th_as *as, uint64_t va);
/* New guest pages for @bytes mapped at the next free VA; returns the VA. */
uint64_t th_as_alloc(struct testhost *th, struct th_as *as, uint64_t bytes,
		     uint64_t pte_flags);
/* Host pointer of GPU VA @va (walks the tables), NULL if unmapped. */
/*
 * Set the location field (VMGPU_LOC_*) of the pages covering [@va, @va +
 * @bytes), as DRM_IOCTL_VMGPU_BO_PLACE does (before the GPUs use them).
 */
void th_place(struct testhost *th, struct th_as *as, uint64_t va,
	      uint64_t bytes, uint32_t location);
void *th_va(struct testhost *th, struct th_as *as, uint64_t va);

/* Registers. */
void th_wr(struct testhost *th, unsigned int gpu, uint32_t off, uint32_t v);
uint32_t th_rd(struct testhost *th, unsigned int gpu, uint32_t off);
uint64_t th_rd64(struct testhost *th, unsigned int gpu, uint32_t off_lo);
/* Ring of @entries, fence, all interrupts unmasked, enabled. */
void th_gpu_setup(struct testhost *th, unsigned int gpu, uint32_t entries);
/*
 * Program that ring, fence and mask again (after a reset), tail back to
 * entry 0, and enable the GPU.
 */
void th_gpu_program(struct testhost *th, unsigned int gpu);
/* Point slot @slot of @gpu at @as. */
void th_set_root(struct testhost *th, unsigned int gpu, unsigned int slot,
		 const struct th_as *as);
/*
 * GPUs 0 to @gpus - 1 set up (rings of @entries) with slot 0 pointing at
 * one address space @as, made here from @first_va: the usual start of a
 * test of several GPUs sharing memory.
 */
void th_gpus_share_as(struct testhost *th, struct th_as *as,
		      uint64_t first_va, unsigned int gpus, uint32_t entries);
/*
 * Write one ring entry at the tail (no doorbell); @levels: min_level in
 * the low 16 bits, default_level in the high 16.
 */
void th_push(struct testhost *th, unsigned int gpu, uint64_t cmdbuf_va,
	     uint32_t bytes, uint64_t seqno, uint32_t flags, uint32_t slot,
	     uint32_t levels);
/* Publish the tail and ring the doorbell. */
void th_doorbell(struct testhost *th, unsigned int gpu);
uint64_t th_fence_mem(struct testhost *th, unsigned int gpu);
/* Acknowledge every pending interrupt of @gpu. */
void th_ack_all(struct testhost *th, unsigned int gpu);

/* Command buffer builder. */
struct th_cmdbuf {
	uint32_t w[16384];
	uint32_t n;
};

void th_cb_init(struct th_cmdbuf *cb);
void th_cb_raw(struct th_cmdbuf *cb, const uint32_t *words, uint32_t n);
/* Append an encoded command (uapi/vmgpu_cmd.h's encoders). */
#define TH_CB_PUT(cb, cmd)                                                 \
	do {                                                               \
		__typeof__(cmd) c_ = (cmd);                                \
		th_cb_raw((cb), VMGPU_CMD_WORDS(&c_), VMGPU_CMD_NWORDS(&c_)); \
	} while (0)
void th_cb_nop(struct th_cmdbuf *cb);
void th_cb_set_state(struct th_cmdbuf *cb, uint32_t key, uint32_t value);
/* 1-D or 3-D dispatch; origin 0, grid_total = grid. Returns word offset. */
uint32_t th_cb_dispatch(struct th_cmdbuf *cb, uint64_t code_va,
			uint64_t args_va, uint32_t args_bytes,
			const uint32_t grid[3], const uint32_t block[3],
			uint32_t shared, uint32_t priority);
void th_cb_sync(struct th_cmdbuf *cb, uint32_t consumer, uint32_t producer);
void th_cb_barrier(struct th_cmdbuf *cb);
void th_cb_timestamp(struct th_cmdbuf *cb, uint64_t va);
/* TIMESTAMP of VMGPU_TIMESTAMP_DISPATCHES: two u64 at @va (16-aligned). */
void th_cb_dispatch_span(struct th_cmdbuf *cb, uint64_t va);
void th_cb_write(struct th_cmdbuf *cb, uint64_t va, uint32_t value);
void th_cb_wait(struct th_cmdbuf *cb, uint64_t va, uint32_t op,
		uint32_t value, uint32_t mask);
void th_cb_copy(struct th_cmdbuf *cb, uint64_t src, uint64_t dst,
		uint32_t width, uint32_t height, uint32_t src_pitch,
		uint32_t dst_pitch);
/* DEP_SIGNAL and DEP_WAIT (uapi/vmgpu_cmd.h's encoders' arguments). */
void th_cb_dep_signal(struct th_cmdbuf *cb, uint32_t dispatch, uint32_t epoch,
		      uint64_t table_va, uint32_t entries, uint32_t first_index,
		      const uint32_t region[3]);
void th_cb_dep_wait(struct th_cmdbuf *cb, uint32_t epoch, uint64_t table_va,
		    uint32_t entries, uint32_t first_index,
		    const uint32_t pgrid[3], const uint32_t cgrid[3],
		    const uint32_t cfirst[3], const uint32_t ccount[3],
		    const struct vmgpu_region_map *map);
void th_cb_end(struct th_cmdbuf *cb);
/* Copy the buffer into fresh GPU memory of @as; returns its VA. */
uint64_t th_cb_upload(struct testhost *th, struct th_as *as,
		      const struct th_cmdbuf *cb);
/*
 * Upload @cb into @as, put it on GPU @gpu's ring with @seqno (interrupt on
 * completion, address-space slot 0) and ring the doorbell.
 */
void th_cb_submit(struct testhost *th, struct th_as *as, unsigned int gpu,
		  const struct th_cmdbuf *cb, uint64_t seqno);

/* Assemble @src (or a built-in kernel's name) into GPU memory of @as. */
uint64_t th_kernel(struct testhost *th, struct th_as *as, const char *src);
uint64_t th_builtin(struct testhost *th, struct th_as *as, const char *name);
/* Copy @bytes of @data into fresh GPU memory; returns the VA. */
/*
 * The whole file at @path, NUL-terminated, malloc()ed; its length in
 * *@len if @len is not NULL. NULL if it cannot be read or is empty.
 */
char *th_read_file(const char *path, size_t *len);
uint64_t th_upload(struct testhost *th, struct th_as *as, const void *data,
		   uint64_t bytes);

#endif
