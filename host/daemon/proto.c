/* SPDX-License-Identifier: MIT */
/* stackbenchd's protocol: request parsing and error replies, without I/O (proto.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "proto.h"
#include "stackbench/client.h"

static const char *const cmd_names[SBD_CMD_COUNT] = {
    [SBD_CMD_HELLO] = "hello",   [SBD_CMD_SUBMIT] = "submit", [SBD_CMD_QUEUE] = "queue",
    [SBD_CMD_STATUS] = "status", [SBD_CMD_FOLLOW] = "follow", [SBD_CMD_CANCEL] = "cancel",
    [SBD_CMD_PAUSE] = "pause",   [SBD_CMD_RESUME] = "resume", [SBD_CMD_DASHBOARD] = "dashboard",
};

const char *sbd_cmd_name(enum sbd_cmd c)
{
	return c < SBD_CMD_COUNT ? cmd_names[c] : "?";
}

void sbd_json_escape(char *dst, size_t size, const char *s)
{
	size_t o = 0;

	if (!size)
		return;
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		char tmp[8];
		size_t n;

		if (ch == '"' || ch == '\\')
			n = (size_t)snprintf(tmp, sizeof(tmp), "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			n = (size_t)snprintf(tmp, sizeof(tmp), "\\u%04x", ch);
		else
			n = (size_t)snprintf(tmp, sizeof(tmp), "%c", ch);
		if (o + n >= size)
			break;
		memcpy(dst + o, tmp, n);
		o += n;
	}
	dst[o] = '\0';
}

/* A printable excerpt of untrusted text for messages: at most 40 bytes, controls as '?'. */
static void excerpt(char *dst, size_t size, const char *s)
{
	size_t o = 0;

	for (; *s && o + 4 < size && o < 40; s++)
		dst[o++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
	if (*s && o + 4 < size) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o] = '\0';
}

/* An integer field in [lo, hi]; *present says whether it was there. */
static const char *get_int(const cJSON *o, const char *name, long long lo, long long hi,
                           long long *out, bool *present, char *err, size_t errsize)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

	*present = v != NULL;
	if (!v)
		return NULL;
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
	    v->valuedouble != floor(v->valuedouble) || v->valuedouble < (double)lo ||
	    v->valuedouble > (double)hi) {
		snprintf(err, errsize, "field '%s': expected an integer in %lld..%lld", name, lo,
		         hi);
		return SBD_E_BAD_REQUEST;
	}
	*out = (long long)v->valuedouble;
	return NULL;
}

/* A string field of at most max bytes (required or not). */
static const char *get_str(const cJSON *o, const char *name, bool required, size_t max,
                           const char **out, char *err, size_t errsize)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

	*out = NULL;
	if (!v) {
		if (!required)
			return NULL;
		snprintf(err, errsize, "field '%s' is missing", name);
		return SBD_E_BAD_REQUEST;
	}
	if (!cJSON_IsString(v) || !v->valuestring) {
		snprintf(err, errsize, "field '%s': expected a string", name);
		return SBD_E_BAD_REQUEST;
	}
	if (strlen(v->valuestring) > max) {
		snprintf(err, errsize, "field '%s': longer than %zu bytes", name, max);
		return SBD_E_BAD_REQUEST;
	}
	*out = v->valuestring;
	return NULL;
}

static const char *parse_submit(const cJSON *o, struct sbd_request *r, char *err, size_t errsize)
{
	const char *campaign, *file, *db, *dir_id, *code;
	long long v;
	bool present;

	if ((code = get_str(o, "campaign", true, SB_DAEMON_LINE_MAX, &campaign, err, errsize)) ||
	    (code = get_str(o, "file", false, SBD_FILE_MAX - 1, &file, err, errsize)) ||
	    (code = get_str(o, "db", true, SBD_DB_MAX - 1, &db, err, errsize)) ||
	    (code =
	         get_str(o, "db_dir_id", false, sizeof(r->db_dir_id) - 1, &dir_id, err, errsize)))
		return code;
	if (dir_id &&
	    (!*dir_id || strspn(dir_id, "0123456789:") != strlen(dir_id) || !strchr(dir_id, ':'))) {
		snprintf(err, errsize, "field 'db_dir_id': expected DEV:INO");
		return SBD_E_BAD_REQUEST;
	}
	if (!*campaign) {
		snprintf(err, errsize, "field 'campaign' is empty");
		return SBD_E_BAD_REQUEST;
	}
	if (db[0] != '/') {
		char ex[48];

		excerpt(ex, sizeof(ex), db);
		snprintf(err, errsize, "field 'db': '%s' is not an absolute path", ex);
		return SBD_E_BAD_REQUEST;
	}
	if (file && (!*file || strchr(file, '\n'))) {
		snprintf(err, errsize, "field 'file': expected a file name");
		return SBD_E_BAD_REQUEST;
	}
	r->campaign_len = strlen(campaign);
	if (!(r->campaign = malloc(r->campaign_len + 1))) {
		snprintf(err, errsize, "out of memory");
		return SBD_E_INTERNAL;
	}
	memcpy(r->campaign, campaign, r->campaign_len + 1);
	snprintf(r->file, sizeof(r->file), "%s", file ? file : "campaign.yaml");
	snprintf(r->db, sizeof(r->db), "%s", db);
	snprintf(r->db_dir_id, sizeof(r->db_dir_id), "%s", dir_id ? dir_id : "");
	if ((code = get_int(o, "priority", -SBD_PRIORITY_MAX, SBD_PRIORITY_MAX, &v, &present, err,
	                    errsize)))
		return code;
	r->priority = present ? (int)v : 0;
	if ((code = get_int(o, "jobs", 1, SBD_WORKERS_MAX, &v, &present, err, errsize)))
		return code;
	r->workers = present ? (unsigned)v : 1;
	if ((code = get_int(o, "umask", 0, 0777, &v, &present, err, errsize)))
		return code;
	r->umask = present ? (int)v : -1;
	return NULL;
}

