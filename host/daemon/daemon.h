/* SPDX-License-Identifier: MIT */
/*
 * stackbenchd's parts and their shared state.
 *
 * Processes (docs/architecture.md, "The daemon's process boundary"): the main process (root,
 * or the daemon's own user with CAP_SETUID/CAP_SETGID/CAP_KILL) listens on the socket, keeps
 * the queue and owns the boards (their locks and, for pci: and dev:, their handles). It never
 * opens a path a request names and never parses a campaign. Every job runs in a process of its
 * own (jobmain.c, the daemon's binary run again): it receives the job and the open handles of
 * its boards over a socket pair, takes the submitter's identity (initgroups, setgid, setuid,
 * verified, capabilities dropped) and only then reads the campaign, the bench files, the
 * instruments and the results database. A check process does the same for a submit before it
 * is queued. Their events come back over the socket pair; the main loop turns them into the
 * event ring (hub.c) that followers and the dashboard read.
 *
 * Threads of the main process: the main thread runs the epoll loop (socket, signals, job
 * processes, timers) and alone changes the state below sbd.mu; libmicrohttpd serves the
 * dashboard from its own threads, which read it under sbd.mu.
 */
#ifndef SBD_DAEMON_H
#define SBD_DAEMON_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "proto.h"
#include "stackbench/campaign.h"
#include "stackbench/client.h"
#include "stackbench/lock.h"
#include "stackbench/uri.h"

struct cJSON;
struct sbd_queue;
struct sbd_http;
struct sbd_server;
struct sbd_proc;

#define SBD_MAX_BOARDS SB_CAMPAIGN_MAX_DEVICES
#define SBD_MAX_GROUPS 64
#define SBD_RING 8192          /* events kept for followers (a slow one skips, with a notice) */
#define SBD_MAX_ACTIVE 1000    /* jobs queued, running or paused at once */
#define SBD_KEEP_IN_MEMORY 200 /* finished jobs kept in memory (and listed) */
#define SBD_DEFAULT_GROUP "stackbench"
#define SBD_JOB_FD 3 /* a job process's end of its socket pair */
/* What the main loop's epoll data points at starts with one of these. */
#define SBD_WATCH_CLIENT 1
#define SBD_WATCH_PROC 2

/* Limits, all settable with --limit NAME=VALUE (docs/daemon-api.md, "Limits"). */
struct sbd_limits {
	unsigned clients;          /* socket connections at once */
	unsigned clients_per_user; /* of one user (root: no limit) */
	unsigned root_reserved;    /* of `clients`, kept for root */
	unsigned idle_s;           /* a connection that asks nothing for this long is closed */
	unsigned campaign_bytes;   /* a submitted campaign's text */
	unsigned jobs_per_user;    /* active (queued, running, paused) jobs of one user */
	unsigned keep_jobs;        /* finished jobs kept in queue.db */
	unsigned keep_days;        /* finished jobs older than this are dropped from queue.db */
	unsigned grace_s;          /* a job told to stop is killed (SIGKILL) after this */
	unsigned check_s;          /* a job's file checks (as its submitter) must end in this */
	unsigned http_clients;     /* dashboard connections at once */
	unsigned http_per_client;  /* of one user (loopback) or address */
};

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
	unsigned umask; /* the submitter's: the job's files are made with it */
	char name[SB_CAMPAIGN_NAME_MAX];
	char file[SBD_FILE_MAX];
	char db[SBD_DB_MAX];
	/* What its check process found (the main process never parses a campaign). */
	bool checked;      /* false: a job from an older queue, checked again before it runs */
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
	/* While running. */
	struct sbd_proc *proc; /* its process (NULL: none) */
	bool cancel_requested, pause_requested;
	unsigned nboards;
	int board[SBD_MAX_BOARDS]; /* worker i runs on boards[board[i]] */
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
	unsigned point_index, attempt;
	char point_key[SB_CAMPAIGN_KEY_MAX];
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
	char http[128];            /* ADDR:PORT ("" : no dashboard) */
	char token[256];           /* the dashboard's token (given, or made at start) */
	char token_file[PATH_MAX]; /* where it is written for clients ("" : not written) */
	char group[64];            /* the group whose members may use the socket */
	bool foreground;
	struct sbd_limits limits;
	unsigned ndevices;
	char device[SBD_MAX_BOARDS][SB_CAMPAIGN_TEXT_MAX];
};

