// SPDX-License-Identifier: MIT
/*
 * The built-in functions of OpenCL C for vmgpu, in OpenCL C: compiled with
 * every program, linked in, inlined where called (unused ones vanish).
 * The back end knows only three hooks: __vmgpu_sreg(n) (s2r of special
 * register n, a constant after inlining), __vmgpu_bar() (bar) and, with
 * -vmgpu-ndrange-args, __vmgpu_ndrange(n) (ldarg of a hidden parameter's
 * word n).
 *
 * Some sections are compiled only for a program that calls what they
 * define (frontend.cpp's build_module looks at the program's undefined
 * functions): __VMGPU_LIB_CONVERT (convert_*), __VMGPU_LIB_VLOADSTORE
 * (vload*, vstore*), __VMGPU_LIB_WGCOPY (async_work_group_*,
 * wait_group_events, prefetch), __VMGPU_LIB_HALF (vload_half...),
 * and, in clclib_math.cpp, __VMGPU_LIB_SELECT (select, bitselect, any,
 * all), __VMGPU_LIB_SHUFFLE (shuffle, shuffle2), __VMGPU_LIB_MATHX (the
 * less common math functions and most vector forms of math functions:
 * frontend.cpp's mathx_name); nothing outside them may call into them.
 *
 * clclib_math.cpp holds the second part of the library (inverse
 * trigonometry, the vector forms, common, geometric and relational
 * functions, select, shuffle): compiled after this one, as one source.
 *
 * Accuracy of the math functions: Documentation/compiler.rst, measured by
 * selftests/host/test_compiler_math.c against the C library.
 */
#include "compiler.h"

namespace vmgpu_cc {

const char clclib_source[] = R"CLC(
#define OVL __attribute__((overloadable))
#define INL __attribute__((always_inline))
/* const: LLVM may merge and hoist reads of special registers */
uint __vmgpu_sreg(int n) __attribute__((const));
void __vmgpu_bar(void);

/* ---- work-item functions (Documentation/compiler.rst) ---- */
#define SREG3(base, d, dflt) ((d) == 0 ? __vmgpu_sreg(base) : \
	(d) == 1 ? __vmgpu_sreg((base) + 1) : (d) == 2 ? __vmgpu_sreg((base) + 2) : (dflt))
size_t OVL get_local_id(uint d) { return SREG3(0, d, 0u); }
size_t OVL get_local_size(uint d) { return SREG3(3, d, 1u); }
size_t OVL get_enqueued_local_size(uint d) { return SREG3(3, d, 1u); }
size_t OVL get_group_id(uint d) { return SREG3(6, d, 0u); }
size_t OVL get_num_groups(uint d) { return SREG3(9, d, 1u); }
/*
 * Ids are 32-bit: the ISA's block indices and sizes are. Group ids are
 * absolute (%ctaid has a split portion's origin in it), so the global
 * offset is the enqueue's only, the same for every portion.
 */
#ifdef __VMGPU_NDRANGE_ARGS
/* -vmgpu-ndrange-args: word n of the hidden vmgpu_ndrange0/1 pair
 * (offset x, y, z, work dimension), set by the runtime */
uint __vmgpu_ndrange(int n) __attribute__((const));
#define NDR3(d) ((d) == 0 ? __vmgpu_ndrange(0) : \
	(d) == 1 ? __vmgpu_ndrange(1) : __vmgpu_ndrange(2))
size_t OVL get_global_id(uint d)
{
	return d < 3 ? (size_t)(NDR3(d) + SREG3(6, d, 0u) * SREG3(3, d, 1u) +
				SREG3(0, d, 0u)) : 0;
}
#else
size_t OVL get_global_id(uint d)
{
	return d < 3 ? (size_t)(SREG3(6, d, 0u) * SREG3(3, d, 1u) + SREG3(0, d, 0u)) : 0;
}
#endif
size_t OVL get_global_size(uint d)
{
	return d < 3 ? (size_t)(SREG3(9, d, 1u) * SREG3(3, d, 1u)) : 1;
}
#ifdef __VMGPU_NDRANGE_ARGS
size_t OVL get_global_offset(uint d)
{
	return d < 3 ? (size_t)NDR3(d) : 0;
}
uint OVL get_work_dim(void) { return __vmgpu_ndrange(3); }
#else
/* Without the hidden parameters (the plain APIs' kernels): no offset,
 * the work dimension guessed from the extents. */
size_t OVL get_global_offset(uint d) { return 0; }
uint OVL get_work_dim(void)
{
	return __vmgpu_sreg(11) * __vmgpu_sreg(5) > 1 ? 3 :
	       __vmgpu_sreg(10) * __vmgpu_sreg(4) > 1 ? 2 : 1;
}
#endif

/* ISA version 2: a queue task's block (Documentation/isa.rst) */
uint vmgpu_item_base(void) { return __vmgpu_sreg(19); }
uint vmgpu_item_count(void) { return __vmgpu_sreg(20); }

/* ---- synchronisation ---- */
void OVL barrier(cl_mem_fence_flags f) { __vmgpu_bar(); }
void OVL mem_fence(cl_mem_fence_flags f) { }
void OVL read_mem_fence(cl_mem_fence_flags f) { }
void OVL write_mem_fence(cl_mem_fence_flags f) { }

#ifdef __VMGPU_LIB_WGCOPY	/* built when the program calls them */
/* ---- work-group copies: done at once, each work-item of the group
 * copying its share (all meet the call with the same arguments, as
 * OpenCL C requires); event_t is a plain value nothing waits on, and
 * wait_group_events a barrier, after which every work-item sees the
 * whole copy ---- */
#define WG_LID (get_local_id(0) + (uint)get_local_size(0) * \
	(get_local_id(1) + (uint)get_local_size(1) * get_local_id(2)))
#define WG_SIZE ((uint)(get_local_size(0) * get_local_size(1) * \
	get_local_size(2)))
#define WGC_LOOP(body) \
{ uint m = (uint)n, k = WG_SIZE; /* n < 2^32: local memory is smaller */ \
  for (uint i = WG_LID; i < m; i += k) body; return e; }
#define WGC_(T) \
event_t OVL async_work_group_copy(local T *d, const global T *s, size_t n, \
				  event_t e) WGC_LOOP(d[i] = s[i]) \
event_t OVL async_work_group_copy(global T *d, const local T *s, size_t n, \
				  event_t e) WGC_LOOP(d[i] = s[i]) \
event_t OVL async_work_group_strided_copy(local T *d, const global T *s, \
					  size_t n, size_t st, event_t e) \
	WGC_LOOP(d[i] = s[i * st]) \
event_t OVL async_work_group_strided_copy(global T *d, const local T *s, \
					  size_t n, size_t st, event_t e) \
	WGC_LOOP(d[i * st] = s[i]) \
void OVL prefetch(const global T *p, size_t n) { }
#define WGC(T) WGC_(T) WGC_(T##2) WGC_(T##3) WGC_(T##4) WGC_(T##8) WGC_(T##16)
WGC(char) WGC(uchar) WGC(short) WGC(ushort) WGC(int) WGC(uint)
WGC(long) WGC(ulong) WGC(float)
/* clang declares it with a generic pointer (AS4 in SPIR) in OpenCL C 1.2 too */
void OVL wait_group_events(int n, __attribute__((address_space(4))) event_t *l)
{ __vmgpu_bar(); }
#endif

