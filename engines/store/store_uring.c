/*
 * store_uring.c - the uring backend: liburing on any filesystem io_uring
 * can drive (local disks, NFS, kernel CephFS, ext4 on krbd).
 *
 * One ring per struct store (a store belongs to one thread), of
 * cfg.queue_depth entries. Metadata calls are the posix ones
 * (store_posix.h). Data calls go through the ring even when synchronous
 * (submit, then wait for that CQE), so what is measured is io_uring's path,
 * submission cost included.
 *
 * Asynchronous requests:
 *   write/read      IORING_OP_WRITE / IORING_OP_READ
 *   fsync/fdatasync IORING_OP_FSYNC with IOSQE_IO_DRAIN: io_uring does not
 *                   order requests, and a database's fsync is meant to cover
 *                   the writes it issued before; the drain gives it the
 *                   ordering the posix and aio backends have, without
 *                   blocking the submitter.
 *   SREQ_DATASYNC   the write carries IOSQE_IO_LINK and is followed by an
 *                   IORING_OP_FSYNC(IORING_FSYNC_DATASYNC) of the same file;
 *                   the request completes when both CQEs are in. A failed
 *                   or short write breaks the link and the kernel cancels
 *                   the fsync (-ECANCELED). The result is then the write's
 *                   -errno, or -EIO for a short write: those bytes were not
 *                   made durable, and a byte count would say they were.
 *                   Otherwise it is the fsync's -errno or the bytes written.
 *
 * Completions are reaped at store_reap() time; CQEs of requests met while a
 * synchronous call waits for its own go to the store's done list.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <liburing.h>

#include "store_posix.h"

#define URING_DEFAULT_DEPTH	64
#define URING_MAX_DEPTH		4096
#define URING_EXIT_WAIT_NS	(10ull * 1000000000ull)

/* Low bits of a CQE's user_data: which SQE it answers. */
#define UD_REQ		0ull	/* a request's own SQE; the rest is the request */
#define UD_LINKSYNC	1ull	/* the fdatasync linked behind a SREQ_DATASYNC write */
#define UD_CALL		2ull	/* a synchronous call; the rest is its sequence number */
#define UD_MASK		3ull

/*
 * While a request is in the ring, r->backend_data packs the CQEs it still
 * waits for (low two bits) with the result of its linked fdatasync (the
 * rest, times four); r->result holds the write's or read's result.
 */
#define RQ_PACK(cqes, sres)	((void *)(intptr_t)((intptr_t)(sres) * 4 + (cqes)))
#define RQ_CQES(r)		((int)((intptr_t)(r)->backend_data & 3))
#define RQ_SRES(r)		((int)(((intptr_t)(r)->backend_data - RQ_CQES(r)) / 4))

struct uring_data {
	struct posix_base pb;		/* first: the posix metadata calls use it */
	struct io_uring ring;
	int ring_ok;
	unsigned int depth;		/* requests in the ring at most */
	unsigned int busy;		/* requests in the ring, not completed */
	uint64_t call_seq;		/* the synchronous call being waited for */
	int call_done;
	int call_res;
	int dead;			/* io_uring_enter failed for good: -errno */
};

static int uring_is_transient(int ret)
{
	return ret == -EINTR || ret == -EAGAIN || ret == -EBUSY;
}

/* One CQE: returns the request it completed, or NULL. */
static struct store_req *uring_cqe(struct uring_data *ud,
				   const struct io_uring_cqe *cqe)
{
	uint64_t tag = cqe->user_data & UD_MASK;
	struct store_req *r;
	int cqes, sres;

	if (tag == UD_CALL) {
		if ((cqe->user_data >> 2) == ud->call_seq) {
			ud->call_res = cqe->res;
			ud->call_done = 1;
		}
		return NULL;
	}
	r = (struct store_req *)(uintptr_t)(cqe->user_data & ~UD_MASK);
	cqes = RQ_CQES(r) - 1;
	sres = RQ_SRES(r);
	if (tag == UD_LINKSYNC)
		sres = cqe->res;
	else
		r->result = cqe->res;
	r->backend_data = RQ_PACK(cqes, sres);
	if (cqes > 0)
		return NULL;

	if (r->op == SOP_WRITE && (r->flags & SREQ_DATASYNC) && r->result >= 0) {
		if ((size_t)r->result != r->len)
			r->result = -EIO;	/* short: the link broke, nothing synced */
		else if (sres < 0)
			r->result = sres;
	}
	r->backend_data = NULL;
	ud->busy--;
	return r;
}

