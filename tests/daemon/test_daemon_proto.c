/* SPDX-License-Identifier: MIT */
/*
 * stackbenchd's protocol without a daemon: request parsing and its errors, error replies, the
 * bounded line framing, and a fuzz smoke test of both (random and mutated requests).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "proto.h"
#include "stackbench/client.h"
#include "stackbench/error.h"

static const char *parse(const char *line, struct sbd_request *r, char *err)
{
	return sbd_request_parse(line, strlen(line), r, err, 512);
}

Test(daemon_proto, every_command_parses)
{
	static const char *const lines[] = {
	    "{\"v\":1,\"cmd\":\"hello\"}",
	    "{\"cmd\":\"queue\",\"all\":true}",
	    "{\"cmd\":\"status\",\"tag\":\"t1\"}",
	    "{\"cmd\":\"follow\"}",
	    "{\"cmd\":\"follow\",\"job\":3}",
	    "{\"cmd\":\"cancel\",\"job\":7}",
	    "{\"cmd\":\"pause\",\"job\":7}",
	    "{\"cmd\":\"resume\",\"job\":7}",
	    "{\"cmd\":\"dashboard\"}",
	};
	static const enum sbd_cmd cmds[] = {SBD_CMD_HELLO,  SBD_CMD_QUEUE,  SBD_CMD_STATUS,
	                                    SBD_CMD_FOLLOW, SBD_CMD_FOLLOW, SBD_CMD_CANCEL,
	                                    SBD_CMD_PAUSE,  SBD_CMD_RESUME, SBD_CMD_DASHBOARD};
	struct sbd_request r;
	char err[512];

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		cr_assert_null(parse(lines[i], &r, err), "%s: %s", lines[i], err);
		cr_assert_eq(r.cmd, cmds[i], "%s", lines[i]);
		sbd_request_release(&r);
	}
	cr_assert_null(parse("{\"cmd\":\"queue\",\"all\":true}", &r, err));
	cr_assert(r.all);
	cr_assert_null(parse("{\"cmd\":\"status\",\"tag\":\"t1\"}", &r, err));
	cr_assert_str_eq(r.tag, "t1");
	cr_assert_null(parse("{\"cmd\":\"follow\",\"job\":3}", &r, err));
	cr_assert(r.has_job);
	cr_assert_eq(r.job, 3);
}

Test(daemon_proto, submit_fields)
{
	struct sbd_request r;
	char err[512];

	cr_assert_null(
	    parse("{\"cmd\":\"submit\",\"campaign\":\"name: x\\n\",\"file\":\"/a/x.yaml\","
	          "\"db\":\"/tmp/r.db\",\"priority\":-5,\"jobs\":2}",
	          &r, err),
	    "%s", err);
	cr_assert_str_eq(r.campaign, "name: x\n");
	cr_assert_eq(r.campaign_len, 8);
	cr_assert_str_eq(r.file, "/a/x.yaml");
	cr_assert_str_eq(r.db, "/tmp/r.db");
	cr_assert_eq(r.priority, -5);
	cr_assert_eq(r.workers, 2);
	cr_assert_eq(r.umask, -1);
	cr_assert_str_eq(r.db_dir_id, "");
	sbd_request_release(&r);
	/* The client's view: its umask and the database folder's identity. */
	cr_assert_null(parse("{\"cmd\":\"submit\",\"campaign\":\"x\",\"db\":\"/r.db\","
	                     "\"umask\":18,\"db_dir_id\":\"2049:131\"}",
	                     &r, err),
	               "%s", err);
	cr_assert_eq(r.umask, 022);
	cr_assert_str_eq(r.db_dir_id, "2049:131");
	sbd_request_release(&r);
	/* Defaults. */
	cr_assert_null(parse("{\"cmd\":\"submit\",\"campaign\":\"x\",\"db\":\"/r.db\"}", &r, err));
	cr_assert_str_eq(r.file, "campaign.yaml");
	cr_assert_eq(r.priority, 0);
	cr_assert_eq(r.workers, 1);
	sbd_request_release(&r);
}

struct bad {
	const char *line, *code, *message;
};

