# Run a golden-vector generator, then the testbench on its output (CTest driver).
#   -DGEN=generator -DGEN_ARGS=... -DTB=testbench -DOUT=vector file -DTB_ARGS=...
execute_process(COMMAND ${GEN} ${GEN_ARGS} OUTPUT_FILE ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "golden-vector generator ${GEN} failed: ${rc}")
endif()
execute_process(COMMAND ${TB} ${OUT} ${TB_ARGS} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "${TB} failed: ${rc}")
endif()
