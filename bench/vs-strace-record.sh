#!/usr/bin/env bash
# `fsbench record` against `strace -f --seccomp-bpf` following the same system calls (issue 43):
# the same program (`git status` over a generated 5,000-file repository, warm), the same
# machine, alternating which tool goes first, ROUNDS rounds. Prints per round the traced run's
# wall time under each tool, their ratio fsbench/strace, the calls each saw (a cross-check of
# what is followed), and fsbench's own overhead line (traced against untraced).
#
#   bench/vs-strace-record.sh [ROUNDS]     (default 5)
source "$(dirname "$0")/common.sh"
need strace strace
need git git
build_fsbench
ROUNDS="${1:-5}"
WORK="$(mktemp -d /var/tmp/fsbench-vs-strace.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

REPO="$WORK/repo"
make_repo "$REPO"

CALLS=open,openat,openat2,creat,close,read,pread64,readv,preadv,preadv2,write,pwrite64,writev,pwritev,pwritev2,lseek,fsync,fdatasync,sync_file_range,truncate,ftruncate,fallocate,stat,lstat,fstat,newfstatat,statx,access,faccessat,faccessat2,getdents64,getdents,readlink,readlinkat,mkdir,mkdirat,rmdir,unlink,unlinkat,rename,renameat,renameat2,link,linkat,symlink,symlinkat,chmod,fchmod,fchmodat,chown,lchown,fchown,fchownat,utimensat,chdir,fchdir,mmap,dup,dup2,dup3,fcntl

fsbench_round() { # prints: wall_ns calls
  (cd "$REPO" && "$FSBENCH" record --untraced 1 -o "$WORK/t.fsbtrace" -- git status >/dev/null 2>"$WORK/rec.err")
  "$FSBENCH" trace show --export-json "$WORK/s.json" "$WORK/t.fsbtrace" >/dev/null
  json_get "$WORK/s.json" "'%d %d %d' % (d['wall_ns'], d['traced_calls'], d['untraced_wall_ns'][0])"
}
strace_round() { # prints: wall_ns calls
  local t0 t1
  t0=$(date +%s%N)
  (cd "$REPO" && strace -f --seccomp-bpf -qq -e trace="$CALLS" -o "$WORK/strace.out" git status >/dev/null)
  t1=$(date +%s%N)
  # A call split by another thread's ("<unfinished ...>" then "<... resumed>") counts once.
  echo "$((t1 - t0)) $(grep -v 'resumed>' "$WORK/strace.out" | grep -vc '^[0-9]* *+++')"
}

printf '%-6s %14s %14s %8s %10s %10s %16s\n' round "fsbench ms" "strace ms" ratio "fsb calls" "strace calls" "fsb/untraced"
ratios=()
for r in $(seq 1 "$ROUNDS"); do
  if (( r % 2 )); then
    read -r fw fc fu < <(fsbench_round); read -r sw sc < <(strace_round)
  else
    read -r sw sc < <(strace_round); read -r fw fc fu < <(fsbench_round)
  fi
  ratio_r=$(ratio "$fw" "$sw"); ratios+=("$ratio_r")
  printf '%-6s %14.1f %14.1f %8s %10s %10s %16s\n' "$r" "$(awk "BEGIN {print $fw / 1e6}")" \
    "$(awk "BEGIN {print $sw / 1e6}")" "$ratio_r" "$fc" "$sc" "$(ratio "$fw" "$fu")"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
echo "median fsbench/strace traced wall: $median (below 1: fsbench's recording costs the program less than strace's)"
echo "fsbench's own line of the last round: $(grep 'traced run took' "$WORK/rec.err" | sed 's/^fsbench: //')"
