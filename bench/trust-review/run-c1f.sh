#!/bin/bash
cd /tmp/trust-review

REVPERF=/tmp/trust-review/fixed5/revperf REPO=/tmp/trust-review/crepo METRIC=ir python3 aa.py c1f 40 "" ""
