/* SPDX-License-Identifier: MIT */
/*
 * Build a umockdev replay of an FT232R (ft232r.h) carrying a Watts up? PRO or the cooling-rig
 * controller: the device description (PREFIX.umockdev: the sysfs attributes and descriptors of
 * a 0403:6001) and the usbdevfs ioctl recording (PREFIX.ioctl) of what the chip does when the
 * driver opens it through libftdi: the vendor requests libftdi 1.5 and the driver send, the bulk
 * OUT transfers of what the driver writes, and bulk IN transfers of the instrument's bytes as the
 * chip delivers them (62-byte pieces after its two status bytes, a 2-byte packet whenever it has
 * nothing to send).
 *
 *   gen_ft232r_replay wattsup ok|disconnect|absent|noopen|refuse|list PREFIX
 *   gen_ft232r_replay rig ok|absent|noopen|refuse|serial|wrongserial PREFIX
 *
 * wattsup ok          logging started, five records in seven transfers (one record split over
 *                     two reads, one after a partial record, one behind a malformed record and
 *                     noise, one with CTS and DSR up), then the stop command; umockdev replays
 *                     the records in a loop. PREFIX.stream holds the meter's bytes of one loop.
 *         disconnect  the same until the fourth record is half through, then the URB ends with
 *                     -ENODEV (the adapter was unplugged); PREFIX.stream holds the bytes before.
 * rig ok              the session of rig_replay.h.
 * absent              no FT232R on the bus (an FT2232, 0403:6010, instead).
 * noopen              the FT232R is listed but its device node cannot be opened (libusb_open
 *                     fails as it does without permission).
 * refuse              the chip stalls libftdi's first request (RESET): a clone or a dying chip.
 * wattsup list, rig serial, rig wrongserial: sessions that read string descriptors, written
 *                     as a usbmon capture PREFIX.pcap instead (write_pcap() says why).
 *
 * How umockdev replays this (0.17): an OUT URB (control or bulk) must equal a recorded one,
 * which it finds forward from the last one it replayed (wrapping around); an IN URB takes the
 * next recorded IN of its endpoint and size from there. So each request is written before its
 * answer and the replay follows the driver; an OUT that is nowhere in the file fails the
 * driver's call (LIBUSB_ERROR_IO).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ft232r.h"
#include "rig_replay.h"

#define USBDEVFS_URB_CONTROL 2
#define USBDEVFS_URB_BULK 3
#define METER_IDLE 4 /* 2-byte packets between records: the reader sleeps 20 ms after each */

/*
 * One completed URB, as umockdev's recording format has it: type, endpoint, status, flags,
 * buffer length, actual length, error count, then the data: what went out for an OUT URB (a
 * control URB's buffer, its setup packet, counts as one), what came back for an IN URB.
 */
static void urb(FILE *f, int type, int ep, int status, int buflen, size_t actual, const void *data,
                size_t len)
{
	fprintf(f, "USBDEVFS_REAPURBNDELAY 0 %d %d %d 0 %d %zu 0 ", type, ep, status, buflen,
	        actual);
	ft232r_hex(f, data, len);
	fprintf(f, "\n");
}

static void control(FILE *f, const struct ft232r_setup *s, int status)
{
	uint8_t setup[8];

	ft232r_setup_bytes(s, setup);
	urb(f, USBDEVFS_URB_CONTROL, 0, status, sizeof(setup), 0, setup, sizeof(setup));
}

static void bulk_out(FILE *f, const void *data, size_t len)
{
	urb(f, USBDEVFS_URB_BULK, FT232R_EP_OUT, 0, (int)len, len, data, len);
}

/* A bulk IN transfer carrying data (none: the chip's 2-byte packet). */
static void bulk_in(FILE *f, const void *data, size_t len, uint8_t modem)
{
	uint8_t t[FT232R_READ_URB];
	size_t n = ft232r_in_transfer(t, sizeof(t), data, len, modem);

	if (!n) {
		fprintf(stderr, "gen_ft232r_replay: %zu bytes do not fit one transfer\n", len);
		exit(1);
	}
	urb(f, USBDEVFS_URB_BULK, FT232R_EP_IN, 0, FT232R_READ_URB, n, t, n);
}

static void idle(FILE *f, unsigned n)
{
	while (n--)
		bulk_in(f, NULL, 0, FT232R_MODEM_STATUS);
}

