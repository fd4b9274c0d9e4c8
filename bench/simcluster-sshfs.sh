#!/usr/bin/env bash
# Several clients of one network filesystem, on one machine (root): a simulated cluster
# (tests/cluster/simcluster.sh) whose host sim1 serves a directory over ssh (sshd in sim1's
# namespaces) and whose other hosts mount it with sshfs (FUSE) at /tmp/sshfs, then mpirun runs
# fsbench on the clients, RANKS ranks each, on two targets: `sshfs` (the network filesystem) and
# `direct` (a directory beside the exported one on the server's disk, bind-mounted into every client: the "local disk" of
# the study). The closest this kernel (no NFS, no AFS client) comes to the CSAIL seed's setup.
#
#   bench/simcluster-sshfs.sh [CLIENTS [RANKS]] -- FSBENCH-RUN-ARGS...
#   bench/simcluster-sshfs.sh 2 1 -- --runs 3 -w postmark:number=1000 -w tar-extract:scale=0.05
#
# FSBENCH is the fsbench built with MPI (default target/mpi/debug/fsbench: cargo test builds it,
# or CARGO_TARGET_DIR=target/mpi cargo build --features mpi). Everything (namespaces, sshd,
# sshfs mounts, keys) goes when the script ends; the results are stored as usual.
# Needs: openmpi-bin, openssh-server, openssh-client, sshfs, iproute2.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
clients="${1:-2}" ranks="${2:-1}"
[ "${3:-}" = -- ] || [ "${1:-}" = -- ] || { echo "usage: $0 [CLIENTS [RANKS]] -- FSBENCH-RUN-ARGS..." >&2; exit 2; }
while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
shift
[ "$(id -u)" = 0 ] || { echo "$0: needs root (namespaces, FUSE)" >&2; exit 2; }
for t in mpirun sshd sshfs ssh-keygen ip; do
  command -v "$t" >/dev/null || { echo "$0: $t is missing — apt-get install openmpi-bin openssh-server openssh-client sshfs iproute2" >&2; exit 2; }
done
FSBENCH="${FSBENCH:-$root/target/mpi/debug/fsbench}"
[ -x "$FSBENCH" ] || { echo "$0: no $FSBENCH — build it with CARGO_TARGET_DIR=target/mpi cargo build --features mpi" >&2; exit 2; }
SC="$root/tests/cluster/simcluster.sh"

data="${XDG_DATA_HOME:-$HOME/.local/share}"
dir="$(mktemp -d "${TMPDIR:-/var/tmp}/simcluster-sshfs.XXXXXX")"
mkdir -p "$dir/shared/export" "$dir/shared/direct" "$dir/ssh" "$data"
# The hosts see the checkout, the binary and the results database even where they lie under the
# /tmp each host has its own of.
export SIMCLUSTER_SEE="$root:$(dirname "$FSBENCH"):$data"
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

# The server: sshd in sim1, root's key only, on the cluster's bridge.
ssh-keygen -q -t ed25519 -N '' -f "$dir/ssh/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$dir/ssh/id"
cp "$dir/ssh/id.pub" "$dir/ssh/authorized_keys"
cat >"$dir/ssh/sshd_config" <<EOF
ListenAddress 10.77.0.11
HostKey $dir/ssh/host_key
AuthorizedKeysFile $dir/ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile none
Subsystem sftp internal-sftp
EOF
"$SC" exec "$dir" sim1 sh -c "mount -t tmpfs run-sim1 /run && mkdir -p /run/sshd && $(command -v sshd) -f $dir/ssh/sshd_config -E $dir/ssh/sshd.log"

# The clients: sshfs from sim1 at /tmp/sshfs (no attribute or directory cache beyond sshfs's
# defaults; writes go to the server's disk through sftp).
hosts=""
for i in $(seq 2 "$((clients + 1))"); do
  "$SC" exec "$dir" "sim$i" sh -c "mkdir -p /tmp/sshfs && sshfs root@sim1:$dir/shared/export /tmp/sshfs \
    -o IdentityFile=$dir/ssh/id,StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,LogLevel=ERROR"
  hosts="${hosts:+$hosts,}sim$i:$ranks"
done

# --bind-to none: the hosts share this machine's CPUs, and each host's daemon would bind its
# first rank to core 0 (every host's to the same core).
SIMCLUSTER_DIR="$dir" "$SC" exec "$dir" head mpirun --allow-run-as-root --oversubscribe --bind-to none \
  --host "$hosts" -n "$((clients * ranks))" --map-by "ppr:$ranks:node" \
  --mca plm_rsh_agent "$SC rsh" --mca plm_rsh_no_tree_spawn 1 \
  --mca btl self,vader,tcp --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24 \
  -x NO_COLOR=1 -x "XDG_DATA_HOME=$data" \
  "$FSBENCH" run -t "direct=$dir/shared/direct" -t sshfs=/tmp/sshfs "$@"
