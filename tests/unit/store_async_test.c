/*
 * store_async_test.c - the store layer's asynchronous path, on any backend.
 * Description: store submit/reap: depth, -EBUSY, linked fdatasync, errors, counts
 *
 * Build and run from the top of the tree:
 *
 *	gcc -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Iengines \
 *		-DCONFIG_LIBURING -DCONFIG_LIBAIO tests/unit/store_async_test.c \
 *		engines/store/store.c engines/store/store_phase.c engines/store/store_posix.c \
 *		engines/store/store_uring.c \
 *		engines/store/store_aio.c engines/store/latstat.c -luring -laio \
 *		-o store_async_test
 *	./store_async_test --store=uring --dir=/tmp/x [--direct] [--depth=32]
 *	./store_async_test --store=uring --dir=/tmp/x --bench=2000
 *
 * Only the generic store_* calls are used: 256 4 KiB writes at depth 32
 * or --depth (submitting until -EBUSY, then reaping), read back and
 * compared, writes with SREQ_DATASYNC, fsync/fdatasync requests, requests
 * that fail, short writes, and the per-operation counters and latency
 * counts checked against what was done, in all and per phase (the syncs
 * run in a phase of their own: store_set_phase; an asynchronous request is
 * charged to the phase it was submitted in). --bench=N then times N 4 KiB write+fdatasync pairs at depth 1, as
 * one SREQ_DATASYNC request and as two synchronous calls.
 *
 * Exit 0 pass, 1 fail, 77 skip (backend not built or not permitted here,
 * no O_DIRECT on --dir), with the reason on stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "store/store.h"
#include "check.h"

#define BS		4096
#define NBLOCKS		256
#define NSYNCED		16
#define DEPTH		32	/* default --depth */
#define REAP_NS		(10ll * 1000000000ll)
#define FILE_NAME	"store_async_test.dat"

struct test {
	struct store *s;
	struct store_file *f;
	struct store_req reqs[NBLOCKS];
	unsigned char *wbuf, *rbuf;
	uint64_t count[SOP_NR], errors[SOP_NR];	/* what the store should have counted */
	unsigned int depth;		/* cfg.queue_depth */
	int busy_seen;
	unsigned int max_out;
};

static void req_init(struct store_req *r, enum store_op op, struct store_file *f,
		     void *buf, uint64_t off, unsigned int flags)
{
	store_req_prep(r, op, f, buf, buf ? BS : 0, off, flags);
}

/*
 * Submit reqs[0..n) as fast as the store takes them, reaping when it
 * answers -EBUSY; every request must come back exactly once.
 */
static int run_batch(struct test *t, struct store_req *reqs, int n)
{
	struct store_req *done[64];
	unsigned char seen[NBLOCKS] = { 0 };
	unsigned int out = 0;
	int next = 0, left = n, ret, i, idx;

	while (left > 0) {
		if (next < n) {
			ret = store_submit(t->s, &reqs[next]);
			if (!ret) {
				next++;
				if (++out > t->max_out)
					t->max_out = out;
				continue;
			}
			if (ret != -EBUSY)
				FAIL("store_submit(%s #%d): %s",
				     store_op_name(reqs[next].op), next, strerror(-ret));
			t->busy_seen++;
		}
		ret = store_reap(t->s, 1, 64, done, REAP_NS);
		if (ret < 0)
			FAIL("store_reap: %s", strerror(-ret));
		if (ret == 0)
			FAIL("store_reap: nothing completed in 10 s (%d left)", left);
		for (i = 0; i < ret; i++) {
			idx = done[i] - reqs;
			if (idx < 0 || idx >= n || seen[idx]++)
				FAIL("store_reap returned a request twice or a stranger");
		}
		out -= ret;
		left -= ret;
	}
	return 0;
}

static int check_results(struct store_req *reqs, int n, ssize_t want, const char *what)
{
	int i;

	for (i = 0; i < n; i++)
		if (reqs[i].result != want)
			FAIL("%s #%d: result %zd, want %zd%s%s", what, i, reqs[i].result,
			     want, reqs[i].result < 0 ? ": " : "",
			     reqs[i].result < 0 ? strerror(-reqs[i].result) : "");
	return 0;
}

