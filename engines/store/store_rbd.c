/*
 * store_rbd.c - the rbd backend: one RBD image used as a block store through
 * librbd, with files mapped to extents inside it. This file holds the
 * store_ops: file operations, sync, and the asynchronous submit/reap path
 * with its librbd completion callbacks. The shared connection, the image and
 * its extent table are in store_rbd_table.c; the layout is in store_rbd.h.
 *
 * Creating, unlinking, renaming and truncating write the table at once and
 * rbd_flush() it; a file's size grows in memory with its writes and reaches
 * the table on fsync/fdatasync/close, so data writes stay pure data. fsync
 * and fdatasync are rbd_flush(), which flushes the whole image: the cache
 * flush of a block device, and the only sync there is (no sync_range).
 * Directories do not exist (names are flat strings, '/' included), so mkdir,
 * rmdir and dirsync are unsupported rather than faked.
 *
 * A write past the file's extent fails with -EFBIG. A file's size grows when
 * a write is issued, not when it completes. librbd's cache follows
 * ceph.conf / CEPH_ARGS (e.g. --rbd_cache=false).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store_rbd.h"

#define RBD_QD_DEFAULT		64

static void rbds_exit(struct store *s)
{
	struct rbds_data *rd = s->priv;

	if (!rd)
		return;
	if (rd->im) {
		rbds_image_detach(rd->im);
		rd->im = NULL;
	}
	pthread_cond_destroy(&rd->cond);
	pthread_mutex_destroy(&rd->lock);
	free(rd);
	s->priv = NULL;
}

static int rbds_init(struct store *s, char *err, size_t errlen)
{
	pthread_condattr_t ca;
	struct rbds_data *rd;
	int ret = 0;

	if (!s->cfg.rbdname || !*s->cfg.rbdname) {
		snprintf(err, errlen, "rbd: no image name (rbdname=)");
		return -EINVAL;
	}
	rd = calloc(1, sizeof(*rd));
	if (!rd) {
		snprintf(err, errlen, "rbd: out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&rd->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&rd->cond, &ca);
	pthread_condattr_destroy(&ca);
	rd->qd = s->cfg.queue_depth ? s->cfg.queue_depth : RBD_QD_DEFAULT;
	s->priv = rd;

	ret = rbds_image_attach(&s->cfg, &rd->im, err, errlen);
	if (ret)
		rbds_exit(s);
	return ret;
}

static int rbds_open(struct store *s, const char *path, int flags, mode_t mode,
			 uint64_t size_hint, struct store_file **fp)
{
	struct rbds_data *rd = s->priv;
	struct rbds_image *im = rd->im;
	struct store_file *f;
	const char *name;
	int idx;

	(void)mode;
	idx = rbds_ent_name(path, &name);
	if (idx)
		return idx;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	pthread_mutex_lock(&im->lock);
	idx = rbds_tab_open(im, name, flags, size_hint);
	if (idx >= 0) {
		im->slot[idx].opens++;
		f->off = im->ent[idx].off;
		f->cap = im->ent[idx].cap;
	} else if (idx == -ENOSPC && (flags & O_CREAT)) {
		rbds_tab_full_msg(im, name, size_hint, s->last_msg, sizeof(s->last_msg));
		s->last_err = idx;
	}
	pthread_mutex_unlock(&im->lock);
	if (idx < 0) {
		free(f);
		return idx;
	}
	f->rd = rd;
	f->im = im;
	f->idx = idx;
	f->accmode = flags & O_ACCMODE;
	*fp = f;
	return 0;
}

static int rbds_close(struct store *s, struct store_file *f)
{
	struct rbds_image *im = f->im;
	int ret = 0;

	(void)s;
	pthread_mutex_lock(&im->lock);
	if (im->slot[f->idx].dirty)
		ret = rbds_tab_store(im, f->idx, f->idx, 0);
	im->slot[f->idx].opens--;
	pthread_mutex_unlock(&im->lock);
	free(f);
	return ret;
}

/* Checks and size bookkeeping of a write, done when it is issued. */
static int rbds_write_prep(struct store_file *f, uint64_t off, size_t len)
{
	struct rbds_image *im = f->im;
	struct rbds_ent *e = &im->ent[f->idx];
	int ret = 0;

	if (f->accmode == O_RDONLY)
		return -EBADF;
	if (off > f->cap || len > f->cap - off)
		return -EFBIG;
	pthread_mutex_lock(&im->lock);
	if (off > e->size)
		ret = rbds_ent_zero_hole(im, e, off);
	if (!ret && off + len > e->size) {
		e->size = off + len;
		im->slot[f->idx].dirty = 1;
	}
	if (e->size > e->hw) {
		e->hw = e->size;
		im->slot[f->idx].dirty = 1;
	}
	pthread_mutex_unlock(&im->lock);
	return ret;
}

