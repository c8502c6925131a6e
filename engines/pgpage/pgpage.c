/*
 * pgpage - PostgreSQL's data-file I/O: 8 kB page reads and writes into
 * relation files split into 1 GiB segments, and the checkpointer's sorted,
 * paced write storm followed by an fsync of every segment dirtied since the
 * last checkpoint (the checkpointer is in pgpage_ckpt.c).
 *
 * fio sees one pseudo-file of relations x relation_size bytes (set by the
 * engine, as fio's rbd engine sizes its image: a job needs no size=). One
 * io_u is one page, bs must equal block_size. fio's offset picks the page:
 *
 *   page     = offset / block_size
 *   relation = page / (relation_size / block_size)      file <relfilenode + relation>
 *   block    = page % (relation_size / block_size)      block number in the relation
 *   segment  = block / (segment_size / block_size)      file suffix ".<segment>" when > 0
 *   file offset = (block % (segment_size / block_size)) * block_size
 *
 * so fio's sequential, random and zipf distributions run over the database's
 * blocks in (relation, block) order. With extend_ratio=P, P% of writes append
 * a page at the relation's end instead (relation extension), up to extend_limit.
 * Writes are buffered unless direct=1; a read of a page never written returns
 * zeros, as a new page does. The store layer does the I/O: store=posix (sync
 * calls), cephfs (sync calls), uring, aio, rbd (submit/reap).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "fio.h"
#include "fio_time.h"
#include "optgroup.h"

#include "glue/fio_store.h"
#include "pgpage.h"

#define PG_LAT_BATCH	64

struct pgpage_iou {
	struct store_req req;
	struct io_u *io_u;
	uint64_t gpage;		/* guarded page, for the checkpointer */
	int guarded;
};

struct pgpage_data {
	struct store *store;
	struct pg_geom g;
	struct pg_files f;		/* the relation files (pgpage_files.c) */
	uint64_t *nblocks;		/* per relation: its length in pages */
	struct pg_ckpt *ck;
	struct store_req **done;
	int async;			/* store has a real submit/reap path */
	unsigned int bs_shift;		/* log2(block_size) */
	uint64_t rand;
	int shut;
};

struct pgpage_options {
	void *pad;	/* fio stores td here; off1 must not be 0 */
	struct store_opts so;
	unsigned long long relations;
	unsigned long long relation_size;
	unsigned long long segment_size;
	unsigned long long block_size;
	unsigned long long relfilenode;
	unsigned int extend_ratio;
	unsigned long long extend_limit;
	unsigned int checkpoint_timeout;
	unsigned int checkpoint_pages;
	fio_fp64_t checkpoint_completion_target;
	unsigned long long checkpoint_flush_after;
	char *checkpoint_log;
	unsigned int checkpoint_at_exit;
	unsigned int size_probes;
};

#define T struct pgpage_options

