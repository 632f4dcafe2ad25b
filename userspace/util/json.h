/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal streaming JSON writer for --json output. */
#ifndef GOTRACE_JSON_H
#define GOTRACE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool more[JSON_MAX_DEPTH];	/* the open container has a member already */
};

void json_init(struct json *j, FILE *f);
/* @key is NULL inside arrays and for the outermost value. */
void json_begin(struct json *j, const char *key, char bracket);
void json_end(struct json *j, char bracket);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_double(struct json *j, const char *key, double v);
void json_bool(struct json *j, const char *key, bool v);
void json_str(struct json *j, const char *key, const char *s);
void json_strn(struct json *j, const char *key, const char *s, size_t len);

#endif /* GOTRACE_JSON_H */
