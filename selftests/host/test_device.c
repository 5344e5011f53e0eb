// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device as a whole (qemu-device/core/device.c): configuration checks,
 * registers, built-in kernels through the full path (ring entry -> CP ->
 * distributor -> interpreter -> fence) against C references, determinism
 * of the timeline, the trace (JSON and DMA records), the work distributor,
 * resets.
 */
#include <math.h>
#include <pthread.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "../ref_kernels.h"

#include "testhost.h"
#include "core/link.h"
#include "core/trace.h"

#define VA0	0x40000000ull
#define RW	(VMGPU_PTE_READ | VMGPU_PTE_WRITE)

static uint32_t rng_state = 777;

static float rnd(void)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return (float)(int32_t)((rng_state >> 8) % 65536u - 32768u) / 4096.0f;
}

static void put32(uint8_t *a, uint32_t off, uint32_t v)
{
	memcpy(a + off, &v, 4);
}

static void put64(uint8_t *a, uint32_t off, uint64_t v)
{
	memcpy(a + off, &v, 8);
}

TEST(config_defaults_valid_and_ranges_checked)
{
	struct vg_config c;
	char err[160];

	vg_config_defaults(&c);
	ASSERT_EQ(0, vg_config_check(&c, err, sizeof(err)));
	c.sm_threads = 1000;
	ASSERT_EQ(-1, vg_config_check(&c, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "sm-threads"));
	vg_config_defaults(&c);
	c.sm_shared_kb = 16;
	ASSERT_EQ(-1, vg_config_check(&c, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "sm-shared-kb"));
	vg_config_defaults(&c);
	c.link_bw_mbps = 0;
	ASSERT_EQ(-1, vg_config_check(&c, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "link-bw-mbps"));
	vg_config_defaults(&c);
	c.gpus = 9;
	ASSERT_EQ(-1, vg_config_check(&c, err, sizeof(err)));
	EXPECT_EQ(NULL, vg_device_new(&c, NULL));
}

TEST(global_registers)
{
	struct testhost *th = th_new(1 << 20);
	struct vg_device *dev = th_device_new(th, NULL, 3);

	EXPECT_EQ(VMGPU_HW_MAGIC, vg_device_mmio_read(dev, VMGPU_REG_MAGIC));
	EXPECT_EQ(3, vg_device_mmio_read(dev, VMGPU_REG_NUM_GPUS));
	EXPECT_TRUE(vg_device_mmio_read(dev, VMGPU_REG_CAPS) & VMGPU_CAP_TRACE);
	EXPECT_TRUE(vg_device_mmio_read(dev, VMGPU_REG_CAPS) &
		    VMGPU_CAP_TRACE_TMD);
	vg_device_mmio_write(dev, VMGPU_REG_SCRATCH, 0x1234);
	EXPECT_EQ(0x1234, vg_device_mmio_read(dev, VMGPU_REG_SCRATCH));
	/* Pages past the last GPU read as zero and ignore writes. */
	vg_device_mmio_write(dev, VMGPU_GPU_REGS(5) + VMGPU_GPU_INT_MASK, 1);
	EXPECT_EQ(0, vg_device_mmio_read(dev, VMGPU_GPU_REGS(5) +
					      VMGPU_GPU_INT_MASK));
	EXPECT_EQ(VMGPU_STATUS_IDLE, th_rd(th, 2, VMGPU_GPU_STATUS));
	vg_device_reset(dev);
	EXPECT_EQ(0, vg_device_mmio_read(dev, VMGPU_REG_SCRATCH));
	th_free(th);
}

/* ------------------------------------------------------------------ */
/* Full path                                                            */
/* ------------------------------------------------------------------ */

struct rig {
	struct testhost *th;
	struct vg_device *dev;
	struct th_as as;
};

static void rig_init(struct rig *r, unsigned int gpus,
		     const struct vg_config *cfg)
{
	unsigned int g;

	r->th = th_new(96 << 20);
	r->dev = th_device_new(r->th, cfg, gpus);
	vg_device_trace_keep(r->dev, true);
	th_as_init(r->th, &r->as, VA0);
	for (g = 0; g < (cfg ? cfg->gpus : gpus); g++) {
		th_gpu_setup(r->th, g, 8);
		th_set_root(r->th, g, 0, &r->as);
	}
}

static void rig_submit(struct rig *r, unsigned int gpu,
		       const struct th_cmdbuf *cb, uint64_t seqno)
{
	th_cb_submit(r->th, &r->as, gpu, cb, seqno);
}

/* saxpy through the whole device with @cfg (NULL: defaults); its time. */
static uint64_t saxpy_run(struct __test_metadata *_metadata,
			  const struct vg_config *cfg)
{
	const uint32_t n = 20000;
	uint64_t end_ns;
	struct rig r;
	struct th_cmdbuf cb;
	uint64_t xva, yva, args_va;
	uint32_t grid[3] = { (n + 255) / 256, 1, 1 }, block[3] = { 256, 1, 1 };
	float *x, *y, *ref, a = 1.25f;
	uint8_t args[24] = { 0 };
	uint32_t i;

	rig_init(&r, 1, cfg);
	xva = th_as_alloc(r.th, &r.as, n * 4,
			  RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(0)));
	yva = th_as_alloc(r.th, &r.as, n * 4,
			  RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(0)));
	x = th_va(r.th, &r.as, xva);
	y = th_va(r.th, &r.as, yva);
	ref = malloc(n * 4);
	for (i = 0; i < n; i++) {
		x[i] = rnd();
		y[i] = rnd();
		ref[i] = fmaf(a, x[i], y[i]);
	}
	put32(args, 0, n);
	memcpy(args + 4, &a, 4);
	put64(args, 8, xva);
	put64(args, 16, yva);
	args_va = th_upload(r.th, &r.as, args, sizeof(args));
	th_cb_init(&cb);
	th_cb_dispatch(&cb, th_builtin(r.th, &r.as, "saxpy"), args_va,
		       sizeof(args), grid, block, 0, 0);
	th_cb_end(&cb);
	rig_submit(&r, 0, &cb, 1);
	vg_device_run(r.dev);
	ASSERT_EQ(1, th_fence_mem(r.th, 0));
	ASSERT_EQ(VMGPU_INT_COMPLETE, th_rd(r.th, 0, VMGPU_GPU_INT_STATUS));
	EXPECT_EQ(0, memcmp(ref, y, n * 4));
	EXPECT_EQ(grid[0], th_rd(r.th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_BLOCKS)));
	/* x and y read, y written, all in GPU 0's own memory */
	EXPECT_EQ(3 * n * 4,
		  th_rd(r.th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_BYTES_LOCAL)));
	EXPECT_LT(0, th_rd(r.th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_WARP_INSTRS)));
	EXPECT_LT(0, th_rd(r.th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_TLB_MISSES)));
	end_ns = vg_device_now_ns(r.dev);
	free(ref);
	th_free(r.th);
	return end_ns;
}

