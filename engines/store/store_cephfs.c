/*
 * store_cephfs.c - the cephfs backend: libcephfs, the userspace CephFS
 * client, so no kernel mount and no FUSE are in the path.
 *
 * One mount (ceph_mount_info) per (ceph.conf, client, root) in a process,
 * shared by every struct store that asks for the same: a database server's
 * processes share one kernel mount, so one client session, one set of caps.
 * Separate clients in one process would fight over the caps of the files
 * they share (pgpage's checkpointer and job thread stalled that way).
 * libcephfs calls are thread-safe. After mounting "/", cfg.root is created
 * if missing (mkdir -p) and made the mount's working directory, so the
 * layer's relative paths resolve inside it.
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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <cephfs/libcephfs.h>

#include "store.h"

/* Seconds until an unreachable monitor or MDS fails the mount. */
#define CEPHFS_CONNECT_TIMEOUT	"30"

struct store_file {
	int fd;
};

struct cephfs_data {
	struct ceph_mount_info *cm;
	int mounted;
	int lockfd;			/* STORE_LOCK_NAME in the root, flocked; -1: none */
	int borrowed;			/* another engine of this process holds the flock */
	int refs;
	char *key;			/* ceph.conf NUL client NUL root NUL */
	size_t klen;
	struct cephfs_data *next;
};

/* The process's mounts, by key */
static pthread_mutex_t cephfs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cephfs_data *cephfs_mounts;

#define CM(s)	(((struct cephfs_data *)(s)->priv)->cm)