/* relations and relfilenode: an OID each (their sum too: pg_geom_build) */
static struct fio_option options[] = {
	FIO_STORE_OPTIONS(T, so),
	FIO_ENGINE_RANGE(T, "relations", FIO_OPT_ULL, relations,
		"Number of relations (relation files; 1..2^32-1)", "8", 1, UINT32_MAX),
	FIO_ENGINE_RANGE(T, "relation_size", FIO_OPT_ULL, relation_size,
		"Size of each relation addressed by fio (multiple of block_size; 512..1P)", "128M",
		512, 1ull << 50),
	FIO_ENGINE_RANGE(T, "segment_size", FIO_OPT_ULL, segment_size,
		"Relation segment file size (PostgreSQL RELSEG_SIZE x BLCKSZ; 512..1P)", "1G",
		512, 1ull << 50),
	FIO_ENGINE_POW2(T, "block_size", FIO_OPT_ULL, block_size,
		"Page size: 8k as PostgreSQL, 16k as InnoDB; = bs", "8k", 512, 65536),
	FIO_ENGINE_RANGE(T, "relfilenode", FIO_OPT_ULL, relfilenode,
		"File name (relfilenode) of the first relation (1..2^32-1)", "16384", 1, UINT32_MAX),
	FIO_ENGINE_RANGE(T, "extend_ratio", FIO_OPT_INT, extend_ratio,
		"Percent of writes that extend the relation by one page at its end", "0", 0, 100),
	FIO_ENGINE_RANGE(T, "extend_limit", FIO_OPT_ULL, extend_limit,
		"Largest size a relation may reach by extension (0: 2 x relation_size; at most 1P)", "0",
		0, 1ull << 50),
	FIO_ENGINE_RANGE(T, "checkpoint_timeout", FIO_OPT_INT, checkpoint_timeout,
		"Seconds between timed checkpoints (0: none; PostgreSQL's at most 1 day)", "300",
		0, 86400),
	FIO_ENGINE_RANGE(T, "checkpoint_pages", FIO_OPT_INT, checkpoint_pages,
		"Also checkpoint after this many pages were dirtied (0: never)", "0", 0, 1000000000),
	FIO_ENGINE_FRAC(T, "checkpoint_completion_target", checkpoint_completion_target,
		"Spread checkpoint writes over this fraction of the interval", "0.9", 0.0, 1.0),
	FIO_ENGINE_RANGE(T, "checkpoint_flush_after", FIO_OPT_ULL, checkpoint_flush_after,
		"sync_file_range(WRITE) hint every this many bytes of checkpoint writes (0: off)",
		"256k", 0, 2 << 20),
	FIO_ENGINE_OPT(T, "checkpoint_log", FIO_OPT_STR_STORE, checkpoint_log,
		"Append one line per checkpoint (pages, fsynced files, times) to this file", NULL),
	FIO_ENGINE_RANGE(T, "size_probes", FIO_OPT_INT, size_probes,
		"lseek(SEEK_END) size probes of the segment per page I/O (smgrnblocks; 45 = pgbench)",
		"0", 0, 1000),
	FIO_ENGINE_BOOL(T, "checkpoint_at_exit", checkpoint_at_exit,
		"Run a shutdown checkpoint when the job ends, as PostgreSQL does", "1"),
	{
		.name	= NULL,
	},
};

#undef T

/* Geometry from the options; 1 after one log_err line naming the option. */
static int pg_geom_init(struct thread_data *td, const struct pgpage_options *o,
			struct pg_geom *g)
{
	const struct pg_geom_in in = {
		.block_size = o->block_size, .segment_size = o->segment_size,
		.relation_size = o->relation_size, .extend_limit = o->extend_limit,
		.relations = o->relations, .relfilenode = o->relfilenode,
		.extend_ratio = o->extend_ratio,
	};
	char err[256];

	if (pg_geom_build(&in, g, err, sizeof(err))) {
		log_err("pgpage: %s\n", err);
		return 1;
	}
	return 0;
}

/* "file size over the store": what the segments may reach vs. what the store holds. */
static int pg_check_capacity(struct thread_data *td, const struct pgpage_options *o,
			     const struct pg_geom *g)
{
	unsigned long long need = 0, have = 0;
	const char *what = "";
	struct statvfs sv;
	unsigned int caps = store_backend_caps(o->so.store);

	/* an image: checked in the job against the image itself (pg_reserve_rbd) */
	if ((caps & STORE_CAP_LOCAL_DIR) &&
	    !statvfs(td->o.directory ? td->o.directory : ".", &sv)) {
		need = g->max_pages * g->bs * g->relations;
		have = (unsigned long long)sv.f_blocks * sv.f_frsize;
		what = "the file system of directory=";
	}
	if (have && need > have) {
		log_err("pgpage: relation_size=%llu: relations=%llu need %llu MiB, more than %s holds (%llu MiB)\n",
			o->relation_size, o->relations, need >> 20, what, have >> 20);
		return 1;
	}
	return 0;
}

static int pg_check_job(struct thread_data *td, const struct pgpage_options *o)
{
	int d;

	for (d = DDIR_READ; d <= DDIR_WRITE; d++) {
		if (td->o.min_bs[d] != o->block_size || td->o.max_bs[d] != o->block_size) {
			log_err("pgpage: bs=%llu: must equal block_size=%llu (one io_u is one page)\n",
				td->o.min_bs[d] != o->block_size ? td->o.min_bs[d] : td->o.max_bs[d],
				o->block_size);
			return 1;
		}
	}
	if (o->extend_ratio && td->o.verify /* != VERIFY_NONE */) {
		log_err("pgpage: extend_ratio=%u: extension moves writes, verify= cannot follow them\n",
			o->extend_ratio);
		return 1;
	}
	return 0;
}

