// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace kernel stacks: where threads block, when GOTRACE_START_KSTACKS asks,
 * and what CPU samples interrupted (samples.c).
 *
 * At a block point the probe saves the kernel stack (stack_trace_save()) and
 * looks it up, with the thread's program, in a fixed open-addressing table
 * allocated with the session, which probes fill without a lock (slots.h). The slot
 * index, after the cheap stacks' ids, is the stack id. When the table is
 * full, block events fall back to the cheap [reason, program] stack.
 *
 * Addresses never reach the trace: the footer names each frame with
 * kallsyms (function, and module or "vmlinux" as the file; a frame kallsyms
 * cannot name, such as one in a module unloaded since, is
 * GOTRACE_KSTACK_UNKNOWN), and the frame's PC in the trace is the index of
 * its address among the distinct addresses of the used stacks. Frames of
 * gotrace itself and of the tracepoint iterator are left out there. The
 * index is allocated with the table, so that stopping allocates nothing.
 * With generations (CPU samples only), each generation's tables list the
 * stacks used when it closed, while probes go on: a published stack never
 * changes, the footer keeps what it learns beside it.
 */

#include <linux/bsearch.h>
#include <linux/jhash.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stacktrace.h>
#include <linux/string.h>

#include "compat.h"
#include "encode.h"
#include "footer.h"
#include "gfp.h"
#include "kstacks.h"
#include "session.h"
#include "slots.h"

#define GOTRACE_KSTACK_SLOTS	8192
#define GOTRACE_KSTACK_DEPTH	24
/* Frames an interrupt handler's walk may take before the interrupted code. */
#define GOTRACE_KSTACK_IRQ_DEPTH	24
#define GOTRACE_KSTACK_UNKNOWN	"(unknown kernel function)"

/**
 * struct gotrace_kstack - one distinct stack
 * @hash:	jhash of @pcs and @prog.
 * @state:	enum gotrace_slot_state; the rest is valid once READY.
 * @nr:		frames in @pcs.
 * @prog:	program id, the outermost frame.
 * @used:	written in the trace (set by probes, read by the footer).
 * @listed:	in the tables being written (footer only).
 * @skip:	innermost frames of @pcs that are gotrace's own (footer only).
 * @pcs:	return addresses, innermost first.
 *
 * Only the footer writes @listed and @skip; probes may still read the rest
 * (with generations, tables are written while probes run), so it never
 * changes once READY.
 */
struct gotrace_kstack {
	u32 hash;
	int state;
	u16 nr;
	u16 prog;
	bool used;
	bool listed;
	u16 skip;
	unsigned long pcs[GOTRACE_KSTACK_DEPTH];
};

/**
 * struct gotrace_kstacks - the table, and the footer's view of it
 * @slot:	the stacks.
 * @nr_addrs:	distinct addresses in @addrs.
 * @addrs:	distinct addresses of the used stacks, sorted (footer only).
 */
struct gotrace_kstacks {
	struct gotrace_kstack slot[GOTRACE_KSTACK_SLOTS];
	u32 nr_addrs;
	unsigned long addrs[GOTRACE_KSTACK_SLOTS * GOTRACE_KSTACK_DEPTH];
};

/**
 * gotrace_kstacks_alloc - an empty table
 *
 * Return: the zeroed table, or NULL if it cannot be allocated.
 */
struct gotrace_kstacks *gotrace_kstacks_alloc(void)
{
	return kvzalloc(sizeof(struct gotrace_kstacks), GOTRACE_GFP);
}

/**
 * gotrace_kstacks_free - free a table
 * @ks: the table, or NULL
 */
void gotrace_kstacks_free(struct gotrace_kstacks *ks)
{
	kvfree(ks);
}

static bool gotrace_kstack_equal(struct gotrace_kstack *k, u32 hash,
				 unsigned int nr, u32 prog,
				 const unsigned long *pcs)
{
	return k->hash == hash && k->nr == nr && k->prog == prog &&
	       !memcmp(k->pcs, pcs, nr * sizeof(*pcs));
}

/*
 * The stack id of @nr return addresses @pcs (innermost first) under program
 * @prog, inserted if new; 0 if the table is full. Interrupts off.
 */
