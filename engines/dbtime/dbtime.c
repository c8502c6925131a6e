/*
 * dbtime.c - a statement's CPU and client round trip (dbtime.h), for txn and
 * metastorm. Not an engine: its folder has no fio hooks and builds no .so;
 * the Makefile links it into the engines that name it in <engine>_EXTRA.
 * fio-free.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "dbtime.h"
#include "store/json_out.h"

uint64_t dbtime_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The working set: cpu_ns of work is a number of steps, each a read and a
 * write of a random cache line of the set (xorshift64), at the rate this
 * thread reaches with the set hot in its caches. Back to back a step costs
 * what it cost then; after the thread slept (a commit's flush) or shared its
 * core with other connections, the lines come back from memory and the same
 * steps take longer, as a backend's work does.
 *
 * A set shared by a database's connections (dbtime_ws_share) is only read,
 * as a server's threads read the buffer pool and dictionary they share and
 * write their own session's memory: with a write a step, two cores walking
 * one set took every line from each other, and the model's user CPU a
 * transaction at 4 connections doubled (1.49 against 0.70 ms private on a
 * host with 4 MB of L2 a core), while the real server's grew by a third.
 */
static uint64_t ws_steps(struct dbtime *t, uint64_t n)
{
	uint64_t x = t->ws_x, lines = t->ws_len / 64, sum = 0;

	while (n--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sum += t->ws[(x % lines) * 64];
		if (!t->ws_shared)
			t->ws[((x >> 24) % lines) * 64]++;
	}
	t->ws_x = x;
	return sum;
}

#define DBTIME_WS_TRIALS 41
#define DBTIME_WS_TRIAL_STEPS 50000

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The hot rate, timed once per process and size by the first connection
 * (the others wait): the median of 41 trials of 50 000 steps after one that
 * warms the set, ~10 ms. One rate for every connection of every job, so
 * their work is the same; a per-connection rate timed in a few ms moved a
 * modelled sysbench transaction's CPU by 25 % from run to run here.
 */
static pthread_mutex_t ws_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t ws_rate_len[2];	/* [shared]: a read-only walk has a rate of its own */
static double ws_rate[2];

static double ws_hot_rate(struct dbtime *t)
{
	double rate[DBTIME_WS_TRIALS], r;
	volatile uint64_t sink = 0;
	int sh = !!t->ws_shared;
	unsigned int i;

	pthread_mutex_lock(&ws_lock);
	if (ws_rate_len[sh] != t->ws_len) {
		sink += ws_steps(t, 2 * DBTIME_WS_TRIAL_STEPS);
		for (i = 0; i < DBTIME_WS_TRIALS; i++) {
			uint64_t t0 = dbtime_thread_cpu_ns(), dt;

			sink += ws_steps(t, DBTIME_WS_TRIAL_STEPS);
			dt = dbtime_thread_cpu_ns() - t0;
			rate[i] = (double)DBTIME_WS_TRIAL_STEPS / (dt ? dt : 1);
		}
		qsort(rate, DBTIME_WS_TRIALS, sizeof(rate[0]), cmp_double);
		ws_rate[sh] = rate[DBTIME_WS_TRIALS / 2];
		ws_rate_len[sh] = t->ws_len;
	}
	r = ws_rate[sh];
	pthread_mutex_unlock(&ws_lock);
	(void)sink;
	return r;
}

static uint64_t ws_size(uint64_t bytes)
{
	return bytes < 4096 ? 4096 : bytes;
}

uint8_t *dbtime_ws_alloc(uint64_t bytes)
{
	uint8_t *set = malloc(ws_size(bytes));

	if (set)
		memset(set, 1, ws_size(bytes));
	return set;
}

void dbtime_ws_free(uint8_t *set)
{
	free(set);
}

/* The account works over set from now on: its own walk, the hot rate of its size. */
static void ws_attach(struct dbtime *t, uint8_t *set, uint64_t bytes, int shared)
{
	t->ws = set;
	t->ws_len = ws_size(bytes);
	t->ws_shared = shared;
	t->ws_x = 0x9e3779b97f4a7c15ull ^ (uintptr_t)t;
	t->ws_rate = ws_hot_rate(t);
}

void dbtime_ws_share(struct dbtime *t, uint8_t *set, uint64_t bytes)
{
	ws_attach(t, set, bytes, 1);
}

int dbtime_ws_init(struct dbtime *t, uint64_t bytes)
{
	uint8_t *set;

	if (!bytes)
		return 0;
	set = dbtime_ws_alloc(bytes);
	if (!set)
		return -ENOMEM;
	ws_attach(t, set, bytes, 0);
	return 0;
}

void dbtime_exit(struct dbtime *t)
{
	if (!t->ws_shared)
		free(t->ws);
	t->ws = NULL;
}

