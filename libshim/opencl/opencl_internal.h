/* SPDX-License-Identifier: MIT */
/*
 * libvmgpu-opencl: an OpenCL 1.2 platform over the runtime (libvmgpurt),
 * loaded by an ICD loader (Documentation/opencl.rst). What its files
 * share.
 *
 * Objects and their lifetimes. Every object starts with the loader's
 * dispatch table (cl_khr_icd). The platform and its devices live as long
 * as the process: they are made once, on the first call that needs them,
 * as every ICD does (the loader asks for platforms with no handle of
 * ours). Contexts and the objects made in them are reference counted
 * (clRetain* / clRelease*): an object is freed when its count drops to
 * zero and nothing it holds is still in use. Every handle a call gets is
 * looked up in the platform's set of live objects first (vcl_obj_get),
 * under one lock, so a stale or foreign handle is refused with the error
 * the specification names, never dereferenced.
 */
#ifndef VMGPU_OPENCL_INTERNAL_H
#define VMGPU_OPENCL_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opencl_dispatch.h"
#include "vmgpu/runtime.h"

/* What a live object is; checked on every handle. */
enum vcl_kind {
	VCL_PLATFORM = 1,
	VCL_DEVICE,
	VCL_CONTEXT,
	VCL_QUEUE,
	VCL_MEM,
	VCL_PROGRAM,
	VCL_KERNEL,
	VCL_EVENT,
};

/* The head of every object after the dispatch pointer. */
struct vcl_obj {
	enum vcl_kind kind;
	uint32_t refs;			/* under the platform's lock */
};

struct _cl_platform_id {
	const struct _cl_icd_dispatch *dispatch;
	struct vcl_obj o;
	struct vmgpu_rt *rt;
	struct vmgpu_rt_backend embedded;	/* ops NULL: none */
	struct _cl_device_id *devices;
	cl_uint ndevices;
	/* Live objects, for handle checks: an open-addressed set. */
	pthread_mutex_t lock;
	void **live;
	size_t nlive, nused, cap_live;	/* nused: live + tombstones */
};

struct _cl_device_id {
	const struct _cl_icd_dispatch *dispatch;
	struct vcl_obj o;
	struct _cl_platform_id *platform;
	uint32_t phys;			/* the runtime's physical device */
	cl_device_type type;		/* exactly one bit */
	struct vmgpu_rt_caps caps;
	/* The multi-GPU device (multigpu.c): the GPUs it is; 0: not it. */
	cl_uint multi;
};

struct _cl_context {
	const struct _cl_icd_dispatch *dispatch;
	struct vcl_obj o;
	struct _cl_platform_id *platform;
	cl_device_id *devices;
	cl_uint ndevices;
	cl_context_properties *props;	/* as given, with the 0 ending it */
	size_t nprops;			/* entries, the 0 included; 0: none */
	void (CL_CALLBACK *notify)(const char *, const void *, size_t, void *);
	void *user_data;
	vmgpu_rt_handle rtctx;
};

/* A mapping handed out by clEnqueueMapBuffer. */
struct vcl_map {
	void *ptr;
	cl_map_flags flags;
	size_t start, size;		/* its bytes, in the root buffer */
	struct vcl_map *next;
};

/* clSetMemObjectDestructorCallback's. */
struct vcl_mem_cb {
	void (CL_CALLBACK *fn)(cl_mem, void *);
	void *user_data;
	struct vcl_mem_cb *next;
};

struct _cl_command_queue {
	const struct _cl_icd_dispatch *dispatch;
	struct vcl_obj o;
	struct _cl_context *ctx;	/* a reference */
	struct _cl_device_id *device;
	cl_command_queue_properties props;
	vmgpu_rt_handle rtq;
	/* In order: the last command's event (a reference), or NULL. */
	pthread_mutex_t lock;
	struct _cl_event *last;
	/* Deferred commands not done yet, barriers among them (defer.c). */
	uint32_t ndeferred, nbarriers;	/* under vcl_ev_lock */
};

struct _cl_mem {
	const struct _cl_icd_dispatch *dispatch;
	struct vcl_obj o;
	struct _cl_context *ctx;	/* a reference */
	cl_mem_flags flags;
	size_t size;
	void *host_ptr;			/* CL_MEM_USE_HOST_PTR's */
	vmgpu_rt_handle buf;		/* a sub-buffer: its parent's */
	/* A sub-buffer: its buffer (a reference) and where it starts. */
	struct _cl_mem *parent;
	size_t origin;
	/*
	 * Mappings handed out, kept in the buffer a sub-buffer is of, and
	 * the host memory they point into when it is not the program's
	 * (host_ptr): made at the first map, kept to the buffer's end so
	 * that a map's pointer stays valid however other maps come and go.
	 */
	pthread_mutex_t lock;
	struct vcl_map *maps;
	char *shadow;
	/* Destructor callbacks, called last first at the free. */
	struct vcl_mem_cb *cbs;
};