static u32 gotrace_kstack_intern(struct gotrace_kstacks *ks, u32 prog,
				 const unsigned long *pcs, unsigned int nr)
{
	unsigned int i;
	u32 hash, idx;

	hash = jhash2((const u32 *)pcs, nr * sizeof(*pcs) / sizeof(u32), prog);
	idx = hash % GOTRACE_KSTACK_SLOTS;
	for (i = 0; i < GOTRACE_KSTACK_SLOTS; i++) {
		struct gotrace_kstack *k = &ks->slot[idx];

		if (gotrace_slot_claim(&k->state)) {
			k->hash = hash;
			k->nr = nr;
			k->prog = prog;
			memcpy(k->pcs, pcs, nr * sizeof(*pcs));
			gotrace_slot_publish(&k->state);
		}
		if (gotrace_kstack_equal(k, hash, nr, prog, pcs)) {
			if (!READ_ONCE(k->used))
				WRITE_ONCE(k->used, true);
			return GOTRACE_KSTACK_ID(idx);
		}
		idx = (idx + 1) % GOTRACE_KSTACK_SLOTS;
	}
	return 0;
}

/**
 * gotrace_kstack - the stack id of where the current thread blocks
 * @s: session, with kernel stacks on
 * @prog: the thread's program id
 *
 * Call with interrupts off, from the thread's own sched_switch.
 *
 * Return: a stack id, or 0 if the table is full.
 */
u32 gotrace_kstack(struct gotrace_session *s, u32 prog)
{
	unsigned long pcs[GOTRACE_KSTACK_DEPTH];
	unsigned int nr;

	nr = stack_trace_save(pcs, ARRAY_SIZE(pcs), 0);
	return gotrace_kstack_intern(s->kstacks, prog, pcs, nr);
}

/**
 * gotrace_kstack_regs - the stack id of the kernel code an interrupt stopped
 * @s: session, with kernel stacks on
 * @prog: the program of the thread it stopped
 * @regs: the registers it saved
 *
 * Call from the interrupt's handler, with interrupts off. The walk starts
 * in the handler (stack_trace_save_regs() is not exported to modules) and
 * crosses the interrupt's frame, which names @regs' instruction pointer:
 * the stack is what follows, at most GOTRACE_KSTACK_DEPTH frames. Without
 * it (user mode was interrupted, or the handler's frames used up the walk)
 * the stack holds only the program.
 *
 * Return: a stack id, or 0 if the table is full.
 */
u32 gotrace_kstack_regs(struct gotrace_session *s, u32 prog,
			struct pt_regs *regs)
{
	unsigned long pcs[GOTRACE_KSTACK_DEPTH + GOTRACE_KSTACK_IRQ_DEPTH];
	unsigned int nr = 0, i;

	if (!user_mode(regs))
		nr = stack_trace_save(pcs, ARRAY_SIZE(pcs), 0);
	for (i = 0; i < nr && pcs[i] != instruction_pointer(regs); i++)
		;
	nr = min_t(unsigned int, nr - i, GOTRACE_KSTACK_DEPTH);
	return gotrace_kstack_intern(s->kstacks, prog, pcs + i, nr);
}

static int gotrace_addr_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* Whether a frame is ours or the tracepoint's, which the footer drops. */
static bool gotrace_kstack_internal(unsigned long pc)
{
	char name[KSYM_SYMBOL_LEN];

	if (within_module(pc, THIS_MODULE))
		return true;
	sprint_symbol_no_offset(name, pc);
	return str_has_prefix(name, "__traceiter_");
}

/**
 * gotrace_kstacks_prepare - list the used stacks, index their addresses
 * @s: session, whose footer is set up: s->footer.tbl_progs are its programs
 *
 * Probes may still run (the tables of a generation): a stack used from
 * now on is left out; so is one whose program the tables lack.
 */
