/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * vmgpu hardware interface: the one definition of the register map, the
 * ring entry, the command packet format and the GPU page-table format.
 *
 * Included by the QEMU device model, the kernel driver and the user
 * library. Everything here is little-endian and fixed-width; a change that
 * is not backwards compatible bumps VMGPU_HW_VERSION_MAJOR.
 *
 * Documentation/hardware-interface.rst explains every field.
 */
#ifndef _VMGPU_HW_H_
#define _VMGPU_HW_H_

#if defined(__KERNEL__)
#include <linux/types.h>
typedef __u8 vmgpu_u8;
typedef __u16 vmgpu_u16;
typedef __u32 vmgpu_u32;
typedef __u64 vmgpu_u64;
#else
#include <stdint.h>
typedef uint8_t vmgpu_u8;
typedef uint16_t vmgpu_u16;
typedef uint32_t vmgpu_u32;
typedef uint64_t vmgpu_u64;
#endif

/* ------------------------------------------------------------------ */
/* PCI identity                                                         */
/* ------------------------------------------------------------------ */

#define VMGPU_PCI_VENDOR_ID		0x1234	/* QEMU's test vendor */
#define VMGPU_PCI_DEVICE_ID		0x6d67	/* "mg" */
#define VMGPU_PCI_CLASS			0x0302	/* 3D controller */
#define VMGPU_PCI_REVISION		0x01

/* BAR0: one global page, then one page per GPU. BAR1: MSI-X table. */
#define VMGPU_BAR_MMIO			0
#define VMGPU_BAR_MSIX			1
#define VMGPU_REG_PAGE_SIZE		0x1000
#define VMGPU_MAX_GPUS			8
#define VMGPU_MAX_SMS			64
#define VMGPU_WARP_SIZE			32
/* Global page + VMGPU_MAX_GPUS pages, rounded up to a power of two. */
#define VMGPU_BAR0_SIZE			0x10000
#define VMGPU_GPU_REGS(gpu)		(((gpu) + 1) * VMGPU_REG_PAGE_SIZE)
/* One MSI-X vector per GPU; vector n belongs to GPU n. */
#define VMGPU_MSIX_VECTOR(gpu)		(gpu)

/* Interface version: major changes are incompatible, minor ones add. */
#define VMGPU_HW_MAGIC			0x504d4756	/* "VGMP" in memory order */
#define VMGPU_HW_VERSION_MAJOR		1
#define VMGPU_HW_VERSION_MINOR		6
#define VMGPU_HW_VERSION \
	((VMGPU_HW_VERSION_MAJOR << 16) | VMGPU_HW_VERSION_MINOR)
#define VMGPU_HW_VERSION_MAJOR_OF(v)	((v) >> 16)

/* ------------------------------------------------------------------ */
/* Global register page (BAR0 offset 0)                                 */
/* ------------------------------------------------------------------ */

#define VMGPU_REG_MAGIC			0x000	/* RO */
#define VMGPU_REG_VERSION		0x004	/* RO: VMGPU_HW_VERSION */
#define VMGPU_REG_NUM_GPUS		0x008	/* RO */
#define VMGPU_REG_SMS_PER_GPU		0x00c	/* RO */
#define VMGPU_REG_ISA_VERSION		0x010	/* RO */
#define VMGPU_REG_CAPS			0x014	/* RO: VMGPU_CAP_* */
#define VMGPU_REG_SCRATCH		0x018	/* RW, no side effect */
#define VMGPU_REG_WARP_SIZE		0x01c	/* RO */
#define VMGPU_REG_AS_SLOTS		0x020	/* RO: address-space slots per GPU */
#define VMGPU_REG_RING_MAX_ENTRIES	0x024	/* RO */
#define VMGPU_REG_CMDBUF_MAX_BYTES	0x028	/* RO */
#define VMGPU_REG_MAX_DISPATCHES	0x02c	/* RO: per packet */
#define VMGPU_REG_CLOCK_KHZ		0x030	/* RO: SM clock of the model */
#define VMGPU_REG_LOCAL_MEM_MB		0x034	/* RO: modelled local memory */
#define VMGPU_REG_TRACE_CTRL		0x040	/* RW: VMGPU_TRACE_* */
#define VMGPU_REG_TRACE_ADDR_LO		0x044	/* RW: bus address of trace buffer */
#define VMGPU_REG_TRACE_ADDR_HI		0x048
#define VMGPU_REG_TRACE_SIZE		0x04c	/* RW: bytes */
#define VMGPU_REG_TRACE_WRITTEN		0x050	/* RO: bytes written by the device */

#define VMGPU_CAP_MMU			(1u << 0)
#define VMGPU_CAP_SYNC			(1u << 1)
#define VMGPU_CAP_TIMESTAMP		(1u << 2)
#define VMGPU_CAP_COPY			(1u << 3)
#define VMGPU_CAP_WAIT_VALUE		(1u << 4)
#define VMGPU_CAP_TRACE			(1u << 5)
/* Trace records of kind TMD, and BLOCK records carry wd_slot. */
#define VMGPU_CAP_TRACE_TMD		(1u << 6)
#define VMGPU_CAP_WD_POLICY		(1u << 7)	/* WD_* registers (1.2) */
#define VMGPU_CAP_DEP_TABLES		(1u << 8)	/* DEP_SIGNAL, DEP_WAIT (1.3) */
#define VMGPU_CAP_SKIP_IF		(1u << 9)	/* SKIP_IF (1.3) */
#define VMGPU_CAP_TAKE			(1u << 10)	/* TAKE (1.3) */
#define VMGPU_CAP_COPY_ASYNC		(1u << 11)	/* COPY_ASYNC (1.4) */
/* TIMESTAMP's VMGPU_TIMESTAMP_DISPATCHES (1.5) */
#define VMGPU_CAP_DISPATCH_SPAN		(1u << 12)
/*
 * The instruction budget is per VMGPU_BUDGET_WARPS warps of a dispatch
 * (1.6): a dispatch of more is given the budget once for each such
 * group started, so that the guard stops runaway kernels, not large ones.
 */
#define VMGPU_CAP_BUDGET_PER_WARPS	(1u << 13)
#define VMGPU_BUDGET_WARPS		65536

#define VMGPU_TRACE_ENABLE		(1u << 0)

