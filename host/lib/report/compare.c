/* SPDX-License-Identifier: MIT */
/*
 * Comparisons (docs/figures.md, "Comparisons"): a measured campaign against its run on the
 * simulated board (report --against-model), or the campaigns of one content hash in several
 * databases (report --db A --db B). The campaigns compared are copied into one database in the
 * output folder (comparison.db; the model's runs are made there by the campaign engine, so a
 * point runs on the model exactly as `stackbench run` runs it), every figure of the report is
 * drawn with them overlaid, and the ratio of every metric of every point (compared / reference)
 * goes into a table, a figure, comparison.json and the HTML report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report_int.h"
#include "stackbench/campaign.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/output.h"
#include "stackbench/util.h"

/* A latency class's share of the classified reads, in % (NULL when no read was classified). */
#define CLASS_SHARE(cls) "100.0 * " cls " / nullif(h.cls_hit + h.cls_closed + h.cls_miss, 0)"

const struct sb_report_metric sb_report_metrics[SB_REPORT_NMETRICS] = {
    {"bandwidth_gbps", "bandwidth", "GB/s", "p.bandwidth_gbps"},
    {"mrps", "request rate", "MRPS", "p.mrps"},
    {"latency_avg_ns", "read latency", "ns", "p.latency_avg_ns"},
    {"temp_c_steady", "hot spot", "°C", "p.temp_c_steady"},
    {"power_w_avg", "power", "W", "p.power_w_avg"},
    /* an HBM2 card's (table hbm_points) */
    {"wr_latency_avg_ns", "wr latency", "ns", "h.wr_lat_avg_ns"},
    {"cls_hit_pct", "hit class", "%", CLASS_SHARE("h.cls_hit")},
    {"cls_closed_pct", "closed class", "%", CLASS_SHARE("h.cls_closed")},
    {"cls_miss_pct", "miss class", "%", CLASS_SHARE("h.cls_miss")},
};

#define SCHEMA "stackbench-comparison"
#define SCHEMA_VERSION "1.0"

/* --- where a campaign comes from ---------------------------------------------------------- */

static const char *json_str(const cJSON *o, const char *a, const char *b)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);

	if (b)
		v = cJSON_GetObjectItemCaseSensitive(v, b);
	return cJSON_IsString(v) ? v->valuestring : "";
}

/*
 * The facts of a campaign's provenance (docs/provenance.md) a comparison names its sides by:
 * host, device, model profile, build. The profile comes from device.profile (name and content
 * hash); provenance written before those fields has it only in the sim transport's account,
 * device.detail ("... profile NAME (PATH, fnv1a64 HASH), bench ...").
 */
static void provenance_facts(const char *json, struct sb_report_source *s)
{
	cJSON *p = json ? cJSON_Parse(json) : NULL;
	const cJSON *dev = cJSON_GetObjectItemCaseSensitive(p, "device");
	const char *detail = json_str(p, "device", "detail"), *prof, *hash;
	const char *name = json_str(dev, "profile", "name");

	snprintf(s->host, sizeof(s->host), "%s", json_str(p, "host", "name"));
	snprintf(s->device, sizeof(s->device), "%s", json_str(p, "device", "uri"));
	snprintf(s->build, sizeof(s->build), "%s%s%s", json_str(p, "stackbench", "version"),
	         json_str(p, "stackbench", "git")[0] ? " git " : "",
	         json_str(p, "stackbench", "git"));
	s->profile[0] = '\0';
	if (name[0]) {
		hash = strchr(json_str(dev, "profile", "content_hash"), ':');
		snprintf(s->profile, sizeof(s->profile), "%.100s%s%.8s", name, hash ? " " : "",
		         hash ? hash + 1 : "");
	} else if ((prof = strstr(detail, "profile "))) {
		size_t n = strcspn(prof + 8, " (,");

		hash = strstr(prof, "fnv1a64 ");
		snprintf(s->profile, sizeof(s->profile), "%.*s%s%.8s", (int)(n < 100 ? n : 100),
		         prof + 8, hash ? " " : "", hash ? hash + 8 : "");
	}
	cJSON_Delete(p);
}

/* What the campaigns table keeps of a campaign beside struct sb_store_campaign. */
struct campaign_row {
	char *config, *provenance; /* NULL: none */
	char created_at[32];
};

static int get_campaign_row(void *ctx, unsigned ncol, const struct sb_cell *c)
{
	struct campaign_row *r = ctx;

	if (ncol < 3)
		return 0;
	if ((c[0].type == SB_CELL_TEXT && !(r->config = strdup(c[0].s))) ||
	    (c[1].type == SB_CELL_TEXT && !(r->provenance = strdup(c[1].s))))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	snprintf(r->created_at, sizeof(r->created_at), "%s", sb_rpt_text(&c[2]));
	return 0;
}

static void campaign_row_release(struct campaign_row *r)
{
	free(r->config);
	free(r->provenance);
	memset(r, 0, sizeof(*r));
}

