/* SPDX-License-Identifier: MIT */
/*
 * A campaign rebuilt from what the results store keeps of it: campaigns.config, the normalized
 * content whose hash is campaigns.hash (campaign_parse.c, normalize()). The normalized JSON is
 * turned back into a campaign file (JSON, which the YAML parser reads) and loaded like any file;
 * the rebuilt campaign's hash must be the stored one, so what is run again is the campaign that
 * was measured, point for point. `report --against-model` runs it on the simulated board: the
 * same campaign with its board and instruments changed (struct sb_campaign_change).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "stackbench/campaign.h"
#include "stackbench/error.h"

/* sweep.mask as the file writes it: none, or {width, positions, baseline}. */
static int mask_to_file(cJSON *sweep)
{
	cJSON *list = cJSON_GetObjectItemCaseSensitive(sweep, "mask");
	cJSON *width = cJSON_DetachItemFromObjectCaseSensitive(sweep, "mask_width");
	cJSON *m, *pos, *v;
	bool baseline = false;

	if (!cJSON_IsArray(list) || !cJSON_IsNumber(width)) {
		cJSON_Delete(width);
		return sb_error_set(SB_ERR_PARSE, "sweep.mask or sweep.mask_width missing");
	}
	if (cJSON_GetArraySize(list) == 1 && cJSON_IsString(cJSON_GetArrayItem(list, 0)) &&
	    !strcmp(cJSON_GetArrayItem(list, 0)->valuestring, "none")) {
		cJSON_Delete(width);
		return cJSON_ReplaceItemInObjectCaseSensitive(sweep, "mask",
		                                              cJSON_CreateString("none"))
		           ? 0
		           : sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	if (!(m = cJSON_CreateObject()) || !(pos = cJSON_AddArrayToObject(m, "positions"))) {
		cJSON_Delete(m);
		cJSON_Delete(width);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	cJSON_AddItemToObject(m, "width", width);
	cJSON_ArrayForEach(v, list)
	{
		if (!cJSON_IsString(v)) {
			cJSON_Delete(m);
			return sb_error_set(SB_ERR_PARSE, "sweep.mask: not a list of positions");
		}
		if (!strcmp(v->valuestring, "none"))
			baseline = true;
		else
			cJSON_AddItemToArray(pos, cJSON_CreateString(v->valuestring));
	}
	cJSON_AddBoolToObject(m, "baseline", baseline);
	cJSON_ReplaceItemInObjectCaseSensitive(sweep, "mask", m);
	return 0;
}

/* trace.ports as the file writes it: a list of port numbers (0 in the store: every port). */
static void trace_ports_to_file(cJSON *trace)
{
	cJSON *ports = cJSON_GetObjectItemCaseSensitive(trace, "ports");
	char list[160];
	size_t len = 0;
	uint32_t mask;

	if (!cJSON_IsNumber(ports))
		return;
	mask = (uint32_t)ports->valuedouble;
	if (!mask) {
		cJSON_DeleteItemFromObjectCaseSensitive(trace, "ports");
		return;
	}
	list[0] = '\0';
	for (unsigned i = 0; i < 32 && len < sizeof(list); i++)
		if (mask & 1u << i)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u",
			                        len ? "," : "", i);
	cJSON_ReplaceItemInObjectCaseSensitive(trace, "ports", cJSON_CreateString(list));
}

/* The campaign file of a normalized content, changed as ch says (NULL: unchanged). */
static int to_file(const cJSON *norm, const struct sb_campaign_change *ch, cJSON **out)
{
	cJSON *o = cJSON_Duplicate(norm, true), *b, *in, *s, *v;
	bool hbm;
	int e;

	*out = NULL;
	if (!o)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	b = cJSON_GetObjectItemCaseSensitive(o, "bench");
	s = cJSON_GetObjectItemCaseSensitive(o, "sweep");
	if (!cJSON_IsObject(b) || !cJSON_IsObject(s)) {
		e = sb_error_set(SB_ERR_PARSE, "no 'bench' or 'sweep'");
		goto fail;
	}
	v = cJSON_GetObjectItemCaseSensitive(b, "profile");
	if (cJSON_IsString(v) && !v->valuestring[0])
		cJSON_DeleteItemFromObjectCaseSensitive(b, "profile");
	if (ch && ch->device) {
		cJSON *devs = cJSON_CreateArray();

		cJSON_AddItemToArray(devs, cJSON_CreateString(ch->device));
		cJSON_ReplaceItemInObjectCaseSensitive(b, "device", devs);
		cJSON_DeleteItemFromObjectCaseSensitive(b, "profile");
	}
	in = cJSON_GetObjectItemCaseSensitive(o, "instruments");
	if (!cJSON_IsObject(in))
		in = NULL; /* "none" */
	v = cJSON_GetObjectItemCaseSensitive(b, "engine");
	hbm = cJSON_IsString(v) && !strcmp(v->valuestring, "hbm2");
	cJSON_ArrayForEach(v, in)
	{
		const char *conn = cJSON_IsString(v) ? v->valuestring : "";

		if (!conn[0] || (ch && ch->sim_instruments && hbm))
			cJSON_SetValuestring(v, "none");
		else if (ch && ch->sim_instruments)
			cJSON_SetValuestring(v, "sim:");
	}
	v = cJSON_GetObjectItemCaseSensitive(b, "engine");
	/* an HBM2 card's campaign has no mask axis */
	if (!(cJSON_IsString(v) && !strcmp(v->valuestring, "hbm2")) && (e = mask_to_file(s)) < 0)
		goto fail;
	for (const char *k = "exclude"; k; k = strcmp(k, "exclude") ? NULL : "only") {
		v = cJSON_GetObjectItemCaseSensitive(o, k);
		if (cJSON_IsArray(v) && !cJSON_GetArraySize(v))
			cJSON_DeleteItemFromObjectCaseSensitive(o, k);
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "trace")))
		trace_ports_to_file(v);
	*out = o;
	return 0;
