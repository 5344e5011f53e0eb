// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmgpu: the submit ioctl. The command buffer is copied once, into a
 * kernel-owned buffer the device reads through the file's address space
 * (read-only), and every command of that copy is validated before the job
 * is queued on the context's scheduler entity for the GPU.
 */
#include <linux/capability.h>
#include <linux/dma-fence-chain.h>
#include <linux/dma-resv.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>

#include "vmgpu_cmd.h"
#include "vmgpu_drm.h"
#include "vmgpu_drv.h"
#include "vmgpu_trace.h"

struct vmgpu_validate {
	struct drm_device *drm;
	struct vmgpu_job *job;
};

/* Is [va, va + len) inside one buffer of the job (writable if @write)? */
static bool vmgpu_va_ok(struct vmgpu_validate *v, u64 va, u64 len, bool write)
{
	struct vmgpu_job *job = v->job;
	u32 i;

	if (!len)
		return false;
	for (i = 0; i < job->bo_count; i++) {
		struct vmgpu_mapping *map = job->bos[i].map;
		u64 start = map->node.start;
		u64 size = map->bo->base.base.size;

		if (va < start || va - start >= size || len > size - (va - start))
			continue;
		if (write && (map->read_only || !job->bos[i].write))
			return false;
		return true;
	}
	return false;
}

#define vmgpu_reject(v, off, fmt, ...) ({ \
	drm_dbg((v)->drm, "submit: word %u: " fmt "\n", (off), ##__VA_ARGS__); \
	-EINVAL; })

/* A copy's extent on one side: the last row starts (height - 1) pitches in. */
static u64 vmgpu_copy_extent(u32 width, u32 height, u32 pitch)
{
	return (u64)(height - 1) * pitch + width;
}

/* How a job's fence is kept in a buffer's reservation object. */
static enum dma_resv_usage vmgpu_bo_fence_usage(const struct vmgpu_job_bo *b)
{
	if (b->explicit_sync)
		return DMA_RESV_USAGE_BOOKKEEP;
	return b->write ? DMA_RESV_USAGE_WRITE : DMA_RESV_USAGE_READ;
}

/*
 * A DEP_WAIT reads its table (all @entries) and, for a TABLE map, the
 * map's rows of every consumer portion of its grid.
 */
static int vmgpu_check_dep_wait(struct vmgpu_validate *v, u32 off,
				const u32 *c)
{
	u64 va = VMGPU_CMD_U64(c, vmgpu_cmd_dep_wait, table_va);
	u32 n = VMGPU_CMD_U32(c, vmgpu_cmd_dep_wait, entries);
	struct vmgpu_region_map m;
	u32 cgrid[3], i;

	if (!vmgpu_va_ok(v, va, (u64)n * VMGPU_DEP_ENTRY_BYTES, false))
		return vmgpu_reject(v, off,
				    "dependency table %#llx not in a buffer", va);
	vmgpu_cmd_dep_wait_map(c, &m);
	if (m.kind != VMGPU_MAP_TABLE)
		return 0;
	for (i = 0; i < 3; i++)
		cgrid[i] = VMGPU_CMD_U32(c, vmgpu_cmd_dep_wait, cgrid[i]);
	if (!vmgpu_va_ok(v, m.table_va,
			 (u64)vmgpu_region_portions(cgrid) * m.table_count *
			 VMGPU_REGION_TABLE_ENTRY_BYTES, false))
		return vmgpu_reject(v, off, "mapping table %#llx not in a buffer",
				    m.table_va);
	return 0;
}

/*
 * A TAKE reads its task descriptor, claims portions in its take words
 * (one u32 each) and writes and reads its table.
 */
