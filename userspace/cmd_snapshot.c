// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace snapshot: a flight recorder's newest whole generations as a trace
 * file. With no other reader of /dev/gotrace it opens the reader first, so
 * that the snapshot is its own to read, then asks for it and writes it; while
 * gotrace record --flight reads the device, it only asks, and record writes it.
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
#include <unistd.h>

#include "cli.h"
#include "flight/flight.h"
#include "gotrace_annotate.h"
#include "util/annotate.h"
#include "util/device.h"
#include "util/msg.h"
#include "util/parse.h"

#define CMD		"snapshot"
#define COPY_SIZE	(1 << 20)

struct snapshot {
	const char *out_path;
	bool out_given;
	int64_t duration_ns;	/* 0: all the buffers hold */
	bool duration_given;
	bool force;
	const char *reason;	/* --reason: ask the recorder's reader */
};

static void snapshot_help(void)
{
	printf("Usage: %s snapshot [-d DURATION] [-o FILE] [--force]\n"
	       "       %s snapshot --reason TEXT\n"
	       "Snapshot the running flight recorder (gotrace start --flight, or gotrace\n"
	       "record --flight): its newest whole generations, a trace Go opens on its own,\n"
	       "written to FILE, and a line saying what it holds. While gotrace record\n"
	       "--flight reads %s, it writes the snapshot to its next file instead.\n\n"
	       "  -d, --duration DURATION  the newest generations that cover DURATION (e.g.\n"
	       "                           500ms, 10s, 2m; default: all the buffers hold)\n"
	       "  -o, --output FILE        write it to FILE (default gotrace-snapshot.trace;\n"
	       "                           an existing FILE is kept as FILE.old; - for stdout)\n"
	       "      --force              replace an existing FILE, keeping no FILE.old\n"
	       "  -r, --reason TEXT        ask the program that reads the flight recorder\n"
	       "                           (gotrace service, gotrace record --flight) for a\n"
	       "                           snapshot, saying why (1 to %d bytes; in the file's\n"
	       "                           name and the trace): it writes the file; as root,\n"
	       "                           or in the group of the module parameter annotate_gid\n"
	       "  -h, --help               show this help\n\n"
	       "Exit status: 0, or 1 with the reason (no flight recorder, a snapshot still\n"
	       "being read, buffers that hold no whole generation; with --reason, no reader\n"
	       "that takes requests, or a request less than a second ago).\n",
	       program_invocation_short_name, program_invocation_short_name, GOTRACE_DEVICE,
	       GOTRACE_REQUEST_REASON_MAX);
}

