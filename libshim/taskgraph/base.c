// SPDX-License-Identifier: MIT
/*
 * libvmgpu task graphs: the base every other file of the subsystem calls
 * and that calls none of them — a graph's error message, and the hash
 * that names passes and shapes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tg_internal.h"
#include "vmgpu/graph.h"

int tg_error(struct vmgpu_graph *g, int err, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&g->err_lock);
	va_start(ap, fmt);
	vsnprintf(g->err_msg, sizeof(g->err_msg), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&g->err_lock);
	return err;
}

size_t vmgpu_graph_error_message(struct vmgpu_graph *g, char *buf, size_t len)
{
	size_t n;

	if (!buf || !len)
		return 0;
	if (!g) {
		snprintf(buf, len, "no graph handle");
		return strlen(buf);
	}
	pthread_mutex_lock(&g->err_lock);
	snprintf(buf, len, "%s", g->err_msg);
	n = strlen(g->err_msg);
	pthread_mutex_unlock(&g->err_lock);
	return n;
}

uint32_t tg_hash(const void *data, size_t n)
{
	const uint8_t *p = data;
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ *p++) * 16777619u;
	return h;
}
