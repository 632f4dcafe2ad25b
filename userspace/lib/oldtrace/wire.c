// SPDX-License-Identifier: GPL-2.0
/* The wire format: header, varints and one event at a time (Go's readTrace). */
#include <string.h>

#include "internal.h"

/* Go's parseHeader(): "go 1.N trace" or "go 1.NN trace", NUL padded. */
int gt_parse_header(const uint8_t *buf, size_t size, int *ver, struct gt_error *err)
{
	static const char tail[] = " trace\0\0\0\0";
	int v, i;

	if (size < GT_HEADER_SIZE) {
		gt_fail(err, GT_ERR_WIRE, 0, "file is %zu bytes, shorter than the 16-byte header: "
			"not a trace, or cut short", size);
		return -1;
	}
	if (memcmp(buf, "go 1.", 5) || buf[5] < '1' || buf[5] > '9')
		goto bad;
	v = buf[5] - '0';
	for (i = 0; i < 2 && buf[6 + i] >= '0' && buf[6 + i] <= '9'; i++)
		v = v * 10 + buf[6 + i] - '0';
	if (memcmp(buf + 6 + i, tail, 10 - i))
		goto bad;
	*ver = GT_VER(v);
	if ((v >= 7 && v <= 11) || v == 19 || v == 21)
		return 0;
	gt_fail(err, GT_ERR_WIRE, 0, "unsupported trace version go 1.%d: this reader takes "
		"1.7 to 1.11, 1.19 and 1.21", v);
	return -1;
bad:
	gt_fail(err, GT_ERR_WIRE, 0, "not a Go trace: the file must start with "
		"\"go 1.NN trace\" and NUL padding to 16 bytes");
	return -1;
}

int gt_header_version(const void *data, size_t size)
{
	struct gt_error err;
	int ver;

	return gt_parse_header(data, size, &ver, &err) ? 0 : ver;
}

bool gt_uvarint(const uint8_t *buf, size_t size, uint64_t *off, uint64_t *v)
{
	uint64_t o = *off, x = 0;
	unsigned int i;

	for (i = 0; i < 10 && o < size; i++) {
		uint8_t b = buf[o++];

		/* As Go: bits past 64 are dropped, not an error. */
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*off = o;
			*v = x;
			return true;
		}
	}
	return false;
}

/* A varint has at most this many bytes: one starting further from the end cannot run past it. */
#define VARINT_MAX	10

/* gt_uvarint(), without a bounds check on each byte far from the end of the data. */
static inline bool wire_uvarint(const uint8_t *buf, size_t size, uint64_t *off, uint64_t *v)
{
	const uint8_t *p = buf + *off;
	unsigned int i;
	uint64_t x;

	if (size - *off <= VARINT_MAX)
		return gt_uvarint(buf, size, off, v);
	x = *p;
	if (x < 0x80) {
		*off += 1;
		*v = x;
		return true;
	}
	x &= 0x7f;
	for (i = 1; *p++ & 0x80; i++) {
		if (i == VARINT_MAX)
			return false;
		x |= (uint64_t)(*p & 0x7f) << (7 * i);
	}
	*off = (uint64_t)(p - buf);
	*v = x;
	return true;
}

static int varint_fail(const uint8_t *buf, size_t size, uint64_t off, const struct gt_raw *raw,
		       struct gt_error *err)
{
	const char *name = gt_descs[raw->type].name;
	uint64_t n = size - off;

	if (n >= 10 && (buf[off + 9] & 0x80))
		gt_fail(err, GT_ERR_WIRE, off, "%s at offset %llu: bad varint: more than 10 bytes "
			"with the continuation bit", name, (unsigned long long)raw->off);
	else
		gt_fail(err, GT_ERR_WIRE, off, "%s at offset %llu: the file ends inside the event: "
			"the trace is cut short", name, (unsigned long long)raw->off);
	return -1;
}

/* A String event: [id, length, bytes]. */
static int wire_string(const uint8_t *buf, size_t size, uint64_t off, struct gt_raw *raw,
		       struct gt_error *err)
{
	uint64_t len;

