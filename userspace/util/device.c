// SPDX-License-Identifier: GPL-2.0
/* Opening /dev/gotrace for its ioctls, with the usual failures explained. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/device.h"
#include "util/msg.h"

/* Why opening the device failed, with the fix. */
static void open_failed(const char *cmd, int err)
{
	switch (err) {
	case ENOENT:
		msg_err(cmd, "%s missing: load the module: gotrace load (or insmod gotrace.ko)",
			GOTRACE_DEVICE);
		break;
	case EACCES:
	case EPERM:
		msg_err(cmd, "no permission to open %s: run as root", GOTRACE_DEVICE);
		break;
	case ENXIO:
	case ENODEV:
		msg_err(cmd, "%s exists but no driver serves it: load the module: gotrace load",
			GOTRACE_DEVICE);
		break;
	default:
		msg_err(cmd, "cannot open %s: %s", GOTRACE_DEVICE, strerror(err));
		break;
	}
}

/*
 * Write-only: reading is exclusive to the one reader of the trace, and the
 * ioctls need no read access. Returns the descriptor, or -1 after a message.
 */
int device_open(const char *cmd)
{
	int fd = open(GOTRACE_DEVICE, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		open_failed(cmd, errno);
	return fd;
}

int device_open_reader(const char *cmd, int flags)
{
	int fd = open(GOTRACE_DEVICE, O_RDONLY | O_CLOEXEC | flags), err = errno;

	if (fd < 0 && err != EBUSY)
		open_failed(cmd, err);
	errno = err;
	return fd;
}

void device_explain(const char *cmd, int err)
{
	switch (err) {
	case EPERM:
	case EACCES:
		msg_err(cmd, "needs CAP_SYS_ADMIN or CAP_PERFMON; run as root");
		break;
	case ENOTTY:
	case E2BIG:
		msg_err(cmd, "the loaded gotrace module does not understand this request: "
			"load the module built with this gotrace (%s)", GOTRACE_VERSION);
		break;
	default:
		msg_err(cmd, "%s: %s", GOTRACE_DEVICE, strerror(err));
		break;
	}
}

bool device_module_loaded(void)
{
	return access("/sys/module/" GOTRACE_MODULE, F_OK) == 0;
}

bool device_wait(int ms)
{
	const struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };

	for (; ms > 0; ms -= 10) {
		if (access(GOTRACE_DEVICE, F_OK) == 0)
			return true;
		nanosleep(&tick, NULL);
	}
	return access(GOTRACE_DEVICE, F_OK) == 0;
}
