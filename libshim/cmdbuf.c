// SPDX-License-Identifier: MIT
/*
 * libvmgpu: the command-buffer builder. Commands are recorded as words
 * (uapi/vmgpu_hw.h); each dispatch's argument block is copied into an
 * argument heap buffer the builder owns, so every dispatch has its own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmgpu.h"
#include "vmgpu_drm.h"
#include "vmgpu_isa.h"
#include "grow.h"
#include "shim_internal.h"

#define HEAP_BYTES	(64 * 1024)
#define ARGS_ALIGN	16

int vmgpu_cmdbuf_create(struct vmgpu_device *dev, struct vmgpu_cmdbuf **out)
{
	struct vmgpu_cmdbuf *cb;

	if (!dev)
		return -EINVAL;
	if (!out)
		return shim_set_error(dev, -EINVAL, "cmdbuf_create: out is NULL");
	cb = calloc(1, sizeof(*cb));
	if (!cb) {
		*out = NULL;
		return shim_set_error(dev, -ENOMEM, "out of memory");
	}
	cb->dev = dev;
	vmgpu_cmd_checker_init(&cb->check, dev->max_dispatches);
	*out = cb;
	return 0;
}

void vmgpu_cmdbuf_reset(struct vmgpu_cmdbuf *cb)
{
	if (!cb)
		return;
	cb->nwords = 0;
	vmgpu_cmd_checker_init(&cb->check, cb->dev->max_dispatches);
	cb->ended = false;
	cb->nbos = 0;
	/* Keep the first heap for reuse, free the others. */
	while (cb->nheaps > 1)
		vmgpu_bo_destroy(cb->heaps[--cb->nheaps]);
	cb->heap_used = 0;
}

void vmgpu_cmdbuf_destroy(struct vmgpu_cmdbuf *cb)
{
	uint32_t i;

	if (!cb)
		return;
	for (i = 0; i < cb->nheaps; i++)
		vmgpu_bo_destroy(cb->heaps[i]);
	free(cb->heaps);
	free(cb->words);
	free(cb->bos);
	free(cb);
}

uint32_t vmgpu_cmdbuf_dispatch_count(const struct vmgpu_cmdbuf *cb)
{
	return cb ? cb->check.dispatches : 0;
}

uint32_t vmgpu_cmdbuf_bytes(const struct vmgpu_cmdbuf *cb)
{
	if (!cb)
		return 0;
	return 4 * (cb->nwords + (cb->ended ? 0 : VMGPU_CMD_LEN_END));
}

static int grow(struct vmgpu_cmdbuf *cb, void **arr, uint32_t *cap,
		uint32_t need, size_t elem)
{
	if (vmgpu_grow(arr, cap, need, elem))
		return shim_set_error(cb->dev, -ENOMEM, "out of memory");
	return 0;
}

/*
 * Append one command after the command format's rules (vmgpu_cmd.h, the
 * ones the driver and the device apply too) accept it.
 */
static int emit(struct vmgpu_cmdbuf *cb, const void *cmd, uint32_t words)
{
	struct vmgpu_cmd_checker next = cb->check;
	enum vmgpu_cmd_verdict verdict;
	const char *why;
	int ret;

	if (cb->ended)
		return shim_set_error(cb->dev, -EINVAL,
				      "command buffer already ended (raw END)");
	verdict = vmgpu_cmd_check(&next, cmd, words, &why);
	if (verdict && next.limit)
		return shim_set_error(cb->dev,
				      verdict == VMGPU_CMD_TOO_MANY ? -E2BIG :
								       -EINVAL,
				      "%s refused: %s: %llu, the limit is %llu",
				      vmgpu_cmd_name(VMGPU_CMD_OP(
					      *(const uint32_t *)cmd)),
				      why, (unsigned long long)next.value,
				      (unsigned long long)next.limit);
	if (verdict)
		return shim_set_error(cb->dev, -EINVAL, "%s refused: %s",
				      vmgpu_cmd_name(VMGPU_CMD_OP(
					      *(const uint32_t *)cmd)),
				      why);
	if (4ull * (cb->nwords + words + VMGPU_CMD_LEN_END) >
	    cb->dev->cmdbuf_max_bytes)
		return shim_set_error(cb->dev, -E2BIG,
				      "command buffer would be %llu bytes, the limit is %u",
				      4ull * (cb->nwords + words +
					      VMGPU_CMD_LEN_END),
				      cb->dev->cmdbuf_max_bytes);
	ret = grow(cb, (void **)&cb->words, &cb->cap_words,
		   cb->nwords + words, sizeof(uint32_t));
	if (ret)
		return ret;
	memcpy(cb->words + cb->nwords, cmd, 4 * words);
	cb->nwords += words;
	cb->check = next;
	return 0;
}