/*
 * Take every CQE there is. Completed requests fill out (up to max); the
 * ones beyond go to the done list, which the next store_reap() returns first.
 */
static unsigned int uring_drain(struct store *s, struct store_req **out,
				unsigned int max)
{
	struct uring_data *ud = s->priv;
	struct io_uring_cqe *cqe;
	struct store_req *r;
	unsigned int head, seen = 0, n = 0;

	io_uring_for_each_cqe(&ud->ring, head, cqe) {
		seen++;
		r = uring_cqe(ud, cqe);
		if (!r)
			continue;
		if (n < max)
			out[n++] = r;
		else
			store_complete(s, r);
	}
	io_uring_cq_advance(&ud->ring, seen);
	return n;
}

/* Submit what is queued and wait for a CQE until deadline_ns (0: forever). */
static int uring_wait(struct uring_data *ud, uint64_t deadline_ns)
{
	struct __kernel_timespec ts, *tsp = NULL;
	struct io_uring_cqe *cqe;
	uint64_t now, left;

	if (deadline_ns) {
		now = latstat_now_ns();
		if (now >= deadline_ns)
			return -ETIME;
		left = deadline_ns - now;
		ts.tv_sec = left / 1000000000ull;
		ts.tv_nsec = left % 1000000000ull;
		tsp = &ts;
	}
	return io_uring_submit_and_wait_timeout(&ud->ring, &cqe, 1, tsp, NULL);
}

static struct io_uring_sqe *uring_get_sqe(struct uring_data *ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ud->ring);

	if (!sqe) {
		/* SQEs left over from a submit that failed transiently */
		io_uring_submit(&ud->ring);
		sqe = io_uring_get_sqe(&ud->ring);
	}
	return sqe;
}

/*
 * The SQE for a synchronous data call, or why there is none: the ring
 * failed earlier (ud->dead) or is full (-EBUSY).
 */
static int uring_sync_sqe(struct uring_data *ud, struct io_uring_sqe **sqe)
{
	if (ud->dead)
		return ud->dead;
	*sqe = uring_get_sqe(ud);
	return *sqe ? 0 : -EBUSY;
}

/* Run one prepared SQE to completion: the synchronous data calls. */
static int uring_call(struct store *s, struct io_uring_sqe *sqe)
{
	struct uring_data *ud = s->priv;
	int ret;

	/*
	 * A sequence number, not a pointer to the stack: if the ring dies
	 * with this SQE in it, a late CQE cannot write anywhere.
	 */
	ud->call_seq++;
	ud->call_done = 0;
	io_uring_sqe_set_data64(sqe, ud->call_seq << 2 | UD_CALL);
	for (;;) {
		uring_drain(s, NULL, 0);
		if (ud->call_done)
			return ud->call_res;
		ret = io_uring_submit_and_wait(&ud->ring, 1);
		if (ret < 0 && !uring_is_transient(ret)) {
			ud->dead = ret;
			return ret;
		}
	}
}

static ssize_t uring_pwritev(struct store *s, struct store_file *f,
			     const struct iovec *iov, int iovcnt, uint64_t off)
{
	struct io_uring_sqe *sqe;
	int ret = uring_sync_sqe(s->priv, &sqe);

	if (ret)
		return ret;
	io_uring_prep_writev(sqe, f->fd, iov, iovcnt, off);
	return uring_call(s, sqe);
}

