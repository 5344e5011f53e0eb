// SPDX-License-Identifier: MIT
/*
 * vmgpu-stress: the hang injector (--hang), a process of its own: on
 * GPU 0 only, as user nobody, endless kernels and waits nobody
 * satisfies, each of which must end with an error.
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stress.h"

/* ------------------------------------------------------------------ */
/* The hang injector                                                    */
/* ------------------------------------------------------------------ */

/* An endless loop; the instruction budget or the job timeout ends it. */
static const char forever_src[] =
	"loop:\n"
	"	bra loop\n"
	"	exit\n";

int hang_main(int incarnation)
{
	struct vmgpu_device *dev;
	struct vmgpu_bo *k = NULL, *flag = NULL, *kfill = NULL, *out = NULL;
	uint64_t rng = splitmix(cfg.seed ^ 0x4a4e6ull ^ incarnation), i = 0;
	void *img, *fmap, *omap;
	uint32_t bsync = 0;
	size_t bytes;
	int ret;

	role = "hang";
	ret = vmgpu_device_open(0, &dev, NULL, 0);
	note(C_OPEN, ret);
	if (ret)
		return EXIT_DEVLOST;
	/* Files open; now as nobody, without CAP_SYS_NICE. */
	if (!getuid() && (setgroups(0, NULL) || setgid(65534) || setuid(65534))) {
		violation("hang: cannot drop privileges: %s", strerror(errno));
		return 1;
	}
	assemble(forever_src, &img, &bytes);
	ret = vmgpu_kernel_create(dev, img, bytes, &k);
	free(img);
	note(C_BO_CREATE, ret);
	if (!ret) {
		ret = vmgpu_bo_create(dev, 4096, 0, VMGPU_PLACEMENT_SYSTEM, &flag);
		note(C_BO_CREATE, ret);
	}
	if (!ret) {
		ret = vmgpu_bo_map(flag, &fmap);
		note(C_MMAP, ret);
	}
	/* The bystander: an innocent fill queued behind each hang. */
	if (!ret) {
		assemble(vmgpu_builtin_kernel_source("fill"), &img, &bytes);
		ret = vmgpu_kernel_create(dev, img, bytes, &kfill);
		free(img);
		note(C_BO_CREATE, ret);
	}
	if (!ret) {
		ret = vmgpu_bo_create(dev, 4096, 0, VMGPU_PLACEMENT_SYSTEM, &out);
		note(C_BO_CREATE, ret);
	}
	if (!ret) {
		ret = vmgpu_bo_map(out, &omap);
		note(C_MMAP, ret);
	}
	if (!ret) {
		ret = vmgpu_syncobj_create(dev, &bsync);
		note(C_SYNCOBJ_CREATE, ret);
	}
	if (ret)
		return ret == -ENODEV ? EXIT_DEVLOST : 1;
	memset(fmap, 0, 4096);

	while (!S->stop) {
		struct vmgpu_submit_info info = { .gpu = 0 };
		struct vmgpu_context_status st;
		struct vmgpu_dispatch_desc d;
		struct vmgpu_context *ctx;
		struct vmgpu_cmdbuf *cb;
		struct vmgpu_sync os = { 0 };
		unsigned int w0 = S->window;
		unsigned int kind = i++ % 4;
		bool endless = kind < 2;
		/* What hangs: 0, 1 a kernel, 2 a WAIT_VALUE, 3 a DEP_WAIT. */
		const char *hang = endless ? "an endless kernel" :
				   kind == 2 ? "a WAIT_VALUE" : "a DEP_WAIT";
		uint32_t sync;
		char what[256] = "";

		ret = vmgpu_context_create(dev, VMGPU_PRIORITY_NORMAL, &ctx);
		if (note(C_CTX_CREATE, ret))
			return ret == -ENODEV ? EXIT_DEVLOST : 1;
		ret = vmgpu_syncobj_create(dev, &sync);
		note(C_SYNCOBJ_CREATE, ret);
		vmgpu_cmdbuf_create(dev, &cb);
		if (endless) {
			ret = vmgpu_cmdbuf_set_state(cb, VMGPU_STATE_INSTR_BUDGET,
						     (uint32_t)S->max_budget);
			memset(&d, 0, sizeof(d));
			d.kernel = k;
			d.block[0] = 32;
			if (!ret)
				ret = vmgpu_cmdbuf_dispatch(cb, &d);
		} else if (kind == 2) {
			ret = vmgpu_cmdbuf_wait_value(cb, flag, 0, VMGPU_WAIT_EQ,
						      1, ~0u);
		} else {
			/* An entry nobody writes in this epoch, explicitly synced. */
			struct vmgpu_dep_table t = { flag, 0, 512 };
			struct vmgpu_region_map m = { .kind = VMGPU_MAP_IDENTITY };
			const uint32_t one[3] = { 1, 1, 1 }, zero[3] = { 0 };

			ret = vmgpu_cmdbuf_use(cb, flag, VMGPU_USE_EXPLICIT);
			if (!ret)
				ret = vmgpu_cmdbuf_dep_wait(cb, 0xfffffff0u, &t, 0,
							    one, one, zero, one,
							    &m);
		}
		if (ret >= 0) {
			os.handle = sync;
			info.out = &os;
			info.out_count = 1;
			ret = vmgpu_submit(ctx, cb, &info);
			note(C_SUBMIT, ret < 0 ? ret : 0);
			vmgpu_error_message(dev, what, sizeof(what));
		}
		vmgpu_cmdbuf_destroy(cb);
		if (ret == -ENODEV)
			return EXIT_DEVLOST;
		if (ret < 0) {
			if (!(w0 & 1) && w0 == S->window)
				violation("hang: submitting %s at budget %#" PRIx64
					  " failed: %s", hang, S->max_budget, what);
		} else {
			struct fillj by = { .gpu = 0, .tag = (uint32_t)i };
			char bwhat[256] = "";
			int bret;

			add(ST_HANGS);
			add(ST_PK_SUBMITTED);
			bret = fill_submit(dev, kfill, out, omap, bsync, &by, bwhat,
					   sizeof(bwhat));
			ret = wait_sync(dev, sync, 120000);
			if (ret == -ETIME) {
				violation("hang: %s on GPU 0 did not end within 120 s",
					  hang);
			} else if (!ret) {
				int s = sync_status(dev, sync);

				if (s == 1) {
					violation("hang: %s reported success", hang);
				} else {
					add(ST_HANGS_ENDED);
					add(ST_PK_FAILED);
				}
				ret = vmgpu_context_query(ctx, &st);
				note(C_CTX_QUERY, ret);
				if (!ret && s != 1 && !st.banned && !(w0 & 1) &&
				    w0 == S->window)
					violation("hang: context of a failed packet not banned");
			}
			/* Hangs cost only their own context: the bystander runs. */
			if (!bret)
				bret = fill_finish(dev, omap, bsync, &by, 120000, true,
						   bwhat, sizeof(bwhat));
			vmgpu_context_destroy(by.ctx);
			if (bret && bret != -EINTR && !(w0 & 1) && w0 == S->window)
				violation("hang: innocent packet queued behind %s on GPU 0 "
					  "failed: %s", hang, bwhat);
		}
		vmgpu_syncobj_destroy(dev, sync);
		vmgpu_context_destroy(ctx);
		if (ret == -ENODEV || S->window != w0)
			return EXIT_DEVLOST;
		sleep_ms(300 + rnd(&rng) % 1500);
	}
	vmgpu_syncobj_destroy(dev, bsync);
	vmgpu_bo_destroy(k);
	vmgpu_bo_destroy(flag);
	vmgpu_bo_destroy(kfill);
	vmgpu_bo_destroy(out);
	vmgpu_device_close(dev);
	return 0;
}
