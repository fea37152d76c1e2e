# Install like a real tool (issue 19 item 1, docs/install.md): `make install` with PREFIX
# and DESTDIR (its command line from a dry run, then that cmake --install) puts
# bin/revperf, the spawner, the runtimes, one manual page per command and revperf(1), the
# bash completion and the licence under the prefix; the installed revperf finds its
# helpers relative to itself and compares two commands; the pages render without a
# warning and list the options -h lists; the completion completes; --version names the
# commit; `make uninstall` leaves nothing. A revperf copied alone says which file it
# misses and where it looked, exit 2, before any report. A plain make installs no
# packages.
. "$SRCDIR/tests/cli/lib/common.bash"
: "${BUILDDIR:?BUILDDIR must point to the build directory}"
command -v make >/dev/null || { echo "SKIP: no make"; exit 77; }
unset REVPERF_SPAWN REVPERF_CCT_RUNTIME
export NO_COLOR=1

root=$TEST_TMP/stage
prefix=/opt/revperf-test
inst=$root$prefix
mk() { make -C "$SRCDIR" --no-print-directory BUILD="$BUILDDIR" PREFIX="$prefix" DESTDIR="$root" "$@"; }

# A plain make builds and installs no packages; make test and make demo install them.
mk -n all >plan.txt 2>&1 || fail "make -n all: $(cat plan.txt)"
expect_no_grep 'install-deps' plan.txt
for t in test demo; do
	mk -n "$t" >plan.txt 2>&1 || true
	expect_grep 'install-deps' plan.txt
done

# make install is cmake --install with PREFIX and DESTDIR after the build: the dry run shows
# it, and the install itself runs here without the build step, which could relink the
# binaries that tests running beside this one execute (when the commit changed since the
# build, revperf --version's header does).
mk -n install >plan.txt 2>&1 || fail "make -n install: $(cat plan.txt)"
expect_grep "^cmake --build $BUILDDIR " plan.txt
expect_grep "^DESTDIR=\"$root\" cmake --install $BUILDDIR --prefix \"$prefix\"" plan.txt
DESTDIR=$root expect_exit 0 cmake --install "$BUILDDIR" --prefix "$prefix"
for f in bin/revperf libexec/revperf/revperf-spawn; do
	[ -x "$inst/$f" ] || fail "make install did not install $f: $(cd "$root" && find . -type f)"
done
for f in lib/revperf/librevperf_cct.so lib/revperf/librevperf_cct_noop.so \
	share/bash-completion/completions/revperf share/man/man1/revperf.1 \
	share/doc/revperf/LICENSE share/doc/revperf/README.md; do
	[ -f "$inst/$f" ] || fail "make install did not install $f: $(cd "$root" && find . -type f)"
done
grep -q '^MIT License' "$inst/share/doc/revperf/LICENSE" || fail "the licence is not MIT"
# Nothing outside the prefix, and only these directories under it.
(cd "$root" && find . -type f) | sort >files.txt
grep -v -E "^\.$prefix/(bin/revperf|libexec/revperf/|lib/revperf/|share/man/man1/revperf(-[a-z]+)?\.1|share/bash-completion/completions/revperf|share/doc/revperf/)" \
	files.txt >stray.txt || true
[ ! -s stray.txt ] || fail "make install wrote files of no known place: $(cat stray.txt)"

# One manual page per command of `revperf help`.
"$inst/bin/revperf" help | sed -n 's/^    \([a-z]*\)  .*/\1/p' >"$TEST_TMP/commands.txt"
[ "$(wc -l <"$TEST_TMP/commands.txt")" -ge 15 ] || fail "revperf help lists $(wc -l <"$TEST_TMP/commands.txt") commands"
while read -r c; do
	[ -f "$inst/share/man/man1/revperf-$c.1" ] || fail "no manual page revperf-$c.1"
