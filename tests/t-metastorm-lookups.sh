#!/bin/bash
# Description: metastorm: PostgreSQL 15 and MariaDB 10.11 CREATE/DROP TABLE name lookups (strace); no foreign name changed
# Tier: quick
# Timeout: 120
# In full: under strace, each PostgreSQL CREATE TABLE with a primary key asks whether each new
# relation's path exists (access F_OK, ENOENT: 2), stats the database directory (2) and opens an
# absent fork of the heap (1, ENOENT) and opens the heap again (1); each DROP TABLE looks up the
# absent next segment and forks of heap and index (8, ENOENT), opens and closes the heap, and
# truncates heap and index by their names (truncate(2): 2, no descriptor, no ftruncate). Each
# MariaDB CREATE TABLE asks for its .frm twice (ENOENT) and stats the schema directory (1); each
# DROP asks for the .frm (there) and the .TRG (ENOENT). These are the counts of the real servers
# traced by lab/dbtrace (results/fidelity-mix.md; PostgreSQL's DROP: 10 truncate(2), 8 of them
# failing ENOENT). The directories on a name's way are asked whether a link once a run, not at every
# call (on ceph-fuse each ask is a round trip). A lookup follows no link and no fork, segment or
# .TRG name is ever written, truncated, unlinked or created.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed"
[ -f "$B/metastorm.so" ] || fail "build/metastorm.so is missing (run make)"
n=10
for db in postgres mariadb; do
	for sec in create drop; do
		mkdir -p "$TMP/$db-$sec"
		DBFIO_STORE_PHASE_MARK=1 DBFIO_LIB=$B DIR="$TMP/$db-$sec" N=$n TABLES=$n KEEP=0 \
			strace -ff -qq -o "$TMP/$db-$sec.strace" \
			-e trace=access,faccessat,faccessat2,newfstatat,openat,truncate,ftruncate,unlinkat,readlinkat,pwrite64 \
			"$FIO_BIN" --output-format=json --output="$TMP/$db-$sec.json" --section=$sec \
			"$REPO/jobs/fidelity-$db-ddl.fio" 2>"$TMP/$db-$sec.err" ||
			{ cat "$TMP/$db-$sec.err"; fail "$db $sec: fio failed"; }
		[ "$(json "$TMP/$db-$sec.json" "d['jobs'][0]['error']")" = 0 ] ||
			{ cat "$TMP/$db-$sec.err"; fail "$db $sec: fio error"; }
	done
