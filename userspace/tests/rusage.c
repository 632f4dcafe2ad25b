// SPDX-License-Identifier: GPL-2.0
/*
 * Runs a command with its output discarded and prints its wall time in
 * seconds and peak resident memory in KiB: "SECONDS KIB". Exit status: the
 * command's.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
	struct timespec a, b;
	struct rusage ru;
	int status, fd;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: %s COMMAND [ARGS...]\n", argv[0]);
		return EXIT_FAILURE;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid == 0) {
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
		perror("rusage");
		return EXIT_FAILURE;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.3f %ld\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9,
	       ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURE;
}
