/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the regression tests of issue 8 (vmgpu_regress.c,
 * vmgpu_regress_device.c) share: raw uAPI calls that return 0 or -errno,
 * processes (privileges dropped, shared memory, bounded waits), packets
 * of the built-in fill kernel, the fixture "regress" (device facts, child
 * processes killed and the driver bound again at teardown), and main()
 * with -l (list the tests) and -t NAME (run those whose name contains
 * NAME; repeatable). Header only: each VM test is one source file.
 */
#ifndef VMGPU_REGRESS_H
#define VMGPU_REGRESS_H

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xf86drm.h>

#include "kselftest_harness.h"
#include "vmgpu_cmd.h"
#include "vmgpu_test_util.h"

#define MIB		(1024ull * 1024)
#define MS_NS		1000000ll
#define NOBODY		65534

/* ------------------------------------------------------------------ */
/* Raw uAPI helpers: 0 or -errno                                         */
/* ------------------------------------------------------------------ */

static inline int xioctl(int fd, unsigned long req, void *arg)
{
	return drmIoctl(fd, req, arg) ? -errno : 0;
}

/* Open the vmgpu node whose name starts with @prefix ("renderD", "card"). */
static inline int node_open(const char *prefix)
{
	struct dirent *de;
	char path[300];
	int fd = -1;
	DIR *d;

	d = opendir("/dev/dri");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		drmVersionPtr v;

		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "/dev/dri/%s", de->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (v && !strcmp(v->name, DRM_VMGPU_DRIVER_NAME)) {
			drmFreeVersion(v);
			break;
		}
		if (v)
			drmFreeVersion(v);
		close(fd);
		fd = -1;
	}
	closedir(d);
	return fd >= 0 ? fd : -ENOENT;
}

static inline int get_param(int fd, uint32_t param, uint64_t *value)
{
	struct drm_vmgpu_get_param gp = { .param = param };
	int ret = xioctl(fd, DRM_IOCTL_VMGPU_GET_PARAM, &gp);

	if (!ret)
		*value = gp.value;
	return ret;
}

static inline int bo_create(int fd, uint64_t size, uint32_t *handle,
			    uint64_t *va)
{
	struct drm_vmgpu_bo_create bc = { .size = size };
	int ret = xioctl(fd, DRM_IOCTL_VMGPU_BO_CREATE, &bc);

	if (!ret) {
		*handle = bc.handle;
		if (va)
			*va = bc.gpu_va;
	}
	return ret;
}

static inline int gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close gc = { .handle = handle };

	return xioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc);
}

static inline int ctx_create(int fd, uint32_t *id)
{
	struct drm_vmgpu_ctx_create cc = {
		.priority = DRM_VMGPU_PRIORITY_NORMAL,
	};
	int ret = xioctl(fd, DRM_IOCTL_VMGPU_CTX_CREATE, &cc);

	if (!ret)
		*id = cc.ctx_id;
	return ret;
}

static inline int ctx_destroy(int fd, uint32_t id)
{
	struct drm_vmgpu_ctx_destroy cd = { .ctx_id = id };

	return xioctl(fd, DRM_IOCTL_VMGPU_CTX_DESTROY, &cd);
}

static inline int ctx_query(int fd, uint32_t id, struct drm_vmgpu_ctx_query *q)
{
	memset(q, 0, sizeof(*q));
	q->ctx_id = id;
	return xioctl(fd, DRM_IOCTL_VMGPU_CTX_QUERY, q);
}

/*
 * A packet of raw words on @gpu for context @ctx, using buffer @bo (0:
 * none), its completion fence into binary syncobj @syncobj (0: none).
 */
static inline int submit_raw(int fd, uint32_t gpu, uint32_t ctx,
			     const uint32_t *w, uint32_t words, uint32_t bo,
			     uint32_t syncobj)
{
	struct drm_vmgpu_submit_bo sb = { .handle = bo };
	struct drm_vmgpu_sync out = { .handle = syncobj };
	struct drm_vmgpu_submit s = {
		.cmdbuf = (uintptr_t)w,
		.cmdbuf_bytes = 4 * words,
		.gpu = gpu,
		.ctx_id = ctx,
		.bos = bo ? (uintptr_t)&sb : 0,
		.bo_count = bo ? 1 : 0,
		.out_syncs = syncobj ? (uintptr_t)&out : 0,
		.out_sync_count = syncobj ? 1 : 0,
	};

	return xioctl(fd, DRM_IOCTL_VMGPU_SUBMIT, &s);
}

