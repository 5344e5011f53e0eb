// SPDX-License-Identifier: MIT
/*
 * vmgpu-stress: an ioctl worker's machinery: the process and its threads,
 * the tables of buffers, contexts, syncobjs and mappings the threads share
 * and race on, the files they open (and reopen together when the device
 * went away), and the table of operations each thread picks from. The
 * operations themselves are in ops.c and random_op.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <xf86drm.h>

#include "stress.h"

/* ------------------------------------------------------------------ */
/* ioctl workers                                                        */
/* ------------------------------------------------------------------ */

/* Lifecycle events that take the device away (everything but kill). */
static bool disruptive(void)
{
	return on(K_LIFECYCLE) &&
	       (cfg.events & ((1u << E_UNBIND) | (1u << E_RMMOD) |
			      (1u << E_RESET)));
}

static __thread struct thr *cur_thr;

void proc_lost(struct proc *p)
{
	p->dev_lost = 1;
}

/* A pointer the kernel must refuse: unmapped, kernel, non-canonical, torn. */
uint64_t hostile_ptr(struct thr *t)
{
	struct proc *p = t->p;

	switch (R32(t, 8)) {
	case 0:
		return 0;
	case 1:
		return 1 + R32(t, 4095);
	case 2:
		return 0xffff888000000000ull + (R(t) & 0x3ffff000ull);
	case 3:
		return 0xffffffff81000000ull + (R(t) & 0xfff000ull);
	case 4:
		return (uintptr_t)p->guard + R32(t, 4096);
	case 5:		/* the last bytes of a readable page, then PROT_NONE */
		return (uintptr_t)p->guard - 1 - R32(t, 64);
	case 6:
		return 0x0000800000000000ull + (R(t) & 0xffff000ull);
	default:
		return ~0ull - R32(t, 4096);
	}
}

int pick_fd(struct thr *t)
{
	struct proc *p = t->p;
	uint32_t r = R32(t, 100);
	int fd;

	if (r < 40)
		fd = p->fds[0];
	else if (r < 85)
		fd = __atomic_load_n(&p->fds[1 + R32(t, 3)], __ATOMIC_RELAXED);
	else
		fd = __atomic_load_n(&p->fds[4], __ATOMIC_RELAXED);
	return fd < 0 ? p->fds[0] : fd;
}

/* Tables. Picking copies an entry (it may be stale by the time it is used). */
bool bo_pick(struct proc *p, uint64_t r, int fd, struct bo_ent *e,
		    bool take)
{
	unsigned int i;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < NBO; i++) {
		struct bo_ent *b = &p->bos[(r + i) % NBO];

		if (b->handle && (fd < 0 || b->fd == fd)) {
			*e = *b;
			if (take)
				b->handle = 0;
			pthread_mutex_unlock(&p->lock);
			return true;
		}
	}
	pthread_mutex_unlock(&p->lock);
	return false;
}

void bo_add(struct thr *t, struct bo_ent e)
{
	struct proc *p = t->p;
	struct bo_ent victim = { .handle = 0 };
	unsigned int i, slot = R32(t, NBO);

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < NBO; i++)
		if (!p->bos[(slot + i) % NBO].handle)
			break;
	if (i < NBO)
		slot = (slot + i) % NBO;
	else
		victim = p->bos[slot];
	p->bos[slot] = e;
	pthread_mutex_unlock(&p->lock);
	if (victim.handle)
		gem_close(victim.fd, victim.handle);
}

bool id_pick(struct proc *p, struct id_ent *tab, unsigned int n,
		    uint64_t r, int fd, struct id_ent *e, bool take)
{
	unsigned int i;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < n; i++) {
		struct id_ent *x = &tab[(r + i) % n];

		if (x->id && (fd < 0 || x->fd == fd)) {
			*e = *x;
			if (take)
				x->id = 0;
			pthread_mutex_unlock(&p->lock);
			return true;
		}
	}
	pthread_mutex_unlock(&p->lock);
	return false;
}

