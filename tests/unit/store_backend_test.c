/*
 * Description: the store layer's API on one backend: data round trip,
 * fsync/fdatasync, size, rename, unlink, truncate, error codes, per-op
 * counters, async submit/reap with SREQ_DATASYNC, persistence across
 * store_exit/store_init, several threads on one store target.
 *
 * usage: store_backend_test --store=posix|uring|aio|cephfs|rbd [--root=DIR]
 *        [--rbdname=IMG] [--pool=P] [--rbd-size=BYTES] [--conf=CEPH_CONF]
 *        [--bench=N] [--keep]
 *
 * Defaults create their own target and remove it afterwards: a mkdtemp
 * directory (posix/uring/aio), devtest-store-PID in CephFS, or an image
 * devtest-store-PID of 1 GiB in pool rbd. A target given by option is kept
 * (only the test's files are removed); --keep keeps ours too. --bench=N
 * times N sequential 8 KiB write+fdatasync pairs, appending, then again
 * overwriting. Exit 0 pass, 1 fail, 77 skip (backend not built; for
 * cephfs/rbd no ceph.conf, or the cluster did not answer within 30 s).
 */
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef CONFIG_LIBCEPHFS
#include <cephfs/libcephfs.h>
#endif
#ifdef CONFIG_RBD
#include <rados/librados.h>
#include <rbd/librbd.h>
#endif

#include "store/store.h"
#include "check.h"

#define KiB		1024ull
#define MiB		(1024 * KiB)
#define NASYNC		64
#define ABLK		(16 * KiB)

static struct store_config cfg;
static uint64_t exp_count[SOP_NR], exp_err[SOP_NR];
static int bench_n, keep, own_target;
static char tmproot[64];

/* A synchronous call whose counting the test mirrors. */
#define OP(op, call)	({ __typeof__(call) _r = (call); exp_count[op]++;	\
			   exp_err[op] += _r < 0; _r; })

static void fill(char *buf, size_t len, uint64_t off, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (char)((off + i) * 131 + seed * 7 + ((off + i) >> 12));
}

static int check(const char *buf, size_t len, uint64_t off, unsigned int seed)
{
	char *want = malloc(len);
	int ret;

	fill(want, len, off, seed);
	ret = memcmp(want, buf, len);
	free(want);
	return ret;
}

static int is_zero(const char *buf, size_t len)
{
	return !len || (!buf[0] && !memcmp(buf, buf + 1, len - 1));
}

static int counts_match(struct store *s, const char *when)
{
	int op, bad = 0;

	for (op = 0; op < SOP_NR; op++) {
		if (s->count[op] == exp_count[op] && s->errors[op] == exp_err[op])
			continue;
		t_report("FAIL", __FILE__, __LINE__, "%s: %s count %llu errors %llu, expected %llu/%llu",
			 when, store_op_name(op), (unsigned long long)s->count[op],
			(unsigned long long)s->errors[op],
			(unsigned long long)exp_count[op], (unsigned long long)exp_err[op]);
		bad = 1;
	}
	return bad ? -1 : 0;
}

/* Write len bytes of pattern seed at off in 64 KiB calls, the second as 3 iovecs. */
static int write_pattern(struct store *s, struct store_file *f, uint64_t off,
			 size_t len, unsigned int seed)
{
	char *buf = malloc(len);
	struct iovec iov[3];
	size_t done, n;
	ssize_t ret = 0;

	fill(buf, len, off, seed);
	for (done = 0; done < len && ret >= 0; done += n) {
		n = len - done < 64 * KiB ? len - done : 64 * KiB;
		if (done == 64 * KiB && n > 3) {
			iov[0] = (struct iovec){ buf + done, 1 };
			iov[1] = (struct iovec){ buf + done + 1, n / 2 };
			iov[2] = (struct iovec){ buf + done + 1 + n / 2, n - 1 - n / 2 };
			ret = OP(SOP_WRITE, store_pwritev(s, f, iov, 3, off + done));
		} else {
			ret = OP(SOP_WRITE, store_pwrite(s, f, buf + done, n, off + done));
		}
		if (ret >= 0 && (size_t)ret != n)
			ret = -EIO;
	}
	free(buf);
	EXPECT(ret >= 0, "write at %llu: %s", (unsigned long long)(off + done),
	       strerror((int)-ret));
	return 0;
}

static int read_check(struct store *s, struct store_file *f, uint64_t off,
		      size_t len, unsigned int seed)
{
	char *buf = malloc(len);
	ssize_t ret;
	int bad;

	ret = OP(SOP_READ, store_pread(s, f, buf, len, off));
	bad = ret != (ssize_t)len || check(buf, len, off, seed);
	free(buf);
	EXPECT(!bad, "read back %zu at %llu: got %zd, %s", len,
	       (unsigned long long)off, ret, ret < 0 ? strerror((int)-ret) : "data differs");
	return 0;
}

