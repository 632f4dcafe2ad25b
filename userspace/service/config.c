// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace service's configuration file: "key = value" lines, '#' comments.
 * The flight recorder's keys are gotrace record's long options (flight,
 * buffer-size, format, trigger-latency, comm, ...), taken by the same code;
 * the others are the service's own. A value that is wrong names its line.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "service/service.h"
#include "util/msg.h"
#include "util/parse.h"

#define CMD_LEN		300
#define LINE_MAX_LEN	4096

/* The defaults: at most 4 MiB a CPU, and 1 GiB of snapshots. */
void config_init(struct service_config *cfg)
{
	*cfg = (struct service_config){
		.start = START_OPTS_INIT,
		.after_ns = 1000000000LL,
		.every_ns = 300000000000LL,
		.request_every_ns = 10000000000LL,
		.keep_count = 100,
		.keep_bytes = 1ULL << 30,
		.keep_age_ns = 30LL * 86400 * 1000000000LL,
		.min_free_pct = 10,
		.hook_timeout_ns = 60000000000LL,
		.hook_max = 2,
	};
	cfg->start.flight_ns = 10000000000LL;
	cfg->start.args.buffer_size = 4 << 20;
	cfg->start.args.latency_ns = 100000000ULL;
	cfg->start.args.format = GOTRACE_FORMAT_1_26;
}

void config_free(struct service_config *cfg)
{
	if (cfg->start.cgroup_fd >= 0)
		close(cfg->start.cgroup_fd);
	free(cfg->path);
	free(cfg->directory);
	free(cfg->hook);
	cfg->path = cfg->directory = cfg->hook = NULL;
	cfg->start.cgroup_fd = -1;
}

/* The flight recorder's keys: gotrace record's options that take a value or none. */
static const struct option start_keys[] = { START_LONGOPTS, { } };

static const struct option *start_key(const char *key)
{
	const struct option *o;

	for (o = start_keys; o->name; o++)
		if (!strcmp(o->name, key))
			return o;
	return NULL;
}

/* "yes" or "no" for the options without a value. */
static bool parse_bool(const char *cmd, const char *key, const char *s, bool *out)
{
	if (!strcmp(s, "yes") || !strcmp(s, "true") || !strcmp(s, "1")) {
		*out = true;
		return true;
	}
	if (!strcmp(s, "no") || !strcmp(s, "false") || !strcmp(s, "0")) {
		*out = false;
		return true;
	}
	msg_err(cmd, "%s: '%s' is not yes or no", key, s);
	return false;
}

static bool set_string(const char *cmd, char **field, const char *s)
{
	free(*field);
	*field = *s ? strdup(s) : NULL;
	if (!*s || *field)
		return true;
	msg_err(cmd, "out of memory");
	return false;
}

/* min-free: a size, or a percentage of the file system (10%). */
static bool parse_min_free(const char *cmd, const char *s, struct service_config *cfg)
{
	size_t len = strlen(s);
	uint32_t pct;
	char num[16];

	if (len && s[len - 1] == '%') {
		if (len >= sizeof(num))
			len = sizeof(num);
		snprintf(num, len, "%s", s);
		if (!parse_u32(cmd, "min-free", num, &pct))
			return false;
		if (pct > 90) {
			msg_err(cmd, "min-free: %u%% would leave no room: give 0%% to 90%%", pct);
			return false;
		}
		cfg->min_free_pct = pct;
		cfg->min_free_bytes = 0;
		return true;
	}
	cfg->min_free_pct = 0;
	return parse_size(cmd, "min-free", s, &cfg->min_free_bytes);
}

/* One of the service's own keys; 0: taken, 1: not one of them, -1: invalid. */
static int service_key(const char *cmd, const char *key, const char *v,
		       struct service_config *cfg)
{
	bool ok;

	if (!strcmp(key, "trigger-after"))
		ok = parse_duration(cmd, key, v, true, &cfg->after_ns);
	else if (!strcmp(key, "trigger-every"))
		ok = parse_duration(cmd, key, v, false, &cfg->every_ns);
	else if (!strcmp(key, "request-every"))
		ok = parse_duration(cmd, key, v, true, &cfg->request_every_ns);
	else if (!strcmp(key, "fleet-period"))
		ok = parse_duration(cmd, key, v, true, &cfg->fleet_ns);
	else if (!strcmp(key, "directory"))
		ok = set_string(cmd, &cfg->directory, v);
	else if (!strcmp(key, "keep-count"))
		ok = parse_u32(cmd, key, v, &cfg->keep_count);
	else if (!strcmp(key, "keep-size"))
		ok = parse_size(cmd, key, v, &cfg->keep_bytes);
	else if (!strcmp(key, "keep-age"))
		ok = parse_duration(cmd, key, v, true, &cfg->keep_age_ns);
	else if (!strcmp(key, "min-free"))
		ok = parse_min_free(cmd, v, cfg);
	else if (!strcmp(key, "hook"))
		ok = set_string(cmd, &cfg->hook, v);
	else if (!strcmp(key, "hook-timeout"))
		ok = parse_duration(cmd, key, v, false, &cfg->hook_timeout_ns);
	else if (!strcmp(key, "hook-max"))
		ok = parse_u32(cmd, key, v, &cfg->hook_max);
	else
		return 1;
	return ok ? 0 : -1;
}

