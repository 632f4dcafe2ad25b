/* SPDX-License-Identifier: GPL-2.0 */
/* The /dev/gotrace-annotate device: user annotations in (annotate_dev.c). */
#ifndef _GOTRACE_ANNOTATE_DEV_H
#define _GOTRACE_ANNOTATE_DEV_H

struct gotrace_dev;

int gotrace_annotate_register(struct gotrace_dev *dev);
void gotrace_annotate_deregister(void);

#endif /* _GOTRACE_ANNOTATE_DEV_H */
