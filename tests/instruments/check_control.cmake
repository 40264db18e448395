# The USB control requests a driver sent (LOG, written by usb_control_log.c) against the
# reference start sequence (CONTROL, tests/data/flirone-gen3/control.txt): the log starts with
# it, request for request (bmRequestType bRequest wValue wIndex). With CLOSE, the log is that
# and the stop sequence (interface 2, then 1) and nothing else: one open, one close.
# Included by run_replay.cmake; run alone (cmake -DLOG= -DCONTROL= -P) by its own test.
file(STRINGS ${CONTROL} want REGEX "^[0-9a-fA-F][0-9a-fA-F] ")
if(EXISTS ${LOG})
	file(STRINGS ${LOG} got)
else()
	set(got "")
endif()
list(LENGTH want nwant)
list(LENGTH got ngot)
if(CLOSE)
	list(APPEND want "01 0b 0000 0002" "01 0b 0000 0001")
	list(LENGTH want nwant)
	if(NOT ngot EQUAL nwant)
		message(FATAL_ERROR "USB control requests: ${ngot} sent, ${nwant} expected (the "
			"reference start sequence, then stop 2, stop 1):\n${got}")
	endif()
elseif(ngot LESS nwant)
	message(FATAL_ERROR "USB control requests: ${ngot} sent before the frames, the reference "
		"start sequence has ${nwant}:\n${got}")
endif()
math(EXPR last "${nwant} - 1")
foreach(i RANGE ${last})
	list(GET want ${i} w)
	list(GET got ${i} g)
	string(SUBSTRING "${w}" 0 15 w)
	string(SUBSTRING "${g}" 0 15 g)
	string(TOLOWER "${w}" w)
	if(NOT g STREQUAL w)
		message(FATAL_ERROR "USB control request ${i}: sent '${g}', the reference sequence "
			"has '${w}' (bmRequestType bRequest wValue wIndex); sent:\n${got}")
	endif()
endforeach()
message("USB control requests: the reference start sequence (${ngot} requests sent)")
