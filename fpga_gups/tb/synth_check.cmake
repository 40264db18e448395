# Run yosys on the top and check its result (CTest driver of the `synth` target's script).
#   -DYOSYS=... -DSCRIPT=... -DSTAT=... -DLOG=...
execute_process(COMMAND ${YOSYS} -q -l ${LOG} -s ${SCRIPT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "yosys failed (${rc}); see ${LOG}")
endif()
file(READ ${STAT} stat)
message("${stat}")
# A synthesized design: flip-flops, LUTs and block RAM for the trace buffer, and no latches.
foreach(cell FDRE LUT6 RAMB)
	if(NOT stat MATCHES "${cell}")
		message(FATAL_ERROR "no ${cell} cells in the synthesized design")
	endif()
endforeach()
if(stat MATCHES "LDCE|LDPE|DLATCH")
	message(FATAL_ERROR "the synthesized design has latches")
endif()