int vmgpu_cmdbuf_use(struct vmgpu_cmdbuf *cb, const struct vmgpu_bo *bo,
		     uint32_t flags)
{
	uint32_t i, f;
	int ret;

	if (!cb)
		return -EINVAL;
	if (!bo || bo->dev != cb->dev)
		return shim_set_error(cb->dev, -EINVAL,
				      "cmdbuf_use: buffer of another device");
	if (flags & ~(VMGPU_USE_READ | VMGPU_USE_EXPLICIT))
		return shim_set_error(cb->dev, -EINVAL,
				      "cmdbuf_use: unknown flags %#x", flags);
	f = (flags & VMGPU_USE_READ ? DRM_VMGPU_SUBMIT_BO_READ : 0) |
	    (flags & VMGPU_USE_EXPLICIT ? DRM_VMGPU_SUBMIT_BO_EXPLICIT : 0);
	for (i = 0; i < cb->nbos; i++) {
		if (cb->bos[i].handle == bo->handle) {
			/* A write wins; so does an explicit declaration. */
			cb->bos[i].flags = (cb->bos[i].flags & f &
					    DRM_VMGPU_SUBMIT_BO_READ) |
					   ((cb->bos[i].flags | f) &
					    DRM_VMGPU_SUBMIT_BO_EXPLICIT);
			return 0;
		}
	}
	ret = grow(cb, (void **)&cb->bos, &cb->cap_bos, cb->nbos + 1,
		   sizeof(*cb->bos));
	if (ret)
		return ret;
	cb->bos[cb->nbos].handle = bo->handle;
	cb->bos[cb->nbos].flags = f;
	cb->nbos++;
	return 0;
}

/* Copy an argument block into the heap; returns its GPU address. */
static int heap_put(struct vmgpu_cmdbuf *cb, const void *data, uint32_t bytes,
		    uint64_t *va)
{
	struct vmgpu_bo *heap;
	void *map;
	int ret;

	if (!cb->nheaps || cb->heap_used + bytes > HEAP_BYTES) {
		if (cb->nheaps && cb->heap_used == 0)
			return shim_set_error(cb->dev, -E2BIG,
					      "argument block too large");
		ret = grow(cb, (void **)&cb->heaps, &cb->cap_heaps,
			   cb->nheaps + 1, sizeof(*cb->heaps));
		if (ret)
			return ret;
		ret = vmgpu_bo_create(cb->dev, HEAP_BYTES,
				      VMGPU_BO_GPU_READ_ONLY,
				      VMGPU_PLACEMENT_SYSTEM, &heap);
		if (ret)
			return ret;
		cb->heaps[cb->nheaps++] = heap;
		cb->heap_used = 0;
	}
	heap = cb->heaps[cb->nheaps - 1];
	ret = vmgpu_bo_map(heap, &map);
	if (ret)
		return ret;
	ret = vmgpu_cmdbuf_use(cb, heap, VMGPU_USE_READ);
	if (ret)
		return ret;
	memcpy((char *)map + cb->heap_used, data, bytes);
	*va = heap->gpu_va + cb->heap_used;
	cb->heap_used += (bytes + ARGS_ALIGN - 1) & ~(uint64_t)(ARGS_ALIGN - 1);
	return 0;
}

