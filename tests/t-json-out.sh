#!/bin/bash
# Description: the sidecars' JSON writer (engines/store/json_out.c): layout, escapes, NaN/inf as null, every misuse refused
# Tier: quick
# In full: the sidecars' JSON writer (engines/store/json_out.c): layout, escapes, NaN/inf as null,
# every misuse refused; Python's json module reads 5000 byte strings (valid, overlong, surrogate,
# truncated UTF-8, controls, quotes) back as Python's own surrogateescape decoding of the bytes
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "python3 is not installed (tools/deps installs it)"
"$B/tests/json_out_test" || fail "json_out unit test"
