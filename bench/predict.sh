#!/bin/sh
# bench/predict.sh REVPERF [FUNCTIONS] [REPS]
# `revperf predict` for a commit of a generated C program of FUNCTIONS functions (default
# 20000) in 40 files, every one of them reached by the benchmark (a chain per file that
# main() walks), with stored dynamic data at the parent commit. The commit modifies 1% of
# the functions, adds 20, deletes 20 and renames 10 (as bench/bindiff.sh). A predictor is
# trained first (one comparison, up to 30 runs so that its verdict is decided on a noisy
# machine: with 3..5 runs it could stay undecided and leave nothing to train on), so that
# predict applies it.
# Measures REPS runs (default 10) of each, with /usr/bin/time:
#   warm: `revperf predict HEAD` (the binary diff of (i, u) cached by an earlier predict);
#   cold: `revperf predict --no-cache HEAD` (the binary diff computed anew).
# Prints each run, then median and max. The goal (issue 7): at most 100 ms.
# With PREDICT_BENCH_DIR=DIR the project is kept in DIR and reused by the next run.
set -eu
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
N=${2:-20000}
REPS=${3:-10}
[ -x /usr/bin/time ] || { echo "predict.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
if [ -n "${PREDICT_BENCH_DIR:-}" ]; then
	WORK=$PREDICT_BENCH_DIR
	mkdir -p "$WORK"
else
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/revperf-bench-predict.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
fi
P=$WORK/proj
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

gen() { # VERSION: writes the sources of version a or b into $P
	python3 - "$P" "$N" "$1" <<'PY'
import os, sys
d, n, version = sys.argv[1], int(sys.argv[2]), sys.argv[3]
files = 40
per = (n + files - 1) // files
def body(i):
    k = i * 2654435761 % 1000
    if version == "b" and i % 100 == 37:
        k += 1  # the 1% that the new commit modifies
    prev = "fn_%d(x ^ %d, y + 1)" % (i - 1, k) if i % per else "y"
    return ("int fn_%d(int x, int y)\n{\n\tint s = x * %d + y;\n\tif (s & 1)\n\t\ts ^= %d;\n"
            "\treturn s + %s;\n}\n" % (i, k + 3, k, prev))
with open(os.path.join(d, "fns.h"), "w") as h:
    h.write("".join("int fn_%d(int x, int y);\n" % i for i in range(n)))
for f in range(files):
    out = ['/* generated */\n#include "fns.h"\n']
    for i in range(f * per, min(n, (f + 1) * per)):
        out.append(body(i))
    if f < 10:  # nothing calls these
        for j in range(2):
            tag = f * 2 + j
            name = "gone_%d" % tag if version == "a" else "new_%d" % tag
            out.append("int %s(int x)\n{\n\treturn x * %d + %d;\n}\n" % (name, tag + 11, version == "b"))
        name = "old_name_%d" % f if version == "a" else "new_name_%d" % f
        out.append("int %s(int x, int y)\n{\n\treturn (x << %d) - y * %d;\n}\n" % (name, f % 5 + 1, f + 3))
    with open(os.path.join(d, "f%02d.c" % f), "w") as c:
        c.write("".join(out))
with open(os.path.join(d, "main.c"), "w") as c:
    c.write('#include <stdio.h>\n#include "fns.h"\nint main(int argc, char **argv)\n{\n\tint s = 0;\n'
            "\t(void)argv;\n\tfor (int r = 0; r < 3; r++) {\n")
    for f in range(files):
        last = min(n, (f + 1) * per) - 1
        c.write("\t\ts += fn_%d(argc + r, %d);\n" % (last, f))
    c.write('\t}\n\tprintf("%d\\n", s);\n\treturn 0;\n}\n')
PY
}

if [ ! -f "$WORK/ready" ]; then
	rm -rf "$P"
	mkdir -p "$P"
	cd "$P"
	git init -q . && git config user.email b@example.invalid && git config user.name bench
	cat >build.sh <<'SH'
set -e
ls ./*.c | xargs -P 2 -n 4 cc -O2 -g -fno-inline -c
cc ./*.o -o prog
SH
	cat >revperf.ini <<'INI'
[build]
command = sh build.sh
[benchmark "chain"]
command = ./prog
metrics = maxrss
primary = maxrss
tolerance = 20%
runs = 5..30
INI
	printf '*.o\nprog\n.revperf/\n' >.gitignore
	gen a
	git add -A && git commit -qm a
	rm -f ./f*.c
	gen b
	git add -A && git commit -qm b
	t0=$(date +%s)
	"$REVPERF" run --dynamic -q HEAD~1 >/dev/null
	"$REVPERF" compare -q HEAD~1 HEAD >/dev/null || true
	"$REVPERF" train >/dev/null
	"$REVPERF" predict HEAD >"$WORK/predict.txt"
	echo "set up (two builds, callgrind, one comparison) in $(($(date +%s) - t0)) s"
	touch "$WORK/ready"
fi
cd "$P"
sed -n 1,3p "$WORK/predict.txt"
echo "functions in the dynamic data: $(sqlite3 .revperf/revperf.db 'select count(*) from dynamic_functions')"

measure() { # LABEL ARGS...
	label=$1
	shift
	: >"$WORK/times.txt"
	i=0
	while [ "$i" -lt "$REPS" ]; do
		t0=$(date +%s%N)
		/usr/bin/time -f '%M' -o "$WORK/t.txt" "$REVPERF" predict "$@" HEAD >/dev/null
		t1=$(date +%s%N)
		echo "$(((t1 - t0) / 1000)) $(tail -n 1 "$WORK/t.txt")" >>"$WORK/times.txt"
		i=$((i + 1))
	done
	awk -v l="$label" '{ printf "%s run %d: %.1f ms, %.1f MB max RSS\n", l, NR, $1 / 1000, $2 / 1024 }' \
		"$WORK/times.txt"
	sort -n "$WORK/times.txt" | awk -v l="$label" '{ w[NR] = $1; if ($2 > m) m = $2 }
		END { printf "%s: min %.1f ms, median %.1f ms, max %.1f ms; max RSS %.1f MB (%d runs)\n",
		      l, w[1] / 1000, w[int((NR + 1) / 2)] / 1000, w[NR] / 1000, m / 1024, NR }'
}
measure warm
measure cold --no-cache
