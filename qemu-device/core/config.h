/* SPDX-License-Identifier: MIT */
/*
 * Every setting of the model, defined once: VG_SETTINGS lists each with
 * its field, QOM property, type (all are uint32_t), default, bounds,
 * unit and a line of documentation.
 * The config struct, its defaults, its range checks, QEMU's properties,
 * `vmgpu-settings` and the table in Documentation/device-model.rst (which
 * a test compares with `vmgpu-settings --rst`) all come from this list,
 * so adding a setting is adding a line here.
 */
#ifndef VG_CONFIG_H
#define VG_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "vmgpu_hw.h"
#include "vmgpu_isa.h"

/* X(field, "field", default, min, max, unit, doc) */
#define VG_SETTINGS(X)                                                         \
    X(gpus, "gpus", 1, 1, VMGPU_MAX_GPUS, "", "GPUs behind the device")        \
    X(sms, "sms", 4, 1, VMGPU_MAX_SMS, "",                                     \
      "SMs per GPU (small, so tests are fast)")                                \
    X(clock_khz, "clock-khz", 1500000, 1000, 10000000, "kHz",                  \
      "SM clock; boost clocks of A100 1.41 GHz, H100 1.98 GHz [1]_ [2]_")      \
    X(local_mem_mb, "local-mem-mb", 1024, 1, 1024 * 1024, "MiB",               \
      "local memory per GPU (reported only)")                                  \
    X(issue_width, "issue-width", 4, 1, 64, "",                                \
      "warp instructions per cycle per SM: four schedulers [1]_")              \
    /* An SM must hold at least one block of the largest legal shape. */       \
    X(sm_threads, "sm-threads", 2048, VMGPU_MAX_BLOCK_THREADS, 65536, "",      \
      "resident threads per SM, a multiple of 32 (A100) [1]_")                 \
    X(sm_regs, "sm-regs", 65536, 1024, 1u << 24, "",                           \
      "32-bit registers per SM [1]_")                                          \
    X(sm_shared_kb, "sm-shared-kb", 164, VMGPU_MAX_SHARED_BYTES / 1024, 4096,  \
      "KiB", "shared memory per SM, A100 [1]_")                                \
    X(sm_blocks, "sm-blocks", 32, 1, 1024, "",                                 \
      "resident blocks per SM, A100 [1]_")                                     \
    X(local_bw_mbps, "local-bw-mbps", 1555000, 1, UINT32_MAX, "MB/s",          \
      "local memory bandwidth; A100 40 GB HBM2 [1]_")                          \
    X(local_lat_ns, "local-lat-ns", 500, 0, 10000000, "ns",                    \
      "global load latency, ~400-600 ns measured [3]_")                        \
    X(link_bw_mbps, "link-bw-mbps", 300000, 1, UINT32_MAX, "MB/s",             \
      "each GPU-GPU link, both ways; NVLink 3, 12 x 25 GB/s [1]_")             \
    X(link_lat_ns, "link-lat-ns", 1000, 0, 10000000, "ns",                     \
      "peer access ~1 us, per link crossed")                                   \
    X(link_topology, "link-topology", 0, 0, 1, "",                             \
      "GPU-GPU links: 0 all-to-all, 1 ring (GPU k to k-1 and k+1)")            \
    X(host_bw_mbps, "host-bw-mbps", 25000, 1, UINT32_MAX, "MB/s",              \
      "host bus per GPU; PCIe 4.0 x16 achieved [4]_")                          \
    X(host_lat_ns, "host-lat-ns", 1500, 0, 10000000, "ns",                     \
      "PCIe round trip ~1-2 us")                                               \
    X(cp_cmd_ns, "cp-cmd-ns", 100, 0, 10000000, "ns",                          \
      "command processor decode of one command")                               \
    X(launch_ns, "launch-ns", 2000, 0, 10000000, "ns",                         \
      "dispatch to its first block (kernel launch overhead)")                  \
    X(block_launch_ns, "block-launch-ns", 100, 0, 10000000, "ns",              \
      "per-block setup on the SM: ~150 cycles, see below")                     \
    X(fence_ns, "fence-ns", 1000, 0, 10000000, "ns",                           \
      "fence write and MSI over PCIe")                                         \
    X(wd_table_slots, "wd-table-slots", 32, 1, 128, "",                        \
      "work distributor task-table slots (concurrent kernels: 32..128)")       \
    X(wd_round_robin, "wd-round-robin", 0, 0, 1, "",                           \
      "CTA issue: 0 load-balance, 1 round-robin over the SM list")             \
    X(wd_fifo, "wd-fifo", 0, 0, 1, "",                                         \
      "1: ignore priorities, first come first served (a baseline)")            \
    X(wd_throttle_sms, "wd-throttle-sms", 0, 0, UINT32_MAX, "",                \
      "SMs 0..31 of throttle mode's subset; 0: the first half")                \
    X(wd_sync_ns, "wd-sync-ns", 150, 0, 1000000, "ns",                         \
      "TMD state sync to an SM until its ack: ~1 L2 round trip [3]_")          \
    X(wd_evict_ns, "wd-evict-ns", 500, 0, 1000000, "ns",                       \
      "eviction: slot state saved, newcomer's loaded: ~local-lat-ns")          \
    X(instr_budget, "instr-budget", 1u << 28, 1, UINT32_MAX, "",               \
      "default warp instructions per 65536 warps of a dispatch (a guard)")     \
    X(isa_version, "isa-version", VMGPU_ISA_VERSION, VMGPU_ISA_VERSION_MIN,    \
      VMGPU_ISA_VERSION, "",                                                   \
      "ISA version the GPUs run; executables above it are refused")            \
    X(time_order, "time-order", 0, 0, 1, "",                                   \
      "QEMU: 0 a runner thread per GPU, 1 one for all GPUs in device time")