/* A campaign's stored configuration and provenance (the provenance column: version 3). */
static int read_campaign_row(struct sb_store *st, int64_t id, struct campaign_row *r)
{
	int v = sb_store_schema_version(st), e;

	memset(r, 0, sizeof(*r));
	if (v < 0)
		return v;
	e = sb_store_query(st,
	                   v >= 3 ? "SELECT config, provenance, created_at FROM campaigns WHERE "
	                            "id = ?1"
	                          : "SELECT config, NULL, created_at FROM campaigns WHERE id = ?1",
	                   id, get_campaign_row, r);
	if (e < 0)
		campaign_row_release(r);
	return e < 0 ? e : 0;
}

static int source_init(struct sb_report_source *s, struct sb_store *st, int64_t id, bool model)
{
	struct sb_store_campaign c;
	struct campaign_row row;
	int e;

	memset(s, 0, sizeof(*s));
	if ((e = sb_store_campaign_get(st, id, &c)) < 0 ||
	    (e = read_campaign_row(st, id, &row)) < 0)
		return e;
	s->campaign_id = id;
	s->model = model;
	if (!model)
		snprintf(s->db, sizeof(s->db), "%s", sb_store_path(st));
	snprintf(s->name, sizeof(s->name), "%s", c.name);
	snprintf(s->hash, sizeof(s->hash), "%s", c.hash);
	snprintf(s->created_at, sizeof(s->created_at), "%s", row.created_at);
	provenance_facts(row.provenance, s);
	campaign_row_release(&row);
	return 0;
}

/* The name of the database without its folders. */
static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/*
 * The labels of the sides of a set: the model is "model (PROFILE)", a measured campaign
 * against it "measured (HOST DEVICE)"; campaigns of several databases are named by their
 * database and what their provenance says differently (host, device, profile, build).
 */
static void make_labels(struct sb_report_source **s, size_t n)
{
	bool host = false, dev = false, prof = false, build = false, same_base = false;

	for (size_t i = 1; i < n; i++)
		for (size_t j = 0; j < i; j++) {
			host = host || strcmp(s[i]->host, s[j]->host);
			dev = dev || strcmp(s[i]->device, s[j]->device);
			prof = prof || strcmp(s[i]->profile, s[j]->profile);
			build = build || strcmp(s[i]->build, s[j]->build);
			same_base =
			    same_base || (!s[i]->model && !s[j]->model &&
			                  !strcmp(base_name(s[i]->db), base_name(s[j]->db)));
		}
	for (size_t i = 0; i < n; i++) {
		struct sb_report_source *a = s[i];
		char parts[160] = "";
		size_t len = 0;

		if (a->model) {
			snprintf(a->label, sizeof(a->label), "model (%s)",
			         a->profile[0] ? a->profile : a->device);
			continue;
		}
		if (host && a->host[0])
			len += (size_t)snprintf(parts + len, sizeof(parts) - len, "%s", a->host);
		/* a simulated board is named by its profile, hardware by its device */
		if ((dev || prof) && a->profile[0] && len < sizeof(parts))
			len += (size_t)snprintf(parts + len, sizeof(parts) - len, "%sprofile %s",
			                        len ? " " : "", a->profile);
		else if (dev && a->device[0] && len < sizeof(parts))
			len += (size_t)snprintf(parts + len, sizeof(parts) - len, "%s%s",
			                        len ? " " : "", a->device);
		if (build && a->build[0] && len < sizeof(parts))
			snprintf(parts + len, sizeof(parts) - len, "%s%s", len ? " " : "",
			         a->build);
		if (s[0]->model)
			snprintf(a->label, sizeof(a->label), "measured (%.66s)",
			         parts[0] ? parts : a->device);
		else
			snprintf(a->label, sizeof(a->label), "%.40s%s%.36s%s",
			         same_base ? a->db : base_name(a->db), parts[0] ? " (" : "", parts,
			         parts[0] ? ")" : "");
	}
}

/* --- the ratios ----------------------------------------------------------------------------- */

/* Every point of a campaign: the means of its runs that did not fail, per metric. */
struct side_point {
	char nkey[SB_CAMPAIGN_KEY_MAX];
	unsigned index;
	double mean[SB_REPORT_NMETRICS];
	unsigned n[SB_REPORT_NMETRICS];
};

struct side {
	struct side_point *p;
	unsigned n, cap;
};

static int collect_side(void *ctx, unsigned ncol, const struct sb_cell *c)
{
	struct side *s = ctx;
	struct side_point *p;

	if (ncol < 2 + 2 * SB_REPORT_NMETRICS)
		return 0;
	if (sb_rpt_reserve((void **)&s->p, s->n, &s->cap, sizeof(*p)) < 0)
		return SB_ERR_NOMEM;
	p = &s->p[s->n++];
	snprintf(p->nkey, sizeof(p->nkey), "%s", sb_rpt_text(&c[0]));
	p->index = (unsigned)c[1].i;
	for (unsigned m = 0; m < SB_REPORT_NMETRICS; m++) {
		const struct sb_cell *v = &c[2 + 2 * m];

		p->n[m] = (unsigned)c[3 + 2 * m].i;
		p->mean[m] = v->type == SB_CELL_NULL || !p->n[m] ? NAN : v->d;
	}
	return 0;
}

