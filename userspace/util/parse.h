/* SPDX-License-Identifier: GPL-2.0 */
/* Option values: sizes, numbers, formats, clocks, durations (parse.c). */
#ifndef GOTRACE_PARSE_H
#define GOTRACE_PARSE_H

#include <stdbool.h>
#include <stdint.h>

/* Each returns false (after a message) when @s is invalid. */
bool parse_size(const char *cmd, const char *opt, const char *s, uint64_t *out);
bool parse_u32(const char *cmd, const char *opt, const char *s, uint32_t *out);
/* A --cpu-samples rate, 1 to GOTRACE_CPU_SAMPLE_HZ_MAX a second. */
bool parse_sample_hz(const char *cmd, const char *opt, const char *s, uint32_t *out);
bool parse_format(const char *cmd, const char *s, uint32_t *out);
bool parse_clock(const char *cmd, const char *s, uint32_t *flags);
bool parse_param(const char *cmd, const char *s);
bool parse_seconds(const char *cmd, const char *opt, const char *s, double *out);
/* A duration with a unit (ns, us, ms, s, m, h; none: seconds) in ns; 0 only if @zero_ok. */
bool parse_duration(const char *cmd, const char *opt, const char *s, bool zero_ok, int64_t *ns);

#endif /* GOTRACE_PARSE_H */
