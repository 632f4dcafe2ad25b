// SPDX-License-Identifier: GPL-2.0
/*
 * The join's writer thread: a generation of OUT is written (jn_splice_gen())
 * while the next one is planned, so that reading MACHINE and APP and writing
 * OUT take two CPUs.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tracev2/internal.h"

/* A generation to write: what jn_splice_gen() takes, owned by the writer. */
struct wr_job {
	struct gt2_span sp;
	struct jn_insert *ins;
	size_t n;
	struct jn_strings strs;
};

/*
 * @lock protects @job, @queued, @failed, @quit and @werr: the planner queues
 * a job when none is queued, the thread takes it and clears @queued when it
 * is written; @done signals both ways.
 */
struct jn_writer {
	struct jn_splice *out;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t done;
	struct wr_job job;
	bool queued;
	bool failed;
	bool quit;
	struct gt_error werr;	/* the thread's error */
	struct gt_error *err;	/* the planner's */
};

static void wr_free(struct wr_job *job)
{
	free(job->ins);
	jn_strings_free(&job->strs);
}

static void *wr_main(void *arg)
{
	struct jn_writer *w = arg;
	struct wr_job job;
	int rc;

	for (;;) {
		pthread_mutex_lock(&w->lock);
		while (!w->queued && !w->quit)
			pthread_cond_wait(&w->done, &w->lock);
		if (!w->queued) {
			pthread_mutex_unlock(&w->lock);
			return NULL;
		}
		job = w->job;
		pthread_mutex_unlock(&w->lock);
		rc = w->failed ? 0 : jn_splice_gen(w->out, &job.sp, job.ins, job.n, &job.strs);
		wr_free(&job);
		pthread_mutex_lock(&w->lock);
		w->queued = false;
		if (rc)
			w->failed = true;
		pthread_cond_broadcast(&w->done);
		pthread_mutex_unlock(&w->lock);
	}
}

struct jn_writer *jn_writer_start(struct jn_splice *out, struct gt_error *err)
{
	struct jn_writer *w = calloc(1, sizeof(*w));

	if (!w) {
		gt_fail(err, GT_OK, 0, "out of memory");
		return NULL;
	}
	w->out = out;
	w->err = err;
	jn_splice_set_err(out, &w->werr);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->done, NULL);
	if (pthread_create(&w->thread, NULL, wr_main, w)) {
		jn_splice_set_err(out, err);
		free(w);
		gt_fail(err, GT_OK, 0, "cannot start the writer thread");
		return NULL;
	}
	return w;
}

/* Waits, with w->lock held, for the queued job to be written: -1 if a job failed. */
static int wr_wait(struct jn_writer *w)
{
	while (w->queued)
		pthread_cond_wait(&w->done, &w->lock);
	if (w->failed)
		*w->err = w->werr;
	return w->failed ? -1 : 0;
}

int jn_writer_put(struct jn_writer *w, const struct gt2_span *sp, struct jn_insert *ins, size_t n,
		  struct jn_strings *strs)
{
	int rc;

	pthread_mutex_lock(&w->lock);
	rc = wr_wait(w);
	if (!rc) {
		w->job = (struct wr_job){ *sp, ins, n, *strs };
		w->queued = true;
		pthread_cond_broadcast(&w->done);
	}
	pthread_mutex_unlock(&w->lock);
	if (rc) {
		free(ins);
		jn_strings_free(strs);
	}
	memset(strs, 0, sizeof(*strs));
	return rc;
}

int jn_writer_stop(struct jn_writer *w)
{
	int rc;

	pthread_mutex_lock(&w->lock);
	rc = wr_wait(w);
	w->quit = true;
	pthread_cond_broadcast(&w->done);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	jn_splice_set_err(w->out, w->err);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->done);
	free(w);
	return rc;
}
