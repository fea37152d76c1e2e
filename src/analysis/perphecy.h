#ifndef REVPERF_ANALYSIS_PERPHECY_H
#define REVPERF_ANALYSIS_PERPHECY_H

/*
 * Perphecy (METHODS.md section 7; seed 004): predict, before running anything, whether a
 * new commit u may change the performance of a benchmark b, from the binary diff between u
 * and i (the closest ancestor of u with dynamic data for b) and the dynamic data of b at i
 * (calls and instructions per function). docs/prediction.md gives every definition with
 * its formula and the few choices the paper leaves open.
 *
 * Pure analysis on in-memory data: the caller loads the binary diff and the profiles, and
 * labels the training tuples from stored verdicts. No global state; nothing here is
 * thread-safe on a shared object, distinct objects may be used from distinct threads.
 *
 * Files: perphecy.c (data, indicators, predictors), perphecy_train.c (Algorithm 1,
 * evaluation, cross-validation), perphecy_json.c (predictor serialisation).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bindiff;
struct strbuf;

/*
 * The eight indicator templates of the paper's Table I, in the table's order, then four
 * of the dynamic loader's start-up work and one estimate of the changed cost (departures
 * from the paper, off by default: docs/prediction.md, "Start-up work", "The changed
 * cost").
 */
enum perphecy_template {
	PERPHECY_DEL_FUNC = 0,	      /* Del Func >= X */
	PERPHECY_NEW_FUNC,	      /* New Func >= X */
	PERPHECY_REACHED_DEL_FUNC,    /* Reached Del Func >= X */
	PERPHECY_TOP_CHG_BY_CALL,     /* Top Chg by Call X%: a top-X% function by calls changed */
	PERPHECY_TOP_CALL_CHG_10,     /* Top >X% by Call Chg by >= 10% */
	PERPHECY_TOP_CHG_BY_INSTR,    /* Top Chg by Instr X%: a top-X% function by instrs changed */
	PERPHECY_TOP_CHG_LEN,	      /* Top Chg Len >= X%: a function's length changed >= X% */
	PERPHECY_TOP_REACHED_CHG_LEN, /* Top Reached Chg Len >= X%: the same, reached by b */
	PERPHECY_CHG_IMPORTS,	      /* Chg Imports >= X: imported symbols added + removed */
	PERPHECY_CHG_DYN_RELOCS,      /* Chg Dyn Relocs >= X%: |new - old| / old dyn. relocs */
	PERPHECY_CHG_IMPORTS_PER_MINSTR,    /* Chg Imports per M Instr >= X: per 10^6 instrs of b */
	PERPHECY_CHG_DYN_RELOCS_PER_MINSTR, /* Chg Dyn Relocs per M Instr >= X: |new - old| */
	PERPHECY_EST_COST_CHG, /* Est Cost Chg >= X ppm: cost share x length change, summed */
	PERPHECY_NR_TEMPLATES
};

/* Template sets, as bit masks (1u << template). */
#define PERPHECY_ALL_TEMPLATES ((1u << PERPHECY_NR_TEMPLATES) - 1u)
/* The paper's eight (METHODS.md section 7): the default. */
#define PERPHECY_PAPER_TEMPLATES ((1u << (PERPHECY_TOP_REACHED_CHG_LEN + 1)) - 1u)
/* The start-up work templates. */
#define PERPHECY_STARTUP_TEMPLATES                                                                 \
	((1u << PERPHECY_CHG_IMPORTS) | (1u << PERPHECY_CHG_DYN_RELOCS) |                          \
	 (1u << PERPHECY_CHG_IMPORTS_PER_MINSTR) | (1u << PERPHECY_CHG_DYN_RELOCS_PER_MINSTR))
/* The estimate of the changed cost. */
#define PERPHECY_COST_TEMPLATES (1u << PERPHECY_EST_COST_CHG)
/*
 * Not a template: the dismiss goal's inner cross-validation chooses the set, the paper's
 * eight or those and the changed cost's estimate (docs/prediction.md, "Choosing the
 * template set"). With the other bits: the candidates' union.
 */
