// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace's second device node, /dev/gotrace-annotate: processes annotate
 * the trace being recorded with tasks, regions and log messages
 * (annotate_events.c records them; uapi/linux/gotrace.h says how).
 *
 * Its mode is 0666: open() itself admits a process with CAP_PERFMON, or in
 * the group the module parameter annotate_gid names. The node has no read()
 * and none of /dev/gotrace's ioctls, so an annotator can neither read the
 * trace nor control the session; it may ask the flight recorder's reader
 * for a snapshot (request.c), which decides. Nothing here allocates: strings are copied
 * into bounded buffers on the stack.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>

#include "annotate_dev.h"
#include "annotate_events.h"
#include "dev.h"
#include "request.h"

static int annotate_gid = -1;
module_param(annotate_gid, int, 0644);
MODULE_PARM_DESC(annotate_gid, "Group whose members may open /dev/gotrace-annotate besides CAP_PERFMON holders (default -1: none)");

/* The first versions end with their reserved fields; new fields follow. */
static_assert(GOTRACE_TASK_BEGIN_SIZE_VER0 ==
	      offsetofend(struct gotrace_task_begin, reserved));
static_assert(GOTRACE_TASK_END_SIZE_VER0 ==
	      offsetofend(struct gotrace_task_end, reserved));
static_assert(GOTRACE_REGION_SIZE_VER0 ==
	      offsetofend(struct gotrace_region, reserved));
static_assert(GOTRACE_LOG_SIZE_VER0 ==
	      offsetofend(struct gotrace_log, reserved));
static_assert(GOTRACE_REQUEST_SIZE_VER0 ==
	      offsetofend(struct gotrace_request, reserved));

/* The device requests go to (gotrace_annotate_register()). */
static struct gotrace_dev *gotrace_annotate_dev;

/* Bytes write() looks at: a category, ": ", a message and a newline. */
#define GOTRACE_ANN_WRITE_MAX	(GOTRACE_ANNOTATE_CATEGORY_MAX + 2 + \
				 GOTRACE_ANNOTATE_STR_MAX + 1)

static int gotrace_annotate_open(struct inode *inode, struct file *file)
{
	int gid = READ_ONCE(annotate_gid);
	kgid_t kgid = make_kgid(&init_user_ns, gid);

	if (!perfmon_capable() && (gid < 0 || !gid_valid(kgid) || !in_group_p(kgid)))
		return -EPERM;
	return nonseekable_open(inode, file);
}

/* Bytes at the start of @p (@n) that make a category, then ": "; else 0. */
static size_t gotrace_annotate_category(const u8 *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < GOTRACE_ANNOTATE_CATEGORY_MAX; i++)
		if (!isalnum(p[i]) && p[i] != '_' && p[i] != '.' && p[i] != '-')
			break;
	return i && i + 2 <= n && p[i] == ':' && p[i + 1] == ' ' ? i : 0;
}

/*
 * "CATEGORY: MESSAGE\n" as one UserLog. Returns the bytes taken, fewer than
 * @count when the message did not fit.
 */
static ssize_t gotrace_annotate_write(struct file *file, const char __user *buf,
				      size_t count, loff_t *ppos)
{
	struct gotrace_ann_str category, message;
	u8 raw[GOTRACE_ANN_WRITE_MAX];
	size_t n = min(count, sizeof(raw)), cat, start, len, taken;
	bool newline = false;
	int ret;

	if (!count)
		return 0;
	if (copy_from_user(raw, buf, n))
		return -EFAULT;
	cat = gotrace_annotate_category(raw, n);
	start = cat ? cat + 2 : 0;
	gotrace_ann_escape(&category, raw, cat);
	len = n - start;
	/* The text's last byte, if a newline, is dropped. */
	if (n == count && len && raw[n - 1] == '\n') {
		newline = true;
		len--;
	}
	taken = gotrace_ann_escape(&message, raw + start, len);
	ret = gotrace_ann_log(0, &category, &message);
	if (ret)
		return ret;
	return start + taken + (taken == len && newline);
}

/*
 * A string an ioctl gives: @len bytes at @uptr, which must fit the trace's
 * GOTRACE_ANNOTATE_STR_MAX once escaped (-EMSGSIZE otherwise).
 */
static int gotrace_annotate_str(struct gotrace_ann_str *dst, u64 uptr, u32 len)
{
	u8 raw[GOTRACE_ANNOTATE_STR_MAX];

	if (len > sizeof(raw))
		return -EMSGSIZE;
	if (copy_from_user(raw, u64_to_user_ptr(uptr), len))
		return -EFAULT;
	return gotrace_ann_escape(dst, raw, len) == len ? 0 : -EMSGSIZE;
}

static long gotrace_annotate_task_begin(struct gotrace_task_begin __user *uargs)
{
	struct gotrace_task_begin args;
	struct gotrace_ann_str name;
	u32 usize;
	int ret;

	ret = gotrace_copy_args(&args, sizeof(args), GOTRACE_TASK_BEGIN_SIZE_VER0,
				uargs, &usize);
	if (ret)
		return ret;
	if (args.flags || args.reserved32 ||
	    memchr_inv(args.reserved, 0, sizeof(args.reserved)))
		return -EINVAL;
	ret = gotrace_annotate_str(&name, args.name, args.name_len);
	if (ret)
		return ret;
	ret = gotrace_ann_task_begin(args.parent, &name, &args.id);
	return ret ?: gotrace_copy_back(uargs, &args, sizeof(args), usize);
}

