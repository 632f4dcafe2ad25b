/* SPDX-License-Identifier: GPL-2.0 */
/* libgtrace internals both formats' readers use: versions, errors, the mapped file, maps. */
#ifndef GTRACE_COMMON_H
#define GTRACE_COMMON_H

#include <stdarg.h>

#include "gtrace.h"
#include "common/idset.h"
#include "common/map.h"
#include "common/table.h"

/* The first (highest) version whose parser rules apply, as Go writes it. */
#define GT_VER(minor)	(1000 + (minor))

/* fail.c: fills @err with @phase, @off and the message. */
void gt_fail(struct gt_error *err, enum gt_phase phase, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * map_file.c: maps @path (*data NULL for an empty file); -1 with @err set. With
 * @fd, the file stays open there.
 */
int gt_map_file(const char *path, const void **data, size_t *size, int *fd,
		struct gt_error *err);

#endif
