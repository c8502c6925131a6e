#!/bin/bash
# Description: seed 003's baseline check counts the OSD history's slow ops before the first create, from outside the engine
# Tier: quick
# In full: seed 003's baseline check (lab/experiment.d/seed003.py s003_oracle, s003_check, s003_clean
# and the claim keys of seed003_measure) against a fake `ceph` whose `daemon osd.0
# dump_historic_slow_ops` answers a hand-written OSD history: records initiated before the run, in
# its baseline (t0 + 2.5 s, t0 + 7 s: before the create at 10.2 s), after the create (11 s, 13.5 s)
# and after the run's end give 2 baseline OSD slow ops, onset 0.8 s, 2 slow ops while held; the
# engine's own count in the sidecar (0) is not what is read. Seconds with no completion: 1 in the
# baseline (t=4), 1 after the create (t=12). A second run's baseline with no record is clean; a
# full history whose oldest record is newer than a run's start leaves that run unknown (None, not
# clean), and a failed read gives no figure. The same two runs as one-snapshot holds: slow ops 2
# and 0, an onset (0.8 s) only for the first (a hold with none has no onset).
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no repo"
bin=$TMP/bin
mkdir -p "$bin" "$TMP/run/SNAPS=3_REP=1" "$TMP/run/SNAPS=3_REP=2"
T0=1796443132.25   # the first run's start; the second starts 100 s later
iso() { date -u -d "@$(awk -v t="$T0" -v d="$1" 'BEGIN { printf "%.6f", t + d }')" +%Y-%m-%dT%H:%M:%S.%6N+0000; }

