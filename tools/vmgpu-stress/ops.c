// SPDX-License-Identifier: MIT
/*
 * vmgpu-stress: the ioctl worker's operations, one function per entry of
 * its op table (worker.c): parameters, buffers, mappings, contexts, valid,
 * raw, hostile and faulting submits, syncobjs, PRIME, flink, reopened
 * files, raw ioctls and the memory limit. The random submits, with their
 * generator, are in random.c and random_op.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <xf86drm.h>

#include "vmgpu_cmd.h"

#include "stress.h"

/* ---- the operations ---- */

void op_param(struct thr *t)
{
	struct drm_vmgpu_get_param gp = { 0 };

	gp.param = chance(t, 10) ? (uint32_t)R(t) : R32(t, DRM_VMGPU_PARAM_COUNT + 3);
	if (chance(t, 5))
		gp.pad = 1 + R32(t, 100);
	xioctl(C_GET_PARAM, pick_fd(t), DRM_IOCTL_VMGPU_GET_PARAM,
	       chance(t, 3) ? (void *)(uintptr_t)hostile_ptr(t) : &gp);
}

/*
 * The distributor policy: mostly a get, or a set (the stress runs as root)
 * of the current policy with its list rotated, mode and slots changed;
 * sometimes malformed. Races submissions, close, unbind and PCI resets;
 * results must not change (the policy moves blocks, not what they do).
 */
void op_wd_policy(struct thr *t)
{
	struct drm_vmgpu_wd_policy a = { 0 };
	uint8_t rot[DRM_VMGPU_WD_MAX_SMS];
	uint32_t n, s, k;
	int fd = pick_fd(t);

	a.gpu = chance(t, 10) ? R32(t, VMGPU_MAX_GPUS + 2) : 0;
	if (xioctl(C_WD_POLICY, fd, DRM_IOCTL_VMGPU_WD_POLICY, &a) ||
	    chance(t, 50))
		return;
	n = a.num_sms < DRM_VMGPU_WD_MAX_SMS ? a.num_sms :
					       DRM_VMGPU_WD_MAX_SMS;
	k = n ? R32(t, n) : 0;
	for (s = 0; s < n; s++)
		rot[s] = a.sm_order[(s + k) % n];
	memcpy(a.sm_order, rot, n);
	a.flags = DRM_VMGPU_WD_POLICY_SET;
	a.mode = R32(t, 2);
	a.table_slots = 1 + R32(t, 64);
	if (chance(t, 10)) {
		switch (R32(t, 4)) {
		case 0: a.mode = 2 + R32(t, 100); break;
		case 1: a.table_slots = chance(t, 50) ? 0 : 129; break;
		case 2: a.pad = 1; break;
		default: a.flags |= 1u << (1 + R32(t, 31)); break;
		}
	}
	xioctl(C_WD_POLICY, fd, DRM_IOCTL_VMGPU_WD_POLICY,
	       chance(t, 5) ? (void *)(uintptr_t)hostile_ptr(t) : &a);
}

static uint64_t random_size(struct thr *t)
{
	uint32_t r = R32(t, 100);

	if (r < 70)
		return 1 + R32(t, 65536);
	if (r < 95)
		return 65536 + R32(t, 1 << 20);
	if (r < 98)
		return (1 << 20) + R32(t, 3 << 20);
	if (r < 99)
		return 0;
	return (1ull << 30) + 1 + (R(t) >> R32(t, 34));	/* over the maximum */
}

void op_bo_create(struct thr *t)
{
	struct drm_vmgpu_bo_create a = { 0 };
	int fd = pick_fd(t);

	a.size = random_size(t);
	a.flags = chance(t, 90) ? R32(t, 2) : (uint32_t)R(t);
	a.placement = chance(t, 85) ? R32(t, S->num_gpus + 1) : (uint32_t)R(t);
	if (chance(t, 3))
		a.pad = 1;
	if (chance(t, 3))
		a.handle = 1 + R32(t, 10);
	if (chance(t, 3))
		a.gpu_va = R(t);
	if (xioctl(C_BO_CREATE, fd, DRM_IOCTL_VMGPU_BO_CREATE, &a))
		return;
	bo_add(t, (struct bo_ent){ .fd = fd, .handle = a.handle,
				    .va = a.gpu_va,
				    .size = (a.size + 4095) & ~4095ull });
}

void op_bo_info(struct thr *t)
{
	struct drm_vmgpu_bo_info in = { 0 };
	struct bo_ent e;
	int fd;

	if (chance(t, 80) && bo_pick(t->p, R(t), -1, &e, false)) {
		fd = e.fd;
		in.handle = e.handle;
	} else {
		fd = pick_fd(t);
		in.handle = R32(t, 300);
	}
	if (chance(t, 5))
		in.pad = 1;
	xioctl(C_BO_INFO, fd, DRM_IOCTL_VMGPU_BO_INFO,
	       chance(t, 3) ? (void *)(uintptr_t)hostile_ptr(t) : &in);
}

/*
 * Move some pages of a buffer to another GPU's memory (as priced), often
 * while packets use it: results must not change. Sometimes malformed.
 */
void op_bo_place(struct thr *t)
{
	struct drm_vmgpu_bo_place a = { 0 };
	struct bo_ent e;
	uint64_t pages;
	int fd;

	if (chance(t, 85) && bo_pick(t->p, R(t), -1, &e, false)) {
		fd = e.fd;
		a.handle = e.handle;
		pages = e.size / 4096 ? e.size / 4096 : 1;
		a.offset = 4096 * R32(t, (uint32_t)pages);
		a.size = 4096 * (1 + R32(t, (uint32_t)(pages - a.offset / 4096)));
	} else {
		fd = pick_fd(t);
		a.handle = R32(t, 300);
		a.size = 4096;
	}
	a.placement = R32(t, VMGPU_MAX_GPUS + 1);
	if (chance(t, 10)) {
		switch (R32(t, 5)) {
		case 0: a.offset += 1 + R32(t, 4095); break;
		case 1: a.size = chance(t, 50) ? 0 : a.size + (1ull << 40); break;
		case 2: a.placement = 1 + VMGPU_MAX_GPUS + R32(t, 100); break;
		case 3: a.pad = 1; break;
		default: a.flags = 1u << R32(t, 32); break;
		}
	}
	xioctl(C_BO_PLACE, fd, DRM_IOCTL_VMGPU_BO_PLACE,
	       chance(t, 3) ? (void *)(uintptr_t)hostile_ptr(t) : &a);
}