static int vmgpu_check_take(struct vmgpu_validate *v, u32 off, const u32 *c)
{
	u64 va = VMGPU_CMD_U64(c, vmgpu_cmd_take, tmd_va);
	u32 pgrid[3], i;

	if (!vmgpu_va_ok(v, va, VMGPU_TMD_BYTES, false))
		return vmgpu_reject(v, off, "TMD %#llx not in a buffer", va);
	for (i = 0; i < 3; i++)
		pgrid[i] = VMGPU_CMD_U32(c, vmgpu_cmd_take, pgrid[i]);
	va = VMGPU_CMD_U64(c, vmgpu_cmd_take, take_va);
	if (!vmgpu_va_ok(v, va, 4ull * vmgpu_region_portions(pgrid), true))
		return vmgpu_reject(v, off,
				    "take words %#llx not in a writable buffer",
				    va);
	va = VMGPU_CMD_U64(c, vmgpu_cmd_take, table_va);
	if (!vmgpu_va_ok(v, va, (u64)VMGPU_CMD_U32(c, vmgpu_cmd_take, entries) *
			 VMGPU_DEP_ENTRY_BYTES, true))
		return vmgpu_reject(v, off,
				    "dependency table %#llx not in a writable buffer",
				    va);
	return 0;
}

/*
 * The rectangle of a COPY or COPY_ASYNC (the same first nine words); the
 * destination of an in-place replicating copy is only read.
 */
static int vmgpu_check_copy_rect(struct vmgpu_validate *v, u32 off,
				 const u32 *c, bool dst_written)
{
	u32 width = VMGPU_CMD_U32(c, vmgpu_cmd_copy, width_bytes);
	u32 height = VMGPU_CMD_U32(c, vmgpu_cmd_copy, height);
	u64 va = VMGPU_CMD_U64(c, vmgpu_cmd_copy, src_va);
	u32 pitch = VMGPU_CMD_U32(c, vmgpu_cmd_copy, src_pitch);

	if (!vmgpu_va_ok(v, va, vmgpu_copy_extent(width, height, pitch), false))
		return vmgpu_reject(v, off, "copy source not in a buffer");
	va = VMGPU_CMD_U64(c, vmgpu_cmd_copy, dst_va);
	pitch = VMGPU_CMD_U32(c, vmgpu_cmd_copy, dst_pitch);
	if (!vmgpu_va_ok(v, va, vmgpu_copy_extent(width, height, pitch),
			 dst_written))
		return vmgpu_reject(v, off,
				    "copy destination not in a writable buffer");
	return 0;
}

/*
 * A COPY_ASYNC also reads the entry it starts after and writes the one it
 * signals: each must lie in a buffer (writable for the signal).
 */
static int vmgpu_check_copy_async(struct vmgpu_validate *v, u32 off,
				  const u32 *c)
{
	u32 flags = VMGPU_CMD_U32(c, vmgpu_cmd_copy_async, flags);
	u64 va;

	if (flags & VMGPU_COPY_AFTER_ENTRY) {
		va = vmgpu_dep_entry_va(VMGPU_CMD_U64(c, vmgpu_cmd_copy_async,
						      after_table),
					VMGPU_CMD_U32(c, vmgpu_cmd_copy_async,
						      after_index));
		if (!vmgpu_va_ok(v, va, VMGPU_DEP_ENTRY_BYTES, false))
			return vmgpu_reject(v, off,
					    "copy_async entry %#llx not in a buffer",
					    va);
	}
	if (flags & VMGPU_COPY_SIGNAL_ENTRY) {
		va = vmgpu_dep_entry_va(VMGPU_CMD_U64(c, vmgpu_cmd_copy_async,
						      signal_table),
					VMGPU_CMD_U32(c, vmgpu_cmd_copy_async,
						      signal_index));
		if (!vmgpu_va_ok(v, va, VMGPU_DEP_ENTRY_BYTES, true))
			return vmgpu_reject(v, off,
					    "copy_async entry %#llx not in a writable buffer",
					    va);
	}
	return vmgpu_check_copy_rect(v, off, c,
				     !(flags & VMGPU_COPY_REPLICATE));
}

/*
 * The rules vmgpu_cmd_check() cannot know: every address a command uses
 * lies inside one buffer the submit lists, writable where it is written.
 */