TEST(saxpy_full_path)
{
	EXPECT_LT(0, saxpy_run(_metadata, NULL));
}

/*
 * The distributor's settings reach the device: round-robin issue, one
 * task-table slot and a longer state-sync latency give the same results,
 * later by at least the longer acknowledgement.
 */
TEST(distributor_settings_reach_the_device)
{
	struct vg_config c;
	uint64_t t0, t1, sync0;

	vg_config_defaults(&c);
	sync0 = c.wd_sync_ns;
	t0 = saxpy_run(_metadata, &c);
	c.wd_round_robin = 1;
	c.wd_table_slots = 1;
	c.wd_sync_ns = 5000;
	t1 = saxpy_run(_metadata, &c);
	EXPECT_LE(t0 + 5000 - sync0, t1)
		TH_LOG("%llu vs %llu ns",
					(unsigned long long)t0,
					(unsigned long long)t1);
}

/*
 * The isa-version setting, on a device of each version: VMGPU_REG_ISA_VERSION
 * reports it, an executable of version 1 runs on both, one of version 2
 * (it reads %itembase) runs on version 2 and is refused by a version 1
 * device with VMGPU_FAULT_BAD_EXECUTABLE.
 */
TEST(isa_version_setting)
{
	static const char *const src[2] = {
		".regs 4\n.args 8\nldarg r0, 0\nldarg r1, 4\n"
		"s2r r2, %tid.x\nst.32 [r0], r2\nexit\n",
		".regs 4\n.args 8\nldarg r0, 0\nldarg r1, 4\n"
		"s2r r2, %itemcount\nst.32 [r0], r2\nexit\n",
	};
	uint32_t grid[3] = { 1, 1, 1 }, block[3] = { 1, 1, 1 };
	uint32_t isa, v;

	for (isa = VMGPU_ISA_VERSION_MIN; isa <= VMGPU_ISA_VERSION; isa++) {
		for (v = 1; v <= 2; v++) {
			struct th_cmdbuf cb;
			struct vg_config c;
			uint64_t out, args_va;
			uint32_t *o;
			struct rig r;

			vg_config_defaults(&c);
			c.isa_version = isa;
			rig_init(&r, 1, &c);
			EXPECT_EQ(isa, vg_device_mmio_read(r.dev,
						VMGPU_REG_ISA_VERSION));
			out = th_as_alloc(r.th, &r.as, 4096,
				RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(0)));
			o = th_va(r.th, &r.as, out);
			*o = 0xdead;
			args_va = th_upload(r.th, &r.as, &out, sizeof(out));
			th_cb_init(&cb);
			th_cb_dispatch(&cb, th_kernel(r.th, &r.as, src[v - 1]),
				       args_va, 8, grid, block, 0, 0);
			th_cb_end(&cb);
			rig_submit(&r, 0, &cb, 1);
			vg_device_run(r.dev);
			EXPECT_EQ(1, th_fence_mem(r.th, 0));
			if (v <= isa) {
				EXPECT_EQ(VMGPU_INT_COMPLETE,
					  th_rd(r.th, 0, VMGPU_GPU_INT_STATUS));
				EXPECT_EQ(0, *o);
			} else {
				EXPECT_EQ(VMGPU_FAULT_BAD_EXECUTABLE,
					  th_rd(r.th, 0, VMGPU_GPU_ERR_CODE));
				EXPECT_EQ(VMGPU_INT_ILLEGAL,
					  th_rd(r.th, 0, VMGPU_GPU_INT_STATUS));
				EXPECT_EQ(0xdead, *o);
			}
			th_free(r.th);
		}
	}
}

TEST(matmul_full_path_two_gpus)
{
	const uint32_t m = 72, n = 56, kk = 40;
	struct rig r;
	struct th_cmdbuf cb;
	uint64_t ava, bva, cva, code, args_va[2];
	float *a, *b, *c, *ref;
	uint32_t i, g;

	rig_init(&r, 2, NULL);
	ava = th_as_alloc(r.th, &r.as, m * kk * 4, RW);
	bva = th_as_alloc(r.th, &r.as, kk * n * 4,
			  RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(1)));
	cva = th_as_alloc(r.th, &r.as, m * n * 4, RW);
	a = th_va(r.th, &r.as, ava);
	b = th_va(r.th, &r.as, bva);
	c = th_va(r.th, &r.as, cva);
	ref = malloc(m * n * 4);
	for (i = 0; i < m * kk; i++)
		a[i] = rnd();
	for (i = 0; i < kk * n; i++)
		b[i] = rnd();
	ref_matmul_tiled(a, b, ref, m, n, kk);
	code = th_builtin(r.th, &r.as, "matmul_tiled");
	/* The rows are split between the GPUs: two portions of one grid. */
	for (g = 0; g < 2; g++) {
		struct vmgpu_cmd_dispatch *d;
		uint8_t args[40] = { 0 };
		uint32_t grid[3] = { (n + 15) / 16, (m + 15) / 16 / 2 + g, 1 };
		uint32_t block[3] = { 16, 16, 1 };
		uint32_t at;

		put32(args, 0, m);
		put32(args, 4, n);
		put32(args, 8, kk);
		put64(args, 16, ava);
		put64(args, 24, bva);
		put64(args, 32, cva);
		args_va[g] = th_upload(r.th, &r.as, args, sizeof(args));
		th_cb_init(&cb);
		at = th_cb_dispatch(&cb, code, args_va[g], sizeof(args), grid,
				    block, 0, 0);
		d = (struct vmgpu_cmd_dispatch *)&cb.w[at];
		d->origin[1] = g ? (m + 15) / 16 / 2 : 0;
		d->grid_total[1] = (m + 15) / 16;
		th_cb_end(&cb);
		rig_submit(&r, g, &cb, 10 + g);
	}
	vg_device_run(r.dev);
	ASSERT_EQ(10, th_fence_mem(r.th, 0));
	ASSERT_EQ(11, th_fence_mem(r.th, 1));
	EXPECT_EQ(0, th_rd(r.th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_ERRORS)));
	EXPECT_EQ(0, memcmp(ref, c, m * n * 4));
	/* B lives on GPU 1: GPU 0 reads it over the link. */
	EXPECT_LT(0, th_rd(r.th, 0, VMGPU_GPU_CNT_LO(VMGPU_CNT_BYTES_LINK)));
	EXPECT_EQ(0, th_rd(r.th, 1, VMGPU_GPU_CNT_LO(VMGPU_CNT_BYTES_LINK)));
	EXPECT_LT(0, th_rd(r.th, 1, VMGPU_GPU_CNT_LO(VMGPU_CNT_BYTES_LOCAL)));
	free(ref);
	th_free(r.th);
}

