#!/bin/bash
# Description: a CPU working set shared by a database's connections is only read by their work; a private one is written
# Tier: quick
# In full: tests/unit/dbtime_ws_test: two accounts burn 5 ms each over one shared set, a third over
# its own; the oracle is the sets' bytes against copies taken before (the shared set unchanged,
# the private one changed). A write a step into a shared set made two cores take every line from
# each other: the model's CPU a transaction at 4 MariaDB connections doubled.
. "$(dirname "$0")/lib.sh"
unit_test dbtime_ws_test