/* Declare a typed dispatch's buffer arguments with their access. */
static int use_arg_buffers(struct vmgpu_cmdbuf *cb, const struct vmgpu_args *a)
{
	const struct vmgpu_bo *bos[VMGPU_MAX_PARAMS];
	uint32_t use[VMGPU_MAX_PARAMS], n, i;
	int ret = 0;

	n = shim_args_buffers(a, bos, use);
	for (i = 0; i < n && !ret; i++)
		ret = vmgpu_cmdbuf_use(cb, bos[i], use[i]);
	return ret;
}

static int check_word(struct vmgpu_cmdbuf *cb, const char *what,
		      const struct vmgpu_bo *bo, uint64_t offset,
		      uint32_t size);

/*
 * The DISPATCH command for @d, its argument block in the heap and its
 * buffers declared: what vmgpu_cmdbuf_dispatch() appends and
 * vmgpu_cmdbuf_dispatch_tmd() writes as a task descriptor.
 */
static int prepare_dispatch(struct vmgpu_cmdbuf *cb,
			    const struct vmgpu_dispatch_desc *d,
			    struct vmgpu_cmd_dispatch *out)
{
	struct vmgpu_cmd_dispatch c;
	struct vmgpu_exec_header h;
	struct vmgpu_cmd_checker probe;
	uint32_t grid[3], block[3], total[3];
	const void *args;
	uint32_t args_bytes;
	const char *why;
	int i, ret;

	if (!cb)
		return -EINVAL;
	if (!d || !d->kernel)
		return shim_set_error(cb->dev, -EINVAL,
				      "dispatch: no descriptor or kernel");
	if (d->kernel->dev != cb->dev)
		return shim_set_error(cb->dev, -EINVAL,
				      "dispatch: kernel of another device handle");
	args = d->args;
	args_bytes = d->args_bytes;
	if (d->typed_args) {
		if (d->args || d->args_bytes)
			return shim_set_error(cb->dev, -EINVAL,
					      "dispatch: both typed arguments and a raw argument block");
		ret = shim_args_block(cb, d->typed_args, d->kernel, &args,
				      &args_bytes);
		if (ret)
			return ret;
	}
	if (args_bytes && !args)
		return shim_set_error(cb->dev, -EINVAL,
				      "dispatch: %u argument bytes and no arguments",
				      args_bytes);
	if (d->kernel->map && d->kernel->size >= sizeof(h)) {
		memcpy(&h, d->kernel->map, sizeof(h));
		if (h.args_bytes != args_bytes)
			return shim_set_error(cb->dev, -EINVAL,
					      "dispatch: kernel takes %u argument bytes, got %u",
					      h.args_bytes, args_bytes);
	}
	/* 0 in a dimension means 1, and a whole index space by default. */
	for (i = 0; i < 3; i++) {
		grid[i] = d->grid[i] ? d->grid[i] : 1;
		block[i] = d->block[i] ? d->block[i] : 1;
		total[i] = d->grid_total[i] ? d->grid_total[i] :
			   d->origin[i] + grid[i];
	}
	/* Any aligned address stands in for the heap's until it passes. */
	c = vmgpu_encode_dispatch(d->kernel->gpu_va,
				  args_bytes ? ARGS_ALIGN : 0, args_bytes, grid,
				  block, d->origin, total, d->shared_bytes,
				  d->priority);
	c.flags = d->flags;
	/* The command's own rules first, before the heap is touched. */
	probe = cb->check;
	if (vmgpu_cmd_check(&probe, &c, VMGPU_CMD_LEN_DISPATCH, &why))
		return emit(cb, &c, VMGPU_CMD_LEN_DISPATCH);
	if (args_bytes) {
		ret = heap_put(cb, args, args_bytes, &c.args_va);
		if (ret)
			return ret;
	}
	ret = vmgpu_cmdbuf_use(cb, d->kernel, VMGPU_USE_READ);
	if (!ret && d->typed_args)
		ret = use_arg_buffers(cb, d->typed_args);
	*out = c;
	return ret;
}

