/*
 * redolog.h - the redolog engine's log writer (engines/redolog/redolog_log.c,
 * redolog_flush.c, redolog_wal.c), used by its fio hooks (engines/redolog/redolog.c).
 * No fio headers: the log writer only talks to the store layer.
 */
#ifndef DBFIO_REDOLOG_H
#define DBFIO_REDOLOG_H

#include <stdint.h>
#include <stdio.h>
#include "store/store.h"
#include "redolog_fmt.h"
#include "store/owner.h"

enum rl_flush { RL_FLUSH_NONE, RL_FLUSH_FSYNC, RL_FLUSH_FDATASYNC };

#define RL_MARKERS	16

/* Everything the log writer needs, resolved from the options in setup. */
struct rl_cfg {
	struct rl_geo g;
	uint64_t wa;		/* mysql write-ahead size; 0: none */
	uint64_t bufsize;	/* log buffer (innodb_log_buffer_size/wal_buffers) */
	int open_flags;		/* O_SYNC / O_DSYNC / O_DIRECT for the log files */
	int flush;		/* enum rl_flush after each group write */
	int trx_commit;		/* innodb_flush_log_at_trx_commit (postgres: 1) */
	int skip_flush;		/* test only: never flush */
	const char *lsn_file;	/* local sidecar, or NULL */
	const char *trace;	/* write trace, or NULL */
	int unlink;		/* fio's unlink=1: remove the log files at close */
	const char *job;	/* the job's name in messages; NULL: the engine's */
	int wal_init_zero;	/* postgres: a created segment is zero-filled (else 1 byte at its end) */
	int wal_recycle;	/* postgres: a freed segment is renamed ahead (else removed) */
	int ckpt_frees;		/* postgres: only rl_log_freed() frees segments (txn's checkpointer);
				 * 0: every segment behind the ring is free (redolog) */
};

struct rl_stats {
	uint64_t commits, groups, writes, bytes, pad_bytes, flushes;
	uint64_t recycles, wraps, max_group;
	uint64_t creates, removes;	/* postgres: segments created (XLogFileInit), removed */
};

struct rl_log {
	struct rl_cfg c;
	struct store *s;
	const char *engine;
	int emulate_sync;	/* backend ignores O_*SYNC: flush after each write */
	int linked;		/* write+fdatasync as linked requests (uring) */
	unsigned int nslots;	/* open files: circular files or kept segments */
	struct store_file **fh;
	uint64_t *fh_no;
	uint8_t *dirty;

	uint8_t *buf;		/* the log buffer: units base_u, base_u+1, ... */
	uint32_t *first;	/* per buffered unit: first record offset */
	uint32_t *rem;		/* per buffered unit: continued bytes (postgres) */
	uint64_t buf_units;
	uint64_t base_u;

	uint64_t lsn;		/* end of the buffered stream */
	uint64_t written_lsn, ack_lsn, durable_lsn, ckpt_lsn;
	uint64_t wa_end_u;	/* units below this were already padded */
	uint64_t seg_hi;	/* postgres: highest segment in place; redo8030: active file */
	uint64_t *old;		/* postgres: segments on disk behind the ring, ascending */
	unsigned int nold, old_cap;
	uint64_t freed_lsn;	/* postgres, ckpt_frees: segments wholly below it are free */
	int files_ok;		/* every file created: rewrite the meta at close */
	uint64_t cap, stride, next_marker;
	uint64_t marker[RL_MARKERS];
	unsigned int mhead, mcount;
	uint64_t last_flush_ns;
	uint32_t seq;

	int side_fd;
	FILE *trace;
	struct store_req *reqs;
	unsigned int nreqs_max;
	unsigned int inflight;	/* requests submitted and not reaped yet */
	struct rl_stats st;
	struct owner own;	/* the names this log may create (owner.h) */
	char err[768];		/* last error: "<call>(<file>) failed: ..." */
	int failed;		/* -errno of the first failed write/flush: log unusable */
	char failed_why[200];
};

/* innodb_flush_method (0: not given) and wal_sync_method, as fio's parser maps them (redolog_opts.h). */
enum rl_innodb_method { RL_IM_DEFAULT, RL_IM_FSYNC, RL_IM_O_DSYNC, RL_IM_O_DIRECT,
			RL_IM_O_DIRECT_NO_FSYNC };
enum rl_wal_method { RL_WM_FDATASYNC, RL_WM_FSYNC, RL_WM_OPEN_DATASYNC, RL_WM_OPEN_SYNC };

/*
 * Create (zero-filled) and open the log files, write the meta file. Refuses
 * (-EEXIST, l->err naming the file) a log file that exists and is not dbfio's.
 */
int rl_log_open(struct rl_log *l, struct store *s, const struct rl_cfg *c,
		const char *engine);

/* Close; with c.unlink, remove every file the log created. */
void rl_log_close(struct rl_log *l);

/* Bytes of stream room left in the buffer. */
uint64_t rl_log_room(const struct rl_log *l);
/* Append one record of len bytes (header included) built around payload. */
void rl_log_append(struct rl_log *l, const void *payload, uint32_t len);
/*
 * Write everything buffered and (flush != 0) make it durable. Returns 0 or
 * -errno (l->err says which call); *flush_ns gets the flush time (0: none).
 */
int rl_log_write(struct rl_log *l, int flush, uint64_t *flush_ns);
/* Flush every file written since the last flush. */
int rl_log_flush(struct rl_log *l, uint64_t *flush_ns);
/*
 * Once a write or flush failed, both calls above return that error for good
 * (l->failed) and rl_log_ack does nothing: records a failed flush covered
 * are never acknowledged.
 */
/* Records up to lsn are acknowledged: update the sidecar. */
void rl_log_ack(struct rl_log *l, uint64_t lsn);
/*
 * postgres, c.ckpt_frees: a checkpoint whose redo point is lsn completed; the
 * segments wholly below lsn may be recycled (or removed). Caller serializes it
 * with the writes (txn: the log's mutex).
 */
void rl_log_freed(struct rl_log *l, uint64_t lsn);

/* Internal to the log writer (redolog_log.c <-> redolog_flush.c). */
int rl_fail(struct rl_log *l, int ret, const char *call, const char *name);
int rl_claim(struct rl_log *l, const char *name, unsigned int flags);
/* redolog_wal.c: the open handle of postgres segment no, past the ones in place. */
int rl_pg_segment(struct rl_log *l, uint64_t no, struct store_file **fp);
int rl_write_group(struct rl_log *l, int flush, uint64_t *flush_ns);
int rl_linked(struct rl_log *l, unsigned int nreq, uint64_t *flush_ns);
#define RL_DRAIN_NS (10ull * 1000 * 1000 * 1000)	/* rl_drain: wait at most 10 s */
unsigned int rl_drain(struct rl_log *l);
int rl_flush_files(struct rl_log *l, uint64_t *flush_ns);

#endif
