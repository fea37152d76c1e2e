/*
 * Unit tests of the ELF and symbol reader behind the binary diff: kinds of files, aliases,
 * aarch64, fully stripped files, bad input (not ELF, truncated, other architectures), and
 * corrupted real files, which must give an error and never a crash (the suite also runs
 * under ASan and UBSan; tests/fuzz/ fuzzes the same entry point).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "binary/bindiff.h"
#include "util/common.h"
#include "util/input.h"
#include "util/rng.h"

#include "bindiff_fixture.h"
#include "capture_stderr.h"

static const char prog_src[] =
    "#include <stdio.h>\n"
    "static int counter;\n"
    "int scale(int x) { return x * 3 + 1; }\n"
    "int twice(int x) { counter++; return scale(x) * 2; }\n"
    "int also_twice(int x) __attribute__((alias(\"twice\")));\n"
    "const char *name(int i) { static const char *const n[] = { \"zero\", \"one\" }; "
    "return n[i & 1]; }\n"
    "int pick(int x) { switch (x) { case 0: return 5; case 1: return 9; case 2: return 14;"
    " case 3: return 20; case 4: return 27; default: return -1; } }\n"
    "int main(int argc, char **argv) { (void)argv; puts(name(argc)); "
    "return twice(argc) + pick(argc); }\n";

/* The address nm gives the symbol `name` of the fixture's file, 0 when none. */
static uint64_t nm_address(struct fixture *fx, const char *file, const char *name)
{
	char cmd[4096], line[512], sym[256];
	unsigned long long addr, found = 0;
	char type;
	FILE *p;
	snprintf(cmd, sizeof(cmd), "nm '%s'", fx_path(fx, file));
	assert_non_null(p = popen(cmd, "r"));
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 && !strcmp(sym, name))
			found = addr;
	assert_int_equal(pclose(p), 0);
	return found;
}

static struct binfunc *find(struct binfile *bf, const char *name)
{
	for (size_t i = 0; i < bf->nr_funcs; i++)
		if (!strcmp(bf->funcs[i].name, name))
			return &bf->funcs[i];
	return NULL;
}

static void test_kinds_and_aliases(void **state)
{
	static const struct {
		const char *flags, *out;
		enum binfile_kind kind;
	} builds[] = {
	    {"-O2 -fno-pie -no-pie", "exe", BINFILE_EXEC},
	    {"-O2 -fPIE -pie", "pie", BINFILE_PIE},
	    {"-O2 -fPIC -shared", "lib.so", BINFILE_SHARED},
	    {"-O2 -c", "prog.o", BINFILE_OBJECT},
	};
	struct fixture fx;
	UNUSED(state);
	fx_init(&fx);
	for (size_t i = 0; i < ARRAY_SIZE(builds); i++) {
		struct binfile *bf;
		struct binfunc *f;
		fx_build(&fx, "prog", prog_src, builds[i].flags, builds[i].out);
		assert_int_equal(binfile_load(fx_path(&fx, builds[i].out), 0, &bf), 0);
		assert_int_equal(bf->kind, builds[i].kind);
		assert_string_equal(bf->arch, "x86-64");
		assert_false(bf->from_dynsym);
		assert_true(bf->has_dwarf);
		/* twice and also_twice are one function with an alias. */
		f = find(bf, "also_twice") ? find(bf, "also_twice") : find(bf, "twice");
		assert_non_null(f);
		assert_int_equal(f->nr_aliases, 1);
		assert_string_equal(bf->aliases[f->first_alias],
				    strcmp(f->name, "twice") ? "twice" : "also_twice");
		assert_true(f->nr_insns > 0);
		/* Sorted by address, each with a hash and a line. */
		for (size_t k = 1; k < bf->nr_funcs; k++)
			assert_true(bf->funcs[k - 1].addr < bf->funcs[k].addr);
		f = find(bf, "scale");
		assert_int_equal(f->src_line, line_of(prog_src, "int scale("));
		assert_ptr_equal(binfile_func_at(bf, f->addr + f->size - 1), f);
		binfile_free(bf);
	}
	fx_release(&fx);
}

