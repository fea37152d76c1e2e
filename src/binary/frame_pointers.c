#include "binary/frame_pointers.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "util/common.h"

/*
 * x86-64: the function sets up a frame pointer: mov %rsp,%rbp (either encoding) within
 * its first bytes. Not only at the entry: compilers schedule other instructions between
 * push %rbp and the move, and shrink-wrapping puts the prologue after an early exit.
 */
#define PROLOGUE_WINDOW 64
static bool has_prologue(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i + 3 <= n; i++)
		if (p[i] == 0x48 && ((p[i + 1] == 0x89 && p[i + 2] == 0xe5) ||
				     (p[i + 1] == 0x8b && p[i + 2] == 0xec)))
			return true;
	return false;
}

/* The executable section holding [addr, addr + size), or NULL. */
static Elf_Scn *code_section(Elf *elf, size_t shndx, GElf_Addr addr, GElf_Xword size,
			     GElf_Shdr *shdr)
{
	Elf_Scn *scn = elf_getscn(elf, shndx);

	if (!scn || !gelf_getshdr(scn, shdr) || shdr->sh_type != SHT_PROGBITS ||
	    !(shdr->sh_flags & SHF_EXECINSTR) || addr < shdr->sh_addr ||
	    addr - shdr->sh_addr > shdr->sh_size || size > shdr->sh_size - (addr - shdr->sh_addr))
		return NULL;
	return scn;
}

/* The C runtime's start-up code, linked into every program, built without frame pointers:
 * in a small program it would outnumber the program's own functions. */
static bool is_crt(const char *name)
{
	static const char *const crt[] = {
	    "_start",
	    "_init",
	    "_fini",
	    "deregister_tm_clones",
	    "register_tm_clones",
	    "__do_global_dtors_aux",
	    "frame_dummy",
	    "__libc_csu_init",
	    "__libc_csu_fini",
	    "_dl_relocate_static_pie",
	};
	for (size_t i = 0; i < ARRAY_SIZE(crt); i++)
		if (!strcmp(name, crt[i]))
			return true;
	return false;
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

static void count_table(Elf *elf, Elf_Scn *symtab, size_t *with_fp, size_t *functions)
{
	GElf_Shdr sh;
	Elf_Data *syms = elf_getdata(symtab, NULL);
	size_t n;

	if (!syms || !gelf_getshdr(symtab, &sh) || !sh.sh_entsize)
		return;
	n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		GElf_Shdr code;
		Elf_Scn *scn;
		Elf_Data *d;
		size_t off;

		const char *name;

		if (!gelf_getsym(syms, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
		    s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE || s.st_size < 4)
			continue;
		name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (name && is_crt(name))
			continue;
		scn = code_section(elf, s.st_shndx, s.st_value, s.st_size, &code);
		if (!scn || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		off = (size_t)(s.st_value - code.sh_addr);
		if (off >= d->d_size)
			continue;
		(*functions)++;
		if (has_prologue(
			(const unsigned char *)d->d_buf + off,
			min_size(min_size(d->d_size - off, (size_t)s.st_size), PROLOGUE_WINDOW)))
			(*with_fp)++;
	}
}

int frame_pointer_count(const char *path, size_t *with_fp, size_t *functions)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Ehdr eh;
	Elf *elf = NULL;
	int fd, ret = -1;

	*with_fp = *functions = 0;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_machine != EM_X86_64)
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
	}
	if (symtab || dynsym)
		count_table(elf, symtab ? symtab : dynsym, with_fp, functions);
	ret = 0;
out:
	elf_end(elf);
	close(fd);
	return ret;
}
