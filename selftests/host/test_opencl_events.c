// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OpenCL platform's events through the ICD loader: user events,
 * commands deferred behind them (in order and out of order, set from the
 * enqueueing thread after the enqueue), failures spread to the commands
 * waiting, event callbacks, the errors the specification names, and
 * several threads at once (Documentation/opencl.rst).
 */
#include <pthread.h>
#include <string.h>

#include "testcl.h"

static const char *add_src =
	"__kernel void add(__global int *a, int v)\n"
	"{ a[get_global_id(0)] += v; }\n";

#define N 256

/*
 * write (behind the gate) -> kernel (+5) -> read, the gate set after all
 * three are enqueued; in an out-of-order queue each waits for the last.
 */
static void gated_chain(struct __test_metadata *_metadata,
			cl_command_queue_properties props)
{
	struct env e;
	cl_program prog;
	cl_kernel k;
	cl_event gate, w, kk, r;
	cl_mem buf;
	cl_int err, st, v = 5;
	int in[N], out[N], i;
	size_t g = N;

	env_open(_metadata, &e, props);
	k = build_kernel(_metadata, &e, add_src, "add", &prog);
	buf = clCreateBuffer(e.c, CL_MEM_READ_WRITE, sizeof(in), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	for (i = 0; i < N; i++) {
		in[i] = i;
		out[i] = -1;
	}
	gate = clCreateUserEvent(e.c, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(e.q, buf, CL_FALSE, 0,
						   sizeof(in), in, 1, &gate,
						   &w));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(buf), &buf));
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(v), &v));
	ASSERT_EQ(CL_SUCCESS, clEnqueueNDRangeKernel(e.q, k, 1, NULL, &g, NULL,
						     1, &w, &kk));
	/* The kernel runs with the arguments it had when enqueued. */
	v = 1000;
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 1, sizeof(v), &v));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, buf, CL_FALSE, 0,
						  sizeof(out), out, 1, &kk,
						  &r));
	ASSERT_EQ(CL_SUCCESS, clGetEventInfo(r,
					     CL_EVENT_COMMAND_EXECUTION_STATUS,
					     sizeof(st), &st, NULL));
	EXPECT_GT(st, CL_COMPLETE);
	EXPECT_EQ(-1, out[0]);
	ASSERT_EQ(CL_SUCCESS, clGetEventInfo(gate,
					     CL_EVENT_COMMAND_EXECUTION_STATUS,
					     sizeof(st), &st, NULL));
	EXPECT_EQ(CL_SUBMITTED, st);
	ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(gate, CL_COMPLETE));
	ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &r));
	for (i = 0; i < N; i++)
		ASSERT_EQ(i + 5, out[i]);
	ASSERT_EQ(CL_SUCCESS, clGetEventInfo(kk,
					     CL_EVENT_COMMAND_EXECUTION_STATUS,
					     sizeof(st), &st, NULL));
	EXPECT_EQ(CL_COMPLETE, st);
	ASSERT_EQ(CL_SUCCESS, clFinish(e.q));
	clReleaseEvent(gate);
	clReleaseEvent(w);
	clReleaseEvent(kk);
	clReleaseEvent(r);
	clReleaseMemObject(buf);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	env_close(&e);
}

TEST(user_event_gates_in_order_queue)
{
	gated_chain(_metadata, 0);
}

