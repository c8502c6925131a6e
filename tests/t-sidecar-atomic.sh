#!/bin/bash
# Description: end-of-job JSON sidecars are written whole (temporary name, rename) at the .N path, one line on failure
# Tier: quick
# In full: every end-of-job sidecar goes through one writer (fio_store_sidecar): strace shows a
# temporary file made with O_EXCL in the sidecar's directory and renamed to its name (the name itself
# never opened), for numjobs=2 at <name>.1 and <name>.2; Python's json parses each file; a missing
# directory and a name that is a directory each give one stderr line naming the engine, the option,
# the path and the cause, leave no temporary file, and keep fio's --output JSON clean.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed (tools/deps installs it)"
D=$TMP/d
mkdir -p "$D" "$TMP/side"
S=$TMP/side
strace -f -qq -o "$TMP/st" -e trace=open,openat,rename,renameat,renameat2,unlink \
	"$FIO_BIN" --name=a --ioengine="external:$B/metastorm.so" --directory="$D" --number_ios=20 \
	--table_json="$S/tbl.json" --lat_json="$S/ms.json" \
	--name=b --ioengine="external:$B/storeio.so" --directory="$D" --filename=data --size=256k \
	--rw=write --bs=4k --numjobs=2 --lat_json="$S/sio.json" \
	--output-format=json --output="$TMP/out.json" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "fio failed under strace"; }
crash_check strace 0 "$TMP/err"
[ ! -e "$S/sio.json" ] || fail "numjobs=2 wrote the unsuffixed $S/sio.json"
py sidecar-atomic "$TMP/st" "$S/tbl.json" "$S/ms.json" "$S/sio.json.2" "$S/sio.json.3" ||
	fail "a sidecar was not written atomically (or not at its name)"
ok "table_json and lat_json (numjobs=2: .2 and .3) written as a temporary file, then renamed"

# a directory that does not exist, and a name that is a directory
for t in "$TMP/none/x.json:open" "$S:rename"; do
	p=${t%:*} call=${t##*:}
	run_fio bad --name=bad --ioengine="external:$B/storeio.so" --directory="$D" --filename=data \
		--size=64k --rw=write --bs=4k --lat_json="$p" || { cat "$TMP/bad.err"; fail "fio failed"; }
	cat "$TMP/bad.err"
	[ "$(grep -c . "$TMP/bad.err")" -eq 1 ] || fail "lat_json=$p: not one line on stderr"
	cause="No such file or directory"
	[ "$call" = rename ] && cause="Is a directory"
	grep -qxE "storeio: lat_json=$p: $call\($p\.tmp\.[0-9]+\.[0-9]+\) failed: $cause" "$TMP/bad.err" ||
		fail "lat_json=$p: the line does not name the engine, option, path, call and cause"
	json "$TMP/bad.json" 'len(d["jobs"])' >/dev/null || fail "fio's --output JSON does not parse"
	! grep -q "failed: $cause" "$TMP/bad.json" || fail "the error line went into fio's --output JSON"
	! ls "$(dirname "$p")" 2>/dev/null | grep -q '\.tmp\.' || fail "a temporary file was left in $(dirname "$p")"
	ok "lat_json=$p: one line ($call ... failed), nothing left behind"
done

# the streaming sidecars, opened at init: the same shape, "ENGINE: OPT=PATH: CALL(PATH) failed: CAUSE"
N=$TMP/none/f
for t in "redolog lsn_file open --flavor=mysql --innodb_log_file_size=4m --bs=4k --rw=write --number_ios=5" \
	"redolog write_trace fopen --flavor=mysql --innodb_log_file_size=4m --bs=4k --rw=write --number_ios=5" \
	"txn txn_group_trace fopen --calibration=none --rw=write --wal_segment_size=1m --full_page_writes=0 --number_ios=5" \
	"pgpage checkpoint_log fopen --bs=8k --relations=2 --relation_size=128k --segment_size=32k --number_ios=8"; do
	read -r eng opt call args <<<"$t"
	# shellcheck disable=SC2086 # $args: the job's options, split on purpose
	"$FIO" --name=s --ioengine="external:$B/$eng.so" --directory="$D" $args --"$opt"="$N" \
		>"$TMP/s.out" 2>&1 && fail "$eng: $opt=$N: the job did not fail"
	crash_check "$eng" $? "$TMP/s.out"
	[ "$(grep -cxF "$eng: $opt=$N: $call($N) failed: No such file or directory" "$TMP/s.out")" = 1 ] ||
		{ cat "$TMP/s.out"; fail "$eng: $opt=$N: not one line naming the option, path, call and cause"; }
	ok "$eng: $opt in a missing directory: one line"
done