static int vmgpu_check_buffers(struct vmgpu_validate *v, u32 off,
			       const u32 *c)
{
	u32 op = VMGPU_CMD_OP(c[0]);
	u32 n;
	u64 va;

	switch (op) {
	case VMGPU_CMD_DISPATCH:
		va = VMGPU_CMD_U64(c, vmgpu_cmd_dispatch, code_va);
		if (!vmgpu_va_ok(v, va, VMGPU_EXEC_HEADER_BYTES +
				 VMGPU_INSN_BYTES, false))
			return vmgpu_reject(v, off, "code %#llx not in a buffer",
					    va);
		va = VMGPU_CMD_U64(c, vmgpu_cmd_dispatch, args_va);
		n = VMGPU_CMD_U32(c, vmgpu_cmd_dispatch, args_bytes);
		if (n && !vmgpu_va_ok(v, va, n, false))
			return vmgpu_reject(v, off,
					    "arguments %#llx not in a buffer", va);
		break;
	case VMGPU_CMD_LAUNCH_TMD:
		va = VMGPU_CMD_U64(c, vmgpu_cmd_launch_tmd, tmd_va);
		if (!vmgpu_va_ok(v, va, VMGPU_TMD_BYTES, false))
			return vmgpu_reject(v, off, "TMD %#llx not in a buffer",
					    va);
		break;
	case VMGPU_CMD_TIMESTAMP:
		va = VMGPU_CMD_U64(c, vmgpu_cmd_timestamp, va);
		if (!vmgpu_va_ok(v, va, vmgpu_timestamp_bytes(c), true))
			return vmgpu_reject(v, off,
					    "timestamp address %#llx not in a writable buffer",
					    va);
		break;
	case VMGPU_CMD_WRITE_VALUE:
		va = VMGPU_CMD_U64(c, vmgpu_cmd_write_value, va);
		if (!vmgpu_va_ok(v, va, 4, true))
			return vmgpu_reject(v, off,
					    "write address %#llx not in a writable buffer",
					    va);
		break;
	case VMGPU_CMD_WAIT_VALUE:
		va = VMGPU_CMD_U64(c, vmgpu_cmd_wait_value, va);
		if (!vmgpu_va_ok(v, va, 4, false))
			return vmgpu_reject(v, off,
					    "wait address %#llx not in a buffer", va);
		break;
	case VMGPU_CMD_SKIP_IF:
		va = VMGPU_CMD_U64(c, vmgpu_cmd_skip_if, va);
		if (!vmgpu_va_ok(v, va, 4, false))
			return vmgpu_reject(v, off,
					    "skip_if address %#llx not in a buffer",
					    va);
		break;
	case VMGPU_CMD_DEP_SIGNAL:
		va = VMGPU_CMD_U64(c, vmgpu_cmd_dep_signal, table_va);
		n = VMGPU_CMD_U32(c, vmgpu_cmd_dep_signal, entries);
		if (!vmgpu_va_ok(v, va, (u64)n * VMGPU_DEP_ENTRY_BYTES, true))
			return vmgpu_reject(v, off,
					    "dependency table %#llx not in a writable buffer",
					    va);
		break;
	case VMGPU_CMD_DEP_WAIT:
		return vmgpu_check_dep_wait(v, off, c);
	case VMGPU_CMD_TAKE:
		return vmgpu_check_take(v, off, c);
	case VMGPU_CMD_COPY:
		return vmgpu_check_copy_rect(v, off, c, true);
	case VMGPU_CMD_COPY_ASYNC:
		return vmgpu_check_copy_async(v, off, c);
	}
	return 0;
}

/*
 * Walk the kernel copy of the commands: the rules of the command format
 * (vmgpu_cmd.h, shared with the device and the library), the budget a
 * process may set, and every address inside a buffer the submit lists.
 *
 * Return: the number of DISPATCH commands, or a negative errno.
 */
/*
 * The distributor level of a DISPATCH or SET_STATE DEFAULT_PRIORITY at
 * word @off: within the context's band, 0 meaning the packet's default.
 * The device gives 0 the ring entry's default_level, the context's own
 * (vmgpu_ring.c), for dispatches, task descriptors and children alike,
 * and holds every task within the entry's min_level.
 */