static int expect_size(struct store *s, struct store_file *f, uint64_t want)
{
	uint64_t size = ~0ull;
	int ret = OP(SOP_FSTAT, store_fstat(s, f, &size));

	EXPECT(!ret && size == want, "fstat: ret %d size %llu, expected %llu", ret,
	       (unsigned long long)size, (unsigned long long)want);
	return 0;
}

static int expect_open_err(struct store *s, const char *path, int flags, int err)
{
	struct store_file *f = NULL;
	int ret = OP(SOP_OPEN, store_open(s, path, flags, 0644, 0, &f));

	if (!ret)
		OP(SOP_CLOSE, store_close(s, f));
	EXPECT(ret == err, "open(%s): got %d (%s), expected %d", path, ret,
	       strerror(-ret), err);
	return 0;
}

static int test_basic(struct store *s)
{
	struct store_file *f;
	char buf[8192];
	ssize_t n;
	int ret;

	if (expect_open_err(s, "devtest-missing", O_RDWR, -ENOENT))
		return T_EXIT_FAIL;
	/* a backend's message is its call's: a later call's same errno gets libc's text */
	store_set_error(s, -ENOENT, "an earlier call's message");
	if (expect_open_err(s, "devtest-missing", O_RDWR, -ENOENT))
		return T_EXIT_FAIL;
	EXPECT(!strcmp(store_strerror(s, -ENOENT), strerror(ENOENT)),
	       "store_strerror after a later failed open: '%s', expected '%s'",
	       store_strerror(s, -ENOENT), strerror(ENOENT));
	ret = OP(SOP_OPEN, store_open(s, "devtest-a", O_CREAT | O_EXCL | O_RDWR, 0644,
				      16 * MiB, &f));
	EXPECT(!ret, "open(devtest-a, O_CREAT): %s", strerror(-ret));
	if (write_pattern(s, f, 0, MiB, 1))
		return T_EXIT_FAIL;
	EXPECT(!OP(SOP_FSYNC, store_fsync(s, f)), "fsync");
	EXPECT(!OP(SOP_FDATASYNC, store_fdatasync(s, f)), "fdatasync");
	if (expect_size(s, f, MiB) || read_check(s, f, 0, MiB, 1) ||
	    read_check(s, f, 12345, 54321, 1))
		return T_EXIT_FAIL;
	n = OP(SOP_READ, store_pread(s, f, buf, sizeof(buf), MiB));
	EXPECT(n == 0, "read at EOF: %zd", n);
	n = OP(SOP_READ, store_pread(s, f, buf, sizeof(buf), MiB - 100));
	EXPECT(n == 100 && !check(buf, 100, MiB - 100, 1), "read across EOF: %zd", n);
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	if (expect_open_err(s, "devtest-a", O_CREAT | O_EXCL | O_RDWR, -EEXIST))
		return T_EXIT_FAIL;
	ret = OP(SOP_OPEN, store_open(s, "devtest-a", O_RDONLY, 0, 0, &f));
	EXPECT(!ret, "reopen: %s", strerror(-ret));
	if (expect_size(s, f, MiB) || read_check(s, f, 0, MiB, 1))
		return T_EXIT_FAIL;
	n = OP(SOP_WRITE, store_pwrite(s, f, buf, 10, 0));
	EXPECT(n < 0, "write on an O_RDONLY file succeeded");
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	return 0;
}

/*
 * Truncate by name (devtest-a holds 200 KiB): to 50 KiB; an absent name is
 * -ENOENT; on a local directory a link at the name is refused and its
 * target, outside the store, keeps its size (stat(2) is the oracle there).
 */
static int test_truncate_path(struct store *s)
{
	char path[PATH_MAX], victim[] = "/tmp/devtest-victim-XXXXXX";
	struct store_file *f;
	struct stat st;
	int ret, fd;

	ret = OP(SOP_TRUNCATE, store_truncate_path(s, "devtest-a", 50 * KiB));
	EXPECT(!ret, "truncate by name: %s", strerror(-ret));
	ret = OP(SOP_OPEN, store_open(s, "devtest-a", O_RDONLY, 0, 0, &f));
	EXPECT(!ret, "reopen: %s", strerror(-ret));
	if (expect_size(s, f, 50 * KiB) || read_check(s, f, 0, 50 * KiB, 1))
		return T_EXIT_FAIL;
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	ret = OP(SOP_TRUNCATE, store_truncate_path(s, "devtest-absent", 0));
	EXPECT(ret == -ENOENT, "truncate of an absent name: %d, not -ENOENT", ret);
	if (!(store_caps(s) & STORE_CAP_LOCAL_DIR))
		return 0;
	snprintf(path, sizeof(path), "%s/devtest-a", cfg.root);
	EXPECT(!stat(path, &st) && st.st_size == (off_t)(50 * KiB),
	       "stat(2) of %s: %lld bytes, not 50 KiB", path, (long long)st.st_size);
	fd = mkstemp(victim);
	EXPECT(fd >= 0 && !ftruncate(fd, 4096), "victim %s: %s", victim, strerror(errno));
	close(fd);
	snprintf(path, sizeof(path), "%s/devtest-link", cfg.root);
	EXPECT(!symlink(victim, path), "symlink %s: %s", path, strerror(errno));
	ret = OP(SOP_TRUNCATE, store_truncate_path(s, "devtest-link", 0));
	fd = !stat(victim, &st) && st.st_size == 4096;
	unlink(path);
	unlink(victim);
	EXPECT(fd, "truncate through a link changed its target %s", victim);
	EXPECT(ret == -ELOOP, "truncate of a link: %d, not -ELOOP", ret);
	return 0;
}

