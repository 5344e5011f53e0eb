// SPDX-License-Identifier: MIT
/*
 * vmgpu-stress: the concurrency and lifecycle stress suite of vmgpu.ko
 * (Documentation/robustness.rst). Runs inside the test VM, as root.
 *
 * The controller (this process) forks:
 *  - ioctl workers: --procs processes of --threads threads; the threads of
 *    a process share its files (one library handle and a few raw render
 *    and primary-node fds) and tables of buffer handles, context ids,
 *    syncobjs and mappings, and race every ioctl against every other with
 *    valid and hostile arguments. Processes share flink names, and pass
 *    dma-buf, syncobj and sync_file fds to each other over a unix socket.
 *    The "random" group (finding 13: a random submitter crashed QEMU)
 *    sends random packets (the encoders' commands, mutated words, SYNC
 *    indices such as 0xffffffff, addresses at and past buffer ends, of
 *    other files, unmapped, 0, the top of the VA space) with random and
 *    well-formed random kernels, which a rewriter thread per process
 *    rewrites while they run, on every GPU, the checker's included, from
 *    a private file per thread; they may fault but never wait for ever;
 *  - the checker: known kernels (fill, saxpy, vecadd, pipelines, a
 *    cross-GPU dependency) on GPUs 1..N-1 of an innocent context; every
 *    result is compared bit for bit and every call must succeed (so a
 *    fault of a random or hostile context that reaches it fails the run);
 *  - the hang injector (--hang): on GPU 0 only, as user nobody, endless
 *    kernels at the largest instruction budget a user may set, and
 *    WAIT_VALUEs and DEP_WAITs (on an explicitly synced table) nobody
 *    satisfies; each must end with an error;
 * and injects lifecycle events itself (--lifecycle): SIGKILL of workers,
 * unbind/rebind, rmmod/insmod, PCI function reset.
 *
 * What fails the run (exit status 1; 2 when the run could not go on):
 * a worker crashing, a task that SIGKILL does not end, a task left in D
 * state, a checker error outside a lifecycle window or a wrong result, a
 * hang that does not end, a leak (driver counters, Shmem/Unevictable, open
 * files, MEM_USED) after every process exited and again after an
 * unbind/rebind, and any kernel report in the log (BUG, WARNING, Oops,
 * lockdep, soft lockup, hung task, RCU stall, ...). Errors the driver
 * returns for hostile calls are expected and only counted.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <xf86drm.h>

#include "tool_common.h"
#include "vmgpu.h"
#include "vmgpu_drm.h"
#include "vmgpu_cmd.h"
#include "vmgpu_isa.h"
/* To submit library-built packets on context ids the library did not make. */
#include "shim_internal.h"

#define DRV_DIR		"/sys/bus/pci/drivers/vmgpu"
#define NS		1000000000ll
#define MS		1000000ll

/* Per-process tables shared by the threads of an ioctl worker. */
#define NBO		64
#define NCTX		16
#define NSYNC		32
#define NMAP		16
#define NFD		5	/* 0 library, 1..3 raw render fds, 4 primary */
#define NNAMES		64	/* flink names, shared by every process */
#define MAX_KIDS	64
#define ERRNO_SLOTS	160

#define EXIT_DEVLOST	3	/* the hang injector lost its device */

/* ------------------------------------------------------------------ */
/* Counters, shared by every process (anonymous shared mapping)          */
/* ------------------------------------------------------------------ */

enum call {
	C_GET_PARAM, C_BO_CREATE, C_BO_INFO, C_BO_MMAP_OFFSET, C_GEM_CLOSE,
	C_CTX_CREATE, C_CTX_DESTROY, C_CTX_QUERY, C_SUBMIT,
	C_SYNCOBJ_CREATE, C_SYNCOBJ_DESTROY, C_SYNCOBJ_WAIT,
	C_SYNCOBJ_TIMELINE_WAIT, C_SYNCOBJ_SIGNAL, C_SYNCOBJ_TIMELINE_SIGNAL,
	C_SYNCOBJ_RESET, C_SYNCOBJ_TRANSFER, C_SYNCOBJ_QUERY,
	C_SYNCOBJ_HANDLE_TO_FD, C_SYNCOBJ_FD_TO_HANDLE,
	C_SYNCOBJ_EXPORT_SYNC_FILE, C_SYNCOBJ_IMPORT_SYNC_FILE,
	C_PRIME_HANDLE_TO_FD, C_PRIME_FD_TO_HANDLE, C_GEM_FLINK, C_GEM_OPEN,
	C_WD_POLICY, C_BO_PLACE, C_RANDOM_IOCTL,
	C_IOCTL_END,		/* the calls above are ioctls */
	C_MMAP = C_IOCTL_END, C_MUNMAP, C_OPEN, C_CLOSE,
	C_NUM
};

static const char *const call_names[C_NUM] = {
	"GET_PARAM", "BO_CREATE", "BO_INFO", "BO_MMAP_OFFSET", "GEM_CLOSE",
	"CTX_CREATE", "CTX_DESTROY", "CTX_QUERY", "SUBMIT",
	"SYNCOBJ_CREATE", "SYNCOBJ_DESTROY", "SYNCOBJ_WAIT",
	"SYNCOBJ_TIMELINE_WAIT", "SYNCOBJ_SIGNAL", "SYNCOBJ_TIMELINE_SIGNAL",
	"SYNCOBJ_RESET", "SYNCOBJ_TRANSFER", "SYNCOBJ_QUERY",
	"SYNCOBJ_HANDLE_TO_FD", "SYNCOBJ_FD_TO_HANDLE",
	"SYNCOBJ_EXPORT_SYNC_FILE", "SYNCOBJ_IMPORT_SYNC_FILE",
	"PRIME_HANDLE_TO_FD", "PRIME_FD_TO_HANDLE", "GEM_FLINK", "GEM_OPEN",
	"WD_POLICY", "BO_PLACE", "random ioctl",
	"mmap", "munmap", "open", "close",
};

enum stress_stat {
	ST_PK_SUBMITTED, ST_PK_COMPLETED, ST_PK_FAILED, ST_PK_WAIT_TIMEOUT,
	ST_PK_VERIFIED, ST_CHK_JOBS, ST_HOSTILE_ACCEPTED, ST_MUTATED_RUN,
	ST_FAULTS, ST_HANGS, ST_HANGS_ENDED,
	ST_LC_KILL, ST_LC_UNBIND, ST_LC_RMMOD, ST_LC_RESET, ST_LC_RECOVER,
	ST_RESTARTS, ST_CHK_PAUSES, ST_CHK_TOLERATED, ST_CHK_REOPENS,
	ST_REOPENS, ST_SIGBUS, ST_MEMHOG, ST_PROBES,
	/* op_submit_random */
	ST_RND_BUILT, ST_RND_MUTATED, ST_RND_ACCEPTED, ST_RND_COMPLETED,
	ST_RND_FAILED, ST_RND_TIMEOUT, ST_RND_BANNED, ST_RND_TMPCTX,
	ST_RND_KERN_RANDOM, ST_RND_KERN_BADHDR, ST_RND_KERN_WELL,
	ST_RND_REWRITES,
	ST_NUM
};

/* Faults of the random op's contexts: VMGPU_FAULT_*, then timeout, other. */
#define RND_FAULT_SLOTS	(VMGPU_FAULT_NUM + 2)

struct shared {
	uint64_t calls[C_NUM], call_errs[C_NUM];
	uint64_t errnos[ERRNO_SLOTS];
	uint64_t stat[ST_NUM];
	uint64_t rnd_errnos[ERRNO_SLOTS];	/* refused random packets */
	uint64_t rnd_faults[RND_FAULT_SLOTS];
	uint64_t violations;
	volatile int stop;
	/* Odd while a disruptive lifecycle event (unbind, rmmod, reset) runs. */
	volatile unsigned int window;
	volatile int pause_req, paused;
	volatile int memhog_busy;
	/* The controller's watchdog: the longest stall seen, and when. */
	volatile int64_t stall_ns, stall_at;
	uint32_t names[NNAMES];
	/* Device facts the controller found out before forking. */
	uint32_t num_gpus;
	uint64_t max_budget;	/* for users; 0xffffffff on old drivers */
	bool budget_param;	/* the driver answered MAX_USER_INSTR_BUDGET */
	uint64_t mem_limit;	/* 0: the driver has none (or it is too big) */
	uint32_t isa_version, max_dispatches;
	uint64_t va_start, va_end;	/* what the driver hands out */
	char node[64];
};

static struct shared *S;

/* ------------------------------------------------------------------ */
/* Configuration                                                        */
/* ------------------------------------------------------------------ */

enum kind { K_IOCTL, K_CHECKER, K_HANG, K_LIFECYCLE, K_NUM };
static const char *const kind_names[K_NUM] = {
	"ioctl", "checker", "hang", "lifecycle",
};

enum event { E_KILL, E_UNBIND, E_RMMOD, E_RESET, E_NUM };
static const char *const event_names[E_NUM] = {
	"kill", "unbind", "rmmod", "reset",
};

enum op_group {
	G_PARAM, G_BO, G_MMAP, G_CLOSE, G_CTX, G_SUBMIT, G_HOSTILE, G_FAULT,
	G_RANDOM, G_SYNCOBJ, G_PRIME, G_FLINK, G_FDS, G_RAWIOCTL, G_MEMHOG,
	G_NUM
};
static const char *const group_names[G_NUM] = {
	"param", "bo", "mmap", "close", "ctx", "submit", "hostile", "fault",
	"random", "syncobj", "prime", "flink", "fds", "rawioctl", "memhog",
};

static struct {
	unsigned int duration, procs, threads;
	uint64_t seed;
	unsigned int kinds, events, groups;
	bool report, verbose, no_rebind;
	double interval;
	const char *module;
	unsigned int hung_task_secs, stall_ms;
	unsigned long slack_kb;
} cfg = {
	.duration = 60, .procs = 3, .threads = 4,
	.events = (1u << E_NUM) - 1, .groups = (1u << G_NUM) - 1,
	.interval = 6.0, .module = "/vmgpu/modules/vmgpu.ko",
	.hung_task_secs = 30, .stall_ms = 10000, .slack_kb = 2048,
};

static const char *role = "controller";
static int64_t t0;
static char bdf[64];
static int sock_pair[2] = { -1, -1 };

static bool on(enum kind k)
{
	return cfg.kinds & (1u << k);
}

/* Lifecycle events that take the device away (everything but kill). */
static bool disruptive(void)
{
	return on(K_LIFECYCLE) &&
	       (cfg.events & ((1u << E_UNBIND) | (1u << E_RMMOD) |
			      (1u << E_RESET)));
}

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */
/* ------------------------------------------------------------------ */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static void add(enum stress_stat s)
{
	__atomic_add_fetch(&S->stat[s], 1, __ATOMIC_RELAXED);
}

static void out(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
	char buf[2048];
	int n;

	n = snprintf(buf, sizeof(buf), "[%7.2f] %s%s[%d]: ",
		     (now_ns() - t0) / 1e9, prefix, role, getpid());
	if (n < 0 || n >= (int)sizeof(buf))
		return;
	vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	n = strlen(buf);
	buf[n++] = '\n';
	fflush(f);
	if (write(fileno(f), buf, n) < 0)
		return;
}

static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out(stdout, "", fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 1, 2))) verbose(const char *fmt, ...)
{
	va_list ap;

	if (!cfg.verbose)
		return;
	va_start(ap, fmt);
	out(stdout, "", fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 1, 2))) violation(const char *fmt, ...)
{
	va_list ap;

	__atomic_add_fetch(&S->violations, 1, __ATOMIC_RELAXED);
	va_start(ap, fmt);
	out(stdout, "VIOLATION: ", fmt, ap);
	va_end(ap);
}

/* A line in the kernel log, so reports can be matched with events. */
static void kmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void kmsg(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int fd, n;

	n = snprintf(buf, sizeof(buf), "<5>vmgpu-stress: ");
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, buf, strlen(buf)) < 0)
		(void)0;
	close(fd);
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return (int)n;
}

/* First @len - 1 bytes of a file; -errno. */
static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n <= 0)
			break;
		got += n;
	}
	buf[got] = 0;
	close(fd);
	return (int)got;
}

/* ------------------------------------------------------------------ */
/* Counting every call on the device                                    */
/* ------------------------------------------------------------------ */

struct proc;
static __thread struct proc *cur_proc;
static void proc_lost(struct proc *p);

/* Count one call of type @c that failed with @err (0: success). */
static int note(enum call c, int err)
{
	__atomic_add_fetch(&S->calls[c], 1, __ATOMIC_RELAXED);
	if (err < 0)
		err = -err;
	if (!err)
		return 0;
	__atomic_add_fetch(&S->call_errs[c], 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&S->errnos[err < ERRNO_SLOTS ? err : ERRNO_SLOTS - 1],
			   1, __ATOMIC_RELAXED);
	/* Only an unplugged DRM device answers an ioctl with ENODEV. */
	if (err == ENODEV && c < C_IOCTL_END && cur_proc)
		proc_lost(cur_proc);
	return -err;
}

static int xioctl(enum call c, int fd, unsigned long req, void *arg)
{
	int r = ioctl(fd, req, arg);

	return note(c, r ? errno : 0);
}

static int gem_close(int fd, uint32_t h)
{
	struct drm_gem_close gc = { .handle = h };

	return xioctl(C_GEM_CLOSE, fd, DRM_IOCTL_GEM_CLOSE, &gc);
}

static int ctx_destroy(int fd, uint32_t id)
{
	struct drm_vmgpu_ctx_destroy d = { .ctx_id = id };

	return xioctl(C_CTX_DESTROY, fd, DRM_IOCTL_VMGPU_CTX_DESTROY, &d);
}

