# Generate an FT232R replay (GEN DRIVER VARIANT PREFIX) and run CHECK VARIANT PREFIX under
# umockdev-run, with the usbfs wire tap (TAP) loaded before umockdev's preload library so that it
# sees every URB the program submits; the tap log is PREFIX.tap. The generator writes a usbdevfs
# recording (PREFIX.ioctl, replayed on the device node NODE) or a usbmon capture (PREFIX.pcap,
# replayed on the device at SYSFS).
file(REMOVE ${PREFIX}.tap ${PREFIX}.ioctl ${PREFIX}.pcap)
execute_process(COMMAND ${GEN} ${DRIVER} ${VARIANT} ${PREFIX} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "gen_ft232r_replay ${DRIVER} ${VARIANT} failed: ${rc}")
endif()
if(EXISTS ${PREFIX}.pcap)
	set(replay --pcap ${SYSFS}=${PREFIX}.pcap)
else()
	set(replay --ioctl ${NODE}=${PREFIX}.ioctl)
endif()
execute_process(COMMAND ${UMOCKDEV_RUN} --device ${PREFIX}.umockdev ${replay} --
	env LD_PRELOAD=${TAP}:libumockdev-preload.so.0 SB_USBFS_TAP=${PREFIX}.tap
	${CHECK} ${VARIANT} ${PREFIX}
	RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "${CHECK} ${VARIANT}: exit code ${rc}")
endif()
