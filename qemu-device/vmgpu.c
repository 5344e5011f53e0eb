/*
 * vmgpu: a virtual multi-GPU compute device.
 *
 * This file is only the QEMU glue: PCI config, BAR0 MMIO, MSI-X, DMA and one
 * runner thread per GPU. The model itself (command processors, SMs, MMU,
 * virtual clocks) lives in core/, which knows nothing about QEMU.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/thread.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "exec/memory.h"
#include "sysemu/dma.h"
#include "trace.h"

#include "core/device.h"
#include "vmgpu_cmd.h"

#define TYPE_VMGPU "vmgpu"
OBJECT_DECLARE_SIMPLE_TYPE(VmgpuState, VMGPU)

/*
 * One thread per GPU runs that GPU (vg_device_run_gpu); vCPUs and other
 * GPUs only kick it, so no GPU waits for another and no vCPU for any.
 * With the setting time-order=1 one thread runs every GPU's events,
 * always the earliest first (vg_device_run, as the host tests do), and
 * each GPU's blocks run on an executor thread of the model's own: device
 * time is then exact across GPUs and repeatable for the same host
 * actions, and the GPUs' blocks still run in parallel (no vCPU waits for
 * any of these threads either).
 */
typedef struct VmgpuRunner {
    VmgpuState *s;
    unsigned int gpu;
    QemuThread thread;
    QemuMutex lock;
    QemuCond cond;
    bool kicked;
    bool stopping;
} VmgpuRunner;

struct VmgpuState {
    PCIDevice parent_obj;

    MemoryRegion mmio;
    struct vg_config cfg;
    char *preset;          /* preset=: the base the other properties change */
    vg_setting_mask given; /* settings set as properties: they win */
    struct vg_device *core;
    VmgpuRunner runner[VMGPU_MAX_GPUS];
    unsigned int runners; /* gpus, or 1 with time-order=1 */
};

static int vmgpu_dma_read(void *opaque, uint64_t addr, void *buf,
                          uint64_t len)
{
    VmgpuState *s = opaque;

    return pci_dma_read(PCI_DEVICE(s), addr, buf, len) == MEMTX_OK ? 0 : -1;
}

static int vmgpu_dma_write(void *opaque, uint64_t addr, const void *buf,
                           uint64_t len)
{
    VmgpuState *s = opaque;

    return pci_dma_write(PCI_DEVICE(s), addr, buf, len) == MEMTX_OK ? 0 : -1;
}

/*
 * Resolve a page of guest RAM to a host pointer once, so the SMs' loads and
 * stores do not go through the memory API one by one. Only plain RAM seen
 * through the device's bus-master address space qualifies; anything else
 * (MMIO, ROM for writes, bus mastering off) is refused.
 */
static uint8_t *vmgpu_map_page(void *opaque, uint64_t addr, bool write)
{
    VmgpuState *s = opaque;
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));
    MemoryRegion *mr;
    hwaddr xlat, len = VMGPU_PAGE_SIZE;
    uint8_t *ptr = NULL;

    RCU_READ_LOCK_GUARD();
    mr = address_space_translate(as, addr, &xlat, &len, write,
                                 MEMTXATTRS_UNSPECIFIED);
    if (memory_region_is_ram(mr) && !memory_region_is_ram_device(mr) &&
        !(write && memory_region_is_rom(mr)) && len >= VMGPU_PAGE_SIZE) {
        ptr = (uint8_t *)memory_region_get_ram_ptr(mr) + xlat;
        if (write) {
            memory_region_set_dirty(mr, xlat, VMGPU_PAGE_SIZE);
        }
    }
    trace_vmgpu_map_page(addr, write, ptr != NULL);
    return ptr;
}

static void vmgpu_raise_irq(void *opaque, unsigned int gpu)
{
    VmgpuState *s = opaque;
    PCIDevice *pdev = PCI_DEVICE(s);
    bool locked = qemu_mutex_iothread_locked();

    if (!locked) {
        qemu_mutex_lock_iothread();
    }
    /*
     * A RESET (an MMIO write, under this same lock) may have cleared the
     * cause since the model decided to signal it: send nothing stale.
     */
    if (msix_enabled(pdev) && vg_device_irq_asserted(s->core, gpu)) {
        msix_notify(pdev, VMGPU_MSIX_VECTOR(gpu));
    }
    if (!locked) {
        qemu_mutex_unlock_iothread();
    }
    trace_vmgpu_irq(gpu);
}

/*
 * The model's observers: each trace record becomes a trace-event of its
 * kind (-trace 'vmgpu_*'). They run on a runner thread, maybe under a
 * register lock of the model, and only log.
 */
