// SPDX-License-Identifier: GPL-2.0
/* json_check: exit 0 if stdin is one valid JSON value (RFC 8259), else say where it breaks. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUT (1 << 20)
#define MAX_DEPTH 64

struct in {
	const char *s;
	size_t pos;
};

static bool value(struct in *in, int depth);

static void skip_ws(struct in *in)
{
	while (strchr(" \t\r\n", in->s[in->pos]) && in->s[in->pos])
		in->pos++;
}

static bool literal(struct in *in, const char *word)
{
	size_t len = strlen(word);

	if (strncmp(in->s + in->pos, word, len))
		return false;
	in->pos += len;
	return true;
}

static size_t digits(struct in *in)
{
	size_t n = 0;

	while (isdigit((unsigned char)in->s[in->pos]))
		in->pos++, n++;
	return n;
}

static bool number(struct in *in)
{
	if (in->s[in->pos] == '-')
		in->pos++;
	if (in->s[in->pos] == '0')
		in->pos++;
	else if (!digits(in))
		return false;
	if (in->s[in->pos] == '.') {
		in->pos++;
		if (!digits(in))
			return false;
	}
	if (in->s[in->pos] == 'e' || in->s[in->pos] == 'E') {
		in->pos++;
		if (in->s[in->pos] == '+' || in->s[in->pos] == '-')
			in->pos++;
		if (!digits(in))
			return false;
	}
	return true;
}

static bool string(struct in *in)
{
	if (in->s[in->pos++] != '"')
		return false;
	for (;;) {
		unsigned char c = (unsigned char)in->s[in->pos++];
		int i;

		if (c == '"')
			return true;
		if (c < 0x20)
			return false;
		if (c != '\\')
			continue;
		c = (unsigned char)in->s[in->pos++];
		if (c == 'u') {
			for (i = 0; i < 4; i++)
				if (!isxdigit((unsigned char)in->s[in->pos++]))
					return false;
		} else if (!c || !strchr("\"\\/bfnrt", c)) {
			return false;
		}
	}
}

/* An object or array: members separated by commas, keys for objects. */
static bool container(struct in *in, char close, int depth)
{
	in->pos++;
	skip_ws(in);
	if (in->s[in->pos] == close) {
		in->pos++;
		return true;
	}
	for (;;) {
		skip_ws(in);
		if (close == '}') {
			if (!string(in))
				return false;
			skip_ws(in);
			if (in->s[in->pos++] != ':')
				return false;
		}
		if (!value(in, depth + 1))
			return false;
		skip_ws(in);
		if (in->s[in->pos] == close) {
			in->pos++;
			return true;
		}
		if (in->s[in->pos++] != ',')
			return false;
	}
}

static bool value(struct in *in, int depth)
{
	char c;

	skip_ws(in);
	c = in->s[in->pos];
	if (depth > MAX_DEPTH)
		return false;
	if (c == '{')
		return container(in, '}', depth);
	if (c == '[')
		return container(in, ']', depth);
	if (c == '"')
		return string(in);
	if (c == '-' || isdigit((unsigned char)c))
		return number(in);
	return literal(in, "true") || literal(in, "false") || literal(in, "null");
}

int main(void)
{
	static char buf[MAX_INPUT + 1];
	struct in in = { .s = buf };
	size_t len = fread(buf, 1, MAX_INPUT, stdin);

	buf[len] = '\0';
	if (strlen(buf) != len) {
		fprintf(stderr, "json_check: NUL byte in the input\n");
		return 1;
	}
	if (value(&in, 0)) {
		skip_ws(&in);
		if (in.pos == len)
			return 0;
	}
	fprintf(stderr, "json_check: invalid JSON at byte %zu: '%.20s'\n", in.pos,
		in.s + (in.pos < len ? in.pos : len));
	return 1;
}
