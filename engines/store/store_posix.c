/*
 * store_posix.c - the posix backend: synchronous syscalls on any mounted
 * filesystem (local, ceph-fuse, ext4 on rbd-fuse, GlusterFS). Paths are
 * resolved against an O_PATH descriptor of the root directory, so a job's
 * files can never land outside it by accident of the working directory, and
 * beneath it through no symbolic link (beneath), so a link placed in the
 * directory can never make dbfio write or remove a file elsewhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_posix.h"

#define PB(s)	((struct posix_base *)(s)->priv)

/*
 * The lock of a directory: one per directory (device, inode) in a process,
 * shared by its stores. The lock file is removed by its last user while it
 * still holds the lock; a run that opened the old file before it went away
 * notices (the locked inode is no longer the name's) and tries again.
 */
struct posix_lock {
	struct posix_lock *next;
	dev_t dev;
	ino_t ino;
	int fd;
	int rootfd;		/* to unlink the lock file at the end */
	int refs;
	int borrowed;		/* another engine of this process holds the lock */
};

static pthread_mutex_t posix_locks_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct posix_lock *posix_locks;

/* 0 locked, -EAGAIN held by another, another -errno on failure. */
static int lock_fd(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	if (!fcntl(fd, F_OFD_SETLK, &fl))
		return 0;
	if (errno == EAGAIN || errno == EACCES)
		return -EAGAIN;
	if (errno != EINVAL && errno != ENOLCK)
		return -errno;
	/* no OFD locks here: flock() is per open file description too */
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return 0;
	return errno == EWOULDBLOCK ? -EAGAIN : -errno;
}

/* What the lock file says about its holder; it may not have written it yet. */
static void lock_holder(int fd, char *holder, size_t len)
{
	ssize_t n;
	int i;

	for (i = 0; i < 100; i++) {
		n = pread(fd, holder, len - 1, 0);
		holder[n > 0 ? n : 0] = '\0';
		if (holder[0])
			return;
		usleep(10000);
	}
}

/*
 * The directory is locked: by this process (another engine .so of the same
 * fio: 1, share it) or by another one (-EBUSY and the one-line refusal).
 */
static int lock_busy(int fd, const char *who, const char *root, char *err, size_t errlen)
{
	char holder[256] = "", desc[320];

	lock_holder(fd, holder, sizeof(holder));
	if (store_holder_is_self(holder))
		return 1;
	if (holder[0])
		store_holder_describe(holder, desc, sizeof(desc));
	else
		snprintf(desc, sizeof(desc), "another process (it has not written its name yet)");
	snprintf(err, errlen, "%s: directory '%s' is in use by %s (lock %s/%s): one run "
		 "per store, or the two would corrupt each other", who, root, desc, root,
		 STORE_LOCK_NAME);
	return -EBUSY;
}

/* Take the directory's lock for this process: the new entry, or NULL and -errno. */
static struct posix_lock *lock_take(int rootfd, const struct stat *dst, const char *who,
				    const char *root, char *err, size_t errlen, int *retp)
{
	struct posix_lock *pl;
	char self[256];
	struct stat a, b;
	int fd, ret, borrowed = 0;

	for (;;) {
		/* O_NOFOLLOW: a link placed here must not make us truncate its target */
		fd = openat(rootfd, STORE_LOCK_NAME, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: open(%s/%s) failed: %s", who, root,
				 STORE_LOCK_NAME, ret == -ELOOP ? "it is a symbolic link, which "
				 "dbfio does not follow (remove it)" : strerror(-ret));
			goto fail;
		}
		ret = lock_fd(fd);
		if (ret == -EAGAIN) {
			ret = lock_busy(fd, who, root, err, errlen);
			if (ret == 1)
				goto borrow;
			goto fail_fd;
		}
		if (ret) {
			snprintf(err, errlen, "%s: lock(%s/%s) failed: %s", who, root,
				 STORE_LOCK_NAME, strerror(-ret));
			goto fail_fd;
		}
		/* still the file of that name? (its last holder may have removed it) */
		if (!fstat(fd, &a) && !fstatat(rootfd, STORE_LOCK_NAME, &b, AT_SYMLINK_NOFOLLOW) &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			break;
		close(fd);
	}
	store_holder_self(self, sizeof(self));
	strcat(self, "\n");
	if (ftruncate(fd, 0) || pwrite(fd, self, strlen(self), 0) != (ssize_t)strlen(self)) {
		ret = -errno;
		snprintf(err, errlen, "%s: write(%s/%s) failed: %s", who, root,
			 STORE_LOCK_NAME, strerror(-ret));
		goto fail_unlink;
	}
	ret = 0;
borrow:
	borrowed = ret == 1;
	pl = calloc(1, sizeof(*pl));
	ret = -ENOMEM;
	if (!pl || (pl->rootfd = dup(rootfd)) < 0) {
		free(pl);
		snprintf(err, errlen, "%s: out of memory", who);
		goto fail_unlink;
	}
	pl->dev = dst->st_dev;
	pl->ino = dst->st_ino;
	pl->fd = fd;
	pl->refs = 1;
	pl->borrowed = borrowed;
	return pl;
fail_unlink:
	if (!borrowed)
		unlinkat(rootfd, STORE_LOCK_NAME, 0);
fail_fd:
	close(fd);
fail:
	*retp = ret;
	return NULL;
}

