/*
 * rbdsnap - fio's rbd engine (librbd aio on one RADOS block device) plus a
 * snapshot schedule: snapshots of the written image are created and trimmed
 * from a helper thread while the job writes, and the run is reported by
 * phase (before the first snapshot, with k live snapshots, after removal),
 * per second, with slow I/Os and the cluster's SLOW_OPS health check.
 *
 * It reproduces "a few snapshots made the cluster unresponsive" (seed 003)
 * and gates Ceph changes on it (tools/snapregress). With no schedule option
 * it is a drop-in for ioengine=rbd: same options, same I/O path.
 *
 * Parts: rbdsnap_sched.c (helper threads, snapshot safety), rbdsnap_report.c
 * (phases, timeline, JSON sidecar).
 */
#include "rbdsnap.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "fio.h"
#include "optgroup.h"

#include "glue/fio_report.h"
#include "glue/fio_store.h"

struct rbdsnap_iou {
	struct io_u *io_u;
	rbd_completion_t completion;
	int io_seen;
	int io_complete;
	uint64_t issue_ns;
	uint64_t done_ns;
};

struct rbdsnap_data {
	struct ceph_conn *conn;
	struct ceph_conn *help_conn;	/* health polls, OSD reads (RS_OSD_TIMEOUT_S) */
	rados_ioctx_t io_ctx;
	rbd_image_t image;
	struct io_u **aio_events;
	int fd;
	bool connected;
	bool track;		/* a schedule or snap_json: measure phases */
	bool sched_on;
	bool extended;
	unsigned long long timeout0;	/* fio's runtime before snap_after */
	uint64_t last_issue_ns;	/* the newest I/O's issue */
	uint64_t stop_ns;	/* fio's runtime ran out: it issues no more */
	uint64_t image_size;
	char what[256];		/* pool/image, for messages */
	char cache[8], policy[32];
	int stale_found, stale_removed;
	int snaps_ok;		/* creates that succeeded, as drained */
	bool recorded;		/* the run's holder is in the image's metadata */
	bool keep_record;	/* ... and stays: snapshots of the run are left */
	struct rs_trim trim;
	struct rs_sched sched;
	struct rs_report rep;
	struct rs_event evbuf[64];
};

#define T	struct rbdsnap_options
#define USEC_DAY	(86400ull * 1000000)

