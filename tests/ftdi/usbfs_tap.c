/* SPDX-License-Identifier: MIT */
/*
 * LD_PRELOAD wire tap on usbdevfs: logs every URB the program submits (USBDEVFS_SUBMITURB) to
 * the file named by $SB_USBFS_TAP, then passes the call on unchanged (to umockdev's preload
 * library when it follows in LD_PRELOAD). It observes what libusb sends; it answers nothing.
 * The format is in ft232r.h.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/usbdevice_fs.h>

#define TAP_LINE_MAX 1200
#define TAP_DATA_MAX 512 /* bytes of a URB's data logged */

int ioctl(int fd, unsigned long req, ...);

static void tap(const struct usbdevfs_urb *u)
{
	static const char hex[] = "0123456789ABCDEF";
	const char *path = getenv("SB_USBFS_TAP");
	const unsigned char *b = u->buffer;
	char line[TAP_LINE_MAX];
	int n, len = u->buffer_length, tfd;
	int in = u->type == USBDEVFS_URB_TYPE_CONTROL ? len >= 1 && (b[0] & 0x80)
	                                              : (u->endpoint & 0x80) != 0;

	if (!path || len < 0)
		return;
	if (u->type == USBDEVFS_URB_TYPE_CONTROL)
		n = snprintf(line, sizeof(line), "C ");
	else if (in)
		n = snprintf(line, sizeof(line), "I %02x %d", u->endpoint, len);
	else
		n = snprintf(line, sizeof(line), "O %02x ", u->endpoint);
	/* A control IN transfer: its setup packet only. */
	if (u->type == USBDEVFS_URB_TYPE_CONTROL && in && len > 8)
		len = 8;
	if (u->type == USBDEVFS_URB_TYPE_CONTROL || !in)
		for (int i = 0; i < len && i < TAP_DATA_MAX; i++) {
			line[n++] = hex[b[i] >> 4];
			line[n++] = hex[b[i] & 15];
		}
	line[n++] = '\n';
	tfd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (tfd < 0)
		return;
	if (write(tfd, line, (size_t)n) != n)
		fprintf(stderr, "usbfs_tap: short write to '%s'\n", path);
	close(tfd);
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*next)(int, unsigned long, ...);
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!next)
		next = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	if (req == USBDEVFS_SUBMITURB && arg)
		tap(arg);
	return next(fd, req, arg);
}
