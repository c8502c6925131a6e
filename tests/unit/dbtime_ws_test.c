/*
 * dbtime_ws_test.c - the CPU working set: a shared one is only read.
 * Description: a working set shared by a database's connections is read, never written, by their work; a private one is written
 *
 *	./dbtime_ws_test
 *
 * Two accounts burn 5 ms of work each over one shared 256 kB set, a third
 * over its own. The oracle is the sets' bytes against copies taken before
 * the work: the shared set must be byte for byte as it was (connections of
 * one server read what they share; a write a step on two cores made every
 * line bounce between them), the private set must have changed (its walk
 * writes, as a backend's own memory is written). dbtime.c is compiled in:
 * the unit programs link the store layer only.
 *
 * Exit 0 pass, 1 fail, 77 skip: tests/unit/check.h.
 */
#include <stdlib.h>
#include <string.h>

#include "dbtime/dbtime.c"
#include "check.h"

#define SET (256 * 1024)
#define WORK_NS 5000000ull

static int shared_is_read_only(void)
{
	struct dbtime a, b;
	uint8_t *set = dbtime_ws_alloc(SET), *copy = malloc(SET);

	EXPECT(set && copy, "out of memory");
	memcpy(copy, set, SET);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	dbtime_ws_share(&a, set, SET);
	dbtime_ws_share(&b, set, SET);
	dbtime_burn(&a, WORK_NS);
	dbtime_burn(&b, WORK_NS);
	EXPECT(a.cpu_ns >= WORK_NS / 2 && b.cpu_ns >= WORK_NS / 2,
	       "the shared walks burned %llu and %llu ns, not about %llu",
	       (unsigned long long)a.cpu_ns, (unsigned long long)b.cpu_ns, WORK_NS);
	EXPECT(!memcmp(set, copy, SET), "the connections' work wrote the set they share");
	dbtime_exit(&a);
	dbtime_exit(&b);
	dbtime_ws_free(set);
	free(copy);
	return 0;
}

static int private_is_written(void)
{
	struct dbtime t;
	uint8_t *copy = malloc(SET);

	EXPECT(copy, "out of memory");
	memset(&t, 0, sizeof(t));
	EXPECT(!dbtime_ws_init(&t, SET), "dbtime_ws_init failed");
	memcpy(copy, t.ws, SET);
	dbtime_burn(&t, WORK_NS);
	EXPECT(memcmp(t.ws, copy, SET), "a private set's walk wrote nothing");
	dbtime_exit(&t);
	free(copy);
	return 0;
}

int main(void)
{
	CHECK(!shared_is_read_only(), "shared set");
	CHECK(!private_is_written(), "private set");
	return t_finish("dbtime_ws_test");
}