static int vmgpu_check_level(struct vmgpu_validate *v, u32 off, const u32 *c)
{
	const struct vmgpu_ctx *ctx = v->job->ctx;
	const u32 *field;
	u32 level;

	if (VMGPU_CMD_OP(c[0]) == VMGPU_CMD_DISPATCH)
		field = &c[offsetof(struct vmgpu_cmd_dispatch, priority) / 4];
	else if (VMGPU_CMD_OP(c[0]) == VMGPU_CMD_SET_STATE &&
		 VMGPU_CMD_U32(c, vmgpu_cmd_set_state, key) ==
		 VMGPU_STATE_DEFAULT_PRIORITY)
		field = &c[offsetof(struct vmgpu_cmd_set_state, value) / 4];
	else
		return 0;
	level = le32_to_cpu(*field);
	if (level && level < ctx->level_min) {
		drm_dbg(v->drm,
			"submit: word %u: priority %u over the context's %u..15\n",
			off, level, ctx->level_min);
		return -EACCES;
	}
	return 0;
}

static int vmgpu_validate_cmds(struct vmgpu_validate *v, u32 *cmd, u32 words,
			       u32 max_dispatches)
{
	struct vmgpu_cmd_checker ck;
	enum vmgpu_cmd_verdict verdict;
	const char *why;
	int ret;

	vmgpu_cmd_checker_init(&ck, max_dispatches);
	while (ck.word < words && !ck.ended) {
		u32 off = ck.word;
		u32 *c = &cmd[off];

		verdict = vmgpu_cmd_check(&ck, c, words - off, &why);
		if (verdict == VMGPU_CMD_TOO_MANY) {
			drm_dbg(v->drm, "submit: more than %u dispatches\n",
				max_dispatches);
			return -E2BIG;
		}
		if (verdict)
			return vmgpu_reject(v, off, "%s (opcode %#x)", why,
					    VMGPU_CMD_OP(c[0]));
		ret = vmgpu_check_buffers(v, off, c);
		if (!ret)
			ret = vmgpu_check_level(v, off, c);
		if (ret)
			return ret;
		/* 0 means the device's default, itself bounded. */
		if (VMGPU_CMD_OP(c[0]) == VMGPU_CMD_SET_STATE &&
		    VMGPU_CMD_U32(c, vmgpu_cmd_set_state, key) ==
		    VMGPU_STATE_INSTR_BUDGET &&
		    VMGPU_CMD_U32(c, vmgpu_cmd_set_state, value) >
		    vmgpu_max_user_instr_budget && !capable(CAP_SYS_NICE)) {
			drm_dbg(v->drm,
				"submit: word %u: instruction budget %u over %u needs CAP_SYS_NICE\n",
				off, VMGPU_CMD_U32(c, vmgpu_cmd_set_state, value),
				vmgpu_max_user_instr_budget);
			return -EACCES;
		}
	}
	if (vmgpu_cmd_check_end(&ck, &why))
		return vmgpu_reject(v, ck.word < words ? ck.word : words, "%s",
				    why);
	return ck.dispatches;
}

/**
 * vmgpu_job_put_resources() - release what a job holds and free it
 * @job: the job, done or never queued
 */
void vmgpu_job_put_resources(struct vmgpu_job *job)
{
	u32 i;

	for (i = 0; i < job->bo_count; i++)
		if (job->bos[i].map)
			vmgpu_mapping_put(job->bos[i].map);
	if (job->cmdbuf)
		vmgpu_cmdbuf_put(job->vf, job->cmdbuf);
	if (job->done_fence)
		dma_fence_put(job->done_fence);
	if (job->ctx)
		vmgpu_ctx_put(job->ctx);
	atomic_dec(&job->vf->vdev->jobs_alive);
	vmgpu_file_put(job->vf);
	kvfree(job);
}

static int vmgpu_lookup_bos(struct drm_device *drm, struct drm_file *file,
			    struct vmgpu_job *job, u64 user_bos)
{
	struct drm_vmgpu_submit_bo __user *ubos = u64_to_user_ptr(user_bos);
	struct vmgpu_file *vf = job->vf;
	u32 i, n = job->bo_count;

