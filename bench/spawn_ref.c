// The reference for how fast fsbench's `command` workload could time a program: it starts the
// program exactly as fsbench does (clone(CLONE_VM | CLONE_VFORK) on a stack of its own, its own
// process group, the death signal, handlers reset, /dev/null for its streams; the exit seen
// through a pidfd) and does nothing else. Prints the median wall time of RUNS starts, seconds.
//
//   spawn_ref RUNS PATH ARGV0 [ARGS...]
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
static char **child_argv;
static char *child_path;
static int null_fd;

static int child(void *unused) {
  (void)unused;
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  for (int sig = 1; sig < 65; sig++) {
    struct sigaction old;
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, NULL, &old);
  }
  dup2(null_fd, 0);
  dup2(null_fd, 1);
  dup2(null_fd, 2);
  execve(child_path, child_argv, environ);
  _exit(127);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: spawn_ref RUNS PATH ARGV0 [ARGS...]\n");
    return 2;
  }
  int runs = atoi(argv[1]);
  child_path = argv[2];
  child_argv = argv + 3;
  null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  double *times = calloc(runs, sizeof *times);
  char *stack = malloc(64 * 1024);
  if (runs < 1 || null_fd < 0 || !times || !stack) return 2;
  for (int i = 0; i < runs; i++) {
    double start = now_s();
    int pid = clone(child, stack + 64 * 1024, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
    if (pid < 0) return 1;
    int fd = syscall(SYS_pidfd_open, pid, 0);
    struct pollfd p = {fd, POLLIN, 0};
    poll(&p, 1, -1);
    times[i] = now_s() - start;
    int status;
    waitpid(pid, &status, 0);
    close(fd);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  }
  qsort(times, runs, sizeof *times, by_value);
  printf("%.6f\n", times[runs / 2]);
  return 0;
}
