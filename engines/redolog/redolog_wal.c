/*
 * redolog_wal.c - PostgreSQL's WAL segments for the log writer
 * (redolog_log.c): when the log moves on to segment no, the oldest open
 * segment leaves the ring; a segment a checkpoint freed is recycled into
 * the new name, or, with none, the new segment is created as PostgreSQL
 * 15's XLogFileInitInternal does (docs/txn.md, "WAL segments"). Called by
 * the writer, so under whatever lock the engine writes with (txn: the
 * log's mutex, as PostgreSQL's WALWriteLock). Talks to the store layer only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "redolog.h"

/* The last name taken off the marker's claims (owner.h keeps it small). */
static int rl_drop(struct rl_log *l, const char *name)
{
	int ret = owner_drop(&l->own, name);

	if (ret)
		snprintf(l->err, sizeof(l->err), "%s", l->own.err);
	return ret;
}

/* postgres: the segment's handle in slot: made durable if written, then closed (it stays on disk). */
static int rl_pg_retire(struct rl_log *l, unsigned int slot)
{
	char name[128];
	uint64_t *o;
	int ret;

	rl_file_name(&l->c.g, l->fh_no[slot], name, sizeof(name));
	if (l->dirty[slot]) {
		ret = store_fdatasync(l->s, l->fh[slot]);
		if (ret)
			return rl_fail(l, ret, "fdatasync", name);
		l->dirty[slot] = 0;
	}
	if (l->nold == l->old_cap) {
		o = realloc(l->old, (l->old_cap * 2 + 8) * sizeof(*o));
		if (!o)
			return rl_fail(l, -ENOMEM, "realloc", "old segments");
		l->old = o;
		l->old_cap = l->old_cap * 2 + 8;
	}
	l->old[l->nold++] = l->fh_no[slot];
	store_close(l->s, l->fh[slot]);
	l->fh[slot] = NULL;
	return 0;
}

/* postgres: may the checkpointer have recycled (or removed) the oldest segment behind the ring? */
static int rl_pg_freed(const struct rl_log *l)
{
	const struct rl_geo *g = &l->c.g;

	if (!l->nold)
		return 0;
	return !l->c.ckpt_frees ||
	       l->old[0] * rl_units_per_file(g) * rl_payload(g) <= l->freed_lsn;
}

static void rl_pg_pop(struct rl_log *l)
{
	memmove(l->old, l->old + 1, --l->nold * sizeof(*l->old));
}

/*
 * wal_recycle=off: PostgreSQL's checkpointer removes (RemoveXlogFile) the
 * segments it frees instead of renaming them ahead.
 */
static int rl_pg_remove_freed(struct rl_log *l)
{
	char name[128];
	int ret;

	while (rl_pg_freed(l)) {
		rl_file_name(&l->c.g, l->old[0], name, sizeof(name));
		ret = store_unlink(l->s, name);
		if (ret && ret != -ENOENT)
			return rl_fail(l, ret, "unlink", name);
		if ((ret = rl_drop(l, name)))
			return ret;
		rl_pg_pop(l);
		l->st.removes++;
		if (l->trace)
			fprintf(l->trace, "D %s\n", name);
	}
	return 0;
}

/* PostgreSQL's fsync_fname(): open the file, fsync it, close it. */
static int rl_fsync_name(struct rl_log *l, const char *name)
{
	struct store_file *f;
	int ret = store_open(l->s, name, O_RDWR, 0, l->c.g.file_size, &f);

	if (ret)
		return rl_fail(l, ret, "open", name);
	ret = store_fsync(l->s, f);
	store_close(l->s, f);
	return ret ? rl_fail(l, ret, "fsync", name) : 0;
}

/*
 * PostgreSQL opens a segment's name before creating it (XLogFileInitInternal:
 * it may exist; durable_rename: fsync it if it does): here it exists only as
 * an earlier run's segment (the store cannot list the directory to remove
 * them at start), removed when claimed; a file not ours is refused.
 */
static int rl_absent(struct rl_log *l, const char *name)
{
	struct store_file *f;
	int ret = store_open(l->s, name, O_RDWR, 0, l->c.g.file_size, &f);

	if (ret == -ENOENT)
		return 0;
	if (ret)
		return rl_fail(l, ret, "open", name);
	store_close(l->s, f);
	if (!owner_claimed(&l->own, name))
		return rl_claim(l, name, 0);	/* -EEXIST: "<name> exists and dbfio did not create it" */
	ret = store_unlink(l->s, name);
	return ret ? rl_fail(l, ret, "unlink", name) : 0;
}

/* XLogFileInitInternal's zero-fill: pwritev of PG_IOV_MAX (32) XLOG_BLCKSZ pages at a time. */
#define RL_PG_IOV	32
static int rl_pg_fill(struct rl_log *l, struct store_file *f, const char *tmp)
{
	static const uint8_t zero[8192] __attribute__((aligned(4096)));
	struct iovec iov[RL_PG_IOV];
	uint64_t blocks = l->c.g.file_size / sizeof(zero), i;
	ssize_t r;
	int n, k;

	if (!l->c.wal_init_zero) {	/* seeking to the end and writing a solitary byte */
		r = store_pwrite(l->s, f, zero, 1, l->c.g.file_size - 1);
		return r == 1 ? 0 : rl_fail(l, r < 0 ? (int)r : -EIO, "pwrite", tmp);
	}
	for (k = 0; k < RL_PG_IOV; k++) {
		iov[k].iov_base = (void *)zero;
		iov[k].iov_len = sizeof(zero);
	}
	for (i = 0; i < blocks; i += n) {
		n = blocks - i < RL_PG_IOV ? (int)(blocks - i) : RL_PG_IOV;
		r = store_pwritev(l->s, f, iov, n, i * sizeof(zero));
		if (r != (ssize_t)(n * sizeof(zero)))
			return rl_fail(l, r < 0 ? (int)r : -EIO, "pwritev", tmp);
	}
	return 0;
}

