/* SPDX-License-Identifier: MIT */
/* Trace capture of campaign points (campaign key 'trace'): internal to the campaign engine. */
#ifndef SB_CAMPAIGN_TRACE_H
#define SB_CAMPAIGN_TRACE_H

#include <limits.h>
#include <stdint.h>

#include "stackbench/campaign.h"
#include "stackbench/capture.h"
#include "stackbench/device.h"

/* A run's capture: the file (relative to the database's folder and absolute), its stats. */
struct sb_point_trace {
	struct sb_capture *cap; /* open while the point runs; NULL: no capture */
	char rel[PATH_MAX], abs[PATH_MAX];
	struct sb_capture_stats st;
	bool done; /* closed with its description: ready to be stored */
};

/*
 * Open the capture of a run of point p when the campaign captures traces and the point has
 * traffic (GUPS, or an HBM2 card's ports: those that issue unless the trace names its ports):
 * DB_DIR/DB_NAME.traces/campaign<ID>/point<INDEX>[-run<N>].sbt (DB_NAME: the database's file
 * name without its last extension), the folders made as needed. pt->cap stays NULL otherwise.
 * Returns 0 or an error (detail names the file).
 */
int sb_point_trace_open(struct sb_point_trace *pt, const struct sb_campaign *c, const char *db_path,
                        int64_t campaign_id, const struct sb_campaign_point *p, unsigned attempt,
                        struct sb_device *dev);

/*
 * Where the trace of run `attempt` of point `index` of campaign campaign_id goes beside the
 * database db_path: rel (relative to the database's folder, what point_traces.file holds) and
 * abs. Returns 0 or SB_ERR_INVAL (too long).
 */
int sb_point_trace_path(const char *db_path, int64_t campaign_id, unsigned index, unsigned attempt,
                        char *rel, size_t rel_size, char *abs, size_t abs_size);

/*
 * Make the folders of the trace rel (from sb_point_trace_path) inside the folder of the database
 * db_path, component by component and never through a symbolic link (a link planted at
 * NAME.traces would send the traces where it points). Returns 0, SB_ERR_IO, SB_ERR_PERM.
 */
int sb_point_trace_mkdir(const char *db_path, const char *rel);

struct sb_hbm_spec;
struct sb_hbm_result;
/* Run an HBM2 card's point (sb_hbm_point_run); with a capture open, its AXI bursts recorded
 * (sb_hbm_point_capture) and the file finished. Returns 0 or an error. */
int sb_point_trace_hbm_run(struct sb_point_trace *pt, struct sb_device *dev,
                           const struct sb_hbm_spec *s, struct sb_hbm_result *r);

/* After the point ran (and stopped the capture): finish the file. */
int sb_point_trace_close(struct sb_point_trace *pt);

/* Give up: no file left behind (also for a closed capture whose run is not stored). */
void sb_point_trace_abort(struct sb_point_trace *pt);

#endif /* SB_CAMPAIGN_TRACE_H */
