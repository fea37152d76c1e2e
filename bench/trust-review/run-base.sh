#!/bin/bash
# The experiments on the unfixed binary (main at ddda9e2), one after another.
cd /tmp/trust-review
export REVPERF=/work/wt-trust-base/build/revperf
C="-c ../cfg-a20.ini"; T="-c ../cfg-a20-tb.ini"
python3 aa.py e2 300 "$C" "$T" "show $T" "show $C"
python3 check.py e2.jsonl 2:3 2:4
python3 aa.py e3 200 "$C" "$C --more" "show $C" "$C --more" "show $C" "$C --more" "show $C" "$C --more" "show $C" "$C --more" "show $C"
python3 check.py e3.jsonl 2:3 4:5 6:7 8:9 10:11
python3 aa.py e4 300 "$C -r 3..6" "$C -r 3..12" "$C -r 3..24" "show $C -r 3..24"
python3 check.py e4.jsonl 3:4
