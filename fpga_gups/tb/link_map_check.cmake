# The port-to-link mapping's parameters of sb_gups_top (sb_link_map.vh) at elaboration:
# legal combinations other than the default lint clean (verilator --lint-only -Wall), illegal
# ones stop elaboration with their own message.
#   -DVERILATOR=... -DRTL_DIR=... -DGEN_DIR=...
set(failed "")
function(elab params expect)
	string(REPLACE " " ";" args "${params}")
	execute_process(
		COMMAND ${VERILATOR} --lint-only -Wall -I${RTL_DIR} -I${GEN_DIR} -y ${RTL_DIR}
			+libext+.sv --top-module sb_gups_top ${args} ${RTL_DIR}/sb_gups_top.sv
		RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
	if(expect STREQUAL "clean")
		if(NOT rc EQUAL 0 OR NOT out STREQUAL "")
			message("${out}")
			message("FAIL ${params}: expected a clean lint")
			set(failed "${failed} [${params}]" PARENT_SCOPE)
			return()
		endif()
	elseif(rc EQUAL 0 OR NOT out MATCHES "${expect}")
		message("${out}")
		message("FAIL ${params}: expected an elaboration error matching '${expect}'")
		set(failed "${failed} [${params}]" PARENT_SCOPE)
		return()
	endif()
	message("ok ${params}: ${expect}")
endfunction()

# Every port on a user port of its own; three links of four user ports, GUPS from user port 3.
elab("-GLINKS=9 -GPORTS_PER_LINK=1 -GFIRST_PORT=0" clean)
elab("-GLINKS=3 -GPORTS_PER_LINK=4 -GFIRST_PORT=3" clean)
elab("-GPORTS_PER_LINK=0" "link map: PORTS_PER_LINK \\(0\\) must be 1..16")
elab("-GFIRST_PORT=5" "link map: FIRST_PORT \\(5\\) must be 0..PORTS_PER_LINK-1 \\(4\\)")
elab("-GFIRST_PORT=2" "link map: FIRST_PORT \\+ N \\(11\\) exceed the PORTS_PER_LINK x LINKS \\(10\\)")
elab("-GLINKS=3" "link map: link 2 has no GUPS port")
if(failed)
	message(FATAL_ERROR "link map elaboration checks failed:${failed}")
endif()
