/*
 * Unit tests of the symbolizer (src/binary/symbolize.c): /proc/PID/maps lines (parsing,
 * lookup, bad lines), file offsets turned into ELF virtual addresses through the program
 * headers of real builds whose segments are not at their file offsets (non-PIE, a shared
 * library linked at 0x200000), names and file:line of real builds (PIE, -O0 and -O2, a
 * stripped library, C++ demangled), the chain of functions inlined at an address, and
 * modules that are missing, not ELF, or not files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "binary/symbolize.h"
#include "util/common.h"
#include "util/input.h"

#include "capture_stderr.h"

/* ---- helpers -------------------------------------------------------------------------- */

static char work_dir[64];

static const char lib_src[] = "#define KEEP __attribute__((noinline, noipa))\n"
			      "static volatile long sink;\n"
			      "KEEP void lib_leaf(int k) { sink += k; }\n"
			      "KEEP int lib_entry(int n)\n"
			      "{\n"
			      "\tfor (int i = 0; i < n; i++)\n"
			      "\t\tlib_leaf(i);\n"
			      "\treturn (int)sink;\n"
			      "}\n"
			      "static KEEP int lib_hidden(int n) { return n * 3; }\n"
			      "int (*lib_hidden_ptr)(int) = lib_hidden;\n";

static const char exe_src[] = "#include <stdlib.h>\n"
			      "#define KEEP __attribute__((noinline, noipa))\n"
			      "static volatile long sink;\n"
			      "KEEP void leaf(int k) { sink += k; }\n"
			      "KEEP void work(int n)\n"
			      "{\n"
			      "\tfor (int i = 0; i < n; i++)\n"
			      "\t\tleaf(i);\n"
			      "}\n"
			      "int main(int argc, char **argv)\n"
			      "{\n"
			      "\twork(argc > 1 ? (int)strtol(argv[1], NULL, 10) : 3);\n"
			      "\treturn 0;\n"
			      "}\n";

static const char cxx_src[] = "namespace geo {\n"
			      "struct Box {\n"
			      "\tint w;\n"
			      "\t__attribute__((noinline)) int scale(int k);\n"
			      "};\n"
			      "int Box::scale(int k) { return w * k; }\n"
			      "}\n"
			      "int use_box(int k) { geo::Box b{k}; return b.scale(k); }\n";

/* Three functions inlined into each other, into entry(): code of inner() is inlined into
 * middle(), inlined into outer(), inlined into entry(). */
static const char inl_src[] =
    "#define INL static inline __attribute__((always_inline))\n"
    "static volatile long sink;\n"
    "INL void inner(long k) { sink += k * 3; }\n"
    "INL void middle(long k) { inner(k + 1); sink ^= k; }\n"
    "INL void outer(long k) { middle(k * 2); sink -= k; }\n"
    "__attribute__((noinline)) void entry(long n)\n"
    "{\n"
    "\tfor (long i = 0; i < n; i++)\n"
    "\t\touter(i);\n"
    "}\n"
    "int main(int argc, char **argv) { (void)argv; entry(argc); return 0; }\n";

/* 1-based line of the first occurrence of needle in text, 0 if absent. */
static unsigned line_of(const char *text, const char *needle)
{
	const char *p = strstr(text, needle);
	unsigned line = 1;
	if (!p)
		return 0;
	for (const char *q = text; q < p; q++)
		line += *q == '\n';
	return line;
}

static const char *path_in(const char *name)
{
	static char paths[4][256];
	static int next;
	char *p = paths[next++ % 4];
	snprintf(p, sizeof(paths[0]), "%s/%s", work_dir, name);
	return p;
}

