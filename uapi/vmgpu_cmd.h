/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * vmgpu command packets: lengths and names from the command table of
 * vmgpu_hw.h, and the one set of rules a command must follow that can be
 * checked from its words alone.
 *
 * Used by the driver's validator (which adds what needs the submit's
 * buffer list: every address inside a listed buffer), the device's
 * decoder (which refuses the same packets), the library's builder (which
 * refuses a bad command before the ioctl, with the rule's text) and the
 * tests. Documentation/hardware-interface.rst lists the rules.
 */
#ifndef _VMGPU_CMD_H_
#define _VMGPU_CMD_H_

#include "vmgpu_hw.h"
#include "vmgpu_isa.h"
#include "vmgpu_region.h"

#if defined(__KERNEL__)
#include <linux/stddef.h>
#include <asm/unaligned.h>
#define vmgpu_cmd_ld32(p)	get_unaligned_le32(p)
#else
#include <endian.h>
#include <stddef.h>
#include <string.h>
static inline vmgpu_u32 vmgpu_cmd_ld32(const void *p)
{
	vmgpu_u32 v;

	memcpy(&v, p, sizeof(v));
	return vmgpu_le32_to_host(v);
}
#endif

#define VMGPU_CMD_X_LEN(name, code, type) \
	[code] = sizeof(struct type) / 4,
#define VMGPU_CMD_X_NAME(name, code, type) \
	[code] = #name,

/* Length in words of opcode @op, 0 if there is no such command. */
static inline vmgpu_u32 vmgpu_cmd_len(vmgpu_u32 op)
{
	static const vmgpu_u8 lens[VMGPU_CMD_NUM_OPS] = {
		VMGPU_CMD_TABLE(VMGPU_CMD_X_LEN)
	};

	return op < VMGPU_CMD_NUM_OPS ? lens[op] : 0;
}

/* Mnemonic of opcode @op, NULL if there is no such command. */
static inline const char *vmgpu_cmd_name(vmgpu_u32 op)
{
	static const char *const names[VMGPU_CMD_NUM_OPS] = {
		VMGPU_CMD_TABLE(VMGPU_CMD_X_NAME)
	};

	return op < VMGPU_CMD_NUM_OPS ? names[op] : NULL;
}

#undef VMGPU_CMD_X_LEN
#undef VMGPU_CMD_X_NAME

/* Header word of a command of opcode @op with its table length. */
#define VMGPU_CMD_HEADER(op)	VMGPU_CMD_HDR((op), vmgpu_cmd_len(op))

/* Word @field of a command of struct @type at @cmd, in host order. */
#define VMGPU_CMD_U32(cmd, type, field) \
	vmgpu_cmd_ld32((const vmgpu_u8 *)(cmd) + offsetof(struct type, field))
#define VMGPU_CMD_U64(cmd, type, field) \
	(VMGPU_CMD_U32(cmd, type, field) | \
	 (vmgpu_u64)vmgpu_cmd_ld32((const vmgpu_u8 *)(cmd) + \
				  offsetof(struct type, field) + 4) << 32)

/*
 * A packet is checked command by command, in stream order; this is what
 * the rules need to remember between commands.
 */
struct vmgpu_cmd_checker {
	vmgpu_u32 max_dispatches;	/* in: DISPATCH commands allowed */
	vmgpu_u32 dispatches;		/* DISPATCH commands so far */
	vmgpu_u32 word;			/* offset of the next command */
	vmgpu_u32 consumer;		/* highest SYNC consumer + 1, or 0 */
	vmgpu_u32 consumer_word;	/* where that SYNC is */
	vmgpu_u32 ended;		/* END seen */
	vmgpu_u32 signals;		/* DEP_SIGNAL commands so far */
	vmgpu_u32 cmds;			/* commands so far */
	vmgpu_u32 skip_end;		/* SKIP_IF: first command not skipped */
	vmgpu_u32 signal_next;		/* highest DEP_SIGNAL dispatch + 1 */
	/* A rejection for a limit: the offending value and the limit. */
	vmgpu_u64 value;
	vmgpu_u64 limit;
};

enum vmgpu_cmd_verdict {
	VMGPU_CMD_OK = 0,
	VMGPU_CMD_ILLEGAL,		/* malformed command */
	VMGPU_CMD_MISALIGNED,		/* an address of the wrong alignment */
	VMGPU_CMD_TOO_MANY,		/* over max_dispatches */
};

static inline void vmgpu_cmd_checker_init(struct vmgpu_cmd_checker *ck,
					  vmgpu_u32 max_dispatches)
{
	ck->max_dispatches = max_dispatches;
	ck->dispatches = 0;
	ck->word = 0;
	ck->consumer = 0;
	ck->consumer_word = 0;
	ck->ended = 0;
	ck->signals = 0;
	ck->cmds = 0;
	ck->skip_end = 0;
	ck->signal_next = 0;
	ck->value = 0;
	ck->limit = 0;
}

/* The bytes a TIMESTAMP command writes at its address (its alignment). */
static inline vmgpu_u32 vmgpu_timestamp_bytes(const void *cmd)
{
	return VMGPU_CMD_U32(cmd, vmgpu_cmd_timestamp, flags) &
	       VMGPU_TIMESTAMP_DISPATCHES ? 16 : 8;
}

/* Say why, and return the verdict. */
static inline enum vmgpu_cmd_verdict
vmgpu_cmd_reject(const char **why, enum vmgpu_cmd_verdict v, const char *text)
{
	*why = text;
	return v;
}

