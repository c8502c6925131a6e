/*
 * store.c - backend dispatch for the store layer: every call is counted and,
 * when the config asks for it, timed. Backends without an asynchronous path
 * get one emulated here: the request runs at submit time and waits on a done
 * list for store_reap().
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store.h"

static const struct store_ops *const backends[STORE_NR_BACKENDS] = {
	[STORE_POSIX]	= &store_posix_ops,
#ifdef CONFIG_LIBURING
	[STORE_URING]	= &store_uring_ops,
#endif
#ifdef CONFIG_LIBAIO
	[STORE_AIO]	= &store_aio_ops,
#endif
#ifdef CONFIG_LIBCEPHFS
	[STORE_CEPHFS]	= &store_cephfs_ops,
#endif
#ifdef CONFIG_RBD
	[STORE_RBD]	= &store_rbd_ops,
#endif
};

static const char *const backend_names[STORE_NR_BACKENDS] = {
	[STORE_POSIX]	= "posix",
	[STORE_URING]	= "uring",
	[STORE_AIO]	= "aio",
	[STORE_CEPHFS]	= "cephfs",
	[STORE_RBD]	= "rbd",
};

static const char *const op_names[SOP_NR] = {
	[SOP_OPEN]	= "open",
	[SOP_CLOSE]	= "close",
	[SOP_WRITE]	= "write",
	[SOP_READ]	= "read",
	[SOP_FSYNC]	= "fsync",
	[SOP_FDATASYNC]	= "fdatasync",
	[SOP_UNLINK]	= "unlink",
	[SOP_MKDIR]	= "mkdir",
	[SOP_RENAME]	= "rename",
	[SOP_DIRSYNC]	= "dirsync",
	[SOP_FSTAT]	= "fstat",
	[SOP_SYNC_RANGE] = "sync_range",
	[SOP_TRUNCATE]	= "truncate",
	[SOP_RMDIR]	= "rmdir",
	[SOP_SIZE]	= "lseek_end",
	[SOP_FALLOCATE]	= "fallocate",
	[SOP_STAT]	= "stat",
	[SOP_ACCESS]	= "access",
};

int store_backend_parse(const char *name)
{
	int i;

	for (i = 0; i < STORE_NR_BACKENDS; i++)
		if (name && !strcmp(name, backend_names[i]))
			return backends[i] ? i : -1;
	return -1;
}

const char *store_backend_name(enum store_backend b)
{
	return b < STORE_NR_BACKENDS ? backend_names[b] : "?";
}

const char *store_backends_built(void)
{
	static char list[64];
	int i;

	if (list[0])
		return list;
	for (i = 0; i < STORE_NR_BACKENDS; i++) {
		if (!backends[i])
			continue;
		if (list[0])
			strcat(list, ",");
		strcat(list, backend_names[i]);
	}
	return list;
}

const char *store_op_name(enum store_op op)
{
	return op < SOP_NR ? op_names[op] : "?";
}

int store_init(struct store **sp, const struct store_config *cfg,
	       char *err, size_t errlen)
{
	struct store *s;
	int ret;

	*sp = NULL;
	if (cfg->backend >= STORE_NR_BACKENDS || !backends[cfg->backend]) {
		snprintf(err, errlen, "store=%s: backend not built (built: %s)",
			 store_backend_name(cfg->backend), store_backends_built());
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "store: out of memory");
		return -ENOMEM;
	}
	s->ops = backends[cfg->backend];
	s->cfg = *cfg;
	err[0] = '\0';
	ret = s->ops->init(s, err, errlen);
	if (ret) {
		if (!err[0])
			snprintf(err, errlen, "%s: init failed: %s", s->ops->name,
				 strerror(-ret));
		free(s);
		return ret;
	}
	*sp = s;
	return 0;
}

void store_exit(struct store *s)
{
	if (!s)
		return;
	if (s->ops->exit)
		s->ops->exit(s);
	store_phases_free(s);
	free(s);
}

unsigned int store_caps(const struct store *s)
{
	return s->ops->caps;
}

unsigned int store_backend_caps(int backend)
{
	if (backend < 0 || backend >= STORE_NR_BACKENDS || !backends[backend])
		return 0;
	return backends[backend]->caps;
}

const char *store_location(const struct store *s, char *buf, size_t len)
{
	if (s->ops->location)
		s->ops->location(s, buf, len);
	else
		snprintf(buf, len, "%s", s->cfg.root ? s->cfg.root : ".");
	return buf;
}

const char *store_where(const struct store *s, char *buf, size_t len)
{
	char loc[PATH_MAX], real[PATH_MAX];

	store_location(s, loc, sizeof(loc));
	if ((store_caps(s) & STORE_CAP_LOCAL_DIR) && realpath(loc, real))
		snprintf(buf, len, "%s", real);
	else
		snprintf(buf, len, "%s:%s", store_backend_name(s->cfg.backend), loc);
	return buf;
}

/*
 * Record one call of op: its count, its failure, and, when the store times
 * calls, its latency ns; the same again under phase when there are phases.
 */