static void write_file(const char *name, const char *text)
{
	FILE *f = fopen(path_in(name), "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

__attribute__((format(printf, 1, 2))) static void sh(const char *fmt, ...)
{
	struct strbuf cmd = STRBUF_INIT;
	va_list ap;
	strbuf_addf(&cmd, "cd '%s' && ", work_dir);
	va_start(ap, fmt);
	strbuf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	int ret = system(cmd.buf);
	if (ret)
		fail_msg("command failed (%d): %s", ret, cmd.buf);
	strbuf_release(&cmd);
}

/* The value of symbol `name` in `file` (nm), or 0 when absent. */
static uint64_t nm_value(const char *file, const char *name)
{
	struct strbuf cmd = STRBUF_INIT;
	char line[512];
	uint64_t value = 0;
	strbuf_addf(&cmd, "nm '%s' 2>/dev/null", path_in(file));
	FILE *p = popen(cmd.buf, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char sym[400], type;
		unsigned long long v;
		if (sscanf(line, "%llx %c %399s", &v, &type, sym) == 3 && !strcmp(sym, name))
			value = v;
	}
	pclose(p);
	strbuf_release(&cmd);
	return value;
}

/* Runs fn(arg) with stderr captured into err. */
static int capture(struct strbuf *err, int (*fn)(void *), void *arg)
{
	struct stderr_capture cap;
	char *printed;

	capture_stderr_begin(&cap);
	int ret = fn(arg);
	printed = capture_stderr_end(&cap);
	strbuf_reset(err);
	strbuf_addstr(err, printed);
	free(printed);
	return ret;
}

static size_t count_lines(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

/* Builds everything once: the tests only read the files. */
static int setup(void **state)
{
	UNUSED(state);
	snprintf(work_dir, sizeof(work_dir), "/tmp/revperf-test-symbolize-XXXXXX");
	if (!mkdtemp(work_dir))
		return -1;
	write_file("lib.c", lib_src);
	write_file("exe.c", exe_src);
	write_file("box.cpp", cxx_src);
	write_file("inl.c", inl_src);
	sh("cc -O2 -g -fpie -pie inl.c -o inl");
	sh("cc -O0 -g -fPIC -shared -Wl,-Ttext-segment=0x200000 lib.c -o libshift.so");
	sh("cc -O2 -g -fPIC -shared lib.c -o libplain.so && cp libplain.so libstripped.so && "
	   "strip --strip-all libstripped.so");
	sh("cc -O0 -g -fno-pie -no-pie exe.c -o exe-nopie");
	sh("cc -O0 -g -fpie -pie exe.c -o exe-pie-O0");
	sh("cc -O2 -g -fpie -pie exe.c -o exe-pie-O2");
	sh("g++ -O0 -g -fPIC -shared box.cpp -o libbox.so");
	write_file("not-elf.so", "just text, no ELF header\n");
	return 0;
}

static int teardown(void **state)
{
	struct strbuf cmd = STRBUF_INIT;
	UNUSED(state);
	strbuf_addf(&cmd, "rm -rf '%s'", work_dir);
	int ret = system(cmd.buf);
	strbuf_release(&cmd);
	return ret;
}

/* ---- memory maps ---------------------------------------------------------------------- */

static void test_maps_lines(void **state)
{
	struct proc_maps m;
	const struct proc_map *map;
	const char *module;
	uint64_t off;
	UNUSED(state);

	proc_maps_init(&m);
	/* Out of order on purpose: the map sorts itself. */
	static const char *const lines[] = {
	    "7f0000010000-7f0000020000 r-xp 00002000 fe:00 42                   /lib/with space.so",
	    "55d0a0000000-55d0a0001000 r--p 00000000 fe:00 7   /usr/bin/prog",
	    "55d0a0001000-55d0a0005000 r-xp 00001000 fe:00 7   /usr/bin/prog\n",
	    "7f0000030000-7f0000031000 rw-p 00000000 00:00 0 ",
	    "7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                  [vdso]",
	    "7f0000040000-7f0000041000 r-xp 00003000 103:2 99 /tmp/gone.so (deleted)",
	};
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		assert_int_equal(proc_maps_add_line(&m, lines[i], strlen(lines[i])), 0);
	assert_int_equal(m.nr, ARRAY_SIZE(lines));
	for (size_t i = 1; i < m.nr; i++)
		assert_true(m.maps[i - 1].start < m.maps[i].start);

	map = proc_maps_find(&m, 0x55d0a0001000);
	assert_non_null(map);
	assert_string_equal(map->path, "/usr/bin/prog");
	assert_string_equal(map->perms, "r-xp");
	assert_int_equal(map->offset, 0x1000);
	assert_int_equal(map->inode, 7);
	assert_int_equal(map->dev_major, 0xfe);
	assert_null(proc_maps_find(&m, 0x55d0a0005000)); /* end is exclusive */
	assert_null(proc_maps_find(&m, 0x1000));
	assert_int_equal(proc_maps_resolve(&m, 0x55d0a0001234, &module, &off), 0);
	assert_string_equal(module, "/usr/bin/prog");
	assert_int_equal(off, 0x1234);
	assert_int_equal(proc_maps_resolve(&m, 0x7f0000010010, &module, &off), 0);
	assert_string_equal(module, "/lib/with space.so");
	assert_int_equal(off, 0x2010);
	/* Anonymous memory and addresses in no mapping have no file. */
	assert_int_equal(proc_maps_resolve(&m, 0x7f0000030008, &module, &off), -1);
	assert_null(module);
	assert_int_equal(off, 0x7f0000030008);
	assert_int_equal(proc_maps_resolve(&m, 0x10, &module, &off), -1);
	map = proc_maps_find(&m, 0x7ffd00000010);
	assert_string_equal(map->path, "[vdso]");
	map = proc_maps_find(&m, 0x7f0000040000);
	assert_true(map->deleted);
	assert_string_equal(map->path, "/tmp/gone.so");
	assert_int_equal(map->dev_major, 0x103);
	proc_maps_release(&m);
	proc_maps_release(&m); /* twice is harmless */
}

static void test_maps_bad_lines(void **state)
{
	static const char *const bad[] = {
	    "",
	    "garbage",
	    "1000-2000",
	    "2000-1000 r-xp 00000000 fe:00 1 /x",	/* start after end */
	    "1000-1000 r-xp 00000000 fe:00 1 /x",	/* empty */
	    "1000-2000 rxp 00000000 fe:00 1 /x",	/* perms too short */
	    "1000-2000 r-xq 00000000 fe:00 1 /x",	/* unknown perm */
	    "1000-2000 r-xp zz fe:00 1 /x",		/* offset */
	    "1000-2000 r-xp 00000000 fe00 1 /x",	/* device */
	    "1000-2000 r-xp 00000000 fe:00 x1 /x",	/* inode */
	    "1000-2000 r-xp 00000000 fe:00 1/x",	/* no space before the path */
	    "1ffffffffffffffff-2000 r-xp 0 fe:00 1 /x", /* overflow */
	};
	struct proc_maps m;
	UNUSED(state);
	proc_maps_init(&m);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (proc_maps_add_line(&m, bad[i], strlen(bad[i])) != -1)
			fail_msg("accepted '%s'", bad[i]);
	assert_int_equal(m.nr, 0);
	/* A NUL inside the path. */
	static const char nul[] = "1000-2000 r-xp 00000000 fe:00 1 /a\0b";
	assert_int_equal(proc_maps_add_line(&m, nul, sizeof(nul) - 1), -1);
	proc_maps_release(&m);
}

/* The maps of this very process: every line of the kernel's format parses. */
static void test_maps_of_self(void **state)
{
	struct proc_maps m;
	const char *module;
	uint64_t off;
	UNUSED(state);
	proc_maps_init(&m);
	assert_int_equal(proc_maps_read(&m, "/proc/self/maps"), 0);
	assert_true(m.nr > 5);
	/* This function's own address is in this executable. */
	char exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(
	    proc_maps_resolve(&m, (uint64_t)(uintptr_t)&test_maps_of_self, &module, &off), 0);
	assert_string_equal(module, exe);
	proc_maps_release(&m);
}

/* ---- symbols and lines ---------------------------------------------------------------- */

/* Checks the function and line at `name`'s address in `file` (any line when `line` is 0),
 * and one byte into it. */
static void expect_symbol(struct symbolizer *sym, const char *file, const char *name,
			  const char *src_file, unsigned line)
{
	struct sym_loc loc;
	uint64_t vaddr = nm_value(file, name);
	assert_true(vaddr != 0);
	assert_int_equal(symbolizer_lookup(sym, path_in(file), vaddr, &loc), 0);
	if (!loc.function || strcmp(loc.function, name))
		fail_msg("%s: %s at 0x%llx named '%s'", file, name, (unsigned long long)vaddr,
			 loc.function ? loc.function : "(null)");
	assert_int_equal(loc.fn_offset, 0);
	assert_string_equal(loc.module, path_in(file));
	assert_int_equal(loc.module_offset, vaddr);
	if (src_file) {
		assert_non_null(loc.src_file);
		if (!ends_with(loc.src_file, src_file) || (line && loc.line != line) || !loc.line)
			fail_msg("%s: %s at %s:%u, expected %s:%u", file, name, loc.src_file,
				 loc.line, src_file, line);
	} else {
		assert_null(loc.src_file);
		assert_int_equal(loc.line, 0);
	}
	assert_int_equal(symbolizer_lookup(sym, path_in(file), vaddr + 1, &loc), 0);
	assert_string_equal(loc.function, name);
	assert_int_equal(loc.fn_offset, 1);
}

static void test_names_and_lines(void **state)
{
	struct symbolizer *sym = symbolizer_new();
	unsigned leaf_line = line_of(exe_src, "KEEP void leaf(");
	unsigned work_line = line_of(exe_src, "KEEP void work(") + 1; /* the opening brace */
	UNUSED(state);

	for (int round = 0; round < 2; round++) { /* the second round is served by the caches */
		expect_symbol(sym, "exe-nopie", "leaf", "/exe.c", leaf_line);
		expect_symbol(sym, "exe-nopie", "work", "/exe.c", work_line);
		expect_symbol(sym, "exe-pie-O0", "leaf", "/exe.c", leaf_line);
		expect_symbol(sym, "exe-pie-O0", "work", "/exe.c", work_line);
		expect_symbol(sym, "exe-pie-O2", "leaf", "/exe.c", leaf_line);
		/* -O2: the entry may be on the loop's line; line 0 only asks for a line. */
		expect_symbol(sym, "exe-pie-O2", "work", "/exe.c", 0);
		expect_symbol(sym, "libshift.so", "lib_leaf", "/lib.c",
			      line_of(lib_src, "KEEP void lib_leaf("));
		expect_symbol(sym, "libshift.so", "lib_hidden", "/lib.c",
			      line_of(lib_src, "static KEEP int lib_hidden("));
		expect_symbol(sym, "libplain.so", "lib_entry", "/lib.c", 0);
		expect_symbol(sym, "libplain.so", "lib_leaf", "/lib.c",
			      line_of(lib_src, "KEEP void lib_leaf("));
	}
	/* Nothing covers the ELF header. */
	struct sym_loc loc;
	assert_int_equal(symbolizer_lookup(sym, path_in("exe-pie-O0"), 0x10, &loc), 0);
	assert_null(loc.function);
	assert_int_equal(loc.module_offset, 0x10);
	symbolizer_free(sym);
	symbolizer_free(NULL);
}

/* The size of symbol `name` in `file` (nm -S), or 0 when absent. */
static uint64_t nm_size(const char *file, const char *name)
{
	struct strbuf cmd = STRBUF_INIT;
	char line[512];
	uint64_t size = 0;
	strbuf_addf(&cmd, "nm -S '%s' 2>/dev/null", path_in(file));
	FILE *p = popen(cmd.buf, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char sym[400], type;
		unsigned long long v, n;
		if (sscanf(line, "%llx %llx %c %399s", &v, &n, &type, sym) == 4 &&
		    !strcmp(sym, name))
			size = n;
	}
	pclose(p);
	strbuf_release(&cmd);
	return size;
}

/*
 * The whole chain of functions inlined at an address, innermost first: inner, middle,
 * outer, in entry. dwarf_getscopes() gives the innermost inlined instance and then the
 * scopes of its abstract definition, not the instances it is nested in: the chain was
 * inner alone, and a sampled stack went entry;inner, its callers middle and outer lost.
 */
static void test_inline_chain(void **state)
{
	struct symbolizer *sym = symbolizer_new();
	uint64_t start = nm_value("inl", "entry"), size = nm_size("inl", "entry");
	size_t found = 0;
	UNUSED(state);

	assert_true(start != 0 && size != 0);
	symbolizer_set_inlines(sym, true);
	for (uint64_t a = start; a < start + size; a++) {
		struct sym_loc loc;
		assert_int_equal(symbolizer_lookup(sym, path_in("inl"), a, &loc), 0);
		assert_string_equal(loc.function, "entry");
		if (!loc.nr_inlines || strcmp(loc.inlines[0].function, "inner"))
			continue;
		found++;
		if (loc.nr_inlines != 3 || strcmp(loc.inlines[1].function, "middle") ||
		    strcmp(loc.inlines[2].function, "outer"))
			fail_msg("0x%llx: %zu inlined functions (%s, %s), expected inner, middle, "
				 "outer",
				 (unsigned long long)a, loc.nr_inlines, loc.inlines[0].function,
				 loc.nr_inlines > 1 ? loc.inlines[1].function : "-");
		/* each is called from the function it was inlined into, on its line */
		assert_int_equal(loc.inlines[0].call_line, line_of(inl_src, "INL void middle("));
		assert_int_equal(loc.inlines[1].call_line, line_of(inl_src, "INL void outer("));
		assert_int_equal(loc.inlines[2].call_line, line_of(inl_src, "\t\touter(i);"));
	}
	if (!found)
		fail_msg("no address of entry (0x%llx, %llu bytes) is in inner()",
			 (unsigned long long)start, (unsigned long long)size);
	symbolizer_free(sym);
}

/* Stripped: .dynsym names exported functions; no DWARF, so no line. */
static void test_stripped(void **state)
{
	struct symbolizer *sym = symbolizer_new();
	struct sym_loc loc;
	UNUSED(state);
	/* The stripped copy has the same layout as libplain.so, whose .symtab says where. */
	uint64_t entry = nm_value("libplain.so", "lib_entry");
	uint64_t hidden = nm_value("libplain.so", "lib_hidden");
	assert_true(entry && hidden);
	assert_int_equal(nm_value("libstripped.so", "lib_entry"), 0); /* really stripped */
	assert_int_equal(symbolizer_lookup(sym, path_in("libstripped.so"), entry, &loc), 0);
	assert_string_equal(loc.function, "lib_entry");
	assert_null(loc.src_file);
	/* A local function is not in .dynsym: unknown rather than misnamed. */
	assert_int_equal(symbolizer_lookup(sym, path_in("libstripped.so"), hidden, &loc), 0);
	if (loc.function && loc.fn_offset == 0)
		fail_msg("lib_hidden named '%s' in a stripped library", loc.function);
	symbolizer_free(sym);
}

static void test_demangle(void **state)
{
	struct symbolizer *sym = symbolizer_new();
	struct sym_loc loc;
	UNUSED(state);
	uint64_t v = nm_value("libbox.so", "_ZN3geo3Box5scaleEi");
	assert_true(v != 0);
	assert_int_equal(symbolizer_lookup(sym, path_in("libbox.so"), v, &loc), 0);
	assert_string_equal(loc.function, "geo::Box::scale(int)");
	assert_true(ends_with(loc.src_file, "/box.cpp"));
	assert_int_equal(loc.line, line_of(cxx_src, "int Box::scale("));
	/* Another address in the same function: the same (cached) demangled string. */
	const char *first = loc.function;
	assert_int_equal(symbolizer_lookup(sym, path_in("libbox.so"), v + 2, &loc), 0);
	assert_ptr_equal(loc.function, first);
	v = nm_value("libbox.so", "_Z7use_boxi");
	assert_int_equal(symbolizer_lookup(sym, path_in("libbox.so"), v, &loc), 0);
	assert_string_equal(loc.function, "use_box(int)");
	symbolizer_free(sym);
}

/* ---- offsets to virtual addresses ----------------------------------------------------- */

static void test_file_vaddr(void **state)
{
	struct symbolizer *sym = symbolizer_new();
	struct proc_maps m;
	struct sym_loc loc;
	struct strbuf line = STRBUF_INIT;
	uint64_t vaddr;
	UNUSED(state);

	/* Non-PIE: text at 0x401000 is at file offset 0x1000. */
	uint64_t leaf = nm_value("exe-nopie", "leaf");
	assert_true(leaf > 0x400000);
	assert_int_equal(symbolizer_file_vaddr(sym, path_in("exe-nopie"), leaf - 0x400000, &vaddr),
			 0);
	assert_int_equal(vaddr, leaf);
	/* The shared library linked at 0x200000: vaddr = offset + 0x200000. */
	uint64_t lib_leaf = nm_value("libshift.so", "lib_leaf");
	assert_true(lib_leaf > 0x200000);
	assert_int_equal(
	    symbolizer_file_vaddr(sym, path_in("libshift.so"), lib_leaf - 0x200000, &vaddr), 0);
	assert_int_equal(vaddr, lib_leaf);
	/* An offset beyond every segment: -1, the offset handed back. */
	assert_int_equal(symbolizer_file_vaddr(sym, path_in("libshift.so"), 1u << 30, &vaddr), -1);
	assert_int_equal(vaddr, 1u << 30);

	/* End to end from a run-time address: the library loaded at 0x7f1234500000 (its first
	 * page), its text mapped from file offset 0x1000. */
	proc_maps_init(&m);
	strbuf_addf(&line, "7f1234500000-7f1234501000 r--p 00000000 fe:00 5 %s",
		    path_in("libshift.so"));
	assert_int_equal(proc_maps_add_line(&m, line.buf, line.len), 0);
	strbuf_reset(&line);
	strbuf_addf(&line, "7f1234501000-7f1234502000 r-xp 00001000 fe:00 5 %s",
		    path_in("libshift.so"));
	assert_int_equal(proc_maps_add_line(&m, line.buf, line.len), 0);
	uint64_t runtime = 0x7f1234500000 + (lib_leaf - 0x200000);
	assert_int_equal(symbolizer_lookup_runtime(sym, &m, runtime, &loc), 0);
	assert_string_equal(loc.function, "lib_leaf");
	assert_int_equal(loc.module_offset, lib_leaf);
	assert_int_equal(symbolizer_lookup_runtime(sym, &m, 0x1000, &loc), -1);
	assert_null(loc.module);
	assert_null(loc.function);
	assert_int_equal(loc.module_offset, 0x1000);
	proc_maps_release(&m);
	strbuf_release(&line);
	symbolizer_free(sym);
}

/* ---- modules that cannot be read ------------------------------------------------------ */

struct bad_lookup {
	struct symbolizer *sym;
	const char *path;
	int results[3];
	struct sym_loc loc;
};

static int lookup_three_times(void *arg)
{
	struct bad_lookup *b = arg;
	uint64_t vaddr;
	b->results[0] = symbolizer_lookup(b->sym, b->path, 0x1234, &b->loc);
	b->results[1] = symbolizer_file_vaddr(b->sym, b->path, 0x99, &vaddr);
	b->results[2] = symbolizer_lookup(b->sym, b->path, 0x1234, &b->loc);
	return 0;
}

static void test_unreadable_modules(void **state)
{
	static const struct {
		const char *path; /* relative: in the work directory */
		const char *warning;
	} cases[] = {
	    {"no-such-lib.so", "No such file or directory"},
	    {"not-elf.so", "not an ELF file"},
	    {".", "is a directory, not a file"},
	    {"[vdso]", NULL},
	};
	struct strbuf err = STRBUF_INIT;
	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct bad_lookup b = {.sym = symbolizer_new()};
		b.path = cases[i].path[0] == '[' ? cases[i].path : path_in(cases[i].path);
		capture(&err, lookup_three_times, &b);
		assert_int_equal(b.results[0], -1);
		assert_int_equal(b.results[1], -1);
		assert_int_equal(b.results[2], -1);
		assert_null(b.loc.function);
		assert_string_equal(b.loc.module, b.path);
		assert_int_equal(b.loc.module_offset, 0x1234);
		if (!cases[i].warning) {
			assert_string_equal(err.buf, "");
		} else {
			/* Warned once, naming the file and the reason. */
			if (count_lines(err.buf, "revperf: warning: ") != 1 ||
			    !strstr(err.buf, b.path) || !strstr(err.buf, cases[i].warning))
				fail_msg("%s: got '%s'", cases[i].path, err.buf);
		}
		symbolizer_free(b.sym);
	}
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_maps_lines),	 cmocka_unit_test(test_maps_bad_lines),
	    cmocka_unit_test(test_maps_of_self), cmocka_unit_test(test_names_and_lines),
	    cmocka_unit_test(test_stripped),	 cmocka_unit_test(test_demangle),
	    cmocka_unit_test(test_file_vaddr),	 cmocka_unit_test(test_unreadable_modules),
	    cmocka_unit_test(test_inline_chain),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
