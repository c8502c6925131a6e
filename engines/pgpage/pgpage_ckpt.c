/*
 * pgpage_ckpt.c - the pgpage engine's checkpointer: a thread of its own, as
 * PostgreSQL's checkpointer is a process of its own, so its write and fsync
 * storm overlaps the page writes the job has in flight.
 *
 * A checkpoint starts when checkpoint_timeout elapsed or when the job
 * dirtied checkpoint_pages pages. Its start is the moment the dirty-page set
 * is taken: pages dirtied later belong to the next checkpoint (PostgreSQL
 * marks BM_CHECKPOINT_NEEDED at the start of BufferSync). It then
 *   1. writes the pages of the set sorted by file and block (PostgreSQL >= 9.6),
 *      paced so that the writes end after checkpoint_completion_target of the
 *      checkpoint interval, with a sync_file_range(WRITE) hint every
 *      checkpoint_flush_after bytes of writes (merged ranges, as PostgreSQL's
 *      WritebackContext issues them);
 *   2. fsyncs every segment file dirtied since the last checkpoint, and only those.
 * A page write is a rewrite of what the file holds (pread + pwrite through
 * the checkpointer's own store handle), so it never changes the data a job
 * verifies; a page the job is writing at that moment is skipped (the job's
 * write is in flight and dirtied it again). txn, which models no contents,
 * sets no_reread: a pwrite from the buffer, as the databases write. For
 * InnoDB, txn names a doublewrite file: each batch of up to PG_DBLWR_BATCH
 * pages is written there first (PG_DBLWR_BLOCK pages a write) and synced,
 * then the batch's pages go to their files (pgpage_dblwr.c).
 *
 * fio's statistics take no lock: fsync latencies are queued here and the job
 * thread records them (pg_ckpt_take_lat).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgpage.h"

#define PG_LAT_CAP	65536	/* queued fsync latencies; older ones are dropped beyond */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void ns_to_abstime(uint64_t ns, struct timespec *ts)
{
	ts->tv_sec = ns / 1000000000ull;
	ts->tv_nsec = ns % 1000000000ull;
}

static int dirty_init(struct pg_dirty *d, unsigned int nsegs)
{
	d->bits = calloc(nsegs, sizeof(*d->bits));
	d->count = calloc(nsegs, sizeof(*d->count));
	return d->bits && d->count ? 0 : -ENOMEM;
}

static void dirty_free(struct pg_dirty *d, unsigned int nsegs)
{
	unsigned int i;

	if (d->bits)
		for (i = 0; i < nsegs; i++)
			free(d->bits[i]);
	free(d->bits);
	free(d->count);
	d->bits = NULL;
	d->count = NULL;
}

static void dirty_clear(struct pg_dirty *d, const struct pg_geom *g)
{
	size_t words = (g->pages_per_seg + 63) / 64;
	unsigned int i;

	for (i = 0; i < g->nsegs; i++) {
		if (!d->count[i])
			continue;
		memset(d->bits[i], 0, words * 8);
		d->count[i] = 0;
	}
	d->total = 0;
}

/* Set one bit; 1 when the page was clean. Caller holds the lock. */
static int dirty_set(struct pg_dirty *d, const struct pg_geom *g,
		     unsigned int idx, uint64_t page)
{
	uint64_t bit = 1ull << (page % 64);

	if (!d->bits[idx]) {
		d->bits[idx] = calloc((g->pages_per_seg + 63) / 64, 8);
		if (!d->bits[idx])
			return -ENOMEM;
	}
	if (d->bits[idx][page / 64] & bit)
		return 0;
	d->bits[idx][page / 64] |= bit;
	d->count[idx]++;
	d->total++;
	return 1;
}