static struct fio_option options[] = {
	FIO_ENGINE_OPT(T, "clustername", FIO_OPT_STR_STORE, cluster_name, "Cluster name for ceph", NULL),
	FIO_ENGINE_OPT(T, "rbdname", FIO_OPT_STR_STORE, rbd_name, "RBD name for RBD engine", NULL),
	FIO_ENGINE_OPT(T, "pool", FIO_OPT_STR_STORE, pool_name,
		"Name of the pool hosting the RBD for the RBD engine", NULL),
	FIO_ENGINE_OPT(T, "clientname", FIO_OPT_STR_STORE, client_name,
		"Name of the ceph client to access the RBD for the RBD engine", NULL),
	FIO_ENGINE_BOOL(T, "busy_poll", busy_poll,
		"Busy poll for completions instead of sleeping", "0"),
	FIO_ENGINE_RANGE(T, "snap_interval", FIO_OPT_STR_VAL_TIME, snap_interval,
		"Snapshot every this long (bare number = seconds; ms/s/m/h); 0 = off; at most 30d", "0",
		0, 30 * USEC_DAY),
	FIO_ENGINE_RANGE(T, "snap_every", FIO_OPT_INT, snap_every,
		"Snapshot every this many completed I/Os; 0 = off", "0", 0, 1000000000),
	FIO_ENGINE_RANGE(T, "snap_start_delay", FIO_OPT_STR_VAL_TIME, snap_start_delay,
		"No snapshot before this long (clean baseline phase); alone: one snapshot then; at most 30d",
		"0", 0, 30 * USEC_DAY),
	FIO_ENGINE_RANGE(T, "snap_keep", FIO_OPT_INT, snap_keep,
		"Most live snapshots of this run; the oldest is removed beyond it; 0 = no limit", "0",
		0, 100000),
	FIO_ENGINE_RANGE(T, "snap_count", FIO_OPT_INT, snap_count,
		"Snapshots to create in total; 0 = no limit", "0", 0, 1000000),
	FIO_ENGINE_RANGE(T, "snap_hold", FIO_OPT_STR_VAL_TIME, snap_hold,
		"Once snap_count are made, remove them all this long after the last (measures 'after'); "
		"0 = at the end; at most 30d", "0", 0, 30 * USEC_DAY),
	{ FIO_ENGINE_OPT_(T, "snap_prefix", FIO_OPT_STR_STORE, snap_prefix,
		"Name prefix of the snapshots this engine makes and may remove (1-64 characters)",
		"dbfio-", 0, 0, 0), .maxlen = 65 },
	FIO_ENGINE_BOOL(T, "snap_remove_at_end", snap_remove_at_end,
		"Remove this run's snapshots when the job ends (also on SIGINT/SIGTERM)", "1"),
	FIO_ENGINE_BOOL(T, "snap_purge_stale", snap_purge_stale,
		"Remove unprotected <prefix><runid>-<n> snapshots left by a killed run", "0"),
	FIO_ENGINE_OPT(T, "snap_json", FIO_OPT_STR_STORE, snap_json,
		"Write phases, snapshot events and the per-second timeline to this JSON file (.N added when "
		"numjobs>1)", NULL),
	FIO_ENGINE_RANGE(T, "slow_threshold", FIO_OPT_STR_VAL_TIME, slow_threshold,
		"An I/O taking this long or longer counts as slow (1us..1d)", "1", 1, USEC_DAY),
	FIO_ENGINE_RANGE(T, "health_interval", FIO_OPT_STR_VAL_TIME, health_interval,
		"Poll cluster health (SLOW_OPS) this often while measuring; 0 = off; else 100ms..1d", "1",
		0, USEC_DAY),
	FIO_ENGINE_RANGE(T, "connect_timeout", FIO_OPT_STR_VAL_TIME, connect_timeout,
		"Bound on connecting and on monitor calls (client_mount_timeout, rados_mon_op_timeout; "
		"1s..1d)", CEPH_CONN_TIMEOUT_STR, 1000000, USEC_DAY),
	FIO_ENGINE_RANGE(T, "snap_after", FIO_OPT_STR_VAL_TIME, snap_after,
		"Write until the 'after' phase (all removed) has lasted this long, extending runtime if "
		"the snapshot calls were slow; needs snap_hold; 0 = off; at most 1d", "0", 0, USEC_DAY),
	FIO_ENGINE_RANGE(T, "snap_trim_wait", FIO_OPT_STR_VAL_TIME, snap_trim_wait,
		"Before the baseline, wait up to this long for the OSDs to finish trimming the pool's "
		"removed snapshots (the osdmap's removed_snaps_queue); 0 = do not wait; at most 1d", "0",
		0, USEC_DAY),
	FIO_ENGINE_BOOL(T, "osd_slow_ops", osd_slow_ops,
		"Count the OSDs' own slow-op records (dump_historic_slow_ops) per phase, read every 5 s "
		"with the health polls", "1"),
	{
		.name	= NULL,
	},
};

#undef T

static void rbdsnap_disconnect(struct rbdsnap_data *sd)
{
	if (sd->fd != -1) {
		close(sd->fd);
		sd->fd = -1;
	}
	if (sd->image) {
		rbd_close(sd->image);
		sd->image = NULL;
	}
	if (sd->io_ctx) {
		rados_ioctx_destroy(sd->io_ctx);
		sd->io_ctx = NULL;
	}
	if (sd->conn) {
		ceph_conn_put(sd->conn);
		sd->conn = NULL;
	}
	if (sd->help_conn) {
		ceph_conn_put(sd->help_conn);
		sd->help_conn = NULL;
	}
	sd->connected = false;
}

