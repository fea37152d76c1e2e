/*
 * Symbolization of run-time addresses after the run: memory maps (struct proc_maps) and
 * ELF modules opened once with libdwfl (struct symbolizer). See symbolize.h.
 *
 * C++ names are demangled with libstdc++'s __cxa_demangle, found at run time with dlopen()
 * (libstdc++.so.6 is installed with g++ and every C++ program): the engine stays a C
 * library with no link-time C++ dependency, and without libstdc++ names stay mangled.
 */
#include "binary/symbolize.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "binary/dwfl_nodebug.h"
#include "util/common.h"
#include "util/input.h"

/* Caps on untrusted input. */
#define MAPS_MAX_LINES ((size_t)1 << 20)
#define MAX_LOADS 4096 /* PT_LOAD segments kept per module */

/* ---- memory maps ---------------------------------------------------------------------- */

void proc_maps_init(struct proc_maps *m)
{
	memset(m, 0, sizeof(*m));
}

void proc_maps_release(struct proc_maps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nr; i++)
		free(m->maps[i].path);
	free(m->maps);
	memset(m, 0, sizeof(*m));
}

/* Parses lower- or upper-case hex digits [*p, end) up to a non-digit; false when none or overflow.
 */
static bool parse_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	size_t n = 0;
	while (s < end) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (v >> 60)
			return false;
		v = v << 4 | (uint64_t)d;
		s++;
		n++;
	}
	if (!n)
		return false;
	*p = s;
	*out = v;
	return true;
}

static bool parse_dec(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	size_t n = 0;
	while (s < end && *s >= '0' && *s <= '9') {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
		s++;
		n++;
	}
	if (!n)
		return false;
	*p = s;
	*out = v;
	return true;
}

static bool expect_char(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return false;
	(*p)++;
	return true;
}

int proc_maps_add_line(struct proc_maps *m, const char *line, size_t len)
{
	static const char deleted[] = " (deleted)";
	const char *p = line, *end = line + len;
	struct proc_map map;
	uint64_t major, minor;

	memset(&map, 0, sizeof(map));
	if (len && end[-1] == '\n')
		end--;
	if (!parse_hex(&p, end, &map.start) || !expect_char(&p, end, '-') ||
	    !parse_hex(&p, end, &map.end) || !expect_char(&p, end, ' ') || map.start >= map.end)
		return -1;
	if (end - p < 5 || p[4] != ' ')
		return -1;
	for (int i = 0; i < 4; i++) {
		if (!strchr("rwxsp-", p[i]) || !p[i])
			return -1;
		map.perms[i] = p[i];
	}
	p += 5;
	if (!parse_hex(&p, end, &map.offset) || !expect_char(&p, end, ' ') ||
	    !parse_hex(&p, end, &major) || !expect_char(&p, end, ':') ||
	    !parse_hex(&p, end, &minor) || !expect_char(&p, end, ' ') ||
	    !parse_dec(&p, end, &map.inode) || major > UINT32_MAX || minor > UINT32_MAX)
		return -1;
	map.dev_major = (unsigned)major;
	map.dev_minor = (unsigned)minor;
	if (p < end && *p != ' ')
		return -1;
	while (p < end && *p == ' ')
		p++; /* the kernel pads the path to a column; anonymous lines end in one space */
	if (p < end) {
		size_t n = (size_t)(end - p), dn = sizeof(deleted) - 1;
		if (memchr(p, '\0', n))
			return -1;
		if (n > dn && !memcmp(end - dn, deleted, dn)) {
			map.deleted = true;
			n -= dn;
		}
		map.path = xstrndup(p, n);
	}
	if (m->nr >= MAPS_MAX_LINES) {
		free(map.path);
		return -1;
	}
	ALLOC_GROW(m->maps, m->nr + 1, m->alloc);
	/* /proc lists mappings in address order: appending is the common case. */
	size_t at = m->nr;
	while (at > 0 && m->maps[at - 1].start > map.start)
		at--;
	memmove(&m->maps[at + 1], &m->maps[at], (m->nr - at) * sizeof(*m->maps));
	m->maps[at] = map;
	m->nr++;
	return 0;
}

