/* SPDX-License-Identifier: MIT */
/* The FT232R of the replays (ft232r.h): descriptors, vendor requests, bulk IN framing, tap logs. */
#include "ft232r.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void ft232r_baud(unsigned baud, uint16_t *value, uint16_t *index)
{
	/* Divisor of the 3 MHz base clock in eighths, rounded to the nearest; the eighths are
	 * coded 0, 3, 2, 4, 1, 5, 6, 7 (AN232B-05). */
	static const uint8_t code[8] = {0, 3, 2, 4, 1, 5, 6, 7};
	uint32_t eighths = (24000000u + baud / 2) / baud;
	uint32_t enc = (eighths >> 3) | (uint32_t)code[eighths & 7] << 14;

	if (enc == 1) /* divisor 1: 3 Mbaud */
		enc = 0;
	else if (enc == 0x4001) /* divisor 1.5: 2 Mbaud */
		enc = 1;
	*value = (uint16_t)(enc & 0xFFFF);
	*index = (uint16_t)(enc >> 16);
}

static struct ft232r_setup baud_request(unsigned baud)
{
	struct ft232r_setup s = {FT232R_REQ_SET_BAUD_RATE, 0, 0};

	ft232r_baud(baud, &s.value, &s.index);
	return s;
}

size_t ft232r_open_requests(enum ft232r_driver d, struct ft232r_setup *out, size_t cap)
{
	struct ft232r_setup seq[16];
	size_t n = 0;

	/* libftdi's ftdi_usb_open_dev(): reset the port, 9600 baud. */
	seq[n++] = (struct ft232r_setup){FT232R_REQ_RESET, FT232R_RESET_PORT, FT232R_PORT};
	seq[n++] = baud_request(9600);
	/* The driver: its baud rate, 8N1, no flow control. */
	seq[n++] = baud_request(d == FT232R_RIG ? 500000 : 115200);
	seq[n++] = (struct ft232r_setup){FT232R_REQ_SET_DATA, FT232R_DATA_8N1, FT232R_PORT};
	seq[n++] = (struct ft232r_setup){FT232R_REQ_SET_FLOW_CTRL, 0, FT232R_PORT};
	if (d == FT232R_RIG) {
		/* rig_link.c: latency 2 ms, ftdi_tcioflush() (TX then RX); rig.c flushes the
		 * input once more before its first request. */
		seq[n++] = (struct ft232r_setup){FT232R_REQ_SET_LATENCY_TIMER, 2, FT232R_PORT};
		seq[n++] =
		    (struct ft232r_setup){FT232R_REQ_RESET, FT232R_RESET_PURGE_TX, FT232R_PORT};
		seq[n++] =
		    (struct ft232r_setup){FT232R_REQ_RESET, FT232R_RESET_PURGE_RX, FT232R_PORT};
		seq[n++] =
		    (struct ft232r_setup){FT232R_REQ_RESET, FT232R_RESET_PURGE_RX, FT232R_PORT};
	}
	if (n > cap)
		n = cap;
	memcpy(out, seq, n * sizeof(*out));
	return n;
}

void ft232r_setup_bytes(const struct ft232r_setup *s, uint8_t out[8])
{
	const uint8_t b[8] = {0x40,
	                      s->request,
	                      (uint8_t)(s->value & 0xFF),
	                      (uint8_t)(s->value >> 8),
	                      (uint8_t)(s->index & 0xFF),
	                      (uint8_t)(s->index >> 8),
	                      0,
	                      0};

	memcpy(out, b, sizeof(b));
}

size_t ft232r_descriptors(uint8_t *out, size_t cap, uint16_t pid)
{
	/* Device: USB 2.0, class per interface, EP0 8 bytes, bcdDevice 6.00, strings 1-3. */
	const uint8_t dev[18] = {
	    18,         1,        0x00, 0x02, 0, 0, 0, 8, FT232R_VID & 0xFF, FT232R_VID >> 8,
	    pid & 0xFF, pid >> 8, 0x00, 0x06, 1, 2, 3, 1};
	/* Configuration 1, bus powered with remote wake-up, 90 mA; interface 0 (vendor class,
	 * string 2) with bulk IN 0x81 and bulk OUT 0x02 of 64 bytes. */
	static const uint8_t cfg[32] = {9,
	                                2,
	                                32,
	                                0,
	                                1,
	                                1,
	                                0,
	                                0xA0,
	                                45,
	                                9,
	                                4,
	                                0,
	                                0,
	                                2,
	                                0xFF,
	                                0xFF,
	                                0xFF,
	                                2,
	                                7,
	                                5,
	                                FT232R_EP_IN,
	                                2,
	                                FT232R_PACKET,
	                                0,
	                                0,
	                                7,
	                                5,
	                                FT232R_EP_OUT,
	                                2,
	                                FT232R_PACKET,
	                                0,
	                                0};

	if (cap < sizeof(dev) + sizeof(cfg))
		return 0;
	memcpy(out, dev, sizeof(dev));
	memcpy(out + sizeof(dev), cfg, sizeof(cfg));
	return sizeof(dev) + sizeof(cfg);
}

void ft232r_hex(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02X", p[i]);
}