static int rbdsnap_connect(struct thread_data *td, struct rbdsnap_data *sd)
{
	struct rbdsnap_options *o = td->eo;
	char err[512];
	int r;

	snprintf(sd->what, sizeof(sd->what), "%s/%s", o->pool_name, o->rbd_name);
	sd->conn = rbdsnap_conn_get(o, 0);
	if (!sd->conn)
		return 1;
	r = rados_ioctx_create(ceph_conn_rados(sd->conn), o->pool_name, &sd->io_ctx);
	if (r < 0) {
		ceph_conn_fail(sd->conn, "rbdsnap", "rados_ioctx_create", o->pool_name, r,
			       err, sizeof(err));
		log_err("%s\n", err);
		goto err;
	}
	/* as fio's rbd engine: direct=1 turns the cache off (process-wide here) */
	/* stderr, not log_info: --output=FILE puts fio's log into the JSON users parse */
	r = td->o.odirect ? rados_conf_set(ceph_conn_rados(sd->conn), "rbd_cache", "false") : 0;
	if (r < 0)
		fprintf(stderr, "rbdsnap: rados_conf_set(rbd_cache=false) failed: %s\n", strerror(-r));
	r = rbd_open(sd->io_ctx, o->rbd_name, &sd->image, NULL);
	if (r < 0) {
		ceph_conn_fail(sd->conn, "rbdsnap", "rbd_open", sd->what, r, err, sizeof(err));
		log_err("%s\n", err);
		goto err;
	}
	/* a first flush makes the cache leave writethrough for writeback/around */
	r = td->o.odirect ? 0 : rbd_flush(sd->image);
	if (r < 0)
		fprintf(stderr, "rbdsnap: rbd_flush(%s) (the initial flush) failed: %s\n",
			sd->what, strerror(-r));
	sd->fd = eventfd(0, EFD_SEMAPHORE);
	if (sd->fd < 0) {
		log_err("rbdsnap: eventfd failed: %s\n", strerror(errno));
		goto err;
	}
	r = rbd_set_image_notification(sd->image, sd->fd, EVENT_TYPE_EVENTFD);
	if (r < 0) {
		log_err("rbdsnap: rbd_set_image_notification(%s) failed: %s\n", sd->what, strerror(-r));
		goto err;
	}
	sd->connected = true;
	return 0;
err:
	rbdsnap_disconnect(sd);
	return 1;
}

static void rbdsnap_finish_aiocb(rbd_completion_t comp, void *data)
{
	struct rbdsnap_iou *fri = data;
	struct io_u *io_u = fri->io_u;
	ssize_t ret;

	fri->done_ns = latstat_now_ns();
	/* 0 or -errno: librbd does not complete partially */
	ret = rbd_aio_get_return_value(fri->completion);
	if (ret < 0) {
		io_u->error = -ret;
		io_u->resid = io_u->xfer_buflen;
	} else
		io_u->error = 0;
	__atomic_store_n(&fri->io_complete, 1, __ATOMIC_RELEASE);
}

static struct io_u *fio_rbdsnap_event(struct thread_data *td, int event)
{
	struct rbdsnap_data *sd = td->io_ops_data;

	return sd->aio_events[event];
}

static int rbdsnap_check_complete(struct rbdsnap_data *sd, struct io_u *io_u,
				  unsigned int *events)
{
	struct rbdsnap_iou *fri = io_u->engine_data;

	if (!__atomic_load_n(&fri->io_complete, __ATOMIC_ACQUIRE))
		return 0;
	fri->io_seen = 1;
	sd->aio_events[*events] = io_u;
	(*events)++;
	rbd_aio_release(fri->completion);
	return 1;
}

/* fio's rbd engine with CONFIG_RBD_POLL: eventfd + rbd_poll_io_events */
static int rbdsnap_iter_events(struct thread_data *td, unsigned int *events,
			       unsigned int min_evts, int wait)
{
	struct rbdsnap_data *sd = td->io_ops_data;
	rbd_completion_t comps[min_evts ? min_evts : 1];
	struct pollfd pfd = { .fd = sd->fd, .events = POLLIN };
	unsigned int this_events = 0;
	uint64_t counter;
	int i, n;

	if (poll(&pfd, 1, wait ? -1 : 0) <= 0 || !(pfd.revents & POLLIN))
		return 0;
	n = rbd_poll_io_events(sd->image, comps, min_evts ? min_evts : 1);
	for (i = 0; i < n; i++) {
		struct rbdsnap_iou *fri = rbd_aio_get_arg(comps[i]);

		/* best effort to decrement the semaphore */
		if (read(sd->fd, &counter, sizeof(counter)) <= 0)
			log_err("rbdsnap: eventfd read failed\n");
		if (rbdsnap_check_complete(sd, fri->io_u, events))
			this_events++;
	}
	return this_events;
}

/*
 * A create that failed for want of permission (the client's caps, a
 * read-only pool) before any succeeded: every later one will fail too, and
 * a run without snapshots measures nothing it was asked to. The job fails
 * with that error (its line came from the snapshot thread); other errors
 * fail it at the end, if no create ever succeeded (rbdsnap_finish).
 */
