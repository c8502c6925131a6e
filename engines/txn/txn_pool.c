/*
 * txn_pool.c - the txn engine's buffer pool model: shared_buffers (or
 * innodb_buffer_pool_size) worth of page frames shared by every connection
 * of a database, with PostgreSQL's clock sweep (usage count up to 5).
 *
 * A hit costs nothing but the pool's lock. A miss takes a victim frame; when
 * the victim is dirty the connection writes it first (an eviction write, as
 * a PostgreSQL backend does when the background writer is behind), then
 * reads its page through its own store: on posix the kernel's page cache
 * under it is the real one, as it is for the database. A page going from
 * clean to dirty is handed to the checkpointer (pgpage's), which writes it
 * at the next checkpoint and tells the pool it is clean again, unless it was
 * changed after the write began; a page evicted before that is taken back
 * from the checkpointer's set. A failed eviction write leaves its page dirty.
 *
 * InnoDB (cleaner 1) flushes otherwise, as MariaDB 10.11 does: its page
 * cleaner thread (txn_cleaner.c) writes the dirty pages near the clock hand
 * in doublewrite batches, and a miss takes a clean victim, skipping dirty
 * ones (and waking the cleaner); only when a whole sweep finds no clean
 * victim does the connection write a dirty one itself (one page, doublewrite
 * and sync of its own), InnoDB's single-page flush.
 *
 * Page contents are not modelled: a read fills the frame's buffer and is
 * discarded, a write writes zeros. No fio headers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "txn.h"

#define TXN_MAX_USAGE	5	/* BM_MAX_USAGE_COUNT */
#define FREE_TAG	UINT64_MAX
#define TXN_LRU_MIN_LEN	256	/* BUF_LRU_MIN_LEN */

int txn_pool_init(struct txn_pool *p, uint32_t nframes, const struct pg_geom *g, int fpw)
{
	uint32_t i;

	memset(p, 0, sizeof(*p));
	p->nframes = nframes;
	for (p->nbuckets = 64; p->nbuckets < nframes * 2; p->nbuckets <<= 1)
		;
	p->f = calloc(nframes, sizeof(*p->f));
	p->freel = malloc(nframes * sizeof(*p->freel));
	p->bucket = malloc(p->nbuckets * sizeof(*p->bucket));
	if (fpw)
		p->fpi_epoch = calloc(g->relations * g->max_pages, sizeof(*p->fpi_epoch));
	if (!p->f || !p->freel || !p->bucket || (fpw && !p->fpi_epoch))
		return -ENOMEM;
	for (i = 0; i < nframes; i++) {
		p->f[i].tag = FREE_TAG;
		p->f[i].next = -1;
	}
	for (i = 0; i < p->nbuckets; i++)
		p->bucket[i] = -1;
	p->g = g;
	pthread_mutex_init(&p->m, NULL);
	pthread_cond_init(&p->io_done, NULL);
	pthread_cond_init(&p->cl_cv, NULL);
	return 0;
}

void txn_pool_free(struct txn_pool *p)
{
	if (!p->f)
		return;
	free(p->f);
	free(p->freel);
	free(p->bucket);
	free(p->fpi_epoch);
	p->f = NULL;
	pthread_mutex_destroy(&p->m);
	pthread_cond_destroy(&p->io_done);
	pthread_cond_destroy(&p->cl_cv);
}

static uint32_t hash(const struct txn_pool *p, uint64_t tag)
{
	return (uint32_t)((tag * 0x9E3779B97F4A7C15ull) >> 32) & (p->nbuckets - 1);
}

static int32_t lookup(const struct txn_pool *p, uint64_t tag)
{
	int32_t i;

	for (i = p->bucket[hash(p, tag)]; i >= 0; i = p->f[i].next)
		if (p->f[i].tag == tag)
			return i;
	return -1;
}

static void unhash(struct txn_pool *p, int32_t v)
{
	int32_t *pp = &p->bucket[hash(p, p->f[v].tag)];

	while (*pp != v)
		pp = &p->f[*pp].next;
	*pp = p->f[v].next;
	p->f[v].next = -1;
}

static void rehash(struct txn_pool *p, int32_t v, uint64_t tag)
{
	uint32_t h = hash(p, tag);

	p->f[v].tag = tag;
	p->f[v].next = p->bucket[h];
	p->bucket[h] = v;
}

