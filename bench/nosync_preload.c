/* For measuring only: an LD_PRELOAD library under which a program's flushes do nothing, so an
 * install's time without the disk's part in it can be told from its time with it
 * (docs/performance.md, "The thirteenth session"). Never for real use: nothing it writes is
 * durable.
 *
 *   cc -O2 -shared -fPIC -o nosync.so bench/nosync_preload.c
 *   LD_PRELOAD=$PWD/nosync.so envfix install ...
 *
 * NOSYNC=kick: only sync_file_range (the write-back a closed file starts) does nothing; the
 * flushes before the commit stay. Otherwise syncfs, fsync, fdatasync and sync_file_range all
 * return at once. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int only_kick(void) {
    const char* v = getenv("NOSYNC");
    return v && strcmp(v, "kick") == 0;
}

int sync_file_range(int fd, off_t offset, off_t nbytes, unsigned int flags) {
    (void)fd, (void)offset, (void)nbytes, (void)flags;
    return 0;
}

#define PASS_OR_SKIP(name, ...)                                       \
    do {                                                              \
        if (!only_kick()) return 0;                                   \
        int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, name);      \
        return real ? real(__VA_ARGS__) : 0;                          \
    } while (0)

int syncfs(int fd) { PASS_OR_SKIP("syncfs", fd); }
int fsync(int fd) { PASS_OR_SKIP("fsync", fd); }
int fdatasync(int fd) { PASS_OR_SKIP("fdatasync", fd); }
