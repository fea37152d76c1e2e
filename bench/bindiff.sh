#!/bin/sh
# bench/bindiff.sh REVPERF [FUNCTIONS] [REPS] [CFLAGS]
# `revperf bindiff` on two builds of a generated C program with FUNCTIONS functions
# (default 20000) in 40 files: the new build modifies 1% of them, adds 20, deletes 20,
# renames 10, and shifts every line with a comment. Measures REPS runs (default 5) with
# /usr/bin/time (wall seconds and max RSS) and prints each run, then median and max.
# The goal (issue 3): at most 1 s and 200 MB max RSS for 20,000 functions.
# With BINDIFF_BENCH_DIR=DIR the two builds are kept in DIR and reused by the next run.
set -eu
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
N=${2:-20000}
REPS=${3:-5}
CFLAGS=${4:--O2 -g}
[ -x /usr/bin/time ] || { echo "bindiff.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
if [ -n "${BINDIFF_BENCH_DIR:-}" ]; then
	WORK=$BINDIFF_BENCH_DIR
	mkdir -p "$WORK"
else
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/revperf-bench-bindiff.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
fi
if [ ! -x "$WORK/b/prog" ]; then
rm -rf "$WORK/a" "$WORK/b"

python3 - "$WORK" "$N" <<'PY'
import os, sys
work, n = sys.argv[1], int(sys.argv[2])
files = 40
per = (n + files - 1) // files

def body(i, version):
    # Four shapes of function, each referring to earlier functions, data and strings.
    k = i * 2654435761 % 1000
    if version == "b" and i % 100 == 37:
        k += 1  # the 1% that the new build modifies
    f = i // per
    prev = "fn_%d" % (i - 1) if i % per else "helper"
    shape = i % 4
    if shape == 0:
        return ("int fn_%d(int x, int y)\n{\n\tint s = x * %d + y;\n"
                "\tfor (int k = 0; k < (x & 7); k++)\n\t\ts += k ^ %d;\n"
                "\tif (s > %d)\n\t\ts = %s(s, y);\n\treturn s + table[%d];\n}\n"
                % (i, k + 3, k, k * 7, prev, i % 16))
    if shape == 1:
        return ("int fn_%d(int x, int y)\n{\n\tstatic const char msg[] = \"function %d\";\n"
                "\tcounter += x;\n\treturn (int)sizeof(msg) + %s(x ^ %d, y + 1) - msg[x & 7];\n}\n"
                % (i, k, prev, k))
    if shape == 2:
        return ("int fn_%d(int x, int y)\n{\n\tdouble d = x * %d.25 + y;\n"
                "\tif (d < %d.5)\n\t\treturn (int)(d * 1.5);\n\treturn %s(x - 1, (int)d);\n}\n"
                % (i, k, k, prev))
    return ("int fn_%d(int x, int y)\n{\n\tswitch (x & 3) {\n\tcase 0: return x + %d;\n"
            "\tcase 1: return y - %d;\n\tcase 2: return %s(x, y) * %d;\n"
            "\tdefault: return helper(x, y) ^ %d;\n\t}\n}\n" % (i, k, k + 1, prev, k | 1, k))

for version in ("a", "b"):
    d = os.path.join(work, version)
    os.makedirs(d)
    decls = "".join("int fn_%d(int x, int y);\n" % i for i in range(n))
    with open(os.path.join(d, "fns.h"), "w") as h:
        h.write(decls)
    for f in range(files):
        out = ["/* generated */\n" if version == "a" else "/* generated */\n/* new: a comment */\n\n",
               '#include "fns.h"\nstatic int counter;\nstatic const int table[16] = {%s};\n'
               % ",".join(str(f * 16 + t) for t in range(16)),
               "static int helper(int x, int y)\n{\n\treturn x * %d - y + counter;\n}\n" % (f + 2)]
        for i in range(f * per, min(n, (f + 1) * per)):
            out.append(body(i, version))
        # Functions that only one build has, and renamed ones: nothing calls them.
        if f < 10:
            for j in range(2):
                tag = f * 2 + j
                name = "gone_%d" % tag if version == "a" else "new_%d" % tag
                out.append("int %s(int x)\n{\n\treturn x * %d + %d;\n}\n" % (name, tag + 11, version == "b"))
            name = "old_name_%d" % f if version == "a" else "new_name_%d" % f
            out.append("int %s(int x, int y)\n{\n\treturn (x << %d) - y * %d;\n}\n" % (name, f % 5 + 1, f + 3))
        with open(os.path.join(d, "f%02d.c" % f), "w") as c:
            c.write("".join(out))
    with open(os.path.join(d, "main.c"), "w") as c:
        c.write('#include "fns.h"\nint main(int argc, char **argv)\n{\n\t(void)argv;\n'
                "\treturn fn_%d(argc, 2) & 1;\n}\n" % (n - 1))
PY

build() { # DIR
	(cd "$1" && ls ./*.c | xargs -P "$(nproc)" -n 4 cc $CFLAGS -c && cc ./*.o -o prog)
}
t0=$(date +%s)
build "$WORK/a"
build "$WORK/b"
echo "built two versions of $N functions ($CFLAGS) in $(($(date +%s) - t0)) s"
fi

set +e
"$REVPERF" bindiff "$WORK/a/prog" "$WORK/b/prog" >"$WORK/out.txt"
rc=$?
set -e
[ "$rc" = 1 ] || { cat "$WORK/out.txt"; echo "bindiff.sh: expected exit 1, got $rc" >&2; exit 1; }
sed -n 1,3p "$WORK/out.txt"

i=0
: >"$WORK/times.txt"
while [ "$i" -lt "$REPS" ]; do
	/usr/bin/time -f '%e %M' -o "$WORK/t.txt" "$REVPERF" bindiff "$WORK/a/prog" "$WORK/b/prog" \
		>/dev/null || true
	tail -n 1 "$WORK/t.txt" >>"$WORK/times.txt"
	i=$((i + 1))
done
awk '{ printf "run %d: %.2f s, %.1f MB max RSS\n", NR, $1, $2 / 1024 }' "$WORK/times.txt"
sort -n "$WORK/times.txt" | awk '{ w[NR] = $1; if ($2 > m) m = $2 }
	END { printf "median %.2f s, max %.2f s; max RSS %.1f MB (%d runs)\n",
	      w[int((NR + 1) / 2)], w[NR], m / 1024, NR }'
