// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM selftest: a vCPU's MMIO access never waits for a kernel to run.
 *
 * A packet with one long block (a spinning thread) runs on GPU 0 for a
 * few hundred milliseconds of host time. Meanwhile this process reads
 * GPU 0's STATUS register through the device's BAR0, mapped from
 * /sys/bus/pci/devices/<bdf>/resource0 (the VM boots with iomem=relaxed
 * so that a bound driver's BAR can be mapped). The reads must see the
 * GPU busy while the packet runs, and many of them must return while
 * the kernel still has a good part of its run ahead: before the device
 * had a lock per GPU's register file, a read waited for the running
 * block, i.e. for the whole kernel. (Single reads may still take tens of
 * milliseconds when the host is loaded, so the longest one is printed,
 * not asserted.)
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "vmgpu_test_util.h"

/* Map BAR0 of the first vmgpu PCI function; NULL (and a message) if none. */
static volatile uint32_t *map_bar0(char *bdf, size_t bdf_len, size_t len)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	volatile uint32_t *bar = NULL;
	struct dirent *e;
	char path[300];

	if (!d)
		return NULL;
	while (!bar && (e = readdir(d))) {
		unsigned long vendor, device;
		char buf[32];
		FILE *f;
		int fd;
		void *p;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor",
			 e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		vendor = fgets(buf, sizeof(buf), f) ? strtoul(buf, NULL, 0) : 0;
		fclose(f);
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device",
			 e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		device = fgets(buf, sizeof(buf), f) ? strtoul(buf, NULL, 0) : 0;
		fclose(f);
		if (vendor != VMGPU_PCI_VENDOR_ID || device != VMGPU_PCI_DEVICE_ID)
			continue;
		snprintf(path, sizeof(path),
			 "/sys/bus/pci/devices/%s/resource%d", e->d_name,
			 VMGPU_BAR_MMIO);
		fd = open(path, O_RDWR | O_SYNC);
		if (fd < 0) {
			fprintf(stderr, "# open %s: %s\n", path, strerror(errno));
			break;
		}
		p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			fprintf(stderr, "# mmap %s: %s\n", path, strerror(errno));
		else
			bar = p;
		close(fd);
		snprintf(bdf, bdf_len, "%.*s", (int)bdf_len - 1, e->d_name);
	}
	closedir(d);
	return bar;
}

static uint32_t gpu_reg(volatile uint32_t *bar, unsigned int gpu,
			uint32_t off)
{
	return bar[(VMGPU_GPU_REGS(gpu) + off) / 4];
}

struct run {
	struct vmgpu_device *dev;
	struct vmgpu_context *ctx;
	struct vmgpu_cmdbuf *cb;
	struct vmgpu_bo *k, *buf;
	uint32_t syncobj;
	/* filled by the waiter thread */
	int64_t done_ns;
	int status;
};

/* One packet: add_one spinning @spin iterations, the largest budget. */
static int run_submit(struct run *r, uint32_t spin)
{
	struct vmgpu_sync out = { .handle = r->syncobj };
	struct vmgpu_submit_info info = { .gpu = 0, .out = &out,
					  .out_count = 1 };
	struct add_one_args a = {
		.src = vmgpu_bo_gpu_va(r->buf),
		.dst = vmgpu_bo_gpu_va(r->buf) + 4,
		.spin = spin,
	};
	struct vmgpu_dispatch_desc d;

	vmgpu_cmdbuf_reset(r->cb);
	fill_dispatch(&d, r->k, &a, sizeof(a), 1, 1);
	if (vmgpu_cmdbuf_use(r->cb, r->buf, 0) ||
	    vmgpu_cmdbuf_set_state(r->cb, VMGPU_STATE_INSTR_BUDGET,
				   0xffffffffu) ||
	    vmgpu_cmdbuf_dispatch(r->cb, &d) < 0)
		return -1;
	if (vmgpu_syncobj_create(r->dev, &r->syncobj))
		return -1;
	out.handle = r->syncobj;
	return vmgpu_submit(r->ctx, r->cb, &info) < 0 ? -1 : 0;
}

static void *waiter(void *p)
{
	struct run *r = p;

	vmgpu_syncobj_wait(r->dev, r->syncobj, 0, 60 * SEC_NS);
	r->status = vmgpu_syncobj_status(r->dev, r->syncobj);
	__atomic_store_n(&r->done_ns, now_ns(), __ATOMIC_RELEASE);
	return NULL;
}

/* Wall time of one packet spinning @spin iterations, or -1. */
static int64_t time_packet(struct run *r, uint32_t spin)
{
	int64_t t0 = now_ns();

	if (run_submit(r, spin) ||
	    vmgpu_syncobj_wait(r->dev, r->syncobj, 0, 60 * SEC_NS) ||
	    vmgpu_syncobj_status(r->dev, r->syncobj) != 1)
		return -1;
	vmgpu_syncobj_destroy(r->dev, r->syncobj);
	return now_ns() - t0;
}

