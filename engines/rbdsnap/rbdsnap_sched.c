/*
 * rbdsnap_sched.c - the rbdsnap engine's helper threads: a snapshot thread
 * that creates and trims snapshots of the job's image on the schedule (as an
 * operator's `rbd snap create` would interleave with the writer), and a
 * health thread that polls the monitor for SLOW_OPS.
 *
 * Neither thread touches fio: what they measure goes through a small ring
 * that the job thread drains (fio's statistics take no lock).
 *
 * Safety rules live here: a snapshot is only ever removed if this run made
 * it, or if it is named exactly <prefix><8 hex>-<n> (what a killed run
 * leaves), the run of that id is known to be gone, snap_purge_stale=1 was
 * given and it is not protected. A run that takes snapshots records its
 * holder (store_holder_self, as the rbd store's image lock does) in the
 * image's metadata, dbfio.rbdsnap.run.<id>, before its first, and removes
 * the record when none of its snapshots is left: a run whose record names a
 * process of this host that no longer runs is gone; one without a record,
 * or held elsewhere, is not known to be, and its snapshots are left alone.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rbdsnap.h"
#include "store/store.h"

#define RS_RUN_KEY	"dbfio.rbdsnap.run."	/* + run id: image metadata, the run's holder */

/* each read of an OSD's slow-op history is up to ~1 MB of JSON: not every second */
#define RS_OSD_POLL_NS	(5 * 1000000000ull)

const char *rs_health_name(int h)
{
	switch (h) {
	case 0: return "HEALTH_OK";
	case 1: return "HEALTH_WARN";
	case 2: return "HEALTH_ERR";
	default: return "unknown";
	}
}

void rs_make_runid(char *buf, size_t len)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(buf, len, "%08x", (unsigned int)(ts.tv_sec ^ (ts.tv_nsec << 8) ^
						   ((unsigned long)getpid() << 16)));
}

/* <prefix><8 lowercase hex>-<n>, n decimal from 1 without a leading zero:
 * the names rbdsnap makes ("%s%s-%d" of created + 1), nothing else */
bool rs_is_own_name(const char *name, const char *prefix)
{
	size_t pl = strlen(prefix);
	int i;

	if (strncmp(name, prefix, pl))
		return false;
	name += pl;
	for (i = 0; i < 8; i++)
		if (!isxdigit((unsigned char)name[i]) || isupper((unsigned char)name[i]))
			return false;
	if (name[8] != '-' || name[9] < '1' || name[9] > '9')
		return false;
	for (name += 9; *name; name++)
		if (!isdigit((unsigned char)*name))
			return false;
	return true;
}

static void rs_run_key(char *key, size_t len, const char *runid)
{
	snprintf(key, len, "%s%.8s", RS_RUN_KEY, runid);
}

int rs_run_record(rbd_image_t image, const char *runid)
{
	char key[64], holder[256];

	rs_run_key(key, sizeof(key), runid);
	store_holder_self(holder, sizeof(holder));
	return rbd_metadata_set(image, key, holder);
}

void rs_run_unrecord(rbd_image_t image, const char *runid)
{
	char key[64];

	rs_run_key(key, sizeof(key), runid);
	rbd_metadata_remove(image, key);
}

/*
 * Is the run whose id starts at runid gone? 1 when its record names a
 * process of this host that no longer runs; else 0 and why not in buf.
 */
static int rs_run_gone(rbd_image_t image, const char *runid, char *buf, size_t len)
{
	char key[64], holder[256], desc[320];
	size_t hlen = sizeof(holder);
	int r;

	rs_run_key(key, sizeof(key), runid);
	r = rbd_metadata_get(image, key, holder, &hlen);
	if (r == -ENOENT) {
		snprintf(buf, len, "its run's holder is unknown (no %s in rbd image-meta list)", key);
		return 0;
	}
	if (r < 0) {
		snprintf(buf, len, "rbd_metadata_get(%s) failed: %s", key, strerror(-r));
		return 0;
	}
	if (store_holder_gone(holder))
		return 1;
	store_holder_describe(holder, desc, sizeof(desc));
	snprintf(buf, len, "its run %.8s is held by %s, not known to be gone", runid, desc);
	return 0;
}