int ft232r_write_description(FILE *f, uint16_t pid, int node)
{
	uint8_t d[64];
	size_t n = ft232r_descriptors(d, sizeof(d), pid);

	fprintf(f, "P: %s\n", FT232R_SYSFS + 4);
	if (node) {
		fprintf(f, "N: bus/usb/%03d/%03d=", FT232R_BUS, FT232R_DEVNUM);
		ft232r_hex(f, d, n);
		fprintf(f, "\n");
	}
	fprintf(f,
	        "E: DEVNAME=%s\nE: DEVTYPE=usb_device\nE: DRIVER=usb\nE: PRODUCT=403/%x/600\n"
	        "E: BUSNUM=%03d\nE: DEVNUM=%03d\nE: MAJOR=189\nE: MINOR=%d\nE: SUBSYSTEM=usb\n"
	        "A: bConfigurationValue=1\nA: bNumConfigurations=1\nA: bNumInterfaces= 1\n"
	        "A: bcdDevice=0600\nA: bMaxPacketSize0=8\nA: busnum=%d\nA: devnum=%d\n"
	        "A: dev=189:%d\nA: devpath=2\nA: idVendor=%04x\nA: idProduct=%04x\n"
	        "A: manufacturer=%s\nA: product=%s\nA: serial=%s\nA: speed=12\nH: descriptors=",
	        FT232R_NODE, pid, FT232R_BUS, FT232R_DEVNUM, FT232R_DEVNUM - 1, FT232R_BUS,
	        FT232R_DEVNUM, FT232R_DEVNUM - 1, FT232R_VID, pid, FT232R_MANUFACTURER,
	        FT232R_PRODUCT, FT232R_SERIAL);
	ft232r_hex(f, d, n);
	fprintf(f, "\n");
	return ferror(f) ? -1 : 0;
}

size_t ft232r_in_transfer(uint8_t *out, size_t cap, const uint8_t *data, size_t len,
                          uint8_t modem_status)
{
	size_t n = 0;
	int last_full = 1; /* no data at all: one status packet */

	for (size_t off = 0; off < len; off += FT232R_PACKET_DATA) {
		size_t k = len - off < FT232R_PACKET_DATA ? len - off : FT232R_PACKET_DATA;

		if (n + 2 + k > cap)
			return 0;
		out[n++] = modem_status;
		out[n++] = FT232R_LINE_STATUS;
		memcpy(out + n, data + off, k);
		n += k;
		last_full = k == FT232R_PACKET_DATA;
	}
	if (last_full) {
		if (n + 2 > cap)
			return 0;
		out[n++] = modem_status;
		out[n++] = FT232R_LINE_STATUS;
	}
	return n;
}

static int unhex(const char *s, uint8_t *out, size_t cap, size_t *len)
{
	size_t n = 0;

	for (; s[0] && s[0] != '\n'; s += 2) {
		unsigned v;

		if (n == cap || sscanf(s, "%2x", &v) != 1)
			return -1;
		out[n++] = (uint8_t)v;
	}
	*len = n;
	return 0;
}

int ft232r_tap_load(const char *prefix, struct ft232r_tap_entry *out, size_t cap)
{
	char path[4096], line[1400];
	int n = 0, lineno = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s.tap", prefix);
	f = fopen(path, "r");
	if (!f && errno == ENOENT)
		return 0;
	if (!f) {
		fprintf(stderr, "cannot open the tap log '%s': %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		const char *hex = line + 2;
		unsigned ep;

		lineno++;
		if (line[0] == 'I')
			continue;
		if (line[0] == 'O') {
			if (sscanf(line + 2, "%x", &ep) != 1 || !(hex = strchr(line + 2, ' '))) {
				n = -1;
				break;
			}
			hex++;
		} else if (line[0] != 'C') {
			n = -1;
			break;
		}
		if ((size_t)n == cap) {
			fprintf(stderr, "'%s': more than %zu entries\n", path, cap);
			n = -1;
			break;
		}
		out[n].kind = line[0];
		if (unhex(hex, out[n].data, sizeof(out[n].data), &out[n].len) < 0) {
			n = -1;
			break;
		}
		n++;
	}
	if (n < 0)
		fprintf(stderr, "'%s' line %d: not a tap entry: '%.60s'\n", path, lineno, line);
	fclose(f);
	return n;
}

int ft232r_tap_expect_open(const struct ft232r_tap_entry *t, int n, int *at, enum ft232r_driver d)
{
	struct ft232r_setup s[16];
	size_t ns = ft232r_open_requests(d, s, 16);

	for (size_t i = 0; i < ns; i++, (*at)++) {
		uint8_t want[8];

		ft232r_setup_bytes(&s[i], want);
		CHECK(*at < n && t[*at].kind == 'C' && t[*at].len == 8 &&
		          !memcmp(t[*at].data, want, 8),
		      "tap entry %d: want vendor request %u (value 0x%04x, index %u)", *at,
		      s[i].request, s[i].value, s[i].index);
	}
	return 0;
}

int ft232r_check_main(int argc, char **argv, const struct ft232r_variant *v, size_t n)
{
	for (size_t i = 0; argc == 3 && i < n; i++)
		if (!strcmp(argv[1], v[i].name))
			return v[i].run(argv[2]);
	fprintf(stderr, "usage: %s ", argv[0]);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s%s", i ? "|" : "", v[i].name);
	fprintf(stderr, " PREFIX\n");
	return 2;
}