/* Everything tunable about the model (QEMU: one QOM property each). */
struct vg_config {
#define VG_SETTING_FIELD(f, prop, dflt, lo, hi, unit, doc) uint32_t f;
    VG_SETTINGS(VG_SETTING_FIELD)
#undef VG_SETTING_FIELD
};

/* One setting, as tools and documentation see it. */
struct vg_setting {
    const char *name; /* the QOM property */
    size_t offset;    /* in struct vg_config */
    uint32_t def, min, max;
    const char *unit;
    const char *doc;
};

/* The settings in VG_SETTINGS order; *n gets their number. */
const struct vg_setting *vg_settings(size_t *n);
void vg_config_defaults(struct vg_config *cfg);
/* 0 if @cfg is usable, else -1 with a message in @err. */
int vg_config_check(const struct vg_config *cfg, char *err, size_t errlen);

/*
 * A named configuration: a few settings at values taken from one real
 * GPU (Documentation/fidelity.rst), each with its source. The rest keep
 * whatever they were.
 */
struct vg_preset_value {
    size_t offset; /* in struct vg_config */
    uint32_t value;
    const char *source; /* where the value comes from */
};

struct vg_preset {
    const char *name; /* -device vmgpu,preset=NAME; VMGPU_EMBEDDED */
    const char *doc;
    const struct vg_preset_value *values;
    size_t count;
};

/* Masks of settings, bit i for setting i of vg_settings(). */
typedef uint64_t vg_setting_mask;

/* The presets; *n gets their number. */
const struct vg_preset *vg_presets(size_t *n);
/* The index in vg_settings() of the setting at @offset, or -1. */
int vg_setting_index(size_t offset);
/*
 * Set @cfg's settings to preset @name's values, except those in @keep
 * (settings given explicitly, which win over the preset whatever their
 * order). 0, or -1 with a message naming the presets in @err.
 */
int vg_config_preset(struct vg_config *cfg, const char *name,
                     vg_setting_mask keep, char *err, size_t errlen);

#endif
