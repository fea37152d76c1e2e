/* Whether both builds of a benchmark's program hold the same code (compare_binary.h). */
#include "compare/compare_binary.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binary/bindiff.h"
#include "collect/cmdline.h"
#include "util/common.h"

/*
 * The program's path relative to the worktree, or NULL when it is not one (no message):
 * `binary`, else the command's first word, also of a command the shell runs (`./prog -6 <
 * in > /dev/null`) when that word is plain, as the predictor takes it
 * (predict_bench_binary()).
 */
static char *relative_program(const struct bench_config *bench)
{
	char **argv;
	char *word = NULL;
	if (bench->binary)
		return bench->binary[0] == '/' ? NULL : xstrdup(bench->binary);
	argv = cmdline_split(bench->command);
	if (argv && argv[0]) {
		word = xstrdup(argv[0]);
	} else if (!argv) {
		size_t len = strcspn(bench->command, " \t\n");
		word = xstrndup(bench->command, len);
		if (strpbrk(word, "'\"$`\\=(){}<>|;&*?[]~#!")) {
			free(word);
			word = NULL;
		}
	}
	cmdline_free(argv);
	if (word && (word[0] == '/' || !strchr(word, '/'))) {
		free(word);
		word = NULL;
	}
	return word;
}

bool compare_has_program(const struct bench_config *bench)
{
	char *rel = relative_program(bench);
	bool has = rel != NULL;
	free(rel);
	return has;
}

static bool is_elf(const char *path)
{
	char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	bool elf = false;
	if (fd < 0)
		return false;
	elf = read(fd, magic, 4) == 4 && !memcmp(magic, "\177ELF", 4);
	close(fd);
	return elf;
}

static int64_t insns_of(const struct binfunc *fn)
{
	return fn ? (int64_t)fn->nr_insns : -1;
}

/* How much a function's instructions changed: an added or deleted one by all of them. */
static int64_t insns_change(const struct changed_fn *c)
{
	int64_t d = (c->insns[1] < 0 ? 0 : c->insns[1]) - (c->insns[0] < 0 ? 0 : c->insns[0]);
	return d < 0 ? -d : d;
}

/* Changes of the code first, then the largest change, then by name: the order shown. */
static int changed_cmp(const void *pa, const void *pb)
{
	const struct changed_fn *a = pa, *b = pb;
	int64_t da = insns_change(a), db = insns_change(b);
	if (!a->only != !b->only)
		return a->only ? 1 : -1;
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* b->changed: every entry of bd that is not unchanged. */
static void list_changed(const struct bindiff *bd, struct bench_outcome *b)
{
	b->changed = xcalloc(b->functions_changed ? b->functions_changed : 1, sizeof(*b->changed));
	for (size_t i = 0; i < bd->nr_entries; i++) {
		const struct bindiff_entry *e = &bd->entries[i];
		struct changed_fn *c;
		if (e->cls == BINDIFF_UNCHANGED || b->nr_changed == b->functions_changed)
			continue;
		c = &b->changed[b->nr_changed++];
		c->name = xstrdup(e->new_fn ? e->new_fn->name : e->old_fn->name);
		if (e->cls == BINDIFF_RENAMED)
			c->old_name = xstrdup(e->old_fn->name);
		c->cls = bindiff_class_name(e->cls);
		c->only = e->why == BINDIFF_WHY_LINE	? "a line-number constant"
			  : e->why == BINDIFF_WHY_CLONE ? "a clone suffix"
							: NULL;
		c->insns[0] = insns_of(e->old_fn);
		c->insns[1] = insns_of(e->new_fn);
	}
	qsort(b->changed, b->nr_changed, sizeof(*b->changed), changed_cmp);
}

/* The last pair of programs whose binary diff failed (compare_same_code()). */
static char *last_failed, *last_failed_b;

void compare_same_code(const struct compare_request *req, const struct bench_config *bench,
		       struct bench_outcome *b)
{
	struct strbuf pa = STRBUF_INIT, pb = STRBUF_INIT;
	struct bindiff bd;
	char *rel;

	b->same_code = SAME_CODE_UNKNOWN;
	if (!req->a.sha || !req->b.sha || req->same_build || !req->a.cwd || !req->b.cwd ||
	    req->a.command || req->b.command || !(rel = relative_program(bench)))
		return;
	strbuf_addf(&pa, "%s/%s", req->a.cwd, rel);
	strbuf_addf(&pb, "%s/%s", req->b.cwd, rel);
	memset(&bd, 0, sizeof(bd));
	/* Benchmarks that run the same program: a pair that failed is not tried (and said)
	 * again. */
	if (last_failed && !strcmp(last_failed, pa.buf) && last_failed_b &&
	    !strcmp(last_failed_b, pb.buf))
		goto out;
	if (!is_elf(pa.buf) || !is_elf(pb.buf))
		goto out;
	if (bindiff_files(pa.buf, pb.buf, BINFILE_ADVISORY, &bd)) {
		free(last_failed);
		free(last_failed_b);
		last_failed = xstrdup(pa.buf);
		last_failed_b = xstrdup(pb.buf);
	} else {
		size_t changed = bd.count[BINDIFF_MODIFIED] + bd.count[BINDIFF_RENAMED] +
				 bd.count[BINDIFF_ADDED] + bd.count[BINDIFF_DELETED];
		b->same_code = changed ? SAME_CODE_DIFFERS : SAME_CODE_IDENTICAL;
		b->program = rel;
		b->functions_changed = changed;
		b->functions_total = changed + bd.count[BINDIFF_UNCHANGED];
		b->renamed = xcalloc(bd.count[BINDIFF_RENAMED] ? bd.count[BINDIFF_RENAMED] : 1,
				     sizeof(*b->renamed));
		for (size_t i = 0; i < bd.nr_entries; i++) {
			const struct bindiff_entry *e = &bd.entries[i];
			if (e->cls != BINDIFF_RENAMED)
				continue;
			b->renamed[b->nr_renamed].old_name = xstrdup(e->old_fn->name);
			b->renamed[b->nr_renamed++].new_name = xstrdup(e->new_fn->name);
		}
		list_changed(&bd, b);
		rel = NULL;
		bindiff_release(&bd);
	}
out:
	free(rel);
	strbuf_release(&pa);
	strbuf_release(&pb);
}
