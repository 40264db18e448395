/* SPDX-License-Identifier: MIT */
/* The dashboard's files, embedded at build time (embed.cmake). */
#ifndef SBD_ASSETS_H
#define SBD_ASSETS_H

#include <stddef.h>

struct sbd_asset {
	const char *path; /* "/index.html" */
	const char *type; /* Content-Type */
	const unsigned char *data;
	size_t len;
};

/* Ends with an entry whose path is NULL. */
extern const struct sbd_asset sbd_assets[];

#endif /* SBD_ASSETS_H */
