# Shared by bench/predict_real.sh (lz4) and bench/predict_real_lua.sh: in the clone's
# directory (the current one) with its revperf.ini written, runs REVPERF's history over
# RANGE (exact ir labels at the count tolerance of 0.1%), cross-validates the predictor,
# labels the same history again at 1% from the stored runs (nothing runs under valgrind;
# the latest comparison labels the tuple) and cross-validates again. Outputs go to D.
# Usage: . bench/predict_real_lib.sh; history_and_train REVPERF RANGE D
#
# ccache_wrap D CC: CC_WRAP (the environment) and CC_ARG (make's CC=) that build through
# ccache with its cache in D/ccache, CCACHE_NOHASHDIR=1 (every commit's worktree has its
# own path); both empty without ccache.
ccache_wrap() {
	CC_WRAP= CC_ARG=
	command -v ccache >/dev/null || return 0
	mkdir -p "$1/ccache"
	CC_WRAP="CCACHE_DIR=$1/ccache CCACHE_NOHASHDIR=1 "
	CC_ARG="CC='ccache $2' "
}

# counted_ini_head BUILD: the head of a history's revperf.ini on stdout: the build command
# (through CC_WRAP) and the defaults that label by exact ir, 2 counted runs a side.
counted_ini_head() {
	cat <<EOF
[build]
command = ${CC_WRAP}$1

[defaults]
metrics = ir
primary = ir
runs = 2..2
warmup = 0
EOF
}

history_and_train() {
	revperf=$1 range=$2 d=$3
	start=$(date +%s)
	"$revperf" history "$range" >"$d/history.txt" 2>"$d/history.err" || {
		rc=$?
		tail -5 "$d/history.err" >&2
		exit $rc
	}
	echo "history: $(($(date +%s) - start)) s ($(git rev-list --first-parent --count "$range") commits)"
	"$revperf" train --evaluate >"$d/train.txt"
	"$revperf" train --evaluate --dry-run -f json >"$d/train.json"
	cat "$d/train.txt"
	for c in $(git rev-list --first-parent --reverse "$range"); do
		rc=0
		"$revperf" compare --count-tolerance 1% -q "$c^" "$c" >/dev/null 2>>"$d/relabel.err" ||
			rc=$?
		# 1: a metric worse; anything else (a commit or its parent that did not build)
		# is logged.
		[ $rc -le 1 ] || echo "relabel $c: exit $rc" >>"$d/relabel.err"
	done
	"$revperf" train --evaluate >"$d/train-1pct.txt"
	"$revperf" train --evaluate --dry-run -f json >"$d/train-1pct.json"
	echo "labelled at a count tolerance of 1%:"
	cat "$d/train-1pct.txt"
}
