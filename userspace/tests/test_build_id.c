// SPDX-License-Identifier: GPL-2.0
/*
 * kmod/build_id.c on this test's own executable, whose build id the Makefile
 * reads with readelf -n (argv[1]); and on files it must find none in: cut
 * short, not ELF, missing. TAP output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmod/build_id.h"
#include "tap.h"

/* The first @len bytes of @src into a new file @dst; false on failure. */
static bool copy_prefix(const char *src, const char *dst, long len)
{
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	bool ok = in && out;
	int c;

	while (ok && len-- > 0 && (c = getc(in)) != EOF)
		ok = putc(c, out) != EOF;
	if (in)
		fclose(in);
	if (out && fclose(out))
		ok = false;
	return ok;
}

int main(int argc, char *argv[])
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	unsigned char note[BUILD_ID_NOTE_MAX];
	char hex[13], want[13], path[4096];
	size_t n;

	if (argc < 2 || strlen(argv[1]) < 12) {
		fprintf(stderr, "usage: %s BUILD_ID (readelf -n's, of this program)\n", argv[0]);
		return 2;
	}
	snprintf(want, sizeof(want), "%.12s", argv[1]);
	n = build_id_of_file("/proc/self/exe", note);
	build_id_hex(note, n, hex);
	tap_ok(n == 36 && !strcmp(hex, want), "its own build id: %zu bytes, %s (readelf: %s)", n,
	       hex, want);

	snprintf(path, sizeof(path), "%s/test_build_id.%d", tmp, (int)getpid());
	tap_ok(copy_prefix("/proc/self/exe", path, 4096) && !build_id_of_file(path, note),
	       "cut to 4096 bytes (no section headers): none");
	tap_ok(copy_prefix("/proc/self/exe", path, 40) && !build_id_of_file(path, note),
	       "cut inside the ELF header: none");
	tap_ok(copy_prefix("/etc/hostname", path, 4096) && !build_id_of_file(path, note),
	       "not ELF: none");
	remove(path);
	tap_ok(!build_id_of_file(path, note), "no such file: none");
	tap_ok(!build_id_of_loaded("gotrace-no-such-module", note), "no such loaded module: none");
	build_id_hex(note, 4, hex);
	tap_ok(!hex[0], "a note too short for its header: no hex");
	return tap_done();
}
