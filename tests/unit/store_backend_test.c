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
 * (only the test's files are removed). --bench=N times N 8 KiB
 * write+fdatasync pairs. Exit 0 pass, 1 fail, 77 skip.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
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

#include "store.h"

#define KiB		1024ull
#define MiB		(1024 * KiB)
#define NASYNC		64
#define ABLK		(16 * KiB)

static struct store_config cfg;
static uint64_t exp_count[SOP_NR], exp_err[SOP_NR];
static int bench_n, keep, own_target;
static char tmproot[64];

#define FAIL(...)	do { fail_msg(__LINE__, __VA_ARGS__); return -1; } while (0)
#define EXPECT(c, ...)	do { if (!(c)) FAIL(__VA_ARGS__); } while (0)
/* A synchronous call whose counting the test mirrors. */
#define OP(op, call)	({ __typeof__(call) _r = (call); exp_count[op]++;	\
			   if (_r < 0) exp_err[op]++; _r; })

static void fail_msg(int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL (line %d): ", line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

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
		fprintf(stderr, "FAIL: %s: %s count %llu errors %llu, expected %llu/%llu\n",
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

	EXPECT(!expect_open_err(s, "devtest-missing", O_RDWR, -ENOENT), "");
	ret = OP(SOP_OPEN, store_open(s, "devtest-a", O_CREAT | O_EXCL | O_RDWR, 0644,
				      16 * MiB, &f));
	EXPECT(!ret, "open(devtest-a, O_CREAT): %s", strerror(-ret));
	if (write_pattern(s, f, 0, MiB, 1))
		return -1;
	EXPECT(!OP(SOP_FSYNC, store_fsync(s, f)), "fsync");
	EXPECT(!OP(SOP_FDATASYNC, store_fdatasync(s, f)), "fdatasync");
	if (expect_size(s, f, MiB) || read_check(s, f, 0, MiB, 1) ||
	    read_check(s, f, 12345, 54321, 1))
		return -1;
	n = OP(SOP_READ, store_pread(s, f, buf, sizeof(buf), MiB));
	EXPECT(n == 0, "read at EOF: %zd", n);
	n = OP(SOP_READ, store_pread(s, f, buf, sizeof(buf), MiB - 100));
	EXPECT(n == 100 && !check(buf, 100, MiB - 100, 1), "read across EOF: %zd", n);
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	EXPECT(!expect_open_err(s, "devtest-a", O_CREAT | O_EXCL | O_RDWR, -EEXIST), "");
	ret = OP(SOP_OPEN, store_open(s, "devtest-a", O_RDONLY, 0, 0, &f));
	EXPECT(!ret, "reopen: %s", strerror(-ret));
	if (expect_size(s, f, MiB) || read_check(s, f, 0, MiB, 1))
		return -1;
	n = OP(SOP_WRITE, store_pwrite(s, f, buf, 10, 0));
	EXPECT(n < 0, "write on an O_RDONLY file succeeded");
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
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
		return -1;
	EXPECT(!OP(SOP_TRUNCATE, store_truncate(s, f, 200 * KiB)), "truncate up");
	ret = OP(SOP_READ, store_pread(s, f, buf, 100 * KiB, 100 * KiB));
	z = is_zero(buf, 100 * KiB);
	free(buf);
	EXPECT(ret == 100 * KiB && z, "grown part not zero (read %d)", ret);
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	ret = OP(SOP_OPEN, store_open(s, "devtest-a", O_RDWR | O_TRUNC, 0, 0, &f));
	EXPECT(!ret, "open O_TRUNC: %s", strerror(-ret));
	if (expect_size(s, f, 0) || write_pattern(s, f, 0, MiB, 1))
		return -1;
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
		return -1;
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	ret = OP(SOP_RENAME, store_rename(s, "devtest-a", "devtest-b"));
	EXPECT(!ret, "rename: %s", strerror(-ret));
	EXPECT(!expect_open_err(s, "devtest-a", O_RDONLY, -ENOENT), "");
	/* over an existing file: it is replaced */
	ret = OP(SOP_RENAME, store_rename(s, "devtest-b", "devtest-c"));
	EXPECT(!ret, "rename over: %s", strerror(-ret));
	ret = OP(SOP_OPEN, store_open(s, "devtest-c", O_RDONLY, 0, 0, &f));
	EXPECT(!ret, "open renamed: %s", strerror(-ret));
	if (expect_size(s, f, MiB) || read_check(s, f, 0, MiB, 1))
		return -1;
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
		return -1;
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	EXPECT(!OP(SOP_UNLINK, store_unlink(s, "devtest-old")), "unlink");
	ret = OP(SOP_UNLINK, store_unlink(s, "devtest-old"));
	EXPECT(ret == -ENOENT, "unlink twice: %d", ret);
	ret = OP(SOP_OPEN, store_open(s, "devtest-new", O_CREAT | O_RDWR, 0644, 4 * MiB, &f));
	EXPECT(!ret, "open(devtest-new): %s", strerror(-ret));
	if (write_pattern(s, f, 64 * KiB, 4 * KiB, 5) || expect_size(s, f, 68 * KiB))
		return -1;
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
	if (!(caps & STORE_CAP_SYNC_RANGE) && ++n)
		EXPECT(store_sync_range(s, f, 0, 4096) == -EOPNOTSUPP, "sync_range");
	if (caps & STORE_CAP_SYNC_RANGE)
		EXPECT(!OP(SOP_SYNC_RANGE, store_sync_range(s, f, 0, 4096)), "sync_range");
	EXPECT(!OP(SOP_CLOSE, store_close(s, f)), "close");
	EXPECT(!OP(SOP_UNLINK, store_unlink(s, "devtest-u")), "unlink");
	printf("  %d unsupported operation(s) refused with -EOPNOTSUPP\n", n);
	/* whether a refused call is counted is store.c's business: resync */
	for (op = SOP_MKDIR; op < SOP_NR; op++)
		if (op == SOP_MKDIR || op == SOP_DIRSYNC || op == SOP_SYNC_RANGE) {
			exp_count[op] = s->count[op];
			exp_err[op] = s->errors[op];
		}
	return 0;
}
