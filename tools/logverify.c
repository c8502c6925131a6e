/*
 * logverify - check a redolog engine log through any dbfio store backend.
 *
 * Reads the log's geometry from <prefix>redolog-<flavor>.meta in the store and the
 * acknowledged LSN from the engine's sidecar (lsn_file=), then walks every
 * record from the checkpoint LSN up to the acknowledged LSN: block/page
 * header (number, trailer CRC32C / page address), record magic, LSN, length
 * and CRC32C. Exit 0: all intact; 1: loss or corruption (one line saying
 * where and why); 2: unusable input (no store, no meta, no sidecar).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"
#include "redolog/redolog_fmt.h"

#define MAX_REC	(64u << 20)

struct lv {
	struct store *s;
	struct rl_geo g;
	struct store_file *f;	/* the open file and its number */
	uint64_t fno;
	int have_f;
	uint8_t *unit;		/* cached unit and its number */
	uint64_t unit_no;
	int have_unit;
	char why[512];
};

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

static int loss(uint64_t lsn, const char *fmt, const char *detail)
{
	printf("logverify: LOSS at LSN %llu: ", (unsigned long long)lsn);
	printf(fmt, detail);
	printf("\n");
	return 1;
}

/* Fetch unit u; returns NULL and sets why on failure. */
static const uint8_t *lv_unit(struct lv *v, uint64_t u)
{
	uint64_t fno = rl_unit_file(&v->g, u);
	char name[128];
	const char *bad;
	ssize_t n;
	int ret;

	if (v->have_unit && v->unit_no == u)
		return v->unit;
	rl_file_name(&v->g, fno, name, sizeof(name));
	if (!v->have_f || v->fno != fno) {
		if (v->have_f)
			store_close(v->s, v->f);
		v->have_f = 0;
		ret = store_open(v->s, name, O_RDONLY, 0, 0, &v->f);
		if (ret) {
			snprintf(v->why, sizeof(v->why), "log file %s: %s", name, strerror(-ret));
			return NULL;
		}
		v->have_f = 1;
		v->fno = fno;
	}
	n = store_pread(v->s, v->f, v->unit, v->g.unit, rl_unit_off(&v->g, u));
	if (n != (ssize_t)v->g.unit) {
		snprintf(v->why, sizeof(v->why), "%s offset %llu: %s", name,
			 (unsigned long long)rl_unit_off(&v->g, u),
			 n < 0 ? strerror((int)-n) : "short read");
		return NULL;
	}
	bad = rl_unit_check(&v->g, v->unit, u);
	if (bad) {
		snprintf(v->why, sizeof(v->why), "%s offset %llu (unit %llu): %s", name,
			 (unsigned long long)rl_unit_off(&v->g, u), (unsigned long long)u, bad);
		return NULL;
	}
	v->unit_no = u;
	v->have_unit = 1;
	return v->unit;
}

/* Copy n stream bytes at lsn into dst. */
static int lv_read(struct lv *v, uint64_t lsn, uint8_t *dst, uint64_t n)
{
	const uint32_t P = rl_payload(&v->g);

	while (n) {
		const uint8_t *b = lv_unit(v, lsn / P);
		uint32_t in = lsn % P, k = P - in < n ? P - in : (uint32_t)n;

		if (!b)
			return -1;
		memcpy(dst, b + v->g.hdr + in, k);
		dst += k;
		lsn += k;
		n -= k;
	}
	return 0;
}