/* ------------------------------------------------------------------ */
/* Determinism and trace                                                */
/* ------------------------------------------------------------------ */

/* A mixed two-GPU workload; returns the trace JSON. */
static char *workload(size_t *len, struct vg_device **keep_dev,
		      struct testhost **keep_th)
{
	const uint32_t n = 5000;
	struct rig r;
	struct th_cmdbuf cb;
	uint64_t xva, yva, args_va, code, ts, flag;
	uint32_t grid[3] = { (n + 127) / 128, 1, 1 }, block[3] = { 128, 1, 1 };
	uint8_t args[24] = { 0 };
	float a = 2.0f;
	uint32_t i;
	char *json;

	rig_init(&r, 2, NULL);
	xva = th_as_alloc(r.th, &r.as, n * 4, RW);
	yva = th_as_alloc(r.th, &r.as, n * 4,
			  RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(1)));
	ts = th_as_alloc(r.th, &r.as, 64, RW);
	flag = th_as_alloc(r.th, &r.as, 4, RW);
	for (i = 0; i < n; i++)
		((float *)th_va(r.th, &r.as, xva))[i] = (float)i;
	put32(args, 0, n);
	memcpy(args + 4, &a, 4);
	put64(args, 8, xva);
	put64(args, 16, yva);
	args_va = th_upload(r.th, &r.as, args, sizeof(args));
	code = th_builtin(r.th, &r.as, "saxpy");
	th_cb_init(&cb);
	th_cb_timestamp(&cb, ts);
	th_cb_dispatch(&cb, code, args_va, 24, grid, block, 0, 0);
	th_cb_dispatch(&cb, code, args_va, 24, grid, block, 0, 0);
	th_cb_sync(&cb, 2, 0);
	th_cb_dispatch(&cb, code, args_va, 24, grid, block, 0, 0);
	th_cb_barrier(&cb);
	th_cb_copy(&cb, xva, xva + 8192, 4000, 1, 0, 0);
	th_cb_write(&cb, flag, 1);
	th_cb_timestamp(&cb, ts + 8);
	th_cb_end(&cb);
	rig_submit(&r, 0, &cb, 1);
	th_cb_init(&cb);
	th_cb_wait(&cb, flag, VMGPU_WAIT_EQ, 1, ~0u);
	th_cb_dispatch(&cb, code, args_va, 24, grid, block, 0, 0);
	th_cb_end(&cb);
	rig_submit(&r, 1, &cb, 2);
	vg_device_run(r.dev);
	json = vg_device_trace_json(r.dev, len);
	if (keep_dev) {
		*keep_dev = r.dev;
		*keep_th = r.th;
	} else {
		th_free(r.th);
	}
	return json;
}

/*
 * The recorded timeline of the workload: a change that moves code around
 * must not move a single event. A change to the timing model re-records
 * it on purpose (VMGPU_UPDATE_GOLDEN=1) and says so in its commit.
 */
#define GOLDEN_TRACE VMGPU_GOLDEN_DIR "/determinism-trace.json"

TEST(same_workload_gives_identical_trace)
{
	size_t l1, l2, lg = 0;
	char *j1 = workload(&l1, NULL, NULL);
	char *j2 = workload(&l2, NULL, NULL);
	char *golden;

	ASSERT_NE(NULL, j1);
	ASSERT_NE(NULL, j2);
	EXPECT_LT(1000, l1);
	ASSERT_EQ(l1, l2);
	EXPECT_EQ(0, memcmp(j1, j2, l1));
	if (getenv("VMGPU_UPDATE_GOLDEN")) {
		FILE *f = fopen(GOLDEN_TRACE, "wb");

		ASSERT_NE(NULL, f);
		ASSERT_EQ(l1, fwrite(j1, 1, l1, f));
		ASSERT_EQ(0, fclose(f));
	}
	golden = th_read_file(GOLDEN_TRACE, &lg);
	ASSERT_NE(NULL, golden) TH_LOG("%s missing", GOLDEN_TRACE);
	EXPECT_EQ(lg, l1) TH_LOG("timeline differs from %s", GOLDEN_TRACE);
	if (lg == l1)
		EXPECT_EQ(0, memcmp(golden, j1, l1))
			TH_LOG("timeline differs from %s", GOLDEN_TRACE);
	free(golden);
	EXPECT_NE(NULL, strstr(j1, "\"traceEvents\""));
	EXPECT_NE(NULL, strstr(j1, "\"name\":\"SM 0 / lane 0\""));
	EXPECT_NE(NULL, strstr(j1, "\"name\":\"GPU 1\""));
	EXPECT_NE(NULL, strstr(j1, "\"name\":\"WAIT_VALUE\""));
	free(j1);
	free(j2);
}

