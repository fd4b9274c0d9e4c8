//! The lab's own mount namespace: `fsbench run` with a lab (`--lab`, or a suite's `lab = [...]`)
//! moves into a mount namespace of its own before it starts a thread, so that every lab mount —
//! loop filesystems, FUSE mounts, a served target's client mount — is fsbench's alone and goes
//! with the run's last process however the run ends (SIGKILL included). From outside, the lab
//! targets are seen through fsbench's namespace: `nsenter -t PID -m ls DIR` (PID printed on the
//! lab's first line) or `/proc/PID/root/DIR`. Under MPI, with the `nfs` kind (the machine's NFS
//! server must see what it exports), without root or after a thread started, the run stays in
//! the machine's namespace (as before: `fsbench clean` undoes a dead run's lab).

use crate::error::CliResult;
use fsbench_spec::RunSpec;

/// The lab kinds `spec` asks for (the suite's `lab` counts); an invalid input gives none here
/// and is refused with its reason later, where every input is checked.
fn lab_kinds(spec: &CliResult<RunSpec>) -> Vec<String> {
    let Ok(spec) = spec else {
        return Vec::new();
    };
    if !spec.lab.kinds.is_empty() {
        return spec.lab.kinds.clone();
    }
    let mut spec = spec.clone();
    match fsbench_spec::suite::resolve(&mut spec) {
        Ok(_) => spec.lab.kinds,
        Err(_) => Vec::new(),
    }
}

/// Enters the lab's own mount namespace when `spec` asks for a lab, as root, outside MPI; says
/// in one line why not when it cannot (the lab then needs `fsbench clean` after a SIGKILL).
/// Returns whether it did.
pub fn enter(spec: &CliResult<RunSpec>) -> bool {
    let env = |k: &str| std::env::var(k).ok();
    let mpi = fsbench_cluster::launched_ranks(&env).is_some();
    let kinds = lab_kinds(spec);
    // The `nfs` kind's export is resolved by the machine's NFS server, in the machine's mount
    // namespace: its mount must be there.
    let nfs = kinds.iter().any(|k| k.split(':').next() == Some("nfs"));
    if mpi || nfs || kinds.is_empty() || !rustix::process::geteuid().is_root() {
        return false;
    }
    match fsbench_sys::mountns::enter_own() {
        Ok(()) => true,
        Err(e) => {
            crate::errln!(
                "fsbench: note: the lab stays in the machine's mount namespace ({e}): after a SIGKILL, 'fsbench clean DIR' removes what it left"
            );
            false
        }
    }
}
