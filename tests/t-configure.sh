#!/bin/bash
# Description: configure finds the installed fio's source, refuses other versions and unknown options
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no $REPO"

./configure --help | grep -q -- '--with-fio=DIR' || fail "--help does not document --with-fio"
out=$(./configure --no-such-option 2>&1) && fail "unknown option accepted"
echo "$out" | grep -q "unknown option '--no-such-option'" || fail "unclear error: $out"

# A fio source tree of another version is refused with one line.
fake=$TMP/fio-9.99
mkdir -p "$fake"
printf 'DEF_VER=fio-9.99\n' >"$fake/FIO-VERSION-GEN"
touch "$fake/fio.h" "$fake/config-host.h"
out=$(./configure --with-fio="$fake" 2>&1) && fail "configure accepted fio 9.99 source"
echo "$out" | grep -q "version 9.99, installed fio is" || fail "unclear version error: $out"
[ "$(echo "$out" | wc -l)" -eq 1 ] || fail "version refusal is not one line: $out"

# An unconfigured tree is refused (no config-host.h).
rm "$fake/config-host.h"
out=$(./configure --with-fio="$fake" 2>&1) && fail "configure accepted a tree without config-host.h"
echo "$out" | grep -q "no config-host.h" || fail "unclear error: $out"

# The real run: the table, the recorded versions, a log of the probes.
./configure >"$TMP/table" 2>&1 || { cat "$TMP/table"; fail "configure failed"; }
cat "$TMP/table"
installed=$(fio --version | sed 's/^fio-//')
grep -q "^fio (installed) *$installed$" "$TMP/table" || fail "table lacks the installed fio version"
grep -q "^FIO_IOOPS_VERSION *[0-9]" "$TMP/table" || fail "table lacks FIO_IOOPS_VERSION"
grep -q "^FIO_VERSION := $installed$" build/config.mk || fail "config.mk lacks FIO_VERSION"
src=$(sed -n 's/^FIO_SRC := //p' build/config.mk)
grep -q "^#define FIO_IOOPS_VERSION" "$src/ioengines.h" || fail "FIO_SRC has no ioengines.h"
grep -q "disable-native" "$src/config-host.h" || fail "fio source was not configured with --disable-native"
for lib in libaio liburing librbd libcephfs; do
	grep -q "^$lib.* yes$" "$TMP/table" || fail "$lib not found by configure (tools/deps installs it)"
done
grep -q "Compiling test case librbd" config.log || fail "probes are not logged in config.log"
ok "configure"
