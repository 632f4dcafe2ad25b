/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal TAP (Test Anything Protocol) output for the unit tests. */
#ifndef GOTRACE_TAP_H
#define GOTRACE_TAP_H

#include <stdbool.h>

/* Prints "ok N - name" or "not ok N - name"; returns @pass. */
bool tap_ok(bool pass, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A "# ..." diagnostic line. */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the plan; the exit status: 0 when every test passed. */
int tap_done(void);

#endif /* GOTRACE_TAP_H */