static void vmgpu_trace_record(void *opaque,
                               const struct vmgpu_trace_record *r)
{
    const char *name;

    switch (r->kind) {
    case VMGPU_TRACE_CMD:
        name = vmgpu_cmd_name(r->aux);
        trace_vmgpu_cp_cmd(r->gpu, r->seqno, name ? name : "?", r->dispatch,
                           r->start_ns, r->end_ns, r->value);
        break;
    case VMGPU_TRACE_PACKET:
        trace_vmgpu_cp_packet(r->gpu, r->seqno, r->as_slot, r->aux, r->value,
                              r->start_ns, r->end_ns);
        break;
    case VMGPU_TRACE_DISPATCH:
        trace_vmgpu_dispatch_done(r->gpu, r->seqno, r->dispatch, r->value,
                                  r->start_ns, r->end_ns);
        break;
    case VMGPU_TRACE_BLOCK:
        trace_vmgpu_block_done(r->gpu, r->sm, r->dispatch, r->block, r->aux,
                               r->value, r->value2, r->start_ns, r->end_ns);
        break;
    case VMGPU_TRACE_ERROR:
        trace_vmgpu_fault(r->gpu, r->seqno, r->aux, r->dispatch, r->value,
                          r->value2, r->start_ns);
        break;
    case VMGPU_TRACE_IRQ:
        trace_vmgpu_gpu_irq(r->gpu, r->aux, r->start_ns);
        break;
    default:
        break;
    }
}

static void vmgpu_trace_block_issue(void *opaque, unsigned int gpu,
                                    unsigned int sm, uint32_t dispatch,
                                    uint32_t block, uint64_t ns)
{
    trace_vmgpu_block_issue(gpu, sm, dispatch, block, ns);
}

static void vmgpu_trace_mmu_walk(void *opaque, unsigned int gpu,
                                 unsigned int slot, uint64_t va, uint64_t pte,
                                 int fault)
{
    trace_vmgpu_mmu_walk(gpu, slot, va, pte, fault);
}

static void vmgpu_kick(void *opaque, unsigned int gpu)
{
    VmgpuState *s = opaque;
    VmgpuRunner *r = &s->runner[s->runners == 1 ? 0 : gpu];

    qemu_mutex_lock(&r->lock);
    r->kicked = true;
    qemu_cond_signal(&r->cond);
    qemu_mutex_unlock(&r->lock);
}

static void *vmgpu_runner_thread(void *opaque)
{
    VmgpuRunner *r = opaque;

    for (;;) {
        qemu_mutex_lock(&r->lock);
        while (!r->kicked && !r->stopping) {
            qemu_cond_wait(&r->cond, &r->lock);
        }
        if (r->stopping) {
            qemu_mutex_unlock(&r->lock);
            break;
        }
        r->kicked = false;
        qemu_mutex_unlock(&r->lock);
        if (r->s->runners == 1 && r->s->cfg.gpus > 1) {
            vg_device_run(r->s->core);
        } else {
            vg_device_run_gpu(r->s->core, r->gpu);
        }
    }
    return NULL;
}

static void vmgpu_runners_stop(VmgpuState *s)
{
    unsigned int i;

    for (i = 0; i < s->runners; i++) {
        VmgpuRunner *r = &s->runner[i];

        qemu_mutex_lock(&r->lock);
        r->stopping = true;
        qemu_cond_signal(&r->cond);
        qemu_mutex_unlock(&r->lock);
        qemu_thread_join(&r->thread);
        qemu_cond_destroy(&r->cond);
        qemu_mutex_destroy(&r->lock);
    }
}

static uint64_t vmgpu_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    VmgpuState *s = opaque;
    uint64_t val = vg_device_mmio_read(s->core, addr);

    trace_vmgpu_mmio_read(addr, val);
    return val;
}

static void vmgpu_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                             unsigned size)
{
    VmgpuState *s = opaque;

    trace_vmgpu_mmio_write(addr, val);
    vg_device_mmio_write(s->core, addr, val);
}

