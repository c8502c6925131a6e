/*
 * latstat_test.c - unit tests and a micro-benchmark for engines/store/latstat.c.
 *
 * Build and run from the top of the tree:
 *
 *	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -Iengines \
 *		tests/unit/latstat_test.c engines/store/latstat.c engines/store/json_out.c \
 *		-o latstat_test
 *	./latstat_test			checks; exit 0 when all pass, 1 if one
 *					failed (tests/unit/check.h)
 *	./latstat_test --bench		ns per latstat_add() over 100M adds
 *
 * The checks only use the public interface and struct fields, so they also
 * hold for another bucket layout that keeps latstat.h's promises.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "store/json_out.h"
#include "store/latstat.h"
#include "check.h"

/*
 * With -fsanitize=undefined, GCC 12 folds strstr() in a failed CHECK's
 * condition into "text is NULL" and warns on the %s that prints it: a false
 * positive (capture_* never return NULL).
 */
#pragma GCC diagnostic ignored "-Wformat-overflow"

#define NBUCKETS	((int)LATSTAT_BUCKETS)

/* Big enough that a test value and it never share a bucket. */
#define FAR_AWAY	(UINT64_MAX / 4)

/* Histograms are ~5.7 KiB; keep them off the stack. */
static struct latstat a, b, c, d, e;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* xorshift64*: deterministic, so a failure reproduces */
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* Index of the only non-empty bucket, or -1. */
static int only_bucket(const struct latstat *ls)
{
	int i, found = -1;

	for (i = 0; i < NBUCKETS; i++) {
		if (!ls->bucket[i])
			continue;
		if (found >= 0)
			return -1;
		found = i;
	}
	return found;
}

/* The upper bound of v's bucket, seen through the percentile. */
static uint64_t upper_of(uint64_t v)
{
	latstat_reset(&a);
	latstat_add(&a, v);
	latstat_add(&a, FAR_AWAY);	/* so the clamp to max stays out of the way */
	return latstat_percentile(&a, 50.0);
}

static void test_small_exact(void)
{
	uint64_t v;

	for (v = 0; v < LATSTAT_SUB; v++) {
		latstat_reset(&a);
		latstat_add(&a, v);
		CHECK(only_bucket(&a) == (int)v, "value %" PRIu64 " in bucket %d",
		      v, only_bucket(&a));
		CHECK(upper_of(v) == v, "value %" PRIu64 " reads back as %" PRIu64,
		      v, upper_of(v));
	}
}

/* Every bucket bound is >= its values and within 1/LATSTAT_SUB of them. */
static void check_bound(uint64_t v, int *last)
{
	uint64_t up = upper_of(v);
	int bk;

	latstat_reset(&a);
	latstat_add(&a, v);
	bk = only_bucket(&a);
	CHECK(bk >= *last, "bucket order: %" PRIu64 " in %d after %d", v, bk, *last);
	*last = bk;
	CHECK(up >= v, "bound %" PRIu64 " below value %" PRIu64, up, v);
	CHECK((up - v) * LATSTAT_SUB < v || up == v,
	      "bound %" PRIu64 " too far above %" PRIu64, up, v);
}

static void test_relative_error(void)
{
	uint64_t v, step;
	int last = 0;

	/* the header promises log-linear groups up to 2^43 ns */
	for (v = 1; v < (1ull << 44); v += step) {
		check_bound(v, &last);
		step = v / 37 + 1;	/* not a power of two: hit odd spots */
	}
	for (v = 0; v < 2000; v++) {
		uint64_t x = (rng() >> 20) + 1;	/* up to 2^44 */

		last = 0;
		check_bound(x, &last);
	}
}

static int rel_diff_ok(uint64_t got, uint64_t want)
{
	uint64_t diff = got > want ? got - want : want - got;

	return diff * LATSTAT_SUB <= want;
}

