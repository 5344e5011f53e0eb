// SPDX-License-Identifier: MIT
/*
 * The model's settings: defaults and checks, from VG_SETTINGS.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"

static const struct vg_setting settings[] = {
#define VG_SETTING_ROW(f, prop, dflt, lo, hi, u, d)                            \
    { .name = (prop),                                                          \
      .offset = offsetof(struct vg_config, f),                                 \
      .def = (dflt),                                                           \
      .min = (lo),                                                             \
      .max = (hi),                                                             \
      .unit = (u),                                                             \
      .doc = (d) },
    VG_SETTINGS(VG_SETTING_ROW)
#undef VG_SETTING_ROW
};

#define NUM_SETTINGS (sizeof(settings) / sizeof(settings[0]))

/* vg_setting_mask has a bit per setting. */
_Static_assert(NUM_SETTINGS <= 64, "more settings than vg_setting_mask bits");

#define VG_PRESET(f, v, src)                                                   \
    {                                                                          \
        .offset = offsetof(struct vg_config, f), .value = (v), .source = (src) \
    }

/*
 * One NVIDIA H100 SXM5 80 GB as far as the hardware interface goes
 * (VMGPU_MAX_SMS SMs, not 132), with the launch latency measured on one
 * (Documentation/fidelity.rst).
 */
static const struct vg_preset_value h100_like[] = {
    VG_PRESET(sms, VMGPU_MAX_SMS,
              "132 on the H100 SXM5; VMGPU_MAX_SMS, the hardware interface's "
              "most [2]_"),
    VG_PRESET(clock_khz, 1980000, "boost clock [2]_, 1.980 GHz measured [6]_"),
    VG_PRESET(local_mem_mb, 81920, "80 GB HBM3 [2]_"),
    VG_PRESET(sm_threads, 2048, "[2]_"),
    VG_PRESET(sm_regs, 65536, "[2]_"),
    VG_PRESET(sm_shared_kb, 228, "[2]_"),
    VG_PRESET(sm_blocks, 32, "[2]_"),
    VG_PRESET(local_bw_mbps, 3350000, "HBM3 of the SXM5 [2]_"),
    VG_PRESET(link_bw_mbps, 450000,
              "NVLink 4, 18 links x 25 GB/s each way [2]_"),
    VG_PRESET(host_bw_mbps, 50000, "PCIe 5.0 x16 achieved, twice 4.0's [4]_"),
    VG_PRESET(launch_ns, 590,
              "a CUDA graph's dependent kernels 0.736 us apart [6]_, less "
              "wd-sync-ns"),
};

static const struct vg_preset presets[] = {
    { .name = "h100-like",
      .doc = "one NVIDIA H100 SXM5 80 GB: SM resources, clock, memory, "
             "links and launch latency (Documentation/fidelity.rst)",
      .values = h100_like,
      .count = sizeof(h100_like) / sizeof(h100_like[0]) },
};

#define NUM_PRESETS (sizeof(presets) / sizeof(presets[0]))

const struct vg_setting *vg_settings(size_t *n)
{
    *n = NUM_SETTINGS;
    return settings;
}

void vg_config_defaults(struct vg_config *cfg)
{
#define VG_SETTING_DEFAULT(f, prop, dflt, lo, hi, u, d) cfg->f = (dflt);
    VG_SETTINGS(VG_SETTING_DEFAULT)
#undef VG_SETTING_DEFAULT
}

int vg_config_check(const struct vg_config *cfg, char *err, size_t errlen)
{
    size_t i;

    for (i = 0; i < NUM_SETTINGS; i++) {
        const struct vg_setting *s = &settings[i];
        uint32_t v;

        memcpy(&v, (const uint8_t *)cfg + s->offset, sizeof(v));
        if (v < s->min || v > s->max) {
            snprintf(err, errlen, "%s=%u out of range %u..%u", s->name, v,
                     s->min, s->max);
            return -1;
        }
    }
    if (cfg->sm_threads % VMGPU_WARP_SIZE) {
        snprintf(err, errlen, "sm-threads=%u is not a multiple of %u",
                 cfg->sm_threads, VMGPU_WARP_SIZE);
        return -1;
    }
    return 0;
}

const struct vg_preset *vg_presets(size_t *n)
{
    *n = NUM_PRESETS;
    return presets;
}

int vg_setting_index(size_t offset)
{
    size_t i;

    for (i = 0; i < NUM_SETTINGS; i++) {
        if (settings[i].offset == offset) {
            return (int)i;
        }
    }
    return -1;
}

int vg_config_preset(struct vg_config *cfg, const char *name,
                     vg_setting_mask keep, char *err, size_t errlen)
{
    const struct vg_preset *p = NULL;
    size_t i, len;

    for (i = 0; i < NUM_PRESETS; i++) {
        if (!strcmp(presets[i].name, name)) {
            p = &presets[i];
            break;
        }
    }
    if (!p) {
        len =
            (size_t)snprintf(err, errlen, "preset=%s: no such preset (", name);
        for (i = 0; i < NUM_PRESETS; i++) {
            if (len < errlen) {
                len += (size_t)snprintf(err + len, errlen - len, "%s%s",
                                        i ? ", " : "", presets[i].name);
            }
        }
        if (len < errlen) {
            snprintf(err + len, errlen - len, ")");
        }
        return -1;
    }
    for (i = 0; i < p->count; i++) {
        int k = vg_setting_index(p->values[i].offset);

        if (k >= 0 && !(keep & (1ull << k))) {
            memcpy((uint8_t *)cfg + p->values[i].offset, &p->values[i].value,
                   sizeof(uint32_t));
        }
    }
    return 0;
}