int vmgpu_cmdbuf_dispatch(struct vmgpu_cmdbuf *cb,
			  const struct vmgpu_dispatch_desc *d)
{
	struct vmgpu_cmd_dispatch c;
	int ret;

	if (!cb)
		return -EINVAL;
	ret = prepare_dispatch(cb, d, &c);
	if (!ret)
		ret = emit(cb, &c, VMGPU_CMD_LEN_DISPATCH);
	if (ret)
		return ret;
	return (int)cb->check.dispatches - 1;
}

int vmgpu_cmdbuf_dispatch_tmd(struct vmgpu_cmdbuf *cb,
			      const struct vmgpu_dispatch_desc *d,
			      uint32_t quota, uint64_t sm_mask)
{
	struct vmgpu_cmd_launch_tmd l;
	struct vmgpu_cmd_dispatch c;
	struct vmgpu_tmd t;
	int i, ret;

	if (!cb)
		return -EINVAL;
	ret = prepare_dispatch(cb, d, &c);
	if (ret)
		return ret;
	memset(&t, 0, sizeof(t));
	t.code_va = c.code_va;
	t.args_va = c.args_va;
	t.args_bytes = c.args_bytes;
	t.flags = c.flags;
	for (i = 0; i < 3; i++) {
		t.grid[i] = c.grid[i];
		t.block[i] = c.block[i];
		t.origin[i] = c.origin[i];
		t.grid_total[i] = c.grid_total[i];
	}
	t.shared_bytes = c.shared_bytes;
	t.priority = c.priority;
	t.quota = quota;
	t.sm_mask = sm_mask;
	/* The descriptor lives in the argument heap (16-byte aligned). */
	l = vmgpu_encode_launch_tmd(0);
	ret = heap_put(cb, &t, sizeof(t), &l.tmd_va);
	if (!ret)
		ret = emit(cb, &l, VMGPU_CMD_LEN_LAUNCH_TMD);
	if (ret)
		return ret;
	return (int)cb->check.dispatches - 1;
}

int vmgpu_cmdbuf_skip_if(struct vmgpu_cmdbuf *cb, const struct vmgpu_bo *bo,
			 uint64_t offset, uint32_t op, uint32_t value,
			 uint32_t mask, uint32_t after, uint32_t skip)
{
	struct vmgpu_cmd_skip_if c;
	int ret;

	if (!cb)
		return -EINVAL;
	ret = check_word(cb, "skip_if", bo, offset, 4);
	if (!ret)
		ret = vmgpu_cmdbuf_use(cb, bo, VMGPU_USE_READ);
	if (ret)
		return ret;
	c = vmgpu_encode_skip_if(bo->gpu_va + offset, op, value, mask, after,
				 skip);
	return emit(cb, &c, VMGPU_CMD_LEN_SKIP_IF);
}

int vmgpu_cmdbuf_sync(struct vmgpu_cmdbuf *cb, uint32_t consumer,
		      uint32_t producer)
{
	struct vmgpu_cmd_sync c = vmgpu_encode_sync(consumer, producer);

	if (!cb)
		return -EINVAL;
	return emit(cb, &c, VMGPU_CMD_LEN_SYNC);
}

int vmgpu_cmdbuf_barrier(struct vmgpu_cmdbuf *cb)
{
	struct vmgpu_cmd_barrier c = vmgpu_encode_barrier();

	if (!cb)
		return -EINVAL;
	return emit(cb, &c, VMGPU_CMD_NWORDS(&c));
}

static int check_word(struct vmgpu_cmdbuf *cb, const char *what,
		      const struct vmgpu_bo *bo, uint64_t offset,
		      uint32_t size)
{
	if (!bo || bo->dev != cb->dev)
		return shim_set_error(cb->dev, -EINVAL, "%s: no buffer", what);
	if (offset % size || offset + size > bo->size || offset > bo->size)
		return shim_set_error(cb->dev, -EINVAL,
				      "%s: offset %llu misaligned or outside the buffer",
				      what, (unsigned long long)offset);
	return 0;
}

