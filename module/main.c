// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace: the Linux scheduler as a Go execution trace on /dev/gotrace.
 *
 * This file holds the character device: open/release, read/poll and the
 * ioctls, and the module's parameters, load and unload.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/string.h>
#include <linux/threads.h>
#include <linux/uaccess.h>

#include "annotate_dev.h"
#include "buffer.h"
#include "clock.h"
#include "dev.h"
#include "filter.h"
#include "flight.h"
#include "probes.h"
#include "session.h"
#include "trigger.h"

static unsigned long buffer_size = 2UL << 20;
module_param(buffer_size, ulong, 0644);
MODULE_PARM_DESC(buffer_size, "Trace buffer bytes per CPU when GOTRACE_START gives 0 (default 2 MiB)");

static uint max_tid = PID_MAX_LIMIT;
module_param(max_tid, uint, 0644);
MODULE_PARM_DESC(max_tid, "Thread ids covered when GOTRACE_START gives 0 (default PID_MAX_LIMIT)");

static struct gotrace_dev gotrace_dev = {
	.lock = __MUTEX_INITIALIZER(gotrace_dev.lock),
	.read_lock = __MUTEX_INITIALIZER(gotrace_dev.read_lock),
	.wq = __WAIT_QUEUE_HEAD_INITIALIZER(gotrace_dev.wq),
};

static int gotrace_open(struct inode *inode, struct file *file)
{
	struct gotrace_dev *dev = &gotrace_dev;
	int ret = 0;

	if (!perfmon_capable())
		return -EPERM;
	if (file->f_mode & FMODE_READ) {
		mutex_lock(&dev->lock);
		if (dev->reader_open)
			ret = -EBUSY;
		else
			WRITE_ONCE(dev->reader_open, true);
		mutex_unlock(&dev->lock);
		if (ret)
			return ret;
	}
	file->private_data = dev;
	return nonseekable_open(inode, file);
}

static int gotrace_release(struct inode *inode, struct file *file)
{
	struct gotrace_dev *dev = file->private_data;

	if (file->f_mode & FMODE_READ) {
		mutex_lock(&dev->lock);
		gotrace_session_reader_gone(dev);
		WRITE_ONCE(dev->reader_open, false);
		mutex_unlock(&dev->lock);
		/* A stop may wait for this reader. */
		wake_up_interruptible(&dev->wq);
	}
	return 0;
}

static ssize_t gotrace_fop_read(struct file *file, char __user *buf,
				size_t count, loff_t *ppos)
{
	return gotrace_read(file->private_data, buf, count,
			    file->f_flags & O_NONBLOCK);
}

static __poll_t gotrace_poll(struct file *file, poll_table *wait)
{
	struct gotrace_dev *dev = file->private_data;

	__poll_t mask = 0;

	poll_wait(file, &dev->wq, wait);
	if (gotrace_readable(dev))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (gotrace_trig_pollpri(dev))
		mask |= EPOLLPRI;
	return mask;
}

/* The first versions end with their reserved fields; new fields follow. */
static_assert(GOTRACE_START_SIZE_VER0 ==
	      offsetofend(struct gotrace_start, reserved));
static_assert(GOTRACE_START_SIZE_VER1 ==
	      offsetofend(struct gotrace_start, reserved2));
static_assert(sizeof(struct gotrace_start) == GOTRACE_START_SIZE_VER2);
static_assert(GOTRACE_STOP_SIZE_VER0 ==
	      offsetofend(struct gotrace_stop, reserved));
static_assert(GOTRACE_STATUS_SIZE_VER0 ==
	      offsetofend(struct gotrace_status, reserved));
static_assert(GOTRACE_SNAPSHOT_SIZE_VER0 ==
	      offsetofend(struct gotrace_snapshot, reserved));
static_assert(GOTRACE_TRIGGER_SIZE_VER0 ==
	      offsetofend(struct gotrace_trigger, reserved));
static_assert(sizeof(struct gotrace_trigger) == GOTRACE_TRIGGER_SIZE_VER1);

/**
 * gotrace_arg_size - the size user space gives an ioctl structure
 * @uargs: the structure, its size first
 * @ver0: its first version's size
 * @usize: set to the size
 *
 * Each ioctl structure starts with its size as user space knows it. Accept
 * any from the first version's (@ver0) to a page: as clone3(), smaller is
 * -EINVAL, larger -E2BIG.
 *
 * Return: 0 or an error.
 */