static void header(FILE *f)
{
	fprintf(f, "@DEV %s (usbdevfs)\n", FT232R_NODE);
	/* ZERO_PACKET | BULK_CONTINUATION | NO_PACKET_SIZE_LIM | BULK_SCATTER_GATHER */
	fprintf(f, "USBDEVFS_GET_CAPABILITIES 0 0F000000\n");
}

/* The vendor requests of the driver's open, each once (status: the first one's). */
static void open_requests(FILE *f, enum ft232r_driver d, int first_status)
{
	struct ft232r_setup s[16];
	size_t n = ft232r_open_requests(d, s, 16);

	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t k = 0; k < i; k++)
			seen |= !memcmp(&s[k], &s[i], sizeof(s[i]));
		if (!seen)
			control(f, &s[i], i ? 0 : first_status);
	}
}

/* ---- Watts up? PRO ------------------------------------------------------------------------ */

/* Records: W and V in tenths, A in mA (meters.h). */
#define REC1 "#d,-,18,1234,1201,1027,55,_,_,_,1300,1210,1100,1200,1190,1000,100,0,0,600,1239;\r\n"
#define REC2 "#d,-,18,2345,1199,1956,61,_,_,_,2400,1210,2000,1200,1190,1000,99,0,0,600,2362;\r\n"
#define REC3 "#d,-,18,987,1203,821,62,_,_,_,2400,1210,2000,900,1190,800,100,0,0,600,988;\r\n"
#define REC4 "#d,-,18,1500,1200,1250,64,_,_,_,2400,1210,2000,900,1190,800,100,0,0,600,1500;\r\n"
#define REC5 "#d,-,18,3012,1187,2544,70,_,_,_,3100,1210,2600,900,1180,800,99,0,0,599,3020;\r\n"
/* A malformed record (a field that is no number), a reply of the wrong shape, line noise. */
#define GARBAGE                                                                                    \
	"\x01\xff noise #d,-,18,12z4,1201,1027,55,_,_,_,1300,1210,1100,1200,1190,1000,100,0,0,"    \
	"600,1239;\r\n#d,-,3,1,2,3;\r\n"
#define PARTIAL "#d,-,18,9999,120" /* the meter's line cut short */
#define REC2_SPLIT 30              /* REC2 arrives in two transfers of one read */
#define REC4_SPLIT 40              /* REC4 arrives over two reads */

struct meter_out {
	FILE *ioctl, *stream;
};

static void meter_send(struct meter_out *o, const char *a, const char *b, size_t blen,
                       uint8_t modem, unsigned idle_after)
{
	char buf[512];
	size_t n = strlen(a);

	memcpy(buf, a, n);
	memcpy(buf + n, b, blen);
	n += blen;
	bulk_in(o->ioctl, buf, n, modem);
	fwrite(buf, 1, n, o->stream);
	idle(o->ioctl, idle_after);
}

static int write_wattsup(const char *variant, FILE *f, FILE *stream)
{
	struct meter_out o = {f, stream};
	const uint8_t m = FT232R_MODEM_STATUS;
	const bool gone = !strcmp(variant, "disconnect");

	open_requests(f, FT232R_WATTSUP, 0);
	bulk_out(f, "#L,W,3,E,,1;", 12); /* external logging, one record a second */
	meter_send(&o, REC1, "", 0, m, METER_IDLE);
	meter_send(&o, GARBAGE, REC2, REC2_SPLIT, m, 0);
	meter_send(&o, "", REC2 + REC2_SPLIT, strlen(REC2) - REC2_SPLIT, m, METER_IDLE);
	meter_send(&o, PARTIAL, REC3, strlen(REC3), m, METER_IDLE);
	meter_send(&o, "", REC4, REC4_SPLIT, m, gone ? 0 : 1);
	if (gone) {
		urb(f, USBDEVFS_URB_BULK, FT232R_EP_IN, -ENODEV, FT232R_READ_URB, 0, NULL, 0);
	} else {
		meter_send(&o, "", REC4 + REC4_SPLIT, strlen(REC4) - REC4_SPLIT, m, METER_IDLE);
		/* CTS and DSR up: the status bytes change, the data does not. */
		meter_send(&o, REC5, "", 0, 0x31, METER_IDLE);
	}
	bulk_out(f, "#L,W,3,I,,1;", 12); /* back to internal logging on close */
	return 0;
}

/* ---- the cooling-rig controller ----------------------------------------------------------- */

