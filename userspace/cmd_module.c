// SPDX-License-Identifier: GPL-2.0
/* gotrace load and gotrace unload: the module, with a running trace in mind. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "kmod/load.h"
#include "session.h"
#include "util/device.h"
#include "util/msg.h"
#include "util/parse.h"

/* How long unload --force waits for readers to take the rest of the trace. */
#define FORCE_WAIT_MS 10000

static void load_help(void)
{
	printf("Usage: %s load [--path FILE] [PARAM=VALUE...]\n"
	       "       %s load --update\n"
	       "Load gotrace.ko: the one installed for the running kernel (as modprobe,\n"
	       "with its options from /etc/modprobe.d), or FILE (as insmod).\n"
	       "Parameters: buffer_size=BYTES (per CPU), max_tid=N (see gotrace(4)).\n\n"
	       "  -p, --path FILE  load this module file\n"
	       "  -u, --update     load the installed module; if one is loaded already and\n"
	       "                   it is another build (DKMS rebuilt it), replace it unless\n"
	       "                   it is in use (gotrace-flight.service does this first)\n"
	       "  -h, --help       show this help\n\n"
	       "Exit status: 0 when the module is loaded and %s exists; 1 otherwise,\n"
	       "also when it was loaded already (not with --update).\n",
	       program_invocation_short_name, program_invocation_short_name, GOTRACE_DEVICE);
}

/* load --update: no trace runs or waits to be read, which replacing the module would end. */
static bool session_idle(void)
{
	struct gotrace_status st;
	int fd = open(GOTRACE_DEVICE, O_WRONLY | O_CLOEXEC);
	bool idle;

	if (fd < 0)	/* no device or no permission: removal says why */
		return true;
	idle = session_status("load", fd, &st) && st.state == GOTRACE_STATE_IDLE;
	close(fd);
	return idle;
}

int cmd_load(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "path", required_argument, NULL, 'p' },
		{ "update", no_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *path = NULL;
	bool update = false;
	int c, i;

	while ((c = getopt_long(argc, argv, "p:uh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			path = optarg;
			break;
		case 'u':
			update = true;
			break;
		case 'h':
			load_help();
			return EXIT_SUCCESS;
		default:
			return msg_usage("load");
		}
	}
	if (update && (path || optind < argc)) {
		msg_err("load", "--update loads the installed module, with the options of "
			"/etc/modprobe.d: drop %s", path ? "--path" : "the parameters");
		return EXIT_FAILURE;
	}
	if (update)
		return module_update("load", device_module_loaded() && session_idle());
	for (i = optind; i < argc; i++)
		if (!parse_param("load", argv[i]))
			return msg_usage("load");
	return module_load("load", path, argv + optind, argc - optind);
}

static void unload_help(void)
{
	printf("Usage: %s unload [--force]\n"
	       "Unload gotrace.ko. It refuses while a trace is running or a stopped trace\n"
	       "has not been read to the end, and while a program has %s open.\n\n"
	       "  -f, --force  stop a running trace (discarding what no reader takes), wait\n"
	       "               up to %d s for readers to finish, then unload\n"
	       "  -h, --help   show this help\n\n"
	       "Exit status: 0 when the module is unloaded; 1 otherwise.\n",
	       program_invocation_short_name, GOTRACE_DEVICE, FORCE_WAIT_MS / 1000);
}

/* Refuse, or with @force stop, a session that unloading would throw away. */
static bool session_released(bool force)
{
	struct gotrace_status st;
	int fd = open(GOTRACE_DEVICE, O_WRONLY | O_CLOEXEC);
	bool ok = true;

	if (fd < 0)	/* no device or no permission: removal says why */
		return true;
	if (!session_status("unload", fd, &st)) {
		ok = false;
	} else if (st.state == GOTRACE_STATE_TRACING && !force) {
		msg_err("unload", "a trace is running (%" PRIu64 " events so far): stop it first "
			"(gotrace stop), or stop it and unload: gotrace unload --force",
			(uint64_t)st.events);
		ok = false;
	} else if (st.state == GOTRACE_STATE_TRACING) {
		ok = session_stop("unload", fd, GOTRACE_STOP_NOWAIT, true);
	} else if (st.state == GOTRACE_STATE_STOPPED && !force) {
		msg_err("unload", "a stopped trace has not been read to the end (%" PRIu64
			" bytes left): read it (cat %s > FILE), or discard it: gotrace unload --force",
			(uint64_t)(st.bytes - st.bytes_read), GOTRACE_DEVICE);
		ok = false;
	}
	close(fd);
	return ok;
}

int cmd_unload(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	bool force = false;
	int c;

	while ((c = getopt_long(argc, argv, "fh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			force = true;
			break;
		case 'h':
			unload_help();
			return EXIT_SUCCESS;
		default:
			return msg_usage("unload");
		}
	}
	if (!msg_no_args("unload", argc, argv))
		return EXIT_FAILURE;
	if (!device_module_loaded()) {
		msg_err("unload", "%s is not loaded", GOTRACE_MODULE);
		return EXIT_FAILURE;
	}
	if (!session_released(force))
		return EXIT_FAILURE;
	return module_remove("unload", force ? FORCE_WAIT_MS : 0);
}
