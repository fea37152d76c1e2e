# Two stores used from one clone (its own .revperf/revperf.db and another, as a clone that
# compares locally and on the team's shared store): comparison numbers are a store's, so
# both stores have a comparison 1. Each keeps its files apart (core/build.h,
# state_dir_bind_store): the state directory's own store in profiles/<n> and
# logs/runs/<n>, another in profiles/store-<id>/<n> and logs/runs/store-<id>/<n>. Before,
# both wrote profiles/1/: the second comparison overwrote the counted runs the first's rows
# point to, and `show 1` on the first store said `ir worse +8.29%` of a change to alpha
# while its functions named beta, +300 k Ir, 100% of the change (the other store's).
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

mkdir repo && cd repo
git init -q . && git config user.email t@example.com && git config user.name test
printf '[build]\ncommand = cc -O1 -o spin spin.c\n[benchmark "spin"]\ncommand = ./spin\n' >revperf.ini
printf 'metrics = ir\nprimary = ir\nruns = 2..2\nwarmup = 0\n' >>revperf.ini
work() { # N FUNCTION: main calls FUNCTION, which adds N numbers
	cat >spin.c <<C
static volatile unsigned long sink;
__attribute__((noinline)) void $2(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}
int main(void)
{
	$2($1);
	return 0;
}
C
}
work 100000 alpha && git add . && git commit -qm a && git tag a
work 110000 alpha && git commit -qam b && git tag b
work 100000 beta && git commit -qam c && git tag c
work 150000 beta && git commit -qam d && git tag d
other=$TEST_TMP/other.db

expect_exit 1 "$REVPERF" compare a b -q
expect_exit 1 "$REVPERF" compare c d -q --store "$other"
[ "$(db_query .revperf/revperf.db "SELECT max(id) FROM comparisons")" = 1 ] ||
	fail "the first store's comparison is not number 1"
[ "$(sqlite3 "$other" "SELECT max(id) FROM comparisons")" = 1 ] ||
	fail "the other store's comparison is not number 1"

# Each store's comparison 1 with its own functions.
check_show() { # STORE-OPTION... : the function that changed, and the one that must not show
	local want=$1 not=$2; shift 2
	expect_exit 0 "$REVPERF" show 1 "$@"
	expect_grep "finding +$want  \(calls 1 -> 1\)" out.txt
	expect_no_grep "finding +$not |;$not " out.txt
}
check_show alpha beta
check_show beta alpha --store "$other"

# The other store's files are under its id; the state directory's own store (not on
# PostgreSQL, where both stores are others) keeps profiles/1 and logs/runs/1.
id=$(sqlite3 "$other" "SELECT min(id) FROM store_identity")
[ ${#id} = 32 ] || fail "the other store has no identity: '$id'"
tag=store-$(printf %.12s "$id")
[ -d ".revperf/profiles/$tag/1/spin/counted" ] || fail "no .revperf/profiles/$tag/1: $(ls -R .revperf/profiles)"
[ -f ".revperf/logs/runs/$tag/1/spin-A.log" ] || fail "no .revperf/logs/runs/$tag/1: $(ls -R .revperf/logs/runs)"
if [ -z "${REVPERF_STORE:-}" ]; then
	[ -d .revperf/profiles/1/spin/counted ] || fail "the own store's profiles are not in profiles/1"
	[ -f .revperf/logs/runs/1/spin-A.log ] || fail "the own store's logs are not in logs/runs/1"
fi
# The identity is made once: a second command finds the same.
expect_exit 0 "$REVPERF" show 1 --store "$other" -q
[ "$(sqlite3 "$other" "SELECT count(*) FROM store_identity")" = 1 ] || fail "a second identity"
# A command that only reads makes none: a store without one (never written from a state
# directory it is not the own store of) stays so, and is shown from its stored rows.
sqlite3 "$other" "DELETE FROM store_identity"
check_show beta alpha --store "$other"
[ "$(sqlite3 "$other" "SELECT count(*) FROM store_identity")" = 0 ] || fail "show made an identity"
# An identity that is not 32 hex digits names no folder (it could climb out: ../):
# one error line, exit 2, nothing written.
sqlite3 "$other" "INSERT INTO store_identity(id) VALUES('../../../../../../tmp/x')"
expect_exit 2 "$REVPERF" compare c d -q --store "$other" --more
expect_one_line err.txt
expect_grep "identity '\.\./\.\./.*' \(table store_identity\) is not 32 hex digits" err.txt
sqlite3 "$other" "DELETE FROM store_identity"
sqlite3 "$other" "INSERT INTO store_identity(id) VALUES('$id')"

# The report of each store shows its own comparison's functions.
check_report() { # DIR WANT NOT STORE-OPTION...
	local dir=$1 want=$2 not=$3; shift 3
	expect_exit 0 "$REVPERF" report -o "$dir" -q "$@"
	cat "$dir"/commits/*.html >pages.html
	expect_grep "<td class=\"stack\">$want</td>" pages.html
	expect_no_grep "class=\"stack\">$not<|;$not[ <]" pages.html
}
check_report "$TEST_TMP/site-own" alpha beta
check_report "$TEST_TMP/site-other" beta alpha --store "$other"

# gc of either store keeps the other's folder (a store-<id> is not a comparison number;
# a store's gc reads only its own folder) and its own (its comparison is stored).
# (an hour old: gc keeps what changed in the last 10 minutes, a running command's)
find .revperf/logs .revperf/profiles -exec touch -h -d '1 hour ago' {} +
expect_exit 0 "$REVPERF" gc
[ -d ".revperf/profiles/$tag/1/spin/counted" ] || fail "gc of the own store removed the other's profiles"
[ -f ".revperf/logs/runs/$tag/1/spin-A.log" ] || fail "gc of the own store removed the other's run logs"
expect_exit 0 "$REVPERF" gc --store "$other"
[ -d ".revperf/profiles/$tag/1/spin/counted" ] || fail "gc of the other store removed its profiles"
check_show beta alpha --store "$other"
if [ -z "${REVPERF_STORE:-}" ]; then
	[ -d .revperf/profiles/1/spin/counted ] || fail "gc of the other store removed the own one's profiles"
	[ -f .revperf/logs/runs/1/spin-A.log ] || fail "gc of the other store removed the own one's run logs"
	check_show alpha beta

	# A store's files from before they were kept apart (profiles/1, measured here): its
	# report still finds them.
	rm -rf .revperf/profiles/1
	mv ".revperf/profiles/$tag/1" .revperf/profiles/1
	check_report "$TEST_TMP/site-legacy" beta alpha --store "$other"
fi