/* After a purge: the records of runs none of whose snapshots is left. */
static void rs_run_tidy(rbd_image_t image, const rbd_snap_info_t *snaps, const bool *removed,
			int n, size_t pl)
{
	char runid[9];
	int i, j;

	for (i = 0; i < n; i++) {
		if (!removed[i])
			continue;
		snprintf(runid, sizeof(runid), "%s", snaps[i].name + pl);
		for (j = 0; j < n; j++)
			if (!removed[j] && strstr(snaps[j].name, runid))
				break;
		if (j == n)
			rs_run_unrecord(image, runid);
	}
}

#ifdef RBDSNAP_HAVE_SNAP_CREATE2
/* librbd's C wrapper calls the progress callback unconditionally */
static int rs_no_progress(uint64_t offset, uint64_t total, void *arg)
{
	return 0;
}
#endif

static int rs_snap_create(rbd_image_t image, const char *name)
{
#ifdef RBDSNAP_HAVE_SNAP_CREATE2
	/* flags 0: notify quiesce watchers, as `rbd snap create` does */
	return rbd_snap_create2(image, name, 0, rs_no_progress, NULL);
#else
	return rbd_snap_create(image, name);
#endif
}

static int rs_snap_remove(rbd_image_t image, const char *name)
{
#ifdef RBDSNAP_HAVE_SNAP_CREATE2
	/* flags 0: never unprotect, never force */
	return rbd_snap_remove2(image, name, 0, rs_no_progress, NULL);
#else
	return rbd_snap_remove(image, name);
#endif
}

/*
 * Report snapshots a killed run left behind (own name pattern, a run that is
 * gone); remove them only when asked, and never a protected one. Snapshots
 * of a run not known to be gone are named and left alone. Returns how many
 * stale ones were found, or -errno when the list itself failed.
 */
int rs_stale_scan(rbd_image_t image, const char *what, const char *prefix,
		  bool purge, int *removed)
{
	rbd_snap_info_t *snaps = NULL;
	bool *gone = NULL;
	char why[512];
	int max = 16, n, i, found = 0;

	*removed = 0;
	for (;;) {
		snaps = calloc(max, sizeof(*snaps));
		if (!snaps)
			return -ENOMEM;
		n = rbd_snap_list(image, snaps, &max);
		if (n != -ERANGE)
			break;
		free(snaps);
	}
	if (n < 0 || !(gone = calloc(n + 1, sizeof(*gone)))) {
		if (n >= 0)
			rbd_snap_list_end(snaps);
		free(snaps);
		return n < 0 ? n : -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const char *nm = snaps[i].name;
		int prot = 0, r;

		if (!rs_is_own_name(nm, prefix))
			continue;
		if (!rs_run_gone(image, nm + strlen(prefix), why, sizeof(why))) {
			fprintf(stderr, "rbdsnap: %s@%s: %s: left alone\n", what, nm, why);
			continue;
		}
		found++;
		if (rbd_snap_is_protected(image, nm, &prot) < 0 || prot) {
			fprintf(stderr, "rbdsnap: %s@%s: stale but protected: left alone\n", what, nm);
			continue;
		}
		if (!purge) {
			fprintf(stderr, "rbdsnap: %s@%s: stale snapshot from an earlier run "
				"(snap_purge_stale=1 removes it)\n", what, nm);
			continue;
		}
		r = rs_snap_remove(image, nm);
		if (r < 0)
			fprintf(stderr, "rbdsnap: rbd_snap_remove(%s@%s) failed: %s\n",
				what, nm, strerror(-r));
		else {
			fprintf(stderr, "rbdsnap: %s@%s: stale snapshot removed\n", what, nm);
			(*removed)++;
			gone[i] = true;
		}
	}
	if (*removed)
		rs_run_tidy(image, snaps, gone, n, strlen(prefix));
	rbd_snap_list_end(snaps);
	free(snaps);
	free(gone);
	return found;
}

static void rs_push(struct rs_sched *s, const struct rs_event *e)
{
	pthread_mutex_lock(&s->lock);
	if (s->head - s->tail >= RS_RING)
		s->dropped++;
	else
		s->ring[s->head++ % RS_RING] = *e;
	pthread_mutex_unlock(&s->lock);
}

