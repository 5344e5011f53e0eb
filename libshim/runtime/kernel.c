// SPDX-License-Identifier: MIT
/*
 * libvmgpurt kernel objects (SPEC P3) and their execution history (P6).
 *
 * A kernel is an executable with a signature, checked once here as a
 * device loads it (the interpreter's loader, vg_kernel_load(), for the
 * ISA version of the CPU device); each GPU loads it when an instance
 * first runs there.
 *
 * History: per kernel, device and size (the threads of the instance's
 * grid, its "footprint"), the last RT_SAMPLES device times. The
 * estimate is their median (lower median): a timing outlier among three
 * samples or more does not move it, where a mean would be dragged by it
 * (StarPU's models, starpu#50). A device is calibrated for a kernel and
 * size after RT_CALIBRATED samples; until then its estimate is that of a
 * calibrated device of its type (scaled by compute power), so that one
 * outlier among its first samples does not starve it of the work that
 * would correct it; else its own samples (another size: scaled by
 * threads); else any device's, scaled by compute power; else 0 (an
 * unmeasured device looks free, so it is tried and measured).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel.h"
#include "rt_internal.h"

void rt_kernel_free(struct vmgpu_rt *rt, struct rt_kernel *k)
{
	uint32_t v;

	vg_kernel_free(k->cpu);
	for (v = 0; v <= VMGPU_ISA_VERSION; v++)
		free(k->exec[v].image);
	free(k);
}

static void kernel_release(struct vmgpu_rt *rt, struct rt_obj *o)
{
	rt_kernel_free(rt, (struct rt_kernel *)o);
}

int rt_kernel_image(struct vmgpu_rt *rt, const struct rt_kernel *k,
		    uint32_t isa, const void **image, size_t *bytes)
{
	uint32_t v = isa > VMGPU_ISA_VERSION ? VMGPU_ISA_VERSION : isa;

	for (; v >= VMGPU_ISA_VERSION_MIN; v--)
		if (k->exec[v].image) {
			*image = k->exec[v].image;
			*bytes = k->exec[v].bytes;
			return 0;
		}
	return rt_err(rt, -ENOEXEC,
		      "kernel %s has no executable for ISA version %u or older",
		      k->sig.name, isa);
}

/* Check @image (its header, signature equal to @k's) and keep a copy. */
int rt_kernel_add_exec(struct vmgpu_rt *rt, struct rt_kernel *k,
		       const void *image, size_t bytes)
{
	struct vmgpu_exec_param params[VMGPU_MAX_PARAMS];
	struct vmgpu_exec_header h;
	struct vmgpu_exec_sig sig;
	const char *why = "";
	uint32_t i;

	if (!image || bytes < VMGPU_EXEC_HEADER_BYTES)
		return rt_err(rt, -EINVAL, "no executable image");
	vmgpu_exec_header_read(&h, image);
	if (!vmgpu_exec_header_valid(&h) || bytes != vmgpu_exec_file_bytes(&h))
		return rt_err(rt, -EINVAL, "invalid executable header or size");
	if (vmgpu_exec_sig_read(&h, image, bytes, &sig, params, &why) != 1)
		return rt_err(rt, -EINVAL, "executable without a valid signature");
	if (strcmp(sig.name, k->sig.name) ||
	    sig.num_params != k->sig.num_params)
		return rt_err(rt, -EINVAL, "executable of %s is not kernel %s",
			      sig.name, k->sig.name);
	for (i = 0; i < sig.num_params; i++)
		if (params[i].type != k->params[i].type ||
		    params[i].offset != k->params[i].offset)
			return rt_err(rt, -EINVAL,
				      "kernel %s: parameter %u differs between versions",
				      k->sig.name, i);
	if (h.args_bytes != k->h.args_bytes)
		return rt_err(rt, -EINVAL, "kernel %s: argument blocks differ",
			      k->sig.name);
	if (k->exec[h.isa_version].image)
		return 0;	/* that version already: the same kernel */
	k->exec[h.isa_version].image = malloc(bytes);
	if (!k->exec[h.isa_version].image)
		return rt_err(rt, -ENOMEM, "out of memory");
	memcpy(k->exec[h.isa_version].image, image, bytes);
	k->exec[h.isa_version].bytes = bytes;
	return 0;
}