/* ------------------------------------------------------------------ */
/* Per-GPU register page (BAR0 offset VMGPU_GPU_REGS(gpu))               */
/* ------------------------------------------------------------------ */

#define VMGPU_GPU_RING_BASE_LO		0x000	/* RW: bus address, 4 KiB aligned */
#define VMGPU_GPU_RING_BASE_HI		0x004
#define VMGPU_GPU_RING_ENTRIES		0x008	/* RW: power of two, <= max */
#define VMGPU_GPU_RING_HEAD		0x00c	/* RO: next entry the device fetches */
#define VMGPU_GPU_RING_TAIL		0x010	/* RW: one past the last valid entry */
#define VMGPU_GPU_DOORBELL		0x014	/* WO: any value: tail moved */
#define VMGPU_GPU_FENCE_ADDR_LO		0x018	/* RW: bus address of a u64 */
#define VMGPU_GPU_FENCE_ADDR_HI		0x01c
#define VMGPU_GPU_FENCE_LO		0x020	/* RO: last completed seqno */
#define VMGPU_GPU_FENCE_HI		0x024
#define VMGPU_GPU_INT_STATUS		0x028	/* RO: VMGPU_INT_* pending */
#define VMGPU_GPU_INT_MASK		0x02c	/* RW: 1 = enabled */
#define VMGPU_GPU_INT_ACK		0x030	/* W1C */
#define VMGPU_GPU_CONTROL		0x034	/* RW: VMGPU_CTRL_* */
#define VMGPU_GPU_RESET			0x038	/* WO: 1 = reset this GPU */
#define VMGPU_GPU_STATUS		0x03c	/* RO: VMGPU_STATUS_* */
#define VMGPU_GPU_TIMESTAMP_LO		0x040	/* RO: virtual clock, ns */
#define VMGPU_GPU_TIMESTAMP_HI		0x044
#define VMGPU_GPU_MMU_INVALIDATE	0x048	/* WO: bitmask of slots */
/* Error report, valid while VMGPU_INT_ERROR_MASK bits are pending. */
#define VMGPU_GPU_ERR_CODE		0x050	/* RO: VMGPU_FAULT_* */
#define VMGPU_GPU_ERR_SLOT		0x054	/* RO: address-space slot */
#define VMGPU_GPU_ERR_ADDR_LO		0x058	/* RO: faulting GPU VA */
#define VMGPU_GPU_ERR_ADDR_HI		0x05c
#define VMGPU_GPU_ERR_PC		0x060	/* RO: instruction index */
#define VMGPU_GPU_ERR_SEQNO_LO		0x064	/* RO: ring entry's seqno */
#define VMGPU_GPU_ERR_SEQNO_HI		0x068
#define VMGPU_GPU_ERR_DISPATCH		0x06c	/* RO: dispatch index in packet */
/* Page-table roots, one per address-space slot: bus address, 4 KiB aligned. */
#define VMGPU_GPU_AS_ROOT_LO(slot)	(0x080 + (slot) * 8)
#define VMGPU_GPU_AS_ROOT_HI(slot)	(0x084 + (slot) * 8)
#define VMGPU_AS_SLOTS			8
/* 64-bit counters, read LO first (latches HI). */
#define VMGPU_GPU_CNT_BASE		0x100
#define VMGPU_GPU_CNT_LO(n)		(VMGPU_GPU_CNT_BASE + (n) * 8)
#define VMGPU_GPU_CNT_HI(n)		(VMGPU_GPU_CNT_BASE + (n) * 8 + 4)
enum vmgpu_counter {
	VMGPU_CNT_PACKETS = 0,		/* ring entries completed */
	VMGPU_CNT_DISPATCHES,		/* DISPATCH commands completed */
	VMGPU_CNT_BLOCKS,		/* thread blocks run */
	VMGPU_CNT_WARP_INSTRS,		/* warp instructions issued */
	VMGPU_CNT_THREAD_INSTRS,	/* thread instructions (active lanes) */
	VMGPU_CNT_INTERRUPTS,		/* completion interrupts raised */
	VMGPU_CNT_ERRORS,		/* error interrupts raised */
	VMGPU_CNT_BUSY_NS,		/* virtual time with work on the GPU */
	VMGPU_CNT_TLB_MISSES,
	VMGPU_CNT_BYTES_LOCAL,		/* bytes moved from this GPU's memory */
	VMGPU_CNT_BYTES_LINK,		/* bytes moved over GPU links */
	VMGPU_CNT_BYTES_HOST,		/* bytes moved over the host bus */
	/* 1.2 */
	VMGPU_CNT_MMIO_WRITES,		/* host writes to this GPU's registers */
	VMGPU_CNT_DEVICE_LAUNCHES,	/* child tasks launched by kernels (LAUNCH) */
	VMGPU_CNT_QUEUE_ITEMS,		/* work items appended by kernels (ENQ) */
	VMGPU_CNT_BYTES_REMOTE_READ,	/* bytes kernels read from other GPUs */
	VMGPU_CNT_BYTES_COPY,		/* bytes COPY commands moved */
	/*
	 * Bytes the link between this GPU and GPU k carried, both ways, for
	 * any GPU's transfers (a route crosses every link on its way); 0
	 * where there is no such link. Cleared by a device reset only.
	 */
	VMGPU_CNT_LINK_BYTES0,
	VMGPU_CNT_LINK_BYTES1,
	VMGPU_CNT_LINK_BYTES2,
	VMGPU_CNT_LINK_BYTES3,
	VMGPU_CNT_LINK_BYTES4,
	VMGPU_CNT_LINK_BYTES5,
	VMGPU_CNT_LINK_BYTES6,
	VMGPU_CNT_LINK_BYTES7,
	/* 1.3 */
	VMGPU_CNT_DEP_ENTRIES,		/* dependency entries DEP_SIGNAL wrote */
	VMGPU_CNT_DEP_WAITS,		/* DEP_WAITs that found an entry unready */
	VMGPU_CNT_DEP_WAIT_NS,		/* device time DEP_WAITs waited */
	VMGPU_CNT_NUM
};

