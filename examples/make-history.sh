#!/bin/sh
# make-history.sh DIR: create DIR as a fresh git repository holding the
# kvstore example (examples/kvstore) with a short history, one tag per commit:
#
#   baseline        the program as in examples/kvstore
#   neutral         comments and a local variable name only (same binary)
#   cpu-regression  kv_hash() mixes each key block once more: ~10% more CPU
#   more-writes     the log is written and fsync'ed per record, not per batch
#
# Each change is a patch under examples/kvstore/patches/, applied with
# git apply. Author, committer and dates are fixed and the user's git
# configuration is ignored, so the commit ids are the same on every machine.
# Exit codes: 0 ok, 2 usage error (bad or non-empty DIR), 3 internal failure.
set -eu

usage() {
	echo "usage: $0 DIR   (DIR must not exist or be empty)" >&2
	exit 2
}

die() {
	echo "make-history.sh: $*" >&2
	exit 3
}

[ $# -eq 1 ] || usage
[ -n "$1" ] || usage
dir=$1
src=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)/kvstore
[ -f "$src/kvstore.c" ] || die "cannot find $src/kvstore.c"

if [ -e "$dir" ] && [ ! -d "$dir" ]; then
	echo "make-history.sh: '$dir' exists and is not a directory; choose a new path" >&2
	exit 2
fi
if [ -d "$dir" ] && [ -n "$(ls -A -- "$dir")" ]; then
	echo "make-history.sh: '$dir' is not empty; remove it or choose a new path" >&2
	exit 2
fi

# Neither the system nor the user's configuration (hooks, signing, templates).
GIT_CONFIG_NOSYSTEM=1
GIT_CONFIG_GLOBAL=/dev/null
GIT_AUTHOR_NAME='kvstore example'
GIT_AUTHOR_EMAIL='kvstore@example.invalid'
GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL \
	GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL

mkdir -p -- "$dir"
cd -- "$dir"
git init -q --initial-branch=main .
git config user.name "$GIT_AUTHOR_NAME"
git config user.email "$GIT_AUTHOR_EMAIL"

# commit TAG DATE SUBJECT BODY: commit everything at DATE and tag it TAG.
commit() {
	git add -A
	GIT_AUTHOR_DATE=$2 GIT_COMMITTER_DATE=$2 git commit -q -m "$3" -m "$4"
	git tag "$1"
}

# apply NAME: apply examples/kvstore/patches/NAME.patch to the work tree.
apply() {
	git apply "$src/patches/$1.patch" ||
		die "patches/$1.patch no longer applies; regenerate it from examples/kvstore/kvstore.c"
}

cp -- "$src/kvstore.c" "$src/Makefile" .
printf '%s\n' 'build/' 'data/' '.revperf/' >.gitignore
cat >revperf.ini <<'EOF'
; revperf configuration for the kvstore example
[build]
command = make -s bench
[benchmark "ingest-query"]
command = ./build/kvstore --records 4096 --queries 2000000 --log data/kv.log
metrics = wall, cpu, maxrss, wchar
tolerance = 2%
runs = 5..30
EOF
commit baseline '2024-01-08T10:00:00+0000' \
	'kvstore: key-value store with a batched append-only log' \
	'Ingests generated records into an open-addressing hash table, logs them
with one write() and one fsync() per batch of 256 records, then answers
point lookups and range scans and prints a checksum.'

apply neutral
commit neutral '2024-01-09T10:00:00+0000' \
	'kvstore: clarify comments' \
	'Reword the comments of crc32_update(), query() and scan() and rename
the local variable space to key_space. No functional change.'

apply cpu-regression
commit cpu-regression '2024-01-10T10:00:00+0000' \
	'kv_hash: multiply the state once more per block' \
	'Every key block now avalanches into the next one.'

apply more-writes
commit more-writes '2024-01-11T10:00:00+0000' \
	'log: sync every record before acknowledging it' \
	'A crash could lose up to 255 acknowledged records of the last batch.
Write and fsync the log after each record instead.'

git log --format='%h %ad %s%d' --date=short
