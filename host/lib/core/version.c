/* SPDX-License-Identifier: MIT */
#include "stackbench/version.h"
#include "stackbench/build_info.h"

const char *sb_version(void)
{
	return SB_VERSION_STRING;
}

const char *sb_build_git(void)
{
	return SB_BUILD_GIT;
}

const char *sb_build_type(void)
{
	return SB_BUILD_TYPE[0] ? SB_BUILD_TYPE : "default";
}

const char *sb_build_sanitizers(void)
{
	return SB_BUILD_SANITIZERS;
}

const char *sb_build_compiler(void)
{
#if defined(__clang__)
	return "clang " __clang_version__;
#elif defined(__GNUC__)
	return "gcc " __VERSION__;
#else
	return "unknown";
#endif
}

const char *sb_build_cflags(void)
{
	return SB_BUILD_CFLAGS;
}
