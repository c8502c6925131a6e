#!/bin/bash
# Description: pgpage: block N of relation R lands in <relfilenode+R>[.segment] at the expected offset; bad options refused in one line
# Tier: quick
# In full: pgpage: block N of relation R lands in <relfilenode+R>[.segment] at the expected offset;
# bad options refused in one line; verify=crc32c passes on posix/uring/aio
. "$(dirname "$0")/lib.sh"
ENG="external:$B/pgpage.so"
# 3 relations of 256 KiB (32 pages of 8 KiB) in 64 KiB segments (8 pages)
GEOM=(--bs=8k --relations=3 --relation_size=256k --segment_size=64k --relfilenode=16384 --checkpoint_timeout=0)

# mark R N: write one page, block N of relation R, through fio's offset
mark() {
	local r=$1 n=$2 dir=$TMP/map-$1-$2
	mkdir -p "$dir"
	run_fio "map-$r-$n" --name=map --ioengine="$ENG" --directory="$dir" "${GEOM[@]}" \
		--rw=write --offset=$(((r * 32 + n) * 8192)) --size=8k \
		--buffer_pattern=0x50475047 || { cat "$TMP/map-$r-$n.err"; fail "mark $r $n: fio failed"; }
	[ "$(json "$TMP/map-$r-$n.json" "d['jobs'][0]['write']['total_ios']")" = 1 ] || fail "mark $r $n: not one page write"
}
# expect R N FILE OFFSET: the only relation file is FILE, and its page at OFFSET holds the pattern
expect() {
	local dir=$TMP/map-$1-$2
	# the ownership marker aside, FILE is the only file
	[ "$(ls -A "$dir" | grep -vx '.dbfio-owned')" = "$3" ] || fail "block $2 of relation $1: files $(ls -A "$dir" | tr '\n' ' '), expected only $3"
	py only-pattern "$dir/$3" "$4" 50475047 2048 $(($4 + 8192)) || fail "block $2 of relation $1: expected in $3 at $4"
	ok "block $2 of relation $1 -> $3 @ $4"
}
mark 0 0;  expect 0 0 16384 0
mark 2 13; expect 2 13 16386.1 40960
mark 1 31; expect 1 31 16385.3 57344
mark 1 8;  expect 1 8 16385.1 0

# bad values: one line naming the option, fio fails (fio's own parser for a value
# outside the option's range: "fio: failed parsing NAME=VALUE")
refuse() {
	local opt=$1; shift
	if "$FIO" --name=bad --ioengine="$ENG" --directory="$TMP" --rw=randwrite --size=64k \
		--output="$TMP/bad.out" "$@" >"$TMP/bad.stdout" 2>&1; then
		fail "$opt: fio accepted $*"
	fi
	grep -h "^\(pgpage: \|fio: failed parsing \)$opt=" "$TMP/bad.out" "$TMP/bad.stdout" >/dev/null ||
		{ cat "$TMP/bad.out" "$TMP/bad.stdout"; fail "$opt: no one-line error naming it"; }
	ok "refused: $(grep -h "^\(pgpage: \|fio: failed parsing \)$opt=" "$TMP/bad.out" "$TMP/bad.stdout" | head -1)"
}
refuse block_size --bs=3000 --block_size=3000
refuse block_size --bs=256 --block_size=256
refuse segment_size --bs=8k --segment_size=4k
refuse relation_size --bs=8k --relations=10 --relation_size=10T
refuse bs --bs=4k
refuse checkpoint_completion_target --bs=8k --checkpoint_completion_target=1.5
refuse extend_ratio --bs=8k --extend_ratio=10 --verify=crc32c

# verify=crc32c through the engine, checkpointer rewriting pages meanwhile
verify() {
	local be=$1 name=$2; shift 2
	mkdir -p "$TMP/$name"
	run_fio "$name" --name="$name" --ioengine="$ENG" --store="$be" --directory="$TMP/$name" \
		"${GEOM[@]}" --checkpoint_pages=64 --checkpoint_completion_target=0 \
		--checkpoint_log="$TMP/$name.ckpt" --rw=randwrite --verify=crc32c "$@" ||
		{ cat "$TMP/$name.err"; fail "$name: fio failed"; }
	[ "$(json "$TMP/$name.json" "d['jobs'][0]['error']")" = 0 ] || fail "$name: fio error"
	local w r n
	w=$(json "$TMP/$name.json" "d['jobs'][0]['write']['total_ios']")
	r=$(json "$TMP/$name.json" "d['jobs'][0]['read']['total_ios']")
	n=$(grep -c '^checkpoint ' "$TMP/$name.ckpt")
	[ "$w" = 96 ] && [ "$r" = 96 ] || fail "$name: $w writes, $r verify reads (96 expected)"
	[ "$n" -ge 1 ] || fail "$name: no checkpoint ran"
	ok "$name: 96 pages written and verified, $n checkpoints"
}
verify posix posix
have_backend LIBURING && verify uring uring --iodepth=8
have_backend LIBURING && verify uring uring-direct --iodepth=8 --direct=1
have_backend LIBAIO && verify aio aio --iodepth=8 --direct=1
true
