/*
 * rbdsnap.h - what the parts of the rbdsnap engine share: rbdsnap.c (the fio
 * hooks, librbd aio), rbdsnap_conn.c (option checks, the shared cluster
 * connection), rbdsnap_sched.c (snapshot and health threads, snapshot
 * safety) and rbdsnap_report.c (phases, timeline, JSON sidecar).
 *
 * Only plain C, librbd/librados and latstat here: no fio header, so the
 * helper threads cannot touch fio's state by accident.
 */
#ifndef DBFIO_RBDSNAP_H
#define DBFIO_RBDSNAP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rados/librados.h>
#include <rbd/librbd.h>

#include "store/ceph_conn.h"
#include "store/latstat.h"

#define RS_NAME_MAX	128	/* snapshot names we make or recognise */
#define RS_RING		512	/* events in flight from helper threads to the job */
#define RS_MAXK		32	/* phases "k live snapshots" tracked separately */

enum rs_ev_type {
	RS_EV_CREATE,
	RS_EV_REMOVE,
	RS_EV_HEALTH,
	RS_EV_CREATE_START,	/* the snapshot thread is about to call create */
	RS_EV_REMOVE_START,
};

/*
 * What a phase is: the I/Os issued while it lasted belong to it. A phase with
 * N live snapshots reached by a create (UP) is told apart from one reached by
 * a removal (DOWN: the OSDs are trimming), and a create or removal in
 * progress is a phase of its own.
 */
enum rs_kind {
	RS_K_BASE,		/* "baseline": before the first snapshot */
	RS_K_CREATING,		/* "creating snapN": the Nth is being created */
	RS_K_UP,		/* "snapN" */
	RS_K_REMOVING,		/* "removing snapN": one of N is being removed */
	RS_K_DOWN,		/* "snapN-rm": N live, reached by a removal */
	RS_K_AFTER,		/* "after": all removed again */
	RS_NKIND
};

/* One thing that happened outside the I/O path, handed to the job thread. */
struct rs_event {
	int type;
	int ret;		/* 0 or -errno of the librbd / librados call */
	int live;		/* own live snapshots after a create/remove */
	int health;		/* 0 OK, 1 WARN, 2 ERR, -1 poll failed */
	uint32_t slow_ops;	/* from the SLOW_OPS health check */
	uint64_t t_ns;		/* when it ended (latstat_now_ns clock) */
	uint64_t lat_ns;	/* how long the call took */
	char name[RS_NAME_MAX];	/* snapshot name, or the health summary */
	char checks[RS_NAME_MAX];	/* health: the checks raised, "OSD_FULL,SLOW_OPS" */
};

/* The schedule, copied out of the option struct (times in ns). */
struct rs_sched_cfg {
	uint64_t interval_ns;
	uint64_t start_delay_ns;
	uint64_t hold_ns;
	uint64_t health_ns;
	long every;		/* I/Os between snapshots, 0 = off */
	bool osd_slow;		/* poll the OSDs' dump_historic_slow_ops */
	int keep;		/* 0 = no limit */
	int count;		/* 0 = no limit */
	bool snapshots;		/* any schedule option set */
	const char *prefix;
};

struct rs_sched {
	struct rs_sched_cfg cfg;
	rbd_image_t image;
	rados_t cluster;
	rados_t help_cluster;	/* health polls' and OSD reads' client: not
				 * throttled with the data (RS_OSD_TIMEOUT_S) */
	char runid[16];

	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t snap_thread, health_thread, osd_thread;
	bool snap_started, health_started, osd_started;
	bool stop;
	uint64_t ios;		/* completed I/Os, for snap_every */
	uint64_t t0_ns;

	/* own live snapshots, oldest first; only the snapshot thread writes
	 * it while running, the job thread after joining it */
	char (*own)[RS_NAME_MAX];
	int nown, own_cap;
	int created, removed;
	int create_failed;	/* creates that failed, and the first one's -errno */
	int create_err;

	struct rs_event ring[RS_RING];
	unsigned int head, tail, dropped;

