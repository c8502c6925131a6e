/*
 * rbdsnap_conn.c - the rbdsnap engine's checks of options that need one
 * another, its cluster client (the process's shared one, from
 * store/ceph_conn.c: registry, timeout policy and error line are there) and
 * the OSDs' slow-op records. No fio header: messages go to
 * stderr, one line each.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rbdsnap.h"

/*
 * What fio's parser cannot check (it checked each value's range, the
 * prefix's length and, fio_engine_check_opts, negative numbers): options
 * that need one another, "0 or at least ...", and the prefix's characters.
 */
int rbdsnap_check_opts(struct rbdsnap_options *o)
{
	bool trigger = o->snap_interval || o->snap_every || o->snap_start_delay;

	if (!o->pool_name || !o->rbd_name) {
		fprintf(stderr, "rbdsnap: %s= is required\n", o->pool_name ? "rbdname" : "pool");
		return 1;
	}
	if (!trigger && (o->snap_keep || o->snap_count || o->snap_hold)) {
		fprintf(stderr, "rbdsnap: snap_%s=%llu: needs snap_interval, snap_every or snap_start_delay\n",
			o->snap_keep ? "keep" : o->snap_count ? "count" : "hold",
			o->snap_keep ? (unsigned long long)o->snap_keep :
			o->snap_count ? (unsigned long long)o->snap_count : o->snap_hold / 1000000);
		return 1;
	}
	if (!o->snap_interval && !o->snap_every && o->snap_count > 1) {
		fprintf(stderr, "rbdsnap: snap_count=%d: snap_start_delay alone takes one snapshot; "
			"add snap_interval or snap_every\n", o->snap_count);
		return 1;
	}
	if (o->snap_hold && !o->snap_count && (o->snap_interval || o->snap_every)) {
		fprintf(stderr, "rbdsnap: snap_hold=%llus: needs snap_count (when is the last snapshot?)\n",
			o->snap_hold / 1000000);
		return 1;
	}
	if (o->snap_after && !o->snap_hold) {
		fprintf(stderr, "rbdsnap: snap_after=%llus: needs snap_hold (else the snapshots go at the end)\n",
			o->snap_after / 1000000);
		return 1;
	}
	if (o->snap_after && o->snap_keep == 1) {
		fprintf(stderr, "rbdsnap: snap_after=%llus with snap_keep=1: each rotation removes the only "
			"snapshot, so 'after' would begin at the first rotation; use snap_keep>=2\n",
			o->snap_after / 1000000);
		return 1;
	}
	if (!o->snap_prefix || !*o->snap_prefix || strpbrk(o->snap_prefix, "@/ \t")) {
		fprintf(stderr, "rbdsnap: snap_prefix=%s: 1-64 characters, no '@', '/' or blanks\n",
			o->snap_prefix ? o->snap_prefix : "");
		return 1;
	}
	if (o->health_interval && o->health_interval < 100000) {
		fprintf(stderr, "rbdsnap: health_interval=%lluus: below 100ms floods the monitor\n",
			o->health_interval);
		return 1;
	}
	return 0;
}

/* The job's cluster client: the process's shared one (store/ceph_conn.h). */
struct ceph_conn *rbdsnap_conn_get(struct rbdsnap_options *o, unsigned int osd_timeout_s)
{
	const struct ceph_conn_id id = {
		.who = "rbdsnap", .cluster = o->cluster_name, .client = o->client_name,
		.timeout_s = o->connect_timeout / 1000000, .osd_timeout_s = osd_timeout_s,
	};
	struct ceph_conn *c;
	char err[512];

