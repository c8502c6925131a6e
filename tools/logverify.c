/*
 * logverify - the durability oracle of the redolog engine (and txn's log):
 * after a run or a SIGKILL, every record from the checkpoint LSN to the
 * acknowledged LSN of the engine's lsn_file must be in the log, intact.
 *
 * Written from the on-disk format as docs/redolog.md documents it ("On-disk
 * format"), sharing no code with the engine: an oracle that used the
 * engine's own format header or store layer would agree with the engine's
 * bugs. Files are read with plain POSIX calls (posix, uring, aio: the same
 * files in a directory), with libcephfs (cephfs) or from the extent table
 * of the rbd image with librbd. It only looks: no lock is taken, nothing is
 * written; a store a live run holds is refused (exit 2).
 *
 * Exit 0: all intact; 1: loss or corruption (one line saying where and why);
 * 2: unusable input (no store, no meta, no sidecar, store in use).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#ifdef CONFIG_LIBCEPHFS
#include <cephfs/libcephfs.h>
#endif
#ifdef CONFIG_RBD
#include <rados/librados.h>
#include <rbd/librbd.h>
#endif

/* docs/redolog.md, "On-disk format" */
#define SIDE_BYTES	104
#define SIDE_MAGIC	"RLOGLSN2"
#define REC_HDR		24u
#define REC_MAGIC	0x474f4c52u	/* "RLOG" */
#define PG_MAGIC	0xd110u
#define PG_PAGE		8192u
#define MAX_REC		(64u << 20)
#define LOCK_NAME	".dbfio-lock"
#define RBD_TAB		(1u << 20)
#define RBD_ENT0	512u
#define RBD_ENT		128u
#define CONN_TIMEOUT	"30"

enum { MYSQL, MARIADB, POSTGRES };
static const char *const flavors[] = { "mysql", "mariadb", "postgres" };
enum { ST_POSIX, ST_URING, ST_AIO, ST_CEPHFS, ST_RBD, ST_NR };
static const char *const stores[ST_NR] = { "posix", "uring", "aio", "cephfs", "rbd" };
static const int built[ST_NR] = {
	1,
#ifdef CONFIG_LIBURING
	1,
#else
	0,
#endif
#ifdef CONFIG_LIBAIO
	1,
#else
	0,
#endif
#ifdef CONFIG_LIBCEPHFS
	1,
#else
	0,
#endif
#ifdef CONFIG_RBD
	1,
#else
	0,
#endif
};

struct geo {			/* the meta file */
	int flavor, redo8030;
	uint64_t unit, hdr, trl, file_hdr, file_size, nfiles;
	char prefix[64];
};

struct src {			/* where the files are, and the one open file */
	int store;
	const char *dir, *root, *conf, *pool, *image;
	int fd;			/* posix or cephfs descriptor; -1: none */
	uint64_t ext_off, ext_size;	/* rbd: the open file's extent and size */
#ifdef CONFIG_LIBCEPHFS
	struct ceph_mount_info *cm;
#endif
#ifdef CONFIG_RBD
	rados_t cluster;
	rados_ioctx_t io;
	rbd_image_t img;
	uint8_t *tab;
#endif
};

struct lv {
	struct src s;
	struct geo g;
	uint64_t fno, unit_no;	/* the open file's number, the cached unit's */
	int have_f, have_unit;
	uint8_t *unit;
	char why[512];
};

/* ---- CRC32C (Castagnoli, reflected 0x82F63B78), bytewise ---- */
static uint32_t crc_tab[256];

static void crc_init(void)
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		for (c = i, j = 0; j < 8; j++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_tab[i] = c;
	}
}

