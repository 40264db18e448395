/* SPDX-License-Identifier: MIT */
/*
 * stackbenchd's parts and their shared state.
 *
 * Threads: the main thread runs the socket server (epoll) and the scheduler and owns the queue
 * database; one runner thread per running job calls the campaign engine (which starts one
 * worker per board, pinned near it); libmicrohttpd serves the dashboard from its own threads.
 * Everything below the mutex line of struct sbd is shared and guarded by sbd.mu; the engine's
 * callbacks turn what happens into events in a bounded ring (hub.c) that the socket's
 * followers and the dashboard's event streams read at their own pace.
 */
#ifndef SBD_DAEMON_H
#define SBD_DAEMON_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "proto.h"
#include "stackbench/campaign.h"
#include "stackbench/lock.h"
#include "stackbench/uri.h"

struct cJSON;
struct sbd_queue;
struct sbd_http;

#define SBD_MAX_BOARDS SB_CAMPAIGN_MAX_DEVICES
#define SBD_MAX_GROUPS 64
#define SBD_RING 8192         /* events kept for followers (a slow one skips, with a notice) */
#define SBD_MAX_CLIENTS 256   /* socket clients at once */
#define SBD_MAX_ACTIVE 1000   /* jobs queued, running or paused at once */
#define SBD_KEEP_FINISHED 200 /* finished jobs kept in memory (and listed) */
#define SBD_DEFAULT_GROUP "stackbench"

/* Who is on the other end of a socket (SO_PEERCRED, SO_PEERGROUPS), or who submitted a job. */
struct sbd_cred {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	unsigned ngroups;
	gid_t groups[SBD_MAX_GROUPS];
};

enum sbd_job_state { SBD_QUEUED, SBD_RUNNING, SBD_PAUSED, SBD_DONE, SBD_FAILED, SBD_CANCELLED };

const char *sbd_job_state_name(enum sbd_job_state s);
int sbd_job_state_parse(const char *name, enum sbd_job_state *s);
bool sbd_job_finished(enum sbd_job_state s);

struct sbd_job {
	int64_t id;
	enum sbd_job_state state;
	int priority;
	unsigned workers; /* engine workers: one board each */
	struct sbd_cred owner;
	char name[SB_CAMPAIGN_NAME_MAX];
	char file[SBD_FILE_MAX];
	char db[SBD_DB_MAX];
	char *text; /* the campaign file's text */
	size_t len;
	unsigned ndevices; /* the campaign's bench.device URIs */
	char device[SB_CAMPAIGN_MAX_DEVICES][SB_CAMPAIGN_TEXT_MAX];
	unsigned npoints;
	/* Resume across restarts: the campaign the job created (0: not yet known) and the
	 * latest campaign of its name in the database before its first start (-1: never
	 * started). */
	int64_t campaign_id, prev_campaign_id;
	unsigned done, total;
	double eta_s;
	char submitted_at[32], started_at[32], finished_at[32];
	char message[1024];
	/* While running (runner thread, engine flags). */
	volatile sig_atomic_t stop, pause;
	bool cancel_requested, pause_requested, runner_done;
	int result; /* what sb_campaign_run returned */
	unsigned nboards;
	int board[SBD_MAX_BOARDS]; /* worker i runs on boards[board[i]] */
	pthread_t thread;
	struct sbd *d;
	struct sbd_job *next;
};

struct sbd_board {
	char uri[SB_CAMPAIGN_TEXT_MAX];
	char uri_json[2 * SB_CAMPAIGN_TEXT_MAX]; /* escaped for JSON text */
	struct sb_uri parsed;
	struct sb_lock *lock;
	struct sbd_job *job; /* running on it; NULL: idle */
	/* Live state of the running point. */
	char device[SB_CAMPAIGN_TEXT_MAX];
	bool in_point;
	const struct sb_campaign_point *point;
	unsigned attempt;
	bool has_sample;
	double t_s, bandwidth_gbps, mrps, latency_avg_ns, temp_c, power_w;
	uint64_t samples;
};

enum sbd_event_kind {
	SBD_EV_JOB,            /* a job changed state */
	SBD_EV_CAMPAIGN,       /* a job's campaign started (or resumed) in its database */
	SBD_EV_POINT_STARTED,  /* a point started on a board */
	SBD_EV_SAMPLE,         /* a sample of the running point */
	SBD_EV_POINT_FINISHED, /* a point was stored */
	SBD_EV_FAILURE,        /* a point ended in a thermal failure */
	SBD_EV_COUNT
};

const char *sbd_event_name(enum sbd_event_kind k);

struct sbd_event {
	uint64_t seq; /* 0: empty slot */
	enum sbd_event_kind kind;
	int board;   /* -1: none */
	int64_t job; /* 0: none */
	double ts;   /* wall clock (s) when it happened */
	char *json;  /* the event line, without newline */
	size_t len;
};

struct sbd_options {
	char socket_path[108];
	char state_dir[PATH_MAX];
	char http[128];  /* ADDR:PORT ("" : no dashboard) */
	char token[256]; /* "" : none (loopback only) */
	char group[64];  /* the group whose members may use the socket */
	bool foreground;
	unsigned ndevices;
	char device[SBD_MAX_BOARDS][SB_CAMPAIGN_TEXT_MAX];
};