static inline int submit_nop(int fd, uint32_t gpu, uint32_t ctx,
			     uint32_t syncobj)
{
	static const uint32_t w[] = {
		VMGPU_CMD_HDR(VMGPU_CMD_NOP, 1),
		VMGPU_CMD_HDR(VMGPU_CMD_END, 1),
	};

	return submit_raw(fd, gpu, ctx, w, 2, 0, syncobj);
}

/* WRITE_VALUE @value to @va (inside buffer @bo), then END. */
static inline int submit_write(int fd, uint32_t gpu, uint32_t ctx, uint32_t bo,
			       uint64_t va, uint32_t value)
{
	uint32_t w[] = {
		VMGPU_CMD_HDR(VMGPU_CMD_WRITE_VALUE, 4), value, (uint32_t)va,
		(uint32_t)(va >> 32), VMGPU_CMD_HDR(VMGPU_CMD_END, 1),
	};

	return submit_raw(fd, gpu, ctx, w, 5, bo, 0);
}

/* ------------------------------------------------------------------ */
/* Processes                                                            */
/* ------------------------------------------------------------------ */

/* For the rest of this process: user and group nobody, no capability. */
static inline int drop_privileges(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return -errno;
	return geteuid() == NOBODY && getegid() == NOBODY ? 0 : -EPERM;
}

static inline void *shared_alloc(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* waitpid() for at most @ms; the pid if reaped, 0 if not, -1 on error. */
static inline pid_t wait_child_ms(pid_t pid, int *status, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * MS_NS;
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r || now_ns() > end)
			return r;
		usleep(10000);
	}
}

/* The PCI vendor or device id (@what) of function @bdf, or -1. */
static inline long pci_id(const char *bdf, const char *what)
{
	char path[300], id[16] = "";
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, what);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(id, sizeof(id), f))
		v = strtol(id, NULL, 0);
	fclose(f);
	return v;
}

/* ------------------------------------------------------------------ */
/* Packets of the built-in fill kernel, through the library             */
/* ------------------------------------------------------------------ */

/*
 * out[i] = i * mul + add for i < n at @off of @out, after @spin loop
 * iterations per thread, under instruction budget @budget (0: default),
 * on @gpu; its fence into @syncobj.
 */
static inline int fill_submit(struct vmgpu_context *ctx,
			      struct vmgpu_cmdbuf *cb, struct vmgpu_bo *k,
			      struct vmgpu_bo *out, uint64_t off, uint32_t n,
			      uint32_t mul, uint32_t add, uint32_t spin,
			      uint32_t budget, uint32_t gpu, uint32_t syncobj)
{
	struct fill_args a = {
		.out = vmgpu_bo_gpu_va(out) + off, .n = n, .mul = mul,
		.add = add, .spin = spin,
	};
	struct vmgpu_sync o = { .handle = syncobj };
	struct vmgpu_submit_info info = {
		.gpu = gpu, .out = &o, .out_count = 1,
	};
	struct vmgpu_dispatch_desc d;
	uint32_t block = n < 64 ? 32 : 64;
	int ret;

	vmgpu_cmdbuf_reset(cb);
	if (budget &&
	    vmgpu_cmdbuf_set_state(cb, VMGPU_STATE_INSTR_BUDGET, budget))
		return -EINVAL;
	if (vmgpu_cmdbuf_use(cb, out, 0))
		return -EINVAL;
	fill_dispatch(&d, k, &a, sizeof(a), (n + block - 1) / block, block);
	ret = vmgpu_cmdbuf_dispatch(cb, &d);
	if (ret < 0)
		return ret;
	ret = vmgpu_submit(ctx, cb, &info);
	return ret < 0 ? ret : 0;
}