TEST(trace_records_by_dma_match_host_records)
{
	struct testhost *th;
	struct vg_device *dev;
	const struct vmgpu_trace_record *recs;
	size_t n, i, len;
	uint64_t buf;
	uint32_t written, small;
	char *json, *json2 = NULL;
	size_t len2 = 0;
	uint8_t *raw;
	FILE *f;

	/* First run: learn the host-side records. */
	json = workload(&len, &dev, &th);
	recs = vg_device_trace_records(dev, &n);
	ASSERT_LT(10, n);
	/* The JSON converter works from raw little-endian bytes too. */
	raw = malloc(n * VMGPU_TRACE_RECORD_SIZE);
	{
		for (i = 0; i < n; i++)
			vg_trace_record_encode(&recs[i],
					       raw + i * VMGPU_TRACE_RECORD_SIZE);
		f = open_memstream(&json2, &len2);
		ASSERT_EQ(0, vg_trace_json_from_buffer(
				     raw, n * VMGPU_TRACE_RECORD_SIZE, f));
		fclose(f);
		ASSERT_EQ(len, len2);
		EXPECT_EQ(0, memcmp(json, json2, len));
		free(raw);
		free(json2);
	}

	/* Now the DMA sink on the same device: room for 5 records. */
	small = 5 * VMGPU_TRACE_RECORD_SIZE + 10;
	buf = th_alloc(th, small);
	vg_device_mmio_write(dev, VMGPU_REG_TRACE_ADDR_LO, (uint32_t)buf);
	vg_device_mmio_write(dev, VMGPU_REG_TRACE_ADDR_HI, buf >> 32);
	vg_device_mmio_write(dev, VMGPU_REG_TRACE_SIZE, small);
	vg_device_mmio_write(dev, VMGPU_REG_TRACE_CTRL, VMGPU_TRACE_ENABLE);
	{
		struct th_cmdbuf cb;
		struct th_as as2;
		size_t before = n, n2;
		struct vmgpu_trace_record got;

		th_as_init(th, &as2, VA0 + 0x10000000);
		th_set_root(th, 0, 1, &as2);
		th_cb_init(&cb);
		for (i = 0; i < 6; i++)
			th_cb_nop(&cb);
		th_cb_end(&cb);
		th_push(th, 0, th_cb_upload(th, &as2, &cb), cb.n * 4, 99,
			VMGPU_RING_F_IRQ, 1, 0);
		th_doorbell(th, 0);
		vg_device_run(dev);
		EXPECT_EQ(99, th_fence_mem(th, 0));
		written = vg_device_mmio_read(dev, VMGPU_REG_TRACE_WRITTEN);
		EXPECT_EQ(5 * VMGPU_TRACE_RECORD_SIZE, written);
		recs = vg_device_trace_records(dev, &n2);
		/* 6 NOPs + END + packet + irq = 9 records, 4 dropped */
		EXPECT_EQ(before + 9, n2);
		EXPECT_EQ(4, vg_device_mmio_read(dev,
						 VMGPU_REG_TRACE_DROPPED));
		for (i = 0; i < 5; i++) {
			vg_trace_record_decode((uint8_t *)th_ptr(th, buf) +
					       i * VMGPU_TRACE_RECORD_SIZE,
					       &got);
			EXPECT_EQ(0, memcmp(&got, &recs[before + i],
					    sizeof(got)));
			EXPECT_EQ(99, got.seqno);
			EXPECT_EQ(1, got.as_slot);
		}
		/* Re-enabling restarts the buffer. */
		vg_device_mmio_write(dev, VMGPU_REG_TRACE_CTRL, 0);
		vg_device_mmio_write(dev, VMGPU_REG_TRACE_CTRL,
				     VMGPU_TRACE_ENABLE);
		EXPECT_EQ(0, vg_device_mmio_read(dev,
						 VMGPU_REG_TRACE_WRITTEN));
	}
	th_free(th);
	free(json);
}

TEST(gpu_reset_drops_work_and_time_keeps_running)
{
	struct rig r;
	struct th_cmdbuf cb;
	uint64_t flag;

	rig_init(&r, 1, NULL);
	flag = th_as_alloc(r.th, &r.as, 4, RW);
	th_cb_init(&cb);
	th_cb_wait(&cb, flag, VMGPU_WAIT_EQ, 1, ~0u);
	th_cb_end(&cb);
	rig_submit(&r, 0, &cb, 5);
	vg_device_run(r.dev);
	EXPECT_EQ(0, th_rd(r.th, 0, VMGPU_GPU_STATUS) & VMGPU_STATUS_IDLE);
	th_wr(r.th, 0, VMGPU_GPU_RESET, 1);
	EXPECT_EQ(VMGPU_STATUS_IDLE, th_rd(r.th, 0, VMGPU_GPU_STATUS));
	EXPECT_EQ(0, th_rd(r.th, 0, VMGPU_GPU_RING_ENTRIES));
	EXPECT_EQ(0, th_rd(r.th, 0, VMGPU_GPU_CONTROL));
	/* Set up again and run a packet. */
	th_gpu_setup(r.th, 0, 8);
	th_set_root(r.th, 0, 0, &r.as);
	th_cb_init(&cb);
	th_cb_end(&cb);
	rig_submit(&r, 0, &cb, 6);
	vg_device_run(r.dev);
	EXPECT_EQ(6, th_fence_mem(r.th, 0));
	th_free(r.th);
}

struct run_arg {
	struct vg_device *dev;
	int done;
};

static void *run_thread(void *p)
{
	struct run_arg *a = p;

	vg_device_run(a->dev);
	__atomic_store_n(&a->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * A block spinning forever with the largest budget would hold the device
 * for minutes; a RESET must stop it within a slice instead. Without the
 * abort path this test never finishes and the harness's timeout fails it.
 */
TEST(reset_stops_a_runaway_block)
{
	struct vg_config cfg;
	struct th_cmdbuf cb;
	struct run_arg arg;
	pthread_t thread;
	struct rig r;
	uint32_t grid[3] = { 1, 1, 1 }, block[3] = { 32, 1, 1 };

	vg_config_defaults(&cfg);
	cfg.instr_budget = UINT32_MAX;
	rig_init(&r, 1, &cfg);
	th_cb_init(&cb);
	th_cb_dispatch(&cb, th_kernel(r.th, &r.as, "loop:\n\tbra loop\n"),
		       0, 0, grid, block, 0, 0);
	th_cb_end(&cb);
	rig_submit(&r, 0, &cb, 1);
	arg.dev = r.dev;
	arg.done = 0;
	ASSERT_EQ(0, pthread_create(&thread, NULL, run_thread, &arg));
	/* Give the device thread time to enter the block (not required). */
	usleep(100 * 1000);
	th_wr(r.th, 0, VMGPU_GPU_RESET, 1);
	pthread_join(thread, NULL);
	EXPECT_EQ(1, arg.done);
	EXPECT_EQ(VMGPU_STATUS_IDLE, th_rd(r.th, 0, VMGPU_GPU_STATUS));
	EXPECT_EQ(0, th_fence_mem(r.th, 0));
	th_free(r.th);
}

/* ------------------------------------------------------------------ */
/* Device time across GPUs (device-model.rst)                           */
/* ------------------------------------------------------------------ */

/* A saxpy over @n elements in local memory of @gpu: arguments' VA. */
static uint64_t xgpu_saxpy_args(struct rig *r, unsigned int gpu, uint32_t n)
{
	uint64_t xva, yva;
	uint8_t args[24] = { 0 };
	float a = 0.5f;

	xva = th_as_alloc(r->th, &r->as, n * 4,
			  RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(gpu)));
	yva = th_as_alloc(r->th, &r->as, n * 4,
			  RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(gpu)));
	put32(args, 0, n);
	memcpy(args + 4, &a, 4);
	put64(args, 8, xva);
	put64(args, 16, yva);
	return th_upload(r->th, &r->as, args, sizeof(args));
}

