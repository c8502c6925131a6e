#!/bin/bash
# Description: seed 002's option variants change one GlusterFS option each, seen in the client volfile, and reset it
# Timeout: 300
# In full: seed002.py's variants gluster-iothreads, gluster-nowb and gluster-readahead each run
# their measurements with exactly one client translator changed from the "gluster" variant's graph
# (io-threads added, write-behind removed, read-ahead added), and the graph is back to the
# baseline after each. The oracle is the client volfile glusterd generates
# (lib/vols/dbfio/trusted-dbfio.tcp-fuse.vol), read when each measurement starts.
. "$(dirname "$0")/lib.sh"
gluster_up
vol=$DBFIO_GLUSTER_DIR/lib/vols/dbfio/trusted-dbfio.tcp-fuse.vol
[ -f "$vol" ] || fail "no client volfile at $vol"
VOLFILE=$vol
export VOLFILE MNT REPO
python3 - "$TMP" >"$TMP/py.out" 2>&1 <<'PY'
import argparse, os, re, sys
sys.path.insert(0, os.path.join(os.environ["REPO"], "lab", "experiment.d"))
import common, seed002
tmp = sys.argv[1]


def graph():
    """the client translators' types, from the volfile glusterd wrote"""
    with open(os.environ["VOLFILE"]) as fi:
        return set(re.findall(r"type (performance/[\w-]+)", fi.read()))


seen = []


class Ctx(common.Ctx):
    def sweep(self, job, matrix, env, name, metrics=None, show=True, extra=()):
        seen.append((name, graph()))
        os.makedirs(os.path.join(self.runs, name), exist_ok=True)
        return os.path.join(self.runs, name)


seed002.drop_caches = lambda ctx: True   # the page cache is not what this test checks
ctx = Ctx(argparse.Namespace(out=os.path.join(tmp, "out"), short=True, repeats=1), "seed002")
d = os.path.join(os.environ["MNT"], "data")
os.makedirs(d, exist_ok=True)
base = graph()
want = {"gluster-iothreads": ("performance/io-threads", True), "gluster-nowb": ("performance/write-behind", False),
        "gluster-readahead": ("performance/read-ahead", True)}
assert set(want) == set(seed002.OPTION_VARIANTS), seed002.OPTION_VARIANTS
assert "performance/write-behind" in base and not base & {"performance/io-threads", "performance/read-ahead"}, base
for v, (xl, on) in want.items():
    seen.clear()
    seed002.one(ctx, 0, v, "off", d, d, 10, "1m", "1m")
    # one sweep, the export: the data file is laid out once a run, and the schema pass,
    # which no claim reads on an option variant, is not run there
    assert [n for n, _ in seen] == [f"{v}/export/r1"], (v, seen)
    diff = seen[0][1] ^ base
    assert diff == {xl} and (xl in seen[0][1]) == on, f"{v}: measured with {sorted(seen[0][1])}, baseline {sorted(base)}"
    assert graph() == base, f"{v}: not reset: {sorted(graph())}"
    print(f"{v}: {'+' if on else '-'}{xl} while measured, baseline after")
assert not ctx.notes, ctx.notes
PY
rc=$?
cat "$TMP/py.out"
[ $rc -eq 0 ] || fail "an option variant did not change exactly its translator, or did not reset it"
ok "each option variant measured with its one translator changed in the client volfile, reset after"
