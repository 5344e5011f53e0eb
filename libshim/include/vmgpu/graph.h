/* SPDX-License-Identifier: MIT */
/*
 * libvmgpu's task graphs (vmgpu_graph_*): a frame's passes from a
 * specification program (format A calls or a format B stream), scheduled
 * and recorded into command buffers (SPEC T; Documentation/taskgraph.rst).
 * Part of libvmgpu; the conventions of <vmgpu.h> hold.
 */
#ifndef VMGPU_GRAPH_H
#define VMGPU_GRAPH_H

#include <vmgpu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Task graphs (SPEC T1-T7, Documentation/taskgraph.rst)                 */
/* ------------------------------------------------------------------ */

/*
 * A task graph is built by running a specification program: format A is
 * this C API (a pass definition is a C function calling
 * vmgpu_graph_pass_begin() ... vmgpu_graph_pass_end(); an invocation is a
 * call of it under the program's own loops and conditions), format B a
 * flat command stream (vmgpu_graph_run_stream()). Each executed pass is a
 * pass node; each distinct resource a resource node. Building needs no
 * device. One thread at a time builds a graph; a compiled schedule is
 * immutable and may be recorded from several threads at once. After a
 * failure, vmgpu_graph_error_message() tells what went wrong.
 */
struct vmgpu_graph;
struct vmgpu_schedule;

int vmgpu_graph_create(struct vmgpu_graph **out);
void vmgpu_graph_destroy(struct vmgpu_graph *g);
/* Forget the passes (a new run of the program); resources stay. */
void vmgpu_graph_reset(struct vmgpu_graph *g);
/* The message of the most recent failed call on @g; returns its length. */
size_t vmgpu_graph_error_message(struct vmgpu_graph *g, char *buf,
				 size_t len);

/*
 * A resource node: the buffer @bo (its size when @size is 0), or, with @bo
 * NULL, a transient resource of @size bytes with no memory yet: it orders
 * passes like any other, but a copy or clear of it reaches the recording
 * callback without a buffer, which vmgpu_graph_record() refuses. The same
 * buffer declared again is the same resource. Returns the id (>= 0) or
 * -errno.
 */
int vmgpu_graph_resource(struct vmgpu_graph *g, const char *name,
			 const struct vmgpu_bo *bo, uint64_t size);
int vmgpu_graph_resource_count(const struct vmgpu_graph *g);

/*
 * What a pass occupies on one GPU while it runs, for the overlap rule:
 * resident blocks, threads, 32-bit registers and shared-memory bytes
 * (the largest of its dispatches: the commands of a pass run in order).
 */
struct vmgpu_graph_needs {
	uint64_t blocks;
	uint64_t threads;
	uint64_t regs;
	uint64_t shared_bytes;
};

/*
 * The needs of dispatch @d of the executable @image (NULL: registers and
 * static shared memory unknown, counted 0): blocks = grid, threads =
 * blocks x block threads, regs = threads x the header's num_regs,
 * shared = blocks x (static + dynamic shared bytes).
 */
int vmgpu_dispatch_needs(const void *image, size_t bytes,
			 const struct vmgpu_dispatch_desc *d,
			 struct vmgpu_graph_needs *needs);

/* Format A: a pass invocation. Returns the pass's index, or -errno. */
int vmgpu_graph_pass_begin(struct vmgpu_graph *g, const char *name);
/* Resource import (read edge resource -> pass), export (write edge). */
int vmgpu_graph_pass_read(struct vmgpu_graph *g, int resource);
int vmgpu_graph_pass_write(struct vmgpu_graph *g, int resource);
/* Optional state of the pass: SET_STATE @key (VMGPU_STATE_*) = @value. */
int vmgpu_graph_pass_state(struct vmgpu_graph *g, uint32_t key,
			   uint32_t value);
/* Needs given by hand; they replace the ones derived from dispatches. */
int vmgpu_graph_pass_needs(struct vmgpu_graph *g,
			   const struct vmgpu_graph_needs *needs);
/*
 * Pass commands, run in the order given. A dispatch is copied (its
 * argument block or typed arguments too); its kernel may be NULL in a
 * graph that is only compiled and inspected, not recorded.
 */
int vmgpu_graph_pass_dispatch(struct vmgpu_graph *g,
			      const struct vmgpu_dispatch_desc *d);
int vmgpu_graph_pass_copy(struct vmgpu_graph *g, int src, uint64_t src_offset,
			  int dst, uint64_t dst_offset, uint64_t bytes);
/* Fill @bytes (4-aligned, as @offset) at @offset of @resource with @value. */
int vmgpu_graph_pass_clear(struct vmgpu_graph *g, int resource,
			   uint64_t offset, uint64_t bytes, uint32_t value);