	job->bo_count = 0;
	for (i = 0; i < n; i++) {
		struct drm_vmgpu_submit_bo sb;
		struct drm_gem_object *obj;
		struct vmgpu_mapping *map;

		if (copy_from_user(&sb, &ubos[i], sizeof(sb)))
			return -EFAULT;
		if (sb.flags & ~DRM_VMGPU_SUBMIT_BO_FLAGS_ALL) {
			drm_dbg(drm, "submit: bo %u: flags %#x\n", i, sb.flags);
			return -EINVAL;
		}
		obj = drm_gem_object_lookup(file, sb.handle);
		if (!obj) {
			drm_dbg(drm, "submit: bo %u: no handle %u\n", i,
				sb.handle);
			return -ENOENT;
		}
		map = vmgpu_mapping_find(to_vmgpu_bo(obj), vf);
		drm_gem_object_put(obj);
		if (!map)
			return -ENOENT;
		job->bos[i].map = map;
		job->bos[i].write = !(sb.flags & DRM_VMGPU_SUBMIT_BO_READ);
		job->bos[i].explicit_sync = sb.flags &
					    DRM_VMGPU_SUBMIT_BO_EXPLICIT;
		job->objs[i] = &map->bo->base.base;
		job->bo_count++;
	}
	return 0;
}

static int vmgpu_add_in_syncs(struct drm_device *drm, struct drm_file *file,
			      struct vmgpu_job *job, u64 user, u32 count)
{
	struct drm_vmgpu_sync __user *us = u64_to_user_ptr(user);
	u32 i;
	int ret;

	for (i = 0; i < count; i++) {
		struct drm_vmgpu_sync s;
		struct dma_fence *fence;

		if (copy_from_user(&s, &us[i], sizeof(s)))
			return -EFAULT;
		if (s.flags) {
			drm_dbg(drm, "submit: in sync %u: flags %#x\n", i,
				s.flags);
			return -EINVAL;
		}
		ret = drm_syncobj_find_fence(file, s.handle, s.point, 0, &fence);
		if (ret) {
			drm_dbg(drm, "submit: in sync %u: handle %u point %llu: %d\n",
				i, s.handle, s.point, ret);
			return ret;
		}
		ret = drm_sched_job_add_dependency(&job->base, fence);
		if (ret)
			return ret;
	}
	return 0;
}

struct vmgpu_out_sync {
	struct drm_syncobj *syncobj;
	struct dma_fence_chain *chain;
	u64 point;
};

static void vmgpu_out_syncs_free(struct vmgpu_out_sync *out, u32 count)
{
	u32 i;

	for (i = 0; i < count; i++) {
		if (out[i].syncobj)
			drm_syncobj_put(out[i].syncobj);
		kfree(out[i].chain);
	}
	kfree(out);
}

static struct vmgpu_out_sync *
vmgpu_get_out_syncs(struct drm_device *drm, struct drm_file *file, u64 user,
		    u32 count)
{
	struct drm_vmgpu_sync __user *us = u64_to_user_ptr(user);
	struct vmgpu_out_sync *out;
	u32 i;
	int ret = 0;

	out = kcalloc(count, sizeof(*out), GFP_KERNEL);
	if (!out)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < count; i++) {
		struct drm_vmgpu_sync s;

		if (copy_from_user(&s, &us[i], sizeof(s))) {
			ret = -EFAULT;
			break;
		}
		if (s.flags) {
			drm_dbg(drm, "submit: out sync %u: flags %#x\n", i,
				s.flags);
			ret = -EINVAL;
			break;
		}
		out[i].syncobj = drm_syncobj_find(file, s.handle);
		if (!out[i].syncobj) {
			drm_dbg(drm, "submit: out sync %u: no handle %u\n", i,
				s.handle);
			ret = -ENOENT;
			break;
		}
		out[i].point = s.point;
		if (s.point) {
			out[i].chain = dma_fence_chain_alloc();
			if (!out[i].chain) {
				ret = -ENOMEM;
				break;
			}
		}
	}
	if (ret) {
		vmgpu_out_syncs_free(out, count);
		return ERR_PTR(ret);
	}
	return out;
}

