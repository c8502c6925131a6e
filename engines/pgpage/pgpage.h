/*
 * pgpage.h - what the pgpage engine (pgpage.c, the job thread's side) and
 * its checkpointer (pgpage_ckpt.c, a thread of its own) share: the
 * relation/segment geometry, the dirty-page sets and the page guards.
 * No fio header is needed here.
 */
#ifndef DBFIO_PGPAGE_H
#define DBFIO_PGPAGE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "store/store.h"
#include "store/owner.h"

/* Page guards: a page is in one of PG_STRIPES stripes (by global page number). */
#define PG_STRIPES	4096

/* Where the pages are: from the options, fixed for the job. */
struct pg_geom {
	uint64_t bs;			/* block_size */
	uint64_t pages_per_seg;		/* segment_size / block_size */
	uint64_t rel_pages;		/* pages of a relation that fio addresses */
	uint64_t max_pages;		/* pages a relation may reach by extension */
	unsigned int segs_per_rel;	/* segments of max_pages */
	unsigned int relations;
	unsigned int relfilenode;	/* of relation 0 */
	unsigned int nsegs;		/* relations * segs_per_rel */
};

/* The options the geometry comes from. */
struct pg_geom_in {
	uint64_t block_size, segment_size, relation_size, extend_limit;
	unsigned int relations, relfilenode, extend_ratio;
};

/* Check the options and fill g; -EINVAL with one line naming the option in err. */
int pg_geom_build(const struct pg_geom_in *in, struct pg_geom *g, char *err, size_t errlen);

/* Segment index (relation-major: the order checkpoint writes are sorted in). */
static inline unsigned int pg_seg_index(const struct pg_geom *g, unsigned int rel,
					unsigned int seg)
{
	return rel * g->segs_per_rel + seg;
}

/* "<relfilenode>" for segment 0, "<relfilenode>.<n>" after it, as PostgreSQL names them. */
static inline void pg_seg_name(const struct pg_geom *g, unsigned int idx,
			       char *buf, size_t len)
{
	unsigned int rel = idx / g->segs_per_rel, seg = idx % g->segs_per_rel;

	if (seg)
		snprintf(buf, len, "%u.%u", g->relfilenode + rel, seg);
	else
		snprintf(buf, len, "%u", g->relfilenode + rel);
}

/* Bytes a segment file may reach (the last segment of a relation may be short). */
static inline uint64_t pg_seg_bytes(const struct pg_geom *g, unsigned int idx)
{
	uint64_t first = (uint64_t)(idx % g->segs_per_rel) * g->pages_per_seg;
	uint64_t n = g->max_pages - first;

	return (n < g->pages_per_seg ? n : g->pages_per_seg) * g->bs;
}

/* A set of dirty pages: one bitmap per segment, allocated on first use. */
struct pg_dirty {
	uint64_t **bits;
	uint32_t *count;		/* dirty pages per segment */
	uint64_t total;
};

struct pg_ckpt_conf {
	uint64_t timeout_ns;		/* 0: no timed checkpoints */
	uint64_t pages;			/* 0: no checkpoints by dirtied pages */
	double target;			/* checkpoint_completion_target */
	uint64_t flush_after_pages;	/* 0: no writeback hints */
	FILE *log;			/* checkpoint_log, or NULL */
	/* optional: called by the checkpointer just before and after it writes a
	 * page (txn's buffer pool: a change in between keeps the page dirty) */
	void (*writing)(void *arg, unsigned int idx, uint64_t page);
	void (*written)(void *arg, unsigned int idx, uint64_t page);
	void *written_arg;
	/* optional: called by the checkpointer, holding none of its locks, as a
	 * checkpoint begins (done 0: txn takes its redo point) and once its
	 * files are synced (done 1: txn's log may recycle what lies before it) */
	void (*phase)(void *arg, int done);
	void *phase_arg;
	/* txn: write the page from the buffer (zeros), not a rewrite of what the file holds */
	int no_reread;
	/* txn, InnoDB: each batch of up to PG_DBLWR_BATCH pages goes to this file
	 * first, in PG_DBLWR_BLOCK-page writes, then synced (1 fsync, 2 fdatasync);
	 * NULL: no doublewrite */
	const char *dblwr_name;
	int dblwr_sync;
};

/* InnoDB's doublewrite buffer: two blocks of 64 pages (TRX_SYS_DOUBLEWRITE_BLOCK_SIZE) */
#define PG_DBLWR_BLOCK	64
#define PG_DBLWR_BATCH	(2 * PG_DBLWR_BLOCK)

