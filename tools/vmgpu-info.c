// SPDX-License-Identifier: MIT
/*
 * vmgpu-info: print what every vmgpu device reports, through libvmgpu.
 *
 *   vmgpu-info          exit status 1 when there is no device
 */
#include <stdio.h>
#include <string.h>

#include "tool_common.h"
#include "vmgpu.h"
#include "vmgpu_hw.h"

static const struct tool tool = {
	.name = "vmgpu-info",
	.usage =
	"usage: vmgpu-info\n"
	"Print what every vmgpu device reports: render node, driver and\n"
	"interface versions, capabilities, limits, GPUs and each GPU's\n"
	"work distributor policy.\n"
	"  -h, --help      this help\n"
	"  --version       the version\n",
};

static void print_caps(uint32_t caps)
{
	static const char *const names[] = {
		"mmu", "sync", "timestamp", "copy", "wait-value", "trace",
		"trace-tmd", "wd-policy",
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (caps & (1u << i))
			printf(" %s", names[i]);
	printf("\n");
}

/* "    distributor: round-robin, 32 slots, SMs 0 1 2 3" */
static void print_wd_policy(struct vmgpu_device *dev, unsigned int gpu)
{
	struct vmgpu_wd_policy p;
	char err[256];
	unsigned int s;

	if (vmgpu_wd_policy_get(dev, gpu, &p)) {
		vmgpu_error_message(dev, err, sizeof(err));
		printf("    distributor: unknown (%s)\n", err);
		return;
	}
	printf("    distributor: %s, %u slots, SMs", vmgpu_wd_mode_name(p.mode),
	       p.table_slots);
	for (s = 0; s < p.num_sms && s < sizeof(p.sm_order); s++)
		printf(" %u", p.sm_order[s]);
	printf("\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = { TOOL_COMMON_OPTIONS };
	int count, i, c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1)
		tool_common_option(&tool, c);
	if (optind < argc)
		tool_usage_error(&tool, "unexpected operand %s", argv[optind]);
	count = vmgpu_device_count();

	if (count < 0) {
		fprintf(stderr, "vmgpu-info: cannot list devices: %s\n",
			strerror(-count));
		return 1;
	}
	if (count == 0) {
		fprintf(stderr, "vmgpu-info: no vmgpu device found\n");
		return 1;
	}
	for (i = 0; i < count; i++) {
		struct vmgpu_device *dev;
		struct vmgpu_info info;
		char err[256];
		unsigned int g;
		int ret;

		ret = vmgpu_device_open(i, &dev, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "vmgpu-info: device %d: %s\n", i, err);
			return 1;
		}
		ret = vmgpu_device_query(dev, &info);
		if (ret) {
			vmgpu_error_message(dev, err, sizeof(err));
			fprintf(stderr, "vmgpu-info: device %d: %s\n", i, err);
			vmgpu_device_close(dev);
			return 1;
		}
		printf("device %d: %s (driver vmgpu %s, uAPI %u)\n", i,
		       info.node, info.driver_version, info.uapi_version);
		printf("  interface %u.%u, ISA %u, warp %u, caps:",
		       info.hw_version >> 16, info.hw_version & 0xffff,
		       info.isa_version, info.warp_size);
		print_caps(info.caps);
		printf("  limits: command buffer %u bytes, %u dispatches per packet\n",
		       info.cmdbuf_max_bytes, info.max_dispatches);
		for (g = 0; g < info.num_gpus; g++) {
			printf("  gpu%u: %u SMs at %u MHz, %u MiB local memory\n",
			       g, info.sms_per_gpu, info.clock_khz / 1000,
			       info.local_mem_mb);
			print_wd_policy(dev, g);
		}
		vmgpu_device_close(dev);
	}
	return 0;
}