/*
 * Work distributor policy (1.2). MODE, SLOTS and SM_ORDER are staging
 * registers: a write only stores the value. Writing COMMIT to WD_CTRL
 * checks the staged set as a whole: if MODE has only known bits, SLOTS is
 * 1..VMGPU_WD_MAX_SLOTS and the first SMS_PER_GPU entries of SM_ORDER are
 * a permutation of the GPU's SMs, it becomes the GPU's policy (entries
 * past the GPU's SMs are stored as 0) and WD_STATUS_PENDING is set until
 * the distributor applies it, between two CTA issues; otherwise it is
 * refused, WD_STATUS_INVALID is set (an accepted commit clears it) and
 * the staging registers read back the policy in force. After a reset the
 * registers hold the device's settings (QOM wd-round-robin,
 * wd-table-slots, SMs in order).
 */
#define VMGPU_GPU_WD_CTRL		0x400	/* WO: VMGPU_WD_CTRL_* */
#define VMGPU_GPU_WD_STATUS		0x404	/* RO: VMGPU_WD_STATUS_* */
#define VMGPU_GPU_WD_MODE		0x408	/* RW: VMGPU_WD_MODE_* */
#define VMGPU_GPU_WD_SLOTS		0x40c	/* RW: task-table slots */
/* SM priority list: entry 4n + k in byte k of register n. */
#define VMGPU_GPU_WD_SM_ORDER(n)	(0x440 + (n) * 4)
#define VMGPU_WD_SM_ORDER_REGS		(VMGPU_MAX_SMS / 4)
#define VMGPU_WD_MAX_SLOTS		128

#define VMGPU_WD_CTRL_COMMIT		(1u << 0)
#define VMGPU_WD_STATUS_PENDING		(1u << 0)	/* not applied yet */
#define VMGPU_WD_STATUS_INVALID		(1u << 1)	/* last commit refused */
#define VMGPU_WD_MODE_ROUND_ROBIN	(1u << 0)	/* else load-balance */
#define VMGPU_WD_MODE_ALL		VMGPU_WD_MODE_ROUND_ROBIN

#define VMGPU_CTRL_ENABLE		(1u << 0)

#define VMGPU_STATUS_IDLE		(1u << 0)
#define VMGPU_STATUS_HALTED		(1u << 1)	/* stopped by an error */

/* Interrupt causes. ERROR bits never mean completion. */
#define VMGPU_INT_COMPLETE		(1u << 0)	/* a flagged entry is done */
#define VMGPU_INT_FAULT			(1u << 1)	/* MMU or alignment fault */
#define VMGPU_INT_ILLEGAL		(1u << 2)	/* bad command or instruction */
#define VMGPU_INT_BUDGET		(1u << 3)	/* instruction budget spent */
#define VMGPU_INT_RING			(1u << 4)	/* bad ring configuration */
#define VMGPU_INT_ERROR_MASK \
	(VMGPU_INT_FAULT | VMGPU_INT_ILLEGAL | VMGPU_INT_BUDGET | VMGPU_INT_RING)

/* Error codes reported in VMGPU_GPU_ERR_CODE. */
enum vmgpu_fault {
	VMGPU_FAULT_NONE = 0,
	VMGPU_FAULT_UNMAPPED,		/* no valid page-table entry */
	VMGPU_FAULT_PERMISSION,		/* write to read-only, or no read */
	VMGPU_FAULT_MISALIGNED,		/* access not aligned to its size */
	VMGPU_FAULT_ILLEGAL_INSTR,	/* undecodable instruction */
	VMGPU_FAULT_BAD_EXECUTABLE,	/* executable header invalid */
	VMGPU_FAULT_BUDGET,		/* per-dispatch instruction budget */
	VMGPU_FAULT_BAD_COMMAND,	/* malformed command word */
	VMGPU_FAULT_RING,		/* ring registers or entry invalid */
	VMGPU_FAULT_PC_RANGE,		/* branch or run past the end of the code */
	/*
	 * (1.2) Device-side work refused: a LAUNCH whose task descriptor is
	 * bad, an ENQ naming no queue task of the packet or a full queue, or
	 * over the per-block or per-packet task limits. ERR_ADDR is the
	 * descriptor's address.
	 */
	VMGPU_FAULT_TASK,
	VMGPU_FAULT_NUM
};

/* ------------------------------------------------------------------ */
/* Ring entry: 32 bytes, in the ring at RING_BASE (bus addresses)         */
/* ------------------------------------------------------------------ */

struct vmgpu_ring_entry {
	vmgpu_u64 cmdbuf_va;		/* GPU VA in the entry's address space */
	vmgpu_u32 cmdbuf_bytes;		/* multiple of 4, <= CMDBUF_MAX_BYTES */
	vmgpu_u32 flags;		/* VMGPU_RING_F_* */
	vmgpu_u64 seqno;		/* written to FENCE_ADDR when done */
	vmgpu_u32 as_slot;		/* < VMGPU_AS_SLOTS */
	/*
	 * The most urgent distributor level the packet's tasks may take
	 * (1.1): any more urgent priority counts as this one. 0: no limit;
	 * at most VMGPU_PRIORITY_LEVELS - 1.
	 */
	vmgpu_u16 min_level;
	/*
	 * (1.2) The level of the packet's tasks that give priority 0
	 * (dispatches, task descriptors, children) until a SET_STATE
	 * DEFAULT_PRIORITY: 0 (none: they take min_level), else min_level..
	 * VMGPU_PRIORITY_LEVELS - 1. Was the high half of a 1.1 min_level,
	 * always 0 there.
	 */
	vmgpu_u16 default_level;
};

#define VMGPU_RING_ENTRY_SIZE		32
#define VMGPU_RING_F_IRQ		(1u << 0)	/* interrupt when done */
#define VMGPU_RING_F_ALL		VMGPU_RING_F_IRQ
#define VMGPU_RING_MAX_ENTRIES		1024

/* ------------------------------------------------------------------ */
/* Command packet: a stream of 32-bit words                               */
/* ------------------------------------------------------------------ */

/*
 * Every command starts with a header word: bits 0..7 opcode, bits 16..31
 * the command's total length in words including the header. Lengths are
 * fixed per opcode (VMGPU_CMD_LEN_*); anything else is an illegal command.
 */
#define VMGPU_CMD_HDR(op, len)		((vmgpu_u32)(op) | ((vmgpu_u32)(len) << 16))
#define VMGPU_CMD_OP(hdr)		((hdr) & 0xff)
#define VMGPU_CMD_LEN(hdr)		((hdr) >> 16)
#define VMGPU_CMD_RESERVED_MASK		0x0000ff00u

