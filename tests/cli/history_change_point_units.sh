# history's change points show the medians in the metric's unit, as the verdicts do:
# "median 121 ms -> 86.6 ms", not "median 0.121238 -> 0.0865986" (seconds, no unit), and
# bytes as bytes. The benchmark writes 1000 bytes at five commits, 3000 at the next five (of
# the 252 ways to split ten, one: the permutation test's p stays far below 0.05).
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo repo
cd repo
cat >revperf.ini <<'INI'
[build]
command = echo built > built.txt
[benchmark "write"]
command = sh ./work.sh
runs = 2..2
warmup = 0
metrics = wchar
primary = wchar
INI
printf 'head -c 1000 /dev/zero > out.bin\n' >work.sh
git add . && git commit -qm w0
for i in 1 2 3 4; do echo $i >x && git add x && git commit -qm "w$i"; done
printf 'head -c 3000 /dev/zero > out.bin\n' >work.sh
git commit -qam more
for i in 5 6 7 8; do echo $i >x && git commit -qam "w$i"; done

expect_exit 0 "$REVPERF" history -n 10 -q
expect_grep '^  write wchar: at [0-9a-f]{12} \(more\): median 1000 B -> 2.93 KiB \(\+200\.0%\), p = ' out.txt
expect_exit 0 "$REVPERF" history -n 10 -q -f markdown
expect_grep 'median 1000 B -> 2.93 KiB' out.txt
echo ok
