/*
 * rbdsnap_report.c - what the rbdsnap engine measured, by phase and by
 * second: IOPS and latency before the first snapshot, while a snapshot is
 * created or removed, with k live snapshots (reached by a create, or by a
 * removal while the OSDs trim) and after they are removed; a per-second
 * timeline of IOPS, max latency, slow I/Os, the OSDs' own slow-op records,
 * snapshot events and cluster health.
 *
 * An I/O belongs to the phase in which it was *issued*: the writes a
 * snapshot create stalls are booked to "creating snapN", not to the phase
 * current when they finally complete. Printed to stderr at the
 * end (never through fio's log, which --output=FILE sends into the JSON
 * users parse) and written as a JSON sidecar (snap_json=FILE).
 *
 * Job thread only: the helper threads hand their events over through the
 * ring in rbdsnap_sched.c. One latstat per phase, no per-sample allocation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store/json_out.h"
#include "rbdsnap.h"

#define NS_PER_S	1000000000ull

static int rs_enter_at(struct rs_report *r, uint64_t t, int kind, int n);

int rs_report_init(struct rs_report *r, uint64_t t0_ns, uint64_t slow_ns)
{
	int k, i;

	memset(r, 0, sizeof(*r));
	for (k = 0; k < RS_NKIND; k++)
		for (i = 0; i <= RS_MAXK; i++)
			latstat_reset(&r->ph[k][i].ls);
	r->t0_ns = t0_ns;
	r->slow_ns = slow_ns;
	r->health_worst = -2;
	r->health_last = 0;
	return rs_enter_at(r, t0_ns, RS_K_BASE, 0);
}

/*
 * fio's td->epoch on the report's clock: fio takes it after the engine's init
 * (setup_files, the random map: milliseconds later on a slow cluster), and
 * fio's own logs count from it. Job thread, at its first I/O.
 */