done
# count TRACE PHASE REGEX: lines made in the phase that match (strace -ff: a file per
# thread, so no call is split by another thread's; the phase marks are the thread's own)
count() {
	local f n=0
	for f in "$TMP/$1.strace".*; do
		n=$((n + $(WANT=$2 RE=$3 awk '
			match($0, /"\/dbfio-phase\/[a-z_]+"/) { ph = substr($0, RSTART + 14, RLENGTH - 15); next }
			ph == ENVIRON["WANT"] && $0 ~ ENVIRON["RE"] { n++ }
			END { print n + 0 }' "$f")))
	done
	echo $n
}
REL='dbfio_ms_[0-9]+/db/[0-9]+'
acc=$(count postgres-create create "faccessat2?\\(.*\"$REL\", F_OK, AT_SYMLINK_NOFOLLOW\\) = -1 ENOENT")
dir=$(count postgres-create create "newfstatat\\(.*\"dbfio_ms_[0-9]+/db\", .*AT_SYMLINK_NOFOLLOW\\) = 0")
fork=$(count postgres-create create "openat\\(.*\"${REL}_fsm\", O_RDONLY.*= -1 ENOENT")
reopen=$(count postgres-create create "^openat\\(.*\"$REL\", O_RDWR\\|O_NOFOLLOW.*= [0-9]")
echo "per $n CREATE TABLE: access $acc, directory stat $dir, absent fork opened $fork, heap opened again $reopen"
[ "$acc" = $((2 * n)) ] || fail "CREATE: $acc access(F_OK) of new relation paths failing ENOENT in $n statements, not 2 each (PostgreSQL 15's)"
[ "$dir" = $((2 * n)) ] || fail "CREATE: $dir stats of the database directory in $n statements, not 2 each (PostgreSQL 15's)"
[ "$fork" = "$n" ] || fail "CREATE: $fork opens of an absent fork in $n statements, not 1 each"
[ "$reopen" = "$n" ] || fail "CREATE: $reopen opens of a made relation in $n statements, not 1 each (PostgreSQL 15 opens the heap again)"
probes=$(count postgres-drop drop "newfstatat\\(.*\"$REL(\\.1|_fsm|_vm|_init)\", .*AT_SYMLINK_NOFOLLOW\\) = -1 ENOENT")
echo "per $n DROP TABLE: absent segments and forks looked up $probes"
[ "$probes" = $((8 * n)) ] || fail "DROP: $probes lookups of absent segments and forks in $n statements, not 8 each (PostgreSQL 15's failing truncates)"
byname=$(count postgres-drop drop "^truncate\\(\"/proc/self/fd/[0-9]+/$REL\", 0\\) = 0")
byfd=$(count postgres-drop drop "^ftruncate\\(")
heap=$(count postgres-drop drop "^openat\\(.*\"$REL\", O_RDWR\\|")
echo "per $n DROP TABLE: truncated by name $byname, by descriptor $byfd, relations opened $heap"
[ "$byname" = $((2 * n)) ] || fail "DROP: $byname truncate(2) of heap and index by name in $n statements, not 2 each (PostgreSQL 15's)"
[ "$byfd" = 0 ] || fail "DROP: $byfd ftruncate(2) calls in $n statements: PostgreSQL 15 truncates by name only"
[ "$heap" = "$n" ] || fail "DROP: $heap opens of a relation in $n statements, not 1 each (PostgreSQL 15 opens the heap)"
ok "PostgreSQL CREATE: access 2, directory stat 2, an absent fork 1 a statement; DROP: 8 absent names, 2 truncates by name, the heap opened once a statement"
# the store's check that no directory on a name's way is a link asks each directory once, not at
# every call: on a FUSE file system (ceph-fuse) each ask is a round trip the database does not make
dirasks=$(count postgres-drop drop "^readlinkat\\(.*\"dbfio_ms_[0-9]+(/db)?\",")
lastasks=$(count postgres-drop drop "^readlinkat\\(.*\"$REL\",")
echo "per $n DROP TABLE: directories asked whether a link $dirasks, truncated names asked $lastasks"
[ "$dirasks" -le 2 ] || fail "DROP: the directories on the way were asked whether a link $dirasks times in $n statements: once each in a run, not at every call"
[ "$lastasks" = $((2 * n)) ] || fail "DROP: $lastasks truncated names asked whether a link in $n statements, not 2 each (one per truncate by name)"
FRM='dbfio_ms_[0-9]+/db/t[0-9]+'
macc=$(count mariadb-create create "faccessat2?\\(.*\"$FRM\\.frm\", F_OK, AT_SYMLINK_NOFOLLOW\\) = -1 ENOENT")
mdir=$(count mariadb-create create "newfstatat\\(.*\"dbfio_ms_[0-9]+/db\", .*AT_SYMLINK_NOFOLLOW\\) = 0")
mfrm=$(count mariadb-drop drop "faccessat2?\\(.*\"$FRM\\.frm\", F_OK, AT_SYMLINK_NOFOLLOW\\) = 0")
mtrg=$(count mariadb-drop drop "faccessat2?\\(.*\"$FRM\\.TRG\", F_OK, AT_SYMLINK_NOFOLLOW\\) = -1 ENOENT")
echo "MariaDB per $n CREATE: .frm asked for $macc, directory stat $mdir; per $n DROP: .frm there $mfrm, .TRG absent $mtrg"
[ "$macc" = $((2 * n)) ] || fail "MariaDB CREATE: $macc access(F_OK) of the new .frm failing ENOENT in $n statements, not 2 each (MariaDB 10.11's)"
[ "$mdir" = "$n" ] || fail "MariaDB CREATE: $mdir stats of the schema directory in $n statements, not 1 each (MariaDB 10.11's)"
[ "$mfrm" = "$n" ] && [ "$mtrg" = "$n" ] || fail "MariaDB DROP: .frm asked for $mfrm times, .TRG $mtrg times in $n statements, not once each (MariaDB 10.11's)"
ok "MariaDB CREATE: .frm asked for 2, directory stat 1 a statement; DROP: .frm and .TRG asked for once each"
# MariaDB reuses a ddl_recovery.log entry once its DDL is done: the traced server writes its 4 kB
# entries at 4096, 8192 and 12288 only, in place, so its fdatasyncs commit no metadata
# (its writes found by the log's descriptor from its openat: ib_logfile0's O_DIRECT writes are
# 4 kB too; the .frm is 1045 bytes, the .ibd fallocated)
top=$(for f in "$TMP"/mariadb-*.strace.*; do
	fd=$(sed -nE 's/^openat\(.*ddl_recovery\.log".*\) = ([0-9]+)$/\1/p' "$f" | tail -1)
	[ -n "$fd" ] && grep -hE "^pwrite64\($fd, .*, 4096, [0-9]+\) = 4096" "$f"
done | sed -E 's/.*, 4096, ([0-9]+)\) = 4096.*/\1/' | sort -n | tail -1)
echo "MariaDB ddl_recovery.log: highest 4 kB entry written at $top"
[ -n "$top" ] && [ "$top" -le 12288 ] || fail "MariaDB: a 4 kB ddl log entry written at offset ${top:-none}: the log grows past its first three entries, where MariaDB 10.11 reuses them"
ok "MariaDB: ddl_recovery.log entries rewritten in place (highest at $top)"
# no fork or segment name is ever changed: no truncate, no unlink, no open for writing or creating
bad=$(cat "$TMP"/*-create.strace.* "$TMP"/*-drop.strace.* | grep -E "\"($REL(\\.1|_fsm|_vm|_init)|$FRM\\.TRG)\"" |
	grep -vE "(newfstatat|faccessat2?)\\(.*AT_SYMLINK_NOFOLLOW|openat\\(.*O_RDONLY\\|O_NOFOLLOW" | head -3)
[ -z "$bad" ] || fail "a fork or segment name was acted on beyond a lookup: $bad"
ok "fork, segment and .TRG names only looked up (fstatat or faccessat AT_SYMLINK_NOFOLLOW, or opened O_RDONLY|O_NOFOLLOW)"
