// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM selftest: the OpenCL C compiler in the guest. Kernels are compiled
 * from source at run time (vmgpu_program_build(), and a kernel library
 * built for the device with vmgpu_kernlib_build_for_device(), the second
 * time from the kernel cache on the guest's tmpfs), run through the
 * driver and compared with the same computation in C: saxpy, a reduction
 * in local memory, a 3x3 stencil with clamped edges, atomics. A compile
 * error names its line.
 *
 * Linked dynamically (clang and LLVM are shared libraries): it runs in a
 * guest booted with scripts/vm-run --host-libs (scripts/check does).
 */
#include <math.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "vmgpu_test_util.h"
#include "../builtin_cases.h"
#include "../cl_sources.h"
#include "vmgpu/compiler.h"

static uint32_t rng_state = 4242;

static uint32_t rng(void)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return rng_state >> 8;
}

static float rng_float(void)
{
	return (float)(int32_t)(rng() % 16777216u - 8388608u) / 1048576.0f;
}

static uint32_t div_up(uint32_t a, uint32_t b)
{
	return (a + b - 1) / b;
}

static const char saxpy_src[] = CL_SAXPY_SRC;

static const char reduce_src[] = CL_REDUCE_SRC;

static const char blur_src[] = CL_BLUR_CLAMP_SRC;

/* Only order-independent atomics: blocks run in parallel on the device. */
static const char atom_src[] =
	CL_HIST_HEAD_SRC
	"	atomic_sub(&mm[2], 2);\n"
	"}\n";

FIXTURE(cc) {
	struct vmgpu_device *dev;
	struct vmgpu_context *ctx;
	struct vmgpu_cmdbuf *cb;
	uint32_t syncobj;
	struct vmgpu_bo *bos[16];
	int nbos;
};

FIXTURE_SETUP(cc)
{
	ASSERT_EQ(0, vmgpu_device_open(0, &self->dev, NULL, 0));
	ASSERT_EQ(0, vmgpu_context_create(self->dev, VMGPU_PRIORITY_NORMAL,
					  &self->ctx));
	ASSERT_EQ(0, vmgpu_cmdbuf_create(self->dev, &self->cb));
	ASSERT_EQ(0, vmgpu_syncobj_create(self->dev, &self->syncobj));
	self->nbos = 0;
}

FIXTURE_TEARDOWN(cc)
{
	while (self->nbos > 0)
		vmgpu_bo_destroy(self->bos[--self->nbos]);
	vmgpu_syncobj_destroy(self->dev, self->syncobj);
	vmgpu_cmdbuf_destroy(self->cb);
	vmgpu_context_destroy(self->ctx);
	vmgpu_device_close(self->dev);
}

/* A system-memory buffer of @bytes, mapped, zeroed; freed at teardown. */
static void *buffer(struct __test_metadata *_metadata, FIXTURE_DATA(cc) *self,
		    size_t bytes, struct vmgpu_bo **bo)
{
	void *map = NULL;

	if (self->nbos == (int)(sizeof(self->bos) / sizeof(self->bos[0])))
		return NULL;
	*bo = make_bo(self->dev, bytes, &map);
	if (*bo)
		self->bos[self->nbos++] = *bo;
	return map;
}

static struct vmgpu_program *build(const char *src, const char *opts)
{
	struct vmgpu_program *prog = NULL;
	char *log = NULL;

	if (vmgpu_program_build(src, opts, &prog, &log))
		fprintf(stderr, "# build log:\n%s\n", log ? log : "(none)");
	free(log);
	return prog;
}

/* Kernel @name of @prog in a kernel buffer (freed at teardown). */
static struct vmgpu_bo *load(struct __test_metadata *_metadata,
			     FIXTURE_DATA(cc) *self,
			     const struct vmgpu_program *prog, const char *name)
{
	struct vmgpu_bo *bo = NULL;
	const void *image;
	size_t bytes;
	char err[256];

	if (vmgpu_program_kernel_image(prog, name, &image, &bytes))
		return NULL;
	/* none of these kernels needs a private buffer */
	if (vmgpu_program_kernel_private_bytes(prog, name) != 0)
		return NULL;
	if (vmgpu_kernel_create(self->dev, image, bytes, &bo)) {
		vmgpu_error_message(self->dev, err, sizeof(err));
		fprintf(stderr, "# kernel_create %s: %s\n", name, err);
		return NULL;
	}
	self->bos[self->nbos++] = bo;
	return bo;
}

