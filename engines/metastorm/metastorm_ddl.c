/*
 * metastorm_ddl.c - what one DDL statement does to files, per database,
 * through the store layer, which counts and times every call under the
 * phase set here (a DDL type, setup, alter_copy, checkpoint, cleanup).
 * docs/metastorm.md explains each recipe and where it comes from. fio-free.
 *
 * Layout, under the store root (fio's directory, or store_root on cephfs):
 *   dbfio_ms_<job>/                the job's data directory (mkdir at start;
 *                                  existing = foreign, the job refuses)
 *   dbfio_ms_<job>/<logs>          mysql: ib_redo, binlog.000001
 *                                  mariadb: ib_logfile0 (O_DIRECT where
 *                                  MariaDB opens it so), ddl_recovery.log
 *                                  postgres: wal
 *   dbfio_ms_<job>/db/             the schema (CREATE DATABASE)
 *   dbfio_ms_<job>/db/t<N>.ibd     mysql, mariadb (+ t<N>.frm)
 *   dbfio_ms_<job>/db/<filenode>   postgres
 * Every file is created with O_EXCL: the engine never overwrites what it
 * did not create.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metastorm.h"

#define MS_LOG_WRAP	(256u << 10)	/* preallocated redo/WAL: rewritten in a circle */
#define MS_DDL_LOG_IO	4096u		/* MariaDB's ddl_recovery.log entry (IO_SIZE) */
/*
 * ddl_recovery.log's header and entries: MariaDB reuses an entry once its
 * DDL is done, so one session's log stays within its first three entries
 * (traced on 10.11: 4 kB writes at 4096, 8192 and 12288 only, rewritten in
 * place). A log that grew would make every fdatasync a metadata commit.
 */
#define MS_DDL_LOG_SLOTS 4u
#define MS_FRM_BYTES	1045u		/* the .frm of (id INT PRIMARY KEY, v VARCHAR(100)), traced */
#define MS_FRM_READ	82u		/* what DROP reads of it (the header), traced */
#define MS_PG_CREATE_PROBES 7u		/* lseek(SEEK_END) per PostgreSQL 15 CREATE TABLE, traced */

/* Append one record to a shared log and sync it (a commit, a DDL log entry). */
static int log_commit(struct ms_data *md, int which, size_t len, int datasync)
{
	struct ms_log *l = &md->log[which];
	uint64_t start;
	int ret;

	if (l->wrap && l->off + len > l->wrap)
		l->off = 0;
	/* MariaDB writes whole blocks: from the one its last write ended in */
	start = l->unit ? l->off / l->unit * l->unit : l->off;
	ret = ms_write(md, l->f, l->path,
		       l->unit ? (l->off + len + l->unit - 1) / l->unit * l->unit - start : len,
		       start);
	if (ret)
		return ret;
	l->off += len;
	return ms_sync(md, l->f, l->path, datasync);
}

/* MariaDB's ddl_recovery.log: a 4 kB entry written in place, then synced */
static int ddl_log_entry(struct ms_data *md)
{
	struct ms_log *l = &md->log[MS_LOG_B];
	int ret;

	ret = ms_write(md, l->f, l->path, MS_DDL_LOG_IO, l->off);
	if (ret)
		return ret;
	l->off = (l->off + MS_DDL_LOG_IO) % (MS_DDL_LOG_IO * MS_DDL_LOG_SLOTS);
	if (!l->off)
		l->off = MS_DDL_LOG_IO;		/* slot 0 is the header */
	return ms_sync(md, l->f, l->path, 1);
}

/* MariaDB marks a ddl_recovery.log entry done: a 1-byte write in place, synced or not */
static int ddl_log_mark(struct ms_data *md, int sync)
{
	struct ms_log *l = &md->log[MS_LOG_B];
	int ret;

	ret = ms_write(md, l->f, l->path, 1, l->off ? l->off - MS_DDL_LOG_IO : 0);
	if (ret || !sync)
		return ret;
	return ms_sync(md, l->f, l->path, 1);
}

/* ---- paths ---- */

#define P(buf, fmt, ...)	snprintf(buf, sizeof(buf), "%s/" fmt, md->dir, ##__VA_ARGS__)

