/* The floor for `walk`: a minimal recursive walker, getdents64 + fstatat(AT_SYMLINK_NOFOLLOW)
 * per entry relative to the open directory, depth first, as fsbench's walker does.
 * Usage: walk DIR -> prints the number of entries. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct linux_dirent64 { unsigned long long d_ino; long long d_off; unsigned short d_reclen; unsigned char d_type; char d_name[]; };

static unsigned long long entries;

static void walk(int dfd) {
    char buf[65536];
    char (*subs)[256] = NULL;
    size_t nsubs = 0, cap = 0;
    for (;;) {
        long n = syscall(SYS_getdents64, dfd, buf, sizeof buf);
        if (n <= 0) break;
        for (long off = 0; off < n;) {
            struct linux_dirent64 *d = (void *)(buf + off);
            off += d->d_reclen;
            if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..")) continue;
            entries++;
            struct stat st;
            if (fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
                if (nsubs == cap) { cap = cap ? cap * 2 : 16; subs = realloc(subs, cap * 256); }
                strncpy(subs[nsubs++], d->d_name, 255);
            }
        }
    }
    for (size_t i = 0; i < nsubs; i++) {
        int sfd = openat(dfd, subs[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sfd >= 0) { walk(sfd); }
    }
    free(subs);
    close(dfd);
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    int fd = open(argv[1], O_RDONLY | O_DIRECTORY);
    if (fd < 0) { perror(argv[1]); return 1; }
    walk(fd);
    printf("%llu\n", entries);
    return 0;
}