static void rbdsnap_create_done(struct thread_data *td, struct rbdsnap_data *sd, int ret)
{
	if (ret >= 0) {
		sd->snaps_ok++;
		return;
	}
	if (sd->snaps_ok || (ret != -EPERM && ret != -EACCES && ret != -EROFS))
		return;
	td_verror(td, -ret, "rbd_snap_create");
	td->done = 1;
}

/* Job thread: helper events become fio sync latencies and report entries. */
static void rbdsnap_drain(struct thread_data *td, struct rbdsnap_data *sd)
{
	int i, n;

	while ((n = rs_sched_drain(&sd->sched, sd->evbuf, (int)(sizeof(sd->evbuf) / sizeof(sd->evbuf[0])))) > 0)
		for (i = 0; i < n; i++) {
			struct rs_event *e = &sd->evbuf[i];

			if ((e->type == RS_EV_CREATE || e->type == RS_EV_REMOVE) && e->ret >= 0)
				add_sync_clat_sample(&td->ts, e->lat_ns);
			if (e->type == RS_EV_CREATE)
				rbdsnap_create_done(td, sd, e->ret);
			rs_report_event(&sd->rep, e);
		}
}

/*
 * snap_after: the job keeps writing until "after" has lasted that long. A
 * create or removal that takes longer than planned (seconds on an HDD-like
 * cluster) would otherwise end the job before the snapshots are gone. fio's
 * runtime is the job's own td->o.timeout (usec since td->epoch); move it
 * forward by a second at a time, at most 30 minutes past the original.
 */
static void rbdsnap_extend(struct thread_data *td, struct rbdsnap_data *sd)
{
	struct rbdsnap_options *o = td->eo;
	uint64_t now = latstat_now_ns(), el;

	if (sd->rep.after_ns && now - sd->rep.after_ns >= o->snap_after * 1000)
		return;
	el = utime_since_now(&td->epoch);
	if (el + 1000000 < td->o.timeout || td->o.timeout >= sd->timeout0 + 1800ull * 1000000)
		return;
	td->o.timeout = el + 1000000;
	if (!sd->extended)
		fprintf(stderr, "rbdsnap: %s: runtime extended until 'after' has lasted %llus (snap_after)\n",
			td->o.name, o->snap_after / 1000000);
	sd->extended = true;
}

/*
 * Once fio's runtime has run out it issues nothing more and waits for the
 * I/Os in flight: that wait is no part of the last phase (IOPS = issued /
 * seconds). Note the moment the runtime ran out (fio checks it against
 * td->epoch as here); the last phase ends there - or, for a job that ends
 * otherwise (size, signal), at its last issue.
 */
static void rbdsnap_deadline(struct thread_data *td, struct rbdsnap_data *sd)
{
	uint64_t now, el;

	if (sd->stop_ns || !td->o.timeout)
		return;
	now = latstat_now_ns();
	el = utime_since_now(&td->epoch);
	if (el >= td->o.timeout)
		sd->stop_ns = now - (el - td->o.timeout) * 1000;
}

static uint64_t rbdsnap_end_ns(struct rbdsnap_data *sd)
{
	uint64_t end = sd->stop_ns > sd->last_issue_ns ? sd->stop_ns : sd->last_issue_ns;

	return end ? end : latstat_now_ns();
}

static int fio_rbdsnap_getevents(struct thread_data *td, unsigned int min,
				 unsigned int max, const struct timespec *t)
{
	struct rbdsnap_data *sd = td->io_ops_data;
	struct rbdsnap_options *o = td->eo;
	unsigned int this_events, events = 0, i;
	int wait = 0;

	do {
		this_events = rbdsnap_iter_events(td, &events, min, wait);
		if (events >= min)
			break;
		if (this_events)
			continue;
		if (!o->busy_poll)
			wait = 1;
	} while (1);

	if (sd->sched_on) {
		/* the events first: an I/O is booked to the phase it was issued in */
		rbdsnap_drain(td, sd);
		for (i = 0; i < events; i++) {
			struct rbdsnap_iou *fri = sd->aio_events[i]->engine_data;

			rs_report_io(&sd->rep, fri->issue_ns, fri->done_ns);
		}
		rs_sched_kick(&sd->sched, events);
		if (o->snap_after && td->o.timeout)
			rbdsnap_extend(td, sd);
		rbdsnap_deadline(td, sd);
	}
	return events;
}

