// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace footer: frequency, strings and the stack table, after the batches.
 *
 * Its layout is that of Go 1.19 to 1.21's ReadTrace, whatever the format
 * the header names: a batch (P 0, no events) opens it, so that readers that
 * decode strings only inside batches see them. Go 1.11 to 1.18 wrote the
 * Frequency event outside any batch; Go's parsers read it in either place.
 * The footer is generated a page at a time as the reader asks for it, from
 * the session's tables, so stopping a trace allocates nothing.
 *
 * String ids: 1 is the file name of cheap frames, then one per reason, then
 * one per program, then two per kernel frame (kstacks.c). A cheap stack is
 * [reason, program], or [program] for the stack a goroutine is created
 * with; its frames' PCs are keys (a reason's, then a program's), never
 * addresses.
 */

#include <linux/bitmap.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "encode.h"
#include "footer.h"
#include "kstacks.h"
#include "programs.h"
#include "reasons.h"
#include "session.h"
#include "stacks.h"

/* Largest record generated at once: two strings, or a stack. */
#define GOTRACE_RECORD_MAX	(2 * (GOTRACE_STRING_MAX + 16))

enum gotrace_footer_phase {
	GOTRACE_F_HEAD,
	GOTRACE_F_FILE,
	GOTRACE_F_REASONS,
	GOTRACE_F_PROGS,
	GOTRACE_F_STACKS,
	GOTRACE_F_KFRAMES,
	GOTRACE_F_KSTACKS,
	GOTRACE_F_DONE,
};

static u8 *gotrace_put_stack(u8 *p, u32 id, u32 key)
{
	u32 prog = gotrace_stack_key_prog(key);
	u32 reason = gotrace_stack_key_reason(key);
	u8 *lenp;

	/* Two frames at most. */
	BUILD_BUG_ON(GOTRACE_STACK_HEAD_MAX + 2 * GOTRACE_FRAME_MAX >=
		     GOTRACE_LEN_LIMIT(GOTRACE_LEN_1));
	p = gotrace_put_len_start(p, GO_EV_STACK, GOTRACE_LEN_1, &lenp);
	p = gotrace_put_uvarint(p, id);
	p = gotrace_put_uvarint(p, reason == GOTRACE_R_THREAD ? 1 : 2);
	if (reason != GOTRACE_R_THREAD)
		p = gotrace_put_frame(p, GOTRACE_PC_REASON(reason),
				      GOTRACE_STR_REASON(reason), GOTRACE_STR_FILE);
	p = gotrace_put_frame(p, GOTRACE_PC_PROG(prog), GOTRACE_STR_PROG(prog),
			      GOTRACE_STR_FILE);
	gotrace_put_len(lenp, p, GOTRACE_LEN_1);
	return p;
}

/* Emit one record of the current phase at @p, or move to the next phase. */
static u8 *gotrace_footer_step(struct gotrace_session *s, u8 *p)
{
	char buf[GOTRACE_LABEL_LEN];
	u32 i = s->footer_pos;
	u8 *end;

	switch (s->footer_phase) {
	case GOTRACE_F_HEAD:
		p = gotrace_put_batch(p, 0, s->end_ts);
		*p++ = GO_EV_FREQUENCY;
		p = gotrace_put_uvarint(p, s->ts_freq);
		break;
	case GOTRACE_F_FILE:
		p = gotrace_put_string(p, GOTRACE_STR_FILE, "linux");
		break;
	case GOTRACE_F_REASONS:
		i = find_next_bit(s->reasons_used, GOTRACE_R_NR, i);
		if (i < GOTRACE_R_NR) {
			p = gotrace_put_string(p, GOTRACE_STR_REASON(i),
					       gotrace_reason_name(i, buf, sizeof(buf)));
			s->footer_pos = i + 1;
			return p;
		}
		break;
	case GOTRACE_F_PROGS:
		if (i < gotrace_progs_count(s->progs)) {
			p = gotrace_put_string(p, GOTRACE_STR_PROG(i),
					       gotrace_prog_label(s->progs, i, buf));
			s->footer_pos = i + 1;
			return p;
		}
		break;
	case GOTRACE_F_STACKS:
		/* footer_pos: the ids written; the full one last, if used. */
		if (i < gotrace_stacks_count(s->stacks)) {
			p = gotrace_put_stack(p, i + 1,
					      gotrace_stacks_key(s->stacks, i + 1));
			s->footer_pos = i + 1;
			return p;
		}
		if (i == gotrace_stacks_count(s->stacks) &&
		    gotrace_stacks_full(s->stacks)) {
			p = gotrace_put_stack(p, GOTRACE_STACK_FULL,
					      gotrace_stack_key(GOTRACE_PROG_OTHER,
								GOTRACE_R_FULL));
			s->footer_pos = i + 1;
			return p;
		}
		break;
	case GOTRACE_F_KFRAMES:
		end = s->kstacks ? gotrace_kstacks_frame(s, i, p) : NULL;
		if (end) {
			s->footer_pos = i + 1;
			return end;
		}
		break;
	case GOTRACE_F_KSTACKS:
		end = s->kstacks ? gotrace_kstacks_stack(s, &s->footer_pos, p) : NULL;
		if (end)
			return end;
		break;
	}
	s->footer_phase++;
	s->footer_pos = 0;
	return p;
}

/**
 * gotrace_footer_prepare - set up the footer once recording has stopped
 * @s: the session; no probe runs anymore
 * @ts: time stamp of the footer's batch
 */
void gotrace_footer_prepare(struct gotrace_session *s, u64 ts)
{
	u32 id, n = gotrace_stacks_count(s->stacks);

	s->end_ts = ts;
	s->footer_phase = GOTRACE_F_HEAD;
	s->footer_pos = 0;
	for (id = 1; id <= n; id++)
		__set_bit((gotrace_stacks_key(s->stacks, id) - 1) % GOTRACE_R_NR,
			  s->reasons_used);
	if (gotrace_stacks_full(s->stacks))
		__set_bit(GOTRACE_R_FULL, s->reasons_used);
	if (s->kstacks)
		gotrace_kstacks_prepare(s);
}

/**
 * gotrace_footer_fill - generate the next page of the footer
 * @s: the session
 *
 * Return: bytes generated into s->footer, 0 once the footer is complete.
 */
size_t gotrace_footer_fill(struct gotrace_session *s)
{
	u8 *p = s->footer;

	while (s->footer_phase != GOTRACE_F_DONE &&
	       p - s->footer <= GOTRACE_FOOTER_PAGE - GOTRACE_RECORD_MAX)
		p = gotrace_footer_step(s, p);
	return p - s->footer;
}
