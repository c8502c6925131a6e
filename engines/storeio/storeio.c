/*
 * storeio - fio's own reads, writes and syncs passed straight to a dbfio
 * store backend (store=posix|uring|aio|cephfs|rbd).
 *
 * It is the load test of the store layer, and it gives fio a libcephfs
 * engine: ioengine=external:build/storeio.so store=cephfs. fio does not lay
 * out the files (FIO_DISKLESSIO): they are created through the store when
 * fio opens them, sized by size=/filesize=.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"
#include "optgroup.h"

#include "glue/fio_store.h"

struct storeio_iou {
	struct store_req req;
	struct io_u *io_u;
};

struct storeio_data {
	struct store *store;
	struct store_req **done;
	int ndone;
	int sync;	/* the store has no real submit/reap path */
	const char *dir;	/* directory= (the store's root): fio's file names start with it */
	size_t dirlen;		/* ... without trailing slashes; 0: names as fio gave them */
};

struct storeio_options {
	void *pad;	/* fio stores td here; off1 must not be 0 */
	struct store_opts so;
};

static struct fio_option options[] = {
	FIO_STORE_OPTIONS(struct storeio_options, so),
	{
		.name	= NULL,
	},
};

/*
 * A finished request's result into its io_u: error or short transfer. The
 * files are size= bytes, created empty: a read past their end reads a hole
 * (zeros), as it would in a file fio had laid out.
 */
static void storeio_result(struct io_u *io_u, const struct store_req *r)
{
	unsigned long long done = r->result;

	if (r->result < 0) {
		io_u->error = -r->result;
		return;
	}
	if (!ddir_rw(io_u->ddir) || done == io_u->xfer_buflen)
		return;
	if (io_u->ddir == DDIR_READ &&
	    io_u->offset + io_u->xfer_buflen <= io_u->file->real_file_size) {
		memset((char *)io_u->xfer_buf + done, 0, io_u->xfer_buflen - done);
		return;
	}
	io_u->resid = io_u->xfer_buflen - done;
}

static int fio_storeio_setup(struct thread_data *td)
{
	struct storeio_options *o = td->eo;
	unsigned long long fsize;
	struct fio_file *f;
	unsigned int i;

	if (fio_store_setup(td, "storeio", &o->so))
		return 1;
	if (td_trim(td)) {
		log_err("storeio: rw=%s: trim is not supported by the store layer\n",
			td->o.td_ddir & TD_DDIR_RAND ? "randtrim" : "trim");
		return 1;
	}
	if (!td->o.size && !td->o.file_size_high) {
		log_err("storeio: size= (or filesize=) is required: the store sizes the files\n");
		return 1;
	}
	fsize = td->o.file_size_high ? td->o.file_size_high :
		td->o.size / (td->o.nr_files ? td->o.nr_files : 1);
	for_each_file(td, f, i) {
		f->real_file_size = fsize;
		fio_file_set_size_known(f);
	}
	return 0;
}

/*
 * directory= is the store's root on a local backend, so its lock
 * (.dbfio-lock) is taken there, not in fio's working directory (fio's
 * parser has checked that the directory exists).
 */
static int storeio_dir(struct thread_data *td, const struct storeio_options *o,
		       struct storeio_data *sd)
{
	const char *d = td->o.directory;

	if (!d || !*d || !(store_backend_caps(o->so.store) & STORE_CAP_LOCAL_DIR))
		return 0;
	if (strchr(d, ':')) {
		log_err("storeio: directory=%s: one directory only (no ':' list): the store "
			"locks and opens one directory\n", d);
		return 1;
	}
	sd->dir = d;
	for (sd->dirlen = strlen(d); sd->dirlen > 1 && d[sd->dirlen - 1] == '/'; sd->dirlen--)
		;
	return 0;
}

/* fio's "<directory>/<name>" relative to the store's root (directory=) */
static const char *storeio_path(const struct storeio_data *sd, const char *name)
{
	if (!sd->dirlen || strncmp(name, sd->dir, sd->dirlen))
		return name;
	if (name[sd->dirlen] != '/' && sd->dir[sd->dirlen - 1] != '/')
		return name;
	for (name += sd->dirlen; *name == '/'; name++)
		;
	return *name ? name : ".";
}

static int fio_storeio_init(struct thread_data *td)
{
	struct storeio_options *o = td->eo;
	struct storeio_data *sd;

	sd = calloc(1, sizeof(*sd));
	if (!sd)
		return 1;
	sd->done = calloc(td->o.iodepth, sizeof(*sd->done));
	if (!sd->done)
		goto err;
	if (storeio_dir(td, o, sd) ||
	    fio_store_connect(td, "storeio", &o->so, sd->dir, 0, &sd->store))
		goto err;
	sd->sync = !(store_caps(sd->store) & STORE_CAP_ASYNC);
	td->io_ops_data = sd;
	return 0;
err:
	free(sd->done);
	free(sd);
	return 1;
}

static void fio_storeio_cleanup(struct thread_data *td)
{
	struct storeio_options *o = td->eo;
	struct storeio_data *sd = td->io_ops_data;

	if (!sd)
		return;
	fio_store_report(td, "storeio", &o->so, sd->store);
	store_exit(sd->store);
	free(sd->done);
	free(sd);
	td->io_ops_data = NULL;
}

static int fio_storeio_io_u_init(struct thread_data *td, struct io_u *io_u)
{
	struct storeio_iou *si = calloc(1, sizeof(*si));

	if (!si)
		return 1;
	si->io_u = io_u;
	si->req.priv = si;
	io_u->engine_data = si;
	return 0;
}

static void fio_storeio_io_u_free(struct thread_data *td, struct io_u *io_u)
{
	free(io_u->engine_data);
	io_u->engine_data = NULL;
}

