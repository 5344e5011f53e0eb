// SPDX-License-Identifier: MIT
/*
 * vmgpu-stress: op_submit_random, the operation that sends random.c's
 * packets: each thread's private file with its buffers, context and
 * syncobjs, the packets in flight and their accounting, and the rewriter
 * thread that rewrites the kernels while they run.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vmgpu_cmd.h"
#include "vmgpu_isa.h"

#include "stress.h"

static void sleep_us(unsigned int us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* A random context; 0 if none could be made. */
static uint32_t rnd_ctx_new(struct thr *t)
{
	struct drm_vmgpu_ctx_create c = { .priority = R32(t, 3) };

	if (xioctl(C_CTX_CREATE, vmgpu_device_fd(t->rdev),
		   DRM_IOCTL_VMGPU_CTX_CREATE, &c))
		return 0;
	return c.ctx_id;
}

/* The thread's private file and its objects; false if not now. */
static bool rnd_ensure(struct thr *t)
{
	struct proc *p = t->p;
	unsigned int b, i;
	int ret;

	if (!t->rdev) {
		int raw, hi;

		/*
		 * Out of the way of the small numbers other threads close and
		 * reopen under each other (op_fd_reopen): a stale copy of one
		 * must not reach this file and close its buffers. The
		 * library's handle duplicates the descriptor above the one it
		 * is given.
		 */
		raw = open(S->node, O_RDWR | O_CLOEXEC);
		hi = raw < 0 ? -1 : fcntl(raw, F_DUPFD_CLOEXEC, RND_FD_BASE);
		ret = hi < 0 ? -errno : 0;
		if (raw >= 0)
			close(raw);
		if (!ret)
			ret = vmgpu_device_open_fd(hi, &t->rdev, NULL, 0);
		if (hi >= 0)
			close(hi);
		note(C_OPEN, ret);
		if (ret) {
			t->rdev = NULL;
			return false;
		}
		t->repoch = 1 + R32(t, 0xfffffffeu);
		t->rexec_ro = chance(t, 30);
		t->rcmdbuf = 0;
	}
	for (b = 0; b < RB_NUM; b++) {
		uint32_t flags = 0, place = VMGPU_PLACEMENT_SYSTEM;
		void *m;

		if (t->rbo[b])
			continue;
		if (b == RB_TAB || (b == RB_EXEC && t->rexec_ro))
			flags = VMGPU_BO_GPU_READ_ONLY;
		if (b == RB_DATA && chance(t, 70))
			place = VMGPU_PLACEMENT_GPU(R32(t, S->num_gpus));
		ret = vmgpu_bo_create(t->rdev, rnd_bo_bytes[b], flags, place,
				      &t->rbo[b]);
		note(C_BO_CREATE, ret);
		if (ret) {
			t->rbo[b] = NULL;
			return false;
		}
		ret = vmgpu_bo_map(t->rbo[b], &m);
		note(C_MMAP, ret);
		if (ret) {
			vmgpu_bo_destroy(t->rbo[b]);
			t->rbo[b] = NULL;
			return false;
		}
		t->rmap[b] = m;
		t->rva[b] = vmgpu_bo_gpu_va(t->rbo[b]);
		if (b == RB_TAB) {
			uint64_t *e = m;

			for (i = 0; i < rnd_bo_bytes[b] / 8; i++)
				e[i] = vmgpu_dep_pack(t->repoch,
						      R32(t, S->num_gpus),
						      VMGPU_DEP_READY);
		}
	}
	if (!p->xmaps[t->index].m) {
		for (i = 0; i < RND_SLOTS; i++)
			rnd_kernel(t, i, false);
		for (i = 0; i < RND_TMDS; i++)
			rnd_tmd(t, i, false, TMD_ANY);
		pthread_mutex_lock(&p->xlock);
		p->xmaps[t->index] = (struct xmap){
			.m = t->rmap[RB_EXEC], .va = t->rva[RB_EXEC],
		};
		pthread_mutex_unlock(&p->xlock);
	}
	for (i = 0; i < RND_PENDING; i++) {
		if (t->rsync[i])
			continue;
		ret = vmgpu_syncobj_create(t->rdev, &t->rsync[i]);
		note(C_SYNCOBJ_CREATE, ret);
		if (ret) {
			t->rsync[i] = 0;
			return false;
		}
		t->rpend[i] = false;
	}
	if (!t->rctx)
		t->rctx = rnd_ctx_new(t);
	return t->rctx != 0;
}