/*
 * Splitting (T7): the pass's blocks are independent of each other (none
 * waits for or reads what another writes), so it may run as parts of at
 * most @max_blocks blocks along x. At pass_end a pass of one dispatch
 * with more blocks becomes that many passes (this one and the next
 * indices), each a portion of the index space (origin, grid_total),
 * with the pass's edges and state and no dependency on each other.
 */
int vmgpu_graph_pass_split(struct vmgpu_graph *g, uint32_t max_blocks);
int vmgpu_graph_pass_end(struct vmgpu_graph *g);
int vmgpu_graph_pass_count(const struct vmgpu_graph *g);

/*
 * Inspection. The passes @pass depends on (earlier passes it must follow),
 * each with VMGPU_DEP_* bits; returns how many (all of them, even beyond
 * @max).
 */
#define VMGPU_DEP_RAW		(1u << 0)	/* reads what it wrote */
#define VMGPU_DEP_WAR		(1u << 1)	/* writes what it read */
#define VMGPU_DEP_WAW		(1u << 2)	/* writes what it wrote */
#define VMGPU_DEP_STAGE		(1u << 3)	/* schedule: the stage before */
struct vmgpu_graph_dep {
	uint32_t pass;
	uint32_t kinds;			/* VMGPU_DEP_* */
};
int vmgpu_graph_pass_deps(const struct vmgpu_graph *g, uint32_t pass,
			  struct vmgpu_graph_dep *deps, uint32_t max);
/*
 * The graph as text, one line per resource and per pass (its name, read
 * and write edges, needs, state and commands); *@text is malloc()ed.
 * Format A and format B runs of one program print the same text.
 */
int vmgpu_graph_print(const struct vmgpu_graph *g, char **text);

/*
 * Format B (Documentation/taskgraph.rst): a stream of little-endian
 * 32-bit words. Running it on the host evaluates its loops and conditions
 * against @b->params and adds its pass blocks to @g. Stream resource i is
 * graph resource @b->resources[i] (or i when @b->resources is NULL);
 * "dispatch i" is @b->dispatches[i].
 */
struct vmgpu_graph_bindings {
	const int *resources;
	uint32_t num_resources;
	const struct vmgpu_dispatch_desc *dispatches;
	uint32_t num_dispatches;
	const int64_t *params;
	uint32_t num_params;
	/*
	 * T8 placement (c), vmgpu_graph_record_stream() only: NULL, or
	 * @num_params entries saying which parameters are values the GPU
	 * produces (struct vmgpu_graph_gpu_value).
	 */
	const struct vmgpu_graph_gpu_value *gpu_values;
};

/*
 * A parameter the GPU produces: the 32-bit word at @offset (4-aligned)
 * of graph resource @resource (a buffer), read by the device as an
 * unsigned value when the command processor reaches the condition that
 * uses it, after the passes before it that write @resource. @resource
 * -1: the parameter is params[P], known on the host. A "loop $P" runs
 * at most @max_count iterations (unrolled, each skipped on the device
 * when the count says so).
 */
struct vmgpu_graph_gpu_value {
	int resource;
	uint64_t offset;
	uint32_t max_count;
};
int vmgpu_graph_run_stream(struct vmgpu_graph *g, const uint32_t *words,
			   size_t count, const struct vmgpu_graph_bindings *b);
/* Text form <-> words (*@words, *@text malloc()ed); "line N: ..." in @err. */
int vmgpu_graph_stream_parse(const char *text, uint32_t **words,
			     size_t *count, char *err, size_t errlen);
int vmgpu_graph_stream_print(const uint32_t *words, size_t count,
			     char **text, char *err, size_t errlen);

/*
 * One GPU's capacity for the overlap rule: SMs and per-SM resident
 * threads, registers, shared memory and blocks (the device's sm-*
 * settings), and memory bytes for the resources of passes that overlap.
 * 0 means no limit in that dimension.
 */
struct vmgpu_graph_limits {
	uint32_t sms;
	uint32_t sm_threads;
	uint32_t sm_regs;
	uint32_t sm_shared_bytes;
	uint32_t sm_blocks;
	uint64_t memory_bytes;
	/*
	 * Transient resources live at once (T6): when the ones already
	 * live and those a pass would bring to life exceed it, passes that
	 * bring none (their last consumers among them) go first and the
	 * others wait for a later stage. 0: no budget.
	 */
	uint64_t transient_budget;
};