/*
 * X(NAME, opcode, struct): every command, the one table of them. A
 * command is exactly as long as its struct; vmgpu_cmd.h derives lengths,
 * names and the checks from this table.
 */
#define VMGPU_CMD_TABLE(X) \
	X(NOP, 0x00, vmgpu_cmd_nop) \
	X(SET_STATE, 0x01, vmgpu_cmd_set_state) \
	X(DISPATCH, 0x02, vmgpu_cmd_dispatch) \
	X(SYNC, 0x03, vmgpu_cmd_sync) \
	X(BARRIER, 0x04, vmgpu_cmd_barrier) \
	X(TIMESTAMP, 0x05, vmgpu_cmd_timestamp) \
	X(WRITE_VALUE, 0x06, vmgpu_cmd_write_value) \
	X(WAIT_VALUE, 0x07, vmgpu_cmd_wait_value) \
	X(COPY, 0x08, vmgpu_cmd_copy) \
	X(LAUNCH_TMD, 0x09, vmgpu_cmd_launch_tmd) \
	X(DEP_SIGNAL, 0x0a, vmgpu_cmd_dep_signal) \
	X(DEP_WAIT, 0x0b, vmgpu_cmd_dep_wait) \
	X(SKIP_IF, 0x0c, vmgpu_cmd_skip_if) \
	X(TAKE, 0x0d, vmgpu_cmd_take) \
	X(COPY_ASYNC, 0x0e, vmgpu_cmd_copy_async) \
	X(END, 0x0f, vmgpu_cmd_end)

enum vmgpu_cmd_op {
#define VMGPU_CMD_X_ENUM(name, code, type) VMGPU_CMD_##name = (code),
	VMGPU_CMD_TABLE(VMGPU_CMD_X_ENUM)
#undef VMGPU_CMD_X_ENUM
	VMGPU_CMD_NUM_OPS
};

/* NOP: header only. */
struct vmgpu_cmd_nop {
	vmgpu_u32 hdr;
};

/* SET_STATE: header, key, value. */
struct vmgpu_cmd_set_state {
	vmgpu_u32 hdr;
	vmgpu_u32 key;			/* VMGPU_STATE_* */
	vmgpu_u32 value;
};

/*
 * The state keys, X(NAME, code), defined once for the checker, the
 * device, names and tools:
 * - INSTR_BUDGET: warp instructions a dispatch may issue; 0 restores the
 *   default.
 * - DEFAULT_PRIORITY: priority of following tasks that give priority 0;
 *   0: the ring entry's default_level.
 * - LAUNCH_QUOTA (1.1): launch quota of following dispatches, blocks per
 *   turn among tasks of equal priority; 0: none.
 * - SM_MASK_LO/HI (1.1): SM affinity of following dispatches, SMs 0..31
 *   and 32..63; 0: all.
 */
#define VMGPU_STATE_TABLE(X) \
	X(INSTR_BUDGET, 1) \
	X(DEFAULT_PRIORITY, 2) \
	X(LAUNCH_QUOTA, 3) \
	X(SM_MASK_LO, 4) \
	X(SM_MASK_HI, 5)

enum vmgpu_state_key {
#define VMGPU_STATE_X_ENUM(name, code) VMGPU_STATE_##name = (code),
	VMGPU_STATE_TABLE(VMGPU_STATE_X_ENUM)
#undef VMGPU_STATE_X_ENUM
};

/*
 * DISPATCH: one workload. Block (x, y, z) of the grid runs with
 * blockIdx = origin + (x, y, z), so a portion of a larger index space keeps
 * the indices of the whole.
 */
struct vmgpu_cmd_dispatch {
	vmgpu_u32 hdr;
	vmgpu_u32 flags;		/* VMGPU_DISPATCH_F_*; unknown bits illegal */
	vmgpu_u64 code_va;		/* executable (struct vmgpu_exec_header) */
	vmgpu_u64 args_va;		/* argument block, 0 if none */
	vmgpu_u32 args_bytes;		/* must equal the executable's */
	vmgpu_u32 grid[3];		/* blocks per dimension, each >= 1 */
	vmgpu_u32 block[3];		/* threads per dimension, product <= 1024 */
	vmgpu_u32 origin[3];		/* block index offset of this portion */
	vmgpu_u32 grid_total[3];	/* whole index space, in blocks */
	vmgpu_u32 shared_bytes;		/* dynamic shared memory per block */
	vmgpu_u32 priority;		/* 0 = default; lower = more urgent */
	vmgpu_u32 reserved;		/* must be zero */
};

/* Enter the work distributor's pending list at the head (SPEC W1). */
#define VMGPU_DISPATCH_F_HEAD		(1u << 0)
/* At most one block of the dispatch in flight (SPEC W3). */
#define VMGPU_DISPATCH_F_SEQUENTIAL	(1u << 1)
/*
 * Throttle work (SPEC W6): runs alone, after the other work drained, on a
 * subset of the SMs with larger shared-memory portions.
 */
#define VMGPU_DISPATCH_F_THROTTLE	(1u << 2)
#define VMGPU_DISPATCH_F_ALL \
	(VMGPU_DISPATCH_F_HEAD | VMGPU_DISPATCH_F_SEQUENTIAL | \
	 VMGPU_DISPATCH_F_THROTTLE)
/*
 * (1.2) In a task descriptor only (struct vmgpu_tmd_queue): a queue task,
 * whose blocks are made from the work items kernels append to it (ENQ).
 */
#define VMGPU_TMD_F_QUEUE		(1u << 8)
#define VMGPU_TMD_F_ALL			(VMGPU_DISPATCH_F_ALL | VMGPU_TMD_F_QUEUE)
#define VMGPU_MAX_BLOCK_THREADS		1024
#define VMGPU_MAX_SHARED_BYTES		(48 * 1024)
#define VMGPU_MAX_ARGS_BYTES		4096
#define VMGPU_MAX_GRID_BLOCKS		(1u << 24)	/* grid[0] * grid[1] * grid[2] */

/*
 * SYNC: dispatch @consumer (index in this packet, counted from 0 in stream
 * order) starts only after dispatch @producer finished and its writes are
 * visible. producer < consumer; producer must precede the SYNC in the
 * stream and consumer must follow it.
 */
