// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM selftests: the driver binds, exposes a render node, answers GET_PARAM
 * as the QEMU device was configured, rejects bad arguments, and survives
 * being unloaded and loaded again.
 *
 * The expected configuration comes from the environment the VM run script
 * sets: VMGPU_EXPECT_GPUS and VMGPU_EXPECT_SMS.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <xf86drm.h>

#include "kselftest_harness.h"
#include "vmgpu.h"
#include "vmgpu_drm.h"
#include "vmgpu_hw.h"
#include "vmgpu_isa.h"
#include "vmgpu_test_util.h"

#define MODULE_PATH "/vmgpu/modules/vmgpu.ko"

static unsigned long expect(const char *name)
{
	const char *v = getenv(name);

	return v ? strtoul(v, NULL, 0) : 0;
}

static int get_param(int fd, uint32_t param, uint64_t *value)
{
	struct drm_vmgpu_get_param gp = { .param = param };
	int ret = ioctl(fd, DRM_IOCTL_VMGPU_GET_PARAM, &gp);

	if (ret)
		return -errno;
	*value = gp.value;
	return 0;
}

FIXTURE(dev) {
	struct vmgpu_device *dev;
	int fd;
};

FIXTURE_SETUP(dev)
{
	char err[256];
	int ret = vmgpu_device_open(0, &self->dev, err, sizeof(err));

	ASSERT_EQ(0, ret) TH_LOG("open: %s", err);
	self->fd = vmgpu_device_fd(self->dev);
}

FIXTURE_TEARDOWN(dev)
{
	vmgpu_device_close(self->dev);
}

TEST(module_bound_to_pci_device)
{
	struct stat st;

	ASSERT_EQ(0, stat("/sys/bus/pci/drivers/vmgpu", &st));
	ASSERT_EQ(1, vmgpu_device_count());
}

TEST(render_node_is_vmgpu)
{
	drmVersionPtr v;
	int fd = open("/dev/dri/renderD128", O_RDWR);

	ASSERT_LE(0, fd);
	v = drmGetVersion(fd);
	ASSERT_NE(NULL, v);
	EXPECT_STREQ("vmgpu", v->name);
	drmFreeVersion(v);
	close(fd);
}

TEST_F(dev, params_match_qemu_properties)
{
	struct vmgpu_info info;

	ASSERT_NE(0, expect("VMGPU_EXPECT_GPUS"));
	ASSERT_EQ(0, vmgpu_device_query(self->dev, &info));
	EXPECT_EQ(expect("VMGPU_EXPECT_GPUS"), info.num_gpus);
	EXPECT_EQ(expect("VMGPU_EXPECT_SMS"), info.sms_per_gpu);
	EXPECT_EQ(VMGPU_HW_VERSION, info.hw_version);
	EXPECT_EQ(VMGPU_ISA_VERSION, info.isa_version);
	EXPECT_EQ(DRM_VMGPU_UAPI_VERSION, info.uapi_version);
	EXPECT_EQ(VMGPU_WARP_SIZE, info.warp_size);
	EXPECT_NE(0, info.caps & VMGPU_CAP_MMU);
	EXPECT_EQ(VMGPU_CMDBUF_MAX_BYTES, info.cmdbuf_max_bytes);
	EXPECT_EQ(VMGPU_MAX_DISPATCHES_PER_PACKET, info.max_dispatches);
}

TEST_F(dev, every_param_answers)
{
	uint64_t v;
	uint32_t p;

	for (p = 0; p < DRM_VMGPU_PARAM_COUNT; p++)
		EXPECT_EQ(0, get_param(self->fd, p, &v)) TH_LOG("param %u", p);
}

TEST_F(dev, unknown_param_is_einval)
{
	uint64_t v;

	EXPECT_EQ(-EINVAL, get_param(self->fd, DRM_VMGPU_PARAM_COUNT, &v));
	EXPECT_EQ(-EINVAL, get_param(self->fd, 0xffffffffu, &v));
	EXPECT_EQ(-EINVAL, vmgpu_get_param(self->dev, 12345, &v));
}

TEST_F(dev, nonzero_padding_is_einval)
{
	struct drm_vmgpu_get_param gp = {
		.param = DRM_VMGPU_PARAM_NUM_GPUS, .pad = 1,
	};

	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_VMGPU_GET_PARAM, &gp));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dev, bad_pointer_is_efault)
{
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_VMGPU_GET_PARAM, (void *)8));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(dev, shim_reports_errors_in_words)
{
	char msg[256];
	uint64_t v;

	ASSERT_EQ(-EINVAL, vmgpu_get_param(self->dev, 999, &v));
	vmgpu_error_message(self->dev, msg, sizeof(msg));
	EXPECT_NE(NULL, strstr(msg, "GET_PARAM 999"));
	EXPECT_EQ(-EINVAL, vmgpu_get_param(self->dev, 0, NULL));
}

TEST(open_missing_device_fails_cleanly)
{
	struct vmgpu_device *dev = (void *)1;
	char err[128] = "";

	EXPECT_EQ(-ENODEV, vmgpu_device_open(7, &dev, err, sizeof(err)));
	EXPECT_EQ(NULL, dev);
	EXPECT_NE(0, strlen(err));
}

static int unload(void)
{
	return syscall(__NR_delete_module, "vmgpu", O_NONBLOCK);
}

static int load(void)
{
	int fd = open(MODULE_PATH, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -1;
	ret = syscall(__NR_finit_module, fd, "", 0);
	close(fd);
	return ret;
}

TEST(unload_reload_10_times)
{
	int i;

	for (i = 0; i < 10; i++) {
		struct vmgpu_device *dev;
		struct vmgpu_info info;

		ASSERT_EQ(0, unload()) TH_LOG("rmmod #%d: %s", i, strerror(errno));
		ASSERT_EQ(0, vmgpu_device_count());
		ASSERT_EQ(0, load()) TH_LOG("insmod #%d: %s", i, strerror(errno));
		ASSERT_EQ(0, wait_bound());
		ASSERT_EQ(0, vmgpu_device_open(0, &dev, NULL, 0));
		EXPECT_EQ(0, vmgpu_device_query(dev, &info));
		EXPECT_EQ(expect("VMGPU_EXPECT_GPUS"), info.num_gpus);
		vmgpu_device_close(dev);
	}
}

TEST(unload_refused_while_open)
{
	struct vmgpu_device *dev;

	ASSERT_EQ(0, vmgpu_device_open(0, &dev, NULL, 0));
	EXPECT_EQ(-1, unload());
	EXPECT_EQ(EWOULDBLOCK, errno);
	vmgpu_device_close(dev);
}

TEST_HARNESS_MAIN
