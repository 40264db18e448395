/* SPDX-License-Identifier: MIT */
/* Provenance of results: the build, the host, the board, the instruments, the run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "stackbench/provenance.h"
#include "stackbench/util.h"
#include "stackbench/version.h"

/* PRETTY_NAME of /etc/os-release, or "" */
static void os_name(char *buf, size_t size)
{
	FILE *f = fopen("/etc/os-release", "re");
	char line[256];

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *v;
		size_t n;

		if (strncmp(line, "PRETTY_NAME=", 12))
			continue;
		v = line + 12;
		v += *v == '"';
		n = strcspn(v, "\"\r\n");
		v[n] = '\0';
		sb_strlcpy(buf, v, size);
		break;
	}
	fclose(f);
}

/* An environment variable into buf ("" when unset); whether it was set. */
static bool env_text(const char *name, char *buf, size_t size)
{
	const char *v = getenv(name);

	sb_strlcpy(buf, v ? v : "", size);
	return v && *v;
}

/* The Slurm job this process runs in, from the variables Slurm sets for it (sbatch(1)). */
static void slurm_job(struct sb_provenance *p)
{
	p->have_slurm = env_text("SLURM_JOB_ID", p->slurm_job, sizeof(p->slurm_job));
	if (!p->have_slurm)
		return;
	env_text("SLURM_CLUSTER_NAME", p->slurm_cluster, sizeof(p->slurm_cluster));
	env_text("SLURM_ARRAY_JOB_ID", p->slurm_array_job, sizeof(p->slurm_array_job));
	env_text("SLURM_ARRAY_TASK_ID", p->slurm_array_task, sizeof(p->slurm_array_task));
	if (!env_text("SLURMD_NODENAME", p->slurm_node, sizeof(p->slurm_node)))
		env_text("SLURM_NODEID", p->slurm_node, sizeof(p->slurm_node));
}

void sb_provenance_init(struct sb_provenance *p)
{
	struct utsname u;

	memset(p, 0, sizeof(*p));
	sb_strlcpy(p->version, sb_version(), sizeof(p->version));
	sb_strlcpy(p->git, sb_build_git(), sizeof(p->git));
	sb_strlcpy(p->build_type, sb_build_type(), sizeof(p->build_type));
	sb_strlcpy(p->sanitizers, sb_build_sanitizers(), sizeof(p->sanitizers));
	sb_strlcpy(p->compiler, sb_build_compiler(), sizeof(p->compiler));
	if (uname(&u) == 0) {
		sb_strlcpy(p->host, u.nodename, sizeof(p->host));
		snprintf(p->kernel, sizeof(p->kernel), "%s %s %s", u.sysname, u.release, u.machine);
	}
	os_name(p->os, sizeof(p->os));
	p->fast_forward = -1;
	slurm_job(p);
}

void sb_provenance_device(struct sb_provenance *p, struct sb_device *dev)
{
	p->have_device = sb_device_identity(dev, &p->device) == 0;
}

void sb_provenance_instruments(struct sb_provenance *p, const struct sb_point_instruments *in)
{
	if (in->temp)
		snprintf(p->camera, sizeof(p->camera), "%s: %s", sb_temp_source_driver(in->temp),
		         sb_temp_source_conn(in->temp));
	if (in->power)
		snprintf(p->meter, sizeof(p->meter), "%s: %s", sb_power_source_driver(in->power),
		         sb_power_source_conn(in->power));
	if (in->cooling)
		snprintf(p->cooling, sizeof(p->cooling), "%s", sb_cooling_driver(in->cooling));
}

void sb_provenance_point(struct sb_provenance *p, uint64_t seed, const struct sb_point_result *r)
{
	p->have_seed = true;
	p->seed = seed;
	p->fast_forward = p->have_device && !strcmp(p->device.transport, "sim")
	                      ? (r->fast_forward || r->ff_skipped_ns > 0)
	                      : -1;
}

void sb_provenance_now(char *buf, size_t size)
{
	struct timespec ts;
	struct tm tm;
	char day[24];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, size, "%s.%03ldZ", day, ts.tv_nsec / 1000000);
}

/* A string, or null when empty. */
static void add_text(cJSON *o, const char *key, const char *s)
{
	if (s[0])
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}

static void add_hex(cJSON *o, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	cJSON_AddStringToObject(o, key, buf);
}

cJSON *sb_provenance_cjson(const struct sb_provenance *p)
{
	cJSON *o = cJSON_CreateObject(), *b, *h, *d, *i;
	char buf[32];

	if (!o)
		return NULL;
	b = cJSON_AddObjectToObject(o, "stackbench");
	add_text(b, "version", p->version);
	add_text(b, "git", p->git);
	add_text(b, "build_type", p->build_type);
	add_text(b, "sanitizers", p->sanitizers);
	add_text(b, "compiler", p->compiler);
	h = cJSON_AddObjectToObject(o, "host");
	add_text(h, "name", p->host);
	add_text(h, "kernel", p->kernel);
	add_text(h, "os", p->os);
	if (p->have_device) {
		const struct sb_device_identity *id = &p->device;

		d = cJSON_AddObjectToObject(o, "device");
		add_text(d, "uri", id->uri);
		add_text(d, "transport", id->transport);
		snprintf(buf, sizeof(buf), "%u.%u", id->fw_version >> 16, id->fw_version & 0xFFFF);
		cJSON_AddStringToObject(d, "design_version", buf);
		add_hex(d, "design_build", id->build_id);
		add_hex(d, "regmap_hash", id->regmap_hash);
		cJSON_AddBoolToObject(d, "regmap_matches", id->regmap_matches);
		add_text(d, "pci", id->pci);
		add_text(d, "detail", id->detail);
		if (id->have_profile) {
			cJSON *pr = cJSON_AddObjectToObject(d, "profile");

			add_text(pr, "name", id->profile.name);
			add_text(pr, "content_hash", id->profile.content_hash);
			add_text(pr, "bench", id->profile.bench);
		} else {
			cJSON_AddNullToObject(d, "profile");
		}
	} else {
		cJSON_AddNullToObject(o, "device");
	}
	i = cJSON_AddObjectToObject(o, "instruments");
	add_text(i, "camera", p->camera);
	add_text(i, "meter", p->meter);
	add_text(i, "cooling", p->cooling);
	if (p->have_seed) {
		/* as the points table writes it */
		snprintf(buf, sizeof(buf), "0x%016llx", (unsigned long long)p->seed);
		cJSON_AddStringToObject(o, "seed", buf);
	} else
		cJSON_AddNullToObject(o, "seed");
	if (p->fast_forward < 0)
		cJSON_AddNullToObject(o, "fast_forward");
	else
		cJSON_AddBoolToObject(o, "fast_forward", p->fast_forward);
	add_text(o, "started_at", p->started_at);
	add_text(o, "finished_at", p->finished_at);
	add_text(o, "shard", p->shard);
	if (p->have_slurm) {
		cJSON *s = cJSON_AddObjectToObject(o, "slurm");

		add_text(s, "cluster", p->slurm_cluster);
		add_text(s, "job_id", p->slurm_job);
		add_text(s, "array_job_id", p->slurm_array_job);
		add_text(s, "array_task_id", p->slurm_array_task);
		add_text(s, "node", p->slurm_node);
	} else {
		cJSON_AddNullToObject(o, "slurm");
	}
	return o;
}

char *sb_provenance_json(const struct sb_provenance *p)
{
	cJSON *o = sb_provenance_cjson(p);
	char *text;

	if (!o)
		return NULL;
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}