#define PERPHECY_TEMPLATES_AUTO (1u << 31)
/* The templates that need no dynamic data. */
#define PERPHECY_STATIC_TEMPLATES                                                                  \
	((1u << PERPHECY_DEL_FUNC) | (1u << PERPHECY_NEW_FUNC) | (1u << PERPHECY_TOP_CHG_LEN) |    \
	 (1u << PERPHECY_CHG_IMPORTS) | (1u << PERPHECY_CHG_DYN_RELOCS))

/*
 * A comma-separated list of "paper", "startup" and "cost" -> the mask of the paper's
 * eight and those sets ("startup,cost": all); "auto" alone -> PERPHECY_TEMPLATES_AUTO with
 * the paper's and the cost's; -1 for any other word or an empty one (no message).
 */
int perphecy_templates_parse(const char *s, unsigned *out);
/* "paper", "startup", "cost", "startup,cost" or "auto": the sets of a mask. */
const char *perphecy_templates_name(unsigned mask);

/*
 * How an indicator compares its value with its threshold X. Counts and length changes
 * fire when value >= X (a larger X is more selective); the "top X%" ranks fire when
 * value <= X (the value is the percentile rank of the best-ranked changed function; a
 * smaller X is more selective).
 */
enum perphecy_direction {
	PERPHECY_AT_LEAST = 0,
	PERPHECY_AT_MOST,
};

/* Largest value and threshold accepted (keeps thresholds exact in a double and int64). */
#define PERPHECY_MAX_VALUE 1e12

/* "del_func", "new_func", ... (stable: used in JSON and the store). */
const char *perphecy_template_id(enum perphecy_template t);
/* The paper's name: "Del Func", "Top Chg by Call", ... */
const char *perphecy_template_label(enum perphecy_template t);
/* The template named `id` (a perphecy_template_id()); -1 when there is none. */
int perphecy_template_parse(const char *id, enum perphecy_template *out);
enum perphecy_direction perphecy_template_direction(enum perphecy_template t);
/* True when the template needs the dynamic data of b at i. */
bool perphecy_template_dynamic(enum perphecy_template t);

/*
 * Static data of (i, u): which functions of i u deleted or modified (by name at i, with
 * the change of the static instruction count), and how many u added. Renamed functions
 * (identical body) and unchanged ones are not listed. Filled by perphecy_static_from_bindiff()
 * or perphecy_static_add(); the same static data serves every benchmark.
 */
enum perphecy_change {
	PERPHECY_MODIFIED = 0,
	PERPHECY_DELETED,
	PERPHECY_ADDED,
};

/* Private: names copied into large blocks (one allocation per 64 KiB, not per name). */
struct perphecy_names {
	char **blocks;
	size_t nr_blocks, alloc_blocks;
	size_t used; /* in the last block */
};

struct perphecy_changed_func {
	const char *name; /* at i; owned by the perphecy_static */
	bool deleted;	  /* else modified */
	double len_pct;	  /* modified: |new - old| / old x 100 static instructions; deleted: NAN */
};

/*
 * The dynamic loader's start-up work of i and u (binary/binfile.h, struct binfile_dynlink):
 * what the start-up templates compare. known is false when either file is not linked
 * dynamically (or the data was not computed, e.g. a cache written before it existed):
 * the start-up values are then NAN.
 */
struct perphecy_startup {
	bool known;
	uint64_t relocs_i, relocs_u;		 /* dynamic relocations */
	uint64_t imports_added, imports_removed; /* imported symbols only at u / only at i */
};

struct perphecy_static {
	size_t nr_added, nr_deleted, nr_modified;
	struct perphecy_startup startup;
	struct perphecy_changed_func *funcs; /* modified and deleted, in the order added */
	size_t nr_funcs, alloc_funcs;
	double max_len_pct;	     /* over the modified functions; NAN when none */
	struct perphecy_names names; /* private */
};

/* Empty static data. Release with perphecy_static_release(). */
void perphecy_static_init(struct perphecy_static *s);
/* Frees what s owns; accepts a zeroed or released one. */
void perphecy_static_release(struct perphecy_static *s);
/*
 * Records one changed function. PERPHECY_ADDED only counts (name may be NULL, len_pct is
 * ignored); PERPHECY_DELETED records `name` (copied; len_pct ignored); PERPHECY_MODIFIED
 * records `name` and |len_pct|, its static instruction count change in %. Returns RP_OK,
 * or RP_EINPUT after error() for a NULL or empty name (deleted, modified) or a len_pct
 * that is not a finite number of at most PERPHECY_MAX_VALUE (modified).
 */
