/* SPDX-License-Identifier: MIT */
/* Atomic outputs and gnuplot quoting (stackbench/output.h, stackbench/gnuplot.h). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/gnuplot.h"
#include "stackbench/output.h"
#include "stackbench/util.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/sb-output-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

static char *slurp(const char *path)
{
	char *data;
	size_t len;

	cr_assert_eq(sb_read_file(path, &data, &len), 0, "%s", sb_error_detail());
	return data;
}

/* Entries in dir other than . and .. */
static int entries(const char *d)
{
	DIR *dh = opendir(d);
	struct dirent *de;
	int n = 0;

	cr_assert_not_null(dh);
	while ((de = readdir(dh)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(dh);
	return n;
}

TestSuite(output, .init = setup, .fini = teardown);

Test(output, commit_replaces_and_abort_leaves_the_old_file)
{
	char path[128];
	struct sb_output o;
	char *s;

	snprintf(path, sizeof(path), "%s/a.txt", dir);
	cr_assert_eq(sb_write_file_atomic(path, "old\n", 4), 0);
	cr_assert_eq(sb_output_open(&o, path), 0);
	fputs("half of a new", o.f);
	fflush(o.f);
	/* while being written, the target still holds the old contents */
	s = slurp(path);
	cr_assert_str_eq(s, "old\n");
	free(s);
	sb_output_abort(&o);
	s = slurp(path);
	cr_assert_str_eq(s, "old\n");
	free(s);
	cr_assert_eq(entries(dir), 1, "the temporary file was left behind");

	cr_assert_eq(sb_output_open(&o, path), 0);
	fputs("new\n", o.f);
	cr_assert_eq(sb_output_commit(&o), 0);
	s = slurp(path);
	cr_assert_str_eq(s, "new\n");
	free(s);
	cr_assert_eq(entries(dir), 1);
}

Test(output, mode_follows_the_umask)
{
	char path[128];
	struct stat st;
	mode_t old = umask(022);

	snprintf(path, sizeof(path), "%s/m.txt", dir);
	cr_assert_eq(sb_write_file_atomic(path, "x", 1), 0);
	umask(old);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0644, "mode %o", st.st_mode & 0777);
}

Test(output, a_planted_link_is_replaced_not_followed)
{
	char path[128], victim[128];
	struct stat st;
	char *s;

	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(path, sizeof(path), "%s/out", dir);
	cr_assert_eq(sb_write_file_atomic(victim, "victim\n", 7), 0);
	cr_assert_eq(symlink(victim, path), 0);
	cr_assert_eq(sb_write_file_atomic(path, "out\n", 4), 0);
	s = slurp(victim);
	cr_assert_str_eq(s, "victim\n");
	free(s);
	cr_assert_eq(lstat(path, &st), 0);
	cr_assert(S_ISREG(st.st_mode));
}

Test(output, errors_name_the_path)
{
	struct sb_output o;

	cr_assert_eq(sb_output_open(&o, "/nonexistent/folder/x.csv"), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "/nonexistent/folder"), "%s", sb_error_detail());
	cr_assert_eq(sb_output_open(&o, dir), SB_ERR_INVAL);
	cr_assert(strstr(sb_error_detail(), "it is a folder"), "%s", sb_error_detail());
	cr_assert_eq(sb_output_open(&o, ""), SB_ERR_INVAL);
}

/* Read a FIFO to its end in a child; returns the child's PID (its output in path.got). */
static pid_t fifo_reader(const char *fifo, const char *got)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char buf[256];
		int in = open(fifo, O_RDONLY), out = open(got, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		ssize_t n;

		if (in < 0 || out < 0)
			_exit(1);
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n)
				_exit(1);
		_exit(n < 0);
	}
	return pid;
}

/* Issue 21, defect 12: a FIFO, a character device and /dev/stdout are written through, never
 * replaced by the rename; a block device is refused; a regular file is still replaced. */
