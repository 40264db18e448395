/* SPDX-License-Identifier: MIT */
/* Board and campaign locks (see stackbench/lock.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/lock.h"
#include "stackbench/log.h"
#include "stackbench/uri.h"
#include "stackbench/util.h"

#define LOCK_TEXT_MAX 1024

struct sb_lock {
	unsigned n;
	int fd[2];
};

const char *sb_lock_dir(void)
{
	static const char *const dirs[] = {"/run/lock", "/var/lock"};
	const char *env = getenv("STACKBENCH_LOCK_DIR");

	if (env && *env)
		return env;
	for (size_t i = 0; i < SB_ARRAY_SIZE(dirs); i++)
		if (access(dirs[i], W_OK | X_OK) == 0)
			return dirs[i];
	return "/tmp";
}

#define BOARD_LOCK_GROUP "stackbench"

const char *sb_board_lock_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("STACKBENCH_LOCK_DIR");

	snprintf(dir, sizeof(dir), "%s/stackbench", env && *env ? env : "/run/lock");
	return dir;
}

/*
 * The boards' lock folder must be a folder no one but root (or this user) and its group can
 * write: in a world-writable one, anyone could make (and hold) a board's lock file and keep
 * the daemon from starting. Missing, root makes it root:stackbench 2770.
 */
static int check_board_dir(const char *dir)
{
	struct stat sb;
	struct group *g;

	if (lstat(dir, &sb) < 0 && errno == ENOENT && geteuid() == 0) {
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return sb_error_set(sb_errno_code(errno),
			                    "cannot make the boards' lock folder '%s': %s", dir,
			                    strerror(errno));
		if ((g = getgrnam(BOARD_LOCK_GROUP)) &&
		    (chown(dir, 0, g->gr_gid) < 0 || chmod(dir, 02770) < 0))
			sb_warn("cannot give '%s' to the group '%s': %s", dir, BOARD_LOCK_GROUP,
			        strerror(errno));
	}
	if (lstat(dir, &sb) < 0)
		return sb_error_set(
		    sb_errno_code(errno),
		    "the boards' lock folder '%s': %s (make it root:" BOARD_LOCK_GROUP
		    " mode 2770: 'systemd-tmpfiles --create' with stackbench "
		    "installed, or 'install -d -m 2770 -g " BOARD_LOCK_GROUP " %s' as root)",
		    dir, strerror(errno), dir);
	if (!S_ISDIR(sb.st_mode))
		return sb_error_set(SB_ERR_PERM, "the boards' lock folder '%s' is not a folder",
		                    dir);
	if ((sb.st_uid != 0 && sb.st_uid != geteuid()) || (sb.st_mode & S_IWOTH))
		return sb_error_set(
		    SB_ERR_PERM,
		    "the boards' lock folder '%s' is %s: anyone could hold a board's lock; it must "
		    "be root's (group " BOARD_LOCK_GROUP ", mode 2770)",
		    dir, sb.st_mode & S_IWOTH ? "world-writable" : "another user's");
	return 0;
}

/* Replace control characters (a command line is anyone's text) and trailing blanks. */
static void sanitize(char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			s[i] = '?';
	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
}

/* /proc/PID/cmdline as one line (arguments separated by spaces), bounded. */
static void proc_command(long pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	buf[0] = '\0';
	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/cmdline");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0) {
		buf[0] = '\0';
		return;
	}
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	sanitize(buf);
}

static bool pid_alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

int sb_lock_parse_holder(const char *text, size_t len, struct sb_lock_holder *h)
{
	size_t i = 0;

	memset(h, 0, sizeof(*h));
	while (i < len) {
		size_t end = i, n;

		while (end < len && text[end] != '\n')
			end++;
		n = end - i;
		if (n > 4 && !memcmp(text + i, "pid ", 4)) {
			long v = 0;
			size_t k = i + 4;

			while (k < end && text[k] >= '0' && text[k] <= '9' && v < 100000000)
				v = v * 10 + (text[k++] - '0');
			if (k == end && k > i + 4)
				h->pid = v;
		} else if (n >= 8 && !memcmp(text + i, "command ", 8)) {
			size_t m = n - 8 < sizeof(h->command) - 1 ? n - 8 : sizeof(h->command) - 1;

			memcpy(h->command, text + i + 8, m);
			h->command[m] = '\0';
			/* A NUL inside the text ends the command early; nothing else reads past. */
			sanitize(h->command);
		}
		i = end + 1;
	}
	return h->pid > 0 ? 0 : SB_ERR_PARSE;
}