static void test_uniform(void)
{
	uint64_t v, p50, p90, p99, p999;

	latstat_reset(&a);
	for (v = 1; v <= 1000000; v++)
		latstat_add(&a, v);
	p50 = latstat_percentile(&a, 50.0);
	p90 = latstat_percentile(&a, 90.0);
	p99 = latstat_percentile(&a, 99.0);
	p999 = latstat_percentile(&a, 99.9);

	CHECK(a.count == 1000000, "count %" PRIu64, a.count);
	CHECK(a.min_ns == 1, "min %" PRIu64, a.min_ns);
	CHECK(a.max_ns == 1000000, "max %" PRIu64, a.max_ns);
	CHECK(a.sum_ns == 500000500000ull, "sum %" PRIu64, a.sum_ns);
	CHECK(latstat_mean(&a) == 500000, "mean %" PRIu64, latstat_mean(&a));
	CHECK(rel_diff_ok(p50, 500000), "p50 %" PRIu64, p50);
	CHECK(rel_diff_ok(p90, 900000), "p90 %" PRIu64, p90);
	CHECK(rel_diff_ok(p99, 990000), "p99 %" PRIu64, p99);
	CHECK(rel_diff_ok(p999, 999000), "p99.9 %" PRIu64, p999);
	/* an upper bound never understates */
	CHECK(p50 >= 500000 && p99 >= 990000, "p50 %" PRIu64 " p99 %" PRIu64,
	      p50, p99);
	CHECK(latstat_percentile(&a, 100.0) == 1000000, "p100 %" PRIu64,
	      latstat_percentile(&a, 100.0));
	CHECK(latstat_percentile(&a, 0.0) == 1, "p0 %" PRIu64,
	      latstat_percentile(&a, 0.0));
}

static void test_nearest_rank(void)
{
	static const struct { double p; uint64_t want; } ten[] = {
		{ -5.0, 1 }, { 0.0, 1 }, { 10.0, 1 }, { 10.1, 2 }, { 50.0, 5 },
		{ 90.0, 9 }, { 90.5, 10 }, { 99.0, 10 }, { 100.0, 10 },
		{ 150.0, 10 },
	};
	unsigned int i;
	uint64_t v;

	latstat_reset(&a);
	for (v = 10; v >= 1; v--)
		latstat_add(&a, v);
	for (i = 0; i < sizeof(ten) / sizeof(ten[0]); i++) {
		v = latstat_percentile(&a, ten[i].p);
		CHECK(v == ten[i].want, "1..10 p%g = %" PRIu64 ", want %" PRIu64,
		      ten[i].p, v, ten[i].want);
	}

	/* 99.9% of 1000 is rank 999 exactly: no rounding up past it */
	latstat_reset(&a);
	for (i = 0; i < 999; i++)
		latstat_add(&a, 5);
	latstat_add(&a, 10);
	CHECK(latstat_percentile(&a, 99.9) == 5, "p99.9 %" PRIu64,
	      latstat_percentile(&a, 99.9));
	CHECK(latstat_percentile(&a, 99.95) == 10, "p99.95 %" PRIu64,
	      latstat_percentile(&a, 99.95));

	latstat_reset(&a);
	for (i = 0; i < 9990; i++)
		latstat_add(&a, 3);
	for (i = 0; i < 10; i++)
		latstat_add(&a, 7);
	CHECK(latstat_percentile(&a, 99.9) == 3, "p99.9 of 10000 %" PRIu64,
	      latstat_percentile(&a, 99.9));

	/* 1.1 * 3000 / 100 comes out as 33.00000000000001 in doubles */
	latstat_reset(&a);
	for (i = 0; i < 3000; i++)
		latstat_add(&a, i < 33 ? 1 : 2);
	CHECK(latstat_percentile(&a, 1.1) == 1, "p1.1 of 3000 %" PRIu64,
	      latstat_percentile(&a, 1.1));
}

static void test_clamp(void)
{
	latstat_reset(&a);
	latstat_add(&a, 1000);
	CHECK(latstat_percentile(&a, 50.0) == 1000, "single 1000: %" PRIu64,
	      latstat_percentile(&a, 50.0));
	CHECK(latstat_percentile(&a, 99.9) == 1000, "single 1000: %" PRIu64,
	      latstat_percentile(&a, 99.9));

	/* 1000 and 1001 share a bucket whose bound is above both */
	latstat_add(&a, 1001);
	CHECK(only_bucket(&a) >= 0, "1000 and 1001 in different buckets");
	CHECK(latstat_percentile(&a, 50.0) == 1001, "clamped p50 %" PRIu64,
	      latstat_percentile(&a, 50.0));
	CHECK(latstat_mean(&a) == 1000, "mean %" PRIu64, latstat_mean(&a));
}

static void test_empty(void)
{
	memset(&a, 0xa5, sizeof(a));
	latstat_reset(&a);
	memset(&b, 0, sizeof(b));
	CHECK(!memcmp(&a, &b, sizeof(a)), "reset is not all zero");
	CHECK(latstat_percentile(&b, 50.0) == 0, "empty p50");
	CHECK(latstat_percentile(&b, 100.0) == 0, "empty p100");
	CHECK(latstat_mean(&b) == 0, "empty mean");

	/* a memset struct must take a first sample correctly (min) */
	latstat_add(&b, 42);
	CHECK(b.min_ns == 42 && b.max_ns == 42, "min %" PRIu64 " max %" PRIu64,
	      b.min_ns, b.max_ns);
	latstat_add(&b, 0);
	CHECK(b.min_ns == 0 && b.bucket[0] == 1, "zero sample");
}

