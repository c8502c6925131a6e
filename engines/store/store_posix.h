/*
 * store_posix.h - the POSIX file calls shared by the posix, uring and aio
 * backends. Their s->priv starts with a struct posix_base, so the metadata
 * entries below (open, close, unlink, ...) serve all three vtables.
 */
#ifndef DBFIO_STORE_POSIX_H
#define DBFIO_STORE_POSIX_H

#include "store.h"

/* posix, uring and aio all hand out plain file descriptors */
struct store_file {
	int fd;
};

struct posix_lock;

#define POSIX_DIRS_KNOWN	16
#define POSIX_DIR_NAME		120

/* First member of s->priv for the posix-like backends. */
struct posix_base {
	int rootfd;		/* O_PATH|O_DIRECTORY fd of cfg.root */
	struct posix_lock *lock;	/* the directory's lock, shared in the process */
	/*
	 * Directories beneath the root already found to be no link, so that
	 * a name's check costs no lookups beyond the call's own (on a FUSE
	 * file system each is a round trip); what an rmdir or a rename names
	 * is forgotten, with what is beneath it.
	 */
	unsigned int ndirs, nextdir;
	char dirs[POSIX_DIRS_KNOWN][POSIX_DIR_NAME];
};

/*
 * Open the root and take its lock (STORE_LOCK_NAME in the directory, an OFD
 * lock: the kernel drops it when the process dies, however it dies).
 */
int posix_base_init(struct posix_base *pb, const struct store_config *cfg,
		    const char *who, char *err, size_t errlen);
void posix_base_exit(struct posix_base *pb);

int posix_open(struct store *s, const char *path, int flags, mode_t mode,
	       uint64_t size_hint, struct store_file **fp);
int posix_close(struct store *s, struct store_file *f);
ssize_t posix_pwritev(struct store *s, struct store_file *f,
		      const struct iovec *iov, int iovcnt, uint64_t off);
ssize_t posix_preadv(struct store *s, struct store_file *f,
		     const struct iovec *iov, int iovcnt, uint64_t off);
int posix_fsync(struct store *s, struct store_file *f, int datasync);
int posix_unlink(struct store *s, const char *path);
int posix_mkdir(struct store *s, const char *path, mode_t mode);
int posix_rmdir(struct store *s, const char *path);
int posix_lookup(struct store *s, const char *path, int access);
int posix_rename(struct store *s, const char *from, const char *to);
int posix_dirsync(struct store *s, const char *path);
int posix_fstat(struct store *s, struct store_file *f, uint64_t *size);
int posix_sync_range(struct store *s, struct store_file *f, uint64_t off, uint64_t len);
int posix_truncate(struct store *s, struct store_file *f, uint64_t len);
int posix_truncate_path(struct store *s, const char *path, uint64_t len);
int posix_size(struct store *s, struct store_file *f, uint64_t *size);
int posix_falloc(struct store *s, struct store_file *f, uint64_t off, uint64_t len);

#endif