int gotrace_arg_size(const void __user *uargs, size_t ver0, u32 *usize)
{
	if (get_user(*usize, (const u32 __user *)uargs))
		return -EFAULT;
	if (*usize < ver0)
		return -EINVAL;
	if (*usize > PAGE_SIZE)
		return -E2BIG;
	return 0;
}

/**
 * gotrace_copy_args - copy an ioctl's input structure from user space
 * @args: the kernel's structure
 * @ksize: its size
 * @ver0: its first version's size
 * @uargs: user space's
 * @usize: set to the size user space gives
 *
 * Copy an input structure of the kernel's @ksize bytes from one of the size
 * user space gives: what is missing reads as zero, what the kernel does not
 * know must be zero (-E2BIG otherwise, see copy_struct_from_user()).
 *
 * Return: 0 or an error.
 */
int gotrace_copy_args(void *args, size_t ksize, size_t ver0,
		      const void __user *uargs, u32 *usize)
{
	int ret;

	ret = gotrace_arg_size(uargs, ver0, usize);
	if (ret)
		return ret;
	return copy_struct_from_user(args, ksize, uargs, *usize);
}

/* Formats 1.22 and later: the generation parameters, defaults filled in. */
static int gotrace_start_gens(struct gotrace_start *args)
{
	if (args->latency_ns &&
	    (!(args->flags & GOTRACE_START_FLIGHT) ||
	     args->latency_ns < GOTRACE_LATENCY_MIN_NS ||
	     args->latency_ns > GOTRACE_LATENCY_MAX_NS))
		return -EINVAL;
	if (args->format < GOTRACE_FORMAT_1_22)
		return args->gen_period_ns || args->gen_bytes ||
		       (args->flags & GOTRACE_START_FLIGHT) ? -EINVAL : 0;
	if (!args->gen_period_ns)
		args->gen_period_ns = GOTRACE_GEN_PERIOD_NS;
	if (args->gen_period_ns < GOTRACE_GEN_PERIOD_MIN_NS ||
	    args->gen_period_ns > GOTRACE_GEN_PERIOD_MAX_NS)
		return -EINVAL;
	if (!args->gen_bytes)
		args->gen_bytes = max_t(u64, args->buffer_size / 4, GOTRACE_GEN_BYTES_MIN);
	if (args->gen_bytes < GOTRACE_GEN_BYTES_MIN)
		return -EINVAL;
	return 0;
}

/* CPU samples (samples.c): formats 1.19 and later, which have CPUSample. */
static int gotrace_start_samples(const struct gotrace_start *args)
{
	if (args->reserved3 || args->cpu_sample_hz > GOTRACE_CPU_SAMPLE_HZ_MAX)
		return -EINVAL;
	if (args->cpu_sample_hz && args->format == GOTRACE_FORMAT_1_11)
		return -EINVAL;
	return 0;
}

static int gotrace_start_args(struct gotrace_start *args,
			      struct gotrace_start __user *uargs)
{
	u32 usize;
	int ret;

	ret = gotrace_copy_args(args, sizeof(*args), GOTRACE_START_SIZE_VER0,
				uargs, &usize);
	if (ret)
		return ret;

	if (memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;
	if (args->flags & ~GOTRACE_START_FLAGS)
		return -EINVAL;
	if ((args->flags & GOTRACE_START_CLOCK_MONO) &&
	    (args->flags & GOTRACE_START_CLOCK_TSC))
		return -EINVAL;
	if ((args->flags & GOTRACE_START_CLOCK_TSC) && !gotrace_clock_has_tsc())
		return -EOPNOTSUPP;
	/* A flight recorder's buffers never run full: nothing to continue. */
	if ((args->flags & GOTRACE_START_FLIGHT) &&
	    (args->flags & GOTRACE_START_CONTINUE))
		return -EINVAL;
	if (args->format == GOTRACE_FORMAT_DEFAULT)
		args->format = GOTRACE_FORMAT_1_21;
	switch (args->format) {
	case GOTRACE_FORMAT_1_11:
	case GOTRACE_FORMAT_1_19:
	case GOTRACE_FORMAT_1_21:
	case GOTRACE_FORMAT_1_22:
	case GOTRACE_FORMAT_1_23:
	case GOTRACE_FORMAT_1_25:
	case GOTRACE_FORMAT_1_26:
		break;
	default:
		return -EINVAL;
	}
	if (!args->buffer_size)
		args->buffer_size = READ_ONCE(buffer_size);
	if (args->buffer_size < GOTRACE_BUF_MIN || args->buffer_size > GOTRACE_BUF_MAX)
		return -EINVAL;
	args->buffer_size = round_up(args->buffer_size, GOTRACE_CHUNK_SIZE);
	if (!args->max_tid)
		args->max_tid = READ_ONCE(max_tid);
	if (args->max_tid > PID_MAX_LIMIT)
		return -EINVAL;
	ret = gotrace_start_samples(args);
	if (ret)
		return ret;
	return gotrace_start_gens(args);
}

static long gotrace_ioctl_start(struct gotrace_dev *dev,
				struct gotrace_start __user *uargs)
{
	struct gotrace_filter *filter;
	struct gotrace_start args;
	struct gotrace_start_args sa;
	int ret;

