// SPDX-License-Identifier: GPL-2.0-only
/*
 * Task graphs (libshim/taskgraph/) against serial execution:
 * thousands of random programs (loops, conditions, shared resources) in
 * format A and format B, recorded and run in every way their SYNCs and
 * BARRIERs allow, give the results of serial execution with a barrier
 * after every pass; every conflicting pair of passes is ordered.
 *
 * The recording goes through the library's callback interface into the
 * encoder of testgraph.h, so no device is needed.
 */
#include "testgraph.h"
#include "vmgpu/graph.h"

/* ---- Random programs against serial execution ---- */

#define NRES		5
#define NPARAMS		2
#define MAX_NODES	24
#define MAX_PASSES	96

enum { N_PASS, N_LOOP, N_IF };

struct pcmd {
	int type;			/* 0 dispatch, 1 copy, 2 clear */
	int d, src, dst;
};

struct node {
	int kind;
	/* N_PASS */
	uint32_t rmask, wmask, prio;
	struct pcmd cmds[3];
	int ncmds;
	/* N_LOOP: count or $param; N_IF: $param op value */
	int count, by_param, param, op, value;
	int body, nbody, other, nother;	/* ranges of children */
};

struct program {
	struct node n[MAX_NODES];
	int nn;
	int top, ntop;
	int64_t params[NPARAMS];
	struct vmgpu_dispatch_desc descs[4];
};

static int gen_block(struct program *p, int depth, int want, int *count);

static void gen_pass(struct node *x)
{
	int i, k;

	x->kind = N_PASS;
	x->rmask = rnd(1u << NRES) & rnd(1u << NRES);
	x->wmask = rnd(1u << NRES) & rnd(1u << NRES) & rnd(1u << NRES);
	x->prio = rnd(3);
	x->ncmds = rnd(4);		/* 0: an empty pass */
	for (i = 0; i < x->ncmds; i++) {
		struct pcmd *c = &x->cmds[i];
		uint32_t any = x->rmask | x->wmask;

		c->type = rnd(4) == 0 ? 1 : rnd(5) == 0 ? 2 : 0;
		c->d = rnd(4);
		if (c->type && !x->wmask)
			c->type = 0;
		if (c->type) {
			do
				k = rnd(NRES);
			while (!(x->wmask & (1u << k)));
			c->dst = k;
			do
				k = rnd(NRES);
			while (!(any & (1u << k)));
			c->src = k;
		}
	}
}

/* Children are allocated contiguously; returns the first index. */
static int gen_block(struct program *p, int depth, int want, int *count)
{
	int first = p->nn, i, n = 0;

	for (i = 0; i < want && p->nn < MAX_NODES; i++, n++)
		p->nn++;
	for (i = 0; i < n; i++) {
		struct node *x = &p->n[first + i];
		int r = rnd(10);

		memset(x, 0, sizeof(*x));
		if (depth < 3 && r < 2) {
			x->kind = N_LOOP;
			x->by_param = rnd(2);
			x->param = rnd(NPARAMS);
			x->count = rnd(4);
			x->body = gen_block(p, depth + 1, 1 + rnd(3),
					    &x->nbody);
		} else if (depth < 3 && r < 4) {
			x->kind = N_IF;
			x->param = rnd(NPARAMS);
			x->op = rnd(6);
			x->value = (int)rnd(4) - 1;
			x->body = gen_block(p, depth + 1, 1 + rnd(3),
					    &x->nbody);
			x->other = gen_block(p, depth + 1, rnd(2), &x->nother);
		} else {
			gen_pass(x);
		}
	}
	*count = n;
	return first;
}

static bool cond(int64_t a, int op, int64_t b)
{
	switch (op) {
	case 0: return a == b;
	case 1: return a != b;
	case 2: return a < b;
	case 3: return a <= b;
	case 4: return a > b;
	default: return a >= b;
	}
}

/* Serial reference: per executed pass, its read and write masks. */
struct exec {
	uint32_t rmask[MAX_PASSES], wmask[MAX_PASSES];
	int n;
};

/* Format A: the program run in C. */
static int run_a(struct program *p, struct vmgpu_graph *g, int first, int n,
		 struct exec *e)
{
	int i, k, r;

