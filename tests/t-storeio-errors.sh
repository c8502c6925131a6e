#!/bin/bash
# Description: storeio refuses bad input with one line naming the option and value
# Tier: quick
. "$(dirname "$0")/lib.sh"
# expect_err NAME PATTERN ARGS...: fio must fail, stderr/stdout must name the problem
expect_err() {
	local name=$1 pat=$2; shift 2
	"$FIO" --name="$name" --ioengine="external:$B/storeio.so" --aux-path="$TMP" "$@" >"$TMP/$name.out" 2>&1
	local rc=$?
	[ $rc = 0 ] && fail "$name: fio succeeded"
	crash_check "$name" $rc "$TMP/$name.out"
	grep -q -- "$pat" "$TMP/$name.out" || { cat "$TMP/$name.out"; fail "$name: no line matching '$pat'"; }
	ok "$name: $(grep -m1 -- "$pat" "$TMP/$name.out")"
}
# fio's own parser: store= offers the backends this build has
expect_err badstore "^fio: failed parsing store=nosuch$" --store=nosuch --size=1m --directory="$TMP"
expect_err nosize "size= (or filesize=) is required" --directory="$TMP"
# a file in a missing directory: fio checks directory= itself, not a path in
# filename=, so the line must be the engine's own, naming the call, the file
# and the cause
expect_err nodir "^storeio: open($TMP/missing/x) failed: No such file or directory$" \
	--size=1m --directory="$TMP" --filename=missing/x --rw=write
[ -e "$TMP/missing" ] && fail "nodir: the run created $TMP/missing"
mkdir "$TMP/ro"; chmod 555 "$TMP/ro"
if [ "$(id -u)" != 0 ]; then
	expect_err rodir "Permission denied" --size=1m --directory="$TMP/ro" --rw=write
fi
expect_err trim "trim is not supported" --size=64k --directory="$TMP" --rw=trim
