# history takes a stored comparison only when it answers what this invocation asks, as
# compare does: -m/--primary asking for a metric the stored comparisons never measured
# (ir) measures it, and a stored comparison judged on another primary whose verdicts
# answer the one asked is shown with the one asked, with a warning per row naming the
# comparison and both primaries. Before, history reused any finished comparison and
# showed its stored primary: `-m wchar,ir --primary ir` printed wchar rows, and after it
# plain history printed ir rows, silently. Decided on wchar and ir, which a busy machine
# cannot change: the program writes 1000 or 3000 bytes.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

mkdir repo && cd repo
git init -q . && git config user.email t@example.com && git config user.name test
cat >revperf.ini <<'INI'
[build]
command = cc -O1 -o work work.c
[benchmark "write"]
command = ./work
runs = 2..3
warmup = 0
metrics = wchar
primary = wchar
INI
work() {
	cat >work.c <<C
#include <stdio.h>
static char buf[$1];
int main(void)
{
	FILE *f = fopen("out.bin", "wb");
	return !f || fwrite(buf, 1, sizeof(buf), f) != sizeof(buf) || fclose(f);
}
C
}
work 1000 && git add . && git commit -qm "1000 bytes"
echo '/* the same */' >>work.c && git commit -qam "the same"
work 3000 && git commit -qam "3000 bytes"

# per commit: the primary verdicts (metric verdict), oldest first
primaries() { json_get "$1" "[sorted((v['metric'], v['verdict']) for v in c['verdicts'] if v['primary']) for c in d['commits'] if c['status'] in ('compared', 'reused')]"; }
statuses() { json_get "$1" "[c['status'] for c in d['commits'] if c['status'] != 'root']"; }

expect_exit 0 "$REVPERF" history -n 3 -q -f json
[ "$(primaries out.txt)" = "[[('wchar', 'equal')], [('wchar', 'worse')]]" ] ||
	fail "first history: $(primaries out.txt)"
comps=$(count comparisons)

# --primary ir: the stored comparisons never counted instructions; both measured anew.
expect_exit 0 "$REVPERF" history -n 3 -m wchar,ir --primary ir -f json
[ "$(statuses out.txt)" = "['compared', 'compared']" ] ||
	fail "-m wchar,ir --primary ir reused: $(statuses out.txt)"
[ "$(primaries out.txt)" = "[[('ir', 'equal')], [('ir', 'worse')]]" ] ||
	fail "-m wchar,ir --primary ir: $(primaries out.txt)"
[ "$(count comparisons)" = $((comps + 2)) ] || fail "no new comparisons for ir"
ids=$(json_get out.txt "' '.join(str(c['comparison']) for c in d['commits'] if c['comparison'])")
# Asked again, they are reused (finished), still with ir.
runs=$(count runs)
expect_exit 0 "$REVPERF" history -n 3 -m wchar,ir --primary ir -f json
[ "$(statuses out.txt)" = "['reused', 'reused']" ] || fail "again: $(statuses out.txt)"
[ "$(primaries out.txt)" = "[[('ir', 'equal')], [('ir', 'worse')]]" ] ||
	fail "again: $(primaries out.txt)"
expect_no_grep 'judged it with primary' err.txt

# The configuration's primary (wchar): the newest comparisons judged on ir also decided
# wchar, so they are reused, shown with wchar, and each row says so.
expect_exit 0 "$REVPERF" history -n 3 -f json
[ "$(statuses out.txt)" = "['reused', 'reused']" ] || fail "wchar: $(statuses out.txt)"
[ "$(primaries out.txt)" = "[[('wchar', 'equal')], [('wchar', 'worse')]]" ] ||
	fail "wchar after ir: $(primaries out.txt)"
[ "$(count runs)" = "$runs" ] || fail "wchar after ir ran: $runs -> $(count runs) runs"
[ "$(grep -c 'judged it with primary = ir; the configuration now says wchar' err.txt)" = 2 ] ||
	{ cat err.txt; fail "expected one warning per reused row"; }
for id in $ids; do
	expect_grep "comparison $id judged it with primary = ir" err.txt
done
expect_exit 0 "$REVPERF" history -n 3 -f markdown
expect_grep 'write wchar: equal' out.txt
expect_no_grep 'write ir: (equal|worse)' out.txt

# Asked on the command line, the warnings name the option, not the configuration, which
# says nothing of it (before: "the configuration now says wchar" for --primary wchar;
# libdeflate trial); compare's replay of the same comparison says the same.
expect_exit 0 "$REVPERF" history -n 3 -m wchar,ir --primary wchar -f json
[ "$(statuses out.txt)" = "['reused', 'reused']" ] || fail "--primary wchar: $(statuses out.txt)"
[ "$(grep -c 'judged it with primary = ir; --primary now says wchar: shown with the one asked' err.txt)" = 2 ] ||
	{ cat err.txt; fail "expected the option named in each warning"; }
expect_no_grep 'the configuration now says' err.txt
expect_exit 1 "$REVPERF" compare HEAD~1 HEAD -m wchar,ir --primary wchar
expect_grep 'judged it with primary = ir; --primary now says wchar: judged again with the one asked, from the same runs' err.txt
expect_no_grep 'the configuration now says' err.txt
echo ok