static int fio_pgpage_setup(struct thread_data *td)
{
	struct pgpage_options *o = td->eo;
	struct pg_geom g;
	struct fio_file *f;

	if (fio_store_setup(td, "pgpage", &o->so) || pg_geom_init(td, o, &g) ||
	    pg_check_job(td, o) || pg_check_capacity(td, o, &g))
		return 1;
	fio_store_no_fio_syncs(td, "pgpage", "PostgreSQL leaves fsync to its checkpoints");
	/* one pseudo-file: the database's address space (as fio's rbd engine) */
	if (!td->files_index) {
		add_file(td, td->o.filename ? : "pgpage", 0, 0);
		td->o.nr_files = td->o.nr_files ? : 1;
		td->o.open_files++;
	}
	f = td->files[0];
	f->real_file_size = (unsigned long long)o->relations * o->relation_size;
	fio_file_set_size_known(f);
	return 0;
}

static int pg_start_checkpointer(struct thread_data *td, struct pgpage_data *pd,
				 const struct pgpage_options *o)
{
	struct pg_ckpt_conf conf = { 0 };
	char err[256];
	int ret;

	conf.timeout_ns = o->checkpoint_timeout * 1000000000ull;
	conf.pages = o->checkpoint_pages;
	if (!conf.timeout_ns && !conf.pages)
		return 0;	/* checkpoints off: no thread, no bookkeeping */
	conf.target = o->checkpoint_completion_target.u.f;
	conf.flush_after_pages = (o->checkpoint_flush_after + pd->g.bs - 1) / pd->g.bs;
	if (o->checkpoint_log && *o->checkpoint_log) {
		conf.log = fopen(o->checkpoint_log, "a");
		if (!conf.log) {
			log_err("pgpage: checkpoint_log=%s: fopen(%s) failed: %s\n",
				o->checkpoint_log, o->checkpoint_log, strerror(errno));
			return 1;
		}
	}
	ret = pg_ckpt_start(&pd->ck, &pd->g, &conf, &pd->store->cfg, err, sizeof(err));
	if (ret) {
		log_err("pgpage: %s\n", err);
		if (conf.log)
			fclose(conf.log);
		td_verror(td, -ret, "checkpointer");
		return 1;
	}
	return 0;
}

/*
 * store=rbd gives each file a fixed extent of the image when it is first
 * opened: open every segment now, so that an image too small for the
 * geometry (its real size, whatever rbd_size says) fails here, in one line,
 * not in the middle of the run.
 */
static int pg_reserve_rbd(struct thread_data *td, struct pgpage_data *pd)
{
	const struct pgpage_options *o = td->eo;
	unsigned long long need = 1ull << 20;	/* the table, then 4 MiB aligned extents */
	unsigned int i, failed = 0;
	char name[64], loc[256];
	int ret;

	if (!(store_caps(pd->store) & STORE_CAP_IMAGE))
		return 0;
	ret = pg_files_reserve(&pd->f, &failed);
	if (!ret)
		return 0;
	for (i = 0; i < pd->g.nsegs; i++)
		need += (pg_seg_bytes(&pd->g, i) + (4ull << 20) - 1) & ~((4ull << 20) - 1);
	pg_seg_name(&pd->g, failed, name, sizeof(name));
	if (ret == -ENOSPC)
		log_err("pgpage: relation_size=%llu: image %s has no room for segment %s "
			"(relations=%llu need %llu MiB of extents; the image's own size counts, "
			"not rbd_size)\n", o->relation_size,
			store_location(pd->store, loc, sizeof(loc)), name, o->relations, need >> 20);
	else
		log_err("pgpage: %s\n", pd->f.err);
	td_verror(td, -ret, "store_open");
	return 1;
}