int perphecy_static_add(struct perphecy_static *s, enum perphecy_change kind, const char *name,
			double len_pct);
/*
 * Fills `out` (initialised here; release with perphecy_static_release()) from a binary
 * diff of i (old) and u (new): BINDIFF_DELETED and BINDIFF_MODIFIED entries by their old
 * name, BINDIFF_ADDED counted; renamed and unchanged functions are no change. The
 * start-up data comes from the two files' dynlink (known when both are dynamic). The length
 * change is perphecy_len_change_pct() of the two static instruction counts. The names are
 * copied: `d` may be released afterwards. Returns RP_OK (valid diffs cannot fail).
 */
int perphecy_static_from_bindiff(const struct bindiff *d, struct perphecy_static *out);
/*
 * Sets the start-up data of s (from two binfiles, or read back from a cache). Returns
 * RP_OK, or RP_EINPUT after error() when a count exceeds PERPHECY_MAX_VALUE.
 */
int perphecy_static_set_startup(struct perphecy_static *s, const struct perphecy_startup *st);
/*
 * |new - old| / old x 100; when old is 0 (no instructions decoded): 100 if new > 0, else 0.
 */
double perphecy_len_change_pct(uint32_t old_insns, uint32_t new_insns);

/*
 * Dynamic data of one benchmark b at one commit i: per function, the number of calls and
 * the cost executed in the function itself (exclusive): instructions when measured (a
 * callgrind run), otherwise self time in ns (the CCT runtime). Only the order of costs
 * matters (the Top Chg by Instr rank), so either unit works; the unit is recorded.
 */
enum perphecy_cost {
	PERPHECY_COST_INSTRUCTIONS = 0,
	PERPHECY_COST_SELF_NS,
};

struct perphecy_func_dyn {
	const char *name; /* owned by the profile */
	uint64_t calls;
	uint64_t cost; /* exclusive instructions, or exclusive ns */
	uint64_t hash; /* private: hash of name */
};

struct perphecy_profile {
	char *benchmark; /* for messages; may be NULL */
	enum perphecy_cost cost_unit;
	struct perphecy_func_dyn *funcs; /* the reached functions, in the order first added */
	size_t nr, alloc;
	/* private: name index (open addressing, index + 1, 0 = empty) and name storage */
	uint32_t *slots;
	size_t nr_slots;
	struct perphecy_names names;
};

/* Empty profile of `benchmark` (copied; may be NULL). Release with perphecy_profile_release(). */
void perphecy_profile_init(struct perphecy_profile *p, const char *benchmark,
			   enum perphecy_cost cost_unit);
/* Frees what p owns; accepts a zeroed or released profile. */
void perphecy_profile_release(struct perphecy_profile *p);
/*
 * Adds a function's calls and cost (name copied). A name added twice (local functions of
 * two files, two runs) adds up; saturates at UINT64_MAX. A record with 0 calls and 0 cost
 * means "not reached" and is skipped. Returns RP_OK, or RP_EINPUT after error() for a NULL
 * or empty name, or more than UINT32_MAX - 1 functions. Amortised O(1).
 */
int perphecy_profile_add(struct perphecy_profile *p, const char *name, uint64_t calls,
			 uint64_t cost);
/* Makes room for `nr` functions in all (optional: saves regrowing when the count is known). */
void perphecy_profile_reserve(struct perphecy_profile *p, size_t nr);
/* The entry of `name`, or NULL when b did not reach it. O(1) expected. */
const struct perphecy_func_dyn *perphecy_profile_find(const struct perphecy_profile *p,
						      const char *name);

/*
 * The value of every template for one (u, i, b). NAN means "no value": the indicator
 * cannot fire at any threshold (no modified function for the length templates, no changed
 * function reached for the ranks, no dynamic data for the dynamic templates).
 */
