/* SPDX-License-Identifier: MIT */
/*
 * stackbench replay on an HBM2 card: the whole trace is checked first (a record that cannot
 * be one AXI3 burst is refused by number before the card is touched), then opened again and
 * replayed through the hbm_replay block (stackbench/hbm_replay.h); the report is per port.
 */
#include <stdio.h>
#include <string.h>

#include "cmd_replay_hbm.h"
#include "stackbench/capture.h"
#include "stackbench/error.h"
#include "stackbench/hbm_replay.h"

static int replay_error(int err)
{
	if (err == SB_ERR_PARSE || err == SB_ERR_IO)
		return sb_cli_error(err), SB_EXIT_INPUT;
	if (err == SB_ERR_INVAL)
		return sb_cli_usage_error("replay", "%s", sb_error_detail());
	return sb_cli_error(err);
}

static void print_text(const char *name, const struct sb_hbm_replay_result *r)
{
	printf("replay     %s: %llu records, %llu replayed as %llu AXI bursts (%s selection)\n",
	       name, (unsigned long long)r->records, (unsigned long long)(r->records - r->skipped),
	       (unsigned long long)r->requests, sb_replay_select_name(r->select));
	printf("timing     %s, density %.4f, %.6g AXI cycles per trace tick\n",
	       r->timed ? "in time order" : "as fast as the ports accept", r->density,
	       r->time_scale);
	printf("duration   %.3f us (trace %.3f us)\n", r->duration_ns / 1e3,
	       (double)r->trace_cycles * 1e6 / r->clock_hz);
	printf("bursts     %llu issued (%llu reads, %llu writes), %llu completed, %llu errors\n",
	       (unsigned long long)r->issued, (unsigned long long)r->reads,
	       (unsigned long long)r->writes, (unsigned long long)r->completed,
	       (unsigned long long)r->errors);
	printf("bandwidth  %.3f GB/s payload (%llu bytes)\n", r->bandwidth_gbps,
	       (unsigned long long)r->bytes);
	printf("latency    min %.1f ns, avg %.1f ns, max %.1f ns\n", r->latency_min_ns,
	       r->latency_avg_ns, r->latency_max_ns);
	printf("lag        avg %.1f ns, max %.1f ns (due to issued)\n", r->lag_avg_ns,
	       r->lag_max_ns);
	printf("host       %llu descriptors through registers (FIFO of %u) in %.3f s of host "
	       "time\n",
	       (unsigned long long)r->requests, r->fifo_depth, r->host_s);
	printf("\nport     bursts    written\n");
	for (unsigned p = 0; p < r->ports; p++)
		if (r->port_bursts[p] || r->port_requests[p])
			printf("%-4u %10llu %10llu\n", p, (unsigned long long)r->port_bursts[p],
			       (unsigned long long)r->port_requests[p]);
}