fail:
	cJSON_Delete(o);
	return e;
}

static int load(struct sb_campaign *c, const char *name, const cJSON *norm,
                const struct sb_campaign_change *ch)
{
	cJSON *file;
	char *text;
	int e;

	memset(c, 0, sizeof(*c));
	if ((e = to_file(norm, ch, &file)) < 0)
		return sb_error_wrap(e, "campaign '%s': its stored configuration", name);
	text = cJSON_PrintUnformatted(file);
	cJSON_Delete(file);
	if (!text)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	e = sb_campaign_load_string(c, name, text, strlen(text));
	cJSON_free(text);
	return e;
}

int sb_campaign_load_stored(struct sb_campaign *c, const char *name, const char *normalized,
                            const char *hash, const struct sb_campaign_change *change)
{
	cJSON *norm = cJSON_Parse(normalized);
	int e;

	memset(c, 0, sizeof(*c));
	if (!cJSON_IsObject(norm)) {
		cJSON_Delete(norm);
		return sb_error_set(SB_ERR_PARSE,
		                    "campaign '%s': the stored configuration is not JSON", name);
	}
	/* the campaign as it was measured: its hash is the one stored */
	if ((e = load(c, name, norm, NULL)) < 0)
		goto out;
	if (strcmp(c->hash, hash)) {
		e = sb_error_set(SB_ERR_MISMATCH,
		                 "campaign '%s': its stored configuration rebuilds into another "
		                 "campaign (content hash %s, stored %s): stored by another version "
		                 "of stackbench?",
		                 name, c->hash, hash);
		sb_campaign_release(c);
		goto out;
	}
	if (change && (change->device || change->sim_instruments)) {
		sb_campaign_release(c);
		e = load(c, name, norm, change);
	}
out:
	cJSON_Delete(norm);
	return e;
}