/* TIMESTAMP @ts, a saxpy, BARRIER, TIMESTAMP @ts + 8, END. */
static void xgpu_timed_packet(struct th_cmdbuf *cb, uint64_t code,
			      uint64_t args, uint32_t n, uint64_t ts)
{
	uint32_t grid[3] = { (n + 255) / 256, 1, 1 }, block[3] = { 256, 1, 1 };

	th_cb_init(cb);
	th_cb_timestamp(cb, ts);
	th_cb_dispatch(cb, code, args, 24, grid, block, 0, 0);
	th_cb_barrier(cb);
	th_cb_timestamp(cb, ts + 8);
	th_cb_end(cb);
}

static uint64_t ts_at(struct rig *r, uint64_t va)
{
	uint64_t v;

	memcpy(&v, th_va(r->th, &r->as, va), 8);
	return v;
}

/*
 * Issue 12's case: GPU 0 has run and the host retired it (read its fence);
 * two halves of a dispatch are then released onto GPU 0 and GPU 1 back to
 * back. Both start at the time the host had seen, and overlap.
 */
TEST(gpus_released_together_overlap)
{
	const uint32_t n = 8192;
	struct th_cmdbuf cb;
	uint64_t code, a0, a1, ts, seen_ns;
	struct rig r;

	rig_init(&r, 2, NULL);
	code = th_builtin(r.th, &r.as, "saxpy");
	a0 = xgpu_saxpy_args(&r, 0, n);
	a1 = xgpu_saxpy_args(&r, 1, n);
	ts = th_as_alloc(r.th, &r.as, 64, RW);
	/* Earlier work on GPU 0 only; the host reads its fence. */
	xgpu_timed_packet(&cb, code, a0, n, ts + 32);
	rig_submit(&r, 0, &cb, 1);
	vg_device_run(r.dev);
	ASSERT_EQ(1, th_rd(r.th, 0, VMGPU_GPU_FENCE_LO));
	seen_ns = vg_device_gpu_now_ns(r.dev, 0);
	EXPECT_LT(3000, seen_ns);
	EXPECT_GT(1000, vg_device_gpu_now_ns(r.dev, 1));
	/* The two halves, released together. */
	xgpu_timed_packet(&cb, code, a0, n, ts);
	rig_submit(&r, 0, &cb, 2);
	xgpu_timed_packet(&cb, code, a1, n, ts + 16);
	rig_submit(&r, 1, &cb, 3);
	vg_device_run(r.dev);
	ASSERT_EQ(2, th_fence_mem(r.th, 0));
	ASSERT_EQ(3, th_fence_mem(r.th, 1));
	/* Same start (same work, same clocks from H on), same end. */
	EXPECT_LE(seen_ns, ts_at(&r, ts));
	EXPECT_EQ(ts_at(&r, ts), ts_at(&r, ts + 16));
	EXPECT_EQ(ts_at(&r, ts + 8), ts_at(&r, ts + 24));
	/* Overlap: each starts before the other ends. */
	EXPECT_LT(ts_at(&r, ts + 16), ts_at(&r, ts + 8));
	EXPECT_LT(ts_at(&r, ts), ts_at(&r, ts + 24));
	th_free(r.th);
}

/*
 * GPU 0 writes a flag at its time; GPU 1, far behind in device time, is
 * submitted only afterwards and finds the flag already set: it still
 * continues no earlier than the write.
 */
TEST(wait_value_starts_after_writer)
{
	const uint32_t n = 8192;
	struct th_cmdbuf cb;
	uint64_t code, a0, ts, flag, write_ns;
	struct rig r;
	uint32_t grid[3] = { n / 256, 1, 1 }, block[3] = { 256, 1, 1 };

	rig_init(&r, 2, NULL);
	code = th_builtin(r.th, &r.as, "saxpy");
	a0 = xgpu_saxpy_args(&r, 0, n);
	ts = th_as_alloc(r.th, &r.as, 64, RW);
	flag = th_as_alloc(r.th, &r.as, 64, RW);
	th_cb_init(&cb);
	th_cb_dispatch(&cb, code, a0, 24, grid, block, 0, 0);
	th_cb_barrier(&cb);
	th_cb_timestamp(&cb, ts);
	th_cb_write(&cb, flag, 1); /* one cp-cmd-ns after the timestamp */
	th_cb_end(&cb);
	rig_submit(&r, 0, &cb, 1);
	vg_device_run(r.dev);
	ASSERT_EQ(1, th_fence_mem(r.th, 0));
	write_ns = ts_at(&r, ts) + 100;
	EXPECT_LT(3000, write_ns);
	/* No register read: only the write's own time orders GPU 1. */
	th_cb_init(&cb);
	th_cb_wait(&cb, flag, VMGPU_WAIT_EQ, 1, ~0u);
	th_cb_timestamp(&cb, ts + 8);
	th_cb_end(&cb);
	rig_submit(&r, 1, &cb, 1);
	vg_device_run(r.dev);
	ASSERT_EQ(1, th_fence_mem(r.th, 1));
	EXPECT_LE(write_ns, ts_at(&r, ts + 8));
	/* The wait's span in the trace starts when GPU 1 reached it. */
	EXPECT_GT(write_ns, vg_device_gpu_now_ns(r.dev, 1) - 2000);
	th_free(r.th);
}

/*
 * The host reads GPU 0's fence register, then submits to GPU 1: GPU 1
 * starts no earlier than that fence's time. Without the read, GPU 1
 * starts on its own clock.
 */
