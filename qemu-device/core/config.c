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
