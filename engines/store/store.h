/*
 * store.h - the storage layer shared by every dbfio engine.
 *
 * An engine is a database's I/O pattern; this layer is the plumbing under it.
 * One interface (open, close, pwritev, preadv, fsync, fdatasync, unlink,
 * mkdir, rename, directory fsync, fstat, sync_file_range, truncate (of a
 * file or a name), and an
 * asynchronous submit/reap path) over five backends, picked by the engine
 * option store=posix|uring|aio|cephfs|rbd:
 *
 *   posix   synchronous syscalls on any mounted filesystem
 *   uring   liburing; a write may carry SREQ_DATASYNC: write + fdatasync are
 *           submitted as one linked pair (IOSQE_IO_LINK)
 *   aio     libaio for data reads and writes; fsync/fdatasync are done
 *           synchronously after in-flight I/O drained (as fio's libaio does)
 *   cephfs  libcephfs, the userspace CephFS client (no mount needed)
 *   rbd     one RBD image as a block store: files map to extents inside it
 *           (a small table at the start of the image), flush = rbd_flush()
 *
 * Paths are relative to the store's root (a directory for posix/uring/aio,
 * a path inside the file system for cephfs, the image for rbd). Every call
 * returns >= 0 on success and -errno on failure. An operation a backend
 * cannot do returns -EOPNOTSUPP (never a silent no-op); engines check
 * store_caps() at start-up and refuse with one line.
 *
 * Every call is counted per operation type (always on: tests use the counts)
 * and, when the config asks for it, timed into a struct latstat per type;
 * an engine that names phases (store_phases_init) gets the same counts and
 * series per phase too. A struct store belongs to one thread (or to whoever
 * holds the lock its owner keeps around it): counters and phase are plain
 * fields.
 */
#ifndef DBFIO_STORE_H
#define DBFIO_STORE_H

#include <fcntl.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include "latstat.h"

enum store_backend {
	STORE_POSIX,
	STORE_URING,
	STORE_AIO,
	STORE_CEPHFS,
	STORE_RBD,
	STORE_NR_BACKENDS,
};

/* Operation types: one counter and one latency series each. */
enum store_op {
	SOP_OPEN,
	SOP_CLOSE,
	SOP_WRITE,
	SOP_READ,
	SOP_FSYNC,
	SOP_FDATASYNC,
	SOP_UNLINK,
	SOP_MKDIR,
	SOP_RENAME,
	SOP_DIRSYNC,
	SOP_FSTAT,
	SOP_SYNC_RANGE,
	SOP_TRUNCATE,
	SOP_RMDIR,
	SOP_SIZE,		/* lseek(SEEK_END): a size probe (PostgreSQL's mdnblocks) */
	SOP_FALLOCATE,
	SOP_STAT,		/* a name looked up (fstatat): PostgreSQL's directory check */
	SOP_ACCESS,		/* a name's existence asked (faccessat F_OK) */
	SOP_NR,
};

/* Capability bits, from store_caps(). */
enum store_cap {
	STORE_CAP_MKDIR		= 1u << 0,
	STORE_CAP_RENAME	= 1u << 1,
	STORE_CAP_DIRSYNC	= 1u << 2,
	STORE_CAP_SYNC_RANGE	= 1u << 3,
	STORE_CAP_ASYNC		= 1u << 4,	/* submit/reap really overlap */
	STORE_CAP_LINKED_SYNC	= 1u << 5,	/* write+fdatasync as one linked pair */
	STORE_CAP_DIRECT	= 1u << 6,	/* O_DIRECT honoured */
	STORE_CAP_TRUNCATE	= 1u << 7,
	/*
	 * Where the files live and who else sees them. Engines decide by these
	 * bits, never by backend name: a new backend sets what is true of it.
	 */
	STORE_CAP_NAMESPACE	= 1u << 8,	/* files are entries of a real directory
						 * tree other programs can see and change */
	STORE_CAP_LOCAL_DIR	= 1u << 9,	/* that tree is directory= on this host
						 * (statvfs, opendir work on it); without
						 * it a NAMESPACE root is store_root= */
	STORE_CAP_IMAGE		= 1u << 10,	/* the store is one container dbfio owns
						 * (no foreign files), of a fixed size:
						 * files are extents reserved inside it */
	STORE_CAP_OPEN_SYNC	= 1u << 11,	/* O_SYNC/O_DSYNC at open are honoured;
						 * without it the caller emulates them
						 * (fdatasync after each write) */
};