static int fio_storeio_open_file(struct thread_data *td, struct fio_file *f)
{
	struct storeio_data *sd = td->io_ops_data;
	struct store_file *sf;
	int flags = td_write(td) ? O_RDWR | O_CREAT : O_RDONLY;
	int ret;

	if (td_write(td) && td->o.sync_io)
		flags |= O_SYNC;
	ret = store_open(sd->store, storeio_path(sd, f->file_name), flags, 0644, f->real_file_size, &sf);
	if (ret) {
		log_err("storeio: open(%s) failed: %s\n", f->file_name,
			store_strerror(sd->store, ret));
		td_verror(td, -ret, "store_open");
		return 1;
	}
	f->engine_data = sf;
	return 0;
}

static int fio_storeio_close_file(struct thread_data *td, struct fio_file *f)
{
	struct storeio_data *sd = td->io_ops_data;
	int ret = 0;

	if (f->engine_data)
		ret = store_close(sd->store, f->engine_data);
	f->engine_data = NULL;
	return ret ? 1 : 0;
}

static int fio_storeio_unlink_file(struct thread_data *td, struct fio_file *f)
{
	struct storeio_data *sd = td->io_ops_data;
	int ret;

	if (!sd)
		return 0;
	ret = store_unlink(sd->store, storeio_path(sd, f->file_name));
	return ret && ret != -ENOENT ? 1 : 0;
}

/*
 * A synchronous store does the I/O in the call: complete it here. Queued,
 * it would wait for fio's next reap, which fio runs only when iodepth
 * requests are queued: every clat would be ~iodepth x the service time.
 */
static ssize_t storeio_sync(struct store *s, struct store_req *r)
{
	switch (r->op) {
	case SOP_WRITE:		return store_pwrite(s, r->file, r->buf, r->len, r->off);
	case SOP_READ:		return store_pread(s, r->file, r->buf, r->len, r->off);
	case SOP_FSYNC:		return store_fsync(s, r->file);
	default:		return store_fdatasync(s, r->file);
	}
}

static enum fio_q_status fio_storeio_queue(struct thread_data *td, struct io_u *io_u)
{
	struct storeio_data *sd = td->io_ops_data;
	struct storeio_iou *si = io_u->engine_data;
	struct store_req *r = &si->req;
	int ret;

	fio_ro_check(td, io_u);
	/*
	 * The posix and cephfs backends do the I/O inside this call: stamp the
	 * issue time before it, or fio would book the I/O as submission
	 * latency (it stamps after queue() returns).
	 */
	if (fio_fill_issue_time(td))
		fio_gettime(&io_u->issue_time, NULL);
	r->file = io_u->file->engine_data;
	r->buf = io_u->xfer_buf;
	r->len = io_u->xfer_buflen;
	r->off = io_u->offset;
	r->flags = 0;
	switch (io_u->ddir) {
	case DDIR_WRITE:	r->op = SOP_WRITE; break;
	case DDIR_READ:		r->op = SOP_READ; break;
	case DDIR_SYNC:		r->op = SOP_FSYNC; break;
	case DDIR_DATASYNC:	r->op = SOP_FDATASYNC; break;
	default:
		io_u->error = EOPNOTSUPP;
		td_verror(td, io_u->error, "storeio: trim is not supported");
		return FIO_Q_COMPLETED;
	}
	if (sd->sync) {
		r->result = storeio_sync(sd->store, r);
		storeio_result(io_u, r);
		if (io_u->error) {
			/* as fio's psync: the file, offset and cause, then the job's error */
			io_u_log_error(td, io_u);
			td_verror(td, io_u->error, store_op_name(r->op));
		}
		return FIO_Q_COMPLETED;
	}
	ret = store_submit(sd->store, r);
	if (ret == -EBUSY)
		return FIO_Q_BUSY;
	if (ret) {
		io_u->error = -ret;
		td_verror(td, io_u->error, "store_submit");
		return FIO_Q_COMPLETED;
	}
	return FIO_Q_QUEUED;
}

static int fio_storeio_getevents(struct thread_data *td, unsigned int min,
				 unsigned int max, const struct timespec *t)
{
	struct storeio_data *sd = td->io_ops_data;
	int64_t timeout = t ? t->tv_sec * 1000000000LL + t->tv_nsec : -1;
	int ret;

	ret = store_reap(sd->store, min, max, sd->done, timeout);
	sd->ndone = ret > 0 ? ret : 0;
	return ret;
}

static struct io_u *fio_storeio_event(struct thread_data *td, int event)
{
	struct storeio_data *sd = td->io_ops_data;
	struct store_req *r = sd->done[event];
	struct storeio_iou *si = r->priv;
	struct io_u *io_u = si->io_u;

	storeio_result(io_u, r);
	return io_u;
}

struct ioengine_ops ioengine = {
	.name			= "storeio",
	.version		= FIO_IOOPS_VERSION,
	.flags			= FIO_DISKLESSIO | FIO_NODISKUTIL |
				  FIO_ASYNCIO_SETS_ISSUE_TIME,
	.setup			= fio_storeio_setup,
	.init			= fio_storeio_init,
	.cleanup		= fio_storeio_cleanup,
	.queue			= fio_storeio_queue,
	.getevents		= fio_storeio_getevents,
	.event			= fio_storeio_event,
	.open_file		= fio_storeio_open_file,
	.close_file		= fio_storeio_close_file,
	.unlink_file		= fio_storeio_unlink_file,
	.io_u_init		= fio_storeio_io_u_init,
	.io_u_free		= fio_storeio_io_u_free,
	.option_struct_size	= sizeof(struct storeio_options),
	.options		= options,
};
