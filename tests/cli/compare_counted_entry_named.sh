# The call paths under a counted verdict start at the dynamic loader's entry point, which
# has no symbol in a stripped ld.so (Debian's): callgrind names it by its address, and
# every path of SQLite's speedtest1 began "0x000000000001ab70;(below main);..." in the
# Markdown and JSON reports. The renamer now names an address that is its object's ELF
# entry point (e_entry) `_start`, as the loader's source does; on a loader with symbols
# callgrind already says `_start`. docs/callgrind.md, "PLT entries".
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

cat >spin.c <<'C'
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}
int main(int argc, char **argv)
{
	(void)argc;
	work(strtoul(argv[1], 0, 10));
	return 0;
}
C
cc -O1 -o spin spin.c || fail "cannot compile the workload"

expect_exit 1 "$REVPERF" compare --cmd-a './spin 100000' --cmd-b './spin 110000' \
	--metrics ir --primary ir --runs 3..3 -f json
python3 - out.txt <<'PY' || fail "entry point: $(cat out.txt)"
import json, sys
c = json.load(open(sys.argv[1]))["benchmarks"][0]["counted"]
paths = [p["path"] for p in c["paths"]]
assert paths, c
roots = {p.split(";")[0] for p in paths}
assert not [r for r in roots if r.startswith("0x")], roots
work = [p for p in paths if p.endswith(";main;work")]
assert work and work[0].startswith("_start;"), paths
PY