	if (!gt_uvarint(buf, size, &off, &raw->args[0]) || !gt_uvarint(buf, size, &off, &len))
		return varint_fail(buf, size, off, raw, err);
	raw->nargs = 1;
	if (!raw->args[0]) {
		gt_fail(err, GT_ERR_WIRE, raw->off, "String at offset %llu has id 0: ids start at 1",
			(unsigned long long)raw->off);
		return -1;
	}
	if (!len || len > GT_MAX_STRING) {
		gt_fail(err, GT_ERR_WIRE, raw->off, "String at offset %llu has length %llu: "
			"it must be 1 to %d bytes", (unsigned long long)raw->off,
			(unsigned long long)len, GT_MAX_STRING);
		return -1;
	}
	if (len > size - off) {
		gt_fail(err, GT_ERR_WIRE, raw->off, "String at offset %llu: the file ends inside "
			"its %llu bytes: the trace is cut short", (unsigned long long)raw->off,
			(unsigned long long)len);
		return -1;
	}
	raw->str_off = off;
	raw->str_len = len;
	raw->end = off + len;
	return 1;
}

static void keep_arg(struct gt_raw *raw, uint64_t v)
{
	if (raw->nargs < GT_RAW_ARGS)
		raw->args[raw->nargs] = v;
	raw->nargs++;
}

/* Arguments after a byte length: [length, values...]. */
static int wire_sized_args(const uint8_t *buf, size_t size, uint64_t *off, struct gt_raw *raw,
			   struct gt_error *err)
{
	uint64_t len, v, start;

	if (!gt_uvarint(buf, size, off, &len))
		return varint_fail(buf, size, *off, raw, err);
	start = *off;
	raw->args_off = start;
	while (*off - start < len) {
		if (!wire_uvarint(buf, size, off, &v))
			return varint_fail(buf, size, *off, raw, err);
		keep_arg(raw, v);
	}
	if (*off - start != len) {
		gt_fail(err, GT_ERR_WIRE, raw->off, "%s at offset %llu has the wrong length: "
			"its prefix says %llu bytes, its arguments take %llu",
			gt_descs[raw->type].name, (unsigned long long)raw->off,
			(unsigned long long)len, (unsigned long long)(*off - start));
		return -1;
	}
	return 0;
}

/* UserLog's value: [length, bytes] after the arguments; length 0 is "". */
static int wire_log_value(const uint8_t *buf, size_t size, uint64_t *off, struct gt_raw *raw,
			  struct gt_error *err)
{
	uint64_t len;

	if (!gt_uvarint(buf, size, off, &len))
		return varint_fail(buf, size, *off, raw, err);
	if (len > GT_MAX_STRING) {
		gt_fail(err, GT_ERR_WIRE, raw->off, "UserLog at offset %llu: value of %llu bytes, "
			"over the %d-byte limit", (unsigned long long)raw->off,
			(unsigned long long)len, GT_MAX_STRING);
		return -1;
	}
	if (len > size - *off) {
		gt_fail(err, GT_ERR_WIRE, raw->off, "UserLog at offset %llu: the file ends inside "
			"its value: the trace is cut short", (unsigned long long)raw->off);
		return -1;
	}
	raw->str_off = *off;
	raw->str_len = len;
	*off += len;
	return 0;
}

int gt_wire_next(const uint8_t *buf, size_t size, uint64_t off, int ver,
		 struct gt_raw *raw, struct gt_error *err)
{
	unsigned int narg, i;
	uint64_t v;

	if (off >= size)
		return 0;
	raw->off = off;
	raw->type = buf[off] & 0x3f;
	raw->nargs = 0;
	raw->str_len = 0;
	narg = (buf[off] >> 6) + 1;
	off++;
	if (raw->type == GT_EV_NONE || raw->type >= GT_EV_COUNT ||
	    gt_descs[raw->type].min_ver > ver) {
		gt_fail(err, GT_ERR_WIRE, raw->off, "unknown event type %u at offset %llu "
			"(in a go 1.%d trace): the data is corrupt", raw->type,
			(unsigned long long)raw->off, ver - 1000);
		return -1;
	}
	if (raw->type == GT_EV_STRING)
		return wire_string(buf, size, off, raw, err);
	raw->args_off = off;
	if (narg < 4) {
		for (i = 0; i < narg; i++) {
			if (!wire_uvarint(buf, size, &off, &v))
				return varint_fail(buf, size, off, raw, err);
			keep_arg(raw, v);
		}
	} else if (wire_sized_args(buf, size, &off, raw, err)) {
		return -1;
	}
	if (raw->type == GT_EV_USER_LOG && wire_log_value(buf, size, &off, raw, err))
		return -1;
	raw->end = off;
	return 1;
}