/* 256 writes at depth 32, then 256 reads, compared. */
static int test_write_read(struct test *t, int async)
{
	int i;

	for (i = 0; i < NBLOCKS * BS; i++)
		t->wbuf[i] = (unsigned char)(i / BS * 7 + i % 251);
	for (i = 0; i < NBLOCKS; i++)
		req_init(&t->reqs[i], SOP_WRITE, t->f, t->wbuf + i * BS, (uint64_t)i * BS, 0);
	if (run_batch(t, t->reqs, NBLOCKS) ||
	    check_results(t->reqs, NBLOCKS, BS, "write"))
		return T_EXIT_FAIL;
	t->count[SOP_WRITE] += NBLOCKS;
	if (async && !t->busy_seen)
		FAIL("an asynchronous backend never answered -EBUSY at depth %u", t->depth);
	if (async && t->max_out > t->depth)
		FAIL("%u requests in flight at queue_depth=%u", t->max_out, t->depth);

	memset(t->rbuf, 0, NBLOCKS * BS);
	for (i = 0; i < NBLOCKS; i++)
		req_init(&t->reqs[i], SOP_READ, t->f, t->rbuf + i * BS, (uint64_t)i * BS, 0);
	if (run_batch(t, t->reqs, NBLOCKS) ||
	    check_results(t->reqs, NBLOCKS, BS, "read"))
		return T_EXIT_FAIL;
	t->count[SOP_READ] += NBLOCKS;
	for (i = 0; i < NBLOCKS; i++)
		if (memcmp(t->wbuf + i * BS, t->rbuf + i * BS, BS))
			FAIL("block %d read back differs from what was written", i);
	return 0;
}

static const char *const phase_names[] = { "main", "syncs" };

/* SREQ_DATASYNC writes past the first 256 blocks, then fsync requests: phase 1. */
static int test_syncs(struct test *t)
{
	uint64_t size = 0;
	int i, ret;

	store_set_phase(t->s, 1);
	for (i = 0; i < NSYNCED; i++)
		req_init(&t->reqs[i], SOP_WRITE, t->f, t->wbuf + i * BS,
			 (uint64_t)(NBLOCKS + i) * BS, SREQ_DATASYNC);
	if (run_batch(t, t->reqs, NSYNCED) ||
	    check_results(t->reqs, NSYNCED, BS, "SREQ_DATASYNC write"))
		return T_EXIT_FAIL;
	t->count[SOP_WRITE] += NSYNCED;
	t->count[SOP_FDATASYNC] += NSYNCED;

	req_init(&t->reqs[0], SOP_FSYNC, t->f, NULL, 0, 0);
	req_init(&t->reqs[1], SOP_FDATASYNC, t->f, NULL, 0, 0);
	if (run_batch(t, t->reqs, 2) || check_results(t->reqs, 2, 0, "fsync request"))
		return T_EXIT_FAIL;
	t->count[SOP_FSYNC]++;
	t->count[SOP_FDATASYNC]++;

	ret = store_fstat(t->s, t->f, &size);
	t->count[SOP_FSTAT]++;
	if (ret)
		FAIL("store_fstat: %s", strerror(-ret));
	if (size != (uint64_t)(NBLOCKS + NSYNCED) * BS)
		FAIL("file size %" PRIu64 " after the writes, want %d", size,
		     (NBLOCKS + NSYNCED) * BS);
	return 0;
}

/* The synchronous calls next to the asynchronous ones. */
static int test_sync_calls(struct test *t)
{
	ssize_t ret;

	store_set_phase(t->s, 0);
	ret = store_pwrite(t->s, t->f, t->wbuf, BS, 3 * BS);
	t->count[SOP_WRITE]++;
	if (ret != BS)
		FAIL("store_pwrite: %zd", ret);
	ret = store_fdatasync(t->s, t->f);
	t->count[SOP_FDATASYNC]++;
	if (ret)
		FAIL("store_fdatasync: %s", strerror(-ret));
	ret = store_pread(t->s, t->f, t->rbuf, BS, 3 * BS);
	t->count[SOP_READ]++;
	if (ret != BS || memcmp(t->rbuf, t->wbuf, BS))
		FAIL("store_pread: %zd, or the data differs", ret);
	ret = store_fsync(t->s, t->f);
	t->count[SOP_FSYNC]++;
	if (ret)
		FAIL("store_fsync: %s", strerror(-ret));
	return 0;
}

