// SPDX-License-Identifier: GPL-2.0-only
/*
 * Documentation/runtime.rst's example program (the three requests) runs
 * and computes the right result: here with the CPU device alone, as the
 * host has no render node.
 */
#include "kselftest_harness.h"

#define main runtime_example_main
#include "../../Documentation/examples/runtime.c"
#undef main

TEST(three_request_example)
{
	ASSERT_EQ(0, runtime_example_main());
}

TEST_HARNESS_MAIN