/* One of the flight recorder's keys, as gotrace record's option; false after a message. */
static bool start_value(const char *cmd, const struct option *o, const char *v,
			struct service_config *cfg)
{
	bool on;

	if (o->has_arg == required_argument)
		return start_option(cmd, o->val, v, &cfg->start);
	if (!parse_bool(cmd, o->name, v, &on))
		return false;
	if (on)
		return start_option(cmd, o->val, NULL, &cfg->start);
	if (o->val == 'k')
		cfg->start.args.flags &= ~GOTRACE_START_KSTACKS;
	else if (o->val == 'D')
		cfg->start.args.flags &= ~GOTRACE_START_DESCENDANTS;
	else if (o->val == 'C')
		cfg->start.args.flags &= ~GOTRACE_START_CONTINUE;
	return true;
}

/* Trims blanks at both ends, in place. */
static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' ||
			   end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* One line; @cmd names the file and line for messages. */
static bool config_line(const char *cmd, char *line, struct service_config *cfg)
{
	const struct option *o;
	char *key, *eq, *v;
	int ret;

	key = trim(line);
	if (!*key || *key == '#')
		return true;
	eq = strchr(key, '=');
	if (!eq) {
		msg_err(cmd, "'%s' is not 'key = value'", key);
		return false;
	}
	*eq = '\0';
	key = trim(key);
	v = trim(eq + 1);
	if (!strcmp(key, "trigger-latency") && !strcmp(v, "off")) {
		cfg->start.args.latency_ns = 0;
		cfg->start.latency_arg = NULL;
		return true;
	}
	ret = service_key(cmd, key, v, cfg);
	if (ret <= 0)
		return !ret;
	o = start_key(key);
	if (o && strcmp(key, "continue")) {
		ret = start_value(cmd, o, v, cfg);
		/* They point into the line, which the next one overwrites. */
		cfg->start.flight_arg = cfg->start.latency_arg = NULL;
		return ret;
	}
	msg_err(cmd, "unknown key '%s' (gotrace(8), SERVICE, lists the keys)", key);
	return false;
}

/* What the flight recorder needs and the keys' values together; false after a message. */
static bool config_check(const char *cmd, struct service_config *cfg)
{
	if (!start_check(cmd, &cfg->start))
		return false;
	if (!cfg->directory && !set_string(cmd, &cfg->directory, SERVICE_DIR))
		return false;
	if (cfg->directory[0] != '/') {
		msg_err(cmd, "directory: '%s' is not an absolute path", cfg->directory);
		return false;
	}
	return true;
}

bool config_load(struct service_config *cfg, const char *path)
{
	char cmd[CMD_LEN], *line = NULL;
	unsigned int n = 0;
	size_t cap = 0;
	bool ok = true;
	FILE *f;

	config_init(cfg);
	cfg->path = strdup(path);
	f = fopen(path, "re");
	if (!f || !cfg->path) {
		msg_err("service", "cannot read %s: %s: give the configuration file with "
			"--config FILE", path, strerror(errno));
		if (f)
			fclose(f);
		return false;
	}
	while (ok && getline(&line, &cap, f) >= 0) {
		n++;
		snprintf(cmd, sizeof(cmd), "service: %s:%u", path, n);
		if (strlen(line) > LINE_MAX_LEN) {
			msg_err(cmd, "the line is longer than %d bytes", LINE_MAX_LEN);
			ok = false;
		} else {
			ok = config_line(cmd, line, cfg);
		}
	}
	free(line);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "service: %s", path);
	return ok && config_check(cmd, cfg);
}

