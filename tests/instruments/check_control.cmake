# The USB control requests a driver sent to the device (LOG, the usbfs tap of tests/ftdi: a line
# "C SETUP" per control URB, the setup packet in hex; requests that read from the device, such
# as libusb's string descriptors when a camera is only listed, are not the start sequence's)
# against the reference start sequence (CONTROL,
# tests/data/flirone-gen3/control.txt: bmRequestType bRequest wValue wIndex a line): the log's
# control requests start with it, request for request. With CLOSE they are that and the stop
# sequence (interface 2, then 1) and nothing else: one open, one close.
# Included by run_replay.cmake; run alone (cmake -DLOG= -DCONTROL= -P) by its own test.
set(h "[0-9a-fA-F]")
file(STRINGS ${CONTROL} lines REGEX "^${h}${h} ")
if(CLOSE)
	list(APPEND lines "01 0b 0000 0002" "01 0b 0000 0001")
endif()
# each as the tap writes a setup packet: type, request, value and index little-endian
set(want "")
foreach(l ${lines})
	if(NOT l MATCHES "^(${h}${h}) (${h}${h}) (${h}${h})(${h}${h}) (${h}${h})(${h}${h})")
		message(FATAL_ERROR "${CONTROL}: bad line '${l}'")
	endif()
	string(TOUPPER "C ${CMAKE_MATCH_1}${CMAKE_MATCH_2}${CMAKE_MATCH_4}${CMAKE_MATCH_3}${CMAKE_MATCH_6}${CMAKE_MATCH_5}" w)
	list(APPEND want "${w}")
endforeach()
set(got "")
if(EXISTS ${LOG})
	file(STRINGS ${LOG} got REGEX "^C [0-7]")
endif()
list(LENGTH want nwant)
list(LENGTH got ngot)
if(CLOSE AND NOT ngot EQUAL nwant)
	message(FATAL_ERROR "USB control requests: ${ngot} sent, ${nwant} expected (the reference "
		"start sequence, then stop 2, stop 1):\n${got}")
elseif(ngot LESS nwant)
	message(FATAL_ERROR "USB control requests: ${ngot} sent, the reference start sequence has "
		"${nwant}:\n${got}")
endif()
math(EXPR last "${nwant} - 1")
foreach(i RANGE ${last})
	list(GET want ${i} w)
	list(GET got ${i} g)
	string(LENGTH "${w}" n)
	string(SUBSTRING "${g}" 0 ${n} g)
	if(NOT g STREQUAL w)
		message(FATAL_ERROR "USB control request ${i}: sent '${g}', the reference sequence "
			"has '${w}' (C, then bmRequestType bRequest wValue wIndex as a setup packet); "
			"sent:\n${got}")
	endif()
endforeach()
message("USB control requests: the reference start sequence (${ngot} requests sent)")
