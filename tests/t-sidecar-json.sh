#!/bin/bash
# Description: every JSON sidecar is strict UTF-8 JSON and carries back odd job names and directories unchanged
# Timeout: 200
# In full: every JSON sidecar (lat_json of storeio/redolog/pgpage(+.checkpointer)/metastorm/txn,
# metastorm's table_json, rbdsnap's snap_json) parses as strict UTF-8 JSON with Python's json module
# and carries back unchanged a job name and directory holding a quote, a backslash, a tab, UTF-8 and a
# byte that is not UTF-8 (rbdsnap: its snapshot prefix too, tab aside)
. "$(dirname "$0")/lib.sh"
# The oracle is Python: the file must decode as strict UTF-8 and parse; the job
# name must come back as Python names the bytes (os.fsdecode: valid UTF-8 as
# itself, any other byte as its surrogate escape), so os.fsencode gives them back.
WEIRD=$'q"b\\t\tu\xc3\xa9x\xff'
NAME="job$WEIRD"
D="$TMP/dir$WEIRD"
mkdir -p "$D" || fail "cannot make the directory $D"
check() {	# check ENGINE FILE...: each FILE a sidecar of that engine, for job $NAME
	local eng=$1; shift
	py sidecar-job "$eng" "$NAME" "$@"
}
run() {	# run ENGINE ARGS...: the engine as job $NAME in $D
	local eng=$1; shift
	run_fio "$eng" --name="$NAME" --ioengine="external:$B/$eng.so" --directory="$D" "$@" ||
		{ cat "$TMP/$eng.err"; fail "$eng: fio failed"; }
}

run storeio --filename=data --size=1M --rw=write --bs=4k --lat_json="$D/storeio.lat.json"
check storeio "$D/storeio.lat.json" || fail "storeio: lat_json"
ok "storeio: lat_json"

run redolog --flavor=mysql --innodb_log_file_size=4m --bs=4k --rw=write --number_ios=50 \
	--lat_json="$D/redolog.lat.json"
check redolog "$D/redolog.lat.json" || fail "redolog: lat_json"
ok "redolog: lat_json"

run pgpage --bs=8k --relations=2 --relation_size=128k --segment_size=32k --rw=randwrite \
	--number_ios=64 --checkpoint_timeout=0 --checkpoint_pages=16 --lat_json="$D/pgpage.lat.json"
check pgpage "$D/pgpage.lat.json" "$D/pgpage.lat.json.checkpointer" || fail "pgpage: lat_json"
ok "pgpage: lat_json and lat_json.checkpointer"

run metastorm --number_ios=20 --table_json="$D/metastorm.tbl.json" --lat_json="$D/metastorm.lat.json"
check metastorm "$D/metastorm.tbl.json" "$D/metastorm.lat.json" || fail "metastorm: table_json, lat_json"
ok "metastorm: table_json and lat_json"

run txn --calibration=none --rw=write --wal_segment_size=1m --full_page_writes=0 --number_ios=20 \
	--lat_json="$D/txn.lat.json"
check txn "$D/txn.lat.json" || fail "txn: lat_json"
ok "txn: lat_json"

# rbdsnap: the snapshot names (prefix) go into events and the timeline too
need_cluster
have_backend RBD || skip "configure found no librbd"
IMG=rbdsnap-test-sidecar-json
rbd_image "$IMG" 64M
PREFIX=$'s"\\\xc3\xa9\xff-'
run_fio rbdsnap --name="$NAME" --ioengine="external:$B/rbdsnap.so" --clientname=admin --pool=rbd \
	--rbdname="$IMG" --invalidate=0 --rw=randwrite --bs=4k --iodepth=4 --size=64M --time_based \
	--runtime=3 --snap_interval=1 --snap_keep=1 --snap_prefix="$PREFIX" \
	--snap_json="$D/rbdsnap.snap.json" || { cat "$TMP/rbdsnap.err"; fail "rbdsnap: fio failed"; }
check rbdsnap "$D/rbdsnap.snap.json" || fail "rbdsnap: snap_json"
py rbdsnap-snap-names "$D/rbdsnap.snap.json" "$PREFIX" || fail "rbdsnap: snapshot names in snap_json"
ok "rbdsnap: snap_json"