static int posix_lock_get(struct posix_base *pb, const char *who, const char *root,
			  char *err, size_t errlen)
{
	struct posix_lock *pl;
	struct stat st;
	int ret = 0;

	if (fstat(pb->rootfd, &st)) {
		ret = -errno;
		snprintf(err, errlen, "%s: fstat(%s) failed: %s", who, root, strerror(-ret));
		return ret;
	}
	pthread_mutex_lock(&posix_locks_mutex);
	for (pl = posix_locks; pl; pl = pl->next)
		if (pl->dev == st.st_dev && pl->ino == st.st_ino)
			break;
	if (pl) {
		pl->refs++;
	} else {
		pl = lock_take(pb->rootfd, &st, who, root, err, errlen, &ret);
		if (pl) {
			pl->next = posix_locks;
			posix_locks = pl;
		}
	}
	pb->lock = pl;
	pthread_mutex_unlock(&posix_locks_mutex);
	return ret;
}

static void posix_lock_put(struct posix_lock *pl)
{
	struct posix_lock **pp;

	pthread_mutex_lock(&posix_locks_mutex);
	if (!--pl->refs) {
		for (pp = &posix_locks; *pp; pp = &(*pp)->next) {
			if (*pp == pl) {
				*pp = pl->next;
				break;
			}
		}
		/* removed while still held: the next run finds no stale file */
		if (!pl->borrowed)
			unlinkat(pl->rootfd, STORE_LOCK_NAME, 0);
		close(pl->fd);
		close(pl->rootfd);
		free(pl);
	}
	pthread_mutex_unlock(&posix_locks_mutex);
}

int posix_base_init(struct posix_base *pb, const struct store_config *cfg,
		    const char *who, char *err, size_t errlen)
{
	const char *root = cfg->root ? cfg->root : ".";
	struct stat st;
	int ret;

	pb->lock = NULL;
	pb->ndirs = pb->nextdir = 0;
	pb->rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pb->rootfd < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: directory '%s': %s", who, root, strerror(e));
		return -e;
	}
	if (fstat(pb->rootfd, &st) == 0 && !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: '%s' is not a directory", who, root);
		close(pb->rootfd);
		pb->rootfd = -1;
		return -ENOTDIR;
	}
	ret = posix_lock_get(pb, who, root, err, errlen);
	if (ret) {
		close(pb->rootfd);
		pb->rootfd = -1;
	}
	return ret;
}

void posix_base_exit(struct posix_base *pb)
{
	if (pb->lock) {
		posix_lock_put(pb->lock);
		pb->lock = NULL;
	}
	if (pb->rootfd >= 0) {
		close(pb->rootfd);
		pb->rootfd = -1;
	}
}

/*
 * A name resolves beneath the root and through no symbolic link at any
 * component (dangling or not): no '..' component and no absolute name
 * (-EXDEV), no link at a directory on the way (-ELOOP; readlinkat(2) tells
 * a link from anything else), and the last component is opened with
 * O_NOFOLLOW or acted on by an *at call that does not follow it. The
 * database's own call stays the one traced (openat, unlinkat, ...), as the
 * strace comparisons with the real servers need; openat2's RESOLVE_BENEATH
 * would change it. A link swapped in between the check and the call (a
 * concurrent attacker, not a left-over) is not caught. A directory found to
 * be no link is not asked again (struct posix_base's dirs) until this store
 * removes or renames one: the database makes one lookup a call, so must we.
 */
static int dir_known(const struct posix_base *pb, const char *sub)
{
	unsigned int i;

	for (i = 0; i < pb->ndirs; i++)
		if (!strcmp(pb->dirs[i], sub))
			return 1;
	return 0;
}

static void dir_learn(struct posix_base *pb, const char *sub)
{
	if (strlen(sub) >= POSIX_DIR_NAME)
		return;
	strcpy(pb->dirs[pb->nextdir], sub);
	pb->nextdir = (pb->nextdir + 1) % POSIX_DIRS_KNOWN;
	if (pb->ndirs < POSIX_DIRS_KNOWN)
		pb->ndirs++;
}