/* Say why, with the value over its limit. */
static inline enum vmgpu_cmd_verdict
vmgpu_cmd_reject_limit(struct vmgpu_cmd_checker *ck, const char **why,
		       enum vmgpu_cmd_verdict v, const char *text,
		       vmgpu_u64 value, vmgpu_u64 limit)
{
	ck->value = value;
	ck->limit = limit;
	return vmgpu_cmd_reject(why, v, text);
}

static inline enum vmgpu_cmd_verdict
vmgpu_cmd_check_dispatch(struct vmgpu_cmd_checker *ck, const void *c,
			 const char **why)
{
	vmgpu_u64 blocks = 1, threads = 1;
	vmgpu_u32 args_bytes, i;
	vmgpu_u64 args_va;

	if (VMGPU_CMD_U32(c, vmgpu_cmd_dispatch, flags) & ~VMGPU_DISPATCH_F_ALL)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"unknown dispatch flags");
	if (VMGPU_CMD_U32(c, vmgpu_cmd_dispatch, reserved))
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"dispatch reserved field");
	if (ck->dispatches >= ck->max_dispatches)
		return vmgpu_cmd_reject_limit(ck, why, VMGPU_CMD_TOO_MANY,
					      "more dispatches than the packet may hold",
					      ck->dispatches + 1ull,
					      ck->max_dispatches);
	for (i = 0; i < 3; i++) {
		vmgpu_u32 grid = VMGPU_CMD_U32(c, vmgpu_cmd_dispatch, grid[i]);
		vmgpu_u32 block = VMGPU_CMD_U32(c, vmgpu_cmd_dispatch,
						block[i]);
		vmgpu_u64 origin = VMGPU_CMD_U32(c, vmgpu_cmd_dispatch,
						 origin[i]);
		vmgpu_u32 total = VMGPU_CMD_U32(c, vmgpu_cmd_dispatch,
						grid_total[i]);

		if (!grid || !block || !total)
			return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
							"zero grid or block dimension");
		if (origin + grid > total)
			return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
							"portion outside the index space");
		blocks *= grid;
		threads *= block;
		if (blocks > VMGPU_MAX_GRID_BLOCKS)
			return vmgpu_cmd_reject_limit(ck, why, VMGPU_CMD_ILLEGAL,
						      "grid over VMGPU_MAX_GRID_BLOCKS blocks",
						      blocks,
						      VMGPU_MAX_GRID_BLOCKS);
		if (threads > VMGPU_MAX_BLOCK_THREADS)
			return vmgpu_cmd_reject_limit(ck, why, VMGPU_CMD_ILLEGAL,
						      "block over VMGPU_MAX_BLOCK_THREADS threads",
						      threads,
						      VMGPU_MAX_BLOCK_THREADS);
	}
	if (VMGPU_CMD_U32(c, vmgpu_cmd_dispatch, shared_bytes) >
	    VMGPU_MAX_SHARED_BYTES)
		return vmgpu_cmd_reject_limit(ck, why, VMGPU_CMD_ILLEGAL,
					      "shared memory over VMGPU_MAX_SHARED_BYTES",
					      VMGPU_CMD_U32(c, vmgpu_cmd_dispatch,
							    shared_bytes),
					      VMGPU_MAX_SHARED_BYTES);
	if (VMGPU_CMD_U64(c, vmgpu_cmd_dispatch, code_va) % VMGPU_INSN_BYTES)
		return vmgpu_cmd_reject(why, VMGPU_CMD_MISALIGNED,
						"code address not instruction-aligned");
	args_bytes = VMGPU_CMD_U32(c, vmgpu_cmd_dispatch, args_bytes);
	args_va = VMGPU_CMD_U64(c, vmgpu_cmd_dispatch, args_va);
	if (args_bytes > VMGPU_MAX_ARGS_BYTES)
		return vmgpu_cmd_reject_limit(ck, why, VMGPU_CMD_ILLEGAL,
					      "argument size over VMGPU_MAX_ARGS_BYTES",
					      args_bytes, VMGPU_MAX_ARGS_BYTES);
	if (args_bytes % 4)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"argument size not a multiple of 4");
	if (args_bytes && !args_va)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"arguments without an address");
	if (!args_bytes && args_va)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"arguments without a size");
	if (args_va % 4)
		return vmgpu_cmd_reject(why, VMGPU_CMD_MISALIGNED,
						"argument address not 4-byte aligned");
	ck->dispatches++;
	return VMGPU_CMD_OK;
}

/*
 * A later dispatch of the packet is named: END must find it. The caller
 * has checked @index < max_dispatches, so index + 1 cannot wrap to 0 (a
 * wrapped "one past" let a SYNC naming dispatch 0xffffffff through).
 */
static inline void vmgpu_cmd_names_later(struct vmgpu_cmd_checker *ck,
					 vmgpu_u32 index)
{
	if (index >= ck->consumer) {
		ck->consumer = index + 1;
		ck->consumer_word = ck->word;
	}
}