TEST(user_event_gates_out_of_order_queue)
{
	gated_chain(_metadata, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
}

/* In order: a command with no wait list behind a gated one waits too. */
TEST(in_order_successor_waits_and_blocking_read)
{
	struct env e;
	cl_event gate;
	cl_mem buf;
	cl_int err, pattern = 7;
	int out[N] = { 0 }, i;

	env_open(_metadata, &e, 0);
	buf = clCreateBuffer(e.c, CL_MEM_READ_WRITE, sizeof(out), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	gate = clCreateUserEvent(e.c, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(e.q, buf, &pattern,
						  sizeof(pattern), 0,
						  sizeof(out), 1, &gate,
						  NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, buf, CL_FALSE, 0,
						  sizeof(out), out, 0, NULL,
						  NULL));
	ASSERT_EQ(CL_SUCCESS, clFlush(e.q));
	EXPECT_EQ(0, out[0]);
	ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(gate, CL_COMPLETE));
	ASSERT_EQ(CL_SUCCESS, clFinish(e.q));
	for (i = 0; i < N; i++)
		ASSERT_EQ(7, out[i]);
	/* A blocking read behind a deferred command returns it done. */
	pattern = 9;
	ASSERT_EQ(CL_SUCCESS, clEnqueueFillBuffer(e.q, buf, &pattern,
						  sizeof(pattern), 0,
						  sizeof(out), 0, NULL, NULL));
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, buf, CL_TRUE, 0,
						  sizeof(out), out, 0, NULL,
						  NULL));
	EXPECT_EQ(9, out[N - 1]);
	clReleaseEvent(gate);
	clReleaseMemObject(buf);
	env_close(&e);
}

/*
 * The Rect commands and a migration behind a user event are deferred, as
 * every command is: the enqueueing thread goes on (it sets the event
 * itself afterwards), their arguments (and a kernel's) are checked at
 * once, and they run in the queue's order once the event is set.
 */
