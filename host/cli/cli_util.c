/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stackbench/campaign.h"
#include "stackbench/error.h"
#include "stackbench/instrument.h"
#include "stackbench/output.h"
#include "stackbench/util.h"
#include "stackbench/version.h"

int sb_cli_error(int err)
{
	const char *d = sb_error_detail();

	fprintf(stderr, "stackbench: %s\n", d[0] ? d : sb_strerror(err));
	switch (err) {
	case SB_ERR_URI:
	case SB_ERR_INVAL:
		return SB_EXIT_USAGE;
	case SB_ERR_PARSE:
		return SB_EXIT_INPUT;
	default:
		return SB_EXIT_FAILURE;
	}
}

int sb_cli_device_error(int err)
{
	int code = sb_cli_error(err);

	if (err == SB_ERR_PARSE)
		return SB_EXIT_INPUT;
	return code == SB_EXIT_USAGE ? code : SB_EXIT_DEVICE;
}

int sb_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "stackbench %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'stackbench %s --help'.\n", cmd);
	return SB_EXIT_USAGE;
}

const char *sb_cli_default_device(void)
{
	const char *env = getenv("STACKBENCH_DEVICE");

	return env && *env ? env : "sim:";
}

const char *sb_cli_build_facts(void)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s (git %s, %s build, sanitizers %s, %s, flags %s)",
	         sb_version(), sb_build_git(), sb_build_type(), sb_build_sanitizers(),
	         sb_build_compiler(), sb_build_cflags());
	return buf;
}

int sb_cli_campaign_error(int err, const struct sb_run_summary *sum)
{
	sb_cli_error(err);
	if (sum->check_failed || err == SB_ERR_URI || err == SB_ERR_PARSE ||
	    (sum->open_failed && err == SB_ERR_INVAL))
		return SB_EXIT_INPUT;
	if (sum->open_failed)
		return SB_EXIT_DEVICE;
	/* before anything opened: the command line (--jobs against the file's devices) */
	if (err == SB_ERR_INVAL && !sum->run && !sum->campaign_id)
		return SB_EXIT_USAGE;
	return SB_EXIT_FAILURE;
}

const char *sb_cli_shell_quote(char *buf, size_t size, const char *s)
{
	size_t n = 0;
	bool plain = *s != '\0';

	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("/._-+=:,@%", *p))
			plain = false;
	if (plain) {
		snprintf(buf, size, "%s", s);
		return buf;
	}
	if (size < 3)
		return "''";
	buf[n++] = '\'';
	for (; *s && n + 5 < size; s++) {
		if (*s == '\'') {
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else {
			buf[n++] = *s;
		}
	}
	buf[n++] = '\'';
	buf[n] = '\0';
	return buf;
}

const char *sb_cli_fmt_ns(char *buf, size_t size, double ns)
{
	static const struct {
		double ns;
		const char *unit;
	} units[] = {{3600e9, "h"}, {60e9, "min"}, {1e9, "s"}, {1e6, "ms"}, {1e3, "us"}};

	if (ns >= 3600e9) {
		double m = floor(ns / 60e9 + 0.5);

		snprintf(buf, size, "%.0f h %.0f min", floor(m / 60), fmod(m, 60));
		return buf;
	}
	for (size_t i = 1; i < sizeof(units) / sizeof(units[0]); i++)
		if (ns >= units[i].ns) {
			snprintf(buf, size, "%.4g %s", ns / units[i].ns, units[i].unit);
			return buf;
		}
	snprintf(buf, size, "%.4g ns", ns);
	return buf;
}

int sb_cli_store_error(int err)
{
	sb_cli_error(err);
	return err == SB_ERR_NOT_FOUND || err == SB_ERR_DB || err == SB_ERR_VERSION
	           ? SB_EXIT_INPUT
	           : SB_EXIT_FAILURE;
}

int sb_cli_check_outputs(const char *const *outs, size_t nouts, char *const *inputs, int ninputs,
                         const char *const *extra, size_t nextra)
{
	enum { MAX = 128 };
	const char *ins[MAX];
	size_t nin = 0;
	int err;

	for (int i = 0; i < ninputs && nin < MAX; i++)
		ins[nin++] = inputs[i];
	for (size_t i = 0; i < nextra && nin < MAX; i++)
		ins[nin++] = extra[i];
	for (size_t i = 0; i < nouts; i++) {
		if (!outs[i])
			continue;
		if ((err = sb_output_check_inputs(outs[i], ins, nin)) < 0)
			return sb_cli_error(err);
		if (nin < MAX)
			ins[nin++] = outs[i];
	}
	return 0;
}

int sb_cli_write_json(const char *path, const char *text)
{
	size_t len = strlen(text);
	char *buf;
	int err;

	if (!strcmp(path, "-")) {
		printf("%s\n", text);
		return 0;
	}
	if (!(buf = malloc(len + 1)))
		return sb_cli_error(sb_error_set(SB_ERR_NOMEM, "out of memory"));
	memcpy(buf, text, len);
	buf[len] = '\n';
	err = sb_write_file_atomic(path, buf, len + 1);
	free(buf);
	return err < 0 ? sb_cli_error(err) : 0;
}

void sb_cli_schemes_help(FILE *out)
{
	static const struct {
		const char *option;
		enum sb_instrument_kind kind;
	} roles[] = {{"--camera", SB_INSTRUMENT_TEMPERATURE},
	             {"--meter", SB_INSTRUMENT_POWER},
	             {"--rig", SB_INSTRUMENT_COOLING}};

	fprintf(out,
	        "\nConnection strings, by role (docs/instruments.md gives each one's form and\n"
	        "options; 'stackbench instruments' lists what is attached):\n");
	for (size_t r = 0; r < sizeof(roles) / sizeof(roles[0]); r++) {
		const char *scheme, *what;

		for (unsigned i = 0; (scheme = sb_instrument_scheme(roles[r].kind, i, &what));
		     i++) {
			char s[24];

			snprintf(s, sizeof(s), "%s:", scheme);
			fprintf(out, "  %-9s %-9s %s\n", i ? "" : roles[r].option, s, what);
		}
	}
}