struct _cl_program {
	const struct _cl_icd_dispatch *dispatch;
	struct vcl_obj o;
	struct _cl_context *ctx;	/* a reference */
	char *source;
	pthread_mutex_t lock;		/* the build and what it made */
	struct vmgpu_program *prog;	/* NULL until built */
	char *log;
	char *options;
	cl_build_status status;
	cl_uint nkernels;		/* kernels made from it, alive */
	/* Binaries, compile and link (program_link.c, binary.c). */
	cl_program_binary_type btype;	/* what it holds now */
	char *object;		/* a compiled object's or library's text */
	char *cc_options;	/* the compiler's options of that text */
	void *bc;		/* an object's or library's bitcode, or NULL */
	size_t bc_bytes;
	struct vmgpu_kernlib *lib;	/* from a binary's executables */
	bool from_binary;
	bool stale;		/* from another compiler's binary (binary.c) */
	bool arg_info;		/* built with -cl-kernel-arg-info */
	void *bin;		/* CL_PROGRAM_BINARIES' binary, made once */
	size_t bin_bytes;
};

/* One argument as clSetKernelArg left it. */
struct vcl_arg {
	bool set;
	struct vmgpu_rt_arg a;
	struct _cl_mem *mem;		/* a buffer argument (no reference) */
	/* a by-value vector or struct (VMGPU_PARAM_BYTES): a copy of its
	 * bytes, a.bytes; freed with the kernel (a deferred launch's clone
	 * has its own, vcl_kernel_args_dup()) */
	void *bytes;
};

struct _cl_kernel {
	const struct _cl_icd_dispatch *dispatch;
	struct vcl_obj o;
	struct _cl_program *program;	/* a reference */
	char *name;
	vmgpu_rt_handle k;
	cl_uint nparams;
	struct vmgpu_rt_param_info *params;
	struct vcl_arg *args;
	/* As written in its declaration (kernel_info.c): CL_KERNEL_ATTRIBUTES
	 * and reqd_work_group_size's sizes, 0: none. */
	char *attributes;
	size_t reqd[3];
};

struct _cl_event {
	const struct _cl_icd_dispatch *dispatch;
	struct vcl_obj o;
	struct _cl_context *ctx;	/* a reference */
	struct _cl_command_queue *queue;	/* NULL: a user event */
	cl_command_type type;
	vmgpu_rt_handle rtev;		/* a kernel's; 0: done on the host */
	cl_int status;			/* host commands: CL_COMPLETE or < 0 */
	cl_ulong queued_ns, submit_ns, start_ns, end_ns;
	/*
	 * A user event or a deferred command's (defer.c): @status is under
	 * vcl_ev_lock and final once <= CL_COMPLETE; @fwd the command's
	 * event once it ran (a reference), for its profiling stamps.
	 */
	bool deferred;
	struct _cl_event *fwd;
	struct vcl_event_cb *cbs;	/* callbacks not called yet */
};

/*
 * The platform, made on first use; NULL (and *err) if the runtime
 * cannot start.
 */
struct _cl_platform_id *vcl_platform(cl_int *err);

/* Register @o as live / no longer live (the platform's lock is taken). */
int vcl_obj_add(struct _cl_platform_id *p, void *o);
void vcl_obj_remove(struct _cl_platform_id *p, void *o);
/*
 * Whether @o is a live object of @kind, with a reference taken when @ref
 * (drop it with vcl_obj_release). Never dereferences a handle that is not
 * live.
 */
bool vcl_obj_get(struct _cl_platform_id *p, const void *o, enum vcl_kind kind,
		 bool ref);
/*
 * Drop a reference to the live object @o of @kind: 1 when it was the last
 * (it is no longer live; the caller frees it), 0 when not, -1 when @o is
 * not a live object of @kind.
 */
int vcl_obj_release(struct _cl_platform_id *p, void *o, enum vcl_kind kind);
/*
 * Drop a reference to the live object @o of @kind unless it is the last:
 * true when dropped; false, nothing done, when it is the last (release
 * it the usual way) or @o is not a live object of @kind. For a caller
 * that holds a lock under which the object may not be freed.
 */