fake_ceph() { # FULL(0|1) RECORD-SECONDS...: a ceph whose OSD history has those records (from T0)
    local full=$1 ops="" d keep=500
    shift
    for d in "$@"; do
        ops+="${ops:+,}{\"description\": \"osd_op(client.9.0:1 1.6 write)\", \"initiated_at\": \"$(iso "$d")\"}"
    done
    [ "$full" = 1 ] && keep=$#
    printf '#!/bin/sh\ncase "$*" in\n"osd ls") echo 0 ;;\n"daemon osd.0 dump_historic_slow_ops") echo %s ;;\n*) exit 1 ;;\nesac\n' \
        "'{\"num to keep\": $keep, \"threshold to keep\": 1, \"ops\": [$ops]}'" >"$bin/ceph"
    chmod +x "$bin/ceph"
    rm -f "$TMP"/run/*/baseline-osd.json
}

check() { # FULL
    PATH=$bin:$PATH T0=$T0 TMP=$TMP FULL=$1 python3 - <<'PY'
import json, os, sys
sys.path.insert(0, "lab/experiment.d")
import seed003, seed003_measure

t0, run, full = float(os.environ["T0"]), os.path.join(os.environ["TMP"], "run"), os.environ["FULL"] == "1"


def sidecar(start, zero):
    """a run of 20 s: 20 completions a second but in the seconds zero, the create at 10.2 s, the
    removal at 15 s; the engine says it saw no OSD slow op (the check must not take that)"""
    ph = [{"name": n, "kind": n, "seconds": 5.0, "ios": 100, "iops": 20.0, "p50_us": 3e3, "p99_us": 9e4,
           "max_us": 2e5, "slow": 0, "osd_slow_ops": 0} for n in ("baseline", "creating snap1", "snap1")]
    return {"phases": ph, "seconds": 20.0, "osd_slow_ops": {"t0_unix": start, "t_end_unix": start + 20, "count": 0},
            "events": [{"t": 0.5, "op": "health"}, {"t": 10.2, "op": "create"}, {"t": 15.0, "op": "remove"}],
            "timeline": [{"t": t, "iops": 0 if t in zero else 20} for t in range(20)]}


for rep, (start, zero) in {1: (t0, (4, 12)), 2: (t0 + 100, ())}.items():
    with open(os.path.join(run, f"SNAPS=3_REP={rep}", "snaps.json"), "w") as fo:
        json.dump(sidecar(start, zero), fo)
seed003.s003_oracle({}, run, [{"SNAPS": 3, "REP": 1}, {"SNAPS": 3, "REP": 2}])
got = {r: seed003.s003_check(run, SNAPS=3, REP=r) for r in (1, 2)}
# the same two runs as the onset holds (SNAPS=1): the first with slow ops, the second none
hold = os.path.join(os.environ["TMP"], "hold")
for rep in (1, 2):
    os.makedirs(os.path.join(hold, f"SNAPS=1_REP={rep}"), exist_ok=True)
    os.replace(os.path.join(run, f"SNAPS=3_REP={rep}", "baseline-osd.json"),
               os.path.join(hold, f"SNAPS=1_REP={rep}", "baseline-osd.json"))
    with open(os.path.join(hold, f"SNAPS=1_REP={rep}", "snaps.json"), "w") as fo:
        json.dump(sidecar(*{1: (t0, (4, 12)), 2: (t0 + 100, ())}[rep]), fo)
seed003.s003_oracle({}, run, [{"SNAPS": 3, "REP": 1}, {"SNAPS": 3, "REP": 2}])
want = {1: {"osd": 2, "stalled": 1, "stalled_snap": 1, "onset_osd": 0.8, "osd_snap": 2},
        2: {"osd": 0, "stalled": 0, "stalled_snap": 0, "onset_osd": None, "osd_snap": 0}}
if full:   # the history's oldest record came after run 1's start: run 1's records may be gone
    want[1] = {**want[1], "osd": None, "onset_osd": None, "osd_snap": None}
bad = 0
for r in (1, 2):
    g = {k: (round(got[r][k], 3) if isinstance(got[r][k], float) else got[r][k]) for k in want[r]}
    print(f"run {r}: {g}; clean: {seed003.s003_clean(got[r])}")
    bad += g != want[r]
bad += (seed003.s003_clean(got[1]), seed003.s003_clean(got[2])) != (None if full else False, True)


class A:
    short, demo = True, False


class Ctx:
    a, reps, s003, m = A(), 2, {"seedlike": (run, {}, hold)}, {}

    def measure(self, key, r, v):
        self.m.setdefault(key, {})[r] = v


c = Ctx()
seed003_measure.measure(c)
print({k: v for k, v in c.m.items() if "stalled" in k or "baseline-osd" in k})
bad += c.m.get("rbd/baseline-osd-slow-ops-3") != {0: want[1]["osd"], 1: want[2]["osd"]}
bad += c.m.get("rbd/baseline-stalled-s-3") != {0: 1, 1: 0} or c.m.get("rbd/stalled-s-3") != {0: 1, 1: 0}
# the holds: slow ops counted in both, an onset only where one came (a hold without one is
# no onset, not "at least the time held")
print({k: v for k, v in c.m.items() if "hold1" in k})
if not full:
    bad += c.m.get("rbd/hold1-osd-slow-ops") != {0: 2, 1: 0}
    bad += {k: round(v, 3) for k, v in c.m.get("rbd/hold1-onset-s", {}).items()} != {0: 0.8}
sys.exit(bad)
PY
}

fake_ceph 0 -30 2.5 7 11 13.5 400
check 0 || fail "the baseline check does not count the OSD's own records, or a hold's slow ops and onset are wrong"
ok "2 OSD slow ops and 1 stalled second in the first baseline, none in the second"
fake_ceph 1 7 11 13.5 400
check 1 || fail "a full history newer than the run's start was taken as complete"
ok "a full history newer than a run's start: that baseline unknown, not clean"
# a failed read (no admin socket) writes nothing: no figure, and not a clean baseline
printf '#!/bin/sh\n[ "$*" = "osd ls" ] && echo 0 && exit 0\necho "admin_socket: exception" >&2\nexit 22\n' >"$bin/ceph"
rm -f "$TMP"/run/*/baseline-osd.json
PATH=$bin:$PATH python3 -c "
import sys; sys.path.insert(0, 'lab/experiment.d')
import seed003
seed003.s003_oracle({}, '$TMP/run', [{'SNAPS': 3, 'REP': 1}])
c = seed003.s003_check('$TMP/run', SNAPS=3, REP=1)
print('failed read:', c['osd'], seed003.s003_clean(c))
sys.exit(c['osd'] is not None or seed003.s003_clean(c) is not None)
" || fail "a failed read of the OSD's history gave a figure"
ok "a failed read: no figure, the baseline unknown"