static uint64_t fence_then_submit(struct __test_metadata *_metadata,
				  bool read_fence, uint64_t *fence_ns,
				  char **json, size_t *len)
{
	const uint32_t n = 8192;
	struct th_cmdbuf cb;
	uint64_t code, a0, ts, start;
	struct rig r;

	rig_init(&r, 2, NULL);
	code = th_builtin(r.th, &r.as, "saxpy");
	a0 = xgpu_saxpy_args(&r, 0, n);
	ts = th_as_alloc(r.th, &r.as, 64, RW);
	xgpu_timed_packet(&cb, code, a0, n, ts);
	rig_submit(&r, 0, &cb, 1);
	vg_device_run(r.dev);
	/* The interrupt is seen, acknowledged, the fence read (or not). */
	EXPECT_EQ(VMGPU_INT_COMPLETE, th_rd(r.th, 0, VMGPU_GPU_INT_STATUS) &
					      VMGPU_INT_COMPLETE);
	th_wr(r.th, 0, VMGPU_GPU_INT_ACK, VMGPU_INT_COMPLETE);
	*fence_ns = vg_device_gpu_now_ns(r.dev, 0);
	if (read_fence)
		EXPECT_EQ(1, th_rd(r.th, 0, VMGPU_GPU_FENCE_LO));
	th_cb_init(&cb);
	th_cb_timestamp(&cb, ts + 16);
	th_cb_end(&cb);
	rig_submit(&r, 1, &cb, 1);
	vg_device_run(r.dev);
	EXPECT_EQ(1, th_fence_mem(r.th, 1));
	start = ts_at(&r, ts + 16);
	if (json)
		*json = vg_device_trace_json(r.dev, len);
	th_free(r.th);
	return start;
}

TEST(host_fence_read_orders_next_submit)
{
	uint64_t fence_ns, start;

	start = fence_then_submit(_metadata, true, &fence_ns, NULL, NULL);
	EXPECT_LT(3000, fence_ns);
	EXPECT_LE(fence_ns, start);
	/* The interrupt alone already told the host when it was raised. */
	start = fence_then_submit(_metadata, false, &fence_ns, NULL, NULL);
	EXPECT_LE(fence_ns, start);
}

/* An idle GPU the host has read nothing about starts on its own clock. */
TEST(unobserved_gpu_keeps_its_own_clock)
{
	const uint32_t n = 8192;
	struct th_cmdbuf cb;
	uint64_t code, a0, ts;
	struct rig r;

	rig_init(&r, 2, NULL);
	code = th_builtin(r.th, &r.as, "saxpy");
	a0 = xgpu_saxpy_args(&r, 0, n);
	ts = th_as_alloc(r.th, &r.as, 64, RW);
	xgpu_timed_packet(&cb, code, a0, n, ts);
	rig_submit(&r, 0, &cb, 1);
	vg_device_run(r.dev);
	th_cb_init(&cb);
	th_cb_timestamp(&cb, ts + 16);
	th_cb_end(&cb);
	rig_submit(&r, 1, &cb, 1);
	vg_device_run(r.dev);
	EXPECT_GT(3000, ts_at(&r, ts + 16));
	EXPECT_LT(3000, ts_at(&r, ts + 8));
	th_free(r.th);
}

TEST(same_host_actions_give_identical_trace)
{
	uint64_t f1, f2, s1, s2;
	size_t l1 = 0, l2 = 0;
	char *j1 = NULL, *j2 = NULL;

	s1 = fence_then_submit(_metadata, true, &f1, &j1, &l1);
	s2 = fence_then_submit(_metadata, true, &f2, &j2, &l2);
	ASSERT_NE(NULL, j1);
	ASSERT_NE(NULL, j2);
	EXPECT_EQ(f1, f2);
	EXPECT_EQ(s1, s2);
	ASSERT_EQ(l1, l2);
	EXPECT_EQ(0, memcmp(j1, j2, l1));
	free(j1);
	free(j2);
}

/* ------------------------------------------------------------------ */
/* Memory system: links, topology, contention, counters (R10)          */
/* ------------------------------------------------------------------ */

#define LINK_COPY_BYTES (256u << 10)

/* A rig of @gpus GPUs with links of @topology. */
static void link_rig(struct rig *r, unsigned int gpus, unsigned int topology)
{
	struct vg_config cfg;

	vg_config_defaults(&cfg);
	cfg.gpus = gpus;
	cfg.link_topology = topology;
	rig_init(r, gpus, &cfg);
}

/*
 * Queue on @gpu: TIMESTAMP ts, COPY of LINK_COPY_BYTES from GPU @from's
 * memory to @gpu's own, TIMESTAMP ts + 8 (not yet rung: see th_doorbell).
 */
static void link_copy(struct rig *r, unsigned int gpu, unsigned int from,
		      uint64_t ts, uint64_t seqno)
{
	struct th_cmdbuf cb;
	uint64_t src, dst;

	src = th_as_alloc(r->th, &r->as, LINK_COPY_BYTES,
			  RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(from)));
	dst = th_as_alloc(r->th, &r->as, LINK_COPY_BYTES,
			  RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(gpu)));
	th_cb_init(&cb);
	th_cb_timestamp(&cb, ts);
	th_cb_copy(&cb, src, dst, LINK_COPY_BYTES, 1, 0, 0);
	th_cb_timestamp(&cb, ts + 8);
	th_cb_end(&cb);
	th_push(r->th, gpu, th_cb_upload(r->th, &r->as, &cb), cb.n * 4, seqno,
		VMGPU_RING_F_IRQ, 0, 0);
}

static uint64_t span_at(struct rig *r, uint64_t ts)
{
	return ts_at(r, ts + 8) - ts_at(r, ts);
}

static uint64_t cnt(struct rig *r, unsigned int gpu, unsigned int n)
{
	return th_rd64(r->th, gpu, VMGPU_GPU_CNT_LO(n));
}

/*
 * Two GPUs reading each other's memory at the same time share their link
 * (one transfer at a time): together they take longer than one alone.
 */
