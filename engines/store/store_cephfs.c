/*
 * store_cephfs.c - the cephfs backend: libcephfs, the userspace CephFS
 * client, so no kernel mount and no FUSE are in the path.
 *
 * One mount of "/" per (ceph.conf, client) in a process, from the shared
 * Ceph clients (ceph_conn.h: its registry, timeouts and error line), shared
 * by every struct store that asks for the same: a database server's
 * processes share one kernel mount, so one client session, one set of caps.
 * Separate clients in one process would fight over the caps of the files
 * they share (pgpage's checkpointer and job thread stalled that way).
 * libcephfs calls are thread-safe. Per root (cfg.root, created if missing
 * with mkdir -p) a struct cephfs_data holds the root's lock; the layer's
 * relative paths are joined to the root (the mount's working directory is
 * shared, so it is left alone).
 *
 * O_DIRECT is honoured: libcephfs then bypasses its object cacher and a
 * write returns after the OSDs committed it. libcephfs has no
 * sync_file_range, so that entry is left NULL (-EOPNOTSUPP).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64	/* libcephfs.h insists on it */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <cephfs/libcephfs.h>

#include "ceph_conn.h"
#include "store.h"

struct store_file {
	int fd;
};

struct cephfs_data {
	struct ceph_conn *conn;		/* the shared mount of "/" */
	struct ceph_mount_info *cm;
	char *root;			/* absolute, no trailing '/' ("" for "/") */
	int lockfd;			/* STORE_LOCK_NAME in the root, flocked; -1: none */
	int borrowed;			/* another engine of this process holds the flock */
	int refs;
	struct cephfs_data *next;
};

/* The process's roots, by mount and root */
static pthread_mutex_t cephfs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cephfs_data *cephfs_roots;

#define CM(s)	(((struct cephfs_data *)(s)->priv)->cm)

/*
 * A path of the layer (relative to the root) as an absolute one in buf;
 * NULL when it does not fit (the caller returns -ENAMETOOLONG).
 */
static const char *cephfs_abs(const struct cephfs_data *cd, const char *path,
			      char *buf, size_t len)
{
	int n;

	while (path && *path == '/')
		path++;
	if (!path || !*path || !strcmp(path, "."))
		n = snprintf(buf, len, "%s", cd->root[0] ? cd->root : "/");
	else
		n = snprintf(buf, len, "%s/%s", cd->root, path);
	return n >= 0 && (size_t)n < len ? buf : NULL;
}

#define CD(s)	((struct cephfs_data *)(s)->priv)

/*
 * A name is resolved beneath the root and through no symbolic link, as the
 * posix backends do with openat2: no ".." component, no link at any
 * directory on the way (checked here; names with a '/' are few: a
 * metastorm schema, #innodb_redo), and the last component is opened with
 * O_NOFOLLOW. 0, -EXDEV (".."), -ELOOP (a link) or another -errno.
 */
static int cephfs_beneath(struct store *s, const char *path)
{
	struct ceph_statx stx;
	char sub[PATH_MAX], abs[PATH_MAX];
	const char *p, *slash;
	int ret;

	for (p = path; p; p = strchr(p, '/') ? strchr(p, '/') + 1 : NULL)
		if (!strncmp(p, "..", 2) && (!p[2] || p[2] == '/'))
			return -EXDEV;
	for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		if (slash == path)
			continue;
		snprintf(sub, sizeof(sub), "%.*s", (int)(slash - path), path);
		if (!cephfs_abs(CD(s), sub, abs, sizeof(abs)))
			return -ENAMETOOLONG;
		ret = ceph_statx(CM(s), abs, &stx, CEPH_STATX_MODE, AT_SYMLINK_NOFOLLOW);
		if (ret == -ENOENT)
			return 0;	/* the call itself says ENOENT */
		if (ret)
			return ret;
		if (S_ISLNK(stx.stx_mode))
			return -ELOOP;
	}
	return 0;
}

