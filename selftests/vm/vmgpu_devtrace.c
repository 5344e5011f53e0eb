// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM selftests of the device trace fetched from the VM: records written by
 * the device into the driver's buffer, read through debugfs, describe the
 * packet, its dispatches and every block in device time, and vmgpu-trace
 * turns them into trace-event JSON.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "vmgpu_test_util.h"

#define GRID	6
#define BLOCK	64

static int debugfs_dir(char *dir, size_t len)
{
	DIR *d = opendir("/sys/kernel/debug/dri");
	struct dirent *e;
	int ret = -1;

	if (!d)
		return -1;
	while ((e = readdir(d)) && ret) {
		char path[300], name[32] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%s/name",
			 e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f) && !strncmp(name, "vmgpu ", 6)) {
			snprintf(dir, len, "/sys/kernel/debug/dri/%s", e->d_name);
			ret = 0;
		}
		fclose(f);
	}
	closedir(d);
	return ret;
}

static size_t read_file(const char *path, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return 0;
	while (got < len && (n = read(fd, (char *)buf + got, len - got)) > 0)
		got += n;
	close(fd);
	return got;
}

FIXTURE(trace) {
	struct vmgpu_device *dev;
	struct vmgpu_context *ctx;
	char dir[300];
	char ctrl[400];
	char data[400];
};

FIXTURE_SETUP(trace)
{
	ASSERT_EQ(0, vmgpu_device_open(0, &self->dev, NULL, 0));
	ASSERT_EQ(0, vmgpu_context_create(self->dev, DRM_VMGPU_PRIORITY_NORMAL,
					  &self->ctx));
	ASSERT_EQ(0, debugfs_dir(self->dir, sizeof(self->dir)));
	snprintf(self->ctrl, sizeof(self->ctrl), "%s/trace_enable", self->dir);
	snprintf(self->data, sizeof(self->data), "%s/trace", self->dir);
}

FIXTURE_TEARDOWN(trace)
{
	write_file(self->ctrl, "0");
	vmgpu_context_destroy(self->ctx);
	vmgpu_device_close(self->dev);
}

/* Two independent fill dispatches in one packet on GPU 0; waits for it. */
static int run_packet(FIXTURE_DATA(trace) *self)
{
	struct vmgpu_submit_info info = { .gpu = 0 };
	struct vmgpu_dispatch_desc d;
	struct fill_args args;
	struct vmgpu_cmdbuf *cb;
	struct vmgpu_bo *k, *out;
	struct vmgpu_sync sync;
	uint32_t *map, i;
	int ret = -1;

	k = make_kernel(self->dev, vmgpu_builtin_kernel_source("fill"));
	out = make_bo(self->dev, 2 * GRID * BLOCK * 4, (void **)&map);
	if (!k || !out || vmgpu_cmdbuf_create(self->dev, &cb))
		return -1;
	if (vmgpu_syncobj_create(self->dev, &sync.handle))
		return -1;
	sync.point = 0;
	vmgpu_cmdbuf_use(cb, out, 0);
	for (i = 0; i < 2; i++) {
		args = (struct fill_args) {
			.out = vmgpu_bo_gpu_va(out) + i * GRID * BLOCK * 4,
			.n = GRID * BLOCK, .mul = 1, .add = i,
		};
		fill_dispatch(&d, k, &args, sizeof(args), GRID, BLOCK);
		if (vmgpu_cmdbuf_dispatch(cb, &d) != (int)i)
			goto out;
	}
	info.out = &sync;
	info.out_count = 1;
	if (vmgpu_submit(self->ctx, cb, &info) != 1)
		goto out;
	if (vmgpu_syncobj_wait(self->dev, sync.handle, 0, 10 * SEC_NS))
		goto out;
	ret = map[GRID * BLOCK + 5] == 6 ? 0 : -1;
out:
	vmgpu_syncobj_destroy(self->dev, sync.handle);
	vmgpu_cmdbuf_destroy(cb);
	vmgpu_bo_destroy(out);
	vmgpu_bo_destroy(k);
	return ret;
}

