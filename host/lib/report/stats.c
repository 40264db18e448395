/* SPDX-License-Identifier: MIT */
/*
 * Statistics of the figures, through GSL: the mean of the runs of a point with a 95 %
 * confidence interval (Student's t), and least-squares lines with the standard error of the
 * slope and R². Inputs are checked before GSL sees them, so GSL's error handler (which aborts
 * by default, and is process-wide) is never reached and never changed.
 */
#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_statistics_double.h>

#include "report_int.h"

double sb_rpt_t975(unsigned dof)
{
	return dof ? gsl_cdf_tdist_Pinv(0.975, (double)dof) : NAN;
}

void sb_rpt_summarize(const double *v, unsigned n, struct sb_rpt_summary *s)
{
	s->n = n;
	s->mean = s->sd = s->half = NAN;
	if (!n)
		return;
	s->mean = gsl_stats_mean(v, 1, n);
	if (n < 2)
		return;
	s->sd = gsl_stats_sd_m(v, 1, n, s->mean);
	s->half = sb_rpt_t975(n - 1) * s->sd / sqrt((double)n);
}

int sb_rpt_fit_linear(const double *x, const double *y, unsigned n, struct sb_rpt_fit *f)
{
	double cov00, cov01, cov11, sumsq, tss;
	bool distinct = false;

	*f = (struct sb_rpt_fit){.n = n, .slope_se = NAN, .r2 = NAN};
	for (unsigned i = 1; i < n; i++)
		distinct = distinct || x[i] != x[0];
	if (n < 2 || !distinct)
		return 0;
	gsl_fit_linear(x, 1, y, 1, n, &f->intercept, &f->slope, &cov00, &cov01, &cov11, &sumsq);
	if (!isfinite(f->slope) || !isfinite(f->intercept))
		return 0;
	f->ok = true;
	/* GSL estimates the variance from the residuals, sumsq / (n - 2): needs a third point */
	if (n > 2 && isfinite(cov11) && cov11 >= 0)
		f->slope_se = sqrt(cov11);
	tss = gsl_stats_tss(y, 1, n);
	if (tss > 0)
		f->r2 = 1 - sumsq / tss;
	return 1;
}
