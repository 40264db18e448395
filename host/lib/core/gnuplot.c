/* SPDX-License-Identifier: MIT */
/* gnuplot: quoting hostile text and running it on a script. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/gnuplot.h"
#include "stackbench/util.h"

extern char **environ;

static bool is_control(char c)
{
	return (unsigned char)c < 0x20 || c == 0x7f;
}

char *sb_text_clean(char *out, size_t size, const char *in)
{
	size_t i = 0;

	if (!size)
		return out;
	for (; in[i] && i + 1 < size; i++)
		out[i] = is_control(in[i]) ? ' ' : in[i];
	out[i] = '\0';
	return out;
}

void sb_gnuplot_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(is_control(*s) ? ' ' : *s, f);
	}
	fputc('\'', f);
}

void sb_gnuplot_datastr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		fputc(is_control(*s) ? ' ' : *s == '"' ? '\'' : *s, f);
	fputc('"', f);
}

int sb_gnuplot_run(const char *prog, const char *dir, const char *script)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = {(char *)(prog ? prog : "gnuplot"), (char *)script, NULL};
	char log_path[4096], last[256] = "";
	pid_t pid;
	int status, err;
	FILE *log;

	snprintf(log_path, sizeof(log_path), "%s/gnuplot.log", dir);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addchdir_np(&fa, dir);
	posix_spawn_file_actions_addopen(&fa, 1, "gnuplot.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err == ENOENT)
		return sb_error_set(SB_ERR_NOT_FOUND,
		                    "cannot draw figures: '%s' is not installed (Debian: apt-get "
		                    "install gnuplot-nox, or run scripts/deps.sh)",
		                    argv[0]);
	if (err)
		return sb_error_set(SB_ERR_IO, "cannot run '%s': %s", argv[0], strerror(err));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return sb_error_set(SB_ERR_IO, "waiting for gnuplot: %s", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return sb_error_set(SB_ERR_NOT_FOUND,
		                    "cannot draw figures: '%s' could not be started (Debian: "
		                    "apt-get install gnuplot-nox)",
		                    argv[0]);
	if ((log = fopen(log_path, "r"))) {
		char line[256];

		while (fgets(line, sizeof(line), log))
			if (line[strspn(line, " \t\r\n^")])
				sb_text_clean(last, sizeof(last), line);
		fclose(log);
		for (size_t n = strlen(last); n && last[n - 1] == ' ';)
			last[--n] = '\0';
	}
	return sb_error_set(SB_ERR_IO, "gnuplot failed on '%s' (exit %d): %s", script,
	                    WIFEXITED(status) ? WEXITSTATUS(status) : -1, last);
}