/* The relation files: claimed (or refused) at start-up, reserved on rbd. */
static int pg_files_start(struct thread_data *td, struct pgpage_data *pd)
{
	int ret = pg_files_init(&pd->f, pd->store, &pd->g);

	if (ret) {
		log_err("pgpage: %s\n", pd->f.err);
		td_verror(td, -ret, "relation files");
		return 1;
	}
	return pg_reserve_rbd(td, pd);
}

static int fio_pgpage_init(struct thread_data *td)
{
	struct pgpage_options *o = td->eo;
	struct pgpage_data *pd;
	unsigned int i;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return 1;
	if (pg_geom_init(td, o, &pd->g))
		goto err;
	pd->nblocks = calloc(pd->g.relations, sizeof(*pd->nblocks));
	pd->done = calloc(td->o.iodepth, sizeof(*pd->done));
	if (!pd->nblocks || !pd->done)
		goto err;
	for (i = 0; i < pd->g.relations; i++)
		pd->nblocks[i] = pd->g.rel_pages;
	pd->bs_shift = __builtin_ctzll(pd->g.bs);
	pd->rand = td->o.rand_seed * 2654435761ull + td->thread_number + 1;
	if (fio_store_connect(td, "pgpage", &o->so, td->o.directory, 0, &pd->store))
		goto err;
	pd->async = !!(store_caps(pd->store) & STORE_CAP_ASYNC);
	if (pg_files_start(td, pd) || pg_start_checkpointer(td, pd, o))
		goto err_store;
	td->io_ops_data = pd;
	return 0;
err_store:
	pg_files_exit(&pd->f);
	store_exit(pd->store);
err:
	free(pd->done);
	free(pd->nblocks);
	free(pd);
	return 1;
}

/* Record the checkpointer's fsync latencies here, in the job's thread. */
static void pg_drain(struct thread_data *td, struct pgpage_data *pd)
{
	uint64_t lat[PG_LAT_BATCH];
	unsigned int n, i;

	if (!pd->ck)
		return;
	while ((n = pg_ckpt_take_lat(pd->ck, lat, PG_LAT_BATCH)) > 0) {
		for (i = 0; i < n; i++) {
			if (in_ramp_time(td))
				continue;
			fio_store_sync_sample(td, lat[i]);
			td->ts.total_io_u[DDIR_SYNC]++;
		}
	}
	if (atomic_load(&pd->ck->error_hint) && !td->error) {
		log_err("pgpage: %s\n", pd->ck->errmsg);
		td_verror(td, -pd->ck->error, "checkpointer");
	}
}

/* Stop the checkpointer (with its shutdown checkpoint), record, close. */
static void pg_shutdown(struct thread_data *td, struct pgpage_data *pd)
{
	struct pgpage_options *o = td->eo;
	struct store_opts so = o->so;
	char path[4096];

	if (pd->shut)
		return;
	pd->shut = 1;
	if (pd->ck) {
		pg_ckpt_stop(pd->ck, o->checkpoint_at_exit);
		pg_drain(td, pd);
		if (so.lat_json && *so.lat_json) {
			/* the checkpointer's store calls: <lat_json>.checkpointer */
			snprintf(path, sizeof(path), "%s.checkpointer", so.lat_json);
			so.lat_json = path;
			so.lat_table = 0;
			fio_store_report(td, "pgpage", &so, pd->ck->store);
		}
		if (pd->ck->conf.log)
			fclose(pd->ck->conf.log);
		pg_ckpt_free(pd->ck);
		pd->ck = NULL;
	}
	pg_files_close(&pd->f);
}

static void fio_pgpage_cleanup(struct thread_data *td)
{
	struct pgpage_options *o = td->eo;
	struct pgpage_data *pd = td->io_ops_data;

	if (!pd)
		return;
	pg_shutdown(td, pd);
	fio_store_report(td, "pgpage", &o->so, pd->store);
	pg_files_exit(&pd->f);
	store_exit(pd->store);
	free(pd->done);
	free(pd->nblocks);
	free(pd);
	td->io_ops_data = NULL;
}

static int fio_pgpage_io_u_init(struct thread_data *td, struct io_u *io_u)
{
	struct pgpage_iou *pi = calloc(1, sizeof(*pi));

	if (!pi)
		return 1;
	pi->io_u = io_u;
	pi->req.priv = pi;
	io_u->engine_data = pi;
	return 0;
}

