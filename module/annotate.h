/* SPDX-License-Identifier: GPL-2.0 */
/* The /dev/gotrace-annotate device: user annotations in (annotate.c). */
#ifndef _GOTRACE_ANNOTATE_H
#define _GOTRACE_ANNOTATE_H

int gotrace_annotate_register(void);
void gotrace_annotate_deregister(void);

#endif /* _GOTRACE_ANNOTATE_H */
