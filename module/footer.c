// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace footer: frequency, strings and the stack table, after the batches.
 *
 * Like Go's ReadTrace, the footer opens a batch (P 0, no events) so that
 * readers that decode strings only inside batches see them. It is generated
 * a page at a time as the reader asks for it, from the session's tables, so
 * stopping a trace allocates nothing.
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

#include "gotrace.h"

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

/*
 * The first cheap stack id from @id on that was written, or
 * GOTRACE_STACKS_NR: the summary finds the words with a bit set.
 */
static u32 gotrace_stack_next(struct gotrace_session *s, u32 id)
{
	unsigned long w, bits;

	if (id >= GOTRACE_STACKS_NR)
		return GOTRACE_STACKS_NR;
	w = BIT_WORD(id);
	for_each_set_bit_from(w, s->stacks_words, GOTRACE_STACKS_WORDS) {
		bits = s->stacks_used[w];
		if (w == BIT_WORD(id))
			bits &= BITMAP_FIRST_WORD_MASK(id);
		if (bits)
			return min_t(u32, w * BITS_PER_LONG + __ffs(bits),
				     GOTRACE_STACKS_NR);
	}
	return GOTRACE_STACKS_NR;
}

static u8 *gotrace_put_stack(u8 *p, u32 id)
{
	u32 prog = (id - 1) / GOTRACE_R_NR, reason = (id - 1) % GOTRACE_R_NR;
	u8 *lenp, *body;

	*p++ = GO_EV_STACK | 3 << 6;
	lenp = p++;
	body = p;
	p = gotrace_put_uvarint(p, id);
	p = gotrace_put_uvarint(p, reason == GOTRACE_R_THREAD ? 1 : 2);
	if (reason != GOTRACE_R_THREAD)
		p = gotrace_put_frame(p, GOTRACE_PC_REASON(reason),
				      GOTRACE_STR_REASON(reason), GOTRACE_STR_FILE);
	p = gotrace_put_frame(p, GOTRACE_PC_PROG(prog), GOTRACE_STR_PROG(prog),
			      GOTRACE_STR_FILE);
	*lenp = p - body;
	return p;
}

/* Emit one record of the current phase at @p, or move to the next phase. */
static u8 *gotrace_footer_step(struct gotrace_session *s, u8 *p)
{
	char buf[24];
	u32 i = s->footer_pos;
	u8 *end;

	switch (s->footer_phase) {
	case GOTRACE_F_HEAD:
		*p++ = GO_EV_BATCH | 1 << 6;
		p = gotrace_put_uvarint(p, 0);
		p = gotrace_put_uvarint(p, s->end_ts);
		*p++ = GO_EV_FREQUENCY;
		p = gotrace_put_uvarint(p, GOTRACE_TS_FREQ);
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
					       gotrace_prog_name(s->progs, i));
			s->footer_pos = i + 1;
			return p;
		}
		break;
	case GOTRACE_F_STACKS:
		i = gotrace_stack_next(s, i);
		if (i < GOTRACE_STACKS_NR) {
			p = gotrace_put_stack(p, i);
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
	u32 id;

	s->end_ts = ts;
	s->footer_phase = GOTRACE_F_HEAD;
	s->footer_pos = 0;
	for (id = gotrace_stack_next(s, 0); id < GOTRACE_STACKS_NR;
	     id = gotrace_stack_next(s, id + 1))
		__set_bit((id - 1) % GOTRACE_R_NR, s->reasons_used);
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