static void test_huge(void)
{
	const uint64_t big = UINT64_MAX / 2;
	uint64_t v;
	int k, bk, last = 0;

	latstat_reset(&a);
	latstat_add(&a, big);
	CHECK(a.bucket[LATSTAT_BUCKETS - 1] == 1, "UINT64_MAX/2 not in last bucket");
	CHECK(only_bucket(&a) == NBUCKETS - 1, "stray bucket %d",
	      only_bucket(&a));
	CHECK(latstat_percentile(&a, 50.0) == big, "p50 %" PRIu64,
	      latstat_percentile(&a, 50.0));
	CHECK(latstat_mean(&a) == big, "mean %" PRIu64, latstat_mean(&a));

	latstat_add(&a, UINT64_MAX);
	latstat_add(&a, big);
	CHECK(a.bucket[LATSTAT_BUCKETS - 1] == 3, "last bucket %" PRIu64,
	      a.bucket[LATSTAT_BUCKETS - 1]);
	CHECK(a.max_ns == UINT64_MAX && a.min_ns == big, "min/max");
	CHECK(a.sum_ns >= big, "sum wrapped around: %" PRIu64, a.sum_ns);
	CHECK(latstat_percentile(&a, 99.0) == UINT64_MAX, "p99 %" PRIu64,
	      latstat_percentile(&a, 99.0));

	/* past the log groups nothing may index beyond the array */
	for (k = 40; k < 64; k++) {
		for (v = (1ull << k) - 1; v <= (1ull << k); v++) {
			latstat_reset(&a);
			latstat_add(&a, v);
			bk = only_bucket(&a);
			CHECK(bk >= last, "2^%d%+d: bucket %d after %d", k,
			      (int)(v - (1ull << k)), bk, last);
			last = bk;
		}
	}
	CHECK(last == NBUCKETS - 1, "2^63 in bucket %d", last);
}

static void test_merge(void)
{
	uint64_t v;
	int i;

	latstat_reset(&a);
	latstat_reset(&b);
	latstat_reset(&c);
	latstat_reset(&d);
	for (i = 0; i < 100000; i++) {
		v = 100 + (rng() >> (rng() % 64 | 20));
		latstat_add(i % 3 ? &a : &b, v);
		latstat_add(&c, v);
	}
	latstat_merge(&d, &a);
	latstat_merge(&d, &b);
	CHECK(!memcmp(&d, &c, sizeof(c)), "merge differs from adding all");
	CHECK(d.min_ns == c.min_ns && d.min_ns >= 100, "merged min %" PRIu64,
	      d.min_ns);

	/* merging an empty one changes nothing, into an empty one copies */
	latstat_reset(&a);
	latstat_merge(&d, &a);
	CHECK(!memcmp(&d, &c, sizeof(c)), "merging an empty histogram");
	latstat_merge(&a, &c);
	CHECK(!memcmp(&a, &c, sizeof(c)), "merging into an empty histogram");
}

/* ---- output ---- */

/*
 * Output captured in memory. The buffer lives in the caller's struct, not
 * in a local of a helper, so it is still valid after fclose().
 */
struct memout {
	char *text;
	size_t len;
};

static FILE *mem_open(struct memout *m)
{
	FILE *f = open_memstream(&m->text, &m->len);

	if (!f) {
		perror("open_memstream");
		exit(T_EXIT_FAIL);
	}
	return f;
}

/* The caller frees the text. */
static char *capture_table(const char *title, const struct latstat_row *rows,
			   int nrows)
{
	struct memout m = { NULL, 0 };
	FILE *f = mem_open(&m);

	latstat_print_table(f, title, rows, nrows);
	fclose(f);
	if (!m.text)
		abort();
	return m.text;
}

static char *capture_json(const struct latstat_row *rows, int nrows)
{
	struct memout m = { NULL, 0 };
	FILE *f = mem_open(&m);
	struct json_out j;

	json_init(&j, f, 1);
	latstat_json(&j, rows, nrows);
	CHECK(json_finish(&j) == 0, "json_finish: writer misused");
	fclose(f);
	if (!m.text)
		abort();
	return m.text;
}