static int lv_walk(struct lv *v, uint64_t from, uint64_t to)
{
	uint8_t h[RL_REC_HDR], *pl = malloc(MAX_REC);
	uint64_t lsn = from, nrec = 0;
	uint32_t len, crc;
	char d[160];

	if (!pl)
		return 2;
	while (lsn < to) {
		if (lv_read(v, lsn, h, RL_REC_HDR))
			return free(pl), loss(lsn, "%s", v->why);
		len = rl_get32(h + 4);
		if (rl_get32(h) != RL_REC_MAGIC)
			return free(pl), loss(lsn, "%s", "no record header (magic mismatch: zero or overwritten)");
		if (rl_get64(h + 8) != lsn) {
			snprintf(d, sizeof(d), "record header says LSN %llu (stale record)",
				 (unsigned long long)rl_get64(h + 8));
			return free(pl), loss(lsn, "%s", d);
		}
		if (len < RL_REC_HDR || len > MAX_REC || lsn + len > to) {
			snprintf(d, sizeof(d), "record length %u out of range", len);
			return free(pl), loss(lsn, "%s", d);
		}
		if (lv_read(v, lsn + RL_REC_HDR, pl, len - RL_REC_HDR))
			return free(pl), loss(lsn, "%s", v->why);
		crc = rl_get32(h + 16);
		rl_put32(h + 16, 0);
		if (rl_crc32c(rl_crc32c(0, h, RL_REC_HDR), pl, len - RL_REC_HDR) != crc)
			return free(pl), loss(lsn, "%s", "record CRC32C mismatch");
		lsn += len;
		nrec++;
	}
	free(pl);
	printf("logverify: ok: %llu records intact, LSN %llu..%llu, flavor=%s store=%s\n",
	       (unsigned long long)nrec, (unsigned long long)from, (unsigned long long)to,
	       rl_flavor_name(v->g.flavor), store_backend_name(v->s->cfg.backend));
	return 0;
}

static int lv_meta(struct lv *v, int flavor, const char *prefix)
{
	char name[128], text[1024];
	struct store_file *f;
	ssize_t n;
	int ret;

	rl_meta_name(flavor, prefix, name, sizeof(name));
	ret = store_open(v->s, name, O_RDONLY, 0, 0, &f);
	if (ret) {
		fprintf(stderr, "logverify: %s: %s\n", name, strerror(-ret));
		return 2;
	}
	n = store_pread(v->s, f, text, sizeof(text) - 1, 0);
	store_close(v->s, f);
	text[n > 0 ? n : 0] = '\0';
	if (n <= 0 || rl_meta_parse(&v->g, text) || v->g.flavor != flavor) {
		fprintf(stderr, "logverify: %s: not a redolog meta file\n", name);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "store", 1, 0, 's' }, { "dir", 1, 0, 'd' }, { "store-root", 1, 0, 'r' },
		{ "ceph-conf", 1, 0, 'c' }, { "pool", 1, 0, 'p' }, { "rbdname", 1, 0, 'n' },
		{ "prefix", 1, 0, 'x' }, { "durable", 0, 0, 'D' }, { "help", 0, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	struct store_config cfg = { .backend = STORE_POSIX, .root = "." };
	const char *prefix = NULL, *root = NULL;
	struct lv v = { 0 };
	struct rl_side sd;
	int c, fd, ret, durable = 0;
	char err[256];

	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if ((ret = store_backend_parse(optarg)) < 0) {
				fprintf(stderr, "logverify: --store=%s: unknown or not built (built: %s)\n",
					optarg, store_backends_built());
				return 2;
			}
			cfg.backend = ret;
			break;
		case 'd': cfg.root = optarg; break;
		case 'r': root = optarg; break;
		case 'c': cfg.ceph_conf = optarg; break;
		case 'p': cfg.pool = optarg; break;
		case 'n': cfg.rbdname = optarg; break;
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
	fd = open(argv[optind], O_RDONLY);
	if (fd < 0 || read(fd, &sd, sizeof(sd)) != sizeof(sd) || sd.magic != RL_SIDE_MAGIC ||
	    sd.flavor > RL_POSTGRES || sd.ckpt_lsn > sd.ack_lsn + (1ull << 40)) {
		fprintf(stderr, "logverify: %s: not a redolog LSN sidecar\n", argv[optind]);
		return 2;
	}
	close(fd);
	if (cfg.backend == STORE_CEPHFS)
		cfg.root = root ? root : "/";
	if (!cfg.rbdname)
		cfg.rbdname = "dbfio-store";
	ret = store_init(&v.s, &cfg, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "logverify: %s\n", err);
		return 2;
	}
	sd.prefix[sizeof(sd.prefix) - 1] = '\0';
	ret = lv_meta(&v, (int)sd.flavor, prefix ? prefix : sd.prefix);
	if (!ret) {
		v.unit = malloc(v.g.unit);
		ret = v.unit ? lv_walk(&v, sd.ckpt_lsn, durable ? sd.durable_lsn : sd.ack_lsn) : 2;
	}
	if (v.have_f)
		store_close(v.s, v.f);
	free(v.unit);
	store_exit(v.s);
	return ret;
}
