#!/usr/bin/env bash
# simcluster.sh: N simulated hosts on this one kernel, for MPI runs across hosts (root only).
#
#   simcluster.sh up DIR N [SHARED]    build the cluster, print "ready", then hold it until stdin
#                                      closes (or this process dies, however): then it is gone.
#                                      With SIMCLUSTER_SHARED_SIZE=64m, SHARED is a tmpfs of that
#                                      size seen only inside the cluster (a small shared disk).
#                                      SIMCLUSTER_SEE=PATH[:PATH...]: more that every host must
#                                      see (the program the ranks run, their working directory)
#   simcluster.sh exec DIR HOST CMD... run CMD inside HOST's namespaces ("head" is the switch side,
#                                      where mpirun belongs; sim1..simN are the hosts)
#   simcluster.sh rsh HOST CMD...      the launcher Open MPI calls as plm_rsh_agent (as it calls
#                                      ssh: host, then the command as words for a shell); the
#                                      cluster is $SIMCLUSTER_DIR
#
# What a host is: a network namespace (its own eth0, 10.77.0.(10+i)/24, on a bridge in the switch
# namespace, whose own address 10.77.0.1 is the head's; the head has a /tmp of its own too), a UTS
# namespace (hostname simI), a mount namespace (its own /tmp and /dev/shm, tmpfs; its own /proc;
# its own /etc/hosts naming every host; SHARED, if given, bind-mounted at the same path), and a PID
# namespace (its processes, with a small init that reaps them). Nothing is created in the caller's namespaces: every link lives
# in the switch or a host namespace, every mount in a private mount namespace, every process under
# one outer PID namespace whose init is the supervisor (`up`). When the supervisor ends (stdin
# closed, SIGTERM, SIGKILL of it or of the `unshare` above it), the kernel kills every process of
# the cluster, the namespaces lose their last process, and the links, addresses and mounts go with
# them.
#
# Wherever the caller's files live: what the hosts run from must not vanish under their own /tmp.
# DIR, this script's directory (Open MPI's daemons check that their plm_rsh_agent exists) and the
# SIMCLUSTER_SEE paths are bind-mounted back at the same paths when they lie under /tmp or
# /dev/shm, so a checkout in /tmp/x (mode 700 or not) works as one in a home directory does. And
# the cluster's namespaces keep no copy of the mounts other programs made under /tmp, /var/tmp,
# /dev/shm or those paths: a copy would keep such a filesystem (a test's lab) busy after its owner
# unmounted it.
#
# A daemon started by `rsh` runs in the foreground under a keeper, in a session of its own on the
# host: when the daemon dies (killed, or the job ended), the processes it started and left die
# with it (SIGKILL), as on a node whose daemon is gone; what those started in turn (a scratch
# guard, which removes its rank's scratch and exits) gets a grace period first.
set -euo pipefail

SELF="$(readlink -f "$0")"
SUBNET=10.77.0

die() { echo "simcluster: $*" >&2; exit 2; }

# marker ID NAME: argv[0] of the init of host NAME of cluster ID (how `exec`/`rsh` find it).
marker() { echo "simcluster:$1:$2"; }

# find_pid ID NAME: the pid (in our PID namespace) of that init, or nothing.
find_pid() {
  local want p arg0
  want="$(marker "$1" "$2")"
  for p in /proc/[0-9]*; do
    { IFS= read -r -d '' arg0 <"$p/cmdline"; } 2>/dev/null || continue
    if [ "$arg0" = "$want" ]; then
      echo "${p#/proc/}"
      return 0
    fi
  done
  return 1
}

# A reaping init: waits for children forever (bash reaps every child it is given, adopted ones too).
REAPER='trap "exit 0" TERM; while :; do sleep 3600 & wait $! || true; done'

