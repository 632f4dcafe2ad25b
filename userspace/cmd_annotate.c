// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace mark and gotrace region: user annotations of the trace being
 * recorded, from the shell, through /dev/gotrace-annotate.
 *
 * A region belongs to a thread, and CMD's threads are not gotrace's: region
 * NAME -- CMD begins a task NAME before it starts CMD and ends it once CMD
 * exits, so the task spans CMD; a region NAME of the task spans the same
 * time on gotrace's thread, which waits for CMD; and CMD's first thread logs
 * "exec: CMD" in the task just before its exec, which ties it to the task.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "gotrace_annotate.h"
#include "util/annotate.h"
#include "util/msg.h"

/* Why an annotation failed, @what naming it. */
static void annotate_explain(const char *cmd, const char *what, int err)
{
	if (err == ENODATA)
		msg_err(cmd, "no trace is being recorded: start one first (gotrace start, "
			"or gotrace record)");
	else if (err == EMSGSIZE)
		msg_err(cmd, "%s is longer than %d bytes (invalid UTF-8 counts 4 per byte)",
			what, GOTRACE_ANNOTATE_STR_MAX);
	else if (err == ENOSPC)
		msg_err(cmd, "the trace's annotation tables are full: start a new trace");
	else
		msg_err(cmd, "%s: %s", what, strerror(err));
}

static void mark_help(void)
{
	printf("Usage: %s mark [--category CATEGORY] MESSAGE\n"
	       "Log MESSAGE in the trace being recorded, on this command's thread, as\n"
	       "Go's trace.Log does: go tool trace shows it in the timeline and the\n"
	       "goroutine's events. At most %d bytes each.\n\n"
	       "  -c, --category CATEGORY  the message's category (default: none)\n"
	       "  -h, --help               show this help\n\n"
	       "Exit status: 0 once logged; 1 if no trace is being recorded, or on error.\n",
	       program_invocation_short_name, GOTRACE_ANNOTATE_STR_MAX);
}

int cmd_mark(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "category", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *category = "";
	struct gotrace_log l;
	int c, fd, ret;

	while ((c = getopt_long(argc, argv, "+c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			category = optarg;
			break;
		case 'h':
			mark_help();
			return EXIT_SUCCESS;
		default:
			return msg_usage("mark");
		}
	}
	if (optind != argc - 1) {
		msg_err("mark", optind == argc ? "MESSAGE is missing" : "one MESSAGE only "
			"(quote it if it has spaces)");
		return msg_usage("mark");
	}
	fd = annotate_open("mark");
	if (fd < 0)
		return EXIT_FAILURE;
	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.category = (uintptr_t)category;
	l.category_len = strlen(category);
	l.message = (uintptr_t)argv[optind];
	l.message_len = strlen(argv[optind]);
	ret = ioctl(fd, GOTRACE_LOG, &l);
	if (ret)
		annotate_explain("mark", l.message_len > GOTRACE_ANNOTATE_STR_MAX ||
				 errno != EMSGSIZE ? "MESSAGE" : "CATEGORY", errno);
	close(fd);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}

static void region_help(void)
{
	printf("Usage: %s region NAME -- CMD [ARG...]\n"
	       "Run CMD as a task and region NAME of the trace being recorded: go tool\n"
	       "trace's user tasks and user regions pages list them with CMD's duration.\n"
	       "A region belongs to one thread: this command's, which waits for CMD. CMD's\n"
	       "first thread logs \"exec: CMD\" in the task before it runs CMD.\n"
	       "Without a trace being recorded, CMD runs all the same, unannotated.\n\n"
	       "  -h, --help  show this help\n\n"
	       "Exit status: CMD's (128 + N if a signal N ended it); 127 if CMD cannot be\n"
	       "found, 126 if it cannot run; 1 on other errors.\n",
	       program_invocation_short_name);
}

/* In the child: tie its thread to the task, then become CMD. Never returns. */
static void region_exec(int fd, uint64_t task, char *argv[])
{
	gotrace_log(fd, task, "exec", argv[0]);
	close(fd);
	execvp(argv[0], argv);
	msg_err("region", "cannot run '%s': %s", argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

/* CMD's exit status as a shell gives it. */
static int region_status(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int cmd_region(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	uint64_t task = 0;
	const char *name;
	int c, fd, status;
	pid_t child;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'h') {
			region_help();
			return EXIT_SUCCESS;
		}
		return msg_usage("region");
	}
	if (optind == argc) {
		msg_err("region", "NAME is missing");
		return msg_usage("region");
	}
	name = argv[optind++];
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	if (optind == argc) {
		msg_err("region", "CMD is missing: gotrace region NAME -- CMD");
		return msg_usage("region");
	}
	fd = annotate_open("region");
	if (fd < 0)
		return EXIT_FAILURE;
	if (gotrace_task_begin(fd, 0, name, &task) ||
	    gotrace_region_begin(fd, task, name)) {
		annotate_explain("region", "NAME", errno);
		close(fd);
		return EXIT_FAILURE;
	}
	if (!task)
		msg_err("region", "no trace is being recorded: running CMD unannotated");
	fflush(NULL);
	child = fork();
	if (child < 0) {
		msg_err("region", "cannot start '%s': %s", argv[optind], strerror(errno));
		close(fd);
		return EXIT_FAILURE;
	}
	if (!child)
		region_exec(fd, task, argv + optind);
	/* As a shell: ^C is CMD's to take. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR) {
			msg_err("region", "waitpid: %s", strerror(errno));
			close(fd);
			return EXIT_FAILURE;
		}
	}
	/*
	 * The trace may have stopped meanwhile (the client takes ENODATA for
	 * success), or another one started, which knows neither (ENOENT).
	 */
	if (task && ((gotrace_region_end(fd, name) && errno != ENOENT) ||
		     (gotrace_task_end(fd, task) && errno != ENOENT)))
		annotate_explain("region", "the end of NAME", errno);
	close(fd);
	return region_status(status);
}