/*
 * A directory the store removed and found again as a link is refused: the
 * store remembers directories that were no link, and must forget one it
 * removes (or renames). Local directories only: the link is made here.
 */
static int test_dir_relinked(struct store *s)
{
	char victim[] = "/tmp/devtest-victimdir-XXXXXX", path[PATH_MAX];
	struct store_file *f;
	int ret, gone;

	if (!(store_caps(s) & STORE_CAP_LOCAL_DIR) || !(store_caps(s) & STORE_CAP_MKDIR))
		return 0;
	EXPECT(!OP(SOP_MKDIR, store_mkdir(s, "devtest-rl", 0755)), "mkdir devtest-rl");
	ret = OP(SOP_OPEN, store_open(s, "devtest-rl/f", O_CREAT | O_RDWR, 0644, 0, &f));
	EXPECT(!ret, "create devtest-rl/f: %s", strerror(-ret));
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	EXPECT(!OP(SOP_UNLINK, store_unlink(s, "devtest-rl/f")), "unlink devtest-rl/f");
	EXPECT(!OP(SOP_RMDIR, store_rmdir(s, "devtest-rl")), "rmdir devtest-rl");
	EXPECT(mkdtemp(victim), "mkdtemp: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/devtest-rl", cfg.root);
	EXPECT(!symlink(victim, path), "symlink %s: %s", path, strerror(errno));
	ret = OP(SOP_OPEN, store_open(s, "devtest-rl/g", O_CREAT | O_RDWR, 0644, 0, &f));
	if (!ret)
		store_close(s, f);
	snprintf(path, sizeof(path), "%s/g", victim);
	gone = access(path, F_OK) != 0;
	unlink(path);
	rmdir(victim);
	snprintf(path, sizeof(path), "%s/devtest-rl", cfg.root);
	unlink(path);
	EXPECT(gone && ret == -ELOOP, "create through a directory removed and linked again: %d, "
	       "%s", ret, gone ? "nothing made there" : "made in the link's target");
	return 0;
}

/* Truncate: shrink, grow (the grown part reads as zeros), O_TRUNC. */
static int test_truncate(struct store *s)
{
	struct store_file *f;
	char *buf = calloc(1, 100 * KiB);
	int ret, z;

	ret = OP(SOP_OPEN, store_open(s, "devtest-a", O_RDWR, 0, 0, &f));
	EXPECT(!ret, "open: %s", strerror(-ret));
	EXPECT(!OP(SOP_TRUNCATE, store_truncate(s, f, 100 * KiB)), "truncate down");
	if (expect_size(s, f, 100 * KiB) || read_check(s, f, 0, 100 * KiB, 1))
		return T_EXIT_FAIL;
	EXPECT(!OP(SOP_TRUNCATE, store_truncate(s, f, 200 * KiB)), "truncate up");
	ret = OP(SOP_READ, store_pread(s, f, buf, 100 * KiB, 100 * KiB));
	z = is_zero(buf, 100 * KiB);
	free(buf);
	EXPECT(ret == 100 * KiB && z, "grown part not zero (read %d)", ret);
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	if ((store_caps(s) & STORE_CAP_NAMESPACE) && test_truncate_path(s))
		return T_EXIT_FAIL;
	ret = OP(SOP_OPEN, store_open(s, "devtest-a", O_RDWR | O_TRUNC, 0, 0, &f));
	EXPECT(!ret, "open O_TRUNC: %s", strerror(-ret));
	if (expect_size(s, f, 0) || write_pattern(s, f, 0, MiB, 1))
		return T_EXIT_FAIL;
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	return 0;
}