Test(output, devices_and_fifos_are_written_through_not_replaced)
{
	char fifo[128], got[128], chr[128], blk[128], folder[128];
	struct sb_outdir od;
	struct stat st;
	int status, fd;
	pid_t pid;
	char *s;

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(got, sizeof(got), "%s/got", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	pid = fifo_reader(fifo, got);
	cr_assert_eq(sb_write_file_atomic(fifo, "through\n", 8), 0, "%s", sb_error_detail());
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert_eq(lstat(fifo, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
	s = slurp(got);
	cr_assert_str_eq(s, "through\n");
	free(s);
	cr_assert_eq(entries(dir), 2, "a temporary file was left");

	/* /dev/stdout and /dev/fd/N: the descriptor, written as it is. */
	cr_assert_eq(sb_output_kind("/dev/stdout", &fd), SB_OUTPUT_FD);
	cr_assert_eq(fd, 1);
	cr_assert_eq(sb_output_kind("/proc/self/fd/7", &fd), SB_OUTPUT_FD);
	cr_assert_eq(fd, 7);
	cr_assert_eq(sb_output_kind("/dev/null", &fd), SB_OUTPUT_THROUGH);
	cr_assert_eq(sb_write_file_atomic("/dev/null", "x", 1), 0, "%s", sb_error_detail());
	cr_assert_eq(stat("/dev/null", &st), 0);
	cr_assert(S_ISCHR(st.st_mode));

	/* A folder of outputs whose target file is a FIFO: copied through it. */
	snprintf(folder, sizeof(folder), "%s/figs", dir);
	cr_assert_eq(mkdir(folder, 0700), 0);
	snprintf(fifo, sizeof(fifo), "%s/a.txt", folder);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	pid = fifo_reader(fifo, got);
	{
		char path[PATH_MAX];

		cr_assert_eq(sb_outdir_open(&od, folder), 0);
		cr_assert_eq(sb_outdir_claim(&od, "a.txt", path, sizeof(path)), 0);
		cr_assert_eq(sb_write_file_atomic(path, "staged\n", 7), 0);
		cr_assert_eq(sb_outdir_commit(&od), 0, "%s", sb_error_detail());
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert_eq(lstat(fifo, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO in the folder was replaced");
	s = slurp(got);
	cr_assert_str_eq(s, "staged\n");
	free(s);

	/* Device nodes made with mknod (as root): a character device (the numbers of /dev/null)
	 * is written through, a block device refused, neither replaced. */
	if (geteuid() != 0)
		return;
	snprintf(chr, sizeof(chr), "%s/null", dir);
	snprintf(blk, sizeof(blk), "%s/blk", dir);
	cr_assert_eq(mknod(chr, S_IFCHR | 0666, makedev(1, 3)), 0);
	cr_assert_eq(mknod(blk, S_IFBLK | 0600, makedev(7, 250)), 0);
	cr_assert_eq(sb_write_file_atomic(chr, "gone\n", 5), 0, "%s", sb_error_detail());
	cr_assert_eq(lstat(chr, &st), 0);
	cr_assert(S_ISCHR(st.st_mode), "the character device was replaced by a regular file");
	cr_assert_eq(sb_write_file_atomic(blk, "x", 1), SB_ERR_INVAL);
	cr_assert(strstr(sb_error_detail(), "it is a block device"), "%s", sb_error_detail());
	cr_assert_eq(lstat(blk, &st), 0);
	cr_assert(S_ISBLK(st.st_mode));
}

Test(output, outputs_that_are_inputs_are_refused)
{
	char in[128], hard[128], other[128], sub[128], inner[128];
	const char *ins[1];

	snprintf(in, sizeof(in), "%s/in.csv", dir);
	snprintf(hard, sizeof(hard), "%s/hard.csv", dir);
	snprintf(other, sizeof(other), "%s/other.csv", dir);
	snprintf(sub, sizeof(sub), "%s/run", dir);
	snprintf(inner, sizeof(inner), "%s/run/x.csv", dir);
	cr_assert_eq(sb_write_file_atomic(in, "1\n", 2), 0);
	cr_assert_eq(link(in, hard), 0);
	cr_assert_eq(mkdir(sub, 0755), 0);
	cr_assert_eq(sb_write_file_atomic(inner, "2\n", 2), 0);
	ins[0] = in;
	cr_assert_eq(sb_output_check_inputs(in, ins, 1), SB_ERR_INVAL);
	cr_assert(strstr(sb_error_detail(), "is the input"), "%s", sb_error_detail());
	cr_assert_eq(sb_output_check_inputs(hard, ins, 1), SB_ERR_INVAL);
	cr_assert_eq(sb_output_check_inputs(other, ins, 1), 0);
	cr_assert_eq(sb_output_check_inputs("-", ins, 1), 0);
	ins[0] = sub;
	cr_assert_eq(sb_output_check_inputs(inner, ins, 1), SB_ERR_INVAL);
	cr_assert(strstr(sb_error_detail(), "inside the input folder"), "%s", sb_error_detail());
	/* a new file in an input folder replaces nothing */
	snprintf(inner, sizeof(inner), "%s/run/new.sbt", dir);
	cr_assert_eq(sb_output_check_inputs(inner, ins, 1), 0);
}

Test(output, a_folder_appears_whole_and_names_collide_loudly)
{
	struct sb_outdir od;
	char target[128], path[256], check[256];
	FILE *f;

	snprintf(target, sizeof(target), "%s/fig/sub", dir);
	cr_assert_eq(sb_outdir_open(&od, target), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_outdir_claim(&od, "a.dat", path, sizeof(path)), 0);
	cr_assert_not_null(f = fopen(path, "w"));
	fputs("a\n", f);
	fclose(f);
	cr_assert_eq(sb_outdir_claimf(&od, path, sizeof(path), "%s.png", "b"), 0);
	cr_assert_eq(sb_outdir_claim(&od, "a.dat", path, sizeof(path)), SB_ERR_EXISTS);
	cr_assert(strstr(sb_error_detail(), "two outputs would be written to"), "%s",
	          sb_error_detail());
	cr_assert_eq(sb_outdir_claim(&od, "../escape", path, sizeof(path)), SB_ERR_INVAL);
	cr_assert_eq(sb_outdir_claim(&od, "a\nb", path, sizeof(path)), SB_ERR_INVAL);
	/* nothing is in place before the commit */
	snprintf(check, sizeof(check), "%s/a.dat", target);
	cr_assert_neq(access(check, F_OK), 0);
	cr_assert_eq(sb_outdir_commit(&od), 0);
	cr_assert_eq(access(check, F_OK), 0);
	/* only what was written lands (b.png was claimed, never made) */
	cr_assert_eq(entries(target), 1);

	cr_assert_eq(sb_outdir_open(&od, target), 0);
	cr_assert_eq(sb_outdir_claim(&od, "c.dat", path, sizeof(path)), 0);
	cr_assert_not_null(f = fopen(path, "w"));
	fclose(f);
	sb_outdir_abort(&od);
	cr_assert_eq(entries(target), 1, "an aborted folder left files");
}

Test(gnuplot, hostile_text_stays_inside_its_string)
{
	char *buf = NULL, clean[16];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	sb_gnuplot_str(f, "a'b\nsystem(\"x\")\r\x7f");
	fputc('|', f);
	sb_gnuplot_datastr(f, "q\"w\tx");
	fclose(f);
	cr_assert_str_eq(buf, "'a''b system(\"x\")  '|\"q'w x\"");
	free(buf);
	cr_assert_str_eq(sb_text_clean(clean, sizeof(clean),
	                               "a\x01"
	                               "b\n"),
	                 "a b ");
	cr_assert_str_eq(sb_text_clean(clean, 3, "abcdef"), "ab");
}

Test(gnuplot, missing_gnuplot_is_a_clear_error)
{
	cr_assert_eq(sb_gnuplot_run("/nonexistent/gnuplot", "/tmp", "x.gp"), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "gnuplot-nox"), "%s", sb_error_detail());
}

Test(util, numbers_print_shortest_and_read_back_exactly)
{
	static const double v[] = {51.7,   0.1,     1.0 / 3, 30.00802344, 187.55014649999998,
	                           1e-300, -2.5e17, 0.0,     123456789.0};
	char buf[32];

	cr_assert_str_eq(sb_format_double(buf, sizeof(buf), 51.7), "51.7");
	cr_assert_str_eq(sb_format_double(buf, sizeof(buf), 0.1), "0.1");
	cr_assert_str_eq(sb_format_double(buf, sizeof(buf), 0.0), "0");
	cr_assert_str_eq(sb_format_double(buf, sizeof(buf), 1.0 / 0.0), "inf");
	cr_assert_str_eq(sb_format_double(buf, sizeof(buf), 0.0 / 0.0), "nan");
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sb_format_double(buf, sizeof(buf), v[i]);
		cr_assert_eq(strtod(buf, NULL), v[i], "%s", buf);
	}
}
