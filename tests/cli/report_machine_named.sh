# `report --machine NAME` (and each site of --each-machine) draws the runs of the machine
# it names, and says so. It said "the machine with the most runs (N)" of every machine it
# drew, also of a named one with fewer runs than another: a fleet's report of its second
# machine told the team that machine had the most runs.
. "$SRCDIR/tests/cli/lib/common.bash"

make_wchar_repo repo

# "big" measures 4 + 4 runs and a warm-up a side (10), "few" 3 + 3 (8): big has the most runs.
REVPERF_MACHINE=big expect_exit 1 "$REVPERF" compare base slow --runs 4..4 --seed 1
REVPERF_MACHINE=few expect_exit 1 "$REVPERF" compare base slow --runs 3..3 --seed 2

text() { python3 -c 'import re, sys; t = re.sub(r"<[^>]+>", " ", open(sys.argv[1]).read()); print(re.sub(r"\s+", " ", t))' "$1"; }

expect_exit 0 "$REVPERF" report -o site-default
text site-default/index.html >default.txt
expect_grep 'Measured on big .*: the machine with the most runs' default.txt

expect_exit 0 "$REVPERF" report -o site-few --machine few
text site-few/index.html >few.txt
expect_grep 'Measured on few ' few.txt
expect_no_grep 'the machine with the most runs' few.txt
expect_grep 'the machine this report is for \(8 runs\)' few.txt

# --each-machine names each machine in turn: no site claims the most runs.
expect_exit 0 "$REVPERF" report -o sites --each-machine
text sites/big/index.html >big.txt
text sites/few/index.html >few2.txt
expect_grep 'Measured on big .*: the machine this report is for \(10 runs\)' big.txt
expect_grep 'Measured on few .*: the machine this report is for \(8 runs\)' few2.txt
expect_no_grep 'the machine with the most runs' few2.txt
echo ok