struct store_config {
	enum store_backend backend;
	const char *root;		/* posix/uring/aio: directory (must exist);
					 * cephfs: path in the fs (created if missing) */
	const char *ceph_conf;		/* NULL: $CEPH_CONF, then ceph's default search */
	const char *clientname;		/* cephx id without "client."; NULL: "admin" */
	const char *pool;		/* rbd: pool; NULL: "rbd" */
	const char *rbdname;		/* rbd: image name */
	uint64_t rbd_size;		/* rbd: create the image with this size when it
					 * does not exist (0: it must exist) */
	unsigned int queue_depth;	/* uring/aio ring size; 0: 64 */
	int direct;			/* O_DIRECT on posix/uring/aio opens */
	int timing;			/* time every call into store->lat[] */
	const char *job;		/* the fio job, for refusals naming two jobs
					 * of one process (owner.h); NULL: "?" */
};

/*
 * One store, one run. store_init takes an exclusive lock on what the run
 * writes (posix/uring/aio: a lock file in the directory; cephfs: the same
 * through libcephfs; rbd: an advisory lock on the image) and holds it until
 * the last store_exit of the process: the threads of one process share it
 * (a refcount, and one in-memory state per store), a second process is
 * refused at init with one line naming the holder. A holder that is gone (a
 * process of this host that no longer runs, e.g. after SIGKILL) is broken
 * and taken over at once; see docs/failure-behaviour.md for other hosts.
 */
#define STORE_LOCK_NAME		".dbfio-lock"

/* Flags of an asynchronous request. */
enum store_req_flags {
	SREQ_DATASYNC	= 1u << 0,	/* a write followed by fdatasync of its file,
					 * linked on uring, in order elsewhere; the
					 * request completes when both are done */
};

/*
 * An asynchronous request. The caller owns the memory and fills the public
 * part; it must stay valid until store_reap() returns it.
 */
struct store_req {
	enum store_op op;		/* SOP_WRITE, SOP_READ, SOP_FSYNC, SOP_FDATASYNC */
	struct store_file *file;
	void *buf;
	size_t len;
	uint64_t off;
	unsigned int flags;		/* enum store_req_flags */
	void *priv;			/* the caller's */
	ssize_t result;			/* on completion: bytes done or -errno */

	/* private to the store layer and the backend */
	uint64_t start_ns;
	unsigned int phase;		/* the store's phase at submit */
	struct store_req *next;
	int pending;
	void *backend_data;
};

struct store_ops;

/*
 * Phases: what the engine was doing when it made a call (a DDL statement
 * type, its set-up, a checkpoint). An engine names up to STORE_MAX_PHASES of
 * them once (store_phases_init), then says which one is current
 * (store_set_phase); every call is then also counted, and timed when
 * cfg.timing, under the current phase — an asynchronous request under the
 * phase it was submitted in. The totals (count[], errors[], lat[]) are kept
 * as before. Without phases the cost per call is one NULL test.
 *
 * DBFIO_STORE_PHASE_MARK=1 in the environment (for tests): every change of
 * phase makes one marker call, access("/dbfio-phase/<name>"), which fails
 * with ENOENT, so that strace shows where each phase starts.
 */
#define STORE_MAX_PHASES	12

struct store_phases {
	unsigned int n;				/* named phases */
	unsigned int cur;			/* calls are charged here */
	const char *const *names;		/* the engine's, n of them */
	int mark;				/* DBFIO_STORE_PHASE_MARK */
	uint64_t count[STORE_MAX_PHASES][SOP_NR];
	struct latstat (*lat)[SOP_NR];		/* [n][SOP_NR] when cfg.timing, else NULL */
};

struct store {
	const struct store_ops *ops;
	struct store_config cfg;
	void *priv;				/* backend state */
	uint64_t count[SOP_NR];			/* calls made, per type */
	uint64_t errors[SOP_NR];		/* calls that failed */
	struct latstat lat[SOP_NR];		/* filled when cfg.timing */
	struct store_phases *ph;		/* NULL: no phases (store_phases_init) */
	/* completions of backends without a real async path */
	struct store_req *done_head, *done_tail;
	unsigned int inflight;
	/* the backend's own account of its last error (store_strerror) */
	int last_err;
	char last_msg[256];
};

/*
 * A backend: store.c wraps every entry with counting and timing. An entry
 * left NULL means the operation is not supported (-EOPNOTSUPP); submit/reap
 * NULL means store.c runs requests synchronously at submit time.
 */