long sb_lock_find_flock_pid(const char *text, size_t len, unsigned long dev_major,
                            unsigned long dev_minor, unsigned long ino)
{
	size_t i = 0;

	while (i < len) {
		char line[256], kind[16], mode[16], access_mode[16];
		unsigned long ma, mi, in;
		size_t end = i, n;
		long pid;

		while (end < len && text[end] != '\n')
			end++;
		n = end - i < sizeof(line) - 1 ? end - i : sizeof(line) - 1;
		memcpy(line, text + i, n);
		line[n] = '\0';
		i = end + 1;
		/* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; waiters have "->" after the
		 * number and are skipped (the format then does not match). */
		if (sscanf(line, "%*d: %15s %15s %15s %ld %lx:%lx:%lu", kind, mode, access_mode,
		           &pid, &ma, &mi, &in) == 7 &&
		    !strcmp(kind, "FLOCK") && ma == dev_major && mi == dev_minor && in == ino &&
		    pid > 0)
			return pid;
	}
	return 0;
}

/* The holder of a lock we could not take: /proc/locks first, then the lock file's text. */
static void find_holder(int fd, bool lock_file, struct sb_lock_holder *h)
{
	struct sb_lock_holder from_file = {0};
	char text[LOCK_TEXT_MAX];
	struct stat sb;
	ssize_t n;

	memset(h, 0, sizeof(*h));
	if (lock_file && (n = pread(fd, text, sizeof(text), 0)) > 0)
		sb_lock_parse_holder(text, (size_t)n, &from_file);
	if (fstat(fd, &sb) == 0) {
		char *locks = NULL;
		size_t len;

		if (sb_read_file("/proc/locks", &locks, &len) == 0) {
			h->pid = sb_lock_find_flock_pid(locks, len, major(sb.st_dev),
			                                minor(sb.st_dev), sb.st_ino);
			free(locks);
		}
		sb_error_clear();
	}
	if (!h->pid && pid_alive(from_file.pid))
		h->pid = from_file.pid;
	if (h->pid && h->pid == from_file.pid && from_file.command[0])
		snprintf(h->command, sizeof(h->command), "%s", from_file.command);
	else if (h->pid)
		proc_command(h->pid, h->command, sizeof(h->command));
}

void sb_lock_flock_holder(int fd, struct sb_lock_holder *h)
{
	find_holder(fd, false, h);
}

/*
 * Open (creating when missing, with mode: 0666 so that every user may take it over, 0660 for
 * the group in the boards' folder) a lock file. Never follows a symbolic link; refuses anything
 * but a regular file. *writable says whether the holder's text can be written.
 */
static int open_lock_file(const char *path, mode_t mode, int *out, bool *writable)
{
	const int flags = O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	struct stat sb;
	int fd = -1, err = 0;

	for (int tries = 0; tries < 3 && fd < 0; tries++) {
		*writable = true;
		if ((fd = open(path, O_RDWR | flags)) >= 0)
			break;
		err = errno;
		if (err == EACCES) {
			*writable = false;
			if ((fd = open(path, O_RDONLY | flags)) >= 0)
				break;
			err = errno;
		}
		if (err != ENOENT)
			break;
		if ((fd = open(path, O_RDWR | O_CREAT | O_EXCL | flags, mode)) >= 0) {
			if (fchmod(fd, mode) < 0)
				sb_dbg("lock file '%s': cannot make it %04o: %s", path,
				       (unsigned)mode, strerror(errno));
			break;
		}
		err = errno;
		if (err != EEXIST)
			break;
	}
	if (fd < 0)
		return sb_error_set(sb_errno_code(err), "cannot open the lock file '%s': %s", path,
		                    strerror(err));
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return sb_error_set(SB_ERR_IO, "lock file '%s' is not a regular file", path);
	}
	*out = fd;
	return 0;
}

/* Record the calling process as the holder (a stale holder's text is replaced). */
static void write_holder(int fd, const char *path)
{
	struct sb_lock_holder old;
	char text[LOCK_TEXT_MAX], cmd[256];
	ssize_t n = pread(fd, text, sizeof(text), 0);
	int len;

	if (n > 0 && sb_lock_parse_holder(text, (size_t)n, &old) == 0 && old.pid != getpid())
		sb_info("lock '%s': taking it over from PID %ld (%s), which no longer holds it",
		        path, old.pid, old.command[0] ? old.command : "?");
	proc_command(0, cmd, sizeof(cmd));
	len = snprintf(text, sizeof(text), "pid %ld\ncommand %s\n", (long)getpid(), cmd);
	if (ftruncate(fd, 0) < 0 || pwrite(fd, text, (size_t)len, 0) != len)
		sb_dbg("lock '%s': cannot record the holder: %s", path, strerror(errno));
}

/*
 * flock fd without waiting. Returns 0 or SB_ERR_BUSY with "SUBJECT is busy, held by ..." (what
 * gives the subject, e.g. "board 'pci:...' is busy").
 */
static int take(int fd, bool lock_file, bool writable, const char *path, const char *what)
{
	struct sb_lock_holder h;

	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		if (lock_file && writable)
			write_holder(fd, path);
		return 0;
	}
	if (errno != EWOULDBLOCK)
		return sb_error_set(SB_ERR_IO, "cannot lock '%s': %s", path, strerror(errno));
	find_holder(fd, lock_file, &h);
	if (!h.pid)
		return sb_error_set(SB_ERR_BUSY, "%s, held by another process (lock '%s')", what,
		                    path);
	return sb_error_set(SB_ERR_BUSY, "%s, held by PID %ld (%s)", what, h.pid,
	                    h.command[0] ? h.command : "command unknown");
}

