/* SPDX-License-Identifier: GPL-2.0 */
/* Loading and unloading gotrace.ko: module.c (libkmod) or module_none.c. */
#ifndef GOTRACE_LOAD_H
#define GOTRACE_LOAD_H

/*
 * Load and unload gotrace.ko: module.c with libkmod, module_none.c in
 * static builds. @path NULL means the module installed for the running kernel;
 * @params is "NAME=VALUE ..." or NULL. EXIT_SUCCESS, or EXIT_FAILURE after
 * a message naming cause and fix.
 */
int module_load(const char *cmd, const char *path, char *const params[], int nparams);
int module_remove(const char *cmd, int wait_ms);

#endif /* GOTRACE_LOAD_H */