	if (!perfmon_capable())
		return -EPERM;
	ret = gotrace_start_args(&args, uargs);
	if (ret)
		return ret;

	ret = gotrace_filter_new(&args, &filter);
	if (ret)
		return ret;
	sa = (struct gotrace_start_args) {
		.filter = filter,
		.flags = args.flags,
		.format = args.format,
		.max_tid = args.max_tid,
		.buffer_size = args.buffer_size,
		.gen_period_ns = args.gen_period_ns,
		.gen_bytes = args.gen_bytes,
		.latency_ns = args.latency_ns,
		.cpu_sample_hz = args.cpu_sample_hz,
	};
	mutex_lock(&dev->lock);
	ret = gotrace_session_start(dev, &sa);
	mutex_unlock(&dev->lock);
	/* Each session of the start holds a reference of its own. */
	gotrace_filter_put(filter);
	return ret;
}

/* Whether the reader of session number @session is done with it. */
static bool gotrace_stop_read(struct gotrace_dev *dev, u64 session)
{
	return !READ_ONCE(dev->reader_open) ||
	       READ_ONCE(dev->read_to_end) == session;
}

static long gotrace_ioctl_stop(struct gotrace_dev *dev,
			       struct gotrace_stop __user *uargs)
{
	struct gotrace_stop args;
	u64 session;
	u32 usize;
	int ret;

	if (!perfmon_capable())
		return -EPERM;
	ret = gotrace_copy_args(&args, sizeof(args), GOTRACE_STOP_SIZE_VER0,
				uargs, &usize);
	if (ret)
		return ret;
	if (memchr_inv(args.reserved, 0, sizeof(args.reserved)))
		return -EINVAL;
	if (args.flags & ~GOTRACE_STOP_FLAGS)
		return -EINVAL;
	mutex_lock(&dev->lock);
	ret = gotrace_session_stop(dev);
	session = dev->sessions;
	mutex_unlock(&dev->lock);
	if (ret || (args.flags & GOTRACE_STOP_NOWAIT))
		return ret;
	/*
	 * As StopTrace, return once the reader has the whole trace. The stop
	 * is done: a signal must not restart the call, which would fail.
	 */
	if (wait_event_interruptible(dev->wq, gotrace_stop_read(dev, session)))
		return -EINTR;
	return 0;
}

/**
 * gotrace_copy_back - copy an ioctl's output structure to user space
 * @uargs: user space's structure
 * @args: the kernel's, its size first
 * @ksize: the kernel's size
 * @usize: user space's size
 *
 * As sched_getattr(): write what both the kernel and user space know, the
 * smaller of their sizes (@ksize, @usize), and say how much in the
 * structure's first field, its size. User space bytes after those are left
 * alone.
 *
 * Return: 0 or -EFAULT.
 */
int gotrace_copy_back(void __user *uargs, void *args, size_t ksize, u32 usize)
{
	u32 *size = args;

	*size = min_t(u32, usize, ksize);
	if (copy_to_user(uargs, args, *size))
		return -EFAULT;
	return 0;
}

static long gotrace_ioctl_status(struct gotrace_dev *dev,
				 struct gotrace_status __user *ust)
{
	struct gotrace_status st = {};
	u32 usize;
	int ret;

	ret = gotrace_arg_size(ust, GOTRACE_STATUS_SIZE_VER0, &usize);
	if (ret)
		return ret;

