#!/bin/sh
# The dismiss budget of `revperf train --min-dismiss` (docs/prediction.md, "A dismiss
# budget") on a stored history: for each cover (paper, every-hit) and budget (none, 0.85,
# 0.87, 0.88, 0.90), 10-fold cross-validation by commit with fold seeds 1-5, the common
# predictor's held-out hit and dismiss rates pooled over the seeds; then leave one commit
# out. Last, `--dismiss-goal 0.85` ("A dismiss goal"): each training set chooses its own
# budget by an inner cross-validation, so that its row is a held-out figure, where every
# fixed budget's row is one of a grid a reader may choose from. Read-only: `train --dry-run` on a copy of the store (it is copied here first).
# Usage: bench/predict_budget.sh REVPERF DIR STORE [CONFIG]
#   DIR: the clone (where revperf.ini is, unless CONFIG names it); STORE: its revperf.db.
# Environment (the defaults are the full grid with the paper's templates):
#   TEMPLATES  train --templates SET (paper, startup, cost, startup,cost, or auto with goal-*
#              budgets only; default paper)
#   COVERS     the covers (default "paper every-hit")
#   BUDGETS    the budgets (default "none 0.85 0.87 0.88 0.90 goal-0.85")
#   LOO        0: no leave-one-commit-out rows (default 1)
#   KEEP       a directory to keep the JSON of each row in (COVER-BUDGET-SEED.json, and
#              COVER-BUDGET-loo.json for leaving one commit out)
set -eu
revperf=$(realpath "$1") dir=$2 store=$3 config=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sqlite3 "$store" ".backup $work/db.db"
cfgfile=
[ -n "$config" ] && cfgfile="--config $(realpath "$config")"
cfg="--templates ${TEMPLATES:-paper} $cfgfile"
cd "$dir"
# the commits (for leaving one out) do not depend on the templates; auto needs a goal
commits=$("$revperf" train --dry-run --store "$work/db.db" $cfgfile -f json -q |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["commits"])')
summary() { # files...
	python3 - "$@" <<'PY'
import json, sys
hp = h = md = m = 0
for f in sys.argv[1:]:
    e = json.load(open(f))["evaluation"]["common"]["total"]
    hp += e["hits_predicted"]; h += e["hits"]; md += e["misses_dismissed"]; m += e["misses"]
rate = lambda a, b: "%.3f" % (a / b) if b else "-"  # no hit (or miss): no rate
print("hits %d/%d = %s  dismiss %d/%d = %s" % (hp, h, rate(hp, h), md, m, rate(md, m)))
PY
}
for cover in ${COVERS:-paper every-hit}; do
	for budget in ${BUDGETS:-none 0.85 0.87 0.88 0.90 goal-0.85}; do
		case $budget in
		none) opt="" ;;
		goal-*) opt="--dismiss-goal ${budget#goal-}" ;;
		*) opt="--min-dismiss $budget" ;;
		esac
		for s in 1 2 3 4 5; do
			"$revperf" train --evaluate --dry-run --store "$work/db.db" $cfg --cover $cover \
				$opt --seed $s -f json -q >"$work/$s.json"
		done
		printf '%-9s budget %-9s 10 folds, seeds 1-5: %s\n' $cover $budget \
			"$(summary "$work"/[1-5].json)"
		if [ -n "${KEEP:-}" ]; then
			for s in 1 2 3 4 5; do cp "$work/$s.json" "$KEEP/$cover-$budget-$s.json"; done
		fi
		[ "${LOO:-1}" = 0 ] && continue
		"$revperf" train --evaluate --dry-run --store "$work/db.db" $cfg --cover $cover \
			$opt --k "$commits" -f json -q >"$work/loo.json"
		printf '%-9s budget %-9s leave one commit out:  %s\n' $cover $budget \
			"$(summary "$work/loo.json")"
		if [ -n "${KEEP:-}" ]; then cp "$work/loo.json" "$KEEP/$cover-$budget-loo.json"; fi
	done
done
