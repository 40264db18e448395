/* SPDX-License-Identifier: MIT */
/* Reports of the memory-centric analyses: the JSON report and the figures (docs/locality.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "stackbench/error.h"
#include "stackbench/gnuplot.h"
#include "stackbench/locality.h"
#include "stackbench/version.h"

static cJSON *reuse_json(const struct sb_reuse_hist *h, double density)
{
	cJSON *o = cJSON_CreateObject(), *bins;

	if (!o)
		return NULL;
	sb_json_u64(o, "accesses", h->accesses);
	sb_json_u64(o, "cold", h->cold);
	sb_json_u64(o, "finite", h->finite);
	sb_json_num(o, "mean", h->finite ? (double)h->sum / (double)h->finite : NAN);
	sb_json_u64(o, "max", h->max);
	sb_json_num(o, "density", density);
	cJSON_AddBoolToObject(o, "confident", h->confident);
	bins = cJSON_AddArrayToObject(o, "bins");
	for (unsigned b = 0; bins && b < SB_REUSE_BINS; b++) {
		cJSON *x;

		if (!h->bins[b])
			continue;
		if (!(x = cJSON_CreateObject()))
			continue;
		sb_json_u64(x, "from", b ? UINT64_C(1) << (b - 1) : 0);
		sb_json_u64(x, "to", b ? (UINT64_C(1) << b) - 1 : 0);
		sb_json_u64(x, "count", h->bins[b]);
		cJSON_AddItemToArray(bins, x);
	}
	return o;
}

static cJSON *node_json(const struct sb_locality_node *n, double density)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	sb_json_num(o, "first_time", (double)n->first_time);
	sb_json_num(o, "last_time", (double)n->last_time);
	sb_json_u64(o, "accesses", n->accesses);
	sb_json_u64(o, "bytes", n->bytes);
	sb_json_u64(o, "footprint", n->footprint);
	sb_json_num(o, "footprint_scaled", n->footprint_scaled);
	sb_json_num(o, "growth", n->growth);
	sb_json_num(o, "access_rate_hz", n->rate_hz);
	sb_json_u64(o, "observed_ticks", n->observed_ticks);
	sb_json_u64(o, "span_ticks", n->span_ticks);
	sb_json_num(o, "density", density);
	cJSON_AddBoolToObject(o, "confident", n->confident);
	return o;
}

static void add_tree(cJSON *root, const struct sb_locality_result *res)
{
	const struct sb_locality_tree *t = &res->tree;
	cJSON *o = cJSON_AddObjectToObject(root, "tree"), *levels;

	if (!o)
		return;
	cJSON_AddStringToObject(o, "leaves", t->by_sample ? "samples" : "accesses");
	sb_json_u64(o, "leaf_width", t->leaf_width);
	levels = cJSON_AddArrayToObject(o, "levels");
	for (uint32_t k = 0; levels && k < t->nlevels; k++) {
		cJSON *lv = cJSON_CreateArray();

		for (uint32_t j = 0; lv && j < t->count[k]; j++)
			cJSON_AddItemToArray(lv,
			                     node_json(&t->levels[k][j], res->sampling.density));
		cJSON_AddItemToArray(levels, lv);
	}
}

static void add_regions(cJSON *root, const struct sb_locality_result *res)
{
	cJSON *a = cJSON_AddArrayToObject(root, "hot_regions");

	for (size_t i = 0; a && i < res->nregions; i++) {
		const struct sb_hot_region *r = &res->regions[i];
		const struct sb_locality_subpart *sp = &res->subparts[r->subpart];
		cJSON *o = cJSON_CreateObject();

		if (!o)
			continue;
		cJSON_AddStringToObject(o, "subpartition", sp->sp.name);
		sb_json_u64(o, "depth", r->depth);
		sb_json_num(o, "parent", r->parent);
		sb_json_u64(o, "first_byte", r->first);
		sb_json_u64(o, "last_byte", r->last);
		sb_json_u64(o, "accesses", r->accesses);
		sb_json_u64(o, "blocks", r->blocks);
		sb_json_num(o, "share_of_parent", r->share_of_parent);
		sb_json_num(o, "share_of_total", r->share_of_total);
		sb_json_num(o, "mean_reuse", r->mean_reuse);
		sb_json_num(o, "density", sp->density);
		cJSON_AddBoolToObject(o, "confident", r->confident);
		cJSON_AddItemToArray(a, o);
	}
}

int sb_locality_report_json(const struct sb_locality_result *res, const char *format,
                            const char *const *inputs, size_t ninputs, char **text)
{
	cJSON *root = cJSON_CreateObject(), *a, *sps;
	char gen[64];

	*text = NULL;
	if (!root)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	snprintf(gen, sizeof(gen), "stackbench %s", sb_version());
	cJSON_AddStringToObject(root, "schema", SB_LOCALITY_SCHEMA);
	cJSON_AddStringToObject(root, "schema_version", SB_LOCALITY_SCHEMA_VERSION);
	cJSON_AddStringToObject(root, "generator", gen);
	cJSON_AddStringToObject(root, "format", format ? format : "");
	a = cJSON_AddArrayToObject(root, "inputs");
	for (size_t i = 0; a && i < ninputs; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(inputs[i]));
	cJSON_AddStringToObject(root, "source", res->info.source);
	sb_json_num(root, "clock_hz", res->info.tick_hz);
	cJSON_AddStringToObject(root, "time_unit", res->info.time_unit);
	sb_json_u64(root, "block_bytes", res->opt.block_bytes);
	a = cJSON_AddArrayToObject(root, "warnings");
	for (uint32_t i = 0; a && i < res->info.nwarnings; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(res->info.warnings[i]));
	sb_json_sampling(root, &res->sampling, &res->opt.rules);
	sb_json_u64(root, "accesses", res->accesses);
	sb_json_u64(root, "skipped", res->skipped);
	sb_json_u64(root, "bytes", res->bytes);
	sb_json_u64(root, "blocks", res->blocks);
	sb_json_u64(root, "footprint_bytes", res->blocks * res->opt.block_bytes);
	if (res->accesses) {
		sb_json_num(root, "first_time", (double)res->first_time);
		sb_json_num(root, "last_time", (double)res->last_time);
	}
	cJSON_AddItemToObject(root, "reuse", reuse_json(&res->reuse, res->sampling.density));
	a = cJSON_AddArrayToObject(root, "miss_ratio");
	for (size_t i = 0; a && i < res->nmrc; i++) {
		cJSON *o = cJSON_CreateObject();

		if (!o)
			continue;
		sb_json_u64(o, "blocks", res->mrc[i].blocks);
		sb_json_u64(o, "bytes", res->mrc[i].blocks * res->opt.block_bytes);
		sb_json_num(o, "ratio", res->mrc[i].ratio);
		sb_json_num(o, "density", res->sampling.density);
		cJSON_AddBoolToObject(o, "confident", res->mrc[i].confident);
		cJSON_AddItemToArray(a, o);
	}
	sps = cJSON_AddObjectToObject(root, "subpartitions");
	for (size_t i = 0; sps && i < res->nsubparts; i++) {
		const struct sb_locality_subpart *sp = &res->subparts[i];
		cJSON *o = cJSON_AddObjectToObject(sps, sp->sp.name);

		if (!o)
			continue;
		cJSON_AddStringToObject(o, "type",
		                        sp->sp.type == SB_SUBPART_CACHE ? "cache" : "scratchpad");
		sb_json_u64(o, "accesses", sp->accesses);
		sb_json_u64(o, "bytes", sp->bytes);
		sb_json_u64(o, "blocks", sp->blocks);
		sb_json_u64(o, "footprint_bytes", sp->blocks * res->opt.block_bytes);
		sb_json_num(o, "density", sp->density);
		cJSON_AddItemToObject(o, "reuse", reuse_json(&sp->reuse, sp->density));
	}
	add_tree(root, res);
	add_regions(root, res);
	*text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!*text)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	return 0;
}

/* --- figures ----------------------------------------------------------------------------- */

