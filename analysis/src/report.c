/* SPDX-License-Identifier: MIT */
/* Reports of a lifetime analysis: the JSON report, the lifetime CSV, figures through gnuplot. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "report_internal.h"
#include "stackbench/error.h"
#include "stackbench/gnuplot.h"
#include "stackbench/lifetime.h"
#include "stackbench/output.h"
#include "stackbench/util.h"
#include "stackbench/version.h"

extern char **environ;

/* --- JSON ----------------------------------------------------------------------------------- */

void sb_json_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

void sb_json_u64(cJSON *o, const char *key, uint64_t v)
{
	cJSON_AddNumberToObject(o, key, (double)v);
}

void sb_json_sampling(cJSON *root, const struct sb_sampling *s, const struct sb_confidence_rules *r)
{
	cJSON *o = cJSON_AddObjectToObject(root, "sampling");
	const struct sb_trace_capture *c = &s->capture;

	if (o) {
		cJSON_AddBoolToObject(o, "sampled", s->sampled);
		sb_json_num(o, "density", s->density);
		sb_json_u64(o, "records", s->records);
		sb_json_u64(o, "windows", s->windows);
		/* a sampled capture, or a complete one (every request: density 1) */
		if (s->sampled || c->executed || c->captured) {
			sb_json_u64(o, "executed", c->executed);
			sb_json_u64(o, "captured", c->captured);
			sb_json_u64(o, "lost_records", c->lost_records);
			sb_json_num(o, "lost_share", s->lost_share);
			sb_json_u64(o, "bursts", c->bursts);
			sb_json_u64(o, "lost_bursts", c->lost_bursts);
			sb_json_u64(o, "burst_records", c->burst_records);
			sb_json_u64(o, "gap_ticks", c->gap_ticks);
			sb_json_num(o, "start", (double)c->start);
			sb_json_num(o, "end", (double)c->end);
		}
	}
	o = cJSON_AddObjectToObject(root, "confidence_rules");
	if (o) {
		sb_json_num(o, "min_density", r->min_density);
		sb_json_num(o, "min_density_cache", r->min_density_cache);
		sb_json_u64(o, "min_events", r->min_events);
		sb_json_num(o, "warmup_factor", r->warmup_factor);
		sb_json_num(o, "max_lost_share", r->max_lost_share);
		sb_json_num(o, "max_censored_share", r->max_censored_share);
	}
}

static double ticks_ns(double ticks, double tick_hz)
{
	return ticks * 1e9 / tick_hz;
}

static void add_summary(cJSON *o, const char *key, const struct sb_subpart_stats *st, double scale)
{
	cJSON *s = cJSON_AddObjectToObject(o, key);

	if (!s)
		return;
	if (!st->lifetimes) {
		cJSON_AddNullToObject(s, "min");
		cJSON_AddNullToObject(s, "mean");
		cJSON_AddNullToObject(s, "median");
		cJSON_AddNullToObject(s, "p99");
		cJSON_AddNullToObject(s, "max");
		return;
	}
	sb_json_num(s, "min", (double)st->life.min * scale);
	sb_json_num(s, "mean", st->life.mean * scale);
	sb_json_num(s, "median", st->life.median * scale);
	sb_json_num(s, "p99", st->life.p99 * scale);
	sb_json_num(s, "max", (double)st->life.max * scale);
}

static cJSON *device_json(const struct sb_memdev_projection *d)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	sb_json_num(o, "retention_ns", d->retention_ns);
	sb_json_u64(o, "refreshes", d->refreshes);
	sb_json_u64(o, "refresh_values", d->refresh_values);
	sb_json_num(o, "area_um2", d->area_um2);
	sb_json_num(o, "area_ratio_vs_sram", d->area_ratio);
	sb_json_num(o, "energy_j", d->energy_j);
	sb_json_num(o, "read_energy_j", d->read_energy_j);
	sb_json_num(o, "write_energy_j", d->write_energy_j);
	sb_json_num(o, "refresh_energy_j", d->refresh_energy_j);
	sb_json_num(o, "energy_ratio_vs_sram", d->energy_ratio);
	sb_json_num(o, "refresh_free_share", d->refresh_free_share);
	sb_json_num(o, "refresh_free_access_share", d->refresh_free_access_share);
	return o;
}

