/* SPDX-License-Identifier: MIT */
/*
 * stackbench instruments --probe CONN: open any instrument from its connection string, print a
 * few readings and close it — to check a camera, meter, supply or cooling rig before an
 * overnight run. A camera's last frame can be saved as a false-colour PNG with its region of
 * interest and hot spot marked (--snapshot). Real instruments are read in real time; sim:
 * instruments on a simulated board, whose bench clock advances between readings.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/instrument.h"
#include "stackbench/point.h"
#include "stackbench/provenance.h"

static const char *const role_names[] = {
    [SB_INSTRUMENT_TEMPERATURE] = "camera",
    [SB_INSTRUMENT_POWER] = "meter",
    [SB_INSTRUMENT_COOLING] = "cooling",
};

int sb_cli_probe_role(const char *name, int *role)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(name, role_names[i])) {
			*role = i;
			return 0;
		}
	return -1;
}

/* The role of a connection string: the first, in the order camera, meter, cooling, whose
 * drivers know its scheme (sim: a camera, korad: a meter; --as chooses). */
static int guess_role(const char *conn, int *role)
{
	for (int i = 0; i < 3; i++)
		if (sb_instrument_check((enum sb_instrument_kind)i, conn) == 0) {
			*role = i;
			return 0;
		}
	return sb_error_set(SB_ERR_URI,
	                    "'%s': no camera, meter or cooling driver has this scheme (stackbench "
	                    "point --help lists them)",
	                    conn);
}

static void num_or_null(cJSON *o, const char *name, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, name, v);
	else
		cJSON_AddNullToObject(o, name);
}

/* " LABEL VALUE UNIT", or " LABEL -" when there is no value. */
static void print_num(const char *label, const char *fmt_unit, double v)
{
	if (!isfinite(v)) {
		printf("%s -", label);
		return;
	}
	printf("%s %.*f %s", label, fmt_unit[0] - '0', v, fmt_unit + 1);
}

struct probe {
	const struct sb_cli_probe_opts *o;
	struct sb_device *dev;
	struct sb_point_instruments inst;
	int role;
	uint64_t t0;
	bool have_t0;
	cJSON *readings;
	struct sb_thermal_image *frame; /* the last frame (camera) */
	struct sb_temp_reading last;
	unsigned n;
};

static double since(struct probe *p, uint64_t t_ns)
{
	if (!p->have_t0) {
		p->t0 = t_ns;
		p->have_t0 = true;
	}
	return (double)(t_ns - p->t0) * 1e-9;
}

static int read_camera(struct probe *p)
{
	struct sb_temp_reading r;
	cJSON *o;
	double t;
	int e;

	if ((e = sb_temp_source_sample(p->inst.temp, &r)) < 0)
		return e;
	t = since(p, r.t_ns);
	p->last = r;
	if (r.frame) {
		memcpy(p->frame, r.frame, sizeof(*p->frame));
		p->last.frame = p->frame;
	}
	if (!p->o->json) {
		printf("%8.3f s  hot spot %.2f C at (%u, %u), ", t, r.hotspot_c, r.hot_x, r.hot_y);
		if (r.roi.w && r.roi.h)
			printf("ROI %u,%u %ux%u", r.roi.x, r.roi.y, r.roi.w, r.roi.h);
		else
			printf("ROI the whole frame");
		printf(" mean %.2f C, min %.2f C", r.roi_mean_c, r.roi_min_c);
		if (r.frame)
			printf(", frame %ux%u", r.frame->width, r.frame->height);
		printf("\n");
		return 0;
	}
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "t_s", t);
	num_or_null(o, "hotspot_c", r.hotspot_c);
	cJSON_AddNumberToObject(o, "hot_x", r.hot_x);
	cJSON_AddNumberToObject(o, "hot_y", r.hot_y);
	num_or_null(o, "roi_mean_c", r.roi_mean_c);
	num_or_null(o, "roi_min_c", r.roi_min_c);
	{
		cJSON *roi = cJSON_AddObjectToObject(o, "roi");

		cJSON_AddNumberToObject(roi, "x", r.roi.x);
		cJSON_AddNumberToObject(roi, "y", r.roi.y);
		cJSON_AddNumberToObject(roi, "w", r.roi.w);
		cJSON_AddNumberToObject(roi, "h", r.roi.h);
	}
	if (r.frame) {
		cJSON *fr = cJSON_AddObjectToObject(o, "frame");

		cJSON_AddNumberToObject(fr, "width", r.frame->width);
		cJSON_AddNumberToObject(fr, "height", r.frame->height);
	} else {
		cJSON_AddNullToObject(o, "frame");
	}
	cJSON_AddItemToArray(p->readings, o);
	return 0;
}