struct store_ops {
	const char *name;
	unsigned int caps;
	int (*init)(struct store *s, char *err, size_t errlen);
	void (*exit)(struct store *s);
	int (*open)(struct store *s, const char *path, int flags, mode_t mode,
		    uint64_t size_hint, struct store_file **fp);
	int (*close)(struct store *s, struct store_file *f);
	ssize_t (*pwritev)(struct store *s, struct store_file *f,
			   const struct iovec *iov, int iovcnt, uint64_t off);
	ssize_t (*preadv)(struct store *s, struct store_file *f,
			  const struct iovec *iov, int iovcnt, uint64_t off);
	int (*fsync)(struct store *s, struct store_file *f, int datasync);
	int (*unlink)(struct store *s, const char *path);
	int (*mkdir)(struct store *s, const char *path, mode_t mode);
	int (*rename)(struct store *s, const char *from, const char *to);
	int (*dirsync)(struct store *s, const char *path);
	int (*fstat)(struct store *s, struct store_file *f, uint64_t *size);
	int (*sync_range)(struct store *s, struct store_file *f, uint64_t off, uint64_t len);
	int (*truncate)(struct store *s, struct store_file *f, uint64_t len);
	/* truncate(2) of a name; a link as its last component is refused */
	int (*truncate_path)(struct store *s, const char *path, uint64_t len);
	int (*submit)(struct store *s, struct store_req *r);
	int (*reap)(struct store *s, unsigned int min, unsigned int max,
		    struct store_req **out, int64_t timeout_ns);
	int (*rmdir)(struct store *s, const char *path);	/* an empty directory */
	int (*size)(struct store *s, struct store_file *f, uint64_t *size);
	int (*fallocate)(struct store *s, struct store_file *f, uint64_t off, uint64_t len);
	/* a name looked up, its last component not followed: stat, or with access F_OK only */
	int (*lookup)(struct store *s, const char *path, int access);
	/* where the files are, for messages and keys; NULL: cfg.root */
	void (*location)(const struct store *s, char *buf, size_t len);
};

extern const struct store_ops store_posix_ops;
extern const struct store_ops store_uring_ops;
extern const struct store_ops store_aio_ops;
extern const struct store_ops store_cephfs_ops;
extern const struct store_ops store_rbd_ops;

/* "posix" -> STORE_POSIX; -1 for an unknown name or a backend not built in. */
int store_backend_parse(const char *name);
const char *store_backend_name(enum store_backend b);
/* Comma-separated list of the backends compiled into this build. */
const char *store_backends_built(void);
const char *store_op_name(enum store_op op);

/*
 * Connect/prepare a backend. On failure returns -errno and writes a one-line
 * reason (no trailing newline) into err.
 */
int store_init(struct store **sp, const struct store_config *cfg,
	       char *err, size_t errlen);
void store_exit(struct store *s);
unsigned int store_caps(const struct store *s);
/*
 * The capability bits of a backend before any store exists (option checks);
 * 0 for an unknown backend or one not built in.
 */
unsigned int store_backend_caps(int backend);
/*
 * Where this store's files are, in words: "pool/image" for an image, the
 * root path otherwise. Returns buf.
 */
const char *store_location(const struct store *s, char *buf, size_t len);
/*
 * The same as a key: a local directory's real path, else "<backend>:<where>"
 * (two stores on one directory, however named, give one key). Returns buf.
 */
const char *store_where(const struct store *s, char *buf, size_t len);

/*
 * size_hint: how large the file will grow (the rbd backend reserves that
 * extent; others ignore it). 0 = backend default.
 * STORE_O_BUFFERED in flags: never O_DIRECT, whatever cfg.direct says — a
 * small file of text (a log's meta, the ownership marker) whose buffers and
 * lengths are not aligned. It borrows O_NOCTTY, which no regular file needs;
 * backends clear it before the open.
 */
#define STORE_O_BUFFERED	O_NOCTTY
int store_open(struct store *s, const char *path, int flags, mode_t mode,
	       uint64_t size_hint, struct store_file **fp);
int store_close(struct store *s, struct store_file *f);
/*
 * Writes and reads continue after a short transfer, as a database's own
 * loop does: a write returns len, or the -errno that stopped it (ENOSPC
 * after partial progress is ENOSPC, not a short count), or a short count
 * only when the backend made no progress and gave no error. A read is short
 * only at the end of the file.
 */
ssize_t store_pwrite(struct store *s, struct store_file *f, const void *buf,
		     size_t len, uint64_t off);
ssize_t store_pwritev(struct store *s, struct store_file *f,
		      const struct iovec *iov, int iovcnt, uint64_t off);
ssize_t store_pread(struct store *s, struct store_file *f, void *buf,
		    size_t len, uint64_t off);
int store_fsync(struct store *s, struct store_file *f);
int store_fdatasync(struct store *s, struct store_file *f);
int store_unlink(struct store *s, const char *path);
int store_mkdir(struct store *s, const char *path, mode_t mode);
int store_rename(struct store *s, const char *from, const char *to);
int store_dirsync(struct store *s, const char *path);
int store_fstat(struct store *s, struct store_file *f, uint64_t *size);
int store_sync_range(struct store *s, struct store_file *f, uint64_t off, uint64_t len);
int store_truncate(struct store *s, struct store_file *f, uint64_t len);
/*
 * A file truncated by its name, as PostgreSQL's mdunlink does (truncate(2),
 * no descriptor): counted as SOP_TRUNCATE. The last component is asked
 * first without following it: a symbolic link is refused (-ELOOP), an
 * absent name is -ENOENT and nothing is truncated. -EOPNOTSUPP where the
 * store has no names (rbd).
 */