void gotrace_kstacks_prepare(struct gotrace_session *s)
{
	struct gotrace_kstacks *ks = s->kstacks;
	u32 i, j, w;

	ks->nr_addrs = 0;
	for (i = 0; i < GOTRACE_KSTACK_SLOTS; i++) {
		struct gotrace_kstack *k = &ks->slot[i];

		/* Pairs with the release in gotrace_slot_publish(). */
		k->listed = smp_load_acquire(&k->state) == GOTRACE_SLOT_READY &&
			    READ_ONCE(k->used) && k->prog < s->footer.tbl_progs;
		if (!k->listed)
			continue;
		/* Leave out the innermost frames that are gotrace's own. */
		for (j = 0; j < k->nr && gotrace_kstack_internal(k->pcs[j]); j++)
			;
		k->skip = j;
		memcpy(ks->addrs + ks->nr_addrs, k->pcs + j,
		       (k->nr - j) * sizeof(*k->pcs));
		ks->nr_addrs += k->nr - j;
	}
	sort(ks->addrs, ks->nr_addrs, sizeof(*ks->addrs), gotrace_addr_cmp, NULL);
	for (i = 0, w = 0; i < ks->nr_addrs; i++)
		if (!w || ks->addrs[w - 1] != ks->addrs[i])
			ks->addrs[w++] = ks->addrs[i];
	ks->nr_addrs = w;
}

static u32 gotrace_addr_key(struct gotrace_kstacks *ks, unsigned long pc)
{
	unsigned long *p = bsearch(&pc, ks->addrs, ks->nr_addrs,
				   sizeof(*ks->addrs), gotrace_addr_cmp);

	return p - ks->addrs;
}

/**
 * gotrace_kstacks_frame - footer: the strings naming distinct frame @i
 * @s: session
 * @i: index among the distinct addresses
 * @p: where to write two String events (function, then file)
 *
 * Return: the end of what was written, or NULL past the last frame.
 */
u8 *gotrace_kstacks_frame(struct gotrace_session *s, u32 i, u8 *p)
{
	struct gotrace_kstacks *ks = s->kstacks;
	char sym[KSYM_SYMBOL_LEN], *mod;
	const char *func = sym, *file = "vmlinux";

	if (i >= ks->nr_addrs)
		return NULL;
	sprint_symbol_no_offset(sym, ks->addrs[i]);
	/* "function [module]" for a module's code, else "function". */
	mod = strchr(sym, ' ');
	if (str_has_prefix(sym, "0x")) {
		/* kallsyms printed the address it cannot name. */
		func = GOTRACE_KSTACK_UNKNOWN;
		file = "(unknown)";
	} else if (mod) {
		*mod++ = '\0';
		mod[strcspn(mod, "]")] = '\0';
		file = mod + 1;
	}
	p = gotrace_put_string(p, GOTRACE_STR_KFUNC(i), func, s->v2);
	return gotrace_put_string(p, GOTRACE_STR_KFILE(i), file, s->v2);
}

/**
 * gotrace_kstacks_stack - footer: the next listed kernel stack from slot @i on
 * @s: session
 * @i: slot to start at; set to the slot after the one written
 * @p: where to write the Stack event
 *
 * Return: the end of what was written, or NULL past the last used slot.
 */
u8 *gotrace_kstacks_stack(struct gotrace_session *s, u32 *i, u8 *p)
{
	struct gotrace_kstacks *ks = s->kstacks;
	struct gotrace_kstack *k;
	u32 j, key;
	u8 *lenp;

	while (*i < GOTRACE_KSTACK_SLOTS && !ks->slot[*i].listed)
		(*i)++;
	if (*i >= GOTRACE_KSTACK_SLOTS)
		return NULL;
	k = &ks->slot[*i];

	/* Up to GOTRACE_KSTACK_DEPTH frames and the program's. */
	BUILD_BUG_ON(GOTRACE_STACK_HEAD_MAX + (GOTRACE_KSTACK_DEPTH + 1) * GOTRACE_FRAME_MAX >=
		     GOTRACE_LEN_LIMIT(GOTRACE_LEN_2));
	p = gotrace_put_stack_head(p, GOTRACE_KSTACK_ID(*i), k->nr - k->skip + 1,
				   GOTRACE_LEN_2, s->v2, &lenp);
	for (j = k->skip; j < k->nr; j++) {
		key = gotrace_addr_key(ks, k->pcs[j]);
		p = gotrace_put_frame(p, GOTRACE_PC_KFRAME(key),
				      GOTRACE_STR_KFUNC(key), GOTRACE_STR_KFILE(key));
	}
	p = gotrace_put_frame(p, GOTRACE_PC_PROG(k->prog),
			      GOTRACE_STR_PROG(k->prog), GOTRACE_STR_FILE);
	if (lenp)
		gotrace_put_len(lenp, p, GOTRACE_LEN_2);
	(*i)++;
	return p;
}
