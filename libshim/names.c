// SPDX-License-Identifier: MIT
/*
 * libvmgpu: names of the device's codes and what an error return means,
 * for messages.
 */
#include <errno.h>
#include <string.h>

#include "vmgpu.h"
#include "shim_internal.h"

const char *vmgpu_fault_name(uint32_t fault)
{
	static const char *const names[VMGPU_FAULT_NUM] = {
		[VMGPU_FAULT_NONE] = "no fault",
		[VMGPU_FAULT_UNMAPPED] = "MMU fault: address not mapped",
		[VMGPU_FAULT_PERMISSION] = "MMU fault: access not permitted",
		[VMGPU_FAULT_MISALIGNED] = "misaligned access",
		[VMGPU_FAULT_ILLEGAL_INSTR] = "illegal instruction",
		[VMGPU_FAULT_BAD_EXECUTABLE] = "bad executable",
		[VMGPU_FAULT_BUDGET] = "instruction budget exhausted",
		[VMGPU_FAULT_BAD_COMMAND] = "malformed command",
		[VMGPU_FAULT_RING] = "bad ring entry",
		[VMGPU_FAULT_PC_RANGE] = "branch or run past the end of the code",
		[VMGPU_FAULT_TASK] = "device-side launch or enqueue refused",
	};

	if (fault == VMGPU_FAULT_TIMEOUT)
		return "hang: stopped by the driver's timeout";
	return fault < VMGPU_FAULT_NUM ? names[fault] : "unknown fault";
}

const char *vmgpu_state_name(uint32_t key)
{
	switch (key) {
#define X_NAME(name, code)	\
	case (code):		\
		return #name;
		VMGPU_STATE_TABLE(X_NAME)
#undef X_NAME
	}
	return NULL;
}

const char *vmgpu_wait_op_name(uint32_t op)
{
	static const char *const names[VMGPU_WAIT_NUM_OPS] = {
		[VMGPU_WAIT_EQ] = "==", [VMGPU_WAIT_NE] = "!=",
		[VMGPU_WAIT_GE] = ">=", [VMGPU_WAIT_GT] = ">",
		[VMGPU_WAIT_LE] = "<=", [VMGPU_WAIT_LT] = "<",
	};

	return op < VMGPU_WAIT_NUM_OPS ? names[op] : NULL;
}

/* Keep in step with the table in Documentation/library.rst. */
const char *vmgpu_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -EFAULT:
		return "the packet faulted (MMU fault or misaligned access)";
	case -EINVAL:
		return "invalid argument, or the packet had an illegal instruction or command";
	case -ETIMEDOUT:
		return "a dispatch ran out of its instruction budget";
	case -ECANCELED:
		return "the packet hung and was stopped, or the context is banned after a failed packet";
	case -ENODEV:
		return "the device is gone (unbound, reset or removed)";
	case -ETIME:
		return "the wait timed out; the work is still running";
	case -E2BIG:
		return "over a limit of the device or the packet";
	case -ENOMEM:
		return "out of memory, or over the device's memory budget";
	case -ENOENT:
		return "no such object (handle, context, signature)";
	case -EACCES:
		return "not permitted without a capability (CAP_SYS_NICE)";
	case -EIO:
		return "device error";
	}
	return err < 0 ? strerror(-err) : "not an error code";
}
