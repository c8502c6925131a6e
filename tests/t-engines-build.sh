#!/bin/bash
# Description: every engine exports only 'ioengine', lists its options and runs a 1-I/O job under the installed fio
# Tier: quick
# In full: every engine exports only 'ioengine', lists its options, and the installed fio (not the
# headers it was built from) loads it and runs a 1-I/O job through it with the bytes, offset and
# options where fio put them
. "$(dirname "$0")/lib.sh"
n=0
# libdbfio.so, the store layer every engine links: one copy per process. Its
# symbols must not be fio's own (fio, linked -rdynamic, would take the call)
lib=$B/libdbfio.so
[ -f "$lib" ] || fail "no $lib"
clash=$(comm -12 <(nm -D --defined-only "$lib" | awk '{print $3}' | sort) \
	<(nm -D --defined-only "$FIO_BIN" | awk '{print $3}' | sort))
[ -z "$clash" ] || fail "libdbfio.so exports symbols fio exports too: $clash"
for so in "$B"/*.so; do
	[ -e "$so" ] || fail "no engine built in $B"
	[ "$so" = "$lib" ] && continue
	readelf -d "$so" | grep -q 'NEEDED.*\[libdbfio\.so\]' || fail "$so does not link libdbfio.so"
	readelf -d "$so" | grep -q 'R.*PATH.*\[\$ORIGIN\]' || fail "$so has no \$ORIGIN rpath to find libdbfio.so"
	syms=$(nm -D --defined-only "$so" | awk '{print $3}')
	[ "$syms" = ioengine ] || fail "$so exports more than ioengine: $syms"
	name=$(basename "$so" .so)
	# --enghelp loads the engine through fio's load_ioengine(): the installed
	# fio checks the struct ioengine_ops version against its own
	help=$("$FIO" --enghelp="$so" 2>&1) || fail "fio --enghelp=$so failed: $help"
	grep -q "bad ioops version" <<<"$help" && fail "$name: the installed fio refuses it: $help"
	grep -q "^store *:" <<<"$help" || [ "$name" = rbdsnap ] || fail "$name: --enghelp lists no store option"
	grep -q "^[a-z_]* *: ." <<<"$help" || fail "$name: --enghelp lists no option"
	n=$((n + 1))
done

# The ABI, checked by behaviour under the installed fio rather than by two
# numbers from the same headers: a wrong struct layout (thread_data, io_u,
# the options) shows as the wrong bytes, the wrong offset or an option that
# did not take. One I/O per engine; what it wrote is read back by hand.
D=$TMP/abi; mkdir -p "$D"
one() {	# one NAME ENGINE ARGS...: exactly one write, no error
	local name=$1 e=$2; shift 2
	run_fio "$name" --name="$name" --ioengine="external:$B/$e.so" --directory="$D" "$@" ||
		{ cat "$TMP/$name.err"; fail "$name: the installed fio cannot run $e.so"; }
	grep -q "bad ioops version" "$TMP/$name.err" && fail "$name: $(cat "$TMP/$name.err")"
	[ "$(json "$TMP/$name.json" "(d['jobs'][0]['error'], d['jobs'][0]['write']['total_ios'])")" = "(0, 1)" ] ||
		{ cat "$TMP/$name.err"; fail "$name: not exactly one write without error"; }
}
# storeio: 4 KiB of 0x5a5a5a5a at offset 8 KiB of a 16 KiB file; lat_json= (an engine option) written
one storeio storeio --filename=abi.dat --size=16k --offset=8k --bs=4k --rw=write --number_ios=1 \
	--buffer_pattern=0x5a5a5a5a --lat_json="$TMP/abi.lat.json"
py only-pattern "$D/abi.dat" 8192 5a 4096 || fail "storeio: the bytes are not where fio put them"
[ "$(json "$TMP/abi.lat.json" "d['calls']['write']['count']")" = 1 ] || fail "storeio: lat_json= did not take"
ok "storeio: 4 KiB pattern at 8 KiB, lat_json= honoured"
# pgpage: block 3 of relation 16390 (relfilenode=, block_size=: engine options)
one pgpage pgpage --bs=4k --block_size=4k --relations=1 --relation_size=64k --relfilenode=16390 \
	--checkpoint_timeout=0 --rw=write --offset=12k --size=4k --buffer_pattern=0x47504750
py only-pattern "$D/16390" 12288 47504750 1024 16384 || fail "pgpage: page 3 of relation 16390 not at 12 KiB"
ok "pgpage: block 3 of 16390 at 12 KiB"
# redolog: one 100-byte commit; its sidecar (lsn_file=) says LSN 100 acknowledged
one redolog redolog --rw=write --flavor=postgres --wal_segment_size=1m --wal_segments=2 --bs=100 \
	--number_ios=1 --lsn_file="$TMP/abi.lsn"
[ "$(lsn_acked "$TMP/abi.lsn")" = 100 ] || fail "redolog: lsn_file= does not acknowledge 100 bytes"
"$B/logverify" --dir="$D" "$TMP/abi.lsn" >/dev/null || fail "redolog: logverify rejects the one commit"
ok "redolog: one 100 B commit acknowledged and intact"
# metastorm: one CREATE TABLE (ddl_mix=, tables=: engine options)
run_fio metastorm --name=ms --ioengine="external:$B/metastorm.so" --directory="$D" --flavor=mysql \
	--number_ios=1 --tables=1 --ddl_mix=create:1 --table_json="$TMP/abi.tbl.json" ||
	{ cat "$TMP/metastorm.err"; fail "metastorm: the installed fio cannot run metastorm.so"; }
[ "$(json "$TMP/abi.tbl.json" "d['phases']['create']['ops']")" = 1 ] || fail "metastorm: not one CREATE"
ok "metastorm: one CREATE TABLE"
ok "$n engines load in the installed fio; 4 run a 1-I/O job with the bytes where fio put them (rbdsnap: t-rbdsnap-*)"