/* Caller holds the lock: wake the page cleaner. */
static void wake(struct txn_pool *p)
{
	if (!p->cl_wake) {
		p->cl_wake = 1;
		pthread_cond_signal(&p->cl_cv);
	}
}

/*
 * Caller holds the lock: a free frame, or the clock sweep's victim; -1 if all
 * are busy. With a page cleaner a dirty frame is passed over (the cleaner is
 * woken to write it) unless the sweep finds no clean one: then the first
 * dirty one seen, which the caller writes itself.
 */
static int32_t victim(struct txn_pool *p)
{
	int32_t dirty = -1;
	uint32_t tries;

	if (p->used < p->nframes)
		return p->used++;
	if (p->nfree) {
		/* buf_LRU_get_free_block: fewer than half the target free, the LRU over its minimum */
		if (p->cleaner && p->nfree - 1 < p->free_target / 2 &&
		    p->used - p->nfree > TXN_LRU_MIN_LEN)
			wake(p);
		return p->freel[--p->nfree];
	}
	for (tries = 0; tries < p->nframes * (TXN_MAX_USAGE + 1); tries++) {
		struct txn_frame *f = &p->f[p->hand];
		int32_t v = p->hand;

		p->hand = (p->hand + 1) % p->nframes;
		if (f->busy || f->flushing)
			continue;
		if (f->usage) {
			f->usage--;
			continue;
		}
		if (p->cleaner && f->dirty) {
			if (dirty < 0)
				dirty = v;
			if (!p->free_target)
				wake(p);
			continue;
		}
		return v;
	}
	/* with a free list (buf_LRU_scan_and_free_block) only a sweep without a clean page wakes it */
	if (p->free_target && dirty >= 0)
		wake(p);
	return dirty;
}

static void seg_of(const struct pg_geom *g, uint64_t gpage, unsigned int *idx, uint64_t *page)
{
	uint64_t rel = gpage / g->max_pages, in = gpage % g->max_pages;

	*idx = pg_seg_index(g, rel, in / g->pages_per_seg);
	*page = in % g->pages_per_seg;
}

/* Caller holds the lock. */
static void set_dirty(struct txn_pool *p, struct txn_frame *f)
{
	unsigned int idx;
	uint64_t page;

	f->redirtied = 1;
	if (f->dirty)
		return;
	f->dirty = 1;
	if (p->ck) {
		seg_of(p->g, f->tag, &idx, &page);
		pg_ckpt_dirty(p->ck, idx, page);
	}
}

/*
 * Caller holds the lock and writes gpage next: the checkpointer's sets lose
 * it, under the stripe guard that fill() leaves after the write (so a
 * checkpoint never writes it behind the eviction write's back).
 */
static void ckpt_clean(struct txn_pool *p, uint64_t gpage)
{
	unsigned int idx;
	uint64_t page;

	seg_of(p->g, gpage, &idx, &page);
	pg_guard_enter(p->ck, gpage);
	pg_ckpt_clean(p->ck, idx, page);
}

/*
 * Caller holds the lock. PostgreSQL logs a full-page image of a page at its
 * first change after a checkpoint starts (its redo point); a new page is
 * logged by its first record instead. The pool's epoch: checkpoints started + 1.
 */
static void fpi_check(struct txn_pool *p, uint64_t gpage, int fresh, unsigned int *fpi)
{
	uint32_t epoch;

	if (!p->fpi_epoch)
		return;
	epoch = 1 + (p->ck ? (uint32_t)__atomic_load_n(&p->ck->checkpoints, __ATOMIC_RELAXED) : 0);
	if (p->fpi_epoch[gpage] == epoch)
		return;
	p->fpi_epoch[gpage] = epoch;
	if (fresh)
		return;
	p->st.fpis++;
	if (fpi)
		(*fpi)++;
}

/*
 * InnoDB writes a page it evicts to the doublewrite buffer first and syncs
 * it, so a torn page write can be repaired (MySQL 8.0.20+: #ib_16384_0.dblwr;
 * MariaDB: the doublewrite area of ibdata1). One slot per connection.
 */
static int doublewrite(struct txn_io *io)
{
	ssize_t r;
	int ret;

	if (!io->dw) {
		ret = store_open(io->s, io->dw_name, O_RDWR | O_CREAT, 0640, 128 * io->g->bs, &io->dw);
		if (ret)
			goto fail;
	}
	r = store_pwrite(io->s, io->dw, io->buf, io->g->bs, io->dw_off);
	ret = r < 0 ? (int)r : io->dblwr == 2 ? store_fdatasync(io->s, io->dw) : store_fsync(io->s, io->dw);
	if (!ret)
		return 0;
fail:
	snprintf(io->err, sizeof(io->err), "doublewrite(%s) failed: %s", io->dw_name, strerror(-ret));
	return ret;
}