	for (i = first; i < first + n; i++) {
		struct node *x = &p->n[i];
		int64_t count;

		switch (x->kind) {
		case N_LOOP:
			count = x->by_param ? p->params[x->param] : x->count;
			for (k = 0; k < count; k++)
				if (run_a(p, g, x->body, x->nbody, e))
					return -1;
			break;
		case N_IF:
			if (cond(p->params[x->param], x->op, x->value))
				r = run_a(p, g, x->body, x->nbody, e);
			else
				r = run_a(p, g, x->other, x->nother, e);
			if (r)
				return r;
			break;
		default: {
			char name[16];

			if (e->n == MAX_PASSES)
				return -1;
			snprintf(name, sizeof(name), "n%d", i);
			vmgpu_graph_pass_begin(g, name);
			for (k = 0; k < NRES; k++) {
				if (x->rmask & (1u << k))
					vmgpu_graph_pass_read(g, k);
				if (x->wmask & (1u << k))
					vmgpu_graph_pass_write(g, k);
			}
			vmgpu_graph_pass_state(g, VMGPU_STATE_DEFAULT_PRIORITY,
					       x->prio);
			for (k = 0; k < x->ncmds; k++) {
				struct pcmd *c = &x->cmds[k];

				if (c->type == 0)
					vmgpu_graph_pass_dispatch(g,
							&p->descs[c->d]);
				else if (c->type == 1)
					vmgpu_graph_pass_copy(g, c->src, 0,
							      c->dst, 2048,
							      64);
				else
					vmgpu_graph_pass_clear(g, c->dst, 64,
							       256, 5);
			}
			if (vmgpu_graph_pass_end(g))
				return -1;
			e->rmask[e->n] = x->rmask;
			e->wmask[e->n] = x->wmask;
			e->n++;
		}
		}
	}
	return 0;
}

static const char *const cmp_names[] = { "==", "!=", "<", "<=", ">", ">=" };

/* Format B: the program as text. */
static void text_b(struct program *p, int first, int n, char *buf,
		   size_t len, size_t *at)
{
	int i, k;

#define OUT(...) (*at += snprintf(buf + *at, len - *at, __VA_ARGS__))
	for (i = first; i < first + n; i++) {
		struct node *x = &p->n[i];

		switch (x->kind) {
		case N_LOOP:
			if (x->by_param)
				OUT("loop $%d\n", x->param);
			else
				OUT("loop %d\n", x->count);
			text_b(p, x->body, x->nbody, buf, len, at);
			OUT("end\n");
			break;
		case N_IF:
			OUT("if $%d %s %d\n", x->param, cmp_names[x->op],
			    x->value);
			text_b(p, x->body, x->nbody, buf, len, at);
			if (x->nother) {
				OUT("else\n");
				text_b(p, x->other, x->nother, buf, len, at);
			}
			OUT("end\n");
			break;
		default:
			/* Bindings carry forward: set them all. */
			for (k = 0; k < NRES; k++) {
				OUT("drop %d\n", k);
				if (x->rmask & (1u << k))
					OUT("read %d\n", k);
				if (x->wmask & (1u << k))
					OUT("write %d\n", k);
			}
			OUT("state %u %u\n", VMGPU_STATE_DEFAULT_PRIORITY,
			    x->prio);
			OUT("name \"n%d\"\n", i);
			/* One command: sometimes its own block by default. */
			if (x->ncmds != 1 || rnd(2))
				OUT("pass\n");
			for (k = 0; k < x->ncmds; k++) {
				struct pcmd *c = &x->cmds[k];

				if (c->type == 0)
					OUT("dispatch %d\n", c->d);
				else if (c->type == 1)
					OUT("copy %d 0 %d 2048 64\n", c->src,
					    c->dst);
				else
					OUT("clear %d 64 256 5\n", c->dst);
			}
			break;
		}
	}
#undef OUT
}

/*
 * Every pair of passes that conflict (one writes what the other reads or
 * writes) in serial order A < B: every command of A completes before any
 * command of B starts, by the recorded SYNCs, BARRIERs and the command
 * processor's order alone. Then any run gives the serial results.
 */
#define MAX_UNITS	512
#define UW		(MAX_UNITS / 64)

struct unitset {
	uint64_t b[UW];
};

static void us_or(struct unitset *a, const struct unitset *b)
{
	int i;

	for (i = 0; i < UW; i++)
		a->b[i] |= b->b[i];
}

static bool us_has(const struct unitset *a, int u)
{
	return a->b[u / 64] >> (u % 64) & 1;
}

static void us_add(struct unitset *a, int u)
{
	a->b[u / 64] |= 1ull << (u % 64);
}

struct hb {
	int nunits;
	int unit_pass[MAX_UNITS];
	struct unitset pred[MAX_UNITS];
};

