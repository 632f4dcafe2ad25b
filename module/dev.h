/* SPDX-License-Identifier: GPL-2.0 */
/* The /dev/gotrace device: its state and its reader (main.c, read.c). */
#ifndef _GOTRACE_DEV_H
#define _GOTRACE_DEV_H

#include <linux/compiler.h>
#include <linux/ioctl.h>
#include <linux/irq_work.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include "session.h"

/* A blocked read() returns what there is after this many jiffies. */
#define GOTRACE_READ_LATENCY	HZ

/**
 * struct gotrace_dev - the /dev/gotrace device
 * @lock:	protects @sess (the pointer and its lifetime), @reader_open,
 *		@sessions and every session state change.
 * @read_lock:	serialises read() calls and owns the session's reader fields.
 * @wq:		readers wait here for a session, data, or the end.
 * @sess:	the current session, or NULL.
 * @reader_open: an open file has read access. Read locklessly by a
 *		waiting GOTRACE_STOP.
 * @sessions:	sessions started since load.
 * @read_to_end: number (as @sessions counts) of the last session whose
 *		trace was read to its end, or can no longer be (a reader left
 *		it half read). Read locklessly by a waiting GOTRACE_STOP.
 * @cut_kick:	a probe cut a GOTRACE_START_CONTINUE session (session.c)...
 * @cut_work:	...which this ends, under @lock.
 */
struct gotrace_dev {
	struct mutex lock;		/* see above */
	struct mutex read_lock;		/* see above */
	wait_queue_head_t wq;
	struct gotrace_session __rcu *sess;
	bool reader_open;
	u64 sessions;
	u64 read_to_end;
	struct irq_work cut_kick;
	struct work_struct cut_work;
};

/**
 * gotrace_dev_sess - the device's session; the caller holds dev->lock
 * @dev: the device
 *
 * Return: the session, or NULL if @dev has none.
 */
static inline struct gotrace_session *gotrace_dev_sess(struct gotrace_dev *dev)
{
	return rcu_dereference_protected(dev->sess, lockdep_is_held(&dev->lock));
}

/*
 * An ioctl number without its size field: the size of the structure that
 * counts is the one in the structure (gotrace_arg_size()), so a command
 * encoded with another size, by a newer or older user space, is the same.
 */
#define GOTRACE_IOC_CMD(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

/* Ioctl structures (main.c). */
int gotrace_arg_size(const void __user *uargs, size_t ver0, u32 *usize);
int gotrace_copy_args(void *args, size_t ksize, size_t ver0,
		      const void __user *uargs, u32 *usize);
int gotrace_copy_back(void __user *uargs, void *args, size_t ksize, u32 usize);

/* The reader (read.c). */
ssize_t gotrace_read(struct gotrace_dev *dev, char __user *buf, size_t count,
		     bool nonblock);
bool gotrace_readable(struct gotrace_dev *dev);

#endif /* _GOTRACE_DEV_H */
