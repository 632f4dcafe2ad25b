// SPDX-License-Identifier: GPL-2.0
/* Go 1.22+ trace events as text, as Go's raw.Event.String() writes them. */
#include <inttypes.h>

#include "internal.h"
#include "printable.h"

/* Go's utf8.DecodeRune(): the length of the rune at @s, 0 when it is not valid. */
static size_t utf8_rune(const uint8_t *s, uint64_t n, uint32_t *r)
{
	uint8_t lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] < 0x80) {
		*r = s[0];
		return 1;
	}
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	if (s[0] < 0xe0) {
		len = 2;
		*r = s[0] & 0x1f;
	} else if (s[0] < 0xf0) {
		len = 3;
		*r = s[0] & 0x0f;
		lo = s[0] == 0xe0 ? 0xa0 : lo;	/* not overlong */
		hi = s[0] == 0xed ? 0x9f : hi;	/* not a surrogate */
	} else {
		len = 4;
		*r = s[0] & 0x07;
		lo = s[0] == 0xf0 ? 0x90 : lo;	/* not overlong */
		hi = s[0] == 0xf4 ? 0x8f : hi;	/* not above U+10FFFF */
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if (s[i] < lo || s[i] > hi)
			return 0;
		*r = *r << 6 | (s[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	return len;
}

/* Go's strconv.IsPrint() for @r at or above 0x80. */
static bool printable(uint32_t r)
{
	size_t lo = 0, hi = sizeof(printable_ranges) / sizeof(printable_ranges[0]);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r < printable_ranges[mid][0])
			hi = mid;
		else if (r > printable_ranges[mid][1])
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* One rune of a quoted string, as Go's strconv.Quote() escapes it. */
static void quote_rune(FILE *f, uint32_t r, const uint8_t *s, size_t len)
{
	static const char ctrl[] = "abtnvfr";	/* \a (7) to \r (13) */

	if (r == '"' || r == '\\')
		fprintf(f, "\\%c", (char)r);
	else if ((r >= ' ' && r < 0x7f) || (r >= 0x80 && printable(r)))
		fwrite(s, 1, len, f);
	else if (r >= '\a' && r <= '\r')
		fprintf(f, "\\%c", ctrl[r - '\a']);
	else if (r < ' ' || r == 0x7f)
		fprintf(f, "\\x%02x", r);
	else if (r < 0x10000)
		fprintf(f, "\\u%04x", r);
	else
		fprintf(f, "\\U%08x", r);
}

void gt2_quote_runes(FILE *f, const uint8_t *s, uint64_t n)
{
	uint32_t r;
	size_t len;

	while (n) {
		len = utf8_rune(s, n, &r);
		if (len) {
			quote_rune(f, r, s, len);
		} else {
			fprintf(f, "\\x%02x", s[0]);
			len = 1;
		}
		s += len;
		n -= len;
	}
}

void gt2_quote(FILE *f, const uint8_t *s, uint64_t n)
{
	putc('"', f);
	gt2_quote_runes(f, s, n);
	putc('"', f);
}

int gt2_wire_print(FILE *f, const struct gt2_trace *t, const struct gt2_wire_event *ev)
{
	uint64_t pos = ev->frames_off, frame[4], i;
	unsigned int j;

	fputs(ev->name, f);
	for (j = 0; j < ev->nargs; j++)
		fprintf(f, " %s=%" PRIu64, ev->arg_names[j], ev->args[j]);
	for (i = 0; i < ev->nframes; i++) {
		gt2_wire_frame(t, &pos, frame);
		fprintf(f, "\n\tpc=%" PRIu64 " func=%" PRIu64 " file=%" PRIu64 " line=%" PRIu64,
			frame[0], frame[1], frame[2], frame[3]);
	}
	if (ev->data) {
		fputs("\n\tdata=", f);
		gt2_quote(f, ev->data, ev->data_len);
	}
	putc('\n', f);
	return ferror(f) ? -1 : 0;
}