static void fio_pgpage_io_u_free(struct thread_data *td, struct io_u *io_u)
{
	free(io_u->engine_data);
	io_u->engine_data = NULL;
}

/* The database's files are opened per segment on first use; fio's pseudo-file is not a file. */
static int fio_pgpage_open_file(struct thread_data *td, struct fio_file *f)
{
	return 0;
}

static int fio_pgpage_close_file(struct thread_data *td, struct fio_file *f)
{
	return 0;
}

/* unlink=1: remove every segment file the job may have created. */
static int fio_pgpage_unlink_file(struct thread_data *td, struct fio_file *f)
{
	struct pgpage_data *pd = td->io_ops_data;

	if (!pd)
		return 0;
	pg_shutdown(td, pd);
	if (pg_files_unlink(&pd->f)) {
		log_err("pgpage: %s\n", pd->f.err);
		return 1;
	}
	return 0;
}

static uint64_t pg_rand(struct pgpage_data *pd)
{
	pd->rand ^= pd->rand << 13;
	pd->rand ^= pd->rand >> 7;
	pd->rand ^= pd->rand << 17;
	return pd->rand;
}

/* offset -> segment index and page in it; gpage numbers pages for the guards. */
static int pg_map(struct thread_data *td, struct pgpage_data *pd, struct io_u *io_u,
		  unsigned int *idx, uint64_t *spage, uint64_t *gpage)
{
	const struct pgpage_options *o = td->eo;
	const struct pg_geom *g = &pd->g;
	uint64_t page = io_u->offset >> pd->bs_shift, blk;	/* bs: a power of two */
	unsigned int rel;

	if ((io_u->offset & (g->bs - 1)) || io_u->xfer_buflen != g->bs ||
	    page >= (uint64_t)g->relations * g->rel_pages)
		return -EINVAL;
	rel = page / g->rel_pages;
	blk = page % g->rel_pages;
	if (io_u->ddir == DDIR_WRITE && o->extend_ratio &&
	    pd->nblocks[rel] < g->max_pages && pg_rand(pd) % 100 < o->extend_ratio)
		blk = pd->nblocks[rel]++;	/* relation extension: a new page at the end */
	*idx = pg_seg_index(g, rel, blk / g->pages_per_seg);
	*spage = blk % g->pages_per_seg;
	*gpage = (uint64_t)rel * g->max_pages + blk;
	return 0;
}

/* A read past the end of a segment is a page never written: zeros. */
static void pg_finish(struct pgpage_data *pd, struct pgpage_iou *pi, ssize_t res)
{
	struct io_u *io_u = pi->io_u;

	if (pi->guarded)
		pg_guard_exit(pd->ck, pi->gpage);
	pi->guarded = 0;
	if (res < 0)
		io_u->error = -res;
	else if (io_u->ddir == DDIR_READ && (unsigned long long)res < io_u->xfer_buflen)
		memset((char *)io_u->xfer_buf + res, 0, io_u->xfer_buflen - res);
	else if ((unsigned long long)res != io_u->xfer_buflen)
		io_u->resid = io_u->xfer_buflen - res;
}

static enum fio_q_status fio_pgpage_queue(struct thread_data *td, struct io_u *io_u)
{
	struct pgpage_data *pd = td->io_ops_data;
	struct pgpage_iou *pi = io_u->engine_data;
	struct store_req *r = &pi->req;
	struct pgpage_options *o = td->eo;
	uint64_t spage, gpage, size;
	unsigned int idx, n;
	int ret;

