/* The reference for bench/card.sh: J forked processes doing one card operation for S seconds,
 * started together, each counting its operations over its own active time (recycling a create
 * batch of 1,000 names off the clock, as fsbench does), the sum of their rates printed.
 * Operations, with the syscalls fsbench's loop makes: DRBL (pread 4 KiB at 0 of the job's own
 * file), MWCM (openat O_CREAT|O_EXCL of a name in an open shared directory, then close; the
 * batch removed with unlinkat), MRDM (open a shared 256-entry directory, getdents64 into a
 * 64 KiB buffer to its end, close).
 * Usage: fx_ref OP DIR JOBS SECONDS */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

enum { DRBL, MWCM, MRDM };

/* One operation of kind `k`; `ops` counts the creates of this job so far (its names). */
static void step(int k, int fd, int dfd, const char *dir, int j, long *ops, double *paused,
                 char *buf, char *dents) {
  char path[4096];
  if (k == DRBL) {
    if (pread(fd, buf, 4096, 0) != 4096) _exit(3);
  } else if (k == MWCM) {
    if (*ops > 0 && *ops % 1000 == 0) {
      double a = now();
      for (long i = *ops - 1000; i < *ops; i++) {
        snprintf(path, sizeof path, "j%d-%ld", j, i);
        unlinkat(dfd, path, 0);
      }
      *paused += now() - a;
    }
    snprintf(path, sizeof path, "j%d-%ld", j, *ops);
    int f = openat(dfd, path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (f < 0) _exit(3);
    close(f);
  } else {
    snprintf(path, sizeof path, "%s/dir", dir);
    int d = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d < 0) _exit(3);
    while (syscall(SYS_getdents64, d, dents, 64 << 10) > 0) {}
    close(d);
  }
  (*ops)++;
}

static void job(const char *op, const char *dir, int j, double start, double end, int out) {
  char path[4096], buf[4096];
  long ops = 0;
  double paused = 0;
  memset(buf, 7, sizeof buf);
  int fd = -1, dfd = -1;
  static char dents[64 << 10];
  snprintf(path, sizeof path, "%s/shared", dir);
  dfd = open(path, O_RDONLY | O_DIRECTORY);
  if (dfd < 0) _exit(3);
  if (!strcmp(op, "DRBL")) {
    snprintf(path, sizeof path, "%s/ref-%d", dir, j);
    fd = open(path, O_RDWR | O_CREAT, 0644);
    if (fd < 0 || pwrite(fd, buf, 4096, 0) != 4096) _exit(3);
  }
  int k = !strcmp(op, "DRBL") ? DRBL : !strcmp(op, "MWCM") ? MWCM : MRDM;
  /* Warm-up: the operation itself until the start, as fsbench's jobs do; a create job then
   * starts its window on a fresh batch, off the clock. */
  long warm = 0;
  double ignored = 0;
  while (now() < start) step(k, fd, dfd, dir, j + 1000, &warm, &ignored, buf, dents);
  if (k == MWCM)
    for (long i = 0; i < warm; i++) {
      snprintf(path, sizeof path, "j%d-%ld", j + 1000, i);
      unlinkat(dfd, path, 0);
    }
  double t0 = now(), t = t0;
  while (t < end) {
    step(k, fd, dfd, dir, j, &ops, &paused, buf, dents);
    if (ops % 8 == 0) t = now();
  }
  double rate = ops / (t - t0 - paused);
  if (write(out, &rate, sizeof rate) != sizeof rate) _exit(3);
  _exit(0);
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: fx_ref OP DIR JOBS SECONDS\n");
    return 2;
  }
  const char *op = argv[1], *dir = argv[2];
  int jobs = atoi(argv[3]);
  double secs = atof(argv[4]);
  char path[4096];
  snprintf(path, sizeof path, "%s/shared", dir);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/dir", dir);
  mkdir(path, 0755);
  for (int i = 0; i < 256; i++) {
    snprintf(path, sizeof path, "%s/dir/f%d", dir, i);
    close(open(path, O_CREAT | O_WRONLY, 0644));
  }
  int p[2];
  if (pipe(p)) return 3;
  double start = now() + 0.3, end = start + secs; /* 0.3 s: forking, then warm-up */
  for (int j = 0; j < jobs; j++)
    if (fork() == 0) job(op, dir, j, start, end, p[1]);
  double sum = 0, r;
  for (int j = 0; j < jobs; j++) {
    if (read(p[0], &r, sizeof r) != sizeof r) return 3;
    sum += r;
  }
  while (wait(NULL) > 0) {}
  printf("%.0f\n", sum);
  return 0;
}
