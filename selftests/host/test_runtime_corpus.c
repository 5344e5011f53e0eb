// SPDX-License-Identifier: GPL-2.0-only
/*
 * The compiler's test corpus through the runtime (testcorpus.h) on a GPU
 * of the host tests' device model (testrt.h) and on the CPU device:
 * identical results, split ones included.
 */
#include "kselftest_harness.h"

#include "testcorpus.h"
#include "testrt.h"

TEST(corpus_identical_on_cpu_and_gpu)
{
	struct trt *t = trt_new(1, 4, 128);
	struct vmgpu_rt_backend be = trt_backend(t);

	corpus_check(_metadata, &be, 777);
	trt_free(t);
}

TEST_HARNESS_MAIN
