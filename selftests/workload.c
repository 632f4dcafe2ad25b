// SPDX-License-Identifier: GPL-2.0
/* Scheduler workloads for the gotrace selftests to record. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gotrace_util.h"
#include "workload.h"

/* How long a TCP client waits before it connects. */
#define GT_TCP_ACCEPT_WAIT_MS	50

/* Where a ping-pong side reads and writes a byte: pipes, or a socket. */
struct gt_link {
	int rfd;
	int wfd;
	bool sock;	/* recv()/send(), which block as network waits */
};

static bool gt_link_get(const struct gt_link *l, char *c)
{
	return (l->sock ? recv(l->rfd, c, 1, 0) : read(l->rfd, c, 1)) == 1;
}

static bool gt_link_put(const struct gt_link *l, char c)
{
	return (l->sock ? send(l->wfd, &c, 1, MSG_NOSIGNAL) :
			  write(l->wfd, &c, 1)) == 1;
}

/* Send back every byte until end of file. */
static void gt_echo(const struct gt_link *l)
{
	char c;

	while (gt_link_get(l, &c) && gt_link_put(l, c))
		;
}

/*
 * Send a byte and wait for it to come back, @rounds times or, if @max_ms
 * is not 0, until that many ms have passed. Returns the round trips done.
 */
static unsigned long gt_bounce(const struct gt_link *l, unsigned long rounds,
			       unsigned int max_ms)
{
	__u64 deadline = gt_now_ms() + max_ms;
	unsigned long done;
	char c = 'x';

	for (done = 0; done < rounds; done++) {
		if (max_ms && !(done % 64) && gt_now_ms() >= deadline)
			break;
		if (!gt_link_put(l, c) || !gt_link_get(l, &c))
			break;
	}
	return done;
}

/*
 * Bounce a byte between this process and a child through two pipes, so that
 * each side blocks and wakes the other once per round trip. Stops after
 * @rounds round trips or, if @max_ms is not 0, after that many ms. Returns
 * the round trips done, or -1.
 */
