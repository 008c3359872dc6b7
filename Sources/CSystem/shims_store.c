#define _GNU_SOURCE
#include "CSystem_store.h"
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* posix_spawn + waitpid rather than Foundation's Process: on this toolchain its
 * waitUntilExit() never returned when several ran at once from different threads, though the
 * children had exited. */
int CSystem_store_run(const char *path, char *const argv[], const char *directory, int output_fd) {
    posix_spawn_file_actions_t actions;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) return -rc;
    if ((rc = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)) != 0 ||
        (rc = posix_spawn_file_actions_adddup2(&actions, output_fd, 1)) != 0 ||
        (rc = posix_spawn_file_actions_adddup2(&actions, output_fd, 2)) != 0 ||
        (rc = posix_spawn_file_actions_addchdir_np(&actions, directory)) != 0 ||
        /* A server started through pg_ctl must not hold any descriptor of ours. */
        (rc = posix_spawn_file_actions_addclosefrom_np(&actions, 3)) != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return -rc;
    }
    pid_t pid;
    rc = posix_spawn(&pid, path, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) return -rc;

    int status;
    while (waitpid(pid, &status, 0) == -1) {
        if (errno != EINTR) return -errno;
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -ECHILD;
}

void CSystem_store_set_thread_name(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof(truncated) - 1);
    truncated[sizeof(truncated) - 1] = '\0';
    pthread_setname_np(pthread_self(), truncated);
}