struct vmgpu_cmd_sync {
	vmgpu_u32 hdr;
	vmgpu_u32 consumer;
	vmgpu_u32 producer;
};

/*
 * BARRIER: later commands wait until every earlier dispatch finished and
 * (1.4) every earlier COPY_ASYNC landed.
 */
struct vmgpu_cmd_barrier {
	vmgpu_u32 hdr;
};

/*
 * TIMESTAMP: write the GPU's virtual clock (u64 ns) to @va.
 *
 * (1.5) With VMGPU_TIMESTAMP_DISPATCHES in @flags it writes instead two
 * u64 at @va (16-byte aligned): the device time (ns) the first block of
 * the work was issued and the time its last block finished, where the
 * work is every dispatch (and device-launched task) of the packet that
 * finished since the packet's previous such TIMESTAMP; 0, 0 if none did.
 * After a BARRIER that is the span of the dispatches before it, exactly
 * as the trace's DISPATCH records give it: what a profiler calls a
 * kernel's start and end, without the command processor's own time.
 */
#define VMGPU_TIMESTAMP_DISPATCHES	(1u << 0)
struct vmgpu_cmd_timestamp {
	vmgpu_u32 hdr;
	vmgpu_u32 flags;		/* VMGPU_TIMESTAMP_*; was reserved */
	vmgpu_u64 va;			/* 8-byte aligned; 16 with DISPATCHES */
};

/* WRITE_VALUE: store a 32-bit value at @va. */
struct vmgpu_cmd_write_value {
	vmgpu_u32 hdr;
	vmgpu_u32 value;
	vmgpu_u64 va;			/* 4-byte aligned */
};

/* WAIT_VALUE: stall the command processor until (*va & mask) OP value. */
struct vmgpu_cmd_wait_value {
	vmgpu_u32 hdr;
	vmgpu_u32 op;			/* VMGPU_WAIT_* */
	vmgpu_u64 va;			/* 4-byte aligned */
	vmgpu_u32 value;
	vmgpu_u32 mask;
};

enum vmgpu_wait_op {
	VMGPU_WAIT_EQ = 0,
	VMGPU_WAIT_NE,
	VMGPU_WAIT_GE,			/* unsigned */
	VMGPU_WAIT_GT,
	VMGPU_WAIT_LE,
	VMGPU_WAIT_LT,
	VMGPU_WAIT_NUM_OPS
};

/* COPY: @height rows of @width_bytes, each row at its pitch. */
struct vmgpu_cmd_copy {
	vmgpu_u32 hdr;
	vmgpu_u32 width_bytes;
	vmgpu_u64 src_va;
	vmgpu_u64 dst_va;
	vmgpu_u32 height;		/* 1 for a linear copy */
	vmgpu_u32 src_pitch;
	vmgpu_u32 dst_pitch;
	vmgpu_u32 reserved;		/* must be zero */
};

/*
 * LAUNCH_TMD (1.1): a dispatch whose task descriptor (struct vmgpu_tmd)
 * the device reads from memory when the command runs, so the device, a
 * kernel or another GPU can prepare it. It counts as a dispatch of the
 * packet (SYNC may name it).
 */
struct vmgpu_cmd_launch_tmd {
	vmgpu_u32 hdr;
	vmgpu_u32 reserved;		/* must be zero */
	vmgpu_u64 tmd_va;		/* 8-byte aligned */
};

/*
 * A task descriptor in memory (SPEC W3), 96 bytes, little-endian: the
 * fields of a DISPATCH plus the per-task options the command stream
 * otherwise gives as flags and state. Checked by the device when it is
 * launched, by the rules of a DISPATCH; a bad one fails the packet with
 * VMGPU_FAULT_BAD_COMMAND at its address.
 */
struct vmgpu_tmd {
	vmgpu_u64 code_va;
	vmgpu_u64 args_va;
	vmgpu_u32 args_bytes;
	vmgpu_u32 flags;		/* VMGPU_DISPATCH_F_* */
	vmgpu_u32 grid[3];
	vmgpu_u32 block[3];
	vmgpu_u32 origin[3];
	vmgpu_u32 grid_total[3];
	vmgpu_u32 shared_bytes;
	vmgpu_u32 priority;		/* 0: the packet's default */
	vmgpu_u32 quota;		/* launch quota, 0: none */
	vmgpu_u32 reserved;		/* must be zero */
	vmgpu_u64 sm_mask;		/* affinity, 0: all SMs */
};

/*
 * A queue task's descriptor (1.2, flags has VMGPU_TMD_F_QUEUE): the same
 * 96 bytes, with the grid fields giving the queue instead. Kernels append
 * 32-bit work items with ENQ naming the descriptor's address; the device
 * stores item i at items_va + 4 * i and makes a block of the task from
 * every @coalesce items, or from the 1..coalesce - 1 items waiting when
 * the oldest of them has waited @coalesce_timeout_ns. A block reads its
 * items' range from the ITEM_BASE and ITEM_COUNT special registers; its
 * CTAID_X counts the task's blocks from 0. The task ends when the packet's
 * BARRIER or END finds nothing of the packet running and no item waiting.
 */
struct vmgpu_tmd_queue {
	vmgpu_u64 code_va;
	vmgpu_u64 args_va;
	vmgpu_u32 args_bytes;
	vmgpu_u32 flags;		/* VMGPU_TMD_F_QUEUE | VMGPU_DISPATCH_F_* */
	vmgpu_u64 items_va;		/* 4-byte aligned, capacity * 4 bytes */
	vmgpu_u32 capacity;		/* items over the task's life, >= 1 */
	vmgpu_u32 block[3];
	vmgpu_u32 coalesce;		/* items per block, 1..MAX_COALESCE */
	vmgpu_u32 coalesce_timeout_ns;	/* <= VMGPU_MAX_COALESCE_TIMEOUT_NS */
	vmgpu_u32 reserved0[4];		/* must be zero */
	vmgpu_u32 shared_bytes;
	vmgpu_u32 priority;
	vmgpu_u32 quota;
	vmgpu_u32 reserved;		/* must be zero */
	vmgpu_u64 sm_mask;
};