static cJSON *composition_json(const struct sb_composition *c, double tick_hz)
{
	cJSON *o = cJSON_CreateObject(), *devs;

	if (!o)
		return NULL;
	cJSON_AddBoolToObject(o, "refresh_free", c->refresh_free);
	sb_json_num(o, "area_um2", c->area_um2);
	sb_json_num(o, "area_ratio_vs_sram", c->area_ratio);
	sb_json_num(o, "energy_j", c->energy_j);
	sb_json_num(o, "energy_ratio_vs_sram", c->energy_ratio);
	devs = cJSON_AddObjectToObject(o, "devices");
	for (size_t i = 0; devs && i < c->nparts; i++) {
		const struct sb_composition_part *p = &c->parts[i];
		cJSON *d = cJSON_AddObjectToObject(devs, p->dev->name);

		if (!d)
			continue;
		cJSON_AddNumberToObject(d, "order", (double)i);
		sb_json_num(d, "retention_ns", p->retention_ns);
		sb_json_num(d, "capacity_share", p->capacity_share);
		sb_json_u64(d, "addresses", p->addresses);
		sb_json_u64(d, "capacity_bits", p->bits);
		sb_json_num(d, "area_um2", p->area_um2);
		sb_json_num(d, "energy_j", p->energy_j);
		sb_json_u64(d, "refreshes", p->refreshes);
		if (p->max_lifetime_ticks >= 0) {
			sb_json_num(d, "max_lifetime_cycles", (double)p->max_lifetime_ticks);
			sb_json_num(d, "max_lifetime_ns",
			            ticks_ns((double)p->max_lifetime_ticks, tick_hz));
		} else {
			cJSON_AddNullToObject(d, "max_lifetime_cycles");
			cJSON_AddNullToObject(d, "max_lifetime_ns");
		}
	}
	return o;
}

static cJSON *library_json(const struct sb_memdev_lib *lib)
{
	cJSON *o = cJSON_CreateObject(), *files, *devs;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "reference", lib->reference);
	files = cJSON_AddArrayToObject(o, "files");
	for (size_t i = 0; files && i < lib->nfiles; i++)
		cJSON_AddItemToArray(files, cJSON_CreateString(lib->files[i]));
	devs = cJSON_AddObjectToObject(o, "devices");
	for (size_t i = 0; devs && i < lib->ndevices; i++) {
		const struct sb_memdev *d = &lib->devices[i];
		cJSON *j = cJSON_AddObjectToObject(devs, d->name), *a;

		if (!j)
			continue;
		cJSON_AddStringToObject(j, "description", d->description ? d->description : "");
		cJSON_AddStringToObject(j, "file", d->file ? d->file : "");
		sb_json_num(j, "cell_area_um2", d->cell_area_um2);
		sb_json_num(j, "read_energy_fj_per_bit", d->read_fj_per_bit);
		sb_json_num(j, "write_energy_fj_per_bit", d->write_fj_per_bit);
		if (d->retention_kind == SB_RETENTION_STATIC) {
			cJSON_AddStringToObject(j, "retention", "static");
		} else if (d->retention_kind == SB_RETENTION_CONSTANT) {
			cJSON *r = cJSON_AddObjectToObject(j, "retention");

			if (r)
				sb_json_num(r, "ns", d->retention_ns);
		} else {
			cJSON *r = cJSON_AddObjectToObject(j, "retention");
			cJSON *t = r ? cJSON_AddArrayToObject(r, "table") : NULL;

			for (size_t k = 0; t && k < d->npoints; k++) {
				cJSON *pt = cJSON_CreateObject();

				sb_json_num(pt, "write_hz", d->points_write_hz[k]);
				sb_json_num(pt, "ns", d->points_ns[k]);
				cJSON_AddItemToArray(t, pt);
			}
		}
		a = cJSON_AddArrayToObject(j, "sources");
		for (size_t k = 0; a && k < d->nsources; k++)
			cJSON_AddItemToArray(a, cJSON_CreateString(d->sources[k]));
		a = cJSON_AddArrayToObject(j, "assumptions");
		for (size_t k = 0; a && k < d->nassumptions; k++)
			cJSON_AddItemToArray(a, cJSON_CreateString(d->assumptions[k]));
	}
	return o;
}