static int test_rename(struct store *s)
{
	struct store_file *f;
	int ret;

	ret = OP(SOP_OPEN, store_open(s, "devtest-c", O_CREAT | O_RDWR, 0644, 4 * MiB, &f));
	EXPECT(!ret, "open(devtest-c): %s", strerror(-ret));
	if (write_pattern(s, f, 0, 8 * KiB, 3))
		return T_EXIT_FAIL;
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	ret = OP(SOP_RENAME, store_rename(s, "devtest-a", "devtest-b"));
	EXPECT(!ret, "rename: %s", strerror(-ret));
	if (expect_open_err(s, "devtest-a", O_RDONLY, -ENOENT))
		return T_EXIT_FAIL;
	/* over an existing file: it is replaced */
	ret = OP(SOP_RENAME, store_rename(s, "devtest-b", "devtest-c"));
	EXPECT(!ret, "rename over: %s", strerror(-ret));
	ret = OP(SOP_OPEN, store_open(s, "devtest-c", O_RDONLY, 0, 0, &f));
	EXPECT(!ret, "open renamed: %s", strerror(-ret));
	if (expect_size(s, f, MiB) || read_check(s, f, 0, MiB, 1))
		return T_EXIT_FAIL;
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	ret = OP(SOP_RENAME, store_rename(s, "devtest-missing", "devtest-x"));
	EXPECT(ret == -ENOENT, "rename missing: %d", ret);
	ret = OP(SOP_UNLINK, store_unlink(s, "devtest-c"));
	EXPECT(!ret, "unlink: %s", strerror(-ret));
	return 0;
}

/* A new file in a freed extent must not show the old file's bytes. */
static int test_reuse(struct store *s)
{
	struct store_file *f;
	char *buf = malloc(64 * KiB);
	int ret, z;

	ret = OP(SOP_OPEN, store_open(s, "devtest-old", O_CREAT | O_RDWR, 0644, 4 * MiB, &f));
	EXPECT(!ret, "open(devtest-old): %s", strerror(-ret));
	if (write_pattern(s, f, 0, 256 * KiB, 4))
		return T_EXIT_FAIL;
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	EXPECT(!OP(SOP_UNLINK, store_unlink(s, "devtest-old")), "unlink");
	ret = OP(SOP_UNLINK, store_unlink(s, "devtest-old"));
	EXPECT(ret == -ENOENT, "unlink twice: %d", ret);
	ret = OP(SOP_OPEN, store_open(s, "devtest-new", O_CREAT | O_RDWR, 0644, 4 * MiB, &f));
	EXPECT(!ret, "open(devtest-new): %s", strerror(-ret));
	if (write_pattern(s, f, 64 * KiB, 4 * KiB, 5) || expect_size(s, f, 68 * KiB))
		return T_EXIT_FAIL;
	ret = OP(SOP_READ, store_pread(s, f, buf, 64 * KiB, 0));
	z = is_zero(buf, 64 * KiB);
	free(buf);
	EXPECT(ret == 64 * KiB && z, "hole in a reused extent is not zero (read %d)", ret);
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	EXPECT(!OP(SOP_UNLINK, store_unlink(s, "devtest-new")), "unlink");
	return 0;
}

static int test_dirs(struct store *s)
{
	unsigned int caps = store_caps(s);
	struct store_file *f;
	int ret;

	if (caps & STORE_CAP_MKDIR) {
		ret = OP(SOP_MKDIR, store_mkdir(s, "devtest-dir", 0755));
		EXPECT(!ret, "mkdir: %s", strerror(-ret));
		ret = OP(SOP_OPEN, store_open(s, "devtest-dir/f", O_CREAT | O_RDWR, 0644, 0, &f));
		EXPECT(!ret, "open in dir: %s", strerror(-ret));
		EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	}
	if (caps & STORE_CAP_DIRSYNC) {
		ret = OP(SOP_DIRSYNC, store_dirsync(s, caps & STORE_CAP_MKDIR ?
					       "devtest-dir" : ""));
		EXPECT(!ret, "dirsync: %s", strerror(-ret));
		ret = OP(SOP_DIRSYNC, store_dirsync(s, ""));
		EXPECT(!ret, "dirsync(root): %s", strerror(-ret));
	}
	if (caps & STORE_CAP_MKDIR) {
		ret = OP(SOP_UNLINK, store_unlink(s, "devtest-dir/f"));
		EXPECT(!ret, "unlink in dir: %s", strerror(-ret));
		/* rmdir has no capability bit: a backend may lack it */
		ret = store_rmdir(s, "devtest-dir");
		if (ret == -EOPNOTSUPP)
			printf("  note: store=%s has mkdir but no rmdir\n",
			       store_backend_name(cfg.backend));
		else
			OP(SOP_RMDIR, ret);
		EXPECT(!ret || ret == -EOPNOTSUPP, "rmdir: %s", strerror(-ret));
	}
	return 0;
}