static int build_hb(const struct rec *r, struct hb *h)
{
	static struct unitset prod[MAX_UNITS];
	int disp_unit[MAX_UNITS];
	struct unitset cp = { { 0 } };
	uint32_t i;
	int u, k;

	memset(prod, 0, sizeof(prod));
	h->nunits = 0;
	for (i = 0; i < r->nops; i++) {
		const struct op *o = &r->ops[i];

		switch (o->type) {
		case VMGPU_GRAPH_OP_SYNC:
			if (o->producer >= o->consumer ||
			    o->consumer >= MAX_UNITS)
				return -1;
			/* Producer's unit and what precedes it. */
			us_add(&prod[o->consumer], disp_unit[o->producer]);
			us_or(&prod[o->consumer],
			      &h->pred[disp_unit[o->producer]]);
			break;
		case VMGPU_GRAPH_OP_BARRIER:
			for (k = 0; k < h->nunits; k++) {
				us_add(&cp, k);
				us_or(&cp, &h->pred[k]);
			}
			break;
		case VMGPU_GRAPH_OP_DISPATCH:
		case VMGPU_GRAPH_OP_COPY:
		case VMGPU_GRAPH_OP_WRITE_VALUE:
			if (h->nunits == MAX_UNITS)
				return -1;
			u = h->nunits++;
			h->unit_pass[u] = o->pass;
			h->pred[u] = cp;
			if (o->type == VMGPU_GRAPH_OP_DISPATCH) {
				disp_unit[o->index] = u;
				us_or(&h->pred[u], &prod[o->index]);
			} else {
				/* The CP waits for it. */
				us_add(&cp, u);
			}
			break;
		}
	}
	return 0;
}

static bool conflict(const struct exec *e, int a, int b)
{
	return (e->wmask[a] & (e->rmask[b] | e->wmask[b])) ||
	       (e->rmask[a] & e->wmask[b]);
}

static int check_hb(const struct exec *e, const struct hb *h, char *why,
		    size_t len)
{
	int u, v;

	for (v = 0; v < h->nunits; v++)
		for (u = 0; u < h->nunits; u++) {
			int a = h->unit_pass[u], b = h->unit_pass[v];

			if (a < b && conflict(e, a, b) && !us_has(&h->pred[v], u)) {
				snprintf(why, len,
					 "pass %d (unit %d) may overlap conflicting pass %d (unit %d)",
					 a, u, b, v);
				return -1;
			}
		}
	return 0;
}

/*
 * One random run of the recorded commands: the command processor moves
 * on, dispatches start once their producers are done and finish later,
 * in a random order the commands allow. A unit reads its pass's
 * resources when it starts, writes when it finishes (copies at once).
 * Every read must see the version serial execution gives.
 */