static void rig_request(FILE *f, uint8_t seq, uint8_t cmd, const uint8_t *payload, uint8_t len)
{
	uint8_t b[SB_RIG_MAX_FRAME];
	size_t n = sb_rig_encode(b, sizeof(b), seq, cmd, payload, len);

	bulk_out(f, b, n);
}

/* The controller's answer; damaged: its CRC broken; split: delivered over two reads after that
 * many bytes (0: in one). */
static void rig_answer(FILE *f, uint8_t seq, uint8_t cmd, uint8_t status, const uint8_t *data,
                       uint8_t n, bool damaged, size_t split)
{
	uint8_t payload[SB_RIG_MAX_PAYLOAD], b[SB_RIG_MAX_FRAME];
	size_t len;

	payload[0] = status;
	if (n)
		memcpy(payload + 1, data, n);
	len = sb_rig_encode(b, sizeof(b), seq, cmd | SB_RIG_RESPONSE, payload, (uint8_t)(n + 1));
	if (damaged)
		b[len - 1] ^= 0x5A;
	if (split) {
		bulk_in(f, b, split, FT232R_MODEM_STATUS);
		idle(f, 1);
		bulk_in(f, b + split, len - split, FT232R_MODEM_STATUS);
	} else {
		bulk_in(f, b, len, FT232R_MODEM_STATUS);
	}
	idle(f, 1);
}

/* One request and its answer for each sequence number after the open (rig_replay.h). */
static void rig_table(FILE *f, uint8_t cmd, const uint8_t *payload, uint8_t len, uint8_t status,
                      const uint8_t *data, uint8_t n)
{
	for (unsigned s = RIG_SEQ_OPEN_END; s <= RIG_SEQ_LAST; s++) {
		rig_request(f, (uint8_t)s, cmd, payload, len);
		rig_answer(f, (uint8_t)s, cmd, status, data, n, false, 0);
	}
}

static void rig_status_table(FILE *f, enum rig_phase p)
{
	struct sb_rig_status st;
	uint8_t b[SB_RIG_STATUS_BYTES];

	rig_replay_status(p, &st);
	sb_rig_status_encode(b, &st);
	rig_table(f, SB_RIG_CMD_GET_STATUS, NULL, 0, SB_RIG_OK, b, sizeof(b));
}

static void rig_fans_table(FILE *f, uint16_t d0, uint16_t d1, uint8_t status)
{
	uint8_t p[4];

	sb_rig_put16(p, d0);
	sb_rig_put16(p + 2, d1);
	rig_table(f, SB_RIG_CMD_SET_FANS, p, sizeof(p), status, NULL, 0);
}