static int read_side(struct sb_store *st, int64_t id, struct side *s)
{
	char sql[4096];
	size_t len;
	int e;

	len = (size_t)snprintf(sql, sizeof(sql),
	                       "SELECT replace(p.key, 'rep=' || p.rep || ' ', '') AS nkey, "
	                       "min(p.idx)");
	for (unsigned m = 0; m < SB_REPORT_NMETRICS; m++)
		len +=
		    (size_t)snprintf(sql + len, sizeof(sql) - len,
		                     ", avg(CASE WHEN p.failed = 0 THEN %s END), count(CASE WHEN "
		                     "p.failed = 0 THEN %s END)",
		                     sb_report_metrics[m].sql, sb_report_metrics[m].sql);
	snprintf(sql + len, sizeof(sql) - len,
	         " FROM points p LEFT JOIN hbm_points h ON h.point_id = p.id WHERE p.campaign_id = "
	         "?1 GROUP BY nkey ORDER BY min(p.idx), nkey");
	e = sb_store_query(st, sql, id, collect_side, s);
	return e < 0 ? e : 0;
}

static int cmp_ratio(const void *a, const void *b)
{
	return sb_rpt_cmp_double(a, b);
}

/* How far a ratio is from 1, either way (2 and 0.5 are as far). */
static double distance(double r)
{
	return r > 0 ? fabs(log(r)) : INFINITY;
}

static void summarize(struct sb_report_comparison *c, double *tmp)
{
	for (unsigned m = 0; m < SB_REPORT_NMETRICS; m++) {
		struct sb_report_cmp_summary *s = &c->summary[m];
		unsigned n = 0;

		s->median = s->worst = NAN;
		for (unsigned i = 0; i < c->npoints; i++) {
			double r = c->points[i].v[m].ratio;

			if (isnan(r))
				continue;
			tmp[n++] = r;
			if (isnan(s->worst) || distance(r) > distance(s->worst)) {
				s->worst = r;
				s->worst_point = i;
			}
		}
		s->n = n;
		if (!n)
			continue;
		qsort(tmp, n, sizeof(*tmp), cmp_ratio);
		s->median = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
	}
}

/* Each point's label: the axes whose values differ between the points (all of them when
 * none does), of the GUPS engine's keys or an HBM2 card's (an axis a key has not is left
 * out). */
static void point_labels(struct sb_report_comparison *c)
{
	static const char *const axes[] = {
	    "cooling", "type", "size",  "pattern", "mode", "addr_mode",   "ports",
	    "stream",  "mask", "temp",  "refresh", "page", "policy",      "target",
	    "op",      "mix",  "burst", "stride",  "ws",   "outstanding",
	};
	bool vary[SB_ARRAY_SIZE(axes)] = {0}, any = false;

	for (size_t a = 0; a < SB_ARRAY_SIZE(axes); a++)
		for (unsigned i = 1; i < c->npoints && !vary[a]; i++) {
			char x[64], y[64];

			sb_rpt_key_value(c->points[0].key, axes[a], x, sizeof(x));
			sb_rpt_key_value(c->points[i].key, axes[a], y, sizeof(y));
			vary[a] = strcmp(x, y) != 0;
			any = any || vary[a];
		}
	for (unsigned i = 0; i < c->npoints; i++) {
		struct sb_report_cmp_point *p = &c->points[i];
		size_t len = 0;

		p->label[0] = '\0';
		for (size_t a = 0; a < SB_ARRAY_SIZE(axes) && len < sizeof(p->label); a++) {
			char v[64];

			if (any && !vary[a])
				continue;
			sb_rpt_key_value(p->key, axes[a], v, sizeof(v));
			if (!v[0])
				continue;
			if (!strcmp(v, "none/0"))
				v[4] = '\0'; /* no mask: its width says nothing */
			len += (size_t)snprintf(p->label + len, sizeof(p->label) - len, "%s%s=%s",
			                        len ? " " : "", axes[a], v);
		}
	}
}

/* A point of one side only. */
static void one_side(struct sb_report_cmp_point *p, const struct side_point *a, bool ref)
{
	snprintf(p->key, sizeof(p->key), "%s", a->nkey);
	p->index = a->index;
	for (unsigned m = 0; m < SB_REPORT_NMETRICS; m++)
		p->v[m] = ref ? (struct sb_report_cmp_value){a->mean[m], NAN, a->n[m], 0, NAN}
		              : (struct sb_report_cmp_value){NAN, a->mean[m], 0, a->n[m], NAN};
}