	if (ceph_conn_get(CEPH_CONN_RADOS, &id, &c, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return NULL;
	}
	return c;
}

/* ---------------------------------------------------------------- OSD slow ops
 *
 * Ceph's own count of slow requests: each OSD keeps the ops that took at
 * least osd_op_history_slow_op_threshold (dump_historic_slow_ops, the last
 * osd_op_history_slow_op_size of them). A thread of their own reads them every
 * few seconds through rados_osd_command (as `ceph tell osd.N` does) on a
 * client of its own whose OSD ops time out (RS_OSD_TIMEOUT_S: a dead OSD
 * neither stalls the health polls nor keeps fio from ending), keeps
 * each record once, and the job thread books them to the phase in which
 * the OSD received the op.
 */

/* pointer to the value of "key": in js (any spacing), or NULL */
static const char *rs_json_val(const char *js, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\"", key);
	p = strstr(js, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	while (*p == ' ' || *p == ':' || *p == '\n' || *p == '\t')
		p++;
	return p;
}

static uint64_t rs_fnv(uint64_t h, const char *p, size_t n)
{
	while (n--)
		h = (h ^ (unsigned char)*p++) * 1099511628211ull;
	return h;
}

/* "2026-11-30T15:51:48.757427+0000" -> ns since the epoch (0 if not that) */
static uint64_t rs_parse_stamp(const char *p)
{
	struct tm tm = { 0 };
	long us = 0;
	int oh = 0, om = 0;
	char sign = '+';
	time_t t;

	if (sscanf(p, "%4d-%2d-%2dT%2d:%2d:%2d.%6ld%c%2d%2d", &tm.tm_year, &tm.tm_mon,
		   &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &us, &sign, &oh, &om) < 7)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	t = timegm(&tm) - (sign == '-' ? -1 : 1) * (oh * 3600 + om * 60);
	return (uint64_t)t * 1000000000ull + (uint64_t)us * 1000ull;
}

/*
 * Whose op: the job's client issues the image's I/O and its snapshot calls
 * (one rados_t opened the image); a replica's record of the same write names
 * the same client (osd_repop(client.N.0:tid ...)). Other clients' ops (other
 * jobs, mounts, the MDS) are the cluster's, not this run's.
 */
static int rs_osd_who(const struct rs_sched *s, const char *d, size_t dl)
{
	size_t n = strlen(s->own_op);

	if (dl > n && !strncmp(d, s->own_op, n))
		return RS_OSD_OWN;
	n = strlen(s->own_repop);
	if (dl > n && !strncmp(d, s->own_repop, n))
		return RS_OSD_REPOP;
	return RS_OSD_OTHER;
}

/* 1 if the record is new */
static int rs_osd_add(struct rs_sched *s, uint64_t key, uint64_t t_ns, uint64_t dur_ns, int who)
{
	size_t i;

	for (i = s->noops; i-- > 0;)
		if (s->oops[i].key == key)
			return 0;
	if (s->noops == s->oops_cap) {
		size_t cap = s->oops_cap ? 2 * s->oops_cap : 256;
		void *p = realloc(s->oops, cap * sizeof(*s->oops));

		if (!p)
			return 0;
		s->oops = p;
		s->oops_cap = cap;
	}
	s->oops[s->noops++] = (struct rs_osd_op){ .key = key, .t_ns = t_ns, .dur_ns = dur_ns, .who = who };
	return 1;
}

/* true if records of the run were lost: see osd_overflow */
static bool rs_osd_parse(struct rs_sched *s, int i, const char *js)
{
	int osd = s->osds[i];
	const char *p = rs_json_val(js, "threshold to keep"), *d, *ia, *du;
	const char *keep = rs_json_val(js, "num to keep");
	int n = 0, fresh = 0;
	uint64_t key, rt, oldest = UINT64_MAX;
	bool first;
	size_t dl;

	if (p)
		s->osd_keep_s = strtod(p, NULL);
	for (p = js; (d = rs_json_val(p, "description")) && *d == '"'; p = du) {
		d++;
		dl = strcspn(d, "\"");
		ia = rs_json_val(d + dl, "initiated_at");
		du = ia ? rs_json_val(ia, "duration") : NULL;
		if (!du || *ia != '"')
			break;
		rt = rs_parse_stamp(ia + 1);
		if (!rt)
			continue;
		key = rs_fnv(rs_fnv(14695981039346656037ull ^ (uint64_t)osd, d, dl), ia, 32);
		n++;
		if (rt < oldest)
			oldest = rt;
		fresh += rs_osd_add(s, key, rt - s->rt_minus_mono, (uint64_t)(strtod(du, NULL) * 1e9),
				    rs_osd_who(s, d, dl));
	}
	first = !s->osd_reads[i]++;
	if (!keep || n <= 0 || n < atoi(keep))
		return false;	/* not full: nothing was pushed out */
	/* the history keeps the newest: full of ops younger than the run (first
	 * read) or than the last read, older ones of the run may be gone */
	if (first)
		return (int64_t)oldest - s->rt_minus_mono > (int64_t)s->t0_ns;
	return fresh == n;
}

/* Which OSDs to ask, and how the OSDs' clock maps to ours. */
void rs_osd_init(struct rs_sched *s)
{
	const char *cmd[] = { "{\"prefix\": \"osd ls\", \"format\": \"json\"}" };
	char *out = NULL, *outs = NULL, *p, *end;
	size_t outlen = 0, outslen = 0;
	struct timespec rt;
	int r;

	s->client_id = rados_get_instance_id(s->cluster);
	snprintf(s->own_op, sizeof(s->own_op), "osd_op(client.%llu.", (unsigned long long)s->client_id);
	snprintf(s->own_repop, sizeof(s->own_repop), "osd_repop(client.%llu.",
		 (unsigned long long)s->client_id);
	clock_gettime(CLOCK_REALTIME, &rt);
	s->rt_minus_mono = (int64_t)(rt.tv_sec * 1000000000ull + rt.tv_nsec) - (int64_t)latstat_now_ns();
	r = rados_mon_command(s->help_cluster, cmd, 1, "", 0, &out, &outlen, &outs, &outslen);
	if (r < 0) {
		s->osd_poll_err = 1;
		s->osd_ls_err = r;
		return;
	}
	p = strndup(out, outlen);	/* [0,1,2] */
	for (end = p; end && *end && s->nosds < (int)(sizeof(s->osds) / sizeof(s->osds[0]));) {
		if (isdigit((unsigned char)*end))
			s->osds[s->nosds++] = (int)strtol(end, &end, 10);
		else
			end++;
	}
	free(p);
	rados_buffer_free(out);
	rados_buffer_free(outs);
}

/* One read of every OSD's slow-op history (OSD thread, or the job thread
 * after joining it). True when a history overflowed since the last read. */
bool rs_osd_poll(struct rs_sched *s)
{
	bool over = false;

	const char *cmd[] = { "{\"prefix\": \"dump_historic_slow_ops\", \"format\": \"json\"}" };
	int i;

	for (i = 0; i < s->nosds; i++) {
		char *out = NULL, *outs = NULL, *js;
		size_t outlen = 0, outslen = 0;
		int r = rados_osd_command(s->help_cluster, s->osds[i], cmd, 1, "", 0, &out, &outlen,
					  &outs, &outslen);

		s->osd_failed[i] = r < 0;
		if (r < 0) {
			s->osd_poll_err = 1;
		} else if ((js = strndup(out, outlen))) {
			over |= rs_osd_parse(s, i, js);
			free(js);
		}
		rados_buffer_free(out);
		rados_buffer_free(outs);
	}
	if (s->nosds)
		s->osd_polls++;
	s->osd_overflow |= over;
	return over;
}

static size_t rs_osd_own(const struct rs_sched *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->noops; i++)
		n += s->oops[i].who == RS_OSD_OWN;
	return n;
}

/*
 * The last read, after fio's I/Os have all completed. An OSD files an op in
 * its history when it lets go of it, which can be after its reply reached
 * us: read again while a read still adds records of ours (a few at most).
 */
void rs_osd_poll_last(struct rs_sched *s)
{
	size_t own = rs_osd_own(s), was;
	int n = 0;

	do {
		if (n++)
			usleep(RS_OSD_SETTLE_US);
		was = own;
		rs_osd_poll(s);
		own = rs_osd_own(s);
	} while (own != was && n < RS_OSD_SETTLE_READS);
}