static int write_rig(FILE *f)
{
	struct sb_rig_ident id;
	struct sb_rig_limits lim;
	struct sb_rig_status st;
	uint8_t b[SB_RIG_STATUS_BYTES + 1], mask[2], left[2] = {0, 0};

	open_requests(f, FT232R_RIG, 0);
	/* IDENTIFY: a damaged answer, then the answer in two reads. */
	rig_replay_ident(&id);
	sb_rig_ident_encode(b, &id);
	rig_request(f, 1, SB_RIG_CMD_IDENTIFY, NULL, 0);
	rig_answer(f, 1, SB_RIG_CMD_IDENTIFY, SB_RIG_OK, b, SB_RIG_IDENT_BYTES, true, 0);
	rig_request(f, 2, SB_RIG_CMD_IDENTIFY, NULL, 0);
	rig_answer(f, 2, SB_RIG_CMD_IDENTIFY, SB_RIG_OK, b, SB_RIG_IDENT_BYTES, false, 6);
	/* The limits: the defaults (EEPROM blank); the rig file's written, the first try seen
	 * damaged by the controller. */
	sb_rig_limits_default(&lim);
	sb_rig_limits_encode(b, &lim);
	b[SB_RIG_LIMITS_BYTES] = 1;
	rig_request(f, 3, SB_RIG_CMD_GET_LIMITS, NULL, 0);
	rig_answer(f, 3, SB_RIG_CMD_GET_LIMITS, SB_RIG_OK, b, SB_RIG_LIMITS_BYTES + 1, false, 0);
	rig_replay_file_limits(&lim);
	sb_rig_limits_encode(b, &lim);
	rig_request(f, 4, SB_RIG_CMD_SET_LIMITS, b, SB_RIG_LIMITS_BYTES);
	rig_answer(f, 4, SB_RIG_CMD_SET_LIMITS, SB_RIG_ERR_BAD_CRC, NULL, 0, false, 0);
	rig_request(f, 5, SB_RIG_CMD_SET_LIMITS, b, SB_RIG_LIMITS_BYTES);
	rig_answer(f, 5, SB_RIG_CMD_SET_LIMITS, SB_RIG_OK, NULL, 0, false, 0);
	/* Just powered on: the driver clears RESET and EEPROM. */
	rig_replay_status(RIG_BOOT, &st);
	sb_rig_status_encode(b, &st);
	rig_request(f, 6, SB_RIG_CMD_GET_STATUS, NULL, 0);
	rig_answer(f, 6, SB_RIG_CMD_GET_STATUS, SB_RIG_OK, b, SB_RIG_STATUS_BYTES, false, 0);
	sb_rig_put16(mask, RIG_TAKEOVER_CLEAR);
	rig_request(f, 7, SB_RIG_CMD_CLEAR_FAULTS, mask, 2);
	rig_answer(f, 7, SB_RIG_CMD_CLEAR_FAULTS, SB_RIG_OK, left, 2, false, 0);
	/* The phases after the open. */
	rig_status_table(f, RIG_IDLE);
	rig_fans_table(f, RIG_CFG2_DUTY0, RIG_CFG2_DUTY1, SB_RIG_OK);
	rig_status_table(f, RIG_COOLING);
	rig_fans_table(f, RIG_CFG3_DUTY0, RIG_CFG3_DUTY1, SB_RIG_ERR_FAILSAFE);
	rig_status_table(f, RIG_FAILSAFE);
	sb_rig_put16(mask, SB_RIG_FAULT_ALL);
	rig_table(f, SB_RIG_CMD_CLEAR_FAULTS, mask, 2, SB_RIG_ERR_FAULT_ACTIVE, NULL, 0);
	rig_status_table(f, RIG_FAILSAFE);
	rig_table(f, SB_RIG_CMD_CLEAR_FAULTS, mask, 2, SB_RIG_OK, left, 2);
	rig_fans_table(f, RIG_CFG2_DUTY0, RIG_CFG2_DUTY1, SB_RIG_OK);
	rig_status_table(f, RIG_COOLED);
	return 0;
}

/* ---- string descriptors: a usbmon capture ------------------------------------------------- */

/*
 * umockdev's ioctl replay cannot return control IN data (README.md), so the sessions that read
 * string descriptors (libftdi matching a serial number, listing adapters) are written as a
 * usbmon capture (pcap, LINKTYPE_USB_LINUX_MMAPPED: a 64-byte usbmon header per event, then the
 * data), which umockdev-run --pcap replays strictly in order, control IN data included.
 */
#define PCAP_LINKTYPE_USB_LINUX_MMAPPED 220
#define USBMON_HEADER 64
#define USB_LANGID_EN_US 0x0409

struct pcap_out {
	FILE *f;
	uint64_t id;   /* URB ids: one per transfer, never 0 */
	uint32_t t_us; /* capture time */
};

static void le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* One usbmon event: 'S' (submitted) or 'C' (completed). */
static void pcap_event(struct pcap_out *o, char type, uint8_t xfer, uint8_t ep,
                       const uint8_t *setup, int32_t status, uint32_t urb_len, const void *data,
                       uint32_t len)
{
	uint8_t rec[16], h[USBMON_HEADER] = {0};

	o->t_us += 125;
	le(rec, o->t_us / 1000000, 4);
	le(rec + 4, o->t_us % 1000000, 4);
	le(rec + 8, USBMON_HEADER + len, 4);
	le(rec + 12, USBMON_HEADER + len, 4);
	le(h, o->id, 8);
	h[8] = (uint8_t)type;
	h[9] = xfer;
	h[10] = ep;
	h[11] = FT232R_DEVNUM;
	le(h + 12, FT232R_BUS, 2);
	h[14] = setup ? 0 : '-';                   /* setup packet present */
	h[15] = len ? 0 : (ep & 0x80 ? '<' : '>'); /* data present */
	le(h + 16, o->t_us / 1000000, 8);
	le(h + 24, o->t_us % 1000000, 4);
	le(h + 28, (uint32_t)status, 4);
	le(h + 32, urb_len, 4);
	le(h + 36, len, 4);
	if (setup)
		memcpy(h + 40, setup, 8);
	fwrite(rec, 1, sizeof(rec), o->f);
	fwrite(h, 1, sizeof(h), o->f);
	if (len)
		fwrite(data, 1, len, o->f);
}

