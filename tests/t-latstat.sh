#!/bin/bash
# Description: latency histogram: buckets, percentiles, merge, JSON
# Tier: quick
. "$(dirname "$0")/lib.sh"
"$B/tests/latstat_test" || fail "latstat unit test"
