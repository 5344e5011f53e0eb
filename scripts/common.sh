# SPDX-License-Identifier: GPL-2.0-only
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

# The debug guest kernel (scripts/build-debug-kernel): its cache directory,
# keyed by everything that shapes it: the kernel source package's version,
# the config fragment, the build script and the compiler.
vmgpu_debug_kernel_dir() {
	local ver key
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) || return 1
	[ -n "$ver" ] || return 1
	key=$( {
		echo "linux-source-6.1 $ver"
		cat "$VMGPU_TOP/scripts/debug-kernel.config"
		cat "$VMGPU_TOP/scripts/build-debug-kernel"
		gcc --version | head -n1
	} | sha256sum | cut -c1-16)
	echo "$VMGPU_CACHE/debug-kernel-$key"
}

# Fail unless the debug kernel of this tree is built; print its directory:
# bzImage, kernelrelease, build/ (a KDIR) and mod/lib/modules/<release>/.
vmgpu_debug_kernel_ready() {
	local dir
	dir=$(vmgpu_debug_kernel_dir) || die "linux-source-6.1 is not installed: run scripts/deps"
	[ -f "$dir/.complete" ] ||
		die "no debug kernel for this tree in $dir: run scripts/build-debug-kernel"
	echo "$dir"
}
