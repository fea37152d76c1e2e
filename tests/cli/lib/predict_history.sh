#!/bin/sh
# predict_history.sh DIR: the kvstore example's history (examples/make-history.sh: baseline,
# neutral, cpu-regression, more-writes) continued to 38 commits for the predictor's end-to-end
# test (tests/cli/predict_history.sh). Each commit is tagged; tags h-* change the program's
# performance on purpose (a hot function does several times more or less work: 2.3 to 5
# times the CPU time of its parent, or 0.07 to 0.44 of it, measured with both cores kept
# busy, so that no load hides them), tags n-* do not (comments, files, unreached or
# once-called functions, functions added or deleted that nothing calls: within 20
# instructions of their parent's 177 million or more under valgrind). The commit ids are
# the same on every machine (fixed dates and authors).
# Exit codes: 0 ok, 2 usage error, 3 internal failure.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
"$here/../../../examples/make-history.sh" "$dir" >/dev/null
cd -- "$dir"

day=0
# commit TAG SUBJECT: commit everything, one day after the previous commit.
commit() {
	git add -A
	day=$((day + 1))
	d=$(date -u -d "2024-01-11 +$day days" +%Y-%m-%dT10:00:00+0000)
	GIT_AUTHOR_DATE=$d GIT_COMMITTER_DATE=$d git commit -q -m "$2"
	git tag "$1"
}

