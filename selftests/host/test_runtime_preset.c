// SPDX-License-Identifier: GPL-2.0-only
/*
 * Named configurations (vg_config_preset(), qemu-device/core/config.c):
 * each preset's values are in their settings' ranges and give a
 * configuration vg_config_check() takes; a preset sets its settings and
 * no others; settings given explicitly win over it; an unknown name is
 * refused with a message naming the presets. The embedded device takes
 * preset= among its settings (VMGPU_EMBEDDED), in any order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "core/config.h"
#include "vmgpu/runtime.h"

static uint32_t field(const struct vg_config *c, size_t offset)
{
	uint32_t v;

	memcpy(&v, (const uint8_t *)c + offset, sizeof(v));
	return v;
}

static const struct vg_preset *preset(const char *name)
{
	const struct vg_preset *p;
	size_t n, i;

	p = vg_presets(&n);
	for (i = 0; i < n; i++)
		if (!strcmp(p[i].name, name))
			return &p[i];
	return NULL;
}

/* Every preset: known settings, values in range, a usable whole. */
TEST(presets_validate)
{
	const struct vg_setting *s;
	const struct vg_preset *p;
	size_t n, ns, i, k;
	char err[256];

	p = vg_presets(&n);
	s = vg_settings(&ns);
	ASSERT_LE(1, n);
	for (i = 0; i < n; i++) {
		struct vg_config c;

		EXPECT_NE(NULL, p[i].doc);
		ASSERT_LE(1, p[i].count);
		for (k = 0; k < p[i].count; k++) {
			int idx = vg_setting_index(p[i].values[k].offset);

			ASSERT_LE(0, idx);
			EXPECT_LE(s[idx].min, p[i].values[k].value);
			EXPECT_GE(s[idx].max, p[i].values[k].value);
			EXPECT_NE(NULL, p[i].values[k].source);
		}
		vg_config_defaults(&c);
		err[0] = 0;
		ASSERT_EQ(0, vg_config_preset(&c, p[i].name, 0, err,
					      sizeof(err)));
		EXPECT_EQ(0, vg_config_check(&c, err, sizeof(err)))
			TH_LOG("%s: %s", p[i].name, err);
	}
}

/* h100-like sets its values, leaves the others, spares what is kept. */
TEST(h100_like_applies)
{
	const struct vg_preset *p = preset("h100-like");
	struct vg_config def, c;
	const struct vg_setting *s;
	vg_setting_mask set = 0;
	size_t ns, i;
	char err[256];
	int sms;

	ASSERT_NE(NULL, p);
	s = vg_settings(&ns);
	vg_config_defaults(&def);
	c = def;
	ASSERT_EQ(0, vg_config_preset(&c, "h100-like", 0, err, sizeof(err)));
	for (i = 0; i < p->count; i++) {
		EXPECT_EQ(p->values[i].value, field(&c, p->values[i].offset));
		set |= 1ull << vg_setting_index(p->values[i].offset);
	}
	for (i = 0; i < ns; i++)
		if (!(set & (1ull << i)))
			EXPECT_EQ(field(&def, s[i].offset),
				  field(&c, s[i].offset))
				TH_LOG("%s changed", s[i].name);
	EXPECT_EQ(1980000, c.clock_khz);
	EXPECT_EQ(VMGPU_MAX_SMS, c.sms);
	EXPECT_EQ(228, c.sm_shared_kb);
	EXPECT_EQ(def.gpus, c.gpus);

	/* a setting given explicitly keeps its value */
	sms = vg_setting_index(offsetof(struct vg_config, sms));
	ASSERT_LE(0, sms);
	c = def;
	c.sms = 8;
	ASSERT_EQ(0, vg_config_preset(&c, "h100-like", 1ull << sms, err,
				      sizeof(err)));
	EXPECT_EQ(8, c.sms);
	EXPECT_EQ(1980000, c.clock_khz);
}

TEST(unknown_preset_refused)
{
	struct vg_config def, c;
	char err[256];

	vg_config_defaults(&def);
	c = def;
	err[0] = 0;
	EXPECT_EQ(-1, vg_config_preset(&c, "h200", 0, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "preset=h200: no such preset"));
	EXPECT_NE(NULL, strstr(err, "h100-like")) TH_LOG("%s", err);
	EXPECT_EQ(0, memcmp(&def, &c, sizeof(c)));
	/* no room for a message: still refused */
	EXPECT_EQ(-1, vg_config_preset(&c, "", 0, NULL, 0));
	EXPECT_EQ(-1, vg_config_preset(&c, "h100", 0, err, 8));
}

/* The embedded device: preset= with settings beside it, in any order. */
TEST(embedded_preset)
{
	static const char *const orders[] = {
		"preset=h100-like,sms=8,gpus=1",
		"gpus=1,sms=8,preset=h100-like",
	};
	struct vmgpu_rt_backend be;
	struct vmgpu_rt_caps caps;
	char err[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(orders); i++) {
		ASSERT_EQ(0, vmgpu_rt_embedded_open(orders[i], &be, err,
						    sizeof(err)))
			TH_LOG("%s: %s", orders[i], err);
		EXPECT_EQ(1, be.ops->count(be.opaque));
		ASSERT_EQ(0, be.ops->query(be.opaque, 0, &caps));
		EXPECT_EQ(1980000, caps.clock_khz);
		EXPECT_EQ(8, caps.compute_units);
		vmgpu_rt_embedded_close(&be);
	}
	ASSERT_EQ(0, vmgpu_rt_embedded_open("preset=h100-like", &be, err,
					    sizeof(err)));
	ASSERT_EQ(0, be.ops->query(be.opaque, 0, &caps));
	EXPECT_EQ(VMGPU_MAX_SMS, caps.compute_units);
	vmgpu_rt_embedded_close(&be);

	EXPECT_EQ(-EINVAL, vmgpu_rt_embedded_open("preset=h200,gpus=1", &be,
						  err, sizeof(err)));
	EXPECT_EQ(NULL, be.ops);
	EXPECT_NE(NULL, strstr(err, "no such preset")) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "h100-like"));
	EXPECT_EQ(-EINVAL, vmgpu_rt_embedded_open("preset=", &be, err,
						  sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "preset")) TH_LOG("%s", err);

	ASSERT_EQ(0, setenv("VMGPU_EMBEDDED", "preset=h100-like,gpus=2", 1));
	ASSERT_EQ(0, vmgpu_rt_embedded_open(NULL, &be, err, sizeof(err)));
	EXPECT_EQ(2, be.ops->count(be.opaque));
	ASSERT_EQ(0, be.ops->query(be.opaque, 1, &caps));
	EXPECT_EQ(1980000, caps.clock_khz);
	vmgpu_rt_embedded_close(&be);
	ASSERT_EQ(0, unsetenv("VMGPU_EMBEDDED"));
}

TEST_HARNESS_MAIN