/*
 * postgres: no recycled segment for no: create it as XLogFileInitInternal
 * does, by the committer that holds the WAL write lock (txn: the log's
 * owner, under its mutex: every other commit waits). xlogtemp.<pid> is
 * created O_EXCL, zero-filled (wal_init_zero; else one byte at its end),
 * fsynced and closed, then installed by durable_rename(): fsync of the temp
 * name, rename, fsync of the new name, fsync of the directory.
 */
static int rl_pg_create(struct rl_log *l, const char *to)
{
	struct store_file *f;
	char tmp[128];
	int ret;

	snprintf(tmp, sizeof(tmp), "%sxlogtemp.%d", l->c.g.prefix, (int)getpid());
	if ((ret = rl_absent(l, to)) || (ret = rl_claim(l, tmp, 0)))
		return ret;
	store_unlink(l->s, tmp);	/* ours: a crashed run's leftover */
	ret = store_open(l->s, tmp, O_RDWR | O_CREAT | O_EXCL, 0600, l->c.g.file_size, &f);
	if (ret)
		return rl_fail(l, ret, "open", tmp);
	ret = rl_pg_fill(l, f, tmp);
	if (!ret && (ret = store_fsync(l->s, f)))
		rl_fail(l, ret, "fsync", tmp);
	store_close(l->s, f);
	if (ret)
		return ret;
	if ((ret = rl_fsync_name(l, tmp)))
		return ret;
	if ((ret = rl_absent(l, to)) || (ret = rl_claim(l, to, 0)))
		return ret;
	if ((ret = store_rename(l->s, tmp, to)))
		return rl_fail(l, ret, "rename", tmp);
	if ((ret = rl_drop(l, tmp)) || (ret = rl_fsync_name(l, to)))
		return ret;
	ret = store_caps(l->s) & STORE_CAP_DIRSYNC ? store_dirsync(l->s, ".") : 0;
	if (ret)	/* durable_rename's fsync_parent_path() */
		return rl_fail(l, ret, "dirsync", ".");
	if (l->trace)
		fprintf(l->trace, "C %s\n", to);
	l->st.creates++;
	return 0;
}

/* postgres: the oldest freed segment becomes no (InstallXLogFileSegment's rename). */
static int rl_pg_recycle(struct rl_log *l, const char *to)
{
	char from[128];
	int ret;

	rl_file_name(&l->c.g, l->old[0], from, sizeof(from));
	/* as PostgreSQL stat()s a recycled segment's new name: never over a file not ours */
	if ((ret = rl_claim(l, to, 0)))
		return ret;
	ret = store_rename(l->s, from, to);
	if (ret)
		return rl_fail(l, ret, "rename", from);
	if ((ret = rl_drop(l, from)))
		return ret;
	rl_pg_pop(l);
	/*
	 * PostgreSQL installs a recycled segment with durable_rename(): the
	 * rename reaches the disk (the directory is fsynced) before the segment
	 * is written, so a crash never finds its records under the old name.
	 */
	if ((store_caps(l->s) & STORE_CAP_DIRSYNC) && (ret = store_dirsync(l->s, ".")))
		return rl_fail(l, ret, "dirsync", ".");
	if (l->trace)
		fprintf(l->trace, "R %s %s\n", from, to);
	l->st.recycles++;
	return 0;
}

/*
 * postgres: segment no is next. Its slot's segment leaves the ring (on disk
 * until freed). A segment the checkpointer freed is recycled (wal_recycle)
 * into no's name; with none freed, or wal_recycle=off, no is created.
 */
int rl_pg_segment(struct rl_log *l, uint64_t no, struct store_file **fp)
{
	unsigned int slot = no % l->nslots;
	char to[128];
	int ret;

	rl_file_name(&l->c.g, no, to, sizeof(to));
	if ((ret = rl_pg_retire(l, slot)))
		return ret;
	if (!l->c.wal_recycle && (ret = rl_pg_remove_freed(l)))
		return ret;
	ret = rl_pg_freed(l) ? rl_pg_recycle(l, to) : rl_pg_create(l, to);
	if (ret)
		return ret;
	ret = store_open(l->s, to, O_RDWR | l->c.open_flags, 0644, l->c.g.file_size, &l->fh[slot]);
	if (ret)
		return rl_fail(l, ret, "open", to);
	l->fh_no[slot] = no;
	l->seg_hi = no;
	*fp = l->fh[slot];
	return 0;
}

void rl_log_freed(struct rl_log *l, uint64_t lsn)
{
	if (lsn > l->freed_lsn)
		l->freed_lsn = lsn;
}