static enum fio_q_status fio_rbdsnap_queue(struct thread_data *td, struct io_u *io_u)
{
	struct rbdsnap_data *sd = td->io_ops_data;
	struct rbdsnap_iou *fri = io_u->engine_data;
	const char *call = "rbd_aio_create_completion";
	int r;

	fio_ro_check(td, io_u);

	fri->io_seen = 0;
	fri->io_complete = 0;
	r = rbd_aio_create_completion(fri, rbdsnap_finish_aiocb, &fri->completion);
	if (r < 0)
		goto failed;
	if (sd->sched_on) {
		sd->last_issue_ns = fri->issue_ns = latstat_now_ns();
		if (!sd->rep.fio_epoch_ns)
			rs_report_fio_epoch(&sd->rep, fri->issue_ns - utime_since_now(&td->epoch) * 1000);
	}

	switch (io_u->ddir) {
	case DDIR_WRITE:
		call = "rbd_aio_write";
		r = rbd_aio_write(sd->image, io_u->offset, io_u->xfer_buflen,
				  io_u->xfer_buf, fri->completion);
		break;
	case DDIR_READ:
		call = "rbd_aio_read";
		r = rbd_aio_read(sd->image, io_u->offset, io_u->xfer_buflen,
				 io_u->xfer_buf, fri->completion);
		break;
	case DDIR_TRIM:
		call = "rbd_aio_discard";
		r = rbd_aio_discard(sd->image, io_u->offset, io_u->xfer_buflen,
				    fri->completion);
		break;
	case DDIR_SYNC:
		call = "rbd_aio_flush";
		r = rbd_aio_flush(sd->image, fri->completion);
		break;
	default:
		call = "ddir";
		r = -EINVAL;
		break;
	}
	if (r < 0)
		goto failed_comp;
	return FIO_Q_QUEUED;

failed_comp:
	rbd_aio_release(fri->completion);
failed:
	log_err("rbdsnap: %s(%s) failed: %s\n", call, sd->what, strerror(-r));
	io_u->error = -r;
	td_verror(td, io_u->error, call);
	return FIO_Q_COMPLETED;
}

static void rbdsnap_cache_state(struct rbdsnap_data *sd)
{
	char v[32] = "";

	strcpy(sd->cache, "unknown");
	if (!rados_conf_get(ceph_conn_rados(sd->conn), "rbd_cache", v, sizeof(v)))
		strcpy(sd->cache, !strcmp(v, "true") ? "on" : "off");
	if (strcmp(sd->cache, "on") ||
	    rados_conf_get(ceph_conn_rados(sd->conn), "rbd_cache_policy", sd->policy,
			   sizeof(sd->policy)))
		sd->policy[0] = '\0';
}

/*
 * Before the clock starts: the pool's removed snapshots still being trimmed
 * (a run before this one's), and with snap_trim_wait, a wait until none are,
 * polled each second (fio's SIGINT/SIGTERM ends it).
 */
static void rbdsnap_trim_wait(struct thread_data *td, struct rbdsnap_data *sd)
{
	struct rbdsnap_options *o = td->eo;
	rados_t cl = ceph_conn_rados(sd->conn);
	int64_t pool = rados_ioctx_get_id(sd->io_ctx);
	uint64_t t0 = latstat_now_ns();
	struct rs_trim *t = &sd->trim;

	t->wait_us = o->snap_trim_wait;
	t->queued0 = t->queued = rs_trim_queued(cl, pool);
	if (t->queued0 < 0) {
		if (t->queued0 != -ENOTSUP)
			fprintf(stderr, "rbdsnap: %s: osd dump failed: %s (snapshot trimming not checked)\n",
				sd->what, strerror(-t->queued0));
		return;
	}
	if (!t->queued0)
		return;
	if (!o->snap_trim_wait) {
		fprintf(stderr, "rbdsnap: pool %s: %ld removed snapshot(s) not yet trimmed: the baseline "
			"shares the OSDs with their trimming (snap_trim_wait= waits for it)\n",
			o->pool_name, t->queued0);
		return;
	}
	fprintf(stderr, "rbdsnap: pool %s: %ld removed snapshot(s) not yet trimmed: waiting up to %llus "
		"(snap_trim_wait)\n", o->pool_name, t->queued0, o->snap_trim_wait / 1000000);
	while (t->queued > 0 && !td->terminate &&
	       latstat_now_ns() - t0 < o->snap_trim_wait * 1000) {
		usleep(1000000);
		t->queued = rs_trim_queued(cl, pool);
	}
	t->waited_ns = latstat_now_ns() - t0;
	if (t->queued)
		fprintf(stderr, "rbdsnap: pool %s: %ld snapshot(s) still being trimmed after %.1fs: the "
			"baseline shares the OSDs with it\n", o->pool_name, t->queued, t->waited_ns / 1e9);
	else
		fprintf(stderr, "rbdsnap: pool %s: trimmed after %.1fs\n", o->pool_name, t->waited_ns / 1e9);
}

