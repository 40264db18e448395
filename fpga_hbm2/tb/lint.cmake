# verilator --lint-only -Wall on every module of fpga_hbm2/rtl (each as its own top); any
# warning fails. Waivers live in the RTL as scoped lint_off comments.
#   -DVERILATOR=... -DRTL_DIR=... -DSHARED_DIR=... -DGEN_DIR=...
file(GLOB sources ${RTL_DIR}/*.sv)
set(failed "")
foreach(src ${sources})
	get_filename_component(top ${src} NAME_WE)
	execute_process(
		COMMAND ${VERILATOR} --lint-only -Wall -I${RTL_DIR} -I${SHARED_DIR} -I${GEN_DIR}
			-y ${RTL_DIR} -y ${SHARED_DIR} +libext+.sv --top-module ${top} ${src}
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
