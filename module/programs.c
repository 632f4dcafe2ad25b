// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace programs: the names threads run under (their comm), as dense ids.
 *
 * A fixed open-addressing table, allocated with the session, maps a name to
 * a small id in order of first appearance; ids key the cheap stacks. Probes
 * insert without a lock (slots.h). Past GOTRACE_PROG_MAX names, new ones
 * share the id GOTRACE_PROG_OTHER.
 *
 * A thread may take any name prctl(PR_SET_NAME) accepts: empty, control
 * characters, bytes that are not UTF-8. The trace shows labels instead
 * (gotrace_prog_label()): readable, never empty, one per name. gotrace's
 * own stand-ins are longer than any name (TASK_COMM_LEN - 1 bytes), so no
 * thread can take one.
 */

#include <linux/atomic.h>
#include <linux/jhash.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "gfp.h"
#include "programs.h"
#include "slots.h"

#define GOTRACE_PROG_SLOTS	(2 * GOTRACE_PROG_MAX)

/**
 * struct gotrace_prog - a slot of the table
 * @comm:	the name, NUL-padded.
 * @id:		its id.
 * @state:	enum gotrace_slot_state; @comm and @id are valid once READY.
 */
struct gotrace_prog {
	char comm[TASK_COMM_LEN];
	u32 id;
	int state;
};

/**
 * struct gotrace_progs - the table
 * @next:	the next id to hand out.
 * @by_id:	slot of each id handed out.
 * @slot:	the hash table.
 */
struct gotrace_progs {
	atomic_t next;
	u16 by_id[GOTRACE_PROG_MAX];
	struct gotrace_prog slot[GOTRACE_PROG_SLOTS];
};

/* Labels of the reserved ids: longer than any name, so no thread's. */
static const char *const gotrace_prog_stand_ins[GOTRACE_PROG_FIRST] = {
	[GOTRACE_PROG_IRQ]	= "(interrupt context)",
	[GOTRACE_PROG_OTHER]	= "(other programs)",
	[GOTRACE_PROG_UNTRACED]	= "(untraced thread)",
};

/**
 * gotrace_progs_alloc - an empty table
 *
 * Return: the table, or NULL if it cannot be allocated. Its first new id is
 * GOTRACE_PROG_FIRST: the reserved ids GOTRACE_PROG_IRQ, GOTRACE_PROG_OTHER
 * and GOTRACE_PROG_UNTRACED get labels but no hash slot, so no thread's name
 * can map to them.
 */
struct gotrace_progs *gotrace_progs_alloc(void)
{
	struct gotrace_progs *pt = kvzalloc(sizeof(*pt), GOTRACE_GFP);

	if (!pt)
		return NULL;
	atomic_set(&pt->next, GOTRACE_PROG_FIRST);
	return pt;
}

/**
 * gotrace_progs_free - free a table
 * @pt: the table, or NULL
 */
void gotrace_progs_free(struct gotrace_progs *pt)
{
	kvfree(pt);
}

static u32 gotrace_prog_claim(struct gotrace_progs *pt, u32 idx,
			      const char *key)
{
	struct gotrace_prog *slot = &pt->slot[idx];
	u32 id = atomic_inc_return(&pt->next) - 1;

	if (id >= GOTRACE_PROG_MAX)
		id = GOTRACE_PROG_OTHER;
	memcpy(slot->comm, key, TASK_COMM_LEN);
	slot->id = id;
	if (id != GOTRACE_PROG_OTHER)
		pt->by_id[id] = idx;
	gotrace_slot_publish(&slot->state);
	return id;
}

/**
 * gotrace_prog_id - the id of a program name, added if new
 * @pt: the table
 * @comm: the name (a task's comm, or the new name of a rename)
 *
 * Call with interrupts off.
 *
 * Return: the name's id; GOTRACE_PROG_OTHER if the ids ran out
 * (GOTRACE_PROG_MAX) or the name found no free slot in the hash table.
 */
u32 gotrace_prog_id(struct gotrace_progs *pt, const char *comm)
{
	char key[TASK_COMM_LEN];
	u32 idx, i;

	strscpy_pad(key, comm, sizeof(key));
	idx = jhash(key, sizeof(key), 0) % GOTRACE_PROG_SLOTS;
	for (i = 0; i < GOTRACE_PROG_SLOTS; i++) {
		struct gotrace_prog *slot = &pt->slot[idx];

		if (gotrace_slot_claim(&slot->state))
			return gotrace_prog_claim(pt, idx, key);
		if (!memcmp(slot->comm, key, sizeof(key)))
			return slot->id;
		if (++idx == GOTRACE_PROG_SLOTS)
			idx = 0;
	}
	return GOTRACE_PROG_OTHER;
}

/**
 * gotrace_utf8_len - the length of a valid UTF-8 sequence of 2 to 4 bytes
 * @p: its first byte, not ASCII
 * @n: bytes at @p
 *
 * Return: its length, or 0 if @p starts none within @n bytes.
 */
size_t gotrace_utf8_len(const u8 *p, size_t n)
{
	size_t len, i;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* No overlong forms, surrogates or code points past U+10FFFF. */
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return len;
}

/**
 * gotrace_prog_label - the label the trace shows for a program id
 * @pt: the table; no probe may still insert (the footer is being written)
 * @id: an id returned by gotrace_prog_id()
 * @buf: room for GOTRACE_LABEL_LEN bytes
 *
 * The name as it is, but for a backslash, a control character or a byte
 * that is not UTF-8, each written as \\ or \xNN so that two names never
 * share a label; an empty name is "(thread with no name)". Reserved ids
 * have stand-ins of their own.
 *
 * Return: @buf, or a stand-in.
 */
const char *gotrace_prog_label(struct gotrace_progs *pt, u32 id, char *buf)
{
	const char *comm;
	const u8 *name;
	size_t n, i = 0, len;
	char *p = buf;

	if (id < GOTRACE_PROG_FIRST)
		return gotrace_prog_stand_ins[id];
	comm = pt->slot[pt->by_id[id]].comm;
	name = (const u8 *)comm;
	n = strnlen(comm, TASK_COMM_LEN);
	if (!n)
		return strcpy(buf, "(thread with no name)");
	while (i < n) {
		u8 c = name[i];

		len = c < 0x80 ? c >= 0x20 && c != 0x7f && c != '\\' :
			gotrace_utf8_len(name + i, n - i);
		if (len) {
			memcpy(p, name + i, len);
			p += len;
			i += len;
		} else {
			p += c == '\\' ? sprintf(p, "\\\\") : sprintf(p, "\\x%02x", c);
			i++;
		}
	}
	*p = 0;
	return buf;
}

/**
 * gotrace_progs_count - ids handed out, reserved ones included
 * @pt: the table
 *
 * Return: the count, at most GOTRACE_PROG_MAX; the ids in use are 0 to the
 * count - 1.
 */
u32 gotrace_progs_count(struct gotrace_progs *pt)
{
	return min_t(u32, atomic_read(&pt->next), GOTRACE_PROG_MAX);
}
