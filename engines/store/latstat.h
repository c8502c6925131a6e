/*
 * latstat.h - per-call latency accounting shared by the dbfio engines.
 *
 * A log-linear histogram (HdrHistogram-like): values are nanoseconds, every
 * power of two is split into LATSTAT_SUB linear sub-buckets, so the relative
 * error of a percentile is below 1/LATSTAT_SUB. Adding a sample is a few
 * integer operations and never allocates; a struct latstat is plain data and
 * can be zeroed with memset or merged with latstat_merge().
 *
 * Not thread-safe: give every thread its own and merge at the end.
 */
#ifndef DBFIO_LATSTAT_H
#define DBFIO_LATSTAT_H

#include <stdint.h>
#include <stdio.h>

#define LATSTAT_SUB_BITS	4
#define LATSTAT_SUB		(1u << LATSTAT_SUB_BITS)
/* 44 groups of 16 linear sub-buckets cover 0 .. 2^47 ns (~39 hours); larger values land in the last bucket */
#define LATSTAT_GROUPS		44
#define LATSTAT_BUCKETS		(LATSTAT_GROUPS * LATSTAT_SUB)

struct latstat {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	uint64_t bucket[LATSTAT_BUCKETS];
};

/* One row of a table: a name and its histogram. */
struct latstat_row {
	const char *name;
	const struct latstat *ls;
};

void latstat_reset(struct latstat *ls);
void latstat_add(struct latstat *ls, uint64_t ns);
void latstat_merge(struct latstat *dst, const struct latstat *src);
/* p in [0, 100]; returns the upper bound of the bucket holding that rank, clamped to max */
uint64_t latstat_percentile(const struct latstat *ls, double p);
uint64_t latstat_mean(const struct latstat *ls);

/*
 * Aligned text table: name, count, avg, p50, p90, p99, p99.9, max, total.
 * Rows with count == 0 are skipped. Units are chosen per value (ns/us/ms/s).
 */
void latstat_print_table(FILE *out, const char *title,
			 const struct latstat_row *rows, int nrows);

/*
 * One JSON value (json_out.h), an object: {"<name>": {"count":..,"mean_ns":..,
 * "p50_ns":..,"p90_ns":..,"p99_ns":..,"p99_9_ns":..,"min_ns":..,"max_ns":..,
 * "total_ns":..}, ...}. Rows with count == 0 are written too (count 0), so
 * readers see every name.
 */
struct json_out;
void latstat_json(struct json_out *j, const struct latstat_row *rows, int nrows);

/* Monotonic clock in nanoseconds. */
uint64_t latstat_now_ns(void);

#endif
