/* SPDX-License-Identifier: GPL-2.0 */
/* A module's GNU build id, from its file and from the running kernel (build_id.c). */
#ifndef GOTRACE_BUILD_ID_H
#define GOTRACE_BUILD_ID_H

#include <stddef.h>

/* Room for a build id note: its header, "GNU" and a hash of up to 64 bytes. */
#define BUILD_ID_NOTE_MAX 96

/*
 * The .note.gnu.build-id section of @path, an uncompressed ELF64 module, into
 * @note: its size, or 0 if there is none to read (a compressed file too).
 */
size_t build_id_of_file(const char *path, unsigned char note[BUILD_ID_NOTE_MAX]);
/* The same note of the loaded module @name (/sys/module/NAME/notes): its size, or 0. */
size_t build_id_of_loaded(const char *name, unsigned char note[BUILD_ID_NOTE_MAX]);
/* The hash in @note as hex, at most 12 digits (as git abbreviates), into @hex. */
void build_id_hex(const unsigned char *note, size_t len, char hex[13]);

#endif /* GOTRACE_BUILD_ID_H */