static inline void store_note(struct store *s, enum store_op op, unsigned int phase,
			      int failed, uint64_t ns)
{
	struct store_phases *ph = s->ph;

	s->count[op]++;
	if (failed)
		s->errors[op]++;
	if (s->cfg.timing)
		latstat_add(&s->lat[op], ns);
	if (ph) {
		ph->count[phase][op]++;
		if (ph->lat)
			latstat_add(&ph->lat[phase][op], ns);
	}
}

/* Count, time and record one call; ret is what the backend returned. */
#define STORE_CALL(s, op, call)						\
({									\
	(s)->last_err = 0;	/* a backend's message is this call's only */	\
	uint64_t __t0 = (s)->cfg.timing ? latstat_now_ns() : 0;	\
	__typeof__(call) __ret = (call);				\
	store_note((s), (op), (s)->ph ? (s)->ph->cur : 0, __ret < 0,	\
		   (s)->cfg.timing ? latstat_now_ns() - __t0 : 0);	\
	__ret;								\
})

#define STORE_NEED(s, fn)	do { if (!(s)->ops->fn) return -EOPNOTSUPP; } while (0)

int store_open(struct store *s, const char *path, int flags, mode_t mode,
	       uint64_t size_hint, struct store_file **fp)
{
	return STORE_CALL(s, SOP_OPEN, s->ops->open(s, path, flags, mode, size_hint, fp));
}

int store_close(struct store *s, struct store_file *f)
{
	return STORE_CALL(s, SOP_CLOSE, s->ops->close(s, f));
}

/*
 * The rest of a transfer after a short one: the backend moved done bytes of
 * total. A short count is progress (a signal, a full buffer, a quota or a
 * disk that fills up); the call that stops the loop says why: -errno (the
 * cause, e.g. ENOSPC), or 0 (end of file for a read; for a write, no
 * progress without an error: the short count is returned as it is).
 */
static ssize_t store_rw_rest(struct store *s, struct store_file *f,
			     const struct iovec *iov, int iovcnt, uint64_t off,
			     size_t done, size_t total, int write)
{
	struct iovec *v, *cur;
	ssize_t ret = done;
	int n;

	v = malloc(iovcnt * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, iov, iovcnt * sizeof(*v));
	cur = v;
	n = iovcnt;
	while (done < total) {
		size_t skip = ret;

		while (skip && skip >= cur->iov_len) {
			skip -= cur->iov_len;
			cur++;
			n--;
		}
		cur->iov_base = (char *)cur->iov_base + skip;
		cur->iov_len -= skip;
		ret = write ? s->ops->pwritev(s, f, cur, n, off + done) :
			      s->ops->preadv(s, f, cur, n, off + done);
		if (ret <= 0)
			break;
		done += ret;
	}
	free(v);
	return ret < 0 ? ret : (ssize_t)done;
}

