// SPDX-License-Identifier: GPL-2.0
/*
 * record --max-size's framer (generation_framer.c) on a trace file fed in reads of CHUNK
 * bytes, as record feeds it what it reads from /dev/gotrace: the files go to
 * PREFIX.1.trace, PREFIX.2.trace, ..., and a line per file says
 * "PATH FIRST_GEN GENS BYTES".
 *
 * Usage: roll_feed TRACE MAX_SIZE CHUNK PREFIX
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/generation_framer.h"

struct files {
	const char *prefix;
	char path[4096];
	int fd;
};

static bool f_open(void *ctx, unsigned int n)
{
	struct files *f = ctx;

	snprintf(f->path, sizeof(f->path), "%s.%u.trace", f->prefix, n);
	f->fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (f->fd < 0)
		fprintf(stderr, "roll_feed: %s: %s\n", f->path, strerror(errno));
	return f->fd >= 0;
}

static bool f_write(void *ctx, const void *buf, size_t len)
{
	struct files *f = ctx;

	return write(f->fd, buf, len) == (ssize_t)len;
}

static bool f_close(void *ctx, const struct roll_file *rf)
{
	struct files *f = ctx;

	printf("%s %llu %llu %llu\n", f->path, (unsigned long long)rf->first_gen,
	       (unsigned long long)rf->gens, (unsigned long long)rf->bytes);
	return !close(f->fd);
}

int main(int argc, char *argv[])
{
	static const struct roll_ops ops = { f_open, f_write, f_close };
	struct files f = { .fd = -1 };
	struct roll *rl;
	size_t chunk;
	char *buf;
	ssize_t n;
	int fd;
	bool ok = true;

	if (argc != 5) {
		fprintf(stderr, "usage: %s TRACE MAX_SIZE CHUNK PREFIX\n", argv[0]);
		return EXIT_FAILURE;
	}
	f.prefix = argv[4];
	chunk = strtoul(argv[3], NULL, 0);
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	buf = malloc(chunk ? chunk : 1);
	rl = roll_new(strtoull(argv[2], NULL, 0), &ops, &f);
	if (fd < 0 || !buf || !rl || !chunk) {
		fprintf(stderr, "roll_feed: cannot read %s\n", argv[1]);
		return EXIT_FAILURE;
	}
	while (ok && (n = read(fd, buf, chunk)) > 0)
		ok = roll_feed(rl, buf, (size_t)n);
	ok = roll_finish(rl) && ok && n == 0;
	fprintf(stderr, "roll_feed: %u files\n", roll_files(rl));
	roll_free(rl);
	free(buf);
	close(fd);
	return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