/*
 * Order and overlap the passes into stages (passes of one stage may run
 * together; see the rule in Documentation/taskgraph.rst). @limits NULL:
 * no limit. The schedule remembers the graph's shape: it can be recorded
 * for any later run of the program that gives the same shape.
 */
int vmgpu_graph_compile(struct vmgpu_graph *g,
			const struct vmgpu_graph_limits *limits,
			struct vmgpu_schedule **out);
void vmgpu_schedule_destroy(struct vmgpu_schedule *s);
/* 1 if @s was compiled from a graph of @g's shape, else 0. */
int vmgpu_schedule_matches(const struct vmgpu_schedule *s,
			   const struct vmgpu_graph *g);
int vmgpu_schedule_stage_count(const struct vmgpu_schedule *s);
/* Passes of stage @stage in emission order; returns how many. */
int vmgpu_schedule_stage(const struct vmgpu_schedule *s, uint32_t stage,
			 uint32_t *passes, uint32_t max);
/* The stage of @pass, or -EINVAL. */
int vmgpu_schedule_pass_stage(const struct vmgpu_schedule *s, uint32_t pass);
/*
 * The passes @pass waits for when recorded (dependencies and stage order,
 * none implied by another): the SYNCs of its first dispatch, or the
 * BARRIER before a first copy or clear. Returns how many.
 */
int vmgpu_schedule_waits(const struct vmgpu_schedule *s, uint32_t pass,
			 struct vmgpu_graph_dep *waits, uint32_t max);

/*
 * Transient memory (T6). A transient resource used by the graph lives
 * from the first to the last stage of a pass that reads or writes it;
 * transients whose lives are disjoint share memory: each has an offset
 * (aligned to 256) in one heap of @heap_bytes. @peak_live_bytes is the
 * largest sum of sizes live in one stage, @unaliased_bytes the heap
 * without sharing.
 */
struct vmgpu_graph_memory {
	uint64_t heap_bytes;
	uint64_t peak_live_bytes;
	uint64_t unaliased_bytes;
	uint32_t transients;
};
int vmgpu_schedule_memory(const struct vmgpu_schedule *s,
			  struct vmgpu_graph_memory *m);
/* -ENOENT if @resource is a buffer or no pass uses it. Outputs may be NULL. */
int vmgpu_schedule_transient(const struct vmgpu_schedule *s,
			     uint32_t resource, uint64_t *offset,
			     uint32_t *first_stage, uint32_t *last_stage);

/*
 * Feedback (T5). Each pass's estimated cost is the median of its last 5
 * measured durations (ns), kept per pass index across runs of the
 * program while the pass there keeps its name; its priority is the
 * longest path of estimated costs from it to the end. The scheduler
 * takes ready passes by priority (unmeasured passes cost 0: program
 * order). vmgpu_schedule_is_current() is 0 when the graph's shape
 * changed or the estimates now order the passes otherwise than when @s
 * was compiled (a pass's priority above the one before it by more than
 * 1/8), then compile again; -errno on failure.
 */
int vmgpu_graph_pass_sample(struct vmgpu_graph *g, uint32_t pass,
			    uint64_t ns);
/* The estimate of @pass, -ENODATA if never measured. */
int vmgpu_graph_pass_cost(const struct vmgpu_graph *g, uint32_t pass,
			  uint64_t *ns);
/*
 * Durations from a timed recording's npasses + 1 timestamps (@count):
 * pass k of the schedule's order took @stamps[k + 1] - @stamps[k].
 */
int vmgpu_graph_feedback(struct vmgpu_graph *g, const struct vmgpu_schedule *s,
			 const uint64_t *stamps, uint32_t count);
int vmgpu_schedule_is_current(const struct vmgpu_schedule *s,
			      struct vmgpu_graph *g);
/* The priority @pass had when @s was compiled. */
int vmgpu_schedule_pass_priority(const struct vmgpu_schedule *s,
				 uint32_t pass, uint64_t *prio);

/*
 * Recording: the schedule's passes in order as commands, through @emit
 * (one call per command, @op valid during the call). A DISPATCH call
 * returns the dispatch's index in the packet (first @first_dispatch),
 * the others 0; a negative return stops recording with that error.
 */
#define VMGPU_GRAPH_OP_USE		0u	/* declare bo (flags VMGPU_USE_*) */
#define VMGPU_GRAPH_OP_STATE		1u
#define VMGPU_GRAPH_OP_DISPATCH		2u
#define VMGPU_GRAPH_OP_SYNC		3u
#define VMGPU_GRAPH_OP_BARRIER		4u
#define VMGPU_GRAPH_OP_COPY		5u
#define VMGPU_GRAPH_OP_WRITE_VALUE	6u
#define VMGPU_GRAPH_OP_TIMESTAMP	7u	/* clock to slot @value */
#define VMGPU_GRAPH_OP_SKIP_IF		8u	/* T8: see below */