/* Index of the first wrong word, or -1. */
static inline int fill_wrong(const uint32_t *p, uint32_t n, uint32_t mul,
			     uint32_t add)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (p[i] != i * mul + add)
			return i;
	return -1;
}

/* The largest budget a user without CAP_SYS_NICE may set. */
static inline uint32_t max_user_budget(struct vmgpu_device *dev,
				       uint32_t def)
{
	uint64_t v;

	if (vmgpu_get_param(dev, DRM_VMGPU_PARAM_MAX_USER_INSTR_BUDGET, &v))
		return def;	/* a driver without the limit */
	return v > 0xffffffffu ? 0xffffffffu : (uint32_t)v;
}

/* ------------------------------------------------------------------ */
/* The fixture: device facts, and child processes to clean up           */
/* ------------------------------------------------------------------ */

#define MAX_KIDS	16

FIXTURE(regress) {
	uint32_t gpus;
	uint64_t timeout_ms;
	pid_t kids[MAX_KIDS];
	int nkids;
};

FIXTURE_SETUP(regress)
{
	int fd = node_open("renderD");
	uint64_t v;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, get_param(fd, DRM_VMGPU_PARAM_NUM_GPUS, &v));
	self->gpus = v;
	ASSERT_EQ(0, get_param(fd, DRM_VMGPU_PARAM_JOB_TIMEOUT_MS,
			       &self->timeout_ms));
	close(fd);
}

FIXTURE_TEARDOWN(regress)
{
	char bdf[256];
	int i, st;

	for (i = 0; i < self->nkids; i++) {
		if (self->kids[i] <= 0)
			continue;
		kill(self->kids[i], SIGKILL);
		wait_child_ms(self->kids[i], &st, 2000);
	}
	/* Tests after this one need the driver bound. */
	if (bound_device(bdf, sizeof(bdf))) {
		struct dirent *de;
		DIR *d = opendir("/sys/bus/pci/devices");

		while (d && (de = readdir(d)))
			if (pci_id(de->d_name, "vendor") == VMGPU_PCI_VENDOR_ID &&
			    pci_id(de->d_name, "device") == VMGPU_PCI_DEVICE_ID)
				driver_op("bind", de->d_name);
		if (d)
			closedir(d);
		wait_bound();
	}
}

static inline pid_t spawn(FIXTURE_DATA(regress) *self)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid > 0 && self->nkids < MAX_KIDS)
		self->kids[self->nkids++] = pid;
	return pid;
}

/* The child @pid is gone: teardown leaves it alone. */
static inline void reaped(FIXTURE_DATA(regress) *self, pid_t pid)
{
	int i;

	for (i = 0; i < self->nkids; i++)
		if (self->kids[i] == pid)
			self->kids[i] = 0;
}

/* ------------------------------------------------------------------ */
/* main: the harness, with -l and -t NAME                               */
/* ------------------------------------------------------------------ */

static void __attribute__((constructor)) __constructor_order_last(void)
{
	if (!__constructor_order)
		__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD;
}

/* main() of each binary: the tests selected by -t NAME, or -l. */
static inline int regress_main(int argc, char **argv)
{
	struct __fixture_metadata *f;
	struct __test_metadata *t, **link;
	int opt, i, nsel = 0;
	char **sel = calloc(argc, sizeof(*sel));

	while ((opt = getopt(argc, argv, "lt:")) != -1) {
		switch (opt) {
		case 'l':
			for (f = __fixture_list; f; f = f->next)
				for (t = f->tests; t; t = t->next)
					printf("%s.%s\n", f->name, t->name);
			return 0;
		case 't':
			sel[nsel++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-l] [-t NAME]...\n", argv[0]);
			return 2;
		}
	}
	if (nsel)
		for (f = __fixture_list; f; f = f->next) {
			link = &f->tests;
			for (t = f->tests; t; t = t->next) {
				for (i = 0; i < nsel; i++)
					if (strstr(t->name, sel[i]))
						break;
				if (i < nsel) {
					*link = t;
					link = &t->next;
				}
			}
			*link = NULL;
		}
	return test_harness_run(argc, argv);
}

#endif
