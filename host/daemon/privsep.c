/* SPDX-License-Identifier: MIT */
/*
 * Identities and capabilities: a job process becomes its submitter for good before it touches
 * a path the submitter named (the way slurmstepd and cron do it), and the main process opens
 * board handles without rights a member of the board's group would not have. Raw system calls
 * for the capability sets (linux/capability.h), no libcap.
 */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "daemon.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/log.h"

struct caps {
	struct __user_cap_header_struct h;
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
};

static int caps_get(struct caps *c)
{
	memset(c, 0, sizeof(*c));
	c->h.version = _LINUX_CAPABILITY_VERSION_3;
	return (int)syscall(SYS_capget, &c->h, c->d);
}

static int caps_set(struct caps *c)
{
	c->h.version = _LINUX_CAPABILITY_VERSION_3;
	c->h.pid = 0;
	return (int)syscall(SYS_capset, &c->h, c->d);
}

static bool has(const struct caps *c, unsigned cap, bool permitted)
{
	uint32_t set = permitted ? c->d[cap / 32].permitted : c->d[cap / 32].effective;

	return set & (1u << (cap % 32));
}

bool sbd_can_switch_users(void)
{
	struct caps c;

	if (geteuid() == 0)
		return true;
	return caps_get(&c) == 0 && has(&c, CAP_SETUID, true) && has(&c, CAP_SETGID, true);
}

int sbd_board_handle(const char *uri)
{
	struct caps c, saved;
	bool dropped = false;
	int fd;

	/* The kernel module grants a writable register mapping to an opener with CAP_SYS_RAWIO
	 * (docs/driver.md, "Trust model"); a job must get what a group member gets. */
	if (caps_get(&c) == 0 && has(&c, CAP_SYS_RAWIO, false)) {
		saved = c;
		c.d[CAP_SYS_RAWIO / 32].effective &= ~(1u << (CAP_SYS_RAWIO % 32));
		dropped = caps_set(&c) == 0;
	}
	fd = sb_device_handle_open(uri);
	if (dropped && caps_set(&saved) < 0)
		sb_warn("cannot take CAP_SYS_RAWIO back: %s", strerror(errno));
	return fd;
}

/* Drop every capability (permitted, effective, inheritable, ambient). */
static int drop_caps(void)
{
	struct caps c;

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return sb_error_set(SB_ERR_PERM, "cannot clear the ambient capabilities: %s",
		                    strerror(errno));
	memset(&c, 0, sizeof(c));
	if (caps_set(&c) < 0)
		return sb_error_set(SB_ERR_PERM, "cannot drop the capabilities: %s",
		                    strerror(errno));
	return 0;
}

static int verify(uid_t uid, gid_t gid)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	struct caps c;

	if (getresuid(&ru, &eu, &su) < 0 || ru != uid || eu != uid || su != uid ||
	    getresgid(&rg, &eg, &sg) < 0 || rg != gid || eg != gid || sg != gid)
		return sb_error_set(SB_ERR_PERM, "the identity did not change to %lu:%lu",
		                    (unsigned long)uid, (unsigned long)gid);
	if (uid != 0 && (setuid(0) == 0 || seteuid(0) == 0))
		return sb_error_set(SB_ERR_PERM, "user %lu could become root again",
		                    (unsigned long)uid);
	if (caps_get(&c) < 0)
		return sb_error_set(SB_ERR_PERM, "cannot read the capabilities: %s",
		                    strerror(errno));
	for (unsigned i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (c.d[i].permitted || c.d[i].effective || c.d[i].inheritable)
			return sb_error_set(SB_ERR_PERM, "capabilities are left after the switch");
	return 0;
}

int sbd_become(const struct sbd_cred *owner)
{
	uid_t uid = owner->uid, me = geteuid();
	gid_t gid = owner->gid;
	struct passwd *pw;
	int e;

	if (uid == me || (uid == 0 && me != 0)) {
		/* Root's job in a root daemon runs as root; in a no-root daemon root's and the
		 * daemon user's jobs run as the daemon's user, with no capability. */
		if (me == 0)
			return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0
			           ? sb_error_set(SB_ERR_PERM, "no_new_privs: %s", strerror(errno))
			           : 0;
		uid = me;
		gid = getegid();
		if ((e = drop_caps()) < 0)
			return e;
		goto done;
	}
	/* The user's groups as the user database has them now; a user known only by number
	 * (no entry) keeps the groups it connected with. */
	if ((pw = getpwuid(uid))) {
		gid = pw->pw_gid;
		if (initgroups(pw->pw_name, gid) < 0)
			return sb_error_set(SB_ERR_PERM,
			                    "cannot take the groups of user %lu (%s): %s",
			                    (unsigned long)uid, pw->pw_name, strerror(errno));
	} else if (setgroups(owner->ngroups, owner->groups) < 0) {
		return sb_error_set(SB_ERR_PERM, "cannot take the groups of user %lu: %s",
		                    (unsigned long)uid, strerror(errno));
	}
	if (setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
		return sb_error_set(SB_ERR_PERM, "cannot become user %lu (group %lu): %s",
		                    (unsigned long)uid, (unsigned long)gid, strerror(errno));
	/* From one non-zero user to another the capabilities stay: drop them. */
	if ((e = drop_caps()) < 0)
		return e;
done:
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return sb_error_set(SB_ERR_PERM, "no_new_privs: %s", strerror(errno));
	/* The submitter may not debug or read the memory of the process that was root. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	return verify(uid, gid);
}