/* Add to an id table; returns the evicted entry (id 0 if none). */
static struct id_ent id_add(struct thr *t, struct id_ent *tab, unsigned int n,
			    struct id_ent e)
{
	struct proc *p = t->p;
	struct id_ent victim = { .id = 0 };
	unsigned int i, slot = R32(t, n);

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < n; i++)
		if (!tab[(slot + i) % n].id)
			break;
	if (i < n)
		slot = (slot + i) % n;
	else
		victim = tab[slot];
	tab[slot] = e;
	pthread_mutex_unlock(&p->lock);
	return victim;
}

void ctx_add(struct thr *t, int fd, uint32_t id)
{
	struct id_ent v = id_add(t, t->p->ctxs, NCTX,
				 (struct id_ent){ .fd = fd, .id = id });

	if (v.id)
		ctx_destroy(v.fd, v.id);
}

/*
 * A library handle of context @id of the library's file, for packets built
 * with the library on the table's raw contexts; NULL if none can be made.
 * One per id, kept until the file is closed: the library frees a handle
 * only with vmgpu_context_destroy(), which also destroys the context that
 * has the id by then, while other threads may still hold the id.
 */
struct vmgpu_context *ctx_adopted(struct proc *p, uint32_t id)
{
	struct vmgpu_context *ctx = NULL;
	unsigned int i;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < p->nadopted && p->adopted[i].id != id; i++)
		;
	if (i == p->nadopted && i == p->adopted_cap) {
		unsigned int cap = p->adopted_cap ? 2 * p->adopted_cap : 16;
		struct adopted *a = realloc(p->adopted, cap * sizeof(*a));

		if (a) {
			p->adopted = a;
			p->adopted_cap = cap;
		}
	}
	if (i < p->nadopted)
		ctx = p->adopted[i].ctx;
	else if (i < p->adopted_cap && !vmgpu_context_adopt(p->lib, id, &ctx))
		p->adopted[p->nadopted++] = (struct adopted){ id, ctx };
	pthread_mutex_unlock(&p->lock);
	return ctx;
}

void sync_add(struct thr *t, int fd, uint32_t h)
{
	struct id_ent v = id_add(t, t->p->syncs, NSYNC,
				 (struct id_ent){ .fd = fd, .id = h });

	if (v.id)
		syncobj_destroy(v.fd, v.id);
}

void map_add(struct thr *t, void *addr, size_t len)
{
	struct proc *p = t->p;
	struct map_ent victim = { .addr = NULL };
	unsigned int i, slot = R32(t, NMAP);

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < NMAP; i++)
		if (!p->maps[(slot + i) % NMAP].addr)
			break;
	if (i < NMAP)
		slot = (slot + i) % NMAP;
	else
		victim = p->maps[slot];
	p->maps[slot] = (struct map_ent){ .addr = addr, .len = len };
	pthread_mutex_unlock(&p->lock);
	if (victim.addr)
		note(C_MUNMAP, munmap(victim.addr, victim.len) ? errno : 0);
}