	/* the OSDs' slow-op records: the OSD thread appends while it runs,
	 * the job thread reads after joining it */
	int osds[16], nosds;
	int osd_polls, osd_poll_err;
	int osd_ls_err;		/* -errno of `osd ls` (no OSD to ask), or 0 */
	int osd_reads[16];	/* the OSD's good reads so far */
	bool osd_failed[16];	/* the OSD's last read failed: records since its
				 * last good read are missing */
	bool osd_overflow;	/* records were lost: a read found a full history
				 * of new records only, or (the first read) one
				 * whose oldest record is younger than t0 */
	double osd_keep_s;
	int64_t rt_minus_mono;	/* CLOCK_REALTIME - latstat clock, ns */
	uint64_t client_id;	/* the job's client (cluster): client.<id> */
	char own_op[48], own_repop[48];	/* "osd_op(client.<id>." and its replicas' */
	struct rs_osd_op *oops;
	size_t noops, oops_cap;
};

struct rs_phase {
	struct latstat ls;
	uint64_t dur_ns;
	uint64_t slow;
	uint64_t osd_slow;	/* the OSDs' slow-op records initiated in it */
	uint32_t slow_ops_max;	/* most SLOW_OPS a health poll reported in it */
	uint64_t first_ns;	/* first entered (0 = never): the print order */
};

/* The phase that began at t_ns (the phases as a time line). */
struct rs_trans {
	uint64_t t_ns;
	uint8_t kind, n;
};

struct rs_sec {
	uint32_t ios;
	uint32_t slow;
	uint64_t max_ns;
	int16_t live;
	int8_t health;		/* worst seen in the second, -2 = not polled */
	uint32_t slow_ops;
	uint32_t osd_slow;
};

/* Whose op a slow-op record is: only the job's own client ops are booked. */
enum rs_osd_who {
	RS_OSD_OWN,		/* osd_op(client.<ours>. ... : the primary's record */
	RS_OSD_REPOP,		/* osd_repop(client.<ours>. ... : a replica's, same write */
	RS_OSD_OTHER,		/* another client's, or a daemon's */
};

/* One slow-op record of an OSD (dump_historic_slow_ops), deduplicated. */
struct rs_osd_op {
	uint64_t key;		/* hash of osd, initiated_at, description */
	uint64_t t_ns;		/* initiated, on latstat_now_ns's clock */
	uint64_t dur_ns;
	int who;		/* enum rs_osd_who */
};

struct rs_report {
	uint64_t t0_ns, end_ns;
	uint64_t slow_ns;
	int kind, live;
	uint64_t after_ns;	/* when "after" began (0 = not yet) */
	uint64_t ios, slow;
	struct rs_phase ph[RS_NKIND][RS_MAXK + 1];
	uint64_t fio_epoch_ns;	/* fio's td->epoch on this clock (rs_report_fio_epoch) */
	struct rs_trans *tr;
	size_t ntr, tr_cap;
	int osd_polls;		/* -1: the OSDs refused dump_historic_slow_ops */
	int osd_ls_err;		/* -errno: `osd ls` failed (osd_polls -1) */
	bool osd_overflow;	/* counts are lower bounds: a history overflowed */
	bool osd_failed;	/* ... or an OSD's last read failed */
	uint64_t osd_slow, osd_slow_max_ns;
	uint64_t osd_repops, osd_other;	/* records in the run not counted */
	uint64_t osd_client;	/* client.<id> whose ops were counted */
	int64_t osd_rt_minus_mono;	/* the clock map the records were read with */
	double osd_slow_keep_s;	/* the OSDs' "threshold to keep" */
	struct rs_sec *sec;
	size_t nsec, sec_cap;
	struct rs_event *ev;
	size_t nev, ev_cap;
	unsigned int health_polls;
	int health_worst, health_last;
	char checks_last[RS_NAME_MAX];	/* the last poll's checks */
	char checks_seen[2 * RS_NAME_MAX];	/* every check any poll raised, in order seen */
	uint32_t slow_ops_max;
};

/* The pool's snapshot trimming before the run (rbdsnap_trim.c). */
struct rs_trim {
	long queued0;		/* removed snapshots not yet trimmed at start; -errno: not read */
	long queued;		/* ... when the baseline began */
	uint64_t waited_ns;	/* how long snap_trim_wait waited */
	unsigned long long wait_us;	/* snap_trim_wait */
};

