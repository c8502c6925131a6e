#!/bin/bash
# Description: pgpage on cephfs (libcephfs), ceph-fuse and rbd against the project's cluster
# Timeout: 300
# In full: pgpage on cephfs (libcephfs), ceph-fuse and rbd against the project's cluster:
# verify=crc32c passes with the checkpointer running; checkpoints fsync exactly the dirtied segments
# (strace on ceph-fuse, the files that exist on libcephfs)
. "$(dirname "$0")/lib.sh"
need_mounts
ENG="external:$B/pgpage.so"
# 2 relations of 4 segments: 16384, 16384.1..3, 16385, 16385.1..3
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
	ok "$name: 64 pages verified, $n checkpoints, $s segment fsyncs (p99 $(json "$TMP/$name.json" "d['jobs'][0]['sync']['lat_ns']['percentile']['99.000000']") ns)"
}
# The job writes only pages 8..23 of relation 0: segments 16384.1 and 16384.2.
# A checkpoint may fsync those two and nothing else.
DIRTY=(--rw=randwrite --offset=64k --size=128k --checkpoint_timeout=0 --checkpoint_pages=4
       --checkpoint_completion_target=0)
ALL="16384 16384.1 16384.2 16384.3 16385 16385.1 16385.2 16385.3"

# ceph-fuse: strace sees every fsync with its file
D=$CEPHFS_MNT/pgpage-test-$$
mkdir -p "$D" || fail "mkdir $D on ceph-fuse"
strace -f -y -qq -e trace=fsync -o "$TMP/fuse.st" "$FIO" --output-format=json --output="$TMP/fuse.json" \
	--name=fuse --ioengine="$ENG" --directory="$D" "${GEOM[@]}" "${DIRTY[@]}" 2>"$TMP/fuse.err" ||
	{ cat "$TMP/fuse.err"; fail "ceph-fuse: fio failed"; }
fs=$(sed -n "s|.*fsync([0-9]*<$D/\([0-9.]*\)>).*|\1|p" "$TMP/fuse.st" | sort | uniq -c | awk '{print $2 "x" $1}' | paste -sd' ')
echo "ceph-fuse fsyncs per segment (strace): $fs"
[ -n "$fs" ] || fail "ceph-fuse: strace saw no segment fsync"
for f in $(sed -n "s|.*fsync([0-9]*<$D/\([0-9.]*\)>).*|\1|p" "$TMP/fuse.st" | sort -u); do
	case $f in 16384.1|16384.2) ;; *) fail "ceph-fuse: a checkpoint fsynced $f, which no page was written to" ;; esac
done
for f in 16384.1 16384.2; do
	grep -q "fsync([0-9]*<$D/$f>)" "$TMP/fuse.st" || fail "ceph-fuse: dirtied segment $f never fsynced"
done
ok "ceph-fuse: only the dirtied segments 16384.1 and 16384.2 were fsynced ($fs)"
rm -rf -- "${D:?}"

if have_backend LIBCEPHFS; then
	check cephfs cephfs --store_root=/pgpage-test-$$ --unlink=1
	# libcephfs: no syscalls to trace. The checkpointer opens (O_CREAT) every
	# segment it fsyncs, so one fsynced without being dirtied would exist.
	R=/pgpage-dirty-$$
	run_fio dirty --name=dirty --ioengine="$ENG" --store=cephfs --store_root=$R "${GEOM[@]}" "${DIRTY[@]}" ||
		{ cat "$TMP/dirty.err"; fail "cephfs: dirty-set run failed"; }
	[ "$(json "$TMP/dirty.json" "d['jobs'][0]['sync']['lat_ns']['N']")" -ge 2 ] || fail "cephfs: fewer than 2 segment fsyncs"
	for f in $ALL; do
		# storeio opens without O_CREAT for reading: ENOENT is the file's absence
		"$FIO" --name=c --ioengine="external:$B/storeio.so" --store=cephfs --store_root=$R --filename=$f \
			--size=8k --bs=8k --rw=read >"$TMP/c.out" 2>&1
		grep -q "open($f) failed: No such file" "$TMP/c.out" && e=no || e=yes
		case $f:$e in 16384.1:yes|16384.2:yes|*:no) ;; *) fail "cephfs: segment $f exists: touched without being dirtied" ;; esac
		case $f:$e in 16384.1:no|16384.2:no) fail "cephfs: dirtied segment $f missing" ;; esac
	done
	ok "cephfs: only 16384.1 and 16384.2 exist after checkpoints (every other segment untouched)"
	run_fio dirty-rm --name=dirty-rm --ioengine="$ENG" --store=cephfs --store_root=$R "${GEOM[@]}" \
		"${DIRTY[@]}" --number_ios=1 --unlink=1 >/dev/null 2>&1
fi
if have_backend RBD; then
	check rbd rbd --rbdname=pgpage-test-$$ --rbd_size=256m
	rbd rm -p rbd "pgpage-test-$$" >/dev/null 2>&1
fi
true