/* dst |= src, src cleared. Caller holds the lock. */
static void dirty_merge(struct pg_dirty *dst, struct pg_dirty *src,
			const struct pg_geom *g)
{
	size_t words = (g->pages_per_seg + 63) / 64, w;
	unsigned int i;
	uint64_t p;

	for (i = 0; i < g->nsegs; i++) {
		if (!src->count[i])
			continue;
		for (w = 0; w < words; w++)
			for (p = src->bits[i][w]; p; p &= p - 1)
				dirty_set(dst, g, i, w * 64 + __builtin_ctzll(p));
	}
	dirty_clear(src, g);
}

/* Caller holds the lock: turn cur into a requested checkpoint. */
static void request_locked(struct pg_ckpt *ck, const char *reason)
{
	struct pg_dirty *t;

	if (ck->pend_valid) {
		dirty_merge(ck->pend, ck->cur, ck->g);
	} else {
		t = ck->pend;
		ck->pend = ck->cur;
		ck->cur = t;
		ck->pend_valid = 1;
		ck->pend_requests = 0;
	}
	ck->pend_requests++;
	ck->pend_reason = reason;
	ck->since_request = 0;
	if (!strcmp(reason, "sync"))	/* txn, InnoDB: commits wait for it */
		ck->hurry = 1;
	pthread_cond_signal(&ck->cond);
}

void pg_ckpt_dirty(struct pg_ckpt *ck, unsigned int idx, uint64_t page)
{
	int ret;

	pthread_mutex_lock(&ck->lock);
	ret = dirty_set(ck->cur, ck->g, idx, page);
	if (ret > 0 && ck->conf.pages && ++ck->since_request >= ck->conf.pages)
		request_locked(ck, "pages");
	if (ret < 0 && !ck->error) {
		ck->error = ret;
		snprintf(ck->errmsg, sizeof(ck->errmsg), "dirty-page bitmap: out of memory");
		atomic_store(&ck->error_hint, 1);
	}
	pthread_mutex_unlock(&ck->lock);
}

/* Clear one bit; the segment's count stays, so the segment is still fsynced. */
static void dirty_unset(struct pg_dirty *d, unsigned int idx, uint64_t page)
{
	uint64_t bit = 1ull << (page % 64);

	if (d->bits[idx] && (d->bits[idx][page / 64] & bit)) {
		d->bits[idx][page / 64] &= ~bit;
		d->total--;
	}
}

/*
 * The checkpoint being written (act) loses the bit too, atomically: its
 * writer reads it without the lock (rewrite_page, after the stripe guard,
 * which the caller holds), as BufferSync skips a buffer written meanwhile.
 */
void pg_ckpt_clean(struct pg_ckpt *ck, unsigned int idx, uint64_t page)
{
	pthread_mutex_lock(&ck->lock);
	dirty_unset(ck->cur, idx, page);
	if (ck->pend_valid)
		dirty_unset(ck->pend, idx, page);
	if (ck->act->bits[idx])
		__atomic_fetch_and(&ck->act->bits[idx][page / 64], ~(1ull << (page % 64)),
				   __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&ck->lock);
}

void pg_ckpt_request(struct pg_ckpt *ck, const char *reason)
{
	pthread_mutex_lock(&ck->lock);
	request_locked(ck, reason);
	pthread_mutex_unlock(&ck->lock);
}

unsigned int pg_ckpt_take_lat(struct pg_ckpt *ck, uint64_t *out, unsigned int max)
{
	unsigned int n;

	if (!atomic_load(&ck->nlat_hint))
		return 0;
	pthread_mutex_lock(&ck->lock);
	n = ck->nlat < max ? ck->nlat : max;
	memcpy(out, ck->lat, n * sizeof(*out));
	memmove(ck->lat, ck->lat + n, (ck->nlat - n) * sizeof(*out));
	ck->nlat -= n;
	atomic_store(&ck->nlat_hint, ck->nlat);
	pthread_mutex_unlock(&ck->lock);
	return n;
}

