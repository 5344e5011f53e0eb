/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the compiler's host tests (test_compiler*.c, test_kernlib.c)
 * share: kernels built with vmgpu_program_build(), loaded as a device of
 * an ISA version does and run block by block through the interpreter
 * over a test memory (testmem.h); the fixture "cc" with that memory; a
 * random number generator (each test starts from the same seed: the
 * harness runs every test in a fresh process). Header only: the compiler
 * is linked into these tests alone, not into every host test.
 */
#ifndef VMGPU_TESTCC_H
#define VMGPU_TESTCC_H

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "core/interp.h"
#include "testmem.h"
#include "vmgpu.h"
#include "vmgpu/compiler.h"

#define MEM_BASE	0x100000000ull
#define MEM_BYTES	(64u << 20)

static uint32_t rng_state = 777;

static inline uint32_t rng(void)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return rng_state >> 8;
}

static inline float rng_float(void)
{
	return (float)(int32_t)(rng() % 16777216u - 8388608u) / 1048576.0f;
}

static inline float rng_range(float lo, float hi)
{
	return lo + (hi - lo) * (float)(rng() % 16777216u) / 16777216.0f;
}

static inline uint32_t div_up(uint32_t a, uint32_t b)
{
	return (a + b - 1) / b;
}

/* A compiled kernel loaded for the interpreter, with its argument block. */
struct ck {
	struct vg_kernel *k;
	struct vmgpu_exec_header h;
	struct vmgpu_exec_sig sig;
	struct vmgpu_exec_param params[VMGPU_MAX_PARAMS];
	uint8_t args[VMGPU_MAX_ARGS_BYTES];
	uint32_t priv;			/* private bytes per thread */
};

static inline struct vmgpu_program *
build(struct __test_metadata *_metadata, const char *src, const char *opts)
{
	struct vmgpu_program *prog = NULL;
	char *log = NULL;
	int r = vmgpu_program_build(src, opts, &prog, &log);

	if (r)
		fprintf(stderr, "build log:\n%s\n", log ? log : "(none)");
	free(log);
	EXPECT_EQ(0, r);
	return prog;
}

/* The build fails; its log contains every string of @want (NULL-ended). */
static inline void build_fails(struct __test_metadata *_metadata,
			       const char *src, const char *opts,
			       const char *const *want)
{
	struct vmgpu_program *prog = (void *)1;
	char *log = NULL;
	int r = vmgpu_program_build(src, opts, &prog, &log);

	EXPECT_EQ(-EINVAL, r);
	EXPECT_EQ(NULL, prog);
	ASSERT_NE(NULL, log);
	for (; *want; want++)
		if (!strstr(log, *want)) {
			fprintf(stderr, "log lacks '%s':\n%s\n", *want, log);
			EXPECT_NE(NULL, strstr(log, *want));
		}
	free(log);
}

/* Load kernel @name of @prog as a device of ISA version @isa does. */
static inline void load_isa(struct __test_metadata *_metadata,
			    struct vmgpu_program *prog, const char *name,
			    uint32_t isa, struct ck *c)
{
	const void *image;
	const char *why = "";
	uint32_t bad_pc = 0;
	size_t bytes;

	memset(c, 0, sizeof(*c));
	ASSERT_EQ(0, vmgpu_program_kernel_image(prog, name, &image, &bytes));
	vmgpu_exec_header_read(&c->h, image);
	/* what vmgpu_kernel_create() checks, then the interpreter's load */
	ASSERT_TRUE(vmgpu_exec_header_valid(&c->h));
	ASSERT_EQ(vmgpu_exec_file_bytes(&c->h), bytes);
	ASSERT_EQ(1, vmgpu_exec_sig_read(&c->h, image, bytes, &c->sig,
					 c->params, &why));
	ASSERT_EQ(0, strcmp(c->sig.name, name));
	ASSERT_EQ(VMGPU_FAULT_NONE, vg_kernel_load(&c->k, image, bytes, isa,
						   &bad_pc));
	c->priv = (uint32_t)vmgpu_program_kernel_private_bytes(prog, name);
}

static inline void load(struct __test_metadata *_metadata,
			struct vmgpu_program *prog, const char *name,
			struct ck *c)
{
	load_isa(_metadata, prog, name, VMGPU_ISA_VERSION, c);
}

static inline void set_u32(struct ck *c, uint32_t i, uint32_t v)
{
	memcpy(c->args + c->params[i].offset, &v, 4);
}

static inline void set_f32(struct ck *c, uint32_t i, float v)
{
	memcpy(c->args + c->params[i].offset, &v, 4);
}

static inline void set_u64(struct ck *c, uint32_t i, uint64_t v)
{
	memcpy(c->args + c->params[i].offset, &v, 8);
}

