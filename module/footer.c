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
 * With generations (formats 1.22 and later), each generation ends with
 * such tables, as Go writes them: a batch with the frequency (and from 1.25
 * the clock snapshot, after a Sync), batches of strings, batches of stacks,
 * each a page at most, then (from 1.26) EndOfGeneration; CPU samples'
 * batches, if any, follow the first (samples.c). They are written
 * while probes run: every id an event of the generation uses was complete
 * when the generation closed; later ones may be half written, and a stack
 * that names a program or reason the strings did not is left out.
 *
 * String ids: 1 is the file name of cheap frames, then one per reason, then
 * one per program, then those of user annotations (annotate_events.c), then two
 * per kernel frame (kstacks.c). A cheap stack is [reason, program], or
 * [program] for the stack a goroutine is created with; its frames' PCs are
 * keys (a reason's, then a program's), never addresses.
 */

#include <linux/bitmap.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/ktime.h>

#include "annotate_events.h"
#include "clock.h"
#include "encode_oldtrace.h"
#include "encode_tracev2.h"
#include "flight.h"
#include "footer.h"
#include "kstacks.h"
#include "programs.h"
#include "reasons.h"
#include "samples.h"
#include "session.h"
#include "stacks.h"

/* Largest record generated at once: two strings, or a stack. */
#define GOTRACE_RECORD_MAX	(2 * (GOTRACE_STRING_MAX + 16))

static u8 *gotrace_put_stack(u8 *p, u32 id, u32 key, bool v2)
{
	u32 prog = gotrace_stack_key_prog(key);
	u32 reason = gotrace_stack_key_reason(key);
	u8 *lenp;

	/* Two frames at most. */
	BUILD_BUG_ON(GOTRACE_STACK_HEAD_MAX + 2 * GOTRACE_FRAME_MAX >=
		     GOTRACE_LEN_LIMIT(GOTRACE_LEN_1));
	p = gotrace_put_stack_head(p, id, reason == GOTRACE_R_THREAD ? 1 : 2,
				   GOTRACE_LEN_1, v2, &lenp);
	if (reason != GOTRACE_R_THREAD)
		p = gotrace_put_frame(p, GOTRACE_PC_REASON(reason),
				      GOTRACE_STR_REASON(reason), GOTRACE_STR_FILE);
	p = gotrace_put_frame(p, GOTRACE_PC_PROG(prog), GOTRACE_STR_PROG(prog),
			      GOTRACE_STR_FILE);
	if (lenp)
		gotrace_put_len(lenp, p, GOTRACE_LEN_1);
	return p;
}

/*
 * Stack @id, if the tables have its strings: set up with them, or stable
 * since (the stop's footer, or a closed generation's).
 */
static bool gotrace_footer_has_stack(struct gotrace_session *s, u32 key)
{
	return key && gotrace_stack_key_prog(key) < s->footer.tbl_progs &&
	       test_bit(gotrace_stack_key_reason(key), s->reasons_used);
}

