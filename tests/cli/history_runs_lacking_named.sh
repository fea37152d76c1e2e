# history over stored comparisons of other metrics: the warning that their runs lack a
# metric now asked for names the builds (the commits) it is about, once per pair of
# commits and benchmark. Before, `history -m wchar,cpu` after two comparisons with
# -m wchar printed "write: the 3 + 3 stored runs of these builds have no cpu ..." twice,
# identically, naming no commit (zlib trial: crc).
. "$SRCDIR/tests/cli/lib/common.bash"

make_wchar_repo repo
printf 'head -c 5000 /dev/zero > out.bin\n' >work.sh
git commit -qam "write 5000 bytes"
short() { git rev-parse --short=12 "$1"; }

expect_exit 1 "$REVPERF" compare base slow -q -m wchar
expect_exit 1 "$REVPERF" compare slow HEAD -q -m wchar
expect_exit 0 "$REVPERF" history -m wchar,cpu
grep 'have no cpu' err.txt >lacking.txt || true
[ "$(wc -l <lacking.txt)" = 2 ] || { cat err.txt; fail "expected 2 warnings, one per pair of commits"; }
expect_grep "^revperf: warning: write: the 3 \+ 3 stored runs of builds $(short base) and $(short slow) have no cpu" lacking.txt
expect_grep "^revperf: warning: write: the 3 \+ 3 stored runs of builds $(short slow) and $(short HEAD) have no cpu" lacking.txt
# Once per pair: measured again with cpu, a second history warns no more.
expect_exit 0 "$REVPERF" history -m wchar,cpu
expect_no_grep 'have no cpu' err.txt
echo ok
