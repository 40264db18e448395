/* SPDX-License-Identifier: MIT */
/* What instruments are attached, and the connection string to open each with. */
#include <dirent.h>
#include <ftdi.h>
#include <glib.h>
#include <libsigrok/libsigrok.h>
#include <libusb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flirone_usb.h"
#include "instrument_internal.h"
#include "stackbench/log.h"
#include "stackbench/util.h"

#define PURETHERMAL_VID 0x1e4e
#define PURETHERMAL_PID 0x0100

struct found {
	struct sb_found_instrument *out;
	unsigned n, max;
};

static struct sb_found_instrument *add(struct found *f, const char *kind)
{
	struct sb_found_instrument *i;

	if (f->n == f->max)
		return NULL;
	i = &f->out[f->n++];
	memset(i, 0, sizeof(*i));
	sb_strlcpy(i->kind, kind, sizeof(i->kind));
	return i;
}

static void usb_cameras(struct found *f)
{
	libusb_context *ctx;
	libusb_device **list;
	ssize_t n;

	if (libusb_init(&ctx) < 0) {
		sb_dbg("instruments: USB is not usable here");
		return;
	}
	n = libusb_get_device_list(ctx, &list);
	for (ssize_t k = 0; k < n; k++) {
		struct libusb_device_descriptor d;
		unsigned bus = libusb_get_bus_number(list[k]),
		         addr = libusb_get_device_address(list[k]);
		struct sb_found_instrument *i;

		if (libusb_get_device_descriptor(list[k], &d) < 0)
			continue;
		if (d.idVendor == SB_FLIRONE_VID && d.idProduct == SB_FLIRONE_PID &&
		    (i = add(f, "camera"))) {
			libusb_device_handle *h;
			unsigned char serial[64] = "";

			snprintf(i->what, sizeof(i->what), "FLIR One (09cb:1996) bus %u address %u",
			         bus, addr);
			snprintf(i->conn, sizeof(i->conn), "flirone:%u:%u", bus, addr);
			if (libusb_open(list[k], &h) == 0) {
				if (d.iSerialNumber)
					libusb_get_string_descriptor_ascii(h, d.iSerialNumber,
					                                   serial, sizeof(serial));
				libusb_close(h);
				if (serial[0])
					snprintf(i->note, sizeof(i->note),
					         "serial %s (flirone:%s names this one camera)",
					         (char *)serial, (char *)serial);
			} else {
				snprintf(i->note, sizeof(i->note),
				         "no access: install the udev rules (docs/instruments.md)");
			}
		} else if (d.idVendor == PURETHERMAL_VID && d.idProduct == PURETHERMAL_PID &&
		           (i = add(f, "camera"))) {
			snprintf(i->what, sizeof(i->what),
			         "PureThermal / FLIR Lepton (1e4e:0100, UVC) bus %u address %u",
			         bus, addr);
			snprintf(i->note, sizeof(i->note),
			         "stackbench has no Lepton driver; use a FLIR One "
			         "(docs/instruments.md)");
		}
	}
	if (n >= 0)
		libusb_free_device_list(list, 1);
	libusb_exit(ctx);
}

