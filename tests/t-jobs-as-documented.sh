#!/bin/bash
# Description: every job file in jobs/ runs as its header's Run line says, verbatim from the repository root
# Timeout: 420
# In full: every job file in jobs/ has a "Run:" line in its header that sets every ${VAR} the job
# uses, names its engines external:${DBFIO_LIB}/x.so, and runs verbatim from the repository root
# under plain fio with nothing else in the environment: each of fio's jobs does I/O, none reports
# an error (fio's JSON). What the test changes, and only that: run-length variables are shortened
# (RUNTIME, N, DATA_IOS; seed 003's schedule and rbdsnap-churn's through the environment their
# Run lines read, VAR=${VAR:-default}), the RBD jobs get an image of the test's own (IMAGE, read
# the same way) and the running cluster's CEPH_CONF, and fio writes JSON (--output-format=json
# --output=out.json). The repository root is a scratch copy of its shape (jobs/ and build/
# bind-mounted, build/ from this build), and /tmp is private to each job file (a mount namespace):
# the Run lines write /tmp and sidecars into fio's working directory, and two job files run
# side by side. No job file needs GlusterFS or a real database to run: all run.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (a private /tmp per job file: unshare -m, mount --bind)"
cd "$REPO" || fail "no repo"
jobs=(jobs/*.fio)
[ ${#jobs[@]} -ge 20 ] || fail "only ${#jobs[@]} job files in jobs/"
cmds=()
for j in "${jobs[@]}"; do
	cmd=$(sed -n 's/^[#;] Run: //p' "$j")
	[ "$(wc -l <<<"$cmd")" = 1 ] && [ -n "$cmd" ] || fail "$j: not one '# Run:' (or '; Run:') line in its header"
	[[ "$cmd" == *" fio "*"$j"* ]] || fail "$j: its Run line does not run fio on $j: $cmd"
	# engines by ${DBFIO_LIB}: a path relative to the working directory fails elsewhere and after install
	bad=$(grep -n '^[[:space:]]*ioengine=external:' "$j" | grep -v 'ioengine=external:\${DBFIO_LIB}/[a-z]*\.so\b')
	[ -z "$bad" ] || fail "$j: an engine not named external:\${DBFIO_LIB}/<engine>.so: $bad"
	# every ${VAR} of the job file is set on the command line (fio leaves an unset one empty)
	for v in $(grep -v '^[[:space:]]*[#;]' "$j" | grep -o '\${[A-Za-z_][A-Za-z0-9_]*}' | tr -d '${}' | sort -u); do
		[[ " $cmd " == *" $v="* ]] || fail "$j: the Run line does not set \${$v}: $cmd"
	done
	# ${SWEEP_POINT_DIR} is tools/sweep's alone: under plain fio it is empty and ${SWEEP_POINT_DIR}/x is /x
	! grep -q '^[^#;]*\${SWEEP_POINT_DIR}' "$j" || fail "$j: writes under \${SWEEP_POINT_DIR} (/ under plain fio)"
	# an include is parsed where the job file is, never on a fio --server (calibration= is)
	! grep -q '^[[:space:]]*include ' "$j" || fail "$j: an include (use calibration=NAME)"
	cmds+=("$cmd")
done
ok "${#jobs[@]} job files: a Run line setting every variable, engines by \${DBFIO_LIB}, no include"

need_ceph=0
grep -v '^[[:space:]]*[#;]' "${jobs[@]}" | grep -q 'rbdsnap\.so\|store=\(cephfs\|rbd\)\b' && need_ceph=1
if [ $need_ceph = 1 ]; then
	need_cluster
	have_backend RBD || fail "configure found no librbd"
fi
units=()
# wait_unit: a job file's run done (whichever ends first); its lines shown, its failure the test's
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
n=0
# the longest first (RBD: a whole image written, a snapshot schedule), so the two lanes end together
order=($(printf '%s\n' "${!jobs[@]}" | while read -r i; do
	grep -q 'rbdsnap\.so' "${jobs[i]}" && echo "$i"; done)
	$(printf '%s\n' "${!jobs[@]}" | while read -r i; do grep -q 'rbdsnap\.so' "${jobs[i]}" || echo "$i"; done))
for i in "${order[@]}"; do
	j=${jobs[i]} cmd=${cmds[i]}
	n=$((n + 1))
	P=$TMP/p$n		# this job file's /tmp; the repository root is /tmp/root in it
	mkdir -p "$P/root/jobs" "$P/root/build"	# bind mounts of $REPO/jobs and $B (either may be under /tmp)
	# run length only (and JSON out)
	run=$(sed -E 's/(^| )RUNTIME=[0-9]+/\1RUNTIME=2/; s/(^| )N=[0-9]+/\1N=20/; s/(^| )DATA_IOS=[0-9]+/\1DATA_IOS=4/' <<<"$cmd")
	run=${run/ fio / fio --output-format=json --output=out.json }
	envs=(PATH="$PATH" HOME="$HOME")
	if grep -q 'rbdsnap\.so' "$j"; then
		rbd_image "jobs-doc-$$-$n" 32M	# its own image (the Run line reads IMAGE=${IMAGE:-...})
		envs+=(CEPH_CONF="$CEPH_CONF" IMAGE="jobs-doc-$$-$n" SNAPS=1 BASELINE=1 SNAP_INTERVAL=1 HOLD=1 AFTER=1 RUNTIME=4)
		for v in CEPH_CONF IMAGE; do
			[[ "$cmd" == *"$v=\${$v:-"* ]] || fail "$j: the Run line does not take $v from the environment ($v=\${$v:-...})"
		done
	elif grep -v '^[[:space:]]*[#;]' "$j" | grep -q 'store=\(cephfs\|rbd\)\b'; then
		envs+=(CEPH_CONF="$CEPH_CONF")
	fi
	# a job on the cluster says which one, the way a user would: CEPH_CONF=${CEPH_CONF:-...}
	if grep -v '^[[:space:]]*[#;]' "$j" | grep -q 'rbdsnap\.so\|store=\(cephfs\|rbd\)\b'; then
		[[ "$cmd" == *'CEPH_CONF=${CEPH_CONF:-'* ]] || fail "$j: the Run line does not set CEPH_CONF=\${CEPH_CONF:-...}"
	fi
	u=$TMP/unit-$n.log
	(
	t0=$SECONDS
	d=$P/root
	# shellcheck disable=SC2016 # $1..$3: expanded by the inner shell
	# a cluster whose directory is under /tmp (a clone there: its build/cluster) stays visible
	cdir=
	case ${CEPH_CONF:-} in /tmp/*) cdir=$(dirname "$CEPH_CONF") && mkdir -p "$P/${cdir#/tmp/}" ;; esac
	unshare -m --propagation private bash -c 'mount --bind "$2" "$1/root/jobs" && mount --bind "$3" "$1/root/build" &&
		{ [ -z "$4" ] || mount --bind "$4" "$1/${4#/tmp/}"; } &&
		mount --rbind "$1" /tmp && cd /tmp/root && shift 4 && exec env -i "$@"' \
		_ "$P" "$REPO/jobs" "$B" "$cdir" "${envs[@]}" FIO="$FIO" bash -c "$run" >"$d/log" 2>&1 ||
		{ tail -30 "$d/log"; fail "$j: '$cmd' failed from the repository root (ran: $run)"; }
	[ -s "$d/out.json" ] || { tail -30 "$d/log"; fail "$j: no JSON from fio"; }
	# every fio job did I/O (read, write or trim), none reports an error
	bad=$(json "$d/out.json" "' '.join('%s:err=%d,ios=%d' % (x['jobname'], x['error'], sum(x[k]['total_ios'] for k in ('read', 'write', 'trim'))) for x in d['jobs'] if x['error'] or not sum(x[k]['total_ios'] for k in ('read', 'write', 'trim')))") ||
		fail "$j: fio's JSON unreadable"
	[ -z "$bad" ] || { tail -30 "$d/log"; fail "$j: jobs without I/O or with an error: $bad"; }
	jn=$(json "$d/out.json" "len(d['jobs'])")
	# the sidecars it names relatively are in the working directory
	for s in $(grep -oE '^(table_json|lat_json|snap_json|checkpoint_log)=[^[:space:];/$]+' "$j" | cut -d= -f2); do
		[ -s "$d/$s" ] || fail "$j: sidecar $s is not in the working directory"
	done
	ok "$(basename "$j"): the Run line passes from the repository root ($jn fio job(s) did I/O, no error; $((SECONDS - t0)) s)"
	) >"$u" 2>&1 &
	units+=("$!:$u")
	[ ${#units[@]} -ge 2 ] && wait_unit
done
while [ ${#units[@]} -gt 0 ]; do wait_unit; done
ok "${#jobs[@]} job files ran as their headers say"