/* The avg cell of a one-sample table: how the table writes v. */
static void fmt_via_table(uint64_t v, char out[64])
{
	struct latstat_row row = { "x", &a };
	char name[16], count[32], *text, *line;

	latstat_reset(&a);
	latstat_add(&a, v);
	text = capture_table(NULL, &row, 1);
	line = strchr(text, '\n');
	out[0] = 0;
	if (line && sscanf(line + 1, "%15s %31s %63s", name, count, out) != 3)
		out[0] = 0;
	free(text);
}

static void test_units(void)
{
	static const struct { uint64_t ns; const char *want; } cases[] = {
		{ 0, "0ns" }, { 812, "812ns" }, { 999, "999ns" },
		{ 1000, "1.00us" }, { 9994, "9.99us" }, { 9995, "10.0us" },
		{ 61000, "61.0us" }, { 99950, "100us" }, { 999499, "999us" },
		{ 999500, "1.00ms" }, { 2270000, "2.27ms" },
		{ 1190000000, "1.19s" }, { 999500000, "1.00s" },
		{ 4520000000000ull, "4520s" },
	};
	char got[64];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fmt_via_table(cases[i].ns, got);
		CHECK(!strcmp(got, cases[i].want), "%" PRIu64 " ns shown as '%s', want '%s'",
		      cases[i].ns, got, cases[i].want);
	}
}

/* Every line but the title has the same width: the columns line up. */
static void check_aligned(const char *text)
{
	const char *line = strchr(text, '\n') + 1;
	const char *end;
	long width = -1;

	for (; *line; line = end + 1) {
		end = strchr(line, '\n');
		if (!end)
			break;
		if (width < 0)
			width = end - line;
		CHECK(end - line == width, "ragged table line: %.*s",
		      (int)(end - line), line);
	}
}

static void test_table(void)
{
	struct latstat_row rows[] = {
		{ "fsync", &a }, { "unused", &b }, { "write", &c },
		{ "a_long_operation_name", &d }, { "read", &e },
	};
	char *text;

	latstat_reset(&a);
	latstat_reset(&b);
	latstat_reset(&c);
	latstat_reset(&d);
	latstat_reset(&e);
	latstat_add(&a, 2270000);
	latstat_add(&c, 812);
	latstat_add(&c, 812);
	latstat_add(&d, 1190000000);
	latstat_add(&e, 61000);
	text = capture_table("store latency", rows, 5);
	CHECK(!strncmp(text, "store latency\n", 14), "title line: %s", text);
	CHECK(strstr(text, "p99.9") && strstr(text, "total"), "header: %s", text);
	CHECK(strstr(text, "fsync") && strstr(text, "write") && strstr(text, "read") &&
	      strstr(text, "a_long_operation_name"), "rows missing:\n%s", text);
	CHECK(!strstr(text, "unused"), "empty row printed:\n%s", text);
	CHECK(strstr(text, "2.27ms") && strstr(text, "812ns") &&
	      strstr(text, "61.0us") && strstr(text, "1.19s"), "units:\n%s", text);
	CHECK(!strstr(text, "(no calls)"), "'(no calls)' with calls:\n%s", text);
	check_aligned(text);
	if (getenv("LATSTAT_TEST_SHOW"))
		fputs(text, stdout);
	free(text);

	text = capture_table("idle", rows + 1, 1);
	CHECK(strstr(text, "op") && strstr(text, "count") && strstr(text, "p50"),
	      "empty table header:\n%s", text);
	CHECK(strstr(text, "(no calls)") != NULL, "no '(no calls)':\n%s", text);
	free(text);

	text = capture_table("nothing", NULL, 0);
	CHECK(strstr(text, "(no calls)") != NULL, "nrows 0:\n%s", text);
	free(text);
}

/* ---- a small JSON validator: enough to prove the output well-formed ---- */

static const char *json_value(const char *p);

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return NULL;	/* raw control characters are invalid */
		if (*p != '\\')
			continue;
		p++;
		if (*p == 'u') {
			int i;

			for (i = 1; i <= 4; i++)
				if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
					return NULL;
			p += 4;
		} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
			return NULL;
		}
	}
	return p + 1;
}

static const char *json_number(const char *p)
{
	const char *s = p;

	if (*p == '-')
		p++;
	while (*p >= '0' && *p <= '9')
		p++;
	return p > s ? p : NULL;
}