/* One dispatch of @kernel with @args on GPU 0, waited for. */
static int run(FIXTURE_DATA(cc) *self, const struct vmgpu_bo *kernel,
	       const struct vmgpu_args *args, const uint32_t grid[3],
	       const uint32_t block[3])
{
	struct vmgpu_dispatch_desc d = { .kernel = kernel, .typed_args = args };
	struct vmgpu_sync out = { .handle = self->syncobj };
	struct vmgpu_submit_info si = { .gpu = 0, .out = &out,
					.out_count = 1 };
	int ret, i;

	for (i = 0; i < 3; i++) {
		d.grid[i] = grid[i];
		d.block[i] = block[i];
	}
	vmgpu_cmdbuf_reset(self->cb);
	ret = vmgpu_cmdbuf_dispatch(self->cb, &d);
	if (ret >= 0)
		ret = vmgpu_submit(self->ctx, self->cb, &si);
	if (ret < 0) {
		char msg[256];

		vmgpu_error_message(self->dev, msg, sizeof(msg));
		fprintf(stderr, "# dispatch: %s\n", msg);
		return ret;
	}
	ret = vmgpu_syncobj_wait(self->dev, self->syncobj, 0, 60 * SEC_NS);
	if (ret)
		fprintf(stderr, "# the packet: %s\n", vmgpu_strerror(ret));
	return ret;
}

/*
 * saxpy of @prog over @n floats: y = a * x + y, contracted to one fma
 * (OpenCL's default), compared bit for bit.
 */
static void check_saxpy(struct __test_metadata *_metadata,
			FIXTURE_DATA(cc) *self,
			const struct vmgpu_program *prog, uint32_t n)
{
	const uint32_t bs = 64, grid[3] = { div_up(n, bs), 1, 1 };
	const uint32_t block[3] = { bs, 1, 1 };
	struct vmgpu_bo *k, *xb, *yb;
	struct vmgpu_args *args;
	float *x, *y, *y0;
	uint32_t i, bad = 0;

	k = load(_metadata, self, prog, "saxpy");
	ASSERT_NE(NULL, k);
	x = buffer(_metadata, self, n * 4, &xb);
	y = buffer(_metadata, self, n * 4, &yb);
	y0 = malloc(n * 4);
	ASSERT_NE(NULL, x);
	ASSERT_NE(NULL, y);
	ASSERT_NE(NULL, y0);
	for (i = 0; i < n; i++) {
		x[i] = rng_float();
		y[i] = y0[i] = rng_float();
	}
	ASSERT_EQ(0, vmgpu_args_create(k, &args));
	ASSERT_EQ(0, vmgpu_args_set_i32(args, 0, (int32_t)n));
	ASSERT_EQ(0, vmgpu_args_set_f32(args, 1, 1.7f));
	ASSERT_EQ(0, vmgpu_args_set_buffer(args, 2, xb, 0));
	ASSERT_EQ(0, vmgpu_args_set_buffer(args, 3, yb, 0));
	ASSERT_EQ(0, run(self, k, args, grid, block));
	for (i = 0; i < n; i++) {
		float r = fmaf(1.7f, x[i], y0[i]);

		if (memcmp(&r, &y[i], 4) && bad++ < 5)
			TH_LOG("y[%u] = %a, want %a", i, y[i], r);
	}
	EXPECT_EQ(0, bad);
	vmgpu_args_destroy(args);
	free(y0);
}

TEST_F(cc, saxpy_from_source)
{
	struct vmgpu_program *prog = build(saxpy_src, NULL);

	ASSERT_NE(NULL, prog);
	ASSERT_EQ(1, vmgpu_program_kernel_count(prog));
	EXPECT_EQ(VMGPU_PROGRAM_COMPILED, vmgpu_program_origin(prog));
	check_saxpy(_metadata, self, prog, 4099);
	vmgpu_program_destroy(prog);
}