static uint32_t crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--)
		crc = crc_tab[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* ---- little-endian fields ---- */
static uint32_t le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* ---- lock holders: "dbfio,pid=P,host=H,start=S,time=T" ---- */
#if defined(CONFIG_LIBCEPHFS) || defined(CONFIG_RBD)
static void holder_field(const char *h, const char *key, char *val, size_t len)
{
	size_t k = strlen(key), n;

	val[0] = '\0';
	for (; h && *h; h = strchr(h, ',') ? strchr(h, ',') + 1 : NULL) {
		if (strncmp(h, key, k) || h[k] != '=')
			continue;
		n = strcspn(h + k + 1, ",\n");
		n = n < len ? n : len - 1;
		memcpy(val, h + k + 1, n);
		val[n] = '\0';
		return;
	}
}

static unsigned long long proc_start(long pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	int fd, field;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');	/* field 2, the command, may hold spaces */
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		start = strtoull(p + 1, NULL, 10);
	return start;
}

/* A dbfio holder of this host whose process is gone (or is another one now). */
static int holder_gone(const char *h)
{
	char host[256], me[256] = "", pid[32], start[32];
	long p;

	holder_field(h, "host", host, sizeof(host));
	holder_field(h, "pid", pid, sizeof(pid));
	holder_field(h, "start", start, sizeof(start));
	gethostname(me, sizeof(me) - 1);
	if (strncmp(h, "dbfio,", 6) || !*pid || strcmp(host, me))
		return 0;
	p = strtol(pid, NULL, 10);
	if (p <= 0)
		return 0;
	if (kill(p, 0) && errno == ESRCH)
		return 1;
	return *start && proc_start(p) && proc_start(p) != strtoull(start, NULL, 10);
}
#endif

/* where: "directory 'D'" or "image 'P/I'"; lock: what holds it */
static int in_use(const struct lv *v, const char *where, const char *holder, const char *lock)
{
	fprintf(stderr, "logverify: %s: %s is in use by %.*s (%s): a run is writing it; "
		"check it when the run has ended\n", stores[v->s.store], where,
		holder[0] ? (int)strcspn(holder, "\n") : 15,
		holder[0] ? holder : "another process", lock);
	return 2;
}

/* ---- the store: open a file by its store name, read it ---- */
static void src_close(struct src *s)
{
#ifdef CONFIG_LIBCEPHFS
	if (s->store == ST_CEPHFS && s->fd >= 0)
		ceph_close(s->cm, s->fd);
	else
#endif
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

#ifdef CONFIG_LIBCEPHFS
/* The root as "/a/b" ("" for "/"), then "/name" appended. */
static void ceph_path(const struct src *s, const char *name, char *buf, size_t len)
{
	const char *r = s->root;
	size_t n;

	while (*r == '/')
		r++;
	n = strlen(r);
	while (n && r[n - 1] == '/')
		n--;
	snprintf(buf, len, "%s%.*s/%s", n ? "/" : "", (int)n, r, name);
}
#endif

#ifdef CONFIG_RBD
/* The extent of the first used slot holding name as a file. */
static int img_lookup(struct src *s, const char *name)
{
	uint32_t i, nslots = le32(s->tab + 16);
	const uint8_t *e;

	while (*name == '/')
		name++;
	for (i = 0; i < nslots; i++) {
		e = s->tab + RBD_ENT0 + (size_t)i * RBD_ENT;
		if (le32(e + 96) == 1 && !strncmp((const char *)e, name, 64) &&
		    memchr(e, '\0', 64)) {
			s->ext_off = le64(e + 64);
			s->ext_size = le64(e + 80);
			if (s->ext_size > le64(e + 72))	/* never past the extent */
				s->ext_size = le64(e + 72);
			return 0;
		}
	}
	return -ENOENT;
}
#endif

static int src_open(struct src *s, const char *name)
{
	char path[4096];

	src_close(s);
	switch (s->store) {
#ifdef CONFIG_LIBCEPHFS
	case ST_CEPHFS:
		ceph_path(s, name, path, sizeof(path));
		s->fd = ceph_open(s->cm, path, O_RDONLY, 0);
		return s->fd < 0 ? s->fd : 0;
#endif
#ifdef CONFIG_RBD
	case ST_RBD:
		return img_lookup(s, name);
#endif
	default:
		snprintf(path, sizeof(path), "%s/%s", s->dir, name);
		s->fd = open(path, O_RDONLY | O_CLOEXEC);
		return s->fd < 0 ? -errno : 0;
	}
}

/* Up to len bytes at off: the count (short at the end of the file) or -errno. */
static ssize_t src_pread(struct src *s, void *buf, size_t len, uint64_t off)
{
	size_t got = 0;
	ssize_t n;

#ifdef CONFIG_RBD
	if (s->store == ST_RBD) {
		if (off >= s->ext_size)
			return 0;
		len = len < s->ext_size - off ? len : s->ext_size - off;
	}
#endif
	while (got < len) {
		switch (s->store) {
#ifdef CONFIG_LIBCEPHFS
		case ST_CEPHFS:
			n = ceph_read(s->cm, s->fd, (char *)buf + got, len - got, off + got);
			break;
#endif
#ifdef CONFIG_RBD
		case ST_RBD:
			n = rbd_read(s->img, s->ext_off + off + got, len - got, (char *)buf + got);
			break;
#endif
		default:
			n = pread(s->fd, (char *)buf + got, len - got, off + got);
			if (n < 0)
				n = -errno;
		}
		if (n < 0 && n != -EINTR)
			return n;
		if (n == 0)
			break;
		got += n > 0 ? (size_t)n : 0;
	}
	return got;
}

/* posix: is <dir>/.dbfio-lock write-locked (OFD lock or flock)? */
static int posix_check_lock(struct lv *v)
{
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
	char path[4096], where[4200], holder[256] = "";
	int fd, busy = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", v->s.dir, LOCK_NAME);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;	/* no lock file: no run */
	if (!fcntl(fd, F_OFD_GETLK, &fl) && fl.l_type != F_UNLCK)
		busy = 1;
	if (!busy && flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK)
		busy = 1;
	else if (!busy)
		flock(fd, LOCK_UN);
	n = busy ? pread(fd, holder, sizeof(holder) - 1, 0) : 0;
	holder[n > 0 ? n : 0] = '\0';
	close(fd);
	if (!busy)
		return 0;
	snprintf(where, sizeof(where), "directory '%s'", v->s.dir);
	return in_use(v, where, holder, path);
}

#ifdef CONFIG_LIBCEPHFS
/* cephfs: a shared flock on <root>/.dbfio-lock, let go at once. */
static int cfs_check_lock(struct lv *v)
{
	struct src *s = &v->s;
	char path[4096], where[4200], holder[256] = "";
	uint64_t owner = (uint64_t)getpid();
	int fd, ret;

	ceph_path(s, LOCK_NAME, path, sizeof(path));
	fd = ceph_open(s->cm, path, O_RDONLY, 0);
	if (fd < 0)
		return 0;
	ret = ceph_flock(s->cm, fd, LOCK_SH | LOCK_NB, owner);
	if (!ret)
		ceph_flock(s->cm, fd, LOCK_UN, owner);
	else if (ret == -EWOULDBLOCK || ret == -EAGAIN) {
		ret = ceph_read(s->cm, fd, holder, sizeof(holder) - 1, 0);
		holder[ret > 0 ? ret : 0] = '\0';
		ret = holder_gone(holder) ? 0 : -EBUSY;	/* a dead holder writes nothing */
	} else
		ret = 0;
	ceph_close(s->cm, fd);
	if (!ret)
		return 0;
	snprintf(where, sizeof(where), "directory '%.*s'",
		 (int)(strlen(path) - strlen(LOCK_NAME) - 1), path);
	return in_use(v, where, holder, path);
}

static int cfs_connect(struct lv *v)
{
	struct src *s = &v->s;
	const char *call = "ceph_create";
	int ret;

	ret = ceph_create(&s->cm, NULL);
	if (!ret && (call = "ceph_conf_read_file", 1))
		ret = ceph_conf_read_file(s->cm, s->conf);
	if (!ret && (call = "ceph_conf_set", 1))
		ret = ceph_conf_set(s->cm, "client_mount_timeout", CONN_TIMEOUT);
	if (!ret && (call = "ceph_conf_parse_env", 1))
		ret = ceph_conf_parse_env(s->cm, NULL);
	if (!ret && (call = "ceph_mount", 1))
		ret = ceph_mount(s->cm, "/");
	if (ret) {
		fprintf(stderr, "logverify: cephfs: %s(%s) failed: %s\n", call,
			s->conf ? s->conf : "default ceph.conf", strerror(-ret));
		return 2;
	}
	return cfs_check_lock(v);
}
#endif

#ifdef CONFIG_RBD
/* rbd: an advisory lock's cookie or an exclusive-lock image's dbfio.holder. */
static int img_check_lock(struct lv *v)
{
	char tag[256], clients[1024], cookies[1024], addrs[1024], holder[256];
	size_t tl = sizeof(tag), cl = sizeof(clients), kl = sizeof(cookies);
	size_t al = sizeof(addrs), hl = sizeof(holder);
	struct src *s = &v->s;
	const char *c;
	char where[300];
	int excl;
	ssize_t n;

	snprintf(where, sizeof(where), "image '%s/%s'", s->pool, s->image);
	n = rbd_list_lockers(s->img, &excl, tag, &tl, clients, &cl, cookies, &kl, addrs, &al);
	for (c = cookies; n > 0 && c < cookies + kl; c += strlen(c) + 1, n--)
		if (!strncmp(c, "dbfio,", 6) && !holder_gone(c))
			return in_use(v, where, c, "its lock: rbd lock ls");
	if (!rbd_metadata_get(s->img, "dbfio.holder", holder, &hl) && !holder_gone(holder))
		return in_use(v, where, holder, "image metadata dbfio.holder");
	return 0;
}

static int img_connect(struct lv *v)
{
	struct src *s = &v->s;
	const char *call = "rados_create";
	ssize_t n;
	int ret;

	ret = rados_create(&s->cluster, NULL);
	if (!ret && (call = "rados_conf_read_file", 1))
		ret = rados_conf_read_file(s->cluster, s->conf);
	if (!ret && (call = "rados_conf_set", 1))
		ret = rados_conf_set(s->cluster, "client_mount_timeout", CONN_TIMEOUT);
	if (!ret)
		ret = rados_conf_set(s->cluster, "rados_mon_op_timeout", CONN_TIMEOUT);
	if (!ret && (call = "rados_conf_parse_env", 1))
		ret = rados_conf_parse_env(s->cluster, NULL);
	if (!ret && (call = "rados_connect", 1))
		ret = rados_connect(s->cluster);
	if (!ret && (call = "rados_ioctx_create", 1))
		ret = rados_ioctx_create(s->cluster, s->pool, &s->io);
	if (!ret && (call = "rbd_open_read_only", 1))
		ret = rbd_open_read_only(s->io, s->image, &s->img, NULL);
	if (ret) {
		fprintf(stderr, "logverify: rbd: %s(%s/%s) failed: %s\n", call, s->pool,
			s->image, strerror(-ret));
		return 2;
	}
	s->tab = malloc(RBD_TAB);
	n = s->tab ? rbd_read(s->img, 0, RBD_TAB, (char *)s->tab) : -ENOMEM;
	if (n != RBD_TAB || memcmp(s->tab, "DBFIORBD", 8) || le32(s->tab + 8) != 1 ||
	    le32(s->tab + 12) != RBD_ENT || le32(s->tab + 16) > le32(s->tab + 20) ||
	    le32(s->tab + 20) > (RBD_TAB - RBD_ENT0) / RBD_ENT) {
		fprintf(stderr, "logverify: rbd: image '%s/%s' holds no dbfio table%s%s\n",
			s->pool, s->image, n < 0 ? ": " : "", n < 0 ? strerror((int)-n) : "");
		return 2;
	}
	return img_check_lock(v);
}
#endif

static int src_connect(struct lv *v)
{
	switch (v->s.store) {
#ifdef CONFIG_LIBCEPHFS
	case ST_CEPHFS:
		return cfs_connect(v);
#endif
#ifdef CONFIG_RBD
	case ST_RBD:
		return img_connect(v);
#endif
	default:
		return posix_check_lock(v);
	}
}

static void src_exit(struct src *s)
{
	src_close(s);
#ifdef CONFIG_LIBCEPHFS
	if (s->cm) {
		ceph_unmount(s->cm);
		ceph_release(s->cm);
	}
#endif
#ifdef CONFIG_RBD
	free(s->tab);
	if (s->img)
		rbd_close(s->img);
	if (s->io)
		rados_ioctx_destroy(s->io);
	if (s->cluster)
		rados_shutdown(s->cluster);
#endif
}

/* ---- the geometry: stream -> unit -> file, offset ---- */
static uint64_t payload(const struct geo *g)
{
	return g->unit - g->hdr - g->trl;
}

static uint64_t per_file(const struct geo *g)
{
	return (g->file_size - g->file_hdr) / g->unit;
}

static uint64_t unit_file(const struct geo *g, uint64_t u)
{
	uint64_t n = u / per_file(g);

	if (g->flavor == POSTGRES || g->redo8030)
		return n;
	return n % g->nfiles;
}

static void file_name(const struct geo *g, uint64_t n, char *buf, size_t len)
{
	uint64_t seg = n + 1, per_id = (1ull << 32) / g->file_size;

	if (g->flavor == POSTGRES)
		snprintf(buf, len, "%s%08X%08X%08X", g->prefix, 1u,
			 (unsigned int)(seg / per_id), (unsigned int)(seg % per_id));
	else if (g->redo8030)
		snprintf(buf, len, "%s#innodb_redo/#ib_redo%" PRIu64, g->prefix, n);
	else
		snprintf(buf, len, "%sib_logfile%" PRIu64, g->prefix, n);
}

/* NULL or why unit u's framing is not this unit's. */
static const char *unit_bad(const struct geo *g, const uint8_t *b, uint64_t u)
{
	if (g->flavor == MYSQL) {
		if (le32(b) != (uint32_t)(u % (1ull << 30)) + 1)
			return "block number in the block header is not this block's (stale or zero block)";
		if (le32(b + g->unit - 4) != crc32c(0, b, g->unit - 4))
			return "block trailer checksum mismatch";
	} else if (g->flavor == POSTGRES) {
		if (b[0] != (PG_MAGIC & 0xff) || b[1] != PG_MAGIC >> 8)
			return "WAL page magic mismatch (zero or foreign page)";
		if (le64(b + 8) != u * g->unit)
			return "WAL page address is not this page's (stale recycled page)";
	}
	return NULL;
}

/* Unit u read and checked; NULL with v->why set when it is not there. */
static const uint8_t *get_unit(struct lv *v, uint64_t u)
{
	const struct geo *g = &v->g;
	uint64_t fno = unit_file(g, u), off = g->file_hdr + (u % per_file(g)) * g->unit;
	char name[160];
	const char *bad;
	ssize_t n;
	int ret;

	if (v->have_unit && v->unit_no == u)
		return v->unit;
	v->have_unit = 0;
	file_name(g, fno, name, sizeof(name));
	if (!v->have_f || v->fno != fno) {
		v->have_f = 0;
		ret = src_open(&v->s, name);
		if (ret) {
			snprintf(v->why, sizeof(v->why), "log file %s: %s", name, strerror(-ret));
			return NULL;
		}
		v->have_f = 1;
		v->fno = fno;
	}
	n = src_pread(&v->s, v->unit, g->unit, off);
	if (n != (ssize_t)g->unit) {
		snprintf(v->why, sizeof(v->why), "%s offset %" PRIu64 ": %s", name, off,
			 n < 0 ? strerror((int)-n) : "short read");
		return NULL;
	}
	bad = unit_bad(g, v->unit, u);
	if (bad) {
		snprintf(v->why, sizeof(v->why), "%s offset %" PRIu64 " (unit %" PRIu64 "): %s",
			 name, off, u, bad);
		return NULL;
	}
	v->unit_no = u;
	v->have_unit = 1;
	return v->unit;
}

/* n stream bytes from lsn into dst: 0, or -1 with v->why set. */
static int read_stream(struct lv *v, uint64_t lsn, uint8_t *dst, uint64_t n)
{
	const uint64_t P = payload(&v->g);

	while (n) {
		const uint8_t *b = get_unit(v, lsn / P);
		uint64_t in = lsn % P, k = P - in < n ? P - in : n;

		if (!b)
			return -1;
		memcpy(dst, b + v->g.hdr + in, k);
		dst += k;
		lsn += k;
		n -= k;
	}
	return 0;
}

static int loss(uint64_t lsn, const char *why)
{
	printf("logverify: LOSS at LSN %" PRIu64 ": %s\n", lsn, why);
	return 1;
}

/* One record at lsn: its length, or 0 after printing the loss. */
static uint32_t check_record(struct lv *v, uint64_t lsn, uint64_t to, uint8_t **pl,
			     uint32_t *plcap)
{
	uint8_t h[REC_HDR];
	uint32_t len, crc;
	char d[160];

	if (read_stream(v, lsn, h, REC_HDR))
		return loss(lsn, v->why), 0;
	len = le32(h + 4);
	if (le32(h) != REC_MAGIC)
		return loss(lsn, "no record header (magic mismatch: zero or overwritten)"), 0;
	if (le64(h + 8) != lsn) {
		snprintf(d, sizeof(d), "record header says LSN %" PRIu64 " (stale record)",
			 le64(h + 8));
		return loss(lsn, d), 0;
	}
	if (len < REC_HDR || len > MAX_REC || lsn + len > to) {
		snprintf(d, sizeof(d), "record length %u out of range", len);
		return loss(lsn, d), 0;
	}
	if (len - REC_HDR > *plcap) {
		free(*pl);
		*plcap = len - REC_HDR;
		*pl = malloc(*plcap);
		if (!*pl)
			return loss(lsn, "out of memory for the record"), 0;
	}
	if (read_stream(v, lsn + REC_HDR, *pl, len - REC_HDR))
		return loss(lsn, v->why), 0;
	crc = le32(h + 16);
	memset(h + 16, 0, 4);
	if (crc32c(crc32c(0, h, REC_HDR), *pl, len - REC_HDR) != crc)
		return loss(lsn, "record CRC32C mismatch"), 0;
	return len;
}

static int walk(struct lv *v, uint64_t from, uint64_t to)
{
	uint64_t lsn = from, nrec = 0;
	uint32_t len, plcap = 0;
	uint8_t *pl = NULL;

	for (; lsn < to; lsn += len, nrec++) {
		len = check_record(v, lsn, to, &pl, &plcap);
		if (!len) {
			free(pl);
			return 1;
		}
	}
	free(pl);
	printf("logverify: ok: %" PRIu64 " records intact, LSN %" PRIu64 "..%" PRIu64
	       ", flavor=%s store=%s\n", nrec, from, to, flavors[v->g.flavor], stores[v->s.store]);
	return 0;
}

/* ---- the meta file and the sidecar ---- */
static int meta_parse(struct geo *g, char *text)
{
	uint64_t *num[] = { &g->unit, &g->hdr, &g->trl, &g->file_hdr, &g->file_size, &g->nfiles };
	static const char *const keys[] = { "unit", "hdr", "trl", "file_hdr", "file_size", "nfiles" };
	char *line, *val, *end, *save = NULL;
	unsigned int i, seen = 0;

	memset(g, 0, sizeof(*g));
	g->flavor = -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		val = strchr(line, '=');
		if (!val)
			continue;
		*val++ = '\0';
		for (i = 0; i < 3; i++)
			if (!strcmp(line, "flavor") && !strcmp(val, flavors[i]))
				g->flavor = i;
		if (!strcmp(line, "prefix"))
			snprintf(g->prefix, sizeof(g->prefix), "%s", val);
		if (!strcmp(line, "layout") && !strcmp(val, "redo8030"))
			g->redo8030 = 1;
		for (i = 0; i < 6; i++) {
			if (strcmp(line, keys[i]))
				continue;
			errno = 0;
			*num[i] = strtoull(val, &end, 10);
			if (!errno && *val && !*end)
				seen |= 1u << i;
		}
	}
	g->redo8030 &= g->flavor == MYSQL;
	if (g->flavor < 0 || seen != 0x3f || !g->unit || g->unit > MAX_REC ||
	    g->hdr + g->trl >= g->unit || !g->nfiles || g->file_size <= g->file_hdr ||
	    !per_file(g) || (g->flavor == MYSQL && g->trl < 4) ||
	    (g->flavor == POSTGRES && (g->file_size > (1ull << 32) || g->hdr < 24)))
		return -1;
	return 0;
}

static int read_meta(struct lv *v, int flavor, const char *prefix)
{
	char name[160], text[1024];
	ssize_t n;
	int ret;

	snprintf(name, sizeof(name), "%sredolog-%s.meta", prefix, flavors[flavor]);
	ret = src_open(&v->s, name);
	if (ret) {
		fprintf(stderr, "logverify: %s: %s\n", name, strerror(-ret));
		return 2;
	}
	n = src_pread(&v->s, text, sizeof(text) - 1, 0);
	src_close(&v->s);
	text[n > 0 ? n : 0] = '\0';
	if (n <= 0 || meta_parse(&v->g, text) || v->g.flavor != flavor) {
		fprintf(stderr, "logverify: %s: not a redolog meta file\n", name);
		return 2;
	}
	return 0;
}

struct side {
	uint64_t ack, ckpt, durable, flavor;
	char prefix[64];
};

static int read_side(const char *path, struct side *sd)
{
	uint8_t b[SIDE_BYTES + 1];
	ssize_t n = -1;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, b, sizeof(b));
		close(fd);
	}
	if (n < SIDE_BYTES || memcmp(b, SIDE_MAGIC, 8))
		return -1;
	sd->ack = le64(b + 8);
	sd->ckpt = le64(b + 16);
	sd->durable = le64(b + 24);
	sd->flavor = le64(b + 32);
	memcpy(sd->prefix, b + 40, sizeof(sd->prefix));
	sd->prefix[sizeof(sd->prefix) - 1] = '\0';
	return sd->flavor > POSTGRES || sd->ckpt > sd->ack + (1ull << 40) ? -1 : 0;
}