int rs_sched_drain(struct rs_sched *s, struct rs_event *out, int max)
{
	int n = 0;

	if (s->head == s->tail)	/* racy peek: the next call sees the rest */
		return 0;
	pthread_mutex_lock(&s->lock);
	while (n < max && s->tail != s->head)
		out[n++] = s->ring[s->tail++ % RS_RING];
	pthread_mutex_unlock(&s->lock);
	return n;
}

/* Job thread: count completions; wake the snapshot thread for snap_every. */
void rs_sched_kick(struct rs_sched *s, unsigned int ios)
{
	uint64_t before = s->ios, now = before + ios;

	__atomic_store_n(&s->ios, now, __ATOMIC_RELAXED);
	if (s->cfg.every && before / s->cfg.every != now / s->cfg.every) {
		pthread_mutex_lock(&s->lock);
		pthread_cond_signal(&s->cond);
		pthread_mutex_unlock(&s->lock);
	}
}

static void rs_op(struct rs_sched *s, int type, const char *name)
{
	struct rs_event e = { .type = type, .health = -2 };
	uint64_t t = latstat_now_ns();
	int r;

	/* the phase "creating/removing" begins now: I/Os issued from here on
	 * belong to it, however long the call makes them wait */
	e.type = type == RS_EV_CREATE ? RS_EV_CREATE_START : RS_EV_REMOVE_START;
	e.t_ns = t;
	e.live = s->nown;
	snprintf(e.name, sizeof(e.name), "%s", name);
	rs_push(s, &e);
	e.type = type;

	r = type == RS_EV_CREATE ? rs_snap_create(s->image, name) :
				   rs_snap_remove(s->image, name);
	e.t_ns = latstat_now_ns();
	e.lat_ns = e.t_ns - t;
	e.ret = r;
	snprintf(e.name, sizeof(e.name), "%s", name);
	if (r < 0)
		fprintf(stderr, "rbdsnap: rbd_snap_%s(%s) failed: %s\n",
			type == RS_EV_CREATE ? "create" : "remove", name, strerror(-r));
	if (type == RS_EV_CREATE && r < 0 && !s->create_failed++)
		s->create_err = r;
	if (type == RS_EV_CREATE && r >= 0) {
		if (s->nown == s->own_cap) {
			int cap = s->own_cap ? 2 * s->own_cap : 8;
			void *p = realloc(s->own, cap * sizeof(*s->own));

			if (!p) {	/* cannot track it: remove it again at once */
				rs_snap_remove(s->image, name);
				return;
			}
			s->own = p;
			s->own_cap = cap;
		}
		snprintf(s->own[s->nown++], RS_NAME_MAX, "%s", name);
		s->created++;
	} else if (type == RS_EV_REMOVE && r >= 0) {
		memmove(s->own[0], s->own[1], (s->nown - 1) * sizeof(*s->own));
		s->nown--;
		s->removed++;
	}
	e.live = s->nown;
	rs_push(s, &e);
}

/*
 * snap_keep=N means at most N live: the oldest goes *before* the next is
 * created (an operator's rotation that creates first would have N+1 for the
 * length of a removal). If that removal fails, no new snapshot is made.
 */
static void rs_create_next(struct rs_sched *s)
{
	char name[RS_NAME_MAX];

	while (s->cfg.keep && s->nown >= s->cfg.keep) {
		int before = s->nown;

		rs_op(s, RS_EV_REMOVE, s->own[0]);
		if (s->nown == before)
			return;	/* failed: try again at the next turn */
	}
	snprintf(name, sizeof(name), "%s%s-%d", s->cfg.prefix, s->runid, s->created + 1);
	rs_op(s, RS_EV_CREATE, name);
}

static void rs_remove_all(struct rs_sched *s)
{
	while (s->nown > 0) {
		int before = s->nown;

		rs_op(s, RS_EV_REMOVE, s->own[0]);
		if (s->nown == before) {
			fprintf(stderr, "rbdsnap: %d snapshot(s) %s* could not be removed\n",
				s->nown, s->cfg.prefix);
			break;
		}
	}
}

