# Shared by the bench scripts: a temp dir with the example history.
set -eu
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/revperf-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
"$SRC/examples/make-history.sh" "$WORK/kv" >/dev/null
cd "$WORK/kv"
now_ns() { date +%s%N; }
