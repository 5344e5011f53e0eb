// SPDX-License-Identifier: MIT
/*
 * A first libvmgpu program: y = 2 * x + y over 4096 floats with the
 * built-in saxpy kernel on GPU 0, checked on the CPU. Prints OK and exits
 * 0 when every value is right.
 *
 *   cc -o first first.c $(pkg-config --cflags --libs vmgpu)
 */
#include <stdio.h>
#include <stdlib.h>

#include <vmgpu.h>

#define N	4096
#define BLOCK	64

static int failed(struct vmgpu_device *dev, const char *what)
{
	char msg[256];

	vmgpu_error_message(dev, msg, sizeof(msg));
	fprintf(stderr, "first: %s: %s\n", what, msg);
	return 1;
}

int main(void)
{
	struct vmgpu_device *dev;
	struct vmgpu_bo *kernel, *x, *y;
	struct vmgpu_args *args;
	struct vmgpu_cmdbuf *cb;
	struct vmgpu_context *ctx;
	struct vmgpu_dispatch_desc d = { 0 };
	struct vmgpu_sync done = { 0 };
	struct vmgpu_submit_info submit = { 0 };
	float *xp, *yp;
	void *image, *map;
	size_t bytes;
	char err[256];
	int i, ret, bad = 0;

	/* 1. The first vmgpu device. */
	if (vmgpu_device_open(0, &dev, err, sizeof(err))) {
		fprintf(stderr, "first: %s\n", err);
		return 1;
	}

	/* 2. The kernel: assemble saxpy's source, load the image. */
	if (vmgpu_asm_assemble(vmgpu_builtin_kernel_source("saxpy"), &image,
			       &bytes, err, sizeof(err))) {
		fprintf(stderr, "first: saxpy: %s\n", err);
		return 1;
	}
	if (vmgpu_kernel_create(dev, image, bytes, &kernel))
		return failed(dev, "kernel");
	free(image);

	/* 3. Two buffers in GPU 0's memory, filled through CPU mappings. */
	if (vmgpu_bo_create(dev, N * sizeof(float), 0, VMGPU_PLACEMENT_GPU(0),
			    &x) || vmgpu_bo_map(x, &map))
		return failed(dev, "buffer x");
	xp = map;
	if (vmgpu_bo_create(dev, N * sizeof(float), 0, VMGPU_PLACEMENT_GPU(0),
			    &y) || vmgpu_bo_map(y, &map))
		return failed(dev, "buffer y");
	yp = map;
	for (i = 0; i < N; i++) {
		xp[i] = (float)i;
		yp[i] = 1.0f;
	}

	/*
	 * 4. saxpy's arguments by its signature (.param n, i32; a, f32;
	 * x, buf_ro; y, buf_rw), each type checked.
	 */
	if (vmgpu_args_create(kernel, &args) ||
	    vmgpu_args_set_i32(args, 0, N) ||
	    vmgpu_args_set_f32(args, 1, 2.0f) ||
	    vmgpu_args_set_buffer(args, 2, x, 0) ||
	    vmgpu_args_set_buffer(args, 3, y, 0))
		return failed(dev, "arguments");

	/*
	 * 5. A command buffer with one dispatch: N threads, 64 per block.
	 * The typed arguments declare x and y to it.
	 */
	d.kernel = kernel;
	d.typed_args = args;
	d.grid[0] = N / BLOCK;
	d.block[0] = BLOCK;
	if (vmgpu_cmdbuf_create(dev, &cb) || vmgpu_cmdbuf_dispatch(cb, &d) < 0)
		return failed(dev, "command buffer");

	/* 6. Submit it to GPU 0; a syncobj signals when it is done. */
	if (vmgpu_context_create(dev, VMGPU_PRIORITY_NORMAL, &ctx) ||
	    vmgpu_syncobj_create(dev, &done.handle))
		return failed(dev, "context");
	submit.gpu = 0;
	submit.out = &done;
	submit.out_count = 1;
	if (vmgpu_submit(ctx, cb, &submit) < 0)
		return failed(dev, "submit");
	/* The wait returns the packet's error if it failed. */
	ret = vmgpu_syncobj_wait(dev, done.handle, 0, 60000000000ll);
	if (ret) {
		fprintf(stderr, "first: the packet: %s\n", vmgpu_strerror(ret));
		return 1;
	}

	/* 7. Every value, as the CPU computes it: 2 * i + 1, exactly. */
	for (i = 0; i < N; i++)
		bad += yp[i] != 2.0f * (float)i + 1.0f;
	if (bad) {
		fprintf(stderr, "first: %d of %d values wrong\n", bad, N);
		return 1;
	}

	vmgpu_syncobj_destroy(dev, done.handle);
	vmgpu_context_destroy(ctx);
	vmgpu_cmdbuf_destroy(cb);
	vmgpu_args_destroy(args);
	vmgpu_bo_destroy(y);
	vmgpu_bo_destroy(x);
	vmgpu_bo_destroy(kernel);
	vmgpu_device_close(dev);
	printf("OK\n");
	return 0;
}