/* declare char P[PATH_MAX] holding path under s's root, or return -errno */
#define ABS(s, P, path)	char P##buf[PATH_MAX]; \
	const char *P = cephfs_abs(CD(s), (path), P##buf, sizeof(P##buf)); \
	if (!P) \
		return -ENAMETOOLONG; \
	do { int b_ = cephfs_beneath((s), (path) ? (path) : ""); if (b_) return b_; } while (0)

/* The root as an absolute path without a trailing '/' ("" for "/"). */
static char *cephfs_root_key(const char *root)
{
	size_t n;
	char *k;

	while (*root == '/')
		root++;
	n = strlen(root);
	while (n && root[n - 1] == '/')
		n--;
	if (!n)
		return strdup("");
	k = malloc(n + 2);
	if (k) {
		k[0] = '/';
		memcpy(k + 1, root, n);
		k[n + 1] = '\0';
	}
	return k;
}

/* The lock's owner id for ceph_flock: one per mount, as the lock is. */
static uint64_t cephfs_owner(const struct cephfs_data *cd)
{
	return (uint64_t)(uintptr_t)cd;
}

static void cephfs_release(struct cephfs_data *cd)
{
	char lk[PATH_MAX];

	if (cd->lockfd >= 0) {
		/* removed while still held: the next run finds no stale file */
		if (!cd->borrowed && cephfs_abs(cd, STORE_LOCK_NAME, lk, sizeof(lk))) {
			ceph_unlink(cd->cm, lk);
			ceph_flock(cd->cm, cd->lockfd, LOCK_UN, cephfs_owner(cd));
		}
		ceph_close(cd->cm, cd->lockfd);
		cd->lockfd = -1;
	}
	ceph_conn_put(cd->conn);
	free(cd->root);
	free(cd);
}

static void cephfs_exit(struct store *s)
{
	struct cephfs_data *cd = s->priv, **pp;

	if (!cd)
		return;
	s->priv = NULL;
	pthread_mutex_lock(&cephfs_lock);
	if (--cd->refs == 0) {
		for (pp = &cephfs_roots; *pp; pp = &(*pp)->next) {
			if (*pp == cd) {
				*pp = cd->next;
				break;
			}
		}
		cephfs_release(cd);
	}
	pthread_mutex_unlock(&cephfs_lock);
}

/* What the lock file says about its holder (empty when it says nothing). */
static void cephfs_lock_holder(struct cephfs_data *cd, int fd, char *buf, size_t len)
{
	int i, n;

	for (i = 0; i < 20; i++) {
		n = ceph_read(cd->cm, fd, buf, len - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		if (buf[0])
			return;
		usleep(50000);	/* the holder has not written its name yet */
	}
}

/*
 * A holder of this host that no longer runs keeps its flock until the MDS
 * drops its session (minutes after the last renewal): evict it now, as
 * `ceph tell mds.* client evict id=N` would. 0 when the eviction was asked.
 */
static int cephfs_evict(struct cephfs_data *cd, const char *holder)
{
	const char *id = strstr(holder, ",client=client.");
	char cmd[128], *outbuf = NULL, *outs = NULL;
	const char *cmds[1] = { cmd };
	size_t outlen = 0, outslen = 0;
	int ret;

	if (!id)
		return -ENOENT;
	snprintf(cmd, sizeof(cmd), "{\"prefix\": \"client evict\", \"filters\": [\"id=%lu\"]}",
		 strtoul(id + strlen(",client=client."), NULL, 10));
	ret = ceph_mds_command(cd->cm, "*", cmds, 1, NULL, 0, &outbuf, &outlen, &outs, &outslen);
	if (outbuf)
		ceph_buffer_free(outbuf);
	if (outs)
		ceph_buffer_free(outs);
	return ret;
}

/* Lock fd; on the first try, break the lock of a holder that is gone. */
static int cephfs_lock_fd(struct cephfs_data *cd, int fd, const char *root,
			  char *err, size_t errlen)
{
	char holder[256], desc[320], who[80] = "";
	const char *c;
	int tries, ret;

	for (tries = 0; tries < 200; tries++) {
		ret = ceph_flock(cd->cm, fd, LOCK_EX | LOCK_NB, cephfs_owner(cd));
		if (ret != -EWOULDBLOCK && ret != -EAGAIN)
			break;
		if (!tries) {
			cephfs_lock_holder(cd, fd, holder, sizeof(holder));
			if (store_holder_is_self(holder)) {
				/* another engine (.so) of this fio: share its lock */
				cd->borrowed = 1;
				return 0;
			}
			if (!holder[0] || !store_holder_gone(holder) || cephfs_evict(cd, holder)) {
				if (holder[0])
					store_holder_describe(holder, desc, sizeof(desc));
				else
					snprintf(desc, sizeof(desc), "another client (it has "
						 "not written its name yet)");
				c = strstr(holder, ",client=");
				if (c)
					snprintf(who, sizeof(who), "%.*s, ",
						 (int)strcspn(c + 8, ",\n"), c + 8);
				snprintf(err, errlen, "cephfs: directory '%s' is in use by %s%s "
					 "(lock %s/%s): one run per store, or the two would "
					 "corrupt each other", root, who, desc, root,
					 STORE_LOCK_NAME);
				return -EBUSY;
			}
		}
		usleep(50000);	/* the eviction reaches the lock table */
	}
	if (ret)
		snprintf(err, errlen, "cephfs: ceph_flock(%s/%s) failed: %s", root,
			 STORE_LOCK_NAME, strerror(-ret));
	return ret;
}

/* Take the root's lock for this mount: STORE_LOCK_NAME, flocked, naming us. */
static int cephfs_take_lock(struct cephfs_data *cd, const char *root, char *err, size_t errlen)
{
	struct ceph_statx a, b;
	char self[256], lk[PATH_MAX];
	int fd, ret;

	if (!cephfs_abs(cd, STORE_LOCK_NAME, lk, sizeof(lk)))
		return -ENAMETOOLONG;
	for (;;) {
		/* O_NOFOLLOW: a link placed here must not make us truncate its target */
		fd = ceph_open(cd->cm, lk, O_RDWR | O_CREAT | O_NOFOLLOW, 0644);
		if (fd < 0) {
			snprintf(err, errlen, "cephfs: ceph_open(%s/%s) failed: %s", root,
				 STORE_LOCK_NAME, fd == -ELOOP ? "it is a symbolic link, which "
				 "dbfio does not follow (remove it)" : strerror(-fd));
			return fd;
		}
		ret = cephfs_lock_fd(cd, fd, root, err, errlen);
		if (ret) {
			ceph_close(cd->cm, fd);
			return ret;
		}
		/* still the file of that name? (its last holder may have removed it) */
		if (!ceph_fstatx(cd->cm, fd, &a, CEPH_STATX_INO, 0) &&
		    !ceph_statx(cd->cm, lk, &b, CEPH_STATX_INO, 0) &&
		    a.stx_ino == b.stx_ino)
			break;
		ceph_close(cd->cm, fd);
	}
	cd->lockfd = fd;
	if (cd->borrowed)
		return 0;
	store_holder_self(self, sizeof(self));
	snprintf(self + strlen(self), sizeof(self) - strlen(self), ",client=client.%llu\n",
		 (unsigned long long)ceph_get_instance_id(cd->cm));
	ret = ceph_ftruncate(cd->cm, fd, 0);
	if (!ret)
		ret = ceph_write(cd->cm, fd, self, strlen(self), 0);
	if (ret >= 0)
		ret = ceph_fsync(cd->cm, fd, 0);
	if (ret < 0)
		snprintf(err, errlen, "cephfs: write(%s/%s) failed: %s", root,
			 STORE_LOCK_NAME, strerror(-ret));
	return ret < 0 ? ret : 0;
}

/* A new root on the shared mount: made if missing, then locked. */
static int cephfs_root_new(struct cephfs_data *cd, const char *root, char *err,
			   size_t errlen)
{
	int ret;

	/* ceph_mkdirs() succeeds when the directory already exists */
	ret = cd->root[0] ? ceph_mkdirs(cd->cm, cd->root, 0755) : 0;
	if (ret && ret != -EEXIST)
		return ceph_conn_fail(cd->conn, "cephfs", "ceph_mkdirs", cd->root, ret,
				      err, errlen);
	return cephfs_take_lock(cd, root, err, errlen);
}

static int cephfs_init(struct store *s, char *err, size_t errlen)
{
	const struct store_config *cfg = &s->cfg;
	const struct ceph_conn_id id = {
		.who = "cephfs", .conf = cfg->ceph_conf, .client = cfg->clientname,
	};
	const char *root = cfg->root ? cfg->root : "/";
	struct cephfs_data *cd;
	struct ceph_conn *conn;
	char *key;
	int ret;

	ret = ceph_conn_get(CEPH_CONN_CEPHFS, &id, &conn, err, errlen);
	if (ret)
		return ret;
	key = cephfs_root_key(root);
	if (!key) {
		ceph_conn_put(conn);
		snprintf(err, errlen, "cephfs: out of memory");
		return -ENOMEM;
	}
	pthread_mutex_lock(&cephfs_lock);
	for (cd = cephfs_roots; cd; cd = cd->next)
		if (cd->conn == conn && !strcmp(cd->root, key))
			break;
	if (cd) {
		free(key);
		ceph_conn_put(conn);	/* the root holds one already */
		cd->refs++;
	} else {
		cd = calloc(1, sizeof(*cd));
		if (!cd) {
			free(key);
			ceph_conn_put(conn);
			snprintf(err, errlen, "cephfs: out of memory");
			ret = -ENOMEM;
			goto out;
		}
		cd->conn = conn;
		cd->cm = ceph_conn_cephfs(conn);
		cd->root = key;
		cd->lockfd = -1;
		ret = cephfs_root_new(cd, root, err, errlen);
		if (ret) {
			cephfs_release(cd);
			goto out;
		}
		cd->refs = 1;
		cd->next = cephfs_roots;
		cephfs_roots = cd;
	}
	s->priv = cd;
out:
	pthread_mutex_unlock(&cephfs_lock);
	return ret;
}

static int cephfs_open(struct store *s, const char *path, int flags, mode_t mode,
		       uint64_t size_hint, struct store_file **fp)
{
	struct store_file *f;
	int fd;
	ABS(s, p, path);

	(void)size_hint;
	f = malloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	if (s->cfg.direct && !(flags & STORE_O_BUFFERED))
		flags |= O_DIRECT;
	flags &= ~STORE_O_BUFFERED;
	fd = ceph_open(CM(s), p, flags | O_NOFOLLOW, mode);
	if (fd < 0) {
		free(f);
		return fd;
	}
	f->fd = fd;
	*fp = f;
	return 0;
}

static int cephfs_close(struct store *s, struct store_file *f)
{
	int ret;

	ret = ceph_close(CM(s), f->fd);
	free(f);
	return ret;
}

static ssize_t cephfs_pwritev(struct store *s, struct store_file *f,
			      const struct iovec *iov, int iovcnt, uint64_t off)
{
	if (iovcnt == 1)
		return ceph_write(CM(s), f->fd, iov[0].iov_base, iov[0].iov_len, off);
	return ceph_pwritev(CM(s), f->fd, iov, iovcnt, off);
}

static ssize_t cephfs_preadv(struct store *s, struct store_file *f,
			     const struct iovec *iov, int iovcnt, uint64_t off)
{
	if (iovcnt == 1)
		return ceph_read(CM(s), f->fd, iov[0].iov_base, iov[0].iov_len, off);
	return ceph_preadv(CM(s), f->fd, iov, iovcnt, off);
}

static int cephfs_fsync(struct store *s, struct store_file *f, int datasync)
{
	return ceph_fsync(CM(s), f->fd, datasync);
}

static int cephfs_unlink(struct store *s, const char *path)
{
	ABS(s, p, path);

	return ceph_unlink(CM(s), p);
}

static int cephfs_lookup(struct store *s, const char *path, int access)
{
	struct ceph_statx stx;
	ABS(s, p, path);

	return ceph_statx(CM(s), p, &stx, access ? 0 : CEPH_STATX_BASIC_STATS, AT_SYMLINK_NOFOLLOW);
}

static int cephfs_mkdir(struct store *s, const char *path, mode_t mode)
{
	ABS(s, p, path);

	return ceph_mkdir(CM(s), p, mode);
}

static int cephfs_rmdir(struct store *s, const char *path)
{
	ABS(s, p, path);

	return ceph_rmdir(CM(s), p);
}

static int cephfs_rename(struct store *s, const char *from, const char *to)
{
	ABS(s, a, from);
	ABS(s, b, to);

	return ceph_rename(CM(s), a, b);
}

/* As a database does after create/rename: fsync an open directory. */
static int cephfs_dirsync(struct store *s, const char *path)
{
	int fd, ret;
	ABS(s, p, path);

	fd = ceph_open(CM(s), p, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	ret = ceph_fsync(CM(s), fd, 0);
	ceph_close(CM(s), fd);
	return ret;
}

static int cephfs_fstat(struct store *s, struct store_file *f, uint64_t *size)
{
	struct ceph_statx stx;
	int ret;

	ret = ceph_fstatx(CM(s), f->fd, &stx, CEPH_STATX_SIZE, 0);
	if (ret)
		return ret;
	*size = stx.stx_size;
	return 0;
}

static int cephfs_truncate(struct store *s, struct store_file *f, uint64_t len)
{
	return ceph_ftruncate(CM(s), f->fd, len);
}

/* by name: the last component looked up without following it, then ceph_truncate */
static int cephfs_truncate_path(struct store *s, const char *path, uint64_t len)
{
	struct ceph_statx stx;
	int ret;
	ABS(s, p, path);

	ret = ceph_statx(CM(s), p, &stx, CEPH_STATX_MODE, AT_SYMLINK_NOFOLLOW);
	if (ret)
		return ret;
	if (S_ISLNK(stx.stx_mode))
		return store_link_refused(s, path);
	return ceph_truncate(CM(s), p, (int64_t)len);
}

/* lseek(SEEK_END): a size probe, which on CephFS may ask the MDS */
static int cephfs_size(struct store *s, struct store_file *f, uint64_t *size)
{
	int64_t end = ceph_lseek(CM(s), f->fd, 0, SEEK_END);

	if (end < 0)
		return end;
	*size = end;
	return 0;
}

static int cephfs_fallocate(struct store *s, struct store_file *f, uint64_t off,
			    uint64_t len)
{
	return ceph_fallocate(CM(s), f->fd, 0, off, len);
}

const struct store_ops store_cephfs_ops = {
	.name		= "cephfs",
	.caps		= STORE_CAP_MKDIR | STORE_CAP_RENAME | STORE_CAP_DIRSYNC |
			  STORE_CAP_DIRECT | STORE_CAP_TRUNCATE |
			  STORE_CAP_NAMESPACE | STORE_CAP_OPEN_SYNC,
	.init		= cephfs_init,
	.exit		= cephfs_exit,
	.open		= cephfs_open,
	.close		= cephfs_close,
	.pwritev	= cephfs_pwritev,
	.preadv		= cephfs_preadv,
	.fsync		= cephfs_fsync,
	.unlink		= cephfs_unlink,
	.lookup		= cephfs_lookup,
	.mkdir		= cephfs_mkdir,
	.rename		= cephfs_rename,
	.dirsync	= cephfs_dirsync,
	.fstat		= cephfs_fstat,
	.truncate	= cephfs_truncate,
	.truncate_path	= cephfs_truncate_path,
	.rmdir		= cephfs_rmdir,
	.size		= cephfs_size,
	.fallocate	= cephfs_fallocate,
};