/* Job thread, before the first I/O: the clock starts, helpers start. */
static int fio_rbdsnap_init(struct thread_data *td)
{
	struct rbdsnap_data *sd = td->io_ops_data;
	struct rbdsnap_options *o = td->eo;
	struct rs_sched_cfg *c;
	int r;

	/* create_serialize=0: fio runs init before setup, sd does not exist yet */
	if (fio_store_check_modes(td, "rbdsnap"))
		return 1;
	c = &sd->sched.cfg;
	if (!sd->connected && rbdsnap_connect(td, sd))
		return 1;
	if (!sd->track)
		return 0;
	rbdsnap_trim_wait(td, sd);
	c->interval_ns = o->snap_interval * 1000;
	c->start_delay_ns = o->snap_start_delay * 1000;
	c->hold_ns = o->snap_hold * 1000;
	c->health_ns = o->health_interval * 1000;
	c->every = o->snap_every;
	c->keep = o->snap_keep;
	c->count = o->snap_count;
	c->prefix = o->snap_prefix;
	c->snapshots = o->snap_interval || o->snap_every || o->snap_start_delay;
	c->osd_slow = o->osd_slow_ops && o->health_interval;
	/*
	 * The health and OSD threads use a client of their own: the job's client
	 * stalls whole when its Objecter's in-flight throttle is full (a hung
	 * OSD: ~1024 writes later), and a hung OSD's reads must time out.
	 */
	if (c->health_ns && !sd->help_conn) {
		sd->help_conn = rbdsnap_conn_get(o, RS_OSD_TIMEOUT_S);
		if (!sd->help_conn)
			return 1;
	}
	sd->sched.help_cluster = c->health_ns ? ceph_conn_rados(sd->help_conn) : NULL;
	sd->timeout0 = td->o.timeout;
	sd->sched.image = sd->image;
	sd->sched.cluster = ceph_conn_rados(sd->conn);
	r = rs_sched_start(&sd->sched);
	sd->sched_on = true;	/* stop joins whatever did start */
	rs_report_init(&sd->rep, sd->sched.t0_ns, o->slow_threshold * 1000);
	if (r) {
		log_err("rbdsnap: pthread_create failed: %s\n", strerror(-r));
		return 1;
	}
	return 0;
}