/* DBTIME_REF_STEPS register steps: the reference's work without a set */
static uint64_t spin_steps(uint64_t x, uint64_t n)
{
	while (n--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

/*
 * The rounds are spread over ~25 ms (a 1.5 ms sleep after each): a sibling
 * hyperthread's or a neighbour's burst that slows a few ms of work leaves
 * some round out, where back-to-back rounds all fell in it (a spin's figure
 * moved by 25 % between runs on a busy host). A register step costs a
 * fraction of a set's: the spin makes DBTIME_REF_SPIN times as many.
 */
#define DBTIME_REF_GAP_NS	1500000
#define DBTIME_REF_SPIN		8

static pthread_mutex_t ref_lock = PTHREAD_MUTEX_INITIALIZER;
/* the figures measured so far, one per working-set size (a ring past REF_SIZES) */
#define REF_SIZES	8
static struct { uint64_t len, ns; } refs[REF_SIZES];
static unsigned int nrefs;

static uint64_t ref_measure(uint64_t ws_bytes)
{
	struct timespec gap = { 0, DBTIME_REF_GAP_NS };
	struct dbtime t = { 0 };
	volatile uint64_t sink = 0;
	uint64_t best = UINT64_MAX;
	unsigned int i;

	if (ws_bytes) {
		t.ws_len = ws_size(ws_bytes);
		t.ws = dbtime_ws_alloc(ws_bytes);
		if (!t.ws)
			return 0;
		t.ws_x = 0x9e3779b97f4a7c15ull;
	}
	for (i = 0; i <= DBTIME_REF_ROUNDS; i++) {
		uint64_t t0 = dbtime_thread_cpu_ns(), dt;

		sink += t.ws ? ws_steps(&t, DBTIME_REF_STEPS) :
			       spin_steps(sink + i + 1, DBTIME_REF_STEPS * DBTIME_REF_SPIN);
		dt = dbtime_thread_cpu_ns() - t0;
		if (i && dt < best)	/* round 0 warms the set */
			best = dt;
		nanosleep(&gap, NULL);
	}
	free(t.ws);
	(void)sink;
	return best ? best : 1;
}

uint64_t dbtime_cpu_ref(uint64_t ws_bytes)
{
	uint64_t ns = 0;
	unsigned int i;

	pthread_mutex_lock(&ref_lock);
	for (i = 0; i < nrefs && i < REF_SIZES && !ns; i++)
		if (refs[i].len == ws_bytes)
			ns = refs[i].ns;
	if (!ns) {
		ns = ref_measure(ws_bytes);
		if (ns) {	/* a set that could not be allocated is tried again */
			refs[nrefs % REF_SIZES].len = ws_bytes;
			refs[nrefs % REF_SIZES].ns = ns;
			nrefs++;
		}
	}
	pthread_mutex_unlock(&ref_lock);
	return ns;
}

void dbtime_scale_init(struct dbtime_scale *s, uint64_t prof_ref, int scale, uint64_t ws_bytes)
{
	s->host_ref = dbtime_cpu_ref(ws_bytes);
	s->prof_ref = prof_ref;
	s->scale = scale;
	s->factor = prof_ref && scale && s->host_ref ? s->host_ref / (double)prof_ref : 1.0;
}

void dbtime_scale_line(char *buf, size_t len, const struct dbtime_scale *s)
{
	if (!s->prof_ref)
		snprintf(buf, len, "host cpu_ref=%lluns, the profile has no cpu_ref: not scaled",
			 (unsigned long long)s->host_ref);
	else
		snprintf(buf, len, "host cpu_ref=%lluns, profile cpu_ref=%lluns: factor %.3f%s",
			 (unsigned long long)s->host_ref, (unsigned long long)s->prof_ref,
			 s->host_ref / (double)s->prof_ref,
			 s->scale ? ", applied" : ", not applied (cpu_scale=0)");
}

void dbtime_scale_json(struct json_out *j, const struct dbtime_scale *s)
{
	json_kuint(j, "host_ref_ns", s->host_ref);
	json_kuint(j, "profile_ref_ns", s->prof_ref);
	json_kreal(j, "host_over_profile", s->prof_ref ? s->host_ref / (double)s->prof_ref : 0.0, 4);
	json_kreal(j, "factor", s->factor, 4);
	json_kbool(j, "scaled", s->prof_ref && s->scale);
}

void dbtime_burn(struct dbtime *t, uint64_t ns)
{
	uint64_t t0 = dbtime_thread_cpu_ns(), now;
	volatile uint64_t x = 0;
	unsigned int i;

	if (t->ws) {
		x += ws_steps(t, (uint64_t)(ns * t->ws_rate + 0.5));
		t->cpu_ns += dbtime_thread_cpu_ns() - t0;
		return;
	}
	do {
		for (i = 0; i < 256; i++)
			x += i;
		now = dbtime_thread_cpu_ns();
	} while (now - t0 < ns);
	t->cpu_ns += now - t0;
}

/*
 * A sleep overshoots by the wake-up (the thread's timer slack, 50 us by
 * default, and hundreds of us on a loaded machine), while a calibrated rtt
 * already holds the real system's wake-ups: the slack is set to 1 ns for the
 * thread, and the overshoot is taken off the next round trips. The credit is
 * capped at DBTIME_CREDIT_NS (or one rtt if longer): a long stall is not
 * given back, while a 10 us rtt is 10 us on average (with a credit of one
 * rtt every such sleep cost the 50 us slack and more: 5-15x the rtt).
 */
#define DBTIME_CREDIT_NS 1000000ull

void dbtime_round_trip(struct dbtime *t, uint64_t ns)
{
	uint64_t t0, left, cap = ns > DBTIME_CREDIT_NS ? ns : DBTIME_CREDIT_NS;
	struct timespec ts;

	if (!t->slack_set) {
		prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);	/* this thread only */
		t->slack_set = 1;
	}
	t->rtt_due_ns += ns;
	if (t->rtt_ns >= t->rtt_due_ns) {
		if (t->rtt_ns - t->rtt_due_ns > cap)
			t->rtt_due_ns = t->rtt_ns - cap;
		return;
	}
	left = t->rtt_due_ns - t->rtt_ns;
	ts.tv_sec = left / 1000000000ull;
	ts.tv_nsec = left % 1000000000ull;
	t0 = mono_ns();
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	t->rtt_ns += mono_ns() - t0;
}
