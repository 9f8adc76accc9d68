/* For measuring only: an LD_PRELOAD library under which a program's flushes do nothing, so an
 * install's time without the disk's part in it can be told from its time with it
 * (docs/performance.md). Never for real use: nothing it writes is
 * durable.
 *
 *   cc -O2 -shared -fPIC -o nosync.so bench/nosync_preload.c
 *   LD_PRELOAD=$PWD/nosync.so envfix install ...
 *
 * NOSYNC=kick: only sync_file_range (the write-back a closed file starts) does nothing; the
 * flushes before the commit stay. NOSYNC=delay:MS: everything is done, and each syncfs, fsync and
 * fdatasync then takes MS milliseconds more, as on a disk whose cache flush is that slow (the
 * slope of a program's time against MS is the number of flushes it waits for one after another).
 * Otherwise syncfs, fsync, fdatasync and sync_file_range all return at once. */
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

/* The delay of NOSYNC=delay:MS in microseconds, -1 without it. */
static long delay_us(void) {
    const char* v = getenv("NOSYNC");
    return v && strncmp(v, "delay:", 6) == 0 ? (long)(atof(v + 6) * 1000) : -1;
}

int sync_file_range(int fd, off_t offset, off_t nbytes, unsigned int flags) {
    if (delay_us() >= 0) {
        int (*real)(int, off_t, off_t, unsigned int) = (int (*)(int, off_t, off_t, unsigned int))dlsym(RTLD_NEXT, "sync_file_range");
        return real ? real(fd, offset, nbytes, flags) : 0;
    }
    (void)fd, (void)offset, (void)nbytes, (void)flags;
    return 0;
}

#define PASS_OR_SKIP(name, ...)                                       \
    do {                                                              \
        const long us = delay_us();                                   \
        if (!only_kick() && us < 0) return 0;                         \
        int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, name);      \
        const int r = real ? real(__VA_ARGS__) : 0;                   \
        if (us > 0) usleep((useconds_t)us);                           \
        return r;                                                     \
    } while (0)

int syncfs(int fd) { PASS_OR_SKIP("syncfs", fd); }
int fsync(int fd) { PASS_OR_SKIP("fsync", fd); }
int fdatasync(int fd) { PASS_OR_SKIP("fdatasync", fd); }
