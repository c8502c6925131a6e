/*
 * rbdsnap_report.c - what the rbdsnap engine measured, by phase and by
 * second: IOPS and latency before the first snapshot, with k live snapshots
 * and after they are removed; a per-second timeline of IOPS, max latency,
 * slow I/Os, snapshot events and cluster health. Printed to stderr at the
 * end (never through fio's log, which --output=FILE sends into the JSON
 * users parse) and written as a JSON sidecar (snap_json=FILE).
 *
 * Job thread only: the helper threads hand their events over through the
 * ring in rbdsnap_sched.c. One latstat per phase, no per-sample allocation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rbdsnap.h"

#define NS_PER_S	1000000000ull

int rs_report_init(struct rs_report *r, uint64_t t0_ns, uint64_t slow_ns)
{
	int i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < RS_NPHASE; i++)
		latstat_reset(&r->ph[i].ls);
	r->t0_ns = r->phase_t_ns = t0_ns;
	r->slow_ns = slow_ns;
	r->health_worst = -2;
	r->health_last = 0;
	return 0;
}

/* the timeline entry of the second holding t, created on demand */
static struct rs_sec *rs_sec_at(struct rs_report *r, uint64_t t)
{
	size_t idx = t > r->t0_ns ? (t - r->t0_ns) / NS_PER_S : 0;

	if (idx > 30 * 24 * 3600)	/* a clock that jumped: not a second */
		return NULL;
	if (idx >= r->sec_cap) {
		size_t cap = r->sec_cap ? r->sec_cap : 64;
		void *p;

		while (cap <= idx)
			cap *= 2;
		p = realloc(r->sec, cap * sizeof(*r->sec));
		if (!p)
			return NULL;
		r->sec = p;
		r->sec_cap = cap;
	}
	while (r->nsec <= idx) {
		struct rs_sec *s = &r->sec[r->nsec++];

		memset(s, 0, sizeof(*s));
		s->live = r->live;
		s->health = -2;
	}
	return &r->sec[idx];
}

void rs_report_io(struct rs_report *r, uint64_t done_ns, uint64_t lat_ns)
{
	struct rs_phase *ph = &r->ph[r->phase];
	struct rs_sec *s = rs_sec_at(r, done_ns);
	bool slow = lat_ns >= r->slow_ns;

	latstat_add(&ph->ls, lat_ns);
	r->ios++;
	if (slow) {
		ph->slow++;
		r->slow++;
	}
	if (!s)
		return;
	s->ios++;
	s->slow += slow;
	if (lat_ns > s->max_ns)
		s->max_ns = lat_ns;
}

static void rs_enter(struct rs_report *r, uint64_t t)
{
	if (t < r->phase_t_ns)
		t = r->phase_t_ns;
	if (!r->end_ns)	/* removals at the end: no I/O, no phase time */
		r->ph[r->phase].dur_ns += t - r->phase_t_ns;
	r->phase_t_ns = t;
	if (r->live > 0)
		r->phase = r->live < RS_MAXK ? r->live : RS_MAXK;
	else
		r->phase = r->had_snap ? RS_PH_AFTER : 0;
}

static void rs_keep_event(struct rs_report *r, const struct rs_event *e)
{
	if (r->nev == r->ev_cap) {
		size_t cap = r->ev_cap ? 2 * r->ev_cap : 32;
		void *p = realloc(r->ev, cap * sizeof(*r->ev));

		if (!p)
			return;
		r->ev = p;
		r->ev_cap = cap;
	}
	r->ev[r->nev++] = *e;
}