/* The same program twice gives the same hashes; a different build of it does not. */
static void test_hash_is_deterministic(void **state)
{
	struct fixture fx;
	struct binfile *a, *b;
	UNUSED(state);
	fx_init(&fx);
	fx_build(&fx, "prog", prog_src, "-O2", "p1");
	assert_int_equal(binfile_load(fx_path(&fx, "p1"), 0, &a), 0);
	assert_int_equal(binfile_load(fx_path(&fx, "p1"), BINFILE_NO_DWARF, &b), 0);
	assert_int_equal(a->nr_funcs, b->nr_funcs);
	for (size_t i = 0; i < a->nr_funcs; i++) {
		assert_true(a->funcs[i].hash == b->funcs[i].hash);
		assert_int_equal(b->funcs[i].src_line, 0);
	}
	/* Distinct bodies hash differently. */
	assert_true(find(a, "scale")->hash != find(a, "pick")->hash);
	binfile_free(a);
	binfile_free(b);
	fx_release(&fx);
}

static void test_aarch64_objects(void **state)
{
	struct fixture fx;
	struct bindiff d;
	UNUSED(state);
	fx_init(&fx);
	fx_write(&fx, "a.c",
		 "__attribute__((noinline)) int scale(int x) { return x * 3 + 1; }\n"
		 "extern int ext(int);\ndouble ratio(double x) { return x * 1.5; }\n"
		 "int call(int x) { return ext(x) + scale(x); }\n");
	fx_write(&fx, "b.c",
		 "/* moved */\ndouble ratio(double x) { return x * 1.5; }\n"
		 "extern int ext(int);\n"
		 "__attribute__((noinline)) int scale(int x) { return x * 5 + 1; }\n\n"
		 "int call(int x) { return ext(x) + scale(x); }\n");
	if (fx_sh(&fx, "clang --target=aarch64-linux-gnu -g -O1 -c a.c -o a.o 2>/dev/null && "
		       "clang --target=aarch64-linux-gnu -g -O1 -c b.c -o b.o 2>/dev/null")) {
		fx_release(&fx);
		skip(); /* no clang with an aarch64 backend: nothing to compare */
	}
	assert_int_equal(bindiff_files(fx_path(&fx, "a.o"), fx_path(&fx, "b.o"), 0, &d), 0);
	assert_string_equal(d.new_file->arch, "aarch64");
	assert_int_equal(d.count[BINDIFF_MODIFIED], 1);
	assert_int_equal(bindiff_find(&d, "scale", NULL, true)->cls, BINDIFF_MODIFIED);
	assert_int_equal(bindiff_find(&d, "ratio", NULL, true)->cls, BINDIFF_UNCHANGED);
	assert_int_equal(bindiff_find(&d, "call", NULL, true)->cls, BINDIFF_UNCHANGED);
	assert_int_equal(bindiff_find(&d, "scale", NULL, true)->new_fn->src_line, 4);
	bindiff_release(&d);
	fx_release(&fx);
}

/* Reads a whole file into a new buffer. */
static unsigned char *slurp(const char *path, size_t *size)
{
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(input_read(&sb, path, &input_state), 0);
	*size = sb.len;
	return (unsigned char *)strbuf_detach(&sb);
}

static void spew(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, size, f), size);
	assert_int_equal(fclose(f), 0);
}

/*
 * The PLT of a linked program, named as binutils' synthetic "NAME@plt" symbols: every
 * imported function the program calls, in .plt, in .plt.sec (-z ibtplt) and in a
 * non-PIE executable. Before, the GOT slot of each entry was looked up among the entries
 * already appended, and all but the first few went unnamed.
 */