static void maps_insert(struct proc_maps *m, size_t at, const struct proc_map *map)
{
	ALLOC_GROW(m->maps, m->nr + 1, m->alloc);
	memmove(&m->maps[at + 1], &m->maps[at], (m->nr - at) * sizeof(*m->maps));
	m->maps[at] = *map;
	m->nr++;
}

void proc_maps_replace(struct proc_maps *m, const struct proc_map *map)
{
	struct proc_map add = *map;
	size_t i = 0;

	while (i < m->nr) {
		struct proc_map *o = &m->maps[i];
		if (o->end <= map->start || o->start >= map->end) {
			i++;
			continue;
		}
		if (o->start < map->start && o->end > map->end) {
			/* Split: the part after the new mapping becomes its own. */
			struct proc_map tail = *o;
			tail.path = o->path ? xstrdup(o->path) : NULL;
			tail.offset += map->end - o->start;
			tail.start = map->end;
			o->end = map->start;
			maps_insert(m, i + 1, &tail);
			i += 2;
		} else if (o->start < map->start) {
			o->end = map->start;
			i++;
		} else if (o->end > map->end) {
			o->offset += map->end - o->start;
			o->start = map->end;
			i++;
		} else {
			free(o->path);
			memmove(o, o + 1, (m->nr - i - 1) * sizeof(*m->maps));
			m->nr--;
		}
	}
	add.path = map->path ? xstrdup(map->path) : NULL;
	for (i = m->nr; i > 0 && m->maps[i - 1].start > add.start; i--)
		;
	maps_insert(m, i, &add);
}

void proc_maps_copy(struct proc_maps *to, const struct proc_maps *from)
{
	for (size_t i = 0; i < from->nr; i++) {
		struct proc_map map = from->maps[i];
		map.path = map.path ? xstrdup(map.path) : NULL;
		maps_insert(to, to->nr, &map);
	}
}

int proc_maps_read(struct proc_maps *m, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	size_t pos = 0, lineno = 0;
	int ret = 0;

	if ((ret = input_read(&sb, path, &input_state)))
		goto out;
	while (pos < sb.len) {
		const char *line = sb.buf + pos;
		const char *nl = memchr(line, '\n', sb.len - pos);
		size_t n = nl ? (size_t)(nl - line) : sb.len - pos;
		pos += n + (nl ? 1 : 0);
		lineno++;
		if (proc_maps_add_line(m, line, n)) {
			error(
			    "%s:%zu: not a memory map line (START-END PERMS OFFSET DEV INODE PATH)",
			    path, lineno);
			ret = RP_EINPUT;
			goto out;
		}
	}
out:
	strbuf_release(&sb);
	return ret;
}

const struct proc_map *proc_maps_find(const struct proc_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nr;
	/* The last mapping starting at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= m->maps[lo - 1].end)
		return NULL;
	return &m->maps[lo - 1];
}

int proc_maps_resolve(const struct proc_maps *m, uint64_t addr, const char **module,
		      uint64_t *file_offset)
{
	const struct proc_map *map = proc_maps_find(m, addr);
	*module = NULL;
	*file_offset = addr;
	if (!map || !map->path)
		return -1;
	*module = map->path;
	*file_offset = addr - map->start + map->offset;
	return 0;
}

/* ---- the symbolizer ------------------------------------------------------------------- */

struct sym_load {
	uint64_t offset, filesz, vaddr;
};

struct sym_cache_entry {
	uint64_t vaddr;
	bool used;
	struct sym_loc loc;
};

struct sym_demangled {
	const char *mangled; /* borrowed from the module's symbol table: stable while open */
	char *name;	     /* owned */
};

struct sym_module {
	char *path;
	bool failed; /* unreadable: warned once, never retried */
	Dwfl *dwfl;  /* one session per module, owning the file */
	Dwfl_Module *mod;
	GElf_Addr bias; /* dwfl address = ELF virtual address + bias */
	struct sym_load *loads;
	size_t nr_loads;
	struct sym_cache_entry *cache; /* open addressing by vaddr */
	size_t cache_size, cache_used;
};

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

struct symbolizer {
	struct sym_module **modules;
	size_t nr_modules, alloc_modules;
	uint32_t *module_table; /* open addressing by path: module index + 1, 0 = empty */
	size_t module_table_size;
	struct sym_module *last; /* one-entry cache: consecutive lookups hit one module */

	struct sym_demangled *demangled; /* open addressing by mangled pointer */
	size_t demangled_size, demangled_used;
	bool cxx_tried, inlines;
	void *cxx_handle;
	cxa_demangle_fn cxa_demangle;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

static uint64_t hash_u64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return v;
}

static const Dwfl_Callbacks module_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_no_debuginfo, /* DWARF in the files only */
};

