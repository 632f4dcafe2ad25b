// SPDX-License-Identifier: GPL-2.0
/* Mapping a trace file read-only, the first step of both formats' readers. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

int gt_map_file(const char *path, const void **data, size_t *size, int *fdp,
		struct gt_error *err)
{
	void *map = NULL;
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		gt_fail(err, GT_OK, 0, "cannot open: %s", strerror(errno));
		goto close_fd;
	}
	if (!S_ISREG(st.st_mode)) {
		gt_fail(err, GT_OK, 0, "not a regular file: save the trace to a file first");
		goto close_fd;
	}
	if (st.st_size) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			gt_fail(err, GT_OK, 0, "cannot map: %s", strerror(errno));
			goto close_fd;
		}
		madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	}
	if (fdp)
		*fdp = fd;
	else
		close(fd);
	*data = map;
	*size = (size_t)st.st_size;
	return 0;
close_fd:
	if (fd >= 0)
		close(fd);
	return -1;
}