void rnd_release(struct thr *t)
{
	struct proc *p = t->p;
	unsigned int i;

	if (p->xmaps) {
		pthread_mutex_lock(&p->xlock);
		p->xmaps[t->index].m = NULL;	/* before the munmap */
		pthread_mutex_unlock(&p->xlock);
	}
	if (!t->rdev)
		return;
	for (i = 0; i < RB_NUM; i++) {
		vmgpu_bo_destroy(t->rbo[i]);
		t->rbo[i] = NULL;
		t->rmap[i] = NULL;
	}
	for (i = 0; i < RND_PENDING; i++) {
		if (t->rsync[i])
			vmgpu_syncobj_destroy(t->rdev, t->rsync[i]);
		t->rsync[i] = 0;
		t->rpend[i] = false;
	}
	if (t->rctx)
		ctx_destroy(vmgpu_device_fd(t->rdev), t->rctx);
	t->rctx = 0;
	vmgpu_device_close(t->rdev);
	note(C_CLOSE, 0);
	t->rdev = NULL;
}

/* The context's first fault, once it is banned; then a new context. */
static void rnd_ctx_check(struct thr *t)
{
	struct drm_vmgpu_ctx_query q = { .ctx_id = t->rctx };
	int fd = vmgpu_device_fd(t->rdev);
	unsigned int slot;

	if (xioctl(C_CTX_QUERY, fd, DRM_IOCTL_VMGPU_CTX_QUERY, &q) ||
	    !(q.state & DRM_VMGPU_CTX_BANNED))
		return;
	add(ST_RND_BANNED);
	slot = q.fault < VMGPU_FAULT_NUM ? q.fault :
	       q.fault == DRM_VMGPU_FAULT_TIMEOUT ? VMGPU_FAULT_NUM :
	       VMGPU_FAULT_NUM + 1;
	__atomic_add_fetch(&S->rnd_faults[slot], 1, __ATOMIC_RELAXED);
	/* A refused command's address is in the packet's command buffer. */
	if (q.fault == VMGPU_FAULT_BAD_COMMAND && q.addr)
		t->rcmdbuf = q.addr & ~3ull;
	verbose("random: context %u banned: fault %u on GPU %u, dispatch %u pc %u addr %#" PRIx64,
		q.ctx_id, q.fault, q.gpu, q.dispatch, q.pc, (uint64_t)q.addr);
	ctx_destroy(fd, t->rctx);
	t->rctx = 0;
}

/* Account pending packet @j if it ended (waiting up to @ms for it). */
static void rnd_reap(struct thr *t, unsigned int j, unsigned int ms)
{
	int ret, st;

	if (ms) {
		ret = wait_sync(t->rdev, t->rsync[j], ms);
	} else {
		ret = wait_signalled(t->rdev, t->rsync[j], 0);
		if (ret == -ETIME)
			return;		/* still running */
		note(C_SYNCOBJ_WAIT, ret);
	}
	t->rpend[j] = false;
	if (ret == -ETIME) {
		add(ST_RND_TIMEOUT);
		add(ST_PK_WAIT_TIMEOUT);
	}
	if (ret)
		return;
	st = sync_status(t->rdev, t->rsync[j]);
	if (st == 1) {
		add(ST_RND_COMPLETED);
		add(ST_PK_COMPLETED);
		return;
	}
	add(ST_RND_FAILED);
	add(ST_PK_FAILED);
	if (t->rctx && t->rpend_ctx[j] == t->rctx)
		rnd_ctx_check(t);
}