void rs_report_fio_epoch(struct rs_report *r, uint64_t epoch_ns)
{
	r->fio_epoch_ns = epoch_ns;
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

/* The phase in which time t fell; recent times are the common case. */
static struct rs_phase *rs_phase_at(struct rs_report *r, uint64_t t)
{
	size_t i = r->ntr;

	while (i > 1 && r->tr[i - 1].t_ns > t)
		i--;
	return &r->ph[r->tr[i - 1].kind][r->tr[i - 1].n];
}

void rs_report_io(struct rs_report *r, uint64_t issue_ns, uint64_t done_ns)
{
	uint64_t lat_ns = done_ns - issue_ns;
	struct rs_phase *ph = rs_phase_at(r, issue_ns);
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

/* A slow-op record of an OSD: booked to the phase it was initiated in. */
void rs_report_osd_op(struct rs_report *r, const struct rs_osd_op *op)
{
	struct rs_sec *s;

	if (op->t_ns < r->t0_ns || (r->end_ns && op->t_ns > r->end_ns))
		return;	/* before the run, or the removals after it */
	if (op->who != RS_OSD_OWN) {	/* a replica's record of ours, or not ours */
		if (op->who == RS_OSD_REPOP)
			r->osd_repops++;
		else
			r->osd_other++;
		return;
	}
	rs_phase_at(r, op->t_ns)->osd_slow++;
	r->osd_slow++;
	if (op->dur_ns > r->osd_slow_max_ns)
		r->osd_slow_max_ns = op->dur_ns;
	s = rs_sec_at(r, op->t_ns);
	if (s)
		s->osd_slow++;
}

/* Phase (kind, n) begins at t; the one before it ends there. */
static int rs_enter_at(struct rs_report *r, uint64_t t, int kind, int n)
{
	struct rs_trans *last = r->ntr ? &r->tr[r->ntr - 1] : NULL;
	struct rs_phase *ph;

	if (n > RS_MAXK)
		n = RS_MAXK;
	if (last && t < last->t_ns)
		t = last->t_ns;	/* events come in order; never go back */
	if (last) {
		if (last->kind == kind && last->n == n)
			return 0;
		r->ph[last->kind][last->n].dur_ns += t - last->t_ns;
	}
	if (r->ntr == r->tr_cap) {
		size_t cap = r->tr_cap ? 2 * r->tr_cap : 32;
		void *p = realloc(r->tr, cap * sizeof(*r->tr));

		if (!p)
			return -ENOMEM;
		r->tr = p;
		r->tr_cap = cap;
	}
	if (r->ntr && t == r->tr[r->ntr - 1].t_ns)
		r->ntr--;	/* a phase that lasted no time at all: replace it */
	r->tr[r->ntr++] = (struct rs_trans){ .t_ns = t, .kind = kind, .n = n };
	ph = &r->ph[kind][n];
	if (!ph->first_ns)
		ph->first_ns = t ? t : 1;
	r->kind = kind;
	if (kind == RS_K_AFTER && !r->after_ns)
		r->after_ns = t;
	return 0;
}

/* Where a snapshot event takes the run. */
static void rs_enter_event(struct rs_report *r, const struct rs_event *e)
{
	uint64_t start = e->t_ns - e->lat_ns;

	switch (e->type) {
	case RS_EV_CREATE_START:
		rs_enter_at(r, start, RS_K_CREATING, r->live + 1);
		break;
	case RS_EV_REMOVE_START:
		rs_enter_at(r, start, RS_K_REMOVING, r->live);
		break;
	case RS_EV_CREATE:
	case RS_EV_REMOVE:
		if (e->ret >= 0)
			r->live = e->live;
		if (r->live == 0)	/* a failed first create: still the baseline */
			rs_enter_at(r, e->t_ns, r->after_ns || e->type == RS_EV_REMOVE ? RS_K_AFTER : RS_K_BASE, 0);
		else if (e->type == RS_EV_CREATE && e->ret >= 0)
			rs_enter_at(r, e->t_ns, RS_K_UP, r->live);
		else if (e->type == RS_EV_REMOVE && e->ret >= 0)
			rs_enter_at(r, e->t_ns, RS_K_DOWN, r->live);
		else	/* failed: back to what was there before */
			rs_enter_at(r, e->t_ns, r->tr[r->ntr > 1 ? r->ntr - 2 : 0].kind,
				    r->tr[r->ntr > 1 ? r->ntr - 2 : 0].n);
		break;
	}
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

/* Add each name of the comma-separated list to seen that is not there yet. */
static void rs_checks_add(char *seen, size_t len, const char *list)
{
	const char *p = list;

	while (*p) {
		size_t k = strcspn(p, ","), n = strlen(seen);
		const char *q = seen;
		bool have = false;

		while (*q && !have) {
			size_t m = strcspn(q, ",");

			have = m == k && !strncmp(q, p, k);
			q += m + (q[m] == ',');
		}
		if (!have && n + k + 2 <= len)
			snprintf(seen + n, len - n, "%s%.*s", n ? "," : "", (int)k, p);
		p += k + (p[k] == ',');
	}
}

void rs_report_event(struct rs_report *r, const struct rs_event *e)
{
	struct rs_sec *s;

	if (e->type == RS_EV_HEALTH) {
		bool changed = e->health != r->health_last || strcmp(e->checks, r->checks_last);

		r->health_polls++;
		if (e->health > r->health_worst)
			r->health_worst = e->health;
		if (e->slow_ops > r->slow_ops_max)
			r->slow_ops_max = e->slow_ops;
		if (!r->end_ns) {
			struct rs_phase *ph = rs_phase_at(r, e->t_ns);

			if (e->slow_ops > ph->slow_ops_max)
				ph->slow_ops_max = e->slow_ops;
		}
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
		snprintf(r->checks_last, sizeof(r->checks_last), "%s", e->checks);
		rs_checks_add(r->checks_seen, sizeof(r->checks_seen), e->checks);
		return;
	}
	if (e->type == RS_EV_CREATE || e->type == RS_EV_REMOVE)
		rs_keep_event(r, e);
	if (r->end_ns)
		return;	/* removals after the last I/O: in the log only */
	rs_enter_event(r, e);
	s = rs_sec_at(r, e->t_ns);
	if (s && r->live > s->live)
		s->live = r->live;
}

void rs_report_end(struct rs_report *r, uint64_t end_ns)
{
	struct rs_trans *last = &r->tr[r->ntr - 1];

	if (end_ns > last->t_ns)
		r->ph[last->kind][last->n].dur_ns += end_ns - last->t_ns;
	r->end_ns = end_ns;
}

static const char *const rs_kind_json[RS_NKIND] = {
	"baseline", "creating", "live", "removing", "trimmed", "after"
};

static const char *rs_phase_name(int kind, int n, char *buf, size_t len)
{
	const char *plus = n == RS_MAXK ? "+" : "";

	switch (kind) {
	case RS_K_BASE: return "baseline";
	case RS_K_AFTER: return "after";
	case RS_K_CREATING: snprintf(buf, len, "creating snap%d%s", n, plus); break;
	case RS_K_REMOVING: snprintf(buf, len, "removing snap%d%s", n, plus); break;
	case RS_K_DOWN: snprintf(buf, len, "snap%d%s-rm", n, plus); break;
	default: snprintf(buf, len, "snap%d%s", n, plus); break;
	}
	return buf;
}

/* The phases that were entered, in the order they first were. */
static int rs_order(const struct rs_report *r, const struct rs_phase **out, int *kind, int *n)
{
	int cnt = 0, k, i, j;

	for (k = 0; k < RS_NKIND; k++)
		for (i = 0; i <= RS_MAXK; i++) {
			const struct rs_phase *p = &r->ph[k][i];

			if (!p->first_ns || (!p->ls.count && !p->dur_ns))
				continue;
			for (j = cnt; j > 0 && out[j - 1]->first_ns > p->first_ns; j--) {
				out[j] = out[j - 1];
				kind[j] = kind[j - 1];
				n[j] = n[j - 1];
			}
			out[j] = p;
			kind[j] = k;
			n[j] = i;
			cnt++;
		}
	return cnt;
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
	const struct rs_phase *ph[RS_NKIND * (RS_MAXK + 1)];
	int kind[RS_NKIND * (RS_MAXK + 1)], num[RS_NKIND * (RS_MAXK + 1)];
	char nb[32], b[6][16], os[16];
	int i, cnt = rs_order(r, ph, kind, num);

	fprintf(out, "  %-16s %7s %8s %8s %9s %9s %9s %9s %9s %5s %8s %8s\n", "phase", "secs", "ios",
		"iops", "mean", "p50", "p99", "p99.9", "max", "slow", "osd_slow", "SLOW_OPS");
	for (i = 0; i < cnt; i++) {
		const struct rs_phase *p = ph[i];
		double secs = p->dur_ns / 1e9;

		if (r->osd_polls > 0)
			snprintf(os, sizeof(os), "%llu", (unsigned long long)p->osd_slow);
		else
			snprintf(os, sizeof(os), "-");
		fprintf(out, "  %-16s %7.1f %8llu %8.1f %9s %9s %9s %9s %9s %5llu %8s %8u\n",
			rs_phase_name(kind[i], num[i], nb, sizeof(nb)), secs,
			(unsigned long long)p->ls.count, secs > 0 ? p->ls.count / secs : 0.0,
			fmt_ns(latstat_mean(&p->ls), b[0], 16),
			fmt_ns(latstat_percentile(&p->ls, 50), b[1], 16),
			fmt_ns(latstat_percentile(&p->ls, 99), b[2], 16),
			fmt_ns(latstat_percentile(&p->ls, 99.9), b[3], 16),
			fmt_ns(p->ls.max_ns, b[4], 16), (unsigned long long)p->slow, os, p->slow_ops_max);
	}
}

void rs_report_print(FILE *out, const struct rs_report *r, const struct rs_meta *m)
{
	const struct rs_sched_cfg *c = m->cfg;
	char b[2][16];
	size_t i, j;

	/* every I/O is in baseline; a create that failed said why (rbdsnap_sched.c) */
	if (c->snapshots && !m->created && !m->create_failed)
		fprintf(out, "rbdsnap: %s: no snapshot was taken: the job ended after %llu I/Os "
			"and %.1f s, before the schedule's first (snap_every=%ld, snap_interval=%gs, "
			"snap_start_delay=%gs)\n", m->job, (unsigned long long)r->ios,
			r->end_ns > r->t0_ns ? (r->end_ns - r->t0_ns) / 1e9 : 0.0, c->every,
			c->interval_ns / 1e9, c->start_delay_ns / 1e9);
	fprintf(out, "rbdsnap: %s: %s/%s, librbd cache %s%s%s%s, run %s, slow >= %s\n",
		m->job, m->pool, m->image, m->cache,
		m->cache_policy ? " (" : "", m->cache_policy ? m->cache_policy : "",
		m->cache_policy ? ")" : "", m->runid, fmt_ns(r->slow_ns, b[0], 16));
	rs_print_phases(out, r);
	if (c->snapshots && !m->created && m->create_failed)
		fprintf(out, "  no snapshot was taken: all %d create(s) failed, the first with: %s\n",
			m->create_failed, strerror(-m->create_err));
	else if (c->snapshots && !m->created)
		fprintf(out, "  no snapshot was taken: the job ended before the schedule's first\n");
	for (i = 0; i < r->nev; i++) {
		const struct rs_event *e = &r->ev[i];

		if (e->type == RS_EV_HEALTH)
			continue;
		fprintf(out, "  %7.1fs %s %s: %s, %d live%s%s\n",
			rs_ev_start(r, e), rs_ev_op(e), e->name,
			fmt_ns(e->lat_ns, b[0], 16), e->live, e->ret < 0 ? ", FAILED: " : "",
			e->ret < 0 ? strerror(-e->ret) : "");
	}
	fprintf(out, "  slow I/Os: %llu; health: %s (%u polls), SLOW_OPS max %u%s\n",
		(unsigned long long)r->slow,
		r->health_polls ? rs_health_name(r->health_worst) : "not polled",
		r->health_polls, r->slow_ops_max, m->dropped ? ", some events dropped" : "");
	if (m->trim && m->trim->queued0 > 0)
		fprintf(out, "  snapshot trimming before the run: %ld removed snapshot(s) queued at start, %ld at the "
			"baseline (waited %.1fs, snap_trim_wait %llus)\n", m->trim->queued0, m->trim->queued,
			m->trim->waited_ns / 1e9, m->trim->wait_us / 1000000);
	if (r->checks_seen[0])
		fprintf(out, "  health checks raised: %s (`ceph health detail` says what each means)\n",
			r->checks_seen);
	if (r->osd_polls > 0)
		fprintf(out, "  OSD slow-op records (dump_historic_slow_ops, >= %gs) of client.%llu's ops: "
			"%s%llu, longest %s (not counted: %llu replica, %llu of other clients)%s%s\n",
			r->osd_slow_keep_s, (unsigned long long)r->osd_client,
			r->osd_overflow || r->osd_failed ? "at least " : "",
			(unsigned long long)r->osd_slow, fmt_ns(r->osd_slow_max_ns, b[0], 16),
			(unsigned long long)r->osd_repops, (unsigned long long)r->osd_other,
			r->osd_overflow ? " (an OSD's history overflowed before a read: "
					  "raise osd_op_history_slow_op_size)" : "",
			r->osd_failed ? " (an OSD did not answer the last read)" : "");
	else if (r->osd_ls_err)
		fprintf(out, "  OSD slow-op records: none read, `osd ls` failed: %s\n", strerror(-r->osd_ls_err));
	else if (r->osd_polls < 0)
		fprintf(out, "  OSD slow-op records: the OSDs refused dump_historic_slow_ops\n");
	if (r->nsec > 300) {
		fprintf(out, "  timeline: %zu seconds, see snap_json\n", r->nsec);
		return;
	}
	fprintf(out, "  %5s %8s %9s %5s %8s %4s %-8s\n", "t", "iops", "max_lat", "slow",
		"osd_slow", "live", "health");
	for (i = 0; i < r->nsec; i++) {
		const struct rs_sec *s = &r->sec[i];

		fprintf(out, "  %5zu %8u %9s %5u %8u %4d %-8s", i, s->ios,
			fmt_ns(s->max_ns, b[0], 16), s->slow, s->osd_slow, s->live,
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

static void rs_json_phases(struct json_out *j, const struct rs_report *r)
{
	const struct rs_phase *ph[RS_NKIND * (RS_MAXK + 1)];
	int kind[RS_NKIND * (RS_MAXK + 1)], num[RS_NKIND * (RS_MAXK + 1)];
	char nb[32];
	int i, cnt = rs_order(r, ph, kind, num);

	json_karr(j, "phases");
	for (i = 0; i < cnt; i++) {
		const struct latstat *ls = &ph[i]->ls;
		double secs = ph[i]->dur_ns / 1e9;

		json_obj_begin(j);
		json_kstr(j, "name", rs_phase_name(kind[i], num[i], nb, sizeof(nb)));
		json_kstr(j, "kind", rs_kind_json[kind[i]]);
		json_kint(j, "live_snaps", kind[i] == RS_K_CREATING ? num[i] - 1 : num[i]);
		json_kreal(j, "seconds", secs, 3);
		json_kuint(j, "ios", ls->count);
		json_kreal(j, "iops", secs > 0 ? ls->count / secs : 0.0, 1);
		json_kreal(j, "mean_us", latstat_mean(ls) / 1e3, 1);
		json_kreal(j, "p50_us", latstat_percentile(ls, 50) / 1e3, 1);
		json_kreal(j, "p99_us", latstat_percentile(ls, 99) / 1e3, 1);
		json_kreal(j, "p99_9_us", latstat_percentile(ls, 99.9) / 1e3, 1);
		json_kreal(j, "max_us", ls->max_ns / 1e3, 1);
		json_kuint(j, "slow", ph[i]->slow);
		json_kint(j, "osd_slow_ops", r->osd_polls > 0 ? (long long)ph[i]->osd_slow : -1LL);
		json_kuint(j, "slow_ops_max", ph[i]->slow_ops_max);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void rs_json_events(struct json_out *j, const struct rs_report *r)
{
	size_t i;

	json_karr(j, "events");
	for (i = 0; i < r->nev; i++) {
		const struct rs_event *e = &r->ev[i];

		json_obj_begin(j);
		json_kreal(j, "t", rs_ev_start(r, e), 3);
		json_kreal(j, "t_end", e->t_ns > r->t0_ns ? (e->t_ns - r->t0_ns) / 1e9 : 0.0, 3);
		json_kstr(j, "op", rs_ev_op(e));
		json_kstr(j, "name", e->name);
		json_kreal(j, "lat_ms", e->lat_ns / 1e6, 3);
		json_kint(j, "ret", e->ret < 0 ? e->ret : 0);
		json_kint(j, "live", e->live);
		if (e->type == RS_EV_HEALTH) {
			json_kstr(j, "health", rs_health_name(e->health));
			json_kstr(j, "checks", e->checks);
			json_kuint(j, "slow_ops", e->slow_ops);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void rs_json_timeline(struct json_out *j, const struct rs_report *r)
{
	char ev[RS_NAME_MAX + 16];
	size_t i, k;

	json_karr(j, "timeline");
	for (i = 0; i < r->nsec; i++) {
		const struct rs_sec *s = &r->sec[i];

		json_obj_begin(j);
		json_kuint(j, "t", i);
		json_kuint(j, "iops", s->ios);
		json_kreal(j, "max_lat_us", s->max_ns / 1e3, 1);
		json_kuint(j, "slow", s->slow);
		json_kuint(j, "osd_slow_ops", s->osd_slow);
		json_kint(j, "live_snaps", s->live);
		json_kstr(j, "health", s->health == -2 ? "" : rs_health_name(s->health));
		json_kuint(j, "slow_ops", s->slow_ops);
		json_karr(j, "events");
		for (k = 0; k < r->nev; k++) {
			const struct rs_event *e = &r->ev[k];

			if (e->type == RS_EV_HEALTH || rs_ev_sec(r, e) != i)
				continue;
			snprintf(ev, sizeof(ev), "%s %s", rs_ev_op(e), e->name);
			json_str(j, ev);
		}
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void rs_json_meta(struct json_out *j, const struct rs_report *r, const struct rs_meta *m)
{
	const struct rs_sched_cfg *c = m->cfg;

	json_kstr(j, "engine", "rbdsnap");
	json_kint(j, "format", 2);
	json_kstr(j, "job", m->job);
	json_kstr(j, "pool", m->pool);
	json_kstr(j, "image", m->image);
	json_kuint(j, "image_size", m->image_size);
	json_kstr(j, "run_id", m->runid);
	json_key(j, "rbd_cache");
	if (!strcmp(m->cache, "on") || !strcmp(m->cache, "off"))
		json_bool(j, !strcmp(m->cache, "on"));
	else
		json_null(j);
	json_kstr(j, "rbd_cache_policy", m->cache_policy ? m->cache_policy : "");
	json_kobj(j, "schedule");
	json_kreal(j, "snap_interval_s", c->interval_ns / 1e9, 3);
	json_kint(j, "snap_every", c->every);
	json_kreal(j, "snap_start_delay_s", c->start_delay_ns / 1e9, 3);
	json_kint(j, "snap_keep", c->keep);
	json_kint(j, "snap_count", c->count);
	json_kreal(j, "snap_hold_s", c->hold_ns / 1e9, 3);
	json_kstr(j, "snap_prefix", m->prefix);
	json_obj_end(j);
	json_kreal(j, "slow_threshold_ms", r->slow_ns / 1e6, 3);
	json_kreal(j, "health_interval_s", c->health_ns / 1e9, 3);
	/* queued_*: -errno when the osdmap could not be read (-95: no removed_snaps_queue) */
	json_kobj(j, "trim_before");
	json_kint(j, "queued_at_start", m->trim ? m->trim->queued0 : 0);
	json_kint(j, "queued_at_baseline", m->trim ? m->trim->queued : 0);
	json_kreal(j, "waited_s", m->trim ? m->trim->waited_ns / 1e9 : 0.0, 1);
	json_kreal(j, "wait_max_s", m->trim ? m->trim->wait_us / 1e6 : 0.0, 1);
	json_obj_end(j);
	json_kint(j, "stale_found", m->stale_found);
	json_kint(j, "stale_removed", m->stale_removed);
}

static void rs_json_totals(struct json_out *j, const struct rs_report *r, const struct rs_meta *m)
{
	json_kint(j, "snapshots_taken", m->created);
	json_kint(j, "snapshot_creates_failed", m->create_failed);
	json_kreal(j, "seconds", r->end_ns > r->t0_ns ? (r->end_ns - r->t0_ns) / 1e9 : 0.0, 3);
	/* add to a time of fio's logs to get this file's time (0: no I/O) */
	json_kreal(j, "fio_epoch_s", r->fio_epoch_ns > r->t0_ns ? (r->fio_epoch_ns - r->t0_ns) / 1e9 : 0.0, 6);
	json_kuint(j, "ios", r->ios);
	json_kuint(j, "slow_ios", r->slow);
	json_kobj(j, "health");
	json_kuint(j, "polls", r->health_polls);
	json_kstr(j, "worst", r->health_polls ? rs_health_name(r->health_worst) : "");
	json_kuint(j, "slow_ops_max", r->slow_ops_max);
	json_kstr(j, "checks_seen", r->checks_seen);
	json_obj_end(j);
	json_kobj(j, "osd_slow_ops");
	json_kint(j, "polls", r->osd_polls);
	json_kint(j, "count", r->osd_polls > 0 ? (long long)r->osd_slow : -1LL);
	json_kuint(j, "client_id", r->osd_client);
	json_kuint(j, "repops", r->osd_repops);
	json_kuint(j, "other_clients", r->osd_other);
	/* the run's window on the OSDs' clock (records initiated in it are counted) */
	json_kreal(j, "t0_unix", r->osd_polls > 0 ? (r->t0_ns + r->osd_rt_minus_mono) / 1e9 : 0.0, 6);
	json_kreal(j, "t_end_unix", r->osd_polls > 0 ? (r->end_ns + r->osd_rt_minus_mono) / 1e9 : 0.0, 6);
	json_kreal(j, "max_ms", r->osd_slow_max_ns / 1e6, 1);
	json_kreal(j, "threshold_s", r->osd_slow_keep_s, -1);
	json_kbool(j, "lower_bound", r->osd_overflow || r->osd_failed);
	json_obj_end(j);
	json_kuint(j, "events_dropped", m->dropped);
}

void rs_report_json(struct json_out *j, void *arg)
{
	const struct rs_json_arg *a = arg;

	json_obj_begin(j);
	rs_json_meta(j, a->r, a->m);
	rs_json_totals(j, a->r, a->m);
	rs_json_phases(j, a->r);
	rs_json_events(j, a->r);
	rs_json_timeline(j, a->r);
	json_obj_end(j);
}

void rs_report_free(struct rs_report *r)
{
	free(r->sec);
	free(r->ev);
	free(r->tr);
	r->sec = NULL;
	r->ev = NULL;
	r->tr = NULL;
	r->ntr = r->tr_cap = 0;
	r->nsec = r->sec_cap = r->nev = r->ev_cap = 0;
}
