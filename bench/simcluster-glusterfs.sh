#!/usr/bin/env bash
# Several clients of one GlusterFS volume, on one machine (root): a simulated cluster
# (tests/cluster/simcluster.sh) whose host sim1 serves a volume (glusterd with its state in
# tmpfs inside sim1, one brick in the cluster's shared directory) and whose other hosts mount it
# with the glusterfs FUSE client at /tmp/glusterfs; then mpirun runs fsbench on the clients,
# RANKS ranks each, on two targets: `glusterfs` (every client host on the same volume: IOR's and
# mdtest's shared-filesystem case) and `direct` (a directory beside the brick on the server's
# disk, seen directly by every client: the "local disk" of the CSAIL study). The single-client
# lab kind is `fsbench run --lab glusterfs` (docs/lab.md); this is its several-hosts form.
#
#   bench/simcluster-glusterfs.sh [CLIENTS [RANKS]] -- FSBENCH-RUN-ARGS...
#   bench/simcluster-glusterfs.sh 2 1 -- --runs 3 -w postmark:number=200 -w tar-extract:scale=0.01
#
# FSBENCH is the fsbench built with MPI (default target/mpi/debug/fsbench: cargo test builds it,
# or CARGO_TARGET_DIR=target/mpi cargo build --features mpi). The hosts see the checkout, the
# binary's directory and the data directory; SIMCLUSTER_SEE=DIR[:DIR...] adds more (where an
# output such as --json FILE is written, when it lies elsewhere: each host has its own /tmp).
# Everything (namespaces, glusterd,
# bricks, mounts) goes when the script ends; the results are stored as usual.
# Needs: openmpi-bin, glusterfs-server, glusterfs-client, iproute2.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
clients="${1:-2}" ranks="${2:-1}"
[ "${3:-}" = -- ] || [ "${1:-}" = -- ] || { echo "usage: $0 [CLIENTS [RANKS]] -- FSBENCH-RUN-ARGS..." >&2; exit 2; }
while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
shift
[ "$(id -u)" = 0 ] || { echo "$0: needs root (namespaces, FUSE)" >&2; exit 2; }
for t in mpirun glusterd gluster glusterfs ip; do
  command -v "$t" >/dev/null || { echo "$0: $t is missing — apt-get install openmpi-bin glusterfs-server glusterfs-client iproute2" >&2; exit 2; }
done
FSBENCH="${FSBENCH:-$root/target/mpi/debug/fsbench}"
[ -x "$FSBENCH" ] || { echo "$0: no $FSBENCH — build it with CARGO_TARGET_DIR=target/mpi cargo build --features mpi" >&2; exit 2; }
SC="$root/tests/cluster/simcluster.sh"

data="${XDG_DATA_HOME:-$HOME/.local/share}"
dir="$(mktemp -d "${TMPDIR:-/var/tmp}/simcluster-glusterfs.XXXXXX")"
mkdir -p "$dir/shared/brick" "$dir/shared/direct" "$dir/log" "$data"
# The caller's SIMCLUSTER_SEE too: where its outputs go (`--json FILE` outside the checkout).
export SIMCLUSTER_SEE="$root:$(dirname "$FSBENCH"):$data${SIMCLUSTER_SEE:+:$SIMCLUSTER_SEE}"
coproc CLUSTER { "$SC" up "$dir" "$((clients + 1))" "$dir/shared"; }
cleanup() {
  exec {CLUSTER[1]}>&- 2>/dev/null || true
  wait "$CLUSTER_PID" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
read -r ready <&"${CLUSTER[0]}"
[ "$ready" = ready ] || { echo "$0: the cluster did not start" >&2; exit 3; }

# The server: glusterd in sim1 with its state, logs and sockets in tmpfs there (never the
# machine's /var/lib/glusterd), one brick in the shared directory, a distributed volume given by
# sim1's address (glusterd refuses loopback addresses for bricks).
"$SC" exec "$dir" sim1 sh -c "for d in /var/lib/glusterd /var/log/glusterfs /run; do mount -t tmpfs gluster-sim1 \$d; done
  mkdir -p /run/gluster && setsid glusterd -p /run/gluster/glusterd.pid
  i=0; until gluster --mode=script pool list >/dev/null 2>&1; do i=\$((i + 1)); [ \$i -lt 100 ] || exit 3; sleep 0.2; done
  gluster --mode=script volume create fsbench 10.77.0.11:$dir/shared/brick force >/dev/null
  gluster --mode=script volume start fsbench >/dev/null"

# The clients: each host mounts the same volume at /tmp/glusterfs (its log in the cluster dir).
hosts=""
for i in $(seq 2 "$((clients + 1))"); do
  "$SC" exec "$dir" "sim$i" sh -c "mkdir -p /tmp/glusterfs && setsid glusterfs --volfile-server=10.77.0.11 \
    --volfile-id=fsbench --log-file=$dir/log/sim$i.log /tmp/glusterfs
    i=0; until grep -q ' /tmp/glusterfs fuse.glusterfs ' /proc/self/mounts; do i=\$((i + 1)); [ \$i -lt 100 ] || exit 3; sleep 0.1; done"
  hosts="${hosts:+$hosts,}sim$i:$ranks"
done

# --bind-to none: the hosts share this machine's CPUs, and each host's daemon would bind its
# first rank to core 0 (every host's to the same core).
SIMCLUSTER_DIR="$dir" "$SC" exec "$dir" head mpirun --allow-run-as-root --oversubscribe --bind-to none \
  --host "$hosts" -n "$((clients * ranks))" --map-by "ppr:$ranks:node" \
  --mca plm_rsh_agent "$SC rsh" --mca plm_rsh_no_tree_spawn 1 \
  --mca btl self,vader,tcp --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24 \
  -x NO_COLOR=1 -x "XDG_DATA_HOME=$data" \
  "$FSBENCH" run -t "direct=$dir/shared/direct" -t glusterfs=/tmp/glusterfs "$@"
