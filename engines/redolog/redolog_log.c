/*
 * redolog_log.c - the redolog engine's log writer: the log buffer, the
 * mapping of the record stream onto blocks/pages and files, group writes
 * with write-ahead padding, flushes, MySQL 8.0.30 #ib_redoN file
 * recycling (PostgreSQL's segments: redolog_wal.c), the
 * checkpoint that keeps acknowledged records from being overwritten, and the
 * acknowledged-LSN sidecar. Talks to the store layer only. The flushes and
 * the rule after a failure are in redolog_flush.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/latstat.h"
#include "redolog.h"

#define RL_ZERO_CHUNK	(1u << 20)

int rl_fail(struct rl_log *l, int ret, const char *call, const char *name)
{
	snprintf(l->err, sizeof(l->err), "%s(%s) failed: %s", call, name, strerror(-ret));
	return ret;
}

static int rl_side_fail(struct rl_log *l, int ret, const char *opt, const char *call,
			const char *name)
{
	snprintf(l->err, sizeof(l->err), "%s=%s: %s(%s) failed: %s", opt, name, call, name,
		 strerror(-ret));
	return ret;
}

static void rl_side_write(struct rl_log *l)
{
	struct rl_side sd = {
		.magic = RL_SIDE_MAGIC, .ack_lsn = l->ack_lsn,
		.ckpt_lsn = l->ckpt_lsn, .durable_lsn = l->durable_lsn,
		.flavor = l->c.g.flavor,
	};

	/* the whole prefix: log_prefix (<= 24) + "job" + thread number + '-' */
	_Static_assert(sizeof(sd.prefix) >= sizeof(l->c.g.prefix), "sidecar prefix too short");
	memcpy(sd.prefix, l->c.g.prefix, sizeof(sd.prefix) - 1);
	/* page cache survives a killed process: no fsync needed */
	if (l->side_fd >= 0 && pwrite(l->side_fd, &sd, sizeof(sd), 0) != sizeof(sd))
		snprintf(l->err, sizeof(l->err), "sidecar write failed: %s", strerror(errno));
}

/* A file is created or renamed to under a database's name only when it is dbfio's (owner.h). */
int rl_claim(struct rl_log *l, const char *name, unsigned int flags)
{
	int ret = owner_claim(&l->own, name, flags);

	if (ret)
		snprintf(l->err, sizeof(l->err), "%s", l->own.err);
	return ret;
}

/*
 * MariaDB 10.11 creates ib_logfile0 with fallocate (os_file_set_size): only
 * the header is written, the rest is reserved as unwritten extents. A commit
 * whose log write reaches a fresh block then also commits the file system's
 * journal (the extent turns written) at its fdatasync: ~0.3 more device
 * flushes a transaction on ext4 (docs/txn.md). -> bytes still to zero-fill:
 * 0 when reserved, the whole file where the store cannot fallocate.
 */
static int rl_reserve(struct rl_log *l, struct store_file *f, const void *z, uint64_t sz,
		      uint64_t *left, const char **what)
{
	uint64_t head = (l->c.g.file_hdr + 4095) & ~4095ull;
	int ret;

	*left = sz;
	if (l->c.g.flavor != RL_MARIADB || head >= sz || head > RL_ZERO_CHUNK)
		return 0;
	ret = store_fallocate(l->s, f, head, sz - head);
	if (ret == -EOPNOTSUPP)
		return 0;
	if (ret < 0) {
		*what = "fallocate";
		return ret;
	}
	ret = store_pwrite(l->s, f, z, head, 0);
	if (ret < 0)
		return ret;
	*left = 0;
	return 0;
}

