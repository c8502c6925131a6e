#!/bin/bash
# Description: txn background_log_share (InnoDB's redo logged once a second, MariaDB 10.11 under strace)
# Timeout: 120
# In full: txn background_log_share (InnoDB's redo logged once a second, MariaDB 10.11 under strace):
# that part of txn_log_bytes is appended once a second in one batch and written by the next commit's
# log write, not at each commit; strace (pwrite64 of ib_logfile0, the new bytes each write adds):
# about one burst a second, carrying the share of the new bytes; the log's new bytes a commit are
# txn_log_bytes either way; 0 makes no bursts
. "$(dirname "$0")/lib.sh"
E=$B/txn.so
command -v strace >/dev/null || fail "strace is not installed (tools/deps installs it)"
# the oracle: the log's writes as the kernel saw them (strace -f -ttt), each
# write's new bytes being how far it moves the end of what was written
run() {	# run NAME SHARE: a load run creates the log, the traced 6 s run follows
	local n=$1 share=$2
	mkdir -p "$TMP/$n"
	set -- --name="$n" --ioengine="external:$E" --calibration=none --directory="$TMP/$n" --rw=write --flavor=mariadb \
		--txn_profile=oltp_read_write --table_size=2000 --txn_log_bytes=2000 --rtt=50us \
		--background_log_share="$share" --time_based
	"$FIO" "$@" --runtime=1 >"$TMP/$n.load" 2>&1 || { cat "$TMP/$n.load"; fail "$n: the load run failed"; }
	strace -f -qq -ttt -y -e trace=pwrite64 -o "$TMP/$n.strace" "$FIO" "$@" --runtime=6 \
		--output-format=json --output="$TMP/$n.json" 2>"$TMP/$n.err" || { cat "$TMP/$n.err"; fail "$n: fio failed"; }
	commits=$(json "$TMP/$n.json" "d['jobs'][0]['write']['total_ios']")
	read -r bursts bshare gap writes new < <(py txn-log-bursts "$TMP/$n.strace" ib_logfile0 65536 |
		sed 's/[a-z]*=//g')
	echo "$n: $commits commits, $writes log writes, $new new bytes; bursts (>= 64 KiB new): $bursts, $bshare of the new bytes, median gap $gap s"
	awk -v n="$new" -v c="$commits" 'BEGIN { x = n / c; printf "new log bytes a commit: %.0f\n", x; exit !(x > 1800 && x < 2200) }' ||
		fail "$n: the log's new bytes a commit are not txn_log_bytes=2000 (within 10 %)"
}

run share50 50
# one batch a second and one at the end (the last second's); its bytes are
# half of what each commit logged
[ "$bursts" -ge 5 ] && [ "$bursts" -le 8 ] || fail "share50: $bursts bursts in a 6 s run, expected about one a second (5..8)"
awk -v s="$bshare" -v g="$gap" 'BEGIN { exit !(s > 0.4 && s < 0.55 && g > 0.8 && g < 1.2) }' ||
	fail "share50: the bursts carry $bshare of the new bytes, $gap s apart (expected 0.40..0.55, 0.8..1.2 s)"
grep -q "bg_batches=[1-9]" "$TMP/share50.err" || { cat "$TMP/share50.err"; fail "share50: no bg_batches in the summary"; }
ok "background_log_share=50: $bursts bursts, $bshare of the log's new bytes, $gap s apart; the commits the rest"

run share0 0
[ "$bursts" = 0 ] || fail "share0: $bursts bursts of >= 64 KiB new bytes (background_log_share=0: each commit writes its own)"
ok "background_log_share=0: no bursts, every commit writes its own bytes"
