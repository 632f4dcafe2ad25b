/* SPDX-License-Identifier: GPL-2.0 */
/* gen_trace: large valid synthetic traces for benchmarks, in two formats. */
#ifndef GOTRACE_GEN_TRACE_H
#define GOTRACE_GEN_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gen_opts {
	FILE *out;
	size_t target;		/* bytes to write, about */
	size_t gen_bytes;	/* Go 1.26: bytes per generation, about */
	int minor;		/* Go 1.25 or 1.26: its header; 1.25 has no EndOfGeneration */
	unsigned int nprocs;
	uint64_t ngs;
	unsigned int end_pct;	/* go 1.19: % of stops that end the goroutine */
};

/* xorshift64: a pseudo-random number below @n. */
static inline uint64_t gen_rnd(uint64_t *x, uint64_t n)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x % n;
}

/* gen_tracev2.c: a Go 1.26 (or 1.25) trace. */
void gen_tracev2(const struct gen_opts *o);

#endif /* GOTRACE_GEN_TRACE_H */