static ssize_t store_rw(struct store *s, struct store_file *f,
			const struct iovec *iov, int iovcnt, uint64_t off, int write)
{
	size_t total = 0;
	ssize_t ret;
	int i;

	ret = write ? s->ops->pwritev(s, f, iov, iovcnt, off) :
		      s->ops->preadv(s, f, iov, iovcnt, off);
	if (ret <= 0)
		return ret;
	for (i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if ((size_t)ret >= total)
		return ret;
	return store_rw_rest(s, f, iov, iovcnt, off, ret, total, write);
}

ssize_t store_pwritev(struct store *s, struct store_file *f,
		      const struct iovec *iov, int iovcnt, uint64_t off)
{
	return STORE_CALL(s, SOP_WRITE, store_rw(s, f, iov, iovcnt, off, 1));
}

ssize_t store_pwrite(struct store *s, struct store_file *f, const void *buf,
		     size_t len, uint64_t off)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return store_pwritev(s, f, &iov, 1, off);
}

ssize_t store_pread(struct store *s, struct store_file *f, void *buf,
		    size_t len, uint64_t off)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return STORE_CALL(s, SOP_READ, store_rw(s, f, &iov, 1, off, 0));
}

int store_fsync(struct store *s, struct store_file *f)
{
	return STORE_CALL(s, SOP_FSYNC, s->ops->fsync(s, f, 0));
}

int store_fdatasync(struct store *s, struct store_file *f)
{
	return STORE_CALL(s, SOP_FDATASYNC, s->ops->fsync(s, f, 1));
}

int store_unlink(struct store *s, const char *path)
{
	STORE_NEED(s, unlink);
	return STORE_CALL(s, SOP_UNLINK, s->ops->unlink(s, path));
}

int store_mkdir(struct store *s, const char *path, mode_t mode)
{
	STORE_NEED(s, mkdir);
	return STORE_CALL(s, SOP_MKDIR, s->ops->mkdir(s, path, mode));
}

int store_rename(struct store *s, const char *from, const char *to)
{
	STORE_NEED(s, rename);
	return STORE_CALL(s, SOP_RENAME, s->ops->rename(s, from, to));
}

int store_dirsync(struct store *s, const char *path)
{
	STORE_NEED(s, dirsync);
	return STORE_CALL(s, SOP_DIRSYNC, s->ops->dirsync(s, path));
}

int store_fstat(struct store *s, struct store_file *f, uint64_t *size)
{
	STORE_NEED(s, fstat);
	return STORE_CALL(s, SOP_FSTAT, s->ops->fstat(s, f, size));
}

int store_sync_range(struct store *s, struct store_file *f, uint64_t off, uint64_t len)
{
	STORE_NEED(s, sync_range);
	return STORE_CALL(s, SOP_SYNC_RANGE, s->ops->sync_range(s, f, off, len));
}

int store_truncate(struct store *s, struct store_file *f, uint64_t len)
{
	STORE_NEED(s, truncate);
	return STORE_CALL(s, SOP_TRUNCATE, s->ops->truncate(s, f, len));
}

int store_truncate_path(struct store *s, const char *path, uint64_t len)
{
	STORE_NEED(s, truncate_path);
	return STORE_CALL(s, SOP_TRUNCATE, s->ops->truncate_path(s, path, len));
}

int store_rmdir(struct store *s, const char *path)
{
	STORE_NEED(s, rmdir);
	return STORE_CALL(s, SOP_RMDIR, s->ops->rmdir(s, path));
}

int store_size(struct store *s, struct store_file *f, uint64_t *size)
{
	STORE_NEED(s, size);
	return STORE_CALL(s, SOP_SIZE, s->ops->size(s, f, size));
}

int store_fallocate(struct store *s, struct store_file *f, uint64_t off, uint64_t len)
{
	STORE_NEED(s, fallocate);
	return STORE_CALL(s, SOP_FALLOCATE, s->ops->fallocate(s, f, off, len));
}

int store_stat(struct store *s, const char *path)
{
	STORE_NEED(s, lookup);
	return STORE_CALL(s, SOP_STAT, s->ops->lookup(s, path, 0));
}

