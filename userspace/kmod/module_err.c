// SPDX-License-Identifier: GPL-2.0
/* Why the kernel refused to load or unload gotrace.ko, and what to do about it. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kmod/module.h"
#include "util/device.h"
#include "util/msg.h"

#define LOCKDOWN_FILE "/sys/kernel/security/lockdown"
#define SECUREBOOT_VAR "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d0-aae4-0e13d9b5ab3e"
#define SIGNING_FIX "sign it with a key the kernel trusts: install it with DKMS " \
	"(sudo make dkms-install), which signs it with its MOK key, then enroll that key once: " \
	"sudo mokutil --import /var/lib/dkms/mok.pub and reboot (README: Secure Boot)"

/* The first bytes of a small file, NUL-terminated; 0 if it cannot be read. */
static size_t read_small(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	return n;
}

/* "none [integrity] confidentiality": anything but [none] restricts modules. */
static bool locked_down(void)
{
	char buf[128];

	return read_small(LOCKDOWN_FILE, buf, sizeof(buf)) && !strstr(buf, "[none]");
}

/* The EFI variable: 4 bytes of attributes, then 1 when Secure Boot is on. */
static bool secure_boot(void)
{
	char buf[8];

	return read_small(SECUREBOOT_VAR, buf, sizeof(buf)) >= 5 && buf[4] == 1;
}

static bool modules_disabled(void)
{
	char buf[8];

	return read_small("/proc/sys/kernel/modules_disabled", buf, sizeof(buf)) && buf[0] == '1';
}

static void explain_eperm(const char *cmd, const char *file)
{
	if (geteuid() != 0)
		msg_err(cmd, "loading a module needs root (CAP_SYS_MODULE): run: sudo gotrace load");
	else if (modules_disabled())
		msg_err(cmd, "module loading is disabled until the next boot "
			"(/proc/sys/kernel/modules_disabled is 1)");
	else if (locked_down() || secure_boot())
		msg_err(cmd, "the kernel is locked down%s and refuses %s, which is not signed "
			"with a trusted key: %s", secure_boot() ? " (Secure Boot)" : "", file,
			SIGNING_FIX);
	else
		msg_err(cmd, "the kernel refused to load %s (EPERM): a security module "
			"(lockdown, LoadPin, SELinux) may forbid loading modules; dmesg says which",
			file);
}

/* "6.1.0-56-amd64 SMP preempt mod_unload modversions": the release is the first word. */
static void explain_enoexec(const char *cmd, struct kmod_module *mod, const char *file)
{
	char *magic = module_info_find(mod, "vermagic", NULL);
	struct utsname u;
	size_t len;

	uname(&u);
	if (!magic) {
		msg_err(cmd, "%s is not a kernel module for this machine (no vermagic): "
			"build gotrace.ko for Linux %s with: make module", file, u.release);
		return;
	}
	len = strcspn(magic, " ");
	if (len != strlen(u.release) || strncmp(magic, u.release, len))
		msg_err(cmd, "%s was built for Linux %.*s, but this is Linux %s: build it for "
			"this kernel (make module, with linux-headers-%s installed), or install it "
			"with DKMS, which builds it for every kernel", file, (int)len, magic,
			u.release, u.release);
	else
		msg_err(cmd, "%s was built for Linux %s but not for this build of it "
			"(vermagic '%s'; configuration or symbol versions differ): rebuild it "
			"against this kernel's own headers; dmesg says what differs", file,
			u.release, magic);
	free(magic);
}

void module_explain_insert(const char *cmd, struct kmod_module *mod, const char *file, int err)
{
	switch (err) {
	case EPERM:
		explain_eperm(cmd, file);
		break;
	case EKEYREJECTED:
	case ENOKEY:
		msg_err(cmd, "the kernel rejected the signature of %s (Secure Boot or "
			"module.sig_enforce: only signed modules load): %s", file, SIGNING_FIX);
		break;
	case ENOEXEC:
		explain_enoexec(cmd, mod, file);
		break;
	case EEXIST:
		msg_err(cmd, "%s is already loaded: to load another build or other parameters, "
			"unload it first: gotrace unload", GOTRACE_MODULE);
		break;
	case EINVAL:
		msg_err(cmd, "%s rejected its parameters: check the PARAM=VALUE arguments "
			"(modinfo -p %s lists them); dmesg says which one", file, file);
		break;
	case ENOENT:
		msg_err(cmd, "%s needs kernel symbols this kernel lacks (built for another "
			"configuration): rebuild it against this kernel's headers; dmesg names them",
			file);
		break;
	default:
		msg_err(cmd, "cannot load %s: %s; dmesg may say more", file, strerror(err));
		break;
	}
}

void module_explain_remove(const char *cmd, struct kmod_module *mod, int err)
{
	switch (err) {
	case ENOENT:
		msg_err(cmd, "%s is not loaded", GOTRACE_MODULE);
		break;
	case EPERM:
		msg_err(cmd, "unloading a module needs root (CAP_SYS_MODULE): run: sudo gotrace unload");
		break;
	case EAGAIN:
	case EBUSY:
		msg_err(cmd, "%s is in use: %d open file(s) of %s (gotrace record, cat %s, the "
			"gotrace-flight service, ...); end those programs first (fuser -v %s "
			"names them; systemctl stop gotrace-flight)", GOTRACE_MODULE,
			kmod.module_get_refcnt(mod), GOTRACE_DEVICE, GOTRACE_DEVICE,
			GOTRACE_DEVICE);
		break;
	default:
		msg_err(cmd, "cannot unload %s: %s", GOTRACE_MODULE, strerror(err));
		break;
	}
}