static void read_tag(const cJSON *o, struct sbd_request *r)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "tag");

	if (cJSON_IsString(t) && t->valuestring && strlen(t->valuestring) <= SBD_TAG_MAX)
		snprintf(r->tag, sizeof(r->tag), "%s", t->valuestring);
}

const char *sbd_request_parse(const char *line, size_t len, struct sbd_request *r, char *err,
                              size_t errsize)
{
	const cJSON *cmd, *t;
	const char *code = NULL;
	long long v;
	bool present;
	cJSON *o;
	int c;

	memset(r, 0, sizeof(*r));
	err[0] = '\0';
	if (len > SB_DAEMON_LINE_MAX) {
		snprintf(err, errsize, "request longer than %u bytes", SB_DAEMON_LINE_MAX);
		return SBD_E_TOO_LONG;
	}
	o = cJSON_ParseWithLength(line, len);
	if (!o || !cJSON_IsObject(o)) {
		snprintf(err, errsize, "%s", o ? "a request is a JSON object" : "not valid JSON");
		cJSON_Delete(o);
		return SBD_E_BAD_JSON;
	}
	read_tag(o, r);
	t = cJSON_GetObjectItemCaseSensitive(o, "tag");
	if (t && !(cJSON_IsString(t) && t->valuestring && strlen(t->valuestring) <= SBD_TAG_MAX)) {
		snprintf(err, errsize, "field 'tag': expected a string of at most %d bytes",
		         SBD_TAG_MAX);
		code = SBD_E_BAD_REQUEST;
		goto out;
	}
	if ((code = get_int(o, "v", 0, 1000000, &v, &present, err, errsize)))
		goto out;
	if (present && v != SB_DAEMON_API_VERSION) {
		snprintf(err, errsize, "protocol version %lld is not spoken here (this daemon: %d)",
		         v, SB_DAEMON_API_VERSION);
		code = SBD_E_VERSION;
		goto out;
	}
	cmd = cJSON_GetObjectItemCaseSensitive(o, "cmd");
	if (!cJSON_IsString(cmd) || !cmd->valuestring) {
		snprintf(err, errsize, "field 'cmd' is missing or not a string");
		code = SBD_E_BAD_REQUEST;
		goto out;
	}
	for (c = 0; c < SBD_CMD_COUNT && strcmp(cmd->valuestring, cmd_names[c]); c++)
		;
	if (c == SBD_CMD_COUNT) {
		char ex[48];

		excerpt(ex, sizeof(ex), cmd->valuestring);
		snprintf(
		    err, errsize,
		    "unknown command '%s' (hello, submit, queue, status, follow, cancel, pause, "
		    "resume, dashboard)",
		    ex);
		code = SBD_E_UNKNOWN_COMMAND;
		goto out;
	}
	r->cmd = (enum sbd_cmd)c;
	if ((code = get_int(o, "job", 1, INT64_C(1) << 53, &v, &r->has_job, err, errsize)))
		goto out;
	r->job = r->has_job ? (int64_t)v : 0;
	switch (r->cmd) {
	case SBD_CMD_SUBMIT:
		code = parse_submit(o, r, err, errsize);
		break;
	case SBD_CMD_CANCEL:
	case SBD_CMD_PAUSE:
	case SBD_CMD_RESUME:
		if (!r->has_job) {
			snprintf(err, errsize, "field 'job' is missing (the job's id)");
			code = SBD_E_BAD_REQUEST;
		}
		break;
	case SBD_CMD_QUEUE:
		t = cJSON_GetObjectItemCaseSensitive(o, "all");
		if (t && !cJSON_IsBool(t)) {
			snprintf(err, errsize, "field 'all': expected true or false");
			code = SBD_E_BAD_REQUEST;
		}
		r->all = cJSON_IsTrue(t);
		break;
	default:
		break;
	}
out:
	cJSON_Delete(o);
	return code;
}

void sbd_request_release(struct sbd_request *r)
{
	free(r->campaign);
	r->campaign = NULL;
}

char *sbd_reply_error(const char *tag, const char *code, const char *message)
{
	cJSON *o = cJSON_CreateObject(), *e;
	char *text = NULL, *line = NULL;
	size_t n;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "v", SB_DAEMON_API_VERSION);
	if (tag && *tag)
		cJSON_AddStringToObject(o, "tag", tag);
	cJSON_AddFalseToObject(o, "ok");
	if ((e = cJSON_AddObjectToObject(o, "error"))) {
		cJSON_AddStringToObject(e, "code", code);
		cJSON_AddStringToObject(e, "message", message);
	}
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text)
		return NULL;
	n = strlen(text);
	if ((line = malloc(n + 2))) {
		memcpy(line, text, n);
		memcpy(line + n, "\n", 2);
	}
	cJSON_free(text);
	return line;
}