	fio_ro_check(td, io_u);
	if (fio_fill_issue_time(td))	/* the page call is the I/O: clat starts here */
		fio_gettime(&io_u->issue_time, NULL);
	pg_drain(td, pd);
	if (io_u->ddir == DDIR_SYNC || io_u->ddir == DDIR_DATASYNC) {
		/* end_fsync=, fsync_on_close=: PostgreSQL leaves that to checkpoints */
		return FIO_Q_COMPLETED;
	}
	if (!ddir_rw(io_u->ddir)) {
		io_u->error = EOPNOTSUPP;
		td_verror(td, io_u->error, "pgpage: trim is not supported");
		return FIO_Q_COMPLETED;
	}
	ret = pg_map(td, pd, io_u, &idx, &spage, &gpage);
	if (!ret && (ret = pg_files_open(&pd->f, idx)))
		log_err("pgpage: %s\n", pd->f.err);
	if (ret) {
		io_u->error = -ret;
		td_verror(td, io_u->error, ret == -EINVAL ? "pgpage: offset/bs" : "store_open");
		return FIO_Q_COMPLETED;
	}
	/*
	 * PostgreSQL learns a relation's size with lseek(SEEK_END) on every
	 * smgrnblocks() (planner, extension, scans), uncached: on slow metadata
	 * paths these probes cost more than the page I/O itself.
	 */
	for (n = 0; !ret && n < o->size_probes; n++)
		ret = store_size(pd->store, pd->f.files[idx], &size);
	if (ret) {
		io_u->error = -ret;
		td_verror(td, io_u->error, "pgpage: lseek(SEEK_END)");
		return FIO_Q_COMPLETED;
	}
	r->file = pd->f.files[idx];
	r->buf = io_u->xfer_buf;
	r->len = io_u->xfer_buflen;
	r->off = spage * pd->g.bs;
	r->flags = 0;
	r->op = io_u->ddir == DDIR_WRITE ? SOP_WRITE : SOP_READ;
	if (io_u->ddir == DDIR_WRITE && pd->ck) {
		pi->gpage = gpage;
		pi->guarded = 1;
		pg_guard_enter(pd->ck, gpage);
		pg_ckpt_dirty(pd->ck, idx, spage);
	}
	if (!pd->async) {
		pg_finish(pd, pi, r->op == SOP_WRITE ?
			  store_pwrite(pd->store, r->file, r->buf, r->len, r->off) :
			  store_pread(pd->store, r->file, r->buf, r->len, r->off));
		if (io_u->error)
			td_verror(td, io_u->error, r->op == SOP_WRITE ? "pwrite" : "pread");
		return FIO_Q_COMPLETED;
	}
	ret = store_submit(pd->store, r);
	if (ret) {
		if (pi->guarded)
			pg_guard_exit(pd->ck, pi->gpage);
		pi->guarded = 0;
		if (ret == -EBUSY)
			return FIO_Q_BUSY;
		io_u->error = -ret;
		td_verror(td, io_u->error, "store_submit");
		return FIO_Q_COMPLETED;
	}
	return FIO_Q_QUEUED;
}

static int fio_pgpage_getevents(struct thread_data *td, unsigned int min,
				unsigned int max, const struct timespec *t)
{
	struct pgpage_data *pd = td->io_ops_data;
	int64_t timeout = t ? t->tv_sec * 1000000000LL + t->tv_nsec : -1;

	pg_drain(td, pd);
	return store_reap(pd->store, min, max, pd->done, timeout);
}

static struct io_u *fio_pgpage_event(struct thread_data *td, int event)
{
	struct pgpage_data *pd = td->io_ops_data;
	struct store_req *r = pd->done[event];
	struct pgpage_iou *pi = r->priv;

	pg_finish(pd, pi, r->result);
	return pi->io_u;
}

struct ioengine_ops ioengine = {
	.name			= "pgpage",
	.version		= FIO_IOOPS_VERSION,
	.flags			= FIO_DISKLESSIO | FIO_NODISKUTIL |
				  FIO_ASYNCIO_SETS_ISSUE_TIME,
	.setup			= fio_pgpage_setup,
	.init			= fio_pgpage_init,
	.cleanup		= fio_pgpage_cleanup,
	.queue			= fio_pgpage_queue,
	.getevents		= fio_pgpage_getevents,
	.event			= fio_pgpage_event,
	.open_file		= fio_pgpage_open_file,
	.close_file		= fio_pgpage_close_file,
	.unlink_file		= fio_pgpage_unlink_file,
	.io_u_init		= fio_pgpage_io_u_init,
	.io_u_free		= fio_pgpage_io_u_free,
	.option_struct_size	= sizeof(struct pgpage_options),
	.options		= options,
};