int store_access(struct store *s, const char *path)
{
	STORE_NEED(s, lookup);
	return STORE_CALL(s, SOP_ACCESS, s->ops->lookup(s, path, 1));
}

void store_complete(struct store *s, struct store_req *r)
{
	r->next = NULL;
	if (s->done_tail)
		s->done_tail->next = r;
	else
		s->done_head = r;
	s->done_tail = r;
}

/* The emulated asynchronous path: run the request now, through the timed calls. */
static void store_run_sync(struct store *s, struct store_req *r)
{
	switch (r->op) {
	case SOP_WRITE:
		r->result = store_pwrite(s, r->file, r->buf, r->len, r->off);
		if (r->result >= 0 && (r->flags & SREQ_DATASYNC)) {
			int ret = store_fdatasync(s, r->file);

			if (ret < 0)
				r->result = ret;
		}
		break;
	case SOP_READ:
		r->result = store_pread(s, r->file, r->buf, r->len, r->off);
		break;
	case SOP_FSYNC:
		r->result = store_fsync(s, r->file);
		break;
	case SOP_FDATASYNC:
		r->result = store_fdatasync(s, r->file);
		break;
	default:
		r->result = -EINVAL;
		break;
	}
	store_complete(s, r);
}

int store_submit(struct store *s, struct store_req *r)
{
	int ret;

	r->result = 0;
	r->next = NULL;
	if (r->op != SOP_WRITE && r->op != SOP_READ && r->op != SOP_FSYNC &&
	    r->op != SOP_FDATASYNC)
		return -EINVAL;
	if (!s->ops->submit) {
		r->pending = 0;
		store_run_sync(s, r);
		s->inflight++;
		return 0;
	}
	r->pending = 1;
	r->start_ns = latstat_now_ns();
	r->phase = store_phase(s);
	ret = s->ops->submit(s, r);
	if (ret)
		return ret;
	s->count[r->op]++;
	if (s->ph)
		s->ph->count[r->phase][r->op]++;
	if (r->op == SOP_WRITE && (r->flags & SREQ_DATASYNC)) {
		s->count[SOP_FDATASYNC]++;
		if (s->ph)
			s->ph->count[r->phase][SOP_FDATASYNC]++;
	}
	s->inflight++;
	return 0;
}

/* Account a request a real asynchronous backend completed. */
static void store_account(struct store *s, struct store_req *r, uint64_t now)
{
	if (!r->pending)
		return;
	r->pending = 0;
	if (r->result < 0) {
		s->errors[r->op]++;
		if (r->op == SOP_WRITE && (r->flags & SREQ_DATASYNC))
			s->errors[SOP_FDATASYNC]++;
	}
	/* a linked write+fdatasync pair is timed as one write */
	if (s->cfg.timing)
		latstat_add(&s->lat[r->op], now - r->start_ns);
	if (s->ph && s->ph->lat)
		latstat_add(&s->ph->lat[r->phase][r->op], now - r->start_ns);
}

int store_reap(struct store *s, unsigned int min, unsigned int max,
	       struct store_req **out, int64_t timeout_ns)
{
	unsigned int n = 0;
	uint64_t now;
	int ret, i;

	while (n < max && s->done_head) {
		out[n++] = s->done_head;
		s->done_head = s->done_head->next;
		if (!s->done_head)
			s->done_tail = NULL;
	}
	if (s->ops->reap && n < max && (n < min || s->inflight > n)) {
		ret = s->ops->reap(s, n < min ? min - n : 0, max - n, out + n,
				   timeout_ns);
		if (ret < 0 && !n)
			return ret;
		if (ret > 0)
			n += ret;
	}
	now = latstat_now_ns();
	for (i = 0; i < (int)n; i++)
		store_account(s, out[i], now);
	s->inflight -= n;
	return n;
}

const char *store_strerror(const struct store *s, int err)
{
	if (s && err < 0 && s->last_err == err && s->last_msg[0])
		return s->last_msg;
	return strerror(err < 0 ? -err : err);
}

