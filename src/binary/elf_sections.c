/* The ELF header and section table of a binfile, validated (libelf). */
#include "binary/elf_sections.h"

#include <elf.h>
#include <gelf.h>
#include <libelf.h>

#include "util/common.h"

/* Where the synthetic layout of an object file's sections starts. */
#define OBJECT_BASE 0x100000ULL

static const char *machine_name(unsigned machine)
{
	switch (machine) {
	case EM_X86_64: return "x86-64";
	case EM_AARCH64: return "aarch64";
	case EM_386: return "i386";
	case EM_ARM: return "arm";
	case EM_MIPS: return "mips";
	case EM_PPC: return "ppc";
	case EM_PPC64: return "ppc64";
	case EM_S390: return "s390";
	case EM_RISCV: return "riscv";
	case EM_SPARCV9: return "sparcv9";
	case EM_LOONGARCH: return "loongarch";
	default: return NULL;
	}
}

static int check_header(struct binfile *bf, Elf *elf, GElf_Ehdr *eh)
{
	const char *m;
	if (elf_kind(elf) == ELF_K_AR)
		return error("%s: is an ar archive; pass the object files it contains", bf->path);
	if (elf_kind(elf) != ELF_K_ELF)
		return error("%s: not an ELF file (bindiff compares executables, shared libraries "
			     "and object files)",
			     bf->path);
	if (!gelf_getehdr(elf, eh))
		return error("%s: truncated or corrupt ELF header (%s)", bf->path, elf_errmsg(-1));
	m = machine_name(eh->e_machine);
	if ((eh->e_machine != EM_X86_64 && eh->e_machine != EM_AARCH64) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB) {
		if (m)
			return error("%s: unsupported architecture %s%s (bindiff reads x86-64 and "
				     "aarch64)",
				     bf->path, m,
				     eh->e_ident[EI_CLASS] == ELFCLASS64 ? "" : " (32-bit)");
		return error("%s: unsupported architecture (ELF machine %u; bindiff reads x86-64 "
			     "and aarch64)",
			     bf->path, (unsigned)eh->e_machine);
	}
	bf->machine = eh->e_machine;
	bf->entry = eh->e_entry;
	bf->arch = m;
	switch (eh->e_type) {
	case ET_EXEC: bf->kind = BINFILE_EXEC; break;
	case ET_DYN: bf->kind = BINFILE_SHARED; break; /* PIE: see has_interp() */
	case ET_REL: bf->kind = BINFILE_OBJECT; break;
	case ET_CORE:
		return error("%s: is a core dump, not a program; pass the executable", bf->path);
	default:
		return error("%s: unsupported ELF type %u (bindiff compares executables, shared "
			     "libraries and object files)",
			     bf->path, (unsigned)eh->e_type);
	}
	return 0;
}

/* A file cut short says so, rather than failing later on a missing section. */
static int check_extent(struct binfile *bf, Elf *elf, const GElf_Ehdr *eh)
{
	size_t size = 0;
	uint64_t shnum = eh->e_shnum ? eh->e_shnum : 1;
	if (!elf_rawfile(elf, &size))
		return error("%s: cannot read the file (%s)", bf->path, elf_errmsg(-1));
	if (eh->e_shoff && (eh->e_shoff > size || shnum * eh->e_shentsize > size - eh->e_shoff))
		return error("%s: truncated ELF file: its section table (offset %llu) lies "
			     "beyond its end (%zu bytes)",
			     bf->path, (unsigned long long)eh->e_shoff, size);
	if (!eh->e_shoff)
		return error("%s: ELF file without a section table; bindiff needs one", bf->path);
	return 0;
}

/* A PIE has an interpreter; a shared library normally does not. */
static bool has_interp(Elf *elf)
{
	size_t i, n;
	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			return true;
	}
	return false;
}

/* The sections whose contents the readers need; the rest (debug, notes) stay unread. */
static bool wanted(const GElf_Shdr *sh)
{
	switch (sh->sh_type) {
	case SHT_SYMTAB:
	case SHT_DYNSYM:
	case SHT_STRTAB:
	case SHT_RELA:
	case SHT_SYMTAB_SHNDX: return true;
	case SHT_NOBITS: return false;
	default: return (sh->sh_flags & SHF_ALLOC) != 0;
	}
}