/* What the report says about the run besides the numbers. */
struct rs_meta {
	const char *job, *pool, *image, *runid, *prefix;
	const char *cache, *cache_policy;
	uint64_t image_size;
	const struct rs_sched_cfg *cfg;
	int stale_found, stale_removed;
	const struct rs_trim *trim;
	unsigned int dropped;
	int created;		/* snapshots this run took */
	int create_failed;	/* creates that failed (the first: create_err) */
	int create_err;
};

struct rbdsnap_options {
	void *pad;	/* fio stores td here; off1 must not be 0 */
	char *cluster_name;
	char *rbd_name;
	char *pool_name;
	char *client_name;
	int busy_poll;
	unsigned long long snap_interval;	/* usec, like runtime */
	int snap_every;
	unsigned long long snap_start_delay;
	int snap_keep;
	int snap_count;
	unsigned long long snap_hold;
	char *snap_prefix;
	int snap_remove_at_end;
	int snap_purge_stale;
	char *snap_json;
	unsigned long long slow_threshold;
	unsigned long long health_interval;
	unsigned long long connect_timeout;
	unsigned long long snap_after;
	int osd_slow_ops;
	unsigned long long snap_trim_wait;
};

/* rbdsnap_trim.c */
const char *rs_json_close(const char *p);
long rs_trim_parse(const char *js, int64_t pool);
long rs_trim_queued(rados_t cluster, int64_t pool);

/* rbdsnap_conn.c */
int rbdsnap_check_opts(struct rbdsnap_options *o);
/* the shared client of the job's cluster (store/ceph_conn.h); NULL: one line said why */
struct ceph_conn *rbdsnap_conn_get(struct rbdsnap_options *o, unsigned int osd_timeout_s);
/* the health/OSD reads' own client: a hung OSD fails a read after this long */
#define RS_OSD_TIMEOUT_S	10
/* the last read is repeated this often at most, this far apart (rs_osd_poll_last) */
#define RS_OSD_SETTLE_READS	5
#define RS_OSD_SETTLE_US	100000

/* rbdsnap_sched.c */
void rs_make_runid(char *buf, size_t len);
bool rs_is_own_name(const char *name, const char *prefix);
/* the run's holder in the image's metadata (0 or -errno), and its removal */
int rs_run_record(rbd_image_t image, const char *runid);
void rs_run_unrecord(rbd_image_t image, const char *runid);
int rs_stale_scan(rbd_image_t image, const char *what, const char *prefix,
		  bool purge, int *removed);
int rs_sched_start(struct rs_sched *s);
void rs_sched_kick(struct rs_sched *s, unsigned int ios);
int rs_sched_drain(struct rs_sched *s, struct rs_event *out, int max);
void rs_sched_stop(struct rs_sched *s, bool remove_own);
void rs_sched_free(struct rs_sched *s);
void rs_osd_init(struct rs_sched *s);
bool rs_osd_poll(struct rs_sched *s);
void rs_osd_poll_last(struct rs_sched *s);
const char *rs_health_name(int h);

/* rbdsnap_report.c */
int rs_report_init(struct rs_report *r, uint64_t t0_ns, uint64_t slow_ns);
void rs_report_fio_epoch(struct rs_report *r, uint64_t epoch_ns);
void rs_report_io(struct rs_report *r, uint64_t issue_ns, uint64_t done_ns);
void rs_report_osd_op(struct rs_report *r, const struct rs_osd_op *op);
void rs_report_event(struct rs_report *r, const struct rs_event *e);
void rs_report_end(struct rs_report *r, uint64_t end_ns);
void rs_report_print(FILE *out, const struct rs_report *r, const struct rs_meta *m);
/* snap_json's body, for json_sidecar() (through fio_store_sidecar()) */
struct json_out;
struct rs_json_arg {
	const struct rs_report *r;
	const struct rs_meta *m;
};
void rs_report_json(struct json_out *j, void *arg);
void rs_report_free(struct rs_report *r);

#endif
