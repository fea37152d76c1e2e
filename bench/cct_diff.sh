#!/bin/sh
# bench/cct_diff.sh REVPERF [NODES] [REPS]
# `revperf diff OLD NEW` on two generated folded-stack profiles of NODES calling contexts
# each (default 1000000; names from a pool of 5,000 functions, breadth-first with fan-out
# 1-8, so depth 10 at 1,000,000). The new profile changes the weight of 1% of the contexts,
# drops 500 leaf contexts and adds 500 new ones. Measures REPS runs (default 5) with
# /usr/bin/time (wall seconds and max RSS of the whole process: reading both files, building
# both trees, differencing, printing) and prints each run, then median and max.
# Goal (issue 4): differencing two 1,000,000-node CCTs in at most 1 s and 300 MB max RSS;
# the differencing alone (no text parsing) is timed by bench/cct_diff_bench (BUILD/bench/).
set -eu
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
N=${2:-1000000}
REPS=${3:-5}
[ -x /usr/bin/time ] || { echo "cct_diff.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/revperf-bench-cct.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

python3 - "$WORK" "$N" <<'PY'
import random, sys
work, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(4)
names = ["fn_%d" % i for i in range(5000)]
paths = [""]
weights = [0]
frontier = [0]
# Breadth-first growth: every node gets 1-8 children with distinct names until n nodes.
head = 0
while len(paths) < n + 1:
    p = frontier[head % len(frontier)]
    head += 1
    for name in rng.sample(names, rng.randint(1, 8)):
        if len(paths) >= n + 1:
            break
        paths.append((paths[p] + ";" if p else "") + name)
        weights.append(rng.randint(1, 1000))
        frontier.append(len(paths) - 1)
def write(path, ws, extra):
    with open(path, "w") as f:
        for i in range(1, len(paths)):
            if ws[i] is not None:
                f.write("%s %d\n" % (paths[i], ws[i]))
        for line in extra:
            f.write(line)
write(work + "/old.folded", weights, [])
new = list(weights)
for i in rng.sample(range(1, len(paths)), n // 100):
    new[i] = new[i] * 2 + 1
# Drop 500 leaf contexts (the last nodes are leaves in breadth-first order).
for i in range(len(paths) - 500, len(paths)):
    new[i] = None
extra = ["%s;fresh_%d 50\n" % (paths[rng.randint(1, len(paths) - 501)], k) for k in range(500)]
write(work + "/new.folded", new, extra)
PY

ls -l "$WORK"/*.folded | awk '{print $5, $NF}'
times=""
i=0
while [ $i -lt "$REPS" ]; do
	/usr/bin/time -f "%e %M" -o "$WORK/time" "$REVPERF" diff "$WORK/old.folded" "$WORK/new.folded" \
		>"$WORK/out" || [ $? -eq 1 ]
	# time prefixes "Command exited with non-zero status 1" (1: differences found).
	read -r wall rss <<-END
	$(tail -n 1 "$WORK/time")
	END
	echo "run $i: ${wall} s, $((rss / 1024)) MB"
	times="$times$wall $rss
"
	i=$((i + 1))
done
head -3 "$WORK/out"
printf '%s' "$times" | sort -n | awk '{w[NR]=$1; if ($2 > r) r = $2} END {
	printf "median %.2f s, max %.2f s, max RSS %.1f MB\n", w[int((NR+1)/2)], w[NR], r/1024 }'
