// SPDX-License-Identifier: GPL-2.0-only
/*
 * fzseeds DIR: write the fuzz targets' seed corpora, regression inputs and
 * dictionaries under DIR (selftests/fuzz; `make fuzz-seeds`), as inputs of
 * fuzzdev.h's format: the packets of the host tests (dispatches with
 * SYNCs and barriers, memory commands, task descriptors, queues,
 * dependency tables, TAKE, SKIP_IF, asynchronous copies), the built-in
 * kernels and the register sequences of a driver. Each seed is one file,
 * DIR/corpus/TARGET/NAME; regression inputs (crashes found and fixed)
 * are DIR/regress/TARGET/NAME, and scripts/fuzz runs them before fuzzing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzzdev.h"
#include "vmgpu.h"
#include "vmgpu_cmd.h"
#include "vmgpu_isa.h"

/*
 * Interesting address @which + 4 * @delta, as an encoder's argument: the
 * words that hold it become fz_put_addr() in the input.
 */
#define PH_HI		0x7a5a0000u
/* @delta is a signed byte: -128..127 words. */
#define PH(which, delta)						\
	((uint64_t)(PH_HI | (which)) << 32 | (uint32_t)((delta) * 4))

static const char *outdir;

static void write_file(const char *kind, const char *target, const char *name,
		       const struct fz_writer *w)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, kind);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", outdir, kind, target);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s/%s", outdir, kind, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(w->buf, 1, w->n, f) != w->n || fclose(f)) {
		fprintf(stderr, "fzseeds: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/* One command from its encoded words (header first). */
static void put_cmd(struct fz_writer *w, const void *cmd, uint32_t words)
{
	const uint32_t *c = cmd;
	uint32_t i;

	fz_put8(w, FZ_OP_CMD);
	fz_put8(w, VMGPU_CMD_OP(c[0]));
	for (i = 1; i < words; i++) {
		if (i + 1 < words && (c[i + 1] & 0xffff0000u) == PH_HI) {
			fz_put_addr(w, c[i + 1] & 0xff, (uint8_t)((int32_t)c[i] / 4));
			i++;
		} else if (c[i] < 64) {
			fz_put_small(w, c[i]);
		} else {
			fz_put_raw(w, c[i]);
		}
	}
}

#define PUT(w, cmd)							\
	do {								\
		__typeof__(cmd) c_ = (cmd);				\
		put_cmd((w), &c_, sizeof(c_) / 4);			\
	} while (0)

/* SUBMIT with END appended, on @gpu, interrupt on completion. */
static void submit(struct fz_writer *w, uint8_t gpu)
{
	fz_put8(w, FZ_OP_SUBMIT);
	fz_put8(w, gpu);
	fz_put8(w, 1 | 2);
	fz_put8(w, 0);
}

static void run(struct fz_writer *w)
{
	fz_put8(w, FZ_OP_RUN);
}

static struct vmgpu_cmd_dispatch dispatch(uint8_t kernel, uint8_t args_block,
					  uint32_t args_bytes, uint32_t gx,
					  uint32_t bx)
{
	uint32_t grid[3] = { gx, 1, 1 }, block[3] = { bx, 1, 1 };

	return vmgpu_encode_dispatch(PH(kernel, 0),
				     args_bytes ? PH(FZ_A_ARGS, 16 * args_block) : 0,
				     args_bytes, grid, block, NULL, NULL, 0, 0);
}

/* The packets, as the host tests send them (test_cmdproc, test_deps). */
static void packet_seeds(void)
{
	struct vmgpu_region_map map;
	struct vmgpu_curve curve;
	struct vmgpu_cmd_copy rect;
	struct fz_writer w;
	uint32_t region[3] = { 1, 1, 1 };

	w.n = 0;
	fz_put8(&w, 0);			/* one GPU */
	PUT(&w, dispatch(FZ_A_STORE, 0, 8, 2, 32));
	submit(&w, 0);
	run(&w);
	write_file("corpus", "fuzz_packet", "dispatch", &w);

	w.n = 0;
	fz_put8(&w, 1);			/* two GPUs */
	PUT(&w, vmgpu_encode_set_state(VMGPU_STATE_INSTR_BUDGET, 1000));
	PUT(&w, dispatch(FZ_A_STORE, 0, 8, 1, 32));
	PUT(&w, vmgpu_encode_sync(1, 0));
	PUT(&w, dispatch(FZ_A_ATOM, 0, 8, 4, 8));
	PUT(&w, vmgpu_encode_barrier());
	PUT(&w, dispatch(FZ_A_ATOM, 1, 8, 1, 1));
	submit(&w, 1);
	run(&w);
	write_file("corpus", "fuzz_packet", "sync-barrier", &w);

	w.n = 0;
	fz_put8(&w, 0);
	PUT(&w, vmgpu_encode_timestamp(PH(FZ_A_RW, 2)));
	PUT(&w, vmgpu_encode_write_value(PH(FZ_A_RW, 4), 5));
	PUT(&w, vmgpu_encode_wait_value(PH(FZ_A_RW, 4), VMGPU_WAIT_EQ, 5,
					~0u));
	PUT(&w, vmgpu_encode_copy(PH(FZ_A_RW, 0), PH(FZ_A_RW, 64), 64, 4, 128,
				  128));
	PUT(&w, vmgpu_encode_nop());
	submit(&w, 0);
	run(&w);
	write_file("corpus", "fuzz_packet", "memory-commands", &w);

	w.n = 0;
	fz_put8(&w, 1);
	PUT(&w, vmgpu_encode_wait_value(PH(FZ_A_REMOTE, 0), VMGPU_WAIT_GE, 1,
					~0u));
	PUT(&w, dispatch(FZ_A_STORE, 0, 8, 1, 4));
	submit(&w, 1);
	PUT(&w, vmgpu_encode_write_value(PH(FZ_A_REMOTE, 0), 1));
	submit(&w, 0);
	run(&w);
	write_file("corpus", "fuzz_packet", "cross-gpu-wait", &w);

	w.n = 0;
	fz_put8(&w, 0);
	PUT(&w, vmgpu_encode_launch_tmd(PH(FZ_A_DATA, 0)));
	PUT(&w, vmgpu_encode_launch_tmd(PH(FZ_A_QUEUE, 0)));
	PUT(&w, dispatch(FZ_A_PRODUCER, FZ_A_QUEUE, 8, 2, 16));
	PUT(&w, vmgpu_encode_sync(3, 0));
	PUT(&w, dispatch(FZ_A_PARENT, FZ_A_CMD, 16, 1, 3));
	submit(&w, 0);
	run(&w);
	write_file("corpus", "fuzz_packet", "tmd-queue-launch", &w);

	/* DEP_SIGNAL on one GPU, DEP_WAIT on another, table in the data area. */
	w.n = 0;
	fz_put8(&w, 1);
	PUT(&w, vmgpu_encode_dep_signal(0, 1, PH(FZ_A_DATA, 96), 4, 0,
					region));
	PUT(&w, dispatch(FZ_A_STORE, 0, 8, 2, 8));
	submit(&w, 0);
	memset(&map, 0, sizeof(map));
	map.kind = VMGPU_MAP_IDENTITY;
	map.policy = VMGPU_MAP_CLAMP;
	{
		uint32_t pgrid[3] = { 2, 1, 1 }, cgrid[3] = { 2, 1, 1 };
		uint32_t cfirst[3] = { 0, 0, 0 }, ccount[3] = { 2, 1, 1 };

		PUT(&w, vmgpu_encode_dep_wait(1, PH(FZ_A_DATA, 96), 4, 0,
					      pgrid, cgrid, cfirst, ccount,
					      &map));
	}
	PUT(&w, dispatch(FZ_A_ATOM, 0, 8, 1, 1));
	submit(&w, 1);
	run(&w);
	write_file("corpus", "fuzz_packet", "dep-signal-wait", &w);

	/* TAKE over the data area's task, claim words after the table. */
	w.n = 0;
	fz_put8(&w, 0);
	memset(&curve, 0, sizeof(curve));
	curve.kind = VMGPU_CURVE_SERPENTINE;
	{
		uint32_t pgrid[3] = { 1, 1, 1 };

		PUT(&w, vmgpu_encode_take(1, PH(FZ_A_DATA, 0), PH(FZ_A_DATA, 120),
					  PH(FZ_A_DATA, 96), 4, 0,
					  VMGPU_TAKE_NO_WAIT, 2, pgrid, &curve,
					  NULL));
	}
	submit(&w, 0);
	run(&w);
	write_file("corpus", "fuzz_packet", "take", &w);

	w.n = 0;
	fz_put8(&w, 0);
	PUT(&w, dispatch(FZ_A_STORE, 0, 8, 1, 1));
	PUT(&w, vmgpu_encode_sync(1, 0));
	PUT(&w, vmgpu_encode_skip_if(PH(FZ_A_RW, 0), VMGPU_WAIT_EQ, 0, ~0u, 0,
				     1));
	PUT(&w, dispatch(FZ_A_ATOM, 0, 8, 1, 1));
	submit(&w, 0);
	run(&w);
	write_file("corpus", "fuzz_packet", "skip-if", &w);

	w.n = 0;
	fz_put8(&w, 1);
	rect = vmgpu_encode_copy(PH(FZ_A_RW, 0), PH(FZ_A_REMOTE, 0), 256, 2,
				 256, 256);
	PUT(&w, vmgpu_encode_dep_signal(0, 1, PH(FZ_A_DATA, 96), 4, 0,
					region));
	PUT(&w, dispatch(FZ_A_STORE, 0, 8, 1, 32));
	PUT(&w, vmgpu_encode_copy_async(&rect, 1, PH(FZ_A_DATA, 96), 0,
					PH(FZ_A_DATA, 104), 0));
	PUT(&w, vmgpu_encode_copy_async(&rect, 0, 0, 0, 0, 0));
	submit(&w, 0);
	run(&w);
	write_file("corpus", "fuzz_packet", "copy-async", &w);

	/* Finding 13: SYNC consumer 0xffffffff (QEMU SIGSEGV in cp_execute). */
	w.n = 0;
	fz_put8(&w, 0);
	PUT(&w, dispatch(FZ_A_STORE, 0, 8, 1, 1));
	PUT(&w, vmgpu_encode_sync(0xffffffffu, 0));
	PUT(&w, dispatch(FZ_A_STORE, 0, 8, 1, 1));
	submit(&w, 0);
	run(&w);
	write_file("regress", "fuzz_packet", "finding-13-sync-consumer-wraps",
		   &w);

	/*
	 * Finding 19: a packet refused at a LAUNCH_TMD (a descriptor of
	 * zeros) after SYNC(2, 0) left dispatch 2's count behind; the
	 * isolation check's packet then never completed.
	 */
	w.n = 0;
	fz_put8(&w, 0);
	PUT(&w, dispatch(FZ_A_STORE, 0, 8, 1, 1));
	PUT(&w, vmgpu_encode_sync(2, 0));
	PUT(&w, vmgpu_encode_launch_tmd(PH(FZ_A_RW, 0)));
	PUT(&w, dispatch(FZ_A_STORE, 0, 8, 1, 1));
	submit(&w, 0);
	run(&w);
	write_file("regress", "fuzz_packet",
		   "finding-19-sync-count-outlives-its-packet", &w);
}

/* KERNEL of an assembled image into @slot (raw instructions). */
static int put_kernel(struct fz_writer *w, uint8_t slot, const void *image)
{
	struct vmgpu_exec_header h;
	const uint8_t *code = (const uint8_t *)image + VMGPU_EXEC_HEADER_BYTES;
	uint32_t i;

	memcpy(&h, image, sizeof(h));
	if (h.num_regs > 40 || h.args_bytes > 32 || h.args_bytes % 8 ||
	    h.code_insns > 64 || h.shared_bytes % 1024 ||
	    h.shared_bytes > 7 * 1024)
		return -1;
	fz_put8(w, FZ_OP_KERNEL);
	fz_put8(w, slot);
	fz_put8(w, h.num_regs - 1);
	fz_put8(w, h.shared_bytes / 1024);
	fz_put8(w, h.args_bytes / 8);
	fz_put8(w, h.code_insns - 1);
	for (i = 0; i < h.code_insns; i++) {
		uint32_t lo, hi;

		memcpy(&lo, code + 8 * i, 4);
		memcpy(&hi, code + 8 * i + 4, 4);
		fz_put8(w, 0xe0);
		fz_put32(w, lo);
		fz_put32(w, hi);
	}
	return 0;
}

static void launch(struct fz_writer *w, uint8_t slot, uint8_t args_block,
		   uint8_t gx, uint8_t bx, uint8_t shape)
{
	fz_put8(w, FZ_OP_LAUNCH);
	fz_put8(w, slot);
	fz_put8(w, shape);
	fz_put8(w, args_block);
	fz_put8(w, gx - 1);
	fz_put8(w, bx - 1);
}

/* The built-in kernels that fit a slot, each launched on its own. */
static void kernel_seeds(void)
{
	const char *const *names = vmgpu_builtin_kernel_names();
	struct fz_writer w;
	unsigned int i, n = 0;

	for (i = 0; names[i]; i++) {
		char err[256], name[64];
		void *image;
		size_t bytes;

		if (vmgpu_asm_assemble(vmgpu_builtin_kernel_source(names[i]),
				       &image, &bytes, err, sizeof(err)))
			continue;
		w.n = 0;
		fz_put8(&w, n & 1);
		if (!put_kernel(&w, n % 4, image)) {
			launch(&w, n % 4, n % 16, 2, 32, 0);
			launch(&w, n % 4, (n + 1) % 16, 1, 64, 0x20);
			snprintf(name, sizeof(name), "builtin-%s", names[i]);
			write_file("corpus", "fuzz_kernel", name, &w);
			n++;
		}
		free(image);
	}
	/* The engine's own kernels: store, atomics, LAUNCH, ENQ. */
	for (i = 0; i < 4; i++) {
		char name[32];

		w.n = 0;
		fz_put8(&w, 1);
		launch(&w, 4 | i, i == 3 ? FZ_A_QUEUE : i == 2 ? FZ_A_CMD : i,
		       2, 8, 0);
		snprintf(name, sizeof(name), "engine-kernel-%u", i);
		write_file("corpus", "fuzz_kernel", name, &w);
	}
}

/* A driver's register traffic: reprogramming, traces, policies, resets. */
static void regs_seeds(void)
{
	struct fz_writer w;

	w.n = 0;
	fz_put8(&w, 1);
	launch(&w, 4, 0, 2, 32, 0x40);	/* queued, not run */
	fz_put8(&w, FZ_OP_RESET);
	fz_put8(&w, 0);			/* GPU 0, reprogrammed */
	run(&w);
	launch(&w, 5, 0, 1, 1, 0);
	write_file("corpus", "fuzz_regs", "gpu-reset", &w);

	w.n = 0;
	fz_put8(&w, 3);
	/* Trace into the page after the ring of GPU 0, then run. */
	fz_put8(&w, FZ_OP_MMIO);
	fz_put8(&w, 0x40);
	fz_put8(&w, 3);			/* TRACE_ADDR_LO */
	fz_put8(&w, FZ_MMIO_BUS_PAGE);
	fz_put8(&w, 8);			/* bus page 8 */
	fz_put8(&w, 0);
	fz_put8(&w, FZ_OP_MMIO);
	fz_put8(&w, 0x40);
	fz_put8(&w, 5);			/* TRACE_SIZE */
	fz_put_raw(&w, 8192);
	fz_put8(&w, FZ_OP_MMIO);
	fz_put8(&w, 0x40);
	fz_put8(&w, 2);			/* TRACE_CTRL */
	fz_put_small(&w, 1);
	launch(&w, 4, 0, 4, 32, 0);
	write_file("corpus", "fuzz_regs", "trace", &w);

	w.n = 0;
	fz_put8(&w, 1);
	fz_put8(&w, FZ_OP_MMIO);
	fz_put8(&w, 0);			/* GPU 0 */
	fz_put8(&w, 26);		/* WD_MODE */
	fz_put_small(&w, 1);
	fz_put8(&w, FZ_OP_MMIO);
	fz_put8(&w, 0);
	fz_put8(&w, 24);		/* WD_CTRL */
	fz_put_small(&w, 1);
	launch(&w, 5, 0, 4, 8, 0);
	fz_put8(&w, FZ_OP_RESET);
	fz_put8(&w, 1);			/* the device */
	launch(&w, 4, 0, 1, 1, 0);
	write_file("corpus", "fuzz_regs", "wd-policy-device-reset", &w);
}

/* Dictionaries: operations with their opcodes, magic words. */
static void dictionaries(void)
{
	static const char *const targets[] = {
		"fuzz_packet", "fuzz_kernel", "fuzz_regs",
	};
	char path[512];
	unsigned int t, op;
	FILE *f;

	for (t = 0; t < 3; t++) {
		snprintf(path, sizeof(path), "%s/%s.dict", outdir, targets[t]);
		f = fopen(path, "w");
		if (!f) {
			fprintf(stderr, "fzseeds: %s: %s\n", path,
				strerror(errno));
			exit(1);
		}
		fprintf(f, "# fzseeds: operations and their first bytes\n");
		for (op = 0; op < VMGPU_CMD_NUM_OPS; op++) {
			uint32_t hdr = VMGPU_CMD_HEADER(op);

			fprintf(f, "cmd_%u=\"\\x%02x\\x%02x\"\n", op, FZ_OP_CMD,
				op);
			fprintf(f, "hdr_%u=\"\\x80\\x%02x\\x%02x\\x%02x\\x%02x\"\n",
				op, hdr & 0xff, (hdr >> 8) & 0xff,
				(hdr >> 16) & 0xff, hdr >> 24);
		}
		for (op = 0; op < FZ_A_COUNT; op++)
			fprintf(f, "addr_%u=\"\\x%02x\\x00\"\n", op, 0x40 | op);
		fprintf(f, "exec_magic=\"\\x80\\x56\\x47\\x45\\x58\"\n");
		fprintf(f, "submit_end=\"\\x%02x\\x00\\x03\\x00\"\n",
			FZ_OP_SUBMIT);
		fprintf(f, "all_ones=\"\\x80\\xff\\xff\\xff\\xff\"\n");
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fzseeds DIR\n");
		return 2;
	}
	outdir = argv[1];
	packet_seeds();
	kernel_seeds();
	regs_seeds();
	dictionaries();
	return 0;
}