static void rbdsnap_finish(struct thread_data *td, struct rbdsnap_data *sd)
{
	struct rbdsnap_options *o = td->eo;
	struct fio_report r;
	struct rs_meta m = {
		.job = td->o.name, .pool = o->pool_name, .image = o->rbd_name,
		.runid = sd->sched.runid, .prefix = o->snap_prefix, .cache = sd->cache,
		.cache_policy = sd->policy[0] ? sd->policy : NULL,
		.image_size = sd->image_size, .cfg = &sd->sched.cfg,
		.stale_found = sd->stale_found, .stale_removed = sd->stale_removed,
		.trim = &sd->trim,
	};
	size_t i;

	rbdsnap_drain(td, sd);
	rs_report_end(&sd->rep, rbdsnap_end_ns(sd));
	/* fio ends jobs normally on SIGINT/SIGTERM: this runs then too */
	rs_sched_stop(&sd->sched, o->snap_remove_at_end);
	sd->keep_record = sd->sched.nown > 0;
	rbdsnap_drain(td, sd);
	sd->sched_on = false;
	/* -1 (refused) only when no OSD ever answered; one that failed its last read: lower bound */
	sd->rep.osd_polls = -1;
	for (i = 0; i < (size_t)sd->sched.nosds; i++) {
		if (sd->sched.osd_reads[i])
			sd->rep.osd_polls = sd->sched.osd_polls;
		sd->rep.osd_failed |= sd->sched.osd_failed[i];
	}
	if (!sd->sched.osd_poll_err)
		sd->rep.osd_polls = sd->sched.osd_polls;
	sd->rep.osd_slow_keep_s = sd->sched.osd_keep_s;
	sd->rep.osd_overflow = sd->sched.osd_overflow;
	sd->rep.osd_ls_err = sd->sched.osd_ls_err;
	sd->rep.osd_client = sd->sched.client_id;
	sd->rep.osd_rt_minus_mono = sd->sched.rt_minus_mono;
	for (i = 0; i < sd->sched.noops; i++)
		rs_report_osd_op(&sd->rep, &sd->sched.oops[i]);
	if (o->snap_after && !sd->rep.after_ns)
		fprintf(stderr, "rbdsnap: %s: the 'after' phase was never reached (snap_after=%llus)\n",
			td->o.name, o->snap_after / 1000000);
	m.dropped = sd->sched.dropped;
	m.created = sd->sched.created;
	m.create_failed = sd->sched.create_failed;
	m.create_err = sd->sched.create_err;
	/* no snapshot, though the schedule asked: the job failed, whatever the error */
	if (sd->sched.cfg.snapshots && !m.created && m.create_failed)
		td_verror(td, -m.create_err, "rbd_snap_create");
	rs_report_print(fio_report_begin(&r), &sd->rep, &m);
	fio_report_end(&r);
	if (o->snap_json) {
		struct rs_json_arg a = { .r = &sd->rep, .m = &m };

		/* as every dbfio sidecar: the name as given, .N for each job of numjobs>1 */
		fio_store_sidecar(td, "rbdsnap", "snap_json", o->snap_json, 2, rs_report_json, &a);
	}
	rs_report_free(&sd->rep);
	rs_sched_free(&sd->sched);
}

static void fio_rbdsnap_cleanup(struct thread_data *td)
{
	struct rbdsnap_data *sd = td->io_ops_data;

	if (!sd)
		return;
	if (sd->sched_on)
		rbdsnap_finish(td, sd);
	/* kept snapshots keep it: once this process is gone, a purge may take them */
	if (sd->recorded && !sd->keep_record && sd->image)
		rs_run_unrecord(sd->image, sd->sched.runid);
	rbdsnap_disconnect(sd);
	free(sd->aio_events);
	free(sd);
	td->io_ops_data = NULL;
}

/*
 * snap_every=N on a job that cannot complete N I/Os (number_ios, or size /
 * the smallest bs, times loops, without time_based) would take no snapshot.
 */
static int rbdsnap_check_every(struct thread_data *td, uint64_t image_size)
{
	struct rbdsnap_options *o = td->eo;
	unsigned long long most, bytes, bs = td->o.min_bs[td_write(td) ? DDIR_WRITE : DDIR_READ];

	if (!o->snap_every || (!td->o.number_ios && td->o.time_based))
		return 0;
	if (td_read(td) && td_write(td) && td->o.min_bs[DDIR_READ] < bs)
		bs = td->o.min_bs[DDIR_READ];
	bytes = td->o.io_size ? td->o.io_size : td->o.size && !td->o.size_percent ? td->o.size : image_size;
	most = bs ? bytes / bs * (td->o.loops ? td->o.loops : 1) : ~0ull;
	if (td->o.number_ios && (td->o.time_based || td->o.number_ios < most))
		most = td->o.number_ios;
	if (most >= (unsigned long long)o->snap_every)
		return 0;
	log_err("rbdsnap: snap_every=%d: the job completes at most %llu I/Os (%s): it would take no "
		"snapshot; lower snap_every or lengthen the job\n", o->snap_every, most,
		td->o.number_ios ? "number_ios" : "size / bs");
	return 1;
}

