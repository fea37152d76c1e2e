#!/bin/bash
cd /tmp/trust-review
export REPO=/tmp/trust-review/srepo REVPERF=${REVPERF:-/work/wt-trust-base/build/revperf}
S=${SUFFIX:-}
C="-c ../cfg-s12.ini"; T="-c ../cfg-s12-tb.ini"
python3 aa_int.py i0$S 200 "$C" "show $C"
python3 check.py i0$S.jsonl 1:2
python3 aa_int.py i1$S 200 "INT $C" "$C" "show $C"
python3 check.py i1$S.jsonl 2:3
python3 aa_int.py i2$S 200 "$C" "INT $C --more" "$C --more" "show $C"
python3 check.py i2$S.jsonl 3:4
python3 aa_int.py i3$S 150 "INT $T" "$T" "show $T"
python3 check.py i3$S.jsonl 2:3