/* A tree reduction per block in local memory, barriers between steps. */
TEST_F(cc, reduction_local_memory)
{
	const uint32_t n = 10000, bs = 128, nb = div_up(n, bs);
	const uint32_t grid[3] = { nb, 1, 1 }, block[3] = { bs, 1, 1 };
	struct vmgpu_program *prog = build(reduce_src, NULL);
	struct vmgpu_bo *k, *inb, *outb;
	struct vmgpu_args *args;
	uint32_t i, b, t, st;
	float *in, *out, s[128];

	ASSERT_NE(NULL, prog);
	k = load(_metadata, self, prog, "reduce");
	ASSERT_NE(NULL, k);
	in = buffer(_metadata, self, n * 4, &inb);
	out = buffer(_metadata, self, nb * 4, &outb);
	ASSERT_NE(NULL, in);
	ASSERT_NE(NULL, out);
	for (i = 0; i < n; i++)
		in[i] = rng_float();
	ASSERT_EQ(0, vmgpu_args_create(k, &args));
	ASSERT_EQ(0, vmgpu_args_set_i32(args, 0, (int32_t)n));
	ASSERT_EQ(0, vmgpu_args_set_buffer(args, 1, inb, 0));
	ASSERT_EQ(0, vmgpu_args_set_buffer(args, 2, outb, 0));
	ASSERT_EQ(0, run(self, k, args, grid, block));
	/* the same additions in the same order: bit for bit */
	for (b = 0; b < nb; b++) {
		for (t = 0; t < bs; t++)
			s[t] = b * bs + t < n ? in[b * bs + t] : 0.0f;
		for (st = bs / 2; st; st >>= 1)
			for (t = 0; t < st; t++)
				s[t] += s[t + st];
		ASSERT_EQ(0, memcmp(&s[0], &out[b], 4))
			TH_LOG("block %u: %a, want %a", b, out[b], s[0]);
	}
	vmgpu_args_destroy(args);
	vmgpu_program_destroy(prog);
}

/* A 3x3 box blur, the image's edges clamped; a 2-D index space. */
TEST_F(cc, stencil_clamped_edges)
{
	const uint32_t w = 77, h = 45;
	const uint32_t grid[3] = { div_up(w, 16), div_up(h, 8), 1 };
	const uint32_t block[3] = { 16, 8, 1 };
	struct vmgpu_program *prog = build(blur_src, NULL);
	struct vmgpu_bo *k, *inb, *outb;
	struct vmgpu_args *args;
	uint32_t i, bad = 0;
	float *in, *out;
	int x, y, dx, dy;

	ASSERT_NE(NULL, prog);
	k = load(_metadata, self, prog, "blur_clamp");
	ASSERT_NE(NULL, k);
	in = buffer(_metadata, self, w * h * 4, &inb);
	out = buffer(_metadata, self, w * h * 4, &outb);
	ASSERT_NE(NULL, in);
	ASSERT_NE(NULL, out);
	for (i = 0; i < w * h; i++)
		in[i] = rng_float();
	ASSERT_EQ(0, vmgpu_args_create(k, &args));
	ASSERT_EQ(0, vmgpu_args_set_buffer(args, 0, inb, 0));
	ASSERT_EQ(0, vmgpu_args_set_buffer(args, 1, outb, 0));
	ASSERT_EQ(0, vmgpu_args_set_i32(args, 2, (int32_t)w));
	ASSERT_EQ(0, vmgpu_args_set_i32(args, 3, (int32_t)h));
	ASSERT_EQ(0, run(self, k, args, grid, block));
	for (y = 0; y < (int)h; y++)
		for (x = 0; x < (int)w; x++) {
			float s = 0.0f, r;

			for (dy = -1; dy <= 1; dy++)
				for (dx = -1; dx <= 1; dx++) {
					int yy = y + dy, xx = x + dx;

					yy = yy < 0 ? 0 : yy > (int)h - 1 ? (int)h - 1 : yy;
					xx = xx < 0 ? 0 : xx > (int)w - 1 ? (int)w - 1 : xx;
					s += in[yy * w + xx];
				}
			r = s * (1.0f / 9.0f);
			if (memcmp(&r, &out[y * w + x], 4) && bad++ < 5)
				TH_LOG("(%d,%d) = %a, want %a", x, y,
				       out[y * w + x], r);
		}
	EXPECT_EQ(0, bad);
	vmgpu_args_destroy(args);
	vmgpu_program_destroy(prog);
}