struct perphecy_values {
	double v[PERPHECY_NR_TEMPLATES];
};

/*
 * Computes every template's value from the static data of (i, u) and the profile of b at
 * i (NULL when there is none: the dynamic templates are NAN). The start-up values are NAN
 * without start-up data; the two per M Instr ones also when the profile's cost is not
 * instructions or sums to 0. Values above PERPHECY_MAX_VALUE are capped there.
 * O(changed functions + reached functions); no allocation. Cannot fail.
 */
void perphecy_compute(const struct perphecy_static *s, const struct perphecy_profile *p,
		      struct perphecy_values *out);

/*
 * A training tuple (u, i, b): its values and its label, hit (verdict worse or better) or
 * miss (equal). `commit` identifies u (the cross-validation folds group by it; any number
 * the caller chooses, e.g. a store id) and `bench` identifies b (per-benchmark training).
 */
struct perphecy_tuple {
	struct perphecy_values values;
	bool hit;
	uint64_t commit;
	uint32_t bench;
};

/*
 * An indicator: a template with an integer threshold X (the paper's t_k in Integer).
 * perphecy_indicator_fires(): the value is not NAN and value >= X (PERPHECY_AT_LEAST) or
 * value <= X (PERPHECY_AT_MOST).
 */
struct perphecy_indicator {
	enum perphecy_template tmpl;
	int64_t threshold;
};

bool perphecy_indicator_fires(const struct perphecy_indicator *ind,
			      const struct perphecy_values *v);
/* Appends e.g. "Del Func >= 10", "Top Chg by Call 5%", "Top 5% by Call Chg by >= 10%". */
void perphecy_indicator_format(const struct perphecy_indicator *ind, struct strbuf *out);

/*
 * A predictor: the disjunction of its indicators, at most one per template (Algorithm 1
 * may pick a template twice; the disjunction of the two is the less selective one, which
 * is what is kept), in the order they were picked. No indicators: predicts nothing.
 */
struct perphecy_predictor {
	struct perphecy_indicator ind[PERPHECY_NR_TEMPLATES];
	size_t nr;
	/* The training set had no hit: the trivial predictor, which predicts nothing. Warn. */
	bool no_hits;
	size_t nr_hits, nr_misses; /* training set */
	/* Hits that no enabled template could cover at any threshold (all values NAN). */
	size_t nr_uncovered;
};

/* An empty predictor (predicts nothing, no training set). */
void perphecy_predictor_init(struct perphecy_predictor *p);
/*
 * Adds an indicator; with one of that template already there, keeps the less selective
 * threshold. Returns RP_OK, or RP_EINPUT after error() for a bad template or a threshold
 * outside [0, PERPHECY_MAX_VALUE] ([0, 100] for the rank templates).
 */
int perphecy_predictor_add(struct perphecy_predictor *p, enum perphecy_template t,
			   int64_t threshold);
/*
 * True when an indicator fires; *fired (may be NULL) is then the index in p->ind of the
 * first one that does.
 */
bool perphecy_predict(const struct perphecy_predictor *p, const struct perphecy_values *v,
		      size_t *fired);

/*
 * The paper's Algorithm 1 (greedy threshold selection) on `n` tuples, over the templates
 * in the mask `templates` (PERPHECY_PAPER_TEMPLATES: the paper's eight; on a tie in price
 * the template first in enum order wins). Fills `out`. With no hit,
 * `out` is the trivial predictor with out->no_hits set (the caller warns). Returns RP_OK,
 * or RP_EINPUT after error() for no tuples, an empty template mask, or a value that is
 * neither NAN nor in [0, PERPHECY_MAX_VALUE] ((0, 100] for the ranks), naming the tuple.
 * O(H x T x log D + H^2) for H hits, D misses, T templates.
 */
int perphecy_train(const struct perphecy_tuple *t, size_t n, unsigned templates,
		   struct perphecy_predictor *out);

/*
 * Which indicators cover the hits (docs/prediction.md, "Covering every hit").
 * PAPER: Algorithm 1, lines 16-30: the cheapest indicator of the most expensive hit first,
 * and every hit it covers leaves with it. EVERY_HIT (a departure from the paper, off by
 * default): every hit adds its own cheapest indicator, also when a more expensive one
 * already covers it, so that a cheap, specific indicator is not lost behind a broad one.
 */
