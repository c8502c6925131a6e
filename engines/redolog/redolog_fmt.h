/*
 * redolog_fmt.h - the on-store format of the redolog engine's logs, shared by
 * the engine (engines/redolog*.c) and tools/logverify.c. No fio headers here.
 *
 * A log is a logical byte stream; a record's LSN is its offset in the stream.
 * Each record starts with a 24-byte header {magic, len, lsn, crc32c, seq};
 * the CRC covers the header (crc field zero) and the payload. The flavor maps
 * the stream onto files in "units":
 *
 *   mysql     512-byte blocks: 12-byte header {hdr_no, data_len,
 *             first_rec_group, checkpoint_no} + 496 bytes + 4-byte trailer
 *             (CRC32C of the first 508 bytes); 2048-byte file header; the
 *             files of the group are used in turn and wrap (circular).
 *             MySQL 8.0.30+ layout (innodb_redo_log_capacity, meta line
 *             "layout=redo8030"): same blocks, 32 files <prefix>#innodb_redo/
 *             #ib_redoN, N = file number = stream unit / units per file,
 *             never wrapped: spares wait as #ib_redoN_tmp, consumed files are
 *             renamed to the next number (recycled).
 *   mariadb   no framing: the stream is copied as is after a 12 KiB file
 *             header of one circular ib_logfile0; "unit" = the write size.
 *   postgres  8 kB pages: 24-byte page header {magic, info, tli, pageaddr,
 *             rem_len} + 8168 bytes; segments named as PostgreSQL names them
 *             (timeline 1, first segment 1), recycled by renaming.
 *
 * The geometry is written as text to "<prefix>redolog-<flavor>.meta" in the
 * store (flavors can share a directory), so
 * logverify reads any log without being told its layout. Lines after
 * "prefix=" are optional extensions (older meta files lack them): "layout="
 * and, for redo8030, "last_file=" (highest file number at clean shutdown). The sidecar (a local
 * file, 72 bytes) holds {magic, acknowledged LSN, checkpoint LSN, durable
 * LSN, flavor, file name prefix}: every record in [checkpoint, acknowledged) must be intact.
 */
#ifndef DBFIO_REDOLOG_FMT_H
#define DBFIO_REDOLOG_FMT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <inttypes.h>
#include <pthread.h>

enum rl_flavor { RL_MYSQL, RL_MARIADB, RL_POSTGRES };

#define RL_REC_MAGIC	0x474f4c52u	/* "RLOG" */
#define RL_REC_HDR	24u
#define RL_PG_MAGIC	0xD110u		/* PostgreSQL 15's XLOG_PAGE_MAGIC */
#define RL_SIDE_MAGIC	0x324e534c474f4c52ull	/* "RLOGLSN2": 104 bytes, 64-byte prefix */

struct rl_rec_hdr {
	uint32_t magic;
	uint32_t len;		/* whole record, header included */
	uint64_t lsn;
	uint32_t crc;		/* crc32c(header with crc = 0, payload) */
	uint32_t seq;		/* commit number (low 32 bits) */
};

struct rl_side {
	uint64_t magic;
	uint64_t ack_lsn;	/* end of the last acknowledged record */
	uint64_t ckpt_lsn;	/* first record still guaranteed in the log */
	uint64_t durable_lsn;	/* end of the last flushed record */
	uint64_t flavor;	/* enum rl_flavor: names the meta file */
	char prefix[64];	/* rl_geo.prefix of the files (NUL-terminated) */
};

struct rl_geo {
	int flavor;
	uint32_t unit;		/* unit (block/page/write) size */
	uint32_t hdr, trl;	/* unit header and trailer bytes */
	uint64_t file_hdr;	/* bytes before the first unit of a file */
	uint64_t file_size;
	uint32_t nfiles;	/* circular: files; postgres: segments kept */
	int redo8030;		/* mysql: 8.0.30+ #innodb_redo/#ib_redoN files, recycled */
	char prefix[64];	/* file name prefix */
};

#define RL_REDO_FILES	32	/* MySQL 8.0.30+: capacity / 32 per file */
#define RL_REDO_DIR	"#innodb_redo"


