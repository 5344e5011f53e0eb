/* SPDX-License-Identifier: MIT */
/* Transitional: the runtime header moved to <vmgpu/runtime.h>. */
#include <vmgpu/runtime.h>