/* Operations without their capability bit answer -EOPNOTSUPP. */
static int test_unsupported(struct store *s)
{
	unsigned int caps = store_caps(s);
	struct store_file *f;
	int ret, op, n = 0;

	ret = OP(SOP_OPEN, store_open(s, "devtest-u", O_CREAT | O_RDWR, 0644, 0, &f));
	EXPECT(!ret, "open: %s", strerror(-ret));
	if (!(caps & STORE_CAP_MKDIR) && ++n)
		EXPECT(store_mkdir(s, "devtest-d", 0755) == -EOPNOTSUPP, "mkdir");
	if (!(caps & STORE_CAP_DIRSYNC) && ++n)
		EXPECT(store_dirsync(s, "") == -EOPNOTSUPP, "dirsync");
	if (!(caps & STORE_CAP_MKDIR) && ++n)
		EXPECT(store_rmdir(s, "devtest-d") == -EOPNOTSUPP, "rmdir");
	if (!(caps & STORE_CAP_SYNC_RANGE) && ++n)
		EXPECT(store_sync_range(s, f, 0, 4096) == -EOPNOTSUPP, "sync_range");
	if (caps & STORE_CAP_SYNC_RANGE)
		EXPECT(!OP(SOP_SYNC_RANGE, store_sync_range(s, f, 0, 4096)), "sync_range");
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	EXPECT(!OP(SOP_UNLINK, store_unlink(s, "devtest-u")), "unlink");
	printf("  %d unsupported operation(s) refused with -EOPNOTSUPP\n", n);
	/* whether a refused call is counted is store.c's business: resync */
	for (op = SOP_MKDIR; op < SOP_NR; op++)
		if (op == SOP_MKDIR || op == SOP_DIRSYNC || op == SOP_SYNC_RANGE ||
		    op == SOP_RMDIR) {
			exp_count[op] = s->count[op];
			exp_err[op] = s->errors[op];
		}
	return 0;
}

/* Submit all of rq (reaping when the queue is full), reap all, check results. */
static int async_run(struct store *s, struct store_req *rq, int n)
{
	struct store_req *out[NASYNC];
	int i = 0, done = 0, k, ret;
	ssize_t want;

	while (done < n) {
		for (; i < n; i++) {
			ret = store_submit(s, &rq[i]);
			if (ret == -EBUSY && i > done)
				break;
			EXPECT(!ret, "submit %d: %s", i, strerror(-ret));
			exp_count[rq[i].op]++;
			if (rq[i].op == SOP_WRITE && (rq[i].flags & SREQ_DATASYNC))
				exp_count[SOP_FDATASYNC]++;
		}
		ret = store_reap(s, 1, NASYNC, out, 30000000000ll);
		EXPECT(ret > 0, "reap: %d", ret);
		for (k = 0; k < ret; k++, done++) {
			want = out[k]->op == SOP_WRITE || out[k]->op == SOP_READ ?
				(ssize_t)out[k]->len : 0;
			EXPECT(out[k]->result == want, "async %s at %llu: %zd, expected %zd",
			       store_op_name(out[k]->op),
			       (unsigned long long)out[k]->off, out[k]->result, want);
		}
	}
	return 0;
}

static void req_set(struct store_req *r, enum store_op op, struct store_file *f,
		    char *buf, uint64_t off, unsigned int flags)
{
	store_req_prep(r, op, f, buf, buf ? ABLK : 0, off, flags);
}

static int test_async_busy(struct store *s, struct store_file *f, char *buf)
{
	struct store_req rq[NASYNC], extra, *out[NASYNC];
	int i, ret, got = 0;

	/* written back to front: every write but the first leaves a hole */
	for (i = 0; i < NASYNC; i++) {
		fill(buf + i * ABLK, ABLK, i * ABLK, 6);
		req_set(&rq[i], SOP_WRITE, f, buf + i * ABLK, i * ABLK, 0);
	}
	for (i = NASYNC - 1; i >= 0; i--) {
		ret = store_submit(s, &rq[i]);
		EXPECT(!ret, "submit write %d: %s", i, strerror(-ret));
		exp_count[SOP_WRITE]++;
	}
	req_set(&extra, SOP_WRITE, f, buf, 0, 0);
	ret = store_submit(s, &extra);
	if (store_caps(s) & STORE_CAP_ASYNC)
		EXPECT(ret == -EBUSY, "submit beyond queue_depth: %d, expected -EBUSY", ret);
	else if (!ret)
		exp_count[SOP_WRITE]++;
	while (got < NASYNC + !ret) {
		i = store_reap(s, 1, NASYNC, out, 30000000000ll);
		EXPECT(i > 0, "reap: %d", i);
		for (got += i; i-- > 0;)
			EXPECT(out[i]->result == (ssize_t)out[i]->len, "async write: %zd",
			       out[i]->result);
	}
	EXPECT(store_reap(s, 0, NASYNC, out, 0) == 0, "reap with nothing in flight");
	return 0;
}

