#!/bin/bash
# The layers point down (docs/layout.md, the table in check_layers.py): the real tree
# passes, and a tree with an include that points up fails, naming the file and line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${SRCDIR:-$here/../..}/src
python3 "$here/check_layers.py" "$src"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src" "$tmp/src"
printf '#include "report/report.h"\n' >> "$tmp/src/compare/compare.c"
if out=$(python3 "$here/check_layers.py" "$tmp/src"); then
	echo "FAIL: an include of report/ from compare/ was not caught"; exit 1
fi
grep -q 'src/compare/compare.c:[0-9]*: compare -> report points up' <<<"$out" ||
	{ echo "FAIL: unexpected report: $out"; exit 1; }
mkdir "$tmp/src/newroom" && : > "$tmp/src/newroom/x.c"
rm -f "$tmp/src/compare/compare.c.orig"
cp "$src/compare/compare.c" "$tmp/src/compare/compare.c"
if out=$(python3 "$here/check_layers.py" "$tmp/src"); then
	echo "FAIL: a folder outside the table was not caught"; exit 1
fi
grep -q "folder 'newroom' has no place" <<<"$out" || { echo "FAIL: $out"; exit 1; }
echo "layers: ok"