void op_mmap(struct thr *t)
{
	struct drm_vmgpu_bo_mmap_offset mo = { 0 };
	struct bo_ent e;
	size_t len;
	bool wr;
	void *m;

	if (!bo_pick(t->p, R(t), -1, &e, false)) {
		e.fd = pick_fd(t);
		e.handle = R32(t, 300);
		e.size = 4096;
	}
	mo.handle = e.handle;
	if (chance(t, 5))
		mo.pad = 1;
	if (xioctl(C_BO_MMAP_OFFSET, e.fd, DRM_IOCTL_VMGPU_BO_MMAP_OFFSET, &mo))
		return;
	len = e.size;
	if (chance(t, 5))
		len += 4096 * (1 + R32(t, 4));	/* larger than the buffer */
	wr = chance(t, 70);
	m = mmap(NULL, len, PROT_READ | (wr ? PROT_WRITE : 0), MAP_SHARED,
		 e.fd, (off_t)(mo.offset + (chance(t, 3) ? 4096 : 0)));
	if (note(C_MMAP, m == MAP_FAILED ? errno : 0))
		return;
	touch(t, m, len > e.size ? e.size : len, wr);
	if (chance(t, 50))
		note(C_MUNMAP, munmap(m, len) ? errno : 0);
	else
		map_add(t, m, len);
}