long gt_pingpong(unsigned long rounds, unsigned int max_ms)
{
	int ping[2], pong[2], status;
	unsigned long done = 0;
	pid_t pid;

	if (pipe2(ping, O_CLOEXEC))
		return -1;
	if (pipe2(pong, O_CLOEXEC)) {
		close(ping[0]);
		close(ping[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		const struct gt_link child = { .rfd = ping[0], .wfd = pong[1] };

		close(ping[1]);
		close(pong[0]);
		gt_echo(&child);
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	if (pid > 0) {
		const struct gt_link parent = { .rfd = pong[0], .wfd = ping[1] };

		done = gt_bounce(&parent, rounds, max_ms);
	}
	close(ping[1]);
	close(pong[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
		return -1;
	return done;
}

/*
 * Run @fn(@arg) in a child process named @name (its comm, set right after
 * fork()). Returns the child's pid, or -1; gt_reap() waits for it.
 */
pid_t gt_spawn(const char *name, int (*fn)(void *arg), void *arg)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		if (prctl(PR_SET_NAME, name, 0, 0, 0))
			_exit(127);
		_exit(fn(arg) ? 1 : 0);
	}
	return pid;
}

/* Wait for a gt_spawn() child: 0 if its function returned 0. */
int gt_reap(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

struct gt_tcp_client {
	struct sockaddr_in addr;
	unsigned long rounds;
	unsigned int max_ms;
};

/* Connect late (the server waits in accept()), then bounce bytes. */
static int gt_tcp_client_main(void *p)
{
	const struct gt_tcp_client *cli = p;
	struct gt_link l = { .sock = true };
	unsigned long done;

	gt_msleep(GT_TCP_ACCEPT_WAIT_MS);
	l.rfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	l.wfd = l.rfd;
	if (l.rfd < 0 ||
	    connect(l.rfd, (const struct sockaddr *)&cli->addr, sizeof(cli->addr)))
		return -1;
	done = gt_bounce(&l, cli->rounds, cli->max_ms);
	close(l.rfd);
	return done ? 0 : -1;
}

/*
 * A loopback TCP server (this process) and a client (a child named
 * @client_name) bouncing a byte: the server waits in accept(), then both
 * wait in recv() for the other. The client stops after @rounds round trips
 * or @max_ms ms (if not 0). Returns 0 if at least one round trip was done.
 */
int gt_tcp_pingpong(unsigned long rounds, unsigned int max_ms,
		    const char *client_name)
{
	struct gt_tcp_client cli = { .rounds = rounds, .max_ms = max_ms };
	socklen_t len = sizeof(cli.addr);
	struct gt_link l = { .sock = true };
	int srv, ret = -1;
	pid_t pid = -1;

	srv = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (srv < 0)
		return -1;
	cli.addr.sin_family = AF_INET;
	cli.addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(srv, (struct sockaddr *)&cli.addr, sizeof(cli.addr)) ||
	    getsockname(srv, (struct sockaddr *)&cli.addr, &len) ||
	    listen(srv, 1))
		goto out;
	pid = gt_spawn(client_name, gt_tcp_client_main, &cli);
	if (pid < 0)
		goto out;
	l.rfd = accept4(srv, NULL, NULL, SOCK_CLOEXEC);
	l.wfd = l.rfd;
	if (l.rfd >= 0) {
		gt_echo(&l);
		close(l.rfd);
		ret = 0;
	}
out:
	close(srv);
	if (pid >= 0 && gt_reap(pid))
		ret = -1;
	return ret;
}

#define GT_MAX_THREADS 64

/* Run @fn(@arg) in @threads new threads and wait for them all. */
static int gt_run_threads(unsigned int threads, void *(*fn)(void *), void *arg)
{
	pthread_t tid[GT_MAX_THREADS];
	unsigned int i, n;
	int err = 0;

	if (threads > GT_MAX_THREADS) {
		errno = EINVAL;
		return -1;
	}
	for (n = 0; n < threads; n++) {
		err = pthread_create(&tid[n], NULL, fn, arg);
		if (err)
			break;
	}
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	errno = err;
	return err ? -1 : 0;
}

struct gt_mutex_arg {
	pthread_mutex_t lock;
	unsigned long iters;
	__u64 deadline;		/* in gt_now_ms() time, or 0 */
	unsigned long done;	/* iterations, under the lock */
	unsigned long counter;
};

static void *gt_mutex_main(void *p)
{
	struct gt_mutex_arg *arg = p;
	unsigned long i;
	int j;

	for (i = 0; i < arg->iters; i++) {
		if (arg->deadline && !(i % 64) && gt_now_ms() >= arg->deadline)
			break;
		pthread_mutex_lock(&arg->lock);
		for (j = 0; j < 100; j++)
			__atomic_add_fetch(&arg->counter, 1, __ATOMIC_RELAXED);
		arg->done++;
		pthread_mutex_unlock(&arg->lock);
	}
	return NULL;
}

/*
 * @threads threads take one pthread mutex @iters times each or, if @max_ms
 * is not 0, until that many ms have passed.
 */
int gt_mutex_contend(unsigned int threads, unsigned long iters,
		     unsigned int max_ms)
{
	struct gt_mutex_arg arg = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.iters = iters,
		.deadline = max_ms ? gt_now_ms() + max_ms : 0,
	};

	if (gt_run_threads(threads, gt_mutex_main, &arg))
		return -1;
	if (!max_ms && arg.done != threads * iters)
		return -1;
	return arg.done && arg.counter == arg.done * 100 ? 0 : -1;
}

struct gt_sleep_arg {
	unsigned int sleeps;
	long ns;
};

static void *gt_sleep_main(void *p)
{
	const struct gt_sleep_arg *arg = p;
	struct timespec ts = { .tv_nsec = arg->ns };
	unsigned int i;

	for (i = 0; i < arg->sleeps; i++)
		nanosleep(&ts, NULL);
	return NULL;
}

/* @threads threads each sleep @sleeps times for @ns (< 1 s). */
int gt_sleepers(unsigned int threads, unsigned int sleeps, long ns)
{
	struct gt_sleep_arg arg = { .sleeps = sleeps, .ns = ns };

	return gt_run_threads(threads, gt_sleep_main, &arg);
}

struct gt_pipe_timer {
	int wfd;
	const char *name;
	unsigned int ticks;
	long ns;
};

/*
 * Name this thread, then write a byte every @ns, @ticks times; sleep one more
 * tick and close.
 */
static void *gt_pipe_timer_main(void *p)
{
	struct gt_pipe_timer *t = p;
	struct timespec ts = { .tv_nsec = t->ns };
	unsigned int i;
	char c = 't';

	if (pthread_setname_np(pthread_self(), t->name))
		t->ticks = 0;
	for (i = 0; i < t->ticks; i++) {
		nanosleep(&ts, NULL);
		if (write(t->wfd, &c, 1) != 1)
			break;
	}
	nanosleep(&ts, NULL);
	close(t->wfd);
	return NULL;
}

/*
 * This thread read()s a pipe that a timer thread named @timer_name writes a
 * byte into every @ns (< 1 s), @ticks times, then waits in pthread_join()
 * for the timer's last tick. Returns 0 if all bytes arrived.
 *
 * The join is a futex wait, an event with a stack that is not a syscall:
 * Go 1.22-1.25's syscall profile (golang/go#74850) only closes a run of
 * syscalls at such an event, so without it this thread's reads would be
 * missing there.
 */
int gt_pipe_timer(unsigned int ticks, long ns, const char *timer_name)
{
	struct gt_pipe_timer t = { .name = timer_name, .ticks = ticks, .ns = ns };
	unsigned int got = 0;
	pthread_t timer;
	int fds[2], err;
	char c;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	t.wfd = fds[1];
	err = pthread_create(&timer, NULL, gt_pipe_timer_main, &t);
	if (err) {
		close(fds[0]);
		close(fds[1]);
		errno = err;
		return -1;
	}
	while (got < ticks && read(fds[0], &c, 1) == 1)
		got++;
	pthread_join(timer, NULL);
	close(fds[0]);
	return got == ticks ? 0 : -1;
}

struct gt_hog_arg {
	__u64 deadline;
	unsigned long spins;
};

static void *gt_hog_main(void *p)
{
	struct gt_hog_arg *arg = p;

	while (gt_now_ms() < arg->deadline)
		__atomic_add_fetch(&arg->spins, 1, __ATOMIC_RELAXED);
	return NULL;
}

/*
 * @threads threads spin for @ms ms, all on the CPU this thread runs on, so
 * that the scheduler preempts them in turn.
 */
int gt_hogs(unsigned int threads, unsigned int ms)
{
	struct gt_hog_arg arg = { .deadline = gt_now_ms() + ms };
	cpu_set_t cpus;
	int cpu = sched_getcpu();

	if (cpu < 0)
		return -1;
	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		return -1;
	if (gt_run_threads(threads, gt_hog_main, &arg))
		return -1;
	return arg.spins ? 0 : -1;
}

/* Thread ids in use in [GT_RESERVED_PIDS, @limit), or -1. */
static long gt_tids_in_use_below(unsigned long limit)
{
	char path[300];
	struct dirent *p, *t;
	DIR *procs, *tasks;
	long n = 0;

	procs = opendir("/proc");
	if (!procs)
		return -1;
	while ((p = readdir(procs))) {
		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		tasks = opendir(path);
		if (!tasks)
			continue;	/* it exited */
		while ((t = readdir(tasks))) {
			unsigned long tid = strtoul(t->d_name, NULL, 10);

			if (tid >= GT_RESERVED_PIDS && tid < limit)
				n++;
		}
		closedir(tasks);
	}
	closedir(procs);
	return n;
}

/*
 * The pid_max that leaves @free thread ids unused from GT_RESERVED_PIDS
 * (where Linux starts again once ids wrap) up, so that ids come round at
 * once; 0 on error.
 */
unsigned long gt_tight_pid_max(unsigned int free)
{
	unsigned long limit = GT_RESERVED_PIDS;
	long used;

	do {
		used = gt_tids_in_use_below(++limit);
		if (used < 0)
			return 0;
	} while (limit - GT_RESERVED_PIDS < (unsigned long)used + free);
	return limit;
}

/* Note @pid in the bitmap @seen; whether it was there already. */
static bool gt_pid_seen(unsigned char *seen, pid_t pid)
{
	bool was = seen[pid / 8] & (1 << (pid % 8));

	seen[pid / 8] |= 1 << (pid % 8);
	return was;
}

/*
 * Fork @forks children, at most @parallel alive at once; every fourth one
 * sleeps a little before exiting. Returns how many children got a pid that
 * an earlier child already had, or -1.
 */
long gt_fork_storm(unsigned int forks, unsigned int parallel)
{
	const struct timespec nap = { .tv_nsec = 200000 };
	unsigned char *seen = calloc(GT_PID_MAX_LIMIT / 8, 1);
	unsigned int i, alive = 0;
	long reused = 0;
	pid_t pid;

	if (!seen)
		return -1;
	for (i = 0; i < forks && reused >= 0; i++) {
		if (alive == parallel) {
			if (wait(NULL) < 0)
				reused = -1;
			alive--;
		}
		pid = fork();
		if (pid == 0) {
			if (!(i % 4))
				nanosleep(&nap, NULL);
			_exit(0);
		}
		if (pid < 0 || pid >= GT_PID_MAX_LIMIT) {
			reused = -1;
			break;
		}
		alive++;
		reused += gt_pid_seen(seen, pid);
	}
	while (alive--)
		if (wait(NULL) < 0)
			reused = -1;
	free(seen);
	return reused;
}

static void *gt_reuse_thread(void *p)
{
	return p;
}

/*
 * What a reuse storm child does, by its number: exec /bin/true (a
 * rename), start a thread and join it (a thread id more to reuse), or exit.
 */
static void gt_reuse_child(unsigned int i)
{
	char *const argv[] = { "/bin/true", NULL };
	pthread_t t;

	switch (i % 3) {
	case 0:
		execv(argv[0], argv);
		_exit(127);
	case 1:
		if (pthread_create(&t, NULL, gt_reuse_thread, NULL) ||
		    pthread_join(t, NULL))
			_exit(1);
		_exit(0);
	default:
		_exit(0);
	}
}

/*
 * Fork @forks children, at most @parallel alive at once, that exec, start
 * a thread or just exit (gt_reuse_child()), and reap them at once: with a
 * small pid_max a new child gets an id whose previous holder may still be
 * switching out for the last time. A fork that finds no free id (EAGAIN)
 * waits for a child and tries again. Returns how many children got an id
 * an earlier child had, or -1; *@failed counts children that failed and
 * forks that found no id.
 */
long gt_reuse_storm(unsigned int forks, unsigned int parallel,
		    unsigned long *failed)
{
	unsigned char *seen = calloc(GT_PID_MAX_LIMIT / 8, 1);
	unsigned int i, alive = 0;
	long reused = 0;
	int status;
	pid_t pid;

	*failed = 0;
	if (!seen)
		return -1;
	for (i = 0; i < forks; i++) {
		if (alive == parallel || (alive && i % 2)) {
			if (wait(&status) < 0) {
				reused = -1;
				break;
			}
			alive--;
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				(*failed)++;
		}
		pid = fork();
		if (pid == 0)
			gt_reuse_child(i);
		if (pid < 0 && errno == EAGAIN && alive) {
			(*failed)++;
			i--;	/* no free id: reap one and try again */
			if (wait(NULL) < 0)
				break;
			alive--;
			continue;
		}
		if (pid < 0 || pid >= GT_PID_MAX_LIMIT) {
			reused = -1;
			break;
		}
		alive++;
		reused += gt_pid_seen(seen, pid);
	}
	while (alive--) {
		if (wait(&status) < 0)
			reused = -1;
		else if (!WIFEXITED(status) || WEXITSTATUS(status))
			(*failed)++;
	}
	free(seen);
	return reused;
}

/* What a storm child runs every other time; the others just exit. */
#define GT_STORM_EXEC	"/bin/true"

/* Shared with the storm processes. */
struct gt_storm_shared {
	bool stop;			/* atomic: end the storm */
	unsigned long forks[64];	/* atomic: per process */
	unsigned long failures[64];	/* atomic: forks, execs or exits that failed */
};

/* One storm process: fork a child that execs GT_STORM_EXEC or exits, reap it. */
static int gt_storm_main(struct gt_storm_shared *sh, unsigned int i)
{
	char *const argv[] = { GT_STORM_EXEC, NULL };
	unsigned long n;
	int status;
	pid_t pid;

	for (n = 0; !__atomic_load_n(&sh->stop, __ATOMIC_RELAXED); n++) {
		pid = fork();
		if (pid == 0) {
			if (n & 1)
				execv(argv[0], argv);
			_exit(n & 1 ? 127 : 0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			__atomic_add_fetch(&sh->failures[i], 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&sh->forks[i], 1, __ATOMIC_RELAXED);
	}
	return 0;
}

/*
 * Start a fork/exec/exit storm: one process per online CPU (at most 64),
 * each pinned to its CPU, forking children that alternately exec
 * GT_STORM_EXEC and exit at once, as fast as they can.
 */
int gt_storm_start(struct gt_storm *s)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct gt_storm_shared *sh;
	cpu_set_t set;
	long cpu;

	memset(s, 0, sizeof(*s));
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return -1;
	memset(sh, 0, sizeof(*sh));
	s->shared = sh;
	for (cpu = 0; cpu < ncpus && s->nr < 64; cpu++) {
		fflush(NULL);
		s->pids[s->nr] = fork();
		if (s->pids[s->nr] < 0)
			return -1;
		if (s->pids[s->nr] == 0) {
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set) ||
			    prctl(PR_SET_NAME, "gt-storm", 0, 0, 0) ||
			    prctl(PR_SET_PDEATHSIG, SIGKILL))
				_exit(1);
			_exit(gt_storm_main(sh, s->nr));
		}
		s->nr++;
	}
	return 0;
}

/* Forks the storm has made so far. */
unsigned long gt_storm_forks(const struct gt_storm *s)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < s->nr; i++)
		n += __atomic_load_n(&s->shared->forks[i], __ATOMIC_RELAXED);
	return n;
}

/*
 * Stop the storm and wait for it; add up its forks and its failed forks,
 * execs or exits. Returns 0 if every storm process ended well.
 */
int gt_storm_stop(struct gt_storm *s, unsigned long *forks,
		  unsigned long *failures)
{
	unsigned int i;
	int ret = 0;

	*forks = 0;
	*failures = 0;
	if (!s->shared)
		return -1;
	__atomic_store_n(&s->shared->stop, true, __ATOMIC_RELAXED);
	for (i = 0; i < s->nr; i++) {
		if (gt_reap(s->pids[i]))
			ret = -1;
		*forks += s->shared->forks[i];
		*failures += s->shared->failures[i];
	}
	munmap(s->shared, sizeof(*s->shared));
	s->shared = NULL;
	s->nr = 0;
	return ret;
}