/* Create one log file at its full size, zero-filled as the databases do (or reserved: rl_reserve). */
static int rl_create_file(struct rl_log *l, const char *name, const uint8_t *hdr,
			  size_t hdrlen, struct store_file **fp)
{
	uint64_t off, sz = l->c.g.file_size;
	const char *what = "zero-fill";
	struct store_file *f;
	size_t n;
	void *z;
	int ret;

	ret = rl_claim(l, name, OWNER_DURABLE);
	if (ret)
		return ret;
	ret = store_open(l->s, name, O_RDWR | O_CREAT | O_TRUNC | l->c.open_flags, 0644, sz, &f);
	if (ret)
		return rl_fail(l, ret, "open", name);
	if (posix_memalign(&z, 4096, RL_ZERO_CHUNK)) {
		store_close(l->s, f);
		return rl_fail(l, -ENOMEM, "posix_memalign", name);
	}
	memset(z, 0, RL_ZERO_CHUNK);
	if (hdr)
		memcpy(z, hdr, hdrlen);
	ret = rl_reserve(l, f, z, sz, &sz, &what);
	for (off = 0; !ret && off < sz; off += n) {
		n = sz - off < RL_ZERO_CHUNK ? sz - off : RL_ZERO_CHUNK;
		ret = store_pwrite(l->s, f, z, n, off);
		if (ret < 0)
			break;
		if (!off && hdr)
			memset(z, 0, hdrlen);
		ret = 0;
	}
	free(z);
	if (!ret)
		ret = store_fsync(l->s, f);
	if (ret) {
		store_close(l->s, f);
		return rl_fail(l, ret, what, name);
	}
	*fp = f;
	return 0;
}

/* The file header text: what the file is, its number and first LSN. */
static void rl_hdr_text(const struct rl_log *l, uint64_t no, uint8_t *hdr, size_t len)
{
	const struct rl_geo *g = &l->c.g;

	memset(hdr, 0, len);
	if (g->redo8030)	/* MySQL writes LOG_HEADER_FORMAT_8_0_30 and start_lsn */
		snprintf((char *)hdr, len, "dbfio redolog mysql log file #ib_redo%llu format 6 "
			 "(MySQL 8.0.30) start_lsn=%llu\n", (unsigned long long)no,
			 (unsigned long long)(no * rl_units_per_file(g) * rl_payload(g)));
	else
		snprintf((char *)hdr, len, "dbfio redolog %s log file\n", rl_flavor_name(g->flavor));
}

static int rl_write_meta(struct rl_log *l)
{
	char name[128], text[512];
	struct store_file *f;
	int ret, n;

	rl_meta_name(l->c.g.flavor, l->c.g.prefix, name, sizeof(name));
	n = rl_meta_format(&l->c.g, text, sizeof(text));
	if (l->c.g.redo8030)
		n += snprintf(text + n, sizeof(text) - n, "last_file=%llu\n",
			      (unsigned long long)l->seg_hi);
	/*
	 * Rewritten in place by one write of the whole buffer, the text padded
	 * by a last line of blanks (readers skip it): a run killed at any moment
	 * leaves the old text or the new, never an emptied file, as O_TRUNC
	 * and a second write would (logverify could not read the log then).
	 * A few hundred bytes: buffered also under direct=1.
	 */
	if (n >= (int)sizeof(text) - 1)
		return rl_fail(l, -ENAMETOOLONG, "format", name);
	memset(text + n, ' ', sizeof(text) - n - 1);
	text[sizeof(text) - 1] = '\n';
	ret = store_open(l->s, name, O_RDWR | O_CREAT | STORE_O_BUFFERED, 0644, 4096, &f);
	if (ret)
		return rl_fail(l, ret, "open", name);
	ret = store_pwrite(l->s, f, text, sizeof(text), 0);
	if (ret >= 0)
		ret = store_fsync(l->s, f);
	store_close(l->s, f);
	return ret < 0 ? rl_fail(l, ret, "write", name) : 0;
}

/*
 * redo8030: create <prefix>#innodb_redo, or empty it of the files an earlier
 * clean run left (its meta says the last file; the store cannot list a
 * directory): the 32 files of that run are numbered around it.
 */