struct sbd {
	struct sbd_options opt;
	gid_t group_gid;
	bool have_group;
	bool can_switch; /* may run jobs as other users (root, or CAP_SETUID + CAP_SETGID) */
	double started;  /* wall clock */
	int wake_fd;     /* eventfd: something for the main loop */
	struct sbd_queue *q;
	struct sbd_http *http;
	struct sbd_server *server;
	char http_bound[160]; /* the dashboard's address ("" : none) */
	struct sb_lock *state_lock;
	unsigned nprocs; /* job and check processes alive */

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
/* Load the jobs (active ones all, finished ones the latest SBD_KEEP_IN_MEMORY), oldest
 * first. */
int sbd_queue_load(struct sbd_queue *q, int (*fn)(void *ctx, struct sbd_job *j), void *ctx);
/* Insert a new job with its campaign text (its id is set), or save its fields. A finished
 * job's campaign text is dropped from the database. */
int sbd_queue_insert(struct sbd_queue *q, struct sbd_job *j, const char *text, size_t len);
int sbd_queue_save(struct sbd_queue *q, const struct sbd_job *j);
/* A job's campaign text (malloc'ed); SB_ERR_NOT_FOUND when it is no longer kept. */
int sbd_queue_text(struct sbd_queue *q, int64_t id, char **text, size_t *len);
/* Drop finished jobs beyond the latest keep_jobs and older than keep_days (0: no age
 * limit); returns how many went. */
int sbd_queue_prune(struct sbd_queue *q, unsigned keep_jobs, unsigned keep_days);

/* ---- jobs.c: submit, schedule, control ---------------------------------------------------- */

/*
 * Start a submit: the limits are checked here, the campaign and the database by a check
 * process as the submitter; the reply goes to the client (by its id) when that process ends
 * (sbd_server_reply). Returns NULL when started, else an error code with a message.
 */
const char *sbd_submit(struct sbd *d, uint64_t client, const struct sbd_cred *peer,
                       struct sbd_request *r, char *err, size_t errsize);
/* Start what can start. */
void sbd_schedule(struct sbd *d);
/* cancel / pause / resume; returns NULL (done) or an error code with a message. */
const char *sbd_control(struct sbd *d, const struct sbd_cred *peer, enum sbd_cmd cmd, int64_t id,
                        char *err, size_t errsize);
/* Tell every job process to stop (their points stay resumable). */
void sbd_stop_all(struct sbd *d);
/* Once a second: limits in time (check processes, grace periods), queue pruning. */
void sbd_tick(struct sbd *d);
/* Whether a peer may use the daemon at all. */
bool sbd_peer_allowed(const struct sbd *d, const struct sbd_cred *c);
/* Jobs of an older queue that were never checked: check them now (start-up). */
void sbd_check_loaded(struct sbd *d);
/* Free a job. */
void sbd_job_free(struct sbd_job *j);
/* Forget finished jobs beyond what is kept in memory (caller holds mu). */
void sbd_trim_finished(struct sbd *d);

/* ---- proc.c: job and check processes (the main process's side) ---------------------------- */

enum sbd_proc_mode {
	SBD_PROC_CHECK,
	SBD_PROC_RUN,
	SBD_PROC_REPORT, /* a finished job's report */
	SBD_PROC_NOTIFY, /* the notify: command of a job cancelled without a process */
};

/* A finished job's report, made by a process as its submitter (dashboard). */
#define SBD_REPORT_FILE_MAX (8u << 20) /* a file of it */
#define SBD_REPORT_MAX (24u << 20)     /* all of it */
#define SBD_REPORT_NAME_MAX 96         /* a file's name */
#define SBD_REPORT_S 120               /* a report (or notify) process is killed after this */
struct sbd_report_file {
	char name[SBD_REPORT_NAME_MAX];
	unsigned char *data;
	size_t len;
};

/* How a process ended, for the job (jobs.c decides the job's state from it). */
struct sbd_proc_end {
	bool checked;       /* its checks passed ("checked" arrived) */
	bool ended;         /* it reported its result */
	int result;         /* SB_ERR_* of the campaign (ended) */
	bool killed;        /* the daemon killed it (a timeout or the grace period) */
	int status;         /* waitpid status */
	const char *code;   /* a check's refusal: the reply's error code (NULL: none) */
	char message[1024]; /* its result message, or why it failed */
};

/*
 * Start a process for job j: CHECK (submit: text is the campaign; client is who waits) or RUN
 * (text read from the queue, boards' handles handed over). Returns 0 or an error.
 */
int sbd_proc_start(struct sbd *d, struct sbd_job *j, enum sbd_proc_mode mode, uint64_t client,
                   const char *tag, const char *db_dir_id, const char *text, size_t len);
/* Start a process as j's submitter that makes the report of j's campaign (the process has a
 * copy of j: the job may leave memory meanwhile); sbd_web_report_done gets its files. */
int sbd_proc_report(struct sbd *d, const struct sbd_job *j);
/* End the report processes (the daemon stops: nobody will read their reports). */
void sbd_proc_stop_reports(void);
/* Tell a running job's process to pause, go on, or stop (then SIGTERM, SIGKILL after the
 * grace period). */
void sbd_proc_pause(struct sbd_proc *p, bool pause);
void sbd_proc_stop(struct sbd *d, struct sbd_proc *p);
/* Its channel is readable / its state changed (main loop). */
void sbd_proc_io(struct sbd *d, struct sbd_proc *p, uint32_t events);
/* SIGCHLD: reap the processes that ended. */
void sbd_proc_reap(struct sbd *d);
/* Free the processes that ended (after each batch of the main loop's events, which may still
 * name them). */
void sbd_proc_free_dead(void);
/* Deadlines (once a second). */
void sbd_proc_tick(struct sbd *d);
/* The process's PID (for status). */
pid_t sbd_proc_pid(const struct sbd_proc *p);
/* Called by proc.c when a process is over (both reaped and its channel closed). */
void sbd_job_proc_done(struct sbd *d, struct sbd_job *j, enum sbd_proc_mode mode, uint64_t client,
                       const char *tag, struct sbd_proc_end *end, char *text, size_t len);
/* Called by proc.c (holding mu) when a job's first start needs its base saved before it goes
 * on. */
void sbd_job_first_start(struct sbd *d, struct sbd_job *j, int64_t prev_campaign_id);
/* Called by proc.c (holding mu) for a job's campaign id (saved for a resume after a
 * restart). */
void sbd_job_campaign(struct sbd *d, struct sbd_job *j, int64_t campaign_id);

/* ---- jobmain.c: the job process ----------------------------------------------------------- */

/* The daemon's binary run as a job process (stackbenchd --job-process): exit code. */
int sbd_job_main(void);

/* ---- privsep.c: identities and capabilities ----------------------------------------------- */

/* Whether this process may take other users' identities (root, or CAP_SETUID + CAP_SETGID
 * permitted). */
bool sbd_can_switch_users(void);
/*
 * Become the owner of a job for good: its groups (initgroups from the user database, else the
 * groups it connected with), gid and uid, real, effective and saved; every capability dropped;
 * no new privileges. Verified: the ids read back, setuid(0) fails, no capability is left.
 * Owner root or the daemon's own user: only the capabilities are dropped (a no-root daemon
 * runs root's jobs as itself). 0 or SB_ERR_PERM with what failed.
 */
int sbd_become(const struct sbd_cred *owner);
/* Open a board's handle for a job (sb_device_handle_open) without CAP_SYS_RAWIO in effect,
 * so that the handle grants the job no more than a member of the board's group has. */
int sbd_board_handle(const char *uri);

/* ---- server.c: the socket ----------------------------------------------------------------- */

int sbd_server_run(struct sbd *d, int listen_fd, int signal_fd);
int sbd_server_listen(struct sbd *d, int *fd);
/* Reply to a client by its id (a submit's reply, once its check ended); line is taken over. */
void sbd_server_reply(struct sbd *d, uint64_t client, char *line);
/* Build an ok reply line ({"v":1,"tag":..,"ok":true, fields of o}); o is taken over. */
char *sbd_reply_ok(const char *tag, struct cJSON *o);
/* Watch a file descriptor in the main loop (a job process's channel); 0 or an error. */
int sbd_server_watch(struct sbd *d, int fd, struct sbd_proc *p, uint32_t events);
void sbd_server_unwatch(struct sbd *d, int fd);

/* ---- http.c: the dashboard ---------------------------------------------------------------- */

/* Check --http (ADDR:PORT): 0 or SB_ERR_INVAL. */
int sbd_http_check(const char *http);
int sbd_http_start(struct sbd *d);
void sbd_http_stop(struct sbd *d);
/* The dashboard's URL with its token ("" without a dashboard). */
void sbd_http_url(const struct sbd *d, char *buf, size_t size);

/* ---- web.c: the dashboard's actions (sessions, CSRF, same origin, who acts) ------------------ */

#define SBD_WEB_SESSION_LEN 32 /* hex characters of a session id */
#define SBD_WEB_CSRF_LEN 64    /* ... and of its CSRF token */

/* Whether two secrets (tokens) are equal, compared without leaking where they differ; an empty
 * b never matches. */
bool sbd_web_same_secret(const char *a, const char *b);

/*
 * The session of cookie (its id) for uid, or a new one: *id (SBD_WEB_SESSION_LEN + 1 bytes)
 * and its CSRF token *csrf (SBD_WEB_CSRF_LEN + 1). Any thread. 0 or SB_ERR_IO.
 */
int sbd_web_session(const char *cookie, uid_t uid, char *id, char *csrf);
/* NULL when csrf is the token of the session cookie of uid, else why not. */
const char *sbd_web_csrf_check(const char *cookie, const char *csrf, uid_t uid);
/* NULL when a request's Sec-Fetch-Site, Origin (else Referer) say it comes from the page at
 * http://HOST, else why not (in why). */
const char *sbd_web_same_origin(const char *host, const char *origin, const char *referer,
                                const char *fetch_site, char *why, size_t size);
/* A dashboard user's identity: uid, and gid and groups from the user database (none for a
 * user known by number only). */
int sbd_web_cred(uid_t uid, struct sbd_cred *c);
/* cancel / pause / resume for a dashboard user, done by the main thread (any other thread;
 * waits for it): NULL (done; *job_json the job after it, cJSON_free it) or an error code with
 * a message, as sbd_control. */
const char *sbd_web_action(struct sbd *d, const struct sbd_cred *cred, enum sbd_cmd cmd, int64_t id,
                           char *err, size_t errsize, char **job_json);
/* The main loop: do the actions waiting. */
void sbd_web_pump(struct sbd *d);
/*
 * A file of finished job id's report, for a dashboard user (the job's owner, root or the
 * daemon's user), made as the submitter when not made yet (waits; any thread but the main
 * one): name "report.html", a figure's "NAME.png", or NULL for the list of figures (JSON).
 * Returns 200 with *data (malloc'ed) and *len, or an HTTP status with a message in err.
 */
unsigned sbd_web_report_file(struct sbd *d, const struct sbd_cred *who, int64_t id,
                             const char *name, char **data, size_t *len, char *err, size_t errsize);
/* A report process ended (main thread): its files are taken over (freed when not ok). */
void sbd_web_report_done(int64_t id, bool ok, const char *message, struct sbd_report_file *files,
                         unsigned nfiles);

/* ---- peer.c: who is on the other end of a loopback TCP connection --------------------------- */

/*
 * The owner (uid) of the peer socket of a connection accepted on a loopback address, asked of
 * the kernel (NETLINK_SOCK_DIAG, as ss does). 0 with *uid, SB_ERR_NOT_FOUND (not loopback, or
 * the peer is gone) or SB_ERR_IO.
 */
int sbd_peer_uid(int fd, uid_t *uid);

#endif /* SBD_DAEMON_H */
