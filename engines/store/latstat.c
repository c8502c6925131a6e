/*
 * latstat.c - per-call latency histograms for the dbfio engines.
 *
 * Bucket layout. With S = LATSTAT_SUB_BITS, a value v goes to
 *
 *	shift  = max(0, msb(v) - S)
 *	bucket = shift * LATSTAT_SUB + (v >> shift)
 *
 * v >> shift keeps the top bit of v plus the S bits below it, so it lies in
 * [LATSTAT_SUB, 2 * LATSTAT_SUB) once v is that large; the top bit is what
 * moves the index one group further up. Below 2 * LATSTAT_SUB the shift is
 * 0 and every value has a bucket of its own (bucket == value). Above that,
 * each group covers one power of two in LATSTAT_SUB buckets of width
 * 2^shift, while the smallest value in the group is LATSTAT_SUB * 2^shift:
 * a bucket's upper bound is therefore within 1/LATSTAT_SUB of any value in
 * it. Values too large for the last group are folded into the last bucket,
 * which is treated as open-ended.
 *
 * Percentiles use the nearest-rank method and report the upper bound of the
 * bucket holding that rank, so they never understate a latency; the result
 * is clamped to [min_ns, max_ns], which makes a histogram with one sample
 * (or one busy bucket) report real values instead of bucket edges.
 */
#include <float.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "json_out.h"
#include "latstat.h"

#define LATSTAT_LAST	(LATSTAT_BUCKETS - 1)

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;

	/* a total that wrapped around would look plausible; a stuck one doesn't */
	if (__builtin_add_overflow(a, b, &r))
		return UINT64_MAX;
	return r;
}

static inline unsigned int bucket_of(uint64_t ns)
{
	/* OR-ing in LATSTAT_SUB gives small values shift 0 without a branch */
	unsigned int msb = 63u - (unsigned int)__builtin_clzll(ns | LATSTAT_SUB);
	unsigned int shift = msb - LATSTAT_SUB_BITS;

	if (shift >= LATSTAT_GROUPS - 1)
		return LATSTAT_LAST;
	return (shift << LATSTAT_SUB_BITS) + (unsigned int)(ns >> shift);
}

/* Largest value that maps to bucket b. */
static uint64_t bucket_upper(unsigned int b)
{
	unsigned int shift;
	uint64_t mant;

	if (b >= LATSTAT_LAST)
		return UINT64_MAX;	/* holds everything above; clamped to max */
	if (b < LATSTAT_SUB)
		return b;
	shift = (b >> LATSTAT_SUB_BITS) - 1;
	mant = b - (shift << LATSTAT_SUB_BITS);
	return (mant << shift) + ((1ull << shift) - 1);
}

void latstat_reset(struct latstat *ls)
{
	memset(ls, 0, sizeof(*ls));
}

void latstat_add(struct latstat *ls, uint64_t ns)
{
	/* count == 0 rather than a sentinel min: a memset struct must work */
	if (!ls->count || ns < ls->min_ns)
		ls->min_ns = ns;
	if (ns > ls->max_ns)
		ls->max_ns = ns;
	ls->count++;
	ls->sum_ns = sat_add(ls->sum_ns, ns);
	ls->bucket[bucket_of(ns)]++;
}

void latstat_merge(struct latstat *dst, const struct latstat *src)
{
	unsigned int i;

	if (!src->count)
		return;
	if (!dst->count || src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	dst->count += src->count;
	dst->sum_ns = sat_add(dst->sum_ns, src->sum_ns);
	for (i = 0; i < LATSTAT_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
}

/* Nearest rank: ceil(p / 100 * count), within [1, count]. */
static uint64_t rank_of(uint64_t count, double p)
{
	double x;
	uint64_t rank;

	if (!(p > 0.0))		/* also catches NaN */
		return 1;
	if (p >= 100.0)
		return count;
	x = p * (double)count / 100.0;
	rank = (uint64_t)x;
	/*
	 * p is usually a decimal such as 99.9 that a double cannot hold, so
	 * x can come out a few ulps above the integer it stands for (99.9% of
	 * 1000 must be rank 999, not 1000). Only round up past that noise.
	 */
	if (x - (double)rank > x * 4 * DBL_EPSILON)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > count)
		rank = count;
	return rank;
}

uint64_t latstat_percentile(const struct latstat *ls, double p)
{
	uint64_t rank, seen = 0, v;
	unsigned int b;

	if (!ls->count)
		return 0;
	rank = rank_of(ls->count, p);
	for (b = 0; b < LATSTAT_BUCKETS; b++) {
		seen += ls->bucket[b];
		if (seen >= rank)
			break;
	}
	/* b == LATSTAT_BUCKETS only if the buckets disagree with count */
	v = b < LATSTAT_BUCKETS ? bucket_upper(b) : ls->max_ns;
	if (v > ls->max_ns)
		v = ls->max_ns;
	if (v < ls->min_ns)
		v = ls->min_ns;
	return v;
}

uint64_t latstat_mean(const struct latstat *ls)
{
	return ls->count ? ls->sum_ns / ls->count : 0;
}

/* ---- text table ---- */

#define TBL_COLS	9
#define CELL_LEN	32

struct unit {
	uint64_t div;
	const char *name;
};

static const struct unit units[] = {
	{ 1000000000ull, "s" },
	{ 1000000ull, "ms" },
	{ 1000ull, "us" },
};

static const char *const tbl_head[TBL_COLS] = {
	"op", "count", "avg", "p50", "p90", "p99", "p99.9", "max", "total",
};

static const double tbl_pct[] = { 50.0, 90.0, 99.0, 99.9 };

/* One formatted row: cell[0] is the name, the others point into buf. */
struct tbl_line {
	const char *cell[TBL_COLS];
	char buf[TBL_COLS][CELL_LEN];
};

/* round(ns * scale / div) without forming ns * scale, which may overflow */
static uint64_t div_round(uint64_t ns, uint64_t div, uint64_t scale)
{
	return ns / div * scale + (ns % div * scale + div / 2) / div;
}

/* Three significant digits: 9.99, 99.9, 999 (more only for seconds). */
static void fmt_scaled(char *buf, uint64_t ns, const struct unit *u)
{
	uint64_t v;

	/* round at each precision first, so 9.996 becomes "10.0", not "10.00" */
	v = div_round(ns, u->div, 100);
	if (v < 1000) {
		snprintf(buf, CELL_LEN, "%" PRIu64 ".%02" PRIu64 "%s",
			 v / 100, v % 100, u->name);
		return;
	}
	v = div_round(ns, u->div, 10);
	if (v < 1000) {
		snprintf(buf, CELL_LEN, "%" PRIu64 ".%" PRIu64 "%s",
			 v / 10, v % 10, u->name);
		return;
	}
	v = div_round(ns, u->div, 1);
	snprintf(buf, CELL_LEN, "%" PRIu64 "%s", v, u->name);
}

static void fmt_ns(char *buf, uint64_t ns)
{
	unsigned int i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		/* take the unit only if the value still reads >= 1.00 in it */
		if (ns >= units[i].div - units[i].div / 2000) {
			fmt_scaled(buf, ns, &units[i]);
			return;
		}
	}
	snprintf(buf, CELL_LEN, "%" PRIu64 "ns", ns);
}

