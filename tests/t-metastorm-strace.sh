#!/bin/bash
# Description: metastorm: its per-syscall counts, per phase (DDL type, setup, alter_copy, checkpoint, cleanup) and in all, equal what strace sees under the test directory, every flavor
# Timeout: 120
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed"
[ -f "$B/metastorm.so" ] || fail "build/metastorm.so is missing (run make)"
TRACE=access,faccessat,faccessat2,openat,open,close,fsync,fdatasync,pwrite64,pread64,unlinkat,unlink,renameat,renameat2,rename,mkdirat,mkdir,newfstatat,fstat,ftruncate,rmdir,lseek,fallocate
for flavor in mysql mariadb postgres; do
	d=$TMP/$flavor
	mkdir -p "$d"
	# the store marks each change of phase with access("/dbfio-phase/<name>"):
	# strace's own lines say which phase every call was made in
	DBFIO_STORE_PHASE_MARK=1 strace -f -y -qq -o "$TMP/$flavor.strace" -e trace=$TRACE \
		"$FIO" --output-format=json --output="$TMP/$flavor.json" --name="ms-$flavor" \
		--ioengine="external:$B/metastorm.so" --directory="$d" --flavor=$flavor \
		--number_ios=120 --tables=8 --checkpoint_ops=16 \
		--ddl_mix=create:40,drop:20,open:20,rename:20 \
		--table_json="$TMP/$flavor.tbl.json" 2>"$TMP/$flavor.err" ||
		{ cat "$TMP/$flavor.err"; fail "$flavor: fio failed under strace"; }
	[ "$(json "$TMP/$flavor.json" "d['jobs'][0]['error']")" = 0 ] || fail "$flavor: fio reported an error"
	# the engine's calls are the traced lines naming its files (fio's own do not)
	python3 - "$TMP/$flavor.strace" "$TMP/$flavor.tbl.json" "$flavor" <<'PY' || fail "$flavor: counts (per phase or in all) differ from strace"
import json, re, sys
names = {"openat": "open", "open": "open", "close": "close", "fsync": "fsync",
         "fdatasync": "fdatasync", "pwrite64": "write", "pread64": "read",
         "unlinkat": "unlink", "unlink": "unlink", "renameat": "rename",
         "renameat2": "rename", "rename": "rename", "mkdirat": "mkdir", "mkdir": "mkdir",
         "newfstatat": "fstat", "fstat": "fstat", "ftruncate": "truncate", "rmdir": "rmdir",
         "lseek": "lseek_end", "fallocate": "fallocate"}
seen = {v: 0 for v in names.values()}
phase, per = {}, {}         # tid -> current phase; phase -> call -> count
for line in open(sys.argv[1]):
    m = re.match(r"^(\d+)\s+(\w+)\(", line)
    if not m:
        continue
    mark = re.search(r'"/dbfio-phase/(\w+)"', line)
    if mark:
        phase[m.group(1)] = mark.group(1)
        continue
    if "dbfio_ms_" not in line or m.group(2) not in names:
        continue
    call = names[m.group(2)]
    if m.group(2) == "unlinkat" and "AT_REMOVEDIR" in line:
        call = "rmdir"
    seen[call] += 1
    p = phase.get(m.group(1), "(none)")
    per.setdefault(p, {v: 0 for v in names.values()})[call] += 1
tbl = json.load(open(sys.argv[2]))
want = tbl["all"]["counts"]
bad = [f"{k}: engine {want.get(k)} strace {v}" for k, v in seen.items() if want.get(k, 0) != v]
bad += [f"{k}: engine {v} strace 0" for k, v in want.items() if k not in seen and v]
print(sys.argv[3], "engine:", want)
print(sys.argv[3], "strace:", seen)
# per phase: every call the engine charged to a phase, strace saw in that phase
bad += [f"strace saw calls outside any phase: {per['(none)']}"] if "(none)" in per else []
for p, ph in tbl["phases"].items():
    got = per.get(p, {})
    diff = {k: (v, got.get(k, 0)) for k, v in ph["counts"].items() if got.get(k, 0) != v}
    diff.update({k: (0, v) for k, v in got.items() if v and k not in ph["counts"]})
    nz = " ".join(f"{k}={v}" for k, v in ph["counts"].items() if v)
    print(f"{sys.argv[3]} phase {p:10s} ops={ph['ops']:3d} engine=strace: {nz}" if not diff else
          f"{sys.argv[3]} phase {p:10s} DIFFERS (engine, strace): {diff}")
    if diff:
        bad.append(f"phase {p}: {diff}")
bad += [f"phase {p}: strace saw calls, engine has no such phase" for p in per
        if p not in tbl["phases"] and p != "(none)"]
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
	# directory fsyncs: the engine may not count what it skipped, so the number
	# is the recipe's (docs/metastorm.md): MySQL and MariaDB sync the schema
	# directory once per CREATE and once per ALTER's rename (at least: the set-up
	# creates tables too); PostgreSQL never
	python3 - "$TMP/$flavor.strace" "$TMP/$flavor.tbl.json" "$flavor" <<'PY' || fail "$flavor: directory fsyncs differ from the recipe"
import json, re, sys
n = sum(1 for l in open(sys.argv[1]) if re.match(r"^\d+\s+f(data)?sync\(\d+<[^>]*/dbfio_ms_[^>]*/db>\)\s+=\s+0", l))
ph = json.load(open(sys.argv[2]))["phases"]
want = 0 if sys.argv[3] == "postgres" else ph["create"]["ops"] + ph["rename"]["ops"]
print(sys.argv[3], "directory fsyncs: strace", n, "recipe", want)
sys.exit(n < want or (want == 0 and n))
PY
	ops=$(json "$TMP/$flavor.tbl.json" "' '.join(f'{k}={v[\"ops\"]}' for k, v in d['phases'].items() if v['ops'])")
	ok "$flavor: every call matches strace ($ops)"
	[ -z "$(ls -A "$d")" ] || fail "$flavor: the directory is not empty after the run: $(ls -A "$d")"
done