int vmgpu_cmdbuf_launch_tmd(struct vmgpu_cmdbuf *cb, const struct vmgpu_bo *bo,
			    uint64_t offset)
{
	struct vmgpu_cmd_launch_tmd c;
	int ret;

	if (!cb)
		return -EINVAL;
	ret = check_word(cb, "launch_tmd", bo, offset, 8);
	if (!ret && offset + VMGPU_TMD_BYTES > bo->size)
		ret = shim_set_error(cb->dev, -EINVAL,
				     "launch_tmd: a %u-byte TMD at %llu runs past the buffer",
				     VMGPU_TMD_BYTES,
				     (unsigned long long)offset);
	if (!ret)
		ret = vmgpu_cmdbuf_use(cb, bo, VMGPU_USE_READ);
	if (ret)
		return ret;
	c = vmgpu_encode_launch_tmd(bo->gpu_va + offset);
	ret = emit(cb, &c, VMGPU_CMD_LEN_LAUNCH_TMD);
	return ret ? ret : (int)cb->check.dispatches - 1;
}

int vmgpu_cmdbuf_timestamp(struct vmgpu_cmdbuf *cb, const struct vmgpu_bo *bo,
			   uint64_t offset)
{
	struct vmgpu_cmd_timestamp c;
	int ret;

	if (!cb)
		return -EINVAL;
	ret = check_word(cb, "timestamp", bo, offset, 8);
	if (!ret)
		ret = vmgpu_cmdbuf_use(cb, bo, 0);
	if (ret)
		return ret;
	c = vmgpu_encode_timestamp(bo->gpu_va + offset);
	return emit(cb, &c, VMGPU_CMD_LEN_TIMESTAMP);
}

int vmgpu_cmdbuf_dispatch_span(struct vmgpu_cmdbuf *cb,
			       const struct vmgpu_bo *bo, uint64_t offset)
{
	struct vmgpu_cmd_timestamp c;
	int ret;

	if (!cb)
		return -EINVAL;
	ret = check_word(cb, "dispatch span", bo, offset, 16);
	if (!ret)
		ret = vmgpu_cmdbuf_use(cb, bo, 0);
	if (ret)
		return ret;
	c = vmgpu_encode_timestamp_dispatches(bo->gpu_va + offset);
	return emit(cb, &c, VMGPU_CMD_LEN_TIMESTAMP);
}

int vmgpu_cmdbuf_copy(struct vmgpu_cmdbuf *cb, const struct vmgpu_bo *src,
		      uint64_t src_offset, const struct vmgpu_bo *dst,
		      uint64_t dst_offset, uint64_t bytes)
{
	struct vmgpu_copy_rect r = {
		.src_offset = src_offset, .dst_offset = dst_offset,
		.width_bytes = (uint32_t)bytes, .height = 1,
	};

	if (!cb)
		return -EINVAL;
	if (!bytes || bytes > UINT32_MAX)
		return shim_set_error(cb->dev, -EINVAL,
				      "copy: %llu bytes, 1..%u allowed",
				      (unsigned long long)bytes, UINT32_MAX);
	return vmgpu_cmdbuf_copy_rect(cb, src, dst, &r);
}

/* Bytes a copy spans on one side: the last row starts height - 1 pitches in. */
static uint64_t copy_extent(uint32_t width, uint32_t height, uint32_t pitch)
{
	return (uint64_t)(height - 1) * pitch + width;
}

/*
 * Check a copy of @r from @src to @dst, declare both buffers and encode
 * it as a COPY (COPY_ASYNC begins with the same words). 0 or an error.
 */