Test(daemon_proto, bad_requests_name_what_is_wrong)
{
	static const struct bad cases[] = {
	    {"{\"cmd\":", SBD_E_BAD_JSON, "not valid JSON"},
	    {"[1,2]", SBD_E_BAD_JSON, "a request is a JSON object"},
	    {"\"status\"", SBD_E_BAD_JSON, "JSON object"},
	    {"{}", SBD_E_BAD_REQUEST, "field 'cmd' is missing"},
	    {"{\"cmd\":5}", SBD_E_BAD_REQUEST, "field 'cmd'"},
	    {"{\"cmd\":\"frobnicate\"}", SBD_E_UNKNOWN_COMMAND, "unknown command 'frobnicate'"},
	    {"{\"v\":2,\"cmd\":\"status\"}", SBD_E_VERSION, "version 2"},
	    {"{\"v\":\"1\",\"cmd\":\"status\"}", SBD_E_BAD_REQUEST, "field 'v'"},
	    {"{\"cmd\":\"cancel\"}", SBD_E_BAD_REQUEST, "field 'job' is missing"},
	    {"{\"cmd\":\"cancel\",\"job\":\"7\"}", SBD_E_BAD_REQUEST, "field 'job'"},
	    {"{\"cmd\":\"cancel\",\"job\":1.5}", SBD_E_BAD_REQUEST, "field 'job'"},
	    {"{\"cmd\":\"cancel\",\"job\":0}", SBD_E_BAD_REQUEST, "field 'job'"},
	    {"{\"cmd\":\"queue\",\"all\":1}", SBD_E_BAD_REQUEST, "field 'all'"},
	    {"{\"cmd\":\"status\",\"tag\":{}}", SBD_E_BAD_REQUEST, "field 'tag'"},
	    {"{\"cmd\":\"submit\",\"db\":\"/r.db\"}", SBD_E_BAD_REQUEST, "'campaign' is missing"},
	    {"{\"cmd\":\"submit\",\"campaign\":\"\",\"db\":\"/r.db\"}", SBD_E_BAD_REQUEST,
	     "'campaign' is empty"},
	    {"{\"cmd\":\"submit\",\"campaign\":\"x\"}", SBD_E_BAD_REQUEST, "'db' is missing"},
	    {"{\"cmd\":\"submit\",\"campaign\":\"x\",\"db\":\"r.db\"}", SBD_E_BAD_REQUEST,
	     "'r.db' is not an absolute path"},
	    {"{\"cmd\":\"submit\",\"campaign\":\"x\",\"db\":\"/r.db\",\"priority\":5000}",
	     SBD_E_BAD_REQUEST, "field 'priority': expected an integer in -1000..1000"},
	    {"{\"cmd\":\"submit\",\"campaign\":\"x\",\"db\":\"/r.db\",\"jobs\":17}",
	     SBD_E_BAD_REQUEST, "field 'jobs'"},
	    {"{\"cmd\":\"submit\",\"campaign\":\"x\",\"db\":\"/r.db\",\"file\":\"\"}",
	     SBD_E_BAD_REQUEST, "field 'file'"},
	    {"{\"cmd\":\"submit\",\"campaign\":\"x\",\"db\":\"/r.db\",\"umask\":512}",
	     SBD_E_BAD_REQUEST, "field 'umask': expected an integer in 0..511"},
	    {"{\"cmd\":\"submit\",\"campaign\":\"x\",\"db\":\"/r.db\",\"db_dir_id\":\"a;b\"}",
	     SBD_E_BAD_REQUEST, "field 'db_dir_id': expected DEV:INO"},
	};
	struct sbd_request r;
	char err[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *code = parse(cases[i].line, &r, err);

		cr_assert_not_null(code, "%s was accepted", cases[i].line);
		cr_assert_str_eq(code, cases[i].code, "%s: %s (%s)", cases[i].line, code, err);
		cr_assert(strstr(err, cases[i].message), "%s: message '%s'", cases[i].line, err);
		sbd_request_release(&r);
	}
}

Test(daemon_proto, unknown_command_is_quoted_safely)
{
	struct sbd_request r;
	char err[512];
	const char *code =
	    parse("{\"cmd\":\"a\\nb\\u0001cccccccccccccccccccccccccccccccccccccccccccccc"
	          "ccccccccccccccccc\"}",
	          &r, err);

	cr_assert_str_eq(code, SBD_E_UNKNOWN_COMMAND);
	cr_assert(strstr(err, "'a?b?ccc"), "%s", err);
	cr_assert(strstr(err, "...'"), "long names are cut: %s", err);
	cr_assert_null(strchr(err, '\n'));
}

