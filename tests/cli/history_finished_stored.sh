# A second history over commits already compared runs nothing: no warm-up, no run, no
# new comparison, also for a commit whose verdict stayed undecided after its whole run
# budget. The benchmark writes a number of bytes that changes from run to run (wchar),
# so two runs per side cannot decide.
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo repo
cd repo
cat >revperf.ini <<'INI'
[build]
command = echo built > built.txt
[benchmark "write"]
command = sh ./work.sh
runs = 2..2
metrics = wchar
primary = wchar
INI
printf 'n=$(od -An -N2 -tu2 /dev/urandom); head -c $((n + 1)) /dev/zero > out.bin\n' >work.sh
git add . && git commit -qm one
echo 1 >x && git add x && git commit -qm two
echo 2 >x && git commit -qam three

count() { sqlite3 .revperf/revperf.db "SELECT count(*) FROM $1"; }
expect_exit 0 "$REVPERF" history -n 2 -q -f json
runs=$(count runs) comps=$(count comparisons)
[ "$comps" = 2 ] || fail "expected 2 comparisons, got $comps"
python3 -c "import json; d=json.load(open('out.txt')); print(d)" | grep -q undecided ||
	echo "note: no undecided verdict this time (the runs happened to decide)" >&2

expect_exit 0 "$REVPERF" history -n 2 -q -f json
[ "$(count runs)" = "$runs" ] || fail "second history ran: $runs -> $(count runs) runs"
[ "$(count comparisons)" = "$comps" ] || fail "second history recorded a comparison"
echo ok
