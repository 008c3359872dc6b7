#ifndef CSYSTEM_STORE_H
#define CSYSTEM_STORE_H

#include <postgresql/libpq-fe.h>

/* libpq's PG_DIAG_* field codes are character-literal macros, which Swift does not import. */
static const int CSystem_PG_DIAG_SQLSTATE = PG_DIAG_SQLSTATE;
static const int CSystem_PG_DIAG_MESSAGE_PRIMARY = PG_DIAG_MESSAGE_PRIMARY;

/* Runs the program at `path` with `argv` (NULL-terminated, argv[0] included) in `directory`,
 * stdin from /dev/null, stdout and stderr to `output_fd`, and no other inherited descriptor,
 * then waits for it. Blocks the calling thread.
 * Returns its exit status (0-255), 128 + the signal that killed it, or -errno when it could
 * not be started. */
int CSystem_store_run(const char *path, char *const argv[], const char *directory, int output_fd);

/* Starts the program at `path` with `argv` in a session of its own (terminal signals do not
 * reach it), default signal handling, stdin the read end of a fresh pipe, stdout and stderr /dev/null, and no other
 * inherited descriptor; does not wait. The pipe's write end, close-on-exec, is stored in
 * `*write_fd`: the child sees end of file when the caller closes it or dies, however it dies.
 * Returns the child's pid, or -errno when it could not be started. */
int CSystem_store_spawn_watcher(const char *path, char *const argv[], int *write_fd);

#endif
