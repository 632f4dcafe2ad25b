/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record --max-size: a Go 1.22+ trace as it streams in, cut into files at
 * generation boundaries (generation_framer.c). The generation being received stays in
 * memory until it is whole (the memory is bounded by a generation, which
 * --gen-period and --gen-size bound, not by the trace); then it joins the
 * current file, or starts the next one if the current one would pass the
 * size. Each file starts with the trace's 16-byte header.
 */
#ifndef GOTRACE_GENERATION_FRAMER_H
#define GOTRACE_GENERATION_FRAMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A finished file. */
struct roll_file {
	unsigned int n;			/* 1, 2, ...: PREFIX.N.trace */
	uint64_t first_gen, gens;	/* its generations: first_gen to first_gen + gens - 1 */
	uint64_t bytes;			/* with the header */
};

/* Where the files go; each returns false after a message, and the rest is dropped. */
struct roll_ops {
	bool (*open)(void *ctx, unsigned int n);
	bool (*write)(void *ctx, const void *buf, size_t len);
	/* Also after a failed write, to drop the file: false then. */
	bool (*close)(void *ctx, const struct roll_file *f);
};

struct roll;

/* Files of @max_size bytes at most (a larger generation goes alone); NULL if out of memory. */
struct roll *roll_new(uint64_t max_size, const struct roll_ops *ops, void *ctx);
/* The next @len bytes of the stream; false once a file could not be written. */
bool roll_feed(struct roll *rl, const void *buf, size_t len);
/* The end of the stream: the rest to the last file, which is closed; false as roll_feed(). */
bool roll_finish(struct roll *rl);
/* Files finished so far. */
unsigned int roll_files(const struct roll *rl);
void roll_free(struct roll *rl);

#endif /* GOTRACE_GENERATION_FRAMER_H */