/*
 * Caller holds the lock; frame v's write of old or read of its new page
 * failed: v no longer holds the new page. A failed write leaves old dirty,
 * in v again, or in the frame another connection read it into meanwhile.
 */
static void unfill(struct txn_pool *p, int32_t v, uint64_t old, int write_failed)
{
	struct txn_frame *f = &p->f[v];
	int32_t w;

	unhash(p, v);
	f->tag = FREE_TAG;
	f->usage = 0;
	if (!write_failed)
		return;
	w = lookup(p, old);
	if (w < 0) {
		rehash(p, v, old);
		w = v;
	}
	p->f[w].dirty = 0;	/* taken from the checkpointer's sets: given back */
	set_dirty(p, &p->f[w]);
}

/*
 * A miss: victim v holds tag now (busy); write its old page if dirty, read
 * the new one. Returns with the lock held.
 */
static int fill(struct txn_pool *p, struct txn_io *io, int32_t v, uint64_t old,
		int wasdirty, int fresh)
{
	int ret = 0, wret = 0;

	if (wasdirty && io->dblwr)
		wret = doublewrite(io);
	if (wasdirty && !wret)
		wret = txn_io_page(io, old, 1);
	if (wasdirty && p->ck)
		pg_guard_exit(p->ck, old);
	ret = wret;
	if (!ret && !fresh)
		ret = txn_io_page(io, p->f[v].tag, 0);
	pthread_mutex_lock(&p->m);
	p->f[v].busy = 0;
	if (ret)
		unfill(p, v, old, wret != 0);
	p->st.evict_writes += wasdirty && !wret;
	p->st.dblwr_writes += wasdirty && io->dblwr && !wret;
	p->st.reads += !fresh && !ret;
	pthread_cond_broadcast(&p->io_done);
	return ret;
}

int txn_pool_access(struct txn_pool *p, struct txn_io *io, uint64_t gpage, int dirty,
		    int fresh, unsigned int *fpi)
{
	struct txn_frame *f;
	uint64_t old;
	int32_t v;
	int wasdirty, ret;

	pthread_mutex_lock(&p->m);
	for (;;) {
		v = lookup(p, gpage);
		if (v >= 0 && p->f[v].busy) {	/* being read by another connection */
			pthread_cond_wait(&p->io_done, &p->m);
			continue;
		}
		if (v >= 0) {
			f = &p->f[v];
			if (f->usage < TXN_MAX_USAGE)
				f->usage++;
			if (dirty) {
				set_dirty(p, f);
				fpi_check(p, gpage, 0, fpi);
			}
			p->st.hits++;
			pthread_mutex_unlock(&p->m);
			return 1;
		}
		v = victim(p);
		if (v >= 0)
			break;
		pthread_cond_wait(&p->io_done, &p->m);	/* every frame in I/O */
	}
	f = &p->f[v];
	old = f->tag;
	wasdirty = f->dirty;
	if (wasdirty && p->ck)	/* written now: not again by a checkpoint */
		ckpt_clean(p, old);
	if (old != FREE_TAG)
		unhash(p, v);
	rehash(p, v, gpage);
	f->busy = 1;
	f->dirty = 0;
	f->redirtied = 0;
	f->usage = 1;
	p->st.misses++;
	pthread_mutex_unlock(&p->m);
	ret = fill(p, io, v, old, wasdirty, fresh);
	if (!ret && dirty) {
		set_dirty(p, f);
		fpi_check(p, gpage, fresh, fpi);
	}
	pthread_mutex_unlock(&p->m);
	return ret < 0 ? ret : 0;
}

void txn_pool_writing(struct txn_pool *p, uint64_t gpage)
{
	int32_t v;

	pthread_mutex_lock(&p->m);
	v = lookup(p, gpage);
	if (v >= 0 && !p->f[v].busy && !p->f[v].flushing)
		p->f[v].redirtied = 0;
	pthread_mutex_unlock(&p->m);
}

/*
 * A page changed while the checkpointer wrote it (or right after) stays
 * dirty: the write may not hold the change. Its dirtying found it dirty and
 * told the checkpointer nothing, so it goes into the next checkpoint's set here.
 */
