// SPDX-License-Identifier: GPL-2.0
/* Static builds have no libkmod (Debian ships no libkmod.a): load and unload say so. */
#include <stdlib.h>

#include "kmod/load.h"
#include "util/device.h"
#include "util/msg.h"

int module_load(const char *cmd, const char *path, char *const params[], int nparams)
{
	(void)params;
	(void)nparams;
	msg_err(cmd, "this gotrace is a static build without libkmod and cannot load modules: "
		"load it with: insmod %s, or use the gotrace built by make", path ? path : "gotrace.ko");
	return EXIT_FAILURE;
}

int module_update(const char *cmd, bool idle)
{
	(void)idle;
	return module_load(cmd, NULL, NULL, 0);
}

int module_remove(const char *cmd, int wait_ms)
{
	(void)wait_ms;
	msg_err(cmd, "this gotrace is a static build without libkmod and cannot unload modules: "
		"unload it with: rmmod %s, or use the gotrace built by make", GOTRACE_MODULE);
	return EXIT_FAILURE;
}