static long gotrace_annotate_task_end(struct gotrace_task_end __user *uargs)
{
	struct gotrace_task_end args;
	u32 usize;
	int ret;

	ret = gotrace_copy_args(&args, sizeof(args), GOTRACE_TASK_END_SIZE_VER0,
				uargs, &usize);
	if (ret)
		return ret;
	if (args.flags || memchr_inv(args.reserved, 0, sizeof(args.reserved)))
		return -EINVAL;
	return gotrace_ann_task_end(args.id);
}

static long gotrace_annotate_region(struct gotrace_region __user *uargs,
				    bool end)
{
	struct gotrace_ann_str name;
	struct gotrace_region args;
	bool check;
	u32 usize;
	int ret;

	ret = gotrace_copy_args(&args, sizeof(args), GOTRACE_REGION_SIZE_VER0,
				uargs, &usize);
	if (ret)
		return ret;
	if ((args.flags & ~(end ? GOTRACE_REGION_FLAGS : 0)) || args.reserved32 ||
	    memchr_inv(args.reserved, 0, sizeof(args.reserved)))
		return -EINVAL;
	check = !end || (args.flags & GOTRACE_REGION_NAME);
	/* An end names its task by its begin; a name it does not check: none. */
	if (end && (args.task || (!check && (args.name || args.name_len))))
		return -EINVAL;
	if (check) {
		ret = gotrace_annotate_str(&name, args.name, args.name_len);
		if (ret)
			return ret;
	}
	if (!end)
		return gotrace_ann_region_begin(args.task, &name);
	return gotrace_ann_region_end(check ? &name : NULL);
}

static long gotrace_annotate_log(struct gotrace_log __user *uargs)
{
	struct gotrace_ann_str category, message;
	struct gotrace_log args;
	u32 usize;
	int ret;

	ret = gotrace_copy_args(&args, sizeof(args), GOTRACE_LOG_SIZE_VER0,
				uargs, &usize);
	if (ret)
		return ret;
	if (args.flags || memchr_inv(args.reserved, 0, sizeof(args.reserved)))
		return -EINVAL;
	ret = gotrace_annotate_str(&category, args.category, args.category_len);
	if (!ret)
		ret = gotrace_annotate_str(&message, args.message, args.message_len);
	return ret ?: gotrace_ann_log(args.task, &category, &message);
}

static long gotrace_annotate_request(struct gotrace_request __user *uargs)
{
	u8 reason[GOTRACE_REQUEST_REASON_MAX];
	struct gotrace_request args;
	u32 usize;
	int ret;

	ret = gotrace_copy_args(&args, sizeof(args), GOTRACE_REQUEST_SIZE_VER0,
				uargs, &usize);
	if (ret)
		return ret;
	if (args.flags || args.reserved32 || !args.reason_len ||
	    memchr_inv(args.reserved, 0, sizeof(args.reserved)))
		return -EINVAL;
	if (args.reason_len > sizeof(reason))
		return -EMSGSIZE;
	if (copy_from_user(reason, u64_to_user_ptr(args.reason), args.reason_len))
		return -EFAULT;
	return gotrace_req_post(gotrace_annotate_dev, reason, args.reason_len);
}

static long gotrace_annotate_ioctl(struct file *file, unsigned int cmd,
				   unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	/* As /dev/gotrace's: -ENOIOCTLCMD is ENOTTY. */
	switch (GOTRACE_IOC_CMD(cmd)) {
	case GOTRACE_IOC_CMD(GOTRACE_TASK_BEGIN):
		return gotrace_annotate_task_begin(argp);
	case GOTRACE_IOC_CMD(GOTRACE_TASK_END):
		return gotrace_annotate_task_end(argp);
	case GOTRACE_IOC_CMD(GOTRACE_REGION_BEGIN):
		return gotrace_annotate_region(argp, false);
	case GOTRACE_IOC_CMD(GOTRACE_REGION_END):
		return gotrace_annotate_region(argp, true);
	case GOTRACE_IOC_CMD(GOTRACE_LOG):
		return gotrace_annotate_log(argp);
	case GOTRACE_IOC_CMD(GOTRACE_REQUEST):
		return gotrace_annotate_request(argp);
	default:
		return -ENOIOCTLCMD;
	}
}

static const struct file_operations gotrace_annotate_fops = {
	.owner		= THIS_MODULE,
	.open		= gotrace_annotate_open,
	.write		= gotrace_annotate_write,
	.unlocked_ioctl	= gotrace_annotate_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice gotrace_annotate_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "gotrace-annotate",
	.fops	= &gotrace_annotate_fops,
	.mode	= 0666,
};

/**
 * gotrace_annotate_register - create /dev/gotrace-annotate
 * @dev: /dev/gotrace's device, which snapshot requests go to
 *
 * Return: 0 or the error of misc_register().
 */
int gotrace_annotate_register(struct gotrace_dev *dev)
{
	gotrace_annotate_dev = dev;
	return misc_register(&gotrace_annotate_misc);
}

/**
 * gotrace_annotate_deregister - remove /dev/gotrace-annotate
 *
 * No annotation runs once this returns: a file still open keeps the module
 * loaded (the fops' owner).
 */
void gotrace_annotate_deregister(void)
{
	misc_deregister(&gotrace_annotate_misc);
}
