/* SPDX-License-Identifier: MIT */
/*
 * vmgpu-stress: what the files of the tool share (main.c describes the
 * tool and which file holds what): the counters every process adds to,
 * the configuration, an ioctl worker's process and thread state, and the
 * functions one file calls in another. Internal to the tool.
 */
#ifndef VMGPU_STRESS_H
#define VMGPU_STRESS_H

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vmgpu.h"
#include "vmgpu_drm.h"

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

extern struct shared *S;

/* ------------------------------------------------------------------ */
/* Configuration                                                        */
/* ------------------------------------------------------------------ */

enum kind { K_IOCTL, K_CHECKER, K_HANG, K_LIFECYCLE, K_NUM };
extern const char *const kind_names[K_NUM];

enum event { E_KILL, E_UNBIND, E_RMMOD, E_RESET, E_NUM };

enum op_group {
	G_PARAM, G_BO, G_MMAP, G_CLOSE, G_CTX, G_SUBMIT, G_HOSTILE, G_FAULT,
	G_RANDOM, G_SYNCOBJ, G_PRIME, G_FLINK, G_FDS, G_RAWIOCTL, G_MEMHOG,
	G_NUM
};

struct config {
	unsigned int duration, procs, threads;
	uint64_t seed;
	unsigned int kinds, events, groups;
	bool report, verbose, no_rebind;
	double interval;
	const char *module;
	unsigned int hung_task_secs, stall_ms;
	unsigned long slack_kb;
};
extern struct config cfg;

extern const char *role;
extern int64_t t0;
extern char bdf[64];
extern int sock_pair[2];

static inline bool on(enum kind k)
{
	return cfg.kinds & (1u << k);
}

/* ------------------------------------------------------------------ */
/* Small helpers (helpers.c)                                            */
/* ------------------------------------------------------------------ */

int64_t now_ns(void);
void sleep_ms(unsigned int ms);

static inline uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static inline void add(enum stress_stat s)
{
	__atomic_add_fetch(&S->stat[s], 1, __ATOMIC_RELAXED);
}

void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A line in the kernel log, so reports can be matched with events. */
void kmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int write_file(const char *path, const char *s);
/* First @len - 1 bytes of a file; -errno. */
int read_file(const char *path, char *buf, size_t len);
/* The device node @dev opened ("" if it cannot be told). */
void device_node(struct vmgpu_device *dev, char *buf, size_t len);

/* Counting every call on the device (helpers.c) */

struct proc;
extern __thread struct proc *cur_proc;

/* Count one call of type @c that failed with @err (0: success). */
int note(enum call c, int err);
int xioctl(enum call c, int fd, unsigned long req, void *arg);
int gem_close(int fd, uint32_t h);
int ctx_destroy(int fd, uint32_t id);
int syncobj_destroy(int fd, uint32_t h);
int get_param(int fd, uint32_t param, uint64_t *v);
int wait_signalled(struct vmgpu_device *dev, uint32_t h, int64_t timeout_ns);
int wait_sync(struct vmgpu_device *dev, uint32_t h, unsigned int timeout_ms);
int sync_status(struct vmgpu_device *dev, uint32_t h);
/* Assemble a built-in or given kernel; exits on failure (a bug here). */
void assemble(const char *src, void **image, size_t *bytes);

struct fill_args {
	uint64_t out;
	uint32_t n, mul, add, spin;
};

/* ------------------------------------------------------------------ */
/* ioctl workers (worker.c, ops.c, random.c, random_op.c)               */
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