static cJSON *result_json(const char *name, const struct sb_hbm_replay_result *r, const char *trace,
                          const struct sb_capture_stats *cs)
{
	cJSON *o = cJSON_CreateObject(), *ps, *t;

	cJSON_AddStringToObject(o, "schema", "stackbench-replay");
	cJSON_AddStringToObject(o, "schema_version", "1.0");
	cJSON_AddStringToObject(o, "board", "hbm2");
	cJSON_AddStringToObject(o, "input", name);
	cJSON_AddStringToObject(o, "select", sb_replay_select_name(r->select));
	cJSON_AddBoolToObject(o, "timed", r->timed);
	cJSON_AddNumberToObject(o, "density", r->density);
	cJSON_AddNumberToObject(o, "cycles_per_tick", r->time_scale);
	cJSON_AddNumberToObject(o, "clock_hz", r->clock_hz);
	cJSON_AddNumberToObject(o, "records", (double)r->records);
	cJSON_AddNumberToObject(o, "skipped", (double)r->skipped);
	cJSON_AddNumberToObject(o, "requests", (double)r->requests);
	cJSON_AddNumberToObject(o, "issued", (double)r->issued);
	cJSON_AddNumberToObject(o, "completed", (double)r->completed);
	cJSON_AddNumberToObject(o, "reads", (double)r->reads);
	cJSON_AddNumberToObject(o, "writes", (double)r->writes);
	cJSON_AddNumberToObject(o, "errors", (double)r->errors);
	cJSON_AddNumberToObject(o, "bad_descriptors", (double)r->bad);
	cJSON_AddNumberToObject(o, "data_bytes", (double)r->bytes);
	cJSON_AddNumberToObject(o, "duration_ns", r->duration_ns);
	cJSON_AddNumberToObject(o, "trace_duration_ns",
	                        (double)r->trace_cycles * 1e9 / r->clock_hz);
	cJSON_AddNumberToObject(o, "bandwidth_gbps", r->bandwidth_gbps);
	cJSON_AddNumberToObject(o, "payload_gbps", r->bandwidth_gbps);
	cJSON_AddNumberToObject(o, "latency_min_ns", r->latency_min_ns);
	cJSON_AddNumberToObject(o, "latency_avg_ns", r->latency_avg_ns);
	cJSON_AddNumberToObject(o, "latency_max_ns", r->latency_max_ns);
	cJSON_AddNumberToObject(o, "lag_avg_ns", r->lag_avg_ns);
	cJSON_AddNumberToObject(o, "lag_max_ns", r->lag_max_ns);
	cJSON_AddNumberToObject(o, "fifo_depth", r->fifo_depth);
	cJSON_AddNumberToObject(o, "host_s", r->host_s);
	ps = cJSON_AddArrayToObject(o, "ports");
	for (unsigned p = 0; p < r->ports; p++) {
		cJSON *j;

		if (!r->port_bursts[p] && !r->port_requests[p])
			continue;
		j = cJSON_CreateObject();
		cJSON_AddNumberToObject(j, "port", p);
		cJSON_AddNumberToObject(j, "bursts", (double)r->port_bursts[p]);
		cJSON_AddNumberToObject(j, "requests", (double)r->port_requests[p]);
		cJSON_AddItemToArray(ps, j);
	}
	if (!trace) {
		cJSON_AddNullToObject(o, "trace");
		return o;
	}
	t = cJSON_AddObjectToObject(o, "trace");
	cJSON_AddStringToObject(t, "file", trace);
	cJSON_AddNumberToObject(t, "records", (double)cs->records);
	cJSON_AddNumberToObject(t, "executed", (double)cs->executed);
	cJSON_AddNumberToObject(t, "lost_records", (double)(cs->dropped + cs->corrupt + cs->late));
	return o;
}

static int report(struct sb_cli_replay_hbm *h, const struct sb_hbm_replay_result *res,
                  const struct sb_capture_stats *cst)
{
	const char *out = h->co->out;
	bool text = !h->json || strcmp(h->json, "-");
	cJSON *o;
	int err;

	if (text)
		print_text(h->r->name, res);
	if (out && text)
		printf("\ntrace      %s: %llu records of %llu bursts (%llu lost)\n", out,
		       (unsigned long long)cst->records, (unsigned long long)cst->executed,
		       (unsigned long long)(cst->dropped + cst->corrupt + cst->late));
	if (!h->json)
		return SB_EXIT_OK;
	o = result_json(h->r->name, res, out, cst);
	err =
	    o ? sb_cli_replay_write_json(h->json, o) : sb_error_set(SB_ERR_NOMEM, "out of memory");
	cJSON_Delete(o);
	return err < 0 ? sb_cli_error(err) : SB_EXIT_OK;
}

int sb_cli_replay_hbm(struct sb_cli_replay_hbm *h)
{
	struct sb_hbm_replay_result res;
	struct sb_capture_stats cst;
	struct sb_capture *cap = NULL;
	uint64_t n;
	int err, rc;

	memset(&cst, 0, sizeof(cst));
	if (h->cfg->ring_log2)
		return sb_cli_usage_error(
		    "replay", "--ring-log2: an HBM2 card has no descriptor ring (the host "
		              "writes descriptors into the hbm_replay block's FIFO)");
	if ((err = sb_hbm_replay_check(h->dev, h->r, h->cfg, &n)) < 0)
		return replay_error(err);
	sb_trace_reader_free(h->r);
	h->r = NULL;
	if ((rc = sb_cli_trace_open("replay", h->to, h->inputs, h->ninputs, &h->r)) != 0)
		return rc;
	if (h->co->out) {
		h->co->cfg.port_mask = h->cfg->port_mask;
		if ((err = sb_capture_open(&cap, h->dev, &h->co->cfg, h->co->out)) < 0)
			return err == SB_ERR_INVAL
			           ? sb_cli_usage_error("replay", "%s", sb_error_detail())
			           : sb_cli_error(err);
	}
	if ((err = sb_hbm_replay_run(h->dev, h->r, h->cfg, cap, &res)) < 0) {
		sb_capture_abort(cap);
		return replay_error(err);
	}
	if (cap && (err = sb_capture_close(cap, &cst)) < 0)
		return sb_cli_error(err);
	return report(h, &res, &cst);
}
