#!/bin/bash
# Description: metastorm on posix: foreign prefixed files stop it and survive, keep=1 leaves the model's directory state
# Tier: quick
# Timeout: 120
# In full: metastorm on posix: foreign prefixed files stop it and survive, keep=1 leaves the model's
# directory state, bad options refused, direct=1 refused naming the option and O_DIRECT
. "$(dirname "$0")/lib.sh"
[ -f "$B/metastorm.so" ] || fail "build/metastorm.so is missing (run make)"
ms() { "$FIO" --ioengine="external:$B/metastorm.so" "$@"; }

# 1. a foreign file carrying the prefix: refused, left as it was
d=$TMP/foreign; mkdir -p "$d"
echo precious >"$d/dbfio_ms_precious"
ms --name=f --directory="$d" --number_ios=10 >"$TMP/f.out" 2>&1 && fail "started next to a foreign dbfio_ms_ file"
grep -q "dbfio_ms_precious exists and was not made by this run" "$TMP/f.out" || { cat "$TMP/f.out"; fail "no line naming the foreign file"; }
[ "$(cat "$d/dbfio_ms_precious")" = precious ] || fail "the foreign file was changed"
[ "$(ls -A "$d")" = dbfio_ms_precious ] || fail "the engine left files next to the foreign one: $(ls -A "$d")"
ok "foreign file: refused, survived"

# 2. keep=1: the directory holds what the model says; the next run refuses
state() {	# flavor, then what to expect per live table
	local flavor=$1 d=$TMP/keep-$1
	mkdir -p "$d"
	run_fio "keep-$flavor" --name=k --ioengine="external:$B/metastorm.so" --directory="$d" \
		--flavor="$flavor" --number_ios=60 --tables=5 --checkpoint_ops=1000 --keep=1 \
		--ddl_mix=create:40,drop:20,open:20,rename:20 --table_json="$TMP/keep-$flavor.tbl" ||
		{ cat "$TMP/keep-$flavor.err" "$TMP/keep-$flavor.json"; fail "$flavor keep=1 run failed"; }
	py metastorm-state "$d/dbfio_ms_1" "$TMP/keep-$flavor.tbl" "$flavor" || fail "$flavor: directory state differs from the model"
	ms --name=again --directory="$d" --number_ios=5 >"$TMP/again.out" 2>&1 && fail "$flavor: a second run started over keep=1 leftovers"
	grep -q "dbfio_ms_1 exists" "$TMP/again.out" || { cat "$TMP/again.out"; fail "$flavor: no refusal line"; }
	rm -rf "$d/dbfio_ms_1"
	ok "$flavor: keep=1 state matches the model; a second run refused"
}
state mysql; state mariadb; state postgres

# 3. postgres checkpoint: tombstones are unlinked at the checkpoint
d=$TMP/ckpt; mkdir -p "$d"
run_fio ckpt --name=c --ioengine="external:$B/metastorm.so" --directory="$d" --flavor=postgres \
	--number_ios=40 --tables=20 --ddl_mix=drop:1 --checkpoint_ops=10 --keep=1 || fail "checkpoint run"
n=$(ls "$d/dbfio_ms_1/db" | wc -l)
[ "$n" = 0 ] || fail "after 4 checkpoints of 10 drops each, $n relation files remain (want 0)"
rm -rf "$d/dbfio_ms_1"
ok "postgres: dropped relations unlinked at the checkpoint"

# 4. two jobs in one directory, runtime instead of number_ios, default mix
d=$TMP/two; mkdir -p "$d"
run_fio two --name=two --ioengine="external:$B/metastorm.so" --directory="$d" --numjobs=2 \
	--time_based --runtime=1 || { cat "$TMP/two.err"; fail "numjobs=2 run"; }
[ "$(json "$TMP/two.json" "sum(j['read']['total_ios'] for j in d['jobs'])")" -gt 0 ] || fail "numjobs=2 did no DDL"
[ -z "$(ls -A "$d")" ] || fail "numjobs=2 left files: $(ls -A "$d")"
ok "numjobs=2 + runtime: ran, cleaned up"

# 5. bad values: one line naming the option
for bad in "ddl_mix=create:50,truncate:5" "ddl_mix=create:x" "page_size=1000" "log_bytes=2m" \
	"checkpoint_ops=0" "store=rbd" "flavor=oracle"; do
	ms --name=bad --directory="$TMP" --number_ios=1 "--$bad" >"$TMP/bad.out" 2>&1 && fail "$bad accepted"
	grep -q "${bad%%=*}" "$TMP/bad.out" || { cat "$TMP/bad.out"; fail "$bad: no line naming the option"; }
done
ms --name=bad --directory="$TMP" >"$TMP/bad.out" 2>&1 && fail "a job without number_ios/runtime was accepted"
ok "bad option values refused with a line naming the option"

# 6. direct=1: refused at setup with one line naming the option and the reason
# (before: pwrite(dbfio_ms_1/ib_redo) failed: Invalid argument, mid-setup)
d=$TMP/direct; mkdir -p "$d"
ms --name=dio --directory="$d" --number_ios=10 --direct=1 >"$TMP/dio.out" 2>&1 && fail "direct=1 accepted"
line=$(grep "^metastorm: direct=1 .*O_DIRECT" "$TMP/dio.out") || { cat "$TMP/dio.out"; fail "direct=1: no line naming the option and O_DIRECT"; }
! grep -q "Invalid argument" "$TMP/dio.out" || { cat "$TMP/dio.out"; fail "direct=1: an EINVAL mid-run instead of a refusal"; }
[ -z "$(ls -A "$d")" ] || fail "direct=1: files made before the refusal: $(ls -A "$d")"
ok "direct=1 refused: $line"