# edit NAME: one change of kvstore.c, by exact text replacement (fails when it no longer
# applies, so that a change of examples/kvstore is noticed here).
edit() {
	python3 - "$1" <<'PY' || { echo "predict_history.sh: edit $1 does not apply" >&2; exit 3; }
import sys
name = sys.argv[1]
src = open("kvstore.c").read()

UNUSED = "\n/* Kept for tools that link kvstore.c; kvstore itself does not call it. */\n"
E = {
    # -- performance changes (h-*)
    "batch-again": [(
        "\tlog->pending++;\n\treturn log_flush(log);\n",
        "\tlog->pending++;\n\tif (log->pending == BATCH_RECORDS)\n\t\treturn log_flush(log);\n"
        "\treturn 0;\n")],
    "hash-rounds": [(
        "\t\th = rotl64(h, 27) * PRIME1 + PRIME3;\n\t\th *= PRIME2;\n",
        "\t\tfor (int r = 0; r < 20; r++)\n\t\t\th = rotl64(h, 27) * PRIME1 + PRIME3;\n"
        "\t\th *= PRIME2;\n")],
    "hash-one-round": [(
        "\t\tfor (int r = 0; r < 20; r++)\n\t\t\th = rotl64(h, 27) * PRIME1 + PRIME3;\n"
        "\t\th *= PRIME2;\n",
        "\t\th = rotl64(h, 27) * PRIME1 + PRIME3;\n")],
    "key-snprintf": [(
        "\tstatic const char hex[] = \"0123456789abcdef\";\n\tsize_t prefix = sizeof(KEY_PREFIX) - 1;\n"
        "\tint i;\n\n\tmemcpy(key, KEY_PREFIX, prefix);\n\tfor (i = 0; i < 16; i++)\n"
        "\t\tkey[prefix + (size_t)i] = hex[(id >> (60 - 4 * i)) & 0xf];\n"
        "\tmemcpy(key + prefix + 16, KEY_SUFFIX, sizeof(KEY_SUFFIX) - 1);\n",
        "\tchar tmp[KEY_BYTES + 1];\n\tint n;\n\n\tn = snprintf(tmp, sizeof(tmp), \"%s\", KEY_PREFIX);\n"
        "\tfor (int i = 0; i < 4; i++)\n"
        "\t\tn += snprintf(tmp + n, sizeof(tmp) - (size_t)n, \"%04llx\",\n"
        "\t\t\t      (unsigned long long)((id >> (48 - 16 * i)) & 0xffff));\n"
        "\tsnprintf(tmp + n, sizeof(tmp) - (size_t)n, \"%s\", KEY_SUFFIX);\n"
        "\tmemcpy(key, tmp, KEY_BYTES);\n")],
    "verify-hit": [(
        "\t\tif (memcmp(rec->key, key, KEY_BYTES) == 0)\n\t\t\treturn rec;\n",
        "\t\tif (memcmp(rec->key, key, KEY_BYTES) == 0)\n"
        "\t\t\treturn crc32_update(0, (const unsigned char *)rec->key, KEY_BYTES) ==\n"
        "\t\t\t\t       crc32_update(0, (const unsigned char *)key, KEY_BYTES)\n"
        "\t\t\t\t   ? rec\n\t\t\t\t   : NULL;\n")],
    "crc-rounds": [(
        "\tput_u32(p, crc32_update(0, out, (size_t)(p - out)));\n",
        "\tcrc = 0;\n\tfor (int r = 0; r < 6; r++)\n\t\tcrc = crc32_update(crc, out, (size_t)(p - out));\n"
        "\tput_u32(p, crc);\n"),
        ("\tunsigned char *p = out;\n\n\tput_u32(p, ENCODED_BYTES);\n",
         "\tunsigned char *p = out;\n\tuint32_t crc;\n\n\tput_u32(p, ENCODED_BYTES);\n")],
    "mix-rounds": [(
        "\tx ^= x >> 31;\n\treturn x;\n",
        "\tx ^= x >> 31;\n\tfor (int r = 0; r < 80; r++) {\n\t\tx *= 0xbf58476d1ce4e5b9ull;\n"
        "\t\tx ^= x >> 29;\n\t}\n\treturn x;\n")],
    "hash-more-rounds": [(
        "\t\th = rotl64(h, 27) * PRIME1 + PRIME3;\n\t}\n",
        "\t\th = rotl64(h, 27) * PRIME1 + PRIME3;\n\t\tfor (int r = 0; r < 10; r++) {\n"
        "\t\t\th = rotl64(h ^ k, 29) * PRIME2 + PRIME1;\n"
        "\t\t\th = rotl64(h, 23) * PRIME3 + PRIME2;\n\t\t}\n\t}\n")],
    "key-digits": [(
        "\tfor (i = 0; i < 16; i++)\n\t\tkey[prefix + (size_t)i] = hex[(id >> (60 - 4 * i)) & 0xf];\n",
        "\tfor (i = 0; i < 16; i++) {\n\t\tchar digit[2];\n\n"
        "\t\tsnprintf(digit, sizeof(digit), \"%x\", (unsigned)((id >> (60 - 4 * i)) & 0xf));\n"
        "\t\tkey[prefix + (size_t)i] = digit[0] == hex[(id >> (60 - 4 * i)) & 0xf] ? digit[0] : '?';\n"
        "\t}\n")],
    "mix-more": [(
        "\tx ^= x >> 31;\n\treturn x;\n",
        "\tx ^= x >> 31;\n\tfor (int r = 0; r < 80; r++)\n\t\tx = (x ^ (x >> 31)) * 0x94d049bb133111ebull;\n"
        "\treturn x;\n")],
    # -- neutral changes (n-*)
    "comment-header": [(" * Usage: kvstore", " * Typical use: kvstore --records 4096 --queries 2000000.\n *\n * Usage: kvstore")],
    "comment-put": [("/* Inserts a copy of rec, or overwrites", "/* Inserts a copy of rec (linear probing), or overwrites")],
    "usage-text": [("workload seed (default %u)\\n\"", "seed of the generated workload (default %u)\\n\"")],
    "add-version": [("static void usage(FILE *out)", UNUSED + "const char *kv_version(void)\n{\n\treturn \"kvstore 1.1\";\n}\n\nstatic void usage(FILE *out)")],
    "rename-local": [("\tuint64_t matched;\n", "\tuint64_t nr_matched;\n"),
                     ("\tmatched = scan(", "\tnr_matched = scan("),
                     ("(unsigned long long)matched,", "(unsigned long long)nr_matched,")],
    "dir-message": [("kvstore: cannot create directory '%s': %s", "kvstore: cannot create the log directory '%s': %s")],
    "init-cap": [("\tsize_t cap = 16;\n", "\tsize_t cap = 32;\n")],
    "add-stats": [("static void usage(FILE *out)", UNUSED + "void kv_stats_reset(uint64_t *counters, size_t n)\n{\n\twhile (n--)\n\t\tcounters[n] = 0;\n}\n\nstatic void usage(FILE *out)")],
    "comment-query": [(" * Looks up nr_queries keys.", " * Point lookups: looks up nr_queries keys.")],
    "add-dump": [("static void usage(FILE *out)", UNUSED + "void kv_dump_header(FILE *out, uint64_t records)\n{\n\tfprintf(out, \"# kvstore dump: %llu records\\n\", (unsigned long long)records);\n}\n\nstatic void usage(FILE *out)")],
    "drop-version": [(UNUSED + "const char *kv_version(void)\n{\n\treturn \"kvstore 1.1\";\n}\n", "")],
    "close-message": [("kvstore: cannot close log '%s': %s", "kvstore: closing log '%s' failed: %s")],
    "comment-scan": [("/* Counts the records with lo <= score < hi", "/* Range scan: counts the records with lo <= score < hi")],
    "parse-message": [("kvstore: missing value for '%s'", "kvstore: option '%s' needs a value")],
    "comment-batch": [("#define BATCH_RECORDS 256\n", "/* Records per write() and fsync() of the log. */\n#define BATCH_RECORDS 256\n")],
}

def revert(name):
    return [(new, old) for old, new in E[name]]

R = {"hash-one-round": None, "key-back": revert("key-snprintf"), "verify-off": revert("verify-hit"),
     "crc-once": revert("crc-rounds"), "mix-back": revert("mix-rounds"),
     "hash-back": revert("hash-more-rounds"), "key-loop": revert("key-digits"),
     "mix-less": revert("mix-more")}
steps = R.get(name) or E[name]
for old, new in steps:
    if src.count(old) != 1:
        sys.exit(1)
    src = src.replace(old, new)
open("kvstore.c", "w").write(src)
PY
}

