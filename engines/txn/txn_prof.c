/*
 * txn_prof.c - the txn engine's transaction profiles: the tables a benchmark
 * loads, sized as the benchmark sizes them, and per statement the pages it
 * touches. No fio headers.
 *
 *   tpcb             pgbench's default script (scale s: 100000 s accounts,
 *                    10 s tellers, s branches, history appended)
 *   oltp_read_write  sysbench's (table_size rows: 10 point selects, 4 range
 *                    selects of 100 rows, index and non-index update, delete,
 *                    insert)
 *   read_only        sysbench's oltp_read_only (its selects; no log record)
 *   insert           an autocommit one-row INSERT, appended to a table
 *
 * Rows per page are those of PostgreSQL's 8 kB pages (pgbench_accounts: 61
 * rows, 1640 pages at scale 1; its primary key: 366 entries a leaf, 274 leaves)
 * and double on InnoDB's 16 kB pages. B-tree levels above the leaves are
 * assumed resident and not counted: they are a fraction of a percent of an
 * index and the hottest pages of any pool. Per-transaction log bytes are
 * estimates until calibrated (docs/txn.md); PostgreSQL's full-page images
 * come on top (txn_pool.c).
 *
 * Row locks (txn_lock.c): tpcb's three UPDATEs hold their rows until the
 * transaction ends, always in the order accounts, tellers, branches, so
 * transactions cannot deadlock. sysbench's profiles take no row locks: their
 * rows are drawn from table_size rows in any order (a real server detects
 * the rare deadlock and rolls back; at 100000 rows and 16 threads about 0.3%
 * of transactions would meet a held row at all).
 */
#include <string.h>

#include "txn.h"

static const char *const names[TP_NR] = {
	[TP_TPCB] = "tpcb", [TP_OLTP_RW] = "oltp_read_write",
	[TP_INSERT] = "insert", [TP_READ_ONLY] = "read_only",
};

const char *txn_profile_name(int id)
{
	return id >= 0 && id < TP_NR ? names[id] : "?";
}

static void table(struct txn_profile *p, const char *name, uint64_t rows, uint32_t rpp8k,
		  uint32_t page_size, int append)
{
	struct txn_table *t = &p->t[p->ntables++];

	t->name = name;
	t->rows = rows;
	t->rows_per_page = rpp8k * (page_size / 8192 ? page_size / 8192 : 1);
	t->pages = (rows + t->rows_per_page - 1) / t->rows_per_page;
	t->append = append;
}

static struct txn_stmt *stmt(struct txn_profile *p, const char *sql)
{
	struct txn_stmt *s = &p->s[p->nstmts++];

	s->sql = sql;
	s->nacc = 0;
	s->nprobe = 0;
	return s;
}

static void acc(struct txn_stmt *s, unsigned int tab, unsigned int how, unsigned int key, int dirty)
{
	struct txn_acc *a = &s->acc[s->nacc++];

	a->table = tab;
	a->how = how;
	a->key = key;
	a->dirty = dirty;
}

/* postgres: the statement sizes these tables with lseek(SEEK_END) (smgrnblocks). */
static void probes(struct txn_stmt *s, unsigned int n, const uint8_t *tab)
{
	unsigned int i;

	for (i = 0; i < n && s->nprobe < TXN_MAX_PROBES; i++)
		s->probe[s->nprobe++] = tab[i];
}

/* The statement's last access holds its row until the transaction ends (txn_lock.c). */
static void lock_last(struct txn_stmt *s)
{
	s->acc[s->nacc - 1].lock = 1;
}

/* InnoDB: purge comes back to the last access's page after commit (txn_purge.c) */
static void purge_last(struct txn_stmt *s)
{
	s->acc[s->nacc - 1].purge = 1;
}

/*
 * pgbench's tables: relfilenodes 16384.. in this order. The primary keys of
 * tellers and branches (1-2 pages, resident) are here for their size probes
 * only: no statement touches their pages. A history row is 48 bytes (tuple
 * header 24 with the null bitmap: filler is NULL) + a 4-byte line pointer:
 * (8192 - 24) / 52 = 157 a page, as real PostgreSQL 15 extended it once per
 * ~160 transactions.
 */
enum { ACC, ACC_PK, TEL, BR, HIST, TEL_PK, BR_PK };

