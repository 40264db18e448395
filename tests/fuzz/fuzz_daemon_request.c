/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: stackbenchd's request parsing and line framing (host/daemon/proto.c and
 * the client library's line buffer), what every byte a socket client sends goes through.
 * The input is read once as a whole request line, then fed through the line buffer in chunks
 * (the first two bytes choose the line limit and the chunk size) with every complete line
 * parsed. Checks what they promise: lines never longer than the limit nor holding a newline,
 * a too-long line reported (never buffered), every error reply one line of valid JSON that
 * carries the code.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "proto.h"
#include "stackbench/client.h"
#include "stackbench/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct feed {
	size_t max;
	unsigned lines, too_long;
};

static void parse(const char *line, size_t len)
{
	struct sbd_request r;
	char err[512], *reply;
	const char *code = sbd_request_parse(line, len, &r, err, sizeof(err));
	cJSON *o;

	if (code) {
		/* The reply to a refused request: one line of JSON naming the code. */
		reply = sbd_reply_error(r.tag, code, err);
		if (!reply)
			abort();
		if (strchr(reply, '\n') != reply + strlen(reply) - 1)
			abort();
		o = cJSON_Parse(reply);
		if (!o || strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
		                     cJSON_GetObjectItemCaseSensitive(o, "error"), "code")),
		                 code))
			abort();
		cJSON_Delete(o);
		free(reply);
	} else if (r.cmd >= SBD_CMD_COUNT || strlen(r.tag) > SBD_TAG_MAX ||
	           (r.cmd == SBD_CMD_SUBMIT && (!r.campaign || r.db[0] != '/'))) {
		abort();
	}
	sbd_request_release(&r);
}

static int on_line(void *ctx, char *line, size_t len, int err)
{
	struct feed *f = ctx;

	if (err == SB_ERR_RANGE) {
		f->too_long++;
		return 0;
	}
	if (len > f->max || memchr(line, '\n', len) || line[len] != '\0')
		abort();
	f->lines++;
	parse(line, len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_linebuf lb;
	struct feed f = {0};
	size_t chunk, off;

	parse((const char *)data, size);
	if (size < 2)
		return 0;
	f.max = 8 + data[0] * 16u;
	chunk = 1 + data[1] % 97u;
	sb_linebuf_init(&lb, f.max);
	for (off = 2; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;

		if (sb_linebuf_feed(&lb, (const char *)data + off, n, on_line, &f) < 0)
			abort();
	}
	sb_linebuf_release(&lb);
	return 0;
}