struct pg_ckpt {
	const struct pg_geom *g;
	struct pg_ckpt_conf conf;
	struct store *store;		/* the checkpointer's own */
	struct store_file **files;	/* its handles, per segment */
	void *buf;			/* one page, aligned for O_DIRECT */
	struct store_file *dw;		/* the doublewrite file (conf.dblwr_name) */
	void *dwbuf;			/* PG_DBLWR_BLOCK zero pages */

	pthread_t thread;
	int started;
	pthread_mutex_t lock;		/* everything below up to the guards */
	pthread_cond_t cond;
	int stop;
	int hurry;			/* a "sync" request: the running checkpoint unpaced, the next unspread */
	struct pg_dirty sets[3];
	struct pg_dirty *cur;		/* the job thread dirties pages here */
	struct pg_dirty *pend;		/* a requested checkpoint, not started yet */
	struct pg_dirty *act;		/* the checkpoint being written */
	int pend_valid;
	unsigned int pend_requests;	/* requests merged into pend */
	const char *pend_reason;
	uint64_t since_request;		/* pages dirtied since the last request */
	uint64_t *lat;			/* fsync latencies for the job thread */
	unsigned int nlat, lat_cap;
	atomic_uint nlat_hint;		/* nlat, read without the lock */
	int error;			/* first error: -errno ... */
	char errmsg[256];		/* ... and its message */
	atomic_int error_hint;

	/* a page rewritten by the checkpointer is not written by the job meanwhile */
	atomic_uint busy[PG_STRIPES];	/* job writes in flight */
	atomic_int cbusy[PG_STRIPES];	/* checkpointer rewriting */

	/* totals, written by the checkpointer thread only */
	uint64_t checkpoints, written, skipped, fsyncs, dblwr_pages, dblwr_syncs;
	int said_no_hints;
};

int pg_ckpt_start(struct pg_ckpt **ckp, const struct pg_geom *g,
		  const struct pg_ckpt_conf *conf, const struct store_config *cfg,
		  char *err, size_t errlen);
/* Checkpointer thread (pgpage_dblwr.c): doublewrite the next n pages, sync; 0 or -errno. */
int pg_ckpt_doublewrite(struct pg_ckpt *ck, uint64_t n);
/* Stop the thread; final: run a last, unpaced (shutdown) checkpoint first. */
void pg_ckpt_stop(struct pg_ckpt *ck, int final);
void pg_ckpt_free(struct pg_ckpt *ck);
/* Job thread: page of segment idx was written (or is about to be). */
void pg_ckpt_dirty(struct pg_ckpt *ck, unsigned int idx, uint64_t page);
/* Any thread, inside pg_guard_enter(page) and before writing it (txn: an
 * eviction): the checkpoints need not write the page; its segment is still
 * fsynced by the next one. */
void pg_ckpt_clean(struct pg_ckpt *ck, unsigned int idx, uint64_t page);
/* Any thread: request a checkpoint now (txn: max_wal_size reached). */
void pg_ckpt_request(struct pg_ckpt *ck, const char *reason);
/* Job thread: take up to max fsync latencies (ns); returns how many. */
unsigned int pg_ckpt_take_lat(struct pg_ckpt *ck, uint64_t *out, unsigned int max);

/* Job thread, around a page write: waits while the checkpointer rewrites the stripe. */
void pg_guard_wait(struct pg_ckpt *ck, unsigned int h);
static inline void pg_guard_enter(struct pg_ckpt *ck, uint64_t gpage)
{
	unsigned int h = gpage % PG_STRIPES;

	atomic_fetch_add(&ck->busy[h], 1);
	if (atomic_load(&ck->cbusy[h]))
		pg_guard_wait(ck, h);
}

static inline void pg_guard_exit(struct pg_ckpt *ck, uint64_t gpage)
{
	atomic_fetch_sub(&ck->busy[gpage % PG_STRIPES], 1);
}

/* The relation files (pgpage_files.c); errors: -errno, err names the file. */
struct pg_files {
	struct store *store;
	const struct pg_geom *g;
	struct store_file **files;	/* per segment, opened on first use */
	struct owner own;		/* the relations are dbfio's (owner.h) */
	char err[768];
};

/* Claim the relations (refusing files dbfio did not create). */
int pg_files_init(struct pg_files *pf, struct store *s, const struct pg_geom *g);
int pg_files_open(struct pg_files *pf, unsigned int idx);
/* Open every segment now (store=rbd: each gets its extent); *failed: the one that did not. */
int pg_files_reserve(struct pg_files *pf, unsigned int *failed);
void pg_files_close(struct pg_files *pf);
/* unlink=1: close and remove the segment files and the relations' claims. */
int pg_files_unlink(struct pg_files *pf);
void pg_files_exit(struct pg_files *pf);

#endif