void pg_guard_wait(struct pg_ckpt *ck, unsigned int h)
{
	/* the checkpointer holds this stripe for one pread + pwrite */
	while (atomic_load(&ck->cbusy[h]))
		sched_yield();
}

static void set_error(struct pg_ckpt *ck, int err, const char *call, unsigned int idx)
{
	char name[64];

	pg_seg_name(ck->g, idx, name, sizeof(name));
	pthread_mutex_lock(&ck->lock);
	if (!ck->error) {
		ck->error = err;
		snprintf(ck->errmsg, sizeof(ck->errmsg), "checkpointer: %s(%s) failed: %s",
			 call, name, strerror(-err));
		atomic_store(&ck->error_hint, 1);
	}
	pthread_mutex_unlock(&ck->lock);
}

static int seg_file(struct pg_ckpt *ck, unsigned int idx, struct store_file **fp)
{
	char name[64];
	int ret;

	if (!ck->files[idx]) {
		pg_seg_name(ck->g, idx, name, sizeof(name));
		ret = store_open(ck->store, name, O_RDWR | O_CREAT, 0600,
				 pg_seg_bytes(ck->g, idx), &ck->files[idx]);
		if (ret) {
			set_error(ck, ret, "open", idx);
			return ret;
		}
	}
	*fp = ck->files[idx];
	return 0;
}

/* Pending writeback hints: merged page ranges, issued every flush_after pages. */
struct wb_ctx {
	unsigned int idx;
	uint64_t first, npages;		/* the range being merged */
	uint64_t pending;		/* pages since the last flush */
};

static void wb_issue(struct pg_ckpt *ck, struct wb_ctx *wb)
{
	struct store_file *f;
	int ret;

	if (!wb->npages)
		return;
	if (!(store_caps(ck->store) & STORE_CAP_SYNC_RANGE)) {
		if (!ck->said_no_hints++)
			fprintf(stderr, "pgpage: store=%s has no sync_file_range: "
				"checkpoint_flush_after hints skipped\n",
				store_backend_name(ck->store->cfg.backend));
	} else if (!seg_file(ck, wb->idx, &f)) {
		ret = store_sync_range(ck->store, f, wb->first * ck->g->bs,
				       wb->npages * ck->g->bs);
		if (ret)
			set_error(ck, ret, "sync_file_range", wb->idx);
	}
	wb->npages = 0;
}

static void wb_add(struct pg_ckpt *ck, struct wb_ctx *wb, unsigned int idx, uint64_t page)
{
	if (!ck->conf.flush_after_pages)
		return;
	if (wb->npages && (wb->idx != idx || wb->first + wb->npages != page))
		wb_issue(ck, wb);	/* not contiguous: hint the range so far */
	if (!wb->npages) {
		wb->idx = idx;
		wb->first = page;
	}
	wb->npages++;
	if (++wb->pending >= ck->conf.flush_after_pages) {
		wb_issue(ck, wb);
		wb->pending = 0;
	}
}

/* Rewrite one page of d unless the job is writing its stripe or wrote it
 * (pg_ckpt_clean); 1 = written. */
