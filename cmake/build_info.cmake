# Writes OUT (a C header) with the source tree's `git describe`, at every build, replacing the
# file only when the text changes (so nothing rebuilds needlessly). Run by the sb_build_info
# target: cmake -DSRC=... -DOUT=... -P build_info.cmake
execute_process(COMMAND git -C "${SRC}" describe --always --dirty --tags
	OUTPUT_VARIABLE git OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR git STREQUAL "")
	set(git "unknown")
endif()
set(text "/* Generated at build time by cmake/build_info.cmake. */\n#define SB_BUILD_GIT \"${git}\"\n")
if(EXISTS "${OUT}")
	file(READ "${OUT}" old)
else()
	set(old "")
endif()
if(NOT old STREQUAL text)
	file(WRITE "${OUT}" "${text}")
endif()