#define VMGPU_TMD_BYTES			96
#define VMGPU_PRIORITY_LEVELS		16
#define VMGPU_MAX_QUEUE_ITEMS		(1u << 24)
#define VMGPU_MAX_COALESCE		1024
#define VMGPU_MAX_COALESCE_TIMEOUT_NS	10000000
/*
 * Tasks in one packet: its DISPATCH and LAUNCH_TMD commands (at most
 * VMGPU_MAX_DISPATCHES_PER_PACKET) and the child tasks its kernels launch.
 */
#define VMGPU_MAX_TASKS_PER_PACKET	1024
/* LAUNCH and ENQ one block may do (one per active lane each time). */
#define VMGPU_MAX_BLOCK_WORK		4096

/*
 * Region dependencies between GPUs (SPEC R2, R3; 1.3). A dependency table
 * is an array of 8-byte entries in GPU memory (struct vmgpu_dep_entry and
 * its epoch rule, uapi/vmgpu_region.h); @entries is its length, every
 * index a command names is below it.
 *
 * DEP_SIGNAL arms a signal on dispatch @dispatch of this packet, a later
 * DISPATCH or LAUNCH_TMD (not a queue task). That dispatch's index space
 * (grid_total) is cut into regions of @region blocks per dimension (the
 * last region of a dimension may be shorter); region r of the region grid
 * ceil(grid_total / region) has entry @first_index + r (linear, x
 * fastest). The dispatch must cover whole regions (its origin a multiple
 * of @region, its end one too or the end of the index space), at most
 * VMGPU_DEP_MAX_SIGNAL_REGIONS of them; when every block of the dispatch
 * in a region has finished and its stores reached memory, the device
 * writes the region's entry as one 64-bit store: @epoch, this GPU, READY.
 * @region equal to the dispatch's grid gives one entry per portion
 * (coarse); smaller regions release consumers earlier (fine). A fault
 * writing an entry fails the packet like a store of the dispatch.
 */
struct vmgpu_cmd_dep_signal {
	vmgpu_u32 hdr;
	vmgpu_u32 dispatch;		/* a later dispatch of this packet */
	vmgpu_u32 epoch;		/* not 0 */
	vmgpu_u32 first_index;
	vmgpu_u64 table_va;		/* 8-byte aligned */
	vmgpu_u32 entries;		/* table length, >= 1 */
	vmgpu_u32 region[3];		/* blocks per region, each >= 1 */
};

/*
 * DEP_WAIT: the command processor stalls (earlier dispatches run on)
 * until every entry the consumer portions need is READY in @epoch. The
 * consumer portions are the box @cfirst + [0, @ccount) of the grid
 * @cgrid; each needs the producer entries @map (struct vmgpu_region_map,
 * 40 bytes, uapi/vmgpu_region.h) gives it in the producer grid @pgrid,
 * whose portion p is entry @first_index + p of the table. It checks
 * exactly those entries, reading memory only: no interrupt, no register.
 * It continues no earlier than the device time the last of them was
 * written (device-model.rst, "Device time across GPUs").
 */
struct vmgpu_cmd_dep_wait {
	vmgpu_u32 hdr;
	vmgpu_u32 epoch;		/* not 0 */
	vmgpu_u32 first_index;
	vmgpu_u32 entries;		/* table length */
	vmgpu_u64 table_va;		/* 8-byte aligned */
	vmgpu_u32 pgrid[3];		/* producer grid (portions or regions) */
	vmgpu_u32 cgrid[3];		/* consumer grid */
	vmgpu_u32 cfirst[3];		/* consumer box */
	vmgpu_u32 ccount[3];
	vmgpu_u32 map[10];		/* struct vmgpu_region_map */
};

#define VMGPU_DEP_MAX_SIGNAL_REGIONS	4096	/* regions of one dispatch */
#define VMGPU_DEP_MAX_SIGNALS		256	/* DEP_SIGNALs in one packet */
#define VMGPU_DEP_MAX_WAIT_PORTIONS	1024	/* consumer box of a DEP_WAIT */

/*
 * SKIP_IF (1.3): device-side control flow. The command processor first
 * waits until dispatch @after of this packet (an earlier one) is done
 * and its stores are visible, like a SYNC consumer (VMGPU_SKIP_IF_NOW:
 * no wait; earlier dispatches run on either way). Then it reads the
 * 32-bit word at @va, as WAIT_VALUE does, once: if (word & @mask) OP
 * @value holds, the next @skip commands are not run (0: none; the CP
 * only steps over them, forward, so a packet still ends). The skipped
 * commands are counted in commands, not words, and END is never among
 * them. A skipped DISPATCH or LAUNCH_TMD keeps its index and counts as
 * done at once: a SYNC naming it as producer is satisfied, a SKIP_IF
 * waiting for it goes on, it signals nothing. A skipped SYNC, BARRIER,
 * DEP_SIGNAL or SET_STATE has no effect. A SKIP_IF is refused while a
 * DEP_SIGNAL names a dispatch not yet reached (its regions could never
 * be written).
 */
struct vmgpu_cmd_skip_if {
	vmgpu_u32 hdr;
	vmgpu_u32 op;			/* VMGPU_WAIT_* */
	vmgpu_u64 va;			/* 4-byte aligned */
	vmgpu_u32 value;
	vmgpu_u32 mask;
	vmgpu_u32 after;		/* an earlier dispatch, or _NOW */
	vmgpu_u32 skip;			/* commands after this one */
};

#define VMGPU_SKIP_IF_NOW		0xffffffffu

/*
 * TAKE (1.3): dynamic allocation of a kernel's portions (SPEC R7). The
 * kernel is the task descriptor at @tmd_va (a struct vmgpu_tmd, not a
 * queue) whose grid is the portion size; its index space, grid_total, is
 * cut into the portion grid @pgrid (ceil(grid_total / grid) per
 * dimension), portion p covering blocks p * grid on (the last ones
 * shorter). The GPU walks its curve (@curve: a struct vmgpu_curve, here
 * SERPENTINE only) and claims each portion by an atomic exchange of
 * @epoch into its take word at @take_va + 4 * p (vmgpu_alloc_next(),
 * uapi/vmgpu_region.h): a portion whose word already held @epoch was
 * taken by another GPU and is skipped. It runs the portions it took, at
 * most @inflight at once, each as a task of the packet; a portion waits
 * first, unless @wait_index is VMGPU_TAKE_NO_WAIT, for the entries @map
 * gives it in the grid @pgrid (producer entry q at @wait_index + q of the
 * table), and writes entry @signal_index + p READY when its blocks are
 * done. The command ends when the curve is walked and every portion it
 * took is done; each portion of the grid is run by exactly one GPU.
 */
