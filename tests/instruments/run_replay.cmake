# Generate a FLIR One replay (GEN CHUNKS PREFIX VARIANT) and run CMD under umockdev-run.
# Optional: RC (expected exit code, default 0) and REGEX (the output must match).
execute_process(COMMAND ${GEN} ${CHUNKS} ${PREFIX} ${VARIANT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "gen_flirone_replay ${VARIANT} failed: ${rc}")
endif()
execute_process(COMMAND ${UMOCKDEV_RUN} --device ${PREFIX}.umockdev
	--ioctl /dev/bus/usb/001/005=${PREFIX}.ioctl -- ${CMD}
	RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT DEFINED RC)
	set(RC 0)
endif()
if(NOT rc EQUAL RC)
	message(FATAL_ERROR "exit code ${rc}, expected ${RC}")
endif()
if(REGEX AND NOT "${out}${err}" MATCHES "${REGEX}")
	message(FATAL_ERROR "output does not match '${REGEX}'")
endif()