void rs_report_event(struct rs_report *r, const struct rs_event *e)
{
	struct rs_sec *s;

	if (e->type == RS_EV_HEALTH) {
		bool changed = e->health != r->health_last;

		r->health_polls++;
		if (e->health > r->health_worst)
			r->health_worst = e->health;
		if (e->slow_ops > r->slow_ops_max)
			r->slow_ops_max = e->slow_ops;
		s = rs_sec_at(r, e->t_ns);
		if (s) {
			if (e->health > s->health)
				s->health = e->health;
			if (e->slow_ops > s->slow_ops)
				s->slow_ops = e->slow_ops;
		}
		/* keep changes and every SLOW_OPS sighting, not each OK poll */
		if (changed || e->slow_ops)
			rs_keep_event(r, e);
		r->health_last = e->health;
		return;
	}
	rs_keep_event(r, e);
	if (e->ret < 0 || e->live == r->live)
		return;
	if (e->type == RS_EV_CREATE)
		r->had_snap = true;
	r->live = e->live;
	rs_enter(r, e->t_ns);
	if (r->end_ns && e->t_ns > r->end_ns)
		return;	/* removals after the last I/O: events only */
	s = rs_sec_at(r, e->t_ns);
	if (s && e->live > s->live)
		s->live = e->live;
}

void rs_report_end(struct rs_report *r, uint64_t end_ns)
{
	rs_enter(r, end_ns);
	r->end_ns = end_ns;
}

static const char *rs_phase_name(int i, char *buf, size_t len)
{
	if (i == 0)
		return "baseline";
	if (i == RS_PH_AFTER)
		return "after";
	snprintf(buf, len, "snap%d%s", i, i == RS_MAXK ? "+" : "");
	return buf;
}

static const char *fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns < 10000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 10000000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 10 * NS_PER_S)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
	return buf;
}

static const char *rs_ev_op(const struct rs_event *e)
{
	return e->type == RS_EV_CREATE ? "create" : e->type == RS_EV_REMOVE ? "remove" : "health";
}

/* the second a snapshot call started in */
static size_t rs_ev_sec(const struct rs_report *r, const struct rs_event *e)
{
	uint64_t start = e->t_ns - e->lat_ns;

	return start > r->t0_ns ? (start - r->t0_ns) / NS_PER_S : 0;
}

static double rs_ev_start(const struct rs_report *r, const struct rs_event *e)
{
	uint64_t start = e->t_ns - e->lat_ns;

	return start > r->t0_ns ? (start - r->t0_ns) / 1e9 : 0.0;
}

static void rs_print_phases(FILE *out, const struct rs_report *r)
{
	char nb[16], b[6][16];
	int i;

	fprintf(out, "  %-9s %7s %9s %9s %9s %9s %9s %9s %9s %6s\n", "phase", "secs", "ios",
		"iops", "mean", "p50", "p99", "p99.9", "max", "slow");
	for (i = 0; i < RS_NPHASE; i++) {
		const struct rs_phase *p = &r->ph[i];
		double secs = p->dur_ns / 1e9;

		if (!p->ls.count && !p->dur_ns)
			continue;
		fprintf(out, "  %-9s %7.1f %9llu %9.1f %9s %9s %9s %9s %9s %6llu\n",
			rs_phase_name(i, nb, sizeof(nb)), secs,
			(unsigned long long)p->ls.count, secs > 0 ? p->ls.count / secs : 0.0,
			fmt_ns(latstat_mean(&p->ls), b[0], 16),
			fmt_ns(latstat_percentile(&p->ls, 50), b[1], 16),
			fmt_ns(latstat_percentile(&p->ls, 99), b[2], 16),
			fmt_ns(latstat_percentile(&p->ls, 99.9), b[3], 16),
			fmt_ns(p->ls.max_ns, b[4], 16), (unsigned long long)p->slow);
	}
}

