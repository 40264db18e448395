/* SPDX-License-Identifier: MIT */
/* The results store's handle, shared by its parts (store.c, store_copy.c); not installed. */
#ifndef SB_STORE_INT_H
#define SB_STORE_INT_H

#include <stdbool.h>

#include <sqlite3.h>

struct sb_store {
	sqlite3 *db;
	char *path;
	int version;        /* schema version of the open database */
	bool has_traces;    /* the point_traces table exists (version 5; read-only: maybe not) */
	bool has_hbm;       /* the hbm_points table exists (version 7; read-only: maybe not) */
	bool has_hbm_ports; /* hbm_point_ports exists (version 8; read-only: maybe not) */
};

#endif /* SB_STORE_INT_H */