/*
 * Finding 13's input: a random packet made with the encoders, its words
 * mutated, submitted raw on a GPU of any kind; see random.c.
 */
void op_submit_random(struct thr *t)
{
	struct proc *p = t->p;
	struct drm_vmgpu_submit_bo bl[RB_NUM + 1];
	struct drm_vmgpu_sync in, outs;
	struct drm_vmgpu_submit s;
	unsigned int listed = 0, b, i, j, n;
	uint32_t ctx, tmpctx = 0;
	struct rpk *k;
	int fd, ret;

	if (!rnd_ensure(t))
		return;
	fd = vmgpu_device_fd(t->rdev);
	for (j = 0; j < RND_PENDING; j++)
		if (t->rpend[j])
			rnd_reap(t, j, 0);
	for (j = 0; j < RND_PENDING && t->rpend[j]; j++)
		;
	if (j == RND_PENDING) {
		j = R32(t, RND_PENDING);
		rnd_reap(t, j, 30000);
		if (t->rpend[j] || S->stop)
			return;
	}
	if (!t->rctx)
		t->rctx = rnd_ctx_new(t);
	if (!t->rctx)
		return;
	k = malloc(sizeof(*k));
	if (!k)
		return;
	rnd_build(t, k);

	/* The buffers: all of them, sometimes one less, or a bad one. */
	n = 0;
	for (b = 0; b < RB_NUM; b++) {
		if (chance(t, 3))
			continue;
		bl[n].handle = vmgpu_bo_handle(t->rbo[b]);
		bl[n].flags = (b == RB_TAB || (b == RB_EXEC && t->rexec_ro) ||
			       chance(t, 5)) ? DRM_VMGPU_SUBMIT_BO_READ : 0;
		if (chance(t, 10))
			bl[n].flags |= DRM_VMGPU_SUBMIT_BO_EXPLICIT;
		n++;
		listed |= 1u << b;
	}
	if (chance(t, 3)) {
		bl[n].handle = chance(t, 50) ? R32(t, 64) : bl[0].handle;
		bl[n++].flags = 0;
	}
	rnd_fixup(t, k, listed);

	ctx = t->rctx;
	if (chance(t, 8)) {	/* a context destroyed right after the submit */
		tmpctx = rnd_ctx_new(t);
		if (tmpctx)
			ctx = tmpctx;
	} else if (chance(t, 2)) {
		ctx = chance(t, 50) ? 0 : R32(t, 64);
	}
	memset(&s, 0, sizeof(s));
	s.cmdbuf = (uintptr_t)k->w;
	s.cmdbuf_bytes = 4 * k->n;
	s.gpu = chance(t, 2) ? S->num_gpus + R32(t, 4) : R32(t, S->num_gpus);
	s.ctx_id = ctx;
	s.bos = (uintptr_t)bl;
	s.bo_count = n;
	for (i = 0; i < RND_PENDING; i++) {
		if (i != j && t->rpend[i] && chance(t, 20)) {
			in = (struct drm_vmgpu_sync){ .handle = t->rsync[i] };
			s.in_syncs = (uintptr_t)&in;
			s.in_sync_count = 1;
			break;
		}
	}
	outs = (struct drm_vmgpu_sync){ .handle = t->rsync[j] };
	s.out_syncs = (uintptr_t)&outs;
	s.out_sync_count = 1;
	add(ST_RND_BUILT);
	ret = xioctl(C_SUBMIT, fd, DRM_IOCTL_VMGPU_SUBMIT, &s);
	if (ret) {
		__atomic_add_fetch(&S->rnd_errnos[-ret < ERRNO_SLOTS ? -ret :
						  ERRNO_SLOTS - 1],
				   1, __ATOMIC_RELAXED);
		if (ret == -ECANCELED && ctx == t->rctx)
			rnd_ctx_check(t);	/* banned */
	} else {
		add(ST_RND_ACCEPTED);
		add(ST_PK_SUBMITTED);
		t->rpend[j] = true;
		t->rpend_ctx[j] = ctx;
		if (tmpctx)
			add(ST_RND_TMPCTX);
		/* The rewriter goes for the kernels while this may run. */
		pthread_mutex_lock(&p->xlock);
		p->xmaps[t->index].busy_until = now_ns() + 200 * MS;
		pthread_mutex_unlock(&p->xlock);
	}
	if (tmpctx)
		ctx_destroy(fd, tmpctx);	/* while its packet may run */
	free(k);
}