Test(daemon_proto, tag_is_echoed_in_errors)
{
	struct sbd_request r;
	char err[512], *line;
	cJSON *o;

	cr_assert_str_eq(parse("{\"tag\":\"abc\",\"cmd\":\"nope\"}", &r, err),
	                 SBD_E_UNKNOWN_COMMAND);
	line = sbd_reply_error(r.tag, SBD_E_UNKNOWN_COMMAND, err);
	cr_assert_not_null(line);
	cr_assert_eq(line[strlen(line) - 1], '\n');
	o = cJSON_Parse(line);
	cr_assert_not_null(o);
	cr_assert_str_eq(cJSON_GetObjectItem(o, "tag")->valuestring, "abc");
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(o, "ok")));
	cr_assert_eq(cJSON_GetObjectItem(o, "v")->valueint, 1);
	cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "error"), "code")->valuestring,
	                 SBD_E_UNKNOWN_COMMAND);
	cJSON_Delete(o);
	free(line);
}

Test(daemon_proto, json_escape)
{
	char out[64];

	sbd_json_escape(out, sizeof(out), "a\"b\\c\n\x01");
	cr_assert_str_eq(out, "a\\\"b\\\\c\\u000a\\u0001");
	sbd_json_escape(out, 6, "abcdefgh");
	cr_assert_str_eq(out, "abcde");
	sbd_json_escape(out, 4, "a\"\"");
	cr_assert_str_eq(out, "a\\\"", "an escape is never cut in half");
}

/* ---- line framing -------------------------------------------------------------------------- */

struct lines {
	char got[16][64];
	unsigned n, too_long;
};

static int collect(void *ctx, char *line, size_t len, int err)
{
	struct lines *l = ctx;

	if (err == SB_ERR_RANGE) {
		l->too_long++;
		snprintf(l->got[l->n++ % 16], 64, "<too long>");
		return 0;
	}
	cr_assert_eq(strlen(line), len);
	snprintf(l->got[l->n++ % 16], 64, "%s", line);
	return 0;
}

Test(daemon_proto, lines_split_across_chunks)
{
	struct sb_linebuf lb;
	struct lines l = {0};
	const char *text = "one\ntwo\r\n\nthree\nfou";

	sb_linebuf_init(&lb, 16);
	/* Byte by byte: the same lines as in one piece. */
	for (size_t i = 0; i < strlen(text); i++)
		cr_assert_eq(sb_linebuf_feed(&lb, text + i, 1, collect, &l), 0);
	cr_assert_eq(l.n, 4);
	cr_assert_str_eq(l.got[0], "one");
	cr_assert_str_eq(l.got[1], "two");
	cr_assert_str_eq(l.got[2], "");
	cr_assert_str_eq(l.got[3], "three");
	cr_assert_eq(sb_linebuf_feed(&lb, "r\n", 2, collect, &l), 0);
	cr_assert_str_eq(l.got[4], "four");
	sb_linebuf_release(&lb);
}

Test(daemon_proto, too_long_line_is_reported_once_and_dropped)
{
	struct sb_linebuf lb;
	struct lines l = {0};
	char chunk[100];

	memset(chunk, 'x', sizeof(chunk));
	sb_linebuf_init(&lb, 16);
	cr_assert_eq(sb_linebuf_feed(&lb, "0123456789abcdef\n", 17, collect, &l), 0);
	cr_assert_str_eq(l.got[0], "0123456789abcdef", "exactly the limit is accepted");
	/* 100 000 bytes without a newline, then a good line: one report, nothing buffered. */
	for (int i = 0; i < 1000; i++)
		cr_assert_eq(sb_linebuf_feed(&lb, chunk, sizeof(chunk), collect, &l), 0);
	cr_assert_leq(lb.cap, 17, "the buffer never grows past the limit (cap %zu)", lb.cap);
	cr_assert_eq(sb_linebuf_feed(&lb, "xx\nok\n", 6, collect, &l), 0);
	cr_assert_eq(l.too_long, 1);
	cr_assert_eq(l.n, 3);
	cr_assert_str_eq(l.got[1], "<too long>");
	cr_assert_str_eq(l.got[2], "ok");
	/* A too-long line inside one chunk with lines around it. */
	cr_assert_eq(sb_linebuf_feed(&lb, "a\n0123456789abcdefg\nb\n", 22, collect, &l), 0);
	cr_assert_eq(l.too_long, 2);
	cr_assert_str_eq(l.got[3], "a");
	cr_assert_str_eq(l.got[4], "<too long>");
	cr_assert_str_eq(l.got[5], "b");
	sb_linebuf_release(&lb);
}