int store_truncate_path(struct store *s, const char *path, uint64_t len);
/* Remove an empty directory (-EOPNOTSUPP where the backend has no rmdir). */
int store_rmdir(struct store *s, const char *path);
/*
 * The file's size the way a database asks for it: lseek(fd, 0, SEEK_END) on
 * posix-like stores (fstat does not go through the same path on every file
 * system). -EOPNOTSUPP where the backend has no such call.
 */
int store_size(struct store *s, struct store_file *f, uint64_t *size);
/* Reserve [off, off+len) (fallocate mode 0); -EOPNOTSUPP where unsupported. */
int store_fallocate(struct store *s, struct store_file *f, uint64_t off, uint64_t len);
/*
 * A name looked up (stat) or its existence asked (access F_OK), its last
 * component not followed: 0, or -ENOENT when absent (counted as failed, as
 * the database's own probe of an absent name is), another -errno.
 */
int store_stat(struct store *s, const char *path);
int store_access(struct store *s, const char *path);

/*
 * Asynchronous path. store_submit returns 0 when queued, -EBUSY when the
 * backend's queue is full (reap first), another -errno when the request was
 * refused. store_reap waits until at least min requests completed (or the
 * timeout, in ns, < 0 = forever) and returns how many it put into out.
 */
int store_submit(struct store *s, struct store_req *r);

/* a request's public part filled, the private part cleared (as io_uring_prep_*) */
static inline void store_req_prep(struct store_req *r, enum store_op op, struct store_file *f,
				  void *buf, size_t len, uint64_t off, unsigned int flags)
{
	memset(r, 0, sizeof(*r));
	r->op = op;
	r->file = f;
	r->buf = buf;
	r->len = len;
	r->off = off;
	r->flags = flags;
}
int store_reap(struct store *s, unsigned int min, unsigned int max,
	       struct store_req **out, int64_t timeout_ns);

/*
 * store_phase.c. Name n (<= STORE_MAX_PHASES) phases; names must outlive the
 * store. Phase 0 is current. -EINVAL for a bad n or a second call, -ENOMEM.
 */
int store_phases_init(struct store *s, const char *const *names, unsigned int n);
/* From now on, calls are charged to phase (< n; ignored otherwise). */
void store_set_phase(struct store *s, unsigned int phase);
/* The current phase (0 without phases). */
unsigned int store_phase(const struct store *s);
/* Calls made in a phase, [SOP_NR]; NULL without phases or for a bad phase. */
const uint64_t *store_phase_counts(const struct store *s, unsigned int phase);
/* Their latencies, [SOP_NR]; NULL also when the store does not time calls. */
const struct latstat *store_phase_lat(const struct store *s, unsigned int phase);
/* Called by store_exit. */
void store_phases_free(struct store *s);

/* Rows for latstat_print_table/json, one per operation type. */
void store_lat_rows(const struct store *s, struct latstat_row rows[SOP_NR]);

/*
 * The cause of err (-errno) in words: the backend's own account when the
 * last synchronous call failed with err and errno alone says too little
 * ("rbd image rbd/x is full: ..."; every call clears it), else strerror(-err).
 */
const char *store_strerror(const struct store *s, int err);

/* For backends: record a one-line account of err, for store_strerror(). */
void store_set_error(struct store *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* For backends: -ELOOP, with the account of it: name is a link dbfio will not follow. */
int store_link_refused(struct store *s, const char *name);

/*
 * For backends: the text a lock records about its holder, and what the next
 * run makes of it. store_holder_self writes "dbfio,pid=N,host=H,start=T,
 * time=S" (start: the process's start in clock ticks after boot, so that a
 * reused pid is not taken for the holder). store_holder_gone: 1 when the
 * holder was a process of this host that no longer runs. describe: "pid N
 * on host H since 2026-11-30 15:04:05 UTC".
 */
void store_holder_self(char *buf, size_t len);
/*
 * 1 when the holder is this process: another engine of the same fio (each
 * engine .so carries its own copy of the store layer, so its own registry).
 */
int store_holder_is_self(const char *holder);
int store_holder_gone(const char *holder);
void store_holder_describe(const char *holder, char *buf, size_t len);

/* For backends: record a completion (used by store.c and by backends). */
void store_complete(struct store *s, struct store_req *r);

#endif
