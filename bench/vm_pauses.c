/* Pauses of a virtual machine's CPUs, seen from inside it, with no tool of ours running
 * (docs/performance.md). On the GPU machine each warm install held
 * one window of 9-46 ms in which none of its threads ran nor was switched out; this tells
 * whether such windows come without envfix, and whether memory the guest touches for the first
 * time is what stops its CPUs (memory a host backs lazily, as after a snapshot's restore, costs
 * a fault on the host per page first touched; the guest sees only lost time). They did not: the
 * idle machine lost 3-7 ms at a time, and the windows were envfix's descriptor table growing.
 *
 *   vm_pauses spin THREADS SECONDS MIN_US    threads each spinning on CLOCK_MONOTONIC (thread i
 *                                            pinned to CPU i); every gap of MIN_US or more
 *   vm_pauses sleep THREADS SECONDS MIN_US   threads each sleeping 200 us in a loop; every wake
 *                                            MIN_US or more late
 *   vm_pauses churn THREADS SECONDS MIN_US   one thread sleeping 200 us in a loop, as above, while
 *                                            the main thread makes THREADS threads (each touching
 *                                            1 MiB it mallocs) and joins them, every 2 ms: what
 *                                            a warm install's short-lived threads do
 *   vm_pauses touch GIB SECONDS              GiB-sized anonymous maps populated one after another
 *                                            (the kernel zeroes each page: the first touch),
 *                                            until GIB, MemAvailable less 6 GiB, or SECONDS;
 *                                            each GiB's rate; then all unmapped, and the same
 *                                            again (pages the host has already backed)
 *
 * Every line carries CLOCK_MONOTONIC seconds, as perf -k CLOCK_MONOTONIC and envfix -vv do.
 * Build: cc -O2 -pthread -o vm_pauses bench/vm_pauses.c
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct job {
  int id;
  int sleep_mode;
  double seconds, min_s;
  int gaps;
  double worst, total;
};

static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;

static void *watch(void *p) {
  struct job *j = p;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(j->id, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);  // best effort
  double start = now(), last = start, end = start + j->seconds;
  struct timespec nap = {0, 200000};
  while (last < end) {
    if (j->sleep_mode) nanosleep(&nap, NULL);
    double t = now();
    double gap = t - last - (j->sleep_mode ? 200e-6 : 0);
    if (gap >= j->min_s) {
      j->gaps++;
      j->total += gap;
      if (gap > j->worst) j->worst = gap;
      pthread_mutex_lock(&out);
      printf("gap %.6f thread %d cpu %d %.3f ms\n", last, j->id, sched_getcpu(), gap * 1e3);
      pthread_mutex_unlock(&out);
    }
    last = t;
  }
  return NULL;
}

static int watch_all(int threads, double seconds, double min_us, int sleep_mode) {
  pthread_t *t = calloc(threads, sizeof *t);
  struct job *j = calloc(threads, sizeof *j);
  double start = now();
  for (int i = 0; i < threads; i++) {
    j[i] = (struct job){i, sleep_mode, seconds, min_us / 1e6, 0, 0, 0};
    pthread_create(&t[i], NULL, watch, &j[i]);
  }
  int gaps = 0;
  double worst = 0, total = 0;
  for (int i = 0; i < threads; i++) {
    pthread_join(t[i], NULL);
    gaps += j[i].gaps;
    total += j[i].total;
    if (j[i].worst > worst) worst = j[i].worst;
  }
  printf("%s %d threads from %.6f for %.1f s: %d gaps of %.0f us or more, %.1f ms in all, the longest %.3f ms\n",
         sleep_mode ? "sleep" : "spin", threads, start, seconds, gaps, min_us, total * 1e3, worst * 1e3);
  return 0;
}

static void *brief(void *p) {
  (void)p;
  char *m = malloc(1 << 20);
  memset(m, 1, 1 << 20);
  free(m);
  return NULL;
}

static int churn(int threads, double seconds, double min_us) {
  pthread_t w, *t = calloc(threads, sizeof *t);
  struct job j = {0, 1, seconds, min_us / 1e6, 0, 0, 0};
  pthread_create(&w, NULL, watch, &j);
  double start = now(), end = start + seconds, worst = 0;
  long rounds = 0;
  struct timespec nap = {0, 2000000};
  while (now() < end) {
    double t0 = now();
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, brief, NULL);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    if (now() - t0 > worst) worst = now() - t0;
    rounds++;
    nanosleep(&nap, NULL);
  }
  pthread_join(w, NULL);
  printf("churn %d threads a round from %.6f for %.1f s: %ld rounds, the longest %.3f ms; the sleeper: %d gaps of "
         "%.0f us or more, %.1f ms in all, the longest %.3f ms\n",
         threads, start, seconds, rounds, worst * 1e3, j.gaps, min_us, j.total * 1e3, j.worst * 1e3);
  return 0;
}

static long available_gib(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  long kib = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %ld kB", &kib) == 1) break;
  if (f) fclose(f);
  return kib / (1024 * 1024);
}

static int touch(long gib, double seconds) {
  long room = available_gib() - 6;
  if (gib > room) gib = room;
  void **maps = calloc(gib > 0 ? gib : 1, sizeof *maps);
  for (int pass = 1; pass <= 2; pass++) {
    double start = now(), end = start + seconds, slowest = 1e9, fastest = 0;
    long n = 0;
    for (; n < gib && now() < end; n++) {
      double t = now();
      maps[n] = mmap(NULL, 1L << 30, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
      if (maps[n] == MAP_FAILED) break;
      double rate = 1.0 / (now() - t);  // GiB/s
      if (rate < slowest) slowest = rate;
      if (rate > fastest) fastest = rate;
      printf("touch pass %d GiB %ld at %.6f: %.2f GiB/s\n", pass, n + 1, t, rate);
    }
    double took = now() - start;
    printf("touch pass %d: %ld GiB in %.2f s, %.2f GiB/s (each GiB %.2f-%.2f GiB/s)\n", pass, n, took,
           n / took, n ? slowest : 0, fastest);
    fflush(stdout);
    for (long i = 0; i < n; i++) munmap(maps[i], 1L << 30);
    gib = n;  // the second pass touches what the first did
  }
  return 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc == 5 && (!strcmp(argv[1], "spin") || !strcmp(argv[1], "sleep")))
    return watch_all(atoi(argv[2]), atof(argv[3]), atof(argv[4]), !strcmp(argv[1], "sleep"));
  if (argc == 5 && !strcmp(argv[1], "churn")) return churn(atoi(argv[2]), atof(argv[3]), atof(argv[4]));
  if (argc == 4 && !strcmp(argv[1], "touch")) return touch(atol(argv[2]), atof(argv[3]));
  fprintf(stderr, "usage: vm_pauses spin|sleep|churn THREADS SECONDS MIN_US | vm_pauses touch GIB SECONDS\n");
  return 2;
}