static int vmgpu_submit_check_args(struct vmgpu_device *vdev,
				   const struct drm_vmgpu_submit *args)
{
	struct drm_device *drm = &vdev->drm;

	if (args->flags || args->pad2) {
		drm_dbg(drm, "submit: non-zero flags or padding\n");
		return -EINVAL;
	}
	if (args->gpu >= vdev->num_gpus) {
		drm_dbg(drm, "submit: no GPU %u\n", args->gpu);
		return -EINVAL;
	}
	if (!args->cmdbuf_bytes || args->cmdbuf_bytes % 4) {
		drm_dbg(drm, "submit: command buffer of %u bytes\n",
			args->cmdbuf_bytes);
		return -EINVAL;
	}
	if (args->cmdbuf_bytes > vdev->cmdbuf_max_bytes) {
		drm_dbg(drm, "submit: command buffer %u bytes over %u\n",
			args->cmdbuf_bytes, vdev->cmdbuf_max_bytes);
		return -E2BIG;
	}
	if (args->bo_count > VMGPU_MAX_SUBMIT_BOS ||
	    args->in_sync_count > VMGPU_MAX_SUBMIT_SYNCS ||
	    args->out_sync_count > VMGPU_MAX_SUBMIT_SYNCS) {
		drm_dbg(drm, "submit: %u buffers, %u/%u syncs over the limit\n",
			args->bo_count, args->in_sync_count,
			args->out_sync_count);
		return -E2BIG;
	}
	return 0;
}

/*
 * The submit proper. Lifetimes: the context reference taken here keeps its
 * memory and entities valid until we return; ctx->submit_lock with
 * ctx->destroyed orders the push against CTX_DESTROY and close, which tear
 * the entities down only after setting it.
 */
static int vmgpu_submit(struct drm_device *drm, struct drm_vmgpu_submit *args,
			struct drm_file *file)
{
	struct vmgpu_device *vdev = to_vmgpu(drm);
	struct vmgpu_file *vf = file->driver_priv;
	struct vmgpu_out_sync *out = NULL;
	struct ww_acquire_ctx acquire;
	struct vmgpu_validate v;
	struct vmgpu_job *job;
	struct vmgpu_ctx *ctx;
	struct dma_fence *done;
	bool sched_init = false;
	u32 i;
	int ret;

	ret = vmgpu_submit_check_args(vdev, args);
	if (ret)
		return ret;
	ctx = vmgpu_ctx_lookup(vf, args->ctx_id);
	if (!ctx) {
		drm_dbg(drm, "submit: no context %u\n", args->ctx_id);
		return -ENOENT;
	}
	if (atomic_read(&ctx->guilty)) {
		drm_dbg(drm, "submit: context %u is banned\n", args->ctx_id);
		vmgpu_ctx_put(ctx);
		return -ECANCELED;
	}

	job = kvzalloc(struct_size(job, bos, args->bo_count) +
		       args->bo_count * sizeof(*job->objs), GFP_KERNEL);
	if (!job) {
		vmgpu_ctx_put(ctx);
		return -ENOMEM;
	}
	job->objs = (struct drm_gem_object **)&job->bos[args->bo_count];
	atomic_inc(&vdev->jobs_alive);
	kref_get(&vf->refcount);
	job->vf = vf;
	job->ctx = ctx;
	job->gpu = &vdev->gpu[args->gpu];
	job->cmd_bytes = args->cmdbuf_bytes;
	job->bo_count = args->bo_count;
	INIT_LIST_HEAD(&job->link);

	ret = vmgpu_lookup_bos(drm, file, job, args->bos);
	if (ret)
		goto err_job;

	job->cmdbuf = vmgpu_cmdbuf_get(vf, args->cmdbuf_bytes);
	if (IS_ERR(job->cmdbuf)) {
		ret = PTR_ERR(job->cmdbuf);
		job->cmdbuf = NULL;
		goto err_job;
	}
	if (copy_from_user(job->cmdbuf->vaddr, u64_to_user_ptr(args->cmdbuf),
			   args->cmdbuf_bytes)) {
		ret = -EFAULT;
		goto err_job;
	}
	v.drm = drm;
	v.job = job;
	ret = vmgpu_validate_cmds(&v, job->cmdbuf->vaddr,
				  args->cmdbuf_bytes / 4, vdev->max_dispatches);
	if (ret < 0)
		goto err_job;
	job->dispatches = ret;

