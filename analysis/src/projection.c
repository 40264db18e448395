/* SPDX-License-Identifier: MIT */
/*
 * Device projection of a lifetime result (docs/lifetimes.md, "Projection"):
 *   R_r = Σ_k floor(T_k / t_r) · B_k                         (refreshes, in bits)
 *   A_r = A_cell,r · Σ_addresses bits                        (area)
 *   E_r = E_read,r · (N_r + R_r) + E_write,r · (N_w + R_r)    (active energy, N and R in bits)
 * and the heterogeneous composition: each address goes to the shortest-retention device that
 * holds the longest lifetime it ever held without refresh, the rest to a static device.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stackbench/error.h"
#include "stackbench/lifetime.h"

#define FJ 1e-15

static double ratio(double v, double ref)
{
	return ref > 0 ? v / ref : NAN;
}

/* Ticks that one retention time spans (INFINITY for static devices). */
static double ticks_per_retention(double retention_ns, double tick_hz)
{
	return isinf(retention_ns) ? INFINITY : retention_ns * tick_hz / 1e9;
}

static void project_device(struct sb_memdev_projection *dp, const struct sb_memdev *d,
                           const struct sb_subpart_stats *st, double write_hz, double tick_hz)
{
	double tpr;

	memset(dp, 0, sizeof(*dp));
	dp->dev = d;
	dp->retention_ns = sb_memdev_retention_ns(d, write_hz);
	tpr = ticks_per_retention(dp->retention_ns, tick_hz);
	for (size_t i = 0; i < st->nbins; i++) {
		const struct sb_lifetime_bin *b = &st->bins[i];
		uint64_t n = isinf(tpr) ? 0 : (uint64_t)floor((double)b->ticks / tpr);

		dp->refresh_values += n * b->count;
		dp->refreshes += n * b->bits;
		if (n == 0) {
			dp->refresh_free += b->count;
			dp->refresh_free_accesses += b->accesses;
		}
	}
	dp->refresh_free_share =
	    st->lifetimes ? (double)dp->refresh_free / (double)st->lifetimes : 1;
	dp->refresh_free_access_share = st->lifetime_accesses ? (double)dp->refresh_free_accesses /
	                                                            (double)st->lifetime_accesses
	                                                      : 1;
	dp->area_um2 = d->cell_area_um2 * (double)st->capacity_bits;
	dp->read_energy_j = d->read_fj_per_bit * (double)st->read_bits * FJ;
	dp->write_energy_j = d->write_fj_per_bit * (double)st->write_bits * FJ;
	dp->refresh_energy_j =
	    (d->read_fj_per_bit + d->write_fj_per_bit) * (double)dp->refreshes * FJ;
	dp->energy_j = dp->read_energy_j + dp->write_energy_j + dp->refresh_energy_j;
}

static void set_ratios(struct sb_memdev_projection *devs, size_t n, size_t ref)
{
	for (size_t i = 0; i < n; i++) {
		devs[i].area_ratio = ratio(devs[i].area_um2, devs[ref].area_um2);
		devs[i].energy_ratio = ratio(devs[i].energy_j, devs[ref].energy_j);
	}
}

struct order {
	size_t dev;
	double ret_ns;
};

static int cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->ret_ns != y->ret_ns)
		return x->ret_ns < y->ret_ns ? -1 : 1;
	return (x->dev > y->dev) - (x->dev < y->dev);
}

