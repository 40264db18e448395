# verilator --lint-only -Wall on every module of fpga_gups/rtl (each as its own top) and on
# the design top; any warning fails. Waivers live in the RTL as scoped lint_off comments.
# fpga_hbm2/tb lints its design with it, SHARED_DIR naming the modules it shares (this folder's).
#   -DVERILATOR=... -DRTL_DIR=... -DGEN_DIR=... [-DSHARED_DIR=...]
file(GLOB sources ${RTL_DIR}/*.sv)
set(shared "")
if(SHARED_DIR)
	set(shared -I${SHARED_DIR} -y ${SHARED_DIR})
endif()
set(failed "")
foreach(src ${sources})
	get_filename_component(top ${src} NAME_WE)
	execute_process(
		COMMAND ${VERILATOR} --lint-only -Wall -I${RTL_DIR} -I${GEN_DIR} -y ${RTL_DIR} ${shared}
			+libext+.sv --top-module ${top} ${src}
		RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
	if(NOT rc EQUAL 0)
		message("${out}")
		list(APPEND failed ${top})
	else()
		message("lint clean: ${top}")
	endif()
endforeach()
if(failed)
	message(FATAL_ERROR "verilator lint failed: ${failed}")
endif()