	ret = drm_sched_job_init(&job->base, &ctx->entity[args->gpu], vf);
	if (ret)
		goto err_job;
	sched_init = true;

	ret = vmgpu_add_in_syncs(drm, file, job, args->in_syncs,
				 args->in_sync_count);
	if (ret)
		goto err_job;
	if (args->out_sync_count) {
		out = vmgpu_get_out_syncs(drm, file, args->out_syncs,
					  args->out_sync_count);
		if (IS_ERR(out)) {
			ret = PTR_ERR(out);
			out = NULL;
			goto err_job;
		}
	}

	ret = drm_gem_lock_reservations(job->objs, job->bo_count, &acquire);
	if (ret == -EALREADY) {
		drm_dbg(drm, "submit: a buffer is listed twice\n");
		ret = -EINVAL;
	}
	if (ret)
		goto err_out;
	for (i = 0; i < job->bo_count; i++) {
		ret = dma_resv_reserve_fences(job->objs[i]->resv, 1);
		if (ret)
			goto err_unlock;
		if (job->bos[i].explicit_sync)
			continue;
		ret = drm_sched_job_add_implicit_dependencies(&job->base,
							      job->objs[i],
							      job->bos[i].write);
		if (ret)
			goto err_unlock;
	}

	mutex_lock(&ctx->submit_lock);
	if (ctx->destroyed) {
		mutex_unlock(&ctx->submit_lock);
		drm_dbg(drm, "submit: context %u destroyed meanwhile\n",
			args->ctx_id);
		ret = -ENOENT;
		goto err_unlock;
	}
	drm_sched_job_arm(&job->base);
	done = dma_fence_get(&job->base.s_fence->finished);
	for (i = 0; i < job->bo_count; i++)
		dma_resv_add_fence(job->objs[i]->resv, done,
				   vmgpu_bo_fence_usage(&job->bos[i]));
	drm_gem_unlock_reservations(job->objs, job->bo_count, &acquire);
	vmgpu_stat_add(vf->stats, VMGPU_STAT_SUBMITS, 1);
	vmgpu_stat_add(job->gpu->stats, VMGPU_STAT_SUBMITS, 1);
	trace_vmgpu_submit(job->gpu->index, vf->client_id, ctx->id,
			   job->cmd_bytes, job->dispatches);
	/*
	 * From here on the job belongs to the scheduler and may be freed
	 * at any time, dropping its context reference: hold our own.
	 */
	kref_get(&ctx->refcount);
	drm_sched_entity_push_job(&job->base);
	mutex_unlock(&ctx->submit_lock);
	vmgpu_ctx_put(ctx);

	for (i = 0; i < args->out_sync_count; i++) {
		if (out[i].point) {
			drm_syncobj_add_point(out[i].syncobj, out[i].chain,
					      done, out[i].point);
			out[i].chain = NULL;
		} else {
			drm_syncobj_replace_fence(out[i].syncobj, done);
		}
	}
	if (out)
		vmgpu_out_syncs_free(out, args->out_sync_count);
	dma_fence_put(done);
	return 0;

err_unlock:
	drm_gem_unlock_reservations(job->objs, job->bo_count, &acquire);
err_out:
	if (out)
		vmgpu_out_syncs_free(out, args->out_sync_count);
err_job:
	if (sched_init)
		drm_sched_job_cleanup(&job->base);
	vmgpu_job_put_resources(job);
	return ret;
}

/**
 * vmgpu_ioctl_submit() - DRM_IOCTL_VMGPU_SUBMIT
 * @drm: the DRM device
 * @data: struct drm_vmgpu_submit
 * @file: the calling file
 *
 * Inside drm_dev_enter(), so an unbind waits for a submit in progress and
 * no job is pushed after the unplug.
 *
 * Return: 0 or a negative errno (see the uAPI header).
 */
int vmgpu_ioctl_submit(struct drm_device *drm, void *data,
		       struct drm_file *file)
{
	int idx, ret;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = vmgpu_submit(drm, data, file);
	drm_dev_exit(idx);
	return ret;
}
