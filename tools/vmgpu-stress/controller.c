// SPDX-License-Identifier: MIT
/*
 * vmgpu-stress: the controller's children and events: forking, reaping
 * and restarting the workers, the checker and the hang injector; sysfs
 * writes and probes in child processes, as they may hang; the stall
 * watchdog; the lifecycle events (kill, unbind/rebind, rmmod/insmod, PCI
 * reset) and their windows.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "stress.h"

/* ------------------------------------------------------------------ */
/* The controller                                                       */
/* ------------------------------------------------------------------ */

struct kid kids[MAX_KIDS];
unsigned int nkids;
bool fatal;

pid_t spawn_one(struct kid *k)
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
void describe_task(const char *pid, char *buf, size_t len)
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

void describe_threads(pid_t pid)
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

void reap(bool respawn)
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

void kill_kid(struct kid *k)
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

int probe(const char *after)
{
	char what[96];
	int ret;

	snprintf(what, sizeof(what), "probe after %s", after);
	add(ST_PROBES);
	ret = run_child(what, do_probe, NULL, 90);
	return ret;
}

bool find_bdf(void)
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
void *watchdog(void *arg)
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

void stall_check(void)
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

void drain_socket(void)
{
	char tag;
	int fd;

	while ((fd = recv_fd(&tag)) >= 0)
		close(fd);
}

int unbind_bind(void)
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

void ev_kill(void)
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

void ev_unbind(void)
{
	open_window("unbind/rebind");
	if (!unbind_bind() && probe("unbind/rebind"))
		recover("unbind/rebind");
	add(ST_LC_UNBIND);
	close_window();
}

void ev_reset(void)
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

void ev_rmmod(void)
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
