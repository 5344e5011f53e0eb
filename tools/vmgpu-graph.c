// SPDX-License-Identifier: MIT
/*
 * vmgpu-graph: a task-graph program in format B text (SPEC T2,
 * Documentation/taskgraph.rst) as a picture: the graph in Graphviz DOT,
 * or its schedule as an SVG timeline.
 *
 *   vmgpu-graph [OPTIONS] dot PROGRAM      the graph, DOT on stdout
 *   vmgpu-graph [OPTIONS] svg PROGRAM      the schedule, SVG on stdout
 *   vmgpu-graph [OPTIONS] text PROGRAM     the schedule as text
 *
 * No device is needed. Stream resource i is a transient resource of
 * --size bytes; "dispatch D" is a dispatch of the grid and block given
 * by the D-th -d option (64 blocks of 64 threads when there is none).
 * A pass's duration is its measured cost (-c) or, estimated, one ns per
 * thread; the schedule uses the measured costs (T5).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_common.h"
#include "vmgpu.h"
#include "vmgpu/graph.h"

#define MAX_RES		256
#define MAX_DISPATCH	64
#define MAX_PARAMS	64
#define MAX_COSTS	256

static const struct tool tool = {
	.name = "vmgpu-graph",
	.usage =
	"usage: vmgpu-graph [OPTIONS] dot|svg|text PROGRAM\n"
	"Read a task-graph program in format B text (\"-\": standard input)\n"
	"and print its graph as Graphviz DOT, or its schedule as an SVG\n"
	"timeline or as text.\n"
	"  -p, --param V        the next parameter $0, $1, ... (repeatable)\n"
	"  -d, --dispatch G,B   the next dispatch: G blocks of B threads\n"
	"  -s, --size BYTES     size of every resource (default 1048576)\n"
	"  -t, --threads N      threads that may run at once (default: no limit)\n"
	"  -b, --budget BYTES   transient memory budget (default: none)\n"
	"  -c, --cost P=NS      measured duration of pass P (repeatable)\n"
	"  -h, --help           this help\n"
	"  --version            the version\n",
};

struct opts {
	int64_t params[MAX_PARAMS];
	uint32_t nparams;
	struct vmgpu_dispatch_desc disp[MAX_DISPATCH];
	uint32_t ndisp;
	uint64_t size, threads, budget;
	uint32_t cost_pass[MAX_COSTS];
	uint64_t cost_ns[MAX_COSTS];
	uint32_t ncosts;
};

static uint64_t number(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-')
		tool_usage_error(&tool, "%s: not a number: '%s'", what, s);
	return v;
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "param", required_argument, NULL, 'p' },
		{ "dispatch", required_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "budget", required_argument, NULL, 'b' },
		{ "cost", required_argument, NULL, 'c' },
		TOOL_COMMON_OPTIONS
	};
	char *comma, *end;
	int c;

	while ((c = getopt_long(argc, argv, "p:d:s:t:b:c:h", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (o->nparams == MAX_PARAMS)
				tool_usage_error(&tool, "too many parameters");
			errno = 0;
			o->params[o->nparams++] = strtoll(optarg, &end, 0);
			if (errno || end == optarg || *end)
				tool_usage_error(&tool, "param: not a number: '%s'",
						 optarg);
			break;
		case 'd':
			comma = strchr(optarg, ',');
			if (!comma || o->ndisp == MAX_DISPATCH)
				tool_usage_error(&tool, "dispatch: G,B expected: '%s'",
						 optarg);
			*comma = 0;
			o->disp[o->ndisp].grid[0] =
				(uint32_t)number(optarg, "dispatch");
			o->disp[o->ndisp++].block[0] =
				(uint32_t)number(comma + 1, "dispatch");
			break;
		case 's':
			o->size = number(optarg, "size");
			break;
		case 't':
			o->threads = number(optarg, "threads");
			break;
		case 'b':
			o->budget = number(optarg, "budget");
			break;
		case 'c':
			comma = strchr(optarg, '=');
			if (!comma || o->ncosts == MAX_COSTS)
				tool_usage_error(&tool, "cost: P=NS expected: '%s'",
						 optarg);
			*comma = 0;
			o->cost_pass[o->ncosts] = (uint32_t)number(optarg, "cost");
			o->cost_ns[o->ncosts++] = number(comma + 1, "cost");
			break;
		default:
			tool_common_option(&tool, c);
		}
	}
}

/*
 * What vmgpu_graph_print() says of each pass, from its line
 * 'pass N "NAME" reads R.. writes R.. needs B T R S ...'.
 */
