# shellcheck shell=bash
# tests/lib-install.sh - what t-install and t-deb check of an installed dbfio
# (sourced after lib.sh).

# installed_job_runs ENGDIR JOBFILE: run the installed job file from a scratch
# directory with only its own variables (DIR=., RUNTIME=2). The oracles: strace
# sees fio open the engines and libdbfio.so from ENGDIR and nothing of this
# tree's build/; the job's files are on disk (ls); fio's JSON has I/O in every
# job and no error.
installed_job_runs() {
	local engdir=$1 job=$2 x=$TMP/scratch.$RANDOM opened
	mkdir -p "$x"
	(cd "$x" && DIR=. RUNTIME=2 strace -f -qq -e trace=openat -o "$TMP/job.strace" \
		"$FIO" --output-format=json --output="$TMP/job.json" "$job" 2>"$TMP/job.err") ||
		fail "$job from $x: fio exit $?: $(tail -3 "$TMP/job.err")"
	opened=$(grep -v ENOENT "$TMP/job.strace" | grep -o '"[^"]*\.so[^"]*"' | tr -d '"' | sort -u)
	for so in libdbfio.so pgpage.so redolog.so; do
		grep -qx "$engdir/$so" <<<"$opened" ||
			fail "fio did not load $engdir/$so (opened: $(grep -i dbfio <<<"$opened" | tr '\n' ' '))"
	done
	! grep -F "$REPO/" <<<"$opened" || fail "the installed job loaded the tree's build"
	# PostgreSQL's names: WAL segments and relation files, read back by ls
	ls "$x" | grep -qE '^[0-9A-F]{24}$' || fail "no WAL segment in $x: $(ls "$x" | head)"
	ls "$x" | grep -qE '^[0-9]+(\.[0-9]+)?$' || fail "no relation file in $x: $(ls "$x" | head)"
	[ "$(json "$TMP/job.json" 'len(d["jobs"])')" = 2 ] || fail "not two jobs in fio's JSON"
	json "$TMP/job.json" 'all(j["error"] == 0 and j["write"]["total_ios"] > 0 for j in d["jobs"])' |
		grep -qx True || fail "a job of $job did no writes or ended in error"
	rm -rf "$x"
}

# pages_match_enghelp ENGDIR MAN7DIR: every engine's page names every option
# fio --enghelp lists (the oracle: fio's own printer of the option table), with
# its default, its range (fio prints max as a 32-bit %d) and its choices.
pages_match_enghelp() {
	local engdir=$1 man7=$2 so e page txt o h def lo hi v n=0 bad=0
	for so in "$engdir"/*.so; do
		e=$(basename "$so" .so)
		[ "$e" = libdbfio ] && continue
		page=$man7/dbfio-$e.7
		[ -f "$page" ] || page=$page.gz		# as a package installs it
		[ -f "$page" ] || fail "no man page $man7/dbfio-$e.7 for $so"
		txt=$(LC_ALL=C MANWIDTH=250 man -l "$page" 2>/dev/null)
		# (a long path in $TMP may not fit a line: not the page's fault)
		h=$(LC_ALL=C MANWIDTH=80 man --warnings -E ascii -l "$page" 2>&1 >/dev/null |
			grep -vE "cannot adjust line|can't break line")
		[ -z "$h" ] || fail "$page: troff warnings: $h"
		for o in $("$FIO" --enghelp="$so" | sed -n 's/^\([a-z_0-9]*\) *: .*/\1/p'); do
			n=$((n + 1))
			# the entry: from the option's own line to the next option's
			ent=$(awk -v o="$o" '$0 ~ "^       [a-z]" { on = ($1 == o) } on' <<<"$txt")
			[ -n "$ent" ] || { echo "FAIL: $e: option $o is not in $page"; bad=1; continue; }
			h=$("$FIO" --enghelp="$so,$o")
			def=$(sed -n 's/^ *default: //p' <<<"$h")
			[ "$def" = "no default" ] && def=none
			[ -z "$def" ] || grep -qF "Default: $def." <<<"$ent" ||
				{ echo "FAIL: $e: $o: --enghelp default '$def', the page: $(grep Default <<<"$ent")"; bad=1; }
			read -r lo hi < <(sed -n 's/^ *range: min=\(-*[0-9]*\), max=\(-*[0-9]*\)/\1 \2/p' <<<"$h")
			if [ -n "$lo" ] && [ "$hi" != 0 ]; then
				v=$(sed -n 's/.*Range: -*[0-9]* to \([0-9]*\)\..*/\1/p' <<<"$ent")
				v=${v:-x}
				[ "$v" != x ] && v=$(( (v & 0xffffffff) >= 2147483648 ? (v & 0xffffffff) - 4294967296 : (v & 0xffffffff) ))
				grep -qF "Range: $lo to" <<<"$ent" && [ "$v" = "$hi" ] ||
					{ echo "FAIL: $e: $o: --enghelp range $lo..$hi, the page: $(grep Range <<<"$ent")"; bad=1; }
			fi
			for v in $(sed -n 's/^ *\(valid values\)*: \([^ ]*\).*/\2/p' <<<"$h"); do
				grep -qE "^ +$v( |\$)" <<<"$ent" ||
					{ echo "FAIL: $e: $o: choice $v is not on the page"; bad=1; }
			done
		done
	done
	[ $bad = 0 ] || fail "the man pages differ from fio --enghelp (above)"
	[ $n -ge 50 ] || fail "only $n options listed by fio --enghelp: is $engdir complete?"
	PAGES_OPTIONS=$n
}