static int simulate(const struct rec *r, const struct exec *e, char *why,
		    size_t len)
{
	enum { IDLE, ISSUED, RUNNING, DONE };
	int state[MAX_UNITS] = { 0 }, version[NRES], expect_last[NRES];
	uint32_t pc = 0, prod_n[MAX_UNITS] = { 0 }, i;
	static uint32_t prod[MAX_UNITS][MAX_UNITS / 4];
	int disp_unit[MAX_UNITS], unit_pass[MAX_UNITS], nunits = 0;
	int cand[2 * MAX_UNITS + 1], k, u;

	bool has_unit[MAX_PASSES] = { false };

	/* A pass without commands writes nothing, serially too. */
	for (i = 0; i < r->nops; i++)
		if (r->ops[i].type == VMGPU_GRAPH_OP_DISPATCH ||
		    r->ops[i].type == VMGPU_GRAPH_OP_COPY ||
		    r->ops[i].type == VMGPU_GRAPH_OP_WRITE_VALUE)
			has_unit[r->ops[i].pass] = true;
	for (k = 0; k < NRES; k++)
		version[k] = expect_last[k] = -1;
	for (i = 0; i < (uint32_t)e->n; i++)
		for (k = 0; k < NRES; k++)
			if ((e->wmask[i] & (1u << k)) && has_unit[i])
				expect_last[k] = (int)i;

#define READS(u)							\
	do {								\
		int p_ = unit_pass[u], k_, w_;				\
		for (k_ = 0; k_ < NRES; k_++) {				\
			if (!(e->rmask[p_] & (1u << k_)))		\
				continue;				\
			for (w_ = p_ - 1; w_ >= 0 &&			\
			     !((e->wmask[w_] & (1u << k_)) &&		\
			       has_unit[w_]); w_--)			\
				;					\
			if (version[k_] != w_ &&			\
			    !(version[k_] == p_ &&			\
			      (e->wmask[p_] & (1u << k_)))) {		\
				snprintf(why, len,			\
					 "pass %d read version %d of resource %d, serially %d", \
					 p_, version[k_], k_, w_);	\
				return -1;				\
			}						\
		}							\
	} while (0)
#define WRITES(u)							\
	do {								\
		int p_ = unit_pass[u], k_;				\
		for (k_ = 0; k_ < NRES; k_++)				\
			if (e->wmask[p_] & (1u << k_))			\
				version[k_] = p_;			\
	} while (0)

	for (;;) {
		int n = 0;
		bool cp_ok = pc < r->nops;

		if (cp_ok && r->ops[pc].type == VMGPU_GRAPH_OP_BARRIER)
			for (u = 0; u < nunits; u++)
				cp_ok &= state[u] == DONE;
		if (cp_ok)
			cand[n++] = -1;
		for (u = 0; u < nunits; u++) {
			if (state[u] == ISSUED) {
				bool ready = true;

				for (i = 0; i < prod_n[u]; i++)
					ready &= state[prod[u][i]] == DONE;
				if (ready)
					cand[n++] = u;
			} else if (state[u] == RUNNING) {
				cand[n++] = u;
			}
		}
		if (!n)
			break;
		k = cand[rnd(n)];
		if (k >= 0) {
			if (state[k] == ISSUED) {
				state[k] = RUNNING;
				READS(k);
			} else {
				state[k] = DONE;
				WRITES(k);
			}
			continue;
		}
		{
			const struct op *o = &r->ops[pc++];

			switch (o->type) {
			case VMGPU_GRAPH_OP_SYNC:
				u = disp_unit[o->producer];
				prod[nunits][prod_n[nunits]++] = u;
				break;
			case VMGPU_GRAPH_OP_DISPATCH:
				u = nunits++;
				unit_pass[u] = o->pass;
				disp_unit[o->index] = u;
				state[u] = ISSUED;
				prod_n[nunits] = 0;
				break;
			case VMGPU_GRAPH_OP_COPY:
			case VMGPU_GRAPH_OP_WRITE_VALUE:
				u = nunits++;
				unit_pass[u] = o->pass;
				prod_n[nunits] = 0;
				READS(u);
				WRITES(u);
				state[u] = DONE;
				break;
			}
		}
	}
	for (u = 0; u < nunits; u++)
		if (state[u] != DONE) {
			snprintf(why, len, "unit %d never ran", u);
			return -1;
		}
	for (k = 0; k < NRES; k++) {
		if (version[k] != expect_last[k]) {
			snprintf(why, len,
				 "resource %d ends at version %d, serially %d",
				 k, version[k], expect_last[k]);
			return -1;
		}
	}
#undef READS
#undef WRITES
	return 0;
}

/* SYNCs of one consumer naming the same producer twice. */
static int repeated_syncs(const struct rec *r)
{
	uint32_t i, j, n = 0;

	for (i = 0; i < r->nops; i++)
		for (j = i + 1; j < r->nops; j++)
			n += r->ops[i].type == VMGPU_GRAPH_OP_SYNC &&
			     r->ops[j].type == VMGPU_GRAPH_OP_SYNC &&
			     r->ops[i].consumer == r->ops[j].consumer &&
			     r->ops[i].producer == r->ops[j].producer;
	return (int)n;
}

/*
 * The text with each explicit "pass" closed by "end_pass" before the
 * first line that is not a pass command; parsed into words.
 */
static int close_blocks(char *text, uint32_t **w, size_t *n, char *err,
			size_t errlen)
{
	static char fixed[20000];
	char *line, *save = NULL;
	size_t at = 0;
	bool open = false;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		bool passcmd = !strncmp(line, "dispatch", 8) ||
			       !strncmp(line, "copy", 4) ||
			       !strncmp(line, "clear", 5);

		if (open && !passcmd) {
			at += snprintf(fixed + at, sizeof(fixed) - at,
				       "end_pass\n");
			open = false;
		}
		at += snprintf(fixed + at, sizeof(fixed) - at, "%s\n", line);
		if (!strcmp(line, "pass"))
			open = true;
	}
	if (open)
		at += snprintf(fixed + at, sizeof(fixed) - at, "end_pass\n");
	if (at >= sizeof(fixed))
		return -E2BIG;
	return vmgpu_graph_stream_parse(fixed, w, n, err, errlen);
}