/* statistics of the last run */
static struct vg_block_stats last_stats;

/*
 * Run the grid (a portion at @origin of an index space @total blocks
 * big, when given) block by block. The private buffer, when the kernel
 * needs one, is allocated here. Returns 0 or the fault code.
 */
static inline int run_portion(struct testmem *tm, struct ck *c,
			      const uint32_t grid[3], const uint32_t block[3],
			      const uint32_t *origin, const uint32_t *total,
			      uint32_t dyn_shared)
{
	struct vg_interp *it = vg_interp_new();
	struct vg_storelog *log = vg_storelog_new();
	uint64_t budget = 1ull << 40, threads = 1;
	struct vg_block_stats st = { 0 };
	struct vg_fault_info fault = { 0 };
	struct vg_launch l = {
		.kernel = c->k, .args = c->args, .args_bytes = c->h.args_bytes,
		.shared_bytes = dyn_shared, .mem = &tm->memif,
	};
	uint32_t pos[3];
	int r = 0, i;

	for (i = 0; i < 3; i++) {
		l.grid[i] = grid[i] ? grid[i] : 1;
		l.block[i] = block[i] ? block[i] : 1;
		l.origin[i] = origin ? origin[i] : 0;
		l.grid_total[i] = total ? total[i] : l.origin[i] + l.grid[i];
		threads *= (uint64_t)l.grid_total[i] * l.block[i];
	}
	if (c->priv) {
		uint32_t last = c->sig.num_params - 1;

		if (strcmp(c->params[last].name, "vmgpu_private"))
			abort();
		set_u64(c, last, testmem_alloc(tm, threads * c->priv));
	}
	for (pos[2] = 0; pos[2] < l.grid[2] && !r; pos[2]++)
		for (pos[1] = 0; pos[1] < l.grid[1] && !r; pos[1]++)
			for (pos[0] = 0; pos[0] < l.grid[0] && !r; pos[0]++) {
				r = vg_interp_run_block(it, &l, pos, 0, log,
							&budget, &st, &fault);
				if (r) {
					fprintf(stderr, "fault %u at pc %u addr %#llx\n",
						fault.code, fault.pc,
						(unsigned long long)fault.addr);
					vg_storelog_discard(log);
				} else {
					vg_storelog_apply(log);
				}
			}
	vg_storelog_free(log);
	vg_interp_free(it);
	last_stats = st;
	return r;
}

static inline int run1d(struct testmem *tm, struct ck *c, uint32_t n,
			uint32_t bs)
{
	uint32_t g[3] = { div_up(n, bs), 1, 1 }, b[3] = { bs, 1, 1 };

	return run_portion(tm, c, g, b, NULL, NULL, 0);
}

/*
 * The integer functions of OpenCL C (6.12.3) in C: computed in __int128,
 * then saturated or wrapped to w bits, signed or not. int_ref()'s
 * functions by number: add_sat, sub_sat, hadd, rhadd, mul_hi, mad_hi,
 * mad_sat, abs_diff, abs, clz, popcount, rotate, min, max, clamp(x,
 * min(y, z), max(y, z)), mul24, mad24 (their operands already 24-bit).
 */
enum {
	IF_ADD_SAT, IF_SUB_SAT, IF_HADD, IF_RHADD, IF_MUL_HI, IF_MAD_HI,
	IF_MAD_SAT, IF_ABS_DIFF, IF_ABS, IF_CLZ, IF_POPCOUNT, IF_ROTATE, IF_MIN,
	IF_MAX, IF_CLAMP, IF_MUL24, IF_MAD24,
};

static inline __int128 int_wrap(__int128 v, int w, int sgn)
{
	/* the low w bits moved to the top and back (GCC's >> of a signed
	 * value is arithmetic) */
	if (w >= 128)
		return v;
	if (sgn)
		return (__int128)((unsigned __int128)v << (128 - w)) >> (128 - w);
	return (__int128)(((unsigned __int128)v << (128 - w)) >> (128 - w));
}

static inline __int128 int_sat(__int128 v, int w, int sgn)
{
	__int128 lo = sgn ? -((__int128)1 << (w - 1)) : 0,
		 hi = sgn ? ((__int128)1 << (w - 1)) - 1 : ((__int128)1 << w) - 1;

	return v < lo ? lo : v > hi ? hi : v;
}