static inline enum vmgpu_cmd_verdict
vmgpu_cmd_check_dep_signal(struct vmgpu_cmd_checker *ck, const void *c,
			   const char **why)
{
	vmgpu_u32 dispatch = VMGPU_CMD_U32(c, vmgpu_cmd_dep_signal, dispatch);
	vmgpu_u32 i;

	if (!VMGPU_CMD_U32(c, vmgpu_cmd_dep_signal, epoch))
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"dependency epoch 0");
	if (dispatch < ck->dispatches)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"signal names no later dispatch");
	if (dispatch >= ck->max_dispatches)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"signal names a dispatch past the packet's limit");
	if (ck->signals >= VMGPU_DEP_MAX_SIGNALS)
		return vmgpu_cmd_reject_limit(ck, why, VMGPU_CMD_ILLEGAL,
					      "more DEP_SIGNALs than VMGPU_DEP_MAX_SIGNALS",
					      ck->signals + 1ull,
					      VMGPU_DEP_MAX_SIGNALS);
	if (!VMGPU_CMD_U32(c, vmgpu_cmd_dep_signal, entries))
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"dependency table of no entries");
	if (VMGPU_CMD_U32(c, vmgpu_cmd_dep_signal, first_index) >=
	    VMGPU_CMD_U32(c, vmgpu_cmd_dep_signal, entries))
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"first entry outside the table");
	for (i = 0; i < 3; i++) {
		if (!VMGPU_CMD_U32(c, vmgpu_cmd_dep_signal, region[i]))
			return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"zero region dimension");
	}
	if (VMGPU_CMD_U64(c, vmgpu_cmd_dep_signal, table_va) %
	    VMGPU_DEP_ENTRY_BYTES)
		return vmgpu_cmd_reject(why, VMGPU_CMD_MISALIGNED,
					"dependency table not 8-byte aligned");
	vmgpu_cmd_names_later(ck, dispatch);
	if (dispatch >= ck->signal_next)
		ck->signal_next = dispatch + 1;
	ck->signals++;
	return VMGPU_CMD_OK;
}

static inline enum vmgpu_cmd_verdict
vmgpu_cmd_check_skip_if(struct vmgpu_cmd_checker *ck, const void *c,
			const char **why)
{
	vmgpu_u32 after = VMGPU_CMD_U32(c, vmgpu_cmd_skip_if, after);
	vmgpu_u64 end = (vmgpu_u64)ck->cmds + 1 +
			VMGPU_CMD_U32(c, vmgpu_cmd_skip_if, skip);

	if (VMGPU_CMD_U32(c, vmgpu_cmd_skip_if, op) >= VMGPU_WAIT_NUM_OPS)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"unknown skip_if op");
	if (after != VMGPU_SKIP_IF_NOW && after >= ck->dispatches)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"skip_if waits for no earlier dispatch");
	if (ck->signal_next > ck->dispatches)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"skip_if while a DEP_SIGNAL's dispatch is to come");
	if (VMGPU_CMD_U64(c, vmgpu_cmd_skip_if, va) % 4)
		return vmgpu_cmd_reject(why, VMGPU_CMD_MISALIGNED,
					"skip_if address not 4-byte aligned");
	/* Every command fits in a packet: no count of them overflows. */
	if (end > ck->skip_end)
		ck->skip_end = (vmgpu_u32)(end < 0xffffffffu ? end :
					   0xffffffffu);
	return VMGPU_CMD_OK;
}

/* The map of a DEP_WAIT at @c. */
static inline void vmgpu_cmd_dep_wait_map(const void *c,
					  struct vmgpu_region_map *m)
{
	vmgpu_region_map_read(m, (const vmgpu_u8 *)c +
			      offsetof(struct vmgpu_cmd_dep_wait, map));
}

static inline enum vmgpu_cmd_verdict
vmgpu_cmd_check_dep_wait(struct vmgpu_cmd_checker *ck, const void *c,
			 const char **why)
{
	vmgpu_u32 cgrid[3], pgrid[3], i;
	struct vmgpu_region_map m;
	vmgpu_u64 box = 1;

	if (!VMGPU_CMD_U32(c, vmgpu_cmd_dep_wait, epoch))
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"dependency epoch 0");
	for (i = 0; i < 3; i++) {
		vmgpu_u64 first = VMGPU_CMD_U32(c, vmgpu_cmd_dep_wait,
						cfirst[i]);
		vmgpu_u32 count = VMGPU_CMD_U32(c, vmgpu_cmd_dep_wait,
						ccount[i]);

		cgrid[i] = VMGPU_CMD_U32(c, vmgpu_cmd_dep_wait, cgrid[i]);
		pgrid[i] = VMGPU_CMD_U32(c, vmgpu_cmd_dep_wait, pgrid[i]);
		if (!count || first + count > cgrid[i])
			return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"consumer box outside its grid");
		box *= count;
	}
	vmgpu_cmd_dep_wait_map(c, &m);
	if (vmgpu_region_map_fit(&m, cgrid, pgrid, why) != VMGPU_REGION_OK)
		return VMGPU_CMD_ILLEGAL;
	if (box > VMGPU_DEP_MAX_WAIT_PORTIONS)
		return vmgpu_cmd_reject_limit(ck, why, VMGPU_CMD_ILLEGAL,
					      "consumer box over VMGPU_DEP_MAX_WAIT_PORTIONS",
					      box, VMGPU_DEP_MAX_WAIT_PORTIONS);
	if ((vmgpu_u64)VMGPU_CMD_U32(c, vmgpu_cmd_dep_wait, first_index) +
	    vmgpu_region_portions(pgrid) >
	    VMGPU_CMD_U32(c, vmgpu_cmd_dep_wait, entries))
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"producer grid runs past the table");
	if (VMGPU_CMD_U64(c, vmgpu_cmd_dep_wait, table_va) %
	    VMGPU_DEP_ENTRY_BYTES)
		return vmgpu_cmd_reject(why, VMGPU_CMD_MISALIGNED,
					"dependency table not 8-byte aligned");
	return VMGPU_CMD_OK;
}