TEST_F(trace, records_describe_packet_dispatches_and_blocks)
{
	static struct vmgpu_trace_record recs[4096];
	unsigned int packets = 0, dispatches = 0, blocks = 0;
	struct vmgpu_trace_record *pkt = NULL;
	size_t bytes, n, i;

	ASSERT_EQ(0, write_file(self->ctrl, "256"));
	ASSERT_EQ(0, run_packet(self));
	ASSERT_EQ(0, write_file(self->ctrl, "0"));

	bytes = read_file(self->data, recs, sizeof(recs));
	ASSERT_EQ(0, bytes % VMGPU_TRACE_RECORD_SIZE);
	n = bytes / VMGPU_TRACE_RECORD_SIZE;
	ASSERT_LT(0, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, recs[i].gpu);
		EXPECT_LE(recs[i].start_ns, recs[i].end_ns);
		switch (recs[i].kind) {
		case VMGPU_TRACE_PACKET:
			packets++;
			pkt = &recs[i];
			break;
		case VMGPU_TRACE_DISPATCH:
			dispatches++;
			break;
		case VMGPU_TRACE_BLOCK:
			blocks++;
			EXPECT_LT(recs[i].dispatch, 2);
			EXPECT_LT(recs[i].block, GRID);
			EXPECT_NE(VMGPU_TRACE_SM_NONE, recs[i].sm);
			EXPECT_LT(0, recs[i].value);	/* warp instructions */
			break;
		default:
			break;
		}
	}
	EXPECT_EQ(1, packets);
	EXPECT_EQ(2, dispatches);
	EXPECT_EQ(2 * GRID, blocks);
	ASSERT_NE(NULL, pkt);
	/* Every block ran inside its packet, in device time. */
	for (i = 0; i < n; i++) {
		if (recs[i].kind != VMGPU_TRACE_BLOCK)
			continue;
		EXPECT_LE(pkt->start_ns, recs[i].start_ns);
		EXPECT_GE(pkt->end_ns, recs[i].end_ns);
		EXPECT_EQ(pkt->seqno, recs[i].seqno);
	}
}

TEST_F(trace, stopped_trace_records_nothing_more)
{
	char state[256] = "";

	ASSERT_EQ(0, write_file(self->ctrl, "64"));
	ASSERT_EQ(0, write_file(self->ctrl, "0"));
	ASSERT_EQ(0, run_packet(self));
	read_file(self->ctrl, state, sizeof(state) - 1);
	EXPECT_NE(NULL, strstr(state, "enabled 0"));
	EXPECT_NE(NULL, strstr(state, "written 0\n"));
}

TEST_F(trace, oversized_buffer_is_refused)
{
	EXPECT_EQ(-E2BIG, write_file(self->ctrl, "1000000"));
	EXPECT_EQ(-EINVAL, write_file(self->ctrl, "lots"));
}

TEST_F(trace, vmgpu_trace_tool_writes_json)
{
	char json[1 << 16];
	size_t n = 0;
	FILE *p;

	ASSERT_EQ(0, system("vmgpu-trace start 128"));
	ASSERT_EQ(0, run_packet(self));
	ASSERT_EQ(0, system("vmgpu-trace stop"));
	p = popen("vmgpu-trace dump", "r");
	ASSERT_NE(NULL, p);
	n = fread(json, 1, sizeof(json) - 1, p);
	json[n] = 0;
	EXPECT_EQ(0, pclose(p));
	EXPECT_NE(NULL, strstr(json, "traceEvents"));
	EXPECT_NE(NULL, strstr(json, "\"ph\""));
	EXPECT_NE(NULL, strstr(json, "\"name\":\"SM 0 / lane 0\""));

	/* The same buffer as a picture and as a summary. */
	ASSERT_EQ(0, system("vmgpu-trace svg /tmp/devtrace.svg"));
	n = read_file("/tmp/devtrace.svg", json, sizeof(json) - 1);
	json[n] = 0;
	EXPECT_EQ(0, strncmp(json, "<?xml", 5));
	EXPECT_NE(NULL, strstr(json, "</svg>\n"));
	unlink("/tmp/devtrace.svg");
	p = popen("vmgpu-trace summary", "r");
	ASSERT_NE(NULL, p);
	n = fread(json, 1, sizeof(json) - 1, p);
	json[n] = 0;
	EXPECT_EQ(0, pclose(p));
	EXPECT_NE(NULL, strstr(json, " makespan ")) TH_LOG("%s", json);

	EXPECT_NE(0, system("vmgpu-trace start 99999999 2>/dev/null"));
	EXPECT_NE(0, system("vmgpu-trace frob 2>/dev/null"));
}

TEST_HARNESS_MAIN
