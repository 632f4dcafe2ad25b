/* SPDX-License-Identifier: GPL-2.0 */
/* User annotations: a session's tasks, regions, strings and their events (annotate_events.c). */
#ifndef _GOTRACE_ANNOTATE_EVENTS_H
#define _GOTRACE_ANNOTATE_EVENTS_H

#include <linux/types.h>
#include <linux/gotrace.h>

struct gotrace_ann;

/*
 * A string as the trace shows it, with its length: at most
 * GOTRACE_ANNOTATE_STR_MAX bytes, no NUL (see gotrace_ann_escape()).
 */
struct gotrace_ann_str {
	u32 len;
	char buf[GOTRACE_ANNOTATE_STR_MAX + 1];
};

struct gotrace_ann *gotrace_ann_alloc(void);
void gotrace_ann_free(struct gotrace_ann *a);
u32 gotrace_ann_strings(struct gotrace_ann *a);
const char *gotrace_ann_string(struct gotrace_ann *a, u32 i);

size_t gotrace_ann_escape(struct gotrace_ann_str *dst, const u8 *src,
			  size_t len);

int gotrace_ann_task_begin(u64 parent, const struct gotrace_ann_str *name,
			   u64 *id);
int gotrace_ann_task_end(u64 id);
int gotrace_ann_region_begin(u64 task, const struct gotrace_ann_str *name);
int gotrace_ann_region_end(const struct gotrace_ann_str *name);
int gotrace_ann_log(u64 task, const struct gotrace_ann_str *category,
		    const struct gotrace_ann_str *message);

#endif /* _GOTRACE_ANNOTATE_EVENTS_H */