void rs_report_print(FILE *out, const struct rs_report *r, const struct rs_meta *m)
{
	char b[2][16];
	size_t i, j;

	fprintf(out, "rbdsnap: %s: %s/%s, librbd cache %s%s%s%s, run %s, slow >= %s\n",
		m->job, m->pool, m->image, m->cache,
		m->cache_policy ? " (" : "", m->cache_policy ? m->cache_policy : "",
		m->cache_policy ? ")" : "", m->runid, fmt_ns(r->slow_ns, b[0], 16));
	rs_print_phases(out, r);
	for (i = 0; i < r->nev; i++) {
		const struct rs_event *e = &r->ev[i];

		if (e->type == RS_EV_HEALTH)
			continue;
		fprintf(out, "  %7.1fs %s %s: %s, %d live%s%s\n",
			rs_ev_start(r, e), rs_ev_op(e), e->name,
			fmt_ns(e->lat_ns, b[0], 16), e->live, e->ret < 0 ? ", FAILED: " : "",
			e->ret < 0 ? strerror(-e->ret) : "");
	}
	fprintf(out, "  slow I/Os: %llu; health: %s (%u polls), slow ops max %u%s\n",
		(unsigned long long)r->slow,
		r->health_polls ? rs_health_name(r->health_worst) : "not polled",
		r->health_polls, r->slow_ops_max, m->dropped ? ", some events dropped" : "");
	if (r->nsec > 300) {
		fprintf(out, "  timeline: %zu seconds, see snap_json\n", r->nsec);
		return;
	}
	fprintf(out, "  %5s %8s %9s %5s %4s %-8s\n", "t", "iops", "max_lat", "slow", "live", "health");
	for (i = 0; i < r->nsec; i++) {
		const struct rs_sec *s = &r->sec[i];

		fprintf(out, "  %5zu %8u %9s %5u %4d %-8s", i, s->ios,
			fmt_ns(s->max_ns, b[0], 16), s->slow, s->live,
			s->health == -2 ? "-" : rs_health_name(s->health) + 7);
		if (s->slow_ops)
			fprintf(out, " SLOW_OPS=%u", s->slow_ops);
		for (j = 0; j < r->nev; j++) {
			const struct rs_event *e = &r->ev[j];

			if (e->type != RS_EV_HEALTH && rs_ev_sec(r, e) == i)
				fprintf(out, " %s:%s", rs_ev_op(e), e->name);
		}
		fputc('\n', out);
	}
}

/* JSON string body: the names we print are ours or Ceph's, escape anyway */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void rs_json_phases(FILE *f, const struct rs_report *r)
{
	char nb[16];
	bool first = true;
	int i;

	fprintf(f, "  \"phases\": [");
	for (i = 0; i < RS_NPHASE; i++) {
		const struct rs_phase *p = &r->ph[i];
		const struct latstat *ls = &p->ls;
		double secs = p->dur_ns / 1e9;

		if (!ls->count && !p->dur_ns)
			continue;
		fprintf(f, "%s\n    {\"name\": \"%s\", \"live_snaps\": %d, \"seconds\": %.3f, "
			"\"ios\": %llu, \"iops\": %.1f, \"mean_us\": %.1f, \"p50_us\": %.1f, "
			"\"p99_us\": %.1f, \"p99_9_us\": %.1f, \"max_us\": %.1f, \"slow\": %llu}",
			first ? "" : ",", rs_phase_name(i, nb, sizeof(nb)),
			i == RS_PH_AFTER ? 0 : i, secs, (unsigned long long)ls->count,
			secs > 0 ? ls->count / secs : 0.0, latstat_mean(ls) / 1e3,
			latstat_percentile(ls, 50) / 1e3, latstat_percentile(ls, 99) / 1e3,
			latstat_percentile(ls, 99.9) / 1e3, ls->max_ns / 1e3,
			(unsigned long long)p->slow);
		first = false;
	}
	fprintf(f, "\n  ],\n");
}

static void rs_json_events(FILE *f, const struct rs_report *r)
{
	size_t i;

	fprintf(f, "  \"events\": [");
	for (i = 0; i < r->nev; i++) {
		const struct rs_event *e = &r->ev[i];

		fprintf(f, "%s\n    {\"t\": %.3f, \"t_end\": %.3f, \"op\": \"%s\", \"name\": ",
			i ? "," : "", rs_ev_start(r, e),
			e->t_ns > r->t0_ns ? (e->t_ns - r->t0_ns) / 1e9 : 0.0, rs_ev_op(e));
		json_str(f, e->name);
		fprintf(f, ", \"lat_ms\": %.3f, \"ret\": %d, \"live\": %d", e->lat_ns / 1e6,
			e->ret < 0 ? e->ret : 0, e->live);
		if (e->type == RS_EV_HEALTH)
			fprintf(f, ", \"health\": \"%s\", \"slow_ops\": %u",
				rs_health_name(e->health), e->slow_ops);
		fputc('}', f);
	}
	fprintf(f, "\n  ],\n");
}

