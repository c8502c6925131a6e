#!/bin/bash
# Description: metastorm on posix: foreign prefixed files stop it and survive, keep=1 leaves the model's directory state, bad options refused
# Timeout: 120
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
	python3 - "$d/dbfio_ms_1" "$TMP/keep-$flavor.tbl" "$flavor" <<'PY' || fail "$flavor: directory state differs from the model"
import json, os, sys
root, flavor = sys.argv[1], sys.argv[3]
ph = json.load(open(sys.argv[2]))["phases"]
live = ph["setup"]["ops"] + ph["create"]["ops"] - ph["drop"]["ops"]
files = sorted(os.listdir(os.path.join(root, "db")))
sizes = {f: os.path.getsize(os.path.join(root, "db", f)) for f in files}
logs = sorted(f for f in os.listdir(root) if f != "db")
err = []
if flavor == "mysql":
    want_logs, exts = ["binlog.000001", "ib_redo"], {".ibd": 7 * 16384}
elif flavor == "mariadb":
    want_logs, exts = ["ddl_recovery.log", "ib_logfile0"], {".ibd": 4 * 16384, ".frm": 1045}
else:
    want_logs, exts = ["wal"], {}
if logs != want_logs:
    err.append(f"logs {logs}, want {want_logs}")
if any(f.startswith("#sql") for f in files):
    err.append(f"ALTER leftovers: {files}")
if flavor == "postgres":
    # live relations, plus one truncated tombstone per drop and per ALTER (no checkpoint ran)
    tombs = ph["drop"]["ops"] + ph["rename"]["ops"]
    # two relations per table: the heap (empty) and its primary key (the 8 kB metapage)
    if len(files) != 2 * (live + tombs): err.append(f"{len(files)} files, want 2 x ({live} live + {tombs} tombstones)")
    # (an ALTER's copy and a truncated tombstone are empty)
    if sum(1 for v in sizes.values() if v == 8192) > live or any(v not in (0, 8192) for v in sizes.values()):
        err.append(f"postgres relation sizes {sorted(sizes.values())}: want at most {live} index metapages of 8192, the rest empty")
else:
    for ext, size in exts.items():
        got = [f for f in files if f.endswith(ext)]
        if len(got) != live: err.append(f"{len(got)} {ext} files, want {live}")
        if any(sizes[f] != size for f in got): err.append(f"{ext} sizes {set(sizes[f] for f in got)}, want {size}")
    if len(files) != live * len(exts): err.append(f"unexpected files: {files}")
print(flavor, "live tables", live, "files", len(files), "logs", logs)
if err:
    print("\n".join(err)); sys.exit(1)
PY
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