static int rewrite_page(struct pg_ckpt *ck, const struct pg_dirty *d, unsigned int idx,
			uint64_t page)
{
	uint64_t gpage = (uint64_t)(idx / ck->g->segs_per_rel) * ck->g->max_pages +
		(idx % ck->g->segs_per_rel) * ck->g->pages_per_seg + page;
	unsigned int h = gpage % PG_STRIPES;
	uint64_t off = page * ck->g->bs;
	struct store_file *f;
	ssize_t r;
	int ret = 0;

	if (seg_file(ck, idx, &f))
		return -1;
	/* before the stripe guard: an eviction waits on the guard holding the pool's lock */
	if (ck->conf.writing)
		ck->conf.writing(ck->conf.written_arg, idx, page);
	atomic_store(&ck->cbusy[h], 1);
	if (atomic_load(&ck->busy[h]) ||
	    !(__atomic_load_n(&d->bits[idx][page / 64], __ATOMIC_SEQ_CST) & (1ull << (page % 64)))) {
		atomic_store(&ck->cbusy[h], 0);
		return 0;
	}
	r = ck->conf.no_reread ? 0 : store_pread(ck->store, f, ck->buf, ck->g->bs, off);
	if (r < 0) {
		set_error(ck, (int)r, "pread", idx);
		ret = -1;
		goto out;
	}
	if ((uint64_t)r < ck->g->bs)	/* beyond the end: a page never written */
		memset((char *)ck->buf + r, 0, ck->g->bs - r);
	r = store_pwrite(ck->store, f, ck->buf, ck->g->bs, off);
	if (r < 0) {
		set_error(ck, (int)r, "pwrite", idx);
		ret = -1;
	} else {
		ret = 1;
	}
out:
	atomic_store(&ck->cbusy[h], 0);
	return ret;
}