TEST(rect_and_migrate_behind_a_user_event)
{
	const size_t origin[3] = { 0, 0, 0 }, region[3] = { 32, 4, 1 };
	const size_t bad_region[3] = { 32, 4, 0 };
	int host[32], back[32], moved[32] = { 0 }, i;
	cl_program prog;
	size_t g = 32;
	cl_kernel k;
	struct env e;
	cl_event gate, ev[4];
	cl_mem a, b;
	cl_int err, st;

	env_open(_metadata, &e, 0);
	a = clCreateBuffer(e.c, CL_MEM_READ_WRITE, sizeof(host), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	b = clCreateBuffer(e.c, CL_MEM_READ_WRITE, sizeof(host), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	for (i = 0; i < 32; i++)
		host[i] = i * 3;
	gate = clCreateUserEvent(e.c, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	/* A kernel missing an argument is refused now too. */
	k = build_kernel(_metadata, &e, add_src, "add", &prog);
	ASSERT_EQ(CL_SUCCESS, clSetKernelArg(k, 0, sizeof(a), &a));
	EXPECT_EQ(CL_INVALID_KERNEL_ARGS,
		  clEnqueueNDRangeKernel(e.q, k, 1, NULL, &g, NULL, 1, &gate,
					 NULL));
	clReleaseKernel(k);
	clReleaseProgram(prog);
	/* A bad region is refused now, not when the event is set. */
	EXPECT_EQ(CL_INVALID_VALUE,
		  clEnqueueWriteBufferRect(e.q, a, CL_FALSE, origin, origin,
					   bad_region, 0, 0, 0, 0, host, 1,
					   &gate, NULL));
	ASSERT_EQ(CL_SUCCESS,
		  clEnqueueWriteBufferRect(e.q, a, CL_FALSE, origin, origin,
					   region, 0, 0, 0, 0, host, 1, &gate,
					   &ev[0]));
	ASSERT_EQ(CL_SUCCESS,
		  clEnqueueCopyBufferRect(e.q, a, b, origin, origin, region, 0,
					  0, 0, 0, 1, &gate, &ev[1]));
	ASSERT_EQ(CL_SUCCESS,
		  clEnqueueMigrateMemObjects(e.q, 1, &b, 0, 1, &gate, &ev[2]));
	ASSERT_EQ(CL_SUCCESS,
		  clEnqueueReadBufferRect(e.q, b, CL_FALSE, origin, origin,
					  region, 0, 0, 0, 0, back, 1, &ev[2],
					  &ev[3]));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(CL_SUCCESS,
			  clGetEventInfo(ev[i],
					 CL_EVENT_COMMAND_EXECUTION_STATUS,
					 sizeof(st), &st, NULL));
		EXPECT_GT(st, CL_COMPLETE);
	}
	ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(gate, CL_COMPLETE));
	ASSERT_EQ(CL_SUCCESS, clWaitForEvents(4, ev));
	for (i = 0; i < 32; i++)
		ASSERT_EQ(i * 3, back[i]);
	/* A blocking Rect read behind a gate returns once it has run. */
	clReleaseEvent(gate);
	gate = clCreateUserEvent(e.c, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(gate, CL_COMPLETE));
	ASSERT_EQ(CL_SUCCESS,
		  clEnqueueReadBufferRect(e.q, a, CL_TRUE, origin, origin,
					  region, 0, 0, 0, 0, moved, 1, &gate,
					  NULL));
	EXPECT_EQ(31 * 3, moved[31]);
	ASSERT_EQ(CL_SUCCESS, clFinish(e.q));
	clReleaseEvent(gate);
	for (i = 0; i < 4; i++)
		clReleaseEvent(ev[i]);
	clReleaseMemObject(a);
	clReleaseMemObject(b);
	env_close(&e);
}

TEST(user_event_error_fails_dependents)
{
	struct env e;
	cl_event gate, r, m;
	cl_mem buf;
	cl_int err, st;
	int out[4] = { 0 };

	env_open(_metadata, &e, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
	buf = clCreateBuffer(e.c, CL_MEM_READ_WRITE, sizeof(out), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	gate = clCreateUserEvent(e.c, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clEnqueueReadBuffer(e.q, buf, CL_FALSE, 0,
						  sizeof(out), out, 1, &gate,
						  &r));
	ASSERT_EQ(CL_SUCCESS, clEnqueueMarkerWithWaitList(e.q, 1, &r, &m));
	ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(gate, -1234));
	EXPECT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
		  clWaitForEvents(1, &r));
	ASSERT_EQ(CL_SUCCESS, clGetEventInfo(r,
					     CL_EVENT_COMMAND_EXECUTION_STATUS,
					     sizeof(st), &st, NULL));
	EXPECT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, st);
	ASSERT_EQ(CL_SUCCESS, clGetEventInfo(gate,
					     CL_EVENT_COMMAND_EXECUTION_STATUS,
					     sizeof(st), &st, NULL));
	EXPECT_EQ(-1234, st);
	EXPECT_EQ(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
		  clWaitForEvents(1, &m));
	ASSERT_EQ(CL_SUCCESS, clGetEventInfo(m,
					     CL_EVENT_COMMAND_EXECUTION_STATUS,
					     sizeof(st), &st, NULL));
	EXPECT_LT(st, 0);
	ASSERT_EQ(CL_SUCCESS, clFinish(e.q));
	clReleaseEvent(gate);
	clReleaseEvent(r);
	clReleaseEvent(m);
	clReleaseMemObject(buf);
	env_close(&e);
}

/* What each callback saw: calls per registered type, last status. */
struct seen {
	pthread_mutex_t lock;
	int calls[3];
	cl_int status[3];
	bool release;		/* the callback releases its event */
};

static void CL_CALLBACK note(cl_event ev, cl_int status, void *data)
{
	struct seen *s = data;
	cl_command_type t;
	int i;

	/* A callback may call OpenCL. */
	clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(t), &t, NULL);
	pthread_mutex_lock(&s->lock);
	i = status == CL_SUBMITTED ? 0 : status == CL_RUNNING ? 1 : 2;
	s->calls[i]++;
	s->status[i] = status;
	pthread_mutex_unlock(&s->lock);
	if (s->release)
		clReleaseEvent(ev);
}

static int total(struct seen *s)
{
	int n;

	pthread_mutex_lock(&s->lock);
	n = s->calls[0] + s->calls[1] + s->calls[2];
	pthread_mutex_unlock(&s->lock);
	return n;
}

static void wait_calls(struct seen *s, int n)
{
	int i;

	for (i = 0; i < 5000 && total(s) < n; i++)
		usleep(1000);
}

static const cl_int types[3] = { CL_SUBMITTED, CL_RUNNING, CL_COMPLETE };

