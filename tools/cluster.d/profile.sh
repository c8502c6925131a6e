# shellcheck shell=bash
# tools/cluster.d/profile.sh - sourced by tools/cluster: cluster profiles and
# the OSD disks they need (an HDD-like loop device throttled with cgroup v1
# blkio, ext4 on it for FileStore).  Everything made here is recorded in
# $DISKS, newest last, and undone by teardown_disks in reverse order.
#
# Profiles (tools/cluster up --profile NAME, or DBFIO_CLUSTER_PROFILE):
#   default     1 BlueStore OSD on a sparse file, pool size 1, librbd's
#               default cache (writearound): what the tests always used
#   seed003     the seed 003 reporter's kind of cluster: FileStore (journal
#               and data on one disk), that disk an HDD-like loop device
#               limited to 150 IOPS, librbd cache write-through (Jewel kept
#               it write-through until the client's first flush, and fio
#               2.16's rbd engine never flushed), osd_op_complaint_time 1 s
#   replicated  seed 000's reviewers' "1 OSD, no replication, no network":
#               3 BlueStore OSDs, pool size 3 (min_size 2), every message an
#               OSD sends delayed by 0..2 ms (Ceph's ms_inject_delay_*)
# Single knobs override the profile: DBFIO_OSD_STORE, DBFIO_OSD_COUNT,
# DBFIO_POOL_SIZE, DBFIO_OSD_IOPS, DBFIO_NET_DELAY_MS, DBFIO_RBD_CACHE.

BLKIO=/sys/fs/cgroup/blkio
DISKS=$DIR/disks.state       # what make_disks did, in order: KIND ARG...
PROFILE_FILE=$DIR/profile    # the resolved profile of a running cluster

