// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fuzzing engine of the device model (fuzzdev.h).
 *
 * The bytes of an input are read front to back; past the end every read
 * gives 0, so any prefix of an input is an input. Values that decide a
 * structure (which operation, which opcode, how many) come first, so
 * that libFuzzer's mutations of one byte change one decision.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzdev.h"
#include "testhost.h"
#include "testkernels.h"
#include "vmgpu.h"
#include "vmgpu_cmd.h"
#include "vmgpu_isa.h"

#define PAGE		((uint64_t)VMGPU_PAGE_SIZE)
#define VA0		0x100000000ull
#define MEM_BYTES	(2u << 20)
#define RING_ENTRIES	16
#define CMD_CHUNKS	8
#define CMD_CHUNK_WORDS	2048	/* 8 KiB per command buffer */
#define DATA_BYTES	(2 * PAGE)
#define ARGS_BLOCK	64	/* bytes per argument block */
#define KERNEL_BYTES	(2 * PAGE)
#define KERNEL_SLOTS	4
#define MAX_INSNS	64
#define RUN_ROUNDS	3
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
/*
 * Warp instructions per dispatch: a runaway kernel ends quickly. A
 * packet may raise its own budget (SET_STATE); the engine caps what it
 * asks for at FUZZ_BUDGET_MAX so that an input cannot spin for minutes.
 */
#define FUZZ_BUDGET	(1u << 13)
#define FUZZ_BUDGET_MAX	(1u << 15)

struct fz_in {
	const uint8_t *p;
	size_t n;
};

struct fz_world {
	struct testhost *th;
	struct vg_device *dev;
	unsigned int gpus;
	struct th_as as[2];
	uint64_t addr[FZ_A_COUNT];
	/*
	 * Their host addresses, taken before the input runs: an input may
	 * rewrite the page tables (the window), and the engine writes as a
	 * CPU thread would, through its own mapping.
	 */
	uint8_t *host[FZ_A_COUNT];
	uint64_t cmd_bus;		/* bus address of the command area */
	uint32_t cmd_chunk;		/* next chunk to fill */
	uint32_t cmd[CMD_CHUNK_WORDS];	/* the open command buffer */
	uint32_t cmd_n;
	uint64_t seqno;
	uint32_t bus_pages;		/* pages [1, bus_pages) are in the window */
	/* The canary's own address space (slot 2), out of every input's reach. */
	struct th_as canary_as;
	uint64_t canary_code, canary_args, canary_out, canary_cmd;
	/* Its pages, [canary_bus, canary_end), as made (see check_isolation). */
	uint64_t canary_bus, canary_end;
	uint8_t *canary_image;
};

#define CANARY_SLOT	2
#define CANARY_THREADS	32

/* ------------------------------------------------------------------ */
/* Reading the input                                                    */
/* ------------------------------------------------------------------ */

