/*
 * txn_sum.c - the database's summary in the user's words: transactions, tps,
 * latency average/p95/p99, commits per flush, connections and the
 * calibration, as pgbench and sysbench print theirs (and summary_json=).
 * fio's IOPS is the same tps, but a txn job's "bandwidth" means nothing, and
 * fio reports each connection apart. No fio headers.
 */
#include <stdio.h>

#include "store/json_out.h"
#include "txn.h"

static unsigned int sum_idx(uint64_t v)
{
	unsigned int msb, err;

	if (v < 2 * TXN_SUM_SUB)
		return (unsigned int)v;
	if (v >> 47)
		v = (1ull << 47) - 1;
	msb = 63 - (unsigned int)__builtin_clzll(v);
	err = msb - TXN_SUM_BITS;
	return ((err + 1) << TXN_SUM_BITS) + (unsigned int)((v >> err) & (TXN_SUM_SUB - 1));
}

static uint64_t sum_val(unsigned int idx)
{
	unsigned int err;

	if (idx < 2 * TXN_SUM_SUB)
		return idx;
	err = (idx >> TXN_SUM_BITS) - 1;
	/* the middle of the bucket, as fio's plat_idx_to_val() */
	return (1ull << (err + TXN_SUM_BITS)) + ((idx & (TXN_SUM_SUB - 1)) << err) +
	       (1ull << err) / 2;
}

void txn_sum_add(struct txn_sum *s, uint64_t start_ns, uint64_t end_ns)
{
	uint64_t ns = end_ns > start_ns ? end_ns - start_ns : 0;

	if (!s->count || start_ns < s->first_ns)
		s->first_ns = start_ns;
	if (end_ns > s->last_ns)
		s->last_ns = end_ns;
	s->count++;
	s->sum_ns += ns;
	s->bucket[sum_idx(ns)]++;
}

void txn_sum_merge(struct txn_sum *dst, const struct txn_sum *src)
{
	unsigned int i;

	uint64_t span = src->last_ns > src->first_ns ? src->last_ns - src->first_ns : 0;

	dst->conns++;
	if (!src->count)
		return;
	if (span > dst->span_ns)
		dst->span_ns = span;
	if (!dst->count || src->first_ns < dst->first_ns)
		dst->first_ns = src->first_ns;
	if (src->last_ns > dst->last_ns)
		dst->last_ns = src->last_ns;
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	for (i = 0; i < TXN_SUM_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
}

uint64_t txn_sum_pct(const struct txn_sum *s, double p)
{
	double want = p / 100.0 * (double)s->count;
	uint64_t run = 0;
	unsigned int i;

	if (!s->count)
		return 0;
	for (i = 0; i < TXN_SUM_BUCKETS; i++) {
		run += s->bucket[i];
		if (s->bucket[i] && (double)run >= want)
			return sum_val(i);
	}
	return sum_val(TXN_SUM_BUCKETS - 1);
}

/* A connection's own first..last before it is merged; the longest after. */
static double seconds(const struct txn_sum *s)
{
	if (s->conns)
		return s->span_ns / 1e9;
	return s->last_ns > s->first_ns ? (s->last_ns - s->first_ns) / 1e9 : 0.0;
}

double txn_sum_tps(const struct txn_sum *s)
{
	double t = seconds(s);

	return t > 0 ? s->count / t : 0.0;
}

static double avg_ms(const struct txn_sum *s)
{
	return s->count ? s->sum_ns / 1e6 / s->count : 0.0;
}

void txn_sum_print(FILE *f, const struct txn_sum *s, const struct txn_sum_info *in)
{
	char cpu[160];

	dbtime_scale_line(cpu, sizeof(cpu), &in->cpu.ref);
	fprintf(f, "txn: summary of database %s\n"
		"transaction type: %s (flavor=%s)\n"
		"calibration: %s\n"
		"calibrated values: %s\n"
		"cpu: %s\n"
		"number of clients: %u\n"
		"number of transactions actually processed: %llu\n"
		"duration: %.3f s\n"
		"latency average = %.3f ms\n"
		"latency p95 = %.3f ms\n"
		"latency p99 = %.3f ms\n"
		"commits per flush = %.2f (%llu commits, %llu log flushes)\n"
		"tps = %.2f\n",
		in->db, in->profile, in->flavor, in->calibration, in->timing, cpu, s->conns,
		(unsigned long long)s->count, seconds(s), avg_ms(s),
		txn_sum_pct(s, 95) / 1e6, txn_sum_pct(s, 99) / 1e6,
		in->flushes ? (double)in->commits / in->flushes : 0.0,
		(unsigned long long)in->commits, (unsigned long long)in->flushes, txn_sum_tps(s));
}

void txn_sum_json(struct json_out *j, void *arg)
{
	const struct txn_sum_json *a = arg;
	const struct txn_sum *s = a->s;
	const struct txn_sum_info *in = a->in;

	json_obj_begin(j);
	json_kstr(j, "engine", "txn");
	json_kstr(j, "database", in->db);
	json_kstr(j, "txn_profile", in->profile);
	json_kstr(j, "flavor", in->flavor);
	json_kstr(j, "calibration", in->calibration);
	json_kstr(j, "calibrated_values", in->timing);
	json_kobj(j, "cpu");
	dbtime_scale_json(j, &in->cpu.ref);
	json_obj_end(j);
	json_kuint(j, "connections", s->conns);
	json_kuint(j, "transactions", s->count);
	json_kreal(j, "seconds", seconds(s), 6);
	json_kreal(j, "tps", txn_sum_tps(s), 3);
	json_kobj(j, "latency_ns");
	json_kuint(j, "avg", s->count ? s->sum_ns / s->count : 0);
	json_kuint(j, "p95", txn_sum_pct(s, 95));
	json_kuint(j, "p99", txn_sum_pct(s, 99));
	json_obj_end(j);
	json_kuint(j, "commits", in->commits);
	json_kuint(j, "flushes", in->flushes);
	json_kreal(j, "commits_per_flush", in->flushes ? (double)in->commits / in->flushes : 0.0, 3);
	json_obj_end(j);
}