/*
 * Another thread of the worker: rewrites the kernels of op_submit_random
 * (any thread's) while packets using them are in flight, with random
 * bytes, well-formed instructions, header fields, zeros (NOPs, then the
 * end of the code), EXIT or a branch to itself.
 */
static void rnd_rewrite(struct thr *t, uint8_t *m)
{
	uint8_t *slot = m + RND_SLOT_BYTES * R32(t, RND_SLOTS);
	uint8_t *code = slot + VMGPU_EXEC_HEADER_BYTES;
	uint32_t ninsn = (RND_SLOT_BYTES - VMGPU_EXEC_HEADER_BYTES) / 8;
	uint32_t pc = R32(t, 48), len, i, v;
	struct vmgpu_exec_header h;
	uint64_t w;

	switch (R32(t, 7)) {
	case 0:
		len = 1 + R32(t, 32);
		i = R32(t, RND_SLOT_BYTES - len);
		while (len--)
			slot[i + len] = (uint8_t)R(t);
		return;
	case 1:
		memcpy(&h, slot, sizeof(h));
		w = rnd_insn(t, h.isa_version == 1 ? 1 : 2,
			     h.num_regs && h.num_regs <= VMGPU_ISA_MAX_REGS ?
			     h.num_regs : 16,
			     h.args_bytes <= VMGPU_MAX_ARGS_BYTES ? h.args_bytes : 0,
			     pc, 48, 2, chance(t, 50));
		memcpy(code + 8 * pc, &w, 8);
		return;
	case 2:
		v = chance(t, 50) ? rnd_word(t) : R32(t, 64);
		memcpy(slot + 4 * R32(t, VMGPU_EXEC_HEADER_BYTES / 4), &v, 4);
		return;
	case 3:
		len = 8 * (1 + R32(t, 8));
		memset(code + 8 * pc, 0, len);
		return;
	case 4:
		w = chance(t, 50) ? VMGPU_INSN(VMGPU_OP_EXIT, 0, 0, 0, 0) :
		    VMGPU_INSN(VMGPU_OP_BRA, 0, VMGPU_BRA_ALWAYS, 0, pc);
		memcpy(code + 8 * pc, &w, 8);
		return;
	case 5:		/* another slot's bytes */
		memmove(slot, m + RND_SLOT_BYTES * R32(t, RND_SLOTS),
			RND_SLOT_BYTES / 2);
		return;
	default:	/* the next packets' arguments are read later */
		for (i = 0; i < 4 && pc + i < ninsn; i++) {
			w = R(t);
			memcpy(code + 8 * (pc + i), &w, 8);
		}
		return;
	}
}

void *rewriter_main(void *arg)
{
	struct proc *p = arg;
	struct thr rw;

	memset(&rw, 0, sizeof(rw));
	rw.p = p;
	rw.index = -1;
	rw.rng = splitmix(cfg.seed ^ 0x7e3717e5ull ^ ((uint64_t)p->index << 40));
	while (!S->stop) {
		unsigned int i, k = R32(&rw, cfg.threads);
		int64_t now = now_ns();
		bool did = false;

		pthread_mutex_lock(&p->xlock);
		for (i = 0; i < cfg.threads; i++) {
			struct xmap *x = &p->xmaps[(k + i) % cfg.threads];

			if (x->m && x->busy_until > now) {
				rnd_rewrite(&rw, x->m);
				did = true;
				break;
			}
		}
		pthread_mutex_unlock(&p->xlock);
		if (did)
			add(ST_RND_REWRITES);
		sleep_us(did ? 100 + R32(&rw, 900) : 5000);
	}
	return NULL;
}