TEST(callbacks_once_per_status)
{
	struct seen s = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct seen done = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct seen u = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct env e;
	cl_event gate, w;
	cl_mem buf;
	cl_int err;
	int data[4] = { 1, 2, 3, 4 }, i;

	env_open(_metadata, &e, 0);
	buf = clCreateBuffer(e.c, CL_MEM_READ_WRITE, sizeof(data), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	gate = clCreateUserEvent(e.c, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(e.q, buf, CL_FALSE, 0,
						   sizeof(data), data, 1,
						   &gate, &w));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(CL_SUCCESS, clSetEventCallback(w, types[i], note,
							 &s));
		ASSERT_EQ(CL_SUCCESS, clSetEventCallback(gate, types[i], note,
							 &u));
	}
	usleep(20000);
	/* A user event is CL_SUBMITTED at once; nothing else yet. */
	EXPECT_EQ(0, s.calls[0] + s.calls[1] + s.calls[2]);
	ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(gate, CL_COMPLETE));
	ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &w));
	wait_calls(&s, 3);
	wait_calls(&u, 3);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(1, s.calls[i]);
		EXPECT_EQ(types[i], s.status[i]);
		EXPECT_EQ(1, u.calls[i]);
	}
	/* Already complete: called at once, with CL_COMPLETE. */
	for (i = 0; i < 3; i++)
		ASSERT_EQ(CL_SUCCESS, clSetEventCallback(w, types[i], note,
							 &done));
	wait_calls(&done, 3);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(1, done.calls[i]);
	usleep(20000);
	EXPECT_EQ(3, total(&s));
	clReleaseEvent(gate);
	clReleaseEvent(w);
	clReleaseMemObject(buf);
	env_close(&e);
}

TEST(callback_of_failed_event_and_release_in_callback)
{
	struct seen s = { .lock = PTHREAD_MUTEX_INITIALIZER, .release = true };
	struct env e;
	cl_event gate;
	cl_int err;

	env_open(_metadata, &e, 0);
	gate = clCreateUserEvent(e.c, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	/* The callback holds its own reference and drops it. */
	ASSERT_EQ(CL_SUCCESS, clRetainEvent(gate));
	ASSERT_EQ(CL_SUCCESS, clSetEventCallback(gate, CL_COMPLETE, note, &s));
	ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(gate, -5));
	wait_calls(&s, 1);
	EXPECT_EQ(1, s.calls[2] + s.calls[0] + s.calls[1]);
	EXPECT_EQ(-5, s.status[2] ? s.status[2] : s.status[0]);
	ASSERT_EQ(CL_SUCCESS, clReleaseEvent(gate));
	env_close(&e);
}

