/* SPDX-License-Identifier: MIT */
/*
 * LD_PRELOAD shim (before umockdev's) that writes every USB control request a program submits
 * through usbfs — libusb's synchronous and asynchronous control transfers (USBDEVFS_SUBMITURB of
 * a control URB) and USBDEVFS_CONTROL — to the file $SB_USB_CONTROL_LOG, one line each:
 * "bmRequestType bRequest wValue wIndex wLength" in hex, as the reference sequence in
 * tests/data/flirone-gen3/control.txt is written. The request then goes on to umockdev, which
 * replays the device's answer: the log is what the driver asked, whatever the replay accepts.
 */
#include <dlfcn.h>
#include <linux/usbdevice_fs.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>

int ioctl(int fd, unsigned long req, ...);

static void log_setup(const uint8_t *s)
{
	const char *path = getenv("SB_USB_CONTROL_LOG");
	FILE *f;

	if (!path || !s || !(f = fopen(path, "a")))
		return;
	fprintf(f, "%02x %02x %04x %04x %04x\n", s[0], s[1], s[2] | s[3] << 8, s[4] | s[5] << 8,
	        s[6] | s[7] << 8);
	fclose(f);
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	if (arg && req == USBDEVFS_SUBMITURB) {
		const struct usbdevfs_urb *u = arg;

		if (u->type == USBDEVFS_URB_TYPE_CONTROL && u->buffer_length >= 8)
			log_setup(u->buffer);
	} else if (arg && req == USBDEVFS_CONTROL) {
		const struct usbdevfs_ctrltransfer *c = arg;
		uint8_t s[8] = {c->bRequestType,     c->bRequest,
		                (uint8_t)c->wValue,  (uint8_t)(c->wValue >> 8),
		                (uint8_t)c->wIndex,  (uint8_t)(c->wIndex >> 8),
		                (uint8_t)c->wLength, (uint8_t)(c->wLength >> 8)};

		log_setup(s);
	}
	return real(fd, req, arg);
}
