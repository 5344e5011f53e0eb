# SPDX-License-Identifier: GPL-2.0
# Shared settings for the vmgpu scripts; sourced, never run.

VMGPU_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Build products that outlive a clone (QEMU, kernel facts) live here.
VMGPU_CACHE=${VMGPU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vmgpu}
VMGPU_BUILD=${VMGPU_BUILD:-$VMGPU_TOP/build}

die() {
	echo "vmgpu: $*" >&2
	exit 1
}

log() {
	echo "vmgpu: $*" >&2
}

# The kernel release the VM boots and the module is built against: the one
# that Debian's linux-image-amd64 metapackage depends on, not the host's.
vmgpu_kernel_release() {
	local pkg
	pkg=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null |
		grep -o 'linux-image-[0-9][^ ,]*-amd64' | head -n1)
	[ -n "$pkg" ] || return 1
	echo "${pkg#linux-image-}"
}

vmgpu_kdir() {
	echo "/usr/src/linux-headers-$(vmgpu_kernel_release)"
}