/* Sleep until deadline unless the job is stopping (shutdown: full speed) or a "sync" request came. */
static void pace(struct pg_ckpt *ck, uint64_t deadline)
{
	struct timespec ts;

	if (now_ns() >= deadline)
		return;
	ns_to_abstime(deadline, &ts);
	pthread_mutex_lock(&ck->lock);
	while (!ck->stop && !ck->hurry && now_ns() < deadline)
		if (pthread_cond_timedwait(&ck->cond, &ck->lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&ck->lock);
}

static void queue_lat(struct pg_ckpt *ck, uint64_t ns)
{
	pthread_mutex_lock(&ck->lock);
	if (ck->nlat < ck->lat_cap)
		ck->lat[ck->nlat++] = ns;
	atomic_store(&ck->nlat_hint, ck->nlat);
	pthread_mutex_unlock(&ck->lock);
}

/* Phase 1: sorted, paced page writes with writeback hints. */
static void write_pages(struct pg_ckpt *ck, struct pg_dirty *d, uint64_t spread_ns,
			uint64_t *written, uint64_t *skipped)
{
	const struct pg_geom *g = ck->g;
	size_t words = (g->pages_per_seg + 63) / 64, w;
	uint64_t start = now_ns(), done = 0, p;
	struct wb_ctx wb = { 0 };
	unsigned int i;
	int ret;

	for (i = 0; i < g->nsegs; i++) {
		if (!d->count[i])
			continue;
		for (w = 0; w < words; w++) {
			for (p = d->bits[i][w]; p; p &= p - 1) {
				uint64_t page = w * 64 + __builtin_ctzll(p);

				if (ck->conf.dblwr_name && done % PG_DBLWR_BATCH == 0 &&
				    pg_ckpt_doublewrite(ck, d->total - done < PG_DBLWR_BATCH ?
						d->total - done : PG_DBLWR_BATCH))
					return;
				ret = rewrite_page(ck, d, i, page);
				if (ret < 0)
					return;
				if (ret) {
					(*written)++;
					wb_add(ck, &wb, i, page);
					if (ck->conf.written)
						ck->conf.written(ck->conf.written_arg, i, page);
				} else {
					(*skipped)++;
				}
				done++;
				if (spread_ns)
					pace(ck, start + (uint64_t)((unsigned __int128)spread_ns *
								    done / d->total));
			}
		}
	}
	wb_issue(ck, &wb);
}

/* Phase 2: fsync every segment dirtied since the last checkpoint. */
static void sync_segments(struct pg_ckpt *ck, struct pg_dirty *d, unsigned int *nfiles)
{
	struct store_file *f;
	char name[64];
	uint64_t t0;
	unsigned int i;
	int ret;

	for (i = 0; i < ck->g->nsegs; i++) {
		if (!d->count[i] || seg_file(ck, i, &f))
			continue;
		t0 = now_ns();
		ret = store_fsync(ck->store, f);
		if (ret) {
			set_error(ck, ret, "fsync", i);
			continue;
		}
		queue_lat(ck, now_ns() - t0);
		ck->fsyncs++;
		(*nfiles)++;
		if (ck->conf.log) {
			pg_seg_name(ck->g, i, name, sizeof(name));
			fprintf(ck->conf.log, "%s%s", *nfiles > 1 ? "," : "", name);
		}
	}
}

static void run_checkpoint(struct pg_ckpt *ck, const char *reason,
			   unsigned int requests, uint64_t spread_ns)
{
	struct pg_dirty *d = ck->act;
	uint64_t t0 = now_ns(), t1, written = 0, skipped = 0;
	unsigned int nfiles = 0;

	ck->checkpoints++;
	if (ck->conf.phase)
		ck->conf.phase(ck->conf.phase_arg, 0);
	write_pages(ck, d, spread_ns, &written, &skipped);
	t1 = now_ns();
	if (ck->conf.log)
		fprintf(ck->conf.log, "checkpoint %llu reason=%s requests=%u pages=%llu "
			"written=%llu skipped=%llu files=",
			(unsigned long long)ck->checkpoints, reason, requests,
			(unsigned long long)d->total, (unsigned long long)written,
			(unsigned long long)skipped);
	sync_segments(ck, d, &nfiles);
	if (ck->conf.log) {
		fprintf(ck->conf.log, " nfiles=%u write_ms=%.1f sync_ms=%.1f\n", nfiles,
			(t1 - t0) / 1e6, (now_ns() - t1) / 1e6);
		fflush(ck->conf.log);
	}
	ck->written += written;
	ck->skipped += skipped;
	dirty_clear(d, ck->g);
	if (ck->conf.phase)
		ck->conf.phase(ck->conf.phase_arg, 1);
}

/* Wait for a request, the timeout or stop; take the set. Returns 0 to stop. */
static int next_checkpoint(struct pg_ckpt *ck, uint64_t *deadline, const char **reason,
			   unsigned int *requests)
{
	struct pg_dirty *t;
	struct timespec ts;

	pthread_mutex_lock(&ck->lock);
	for (;;) {
		if (ck->pend_valid)
			break;
		if (ck->stop) {
			pthread_mutex_unlock(&ck->lock);
			return 0;
		}
		if (ck->conf.timeout_ns && now_ns() >= *deadline) {
			request_locked(ck, "time");
			break;
		}
		if (ck->conf.timeout_ns) {
			ns_to_abstime(*deadline, &ts);
			pthread_cond_timedwait(&ck->cond, &ck->lock, &ts);
		} else {
			pthread_cond_wait(&ck->cond, &ck->lock);
		}
	}
	t = ck->act;
	ck->act = ck->pend;
	ck->pend = t;
	ck->pend_valid = 0;
	*reason = ck->stop ? "shutdown" : ck->hurry ? "sync" : ck->pend_reason;
	ck->hurry = 0;
	*requests = ck->pend_requests;
	pthread_mutex_unlock(&ck->lock);
	return 1;
}

static void *ckpt_main(void *arg)
{
	struct pg_ckpt *ck = arg;
	uint64_t last = now_ns(), deadline = last + ck->conf.timeout_ns, start, interval;
	unsigned int requests;
	const char *reason;

	while (next_checkpoint(ck, &deadline, &reason, &requests)) {
		start = now_ns();
		/* spread over target x the interval: the timeout, or the time
		 * the job took to dirty checkpoint_pages pages (or, for txn, to
		 * write max_wal_size's share of WAL: reason "wal") */
		interval = ck->conf.timeout_ns && strcmp(reason, "pages") && strcmp(reason, "wal") ?
			ck->conf.timeout_ns : start - last;
		if (!strcmp(reason, "sync"))	/* commits wait for it: at full speed */
			interval = 0;
		if (ck->conf.timeout_ns && interval > ck->conf.timeout_ns)
			interval = ck->conf.timeout_ns;
		run_checkpoint(ck, reason, requests,
			       ck->stop ? 0 : (uint64_t)(interval * ck->conf.target));
		last = start;
		deadline = start + ck->conf.timeout_ns;
	}
	return NULL;
}

int pg_ckpt_start(struct pg_ckpt **ckp, const struct pg_geom *g,
		  const struct pg_ckpt_conf *conf, const struct store_config *cfg,
		  char *err, size_t errlen)
{
	pthread_condattr_t ca;
	struct pg_ckpt *ck;
	int i, ret = -ENOMEM;

	*ckp = NULL;
	ck = calloc(1, sizeof(*ck));
	if (!ck) {
		snprintf(err, errlen, "checkpointer: out of memory");
		return -ENOMEM;
	}
	ck->g = g;
	ck->conf = *conf;
	pthread_mutex_init(&ck->lock, NULL);
	/* deadlines are CLOCK_MONOTONIC: wall-clock steps must not move checkpoints */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ck->cond, &ca);
	pthread_condattr_destroy(&ca);
	for (i = 0; i < 3; i++)
		if (dirty_init(&ck->sets[i], g->nsegs))
			goto fail_mem;
	ck->cur = &ck->sets[0];
	ck->pend = &ck->sets[1];
	ck->act = &ck->sets[2];
	ck->lat_cap = PG_LAT_CAP;
	ck->lat = calloc(ck->lat_cap, sizeof(*ck->lat));
	ck->files = calloc(g->nsegs, sizeof(*ck->files));
	if (!ck->lat || !ck->files || posix_memalign(&ck->buf, 4096, g->bs))
		goto fail_mem;
	memset(ck->buf, 0, g->bs);
	if (conf->dblwr_name) {
		if (posix_memalign(&ck->dwbuf, 4096, PG_DBLWR_BLOCK * g->bs))
			goto fail_mem;
		memset(ck->dwbuf, 0, PG_DBLWR_BLOCK * g->bs);
	}
	/* the checkpointer's own store (a struct store belongs to one thread) */
	ret = store_init(&ck->store, cfg, err, errlen);
	if (ret)
		goto fail;
	ret = -pthread_create(&ck->thread, NULL, ckpt_main, ck);
	if (ret) {
		snprintf(err, errlen, "checkpointer: pthread_create failed: %s", strerror(-ret));
		goto fail;
	}
	ck->started = 1;
	*ckp = ck;
	return 0;
fail_mem:
	snprintf(err, errlen, "checkpointer: out of memory");
fail:
	pg_ckpt_free(ck);
	return ret;
}

void pg_ckpt_stop(struct pg_ckpt *ck, int final)
{
	if (!ck || !ck->started)
		return;
	pthread_mutex_lock(&ck->lock);
	if (final && ck->cur->total)	/* a pending request runs anyway */
		request_locked(ck, "shutdown");
	ck->stop = 1;
	pthread_cond_signal(&ck->cond);
	pthread_mutex_unlock(&ck->lock);
	pthread_join(ck->thread, NULL);
	ck->started = 0;
}

void pg_ckpt_free(struct pg_ckpt *ck)
{
	unsigned int i;

	if (!ck)
		return;
	pg_ckpt_stop(ck, 0);
	if (ck->store) {
		for (i = 0; ck->files && i < ck->g->nsegs; i++)
			if (ck->files[i])
				store_close(ck->store, ck->files[i]);
		if (ck->dw)
			store_close(ck->store, ck->dw);
		store_exit(ck->store);
	}
	for (i = 0; i < 3; i++)
		dirty_free(&ck->sets[i], ck->g->nsegs);
	free(ck->files);
	free(ck->lat);
	free(ck->buf);
	free(ck->dwbuf);
	pthread_mutex_destroy(&ck->lock);
	pthread_cond_destroy(&ck->cond);
	free(ck);
}