/* path and what is beneath it are no longer known (an rmdir, a rename) */
static void dir_forget(struct posix_base *pb, const char *path)
{
	size_t n = strlen(path);
	unsigned int i, k = 0;

	for (i = 0; i < pb->ndirs; i++)
		if (strncmp(pb->dirs[i], path, n) || (pb->dirs[i][n] && pb->dirs[i][n] != '/'))
			memmove(pb->dirs[k++], pb->dirs[i], POSIX_DIR_NAME);
	pb->ndirs = k;
	pb->nextdir = k % POSIX_DIRS_KNOWN;
}

static int beneath(struct store *s, const char *path)
{
	int rootfd = PB(s)->rootfd;
	const char *p, *slash;
	char sub[PATH_MAX], c;

	for (p = path; p; p = strchr(p, '/') ? strchr(p, '/') + 1 : NULL)
		if (*path == '/' || (!strncmp(p, "..", 2) && (!p[2] || p[2] == '/'))) {
			store_set_error(s, -EXDEV, "'%s' is outside the store's directory (an "
					"absolute name or a '..'): dbfio writes only beneath it", path);
			return -EXDEV;
		}
	for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		if ((size_t)(slash - path) >= sizeof(sub))
			return -ENAMETOOLONG;
		snprintf(sub, sizeof(sub), "%.*s", (int)(slash - path), path);
		if (dir_known(PB(s), sub))
			continue;
		if (readlinkat(rootfd, sub, &c, 1) >= 0)
			return store_link_refused(s, sub);
		if (errno == EINVAL)	/* there, and no link */
			dir_learn(PB(s), sub);
	}
	return 0;
}

static int beneath_open(struct store *s, const char *path, int flags, mode_t mode)
{
	int fd, ret = beneath(s, path);

	if (ret)
		return ret;
	fd = openat(PB(s)->rootfd, path, flags | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0 && errno == ELOOP)
		return store_link_refused(s, path);
	return fd < 0 ? -errno : fd;
}

int posix_open(struct store *s, const char *path, int flags, mode_t mode,
	       uint64_t size_hint, struct store_file **fp)
{
	struct store_file *f;
	int fd;

	(void)size_hint;
	if (s->cfg.direct && !(flags & STORE_O_BUFFERED))
		flags |= O_DIRECT;
	flags &= ~STORE_O_BUFFERED;
	fd = beneath_open(s, path, flags, mode);
	if (fd < 0)
		return fd;
	f = malloc(sizeof(*f));
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	f->fd = fd;
	*fp = f;
	return 0;
}

int posix_close(struct store *s, struct store_file *f)
{
	int ret;

	(void)s;
	ret = close(f->fd) ? -errno : 0;
	free(f);
	return ret;
}

ssize_t posix_pwritev(struct store *s, struct store_file *f,
		      const struct iovec *iov, int iovcnt, uint64_t off)
{
	ssize_t ret;

	(void)s;
	if (iovcnt == 1)
		ret = pwrite(f->fd, iov[0].iov_base, iov[0].iov_len, off);
	else
		ret = pwritev(f->fd, iov, iovcnt, off);
	return ret < 0 ? -errno : ret;
}

ssize_t posix_preadv(struct store *s, struct store_file *f,
		     const struct iovec *iov, int iovcnt, uint64_t off)
{
	ssize_t ret;

	(void)s;
	if (iovcnt == 1)
		ret = pread(f->fd, iov[0].iov_base, iov[0].iov_len, off);
	else
		ret = preadv(f->fd, iov, iovcnt, off);
	return ret < 0 ? -errno : ret;
}

int posix_fsync(struct store *s, struct store_file *f, int datasync)
{
	(void)s;
	if (datasync)
		return fdatasync(f->fd) ? -errno : 0;
	return fsync(f->fd) ? -errno : 0;
}

/* An *at call on a name checked by beneath() (the call follows no last component). */
#define AT_ROOT(s, path, call)	({					\
	int r_ = beneath((s), (path));			\
	r_ ? r_ : (call) ? -errno : 0;					\
})

int posix_unlink(struct store *s, const char *path)
{
	return AT_ROOT(s, path, unlinkat(PB(s)->rootfd, path, 0));
}

int posix_mkdir(struct store *s, const char *path, mode_t mode)
{
	return AT_ROOT(s, path, mkdirat(PB(s)->rootfd, path, mode));
}

int posix_rmdir(struct store *s, const char *path)
{
	dir_forget(PB(s), path);
	return AT_ROOT(s, path, unlinkat(PB(s)->rootfd, path, AT_REMOVEDIR));
}

