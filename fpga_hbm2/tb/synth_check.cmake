# Run yosys on sb_hbm_top and check its result (CTest driver of the hbm_synth target's script).
#   -DYOSYS=... -DSCRIPT=... -DSTAT=... -DLOG=...
execute_process(COMMAND ${YOSYS} -q -l ${LOG} -s ${SCRIPT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "yosys failed (${rc}); see ${LOG}")
endif()
file(READ ${STAT} stat)
message("${stat}")
# A synthesized design: flip-flops, LUTs, the per-ID tables in distributed RAM, no latches, and
# the 32 engines (one module, instantiated 32 times).
foreach(cell FDRE LUT6 RAM)
	if(NOT stat MATCHES "${cell}")
		message(FATAL_ERROR "no ${cell} cells in the synthesized design")
	endif()
endforeach()
if(stat MATCHES "LDCE|LDPE|DLATCH")
	message(FATAL_ERROR "the synthesized design has latches")
endif()
if(NOT stat MATCHES "sb_hbm_port +32")
	message(FATAL_ERROR "the design does not have 32 sb_hbm_port instances")
endif()
