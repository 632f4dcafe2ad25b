/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel stacks: a thread's kernel call chain as a Go stack (kstacks.c). */
#ifndef _GOTRACE_KSTACKS_H
#define _GOTRACE_KSTACKS_H

#include <linux/types.h>
#include "stacks.h"

struct gotrace_kstacks;
struct gotrace_session;
struct pt_regs;

/* Kernel stacks (kstacks.c) take the stack ids after the cheap ones. */
#define GOTRACE_KSTACK_ID(slot)	(GOTRACE_STACK_FULL + 1 + (slot))

struct gotrace_kstacks *gotrace_kstacks_alloc(void);
void gotrace_kstacks_free(struct gotrace_kstacks *ks);
u32 gotrace_kstack(struct gotrace_session *s, u32 prog);
u32 gotrace_kstack_regs(struct gotrace_session *s, u32 prog,
			struct pt_regs *regs);
void gotrace_kstacks_prepare(struct gotrace_session *s);
u8 *gotrace_kstacks_frame(struct gotrace_session *s, u32 i, u8 *p);
u8 *gotrace_kstacks_stack(struct gotrace_session *s, u32 *i, u8 *p);

#endif /* _GOTRACE_KSTACKS_H */
