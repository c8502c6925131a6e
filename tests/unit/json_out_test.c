/*
 * json_out_test.c - unit tests for engines/store/json_out.c, the writer of
 * every sidecar. Exact text for separators, layout and the escapes; -EINVAL
 * for every misuse; and Python's json module as the oracle for strings:
 * thousands of byte strings built from valid, overlong, surrogate, too large
 * and truncated UTF-8 pieces, control characters and quotes must come back
 * from json.loads (of the output decoded as strict UTF-8) as Python's own
 * decoding of the bytes with surrogateescape.
 *
 *	gcc -std=gnu11 -Wall -Wextra -Werror -Iengines \
 *		tests/unit/json_out_test.c engines/store/json_out.c -o json_out_test
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "store/json_out.h"
#include "check.h"

struct doc {
	struct json_out j;
	FILE *f;
	char *text;
	size_t len;
};

static void doc_open(struct doc *d, int pretty)
{
	d->text = NULL;
	d->f = open_memstream(&d->text, &d->len);
	if (!d->f) {
		perror("open_memstream");
		exit(T_EXIT_FAIL);
	}
	json_init(&d->j, d->f, pretty);
}

/* json_finish's result; the text stays in d->text (the caller frees it) */
static int doc_close(struct doc *d)
{
	int r = json_finish(&d->j);

	fclose(d->f);
	return r;
}

static void expect(struct doc *d, const char *want, const char *what)
{
	int r = doc_close(d);

	CHECK(r == 0, "%s: json_finish %d", what, r);
	CHECK(!strcmp(d->text, want), "%s:\n got '%s'\nwant '%s'", what, d->text, want);
	free(d->text);
}

static void test_layout(void)
{
	struct doc d;

	doc_open(&d, 0);
	json_obj_begin(&d.j);
	json_kint(&d.j, "a", -1);
	json_karr(&d.j, "b");
	json_bool(&d.j, true);
	json_null(&d.j);
	json_str(&d.j, "x");
	json_str(&d.j, NULL);
	json_arr_end(&d.j);
	json_kobj(&d.j, "c");
	json_obj_end(&d.j);
	json_karr(&d.j, "e");
	json_arr_end(&d.j);
	json_kuint(&d.j, "u", 18446744073709551615ull);
	json_obj_end(&d.j);
	expect(&d, "{\"a\": -1, \"b\": [true, null, \"x\", null], \"c\": {}, \"e\": [], "
	       "\"u\": 18446744073709551615}\n", "compact");

	doc_open(&d, 1);
	json_obj_begin(&d.j);
	json_kint(&d.j, "a", 1);
	json_karr(&d.j, "b");
	json_int(&d.j, 1);
	json_int(&d.j, 2);
	json_arr_end(&d.j);
	json_kobj(&d.j, "c");
	json_obj_end(&d.j);
	json_obj_end(&d.j);
	expect(&d, "{\n  \"a\": 1,\n  \"b\": [1, 2],\n  \"c\": {}\n}\n", "pretty 1");

	doc_open(&d, 2);
	json_arr_begin(&d.j);
	json_obj_begin(&d.j);
	json_kint(&d.j, "k", 0);
	json_obj_end(&d.j);
	json_arr_end(&d.j);
	expect(&d, "[\n  {\n    \"k\": 0\n  }\n]\n", "pretty 2");

	doc_open(&d, 0);
	json_str(&d.j, "top");
	expect(&d, "\"top\"\n", "a string at the top");
}