TEST(link_shared_by_concurrent_transfers)
{
	uint64_t ts, alone, both0, both1, one_ns;
	struct rig r;

	one_ns = (uint64_t)LINK_COPY_BYTES * 1000 / 300000; /* 300 GB/s */
	link_rig(&r, 2, 0);
	ts = th_as_alloc(r.th, &r.as, 64, RW);
	link_copy(&r, 0, 1, ts, 1);
	th_doorbell(r.th, 0);
	vg_device_run(r.dev);
	alone = span_at(&r, ts);
	EXPECT_LE(one_ns, alone);
	th_free(r.th);

	link_rig(&r, 2, 0);
	ts = th_as_alloc(r.th, &r.as, 64, RW);
	link_copy(&r, 0, 1, ts, 1);
	link_copy(&r, 1, 0, ts + 16, 1);
	th_doorbell(r.th, 0);
	th_doorbell(r.th, 1);
	vg_device_run(r.dev);
	both0 = span_at(&r, ts);
	both1 = span_at(&r, ts + 16);
	/* The first booked goes at full speed, the other waits for it. */
	EXPECT_EQ(alone, both0 < both1 ? both0 : both1);
	EXPECT_LE(alone + one_ns, both0 > both1 ? both0 : both1);
	/* The link carried both; each end sees it. */
	EXPECT_EQ(2 * LINK_COPY_BYTES, cnt(&r, 0, VMGPU_CNT_LINK_BYTES1));
	EXPECT_EQ(2 * LINK_COPY_BYTES, cnt(&r, 1, VMGPU_CNT_LINK_BYTES0));
	EXPECT_EQ(0, cnt(&r, 0, VMGPU_CNT_LINK_BYTES0));
	EXPECT_EQ(LINK_COPY_BYTES, cnt(&r, 0, VMGPU_CNT_BYTES_COPY));
	EXPECT_EQ(LINK_COPY_BYTES, cnt(&r, 0, VMGPU_CNT_BYTES_LINK));
	EXPECT_EQ(LINK_COPY_BYTES, cnt(&r, 0, VMGPU_CNT_BYTES_LOCAL));
	th_free(r.th);
}

/*
 * A ring of 4: GPU 2 reads GPU 0's memory over two links (0-1, 1-2),
 * one link latency more than all-to-all's direct link, and its transfer
 * competes with GPU 1's on link 0-1.
 */
TEST(ring_routes_over_hops)
{
	uint64_t ts, direct, ring, both1, both2;
	const struct vmgpu_trace_record *recs;
	struct rig r;
	size_t n, i, links = 0;

	link_rig(&r, 4, 0);
	ts = th_as_alloc(r.th, &r.as, 64, RW);
	link_copy(&r, 2, 0, ts, 1);
	th_doorbell(r.th, 2);
	vg_device_run(r.dev);
	direct = span_at(&r, ts);
	EXPECT_EQ(LINK_COPY_BYTES, cnt(&r, 0, VMGPU_CNT_LINK_BYTES2));
	EXPECT_EQ(0, cnt(&r, 0, VMGPU_CNT_LINK_BYTES1));
	th_free(r.th);

	link_rig(&r, 4, 1);
	ts = th_as_alloc(r.th, &r.as, 64, RW);
	link_copy(&r, 2, 0, ts, 1);
	th_doorbell(r.th, 2);
	vg_device_run(r.dev);
	ring = span_at(&r, ts);
	EXPECT_EQ(direct + 1000, ring); /* link-lat-ns per link crossed */
	EXPECT_EQ(0, cnt(&r, 0, VMGPU_CNT_LINK_BYTES2));
	EXPECT_EQ(LINK_COPY_BYTES, cnt(&r, 0, VMGPU_CNT_LINK_BYTES1));
	EXPECT_EQ(LINK_COPY_BYTES, cnt(&r, 1, VMGPU_CNT_LINK_BYTES2));
	EXPECT_EQ(LINK_COPY_BYTES, cnt(&r, 2, VMGPU_CNT_LINK_BYTES1));
	EXPECT_EQ(0, cnt(&r, 3, VMGPU_CNT_LINK_BYTES0));
	recs = vg_device_trace_records(r.dev, &n);
	for (i = 0; i < n; i++) {
		if (recs[i].kind != VMGPU_TRACE_LINK)
			continue;
		links++;
		EXPECT_EQ(2, recs[i].gpu);
		EXPECT_EQ(0, VMGPU_TRACE_LINK_PEER(recs[i].aux));
		EXPECT_EQ(2, VMGPU_TRACE_LINK_HOPS(recs[i].aux));
		EXPECT_EQ(LINK_COPY_BYTES, recs[i].value);
	}
	EXPECT_EQ(1, links);
	th_free(r.th);

	/* GPU 1 (one hop) and GPU 2 (two) both read GPU 0: link 0-1 shared. */
	link_rig(&r, 4, 1);
	ts = th_as_alloc(r.th, &r.as, 64, RW);
	link_copy(&r, 1, 0, ts, 1);
	link_copy(&r, 2, 0, ts + 16, 1);
	th_doorbell(r.th, 1);
	th_doorbell(r.th, 2);
	vg_device_run(r.dev);
	both1 = span_at(&r, ts);
	both2 = span_at(&r, ts + 16);
	EXPECT_LT(direct, both1 > both2 ? both1 : both2);
	EXPECT_LT(ring, both2);
	EXPECT_EQ(2 * LINK_COPY_BYTES, cnt(&r, 0, VMGPU_CNT_LINK_BYTES1));
	EXPECT_EQ(LINK_COPY_BYTES, cnt(&r, 1, VMGPU_CNT_LINK_BYTES2));
	th_free(r.th);
}

/* A kernel's reads of another GPU's memory: priced over the link, counted. */
TEST(remote_reads_counted_by_kind)
{
	const uint32_t n = 4096;
	uint32_t grid[3] = { n / 256, 1, 1 }, block[3] = { 256, 1, 1 };
	uint64_t xva, yva, args_va;
	uint8_t args[24] = { 0 };
	struct th_cmdbuf cb;
	float a = 2.0f;
	struct rig r;

	link_rig(&r, 2, 0);
	xva = th_as_alloc(r.th, &r.as, n * 4,
			  RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(1)));
	yva = th_as_alloc(r.th, &r.as, n * 4,
			  RW | VMGPU_PTE_LOC(VMGPU_LOC_GPU(0)));
	put32(args, 0, n);
	memcpy(args + 4, &a, 4);
	put64(args, 8, xva);
	put64(args, 16, yva);
	args_va = th_upload(r.th, &r.as, args, sizeof(args));
	th_cb_init(&cb);
	th_cb_dispatch(&cb, th_builtin(r.th, &r.as, "saxpy"), args_va, 24,
		       grid, block, 0, 0);
	th_cb_end(&cb);
	rig_submit(&r, 0, &cb, 1);
	vg_device_run(r.dev);
	ASSERT_EQ(1, th_fence_mem(r.th, 0));
	/* x over the link from GPU 1; y read and written locally. */
	EXPECT_EQ(n * 4, cnt(&r, 0, VMGPU_CNT_BYTES_REMOTE_READ));
	EXPECT_EQ(n * 4, cnt(&r, 0, VMGPU_CNT_BYTES_LINK));
	EXPECT_EQ(2 * n * 4, cnt(&r, 0, VMGPU_CNT_BYTES_LOCAL));
	EXPECT_EQ(n * 4, cnt(&r, 1, VMGPU_CNT_LINK_BYTES0));
	EXPECT_EQ(0, cnt(&r, 0, VMGPU_CNT_BYTES_COPY));
	th_free(r.th);
}

