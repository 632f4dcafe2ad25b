/* SPDX-License-Identifier: GPL-2.0 */
/* CPU samples: a perf event per CPU that writes CPUSample events (samples.c). */
#ifndef _GOTRACE_SAMPLES_H
#define _GOTRACE_SAMPLES_H

struct gotrace_session;

int gotrace_samples_start(struct gotrace_session *s);
void gotrace_samples_stop(struct gotrace_session *s);

#endif /* _GOTRACE_SAMPLES_H */