# private PATH: true when PATH lies under /tmp or /dev/shm, which every host has its own of.
private() { case "$1" in /tmp/* | /dev/shm/*) return 0 ;; *) return 1 ;; esac; }

# own_tmp NAME SEE: a /tmp and a /dev/shm of this namespace's own (tmpfs), with the SEE paths
# (one a line, parents first) that lie under the caller's bound back at the same paths: each is
# held open before the new /tmp hides it. Every host has its own, and so has the head (Open MPI's
# mpirun keeps its session directory in /tmp, named after the host: two clusters' heads, both
# "head", must not meet there).
own_tmp() {
  local name="$1" see="$2" p fd
  local -a keep=() fds=()
  while IFS= read -r p; do
    [ -n "$p" ] && private "$p" || continue
    exec {fd}<"$p"
    keep+=("$p") fds+=("$fd")
  done <<<"$see"
  mount -t tmpfs -o mode=1777,size=256m "tmpfs-$name" /tmp
  # Shared memory too (Open MPI's shared-memory transport names its segments after the host:
  # two clusters' sim1 must not meet there).
  mount -t tmpfs -o mode=1777,size=256m "shm-$name" /dev/shm
  for p in "${!keep[@]}"; do
    fd="${fds[$p]}"
    if [ -d "/proc/self/fd/$fd" ]; then
      mkdir -p "${keep[$p]}"
    else
      mkdir -p "$(dirname "${keep[$p]}")"
      : >"${keep[$p]}"
    fi
    mount --no-canonicalize --bind "/proc/self/fd/$fd" "${keep[$p]}"
    exec {fd}<&-
  done
}

host_setup() { # host_setup NAME HOSTS SHARED SEE (runs as pid 1 of the new host namespaces)
  local name="$1" hosts="$2" shared="$3" see="$4"
  hostname "$name"
  ip link set lo up
  # Held open across the new /tmp, which may hide them.
  exec 8<"$hosts"
  [ -z "$shared" ] || exec 9<"$shared"
  own_tmp "$name" "$see"
  mount --no-canonicalize --bind /proc/self/fd/8 /etc/hosts
  if [ -n "$shared" ]; then
    mkdir -p "$shared"
    mount --no-canonicalize --bind /proc/self/fd/9 "$shared"
  fi
  exec 8<&- 9<&-
}

cmd_up() {
  [ "$(id -u)" = 0 ] || die "needs root (network, UTS, mount and PID namespaces)"
  [ $# -ge 2 ] || die "usage: simcluster.sh up DIR N [SHARED]"
  local dir n shared
  dir="$(readlink -f "$1")" n="$2" shared="${3:-}"
  [ -d "$dir" ] || die "$dir is not a directory — make it first"
  [[ "$n" =~ ^[1-9][0-9]?$ ]] || die "N must be 1 to 99 hosts, not '$n'"
  if [ -n "$shared" ]; then
    shared="$(readlink -f "$shared")"
    [ -d "$shared" ] || die "shared directory $shared does not exist — make it first"
  fi
  local see
  see="$(seen "$dir")"
  # The supervisor is pid 1 of an outer PID namespace with its own /proc: its death ends all.
  exec unshare --pid --fork --kill-child --mount-proc -- "$SELF" __supervise "$dir" "$n" "$shared" "$see"
}

# seen DIR: what every host must see, canonical, one a line, each parent before what is under
# it: DIR, this script's directory, and the SIMCLUSTER_SEE paths (which must exist). /tmp and
# /dev/shm themselves cannot be: each host has its own.
seen() {
  local p
  local -a paths=("$1" "$(dirname "$SELF")")
  local IFS=:
  for p in ${SIMCLUSTER_SEE:-}; do
    [ -e "$p" ] || die "SIMCLUSTER_SEE: $p does not exist"
    paths+=("$(readlink -f "$p")")
  done
  for p in "${paths[@]}"; do
    case "$p" in
      /tmp | /dev/shm) die "the hosts cannot see $p itself: each has its own — use a directory in it" ;;
    esac
    echo "$p"
  done | LC_ALL=C sort -u
}

# below PATH ROOT: true when PATH lies strictly below ROOT.
below() { [ "${1#"$2"/}" != "$1" ]; }

# detach_copies SEE SHARED: in this (new, private) mount namespace, lets go of the copies of the
# mounts that other programs made under /tmp, /var/tmp, /dev/shm or the paths the hosts see — a
# test's lab, say, built before the cluster and torn down while it runs: a copy held here would
# keep that filesystem, and the loop device under it, busy after its owner unmounted it. What
# the hosts see, and SHARED, stay (and so does every mount above them).
detach_copies() {
  local see="$1" shared="$2" m r k keep
  local -a roots=(/tmp /var/tmp /dev/shm) kept=()
  while IFS= read -r r; do [ -z "$r" ] || roots+=("$r") kept+=("$r"); done <<<"$see"
  [ -z "$shared" ] || kept+=("$shared")
  findmnt -ln -o TARGET | LC_ALL=C sort -r | while IFS= read -r m; do
    for r in "${roots[@]}"; do
      below "$m" "$r" || continue
      keep=
      for k in "${kept[@]}"; do
        if [ "$m" = "$k" ] || below "$k" "$m"; then keep=1; fi
      done
      [ -n "$keep" ] || umount -l "$m" 2>/dev/null || true
      break
    done
  done
}

cmd_supervise() {
  local dir="$1" n="$2" shared="$3" see="$4" i pid
  # Stop when asked, or when whoever started us is gone (stdin closes).
  trap 'exit 0' TERM INT HUP
  detach_copies "$see" "$shared"
  # A small shared filesystem (a tmpfs of that size, in this mount namespace only).
  if [ -n "${SIMCLUSTER_SHARED_SIZE:-}" ] && [ -n "$shared" ]; then
    mount -t tmpfs -o "size=$SIMCLUSTER_SHARED_SIZE,mode=755" simcluster-shared "$shared"
  fi
  {
    echo "127.0.0.1 localhost"
    echo "$SUBNET.1 head"
    for i in $(seq 1 "$n"); do echo "$SUBNET.$((10 + i)) sim$i"; done
  } >"$dir/hosts"
  for i in $(seq 1 "$n"); do echo "sim$i slots=64"; done >"$dir/hostfile"
  # The switch: a bridge in its own network namespace, the head's address on it.
  unshare --net --uts --mount -- bash -c '
    set -e
    . "$1" __lib
    hostname head; ip link set lo up; mount --bind "$2" /etc/hosts; own_tmp head "$3"
    ip link add br0 type bridge; ip addr add "$4.1/24" dev br0; ip link set br0 up
    exec -a "$5" bash -c "$6"' _ "$SELF" "$dir/hosts" "$see" "$SUBNET" "$(marker "$dir" head)" \
    "$REAPER" &
  wait_for "$dir" head $!
  local sw
  sw="$(find_pid "$dir" head)"
  for i in $(seq 1 "$n"); do
    unshare --net --uts --mount --pid --fork --mount-proc -- bash -c '
      set -e
      . "$1" __lib; host_setup "$2" "$3" "$4" "$5"
      exec -a "$6" bash -c "$7"' _ "$SELF" "sim$i" "$dir/hosts" "$shared" "$see" \
      "$(marker "$dir" "sim$i")" "$REAPER" &
    pid=$!
    wait_for "$dir" "sim$i" "$pid"
    nsenter --net="/proc/$sw/ns/net" -- ip link add "v$i" type veth peer name eth0 netns "$pid"
    nsenter --net="/proc/$sw/ns/net" -- ip link set "v$i" master br0 up
    nsenter --net="/proc/$pid/ns/net" -- ip addr add "$SUBNET.$((10 + i))/24" dev eth0
    nsenter --net="/proc/$pid/ns/net" -- ip link set eth0 up
  done
  echo ready
  # Hold the cluster until stdin closes.
  cat >/dev/null || true
}

wait_for() { # wait_for DIR NAME PID: until that init runs (10 s at most, while PID lives)
  local t
  for t in $(seq 1 200); do
    find_pid "$1" "$2" >/dev/null && return 0
    kill -0 "$3" 2>/dev/null || break
    sleep 0.05
  done
  die "host $2 did not start"
}

cmd_exec() {
  [ $# -ge 3 ] || die "usage: simcluster.sh exec DIR HOST CMD..."
  local dir pid host="$2"
  dir="$(readlink -f "$1")"
  pid="$(find_pid "$dir" "$host")" || die "no host '$host' in cluster $dir — is 'simcluster.sh up $dir' running?"
  shift 2
  # The head has no PID namespace of its own: CMD (mpirun) stays this process, so that a signal
  # sent to it (Ctrl-C) reaches CMD itself.
  if [ "$host" = head ]; then
    exec nsenter -t "$pid" --net --uts --mount --wd="$PWD" -- "$@"
  fi
  exec nsenter -t "$pid" --net --uts --mount --pid --wd="$PWD" -- "$@"
}

# The daemon's keeper, the leader of a session of its own on the host: runs the command and
# notes, while it runs, the processes the daemon started (its children: the ranks). When it ends,
# those still alive die with it (SIGKILL), as on a node whose daemon is gone; the rest of the
# session (what the ranks started: a scratch guard, which removes its rank's scratch and exits)
# gets 10 s to finish by itself, then SIGTERM, then SIGKILL. Only the noted ranks are killed at
# once: a guard whose rank the daemon already ended is in the middle of its cleanup. Returns the
# command's status. The ranks share the host's PID namespace with its other processes (a FUSE
# daemon serving a mount there is theirs to see).
DAEMON_KEEPER='
  read -r s </proc/$BASHPID/stat
  read -r _ _ _ sid _ <<<"${s##*) }"
  sh -c "$1" &
  main=$!
  trap "kill -TERM $main 2>/dev/null || true" TERM INT HUP
  # procs: "pid ppid session" of every live process of this session but this shell.
  procs() { local p s st pp pg se; for p in /proc/[0-9]*; do
      [ "$p" = "/proc/$sid" ] || [ "$p" = "/proc/$BASHPID" ] && continue
      read -r s <"$p/stat" 2>/dev/null || continue
      read -r st pp pg se _ <<<"${s##*) }"
      [ "$se" = "$sid" ] && [ "$st" != Z ] && echo "${p#/proc/} $pp"
    done; return 0; }
  ranks=" "
  while kill -0 $main 2>/dev/null; do
    all="$(procs)"
    daemons=" $(while read -r p pp; do [ "$pp" = "$main" ] && echo "$p"; done <<<"$all") "
    while read -r p pp; do
      [ -n "$p" ] && [ "${daemons/ $pp /}" != "$daemons" ] && [ "${ranks/ $p /}" = "$ranks" ] &&
        ranks="$ranks$p "
    done <<<"$all"
    sleep 0.3
  done
  status=0
  wait $main || status=$?
  all="$(procs)"
  for p in $ranks; do
    grep -q "^$p " <<<"$all" && kill -KILL "$p" 2>/dev/null || true
  done
  for t in $(seq 1 100); do [ -n "$(procs)" ] || break; sleep 0.1; done
  left="$(procs | cut -d" " -f1)"; [ -z "$left" ] || kill -TERM $left 2>/dev/null || true
  for t in $(seq 1 50); do [ -n "$(procs)" ] || break; sleep 0.1; done
  left="$(procs | cut -d" " -f1)"; [ -z "$left" ] || kill -KILL $left 2>/dev/null || true
  exit $status'

cmd_rsh() {
  # Open MPI may put options before the host, as it does for ssh; none apply here.
  while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
  [ $# -ge 2 ] || die "usage: simcluster.sh rsh HOST CMD... (with SIMCLUSTER_DIR set)"
  [ -n "${SIMCLUSTER_DIR:-}" ] || die "SIMCLUSTER_DIR is not set — export the cluster's directory"
  local dir pid host="$1"
  dir="$(readlink -f "$SIMCLUSTER_DIR")"
  pid="$(find_pid "$dir" "$host")" || die "no host '$host' in cluster $dir"
  shift
  # In the foreground (as Open MPI runs it under Grid Engine's qrsh), so that its
  # keeper sees the daemon end and can end what it left behind.
  local cmd="$*"
  cmd="${cmd/ --daemonize / }"
  # As over ssh: a login environment, not the caller's; the words are one shell command; a
  # session of its own (mpirun ends its agents' process groups when it exits: that must not reach
  # the keeper before the ranks' guards are done).
  exec nsenter -t "$pid" --net --uts --mount --pid --wd=/ -- \
    env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 USER=root setsid -w bash -c "$DAEMON_KEEPER" _ "$cmd"
}

case "${1:-}" in
  __lib) return 0 2>/dev/null || exit 0 ;;
  up) shift; cmd_up "$@" ;;
  __supervise) shift; cmd_supervise "$@" ;;
  exec) shift; cmd_exec "$@" ;;
  rsh) shift; cmd_rsh "$@" ;;
  *) die "usage: simcluster.sh up DIR N [SHARED] | exec DIR HOST CMD... | rsh HOST CMD..." ;;
esac