/*
 * A link is booked by device time: a transfer takes the earliest
 * interval from its ready time that every link of its route has free,
 * whatever was booked before it for later times (a GPU ahead in device
 * time does not make the link look busy to one behind).
 */
TEST(link_booked_by_device_time)
{
	struct vg_links l;
	vg_time_t start;
	uint32_t hops;

	vg_links_init(&l, 4, VG_LINK_RING);
	/* GPU 2, ahead, reads GPU 0 over 0-1 and 1-2 during [1000, 2000). */
	EXPECT_EQ(2000, vg_links_transfer(&l, 0, 2, 1000, 1000, 64, true,
					  &start, &hops));
	EXPECT_EQ(1000, start);
	EXPECT_EQ(2, hops);
	/* GPU 1, behind, fits before it on link 0-1. */
	EXPECT_EQ(500, vg_links_transfer(&l, 0, 1, 0, 500, 64, true, &start,
					 &hops));
	EXPECT_EQ(0, start);
	/* [500, 1000) is free but 600 do not fit: after 2000. */
	EXPECT_EQ(2600, vg_links_transfer(&l, 1, 0, 400, 600, 64, true,
					  &start, &hops));
	EXPECT_EQ(2000, start);
	/* Link 1-2 alone is free before 1000; 2-3 was never used. */
	EXPECT_EQ(800, vg_links_transfer(&l, 1, 2, 300, 500, 64, true, &start,
					 &hops));
	EXPECT_EQ(300, start);
	/* Route 0-1-2 at 500: 0-1 busy until 500, 1-2 until 800, then 1000. */
	EXPECT_EQ(2900, vg_links_transfer(&l, 0, 2, 500, 300, 64, true,
					  &start, &hops));
	EXPECT_EQ(2600, start);
	/* Without booking, a command-buffer fetch starts when ready. */
	EXPECT_EQ(1100, vg_links_transfer(&l, 0, 1, 1000, 100, 64, false,
					  &start, &hops));
	EXPECT_EQ(5 * 64, vg_links_bytes(&l, 1, 0));
	vg_links_destroy(&l);
}

/*
 * A full calendar forgets its oldest interval and counts everything
 * before its end as busy: later, never earlier.
 */
TEST(link_calendar_full_is_conservative)
{
	struct vg_links l;
	vg_time_t start;
	uint32_t hops, i;

	vg_links_init(&l, 2, VG_LINK_ALL_TO_ALL);
	for (i = 0; i <= VG_LINK_INTERVALS; i++)
		vg_links_transfer(&l, 0, 1, 1000ull * i, 10, 1, true, &start,
				  &hops);
	/* The first interval, [0, 10), was dropped: 5 starts at 10. */
	vg_links_transfer(&l, 0, 1, 5, 10, 1, true, &start, &hops);
	EXPECT_EQ(10, start);
	/* A gap after the floor is still used. */
	vg_links_transfer(&l, 0, 1, 1500, 10, 1, true, &start, &hops);
	EXPECT_EQ(1500, start);
	vg_links_destroy(&l);
}

/*
 * Write times are exact per 8-byte word for small writes (dependency
 * entries, WRITE_VALUE, TIMESTAMP), per 64-byte line for large ones, and
 * never earlier than the write once the table overflows.
 */
TEST(write_times_exact_per_entry)
{
	struct vg_wtimes w;
	uint64_t i;

	ASSERT_EQ(0, vg_wtimes_init(&w));
	/* Two entries of one line, written at different times. */
	vg_wtimes_record(&w, VA0, 8, 100);
	vg_wtimes_record(&w, VA0 + 8, 8, 500);
	EXPECT_EQ(100, vg_wtimes_lookup(&w, VA0, 8));
	EXPECT_EQ(500, vg_wtimes_lookup(&w, VA0 + 8, 8));
	EXPECT_EQ(0, vg_wtimes_lookup(&w, VA0 + 16, 8));
	/* A 4-byte flag in the first entry's word. */
	vg_wtimes_record(&w, VA0 + 4, 4, 300);
	EXPECT_EQ(300, vg_wtimes_lookup(&w, VA0, 4));
	/* A block's stores: the whole 64-byte line. */
	vg_wtimes_record(&w, VA0 + 4096, 64, 700);
	EXPECT_EQ(700, vg_wtimes_lookup(&w, VA0 + 4096 + 40, 8));
	EXPECT_EQ(0, vg_wtimes_lookup(&w, VA0 + 4096 + 64, 8));
	/* Lines that hash alike keep their own times (no shared bucket). */
	for (i = 0; i < 10000; i++)
		vg_wtimes_record(&w, VA0 + (1ull << 20) + 64 * i, 8, 1000 + i);
	EXPECT_EQ(100 + 200, vg_wtimes_lookup(&w, VA0, 8));
	EXPECT_EQ(1000 + 1234, vg_wtimes_lookup(&w, VA0 + (1ull << 20) +
						 64 * 1234, 8));
	/* Past the table's size: folded, later but never earlier. */
	for (i = 0; i < VG_WTIMES_MAX_KEYS + 1000; i++)
		vg_wtimes_record(&w, VA0 + (1ull << 30) + 8 * i, 8, 5000);
	EXPECT_LE(500, vg_wtimes_lookup(&w, VA0 + 8, 8));
	EXPECT_LE(1000 + 1234, vg_wtimes_lookup(&w, VA0 + (1ull << 20) +
						 64 * 1234, 8));
	vg_wtimes_clear(&w);
	EXPECT_EQ(0, vg_wtimes_lookup(&w, VA0 + 8, 8));
	vg_wtimes_destroy(&w);
}

TEST_HARNESS_MAIN