/* ---- the command line ---- */
static void usage(FILE *out)
{
	fprintf(out,
		"usage: logverify [options] LSN_FILE\n"
		"Check a redolog engine log: every record up to the acknowledged LSN in\n"
		"LSN_FILE (the engine's lsn_file=) must be present and intact.\n"
		"  --store=B        posix (default), uring, aio, cephfs or rbd\n"
		"  --dir=DIR        posix/uring/aio: the job's directory (default .)\n"
		"  --store-root=P   cephfs: directory inside CephFS (default /)\n"
		"  --ceph-conf=F    ceph.conf (default $CEPH_CONF)\n"
		"  --pool=P         rbd pool (default rbd)\n"
		"  --rbdname=N      rbd image (default dbfio-store)\n"
		"  --prefix=P       file name prefix (default: the one in LSN_FILE)\n"
		"  --durable        check up to the durable LSN instead of the acknowledged one\n"
		"exit: 0 intact, 1 loss or corruption, 2 unusable input\n");
}

static int parse_store(const char *name)
{
	char list[64] = "";
	int i;

	for (i = 0; i < ST_NR; i++)
		if (built[i] && !strcmp(name, stores[i]))
			return i;
	for (i = 0; i < ST_NR; i++)
		if (built[i])
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 list[0] ? "," : "", stores[i]);
	fprintf(stderr, "logverify: --store=%s: unknown or not built (built: %s)\n", name, list);
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "store", 1, 0, 's' }, { "dir", 1, 0, 'd' }, { "store-root", 1, 0, 'r' },
		{ "ceph-conf", 1, 0, 'c' }, { "pool", 1, 0, 'p' }, { "rbdname", 1, 0, 'n' },
		{ "prefix", 1, 0, 'x' }, { "durable", 0, 0, 'D' }, { "help", 0, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	struct lv v = { .s = { .store = ST_POSIX, .dir = ".", .root = "/", .pool = "rbd",
			       .image = "dbfio-store", .fd = -1 } };
	const char *prefix = NULL;
	int c, ret, durable = 0;
	struct side sd;

	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if ((v.s.store = parse_store(optarg)) < 0)
				return 2;
			break;
		case 'd': v.s.dir = optarg; break;
		case 'r': v.s.root = optarg; break;
		case 'c': v.s.conf = optarg; break;
		case 'p': v.s.pool = optarg; break;
		case 'n': v.s.image = optarg; break;
		case 'x': prefix = optarg; break;
		case 'D': durable = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (read_side(argv[optind], &sd)) {
		fprintf(stderr, "logverify: %s: not a redolog LSN sidecar\n", argv[optind]);
		return 2;
	}
	crc_init();
	ret = src_connect(&v);
	/*
	 * Nothing acknowledged past the checkpoint (a run killed while it set
	 * its log up, before the meta file was written): no record was
	 * promised, so none can be lost, whatever the store holds.
	 */
	if (!ret && (durable ? sd.durable : sd.ack) <= sd.ckpt) {
		printf("logverify: ok: no record acknowledged past the checkpoint (LSN %" PRIu64
		       "): nothing to verify, store=%s\n", sd.ckpt, stores[v.s.store]);
		src_exit(&v.s);
		return 0;
	}
	if (!ret)
		ret = read_meta(&v, (int)sd.flavor, prefix ? prefix : sd.prefix);
	if (!ret) {
		v.unit = malloc(v.g.unit);
		ret = v.unit ? walk(&v, sd.ckpt, durable ? sd.durable : sd.ack) : 2;
	}
	free(v.unit);
	src_exit(&v.s);
	return ret;
}
