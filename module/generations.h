/* SPDX-License-Identifier: GPL-2.0 */
/* Generations of formats 1.22 and later: started without stopping the world (generations.c). */
#ifndef _GOTRACE_GENERATIONS_H
#define _GOTRACE_GENERATIONS_H

struct gotrace_session;

void gotrace_gens_init(struct gotrace_session *s, u64 period_ns, u64 bytes);
void gotrace_gens_start(struct gotrace_session *s);
void gotrace_gens_stop(struct gotrace_session *s);

#endif /* _GOTRACE_GENERATIONS_H */
