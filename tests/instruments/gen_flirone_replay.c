/* SPDX-License-Identifier: MIT */
/*
 * Build a umockdev replay of a FLIR One from the real capture: the device description
 * (PREFIX.umockdev: sysfs attributes and USB descriptors of a 09cb:1996 with configuration 3,
 * interfaces 0-2 and endpoints 0x81, 0x83, 0x85) and the usbdevfs ioctl recording (PREFIX.ioctl:
 * the capabilities, the SET_INTERFACE control requests of the start/stop sequence, then the
 * 109 real bulk transfers of endpoint 0x85, each followed by empty reads of 0x81 and 0x83 as
 * the driver drains them). umockdev replays the recording in a loop.
 *
 *   gen_flirone_replay CHUNK_DIR PREFIX VARIANT CONTROL_FILE
 *
 * CONTROL_FILE holds the start sequence as the reference driver sends it (one request a line:
 * bmRequestType bRequest wValue wIndex, hex; tests/data/flirone-gen3/control.txt): the
 * recording's control steps come from it, never from the driver's own header.
 *
 * VARIANT: ok          the capture as it is
 *          short       transfer 9 (the first JPEG chunk of frame 2) cut to 1000 bytes
 *          crc         odd frames: one thermal pixel raised to 9000 counts without fixing the
 *                      packet's CRC (a driver that used those frames would report ~300 C)
 *          garbage     every frame damaged that way
 *          disconnect  after 40 transfers, mid-frame, the URB ends with -ENODEV
 *
 * The descriptors are composed from the protocol facts (configuration 3, the three
 * interfaces and their endpoints), not dumped from a camera.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flirone_usb.h"

#define NCHUNKS 109
#define CHUNK_MAX 65536

static unsigned char chunk[NCHUNKS][CHUNK_MAX];
static size_t chunk_len[NCHUNKS];

static int load(const char *dir)
{
	for (int i = 0; i < NCHUNKS; i++) {
		char path[4096];
		FILE *f;
		int c, hi = -1;

		snprintf(path, sizeof(path), "%s/%d.txt", dir, i + 1);
		f = fopen(path, "r");
		if (!f) {
			fprintf(stderr, "gen_flirone_replay: cannot open '%s': %s\n", path,
			        strerror(errno));
			return -1;
		}
		while ((c = fgetc(f)) != EOF) {
			int v = c >= '0' && c <= '9'   ? c - '0'
			        : c >= 'a' && c <= 'f' ? c - 'a' + 10
			        : c >= 'A' && c <= 'F' ? c - 'A' + 10
			                               : -1;

			if (v < 0)
				continue;
			if (hi < 0) {
				hi = v;
				continue;
			}
			if (chunk_len[i] == CHUNK_MAX) {
				fprintf(stderr, "gen_flirone_replay: '%s' is too long\n", path);
				fclose(f);
				return -1;
			}
			chunk[i][chunk_len[i]++] = (unsigned char)(hi << 4 | v);
			hi = -1;
		}
		fclose(f);
	}
	return 0;
}

static void hex(FILE *f, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02X", p[i]);
}

/* Device, configuration, interface and endpoint descriptors. */
static size_t descriptors(unsigned char *d)
{
	static const unsigned char dev[18] = {18,
	                                      1,
	                                      0x00,
	                                      0x02,
	                                      0xEF,
	                                      0x02,
	                                      0x01,
	                                      64,
	                                      SB_FLIRONE_VID & 0xFF,
	                                      SB_FLIRONE_VID >> 8,
	                                      SB_FLIRONE_PID & 0xFF,
	                                      SB_FLIRONE_PID >> 8,
	                                      0x00,
	                                      0x01,
	                                      1,
	                                      2,
	                                      3,
	                                      1};
	static const unsigned char cfg[] = {
	    9, 2, 89, 0, 3, SB_FLIRONE_CONFIG, 0, 0x80, 250,
	    /* interface 0: status (0x81 in, 0x02 out) */
	    9, 4, 0, 0, 2, 0xFF, 0xF0, 0, 0, 7, 5, 0x81, 2, 0x00, 0x02, 0, 7, 5, 0x02, 2, 0x00,
	    0x02, 0,
	    /* interface 1: file I/O, alt 0 idle, alt 1 (0x83 in, 0x04 out) */
	    9, 4, 1, 0, 0, 0xFF, 0xF0, 0, 0, 9, 4, 1, 1, 2, 0xFF, 0xF0, 0, 0, 7, 5, 0x83, 2, 0x00,
	    0x02, 0, 7, 5, 0x04, 2, 0x00, 0x02, 0,
	    /* interface 2: frames, alt 0 idle, alt 1 (0x85 in) */
	    9, 4, 2, 0, 0, 0xFF, 0xF0, 0, 0, 9, 4, 2, 1, 1, 0xFF, 0xF0, 0, 0, 7, 5, 0x85, 2, 0x00,
	    0x02, 0};

	memcpy(d, dev, sizeof(dev));
	memcpy(d + sizeof(dev), cfg, sizeof(cfg));
	return sizeof(dev) + sizeof(cfg);
}

static int write_device(const char *prefix)
{
	unsigned char d[256];
	size_t n = descriptors(d);
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.umockdev", prefix);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "P: /devices/pci0000:00/0000:00:14.0/usb1/1-1\nN: bus/usb/001/005=");
	hex(f, d, n);
	fprintf(f,
	        "\nE: DEVNAME=/dev/bus/usb/001/005\nE: DEVTYPE=usb_device\nE: DRIVER=usb\n"
	        "E: PRODUCT=9cb/1996/100\nE: BUSNUM=001\nE: DEVNUM=005\nE: MAJOR=189\n"
	        "E: MINOR=4\nE: SUBSYSTEM=usb\nA: bConfigurationValue=%d\n"
	        "A: bNumConfigurations=1\nA: bNumInterfaces= 3\nA: busnum=1\nA: devnum=5\n"
	        "A: dev=189:4\nA: devpath=1\nA: idVendor=09cb\nA: idProduct=1996\n"
	        "A: manufacturer=FLIR Systems\nA: product=FLIR One Camera\n"
	        "A: serial=REPLAY0001\nA: speed=480\nH: descriptors=",
	        SB_FLIRONE_CONFIG);
	hex(f, d, n);
	fprintf(f, "\n");
	return fclose(f);
}

