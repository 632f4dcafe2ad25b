// SPDX-License-Identifier: GPL-2.0
/* A minimal streaming JSON writer: indented output, escaped strings. */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "util/json.h"

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

static void json_escaped(FILE *f, const char *s, size_t len)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Separator, indentation and key of the next member. */
static void json_member(struct json *j, const char *key)
{
	if (j->depth) {
		fputs(j->more[j->depth - 1] ? ",\n" : "\n", j->f);
		j->more[j->depth - 1] = true;
		fprintf(j->f, "%*s", 2 * j->depth, "");
	}
	if (key) {
		json_escaped(j->f, key, strlen(key));
		fputs(": ", j->f);
	}
}

void json_begin(struct json *j, const char *key, char bracket)
{
	json_member(j, key);
	fputc(bracket, j->f);
	assert(j->depth < JSON_MAX_DEPTH);
	j->more[j->depth++] = false;
}

void json_end(struct json *j, char bracket)
{
	if (j->more[--j->depth])
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	fputc(bracket, j->f);
	if (!j->depth)
		fputc('\n', j->f);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	json_member(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	json_member(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void json_double(struct json *j, const char *key, double v)
{
	json_member(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_strn(struct json *j, const char *key, const char *s, size_t len)
{
	json_member(j, key);
	json_escaped(j->f, s, len);
}

void json_str(struct json *j, const char *key, const char *s)
{
	json_strn(j, key, s, strlen(s));
}
