#!/bin/sh
# make demo: create the example project's history in a temporary folder and let revperf
# judge a neutral commit, a ~10% CPU regression and a commit that writes its log record by
# record, each write fsync'ed (the same bytes as before, wchar equal, in 256 times as many
# calls: wall and cpu far worse), then write the HTML report.
set -eu
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/revperf-demo.XXXXXX")
"$here/make-history.sh" "$dir/kvstore" >/dev/null
cd "$dir/kvstore"
echo "== example history in $dir/kvstore"
git log --oneline --decorate | cat
for target in neutral cpu-regression more-writes; do
	echo
	echo "== revperf compare baseline $target"
	status=0
	"$REVPERF" compare baseline "$target" || status=$?
	echo "(exit status $status: 0 = no regression, 1 = a primary metric is worse)"
	if [ "$target" = cpu-regression ]; then
		echo
		echo "== revperf bindiff: which functions the commit changed in the built code"
		"$REVPERF" bindiff ".revperf/worktrees/$(git rev-parse baseline)/build/kvstore" \
			".revperf/worktrees/$(git rev-parse cpu-regression)/build/kvstore" || true
	fi
done
echo
echo "== revperf report: the HTML site (trend charts, one page per commit)"
"$REVPERF" report
echo
echo "Results are stored in $dir/kvstore/.revperf/revperf.db; run logs in .revperf/logs/."
echo "Open file://$dir/kvstore/.revperf/report/index.html in a browser."