/* Requests that fail complete with -errno in result; nothing crashes. */
static int test_errors(struct test *t)
{
	struct store_file *ro, *wo;
	ssize_t ret;

	ret = store_open(t->s, FILE_NAME, O_RDONLY, 0, 0, &ro);
	t->count[SOP_OPEN]++;
	if (ret)
		FAIL("store_open(O_RDONLY): %s", strerror(-ret));
	ret = store_open(t->s, FILE_NAME, O_WRONLY, 0, 0, &wo);
	t->count[SOP_OPEN]++;
	if (ret)
		FAIL("store_open(O_WRONLY): %s", strerror(-ret));

	req_init(&t->reqs[0], SOP_WRITE, ro, t->wbuf, 0, 0);
	req_init(&t->reqs[1], SOP_READ, wo, t->rbuf, 0, 0);
	req_init(&t->reqs[2], SOP_WRITE, ro, t->wbuf, 0, SREQ_DATASYNC);
	if (run_batch(t, t->reqs, 3))
		return T_EXIT_FAIL;
	t->count[SOP_WRITE] += 2;
	t->count[SOP_READ]++;
	t->errors[SOP_WRITE] += 2;
	t->errors[SOP_READ]++;
	/*
	 * A failed SREQ_DATASYNC write: an asynchronous backend counts its
	 * fdatasync at submit and fails it too; the emulation never calls it.
	 */
	if (store_caps(t->s) & STORE_CAP_ASYNC) {
		t->count[SOP_FDATASYNC]++;
		t->errors[SOP_FDATASYNC]++;
	}
	if (t->reqs[0].result != -EBADF || t->reqs[1].result != -EBADF ||
	    t->reqs[2].result != -EBADF)
		FAIL("write to O_RDONLY / read from O_WRONLY / linked write: "
		     "results %zd, %zd, %zd, want -EBADF", t->reqs[0].result,
		     t->reqs[1].result, t->reqs[2].result);

	ret = store_pwrite(t->s, ro, t->wbuf, BS, 0);
	t->count[SOP_WRITE]++;
	t->errors[SOP_WRITE]++;
	if (ret >= 0)
		FAIL("store_pwrite to an O_RDONLY file returned %zd", ret);

	store_close(t->s, ro);
	store_close(t->s, wo);
	t->count[SOP_CLOSE] += 2;
	return 0;
}

/*
 * Short writes, made with RLIMIT_FSIZE: a plain one reports its count; a
 * linked one reports -EIO on uring (the link broke, nothing was synced)
 * and elsewhere its count, fdatasync'ed. On a backend without its own
 * asynchronous path the store's synchronous write continues a short write,
 * so both report what stopped it: -EFBIG. Buffered only: O_DIRECT cannot
 * write the half block.
 */
static int test_short_write(struct test *t)
{
	uint64_t off = (uint64_t)(NBLOCKS + NSYNCED + 1) * BS;
	int linked = !!(store_caps(t->s) & STORE_CAP_LINKED_SYNC);
	struct rlimit old, lim;
	ssize_t want, plain;

	if (getrlimit(RLIMIT_FSIZE, &old))
		FAIL("getrlimit: %s", strerror(errno));
	lim = old;
	lim.rlim_cur = off + BS / 2;
	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &lim))
		FAIL("setrlimit(RLIMIT_FSIZE): %s", strerror(errno));
	req_init(&t->reqs[0], SOP_WRITE, t->f, t->wbuf, off, 0);
	req_init(&t->reqs[1], SOP_WRITE, t->f, t->wbuf, off, SREQ_DATASYNC);
	if (run_batch(t, t->reqs, 2))
		return T_EXIT_FAIL;
	setrlimit(RLIMIT_FSIZE, &old);
	t->count[SOP_WRITE] += 2;
	t->count[SOP_FDATASYNC]++;
	if (linked) {
		t->errors[SOP_WRITE]++;
		t->errors[SOP_FDATASYNC]++;
	}
	want = linked ? -EIO : BS / 2;
	plain = BS / 2;
	if (!(store_caps(t->s) & STORE_CAP_ASYNC)) {
		plain = want = -EFBIG;
		t->errors[SOP_WRITE] += 2;
		t->count[SOP_FDATASYNC]--;	/* a failed write is not synced */
	}
	if (t->reqs[0].result != plain || t->reqs[1].result != want)
		FAIL("short writes: results %zd, %zd; want %zd, %zd",
		     t->reqs[0].result, t->reqs[1].result, plain, want);
	return 0;
}