/* Emit one record of the current phase at @p, or move to the next phase. */
static u8 *gotrace_footer_step(struct gotrace_session *s, u8 *p)
{
	char buf[GOTRACE_LABEL_LEN];
	u32 i = s->footer.pos;
	u8 *end;

	switch (s->footer.phase) {
	case GOTRACE_F_HEAD:
		p = gotrace_put_batch(p, 0, s->end_ts);
		*p++ = GO_EV_FREQUENCY;
		p = gotrace_put_uvarint(p, s->ts_freq);
		break;
	case GOTRACE_F_FILE:
		p = gotrace_put_string(p, GOTRACE_STR_FILE, "linux", s->v2);
		break;
	case GOTRACE_F_REASONS:
		i = find_next_bit(s->reasons_used, GOTRACE_R_NR, i);
		if (i < GOTRACE_R_NR) {
			p = gotrace_put_string(p, GOTRACE_STR_REASON(i),
					       gotrace_reason_name(i, buf, sizeof(buf)),
					       s->v2);
			s->footer.pos = i + 1;
			return p;
		}
		break;
	case GOTRACE_F_PROGS:
		if (i < s->footer.tbl_progs) {
			p = gotrace_put_string(p, GOTRACE_STR_PROG(i),
					       gotrace_prog_label(s->progs, i, buf),
					       s->v2);
			s->footer.pos = i + 1;
			return p;
		}
		break;
	case GOTRACE_F_WORDS:
		for (; i < GOTRACE_R_NR; i++) {
			u16 id = READ_ONCE(s->word_ids[i]);

			if (id) {
				s->footer.pos = i + 1;
				return gotrace_put_string(p, id,
							  gotrace_reason_word(i, buf, sizeof(buf)),
							  s->v2);
			}
		}
		break;
	case GOTRACE_F_USER:
		if (i < s->footer.tbl_ustrs) {
			s->footer.pos = i + 1;
			return gotrace_put_string(p, GOTRACE_STR_USER(i),
						  gotrace_ann_string(s->ann, i), s->v2);
		}
		break;
	case GOTRACE_F_STACKS:
		/* footer.pos: the ids looked at; the full one last, if used. */
		for (; i < s->footer.tbl_stacks; i++) {
			u32 key = gotrace_stacks_key(s->stacks, i + 1);

			if (gotrace_footer_has_stack(s, key)) {
				s->footer.pos = i + 1;
				return gotrace_put_stack(p, i + 1, key, s->v2);
			}
		}
		if (i == s->footer.tbl_stacks && READ_ONCE(s->stacks->full)) {
			p = gotrace_put_stack(p, GOTRACE_STACK_FULL,
					      gotrace_stack_key(GOTRACE_PROG_OTHER,
								GOTRACE_R_FULL),
					      s->v2);
			s->footer.pos = i + 1;
			return p;
		}
		break;
	case GOTRACE_F_KFRAMES:
		end = s->kstacks ? gotrace_kstacks_frame(s, i, p) : NULL;
		if (end) {
			s->footer.pos = i + 1;
			return end;
		}
		break;
	case GOTRACE_F_KSTACKS:
		end = s->kstacks ? gotrace_kstacks_stack(s, &s->footer.pos, p) : NULL;
		if (end)
			return end;
		break;
	}
	s->footer.phase++;
	s->footer.pos = 0;
	return p;
}

/**
 * gotrace_footer_prepare - set up the footer once recording has stopped, or
 * with generations the tables of the generation being read once it closed
 * @s: the session
 * @ts: time stamp of the footer's batches
 */
void gotrace_footer_prepare(struct gotrace_session *s, u64 ts)
{
	u32 id, key;

	s->end_ts = ts;
	s->footer.phase = GOTRACE_F_HEAD;
	s->footer.pos = 0;
	s->footer.tbl_progs = gotrace_progs_count(s->progs);
	s->footer.tbl_stacks = gotrace_stacks_count(s->stacks);
	s->footer.tbl_ustrs = gotrace_ann_strings(s->ann);
	for (id = 1; id <= s->footer.tbl_stacks; id++) {
		key = gotrace_stacks_key(s->stacks, id);
		if (key && gotrace_stack_key_prog(key) < s->footer.tbl_progs)
			__set_bit(gotrace_stack_key_reason(key), s->reasons_used);
	}
	if (READ_ONCE(s->stacks->full))
		__set_bit(GOTRACE_R_FULL, s->reasons_used);
	if (s->kstacks)
		gotrace_kstacks_prepare(s);
}

/* Room for a record after @p in the footer's page. */
static bool gotrace_footer_room(struct gotrace_session *s, const u8 *p)
{
	return p - s->footer.page <= GOTRACE_FOOTER_PAGE - GOTRACE_RECORD_MAX;
}

/*
 * A clock snapshot's two readings: now in trace ticks, and CLOCK_MONOTONIC
 * at that instant. With the monotonic clock the ticks are its nanoseconds
 * >> GOTRACE_TS_SHIFT, so one reading gives both exactly; the TSC is read
 * between two monotonic readings and paired with their midpoint, so that a
 * reader maps trace time to CLOCK_MONOTONIC within half their distance.
 */
static void gotrace_footer2_clocks(struct gotrace_session *s, u64 *ticks, u64 *mono)
{
	u64 before;

	if (s->clock == GOTRACE_CLOCK_MONO) {
		*mono = ktime_get_mono_fast_ns();
		*ticks = *mono >> GOTRACE_TS_SHIFT;
		return;
	}
	before = ktime_get_mono_fast_ns();
	*ticks = gotrace_clock(s);
	*mono = before + (ktime_get_mono_fast_ns() - before) / 2;
}