void op_munmap(struct thr *t)
{
	struct proc *p = t->p;
	struct map_ent e = { .addr = NULL };
	unsigned int i, s = R32(t, NMAP);

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < NMAP; i++) {
		struct map_ent *m = &p->maps[(s + i) % NMAP];

		if (m->addr) {
			e = *m;
			m->addr = NULL;
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
	if (e.addr)
		note(C_MUNMAP, munmap(e.addr, e.len) ? errno : 0);
}

void op_gem_close(struct thr *t)
{
	struct drm_gem_close gc = { 0 };
	uint32_t r = R32(t, 100);
	struct bo_ent e;
	int fd = pick_fd(t);

	if (r < 60 && bo_pick(t->p, R(t), -1, &e, true)) {
		fd = e.fd;
		gc.handle = e.handle;
	} else if (r < 85) {
		gc.handle = 1 + R32(t, 256);	/* anyone's, the library's too */
	} else {
		gc.handle = chance(t, 50) ? 0 : (uint32_t)R(t);
		gc.pad = R32(t, 2);
	}
	xioctl(C_GEM_CLOSE, fd, DRM_IOCTL_GEM_CLOSE, &gc);
}

void op_ctx_create(struct thr *t)
{
	struct drm_vmgpu_ctx_create c = { 0 };
	int fd = pick_fd(t);

	c.priority = chance(t, 85) ? R32(t, 3) : (uint32_t)R(t);
	if (chance(t, 5))
		c.flags = (uint32_t)R(t) | 1;
	if (chance(t, 5))
		c.pad = 1;
	if (chance(t, 3))
		c.ctx_id = (uint32_t)R(t);
	if (xioctl(C_CTX_CREATE, fd, DRM_IOCTL_VMGPU_CTX_CREATE, &c))
		return;
	ctx_add(t, fd, c.ctx_id);
}

void op_ctx_destroy(struct thr *t)
{
	struct drm_vmgpu_ctx_destroy d = { 0 };
	uint32_t r = R32(t, 100);
	struct id_ent e;
	int fd = pick_fd(t);

	if (r < 80 && id_pick(t->p, t->p->ctxs, NCTX, R(t), -1, &e, r < 60)) {
		/* Taken, or left in the table: a stale id for the others. */
		fd = e.fd;
		d.ctx_id = e.id;
	} else if (r < 90) {
		d.ctx_id = 0;
	} else {
		d.ctx_id = R32(t, 64);
		d.pad = R32(t, 2);
	}
	xioctl(C_CTX_DESTROY, fd, DRM_IOCTL_VMGPU_CTX_DESTROY, &d);
}

void op_ctx_query(struct thr *t)
{
	struct drm_vmgpu_ctx_query q = { 0 };
	struct id_ent e;
	int fd = pick_fd(t);

	if (chance(t, 80) && id_pick(t->p, t->p->ctxs, NCTX, R(t), -1, &e, false)) {
		fd = e.fd;
		q.ctx_id = e.id;
	} else {
		q.ctx_id = R32(t, 64);
	}
	if (chance(t, 5))
		q.pad = 1;
	if (chance(t, 3))
		q.state = 1;
	xioctl(C_CTX_QUERY, fd, DRM_IOCTL_VMGPU_CTX_QUERY,
	       chance(t, 3) ? (void *)(uintptr_t)hostile_ptr(t) : &q);
}

/* A context of the library's file: a shared one, or the thread's. */
static struct vmgpu_context *lib_ctx(struct thr *t)
{
	struct id_ent e;

	if (chance(t, 35) &&
	    id_pick(t->p, t->p->ctxs, NCTX, R(t), t->p->fds[0], &e, false))
		return ctx_adopted(t->p, e.id);
	return t->ctx;
}

/* Valid packets built with the library: fill, sometimes two with a SYNC. */
void op_submit_valid(struct thr *t)
{
	struct proc *p = t->p;
	struct vmgpu_sync in[2], outs = { 0 };
	struct vmgpu_submit_info info = { 0 };
	struct vmgpu_dispatch_desc d;
	struct vmgpu_context *ctx;
	struct vmgpu_cmdbuf *cb;
	struct fill_args a;
	unsigned int k, n = 1 + R32(t, 2);
	struct id_ent se;
	int ret;

	if (!thr_ensure(t))
		return;
	if (vmgpu_cmdbuf_create(p->lib, &cb))
		return;
	ret = vmgpu_cmdbuf_use(cb, t->out, 0);
	for (k = 0; k < n && !ret; k++) {
		a = (struct fill_args){
			.out = vmgpu_bo_gpu_va(t->out) + 8192 * k,
			.n = 1 + R32(t, 2048), .mul = (uint32_t)R(t),
			.add = (uint32_t)R(t), .spin = 0,
		};
		memset(&d, 0, sizeof(d));
		d.kernel = t->kfill;
		d.args = &a;
		d.args_bytes = sizeof(a);
		d.block[0] = 32 << R32(t, 4);
		d.grid[0] = (a.n + d.block[0] - 1) / d.block[0];
		if (k)
			ret = vmgpu_cmdbuf_sync(cb, 1, 0);
		if (!ret)
			ret = vmgpu_cmdbuf_dispatch(cb, &d);
		ret = ret < 0 ? ret : 0;
	}
	if (ret)
		goto out;
	ctx = lib_ctx(t);
	if (!ctx)
		goto out;
	info.gpu = R32(t, S->num_gpus);
	if (t->sync_used && chance(t, 30))
		in[info.in_count++] = (struct vmgpu_sync){ .handle = t->sync };
	if (chance(t, 10) &&
	    id_pick(p, p->syncs, NSYNC, R(t), p->fds[0], &se, false))
		in[info.in_count++] = (struct vmgpu_sync){ .handle = se.id };
	info.in = in;
	outs.handle = t->sync;
	info.out = &outs;
	info.out_count = 1;
	ret = vmgpu_submit(ctx, cb, &info);
	note(C_SUBMIT, ret < 0 ? ret : 0);
	if (ret < 0) {
		if (ret == -ECANCELED &&
		    vmgpu_context_id(ctx) == vmgpu_context_id(t->ctx)) {
			vmgpu_context_destroy(t->ctx);	/* banned: a new one */
			note(C_CTX_DESTROY, 0);
			t->ctx = NULL;
		} else if (ret == -ENOENT && chance(t, 30)) {
			thr_release(t);	/* maybe another thread closed ours */
		}
		goto out;
	}
	add(ST_PK_SUBMITTED);
	t->sync_used = true;
	if (chance(t, 50)) {
		ret = wait_sync(p->lib, t->sync, 10000);
		if (ret == -ETIME) {
			add(ST_PK_WAIT_TIMEOUT);
		} else if (!ret) {
			add(sync_status(p->lib, t->sync) == 1 ? ST_PK_COMPLETED :
			    ST_PK_FAILED);
		}
	}
out:
	vmgpu_cmdbuf_destroy(cb);	/* in flight: the job keeps its buffers */
}

/* Short valid-looking packets on any file: WRITE_VALUE/TIMESTAMP into
 * shared buffers, shared contexts, shared in/out syncobjs. */
void op_submit_raw(struct thr *t)
{
	struct proc *p = t->p;
	struct drm_vmgpu_submit_bo bl[3];
	struct drm_vmgpu_sync in[2], outs[2];
	struct drm_vmgpu_submit s = { 0 };
	uint32_t w[32], nw = 0, nb = 0, k, i;
	struct id_ent ce, se;
	struct bo_ent e;
	int fd = pick_fd(t);

	for (k = 1 + R32(t, 3); k; k--) {
		struct vmgpu_cmd_write_value wv = { 0 };
		struct vmgpu_cmd_timestamp ts = { 0 };
		uint64_t off;

		if (!bo_pick(p, R(t), fd, &e, false))
			break;
		if (e.size < 8)
			continue;
		for (i = 0; i < nb; i++)
			if (bl[i].handle == e.handle)
				break;
		if (i == nb) {
			bl[nb].handle = e.handle;
			bl[nb].flags = chance(t, 8) ? DRM_VMGPU_SUBMIT_BO_READ : 0;
			nb++;
		}
		off = (R(t) % (e.size / 8)) * 8;
		wv = vmgpu_encode_write_value(e.va + off, (uint32_t)R(t));
		memcpy(w + nw, &wv, sizeof(wv));
		nw += VMGPU_CMD_LEN_WRITE_VALUE;
		if (chance(t, 50)) {
			ts = vmgpu_encode_timestamp(e.va + off);
			memcpy(w + nw, &ts, sizeof(ts));
			nw += VMGPU_CMD_LEN_TIMESTAMP;
		}
	}
	if (!nb)
		return;
	w[nw++] = VMGPU_CMD_HEADER(VMGPU_CMD_END);
	if (id_pick(p, p->ctxs, NCTX, R(t), fd, &ce, false)) {
		s.ctx_id = ce.id;
	} else {
		struct drm_vmgpu_ctx_create c = { .priority = R32(t, 3) };

		if (xioctl(C_CTX_CREATE, fd, DRM_IOCTL_VMGPU_CTX_CREATE, &c))
			return;
		ctx_add(t, fd, c.ctx_id);
		s.ctx_id = c.ctx_id;
	}
	for (k = R32(t, 3) == 0; k; k--)
		if (id_pick(p, p->syncs, NSYNC, R(t), fd, &se, false))
			in[s.in_sync_count++] = (struct drm_vmgpu_sync){
				.handle = se.id,
				.point = chance(t, 70) ? 0 : R32(t, 8) };
	for (k = R32(t, 3); k; k--)
		if (id_pick(p, p->syncs, NSYNC, R(t), fd, &se, false))
			outs[s.out_sync_count++] = (struct drm_vmgpu_sync){
				.handle = se.id,
				.point = chance(t, 60) ? 0 : 1 + R32(t, 1000) };
	s.cmdbuf = (uintptr_t)w;
	s.cmdbuf_bytes = 4 * nw;
	s.gpu = R32(t, S->num_gpus);
	s.bos = (uintptr_t)bl;
	s.bo_count = nb;
	s.in_syncs = (uintptr_t)in;
	s.out_syncs = (uintptr_t)outs;
	if (!xioctl(C_SUBMIT, fd, DRM_IOCTL_VMGPU_SUBMIT, &s))
		add(ST_PK_SUBMITTED);
}

/* The packet hostile submits start from: SET_STATE, fill, WRITE, TIMESTAMP. */
static uint32_t base_packet(struct thr *t, uint32_t *w,
			    struct drm_vmgpu_submit_bo *bl)
{
	static const uint32_t one[3] = { 1, 1, 1 }, block[3] = { 64, 1, 1 };
	struct vmgpu_cmd_set_state ss =
		vmgpu_encode_set_state(VMGPU_STATE_INSTR_BUDGET, 100000);
	struct vmgpu_cmd_write_value wv =
		vmgpu_encode_write_value(vmgpu_bo_gpu_va(t->out) + 12288,
					 0x600d);
	struct vmgpu_cmd_timestamp ts =
		vmgpu_encode_timestamp(vmgpu_bo_gpu_va(t->out) + 12296);
	struct fill_args a = {
		.out = vmgpu_bo_gpu_va(t->out), .n = 64, .mul = 3, .add = 1,
	};
	struct vmgpu_cmd_dispatch d =
		vmgpu_encode_dispatch(vmgpu_bo_gpu_va(t->kfill),
				      vmgpu_bo_gpu_va(t->args), sizeof(a), one,
				      block, NULL, NULL, 0, 0);
	uint32_t n = 0;

	memcpy(t->argsmap, &a, sizeof(a));
	memcpy(w + n, &ss, sizeof(ss));
	n += VMGPU_CMD_LEN_SET_STATE;
	memcpy(w + n, &d, sizeof(d));
	n += VMGPU_CMD_LEN_DISPATCH;
	memcpy(w + n, &wv, sizeof(wv));
	n += VMGPU_CMD_LEN_WRITE_VALUE;
	memcpy(w + n, &ts, sizeof(ts));
	n += VMGPU_CMD_LEN_TIMESTAMP;
	w[n++] = VMGPU_CMD_HEADER(VMGPU_CMD_END);
	bl[0] = (struct drm_vmgpu_submit_bo){ vmgpu_bo_handle(t->kfill),
					      DRM_VMGPU_SUBMIT_BO_READ };
	bl[1] = (struct drm_vmgpu_submit_bo){ vmgpu_bo_handle(t->args),
					      DRM_VMGPU_SUBMIT_BO_READ };
	bl[2] = (struct drm_vmgpu_submit_bo){ vmgpu_bo_handle(t->out), 0 };
	return n;
}

/* A sync list of hostile entries in @buf; returns its user pointer. */
static uint64_t hostile_syncs(struct thr *t, int fd, struct drm_vmgpu_sync *buf,
			      uint32_t *count)
{
	struct id_ent se;
	uint32_t i, n;

	if (chance(t, 15)) {
		*count = 1 + R32(t, 64);
		return hostile_ptr(t);
	}
	n = chance(t, 10) ? 65 + R32(t, 100000) : R32(t, 65);
	*count = n;
	if (n > 64)
		return (uintptr_t)buf;
	for (i = 0; i < n; i++) {
		buf[i].handle = chance(t, 60) &&
				id_pick(t->p, t->p->syncs, NSYNC, R(t), fd, &se, false) ?
				se.id : (uint32_t)R32(t, 200);
		buf[i].flags = chance(t, 10) ? (uint32_t)R(t) : 0;
		buf[i].point = chance(t, 50) ? 0 : chance(t, 50) ? R32(t, 100) : R(t);
	}
	return (uintptr_t)buf;
}

void op_submit_hostile(struct thr *t)
{
	struct proc *p = t->p;
	struct drm_vmgpu_submit_bo bl[8];
	struct drm_vmgpu_sync in[64], outs[64];
	struct drm_vmgpu_submit s = { 0 };
	uint32_t w[256], nw, i, k, variant = R32(t, 9);
	bool may_run = false;
	struct id_ent ce;
	struct bo_ent e;
	int fd, ret;

	if (!thr_ensure(t))
		return;
	fd = p->fds[0];
	nw = base_packet(t, w, bl);
	s.cmdbuf_bytes = UINT32_MAX;	/* not set by a variant */
	s.bo_count = 3;
	s.ctx_id = t->rawctx;
	s.gpu = R32(t, S->num_gpus);
	switch (variant) {
	case 0:		/* random words, sometimes ending with END */
		nw = 1 + R32(t, 256);
		for (i = 0; i < nw; i++)
			w[i] = chance(t, 30) ?
			       VMGPU_CMD_HDR(R32(t, 17), R32(t, 12)) :
			       (uint32_t)R(t);
		if (chance(t, 50))
			w[nw - 1] = VMGPU_CMD_HDR(VMGPU_CMD_END, 1);
		may_run = true;
		break;
	case 1:		/* the valid packet, mutated: it may run anything */
		for (k = 1 + R32(t, 3); k; k--) {
			i = R32(t, nw);
			switch (R32(t, 4)) {
			case 0:
				w[i] ^= 1u << R32(t, 32);
				break;
			case 1:
				w[i] = (uint32_t)R(t);
				break;
			case 2:
				w[i] = R32(t, 8) ? R32(t, 64) : 0xffffffffu;
				break;
			default:
				nw = 1 + R32(t, nw);	/* truncated */
				break;
			}
		}
		may_run = true;
		break;
	case 2:		/* hostile pointers */
		switch (R32(t, 4)) {
		case 0:
			s.cmdbuf = hostile_ptr(t);
			break;
		case 1:
			s.bos = hostile_ptr(t);
			s.bo_count = 1 + R32(t, 8);
			break;
		case 2:
			s.in_syncs = hostile_ptr(t);
			s.in_sync_count = 1 + R32(t, 64);
			break;
		default:
			s.out_syncs = hostile_ptr(t);
			s.out_sync_count = 1 + R32(t, 64);
			break;
		}
		break;
	case 3:		/* huge counts and sizes */
		switch (R32(t, 4)) {
		case 0:
			s.bo_count = 1025 + (uint32_t)(R(t) >> 33);
			break;
		case 1:
			s.in_sync_count = 65 + (uint32_t)(R(t) >> 33);
			break;
		case 2:
			s.out_sync_count = 65 + (uint32_t)(R(t) >> 33);
			break;
		default:
			s.cmdbuf_bytes = VMGPU_CMDBUF_MAX_BYTES + 4 +
					 4 * (uint32_t)(R(t) >> 34);
			break;
		}
		break;
	case 4:		/* flags, padding, GPU, size */
		switch (R32(t, 5)) {
		case 0:
			s.flags = (uint32_t)R(t) | 1;
			break;
		case 1:
			s.pad2 = (uint32_t)R(t) | 1;
			break;
		case 2:
			s.gpu = S->num_gpus + R32(t, 1000);
			break;
		case 3:
			s.cmdbuf_bytes = 4 * nw - 1 - R32(t, 3);
			break;
		default:
			s.cmdbuf_bytes = chance(t, 50) ? 0 : 4 * nw + 4;
			break;
		}
		break;
	case 5:		/* bad in and out syncs */
		s.in_syncs = hostile_syncs(t, fd, in, &s.in_sync_count);
		s.out_syncs = hostile_syncs(t, fd, outs, &s.out_sync_count);
		may_run = true;
		break;
	case 6:		/* bad buffer lists */
		switch (R32(t, 4)) {
		case 0:
			bl[3] = bl[2];	/* listed twice */
			s.bo_count = 4;
			break;
		case 1:
			bl[R32(t, 3)].flags = (uint32_t)R(t) | 2;
			break;
		case 2:
			bl[R32(t, 3)].handle = R32(t, 300);
			break;
		default:	/* buffers of another file */
			if (bo_pick(p, R(t), -1, &e, false)) {
				bl[3] = (struct drm_vmgpu_submit_bo){ e.handle, 0 };
				s.bo_count = 4;
			}
			fd = pick_fd(t);
			break;
		}
		may_run = true;
		break;
	case 7:		/* contexts: 0, unknown, stale, shared */
		if (chance(t, 50) && id_pick(p, p->ctxs, NCTX, R(t), -1, &ce, false)) {
			s.ctx_id = ce.id;
			fd = ce.fd;
		} else {
			s.ctx_id = chance(t, 30) ? 0 : R32(t, 64);
		}
		may_run = true;
		break;
	default:	/* the same valid packet on any file */
		fd = pick_fd(t);
		may_run = true;
		break;
	}
	if (!s.cmdbuf)
		s.cmdbuf = (uintptr_t)w;
	if (s.cmdbuf_bytes == UINT32_MAX)
		s.cmdbuf_bytes = 4 * nw;
	if (!s.bos)
		s.bos = (uintptr_t)bl;
	/*
	 * What may run something nobody checked goes to GPU 0 (where hangs
	 * are expected), never to the checker's GPUs.
	 */
	if (may_run && on(K_CHECKER) && s.gpu < S->num_gpus)
		s.gpu = 0;
	ret = xioctl(C_SUBMIT, fd, DRM_IOCTL_VMGPU_SUBMIT, &s);
	if (!ret) {
		add(ST_HOSTILE_ACCEPTED);
		add(ST_PK_SUBMITTED);
		if (variant == 1)
			add(ST_MUTATED_RUN);
	} else if (ret == -ECANCELED && s.ctx_id == t->rawctx) {
		ctx_destroy(p->fds[0], t->rawctx);	/* banned: a new one */
		t->rawctx = 0;
	}
}

/* A kernel that faults: a store to an unmapped address, or no executable. */
void op_submit_fault(struct thr *t)
{
	struct proc *p = t->p;
	struct vmgpu_submit_info info = { 0 };
	struct vmgpu_dispatch_desc d;
	struct vmgpu_context *ctx;
	struct vmgpu_cmdbuf *cb;
	struct vmgpu_sync outs = { 0 };
	struct fill_args a = { .out = 0x40 + 4 * R32(t, 1000), .n = 32 };
	int ret;

	if (!thr_ensure(t))
		return;
	ret = vmgpu_context_create(p->lib, VMGPU_PRIORITY_NORMAL, &ctx);
	if (note(C_CTX_CREATE, ret))
		return;
	if (vmgpu_cmdbuf_create(p->lib, &cb)) {
		vmgpu_context_destroy(ctx);
		return;
	}
	memset(&d, 0, sizeof(d));
	if (chance(t, 70)) {
		d.kernel = t->kfill;
		d.args = &a;
		d.args_bytes = sizeof(a);
	} else {
		d.kernel = t->kzero;	/* zeros: not an executable */
	}
	d.block[0] = 32;
	ret = vmgpu_cmdbuf_dispatch(cb, &d);
	if (ret >= 0) {
		info.gpu = R32(t, S->num_gpus);
		outs.handle = t->sync;
		info.out = &outs;
		info.out_count = chance(t, 50);
		ret = vmgpu_submit(ctx, cb, &info);
		note(C_SUBMIT, ret < 0 ? ret : 0);
		if (ret >= 0) {
			add(ST_FAULTS);
			add(ST_PK_SUBMITTED);
		}
	}
	vmgpu_cmdbuf_destroy(cb);
	vmgpu_context_destroy(ctx);	/* while its packet may still run */
	note(C_CTX_DESTROY, 0);
}

/* ---- syncobjs ---- */

static int sync_fd_pick(struct thr *t, struct id_ent *e)
{
	if (chance(t, 85) && id_pick(t->p, t->p->syncs, NSYNC, R(t), -1, e, false))
		return 0;
	e->fd = pick_fd(t);
	e->id = R32(t, 100);
	return -1;
}

/* Up to 4 handles of one file (and junk), in @h; returns the count. */
static uint32_t sync_handles(struct thr *t, int *fd, uint32_t *h)
{
	struct id_ent e;
	uint32_t n = 1 + R32(t, 4), i;

	sync_fd_pick(t, &e);
	*fd = e.fd;
	h[0] = e.id;
	for (i = 1; i < n; i++) {
		if (chance(t, 80) &&
		    id_pick(t->p, t->p->syncs, NSYNC, R(t), *fd, &e, false))
			h[i] = e.id;
		else
			h[i] = R32(t, 100);
	}
	return n;
}

void op_sync_create(struct thr *t)
{
	struct drm_syncobj_create c = { 0 };
	int fd = pick_fd(t);

	c.flags = chance(t, 92) ? R32(t, 2) : (uint32_t)R(t);
	if (chance(t, 3))
		c.handle = 1 + R32(t, 10);
	if (!xioctl(C_SYNCOBJ_CREATE, fd, DRM_IOCTL_SYNCOBJ_CREATE, &c))
		sync_add(t, fd, c.handle);
}

void op_sync_destroy(struct thr *t)
{
	struct drm_syncobj_destroy d = { 0 };
	uint32_t r = R32(t, 100);
	struct id_ent e;
	int fd = pick_fd(t);

	if (r < 75 && id_pick(t->p, t->p->syncs, NSYNC, R(t), -1, &e, r < 60)) {
		fd = e.fd;
		d.handle = e.id;
	} else {
		d.handle = R32(t, 100);
		d.pad = R32(t, 2);
	}
	xioctl(C_SYNCOBJ_DESTROY, fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
}

static int64_t soon(struct thr *t)
{
	return chance(t, 10) ? 0 : now_ns() + (int64_t)R32(t, 20) * MS;
}

/*
 * Counts passed to DRM-core ioctls stay small: the core sizes its
 * allocations by them before checking anything, and an allocation past
 * MAX_ORDER warns (a core limitation, not the driver's).
 */
static uint32_t core_count(struct thr *t)
{
	return chance(t, 70) ? 1 + R32(t, 8) : 1 + R32(t, 256);
}

void op_sync_wait(struct thr *t)
{
	uint32_t h[8];
	uint64_t pts[8];
	int fd;
	uint32_t n = sync_handles(t, &fd, h), i, flags;

	flags = R32(t, 4);
	if (chance(t, 5))
		flags = (uint32_t)R(t);
	for (i = 0; i < n; i++)
		pts[i] = chance(t, 50) ? 0 : R32(t, 1000);
	if (chance(t, 50)) {
		struct drm_syncobj_wait wa = {
			.handles = (uintptr_t)h, .timeout_nsec = soon(t),
			.count_handles = n, .flags = flags,
		};

		if (chance(t, 8)) {
			wa.handles = hostile_ptr(t);
			wa.count_handles = core_count(t);
		}
		if (chance(t, 3))
			wa.count_handles = 0;
		if (chance(t, 3))
			wa.pad = 1;
		xioctl(C_SYNCOBJ_WAIT, fd, DRM_IOCTL_SYNCOBJ_WAIT, &wa);
	} else {
		struct drm_syncobj_timeline_wait wa = {
			.handles = (uintptr_t)h, .points = (uintptr_t)pts,
			.timeout_nsec = soon(t), .count_handles = n,
			.flags = flags | (chance(t, 30) ?
				 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE : 0),
		};

		if (chance(t, 8)) {
			if (chance(t, 50))
				wa.handles = hostile_ptr(t);
			else
				wa.points = hostile_ptr(t);
			wa.count_handles = core_count(t);
		}
		if (chance(t, 3))
			wa.pad = 1;
		xioctl(C_SYNCOBJ_TIMELINE_WAIT, fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT,
		       &wa);
	}
}

void op_sync_signal(struct thr *t)
{
	uint32_t h[8];
	uint64_t pts[8];
	int fd;
	uint32_t n = sync_handles(t, &fd, h), i, r = R32(t, 3);

	for (i = 0; i < n; i++)
		pts[i] = chance(t, 80) ? 1 + R32(t, 1000) : R(t);
	if (r == 2) {
		struct drm_syncobj_timeline_array a = {
			.handles = (uintptr_t)h, .points = (uintptr_t)pts,
			.count_handles = n,
		};

		if (chance(t, 8)) {
			a.points = hostile_ptr(t);
			a.count_handles = core_count(t);
		}
		if (chance(t, 3))
			a.flags = (uint32_t)R(t);
		xioctl(C_SYNCOBJ_TIMELINE_SIGNAL, fd,
		       DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &a);
	} else {
		struct drm_syncobj_array a = {
			.handles = (uintptr_t)h, .count_handles = n,
		};

		if (chance(t, 8)) {
			a.handles = hostile_ptr(t);
			a.count_handles = core_count(t);
		}
		if (chance(t, 3))
			a.pad = 1;
		if (r == 0)
			xioctl(C_SYNCOBJ_SIGNAL, fd, DRM_IOCTL_SYNCOBJ_SIGNAL, &a);
		else
			xioctl(C_SYNCOBJ_RESET, fd, DRM_IOCTL_SYNCOBJ_RESET, &a);
	}
}

void op_sync_transfer(struct thr *t)
{
	struct drm_syncobj_transfer x = { 0 };
	struct id_ent a, b;

	sync_fd_pick(t, &a);
	if (!id_pick(t->p, t->p->syncs, NSYNC, R(t), a.fd, &b, false))
		b.id = R32(t, 100);
	x.src_handle = a.id;
	x.dst_handle = b.id;
	x.src_point = chance(t, 50) ? 0 : R32(t, 1000);
	x.dst_point = chance(t, 50) ? 0 : 1 + R32(t, 1000);
	x.flags = chance(t, 80) ? 0 : chance(t, 50) ?
		  DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT : (uint32_t)R(t);
	if (chance(t, 3))
		x.pad = 1;
	xioctl(C_SYNCOBJ_TRANSFER, a.fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &x);
}

void op_sync_query(struct thr *t)
{
	uint32_t h[8];
	uint64_t pts[8];
	int fd;
	struct drm_syncobj_timeline_array a = { 0 };

	a.count_handles = sync_handles(t, &fd, h);
	a.handles = (uintptr_t)h;
	a.points = (uintptr_t)pts;
	a.flags = chance(t, 80) ? R32(t, 2) : (uint32_t)R(t);
	if (chance(t, 8)) {
		a.points = hostile_ptr(t);
		a.count_handles = core_count(t);
	}
	xioctl(C_SYNCOBJ_QUERY, fd, DRM_IOCTL_SYNCOBJ_QUERY, &a);
}

static void send_fd(struct thr *t, char tag, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &tag, 1 };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock_pair[0], &m, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		(void)t;	/* the queue is full: the fd is simply closed */
	close(fd);
}

/* An fd another process (or this one) passed; -1 if none is queued. */
int recv_fd(char *tag)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { tag, 1 };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int fd = -1;

	if (recvmsg(sock_pair[1], &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) < 1)
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* A file descriptor that is no dma-buf, syncobj or sync_file. */
static int junk_fd(struct thr *t)
{
	switch (R32(t, 4)) {
	case 0:
		return -1;
	case 1:
		return 100000 + R32(t, 1000);
	case 2:
		return sock_pair[0];
	default:
		return pick_fd(t);	/* a DRM file */
	}
}

void op_sync_export(struct thr *t)
{
	struct drm_syncobj_handle a = { 0 };
	struct id_ent e, dst;
	bool file = chance(t, 50);

	sync_fd_pick(t, &e);
	a.handle = e.id;
	a.flags = file ? DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE : 0;
	if (chance(t, 4))
		a.flags = (uint32_t)R(t);
	if (chance(t, 3))
		a.pad = 1;
	if (xioctl(file ? C_SYNCOBJ_EXPORT_SYNC_FILE : C_SYNCOBJ_HANDLE_TO_FD,
		   e.fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &a))
		return;
	if (chance(t, 40)) {
		send_fd(t, file ? 'F' : 'S', a.fd);
		return;
	}
	if (chance(t, 70)) {	/* into another file of this process */
		struct drm_syncobj_handle b = { .fd = a.fd };
		int fd = pick_fd(t);

		if (file) {
			if (!id_pick(t->p, t->p->syncs, NSYNC, R(t), fd, &dst, false))
				dst.id = R32(t, 100);
			b.handle = dst.id;
			b.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE;
			xioctl(C_SYNCOBJ_IMPORT_SYNC_FILE, fd,
			       DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &b);
		} else if (!xioctl(C_SYNCOBJ_FD_TO_HANDLE, fd,
				   DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &b)) {
			sync_add(t, fd, b.handle);
		}
	}
	close(a.fd);
}

static void op_prime_import_fd(struct thr *t, int dfd)
{
	struct drm_prime_handle ph = { .fd = dfd };
	struct drm_vmgpu_bo_info bi = { 0 };
	int fd = pick_fd(t);

	if (chance(t, 3))
		ph.flags = (uint32_t)R(t);
	if (xioctl(C_PRIME_FD_TO_HANDLE, fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph))
		return;
	bi.handle = ph.handle;
	if (xioctl(C_BO_INFO, fd, DRM_IOCTL_VMGPU_BO_INFO, &bi))
		return;
	bo_add(t, (struct bo_ent){ .fd = fd, .handle = ph.handle,
				    .va = bi.gpu_va, .size = bi.size });
}

/* Take whatever another process passed: dma-buf, syncobj or sync_file. */
void op_sync_import(struct thr *t)
{
	struct drm_syncobj_handle b = { 0 };
	struct id_ent dst;
	char tag = 0;
	int fd = pick_fd(t), sfd = recv_fd(&tag), own = sfd >= 0;

	if (!own) {
		sfd = junk_fd(t);
		tag = chance(t, 50) ? 'F' : 'S';
	}
	if (tag == 'B') {
		op_prime_import_fd(t, sfd);
	} else if (tag == 'F') {
		if (!id_pick(t->p, t->p->syncs, NSYNC, R(t), fd, &dst, false))
			dst.id = R32(t, 100);
		b.fd = sfd;
		b.handle = dst.id;
		b.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE;
		xioctl(C_SYNCOBJ_IMPORT_SYNC_FILE, fd,
		       DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &b);
	} else {
		b.fd = sfd;
		if (chance(t, 3))
			b.pad = 1;
		if (!xioctl(C_SYNCOBJ_FD_TO_HANDLE, fd,
			    DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &b))
			sync_add(t, fd, b.handle);
	}
	if (own)
		close(sfd);
}

/* ---- PRIME, flink ---- */

void op_prime_export(struct thr *t)
{
	struct drm_prime_handle ph = { 0 };
	struct bo_ent e;
	void *m;

	if (!bo_pick(t->p, R(t), -1, &e, false)) {
		e.fd = pick_fd(t);
		e.handle = R32(t, 300);
		e.size = 4096;
	}
	ph.handle = e.handle;
	ph.flags = chance(t, 90) ? (chance(t, 50) ? DRM_CLOEXEC | DRM_RDWR :
				    DRM_CLOEXEC) : (uint32_t)R(t);
	if (xioctl(C_PRIME_HANDLE_TO_FD, e.fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph))
		return;
	switch (R32(t, 4)) {
	case 0:		/* to another process */
		send_fd(t, 'B', ph.fd);
		return;
	case 1:		/* into another file of this process */
		op_prime_import_fd(t, ph.fd);
		break;
	case 2:		/* the dma-buf's own mmap */
		m = mmap(NULL, e.size, PROT_READ | PROT_WRITE, MAP_SHARED, ph.fd, 0);
		if (!note(C_MMAP, m == MAP_FAILED ? errno : 0)) {
			touch(t, m, e.size, (ph.flags & DRM_RDWR) != 0);
			note(C_MUNMAP, munmap(m, e.size) ? errno : 0);
		}
		break;
	default:
		break;
	}
	close(ph.fd);
}

void op_prime_import(struct thr *t)
{
	char tag = 0;
	int dfd = recv_fd(&tag);

	if (dfd < 0) {
		op_prime_import_fd(t, junk_fd(t));
		return;
	}
	if (tag == 'B') {
		op_prime_import_fd(t, dfd);
	} else {
		struct drm_syncobj_handle b = { .fd = dfd };
		int fd = pick_fd(t);

		if (tag == 'S' &&
		    !xioctl(C_SYNCOBJ_FD_TO_HANDLE, fd,
			    DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &b))
			sync_add(t, fd, b.handle);
	}
	close(dfd);
}

void op_flink(struct thr *t)
{
	struct drm_gem_flink f = { 0 };
	int fd = __atomic_load_n(&t->p->fds[4], __ATOMIC_RELAXED);
	struct bo_ent e;

	if (fd < 0)
		return;
	if (chance(t, 85) && bo_pick(t->p, R(t), fd, &e, false))
		f.handle = e.handle;
	else
		f.handle = R32(t, 300);
	if (!xioctl(C_GEM_FLINK, fd, DRM_IOCTL_GEM_FLINK, &f))
		__atomic_store_n(&S->names[R32(t, NNAMES)], f.name,
				 __ATOMIC_RELAXED);
}

void op_gem_open(struct thr *t)
{
	struct drm_gem_open o = { 0 };
	struct drm_vmgpu_bo_info bi = { 0 };
	int fd = __atomic_load_n(&t->p->fds[4], __ATOMIC_RELAXED);

	if (fd < 0)
		return;
	o.name = chance(t, 90) ? __atomic_load_n(&S->names[R32(t, NNAMES)],
						 __ATOMIC_RELAXED) : (uint32_t)R(t);
	if (chance(t, 3))
		o.handle = 1;
	if (xioctl(C_GEM_OPEN, fd, DRM_IOCTL_GEM_OPEN, &o))
		return;
	bi.handle = o.handle;
	xioctl(C_BO_INFO, fd, DRM_IOCTL_VMGPU_BO_INFO, &bi);
	bo_add(t, (struct bo_ent){ .fd = fd, .handle = o.handle,
				    .va = bi.gpu_va, .size = o.size });
}

/* Close a raw fd while other threads use it, and open another. */
void op_fd_reopen(struct thr *t)
{
	struct proc *p = t->p;
	unsigned int slot = 1 + R32(t, NFD - 1);
	const char *path = slot == NFD - 1 ? p->card : p->node;
	int nfd, old;

	if (!path[0])
		return;
	nfd = open(path, O_RDWR | O_CLOEXEC);
	note(C_OPEN, nfd < 0 ? errno : 0);
	old = __atomic_exchange_n(&p->fds[slot], nfd, __ATOMIC_RELAXED);
	if (old >= 0) {
		close(old);
		note(C_CLOSE, 0);
	}
}

/* Any driver ioctl number, any size and direction, random payload. */
void op_raw_ioctl(struct thr *t)
{
	static const unsigned int dirs[4] = {
		_IOC_NONE, _IOC_READ, _IOC_WRITE, _IOC_READ | _IOC_WRITE,
	};
	uint64_t *sw = (uint64_t *)t->p->scratch;
	unsigned int i, size = chance(t, 50) ? 8 * R32(t, 9) : R32(t, 512);
	unsigned long req;
	void *arg;

	for (i = 0; i < 64; i++)	/* small numbers make ioctls go further */
		sw[i] = chance(t, 50) ? R32(t, 64) : R(t);
	req = _IOC(dirs[R32(t, 4)], DRM_IOCTL_BASE,
		   DRM_COMMAND_BASE + R32(t, 16), size);
	arg = chance(t, 80) ? (void *)t->p->scratch :
	      (void *)(uintptr_t)hostile_ptr(t);
	xioctl(C_RANDOM_IOCTL, pick_fd(t), req, arg);
}

/* Buffers up to the driver's memory limit: past it BO_CREATE must fail. */
void op_memhog(struct thr *t)
{
	uint32_t handles[256], n = 0, i;
	uint64_t total = 0, chunk = 16ull << 20;
	int fd = t->p->fds[0], ret = 0;

	if (!S->mem_limit ||
	    __atomic_exchange_n(&S->memhog_busy, 1, __ATOMIC_ACQUIRE))
		return;
	while (n < 256 && total <= S->mem_limit + chunk) {
		struct drm_vmgpu_bo_create a = { .size = chunk };

		ret = xioctl(C_BO_CREATE, fd, DRM_IOCTL_VMGPU_BO_CREATE, &a);
		if (ret)
			break;
		handles[n++] = a.handle;
		total += chunk;
	}
	if (!ret)
		violation("memhog: %" PRIu64 " MiB of buffers created, limit %" PRIu64
			  " MiB", total >> 20, S->mem_limit >> 20);
	else if (ret != -ENOMEM && ret != -ENODEV)
		violation("memhog: BO_CREATE past the limit failed with %s, not ENOMEM",
			  strerror(-ret));
	for (i = 0; i < n; i++)
		gem_close(fd, handles[i]);
	add(ST_MEMHOG);
	__atomic_store_n(&S->memhog_busy, 0, __ATOMIC_RELEASE);
}