/* A histogram and the other 32-bit atomics, from many blocks at once. */
TEST_F(cc, atomics)
{
	const uint32_t n = 5000, bs = 128;
	const uint32_t grid[3] = { div_up(n, bs), 1, 1 }, block[3] = { bs, 1, 1 };
	struct vmgpu_program *prog = build(atom_src, NULL);
	struct vmgpu_bo *k, *db, *binsb, *mmb, *bitsb;
	struct vmgpu_args *args;
	struct cl_hist_ref ref;
	uint32_t i;
	int32_t *mm;
	uint32_t *bins, *bits;
	uint8_t *d;

	ASSERT_NE(NULL, prog);
	k = load(_metadata, self, prog, "hist");
	ASSERT_NE(NULL, k);
	d = buffer(_metadata, self, n, &db);
	bins = buffer(_metadata, self, 257 * 4, &binsb);
	mm = buffer(_metadata, self, 3 * 4, &mmb);
	bits = buffer(_metadata, self, 3 * 4, &bitsb);
	ASSERT_NE(NULL, d);
	ASSERT_NE(NULL, bins);
	ASSERT_NE(NULL, mm);
	ASSERT_NE(NULL, bits);
	for (i = 0; i < n; i++)
		d[i] = (uint8_t)(rng() % 200);
	cl_hist_ref(d, n, &ref);
	mm[0] = 1 << 30;
	mm[1] = -(1 << 30);
	bits[1] = ~0u;
	ASSERT_EQ(0, vmgpu_args_create(k, &args));
	ASSERT_EQ(0, vmgpu_args_set_buffer(args, 0, db, 0));
	ASSERT_EQ(0, vmgpu_args_set_buffer(args, 1, binsb, 0));
	ASSERT_EQ(0, vmgpu_args_set_i32(args, 2, (int32_t)n));
	ASSERT_EQ(0, vmgpu_args_set_buffer(args, 3, mmb, 0));
	ASSERT_EQ(0, vmgpu_args_set_buffer(args, 4, bitsb, 0));
	ASSERT_EQ(0, run(self, k, args, grid, block));
	EXPECT_EQ(0, memcmp(ref.bins, bins, sizeof(ref.bins)));
	EXPECT_EQ(ref.mn, mm[0]);
	EXPECT_EQ(ref.mx, mm[1]);
	EXPECT_EQ(-2 * (int32_t)n, mm[2]);
	EXPECT_EQ(ref.or, bits[0]);
	EXPECT_EQ(ref.and, bits[1]);
	EXPECT_EQ(ref.xr, bits[2]);
	vmgpu_args_destroy(args);
	vmgpu_program_destroy(prog);
}

/* A compile error in the guest: the log names the file and the line. */
TEST(compile_error_names_its_line)
{
	static const char bad[] =
		"kernel void k(global int *p)\n{\n\tp[0] = 1;\n\tp[1] = q;\n}\n";
	struct vmgpu_program *prog = (void *)1;
	char *log = NULL;

	EXPECT_EQ(-EINVAL, vmgpu_program_build(bad, "-vmgpu-source-name=guest.cl",
					       &prog, &log));
	EXPECT_EQ(NULL, prog);
	ASSERT_NE(NULL, log);
	EXPECT_NE(NULL, strstr(log, "guest.cl:4:"))
		TH_LOG("log: %s", log);
	EXPECT_NE(NULL, strstr(log, "undeclared"))
		TH_LOG("log: %s", log);
	free(log);
}

/*
 * A kernel library with only source, built for the device's ISA
 * version: compiled and stored in the kernel cache (a directory on the
 * guest's tmpfs) the first time, read from it the second; both programs
 * run saxpy right.
 */
TEST_F(cc, kernlib_build_for_device_and_cache)
{
	char dir[] = "/tmp/vmgpu-kcache.XXXXXX";
	struct vmgpu_compiler_stats st;
	struct vmgpu_compiler *cc = NULL;
	struct vmgpu_kernlib *lib = NULL;
	struct vmgpu_program *prog = NULL;
	char *log = NULL;
	uint64_t isa = 0;

	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, vmgpu_get_param(self->dev, DRM_VMGPU_PARAM_ISA_VERSION,
				     &isa));
	ASSERT_EQ(0, vmgpu_compiler_create(dir, 0, &cc));
	EXPECT_EQ(0, strcmp(dir, vmgpu_compiler_cache_dir(cc)));
	ASSERT_EQ(0, vmgpu_kernlib_create("guest", saxpy_src, NULL, &lib));

	ASSERT_EQ(0, vmgpu_kernlib_build_for_device(cc, lib, self->dev, NULL,
						    &prog, &log))
		TH_LOG("log: %s", log ? log : "(none)");
	free(log);
	log = NULL;
	EXPECT_EQ(VMGPU_PROGRAM_COMPILED, vmgpu_program_origin(prog));
	EXPECT_EQ((int)isa, vmgpu_program_isa_version(prog));
	ASSERT_EQ(0, vmgpu_compiler_get_stats(cc, &st));
	EXPECT_EQ(1, st.builds);
	EXPECT_EQ(1, st.compiles);
	EXPECT_EQ(1, st.cache_misses);
	EXPECT_EQ(1, st.cache_stores);
	EXPECT_EQ(0, st.cache_hits);
	check_saxpy(_metadata, self, prog, 1000);
	vmgpu_program_destroy(prog);
	prog = NULL;

	/* the same library again: from the cache, nothing compiled */
	ASSERT_EQ(0, vmgpu_kernlib_build_for_device(cc, lib, self->dev, NULL,
						    &prog, &log))
		TH_LOG("log: %s", log ? log : "(none)");
	free(log);
	EXPECT_EQ(VMGPU_PROGRAM_CACHED, vmgpu_program_origin(prog));
	EXPECT_EQ((int)isa, vmgpu_program_isa_version(prog));
	ASSERT_EQ(0, vmgpu_compiler_get_stats(cc, &st));
	EXPECT_EQ(2, st.builds);
	EXPECT_EQ(1, st.compiles);
	EXPECT_EQ(1, st.cache_hits);
	check_saxpy(_metadata, self, prog, 1000);

	vmgpu_program_destroy(prog);
	vmgpu_kernlib_destroy(lib);
	vmgpu_compiler_destroy(cc);
}