static int test_async(struct store *s)
{
	struct store_req rq[NASYNC + 10];
	char *buf = malloc((NASYNC + 8) * ABLK), *rbuf = malloc(NASYNC * ABLK);
	struct store_file *f;
	int i, ret;

	ret = OP(SOP_OPEN, store_open(s, "devtest-async", O_CREAT | O_RDWR, 0644,
				      4 * MiB, &f));
	EXPECT(!ret, "open(devtest-async): %s", strerror(-ret));
	if (test_async_busy(s, f, buf))
		return T_EXIT_FAIL;
	for (i = 0; i < NASYNC; i++)
		req_set(&rq[i], SOP_READ, f, rbuf + i * ABLK, i * ABLK, 0);
	if (async_run(s, rq, NASYNC))
		return T_EXIT_FAIL;
	EXPECT(!check(rbuf, NASYNC * ABLK, 0, 6), "async read back differs");
	/* write+fdatasync pairs, then explicit fdatasync and fsync requests */
	for (i = 0; i < 8; i++) {
		fill(buf + (NASYNC + i) * ABLK, ABLK, (NASYNC + i) * ABLK, 6);
		req_set(&rq[i], SOP_WRITE, f, buf + (NASYNC + i) * ABLK,
			(NASYNC + i) * ABLK, SREQ_DATASYNC);
	}
	req_set(&rq[8], SOP_FDATASYNC, f, NULL, 0, 0);
	req_set(&rq[9], SOP_FSYNC, f, NULL, 0, 0);
	if (async_run(s, rq, 10) || expect_size(s, f, (NASYNC + 8) * ABLK))
		return T_EXIT_FAIL;
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	ret = OP(SOP_OPEN, store_open(s, "devtest-async", O_RDONLY, 0, 0, &f));
	EXPECT(!ret, "reopen: %s", strerror(-ret));
	if (read_check(s, f, 0, (NASYNC + 8) * ABLK, 6))
		return T_EXIT_FAIL;
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	EXPECT(!OP(SOP_UNLINK, store_unlink(s, "devtest-async")), "unlink");
	free(buf);
	free(rbuf);
	return 0;
}

/* A file written and closed without fsync survives store_exit + store_init. */
static int test_persist(struct store **sp)
{
	char err[256];
	struct store_file *f;
	int ret;

	ret = OP(SOP_OPEN, store_open(*sp, "devtest-p", O_CREAT | O_RDWR, 0644, 0, &f));
	EXPECT(!ret, "open(devtest-p): %s", strerror(-ret));
	if (write_pattern(*sp, f, 0, 300 * KiB, 7))
		return T_EXIT_FAIL;
	EXPECT(!OP(SOP_CLOSE, store_close(*sp, f)), "close");
	if (counts_match(*sp, "before re-init"))
		return T_EXIT_FAIL;
	store_exit(*sp);
	memset(exp_count, 0, sizeof(exp_count));
	memset(exp_err, 0, sizeof(exp_err));
	ret = store_init(sp, &cfg, err, sizeof(err));
	EXPECT(!ret, "re-init: %s", err);
	ret = OP(SOP_OPEN, store_open(*sp, "devtest-p", O_RDONLY, 0, 0, &f));
	EXPECT(!ret, "open after re-init: %s", strerror(-ret));
	if (expect_size(*sp, f, 300 * KiB) || read_check(*sp, f, 0, 300 * KiB, 7))
		return T_EXIT_FAIL;
	EXPECT(!OP(SOP_CLOSE, store_close(*sp, f)), "close");
	EXPECT(!OP(SOP_UNLINK, store_unlink(*sp, "devtest-p")), "unlink");
	return 0;
}

/* 16 write+fdatasync requests after the first 256 KiB, all in flight at once. */
static int thread_async(struct store *s, struct store_file *f, char *buf)
{
	struct store_req rq[16], *out[16];
	int i, n = 0, ret;

	for (i = 0; i < 16; i++) {
		req_set(&rq[i], SOP_WRITE, f, buf + i * ABLK, 256 * KiB + i * ABLK,
			SREQ_DATASYNC);
		if (store_submit(s, &rq[i]))
			return T_EXIT_FAIL;
	}
	while (n < 16) {
		ret = store_reap(s, 1, 16, out, 30000000000ll);
		if (ret <= 0)
			return T_EXIT_FAIL;
		for (i = 0; i < ret; i++, n++)
			if (out[i]->result != (ssize_t)ABLK)
				return T_EXIT_FAIL;
	}
	return 0;
}

/* Threads with a store each, on the same target (rbd: one shared image). */
static void *thread_main(void *arg)
{
	long id = (long)arg;
	char err[256], name[32], *buf = malloc(256 * KiB), *rbuf = malloc(256 * KiB);
	struct store_file *f = NULL;
	struct store *s = NULL;
	long bad = 1;

	snprintf(name, sizeof(name), "devtest-t%ld", id);
	fill(buf, 256 * KiB, 0, 10 + id);
	if (store_init(&s, &cfg, err, sizeof(err))) {
		fprintf(stderr, "thread %ld: %s\n", id, err);
		goto out;
	}
	if (store_open(s, name, O_CREAT | O_RDWR | O_TRUNC, 0644, 0, &f))
		goto out;
	if (store_pwrite(s, f, buf, 256 * KiB, 0) == 256 * KiB && !store_fsync(s, f) &&
	    store_pread(s, f, rbuf, 256 * KiB, 0) == 256 * KiB &&
	    !memcmp(buf, rbuf, 256 * KiB) && !thread_async(s, f, buf) &&
	    store_pread(s, f, rbuf, 256 * KiB, 256 * KiB) == 256 * KiB &&
	    !memcmp(buf, rbuf, 256 * KiB))
		bad = 0;
	store_close(s, f);
	if (store_unlink(s, name))
		bad = 1;
out:
	store_exit(s);
	free(buf);
	free(rbuf);
	return (void *)bad;
}

