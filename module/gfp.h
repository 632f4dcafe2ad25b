/* SPDX-License-Identifier: GPL-2.0 */
/* How every allocation of a session asks for memory. */
#ifndef _GOTRACE_GFP_H
#define _GOTRACE_GFP_H

#include <linux/gfp.h>

/*
 * A session's allocations (buffers, tables) may fail, and then start returns
 * -ENOMEM: never warn, never invoke the OOM killer.
 */
#define GOTRACE_GFP		(GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

#endif /* _GOTRACE_GFP_H */
