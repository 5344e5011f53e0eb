// SPDX-License-Identifier: GPL-2.0
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

#include "vmgpu_drm.h"
#include "vmgpu_drv.h"
#include "vmgpu_isa.h"
#include "vmgpu_trace.h"

/* Largest grid, in blocks, one dispatch may launch. */
#define VMGPU_MAX_GRID_BLOCKS	BIT(24)

struct vmgpu_validate {
	struct drm_device *drm;
	struct vmgpu_job *job;
	u32 dispatches;
	u32 max_dispatches;
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

static int vmgpu_check_dispatch(struct vmgpu_validate *v, u32 off,
				const struct vmgpu_cmd_dispatch *d)
{
	u64 blocks = 1, threads = 1;
	int i;

	if (d->flags & ~VMGPU_DISPATCH_F_ALL)
		return vmgpu_reject(v, off, "dispatch flags %#x", d->flags);
	if (d->reserved)
		return vmgpu_reject(v, off, "dispatch reserved field");
	if (++v->dispatches > v->max_dispatches) {
		drm_dbg(v->drm, "submit: more than %u dispatches\n",
			v->max_dispatches);
		return -E2BIG;
	}
	for (i = 0; i < 3; i++) {
		if (!d->grid[i] || !d->block[i] || !d->grid_total[i])
			return vmgpu_reject(v, off, "zero grid/block dimension");
		if ((u64)d->origin[i] + d->grid[i] > d->grid_total[i])
			return vmgpu_reject(v, off,
					    "portion outside the index space");
		blocks *= d->grid[i];
		threads *= d->block[i];
		if (blocks > VMGPU_MAX_GRID_BLOCKS)
			return vmgpu_reject(v, off, "grid over %lu blocks",
					    VMGPU_MAX_GRID_BLOCKS);
		if (threads > VMGPU_MAX_BLOCK_THREADS)
			return vmgpu_reject(v, off, "block over %u threads",
					    VMGPU_MAX_BLOCK_THREADS);
	}
	if (d->shared_bytes > VMGPU_MAX_SHARED_BYTES)
		return vmgpu_reject(v, off, "shared memory %u", d->shared_bytes);
	if (d->code_va % VMGPU_INSN_BYTES ||
	    !vmgpu_va_ok(v, d->code_va, VMGPU_EXEC_HEADER_BYTES +
			 VMGPU_INSN_BYTES, false))
		return vmgpu_reject(v, off, "code %#llx not in a buffer",
				    d->code_va);
	if (d->args_bytes > VMGPU_MAX_ARGS_BYTES || d->args_bytes % 4)
		return vmgpu_reject(v, off, "argument size %u", d->args_bytes);
	if (d->args_bytes) {
		if (d->args_va % 4 ||
		    !vmgpu_va_ok(v, d->args_va, d->args_bytes, false))
			return vmgpu_reject(v, off, "arguments %#llx not in a buffer",
					    d->args_va);
	} else if (d->args_va) {
		return vmgpu_reject(v, off, "arguments without a size");
	}
	return 0;
}

static int vmgpu_check_copy(struct vmgpu_validate *v, u32 off,
			    const struct vmgpu_cmd_copy *c)
{
	u64 src_len, dst_len;

	if (c->reserved)
		return vmgpu_reject(v, off, "copy reserved field");
	if (!c->width_bytes || !c->height)
		return vmgpu_reject(v, off, "empty copy");
	if (c->height > 1 &&
	    (c->src_pitch < c->width_bytes || c->dst_pitch < c->width_bytes))
		return vmgpu_reject(v, off, "copy pitch below width");
	src_len = (u64)(c->height - 1) * c->src_pitch + c->width_bytes;
	dst_len = (u64)(c->height - 1) * c->dst_pitch + c->width_bytes;
	if (!vmgpu_va_ok(v, c->src_va, src_len, false))
		return vmgpu_reject(v, off, "copy source not in a buffer");
	if (!vmgpu_va_ok(v, c->dst_va, dst_len, true))
		return vmgpu_reject(v, off,
				    "copy destination not in a writable buffer");
	return 0;
}

/*
 * Walk the kernel copy of the commands. Every command has its fixed
 * length, every field is checked, every address must fall inside a buffer
 * the submit lists, SYNCs must name an earlier producer and a later
 * consumer, and the packet ends with its only END.
 */
static int vmgpu_validate_cmds(struct vmgpu_validate *v, const u32 *cmd,
			       u32 words)
{
	static const u8 lens[VMGPU_CMD_NUM_OPS] = {
		[VMGPU_CMD_NOP] = VMGPU_CMD_LEN_NOP,
		[VMGPU_CMD_SET_STATE] = VMGPU_CMD_LEN_SET_STATE,
		[VMGPU_CMD_DISPATCH] = VMGPU_CMD_LEN_DISPATCH,
		[VMGPU_CMD_SYNC] = VMGPU_CMD_LEN_SYNC,
		[VMGPU_CMD_BARRIER] = VMGPU_CMD_LEN_BARRIER,
		[VMGPU_CMD_TIMESTAMP] = VMGPU_CMD_LEN_TIMESTAMP,
		[VMGPU_CMD_WRITE_VALUE] = VMGPU_CMD_LEN_WRITE_VALUE,
		[VMGPU_CMD_WAIT_VALUE] = VMGPU_CMD_LEN_WAIT_VALUE,
		[VMGPU_CMD_COPY] = VMGPU_CMD_LEN_COPY,
		[VMGPU_CMD_END] = VMGPU_CMD_LEN_END,
	};
	u32 max_consumer = 0;
	bool any_sync = false, ended = false;
	u32 off = 0;
	int ret;

	while (off < words) {
		u32 hdr = cmd[off];
		u32 op = VMGPU_CMD_OP(hdr), len = VMGPU_CMD_LEN(hdr);
		const void *c = &cmd[off];

		if (op >= VMGPU_CMD_NUM_OPS || !lens[op])
			return vmgpu_reject(v, off, "unknown opcode %#x", op);
		if (hdr & VMGPU_CMD_RESERVED_MASK)
			return vmgpu_reject(v, off, "reserved header bits");
		if (len != lens[op])
			return vmgpu_reject(v, off, "opcode %#x length %u, want %u",
					    op, len, lens[op]);
		if (len > words - off)
			return vmgpu_reject(v, off, "command runs past the end");

		switch (op) {
		case VMGPU_CMD_NOP:
		case VMGPU_CMD_BARRIER:
			break;
		case VMGPU_CMD_SET_STATE: {
			const struct vmgpu_cmd_set_state *s = c;

			if (s->key != VMGPU_STATE_INSTR_BUDGET &&
			    s->key != VMGPU_STATE_DEFAULT_PRIORITY)
				return vmgpu_reject(v, off, "state key %u", s->key);
			/* 0 means the device's default, itself bounded. */
			if (s->key == VMGPU_STATE_INSTR_BUDGET &&
			    s->value > vmgpu_max_user_instr_budget &&
			    !capable(CAP_SYS_NICE)) {
				drm_dbg(v->drm,
					"submit: word %u: instruction budget %u over %u needs CAP_SYS_NICE\n",
					off, s->value,
					vmgpu_max_user_instr_budget);
				return -EACCES;
			}
			break;
		}
		case VMGPU_CMD_DISPATCH:
			ret = vmgpu_check_dispatch(v, off, c);
			if (ret)
				return ret;
			break;
		case VMGPU_CMD_SYNC: {
			const struct vmgpu_cmd_sync *s = c;

			if (s->producer >= v->dispatches)
				return vmgpu_reject(v, off,
						    "sync producer %u is not an earlier dispatch",
						    s->producer);
			if (s->consumer < v->dispatches)
				return vmgpu_reject(v, off,
						    "sync consumer %u is not a later dispatch",
						    s->consumer);
			any_sync = true;
			max_consumer = max(max_consumer, s->consumer);
			break;
		}
		case VMGPU_CMD_TIMESTAMP: {
			const struct vmgpu_cmd_timestamp *t = c;

			if (t->reserved || t->va % 8 || !vmgpu_va_ok(v, t->va, 8, true))
				return vmgpu_reject(v, off, "timestamp address %#llx",
						    t->va);
			break;
		}
		case VMGPU_CMD_WRITE_VALUE: {
			const struct vmgpu_cmd_write_value *w = c;

			if (w->va % 4 || !vmgpu_va_ok(v, w->va, 4, true))
				return vmgpu_reject(v, off, "write address %#llx",
						    w->va);
			break;
		}
		case VMGPU_CMD_WAIT_VALUE: {
			const struct vmgpu_cmd_wait_value *w = c;

			if (w->op >= VMGPU_WAIT_NUM_OPS)
				return vmgpu_reject(v, off, "wait op %u", w->op);
			if (w->va % 4 || !vmgpu_va_ok(v, w->va, 4, false))
				return vmgpu_reject(v, off, "wait address %#llx",
						    w->va);
			break;
		}
		case VMGPU_CMD_COPY:
			ret = vmgpu_check_copy(v, off, c);
			if (ret)
				return ret;
			break;
		case VMGPU_CMD_END:
			if (off + len != words)
				return vmgpu_reject(v, off, "END before the end");
			ended = true;
			break;
		}
		off += len;
		if (op == VMGPU_CMD_END)
			break;
	}
	if (!ended)
		return vmgpu_reject(v, words, "packet does not end with END");
	if (any_sync && max_consumer >= v->dispatches)
		return vmgpu_reject(v, words,
				    "sync consumer %u names a missing dispatch",
				    max_consumer);
	return 0;
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
	v.dispatches = 0;
	v.max_dispatches = vdev->max_dispatches;
	ret = vmgpu_validate_cmds(&v, job->cmdbuf->vaddr,
				  args->cmdbuf_bytes / 4);
	if (ret)
		goto err_job;
	job->dispatches = v.dispatches;

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
				   job->bos[i].write ? DMA_RESV_USAGE_WRITE :
						       DMA_RESV_USAGE_READ);
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