static int lock_file_path(struct sb_lock *l, const char *path, mode_t mode, const char *what)
{
	bool writable = false;
	int fd = -1, e;

	if ((e = open_lock_file(path, mode, &fd, &writable)) < 0)
		return e;
	if ((e = take(fd, true, writable, path, what)) < 0) {
		close(fd);
		return e;
	}
	l->fd[l->n++] = fd;
	return 0;
}

/* The PCI function behind /dev/NAME, from sysfs (the module's class device); 0 if found. */
static int dev_pci_function(const char *node, char *bdf, size_t size)
{
	const char *name = strrchr(node, '/');
	char link[PATH_MAX], target[PATH_MAX];
	struct sb_uri u;
	char uri[80];
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/class/stackbench/%s/device", name ? name + 1 : node);
	if ((n = readlink(link, target, sizeof(target) - 1)) <= 0)
		return -1;
	target[n] = '\0';
	name = strrchr(target, '/');
	snprintf(uri, sizeof(uri), "pci:%.64s", name ? name + 1 : target);
	if (sb_uri_parse(uri, &u) < 0) {
		sb_error_clear();
		return -1;
	}
	snprintf(bdf, size, "%s", u.path);
	return 0;
}

static int lock_pci(struct sb_lock *l, const char *bdf, const char *uri)
{
	char path[PATH_MAX], what[SB_URI_PATH_MAX + 64];

	int e;

	if ((e = check_board_dir(sb_board_lock_dir())) < 0)
		return sb_error_wrap(e, "board '%s'", uri);
	snprintf(path, sizeof(path), "%s/stackbench-pci-%s.lock", sb_board_lock_dir(), bdf);
	snprintf(what, sizeof(what), "board '%s' is busy", uri);
	return lock_file_path(l, path, 0660, what);
}

static int lock_node(struct sb_lock *l, const char *node, const char *uri)
{
	char what[SB_URI_PATH_MAX + 64], bdf[SB_URI_PATH_MAX];
	int fd = open(node, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), e;

	if (fd < 0)
		return sb_error_set(sb_errno_code(errno),
		                    "board '%s': cannot open '%s' to lock it: %s", uri, node,
		                    strerror(errno));
	snprintf(what, sizeof(what), "board '%s' is busy", uri);
	if ((e = take(fd, false, false, node, what)) < 0) {
		close(fd);
		return e;
	}
	l->fd[l->n++] = fd;
	/* The same board through pci: (without the module) takes the function's lock file. */
	if (dev_pci_function(node, bdf, sizeof(bdf)) == 0)
		return lock_pci(l, bdf, uri);
	return 0;
}

int sb_board_lock(struct sb_lock **out, const char *uri)
{
	struct sb_lock *l;
	struct sb_uri u;
	int e;

	*out = NULL;
	if ((e = sb_uri_parse(uri, &u)) < 0)
		return e;
	if (u.scheme == SB_URI_SIM)
		return 0;
	if (!(l = calloc(1, sizeof(*l))))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	e = u.scheme == SB_URI_PCI ? lock_pci(l, u.path, uri) : lock_node(l, u.path, uri);
	if (e < 0) {
		sb_lock_release(l);
		return e;
	}
	*out = l;
	return 0;
}

static uint64_t fnv1a64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

int sb_campaign_lock(struct sb_lock **out, const char *db_path, const char *name)
{
	char path[PATH_MAX], what[PATH_MAX + 128];
	struct stat sb;

	*out = NULL;
	if (stat(db_path, &sb) < 0)
		return sb_error_set(sb_errno_code(errno), "results database '%s': %s", db_path,
		                    strerror(errno));
	snprintf(path, sizeof(path), "%s/stackbench-campaign-%jx-%jx-%016" PRIx64 ".lock",
	         sb_lock_dir(), (uintmax_t)sb.st_dev, (uintmax_t)sb.st_ino, fnv1a64(name));
	snprintf(what, sizeof(what), "campaign '%s' is already running in '%s'", name, db_path);
	return sb_lock_file(out, path, what);
}

int sb_lock_file(struct sb_lock **out, const char *path, const char *what)
{
	struct sb_lock *l;
	int e;

	*out = NULL;
	if (!(l = calloc(1, sizeof(*l))))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	if ((e = lock_file_path(l, path, 0666, what)) < 0) {
		sb_lock_release(l);
		return e;
	}
	*out = l;
	return 0;
}

void sb_lock_release(struct sb_lock *l)
{
	if (!l)
		return;
	/* The files stay: removing one while another process opens it would split the lock. */
	for (unsigned i = 0; i < l->n; i++)
		close(l->fd[i]);
	free(l);
}
