/*
 * store_posix.c - the posix backend: synchronous syscalls on any mounted
 * filesystem (local, ceph-fuse, ext4 on rbd-fuse, GlusterFS). Paths are
 * resolved against an O_PATH descriptor of the root directory, so a job's
 * files can never land outside it by accident of the working directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_posix.h"

#define PB(s)	((struct posix_base *)(s)->priv)

int posix_base_init(struct posix_base *pb, const struct store_config *cfg,
		    const char *who, char *err, size_t errlen)
{
	const char *root = cfg->root ? cfg->root : ".";
	struct stat st;

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
	return 0;
}

void posix_base_exit(struct posix_base *pb)
{
	if (pb->rootfd >= 0) {
		close(pb->rootfd);
		pb->rootfd = -1;
	}
}

int posix_open(struct store *s, const char *path, int flags, mode_t mode,
	       uint64_t size_hint, struct store_file **fp)
{
	struct store_file *f;
	int fd;

	(void)size_hint;
	if (s->cfg.direct)
		flags |= O_DIRECT;
	fd = openat(PB(s)->rootfd, path, flags | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
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

int posix_unlink(struct store *s, const char *path)
{
	return unlinkat(PB(s)->rootfd, path, 0) ? -errno : 0;
}

int posix_mkdir(struct store *s, const char *path, mode_t mode)
{
	return mkdirat(PB(s)->rootfd, path, mode) ? -errno : 0;
}

int posix_rmdir(struct store *s, const char *path)
{
	return unlinkat(PB(s)->rootfd, path, AT_REMOVEDIR) ? -errno : 0;
}

int posix_rename(struct store *s, const char *from, const char *to)
{
	return renameat(PB(s)->rootfd, from, PB(s)->rootfd, to) ? -errno : 0;
}

/* What a database does after creating or renaming a file: fsync the directory. */
int posix_dirsync(struct store *s, const char *path)
{
	int fd, ret = 0;

	fd = openat(PB(s)->rootfd, path && *path ? path : ".",
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
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
			  STORE_CAP_SYNC_RANGE | STORE_CAP_DIRECT | STORE_CAP_TRUNCATE,
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
	.rmdir		= posix_rmdir,
	.size		= posix_size,
	.fallocate	= posix_falloc,
};