/* Paths are relative to the root (the working directory): no leading '/'. */
static const char *cephfs_rel(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

static const char *cephfs_conf_name(const struct store_config *cfg)
{
	if (cfg->ceph_conf)
		return cfg->ceph_conf;
	return getenv("CEPH_CONF") ? getenv("CEPH_CONF") : "default search";
}

static int cephfs_configure(struct store *s, struct ceph_mount_info *cm,
			    char *err, size_t errlen)
{
	const struct store_config *cfg = &s->cfg;
	int ret;

	ret = ceph_conf_read_file(cm, cfg->ceph_conf);
	if (ret) {
		snprintf(err, errlen, "cephfs: ceph_conf_read_file(%s) failed: %s",
			 cephfs_conf_name(cfg), strerror(-ret));
		return ret;
	}
	/* bounded connect; set before CEPH_ARGS so the environment can override */
	ret = ceph_conf_set(cm, "client_mount_timeout", CEPHFS_CONNECT_TIMEOUT);
	if (!ret)
		ret = ceph_conf_set(cm, "rados_mon_op_timeout", CEPHFS_CONNECT_TIMEOUT);
	if (ret) {
		snprintf(err, errlen, "cephfs: ceph_conf_set(timeouts) failed: %s",
			 strerror(-ret));
		return ret;
	}
	ret = ceph_conf_parse_env(cm, NULL);
	if (ret) {
		snprintf(err, errlen, "cephfs: ceph_conf_parse_env(CEPH_ARGS) failed: %s",
			 strerror(-ret));
		return ret;
	}
	return 0;
}

static int cephfs_enter_root(struct ceph_mount_info *cm, const char *root,
			     char *err, size_t errlen)
{
	int ret;

	/* ceph_mkdirs() succeeds when the directory already exists */
	ret = ceph_mkdirs(cm, root, 0755);
	if (ret && ret != -EEXIST) {
		snprintf(err, errlen, "cephfs: ceph_mkdirs(%s) failed: %s",
			 root, strerror(-ret));
		return ret;
	}
	ret = ceph_chdir(cm, root);
	if (ret) {
		snprintf(err, errlen, "cephfs: ceph_chdir(%s) failed: %s",
			 root, strerror(-ret));
		return ret;
	}
	return 0;
}

/* The lock's owner id for ceph_flock: one per mount, as the lock is. */
static uint64_t cephfs_owner(const struct cephfs_data *cd)
{
	return (uint64_t)(uintptr_t)cd;
}

static void cephfs_release(struct cephfs_data *cd)
{
	if (cd->lockfd >= 0) {
		/* removed while still held: the next run finds no stale file */
		if (!cd->borrowed) {
			ceph_unlink(cd->cm, STORE_LOCK_NAME);
			ceph_flock(cd->cm, cd->lockfd, LOCK_UN, cephfs_owner(cd));
		}
		ceph_close(cd->cm, cd->lockfd);
		cd->lockfd = -1;
	}
	if (cd->cm) {
		if (cd->mounted)
			ceph_unmount(cd->cm);
		ceph_release(cd->cm);
	}
	free(cd->key);
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
		for (pp = &cephfs_mounts; *pp; pp = &(*pp)->next) {
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
	char self[256];
	int fd, ret;

	for (;;) {
		fd = ceph_open(cd->cm, STORE_LOCK_NAME, O_RDWR | O_CREAT, 0644);
		if (fd < 0) {
			snprintf(err, errlen, "cephfs: ceph_open(%s/%s) failed: %s", root,
				 STORE_LOCK_NAME, strerror(-fd));
			return fd;
		}
		ret = cephfs_lock_fd(cd, fd, root, err, errlen);
		if (ret) {
			ceph_close(cd->cm, fd);
			return ret;
		}
		/* still the file of that name? (its last holder may have removed it) */
		if (!ceph_fstatx(cd->cm, fd, &a, CEPH_STATX_INO, 0) &&
		    !ceph_statx(cd->cm, STORE_LOCK_NAME, &b, CEPH_STATX_INO, 0) &&
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

static int cephfs_mount_new(struct store *s, struct cephfs_data *cd,
			    char *err, size_t errlen)
{
	const struct store_config *cfg = &s->cfg;
	const char *id = cfg->clientname ? cfg->clientname : "admin";
	int ret;

	ret = ceph_create(&cd->cm, id);
	if (ret) {
		cd->cm = NULL;
		snprintf(err, errlen, "cephfs: ceph_create(client.%s) failed: %s",
			 id, strerror(-ret));
		return ret;
	}
	ret = cephfs_configure(s, cd->cm, err, errlen);
	if (ret)
		return ret;
	ret = ceph_mount(cd->cm, "/");
	if (ret) {
		snprintf(err, errlen, "cephfs: ceph_mount(/) as client.%s failed: %s "
			 "(ceph.conf: %s)", id, strerror(-ret), cephfs_conf_name(cfg));
		return ret;
	}
	cd->mounted = 1;
	ret = cephfs_enter_root(cd->cm, cfg->root ? cfg->root : "/", err, errlen);
	if (!ret)
		ret = cephfs_take_lock(cd, cfg->root ? cfg->root : "/", err, errlen);
	return ret;
}

static int cephfs_init(struct store *s, char *err, size_t errlen)
{
	const struct store_config *cfg = &s->cfg;
	const char *conf = cephfs_conf_name(cfg);
	const char *id = cfg->clientname ? cfg->clientname : "admin";
	const char *root = cfg->root ? cfg->root : "/";
	size_t klen = strlen(conf) + strlen(id) + strlen(root) + 3;
	struct cephfs_data *cd;
	char *key;
	int ret = 0;

	key = malloc(klen);
	if (!key) {
		snprintf(err, errlen, "cephfs: out of memory");
		return -ENOMEM;
	}
	memset(key, 0, klen);
	strcpy(key, conf);
	strcpy(key + strlen(conf) + 1, id);
	strcpy(key + strlen(conf) + strlen(id) + 2, root);

	pthread_mutex_lock(&cephfs_lock);
	for (cd = cephfs_mounts; cd; cd = cd->next)
		if (cd->klen == klen && !memcmp(cd->key, key, klen))
			break;
	if (cd) {
		free(key);
		cd->refs++;
	} else {
		cd = calloc(1, sizeof(*cd));
		if (!cd) {
			free(key);
			snprintf(err, errlen, "cephfs: out of memory");
			ret = -ENOMEM;
			goto out;
		}
		cd->key = key;
		cd->klen = klen;
		cd->lockfd = -1;
		ret = cephfs_mount_new(s, cd, err, errlen);
		if (ret) {
			cephfs_release(cd);
			goto out;
		}
		cd->refs = 1;
		cd->next = cephfs_mounts;
		cephfs_mounts = cd;
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

	(void)size_hint;
	f = malloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	if (s->cfg.direct)
		flags |= O_DIRECT;
	fd = ceph_open(CM(s), cephfs_rel(path), flags, mode);
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
	return ceph_unlink(CM(s), cephfs_rel(path));
}

static int cephfs_mkdir(struct store *s, const char *path, mode_t mode)
{
	return ceph_mkdir(CM(s), cephfs_rel(path), mode);
}

static int cephfs_rmdir(struct store *s, const char *path)
{
	return ceph_rmdir(CM(s), cephfs_rel(path));
}

static int cephfs_rename(struct store *s, const char *from, const char *to)
{
	return ceph_rename(CM(s), cephfs_rel(from), cephfs_rel(to));
}

/* As a database does after create/rename: fsync an open directory. */
static int cephfs_dirsync(struct store *s, const char *path)
{
	int fd, ret;

	fd = ceph_open(CM(s), path ? cephfs_rel(path) : ".",
		       O_RDONLY | O_DIRECTORY, 0);
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
	.mkdir		= cephfs_mkdir,
	.rename		= cephfs_rename,
	.dirsync	= cephfs_dirsync,
	.fstat		= cephfs_fstat,
	.truncate	= cephfs_truncate,
	.rmdir		= cephfs_rmdir,
	.size		= cephfs_size,
	.fallocate	= cephfs_fallocate,
};
