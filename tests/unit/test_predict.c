/*
 * Unit tests of the predictor's integration (predict/predict.h, store/store_dynamic.h): the
 * store's dynamic data, labelled verdicts and predictors; the static data of two real
 * builds and its cache; the binary a benchmark runs; test suites expanded into tests;
 * dynamic data collected under callgrind from a program whose call counts are known, and
 * from a calling context tree (the CCT runtime's self time); select-paths globs.
 * The analysis itself is tested in test_perphecy.c; the history end to end in
 * tests/cli/predict_history.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/config.h"
#include "predict/predict.h"
#include "store/store_dynamic.h"
#include "profile/cct.h"
#include "util/common.h"
#include "util/input.h"

#include "bindiff_fixture.h"
#include "capture_stderr.h"
#include "tmp_db.h"

static void assert_contains(const char *text, const char *what)
{
	if (!strstr(text, what))
		fail_msg("expected '%s' in: %s", what, text);
}

/* ---- a store in a fixture directory ---- */

static struct store *open_store(struct fixture *fx)
{
	struct store *st = NULL;
	assert_int_equal(store_open(tmp_db_at(fx_path(fx, "revperf.db")), 0, &st), 0);
	return st;
}

static int64_t add_build(struct store *st, const char *sha, const char *command)
{
	struct store_build b;
	int64_t rev;
	memset(&b, 0, sizeof(b));
	assert_int_equal(store_revision(st, sha, "subject", 1, &rev), 0);
	b.revision_id = rev;
	b.command = (char *)command;
	b.worktree = (char *)"/nonexistent";
	snprintf(b.status, sizeof(b.status), "ok");
	assert_int_equal(store_build_save(st, &b), 0);
	return b.id;
}

static const char *sha_of(char c)
{
	static char buf[4][41];
	static int next;
	char *s = buf[next++ % 4];
	memset(s, c, 40);
	s[40] = '\0';
	return s;
}