static void on_sigbus(int sig)
{
	struct thr *t = cur_thr;

	if (t && t->in_touch)
		siglongjmp(t->jb, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Read (and write) a few random bytes of a fresh mapping. */
void touch(struct thr *t, volatile uint8_t *m, size_t len, bool wr)
{
	size_t i, pages = (len + 4095) / 4096;

	cur_thr = t;
	if (sigsetjmp(t->jb, 1)) {
		t->in_touch = 0;
		add(ST_SIGBUS);
		if (!disruptive())
			violation("SIGBUS touching a freshly mapped buffer");
		return;
	}
	t->in_touch = 1;
	for (i = 0; i < 4 && i < pages; i++) {
		size_t off = (R(t) % pages) * 4096 + R32(t, 4096);
		uint8_t v;

		if (off >= len)
			off = len - 1;
		v = m[off];
		if (wr)
			m[off] = v ^ 0x5a;
	}
	t->in_touch = 0;
}

/* This thread's library objects; false if they cannot be made now. */
bool thr_ensure(struct thr *t)
{
	struct proc *p = t->p;
	int ret;

	if (!p->lib)
		return false;
	if (!t->kfill) {
		ret = vmgpu_kernel_create(p->lib, p->img_fill, p->img_fill_bytes,
					  &t->kfill);
		note(C_BO_CREATE, ret);
		if (ret)
			return false;
	}
	if (!t->kzero) {
		ret = vmgpu_bo_create(p->lib, 4096, VMGPU_BO_GPU_READ_ONLY,
				      VMGPU_PLACEMENT_SYSTEM, &t->kzero);
		note(C_BO_CREATE, ret);
		if (ret)
			return false;
	}
	if (!t->out) {
		ret = vmgpu_bo_create(p->lib, 16384, 0,
				      VMGPU_PLACEMENT_GPU(R32(t, S->num_gpus)),
				      &t->out);
		note(C_BO_CREATE, ret);
		if (ret)
			return false;
		ret = vmgpu_bo_map(t->out, &t->outmap);
		note(C_MMAP, ret);
		if (ret) {
			vmgpu_bo_destroy(t->out);
			t->out = NULL;
			return false;
		}
	}
	if (!t->args) {
		ret = vmgpu_bo_create(p->lib, 4096, VMGPU_BO_GPU_READ_ONLY,
				      VMGPU_PLACEMENT_SYSTEM, &t->args);
		note(C_BO_CREATE, ret);
		if (ret)
			return false;
		ret = vmgpu_bo_map(t->args, &t->argsmap);
		note(C_MMAP, ret);
		if (ret) {
			vmgpu_bo_destroy(t->args);
			t->args = NULL;
			return false;
		}
	}
	if (!t->ctx) {
		ret = vmgpu_context_create(p->lib, VMGPU_PRIORITY_NORMAL, &t->ctx);
		note(C_CTX_CREATE, ret);
		if (ret)
			return false;
	}
	if (!t->rawctx) {
		struct drm_vmgpu_ctx_create c = { .priority = R32(t, 3) };

		if (xioctl(C_CTX_CREATE, p->fds[0], DRM_IOCTL_VMGPU_CTX_CREATE, &c))
			return false;
		t->rawctx = c.ctx_id;
	}
	if (!t->sync) {
		ret = vmgpu_syncobj_create(p->lib, &t->sync);
		note(C_SYNCOBJ_CREATE, ret);
		if (ret) {
			t->sync = 0;
			return false;
		}
		t->sync_used = false;
	}
	return true;
}

void thr_release(struct thr *t)
{
	struct proc *p = t->p;

	rnd_release(t);
	if (t->sync)
		vmgpu_syncobj_destroy(p->lib, t->sync);
	if (t->rawctx && p->lib)
		ctx_destroy(p->fds[0], t->rawctx);
	vmgpu_context_destroy(t->ctx);
	vmgpu_bo_destroy(t->kfill);
	vmgpu_bo_destroy(t->kzero);
	vmgpu_bo_destroy(t->out);
	vmgpu_bo_destroy(t->args);
	t->sync = t->rawctx = 0;
	t->ctx = NULL;
	t->kfill = t->kzero = t->out = t->args = NULL;
	t->outmap = t->argsmap = NULL;
}

static int open_card(char *path, size_t len)
{
	char p[64];
	int i, fd;

	for (i = 0; i < 16; i++) {
		drmVersionPtr v;
		bool ours;

		snprintf(p, sizeof(p), "/dev/dri/card%d", i);
		fd = open(p, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		ours = v && v->name && !strcmp(v->name, DRM_VMGPU_DRIVER_NAME);
		drmFreeVersion(v);
		if (ours) {
			snprintf(path, len, "%s", p);
			return fd;
		}
		close(fd);
	}
	path[0] = 0;
	return -1;
}

static void proc_close_all(struct proc *p)
{
	unsigned int i;

	for (i = 0; i < NMAP; i++) {
		if (p->maps[i].addr)
			note(C_MUNMAP, munmap(p->maps[i].addr, p->maps[i].len) ?
			     errno : 0);
		p->maps[i].addr = NULL;
	}
	for (i = 1; i < NFD; i++) {
		if (p->fds[i] >= 0) {
			close(p->fds[i]);
			note(C_CLOSE, 0);
		}
		p->fds[i] = -1;
	}
	if (p->lib) {
		/* Each one a CTX_DESTROY, of a context the close ends anyway. */
		for (i = 0; i < p->nadopted; i++)
			vmgpu_context_destroy(p->adopted[i].ctx);
		vmgpu_device_close(p->lib);
		note(C_CLOSE, 0);
	}
	p->nadopted = 0;
	p->lib = NULL;
	p->fds[0] = -1;
	memset(p->bos, 0, sizeof(p->bos));
	memset(p->ctxs, 0, sizeof(p->ctxs));
	memset(p->syncs, 0, sizeof(p->syncs));
}

/* Open everything; keeps trying while the device is away. */
static int proc_open_all(struct proc *p)
{
	unsigned int i;
	int ret;

	for (;;) {
		if (S->stop)
			return -EINTR;
		ret = vmgpu_device_open(0, &p->lib, NULL, 0);
		note(C_OPEN, ret);
		if (!ret)
			break;
		sleep_ms(100);
	}
	p->fds[0] = vmgpu_device_fd(p->lib);
	device_node(p->lib, p->node, sizeof(p->node));
	for (i = 1; i < 4; i++) {
		p->fds[i] = open(p->node, O_RDWR | O_CLOEXEC);
		note(C_OPEN, p->fds[i] < 0 ? errno : 0);
	}
	p->fds[4] = open_card(p->card, sizeof(p->card));
	note(C_OPEN, p->fds[4] < 0 ? ENOENT : 0);
	return 0;
}

/*
 * The device went away (unbind, reset): every thread drops its objects
 * and waits here; the last one closes and reopens the files.
 */
static void regroup(struct thr *t)
{
	struct proc *p = t->p;
	int gen;

	thr_release(t);
	pthread_mutex_lock(&p->rg_lock);
	gen = p->rg_gen;
	if (++p->rg_waiting == p->nthreads) {
		proc_close_all(p);
		proc_open_all(p);
		add(ST_REOPENS);
		p->dev_lost = 0;
		p->rg_waiting = 0;
		p->rg_gen++;
		pthread_cond_broadcast(&p->rg_cond);
	} else {
		while (p->rg_gen == gen && !S->stop) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec++;
			pthread_cond_timedwait(&p->rg_cond, &p->rg_lock, &ts);
		}
		if (p->rg_gen == gen)
			p->rg_waiting--;
	}
	pthread_mutex_unlock(&p->rg_lock);
}

struct op {
	const char *name;
	enum op_group group;
	unsigned int weight;
	void (*fn)(struct thr *t);
};

static const struct op ops[] = {
	{ "param", G_PARAM, 4, op_param },
	{ "wd_policy", G_PARAM, 2, op_wd_policy },
	{ "bo_create", G_BO, 10, op_bo_create },
	{ "bo_info", G_BO, 4, op_bo_info },
	{ "bo_place", G_BO, 3, op_bo_place },
	{ "mmap", G_MMAP, 5, op_mmap },
	{ "munmap", G_MMAP, 3, op_munmap },
	{ "gem_close", G_CLOSE, 7, op_gem_close },
	{ "ctx_create", G_CTX, 3, op_ctx_create },
	{ "ctx_destroy", G_CTX, 3, op_ctx_destroy },
	{ "ctx_query", G_CTX, 3, op_ctx_query },
	{ "submit_valid", G_SUBMIT, 8, op_submit_valid },
	{ "submit_raw", G_SUBMIT, 6, op_submit_raw },
	{ "submit_hostile", G_HOSTILE, 8, op_submit_hostile },
	{ "submit_fault", G_FAULT, 1, op_submit_fault },
	{ "submit_random", G_RANDOM, 6, op_submit_random },
	{ "sync_create", G_SYNCOBJ, 4, op_sync_create },
	{ "sync_destroy", G_SYNCOBJ, 3, op_sync_destroy },
	{ "sync_wait", G_SYNCOBJ, 3, op_sync_wait },
	{ "sync_signal", G_SYNCOBJ, 3, op_sync_signal },
	{ "sync_transfer", G_SYNCOBJ, 2, op_sync_transfer },
	{ "sync_query", G_SYNCOBJ, 2, op_sync_query },
	{ "sync_export", G_SYNCOBJ, 3, op_sync_export },
	{ "sync_import", G_SYNCOBJ, 2, op_sync_import },
	{ "prime_export", G_PRIME, 4, op_prime_export },
	{ "prime_import", G_PRIME, 4, op_prime_import },
	{ "flink", G_FLINK, 2, op_flink },
	{ "gem_open", G_FLINK, 2, op_gem_open },
	{ "fd_reopen", G_FDS, 1, op_fd_reopen },
	{ "raw_ioctl", G_RAWIOCTL, 3, op_raw_ioctl },
	{ "memhog", G_MEMHOG, 1, op_memhog },
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

static unsigned int op_cum[NOPS], op_total;

static void *thr_main(void *arg)
{
	struct thr *t = arg;

	cur_proc = t->p;
	cur_thr = t;
	while (!S->stop) {
		unsigned int r, i;

		if (t->p->dev_lost) {
			regroup(t);
			continue;
		}
		if (!op_total)
			break;
		r = R32(t, op_total);
		for (i = 0; i < NOPS && r >= op_cum[i]; i++)
			;
		ops[i].fn(t);
	}
	thr_release(t);
	pthread_mutex_lock(&t->p->rg_lock);
	t->p->nthreads--;
	pthread_cond_broadcast(&t->p->rg_cond);
	pthread_mutex_unlock(&t->p->rg_lock);
	return NULL;
}

int worker_main(int index, int incarnation)
{
	static char name[32];
	struct sigaction sa;
	struct proc *p;
	struct thr *th;
	pthread_t *tid, rw_tid;
	unsigned int i, cum = 0;
	bool rewriter = false;

	snprintf(name, sizeof(name), "worker%d.%d", index, incarnation);
	role = name;
	for (i = 0; i < NOPS; i++) {
		unsigned int w = ops[i].weight;

		if (!(cfg.groups & (1u << ops[i].group)))
			w = 0;
		if (ops[i].group == G_MEMHOG && !S->mem_limit)
			w = 0;
		cum += w;
		op_cum[i] = cum;
	}
	op_total = cum;

	p = calloc(1, sizeof(*p));
	th = calloc(cfg.threads, sizeof(*th));
	tid = calloc(cfg.threads, sizeof(*tid));
	if (!p || !th || !tid)
		return 1;
	p->xmaps = calloc(cfg.threads, sizeof(*p->xmaps));
	if (!p->xmaps)
		return 1;
	p->index = index;
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->xlock, NULL);
	pthread_mutex_init(&p->rg_lock, NULL);
	pthread_cond_init(&p->rg_cond, NULL);
	for (i = 0; i < NFD; i++)
		p->fds[i] = -1;
	p->scratch = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->scratch == MAP_FAILED)
		return 1;
	p->guard = p->scratch + 4096;
	mprotect(p->guard, 4096, PROT_NONE);
	assemble(vmgpu_builtin_kernel_source("fill"), &p->img_fill,
		 &p->img_fill_bytes);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGBUS, &sa, NULL);

	cur_proc = p;
	if (proc_open_all(p))
		return 0;
	p->nthreads = cfg.threads;
	for (i = 0; i < cfg.threads; i++) {
		th[i].p = p;
		th[i].index = i;
		th[i].rng = splitmix(cfg.seed ^ ((uint64_t)index << 40) ^
				     ((uint64_t)incarnation << 20) ^ i);
		if (pthread_create(&tid[i], NULL, thr_main, &th[i])) {
			fprintf(stderr, "%s: pthread_create failed\n", role);
			return 1;
		}
	}
	/* Kernels of op_submit_random rewritten while they run. */
	for (i = 0; i < NOPS; i++)
		if (ops[i].fn == op_submit_random &&
		    op_cum[i] != (i ? op_cum[i - 1] : 0))
			rewriter = true;
	if (rewriter && pthread_create(&rw_tid, NULL, rewriter_main, p)) {
		fprintf(stderr, "%s: pthread_create failed\n", role);
		return 1;
	}
	for (i = 0; i < cfg.threads; i++)
		pthread_join(tid[i], NULL);
	if (rewriter)
		pthread_join(rw_tid, NULL);
	proc_close_all(p);
	return 0;
}