/* other against ref (ids in st): every point of either, in the reference's order, then the
 * points only the other has. */
static int compare_sides(struct sb_store *st, struct sb_report_comparison *c)
{
	struct side ref = {0}, other = {0};
	bool *used = NULL;
	double *tmp = NULL;
	int e;

	if ((e = read_side(st, c->ref.id, &ref)) < 0 ||
	    (e = read_side(st, c->other.id, &other)) < 0)
		goto out;
	c->points = calloc(ref.n + other.n + 1, sizeof(*c->points));
	used = calloc(other.n + 1, sizeof(*used));
	tmp = calloc(ref.n + other.n + 1, sizeof(*tmp));
	if (!c->points || !used || !tmp) {
		e = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < ref.n; i++) {
		const struct side_point *a = &ref.p[i];
		struct sb_report_cmp_point *p = &c->points[c->npoints++];
		unsigned j = 0;

		while (j < other.n && (used[j] || strcmp(other.p[j].nkey, a->nkey)))
			j++;
		one_side(p, a, true);
		if (j == other.n)
			continue;
		used[j] = true;
		for (unsigned m = 0; m < SB_REPORT_NMETRICS; m++) {
			struct sb_report_cmp_value *v = &p->v[m];

			v->other = other.p[j].mean[m];
			v->nother = other.p[j].n[m];
			v->ratio = !isnan(v->ref) && !isnan(v->other) && v->ref != 0
			               ? v->other / v->ref
			               : NAN;
		}
	}
	for (unsigned j = 0; j < other.n; j++)
		if (!used[j])
			one_side(&c->points[c->npoints++], &other.p[j], false);
	point_labels(c);
	summarize(c, tmp);
	e = 0;
out:
	free(ref.p);
	free(other.p);
	free(used);
	free(tmp);
	return e;
}

/* --- text and JSON -------------------------------------------------------------------------- */

static void print_ratio(FILE *f, double r)
{
	if (isnan(r))
		fprintf(f, " %12s", "-");
	else
		fprintf(f, " %12.4f", r);
}

void sb_report_comparison_print(FILE *f, const struct sb_report_comparison *c)
{
	bool has[SB_REPORT_NMETRICS], any = false;
	int w = 24;

	fprintf(f, "comparison: %s against %s%s\n", c->other.label, c->ref.label,
	        c->model ? " (the same campaign run on the model)" : "");
	fprintf(f, "  compared:  campaign %lld '%s' of %s, %s%s%s\n",
	        (long long)c->other.campaign_id, c->other.name, c->other.db, c->other.device,
	        c->other.host[0] ? " on " : "", c->other.host);
	if (c->model)
		fprintf(f,
		        "  reference: the model, %s (profile %s), campaign %lld of comparison.db\n",
		        c->ref.device, c->ref.profile, (long long)c->ref.id);
	else
		fprintf(f, "  reference: campaign %lld '%s' of %s, %s%s%s\n",
		        (long long)c->ref.campaign_id, c->ref.name, c->ref.db, c->ref.device,
		        c->ref.host[0] ? " on " : "", c->ref.host);
	fprintf(f,
	        "  ratio = compared / reference (means of each point's runs that did not fail)\n");
	for (unsigned i = 0; i < c->npoints; i++)
		w = (int)strlen(c->points[i].label) > w ? (int)strlen(c->points[i].label) : w;
	fprintf(f, "  %-*s", w, "point");
	for (unsigned m = 0; m < SB_REPORT_NMETRICS; m++)
		if ((has[m] = c->summary[m].n > 0))
			fprintf(f, " %12.12s", sb_report_metrics[m].name);
	fprintf(f, "\n");
	for (unsigned i = 0; i < c->npoints; i++) {
		fprintf(f, "  %-*s", w, c->points[i].label);
		for (unsigned m = 0; m < SB_REPORT_NMETRICS; m++)
			if (has[m])
				print_ratio(f, c->points[i].v[m].ratio);
		fprintf(f, "\n");
	}
	fprintf(f, "  %-*s", w, "median");
	for (unsigned m = 0; m < SB_REPORT_NMETRICS; m++)
		if (has[m])
			print_ratio(f, c->summary[m].median);
	fprintf(f, "\n  %-*s", w, "worst");
	for (unsigned m = 0; m < SB_REPORT_NMETRICS; m++)
		if (has[m])
			print_ratio(f, c->summary[m].worst);
	fprintf(f, "\n");
	for (unsigned m = 0; m < SB_REPORT_NMETRICS; m++)
		if (has[m])
			fprintf(f, "  worst %s: %+.1f %% at %s\n", sb_report_metrics[m].name,
			        (c->summary[m].worst - 1) * 100,
			        c->points[c->summary[m].worst_point].label);
	for (unsigned m = 0; m < SB_REPORT_NMETRICS; m++)
		any = any || has[m];
	if (c->npoints && !any)
		fprintf(f, "  no point has a value on both sides\n");
}

