// SPDX-License-Identifier: MIT
/*
 * libvmgpu: submission of command buffers (batched or baseline) and the
 * driver's counters.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <xf86drm.h>

#include "vmgpu.h"
#include "vmgpu_drm.h"
#include "vmgpu_hw.h"
#include "shim_internal.h"

static int submit_words(struct vmgpu_context *ctx, struct vmgpu_cmdbuf *cb,
			const uint32_t *words, uint32_t nwords,
			const struct vmgpu_submit_info *info, bool with_in,
			bool with_out)
{
	struct drm_vmgpu_sync in[64], out[64];
	struct drm_vmgpu_submit args;
	uint32_t i, nin = with_in ? info->in_count : 0;
	uint32_t nout = with_out ? info->out_count : 0;

	memset(&args, 0, sizeof(args));
	memset(in, 0, sizeof(in));
	memset(out, 0, sizeof(out));
	for (i = 0; i < nin; i++) {
		in[i].handle = info->in[i].handle;
		in[i].point = info->in[i].point;
	}
	for (i = 0; i < nout; i++) {
		out[i].handle = info->out[i].handle;
		out[i].point = info->out[i].point;
	}
	args.cmdbuf = (uintptr_t)words;
	args.cmdbuf_bytes = 4 * nwords;
	args.gpu = info->gpu;
	args.ctx_id = ctx->id;
	args.bos = (uintptr_t)cb->bos;
	args.bo_count = cb->nbos;
	args.in_syncs = (uintptr_t)in;
	args.in_sync_count = nin;
	args.out_syncs = (uintptr_t)out;
	args.out_sync_count = nout;
	if (drmIoctl(ctx->dev->fd, DRM_IOCTL_VMGPU_SUBMIT, &args))
		return shim_set_error(ctx->dev, -errno,
				      "SUBMIT of %u bytes on GPU %u: %s%s",
				      4 * nwords, info->gpu, strerror(errno),
				      errno == ECANCELED ?
				      " (context banned after an error)" : "");
	return 0;
}

/*
 * One packet per dispatch. SYNCs are dropped (packets of a context run in
 * order anyway); state and other commands go with the next dispatch,
 * those after the last dispatch with the last one.
 */
static int submit_baseline(struct vmgpu_context *ctx, struct vmgpu_cmdbuf *cb,
			   const struct vmgpu_submit_info *info)
{
	uint32_t *pkt, npkt = 0, w = 0, packets = 0, state_words = 0;
	/* One SET_STATE per key (VMGPU_STATE_*: five) carried over. */
	uint32_t state[5 * VMGPU_CMD_LEN_SET_STATE];
	uint32_t seen = 0;
	int ret = 0;

	pkt = malloc(4 * (cb->nwords + 5 * VMGPU_CMD_LEN_SET_STATE + 1));
	if (!pkt)
		return shim_set_error(ctx->dev, -ENOMEM, "out of memory");
	while (w < cb->nwords) {
		uint32_t hdr = cb->words[w], op = VMGPU_CMD_OP(hdr);
		uint32_t len = VMGPU_CMD_LEN(hdr);
		bool last;

		if (!len || len > cb->nwords - w) {
			ret = shim_set_error(ctx->dev, -EINVAL,
					     "baseline: malformed command at word %u",
					     w);
			break;
		}
		switch (op) {
		case VMGPU_CMD_SYNC:	/* names dispatches of the packet */
		case VMGPU_CMD_END:
			break;
		case VMGPU_CMD_SET_STATE:
			/* Remember the state for the following packets. */
			if (state_words < 5 * VMGPU_CMD_LEN_SET_STATE) {
				memcpy(state + state_words, cb->words + w, 4 * len);
				state_words += len;
			}
			memcpy(pkt + npkt, cb->words + w, 4 * len);
			npkt += len;
			break;
		case VMGPU_CMD_DISPATCH:
		case VMGPU_CMD_LAUNCH_TMD:
			seen++;
			/* fall through */
		default:
			memcpy(pkt + npkt, cb->words + w, 4 * len);
			npkt += len;
			break;
		}
		w += len;
		last = w >= cb->nwords;
		if (((op == VMGPU_CMD_DISPATCH || op == VMGPU_CMD_LAUNCH_TMD) &&
		     seen < cb->check.dispatches) ||
		    (last && npkt)) {
			pkt[npkt++] = VMGPU_CMD_HEADER(VMGPU_CMD_END);
			ret = submit_words(ctx, cb, pkt, npkt, info,
					   packets == 0, last);
			if (ret)
				break;
			packets++;
			memcpy(pkt, state, 4 * state_words);
			npkt = state_words;
		}
	}
	free(pkt);
	return ret ? ret : (int)packets;
}

