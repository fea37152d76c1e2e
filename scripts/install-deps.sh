#!/bin/sh
# Installs the Debian packages revperf needs to build and test, if any are missing.
# Idempotent and quiet when everything is there; uses sudo when not root.
set -eu
PKGS="build-essential cmake pkg-config git clang libsqlite3-dev libgit2-dev libinih-dev
libjansson-dev libcmocka-dev libelf-dev libdw-dev libcapstone-dev libzstd-dev
hyperfine valgrind time python3 procps g++ libbenchmark-dev uftrace strace"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