static void ftdi_adapters(struct found *f)
{
	struct ftdi_context *ctx = ftdi_new();
	struct ftdi_device_list *list = NULL, *p;

	if (!ctx)
		return;
	if (ftdi_usb_find_all(ctx, &list, 0x0403, 0x6001) > 0) {
		for (p = list; p; p = p->next) {
			char manu[64] = "", desc[64] = "", serial[64] = "";
			struct sb_found_instrument *i = add(f, "adapter");

			if (!i)
				break;
			ftdi_usb_get_strings(ctx, p->dev, manu, sizeof(manu), desc, sizeof(desc),
			                     serial, sizeof(serial));
			snprintf(i->what, sizeof(i->what), "FTDI FT232R (0403:6001) %s %s", manu,
			         desc);
			snprintf(i->conn, sizeof(i->conn), "wattsup:ftdi%s%s", serial[0] ? ":" : "",
			         serial);
			snprintf(i->note, sizeof(i->note),
			         "serial %s; a Watts up? PRO, or the cooling rig (rig:)",
			         serial[0] ? serial : "?");
		}
	}
	ftdi_list_free(&list);
	ftdi_free(ctx);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void nodes(struct found *f, const char *dev_dir)
{
	DIR *d = opendir(dev_dir);
	struct dirent *e;
	char *names[64];
	unsigned n = 0;

	if (!d)
		return;
	while ((e = readdir(d)) && n < SB_ARRAY_SIZE(names))
		if (!strncmp(e->d_name, "ttyUSB", 6) || !strncmp(e->d_name, "ttyACM", 6) ||
		    !strncmp(e->d_name, "usbtmc", 6))
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), name_cmp);
	for (unsigned k = 0; k < n; k++) {
		bool tmc = names[k] && !strncmp(names[k], "usbtmc", 6);
		struct sb_found_instrument *i = names[k] ? add(f, tmc ? "meter" : "serial") : NULL;

		if (i) {
			snprintf(i->what, sizeof(i->what), "%s/%s", dev_dir, names[k]);
			if (tmc) {
				snprintf(i->conn, sizeof(i->conn), "wt310:%s/%s", dev_dir,
				         names[k]);
				snprintf(i->note, sizeof(i->note),
				         "USBTMC instrument (Yokogawa WT310)");
			} else if (!strncmp(names[k], "ttyUSB", 6)) {
				snprintf(i->conn, sizeof(i->conn), "wattsup:%s/%s", dev_dir,
				         names[k]);
				snprintf(i->note, sizeof(i->note),
				         "USB serial: a Watts up? PRO, or a supply: "
				         "sigrok:DRIVER:conn=%s/%s",
				         dev_dir, names[k]);
			} else {
				snprintf(i->conn, sizeof(i->conn),
				         "sigrok:korad-kaxxxxp:conn=%s/%s", dev_dir, names[k]);
				snprintf(i->note, sizeof(i->note),
				         "CDC-ACM serial: a Korad/Tenma supply, or another "
				         "sigrok:DRIVER:conn=...");
			}
		}
		free(names[k]);
	}
}

/* Supplies and power meters libsigrok finds without being told where to look (USB and network
 * ones): a supply serves as a fan supply (cooling) or a power source, a meter as a power
 * source, with the same connection string. */
static void sigrok_instruments(struct found *f)
{
	struct sr_context *ctx;
	struct sr_dev_driver **drv;

	sr_log_loglevel_set(SR_LOG_NONE);
	if (sr_init(&ctx) != SR_OK)
		return;
	for (drv = sr_driver_list(ctx); drv && *drv; drv++) {
		GArray *opts;
		bool supply = false, meter = false;
		GSList *devs, *l;

		if (!strcmp((*drv)->name, "demo"))
			continue;
		opts = sr_dev_options(*drv, NULL, NULL);
		for (guint k = 0; opts && k < opts->len; k++) {
			uint32_t o = g_array_index(opts, uint32_t, k);

			supply |= o == SR_CONF_POWER_SUPPLY;
			meter |= o == SR_CONF_POWERMETER || o == SR_CONF_ENERGYMETER;
		}
		if (opts)
			g_array_free(opts, TRUE);
		if (!(supply || meter) || sr_driver_init(ctx, *drv) != SR_OK)
			continue;
		devs = sr_driver_scan(*drv, NULL);
		for (l = devs; l; l = l->next) {
			struct sb_found_instrument *i = add(f, supply ? "supply" : "meter");
			const char *conn = sr_dev_inst_connid_get(l->data);

			if (!i)
				break;
			snprintf(i->what, sizeof(i->what), "%s %s (libsigrok %s; %s)",
			         sr_dev_inst_vendor_get(l->data), sr_dev_inst_model_get(l->data),
			         (*drv)->name,
			         supply ? "fan supply or power source" : "power source");
			snprintf(i->conn, sizeof(i->conn), "sigrok:%s%s%s", (*drv)->name,
			         conn ? ":conn=" : "", conn ? conn : "");
		}
		g_slist_free(devs);
	}
	sr_exit(ctx);
}

int sb_instruments_discover(struct sb_found_instrument *out, unsigned max, const char *dev_dir,
                            bool sigrok_scan)
{
	struct found f = {out, 0, max};

	usb_cameras(&f);
	ftdi_adapters(&f);
	nodes(&f, dev_dir ? dev_dir : "/dev");
	if (sigrok_scan)
		sigrok_instruments(&f);
	f.n += sb_sensors_discover(f.out + f.n, f.max - f.n);
	return (int)f.n;
}