static int copy_checked(struct vmgpu_cmdbuf *cb, const char *what,
			const struct vmgpu_bo *src, const struct vmgpu_bo *dst,
			const struct vmgpu_copy_rect *r, struct vmgpu_cmd_copy *c)
{
	int ret;

	if (!src || src->dev != cb->dev || !dst || dst->dev != cb->dev || !r)
		return shim_set_error(cb->dev, -EINVAL, "%s: no buffer", what);
	if (!r->width_bytes || !r->height ||
	    (r->height > 1 && (r->src_pitch < r->width_bytes ||
			       r->dst_pitch < r->width_bytes)))
		return shim_set_error(cb->dev, -EINVAL,
				      "%s: empty, or a pitch below the row width",
				      what);
	if (r->src_offset > src->size ||
	    copy_extent(r->width_bytes, r->height, r->src_pitch) >
	    src->size - r->src_offset || r->dst_offset > dst->size ||
	    copy_extent(r->width_bytes, r->height, r->dst_pitch) >
	    dst->size - r->dst_offset)
		return shim_set_error(cb->dev, -EINVAL,
				      "%s: %u rows of %u bytes at %llu -> %llu run past a buffer",
				      what, r->height, r->width_bytes,
				      (unsigned long long)r->src_offset,
				      (unsigned long long)r->dst_offset);
	ret = vmgpu_cmdbuf_use(cb, src, VMGPU_USE_READ);
	if (!ret)
		ret = vmgpu_cmdbuf_use(cb, dst, 0);
	if (ret)
		return ret;
	*c = vmgpu_encode_copy(src->gpu_va + r->src_offset,
			       dst->gpu_va + r->dst_offset, r->width_bytes,
			       r->height, r->height > 1 ? r->src_pitch : 0,
			       r->height > 1 ? r->dst_pitch : 0);
	return 0;
}

int vmgpu_cmdbuf_copy_rect(struct vmgpu_cmdbuf *cb, const struct vmgpu_bo *src,
			   const struct vmgpu_bo *dst,
			   const struct vmgpu_copy_rect *r)
{
	struct vmgpu_cmd_copy c;
	int ret;

	if (!cb)
		return -EINVAL;
	ret = copy_checked(cb, "copy", src, dst, r, &c);
	if (ret)
		return ret;
	return emit(cb, &c, VMGPU_CMD_LEN_COPY);
}

int vmgpu_cmdbuf_write_value(struct vmgpu_cmdbuf *cb,
			     const struct vmgpu_bo *bo, uint64_t offset,
			     uint32_t value)
{
	struct vmgpu_cmd_write_value c;
	int ret;

	if (!cb)
		return -EINVAL;
	ret = check_word(cb, "write_value", bo, offset, 4);
	if (!ret)
		ret = vmgpu_cmdbuf_use(cb, bo, 0);
	if (ret)
		return ret;
	c = vmgpu_encode_write_value(bo->gpu_va + offset, value);
	return emit(cb, &c, VMGPU_CMD_LEN_WRITE_VALUE);
}

int vmgpu_cmdbuf_wait_value(struct vmgpu_cmdbuf *cb,
			    const struct vmgpu_bo *bo, uint64_t offset,
			    uint32_t op, uint32_t value, uint32_t mask)
{
	struct vmgpu_cmd_wait_value c;
	int ret;

	if (!cb)
		return -EINVAL;
	ret = check_word(cb, "wait_value", bo, offset, 4);
	if (!ret)
		ret = vmgpu_cmdbuf_use(cb, bo, VMGPU_USE_READ);
	if (ret)
		return ret;
	c = vmgpu_encode_wait_value(bo->gpu_va + offset, op, value, mask);
	return emit(cb, &c, VMGPU_CMD_LEN_WAIT_VALUE);
}

/* A dependency table of @cb's device, declared with @flags. */
static int use_dep_table(struct vmgpu_cmdbuf *cb, const char *what,
			 const struct vmgpu_dep_table *t, uint32_t flags)
{
	int ret;

	if (!t)
		return shim_set_error(cb->dev, -EINVAL, "%s: no table", what);
	ret = check_word(cb, what, t->bo, t->offset, VMGPU_DEP_ENTRY_BYTES);
	if (ret)
		return ret;
	if (!t->entries ||
	    t->entries > (t->bo->size - t->offset) / VMGPU_DEP_ENTRY_BYTES)
		return shim_set_error(cb->dev, -EINVAL,
				      "%s: %u entries at %llu do not fit the buffer",
				      what, t->entries,
				      (unsigned long long)t->offset);
	return vmgpu_cmdbuf_use(cb, t->bo, flags);
}