	mutex_lock(&dev->lock);
	gotrace_session_status(dev, &st);
	mutex_unlock(&dev->lock);
	return gotrace_copy_back(ust, &st, sizeof(st), usize);
}

static long gotrace_ioctl_snapshot(struct gotrace_dev *dev,
				   struct gotrace_snapshot __user *uargs)
{
	struct gotrace_snapshot args;
	u32 usize;
	int ret;

	if (!perfmon_capable())
		return -EPERM;
	ret = gotrace_copy_args(&args, sizeof(args), GOTRACE_SNAPSHOT_SIZE_VER0,
				uargs, &usize);
	if (ret)
		return ret;
	if (args.flags || memchr_inv(args.reserved, 0, sizeof(args.reserved)))
		return -EINVAL;
	mutex_lock(&dev->lock);
	ret = gotrace_flight_snapshot(dev, &args);
	mutex_unlock(&dev->lock);
	return ret ?: gotrace_copy_back(uargs, &args, sizeof(args), usize);
}

static long gotrace_ioctl_trigger(struct gotrace_dev *dev,
				  struct gotrace_trigger __user *uargs)
{
	struct gotrace_trigger args;
	bool requests;
	u32 usize;
	int ret;

	if (!perfmon_capable())
		return -EPERM;
	ret = gotrace_copy_args(&args, sizeof(args), GOTRACE_TRIGGER_SIZE_VER0,
				uargs, &usize);
	if (ret)
		return ret;
	requests = usize >= GOTRACE_TRIGGER_SIZE_VER1;
	if ((args.flags & ~GOTRACE_TRIGGER_FLAGS) ||
	    ((args.flags & GOTRACE_TRIGGER_NOARM) && !requests) ||
	    memchr_inv(args.reserved, 0, sizeof(args.reserved)))
		return -EINVAL;
	ret = gotrace_trig_wait(dev, args.flags, requests, &args);
	return ret ?: gotrace_copy_back(uargs, &args, sizeof(args), usize);
}

static long gotrace_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct gotrace_dev *dev = file->private_data;
	void __user *argp = (void __user *)arg;

	/* Type, number and direction must match; -ENOIOCTLCMD is ENOTTY. */
	switch (GOTRACE_IOC_CMD(cmd)) {
	case GOTRACE_IOC_CMD(GOTRACE_START):
		return gotrace_ioctl_start(dev, argp);
	case GOTRACE_IOC_CMD(GOTRACE_STOP):
		return gotrace_ioctl_stop(dev, argp);
	case GOTRACE_IOC_CMD(GOTRACE_STATUS):
		return gotrace_ioctl_status(dev, argp);
	case GOTRACE_IOC_CMD(GOTRACE_SNAPSHOT):
		return gotrace_ioctl_snapshot(dev, argp);
	case GOTRACE_IOC_CMD(GOTRACE_TRIGGER):
		return gotrace_ioctl_trigger(dev, argp);
	default:
		return -ENOIOCTLCMD;
	}
}

static const struct file_operations gotrace_fops = {
	.owner		= THIS_MODULE,
	.open		= gotrace_open,
	.release	= gotrace_release,
	.read		= gotrace_fop_read,
	.poll		= gotrace_poll,
	.unlocked_ioctl	= gotrace_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice gotrace_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "gotrace",
	.fops	= &gotrace_fops,
	.mode	= 0600,
};

static int __init gotrace_init(void)
{
	int ret;

	ret = gotrace_probes_init();
	if (ret)
		return ret;
	gotrace_session_init(&gotrace_dev);
	ret = misc_register(&gotrace_misc);
	if (ret)
		return ret;
	ret = gotrace_annotate_register(&gotrace_dev);
	if (ret)
		misc_deregister(&gotrace_misc);
	return ret;
}

static void __exit gotrace_exit(void)
{
	gotrace_annotate_deregister();
	misc_deregister(&gotrace_misc);
	mutex_lock(&gotrace_dev.lock);
	gotrace_session_destroy(&gotrace_dev);
	gotrace_probes_detach();
	mutex_unlock(&gotrace_dev.lock);
	gotrace_session_exit(&gotrace_dev);
}

module_init(gotrace_init);
module_exit(gotrace_exit);

MODULE_DESCRIPTION("Linux scheduler activity as a Go execution trace");
MODULE_LICENSE("GPL");