static uint8_t in8(struct fz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static uint32_t in32(struct fz_in *in)
{
	uint32_t v = in8(in);

	v |= (uint32_t)in8(in) << 8;
	v |= (uint32_t)in8(in) << 16;
	return v | (uint32_t)in8(in) << 24;
}

static uint64_t fz_addr(const struct fz_world *w, uint8_t which, uint8_t delta)
{
	return w->addr[which % FZ_A_COUNT] + (int64_t)(int8_t)delta * 4;
}

/*
 * A word of a command or an immediate: a small value, an address (both
 * halves: *@hi gets the high word and 2 is returned), raw, or a value
 * near a limit.
 */
static const uint32_t special[8] = {
	0xffffffffu, 0x80000000u, 0x7fffffffu, 4096, 4095, 1u << 24, 1024,
	0x10000,
};

static int fz_word_sel(struct fz_world *w, struct fz_in *in, uint8_t s,
		       uint32_t *lo, uint32_t *hi)
{
	uint64_t a;

	if (s < 0x40) {
		*lo = s;
		return 1;
	}
	if (s < 0x80) {
		a = fz_addr(w, s & 0x3f, in8(in));
		*lo = (uint32_t)a;
		*hi = (uint32_t)(a >> 32);
		return 2;
	}
	if (s < 0xc0) {
		*lo = in32(in);
		return 1;
	}
	*lo = special[s & 7];
	return 1;
}

static int fz_word(struct fz_world *w, struct fz_in *in, uint32_t *lo,
		   uint32_t *hi)
{
	return fz_word_sel(w, in, in8(in), lo, hi);
}

/* ------------------------------------------------------------------ */
/* Writing inputs (seed corpora)                                        */
/* ------------------------------------------------------------------ */

void fz_put8(struct fz_writer *wr, uint8_t v)
{
	if (wr->n < sizeof(wr->buf))
		wr->buf[wr->n++] = v;
}

void fz_put32(struct fz_writer *wr, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		fz_put8(wr, v >> (8 * i));
}

void fz_put_small(struct fz_writer *wr, uint8_t v)
{
	fz_put8(wr, v & 0x3f);
}

void fz_put_addr(struct fz_writer *wr, uint8_t which, uint8_t delta)
{
	fz_put8(wr, 0x40 | which);
	fz_put8(wr, delta);
}

void fz_put_raw(struct fz_writer *wr, uint32_t v)
{
	fz_put8(wr, 0x80);
	fz_put32(wr, v);
}

/* ------------------------------------------------------------------ */
/* The machine                                                          */
/* ------------------------------------------------------------------ */

static const char store_src[] =
	".args 8\n"
	"	ldarg.64 r0, 0\n"
	"	s2r r2, %tid.x\n"
	"	shl r3, r2, 2\n"
	"	add r0, r0, r3\n"
	"	st.32 [r0], r2\n"
	"	exit\n";

static const char atom_src[] = TK_ATOM_ADD_SRC;

/* Each thread launches a child from the descriptor at arg 8. */
static const char parent_src[] =
	".args 16\n"
	"	ldarg.64 r0, 8\n"
	"	s2r r2, %tid.x\n"
	"	add r4, r2, 1\n"
	"	ldarg.64 r6, 0\n"
	"	launch [r0], r6, r4\n"
	"	exit\n";

/* Each thread appends its index to the queue task at arg 0. */
static const char producer_src[] =
	".args 8\n"
	"	ldarg.64 r0, 0\n"
	"	s2r r2, %tid.x\n"
	"	enq [r0], r2\n"
	"	exit\n";

struct fz_image {
	void *bytes;
	size_t n;
};

/* Assembled once per process: the sources above never change. */
static struct fz_image builtin_image(int which)
{
	static const char *const src[4] = {
		store_src, atom_src, parent_src, producer_src,
	};
	static struct fz_image img[4];
	char err[256];

	if (!img[which].bytes &&
	    vmgpu_asm_assemble(src[which], &img[which].bytes, &img[which].n,
				err, sizeof(err))) {
		fprintf(stderr, "fuzzdev: %s\n", err);
		abort();
	}
	return img[which];
}

/*
 * The fake machine, kept from one input to the next (a fresh 2 MiB of
 * guest memory per input would cost more than most inputs' runs): each
 * input gets it back as th_new() makes it: zeroed (the device may have
 * written anywhere in it).
 */
static struct testhost *machine(void)
{
	static struct testhost *th;
	static struct testhost fresh;

	if (!th) {
		th = th_new(MEM_BYTES);
		fresh = *th;
		return th;
	}
	*th = fresh;
	memset(th->mem, 0, MEM_BYTES);
	return th;
}

static void *va_ptr(struct fz_world *w, uint64_t va)
{
	return th_va(w->th, &w->as[0], va);
}

/* The registers a driver programs, again (after a reset). */
static void program_gpu(struct fz_world *w, unsigned int gpu)
{
	th_gpu_program(w->th, gpu);
	th_set_root(w->th, gpu, 0, &w->as[0]);
	th_set_root(w->th, gpu, 1, &w->as[1]);
	th_set_root(w->th, gpu, CANARY_SLOT, &w->canary_as);
}

/* A task descriptor of @code over @grid blocks of @threads at @at. */
static void put_tmd(struct fz_world *w, uint64_t at, uint64_t code,
		    uint64_t args, uint32_t args_bytes, uint32_t threads)
{
	struct vmgpu_tmd t;

	memset(&t, 0, sizeof(t));
	t.code_va = code;
	t.args_va = args;
	t.args_bytes = args_bytes;
	t.grid[0] = t.grid[1] = t.grid[2] = 1;
	t.grid_total[0] = t.grid_total[1] = t.grid_total[2] = 1;
	t.block[0] = threads;
	t.block[1] = t.block[2] = 1;
	memcpy(va_ptr(w, at), &t, sizeof(t));
}

static void put_queue_tmd(struct fz_world *w, uint64_t at, uint64_t code,
			  uint64_t args, uint64_t items, uint32_t capacity)
{
	struct vmgpu_tmd_queue q;

	memset(&q, 0, sizeof(q));
	q.code_va = code;
	q.args_va = args;
	q.args_bytes = 8;
	q.flags = VMGPU_TMD_F_QUEUE;
	q.items_va = items;
	q.capacity = capacity;
	q.block[0] = q.block[1] = q.block[2] = 1;
	q.coalesce = 4;
	q.coalesce_timeout_ns = 1000;
	memcpy(va_ptr(w, at), &q, sizeof(q));
}

static void world_init(struct fz_world *w, uint8_t shape)
{
	uint64_t rw = VMGPU_PTE_READ | VMGPU_PTE_WRITE, va, bus;
	struct vg_config c;
	struct testhost *th;
	unsigned int g;
	uint32_t i, j;

	memset(w, 0, sizeof(*w));
	w->gpus = 1 + (shape & 3);
	vg_config_defaults(&c);
	c.gpus = w->gpus;
	c.sms = 2;
	c.instr_budget = FUZZ_BUDGET;
	c.wd_fifo = (shape >> 2) & 1;
	c.wd_round_robin = (shape >> 3) & 1;
	c.link_topology = (shape >> 4) & 1;
	c.isa_version = (shape >> 5) & 1 ? VMGPU_ISA_VERSION_MIN :
					 VMGPU_ISA_VERSION;
	th = w->th = machine();
	w->dev = th_device_new(th, &c, w->gpus);
	th_as_init(th, &w->as[0], VA0);
	th_as_init(th, &w->as[1], VA0);
	for (g = 0; g < w->gpus; g++) {
		th_gpu_setup(th, g, RING_ENTRIES);
		th_set_root(th, g, 0, &w->as[0]);
		th_set_root(th, g, 1, &w->as[1]);
	}

	w->addr[FZ_A_RW] = th_as_alloc(th, &w->as[0], 4 * PAGE, rw);
	w->addr[FZ_A_RW_END] = w->addr[FZ_A_RW] + 4 * PAGE - 4;
	w->addr[FZ_A_HOLE] = th_as_alloc(th, &w->as[0], PAGE, rw);
	th_unmap(th, &w->as[0], w->addr[FZ_A_HOLE]);
	w->addr[FZ_A_RO] = th_as_alloc(th, &w->as[0], PAGE, VMGPU_PTE_READ);
	w->addr[FZ_A_REMOTE] = th_as_alloc(
		th, &w->as[0], PAGE,
		rw | VMGPU_PTE_LOC(VMGPU_LOC_GPU(w->gpus > 1 ? 1 : 0)));
	w->addr[FZ_A_CMD] = th_as_alloc(th, &w->as[0],
					CMD_CHUNKS * CMD_CHUNK_WORDS * 4,
					VMGPU_PTE_READ);
	w->addr[FZ_A_DATA] = th_as_alloc(th, &w->as[0], DATA_BYTES, rw);
	w->addr[FZ_A_ARGS] = th_as_alloc(th, &w->as[0], PAGE, rw);
	for (i = 0; i < KERNEL_SLOTS; i++)
		w->addr[FZ_A_KERNEL0 + i] =
			th_as_alloc(th, &w->as[0], KERNEL_BYTES, rw);
	for (i = 0; i < 4; i++) {
		struct fz_image img = builtin_image(i);

		w->addr[FZ_A_STORE + i] =
			th_upload(th, &w->as[0], img.bytes, img.n);
	}
	/* The other file's address space: the same VAs, other pages. */
	th_as_alloc(th, &w->as[1], 4 * PAGE, rw);
	w->addr[FZ_A_ZERO] = 0;
	w->addr[FZ_A_TOP] = (1ull << VMGPU_VA_BITS) - PAGE;
	w->addr[FZ_A_BEYOND] = 1ull << VMGPU_VA_BITS;

	/* Bus address of the command area, for the engine's own writes. */
	w->cmd_bus = (uint8_t *)va_ptr(w, w->addr[FZ_A_CMD]) - th->mem;

	/*
	 * The window: every page allocated so far, read-write but for the
	 * command area (the driver's command buffers are read-only to the
	 * GPU; the device reads them once per packet in any case).
	 */
	w->bus_pages = th->next_page / PAGE;
	w->addr[FZ_A_WINDOW] = VA0 + (1ull << 32);
	for (i = 1; i < w->bus_pages; i++) {
		bus = (uint64_t)i * PAGE;
		va = w->addr[FZ_A_WINDOW] + bus;
		th_map(th, &w->as[0], va, bus,
		       bus - w->cmd_bus < CMD_CHUNKS * CMD_CHUNK_WORDS * 4ull ?
			       VMGPU_PTE_READ : rw);
	}

	/*
	 * Argument blocks: 8 pointers each, every interesting address;
	 * block b starts with address b (fzseeds.c relies on it), later
	 * blocks point a few words further in.
	 */
	w->addr[FZ_A_QUEUE] = w->addr[FZ_A_DATA] + 256;
	for (i = 0; i < PAGE / ARGS_BLOCK; i++) {
		uint64_t *blk = va_ptr(w, w->addr[FZ_A_ARGS] + i * ARGS_BLOCK);

		for (j = 0; j < ARGS_BLOCK / 8; j++)
			blk[j] = w->addr[(i + j) % FZ_A_COUNT] +
				 8 * (i / FZ_A_COUNT);
	}
	for (i = 0; i < FZ_A_COUNT; i++)
		w->host[i] = va_ptr(w, w->addr[i]);
	/* Descriptors in the data area: two tasks and a queue task. */
	put_tmd(w, w->addr[FZ_A_DATA], w->addr[FZ_A_STORE], w->addr[FZ_A_ARGS],
		8, 32);
	put_tmd(w, w->addr[FZ_A_DATA] + 128, w->addr[FZ_A_ATOM],
		w->addr[FZ_A_ARGS] + ARGS_BLOCK, 8, 4);
	put_queue_tmd(w, w->addr[FZ_A_QUEUE], w->addr[FZ_A_STORE],
		      w->addr[FZ_A_ARGS], w->addr[FZ_A_DATA] + 1024, 64);

	/*
	 * The canary (check_isolation()): pages made after the window, so
	 * no address of the input's reaches them, in a slot of their own.
	 */
	w->canary_bus = th->next_page;
	th_as_init(th, &w->canary_as, VA0);
	w->canary_code = th_upload(th, &w->canary_as, builtin_image(0).bytes,
				   builtin_image(0).n);
	w->canary_out = th_as_alloc(th, &w->canary_as, 4 * CANARY_THREADS, rw);
	w->canary_args = th_upload(th, &w->canary_as, &w->canary_out, 8);
	w->canary_cmd = th_as_alloc(th, &w->canary_as, PAGE, VMGPU_PTE_READ);
	w->canary_end = th->next_page;
	w->canary_image = malloc(w->canary_end - w->canary_bus);
	if (!w->canary_image)
		abort();
	memcpy(w->canary_image, th->mem + w->canary_bus,
	       w->canary_end - w->canary_bus);
	for (g = 0; g < w->gpus; g++)
		th_set_root(th, g, CANARY_SLOT, &w->canary_as);
}

static void world_free(struct fz_world *w)
{
	free(w->canary_image);
	vg_device_free(w->dev);
	w->th->dev = NULL;
}

/* ------------------------------------------------------------------ */
/* Operations                                                           */
/* ------------------------------------------------------------------ */

static void run(struct fz_world *w)
{
	unsigned int r, g;

	for (r = 0; r < RUN_ROUNDS; r++) {
		vg_device_run(w->dev);
		for (g = 0; g < w->gpus; g++)
			th_ack_all(w->th, g);
	}
}

static void cmd_put(struct fz_world *w, uint32_t v)
{
	if (w->cmd_n < CMD_CHUNK_WORDS)
		w->cmd[w->cmd_n++] = v;
}

/* One command: a real header (or a raw one), then words of any kind. */
static void op_cmd(struct fz_world *w, struct fz_in *in)
{
	uint8_t c = in8(in);
	uint32_t op = c % VMGPU_CMD_NUM_OPS, len, i, lo, hi = 0;

	if (c & 0x80) {
		cmd_put(w, in32(in));
		return;
	}
	len = vmgpu_cmd_len(op);
	cmd_put(w, VMGPU_CMD_HEADER(op));
	for (i = 1; i < len; i++) {
		cmd_put(w, 0);
		if (fz_word(w, in, &lo, &hi) == 2 && i + 1 < len) {
			w->cmd[w->cmd_n - 1] = lo;
			cmd_put(w, hi);
			i++;
		} else {
			w->cmd[w->cmd_n - 1] = lo;
		}
	}
}

/*
 * The engine's one concession to time: a packet's own instruction
 * budget (SET_STATE) is capped, walking the packet as the device will.
 */
static void cap_budget(uint32_t *words, uint32_t n)
{
	struct vmgpu_cmd_checker ck;
	const char *why;

	vmgpu_cmd_checker_init(&ck, VMGPU_MAX_DISPATCHES_PER_PACKET);
	while (ck.word < n && !ck.ended) {
		uint32_t *p = words + ck.word;

		if (vmgpu_cmd_check(&ck, p, n - ck.word, &why)) {
			if (getenv("VMGPU_FUZZ_VERBOSE"))
				fprintf(stderr, "packet: word %u: %s\n",
					ck.word, why);
			return;
		}
		if (VMGPU_CMD_OP(p[0]) == VMGPU_CMD_SET_STATE &&
		    p[1] == VMGPU_STATE_INSTR_BUDGET &&
		    (p[2] > FUZZ_BUDGET_MAX || !p[2]))
			p[2] = FUZZ_BUDGET_MAX;
	}
}

static void submit_words(struct fz_world *w, unsigned int gpu, uint32_t flags,
			 uint32_t slot, uint32_t levels)
{
	uint32_t chunk = w->cmd_chunk++ % CMD_CHUNKS;
	uint64_t va = w->addr[FZ_A_CMD] + chunk * CMD_CHUNK_WORDS * 4ull;

	cap_budget(w->cmd, w->cmd_n);
	memcpy(w->th->mem + w->cmd_bus + chunk * CMD_CHUNK_WORDS * 4ull, w->cmd,
	       w->cmd_n * 4);
	th_push(w->th, gpu, va, w->cmd_n * 4, ++w->seqno, flags, slot, levels);
	th_doorbell(w->th, gpu);
	w->cmd_n = 0;
}

static void op_submit(struct fz_world *w, struct fz_in *in)
{
	unsigned int gpu = in8(in) % w->gpus;
	uint8_t f = in8(in);
	uint32_t flags = f & 2 ? VMGPU_RING_F_IRQ : 0, slot = (f >> 4) & 1;
	uint32_t levels = in8(in);

	if (f & 1)
		cmd_put(w, VMGPU_CMD_HEADER(VMGPU_CMD_END));
	if (f & 4)
		flags = in32(in);
	if (f & 0x20)
		slot = in8(in);
	levels = (levels & 0x0f) | (uint32_t)(levels >> 4) << 16;
	if (f & 8) {
		/* A ring entry of any bytes: where and how long as given. */
		uint32_t lo, hi = 0;

		fz_word(w, in, &lo, &hi);
		th_push(w->th, gpu, (uint64_t)hi << 32 | lo, in32(in),
			++w->seqno, flags, slot, levels);
		th_doorbell(w->th, gpu);
		w->cmd_n = 0;
		return;
	}
	submit_words(w, gpu, flags, slot, levels);
}

/* Another CPU thread writes guest memory while the GPUs run. */
static void op_poke(struct fz_world *w, struct fz_in *in)
{
	uint8_t which = in8(in) % FZ_A_COUNT;
	int64_t delta = (int64_t)(int8_t)in8(in) * 4;
	uint64_t va = w->addr[which] + delta;
	uint32_t n = in8(in) % 4 + 1, i, lo, hi = 0;
	uint8_t *p = w->host[which];
	uint64_t bus;

	/*
	 * Through the CPU's own mapping of the region, not the GPU's; the
	 * window stands for any page of the machine (page tables, rings).
	 */
	if (which == FZ_A_WINDOW) {
		bus = (uint64_t)((uint8_t)(delta / 4) % w->bus_pages) * PAGE +
		      (in8(in) & 0xff) * 16;
		va = w->addr[FZ_A_WINDOW] + bus;
	} else if (!p) {
		return;
	} else {
		bus = (uint64_t)(p - w->th->mem) + delta;
	}
	if (bus < PAGE || bus > MEM_BYTES - PAGE ||
	    bus - w->cmd_bus < CMD_CHUNKS * CMD_CHUNK_WORDS * 4ull)
		return;
	p = w->th->mem + bus;
	/* Within the page of @va: an address takes two words. */
	for (i = 0; i < n && (i == 0 || (va + 4 * i) % PAGE); i++) {
		if (fz_word(w, in, &lo, &hi) == 2 && (va + 4 * i + 4) % PAGE) {
			memcpy(p + 4 * i, &lo, 4);
			memcpy(p + 4 * ++i, &hi, 4);
		} else {
			memcpy(p + 4 * i, &lo, 4);
		}
	}
}

/* Words into the data area: descriptors, dependency tables, TAKE words. */
static void op_data(struct fz_world *w, struct fz_in *in)
{
	uint32_t off = (in8(in) | (uint32_t)in8(in) << 8) % (DATA_BYTES / 4);
	uint32_t n = in8(in) % 32 + 1, i, lo, hi = 0;
	uint32_t *p = (uint32_t *)w->host[FZ_A_DATA];

	for (i = 0; i < n && off + i < DATA_BYTES / 4; i++) {
		if (fz_word(w, in, &lo, &hi) == 2 && off + i + 1 < DATA_BYTES / 4) {
			p[off + i] = lo;
			p[off + ++i] = hi;
		} else {
			p[off + i] = lo;
		}
	}
}

static void op_reset(struct fz_world *w, struct fz_in *in)
{
	uint8_t b = in8(in);
	unsigned int g;

	if (b & 1) {
		vg_device_reset(w->dev);
		for (g = 0; g < w->gpus && !(b & 2); g++)
			program_gpu(w, g);
		return;
	}
	g = (b >> 2) % w->gpus;
	th_wr(w->th, g, VMGPU_GPU_RESET, 1);
	if (!(b & 2))
		program_gpu(w, g);
}

/* The registers of a GPU's page a driver touches, then the device's. */
static const uint32_t gpu_regs[] = {
	VMGPU_GPU_RING_BASE_LO, VMGPU_GPU_RING_BASE_HI, VMGPU_GPU_RING_ENTRIES,
	VMGPU_GPU_RING_HEAD, VMGPU_GPU_RING_TAIL, VMGPU_GPU_DOORBELL,
	VMGPU_GPU_FENCE_ADDR_LO, VMGPU_GPU_FENCE_ADDR_HI, VMGPU_GPU_FENCE_LO,
	VMGPU_GPU_INT_STATUS, VMGPU_GPU_INT_MASK, VMGPU_GPU_INT_ACK,
	VMGPU_GPU_CONTROL, VMGPU_GPU_RESET, VMGPU_GPU_STATUS,
	VMGPU_GPU_TIMESTAMP_LO, VMGPU_GPU_MMU_INVALIDATE, VMGPU_GPU_ERR_CODE,
	VMGPU_GPU_AS_ROOT_LO(0), VMGPU_GPU_AS_ROOT_HI(0),
	VMGPU_GPU_AS_ROOT_LO(1), VMGPU_GPU_AS_ROOT_LO(7),
	VMGPU_GPU_CNT_LO(0), VMGPU_GPU_CNT_HI(3), VMGPU_GPU_WD_CTRL,
	VMGPU_GPU_WD_STATUS, VMGPU_GPU_WD_MODE, VMGPU_GPU_WD_SLOTS,
	VMGPU_GPU_WD_SM_ORDER(0), VMGPU_GPU_WD_SM_ORDER(15),
};

static const uint32_t dev_regs[] = {
	VMGPU_REG_MAGIC, VMGPU_REG_SCRATCH, VMGPU_REG_TRACE_CTRL,
	VMGPU_REG_TRACE_ADDR_LO, VMGPU_REG_TRACE_ADDR_HI, VMGPU_REG_TRACE_SIZE,
	VMGPU_REG_TRACE_WRITTEN, VMGPU_REG_TRACE_DROPPED,
};

static void op_mmio(struct fz_world *w, struct fz_in *in)
{
	uint8_t b = in8(in), s;
	uint32_t off, v, hi = 0;

	if (b & 0x80)
		off = in32(in) % (VMGPU_GPU_REGS(VMGPU_MAX_GPUS) + 0x100);
	else if (b & 0x40)
		off = dev_regs[in8(in) % ARRAY_SIZE(dev_regs)];
	else
		off = VMGPU_GPU_REGS(b % w->gpus) +
		      gpu_regs[in8(in) % ARRAY_SIZE(gpu_regs)];
	if (b & 0x20) {
		vg_device_mmio_read(w->dev, off);
		return;
	}
	/*
	 * Registers take bus addresses: a page of the machine (0xf0..0xff,
	 * FZ_MMIO_BUS_PAGE), the last page of memory (0xe8..0xef), or any
	 * word as commands take them.
	 */
	s = in8(in);
	if (s >= FZ_MMIO_BUS_PAGE)
		v = (uint32_t)(in8(in) % w->bus_pages * PAGE) + (in8(in) & 0xf8);
	else if (s >= 0xe8)
		v = (uint32_t)(MEM_BYTES - PAGE) + (in8(in) & 0xf8);
	else
		fz_word_sel(w, in, s, &v, &hi);
	vg_device_mmio_write(w->dev, off, v);
}

/* An instruction of opcode @op whose operands come from the input. */
static uint64_t make_insn(struct fz_world *w, struct fz_in *in, uint32_t op,
			  uint32_t num_regs, uint32_t args_bytes)
{
	struct vmgpu_isa_opinfo oi;
	uint32_t d = in8(in) % num_regs, a = in8(in) % num_regs;
	uint32_t b = in8(in) % num_regs, imm = 0, hi = 0;
	uint64_t insn;

	if (!vmgpu_isa_opinfo(op, &oi))
		return 0;
	fz_word(w, in, &imm, &hi);
	switch (oi.fmt) {
	case VMGPU_FMT_NONE:
		return op;
	case VMGPU_FMT_BRA:
		/* Targets mostly inside the code, some past it. */
		return VMGPU_INSN(op, 0, (d & 1) ? VMGPU_BRA_ALWAYS : a & 0x47,
				  0, imm % (MAX_INSNS + 2));
	case VMGPU_FMT_ARG:
		return VMGPU_INSN(op, d, 0, 0,
				  args_bytes >= 8 ? imm % (args_bytes / 8) * 8 : 0);
	case VMGPU_FMT_SETP:
	case VMGPU_FMT_PRED2:
	case VMGPU_FMT_PRED1:
		d %= VMGPU_ISA_NUM_PREDS;
		if (oi.fmt != VMGPU_FMT_SETP) {
			a %= VMGPU_ISA_NUM_PREDS;
			b %= VMGPU_ISA_NUM_PREDS;
		}
		break;
	case VMGPU_FMT_SEL:
		imm %= VMGPU_ISA_NUM_PREDS;
		break;
	case VMGPU_FMT_LEA:
		imm %= 32;
		break;
	case VMGPU_FMT_ALU3:
	case VMGPU_FMT_CAS:
	case VMGPU_FMT_LAUNCH:
		imm %= num_regs;
		break;
	default:
		break;
	}
	/* Register forms: the unused fields zero, as the rules want. */
	insn = VMGPU_INSN(op, d, a, b, imm);
	if ((oi.flags & VMGPU_OPF_IMM) && (in8(in) & 1))
		insn = VMGPU_INSN(op | VMGPU_OP_IMM, d, a, 0, imm);
	if (!vmgpu_insn_valid(insn, VMGPU_ISA_VERSION, num_regs, args_bytes))
		insn = VMGPU_INSN(op, d, a, b, 0);
	if (!vmgpu_insn_valid(insn, VMGPU_ISA_VERSION, num_regs, args_bytes))
		insn = VMGPU_INSN(op, d, a, 0, 0);
	if (!vmgpu_insn_valid(insn, VMGPU_ISA_VERSION, num_regs, args_bytes))
		insn = VMGPU_INSN(op, d, 0, 0, imm);
	if (!vmgpu_insn_valid(insn, VMGPU_ISA_VERSION, num_regs, args_bytes))
		insn = VMGPU_INSN(VMGPU_OP_NOP, 0, 0, 0, 0);
	return insn;
}

static const uint8_t isa_ops[] = {
#define FZ_ISA_OP(name, code, mnem, fmt, flags, bytes) code,
	VMGPU_ISA_OPCODES(FZ_ISA_OP)
#undef FZ_ISA_OP
};

/* A kernel into slot @slot: a header of any values, then instructions. */
static void op_kernel(struct fz_world *w, struct fz_in *in)
{
	uint8_t f = in8(in);
	uint32_t slot = f % KERNEL_SLOTS, i, n;
	uint8_t *image = w->host[FZ_A_KERNEL0 + slot];
	struct vmgpu_exec_header h;

	memset(&h, 0, sizeof(h));
	h.magic = VMGPU_EXEC_MAGIC;
	h.isa_version = VMGPU_ISA_VERSION;
	h.num_regs = in8(in) % 40 + 1;
	h.shared_bytes = (in8(in) % 8) * 1024;
	h.args_bytes = (in8(in) % 5) * 8;
	h.code_insns = n = in8(in) % MAX_INSNS + 1;
	if (f & 0x80) {
		/* Any header at all (each field's limits). */
		h.magic = in32(in);
		h.isa_version = in32(in);
		h.num_regs = in32(in);
		h.shared_bytes = in32(in);
		h.args_bytes = in32(in);
		h.code_insns = in32(in);
		h.sig_bytes = in32(in);
		h.reserved = in32(in);
	}
	memcpy(image, &h, sizeof(h));
	if (!h.num_regs || h.num_regs > VMGPU_ISA_MAX_REGS || h.args_bytes > 64)
		h.num_regs = 1, h.args_bytes = 0;
	for (i = 0; i < n; i++) {
		uint8_t s = in8(in);
		uint64_t insn;

		if (s >= 0xe0) {
			insn = (uint64_t)in32(in) | (uint64_t)in32(in) << 32;
		} else if (s >= 0xd0) {
			insn = VMGPU_INSN(VMGPU_OP_EXIT, 0, 0, 0, 0);
		} else {
			insn = make_insn(w, in, isa_ops[s % sizeof(isa_ops)],
					 h.num_regs, h.args_bytes);
		}
		memcpy(image + VMGPU_EXEC_HEADER_BYTES + 8 * i, &insn, 8);
	}
}

/* A packet that dispatches a kernel well: the input picks its shape. */
static void op_launch(struct fz_world *w, struct fz_in *in)
{
	uint8_t k = in8(in), s = in8(in);
	unsigned int kernel = k & 4 ? FZ_A_STORE + (k & 3) : FZ_A_KERNEL0 + (k & 3);
	uint64_t code = w->addr[kernel];
	uint64_t args = w->addr[FZ_A_ARGS] + (in8(in) % 16) * ARGS_BLOCK;
	const struct vmgpu_exec_header *h =
		(const struct vmgpu_exec_header *)w->host[kernel];
	uint32_t grid[3] = { in8(in) % 8 + 1, s % 3 + 1, 1 };
	uint32_t block[3] = { in8(in) % 64 + 1, 1, 1 };
	uint32_t args_bytes = h->args_bytes <= ARGS_BLOCK ? h->args_bytes : 0;
	struct vmgpu_cmd_dispatch c;
	struct vmgpu_cmd_sync y;
	unsigned int gpu = (k >> 3) % w->gpus, n;

	if (s & 0x80)
		block[0] = 32 * (block[0] % 32 + 1);
	if (s & 0x40)
		block[1] = 2;
	/* One dispatch, or two with a SYNC between (the one packet index). */
	for (n = 0; n < (s & 0x20 ? 2u : 1u); n++) {
		c = vmgpu_encode_dispatch(code, args, args_bytes, grid, block,
					  NULL, NULL, (s & 0x10) ? 256 : 0,
					  (s >> 2) & 3);
		if (n) {
			y = vmgpu_encode_sync(1, 0);
			memcpy(w->cmd + w->cmd_n, &y, sizeof(y));
			w->cmd_n += sizeof(y) / 4;
		}
		memcpy(w->cmd + w->cmd_n, &c, sizeof(c));
		w->cmd_n += sizeof(c) / 4;
	}
	cmd_put(w, VMGPU_CMD_HEADER(VMGPU_CMD_END));
	submit_words(w, gpu, VMGPU_RING_F_IRQ, 0, 0);
	if (!(k & 0x40))
		run(w);
}

/*
 * The oracle besides the sanitizers: whatever the input did, after a
 * device reset (which the guest's driver can always do) every GPU runs a
 * known packet of another address space, its pages as they were made,
 * to the right result. An
 * input that leaves state behind a reset (finding 19), stalls a GPU or
 * breaks another context's memory is a failure like a crash: abort().
 */
static void check_isolation(struct fz_world *w)
{
	static const uint32_t one[3] = { 1, 1, 1 };
	const uint32_t block[3] = { CANARY_THREADS, 1, 1 };
	uint32_t words[8 + 22 * 8], n = 0, i, *out;
	struct vmgpu_cmd_dispatch c;
	unsigned int g;
	uint64_t seq;

	vg_device_reset(w->dev);
	/*
	 * No address of the input's reaches the canary's pages, but a bus
	 * address in a register (a fence, the trace buffer) may have: the
	 * guest's right. They are made again, as they were.
	 */
	memcpy(w->th->mem + w->canary_bus, w->canary_image,
	       w->canary_end - w->canary_bus);
	out = th_va(w->th, &w->canary_as, w->canary_out);
	c = vmgpu_encode_dispatch(w->canary_code, w->canary_args, 8, one, block,
				  NULL, NULL, 0, 0);
	for (i = 0; i < 8; i++) {
		memcpy(words + n, &c, sizeof(c));
		n += sizeof(c) / 4;
	}
	words[n++] = VMGPU_CMD_HEADER(VMGPU_CMD_END);
	memcpy(th_va(w->th, &w->canary_as, w->canary_cmd), words, 4 * n);
	for (g = 0; g < w->gpus; g++) {
		program_gpu(w, g);
		memset(out, 0xff, 4 * CANARY_THREADS);
		seq = ++w->seqno;
		th_push(w->th, g, w->canary_cmd, 4 * n, seq, VMGPU_RING_F_IRQ,
			CANARY_SLOT, 0);
		th_doorbell(w->th, g);
		vg_device_run(w->dev);
		if (th_fence_mem(w->th, g) != seq ||
		    th_rd(w->th, g, VMGPU_GPU_ERR_CODE)) {
			fprintf(stderr,
				"fuzzdev: after a device reset, GPU %u did not run a good packet (fence %llu of %llu, fault %u)\n",
				g, (unsigned long long)th_fence_mem(w->th, g),
				(unsigned long long)seq,
				th_rd(w->th, g, VMGPU_GPU_ERR_CODE));
			abort();
		}
		for (i = 0; i < CANARY_THREADS; i++) {
			if (out[i] != i) {
				fprintf(stderr,
					"fuzzdev: GPU %u's good packet stored %u at %u\n",
					g, out[i], i);
				abort();
			}
		}
	}
}

/* What the input made the GPUs do (VMGPU_FUZZ_VERBOSE): to check seeds. */
static void report(struct fz_world *w)
{
	unsigned int g;

	for (g = 0; g < w->gpus; g++)
		fprintf(stderr,
			"gpu %u: packets %llu dispatches %llu blocks %llu errors %llu (last fault %u at %#llx pc %u)\n",
			g,
			(unsigned long long)th_rd64(w->th, g, VMGPU_GPU_CNT_LO(VMGPU_CNT_PACKETS)),
			(unsigned long long)th_rd64(w->th, g, VMGPU_GPU_CNT_LO(VMGPU_CNT_DISPATCHES)),
			(unsigned long long)th_rd64(w->th, g, VMGPU_GPU_CNT_LO(VMGPU_CNT_BLOCKS)),
			(unsigned long long)th_rd64(w->th, g, VMGPU_GPU_CNT_LO(VMGPU_CNT_ERRORS)),
			th_rd(w->th, g, VMGPU_GPU_ERR_CODE),
			(unsigned long long)th_rd64(w->th, g, VMGPU_GPU_ERR_ADDR_LO),
			th_rd(w->th, g, VMGPU_GPU_ERR_PC));
}

int fz_one_input(const uint8_t *data, size_t size, uint32_t allowed)
{
	struct fz_in in = { data, size };
	struct fz_world *w;
	unsigned int ops = 0;

	if (!size || !allowed)
		return 0;
	w = calloc(1, sizeof(*w));
	if (!w)
		abort();
	world_init(w, in8(&in));
	/* Each operation uses its bytes; an input is at most 512 of them. */
	while (in.n && ops++ < 512) {
		uint32_t op = in8(&in) % FZ_OP_COUNT;

		while (!(allowed & FZ_ALLOW(op)))
			op = (op + 1) % FZ_OP_COUNT;
		/* The open buffer is full: it goes on a ring. */
		if (w->cmd_n > CMD_CHUNK_WORDS - 64)
			submit_words(w, 0, 0, 0, 0);
		switch (op) {
		case FZ_OP_CMD:
			op_cmd(w, &in);
			break;
		case FZ_OP_SUBMIT:
			op_submit(w, &in);
			break;
		case FZ_OP_RUN:
			run(w);
			break;
		case FZ_OP_POKE:
			op_poke(w, &in);
			break;
		case FZ_OP_DATA:
			op_data(w, &in);
			break;
		case FZ_OP_RESET:
			op_reset(w, &in);
			break;
		case FZ_OP_MMIO:
			op_mmio(w, &in);
			break;
		case FZ_OP_KERNEL:
			op_kernel(w, &in);
			break;
		case FZ_OP_LAUNCH:
			op_launch(w, &in);
			break;
		}
	}
	run(w);
	if (getenv("VMGPU_FUZZ_VERBOSE"))
		report(w);
	check_isolation(w);
	world_free(w);
	free(w);
	return 0;
}
