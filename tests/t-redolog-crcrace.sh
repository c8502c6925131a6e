#!/bin/bash
# Description: redolog's CRC32C tables under concurrent first use (numjobs threads): 300 processes x 4 threads
# In full: redolog's CRC32C tables under concurrent first use (numjobs threads): 300 processes x 4
# threads, every CRC equal to a bitwise reference
. "$(dirname "$0")/lib.sh"
T=$B/tests/crc32c_race_test
[ -x "$T" ] || fail "$T missing (run make)"
for i in $(seq 1 300); do
	out=$("$T") || fail "run $i: $out"
done
ok "300 runs x 4 threads: every CRC32C matched the bitwise reference"