int vmgpu_cmdbuf_dep_signal(struct vmgpu_cmdbuf *cb, uint32_t dispatch,
			    uint32_t epoch, const struct vmgpu_dep_table *table,
			    uint32_t first_index, const uint32_t region[3])
{
	struct vmgpu_cmd_dep_signal c;
	int ret;

	if (!cb)
		return -EINVAL;
	if (!region)
		return shim_set_error(cb->dev, -EINVAL, "dep_signal: no region");
	ret = use_dep_table(cb, "dep_signal", table, 0);
	if (ret)
		return ret;
	c = vmgpu_encode_dep_signal(dispatch, epoch,
				    table->bo->gpu_va + table->offset,
				    table->entries, first_index, region);
	return emit(cb, &c, VMGPU_CMD_LEN_DEP_SIGNAL);
}

int vmgpu_cmdbuf_dep_wait(struct vmgpu_cmdbuf *cb, uint32_t epoch,
			  const struct vmgpu_dep_table *table,
			  uint32_t first_index, const uint32_t pgrid[3],
			  const uint32_t cgrid[3], const uint32_t cfirst[3],
			  const uint32_t ccount[3],
			  const struct vmgpu_region_map *map)
{
	struct vmgpu_cmd_dep_wait c;
	int ret;

	if (!cb)
		return -EINVAL;
	if (!pgrid || !cgrid || !cfirst || !ccount || !map)
		return shim_set_error(cb->dev, -EINVAL,
				      "dep_wait: a grid, box or map is missing");
	ret = use_dep_table(cb, "dep_wait", table, VMGPU_USE_READ);
	if (ret)
		return ret;
	c = vmgpu_encode_dep_wait(epoch, table->bo->gpu_va + table->offset,
				  table->entries, first_index, pgrid, cgrid,
				  cfirst, ccount, map);
	return emit(cb, &c, VMGPU_CMD_LEN_DEP_WAIT);
}

/* Entry @index of @t: inside the table, the table declared. */
static int use_dep_entry(struct vmgpu_cmdbuf *cb, const char *what,
			 const struct vmgpu_dep_table *t, uint32_t index,
			 uint32_t flags, uint64_t *va)
{
	int ret = use_dep_table(cb, what, t, flags);

	if (ret)
		return ret;
	if (index >= t->entries)
		return shim_set_error(cb->dev, -EINVAL,
				      "%s: entry %u outside the table of %u",
				      what, index, t->entries);
	*va = t->bo->gpu_va + t->offset;
	return 0;
}

static int copy_async_emit(struct vmgpu_cmdbuf *cb, const char *what,
			   const struct vmgpu_bo *src,
			   const struct vmgpu_bo *dst,
			   const struct vmgpu_copy_rect *r, uint32_t epoch,
			   const struct vmgpu_dep_ref *after,
			   const struct vmgpu_dep_ref *signal, uint32_t flags)
{
	struct vmgpu_cmd_copy_async c;
	struct vmgpu_cmd_copy rect;
	uint64_t after_va = 0, signal_va = 0;
	int ret;

	if ((after || signal) && !epoch)
		return shim_set_error(cb->dev, -EINVAL,
				      "%s: epoch 0 with an entry", what);
	ret = copy_checked(cb, what, src, dst, r, &rect);
	if (!ret && after)
		ret = use_dep_entry(cb, what, &after->table, after->index,
				    VMGPU_USE_READ, &after_va);
	if (!ret && signal)
		ret = use_dep_entry(cb, what, &signal->table, signal->index,
				    0, &signal_va);
	if (ret)
		return ret;
	c = vmgpu_encode_copy_async(&rect, epoch, after_va,
				    after ? after->index : 0, signal_va,
				    signal ? signal->index : 0);
	c.flags |= flags;
	return emit(cb, &c, VMGPU_CMD_LEN_COPY_ASYNC);
}

int vmgpu_cmdbuf_copy_async(struct vmgpu_cmdbuf *cb,
			    const struct vmgpu_bo *src,
			    const struct vmgpu_bo *dst,
			    const struct vmgpu_copy_rect *r, uint32_t epoch,
			    const struct vmgpu_dep_ref *after,
			    const struct vmgpu_dep_ref *signal)
{
	if (!cb)
		return -EINVAL;
	return copy_async_emit(cb, "copy_async", src, dst, r, epoch, after,
			       signal, 0);
}

