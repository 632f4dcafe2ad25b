// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace merge: a Go program's own trace (APP) joined with gotrace's
 * recording of the machine over the same time (MACHINE): APP with regions
 * saying what the kernel did to its threads (report/merge.c, lib/join/).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "report/merge.h"
#include "util/msg.h"

static void merge_help(void)
{
	printf("Usage: %s merge [--threads] [--force] APP MACHINE -o OUT\n"
	       "Join a Go program's own execution trace (APP: runtime/trace, go test -trace,\n"
	       "net/http/pprof's /debug/pprof/trace; Go 1.22 or later) with gotrace's\n"
	       "recording of the machine over the same time (MACHINE: gotrace record\n"
	       "--format 1.26 --clock mono, or any format 1.25 or later). OUT is APP with\n"
	       "every event kept, plus a user region on the goroutine a thread was running\n"
	       "whenever the kernel had that thread off its CPU:\n"
	       "  kernel: waiting for a CPU        preempted; a log names what ran instead\n"
	       "  kernel: throttled                runnable while its CPU idled: a CPU quota\n"
	       "  kernel: blocked in REASON        a page fault or other kernel wait\n"
	       "  kernel: syscall blocked in REASON  inside a system call; a log names who\n"
	       "                                   woke the thread\n"
	       "Go's user-defined regions page lists them with their time distributions.\n\n"
	       "With --threads, OUT is MACHINE, whose rows are threads, with a region\n"
	       "\"go: FUNCTION\" on each of APP's threads for every run of a goroutine there\n"
	       "(a log names the goroutine): which Go code ran on which thread, beside\n"
	       "what the kernel did to the thread.\n\n"
	       "  -o, --output OUT  the joined trace (required)\n"
	       "      --threads     write MACHINE with APP's goroutines on its threads\n"
	       "      --force       replace OUT if it exists\n"
	       "  -h, --help        show this help\n", program_invocation_short_name);
}

int cmd_merge(int argc, char *argv[])
{
	enum { OPT_FORCE = 256, OPT_THREADS };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "threads", no_argument, NULL, OPT_THREADS },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct merge_opts o = { 0 };
	int c;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.out = optarg;
			break;
		case OPT_FORCE:
			o.force = true;
			break;
		case OPT_THREADS:
			o.threads = true;
			break;
		case 'h':
			merge_help();
			return EXIT_SUCCESS;
		default:
			return msg_usage("merge");
		}
	}
	if (argc - optind != 2) {
		msg_err("merge", "%s: give the program's trace and gotrace's, APP MACHINE",
			argc - optind < 2 ? "too few traces" : "too many arguments");
		return msg_usage("merge");
	}
	if (!o.out) {
		msg_err("merge", "no output: give -o OUT");
		return msg_usage("merge");
	}
	o.app = argv[optind];
	o.machine = argv[optind + 1];
	return merge_write(&o, stdout);
}
