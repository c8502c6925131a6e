#!/bin/bash
# Description: fidelity: dbfio's calibrated jobs make the real database's syscall mix (within 10%) on an unseen workload
# Timeout: 300
# In full: fidelity: dbfio's calibrated jobs make the real database's syscall mix (strace, per call
# type and file role, within 10%) on an unseen workload
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "lab/fidelity needs root (lab/dbtrace)"
command -v strace >/dev/null || skip "strace is not installed"
for so in metastorm redolog pgpage txn; do
	[ -f "$B/$so.so" ] || fail "build/$so.so is missing (run make)"
done
if [ ! -x /usr/lib/postgresql/15/bin/postgres ] || ! command -v mariadbd >/dev/null; then
	"$REPO/tools/deps" --with fidelity >"$TMP/deps.log" 2>&1 || {
		cat "$TMP/deps.log"
		[ "${CI:-}" = true ] && fail "cannot install the databases (tools/deps --with fidelity)"
		skip "postgresql-15 / mariadb-server cannot be installed"
	}
fi
chmod 711 "$TMP"	# user postgres must reach the target
mkdir -p "$TMP/local"
# calibrated on 2 clients / 5 tables (docs/fidelity.md); checked on 4 clients / 12 tables
"$REPO/lab/fidelity" mix --dir "$TMP/local" --md "$TMP/mix.md" >"$TMP/mix.out" 2>&1
rc=$?
cat "$TMP/mix.out"
[ -z "$(ls -A "$TMP/local")" ] || fail "the target is not empty afterwards: $(ls -A "$TMP/local")"
[ $rc = 0 ] || fail "syscall mix off by more than 10% (rows marked FAIL above)"
n=$(grep -c '| ok |' "$TMP/mix.md")
[ "$n" -ge 20 ] || fail "only $n rows compared"
ok "$n (call type, role) rows within 10%; $(grep -c 'not modelled' "$TMP/mix.md") listed as not modelled"
