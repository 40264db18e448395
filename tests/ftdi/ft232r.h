/* SPDX-License-Identifier: MIT */
/*
 * The FT232R USB-serial bridge as the replays present it and as libftdi 1.5 drives it: what the
 * generator (gen_ft232r_replay.c) writes and what the checks expect, in one place.
 *
 * Facts (FTDI FT232R datasheet; FTDI AN232B-04 "Data Throughput, Latency and Handshaking";
 * FTDI AN232B-05 "Configuring FT232R, FT2232 and FT232B Baud Rates"; libftdi 1.5 src/ftdi.c):
 *  - USB 0403:6001, bcdDevice 0x0600, full speed, one configuration, one vendor-specific
 *    interface with bulk IN 0x81 and bulk OUT 0x02 of 64 bytes.
 *  - The chip is set up with vendor requests (bmRequestType 0x40, no data stage): RESET (0;
 *    value 0 resets the port, 1 purges the TX FIFO, 2 the RX FIFO), SET_FLOW_CTRL (2),
 *    SET_BAUD_RATE (3), SET_DATA (4: bits, parity << 8, stop bits << 11, break << 14),
 *    SET_LATENCY_TIMER (9); wIndex names the port (1 on a one-port chip; SET_FLOW_CTRL ORs the
 *    flow-control mode into it).
 *  - The baud rate is 3 MHz / divisor, the divisor an integer plus eighths; wValue holds the
 *    integer part (14 bits) and the eighths coded 0, 3, 2, 4, 1, 5, 6, 7 in bits 14-15, the
 *    code's third bit in wIndex bit 0.
 *  - Every bulk IN packet starts with two status bytes (modem status, line status) and carries
 *    at most 62 bytes of data; with nothing to send the chip answers a 2-byte packet when its
 *    latency timer expires. A transfer ends with a short packet.
 *  - libftdi 1.5: opening sends RESET (port) and 9600 baud; ftdi_tcoflush / ftdi_tciflush send
 *    RESET with 1 / 2; every bulk IN transfer asks for 4096 bytes (readbuffer_chunksize);
 *    ftdi_read_data() reads transfers until one carries no data and strips the status bytes of
 *    every 64-byte packet.
 */
#ifndef SB_TEST_FT232R_H
#define SB_TEST_FT232R_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FT232R_VID 0x0403
#define FT232R_PID 0x6001
#define FT232R_BUS 1
#define FT232R_DEVNUM 7
#define FT232R_NODE "/dev/bus/usb/001/007"
#define FT232R_SYSFS "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-2"
#define FT232R_MANUFACTURER "FTDI"
#define FT232R_PRODUCT "FT232R USB UART"
#define FT232R_SERIAL "SBREPLY1"

#define FT232R_EP_IN 0x81
#define FT232R_EP_OUT 0x02
#define FT232R_PACKET 64
#define FT232R_PACKET_DATA (FT232R_PACKET - 2)
#define FT232R_READ_URB 4096 /* libftdi's readbuffer_chunksize */
#define FT232R_PORT 1        /* wIndex of interface A */

/* The two status bytes of an idle FT232R: no modem line asserted (bit 0 is always set), and
 * the transmitter empty (THRE | TEMT). */
#define FT232R_MODEM_STATUS 0x01
#define FT232R_LINE_STATUS 0x60

/* Vendor requests. */
enum ft232r_request {
	FT232R_REQ_RESET = 0x00,
	FT232R_REQ_SET_FLOW_CTRL = 0x02,
	FT232R_REQ_SET_BAUD_RATE = 0x03,
	FT232R_REQ_SET_DATA = 0x04,
	FT232R_REQ_SET_LATENCY_TIMER = 0x09,
};
#define FT232R_RESET_PORT 0
#define FT232R_RESET_PURGE_TX 1 /* libftdi's ftdi_tcoflush() */
#define FT232R_RESET_PURGE_RX 2 /* libftdi's ftdi_tciflush() */
#define FT232R_DATA_8N1 0x0008

struct ft232r_setup {
	uint8_t request;
	uint16_t value, index;
};

/* The drivers whose traffic the replays carry. */
enum ft232r_driver {
	FT232R_WATTSUP, /* wattsup:ftdi (thermal/wattsup.c): 115200 8N1, no flow control */
	FT232R_RIG,     /* rig:ftdi (thermal/rig_link.c, rig.c): 500000 8N1, latency 2 ms, flush */
};

/* wValue / wIndex of SET_BAUD_RATE for a baud rate (AN232B-05). */
void ft232r_baud(unsigned baud, uint16_t *value, uint16_t *index);

/* The vendor requests the driver makes, in order, from opening the adapter to its first byte
 * (libftdi's own and the driver's); returns how many (at most cap). */
size_t ft232r_open_requests(enum ft232r_driver d, struct ft232r_setup *out, size_t cap);

/* The 8-byte setup packet of a vendor request. */
void ft232r_setup_bytes(const struct ft232r_setup *s, uint8_t out[8]);

/* Device and configuration descriptors (returns their length; cap >= 64). */
size_t ft232r_descriptors(uint8_t *out, size_t cap, uint16_t pid);

/* A umockdev device description of the FT232R (pid: 0x6001, or another to leave the bus
 * without one; node: whether its /dev/bus/usb node exists, else libusb cannot open it, as
 * without permission). 0 or -1. */
int ft232r_write_description(FILE *f, uint16_t pid, int node);

void ft232r_hex(FILE *f, const uint8_t *p, size_t n);

/*
 * The bulk IN transfer that carries data (1..FT232R_READ_URB - 2 * 64 bytes) as the chip sends
 * it: 62-byte pieces, each after the two status bytes, and a 2-byte packet after a last full
 * one (a transfer ends with a short packet). Returns the transfer's length.
 */
size_t ft232r_in_transfer(uint8_t *out, size_t cap, const uint8_t *data, size_t len,
                          uint8_t modem_status);

/* ---- the wire tap (usbfs_tap.c) ---------------------------------------------------------- */

/*
 * usbfs_tap.c logs every URB a program submits, one line each, to the file $SB_USBFS_TAP:
 *   C <setup and OUT data, hex>   a control transfer
 *   O <endpoint> <data, hex>      a bulk or interrupt OUT transfer
 *   I <endpoint> <length>         an IN transfer
 */
#define FT232R_TAP_ENV "SB_USBFS_TAP"

/* What a tap log holds, without the IN transfers: the control setups and the OUT data, in
 * order. */
struct ft232r_tap_entry {
	char kind; /* 'C' or 'O' */
	uint8_t data[256];
	size_t len;
};

/* Read the tap log PREFIX.tap; returns the number of entries (at most cap; 0 when there is no
 * log: nothing was submitted) or -1 (message on stderr). */
int ft232r_tap_load(const char *prefix, struct ft232r_tap_entry *out, size_t cap);

/* 0 when entries *at.. are the vendor requests of the driver's open, in order (advances *at
 * past them), else 1 with a message on stderr. */
int ft232r_tap_expect_open(const struct ft232r_tap_entry *t, int n, int *at, enum ft232r_driver d);

/* ---- the checks ---------------------------------------------------------------------------- */

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "FAIL: " __VA_ARGS__);                                     \
			fputc('\n', stderr);                                                       \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

/* A check program's variants: "PROGRAM VARIANT PREFIX" runs the one named. */
struct ft232r_variant {
	const char *name;
	int (*run)(const char *prefix);
};

int ft232r_check_main(int argc, char **argv, const struct ft232r_variant *v, size_t n);

#endif /* SB_TEST_FT232R_H */