enum perphecy_cover {
	PERPHECY_COVER_PAPER = 0,
	PERPHECY_COVER_EVERY_HIT,
};

/* "paper" or "every-hit" -> cover; -1 for anything else (nothing printed). */
int perphecy_cover_parse(const char *s, enum perphecy_cover *out);
const char *perphecy_cover_name(enum perphecy_cover cover);

/* perphecy_train() with the choice of cover. */
int perphecy_train_cover(const struct perphecy_tuple *t, size_t n, unsigned templates,
			 enum perphecy_cover cover, struct perphecy_predictor *out);

/*
 * perphecy_train_cover() and then the dismiss budget (docs/prediction.md, "A dismiss
 * budget"; a departure from the paper, off when min_dismiss < 0): Algorithm 1 puts every
 * threshold exactly at a training hit's value, so a new hit just beyond it is missed. The
 * budget loosens the predictor's thresholds, the step that flags the fewest further
 * training misses first (a step: one indicator to the next threshold at which a training
 * tuple fires), while the predictor still dismisses at least min_dismiss of the training
 * misses. A predictor that dismisses fewer (Algorithm 1 alone flags more) is tightened
 * until it dismisses min_dismiss: thresholds move up, or indicators go, the step with
 * the most misses dismissed per training hit lost first. No template is added. Returns
 * as perphecy_train(), or RP_EINPUT after error() for min_dismiss above 1.
 * O(S x I x n) more for S steps, I indicators and n tuples.
 */
int perphecy_train_budget(const struct perphecy_tuple *t, size_t n, unsigned templates,
			  enum perphecy_cover cover, double min_dismiss,
			  struct perphecy_predictor *out);

/* Hit rate = |predicted & hit| / |hit|, dismiss rate = |not predicted & miss| / |miss|. */
struct perphecy_eval {
	size_t hits, hits_predicted;
	size_t misses, misses_dismissed;
	double hit_rate;     /* NAN when there is no hit */
	double dismiss_rate; /* NAN when there is no miss */
};

/* The inner cross-validation's folds of a dismiss goal (perphecy_train_goal()). */
#define PERPHECY_GOAL_FOLDS 10

/* What perphecy_train_goal() chose. */
struct perphecy_goal_choice {
	double min_dismiss;	    /* the budget; < 0: none (Algorithm 1's thresholds) */
	unsigned templates;	    /* the template set trained with (auto: the one chosen) */
	struct perphecy_eval inner; /* its inner cross-validation, pooled over the folds */
	bool reached;		    /* inner dismiss rate >= the goal (no miss, no hit: true) */
	unsigned k; /* inner folds; 0 with fewer than 2 commits or no hit (then none) */
};

/*
 * A dismiss goal (docs/prediction.md, "A dismiss goal"; a departure from the paper): the
 * dismiss budget chosen on the training tuples themselves, so that a cross-validation of
 * the whole procedure measures it on tuples it never saw. Candidates: no budget, and
 * goal + 0.10 down to goal in steps of 0.01 (those above 1 left out); each is
 * cross-validated on t[0..n) (min(PERPHECY_GOAL_FOLDS, commits) folds by commit, dealt
 * with `seed`, the same folds for all); of those whose pooled dismiss rate reaches the goal,
 * the loosest (on the same folds a looser budget predicts every hit a tighter one does);
 * when none reaches it, or the tuples hold no hit or fewer than 2 commits, no budget.
 * Then trains on all of t with it (perphecy_train_budget()) and fills *choice (may be
 * NULL). Returns as perphecy_train(), or RP_EINPUT after error() for a goal outside
 * [0, 1]. About 12 x PERPHECY_GOAL_FOLDS trainings.
 */
int perphecy_train_goal(const struct perphecy_tuple *t, size_t n, unsigned templates,
			enum perphecy_cover cover, double goal, uint64_t seed,
			struct perphecy_predictor *out, struct perphecy_goal_choice *choice);