/* A transfer: submitted (with its OUT data), completed (with its IN data). */
static void pcap_transfer(struct pcap_out *o, uint8_t xfer, uint8_t ep, const uint8_t *setup,
                          const void *out, uint32_t out_len, uint32_t want_in, const void *in,
                          uint32_t in_len)
{
	bool is_in = setup ? setup[0] & 0x80 : ep & 0x80;

	o->id++;
	pcap_event(o, 'S', xfer, ep, setup, -EINPROGRESS, is_in ? want_in : out_len, out, out_len);
	pcap_event(o, 'C', xfer, ep, NULL, 0, is_in ? in_len : out_len, in, in_len);
}

static void pcap_vendor(struct pcap_out *o, const struct ft232r_setup *s)
{
	uint8_t setup[8];

	ft232r_setup_bytes(s, setup);
	pcap_transfer(o, USBDEVFS_URB_CONTROL, 0, setup, NULL, 0, 0, NULL, 0);
}

/* libusb_get_string_descriptor_ascii(): the language IDs (4 bytes), then the string (at most
 * 255 bytes) in the first language, as UTF-16LE. */
static void pcap_string(struct pcap_out *o, uint8_t index, const char *text)
{
	uint8_t langid_req[8] = {0x80, 0x06, 0, 0x03, 0, 0, 4, 0};
	uint8_t langids[4] = {4, 0x03, USB_LANGID_EN_US & 0xFF, USB_LANGID_EN_US >> 8};
	uint8_t req[8] = {0x80, 0x06, index, 0x03, USB_LANGID_EN_US & 0xFF, USB_LANGID_EN_US >> 8,
	                  255,  0};
	uint8_t d[255];
	size_t n = strlen(text);

	d[0] = (uint8_t)(2 + 2 * n);
	d[1] = 0x03;
	for (size_t i = 0; i < n; i++) {
		d[2 + 2 * i] = (uint8_t)text[i];
		d[3 + 2 * i] = 0;
	}
	pcap_transfer(o, USBDEVFS_URB_CONTROL, 0, langid_req, NULL, 0, 4, langids, 4);
	pcap_transfer(o, USBDEVFS_URB_CONTROL, 0, req, NULL, 0, 255, d, d[0]);
}

static void pcap_bulk_out(struct pcap_out *o, const void *data, size_t len)
{
	pcap_transfer(o, USBDEVFS_URB_BULK, FT232R_EP_OUT, NULL, data, (uint32_t)len, 0, NULL, 0);
}

static void pcap_bulk_in(struct pcap_out *o, const void *data, size_t len)
{
	uint8_t t[FT232R_READ_URB];
	size_t n = ft232r_in_transfer(t, sizeof(t), data, len, FT232R_MODEM_STATUS);

	pcap_transfer(o, USBDEVFS_URB_BULK, FT232R_EP_IN, NULL, NULL, 0, FT232R_READ_URB, t,
	              (uint32_t)n);
}

/* A request and its answer (OK with data), then the chip idle. */
static void pcap_rig(struct pcap_out *o, uint8_t seq, uint8_t cmd, const uint8_t *data, uint8_t n)
{
	uint8_t payload[SB_RIG_MAX_PAYLOAD] = {SB_RIG_OK}, b[SB_RIG_MAX_FRAME];
	size_t len = sb_rig_encode(b, sizeof(b), seq, cmd, NULL, 0);

	pcap_bulk_out(o, b, len);
	memcpy(payload + 1, data, n);
	len = sb_rig_encode(b, sizeof(b), seq, cmd | SB_RIG_RESPONSE, payload, (uint8_t)(n + 1));
	pcap_bulk_in(o, b, len);
	pcap_bulk_in(o, NULL, 0);
}

/*
 * serial       rig:ftdi:SERIAL: libftdi reads the serial number, opens the chip; the controller
 *              holds the rig file's limits and no fault: IDENTIFY, GET_LIMITS, GET_STATUS, then
 *              one GET_STATUS (phase idle) for the check
 * wrongserial  libftdi reads the serial number, which is not the one asked for
 * list         stackbench instruments: manufacturer, product and serial number
 */