static const MemoryRegionOps vmgpu_mmio_ops = {
    .read = vmgpu_mmio_read,
    .write = vmgpu_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

static void vmgpu_realize(PCIDevice *pdev, Error **errp)
{
    VmgpuState *s = VMGPU(pdev);
    struct vg_host host = {
        .opaque = s,
        .dma_read = vmgpu_dma_read,
        .dma_write = vmgpu_dma_write,
        .map_page = vmgpu_map_page,
        .raise_irq = vmgpu_raise_irq,
        .kick = vmgpu_kick,
        .trace_record = vmgpu_trace_record,
        .trace_block_issue = vmgpu_trace_block_issue,
        .trace_mmu_walk = vmgpu_trace_mmu_walk,
    };
    char name[16];
    char err[160];
    unsigned int i;

    if (s->preset &&
        vg_config_preset(&s->cfg, s->preset, s->given, err, sizeof(err))) {
        error_setg(errp, "vmgpu: %s", err);
        return;
    }
    if (vg_config_check(&s->cfg, err, sizeof(err))) {
        error_setg(errp, "vmgpu: %s", err);
        return;
    }

    pci_config_set_interrupt_pin(pdev->config, 1);
    memory_region_init_io(&s->mmio, OBJECT(s), &vmgpu_mmio_ops, s,
                          "vmgpu-mmio", VMGPU_BAR0_SIZE);
    pci_register_bar(pdev, VMGPU_BAR_MMIO, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->mmio);

    if (msix_init_exclusive_bar(pdev, s->cfg.gpus, VMGPU_BAR_MSIX, errp)) {
        return;
    }
    for (i = 0; i < s->cfg.gpus; i++) {
        msix_vector_use(pdev, VMGPU_MSIX_VECTOR(i));
    }

    s->core = vg_device_new(&s->cfg, &host);
    if (!s->core) {
        msix_uninit_exclusive_bar(pdev);
        error_setg(errp, "vmgpu: out of memory for the device model");
        return;
    }

    s->runners = s->cfg.time_order ? 1 : s->cfg.gpus;
    if (s->runners == 1 && s->cfg.gpus > 1 &&
        vg_device_executors(s->core, true)) {
        vg_device_free(s->core);
        s->core = NULL;
        msix_uninit_exclusive_bar(pdev);
        error_setg(errp, "vmgpu: cannot start the GPUs' executor threads");
        return;
    }
    for (i = 0; i < s->runners; i++) {
        VmgpuRunner *r = &s->runner[i];

        r->s = s;
        r->gpu = i;
        r->kicked = false;
        r->stopping = false;
        qemu_mutex_init(&r->lock);
        qemu_cond_init(&r->cond);
        snprintf(name, sizeof(name), "vmgpu-gpu%u", i);
        qemu_thread_create(&r->thread, name, vmgpu_runner_thread, r,
                           QEMU_THREAD_JOINABLE);
    }
}

static void vmgpu_exit(PCIDevice *pdev)
{
    VmgpuState *s = VMGPU(pdev);

    /* Stop running blocks within a slice rather than at their budget. */
    vg_device_reset(s->core);
    vmgpu_runners_stop(s);
    vg_device_free(s->core);
    s->core = NULL;
    msix_uninit_exclusive_bar(pdev);
}

static void vmgpu_reset(DeviceState *dev)
{
    VmgpuState *s = VMGPU(dev);

    trace_vmgpu_reset();
    vg_device_reset(s->core);
}

/*
 * One uint32 property per setting of the model, made from its settings
 * list (core/config.h) when the class is initialised, then preset; the
 * last entry stays zero, the end of the list.
 */
static Property vmgpu_properties[sizeof(struct vg_config) / sizeof(uint32_t) +
                                 2];

/* qdev_prop_uint32, noting the setting as given so that a preset spares it */
static PropertyInfo vmgpu_prop_setting;

static void vmgpu_set_setting(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    VmgpuState *s = VMGPU(obj);
    Property *prop = opaque;
    ptrdiff_t i = prop - vmgpu_properties;
    Error *local_err = NULL;

    /* the setting's index in vg_settings() */
    assert(i >= 0 && i < 64);
    qdev_prop_uint32.set(obj, v, name, opaque, &local_err);
    if (local_err) {
        error_propagate(errp, local_err);
        return;
    }
    s->given |= 1ull << i;
}

/* The properties' defaults went through the setter: none is given yet. */
static void vmgpu_instance_init(Object *obj)
{
    VMGPU(obj)->given = 0;
}

static void vmgpu_properties_init(void)
{
    const struct vg_setting *set;
    size_t i, n;

    vmgpu_prop_setting = qdev_prop_uint32;
    vmgpu_prop_setting.set = vmgpu_set_setting;
    set = vg_settings(&n);
    assert(n + 1 < ARRAY_SIZE(vmgpu_properties));
    for (i = 0; i < n; i++) {
        vmgpu_properties[i] = (Property) {
            .name = set[i].name,
            .info = &vmgpu_prop_setting,
            .offset = offsetof(VmgpuState, cfg) + set[i].offset,
            .set_default = true,
            .defval.u = set[i].def,
        };
    }
    vmgpu_properties[n] = (Property) {
        .name = "preset",
        .info = &qdev_prop_string,
        .offset = offsetof(VmgpuState, preset),
    };
}

/* The model's state lives outside QEMU's reach; refuse to migrate. */
static const VMStateDescription vmgpu_vmstate = {
    .name = "vmgpu",
    .unmigratable = 1,
};

static void vmgpu_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);
    const struct vg_setting *set;
    size_t i, n;

    k->realize = vmgpu_realize;
    k->exit = vmgpu_exit;
    k->vendor_id = VMGPU_PCI_VENDOR_ID;
    k->device_id = VMGPU_PCI_DEVICE_ID;
    k->revision = VMGPU_PCI_REVISION;
    k->class_id = VMGPU_PCI_CLASS;
    dc->desc = "vmgpu virtual multi-GPU compute device";
    dc->reset = vmgpu_reset;
    dc->vmsd = &vmgpu_vmstate;
    vmgpu_properties_init();
    device_class_set_props(dc, vmgpu_properties);
    set = vg_settings(&n);
    for (i = 0; i < n; i++) {
        object_class_property_set_description(klass, set[i].name,
                                              set[i].doc);
    }
    object_class_property_set_description(
        klass, "preset",
        "named configuration the other properties change (h100-like)");
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo vmgpu_info = {
    .name = TYPE_VMGPU,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(VmgpuState),
    .instance_init = vmgpu_instance_init,
    .class_init = vmgpu_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void vmgpu_register_types(void)
{
    type_register_static(&vmgpu_info);
}

type_init(vmgpu_register_types)
