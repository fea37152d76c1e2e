# bisect looks for the commit that made a benchmark worse; when BAD is better than GOOD
# there is nothing to bisect, and the report says where to look instead: bisect --better
# (tests/cli/bisect_improvement.sh), or history over the same range, each commit against
# its parent (libdeflate trial: bisecting the decompression speed-up
# only said "nothing to bisect"). Decided on wchar, which a busy machine cannot change.
. "$SRCDIR/tests/cli/lib/common.bash"
make_wchar_repo repo
# tag slow writes 3000 bytes; a commit after it goes back to 1000: better than slow
printf 'head -c 1000 /dev/zero > out.bin\n' >work.sh
git commit -qam "write 1000 bytes again" && git tag fast
good=$(git rev-parse --short=12 slow) bad=$(git rev-parse --short=12 fast)

expect_exit 1 "$REVPERF" bisect slow fast --bench write
expect_grep 'BAD is not worse than GOOD on write wchar \(better\): nothing to bisect' out.txt
expect_grep "which commit made it better: 'revperf bisect --better $good $bad -b write' finds the first; 'revperf history $good\\.\\.$bad -b write' compares each with its parent" out.txt
# what it names finds the commit
expect_exit 0 "$REVPERF" history "$good..$bad" -b write
expect_grep "^$bad .* write wchar: better x0\\.333" out.txt
expect_exit 0 "$REVPERF" bisect --better "$good" "$bad" -b write
expect_grep "^improvement: $(git rev-parse fast) write 1000 bytes again$" out.txt
echo ok