static void json_num(cJSON *o, const char *name, double v)
{
	if (isnan(v) || isinf(v))
		cJSON_AddNullToObject(o, name);
	else
		cJSON_AddNumberToObject(o, name, v);
}

static cJSON *source_json(const struct sb_report_source *s)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "label", s->label);
	cJSON_AddBoolToObject(o, "model", s->model);
	if (s->model)
		cJSON_AddNullToObject(o, "database");
	else
		cJSON_AddStringToObject(o, "database", s->db);
	cJSON_AddNumberToObject(o, "campaign_id", (double)s->campaign_id);
	cJSON_AddNumberToObject(o, "comparison_campaign_id", (double)s->id);
	cJSON_AddStringToObject(o, "name", s->name);
	cJSON_AddStringToObject(o, "hash", s->hash);
	cJSON_AddStringToObject(o, "host", s->host);
	cJSON_AddStringToObject(o, "device", s->device);
	cJSON_AddStringToObject(o, "profile", s->profile);
	cJSON_AddStringToObject(o, "build", s->build);
	cJSON_AddStringToObject(o, "created_at", s->created_at);
	return o;
}

static cJSON *comparison_json(const struct sb_report_comparison *c)
{
	cJSON *o = cJSON_CreateObject(), *sum, *pts;

	cJSON_AddStringToObject(o, "kind", c->model ? "model" : "databases");
	cJSON_AddItemToObject(o, "compared", source_json(&c->other));
	cJSON_AddItemToObject(o, "reference", source_json(&c->ref));
	cJSON_AddStringToObject(o, "ratio", "compared / reference");
	cJSON_AddStringToObject(o, "figure_prefix", c->prefix);
	sum = cJSON_AddObjectToObject(o, "summary");
	for (unsigned m = 0; m < SB_REPORT_NMETRICS; m++) {
		const struct sb_report_cmp_summary *s = &c->summary[m];
		cJSON *ms;

		if (!s->n)
			continue;
		ms = cJSON_AddObjectToObject(sum, sb_report_metrics[m].column);
		cJSON_AddNumberToObject(ms, "points", s->n);
		json_num(ms, "median_ratio", s->median);
		json_num(ms, "worst_ratio", s->worst);
		cJSON_AddStringToObject(ms, "worst_point", c->points[s->worst_point].key);
	}
	pts = cJSON_AddArrayToObject(o, "points");
	for (unsigned i = 0; i < c->npoints; i++) {
		const struct sb_report_cmp_point *p = &c->points[i];
		cJSON *po = cJSON_CreateObject();

		cJSON_AddNumberToObject(po, "index", p->index);
		cJSON_AddStringToObject(po, "key", p->key);
		cJSON_AddStringToObject(po, "label", p->label);
		for (unsigned m = 0; m < SB_REPORT_NMETRICS; m++) {
			const struct sb_report_cmp_value *v = &p->v[m];
			cJSON *mv;

			if (!v->nref && !v->nother)
				continue;
			mv = cJSON_AddObjectToObject(po, sb_report_metrics[m].column);
			json_num(mv, "reference", v->ref);
			json_num(mv, "compared", v->other);
			json_num(mv, "ratio", v->ratio);
			cJSON_AddNumberToObject(mv, "reference_runs", v->nref);
			cJSON_AddNumberToObject(mv, "compared_runs", v->nother);
		}
		cJSON_AddItemToArray(pts, po);
	}
	return o;
}

/* --- the sets ------------------------------------------------------------------------------- */

/* A set: the reference campaign and the others, as copied into comparison.db. */
struct cset {
	struct sb_report_source *src; /* [0] the reference */
	size_t n;
	int64_t *ids;
	const char **labels;
	struct sb_report_comparison *cmps; /* n - 1 */
	char prefix[32];
};

struct compare {
	struct sb_store *const *stores;
	size_t nstores;
	const struct sb_report_compare *cmp;
	const struct sb_report_options *o;
	struct sb_store *cst; /* comparison.db */
	struct cset *sets;
	size_t nsets;
};

static int add_source(struct cset *s, struct sb_report_source *src)
{
	struct sb_report_source *v = realloc(s->src, (s->n + 1) * sizeof(*v));

	if (!v)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	s->src = v;
	s->src[s->n++] = *src;
	return 0;
}

/* Copy campaign id of st into comparison.db as a source of s. */
static int copy_source(struct compare *cm, struct cset *s, struct sb_store *st, int64_t id)
{
	struct sb_report_source src;
	int e;

	if ((e = source_init(&src, st, id, false)) < 0 ||
	    (e = sb_store_copy_campaign(cm->cst, st, id, NULL, &src.id)) < 0)
		return e;
	return add_source(s, &src);
}

struct measured {
	bool *only;
	unsigned npoints;
	const struct sb_campaign *c;
	int err;
	char bad[SB_CAMPAIGN_KEY_MAX];
};