/* The curve and the map of a TAKE at @c. */
static inline void vmgpu_cmd_take_parts(const void *c, struct vmgpu_curve *cv,
					struct vmgpu_region_map *m)
{
	vmgpu_curve_read(cv, (const vmgpu_u8 *)c +
			 offsetof(struct vmgpu_cmd_take, curve));
	vmgpu_region_map_read(m, (const vmgpu_u8 *)c +
			      offsetof(struct vmgpu_cmd_take, map));
}

static inline enum vmgpu_cmd_verdict
vmgpu_cmd_check_take(struct vmgpu_cmd_checker *ck, const void *c,
		     const char **why)
{
	vmgpu_u32 pgrid[3], i, n, wait;
	struct vmgpu_region_map m;
	struct vmgpu_curve cv;
	vmgpu_u32 entries = VMGPU_CMD_U32(c, vmgpu_cmd_take, entries);

	if (!VMGPU_CMD_U32(c, vmgpu_cmd_take, epoch))
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"dependency epoch 0");
	if (!VMGPU_CMD_U32(c, vmgpu_cmd_take, inflight) ||
	    VMGPU_CMD_U32(c, vmgpu_cmd_take, inflight) >
	    VMGPU_TAKE_MAX_INFLIGHT)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"take in flight out of 1..VMGPU_TAKE_MAX_INFLIGHT");
	for (i = 0; i < 3; i++)
		pgrid[i] = VMGPU_CMD_U32(c, vmgpu_cmd_take, pgrid[i]);
	vmgpu_cmd_take_parts(c, &cv, &m);
	if (cv.kind != VMGPU_CURVE_SERPENTINE ||
	    vmgpu_curve_check(&cv, pgrid, why) != VMGPU_REGION_OK)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"take curve not a valid serpentine of the grid");
	n = vmgpu_region_portions(pgrid);
	if ((vmgpu_u64)VMGPU_CMD_U32(c, vmgpu_cmd_take, signal_index) + n >
	    entries)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"take signals run past the table");
	wait = VMGPU_CMD_U32(c, vmgpu_cmd_take, wait_index);
	if (wait != VMGPU_TAKE_NO_WAIT) {
		if ((vmgpu_u64)wait + n > entries)
			return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"take waits run past the table");
		if (m.kind == VMGPU_MAP_TABLE ||
		    vmgpu_region_map_fit(&m, pgrid, pgrid, why) !=
		    VMGPU_REGION_OK)
			return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"take wait map invalid (or a table map)");
	} else {
		for (i = 0; i < 10; i++)
			if (VMGPU_CMD_U32(c, vmgpu_cmd_take, map[i]))
				return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
							"take map without a wait");
	}
	if (VMGPU_CMD_U64(c, vmgpu_cmd_take, tmd_va) % 8 ||
	    VMGPU_CMD_U64(c, vmgpu_cmd_take, take_va) % 4 ||
	    VMGPU_CMD_U64(c, vmgpu_cmd_take, table_va) % VMGPU_DEP_ENTRY_BYTES)
		return vmgpu_cmd_reject(why, VMGPU_CMD_MISALIGNED,
					"take descriptor, words or table misaligned");
	(void)ck;
	return VMGPU_CMD_OK;
}

/*
 * The rectangle of a COPY or COPY_ASYNC (their first nine words have the
 * same layout): not empty, and rows of one side do not overlap.
 */
static inline enum vmgpu_cmd_verdict
vmgpu_cmd_check_copy_rect(const void *c, const char **why)
{
	vmgpu_u32 width = VMGPU_CMD_U32(c, vmgpu_cmd_copy, width_bytes);
	vmgpu_u32 height = VMGPU_CMD_U32(c, vmgpu_cmd_copy, height);

	if (!width || !height)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL, "empty copy");
	if (height > 1 &&
	    (VMGPU_CMD_U32(c, vmgpu_cmd_copy, src_pitch) < width ||
	     VMGPU_CMD_U32(c, vmgpu_cmd_copy, dst_pitch) < width))
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"copy pitch below the row width");
	return VMGPU_CMD_OK;
}

static inline enum vmgpu_cmd_verdict
vmgpu_cmd_check_copy_async(const void *c, const char **why)
{
	vmgpu_u32 flags = VMGPU_CMD_U32(c, vmgpu_cmd_copy_async, flags);
	vmgpu_u64 after = VMGPU_CMD_U64(c, vmgpu_cmd_copy_async, after_table);
	vmgpu_u64 signal = VMGPU_CMD_U64(c, vmgpu_cmd_copy_async,
					 signal_table);

	if (VMGPU_CMD_U32(c, vmgpu_cmd_copy_async, reserved) ||
	    (flags & ~VMGPU_COPY_FLAGS_ALL))
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"copy_async reserved field or unknown flag");
	if ((flags & VMGPU_COPY_REPLICATE) &&
	    (VMGPU_CMD_U64(c, vmgpu_cmd_copy_async, src_va) !=
	     VMGPU_CMD_U64(c, vmgpu_cmd_copy_async, dst_va) ||
	     VMGPU_CMD_U32(c, vmgpu_cmd_copy_async, src_pitch) !=
	     VMGPU_CMD_U32(c, vmgpu_cmd_copy_async, dst_pitch)))
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"copy_async replicate not in place");
	if ((flags & (VMGPU_COPY_AFTER_ENTRY | VMGPU_COPY_SIGNAL_ENTRY)) &&
	    !VMGPU_CMD_U32(c, vmgpu_cmd_copy_async, epoch))
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"dependency epoch 0");
	if (!(flags & VMGPU_COPY_AFTER_ENTRY) &&
	    (after || VMGPU_CMD_U32(c, vmgpu_cmd_copy_async, after_index)))
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"copy_async after-entry fields without the flag");
	if (!(flags & VMGPU_COPY_SIGNAL_ENTRY) &&
	    (signal || VMGPU_CMD_U32(c, vmgpu_cmd_copy_async, signal_index)))
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"copy_async signal fields without the flag");
	if (!(flags & (VMGPU_COPY_AFTER_ENTRY | VMGPU_COPY_SIGNAL_ENTRY)) &&
	    VMGPU_CMD_U32(c, vmgpu_cmd_copy_async, epoch))
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
					"copy_async epoch without an entry");
	if (after % VMGPU_DEP_ENTRY_BYTES || signal % VMGPU_DEP_ENTRY_BYTES)
		return vmgpu_cmd_reject(why, VMGPU_CMD_MISALIGNED,
					"dependency table not 8-byte aligned");
	return vmgpu_cmd_check_copy_rect(c, why);
}