static void table_path(struct ms_data *md, char *buf, size_t len,
		       const struct ms_table *t, const char *ext)
{
	if (md->flavor == MS_POSTGRES)
		snprintf(buf, len, "%s/db/%u", md->dir, t->file);
	else
		snprintf(buf, len, "%s/db/t%u%s", md->dir, t->name, ext);
}

/*
 * MariaDB 10.11's tablespace (fil_ibd_create): O_CREAT|O_EXCL, size probe,
 * fallocate of the initial pages, fstat; never written nor synced here, and
 * kept open (the tablespace cache) until DROP.
 */
static int mariadb_ibd(struct ms_data *md, const char *path, struct store_file **fp)
{
	size_t bytes = (size_t)md->init_pages * md->page_size;
	int ret;

	ret = ms_open(md, path, O_RDWR | O_CREAT | O_EXCL, fp);
	if (ret)
		return ret;
	ret = ms_size(md, *fp, path);
	if (!ret && bytes)
		ret = ms_fallocate(md, *fp, path, bytes);
	if (!ret)
		ret = ms_fstat(md, *fp, path);
	if (ret) {
		ms_close(md, *fp, path);
		*fp = NULL;
	}
	return ret;
}

/* A new file with its initial pages (none for postgres), synced or not */
static int new_file(struct ms_data *md, const char *path, size_t bytes, int sync)
{
	struct store_file *f;
	int ret;

	ret = ms_open(md, path, O_RDWR | O_CREAT | O_EXCL, &f);
	if (ret)
		return ret;
	if (bytes)
		ret = ms_write(md, f, path, bytes, 0);
	if (!ret && sync)
		ret = ms_sync(md, f, path, md->flavor == MS_MARIADB);
	ms_close(md, f, path);
	return ret;
}

/* open + fstat + read the header page + close: a table-cache miss */
static int open_file(struct ms_data *md, const char *path, size_t bytes, int stat)
{
	struct store_file *f;
	int ret;

	ret = ms_open(md, path, O_RDONLY, &f);
	if (ret)
		return ret;
	if (stat)
		ret = ms_fstat(md, f, path);
	if (!ret && bytes)
		ret = ms_read(md, f, path, bytes, 0);
	ms_close(md, f, path);
	return ret;
}

/*
 * The names PostgreSQL 15's mdunlink asks for beside a relation's main fork
 * and finds absent: its next segment (".1": the segment loop stops there)
 * and the free space map, visibility map and init forks, each a truncate(2)
 * failing ENOENT (traced: 10 truncates a DROP of heap + index, 8 failing).
 * Here a lookup that does not follow a link: the same path walk (on CephFS an
 * MDS round trip each), and it cannot change a file the engine did not make.
 */
static const char *const pg_fork_names[] = { ".1", "_fsm", "_vm", "_init" };

