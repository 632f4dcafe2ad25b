// SPDX-License-Identifier: GPL-2.0
/*
 * A module's GNU build id: Kbuild links each module with one, and the kernel
 * shows a loaded module's notes in sysfs, so that gotrace load --update can
 * tell whether the loaded gotrace.ko is the installed one (DKMS rebuilds it).
 */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kmod/build_id.h"

#define BUILD_ID_SECTION ".note.gnu.build-id"

/* The build id section of the ELF64 image @buf of @len bytes, into @note: its size, or 0. */
static size_t elf_build_id(const unsigned char *buf, size_t len,
			   unsigned char note[BUILD_ID_NOTE_MAX])
{
	Elf64_Shdr sh, names;
	Elf64_Ehdr eh;
	size_t i;

	if (len < sizeof(eh))
		return 0;
	memcpy(&eh, buf, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(sh) || eh.e_shoff > len ||
	    eh.e_shnum > (len - eh.e_shoff) / sizeof(sh) || eh.e_shstrndx >= eh.e_shnum)
		return 0;
	memcpy(&names, buf + eh.e_shoff + eh.e_shstrndx * sizeof(sh), sizeof(names));
	if (names.sh_offset > len || names.sh_size > len - names.sh_offset)
		return 0;
	for (i = 0; i < eh.e_shnum; i++) {
		const char *name;

		memcpy(&sh, buf + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (sh.sh_type != SHT_NOTE || sh.sh_name >= names.sh_size)
			continue;
		name = (const char *)buf + names.sh_offset + sh.sh_name;
		if (strnlen(name, names.sh_size - sh.sh_name) != strlen(BUILD_ID_SECTION) ||
		    memcmp(name, BUILD_ID_SECTION, strlen(BUILD_ID_SECTION)))
			continue;
		if (sh.sh_offset > len || sh.sh_size > len - sh.sh_offset ||
		    sh.sh_size > BUILD_ID_NOTE_MAX)
			return 0;
		memcpy(note, buf + sh.sh_offset, sh.sh_size);
		return sh.sh_size;
	}
	return 0;
}

size_t build_id_of_file(const char *path, unsigned char note[BUILD_ID_NOTE_MAX])
{
	struct stat st;
	size_t len = 0;
	void *map;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (!fstat(fd, &st) && st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED) {
			len = elf_build_id(map, (size_t)st.st_size, note);
			munmap(map, (size_t)st.st_size);
		}
	}
	close(fd);
	return len;
}

size_t build_id_of_loaded(const char *name, unsigned char note[BUILD_ID_NOTE_MAX])
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/%s/notes/" BUILD_ID_SECTION, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, note, BUILD_ID_NOTE_MAX);
	close(fd);
	return n > 0 ? (size_t)n : 0;
}

void build_id_hex(const unsigned char *note, size_t len, char hex[13])
{
	uint32_t namesz, descsz;
	size_t desc, i;

	hex[0] = '\0';
	if (len < 12)
		return;
	memcpy(&namesz, note, 4);
	memcpy(&descsz, note + 4, 4);
	desc = 12 + ((namesz + 3) & ~3u);
	for (i = 0; i < descsz && i < 6 && desc + i < len; i++)
		sprintf(hex + 2 * i, "%02x", note[desc + i]);
}
