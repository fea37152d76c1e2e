#!/bin/sh
# Installs the Debian packages revperf needs to build and test, if any are missing, and
# playwright-core (npm, pinned in tests/browser/package.json) for the browser test of the
# HTML report. Idempotent and quiet when everything is there; uses sudo when not root.
# clang builds the fuzz targets in `make test`; libclang-rt-dev holds its libFuzzer and
# sanitizer runtimes (only a Recommends of clang, which --no-install-recommends skips).
# libpq-dev: the PostgreSQL store; postgresql: the real server its tests start
# (tests/pg/pg_server.sh, from /usr/lib/postgresql/*/bin).
# linux-perf: bench/sample.sh measures revperf's sampler against `perf record`, and it
# records the perf script samples that tests/cli/diff_perf_script.sh imports.
# faketime runs a queue worker with a wrong clock, iproute2 (ip netns) puts workers in
# network namespaces of their own (tests/pg/cli/queue_clock.sh, queue_netns.sh).
# python3-jsonschema validates every command's JSON against docs/schema/ (json_schema_validate).
set -eu
PKGS="build-essential cmake pkg-config git clang libclang-rt-dev libsqlite3-dev libpq-dev postgresql libgit2-dev
libinih-dev libjansson-dev libcmocka-dev libelf-dev libdw-dev libcapstone-dev libzstd-dev
hyperfine valgrind time python3 procps g++ libbenchmark-dev uftrace strace
chromium nodejs linux-perf python3-jsonschema faketime iproute2"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
# Debian's npm; a nodejs from elsewhere (NodeSource) brings its own and conflicts with it.
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
	echo "install-deps: installing$missing" >&2
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq >/dev/null
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# The browser test drives Debian's chromium with playwright-core (no browser download).
browser=$(dirname "$0")/../tests/browser
if [ ! -f "$browser/node_modules/playwright-core/package.json" ]; then
	echo "install-deps: installing playwright-core into tests/browser/node_modules" >&2
	PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$browser" --no-audit --no-fund \
		--loglevel=error >/dev/null
fi