/*
 * Check the command at @cmd, with @left words of the packet from it on
 * (little-endian words, any alignment). On VMGPU_CMD_OK the checker has
 * moved past it; otherwise *@why says which rule it broke.
 */
static inline enum vmgpu_cmd_verdict
vmgpu_cmd_check(struct vmgpu_cmd_checker *ck, const void *cmd, vmgpu_u32 left,
		const char **why)
{
	vmgpu_u32 hdr = vmgpu_cmd_ld32(cmd);
	vmgpu_u32 op = VMGPU_CMD_OP(hdr), len = vmgpu_cmd_len(op);
	enum vmgpu_cmd_verdict v = VMGPU_CMD_OK;
	vmgpu_u32 consumer, producer;

	ck->value = 0;
	ck->limit = 0;
	if (ck->ended)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"command after END");
	if (!len)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"unknown opcode");
	if (hdr & VMGPU_CMD_RESERVED_MASK)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"reserved header bits");
	if (VMGPU_CMD_LEN(hdr) != len)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"length is not the opcode's length");
	if (len > left)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"command runs past the end");

	switch (op) {
	case VMGPU_CMD_SET_STATE:
		switch (VMGPU_CMD_U32(cmd, vmgpu_cmd_set_state, key)) {
#define VMGPU_STATE_X_CASE(name, code) case (code):
		VMGPU_STATE_TABLE(VMGPU_STATE_X_CASE)
#undef VMGPU_STATE_X_CASE
			break;
		default:
			return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
							"unknown state key");
		}
		break;
	case VMGPU_CMD_DISPATCH:
		v = vmgpu_cmd_check_dispatch(ck, cmd, why);
		break;
	case VMGPU_CMD_LAUNCH_TMD:
		if (VMGPU_CMD_U32(cmd, vmgpu_cmd_launch_tmd, reserved))
			return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"launch_tmd reserved field");
		if (VMGPU_CMD_U64(cmd, vmgpu_cmd_launch_tmd, tmd_va) % 8)
			return vmgpu_cmd_reject(why, VMGPU_CMD_MISALIGNED,
						"TMD address not 8-byte aligned");
		if (ck->dispatches >= ck->max_dispatches)
			return vmgpu_cmd_reject_limit(ck, why, VMGPU_CMD_TOO_MANY,
						      "more dispatches than the packet may hold",
						      ck->dispatches + 1ull,
						      ck->max_dispatches);
		ck->dispatches++;
		break;
	case VMGPU_CMD_SYNC:
		consumer = VMGPU_CMD_U32(cmd, vmgpu_cmd_sync, consumer);
		producer = VMGPU_CMD_U32(cmd, vmgpu_cmd_sync, producer);
		if (producer >= ck->dispatches)
			return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
							"sync producer is not an earlier dispatch");
		if (consumer < ck->dispatches)
			return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
							"sync consumer is not a later dispatch");
		if (consumer >= ck->max_dispatches)
			return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"sync consumer past the packet's dispatch limit");
		vmgpu_cmd_names_later(ck, consumer);
		break;
	case VMGPU_CMD_DEP_SIGNAL:
		v = vmgpu_cmd_check_dep_signal(ck, cmd, why);
		break;
	case VMGPU_CMD_DEP_WAIT:
		v = vmgpu_cmd_check_dep_wait(ck, cmd, why);
		break;
	case VMGPU_CMD_TAKE:
		v = vmgpu_cmd_check_take(ck, cmd, why);
		break;
	case VMGPU_CMD_SKIP_IF:
		v = vmgpu_cmd_check_skip_if(ck, cmd, why);
		break;
	case VMGPU_CMD_TIMESTAMP:
		if (VMGPU_CMD_U32(cmd, vmgpu_cmd_timestamp, flags) &
		    ~VMGPU_TIMESTAMP_DISPATCHES)
			return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
							"timestamp flags unknown");
		if (VMGPU_CMD_U64(cmd, vmgpu_cmd_timestamp, va) %
		    vmgpu_timestamp_bytes(cmd))
			return vmgpu_cmd_reject(why, VMGPU_CMD_MISALIGNED,
							"timestamp address not aligned to its size");
		break;
	case VMGPU_CMD_WRITE_VALUE:
		if (VMGPU_CMD_U64(cmd, vmgpu_cmd_write_value, va) % 4)
			return vmgpu_cmd_reject(why, VMGPU_CMD_MISALIGNED,
							"write address not 4-byte aligned");
		break;
	case VMGPU_CMD_WAIT_VALUE:
		if (VMGPU_CMD_U32(cmd, vmgpu_cmd_wait_value, op) >=
		    VMGPU_WAIT_NUM_OPS)
			return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
							"unknown wait op");
		if (VMGPU_CMD_U64(cmd, vmgpu_cmd_wait_value, va) % 4)
			return vmgpu_cmd_reject(why, VMGPU_CMD_MISALIGNED,
							"wait address not 4-byte aligned");
		break;
	case VMGPU_CMD_COPY:
		if (VMGPU_CMD_U32(cmd, vmgpu_cmd_copy, reserved))
			return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
							"copy reserved field");
		v = vmgpu_cmd_check_copy_rect(cmd, why);
		break;
	case VMGPU_CMD_COPY_ASYNC:
		v = vmgpu_cmd_check_copy_async(cmd, why);
		break;
	case VMGPU_CMD_END:
		if (len != left)
			return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
							"END before the end");
		if (ck->cmds < ck->skip_end)
			return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"skip_if skips END");
		ck->ended = 1;
		break;
	default:
		break;
	}
	if (v == VMGPU_CMD_OK) {
		ck->word += len;
		ck->cmds++;
	}
	return v;
}