#define MAX_EDGES	64
struct pinfo {
	char name[64];
	uint32_t reads[MAX_EDGES], nreads;
	uint32_t writes[MAX_EDGES], nwrites;
	uint64_t threads;
};

static void parse_passes(const char *text, struct pinfo *pi, uint32_t n)
{
	const char *line, *at;
	unsigned int p, mode, v;
	unsigned long long threads;
	char name[64], word[32];
	int used;

	for (line = text; line && *line;
	     line = strchr(line, '\n'), line += !!line) {
		if (sscanf(line, "pass %u \"%63[^\"]\"%n", &p, name, &used) != 2 ||
		    p >= n)
			continue;
		snprintf(pi[p].name, sizeof(pi[p].name), "%s", name);
		at = line + used + 1;
		mode = 0;
		while (*at && *at != '\n' &&
		       sscanf(at, "%31s%n", word, &used) == 1) {
			at += used;
			if (!strcmp(word, "reads")) {
				mode = 1;
			} else if (!strcmp(word, "writes")) {
				mode = 2;
			} else if (!strcmp(word, "needs")) {
				if (sscanf(at, "%*u %llu", &threads) == 1)
					pi[p].threads = threads;
				break;
			} else if (sscanf(word, "%u", &v) == 1) {
				if (mode == 1 && pi[p].nreads < MAX_EDGES)
					pi[p].reads[pi[p].nreads++] = v;
				else if (mode == 2 && pi[p].nwrites < MAX_EDGES)
					pi[p].writes[pi[p].nwrites++] = v;
			}
			while (*at == ' ')
				at++;
		}
	}
}

struct timeline {
	uint64_t *start, *end, *dur;
	uint64_t makespan;
};

static void put_dot(struct vmgpu_graph *g, const struct pinfo *pi,
		    uint32_t n)
{
	struct vmgpu_graph_dep deps[64];
	bool used[MAX_RES] = { false };
	uint32_t p, r, i;
	int nd;

	printf("digraph taskgraph {\n\trankdir=LR;\n"
	       "\tnode [fontname=\"sans-serif\", fontsize=10];\n");
	for (p = 0; p < n; p++) {
		printf("\tp%u [shape=box, style=filled, fillcolor=\"#cfe2f3\", label=\"%u %s\"];\n",
		       p, p, pi[p].name);
		for (i = 0; i < pi[p].nreads; i++) {
			r = pi[p].reads[i];
			printf("\tr%u -> p%u;\n", r, p);
			used[r % MAX_RES] = true;
		}
		for (i = 0; i < pi[p].nwrites; i++) {
			r = pi[p].writes[i];
			printf("\tp%u -> r%u;\n", p, r);
			used[r % MAX_RES] = true;
		}
	}
	for (r = 0; r < MAX_RES; r++)
		if (used[r])
			printf("\tr%u [shape=ellipse, label=\"R%u\"];\n", r, r);
	/* Orderings no resource edge shows: WAR and WAW only, dashed. */
	for (p = 0; p < n; p++) {
		nd = vmgpu_graph_pass_deps(g, p, deps, 64);
		for (i = 0; i < (uint32_t)nd && i < 64; i++) {
			if (deps[i].kinds & VMGPU_DEP_RAW)
				continue;
			printf("\tp%u -> p%u [style=dashed, color=gray, label=\"%s\"];\n",
			       deps[i].pass, p,
			       deps[i].kinds & VMGPU_DEP_WAR ? "war" : "waw");
		}
	}
	printf("}\n");
}