/* One completed URB: type, endpoint, status, buffer length, data. */
static void urb(FILE *f, int type, int ep, int status, int buflen, const unsigned char *data,
                size_t len)
{
	fprintf(f, "USBDEVFS_REAPURBNDELAY 0 %d %d %d 0 %d %zu 0 ", type, ep, status, buflen, len);
	hex(f, data, len);
	fprintf(f, "\n");
}

/* The reference start sequence: setup packets (wLength 0). */
static unsigned char control[8][8];
static unsigned ncontrol;

static int load_control(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256];

	if (!f) {
		fprintf(stderr, "gen_flirone_replay: cannot open '%s': %s\n", path,
		        strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned type, req, value, index;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%x %x %x %x", &type, &req, &value, &index) != 4 ||
		    ncontrol == 8) {
			fprintf(stderr, "gen_flirone_replay: '%s': bad line '%s'\n", path, line);
			fclose(f);
			return -1;
		}
		control[ncontrol][0] = (unsigned char)type;
		control[ncontrol][1] = (unsigned char)req;
		control[ncontrol][2] = (unsigned char)value;
		control[ncontrol][3] = (unsigned char)(value >> 8);
		control[ncontrol][4] = (unsigned char)index;
		control[ncontrol][5] = (unsigned char)(index >> 8);
		ncontrol++;
	}
	fclose(f);
	return ncontrol ? 0 : -1;
}

/* An OUT control URB: umockdev matches the setup packet; nothing comes back. */
static void control_urb(FILE *f, const unsigned char setup[8])
{
	fprintf(f, "USBDEVFS_REAPURBNDELAY 0 2 0 0 0 8 0 0 ");
	hex(f, setup, 8);
	fprintf(f, "\n");
}

/* The byte at offset off of the stream that starts at chunk i (NULL past the end). */
static unsigned char *stream_byte(int i, size_t off)
{
	for (; i < NCHUNKS; off -= chunk_len[i], i++)
		if (off < chunk_len[i])
			return &chunk[i][off];
	return NULL;
}

/*
 * Raise one pixel of the thermal block of the frame that starts in chunk h (the thermal block
 * follows the 28-byte header, in the same transfer or the next ones): packet 30, pixel 40. The
 * packet's CRC is left as it was.
 */
static void damage(int h)
{
	size_t off = 28 + 30 * 164 + 4 + 2 * 40;
	unsigned char *lo = stream_byte(h, off), *hi = stream_byte(h, off + 1);

	if (lo && hi) {
		*lo = 9000 & 0xFF;
		*hi = 9000 >> 8;
	}
}

int main(int argc, char **argv)
{
	const char *variant;
	char path[4096];
	int frame = 0;
	FILE *f;

	if (argc != 5) {
		fprintf(stderr, "usage: gen_flirone_replay CHUNK_DIR PREFIX "
		                "ok|short|crc|garbage|disconnect CONTROL_FILE\n");
		return 2;
	}
	variant = argv[3];
	if (load(argv[1]) < 0 || load_control(argv[4]) < 0)
		return 1;
	for (int i = 0; i < NCHUNKS; i++) {
		bool header = chunk_len[i] >= 4 && chunk[i][0] == 0xEF && chunk[i][1] == 0xBE &&
		              !chunk[i][2] && !chunk[i][3];

		if (!header)
			continue;
		if ((!strcmp(variant, "crc") && frame % 2) || !strcmp(variant, "garbage"))
			damage(i);
		frame++;
	}
	if (!strcmp(variant, "short"))
		chunk_len[8] = 1000;
	if (write_device(argv[2]) < 0) {
		fprintf(stderr, "gen_flirone_replay: cannot write '%s.umockdev'\n", argv[2]);
		return 1;
	}
	snprintf(path, sizeof(path), "%s.ioctl", argv[2]);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "gen_flirone_replay: cannot write '%s': %s\n", path,
		        strerror(errno));
		return 1;
	}
	fprintf(f, "@DEV /dev/bus/usb/001/005 (usbdevfs)\n");
	/* ZERO_PACKET | BULK_CONTINUATION | NO_PACKET_SIZE_LIM | BULK_SCATTER_GATHER */
	fprintf(f, "USBDEVFS_GET_CAPABILITIES 0 0F000000\n");
	for (unsigned i = 0; i < ncontrol; i++)
		control_urb(f, control[i]);
	for (int i = 0; i < NCHUNKS; i++) {
		if (!strcmp(variant, "disconnect") && i == 40) {
			urb(f, 3, SB_FLIRONE_EP_FRAMES, -ENODEV, SB_FLIRONE_XFER_BYTES, NULL, 0);
			break;
		}
		urb(f, 3, SB_FLIRONE_EP_FRAMES, 0, SB_FLIRONE_XFER_BYTES, chunk[i], chunk_len[i]);
		urb(f, 3, SB_FLIRONE_EP_STATUS, 0, SB_FLIRONE_DRAIN_BYTES, NULL, 0);
		urb(f, 3, SB_FLIRONE_EP_FILEIO, 0, SB_FLIRONE_DRAIN_BYTES, NULL, 0);
	}
	return fclose(f) ? 1 : 0;
}
