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
 *
 * The files, one part each (stress.h declares what they share): this one
 * the options, the state every process shares and the controller's run;
 * helpers.c output, files and the counting of every call; worker.c an
 * ioctl worker's processes, threads and tables, ops.c its operations,
 * random.c the random packets and kernels and random_op.c the operation
 * that sends them; checker.c the checker; hang.c the hang injector;
 * controller.c the children and the lifecycle events; checks.c the leak,
 * D-state and kernel-log checks and the report.
 */
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "../tool_common.h"

#include "stress.h"

/* The counters every process adds to (an anonymous shared mapping). */
struct shared *S;

/* The configuration, from the options. */
const char *const kind_names[K_NUM] = {
	"ioctl", "checker", "hang", "lifecycle",
};

static const char *const event_names[E_NUM] = {
	"kill", "unbind", "rmmod", "reset",
};

static const char *const group_names[G_NUM] = {
	"param", "bo", "mmap", "close", "ctx", "submit", "hostile", "fault",
	"random", "syncobj", "prime", "flink", "fds", "rawioctl", "memhog",
};

struct config cfg = {
	.duration = 60, .procs = 3, .threads = 4,
	.events = (1u << E_NUM) - 1, .groups = (1u << G_NUM) - 1,
	.interval = 6.0, .module = "/vmgpu/modules/vmgpu.ko",
	.hung_task_secs = 30, .stall_ms = 10000, .slack_kb = 2048,
};

const char *role = "controller";
int64_t t0;
char bdf[64];
int sock_pair[2] = { -1, -1 };

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
	int c, fd;

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
	fd = vmgpu_device_fd(dev);
	get_param(fd, DRM_VMGPU_PARAM_NUM_GPUS, &v);
	S->num_gpus = (uint32_t)v;
	if (!get_param(fd, DRM_VMGPU_PARAM_MAX_USER_INSTR_BUDGET, &v)) {
		S->max_budget = v;
		S->budget_param = true;
	} else {
		S->max_budget = 0xffffffffu;	/* before uAPI 3: no limit */
	}
	S->isa_version = get_param(fd, DRM_VMGPU_PARAM_ISA_VERSION, &v) ?
			 1 : (uint32_t)v;
	S->max_dispatches = get_param(fd, DRM_VMGPU_PARAM_MAX_DISPATCHES,
				      &v) ? VMGPU_MAX_DISPATCHES_PER_PACKET :
					    (uint32_t)v;
	if (!get_param(fd, DRM_VMGPU_PARAM_VA_START, &v))
		S->va_start = v;
	if (!get_param(fd, DRM_VMGPU_PARAM_VA_END, &v))
		S->va_end = v;
	if (!get_param(fd, DRM_VMGPU_PARAM_MEM_LIMIT, &v) &&
	    (long long)(v >> 10) * 10 <= meminfo("MemTotal:") * 4)
		S->mem_limit = v;
	device_node(dev, S->node, sizeof(S->node));
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