/* A measured point: run it on the model, if it is the campaign's point of that index. */
static int measured_point(void *ctx, unsigned ncol, const struct sb_cell *c)
{
	struct measured *m = ctx;
	int64_t idx = c[0].i;

	if (ncol < 2 || c[0].type != SB_CELL_INT || idx < 0 || idx >= m->npoints ||
	    strcmp(m->c->points[idx].key, sb_rpt_text(&c[1]))) {
		snprintf(m->bad, sizeof(m->bad), "#%lld '%s'", (long long)idx, sb_rpt_text(&c[1]));
		return SB_ERR_MISMATCH;
	}
	m->only[idx] = true;
	return 0;
}

/* The model's device: sim:PROFILE, with the measured board's own settings when it was
 * simulated too (sim:...?ports=4). */
static void model_uri(const struct sb_campaign *c, const char *profile, char *out, size_t size)
{
	const char *q = !strncmp(c->device[0], "sim:", 4) ? strchr(c->device[0], '?') : NULL;
	char own[SB_CAMPAIGN_TEXT_MAX] = "";

	if (!profile || !*profile)
		profile = c->profile;
	if (!*profile && c->engine == SB_ENGINE_HBM2) {
		/* an HBM2 card's campaign: the simulated card it ran on (sim:u50), else the
		 * reference card's model */
		if (q && !strncmp(c->device[0], "sim:", 4))
			snprintf(own, sizeof(own), "%.*s", (int)(q - c->device[0] - 4),
			         c->device[0] + 4);
		else if (!strncmp(c->device[0], "sim:", 4))
			snprintf(own, sizeof(own), "%s", c->device[0] + 4);
		profile = *own ? own : "u280";
	}
	snprintf(out, size, "sim:%s%s", profile, q ? q : "");
}