/* A data file of the staging folder, claimed and opened. */
static int data_file(struct sb_outdir *od, const char *name, struct sb_output *o)
{
	char path[4096];
	int err;

	if ((err = sb_outdir_claim(od, name, path, sizeof(path))) < 0)
		return err;
	return sb_output_open(o, path);
}

/*
 * Tics of a logarithmic axis of base 2 over [lo, hi] with binary units ("64 B", "1 KiB" for
 * bytes; "16", "4Ki" for counts), at most about 10 labels: gnuplot's own labels print 2^20 as
 * 1.04858e+06. Returns the bytes written.
 */
static size_t log2_tics(char *buf, size_t size, double lo, double hi, bool bytes)
{
	static const char *const unit[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
	int a = (int)floor(log2(lo > 1 ? lo : 1)), z = (int)ceil(log2(hi > 1 ? hi : 1));
	int step = 1;
	size_t n = (size_t)snprintf(buf, size, "set xtics (");
	const char *sep = "";

	while ((z - a) / step > 10)
		step *= 2;
	for (int e = a; e <= z && n + 40 < size; e += step) {
		int u = e / 10 < 5 ? e / 10 : 5;

		n += (size_t)snprintf(buf + n, size - n, "%s\"%.0f%s%s%s\" %.17g", sep,
		                      ldexp(1, e - 10 * u), bytes ? " " : "", unit[u],
		                      bytes ? "B" : "", ldexp(1, e));
		sep = ", ";
	}
	n += (size_t)snprintf(buf + n, size - n, ")\n");
	return n < size ? n : size - 1;
}

int sb_locality_plot(const struct sb_locality_result *res, const char *dir)
{
	struct sb_outdir od;
	struct sb_output gpo, fo;
	char path[4096], body[4096], tics[1024];
	double hi_dist = 2, top = 0, gtop = 0;
	int err;

	if ((err = sb_outdir_open(&od, dir)) < 0)
		return err;
	if ((err = sb_outdir_claim(&od, "plots.gp", path, sizeof(path))) < 0 ||
	    (err = sb_output_open(&gpo, path)) < 0)
		goto fail_dir;
	fprintf(gpo.f, "# stackbench locality: figures (run 'gnuplot plots.gp' in this folder)\n");
	/* the reuse-distance histogram: bin k drawn at its lower bound, distance 0 at 0.5 */
	if ((err = sb_plot_claim(&od, "reuse")) < 0 || (err = data_file(&od, "reuse.dat", &fo)) < 0)
		goto fail_gp;
	fprintf(fo.f, "# distance_from distance_to accesses (trace-wide; cold: %llu)\n",
	        (unsigned long long)res->reuse.cold);
	for (unsigned b = 0; b < SB_REUSE_BINS; b++)
		if (res->reuse.bins[b] && b)
			hi_dist = (double)(UINT64_C(1) << b);
	for (unsigned b = 0; b < SB_REUSE_BINS; b++)
		if (res->reuse.bins[b])
			fprintf(fo.f, "%.17g %llu %llu\n",
			        b ? (double)(UINT64_C(1) << (b - 1)) : 0.5,
			        b ? (unsigned long long)(UINT64_C(1) << b) - 1 : 0,
			        (unsigned long long)res->reuse.bins[b]);
	if ((err = sb_report_commit(&fo)) < 0)
		goto fail_gp;
	log2_tics(tics, sizeof(tics), 0.5, hi_dist, false);
	snprintf(body, sizeof(body),
	         "reset\nset style fill solid 0.6 border -1\nset grid ytics\nset logscale x 2\n%s"
	         "set title 'reuse distances (%llu accesses, %llu cold; density %.4g%s)'\n"
	         "set xlabel 'reuse distance (distinct blocks of %u B)'\nset ylabel 'accesses'\n"
	         "set yrange [0:*]\nset boxwidth 0.8 relative\n"
	         "plot 'reuse.dat' using 1:3 with boxes lc 1 title 'accesses'\n",
	         tics, (unsigned long long)res->reuse.accesses, (unsigned long long)res->reuse.cold,
	         res->sampling.density, res->reuse.confident ? "" : ", low confidence",
	         res->opt.block_bytes);
	sb_plot_both(gpo.f, "reuse", body);
	/* the miss-ratio curve */
	if ((err = sb_plot_claim(&od, "miss-ratio")) < 0 ||
	    (err = data_file(&od, "miss-ratio.dat", &fo)) < 0)
		goto fail_gp;
	fprintf(fo.f, "# cache_blocks cache_bytes miss_ratio confident\n");
	for (size_t i = 0; i < res->nmrc; i++)
		fprintf(fo.f, "%llu %llu %.9g %d\n", (unsigned long long)res->mrc[i].blocks,
		        (unsigned long long)(res->mrc[i].blocks * res->opt.block_bytes),
		        res->mrc[i].ratio, res->mrc[i].confident);
	if ((err = sb_report_commit(&fo)) < 0)
		goto fail_gp;
	log2_tics(
	    tics, sizeof(tics), res->nmrc ? (double)(res->mrc[0].blocks * res->opt.block_bytes) : 1,
	    res->nmrc ? (double)(res->mrc[res->nmrc - 1].blocks * res->opt.block_bytes) : 2, true);
	snprintf(body, sizeof(body),
	         "reset\nset grid\nset logscale x 2\nset yrange [0:1.05]\n%s"
	         "set title 'miss ratio of a fully-associative LRU cache (open points: low "
	         "confidence)'\nset xlabel 'cache size'\nset ylabel 'miss ratio'\n"
	         "plot 'miss-ratio.dat' using 2:($4 > 0 ? $3 : 1/0) with linespoints pt 7 lc 1 "
	         "title 'confident', '' using 2:($4 > 0 ? 1/0 : $3) with points pt 6 lc 1 "
	         "title 'low confidence'\n",
	         tics);
	sb_plot_both(gpo.f, "miss-ratio", body);
	/* footprint and growth per leaf of the interval tree */
	if (res->tree.nlevels) {
		const struct sb_locality_node *lv = res->tree.levels[0];

		if ((err = sb_plot_claim(&od, "footprint")) < 0 ||
		    (err = data_file(&od, "footprint.dat", &fo)) < 0)
			goto fail_gp;
		fprintf(fo.f, "# leaf first_time footprint footprint_scaled growth confident\n");
		for (uint32_t j = 0; j < res->tree.count[0]; j++) {
			/* the curves' tops, for headroom under the frame and the key */
			top = fmax(top, (double)lv[j].footprint);
			if (isfinite(lv[j].footprint_scaled))
				top = fmax(top, lv[j].footprint_scaled);
			if (isfinite(lv[j].growth))
				gtop = fmax(gtop, lv[j].growth);
		}
		for (uint32_t j = 0; j < res->tree.count[0]; j++)
			fprintf(fo.f, "%u %lld %llu %.9g %.9g %d\n", j, (long long)lv[j].first_time,
			        (unsigned long long)lv[j].footprint, lv[j].footprint_scaled,
			        lv[j].growth, lv[j].confident);
		if ((err = sb_report_commit(&fo)) < 0)
			goto fail_gp;
		snprintf(
		    body, sizeof(body),
		    "reset\nset grid\nset key top left\nset ytics nomirror\nset y2tics\n"
		    "set title 'footprint per %s of %llu %s'\nset xlabel 'time (ticks)'\n"
		    "set ylabel 'footprint (blocks of %u B)'\nset y2label 'growth (blocks per "
		    "access)'\nset yrange [0:%.6g]\nset y2range [0:%.6g]\n"
		    "plot 'footprint.dat' using 2:3 with steps lc 1 title 'footprint', '' using "
		    "2:4 with steps lc 3 title 'scaled to the gaps', '' using 2:5 axes x1y2 "
		    "with lines lc 2 title 'growth'\n",
		    res->tree.by_sample ? "leaf" : "window",
		    (unsigned long long)res->tree.leaf_width,
		    res->tree.by_sample ? "samples" : "accesses", res->opt.block_bytes,
		    top > 0 ? 1.3 * top : 1, gtop > 0 ? 1.3 * gtop : 1);
		sb_plot_both(gpo.f, "footprint", body);
	}
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