static void rs_wait_until(struct rs_sched *s, uint64_t when_ns)
{
	struct timespec ts = {
		.tv_sec = when_ns / 1000000000ull,
		.tv_nsec = when_ns % 1000000000ull,
	};

	pthread_mutex_lock(&s->lock);
	if (!s->stop)
		pthread_cond_timedwait(&s->cond, &s->lock, &ts);
	pthread_mutex_unlock(&s->lock);
}

static bool rs_stopping(struct rs_sched *s)
{
	bool stop;

	pthread_mutex_lock(&s->lock);
	stop = s->stop;
	pthread_mutex_unlock(&s->lock);
	return stop;
}

static void *rs_snap_thread(void *arg)
{
	struct rs_sched *s = arg;
	const struct rs_sched_cfg *c = &s->cfg;
	uint64_t start = s->t0_ns + c->start_delay_ns;
	uint64_t next_t = c->start_delay_ns ? start : s->t0_ns + c->interval_ns;
	uint64_t next_io = c->every, done_t = 0, wake;
	int limit = c->count ? c->count : (!c->interval_ns && !c->every ? 1 : 0);

	while (!rs_stopping(s)) {
		uint64_t now = latstat_now_ns();
		bool full = limit && s->created >= limit;
		bool due = false;

		if (!full && now >= start) {
			if (c->interval_ns || !c->every)
				due = now >= next_t;
			if (c->every && __atomic_load_n(&s->ios, __ATOMIC_RELAXED) >= next_io)
				due = true;
		}
		if (due) {
			rs_create_next(s);
			now = latstat_now_ns();
			if (c->interval_ns)
				while (next_t <= now)
					next_t += c->interval_ns;
			if (c->every)
				next_io = (__atomic_load_n(&s->ios, __ATOMIC_RELAXED) / c->every + 1) * c->every;
			if (limit && s->created >= limit)
				done_t = now;
			continue;
		}
		if (full && c->hold_ns && s->nown && now >= done_t + c->hold_ns)
			rs_remove_all(s);
		/* sleep until the next timed event; snap_every wakes us by signal */
		wake = now + 1000000000ull;
		if (!full && c->interval_ns && next_t < wake)
			wake = next_t;
		if (!full && now < start && start < wake)
			wake = start;
		if (full && c->hold_ns && s->nown && done_t + c->hold_ns < wake)
			wake = done_t + c->hold_ns;
		rs_wait_until(s, wake);
	}
	return NULL;
}

/*
 * The names of the checks raised, the keys of "checks": {"OSD_FULL": {...},
 * "SLOW_OPS": {...}}, comma-separated into out (a name that does not fit is
 * left out whole).
 */
static void rs_parse_checks(const char *js, char *out, size_t len)
{
	const char *p = strstr(js, "\"checks\":"), *end, *k, *q, *v;
	size_t n = 0;

	out[0] = '\0';
	p = p ? strchr(p, '{') : NULL;
	end = p ? rs_json_close(p) : NULL;
	/* each member "NAME": {...} (a check's name has no escapes), its value skipped whole */
	while (end && (k = strchr(p + 1, '"')) && k < end) {
		q = strchr(k + 1, '"');
		v = q ? strchr(q, '{') : NULL;
		if (!v || v > end)
			return;
		if (n + (q - k - 1) + 2 <= len)
			n += snprintf(out + n, len - n, "%s%.*s", n ? "," : "", (int)(q - k - 1), k + 1);
		p = rs_json_close(v);
		if (!p)
			return;
	}
}

/* {"status":"HEALTH_WARN","checks":{"SLOW_OPS":{..."message":"12 slow ops, ..."}}} */
static void rs_parse_health(const char *js, struct rs_event *e)
{
	const char *p;

	e->health = 0;
	rs_parse_checks(js, e->checks, sizeof(e->checks));
	if (strstr(js, "\"HEALTH_ERR\""))
		e->health = 2;
	else if (strstr(js, "\"HEALTH_WARN\""))
		e->health = 1;
	snprintf(e->name, sizeof(e->name), "%s", rs_health_name(e->health));
	p = strstr(js, "\"SLOW_OPS\"");
	if (!p)
		return;
	p = strstr(p, "\"message\":\"");
	if (!p)
		return;
	p += strlen("\"message\":\"");
	e->slow_ops = strtoul(p, NULL, 10);
	if (!e->slow_ops)
		e->slow_ops = 1;
	snprintf(e->name, sizeof(e->name), "%.*s", (int)strcspn(p, "\""), p);
}