void store_set_error(struct store *s, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->last_msg, sizeof(s->last_msg), fmt, ap);
	va_end(ap);
	s->last_err = err;
}

int store_link_refused(struct store *s, const char *name)
{
	store_set_error(s, -ELOOP, "'%s' is a symbolic link: dbfio follows no link in its "
			"directory (remove it)", name);
	return -ELOOP;
}

/* Field 22 of /proc/PID/stat: the start in clock ticks after boot (0: unknown). */
static unsigned long long proc_start(long pid)
{
	unsigned long long start = 0;
	char path[64], buf[1024], *p;
	FILE *f;
	size_t n;
	int field;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');		/* the command name may hold spaces */
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		start = strtoull(p + 1, NULL, 10);
	return start;
}

void store_holder_self(char *buf, size_t len)
{
	char host[256] = "?";

	gethostname(host, sizeof(host) - 1);
	snprintf(buf, len, "dbfio,pid=%ld,host=%s,start=%llu,time=%lld", (long)getpid(),
		 host, proc_start(getpid()), (long long)time(NULL));
}

/* The value of key= in a holder text, up to the next ',' (empty: absent). */
static void holder_field(const char *holder, const char *key, char *val, size_t len)
{
	const char *p = holder;
	size_t klen = strlen(key), n;

	val[0] = '\0';
	for (; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if (strncmp(p, key, klen) || p[klen] != '=')
			continue;
		p += klen + 1;
		n = strcspn(p, ",\n");
		if (n >= len)
			n = len - 1;
		memcpy(val, p, n);
		val[n] = '\0';
		return;
	}
}

int store_holder_is_self(const char *holder)
{
	char host[256] = "", me[256] = "", pid[32], start[32];

	holder_field(holder, "host", host, sizeof(host));
	holder_field(holder, "pid", pid, sizeof(pid));
	holder_field(holder, "start", start, sizeof(start));
	gethostname(me, sizeof(me) - 1);
	return !strncmp(holder, "dbfio,", 6) && !strcmp(host, me) &&
	       strtol(pid, NULL, 10) == (long)getpid() &&
	       strtoull(start, NULL, 10) == proc_start(getpid());
}

int store_holder_gone(const char *holder)
{
	char host[256] = "", me[256] = "", pid[32], start[32];
	long p;

	holder_field(holder, "host", host, sizeof(host));
	holder_field(holder, "pid", pid, sizeof(pid));
	holder_field(holder, "start", start, sizeof(start));
	gethostname(me, sizeof(me) - 1);
	if (strncmp(holder, "dbfio,", 6) || !*pid || strcmp(host, me))
		return 0;
	p = strtol(pid, NULL, 10);
	if (p <= 0 || p == (long)getpid())
		return 0;
	if (kill(p, 0) && errno == ESRCH)
		return 1;
	/* the pid runs again, but as another process: the holder is gone */
	return *start && proc_start(p) && proc_start(p) != strtoull(start, NULL, 10);
}

void store_holder_describe(const char *holder, char *buf, size_t len)
{
	char host[256], pid[32], t[32], when[64] = "";
	time_t since;
	struct tm tm;

	holder_field(holder, "host", host, sizeof(host));
	holder_field(holder, "pid", pid, sizeof(pid));
	holder_field(holder, "time", t, sizeof(t));
	if (strncmp(holder, "dbfio,", 6) || !*pid) {
		snprintf(buf, len, "'%.*s' (not a dbfio run)", (int)strcspn(holder, "\n"),
			 holder);
		return;
	}
	since = strtoll(t, NULL, 10);
	if (*t && gmtime_r(&since, &tm))
		strftime(when, sizeof(when), " since %Y-%m-%d %H:%M:%S UTC", &tm);
	snprintf(buf, len, "pid %s on host %s%s", pid, host, when);
}

void store_lat_rows(const struct store *s, struct latstat_row rows[SOP_NR])
{
	int i;

	for (i = 0; i < SOP_NR; i++) {
		rows[i].name = op_names[i];
		rows[i].ls = &s->lat[i];
	}
}
