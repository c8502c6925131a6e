/*
 * store_aio.c - the aio backend: Linux native AIO through libaio, as InnoDB
 * (innodb_use_native_aio) and fio's libaio engine use it.
 *
 * One io context per struct store (a store belongs to one thread), of
 * cfg.queue_depth requests. Metadata calls are the posix ones
 * (store_posix.h); reads and writes, synchronous or not, go through
 * io_submit/io_getevents.
 *
 * Linux AIO is only asynchronous for O_DIRECT files (cfg.direct): on a
 * buffered file io_submit does the copy itself and returns with the I/O
 * complete, so a queue depth buys nothing there. That is the real
 * behaviour a libaio database sees, and what this backend measures.
 *
 * fsync and fdatasync requests are synchronous, after in-flight I/O drained
 * (fio's libaio engine does the same): a database's fsync must cover the
 * writes it issued before it, and Linux AIO does not order requests, so an
 * IOCB_CMD_FSYNC next to in-flight writes would not. The drained
 * completions wait on the store's done list for the next store_reap().
 *
 * SREQ_DATASYNC: libaio cannot link requests, so the write is submitted,
 * waited for, then fdatasync'ed by a syscall, all inside store_submit().
 * Only that write is waited for, not the other requests in flight. Hence
 * no STORE_CAP_LINKED_SYNC. A short write is still fdatasync'ed and
 * reported as its byte count, like the posix backend (uring reports -EIO:
 * its link breaks and nothing is synced).
 *
 * A request io_submit refuses (say -EBADF: a write to a file opened
 * O_RDONLY) completes with that error, as it would on uring; store_submit
 * only refuses with -EBUSY.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libaio.h>

#include "store_posix.h"

#define AIO_DEFAULT_DEPTH	64

/* r->backend_data while its iocb is in the kernel */
#define AIO_INFLIGHT		((void *)1)

struct aio_data {
	struct posix_base pb;		/* first: the posix metadata calls use it */
	io_context_t ctx;
	int ctx_ok;
	unsigned int depth;		/* requests in flight at most */
	unsigned int nevents;		/* depth + one synchronous call */
	unsigned int busy;		/* iocbs submitted, events not read */
	struct io_event *events;
	struct store_req call;		/* what a synchronous call waits for */
	int dead;			/* io_getevents failed for good: -errno */
};

/*
 * The kernel copies the iocb (and imports its iovec) inside io_submit and
 * only echoes iocb->data back, so the iocb can live on the caller's stack.
 */
static int aio_submit_one(struct aio_data *ad, struct iocb *iocb,
			  struct store_req *r)
{
	struct iocb *iocbs[1] = { iocb };
	int ret;

	iocb->data = r;
	r->backend_data = AIO_INFLIGHT;
	do {
		ret = io_submit(ad->ctx, 1, iocbs);
	} while (ret == -EINTR);
	if (ret == 1) {
		ad->busy++;
		return 0;
	}
	r->backend_data = NULL;
	return ret < 0 ? ret : -EAGAIN;
}

static struct store_req *aio_event(struct aio_data *ad, const struct io_event *ev)
{
	struct store_req *r = ev->data;

	r->result = (long)ev->res;
	r->backend_data = NULL;
	ad->busy--;
	return r;
}

/*
 * Read events until want completed (want NULL: until nothing is in
 * flight). Other completed requests go to the done list.
 */
static int aio_wait(struct store *s, struct store_req *want)
{
	struct aio_data *ad = s->priv;
	struct store_req *r;
	int i, ret;

	while (want ? want->backend_data != NULL : ad->busy > 0) {
		ret = io_getevents(ad->ctx, 1, ad->nevents, ad->events, NULL);
		if (ret == -EINTR)
			continue;
		if (ret < 0) {
			ad->dead = ret;
			return ret;
		}
		for (i = 0; i < ret; i++) {
			r = aio_event(ad, &ad->events[i]);
			if (r != want && r != &ad->call)
				store_complete(s, r);
		}
	}
	return 0;
}

/* A synchronous read or write: submit, then wait for that one event. */
static ssize_t aio_call(struct store *s, struct iocb *iocb)
{
	struct aio_data *ad = s->priv;
	int ret;

	if (ad->dead)
		return ad->dead;
	ret = aio_submit_one(ad, iocb, &ad->call);
	if (ret)
		return ret;
	ret = aio_wait(s, &ad->call);
	return ret ? ret : ad->call.result;
}

static ssize_t aio_pwritev(struct store *s, struct store_file *f,
			   const struct iovec *iov, int iovcnt, uint64_t off)
{
	struct iocb iocb;

	io_prep_pwritev(&iocb, f->fd, iov, iovcnt, off);
	return aio_call(s, &iocb);
}

static ssize_t aio_preadv(struct store *s, struct store_file *f,
			  const struct iovec *iov, int iovcnt, uint64_t off)
{
	struct iocb iocb;

	io_prep_preadv(&iocb, f->fd, iov, iovcnt, off);
	return aio_call(s, &iocb);
}

/* Every flush of this backend (call, request, SREQ_DATASYNC) goes through here. */
static int aio_flush(struct store *s, struct store_file *f, int datasync)
{
	return posix_fsync(s, f, datasync);
}

/* An fsync/fdatasync request: drain, then the syscall (see the header). */
static void aio_run_fsync(struct store *s, struct store_req *r)
{
	int ret = aio_wait(s, NULL);

	if (!ret)
		ret = aio_flush(s, r->file, r->op == SOP_FDATASYNC);
	r->result = ret;
	store_complete(s, r);
}