static int read_meter(struct probe *p)
{
	struct sb_power_reading r;
	cJSON *o;
	double t;
	int e;

	if ((e = sb_power_source_sample(p->inst.power, &r)) < 0)
		return e;
	t = since(p, r.t_ns);
	if (!p->o->json) {
		printf("%8.3f s  %.3f W", t, r.power_w);
		if (r.has_va)
			printf(", %.3f V, %.4f A", r.volts, r.amps);
		if (r.records)
			printf(" (mean of %u record%s", r.records, r.records == 1 ? "" : "s");
		else
			printf(" (the meter's latest reading");
		if (r.interval_s > 0)
			printf(", integrated over %g s", r.interval_s);
		printf(")\n");
		return 0;
	}
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "t_s", t);
	num_or_null(o, "power_w", r.power_w);
	num_or_null(o, "volts_v", r.has_va ? r.volts : NAN);
	num_or_null(o, "amps_a", r.has_va ? r.amps : NAN);
	cJSON_AddNumberToObject(o, "records", r.records);
	num_or_null(o, "interval_s", r.interval_s > 0 ? r.interval_s : NAN);
	cJSON_AddItemToArray(p->readings, o);
	return 0;
}

static int read_cooling(struct probe *p)
{
	struct sb_cooling_state s;
	cJSON *o;
	double t;
	uint64_t now;
	int e;

	if ((e = sb_cooling_status(p->inst.cooling, &s)) < 0)
		return e;
	/* the bench clock, or the machine's for a real actuator */
	if (p->dev) {
		now = sb_device_now_ns(p->dev);
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	t = since(p, now);
	if (!p->o->json) {
		printf("%8.3f s  configuration %s,", t, s.name[0] ? s.name : "-");
		print_num(" supply", "3V", s.fan_supply_v);
		print_num("", "4A", s.fan_supply_a);
		print_num(", fans", "0rpm", s.fan_rpm);
		for (unsigned i = 0; i < s.nfans && i < SB_COOLING_MAX_FANS; i++)
			printf(" [%u: %.1f %%, %.0f rpm]", i, s.duty_pct[i], s.rpm[i]);
		if (s.has_heatsink) {
			print_num(", heatsink", "2C", s.heatsink_c);
			print_num(", ambient", "2C", s.ambient_c);
		}
		if (s.failsafe || s.faults)
			printf(", FAIL-SAFE (%s)", s.faults_text[0] ? s.faults_text : "faults");
		printf("\n");
		return 0;
	}
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "t_s", t);
	cJSON_AddStringToObject(o, "configuration", s.name);
	num_or_null(o, "fan_supply_v", s.fan_supply_v);
	num_or_null(o, "fan_supply_a", s.fan_supply_a);
	num_or_null(o, "fan_rpm", s.fan_rpm);
	num_or_null(o, "cooling_power_w", s.cooling_power_w);
	{
		cJSON *fans = cJSON_AddArrayToObject(o, "fans");

		for (unsigned i = 0; i < s.nfans && i < SB_COOLING_MAX_FANS; i++) {
			cJSON *f = cJSON_CreateObject();

			num_or_null(f, "duty_pct", s.duty_pct[i]);
			num_or_null(f, "rpm", s.rpm[i]);
			cJSON_AddItemToArray(fans, f);
		}
	}
	num_or_null(o, "heatsink_c", s.has_heatsink ? s.heatsink_c : NAN);
	num_or_null(o, "ambient_c", s.has_heatsink ? s.ambient_c : NAN);
	cJSON_AddBoolToObject(o, "failsafe", s.failsafe);
	cJSON_AddStringToObject(o, "faults", s.faults_text);
	cJSON_AddItemToArray(p->readings, o);
	return 0;
}

/* Wait between readings: on the bench clock of a simulated board, else in real time. */
static int pause_ms(struct probe *p, unsigned ms)
{
	if (p->dev)
		return sb_device_wait_ns(p->dev, (uint64_t)ms * 1000000u);
	nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000}, NULL);
	return 0;
}

static int open_instrument(struct probe *p, const char *conn)
{
	switch (p->role) {
	case SB_INSTRUMENT_TEMPERATURE:
		return sb_temp_source_open(&p->inst.temp, conn, p->dev);
	case SB_INSTRUMENT_POWER:
		return sb_power_source_open(&p->inst.power, conn, p->dev);
	default:
		return sb_cooling_open(&p->inst.cooling, conn, p->dev);
	}
}

static const char *driver_of(const struct probe *p)
{
	return p->inst.temp    ? sb_temp_source_driver(p->inst.temp)
	       : p->inst.power ? sb_power_source_driver(p->inst.power)
	                       : sb_cooling_driver(p->inst.cooling);
}