static void tpcb(struct txn_profile *p, unsigned int scale, uint32_t ps)
{
	/*
	 * PostgreSQL 15's size probes (strace of pgbench -c 1): the planner sizes
	 * each table a statement names and its index (estimate_rel_size); tellers
	 * and branches (a page each) are seq-scanned, which sizes the table again.
	 * INSERT ... VALUES plans no scan; its extensions probe (txn.c).
	 */
	static const uint8_t acc_p[] = { ACC, ACC_PK }, tel_p[] = { TEL, TEL_PK, TEL },
			     br_p[] = { BR, BR_PK, BR };
	struct txn_stmt *s;

	table(p, "pgbench_accounts", 100000ull * scale, 61, ps, 0);
	table(p, "pgbench_accounts_pkey", 100000ull * scale, 366, ps, 0);
	table(p, "pgbench_tellers", 10ull * scale, 61, ps, 0);
	table(p, "pgbench_branches", scale, 61, ps, 0);
	table(p, "pgbench_history", 0, 157, ps, 1);
	table(p, "pgbench_tellers_pkey", 10ull * scale, 366, ps, 0);
	table(p, "pgbench_branches_pkey", scale, 366, ps, 0);
	p->nkeys = 3;
	p->key_table[0] = ACC;	/* aid */
	p->key_table[1] = TEL;	/* tid */
	p->key_table[2] = BR;	/* bid */
	stmt(p, "BEGIN");
	s = stmt(p, "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid");
	acc(s, ACC_PK, TA_ROW, 0, 1);	/* fillfactor 100: not HOT, a new index entry */
	acc(s, ACC, TA_ROW, 0, 1);
	lock_last(s);
	purge_last(s);		/* InnoDB: DB_TRX_ID reset (the clustered index is the table) */
	probes(s, 2, acc_p);
	s = stmt(p, "SELECT abalance FROM pgbench_accounts WHERE aid = :aid");
	acc(s, ACC_PK, TA_ROW, 0, 0);
	acc(s, ACC, TA_ROW, 0, 0);
	probes(s, 2, acc_p);
	s = stmt(p, "UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid");
	acc(s, TEL, TA_ROW, 1, 1);
	lock_last(s);
	purge_last(s);
	probes(s, 3, tel_p);
	s = stmt(p, "UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid");
	acc(s, BR, TA_ROW, 2, 1);
	lock_last(s);	/* one of `scale` rows: the lock clients queue on */
	purge_last(s);
	probes(s, 3, br_p);
	s = stmt(p, "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (...)");
	acc(s, HIST, TA_APPEND, 0, 1);
	stmt(p, "END");
	p->log_bytes = 560;
	p->binlog_bytes = 700;
}

/* sysbench's selects: 10 point selects (keys 0-9), 4 ranges (keys 10-13). */
static void sb_selects(struct txn_profile *p)
{
	static const char *const rng[4] = {
		"SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?+99",
		"SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?+99",
		"SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?+99 ORDER BY c",
		"SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ?+99 ORDER BY c",
	};
	unsigned int i;

	for (i = 0; i < 10; i++)
		acc(stmt(p, "SELECT c FROM sbtest1 WHERE id=?"), 0, TA_ROW, i, 0);
	for (i = 0; i < 4; i++)
		acc(stmt(p, rng[i]), 0, TA_RANGE, 10 + i, 0);
}

static void sysbench(struct txn_profile *p, uint64_t rows, uint32_t ps, int writes)
{
	struct txn_stmt *s;
	unsigned int i;

	table(p, "sbtest1", rows, 37, ps, 0);
	table(p, "sbtest1_k_1", rows, 400, ps, 0);
	p->nkeys = writes ? 20 : 14;
	for (i = 0; i < p->nkeys; i++)	/* the k index is drawn in the same range */
		p->key_table[i] = i == 15 || i == 18 || i == 19 ? 1 : 0;
	stmt(p, "BEGIN");
	sb_selects(p);
	if (writes) {
		/*
		 * InnoDB's purge afterwards (purge_last): DB_TRX_ID reset in each
		 * changed clustered record; the k_1 entries the UPDATE of k and the
		 * DELETE delete-marked, removed
		 */
		s = stmt(p, "UPDATE sbtest1 SET k=k+1 WHERE id=?");
		acc(s, 0, TA_ROW, 14, 1);
		purge_last(s);
		acc(s, 1, TA_ROW, 15, 1);	/* (k, id) delete-marked, (k+1, id) beside it */
		purge_last(s);
		s = stmt(p, "UPDATE sbtest1 SET c=? WHERE id=?");
		acc(s, 0, TA_ROW, 16, 1);
		purge_last(s);
		s = stmt(p, "DELETE FROM sbtest1 WHERE id=?");
		acc(s, 0, TA_ROW, 17, 1);
		acc(s, 1, TA_ROW, 18, 1);
		purge_last(s);
		/*
		 * the deleted id again, with a new random k: another k_1 leaf; the
		 * delete-marked record is reused in place (its reset: purge_last)
		 */
		s = stmt(p, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)");
		acc(s, 0, TA_ROW, 17, 1);
		purge_last(s);
		acc(s, 1, TA_ROW, 19, 1);
	}
	stmt(p, "COMMIT");
	p->log_bytes = writes ? 1200 : 0;
	p->binlog_bytes = writes ? 1100 : 0;
}

static void insert(struct txn_profile *p, uint64_t rows, uint32_t ps)
{
	struct txn_stmt *s;

	table(p, "sbtest1", rows, 37, ps, 1);
	table(p, "sbtest1_pkey", rows, 400, ps, 1);
	p->nkeys = 0;
	s = stmt(p, "INSERT INTO sbtest1 (k, c, pad) VALUES (?, ?, ?)");
	acc(s, 0, TA_APPEND, 0, 1);
	acc(s, 1, TA_APPEND, 0, 1);
	p->log_bytes = 320;
	p->binlog_bytes = 300;
}

void txn_profile_make(struct txn_profile *p, int id, unsigned int scale, uint64_t rows,
		      uint32_t page_size)
{
	uint64_t cap = 64;
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->id = id;
	p->name = txn_profile_name(id);
	switch (id) {
	case TP_TPCB:
		tpcb(p, scale, page_size);
		break;
	case TP_OLTP_RW:
	case TP_READ_ONLY:
		sysbench(p, rows, page_size, id == TP_OLTP_RW);
		break;
	default:
		insert(p, rows, page_size);
		break;
	}
	/* an appended table wraps at the size of the largest loaded one (64 pages at least) */
	for (i = 0; i < p->ntables; i++)
		if (!p->t[i].append && p->t[i].pages > cap)
			cap = p->t[i].pages;
	for (i = 0; i < p->ntables; i++)
		if (p->t[i].append && p->t[i].pages < cap)
			p->t[i].pages = cap;
}
