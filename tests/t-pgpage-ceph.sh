#!/bin/bash
# Description: pgpage on cephfs (libcephfs) and rbd against the project's cluster: verify=crc32c passes with the checkpointer running, checkpoints fsync only dirtied segments
# Timeout: 300
. "$(dirname "$0")/lib.sh"
need_cluster
ENG="external:$B/pgpage.so"
GEOM=(--bs=8k --relations=2 --relation_size=256k --segment_size=64k --relfilenode=16384)
check() {
	local be=$1 name=$2; shift 2
	run_fio "$name" --name="$name" --thread --ioengine="$ENG" --store="$be" "${GEOM[@]}" \
		--rw=randwrite --iodepth=4 --verify=crc32c --checkpoint_timeout=0 \
		--checkpoint_pages=24 --checkpoint_completion_target=0 \
		--checkpoint_log="$TMP/$name.ckpt" --lat_json="$TMP/$name.lat.json" "$@" ||
		{ cat "$TMP/$name.err"; fail "$name: fio failed"; }
	[ "$(json "$TMP/$name.json" "d['jobs'][0]['error']")" = 0 ] || fail "$name: fio reported an error"
	local w n f s
	w=$(json "$TMP/$name.json" "d['jobs'][0]['write']['total_ios']")
	[ "$w" = 64 ] || fail "$name: $w page writes, expected 64"
	n=$(grep -c '^checkpoint ' "$TMP/$name.ckpt")
	f=$(sed -n 's/.* nfiles=\([0-9]*\).*/\1/p' "$TMP/$name.ckpt" | paste -sd+ | bc)
	s=$(json "$TMP/$name.lat.json.checkpointer" "d['calls']['fsync']['count']")
	[ "$n" -ge 2 ] || fail "$name: $n checkpoints, expected >= 2"
	[ "$f" = "$s" ] || fail "$name: checkpoint log lists $f fsynced files, the store saw $s fsyncs"
	grep -q "files=.*16386" "$TMP/$name.ckpt" && fail "$name: a checkpoint fsynced a file no page was written to"
	ok "$name: 64 pages verified, $n checkpoints, $s segment fsyncs (p99 $(json "$TMP/$name.json" "d['jobs'][0]['sync']['lat_ns']['percentile']['99.000000']") ns)"
}
tested=0
if have_backend LIBCEPHFS; then
	check cephfs cephfs --store_root=/pgpage-test-$$ --unlink=1
	tested=1
fi
if have_backend RBD; then
	check rbd rbd --rbdname=pgpage-test-$$ --rbd_size=256m
	rbd rm -p rbd "pgpage-test-$$" >/dev/null 2>&1
	tested=1
fi
[ $tested = 1 ] || skip "neither libcephfs nor librbd was built in"