done <"$TEST_TMP/commands.txt"
[ "$(ls "$inst/share/man/man1" | wc -l)" -eq $(($(wc -l <"$TEST_TMP/commands.txt") + 1)) ] ||
	fail "man1 holds other pages: $(ls "$inst/share/man/man1")"

# The installed revperf, without any variable pointing at its helpers: it finds the
# spawner in libexec/revperf/ and compares two commands (a number each prints, the same
# in every run: a verdict load cannot change).
cd "$TEST_TMP" && mkdir -p work && cd work
expect_exit 1 "$inst/bin/revperf" compare --cmd-a 'echo items=100' --cmd-b 'echo items=200' \
	--metric 'items=/items=([0-9]+)/ lower-is-better' --primary items --runs 3..3 -f json -q
python3 - out.txt <<'PY' || fail "the installed revperf's comparison: $(cat out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benchmarks"][0]
assert d["exit_code"] == 1, d["exit_code"]
assert b["runs"]["baseline"]["ok"] == 3 and b["runs"]["target"]["ok"] == 3, b["runs"]
m = [m for m in b["metrics"] if m["name"] == "items"][0]
assert m["verdict"] == "worse" and abs(m["ratio"] - 2.0) < 1e-9, m
PY
# ... and the CCT runtime in lib/revperf/.
if command -v cc >/dev/null; then
	cat >prog.c <<'C'
static int __attribute__((noinline)) twice(int x) { return 2 * x; }
int main(void) { int s = 0; for (int i = 0; i < 1000; i++) s += twice(i); return s == 0; }
C
	cc -O0 -finstrument-functions prog.c -o prog || fail "cannot build the profiled program"
	expect_exit 0 "$inst/bin/revperf" profile --cct -f json -- ./prog
	[ "$(json_get out.txt "[c['calls'] for c in d['by_inclusive'] if c['path'] == ['main', 'twice']]")" = "[1000.0]" ] ||
		fail "the profile lacks main -> twice, 1000 calls: $(head -c 2000 out.txt)"
else
	echo "no cc: the CCT runtime's installed place is not tried" >&2
fi

# --version: the commit it was built from, one of this repository's.
expect_exit 0 "$inst/bin/revperf" --version
expect_grep '^revperf [0-9]+\.[0-9]+\.[0-9]+ \(commit [0-9a-f]{12}(-dirty)?; ' out.txt
sha=$(sed -n 's/.*(commit \([0-9a-f]\{12\}\).*/\1/p' out.txt)
git -C "$SRCDIR" cat-file -e "$sha^{commit}" 2>/dev/null || fail "--version names $sha, not a commit of $SRCDIR"
cmp -s out.txt <("$inst/bin/revperf" -V) || fail "-V and --version differ"