/* How many bytes from off a read may return (-EBADF on a write-only file). */
static int64_t rbds_readable(struct store_file *f, uint64_t off, size_t len)
{
	uint64_t size;

	if (f->accmode == O_WRONLY)
		return -EBADF;
	pthread_mutex_lock(&f->im->lock);
	size = f->im->ent[f->idx].size;
	pthread_mutex_unlock(&f->im->lock);
	if (off >= size)
		return 0;
	return len < size - off ? len : size - off;
}

static size_t iov_total(const struct iovec *iov, int iovcnt)
{
	size_t total = 0;
	int i;

	for (i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	return total;
}

static ssize_t rbds_sync_io(struct store_file *f, const struct iovec *iov,
			   int iovcnt, uint64_t off, int write)
{
	rbd_completion_t c;
	ssize_t ret;

	ret = rbd_aio_create_completion(NULL, NULL, &c);
	if (ret)
		return ret;
	if (write)
		ret = rbd_aio_writev(f->im->img, iov, iovcnt, f->off + off, c);
	else
		ret = rbd_aio_readv(f->im->img, iov, iovcnt, f->off + off, c);
	if (!ret) {
		rbd_aio_wait_for_complete(c);
		ret = rbd_aio_get_return_value(c);
	}
	rbd_aio_release(c);
	/* a write completes with 0, not its length */
	return write && !ret ? (ssize_t)iov_total(iov, iovcnt) : ret;
}

static ssize_t rbds_pwritev(struct store *s, struct store_file *f,
			   const struct iovec *iov, int iovcnt, uint64_t off)
{
	size_t len = iov_total(iov, iovcnt);
	int ret;

	(void)s;
	ret = rbds_write_prep(f, off, len);
	if (ret)
		return ret;
	return len ? rbds_sync_io(f, iov, iovcnt, off, 1) : 0;
}

static ssize_t rbds_preadv(struct store *s, struct store_file *f,
			  const struct iovec *iov, int iovcnt, uint64_t off)
{
	size_t total = iov_total(iov, iovcnt), left;
	int64_t len = rbds_readable(f, off, total);
	struct iovec *cut = NULL;
	ssize_t ret;
	int n;

	(void)s;
	if (len <= 0)
		return len;
	if ((size_t)len < total) {
		/* stop at the end of the file, as pread does */
		cut = malloc(iovcnt * sizeof(*cut));
		if (!cut)
			return -ENOMEM;
		for (n = 0, left = len; left; n++) {
			cut[n] = iov[n];
			if (cut[n].iov_len > left)
				cut[n].iov_len = left;
			left -= cut[n].iov_len;
		}
		iov = cut;
		iovcnt = n;
	}
	ret = rbds_sync_io(f, iov, iovcnt, off, 0);
	free(cut);
	return ret;
}

/*
 * The size is metadata a later read needs, so fdatasync persists it too;
 * both end in rbd_flush(), which covers every write issued before it.
 */
static int rbds_fsync(struct store *s, struct store_file *f, int datasync)
{
	struct rbds_image *im = f->im;
	int ret = 0;

	(void)s;
	(void)datasync;
	pthread_mutex_lock(&im->lock);
	if (im->slot[f->idx].dirty)
		ret = rbds_tab_store(im, f->idx, f->idx, 0);
	pthread_mutex_unlock(&im->lock);
	return ret ? ret : rbd_flush(im->img);
}

static int rbds_unlink(struct store *s, const char *path)
{
	struct rbds_image *im = ((struct rbds_data *)s->priv)->im;
	struct rbds_ent old;
	const char *name;
	int idx, ret;

	ret = rbds_ent_name(path, &name);
	if (ret)
		return ret;
	pthread_mutex_lock(&im->lock);
	idx = ret = rbds_tab_find(im, name);
	if (idx >= 0) {
		/* an open file's extent stays reserved (slot.opens) until closed */
		old = im->ent[idx];
		rbds_ent_release(&im->ent[idx]);
		ret = rbds_tab_store(im, idx, idx, TAB_FLUSH);
		if (ret)
			im->ent[idx] = old;
	}
	pthread_mutex_unlock(&im->lock);
	return ret;
}

/* Renaming over an existing file frees it; both entries go in one write. */
static int rbds_rename(struct store *s, const char *from, const char *to)
{
	struct rbds_image *im = ((struct rbds_data *)s->priv)->im;
	const char *src, *dst;
	struct rbds_ent olds, oldd;
	int si, di, ret;

	ret = rbds_ent_name(from, &src);
	if (!ret)
		ret = rbds_ent_name(to, &dst);
	if (ret)
		return ret;
	pthread_mutex_lock(&im->lock);
	si = ret = rbds_tab_find(im, src);
	di = rbds_tab_find(im, dst);
	if (si < 0 || si == di)
		goto out;
	di = di < 0 ? si : di;
	olds = im->ent[si];
	oldd = im->ent[di];
	if (di != si)
		rbds_ent_release(&im->ent[di]);
	memset(im->ent[si].name, 0, RBD_NAME_MAX);
	strcpy(im->ent[si].name, dst);
	ret = rbds_tab_store(im, si < di ? si : di, si < di ? di : si, TAB_FLUSH);
	if (ret) {
		im->ent[di] = oldd;
		im->ent[si] = olds;
	}
out:
	pthread_mutex_unlock(&im->lock);
	return ret < 0 ? ret : 0;
}

static int rbds_fstat(struct store *s, struct store_file *f, uint64_t *size)
{
	(void)s;
	pthread_mutex_lock(&f->im->lock);
	*size = f->im->ent[f->idx].size;
	pthread_mutex_unlock(&f->im->lock);
	return 0;
}

static int rbds_truncate(struct store *s, struct store_file *f, uint64_t len)
{
	int ret;

	(void)s;
	if (f->accmode == O_RDONLY)
		return -EINVAL;
	if (len > f->cap)
		return -EFBIG;
	pthread_mutex_lock(&f->im->lock);
	ret = rbds_ent_resize(f->im, f->idx, len);
	pthread_mutex_unlock(&f->im->lock);
	return ret;
}

/*
 * Asynchronous path. A request is one to three librbd completions (data,
 * table entry, flush); r->backend_data counts those still out, and the last
 * one moves r to this store's done list. Callbacks run in librbd's threads:
 * they take only rd->lock, never im->lock, which is held across synchronous
 * librbd calls that need those threads.
 */
enum { AIO_WRITE, AIO_READ, AIO_FLUSH };

struct rbds_meta {
	struct store_req *r;
	struct rbds_ent ent;
};

static void rbds_done_locked(struct rbds_data *rd, struct store_req *r)
{
	r->next = NULL;
	if (rd->done_tail)
		rd->done_tail->next = r;
	else
		rd->done_head = r;
	rd->done_tail = r;
	rd->ndone++;
	pthread_cond_signal(&rd->cond);
}

/* One completion of r ended with ret (data: bytes or -errno). */
static void rbds_req_put(struct store_req *r, ssize_t ret, int data)
{
	struct rbds_data *rd = r->file->rd;
	uintptr_t left;

	pthread_mutex_lock(&rd->lock);
	if (ret < 0 && (data || r->result >= 0))
		r->result = ret;	/* the data error wins over a flush error */
	else if (ret >= 0 && data && r->result >= 0)
		r->result = r->op == SOP_WRITE ? (ssize_t)r->len : ret;
	left = (uintptr_t)r->backend_data - 1;
	r->backend_data = (void *)left;
	if (!left)
		rbds_done_locked(rd, r);
	pthread_mutex_unlock(&rd->lock);
}

static void rbds_cb_data(rbd_completion_t c, void *arg)
{
	ssize_t ret = rbd_aio_get_return_value(c);

	rbd_aio_release(c);
	rbds_req_put(arg, ret, 1);
}

static void rbds_cb_flush(rbd_completion_t c, void *arg)
{
	ssize_t ret = rbd_aio_get_return_value(c);

	rbd_aio_release(c);
	rbds_req_put(arg, ret, 0);
}

static void rbds_cb_meta(rbd_completion_t c, void *arg)
{
	struct rbds_meta *m = arg;
	struct store_req *r = m->r;
	ssize_t ret = rbd_aio_get_return_value(c);

	rbd_aio_release(c);
	free(m);
	rbds_req_put(r, ret < 0 ? ret : 0, 0);
}

static int rbds_issue(struct store_req *r, int what, size_t len)
{
	struct store_file *f = r->file;
	rbd_completion_t c;
	int ret;

	ret = rbd_aio_create_completion(r, what == AIO_FLUSH ? rbds_cb_flush :
					rbds_cb_data, &c);
	if (ret)
		return ret;
	if (what == AIO_WRITE)
		ret = rbd_aio_write(f->im->img, f->off + r->off, len, r->buf, c);
	else if (what == AIO_READ)
		ret = rbd_aio_read(f->im->img, f->off + r->off, len, r->buf, c);
	else
		ret = rbd_aio_flush(f->im->img, c);
	if (ret)
		rbd_aio_release(c);
	return ret;
}

/* Write the file's table entry if its size changed: 1 issued, 0 clean, -errno. */
static int rbds_issue_meta(struct store_req *r)
{
	struct store_file *f = r->file;
	struct rbds_image *im = f->im;
	struct rbds_meta *m;
	rbd_completion_t c;
	int ret = 0;

	pthread_mutex_lock(&im->lock);
	if (!im->slot[f->idx].dirty)
		goto out;
	ret = -ENOMEM;
	m = malloc(sizeof(*m));
	if (!m)
		goto out;
	m->r = r;
	m->ent = im->ent[f->idx];
	ret = rbd_aio_create_completion(m, rbds_cb_meta, &c);
	if (!ret) {
		ret = rbd_aio_write(im->img, RBD_HDR_BYTES + f->idx * sizeof(m->ent),
				    sizeof(m->ent), (const char *)&m->ent, c);
		if (ret)
			rbd_aio_release(c);
	}
	if (ret) {
		free(m);
		goto out;
	}
	/* issued under im->lock: table writes reach the image in table order */
	im->slot[f->idx].dirty = 0;
	ret = 1;
out:
	pthread_mutex_unlock(&im->lock);
	return ret;
}

/* The sync part of a request: table entry, then a flush covering both. */
static void rbds_issue_sync(struct store_req *r)
{
	int ret;

	ret = rbds_issue_meta(r);
	if (ret <= 0)
		rbds_req_put(r, ret, 0);
	ret = rbds_issue(r, AIO_FLUSH, 0);
	if (ret)
		rbds_req_put(r, ret, 0);
}

static int rbds_submit(struct store *s, struct store_req *r)
{
	struct rbds_data *rd = s->priv;
	int datasync = r->op == SOP_WRITE && (r->flags & SREQ_DATASYNC);
	int64_t len;
	int ret;

	if (s->inflight >= rd->qd)
		return -EBUSY;
	r->result = 0;
	switch (r->op) {
	case SOP_WRITE:
		ret = rbds_write_prep(r->file, r->off, r->len);
		if (ret)
			return ret;
		r->backend_data = (void *)(uintptr_t)(datasync ? 3 : 1);
		ret = rbds_issue(r, AIO_WRITE, r->len);
		if (!ret && datasync)
			rbds_issue_sync(r);
		return ret;
	case SOP_READ:
		len = rbds_readable(r->file, r->off, r->len);
		if (len <= 0) {
			/* at or past the end of the file: done already */
			r->backend_data = (void *)(uintptr_t)1;
			rbds_req_put(r, len, 1);
			return 0;
		}
		r->backend_data = (void *)(uintptr_t)1;
		return rbds_issue(r, AIO_READ, len);
	case SOP_FSYNC:
	case SOP_FDATASYNC:
		r->backend_data = (void *)(uintptr_t)2;
		rbds_issue_sync(r);
		return 0;
	default:
		return -EINVAL;
	}
}

static int rbds_reap(struct store *s, unsigned int min, unsigned int max,
		    struct store_req **out, int64_t timeout_ns)
{
	struct rbds_data *rd = s->priv;
	struct timespec ts;
	unsigned int n = 0;

	if (min > s->inflight)
		min = s->inflight;
	if (timeout_ns >= 0) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		timeout_ns += ts.tv_nsec;
		ts.tv_sec += timeout_ns / 1000000000;
		ts.tv_nsec = timeout_ns % 1000000000;
	}
	pthread_mutex_lock(&rd->lock);
	while (rd->ndone < min) {
		if (timeout_ns < 0)
			pthread_cond_wait(&rd->cond, &rd->lock);
		else if (pthread_cond_timedwait(&rd->cond, &rd->lock, &ts))
			break;
	}
	for (; n < max && rd->done_head; n++) {
		out[n] = rd->done_head;
		rd->done_head = out[n]->next;
		rd->ndone--;
	}
	if (!rd->done_head)
		rd->done_tail = NULL;
	pthread_mutex_unlock(&rd->lock);
	return n;
}

/* "pool/image": the image is the whole store */
static void rbds_location(const struct store *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", s->cfg.pool ? s->cfg.pool : "rbd",
		 s->cfg.rbdname ? s->cfg.rbdname : "");
}

const struct store_ops store_rbd_ops = {
	.name		= "rbd",
	.caps		= STORE_CAP_ASYNC | STORE_CAP_RENAME | STORE_CAP_TRUNCATE |
			  STORE_CAP_IMAGE,
	.location	= rbds_location,
	.init		= rbds_init,
	.exit		= rbds_exit,
	.open		= rbds_open,
	.close		= rbds_close,
	.pwritev	= rbds_pwritev,
	.preadv		= rbds_preadv,
	.fsync		= rbds_fsync,
	.unlink		= rbds_unlink,
	.rename		= rbds_rename,
	.fstat		= rbds_fstat,
	.size		= rbds_fstat,	/* the table holds the size: no round trip */
	.truncate	= rbds_truncate,
	.submit		= rbds_submit,
	.reap		= rbds_reap,
};
