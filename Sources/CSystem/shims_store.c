#define _GNU_SOURCE
#include "CSystem_store.h"
#include <errno.h>
#include <signal.h>
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

int CSystem_store_spawn_watcher(const char *path, char *const argv[], int *write_fd) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -errno;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) goto fail_pipe;
    rc = posix_spawnattr_init(&attributes);
    if (rc != 0) goto fail_actions;
    /* Default signal handling and nothing blocked, whatever this process ignores or blocks:
     * a signal ignored at exec stays ignored in a shell. */
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    if ((rc = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)) != 0 ||
        (rc = posix_spawnattr_setsigdefault(&attributes, &all)) != 0 ||
        (rc = posix_spawnattr_setsigmask(&attributes, &none)) != 0 ||
        (rc = posix_spawn_file_actions_adddup2(&actions, fds[0], 0)) != 0 ||
        (rc = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)) != 0 ||
        (rc = posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)) != 0 ||
        (rc = posix_spawn_file_actions_addclosefrom_np(&actions, 3)) != 0) {
        goto fail_attributes;
    }
    pid_t pid;
    rc = posix_spawn(&pid, path, &actions, &attributes, argv, environ);
    if (rc != 0) goto fail_attributes;
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[0]);
    *write_fd = fds[1];
    return pid;

fail_attributes:
    posix_spawnattr_destroy(&attributes);
fail_actions:
    posix_spawn_file_actions_destroy(&actions);
fail_pipe:
    close(fds[0]);
    close(fds[1]);
    return -rc;
}