profile_resolve() { # NAME: sets P_* (env knobs win)
    local st=bluestore n=1 size=1 iops=0 delay=0 cache=default comp=
    case $1 in
        default) ;;
        seed003) st=filestore iops=150 cache=writethrough comp=1 ;;
        replicated) n=3 size=3 delay=2 ;;
        *) die "unknown profile '$1' (default, seed003, replicated)" ;;
    esac
    P_NAME=$1
    P_STORE=${DBFIO_OSD_STORE:-$st}
    P_OSDS=${DBFIO_OSD_COUNT:-$n}
    P_SIZE=${DBFIO_POOL_SIZE:-$size}
    P_IOPS=${DBFIO_OSD_IOPS:-$iops}
    P_DELAY=${DBFIO_NET_DELAY_MS:-$delay}
    P_CACHE=${DBFIO_RBD_CACHE:-$cache}
    P_COMPLAINT=${DBFIO_OSD_COMPLAINT_TIME:-$comp}
    [[ $P_STORE == bluestore || $P_STORE == filestore ]] || die "DBFIO_OSD_STORE: bluestore or filestore, not '$P_STORE'"
    [[ $P_OSDS =~ ^[1-9]$ ]] || die "DBFIO_OSD_COUNT: 1..9, not '$P_OSDS'"
    [[ $P_SIZE =~ ^[1-9]$ ]] && (( P_SIZE <= P_OSDS )) ||
        die "DBFIO_POOL_SIZE=$P_SIZE: 1..number of OSDs ($P_OSDS)"
    [[ $P_IOPS =~ ^[0-9]+$ ]] || die "DBFIO_OSD_IOPS: a number of IOPS (0 = no limit), not '$P_IOPS'"
    [[ $P_DELAY =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "DBFIO_NET_DELAY_MS: milliseconds, not '$P_DELAY'"
    [[ $P_CACHE =~ ^(default|writethrough|off)$ ]] ||
        die "DBFIO_RBD_CACHE: default, writethrough or off, not '$P_CACHE'"
    [[ ${P_COMPLAINT:-1} =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "DBFIO_OSD_COMPLAINT_TIME must be a number of seconds"
    if (( P_IOPS > 0 )) && [ ! -w "$BLKIO/blkio.throttle.write_iops_device" ]; then
        die "DBFIO_OSD_IOPS=$P_IOPS needs cgroup v1 blkio at $BLKIO (not mounted or not writable)"
    fi
}

# One line for status and the result pages.
profile_line() {
    printf '%s, osd_op_complaint_time %s\n' "$(profile_id)" "${P_COMPLAINT:-30 (default)}"
}
# What a running cluster cannot change: everything but the complaint time.
profile_id() {
    local disk=sparse\ file
    [ "$P_STORE" = filestore ] && disk="a directory"
    (( P_IOPS > 0 )) && disk="a loop device limited to $P_IOPS IOPS (blkio)"
    printf '%s: %s, %d OSD(s) on %s, pool size %d, librbd cache %s, net delay %s' \
        "$P_NAME" "$P_STORE" "$P_OSDS" "$disk" "$P_SIZE" "$P_CACHE" \
        "$( [ "$P_DELAY" = 0 ] && echo none || echo "0..${P_DELAY} ms per OSD message")"
}

profile_save() {
    declare -p P_NAME P_STORE P_OSDS P_SIZE P_IOPS P_DELAY P_CACHE P_COMPLAINT | sed 's/^declare -- //' >"$PROFILE_FILE"
}
profile_load() { # a running cluster's profile (or the default one)
    if [ -f "$PROFILE_FILE" ]; then
        # shellcheck disable=SC1090
        . "$PROFILE_FILE"
    else
        profile_resolve default
    fi
}

# ceph.conf lines the profile adds, per section.
profile_conf_global() {
    local min=$(( P_SIZE > 1 ? P_SIZE - 1 : 1 ))
    echo "osd_pool_default_size = $P_SIZE"
    echo "osd_pool_default_min_size = $min"
    if [ "$P_DELAY" != 0 ]; then
        echo "# every message from an OSD (to clients, OSDs, mon) waits 0..max s: a network"
        echo "ms_inject_delay_type = osd"
        echo "ms_inject_delay_max = $(awk -v d="$P_DELAY" 'BEGIN { printf "%g", d / 1000 }')"
        echo "ms_inject_delay_probability = 1"
    fi
}
profile_conf_osd() {
    if [ "$P_STORE" = filestore ]; then
        cat <<EOF
osd_objectstore = filestore
osd_journal = \$osd_data/journal
osd_journal_size = 1024
# FileStore on ext4 refuses to start without these
osd_max_object_name_len = 256
osd_max_object_namespace_len = 64
EOF
    else
        echo "osd_objectstore = bluestore"
        if (( P_IOPS > 0 )); then
            echo "bluestore_block_path = $DIR/osd.\$id/block.img"
            echo "bluestore_block_create = false"
        else
            echo "# not \$osd_data/block: BlueStore makes a \"block\" symlink there itself"
            echo "bluestore_block_path = $DIR/osd.\$id/block.img"
            echo "bluestore_block_size = $OSD_BYTES"
            echo "bluestore_block_create = true"
        fi
        cat <<EOF
bluestore_block_db_create = false
bluestore_block_wal_create = false
bluestore_cache_autotune = false
bluestore_cache_size = 134217728
bluestore_rocksdb_options_annex = write_buffer_size=33554432,max_write_buffer_number=2
EOF
    fi
    profile_conf_complaint
    echo "osd_op_history_slow_op_size = 500"
}
# SLOW_OPS for ops older than the complaint time (Ceph default 30 s), and the
# OSD's own record of them (dump_historic_slow_ops; an integer threshold).
complaint_threshold() { # Ceph's default 10 without one
    [ -n "$P_COMPLAINT" ] || { echo 10; return; }
    awk -v c="$P_COMPLAINT" 'BEGIN { c = int(c); print c < 1 ? 1 : c }'
}
profile_conf_complaint() {
    [ -n "$P_COMPLAINT" ] || return 0
    echo "osd_op_complaint_time = $P_COMPLAINT"
    echo "osd_op_history_slow_op_threshold = $(complaint_threshold)"
}
# A running cluster asked for another complaint time (a plain `up` asks for
# its profile's): into ceph.conf's [osd] section (for OSD restarts) and into
# the running OSDs (injectargs: the conf file would override `config set`).
apply_complaint() {
    local tmp=$CONF.tmp
    awk -v add="$(profile_conf_complaint)" '
        /^osd_op_complaint_time = |^osd_op_history_slow_op_threshold = / { next }
        { print } /^\[osd\]$/ && add != "" { print add }' "$CONF" >"$tmp" && mv "$tmp" "$CONF" ||
        die "cannot rewrite $CONF"
    timeout 60 ceph --connect-timeout 10 tell 'osd.*' injectargs \
        "--osd_op_complaint_time=${P_COMPLAINT:-30}" \
        "--osd_op_history_slow_op_threshold=$(complaint_threshold)" >>"$DIR/log/complaint.log" 2>&1 ||
        die "ceph tell osd.* injectargs osd_op_complaint_time=${P_COMPLAINT:-30} failed (see $DIR/log/complaint.log)"
    profile_save
    say "osd_op_complaint_time now ${P_COMPLAINT:-30 (default)}"
}
profile_conf_client() {
    case $P_CACHE in
        writethrough) printf '%s\n' "# write-through: as Jewel before the client's first flush (fio 2.16 never flushed)" \
                                    "rbd_cache = true" "rbd_cache_policy = writethrough" ;;
        off) echo "rbd_cache = false" ;;
        *) cat <<'EOF'
# rbd_cache is left at librbd's default (on, writearound, 32 MiB): it acks
# writes before the OSD commits them (fast p50, p99.9 up to ~0.5 s).  For
# latencies of committed writes set it off here, or per fio job:
;rbd_cache = false
EOF
        ;;
    esac
}

