# Fail when a committed generated register-map file differs from what the build generates.
set(stale "")
foreach(pair "sb_regmap.h;fpga_gups/generated/sb_regmap.h"
	     "sb_regmap_table.c;fpga_gups/generated/sb_regmap_table.c"
	     "sb_regmap.vh;fpga_gups/generated/sb_regmap.vh"
	     "regmap.md;docs/regmap.md")
	list(GET pair 0 gen)
	list(GET pair 1 committed)
	execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${GEN_DIR}/${gen} ${SRC_DIR}/${committed}
		RESULT_VARIABLE rc)
	if(NOT rc EQUAL 0)
		list(APPEND stale ${committed})
	endif()
endforeach()
if(stale)
	message(FATAL_ERROR "stale generated files: ${stale}\n"
		"regmap.yaml changed; run: cmake --build build --target regmap-update, and commit")
endif()
message(STATUS "generated register-map files are up to date")
