// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace record's CMD: forked before the trace starts and held on a pipe
 * until it has, so the trace sees it from its exec on (as perf record does).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/record.h"
#include "util/msg.h"

/* In the child: wait for the go-ahead, then become CMD (or run it). Never returns. */
static void child_exec(struct record *r, int wait_fd)
{
	char go;

	sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (read(wait_fd, &go, 1) != 1)
		_exit(127);	/* the trace did not start; the parent said why */
	close(wait_fd);
	if (r->child_run)
		_exit(r->child_run(r->child_arg));
	execvp(r->argv[0], r->argv);
	msg_err("record", "cannot run '%s': %s", r->argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

bool child_spawn(struct record *r)
{
	int fds[2];

	if (!r->argv)
		return true;
	if (pipe2(fds, O_CLOEXEC)) {
		msg_err("record", "pipe: %s", strerror(errno));
		return false;
	}
	r->child = fork();
	if (r->child < 0) {
		msg_err("record", "cannot start '%s': %s", r->argv[0], strerror(errno));
		r->child = 0;
		close(fds[0]);
		close(fds[1]);
		return false;
	}
	if (!r->child) {
		close(fds[1]);
		child_exec(r, fds[0]);
	}
	close(fds[0]);
	r->cork = fds[1];
	return true;
}

void child_release(struct record *r)
{
	if (r->cork < 0)
		return;
	if (write(r->cork, "", 1) != 1)
		msg_err("record", "cannot release '%s': %s", r->argv[0], strerror(errno));
	close(r->cork);
	r->cork = -1;
}

/* The trace did not start: CMD exits without running. */
void child_cancel(struct record *r)
{
	if (r->cork >= 0)
		close(r->cork);
	r->cork = -1;
	if (r->child)
		child_reap(r, true);
}

void child_reap(struct record *r, bool block)
{
	pid_t pid;

	if (!r->child || r->child_reaped)
		return;
	do
		pid = waitpid(r->child, &r->child_status, block ? 0 : WNOHANG);
	while (pid < 0 && errno == EINTR);
	r->child_reaped = pid == r->child;
}

/*
 * The signal that ended the recording goes on to CMD if it still runs (a
 * kill of gotrace alone must end CMD too; a Ctrl-C reached both already),
 * and so does any signal while we wait for it, but --flight's SIGUSR1,
 * which asked us for a snapshot.
 */
int child_finish(struct record *r)
{
	struct signalfd_siginfo si;
	struct pollfd pfd = { .fd = r->sig_fd, .events = POLLIN };

	if (!r->child)
		return -1;
	child_reap(r, false);
	if (!r->child_reaped && r->end == END_SIGNAL)
		kill(r->child, r->end_sig);
	else if (!r->child_reaped)
		progress_note(r, "recording ended; waiting for '%s' (pid %d) to exit",
			      r->argv[0], (int)r->child);
	while (!r->child_reaped) {
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			break;
		while (read(r->sig_fd, &si, sizeof(si)) == sizeof(si))
			if (si.ssi_signo != SIGCHLD && si.ssi_signo != SIGUSR1)
				kill(r->child, (int)si.ssi_signo);
		child_reap(r, false);
	}
	child_reap(r, true);
	if (WIFSIGNALED(r->child_status))
		return 128 + WTERMSIG(r->child_status);
	return WEXITSTATUS(r->child_status);
}