/* Applies `p` to every tuple and counts (tuples are not validated). */
void perphecy_evaluate(const struct perphecy_predictor *p, const struct perphecy_tuple *t, size_t n,
		       struct perphecy_eval *out);

/* Common: one predictor trained on the tuples of all benchmarks; or one per benchmark. */
enum perphecy_scope {
	PERPHECY_COMMON = 0,
	PERPHECY_PER_BENCH,
};

struct perphecy_cv_opts {
	unsigned k;    /* folds; default 10 */
	uint64_t seed; /* fold assignment; default 1 */
	enum perphecy_scope scope;
	unsigned templates;	   /* default PERPHECY_PAPER_TEMPLATES */
	enum perphecy_cover cover; /* default PERPHECY_COVER_PAPER */
	double min_dismiss;	   /* the dismiss budget (perphecy_train_budget()); < 0 off */
	/* a dismiss goal (perphecy_train_goal(), each fold choosing on its own training
	 * tuples, inner folds dealt with `seed`); < 0 off; not with min_dismiss */
	double dismiss_goal;
};

/* Defaults: k 10, seed 1, common predictor, the paper's eight templates and cover, no
 * dismiss budget or goal. */
void perphecy_cv_opts_init(struct perphecy_cv_opts *opts);

struct perphecy_bench_eval {
	uint32_t bench;
	struct perphecy_eval eval;
};

struct perphecy_cv_result {
	unsigned k;		    /* folds used: min(opts->k, commits) */
	size_t nr_commits;	    /* distinct commits (u) */
	struct perphecy_eval total; /* pooled: every tuple predicted once, by the predictor
				       trained without its fold */
	struct perphecy_bench_eval *per_bench; /* ascending bench */
	size_t nr_bench;
	size_t nr_predictors; /* trained, over all folds (and benchmarks) */
	size_t nr_trivial;    /* of which had no hit to learn from */
	bool *predicted;      /* per tuple, in the order given: whether the predictor trained
				 without its fold predicted it (which hits were missed, which
				 misses flagged) */
	/* With a dismiss goal: the predictors trained with one (nr_goal_folds), of which
	 * chose no budget and did not reach the goal in their inner cross-validation, and
	 * the range of the budgets chosen (NAN when every one chose none). */
	size_t nr_goal_folds, nr_goal_none, nr_goal_unreached;
	double chosen_lo, chosen_hi;
	/* With --templates auto: of nr_goal_folds, the trainings that chose the cost's set. */
	size_t nr_goal_cost;
};

/*
 * k-fold cross-validation: the distinct commits (u) are sorted, shuffled with `seed`
 * (Fisher-Yates, util/rng) and dealt round-robin into k folds, so that all tuples of one
 * commit share a fold; each fold is predicted by the predictor(s) trained on the others.
 * Fills `out` (release with perphecy_cv_result_release()). Returns RP_OK, or RP_EINPUT
 * after error() for no tuples, k < 2, fewer than 2 distinct commits, a bad tuple (as
 * perphecy_train()), a budget or goal that is not a rate, or both. Deterministic for the
 * same tuples (in any order), k and seed.
 */
int perphecy_cross_validate(const struct perphecy_tuple *t, size_t n,
			    const struct perphecy_cv_opts *opts, struct perphecy_cv_result *out);
/* Frees what r owns; accepts a zeroed or released result. */
void perphecy_cv_result_release(struct perphecy_cv_result *r);

/*
 * The predictor as compact JSON, e.g.
 * {"version":1,"no_hits":false,"hits":2,"misses":1,"uncovered":0,
 *  "indicators":[{"template":"new_func","threshold":9},...]}.
 * Returns a string the caller frees with free().
 */
char *perphecy_predictor_to_json(const struct perphecy_predictor *p);
/*
 * Parses what perphecy_predictor_to_json() wrote into `out`. `origin` names the text in
 * messages (a file or "predictor of bench X"). Returns RP_OK, or RP_EINPUT after one
 * error() line naming origin and what is wrong (invalid JSON with line and column, unknown
 * version or template, bad or duplicate threshold, inconsistent no_hits); *out is then an
 * empty predictor.
 */
int perphecy_predictor_from_json(const char *text, const char *origin,
				 struct perphecy_predictor *out);

#endif
