/* SPDX-License-Identifier: GPL-2.0 */
/* What module.c and module_err.c share: libkmod lookups of gotrace.ko's modinfo. */
#ifndef GOTRACE_MODULE_H
#define GOTRACE_MODULE_H

#include <libkmod.h>

/*
 * The first modinfo value of @key in @mod's file that starts with @prefix
 * (any value if @prefix is NULL), malloc'ed; NULL if there is none.
 */
char *module_info_find(struct kmod_module *mod, const char *key, const char *prefix);

/* Explain why inserting @mod (from @file) failed with errno @err. */
void module_explain_insert(const char *cmd, struct kmod_module *mod, const char *file, int err);
/* Explain why removing the module failed with errno @err. */
void module_explain_remove(const char *cmd, struct kmod_module *mod, int err);

#endif /* GOTRACE_MODULE_H */
