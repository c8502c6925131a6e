#!/bin/bash
# Description: the "# Run:" command in a job file's header runs verbatim under plain fio from another directory
# Timeout: 420
# In full: the "# Run:" command in a job file's header runs verbatim under plain fio from another
# directory, with the engines from build/ and after make install; sidecars land in that directory,
# never in /
. "$(dirname "$0")/lib.sh"
cd "$REPO" || fail "no repo"
# Every seed job and pgpage job carries a Run line (others: when they have one).
for j in jobs/seed00[0-3]-*.fio jobs/pgpage-*.fio; do
	grep -q '^# Run: ' "$j" || fail "$j has no '# Run:' command in its header"
done
# ${SWEEP_POINT_DIR} is tools/sweep's alone: under plain fio it is empty and ${SWEEP_POINT_DIR}/x is /x
bad=$(grep -l '^[^#;]*\${SWEEP_POINT_DIR}' jobs/*.fio)
[ -z "$bad" ] || fail "job files writing under \${SWEEP_POINT_DIR} (/ under plain fio): $bad"
# The install step the header's default points at, into a staging directory.
make -s install DESTDIR="$TMP/dest" >"$TMP/install.log" 2>&1 || { cat "$TMP/install.log"; fail "make install failed"; }
inst=$(dirname "$(find "$TMP/dest" -name metastorm.so | head -1)")
[ -f "$inst/metastorm.so" ] || fail "make install put no metastorm.so under $TMP/dest"
# Sidecars a job writes by a relative name: they must not appear in /.
before=$(ls / | sort)
n=0 jobs_run=0 lib_i=0
inst_run=() units=()
todo=()
# wait_unit: a job file's runs done (whichever ends first); its lines shown, its failure the test's
wait_unit() {
	local p rc=0 i u
	wait -n -p p "${units[@]%%:*}" || rc=$?
	for i in "${!units[@]}"; do
		[ "${units[i]%%:*}" = "$p" ] || continue
		u=${units[i]#*:}
		unset "units[i]"
		units=("${units[@]}")
		[ $rc = 0 ] || { cat "$u"; fail "see above"; }
		cat "$u"
		return
	done
	fail "wait -n returned pid '$p', not one of the job files' runs"
}
# the longest first (seed 003: a snapshot schedule on RBD), so the two lanes end together
for j in jobs/seed003-*.fio $(ls jobs/*.fio | grep -v "^jobs/seed003-"); do
	cmd=$(sed -n 's/^# Run: //p' "$j" | head -1)
	[ -n "$cmd" ] || continue
	# job files still naming engines as external:build/x.so (run from the repository root only)
	# are not yet converted: listed, not run (the seed jobs must be converted)
	if grep -q 'external:build/' "$j"; then
		case $j in jobs/seed00[0-3]-* | jobs/pgpage-*) fail "$j still names an engine by a relative path" ;; esac
		todo+=("$(basename "$j")")
		continue
	fi
	# every ${VAR} of the job file is set on the command line (fio leaves an unset one empty)
	for v in $(grep -v '^[[:space:]]*[#;]' "$j" | grep -o '\${[A-Za-z_][A-Za-z0-9_]*}' | tr -d '${}' | sort -u); do
		[[ " $cmd " == *" $v="* ]] || fail "$j: the Run command does not set \${$v}"
	done
	# only changes: the job file's path (from the repository to its absolute path),
	# and RUNTIME shortened through the same environment variable
	run=${cmd//jobs\//$REPO/jobs/}
	run=$(sed -E 's/(^| )RUNTIME=[0-9]+/\1RUNTIME=2/' <<<"$run")
	# seed 003 (rbdsnap on an RBD image): the cluster, a test image, and the schedule
	# shortened through the environment variables the Run line reads (VAR=${VAR:-default})
	envs=()
	if grep -q 'rbdsnap\.so' "$j"; then
		[ -n "${CEPH_CONF:-}" ] || need_cluster
		have_backend RBD || fail "$j: configure found no librbd"
		rbd_image "jobs-header-$jobs_run" 32M	# an image for each job file: they run side by side
		envs=(IMAGE="jobs-header-$jobs_run" SNAPS=1 BASELINE=1 SNAP_INTERVAL=1 HOLD=1 AFTER=1 RUNTIME=4)
		grep -q 'IMAGE=\${IMAGE:-' <<<"$cmd" || fail "$j: the Run line does not take IMAGE from the environment"
	fi
	# from build/ every job; the installed engines each once (the first job using it)
	libs=("$B")
	for so in $(grep -o '[a-z]*\.so' "$j" | sort -u); do
		[[ " ${inst_run[*]} " = *" $so "* ]] && continue
		inst_run+=("$so")
		libs=("$B" "$inst")
	done
	jobs_run=$((jobs_run + 1))
	# each job file's runs in a subshell of its own, two job files at a time
	u=$TMP/unit-$jobs_run.log
	(
	t0=$SECONDS
	for lib in "${libs[@]}"; do
		d=$TMP/run-$n-$lib_i
		lib_i=$((lib_i + 1))
		mkdir -p "$d"
		( cd "$d" && env "${envs[@]}" DBFIO_LIB=$lib FIO=$FIO bash -c "${run/ fio / \$FIO --output-format=json --output=out.json }" ) >"$d/log" 2>&1 ||
			{ cat "$d/log"; fail "$j: '$cmd' failed from $d (DBFIO_LIB=$lib)"; }
		err=$(json "$d/out.json" "sum(j['error'] for j in d['jobs'])") || fail "$j: no JSON from fio"
		[ "$err" = 0 ] || fail "$j: a job reported error $err"
		# the sidecars the job file names relatively are in the working directory
		for s in $(grep -oE '^(table_json|lat_json|snap_json|checkpoint_log)=[^[:space:];]+' "$j" | cut -d= -f2); do
			[ -s "$d/$s" ] || fail "$j: sidecar $s is not in the working directory $d"
		done
		# the seed 003 schedule ran as the environment set it: one snapshot taken
		if grep -q '^snap_json=' "$j"; then
			[ "$(json "$d/snaps.json" "d['snapshots_taken']")" = 1 ] || fail "$j: SNAPS=1 from the environment took no snapshot"
		fi
	done
	ok "$(basename "$j"): Run command passes from another directory (${#libs[@]} run(s): build/$([ ${#libs[@]} = 2 ] && echo " and installed engines"), $((SECONDS - t0)) s)"
	) >"$u" 2>&1 &
	units+=("$!:$u")
	n=$((n + ${#libs[@]}))
	[ ${#units[@]} -ge 2 ] && wait_unit
done
while [ ${#units[@]} -gt 0 ]; do wait_unit; done
[ "$jobs_run" -ge 7 ] || fail "only $jobs_run job files have a Run command"
[ ${#inst_run[@]} -ge 5 ] || fail "the Run commands ran only ${inst_run[*]} installed"
[ ${#todo[@]} = 0 ] || echo "note: not yet runnable from another directory (external:build/): ${todo[*]}"
after=$(ls / | sort)
[ "$before" = "$after" ] || fail "files appeared in /: $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')"
ok "$jobs_run Run commands ($n runs: the installed ${inst_run[*]} each once), nothing written to /"