/* The composition of one subpartition. */
static int compose(struct sb_composition *c, const struct sb_subpart_stats *st,
                   const struct sb_memdev_lib *lib, const struct sb_subpart_projection *sp,
                   size_t ref, double tick_hz)
{
	struct order *ord = calloc(lib->ndevices, sizeof(*ord));
	size_t n = 0, stat = SIZE_MAX;

	memset(c, 0, sizeof(*c));
	if (!ord)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	/* the no-refresh device: the reference if static, else the first static device */
	if (lib->devices[ref].retention_kind == SB_RETENTION_STATIC)
		stat = ref;
	for (size_t i = 0; stat == SIZE_MAX && i < lib->ndevices; i++)
		if (lib->devices[i].retention_kind == SB_RETENTION_STATIC)
			stat = i;
	for (size_t i = 0; i < lib->ndevices; i++) {
		if (lib->devices[i].retention_kind == SB_RETENTION_STATIC && i != stat)
			continue;
		ord[n].dev = i;
		ord[n].ret_ns = sp->devices[i].retention_ns;
		n++;
	}
	qsort(ord, n, sizeof(*ord), cmp_order);
	c->parts = calloc(n, sizeof(*c->parts));
	if (!c->parts) {
		free(ord);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	c->nparts = n;
	c->refresh_free = true;
	for (size_t i = 0; i < n; i++) {
		c->parts[i].dev = &lib->devices[ord[i].dev];
		c->parts[i].retention_ns = ord[i].ret_ns;
		c->parts[i].max_lifetime_ticks = -1;
	}
	for (size_t a = 0; a < st->nabins; a++) {
		const struct sb_address_bin *b = &st->abins[a];
		size_t k;

		/* the shortest retention that holds the longest lifetime here without refresh */
		for (k = 0; k + 1 < n; k++)
			if ((double)b->max_ticks < ticks_per_retention(ord[k].ret_ns, tick_hz))
				break;
		struct sb_composition_part *p = &c->parts[k];

		p->addresses += b->addresses;
		p->bits += b->bits;
		p->energy_j += (p->dev->read_fj_per_bit * (double)b->read_bits +
		                p->dev->write_fj_per_bit * (double)b->write_bits) *
		               FJ;
		if (b->max_ticks > p->max_lifetime_ticks)
			p->max_lifetime_ticks = b->max_ticks;
	}
	/* without a static device, the longest lifetimes are refreshed on the last device */
	if (n && stat == SIZE_MAX) {
		struct sb_composition_part *p = &c->parts[n - 1];
		double tpr = ticks_per_retention(p->retention_ns, tick_hz);

		for (size_t i = 0; i < st->nbins; i++)
			p->refreshes +=
			    (uint64_t)floor((double)st->bins[i].ticks / tpr) * st->bins[i].bits;
		p->energy_j += (p->dev->read_fj_per_bit + p->dev->write_fj_per_bit) *
		               (double)p->refreshes * FJ;
		c->refresh_free = p->refreshes == 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct sb_composition_part *p = &c->parts[i];

		p->area_um2 = p->dev->cell_area_um2 * (double)p->bits;
		p->capacity_share =
		    st->capacity_bits ? (double)p->bits / (double)st->capacity_bits : 0;
		c->area_um2 += p->area_um2;
		c->energy_j += p->energy_j;
	}
	c->area_ratio = ratio(c->area_um2, sp->devices[ref].area_um2);
	c->energy_ratio = ratio(c->energy_j, sp->devices[ref].energy_j);
	free(ord);
	return 0;
}

/* Sum the subpartitions' compositions per device (library order). */
static int compose_total(struct sb_projection *p, const struct sb_memdev_lib *lib,
                         uint64_t capacity_bits)
{
	struct sb_composition *t = &p->total_comp;
	size_t n = 0;

	memset(t, 0, sizeof(*t));
	t->parts = calloc(lib->ndevices, sizeof(*t->parts));
	if (!t->parts)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	t->refresh_free = true;
	for (size_t d = 0; d < lib->ndevices; d++) {
		struct sb_composition_part *tp = &t->parts[n];
		bool used = false;

		memset(tp, 0, sizeof(*tp));
		tp->dev = &lib->devices[d];
		tp->retention_ns = NAN; /* differs per subpartition */
		tp->max_lifetime_ticks = -1;
		for (size_t s = 0; s < p->nsubparts; s++) {
			const struct sb_composition *c = &p->subparts[s].comp;

			for (size_t i = 0; i < c->nparts; i++) {
				const struct sb_composition_part *q = &c->parts[i];

				if (q->dev != tp->dev)
					continue;
				used = true;
				tp->addresses += q->addresses;
				tp->bits += q->bits;
				tp->area_um2 += q->area_um2;
				tp->energy_j += q->energy_j;
				tp->refreshes += q->refreshes;
				if (q->max_lifetime_ticks > tp->max_lifetime_ticks)
					tp->max_lifetime_ticks = q->max_lifetime_ticks;
			}
		}
		if (!used)
			continue;
		tp->capacity_share = capacity_bits ? (double)tp->bits / (double)capacity_bits : 0;
		t->area_um2 += tp->area_um2;
		t->energy_j += tp->energy_j;
		n++;
	}
	t->nparts = n;
	for (size_t s = 0; s < p->nsubparts; s++)
		t->refresh_free &= p->subparts[s].comp.refresh_free;
	t->area_ratio = ratio(t->area_um2, p->total[p->reference].area_um2);
	t->energy_ratio = ratio(t->energy_j, p->total[p->reference].energy_j);
	return 0;
}

int sb_projection_compute(struct sb_projection *p, const struct sb_lifetime_result *res,
                          const struct sb_memdev_lib *lib)
{
	int64_t ticks = sb_lifetime_result_ticks(res);
	double tick_hz = res->info.tick_hz;
	uint64_t lifetimes = 0, accesses = 0, capacity = 0;
	int err;

	memset(p, 0, sizeof(*p));
	if ((err = sb_memdev_lib_check(lib)) < 0)
		return err;
	p->ndevices = lib->ndevices;
	p->reference = (size_t)(sb_memdev_lib_get(lib, lib->reference) - lib->devices);
	p->nsubparts = res->nsubparts;
	p->subparts = calloc(res->nsubparts ? res->nsubparts : 1, sizeof(*p->subparts));
	p->total = calloc(lib->ndevices, sizeof(*p->total));
	if (!p->subparts || !p->total) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto fail;
	}
	for (size_t s = 0; s < res->nsubparts; s++) {
		const struct sb_subpart_stats *st = &res->subparts[s];
		struct sb_subpart_projection *sp = &p->subparts[s];

		/* a sampled trace: the access pressure restored by temporal interpolation,
		   t^ = r t, with r the subpartition's sampling density (docs/lifetimes.md) */
		const double r =
		    res->sampling.sampled && st->density > 0 && st->density <= 1 ? st->density : 1;

		sp->time_scale = r;
		sp->duration_s = ticks > 0 ? (double)ticks / tick_hz : 0;
		sp->write_hz =
		    ticks > 0 ? (double)st->write_ticks / (r * (double)ticks) * tick_hz : 0;
		sp->read_hz =
		    ticks > 0 ? (double)st->read_ticks / (r * (double)ticks) * tick_hz : 0;
		sp->devices = calloc(lib->ndevices, sizeof(*sp->devices));
		if (!sp->devices) {
			err = sb_error_set(SB_ERR_NOMEM, "out of memory");
			goto fail;
		}
		for (size_t d = 0; d < lib->ndevices; d++)
			project_device(&sp->devices[d], &lib->devices[d], st, sp->write_hz,
			               tick_hz);
		set_ratios(sp->devices, lib->ndevices, p->reference);
		if ((err = compose(&sp->comp, st, lib, sp, p->reference, tick_hz)) < 0)
			goto fail;
		lifetimes += st->lifetimes;
		accesses += st->lifetime_accesses;
		capacity += st->capacity_bits;
	}
	for (size_t d = 0; d < lib->ndevices; d++) {
		struct sb_memdev_projection *t = &p->total[d];

		t->dev = &lib->devices[d];
		t->retention_ns = NAN; /* differs per subpartition */
		for (size_t s = 0; s < res->nsubparts; s++) {
			const struct sb_memdev_projection *q = &p->subparts[s].devices[d];

			t->refreshes += q->refreshes;
			t->refresh_values += q->refresh_values;
			t->refresh_free += q->refresh_free;
			t->refresh_free_accesses += q->refresh_free_accesses;
			t->area_um2 += q->area_um2;
			t->read_energy_j += q->read_energy_j;
			t->write_energy_j += q->write_energy_j;
			t->refresh_energy_j += q->refresh_energy_j;
			t->energy_j += q->energy_j;
		}
		t->refresh_free_share = lifetimes ? (double)t->refresh_free / (double)lifetimes : 1;
		t->refresh_free_access_share =
		    accesses ? (double)t->refresh_free_accesses / (double)accesses : 1;
	}
	set_ratios(p->total, lib->ndevices, p->reference);
	if ((err = compose_total(p, lib, capacity)) < 0)
		goto fail;
	return 0;
fail:
	sb_projection_release(p);
	return err;
}

void sb_projection_release(struct sb_projection *p)
{
	if (!p)
		return;
	for (size_t s = 0; s < p->nsubparts && p->subparts; s++) {
		free(p->subparts[s].devices);
		free(p->subparts[s].comp.parts);
	}
	free(p->subparts);
	free(p->total);
	free(p->total_comp.parts);
	memset(p, 0, sizeof(*p));
}