static void times(struct vmgpu_schedule *s, struct timeline *t)
{
	struct vmgpu_graph_dep w[64];
	uint32_t passes[4096];
	int st, k, m, j, nw;

	t->makespan = 0;
	for (st = 0; st < vmgpu_schedule_stage_count(s); st++) {
		m = vmgpu_schedule_stage(s, st, passes, 4096);
		for (k = 0; k < m && k < 4096; k++) {
			uint32_t x = passes[k];

			nw = vmgpu_schedule_waits(s, x, w, 64);
			t->start[x] = 0;
			for (j = 0; j < nw && j < 64; j++)
				if (t->end[w[j].pass] > t->start[x])
					t->start[x] = t->end[w[j].pass];
			t->end[x] = t->start[x] + t->dur[x];
			if (t->end[x] > t->makespan)
				t->makespan = t->end[x];
		}
	}
}

static const char *const colors[] = {
	"#6fa8dc", "#93c47d", "#f6b26b", "#e06666", "#8e7cc3", "#76a5af",
};

static void put_svg(struct vmgpu_schedule *s, const struct pinfo *pi, uint32_t n,
		    const struct timeline *t)
{
	const double w = 800, left = 160, row = 18;
	double scale = t->makespan ? w / (double)t->makespan : 1;
	struct vmgpu_graph_memory m;
	uint32_t passes[4096];
	int st, k, cnt, y = 0;

	vmgpu_schedule_memory(s, &m);
	printf("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
	       left + w + 20, row * (n + 3) + 10);
	printf("<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	printf("<text x=\"4\" y=\"14\">%u passes, %d stages, makespan %" PRIu64
	       " ns, transient heap %" PRIu64 " of %" PRIu64 " bytes</text>\n",
	       n, vmgpu_schedule_stage_count(s), t->makespan, m.heap_bytes,
	       m.unaliased_bytes);
	for (st = 0; st < vmgpu_schedule_stage_count(s); st++) {
		cnt = vmgpu_schedule_stage(s, st, passes, 4096);
		for (k = 0; k < cnt && k < 4096; k++, y++) {
			uint32_t x = passes[k];
			double ty = row * (y + 1) + 10;

			printf("<text x=\"4\" y=\"%.0f\">%u %s</text>\n",
			       ty + 12, x, pi[x].name);
			printf("<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\"><title>pass %u, stage %d: %" PRIu64 "..%" PRIu64 " ns</title></rect>\n",
			       left + scale * (double)t->start[x], ty + 2,
			       scale * (double)t->dur[x] > 1 ?
				       scale * (double)t->dur[x] : 1,
			       row - 4, colors[st % 6], x, st, t->start[x],
			       t->end[x]);
		}
	}
	printf("<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n",
	       left, row * (y + 1) + 12, left + w, row * (y + 1) + 12);
	printf("<text x=\"%.0f\" y=\"%.0f\">0</text><text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%" PRIu64 " ns</text>\n",
	       left, row * (y + 2) + 12, left + w, row * (y + 2) + 12,
	       t->makespan);
	printf("</svg>\n");
}

static void put_text(struct vmgpu_schedule *s, const struct pinfo *pi,
		     uint32_t n,
		     const struct timeline *t)
{
	struct vmgpu_graph_memory m;
	uint32_t passes[4096];
	int st, k, cnt;

	vmgpu_schedule_memory(s, &m);
	for (st = 0; st < vmgpu_schedule_stage_count(s); st++) {
		cnt = vmgpu_schedule_stage(s, st, passes, 4096);
		printf("stage %d:", st);
		for (k = 0; k < cnt && k < 4096; k++)
			printf(" %u:%s[%" PRIu64 "..%" PRIu64 "]", passes[k],
			       pi[passes[k]].name, t->start[passes[k]],
			       t->end[passes[k]]);
		printf("\n");
	}
	printf("passes %u stages %d makespan %" PRIu64 " ns heap %" PRIu64
	       " peak-live %" PRIu64 " unaliased %" PRIu64 "\n",
	       n, vmgpu_schedule_stage_count(s), t->makespan, m.heap_bytes,
	       m.peak_live_bytes, m.unaliased_bytes);
}

