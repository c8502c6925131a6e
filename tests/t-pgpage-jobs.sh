#!/bin/bash
# Description: pgpage example jobs (2 s each) under strace: fio's page counts are the job thread's page-sized preads/pwrites on relation files, the shutdown checkpoint fsyncs exactly the segments written; pgpage + redolog flavor=postgres as two jobs: WAL flushes are fdatasyncs of WAL segments
# Timeout: 120
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed"
cd "$REPO" || fail "cd $REPO"
export RUNTIME=2
# traced NAME JOBFILE: fio under strace (the file calls, with their paths)
traced() {
	export DIR=$TMP/$1
	mkdir -p "$DIR"
	# -ff: one file per thread, no call split by another thread's
	strace -f -ff -y -qq -e trace=pread64,pwrite64,fsync,fdatasync,clone,clone3 -o "$TMP/$1.st" \
		"$FIO" --output-format=json --output="$TMP/$1.json" "$2" 2>"$TMP/$1.err" ||
		{ cat "$TMP/$1.err"; fail "$2 failed"; }
	[ "$(json "$TMP/$1.json" "d['jobs'][0]['error']")" = 0 ] || fail "$2: fio error"
}
# pages NAME JOB BS: strace's view of the data job against fio's JSON
pages() {
	python3 - "$TMP/$1.st" "$TMP/$1.json" "$2" "$3" "$TMP/$1/" <<'PY' || fail "$1: strace and fio disagree"
import glob, json, re, sys
st, js, job, bs, d = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
fj = {j["jobname"]: j for j in json.load(open(js))["jobs"]}[job]
call = re.compile(r"^(\w+)\(\d+<" + re.escape(d) + r"([1-9]\d{0,9}(?:\.\d+)?)>(.*)$")  # relfilenode[.seg]
size = re.compile(r", (\d+), (\d+)\) += ")
clone = re.compile(r"^clone3?\(.*\) += (\d+)$")
ev, children = [], {}
for path in glob.glob(st + ".*"):
    tid = path.rsplit(".", 1)[1]
    for line in open(path):
        m = call.match(line)
        if m:
            sz = size.search(m.group(3))
            ev.append((tid, m.group(1), m.group(2)) + (sz.groups() if sz else (None, None)))
        m = clone.match(line)
        if m:
            children.setdefault(tid, set()).add(m.group(1))
# the checkpointer: the thread a thread doing page I/O started (fio starts the jobs)
ckpt = set().union(*[children.get(t, set()) for t in {e[0] for e in ev}])
reads = writes = 0
written, fsynced = set(), []
for tid, c, f, n, o in ev:
    if c == "fsync":
        fsynced.append(f)
    elif tid not in ckpt:
        assert int(n) == bs and int(o) % bs == 0, f"job {c} of {n} bytes at {o} in {f}: not one page"
        if c == "pwrite64":
            writes += 1
            written.add(f)
        else:
            reads += 1
print(f"{job}: strace {writes} page writes, {reads} page reads of the job, fsyncs {sorted(fsynced)}; "
      f"fio {fj['write']['total_ios']} writes, {fj['read']['total_ios']} reads")
assert writes == fj["write"]["total_ios"] and reads == fj["read"]["total_ios"], "page counts differ"
# runtime 2 s < checkpoint_timeout: only the shutdown checkpoint, one fsync per written segment
assert sorted(fsynced) == sorted(written), f"fsynced {sorted(fsynced)}, written {sorted(written)}"
PY
}
traced oltp jobs/pgpage-oltp.fio
pages oltp pgdata 8192
ok "jobs/pgpage-oltp.fio: $(json "$TMP/oltp.json" "int(d['jobs'][0]['write']['iops'])") page writes/s, page I/O and checkpoint fsyncs as strace saw them"
traced innodb jobs/pgpage-innodb.fio
pages innodb ibdata 16384
ok "jobs/pgpage-innodb.fio: 16k pages, page I/O and checkpoint fsyncs as strace saw them"

[ -f "$B/redolog.so" ] || fail "build/redolog.so not built"
traced pair jobs/pgpage-with-redolog.fio
pages pair pgdata 8192
python3 - "$TMP/pair.st" "$TMP/pair.json" "$TMP/pair/" <<'PY' || fail "pairing: the WAL job's flushes are not what strace saw"
import glob, json, re, sys
st, js, d = sys.argv[1], sys.argv[2], sys.argv[3]
jobs = {j["jobname"]: j for j in json.load(open(js))["jobs"]}
assert set(jobs) == {"pgdata", "pgwal"}, jobs.keys()
assert all(j["error"] == 0 for j in jobs.values())
wal = re.compile(r"^(\w+)\(\d+<" + re.escape(d) + r"[0-9A-F]{24}>")
prev, flushes, writes = None, 0, 0
lines = [l for p in glob.glob(st + ".*") for l in open(p)]   # the WAL job is one thread
for line in lines:
    m = wal.match(line)
    if not m:
        continue
    c = m.group(1)
    if c == "fdatasync" and prev != "fdatasync":    # a commit group's flush (maybe two segments)
        flushes += 1
    writes += c == "pwrite64"
    prev = c
n = jobs["pgwal"]["sync"]["lat_ns"]["N"]
print(f"pgwal: strace {flushes} WAL flushes, {writes} WAL writes; fio {n} sync samples, "
      f"{jobs['pgwal']['write']['total_ios']} commits")
assert flushes > 0 and flushes == n, "WAL flushes differ"
assert jobs["pgdata"]["write"]["total_ios"] > 0
PY
ok "pgpage + redolog flavor=postgres ran together, each one's I/O as strace saw it"
