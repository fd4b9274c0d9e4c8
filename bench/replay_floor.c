/* The floor for a replay as fast as possible: a recorded program's calls under its root made
 * again in one thread, in recorded order, each one system call, with nothing timed but the whole
 * loop. bench/replay-fidelity.sh compares `replay:pace=afap,order=strict` (one call at a time
 * too, each timed, its result checked) against it, as calls per second.
 *
 * Input (made by the bench from `fsbench trace show --calls`), one call a line:
 *   S nofollow PATH          stat by path (fstatat)         F ID            fstat of open ID
 *   O ID FLAGS MODE PATH     openat as open ID              C ID            close
 *   R ID SIZE OFFSET|-1      read / pread                   G ID SIZE       getdents64
 *   M ID LEN OFFSET          a mapping, read as the replay reads one under the root (pread)
 *   A MODE PATH              faccessat                      L PATH          readlinkat
 *   W ID SIZE OFFSET|-1      write / pwrite                 U PATH          unlink
 *   K MODE PATH              mkdir                          D PATH          rmdir
 *   N FROM\tTO               rename
 * PATH is relative to ROOT ("." for the root). Usage: replay_floor ROOT CALLS ROUNDS
 * -> prints "calls N ns_per_call X" for the best round. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct call {
    char op;
    long id, a, b;
    char *path, *path2;
};

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *dup_path(const char *p) {
    size_t n = strlen(p);
    while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == '\r')) n--;
    char *s = malloc(n + 1);
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s ROOT CALLS ROUNDS\n", argv[0]);
        return 2;
    }
    int root = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0) { perror(argv[1]); return 1; }
    FILE *in = fopen(argv[2], "r");
    if (!in) { perror(argv[2]); return 1; }
    int rounds = atoi(argv[3]);
    size_t cap = 1024, n = 0;
    struct call *calls = malloc(cap * sizeof *calls);
    long max_id = 0, max_io = 1 << 16;
    char line[8192];
    while (fgets(line, sizeof line, in)) {
        if (n == cap) calls = realloc(calls, (cap *= 2) * sizeof *calls);
        struct call *c = &calls[n];
        memset(c, 0, sizeof *c);
        c->op = line[0];
        int used = 0;
        switch (c->op) {
        case 'S': sscanf(line + 2, "%ld %n", &c->a, &used); c->path = dup_path(line + 2 + used); break;
        case 'F': case 'C': sscanf(line + 2, "%ld", &c->id); break;
        case 'O': sscanf(line + 2, "%ld %ld %ld %n", &c->id, &c->a, &c->b, &used); c->path = dup_path(line + 2 + used); break;
        case 'R': case 'W': case 'M': sscanf(line + 2, "%ld %ld %ld", &c->id, &c->a, &c->b); break;
        case 'G': sscanf(line + 2, "%ld %ld", &c->id, &c->a); break;
        case 'A': case 'K': sscanf(line + 2, "%ld %n", &c->a, &used); c->path = dup_path(line + 2 + used); break;
        case 'L': case 'U': case 'D': c->path = dup_path(line + 2); break;
        case 'N': {
            char *tab = strchr(line + 2, '\t');
            if (!tab) continue;
            *tab = 0;
            c->path = dup_path(line + 2);
            c->path2 = dup_path(tab + 1);
            break;
        }
        default: continue;
        }
        if (c->id > max_id) max_id = c->id;
        if (c->a > max_io && (c->op == 'R' || c->op == 'W' || c->op == 'G')) max_io = c->a;
        n++;
    }
    if (max_io > (16 << 20)) max_io = 16 << 20;
    int *fd = malloc((max_id + 1) * sizeof *fd);
    char *buf = calloc(1, max_io);
    double best = 1e30;
    for (int r = 0; r < rounds; r++) {
        for (long i = 0; i <= max_id; i++) fd[i] = -1;
        double t0 = now();
        struct stat st;
        char link[4096];
        for (size_t i = 0; i < n; i++) {
            struct call *c = &calls[i];
            long sz = c->a > max_io ? max_io : c->a;
            switch (c->op) {
            case 'S': fstatat(root, c->path, &st, c->a ? AT_SYMLINK_NOFOLLOW : 0); break;
            case 'F': if (fd[c->id] >= 0) fstat(fd[c->id], &st); break;
            case 'O': fd[c->id] = openat(root, c->path, (int)c->a | O_CLOEXEC, (mode_t)c->b); break;
            case 'C': if (fd[c->id] >= 0) { close(fd[c->id]); fd[c->id] = -1; } break;
            case 'R':
                if (fd[c->id] >= 0) {
                    if (c->b >= 0) pread(fd[c->id], buf, sz, c->b); else read(fd[c->id], buf, sz);
                }
                break;
            case 'W':
                if (fd[c->id] >= 0) {
                    if (c->b >= 0) pwrite(fd[c->id], buf, sz, c->b); else write(fd[c->id], buf, sz);
                }
                break;
            case 'M':
                if (fd[c->id] >= 0) {
                    for (long at = c->b, end = c->b + c->a; at < end;) {
                        long k = end - at > max_io ? max_io : end - at;
                        ssize_t got = pread(fd[c->id], buf, k, at);
                        if (got <= 0) break;
                        at += got;
                    }
                }
                break;
            case 'G': if (fd[c->id] >= 0) syscall(SYS_getdents64, fd[c->id], buf, sz); break;
            case 'A': faccessat(root, c->path, (int)c->a, 0); break;
            case 'L': readlinkat(root, c->path, link, sizeof link); break;
            case 'U': unlinkat(root, c->path, 0); break;
            case 'K': mkdirat(root, c->path, (mode_t)c->a); break;
            case 'D': unlinkat(root, c->path, AT_REMOVEDIR); break;
            case 'N': renameat(root, c->path, root, c->path2); break;
            }
        }
        double t = now() - t0;
        for (long i = 0; i <= max_id; i++)
            if (fd[i] >= 0) close(fd[i]);
        if (t < best) best = t;
    }
    printf("calls %zu ns_per_call %.1f\n", n, best * 1e9 / (n ? n : 1));
    return 0;
}
