#!/bin/bash
# Description: the Python package's unit tests (python/tests, pytest): fio JSON, strace, host, servers without a database
# Tier: quick
# Debian's python3-pytest (tools/deps) installs into /usr/bin/python3, which may not be the
# python3 first on PATH.
. "$(dirname "$0")/lib.sh"
PY3=/usr/bin/python3
"$PY3" -c 'import pytest' 2>/dev/null || fail_or_skip "python3-pytest is not installed (tools/deps installs it)"
"$PY3" -m pytest -q -p no:cacheprovider "$REPO/python/tests" || fail "python/tests failed"
ok "python/tests passed"