/* Save the last frame as the snapshot; its facts into o (JSON) or printed. */
static int snapshot(struct probe *p, cJSON *o)
{
	const struct sb_temp_reading *r = &p->last;
	struct sb_snapshot s = {.roi = r->roi,
	                        .hot_x = r->hot_x,
	                        .hot_y = r->hot_y,
	                        .hot_c = r->hotspot_c,
	                        .scale = p->o->scale};
	int e;

	if (!r->frame)
		return sb_error_set(SB_ERR_NOT_SUPPORTED,
		                    "--snapshot: the camera '%s' gives no frame, only readings",
		                    p->o->conn);
	if ((e = sb_snapshot_png(p->o->snapshot, r->frame, &s)) < 0)
		return e;
	if (o) {
		cJSON *so = cJSON_AddObjectToObject(o, "snapshot");

		cJSON_AddStringToObject(so, "file", p->o->snapshot);
		cJSON_AddNumberToObject(so, "width", r->frame->width * s.scale);
		cJSON_AddNumberToObject(so, "height", r->frame->height * s.scale);
		cJSON_AddNumberToObject(so, "scale", s.scale);
		cJSON_AddNumberToObject(so, "hot_x", s.hot_x);
		cJSON_AddNumberToObject(so, "hot_y", s.hot_y);
		num_or_null(so, "hotspot_c", s.hot_c);
	} else {
		printf("snapshot: %s (%ux%u: the frame x%u; ROI outlined in cyan, hot spot %.2f C "
		       "at (%u, %u) marked in green)\n",
		       p->o->snapshot, r->frame->width * s.scale, r->frame->height * s.scale,
		       s.scale, s.hot_c, s.hot_x, s.hot_y);
	}
	return 0;
}

int sb_cli_probe(const struct sb_cli_probe_opts *o)
{
	struct probe p = {.o = o, .role = o->role};
	cJSON *root = NULL;
	int e, rc = SB_EXIT_OK;

	if (p.role < 0 && guess_role(o->conn, &p.role) < 0)
		return sb_cli_usage_error("instruments", "%s", sb_error_detail());
	if ((e = sb_instrument_check((enum sb_instrument_kind)p.role, o->conn)) < 0)
		return sb_cli_usage_error("instruments", "--probe as %s: %s", role_names[p.role],
		                          sb_error_detail());
	if (o->snapshot && p.role != SB_INSTRUMENT_TEMPERATURE)
		return sb_cli_usage_error("instruments",
		                          "--snapshot is for cameras ('%s' is probed "
		                          "as a %s)",
		                          o->conn, role_names[p.role]);
	if (o->snapshot && (e = sb_cli_check_outputs(&o->snapshot, 1, NULL, 0, NULL, 0)) != 0)
		return e;
	/* sim: instruments measure a simulated board's bench: open one */
	if (!strncmp(o->conn, "sim:", 4) || o->device) {
		if ((e = sb_device_open(&p.dev, o->device ? o->device : sb_cli_default_device())) <
		    0)
			return sb_cli_device_error(e);
	}
	if (!(p.frame = calloc(1, sizeof(*p.frame)))) {
		rc = sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
		goto out;
	}
	if ((e = open_instrument(&p, o->conn)) < 0) {
		rc = e == SB_ERR_URI || e == SB_ERR_INVAL
		         ? sb_cli_usage_error("instruments", "%s", sb_error_detail())
		         : sb_cli_device_error(e); /* missing, busy, no permission: 3 */
		goto out;
	}
	if (o->json) {
		struct sb_provenance prov;
		cJSON *pj;

		root = cJSON_CreateObject();
		cJSON_AddStringToObject(root, "schema", "stackbench-probe");
		/* 1.1: provenance.device.profile, .shard, .slurm */
		cJSON_AddStringToObject(root, "schema_version", "1.1");
		sb_provenance_init(&prov);
		if (p.dev)
			sb_provenance_device(&prov, p.dev);
		sb_provenance_instruments(&prov, &p.inst);
		if ((pj = sb_provenance_cjson(&prov)))
			cJSON_AddItemToObject(root, "provenance", pj);
		cJSON_AddStringToObject(root, "conn", o->conn);
		cJSON_AddStringToObject(root, "role", role_names[p.role]);
		cJSON_AddStringToObject(root, "driver", driver_of(&p));
		p.readings = cJSON_AddArrayToObject(root, "readings");
	} else {
		printf("%s '%s' (driver %s): %u reading%s, every %u ms%s\n", role_names[p.role],
		       o->conn, driver_of(&p), o->count, o->count == 1 ? "" : "s", o->interval_ms,
		       p.dev ? " of bench time" : "");
	}
	for (unsigned i = 0; i < o->count; i++) {
		if (i && (e = pause_ms(&p, o->interval_ms)) < 0)
			break;
		e = p.role == SB_INSTRUMENT_TEMPERATURE ? read_camera(&p)
		    : p.role == SB_INSTRUMENT_POWER     ? read_meter(&p)
		                                        : read_cooling(&p);
		if (e < 0)
			break;
		p.n++;
	}
	if (e < 0) {
		/* what was read is printed; the failure is the exit code */
		rc = sb_cli_error(e);
		if (rc == SB_EXIT_USAGE)
			rc = SB_EXIT_FAILURE;
	} else if (o->snapshot && (e = snapshot(&p, root)) < 0) {
		rc = sb_cli_error(e);
	}
	if (root) {
		char *text = cJSON_Print(root);

		if (text)
			printf("%s\n", text);
		cJSON_free(text);
	}
out:
	cJSON_Delete(root);
	sb_temp_source_close(p.inst.temp);
	sb_power_source_close(p.inst.power);
	sb_cooling_close(p.inst.cooling);
	sb_device_close(p.dev);
	free(p.frame);
	return rc;
}
