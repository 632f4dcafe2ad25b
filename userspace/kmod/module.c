// SPDX-License-Identifier: GPL-2.0
/* Loading and unloading gotrace.ko through libkmod, as insmod, modprobe and rmmod do. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <syslog.h>
#include <time.h>

#include "kmod/build_id.h"
#include "kmod/load.h"
#include "kmod/module.h"
#include "util/device.h"
#include "util/msg.h"

/* libkmod's own errors, with our prefix; its debug and info messages are dropped. */
static void kmod_log(void *data, int priority, const char *file, int line, const char *fn,
		     const char *format, va_list args)
{
	(void)priority;
	(void)file;
	(void)line;
	(void)fn;
	fprintf(stderr, "%s %s: libkmod: ", program_invocation_short_name, (const char *)data);
	vfprintf(stderr, format, args);
}

/* A libkmod context, or NULL after a message; @fix: how to do without libkmod. */
static struct kmod_ctx *ctx_new(const char *cmd, const char *fix)
{
	struct kmod_ctx *ctx;

	if (!module_kmod_open(cmd, fix))
		return NULL;
	errno = 0;	/* dlopen() may have left one set */
	ctx = kmod.new(NULL, NULL);
	if (!ctx) {
		msg_err(cmd, "cannot set up libkmod: %s", strerror(errno ? errno : ENOMEM));
		return NULL;
	}
	kmod.set_log_fn(ctx, kmod_log, (void *)cmd);
	return ctx;
}

char *module_info_find(struct kmod_module *mod, const char *key, const char *prefix)
{
	struct kmod_list *info = NULL, *l;
	char *found = NULL;

	if (kmod.module_get_info(mod, &info) < 0)
		return NULL;
	for (l = info; l; l = kmod.list_next(info, l)) {
		const char *value = kmod.module_info_get_value(l);

		if (strcmp(kmod.module_info_get_key(l), key) || !value)
			continue;
		if (!prefix || !strncmp(value, prefix, strlen(prefix))) {
			found = strdup(value);
			break;
		}
	}
	kmod.module_info_free_list(info);
	return found;
}

/*
 * The module installed for the running kernel (modules.dep), or NULL: after a
 * message if @report.
 */
static struct kmod_module *find_installed(const char *cmd, struct kmod_ctx *ctx, bool report)
{
	struct kmod_list *list = NULL;
	struct kmod_module *mod = NULL;
	struct utsname u;
	int r;

	r = kmod.module_new_from_lookup(ctx, GOTRACE_MODULE, &list);
	if (r < 0) {
		if (report)
			msg_err(cmd, "cannot look up %s: %s", GOTRACE_MODULE, strerror(-r));
		return NULL;
	}
	if (list)
		mod = kmod.module_get_module(list);
	kmod.module_unref_list(list);
	if (mod && kmod.module_get_path(mod))
		return mod;
	kmod.module_unref(mod);
	if (!report)
		return NULL;
	uname(&u);
	msg_err(cmd, "%s.ko is not installed for Linux %s (nothing in /lib/modules/%s): "
		"install it (sudo make install, or sudo make dkms-install), "
		"or give the file: gotrace load --path gotrace.ko", GOTRACE_MODULE, u.release,
		u.release);
	return NULL;
}

static struct kmod_module *find_file(const char *cmd, struct kmod_ctx *ctx, const char *path)
{
	struct kmod_module *mod;
	int r = kmod.module_new_from_path(ctx, path, &mod);

	if (!r)
		return mod;
	if (r == -ENOENT)
		msg_err(cmd, "no module file %s: check the path (make module builds ./gotrace.ko)",
			path);
	else
		msg_err(cmd, "cannot use %s as a module: %s", path, strerror(-r));
	return NULL;
}

/*
 * The kernel ignores unknown parameters with a line in dmesg; reject them
 * here, naming the ones the module's file declares.
 */
static bool check_params(const char *cmd, struct kmod_module *mod, char *const params[], int n)
{
	char prefix[128], *parm;
	int i;

	for (i = 0; i < n; i++) {
		size_t len = strcspn(params[i], "=");

		snprintf(prefix, sizeof(prefix), "%.*s:", (int)len, params[i]);
		parm = module_info_find(mod, "parm", prefix);
		if (parm) {
			free(parm);
			continue;
		}
		msg_err(cmd, "%s.ko has no parameter '%.*s': see its parameters with: modinfo -p %s",
			GOTRACE_MODULE, (int)len, params[i], kmod.module_get_path(mod));
		return false;
	}
	return true;
}

/* "NAME=VALUE NAME=VALUE", as init_module() takes them; NULL without memory. */
static char *join_params(char *const params[], int n)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < n; i++)
		len += strlen(params[i]) + 1;
	s = calloc(1, len);
	for (i = 0; s && i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, params[i]);
	}
	return s;
}