/* Run campaign id of the first database on the model, into comparison.db. */
static int run_on_model(struct compare *cm, struct cset *s, int64_t id)
{
	struct sb_store *st = cm->stores[0];
	struct campaign_row row = {0};
	struct sb_store_campaign sc;
	struct sb_campaign c = {0};
	struct sb_run_summary sum;
	struct measured m = {0};
	struct sb_report_source src;
	char uri[SB_CAMPAIGN_TEXT_MAX], name[96];
	int e;

	if ((e = sb_store_campaign_get(st, id, &sc)) < 0 ||
	    (e = read_campaign_row(st, id, &row)) < 0)
		goto out;
	snprintf(name, sizeof(name), "campaign %lld of '%s'", (long long)id, sb_store_path(st));
	if (!row.config) {
		e = sb_error_set(SB_ERR_PARSE, "%s: no stored configuration to run again", name);
		goto out;
	}
	/* the campaign as measured, then on the model */
	if ((e = sb_campaign_load_stored(&c, name, row.config, sc.hash, NULL)) < 0)
		goto out;
	model_uri(&c, cm->cmp->profile, uri, sizeof(uri));
	sb_campaign_release(&c);
	{
		struct sb_campaign_change ch = {.device = uri, .sim_instruments = true};

		if ((e = sb_campaign_load_stored(&c, name, row.config, sc.hash, &ch)) < 0)
			goto out;
	}
	m.c = &c;
	m.npoints = c.npoints;
	if (!(m.only = calloc(c.npoints + 1, sizeof(*m.only)))) {
		e = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	e = sb_store_query(st, "SELECT DISTINCT idx, key FROM points WHERE campaign_id = ?1", id,
	                   measured_point, &m);
	if (e == SB_ERR_MISMATCH) {
		e = sb_error_set(
		    SB_ERR_MISMATCH,
		    "%s: its stored point %s is not the campaign's point of that index", name,
		    m.bad);
		goto out;
	}
	if (e < 0)
		goto out;
	sb_info("%s '%s': running its %d measured point%s on the model (%s)", name, c.name, e,
	        e == 1 ? "" : "s", uri);
	{
		struct sb_run_options ro = {
		    .only = m.only, .progress = cm->cmp->progress, .progress_ctx = cm->cmp->ctx};

		if ((e = sb_campaign_run(&c, cm->cst, &ro, &sum)) < 0) {
			e = sb_error_wrap(e, "%s on the model '%s'", name, uri);
			goto out;
		}
	}
	if ((e = source_init(&src, cm->cst, sum.campaign_id, true)) < 0)
		goto out;
	src.id = sum.campaign_id;
	if (!src.device[0])
		snprintf(src.device, sizeof(src.device), "%s", uri);
	e = add_source(s, &src);
out:
	free(m.only);
	sb_campaign_release(&c);
	campaign_row_release(&row);
	return e;
}

struct hash_match {
	const char *hash;
	int64_t id;
};

static int match_hash(void *ctx, const struct sb_store_campaign *c)
{
	struct hash_match *h = ctx;

	if (!strcmp(c->hash, h->hash))
		h->id = c->id; /* the list is oldest first: the latest wins */
	return 0;
}

/* The sources of the set of campaign id (of the first database), copied (the model's run:
 * already made, the reference). */
static int build_set(struct compare *cm, struct cset *s, int64_t id)
{
	size_t found = 0;
	int e;

	snprintf(s->prefix, sizeof(s->prefix), "c%lld_", (long long)id);
	if (cm->cmp->model)
		return copy_source(cm, s, cm->stores[0], id);
	if ((e = copy_source(cm, s, cm->stores[0], id)) < 0)
		return e;
	for (size_t i = 1; i < cm->nstores; i++) {
		struct hash_match h = {.hash = s->src[0].hash};

		if ((e = sb_store_campaign_list(cm->stores[i], match_hash, &h)) < 0)
			return e;
		if (!h.id) {
			sb_warn(
			    "'%s' has no campaign with the content hash %s of campaign %lld '%s' "
			    "of '%s'",
			    sb_store_path(cm->stores[i]), s->src[0].hash, (long long)id,
			    s->src[0].name, sb_store_path(cm->stores[0]));
			continue;
		}
		if ((e = copy_source(cm, s, cm->stores[i], h.id)) < 0)
			return e;
		found++;
	}
	if (!found)
		return sb_error_set(SB_ERR_MISMATCH,
		                    "campaign %lld '%s' of '%s' (content hash %s): no campaign "
		                    "of that hash in the other database%s",
		                    (long long)id, s->src[0].name, sb_store_path(cm->stores[0]),
		                    s->src[0].hash, cm->nstores > 2 ? "s" : "");
	return 0;
}

/* Labels and comparisons of a built set. */
static int finish_set(struct compare *cm, struct cset *s)
{
	struct sb_report_source **p = calloc(s->n, sizeof(*p));
	int e = 0;

	s->ids = calloc(s->n, sizeof(*s->ids));
	s->labels = calloc(s->n, sizeof(*s->labels));
	s->cmps = calloc(s->n, sizeof(*s->cmps));
	if (!p || !s->ids || !s->labels || !s->cmps) {
		free(p);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < s->n; i++)
		p[i] = &s->src[i];
	make_labels(p, s->n);
	free(p);
	for (size_t i = 0; i < s->n; i++) {
		s->ids[i] = s->src[i].id;
		s->labels[i] = s->src[i].label;
	}
	for (size_t i = 1; i < s->n && e >= 0; i++) {
		struct sb_report_comparison *c = &s->cmps[i - 1];

		c->model = cm->cmp->model;
		c->ref = s->src[0];
		c->other = s->src[i];
		snprintf(c->prefix, sizeof(c->prefix), "%s", cm->nsets > 1 ? s->prefix : "");
		e = compare_sides(cm->cst, c);
	}
	return e;
}

static void release_sets(struct compare *cm)
{
	for (size_t i = 0; i < cm->nsets; i++) {
		struct cset *s = &cm->sets[i];

		for (size_t j = 0; j + 1 < s->n && s->cmps; j++)
			free(s->cmps[j].points);
		free(s->cmps);
		free(s->src);
		free(s->ids);
		free(s->labels);
	}
	free(cm->sets);
}

static char *all_json(const struct compare *cm)
{
	cJSON *root = cJSON_CreateObject(), *arr;
	char *text;

	cJSON_AddStringToObject(root, "schema", SCHEMA);
	cJSON_AddStringToObject(root, "schema_version", SCHEMA_VERSION);
	arr = cJSON_AddArrayToObject(root, "comparisons");
	for (size_t i = 0; i < cm->nsets; i++)
		for (size_t j = 0; j + 1 < cm->sets[i].n; j++)
			cJSON_AddItemToArray(arr, comparison_json(&cm->sets[i].cmps[j]));
	text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text)
		sb_error_set(SB_ERR_NOMEM, "out of memory");
	return text;
}

/* The page's account of the databases compared. */
static void db_text(const struct compare *cm, char *out, size_t size)
{
	size_t len = 0;

	for (size_t i = 0; i < cm->nstores && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s%s", i ? ", " : "",
		                        sb_store_path(cm->stores[i]));
	if (cm->cmp->model && len < size)
		snprintf(out + len, size - len, " against the model");
}