TEST(status_reads_do_not_wait_for_a_running_kernel)
{
	volatile uint32_t *bar;
	struct run r = { 0 };
	pthread_t thread;
	uint64_t reads = 0, busy = 0, early = 0, i, cap = 1 << 20;
	int64_t t, lat, max_lat = 0, start, dur, first_busy = 0, last_busy = 0;
	int64_t end = 0, again;
	int64_t *busy_at = calloc(cap, sizeof(*busy_at));
	uint32_t spin = 1u << 18, *mem, st;
	int64_t took = 0;
	char bdf[32] = "";
	void *map;

	ASSERT_NE(NULL, busy_at);
	bar = map_bar0(bdf, sizeof(bdf), VMGPU_BAR0_SIZE);
	ASSERT_NE(NULL, bar);
	ASSERT_EQ(VMGPU_HW_MAGIC, bar[VMGPU_REG_MAGIC / 4]);
	ASSERT_EQ(0, vmgpu_device_open(0, &r.dev, NULL, 0));
	ASSERT_EQ(0, vmgpu_context_create(r.dev, VMGPU_PRIORITY_NORMAL, &r.ctx));
	ASSERT_EQ(0, vmgpu_cmdbuf_create(r.dev, &r.cb));
	r.k = make_kernel(r.dev, add_one_src);
	ASSERT_NE(NULL, r.k);
	r.buf = make_bo(r.dev, 4096, &map);
	ASSERT_NE(NULL, r.buf);
	mem = map;

	/*
	 * Size the kernel: double the spin until one packet takes at least
	 * 150 ms (it runs longer while read, still well under the driver's 2 s
	 * job timeout). The shorter of two runs: a busy host only lengthens
	 * one.
	 */
	for (;;) {
		took = time_packet(&r, spin);
		again = time_packet(&r, spin);
		ASSERT_LT(0, took);
		ASSERT_LT(0, again);
		took = again < took ? again : took;
		if (took >= 150 * 1000000ll || spin >= (1u << 30))
			break;
		spin *= 2;
	}
	TH_LOG("device %s: spin %u takes %.1f ms", bdf, spin, took / 1e6);

	/* The measured run: read STATUS until the waiter sees the fence. */
	mem[0] = 41;
	r.done_ns = 0;
	start = now_ns();
	ASSERT_EQ(0, run_submit(&r, spin));
	ASSERT_EQ(0, pthread_create(&thread, NULL, waiter, &r));
	while (!__atomic_load_n(&r.done_ns, __ATOMIC_ACQUIRE)) {
		t = now_ns();
		st = gpu_reg(bar, 0, VMGPU_GPU_STATUS);
		lat = now_ns() - t;
		max_lat = lat > max_lat ? lat : max_lat;
		reads++;
		/* The kernel's end as the reader sees it, not the waiter. */
		if ((st & VMGPU_STATUS_IDLE) && first_busy && !end)
			end = t + lat - start;
		if (!(st & VMGPU_STATUS_IDLE)) {
			busy++;
			if (!first_busy)
				first_busy = t - start;
			last_busy = t + lat - start;
			if (busy <= cap)
				busy_at[busy - 1] = last_busy;
		}
		ASSERT_LT(now_ns() - start, 60 * SEC_NS);
	}
	pthread_join(thread, NULL);
	/*
	 * The kernel ran from its first busy read to its first idle read
	 * (the waiter may wake much later on a busy host).
	 */
	dur = (end ? end : r.done_ns - start) - first_busy;
	EXPECT_EQ(1, r.status);
	EXPECT_EQ(42, mem[1]);
	TH_LOG("kernel %.1f ms: %llu STATUS reads, %llu busy (%.1f..%.1f ms), "
	       "max read latency %.3f ms", dur / 1e6,
	       (unsigned long long)reads, (unsigned long long)busy,
	       first_busy / 1e6, last_busy / 1e6, max_lat / 1e6);
	/* Busy seen, and seen again and again while the kernel ran... */
	EXPECT_LT(10, busy);
	EXPECT_LT(dur / 2, last_busy - first_busy);
	dur += first_busy;		/* from the submit again */
	/*
	 * ...because reads did not wait for the kernel: many returned with a
	 * quarter of its run still ahead.
	 */
	for (i = 0; i < busy && i < cap; i++)
		early += busy_at[i] < dur - dur / 4;
	TH_LOG("%llu busy reads returned with a quarter of the kernel to go",
	       (unsigned long long)early);
	EXPECT_LT(10, early);
	free(busy_at);
	/* Idle again once done. */
	EXPECT_EQ(VMGPU_STATUS_IDLE,
		  gpu_reg(bar, 0, VMGPU_GPU_STATUS) & VMGPU_STATUS_IDLE);

	vmgpu_syncobj_destroy(r.dev, r.syncobj);
	vmgpu_bo_destroy(r.buf);
	vmgpu_bo_destroy(r.k);
	vmgpu_cmdbuf_destroy(r.cb);
	vmgpu_context_destroy(r.ctx);
	vmgpu_device_close(r.dev);
	munmap((void *)bar, VMGPU_BAR0_SIZE);
}

TEST_HARNESS_MAIN