static void test_values(void)
{
	struct doc d;

	doc_open(&d, 0);
	json_arr_begin(&d.j);
	json_real(&d.j, NAN, 3);
	json_real(&d.j, INFINITY, 1);
	json_real(&d.j, -INFINITY, -1);
	json_real(&d.j, 1.23456, 3);
	json_real(&d.j, 2.0, -1);
	json_real(&d.j, 0.5, 0);
	json_arr_end(&d.j);
	expect(&d, "[null, null, null, 1.235, 2, 0]\n", "reals");

	doc_open(&d, 0);
	json_str(&d.j, "\"\\/\b\f\n\r\t\x01\x1f\x7f");
	expect(&d, "\"\\\"\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\"\n", "escapes");

	doc_open(&d, 0);
	json_str(&d.j, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	expect(&d, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"\n", "valid UTF-8 as itself");

	doc_open(&d, 0);
	json_str(&d.j, "\xff\xc0\x80\xed\xa0\x80\xe2\x82" "A");
	expect(&d, "\"\\udcff\\udcc0\\udc80\\udced\\udca0\\udc80\\udce2\\udc82A\"\n",
	       "invalid UTF-8 byte by byte");

	doc_open(&d, 0);
	json_obj_begin(&d.j);
	json_kstr(&d.j, "k\"\xff", "v");
	json_obj_end(&d.j);
	expect(&d, "{\"k\\\"\\udcff\": \"v\"}\n", "keys escaped too");
}

static void misuse(void (*fn)(struct json_out *), const char *what)
{
	struct doc d;
	int r;

	doc_open(&d, 0);
	fn(&d.j);
	r = doc_close(&d);
	CHECK(r == -EINVAL, "%s: json_finish %d, want -EINVAL (text '%s')", what, r, d.text);
	free(d.text);
}

static void m_nokey(struct json_out *j) { json_obj_begin(j); json_int(j, 1); json_obj_end(j); }
static void m_keyarr(struct json_out *j) { json_arr_begin(j); json_key(j, "k"); json_int(j, 1); json_arr_end(j); }
static void m_cross(struct json_out *j) { json_obj_begin(j); json_arr_end(j); }
static void m_open(struct json_out *j) { json_arr_begin(j); }
static void m_two(struct json_out *j) { json_int(j, 1); json_int(j, 2); }
static void m_dangling(struct json_out *j) { json_obj_begin(j); json_key(j, "k"); json_obj_end(j); }
static void m_twokeys(struct json_out *j) { json_obj_begin(j); json_key(j, "a"); json_kint(j, "b", 1); json_obj_end(j); }
static void m_nothing(struct json_out *j) { (void)j; }
static void m_extra_end(struct json_out *j) { json_obj_begin(j); json_obj_end(j); json_obj_end(j); }

static void m_deep(struct json_out *j)
{
	int i;

	for (i = 0; i <= JSON_MAX_DEPTH; i++)
		json_arr_begin(j);
	for (i = 0; i <= JSON_MAX_DEPTH; i++)
		json_arr_end(j);
}

static void test_misuse(void)
{
	misuse(m_nokey, "a value in an object without a key");
	misuse(m_keyarr, "a key in an array");
	misuse(m_cross, "an object closed as an array");
	misuse(m_open, "finished with an open array");
	misuse(m_two, "two top-level values");
	misuse(m_dangling, "a key without a value");
	misuse(m_twokeys, "two keys in a row");
	misuse(m_nothing, "nothing written");
	misuse(m_extra_end, "one end too many");
	misuse(m_deep, "deeper than JSON_MAX_DEPTH");
}

/* ---- Python as the oracle ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* valid, overlong, surrogate, > U+10FFFF, truncated, stray, special */
static const char *const pieces[] = {
	"a", "\"", "\\", "\t", "\n", "\x01", "\x7f", "/", " ",
	"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf", "\xef\xbf\xbf",
	"\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xe0\x9f\xbf", "\xf0\x80\x80\x80",
	"\xf0\x8f\xbf\xbf", "\xed\xa0\x80", "\xed\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80",
	"\xc3", "\xe2\x82", "\xf0\x9f\x98", "\x80", "\xbf", "\xfe", "\xff",
};

static void random_string(char *buf, size_t len)
{
	size_t n = 0, want = rng() % 12;
	const char *p;

	buf[0] = 0;
	while (want--) {
		if (rng() % 4 == 0) {
			if (n + 1 < len)
				buf[n++] = (char)(1 + rng() % 255);
			continue;
		}
		p = pieces[rng() % (sizeof(pieces) / sizeof(pieces[0]))];
		if (n + strlen(p) < len) {
			memcpy(buf + n, p, strlen(p));
			n += strlen(p);
		}
	}
	buf[n] = 0;
}

static void hex(char *out, const char *s)
{
	for (; *s; s++, out += 2)
		sprintf(out, "%02x", (unsigned char)*s);
	*out = 0;
}

#define NSTRINGS	5000

static const char python_prog[] =
	"python3 -c '\n"
	"import json, sys\n"
	"d = json.loads(sys.stdin.buffer.read().decode(\"utf-8\"))\n"
	"bad = 0\n"
	"for h, s in d[\"strings\"]:\n"
	"    want = bytes.fromhex(h).decode(\"utf-8\", \"surrogateescape\")\n"
	"    if s != want:\n"
	"        bad += 1\n"
	"        if bad < 10: print(\"bytes\", h, \"read back as\", ascii(s), \"want\", ascii(want))\n"
	"if len(d[\"strings\"]) != d[\"n\"]: bad += 1; print(\"strings\", len(d[\"strings\"]))\n"
	"print(\"python: %d strings, %d wrong\" % (len(d[\"strings\"]), bad))\n"
	"sys.exit(1 if bad else 0)' 2>&1";

static void test_python(void)
{
	char s[64], h[2 * sizeof(s) + 1];
	struct json_out j;
	FILE *p = popen(python_prog, "w");
	int i, rc;

	CHECK(p != NULL, "popen python3: %s", strerror(errno));
	if (!p)
		return;
	json_init(&j, p, 1);
	json_obj_begin(&j);
	json_kint(&j, "n", NSTRINGS);
	json_karr(&j, "strings");
	for (i = 0; i < NSTRINGS; i++) {
		random_string(s, sizeof(s));
		hex(h, s);
		json_arr_begin(&j);
		json_str(&j, h);
		json_str(&j, s);
		json_arr_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	CHECK(json_finish(&j) == 0, "json_finish");
	rc = pclose(p);
	CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 0,
	      "python3 read back other strings than written (exit %d)", WEXITSTATUS(rc));
}

int main(void)
{
	test_layout();
	test_values();
	test_misuse();
	test_python();
	return t_finish("json_out_test");
}
