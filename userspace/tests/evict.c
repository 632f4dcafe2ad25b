// SPDX-License-Identifier: GPL-2.0
/* Drops each file's pages from the page cache (POSIX_FADV_DONTNEED): read from disk next. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int evict(const char *path)
{
	int fd = open(path, O_RDONLY), e;

	if (fd < 0) {
		fprintf(stderr, "evict: %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* Dirty pages, and pages under writeback, would stay: written first. */
	e = fdatasync(fd) ? errno : posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (e)
		fprintf(stderr, "evict: %s: %s\n", path, strerror(e));
	return e ? -1 : 0;
}

int main(int argc, char *argv[])
{
	int i, status = EXIT_SUCCESS;

	for (i = 1; i < argc; i++)
		if (evict(argv[i]))
			status = EXIT_FAILURE;
	return status;
}