/* Nothing in flight: reap must not wait for what will never come. */
static int test_empty_reap(struct test *t)
{
	struct store_req *done[4];
	uint64_t t0 = latstat_now_ns();
	int ret;

	ret = store_reap(t->s, 1, 4, done, 200 * 1000000ll);
	if (ret != 0)
		FAIL("store_reap with nothing in flight returned %d", ret);
	if (latstat_now_ns() - t0 > 1000000000ull)
		FAIL("store_reap with nothing in flight waited over 1 s");
	return 0;
}

/* Phase 1 holds test_syncs' calls exactly; both phases add up to the totals. */
static int check_phases(struct test *t)
{
	const uint64_t *p0 = store_phase_counts(t->s, 0), *p1 = store_phase_counts(t->s, 1);
	const struct latstat *l1 = store_phase_lat(t->s, 1);
	uint64_t want1[SOP_NR] = { 0 };
	int op;

	want1[SOP_WRITE] = NSYNCED;
	want1[SOP_FDATASYNC] = NSYNCED + 1;
	want1[SOP_FSYNC] = 1;
	want1[SOP_FSTAT] = 1;
	if (!p0 || !p1 || !l1)
		FAIL("no phase counts or latencies after store_phases_init");
	for (op = 0; op < SOP_NR; op++) {
		/* the open came before store_phases_init: in the totals only */
		uint64_t before = op == SOP_OPEN;

		if (p1[op] != want1[op])
			FAIL("phase syncs: %s counted %" PRIu64 ", want %" PRIu64,
			     store_op_name(op), p1[op], want1[op]);
		if (p0[op] + p1[op] + before != t->s->count[op])
			FAIL("%s: phases %" PRIu64 " + %" PRIu64 " != total %" PRIu64,
			     store_op_name(op), p0[op], p1[op], t->s->count[op]);
	}
	if (l1[SOP_WRITE].count != NSYNCED || l1[SOP_FSYNC].count != 1)
		FAIL("phase syncs: %" PRIu64 " writes, %" PRIu64 " fsyncs timed; want %d, 1",
		     l1[SOP_WRITE].count, l1[SOP_FSYNC].count, NSYNCED);
	return 0;
}

static int check_counts(struct test *t)
{
	struct store *s = t->s;
	int op;

	for (op = 0; op < SOP_NR; op++) {
		if (s->count[op] != t->count[op] || s->errors[op] != t->errors[op])
			FAIL("%s: counted %" PRIu64 " calls, %" PRIu64 " errors; want %"
			     PRIu64 ", %" PRIu64, store_op_name(op), s->count[op],
			     s->errors[op], t->count[op], t->errors[op]);
	}
	/* every write and read is timed, a linked pair as one write */
	if (s->lat[SOP_WRITE].count != s->count[SOP_WRITE] ||
	    s->lat[SOP_READ].count != s->count[SOP_READ])
		FAIL("latency samples: %" PRIu64 " writes, %" PRIu64 " reads timed",
		     s->lat[SOP_WRITE].count, s->lat[SOP_READ].count);
	if (s->inflight)
		FAIL("store says %u requests still in flight", s->inflight);
	return check_phases(t);
}

static void bench_line(const char *what, const struct latstat *ls)
{
	printf("  %-34s n=%-6" PRIu64 " avg=%7.1f us  p50=%7.1f us  p99=%7.1f us\n",
	       what, ls->count, latstat_mean(ls) / 1e3,
	       latstat_percentile(ls, 50) / 1e3, latstat_percentile(ls, 99) / 1e3);
}

