# regmapgen must fail on INPUT with a message containing EXPECT.
execute_process(COMMAND ${GEN} ${INPUT} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(rc EQUAL 0)
	message(FATAL_ERROR "regmapgen accepted ${INPUT}")
endif()
string(FIND "${err}" "${EXPECT}" pos)
if(pos EQUAL -1)
	message(FATAL_ERROR "expected '${EXPECT}' in: ${err}")
endif()
