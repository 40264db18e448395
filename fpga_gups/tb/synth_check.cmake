# Run yosys on the top and check its result (CTest driver of the `synth` target's script).
#   -DYOSYS=... -DSCRIPT=... -DSTAT=... -DLOG=... [-DCELLS=A,B,...] [-DEXPECT=REGEX -DEXPECT_WHY=...]
# CELLS: cell types the design must have (default FDRE,LUT6,RAMB: flip-flops, LUTs and block RAM
# for the trace buffer); EXPECT: a line the statistics must have (fpga_hbm2/tb uses both).
execute_process(COMMAND ${YOSYS} -q -l ${LOG} -s ${SCRIPT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "yosys failed (${rc}); see ${LOG}")
endif()
file(READ ${STAT} stat)
message("${stat}")
# A synthesized design with those cells, and no latches.
if(NOT CELLS)
	set(CELLS FDRE,LUT6,RAMB)
endif()
string(REPLACE "," ";" CELLS "${CELLS}")
foreach(cell ${CELLS})
	if(NOT stat MATCHES "${cell}")
		message(FATAL_ERROR "no ${cell} cells in the synthesized design")
	endif()
endforeach()
if(stat MATCHES "LDCE|LDPE|DLATCH")
	message(FATAL_ERROR "the synthesized design has latches")
endif()
if(EXPECT AND NOT stat MATCHES "${EXPECT}")
	message(FATAL_ERROR "the synthesized design does not have ${EXPECT_WHY}")
endif()
