#!/bin/bash
# Description: seed 000's "Create table + N recs" time = CREATE + single-row INSERTs + the final flush and checkpoint
# In full: seed 000's "Create table + N recs" time = the CREATE + the single-row INSERTs of the txn
# engine (x10 for the 100K stage's tenth) + the final page flush with its shutdown checkpoint: a
# hand-made run folder and a real local run of jobs/seed000-records.fio, its fio JSON, ckpt-N.log and
# txn lines parsed by the test; the run's stages on one CPU, the kernel's Cpus_allowed_list of fio's
# threads read while it runs (the job and its client thread at least)
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no repo"
export DBFIO_EXP_LOCAL=$TMP/local
py seed000-records "$TMP" || fail "the records stage time is not create + inserts (scaled) + pages + shutdown checkpoint"
ok "rec-N = create + inserts x (N / rows run) + pages + shutdown checkpoint, fixture and a real local run on one CPU"