# The manual pages render without a warning, carry the build's date (cmake/build_info.cmake),
# and each lists what -h lists.
date=$(sed -n 's/^#define REVPERF_DATE "\(.*\)"$/\1/p' "$BUILDDIR/generated/cli/build_info.h")
[[ $date =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] || fail "the build has no date: '$date'"
pages=0
for page in "$inst"/share/man/man1/*.1; do
	pages=$((pages + 1))
	grep -q "^\.TH [^ ]* 1 \"$date\" " "$page" || fail "$page is not dated $date: $(grep '^\.TH' "$page")"
	groff -man -Tutf8 -ww -z "$page" 2>warn.txt || fail "groff failed on $page"
	[ ! -s warn.txt ] || fail "groff warns about $page: $(cat warn.txt)"
	MANWIDTH=200 man -l "$page" 2>man-err.txt | col -b >page.txt ||
		fail "man -l $page: $(cat man-err.txt)"
	[ ! -s man-err.txt ] || fail "man -l $page: $(cat man-err.txt)"
	name=$(basename "$page" .1)
	grep -q "^NAME" page.txt && grep -q "^ *$name - " page.txt ||
		fail "$page has no NAME line '$name - ...': $(head -20 page.txt)"
	[ "$name" = revperf ] && continue
	c=${name#revperf-}
	# Every option label of `revperf C -h` ("-t, --tolerance PCT"), as the page prints it.
	"$inst/bin/revperf" "$c" -h | sed -n 's/^    \(-[^ ].*\)/\1/p' | sed 's/  .*//' >labels.txt
	[ -s labels.txt ] || fail "revperf $c -h lists no option"
	# Spaces as one, and a minus sign (groff without Debian's man.local) as '-'.
	tr -s ' \t' '  ' <page.txt | sed 's/\xe2\x88\x92/-/g' >page-ascii.txt
	while read -r label; do
		grep -q -F -- "$label" page-ascii.txt ||
			fail "revperf-$c(1) lacks '$label' of revperf $c -h: $(cat page.txt)"
	done <labels.txt
done
[ "$pages" -eq $(($(wc -l <"$TEST_TMP/commands.txt") + 1)) ] || fail "$pages manual pages checked"
MANWIDTH=100 man -l "$inst/share/man/man1/revperf.1" 2>/dev/null | col -b >page.txt
while read -r c; do
	grep -q "revperf-$c(1)" page.txt || fail "revperf(1) does not list revperf-$c(1)"
done <"$TEST_TMP/commands.txt"
# That date is SOURCE_DATE_EPOCH's when it is set (reproducible builds), else the commit's
# (UTC); a SOURCE_DATE_EPOCH that is no number is an error naming it.
build_info() { cmake -DSRC="$SRCDIR" -DOUT="$TEST_TMP/build_info.h" -P "$SRCDIR/cmake/build_info.cmake"; }
rm -f "$TEST_TMP/build_info.h"
SOURCE_DATE_EPOCH=86400 expect_exit 0 build_info
expect_grep '^#define REVPERF_DATE "1970-01-02"$' "$TEST_TMP/build_info.h"
if want=$(TZ=UTC git -C "$SRCDIR" log -1 --format=%cd --date=format-local:%Y-%m-%d 2>/dev/null); then
	rm -f "$TEST_TMP/build_info.h"
	(unset SOURCE_DATE_EPOCH; expect_exit 0 build_info)
	expect_grep "^#define REVPERF_DATE \"$want\"\$" "$TEST_TMP/build_info.h"
fi
SOURCE_DATE_EPOCH=yesterday expect_exit 1 build_info
expect_grep "SOURCE_DATE_EPOCH 'yesterday' is not a number" err.txt

# The bash completion: registered, and it completes commands, options, formats, files.
comp=$inst/share/bash-completion/completions/revperf
complete_words() { # WORD... (the last one being completed): the completions, one a line
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _revperf
		printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@"
}
bash -c '. "$1"; complete -p revperf' _ "$comp" >out.txt 2>&1 || fail "complete -p: $(cat out.txt)"
expect_grep '^complete -F _revperf revperf$' out.txt
complete_words revperf com >out.txt
[ "$(cat out.txt)" = compare ] || fail "revperf com<TAB>: $(cat out.txt)"
complete_words revperf compare --no-c >out.txt
[ "$(cat out.txt)" = --no-color ] || fail "revperf compare --no-c<TAB>: $(cat out.txt)"
complete_words revperf history --fo >out.txt
[ "$(cat out.txt)" = --format ] || fail "revperf history --fo<TAB>: $(cat out.txt)"
complete_words revperf compare -f '' | sort | tr '\n' ' ' >out.txt
[ "$(cat out.txt)" = "json markdown text " ] || fail "revperf compare -f <TAB>: $(cat out.txt)"
complete_words revperf help bis >out.txt
[ "$(cat out.txt)" = bisect ] || fail "revperf help bis<TAB>: $(cat out.txt)"
touch results-a.json
complete_words revperf diff --out res >out.txt
[ "$(cat out.txt)" = results-a.json ] || fail "revperf diff --out res<TAB>: $(cat out.txt)"
# --opt=VALUE: split at '=' as bash does by default, or whole (COMP_WORDBREAKS without '=').
complete_words revperf history --format = js >out.txt
[ "$(cat out.txt)" = json ] || fail "revperf history --format=js<TAB> (split): $(cat out.txt)"
complete_words revperf compare --format = | sort | tr '\n' ' ' >out.txt
[ "$(cat out.txt)" = "json markdown text " ] || fail "revperf compare --format=<TAB> (split): $(cat out.txt)"
complete_words revperf history --format=js >out.txt
[ "$(cat out.txt)" = --format=json ] || fail "revperf history --format=js<TAB>: $(cat out.txt)"
complete_words revperf diff --out=res >out.txt
[ "$(cat out.txt)" = --out=results-a.json ] || fail "revperf diff --out=res<TAB>: $(cat out.txt)"
complete_words revperf compare --no-color= >out.txt
[ -z "$(tr -d '\n' <out.txt)" ] || fail "revperf compare --no-color=<TAB> offers: $(cat out.txt)"
# Every long option of compare -h, and nothing else, for "--".
"$inst/bin/revperf" compare -h | grep -o -E '^    (-[a-z], )?--[a-z-]+' | sed 's/.*--/--/' |
	sort >want.txt
complete_words revperf compare -- | grep '^--' | sort >out.txt
diff want.txt out.txt >/dev/null || fail "compare --<TAB> differs from -h: $(diff want.txt out.txt)"

# make uninstall removes every file install wrote.
expect_exit 0 mk uninstall
(cd "$root" && find . -type f) >left.txt
[ ! -s left.txt ] || fail "make uninstall left: $(cat left.txt)"

# A revperf copied alone: which file it misses, where it looked, exit 2, no report.
mkdir -p "$TEST_TMP/alone" && cp "$REVPERF" "$TEST_TMP/alone/revperf"
cd "$TEST_TMP/work"
alone=$TEST_TMP/alone/revperf
expect_exit 2 "$alone" compare --cmd-a true --cmd-b true
[ ! -s out.txt ] || fail "a report before the error: $(cat out.txt)"
expect_one_line err.txt
expect_grep "cannot find the process spawner revperf-spawn: looked at $TEST_TMP/alone/revperf-spawn, $TEST_TMP/libexec/revperf/revperf-spawn \(relative to the revperf executable $TEST_TMP/alone/revperf\)" err.txt
expect_grep "make install.*REVPERF_SPAWN" err.txt
expect_exit 2 "$alone" compare --cmd-a true --cmd-b true -f json
python3 -c "import json,sys; d=json.load(open('out.txt')); assert d['schema'] == 'revperf-error/1' and 'revperf-spawn' in d['error']['message'] and 'benchmarks' not in d, d" ||
	fail "-f json: not one error document: $(cat out.txt)"
for cmd in "history" "bisect --bench x a b" "ci" "run" "predict" "profile --cct -- true" \
	"profile --counters -- true"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$alone" $cmd
	expect_grep "cannot find the process spawner revperf-spawn: looked at " err.txt
	[ ! -s out.txt ] || fail "revperf $cmd printed before the error: $(cat out.txt)"
done
# Named by REVPERF_SPAWN but absent: that is what it says.
REVPERF_SPAWN=$TEST_TMP/nowhere expect_exit 2 "$alone" compare --cmd-a true --cmd-b true
expect_grep "REVPERF_SPAWN='$TEST_TMP/nowhere'" err.txt
# With its spawner but not the CCT runtime, a comparison that profiles says so before any
# run or report.
REVPERF_CCT_RUNTIME=$TEST_TMP/nowhere.so expect_exit 2 "$REVPERF" compare --cmd-a true \
	--cmd-b true --profile cct --runs 3..3
expect_grep "cannot use the CCT runtime REVPERF_CCT_RUNTIME='$TEST_TMP/nowhere.so'" err.txt
[ ! -s out.txt ] || fail "a report before the missing runtime's error: $(cat out.txt)"
echo ok