void txn_pool_cleaned(struct txn_pool *p, uint64_t gpage)
{
	struct txn_frame *f;
	unsigned int idx;
	uint64_t page;
	int32_t v;

	pthread_mutex_lock(&p->m);
	v = lookup(p, gpage);
	f = v >= 0 && !p->f[v].flushing ? &p->f[v] : NULL;
	if (f && !f->busy && f->dirty && f->redirtied && p->ck) {
		seg_of(p->g, gpage, &idx, &page);
		pg_ckpt_dirty(p->ck, idx, page);
	} else if (f && !f->busy && f->dirty && !f->redirtied) {
		f->dirty = 0;
		p->st.ckpt_cleaned++;
	}
	pthread_mutex_unlock(&p->m);
}

/* How far from the clock hand the cleaner looks (innodb_lru_scan_depth's default). */
#define TXN_LRU_SCAN_DEPTH	1536

/* Caller holds the lock: dirty frame f goes into the cleaner's batch; its page. */
static uint64_t take_for_batch(struct txn_pool *p, struct txn_frame *f)
{
	f->flushing = 1;
	f->redirtied = 0;
	if (p->ck)	/* written now: not again by a checkpoint */
		ckpt_clean(p, f->tag);
	return f->tag;
}

/* Caller holds the lock: frame v (clean, idle) leaves the pool for the free list. */
static void free_frame(struct txn_pool *p, int32_t v)
{
	struct txn_frame *f = &p->f[v];

	unhash(p, v);
	f->tag = FREE_TAG;
	f->usage = 0;
	p->freel[p->nfree++] = v;
	p->st.freed++;
}

/*
 * Caller holds the lock: the LRU eviction goes on (buf_flush_LRU_list_batch
 * of MariaDB 10.11.18: while fewer than the target are free and the LRU
 * holds more than min(pool / 20 - 1, 256) pages; pages being written stay
 * in it, clean, until a later sweep evicts them).
 */
static int want_free(const struct txn_pool *p)
{
	uint32_t min = p->nframes / 20 > TXN_LRU_MIN_LEN ? TXN_LRU_MIN_LEN : p->nframes / 20;

	return p->nfree < p->free_target && p->used - p->nfree > (min ? min - 1 : 0);
}

/*
 * The free list's batch (free_target set): sweep on from the clock hand as
 * a miss does, freeing each clean frame of usage 0 and taking each dirty
 * one into the batch, while want_free(), the batch not full, for at most
 * the sweeps that age every frame to usage 0.
 */
static uint32_t free_batch(struct txn_pool *p, uint64_t *out, uint32_t max)
{
	uint32_t tries, n = 0;

	for (tries = 0; tries < p->nframes * (TXN_MAX_USAGE + 1) && n < max && want_free(p); tries++) {
		struct txn_frame *f = &p->f[p->hand];
		int32_t v = p->hand;

		p->hand = (p->hand + 1) % p->nframes;
		if (f->tag == FREE_TAG || f->busy || f->flushing)
			continue;
		if (f->usage) {
			f->usage--;
			continue;
		}
		if (!f->dirty) {
			free_frame(p, v);
			continue;
		}
		out[n++] = take_for_batch(p, f);
	}
	return n;
}

/* Caller holds the lock: the cleaner goes on at once (buf_pool_t::need_LRU_eviction). */
int txn_pool_need_eviction(const struct txn_pool *p)
{
	return p->free_target && p->used == p->nframes && p->used - p->nfree > TXN_LRU_MIN_LEN &&
	       p->nfree < p->free_target / 2;
}

uint32_t txn_pool_lru_batch(struct txn_pool *p, uint64_t *out, uint32_t max)
{
	uint32_t depth = p->nframes < TXN_LRU_SCAN_DEPTH ? p->nframes : TXN_LRU_SCAN_DEPTH;
	uint32_t i, n = 0, v;

	if (p->used < p->nframes)	/* free frames left: nothing to make room for */
		return 0;
	if (p->free_target)
		return free_batch(p, out, max);
	/* the frames the hand passed over last (dirty ones a miss skipped) and those next */
	v = (p->hand + p->nframes - depth / 2) % p->nframes;
	for (i = 0; i < depth && n < max; i++, v = (v + 1) % p->nframes) {
		struct txn_frame *f = &p->f[v];

		if (!f->dirty || f->busy || f->flushing || f->usage)
			continue;
		out[n++] = take_for_batch(p, f);
	}
	return n;
}