static void rs_json_timeline(FILE *f, const struct rs_report *r)
{
	size_t i, j;

	fprintf(f, "  \"timeline\": [");
	for (i = 0; i < r->nsec; i++) {
		const struct rs_sec *s = &r->sec[i];
		int n = 0;

		fprintf(f, "%s\n    {\"t\": %zu, \"iops\": %u, \"max_lat_us\": %.1f, \"slow\": %u, "
			"\"live_snaps\": %d, \"health\": \"%s\", \"slow_ops\": %u, \"events\": [",
			i ? "," : "", i, s->ios, s->max_ns / 1e3, s->slow, s->live,
			s->health == -2 ? "" : rs_health_name(s->health), s->slow_ops);
		for (j = 0; j < r->nev; j++) {
			const struct rs_event *e = &r->ev[j];

			if (e->type == RS_EV_HEALTH || rs_ev_sec(r, e) != i)
				continue;
			fprintf(f, "%s\"%s %s\"", n++ ? ", " : "", rs_ev_op(e), e->name);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "\n  ]\n");
}

int rs_report_json(const char *path, const struct rs_report *r, const struct rs_meta *m)
{
	const struct rs_sched_cfg *c = m->cfg;
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "{\n  \"engine\": \"rbdsnap\",\n  \"format\": 1,\n  \"job\": ");
	json_str(f, m->job);
	fprintf(f, ",\n  \"pool\": ");
	json_str(f, m->pool);
	fprintf(f, ",\n  \"image\": ");
	json_str(f, m->image);
	fprintf(f, ",\n  \"image_size\": %llu,\n  \"run_id\": \"%s\",\n",
		(unsigned long long)m->image_size, m->runid);
	fprintf(f, "  \"rbd_cache\": %s,\n  \"rbd_cache_policy\": ",
		!strcmp(m->cache, "on") ? "true" : !strcmp(m->cache, "off") ? "false" : "null");
	json_str(f, m->cache_policy ? m->cache_policy : "");
	fprintf(f, ",\n  \"schedule\": {\"snap_interval_s\": %.3f, \"snap_every\": %ld, "
		"\"snap_start_delay_s\": %.3f, \"snap_keep\": %d, \"snap_count\": %d, "
		"\"snap_hold_s\": %.3f, \"snap_prefix\": ", c->interval_ns / 1e9, c->every,
		c->start_delay_ns / 1e9, c->keep, c->count, c->hold_ns / 1e9);
	json_str(f, m->prefix);
	fprintf(f, "},\n  \"slow_threshold_ms\": %.3f,\n  \"health_interval_s\": %.3f,\n",
		r->slow_ns / 1e6, c->health_ns / 1e9);
	fprintf(f, "  \"stale_found\": %d,\n  \"stale_removed\": %d,\n",
		m->stale_found, m->stale_removed);
	fprintf(f, "  \"seconds\": %.3f,\n  \"ios\": %llu,\n  \"slow_ios\": %llu,\n",
		r->end_ns > r->t0_ns ? (r->end_ns - r->t0_ns) / 1e9 : 0.0,
		(unsigned long long)r->ios, (unsigned long long)r->slow);
	fprintf(f, "  \"health\": {\"polls\": %u, \"worst\": \"%s\", \"slow_ops_max\": %u},\n",
		r->health_polls, r->health_polls ? rs_health_name(r->health_worst) : "",
		r->slow_ops_max);
	fprintf(f, "  \"events_dropped\": %u,\n", m->dropped);
	rs_json_phases(f, r);
	rs_json_events(f, r);
	rs_json_timeline(f, r);
	fprintf(f, "}\n");
	if (fclose(f))
		return -errno;
	if (rename(tmp, path))
		return -errno;
	return 0;
}

void rs_report_free(struct rs_report *r)
{
	free(r->sec);
	free(r->ev);
	r->sec = NULL;
	r->ev = NULL;
	r->nsec = r->sec_cap = r->nev = r->ev_cap = 0;
}
