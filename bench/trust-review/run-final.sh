#!/bin/bash
# Confirmation on the final branch binary (fixed5/ = trust-review at 4286b10).
cd /tmp/trust-review
export REVPERF=/tmp/trust-review/fixed5/revperf
C="-c ../cfg-a20.ini"; T="-c ../cfg-a20-tb.ini"
python3 aa.py g2 150 "$C" "$T" "show $T" "show $C"
python3 check.py g2.jsonl 1:2 1:3 1:4
export REPO=/tmp/trust-review/srepo
S="-c ../cfg-s12.ini"
python3 aa_int.py g5 150 "INT $S" "show $S" "$S" "show $S"
python3 check.py g5.jsonl 3:4
python3 aa_int.py g6 100 "$S" "INT $S --more" "$S --more" "show $S"
python3 check.py g6.jsonl 3:4
