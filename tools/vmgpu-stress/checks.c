// SPDX-License-Identifier: MIT
/*
 * vmgpu-stress: what the run is judged by when it ends: the levels
 * measured before and after it (driver counters, open files, MEM_USED,
 * Shmem, Unevictable) for the leak checks, tasks left in D state, kernel
 * reports in the log, and the counters' report (--report).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>

#include "stress.h"

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

int jobs_alive(void)
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

long meminfo(const char *key)
{
	char buf[8192], *s;

	if (read_file("/proc/meminfo", buf, sizeof(buf)) < 0)
		return -1;
	s = strstr(buf, key);
	return s ? atol(s + strlen(key)) : -1;
}

void measure(struct levels *l)
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

struct levels base;

/*
 * After every process exited: the driver's counters at their starting
 * values exactly, Shmem and Unevictable within cfg.slack_kb. They get
 * 30 s to settle (jobs are freed by the scheduler shortly after their
 * fences signal; pages return through per-CPU batches).
 */
void leak_check(const char *when)
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
void dstate_check(void)
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

unsigned int kmsg_scan(void)
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

void print_report(unsigned int secs)
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
