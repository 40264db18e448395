# Generate a FLIR One replay (GEN CHUNKS PREFIX VARIANT CONTROL) and run CMD under umockdev-run,
# with the usbfs tap of tests/ftdi (TAP) preloaded before umockdev: the URBs the driver sends are
# logged and its control requests checked against the reference start sequence
# (check_control.cmake)
# whenever the camera was opened (a request to the device was sent). Optional: RC (expected exit code, default 0), REGEX (the
# output must match), OPENS (with TAP; 1: the camera must have been opened; "close": opened and
# closed once, nothing else).
execute_process(COMMAND ${GEN} ${CHUNKS} ${PREFIX} ${VARIANT} ${CONTROL} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "gen_flirone_replay ${VARIANT} failed: ${rc}")
endif()
set(LOG ${PREFIX}.control.log)
file(REMOVE ${LOG})
set(tap "")
if(TAP)
	set(tap env LD_PRELOAD=${TAP}:libumockdev-preload.so.0 SB_USBFS_TAP=${LOG})
endif()
execute_process(COMMAND ${UMOCKDEV_RUN} --device ${PREFIX}.umockdev
	--ioctl /dev/bus/usb/001/005=${PREFIX}.ioctl -- ${tap} ${CMD}
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
if(EXISTS ${LOG})
	file(STRINGS ${LOG} control REGEX "^C [0-7]")
endif()
if(OPENS AND NOT control)
	message(FATAL_ERROR "the camera was not opened: no USB control request was sent")
endif()
if(control)
	if(OPENS STREQUAL "close")
		set(CLOSE 1)
	endif()
	include(${CMAKE_CURRENT_LIST_DIR}/check_control.cmake)
endif()