struct vmgpu_cmd_take {
	vmgpu_u32 hdr;
	vmgpu_u32 epoch;		/* not 0 */
	vmgpu_u64 tmd_va;		/* 8-byte aligned */
	vmgpu_u64 take_va;		/* 4-byte aligned, 4 bytes a portion */
	vmgpu_u64 table_va;		/* 8-byte aligned */
	vmgpu_u32 entries;		/* table length */
	vmgpu_u32 signal_index;
	vmgpu_u32 wait_index;		/* or VMGPU_TAKE_NO_WAIT */
	vmgpu_u32 inflight;		/* 1..VMGPU_TAKE_MAX_INFLIGHT */
	vmgpu_u32 pgrid[3];
	vmgpu_u32 curve[6];		/* struct vmgpu_curve */
	vmgpu_u32 map[10];		/* struct vmgpu_region_map */
};

#define VMGPU_TAKE_NO_WAIT		0xffffffffu
#define VMGPU_TAKE_MAX_INFLIGHT		64

/*
 * COPY_ASYNC (1.4): a COPY the command processor hands to the GPU's copy
 * engine and does not wait for (SPEC R6, R8). The engine runs its queue
 * (VMGPU_COPY_QUEUE_DEPTH copies; a CP that finds it full waits for a
 * slot) in order, one copy at a time, with the COPY's rules and pricing.
 * With VMGPU_COPY_AFTER_ENTRY a copy starts only once dependency-table
 * entry @after_index of @after_table is READY in @epoch, and no earlier
 * than it was written (so a region is pushed as soon as it is done);
 * with VMGPU_COPY_SIGNAL_ENTRY it writes entry @signal_index of
 * @signal_table (@epoch, this GPU, READY) when its bytes have landed (so
 * a reader's DEP_WAIT waits for exactly the data it reads). With
 * VMGPU_COPY_REPLICATE the copy is in place (@src_va == @dst_va, equal
 * pitches): it brings the pages it covers into this GPU's memory as read
 * replicas for the rest of the packet, so this GPU's reads of them are
 * local once it has landed and remote (from the pages' home) before:
 * the hybrid of SPEC R6. Writes still go to the home. A COPY waits
 * for the copies queued before it; BARRIER and END wait for every one. A
 * fault of an asynchronous copy fails the packet at the COPY_ASYNC's word.
 * Unused table fields are zero.
 */
struct vmgpu_cmd_copy_async {
	vmgpu_u32 hdr;
	vmgpu_u32 width_bytes;
	vmgpu_u64 src_va;
	vmgpu_u64 dst_va;
	vmgpu_u32 height;		/* 1 for a linear copy */
	vmgpu_u32 src_pitch;
	vmgpu_u32 dst_pitch;
	vmgpu_u32 flags;		/* VMGPU_COPY_* */
	vmgpu_u64 after_table;		/* AFTER_ENTRY: 8-byte aligned */
	vmgpu_u64 signal_table;		/* SIGNAL_ENTRY: 8-byte aligned */
	vmgpu_u32 epoch;		/* not 0 if a flag is set */
	vmgpu_u32 after_index;
	vmgpu_u32 signal_index;
	vmgpu_u32 reserved;		/* must be zero */
};

#define VMGPU_COPY_AFTER_ENTRY		(1u << 0)
#define VMGPU_COPY_SIGNAL_ENTRY		(1u << 1)
#define VMGPU_COPY_REPLICATE		(1u << 2)
#define VMGPU_COPY_FLAGS_ALL		(VMGPU_COPY_AFTER_ENTRY | \
					 VMGPU_COPY_SIGNAL_ENTRY | \
					 VMGPU_COPY_REPLICATE)
/* Replica pages a GPU keeps per packet; past it a page stays remote. */
#define VMGPU_COPY_MAX_REPLICA_PAGES	4096
#define VMGPU_COPY_QUEUE_DEPTH		64

/* END: end-of-packet barrier; the fence is written after it. */
struct vmgpu_cmd_end {
	vmgpu_u32 hdr;
};

#define VMGPU_CMD_LEN_NOP		(sizeof(struct vmgpu_cmd_nop) / 4)
#define VMGPU_CMD_LEN_SET_STATE		(sizeof(struct vmgpu_cmd_set_state) / 4)
#define VMGPU_CMD_LEN_DISPATCH		(sizeof(struct vmgpu_cmd_dispatch) / 4)
#define VMGPU_CMD_LEN_SYNC		(sizeof(struct vmgpu_cmd_sync) / 4)
#define VMGPU_CMD_LEN_BARRIER		(sizeof(struct vmgpu_cmd_barrier) / 4)
#define VMGPU_CMD_LEN_TIMESTAMP		(sizeof(struct vmgpu_cmd_timestamp) / 4)
#define VMGPU_CMD_LEN_WRITE_VALUE	(sizeof(struct vmgpu_cmd_write_value) / 4)
#define VMGPU_CMD_LEN_WAIT_VALUE	(sizeof(struct vmgpu_cmd_wait_value) / 4)
#define VMGPU_CMD_LEN_COPY		(sizeof(struct vmgpu_cmd_copy) / 4)
#define VMGPU_CMD_LEN_END		(sizeof(struct vmgpu_cmd_end) / 4)
#define VMGPU_CMD_LEN_LAUNCH_TMD	(sizeof(struct vmgpu_cmd_launch_tmd) / 4)
#define VMGPU_CMD_LEN_DEP_SIGNAL	(sizeof(struct vmgpu_cmd_dep_signal) / 4)
#define VMGPU_CMD_LEN_DEP_WAIT		(sizeof(struct vmgpu_cmd_dep_wait) / 4)
#define VMGPU_CMD_LEN_SKIP_IF		(sizeof(struct vmgpu_cmd_skip_if) / 4)
#define VMGPU_CMD_LEN_TAKE		(sizeof(struct vmgpu_cmd_take) / 4)
#define VMGPU_CMD_LEN_COPY_ASYNC	(sizeof(struct vmgpu_cmd_copy_async) / 4)

#define VMGPU_CMDBUF_MAX_BYTES		(256 * 1024)
#define VMGPU_MAX_DISPATCHES_PER_PACKET	256