int vmgpu_cmdbuf_replicate(struct vmgpu_cmdbuf *cb, const struct vmgpu_bo *bo,
			   const struct vmgpu_copy_rect *r, uint32_t epoch,
			   const struct vmgpu_dep_ref *after,
			   const struct vmgpu_dep_ref *signal)
{
	if (!cb)
		return -EINVAL;
	if (r && (r->src_offset != r->dst_offset ||
		  (r->height > 1 && r->src_pitch != r->dst_pitch)))
		return shim_set_error(cb->dev, -EINVAL,
				      "replicate: not in place (offsets or pitches differ)");
	return copy_async_emit(cb, "replicate", bo, bo, r, epoch, after,
			       signal, VMGPU_COPY_REPLICATE);
}

int vmgpu_cmdbuf_take(struct vmgpu_cmdbuf *cb, const struct vmgpu_take_desc *t)
{
	struct vmgpu_cmd_take c;
	uint64_t words;
	int ret;

	if (!cb)
		return -EINVAL;
	if (!t)
		return shim_set_error(cb->dev, -EINVAL, "take: no description");
	ret = check_word(cb, "take descriptor", t->tmd_bo, t->tmd_offset, 8);
	if (!ret && t->tmd_offset + VMGPU_TMD_BYTES > t->tmd_bo->size)
		ret = shim_set_error(cb->dev, -EINVAL,
				     "take: the descriptor runs past its buffer");
	if (!ret)
		ret = check_word(cb, "take words", t->take_bo, t->take_offset, 4);
	words = 4ull * vmgpu_region_portions(t->pgrid);
	if (!ret && (!words || t->take_offset + words > t->take_bo->size))
		ret = shim_set_error(cb->dev, -EINVAL,
				     "take: no portion grid, or its words run past their buffer");
	if (!ret)
		ret = use_dep_table(cb, "take", &t->table, 0);
	if (!ret)
		ret = vmgpu_cmdbuf_use(cb, t->tmd_bo, VMGPU_USE_READ);
	if (!ret)
		ret = vmgpu_cmdbuf_use(cb, t->take_bo, 0);
	if (ret)
		return ret;
	c = vmgpu_encode_take(t->epoch, t->tmd_bo->gpu_va + t->tmd_offset,
			      t->take_bo->gpu_va + t->take_offset,
			      t->table.bo->gpu_va + t->table.offset,
			      t->table.entries, t->signal_index, t->wait_index,
			      t->inflight, t->pgrid, &t->curve,
			      t->wait_index == VMGPU_TAKE_NO_WAIT ? NULL :
			      &t->map);
	return emit(cb, &c, VMGPU_CMD_LEN_TAKE);
}

int vmgpu_cmdbuf_set_state(struct vmgpu_cmdbuf *cb, uint32_t key,
			   uint32_t value)
{
	struct vmgpu_cmd_set_state c = vmgpu_encode_set_state(key, value);

	if (!cb)
		return -EINVAL;
	return emit(cb, &c, VMGPU_CMD_LEN_SET_STATE);
}

int vmgpu_cmdbuf_raw(struct vmgpu_cmdbuf *cb, const uint32_t *words,
		     uint32_t count)
{
	int ret;

	if (!cb)
		return -EINVAL;
	if (!words && count)
		return shim_set_error(cb->dev, -EINVAL, "raw: no words");
	ret = grow(cb, (void **)&cb->words, &cb->cap_words,
		   cb->nwords + count, sizeof(uint32_t));
	if (ret)
		return ret;
	memcpy(cb->words + cb->nwords, words, 4ull * count);
	cb->nwords += count;
	/*
	 * Raw words that end with END finish the packet themselves (tests of
	 * the driver's checks); any others leave the builder usable and END
	 * is appended at submission as usual.
	 */
	cb->ended = count &&
		    words[count - 1] == VMGPU_CMD_HEADER(VMGPU_CMD_END);
	return 0;
}
