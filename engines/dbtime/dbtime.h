/*
 * dbtime.h - the database server's time that is not storage, shared by the
 * engines that model it (txn, metastorm): a statement's CPU, burned on the
 * CPU as the calling thread's own CPU time (so connections compete for cores
 * as backends do, and with the Ceph daemons on the same machine), and the
 * client's round trip, slept; the host's CPU against a profile's. fio-free:
 * no fio header, no store backend.
 */
#ifndef DBFIO_DBTIME_H
#define DBFIO_DBTIME_H

#include <stddef.h>
#include <stdint.h>

/* One thread's account; zero it before use. Not shared between threads. */
struct dbtime {
	uint64_t cpu_ns;	/* CPU time burned (CLOCK_THREAD_CPUTIME_ID) */
	uint64_t rtt_ns;	/* wall time slept in round trips */
	uint64_t rtt_due_ns;	/* round trips asked for: rtt_ns follows it */
	int slack_set;		/* this thread's timer slack set to 1 ns */
	uint8_t *ws;		/* the working set (dbtime_ws_init/_share), or NULL */
	uint64_t ws_len;	/* its bytes */
	uint64_t ws_x;		/* its xorshift state */
	double ws_rate;		/* steps per ns of CPU with the set hot */
	int ws_shared;		/* ws is another's (dbtime_ws_share): not freed here */
};

/* This thread's CPU time so far, in ns. */
uint64_t dbtime_thread_cpu_ns(void);

/*
 * Give the thread a working set of bytes (0: none), allocated here, in the
 * thread that burns (the hot rate of a set that size is timed once per
 * process, by the first caller): from then on dbtime_burn(ns) does ns worth
 * of hot work over the set (random cache lines read and written), which takes
 * longer when the set went cold: after a sleep, or beside other connections
 * on the same cores. Without one, a burn spins ns of CPU time, cold or not.
 * -> 0 or -ENOMEM.
 */
int dbtime_ws_init(struct dbtime *t, uint64_t bytes);

/*
 * A working set for several threads: the connections of a threaded server
 * (MariaDB's), whose statements work over one buffer pool, dictionary and
 * lock system. dbtime_ws_alloc(bytes) makes it (at least 4096 bytes, NULL:
 * out of memory; dbtime_ws_free frees it, after its last user);
 * dbtime_ws_share() gives it to one thread's account, as dbtime_ws_init
 * would its own: the same steps, over lines the other threads keep warm (on
 * one core) or take away (on another). Each step's write is a plain
 * increment, racing with the others': the count is never read, only the
 * cache traffic it makes matters.
 */
uint8_t *dbtime_ws_alloc(uint64_t bytes);
void dbtime_ws_free(uint8_t *set);
void dbtime_ws_share(struct dbtime *t, uint8_t *set, uint64_t bytes);

/* Free what dbtime_ws_init allocated (a shared set stays). */
void dbtime_exit(struct dbtime *t);

/* Burn ns of this thread's CPU time (with a working set: ns of hot work). */
void dbtime_burn(struct dbtime *t, uint64_t ns);

/*
 * One client round trip of ns wall time on average: a sleep, whose overshoot
 * (the wake-up) is taken off the next round trips (up to 1 ms or one rtt).
 */
void dbtime_round_trip(struct dbtime *t, uint64_t ns);

/*
 * The host's CPU reference figure: the thread CPU time, in ns, of a fixed
 * piece of work: DBTIME_REF_STEPS steps over a working set of ws_bytes (the
 * steps dbtime_burn makes; 0: a spin of 8 times as many register steps),
 * the best of DBTIME_REF_ROUNDS rounds after one that warms the set, spread
 * over ~25 ms of wall time (a few ms of CPU).
 * Thread CPU time, so neither a busy host nor a CPU quota (cgroup cpu.max)
 * inflates it: it is the speed of the CPU while it runs (docs/txn.md).
 * Measured once per process and size (later calls return the first figure).
 * -> ns, or 0 when the set cannot be allocated.
 */
#define DBTIME_REF_STEPS	100000
#define DBTIME_REF_ROUNDS	15
uint64_t dbtime_cpu_ref(uint64_t ws_bytes);

/*
 * A profile's CPU figures on this host: the host's reference figure (above,
 * over ws_bytes) against the profile's (prof_ref, measured the same way on
 * the calibration machine; 0: the profile has none), and the factor the CPU
 * work is multiplied by: host / profile when both are known and scale is
 * set, else 1. One line for the logs: "host cpu_ref=...ns, profile
 * cpu_ref=...ns: factor F, applied" (or why not).
 */
struct dbtime_scale {
	uint64_t host_ref, prof_ref;	/* ns; prof_ref 0: the profile has none */
	double factor;			/* what the CPU work is multiplied by (1: none) */
	int scale;			/* cpu_scale= */
};
void dbtime_scale_init(struct dbtime_scale *s, uint64_t prof_ref, int scale, uint64_t ws_bytes);
void dbtime_scale_line(char *buf, size_t len, const struct dbtime_scale *s);
/* The same as members of the JSON object being written (host_ref_ns ... scaled). */
struct json_out;
void dbtime_scale_json(struct json_out *j, const struct dbtime_scale *s);

#endif
