/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "stackbench/error.h"
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

	snprintf(buf, sizeof(buf), "%s (git %s, %s build, sanitizers %s, %s)", sb_version(),
	         sb_build_git(), sb_build_type(), sb_build_sanitizers(), sb_build_compiler());
	return buf;
}