int vmgpu_submit(struct vmgpu_context *ctx, struct vmgpu_cmdbuf *cb,
		 const struct vmgpu_submit_info *info)
{
	struct vmgpu_device *dev;
	uint32_t end = VMGPU_CMD_HEADER(VMGPU_CMD_END);
	int ret;

	if (!ctx)
		return -EINVAL;
	dev = ctx->dev;
	if (!cb || !info || cb->dev != dev)
		return shim_set_error(dev, -EINVAL,
				      "submit: missing command buffer or info");
	if (info->flags & ~VMGPU_SUBMIT_BASELINE)
		return shim_set_error(dev, -EINVAL, "submit: unknown flags %#x",
				      info->flags);
	if (info->gpu >= dev->num_gpus)
		return shim_set_error(dev, -EINVAL,
				      "submit: GPU %u does not exist (%u GPUs)",
				      info->gpu, dev->num_gpus);
	if (info->in_count > 64 || info->out_count > 64 ||
	    (info->in_count && !info->in) || (info->out_count && !info->out))
		return shim_set_error(dev, -EINVAL, "submit: bad sync lists");

	if (info->flags & VMGPU_SUBMIT_BASELINE) {
		if (cb->ended)
			return shim_set_error(dev, -EINVAL,
					      "submit: baseline mode needs a built command buffer");
		if (!cb->check.dispatches)
			return shim_set_error(dev, -EINVAL,
					      "submit: baseline mode without dispatches");
		return submit_baseline(ctx, cb, info);
	}
	if (!cb->ended) {
		/* END is appended in place and taken off again. */
		ret = vmgpu_cmdbuf_raw(cb, &end, 1);
		cb->ended = false;
		if (ret)
			return ret;
		ret = submit_words(ctx, cb, cb->words, cb->nwords, info, true,
				   true);
		cb->nwords--;
	} else {
		ret = submit_words(ctx, cb, cb->words, cb->nwords, info, true,
				   true);
	}
	return ret ? ret : 1;
}

/*
 * Open the driver's debugfs file @name of @dev's DRM minor; on failure
 * NULL with the error recorded in @dev and returned in *@err.
 */
static FILE *open_debugfs(struct vmgpu_device *dev, const char *name,
			  char *path, size_t len, int *err)
{
	struct stat st;
	FILE *f;

	if (fstat(dev->fd, &st)) {
		*err = shim_set_error(dev, -errno, "fstat: %s", strerror(errno));
		return NULL;
	}
	snprintf(path, len, "/sys/kernel/debug/dri/%u/%s", minor(st.st_rdev),
		 name);
	f = fopen(path, "r");
	if (!f)
		*err = shim_set_error(dev, -errno, "%s: %s", path,
				      strerror(errno));
	return f;
}

/*
 * Call @fn for every "key value" pair of GPU @gpu's line of the driver's
 * counters file.
 */
static int counters_each(struct vmgpu_device *dev, uint32_t gpu,
			 void (*fn)(void *ctx, const char *key, uint64_t v),
			 void *ctx)
{
	char path[96], line[2048], want[16];
	int found = 0, err;
	FILE *f;

	f = open_debugfs(dev, "counters", path, sizeof(path), &err);
	if (!f)
		return err;
	snprintf(want, sizeof(want), "gpu%u", gpu);
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok = strtok_r(line, " \n", &save);

		if (!tok || strcmp(tok, want))
			continue;
		found = 1;
		while ((tok = strtok_r(NULL, " \n", &save))) {
			char *val = strtok_r(NULL, " \n", &save);

			if (!val)
				break;
			fn(ctx, tok, strtoull(val, NULL, 0));
		}
	}
	fclose(f);
	if (!found)
		return shim_set_error(dev, -ENOENT, "%s: no line for GPU %u",
				      path, gpu);
	return 0;
}

static void counters_fill(void *ctx, const char *key, uint64_t v)
{
	static const struct {
		const char *name;
		size_t off;
	} keys[] = {
#define K(f) { #f, offsetof(struct vmgpu_gpu_counters, f) }
		K(submits), K(packets), K(dispatches), K(irqs),
		K(irqs_complete), K(irqs_error), K(work_runs), K(errors),
		K(timeouts), K(resets), K(busy_ns), K(hw_packets),
		K(hw_dispatches), K(hw_interrupts), K(hw_errors),
		K(hw_busy_ns),
#undef K
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i].name))
			*(uint64_t *)((char *)ctx + keys[i].off) = v;
}

int vmgpu_gpu_counters(struct vmgpu_device *dev, uint32_t gpu,
		       struct vmgpu_gpu_counters *c)
{
	if (!dev)
		return -EINVAL;
	if (!c)
		return shim_set_error(dev, -EINVAL, "counters: NULL");
	memset(c, 0, sizeof(*c));
	return counters_each(dev, gpu, counters_fill, c);
}

struct counter_lookup {
	const char *name;
	uint64_t *value;
	bool found;
};

static void counter_match(void *ctx, const char *key, uint64_t v)
{
	struct counter_lookup *l = ctx;

	if (!strcmp(key, l->name)) {
		*l->value = v;
		l->found = true;
	}
}

int vmgpu_gpu_counter(struct vmgpu_device *dev, uint32_t gpu,
		      const char *name, uint64_t *value)
{
	struct counter_lookup l = { name, value, false };
	int ret;

	if (!dev)
		return -EINVAL;
	if (!name || !value)
		return shim_set_error(dev, -EINVAL, "gpu_counter: NULL");
	ret = counters_each(dev, gpu, counter_match, &l);
	if (ret)
		return ret;
	if (!l.found)
		return shim_set_error(dev, -ENOENT,
				      "gpu_counter: GPU %u has no counter '%s'",
				      gpu, name);
	return 0;
}

int vmgpu_jobs_alive(struct vmgpu_device *dev)
{
	char path[96], line[256];
	int n = -ENOENT, err;
	FILE *f;

	if (!dev)
		return -EINVAL;
	f = open_debugfs(dev, "counters", path, sizeof(path), &err);
	if (!f)
		return err;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "device jobs_alive %d", &n) == 1)
			break;
	fclose(f);
	if (n < 0)
		return shim_set_error(dev, -ENOENT, "%s: no jobs_alive", path);
	return n;
}