/*
 * ---- CRC32C (Castagnoli), reflected polynomial 0x82F63B78 ----
 * Table-driven, slicing-by-8 (eight 256-entry tables, 8 bytes per step):
 * records are CRC'd on the commit path, so bytes/cycle matter. The tables
 * are built once per process under pthread_once: fio's jobs are threads,
 * and a table half built by one job gave another false CRC mismatches.
 */
static uint32_t rl_crc_t[8][256];
static pthread_once_t rl_crc_once = PTHREAD_ONCE_INIT;

static void rl_crc32c_init(void)
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		for (c = i, j = 0; j < 8; j++)
			c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		rl_crc_t[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (j = 1; j < 8; j++)
			rl_crc_t[j][i] = (rl_crc_t[j - 1][i] >> 8) ^ rl_crc_t[0][rl_crc_t[j - 1][i] & 0xff];
}

static inline uint32_t rl_crc32c(uint32_t crc, const void *buf, size_t len)
{
	uint32_t (*t)[256] = rl_crc_t;
	const uint8_t *p = buf;
	uint32_t lo, hi;

	pthread_once(&rl_crc_once, rl_crc32c_init);
	crc = ~crc;
	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&lo, p, 4);
		memcpy(&hi, p + 4, 4);
		lo ^= crc;
		crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^
		      t[4][lo >> 24] ^ t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
		      t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
	}
	while (len--)
		crc = t[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* ---- geometry ---- */
static inline uint32_t rl_payload(const struct rl_geo *g)
{
	return g->unit - g->hdr - g->trl;
}

static inline uint64_t rl_units_per_file(const struct rl_geo *g)
{
	return (g->file_size - g->file_hdr) / g->unit;
}

static inline int rl_circular(const struct rl_geo *g)
{
	return g->flavor != RL_POSTGRES && !g->redo8030;
}

/* File number of unit u: circular index, postgres segment, #ib_redoN number. */
static inline uint64_t rl_unit_file(const struct rl_geo *g, uint64_t u)
{
	uint64_t f = u / rl_units_per_file(g);

	if (rl_circular(g))
		return f % g->nfiles;
	return g->flavor == RL_POSTGRES ? f + 1 : f;
}

static inline uint64_t rl_unit_off(const struct rl_geo *g, uint64_t u)
{
	return g->file_hdr + (u % rl_units_per_file(g)) * g->unit;
}

static inline void rl_file_name(const struct rl_geo *g, uint64_t fileno,
				char *buf, size_t len)
{
	uint64_t per_id = 0x100000000ull / g->file_size;

	switch (g->flavor) {
	case RL_MYSQL:
		if (g->redo8030)
			snprintf(buf, len, "%s" RL_REDO_DIR "/#ib_redo%" PRIu64, g->prefix, fileno);
		else
			snprintf(buf, len, "%sib_logfile%" PRIu64, g->prefix, fileno);
		break;
	case RL_MARIADB:
		snprintf(buf, len, "%sib_logfile0", g->prefix);
		break;
	default:	/* XLogFileName(): timeline, log id, segment */
		snprintf(buf, len, "%s%08X%08X%08X", g->prefix, 1u,
			 (unsigned int)(fileno / per_id), (unsigned int)(fileno % per_id));
	}
}

/*
 * The stream bytes one can keep without overwriting a record needed after
 * the checkpoint: the files (postgres: all kept segments but the one being
 * filled), minus the write-ahead padding and two units of slack.
 */
static inline uint64_t rl_capacity(const struct rl_geo *g, uint64_t pad)
{
	uint64_t units = rl_units_per_file(g) * (rl_circular(g) ? g->nfiles : g->nfiles - 1);
	uint64_t slack = pad / g->unit + 2;

	return units > slack ? (units - slack) * rl_payload(g) : 0;
}

/* ---- unit headers ---- */
static inline void rl_put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void rl_put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static inline uint32_t rl_get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t rl_get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* InnoDB's 1 GiB-periodic block number: hdr_no = 1 + (lsn / 512) mod 2^30 */
static inline uint32_t rl_mysql_hdr_no(uint64_t u)
{
	return (uint32_t)((u % 0x40000000ull) + 1);
}

/*
 * Finish a unit's header/trailer before it is written. used: payload bytes
 * filled; first: offset of the first record starting in it (0: none);
 * rem: postgres, bytes of a record continued from the previous page.
 */
static inline void rl_unit_seal(const struct rl_geo *g, uint8_t *b, uint64_t u,
				uint32_t used, uint32_t first, uint32_t rem)
{
	switch (g->flavor) {
	case RL_MYSQL:
		rl_put32(b, rl_mysql_hdr_no(u));
		b[4] = (uint8_t)((g->hdr + used) >> 8);
		b[5] = (uint8_t)(g->hdr + used);
		b[6] = (uint8_t)(first >> 8);
		b[7] = (uint8_t)first;
		rl_put32(b + 8, 0);
		rl_put32(b + g->unit - 4, rl_crc32c(0, b, g->unit - 4));
		break;
	case RL_POSTGRES:
		b[0] = RL_PG_MAGIC & 0xff;
		b[1] = RL_PG_MAGIC >> 8;
		b[2] = rem ? 1 : 0;	/* XLP_FIRST_IS_CONTRECORD */
		b[3] = 0;
		rl_put32(b + 4, 1);
		rl_put64(b + 8, u * (uint64_t)g->unit);
		rl_put32(b + 16, rem);
		rl_put32(b + 20, 0);
		break;
	default:
		break;
	}
}

/* Check a unit read back; returns NULL or a reason. */
static inline const char *rl_unit_check(const struct rl_geo *g, const uint8_t *b, uint64_t u)
{
	switch (g->flavor) {
	case RL_MYSQL:
		if (rl_get32(b) != rl_mysql_hdr_no(u))
			return "block number in the block header is not this block's (stale or zero block)";
		if (rl_get32(b + g->unit - 4) != rl_crc32c(0, b, g->unit - 4))
			return "block trailer checksum mismatch";
		break;
	case RL_POSTGRES:
		if (b[0] != (RL_PG_MAGIC & 0xff) || b[1] != RL_PG_MAGIC >> 8)
			return "WAL page magic mismatch (zero or foreign page)";
		if (rl_get64(b + 8) != u * (uint64_t)g->unit)
			return "WAL page address is not this page's (stale recycled page)";
		break;
	default:
		break;
	}
	return NULL;
}

/* ---- the meta file ---- */
static inline const char *rl_flavor_name(int f)
{
	return f == RL_MYSQL ? "mysql" : f == RL_MARIADB ? "mariadb" : "postgres";
}

static inline void rl_meta_name(int flavor, const char *prefix, char *buf, size_t len)
{
	snprintf(buf, len, "%sredolog-%s.meta", prefix, rl_flavor_name(flavor));
}

static inline int rl_meta_format(const struct rl_geo *g, char *buf, size_t len)
{
	return snprintf(buf, len,
			"flavor=%s\nunit=%u\nhdr=%u\ntrl=%u\nfile_hdr=%" PRIu64
			"\nfile_size=%" PRIu64 "\nnfiles=%u\nprefix=%s\n%s",
			rl_flavor_name(g->flavor), g->unit, g->hdr, g->trl,
			g->file_hdr, g->file_size, g->nfiles, g->prefix,
			g->redo8030 ? "layout=redo8030\n" : "");
}

/* Returns 0 or -1 when the text is not a complete, sane geometry. */
static inline int rl_meta_parse(struct rl_geo *g, const char *text)
{
	char fl[16] = "";
	int n;

	memset(g, 0, sizeof(*g));
	n = sscanf(text, "flavor=%15s\nunit=%u\nhdr=%u\ntrl=%u\nfile_hdr=%" SCNu64
		   "\nfile_size=%" SCNu64 "\nnfiles=%u\nprefix=%63[^\n]",
		   fl, &g->unit, &g->hdr, &g->trl, &g->file_hdr, &g->file_size,
		   &g->nfiles, g->prefix);
	if (n < 7)
		return -1;
	if (n == 7)
		g->prefix[0] = '\0';
	if (!strcmp(fl, "mysql"))
		g->flavor = RL_MYSQL;
	else if (!strcmp(fl, "mariadb"))
		g->flavor = RL_MARIADB;
	else if (!strcmp(fl, "postgres"))
		g->flavor = RL_POSTGRES;
	else
		return -1;
	g->redo8030 = g->flavor == RL_MYSQL && strstr(text, "\nlayout=redo8030\n") != NULL;
	if (!g->unit || g->hdr + g->trl >= g->unit || !g->nfiles ||
	    g->file_size <= g->file_hdr || rl_units_per_file(g) == 0)
		return -1;
	return 0;
}

#endif