# ------------------------------------------------------------------ disks

disk_record() { echo "$*" >>"$DISKS"; }

# A loop device over $DIR/disk/osd.ID.img for each OSD (profile with an IOPS
# limit): ext4 mounted at the OSD's data dir for FileStore, the raw device as
# BlueStore's block.  Before the keys are written (they go inside).
make_disks() {
    local id img loop
    (( P_IOPS > 0 )) || return 0
    mkdir -p "$DIR/disk"
    FAIL_LOG=$DIR/log/bootstrap.log
    for (( id = 0; id < P_OSDS; id++ )); do
        img=$DIR/disk/osd.$id.img
        truncate -s "$OSD_BYTES" "$img" || die "cannot create $img"
        loop=$(losetup --find --show "$img" 2>>"$FAIL_LOG") || die "losetup $img failed"
        disk_record loop "$loop"
        if [ "$P_STORE" = filestore ]; then
            mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$loop" >>"$FAIL_LOG" 2>&1 ||
                die "mkfs.ext4 $loop failed"
            mount -o noatime "$loop" "$DIR/osd.$id" 2>>"$FAIL_LOG" || die "mount $loop $DIR/osd.$id failed"
            disk_record mount "$DIR/osd.$id"
        else
            ln -sf "$loop" "$DIR/osd.$id/block.img"
        fi
    done
}

# Is LOOP still backed by a file of ours?
our_loop() { [[ $(losetup -nO BACK-FILE "$1" 2>/dev/null) == "$DIR/"* ]]; }

# After mkfs (which would crawl at HDD speed): limit reads and writes of our
# loop devices in the ROOT blkio cgroup - v1 limits are not hierarchical, and
# the OSD and the page-cache writeback run in root.
throttle_disks() {
    local kind loop mm
    (( P_IOPS > 0 )) || return 0
    while read -r kind loop; do
        [ "$kind" = loop ] && our_loop "$loop" || continue
        mm=$(lsblk -dno MAJ:MIN "$loop" | tr -d ' ') || die "lsblk $loop failed"
        disk_record throttle "$mm" "$loop"
        echo "$mm $P_IOPS" >"$BLKIO/blkio.throttle.write_iops_device" &&
            echo "$mm $P_IOPS" >"$BLKIO/blkio.throttle.read_iops_device" ||
            die "cannot limit $loop ($mm) to $P_IOPS IOPS in $BLKIO"
    done < <(grep '^loop ' "$DISKS")
    say "OSD disk(s) limited to $P_IOPS IOPS"
}

# Remove our limit on MAJ:MIN (only a rule we set: the value is ours).
unthrottle() { # MAJ:MIN
    local f
    for f in write read; do
        f=$BLKIO/blkio.throttle.${f}_iops_device
        grep -q "^$1 " "$f" 2>/dev/null || continue
        echo "$1 0" >"$f" || return 1
    done
}

undo_disk() { # KIND ARG...
    case $1 in
        throttle) unthrottle "$2" ;;
        mount) ! mounted "$2" || umount "$2" ;;
        loop)
            our_loop "$2" || return 0
            losetup -d "$2" || return 1
            for _ in $(seq 100); do our_loop "$2" || return 0; sleep 0.05; done
            return 1 ;;
    esac
}

# After the daemons are gone: newest first; keeps what could not be undone.
teardown_disks() {
    local steps=() i
    [ -f "$DISKS" ] || return 0
    mapfile -t steps <"$DISKS"
    for (( i = ${#steps[@]} - 1; i >= 0; i-- )); do
        # shellcheck disable=SC2086
        undo_disk ${steps[i]} || break
    done
    if (( i >= 0 )); then printf '%s\n' "${steps[@]:0:i+1}" >"$DISKS"; return 1; fi
    rm -f "$DISKS"
}