static ssize_t uring_preadv(struct store *s, struct store_file *f,
			    const struct iovec *iov, int iovcnt, uint64_t off)
{
	struct io_uring_sqe *sqe;
	int ret = uring_sync_sqe(s->priv, &sqe);

	if (ret)
		return ret;
	io_uring_prep_readv(sqe, f->fd, iov, iovcnt, off);
	return uring_call(s, sqe);
}

/* Every flush of this backend (call, request, linked pair) is prepared here. */
static void uring_prep_flush(struct io_uring_sqe *sqe, int fd, int datasync)
{
	io_uring_prep_fsync(sqe, fd, datasync ? IORING_FSYNC_DATASYNC : 0);
}

static int uring_fsync(struct store *s, struct store_file *f, int datasync)
{
	struct io_uring_sqe *sqe;
	int ret = uring_sync_sqe(s->priv, &sqe);

	if (ret)
		return ret;
	uring_prep_flush(sqe, f->fd, datasync);
	return uring_call(s, sqe);
}

/* Fill the request's SQE(s); the ring has room for both. */
static void uring_prep_req(struct uring_data *ud, struct store_req *r, int linked)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ud->ring);
	int fd = r->file->fd;

	switch (r->op) {
	case SOP_WRITE:
		io_uring_prep_write(sqe, fd, r->buf, r->len, r->off);
		break;
	case SOP_READ:
		io_uring_prep_read(sqe, fd, r->buf, r->len, r->off);
		break;
	default:
		uring_prep_flush(sqe, fd, r->op == SOP_FDATASYNC);
		/* cover every request submitted before it, as posix and aio do */
		sqe->flags |= IOSQE_IO_DRAIN;
		break;
	}
	io_uring_sqe_set_data64(sqe, (uintptr_t)r | UD_REQ);
	if (!linked)
		return;
	sqe->flags |= IOSQE_IO_LINK;
	sqe = io_uring_get_sqe(&ud->ring);
	uring_prep_flush(sqe, fd, 1);
	io_uring_sqe_set_data64(sqe, (uintptr_t)r | UD_LINKSYNC);
}

static int uring_submit(struct store *s, struct store_req *r)
{
	struct uring_data *ud = s->priv;
	int linked = r->op == SOP_WRITE && (r->flags & SREQ_DATASYNC);
	int ret;

	if (ud->dead)
		return ud->dead;
	if (r->op != SOP_WRITE && r->op != SOP_READ && r->op != SOP_FSYNC &&
	    r->op != SOP_FDATASYNC)
		return -EINVAL;
	if (r->len > UINT32_MAX)
		return -EINVAL;
	if (ud->busy >= ud->depth ||
	    io_uring_sq_space_left(&ud->ring) < 1u + linked)
		return -EBUSY;

	r->result = 0;
	r->backend_data = RQ_PACK(1 + linked, 0);
	uring_prep_req(ud, r, linked);
	ud->busy++;
	ret = io_uring_submit(&ud->ring);
	/* transient: the SQEs stay queued, the next wait submits them */
	if (ret < 0 && !uring_is_transient(ret)) {
		ud->dead = ret;
		return ret;
	}
	return 0;
}

static int uring_reap(struct store *s, unsigned int min, unsigned int max,
		      struct store_req **out, int64_t timeout_ns)
{
	struct uring_data *ud = s->priv;
	uint64_t deadline = 0;
	unsigned int n;
	int ret;

	if (timeout_ns > 0)
		deadline = latstat_now_ns() + timeout_ns;
	if (io_uring_sq_ready(&ud->ring) && !ud->dead)
		io_uring_submit(&ud->ring);
	n = uring_drain(s, out, max);
	while (n < min && n < max && ud->busy && timeout_ns && !ud->dead) {
		ret = uring_wait(ud, deadline);
		if (ret == -ETIME)
			break;
		if (ret < 0 && !uring_is_transient(ret))
			ud->dead = ret;
		else
			n += uring_drain(s, out + n, max - n);
	}
	/*
	 * A dead ring completes nothing again: say so, or a caller waiting
	 * for its requests would get 0 forever (spinning, deaf to SIGINT).
	 */
	return !n && ud->dead ? ud->dead : (int)n;
}

