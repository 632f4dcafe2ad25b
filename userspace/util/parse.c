// SPDX-License-Identifier: GPL-2.0
/* Parsing of option values: sizes with K/M/G suffixes, counts, formats, durations. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/gotrace.h>

#include "util/msg.h"
#include "util/parse.h"

static int size_shift(const char *suffix)
{
	static const char units[] = "KMG";
	const char *u;

	if (!*suffix)
		return 0;
	u = strchr(units, toupper((unsigned char)*suffix));
	if (!u)
		return -1;
	suffix++;
	/* Accept K, KB, KiB (all binary: 1K = 1024 bytes). */
	if (*suffix == 'i')
		suffix++;
	if (*suffix == 'B' || *suffix == 'b')
		suffix++;
	if (*suffix)
		return -1;
	return 10 * (int)(u - units + 1);
}

bool parse_size(const char *cmd, const char *opt, const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int shift;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!isdigit((unsigned char)*s) || errno)
		goto bad;
	shift = size_shift(end);
	if (shift < 0 || (shift && v > (UINT64_MAX >> shift)))
		goto bad;
	*out = (uint64_t)v << shift;
	return true;
bad:
	msg_err(cmd, "invalid %s '%s': give bytes, optionally with a K, M or G suffix (e.g. 64M)",
		opt, s);
	return false;
}

bool parse_u32(const char *cmd, const char *opt, const char *s, uint32_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!isdigit((unsigned char)*s) || errno || *end || v == 0 || v > UINT32_MAX) {
		msg_err(cmd, "invalid %s '%s': give a number from 1 to %u", opt, s, UINT32_MAX);
		return false;
	}
	*out = (uint32_t)v;
	return true;
}

bool parse_sample_hz(const char *cmd, const char *opt, const char *s, uint32_t *out)
{
	unsigned long hz;
	char *end;

	errno = 0;
	hz = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || !hz || hz > GOTRACE_CPU_SAMPLE_HZ_MAX) {
		msg_err(cmd, "invalid %s '%s': give a rate from 1 to %d a second", opt, s,
			GOTRACE_CPU_SAMPLE_HZ_MAX);
		return false;
	}
	*out = (uint32_t)hz;
	return true;
}

bool parse_format(const char *cmd, const char *s, uint32_t *out)
{
	static const struct {
		const char *name;
		uint32_t format;
	} formats[] = {
		{ "1.11", GOTRACE_FORMAT_1_11 },
		{ "1.19", GOTRACE_FORMAT_1_19 },
		{ "1.21", GOTRACE_FORMAT_1_21 },
		{ "1.22", GOTRACE_FORMAT_1_22 },
		{ "1.23", GOTRACE_FORMAT_1_23 },
		{ "1.25", GOTRACE_FORMAT_1_25 },
		{ "1.26", GOTRACE_FORMAT_1_26 },
	};
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (!strcmp(s, formats[i].name)) {
			*out = formats[i].format;
			return true;
		}
	}
	msg_err(cmd, "unknown trace format '%s': choose 1.11, 1.19, 1.21 (Go's format before "
		"1.22), or 1.22, 1.23, 1.25, 1.26 (with generations)", s);
	return false;
}

/* --clock: auto, mono or tsc, as GOTRACE_START_CLOCK_* in @flags. */
bool parse_clock(const char *cmd, const char *s, uint32_t *flags)
{
	*flags &= ~(uint32_t)(GOTRACE_START_CLOCK_MONO | GOTRACE_START_CLOCK_TSC);
	if (!strcmp(s, "mono"))
		*flags |= GOTRACE_START_CLOCK_MONO;
	else if (!strcmp(s, "tsc"))
		*flags |= GOTRACE_START_CLOCK_TSC;
	else if (strcmp(s, "auto")) {
		msg_err(cmd, "unknown clock '%s': choose auto, mono or tsc", s);
		return false;
	}
	return true;
}

/* A module parameter as init_module() takes it: NAME=VALUE, one word. */
bool parse_param(const char *cmd, const char *s)
{
	size_t name = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");

	if (name && s[name] == '=' && s[name + 1] && !strpbrk(s, " \t\n\"'"))
		return true;
	msg_err(cmd, "invalid module parameter '%s': give NAME=VALUE, e.g. buffer_size=4194304", s);
	return false;
}

/* A duration: positive seconds, fractions allowed (0.5), at most a year. */
bool parse_seconds(const char *cmd, const char *opt, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (isdigit((unsigned char)*s) && !*end && !errno && v > 0 && v <= 366 * 86400.0) {
		*out = v;
		return true;
	}
	msg_err(cmd, "invalid %s '%s': give seconds, a number above 0 (e.g. 10 or 0.5)", opt, s);
	return false;
}

/* The nanoseconds in a @unit of parse_duration(), or 0 if it is not one. */
static double unit_ns(const char *unit)
{
	static const struct {
		const char *name;
		double ns;
	} units[] = {
		{ "", 1e9 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "m", 60e9 }, { "h", 3600e9 },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].name))
			return units[i].ns;
	return 0;
}

bool parse_duration(const char *cmd, const char *opt, const char *s, bool zero_ok, int64_t *ns)
{
	double v, unit;
	char *end;

	errno = 0;
	v = strtod(s, &end);
	unit = unit_ns(end);
	v *= unit;
	if (isdigit((unsigned char)*s) && !errno && unit && (zero_ok || v >= 0.5) && v < 9e18) {
		*ns = (int64_t)(v + 0.5);
		return true;
	}
	msg_err(cmd, "invalid %s '%s': give a duration%s, a number and a unit: ns, us, ms, s, "
		"m or h (e.g. 500ms, 1.5s, 10s)", opt, s, zero_ok ? "" : " above 0");
	return false;
}
