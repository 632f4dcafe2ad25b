// SPDX-License-Identifier: GPL-2.0
/* Opening a Go 1.22+ trace, reading its bytes, and its header as Go's version.ReadHeader(). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/* Input as fmt.Fscanf() reads it: UTF-8 runes from a position. */
struct scan {
	const uint8_t *buf;
	size_t size;
	size_t pos;
};

/* The length of the Unicode white space (Go's fmt isSpace) at s->pos, or 0. */
static size_t space_len(const struct scan *s)
{
	const uint8_t *p = s->buf + s->pos;
	size_t n = s->size - s->pos;

	if (n >= 1 && ((p[0] >= '\t' && p[0] <= '\r') || p[0] == ' '))
		return 1;
	if (n >= 2 && p[0] == 0xc2 && (p[1] == 0x85 || p[1] == 0xa0))
		return 2;		/* U+0085, U+00A0 */
	if (n < 3)
		return 0;
	if (p[0] == 0xe1 && p[1] == 0x9a && p[2] == 0x80)	/* U+1680 */
		return 3;
	if (p[0] == 0xe2 && p[1] == 0x80 &&
	    ((p[2] >= 0x80 && p[2] <= 0x8a) || p[2] == 0xa8 || p[2] == 0xa9 || p[2] == 0xaf))
		return 3;		/* U+2000-200A, U+2028, U+2029, U+202F */
	if ((p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0x9f) ||	/* U+205F */
	    (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80))	/* U+3000 */
		return 3;
	return 0;
}

static bool at_newline(const struct scan *s)
{
	return s->pos < s->size && s->buf[s->pos] == '\n';
}

/* A space in the format: the spaces up to a newline, at least one or the input's end. */
static bool scan_space(struct scan *s)
{
	size_t start = s->pos, n;

	while (!at_newline(s) && (n = space_len(s)))
		s->pos += n;
	return s->pos > start || s->pos == s->size;
}

static bool scan_literal(struct scan *s, const char *lit, size_t len)
{
	if (s->size - s->pos < len || memcmp(s->buf + s->pos, lit, len))
		return false;
	s->pos += len;
	return true;
}

/* %d into a uint32: spaces (not a newline) skipped, then decimal digits. */
static bool scan_u32(struct scan *s, uint32_t *v)
{
	uint64_t x = 0;
	size_t n, digits = 0;

	while (!at_newline(s) && (n = space_len(s)))
		s->pos += n;
	for (; s->pos < s->size && s->buf[s->pos] >= '0' && s->buf[s->pos] <= '9'; s->pos++) {
		x = x * 10 + s->buf[s->pos] - '0';
		if (x > UINT32_MAX)
			return false;
		digits++;
	}
	*v = (uint32_t)x;
	return digits;
}

/*
 * fmt.Fscanf(r, "go 1.%d trace\x00\x00\x00", &v) on the trace's first @len
 * bytes, then the versions Go knows. *@end: where the scan stopped.
 */
static int scan_header(struct gt2_trace *t, const uint8_t *buf, size_t len, size_t *end,
		       struct gt_error *err)
{
	struct scan s = { buf, len, 0 };
	uint32_t v;
	bool ok;

	ok = scan_literal(&s, "go", 2) && scan_space(&s) && scan_literal(&s, "1.", 2) &&
	     scan_u32(&s, &v) && scan_space(&s) && scan_literal(&s, "trace\0\0\0", 8);
	*end = s.pos;
	if (!ok) {
		gt_fail(err, GT_ERR_WIRE, 0, "bad file format: not a Go execution trace?");
		return -1;
	}
	if (v == 22 || v == 23 || v == 25 || v == 26) {
		t->start = s.pos;
		t->ver = GT_VER((int)v);
		return 0;
	}
	if (v == 11 || v == 19 || v == 21)
		gt_fail(err, GT_ERR_WIRE, 0, "go 1.%u trace: the pre-1.22 format; this reader "
			"takes go 1.22, 1.23, 1.25 and 1.26 traces", v);
	else
		gt_fail(err, GT_ERR_WIRE, 0, "unknown or unsupported trace version go 1.%u", v);
	return -1;
}

/*
 * The header, scanned in a prefix of the trace that grows until the scan
 * stops far enough before its end (it looks 8 bytes ahead at most) that the
 * rest cannot change what it finds.
 */
static int read_header(struct gt2_trace *t, struct gt_error *err)
{
	size_t len = 64, end;
	uint8_t *buf = NULL, *p;
	int r;

	for (;;) {
		len = len < t->size ? len : t->size;
		p = realloc(buf, len ? len : 1);
		if (!p) {
			gt_fail(err, GT_OK, 0, "out of memory");
			r = -1;
			break;
		}
		buf = p;
		r = gt2_read(t, 0, buf, len, err);
		if (r)
			break;
		r = scan_header(t, buf, len, &end, err);
		if (len == t->size || end + 16 <= len)
			break;
		len *= 2;
	}
	free(buf);
	return r;
}

/* pread() until @len bytes are in. */
static int read_fd(int fd, uint64_t off, uint8_t *buf, size_t len, struct gt_error *err)
{
	ssize_t n;

	while (len) {
		n = pread(fd, buf, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			gt_fail(err, GT_OK, off, "cannot read: %s", strerror(errno));
			return -1;
		}
		if (!n) {
			gt_fail(err, GT_OK, off, "cannot read: the file got shorter");
			return -1;
		}
		buf += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int gt2_read(const struct gt2_trace *t, uint64_t off, void *buf, size_t len,
	     struct gt_error *err)
{
	if (t->fd >= 0)
		return read_fd(t->fd, off, buf, len, err);
	if (len)
		memcpy(buf, t->data + off, len);
	return 0;
}

static int trace_new(const void *data, size_t size, int fd, struct gt2_trace **tp,
		     struct gt_error *err)
{
	struct gt2_trace *t = calloc(1, sizeof(*t));

	if (!t) {
		gt_fail(err, GT_OK, 0, "out of memory");
		return -1;
	}
	t->data = data;
	t->size = size;
	t->fd = fd;
	if (read_header(t, err)) {
		free(t);
		return -1;
	}
	*tp = t;
	return 0;
}

int gt2_open_mem(const void *data, size_t size, struct gt2_trace **t, struct gt_error *err)
{
	return trace_new(data, size, -1, t, err);
}

int gt2_open(const char *path, struct gt2_trace **t, struct gt_error *err)
{
	const void *data;
	size_t size;
	int fd;

	if (gt_map_file(path, &data, &size, &fd, err))
		return -1;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);	/* read forward, in generations */
	if (!trace_new(data, size, fd, t, err))
		return 0;
	if (data)
		munmap((void *)data, size);
	close(fd);
	return -1;
}

void gt2_close(struct gt2_trace *t)
{
	if (!t)
		return;
	if (t->fd >= 0) {
		if (t->data)
			munmap((void *)t->data, t->size);
		close(t->fd);
	}
	free(t);
}

int gt2_version(const struct gt2_trace *t)
{
	return t->ver;
}

uint64_t gt2_size(const struct gt2_trace *t)
{
	return t->size;
}