struct vmgpu_graph_op {
	uint32_t type;			/* VMGPU_GRAPH_OP_* */
	uint32_t pass;			/* the pass it belongs to */
	const struct vmgpu_dispatch_desc *dispatch;
	uint32_t consumer, producer;	/* SYNC */
	uint32_t key, value;		/* STATE; WRITE_VALUE's value */
	int src, dst;			/* resources: COPY; WRITE_VALUE, USE dst */
	const struct vmgpu_bo *src_bo, *dst_bo;
	uint64_t src_offset, dst_offset, bytes;
	uint32_t flags;			/* USE: VMGPU_USE_READ */
	/* T8: DISPATCH as a task descriptor (LAUNCH_TMD) when @tmd. */
	uint32_t tmd, quota;
	uint64_t sm_mask;
	/*
	 * T8 SKIP_IF: after dispatch @after (or VMGPU_SKIP_IF_NOW), skip
	 * @skip commands if (the word at @dst_offset of @dst_bo & @mask)
	 * @cond_op @value.
	 */
	uint32_t cond_op, mask, after, skip;
};
typedef int (*vmgpu_graph_emit_fn)(void *opaque,
				   const struct vmgpu_graph_op *op);
/* -ESTALE if @g's shape is not the one @s was compiled for. */
int vmgpu_graph_record_ops(struct vmgpu_graph *g,
			   const struct vmgpu_schedule *s,
			   uint32_t first_dispatch, vmgpu_graph_emit_fn emit,
			   void *opaque);
/*
 * A timed recording (T5) runs the passes one at a time so that each
 * one's device time is its own: TIMESTAMP slot 0, then after each pass
 * a BARRIER and TIMESTAMP slot k + 1 (npasses + 1 slots, 8 bytes each).
 */
int vmgpu_graph_record_timed_ops(struct vmgpu_graph *g,
				 const struct vmgpu_schedule *s,
				 uint32_t first_dispatch,
				 vmgpu_graph_emit_fn emit, void *opaque);
/* Into @cb, the timestamps into @bo at @offset (8-aligned). */
int vmgpu_graph_record_timed(struct vmgpu_graph *g,
			     const struct vmgpu_schedule *s,
			     struct vmgpu_cmdbuf *cb, const struct vmgpu_bo *bo,
			     uint64_t offset);
/*
 * Record into @cb (vmgpu_cmdbuf_* calls): a SYNC only where a pass waits
 * for a dispatch, a BARRIER only before a copy or clear that waits for
 * one. Submit @cb as usual: one packet, one interrupt.
 */
int vmgpu_graph_record(struct vmgpu_graph *g, const struct vmgpu_schedule *s,
		       struct vmgpu_cmdbuf *cb);

/*
 * T8 placements (Documentation/taskgraph.rst). (a) is the above: the
 * host orders the passes into stages and records them.
 *
 * (b) Scheduled by the device's command processor: every dispatch is a
 * task descriptor in GPU memory (LAUNCH_TMD), the passes in program
 * order with a SYNC on each pass it depends on by data; the command
 * processor issues each pass as its producers finish. No schedule.
 */
int vmgpu_graph_record_cp_ops(struct vmgpu_graph *g, uint32_t first_dispatch,
			      vmgpu_graph_emit_fn emit, void *opaque);
int vmgpu_graph_record_cp(struct vmgpu_graph *g, struct vmgpu_cmdbuf *cb);
/*
 * (c) Built and scheduled on the device: run the format B program
 * @words into @g (which must have no passes) with @b, where the
 * parameters @b->gpu_values names are values the GPU produces, and
 * record it as (b) does, with a SKIP_IF around every pass block under a
 * condition or loop on such a value. -EINVAL if the program changes its
 * bindings (read, write, drop, state, needs, name) under such a
 * condition, or has one inside a pass group.
 */
int vmgpu_graph_record_stream_ops(struct vmgpu_graph *g, const uint32_t *words,
				  size_t count,
				  const struct vmgpu_graph_bindings *b,
				  uint32_t first_dispatch,
				  vmgpu_graph_emit_fn emit, void *opaque);
int vmgpu_graph_record_stream(struct vmgpu_graph *g, const uint32_t *words,
			      size_t count,
			      const struct vmgpu_graph_bindings *b,
			      struct vmgpu_cmdbuf *cb);

#ifdef __cplusplus
}
#endif

#endif /* VMGPU_GRAPH_H */