static void add_counts(cJSON *o, const struct sb_subpart_stats *st)
{
	uint64_t writes = st->stores + st->fetches, all = st->reads + writes;

	sb_json_u64(o, "reads", st->reads);
	sb_json_u64(o, "writes", writes);
	sb_json_u64(o, "stores", st->stores);
	sb_json_u64(o, "fetches", st->fetches);
	sb_json_u64(o, "flushes", st->flushes);
	sb_json_u64(o, "read_bits", st->read_bits);
	sb_json_u64(o, "write_bits", st->write_bits);
	sb_json_u64(o, "unique_addresses", st->unique_addresses);
	sb_json_u64(o, "capacity_bytes", st->capacity_bits / 8);
	sb_json_u64(o, "lifetimes", st->lifetimes);
	sb_json_u64(o, "lifetime_accesses", st->lifetime_accesses);
	sb_json_u64(o, "zero_read_values", st->zero_read_values);
	sb_json_u64(o, "orphans", st->orphans);
	sb_json_num(o, "orphan_share", all ? (double)st->orphans / (double)all : 0);
	sb_json_u64(o, "unbacked_reads", st->unbacked_reads);
	sb_json_u64(o, "skipped_accesses", st->skipped);
	sb_json_u64(o, "bypassed_writes", st->bypassed);
}

static void add_devices(cJSON *o, const struct sb_memdev_projection *devs, size_t n)
{
	cJSON *d = cJSON_AddObjectToObject(o, "devices");

	for (size_t i = 0; d && i < n; i++)
		cJSON_AddItemToObject(d, devs[i].dev->name, device_json(&devs[i]));
}