struct symbolizer *symbolizer_new(void)
{
	struct symbolizer *sym = xcalloc(1, sizeof(*sym));
	sym->module_table_size = 64;
	sym->module_table = xcalloc(sym->module_table_size, sizeof(*sym->module_table));
	return sym;
}

static void module_free(struct sym_module *mod)
{
	if (!mod)
		return;
	if (mod->dwfl)
		dwfl_end(mod->dwfl);
	free(mod->loads);
	for (size_t i = 0; i < mod->cache_size; i++)
		free((void *)mod->cache[i].loc.inlines);
	free(mod->cache);
	free(mod->path);
	free(mod);
}

void symbolizer_free(struct symbolizer *sym)
{
	if (!sym)
		return;
	for (size_t i = 0; i < sym->nr_modules; i++)
		module_free(sym->modules[i]);
	free(sym->modules);
	free(sym->module_table);
	for (size_t i = 0; i < sym->demangled_size; i++)
		free(sym->demangled[i].name);
	free(sym->demangled);
	if (sym->cxx_handle)
		dlclose(sym->cxx_handle);
	free(sym);
}

/* "[vdso]", "[stack]", "[heap]": kernel names, not files; never warned about. */
static bool pseudo_path(const char *path)
{
	return path[0] != '/';
}

/* Reads the PT_LOAD segments of the module's ELF file; false when there is none. */
static bool module_read_loads(struct sym_module *mod, Elf *elf)
{
	size_t phnum, alloc = 0;
	if (elf_getphdrnum(elf, &phnum) != 0)
		return false;
	for (size_t i = 0; i < phnum && mod->nr_loads < MAX_LOADS; i++) {
		GElf_Phdr phdr;
		if (!gelf_getphdr(elf, (int)i, &phdr) || phdr.p_type != PT_LOAD)
			continue;
		ALLOC_GROW(mod->loads, mod->nr_loads + 1, alloc);
		mod->loads[mod->nr_loads].offset = phdr.p_offset;
		mod->loads[mod->nr_loads].filesz = phdr.p_filesz;
		mod->loads[mod->nr_loads].vaddr = phdr.p_vaddr;
		mod->nr_loads++;
	}
	return mod->nr_loads > 0;
}

/* Opens the module's file; on failure warns once and marks it failed. */
static void module_open(struct sym_module *mod)
{
	struct strbuf why = STRBUF_INIT;
	struct input in;
	Elf *elf;

	if (pseudo_path(mod->path)) {
		mod->failed = true;
		return;
	}
	/* The path comes from a profile: a FIFO or device would block or mean nothing. */
	if (input_open_why(&in, mod->path, &input_binary, &why)) {
		warning("cannot symbolize: %s; its frames are named by address", why.buf);
		strbuf_release(&why);
		mod->failed = true;
		return;
	}
	mod->dwfl = dwfl_begin(&module_callbacks);
	if (!mod->dwfl) {
		warning("cannot symbolize '%s': %s", mod->path, dwfl_errmsg(-1));
		input_close(&in);
		mod->failed = true;
		return;
	}
	dwfl_report_begin(mod->dwfl);
	/* Base 0 with add_p_vaddr: dwfl addresses are the file's virtual addresses (bias 0
	 * for executables and shared libraries alike); the bias is read back to be sure.
	 * The descriptor checked above is read; libdwfl keeps it on success. */
	mod->mod = dwfl_report_elf(mod->dwfl, mod->path, mod->path, in.fd, 0, true);
	if (!mod->mod)
		input_close(&in);
	if (!mod->mod || dwfl_report_end(mod->dwfl, NULL, NULL) != 0 ||
	    !(elf = dwfl_module_getelf(mod->mod, &mod->bias)) || !module_read_loads(mod, elf)) {
		warning("cannot symbolize '%s': not an ELF file with program headers (%s); its "
			"frames are named by address",
			mod->path, dwfl_errmsg(-1));
		dwfl_end(mod->dwfl);
		mod->dwfl = NULL;
		mod->mod = NULL;
		mod->failed = true;
	}
}