TEST(random_programs_match_serial_execution)
{
	static struct program p;
	static struct exec e;
	static struct rec r;
	static struct hb h;
	static char text[16384];
	struct vmgpu_graph_bindings bind = { 0 };
	int prog, k, programs = 3000, ran = 0, overlapped = 0;
	unsigned int barriers_without_copies = 0;

	rng_state = 14;
	for (prog = 0; prog < programs; prog++) {
		struct vmgpu_graph *ga, *gb;
		struct vmgpu_schedule *s;
		struct vmgpu_graph_limits lim = { 0 };
		char *ta, *tb, err[200];
		uint32_t *w;
		size_t n, at = 0;
		bool copies = false;

		memset(&p, 0, sizeof(p));
		memset(&e, 0, sizeof(e));
		for (k = 0; k < 4; k++) {
			p.descs[k].grid[0] = 1 + rnd(16);
			p.descs[k].block[0] = 32 << rnd(4);
			p.descs[k].shared_bytes = 1024 * rnd(3);
		}
		for (k = 0; k < NPARAMS; k++)
			p.params[k] = (int)rnd(4) - 1;
		p.top = gen_block(&p, 0, 1 + rnd(8), &p.ntop);
		if (rnd(2)) {
			lim.sms = 1 + rnd(4);
			lim.sm_threads = 256 << rnd(3);
			lim.sm_shared_bytes = 4096 << rnd(3);
			lim.memory_bytes = rnd(2) ? 4096ull * (1 + rnd(5)) : 0;
		}

		ASSERT_EQ(0, vmgpu_graph_create(&ga));
		ASSERT_EQ(0, vmgpu_graph_create(&gb));
		for (k = 0; k < NRES; k++) {
			ASSERT_EQ(k, vmgpu_graph_resource(ga, "r", NULL, 4096));
			ASSERT_EQ(k, vmgpu_graph_resource(gb, "r", NULL, 4096));
		}
		if (run_a(&p, ga, p.top, p.ntop, &e)) {
			/* Too many passes for this test's arrays. */
			vmgpu_graph_destroy(ga);
			vmgpu_graph_destroy(gb);
			continue;
		}
		ran++;

		/* Format B of the same program: the same graph. */
		text_b(&p, p.top, p.ntop, text, sizeof(text), &at);
		ASSERT_LT(at, sizeof(text));
		ASSERT_EQ(0, close_blocks(text, &w, &n, err, sizeof(err)))
			TH_LOG("%s", err);
		bind.dispatches = p.descs;
		bind.num_dispatches = 4;
		bind.params = p.params;
		bind.num_params = NPARAMS;
		ASSERT_EQ(0, vmgpu_graph_run_stream(gb, w, n, &bind));
		free(w);
		ASSERT_EQ(0, vmgpu_graph_print(ga, &ta));
		ASSERT_EQ(0, vmgpu_graph_print(gb, &tb));
		ASSERT_STREQ(ta, tb);
		free(ta);
		free(tb);

		/* Schedule, record, check against serial execution. */
		ASSERT_EQ(0, vmgpu_graph_compile(ga, &lim, &s));
		ASSERT_EQ(0, record(ga, s, &r));
		ASSERT_EQ(0, build_hb(&r, &h));
		ASSERT_EQ(0, check_hb(&e, &h, err, sizeof(err)))
			TH_LOG("program %d: %s", prog, err);
		for (k = 0; k < 4; k++)
			ASSERT_EQ(0, simulate(&r, &e, err, sizeof(err)))
				TH_LOG("program %d: %s", prog, err);
		for (k = 0; k < (int)r.nops; k++)
			copies |= r.ops[k].type == VMGPU_GRAPH_OP_COPY;
		/* No SYNC twice, none on a dispatch already synced on. */
		ASSERT_EQ(0, repeated_syncs(&r));
		if (!copies && r.barriers)
			barriers_without_copies++;
		if (vmgpu_schedule_stage_count(s) < e.n)
			overlapped++;
		vmgpu_schedule_destroy(s);
		vmgpu_graph_destroy(ga);
		vmgpu_graph_destroy(gb);
	}
	/* Barriers only before copies; most programs ran; some overlapped. */
	EXPECT_EQ(0, barriers_without_copies);
	EXPECT_GT(ran, programs * 9 / 10);
	EXPECT_GT(overlapped, programs / 4);
	TH_LOG("%d programs, %d with overlapping passes", ran, overlapped);
}

TEST_HARNESS_MAIN