edit batch-again;     commit h-batch-again     'log: batch records again (one fsync per 256)'
edit comment-header;  commit n-comment-header  'kvstore: document a typical run'
edit usage-text;      commit n-usage-text      'usage: describe --seed better'
edit hash-rounds;     commit h-hash-rounds     'kv_hash: twenty mixing rounds per block'
edit comment-put;     commit n-comment-put     'store_put: mention linear probing'
edit add-version;     commit n-add-version     'add kv_version() for tools'
edit hash-one-round;  commit h-hash-one-round  'kv_hash: back to one round per block'
edit rename-local;    commit n-rename-local    'main: rename a local variable'
printf '# kvstore\nA small key-value store; see kvstore.c.\n' >README.md
commit n-readme 'add a README'
edit key-snprintf;    commit h-key-snprintf    'key_format: build the key with snprintf, four hex digits at a time'
edit dir-message;     commit n-dir-message     'make_parent_dirs: clearer message'
edit key-back;        commit h-key-back        'key_format: back to the hex loop'
edit init-cap;        commit n-init-cap        'store_init: start the table at 32 slots'
edit verify-hit;      commit h-verify-hit      'store_get: compare the CRCs of the keys on a hit'
edit add-stats;       commit n-add-stats       'add kv_stats_reset() for tools'
edit comment-query;   commit n-comment-query   'query: say what it does'
edit verify-off;      commit h-verify-off      'store_get: trust the stored hash again'
edit add-dump;        commit n-add-dump        'add kv_dump_header() for tools'
edit crc-rounds;      commit h-crc-rounds      'record_encode: checksum the record six times'
edit drop-version;    commit n-drop-version    'drop kv_version(), nothing uses it'
edit crc-once;        commit h-crc-once        'record_encode: one checksum again'
edit close-message;   commit n-close-message   'log_close: reword the error'
edit mix-rounds;      commit h-mix-rounds      'mix64: eighty more rounds'
edit comment-scan;    commit n-comment-scan    'scan: say what it does'
edit mix-back;        commit h-mix-back        'mix64: back to the splitmix finaliser'
edit hash-more-rounds; commit h-hash-more-rounds 'kv_hash: twenty more rounds per block'
edit parse-message;   commit n-parse-message   'parse_options: reword a message'
edit hash-back;       commit h-hash-back       'kv_hash: one round per block again'
edit key-digits;      commit h-key-digits      'key_format: check each digit with snprintf'
edit key-loop;        commit h-key-loop        'key_format: the plain hex loop again'
edit mix-more;        commit h-mix-more        'mix64: eighty more rounds'
edit mix-less;        commit h-mix-less        'mix64: the splitmix finaliser again'
edit comment-batch;   commit n-comment-batch   'document BATCH_RECORDS'
echo 'core' >>.gitignore
commit n-gitignore 'ignore core files'
git log --oneline | wc -l