/* SREQ_DATASYNC: the write is in the kernel; wait for it, then fdatasync. */
static void aio_finish_datasync(struct store *s, struct store_req *r)
{
	int ret = aio_wait(s, r);

	if (ret < 0)
		r->result = ret;
	else if (r->result >= 0) {
		ret = aio_flush(s, r->file, 1);
		if (ret < 0)
			r->result = ret;
	}
	store_complete(s, r);
}

static int aio_submit(struct store *s, struct store_req *r)
{
	struct aio_data *ad = s->priv;
	struct iocb iocb;
	int ret;

	if (ad->dead)
		return ad->dead;
	switch (r->op) {
	case SOP_FSYNC:
	case SOP_FDATASYNC:
		aio_run_fsync(s, r);
		return 0;
	case SOP_WRITE:
		io_prep_pwrite(&iocb, r->file->fd, r->buf, r->len, r->off);
		break;
	case SOP_READ:
		io_prep_pread(&iocb, r->file->fd, r->buf, r->len, r->off);
		break;
	default:
		return -EINVAL;
	}
	if (ad->busy >= ad->depth)
		return -EBUSY;

	r->result = 0;
	ret = aio_submit_one(ad, &iocb, r);
	if (ret == -EAGAIN)
		return -EBUSY;
	if (ret < 0) {
		r->result = ret;
		store_complete(s, r);
		return 0;
	}
	if (r->op == SOP_WRITE && (r->flags & SREQ_DATASYNC))
		aio_finish_datasync(s, r);
	return 0;
}

static struct timespec *aio_timeout(struct timespec *ts, uint64_t deadline)
{
	uint64_t now = latstat_now_ns();
	uint64_t left = deadline > now ? deadline - now : 0;

	ts->tv_sec = left / 1000000000ull;
	ts->tv_nsec = left % 1000000000ull;
	return ts;
}

static int aio_reap(struct store *s, unsigned int min, unsigned int max,
		    struct store_req **out, int64_t timeout_ns)
{
	struct aio_data *ad = s->priv;
	struct timespec ts, *tsp = NULL;
	uint64_t deadline = 0;
	struct store_req *r;
	unsigned int n = 0, want, nr;
	int i, ret;

	if (timeout_ns >= 0)
		deadline = latstat_now_ns() + timeout_ns;
	while (ad->busy && n < max && !ad->dead) {
		want = n < min ? min - n : 0;
		if (want > ad->busy)
			want = ad->busy;
		nr = max - n < ad->nevents ? max - n : ad->nevents;
		if (want > nr)
			want = nr;
		if (timeout_ns >= 0)
			tsp = aio_timeout(&ts, deadline);
		ret = io_getevents(ad->ctx, want, nr, ad->events, tsp);
		if (ret == -EINTR)
			continue;
		if (ret < 0) {
			ad->dead = ret;
			break;
		}
		for (i = 0; i < ret; i++) {
			r = aio_event(ad, &ad->events[i]);
			if (r != &ad->call)	/* left by a failed call */
				out[n++] = r;
		}
		if (n >= min || (unsigned int)ret < want)
			break;
	}
	/* a dead context completes nothing again: an error, never 0 forever */
	return !n && ad->dead ? ad->dead : (int)n;
}

static int aio_init(struct store *s, char *err, size_t errlen)
{
	struct aio_data *ad;
	int ret;

	ad = calloc(1, sizeof(*ad));
	if (!ad)
		return -ENOMEM;
	ad->depth = s->cfg.queue_depth ? s->cfg.queue_depth : AIO_DEFAULT_DEPTH;
	ad->nevents = ad->depth + 1;
	ret = posix_base_init(&ad->pb, &s->cfg, "aio", err, errlen);
	if (ret)
		goto err_free;
	ad->events = calloc(ad->nevents, sizeof(*ad->events));
	if (!ad->events) {
		ret = -ENOMEM;
		goto err_base;
	}
	ret = io_setup(ad->nevents, &ad->ctx);
	if (ret < 0) {
		snprintf(err, errlen, "aio: io_setup(%u) failed: %s%s", ad->nevents,
			 strerror(-ret), ret == -EAGAIN ?
			 " (over fs.aio-max-nr?)" : "");
		goto err_events;
	}
	ad->ctx_ok = 1;
	s->priv = ad;
	return 0;

err_events:
	free(ad->events);
err_base:
	posix_base_exit(&ad->pb);
err_free:
	free(ad);
	return ret;
}

static void aio_exit(struct store *s)
{
	struct aio_data *ad = s->priv;

	if (!ad)
		return;
	/* io_destroy waits for the iocbs still in flight: buffers stay safe */
	if (ad->ctx_ok) {
		io_destroy(ad->ctx);
		ad->ctx_ok = 0;
	}
	free(ad->events);
	posix_base_exit(&ad->pb);
	free(ad);
	s->priv = NULL;
}

const struct store_ops store_aio_ops = {
	.name		= "aio",
	.caps		= STORE_CAP_ASYNC | STORE_CAP_DIRECT | STORE_CAP_RENAME |
			  STORE_CAP_MKDIR | STORE_CAP_DIRSYNC | STORE_CAP_SYNC_RANGE |
			  STORE_CAP_TRUNCATE |
			  STORE_CAP_NAMESPACE | STORE_CAP_LOCAL_DIR | STORE_CAP_OPEN_SYNC,
	.init		= aio_init,
	.exit		= aio_exit,
	.open		= posix_open,
	.close		= posix_close,
	.pwritev	= aio_pwritev,
	.preadv		= aio_preadv,
	.fsync		= aio_flush,
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
	.submit		= aio_submit,
	.reap		= aio_reap,
};