/* Two cgroup descriptors name the same directory, or neither is set. */
static bool same_cgroup(int a, int b)
{
	struct stat sa, sb;

	if (a < 0 || b < 0)
		return a == b;
	return !fstat(a, &sa) && !fstat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

bool config_same_session(const struct service_config *a, const struct service_config *b)
{
	const struct gotrace_start *x = &a->start.args, *y = &b->start.args;

	return x->format == y->format && x->flags == y->flags &&
	       x->buffer_size == y->buffer_size && x->max_tid == y->max_tid &&
	       x->gen_period_ns == y->gen_period_ns && x->gen_bytes == y->gen_bytes &&
	       x->latency_ns == y->latency_ns && x->cpu_sample_hz == y->cpu_sample_hz &&
	       a->start.nr_tgids == b->start.nr_tgids &&
	       !memcmp(a->start.tgids, b->start.tgids, a->start.nr_tgids * sizeof(uint32_t)) &&
	       a->start.nr_comms == b->start.nr_comms &&
	       !memcmp(a->start.comms, b->start.comms,
		       a->start.nr_comms * sizeof(a->start.comms[0])) &&
	       same_cgroup(a->start.cgroup_fd, b->start.cgroup_fd);
}

/* A duration in the largest unit that divides it. */
static const char *fmt_ns(char *buf, size_t len, int64_t ns)
{
	static const struct { int64_t ns; const char *unit; } units[] = {
		{ 3600000000000LL, "h" }, { 60000000000LL, "m" }, { 1000000000LL, "s" },
		{ 1000000LL, "ms" }, { 1000LL, "us" },
	};
	size_t i;

	for (i = 0; ns && i < sizeof(units) / sizeof(units[0]); i++)
		if (!(ns % units[i].ns)) {
			snprintf(buf, len, "%" PRId64 "%s", ns / units[i].ns, units[i].unit);
			return buf;
		}
	snprintf(buf, len, "%" PRId64 "ns", ns);
	return buf;
}

/* A size in the largest of G, M, K that divides it. */
static const char *fmt_size(char *buf, size_t len, uint64_t bytes)
{
	static const char units[] = "GMK";
	unsigned int i;

	for (i = 0; bytes && i < 3; i++)
		if (!(bytes % (1ULL << (10 * (3 - i))))) {
			snprintf(buf, len, "%" PRIu64 "%c", bytes >> (10 * (3 - i)), units[i]);
			return buf;
		}
	snprintf(buf, len, "%" PRIu64, bytes);
	return buf;
}

void config_print(const struct service_config *cfg)
{
	const struct gotrace_start *args = &cfg->start.args;
	char a[32], b[32];
	uint32_t i;

	printf("# %s\n", cfg->path);
	printf("flight = %s\n", fmt_ns(a, sizeof(a), cfg->start.flight_ns));
	printf("format = 1.%u\n", args->format);
	printf("buffer-size = %s\n", fmt_size(a, sizeof(a), args->buffer_size));
	printf("kernel-stacks = %s\n", args->flags & GOTRACE_START_KSTACKS ? "yes" : "no");
	printf("trigger-latency = %s\n",
	       args->latency_ns ? fmt_ns(a, sizeof(a), (int64_t)args->latency_ns) : "off");
	printf("trigger-after = %s\n", fmt_ns(a, sizeof(a), cfg->after_ns));
	printf("trigger-every = %s\n", fmt_ns(a, sizeof(a), cfg->every_ns));
	printf("request-every = %s\n", fmt_ns(a, sizeof(a), cfg->request_every_ns));
	printf("fleet-period = %s\n", cfg->fleet_ns ? fmt_ns(a, sizeof(a), cfg->fleet_ns) : "0");
	for (i = 0; i < cfg->start.nr_tgids; i++)
		printf("pid = %u\n", cfg->start.tgids[i]);
	for (i = 0; i < cfg->start.nr_comms; i++)
		printf("comm = %s\n", cfg->start.comms[i]);
	printf("directory = %s\n", cfg->directory);
	printf("keep-count = %u\n", cfg->keep_count);
	printf("keep-size = %s\n", fmt_size(a, sizeof(a), cfg->keep_bytes));
	printf("keep-age = %s\n", cfg->keep_age_ns ? fmt_ns(a, sizeof(a), cfg->keep_age_ns) : "0");
	if (cfg->min_free_pct || !cfg->min_free_bytes)
		printf("min-free = %u%%\n", cfg->min_free_pct);
	else
		printf("min-free = %s\n", fmt_size(b, sizeof(b), cfg->min_free_bytes));
	printf("hook = %s\n", cfg->hook ? cfg->hook : "");
	printf("hook-timeout = %s\n", fmt_ns(a, sizeof(a), cfg->hook_timeout_ns));
	printf("hook-max = %u\n", cfg->hook_max);
}