static const char *json_object(const char *p)
{
	p = json_ws(p + 1);
	if (*p == '}')
		return p + 1;
	for (;;) {
		p = json_string(json_ws(p));
		if (!p)
			return NULL;
		p = json_ws(p);
		if (*p++ != ':')
			return NULL;
		p = json_value(p);
		if (!p)
			return NULL;
		p = json_ws(p);
		if (*p == '}')
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *json_value(const char *p)
{
	p = json_ws(p);
	if (*p == '{')
		return json_object(p);
	if (*p == '"')
		return json_string(p);
	return json_number(p);
}

static int json_valid(const char *text)
{
	const char *p = json_value(text);

	return p && !*json_ws(p);
}

/* Python's parser as a second opinion, when python3 is there. */
static void python_check(const char *text)
{
	static const char prog[] =
		"python3 -c 'import json,sys; d=json.load(sys.stdin); "
		"assert d[\"write\"][\"count\"] == 3; "
		"assert d[\"write\"][\"max_ns\"] == 3000; "
		"assert d[\"idle\"][\"count\"] == 0; "
		"assert d[\"we\\\"ird\\\\na\\nme\\t\\u0001\"][\"count\"] == 1' "
		"2>&1";
	FILE *p = popen(prog, "w");
	int rc;

	if (!p)
		return;
	fputs(text, p);
	rc = pclose(p);
	if (WIFEXITED(rc) && WEXITSTATUS(rc) == 127) {
		printf("note: python3 not found, JSON checked in C only\n");
		return;
	}
	CHECK(rc == 0, "python3 rejected the JSON:\n%s", text);
}

static void test_json(void)
{
	struct latstat_row rows[] = {
		{ "write", &a }, { "idle", &b }, { "we\"ird\\na\nme\t\001", &c },
	};
	char *text;

	latstat_reset(&a);
	latstat_reset(&b);
	latstat_reset(&c);
	latstat_add(&a, 1000);
	latstat_add(&a, 2000);
	latstat_add(&a, 3000);
	latstat_add(&c, 5);
	text = capture_json(rows, 3);
	CHECK(json_valid(text), "invalid JSON:\n%s", text);
	CHECK(strstr(text, "\"write\": {\"count\": 3, \"mean_ns\": 2000") != NULL,
	      "write row:\n%s", text);
	CHECK(strstr(text, "\"idle\": {\"count\": 0,") != NULL,
	      "empty row not written:\n%s", text);
	CHECK(strstr(text, "\"p99_9_ns\"") && strstr(text, "\"total_ns\": 6000}"),
	      "keys:\n%s", text);
	CHECK(strstr(text, "\"we\\\"ird\\\\na\\nme\\t\\u0001\"") != NULL,
	      "name escaping:\n%s", text);
	python_check(text);
	free(text);

	text = capture_json(NULL, 0);
	CHECK(json_valid(text), "no rows: %s", text);
	free(text);
}

static void test_clock(void)
{
	struct timespec ms = { 0, 1000000 };
	uint64_t t0 = latstat_now_ns(), t1;

	nanosleep(&ms, NULL);
	t1 = latstat_now_ns();
	CHECK(t1 >= t0 + 1000000, "slept 1ms, clock moved %" PRIu64 " ns",
	      t1 - t0);
}

/* ---- benchmark ---- */

#define BENCH_ADDS	100000000ull
#define BENCH_VALS	4096		/* power of two: index with a mask */

static int bench(void)
{
	static uint64_t vals[BENCH_VALS];
	uint64_t i, t0, t1;

	/* I/O-like spread: 1us .. ~16ms, log-uniform, so buckets vary */
	for (i = 0; i < BENCH_VALS; i++)
		vals[i] = (1000ull << (rng() % 14)) + rng() % 1000;
	latstat_reset(&a);
	t0 = latstat_now_ns();
	for (i = 0; i < BENCH_ADDS; i++)
		latstat_add(&a, vals[i & (BENCH_VALS - 1)]);
	t1 = latstat_now_ns();
	printf("latstat_add: %.2f ns/add (%" PRIu64 " adds in %.3f s, p99 %" PRIu64 " ns)\n",
	       (double)(t1 - t0) / BENCH_ADDS, a.count, (t1 - t0) / 1e9,
	       latstat_percentile(&a, 99.0));
	return a.count == BENCH_ADDS ? T_EXIT_PASS : T_EXIT_FAIL;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--bench"))
		return bench();
	if (argc > 1) {
		fprintf(stderr, "usage: %s [--bench]\n", argv[0]);
		return T_EXIT_FAIL;
	}

	test_small_exact();
	test_relative_error();
	test_uniform();
	test_nearest_rank();
	test_clamp();
	test_empty();
	test_huge();
	test_merge();
	test_units();
	test_table();
	test_json();
	test_clock();

	return t_finish("latstat_test");
}