struct sbd {
	struct sbd_options opt;
	gid_t group_gid;
	bool have_group;
	double started; /* wall clock */
	int wake_fd;    /* eventfd: something for the main loop */
	struct sbd_queue *q;
	struct sbd_http *http;
	char http_bound[160]; /* the dashboard's address ("" : none) */
	struct sb_lock *state_lock;

	pthread_mutex_t mu;  /* ---- everything below is guarded by mu ---- */
	pthread_cond_t cond; /* the ring grew, or the daemon stops */
	bool stopping;
	bool wake_pending;
	unsigned followers; /* socket clients following events (samples wake the loop only then) */
	struct sbd_board boards[SBD_MAX_BOARDS];
	unsigned nboards;
	struct sbd_job *jobs; /* by id */
	unsigned nactive;
	struct sbd_event ring[SBD_RING];
	uint64_t next_seq; /* seq of the next event (the first is 1) */
};

/* ---- hub.c: events and the shared view ---------------------------------------------------- */

int sbd_hub_init(struct sbd *d);
void sbd_hub_release(struct sbd *d);
/* Wake the main loop (any thread). */
void sbd_wake(struct sbd *d);
/* Append an event (caller holds mu); json is taken over (malloc'ed, without newline). */
void sbd_emit(struct sbd *d, enum sbd_event_kind kind, int board, int64_t job, char *json);
/* The oldest seq still in the ring (caller holds mu). */
uint64_t sbd_ring_oldest(const struct sbd *d);
/* The event of a seq, or NULL if it is not (or no longer) in the ring (caller holds mu). */
const struct sbd_event *sbd_ring_get(const struct sbd *d, uint64_t seq);
/* A new event object with "v", "event", "seq" (the next one) and "ts_ms" (caller holds mu). */
struct cJSON *sbd_event_new(struct sbd *d, enum sbd_event_kind kind);
/* Print an event object as an event line and append it (caller holds mu, since
 * sbd_event_new). */
void sbd_emit_object(struct sbd *d, enum sbd_event_kind kind, int board, int64_t job,
                     struct cJSON *o);
double sbd_now(void);
void sbd_iso_time(double t, char *buf, size_t size);
/* The daemon's status (caller holds mu): {"daemon", "boards", "queue"} without "ok". */
struct cJSON *sbd_status_json(struct sbd *d);
/* A job as JSON (caller holds mu). */
struct cJSON *sbd_job_json(const struct sbd_job *j);
/* The queue: active jobs by priority, then finished ones (caller holds mu). */
struct cJSON *sbd_queue_json(struct sbd *d, bool all);

/* ---- queue.c: the persistent queue (SQLite in the state folder) ------------------------- */

int sbd_queue_open(struct sbd_queue **q, const char *state_dir);
void sbd_queue_close(struct sbd_queue *q);
/* Load the jobs (active ones all, finished ones the latest SBD_KEEP_FINISHED), oldest first. */
int sbd_queue_load(struct sbd_queue *q, int (*fn)(void *ctx, struct sbd_job *j), void *ctx);
/* Insert a new job (its id is set) or save its fields. */
int sbd_queue_insert(struct sbd_queue *q, struct sbd_job *j);
int sbd_queue_save(struct sbd_queue *q, const struct sbd_job *j);

/* ---- jobs.c: submit, schedule, run, control -------------------------------------------- */

/* Load a job's campaign text: name, devices, points (as the submitter where files matter). */
int sbd_job_parse(struct sbd_job *j, char *err, size_t errsize);
/* Handle a submit; returns the job, or NULL with an error code and message. */
struct sbd_job *sbd_submit(struct sbd *d, const struct sbd_cred *peer, struct sbd_request *r,
                           const char **code, char *err, size_t errsize);
/* Start what can start (main thread). */
void sbd_schedule(struct sbd *d);
/* Collect runners that ended (main thread); true when any did. */
bool sbd_reap(struct sbd *d);
/* cancel / pause / resume; returns NULL (done) or an error code with a message. */
const char *sbd_control(struct sbd *d, const struct sbd_cred *peer, enum sbd_cmd cmd, int64_t id,
                        char *err, size_t errsize);
/* Stop every running job (their points stay resumable) and wait for the runners. */
void sbd_stop_all(struct sbd *d);
/* Whether a peer may use the daemon at all. */
bool sbd_peer_allowed(const struct sbd *d, const struct sbd_cred *c);
/* Free a job. */
void sbd_job_free(struct sbd_job *j);

/* ---- server.c: the socket ----------------------------------------------------------------- */

int sbd_server_run(struct sbd *d, int listen_fd, int signal_fd);
int sbd_server_listen(struct sbd *d, int *fd);

/* ---- http.c: the dashboard ---------------------------------------------------------------- */

/* Check --http (ADDR:PORT, loopback unless a token is given): 0, SB_ERR_INVAL or SB_ERR_PERM. */
int sbd_http_check(const char *http, const char *token);
int sbd_http_start(struct sbd *d);
void sbd_http_stop(struct sbd *d);

#endif /* SBD_DAEMON_H */
