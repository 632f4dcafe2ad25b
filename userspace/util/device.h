/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/gotrace for ioctls, and whether the module is loaded (device.c). */
#ifndef GOTRACE_DEVICE_H
#define GOTRACE_DEVICE_H

#include <stdbool.h>

#define GOTRACE_DEVICE "/dev/gotrace"
#define GOTRACE_MODULE "gotrace"

/* A write-only open of the device (see the uapi header). */
int device_open(const char *cmd);
/*
 * The reader's open, O_RDONLY and @flags (O_NONBLOCK or 0): the descriptor,
 * or -1 with errno set, after a message unless another program reads it
 * (EBUSY), which the caller explains.
 */
int device_open_reader(const char *cmd, int flags);
/* Explains an ioctl failure that no subcommand handles itself. */
void device_explain(const char *cmd, int err);
/* Is gotrace.ko loaded (/sys/module/gotrace)? */
bool device_module_loaded(void);
/* Waits up to @ms for /dev/gotrace after a load (udev may create it late). */
bool device_wait(int ms);

#endif /* GOTRACE_DEVICE_H */
