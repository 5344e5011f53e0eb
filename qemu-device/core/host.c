// SPDX-License-Identifier: MIT
/*
 * The bus as the device sees it: DMA only to and from plain RAM.
 */
#include "host.h"

#define PAGE_MASK ((uint64_t)VMGPU_PAGE_SIZE - 1)

static bool bus_is_ram(const struct vg_host *host, uint64_t addr, uint64_t len,
                       bool write)
{
    uint64_t page = addr & ~PAGE_MASK;

    if (!len || addr + len < addr) {
        return len == 0;
    }
    for (; page < addr + len; page += VMGPU_PAGE_SIZE) {
        if (!host->map_page(host->opaque, page, write)) {
            return false;
        }
    }
    return true;
}

int vg_bus_read(const struct vg_host *host, uint64_t addr, void *buf,
                uint64_t len)
{
    if (!bus_is_ram(host, addr, len, false)) {
        return -1;
    }
    return host->dma_read(host->opaque, addr, buf, len);
}

int vg_bus_write(const struct vg_host *host, uint64_t addr, const void *buf,
                 uint64_t len)
{
    if (!bus_is_ram(host, addr, len, true)) {
        return -1;
    }
    return host->dma_write(host->opaque, addr, buf, len);
}
