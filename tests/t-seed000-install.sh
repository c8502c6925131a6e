#!/bin/bash
# Description: seed 000's "Mysql install db" time includes the tablespace's shutdown checkpoint
# In full: seed 000's "Mysql install db" time includes the tablespace's shutdown checkpoint (pgpage
# writes and fsyncs it after fio stops the job's clock): a hand-made run folder and a real local run
# of jobs/seed000-install-db.fio, its install-ckpt.log parsed by the test
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no repo"
export DBFIO_EXP_LOCAL=$TMP/local
py seed000-install "$TMP" || fail "the install-db time leaves out the shutdown checkpoint"
ok "install-db time = max(tables, redo, pages + shutdown checkpoint), fixture and a real local run"