static int pg_absent_forks(struct ms_data *md, const char *rel)
{
	char path[176];
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < sizeof(pg_fork_names) / sizeof(pg_fork_names[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", rel, pg_fork_names[i]);
		ret = ms_probe(md, path, 0);
	}
	return ret;
}

/*
 * PostgreSQL 15's mdunlink at commit: the main fork truncated by its name
 * now (truncate(2), no descriptor), unlinked at the next checkpoint.
 */
static int pg_tombstone(struct ms_data *md, uint32_t file)
{
	struct ms_table t = { .file = file };
	char path[160];
	int ret;

	if (md->ntombs == md->tombs_cap) {
		unsigned int cap = md->tombs_cap ? 2 * md->tombs_cap : 64;
		uint32_t *n = realloc(md->tombs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		md->tombs = n;
		md->tombs_cap = cap;
	}
	table_path(md, path, sizeof(path), &t, "");
	ret = ms_truncate(md, path);
	if (!ret)
		md->tombs[md->ntombs++] = file;
	if (!ret)
		ret = pg_absent_forks(md, path);
	return ret;
}

/*
 * A PostgreSQL table is two relations: the heap (file) and its primary key
 * (file + 1). Before their truncates the backend opens the heap's main fork
 * and closes it (traced on 15: one open and close a DROP, O_RDWR).
 */
static int pg_tombstones(struct ms_data *md, uint32_t file)
{
	struct ms_table t = { .file = file };
	struct store_file *f;
	char path[160];
	int ret;

	table_path(md, path, sizeof(path), &t, "");
	ret = ms_open(md, path, O_RDWR, &f);
	if (ret)
		return ret;
	ret = ms_close(md, f, path);
	if (!ret)
		ret = pg_tombstone(md, file);
	return ret ? ret : pg_tombstone(md, file + 1);
}

/*
 * Before PostgreSQL 15 makes a relation's file: GetNewRelFileNumber asks
 * whether the new number's path exists (access F_OK, absent) and mdcreate's
 * TablespaceCreateDbspace stats the database's directory (traced: 2 of each
 * a CREATE TABLE with a primary key). On CephFS each is an MDS round trip.
 */
static int pg_new_relation(struct ms_data *md, const char *path)
{
	char db[80];
	int ret = ms_probe(md, path, 1);

	P(db, "db");
	return ret ? ret : ms_probe(md, db, 0);
}

/*
 * PostgreSQL 15 CREATE TABLE with a primary key: heap and index created
 * (mdcreate: no fsync) after their lookups (pg_new_relation), the index's
 * metapage written and synced at once (btbuildempty → smgrimmedsync),
 * relation sizes probed with lseek(SEEK_END), and one open of an absent fork
 * of the heap (traced: 1.15 failing opens a CREATE). The heap is opened
 * again while the index is built, and closed after the index's fsync
 * (traced: one re-open a CREATE; an MDS round trip on CephFS).
 */
static int pg_create(struct ms_data *md, struct ms_table *t)
{
	struct ms_table ix = { .file = t->file + 1 };
	struct store_file *f, *h;
	char path[176], heap[160];
	unsigned int i;
	int ret;

	table_path(md, path, sizeof(path), t, "");
	ret = pg_new_relation(md, path);
	if (!ret)
		ret = new_file(md, path, 0, 0);
	if (!ret) {
		strcat(path, "_fsm");
		ret = store_open(md->store, path, O_RDONLY, 0, 0, &f);
		if (!ret)
			ms_close(md, f, path);	/* not ours to expect, but an open changes nothing */
		else if (ret == -ENOENT)
			ret = 0;
		else
			ret = ms_fail(md, "open", path, ret);
	}
	if (ret)
		return ret;
	table_path(md, path, sizeof(path), &ix, "");
	ret = pg_new_relation(md, path);
	if (ret)
		return ret;
	ret = ms_open(md, path, O_RDWR | O_CREAT | O_EXCL, &f);
	if (ret)
		return ret;
	table_path(md, heap, sizeof(heap), t, "");
	ret = ms_open(md, heap, O_RDWR, &h);
	if (ret) {
		ms_close(md, f, path);
		return ret;
	}
	for (i = 0; !ret && i < MS_PG_CREATE_PROBES; i++)
		ret = ms_size(md, f, path);
	if (!ret)
		ret = ms_write(md, f, path, md->page_size, 0);
	if (!ret)
		ret = ms_sync(md, f, path, 0);
	ms_close(md, h, heap);
	ms_close(md, f, path);
	return ret;
}

/* ---- the recipes ---- */

static int add_table(struct ms_data *md, struct ms_table *t)
{
	if (md->ntables == md->tables_cap) {
		unsigned int cap = md->tables_cap ? 2 * md->tables_cap : 256;
		struct ms_table *n = realloc(md->tables, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		md->tables = n;
		md->tables_cap = cap;
	}
	md->tables[md->ntables++] = *t;
	return 0;
}

static int ddl_create(struct ms_data *md)
{
	struct ms_table t = { .name = md->next_name++, .file = md->next_file };
	size_t ibd = (size_t)md->init_pages * md->page_size;
	char path[160], db[80];
	int ret;

	md->next_file += md->flavor == MS_POSTGRES ? 2 : 1;	/* heap + index */
	P(db, "db");
	table_path(md, path, sizeof(path), &t, ".ibd");
	switch (md->flavor) {
	case MS_MYSQL:
		/* DDL log row (synced as written) -> .ibd -> commit -> binlog */
		ret = log_commit(md, MS_LOG_A, md->log_bytes, 0);
		if (!ret)
			ret = new_file(md, path, ibd, 1);
		if (!ret)
			ret = ms_dirsync(md, db);
		if (!ret)
			ret = log_commit(md, MS_LOG_A, md->log_bytes, 0);
		if (!ret)
			ret = log_commit(md, MS_LOG_B, md->log_bytes, 1);
		break;
	case MS_MARIADB: {
		char frm[160];

		/*
		 * traced on 10.11: 4 ddl-log and 2 redo write+fdatasync pairs;
		 * first the .frm asked for twice (access F_OK, absent) and the
		 * schema directory stat'ed
		 */
		table_path(md, frm, sizeof(frm), &t, ".frm");
		ret = ms_probe(md, frm, 1);
		if (!ret)
			ret = ms_probe(md, frm, 1);
		if (!ret)
			ret = ms_probe(md, db, 0);
		if (!ret)
			ret = ddl_log_entry(md);
		if (!ret)
			ret = ddl_log_mark(md, 1);
		if (!ret)
			ret = new_file(md, frm, MS_FRM_BYTES, 1);	/* sync_frm */
		if (!ret)
			ret = ms_dirsync(md, db);
		if (!ret)
			ret = mariadb_ibd(md, path, &t.ibd);
		if (!ret)
			ret = log_commit(md, MS_LOG_A, md->log_bytes, 1);
		if (!ret)
			ret = log_commit(md, MS_LOG_A, md->log_bytes, 1);
		if (!ret)
			ret = ddl_log_entry(md);		/* entry done */
		if (!ret)
			ret = ddl_log_mark(md, 1);
		break;
	}
	case MS_POSTGRES:
		/* mdcreate: the file, empty and unsynced; the WAL commit makes it durable */
		ret = pg_create(md, &t);
		if (!ret)
			ret = log_commit(md, MS_LOG_A, md->log_bytes, 1);
		break;
	default:
		ret = -EINVAL;
	}
	if (ret) {
		/*
		 * A failed CREATE (ENOSPC, EIO) may have made its files: they are
		 * ours (md->dir was made by this job), and no table entry will
		 * let cleanup find them, so remove them now.
		 */
		store_unlink(md->store, path);
		if (t.ibd)
			store_close(md->store, t.ibd);
		if (md->flavor == MS_POSTGRES) {
			struct ms_table ix = { .file = t.file + 1 };

			table_path(md, path, sizeof(path), &ix, "");
			store_unlink(md->store, path);
		}
		if (md->flavor == MS_MARIADB) {
			table_path(md, path, sizeof(path), &t, ".frm");
			store_unlink(md->store, path);
		}
		return ret;
	}
	return add_table(md, &t);
}

static int ddl_drop(struct ms_data *md, unsigned int i)
{
	struct ms_table t = md->tables[i];
	char path[160], frm[160];
	int ret;

	table_path(md, path, sizeof(path), &t, ".ibd");
	switch (md->flavor) {
	case MS_MYSQL:
		/* DDL log row, commit, post-DDL unlink, binlog */
		ret = log_commit(md, MS_LOG_A, md->log_bytes, 0);
		if (!ret)
			ret = log_commit(md, MS_LOG_A, md->log_bytes, 0);
		if (!ret)
			ret = ms_unlink(md, path);
		if (!ret)
			ret = log_commit(md, MS_LOG_B, md->log_bytes, 1);
		break;
	case MS_MARIADB: {
		char trg[160];

		/*
		 * traced on 10.11: ddl log 7 writes + 6 fdatasync, redo 1 + 1; first
		 * the .frm asked for (access F_OK, there) and the triggers' .TRG
		 * (absent)
		 */
		table_path(md, frm, sizeof(frm), &t, ".frm");
		table_path(md, trg, sizeof(trg), &t, ".TRG");
		ret = ms_probe(md, frm, 1);
		if (!ret)
			ret = ms_probe(md, trg, 1);
		if (!ret)
			ret = ddl_log_entry(md);
		if (!ret)
			ret = ddl_log_mark(md, 1);
		if (!ret)
			ret = open_file(md, frm, MS_FRM_READ, 0);
		if (!ret)
			ret = ddl_log_entry(md);
		if (!ret)
			ret = ddl_log_mark(md, 1);
		if (!ret)
			ret = ms_unlink(md, path);
		if (!ret && t.ibd) {
			ret = ms_close(md, t.ibd, path);	/* after the unlink, as InnoDB */
			md->tables[i].ibd = NULL;
		}
		if (!ret)
			ret = ms_unlink(md, frm);
		if (!ret)
			ret = log_commit(md, MS_LOG_A, md->log_bytes, 1);
		if (!ret)
			ret = ddl_log_entry(md);
		if (!ret)
			ret = ddl_log_mark(md, 0);
		if (!ret)
			ret = ddl_log_mark(md, 1);
		break;
	}
	case MS_POSTGRES:
		ret = log_commit(md, MS_LOG_A, md->log_bytes, 1);
		if (!ret)
			ret = pg_tombstones(md, t.file);
		break;
	default:
		ret = -EINVAL;
	}
	if (!ret)
		md->tables[i] = md->tables[--md->ntables];
	return ret;
}

static int ddl_open(struct ms_data *md, unsigned int i)
{
	char path[160];
	int ret = 0;

	if (md->flavor == MS_MARIADB) {
		/* the table definition comes from the .frm */
		table_path(md, path, sizeof(path), &md->tables[i], ".frm");
		ret = open_file(md, path, MS_FRM_BYTES, 1);
	}
	table_path(md, path, sizeof(path), &md->tables[i], ".ibd");
	if (!ret)
		ret = open_file(md, path, md->page_size, 1);
	return ret;
}

/* The copy a copying ALTER TABLE builds before its final swap (not timed) */
static int alter_copy(struct ms_data *md, unsigned int i)
{
	size_t ibd = (size_t)md->init_pages * md->page_size;
	uint32_t file = md->next_file;
	char path[160];
	int ret;

	md->next_file += md->flavor == MS_POSTGRES ? 2 : 1;

	switch (md->flavor) {
	case MS_MYSQL:
		P(path, "db/#sql-%u.ibd", file);
		ret = new_file(md, path, ibd, 1);
		break;
	case MS_MARIADB:
		P(path, "db/#sql-alter-%u.frm", file);
		ret = new_file(md, path, MS_FRM_BYTES, 1);
		P(path, "db/#sql-alter-%u.ibd", file);
		if (!ret)
			ret = new_file(md, path, ibd, 1);
		break;
	default: {
		struct ms_table t = { .file = file }, ix = { .file = file + 1 };

		table_path(md, path, sizeof(path), &t, "");
		ret = new_file(md, path, 0, 0);
		table_path(md, path, sizeof(path), &ix, "");
		if (!ret)
			ret = new_file(md, path, 0, 0);
	}
	}
	if (!ret) {
		md->pick = i;
		md->shadow = file;
		md->have_shadow = 1;
	}
	return ret;
}

static int swap_pair(struct ms_data *md, struct ms_table *t, const char *ext,
		     const char *old_fmt, const char *new_fmt)
{
	char cur[160], old[160], neu[160];
	int ret;

	table_path(md, cur, sizeof(cur), t, ext);
	snprintf(old, sizeof(old), old_fmt, md->dir, t->file, ext);
	snprintf(neu, sizeof(neu), new_fmt, md->dir, md->shadow, ext);
	ret = ms_rename(md, cur, old);
	if (!ret)
		ret = ms_rename(md, neu, cur);
	return ret;
}

static int unlink_old(struct ms_data *md, const char *fmt, uint32_t file, const char *ext)
{
	char old[160];

	snprintf(old, sizeof(old), fmt, md->dir, file, ext);
	return ms_unlink(md, old);
}

/* The final swap of a copying ALTER TABLE */
static int ddl_rename(struct ms_data *md)
{
	struct ms_table *t = &md->tables[md->pick];
	char db[80];
	int ret;

	P(db, "db");
	switch (md->flavor) {
	case MS_MYSQL:
		ret = log_commit(md, MS_LOG_A, md->log_bytes, 0);
		if (!ret)
			ret = swap_pair(md, t, ".ibd", "%s/db/#sql-ib%u%s", "%s/db/#sql-%u%s");
		if (!ret)
			ret = ms_dirsync(md, db);
		if (!ret)
			ret = log_commit(md, MS_LOG_A, md->log_bytes, 0);
		if (!ret)
			ret = unlink_old(md, "%s/db/#sql-ib%u%s", t->file, ".ibd");
		if (!ret)
			ret = log_commit(md, MS_LOG_B, md->log_bytes, 1);
		break;
	case MS_MARIADB:
		ret = ddl_log_entry(md);
		if (!ret)
			ret = swap_pair(md, t, ".frm", "%s/db/#sql-backup-%u%s",
					"%s/db/#sql-alter-%u%s");
		if (!ret)
			ret = swap_pair(md, t, ".ibd", "%s/db/#sql-backup-%u%s",
					"%s/db/#sql-alter-%u%s");
		if (!ret)
			ret = ms_dirsync(md, db);
		if (!ret)
			ret = log_commit(md, MS_LOG_A, md->log_bytes, 1);
		if (!ret)
			ret = unlink_old(md, "%s/db/#sql-backup-%u%s", t->file, ".frm");
		if (!ret)
			ret = unlink_old(md, "%s/db/#sql-backup-%u%s", t->file, ".ibd");
		if (!ret && t->ibd) {
			ret = ms_close(md, t->ibd, "#sql-backup.ibd");
			t->ibd = NULL;
		}
		if (!ret)
			ret = ddl_log_entry(md);
		break;
	default:
		/* the catalog now points at the new filenode; the old one is dropped */
		ret = log_commit(md, MS_LOG_A, md->log_bytes, 1);
		if (!ret)
			ret = pg_tombstones(md, t->file);
	}
	if (!ret) {
		t->file = md->shadow;
		md->have_shadow = 0;
	}
	return ret;
}

int ms_ddl_prepare(struct ms_data *md, enum ms_phase ddl)
{
	int ret;

	if (ddl != MS_RENAME || !md->ntables)
		return 0;
	ms_set_phase(md, MS_ALTER_COPY);
	ret = alter_copy(md, ms_rand(md) % md->ntables);
	if (!ret)
		md->ops[MS_ALTER_COPY]++;
	return ret;
}

int ms_ddl_run(struct ms_data *md, enum ms_phase ddl)
{
	ms_set_phase(md, ddl);
	md->since_ckpt++;
	switch (ddl) {
	case MS_CREATE:
		return ddl_create(md);
	case MS_DROP:
		return ddl_drop(md, ms_rand(md) % md->ntables);
	case MS_OPEN:
		return ddl_open(md, ms_rand(md) % md->ntables);
	case MS_RENAME:
		return ddl_rename(md);
	default:
		return -EINVAL;
	}
}

/* PostgreSQL's checkpointer: unlink the files DROP truncated */
int ms_ddl_checkpoint(struct ms_data *md)
{
	struct ms_table t = { 0 };
	char path[160];
	int ret = 0;

	md->since_ckpt = 0;
	if (!md->ntombs)
		return 0;
	ms_set_phase(md, MS_CHECKPOINT);
	md->ops[MS_CHECKPOINT]++;
	while (md->ntombs && !ret) {
		t.file = md->tombs[md->ntombs - 1];
		table_path(md, path, sizeof(path), &t, "");
		ret = ms_unlink(md, path);
		md->ntombs--;
	}
	return ret;
}

/* The shared logs each flavor keeps open: [A] redo/WAL, [B] binlog/DDL log */
static const struct {
	const char *name[MS_NR_LOG];
	int circular[MS_NR_LOG];
} flavor_logs[] = {
	[MS_MYSQL]	= { { "ib_redo", "binlog.000001" }, { 1, 0 } },
	[MS_MARIADB]	= { { "ib_logfile0", "ddl_recovery.log" }, { 1, 0 } },
	[MS_POSTGRES]	= { { "wal", NULL }, { 1, 0 } },
};

static int open_logs(struct ms_data *md)
{
	int i, ret;

	for (i = 0; i < MS_NR_LOG; i++) {
		struct ms_log *l = &md->log[i];
		const char *name = flavor_logs[md->flavor].name[i];
		uint64_t off = 0;

		if (!name)
			continue;
		snprintf(l->path, sizeof(l->path), "%s/%s", md->dir, name);
		/*
		 * MariaDB 10.11's ib_logfile0: O_DIRECT in the block device's
		 * block, buffered in 512-byte blocks where there is none
		 */
		l->unit = md->flavor == MS_MARIADB && i == MS_LOG_A ?
			  (md->redo_block ? md->redo_block : 512) : 0;
		ret = ms_open(md, l->path, O_RDWR | O_CREAT | O_EXCL |
			      (l->unit && md->redo_block ? O_DIRECT : 0), &l->f);
		if (ret)
			return ret;
		/* preallocate the circular logs, as the database does at install */
		l->wrap = flavor_logs[md->flavor].circular[i] ? MS_LOG_WRAP : 0;
		for (; off < l->wrap && !ret; off += 64 << 10)
			ret = ms_write(md, l->f, l->path, 64 << 10, off);
		if (!ret && md->flavor == MS_MARIADB && i == MS_LOG_B) {
			ret = ms_write(md, l->f, l->path, MS_DDL_LOG_IO, 0);
			l->off = MS_DDL_LOG_IO;
		}
		if (!ret)
			ret = ms_sync(md, l->f, l->path, 0);
		if (ret)
			return ret;
	}
	return 0;
}

int ms_ddl_setup(struct ms_data *md, unsigned int tables)
{
	char db[80];
	unsigned int i;
	int ret;

	ms_set_phase(md, MS_SETUP);
	ret = ms_mkdir(md, md->dir);
	if (ret == -EEXIST) {
		snprintf(md->err, sizeof(md->err), "%s already exists and was not made "
			 "by this job (a foreign file, or a run with keep=1): it is left "
			 "alone; remove it or use another directory", md->dir);
		return ret;
	}
	if (ret)
		return ret;
	md->made_dir = 1;
	P(db, "db");
	ret = ms_mkdir(md, db);
	if (ret)
		return ret;
	md->made_db = 1;
	ret = open_logs(md);
	for (i = 0; i < tables && !ret; i++) {
		ret = ddl_create(md);
		md->ops[MS_SETUP]++;
	}
	return ret;
}

/* Remove what this job made; keep going past errors, report the first */
int ms_ddl_cleanup(struct ms_data *md)
{
	char path[160];
	int i, ret, first = 0;

#define KEEP_FIRST(x)	do { ret = (x); if (ret && !first) first = ret; } while (0)
	ms_set_phase(md, MS_CLEANUP);
	for (i = 0; i < MS_NR_LOG; i++) {
		if (!md->log[i].f)
			continue;
		KEEP_FIRST(ms_close(md, md->log[i].f, md->log[i].path));
		md->log[i].f = NULL;
		if (!md->keep)
			KEEP_FIRST(ms_unlink(md, md->log[i].path));
	}
	if (md->keep)		/* open tablespaces stay open: the process ends */
		return first;
	if (md->flavor == MS_POSTGRES && md->ntombs)
		KEEP_FIRST(ms_ddl_checkpoint(md));
	ms_set_phase(md, MS_CLEANUP);
	while (md->ntables) {
		struct ms_table *t = &md->tables[--md->ntables];

		table_path(md, path, sizeof(path), t, ".ibd");
		KEEP_FIRST(ms_unlink(md, path));
		if (t->ibd) {
			KEEP_FIRST(ms_close(md, t->ibd, path));
			t->ibd = NULL;
		}
		if (md->flavor == MS_POSTGRES) {
			struct ms_table ix = { .file = t->file + 1 };

			table_path(md, path, sizeof(path), &ix, "");
			KEEP_FIRST(ms_unlink(md, path));
		}
		if (md->flavor == MS_MARIADB) {
			table_path(md, path, sizeof(path), t, ".frm");
			KEEP_FIRST(ms_unlink(md, path));
		}
	}
	if (md->made_db) {
		P(path, "db");
		KEEP_FIRST(ms_rmdir(md, path));
		md->made_db = 0;
	}
	if (md->made_dir) {
		KEEP_FIRST(ms_rmdir(md, md->dir));
		md->made_dir = 0;
	}
	return first;
#undef KEEP_FIRST
}