static int read_section(struct binfile *bf, Elf *elf, size_t shstrndx, Elf_Scn *scn,
			struct bin_section *s, uint64_t *cursor, size_t file_size)
{
	GElf_Shdr sh;
	const char *name;
	if (!gelf_getshdr(scn, &sh))
		return error("%s: truncated or corrupt ELF section header (%s)", bf->path,
			     elf_errmsg(-1));
	name = elf_strptr(elf, shstrndx, sh.sh_name);
	s->name = name ? name : "";
	s->name_hash = binhash_str(s->name);
	s->size = sh.sh_size;
	s->flags = sh.sh_flags;
	s->type = sh.sh_type;
	s->link = sh.sh_link;
	s->info = sh.sh_info;
	s->entsize = sh.sh_entsize;
	s->scn = scn;
	s->addr = sh.sh_addr;
	if (bf->kind == BINFILE_OBJECT && (sh.sh_flags & SHF_ALLOC)) {
		uint64_t align =
		    sh.sh_addralign > 16 && sh.sh_addralign <= 4096 ? sh.sh_addralign : 16;
		/* The layout must not wrap: sizes are untrusted. */
		if (sh.sh_size > BINFILE_MAX_BYTES)
			return error("%s: corrupt ELF: section %s is larger than the file",
				     bf->path, s->name);
		s->addr = (*cursor + align - 1) & ~(align - 1);
		*cursor = s->addr + sh.sh_size;
	}
	if (sh.sh_type != SHT_NOBITS && sh.sh_size &&
	    (sh.sh_offset > file_size || sh.sh_size > file_size - sh.sh_offset))
		return error("%s: truncated ELF file: section %s (offset %llu, %llu bytes) lies "
			     "beyond its end (%zu bytes)",
			     bf->path, s->name, (unsigned long long)sh.sh_offset,
			     (unsigned long long)sh.sh_size, file_size);
	if (wanted(&sh) && sh.sh_size) {
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || (d->d_size && !d->d_buf))
			return error("%s: truncated or corrupt ELF: cannot read section %s (%s)",
				     bf->path, s->name, elf_errmsg(-1));
		s->data = d->d_buf;
		s->data_size = d->d_size;
	}
	return 0;
}

int elf_sections_read(struct binfile *bf)
{
	Elf *elf = bf->elf;
	GElf_Ehdr eh;
	size_t shnum, shstrndx, i, file_size = 0;
	uint64_t cursor = OBJECT_BASE;

	if (check_header(bf, elf, &eh) || check_extent(bf, elf, &eh))
		return RP_EINPUT;
	elf_rawfile(elf, &file_size);
	if (bf->kind == BINFILE_SHARED && has_interp(elf))
		bf->kind = BINFILE_PIE;
	if (elf_getshdrnum(elf, &shnum) || elf_getshdrstrndx(elf, &shstrndx)) {
		error("%s: truncated or corrupt ELF section table (%s)", bf->path, elf_errmsg(-1));
		return RP_EINPUT;
	}
	if (!shnum || shnum > BINFILE_MAX_SECTIONS) {
		error("%s: ELF file with %zu sections; bindiff needs the section table", bf->path,
		      shnum);
		return RP_EINPUT;
	}
	bf->sections = xcalloc(shnum, sizeof(*bf->sections));
	bf->nr_sections = shnum;
	bf->sections[0].name = "";
	for (i = 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		if (!scn) {
			error("%s: truncated or corrupt ELF: no section %zu (%s)", bf->path, i,
			      elf_errmsg(-1));
			return RP_EINPUT;
		}
		if (read_section(bf, elf, shstrndx, scn, &bf->sections[i], &cursor, file_size))
			return RP_EINPUT;
	}
	return 0;
}

void elf_sections_release(struct binfile *bf)
{
	free(bf->sections);
	bf->sections = NULL;
	bf->nr_sections = 0;
	free(bf->dynlink.imports);
	memset(&bf->dynlink, 0, sizeof(bf->dynlink));
}
