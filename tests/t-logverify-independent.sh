#!/bin/bash
# Description: logverify shares no code with the engine and finds flipped bytes and truncation in real redolog runs
# Tier: quick
# Timeout: 120
# In full: logverify shares no code with the engine (no engines/ header, no store layer linked) and
# finds a flipped byte in the first and the last acknowledged record and a truncated log file of real
# mysql and postgres redolog runs, passing the untouched runs
. "$(dirname "$0")/lib.sh"
E=$B/redolog.so
LV=$B/logverify
SRC=$REPO/tools/logverify.c
[ -x "$LV" ] && [ -f "$E" ] || fail "build/redolog.so or build/logverify missing (run make)"

# (a) the oracle is its own code: it includes only system headers (an
# engine's header comes in as "store/..." or "redolog/..." through
# -Iengines), and no store-layer function is linked into it
inc=$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"|engines/' "$SRC")
[ -z "$inc" ] || fail "tools/logverify.c includes or names engine code: $inc"
# (the store layer's and redolog_fmt.h's prefixes; logverify's own names differ)
linked=$(nm "$LV" | awk '$2 ~ /^[TtDdBbRr]$/ && $3 ~ /^(store_|rl_|rbds_|ceph_conn|owner_|latstat_|json_)/ { print $3 }')
[ -z "$linked" ] || fail "build/logverify has the store layer or the engine linked in: $(echo $linked)"
! ldd "$LV" | grep -q libdbfio || fail "build/logverify links libdbfio.so: $(ldd "$LV" | grep libdbfio)"
ok "tools/logverify.c includes no engine header; build/logverify links no store layer"

# (b) real runs; the checkpoint stays at LSN 0 (the runs are far shorter
# than the log), so the bytes to break are where docs/redolog.md's
# "On-disk format" puts LSN L: mysql unit L/496 of ib_logfile0 at 2048 +
# 512 x unit + 12 + L mod 496; postgres page L/8168 (1 MiB segments of 128
# pages, segment 1 first) at 8192 x page + 24 + L mod 8168
side() { od -An -tu8 -j "$2" -N8 "$1" | tr -d ' '; }	# side FILE OFFSET: a u64 of the sidecar
where() {	# where FLAVOR LSN: "FILE OFFSET" of that stream byte
	local u
	case $1 in
	mysql) u=$(($2 / 496)); echo "ib_logfile0 $((2048 + 512 * u + 12 + $2 % 496))" ;;
	postgres) u=$(($2 / 8168)); printf '%08X%08X%08X %d\n' 1 0 $((u / 128 + 1)) \
		$((8192 * (u % 128) + 24 + $2 % 8168)) ;;
	esac
}
verdict() {	# verdict NAME WANT_RC WHAT: logverify of run NAME exits WANT_RC (its line in $out)
	local rc
	out=$("$LV" --dir="$TMP/$1" "$TMP/$1.lsn" 2>&1); rc=$?
	[ $rc = "$2" ] || fail "$1: $3: logverify exit $rc, expected $2: $out"
	[ "$2" = 1 ] && ! grep -q "^logverify: LOSS at LSN [0-9]*: " <<<"$out" && fail "$1: $3: no LOSS line: $out"
	[ "$2" = 0 ] && ! grep -q "^logverify: ok: $N records intact, LSN 0\.\.$ack, flavor=$1 " <<<"$out" &&
		fail "$1: $3: not every record found: $out"
	ok "$1: $3: $out"
}
N=300
for fl in mysql postgres; do
	mkdir -p "$TMP/$fl"
	args=(--innodb_log_file_size=1m)
	[ $fl = postgres ] && args=(--wal_segment_size=1m --wal_segments=4)
	run_fio "$fl" --name="$fl" --ioengine="external:$E" --directory="$TMP/$fl" --rw=write \
		--flavor=$fl "${args[@]}" --bs=700 --iodepth=4 --number_ios=$N --lsn_file="$TMP/$fl.lsn" ||
		{ cat "$TMP/$fl.err"; fail "$fl: fio failed"; }
	ack=$(side "$TMP/$fl.lsn" 8)
	[ "$ack" = $((N * 700)) ] && [ "$(side "$TMP/$fl.lsn" 16)" = 0 ] ||
		fail "$fl: sidecar: acknowledged $ack, checkpoint $(side "$TMP/$fl.lsn" 16) (expected $((N * 700)), 0)"
	verdict $fl 0 "untouched run"
	# one byte of the first record's payload, then one of the last record
	for lsn in 100 $((ack - 1)); do
		read -r f off < <(where $fl $lsn)
		[ -f "$TMP/$fl/$f" ] || fail "$fl: no $f for LSN $lsn: $(ls "$TMP/$fl")"
		cp "$TMP/$fl/$f" "$TMP/$fl.orig"
		old=$(od -An -tx1 -j "$off" -N1 "$TMP/$fl/$f" | tr -d ' ')
		printf "\\x$(printf %02x $((0x$old ^ 0x5a)))" |
			dd of="$TMP/$fl/$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
		verdict $fl 1 "byte at LSN $lsn ($f offset $off) flipped"
		cp "$TMP/$fl.orig" "$TMP/$fl/$f"
		verdict $fl 0 "byte restored"
	done
	# mysql: a flipped record byte in a block whose trailer CRC32C is then
	# made right again (a bad record in a sound block): the record's own CRC
	if [ $fl = mysql ]; then
		read -r f off < <(where $fl 5000)
		python3 - "$TMP/$fl/$f" "$off" <<'PY' || fail "mysql: cannot rewrite the block"
import struct, sys
def crc32c(b):
    c = 0xFFFFFFFF
    for x in b:
        c ^= x
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    return c ^ 0xFFFFFFFF
path, off = sys.argv[1], int(sys.argv[2])
blk = off - (off - 2048) % 512
with open(path, "r+b") as f:
    f.seek(blk)
    b = bytearray(f.read(512))
    assert struct.unpack_from("<I", b, 508)[0] == crc32c(b[:508]), "trailer not as documented"
    b[off - blk] ^= 0x5A
    struct.pack_into("<I", b, 508, crc32c(b[:508]))
    f.seek(blk)
    f.write(b)
PY
		verdict $fl 1 "record byte at LSN 5000 flipped, block trailer re-sealed"
		grep -q "record CRC32C mismatch" <<<"$out" || fail "mysql: the re-sealed block's record: $out"
		cp "$TMP/$fl.orig" "$TMP/$fl/$f"
	fi
	# the file cut in the middle of the acknowledged log
	read -r f off < <(where $fl $((ack / 2)))
	truncate -s "$off" "$TMP/$fl/$f"
	verdict $fl 1 "$f truncated to $off bytes"
	cp "$TMP/$fl.orig" "$TMP/$fl/$f"
done
out=$("$LV" --dir="$TMP/mysql" /dev/null 2>&1); rc=$?
[ $rc = 2 ] || fail "logverify exit $rc on a sidecar that is not one (expected 2): $out"
ok "no sidecar: exit 2: $out"
exit 0