/* Main thread, before the jobs start: connect, size the image, look for leftovers. */
static int fio_rbdsnap_setup(struct thread_data *td)
{
	struct rbdsnap_options *o = td->eo;
	struct rbdsnap_data *sd;
	rbd_image_info_t info;
	int r;

	if (td->io_ops_data)
		return 0;
	if (fio_store_check_version("rbdsnap") || fio_store_check_modes(td, "rbdsnap") ||
	    fio_engine_check_opts(td, "rbdsnap") ||
	    rbdsnap_check_opts(o))
		return 1;
	sd = calloc(1, sizeof(*sd));
	if (!sd)
		return 1;
	sd->fd = -1;
	sd->aio_events = calloc(td->o.iodepth, sizeof(struct io_u *));
	td->io_ops_data = sd;
	if (!sd->aio_events)
		goto err;
	/* librbd does not survive fork: the job must run in this process */
	td->o.use_thread = 1;

	if (rbdsnap_connect(td, sd))
		goto err;
	r = rbd_stat(sd->image, &info, sizeof(info));
	if (r < 0 || !info.size) {
		log_err("rbdsnap: rbd_stat(%s) failed: %s\n", sd->what,
			r < 0 ? strerror(-r) : "image size is 0");
		goto err;
	}
	sd->image_size = info.size;
	if (rbdsnap_check_every(td, info.size))
		goto err;
	/* as fio's rbd engine: a pseudo file the size of the image */
	if (!td->files_index) {
		add_file(td, td->o.filename ? : "rbd", 0, 0);
		td->o.nr_files = td->o.nr_files ? : 1;
		td->o.open_files++;
	}
	td->files[0]->real_file_size = info.size;

	rbdsnap_cache_state(sd);
	rs_make_runid(sd->sched.runid, sizeof(sd->sched.runid));
	sd->track = o->snap_interval || o->snap_every || o->snap_start_delay || o->snap_json;
	r = rs_stale_scan(sd->image, sd->what, o->snap_prefix, o->snap_purge_stale,
			  &sd->stale_removed);
	if (r < 0)
		fprintf(stderr, "rbdsnap: rbd_snap_list(%s) failed: %s (stale snapshots not checked)\n",
			sd->what, strerror(-r));
	else
		sd->stale_found = r;
	/* before the first snapshot: a purge by another run must know this one lives */
	if (o->snap_interval || o->snap_every || o->snap_start_delay) {
		r = rs_run_record(sd->image, sd->sched.runid);
		if (r < 0)
			fprintf(stderr, "rbdsnap: rbd_metadata_set(%s, dbfio.rbdsnap.run.%s) failed: %s "
				"(were this run killed, snap_purge_stale could not remove its snapshots)\n",
				sd->what, sd->sched.runid, strerror(-r));
		sd->recorded = r >= 0;
	}
	if (sd->track)
		fprintf(stderr, "rbdsnap: %s: %llu MiB, librbd cache %s%s%s%s, run %s\n",
			sd->what, (unsigned long long)(info.size >> 20), sd->cache,
			sd->policy[0] ? " (" : "", sd->policy, sd->policy[0] ? ")" : "",
			sd->sched.runid);
	return 0;
err:
	fio_rbdsnap_cleanup(td);
	return 1;
}

static int fio_rbdsnap_open(struct thread_data *td, struct fio_file *f)
{
	return 0;
}

static int fio_rbdsnap_invalidate(struct thread_data *td, struct fio_file *f)
{
#ifdef CONFIG_RBD_INVAL
	struct rbdsnap_data *sd = td->io_ops_data;

	return rbd_invalidate_cache(sd->image);
#else
	return 0;
#endif
}

static void fio_rbdsnap_io_u_free(struct thread_data *td, struct io_u *io_u)
{
	free(io_u->engine_data);
	io_u->engine_data = NULL;
}

static int fio_rbdsnap_io_u_init(struct thread_data *td, struct io_u *io_u)
{
	struct rbdsnap_iou *fri = calloc(1, sizeof(*fri));

	if (!fri)
		return 1;
	fri->io_u = io_u;
	io_u->engine_data = fri;
	return 0;
}

struct ioengine_ops ioengine = {
	.name			= "rbdsnap",
	.version		= FIO_IOOPS_VERSION,
	.setup			= fio_rbdsnap_setup,
	.init			= fio_rbdsnap_init,
	.queue			= fio_rbdsnap_queue,
	.getevents		= fio_rbdsnap_getevents,
	.event			= fio_rbdsnap_event,
	.cleanup		= fio_rbdsnap_cleanup,
	.open_file		= fio_rbdsnap_open,
	.invalidate		= fio_rbdsnap_invalidate,
	.options		= options,
	.io_u_init		= fio_rbdsnap_io_u_init,
	.io_u_free		= fio_rbdsnap_io_u_free,
	.option_struct_size	= sizeof(struct rbdsnap_options),
};
