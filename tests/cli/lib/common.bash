# Shared by the CLI tests: a temp dir per test, assertions that print what failed.
set -u
: "${REVPERF:?REVPERF must point to the binary}"
: "${SRCDIR:?SRCDIR must point to the source tree}"
TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/revperf-cli.XXXXXX")
trap 'rm -rf "$TEST_TMP"' EXIT
cd "$TEST_TMP"
export GIT_CONFIG_NOSYSTEM=1 HOME="$TEST_TMP"

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_exit CODE CMD...: runs CMD, stdout in out.txt, stderr in err.txt.
expect_exit() {
	local want=$1; shift
	local got=0
	"$@" >out.txt 2>err.txt || got=$?
	if [ "$got" != "$want" ]; then
		# What failed first, then stderr, a comparison's verdicts, and stdout last: CI keeps
		# only the head of a long output.
		echo "FAIL: expected exit $want, got $got: $*"
		echo "--- stderr"; cat err.txt
		verdicts_of out.txt
		echo "--- stdout"; cat out.txt
		fail "expected exit $want, got $got: $*"
	fi
}

# verdicts_of FILE: when FILE is the JSON of a comparison, one line per benchmark and
# metric (verdict, ratio, interval, runs, values), so a failure shows why without the JSON.
verdicts_of() {
	python3 - "$1" <<'PY' 2>/dev/null || true
import json, sys
d = json.load(open(sys.argv[1]))
print("--- verdicts")
for b in d.get("benchmarks", []):
    for m in b.get("metrics", []):
        v = m.get("values") or {}
        print(b["name"], m["name"], m.get("verdict"), m.get("ratio"), m.get("ci"),
              "reason:", m.get("reason") or m.get("unmeasured_reason"),
              "base:", v.get("baseline"), "target:", v.get("target"))
PY
}

expect_grep() { # PATTERN FILE
	grep -q -E -- "$1" "$2" || { echo "--- $2"; cat "$2"; fail "no match for /$1/ in $2"; }
}

expect_no_grep() { # PATTERN FILE
	! grep -q -E -- "$1" "$2" || { echo "--- $2"; cat "$2"; fail "unexpected /$1/ in $2"; }
}

# expect_one_line FILE: errors are one line.
expect_one_line() {
	[ "$(wc -l <"$1")" -eq 1 ] || { cat "$1"; fail "expected exactly one line in $1"; }
}