/* The options; -1 to go on, else the exit status. */
static int parse_args(struct snapshot *s, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "reason", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	while ((c = getopt_long(argc, argv, "d:o:r:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!parse_duration(CMD, "--duration", optarg, true, &s->duration_ns))
				return msg_usage(CMD);
			s->duration_given = true;
			break;
		case 'r':
			s->reason = optarg;
			break;
		case 'o':
			s->out_path = optarg;
			s->out_given = true;
			break;
		case 'f':
			s->force = true;
			break;
		case 'h':
			snapshot_help();
			return EXIT_SUCCESS;
		default:
			return msg_usage(CMD);
		}
	}
	if (!msg_no_args(CMD, argc, argv))
		return EXIT_FAILURE;
	if (!*s->out_path) {
		msg_err(CMD, "empty output file name: give -o FILE");
		return msg_usage(CMD);
	}
	if (s->reason && !*s->reason) {
		msg_err(CMD, "empty --reason: say why you ask (e.g. --reason 'checkout took 2 s')");
		return msg_usage(CMD);
	}
	if (s->reason && strlen(s->reason) > GOTRACE_REQUEST_REASON_MAX) {
		msg_err(CMD, "--reason is longer than %d bytes: shorten it",
			GOTRACE_REQUEST_REASON_MAX);
		return msg_usage(CMD);
	}
	if (s->reason && (s->out_given || s->duration_given || s->force)) {
		msg_err(CMD, "--reason asks the flight recorder's reader, which writes the file "
			"its way: drop -o, -d and --force");
		return msg_usage(CMD);
	}
	return -1;
}

/* --reason: ask whoever reads the flight recorder; it writes the snapshot. */
static int request(const struct snapshot *s)
{
	struct gotrace_request r = {
		.size = sizeof(r),
		.reason = (uintptr_t)s->reason,
		.reason_len = (__u32)strlen(s->reason),
	};
	int fd = annotate_open(CMD), err;

	if (fd < 0)
		return EXIT_FAILURE;
	err = ioctl(fd, GOTRACE_REQUEST, &r) ? errno : 0;
	close(fd);
	if (!err) {
		msg_err(CMD, "asked the flight recorder's reader for a snapshot: %s", s->reason);
		return EXIT_SUCCESS;
	}
	if (err == ENODATA)
		msg_err(CMD, "no flight recorder's reader takes requests: start one (systemctl "
			"start gotrace-flight, or gotrace record --flight D)");
	else if (err == EBUSY)
		msg_err(CMD, "the last request is still waiting to be taken, or was made less "
			"than a second ago: try again in a second");
	else
		msg_err(CMD, "%s: %s", GOTRACE_ANNOTATE_DEV, strerror(err));
	return EXIT_FAILURE;
}

/* Another program reads the device (record --flight): it gets the snapshot. */
static int ask_only(const struct snapshot *s, int ctl_fd)
{
	struct gotrace_snapshot snap;
	int err = snapshot_take(ctl_fd, s->duration_ns, &snap);

	if (err) {
		snapshot_explain(CMD, ctl_fd, err);
		return EXIT_FAILURE;
	}
	snapshot_report(CMD, NULL, &snap, 0, s->out_given ?
			"the program reading " GOTRACE_DEVICE " (gotrace record --flight?) writes "
			"it to its next file, not to -o's" :
			"the program reading " GOTRACE_DEVICE " (gotrace record --flight?) writes "
			"it to its next file");
	return EXIT_SUCCESS;
}

/* The snapshot from @rd_fd to its end of file into @f; false after a message. */
static bool copy_snapshot(int rd_fd, struct snap_file *f)
{
	char *buf = malloc(COPY_SIZE);
	ssize_t n = 1;

	if (!buf) {
		msg_err(CMD, "out of memory");
		return false;
	}
	while (n > 0) {
		n = read(rd_fd, buf, COPY_SIZE);
		if (n < 0 && errno == EINTR)
			n = 1;
		else if (n < 0)
			msg_err(CMD, "reading %s failed: %s", GOTRACE_DEVICE, strerror(errno));
		else if (n > 0)
			snap_file_write(f, buf, (size_t)n);
	}
	free(buf);
	return !n && !f->failed;
}

/*
 * Ours to read: the file is made ready first, then the snapshot taken and
 * copied. SIGINT, SIGTERM and SIGHUP wait until the file is whole, or gone.
 */
static int take_and_write(const struct snapshot *s, int ctl_fd, int rd_fd)
{
	struct gotrace_snapshot snap;
	struct snap_file f;
	sigset_t set, old;
	int err, ret = EXIT_FAILURE;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	if (!snap_file_open(&f, CMD, s->out_path))
		goto out;
	err = snapshot_take(ctl_fd, s->duration_ns, &snap);
	if (err && err != EBUSY) {
		snapshot_explain(CMD, ctl_fd, err);
		snap_file_discard(&f);
		goto out;
	}
	/* EBUSY with the reader ours: one taken earlier waits, which nobody else reads. */
	if (!copy_snapshot(rd_fd, &f) || !snap_file_commit(&f, s->force)) {
		snap_file_discard(&f);
		goto out;
	}
	if (err) {
		msg_err(CMD, "a snapshot taken earlier was waiting to be read: %s holds that one "
			"(%.2f MiB), not a new one: run gotrace snapshot again for a new one",
			s->out_path, f.bytes / (1024.0 * 1024.0));
		goto out;
	}
	snapshot_report(CMD, s->out_path, &snap, f.bytes, NULL);
	ret = EXIT_SUCCESS;
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

int cmd_snapshot(int argc, char *argv[])
{
	struct snapshot s = { .out_path = "gotrace-snapshot.trace" };
	int ret = parse_args(&s, argc, argv), ctl_fd, rd_fd;

	if (ret >= 0)
		return ret;
	if (s.reason)
		return request(&s);
	ctl_fd = device_open(CMD);
	if (ctl_fd < 0)
		return EXIT_FAILURE;
	rd_fd = device_open_reader(CMD, 0);
	if (rd_fd >= 0)
		ret = take_and_write(&s, ctl_fd, rd_fd);
	else if (errno == EBUSY)
		ret = ask_only(&s, ctl_fd);
	else
		ret = EXIT_FAILURE;
	if (rd_fd >= 0)
		close(rd_fd);
	close(ctl_fd);
	return ret;
}