/* ------------------------------------------------------------------ */
/* GPU page tables                                                        */
/* ------------------------------------------------------------------ */

/*
 * 39-bit GPU virtual addresses, 4 KiB pages, three levels of 512 eight-byte
 * entries (L2 -> L1 -> L0). Page tables live in system memory at bus
 * addresses. A leaf (L0) entry maps one page; its location field tells
 * where the page lives, which prices every access to it.
 */
#define VMGPU_PAGE_SHIFT		12
#define VMGPU_PAGE_SIZE			(1u << VMGPU_PAGE_SHIFT)
#define VMGPU_VA_BITS			39
#define VMGPU_PT_LEVELS			3
#define VMGPU_PT_ENTRIES		512
#define VMGPU_PT_INDEX(va, level) \
	(((va) >> (VMGPU_PAGE_SHIFT + 9 * (level))) & (VMGPU_PT_ENTRIES - 1))

#define VMGPU_PTE_VALID			(1ull << 0)
#define VMGPU_PTE_READ			(1ull << 1)	/* leaf only */
#define VMGPU_PTE_WRITE			(1ull << 2)	/* leaf only */
#define VMGPU_PTE_LOC_SHIFT		4		/* leaf only */
#define VMGPU_PTE_LOC_MASK		(0xfull << VMGPU_PTE_LOC_SHIFT)
#define VMGPU_PTE_ADDR_MASK		0x000ffffffffff000ull
/* Location: 0 = system memory, 1 + k = local memory of GPU k. */
#define VMGPU_LOC_SYSTEM		0
#define VMGPU_LOC_GPU(k)		(1 + (k))
#define VMGPU_LOC_COUNT			(1 + VMGPU_MAX_GPUS)
#define VMGPU_PTE_LOC(loc)		((vmgpu_u64)(loc) << VMGPU_PTE_LOC_SHIFT)

/* ------------------------------------------------------------------ */
/* Device trace records (VMGPU_CAP_TRACE)                                 */
/* ------------------------------------------------------------------ */

/*
 * With VMGPU_TRACE_ENABLE set in VMGPU_REG_TRACE_CTRL, the device appends
 * one record per traced event by DMA to the buffer at TRACE_ADDR (bus
 * address, TRACE_SIZE bytes). Setting ENABLE (from clear) restarts at
 * offset 0; the device stops when the next record would not fit and
 * counts the records it dropped in TRACE_DROPPED. TRACE_WRITTEN is the
 * number of bytes written so far (a multiple of the record size).
 * Records appear in the device's event order; times are device time in ns.
 */
#define VMGPU_REG_TRACE_DROPPED		0x054	/* RO: records not written */

enum vmgpu_trace_kind {
	VMGPU_TRACE_CMD = 1,		/* a command on the CP: aux = opcode */
	VMGPU_TRACE_BLOCK,		/* a thread block on an SM */
	VMGPU_TRACE_DISPATCH,		/* first block issued .. last done */
	VMGPU_TRACE_PACKET,		/* ring entry fetched .. fence written */
	VMGPU_TRACE_ERROR,		/* instant: aux = VMGPU_FAULT_* */
	VMGPU_TRACE_IRQ,		/* instant: aux = VMGPU_INT_* raised */
	VMGPU_TRACE_TMD,		/* instant: aux = VMGPU_TRACE_TMD_* */
	VMGPU_TRACE_LINK,		/* a transfer over GPU links, see below */
	VMGPU_TRACE_NUM_KINDS
};

/*
 * A TMD record (VMGPU_CAP_TRACE_TMD) marks a state change of a task in
 * the GPU's work distributor: dispatch = the task's dispatch index, block
 * = its resume location (first block not issued), wd_slot = its
 * task-table slot + 1 (0 while pending), value = its priority level,
 * value2 = the times it has been evicted so far.
 */
enum vmgpu_trace_tmd_state {
	VMGPU_TRACE_TMD_PENDING = 1,	/* submitted: in its pending list */
	VMGPU_TRACE_TMD_TABLE,		/* allocated a task-table slot */
	VMGPU_TRACE_TMD_EVICTED,	/* left its slot for a more urgent one */
	VMGPU_TRACE_TMD_RESUMED,	/* back in a slot after an eviction */
	VMGPU_TRACE_TMD_DONE,		/* left the table: last block done */
	VMGPU_TRACE_TMD_REMOVED,	/* abandoned (packet failed or reset) */
};

/*
 * A LINK record is one transfer of the record's GPU over GPU-GPU links
 * (a block's or a copy's remote bytes, or a command buffer fetched from
 * another GPU): start_ns..end_ns on the links, aux = VMGPU_TRACE_LINK_AUX
 * (the other GPU, the number of links crossed), value = bytes.
 */
#define VMGPU_TRACE_LINK_AUX(peer, hops)	((peer) | (hops) << 8)
#define VMGPU_TRACE_LINK_PEER(aux)		((aux) & 0xff)
#define VMGPU_TRACE_LINK_HOPS(aux)		(((aux) >> 8) & 0xff)

#define VMGPU_TRACE_SM_NONE		0xffff	/* not on an SM (CP) */
#define VMGPU_TRACE_NONE		0xffffffffu	/* no dispatch/block */

struct vmgpu_trace_record {		/* 64 bytes, little-endian */
	vmgpu_u64 start_ns;
	vmgpu_u64 end_ns;		/* == start_ns for instant records */
	vmgpu_u64 seqno;		/* ring entry's seqno */
	vmgpu_u8 kind;			/* VMGPU_TRACE_* */
	vmgpu_u8 gpu;
	vmgpu_u16 sm;			/* or VMGPU_TRACE_SM_NONE */
	vmgpu_u32 dispatch;		/* index in the packet, or _NONE */
	vmgpu_u32 block;		/* linear block index, or _NONE */
	vmgpu_u32 aux;			/* kind-specific, see above */
	vmgpu_u32 as_slot;
	vmgpu_u32 wd_slot;		/* BLOCK, TMD: task-table slot + 1; 0: none */
	vmgpu_u64 value;		/* BLOCK: warp instructions; CMD COPY: bytes */
	vmgpu_u64 value2;		/* BLOCK: global bytes moved */
};

#define VMGPU_TRACE_RECORD_SIZE		64

#endif /* _VMGPU_HW_H_ */
