// SPDX-License-Identifier: GPL-2.0
/* /dev/gotrace-annotate, opened for mark, region and snapshot --reason. */
#include <errno.h>
#include <string.h>

#include "gotrace_annotate.h"
#include "util/annotate.h"
#include "util/msg.h"

int annotate_open(const char *cmd)
{
	int fd = gotrace_annotate_open();

	if (fd >= 0)
		return fd;
	if (errno == ENOENT)
		msg_err(cmd, "%s is missing: load the gotrace module (gotrace load)",
			GOTRACE_ANNOTATE_DEV);
	else if (errno == EPERM)
		msg_err(cmd, "%s: permission denied: run as root, or in the group of the "
			"module parameter annotate_gid (gotrace load annotate_gid=GID)",
			GOTRACE_ANNOTATE_DEV);
	else
		msg_err(cmd, "cannot open %s: %s", GOTRACE_ANNOTATE_DEV, strerror(errno));
	return -1;
}