static void test_plt_names(void **state)
{
	static const char src[] =
	    "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n"
	    "static char buf[64];\n"
	    /* a function in assembly without .size, as zstd's Huffman decoding loops */
	    "__asm__(\".text\\n.globl bare_loop\\n.type bare_loop, @function\\n"
	    "bare_loop:\\n_bare_loop:\\nret\\n\");\n"
	    "int main(int argc, char **argv) {\n"
	    "  unsigned long n = strtoul(argv[0], 0, 10);\n"
	    "  memcpy(buf, argv[0], (size_t)argc);\n"
	    "  if (getenv(\"X\")) puts(buf);\n"
	    "  printf(\"%lu %zu %ld\\n\", n, strlen(buf), (long)time(0));\n"
	    "  return 0;\n}\n";
	static const char *const want[] = {"strtoul", "memcpy", "getenv",
					   "puts",    "printf", "strlen", "time"};
	static const char *const flags[] = {"-O1", "-O1 -fcf-protection -Wl,-z,ibtplt",
					    "-O1 -fno-pie -no-pie"};
	struct fixture fx;
	UNUSED(state);
	fx_init(&fx);
	for (size_t i = 0; i < ARRAY_SIZE(flags); i++) {
		struct binfile_plt plt;
		fx_build(&fx, "plt", src, flags[i], "plt");
		assert_int_equal(binfile_plt_read(fx_path(&fx, "plt"), &plt), 0);
		for (size_t w = 0; w < ARRAY_SIZE(want); w++) {
			size_t k = 0;
			while (k < plt.nr && strcmp(plt.entries[k].name, want[w]))
				k++;
			if (k == plt.nr)
				fail_msg("%s: no PLT entry named %s (%zu entries)", flags[i], want[w],
					 plt.nr);
			assert_string_equal(binfile_plt_name(&plt, plt.entries[k].addr), want[w]);
			assert_null(binfile_plt_name(&plt, plt.entries[k].addr + 1));
		}
		for (size_t k = 1; k < plt.nr; k++)
			assert_true(plt.entries[k - 1].addr < plt.entries[k].addr);
		/* Function symbols of size 0, which valgrind ignores: _init, _fini and code in
		 * assembly without .size; of two at one address, the global without '_'. */
		{
			static const char *const unsized[] = {"_init", "_fini", "bare_loop"};
			for (size_t u = 0; u < ARRAY_SIZE(unsized); u++) {
				uint64_t at = nm_address(&fx, "plt", unsized[u]);
				assert_true(at != 0);
				assert_non_null(binfile_plt_unsized(&plt, at));
				assert_string_equal(binfile_plt_unsized(&plt, at), unsized[u]);
			}
			assert_null(binfile_plt_unsized(&plt, nm_address(&fx, "plt", "main")));
		}
		binfile_plt_release(&plt);
	}
	fx_release(&fx);
}

static void test_bad_input(void **state)
{
	struct fixture fx;
	struct binfile *bf = NULL;
	struct bindiff d;
	unsigned char *elf;
	size_t size;
	UNUSED(state);
	fx_init(&fx);
	fx_build(&fx, "prog", prog_src, "-O2 -c", "prog.o");
	elf = slurp(fx_path(&fx, "prog.o"), &size);

	assert_int_equal(binfile_load(fx_path(&fx, "missing"), 0, &bf), RP_EINPUT);
	assert_null(bf);
	assert_int_equal(binfile_load(fx.dir, 0, &bf), RP_EINPUT); /* a directory */
	fx_write(&fx, "text", "just some text, long enough to be more than an ELF ident\n");
	assert_int_equal(binfile_load(fx_path(&fx, "text"), 0, &bf), RP_EINPUT);
	fx_write(&fx, "empty", "");
	assert_int_equal(binfile_load(fx_path(&fx, "empty"), 0, &bf), RP_EINPUT);
	spew(fx_path(&fx, "trunc"), elf, size / 2);
	assert_int_equal(binfile_load(fx_path(&fx, "trunc"), 0, &bf), RP_EINPUT);
	spew(fx_path(&fx, "trunc"), elf, 40);
	assert_int_equal(binfile_load(fx_path(&fx, "trunc"), 0, &bf), RP_EINPUT);
	/* Another architecture: the same file claiming to be RISC-V, or 32-bit. */
	elf[18] = 243;
	elf[19] = 0;
	spew(fx_path(&fx, "riscv.o"), elf, size);
	assert_int_equal(binfile_load(fx_path(&fx, "riscv.o"), 0, &bf), RP_EINPUT);
	/* Two loadable files of different architectures are not compared. */
	elf[18] = 183; /* EM_AARCH64 */
	spew(fx_path(&fx, "arm.o"), elf, size);
	assert_int_equal(bindiff_files(fx_path(&fx, "prog.o"), fx_path(&fx, "arm.o"), 0, &d),
			 RP_EINPUT);
	assert_null(d.entries);
	elf[18] = 62;
	elf[4] = 1; /* ELFCLASS32 */
	assert_int_equal(binfile_load_memory("class32", elf, size, 0, &bf), RP_EINPUT);
	assert_int_equal(binfile_load_memory("tiny", elf, 8, 0, &bf), RP_EINPUT);
	/* A fully stripped executable has nothing to compare. */
	fx_build(&fx, "prog", prog_src, "-O2", "stripped");
	assert_int_equal(fx_sh(&fx, "strip stripped"), 0);
	assert_int_equal(binfile_load(fx_path(&fx, "stripped"), 0, &bf), RP_EINPUT);
	free(elf);
	fx_release(&fx);
}

