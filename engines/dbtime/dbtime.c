/*
 * dbtime.c - a statement's CPU and client round trip (dbtime.h), for txn and
 * metastorm. Not an engine: its folder has no fio hooks and builds no .so;
 * the Makefile links it into the engines that name it in <engine>_EXTRA.
 * fio-free.
 */
#include <errno.h>
#include <sys/prctl.h>
#include <time.h>

#include "dbtime.h"

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

void dbtime_burn(struct dbtime *t, uint64_t ns)
{
	uint64_t t0 = dbtime_thread_cpu_ns(), now;
	volatile uint64_t x = 0;
	unsigned int i;

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