static int uring_init(struct store *s, char *err, size_t errlen)
{
	struct io_uring_params p;
	struct uring_data *ud;
	unsigned int entries;
	int ret;

	ud = calloc(1, sizeof(*ud));
	if (!ud)
		return -ENOMEM;
	ud->depth = s->cfg.queue_depth ? s->cfg.queue_depth : URING_DEFAULT_DEPTH;
	if (ud->depth > URING_MAX_DEPTH) {
		snprintf(err, errlen, "uring: queue_depth=%u is over %u",
			 ud->depth, URING_MAX_DEPTH);
		ret = -EINVAL;
		goto err_free;
	}
	ret = posix_base_init(&ud->pb, &s->cfg, "uring", err, errlen);
	if (ret)
		goto err_free;

	/* a linked pair takes two SQEs; every request may have two CQEs out */
	entries = ud->depth < 2 ? 2 : ud->depth;
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = 2 * entries + 2;
	ret = io_uring_queue_init_params(entries, &ud->ring, &p);
	if (ret < 0) {
		snprintf(err, errlen, "uring: io_uring_queue_init(%u) failed: %s%s",
			 entries, strerror(-ret), ret == -EPERM ?
			 " (kernel.io_uring_disabled, or a seccomp policy?)" : "");
		goto err_base;
	}
	ud->ring_ok = 1;
	s->priv = ud;
	return 0;

err_base:
	posix_base_exit(&ud->pb);
err_free:
	free(ud);
	return ret;
}

static void uring_exit(struct store *s)
{
	struct uring_data *ud = s->priv;
	uint64_t deadline;
	int ret;

	if (!ud)
		return;
	/*
	 * The kernel may still be writing into the caller's buffers, which
	 * are freed after this returns, and tearing the ring down does not
	 * wait for that: wait for the requests here.
	 */
	deadline = latstat_now_ns() + URING_EXIT_WAIT_NS;
	while (ud->ring_ok && ud->busy && !ud->dead) {
		ret = uring_wait(ud, deadline);
		if (ret < 0 && !uring_is_transient(ret)) {
			fprintf(stderr, "uring: exit with %u requests in flight: %s\n",
				ud->busy, strerror(-ret));
			break;
		}
		uring_drain(s, NULL, 0);
	}
	if (ud->ring_ok) {
		io_uring_queue_exit(&ud->ring);
		ud->ring_ok = 0;
	}
	posix_base_exit(&ud->pb);
	free(ud);
	s->priv = NULL;
}

const struct store_ops store_uring_ops = {
	.name		= "uring",
	.caps		= STORE_CAP_ASYNC | STORE_CAP_LINKED_SYNC | STORE_CAP_DIRECT |
			  STORE_CAP_RENAME | STORE_CAP_MKDIR | STORE_CAP_DIRSYNC |
			  STORE_CAP_SYNC_RANGE | STORE_CAP_TRUNCATE |
			  STORE_CAP_NAMESPACE | STORE_CAP_LOCAL_DIR | STORE_CAP_OPEN_SYNC,
	.init		= uring_init,
	.exit		= uring_exit,
	.open		= posix_open,
	.close		= posix_close,
	.pwritev	= uring_pwritev,
	.preadv		= uring_preadv,
	.fsync		= uring_fsync,
	.unlink		= posix_unlink,
	.mkdir		= posix_mkdir,
	.rmdir		= posix_rmdir,
	.rename		= posix_rename,
	.dirsync	= posix_dirsync,
	.fstat		= posix_fstat,
	.size		= posix_size,
	.fallocate	= posix_falloc,
	.lookup		= posix_lookup,
	.sync_range	= posix_sync_range,
	.truncate	= posix_truncate,
	.truncate_path	= posix_truncate_path,
	.submit		= uring_submit,
	.reap		= uring_reap,
};
