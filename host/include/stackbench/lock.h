/* SPDX-License-Identifier: MIT */
/*
 * Exclusive ownership: a board is driven by one process at a time, and a campaign of a results
 * database is run by one process at a time, whether that process is the CLI or stackbenchd.
 *
 * Locks are advisory flock(2) locks, so a process that dies (even by SIGKILL) releases them
 * and the next one takes them over at once:
 *   - dev:/dev/NAME   flock on the device node itself (and on the PCI lock file below when
 *                     sysfs names the board's PCI function);
 *   - pci:DDDD:BB:DD.F  a lock file keyed by the function, "stackbench-pci-DDDD:BB:DD.F.lock",
 *                     in the boards' lock folder (sb_board_lock_dir());
 *   - sim:            no lock: a simulated board is private to the process that opens it;
 *   - a campaign      a lock file keyed by the database file (device and inode) and the
 *                     campaign's name.
 * Lock files hold the holder's PID and command line, so that a second user is told who holds
 * the board ("board 'pci:0000:3b:00.0' is busy, held by PID 4242 (stackbench run sweep.yaml)");
 * a file naming a dead process is simply taken over. Campaign locks live in sb_lock_dir(),
 * which every user may write; boards' lock files in sb_board_lock_dir(), which only root and
 * the group 'stackbench' may (root:stackbench 2770, installed by tmpfiles.d): anyone who can
 * open a lock file can hold it, and no user outside the group may keep a board from its daemon.
 */
#ifndef STACKBENCH_LOCK_H
#define STACKBENCH_LOCK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sb_lock;

/*
 * The folder of the lock files: $STACKBENCH_LOCK_DIR, else the first writable one of
 * /run/lock, /var/lock and /tmp (all processes of the machine must agree on it).
 */
const char *sb_lock_dir(void);

/*
 * The folder of the boards' lock files: $STACKBENCH_LOCK_DIR/stackbench, else
 * /run/lock/stackbench. It must be a folder owned by root (or the calling user) that others
 * cannot write (a board lock in any other is refused, SB_ERR_PERM, saying so); when missing,
 * root creates it root:stackbench 2770. Files in it are created 0660.
 */
const char *sb_board_lock_dir(void);

/*
 * Take the lock of the board of a device URI for the calling process, without waiting.
 * *l is NULL for sim: URIs (nothing to lock). Returns 0, SB_ERR_BUSY (detail: "board 'URI'
 * is busy, held by PID N (COMMAND)"), SB_ERR_URI, or SB_ERR_NOT_FOUND / SB_ERR_PERM /
 * SB_ERR_IO (the node or the lock file cannot be opened).
 */
int sb_board_lock(struct sb_lock **l, const char *uri);

/*
 * Take the lock of campaign NAME in the results database db_path (which must exist), without
 * waiting. Returns 0, SB_ERR_BUSY (detail: "campaign 'NAME' is already running in 'DB', held
 * by PID N (COMMAND)"), SB_ERR_NOT_FOUND or SB_ERR_IO.
 */
int sb_campaign_lock(struct sb_lock **l, const char *db_path, const char *name);

/*
 * Take a lock file of one's own (created 0666 when missing) without waiting: what names the
 * subject in the busy message ("state folder '/var/lib/stackbench' is in use"). Returns 0,
 * SB_ERR_BUSY ("WHAT, held by PID N (COMMAND)") or an error opening the file.
 */
int sb_lock_file(struct sb_lock **l, const char *path, const char *what);

/* Release a lock (NULL: nothing). */
void sb_lock_release(struct sb_lock *l);

/* The process holding a lock, as found in its lock file or /proc/locks. */
struct sb_lock_holder {
	long pid;          /* 0: unknown */
	char command[256]; /* its command line, control characters replaced ("" unknown) */
};

/*
 * Parse a lock file's text ("pid N\ncommand TEXT\n"): pure, bounded. Returns 0, or
 * SB_ERR_PARSE when it names no PID.
 */
int sb_lock_parse_holder(const char *text, size_t len, struct sb_lock_holder *h);

/*
 * The process holding the flock that an open file fd could not take (a device node another
 * process has, e.g. an instrument's tty): from /proc/locks, its command from /proc. h->pid is 0
 * when it cannot be found.
 */
void sb_lock_flock_holder(int fd, struct sb_lock_holder *h);

/*
 * Find the holder of a flock on file (dev, ino) in the text of /proc/locks: pure. Returns its
 * PID, or 0 when none.
 */
long sb_lock_find_flock_pid(const char *proc_locks, size_t len, unsigned long dev_major,
                            unsigned long dev_minor, unsigned long ino);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_LOCK_H */
