// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmgpu: instantiates the tracepoints of vmgpu_trace.h.
 */
#define CREATE_TRACE_POINTS
#include "vmgpu_trace.h"
