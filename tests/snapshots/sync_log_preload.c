/* A test's LD_PRELOAD library: every flush a program asks for (fdatasync, fsync, syncfs,
 * sync_file_range) is done, and logged as "<call> <path of the descriptor>" (sync_file_range
 * with its flags: "sync_file_range:7", all three, writes and waits) to the file named by
 * ENVFIX_TEST_SYNC_LOG, so a test sees which files an install made durable, and which it did not
 * (index_install_test.cpp, IndexInstall.TheCommitFlushesTheFilesItBroughtInNotTheWheels). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void note(const char* call, int fd) {
    const char* log = getenv("ENVFIX_TEST_SYNC_LOG");
    if (!log) return;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n < 0) n = 0;
    path[n] = '\0';
    char line[4200];
    int len = snprintf(line, sizeof line, "%s %s\n", call, path);
    int out = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (out < 0) return;
    if (write(out, line, (size_t)len) < 0) { /* a test log: nothing to do */ }
    close(out);
}

#define PASS(name, ...) ((int (*)())dlsym(RTLD_NEXT, name))(__VA_ARGS__)

int fdatasync(int fd) { note("fdatasync", fd); return PASS("fdatasync", fd); }
int fsync(int fd) { note("fsync", fd); return PASS("fsync", fd); }
int syncfs(int fd) { note("syncfs", fd); return PASS("syncfs", fd); }
int sync_file_range(int fd, off_t offset, off_t nbytes, unsigned int flags) {
    char call[32];
    snprintf(call, sizeof call, "sync_file_range:%u", flags);
    note(call, fd);
    return ((int (*)(int, off_t, off_t, unsigned int))dlsym(RTLD_NEXT, "sync_file_range"))(fd, offset, nbytes, flags);
}