int main(int argc, char **argv)
{
	static struct opts o = { .size = 1u << 20 };
	struct vmgpu_graph_limits lim = { 0 };
	struct vmgpu_graph_bindings b = { 0 };
	struct vmgpu_schedule *s = NULL;
	struct vmgpu_graph *g = NULL;
	struct timeline t = { 0 };
	char err[256], *src, *text = NULL;
	struct pinfo *names = NULL;
	const char *what, *in;
	uint32_t *words = NULL, n, i;
	size_t count;
	int ret = 1, r;

	parse_opts(argc, argv, &o);
	if (argc - optind != 2)
		tool_usage_error(&tool, argc == optind ? "no command" :
				 argc - optind == 1 ? "no PROGRAM" :
						      "one PROGRAM only");
	what = argv[optind];
	in = argv[optind + 1];
	if (strcmp(what, "dot") && strcmp(what, "svg") && strcmp(what, "text"))
		tool_usage_error(&tool, "unknown command '%s'", what);
	if (!o.ndisp) {
		o.disp[0].grid[0] = 64;
		o.disp[0].block[0] = 64;
	}
	for (i = o.ndisp ? o.ndisp : 1; i < MAX_DISPATCH; i++)
		o.disp[i] = o.disp[i % (o.ndisp ? o.ndisp : 1)];
	src = tool_read_file(in, NULL);
	if (!src) {
		fprintf(stderr, "vmgpu-graph: %s: %s\n", in, strerror(errno));
		return 1;
	}
	r = vmgpu_graph_stream_parse(src, &words, &count, err, sizeof(err));
	free(src);
	if (r) {
		fprintf(stderr, "vmgpu-graph: %s: %s\n", in,
			r == -EINVAL ? err : strerror(-r));
		return 1;
	}
	if (vmgpu_graph_create(&g))
		goto out;
	for (i = 0; i < MAX_RES; i++)
		if (vmgpu_graph_resource(g, "r", NULL, o.size) < 0)
			goto fail;
	b.dispatches = o.disp;
	b.num_dispatches = MAX_DISPATCH;
	b.params = o.params;
	b.num_params = o.nparams;
	if (vmgpu_graph_run_stream(g, words, count, &b) < 0)
		goto fail;
	n = (uint32_t)vmgpu_graph_pass_count(g);
	for (i = 0; i < o.ncosts; i++)
		if (vmgpu_graph_pass_sample(g, o.cost_pass[i], o.cost_ns[i]))
			goto fail;
	if (vmgpu_graph_print(g, &text))
		goto fail;
	names = calloc(n + 1, sizeof(*names));
	t.start = calloc(n + 1, sizeof(*t.start));
	t.end = calloc(n + 1, sizeof(*t.end));
	t.dur = calloc(n + 1, sizeof(*t.dur));
	if (!names || !t.start || !t.end || !t.dur)
		goto fail;
	parse_passes(text, names, n);
	if (!strcmp(what, "dot")) {
		put_dot(g, names, n);
		ret = 0;
		goto out;
	}
	if (o.threads) {
		lim.sms = 1;
		lim.sm_threads = o.threads > UINT32_MAX ? UINT32_MAX :
							  (uint32_t)o.threads;
	}
	lim.transient_budget = o.budget;
	if (vmgpu_graph_compile(g, &lim, &s))
		goto fail;
	/* Durations: measured, else one ns per thread of the pass. */
	for (i = 0; i < n; i++) {
		uint64_t ns;

		if (!vmgpu_graph_pass_cost(g, i, &ns))
			t.dur[i] = ns;
		else
			t.dur[i] = names[i].threads ? names[i].threads : 1;
	}
	times(s, &t);
	if (!strcmp(what, "svg"))
		put_svg(s, names, n, &t);
	else
		put_text(s, names, n, &t);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "vmgpu-graph: %s: ", in);
	if (g) {
		vmgpu_graph_error_message(g, err, sizeof(err));
		fprintf(stderr, "%s\n", err[0] ? err : "out of memory");
	} else {
		fprintf(stderr, "out of memory\n");
	}
out:
	free(text);
	free(names);
	free(t.start);
	free(t.end);
	free(t.dur);
	free(words);
	vmgpu_schedule_destroy(s);
	vmgpu_graph_destroy(g);
	return ret;
}
