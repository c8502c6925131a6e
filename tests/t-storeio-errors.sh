#!/bin/bash
# Description: storeio refuses bad input with one line naming the option and value
. "$(dirname "$0")/lib.sh"
# expect_err NAME PATTERN ARGS...: fio must fail, stderr/stdout must name the problem
expect_err() {
	local name=$1 pat=$2; shift 2
	if "$FIO" --name="$name" --ioengine="external:$B/storeio.so" "$@" >"$TMP/$name.out" 2>&1; then
		fail "$name: fio succeeded"
	fi
	grep -q -- "$pat" "$TMP/$name.out" || { cat "$TMP/$name.out"; fail "$name: no line matching '$pat'"; }
	grep -qi "segmentation\|core dumped\|Aborted" "$TMP/$name.out" && fail "$name: crashed"
	ok "$name: $(grep -m1 -- "$pat" "$TMP/$name.out")"
}
expect_err badstore "store=nosuch: unknown" --store=nosuch --size=1m --directory="$TMP"
expect_err nosize "size= (or filesize=) is required" --directory="$TMP"
expect_err nodir "directory '$TMP/missing'\|$TMP/missing" --size=1m --directory="$TMP/missing" --filename=x
mkdir "$TMP/ro"; chmod 555 "$TMP/ro"
if [ "$(id -u)" != 0 ]; then
	expect_err rodir "Permission denied" --size=1m --directory="$TMP/ro" --rw=write
fi
expect_err trim "trim is not supported" --size=64k --directory="$TMP" --rw=trim
