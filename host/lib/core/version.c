/* SPDX-License-Identifier: MIT */
#include "stackbench/version.h"

const char *sb_version(void)
{
	return SB_VERSION_STRING;
}