/* 4 KiB write + fdatasync at depth 1: one SREQ_DATASYNC request, then two calls. */
static int bench(struct test *t, int n, const char *name)
{
	struct latstat req, calls;
	struct store_req *done[1];
	uint64_t t0, off;
	int i, ret;

	latstat_reset(&req);
	latstat_reset(&calls);
	for (i = 0; i < n; i++) {
		off = (uint64_t)(i % 64) * BS;
		req_init(&t->reqs[0], SOP_WRITE, t->f, t->wbuf, off, SREQ_DATASYNC);
		t0 = latstat_now_ns();
		ret = store_submit(t->s, &t->reqs[0]);
		if (!ret && store_reap(t->s, 1, 1, done, REAP_NS) != 1)
			ret = -ETIME;
		if (ret || t->reqs[0].result != BS)
			FAIL("bench: SREQ_DATASYNC write: %d, result %zd", ret,
			     t->reqs[0].result);
		latstat_add(&req, latstat_now_ns() - t0);

		t0 = latstat_now_ns();
		if (store_pwrite(t->s, t->f, t->wbuf, BS, off) != BS ||
		    store_fdatasync(t->s, t->f))
			FAIL("bench: store_pwrite + store_fdatasync failed");
		latstat_add(&calls, latstat_now_ns() - t0);
	}
	printf("bench store=%s direct=%d, 4 KiB write+fdatasync, depth 1:\n",
	       name, t->s->cfg.direct);
	bench_line("SREQ_DATASYNC request", &req);
	bench_line("store_pwrite + store_fdatasync", &calls);
	return 0;
}

static int run(struct test *t, int direct)
{
	int async = !!(store_caps(t->s) & STORE_CAP_ASYNC);
	int ret;

	ret = store_open(t->s, FILE_NAME, O_CREAT | O_RDWR | O_TRUNC, 0644, 0, &t->f);
	t->count[SOP_OPEN]++;
	if (ret == -EINVAL && direct)
		SKIP("O_DIRECT not supported in %s", t->s->cfg.root);
	if (ret)
		FAIL("store_open(%s): %s", FILE_NAME, strerror(-ret));
	ret = store_phases_init(t->s, phase_names, 2);
	if (ret)
		FAIL("store_phases_init: %s", strerror(-ret));
	if (test_write_read(t, async) || test_syncs(t) || test_sync_calls(t) ||
	    test_errors(t) || (!direct && test_short_write(t)) ||
	    test_empty_reap(t) || check_counts(t))
		return T_EXIT_FAIL;
	printf("ok: store=%s direct=%d: %d writes and reads at depth %u (-EBUSY %d "
	       "times, %u in flight at most), %d linked fdatasyncs, errors, counts\n",
	       store_backend_name(t->s->cfg.backend), direct, NBLOCKS, t->depth,
	       t->busy_seen, t->max_out, NSYNCED);
	return 0;
}

static int usage(const char *prog, int rc)
{
	printf("usage: %s --store=posix|uring|aio --dir=DIR [--direct] [--depth=N] "
	       "[--bench=N]\n", prog);
	return rc;
}

static int skip_init(int backend, int ret)
{
	if (backend == STORE_URING)
		return ret == -EPERM || ret == -ENOSYS || ret == -EACCES;
	if (backend == STORE_AIO)
		return ret == -ENOSYS || ret == -EAGAIN;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "dir", required_argument, NULL, 'd' },
		{ "direct", no_argument, NULL, 'D' },
		{ "depth", required_argument, NULL, 'q' },
		{ "bench", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct store_config cfg = { .queue_depth = DEPTH, .timing = 1 };
	const char *name = NULL;
	struct test t = { 0 };
	char err[256];
	int c, backend, nbench = 0, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': name = optarg; break;
		case 'd': cfg.root = optarg; break;
		case 'D': cfg.direct = 1; break;
		case 'q': cfg.queue_depth = atoi(optarg); break;
		case 'b': nbench = atoi(optarg); break;
		case 'h': return usage(argv[0], 0);
		default: return usage(argv[0], 1);
		}
	}
	if (!name || !cfg.root)
		return usage(argv[0], 1);
	backend = store_backend_parse(name);
	if (backend < 0)
		SKIP("store=%s not built (built: %s)", name, store_backends_built());
	cfg.backend = backend;
	t.depth = cfg.queue_depth;
	rc = store_init(&t.s, &cfg, err, sizeof(err));
	if (rc && skip_init(backend, rc))
		SKIP("%s", err);
	if (rc)
		FAIL("%s", err);
	if (posix_memalign((void **)&t.wbuf, BS, NBLOCKS * BS) ||
	    posix_memalign((void **)&t.rbuf, BS, NBLOCKS * BS))
		FAIL("out of memory");
	rc = run(&t, cfg.direct);
	if (!rc && nbench > 0)
		rc = bench(&t, nbench, name);
	if (t.f)
		store_close(t.s, t.f);
	store_unlink(t.s, FILE_NAME);
	store_exit(t.s);
	free(t.wbuf);
	free(t.rbuf);
	return rc;
}
