/* SPDX-License-Identifier: MIT */
/*
 * Board and campaign locks (stackbench/lock.h): a second holder is refused at once with the
 * first one's PID and command, a dead holder's lock is taken over, sim: boards need none, and
 * the pure parsers of lock files and /proc/locks.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/lock.h"

static char dir[] = "/tmp/sb-lock-XXXXXX";
static char bdir[64]; /* the boards' lock folder in it */

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	setenv("STACKBENCH_LOCK_DIR", dir, 1);
	snprintf(bdir, sizeof(bdir), "%s/stackbench", dir);
	cr_assert_eq(mkdir(bdir, 0770), 0);
	cr_assert_str_eq(sb_board_lock_dir(), bdir);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(lock, .init = setup, .fini = teardown);

/* A child that takes a board's lock and holds it until killed; returns its PID. */
static pid_t holder(const char *uri)
{
	int p[2];
	pid_t pid;
	char c;

	cr_assert_eq(pipe(p), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct sb_lock *l;

		close(p[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a failing test */
		if (sb_board_lock(&l, uri) < 0)
			_exit(1);
		if (write(p[1], "k", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	cr_assert_eq(read(p[0], &c, 1), 1, "the child took the lock");
	close(p[0]);
	return pid;
}

static void end(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

Test(lock, sim_boards_need_no_lock)
{
	struct sb_lock *a, *b;

	cr_assert_eq(sb_board_lock(&a, "sim:"), 0);
	cr_assert_eq(sb_board_lock(&b, "sim:hmc-gen2-ac510?ports=4"), 0);
	cr_assert_null(a);
	cr_assert_null(b);
	cr_assert_eq(sb_board_lock(&a, "pci:1"), SB_ERR_URI);
}

Test(lock, pci_board_busy_names_the_holder_then_is_taken_over)
{
	pid_t pid = holder("pci:3b:00.0");
	struct sb_lock *l;
	char want[64], path[256], text[256];
	FILE *f;

	/* The same function written differently is the same board. */
	cr_assert_eq(sb_board_lock(&l, "pci:0000:3b:00.0"), SB_ERR_BUSY);
	snprintf(want, sizeof(want), "held by PID %ld (", (long)pid);
	cr_assert(strstr(sb_error_detail(), "board 'pci:0000:3b:00.0' is busy"), "%s",
	          sb_error_detail());
	cr_assert(strstr(sb_error_detail(), want), "%s", sb_error_detail());
	cr_assert_null(strstr(sb_error_detail(), "command unknown"), "the holder's command: %s",
	               sb_error_detail());
	end(pid);
	/* Its process died (SIGKILL): the lock is free, the file is rewritten for us. */
	cr_assert_eq(sb_board_lock(&l, "pci:0000:3b:00.0"), 0, "%s", sb_error_detail());
	snprintf(path, sizeof(path), "%s/stackbench-pci-0000:3b:00.0.lock", bdir);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(text, sizeof(text), f));
	fclose(f);
	snprintf(want, sizeof(want), "pid %ld\n", (long)getpid());
	cr_assert_str_eq(text, want);
	sb_lock_release(l);
}

Test(lock, stale_file_of_a_dead_process_is_taken_over)
{
	char path[256];
	struct sb_lock *l;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stackbench-pci-0000:01:00.0.lock", bdir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "pid 999999\ncommand stackbench run old.yaml\n");
	fclose(f);
	cr_assert_eq(sb_board_lock(&l, "pci:01:00.0"), 0, "%s", sb_error_detail());
	sb_lock_release(l);
}

Test(lock, dev_board_locks_the_node)
{
	char node[256];
	struct sb_lock *l;
	pid_t pid;
	int fd;

	snprintf(node, sizeof(node), "%s/stackbench7", dir);
	fd = open(node, O_CREAT | O_WRONLY, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(node, sizeof(node), "dev:%s/stackbench7", dir);
	pid = holder(node);
	cr_assert_eq(sb_board_lock(&l, node), SB_ERR_BUSY);
	{
		char want[64];

		snprintf(want, sizeof(want), "held by PID %ld", (long)pid);
		cr_assert(strstr(sb_error_detail(), want), "found through /proc/locks: %s",
		          sb_error_detail());
	}
	end(pid);
	cr_assert_eq(sb_board_lock(&l, node), 0, "%s", sb_error_detail());
	sb_lock_release(l);
	cr_assert_eq(sb_board_lock(&l, "dev:/nonexistent/stackbench0"), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "cannot open '/nonexistent/stackbench0'"), "%s",
	          sb_error_detail());
}

Test(lock, campaign_lock_per_database_and_name)
{
	char db[256], db2[256];
	struct sb_lock *a, *b, *c, *d;
	int fd;

	snprintf(db, sizeof(db), "%s/r.db", dir);
	snprintf(db2, sizeof(db2), "%s/other.db", dir);
	cr_assert_geq(fd = open(db, O_CREAT | O_WRONLY, 0600), 0);
	close(fd);
	cr_assert_geq(fd = open(db2, O_CREAT | O_WRONLY, 0600), 0);
	close(fd);
	cr_assert_eq(sb_campaign_lock(&a, db, "sweep"), 0);
	/* Even in the same process a second holder is refused (each lock opens its file). */
	cr_assert_eq(sb_campaign_lock(&b, db, "sweep"), SB_ERR_BUSY);
	cr_assert(strstr(sb_error_detail(), "campaign 'sweep' is already running in"), "%s",
	          sb_error_detail());
	cr_assert_eq(sb_campaign_lock(&b, db, "other"), 0);
	cr_assert_eq(sb_campaign_lock(&c, db2, "sweep"), 0);
	sb_lock_release(a);
	cr_assert_eq(sb_campaign_lock(&d, db, "sweep"), 0);
	sb_lock_release(b);
	sb_lock_release(c);
	sb_lock_release(d);
	cr_assert_eq(sb_campaign_lock(&a, "/nonexistent/r.db", "x"), SB_ERR_NOT_FOUND);
}

Test(lock, symlinked_lock_file_is_refused)
{
	char path[256], target[256];
	struct sb_lock *l;

	snprintf(target, sizeof(target), "%s/elsewhere", dir);
	snprintf(path, sizeof(path), "%s/stackbench-pci-0000:02:00.0.lock", bdir);
	cr_assert_eq(symlink(target, path), 0);
	cr_assert_eq(sb_board_lock(&l, "pci:02:00.0"), SB_ERR_IO);
	cr_assert_eq(access(target, F_OK), -1, "nothing was created through the link");
}

/* Issue 21, defect 9: in a world-writable folder anyone could make and hold a board's lock
 * file; the folder is refused, and lock files are made 0660 (the group's), not 0666. */
Test(lock, board_lock_folder_must_not_be_world_writable)
{
	char path[256];
	struct sb_lock *l;
	struct stat st;

	cr_assert_eq(chmod(bdir, 01777), 0);
	cr_assert_eq(sb_board_lock(&l, "pci:04:00.0"), SB_ERR_PERM);
	cr_assert(strstr(sb_error_detail(), "is world-writable: anyone could hold a board's lock"),
	          "%s", sb_error_detail());
	snprintf(path, sizeof(path), "%s/stackbench-pci-0000:04:00.0.lock", bdir);
	cr_assert_eq(access(path, F_OK), -1, "nothing was created there");
	cr_assert_eq(chmod(bdir, 02770), 0);
	cr_assert_eq(sb_board_lock(&l, "pci:04:00.0"), 0, "%s", sb_error_detail());
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0660, "mode %o", (unsigned)(st.st_mode & 07777));
	sb_lock_release(l);
}

Test(lock, parse_holder_text)
{
	struct sb_lock_holder h;
	const char bad[] = "pid 12x\ncommand y\n";
	const char nul[] = "pid 42\ncommand a\0b\n";

	cr_assert_eq(sb_lock_parse_holder("pid 42\ncommand stackbench run a.yaml\n", 37, &h), 0);
	cr_assert_eq(h.pid, 42);
	cr_assert_str_eq(h.command, "stackbench run a.yaml");
	cr_assert_eq(sb_lock_parse_holder(bad, sizeof(bad) - 1, &h), SB_ERR_PARSE);
	cr_assert_eq(sb_lock_parse_holder("", 0, &h), SB_ERR_PARSE);
	cr_assert_eq(sb_lock_parse_holder("command \x1b[31mred\n", 17, &h), SB_ERR_PARSE);
	cr_assert_str_eq(h.command, "?[31mred", "control characters are replaced");
	cr_assert_eq(sb_lock_parse_holder(nul, sizeof(nul) - 1, &h), 0);
	cr_assert_str_eq(h.command, "a");
	cr_assert_eq(sb_lock_parse_holder("pid 99999999999999999999\n", 25, &h), SB_ERR_PARSE,
	             "an absurd PID is no PID");
}

Test(lock, find_flock_holder_in_proc_locks)
{
	static const char text[] = "1: POSIX  ADVISORY  WRITE 100 08:01:77 0 EOF\n"
	                           "2: FLOCK  ADVISORY  WRITE 4242 00:05:1234 0 EOF\n"
	                           "2: -> FLOCK  ADVISORY  WRITE 4343 00:05:1234 0 EOF\n"
	                           "3: OFDLCK ADVISORY  READ  -1 fd:02:1234 0 EOF\n"
	                           "garbage line\n";

	cr_assert_eq(sb_lock_find_flock_pid(text, sizeof(text) - 1, 0, 5, 1234), 4242);
	cr_assert_eq(sb_lock_find_flock_pid(text, sizeof(text) - 1, 8, 1, 77), 0,
	             "POSIX locks are not flocks");
	cr_assert_eq(sb_lock_find_flock_pid(text, sizeof(text) - 1, 0xfd, 2, 1234), 0);
	cr_assert_eq(sb_lock_find_flock_pid("", 0, 0, 5, 1234), 0);
}
