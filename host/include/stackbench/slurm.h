/* SPDX-License-Identifier: MIT */
/*
 * Work as Slurm job arrays (docs/cluster.md): N task command lines become one sbatch script for
 * a job array (task i runs command i), a final command (the merge) becomes a job that runs
 * after the array; both are submitted with `sbatch --parsable` and recorded in a state file in
 * the work's folder, which `squeue` is then asked about. Slurm does the placement, retries,
 * accounting and cancellation; this is only the submission and the reading of its queue.
 *
 * Nothing reaches a shell unquoted: every argument of every command is single-quoted in the
 * scripts, and sbatch, squeue, scancel and scontrol are run without a shell.
 */
#ifndef STACKBENCH_SLURM_H
#define STACKBENCH_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SB_SLURM_MAX_TASKS 1000 /* Slurm's default MaxArraySize allows task ids 0..1000 */

/* What to run. */
struct sb_slurm_job {
	const char *name;  /* the job name (sbatch --job-name); the merge job gets "-merge" */
	const char *dir;   /* the work's folder (shared file system): scripts, logs, state */
	const char *chdir; /* the tasks' working folder (sbatch --chdir; absolute) */
	unsigned ntasks;   /* task ids 0..ntasks-1 */
	/* task i's command (argv, NULL-terminated; argv[0] an absolute path or on $PATH) */
	char *const *const *task_argv;
	char *const *merge_argv; /* the final command after every task (NULL: none) */
	/* sbatch options passed through (--partition=..., --gres=..., --constraint=...): to the
	 * array; to the merge job too but for those that pick boards (--gres, --constraint,
	 * --gpus..., --exclusive) */
	char *const *opts;
	unsigned nopts;
};

/*
 * Refuse sbatch options that would break the work: those it sets itself (--array, --dependency,
 * --parsable, --chdir, --wrap; -a, -d, -D). Returns 0 or SB_ERR_INVAL naming the option.
 */
int sb_slurm_check_options(char *const *opts, unsigned n);

/* The job array's sbatch script (malloc'ed text): task $SLURM_ARRAY_TASK_ID runs its command. */
int sb_slurm_array_script(const struct sb_slurm_job *j, char **text);
/* The merge job's script (malloc'ed text). */
int sb_slurm_merge_script(const struct sb_slurm_job *j, char **text);

/*
 * The sbatch command lines (malloc'ed argv, NULL-terminated; free with sb_slurm_argv_free):
 * the array of the tasks marked in `tasks` (ntasks entries) with its script at `script`, and
 * the merge job, after job `after` (NULL: no dependency).
 */
int sb_slurm_array_argv(const struct sb_slurm_job *j, const bool *tasks, const char *script,
                        char ***argv);
int sb_slurm_merge_argv(const struct sb_slurm_job *j, const char *after, const char *script,
                        char ***argv);
void sb_slurm_argv_free(char **argv);

/* What a submission gave. */
struct sb_slurm_submitted {
	char array_job[32]; /* "" when no task was submitted */
	char merge_job[32]; /* "" when no merge job */
};

/*
 * Submit the tasks marked in `tasks` (none: only the merge, without a dependency) and, when
 * `merge`, the merge job after them: the scripts are written into j->dir (array.sh, merge.sh),
 * sbatch runs with --parsable, and the submission is added to j->dir/slurm.json. Returns 0,
 * SB_ERR_NOT_FOUND (sbatch not installed), SB_ERR_IO (sbatch failed: the detail has its
 * message) or a file error.
 */
int sb_slurm_submit(const struct sb_slurm_job *j, const bool *tasks, bool merge,
                    struct sb_slurm_submitted *out);

/* A job or array task as the queue shows it. */
struct sb_slurm_state {
	char job[32];    /* "123_4" (task 4 of array 123) or "124"; "" never submitted */
	char state[24];  /* squeue's state (PENDING, RUNNING, ...); "" not in the queue (done) */
	char reason[64]; /* squeue's reason (Dependency, DependencyNeverSatisfied, ...) */
};

struct sb_slurm_status {
	unsigned ntasks;
	struct sb_slurm_state *task; /* each task's latest submission */
	struct sb_slurm_state merge; /* the latest merge job */
	unsigned submissions;        /* how many were recorded */
};

/*
 * The state of the work recorded in dir (slurm.json) and the queue: squeue is asked about the
 * user's jobs (`squeue --me --array`). A job not in the queue has finished (or was never
 * submitted: job ""). Returns 0, SB_ERR_NOT_FOUND (squeue not installed), SB_ERR_IO (squeue
 * failed: no controller?), SB_ERR_PARSE (a damaged slurm.json), SB_ERR_NOMEM.
 */
int sb_slurm_status(const char *dir, unsigned ntasks, struct sb_slurm_status *s);
void sb_slurm_status_free(struct sb_slurm_status *s);

/* Whether a job in this state is still in the queue (pending, running, completing...). */
bool sb_slurm_in_queue(const struct sb_slurm_state *s);

/* Cancel a job or array task (scancel JOB). Returns 0 or SB_ERR_IO with scancel's message. */
int sb_slurm_cancel(const char *job);

/*
 * The board a task runs on, from the node's configuration (docs/cluster.md): `how` is "node"
 * (the first board listed in the node's board file) or "gres:NAME" (the board of the GRES NAME
 * Slurm allocated to this job on this node: the index `scontrol show job -d` gives, as a line
 * number of the board file). The board file is $STACKBENCH_BOARDS, else /etc/stackbench/boards:
 * one device URI a line, '#' comments. Returns 0, SB_ERR_INVAL (bad `how`), SB_ERR_NOT_FOUND
 * (no board file, no such line, not in a Slurm job, no such GRES allocated), SB_ERR_IO.
 */
int sb_slurm_board(const char *how, char *uri, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_SLURM_H */