int sb_lifetime_report_json(const struct sb_lifetime_result *res, const struct sb_projection *p,
                            const struct sb_memdev_lib *lib, const struct sb_report_meta *meta,
                            char **text)
{
	const double hz = res->info.tick_hz;
	cJSON *root = cJSON_CreateObject(), *a, *sps, *tot;
	struct sb_subpart_stats sum;
	struct sb_lifetime_trust tr;
	bool all_confident = true;
	char gen[64], trust[SB_TRUST_MAX_WARNINGS][SB_TRUST_WARNING_MAX];
	size_t ntrust;

	*text = NULL;
	if (!root)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	snprintf(gen, sizeof(gen), "stackbench %s", sb_version());
	cJSON_AddStringToObject(root, "schema", SB_LIFETIME_SCHEMA);
	cJSON_AddStringToObject(root, "schema_version", SB_LIFETIME_SCHEMA_VERSION);
	cJSON_AddStringToObject(root, "generator", gen);
	cJSON_AddStringToObject(root, "format", meta && meta->format ? meta->format : "");
	a = cJSON_AddArrayToObject(root, "inputs");
	for (size_t i = 0; a && meta && i < meta->ninputs; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(meta->inputs[i]));
	cJSON_AddStringToObject(root, "source", res->info.source);
	sb_json_num(root, "clock_hz", hz);
	cJSON_AddStringToObject(root, "time_unit", res->info.time_unit);
	cJSON_AddStringToObject(root, "policy", sb_cache_policy_name(res->policy));
	sb_json_u64(root, "records", res->records);
	if (res->records) {
		sb_json_num(root, "first_time", (double)res->first_time);
		sb_json_num(root, "last_time", (double)res->last_time);
	} else {
		cJSON_AddNullToObject(root, "first_time");
		cJSON_AddNullToObject(root, "last_time");
	}
	sb_json_num(root, "duration_cycles", (double)sb_lifetime_result_ticks(res));
	sb_json_num(root, "duration_s", (double)sb_lifetime_result_ticks(res) / hz);
	a = cJSON_AddArrayToObject(root, "warnings");
	for (uint32_t i = 0; a && i < res->info.nwarnings; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(res->info.warnings[i]));
	/* results from no or too few lifetimes say so, and why */
	ntrust = sb_lifetime_trust_warnings(res, trust, SB_TRUST_MAX_WARNINGS);
	for (size_t i = 0; a && i < ntrust; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(trust[i]));
	sb_json_sampling(root, &res->sampling, &res->rules);
	cJSON_AddBoolToObject(root, "windowed", res->windowed);
	cJSON_AddStringToObject(root, "reference_device", lib->reference);
	cJSON_AddItemToObject(root, "device_library", library_json(lib));

	memset(&sum, 0, sizeof(sum));
	sps = cJSON_AddObjectToObject(root, "subpartitions");
	for (size_t s = 0; sps && s < res->nsubparts; s++) {
		const struct sb_subpart_stats *st = &res->subparts[s];
		const struct sb_subpart_projection *sp = &p->subparts[s];
		cJSON *o = cJSON_AddObjectToObject(sps, st->sp.name);

		if (!o)
			continue;
		cJSON_AddStringToObject(o, "type",
		                        st->sp.type == SB_SUBPART_CACHE ? "cache" : "scratchpad");
		cJSON_AddBoolToObject(o, "per_unit", st->sp.per_unit);
		sb_json_u64(o, "addr_unit_bytes", st->sp.addr_unit_bytes);
		sb_json_u64(o, "block_bytes", st->sp.block_bytes);
		add_counts(o, st);
		sb_json_num(o, "density", st->density);
		cJSON_AddBoolToObject(o, "confident", st->confident);
		cJSON_AddStringToObject(o, "lifetime_basis",
		                        sb_lifetime_basis_name(sb_lifetime_basis(st, &res->rules)));
		all_confident &= st->confident;
		if (res->windowed) {
			sb_json_u64(o, "windows", st->windows);
			sb_json_u64(o, "censored_values", st->censored_values);
			sb_json_u64(o, "censored_read_values", st->censored_read_values);
			if (st->censored_read_values) {
				sb_json_num(o, "censored_max_cycles", (double)st->censored_max);
				sb_json_num(o, "censored_max_ns",
				            ticks_ns((double)st->censored_max, hz));
			} else {
				cJSON_AddNullToObject(o, "censored_max_cycles");
				cJSON_AddNullToObject(o, "censored_max_ns");
			}
		}
		sb_json_u64(o, "write_cycles", st->write_ticks);
		sb_json_u64(o, "read_cycles", st->read_ticks);
		sb_json_num(o, "time_scale", sp->time_scale);
		sb_json_num(o, "write_frequency_hz", sp->write_hz);
		sb_json_num(o, "read_frequency_hz", sp->read_hz);
		add_summary(o, "lifetime_cycles", st, 1);
		add_summary(o, "lifetime_ns", st, 1e9 / hz);
		add_devices(o, sp->devices, p->ndevices);
		cJSON_AddItemToObject(o, "composition", composition_json(&sp->comp, hz));

		sum.reads += st->reads;
		sum.stores += st->stores;
		sum.fetches += st->fetches;
		sum.flushes += st->flushes;
		sum.read_bits += st->read_bits;
		sum.write_bits += st->write_bits;
		sum.unique_addresses += st->unique_addresses;
		sum.capacity_bits += st->capacity_bits;
		sum.lifetimes += st->lifetimes;
		sum.lifetime_accesses += st->lifetime_accesses;
		sum.zero_read_values += st->zero_read_values;
		sum.orphans += st->orphans;
		sum.unbacked_reads += st->unbacked_reads;
		sum.skipped += st->skipped;
		sum.bypassed += st->bypassed;
		sum.censored_values += st->censored_values;
		sum.censored_read_values += st->censored_read_values;
	}
	tot = cJSON_AddObjectToObject(root, "total");
	if (tot) {
		add_counts(tot, &sum);
		cJSON_AddBoolToObject(tot, "confident", all_confident);
		if (res->windowed) {
			sb_json_u64(tot, "censored_values", sum.censored_values);
			sb_json_u64(tot, "censored_read_values", sum.censored_read_values);
		}
		add_devices(tot, p->total, p->ndevices);
	}
	cJSON_AddItemToObject(root, "composition", composition_json(&p->total_comp, hz));
	/* the share of the composition's capacity placed by no or too few lifetimes */
	sb_lifetime_trust(res, &tr);
	if ((a = cJSON_GetObjectItem(root, "composition")) != NULL) {
		sb_json_u64(a, "lifetimes", tr.lifetimes);
		sb_json_num(a, "weak_capacity_share", tr.weak_capacity_share);
	}
	*text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!*text)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	return 0;
}

/* --- CSV -------------------------------------------------------------------------------------- */

/* Output files are written atomically (stackbench/output.h). */
static int create(struct sb_output *o, const char *path)
{
	return sb_output_open(o, path);
}

int sb_report_commit(struct sb_output *o)
{
	if (ferror(o->f)) {
		int e = sb_error_set(SB_ERR_IO, "cannot write '%s': %s", o->path, strerror(errno));

		sb_output_abort(o);
		return e;
	}
	return sb_output_commit(o);
}

