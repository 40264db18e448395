/* SPDX-License-Identifier: MIT */
/*
 * The report's statistics against cases computed by hand: Student's t quantiles, the mean of a
 * point's runs with its 95 % confidence interval, least-squares lines with the standard error
 * of the slope and R², and the degenerate cases (one run, two points, one x, flat y). Then the
 * parsers of the format and size options.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "report_int.h"
#include "stackbench/error.h"
#include "stackbench/report.h"

/* Relative closeness. */
static bool near(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fmax(fabs(a), fabs(b));
}

Test(report_stats, t_quantiles_are_the_tables)
{
	/* 97.5 % quantiles of Student's t (any statistics table) */
	static const struct {
		unsigned dof;
		double t;
	} table[] = {{1, 12.706204736},
	             {2, 4.302652730},
	             {4, 2.776445105},
	             {9, 2.262157163},
	             {29, 2.045229642}};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		cr_assert(near(sb_rpt_t975(table[i].dof), table[i].t, 1e-9), "dof %u: %.12g",
		          table[i].dof, sb_rpt_t975(table[i].dof));
	cr_assert(isnan(sb_rpt_t975(0)));
}

Test(report_stats, mean_and_interval_of_three_runs)
{
	/* 10, 12, 14: mean 12, s = sqrt((4 + 0 + 4) / 2) = 2, half-width t(2) * 2 / sqrt(3) */
	const double v[] = {10, 12, 14};
	struct sb_rpt_summary s;

	sb_rpt_summarize(v, 3, &s);
	cr_assert_eq(s.n, 3);
	cr_assert(near(s.mean, 12, 1e-15));
	cr_assert(near(s.sd, 2, 1e-15));
	cr_assert(near(s.half, 4.302652730 * 2 / sqrt(3), 1e-9), "%.12g", s.half);
	cr_assert(near(s.half, 4.968275, 1e-6));
}

Test(report_stats, one_run_has_no_interval)
{
	const double v[] = {7.5};
	struct sb_rpt_summary s;

	sb_rpt_summarize(v, 1, &s);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(s.mean, 7.5);
	cr_assert(isnan(s.sd) && isnan(s.half));
	/* identical runs: an interval of zero width */
	sb_rpt_summarize((const double[]){3, 3, 3, 3}, 4, &s);
	cr_assert_eq(s.half, 0);
}

Test(report_stats, least_squares_line)
{
	/*
	 * x 1..5, y 2.1 3.9 6.2 7.8 10.1: mean x 3, mean y 6.02, Sxx = 10,
	 * Sxy = (-2)(-3.92) + (-1)(-2.12) + 0 + (1)(1.78) + (2)(4.08) = 19.9, so slope 1.99 and
	 * intercept 6.02 - 3 * 1.99 = 0.05; residuals 0.06 -0.13 0.18 -0.21 0.10, SSE = 0.107,
	 * s^2 = 0.107 / 3, standard error of the slope sqrt(s^2 / Sxx) = 0.0597216; SST = 39.708,
	 * R^2 = 1 - 0.107 / 39.708.
	 */
	const double x[] = {1, 2, 3, 4, 5}, y[] = {2.1, 3.9, 6.2, 7.8, 10.1};
	struct sb_rpt_fit f;

	cr_assert_eq(sb_rpt_fit_linear(x, y, 5, &f), 1);
	cr_assert(f.ok);
	cr_assert_eq(f.n, 5);
	cr_assert(near(f.slope, 1.99, 1e-12), "%.15g", f.slope);
	cr_assert(near(f.intercept, 0.05, 1e-9), "%.15g", f.intercept);
	cr_assert(near(f.slope_se, sqrt(0.107 / 3 / 10), 1e-9), "%.15g", f.slope_se);
	cr_assert(near(f.slope_se, 0.0597216, 1e-6));
	cr_assert(near(f.r2, 1 - 0.107 / 39.708, 1e-9), "%.15g", f.r2);
}

Test(report_stats, degenerate_fits)
{
	struct sb_rpt_fit f;

	/* two points: a line, but no error estimate (no degree of freedom left) */
	cr_assert_eq(sb_rpt_fit_linear((const double[]){0, 2}, (const double[]){1, 5}, 2, &f), 1);
	cr_assert(near(f.slope, 2, 1e-15) && near(f.intercept, 1, 1e-15));
	cr_assert(isnan(f.slope_se));
	cr_assert(near(f.r2, 1, 1e-15));
	/* one x value: no line */
	cr_assert_eq(sb_rpt_fit_linear((const double[]){3, 3, 3}, (const double[]){1, 2, 3}, 3, &f),
	             0);
	cr_assert(!f.ok);
	cr_assert_eq(sb_rpt_fit_linear((const double[]){1}, (const double[]){1}, 1, &f), 0);
	/* flat y: slope 0, no R² (nothing to explain) */
	cr_assert_eq(sb_rpt_fit_linear((const double[]){1, 2, 3}, (const double[]){4, 4, 4}, 3, &f),
	             1);
	cr_assert_eq(f.slope, 0);
	cr_assert_eq(f.slope_se, 0);
	cr_assert(isnan(f.r2));
}

Test(report_stats, fit_text)
{
	const struct sb_rpt_figure_def d = {.unit = "W per GB/s", .span = 16, .span_unit = "W"};
	struct sb_rpt_fit f = {.n = 5, .ok = true, .slope = 0.0469, .slope_se = 0.0021, .r2 = 0.99};
	char text[160];

	sb_rpt_fit_text(&d, &f, true, text, sizeof(text));
	cr_assert_str_eq(text, "+0.047 ± 0.002 W per GB/s (+0.75 W per 16 GB/s), R² = 0.990");
	f.slope_se = NAN;
	sb_rpt_fit_text(&d, &f, false, text, sizeof(text));
	cr_assert_str_eq(text, "+0.047 (+0.75 W per 16 GB/s), R² = 0.990");
}

Test(report_stats, format_and_size_options)
{
	unsigned fm;
	double w, h;

	cr_assert_eq(sb_report_formats_parse("png,svg,pdf,eps", &fm), 0);
	cr_assert_eq(fm, SB_REPORT_PNG | SB_REPORT_SVG | SB_REPORT_PDF | SB_REPORT_EPS);
	cr_assert_eq(sb_report_formats_parse("pdf", &fm), 0);
	cr_assert_eq(fm, SB_REPORT_PDF);
	cr_assert_eq(sb_report_formats_parse("png,jpg", &fm), SB_ERR_INVAL);
	cr_assert(strstr(sb_error_detail(), "unknown figure format 'jpg' in 'png,jpg'"), "%s",
	          sb_error_detail());
	cr_assert_eq(sb_report_formats_parse("", &fm), SB_ERR_INVAL);
	cr_assert_eq(sb_report_size_parse("single", &w, &h), 0);
	cr_assert(w == 3.5 && h == 0);
	cr_assert_eq(sb_report_size_parse("double", &w, &h), 0);
	cr_assert(w == 7.16 && h == 0);
	cr_assert_eq(sb_report_size_parse("5x3.2", &w, &h), 0);
	cr_assert(w == 5 && h == 3.2);
	cr_assert_eq(sb_report_size_parse("5x0", &w, &h), 0);
	cr_assert(w == 5 && h == 0);
	cr_assert_eq(sb_report_size_parse("0x3", &w, &h), SB_ERR_INVAL);
	cr_assert_eq(sb_report_size_parse("5", &w, &h), SB_ERR_INVAL);
	cr_assert_eq(sb_report_size_parse("axb", &w, &h), SB_ERR_INVAL);
}