static inline __int128 int_ref(int f, __int128 x, __int128 y, __int128 z,
			       int w, int sgn)
{
	unsigned __int128 ux = (unsigned __int128)int_wrap(x, w, 0), m;
	__int128 lo, hi;
	int k, n;

	if (!sgn && w == 64 && f >= IF_MUL_HI && f <= IF_MAD_SAT) {
		/* past __int128's range */
		unsigned __int128 p = (unsigned __int128)x * (unsigned __int128)y;

		if (f == IF_MUL_HI)
			return (__int128)(p >> 64);
		if (f == IF_MAD_HI)
			return (__int128)((p >> 64) + (unsigned __int128)z);
		p += (unsigned __int128)z;
		return p > UINT64_MAX ? (__int128)UINT64_MAX : (__int128)p;
	}
	switch (f) {
	case IF_ADD_SAT: return int_sat(x + y, w, sgn);
	case IF_SUB_SAT: return int_sat(x - y, w, sgn);
	case IF_HADD: return (x + y) >> 1;
	case IF_RHADD: return (x + y + 1) >> 1;
	case IF_MUL_HI: return int_wrap((x * y) >> w, w, sgn);
	case IF_MAD_HI: return int_wrap(((x * y) >> w) + z, w, sgn);
	case IF_MAD_SAT: return int_sat(x * y + z, w, sgn);
	case IF_ABS_DIFF: return int_wrap(x > y ? x - y : y - x, w, sgn);
	case IF_ABS: return int_wrap(x < 0 ? -x : x, w, sgn);
	case IF_CLZ:
		for (n = 0, k = w - 1; k >= 0 && !((ux >> k) & 1); k--)
			n++;
		return n;
	case IF_POPCOUNT:
		for (n = 0, k = 0; k < w; k++)
			n += (ux >> k) & 1;
		return n;
	case IF_ROTATE:
		k = (int)((unsigned __int128)int_wrap(y, w, 0) % w);
		m = w == 128 ? ~(unsigned __int128)0 : ((unsigned __int128)1 << w) - 1;
		return int_wrap((__int128)(((ux << k) | (k ? ux >> (w - k) : 0)) & m),
				w, sgn);
	case IF_MIN: return x < y ? x : y;
	case IF_MAX: return x > y ? x : y;
	case IF_CLAMP:
		lo = y < z ? y : z;
		hi = y > z ? y : z;
		return x < lo ? lo : x > hi ? hi : x;
	case IF_MUL24: return int_wrap(x * y, w, sgn);
	default: return int_wrap(x * y + z, w, sgn);
	}
}

/* an integer type of OpenCL C: its name, size, signedness */
struct itype {
	const char *name;
	int bytes, sgn, vec;
};

/* element i of an array of t, sign- or zero-extended */
static inline __int128 get_int(const void *p, int i, const struct itype *t)
{
	const uint8_t *b = (const uint8_t *)p + (size_t)i * t->bytes;
	unsigned __int128 u = 0;
	int k;

	for (k = t->bytes - 1; k >= 0; k--)	/* little-endian */
		u = u << 8 | b[k];
	return int_wrap((__int128)u, t->bytes * 8, t->sgn);
}

/* the value of half h (IEEE binary16) */
static inline double half_value(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);

	if (e == 0x1f)
		v = m ? NAN : INFINITY;
	return (h & 0x8000) ? -v : v;
}

/* f rounded to a half (not NaN), mode 0 to nearest even, 1 toward zero,
 * 2 up, 3 down: the largest finite half <= |f| searched, then the
 * mode's choice between it and the next */
static inline uint16_t half_round(float f, int mode)
{
	uint16_t s = signbit(f) ? 0x8000 : 0, lo = 0, hi = 0x7bff, r;
	double a = fabs((double)f), dl, dh;
	int away;

	if (isinf(f))
		return s | 0x7c00;
	while (lo < hi) {
		uint16_t mid = (uint16_t)((lo + hi + 1) / 2);

		if (half_value(mid) <= a)
			lo = mid;
		else
			hi = (uint16_t)(mid - 1);
	}
	dl = half_value(lo);
	if (dl == a)
		return s | lo;
	dh = lo == 0x7bff ? 65536.0 : half_value((uint16_t)(lo + 1));
	if (mode == 0)
		away = a - dl > dh - a || (a - dl == dh - a && (lo & 1));
	else
		away = mode == 2 ? !s : mode == 3 ? s != 0 : 0;
	r = away ? (uint16_t)(lo + 1) : lo;
	return s | r;
}

FIXTURE(cc) {
	struct testmem *tm;
};

FIXTURE_SETUP(cc)
{
	self->tm = testmem_new(MEM_BASE, MEM_BYTES);
}

FIXTURE_TEARDOWN(cc)
{
	testmem_free(self->tm);
}

#define ALLOC(T, name, count) \
	uint64_t name##_va = testmem_alloc(self->tm, (count) * sizeof(T) + 4); \
	T *name = testmem_ptr(self->tm, name##_va)

#endif
