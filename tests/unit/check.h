/*
 * check.h - the verdicts of dbfio's unit programs (tests/unit/), after
 * liburing's test/helpers.h: a program exits T_EXIT_PASS, T_EXIT_FAIL or
 * T_EXIT_SKIP (77, what tests/run counts as a skip) and says why on a line
 * of its own, "FAIL: file:line: ..." or "SKIP: ...", on stdout (the shell
 * tests print what they capture of it).
 *
 *	FAIL(fmt, ...)		report, return T_EXIT_FAIL from this function
 *	EXPECT(cond, fmt, ...)	FAIL unless cond
 *	SKIP(fmt, ...)		report, return T_EXIT_SKIP from this function
 *	CHECK(cond, fmt, ...)	report and count a failure, go on (any thread)
 *	t_status()		T_EXIT_FAIL if a CHECK failed, else T_EXIT_PASS
 *	t_finish(name)		t_status(), said in one line: main's last word
 *
 * A function that uses FAIL or EXPECT returns int: 0 when it went well.
 */
#ifndef DBFIO_TEST_CHECK_H
#define DBFIO_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

#define T_EXIT_PASS	0
#define T_EXIT_FAIL	1
#define T_EXIT_SKIP	77

static int t_failures;

/*
 * One line, flushed at once: some programs fork after a report (the child
 * would print the buffer again) and some die by a signal on purpose.
 */
static inline void __attribute__((format(printf, 4, 5)))
t_report(const char *verdict, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	flockfile(stdout);
	if (file)
		printf("%s: %s:%d: ", verdict, file, line);
	else
		printf("%s: ", verdict);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	funlockfile(stdout);
}

#define FAIL(...)							\
	do {								\
		t_report("FAIL", __FILE__, __LINE__, __VA_ARGS__);	\
		return T_EXIT_FAIL;					\
	} while (0)

#define EXPECT(cond, ...)						\
	do {								\
		if (!(cond))						\
			FAIL(__VA_ARGS__);				\
	} while (0)

#define SKIP(...)							\
	do {								\
		t_report("SKIP", NULL, 0, __VA_ARGS__);			\
		return T_EXIT_SKIP;					\
	} while (0)

#define CHECK(cond, fmt, ...)						\
	do {								\
		if (!(cond)) {						\
			__atomic_add_fetch(&t_failures, 1, __ATOMIC_SEQ_CST); \
			t_report("FAIL", __FILE__, __LINE__, "%s: " fmt, #cond, \
				 ##__VA_ARGS__);				\
		}							\
	} while (0)

static inline int t_status(void)
{
	return __atomic_load_n(&t_failures, __ATOMIC_SEQ_CST) ? T_EXIT_FAIL : T_EXIT_PASS;
}

static inline int t_finish(const char *name)
{
	int ret = t_status();

	if (ret == T_EXIT_PASS)
		printf("%s: all checks passed\n", name);
	else
		printf("%s: %d check(s) failed\n", name,
		       __atomic_load_n(&t_failures, __ATOMIC_SEQ_CST));
	return ret;
}

#endif /* DBFIO_TEST_CHECK_H */