bool vcl_obj_put_shared(struct _cl_platform_id *p, void *o,
			enum vcl_kind kind);

/*
 * Copy @n bytes of @src to a clGet*Info caller's @value (of @size
 * bytes; NULL: only the size wanted) and the size to *@size_ret.
 * CL_INVALID_VALUE when @value is too small.
 */
cl_int vcl_info(const void *src, size_t n, size_t size, void *value,
		size_t *size_ret);
cl_int vcl_info_str(const char *s, size_t size, void *value,
		    size_t *size_ret);

/* The device's info (device.c), for the context's and the tests' use. */
bool vcl_device_valid(struct _cl_platform_id *p, cl_device_id d);

/*
 * multigpu.c: the multi-GPU device @d, over the platform's first @ngpus
 * devices (its GPUs, made before); the physical devices a device is
 * (into @phys, room for every GPU; returns how many); the instance flags
 * of @k enqueued on @q (VMGPU_RT_INSTANCE_SPLIT on the multi-GPU device
 * when nothing in its code forbids it).
 */
void vcl_multigpu_init(struct _cl_platform_id *p, struct _cl_device_id *d,
		       uint32_t ngpus);
cl_uint vcl_device_phys(const struct _cl_device_id *d, uint32_t *phys);
uint32_t vcl_split_flags(const struct _cl_command_queue *q,
			 const struct _cl_kernel *k);

/* context.c: references the objects made in a context hold. */
void vcl_context_get(struct _cl_context *c);
void vcl_context_put(struct _cl_context *c);
bool vcl_context_has_device(const struct _cl_context *c, cl_device_id d);

/* program.c: drop a reference to a program; free one (not live). */
void vcl_program_put(struct _cl_program *pr);
void vcl_program_free(struct _cl_program *pr);
/*
 * options.c: check OpenCL 1.2 build options (@mode: VCL_OPTS_*) and
 * give the compiler's in *@out (free() it): CL_INVALID_BUILD_OPTIONS, or
 * CL_INVALID_LINKER_OPTIONS for clLinkProgram's.
 */
enum { VCL_OPTS_BUILD, VCL_OPTS_COMPILE, VCL_OPTS_LINK };
cl_int vcl_build_options(const char *in, int mode, char **out,
			 bool *arg_info, bool *create_library);
/* binary.c: the program's binary (made once, under its lock). */
cl_int vcl_program_binary(struct _cl_program *pr);
/* Build @pr's executable from a binary's library (its lock held). */
int vcl_program_build_lib(struct _cl_program *pr, const char *options,
			  struct vmgpu_program **out, char **log);

/* memory.c: drop a reference to a buffer. */
void vcl_mem_put(struct _cl_mem *m);

/* event.c */
/* The host clock in ns, for the stamps of host commands. */
cl_ulong vcl_now_ns(void);
/*
 * An event for a command of @q: of a kernel (@rtev, which it takes over)
 * or done on the host (rtev 0, @status). NULL if out of memory.
 */
struct _cl_event *vcl_event_new(struct _cl_command_queue *q,
				cl_command_type type, vmgpu_rt_handle rtev,
				cl_int status, cl_ulong queued_ns);
void vcl_event_put(struct _cl_event *e);
/* Wait for @e; its status then (CL_COMPLETE or a negative error). */
cl_int vcl_event_wait(struct _cl_event *e);
/*
 * Check a command's wait list (CL_INVALID_EVENT_WAIT_LIST, or
 * CL_INVALID_CONTEXT for an event of another context) and wait for it
 * and for @q's last command when @q is in order: what a command does
 * first. CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if one failed.
 */
cl_int vcl_wait_for(struct _cl_command_queue *q, cl_uint n,
		    const cl_event *list);
/* Record @e as @q's last command and hand it to the caller if wanted. */
void vcl_command_done(struct _cl_command_queue *q, struct _cl_event *e,
		      cl_event *out);
/*
 * User events and deferred commands (event.c, defer.c). vcl_ev_lock
 * guards every deferred event's status and callbacks, the deferred
 * commands and the queues' counts of them; vcl_ev_cond is broadcast at
 * each change. vcl_ev_undone counts the deferred events not final: 0
 * (the fast path), no command needs deferring. vcl_in_worker: this
 * thread runs a deferred command (the queue's order is the worker's).
 */
extern pthread_mutex_t vcl_ev_lock;
extern pthread_cond_t vcl_ev_cond;
extern unsigned long vcl_ev_undone;
extern __thread bool vcl_in_worker;
/* A deferred event of @c (@q NULL: a user event), not final. */
struct _cl_event *vcl_event_deferred(struct _cl_context *c,
				     struct _cl_command_queue *q,
				     cl_command_type type, cl_int status);