static void test_dynamic_roundtrip(void **state)
{
	struct stderr_capture cap;
	struct fixture fx;
	struct store *st;
	struct perphecy_profile p, q;
	struct store_dynamic d, found;
	struct store_dynamic_rev *revs;
	size_t n;
	int64_t build, other, bench;
	(void)state;

	fx_init(&fx);
	st = open_store(&fx);
	build = add_build(st, sha_of('a'), "make");
	other = add_build(st, sha_of('b'), "make CFLAGS=-O0");
	assert_int_equal(store_benchmark(st, "b1", "./prog", &bench), 0);

	perphecy_profile_init(&p, "b1", PERPHECY_COST_INSTRUCTIONS);
	assert_int_equal(perphecy_profile_add(&p, "main", 1, 100), 0);
	assert_int_equal(perphecy_profile_add(&p, "hot", 5000, 1ull << 40), 0);
	assert_int_equal(perphecy_profile_add(&p, "cold", 2, 7), 0);
	memset(&d, 0, sizeof(d));
	d.build_id = build;
	d.benchmark_id = bench;
	snprintf(d.source, sizeof(d.source), "callgrind");
	snprintf(d.cost, sizeof(d.cost), "instructions");
	d.path = xstrdup("/tmp/x");
	assert_int_equal(store_dynamic_save(st, &d, &p), 0);
	assert_true(d.id > 0);

	assert_int_equal(store_dynamic_find(st, build, bench, &found), 0);
	assert_int_equal(found.id, d.id);
	assert_string_equal(found.source, "callgrind");
	assert_string_equal(found.path, "/tmp/x");
	assert_int_equal(store_dynamic_load(st, &found, "b1", &q), 0);
	assert_int_equal(q.nr, 3);
	assert_int_equal(perphecy_profile_find(&q, "hot")->calls, 5000);
	assert_true(perphecy_profile_find(&q, "hot")->cost == 1ull << 40);
	assert_int_equal(perphecy_profile_find(&q, "cold")->cost, 7);
	perphecy_profile_release(&q);
	store_dynamic_release(&found);
	assert_int_equal(store_dynamic_find(st, other, bench, &found), 1);

	/* Saving again replaces the functions (none of the old ones stay). */
	perphecy_profile_release(&p);
	perphecy_profile_init(&p, "b1", PERPHECY_COST_INSTRUCTIONS);
	assert_int_equal(perphecy_profile_add(&p, "only", 3, 3), 0);
	assert_int_equal(store_dynamic_save(st, &d, &p), 0);
	assert_int_equal(store_dynamic_find(st, build, bench, &found), 0);
	assert_int_equal(store_dynamic_load(st, &found, "b1", &q), 0);
	assert_int_equal(q.nr, 1);
	assert_null(perphecy_profile_find(&q, "hot"));
	perphecy_profile_release(&q);
	store_dynamic_release(&found);

	/* Listed for its build command only. */
	assert_int_equal(store_dynamic_revisions(st, "b1", "./prog", "make", &revs, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(revs[0].sha, sha_of('a'));
	assert_string_equal(revs[0].cost, "instructions");
	free(revs);
	assert_int_equal(store_dynamic_revisions(st, "b1", "./prog", "make CFLAGS=-O0", &revs, &n),
			 0);
	assert_int_equal(n, 0);
	free(revs);
	assert_int_equal(store_dynamic_revisions(st, "b1", "./other", "make", &revs, &n), 0);
	assert_int_equal(n, 0);
	free(revs);

	/* A row edited into nonsense is an input error, not a crash. */
	snprintf(found.cost, sizeof(found.cost), "furlongs");
	found.id = d.id;
	capture_stderr_begin(&cap);
	assert_int_equal(store_dynamic_load(st, &found, "b1", &q), RP_EINPUT);
	{
		char *msg = capture_stderr_end(&cap);
		assert_contains(msg, "unknown cost unit 'furlongs'");
		free(msg);
	}
	perphecy_profile_release(&q);

	perphecy_profile_release(&p);
	store_dynamic_release(&d);
	store_close(st);
	fx_release(&fx);
}

static void add_verdict(struct store *st, int64_t cmp, int64_t bench, const char *metric,
			bool primary, const char *verdict)
{
	struct verdict_result r;
	memset(&r, 0, sizeof(r));
	r.ratio = r.ci_lo = r.ci_hi = r.p = NAN;
	assert_int_equal(store_verdict_save(st, cmp, bench, metric, primary, verdict, &r, 0, NAN),
			 0);
}

static void test_labelled_verdicts(void **state)
{
	struct fixture fx;
	struct store *st;
	struct store_comparison c;
	struct store_labelled *l;
	size_t n;
	int64_t a, b, x, y, z;
	(void)state;

	fx_init(&fx);
	st = open_store(&fx);
	a = add_build(st, sha_of('a'), "make");
	b = add_build(st, sha_of('b'), "make");
	assert_int_equal(store_benchmark(st, "x", "./x", &x), 0);
	assert_int_equal(store_benchmark(st, "y", "./y", &y), 0);
	assert_int_equal(store_benchmark(st, "z", "./z", &z), 0);
	memset(&c, 0, sizeof(c));
	c.base_build = a;
	c.target_build = b;
	assert_int_equal(store_comparison_new(st, &c), 0);
	/* x: one primary worse, one primary equal: a hit; a non-primary worse is ignored */
	add_verdict(st, c.id, x, "wall", true, "equal");
	add_verdict(st, c.id, x, "cpu", true, "better");
	/* y: all primary equal (the worse is not primary): a miss */
	add_verdict(st, c.id, y, "wall", true, "equal");
	add_verdict(st, c.id, y, "maxrss", false, "worse");
	/* z: equal and undecided: left out */
	add_verdict(st, c.id, z, "wall", true, "equal");
	add_verdict(st, c.id, z, "cpu", true, "undecided");

	assert_int_equal(store_labelled_verdicts(st, "make", &l, &n), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(l[i].base_sha, sha_of('a'));
		assert_string_equal(l[i].target_sha, sha_of('b'));
		if (!strcmp(l[i].bench_name, "x"))
			assert_int_equal(l[i].label, STORE_LABEL_HIT);
		else if (!strcmp(l[i].bench_name, "y"))
			assert_int_equal(l[i].label, STORE_LABEL_MISS);
		else
			assert_int_equal(l[i].label, STORE_LABEL_UNDECIDED);
	}
	store_labelled_free(l, n);
	/* Builds of another command are not this project's history. */
	assert_int_equal(store_labelled_verdicts(st, "ninja", &l, &n), 0);
	assert_int_equal(n, 0);
	store_labelled_free(l, n);
	store_close(st);
	fx_release(&fx);
}

static void test_predictors_replace(void **state)
{
	struct fixture fx;
	struct store *st;
	struct store_predictor rows[3], *got;
	size_t n;
	(void)state;

	fx_init(&fx);
	st = open_store(&fx);
	assert_int_equal(store_predictors_load(st, &got, &n), 0);
	assert_int_equal(n, 0);
	free(got);
	memset(rows, 0, sizeof(rows));
	rows[0].scope = (char *)"zeta";
	rows[1].scope = (char *)"common";
	rows[2].scope = (char *)"alpha";
	for (int i = 0; i < 3; i++) {
		rows[i].model = (char *)"{}";
		rows[i].tuples = (char *)"[]";
		rows[i].nr_tuples = (size_t)i + 10;
		rows[i].nr_hits = (size_t)i;
	}
	assert_int_equal(store_predictors_replace(st, rows, 3), 0);
	assert_int_equal(store_predictors_load(st, &got, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(got[0].scope, "common"); /* common first, then by name */
	assert_string_equal(got[1].scope, "alpha");
	assert_string_equal(got[2].scope, "zeta");
	assert_int_equal(got[0].nr_tuples, 11);
	assert_true(got[0].trained_at > 0);
	store_predictors_free(got, n);
	/* A new training replaces every row. */
	assert_int_equal(store_predictors_replace(st, rows + 1, 1), 0);
	assert_int_equal(store_predictors_load(st, &got, &n), 0);
	assert_int_equal(n, 1);
	store_predictors_free(got, n);
	store_close(st);
	fx_release(&fx);
}

/* ---- static data of two real builds, and its cache ---- */

static const char prog_a[] = "#include <stdio.h>\n"
			     "__attribute__((noinline)) int hot(int x) { return x * 3 + 1; }\n"
			     "__attribute__((noinline)) int gone(int x) { return x - 7; }\n"
			     "__attribute__((noinline)) int same(int x) { return x ^ 5; }\n"
			     "int main(int argc, char **argv) { (void)argv;\n"
			     "  int s = 0; for (int i = 0; i < 1000; i++) s += hot(i + argc);\n"
			     "  for (int i = 0; i < 10; i++) s += same(i);\n"
			     "  s += gone(argc); printf(\"%d\\n\", s); return 0; }\n";

static const char prog_b[] = "#include <stdio.h>\n"
			     "__attribute__((noinline)) int hot(int x) { int y = x * 3 + 1;\n"
			     "  for (int k = 0; k < (x & 3); k++) y = y * 7 + k; return y; }\n"
			     "__attribute__((noinline)) int same(int x) { return x ^ 5; }\n"
			     "__attribute__((noinline)) int added(int x) { return x + 11; }\n"
			     "int main(int argc, char **argv) { (void)argv;\n"
			     "  int s = 0; for (int i = 0; i < 1000; i++) s += hot(i + argc);\n"
			     "  for (int i = 0; i < 10; i++) s += same(i);\n"
			     "  s += added(argc); printf(\"%d\\n\", s); return 0; }\n";

static void setup_sd(struct fixture *fx, struct state_dir *sd)
{
	memset(sd, 0, sizeof(*sd));
	sd->root = xstrdup(fx->dir);
	sd->db_path = xstrdup(tmp_db_at(fx_path(fx, "revperf.db")));
	sd->worktrees = xstrdup(fx->dir);
	sd->logs = xstrdup(fx->dir);
}

static const struct perphecy_changed_func *changed(const struct perphecy_static *s,
						   const char *name)
{
	for (size_t i = 0; i < s->nr_funcs; i++)
		if (!strcmp(s->funcs[i].name, name))
			return &s->funcs[i];
	return NULL;
}

static void test_static_and_cache(void **state)
{
	struct stderr_capture cap;
	struct fixture fx;
	struct state_dir sd;
	struct config cfg;
	struct predict_ctx ctx;
	struct perphecy_static s, again;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, cache = STRBUF_INIT;
	const char *slash;
	char *msg;
	(void)state;

	fx_init(&fx);
	setup_sd(&fx, &sd);
	config_init(&cfg);
	fx_build(&fx, "a", prog_a, "-O1", "prog_a");
	fx_build(&fx, "b", prog_b, "-O1", "prog_b");
	strbuf_addstr(&a, fx_path(&fx, "prog_a"));
	strbuf_addstr(&b, fx_path(&fx, "prog_b"));
	predict_ctx_init(&ctx, &cfg, NULL, NULL, &sd);

	assert_int_equal(predict_static(&ctx, a.buf, b.buf, &s), 0);
	assert_int_equal(s.nr_deleted, 1);
	assert_int_equal(s.nr_added, 1);
	assert_non_null(changed(&s, "gone"));
	assert_true(changed(&s, "gone")->deleted);
	assert_non_null(changed(&s, "hot"));
	assert_false(changed(&s, "hot")->deleted);
	assert_true(changed(&s, "hot")->len_pct > 0);
	assert_null(changed(&s, "same"));

	/* The second time comes from the cache, with the same content. */
	assert_int_equal(predict_static(&ctx, a.buf, b.buf, &again), 0);
	assert_int_equal(again.nr_funcs, s.nr_funcs);
	assert_int_equal(again.nr_added, s.nr_added);
	assert_true(changed(&again, "hot")->len_pct == changed(&s, "hot")->len_pct);
	/* and the start-up data (both programs are linked dynamically) */
	assert_true(s.startup.known && again.startup.known);
	assert_true(s.startup.relocs_i > 0);
	assert_int_equal(again.startup.relocs_i, s.startup.relocs_i);
	assert_int_equal(again.startup.relocs_u, s.startup.relocs_u);
	assert_int_equal(again.startup.imports_added, s.startup.imports_added);
	assert_int_equal(again.startup.imports_removed, s.startup.imports_removed);
	perphecy_static_release(&again);

	/* Prove that it is read: plant a function in the cache file. */
	assert_int_equal(fx_sh(&fx, "ls predict/static-*.txt > cache.lst"), 0);
	assert_int_equal(input_read(&cache, fx_path(&fx, "cache.lst"), &input_state), 0);
	while (cache.len && cache.buf[cache.len - 1] == '\n')
		cache.buf[--cache.len] = '\0';
	slash = cache.buf;
	assert_int_equal(fx_sh(&fx,
			       "sed -i 's/^end$/D planted\\nend/; s/^counts \\([0-9]*\\) "
			       "\\([0-9]*\\)/counts \\1 2/' '%s'",
			       slash),
			 0);
	assert_int_equal(predict_static(&ctx, a.buf, b.buf, &again), 0);
	assert_non_null(changed(&again, "planted"));
	perphecy_static_release(&again);
	assert_int_equal(fx_sh(&fx, "sed -i 's/^startup .*/startup 10 20 3 4/' '%s'", slash), 0);
	assert_int_equal(predict_static(&ctx, a.buf, b.buf, &again), 0);
	assert_true(again.startup.known);
	assert_int_equal(again.startup.relocs_i, 10);
	assert_int_equal(again.startup.relocs_u, 20);
	assert_int_equal(again.startup.imports_added, 3);
	assert_int_equal(again.startup.imports_removed, 4);
	perphecy_static_release(&again);

	/* A cache of format 2 (before the binary diff's fix for data starting with a NUL
	 * byte) is computed again. */
	assert_int_equal(fx_sh(&fx, "sed -i 's/^revperf-static 3$/revperf-static 2/' '%s'", slash),
			 0);
	assert_int_equal(predict_static(&ctx, a.buf, b.buf, &again), 0);
	assert_null(changed(&again, "planted"));
	assert_int_equal(again.startup.relocs_i, s.startup.relocs_i);
	perphecy_static_release(&again);
	assert_int_equal(fx_sh(&fx,
			       "sed -i 's/^end$/D planted\\nend/; s/^counts \\([0-9]*\\) "
			       "\\([0-9]*\\)/counts \\1 2/' '%s'",
			       slash),
			 0);

	/* A corrupt cache is recomputed, silently. */
	assert_int_equal(fx_sh(&fx, "printf 'revperf-static 1\\ngarbage\\n' > '%s'", slash), 0);
	capture_stderr_begin(&cap);
	assert_int_equal(predict_static(&ctx, a.buf, b.buf, &again), 0);
	msg = capture_stderr_end(&cap);
	assert_string_equal(msg, "");
	free(msg);
	assert_null(changed(&again, "planted"));
	assert_int_equal(again.nr_funcs, s.nr_funcs);
	perphecy_static_release(&again);

	/* A rebuilt binary (new modification time) is diffed again. */
	assert_int_equal(fx_sh(&fx,
			       "sed -i 's/x - 7/x - 8/' a.c && sleep 0.01 && "
			       "cc -g -O1 -o prog_a a.c && sed -i 's/^end$/D planted\\nend/' '%s'",
			       slash),
			 0);
	assert_int_equal(predict_static(&ctx, a.buf, b.buf, &again), 0);
	assert_null(changed(&again, "planted"));
	perphecy_static_release(&again);

	/* A missing binary is an input error naming it. */
	capture_stderr_begin(&cap);
	assert_int_equal(predict_static(&ctx, fx_path(&fx, "nope"), b.buf, &again), RP_EINPUT);
	msg = capture_stderr_end(&cap);
	assert_contains(msg, "nope");
	free(msg);
	perphecy_static_release(&again);

	perphecy_static_release(&s);
	predict_ctx_release(&ctx);
	config_release(&cfg);
	state_dir_release(&sd);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&cache);
	fx_release(&fx);
}

/* ---- configuration: the binary of a benchmark, test suites ---- */

static struct config *read_config(struct fixture *fx, const char *text)
{
	struct config *cfg = xcalloc(1, sizeof(*cfg));
	config_init(cfg);
	fx_write(fx, "revperf.ini", text);
	assert_int_equal(config_read(cfg, fx_path(fx, "revperf.ini")), 0);
	return cfg;
}

static void free_config(struct config *cfg)
{
	config_release(cfg);
	free(cfg);
}

static void test_bench_binary(void **state)
{
	struct stderr_capture cap;
	struct fixture fx;
	struct config *cfg;
	struct strbuf sb = STRBUF_INIT;
	const struct {
		const char *section;
		const char *want; /* NULL: an error containing `err` */
		const char *err;
	} cases[] = {
	    {"command = ./build/prog --n 3\n", "/wt/./build/prog", NULL},
	    {"command = 'build/my prog' -x\n", "/wt/build/my prog", NULL},
	    {"command = build/prog > /dev/null\n", "/wt/build/prog", NULL},
	    {"command = sh run.sh\nbinary = out/prog\n", "/wt/out/prog", NULL},
	    {"command = sh run.sh\n", NULL, "runs 'sh' from PATH"},
	    {"command = FOO=1 ./prog\n", NULL, "binary = PATH"},
	    {"command = /usr/bin/true\n", NULL, "not built per revision"},
	};
	(void)state;
	fx_init(&fx);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf ini = STRBUF_INIT;
		int ret;
		strbuf_addf(&ini, "[benchmark \"b\"]\n%s", cases[i].section);
		cfg = read_config(&fx, ini.buf);
		assert_int_equal(config_finish(cfg), 0);
		strbuf_reset(&sb);
		if (!cases[i].want)
			capture_stderr_begin(&cap);
		ret = predict_bench_binary(&cfg->benches[0], "/wt", &sb);
		if (cases[i].want) {
			assert_int_equal(ret, 0);
			assert_string_equal(sb.buf, cases[i].want);
		} else {
			char *msg = capture_stderr_end(&cap);
			assert_int_equal(ret, RP_EINPUT);
			assert_contains(msg, cases[i].err);
			free(msg);
		}
		free_config(cfg);
		strbuf_release(&ini);
	}
	strbuf_release(&sb);
	fx_release(&fx);
}

static void test_suite_expand(void **state)
{
	struct stderr_capture cap;
	struct fixture fx;
	struct config *cfg;
	const char *tests[] = {"Parser.empty", "Parser.long", "io/read"};
	const char *bad[] = {"ok", "has space"};
	const char *dup[] = {"a", "a"};
	char *msg;
	(void)state;
	fx_init(&fx);
	cfg = read_config(&fx, "[defaults]\nruns = 3..4\n"
			       "[benchmark \"first\"]\ncommand = ./one\n"
			       "[benchmark \"unit\"]\ntests = ./build/tests --list\n"
			       "test-command = ./build/tests --run {test} --name={test}\n"
			       "tolerance = 7%\nmetric.speed = /([0-9]+) ops/ higher-is-better\n"
			       "[benchmark \"last\"]\ncommand = ./two\n");
	assert_int_equal(config_finish(cfg), 0);
	assert_string_equal(cfg->benches[1].tests, "./build/tests --list");
	assert_null(cfg->benches[1].command);

	assert_int_equal(config_expand_suite(cfg, "unit", tests, 3), 0);
	assert_int_equal(cfg->nr_benches, 5);
	assert_string_equal(cfg->benches[0].name, "first");
	assert_string_equal(cfg->benches[1].name, "unit/Parser.empty");
	assert_string_equal(cfg->benches[1].command,
			    "./build/tests --run Parser.empty --name=Parser.empty");
	assert_string_equal(cfg->benches[3].name, "unit/io/read");
	assert_string_equal(cfg->benches[4].name, "last");
	for (int i = 1; i <= 3; i++) {
		assert_null(cfg->benches[i].tests);
		assert_true(fabs(cfg->benches[i].tolerance - 0.07) < 1e-12);
		assert_int_equal(cfg->benches[i].min_runs, 3);
		assert_int_equal(cfg->benches[i].nr_reported, 1);
		assert_string_equal(cfg->benches[i].reported[0].def->name, "speed");
	}
	free_config(cfg);

	cfg = read_config(&fx, "[benchmark \"unit\"]\ntests = ls\ntest-command = ./t {test}\n");
	assert_int_equal(config_finish(cfg), 0);
	capture_stderr_begin(&cap);
	assert_int_equal(config_expand_suite(cfg, "unit", bad, 2), RP_EINPUT);
	assert_int_equal(config_expand_suite(cfg, "unit", dup, 2), RP_EINPUT);
	assert_int_equal(config_expand_suite(cfg, "nosuch", dup, 1), RP_EINPUT);
	msg = capture_stderr_end(&cap);
	assert_contains(msg, "test name 'has space'");
	assert_contains(msg, "test 'a' is listed twice");
	assert_contains(msg, "no test suite 'nosuch'");
	free(msg);
	assert_int_equal(cfg->nr_benches, 1); /* unchanged after an error */
	free_config(cfg);

	/* Keys checked where they are read. */
	{
		const char *bad_ini[] = {
		    "[benchmark \"u\"]\ntests = ls\n",
		    "[benchmark \"u\"]\ntest-command = ./t {test}\n",
		    "[benchmark \"u\"]\ncommand = ./x\ntests = ls\ntest-command = ./t {test}\n",
		};
		const char *want[] = {"both 'tests'", "both 'tests'", "both 'command' and 'tests'"};
		for (size_t i = 0; i < ARRAY_SIZE(bad_ini); i++) {
			cfg = read_config(&fx, bad_ini[i]);
			capture_stderr_begin(&cap);
			assert_int_equal(config_finish(cfg), RP_EINPUT);
			msg = capture_stderr_end(&cap);
			assert_contains(msg, want[i]);
			free(msg);
			free_config(cfg);
		}
		config_init(cfg = xcalloc(1, sizeof(*cfg)));
		fx_write(&fx, "revperf.ini", "[benchmark \"u\"]\ntests = ls\ntest-command = ./t\n");
		capture_stderr_begin(&cap);
		assert_int_equal(config_read(cfg, fx_path(&fx, "revperf.ini")), RP_EINPUT);
		fx_write(&fx, "revperf.ini", "[defaults]\nbinary = x\n");
		assert_int_equal(config_read(cfg, fx_path(&fx, "revperf.ini")), RP_EINPUT);
		msg = capture_stderr_end(&cap);
		assert_contains(msg, "revperf.ini:3: invalid value './t' for test-command");
		assert_contains(msg, "binary belongs in a [benchmark");
		free(msg);
		free_config(cfg);
	}
	fx_release(&fx);
}

/* ---- dynamic data from callgrind ---- */

static void test_collect_dynamic(void **state)
{
	struct stderr_capture cap;
	struct fixture fx;
	struct state_dir sd;
	struct config *cfg;
	struct store *st;
	struct predict_ctx ctx;
	struct revision rev;
	struct store_build build;
	struct predict_dynamic out;
	struct store_dynamic d;
	struct perphecy_profile p;
	int64_t bench;
	char *msg;
	(void)state;

	if (!predict_have_valgrind()) {
		print_message("valgrind not installed: dynamic data collection not tested\n");
		skip();
	}
	fx_init(&fx);
	setup_sd(&fx, &sd);
	st = open_store(&fx);
	fx_build(&fx, "a", prog_a, "-O1", "prog_a");
	cfg = read_config(&fx, "[benchmark \"b\"]\ncommand = ./prog_a\n"
			       "[benchmark \"sh\"]\ncommand = ./prog_a > /dev/null && true\n"
			       "[benchmark \"bad\"]\ncommand = ./prog_a; exit 3\n");
	assert_int_equal(config_finish(cfg), 0);
	predict_ctx_init(&ctx, cfg, st, NULL, &sd);
	memset(&rev, 0, sizeof(rev));
	memcpy(rev.sha, sha_of('c'), 41);
	memset(&build, 0, sizeof(build));
	build.id = add_build(st, rev.sha, "make");
	build.worktree = fx.dir;

	for (int k = 0; k < 2; k++) {
		capture_stderr_begin(&cap);
		assert_int_equal(
		    predict_collect_dynamic(&ctx, &rev, &build, &cfg->benches[k], &out), 0);
		free(capture_stderr_end(&cap));
		assert_true(out.nr_functions >= 4);
		assert_true(out.cost > 1000);
		assert_string_equal(out.source, "callgrind");
		free(out.path);
		assert_int_equal(
		    store_benchmark(st, cfg->benches[k].name, cfg->benches[k].command, &bench), 0);
		assert_int_equal(store_dynamic_find(st, build.id, bench, &d), 0);
		assert_string_equal(d.source, "callgrind");
		assert_int_equal(store_dynamic_load(st, &d, "b", &p), 0);
		/* Exact call counts from the program's loops. */
		assert_int_equal(perphecy_profile_find(&p, "hot")->calls, 1000);
		assert_int_equal(perphecy_profile_find(&p, "same")->calls, 10);
		assert_int_equal(perphecy_profile_find(&p, "gone")->calls, 1);
		assert_true(perphecy_profile_find(&p, "hot")->cost >
			    perphecy_profile_find(&p, "same")->cost);
		perphecy_profile_release(&p);
		store_dynamic_release(&d);
	}
	capture_stderr_begin(&cap);
	assert_int_equal(predict_collect_dynamic(&ctx, &rev, &build, &cfg->benches[2], &out),
			 RP_EINPUT);
	msg = capture_stderr_end(&cap);
	assert_contains(msg, "benchmark 'bad' failed under callgrind");
	assert_contains(msg, "run.log");
	free(msg);

	predict_ctx_release(&ctx);
	free_config(cfg);
	store_close(st);
	state_dir_release(&sd);
	fx_release(&fx);
}

/* ---- dynamic data from a calling context tree (the CCT runtime) ---- */

/* A node under parent with calls and exclusive ns. */
static uint32_t tree_node(struct cct *t, uint32_t parent, const char *name, uint32_t site,
			  double calls, double excl)
{
	uint32_t k = cct_child(t, parent, cct_intern(t, name), site);
	assert_true(k != CCT_NONE);
	t->nodes[k].calls = calls;
	t->nodes[k].excl = excl;
	return k;
}

static void test_dynamic_from_cct(void **state)
{
	struct fixture fx;
	struct store *st;
	struct cct t;
	struct store_dynamic d;
	struct perphecy_profile p;
	int64_t build, bench;
	uint32_t m, a;
	(void)state;

	fx_init(&fx);
	st = open_store(&fx);
	build = add_build(st, sha_of('d'), "make");
	assert_int_equal(store_benchmark(st, "b", "./prog", &bench), 0);
	/* main calls work from two sites; work calls leaf in both contexts. */
	cct_init(&t);
	m = tree_node(&t, CCT_ROOT, "main", 0, 1, 100);
	a = tree_node(&t, m, "work", 0, 10, 1000);
	tree_node(&t, a, "leaf", 0, 30, 300);
	a = tree_node(&t, m, "work", 1, 5, 500.4);
	tree_node(&t, a, "leaf", 0, 12, 120);
	tree_node(&t, m, "idle", 0, 0, 0); /* not reached: dropped */
	cct_compute_inclusive(&t);
	t.calls_known = true; /* as the CCT runtime's trees (a sampled tree has none) */

	assert_int_equal(predict_dynamic_save_cct(st, build, bench, &t, false, "/p", true), 0);
	assert_int_equal(store_dynamic_find(st, build, bench, &d), 0);
	assert_string_equal(d.source, "cct");
	assert_string_equal(d.cost, "self_ns");
	assert_string_equal(d.path, "/p");
	assert_int_equal(store_dynamic_load(st, &d, "b", &p), 0);
	assert_int_equal(p.nr, 3);
	assert_int_equal(p.cost_unit, PERPHECY_COST_SELF_NS);
	/* Summed over the contexts: calls and self time per function. */
	assert_int_equal(perphecy_profile_find(&p, "work")->calls, 15);
	assert_int_equal(perphecy_profile_find(&p, "work")->cost, 1500);
	assert_int_equal(perphecy_profile_find(&p, "leaf")->calls, 42);
	assert_int_equal(perphecy_profile_find(&p, "leaf")->cost, 420);
	assert_null(perphecy_profile_find(&p, "idle"));
	perphecy_profile_release(&p);

	/* Kept when data is there; replaced without keep_existing; calls only: cost 0. */
	t.nodes[m].calls = 2;
	assert_int_equal(predict_dynamic_save_cct(st, build, bench, &t, false, NULL, true), 1);
	assert_int_equal(store_dynamic_load(st, &d, "b", &p), 0);
	assert_int_equal(perphecy_profile_find(&p, "main")->calls, 1);
	perphecy_profile_release(&p);
	store_dynamic_release(&d);
	assert_int_equal(predict_dynamic_save_cct(st, build, bench, &t, true, NULL, false), 0);
	assert_int_equal(store_dynamic_find(st, build, bench, &d), 0);
	assert_int_equal(store_dynamic_load(st, &d, "b", &p), 0);
	assert_int_equal(perphecy_profile_find(&p, "main")->calls, 2);
	assert_int_equal(perphecy_profile_find(&p, "work")->cost, 0);
	perphecy_profile_release(&p);
	store_dynamic_release(&d);

	/* A tree without call counts (sampled): self time only, calls absent (stored 0). */
	t.calls_known = false;
	assert_int_equal(predict_dynamic_save_cct(st, build, bench, &t, false, NULL, false), 0);
	assert_int_equal(store_dynamic_find(st, build, bench, &d), 0);
	assert_int_equal(store_dynamic_load(st, &d, "b", &p), 0);
	assert_int_equal(perphecy_profile_find(&p, "work")->calls, 0);
	assert_int_equal(perphecy_profile_find(&p, "work")->cost, 1500);
	perphecy_profile_release(&p);
	store_dynamic_release(&d);
	cct_release(&t);

	/* A tree without any function stores nothing. */
	cct_init(&t);
	assert_int_equal(predict_dynamic_save_cct(st, add_build(st, sha_of('e'), "make"), bench, &t,
						  false, NULL, false),
			 1);
	cct_release(&t);
	store_close(st);
	fx_release(&fx);
}

/* ---- select-paths ---- */

static void test_select_paths(void **state)
{
	struct stderr_capture cap;
	struct fixture fx;
	struct config *cfg;
	const struct bench_config *b;
	char *msg;
	const struct {
		const char *path, *want; /* the glob that matches, NULL: none */
	} cases[] = {
	    {"data/input.txt", "data/*"},
	    {"data/sub/deep.bin", "data/*"},
	    {"config/a.ini", "config/*.ini"},
	    {"config/a.conf", NULL},
	    {"src/main.c", NULL},
	    {"assets/logo.png", "assets"},
	    {"assets", "assets"},
	    {"assetsX/a", NULL},
	    {"xdata/a", NULL},
	};
	(void)state;

	fx_init(&fx);
	cfg = read_config(&fx, "[defaults]\nselect-paths = data/*, config/*.ini , assets/\n"
			       "[benchmark \"b\"]\ncommand = ./prog\n"
			       "[benchmark \"c\"]\ncommand = ./prog\nselect-paths = other\n");
	assert_int_equal(config_finish(cfg), 0);
	b = config_bench(cfg, "b");
	assert_int_equal(b->nr_select_paths, 3);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *got = bench_select_path_match(b, cases[i].path);
		if (!cases[i].want ? got != NULL : !got || strcmp(got, cases[i].want))
			fail_msg("%s: matched %s, expected %s", cases[i].path,
				 got ? got : "nothing", cases[i].want ? cases[i].want : "nothing");
	}
	/* A benchmark's own list replaces the defaults'. */
	b = config_bench(cfg, "c");
	assert_int_equal(b->nr_select_paths, 1);
	assert_null(bench_select_path_match(b, "data/x"));
	assert_string_equal(bench_select_path_match(b, "other/x"), "other");
	free_config(cfg);

	/* Bad values name the file, line and key. */
	for (int k = 0; k < 3; k++) {
		static const char *const bad[] = {"data/*, , x", "/etc/*", ","};
		struct strbuf ini = STRBUF_INIT;
		cfg = xcalloc(1, sizeof(*cfg));
		config_init(cfg);
		strbuf_addf(&ini, "[benchmark \"b\"]\ncommand = ./p\nselect-paths = %s\n", bad[k]);
		fx_write(&fx, "revperf.ini", ini.buf);
		capture_stderr_begin(&cap);
		assert_int_equal(config_read(cfg, fx_path(&fx, "revperf.ini")), RP_EINPUT);
		msg = capture_stderr_end(&cap);
		assert_contains(msg, "revperf.ini:3");
		assert_contains(msg, "select-paths");
		free(msg);
		free_config(cfg);
		strbuf_release(&ini);
	}
	fx_release(&fx);
}

int main(void)
{
	char self_exe[4096];
	ssize_t n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	(void)line_of; /* the shared fixture's, unused here */
	if (n <= 0)
		return 1;
	self_exe[n] = '\0';
	if (!getenv("REVPERF_SPAWN")) {
		/* This binary is in <build>/tests, revperf-spawn in <build>. */
		struct strbuf spawn = STRBUF_INIT;
		strbuf_addstr(&spawn, self_exe);
		*strrchr(spawn.buf, '/') = '\0';
		spawn.len = strlen(spawn.buf);
		strbuf_addstr(&spawn, "/../revperf-spawn");
		setenv("REVPERF_SPAWN", spawn.buf, 1);
		strbuf_release(&spawn);
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dynamic_roundtrip),  cmocka_unit_test(test_labelled_verdicts),
	    cmocka_unit_test(test_predictors_replace), cmocka_unit_test(test_static_and_cache),
	    cmocka_unit_test(test_bench_binary),       cmocka_unit_test(test_suite_expand),
	    cmocka_unit_test(test_collect_dynamic),    cmocka_unit_test(test_dynamic_from_cct),
	    cmocka_unit_test(test_select_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
