#!/bin/bash
# Description: store layer async path on posix, uring, aio (buffered and O_DIRECT): data, counts, errors
# Tier: quick
. "$(dirname "$0")/lib.sh"
n=0
for st in posix uring aio; do
	for direct in "" --direct; do
		mkdir -p "$TMP/$st$direct"
		"$B/tests/store_async_test" --store=$st --dir="$TMP/$st$direct" $direct
		rc=$?
		case $rc in
		0) n=$((n + 1)) ;;
		77) [ "$st" = posix ] && [ -z "$direct" ] && fail "posix may not skip" ;;
		*) fail "store_async_test --store=$st $direct (exit $rc)" ;;
		esac
	done
done
[ "$n" -ge 4 ] || fail "only $n backend runs passed"
ok "$n backend runs"