/* ---- atomics: 32-bit; on local memory ISA version 2's atoms.* ---- */
#define ATOMICS(AS) \
int OVL atomic_add(volatile AS int *p, int v) { return __sync_fetch_and_add(p, v); } \
uint OVL atomic_add(volatile AS uint *p, uint v) { return __sync_fetch_and_add(p, v); } \
int OVL atomic_sub(volatile AS int *p, int v) { return __sync_fetch_and_sub(p, v); } \
uint OVL atomic_sub(volatile AS uint *p, uint v) { return __sync_fetch_and_sub(p, v); } \
int OVL atomic_inc(volatile AS int *p) { return __sync_fetch_and_add(p, 1); } \
uint OVL atomic_inc(volatile AS uint *p) { return __sync_fetch_and_add(p, 1u); } \
int OVL atomic_dec(volatile AS int *p) { return __sync_fetch_and_sub(p, 1); } \
uint OVL atomic_dec(volatile AS uint *p) { return __sync_fetch_and_sub(p, 1u); } \
int OVL atomic_xchg(volatile AS int *p, int v) { return __sync_lock_test_and_set(p, v); } \
uint OVL atomic_xchg(volatile AS uint *p, uint v) { return __sync_lock_test_and_set(p, v); } \
float OVL atomic_xchg(volatile AS float *p, float v) \
{ return as_float(__sync_lock_test_and_set((volatile AS int *)p, as_int(v))); } \
int OVL atomic_min(volatile AS int *p, int v) { return __sync_fetch_and_min(p, v); } \
uint OVL atomic_min(volatile AS uint *p, uint v) { return __sync_fetch_and_umin(p, v); } \
int OVL atomic_max(volatile AS int *p, int v) { return __sync_fetch_and_max(p, v); } \
uint OVL atomic_max(volatile AS uint *p, uint v) { return __sync_fetch_and_umax(p, v); } \
int OVL atomic_cmpxchg(volatile AS int *p, int c, int v) \
{ return __sync_val_compare_and_swap(p, c, v); } \
uint OVL atomic_cmpxchg(volatile AS uint *p, uint c, uint v) \
{ return __sync_val_compare_and_swap(p, c, v); } \
ATOMIC_LOOP(AS, and, &) ATOMIC_LOOP(AS, or, |) ATOMIC_LOOP(AS, xor, ^)
/* and/or/xor: compare-and-swap loops (lanes of a warp take turns) */
#define ATOMIC_LOOP(AS, name, OP) \
int OVL atomic_##name(volatile AS int *p, int v) \
{ \
	int old = __sync_fetch_and_add(p, 0), seen; \
	while ((seen = __sync_val_compare_and_swap(p, old, old OP v)) != old) \
		old = seen; \
	return old; \
} \
uint OVL atomic_##name(volatile AS uint *p, uint v) \
{ return (uint)atomic_##name((volatile AS int *)p, (int)v); }
ATOMICS(global)
ATOMICS(local)

/*
 * OpenCL 1.0's atom_* names (cl_khr_*_int32_*_atomics) are the same
 * functions; their 64-bit forms (cl_khr_int64_*_atomics) are defined so
 * that the back end's "64-bit atomics are not supported" names the
 * user's line: the ISA's atomics are 32-bit.
 */
#define ATOM_NAMES(AS, T) \
T OVL atom_add(volatile AS T *p, T v) { return __sync_fetch_and_add(p, v); } \
T OVL atom_sub(volatile AS T *p, T v) { return __sync_fetch_and_sub(p, v); } \
T OVL atom_inc(volatile AS T *p) { return __sync_fetch_and_add(p, (T)1); } \
T OVL atom_dec(volatile AS T *p) { return __sync_fetch_and_sub(p, (T)1); } \
T OVL atom_xchg(volatile AS T *p, T v) { return __sync_lock_test_and_set(p, v); } \
T OVL atom_cmpxchg(volatile AS T *p, T c, T v) \
{ return __sync_val_compare_and_swap(p, c, v); } \
T OVL atom_min(volatile AS T *p, T v) \
{ T old = *p, seen; \
  while ((seen = __sync_val_compare_and_swap(p, old, v < old ? v : old)) != old) \
	old = seen; \
  return old; } \
T OVL atom_max(volatile AS T *p, T v) \
{ T old = *p, seen; \
  while ((seen = __sync_val_compare_and_swap(p, old, v > old ? v : old)) != old) \
	old = seen; \
  return old; } \
T OVL atom_and(volatile AS T *p, T v) { return __sync_fetch_and_and(p, v); } \
T OVL atom_or(volatile AS T *p, T v) { return __sync_fetch_and_or(p, v); } \
T OVL atom_xor(volatile AS T *p, T v) { return __sync_fetch_and_xor(p, v); }
ATOM_NAMES(global, long) ATOM_NAMES(global, ulong)
ATOM_NAMES(local, long) ATOM_NAMES(local, ulong)
#define ATOM_NAMES32(AS, T) \
T OVL atom_add(volatile AS T *p, T v) { return atomic_add(p, v); } \
T OVL atom_sub(volatile AS T *p, T v) { return atomic_sub(p, v); } \
T OVL atom_inc(volatile AS T *p) { return atomic_inc(p); } \
T OVL atom_dec(volatile AS T *p) { return atomic_dec(p); } \
T OVL atom_xchg(volatile AS T *p, T v) { return atomic_xchg(p, v); } \
T OVL atom_cmpxchg(volatile AS T *p, T c, T v) { return atomic_cmpxchg(p, c, v); } \
T OVL atom_min(volatile AS T *p, T v) { return atomic_min(p, v); } \
T OVL atom_max(volatile AS T *p, T v) { return atomic_max(p, v); } \
T OVL atom_and(volatile AS T *p, T v) { return atomic_and(p, v); } \
T OVL atom_or(volatile AS T *p, T v) { return atomic_or(p, v); } \
T OVL atom_xor(volatile AS T *p, T v) { return atomic_xor(p, v); }
ATOM_NAMES32(global, int) ATOM_NAMES32(global, uint)
ATOM_NAMES32(local, int) ATOM_NAMES32(local, uint)

/*
 * 64-bit division and conversions: the front end turns i64 sdiv/udiv/
 * srem/urem and i64 <-> float conversions into calls of these (the ISA
 * has 32-bit ones only). Division by zero gives all ones (quotient) and
 * the dividend (remainder), as the ISA's 32-bit division.
 */
/*
 * Shift-and-subtract with d first aligned under n's top bit: as many
 * steps as the quotient has bits (clz(d) - clz(n) + 1), not 64: random
 * 64-bit operands take a step or two (the CTS's quick_long_math divided
 * 2^21 of them in a long16 kernel past the GPU's instruction budget).
 */
INL ulong __vmgpu_udivrem64(ulong n, ulong d, ulong *rem)
{
	ulong q = 0;
	int s = (int)__builtin_clzl(d) - (int)__builtin_clzl(n);
	d <<= s;
	for (; s >= 0; s--) {
		q <<= 1;
		if (n >= d) {
			n -= d;
			q |= 1;
		}
		d >>= 1;
	}
	*rem = n;
	return q;
}
ulong __vmgpu_udiv64(ulong n, ulong d)
{
	ulong r;
	if (d == 0)
		return ~0ul;
	if ((n >> 32) == 0 && (d >> 32) == 0)
		return (uint)n / (uint)d;
	if (d > n)
		return 0;
	return __vmgpu_udivrem64(n, d, &r);
}
ulong __vmgpu_urem64(ulong n, ulong d)
{
	ulong r;
	if (d == 0)
		return n;
	if ((n >> 32) == 0 && (d >> 32) == 0)
		return (uint)n % (uint)d;
	if (d > n)
		return n;
	__vmgpu_udivrem64(n, d, &r);
	return r;
}
long __vmgpu_sdiv64(long n, long d)
{
	ulong q = __vmgpu_udiv64(n < 0 ? -(ulong)n : (ulong)n,
				 d < 0 ? -(ulong)d : (ulong)d);
	return (n < 0) != (d < 0) && d != 0 ? -(long)q : (long)q;
}
long __vmgpu_srem64(long n, long d)
{
	ulong r = __vmgpu_urem64(n < 0 ? -(ulong)n : (ulong)n,
				 d < 0 ? -(ulong)d : (ulong)d);
	return d == 0 ? n : n < 0 ? -(long)r : (long)r;
}
/* correctly rounded: the top 31 bits with a sticky bit, one u2f, an
 * exact scaling */
float __vmgpu_ul2f(ulong x)
{
	uint h = (uint)(x >> 32);
	if (!h)
		return (float)(uint)x;
	int s = ((as_int((float)h) >> 23) & 0xff) - 127 + 2;
	uint y = (uint)(x >> s) | ((x & ((1ul << s) - 1)) != 0);
	return (float)y * as_float((s + 127) << 23);
}
float __vmgpu_l2f(long x)
{
	return x < 0 ? -__vmgpu_ul2f(-(ulong)x) : __vmgpu_ul2f((ulong)x);
}
/* toward zero, saturating, NaN to 0 (as the ISA's f2i/f2u) */
ulong __vmgpu_f2ul(float f)
{
	if (!(f > 0.0f))
		return 0;
	if (f >= 18446744073709551616.0f)
		return ~0ul;
	if (f < 4294967296.0f)
		return (uint)f;
	int e = ((as_int(f) >> 23) & 0xff) - 127;
	return (ulong)((as_int(f) & 0x7fffff) | 0x800000) << (e - 23);
}
long __vmgpu_f2l(float f)
{
	if (f != f)
		return 0;
	if (f >= 9223372036854775808.0f)
		return 0x7fffffffffffffffl;
	if (f <= -9223372036854775808.0f)
		return (long)0x8000000000000000ul;
	return f < 0.0f ? -(long)__vmgpu_f2ul(-f) : (long)__vmgpu_f2ul(f);
}

/* ---- integer ---- */
#define INT_FUNCS(T, UT) \
T OVL min(T a, T b) { return a < b ? a : b; } \
T OVL max(T a, T b) { return a > b ? a : b; } \
T OVL clamp(T x, T lo, T hi) { return min(max(x, lo), hi); } \
UT OVL abs(T x) { return x < 0 ? (UT)-x : (UT)x; } \
T OVL mad24(T a, T b, T c) { return a * b + c; } \
T OVL mul24(T a, T b) { return a * b; }
INT_FUNCS(int, uint)
INT_FUNCS(long, ulong)
uint OVL min(uint a, uint b) { return a < b ? a : b; }
uint OVL max(uint a, uint b) { return a > b ? a : b; }
uint OVL clamp(uint x, uint lo, uint hi) { return min(max(x, lo), hi); }
uint OVL abs(uint x) { return x; }
ulong OVL min(ulong a, ulong b) { return a < b ? a : b; }
ulong OVL max(ulong a, ulong b) { return a > b ? a : b; }
/* (OpenCL's long long is 128 bits: the ...l builtins are the 64-bit ones) */
#define BITS(T, UT, W, MIN, MAX) \
T OVL popcount(T x) { return (T)__builtin_popcountl((ulong)(UT)x); } \
T OVL clz(T x) { return x == 0 ? W : (T)(__builtin_clzl((ulong)(UT)x) - (64 - W)); } \
T OVL rotate(T x, T n) \
{ UT s = (UT)n & (W - 1); return s ? (T)(((UT)x << s) | ((UT)x >> (W - s))) : x; } \
T OVL add_sat(T a, T b) \
{ T s = (T)((UT)a + (UT)b); \
  return MIN == 0 ? ((UT)s < (UT)a ? MAX : s) : \
	 (((a ^ s) & (b ^ s)) < 0 ? (a < 0 ? MIN : MAX) : s); } \
T OVL sub_sat(T a, T b) \
{ T s = (T)((UT)a - (UT)b); \
  return MIN == 0 ? ((UT)a < (UT)b ? 0 : s) : \
	 (((a ^ b) & (a ^ s)) < 0 ? (a < 0 ? MIN : MAX) : s); } \
T OVL hadd(T a, T b) { return (a >> 1) + (b >> 1) + (a & b & 1); }
BITS(int, uint, 32, (int)0x80000000, 0x7fffffff)
BITS(uint, uint, 32, 0u, 0xffffffffu)
BITS(long, ulong, 64, (long)0x8000000000000000ul, 0x7fffffffffffffffl)
BITS(ulong, ulong, 64, 0ul, 0xfffffffffffffffful)
int OVL mul_hi(int a, int b) { return (int)(((long)a * (long)b) >> 32); }
uint OVL mul_hi(uint a, uint b) { return (uint)(((ulong)a * (ulong)b) >> 32); }

/* ---- float: exact operations ---- */
float OVL sqrt(float x) { return __builtin_sqrtf(x); }
float OVL native_sqrt(float x) { return __builtin_sqrtf(x); }
float OVL half_sqrt(float x) { return __builtin_sqrtf(x); }
float OVL rsqrt(float x) { return 1.0f / __builtin_sqrtf(x); }
float OVL native_rsqrt(float x) { return 1.0f / __builtin_sqrtf(x); }
float OVL fabs(float x) { return __builtin_fabsf(x); }
float OVL fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
float OVL mad(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
float OVL fmin(float a, float b) { return __builtin_fminf(a, b); }
float OVL fmax(float a, float b) { return __builtin_fmaxf(a, b); }
float OVL fmin(float a, float b);
float OVL min(float a, float b) { return __builtin_fminf(a, b); }
float OVL max(float a, float b) { return __builtin_fmaxf(a, b); }
float OVL clamp(float x, float lo, float hi) { return fmin(fmax(x, lo), hi); }
float OVL copysign(float x, float y) { return __builtin_copysignf(x, y); }
float OVL mix(float x, float y, float a) { return x + (y - x) * a; }
float OVL step(float e, float x) { return x < e ? 0.0f : 1.0f; }
/* sign: +-0 kept, NaN gives 0 (6.12.4) */
float OVL sign(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x == 0.0f ? x : 0.0f; }
float OVL native_divide(float x, float y) { return x / y; }
float OVL native_recip(float x) { return 1.0f / x; }
float OVL half_divide(float x, float y) { return x / y; }
float OVL half_recip(float x) { return 1.0f / x; }
float OVL fdim(float x, float y) { return x > y ? x - y : (x != x || y != y) ? x + y : 0.0f; }
int OVL isnan(float x) { return x != x; }
int OVL isinf(float x) { return __builtin_fabsf(x) == __builtin_inff(); }
int OVL isfinite(float x) { return __builtin_fabsf(x) < __builtin_inff(); }
int OVL signbit(float x) { return as_int(x) < 0; }
int OVL isnormal(float x)
{
	return __builtin_fabsf(x) >= 0x1p-126f && __builtin_fabsf(x) < __builtin_inff();
}
int OVL isordered(float x, float y) { return x == x && y == y; }
int OVL isunordered(float x, float y) { return x != x || y != y; }
/* the next float after x towards y (C99): by the bits */
float OVL nextafter(float x, float y)
{
	int ix = as_int(x), iy = as_int(y);

	if (x != x || y != y)
		return x + y;
	if (x == y)
		return y;
	if ((ix & 0x7fffffff) == 0)	/* +-0: the smallest subnormal */
		return as_float((iy & 0x80000000) | 1);
	if ((x < y) == (ix >= 0))
		ix++;
	else
		ix--;
	return as_float(ix);
}

/* rounding: |x| >= 2^23 (and NaN, infinities) are already integers */
float OVL trunc(float x)
{
	return __builtin_fabsf(x) < 8388608.0f ?
	       __builtin_copysignf((float)(int)x, x) : x;
}
float OVL floor(float x) { float t = trunc(x); return t > x ? t - 1.0f : t; }
float OVL ceil(float x) { float t = trunc(x); return t < x ? t + 1.0f : t; }
float OVL round(float x)
{
	float t = trunc(x);
	return __builtin_fabsf(x - t) >= 0.5f ? t + __builtin_copysignf(1.0f, x) : t;
}
float OVL rint(float x)
{
	float a = __builtin_fabsf(x);
	if (a < 8388608.0f)
		return __builtin_copysignf((a + 8388608.0f) - 8388608.0f, x);
	return x;
}
/* fract: NaN for NaN (fmin would drop it), a zero of x's sign for an
 * infinity or an integer (as modf) */
INL float __vmgpu_fract(float x, float *ip)
{
	float f = floor(x), r = fmin(x - f, 0x1.fffffep-1f);
	*ip = f;
	if (x != x)
		return x;
	return r == 0.0f || __builtin_fabsf(x) == __builtin_inff() ?
	       __builtin_copysignf(0.0f, x) : r;
}
float OVL fract(float x, global float *ip) { float f; float r = __vmgpu_fract(x, &f); *ip = f; return r; }
float OVL fract(float x, private float *ip) { return __vmgpu_fract(x, ip); }
float OVL fract(float x, local float *ip) { float f; float r = __vmgpu_fract(x, &f); *ip = f; return r; }

/* ---- exponentials and logarithms ---- */
/* 2^k * e^r for |r| <= ~0.35: Taylor to degree 7, two exact scalings */
INL float __vmgpu_expk(float r, int k)
{
	float p = 1.98412698e-4f;
	p = __builtin_fmaf(p, r, 1.38888889e-3f);
	p = __builtin_fmaf(p, r, 8.33333333e-3f);
	p = __builtin_fmaf(p, r, 4.16666667e-2f);
	p = __builtin_fmaf(p, r, 1.66666667e-1f);
	p = __builtin_fmaf(p, r, 0.5f);
	p = __builtin_fmaf(p, r * r, r);
	p = p + 1.0f;
	int k1 = k >> 1, k2 = k - k1;
	return (p * as_float((k1 + 127) << 23)) * as_float((k2 + 127) << 23);
}
float OVL exp(float x)
{
	if (x != x)
		return x;
	if (x > 100.0f)
		return __builtin_inff();
	if (x < -110.0f)
		return 0.0f;
	float k = rint(x * 1.44269504088896341f);
	float r = __builtin_fmaf(k, -0.693145751953125f, x);
	r = __builtin_fmaf(k, -1.428606765330187045e-06f, r);
	return __vmgpu_expk(r, (int)k);
}
float OVL exp2(float x)
{
	if (x != x)
		return x;
	if (x > 150.0f)
		return __builtin_inff();
	if (x < -160.0f)
		return 0.0f;
	float k = rint(x);
	float f = x - k;			/* exact */
	float r = f * 0.693147182f;
	r = __builtin_fmaf(f, -1.90465421e-09f, r);	/* ln2 - 0.693147182f */
	return __vmgpu_expk(r, (int)k);
}
/* 10^x = 2^(x log2 10) with the product kept as hi + lo: 1 ulp, not
 * the product's rounding error times |x log2 10| */
float OVL exp10(float x)
{
	if (x != x)
		return x;
	if (x > 40.0f)
		return __builtin_inff();
	if (x < -50.0f)
		return 0.0f;
	float p = x * 3.32192802429199219f;
	float pe = __builtin_fmaf(x, 3.32192802429199219f, -p) +
		   x * 7.05963073056e-08f;	/* log2 10 - its float */
	float k = rint(p);
	float f = (p - k) + pe;
	float r = f * 0.693147182f;
	r = __builtin_fmaf(f, -1.90465421e-09f, r);
	return __vmgpu_expk(r, (int)k);
}
float OVL native_exp(float x) { return exp(x); }
float OVL half_exp(float x) { return exp(x); }
float OVL native_exp2(float x) { return exp2(x); }
/* e^r - 1 for |r| <= ~0.35: Taylor to degree 9, without the 1 */
INL float __vmgpu_expm1_poly(float r)
{
	float p = 2.75573192e-6f;
	p = __builtin_fmaf(p, r, 2.48015873e-5f);
	p = __builtin_fmaf(p, r, 1.98412698e-4f);
	p = __builtin_fmaf(p, r, 1.38888889e-3f);
	p = __builtin_fmaf(p, r, 8.33333333e-3f);
	p = __builtin_fmaf(p, r, 4.16666667e-2f);
	p = __builtin_fmaf(p, r, 1.66666667e-1f);
	p = __builtin_fmaf(p, r, 0.5f);
	return __builtin_fmaf(p * r, r, r);
}
/* e^x - 1 = 2^k (e^r - 1) + (2^k - 1), each part exact or nearly */
float OVL expm1(float x)
{
	if (x != x || x == 0.0f)	/* -0 stays -0 */
		return x;
	if (x > 88.8f)
		return __builtin_inff();
	if (x < -17.5f)
		return -1.0f;
	float k = rint(x * 1.44269504088896341f);
	float r = __builtin_fmaf(k, -0.693145751953125f, x);
	r = __builtin_fmaf(k, -1.428606765330187045e-06f, r);
	float p = __vmgpu_expm1_poly(r);
	if (k == 0.0f)
		return p;
	if (k > 100.0f)		/* 2^k itself overflows */
		return (p + 1.0f) * 0x1p100f * as_float(((int)k - 100 + 127) << 23);
	float s = as_float(((int)k + 127) << 23);
	return __builtin_fmaf(p, s, s - 1.0f);
}

/*
 * log: x = 2^e * m, m in [sqrt(1/2), sqrt(2)), f = m - 1,
 * log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)), s = f / (2 + f).
 * *e and the part beside e*ln2 come back separately for log2.
 */
/* R(s^2) */
INL float __vmgpu_log_R(float s)
{
	float z = s * s, w = z * z;
	float t1 = w * (0.40000972152f + w * 0.24279078841f);
	float t2 = z * (0.66666662693f + w * 0.28498786688f);
	return t2 + t1;
}
/* log(1 + f) for 1 + f in [sqrt(1/2), sqrt(2)) */
INL float __vmgpu_log1p_small(float f)
{
	float s = f / (2.0f + f), hfsq = 0.5f * f * f;
	return s * (hfsq + __vmgpu_log_R(s)) - hfsq + f;
}
/* The reduction both take: *e, f = m - 1, s and R(s^2); returns f. */
INL float __vmgpu_log_reduce(float x, float *e_out, float *s_out, float *r_out)
{
	int ix = as_int(x), e = 0;
	if (ix < 0x00800000) {		/* subnormal */
		x *= 33554432.0f;
		ix = as_int(x);
		e = -25;
	}
	e += ((ix >> 23) & 0xff) - 127;
	ix = (ix & 0x007fffff) | 0x3f800000;
	float m = as_float(ix);
	if (m > 1.41421356f) {
		m *= 0.5f;
		e += 1;
	}
	float f = m - 1.0f;
	float s = f / (2.0f + f);
	*e_out = (float)e;
	*s_out = s;
	*r_out = __vmgpu_log_R(s);
	return f;
}
INL float __vmgpu_log_parts(float x, float *e_out)
{
	float e, s, R, f = __vmgpu_log_reduce(x, &e, &s, &R);
	*e_out = e;
	return __vmgpu_log1p_small(f);
}
INL int __vmgpu_log_special(float x, float *res)
{
	if (x != x || x < 0.0f) {
		*res = __builtin_nanf("");
		return 1;
	}
	if (x == 0.0f) {
		*res = -__builtin_inff();
		return 1;
	}
	if (x == __builtin_inff()) {
		*res = x;
		return 1;
	}
	return 0;
}
float OVL log(float x)
{
	float r, e;
	if (__vmgpu_log_special(x, &r))
		return r;
	r = __vmgpu_log_parts(x, &e);
	return e * 6.9313812256e-01f + (r + e * 9.0580006145e-06f);
}
float OVL log2(float x)
{
	float r, e;
	if (__vmgpu_log_special(x, &r))
		return r;
	r = __vmgpu_log_parts(x, &e);
	return e + r * 1.44269504088896341f;
}
float OVL log10(float x) { return log(x) * 0.434294481903251828f; }
/* log1p: with 1 + x in [sqrt(1/2), sqrt(2)), log's polynomial on f = x,
 * which is exact (log(u) x / (u - 1) was 2.002 ulp off near 2^-15);
 * beyond, log(u) + c / u, c the rounding error of u = 1 + x */
float OVL log1p(float x)
{
	float u = 1.0f + x;
	if (x != x || u == __builtin_inff())
		return x + u;
	if (x <= -1.0f)
		return x == -1.0f ? -__builtin_inff() : __builtin_nanf("");
	if (x > -0.29289322f && x < 0.41421356f)
		return __vmgpu_log1p_small(x);
	float c = u > 2.0f ? 1.0f - (u - x) : x - (u - 1.0f);
	return log(u) + c / u;
}
float OVL native_log(float x) { return log(x); }
float OVL half_log(float x) { return log(x); }
float OVL native_log2(float x) { return log2(x); }

INL int __vmgpu_is_int(float y) { return trunc(y) == y; }
INL int __vmgpu_is_odd(float y)
{
	return __builtin_fabsf(y) < 16777216.0f && __vmgpu_is_int(y) &&
	       ((int)y & 1);
}
/*
 * x^y = 2^(y log2 x) with log2 x = e + t + tl and the product y log2 x
 * kept as hi + lo (fma gives the rounding error of each product): the
 * result's error no longer grows with |y log2 x|.
 */
/* log(m) of __vmgpu_log_parts as hi + lo: f - f^2/2 without rounding */
INL float __vmgpu_log_parts_ext(float x, float *e_out, float *lo)
{
	float s, R, f = __vmgpu_log_reduce(x, e_out, &s, &R);
	float hf = 0.5f * f;
	float hfsq = hf * f, hfe = __builtin_fmaf(hf, f, -hfsq);
	float rh = f - hfsq;
	*lo = ((f - rh) - hfsq) - hfe + s * (hfsq + R);
	return rh;
}
INL float __vmgpu_pow_pos(float ax, float y)
{
	float e, rl, rh = __vmgpu_log_parts_ext(ax, &e, &rl);
	float r = rh + rl;
	rl = (rh - r) + rl;
	float t = r * 1.44269504088896341f;
	float tl = __builtin_fmaf(r, 1.44269504088896341f, -t) +
		   r * 1.925963033500e-08f + rl * 1.44269504088896341f;
	float p = y * e, pe = __builtin_fmaf(y, e, -p);
	float q = y * t, qe = __builtin_fmaf(y, t, -q);
	float hi = p + q;
	float lo = __builtin_fabsf(p) >= __builtin_fabsf(q) ? (p - hi) + q : (q - hi) + p;
	lo += pe + qe + y * tl;
	if (hi > 150.0f)
		return __builtin_inff();
	if (hi < -160.0f)
		return 0.0f;
	float k = rint(hi + lo);
	float f = (hi - k) + lo;
	float rr = f * 0.693147182f;
	rr = __builtin_fmaf(f, -1.90465421e-09f, rr);
	return __vmgpu_expk(rr, (int)k);
}
float OVL pow(float x, float y)
{
	if (y == 0.0f || x == 1.0f)
		return 1.0f;
	if (x != x || y != y)
		return __builtin_nanf("");
	float ax = __builtin_fabsf(x), sgn = 1.0f;
	/* C99 F.9.4.4: infinite y, then zero and infinite x, before a
	 * negative x with y not an integer is NaN */
	if (__builtin_fabsf(y) == __builtin_inff())
		return ax == 1.0f ? 1.0f :
		       (ax > 1.0f) == (y > 0.0f) ? __builtin_inff() : 0.0f;
	if (x < 0.0f && __vmgpu_is_odd(y))
		sgn = -1.0f;
	if (ax == 0.0f)
		return y > 0.0f ? (__vmgpu_is_odd(y) ? x : 0.0f) :
		       (__vmgpu_is_odd(y) ? __builtin_copysignf(__builtin_inff(), x) :
			__builtin_inff());
	if (ax == __builtin_inff())
		return y > 0.0f ? sgn * __builtin_inff() : sgn * 0.0f;
	if (x < 0.0f && !__vmgpu_is_int(y))
		return __builtin_nanf("");
	return sgn * __vmgpu_pow_pos(ax, y);
}
/* powr: x >= 0 only, and its own special values (OpenCL C 1.2, 7.5.1):
 * 0^0, inf^0 and 1^inf are NaN, (-0)^y is +0^y */
float OVL powr(float x, float y)
{
	if (x < 0.0f || x != x || y != y)
		return __builtin_nanf("");
	if (y == 0.0f)
		return x == 0.0f || x == __builtin_inff() ? __builtin_nanf("") : 1.0f;
	if (x == 1.0f)
		return __builtin_fabsf(y) == __builtin_inff() ? __builtin_nanf("") : 1.0f;
	if (x == 0.0f)
		return y < 0.0f ? __builtin_inff() : 0.0f;
	return pow(x, y);
}
float OVL pown(float x, int n) { return pow(x, (float)n); }
float OVL native_powr(float x, float y) { return powr(x, y); }
/* cbrt: |x| = m 2^(3k), m in [1, 8): exp2(log2(m) / 3) (some 15 ulp
 * off), then a Newton step */
float OVL cbrt(float x)
{
	float a = __builtin_fabsf(x);
	int sc = 0;
	if (x == 0.0f || x != x || a == __builtin_inff())
		return x;
	if (a < 0x1p-126f) {	/* subnormal: scaled by 2^48 = (2^16)^3 */
		a *= 0x1p48f;
		sc = -16;
	}
	int e = ((as_int(a) >> 23) & 0xff) - 127;
	int k = e >= 0 ? e / 3 : -((-e + 2) / 3);	/* floor(e / 3) */
	float m = as_float((as_int(a) & 0x007fffff) | ((e - 3 * k + 127) << 23));
	float r = exp2(log2(m) * (1.0f / 3.0f));
	r = r + (m / (r * r) - r) * (1.0f / 3.0f);
	return __builtin_copysignf(r * as_float((k + sc + 127) << 23), x);
}
/* hypot: length's scaling (no overflow, no underflow); inf beats NaN */
float OVL hypot(float x, float y)
{
	if (__builtin_fabsf(x) == __builtin_inff() || __builtin_fabsf(y) == __builtin_inff())
		return __builtin_inff();
	float m = fmax(__builtin_fabsf(x), __builtin_fabsf(y));
	float s = m > 0x1p60f ? 0x1p-80f : m < 0x1p-60f ? 0x1p100f : 1.0f;
	x *= s;
	y *= s;
	return __builtin_sqrtf(__builtin_fmaf(x, x, y * y)) * (1.0f / s);
}

/* ---- trigonometry: x reduced by pi/2 to r in [-pi/4, pi/4] (Cody-Waite
 * below 2^15, Payne-Hanek above), polynomials there ---- */
INL float __vmgpu_sin_poly(float r)
{
	float z = r * r;
	float p = -2.50521084e-8f;
	p = __builtin_fmaf(p, z, 2.75573192e-6f);
	p = __builtin_fmaf(p, z, -1.98412698e-4f);
	p = __builtin_fmaf(p, z, 8.33333333e-3f);
	p = __builtin_fmaf(p, z, -1.66666667e-1f);
	return __builtin_fmaf(p * z, r, r);
}
INL float __vmgpu_cos_poly(float r)
{
	float z = r * r;
	float p = 2.08767570e-9f;
	p = __builtin_fmaf(p, z, -2.75573192e-7f);
	p = __builtin_fmaf(p, z, 2.48015873e-5f);
	p = __builtin_fmaf(p, z, -1.38888889e-3f);
	p = __builtin_fmaf(p, z, 4.16666667e-2f);
	float hz = 0.5f * z, w = 1.0f - hz;
	return w + (((1.0f - w) - hz) + z * z * p);
}
/* Word k of 2/pi's binary fraction, 32 bits each, bits 32(k-1)+1 to 32k;
 * word 0 (the bits from -31 to 0) is zero. */
INL uint __vmgpu_2opi(int k)
{
	return k == 1 ? 0xa2f9836eu : k == 2 ? 0x4e441529u :
	       k == 3 ? 0xfc2757d1u : k == 4 ? 0xf534ddc0u :
	       k == 5 ? 0xdb629599u : k == 6 ? 0x3c439041u :
	       k == 7 ? 0xfe5163abu : 0u;
}
/*
 * Payne-Hanek, |x| >= 2^15 (finite): x = m 2^E, m of 24 bits, so
 * x (2/pi) mod 4 = m W 2^-94 mod 4 for W the 96 bits of 2/pi from bit
 * E - 1 on (the bits before weigh multiples of 4, those after less than
 * 2^-70 of a quarter turn): the quadrant is the product's bits 95-94, its
 * next 62 bits the fraction f, rounded to the nearest quadrant and
 * turned into radians as a sum of two floats (r = f pi/2 2^-62).
 */
INL float __vmgpu_reduce_large(float x, int *q)
{
	uint ax = as_uint(x) & 0x7fffffffu;
	int i0 = (int)(ax >> 23) - 127 - 24;	/* E - 1 */
	int k = (i0 + 31) >> 5, p = (i0 + 31) & 31;
	uint w0 = __vmgpu_2opi(k), w1 = __vmgpu_2opi(k + 1),
	     w2 = __vmgpu_2opi(k + 2), w3 = __vmgpu_2opi(k + 3);
	/* OpenCL C shifts by a count modulo 32: p == 0 apart */
	uint W2 = p ? (w0 << p) | (w1 >> (32 - p)) : w0;
	uint W1 = p ? (w1 << p) | (w2 >> (32 - p)) : w1;
	uint W0 = p ? (w2 << p) | (w3 >> (32 - p)) : w2;
	ulong m = (ax & 0x007fffffu) | 0x00800000u;
	ulong p0 = m * W0, p1 = m * W1 + (p0 >> 32), p2 = m * W2 + (p1 >> 32);
	int quad = (int)(p2 >> 30) & 3;
	long f = (long)(((p2 & 0x3fffffffu) << 32) | (p1 & 0xffffffffu));
	if (f >= (1L << 61)) {
		quad++;
		f -= 1L << 62;
	}
	/* f as fh + fl: the ISA converts 32-bit integers only */
	int hi = (int)(f >> 32);
	float fh = (float)hi * 0x1p32f;
	float fl = (float)(hi - (int)(float)hi) * 0x1p32f + (float)(uint)f;
	float t = fh * 1.57079637e+00f;
	float e = __builtin_fmaf(fh, 1.57079637e+00f, -t);
	float r = (t + (e + __builtin_fmaf(fh, -4.37113883e-08f,
					   fl * 1.57079637e+00f))) * 0x1p-62f;
	*q = as_int(x) < 0 ? -quad : quad;
	return as_int(x) < 0 ? -r : r;
}
INL float __vmgpu_reduce(float x, int *q)
{
	if (__builtin_fabsf(x) >= 0x1p15f)
		return __vmgpu_reduce_large(x, q);
	float k = rint(x * 0.636619772367581343f);
	float r = __builtin_fmaf(k, -1.57079625129699707031f, x);
	r = __builtin_fmaf(k, -7.54978941586159635335e-08f, r);
	r = __builtin_fmaf(k, -5.39030252995776476554e-15f, r);
	*q = (int)k;
	return r;
}
float OVL sin(float x)
{
	int q;
	if (__builtin_fabsf(x) == __builtin_inff())
		return __builtin_nanf("");
	if (x == 0.0f)		/* -0 stays -0: the reduction's sums give +0 */
		return x;
	float r = __vmgpu_reduce(x, &q), v;
	v = (q & 1) ? __vmgpu_cos_poly(r) : __vmgpu_sin_poly(r);
	return (q & 2) ? -v : v;
}
float OVL cos(float x)
{
	int q;
	if (__builtin_fabsf(x) == __builtin_inff())
		return __builtin_nanf("");
	float r = __vmgpu_reduce(x, &q), v;
	v = (q & 1) ? __vmgpu_sin_poly(r) : __vmgpu_cos_poly(r);
	return ((q + 1) & 2) ? -v : v;
}
float OVL tan(float x) { return sin(x) / cos(x); }
/* sincos: one reduction, the same values as sin and cos */
INL float __vmgpu_sincos(float x, float *c)
{
	int q;
	if (__builtin_fabsf(x) == __builtin_inff()) {
		*c = __builtin_nanf("");
		return __builtin_nanf("");
	}
	if (x == 0.0f) {	/* as sin: -0 stays -0 */
		*c = 1.0f;
		return x;
	}
	float r = __vmgpu_reduce(x, &q), s = __vmgpu_sin_poly(r),
	      k = __vmgpu_cos_poly(r);
	float sv = (q & 1) ? k : s, cv = (q & 1) ? s : k;
	*c = ((q + 1) & 2) ? -cv : cv;
	return (q & 2) ? -sv : sv;
}
#define SINCOS(AS) \
float OVL sincos(float x, AS float *c) \
{ float t, v = __vmgpu_sincos(x, &t); *c = t; return v; } \
float2 OVL sincos(float2 x, AS float2 *c) \
{ float a, b; float2 v = (float2)(__vmgpu_sincos(x.s0, &a), __vmgpu_sincos(x.s1, &b)); \
  *c = (float2)(a, b); return v; } \
float3 OVL sincos(float3 x, AS float3 *c) \
{ float a, b, d; float3 v = (float3)(__vmgpu_sincos(x.s0, &a), __vmgpu_sincos(x.s1, &b), \
  __vmgpu_sincos(x.s2, &d)); *c = (float3)(a, b, d); return v; } \
float4 OVL sincos(float4 x, AS float4 *c) \
{ float2 l, h; float4 v = (float4)(sincos(x.lo, &l), sincos(x.hi, &h)); *c = (float4)(l, h); return v; } \
float8 OVL sincos(float8 x, AS float8 *c) \
{ float4 l, h; float8 v = (float8)(sincos(x.lo, &l), sincos(x.hi, &h)); *c = (float8)(l, h); return v; } \
float16 OVL sincos(float16 x, AS float16 *c) \
{ float8 l, h; float16 v = (float16)(sincos(x.lo, &l), sincos(x.hi, &h)); *c = (float16)(l, h); return v; }
SINCOS(private) SINCOS(global) SINCOS(local)
float OVL native_sin(float x) { return sin(x); }
float OVL native_cos(float x) { return cos(x); }
float OVL half_sin(float x) { return sin(x); }
float OVL half_cos(float x) { return cos(x); }
float OVL native_tan(float x) { return tan(x); }

#ifdef __VMGPU_LIB_CONVERT	/* built when the program calls convert_* */
/* ---- conversions (default rounding: toward zero to integers) ---- */
/* every width from the scalar one */
#define CONVN(D, S) \
D##2 OVL convert_##D##2(S##2 x) { return (D##2)(convert_##D(x.s0), convert_##D(x.s1)); } \
D##3 OVL convert_##D##3(S##3 x) \
{ return (D##3)(convert_##D(x.s0), convert_##D(x.s1), convert_##D(x.s2)); } \
D##4 OVL convert_##D##4(S##4 x) \
{ return (D##4)(convert_##D##2(x.lo), convert_##D##2(x.hi)); } \
D##8 OVL convert_##D##8(S##8 x) \
{ return (D##8)(convert_##D##4(x.lo), convert_##D##4(x.hi)); } \
D##16 OVL convert_##D##16(S##16 x) \
{ return (D##16)(convert_##D##8(x.lo), convert_##D##8(x.hi)); }
#define CONV1(D, S) D OVL convert_##D(S x) { return (D)x; } CONVN(D, S)
/* every integer type and float to each other (64-bit <-> float through
 * the library's conversions, which the front end calls for casts in the
 * program) */
#define CONV_TO(D) \
CONV1(D, char) CONV1(D, uchar) CONV1(D, short) CONV1(D, ushort) \
CONV1(D, int) CONV1(D, uint) CONV1(D, long) CONV1(D, ulong)
CONV_TO(char) CONV_TO(uchar) CONV_TO(short) CONV_TO(ushort) CONV_TO(int)
CONV_TO(uint) CONV_TO(long) CONV_TO(ulong)
CONV1(char, float) CONV1(uchar, float) CONV1(short, float) CONV1(ushort, float)
CONV1(int, float) CONV1(uint, float)
CONV1(float, char) CONV1(float, uchar) CONV1(float, short) CONV1(float, ushort)
CONV1(float, int) CONV1(float, uint) CONV1(float, float)
float OVL convert_float(long x) { return __vmgpu_l2f(x); }
float OVL convert_float(ulong x) { return __vmgpu_ul2f(x); }
long OVL convert_long(float x) { return __vmgpu_f2l(x); }
ulong OVL convert_ulong(float x) { return __vmgpu_f2ul(x); }
CONVN(float, long) CONVN(float, ulong) CONVN(long, float) CONVN(ulong, float)

#endif
#ifdef __VMGPU_LIB_VLOADSTORE	/* built when the program calls vload*, vstore* */
/* ---- vload / vstore: every type, width and address space ---- */
#define VLD_(T, AS) \
T##2 OVL vload2(size_t i, const AS T *p) { p += 2 * i; return (T##2)(p[0], p[1]); } \
T##3 OVL vload3(size_t i, const AS T *p) { p += 3 * i; return (T##3)(p[0], p[1], p[2]); } \
T##4 OVL vload4(size_t i, const AS T *p) \
{ p += 4 * i; return (T##4)(p[0], p[1], p[2], p[3]); } \
T##8 OVL vload8(size_t i, const AS T *p) \
{ p += 8 * i; return (T##8)(vload4(0, p), vload4(1, p)); } \
T##16 OVL vload16(size_t i, const AS T *p) \
{ p += 16 * i; return (T##16)(vload8(0, p), vload8(1, p)); }
#define VST_(T, AS) \
void OVL vstore2(T##2 v, size_t i, AS T *p) { p += 2 * i; p[0] = v.s0; p[1] = v.s1; } \
void OVL vstore3(T##3 v, size_t i, AS T *p) \
{ p += 3 * i; p[0] = v.s0; p[1] = v.s1; p[2] = v.s2; } \
void OVL vstore4(T##4 v, size_t i, AS T *p) \
{ p += 4 * i; p[0] = v.s0; p[1] = v.s1; p[2] = v.s2; p[3] = v.s3; } \
void OVL vstore8(T##8 v, size_t i, AS T *p) \
{ p += 8 * i; vstore4(v.lo, 0, p); vstore4(v.hi, 1, p); } \
void OVL vstore16(T##16 v, size_t i, AS T *p) \
{ p += 16 * i; vstore8(v.lo, 0, p); vstore8(v.hi, 1, p); }
#define VLS_(T) VLD_(T, global) VLD_(T, local) VLD_(T, constant) VLD_(T, private) \
	VST_(T, global) VST_(T, local) VST_(T, private)
VLS_(char) VLS_(uchar) VLS_(short) VLS_(ushort) VLS_(int) VLS_(uint)
VLS_(long) VLS_(ulong) VLS_(float)
#endif
/*
 * half as storage (OpenCL C 1.2, 6.12.7): vload_half[N], vloada_halfN
 * (exact) and vstore_half[N][_rte|_rtz|_rtp|_rtn], vstorea_halfN...
 * (rounded as the mode says, to nearest even without one), through
 * the bits, built when the program calls them. NaN stays NaN (quiet,
 * the payload's top bits kept), overflow gives infinity or, rounding
 * toward zero or away from it, the largest finite half.
 */
#ifdef __VMGPU_LIB_HALF
INL float __vmgpu_h2f(ushort h)
{
	uint s = (uint)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	if (e == 0x1f)
		return as_float(s | 0x7f800000 | (m << 13));
	if (e == 0)	/* subnormal or zero: m 2^-24, exact */
		return as_float(s | as_uint((float)m * 0x1p-24f));
	return as_float(s | ((e + 112) << 23) | (m << 13));
}
/* mode: 0 to nearest even, 1 toward zero, 2 toward +inf, 3 toward -inf */
INL ushort __vmgpu_f2h(float f, int mode)
{
	uint u = as_uint(f), s = (u >> 16) & 0x8000, a = u & 0x7fffffff, bits;
	if (a > 0x7f800000)
		return s | 0x7e00 | ((a >> 13) & 0x3ff);
	if (a == 0x7f800000)
		return s | 0x7c00;
	int up = mode == 2 ? !s : mode == 3 ? s != 0 : 0;
	int e = a < 0x800000 ? -126 : (int)(a >> 23) - 127;
	uint mant = (a & 0x7fffff) | (a < 0x800000 ? 0 : 0x800000);
	if (e > 15) {
		bits = 0x7c00;
	} else {
		/* the bits below half's quantum: 2^-24 for subnormal halves */
		int sh = e < -14 ? min(13 - 14 - e, 25) : 13;
		uint q = mant >> sh, rem = mant & ((1u << sh) - 1),
		     hw = 1u << (sh - 1);
		if (mode == 0 ? rem > hw || (rem == hw && (q & 1)) : up && rem)
			q++;
		/* q's implicit bit carries into the exponent */
		bits = e < -14 ? q : ((uint)(e + 14) << 10) + q;
	}
	if (bits >= 0x7c00)
		bits = mode == 0 || up ? 0x7c00 : 0x7bff;
	return s | bits;
}
#define VLH_(AS) \
float OVL vload_half(size_t i, const AS half *p) \
{ return __vmgpu_h2f(((const AS ushort *)p)[i]); } \
INL OVL float2 __vmgpu_lh2(const AS ushort *q) \
{ return (float2)(__vmgpu_h2f(q[0]), __vmgpu_h2f(q[1])); } \
INL OVL float3 __vmgpu_lh3(const AS ushort *q) \
{ return (float3)(__vmgpu_h2f(q[0]), __vmgpu_h2f(q[1]), __vmgpu_h2f(q[2])); } \
INL OVL float4 __vmgpu_lh4(const AS ushort *q) \
{ return (float4)(__vmgpu_lh2(q), __vmgpu_lh2(q + 2)); } \
INL OVL float8 __vmgpu_lh8(const AS ushort *q) \
{ return (float8)(__vmgpu_lh4(q), __vmgpu_lh4(q + 4)); } \
INL OVL float16 __vmgpu_lh16(const AS ushort *q) \
{ return (float16)(__vmgpu_lh8(q), __vmgpu_lh8(q + 8)); } \
VLHN(AS, 2, 2) VLHN(AS, 3, 3) VLHN(AS, 4, 4) VLHN(AS, 8, 8) VLHN(AS, 16, 16) \
VLHAN(AS, 2, 2) VLHAN(AS, 3, 4) VLHAN(AS, 4, 4) VLHAN(AS, 8, 8) VLHAN(AS, 16, 16)
#define VLHN(AS, N, STRIDE) float##N OVL vload_half##N(size_t i, const AS half *p) \
{ return __vmgpu_lh##N((const AS ushort *)p + STRIDE * i); }
#define VLHAN(AS, N, STRIDE) float##N OVL vloada_half##N(size_t i, const AS half *p) \
{ return __vmgpu_lh##N((const AS ushort *)p + STRIDE * i); }
#define VSH_(AS, M, MODE) \
void OVL vstore_half##M(float v, size_t i, AS half *p) \
{ ((AS ushort *)p)[i] = __vmgpu_f2h(v, MODE); } \
INL OVL void __vmgpu_sh2##M(float2 v, AS ushort *q) \
{ q[0] = __vmgpu_f2h(v.s0, MODE); q[1] = __vmgpu_f2h(v.s1, MODE); } \
INL OVL void __vmgpu_sh3##M(float3 v, AS ushort *q) \
{ q[0] = __vmgpu_f2h(v.s0, MODE); q[1] = __vmgpu_f2h(v.s1, MODE); \
  q[2] = __vmgpu_f2h(v.s2, MODE); } \
INL OVL void __vmgpu_sh4##M(float4 v, AS ushort *q) \
{ __vmgpu_sh2##M(v.lo, q); __vmgpu_sh2##M(v.hi, q + 2); } \
INL OVL void __vmgpu_sh8##M(float8 v, AS ushort *q) \
{ __vmgpu_sh4##M(v.lo, q); __vmgpu_sh4##M(v.hi, q + 4); } \
INL OVL void __vmgpu_sh16##M(float16 v, AS ushort *q) \
{ __vmgpu_sh8##M(v.lo, q); __vmgpu_sh8##M(v.hi, q + 8); } \
VSHN(AS, M, 2, 2) VSHN(AS, M, 3, 3) VSHN(AS, M, 4, 4) VSHN(AS, M, 8, 8) \
VSHN(AS, M, 16, 16) VSHAN(AS, M, 2, 2) VSHAN(AS, M, 3, 4) VSHAN(AS, M, 4, 4) \
VSHAN(AS, M, 8, 8) VSHAN(AS, M, 16, 16)
#define VSHN(AS, M, N, STRIDE) \
void OVL vstore_half##N##M(float##N v, size_t i, AS half *p) \
{ __vmgpu_sh##N##M(v, (AS ushort *)p + STRIDE * i); }
#define VSHAN(AS, M, N, STRIDE) \
void OVL vstorea_half##N##M(float##N v, size_t i, AS half *p) \
{ __vmgpu_sh##N##M(v, (AS ushort *)p + STRIDE * i); }
#define VSH(AS) VSH_(AS, , 0) VSH_(AS, _rte, 0) VSH_(AS, _rtz, 1) \
	VSH_(AS, _rtp, 2) VSH_(AS, _rtn, 3)
VLH_(global) VLH_(local) VLH_(constant) VLH_(private)
VSH(global) VSH(local) VSH(private)
#endif
/*
 * The conversions with _sat and rounding modes (OpenCL C 1.2, 6.2.3),
 * built for the ones the program calls: the front end defines
 * __VMGPU_CONVERT_EXT as __VMGPU_CX(int, _sat_rte) __VMGPU_CXF(_rtz) ...,
 * one per destination type and suffix, each defining every source type
 * and width. To integers: rounded as the mode says (toward zero without
 * one), _sat clamps to the type's range and takes NaN to 0 (without
 * _sat, what the plain conversion gives). To float: exact for types of
 * up to 16 bits, else rounded as the mode says (to nearest even without
 * one).
 */
#ifdef __VMGPU_CONVERT_EXT
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wtautological-constant-out-of-range-compare"
#pragma clang diagnostic ignored "-Wtautological-unsigned-zero-compare"
#pragma clang diagnostic ignored "-Wtautological-compare"
#pragma clang diagnostic ignored "-Wconstant-conversion"
#define VMIN_char (-128)
#define VMAX_char 127
#define VSGN_char 1
#define VMIN_uchar 0
#define VMAX_uchar 255
#define VSGN_uchar 0
#define VMIN_short (-32768)
#define VMAX_short 32767
#define VSGN_short 1
#define VMIN_ushort 0
#define VMAX_ushort 65535
#define VSGN_ushort 0
#define VMIN_int (-2147483647 - 1)
#define VMAX_int 2147483647
#define VSGN_int 1
#define VMIN_uint 0
#define VMAX_uint 4294967295u
#define VSGN_uint 0
#define VMIN_long (-9223372036854775807l - 1)
#define VMAX_long 9223372036854775807l
#define VSGN_long 1
#define VMIN_ulong 0
#define VMAX_ulong 18446744073709551615ul
#define VSGN_ulong 0
/* integer to integer, saturating: the bounds compared in the source's
 * type, only those that can be crossed */
#define SAT_II(D, S) \
INL D OVL __vmgpu_sat_##D(S x) \
{ \
	if (VSGN_##S && (long)VMIN_##D > (long)VMIN_##S && x < (S)VMIN_##D) \
		return VMIN_##D; \
	if ((ulong)VMAX_##D < (ulong)VMAX_##S && x > (S)VMAX_##D) \
		return (D)VMAX_##D; \
	return convert_##D(x); \
}
/* an integral float to integer, saturating, NaN to 0 (the type's bounds
 * as floats: exact for the minima, 2^n for the maxima) */
#define SAT_F(D) \
SAT_II(D, char) SAT_II(D, uchar) SAT_II(D, short) SAT_II(D, ushort) \
SAT_II(D, int) SAT_II(D, uint) SAT_II(D, long) SAT_II(D, ulong) \
INL D OVL __vmgpu_sat_##D(float r) \
{ \
	if (r != r) \
		return 0; \
	if (r <= (float)VMIN_##D) \
		return VMIN_##D; \
	if (r >= (float)VMAX_##D) \
		return (D)VMAX_##D; \
	return convert_##D(r); \
}
SAT_F(char) SAT_F(uchar) SAT_F(short) SAT_F(ushort) SAT_F(int) SAT_F(uint)
SAT_F(long) SAT_F(ulong)
/* a magnitude to float rounded down (toward zero) or up: the nearest,
 * then one step if it went the other way (exact comparison in ulong;
 * 2^64 is above every ulong) */
INL float __vmgpu_u2f_dir(ulong m, int up)
{
	float f = __vmgpu_ul2f(m);
	int above = f >= 18446744073709551616.0f || __vmgpu_f2ul(f) > m;
	int below = !above && __vmgpu_f2ul(f) < m;
	if (up && below)
		f = as_float(as_uint(f) + 1);
	else if (!up && above)
		f = as_float(as_uint(f) - 1);
	return f;
}
/* dir: 0 toward zero, 1 toward +inf, -1 toward -inf */
INL float __vmgpu_i2f_dir(long x, int dir)
{
	if (x < 0)
		return -__vmgpu_u2f_dir(-(ulong)x, dir < 0);
	return __vmgpu_u2f_dir((ulong)x, dir > 0);
}
#define CVT_ID(x) (x)
/* the scalar conversions to integer type D with suffix M: R rounds a
 * float, SAT says whether to saturate */
#define CX1(D, M, R, SAT, S) \
D OVL convert_##D##M(S x) { return SAT ? __vmgpu_sat_##D(x) : convert_##D(x); }
#define CXN(D, M, S) \
D##2 OVL convert_##D##2##M(S##2 x) { return (D##2)(convert_##D##M(x.s0), convert_##D##M(x.s1)); } \
D##3 OVL convert_##D##3##M(S##3 x) \
{ return (D##3)(convert_##D##M(x.s0), convert_##D##M(x.s1), convert_##D##M(x.s2)); } \
D##4 OVL convert_##D##4##M(S##4 x) \
{ return (D##4)(convert_##D##2##M(x.lo), convert_##D##2##M(x.hi)); } \
D##8 OVL convert_##D##8##M(S##8 x) \
{ return (D##8)(convert_##D##4##M(x.lo), convert_##D##4##M(x.hi)); } \
D##16 OVL convert_##D##16##M(S##16 x) \
{ return (D##16)(convert_##D##8##M(x.lo), convert_##D##8##M(x.hi)); }
#define CXI(D, M, R, SAT, S) CX1(D, M, R, SAT, S) CXN(D, M, S)
#define CX(D, M, R, SAT) \
CXI(D, M, R, SAT, char) CXI(D, M, R, SAT, uchar) CXI(D, M, R, SAT, short) \
CXI(D, M, R, SAT, ushort) CXI(D, M, R, SAT, int) CXI(D, M, R, SAT, uint) \
CXI(D, M, R, SAT, long) CXI(D, M, R, SAT, ulong) \
D OVL convert_##D##M(float x) \
{ return SAT ? __vmgpu_sat_##D(R(x)) : convert_##D(R(x)); } \
CXN(D, M, float)
#define __VMGPU_CX(D, M) __VMGPU_CX##M(D)
#define __VMGPU_CX_sat(D) CX(D, _sat, trunc, 1)
#define __VMGPU_CX_rte(D) CX(D, _rte, rint, 0)
#define __VMGPU_CX_rtz(D) CX(D, _rtz, trunc, 0)
#define __VMGPU_CX_rtp(D) CX(D, _rtp, ceil, 0)
#define __VMGPU_CX_rtn(D) CX(D, _rtn, floor, 0)
#define __VMGPU_CX_sat_rte(D) CX(D, _sat_rte, rint, 1)
#define __VMGPU_CX_sat_rtz(D) CX(D, _sat_rtz, trunc, 1)
#define __VMGPU_CX_sat_rtp(D) CX(D, _sat_rtp, ceil, 1)
#define __VMGPU_CX_sat_rtn(D) CX(D, _sat_rtn, floor, 1)
/* to float with a rounding mode: DIR 0 toward zero, 1 up, -1 down, 2
 * nearest (the plain conversion) */
#define CXF1(M, DIR, S, BIG) \
float OVL convert_float##M(S x) \
{ return !BIG || DIR == 2 ? convert_float(x) : __vmgpu_i2f_dir((long)x, DIR); }
#define CXF(M, DIR) \
CXF1(M, DIR, char, 0) CXF1(M, DIR, uchar, 0) CXF1(M, DIR, short, 0) \
CXF1(M, DIR, ushort, 0) CXF1(M, DIR, int, 1) CXF1(M, DIR, uint, 1) \
CXF1(M, DIR, long, 1) \
float OVL convert_float##M(ulong x) \
{ return DIR == 2 ? convert_float(x) : DIR == -1 || DIR == 0 ? \
	__vmgpu_u2f_dir(x, 0) : __vmgpu_u2f_dir(x, 1); } \
float OVL convert_float##M(float x) { return x; } \
CXN(float, M, char) CXN(float, M, uchar) CXN(float, M, short) \
CXN(float, M, ushort) CXN(float, M, int) CXN(float, M, uint) \
CXN(float, M, long) CXN(float, M, ulong) CXN(float, M, float)
#define __VMGPU_CXF(M) __VMGPU_CXF##M
#define __VMGPU_CXF_rte CXF(_rte, 2)
#define __VMGPU_CXF_rtz CXF(_rtz, 0)
#define __VMGPU_CXF_rtp CXF(_rtp, 1)
#define __VMGPU_CXF_rtn CXF(_rtn, -1)
__VMGPU_CONVERT_EXT
#pragma clang diagnostic pop
#endif
)CLC";

} // namespace vmgpu_cc