static int test_threads(void)
{
	pthread_t t[4];
	void *bad;
	long i, nbad = 0;

	for (i = 0; i < 4; i++)
		EXPECT(!pthread_create(&t[i], NULL, thread_main, (void *)i), "pthread_create");
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], &bad);
		nbad += (long)bad;
	}
	EXPECT(!nbad, "%ld of 4 threads failed", nbad);
	return 0;
}

/* N sequential 8 KiB write+fdatasync pairs, as a WAL does: appending, then overwriting. */
static int bench_pass(struct store *s, struct store_file *f, const char *what)
{
	struct latstat ls;
	char buf[8192];
	uint64_t t0;
	int i, ret;

	latstat_reset(&ls);
	memset(buf, 0x5a, sizeof(buf));
	for (i = 0; i < bench_n; i++) {
		t0 = latstat_now_ns();
		ret = OP(SOP_WRITE, store_pwrite(s, f, buf, sizeof(buf), (uint64_t)i * sizeof(buf)));
		EXPECT(ret == (int)sizeof(buf), "bench write: %d", ret);
		EXPECT(!OP(SOP_FDATASYNC, store_fdatasync(s, f)), "bench fdatasync");
		latstat_add(&ls, latstat_now_ns() - t0);
	}
	printf("  %s: 8 KiB write+fdatasync x %d, %-9s mean %7.1f us, p50 %7.1f us, "
	       "p99 %7.1f us, max %7.1f us\n", store_backend_name(cfg.backend), bench_n,
	       what, latstat_mean(&ls) / 1e3, latstat_percentile(&ls, 50) / 1e3,
	       latstat_percentile(&ls, 99) / 1e3, ls.max_ns / 1e3);
	return 0;
}

static int bench(struct store *s)
{
	struct latstat_row rows[SOP_NR];
	struct store_file *f;
	int i, ret;

	ret = OP(SOP_OPEN, store_open(s, "devtest-bench", O_CREAT | O_RDWR | O_TRUNC,
				      0644, (uint64_t)bench_n * 8192, &f));
	EXPECT(!ret, "open(devtest-bench): %s", strerror(-ret));
	for (i = 0; i < SOP_NR; i++)
		latstat_reset(&s->lat[i]);
	if (bench_pass(s, f, "append:") || bench_pass(s, f, "overwrite:"))
		return T_EXIT_FAIL;
	store_lat_rows(s, rows);
	latstat_print_table(stdout, "per call, both passes", rows, SOP_NR);
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	EXPECT(!OP(SOP_UNLINK, store_unlink(s, "devtest-bench")), "unlink");
	return 0;
}

/* Best effort: whatever a failed run left behind, then the target itself. */
static void cleanup(struct store *s)
{
	static const char *const names[] = {
		"devtest-a", "devtest-b", "devtest-c", "devtest-old", "devtest-new",
		"devtest-u", "devtest-dir/f", "devtest-async", "devtest-p",
		"devtest-bench", "devtest-t0", "devtest-t1", "devtest-t2", "devtest-t3",
	};
	size_t i;

	for (i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		store_unlink(s, names[i]);
	if (s)
		store_rmdir(s, "devtest-dir");
	store_exit(s);
	if (!own_target || keep)
		return;
	if (cfg.backend == STORE_POSIX || cfg.backend == STORE_URING ||
	    cfg.backend == STORE_AIO) {
		char path[512];

		snprintf(path, sizeof(path), "%s/devtest-dir", cfg.root);
		rmdir(path);
		rmdir(cfg.root);
	}
	if (!s)
		return;		/* init failed: nothing made, maybe nothing reachable */
#ifdef CONFIG_LIBCEPHFS
	if (cfg.backend == STORE_CEPHFS) {
		struct ceph_mount_info *cm;

		if (ceph_create(&cm, cfg.clientname))
			return;
		if (!ceph_conf_read_file(cm, cfg.ceph_conf) && !ceph_mount(cm, "/")) {
			if (ceph_rmdir(cm, cfg.root))
				fprintf(stderr, "warning: could not remove %s\n", cfg.root);
			ceph_unmount(cm);
		}
		ceph_release(cm);
	}
#endif
#ifdef CONFIG_RBD
	if (cfg.backend == STORE_RBD) {
		rados_t c;
		rados_ioctx_t io;

		if (rados_create(&c, cfg.clientname))
			return;
		if (!rados_conf_read_file(c, cfg.ceph_conf) && !rados_connect(c) &&
		    !rados_ioctx_create(c, cfg.pool ? cfg.pool : "rbd", &io)) {
			if (rbd_remove(io, cfg.rbdname))
				fprintf(stderr, "warning: could not remove image %s\n",
					cfg.rbdname);
			rados_ioctx_destroy(io);
		}
		rados_shutdown(c);
	}
#endif
}

static int parse_args(int argc, char **argv, const char **backend)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = strchr(a, '=');

		v = v ? v + 1 : "";
		if (!strncmp(a, "--store=", 8))
			*backend = v;
		else if (!strncmp(a, "--root=", 7))
			cfg.root = v;
		else if (!strncmp(a, "--rbdname=", 10))
			cfg.rbdname = v;
		else if (!strncmp(a, "--pool=", 7))
			cfg.pool = v;
		else if (!strncmp(a, "--rbd-size=", 11))
			cfg.rbd_size = strtoull(v, NULL, 0);
		else if (!strncmp(a, "--conf=", 7))
			cfg.ceph_conf = v;
		else if (!strncmp(a, "--bench=", 8))
			bench_n = atoi(v);
		else if (!strcmp(a, "--keep"))
			keep = 1;
		else {
			fprintf(stderr, "usage: %s --store=NAME [--root=DIR] [--rbdname=IMG] "
				"[--pool=P] [--rbd-size=B] [--conf=F] [--bench=N] [--keep]\n",
				argv[0]);
			return T_EXIT_FAIL;
		}
	}
	return 0;
}

