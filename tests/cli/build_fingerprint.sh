# A rebuilt build must be the program its stored runs measured. When a worktree was removed
# by hand, revperf built it again under the same build record and pooled the stored runs
# of the old program with runs of the new one: with a build that is not reproducible (here
# a value from the environment compiled in, as a changed CFLAGS would be) the verdict came
# from two different programs. Each build now records a fingerprint of its programs
# (binary/fingerprint.h): built again into other programs, the build is a new generation,
# said in one warning line, and the old runs stay stored (revperf show) but are not reused.
# Built again into the same programs: nothing said, the runs reused as before. Decided on
# instructions counted under valgrind (ir), which a busy machine cannot change.
. "$SRCDIR/tests/cli/lib/common.bash"

mkdir repo && cd repo
git init -q . && git config user.email t@example.com && git config user.name test
cat >revperf.ini <<'INI'
[build]
command = cc -O1 -DSTAMP="\"${FP_STAMP:-fixed}\"" -o prog prog.c
[defaults]
metrics = wall, ir
primary = ir
[benchmark "loop"]
command = ./prog
runs = 3..3
INI
cat >prog.c <<'C'
#include <stdio.h>
int main(void)
{
	volatile unsigned long s = 0;
	for (unsigned long i = 0; i < 100000; i++)
		s += i;
	printf("%s %lu\n", STAMP, s);
	return 0;
}
C
git add . && git commit -qm base && git tag base
sed -i 's/100000/200000/' prog.c && git commit -qam "twice the work" && git tag slow
base_wt=.revperf/worktrees/$(git rev-parse base)
slow_wt=.revperf/worktrees/$(git rev-parse slow)
q() { db_query .revperf/revperf.db "$1"; }
base_builds() {
	q "SELECT b.generation || ':' || (SELECT count(*) FROM runs r WHERE r.build_id = b.id AND r.warmup = 0)
	   FROM builds b JOIN revisions v ON v.id = b.revision_id
	   WHERE v.sha = '$(git rev-parse base)' ORDER BY b.generation" | tr '\n' ' '
}
# one_warning PATTERN: err.txt has one warning, and it matches PATTERN.
one_warning() {
	[ "$(grep -c warning err.txt)" = 1 ] || { cat err.txt; fail "not one warning"; }
	expect_grep "$1" err.txt
}
reused() { json_get out.txt "d['benchmarks'][0]['runs']['$1']['reused']"; }
counted_reused() { json_get out.txt "d['benchmarks'][0]['counted']['reused'][$1]"; }

expect_exit 1 "$REVPERF" compare base slow -q -f json --seed 1
[ "$(q "SELECT count(*) FROM builds WHERE fingerprint LIKE '% prog%'")" = 2 ] ||
	fail "fingerprints: $(q 'SELECT id, fingerprint FROM builds')"
[ "$(base_builds)" = "0:3 " ] || fail "base builds: $(base_builds)"

# Reproducible: the worktree removed, built again into the same program: its runs reused.
rm -rf "$base_wt"
expect_exit 1 "$REVPERF" compare base slow -f json --more
expect_grep '^revperf: building [0-9a-f]{12} \(base\)' err.txt
expect_no_grep 'warning' err.txt
[ "$(reused baseline)" = 3 ] && [ "$(reused target)" = 3 ] ||
	fail "runs not reused: $(reused baseline) + $(reused target)"
[ "$(counted_reused 0)" -ge 1 ] || fail "counted runs not reused: $(counted_reused 0)"
n_old=$(json_get out.txt "d['benchmarks'][0]['runs']['baseline']['ok']")
[ "$n_old" -ge 3 ] && [ "$(base_builds)" = "0:$n_old " ] || fail "base builds: $(base_builds), $n_old runs"

# Not reproducible: built again into another program. One warning line, a new generation,
# nothing reused of the old program: neither its timed runs nor its counted ones.
rm -rf "$base_wt"
stamp=$(date +%s%N)
FP_STAMP=$stamp expect_exit 1 "$REVPERF" compare base slow -f json --more
one_warning '^revperf: warning: [0-9a-f]{12} \(base\): built again into other programs than those its '"$n_old"' stored runs, [0-9]+ counted runs? and [0-9]+ profiles? measured \(prog: [0-9a-f]{12} -> [0-9a-f]{12}\): not pooled with them, measured apart as build generation 1; the old ones stay stored for show and report$' err.txt
[ "$(reused baseline)" = 0 ] && [ "$(reused target)" = 0 ] ||
	fail "runs of the old program pooled: $(reused baseline) + $(reused target)"
[ "$(counted_reused 0)" = 0 ] || fail "counted runs of the old program pooled: $(counted_reused 0)"
[ "$(json_get out.txt "[m for m in d['benchmarks'][0]['metrics'] if m['name'] == 'ir'][0]['verdict']")" = worse ] ||
	fail "not worse"
n_new=$(json_get out.txt "d['benchmarks'][0]['runs']['baseline']['ok']")
[ "$(base_builds)" = "0:$n_old 1:$n_new " ] || fail "base builds: $(base_builds), $n_old + $n_new runs"

# The old runs stay stored, shown with the comparison that measured them.
expect_exit 0 "$REVPERF" show 1
expect_grep '^loop: 3 \+ 3 runs, shown from the store' out.txt
expect_grep "comparison 1's builds no longer hold them \\(.*built again into other programs" err.txt

# The same again (the new generation's program): nothing said, its runs reused.
rm -rf "$base_wt"
FP_STAMP=$stamp expect_exit 1 "$REVPERF" compare base slow -f json --more
expect_no_grep 'warning' err.txt
[ "$(q "SELECT max(generation) FROM builds")" = 1 ] || fail "a third generation: $(base_builds)"
[ "$(reused baseline)" = "$n_new" ] || fail "the new generation's runs not reused: $(reused baseline)"

# A build recorded before fingerprints (schema 13 or before): one recorded at its next use, silently.
q "UPDATE builds SET fingerprint = NULL" >/dev/null
expect_exit 1 "$REVPERF" compare base slow -f json --more
expect_no_grep 'warning|building' err.txt
[ "$(reused baseline)" -ge 3 ] || fail "runs not reused after recording: $(reused baseline)"
[ "$(q "SELECT count(*) FROM builds WHERE fingerprint IS NULL")" = 1 ] ||
	fail "the older generation took a fingerprint: $(q 'SELECT id, fingerprint FROM builds')"
[ "$(q "SELECT count(*) FROM builds WHERE fingerprint LIKE '% prog%'")" = 2 ] ||
	fail "not recorded: $(q 'SELECT id, generation, fingerprint FROM builds')"

# Rebuilt by hand in a worktree, which revperf then does not build: caught all the same.
(cd "$slow_wt" && cc -O1 -DSTAMP='"by hand"' -o prog prog.c)
expect_exit 1 "$REVPERF" compare base slow -f json --more
one_warning '^revperf: warning: [0-9a-f]{12} \(slow\): its worktree holds other programs than those its [0-9]+ stored runs.* measured \(prog: [0-9a-f]{12} -> [0-9a-f]{12}\)' err.txt
[ "$(reused target)" = 0 ] || fail "runs of the old target pooled: $(reused target)"