int posix_lookup(struct store *s, const char *path, int access)
{
	struct stat st;

	if (access)
		return AT_ROOT(s, path, faccessat(PB(s)->rootfd, path, F_OK, AT_SYMLINK_NOFOLLOW));
	return AT_ROOT(s, path, fstatat(PB(s)->rootfd, path, &st, AT_SYMLINK_NOFOLLOW));
}

int posix_rename(struct store *s, const char *from, const char *to)
{
	int ret;

	dir_forget(PB(s), from);
	dir_forget(PB(s), to);
	ret = beneath(s, to);
	return ret ? ret : AT_ROOT(s, from, renameat(PB(s)->rootfd, from, PB(s)->rootfd, to));
}

/* What a database does after creating or renaming a file: fsync the directory. */
int posix_dirsync(struct store *s, const char *path)
{
	int fd, ret = 0;

	fd = beneath_open(s, path && *path ? path : ".", O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	if (fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

int posix_fstat(struct store *s, struct store_file *f, uint64_t *size)
{
	struct stat st;

	(void)s;
	if (fstat(f->fd, &st))
		return -errno;
	*size = st.st_size;
	return 0;
}

int posix_sync_range(struct store *s, struct store_file *f, uint64_t off, uint64_t len)
{
	(void)s;
	return sync_file_range(f->fd, off, len, SYNC_FILE_RANGE_WRITE) ? -errno : 0;
}

int posix_truncate(struct store *s, struct store_file *f, uint64_t len)
{
	(void)s;
	return ftruncate(f->fd, len) ? -errno : 0;
}

/*
 * truncate(2) by name, the database's own call, through the root's
 * descriptor (/proc/self/fd/N/name: no cwd, no root path re-resolved). The
 * last component is asked first (readlinkat, which follows nothing): a link
 * is refused, an absent name ends here with -ENOENT, as truncate's would.
 */
int posix_truncate_path(struct store *s, const char *path, uint64_t len)
{
	char full[PATH_MAX + 32], c;
	int ret = beneath(s, path);

	if (ret)
		return ret;
	if (readlinkat(PB(s)->rootfd, path, &c, 1) >= 0)
		return store_link_refused(s, path);
	if (errno != EINVAL)
		return -errno;
	if (snprintf(full, sizeof(full), "/proc/self/fd/%d/%s", PB(s)->rootfd, path) >=
	    (int)sizeof(full))
		return -ENAMETOOLONG;
	return truncate(full, (off_t)len) ? -errno : 0;
}

int posix_size(struct store *s, struct store_file *f, uint64_t *size)
{
	off_t end;

	(void)s;
	end = lseek(f->fd, 0, SEEK_END);
	if (end < 0)
		return -errno;
	*size = end;
	return 0;
}

int posix_falloc(struct store *s, struct store_file *f, uint64_t off, uint64_t len)
{
	(void)s;
	return fallocate(f->fd, 0, off, len) ? -errno : 0;
}

static int posix_store_init(struct store *s, char *err, size_t errlen)
{
	struct posix_base *pb = calloc(1, sizeof(*pb));
	int ret;

	if (!pb)
		return -ENOMEM;
	ret = posix_base_init(pb, &s->cfg, "posix", err, errlen);
	if (ret) {
		free(pb);
		return ret;
	}
	s->priv = pb;
	return 0;
}

static void posix_store_exit(struct store *s)
{
	if (!s->priv)
		return;
	posix_base_exit(s->priv);
	free(s->priv);
	s->priv = NULL;
}

const struct store_ops store_posix_ops = {
	.name		= "posix",
	.caps		= STORE_CAP_MKDIR | STORE_CAP_RENAME | STORE_CAP_DIRSYNC |
			  STORE_CAP_SYNC_RANGE | STORE_CAP_DIRECT | STORE_CAP_TRUNCATE |
			  STORE_CAP_NAMESPACE | STORE_CAP_LOCAL_DIR | STORE_CAP_OPEN_SYNC,
	.init		= posix_store_init,
	.exit		= posix_store_exit,
	.open		= posix_open,
	.close		= posix_close,
	.pwritev	= posix_pwritev,
	.preadv		= posix_preadv,
	.fsync		= posix_fsync,
	.unlink		= posix_unlink,
	.mkdir		= posix_mkdir,
	.rename		= posix_rename,
	.dirsync	= posix_dirsync,
	.fstat		= posix_fstat,
	.sync_range	= posix_sync_range,
	.truncate	= posix_truncate,
	.truncate_path	= posix_truncate_path,
	.rmdir		= posix_rmdir,
	.size		= posix_size,
	.fallocate	= posix_falloc,
	.lookup		= posix_lookup,
};