/* A library handle of a raw context of the library's file (ctx_adopted). */
struct adopted {
	uint32_t id;
	struct vmgpu_context *ctx;
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
	/* ctx_adopted()'s handles, under lock, until lib is closed. */
	struct adopted *adopted;
	unsigned int nadopted, adopted_cap;
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

void proc_lost(struct proc *p);

static inline uint64_t R(struct thr *t)
{
	return rnd(&t->rng);
}

static inline uint32_t R32(struct thr *t, uint32_t n)
{
	return n ? (uint32_t)(R(t) % n) : 0;
}

static inline bool chance(struct thr *t, unsigned int pct)
{
	return R32(t, 100) < pct;
}

/* A pointer the kernel must refuse: unmapped, kernel, non-canonical, torn. */
uint64_t hostile_ptr(struct thr *t);
int pick_fd(struct thr *t);
/* Tables. Picking copies an entry (it may be stale by the time it is used). */
bool bo_pick(struct proc *p, uint64_t r, int fd, struct bo_ent *e, bool take);
void bo_add(struct thr *t, struct bo_ent e);
bool id_pick(struct proc *p, struct id_ent *tab, unsigned int n, uint64_t r,
	     int fd, struct id_ent *e, bool take);
void ctx_add(struct thr *t, int fd, uint32_t id);
void sync_add(struct thr *t, int fd, uint32_t h);
void map_add(struct thr *t, void *addr, size_t len);
struct vmgpu_context *ctx_adopted(struct proc *p, uint32_t id);
/* Read (and write) a few random bytes of a fresh mapping. */
void touch(struct thr *t, volatile uint8_t *m, size_t len, bool wr);
/* This thread's library objects; false if they cannot be made now. */
bool thr_ensure(struct thr *t);
void thr_release(struct thr *t);
int worker_main(int index, int incarnation);

/* The operations (ops.c; op_submit_random in random_op.c) */
void op_param(struct thr *t);
void op_wd_policy(struct thr *t);
void op_bo_create(struct thr *t);
void op_bo_info(struct thr *t);
void op_bo_place(struct thr *t);
void op_mmap(struct thr *t);
void op_munmap(struct thr *t);
void op_gem_close(struct thr *t);
void op_ctx_create(struct thr *t);
void op_ctx_destroy(struct thr *t);
void op_ctx_query(struct thr *t);
void op_submit_valid(struct thr *t);
void op_submit_raw(struct thr *t);
void op_submit_hostile(struct thr *t);
void op_submit_fault(struct thr *t);
void op_submit_random(struct thr *t);
void op_sync_create(struct thr *t);
void op_sync_destroy(struct thr *t);
void op_sync_wait(struct thr *t);
void op_sync_signal(struct thr *t);
void op_sync_transfer(struct thr *t);
void op_sync_query(struct thr *t);
void op_sync_export(struct thr *t);
void op_sync_import(struct thr *t);
void op_prime_export(struct thr *t);
void op_prime_import(struct thr *t);
void op_flink(struct thr *t);
void op_gem_open(struct thr *t);
void op_fd_reopen(struct thr *t);
void op_raw_ioctl(struct thr *t);
void op_memhog(struct thr *t);
/* An fd another process (or this one) passed; -1 if none is queued. */
int recv_fd(char *tag);

/* Random packets and kernels (random.c), sent by random_op.c */

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

extern const uint64_t rnd_bo_bytes[RB_NUM];

enum { TMD_ANY, TMD_TASK, TMD_QUEUE };

/* A packet being built: its words, and which of them are headers. */
struct rpk {
	uint32_t w[RND_MAX_WORDS];
	uint8_t hdr[RND_MAX_WORDS];
	uint32_t n, disp, need;
	bool wild_addr, wild_idx;
	bool tame;	/* new tame kernels and descriptors only */
	uint32_t tmd_task, tmd_queue;	/* a tame packet's descriptors */
};

uint32_t rnd_word(struct thr *t);
uint64_t rnd_insn(struct thr *t, uint32_t isa, uint32_t n, uint32_t args_bytes,
		  uint32_t pc, uint32_t ncode, uint32_t npairs, bool gentle);
void rnd_kernel(struct thr *t, unsigned int s, bool tame);
void rnd_tmd(struct thr *t, unsigned int i, bool tame, int kind);
void rnd_fixup(struct thr *t, struct rpk *k, unsigned int listed);
void rnd_build(struct thr *t, struct rpk *k);
void rnd_release(struct thr *t);
void *rewriter_main(void *arg);

/* ------------------------------------------------------------------ */
/* The checker (checker.c) and the hang injector (hang.c)               */
/* ------------------------------------------------------------------ */

/* A checked fill (out[i] = 3 i + tag, 256 words) from a fresh context. */
struct fillj {
	struct vmgpu_context *ctx;
	uint32_t gpu, tag;
};

int fill_submit(struct vmgpu_device *dev, struct vmgpu_bo *k,
		struct vmgpu_bo *o, uint32_t *m, uint32_t sync,
		struct fillj *j, char *what, size_t wl);
int fill_finish(struct vmgpu_device *dev, uint32_t *m, uint32_t sync,
		struct fillj *j, unsigned int timeout_ms, bool stoppable,
		char *what, size_t wl);
int checker_main(void);
int hang_main(int incarnation);

/* ------------------------------------------------------------------ */
/* The controller (controller.c) and the checks at the end (checks.c)   */
/* ------------------------------------------------------------------ */

struct kid {
	pid_t pid;
	enum kind kind;
	int index, incarnation;
	bool killing;	/* SIGKILLed by us */
	bool stuck;	/* did not die: never reaped */
};

extern struct kid kids[MAX_KIDS];
extern unsigned int nkids;
extern bool fatal;

pid_t spawn_one(struct kid *k);
/* What /proc says about a task that should not be there. */
void describe_task(const char *pid, char *buf, size_t len);
void describe_threads(pid_t pid);
void reap(bool respawn);
void kill_kid(struct kid *k);
int probe(const char *after);
bool find_bdf(void);
void *watchdog(void *arg);
void stall_check(void);
void drain_socket(void);
int unbind_bind(void);
void ev_kill(void);
void ev_unbind(void);
void ev_reset(void);
void ev_rmmod(void);

struct levels {
	long shmem, unevict;		/* kB */
	int jobs, files;
	long long mem_used;		/* -1: not supported */
};

extern struct levels base;

int jobs_alive(void);
long meminfo(const char *key);
void measure(struct levels *l);
void leak_check(const char *when);
void dstate_check(void);
unsigned int kmsg_scan(void);
void print_report(unsigned int secs);

#endif /* VMGPU_STRESS_H */