static int row_used(const struct latstat_row *r)
{
	return r->ls && r->ls->count;
}

static void tbl_fill(struct tbl_line *l, const struct latstat_row *r)
{
	const struct latstat *ls = r->ls;
	int i;

	l->cell[0] = r->name ? r->name : "";
	snprintf(l->buf[1], CELL_LEN, "%" PRIu64, ls->count);
	fmt_ns(l->buf[2], latstat_mean(ls));
	for (i = 0; i < 4; i++)
		fmt_ns(l->buf[3 + i], latstat_percentile(ls, tbl_pct[i]));
	fmt_ns(l->buf[7], ls->max_ns);
	fmt_ns(l->buf[8], ls->sum_ns);
	for (i = 1; i < TBL_COLS; i++)
		l->cell[i] = l->buf[i];
}

static void tbl_widen(int width[TBL_COLS], const char *const cell[TBL_COLS])
{
	int i, len;

	for (i = 0; i < TBL_COLS; i++) {
		len = (int)strlen(cell[i]);
		if (len > width[i])
			width[i] = len;
	}
}

/* Name left-aligned, numbers right-aligned, so no line has trailing blanks. */
static void tbl_print(FILE *out, const char *const cell[TBL_COLS],
		      const int width[TBL_COLS])
{
	int i;

	fprintf(out, "%-*s", width[0], cell[0]);
	for (i = 1; i < TBL_COLS; i++)
		fprintf(out, "  %*s", width[i], cell[i]);
	fputc('\n', out);
}

void latstat_print_table(FILE *out, const char *title,
			 const struct latstat_row *rows, int nrows)
{
	struct tbl_line line;
	int width[TBL_COLS] = { 0 };
	int i, used = 0;

	/*
	 * Two passes, formatting each row twice, so column widths are known
	 * without allocating room for every row.
	 */
	tbl_widen(width, tbl_head);
	for (i = 0; i < nrows; i++) {
		if (!row_used(&rows[i]))
			continue;
		tbl_fill(&line, &rows[i]);
		tbl_widen(width, line.cell);
		used++;
	}

	if (title)
		fprintf(out, "%s\n", title);
	tbl_print(out, tbl_head, width);
	if (!used) {
		fprintf(out, "(no calls)\n");
		return;
	}
	for (i = 0; i < nrows; i++) {
		if (!row_used(&rows[i]))
			continue;
		tbl_fill(&line, &rows[i]);
		tbl_print(out, line.cell, width);
	}
}

/* ---- JSON ---- */

static void json_row(struct json_out *j, const struct latstat_row *r)
{
	static const struct latstat empty;
	const struct latstat *ls = r->ls ? r->ls : &empty;

	json_kobj(j, r->name ? r->name : "");
	json_kuint(j, "count", ls->count);
	json_kuint(j, "mean_ns", latstat_mean(ls));
	json_kuint(j, "p50_ns", latstat_percentile(ls, 50.0));
	json_kuint(j, "p90_ns", latstat_percentile(ls, 90.0));
	json_kuint(j, "p99_ns", latstat_percentile(ls, 99.0));
	json_kuint(j, "p99_9_ns", latstat_percentile(ls, 99.9));
	json_kuint(j, "min_ns", ls->min_ns);
	json_kuint(j, "max_ns", ls->max_ns);
	json_kuint(j, "total_ns", ls->sum_ns);
	json_obj_end(j);
}

void latstat_json(struct json_out *j, const struct latstat_row *rows, int nrows)
{
	int i;

	json_obj_begin(j);
	for (i = 0; i < nrows; i++)
		json_row(j, &rows[i]);
	json_obj_end(j);
}

uint64_t latstat_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