void txn_pool_batch_done(struct txn_pool *p, const uint64_t *pages, uint32_t n, int failed)
{
	struct txn_frame *f;
	uint32_t i;
	int32_t v;

	for (i = 0; i < n; i++) {
		v = lookup(p, pages[i]);
		if (v < 0)
			continue;
		f = &p->f[v];
		f->flushing = 0;
		if (failed || f->redirtied) {	/* still dirty: back into the checkpointer's set */
			f->dirty = 0;
			set_dirty(p, f);
		} else {
			f->dirty = 0;
		}
	}
	if (!failed) {
		p->st.cleaner_batches++;
		p->st.cleaner_pages += n;
	}
	pthread_cond_broadcast(&p->io_done);
}

int txn_io_init(struct txn_io *io, struct store *s, const struct pg_geom *g)
{
	memset(io, 0, sizeof(*io));
	io->s = s;
	io->g = g;
	io->files = calloc(g->nsegs, sizeof(*io->files));
	if (!io->files || posix_memalign(&io->buf, 4096, g->bs))
		return -ENOMEM;
	memset(io->buf, 0, g->bs);
	return 0;
}

void txn_io_free(struct txn_io *io)
{
	unsigned int i;

	for (i = 0; io->files && i < io->g->nsegs; i++)
		if (io->files[i])
			store_close(io->s, io->files[i]);
	if (io->dw)
		store_close(io->s, io->dw);
	io->dw = NULL;
	free(io->files);
	free(io->buf);
	io->files = NULL;
	io->buf = NULL;
}

/* The connection's handle on segment idx, opened on first use. */
static int io_file(struct txn_io *io, unsigned int idx, struct store_file **f)
{
	char name[64];
	int ret;

	if (!io->files[idx]) {
		pg_seg_name(io->g, idx, name, sizeof(name));
		ret = store_open(io->s, name, O_RDWR | O_CREAT | (io->direct ? O_DIRECT : 0), 0600,
				 pg_seg_bytes(io->g, idx), &io->files[idx]);
		if (ret) {
			snprintf(io->err, sizeof(io->err), "open(%s) failed: %s", name, strerror(-ret));
			return ret;
		}
	}
	*f = io->files[idx];
	return 0;
}

/* Read or write one page of the tables through the connection's store. */
int txn_io_page(struct txn_io *io, uint64_t gpage, int write)
{
	const struct pg_geom *g = io->g;
	struct store_file *f;
	unsigned int idx;
	uint64_t page;
	char name[64];
	ssize_t r;
	int ret;

	seg_of(g, gpage, &idx, &page);
	if ((ret = io_file(io, idx, &f)))
		return ret;
	if (write)
		r = store_pwrite(io->s, f, io->buf, g->bs, page * g->bs);
	else
		r = store_pread(io->s, f, io->buf, g->bs, page * g->bs);
	if (r < 0) {
		pg_seg_name(g, idx, name, sizeof(name));
		snprintf(io->err, sizeof(io->err), "%s(%s, page %llu) failed: %s",
			 write ? "pwrite" : "pread", name, (unsigned long long)page,
			 strerror((int)-r));
		return (int)r;
	}
	return 0;
}

int txn_io_size(struct txn_io *io, uint64_t gpage, uint64_t *size)
{
	struct store_file *f;
	unsigned int idx;
	uint64_t page;
	char name[64];
	int ret;

	seg_of(io->g, gpage, &idx, &page);
	if ((ret = io_file(io, idx, &f)))
		return ret;
	io->probes++;
	ret = store_size(io->s, f, size);
	if (ret) {
		pg_seg_name(io->g, idx, name, sizeof(name));
		snprintf(io->err, sizeof(io->err), "lseek(%s, SEEK_END) failed: %s", name,
			 strerror(-ret));
	}
	return ret;
}

int txn_io_extend(struct txn_io *io, uint64_t gpage)
{
	unsigned int idx;
	uint64_t page, size;
	int ret;

	if ((ret = txn_io_size(io, gpage, &size)))
		return ret;
	seg_of(io->g, gpage, &idx, &page);
	if (size > page * io->g->bs)
		return 0;
	memset(io->buf, 0, io->g->bs);	/* smgrextend writes the new page zeroed */
	if ((ret = txn_io_page(io, gpage, 1)))
		return ret;
	io->extends++;
	return 0;
}