static void module_table_insert(struct symbolizer *sym, uint32_t idx)
{
	size_t mask = sym->module_table_size - 1;
	size_t i = (size_t)hash_str(sym->modules[idx]->path) & mask;
	while (sym->module_table[i])
		i = (i + 1) & mask;
	sym->module_table[i] = idx + 1;
}

/* The module for `path`, opened on first use (possibly failed). */
static struct sym_module *module_get(struct symbolizer *sym, const char *path)
{
	if (sym->last && !strcmp(sym->last->path, path))
		return sym->last;
	size_t mask = sym->module_table_size - 1;
	for (size_t i = (size_t)hash_str(path) & mask; sym->module_table[i]; i = (i + 1) & mask) {
		struct sym_module *mod = sym->modules[sym->module_table[i] - 1];
		if (!strcmp(mod->path, path))
			return sym->last = mod;
	}
	struct sym_module *mod = xcalloc(1, sizeof(*mod));
	mod->path = xstrdup(path);
	module_open(mod);
	ALLOC_GROW(sym->modules, sym->nr_modules + 1, sym->alloc_modules);
	sym->modules[sym->nr_modules++] = mod;
	if (sym->nr_modules * 2 > sym->module_table_size) {
		free(sym->module_table);
		sym->module_table_size *= 2;
		sym->module_table = xcalloc(sym->module_table_size, sizeof(*sym->module_table));
		for (size_t i = 0; i < sym->nr_modules; i++)
			module_table_insert(sym, (uint32_t)i);
	} else {
		module_table_insert(sym, (uint32_t)(sym->nr_modules - 1));
	}
	return sym->last = mod;
}

int symbolizer_file_vaddr(struct symbolizer *sym, const char *module_path, uint64_t file_offset,
			  uint64_t *vaddr)
{
	struct sym_module *mod = module_get(sym, module_path);
	*vaddr = file_offset;
	if (mod->failed)
		return -1;
	for (size_t i = 0; i < mod->nr_loads; i++) {
		const struct sym_load *l = &mod->loads[i];
		if (file_offset >= l->offset && file_offset - l->offset < l->filesz) {
			*vaddr = l->vaddr + (file_offset - l->offset);
			return 0;
		}
	}
	return -1;
}

int symbolizer_map_bias(struct symbolizer *sym, const char *module_path, uint64_t start,
			uint64_t pgoff, uint64_t *bias)
{
	struct sym_module *mod = module_get(sym, module_path);
	if (mod->failed)
		return -1;
	for (size_t i = 0; i < mod->nr_loads; i++) {
		const struct sym_load *l = &mod->loads[i];
		/* Inside the segment's file range, or at most 64 KiB (the largest page) before
		 * its unaligned start. */
		if ((pgoff >= l->offset && pgoff - l->offset < l->filesz) ||
		    (pgoff < l->offset && l->offset - pgoff < 65536)) {
			*bias = start - (l->vaddr - l->offset + pgoff);
			return 0;
		}
	}
	return -1;
}

int symbolizer_cfi_start(struct symbolizer *sym, const char *module_path, uint64_t file_vaddr,
			 uint64_t *start)
{
	struct sym_module *mod = module_get(sym, module_path);
	Dwarf_Addr cfi_bias = 0, lo = 0;
	Dwarf_Frame *frame = NULL;
	Dwarf_CFI *cfi;
	int ret = -1;

	if (mod->failed || !mod->mod || !(cfi = dwfl_module_eh_cfi(mod->mod, &cfi_bias)))
		return -1;
	/* The CFI's addresses are the file's (bias 0, see module_open()). */
	if (dwarf_cfi_addrframe(cfi, file_vaddr + mod->bias - cfi_bias, &frame) == 0 &&
	    dwarf_frame_info(frame, &lo, NULL, NULL) >= 0) {
		*start = lo + cfi_bias - mod->bias;
		ret = 0;
	}
	free(frame);
	return ret;
}