static int syncobj_destroy(int fd, uint32_t h)
{
	struct drm_syncobj_destroy d = { .handle = h };

	return xioctl(C_SYNCOBJ_DESTROY, fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
}

static int get_param(int fd, uint32_t param, uint64_t *v)
{
	struct drm_vmgpu_get_param gp = { .param = param };
	int ret = xioctl(C_GET_PARAM, fd, DRM_IOCTL_VMGPU_GET_PARAM, &gp);

	if (!ret)
		*v = gp.value;
	return ret;
}

/*
 * Wait for a syncobj in slices of a second, up to @timeout_ms, returning
 * early (-EINTR) when the run stops. 0, -ETIME, or the wait's error.
 */
/*
 * Wait until @h is signalled: 0 also when its packet failed (the wait
 * returns the packet's error; callers read it from the status), or the
 * wait's own error.
 */
static int wait_signalled(struct vmgpu_device *dev, uint32_t h,
			  int64_t timeout_ns)
{
	int ret = vmgpu_syncobj_wait(dev, h, 0, timeout_ns);

	if (ret < 0 && ret != -ETIME && vmgpu_syncobj_status(dev, h) < 0)
		return 0;
	return ret;
}

static int wait_sync(struct vmgpu_device *dev, uint32_t h, unsigned int timeout_ms)
{
	int64_t end = now_ns() + (int64_t)timeout_ms * MS;
	int ret;

	for (;;) {
		int64_t left = end - now_ns();

		if (left <= 0)
			return -ETIME;
		ret = wait_signalled(dev, h, left < NS ? left : NS);
		note(C_SYNCOBJ_WAIT, ret == -ETIME ? 0 : ret);
		if (ret != -ETIME)
			return ret;
		if (S->stop)
			return -EINTR;
	}
}

static int sync_status(struct vmgpu_device *dev, uint32_t h)
{
	/* Negative: the fence's error, or the export's. */
	int st = vmgpu_syncobj_status(dev, h);

	note(C_SYNCOBJ_EXPORT_SYNC_FILE, 0);
	return st;
}

/* Assemble a built-in or given kernel; exits on failure (a bug here). */
static void assemble(const char *src, void **image, size_t *bytes)
{
	char err[256];

	if (vmgpu_asm_assemble(src, image, bytes, err, sizeof(err))) {
		fprintf(stderr, "vmgpu-stress: assembler: %s\n", err);
		exit(1);
	}
}

/* An endless loop; the instruction budget or the job timeout ends it. */
static const char forever_src[] =
	"loop:\n"
	"	bra loop\n"
	"	exit\n";

struct fill_args {
	uint64_t out;
	uint32_t n, mul, add, spin;
};

/* ------------------------------------------------------------------ */
/* ioctl workers                                                        */
/* ------------------------------------------------------------------ */

struct bo_ent {
	int fd;
	uint32_t handle;	/* 0: free slot */
	uint64_t va, size;
};

struct id_ent {
	int fd;
	uint32_t id;		/* 0: free slot */
};

struct map_ent {
	void *addr;		/* NULL: free slot */
	size_t len;
};

/* An executable buffer of op_submit_random, for the rewriter thread. */
struct xmap {
	uint8_t *m;		/* NULL: free slot */
	uint64_t va;
	int64_t busy_until;	/* packets using it may run until then */
};

struct proc {
	int index;
	pthread_mutex_t lock;		/* the tables */
	struct vmgpu_device *lib;
	int fds[NFD];
	char node[64], card[64];
	struct bo_ent bos[NBO];
	struct id_ent ctxs[NCTX];
	struct id_ent syncs[NSYNC];
	struct map_ent maps[NMAP];
	volatile int dev_lost;
	/* Regrouping of the threads when the device went away. */
	pthread_mutex_t rg_lock;
	pthread_cond_t rg_cond;
	int rg_waiting, rg_gen, nthreads;
	uint8_t *scratch, *guard;	/* a random RW page, then PROT_NONE */
	void *img_fill;
	size_t img_fill_bytes;
	/* One per thread, by index; the rewriter writes them under xlock. */
	pthread_mutex_t xlock;
	struct xmap *xmaps;
};

/* The buffers of op_submit_random, in its thread's private file. */
enum { RB_EXEC, RB_DATA, RB_ARGS, RB_TAB, RB_NUM };
#define RND_PENDING	3	/* its packets in flight per thread */
#define RND_SLOTS	8	/* kernels in the executable buffer */

struct thr {
	struct proc *p;
	int index;
	uint64_t rng;
	/* Library objects of this thread on p->lib. */
	struct vmgpu_bo *kfill, *kzero, *out, *args;
	void *outmap, *argsmap;
	struct vmgpu_context *ctx;
	uint32_t sync, rawctx;
	bool sync_used;
	sigjmp_buf jb;
	volatile sig_atomic_t in_touch;
	/* op_submit_random: a private file, its buffers, context, syncobjs. */
	struct vmgpu_device *rdev;
	struct vmgpu_bo *rbo[RB_NUM];
	uint8_t *rmap[RB_NUM];
	uint64_t rva[RB_NUM];
	uint32_t rctx, rsync[RND_PENDING], rpend_ctx[RND_PENDING];
	bool rpend[RND_PENDING], rexec_ro;
	uint32_t repoch;		/* of the read-only table's entries */
	uint32_t rslot_args[RND_SLOTS];	/* argument bytes of each kernel */
	uint64_t rcmdbuf;		/* a command buffer's address (a fault) */
};

static __thread struct thr *cur_thr;

static void proc_lost(struct proc *p)
{
	p->dev_lost = 1;
}

static uint64_t R(struct thr *t)
{
	return rnd(&t->rng);
}

static uint32_t R32(struct thr *t, uint32_t n)
{
	return n ? (uint32_t)(R(t) % n) : 0;
}

static bool chance(struct thr *t, unsigned int pct)
{
	return R32(t, 100) < pct;
}

/* A pointer the kernel must refuse: unmapped, kernel, non-canonical, torn. */
static uint64_t hostile_ptr(struct thr *t)
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

static int pick_fd(struct thr *t)
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
static bool bo_pick(struct proc *p, uint64_t r, int fd, struct bo_ent *e,
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

static void bo_add(struct thr *t, struct bo_ent e)
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

static bool id_pick(struct proc *p, struct id_ent *tab, unsigned int n,
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

static void ctx_add(struct thr *t, int fd, uint32_t id)
{
	struct id_ent v = id_add(t, t->p->ctxs, NCTX,
				 (struct id_ent){ .fd = fd, .id = id });

	if (v.id)
		ctx_destroy(v.fd, v.id);
}

static void sync_add(struct thr *t, int fd, uint32_t h)
{
	struct id_ent v = id_add(t, t->p->syncs, NSYNC,
				 (struct id_ent){ .fd = fd, .id = h });

	if (v.id)
		syncobj_destroy(v.fd, v.id);
}

static void map_add(struct thr *t, void *addr, size_t len)
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
static void touch(struct thr *t, volatile uint8_t *m, size_t len, bool wr)
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
static bool thr_ensure(struct thr *t)
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

static void rnd_release(struct thr *t);

static void thr_release(struct thr *t)
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
		vmgpu_device_close(p->lib);
		note(C_CLOSE, 0);
	}
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
	snprintf(p->node, sizeof(p->node), "%s", p->lib->node);
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

/* ---- the operations ---- */

static void op_param(struct thr *t)
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
static void op_wd_policy(struct thr *t)
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

static void op_bo_create(struct thr *t)
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

static void op_bo_info(struct thr *t)
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
static void op_bo_place(struct thr *t)
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

static void op_mmap(struct thr *t)
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

static void op_munmap(struct thr *t)
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

static void op_gem_close(struct thr *t)
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

static void op_ctx_create(struct thr *t)
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

static void op_ctx_destroy(struct thr *t)
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

static void op_ctx_query(struct thr *t)
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

/* A context id of the library's file: a shared one, or the thread's. */
static uint32_t lib_ctx(struct thr *t)
{
	struct id_ent e;

	if (chance(t, 35) &&
	    id_pick(t->p, t->p->ctxs, NCTX, R(t), t->p->fds[0], &e, false))
		return e.id;
	return t->ctx->id;
}

/* Valid packets built with the library: fill, sometimes two with a SYNC. */
static void op_submit_valid(struct thr *t)
{
	struct proc *p = t->p;
	struct vmgpu_sync in[2], outs = { 0 };
	struct vmgpu_submit_info info = { 0 };
	struct vmgpu_dispatch_desc d;
	struct vmgpu_context ctx;
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
	ctx.dev = p->lib;
	ctx.id = lib_ctx(t);
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
	ret = vmgpu_submit(&ctx, cb, &info);
	note(C_SUBMIT, ret < 0 ? ret : 0);
	if (ret < 0) {
		if (ret == -ECANCELED && ctx.id == t->ctx->id) {
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
static void op_submit_raw(struct thr *t)
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

static void op_submit_hostile(struct thr *t)
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
static void op_submit_fault(struct thr *t)
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

/* ---- random packets and kernels (finding 13) ---- */

/*
 * A hostile user crashed QEMU with random packets (finding 13): valid
 * headers and random command words, random grids, SYNC indices such as
 * 0xffffffff, addresses just inside and just past buffers, random kernels
 * in buffers another thread rewrote while they ran. op_submit_random makes
 * that input, on every GPU (the checker's too: a fault must only ever hurt
 * the guilty context). Each thread does it in a private file of its own,
 * on a descriptor above RND_FD_BASE, so that no other thread closes or
 * replaces its buffers (not even through a stale copy of a small fd):
 *
 *   exec   RND_SLOTS kernels (GPU-writable or read-only), rewritten by the
 *          process's rewriter thread while packets using them run
 *   data   stores, copies, queues, take words, signalled tables; placed
 *          in any GPU's memory
 *   args   the argument block (interesting addresses, small numbers) and
 *          task descriptors, rewritten before packets
 *   table  GPU-read-only, every entry READY in the thread's epoch
 *
 * Fields are in range, at the edges, or (in "wild" packets) anything; 40%
 * of the other packets then get a few command words replaced. Three in
 * ten packets are "tame": new kernels of well-formed instructions on
 * addresses that work, clean task descriptors, the packet's own queue
 * task, no mutation, so that they get as far as LAUNCH, ENQ, queue
 * blocks, TAKE portions and copies before anything faults.
 *
 * Nothing it sends may wait for ever, since it runs next to the checker:
 * every packet starts with SET_STATE INSTR_BUDGET of at most
 * RND_MAX_BUDGET (which bounds every task of the packet, children too),
 * a WAIT_VALUE's condition holds for every word, DEP_WAITs and the
 * after-entries of COPY_ASYNCs read the read-only table, TAKEs do not
 * wait. rnd_fixup() puts these back after the words were mutated.
 */
#define RND_SLOT_BYTES	2048
#define RND_NADDR	32		/* u64 slots of the argument block: */
#define RND_ARGS	(8 * RND_NADDR)	/* its bytes */
#define RND_INSIDE	14		/* task descriptors, inside buffers, */
#define RND_SMALL	28		/* interesting addresses, small numbers */
#define RND_TMD_OFF	1024		/* task descriptors in the args buffer */
#define RND_TMDS	8
#define RND_ITEMS_OFF	32768		/* queue items in the data buffer */
#define RND_MAX_BUDGET	4096
#define RND_MAX_WORDS	1024
#define RND_FD_BASE	512		/* the private files' descriptors */

static const uint64_t rnd_bo_bytes[RB_NUM] = {
	[RB_EXEC] = RND_SLOTS * RND_SLOT_BYTES, [RB_DATA] = 65536,
	[RB_ARGS] = 8192, [RB_TAB] = 4096,
};

static void sleep_us(unsigned int us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The opcode table, for well-formed random instructions. */
struct isa_op {
	uint8_t code, fmt, flags, bytes;
};

static const struct isa_op isa_ops[] = {
#define RND_ISA_X(name, code, mnem, fmt, flags, bytes) \
	{ code, VMGPU_FMT_##fmt, flags, bytes },
	VMGPU_ISA_OPCODES(RND_ISA_X)
#undef RND_ISA_X
};
#define NISA_OPS (sizeof(isa_ops) / sizeof(isa_ops[0]))

static bool isa_mem(const struct isa_op *o)
{
	return o->fmt == VMGPU_FMT_LOAD || o->fmt == VMGPU_FMT_STORE ||
	       o->fmt == VMGPU_FMT_ATOM || o->fmt == VMGPU_FMT_CAS ||
	       o->fmt == VMGPU_FMT_LAUNCH;
}

/* A dispatch index a validator must get right. */
static uint32_t rnd_index(struct thr *t, uint32_t disp)
{
	static const uint32_t v[] = {
		0xfffffffeu, 0x80000000u, 255, 256, 257, 1023, 1024, 1025,
	};

	switch (R32(t, 6)) {
	case 0:		/* finding 13: one past it wrapped to 0 */
		return 0xffffffffu;
	case 1:
		return v[R32(t, sizeof(v) / sizeof(v[0]))];
	case 2:		/* around the packet's limit */
		return S->max_dispatches - 1 + R32(t, 3);
	case 3:		/* around this command */
		return disp - 1 + R32(t, 3);
	case 4:
		return R32(t, 8);
	default:
		return (uint32_t)R(t);
	}
}

/*
 * An address a hostile user would try: inside, at the start, at the end
 * and just past the end of the thread's buffers, the kernel buffer, a
 * command buffer a fault revealed, buffers of other files, unmapped
 * pages, 0 and the first page, the top of the 39-bit address space and
 * beyond, task descriptors.
 */
static uint64_t rnd_addr(struct thr *t)
{
	struct proc *p = t->p;
	unsigned int b = R32(t, RB_NUM), i, k;
	uint64_t va = t->rva[b], size = rnd_bo_bytes[b], top;
	uint64_t lo = S->va_start, hi = S->va_end;
	struct bo_ent e;

	top = 1ull << VMGPU_VA_BITS;
	if (hi <= lo)
		lo = 0, hi = top;
	switch (R32(t, 16)) {
	case 0:
	case 1:
		return va + 8 * R32(t, (uint32_t)(size / 8));
	case 2:
		return va;
	case 3:
		return va + size - 4 * (1 + R32(t, 4));
	case 4:
		return va + size;		/* just past the end */
	case 5:
		return va + size + 4096 * R32(t, 4) - 4 * R32(t, 3);
	case 6:		/* the kernel buffer */
		return t->rva[RB_EXEC] + RND_SLOT_BYTES * R32(t, RND_SLOTS) +
		       8 * R32(t, 8);
	case 7:		/* a command buffer, or the page before a buffer */
		return t->rcmdbuf ? t->rcmdbuf + 4 * R32(t, 64) - 4 * R32(t, 8) :
		       va - 4096 + 4 * R32(t, 1024);
	case 8:		/* buffers of other files of the process */
		if (t->index < 0)	/* the rewriter: it holds xlock */
			return hi - 4096;
		if (bo_pick(p, R(t), -1, &e, false))
			return e.va + (chance(t, 50) ? 0 : e.size);
		return t->out ? vmgpu_bo_gpu_va(t->out) : 0;
	case 9:		/* another thread's kernel buffer */
		if (t->index < 0)
			return hi - 8192;
		pthread_mutex_lock(&p->xlock);
		k = R32(t, cfg.threads);
		for (i = 0; i < cfg.threads; i++)
			if (p->xmaps[(k + i) % cfg.threads].m)
				break;
		va = i < cfg.threads ? p->xmaps[(k + i) % cfg.threads].va : 0;
		pthread_mutex_unlock(&p->xlock);
		return va;
	case 10:	/* unmapped, most likely */
		return hi - 4096 * (1 + R32(t, 64));
	case 11:
		return (lo + R(t) % (hi - lo)) & ~4095ull;
	case 12:
		return chance(t, 50) ? 0 : R32(t, 4096);
	case 13:	/* the top of the address space, and past it */
		return top - 8 * R32(t, 3) + (chance(t, 30) ? 4096 : 0);
	case 14:
		switch (R32(t, 4)) {
		case 0: return 1ull << 63;
		case 1: return ~0ull - 7;
		case 2: return 0x0000800000000000ull;
		default: return top + (R(t) & 0xffffff8ull);
		}
	default:	/* task descriptors */
		return t->rva[RB_ARGS] + RND_TMD_OFF +
		       VMGPU_TMD_BYTES * R32(t, RND_TMDS);
	}
}

/* A word to put in a command field. */
static uint32_t rnd_word(struct thr *t)
{
	static const uint32_t v[] = {
		0, 1, 2, 0xffffffffu, 0xfffffffeu, 0x80000000u, 255, 256, 1024,
		4096, 1u << 24, VMGPU_MAX_BLOCK_THREADS + 1,
	};
	uint64_t a;

	switch (R32(t, 6)) {
	case 0:
	case 1:
		return v[R32(t, sizeof(v) / sizeof(v[0]))];
	case 2:
		return rnd_index(t, R32(t, 4));
	case 3:
		a = rnd_addr(t);
		return chance(t, 60) ? (uint32_t)a : (uint32_t)(a >> 32);
	case 4:
		return 1u << R32(t, 32);
	default:
		return (uint32_t)R(t);
	}
}

/*
 * The first register of a (pair of) register(s) of @n; for an address,
 * in @pct% of cases one of the @npairs pairs the prologue loaded from the
 * arguments.
 */
static uint32_t rnd_reg(struct thr *t, bool pair, uint32_t n, uint32_t npairs,
			unsigned int pct)
{
	if (pct && npairs && chance(t, pct))
		return 2 * R32(t, npairs);
	if (n <= (pair ? 1u : 0u))
		return 0;
	return R32(t, n - (pair ? 1 : 0));
}

/*
 * An offset for [rA + imm]: 0, near, a page off, misaligned, anything;
 * @gentle: 0 or a few aligned words on.
 */
static uint32_t rnd_off(struct thr *t, uint32_t size, bool gentle)
{
	if (!size)
		size = 4;
	if (gentle)
		return chance(t, 50) ? 0 : size * R32(t, 16);
	switch (R32(t, 8)) {
	case 0:
	case 1:
	case 2:
		return 0;
	case 3:
		return size * R32(t, 16);
	case 4:
		return (uint32_t)-(int32_t)(size * (1 + R32(t, 16)));
	case 5:
		return chance(t, 50) ? 4096 : (uint32_t)-4096;
	case 6:
		return 1 + R32(t, 7);
	default:
		return (uint32_t)R(t);
	}
}

/*
 * A well-formed random instruction (vmgpu_insn_valid()) at @pc of a
 * kernel of ISA version @isa, @n registers, @args_bytes of arguments and
 * @ncode instructions. Loads, stores, atomics, LAUNCH and ENQ are half of
 * them, mostly on the address pairs of the prologue; branches go anywhere
 * in the code or just past it. @gentle: only on those pairs, near them,
 * no shared memory, branches forward within the code.
 */
static uint64_t rnd_insn(struct thr *t, uint32_t isa, uint32_t n,
			 uint32_t args_bytes, uint32_t pc, uint32_t ncode,
			 uint32_t npairs, bool gentle)
{
	unsigned int tries, k, apct;

	for (tries = 0; tries < 16; tries++) {
		const struct isa_op *o = &isa_ops[R32(t, NISA_OPS)];
		bool want_mem = chance(t, 50), use_imm, dp, ap, bp;
		uint32_t d = 0, a = 0, b = 0, imm = 0;
		uint64_t w;

		for (k = 0; want_mem && !isa_mem(o) && k < 64; k++)
			o = &isa_ops[R32(t, NISA_OPS)];
		/* Shared memory takes small addresses gentle kernels lack. */
		if (gentle && (o->flags & VMGPU_OPF_SHARED))
			continue;
		/* Gentle: device-side work on the packet's (queue) task. */
		if (gentle && want_mem && isa >= 2 && npairs && chance(t, 15)) {
			/* Every lane launches: children multiply. */
			if (chance(t, 25)) {
				w = VMGPU_INSN(VMGPU_OP_LAUNCH, 0, 0,
					       2 * R32(t, npairs),
					       2 * npairs + R32(t, 2));
			} else {
				w = VMGPU_INSN(VMGPU_OP_ENQ, 0,
					       npairs > 1 ? 2 : 0,
					       R32(t, n), 0);
			}
			if (vmgpu_insn_valid(w, isa, n, args_bytes))
				return w;
		}
		dp = o->flags & VMGPU_OPF_D_PAIR;
		ap = o->flags & VMGPU_OPF_A_PAIR;
		bp = o->flags & VMGPU_OPF_B_PAIR;
		apct = ap ? (gentle ? 100 : 85) : 0;
		use_imm = (o->flags & VMGPU_OPF_IMM) && chance(t, 40);
		switch (o->fmt) {
		case VMGPU_FMT_NONE:
			break;
		case VMGPU_FMT_BRA:
			a = chance(t, 40) ? VMGPU_BRA_ALWAYS :
			    R32(t, VMGPU_ISA_NUM_PREDS) |
			    (chance(t, 50) ? VMGPU_BRA_NEGATE : 0);
			if (gentle)
				imm = pc + 1 + R32(t, ncode > pc ? ncode - pc : 1);
			else if (chance(t, 90))
				imm = R32(t, ncode + 2);
			else
				imm = (uint32_t)R(t);
			break;
		case VMGPU_FMT_MOV:
			d = rnd_reg(t, false, n, npairs, 0);
			if (use_imm)
				imm = rnd_word(t);
			else
				b = rnd_reg(t, false, n, npairs, 0);
			break;
		case VMGPU_FMT_SREG:
			d = rnd_reg(t, false, n, npairs, 0);
			a = R32(t, vmgpu_isa_sregs(isa));
			break;
		case VMGPU_FMT_SEL:
			d = rnd_reg(t, false, n, npairs, 0);
			a = rnd_reg(t, false, n, npairs, 0);
			b = rnd_reg(t, false, n, npairs, 0);
			imm = R32(t, VMGPU_ISA_NUM_PREDS);
			break;
		case VMGPU_FMT_ARG:
			d = rnd_reg(t, dp, n, npairs, 0);
			imm = args_bytes >= o->bytes ?
			      4 * R32(t, (args_bytes - o->bytes) / 4 + 1) : 0;
			break;
		case VMGPU_FMT_ALU:
			d = rnd_reg(t, dp, n, npairs, 0);
			a = rnd_reg(t, ap, n, npairs, apct);
			if (use_imm)
				imm = rnd_word(t);
			else
				b = rnd_reg(t, bp, n, npairs, 0);
			break;
		case VMGPU_FMT_UNARY:
			d = rnd_reg(t, false, n, npairs, 0);
			a = rnd_reg(t, false, n, npairs, 0);
			break;
		case VMGPU_FMT_ALU3:
		case VMGPU_FMT_CAS:
			d = rnd_reg(t, false, n, npairs, 0);
			a = rnd_reg(t, ap, n, npairs, apct);
			b = rnd_reg(t, false, n, npairs, 0);
			imm = R32(t, n);
			break;
		case VMGPU_FMT_SETP:
			d = R32(t, VMGPU_ISA_NUM_PREDS);
			a = rnd_reg(t, false, n, npairs, 0);
			if (use_imm)
				imm = rnd_word(t);
			else
				b = rnd_reg(t, false, n, npairs, 0);
			break;
		case VMGPU_FMT_PRED2:
			b = R32(t, VMGPU_ISA_NUM_PREDS);
			/* fall through */
		case VMGPU_FMT_PRED1:
			d = R32(t, VMGPU_ISA_NUM_PREDS);
			a = R32(t, VMGPU_ISA_NUM_PREDS);
			break;
		case VMGPU_FMT_LOAD:
			d = rnd_reg(t, dp, n, npairs, 0);
			a = rnd_reg(t, ap, n, npairs, apct);
			imm = rnd_off(t, o->bytes, gentle);
			break;
		case VMGPU_FMT_STORE:
			a = rnd_reg(t, ap, n, npairs, apct);
			b = rnd_reg(t, bp, n, npairs, 0);
			imm = rnd_off(t, o->bytes, gentle);
			break;
		case VMGPU_FMT_ATOM:
			d = rnd_reg(t, false, n, npairs, 0);
			a = rnd_reg(t, ap, n, npairs, apct);
			b = rnd_reg(t, false, n, npairs, 0);
			imm = rnd_off(t, o->bytes, gentle);
			break;
		case VMGPU_FMT_LEA:
			d = rnd_reg(t, dp, n, npairs, 0);
			a = rnd_reg(t, ap, n, npairs, gentle ? 100 : 85);
			b = rnd_reg(t, false, n, npairs, 0);
			imm = R32(t, 32);
			break;
		case VMGPU_FMT_LAUNCH:
			a = rnd_reg(t, true, n, npairs, gentle ? 100 : 85);
			b = rnd_reg(t, true, n, npairs, gentle ? 100 : 85);
			/* The child's blocks: the prologue's small numbers. */
			if (npairs && 2 * npairs + 1 < n && chance(t, 70))
				imm = 2 * npairs + R32(t, 2);
			else
				imm = R32(t, n);
			break;
		}
		/* Gentle: the prologue's registers keep their addresses. */
		k = 2 * npairs + 2 + (dp ? 1 : 0);
		if (gentle && d < k - (dp ? 1 : 0) && n > k &&
		    o->fmt != VMGPU_FMT_SETP && o->fmt != VMGPU_FMT_PRED1 &&
		    o->fmt != VMGPU_FMT_PRED2)
			d = k - (dp ? 1 : 0) + R32(t, n - k);
		w = VMGPU_INSN(o->code | (use_imm ? VMGPU_OP_IMM : 0), d, a, b,
			       imm);
		if (vmgpu_insn_valid(w, isa, n, args_bytes))
			return w;
	}
	return VMGPU_INSN(VMGPU_OP_NOP, 0, 0, 0, 0);
}

/*
 * A kernel in slot @s of the executable buffer: random words (the device
 * must refuse them), well-formed random instructions behind a broken
 * header, or well-formed random instructions after a prologue that loads
 * address pairs and small numbers from the argument block. @tame: the
 * last kind, on addresses that work (it lives to LAUNCH and ENQ).
 */
static void rnd_kernel(struct thr *t, unsigned int s, bool tame)
{
	uint64_t code[(RND_SLOT_BYTES - VMGPU_EXEC_HEADER_BYTES) / 8], w;
	struct vmgpu_exec_header h;
	uint32_t r = tame ? 100 : R32(t, 100), n = 0, np = 0, j;
	uint32_t max = 1 + R32(t, 48);
	bool gentle = tame || (r >= 30 && chance(t, 30));
	uint8_t *dst = t->rmap[RB_EXEC] + s * RND_SLOT_BYTES;

	memset(&h, 0, sizeof(h));
	h.magic = VMGPU_EXEC_MAGIC;
	h.isa_version = S->isa_version >= 2 && chance(t, 85) ? 2 : 1;
	h.num_regs = tame || chance(t, 90) ? 12 + R32(t, 53) :
		     1 + R32(t, VMGPU_ISA_MAX_REGS);
	h.shared_bytes = chance(t, 25) ? 4 * R32(t, 1025) : 0;
	h.args_bytes = tame || chance(t, 95) ? RND_ARGS :
		       4 * R32(t, RND_ARGS / 4 + 1);
	if (r < 20) {
		for (n = 0; n < max; n++)
			code[n] = R(t);
		add(ST_RND_KERN_RANDOM);
	} else {
		if (h.num_regs >= 12 && h.args_bytes == RND_ARGS)
			np = 1 + R32(t, 4);
		/* Gentle: pair 0 a task, pair 1 a queue task, then inside. */
		for (j = 0; j < np; j++)
			code[n++] = VMGPU_INSN(VMGPU_OP_LDARG64, 2 * j, 0, 0,
					       8 * (gentle && j < 2 ? j :
						    R32(t, gentle ? RND_INSIDE :
							  RND_SMALL)));
		for (j = 0; np && j < 2; j++)
			code[n++] = VMGPU_INSN(VMGPU_OP_LDARG, 2 * np + j, 0, 0,
					       8 * (RND_SMALL +
						    R32(t, RND_NADDR - RND_SMALL)));
		w = n + max;	/* the EXIT */
		for (j = 0; j < max; j++, n++)
			code[n] = rnd_insn(t, h.isa_version, h.num_regs,
					   h.args_bytes, n, w, np, gentle);
		if (gentle || chance(t, 90))	/* or run off the end */
			code[n++] = VMGPU_INSN(VMGPU_OP_EXIT, 0, 0, 0, 0);
		add(r < 30 ? ST_RND_KERN_BADHDR : ST_RND_KERN_WELL);
	}
	h.code_insns = n;
	if (r >= 20 && r < 30) {
		switch (R32(t, 8)) {
		case 0:
			h.magic ^= 1u << R32(t, 32);
			break;
		case 1:
			h.isa_version = chance(t, 50) ? 0 : VMGPU_ISA_VERSION + 1;
			break;
		case 2:
			h.num_regs = chance(t, 50) ? 0 : VMGPU_ISA_MAX_REGS + 1;
			break;
		case 3:		/* longer than the slot, the buffer, the ISA */
			w = R32(t, 4);
			h.code_insns = w == 0 ? 0 : w == 1 ? n + 1 + R32(t, 300) :
				       w == 2 ? VMGPU_ISA_MAX_CODE : 0xffffffffu;
			break;
		case 4:
			h.args_bytes = chance(t, 50) ? 2 : VMGPU_MAX_ARGS_BYTES + 4;
			break;
		case 5:
			h.shared_bytes = VMGPU_MAX_SHARED_BYTES + 4 * R32(t, 4);
			break;
		case 6:
			h.sig_bytes = chance(t, 50) ? 4 : (uint32_t)R(t);
			break;
		default:
			h.reserved = 1 + R32(t, 100);
			break;
		}
	}
	memcpy(dst, &h, sizeof(h));
	memcpy(dst + VMGPU_EXEC_HEADER_BYTES, code, 8 * n);
	t->rslot_args[s] = h.args_bytes;
}

/*
 * The argument block: task descriptors (for LAUNCH and ENQ), addresses
 * well inside the thread's buffers, interesting addresses, then small
 * numbers.
 */
static void rnd_args(struct thr *t, uint32_t task, uint32_t queue)
{
	uint64_t a[RND_NADDR];
	unsigned int i, b;

	for (i = 0; i < 4; i++)
		a[i] = t->rva[RB_ARGS] + RND_TMD_OFF + VMGPU_TMD_BYTES *
		       (i == 0 ? task : i == 1 ? queue : R32(t, RND_TMDS));
	for (; i < RND_INSIDE; i++) {	/* writable ones */
		b = chance(t, 80) || t->rexec_ro ? RB_DATA :
		    chance(t, 50) ? RB_ARGS : RB_EXEC;
		a[i] = t->rva[b] + 8 * R32(t, (uint32_t)(rnd_bo_bytes[b] - 256) / 8);
	}
	for (; i < RND_SMALL; i++)
		a[i] = rnd_addr(t);
	for (i = RND_SMALL; i < RND_NADDR; i++)
		a[i] = chance(t, 90) ? R32(t, 4) : rnd_word(t);
	memcpy(t->rmap[RB_ARGS], a, sizeof(a));
}

enum { TMD_ANY, TMD_TASK, TMD_QUEUE };

/*
 * Task descriptor @i: a task, a queue task, or random bytes (@kind: any
 * of them, a task, a queue task); @tame: of a new tame kernel, not bytes.
 */
static void rnd_tmd(struct thr *t, unsigned int i, bool tame, int kind)
{
	uint8_t *m = t->rmap[RB_ARGS] + RND_TMD_OFF + VMGPU_TMD_BYTES * i;
	unsigned int s = R32(t, RND_SLOTS), k;
	uint64_t code = t->rva[RB_EXEC] + s * RND_SLOT_BYTES;
	uint8_t junk[VMGPU_TMD_BYTES];

	if (tame)
		rnd_kernel(t, s, true);
	switch (kind == TMD_TASK ? 9 : kind == TMD_QUEUE ? 1 :
		tame ? 1 + R32(t, 9) : R32(t, 10)) {
	case 0:
		for (k = 0; k < sizeof(junk); k++)
			junk[k] = (uint8_t)R(t);
		memcpy(m, junk, sizeof(junk));
		break;
	case 1:
	case 2: {
		struct vmgpu_tmd_queue q;

		memset(&q, 0, sizeof(q));
		q.code_va = code;
		q.args_va = t->rva[RB_ARGS];
		q.args_bytes = t->rslot_args[s];
		q.flags = VMGPU_TMD_F_QUEUE;
		q.items_va = chance(t, 90) ? t->rva[RB_DATA] + RND_ITEMS_OFF +
					     4 * R32(t, tame ? 1 : 4096) :
			     rnd_addr(t);
		if (tame)	/* room for a few ENQs of whole warps */
			q.capacity = 1024 + R32(t, 3072);
		else
			q.capacity = chance(t, 90) ? 1 + R32(t, 64) : rnd_word(t);
		q.block[0] = 32 * (1 + R32(t, 2));
		q.block[1] = q.block[2] = 1;
		q.coalesce = tame || chance(t, 90) ? 1 + R32(t, 8) : rnd_word(t);
		q.coalesce_timeout_ns = R32(t, 100000);
		memcpy(m, &q, sizeof(q));
		break;
	}
	default: {
		struct vmgpu_tmd d;

		memset(&d, 0, sizeof(d));
		d.code_va = tame || chance(t, 90) ? code : rnd_addr(t);
		d.args_va = t->rva[RB_ARGS];
		d.args_bytes = t->rslot_args[s];
		if (chance(t, 15))
			d.flags = R32(t, VMGPU_DISPATCH_F_ALL + 1);
		for (k = 0; k < 3; k++) {
			d.grid[k] = k ? 1 : 1 + R32(t, 4);
			d.block[k] = k ? 1 : 32 * (1 + R32(t, 4));
			d.grid_total[k] = d.grid[k];
		}
		if (!tame && chance(t, 10))
			d.grid[R32(t, 3)] = rnd_word(t);
		if (!tame && chance(t, 10))
			d.sm_mask = chance(t, 50) ? 1ull << R32(t, 64) : R(t);
		if (chance(t, 10))
			d.quota = R32(t, 4);
		memcpy(m, &d, sizeof(d));
		break;
	}
	}
}

/*
 * Task descriptor @i for a TAKE over @pgrid: portions of 1-2 blocks in x
 * of a new tame kernel, its index space cut into exactly @pgrid.
 */
static void rnd_tmd_take(struct thr *t, unsigned int i, const uint32_t pgrid[3])
{
	uint8_t *m = t->rmap[RB_ARGS] + RND_TMD_OFF + VMGPU_TMD_BYTES * i;
	unsigned int s = R32(t, RND_SLOTS), k;
	struct vmgpu_tmd d;

	rnd_kernel(t, s, true);
	memset(&d, 0, sizeof(d));
	d.code_va = t->rva[RB_EXEC] + s * RND_SLOT_BYTES;
	d.args_va = t->rva[RB_ARGS];
	d.args_bytes = t->rslot_args[s];
	for (k = 0; k < 3; k++) {
		d.grid[k] = k ? 1 : 1 + R32(t, 2);
		d.block[k] = k ? 1 : 32 * (1 + R32(t, 2));
		d.grid_total[k] = pgrid[k] * d.grid[k] - (k ? 0 : R32(t, d.grid[k]));
	}
	memcpy(m, &d, sizeof(d));
}

/* A packet being built: its words, and which of them are headers. */
struct rpk {
	uint32_t w[RND_MAX_WORDS];
	uint8_t hdr[RND_MAX_WORDS];
	uint32_t n, disp, need;
	bool wild_addr, wild_idx;
	bool tame;	/* new tame kernels and descriptors only */
	uint32_t tmd_task, tmd_queue;	/* a tame packet's descriptors */
};

static void rpk_put(struct rpk *k, const void *cmd, uint32_t words)
{
	if (k->n + words >= RND_MAX_WORDS)	/* room for END */
		return;
	memcpy(k->w + k->n, cmd, 4 * words);
	memset(k->hdr + k->n, 0, words);
	k->hdr[k->n] = 1;
	k->n += words;
}

#define RPK_PUT(k, c)	rpk_put((k), &(c), sizeof(c) / 4)

/* A later dispatch @idx is named: clean packets add it before END. */
static void rpk_names(struct rpk *k, uint32_t idx)
{
	if (idx < 16 && idx + 1 > k->need)
		k->need = idx + 1;
}

/*
 * An address for a command: mostly inside one of the thread's buffers
 * (writable ones if @write), @len bytes, @align-aligned, often at its
 * first or last possible place; in a wild packet often any address.
 */
static uint64_t rnd_cmd_addr(struct thr *t, const struct rpk *k, bool write,
			     uint32_t align, uint64_t len)
{
	unsigned int b;
	uint64_t size, off;

	if (k->wild_addr && chance(t, 35)) {
		off = rnd_addr(t);
		return chance(t, 85) ? off & ~(uint64_t)(align - 1) : off;
	}
	do {
		b = R32(t, RB_NUM);
	} while (write && (b == RB_TAB || (b == RB_EXEC && t->rexec_ro)));
	if (b == RB_EXEC && chance(t, 60))
		b = RB_DATA;
	size = rnd_bo_bytes[b];
	if (len > size)
		len = size;
	switch (R32(t, 8)) {
	case 0:
		off = 0;
		break;
	case 1:
		off = (size - len) & ~(uint64_t)(align - 1);
		break;
	default:
		off = (R(t) % (size - len + 1)) & ~(uint64_t)(align - 1);
		break;
	}
	return t->rva[b] + off;
}

/* A rectangle of a COPY: inside the thread's buffers or not. */
static struct vmgpu_cmd_copy rnd_rect(struct thr *t, const struct rpk *k,
				      bool replicate)
{
	uint32_t width = chance(t, 80) ? 1 + R32(t, 256) : 1 + R32(t, 16384);
	uint32_t height = chance(t, 70) ? 1 : 1 + R32(t, 4);
	uint32_t spitch = width + R32(t, 64), dpitch = width + R32(t, 64);
	uint64_t src, dst;

	if (k->wild_idx && chance(t, 20)) {
		width = chance(t, 50) ? 0 : rnd_word(t);
		height = chance(t, 50) ? 0 : rnd_word(t);
		spitch = R32(t, width + 1);
	}
	if (replicate)
		dpitch = spitch;
	src = rnd_cmd_addr(t, k, false, 1,
			   (uint64_t)(height - 1) * spitch + width);
	dst = replicate ? src :
	      rnd_cmd_addr(t, k, true, 1, (uint64_t)(height - 1) * dpitch + width);
	return vmgpu_encode_copy(src, dst, width, height, spitch, dpitch);
}

static void rnd_dispatch(struct thr *t, struct rpk *k)
{
	uint32_t grid[3], block[3], origin[3] = { 0, 0, 0 }, total[3], i;
	uint32_t s = R32(t, RND_SLOTS), shared = 0, prio = 0, args_bytes;
	const uint32_t *tp = NULL;
	struct vmgpu_cmd_dispatch d;
	uint64_t code, args;

	if (k->tame || chance(t, 70))	/* a new kernel, or the slot as it is */
		rnd_kernel(t, s, k->tame);
	code = t->rva[RB_EXEC] + s * RND_SLOT_BYTES;
	args = t->rva[RB_ARGS];
	args_bytes = t->rslot_args[s];
	if (!k->tame && chance(t, 5))	/* the image runs off the buffer */
		code = t->rva[RB_EXEC] + RND_SLOTS * RND_SLOT_BYTES -
		       VMGPU_EXEC_HEADER_BYTES - VMGPU_INSN_BYTES;
	if (k->wild_addr && chance(t, 30))
		code = chance(t, 80) ? rnd_addr(t) & ~7ull : rnd_addr(t);
	if (k->wild_addr && chance(t, 20)) {
		args = rnd_addr(t) & ~3ull;
		args_bytes = 4 * R32(t, VMGPU_MAX_ARGS_BYTES / 4 + 2);
	} else if (!k->tame && chance(t, 5)) {
		args_bytes = 4 * R32(t, RND_ARGS / 4 + 1);	/* wrong size */
	}
	if (!args_bytes && !k->wild_addr)
		args = 0;
	for (i = 0; i < 3; i++) {
		grid[i] = i ? 1 + (chance(t, 15) ? R32(t, 2) : 0) : 1 + R32(t, 4);
		block[i] = i ? 1 : 32 * (1 + R32(t, 4));
	}
	if (chance(t, 15))
		block[0] = 1 + R32(t, 64);	/* a partial warp */
	if (k->wild_idx && chance(t, 30)) {
		switch (R32(t, 6)) {
		case 0:
			grid[R32(t, 3)] = rnd_word(t);
			break;
		case 1:
			block[0] = chance(t, 50) ? VMGPU_MAX_BLOCK_THREADS :
				   VMGPU_MAX_BLOCK_THREADS + 1 + R32(t, 64);
			break;
		case 2:
			block[R32(t, 3)] = rnd_word(t);
			break;
		case 3:
			for (i = 0; i < 3; i++) {
				origin[i] = R32(t, 4);
				total[i] = origin[i] + grid[i] - R32(t, 2);
			}
			tp = chance(t, 50) ? total : NULL;
			break;
		case 4:
			shared = chance(t, 50) ?
				 4 * R32(t, VMGPU_MAX_SHARED_BYTES / 4 + 2) :
				 rnd_word(t);
			break;
		default:
			prio = R32(t, VMGPU_PRIORITY_LEVELS + 2);
			break;
		}
	}
	d = vmgpu_encode_dispatch(code, args, args_bytes, grid, block, origin,
				  tp, shared, prio);
	if (chance(t, 10))
		d.flags = R32(t, VMGPU_DISPATCH_F_ALL + 1);
	if (k->wild_idx && chance(t, 5))
		d.flags = rnd_word(t);
	RPK_PUT(k, d);
	k->disp++;
}

/* One command of a random packet (not END). */
static void rnd_command(struct thr *t, struct rpk *k)
{
	static const uint8_t weight[VMGPU_CMD_NUM_OPS] = {
		[VMGPU_CMD_NOP] = 2, [VMGPU_CMD_SET_STATE] = 5,
		[VMGPU_CMD_DISPATCH] = 24, [VMGPU_CMD_SYNC] = 10,
		[VMGPU_CMD_BARRIER] = 4, [VMGPU_CMD_TIMESTAMP] = 4,
		[VMGPU_CMD_WRITE_VALUE] = 6, [VMGPU_CMD_WAIT_VALUE] = 5,
		[VMGPU_CMD_COPY] = 5, [VMGPU_CMD_LAUNCH_TMD] = 7,
		[VMGPU_CMD_DEP_SIGNAL] = 5, [VMGPU_CMD_DEP_WAIT] = 5,
		[VMGPU_CMD_SKIP_IF] = 5, [VMGPU_CMD_TAKE] = 4,
		[VMGPU_CMD_COPY_ASYNC] = 5,
	};
	uint32_t op, r, sum = 0, i;

	for (op = 0; op < VMGPU_CMD_NUM_OPS; op++)
		sum += weight[op];
	r = R32(t, sum);
	for (op = 0; r >= weight[op]; op++)
		r -= weight[op];
	/* A clean SYNC or SKIP_IF needs an earlier dispatch. */
	if (!k->disp && !k->wild_idx &&
	    (op == VMGPU_CMD_SYNC || (op == VMGPU_CMD_SKIP_IF && chance(t, 50))))
		op = VMGPU_CMD_DISPATCH;

	switch (op) {
	case VMGPU_CMD_NOP: {
		struct vmgpu_cmd_nop c = vmgpu_encode_nop();

		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_BARRIER: {
		struct vmgpu_cmd_barrier c = vmgpu_encode_barrier();

		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_SET_STATE: {
		uint32_t key = 1 + R32(t, VMGPU_STATE_SM_MASK_HI), v;
		struct vmgpu_cmd_set_state c;

		if (k->wild_idx && chance(t, 20))
			key = chance(t, 50) ? 0 : rnd_word(t);
		if (k->tame)	/* nothing that makes its tasks fail */
			key = chance(t, 50) ? VMGPU_STATE_LAUNCH_QUOTA :
			      VMGPU_STATE_DEFAULT_PRIORITY;
		switch (key) {
		case VMGPU_STATE_INSTR_BUDGET:
			v = 1 + R32(t, RND_MAX_BUDGET);
			break;
		case VMGPU_STATE_DEFAULT_PRIORITY:
			v = k->tame ? 0 : R32(t, VMGPU_PRIORITY_LEVELS + 2);
			break;
		case VMGPU_STATE_LAUNCH_QUOTA:
			v = R32(t, 8);
			break;
		default:
			v = chance(t, 30) ? 0 : chance(t, 50) ? 1u << R32(t, 4) :
			    (uint32_t)R(t);
			break;
		}
		c = vmgpu_encode_set_state(key, v);
		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_DISPATCH:
		rnd_dispatch(t, k);
		break;
	case VMGPU_CMD_LAUNCH_TMD: {
		struct vmgpu_cmd_launch_tmd c;
		uint64_t va;

		/* Tame: the packet's task or queue task (for ENQ). */
		i = k->tame ? (chance(t, 50) ? k->tmd_task : k->tmd_queue) :
		    R32(t, RND_TMDS);
		if (!k->tame && chance(t, 60))
			rnd_tmd(t, i, false, TMD_ANY);
		va = t->rva[RB_ARGS] + RND_TMD_OFF + VMGPU_TMD_BYTES * i;
		if (k->wild_addr && chance(t, 35))
			va = chance(t, 80) ? rnd_addr(t) & ~7ull : rnd_addr(t);
		c = vmgpu_encode_launch_tmd(va);
		RPK_PUT(k, c);
		k->disp++;
		break;
	}
	case VMGPU_CMD_SYNC: {
		uint32_t prod = k->disp ? R32(t, k->disp) : 0;
		uint32_t cons = k->disp + R32(t, 2);
		struct vmgpu_cmd_sync c;

		if (k->wild_idx) {
			if (chance(t, 60))
				cons = rnd_index(t, k->disp);
			if (chance(t, 40))
				prod = rnd_index(t, k->disp);
		}
		rpk_names(k, cons);
		c = vmgpu_encode_sync(cons, prod);
		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_TIMESTAMP: {
		struct vmgpu_cmd_timestamp c =
			vmgpu_encode_timestamp(rnd_cmd_addr(t, k, true, 8, 8));

		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_WRITE_VALUE: {
		/* Into the kernels too, when they are writable. */
		struct vmgpu_cmd_write_value c =
			vmgpu_encode_write_value(rnd_cmd_addr(t, k, true, 4, 4),
						 rnd_word(t));

		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_WAIT_VALUE: {
		/* Conditions every word satisfies: the wait ends at once. */
		static const uint32_t conds[5][3] = {	/* op, value, mask */
			{ VMGPU_WAIT_GE, 0, 0 }, { VMGPU_WAIT_LE, 0xffffffffu, 0 },
			{ VMGPU_WAIT_EQ, 0, 0 }, { VMGPU_WAIT_NE, 1, 0 },
			{ VMGPU_WAIT_LT, 1, 0 },
		};
		const uint32_t *cd = conds[R32(t, 5)];
		uint32_t mask = cd[0] == VMGPU_WAIT_GE || cd[0] == VMGPU_WAIT_LE ?
				(uint32_t)R(t) : 0;
		struct vmgpu_cmd_wait_value c =
			vmgpu_encode_wait_value(rnd_cmd_addr(t, k, false, 4, 4),
						cd[0], cd[1], mask);

		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_COPY: {
		struct vmgpu_cmd_copy c = rnd_rect(t, k, false);

		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_COPY_ASYNC: {
		bool repl = chance(t, 25);
		struct vmgpu_cmd_copy rect = rnd_rect(t, k, repl);
		uint64_t after = 0, sig = 0;
		uint32_t ai = 0, si = 0, epoch = 1 + R32(t, 1000);
		struct vmgpu_cmd_copy_async c;

		if (chance(t, 40)) {	/* after an entry of the ready table */
			ai = R32(t, (uint32_t)(rnd_bo_bytes[RB_TAB] / 8));
			after = t->rva[RB_TAB];
			epoch = t->repoch;
		}
		if (chance(t, 40)) {
			si = R32(t, 8);
			sig = rnd_cmd_addr(t, k, true, 8, 64);
		}
		c = vmgpu_encode_copy_async(&rect, epoch, after, ai, sig, si);
		if (repl)
			c.flags |= VMGPU_COPY_REPLICATE;
		if (k->wild_idx && chance(t, 10))
			c.flags = R32(t, 16);
		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_SKIP_IF: {
		uint32_t after = chance(t, 40) || !k->disp ? VMGPU_SKIP_IF_NOW :
				 R32(t, k->disp);
		uint32_t skip = R32(t, 4);
		struct vmgpu_cmd_skip_if c;

		if (k->wild_idx) {
			if (chance(t, 25))
				after = rnd_index(t, k->disp);
			if (chance(t, 25))
				skip = rnd_index(t, 0);
		}
		c = vmgpu_encode_skip_if(rnd_cmd_addr(t, k, false, 4, 4),
					 R32(t, VMGPU_WAIT_NUM_OPS + (k->wild_idx ? 2 : 0)),
					 rnd_word(t), (uint32_t)R(t), after, skip);
		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_DEP_SIGNAL: {
		uint32_t entries = 1 + R32(t, 64), disp = k->disp + R32(t, 2);
		uint32_t region[3] = { 1 + R32(t, 2), 1, 1 };
		struct vmgpu_cmd_dep_signal c;

		if (k->wild_idx && chance(t, 30))
			disp = rnd_index(t, k->disp);
		rpk_names(k, disp);
		c = vmgpu_encode_dep_signal(disp, 1 + R32(t, 1000),
					    rnd_cmd_addr(t, k, true, 8, 8ull * entries),
					    entries, R32(t, entries), region);
		if (k->wild_idx && chance(t, 20))
			c.region[R32(t, 3)] = rnd_word(t);
		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_DEP_WAIT: {
		uint32_t pgrid[3] = { 1 + R32(t, 4), 1 + R32(t, 2), 1 };
		uint32_t cgrid[3], cfirst[3], ccount[3], first = R32(t, 16);
		uint32_t entries, tab = (uint32_t)(rnd_bo_bytes[RB_TAB] / 8);
		struct vmgpu_region_map m;
		struct vmgpu_cmd_dep_wait c;

		memset(&m, 0, sizeof(m));
		m.kind = chance(t, 50) ? VMGPU_MAP_IDENTITY :
			 1 + R32(t, VMGPU_MAP_NUM_KINDS - 1);
		m.policy = R32(t, VMGPU_MAP_NUM_POLICIES);
		for (i = 0; i < 3; i++) {
			cgrid[i] = pgrid[i];
			switch (m.kind) {
			case VMGPU_MAP_OFFSET:
				m.v[i] = (int32_t)R32(t, 5) - 2;
				break;
			case VMGPU_MAP_RADIUS:
				m.v[i] = i < 2 ? (int32_t)R32(t, 3) : 0;
				break;
			case VMGPU_MAP_DOWNSAMPLE:
				m.v[i] = i == 0;
				cgrid[i] = (pgrid[i] + (i == 0)) >> (i == 0);
				break;
			case VMGPU_MAP_SUPERSET:
				m.size[i] = i < 2 ? 1 + R32(t, 2) : 1;
				if (m.size[i] > pgrid[i])
					m.size[i] = pgrid[i];
				break;
			default:
				break;
			}
			cfirst[i] = R32(t, cgrid[i]);
			ccount[i] = 1 + R32(t, cgrid[i] - cfirst[i]);
		}
		if (m.kind == VMGPU_MAP_TABLE) {
			m.table_count = 1 + R32(t, 4);
			m.table_va = rnd_cmd_addr(t, k, false, 8,
						  8ull * m.table_count *
						  vmgpu_region_portions(cgrid));
		}
		entries = first + vmgpu_region_portions(pgrid) + R32(t, 8);
		c = vmgpu_encode_dep_wait(t->repoch,
					  t->rva[RB_TAB] + 8 * R32(t, tab - entries),
					  entries, first, pgrid, cgrid, cfirst,
					  ccount, &m);
		if (k->wild_addr && chance(t, 30))
			c.table_va = rnd_addr(t) & ~7ull;
		if (k->wild_idx && chance(t, 30))
			c.first_index = rnd_index(t, 0);
		RPK_PUT(k, c);
		break;
	}
	case VMGPU_CMD_TAKE: {
		uint32_t pgrid[3] = { 1 + R32(t, 3), 1 + R32(t, 2), 1 };
		uint32_t n = vmgpu_region_portions(pgrid), entries, tmd;
		struct vmgpu_curve cv;
		struct vmgpu_cmd_take c;

		entries = n + R32(t, 8);
		memset(&cv, 0, sizeof(cv));
		cv.kind = VMGPU_CURVE_SERPENTINE;
		cv.flags = R32(t, VMGPU_CURVE_F_ALL + 1);
		cv.band = R32(t, 3);
		cv.start = R32(t, n);
		tmd = R32(t, RND_TMDS);
		if (k->tame)
			rnd_tmd_take(t, tmd, pgrid);
		else if (chance(t, 50))
			rnd_tmd(t, tmd, false, TMD_ANY);
		c = vmgpu_encode_take(1 + R32(t, 1000),
				      t->rva[RB_ARGS] + RND_TMD_OFF +
				      VMGPU_TMD_BYTES * tmd,
				      rnd_cmd_addr(t, k, true, 4, 4ull * n),
				      rnd_cmd_addr(t, k, true, 8, 8ull * entries),
				      entries, R32(t, entries - n + 1),
				      VMGPU_TAKE_NO_WAIT, 1 + R32(t, 8), pgrid,
				      &cv, NULL);
		if (k->wild_idx && chance(t, 15))
			c.inflight = rnd_word(t);
		RPK_PUT(k, c);
		break;
	}
	default:
		break;
	}
}

/* Is [va, va + len) inside buffer @b of the thread? */
static bool rnd_in(const struct thr *t, unsigned int b, uint64_t va,
		   uint64_t len)
{
	return va >= t->rva[b] && va - t->rva[b] <= rnd_bo_bytes[b] &&
	       len <= rnd_bo_bytes[b] - (va - t->rva[b]);
}

/* ... inside a buffer the submit lists (@listed: bits of RB_*)? */
static bool rnd_in_listed(const struct thr *t, unsigned int listed,
			  uint64_t va, uint64_t len)
{
	unsigned int b;

	for (b = 0; b < RB_NUM; b++)
		if ((listed & (1u << b)) && rnd_in(t, b, va, len))
			return true;
	return false;
}

/* Does (word & mask) OP value hold for every word? */
static bool rnd_always(uint32_t op, uint32_t value, uint32_t mask)
{
	if ((op == VMGPU_WAIT_GE && !value) ||
	    (op == VMGPU_WAIT_LE && value == 0xffffffffu))
		return true;
	if (mask)
		return false;
	return (op == VMGPU_WAIT_EQ && !value) || (op == VMGPU_WAIT_NE && value) ||
	       op == VMGPU_WAIT_LE || (op == VMGPU_WAIT_LT && value);
}

/*
 * After the mutation: whatever the words now say, nothing may wait for
 * ever and no task may run long (see the comment above RND_SLOT_BYTES).
 * Walks the commands as the driver does; a packet the driver refuses
 * anyway is left as it is from its first malformed command on.
 */
static void rnd_fixup(struct thr *t, struct rpk *k, unsigned int listed)
{
	uint32_t i = 0;

	while (i < k->n) {
		uint32_t *c = &k->w[i], op = VMGPU_CMD_OP(c[0]);
		uint32_t len = vmgpu_cmd_len(op);

		if (!len || VMGPU_CMD_LEN(c[0]) != len ||
		    (c[0] & VMGPU_CMD_RESERVED_MASK) || len > k->n - i)
			break;
		switch (op) {
		case VMGPU_CMD_SET_STATE: {
			struct vmgpu_cmd_set_state s;

			memcpy(&s, c, sizeof(s));
			if (s.key == VMGPU_STATE_INSTR_BUDGET &&
			    (!s.value || s.value > RND_MAX_BUDGET))
				s.value = 1 + s.value % RND_MAX_BUDGET;
			memcpy(c, &s, sizeof(s));
			break;
		}
		case VMGPU_CMD_WAIT_VALUE: {
			struct vmgpu_cmd_wait_value w;

			memcpy(&w, c, sizeof(w));
			if (w.op < VMGPU_WAIT_NUM_OPS &&
			    !rnd_always(w.op, w.value, w.mask)) {
				w.op = VMGPU_WAIT_GE;
				w.value = 0;
			}
			memcpy(c, &w, sizeof(w));
			break;
		}
		case VMGPU_CMD_DEP_WAIT: {
			struct vmgpu_cmd_dep_wait w;
			uint64_t bytes;

			memcpy(&w, c, sizeof(w));
			bytes = 8ull * w.entries;
			if (!rnd_in(t, RB_TAB, w.table_va, bytes) &&
			    rnd_in_listed(t, listed, w.table_va, bytes))
				w.table_va = t->rva[RB_TAB];
			if (w.epoch)
				w.epoch = t->repoch;
			memcpy(c, &w, sizeof(w));
			break;
		}
		case VMGPU_CMD_COPY_ASYNC: {
			struct vmgpu_cmd_copy_async a;
			uint64_t e;

			memcpy(&a, c, sizeof(a));
			if (a.flags & VMGPU_COPY_AFTER_ENTRY) {
				e = a.after_table + 8ull * a.after_index;
				if (!rnd_in(t, RB_TAB, e, 8) &&
				    rnd_in_listed(t, listed, e, 8)) {
					a.after_table = t->rva[RB_TAB];
					a.after_index %= rnd_bo_bytes[RB_TAB] / 8;
				}
				if (a.epoch)
					a.epoch = t->repoch;
			}
			memcpy(c, &a, sizeof(a));
			break;
		}
		case VMGPU_CMD_TAKE: {
			struct vmgpu_cmd_take tk;

			memcpy(&tk, c, sizeof(tk));
			tk.wait_index = VMGPU_TAKE_NO_WAIT;
			memset(tk.map, 0, sizeof(tk.map));
			memcpy(c, &tk, sizeof(tk));
			break;
		}
		default:
			break;
		}
		i += len;
	}
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
		int hi;

		ret = vmgpu_device_open(0, &t->rdev, NULL, 0);
		note(C_OPEN, ret);
		if (ret) {
			t->rdev = NULL;
			return false;
		}
		/*
		 * Out of the way of the small numbers other threads close and
		 * reopen under each other (op_fd_reopen): a stale copy of one
		 * must not reach this file and close its buffers.
		 */
		hi = fcntl(t->rdev->fd, F_DUPFD_CLOEXEC, RND_FD_BASE);
		if (hi >= 0) {
			close(t->rdev->fd);
			t->rdev->fd = hi;
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

static void rnd_release(struct thr *t)
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
 * The words of a random packet: the budget, 1-12 commands of any kind
 * (their fields in range, at the edges or wild), END; then, in 30% of
 * packets, a few command words (not headers, not the budget) replaced.
 */
static void rnd_build(struct thr *t, struct rpk *k)
{
	struct vmgpu_cmd_set_state budget;
	uint32_t i, n;

	memset(k, 0, sizeof(*k));
	k->tame = chance(t, 30);
	k->wild_addr = !k->tame && chance(t, 35);
	k->wild_idx = !k->tame && chance(t, 35);
	/*
	 * A task and a queue task, in argument slots 0 and 1 (what gentle
	 * kernels LAUNCH and ENQ to); in a tame packet, of tame kernels.
	 */
	k->tmd_task = R32(t, RND_TMDS);
	k->tmd_queue = (k->tmd_task + 1 + R32(t, RND_TMDS - 1)) % RND_TMDS;
	if (k->tame) {
		rnd_tmd(t, k->tmd_task, true, TMD_TASK);
		rnd_tmd(t, k->tmd_queue, true, TMD_QUEUE);
	}
	rnd_args(t, k->tmd_task, k->tmd_queue);

	/* First the budget: every task of the packet ends soon. */
	budget = vmgpu_encode_set_state(VMGPU_STATE_INSTR_BUDGET,
					k->tame ? RND_MAX_BUDGET :
					chance(t, 70) ? 1 + R32(t, 256) :
					chance(t, 80) ? 1 + R32(t, 2048) :
					RND_MAX_BUDGET);
	RPK_PUT(k, budget);
	if (k->tame && chance(t, 60)) {	/* the queue kernels ENQ to */
		struct vmgpu_cmd_launch_tmd q = vmgpu_encode_launch_tmd(
			t->rva[RB_ARGS] + RND_TMD_OFF +
			VMGPU_TMD_BYTES * k->tmd_queue);

		RPK_PUT(k, q);
		k->disp++;
	}
	for (n = 1 + R32(t, 12); n; n--)
		rnd_command(t, k);
	while (k->need > k->disp && !k->wild_idx && chance(t, 80))
		rnd_dispatch(t, k);
	if (!k->wild_idx || chance(t, 95)) {
		struct vmgpu_cmd_end e = vmgpu_encode_end();

		RPK_PUT(k, e);
	}
	/* Random words in the commands (headers and the budget stay). */
	if (!k->tame && chance(t, 40) && k->n > VMGPU_CMD_LEN_SET_STATE + 1) {
		for (n = 1 + R32(t, 4); n; n--) {
			i = VMGPU_CMD_LEN_SET_STATE +
			    R32(t, k->n - VMGPU_CMD_LEN_SET_STATE);
			if (k->hdr[i])
				continue;
			k->w[i] = chance(t, 25) ? k->w[i] ^ (1u << R32(t, 32)) :
				  rnd_word(t);
		}
		add(ST_RND_MUTATED);
	}
}

/*
 * Finding 13's input: a random packet made with the encoders, its words
 * mutated, submitted raw on a GPU of any kind; see above.
 */
static void op_submit_random(struct thr *t)
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

static void *rewriter_main(void *arg)
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

static void op_sync_create(struct thr *t)
{
	struct drm_syncobj_create c = { 0 };
	int fd = pick_fd(t);

	c.flags = chance(t, 92) ? R32(t, 2) : (uint32_t)R(t);
	if (chance(t, 3))
		c.handle = 1 + R32(t, 10);
	if (!xioctl(C_SYNCOBJ_CREATE, fd, DRM_IOCTL_SYNCOBJ_CREATE, &c))
		sync_add(t, fd, c.handle);
}

static void op_sync_destroy(struct thr *t)
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

static void op_sync_wait(struct thr *t)
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

static void op_sync_signal(struct thr *t)
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

static void op_sync_transfer(struct thr *t)
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

static void op_sync_query(struct thr *t)
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
static int recv_fd(char *tag)
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

static void op_sync_export(struct thr *t)
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
static void op_sync_import(struct thr *t)
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

static void op_prime_export(struct thr *t)
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

static void op_prime_import(struct thr *t)
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

static void op_flink(struct thr *t)
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

static void op_gem_open(struct thr *t)
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
static void op_fd_reopen(struct thr *t)
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
static void op_raw_ioctl(struct thr *t)
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
static void op_memhog(struct thr *t)
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

static int worker_main(int index, int incarnation)
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

static int checker_main(void)
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

/* A checked fill (out[i] = 3 i + tag, 256 words) from a fresh context. */
struct fillj {
	struct vmgpu_context *ctx;
	uint32_t gpu, tag;
};

static int fill_submit(struct vmgpu_device *dev, struct vmgpu_bo *k,
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

static int fill_finish(struct vmgpu_device *dev, uint32_t *m, uint32_t sync,
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

/* ------------------------------------------------------------------ */
/* The hang injector                                                    */
/* ------------------------------------------------------------------ */

static int hang_main(int incarnation)
{
	struct vmgpu_device *dev;
	struct vmgpu_bo *k = NULL, *flag = NULL, *kfill = NULL, *out = NULL;
	uint64_t rng = splitmix(cfg.seed ^ 0x4a4e6ull ^ incarnation), i = 0;
	void *img, *fmap, *omap;
	uint32_t bsync = 0;
	size_t bytes;
	int ret;

	role = "hang";
	ret = vmgpu_device_open(0, &dev, NULL, 0);
	note(C_OPEN, ret);
	if (ret)
		return EXIT_DEVLOST;
	/* Files open; now as nobody, without CAP_SYS_NICE. */
	if (!getuid() && (setgroups(0, NULL) || setgid(65534) || setuid(65534))) {
		violation("hang: cannot drop privileges: %s", strerror(errno));
		return 1;
	}
	assemble(forever_src, &img, &bytes);
	ret = vmgpu_kernel_create(dev, img, bytes, &k);
	free(img);
	note(C_BO_CREATE, ret);
	if (!ret) {
		ret = vmgpu_bo_create(dev, 4096, 0, VMGPU_PLACEMENT_SYSTEM, &flag);
		note(C_BO_CREATE, ret);
	}
	if (!ret) {
		ret = vmgpu_bo_map(flag, &fmap);
		note(C_MMAP, ret);
	}
	/* The bystander: an innocent fill queued behind each hang. */
	if (!ret) {
		assemble(vmgpu_builtin_kernel_source("fill"), &img, &bytes);
		ret = vmgpu_kernel_create(dev, img, bytes, &kfill);
		free(img);
		note(C_BO_CREATE, ret);
	}
	if (!ret) {
		ret = vmgpu_bo_create(dev, 4096, 0, VMGPU_PLACEMENT_SYSTEM, &out);
		note(C_BO_CREATE, ret);
	}
	if (!ret) {
		ret = vmgpu_bo_map(out, &omap);
		note(C_MMAP, ret);
	}
	if (!ret) {
		ret = vmgpu_syncobj_create(dev, &bsync);
		note(C_SYNCOBJ_CREATE, ret);
	}
	if (ret)
		return ret == -ENODEV ? EXIT_DEVLOST : 1;
	memset(fmap, 0, 4096);

	while (!S->stop) {
		struct vmgpu_submit_info info = { .gpu = 0 };
		struct vmgpu_context_status st;
		struct vmgpu_dispatch_desc d;
		struct vmgpu_context *ctx;
		struct vmgpu_cmdbuf *cb;
		struct vmgpu_sync os = { 0 };
		unsigned int w0 = S->window;
		unsigned int kind = i++ % 4;
		bool endless = kind < 2;
		/* What hangs: 0, 1 a kernel, 2 a WAIT_VALUE, 3 a DEP_WAIT. */
		const char *hang = endless ? "an endless kernel" :
				   kind == 2 ? "a WAIT_VALUE" : "a DEP_WAIT";
		uint32_t sync;
		char what[256] = "";

		ret = vmgpu_context_create(dev, VMGPU_PRIORITY_NORMAL, &ctx);
		if (note(C_CTX_CREATE, ret))
			return ret == -ENODEV ? EXIT_DEVLOST : 1;
		ret = vmgpu_syncobj_create(dev, &sync);
		note(C_SYNCOBJ_CREATE, ret);
		vmgpu_cmdbuf_create(dev, &cb);
		if (endless) {
			ret = vmgpu_cmdbuf_set_state(cb, VMGPU_STATE_INSTR_BUDGET,
						     (uint32_t)S->max_budget);
			memset(&d, 0, sizeof(d));
			d.kernel = k;
			d.block[0] = 32;
			if (!ret)
				ret = vmgpu_cmdbuf_dispatch(cb, &d);
		} else if (kind == 2) {
			ret = vmgpu_cmdbuf_wait_value(cb, flag, 0, VMGPU_WAIT_EQ,
						      1, ~0u);
		} else {
			/* An entry nobody writes in this epoch, explicitly synced. */
			struct vmgpu_dep_table t = { flag, 0, 512 };
			struct vmgpu_region_map m = { .kind = VMGPU_MAP_IDENTITY };
			const uint32_t one[3] = { 1, 1, 1 }, zero[3] = { 0 };

			ret = vmgpu_cmdbuf_use(cb, flag, VMGPU_USE_EXPLICIT);
			if (!ret)
				ret = vmgpu_cmdbuf_dep_wait(cb, 0xfffffff0u, &t, 0,
							    one, one, zero, one,
							    &m);
		}
		if (ret >= 0) {
			os.handle = sync;
			info.out = &os;
			info.out_count = 1;
			ret = vmgpu_submit(ctx, cb, &info);
			note(C_SUBMIT, ret < 0 ? ret : 0);
			vmgpu_error_message(dev, what, sizeof(what));
		}
		vmgpu_cmdbuf_destroy(cb);
		if (ret == -ENODEV)
			return EXIT_DEVLOST;
		if (ret < 0) {
			if (!(w0 & 1) && w0 == S->window)
				violation("hang: submitting %s at budget %#" PRIx64
					  " failed: %s", hang, S->max_budget, what);
		} else {
			struct fillj by = { .gpu = 0, .tag = (uint32_t)i };
			char bwhat[256] = "";
			int bret;

			add(ST_HANGS);
			add(ST_PK_SUBMITTED);
			bret = fill_submit(dev, kfill, out, omap, bsync, &by, bwhat,
					   sizeof(bwhat));
			ret = wait_sync(dev, sync, 120000);
			if (ret == -ETIME) {
				violation("hang: %s on GPU 0 did not end within 120 s",
					  hang);
			} else if (!ret) {
				int s = sync_status(dev, sync);

				if (s == 1) {
					violation("hang: %s reported success", hang);
				} else {
					add(ST_HANGS_ENDED);
					add(ST_PK_FAILED);
				}
				ret = vmgpu_context_query(ctx, &st);
				note(C_CTX_QUERY, ret);
				if (!ret && s != 1 && !st.banned && !(w0 & 1) &&
				    w0 == S->window)
					violation("hang: context of a failed packet not banned");
			}
			/* Hangs cost only their own context: the bystander runs. */
			if (!bret)
				bret = fill_finish(dev, omap, bsync, &by, 120000, true,
						   bwhat, sizeof(bwhat));
			vmgpu_context_destroy(by.ctx);
			if (bret && bret != -EINTR && !(w0 & 1) && w0 == S->window)
				violation("hang: innocent packet queued behind %s on GPU 0 "
					  "failed: %s", hang, bwhat);
		}
		vmgpu_syncobj_destroy(dev, sync);
		vmgpu_context_destroy(ctx);
		if (ret == -ENODEV || S->window != w0)
			return EXIT_DEVLOST;
		sleep_ms(300 + rnd(&rng) % 1500);
	}
	vmgpu_syncobj_destroy(dev, bsync);
	vmgpu_bo_destroy(k);
	vmgpu_bo_destroy(flag);
	vmgpu_bo_destroy(kfill);
	vmgpu_bo_destroy(out);
	vmgpu_device_close(dev);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The controller                                                       */
/* ------------------------------------------------------------------ */

struct kid {
	pid_t pid;
	enum kind kind;
	int index, incarnation;
	bool killing;	/* SIGKILLed by us */
	bool stuck;	/* did not die: never reaped */
};

static struct kid kids[MAX_KIDS];
static unsigned int nkids;
static bool fatal;

static pid_t spawn_one(struct kid *k)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		violation("fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		int code = 1;

		signal(SIGTERM, SIG_DFL);
		switch (k->kind) {
		case K_IOCTL:
			code = worker_main(k->index, k->incarnation);
			break;
		case K_CHECKER:
			code = checker_main();
			break;
		case K_HANG:
			code = hang_main(k->incarnation);
			break;
		default:
			break;
		}
		fflush(stdout);
		_exit(code);
	}
	k->pid = pid;
	k->killing = false;
	return pid;
}

/* What /proc says about a task that should not be there. */
static void describe_task(const char *pid, char *buf, size_t len)
{
	char path[128], stat[512], wchan[128], stack[1024];
	char *s;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if (read_file(path, stat, sizeof(stat)) < 0)
		stat[0] = 0;
	snprintf(path, sizeof(path), "/proc/%s/wchan", pid);
	if (read_file(path, wchan, sizeof(wchan)) < 0)
		wchan[0] = 0;
	snprintf(path, sizeof(path), "/proc/%s/stack", pid);
	if (read_file(path, stack, sizeof(stack)) < 0)
		stack[0] = 0;
	for (s = stack; *s; s++)
		if (*s == '\n')
			*s = '|';
	s = strchr(stat, ')');
	snprintf(buf, len, "%.*s state %c wchan %s stack %s",
		 s ? (int)(s - stat + 1) : 0, stat, s && s[1] ? s[2] : '?',
		 wchan, stack);
}

static void describe_threads(pid_t pid)
{
	char path[64], buf[1600], id[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(id, sizeof(id), "%d/task/%.32s", pid, de->d_name);
		describe_task(id, buf, sizeof(buf));
		say("  task %s: %s", de->d_name, buf);
	}
	closedir(d);
}

/* Wait up to @ms for @k to die; false (and a violation) if it does not. */
static bool wait_dead(struct kid *k, unsigned int ms, int *status)
{
	int64_t end = now_ns() + (int64_t)ms * MS;
	pid_t r;

	for (;;) {
		r = waitpid(k->pid, status, WNOHANG);
		if (r == k->pid)
			return true;
		if (now_ns() > end)
			break;
		sleep_ms(20);
	}
	violation("%s %d (pid %d) did not die within %u ms of SIGKILL: unkillable",
		  kind_names[k->kind], k->index, k->pid, ms);
	say("  pid %d:", k->pid);
	describe_threads(k->pid);
	k->stuck = true;
	return false;
}

static void classify_exit(struct kid *k, int status)
{
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && k->killing)
		return;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && S->stop)
		return;
	if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_DEVLOST &&
	    k->kind == K_HANG)
		return;
	if (WIFSIGNALED(status))
		violation("%s %d died of signal %d (%s)%s", kind_names[k->kind],
			  k->index, WTERMSIG(status), strsignal(WTERMSIG(status)),
			  WTERMSIG(status) == SIGKILL ?
			  " not sent by the controller (OOM killer?)" : "");
	else
		violation("%s %d exited with status %d", kind_names[k->kind],
			  k->index, WEXITSTATUS(status));
}

static void restart(struct kid *k)
{
	k->incarnation++;
	if (spawn_one(k) > 0)
		add(ST_RESTARTS);
}

static void reap(bool respawn)
{
	unsigned int i;
	int status;

	for (i = 0; i < nkids; i++) {
		struct kid *k = &kids[i];

		if (k->pid <= 0 || k->stuck)
			continue;
		if (waitpid(k->pid, &status, WNOHANG) != k->pid)
			continue;
		classify_exit(k, status);
		k->pid = 0;
		if (respawn && !S->stop)
			restart(k);
	}
}

static void kill_kid(struct kid *k)
{
	int status;

	if (k->pid <= 0 || k->stuck)
		return;
	k->killing = true;
	kill(k->pid, SIGKILL);
	if (wait_dead(k, 30000, &status)) {
		classify_exit(k, status);
		k->pid = 0;
	}
}

/*
 * Run @fn in a child with a deadline, so that the controller itself never
 * blocks in the driver. The child's exit status (255: timed out).
 */
static int run_child(const char *what, int (*fn)(const void *), const void *arg,
		     unsigned int timeout_s)
{
	struct kid k = { .kind = K_LIFECYCLE };
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 254;
	if (!pid) {
		role = what;
		_exit(fn(arg));
	}
	k.pid = pid;
	{
		int64_t end = now_ns() + (int64_t)timeout_s * NS;

		while (waitpid(pid, &status, WNOHANG) != pid) {
			if (now_ns() > end) {
				violation("%s did not finish within %u s", what,
					  timeout_s);
				describe_threads(pid);
				kill(pid, SIGKILL);
				if (!wait_dead(&k, 10000, &status))
					fatal = true;
				return 255;
			}
			sleep_ms(20);
		}
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 253;
}

struct wr {
	const char *path, *val;
};

static int do_write(const void *arg)
{
	const struct wr *w = arg;
	int ret = write_file(w->path, w->val);

	return ret < 0 ? -ret : 0;
}

static int sysfs_write(const char *path, const char *val)
{
	struct wr w = { path, val };
	char what[160];
	int ret;

	snprintf(what, sizeof(what), "echo %s > %s", val, path);
	ret = run_child(what, do_write, &w, 60);
	if (ret && ret < 253)
		say("%s: %s", what, strerror(ret));
	return ret;
}

static int wait_node(unsigned int secs)
{
	int64_t end = now_ns() + (int64_t)secs * NS;

	while (now_ns() < end) {
		if (vmgpu_device_count() >= 1)
			return 0;
		sleep_ms(50);
	}
	return -1;
}

/* Every GPU (but GPU 0 while hangs are injected) runs a checked fill. */
static int do_probe(const void *arg)
{
	struct vmgpu_device *dev;
	struct vmgpu_bo *k, *o;
	uint32_t g, sync, *m;
	void *img;
	size_t bytes;
	char what[256];
	int bad = 0;

	(void)arg;
	if (vmgpu_device_open(0, &dev, what, sizeof(what))) {
		say("probe: open: %s", what);
		return 1;
	}
	assemble(vmgpu_builtin_kernel_source("fill"), &img, &bytes);
	if (vmgpu_kernel_create(dev, img, bytes, &k) ||
	    vmgpu_bo_create(dev, 4096, 0, 0, &o) || vmgpu_bo_map(o, (void **)&m) ||
	    vmgpu_syncobj_create(dev, &sync)) {
		vmgpu_error_message(dev, what, sizeof(what));
		say("probe: setup: %s", what);
		return 2;
	}
	for (g = on(K_HANG) && S->num_gpus > 1 ? 1 : 0; g < S->num_gpus; g++) {
		struct fillj j = { .gpu = g, .tag = g };

		if (fill_submit(dev, k, o, m, sync, &j, what, sizeof(what)) ||
		    fill_finish(dev, m, sync, &j, 40000, false, what, sizeof(what))) {
			say("probe: GPU %u does not work: %s", g, what);
			bad++;
		}
	}
	vmgpu_device_close(dev);
	return bad ? 10 + bad : 0;
}

static int probe(const char *after)
{
	char what[96];
	int ret;

	snprintf(what, sizeof(what), "probe after %s", after);
	add(ST_PROBES);
	ret = run_child(what, do_probe, NULL, 90);
	return ret;
}

static bool find_bdf(void)
{
	struct dirent *de;
	DIR *d = opendir(DRV_DIR);

	if (!d)
		return false;
	while ((de = readdir(d)))
		if (strchr(de->d_name, ':'))
			snprintf(bdf, sizeof(bdf), "%.63s", de->d_name);
	closedir(d);
	return bdf[0] != 0;
}

/*
 * A real-time thread that sleeps 100 ms at a time: when it wakes up much
 * later, no CPU of the guest ran it (a vCPU stuck in the device model, or
 * with interrupts off). It only records; the main loop reports.
 */
static void *watchdog(void *arg)
{
	struct sched_param sp = { .sched_priority = 10 };
	int64_t last = now_ns(), t;

	(void)arg;
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	for (;;) {
		sleep_ms(100);
		t = now_ns();
		if (t - last - 100 * MS > S->stall_ns) {
			S->stall_at = last - t0;
			S->stall_ns = t - last - 100 * MS;
		}
		last = t;
	}
	return NULL;
}

static void stall_check(void)
{
	static int64_t reported;

	if (S->stall_ns > (int64_t)cfg.stall_ms * MS && S->stall_ns > reported) {
		reported = S->stall_ns;
		violation("the guest stalled for %.1f s at %.1f s: a real-time "
			  "thread sleeping 100 ms did not run (frozen vCPU?)",
			  S->stall_ns / 1e9, S->stall_at / 1e9);
	}
}

static void open_window(const char *what)
{
	__atomic_add_fetch(&S->window, 1, __ATOMIC_SEQ_CST);	/* odd */
	kmsg("%s %s", what, bdf);
	say("event: %s", what);
}

static void close_window(void)
{
	__atomic_add_fetch(&S->window, 1, __ATOMIC_SEQ_CST);	/* even */
}

static void drain_socket(void)
{
	char tag;
	int fd;

	while ((fd = recv_fd(&tag)) >= 0)
		close(fd);
}

static int unbind_bind(void)
{
	if (sysfs_write(DRV_DIR "/unbind", bdf)) {
		violation("unbind of %s failed", bdf);
		return -1;
	}
	if (fatal)
		return -1;
	sleep_ms(200 + rand() % 1300);	/* workers hit the dead files */
	if (sysfs_write(DRV_DIR "/bind", bdf) || wait_node(30)) {
		violation("bind of %s failed or no render node came back", bdf);
		fatal = true;
		return -1;
	}
	return 0;
}

/* The device does not work after an event: unbind/rebind, then probe. */
static void recover(const char *after)
{
	violation("GPUs do not work after %s", after);
	add(ST_LC_RECOVER);
	if (unbind_bind() || probe("recovery")) {
		violation("GPUs do not work after %s and an unbind/rebind", after);
		fatal = true;
	}
}

static void ev_kill(void)
{
	struct kid *cand[MAX_KIDS];
	unsigned int i, n = 0;

	for (i = 0; i < nkids; i++)
		if (kids[i].pid > 0 && !kids[i].stuck &&
		    (kids[i].kind == K_IOCTL || kids[i].kind == K_HANG))
			cand[n++] = &kids[i];
	if (!n)
		return;
	i = rand() % n;
	verbose("event: SIGKILL %s %d (pid %d)", kind_names[cand[i]->kind],
		cand[i]->index, cand[i]->pid);
	kill_kid(cand[i]);
	add(ST_LC_KILL);
	if (!cand[i]->pid)
		restart(cand[i]);
}

static void ev_unbind(void)
{
	open_window("unbind/rebind");
	if (!unbind_bind() && probe("unbind/rebind"))
		recover("unbind/rebind");
	add(ST_LC_UNBIND);
	close_window();
}

static void ev_reset(void)
{
	char path[160];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/reset", bdf);
	open_window("PCI reset");
	if (sysfs_write(path, "1"))
		violation("PCI reset of %s failed", bdf);
	else if (!fatal && probe("PCI reset"))
		recover("PCI reset");
	add(ST_LC_RESET);
	close_window();
}

static int jobs_alive(void);

static int do_rmmod(const void *arg)
{
	int64_t end = now_ns() + 20 * NS;

	(void)arg;
	while (syscall(SYS_delete_module, "vmgpu", O_NONBLOCK)) {
		if ((errno != EBUSY && errno != EAGAIN) || now_ns() > end)
			return errno;
		sleep_ms(100);
	}
	return 0;
}

static int do_insmod(const void *arg)
{
	int fd = open(cfg.module, O_RDONLY | O_CLOEXEC), ret;

	(void)arg;
	if (fd < 0)
		return errno;
	ret = syscall(SYS_finit_module, fd, "", 0) ? errno : 0;
	close(fd);
	return ret;
}

static void ev_rmmod(void)
{
	unsigned int i;
	int64_t end;
	int ret, n = -1;

	open_window("rmmod/insmod");
	/* The checker closes its files between two jobs. */
	S->pause_req = 1;
	end = now_ns() + 60 * NS;
	while (!S->paused && now_ns() < end)
		sleep_ms(20);
	for (i = 0; i < nkids; i++)
		if (kids[i].kind != K_CHECKER || !S->paused)
			kill_kid(&kids[i]);
	drain_socket();
	for (i = 0; i < nkids; i++)
		if (kids[i].stuck) {
			say("rmmod skipped: a process did not die");
			goto restart;
		}
	/* Every file is closed: no job may be left. */
	end = now_ns() + 30 * NS;
	while ((n = jobs_alive()) > 0 && now_ns() < end)
		sleep_ms(100);
	if (n > 0)
		violation("%d jobs alive with every file closed (before rmmod)", n);
	ret = run_child("rmmod vmgpu", do_rmmod, NULL, 60);
	if (ret) {
		violation("rmmod vmgpu failed: %s", ret < 253 ? strerror(ret) :
			  "timed out");
		if (ret >= 253)
			fatal = true;
		goto restart;
	}
	ret = run_child("insmod vmgpu.ko", do_insmod, NULL, 60);
	if (ret || wait_node(30)) {
		violation("insmod %s failed: %s", cfg.module,
			  ret ? strerror(ret) : "no render node");
		fatal = true;
		goto restart;
	}
	if (probe("rmmod/insmod"))
		recover("rmmod/insmod");
	add(ST_LC_RMMOD);
restart:
	for (i = 0; i < nkids; i++)
		if (!kids[i].pid && !kids[i].stuck && !fatal)
			restart(&kids[i]);
	S->pause_req = 0;
	close_window();
}

/* ---- measurements ---- */

static char dbg_dir[128];

static bool find_debugfs(void)
{
	char path[300], name[128];
	struct dirent *de;
	DIR *d = opendir("/sys/kernel/debug/dri");

	dbg_dir[0] = 0;
	if (!d)
		return false;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%s/name",
			 de->d_name);
		if (read_file(path, name, sizeof(name)) <= 0 ||
		    strncmp(name, "vmgpu", 5))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%s/counters",
			 de->d_name);
		if (access(path, R_OK))
			continue;
		snprintf(dbg_dir, sizeof(dbg_dir), "/sys/kernel/debug/dri/%.32s",
			 de->d_name);
		break;
	}
	closedir(d);
	return dbg_dir[0] != 0;
}

static int jobs_alive(void)
{
	char path[200], buf[8192], *s;

	if (!find_debugfs())
		return -1;
	snprintf(path, sizeof(path), "%s/counters", dbg_dir);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	s = strstr(buf, "jobs_alive ");
	return s ? atoi(s + 11) : -1;
}

static int open_files(void)
{
	char path[200], buf[16384], *s;
	int n = 0;

	if (!find_debugfs())
		return -1;
	snprintf(path, sizeof(path), "%s/client_counters", dbg_dir);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	for (s = buf; (s = strstr(s, "client ")); s++)
		n++;
	return n;
}

static long meminfo(const char *key)
{
	char buf[8192], *s;

	if (read_file("/proc/meminfo", buf, sizeof(buf)) < 0)
		return -1;
	s = strstr(buf, key);
	return s ? atol(s + strlen(key)) : -1;
}

struct levels {
	long shmem, unevict;		/* kB */
	int jobs, files;
	long long mem_used;		/* -1: not supported */
};

static void measure(struct levels *l)
{
	struct vmgpu_device *dev;
	uint64_t v;

	l->mem_used = -1;
	if (!vmgpu_device_open(0, &dev, NULL, 0)) {
		if (!vmgpu_get_param(dev, DRM_VMGPU_PARAM_MEM_USED, &v))
			l->mem_used = (long long)v;
		vmgpu_device_close(dev);
	}
	sync();
	write_file("/proc/sys/vm/drop_caches", "3");
	l->shmem = meminfo("Shmem:");
	l->unevict = meminfo("Unevictable:");
	l->jobs = jobs_alive();
	l->files = open_files();
}

static struct levels base;

/*
 * After every process exited: the driver's counters at their starting
 * values exactly, Shmem and Unevictable within cfg.slack_kb. They get
 * 30 s to settle (jobs are freed by the scheduler shortly after their
 * fences signal; pages return through per-CPU batches).
 */
static void leak_check(const char *when)
{
	int64_t end = now_ns() + 30 * NS;
	struct levels l;
	bool ok;

	for (;;) {
		measure(&l);
		ok = l.jobs <= 0 && l.files <= 0 &&
		     (base.mem_used < 0 || l.mem_used == base.mem_used) &&
		     l.shmem - base.shmem <= (long)cfg.slack_kb &&
		     l.unevict - base.unevict <= (long)cfg.slack_kb;
		if (ok || now_ns() > end)
			break;
		sleep_ms(1000);
	}
	say("leak check %s: jobs_alive %d, open files %d, MEM_USED %lld (start %lld), "
	    "Shmem %+ld kB, Unevictable %+ld kB", when, l.jobs, l.files,
	    l.mem_used, base.mem_used, l.shmem - base.shmem,
	    l.unevict - base.unevict);
	if (!ok)
		violation("leak %s: jobs_alive %d, open files %d, MEM_USED %lld "
			  "(start %lld), Shmem %+ld kB, Unevictable %+ld kB "
			  "(slack %lu kB)", when, l.jobs, l.files, l.mem_used,
			  base.mem_used, l.shmem - base.shmem,
			  l.unevict - base.unevict, cfg.slack_kb);
}

/* Tasks in D state, seen twice 2 s apart. */
static void dstate_check(void)
{
	pid_t seen[256];
	unsigned int nseen = 0, pass, i;

	for (pass = 0; pass < 2; pass++) {
		struct dirent *de;
		DIR *d = opendir("/proc");

		if (!d)
			return;
		while ((de = readdir(d))) {
			char path[64], stat[512], *s, desc[1600];
			pid_t pid = atoi(de->d_name);

			if (pid <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/stat", pid);
			if (read_file(path, stat, sizeof(stat)) <= 0)
				continue;
			s = strrchr(stat, ')');
			if (!s || s[1] != ' ' || s[2] != 'D')
				continue;
			if (pass == 0) {
				if (nseen < 256)
					seen[nseen++] = pid;
				continue;
			}
			for (i = 0; i < nseen && seen[i] != pid; i++)
				;
			if (i == nseen)
				continue;
			describe_task(de->d_name, desc, sizeof(desc));
			violation("task in D state after the run: %s", desc);
		}
		closedir(d);
		if (!nseen)
			return;
		sleep_ms(2000);
	}
}

/* Kernel reports in the log since boot: the first lines of each. */
static const char *const report_patterns[] = {
	"WARNING:", "BUG:", "Oops", "general protection fault", "KASAN:",
	"UBSAN:", "Kernel panic", "Call Trace:", "possible recursive locking",
	"possible circular locking", "inconsistent lock state",
	"DEBUG_LOCKS_WARN_ON", "suspicious RCU usage", "list_add corruption",
	"list_del corruption", "refcount_t: ", "blocked for more than",
	"detected stall", "soft lockup", "hard LOCKUP",
	"unreferenced object 0x", "page allocation failure",
};

static unsigned int kmsg_scan(void)
{
	char rec[8192], prev[2][256] = { "", "" };
	unsigned int reports = 0, shown = 0, tail = 0, quiet = 0;
	unsigned int timeouts = 0, throttled = 0, recno = 0, last_start = 0;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	lseek(fd, 0, SEEK_SET);
	for (;;) {
		char *msg, *nl;
		unsigned int i;
		bool hit = false;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records */
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = 0;
		for (i = 0; i < sizeof(report_patterns) / sizeof(report_patterns[0]); i++)
			if (strstr(msg, report_patterns[i]))
				hit = true;
		if (strstr(msg, "timed out, resetting the GPU"))
			timeouts++;
		if (strstr(msg, "RT throttling activated"))
			throttled++;
		/* One report: its first line up to its end marker. */
		if (quiet && strstr(msg, "---[ end trace"))
			quiet = 1;
		recno++;
		if (hit && strstr(msg, "Kernel panic") && last_start &&
		    recno - last_start < 300)
			hit = false;	/* the end of the report before */
		if (hit && !quiet) {
			last_start = recno;
			reports++;
			quiet = 100;
			if (shown++ < 12) {
				say("kernel report %u:", reports);
				for (i = 0; i < 2; i++)
					if (prev[i][0])
						say("  | %s", prev[i]);
				tail = 16;
			}
		}
		if (quiet)
			quiet--;
		if (tail) {
			say("  | %s", msg);
			tail--;
		}
		snprintf(prev[0], sizeof(prev[0]), "%s", prev[1]);
		snprintf(prev[1], sizeof(prev[1]), "%.255s", msg);
	}
	close(fd);
	say("kernel log: %u packets timed out (GPU resets)%s", timeouts,
	    throttled ? "; RT throttling activated (a real-time thread spun)" : "");
	if (reports)
		violation("%u kernel reports in the log", reports);
	return reports;
}

static const char *errno_name(unsigned int e)
{
	if (e == ERRNO_SLOTS - 1)
		return "other";
	return strerrorname_np((int)e) ? strerrorname_np((int)e) : "?";
}

static void print_random_report(void)
{
	uint64_t refused = 0;
	unsigned int i;

	if (!S->stat[ST_RND_BUILT])
		return;
	for (i = 1; i < ERRNO_SLOTS; i++)
		refused += S->rnd_errnos[i];
	printf("random packets: submitted %" PRIu64 " (mutated %" PRIu64
	       "), refused %" PRIu64 " (", S->stat[ST_RND_BUILT],
	       S->stat[ST_RND_MUTATED], refused);
	for (i = 1; i < ERRNO_SLOTS; i++)
		if (S->rnd_errnos[i])
			printf("%s %" PRIu64 ", ", errno_name(i), S->rnd_errnos[i]);
	printf("), accepted %" PRIu64 " (%" PRIu64 " on contexts destroyed "
	       "right after), completed %" PRIu64 ", failed %" PRIu64
	       ", wait timeouts %" PRIu64 "\n",
	       S->stat[ST_RND_ACCEPTED], S->stat[ST_RND_TMPCTX],
	       S->stat[ST_RND_COMPLETED], S->stat[ST_RND_FAILED],
	       S->stat[ST_RND_TIMEOUT]);
	printf("random faults: %" PRIu64 " contexts banned (", S->stat[ST_RND_BANNED]);
	for (i = 0; i < RND_FAULT_SLOTS; i++)
		if (S->rnd_faults[i])
			printf("%s %" PRIu64 ", ",
			       i == VMGPU_FAULT_NUM ? "timeout" :
			       i > VMGPU_FAULT_NUM ? "other" : vmgpu_fault_name(i),
			       S->rnd_faults[i]);
	printf("); kernels: random words %" PRIu64 ", bad headers %" PRIu64
	       ", well-formed %" PRIu64 ", rewrites in flight %" PRIu64 "\n",
	       S->stat[ST_RND_KERN_RANDOM], S->stat[ST_RND_KERN_BADHDR],
	       S->stat[ST_RND_KERN_WELL], S->stat[ST_RND_REWRITES]);
}

static void print_report(unsigned int secs)
{
	uint64_t tot = 0, err = 0, all = 0;
	unsigned int i;

	printf("\nvmgpu-stress report (%u s, seed %#" PRIx64 ", %u GPUs)\n", secs,
	       cfg.seed, S->num_gpus);
	printf("calls by type (errors):\n");
	for (i = 0; i < C_NUM; i++) {
		if (!S->calls[i])
			continue;
		printf("  %-26s %12" PRIu64 " (%" PRIu64 ")\n", call_names[i],
		       S->calls[i], S->call_errs[i]);
		if (i < C_IOCTL_END) {
			tot += S->calls[i];
			err += S->call_errs[i];
		}
		all += S->calls[i];
	}
	printf("  %-26s %12" PRIu64 " (%" PRIu64 ")\n", "ioctls", tot, err);
	printf("  %-26s %12" PRIu64 "\n", "all calls", all);
	printf("errors by errno:");
	for (i = 1; i < ERRNO_SLOTS; i++)
		if (S->errnos[i])
			printf(" %s %" PRIu64 ",", errno_name(i), S->errnos[i]);
	printf("\npackets: submitted %" PRIu64 ", completed %" PRIu64
	       ", failed %" PRIu64 ", wait timeouts %" PRIu64 ", verified %" PRIu64
	       " (checker jobs %" PRIu64 ")\n",
	       S->stat[ST_PK_SUBMITTED], S->stat[ST_PK_COMPLETED],
	       S->stat[ST_PK_FAILED], S->stat[ST_PK_WAIT_TIMEOUT],
	       S->stat[ST_PK_VERIFIED], S->stat[ST_CHK_JOBS]);
	printf("faults injected: faulting kernels %" PRIu64 ", hostile packets accepted %"
	       PRIu64 " (mutated %" PRIu64 "), hangs %" PRIu64 " (ended with an error %"
	       PRIu64 "), budget %#" PRIx64 "%s\n",
	       S->stat[ST_FAULTS], S->stat[ST_HOSTILE_ACCEPTED],
	       S->stat[ST_MUTATED_RUN], S->stat[ST_HANGS], S->stat[ST_HANGS_ENDED],
	       S->max_budget, S->budget_param ? "" : " (no MAX_USER_INSTR_BUDGET)");
	print_random_report();
	printf("lifecycle: kill %" PRIu64 ", unbind/rebind %" PRIu64
	       ", rmmod/insmod %" PRIu64 ", pci-reset %" PRIu64 ", recoveries %"
	       PRIu64 ", probes %" PRIu64 ", worker restarts %" PRIu64
	       ", reopens %" PRIu64 "\n",
	       S->stat[ST_LC_KILL], S->stat[ST_LC_UNBIND], S->stat[ST_LC_RMMOD],
	       S->stat[ST_LC_RESET], S->stat[ST_LC_RECOVER], S->stat[ST_PROBES],
	       S->stat[ST_RESTARTS], S->stat[ST_REOPENS]);
	printf("checker: pauses %" PRIu64 ", reopens %" PRIu64
	       ", errors tolerated in event windows %" PRIu64 "\n",
	       S->stat[ST_CHK_PAUSES], S->stat[ST_CHK_REOPENS],
	       S->stat[ST_CHK_TOLERATED]);
	printf("other: SIGBUS %" PRIu64 ", memory-limit runs %" PRIu64 "\n",
	       S->stat[ST_SIGBUS], S->stat[ST_MEMHOG]);
	printf("violations: %" PRIu64 "\n", S->violations);
	fflush(stdout);
}

static unsigned int parse_set(const char *arg, const char *const *names,
			      unsigned int n, const char *what)
{
	unsigned int set = 0, i;
	char *dup = strdup(arg), *tok, *save = NULL;

	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			set = (1u << n) - 1;
			continue;
		}
		for (i = 0; i < n && strcmp(tok, names[i]); i++)
			;
		if (i == n) {
			fprintf(stderr, "vmgpu-stress: unknown %s '%s'; one of:", what, tok);
			for (i = 0; i < n; i++)
				fprintf(stderr, " %s", names[i]);
			fprintf(stderr, "\n");
			exit(2);
		}
		set |= 1u << i;
	}
	free(dup);
	return set;
}

static const struct tool tool = {
	.name = "vmgpu-stress",
	.usage =
	"usage: vmgpu-stress [options]\n"
	"  --duration S     seconds of stress (default 60)\n"
	"  --procs N        ioctl worker processes (default 3)\n"
	"  --threads N      threads per worker process (default 4)\n"
	"  --seed S         random seed (default: from the clock; printed)\n"
	"  --lifecycle      lifecycle events (root): kill, unbind, rmmod, reset\n"
	"  --hang           hang injection on GPU 0\n"
	"  --no-checker     no checker\n"
	"  --only LIST      run only these: ioctl,checker,hang,lifecycle\n"
	"  --events LIST    lifecycle events: kill,unbind,rmmod,reset (default all)\n"
	"  --ops LIST       ioctl worker groups (default all):\n"
	"                   param,bo,mmap,close,ctx,submit,hostile,fault,\n"
	"                   random,syncobj,prime,flink,fds,rawioctl,memhog\n"
	"  --interval S     mean seconds between lifecycle events (default 6)\n"
	"  --module PATH    vmgpu.ko for insmod (default /vmgpu/modules/vmgpu.ko)\n"
	"  --hung-task S    hung_task_timeout_secs during the run (default 30, 0: keep)\n"
	"  --slack KB       Shmem/Unevictable growth allowed (default 2048)\n"
	"  --stall S        a guest stall longer than S seconds fails (default 10)\n"
	"  --no-rebind      no unbind/rebind before the final leak check\n"
	"  --report         print the counters at the end\n"
	"  --verbose        say more\n"
	"  -h, --help       this help\n"
	"  --version        the version\n",
};

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "duration", 1, NULL, 'd' }, { "procs", 1, NULL, 'p' },
		{ "threads", 1, NULL, 't' }, { "seed", 1, NULL, 's' },
		{ "lifecycle", 0, NULL, 'l' }, { "hang", 0, NULL, 'H' },
		{ "no-checker", 0, NULL, 'C' }, { "only", 1, NULL, 'o' },
		{ "events", 1, NULL, 'e' }, { "ops", 1, NULL, 'O' },
		{ "interval", 1, NULL, 'i' }, { "module", 1, NULL, 'm' },
		{ "hung-task", 1, NULL, 'T' }, { "slack", 1, NULL, 'S' },
		{ "stall", 1, NULL, 'W' },
		{ "no-rebind", 0, NULL, 'R' }, { "report", 0, NULL, 'r' },
		{ "verbose", 0, NULL, 'v' },
		TOOL_COMMON_OPTIONS,
	};
	bool lifecycle = false, hang = false, checker = true, seeded = false;
	unsigned int only = 0, i, secs;
	int64_t end, next_ev, next_status;
	struct vmgpu_device *dev;
	pthread_t wd;
	uint64_t v;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	t0 = now_ns();
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'd': cfg.duration = strtoul(optarg, NULL, 0); break;
		case 'p': cfg.procs = strtoul(optarg, NULL, 0); break;
		case 't': cfg.threads = strtoul(optarg, NULL, 0); break;
		case 's': cfg.seed = strtoull(optarg, NULL, 0); seeded = true; break;
		case 'l': lifecycle = true; break;
		case 'H': hang = true; break;
		case 'C': checker = false; break;
		case 'o': only = parse_set(optarg, kind_names, K_NUM, "kind"); break;
		case 'e': cfg.events = parse_set(optarg, event_names, E_NUM, "event"); break;
		case 'O': cfg.groups = parse_set(optarg, group_names, G_NUM, "group"); break;
		case 'i': cfg.interval = atof(optarg); break;
		case 'm': cfg.module = optarg; break;
		case 'T': cfg.hung_task_secs = strtoul(optarg, NULL, 0); break;
		case 'S': cfg.slack_kb = strtoul(optarg, NULL, 0); break;
		case 'W': cfg.stall_ms = 1000 * strtoul(optarg, NULL, 0); break;
		case 'R': cfg.no_rebind = true; break;
		case 'r': cfg.report = true; break;
		case 'v': cfg.verbose = true; break;
		default: tool_common_option(&tool, c);
		}
	}
	if (optind < argc)
		tool_usage_error(&tool, "unexpected operand %s", argv[optind]);
	if (only)
		cfg.kinds = only;
	else
		cfg.kinds = (1u << K_IOCTL) | (checker ? 1u << K_CHECKER : 0) |
			    (hang ? 1u << K_HANG : 0) |
			    (lifecycle ? 1u << K_LIFECYCLE : 0);
	if (cfg.procs > MAX_KIDS - 2)
		cfg.procs = MAX_KIDS - 2;
	if (!cfg.threads)
		cfg.threads = 1;
	if (!seeded)
		cfg.seed = splitmix((uint64_t)time(NULL) ^ getpid());
	srand((unsigned int)cfg.seed);
	srand48((long)cfg.seed);

	S = mmap(NULL, sizeof(*S), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (S == MAP_FAILED)
		return 2;
	memset(S, 0, sizeof(*S));
	signal(SIGPIPE, SIG_IGN);

	if (vmgpu_device_open(0, &dev, NULL, 0)) {
		fprintf(stderr, "vmgpu-stress: no vmgpu device\n");
		return 2;
	}
	get_param(dev->fd, DRM_VMGPU_PARAM_NUM_GPUS, &v);
	S->num_gpus = (uint32_t)v;
	if (!get_param(dev->fd, DRM_VMGPU_PARAM_MAX_USER_INSTR_BUDGET, &v)) {
		S->max_budget = v;
		S->budget_param = true;
	} else {
		S->max_budget = 0xffffffffu;	/* before uAPI 3: no limit */
	}
	S->isa_version = get_param(dev->fd, DRM_VMGPU_PARAM_ISA_VERSION, &v) ?
			 1 : (uint32_t)v;
	S->max_dispatches = get_param(dev->fd, DRM_VMGPU_PARAM_MAX_DISPATCHES,
				      &v) ? VMGPU_MAX_DISPATCHES_PER_PACKET :
					    (uint32_t)v;
	if (!get_param(dev->fd, DRM_VMGPU_PARAM_VA_START, &v))
		S->va_start = v;
	if (!get_param(dev->fd, DRM_VMGPU_PARAM_VA_END, &v))
		S->va_end = v;
	if (!get_param(dev->fd, DRM_VMGPU_PARAM_MEM_LIMIT, &v) &&
	    (long long)(v >> 10) * 10 <= meminfo("MemTotal:") * 4)
		S->mem_limit = v;
	snprintf(S->node, sizeof(S->node), "%s", dev->node);
	vmgpu_device_close(dev);
	memset(S->calls, 0, sizeof(S->calls));
	memset(S->call_errs, 0, sizeof(S->call_errs));
	memset(S->errnos, 0, sizeof(S->errnos));
	if (S->num_gpus < 2 && (cfg.kinds & (1u << K_HANG)) &&
	    (cfg.kinds & (1u << K_CHECKER))) {
		say("one GPU: no hang injection next to the checker");
		cfg.kinds &= ~(1u << K_HANG);
	}
	find_bdf();
	if (on(K_LIFECYCLE) && (getuid() || !bdf[0])) {
		fprintf(stderr, "vmgpu-stress: --lifecycle needs root and a bound device\n");
		return 2;
	}
	if (on(K_LIFECYCLE) && (cfg.events & (1u << E_RESET))) {
		char path[160];

		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/reset", bdf);
		if (access(path, W_OK)) {
			say("no %s (device not behind a PCIe port?): no PCI resets",
			    path);
			cfg.events &= ~(1u << E_RESET);
		}
	}
	if (cfg.hung_task_secs && !getuid()) {
		char s[16];

		snprintf(s, sizeof(s), "%u", cfg.hung_task_secs);
		write_file("/proc/sys/kernel/hung_task_timeout_secs", s);
	}
	measure(&base);
	say("vmgpu-stress: %u s, seed %#" PRIx64 ", %u GPUs, %u procs x %u threads,"
	    " kinds %s%s%s%s, budget %#" PRIx64 "%s, MEM_USED %s, device %s",
	    cfg.duration, cfg.seed, S->num_gpus, cfg.procs, cfg.threads,
	    on(K_IOCTL) ? "ioctl " : "", on(K_CHECKER) ? "checker " : "",
	    on(K_HANG) ? "hang " : "", on(K_LIFECYCLE) ? "lifecycle" : "",
	    S->max_budget, S->budget_param ? "" : " (driver has no limit)",
	    base.mem_used < 0 ? "unsupported" : "supported", bdf);
	say("start: Shmem %ld kB, Unevictable %ld kB, jobs_alive %d, files %d",
	    base.shmem, base.unevict, base.jobs, base.files);
	kmsg("start, seed %#" PRIx64, cfg.seed);

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sock_pair))
		return 2;
	if (on(K_CHECKER))
		kids[nkids++] = (struct kid){ .kind = K_CHECKER };
	if (on(K_HANG))
		kids[nkids++] = (struct kid){ .kind = K_HANG };
	if (on(K_IOCTL))
		for (i = 0; i < cfg.procs; i++)
			kids[nkids++] = (struct kid){ .kind = K_IOCTL, .index = (int)i };
	for (i = 0; i < nkids; i++)
		spawn_one(&kids[i]);

	end = now_ns() + (int64_t)cfg.duration * NS;
	next_ev = now_ns() + (int64_t)(cfg.interval * (0.5 + drand48()) * NS);
	next_status = now_ns() + 15 * NS;
	pthread_create(&wd, NULL, watchdog, NULL);
	while (now_ns() < end && !fatal) {
		sleep_ms(50);
		reap(true);
		stall_check();
		if (now_ns() > next_status) {
			uint64_t nio = 0;

			for (i = 0; i < C_IOCTL_END; i++)
				nio += S->calls[i];
			say("status: %" PRIu64 " ioctls, %" PRIu64 " packets, %"
			    PRIu64 " verified, %" PRIu64 " events, %" PRIu64
			    " violations", nio, S->stat[ST_PK_SUBMITTED],
			    S->stat[ST_PK_VERIFIED],
			    S->stat[ST_LC_KILL] + S->stat[ST_LC_UNBIND] +
			    S->stat[ST_LC_RMMOD] + S->stat[ST_LC_RESET],
			    S->violations);
			next_status = now_ns() + 15 * NS;
		}
		if (on(K_LIFECYCLE) && cfg.events && now_ns() > next_ev) {
			unsigned int ev, tries = 0;
			static const unsigned int weight[E_NUM] = { 40, 25, 15, 20 };
			unsigned int r;

			do {
				r = rand() % 100;
				for (ev = 0; ev < E_NUM - 1 && r >= weight[ev]; ev++)
					r -= weight[ev];
			} while (!(cfg.events & (1u << ev)) && ++tries < 100);
			switch (ev) {
			case E_KILL:
				ev_kill();
				break;
			case E_UNBIND:
				ev_unbind();
				break;
			case E_RMMOD:
				ev_rmmod();
				break;
			default:
				ev_reset();
				break;
			}
			next_ev = now_ns() +
				  (int64_t)(cfg.interval * (0.5 + drand48()) * NS);
		}
	}

	/* Stop: every process leaves on its own, or is killed. */
	say("stopping");
	kmsg("stopping");
	S->stop = 1;
	S->pause_req = 0;
	{
		int64_t stop_end = now_ns() + 60 * NS;
		bool alive = true;

		while (alive && now_ns() < stop_end) {
			reap(false);
			alive = false;
			for (i = 0; i < nkids; i++)
				if (kids[i].pid > 0 && !kids[i].stuck)
					alive = true;
			sleep_ms(50);
		}
		for (i = 0; i < nkids; i++) {
			if (kids[i].pid <= 0 || kids[i].stuck)
				continue;
			violation("%s %d did not stop within 60 s", kind_names[kids[i].kind],
				  kids[i].index);
			describe_threads(kids[i].pid);
			kill_kid(&kids[i]);
		}
	}
	drain_socket();
	close(sock_pair[0]);
	close(sock_pair[1]);
	secs = (unsigned int)((now_ns() - t0) / NS);

	if (!fatal) {
		dstate_check();
		leak_check("after every process exited");
		if (!cfg.no_rebind && !getuid() && bdf[0]) {
			kmsg("final unbind/rebind");
			if (!unbind_bind()) {
				if (probe("the final unbind/rebind"))
					violation("GPUs do not work after the final unbind/rebind");
				leak_check("after unbind/rebind");
			}
		}
		dstate_check();
	} else {
		say("fatal: the device or a sysfs write hung; no leak check");
	}
	stall_check();
	kmsg("done");
	kmsg_scan();
	if (cfg.report)
		print_report(secs);
	printf("RESULT: %s (%" PRIu64 " violations)\n",
	       S->violations ? "FAIL" : "PASS", S->violations);
	fflush(stdout);
	return fatal ? 2 : S->violations ? 1 : 0;
}