static int rl_redo_dir(struct rl_log *l, char *dir, size_t len)
{
	char name[128], text[1024];
	struct store_file *f;
	unsigned long long last = 0, k;
	const char *p;
	ssize_t n;
	int ret;

	snprintf(dir, len, "%s" RL_REDO_DIR, l->c.g.prefix);
	ret = store_mkdir(l->s, dir, 0755);
	if (ret != -EEXIST)
		return ret ? rl_fail(l, ret, "mkdir", dir) : 0;
	rl_meta_name(l->c.g.flavor, l->c.g.prefix, name, sizeof(name));
	if (!store_open(l->s, name, O_RDONLY | STORE_O_BUFFERED, 0, 0, &f)) {
		n = store_pread(l->s, f, text, sizeof(text) - 1, 0);
		store_close(l->s, f);
		text[n > 0 ? n : 0] = '\0';
		p = strstr(text, "\nlast_file=");
		if (p)
			last = strtoull(p + 11, NULL, 10);
	}
	for (k = last >= RL_REDO_FILES ? last - RL_REDO_FILES + 1 : 0; k < last + RL_REDO_FILES; k++) {
		rl_file_name(&l->c.g, k, name, sizeof(name) - 4);
		if (owner_claimed(&l->own, name))	/* never a real MySQL's file */
			store_unlink(l->s, name);
		strcat(name, "_tmp");
		if (owner_claimed(&l->own, name))
			store_unlink(l->s, name);
	}
	return 0;
}

/* Every name the log creates, checked before any is claimed: a refused run leaves nothing. */
static int rl_check_names(struct rl_log *l)
{
	const struct rl_geo *g = &l->c.g;
	char name[128];
	unsigned int i;
	int ret;

	for (i = 0; i <= l->nslots; i++) {
		if (i == l->nslots)
			rl_meta_name(g->flavor, g->prefix, name, sizeof(name));
		else
			rl_file_name(g, g->flavor == RL_POSTGRES ? i + 1 : i, name, sizeof(name) - 4);
		if (g->redo8030 && i && i < l->nslots)
			strcat(name, "_tmp");
		if ((ret = owner_check(&l->own, name))) {
			snprintf(l->err, sizeof(l->err), "%s", l->own.err);
			return ret;
		}
	}
	return 0;
}

static int rl_create_files(struct rl_log *l)
{
	const struct rl_geo *g = &l->c.g;
	uint8_t hdr[512];
	char name[128], dir[96] = ".";
	unsigned int i;
	int ret;

	if ((ret = rl_check_names(l)))
		return ret;
	rl_meta_name(g->flavor, g->prefix, name, sizeof(name));
	if ((ret = rl_claim(l, name, OWNER_DURABLE)))	/* the meta */
		return ret;
	if (g->redo8030 && (ret = rl_redo_dir(l, dir, sizeof(dir))))
		return ret;
	for (i = 0; i < l->nslots; i++) {
		/* postgres: segments 1..n pre-allocated, as min_wal_size keeps them */
		uint64_t no = g->flavor == RL_POSTGRES ? i + 1 : i;

		rl_file_name(g, no, name, sizeof(name) - 4);
		if (g->redo8030 && i)	/* MySQL's spares: #ib_redoN_tmp */
			strcat(name, "_tmp");
		rl_hdr_text(l, no, hdr, sizeof(hdr));
		ret = rl_create_file(l, name, g->file_hdr ? hdr : NULL,
				     sizeof(hdr), &l->fh[no % l->nslots]);
		if (ret)
			return ret;
		l->fh_no[no % l->nslots] = no;
	}
	l->seg_hi = g->redo8030 ? 0 : l->nslots;
	if (store_caps(l->s) & STORE_CAP_DIRSYNC) {
		store_dirsync(l->s, dir);
		if (g->redo8030)
			store_dirsync(l->s, ".");
	}
	l->files_ok = 1;
	return rl_write_meta(l);
}

static void rl_remove(struct rl_log *l);

/*
 * Set-up failed half-way (a full disk during the zero-fill, say): what this
 * run claimed and created is no usable log. Remove those files and their
 * claims; files the marker lists for other runs, and foreign ones, stay.
 */
static void rl_abandon(struct rl_log *l)
{
	size_t n = strlen(l->err);
	unsigned int i;

	for (i = 0; l->fh && i < l->nslots; i++)
		if (l->fh[i]) {
			store_close(l->s, l->fh[i]);
			l->fh[i] = NULL;
		}
	rl_remove(l);
	snprintf(l->err + n, sizeof(l->err) - n, " (the log files this run created are removed)");
}

