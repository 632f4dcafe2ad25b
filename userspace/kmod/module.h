/* SPDX-License-Identifier: GPL-2.0 */
/* What module.c, module_err.c and module_kmod.c share: libkmod, opened at run time. */
#ifndef GOTRACE_MODULE_H
#define GOTRACE_MODULE_H

#include <stdbool.h>
#include <libkmod.h>

#define KMOD_SONAME "libkmod.so.2"

/*
 * The libkmod functions gotrace calls, without their kmod_ prefix. gotrace is
 * not linked with libkmod, which would map it, libcrypto, libzstd and liblzma
 * into every command: module_kmod_open() dlopen()s it in load and unload only.
 * Each pointer has the type of libkmod.h's prototype.
 */
#define KMOD_FUNCS(X) \
	X(new) X(unref) X(set_log_fn) X(set_log_priority) X(list_next) \
	X(module_new_from_lookup) X(module_new_from_path) X(module_new_from_name) \
	X(module_get_module) X(module_get_path) X(module_get_refcnt) X(module_get_info) \
	X(module_info_get_key) X(module_info_get_value) X(module_info_free_list) \
	X(module_insert_module) X(module_probe_insert_module) X(module_remove_module) \
	X(module_unref) X(module_unref_list)

#define KMOD_FUNC_PTR(name) typeof(&kmod_##name) name;
struct kmod_funcs {
	KMOD_FUNCS(KMOD_FUNC_PTR)
};
#undef KMOD_FUNC_PTR

/* libkmod's functions once module_kmod_open() succeeded: kmod.new() is kmod_new(). */
extern struct kmod_funcs kmod;

/*
 * Open libkmod.so.2 and fill kmod; false after a message naming what is
 * missing, with the fix: install libkmod2, or @fix (a command without gotrace).
 */
bool module_kmod_open(const char *cmd, const char *fix);

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
