/* SPDX-License-Identifier: GPL-2.0 */
/* Loading and unloading gotrace.ko: module.c (libkmod) or module_none.c. */
#ifndef GOTRACE_LOAD_H
#define GOTRACE_LOAD_H

#include <stdbool.h>

/*
 * Load and unload gotrace.ko: module.c with libkmod, module_none.c in
 * static builds. @path NULL means the module installed for the running kernel;
 * @params is "NAME=VALUE ..." or NULL. EXIT_SUCCESS, or EXIT_FAILURE after
 * a message naming cause and fix.
 */
int module_load(const char *cmd, const char *path, char *const params[], int nparams);
int module_remove(const char *cmd, int wait_ms);
/*
 * Load the installed module, or replace a loaded one that is another build
 * (DKMS rebuilt it) when @idle (no trace running or waiting to be read) and
 * no program holds it; a loaded one that is kept is EXIT_SUCCESS, with a
 * message saying why.
 */
int module_update(const char *cmd, bool idle);

#endif /* GOTRACE_LOAD_H */