/* Loads data (errors silenced); the only acceptable outcomes are success or RP_EINPUT. */
static void load_silently(const unsigned char *data, size_t size, int *ok, int *refused)
{
	struct binfile *bf;
	int ret = binfile_load_memory("mutant", data, size, 0, &bf);
	if (ret == 0) {
		(*ok)++;
		binfile_free(bf);
	} else {
		assert_int_equal(ret, RP_EINPUT);
		(*refused)++;
	}
}

/*
 * Corrupted real files: cut at many lengths, and bytes overwritten in the headers and
 * anywhere. A deterministic, quick cousin of tests/fuzz/.
 */
static void test_corrupt_files(void **state)
{
	static const char *const builds[][2] = {
	    {"-O2 -c", "m.o"},
	    {"-O0 -fPIE -pie", "m.pie"},
	    {"-O2 -fPIC -shared", "m.so"},
	};
	struct fixture fx;
	struct rng r;
	int ok = 0, refused = 0;
	UNUSED(state);
	fx_init(&fx);
	rng_seed(&r, 42);
	for (size_t b = 0; b < ARRAY_SIZE(builds); b++) {
		struct stderr_capture cap;
		size_t size, i;
		unsigned char *orig, *buf;
		char *printed;
		int refused_before = refused, lines = 0;
		fx_build(&fx, "prog", prog_src, builds[b][0], builds[b][1]);
		orig = slurp(fx_path(&fx, builds[b][1]), &size);
		buf = xmalloc(size);
		capture_stderr_begin(&cap);
		for (i = 0; i < 64; i++)
			load_silently(orig, size * i / 64, &ok, &refused);
		for (i = 0; i < 150; i++) {
			uint64_t shoff;
			memcpy(buf, orig, size);
			memcpy(&shoff, orig + 0x28, sizeof(shoff));
			for (int k = 0; k < 4; k++) {
				/* Half the hits in the ELF and section headers, where they hurt. */
				uint64_t v = rng_next(&r), at;
				if (k & 1)
					at = v % size;
				else if (v & 1)
					at = (v >> 1) % 64;
				else
					at = shoff + (v >> 1) % (size - shoff);
				buf[at] = (unsigned char)(rng_next(&r) >> 56);
			}
			load_silently(buf, size, &ok, &refused);
		}
		printed = capture_stderr_end(&cap);
		/* Each refusal said why, in one line naming the file. */
		for (const char *p = printed; (p = strstr(p, "revperf: error: mutant")); p++)
			lines++;
		assert_int_equal(lines, refused - refused_before);
		free(printed);
		free(buf);
		free(orig);
	}
	print_message("corrupt files: %d loaded, %d refused\n", ok, refused);
	assert_true(ok > 0 && refused > 0);
	fx_release(&fx);
}

/* The programs of the start-up test: b imports two more functions and has a pointer table. */
static const char startup_a[] =
    "#include <stdio.h>\n"
    "int main(int argc, char **argv) { (void)argv; printf(\"%d\\n\", argc); return 0; }\n";
static const char startup_b[] =
    "#include <stdio.h>\n#include <stdlib.h>\n"
    "static const char *const words[16] = {\"a\", \"b\", \"c\", \"d\", \"e\", \"f\", \"g\", "
    "\"h\", \"i\", \"j\", \"k\", \"l\", \"m\", \"n\", \"o\", \"p\"};\n"
    "int main(int argc, char **argv) { printf(\"%s %lu\\n\", words[argc & 15], "
    "strtoul(argv[0], NULL, 10)); return getenv(\"REVPERF_TEST\") != NULL; }\n";

/* f's dynlink against readelf's view of the same file (another reader of the same tables). */
static void assert_dynlink_as_readelf(struct fixture *fx, const char *file)
{
	struct binfile *bf;
	assert_int_equal(binfile_load(fx_path(fx, file), BINFILE_NO_DWARF, &bf), 0);
	assert_true(bf->dynlink.dynamic);
	print_message("%s: %llu dynamic relocations, %zu imports\n", file,
		      (unsigned long long)bf->dynlink.nr_relocs, bf->dynlink.nr_imports);
	/* a relocation line starts with its 16-digit offset */
	assert_int_equal(fx_sh(fx, "test \"$(readelf -rW %s | grep -cE '^[0-9a-f]{16} ')\" = %llu",
			       file, (unsigned long long)bf->dynlink.nr_relocs),
			 0);
	assert_int_equal(
	    fx_sh(fx,
		  "test \"$(readelf -W --dyn-syms %s | awk '$7 == \"UND\" && $8 != \"\" "
		  "{ sub(/@.*/, \"\", $8); print $8 }' | sort -u | wc -l)\" = %zu",
		  file, bf->dynlink.nr_imports),
	    0);
	for (size_t i = 1; i < bf->dynlink.nr_imports; i++)
		assert_true(strcmp(bf->dynlink.imports[i - 1], bf->dynlink.imports[i]) < 0);
	binfile_free(bf);
}

