/* The floor for rand-read from the page cache: a bare loop of 4 KiB pread()s at random aligned
 * offsets, no per-operation timing. bench/vs-fio.sh compares fsbench (which records every
 * operation's latency) against it.  Usage: pread_loop FILE BS SECONDS -> prints IOPS. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s FILE BS SECONDS\n", argv[0]);
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) { perror(argv[1]); return 1; }
    size_t bs = strtoul(argv[2], NULL, 10);
    double secs = atof(argv[3]);
    struct stat st;
    fstat(fd, &st);
    uint64_t blocks = st.st_size / bs, x = 88172645463325252ULL, ops = 0;
    char *buf = aligned_alloc(4096, bs);
    double start = now(), end = start + secs, t = start;
    while (t < end) {
        for (int i = 0; i < 4096; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            if (pread(fd, buf, bs, (off_t)((x % blocks) * bs)) != (ssize_t)bs) { perror("pread"); return 1; }
        }
        ops += 4096;
        t = now();
    }
    printf("%.0f\n", ops / (t - start));
    return 0;
}