/* After the last command: the packet as a whole. */
static inline enum vmgpu_cmd_verdict
vmgpu_cmd_check_end(const struct vmgpu_cmd_checker *ck, const char **why)
{
	if (!ck->ended)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"packet does not end with END");
	if (ck->consumer > ck->dispatches)
		return vmgpu_cmd_reject(why, VMGPU_CMD_ILLEGAL,
						"sync consumer or signal names a missing dispatch");
	return VMGPU_CMD_OK;
}

#if !defined(__KERNEL__)
/*
 * Encoders: each command of the table from host values, header included.
 * The one way commands are built, by the library's builder, the tools and
 * the tests; a test that means to send a malformed command edits the
 * result. The words are little-endian: the structures are laid out in
 * host order, and every supported host is little-endian.
 */
static inline struct vmgpu_cmd_nop vmgpu_encode_nop(void)
{
	struct vmgpu_cmd_nop c = { VMGPU_CMD_HEADER(VMGPU_CMD_NOP) };

	return c;
}

static inline struct vmgpu_cmd_set_state
vmgpu_encode_set_state(vmgpu_u32 key, vmgpu_u32 value)
{
	struct vmgpu_cmd_set_state c = {
		VMGPU_CMD_HEADER(VMGPU_CMD_SET_STATE), key, value,
	};

	return c;
}

/*
 * DISPATCH of the grid portion @grid at @origin (NULL: 0) of the index
 * space @grid_total (NULL: origin + grid).
 */
static inline struct vmgpu_cmd_dispatch
vmgpu_encode_dispatch(vmgpu_u64 code_va, vmgpu_u64 args_va,
		      vmgpu_u32 args_bytes, const vmgpu_u32 grid[3],
		      const vmgpu_u32 block[3], const vmgpu_u32 *origin,
		      const vmgpu_u32 *grid_total, vmgpu_u32 shared_bytes,
		      vmgpu_u32 priority)
{
	struct vmgpu_cmd_dispatch c;
	int i;

	memset(&c, 0, sizeof(c));
	c.hdr = VMGPU_CMD_HEADER(VMGPU_CMD_DISPATCH);
	c.code_va = code_va;
	c.args_va = args_va;
	c.args_bytes = args_bytes;
	for (i = 0; i < 3; i++) {
		c.grid[i] = grid[i];
		c.block[i] = block[i];
		c.origin[i] = origin ? origin[i] : 0;
		c.grid_total[i] = grid_total ? grid_total[i] :
				  c.origin[i] + grid[i];
	}
	c.shared_bytes = shared_bytes;
	c.priority = priority;
	return c;
}

static inline struct vmgpu_cmd_sync vmgpu_encode_sync(vmgpu_u32 consumer,
						      vmgpu_u32 producer)
{
	struct vmgpu_cmd_sync c = {
		VMGPU_CMD_HEADER(VMGPU_CMD_SYNC), consumer, producer,
	};

	return c;
}

static inline struct vmgpu_cmd_barrier vmgpu_encode_barrier(void)
{
	struct vmgpu_cmd_barrier c = { VMGPU_CMD_HEADER(VMGPU_CMD_BARRIER) };

	return c;
}

static inline struct vmgpu_cmd_timestamp vmgpu_encode_timestamp(vmgpu_u64 va)
{
	struct vmgpu_cmd_timestamp c = {
		VMGPU_CMD_HEADER(VMGPU_CMD_TIMESTAMP), 0, va,
	};

	return c;
}

/* A TIMESTAMP of the finished dispatches' span (VMGPU_TIMESTAMP_DISPATCHES). */
static inline struct vmgpu_cmd_timestamp
vmgpu_encode_timestamp_dispatches(vmgpu_u64 va)
{
	struct vmgpu_cmd_timestamp c = {
		VMGPU_CMD_HEADER(VMGPU_CMD_TIMESTAMP),
		VMGPU_TIMESTAMP_DISPATCHES, va,
	};

	return c;
}

static inline struct vmgpu_cmd_write_value
vmgpu_encode_write_value(vmgpu_u64 va, vmgpu_u32 value)
{
	struct vmgpu_cmd_write_value c = {
		VMGPU_CMD_HEADER(VMGPU_CMD_WRITE_VALUE), value, va,
	};

	return c;
}