static int insert(const char *cmd, struct kmod_module *mod, bool from_path, char *const params[],
		  int n)
{
	char *opts = join_params(params, n);
	int r;

	if (!opts) {
		msg_err(cmd, "out of memory");
		return EXIT_FAILURE;
	}
	if (from_path)
		r = kmod.module_insert_module(mod, 0, opts);
	else	/* as modprobe: options from /etc/modprobe.d come first */
		r = kmod.module_probe_insert_module(mod, KMOD_PROBE_FAIL_ON_LOADED, opts, NULL,
						    NULL, NULL);
	free(opts);
	if (r < 0) {
		module_explain_insert(cmd, mod, kmod.module_get_path(mod), -r);
		return EXIT_FAILURE;
	}
	if (!device_wait(2000)) {
		msg_err(cmd, "%s.ko is loaded but %s did not appear: is devtmpfs mounted on /dev?",
			GOTRACE_MODULE, GOTRACE_DEVICE);
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

int module_load(const char *cmd, const char *path, char *const params[], int nparams)
{
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	int ret = EXIT_FAILURE;

	if (device_module_loaded()) {
		msg_err(cmd, "%s is already loaded: to load another build or other parameters, "
			"unload it first: gotrace unload", GOTRACE_MODULE);
		return EXIT_FAILURE;
	}
	ctx = ctx_new(cmd, "load the module with: insmod gotrace.ko");
	if (!ctx)
		return EXIT_FAILURE;
	mod = path ? find_file(cmd, ctx, path) : find_installed(cmd, ctx, true);
	if (mod && check_params(cmd, mod, params, nparams))
		ret = insert(cmd, mod, path != NULL, params, nparams);
	kmod.module_unref(mod);
	kmod.unref(ctx);
	return ret;
}

/*
 * The loaded module is not the installed build (@inst, at @path): unload it and
 * load @inst, unless it is in use (@idle false: a trace runs or waits to be read).
 */
static int replace(const char *cmd, struct kmod_ctx *ctx, struct kmod_module *inst,
		   const char *path, const char *was, const char *now, bool idle)
{
	struct kmod_module *cur = NULL;
	int r = -EBUSY;

	if (idle && kmod.module_new_from_name(ctx, GOTRACE_MODULE, &cur) >= 0)
		r = kmod.module_remove_module(cur, 0);
	kmod.module_unref(cur);
	if (r < 0) {
		msg_err(cmd, "the loaded %s.ko (build %s) is not the installed %s (build %s), "
			"but %s: keeping the loaded one; run gotrace load --update once it is free",
			GOTRACE_MODULE, was, path, now,
			!idle ? "a trace is running or waits to be read" :
			r == -EAGAIN || r == -EBUSY ? "a program has it open" : strerror(-r));
		return EXIT_SUCCESS;
	}
	if (insert(cmd, inst, false, NULL, 0) != EXIT_SUCCESS)
		return EXIT_FAILURE;
	msg_err(cmd, "replaced the loaded %s.ko (build %s) by the installed %s (build %s)",
		GOTRACE_MODULE, was, path, now);
	return EXIT_SUCCESS;
}

int module_update(const char *cmd, bool idle)
{
	unsigned char loaded[BUILD_ID_NOTE_MAX] = { 0 }, installed[BUILD_ID_NOTE_MAX] = { 0 };
	char was[13], now[13];
	struct kmod_module *inst;
	struct kmod_ctx *ctx;
	size_t nl, ni;
	const char *path;
	int ret = EXIT_SUCCESS;

	if (!device_module_loaded())
		return module_load(cmd, NULL, NULL, 0);
	ctx = ctx_new(cmd, "load it with: modprobe " GOTRACE_MODULE);
	if (!ctx)
		return EXIT_FAILURE;
	kmod.set_log_priority(ctx, LOG_CRIT);	/* each failure is explained */
	/* None installed (loaded from a file): nothing to update it to, as modprobe. */
	inst = find_installed(cmd, ctx, false);
	if (!inst)
		goto out;
	path = kmod.module_get_path(inst);
	nl = build_id_of_loaded(GOTRACE_MODULE, loaded);
	ni = build_id_of_file(path, installed);
	build_id_hex(loaded, nl, was);
	build_id_hex(installed, ni, now);
	if (!nl || !ni)
		msg_err(cmd, "cannot tell whether the loaded %s.ko is the installed %s: %s has no "
			"build id to read; keeping the loaded one", GOTRACE_MODULE, path,
			!nl ? "the loaded module" : "the file (compressed?)");
	else if (nl != ni || memcmp(loaded, installed, nl))
		ret = replace(cmd, ctx, inst, path, was, now, idle);
	kmod.module_unref(inst);
out:
	kmod.unref(ctx);
	return ret;
}

/* Retry while the module is busy, for up to @wait_ms (a reader finishing its trace). */
static int remove_waiting(struct kmod_module *mod, int wait_ms)
{
	const struct timespec tick = { .tv_nsec = 100 * 1000 * 1000 };
	int r;

	for (;;) {
		r = kmod.module_remove_module(mod, 0);
		if ((r != -EAGAIN && r != -EBUSY) || wait_ms <= 0)
			return r;
		nanosleep(&tick, NULL);
		wait_ms -= 100;
	}
}

int module_remove(const char *cmd, int wait_ms)
{
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	int r, ret = EXIT_FAILURE;

	ctx = ctx_new(cmd, "unload it with: rmmod " GOTRACE_MODULE);
	if (!ctx)
		return EXIT_FAILURE;
	kmod.set_log_priority(ctx, LOG_CRIT);	/* each failure is explained below */
	r = kmod.module_new_from_name(ctx, GOTRACE_MODULE, &mod);
	if (r < 0) {
		msg_err(cmd, "cannot look up %s: %s", GOTRACE_MODULE, strerror(-r));
		goto out;
	}
	r = remove_waiting(mod, wait_ms);
	if (r < 0)
		module_explain_remove(cmd, mod, -r);
	else
		ret = EXIT_SUCCESS;
	kmod.module_unref(mod);
out:
	kmod.unref(ctx);
	return ret;
}