int rt_kernel_new(struct vmgpu_rt *rt, const void *image, size_t bytes,
			 uint32_t private_bytes, struct rt_kernel **out)
{
	const char *why = "";
	uint32_t bad_pc = 0;
	struct rt_kernel *k = NULL;
	int r;

	if (!image || bytes < VMGPU_EXEC_HEADER_BYTES)
		return rt_err(rt, -EINVAL, "no executable image");
	k = calloc(1, sizeof(*k));
	if (!k)
		return rt_err(rt, -ENOMEM, "out of memory");
	k->o.kind = RT_KIND_KERNEL;
	k->o.refs = 1;
	k->o.release = kernel_release;
	vmgpu_exec_header_read(&k->h, image);
	if (!vmgpu_exec_header_valid(&k->h) ||
	    bytes != vmgpu_exec_file_bytes(&k->h)) {
		r = rt_err(rt, -EINVAL, "invalid executable header or size");
		goto fail;
	}
	r = vmgpu_exec_sig_read(&k->h, image, bytes, &k->sig, k->params, &why);
	if (r <= 0) {
		r = rt_err(rt, -EINVAL, "executable: %s",
			   r ? why : "no signature (a .kernel with .params)");
		goto fail;
	}
	k->user_params = k->sig.num_params;
	if (private_bytes) {
		const struct vmgpu_exec_param *last =
			&k->params[k->sig.num_params - 1];

		if (!k->sig.num_params || strcmp(last->name, "vmgpu_private") ||
		    !vmgpu_param_is_buffer(last->type)) {
			r = rt_err(rt, -EINVAL,
				   "private bytes without a vmgpu_private parameter");
			goto fail;
		}
		k->user_params--;
	}
	/* The printf buffer before it (VMGPU_PRINTF_PARAM): the runtime's. */
	k->printf_param = -1;
	if (k->user_params &&
	    !strcmp(k->params[k->user_params - 1].name, VMGPU_PRINTF_PARAM) &&
	    k->params[k->user_params - 1].type == VMGPU_PARAM_BUF_RW)
		k->printf_param = (int32_t)--k->user_params;
	/*
	 * VMGPU_NDRANGE_OPTION's pair before it: the runtime's to fill
	 * (args.c), by name as the compiler writes them.
	 */
	k->ndrange_off = -1;
	if (k->user_params >= 2) {
		const struct vmgpu_exec_param *p0 = &k->params[k->user_params - 2];

		if (!strcmp(p0[0].name, VMGPU_NDRANGE_PARAM0) &&
		    !strcmp(p0[1].name, VMGPU_NDRANGE_PARAM1) &&
		    p0[0].type == VMGPU_PARAM_I64 &&
		    p0[1].type == VMGPU_PARAM_I64 &&
		    p0[1].offset == p0[0].offset + 8) {
			k->ndrange_off = (int32_t)p0[0].offset;
			k->user_params -= 2;
		}
	}
	k->private_bytes = private_bytes;
	r = vg_kernel_load(&k->cpu, image, bytes, VMGPU_ISA_VERSION, &bad_pc);
	if (r != VMGPU_FAULT_NONE) {
		r = rt_err(rt, -ENOEXEC, "executable refused (fault %d at pc %u)",
			   r, bad_pc);
		goto fail;
	}
	r = rt_kernel_add_exec(rt, k, image, bytes);
	if (r)
		goto fail;
	*out = k;
	return 0;
fail:
	rt_kernel_free(rt, k);
	return r;
}

int vmgpu_rt_kernel_create(struct vmgpu_rt *rt, vmgpu_rt_handle ctx,
			   const void *image, size_t bytes,
			   uint32_t private_bytes, vmgpu_rt_handle *kernel)
{
	struct rt_kernel *k = NULL;
	struct rt_obj *o;
	int r;

	if (!rt || !kernel)
		return -EINVAL;
	*kernel = 0;
	pthread_mutex_lock(&rt->lock);
	r = rt_lookup(rt, ctx, RT_KIND_CONTEXT, &o);
	if (!r)
		r = rt_kernel_new(rt, image, bytes, private_bytes, &k);
	if (!r) {
		r = rt_handle_new(rt, &k->o, kernel);
		if (r)
			rt_kernel_free(rt, k);
	}
	pthread_mutex_unlock(&rt->lock);
	return r;
}