static int write_outputs(struct compare *cm, struct sb_rpt_run *r, char **json)
{
	char path[4096], text[2048];
	char *js = all_json(cm);
	int e;

	if (!js)
		return SB_ERR_NOMEM;
	if ((e = sb_outdir_claimf(&r->od, path, sizeof(path), "comparison.json")) < 0)
		goto out;
	{
		struct sb_output out;

		if ((e = sb_output_open(&out, path)) < 0)
			goto out;
		fprintf(out.f, "%s\n", js);
		if ((e = sb_output_commit(&out)) < 0)
			goto out;
	}
	if (cm->o->html) {
		int64_t *ids = NULL;
		const char **labels = NULL;
		struct sb_report_comparison *cmps = NULL;
		size_t nids = 0, ncmps = 0;

		for (size_t i = 0; i < cm->nsets; i++) {
			nids += cm->sets[i].n;
			ncmps += cm->sets[i].n - 1;
		}
		ids = calloc(nids + 1, sizeof(*ids));
		labels = calloc(nids + 1, sizeof(*labels));
		cmps = calloc(ncmps + 1, sizeof(*cmps));
		if (!ids || !labels || !cmps) {
			e = sb_error_set(SB_ERR_NOMEM, "out of memory");
		} else {
			nids = ncmps = 0;
			for (size_t i = 0; i < cm->nsets; i++)
				for (size_t j = 0; j < cm->sets[i].n; j++) {
					ids[nids] = cm->sets[i].ids[j];
					labels[nids++] = cm->sets[i].labels[j];
					if (j)
						cmps[ncmps++] = cm->sets[i].cmps[j - 1];
				}
			db_text(cm, text, sizeof(text));
			if ((e = sb_outdir_claimf(&r->od, path, sizeof(path), "report.html")) >=
			    0) {
				struct sb_rpt_html h = {.st = cm->cst,
				                        .path = path,
				                        .db_text = text,
				                        .ids = ids,
				                        .nids = nids,
				                        .labels = labels,
				                        .figs = r->html,
				                        .nfigs = r->nhtml,
				                        .cmps = cmps,
				                        .ncmps = ncmps};

				e = sb_rpt_write_html(&h);
			}
		}
		free(ids);
		free(labels);
		free(cmps);
	}
out:
	if (e >= 0 && json)
		*json = js;
	else
		cJSON_free(js);
	return e;
}

int sb_report_compare(struct sb_store *const *stores, size_t nstores,
                      const struct sb_report_compare *cmp, const struct sb_report_options *o,
                      char **json)
{
	struct compare cm = {.stores = stores, .nstores = nstores, .cmp = cmp, .o = o};
	struct sb_rpt_run r;
	int64_t *ids = NULL;
	size_t n = 0;
	char db[4096];
	int e;

	if (json)
		*json = NULL;
	if (!nstores || (!cmp->model && nstores < 2))
		return sb_error_set(SB_ERR_INVAL,
		                    "a comparison needs the model or a second database");
	if ((e = sb_rpt_select_campaigns(stores[0], o, &ids, &n)) < 0)
		return e;
	if (!n) {
		free(ids);
		return sb_error_set(SB_ERR_NOT_FOUND, "no campaign in '%s' to compare",
		                    sb_store_path(stores[0]));
	}
	if ((e = sb_rpt_run_begin(&r, o)) < 0) {
		free(ids);
		return e;
	}
	/* the campaigns compared, side by side in one database of the outputs */
	if ((e = sb_outdir_claimf(&r.od, db, sizeof(db), "comparison.db")) < 0 ||
	    (e = sb_store_open(&cm.cst, db)) < 0)
		goto fail;
	r.st = cm.cst;
	r.compare = true;
	if (!(cm.sets = calloc(n, sizeof(*cm.sets)))) {
		e = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto fail;
	}
	cm.nsets = n;
	/* the model's runs first (the reference of each set: ratios are measured / model), in a
	   database where no campaign of their name is yet */
	for (size_t i = 0; i < n && e >= 0 && cmp->model; i++)
		e = run_on_model(&cm, &cm.sets[i], ids[i]);
	for (size_t i = 0; i < n && e >= 0; i++)
		e = build_set(&cm, &cm.sets[i], ids[i]);
	for (size_t i = 0; i < n && e >= 0; i++) {
		struct cset *s = &cm.sets[i];

		if ((e = finish_set(&cm, s)) < 0)
			break;
		for (size_t j = 0; j + 1 < s->n && cmp->comparison; j++)
			cmp->comparison(cmp->ctx, &s->cmps[j]);
		{
			struct sb_rpt_set set = {.ids = s->ids,
			                         .n = s->n,
			                         .labels = s->labels,
			                         .cmps = s->cmps,
			                         .ncmps = s->n - 1};

			e = sb_rpt_run_set(&r, &set, n > 1 ? s->prefix : "");
		}
	}
	if (e >= 0)
		e = write_outputs(&cm, &r, json);
	/* comparison.db complete (its journal folded in) before it moves into place */
	sb_store_close(cm.cst);
	cm.cst = NULL;
	if (e < 0)
		goto fail;
	if ((e = sb_outdir_commit(&r.od)) >= 0)
		e = r.made;
	goto out;
fail:
	sb_store_close(cm.cst);
	sb_outdir_abort(&r.od);
out:
	if (e < 0 && json) {
		cJSON_free(*json);
		*json = NULL;
	}
	release_sets(&cm);
	sb_rpt_run_release(&r);
	free(ids);
	return e;
}