/* A target of our own unless one was given; 77 when it cannot be reached. */
static int set_target(void)
{
	static char name[64];
	int ceph = cfg.backend == STORE_CEPHFS || cfg.backend == STORE_RBD;

	snprintf(name, sizeof(name), "devtest-store-%d", (int)getpid());
	if (ceph && !cfg.ceph_conf && !getenv("CEPH_CONF") &&
	    access("/etc/ceph/ceph.conf", R_OK))
		SKIP("no ceph.conf (set CEPH_CONF or --conf)");
	if (cfg.backend == STORE_CEPHFS && !cfg.root) {
		cfg.root = name;
		own_target = 1;
	} else if (cfg.backend == STORE_RBD && !cfg.rbdname) {
		cfg.rbdname = name;
		own_target = 1;
		if (!cfg.rbd_size)
			cfg.rbd_size = 1024 * MiB;
	} else if (!ceph && !cfg.root) {
		snprintf(tmproot, sizeof(tmproot), "/tmp/devtest-store-XXXXXX");
		if (!mkdtemp(tmproot))
			FAIL("mkdtemp(%s): %s", tmproot, strerror(errno));
		cfg.root = tmproot;
		own_target = 1;
	}
	return 0;
}

static int run_tests(struct store **sp)
{
	unsigned int caps = store_caps(*sp);

	if (test_basic(*sp))
		return T_EXIT_FAIL;
	if ((caps & STORE_CAP_TRUNCATE) && test_truncate(*sp))
		return T_EXIT_FAIL;
	if (caps & STORE_CAP_RENAME) {
		if (test_rename(*sp))
			return T_EXIT_FAIL;
	} else if (OP(SOP_UNLINK, store_unlink(*sp, "devtest-a"))) {
		FAIL("unlink(devtest-a)");
	}
	if (test_reuse(*sp) || test_dirs(*sp) || test_dir_relinked(*sp) || test_unsupported(*sp) ||
	    counts_match(*sp, "sync calls") || test_async(*sp) ||
	    counts_match(*sp, "async calls") || test_persist(sp) ||
	    counts_match(*sp, "after re-init") || test_threads())
		return T_EXIT_FAIL;
	if (bench_n > 0 && (bench(*sp) || counts_match(*sp, "bench")))
		return T_EXIT_FAIL;
	return 0;
}

int main(int argc, char **argv)
{
	const char *backend = NULL;
	struct store *s = NULL;
	char err[512];
	int b, ret;

	if (parse_args(argc, argv, &backend) || !backend) {
		fprintf(stderr, "%s: --store=NAME is required\n", argv[0]);
		return T_EXIT_FAIL;
	}
	b = store_backend_parse(backend);
	if (b < 0)
		SKIP("store=%s not built (built: %s)", backend, store_backends_built());
	cfg.backend = b;
	cfg.timing = 1;
	cfg.queue_depth = NASYNC;
	ret = set_target();
	if (ret)
		return ret;
	ret = store_init(&s, &cfg, err, sizeof(err));
	if (ret) {
		cleanup(NULL);
		if (ret == -ETIMEDOUT && (b == STORE_CEPHFS || b == STORE_RBD))
			SKIP("cluster unreachable: %s", err);
		FAIL("store_init: %s", err);
	}
	printf("store=%s target=%s caps=0x%x\n", backend,
	       b == STORE_RBD ? cfg.rbdname : cfg.root, store_caps(s));
	ret = run_tests(&s);
	cleanup(s);
	printf("%s: store=%s\n", ret ? "FAIL" : "PASS", backend);
	return ret ? T_EXIT_FAIL : T_EXIT_PASS;
}
