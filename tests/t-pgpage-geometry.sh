#!/bin/bash
# Description: pgpage geometry in 64 bits: impossible sizes refused in one line (no SIGFPE)
# In full: pgpage geometry in 64 bits: impossible sizes refused in one line (no SIGFPE), a page past
# 2^32 pages lands in the right segment (CephFS, read back by fio's verify=pattern through storeio)
. "$(dirname "$0")/lib.sh"
ENG="external:$B/pgpage.so"
# refuse OPT ARGS...: fio fails with one line naming OPT, not a crash
refuse() {
	local opt=$1 rc; shift
	"$FIO" --name=bad --ioengine="$ENG" --directory="$TMP" --rw=randwrite --number_ios=4 \
		--checkpoint_timeout=0 "$@" >"$TMP/bad.out" 2>&1
	rc=$?
	[ $rc -lt 128 ] || { cat "$TMP/bad.out"; fail "$opt: fio died of signal $((rc - 128)) ($*)"; }
	[ $rc != 0 ] || fail "$opt: fio accepted $*"
	[ "$(grep -c "^pgpage: " "$TMP/bad.out")" = 1 ] && grep -q "^pgpage: $opt=" "$TMP/bad.out" ||
		{ cat "$TMP/bad.out"; fail "$opt: not one line naming it"; }
	ok "refused: $(grep "^pgpage: " "$TMP/bad.out")"
}
# 2^32 segments of one page: the segment count was truncated to 32 bits (0: division by zero)
refuse segment_size --relations=1 --relation_size=2T --segment_size=512 --block_size=512 --bs=512
refuse segment_size --relations=1 --relation_size=2T --segment_size=1k --block_size=512 --bs=512
refuse relation_size --relations=3000000000 --relation_size=8T --segment_size=1T --bs=8k
refuse relfilenode --relations=2 --relfilenode=4294967295 --bs=8k
# one value out of its range: fio's own parser refuses it, in its line
"$FIO" --name=bad --ioengine="$ENG" --directory="$TMP" --block_size=128k --bs=128k >"$TMP/bad.out" 2>&1 &&
	fail "block_size=128k accepted"
grep -qx "fio: failed parsing block_size=128k" "$TMP/bad.out" || { cat "$TMP/bad.out"; fail "block_size=128k: not fio's line"; }
ok "refused: $(grep "failed parsing" "$TMP/bad.out")"
refuse segment_size --relations=1 --relation_size=4T --segment_size=4T --block_size=512 --bs=512

# a page beyond 2^32 pages of 512 bytes, on CephFS (no local disk holds 2T):
# block 2^32 - 1 of a 2 TiB relation is in segment 16384.2047 at 1 GiB - 512
have_backend LIBCEPHFS || { ok "(cephfs not built: mapping part skipped)"; exit 0; }
need_cluster
ROOT=/dbfio-test-geom-$$
run_fio w --name=w --ioengine="$ENG" --store=cephfs --store_root=$ROOT --relations=1 --relation_size=2T \
	--block_size=512 --bs=512 --rw=write --offset=$(((1 << 41) - 512)) --size=512 \
	--buffer_pattern=0x50475047 --checkpoint_timeout=0 || { cat "$TMP/w.err"; fail "pgpage 2T/512 write"; }
[ "$(json "$TMP/w.json" "d['jobs'][0]['write']['total_ios']")" = 1 ] || fail "not one page written"
rd() {	# rd NAME OFFSET: fio reads 512 bytes of 16384.2047 and checks the page's pattern
	run_fio "$1" --name="$1" --ioengine="external:$B/storeio.so" --store=cephfs --store_root=$ROOT \
		--filename=16384.2047 --rw=read --bs=512 --size=1g --offset="$2" --number_ios=1 \
		--verify=pattern --verify_pattern=0x50475047
}
rd page $(((1 << 30) - 512)) || { cat "$TMP/page.err"; fail "the page is not at 16384.2047 @ 1G-512"; }
rd other 0 && fail "control: verify=pattern passed on a page never written"
ok "block 2^32-1 of a 2 TiB relation (512-byte pages) -> 16384.2047 @ 1G-512 (fio verify=pattern)"
run_fio rm --name=rm --ioengine="$ENG" --store=cephfs --store_root=$ROOT --relations=1 --relation_size=2T \
	--block_size=512 --bs=512 --rw=write --size=512 --checkpoint_timeout=0 --unlink=1 >/dev/null 2>&1
true