int vmgpu_rt_kernel_param_count(struct vmgpu_rt *rt, vmgpu_rt_handle kernel)
{
	struct rt_obj *o;
	int r;

	if (!rt)
		return -EINVAL;
	pthread_mutex_lock(&rt->lock);
	r = rt_lookup(rt, kernel, RT_KIND_KERNEL, &o);
	if (!r)
		r = (int)((struct rt_kernel *)o)->user_params;
	pthread_mutex_unlock(&rt->lock);
	return r;
}

/* ---- history ---- */

static uint64_t hist_median(const struct rt_hist *h)
{
	uint64_t v[RT_SAMPLES], t;
	uint32_t i, j;

	for (i = 0; i < h->n; i++) {
		t = h->samples[i];
		for (j = i; j > 0 && v[j - 1] > t; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
	return v[(h->n - 1) / 2];
}

static uint64_t hist_value(const struct rt_hist *h, bool mean)
{
	return mean ? h->sum / h->count : hist_median(h);
}

/*
 * On one device, from samples of at least @min: the exact size, else
 * (@any_size) scaled from the nearest size.
 */
static bool estimate_on(const struct rt_kernel *k, uint32_t phys,
			uint64_t threads, bool mean, uint32_t min,
			bool any_size, uint64_t *ns)
{
	const struct rt_hist *best = NULL;
	uint64_t bd = UINT64_MAX;
	uint32_t i;

	for (i = 0; i < RT_MAX_FOOTPRINTS; i++) {
		const struct rt_hist *h = &k->hist[phys][i];
		uint64_t d;

		if (!h->n || h->n < min)
			continue;
		if (h->threads == threads) {
			*ns = hist_value(h, mean);
			return true;
		}
		d = h->threads > threads ? h->threads - threads :
					   threads - h->threads;
		if (d < bd) {
			bd = d;
			best = h;
		}
	}
	if (!best || !any_size)
		return false;
	*ns = (uint64_t)((double)hist_value(best, mean) * threads /
			 best->threads);
	return true;
}

/* From device @from to @to: by compute power. */
static uint64_t rescale(struct vmgpu_rt *rt, uint64_t ns, uint32_t from,
			uint32_t to)
{
	return (uint64_t)((double)ns * rt->phys[from].power /
			  rt->phys[to].power);
}

uint64_t rt_estimate(struct vmgpu_rt *rt, struct rt_kernel *k, uint32_t phys,
		     uint64_t threads, bool mean)
{
	uint64_t ns;
	uint32_t d;

	/* Calibrated here. */
	if (estimate_on(k, phys, threads, mean, RT_CALIBRATED, false, &ns))
		return ns;
	/* Calibrated on a device of the same type. */
	for (d = 0; d < rt->nphys; d++)
		if (d != phys &&
		    rt->phys[d].caps.type == rt->phys[phys].caps.type &&
		    estimate_on(k, d, threads, mean, RT_CALIBRATED, false, &ns))
			return rescale(rt, ns, d, phys);
	/* Any sample here, of any size; then elsewhere. */
	if (estimate_on(k, phys, threads, mean, 1, true, &ns))
		return ns;
	for (d = 0; d < rt->nphys; d++)
		if (d != phys &&
		    rt->phys[d].caps.type == rt->phys[phys].caps.type &&
		    estimate_on(k, d, threads, mean, 1, true, &ns))
			return rescale(rt, ns, d, phys);
	for (d = 0; d < rt->nphys; d++)
		if (d != phys && estimate_on(k, d, threads, mean, 1, true, &ns))
			return rescale(rt, ns, d, phys);
	return 0;
}

void rt_sample(struct rt_kernel *k, uint32_t phys, uint64_t threads,
	       uint64_t ns)
{
	struct rt_hist *h = NULL, *old = NULL;
	uint32_t i;

	for (i = 0; i < RT_MAX_FOOTPRINTS && !h; i++) {
		struct rt_hist *c = &k->hist[phys][i];

		if (c->n && c->threads == threads)
			h = c;
		else if (!c->n)
			h = c;
		else if (!old || c->count < old->count)
			old = c;
	}
	if (!h) {
		h = old;
		memset(h, 0, sizeof(*h));
	}
	if (!h->n)
		h->threads = threads;
	h->samples[h->next] = ns;
	h->next = (h->next + 1) % RT_SAMPLES;
	if (h->n < RT_SAMPLES)
		h->n++;
	h->count++;
	h->sum += ns;
}