static int stop_at_two(void *ctx, char *line, size_t len, int err)
{
	unsigned *n = ctx;

	(void)line;
	(void)len;
	(void)err;
	return ++*n == 2 ? -99 : 0;
}

Test(daemon_proto, callback_stops_the_feed)
{
	struct sb_linebuf lb;
	unsigned n = 0;

	sb_linebuf_init(&lb, 16);
	cr_assert_eq(sb_linebuf_feed(&lb, "a\nb\nc\n", 6, stop_at_two, &n), -99);
	cr_assert_eq(n, 2);
	sb_linebuf_release(&lb);
}

/* ---- fuzz smoke test ------------------------------------------------------------------------ */

/* A fixed sequence (srandom in the test): the same mutations every run. */
static uint64_t next(void)
{
	return (uint64_t)random() << 31 ^ (uint64_t)random();
}

static int count_lines(void *ctx, char *line, size_t len, int err)
{
	unsigned *n = ctx;

	(void)line;
	(void)len;
	(void)err;
	(*n)++;
	return 0;
}

Test(daemon_proto, fuzz_requests_and_framing)
{
	static const char *const seeds[] = {
	    "{\"v\":1,\"cmd\":\"submit\",\"campaign\":\"name: q\\nsweep: {type: [ro, wo]}\\n\","
	    "\"file\":\"/x/q.yaml\",\"db\":\"/tmp/q.db\",\"priority\":3,\"jobs\":2,\"tag\":\"t\"}",
	    "{\"cmd\":\"cancel\",\"job\":12}",
	    "{\"cmd\":\"queue\",\"all\":false}",
	    "{\"cmd\":\"follow\",\"job\":1}",
	};
	static const char *const known[] = {
	    SBD_E_BAD_JSON,        SBD_E_BAD_REQUEST, SBD_E_TOO_LONG,
	    SBD_E_UNKNOWN_COMMAND, SBD_E_VERSION,     SBD_E_INTERNAL,
	};
	char buf[512];
	unsigned ok = 0, refused = 0;

	srandom(20261201);
	for (int it = 0; it < 40000; it++) {
		const char *seed = seeds[next() % 4];
		size_t n = strlen(seed), muts = 1 + next() % 6;
		struct sbd_request r;
		const char *code;
		char err[512];

		memcpy(buf, seed, n);
		for (size_t m = 0; m < muts; m++) {
			size_t at = next() % n;

			switch (next() % 4) {
			case 0:
				buf[at] = (char)(next() & 0xff);
				break;
			case 1:
				n = at; /* truncate */
				break;
			case 2:
				if (n < sizeof(buf) - 1) {
					memmove(buf + at + 1, buf + at, n - at);
					buf[at] = "{}[]\":,\\0123e-tfn"[next() % 17];
					n++;
				}
				break;
			default:
				memmove(buf + at, buf + at + 1, n - at - 1);
				n--;
			}
			if (!n)
				n = 1;
		}
		code = sbd_request_parse(buf, n, &r, err, sizeof(err));
		if (code) {
			bool is_known = false;

			for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
				is_known |= !strcmp(code, known[k]);
			cr_assert(is_known, "unknown code '%s'", code);
			cr_assert(err[0], "an error has a message");
			refused++;
		} else {
			cr_assert_lt((unsigned)r.cmd, SBD_CMD_COUNT);
			ok++;
		}
		sbd_request_release(&r);
		{
			/* The same bytes through the framing, in random chunks. */
			struct sb_linebuf lb;
			unsigned lines = 0;

			sb_linebuf_init(&lb, 64);
			for (size_t off = 0; off < n;) {
				size_t k = 1 + next() % 40;

				if (k > n - off)
					k = n - off;
				cr_assert_eq(
				    sb_linebuf_feed(&lb, buf + off, k, count_lines, &lines), 0);
				off += k;
			}
			sb_linebuf_release(&lb);
		}
	}
	cr_assert_gt(ok, 100, "some mutations stay valid (%u)", ok);
	cr_assert_gt(refused, 10000, "most are refused (%u)", refused);
}
