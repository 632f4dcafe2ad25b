// SPDX-License-Identifier: GPL-2.0
/* Unsigned varints (LEB128) as Go writes them: the old format's encoder and pprof's protobuf. */
#include "gtrace.h"

size_t gt_put_uvarint(uint8_t *buf, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		buf[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	buf[n++] = (uint8_t)v;
	return n;
}