/*
 * The built-in kernels in OpenCL C (vmgpu_builtin_kernels_opencl()),
 * compiled in the guest, give the hand-written assembly's results bit
 * for bit on the device: each case runs both forms on the same inputs
 * and compares every buffer afterwards.
 */
TEST_F(cc, builtins_in_opencl_match_the_assembly)
{
	struct vmgpu_program *prog = build(vmgpu_builtin_kernels_opencl(), NULL);
	uint32_t ci, i, f;

	ASSERT_NE(NULL, prog);
	for (ci = 0; ci < BK_CASES; ci++) {
		const struct bk_case *bc = &bk_cases[ci];
		struct vmgpu_bo *k[2], *bo[2][3];
		uint8_t *map[2][3];

		k[0] = make_kernel(self->dev, vmgpu_builtin_kernel_source(bc->name));
		ASSERT_NE(NULL, k[0]);
		k[1] = load(_metadata, self, prog, bc->name);
		ASSERT_NE(NULL, k[1]);
		/* Two sets of buffers with the same contents. */
		for (i = 0; i < bc->nbuf; i++) {
			for (f = 0; f < 2; f++) {
				bo[f][i] = make_bo(self->dev, bc->buf[i].bytes,
						   (void **)&map[f][i]);
				ASSERT_NE(NULL, bo[f][i]);
			}
			bk_fill(&bc->buf[i], map[0][i], map[1][i], rng,
				rng_float);
		}
		for (f = 0; f < 2; f++) {
			struct vmgpu_args *a;

			ASSERT_EQ(0, vmgpu_args_create(k[f], &a));
			for (i = 0; i < bc->nscal; i++) {
				float x;

				memcpy(&x, &bc->scal[i][1], 4);
				/* an f32 parameter refuses i32: its bits then */
				ASSERT_EQ(0, vmgpu_args_set_i32(a, bc->scal[i][0],
								(int32_t)bc->scal[i][1]) &&
					     vmgpu_args_set_f32(a, bc->scal[i][0], x));
			}
			for (i = 0; i < bc->nbuf; i++)
				ASSERT_EQ(0, vmgpu_args_set_buffer(a, bc->buf[i].param,
								   bo[f][i], 0));
			ASSERT_EQ(0, run(self, k[f], a, bc->grid, bc->block)) {
				TH_LOG("%s, the %s form", bc->name,
				       f ? "OpenCL C" : "assembly");
			}
			vmgpu_args_destroy(a);
		}
		/* The output is written: not two untouched zero buffers. */
		for (i = 0; i < bc->buf[bc->nbuf - 1].bytes &&
			    !map[0][bc->nbuf - 1][i]; i++)
			;
		EXPECT_LT(i, bc->buf[bc->nbuf - 1].bytes) {
			TH_LOG("%s wrote nothing", bc->name);
		}
		for (i = 0; i < bc->nbuf; i++) {
			EXPECT_EQ(0, memcmp(map[0][i], map[1][i], bc->buf[i].bytes)) {
				TH_LOG("%s: buffer %u differs", bc->name, i);
			}
			for (f = 0; f < 2; f++)
				vmgpu_bo_destroy(bo[f][i]);
		}
		vmgpu_bo_destroy(k[0]);
	}
	vmgpu_program_destroy(prog);
}

TEST_HARNESS_MAIN
