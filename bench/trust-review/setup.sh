#!/bin/bash
# Makes the A/A fixture repositories of the trust review under DIR (default
# /tmp/trust-review): each has tags a and b, the same benchmark on both sides.
#   repo   prints v = 1000 exp(0.1 z), z standard normal (a reported metric, load-proof)
#   srepo  the same after sleep 0.02 (so that SIGINT lands mid-comparison)
#   drepo  prints v = 10 or 11 at random (a discrete metric)
#   crepo  a C program counting 1,000,000 or 1,050,000 loop iterations at random (ir)
set -e
dir=${1:-/tmp/trust-review}
mkdir -p "$dir" && cd "$dir"
mk() { rm -rf "$1" && mkdir "$1" && cd "$1" && git init -q . && git config user.email t@e.com && git config user.name t; }
norm='awk -v s="$(( $(od -An -N4 -tu4 /dev/urandom) % 2147483647 ))" '\''BEGIN{srand(s); u1=1-rand(); u2=rand(); z=sqrt(-2*log(u1))*cos(6.283185307*u2); printf "v %.6f\n", 1000*exp(0.1*z)}'\'''
tag() { git add -A && git commit -qm a && git tag a && git commit -q --allow-empty -m same && git tag b && cd ..; }
mk repo; echo "$norm" >g.sh; tag
mk srepo; echo "sleep 0.02; $norm" >g.sh; tag
mk drepo; echo 'echo "v $(( 10 + $(od -An -N1 -tu1 /dev/urandom) % 2 ))"' >d.sh; tag
mk crepo
cat >bimodal.c <<'C'
#include <stdio.h>
#include <sys/random.h>
int main(void)
{
	unsigned char bit = 0;
	volatile unsigned long x = 0;
	if (getrandom(&bit, 1, 0) != 1)
		return 1;
	unsigned long n = (bit & 1) ? 1050000 : 1000000;
	for (unsigned long i = 0; i < n; i++)
		x += i;
	printf("%lu\n", (unsigned long)x);
	return 0;
}
C
cat >revperf.ini <<'INI'
[build]
command = cc -O1 -o bimodal bimodal.c
[benchmark "bi"]
command = ./bimodal
metrics = ir
primary = ir
runs = 2..2
warmup = 0
output = discard
INI
tag