/* ---- names ---------------------------------------------------------------------------- */

static void demangled_grow(struct symbolizer *sym)
{
	struct sym_demangled *old = sym->demangled;
	size_t old_size = sym->demangled_size;
	sym->demangled_size = old_size ? old_size * 2 : 256;
	sym->demangled = xcalloc(sym->demangled_size, sizeof(*sym->demangled));
	for (size_t i = 0; i < old_size; i++) {
		if (!old[i].mangled)
			continue;
		size_t mask = sym->demangled_size - 1;
		size_t j = (size_t)hash_u64((uint64_t)(uintptr_t)old[i].mangled) & mask;
		while (sym->demangled[j].mangled)
			j = (j + 1) & mask;
		sym->demangled[j] = old[i];
	}
	free(old);
}

/* The demangled form of a symbol name (cached by the name's address), or the name itself. */
static const char *demangle(struct symbolizer *sym, const char *name)
{
	if (name[0] != '_' || name[1] != 'Z')
		return name;
	if (!sym->cxx_tried) {
		sym->cxx_tried = true;
		sym->cxx_handle = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (sym->cxx_handle)
			/* POSIX: dlsym's result converts to a function pointer. */
			sym->cxa_demangle =
			    (cxa_demangle_fn)dlsym(sym->cxx_handle, "__cxa_demangle");
	}
	if (!sym->cxa_demangle)
		return name;
	if ((sym->demangled_used + 1) * 2 > sym->demangled_size)
		demangled_grow(sym);
	size_t mask = sym->demangled_size - 1;
	size_t i = (size_t)hash_u64((uint64_t)(uintptr_t)name) & mask;
	for (; sym->demangled[i].mangled; i = (i + 1) & mask)
		if (sym->demangled[i].mangled == name)
			return sym->demangled[i].name ? sym->demangled[i].name : name;
	int status = -1;
	char *d = sym->cxa_demangle(name, NULL, NULL, &status);
	if (status != 0 || !d) {
		free(d); /* __cxa_demangle's result is malloc()ed */
		d = NULL;
	} else {
		/* Own it through the project's allocator so that tests can count it. */
		char *copy = xstrdup(d);
		free(d);
		d = copy;
	}
	sym->demangled[i].mangled = name;
	sym->demangled[i].name = d;
	sym->demangled_used++;
	return d ? d : name;
}

static void cache_grow(struct sym_module *mod)
{
	struct sym_cache_entry *old = mod->cache;
	size_t old_size = mod->cache_size;
	mod->cache_size = old_size ? old_size * 2 : 256;
	mod->cache = xcalloc(mod->cache_size, sizeof(*mod->cache));
	size_t mask = mod->cache_size - 1;
	for (size_t i = 0; i < old_size; i++) {
		if (!old[i].used)
			continue;
		size_t j = (size_t)hash_u64(old[i].vaddr) & mask;
		while (mod->cache[j].used)
			j = (j + 1) & mask;
		mod->cache[j] = old[i];
	}
	free(old);
}

void symbolizer_set_inlines(struct symbolizer *sym, bool on)
{
	sym->inlines = on;
}