static inline struct vmgpu_cmd_wait_value
vmgpu_encode_wait_value(vmgpu_u64 va, vmgpu_u32 op, vmgpu_u32 value,
			vmgpu_u32 mask)
{
	struct vmgpu_cmd_wait_value c = {
		VMGPU_CMD_HEADER(VMGPU_CMD_WAIT_VALUE), op, va, value, mask,
	};

	return c;
}

static inline struct vmgpu_cmd_copy
vmgpu_encode_copy(vmgpu_u64 src_va, vmgpu_u64 dst_va, vmgpu_u32 width_bytes,
		  vmgpu_u32 height, vmgpu_u32 src_pitch, vmgpu_u32 dst_pitch)
{
	struct vmgpu_cmd_copy c = {
		VMGPU_CMD_HEADER(VMGPU_CMD_COPY), width_bytes, src_va, dst_va,
		height, src_pitch, dst_pitch, 0,
	};

	return c;
}

/*
 * COPY_ASYNC of a COPY's rectangle @rect (its header is replaced): after
 * entry @after_index of @after_table if @after_table is not 0, signalling
 * entry @signal_index of @signal_table if that is not 0.
 */
static inline struct vmgpu_cmd_copy_async
vmgpu_encode_copy_async(const struct vmgpu_cmd_copy *rect, vmgpu_u32 epoch,
			vmgpu_u64 after_table, vmgpu_u32 after_index,
			vmgpu_u64 signal_table, vmgpu_u32 signal_index)
{
	struct vmgpu_cmd_copy_async c = {
		VMGPU_CMD_HEADER(VMGPU_CMD_COPY_ASYNC), rect->width_bytes,
		rect->src_va, rect->dst_va, rect->height, rect->src_pitch,
		rect->dst_pitch,
		(after_table ? VMGPU_COPY_AFTER_ENTRY : 0) |
		(signal_table ? VMGPU_COPY_SIGNAL_ENTRY : 0),
		after_table, signal_table,
		after_table || signal_table ? epoch : 0,
		after_table ? after_index : 0, signal_table ? signal_index : 0, 0,
	};

	return c;
}

/* SKIP_IF: after dispatch @after, skip @skip commands if (*va & mask) OP value. */
static inline struct vmgpu_cmd_skip_if
vmgpu_encode_skip_if(vmgpu_u64 va, vmgpu_u32 op, vmgpu_u32 value,
		     vmgpu_u32 mask, vmgpu_u32 after, vmgpu_u32 skip)
{
	struct vmgpu_cmd_skip_if c = {
		VMGPU_CMD_HEADER(VMGPU_CMD_SKIP_IF), op, va, value, mask,
		after, skip,
	};

	return c;
}

static inline struct vmgpu_cmd_launch_tmd vmgpu_encode_launch_tmd(vmgpu_u64 va)
{
	struct vmgpu_cmd_launch_tmd c = {
		VMGPU_CMD_HEADER(VMGPU_CMD_LAUNCH_TMD), 0, va,
	};

	return c;
}

static inline struct vmgpu_cmd_dep_signal
vmgpu_encode_dep_signal(vmgpu_u32 dispatch, vmgpu_u32 epoch, vmgpu_u64 table_va,
			vmgpu_u32 entries, vmgpu_u32 first_index,
			const vmgpu_u32 region[3])
{
	struct vmgpu_cmd_dep_signal c = {
		VMGPU_CMD_HEADER(VMGPU_CMD_DEP_SIGNAL), dispatch, epoch,
		first_index, table_va, entries,
		{ region[0], region[1], region[2] },
	};

	return c;
}

/*
 * DEP_WAIT of the consumer box @cfirst + [0, @ccount) of @cgrid on the
 * producer entries of @pgrid at @first_index of the table, under @map.
 */
static inline struct vmgpu_cmd_dep_wait
vmgpu_encode_dep_wait(vmgpu_u32 epoch, vmgpu_u64 table_va, vmgpu_u32 entries,
		      vmgpu_u32 first_index, const vmgpu_u32 pgrid[3],
		      const vmgpu_u32 cgrid[3], const vmgpu_u32 cfirst[3],
		      const vmgpu_u32 ccount[3],
		      const struct vmgpu_region_map *map)
{
	struct vmgpu_cmd_dep_wait c;
	int i;

	memset(&c, 0, sizeof(c));
	c.hdr = VMGPU_CMD_HEADER(VMGPU_CMD_DEP_WAIT);
	c.epoch = epoch;
	c.first_index = first_index;
	c.entries = entries;
	c.table_va = table_va;
	for (i = 0; i < 3; i++) {
		c.pgrid[i] = pgrid[i];
		c.cgrid[i] = cgrid[i];
		c.cfirst[i] = cfirst[i];
		c.ccount[i] = ccount[i];
	}
	memcpy(c.map, map, sizeof(c.map));
	return c;
}

/*
 * TAKE of the portions of the task descriptor at @tmd_va over @pgrid
 * along @curve; @wait_index VMGPU_TAKE_NO_WAIT (and @map NULL) for none.
 */
