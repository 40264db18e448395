/* SPDX-License-Identifier: MIT */
/*
 * LD_PRELOAD shim for the pty stand-ins of USB-serial instruments: a pty has no modem-control
 * lines, so TIOCMGET / TIOCMSET / TIOCMBIS / TIOCMBIC fail with ENOTTY where a real UART
 * (ftdi_sio, cdc_acm) succeeds; libserialport gives up on that. This answers them for ptys
 * (DTR and RTS as set, CTS/DSR/CD asserted) and passes every other ioctl through.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <termios.h>

static int lines = TIOCM_DTR | TIOCM_RTS;

int ioctl(int fd, unsigned long req, ...);

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	va_list ap;
	void *arg;
	int r;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	r = real(fd, req, arg);
	if (r == 0 || errno != ENOTTY || !arg)
		return r;
	switch (req) {
	case TIOCMGET:
		*(int *)arg = lines | TIOCM_CTS | TIOCM_DSR | TIOCM_CD;
		return 0;
	case TIOCMSET:
		lines = *(int *)arg;
		return 0;
	case TIOCMBIS:
		lines |= *(int *)arg;
		return 0;
	case TIOCMBIC:
		lines &= ~*(int *)arg;
		return 0;
	default:
		return r;
	}
}