TEST(user_event_errors)
{
	struct env e;
	cl_event gate, w;
	cl_mem buf;
	cl_int err, st;
	cl_ulong t;
	cl_command_type type;
	cl_command_queue q;
	int data = 0;

	env_open(_metadata, &e, CL_QUEUE_PROFILING_ENABLE);
	EXPECT_EQ(NULL, clCreateUserEvent((cl_context)e.q, &err));
	EXPECT_EQ(CL_INVALID_CONTEXT, err);
	gate = clCreateUserEvent(e.c, NULL);
	ASSERT_NE(NULL, gate);
	EXPECT_EQ(CL_INVALID_VALUE, clSetUserEventStatus(gate, CL_SUBMITTED));
	EXPECT_EQ(CL_INVALID_VALUE, clSetUserEventStatus(gate, CL_RUNNING));
	EXPECT_EQ(CL_INVALID_VALUE, clSetEventCallback(gate, CL_COMPLETE,
						       NULL, NULL));
	EXPECT_EQ(CL_INVALID_VALUE, clSetEventCallback(gate, CL_QUEUED, note,
						       NULL));
	EXPECT_EQ(CL_INVALID_EVENT, clSetEventCallback((cl_event)e.q,
						       CL_COMPLETE, note,
						       NULL));
	EXPECT_EQ(CL_INVALID_EVENT, clSetUserEventStatus((cl_event)e.c,
							 CL_COMPLETE));
	EXPECT_EQ(CL_PROFILING_INFO_NOT_AVAILABLE,
		  clGetEventProfilingInfo(gate, CL_PROFILING_COMMAND_START,
					  sizeof(t), &t, NULL));
	ASSERT_EQ(CL_SUCCESS, clGetEventInfo(gate, CL_EVENT_COMMAND_TYPE,
					     sizeof(type), &type, NULL));
	EXPECT_EQ(CL_COMMAND_USER, type);
	ASSERT_EQ(CL_SUCCESS, clGetEventInfo(gate, CL_EVENT_COMMAND_QUEUE,
					     sizeof(q), &q, NULL));
	EXPECT_EQ(NULL, q);
	buf = clCreateBuffer(e.c, CL_MEM_READ_WRITE, sizeof(data), NULL, &err);
	ASSERT_EQ(CL_SUCCESS, err);
	ASSERT_EQ(CL_SUCCESS, clEnqueueWriteBuffer(e.q, buf, CL_FALSE, 0,
						   sizeof(data), &data, 1,
						   &gate, &w));
	EXPECT_EQ(CL_PROFILING_INFO_NOT_AVAILABLE,
		  clGetEventProfilingInfo(w, CL_PROFILING_COMMAND_END,
					  sizeof(t), &t, NULL));
	ASSERT_EQ(CL_SUCCESS, clSetUserEventStatus(gate, CL_COMPLETE));
	EXPECT_EQ(CL_INVALID_OPERATION,
		  clSetUserEventStatus(gate, CL_COMPLETE));
	EXPECT_EQ(CL_INVALID_OPERATION, clSetUserEventStatus(gate, -1));
	ASSERT_EQ(CL_SUCCESS, clWaitForEvents(1, &w));
	/* A command's event is not a user event. */
	EXPECT_EQ(CL_INVALID_EVENT, clSetUserEventStatus(w, CL_COMPLETE));
	EXPECT_EQ(CL_SUCCESS, clGetEventProfilingInfo(w,
						      CL_PROFILING_COMMAND_END,
						      sizeof(t), &t, NULL));
	EXPECT_NE(0, t);
	ASSERT_EQ(CL_SUCCESS, clGetEventInfo(gate,
					     CL_EVENT_COMMAND_EXECUTION_STATUS,
					     sizeof(st), &st, NULL));
	EXPECT_EQ(CL_COMPLETE, st);
	clReleaseEvent(gate);
	clReleaseEvent(w);
	clReleaseMemObject(buf);
	env_close(&e);
}

struct thr {
	struct env *e;
	int fails;
};

static void *user_events_thread(void *arg)
{
	struct thr *t = arg;
	int i;

	for (i = 0; i < 50; i++) {
		cl_int err, st;
		cl_event u = clCreateUserEvent(t->e->c, &err), m;

		if (err || clEnqueueMarkerWithWaitList(t->e->q, 1, &u, &m)) {
			t->fails++;
			continue;
		}
		if (clSetUserEventStatus(u, i & 1 ? CL_COMPLETE : -7) ||
		    clSetUserEventStatus(u, CL_COMPLETE) !=
		    CL_INVALID_OPERATION)
			t->fails++;
		st = clWaitForEvents(1, &m);
		if (st != (i & 1 ? CL_SUCCESS :
			   CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST))
			t->fails++;
		clReleaseEvent(m);
		clReleaseEvent(u);
	}
	return NULL;
}

TEST(user_events_from_several_threads)
{
	struct thr t[4];
	pthread_t th[4];
	struct env e;
	int i;

	env_open(_metadata, &e, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
	for (i = 0; i < 4; i++) {
		t[i].e = &e;
		t[i].fails = 0;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, user_events_thread,
					    &t[i]));
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, t[i].fails);
	}
	ASSERT_EQ(CL_SUCCESS, clFinish(e.q));
	env_close(&e);
}

TEST_HARNESS_MAIN