static bool has_import(const struct binfile *bf, const char *name)
{
	for (size_t i = 0; i < bf->dynlink.nr_imports; i++)
		if (!strcmp(bf->dynlink.imports[i], name))
			return true;
	return false;
}

/*
 * The dynamic loader's start-up work (binfile_dynlink, docs/prediction.md "Start-up
 * work"): the relocations and imports as readelf counts them; b's two new imports by name;
 * its 16 pointers are 16 more relocations in a PIE and none without PIE; object files and
 * static executables have none.
 */
static void test_dynlink(void **state)
{
	static const char *const flags[] = {"-O2 -fPIE -pie", "-O2 -fno-pie -no-pie"};
	struct fixture fx;
	struct binfile *a, *b;
	size_t added, removed;
	UNUSED(state);
	fx_init(&fx);
	for (size_t f = 0; f < ARRAY_SIZE(flags); f++) {
		fx_build(&fx, "a", startup_a, flags[f], "a");
		fx_build(&fx, "b", startup_b, flags[f], "b");
		assert_dynlink_as_readelf(&fx, "a");
		assert_dynlink_as_readelf(&fx, "b");
		assert_int_equal(binfile_load(fx_path(&fx, "a"), BINFILE_NO_DWARF, &a), 0);
		assert_int_equal(binfile_load(fx_path(&fx, "b"), BINFILE_NO_DWARF, &b), 0);
		assert_true(has_import(a, "printf") && has_import(b, "printf"));
		assert_true(has_import(b, "getenv") && has_import(b, "strtoul"));
		assert_false(has_import(a, "getenv"));
		binfile_dynlink_compare(&a->dynlink, &b->dynlink, &added, &removed);
		assert_int_equal(added, 2);
		assert_int_equal(removed, 0);
		binfile_dynlink_compare(&b->dynlink, &a->dynlink, &added, &removed);
		assert_int_equal(added, 0);
		assert_int_equal(removed, 2);
		binfile_dynlink_compare(&b->dynlink, &b->dynlink, &added, &removed);
		assert_int_equal(added + removed, 0);
		/* 2 PLT slots more; in a PIE also one R_X86_64_RELATIVE per pointer */
		if (f == 0)
			assert_true(b->dynlink.nr_relocs >= a->dynlink.nr_relocs + 16 + 2);
		else
			assert_true(b->dynlink.nr_relocs < a->dynlink.nr_relocs + 16);
		binfile_free(a);
		binfile_free(b);
	}

	/* A shared library is linked dynamically too. */
	fx_build(&fx, "lib", startup_b, "-O2 -fPIC -shared", "lib.so");
	assert_dynlink_as_readelf(&fx, "lib.so");

	/* An object file has no dynamic section: no start-up data. */
	fx_build(&fx, "b", startup_b, "-O2 -c", "b.o");
	assert_int_equal(binfile_load(fx_path(&fx, "b.o"), BINFILE_NO_DWARF, &b), 0);
	assert_false(b->dynlink.dynamic);
	assert_int_equal(b->dynlink.nr_relocs, 0);
	assert_int_equal(b->dynlink.nr_imports, 0);
	binfile_free(b);

	/* Neither has a statically linked executable (when libc.a is installed). */
	if (fx_sh(&fx, "cc -O2 -static -o s b.c 2>/dev/null") == 0) {
		assert_int_equal(binfile_load(fx_path(&fx, "s"), BINFILE_NO_DWARF, &b), 0);
		assert_false(b->dynlink.dynamic);
		assert_int_equal(b->dynlink.nr_relocs + b->dynlink.nr_imports, 0);
		binfile_free(b);
	} else {
		print_message("no static executable: cc -static failed (libc.a not installed)\n");
	}
	fx_release(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kinds_and_aliases), cmocka_unit_test(test_hash_is_deterministic),
	    cmocka_unit_test(test_aarch64_objects),   cmocka_unit_test(test_bad_input),
	    cmocka_unit_test(test_corrupt_files),     cmocka_unit_test(test_plt_names),
	    cmocka_unit_test(test_dynlink),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