static inline struct vmgpu_cmd_take
vmgpu_encode_take(vmgpu_u32 epoch, vmgpu_u64 tmd_va, vmgpu_u64 take_va,
		  vmgpu_u64 table_va, vmgpu_u32 entries,
		  vmgpu_u32 signal_index, vmgpu_u32 wait_index,
		  vmgpu_u32 inflight, const vmgpu_u32 pgrid[3],
		  const struct vmgpu_curve *curve,
		  const struct vmgpu_region_map *map)
{
	struct vmgpu_cmd_take c;
	int i;

	memset(&c, 0, sizeof(c));
	c.hdr = VMGPU_CMD_HEADER(VMGPU_CMD_TAKE);
	c.epoch = epoch;
	c.tmd_va = tmd_va;
	c.take_va = take_va;
	c.table_va = table_va;
	c.entries = entries;
	c.signal_index = signal_index;
	c.wait_index = wait_index;
	c.inflight = inflight;
	for (i = 0; i < 3; i++)
		c.pgrid[i] = pgrid[i];
	memcpy(c.curve, curve, sizeof(c.curve));
	if (map)
		memcpy(c.map, map, sizeof(c.map));
	return c;
}

/*
 * The DISPATCH a task descriptor stands for, from its little-endian
 * bytes at @tmd: what the device checks and runs when it launches it.
 */
static inline struct vmgpu_cmd_dispatch vmgpu_tmd_dispatch(const void *tmd)
{
	vmgpu_u32 grid[3], block[3], origin[3], total[3];
	struct vmgpu_cmd_dispatch c;
	int i;

	for (i = 0; i < 3; i++) {
		grid[i] = VMGPU_CMD_U32(tmd, vmgpu_tmd, grid[i]);
		block[i] = VMGPU_CMD_U32(tmd, vmgpu_tmd, block[i]);
		origin[i] = VMGPU_CMD_U32(tmd, vmgpu_tmd, origin[i]);
		total[i] = VMGPU_CMD_U32(tmd, vmgpu_tmd, grid_total[i]);
	}
	c = vmgpu_encode_dispatch(VMGPU_CMD_U64(tmd, vmgpu_tmd, code_va),
				  VMGPU_CMD_U64(tmd, vmgpu_tmd, args_va),
				  VMGPU_CMD_U32(tmd, vmgpu_tmd, args_bytes),
				  grid, block, origin, total,
				  VMGPU_CMD_U32(tmd, vmgpu_tmd, shared_bytes),
				  VMGPU_CMD_U32(tmd, vmgpu_tmd, priority));
	c.flags = VMGPU_CMD_U32(tmd, vmgpu_tmd, flags);
	c.reserved = VMGPU_CMD_U32(tmd, vmgpu_tmd, reserved);
	return c;
}

/* A queue task's fields (struct vmgpu_tmd_queue); capacity 0: not one. */
struct vmgpu_tmd_queue_info {
	vmgpu_u64 items_va;
	vmgpu_u32 capacity;
	vmgpu_u32 coalesce;
	vmgpu_u32 coalesce_timeout_ns;
};

/*
 * Decode a task descriptor at @tmd (little-endian bytes): the DISPATCH it
 * stands for into @c, to be checked by vmgpu_cmd_check() like any other,
 * and for a queue task its queue into @q (a queue task stands for a
 * one-block DISPATCH with its other fields). Returns 0, or -1 with *why
 * set if the queue fields break their rules.
 */
static inline int vmgpu_tmd_decode(const void *tmd,
				   struct vmgpu_cmd_dispatch *c,
				   struct vmgpu_tmd_queue_info *q,
				   const char **why)
{
	vmgpu_u32 flags = VMGPU_CMD_U32(tmd, vmgpu_tmd, flags);
	vmgpu_u32 i;

	*c = vmgpu_tmd_dispatch(tmd);
	memset(q, 0, sizeof(*q));
	if (!(flags & VMGPU_TMD_F_QUEUE))
		return 0;
	q->items_va = VMGPU_CMD_U64(tmd, vmgpu_tmd_queue, items_va);
	q->capacity = VMGPU_CMD_U32(tmd, vmgpu_tmd_queue, capacity);
	q->coalesce = VMGPU_CMD_U32(tmd, vmgpu_tmd_queue, coalesce);
	q->coalesce_timeout_ns =
		VMGPU_CMD_U32(tmd, vmgpu_tmd_queue, coalesce_timeout_ns);
	*why = "queue items misaligned";
	if (q->items_va % 4)
		return -1;
	*why = "queue capacity out of range";
	if (!q->capacity || q->capacity > VMGPU_MAX_QUEUE_ITEMS)
		return -1;
	*why = "queue coalescing out of range";
	if (!q->coalesce || q->coalesce > VMGPU_MAX_COALESCE ||
	    q->coalesce_timeout_ns > VMGPU_MAX_COALESCE_TIMEOUT_NS)
		return -1;
	*why = "queue reserved field not zero";
	for (i = 0; i < 4; i++)
		if (VMGPU_CMD_U32(tmd, vmgpu_tmd_queue, reserved0[i]))
			return -1;
	c->flags &= ~VMGPU_TMD_F_QUEUE;
	for (i = 0; i < 3; i++) {
		c->grid[i] = 1;
		c->origin[i] = 0;
		c->grid_total[i] = 1;
	}
	return 0;
}

static inline struct vmgpu_cmd_end vmgpu_encode_end(void)
{
	struct vmgpu_cmd_end c = { VMGPU_CMD_HEADER(VMGPU_CMD_END) };

	return c;
}

/* Words of an encoded command, for appending: VMGPU_CMD_WORDS(&c). */
#define VMGPU_CMD_WORDS(c)	((const vmgpu_u32 *)(c))
#define VMGPU_CMD_NWORDS(c)	((vmgpu_u32)(sizeof(*(c)) / 4))
#endif

#endif /* _VMGPU_CMD_H_ */
