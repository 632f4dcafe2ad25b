/* SPDX-License-Identifier: GPL-2.0 */
/* GOTRACE_START_CONTINUE: a cut trace ends at once, and a new one follows it (continue.c). */
#ifndef _GOTRACE_CONTINUE_H
#define _GOTRACE_CONTINUE_H

#include <linux/types.h>

struct gotrace_dev;
struct gotrace_session;
struct gotrace_status;

void gotrace_cont_make_room(struct gotrace_session *s);
void gotrace_cont_cancel(struct gotrace_dev *dev, struct gotrace_session *s);
void gotrace_cont_gap(struct gotrace_session *s, struct gotrace_session *old);
void gotrace_cont_status(struct gotrace_session *s, struct gotrace_status *st);

#endif /* _GOTRACE_CONTINUE_H */
