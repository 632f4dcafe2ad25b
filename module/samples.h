/* SPDX-License-Identifier: GPL-2.0 */
/* CPU samples: a perf event per CPU whose samples become CPUSample events (samples.c). */
#ifndef _GOTRACE_SAMPLES_H
#define _GOTRACE_SAMPLES_H

#include <linux/types.h>

struct gotrace_session;
struct gotrace_sring;

struct gotrace_sring *gotrace_srings_alloc(void);
void gotrace_srings_free(struct gotrace_sring *sr);
int gotrace_samples_start(struct gotrace_session *s);
void gotrace_samples_stop(struct gotrace_session *s);
struct gotrace_sring *gotrace_samples_copy(struct gotrace_session *s,
					   u32 first, u32 last);
size_t gotrace_samples_batch(struct gotrace_session *s,
			     struct gotrace_sring *rings, u8 *buf, size_t size);

#endif /* _GOTRACE_SAMPLES_H */