static int write_pcap(const char *variant, FILE *f)
{
	struct pcap_out o = {f, 0, 0};
	uint8_t hdr[24];

	le(hdr, 0xa1b2c3d4u, 4);
	le(hdr + 4, 2, 2);
	le(hdr + 6, 4, 2);
	le(hdr + 8, 0, 8);
	le(hdr + 16, 262144, 4);
	le(hdr + 20, PCAP_LINKTYPE_USB_LINUX_MMAPPED, 4);
	fwrite(hdr, 1, sizeof(hdr), f);
	if (!strcmp(variant, "list")) {
		pcap_string(&o, 1, FT232R_MANUFACTURER);
		pcap_string(&o, 2, FT232R_PRODUCT);
	}
	pcap_string(&o, 3, FT232R_SERIAL);
	if (!strcmp(variant, "serial")) {
		struct ft232r_setup s[16];
		size_t n = ft232r_open_requests(FT232R_RIG, s, 16);
		struct sb_rig_ident id;
		struct sb_rig_limits lim;
		struct sb_rig_status st;
		uint8_t b[SB_RIG_STATUS_BYTES];

		for (size_t i = 0; i < n; i++)
			pcap_vendor(&o, &s[i]);
		rig_replay_ident(&id);
		sb_rig_ident_encode(b, &id);
		pcap_rig(&o, 1, SB_RIG_CMD_IDENTIFY, b, SB_RIG_IDENT_BYTES);
		rig_replay_file_limits(&lim);
		sb_rig_limits_encode(b, &lim);
		b[SB_RIG_LIMITS_BYTES] = 0; /* from EEPROM */
		pcap_rig(&o, 2, SB_RIG_CMD_GET_LIMITS, b, SB_RIG_LIMITS_BYTES + 1);
		rig_replay_status(RIG_IDLE, &st);
		sb_rig_status_encode(b, &st);
		pcap_rig(&o, 3, SB_RIG_CMD_GET_STATUS, b, SB_RIG_STATUS_BYTES);
		pcap_rig(&o, 4, SB_RIG_CMD_GET_STATUS, b, SB_RIG_STATUS_BYTES);
	}
	return 0;
}

/* ---- main --------------------------------------------------------------------------------- */

static FILE *create(const char *prefix, const char *ext)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.%s", prefix, ext);
	f = fopen(path, "wb");
	if (!f)
		fprintf(stderr, "gen_ft232r_replay: cannot write '%s': %s\n", path,
		        strerror(errno));
	return f;
}

int main(int argc, char **argv)
{
	const char *driver = argc == 4 ? argv[1] : "", *variant = argc == 4 ? argv[2] : "";
	bool wattsup = !strcmp(driver, "wattsup"), rig = !strcmp(driver, "rig");
	bool absent = !strcmp(variant, "absent"), refuse = !strcmp(variant, "refuse");
	bool noopen = !strcmp(variant, "noopen");
	bool pcap = (wattsup && !strcmp(variant, "list")) ||
	            (rig && (!strcmp(variant, "serial") || !strcmp(variant, "wrongserial")));
	FILE *dev = NULL, *f = NULL, *stream = NULL;
	int rc = 1;

	if ((!wattsup && !rig) ||
	    (!absent && !refuse && !noopen && !pcap && strcmp(variant, "ok") &&
	     !(wattsup && !strcmp(variant, "disconnect")))) {
		fprintf(stderr,
		        "usage: gen_ft232r_replay wattsup ok|disconnect|absent|noopen|refuse|list "
		        "PREFIX\n       gen_ft232r_replay rig "
		        "ok|absent|noopen|refuse|serial|wrongserial PREFIX\n");
		return 2;
	}
	if (!(dev = create(argv[3], "umockdev")) ||
	    !(f = create(argv[3], pcap ? "pcap" : "ioctl")) ||
	    (wattsup && !pcap && !(stream = create(argv[3], "stream"))))
		goto out;
	if (ft232r_write_description(dev, absent ? 0x6010 : FT232R_PID, !noopen) < 0)
		goto out;
	if (pcap) {
		write_pcap(variant, f);
	} else {
		header(f);
		if (refuse)
			open_requests(f, wattsup ? FT232R_WATTSUP : FT232R_RIG, -EPIPE);
		else if (!absent && !noopen && wattsup)
			write_wattsup(variant, f, stream);
		else if (!absent && !noopen)
			write_rig(f);
	}
	rc = 0;
out:
	if (stream && fclose(stream))
		rc = 1;
	if (f && fclose(f))
		rc = 1;
	if (dev && fclose(dev))
		rc = 1;
	if (rc)
		fprintf(stderr, "gen_ft232r_replay: cannot write '%s.*'\n", argv[3]);
	return rc;
}