/*
 * Move deferred @e to @status (final when <= CL_COMPLETE; @fwd, a
 * reference it takes, the command's own event) and call the callbacks
 * it reached, on a thread of the platform. False (nothing done) when
 * @e was final already.
 */
bool vcl_event_set(struct _cl_event *e, cl_int status, struct _cl_event *fwd);
/* A deferred event whose status is not final yet. */
bool vcl_event_undone(struct _cl_event *e);

/* defer.c: the hooks of the enqueue calls (Documentation/opencl.rst). */
bool vcl_deferred(cl_command_queue q, cl_uint n, const cl_event *list);
cl_int vcl_defer_read(cl_command_queue q, cl_mem m, cl_bool blocking,
		      size_t offset, size_t size, void *ptr, cl_uint n,
		      const cl_event *list, cl_event *event);
cl_int vcl_defer_write(cl_command_queue q, cl_mem m, cl_bool blocking,
		       size_t offset, size_t size, const void *ptr, cl_uint n,
		       const cl_event *list, cl_event *event);
cl_int vcl_defer_copy(cl_command_queue q, cl_mem src, cl_mem dst,
		      size_t src_offset, size_t dst_offset, size_t size,
		      cl_uint n, const cl_event *list, cl_event *event);
cl_int vcl_defer_fill(cl_command_queue q, cl_mem m, const void *pattern,
		      size_t pattern_size, size_t offset, size_t size,
		      cl_uint n, const cl_event *list, cl_event *event);
void *vcl_defer_map(cl_command_queue q, cl_mem m, cl_bool blocking,
		    cl_map_flags flags, size_t offset, size_t size, cl_uint n,
		    const cl_event *list, cl_event *event, void *at,
		    cl_int *errcode_ret);
cl_int vcl_defer_unmap(cl_command_queue q, cl_mem m, void *ptr, cl_uint n,
		       const cl_event *list, cl_event *event);
/*
 * A Rect read, write or copy (memory.c checked it): the origins and
 * region as given, the pitches as worked out, the host pointer.
 */
struct vcl_rect {
	size_t o1[3], o2[3], region[3];
	size_t rp1, sp1, rp2, sp2;
	void *ptr;
};
cl_int vcl_defer_rect(cl_command_queue q, cl_command_type type, cl_mem m,
		      cl_mem m2, const struct vcl_rect *rect, cl_bool blocking,
		      cl_uint n, const cl_event *list, cl_event *event);
cl_int vcl_defer_migrate(cl_command_queue q, cl_uint nmem, const cl_mem *mem,
			 cl_mem_migration_flags flags, cl_uint n,
			 const cl_event *list, cl_event *event);
cl_int vcl_defer_kernel(cl_command_queue q, cl_kernel k, cl_uint dim,
			const size_t *offset, const size_t *global,
			const size_t *local, cl_uint n, const cl_event *list,
			cl_event *event);
/* A marker or barrier (@n 0: behind every command of @q). */
bool vcl_deferred_marker(cl_command_queue q, cl_uint n, const cl_event *list);
cl_int vcl_defer_marker(cl_command_queue q, cl_command_type type, cl_uint n,
			const cl_event *list, cl_event *event);
/* Wait until @q has no deferred command left. */
void vcl_defer_finish(struct _cl_command_queue *q);

/*
 * kernel_info.c: @k's attributes and reqd_work_group_size from its
 * declaration in the program's text ("" and none when it has none or
 * cannot be read): 0, -1 when out of memory.
 */
int vcl_kernel_attributes(struct _cl_kernel *k);
/*
 * kernel_args.c: give each by-value argument of @args (@n) a copy of its
 * own bytes (a clone's); -1 (each freed) if out of memory.
 * vcl_kernel_args_free() frees them.
 */
int vcl_kernel_args_dup(struct vcl_arg *args, cl_uint n);
void vcl_kernel_args_free(struct vcl_arg *args, cl_uint n);
/*
 * kernel_info.c: when @k's parameter @index is declared char, short or
 * bool (which the compiler passes in 32 bits), its OpenCL size and sign:
 * 0; -1 when it is not or its declaration cannot be read.
 */
int vcl_kernel_arg_narrow(struct _cl_kernel *k, cl_uint index, size_t *size,
			  bool *is_signed);

#endif /* VMGPU_OPENCL_INTERNAL_H */