# db_query DBFILE SQL: one query on the store the test's commands use, rows unaligned with
# '|' between columns: the SQLite file DBFILE, or the PostgreSQL database that REVPERF_STORE
# names when the test runs against PostgreSQL (tests/pg/run.sh sets both it and PG_ENV).
db_query() {
	if [ -n "${REVPERF_STORE:-}" ]; then
		# shellcheck disable=SC1090
		(. "$PG_ENV" && "$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d "$REVPERF_STORE" -c "$2")
	else
		sqlite3 "$1" "$2"
	fi
}

# store_profiles STATE: the folder of profiles of the store the test's commands use
# (core/build.h, state_dir_bind_store): STATE/profiles for the state directory's own
# SQLite file, STATE/profiles/store-<its id> for the PostgreSQL database of the twins.
store_profiles() {
	if [ -n "${REVPERF_STORE:-}" ]; then
		printf '%s/profiles/store-%.12s\n' "$1" \
			"$(db_query "$1/revperf.db" "SELECT min(id) FROM store_identity")"
	else
		printf '%s/profiles\n' "$1"
	fi
}

# store_wipe DIR: no results any more: the state directory DIR removed and, when the test
# runs against PostgreSQL, every table of its database dropped.
store_wipe() {
	rm -rf "$1"
	if [ -n "${REVPERF_STORE:-}" ]; then
		# shellcheck disable=SC1090
		(. "$PG_ENV" && "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$REVPERF_STORE" \
			-c 'drop schema public cascade; create schema public')
	fi
}

# json_get FILE EXPR: evaluates a Python expression on the parsed JSON as `d`.
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# A small git project whose benchmark is a shell command, for fast tests.
make_tiny_repo() {
	mkdir -p "$1" && cd "$1"
	git init -q . && git config user.email t@example.com && git config user.name test
	cat >revperf.ini <<'INI'
[build]
command = echo built > built.txt
[benchmark "spin"]
command = sh ./work.sh
runs = 3..6
INI
	printf 'i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done\n' >work.sh
	git add . && git commit -qm base && git tag base
	cd - >/dev/null
}

# make_wchar_repo DIR: make_tiny_repo DIR, cd into it, and a benchmark "write" decided on
# wchar (exact on a busy machine): tag base writes 1000 bytes, tag slow 3000.
make_wchar_repo() {
	make_tiny_repo "$1"
	cd "$1" || fail "cannot cd into $1"
	cat >revperf.ini <<'INI'
[build]
command = echo built > built.txt
[benchmark "write"]
command = sh ./work.sh
runs = 3..4
metrics = wchar
primary = wchar
INI
	printf 'head -c 1000 /dev/zero > out.bin\n' >work.sh
	git add . && git commit -qm "write 1000 bytes" && git tag -f base >/dev/null
	printf 'head -c 3000 /dev/zero > out.bin\n' >work.sh
	git commit -qam "write 3000 bytes" && git tag slow
}

# signal_at_run N SIGNAL PIDFILE [AFTER]: the first lines of a benchmark script that counts
# the runs of the test (in $TEST_TMP/count) and, at the run after N earlier ones, sends
# SIGNAL to the process whose pid PIDFILE holds (revperf, to interrupt or kill it), then
# runs AFTER ("sleep 5" by default: the run is still going when the signal arrives).
signal_at_run() {
	printf 'n=$(cat "%s/count" 2>/dev/null || echo 0); echo $((n + 1)) >"%s/count"\n' \
		"$TEST_TMP" "$TEST_TMP"
	printf 'if [ "$n" = %s ]; then kill -%s "$(cat "%s")"; %s; fi\n' "$1" "$2" "$3" \
		"${4:-sleep 5}"
}

# make_alternating_repo DIR [INI_LINE...]: an A/A fixture that is undecided by
# construction, in a git repository DIR (entered): benchmark "alt" reports v = 1000, 1100,
# 1000, ... on tag a and 1100, 1000, ... on tag b (each side counts its runs in its own
# worktree), so the paired log ratios alternate around 0 and the same values come in every
# run of a test, whatever the load. INI_LINEs (runs = 3..6 by default) end its section;
# ALT_SLEEP, when set, is slept before each value.
make_alternating_repo() {
	local dir=$1
	shift
	make_tiny_repo "$dir"
	cd "$dir"
	[ $# -gt 0 ] || set -- "runs = 3..6"
	v_ini alt "sh ./alt.sh" "$@"
	{
		[ -z "${ALT_SLEEP:-}" ] || echo "sleep $ALT_SLEEP"
		echo 'c=$(cat .n 2>/dev/null || echo 0); echo $((c + 1)) >.n'
		echo 'if [ $(( (c + $(cat off)) % 2 )) = 0 ]; then echo "v 1000"; else echo "v 1100"; fi'
	} >alt.sh
	echo 0 >off
	git add . && git commit -qm alt && git tag a
	echo 1 >off
	git commit -qam "the other phase" && git tag b
}

# A repository (in dir, the current directory afterwards) whose program counts 1 or 2
# units of work per run, by a pattern of digits (6 or more) read from the file `pattern`: the run
# counter in .n picks the digit (ir alone makes no timing runs: every run is a counted
# one and follows the pattern from the first, cycling). Tags a and b have
# the patterns given; revperf.ini judges ir alone, runs 2..2, no warm-up.
# Usage: make_pattern_repo DIR PATTERN_A PATTERN_B
make_pattern_repo() {
	make_tiny_repo "$1"
	cd "$1"
	cat >work.c <<'C'
#include <stdio.h>
#include <string.h>
static volatile unsigned long sink;
int main(void)
{
	unsigned long n = 0, units;
	char pattern[32] = "";
	FILE *f = fopen(".n", "r");
	if (f) {
		if (fscanf(f, "%lu", &n) != 1)
			n = 0;
		fclose(f);
	}
	if (!(f = fopen(".n", "w")))
		return 1;
	fprintf(f, "%lu\n", n + 1);
	fclose(f);
	if (!(f = fopen("pattern", "r")) || fscanf(f, "%31s", pattern) != 1)
		return 1;
	fclose(f);
	units = pattern[n % strlen(pattern)] == '1' ? 1 : 2;
	for (unsigned long i = 0; i < units * 300000; i++)
		sink += i;
	return 0;
}
C
	printf '[build]\ncommand = cc -O1 -o work work.c\n[benchmark "w"]\ncommand = ./work\n' >revperf.ini
	printf 'metrics = ir\nprimary = ir\nruns = 2..2\nwarmup = 0\n' >>revperf.ini
	echo "$2" >pattern
	git add . && git commit -qm work && git tag a
	echo "$3" >pattern
	git commit -qam "the same program, other inputs" && git tag b
}

# A repository (in dir, the current directory afterwards) whose benchmark "v" prints the
# value the test writes for its side: tags a (side A) and b (side B) print the contents of
# $values/A and $values/B (values defaults to $PWD/values, made here). metric v, runs 3..6.
# Usage: make_valued_repo DIR
make_valued_repo() {
	values=${values:-$PWD/values}
	mkdir -p "$values"
	make_tiny_repo "$1"
	cd "$1"
	v_ini v "sh ./v.sh" "runs = 3..6"
	printf 'echo "v $(cat %s/$(cat side))"\n' "$values" >v.sh
	echo A >side
	git add . && git commit -qm v && git tag a
	echo B >side
	git commit -qam "the other side" && git tag b
}

# A new repository (in dir, the current directory afterwards; nothing committed) whose
# benchmark "spin" runs a loop of about 6 instructions per iteration, judged on ir alone
# (runs 2..2, no warm-up). spin N writes spin.c with N iterations.
# Usage: make_spin_repo DIR; spin N
make_spin_repo() {
	mkdir "$1" && cd "$1"
	git init -q . && git config user.email t@example.com && git config user.name test
	printf '[build]\ncommand = cc -O1 -o spin spin.c\n[benchmark "spin"]\ncommand = ./spin\n' >revperf.ini
	printf 'metrics = ir\nprimary = ir\nruns = 2..2\nwarmup = 0\n' >>revperf.ini
}
# make_spin_repo DIR with runs 3..4 and one warm-up, spin 100000 committed as tag base, and
# a commit that changes only a comment as tag same (the same code); count TABLE gives the
# rows of a table of the state directory's store.
# Usage: make_spin_same DIR; count TABLE
make_spin_same() {
	make_spin_repo "$1"
	sed -i 's/^runs = .*/runs = 3..4/; s/^warmup = .*/warmup = 1/' revperf.ini
	spin 100000
	git add . && git commit -qm base && git tag base
	echo '/* the same code */' >>spin.c && git commit -qam comment && git tag same
}
count() { db_query .revperf/revperf.db "SELECT count(*) FROM $1"; }
spin() {
	cat >spin.c <<C
static volatile unsigned long sink;
int main(void)
{
	for (unsigned long i = 0; i < $1; i++)
		sink += i;
	return 0;
}
C
}

# Writes FILE, a C program whose loop runs as many times as the number in the file its
# first argument names (exit 2 without it): the work changes with the input, not the code.
# Usage: loop_from_file FILE
loop_from_file() {
	cat >"$1" <<'C'
#include <stdio.h>
int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
	unsigned long n = 0, i;
	volatile unsigned long h = 0;
	if (!f || fscanf(f, "%lu", &n) != 1)
		return 2;
	for (i = 0; i < n; i++)
		h = h * 31 + i;
	return 0;
}
C
}

# Writes revperf.ini: build `true`, one benchmark NAME running COMMAND, whose output's
# "v N" is its only metric (primary), no warm-up, and the further lines given.
# Usage: v_ini NAME COMMAND [LINE ...]
v_ini() {
	local name=$1 command=$2 line
	shift 2
	{
		printf '[build]\ncommand = true\n[benchmark "%s"]\ncommand = %s\n' "$name" "$command"
		printf 'metric.v = /v ([0-9]+)/\nmetrics = v\nprimary = v\nwarmup = 0\n'
		for line in "$@"; do printf '%s\n' "$line"; done
	} >revperf.ini
}
