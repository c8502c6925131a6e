/*
 * crc32c_race_test.c - redolog_fmt.h's CRC32C from several threads at once.
 * Description: the first rl_crc32c calls of a process race between threads (fio's numjobs)
 *
 * fio's jobs are threads of one process; the first record of each job calls
 * rl_crc32c at about the same moment. A table built lazily by whichever
 * thread comes first let the others read it half built (false "record CRC
 * mismatch" in logverify). Here THREADS threads wait on a barrier, then
 * all compute CRCs of the same buffers; each result is compared with a
 * bit-at-a-time CRC32C computed in this file (no table: shares no code
 * with the engine) and with the standard check value of "123456789".
 * One process only tests one table build: the shell test runs it many times.
 *
 * Exit 0 pass, 1 fail (a wrong CRC, with the thread and the values):
 * tests/unit/check.h.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "redolog/redolog_fmt.h"
#include "check.h"

#define THREADS	4
#define BUFLEN	4096

static pthread_barrier_t go;
static uint8_t buf[BUFLEN];
static uint32_t want;

static uint32_t crc32c_bitwise(const uint8_t *p, size_t len)
{
	uint32_t c = ~0u;
	int k;

	while (len--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
	}
	return ~c;
}

static void *worker(void *arg)
{
	uint32_t got;

	pthread_barrier_wait(&go);
	got = rl_crc32c(0, buf, BUFLEN);
	CHECK(got == want, "thread %ld: crc32c 0x%08x, expected 0x%08x", (long)arg, got, want);
	return NULL;
}

int main(void)
{
	pthread_t th[THREADS];
	long i;

	for (i = 0; i < BUFLEN; i++)
		buf[i] = (uint8_t)(i * 131 + 7);
	want = crc32c_bitwise(buf, BUFLEN);
	EXPECT(crc32c_bitwise((const uint8_t *)"123456789", 9) == 0xE3069283u,
	       "reference CRC32C of \"123456789\" is not 0xE3069283");
	pthread_barrier_init(&go, NULL, THREADS);
	for (i = 0; i < THREADS; i++)
		EXPECT(!pthread_create(&th[i], NULL, worker, (void *)i), "pthread_create");
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	if (t_status() != T_EXIT_PASS)
		return T_EXIT_FAIL;
	EXPECT(rl_crc32c(0, "123456789", 9) == 0xE3069283u,
	       "rl_crc32c(\"123456789\") is not 0xE3069283");
	return T_EXIT_PASS;
}