/* The DW_AT_call_file of an inlined subroutine, as a path of its CU's file table. */
static const char *call_file(Dwarf_Die *cudie, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx;
	Dwarf_Files *files;
	size_t nfiles;

	if (!dwarf_attr(die, DW_AT_call_file, &attr) || dwarf_formudata(&attr, &idx) ||
	    dwarf_getsrcfiles(cudie, &files, &nfiles) || idx >= nfiles)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/*
 * The inlined subroutines whose ranges contain `addr`, innermost first, into out.
 * dwarf_getscopes() returns the innermost inlined instance followed by the scopes of its
 * abstract definition, not by the instances it is nested in (as eu-addr2line -i, the
 * chain is then read with dwarf_getscopes_die() from that instance up): taken alone, a
 * function inlined into an inlined function lost every caller but the outermost.
 */
static void describe_inlines(struct symbolizer *sym, struct sym_module *mod, GElf_Addr addr,
			     struct sym_loc *out)
{
	Dwarf_Addr cu_bias;
	Dwarf_Die *cudie = dwfl_module_addrdie(mod->mod, addr, &cu_bias), *scopes = NULL;
	Dwarf_Die *nested = NULL;
	struct sym_inline *chain = NULL;
	size_t nr = 0;
	int n, i;

	if (!cudie || (n = dwarf_getscopes(cudie, addr - cu_bias, &scopes)) <= 0)
		return;
	for (i = 0; i < n && dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine; i++)
		;
	if (i < n) {
		int m = dwarf_getscopes_die(&scopes[i], &nested);
		if (m > 0) {
			free(scopes);
			scopes = nested;
			n = m;
		}
	}
	for (i = 0; i < n; i++) {
		Dwarf_Attribute attr;
		Dwarf_Word line = 0;
		const char *name;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		if (!chain)
			chain = xcalloc((size_t)n, sizeof(*chain));
		name = dwarf_diename(&scopes[i]);
		chain[nr].function = name ? demangle(sym, name) : "?";
		chain[nr].call_file = call_file(cudie, &scopes[i]);
		if (chain[nr].call_file && dwarf_attr(&scopes[i], DW_AT_call_line, &attr) &&
		    !dwarf_formudata(&attr, &line) && line && line <= UINT32_MAX)
			chain[nr].call_line = (unsigned)line;
		else
			chain[nr].call_file = NULL;
		nr++;
	}
	free(scopes);
	out->inlines = chain;
	out->nr_inlines = nr;
}

static void module_describe(struct symbolizer *sym, struct sym_module *mod, uint64_t vaddr,
			    struct sym_loc *out)
{
	GElf_Addr addr = vaddr + mod->bias;
	GElf_Off off = 0;
	GElf_Sym s;
	const char *name = dwfl_module_addrinfo(mod->mod, addr, &off, &s, NULL, NULL, NULL);
	if (name && *name) {
		out->function = demangle(sym, name);
		out->fn_offset = off;
	}
	Dwfl_Line *line = dwfl_module_getsrc(mod->mod, addr);
	int lineno = 0;
	const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
	if (file && lineno > 0) {
		out->src_file = file;
		out->line = (unsigned)lineno;
	}
	if (sym->inlines)
		describe_inlines(sym, mod, addr, out);
}

int symbolizer_lookup(struct symbolizer *sym, const char *module_path, uint64_t file_vaddr,
		      struct sym_loc *out)
{
	struct sym_module *mod = module_get(sym, module_path);
	memset(out, 0, sizeof(*out));
	out->module = mod->path;
	out->module_offset = file_vaddr;
	if (mod->failed)
		return -1;
	if ((mod->cache_used + 1) * 2 > mod->cache_size)
		cache_grow(mod);
	size_t mask = mod->cache_size - 1;
	size_t i = (size_t)hash_u64(file_vaddr) & mask;
	for (; mod->cache[i].used; i = (i + 1) & mask) {
		if (mod->cache[i].vaddr == file_vaddr) {
			*out = mod->cache[i].loc;
			return 0;
		}
	}
	module_describe(sym, mod, file_vaddr, out);
	mod->cache[i].used = true;
	mod->cache[i].vaddr = file_vaddr;
	mod->cache[i].loc = *out;
	mod->cache_used++;
	return 0;
}

int symbolizer_lookup_runtime(struct symbolizer *sym, const struct proc_maps *maps, uint64_t addr,
			      struct sym_loc *out)
{
	const char *module;
	uint64_t offset, vaddr;
	if (proc_maps_resolve(maps, addr, &module, &offset)) {
		memset(out, 0, sizeof(*out));
		out->module_offset = addr;
		return -1;
	}
	if (symbolizer_file_vaddr(sym, module, offset, &vaddr)) {
		/* The module is unreadable (warned once) or the offset is in no segment: a
		 * name found for the offset would be a guess. */
		memset(out, 0, sizeof(*out));
		out->module = module_get(sym, module)->path;
		out->module_offset = vaddr;
		return -1;
	}
	return symbolizer_lookup(sym, module, vaddr, out);
}
