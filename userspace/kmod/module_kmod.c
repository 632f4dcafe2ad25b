// SPDX-License-Identifier: GPL-2.0
/* libkmod, opened at run time: only the commands that load or unload map it. */
#include <dlfcn.h>
#include <stdbool.h>

#include "kmod/module.h"
#include "util/msg.h"

struct kmod_funcs kmod;

/* Every function of KMOD_FUNCS from @lib; false at the first missing one (dlerror() names it). */
static bool bind_funcs(void *lib)
{
	bool ok = true;

#define KMOD_BIND(name) \
	ok = ok && (kmod.name = (typeof(kmod.name))dlsym(lib, "kmod_" #name));
	KMOD_FUNCS(KMOD_BIND)
#undef KMOD_BIND
	return ok;
}

bool module_kmod_open(const char *cmd, const char *fix)
{
	void *lib = dlopen(KMOD_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (lib && bind_funcs(lib))
		return true;
	msg_err(cmd, "cannot open " KMOD_SONAME ": %s: install libkmod2, or %s", dlerror(), fix);
	return false;
}