static void *rs_health_thread(void *arg)
{
	struct rs_sched *s = arg;
	const char *cmd[] = { "{\"prefix\": \"health\", \"format\": \"json\"}" };
	uint64_t next = latstat_now_ns();

	while (!rs_stopping(s)) {
		struct rs_event e = { .type = RS_EV_HEALTH, .health = -1 };
		char *out = NULL, *outs = NULL;
		size_t outlen = 0, outslen = 0;
		uint64_t t = latstat_now_ns();
		int r;

		if (t < next) {
			rs_wait_until(s, next);
			continue;
		}
		/* bounded by rados_mon_op_timeout, set at connect */
		r = rados_mon_command(s->help_cluster, cmd, 1, "", 0, &out, &outlen, &outs, &outslen);
		e.t_ns = latstat_now_ns();
		e.lat_ns = e.t_ns - t;
		e.ret = r;
		if (r >= 0 && out) {
			char *js = strndup(out, outlen);

			if (js)
				rs_parse_health(js, &e);
			free(js);
		} else
			snprintf(e.name, sizeof(e.name), "health poll failed: %s", strerror(-r));
		rados_buffer_free(out);
		rados_buffer_free(outs);
		rs_push(s, &e);
		next += s->cfg.health_ns;
		if (next < e.t_ns)
			next = e.t_ns + s->cfg.health_ns;
	}
	return NULL;
}

/*
 * The OSDs' slow-op histories, beside the health polls: a read takes seconds
 * when histories are full, and fails after RS_OSD_TIMEOUT_S on a dead OSD.
 */
static void *rs_osd_thread(void *arg)
{
	struct rs_sched *s = arg;
	uint64_t next = latstat_now_ns() + RS_OSD_POLL_NS;

	rs_osd_init(s);
	while (!rs_stopping(s)) {
		if (latstat_now_ns() < next) {
			rs_wait_until(s, next);
			continue;
		}
		/* a history that overflowed: read again sooner */
		next = latstat_now_ns() + (rs_osd_poll(s) ? RS_OSD_POLL_NS / 5 : RS_OSD_POLL_NS);
	}
	return NULL;
}

int rs_sched_start(struct rs_sched *s)
{
	pthread_condattr_t ca;
	int r;

	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);	/* latstat_now_ns's clock */
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	s->t0_ns = latstat_now_ns();
	if (s->cfg.snapshots) {
		r = pthread_create(&s->snap_thread, NULL, rs_snap_thread, s);
		if (r)
			return -r;
		s->snap_started = true;
	}
	if (s->cfg.health_ns) {
		r = pthread_create(&s->health_thread, NULL, rs_health_thread, s);
		if (r)
			return -r;
		s->health_started = true;
	}
	if (s->cfg.osd_slow) {
		r = pthread_create(&s->osd_thread, NULL, rs_osd_thread, s);
		if (r)
			return -r;
		s->osd_started = true;
	}
	return 0;
}

/* Job thread, at the end (also after SIGINT/SIGTERM: fio ends jobs normally). */
void rs_sched_stop(struct rs_sched *s, bool remove_own)
{
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (s->snap_started) {
		pthread_join(s->snap_thread, NULL);
		s->snap_started = false;
	}
	if (s->health_started) {
		pthread_join(s->health_thread, NULL);
		s->health_started = false;
	}
	if (s->osd_started) {
		pthread_join(s->osd_thread, NULL);
		s->osd_started = false;
		if (s->nosds)
			rs_osd_poll_last(s);	/* what the last seconds added */
	}
	if (remove_own)
		rs_remove_all(s);
	else if (s->nown)
		fprintf(stderr, "rbdsnap: snap_remove_at_end=0: %d snapshot(s) %s%s-* kept (a later "
			"run's snap_purge_stale=1 removes them)\n", s->nown, s->cfg.prefix, s->runid);
}

void rs_sched_free(struct rs_sched *s)
{
	free(s->own);
	free(s->oops);
	s->oops = NULL;
	s->noops = s->oops_cap = 0;
	s->own = NULL;
	s->nown = s->own_cap = 0;
}