int sb_lifetime_write_csv(const struct sb_lifetime_result *res, const char *path)
{
	struct sb_output out;
	FILE *f;
	int err;

	if ((err = create(&out, path)) < 0)
		return err;
	f = out.f;
	fprintf(f, "subpartition,lifetime_cycles,lifetime_ns,count,bits,accesses\n");
	for (size_t s = 0; s < res->nsubparts; s++) {
		const struct sb_subpart_stats *st = &res->subparts[s];

		for (size_t i = 0; i < st->nbins; i++)
			fprintf(f, "%s,%lld,%.10g,%llu,%llu,%llu\n", st->sp.name,
			        (long long)st->bins[i].ticks,
			        ticks_ns((double)st->bins[i].ticks, res->info.tick_hz),
			        (unsigned long long)st->bins[i].count,
			        (unsigned long long)st->bins[i].bits,
			        (unsigned long long)st->bins[i].accesses);
	}
	return sb_report_commit(&out);
}

/* --- Figures ---------------------------------------------------------------------------------- */

#define BINS_PER_DECADE 10

/* A name safe in a file name and in a gnuplot string. */
static void safe_name(char *out, size_t size, const char *in)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < size; i++) {
		char c = in[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		                 (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'
		             ? c
		             : '_';
	}
	out[i] = '\0';
}

/* Lifetime histogram in logarithmic bins of ns; zero lifetimes are drawn at half a tick. */
static int write_hist(const struct sb_subpart_stats *st, double tick_hz, const char *path)
{
	struct sb_output out;
	int64_t cur = INT64_MIN;
	uint64_t count = 0;
	FILE *f;
	int err;

	if ((err = create(&out, path)) < 0)
		return err;
	f = out.f;
	fprintf(f, "# bin_center_ns count bin_width_ns\n");
	for (size_t i = 0; i <= st->nbins; i++) {
		int64_t bin = INT64_MAX;

		if (i < st->nbins) {
			double ns =
			    ticks_ns(st->bins[i].ticks ? (double)st->bins[i].ticks : 0.5, tick_hz);

			bin = (int64_t)floor(log10(ns) * BINS_PER_DECADE);
		}
		if (bin != cur && count) {
			double lo = pow(10, (double)cur / BINS_PER_DECADE);
			double hi = pow(10, (double)(cur + 1) / BINS_PER_DECADE);

			fprintf(f, "%.6g %llu %.6g\n", sqrt(lo * hi), (unsigned long long)count,
			        hi - lo);
			count = 0;
		}
		if (i < st->nbins) {
			cur = bin;
			count += st->bins[i].count;
		}
	}
	return sb_report_commit(&out);
}

void sb_plot_both(FILE *gp, const char *base, const char *body)
{
	fprintf(gp,
	        "set terminal pngcairo size 960,560 noenhanced font ',10'\n"
	        "set output '%s.png'\n%s"
	        "set terminal svg size 960,560 noenhanced dynamic\n"
	        "set output '%s.svg'\n%s"
	        "unset output\n",
	        base, body, base, body);
}

/* Claim the PNG and SVG gnuplot draws of a figure (the figures of two subpartitions whose
 * names sanitize alike would collide: an error, never an overwrite). */
int sb_plot_claim(struct sb_outdir *od, const char *name)
{
	char path[4096];
	int err;

	if ((err = sb_outdir_claimf(od, path, sizeof(path), "%s.png", name)) < 0)
		return err;
	return sb_outdir_claimf(od, path, sizeof(path), "%s.svg", name);
}

/*
 * Tics of a logarithmic axis over [lo, hi]: gnuplot labels only the powers of ten, so a range
 * within one decade would show one label. Labels at 1, 2, 5 x 10^k (or every power of ten on a
 * wide range) instead. Returns the bytes written.
 */
static size_t log_tics(char *buf, size_t size, double lo, double hi)
{
	static const double steps[] = {1, 2, 5};
	bool wide = hi / lo > 1e4;
	size_t n = (size_t)snprintf(buf, size, "set xtics (");
	const char *sep = "";

	for (double dec = pow(10, floor(log10(lo))); dec <= hi && n + 32 < size; dec *= 10)
		for (size_t i = 0; i < (wide ? 1 : SB_ARRAY_SIZE(steps)); i++) {
			double t = dec * steps[i];

			if (t < lo || t > hi)
				continue;
			n += (size_t)snprintf(buf + n, size - n, "%s%.6g", sep, t);
			sep = ", ";
		}
	n += (size_t)snprintf(buf + n, size - n, ")\nset mxtics 10\n");
	return n < size ? n : size - 1;
}

int sb_lifetime_plot(const struct sb_lifetime_result *res, const struct sb_projection *p,
                     const struct sb_memdev_lib *lib, const char *dir)
{
	char path[4096], name[SB_TRACE_NAME_MAX], base[SB_TRACE_NAME_MAX + 16], body[8192];
	char ref[SB_DEVICE_NAME_MAX], what[160];
	const double hz = res->info.tick_hz;
	struct sb_lifetime_trust tr;
	struct sb_output gpo, fo;
	bool weak;
	struct sb_outdir od;
	FILE *gp, *f;
	int err;
	size_t k;

	/* everything is made in a private folder inside dir and moved into place at the end */
	if ((err = sb_outdir_open(&od, dir)) < 0)
		return err;
	if ((err = sb_outdir_claim(&od, "plots.gp", path, sizeof(path))) < 0 ||
	    (err = create(&gpo, path)) < 0)
		goto fail_dir;
	gp = gpo.f;
	fprintf(gp, "# stackbench lifetimes: figures (run 'gnuplot plots.gp' in this folder)\n"
	            "set style fill solid 0.6 border -1\nset grid ytics\nset key top right\n");
	for (size_t s = 0; s < res->nsubparts; s++) {
		const struct sb_subpart_stats *st = &res->subparts[s];
		const struct sb_subpart_projection *sp = &p->subparts[s];

		if (!st->nbins)
			continue;
		safe_name(name, sizeof(name), st->sp.name);
		snprintf(base, sizeof(base), "lifetimes-%s", name);
		if ((err = sb_plot_claim(&od, base)) < 0 ||
		    (err = sb_outdir_claimf(&od, path, sizeof(path), "%s.dat", base)) < 0 ||
		    (err = write_hist(st, hz, path)) < 0)
			goto fail_gp;
		/* the x range holds every bin and every finite retention line, with margins */
		double lo = ticks_ns(st->bins[0].ticks ? (double)st->bins[0].ticks : 0.5, hz);
		double hi = ticks_ns((double)st->bins[st->nbins - 1].ticks, hz);

		for (size_t d = 0; d < p->ndevices; d++) {
			double r = sp->devices[d].retention_ns;

			if (isfinite(r) && r < lo)
				lo = r;
			if (isfinite(r) && r > hi)
				hi = r;
		}
		k = (size_t)snprintf(
		    body, sizeof(body),
		    "reset\nset style fill solid 0.6 border -1\nset grid ytics\n"
		    "set title 'lifetimes in %s (%llu values%s; zero-length drawn at "
		    "half a cycle)'\n"
		    "set logscale x\nset xrange [%.6g:%.6g]\nset xlabel 'lifetime (ns)'\n"
		    "set ylabel 'values (count)'\nset yrange [0:*]\nset format x '%%g'\n"
		    "set key below\n",
		    name, (unsigned long long)st->lifetimes,
		    sb_lifetime_basis(st, &res->rules) == SB_BASIS_FEW ? ": ~ too few to trust"
		                                                       : "",
		    lo / 2, hi * 2);
		k += log_tics(body + k, sizeof(body) - k, lo / 2, hi * 2);
		for (size_t d = 0; d < p->ndevices && k < sizeof(body) - 512; d++) {
			double r = sp->devices[d].retention_ns;
			char dn[SB_DEVICE_NAME_MAX];

			if (!isfinite(r))
				continue;
			safe_name(dn, sizeof(dn), lib->devices[d].name);
			k += (size_t)snprintf(
			    body + k, sizeof(body) - k,
			    "set arrow from %.6g, graph 0 to %.6g, graph 1 nohead "
			    "lw 2 dt 2 lc %zu\n"
			    "set label '%s %.4g ns (%.1f %% refresh-free)' at "
			    "%.6g, graph %.2f offset 0.5,0 tc lt %zu front\n",
			    r, r, d + 2, dn, r, 100 * sp->devices[d].refresh_free_share, r,
			    0.95 - 0.06 * (double)d, d + 2);
		}
		snprintf(body + k, sizeof(body) - k,
		         "plot 'lifetimes-%s.dat' using 1:2:3 with boxes lc 1 title 'values whose "
		         "lifetime falls in the bin (%d bins per decade)'\n",
		         name, BINS_PER_DECADE);
		sb_plot_both(gp, base, body);
	}
	/* area and energy of every device and of the composition, relative to the reference */
	safe_name(ref, sizeof(ref), lib->reference);
	if ((err = sb_plot_claim(&od, "devices")) < 0 ||
	    (err = sb_outdir_claim(&od, "devices.dat", path, sizeof(path))) < 0 ||
	    (err = create(&fo, path)) < 0)
		goto fail_gp;
	f = fo.f;
	/* a device that refreshes, and the composition, rest on the lifetimes: marked '~' when
	   some subpartition with accesses holds no or too few (docs/lifetimes.md) */
	sb_lifetime_trust(res, &tr);
	weak = tr.none + tr.few > 0;
	fprintf(f,
	        "# device area_ratio energy_ratio weak (all subpartitions, to %s; weak 1: from "
	        "no or too few lifetimes)\n",
	        ref);
	for (size_t d = 0; d < p->ndevices; d++) {
		safe_name(name, sizeof(name), lib->devices[d].name);
		fprintf(f, "%s %.6g %.6g %d\n", name,
		        isfinite(p->total[d].area_ratio) ? p->total[d].area_ratio : 0,
		        isfinite(p->total[d].energy_ratio) ? p->total[d].energy_ratio : 0,
		        weak && lib->devices[d].retention_kind != SB_RETENTION_STATIC);
	}
	fprintf(f, "composition %.6g %.6g %d\n",
	        isfinite(p->total_comp.area_ratio) ? p->total_comp.area_ratio : 0,
	        isfinite(p->total_comp.energy_ratio) ? p->total_comp.energy_ratio : 0,
	        tr.weak_capacity_share > 0);
	if ((err = sb_report_commit(&fo)) < 0)
		goto fail_gp;
	k = (size_t)snprintf(
	    body, sizeof(body),
	    "reset\nset title 'area and active energy relative to %s (all subpartitions)%s'\n"
	    "set style data histograms\nset style histogram clustered gap 1\n"
	    "set style fill solid 0.7 border -1\nset grid ytics\nset yrange [0:*]\n"
	    "set ylabel 'ratio to %s'\nset xtics nomirror\n",
	    ref, weak ? ": ~ from too few lifetimes" : "", ref);
	if (weak) {
		if (tr.lifetimes == 0)
			snprintf(what, sizeof(what),
			         "no lifetime at all (threshold %llu per subpartition)",
			         (unsigned long long)res->rules.min_events);
		else
			snprintf(
			    what, sizeof(what),
			    "%llu lifetimes: %zu of %zu subpartitions hold %s %llu (threshold)",
			    (unsigned long long)tr.lifetimes, tr.none + tr.few, tr.with_accesses,
			    tr.few ? "fewer than" : "none of",
			    (unsigned long long)res->rules.min_events);
		k += (size_t)snprintf(
		    body + k, sizeof(body) - k,
		    "set offsets 0, 0, graph 0.3, 0\nset key below\n"
		    "set label 1 \"~ rests on %s:\\nrefresh-free shares, refresh "
		    "energies and the composition are not measured\\n(%.1f %% of the capacity "
		    "placed without enough lifetimes; see the report's warnings)\" at graph 0.02, "
		    "graph 0.95 left front tc rgb '#b00000'\n",
		    what, 100 * tr.weak_capacity_share);
	}
	snprintf(body + k, sizeof(body) - k,
	         "plot 'devices.dat' using 2:xtic(stringcolumn(1).($4 > 0 ? ' ~' : '')) title "
	         "'area', '' using 3 title 'active energy'\n");
	sb_plot_both(gp, "devices", body);
	if ((err = sb_report_commit(&gpo)) < 0 ||
	    (err = sb_gnuplot_run(NULL, od.stage, "plots.gp")) < 0)
		goto fail_dir;
	return sb_outdir_commit(&od);
fail_gp:
	sb_output_abort(&gpo);
fail_dir:
	sb_outdir_abort(&od);
	return err;
}