/*
 * With generations: the batch with the frequency, and from 1.25 on a
 * clock snapshot after a Sync (trace time, CLOCK_MONOTONIC and the wall
 * clock, read now).
 */
static u8 *gotrace_footer2_sync(struct gotrace_session *s, u8 *p)
{
	struct timespec64 wall;
	u64 ticks, mono;
	u8 *lenp;

	p = gotrace2_put_batch(p, s->rd.gen, 0, s->end_ts, &lenp);
	/* Go 1.25's Sync and ClockSnapshot. */
	if (s->format >= GOTRACE_FORMAT_1_25)
		*p++ = GO2_EV_SYNC;
	*p++ = GO2_EV_FREQUENCY;
	p = gotrace_put_uvarint(p, s->ts_freq);
	if (s->format >= GOTRACE_FORMAT_1_25) {
		gotrace_footer2_clocks(s, &ticks, &mono);
		ktime_get_real_ts64(&wall);
		*p++ = GO2_EV_CLOCK_SNAPSHOT;
		p = gotrace_put_uvarint(p, ticks > s->end_ts ? ticks - s->end_ts : 0);
		p = gotrace_put_uvarint(p, mono);
		p = gotrace_put_uvarint(p, wall.tv_sec);
		p = gotrace_put_uvarint(p, wall.tv_nsec);
	}
	gotrace_put_len(lenp, p, GOTRACE_LEN_2);
	return p;
}

/* The page of tables a generation (formats 1.22 and later) has next. */
static size_t gotrace_footer2_fill(struct gotrace_session *s)
{
	u8 *p = s->footer.page, *lenp;
	size_t len;
	u32 kind;

	switch (s->footer.phase) {
	case GOTRACE_F_DONE:
		return 0;
	case GOTRACE_F_HEAD:
		s->footer.phase++;
		return gotrace_footer2_sync(s, p) - s->footer.page;
	case GOTRACE_F_END:
		s->footer.phase = GOTRACE_F_DONE;
		/* EndOfGeneration came with Go 1.26. */
		if (s->format < GOTRACE_FORMAT_1_26)
			return 0;
		*p = GO2_EV_END_OF_GENERATION;
		return 1;
	}
	if (s->footer.phase == GOTRACE_F_SAMPLES) {
		/* A flight recorder's snapshot has its own copy of them. */
		len = gotrace_samples_batch(s, s->flight.snap ? s->flight.snap->samples :
					    s->samples.rings,
					    s->footer.page, GOTRACE_FOOTER_PAGE);
		if (len)
			return len;
		s->footer.phase++;
		s->footer.pos = 0;
	}
	/* Strings, then stacks: a batch holds one kind. */
	kind = s->footer.phase < GOTRACE_F_STACKS ? GO2_EV_STRINGS : GO2_EV_STACKS;
	p = gotrace2_put_batch(p, s->rd.gen, 0, s->end_ts, &lenp);
	*p++ = kind;
	while (s->footer.phase < GOTRACE_F_END && gotrace_footer_room(s, p) &&
	       (s->footer.phase < GOTRACE_F_STACKS ? GO2_EV_STRINGS : GO2_EV_STACKS) == kind)
		p = gotrace_footer_step(s, p);
	gotrace_put_len(lenp, p, GOTRACE_LEN_2);
	return p - s->footer.page;
}

/**
 * gotrace_footer_fill - generate the next page of the footer
 * @s: the session
 *
 * Return: bytes generated into s->footer.page, 0 once the footer (with
 * generations, the tables of the generation being read) is complete.
 */
size_t gotrace_footer_fill(struct gotrace_session *s)
{
	u8 *p = s->footer.page;

	/* With generations, a generation's tables; else the one footer. */
	if (s->v2)
		return gotrace_footer2_fill(s);
	while (s->footer.phase < GOTRACE_F_END && gotrace_footer_room(s, p))
		p = gotrace_footer_step(s, p);
	if (s->footer.phase == GOTRACE_F_END)
		s->footer.phase = GOTRACE_F_DONE;
	return p - s->footer.page;
}