int rl_log_open(struct rl_log *l, struct store *s, const struct rl_cfg *c,
		const char *engine)
{
	uint64_t wa_units = c->wa / c->g.unit;
	void *buf;
	int ret;

	memset(l, 0, sizeof(*l));
	l->c = *c;
	l->s = s;
	l->engine = engine;
	l->side_fd = -1;
	if (strchr(c->g.prefix, '/')) {	/* never a name outside the store's directory */
		snprintf(l->err, sizeof(l->err), "log_prefix=%s: a prefix of file names in the "
			 "store, not a path: it may not contain '/'", c->g.prefix);
		return -EINVAL;
	}
	if ((ret = owner_init(&l->own, s))) {
		snprintf(l->err, sizeof(l->err), "%s", l->own.err);
		return ret;
	}
	l->nslots = c->g.nfiles;
	l->cap = rl_capacity(&c->g, c->wa);
	l->stride = l->cap / 8;
	if (c->open_flags & (O_SYNC | O_DSYNC))
		l->emulate_sync = !(store_caps(s) & STORE_CAP_OPEN_SYNC);
	l->linked = (store_caps(s) & STORE_CAP_LINKED_SYNC) && c->flush == RL_FLUSH_FDATASYNC &&
		    c->trx_commit == 1 && !c->skip_flush;
	l->buf_units = c->bufsize / rl_payload(&c->g) + 2;
	l->nreqs_max = l->buf_units / rl_units_per_file(&c->g) + 4;
	if (posix_memalign(&buf, 4096, (l->buf_units + wa_units + 1) * c->g.unit))
		return rl_fail(l, -ENOMEM, "posix_memalign", "log buffer");
	l->buf = buf;
	memset(l->buf, 0, (l->buf_units + wa_units + 1) * c->g.unit);
	l->first = calloc(l->buf_units, sizeof(*l->first));
	l->rem = calloc(l->buf_units, sizeof(*l->rem));
	l->fh = calloc(l->nslots, sizeof(*l->fh));
	l->fh_no = calloc(l->nslots, sizeof(*l->fh_no));
	l->dirty = calloc(l->nslots, 1);
	l->reqs = calloc(l->nreqs_max, sizeof(*l->reqs));
	if (!l->first || !l->rem || !l->fh || !l->fh_no || !l->dirty || !l->reqs)
		return rl_fail(l, -ENOMEM, "calloc", "log state");
	if (c->lsn_file) {
		l->side_fd = open(c->lsn_file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (l->side_fd < 0)	/* the sidecars' line: option=path: call(file) failed: cause */
			return rl_side_fail(l, -errno, "lsn_file", "open", c->lsn_file);
	}
	if (c->trace) {
		l->trace = fopen(c->trace, "w");
		if (!l->trace)
			return rl_side_fail(l, -errno, "write_trace", "fopen", c->trace);
	}
	rl_side_write(l);
	l->last_flush_ns = latstat_now_ns();
	ret = rl_create_files(l);
	if (ret && l->own.nmine)
		rl_abandon(l);
	return ret;
}

/* unlink=1 (and a failed set-up): remove every name this log claimed (renamed-away names are gone already). */
static void rl_remove(struct rl_log *l)
{
	char dir[96];
	unsigned int i;
	int ret;

	for (i = 0; i < l->own.nmine; i++) {
		ret = store_unlink(l->s, l->own.mine[i]);
		if (ret && ret != -ENOENT)
			fprintf(stderr, "%s: unlink(%s) failed: %s\n", l->engine,
				l->own.mine[i], strerror(-ret));
	}
	if (l->c.g.redo8030) {
		snprintf(dir, sizeof(dir), "%s" RL_REDO_DIR, l->c.g.prefix);
		store_rmdir(l->s, dir);
	}
	if (owner_release(&l->own))
		fprintf(stderr, "%s: %s\n", l->engine, l->own.err);
}

void rl_log_close(struct rl_log *l)
{
	unsigned int i, lost = rl_drain(l);

	/* the store may still complete them into reqs and read buf: keep both */
	if (lost)
		fprintf(stderr, "%s: %u log requests still in flight at close (kept, not freed)\n",
			l->engine, lost);
	for (i = 0; l->fh && i < l->nslots; i++)
		if (l->fh[i])
			store_close(l->s, l->fh[i]);
	if (l->files_ok && l->c.g.redo8030 && !l->c.unlink)	/* the next run reads last_file */
		rl_write_meta(l);
	if (l->files_ok && l->c.unlink)
		rl_remove(l);
	l->files_ok = 0;
	owner_exit(&l->own);
	if (l->side_fd >= 0)
		close(l->side_fd);
	if (l->trace)
		fclose(l->trace);
	if (!lost)
		free(l->buf);
	free(l->first);
	free(l->rem);
	free(l->fh);
	free(l->fh_no);
	free(l->dirty);
	free(l->old);
	l->old = NULL;
	l->nold = l->old_cap = 0;
	if (!lost)
		free(l->reqs);
	l->buf = NULL;
	l->fh = NULL;
	l->side_fd = -1;
	l->trace = NULL;
}

uint64_t rl_log_room(const struct rl_log *l)
{
	uint64_t end = (l->base_u + l->buf_units - 1) * rl_payload(&l->c.g);

	return end > l->lsn ? end - l->lsn : 0;
}

/* Copy n stream bytes at l->lsn into the buffered units; rest: bytes of the record left. */
static void rl_stream_put(struct rl_log *l, const uint8_t *src, uint32_t n, uint32_t rest)
{
	const uint32_t P = rl_payload(&l->c.g);

	while (n) {
		uint64_t u = l->lsn / P, slot = u - l->base_u;
		uint32_t in = l->lsn % P, k = P - in < n ? P - in : n;

		if (!in && rest)
			l->rem[slot] = rest;
		memcpy(l->buf + slot * l->c.g.unit + l->c.g.hdr + in, src, k);
		src += k;
		n -= k;
		rest -= k;
		l->lsn += k;
	}
}

void rl_log_append(struct rl_log *l, const void *payload, uint32_t len)
{
	const uint32_t P = rl_payload(&l->c.g);
	uint64_t slot = l->lsn / P - l->base_u;
	uint8_t h[RL_REC_HDR];
	uint32_t crc;

	if (!l->first[slot])
		l->first[slot] = l->c.g.hdr + l->lsn % P;
	if (l->lsn >= l->next_marker) {
		if (l->mcount == RL_MARKERS) {
			l->mhead = (l->mhead + 1) % RL_MARKERS;
			l->mcount--;
		}
		l->marker[(l->mhead + l->mcount++) % RL_MARKERS] = l->lsn;
		l->next_marker = l->lsn + l->stride;
	}
	rl_put32(h, RL_REC_MAGIC);
	rl_put32(h + 4, len);
	rl_put64(h + 8, l->lsn);
	rl_put32(h + 16, 0);
	rl_put32(h + 20, ++l->seq);
	crc = rl_crc32c(0, h, RL_REC_HDR);
	crc = rl_crc32c(crc, payload, len - RL_REC_HDR);
	rl_put32(h + 16, crc);
	rl_stream_put(l, h, RL_REC_HDR, len);
	rl_stream_put(l, payload, len - RL_REC_HDR, len - RL_REC_HDR);
	l->st.commits++;
}

/*
 * Before a write that could overwrite the oldest needed record, move the
 * checkpoint to the oldest record start (marker) the write cannot reach.
 */
static void rl_checkpoint(struct rl_log *l)
{
	uint64_t lo = l->lsn > l->cap ? l->lsn - l->cap : 0;

	if (l->ckpt_lsn >= lo)
		return;
	while (l->mcount > 1 && l->marker[l->mhead] < lo) {
		l->mhead = (l->mhead + 1) % RL_MARKERS;
		l->mcount--;
	}
	l->ckpt_lsn = l->marker[l->mhead];
	rl_side_write(l);
}

/*
 * redo8030: a file becomes the current one: write its header block (file
 * number, start LSN) as MySQL does, and fsync the directory after the rename.
 */
static int rl_redo_activate(struct rl_log *l, uint64_t no, struct store_file *f, const char *name)
{
	char dir[96];
	void *hdr;
	int ret;

	if (posix_memalign(&hdr, 4096, 512))
		return rl_fail(l, -ENOMEM, "posix_memalign", name);
	rl_hdr_text(l, no, hdr, 512);
	ret = store_pwrite(l->s, f, hdr, 512, 0);
	free(hdr);
	if (ret >= 0 && ret != 512)
		ret = -EIO;
	if (ret < 0)
		return rl_fail(l, ret, "pwrite header", name);
	snprintf(dir, sizeof(dir), "%s" RL_REDO_DIR, l->c.g.prefix);
	ret = store_dirsync(l->s, dir);
	return ret ? rl_fail(l, ret, "dirsync", dir) : 0;
}

/*
 * The open handle of file/segment no. postgres: rl_pg_segment; mysql 8.0.30 takes the spare #ib_redoN_tmp or, once none is left, renames
 * the oldest consumed file (the checkpoint is past it: rl_capacity keeps
 * one file out of reach) to #ib_redoN.
 */
static int rl_file(struct rl_log *l, uint64_t no, struct store_file **fp)
{
	unsigned int slot = no % l->nslots;
	char from[128], to[128];
	int ret;

	if (rl_circular(&l->c.g) || no <= l->seg_hi) {
		*fp = l->fh[slot];
		return 0;
	}
	if (!l->c.g.redo8030)
		return rl_pg_segment(l, no, fp);
	/* redo8030: a spare, or the oldest consumed file renamed */
	rl_file_name(&l->c.g, l->fh_no[slot], from, sizeof(from) - 4);
	if (l->fh_no[slot] == no)	/* redo8030: a spare */
		strcat(from, "_tmp");
	rl_file_name(&l->c.g, no, to, sizeof(to));
	if (l->dirty[slot]) {
		ret = store_fdatasync(l->s, l->fh[slot]);
		if (ret)
			return rl_fail(l, ret, "fdatasync", from);
		l->dirty[slot] = 0;
	}
	/* as PostgreSQL stat()s a recycled segment's new name: never over a file not ours */
	if ((ret = rl_claim(l, to, 0)))
		return ret;
	store_close(l->s, l->fh[slot]);
	l->fh[slot] = NULL;
	ret = store_rename(l->s, from, to);
	if (ret)
		return rl_fail(l, ret, "rename", from);
	/* the old name is gone: its claim leaves the marker (owner.h keeps it small) */
	if ((ret = owner_drop(&l->own, from))) {
		snprintf(l->err, sizeof(l->err), "%s", l->own.err);
		return ret;
	}
	ret = store_open(l->s, to, O_RDWR | l->c.open_flags, 0644, l->c.g.file_size, &l->fh[slot]);
	if (ret)
		return rl_fail(l, ret, "open", to);
	if ((ret = rl_redo_activate(l, no, l->fh[slot], to)))
		return ret;
	if (l->trace)
		fprintf(l->trace, "R %s %s\n", from, to);
	l->fh_no[slot] = no;
	l->seg_hi = no;
	l->st.recycles++;
	*fp = l->fh[slot];
	return 0;
}

/* mysql: pad the last run to the end of the write-ahead window it enters. */
static uint64_t rl_pad(struct rl_log *l, uint64_t end_u, uint64_t end_off)
{
	uint64_t wa = l->c.wa, pad_end;

	if (!wa || end_u <= l->wa_end_u)
		return 0;
	pad_end = (end_off + wa - 1) / wa * wa;
	if (pad_end > l->c.g.file_size)
		pad_end = l->c.g.file_size;
	l->wa_end_u = end_u + (pad_end - end_off) / l->c.g.unit;
	return pad_end - end_off;
}

static int rl_put_run(struct rl_log *l, uint64_t no, uint64_t u, uint64_t n,
		      uint64_t pad, unsigned int *nreq)
{
	const struct rl_geo *g = &l->c.g;
	uint64_t off = rl_unit_off(g, u), len = n * g->unit + pad;
	uint8_t *src = l->buf + (u - l->base_u) * g->unit;
	struct store_file *f = NULL;
	char name[128];
	int ret;

	ret = rl_file(l, no, &f);
	if (ret)
		return ret;
	rl_file_name(g, no, name, sizeof(name));
	if (l->trace)
		fprintf(l->trace, "W %s %llu %llu\n", name, (unsigned long long)off,
			(unsigned long long)len);
	l->dirty[no % l->nslots] = 1;
	l->st.writes++;
	l->st.bytes += len;
	l->st.pad_bytes += pad;
	if (l->linked) {
		struct store_req *r = &l->reqs[(*nreq)++];

		store_req_prep(r, SOP_WRITE, f, src, len, off, 0);
		r->priv = (void *)(uintptr_t)no;	/* names the file in an error */
		return 0;
	}
	ret = store_pwrite(l->s, f, src, len, off);
	if (ret >= 0 && (uint64_t)ret != len)
		ret = -EIO;
	return ret < 0 ? rl_fail(l, ret, "pwrite", name) : 0;
}

/* Keep the last, partially filled unit at the front of the buffer. */
static void rl_shift(struct rl_log *l, uint64_t u1)
{
	const uint32_t unit = l->c.g.unit, P = rl_payload(&l->c.g);
	uint64_t keep = l->lsn % P ? u1 : u1 + 1, used = u1 - l->base_u + 1;

	if (keep == u1 && u1 != l->base_u) {
		memcpy(l->buf, l->buf + (u1 - l->base_u) * unit, unit);
		l->first[0] = l->first[u1 - l->base_u];
		l->rem[0] = l->rem[u1 - l->base_u];
	} else if (keep != u1) {
		memset(l->buf, 0, unit);
		l->first[0] = l->rem[0] = 0;
	}
	memset(l->buf + unit, 0, (used + l->c.wa / unit) * unit);
	memset(l->first + 1, 0, (used - 1 < l->buf_units - 1 ? used : l->buf_units - 1) * sizeof(*l->first));
	memset(l->rem + 1, 0, (used - 1 < l->buf_units - 1 ? used : l->buf_units - 1) * sizeof(*l->rem));
	l->base_u = keep;
}

int rl_write_group(struct rl_log *l, int flush, uint64_t *flush_ns)
{
	const struct rl_geo *g = &l->c.g;
	const uint32_t P = rl_payload(g);
	uint64_t u, u0, u1, run_u, run_no, upf = rl_units_per_file(g), pad = 0;
	unsigned int nreq = 0;
	int ret;

	*flush_ns = 0;
	if (l->lsn == l->written_lsn)
		return flush ? rl_flush_files(l, flush_ns) : 0;
	rl_checkpoint(l);
	u0 = l->written_lsn / P;
	u1 = (l->lsn - 1) / P;
	for (u = u0; u <= u1; u++) {
		uint64_t slot = u - l->base_u;
		uint32_t used = u < u1 ? P : (uint32_t)(l->lsn - u1 * P);

		rl_unit_seal(g, l->buf + slot * g->unit, u, used, l->first[slot], l->rem[slot]);
	}
	/* one write per run of units contiguous in one file */
	for (run_u = u = u0; u <= u1; u++) {
		run_no = rl_unit_file(g, u);
		if (u < u1 && rl_unit_file(g, u + 1) == run_no && (u + 1) % upf)
			continue;
		if (u == u1)
			pad = rl_pad(l, u1 + 1, rl_unit_off(g, u1) + g->unit);
		if ((u + 1) % upf == 0 && rl_circular(g) && rl_unit_file(g, u + 1) == 0)
			l->st.wraps++;
		ret = rl_put_run(l, run_no, run_u, u - run_u + 1, pad, &nreq);
		if (ret)
			return ret;
		run_u = u + 1;
	}
	l->st.groups++;
	l->written_lsn = l->lsn;
	if (l->linked)
		ret = rl_linked(l, nreq, flush_ns);
	else if (flush && (l->c.flush != RL_FLUSH_NONE || l->emulate_sync))
		ret = rl_flush_files(l, flush_ns);
	else {
		if (l->c.flush == RL_FLUSH_NONE && !l->emulate_sync)	/* O_SYNC/O_DSYNC */
			l->durable_lsn = l->written_lsn;
		ret = 0;
	}
	if (!l->c.skip_flush && l->c.flush == RL_FLUSH_NONE && !l->emulate_sync)
		memset(l->dirty, 0, l->nslots);
	if (ret)
		return ret;
	rl_shift(l, u1);
	return 0;
}

void rl_log_ack(struct rl_log *l, uint64_t lsn)
{
	if (l->failed)
		return;
	l->ack_lsn = lsn;
	rl_side_write(l);
}
