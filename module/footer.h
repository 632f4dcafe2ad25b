/* SPDX-License-Identifier: GPL-2.0 */
/* The trace's footer: strings, stacks and frequency after the last batch (footer.c). */
#ifndef _GOTRACE_FOOTER_H
#define _GOTRACE_FOOTER_H

#include <linux/types.h>
#include <linux/gotrace.h>
#include "programs.h"
#include "reasons.h"

struct gotrace_session;

/*
 * String ids and frame keys (PCs) of the footer: cheap frames' file, the
 * words of reasons in order of first use (the reason a block carries in
 * formats 1.22 and later: first, so that most fit in a one-byte varint),
 * one string per reason, one per program, the strings of user annotations
 * (annotate_events.c), then function and file of each distinct kernel frame.
 */
#define GOTRACE_STR_FILE	1
#define GOTRACE_STR_WORD(i)	(2 + (i))
#define GOTRACE_STR_REASON(r)	GOTRACE_STR_WORD(GOTRACE_R_NR + (r))
#define GOTRACE_STR_PROG(p)	GOTRACE_STR_REASON(GOTRACE_R_NR + (p))
#define GOTRACE_STR_USER(i)	(GOTRACE_STR_PROG(GOTRACE_PROG_MAX) + (i))
#define GOTRACE_STR_KFUNC(i)	(GOTRACE_STR_USER(GOTRACE_ANNOTATE_STRINGS) + 2 * (i))
#define GOTRACE_STR_KFILE(i)	(GOTRACE_STR_KFUNC(i) + 1)
#define GOTRACE_PC_REASON(r)	(1 + (r))
#define GOTRACE_PC_PROG(p)	(1 + GOTRACE_R_NR + (p))
#define GOTRACE_PC_KFRAME(i)	(GOTRACE_PC_PROG(GOTRACE_PROG_MAX) + (i))

/* Phases of the footer's generation (footer.c), in order. */
enum gotrace_footer_phase {
	GOTRACE_F_UNPREPARED,	/* with generations: tables not set up yet */
	GOTRACE_F_HEAD,
	GOTRACE_F_SAMPLES,	/* with generations: CPU samples (samples.c) */
	GOTRACE_F_FILE,
	GOTRACE_F_REASONS,
	GOTRACE_F_PROGS,
	GOTRACE_F_WORDS,
	GOTRACE_F_USER,
	GOTRACE_F_KFRAMES,
	GOTRACE_F_STACKS,
	GOTRACE_F_KSTACKS,
	GOTRACE_F_END,
	GOTRACE_F_DONE,
};

/* The footer is generated a page at a time. */
#define GOTRACE_FOOTER_PAGE	PAGE_SIZE

void gotrace_footer_prepare(struct gotrace_session *s, u64 ts);
size_t gotrace_footer_fill(struct gotrace_session *s);

#endif /* _GOTRACE_FOOTER_H */
