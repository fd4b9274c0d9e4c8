//! The last resort of a process that must exit now (a second signal, the grace period after
//! the first, a panic): every live child process group killed, then what must be said before
//! leaving (exports, the store's mark), every lab torn down, every scratch removed. The sequence
//! is written once here; the signal watcher and the panic hook both call it. What each step
//! undoes was registered when it was made (the children by `fsbench_workload::child`, the labs
//! by `fsbench_lab`, the scratches by `fsbench_scratch`), since these paths have no other way
//! to reach it.

/// Releases everything this process made; `last_words` runs after the children are gone and
/// before the teardown. Returns the lines to show the user.
pub fn release_all(last_words: impl FnOnce()) -> Vec<String> {
    fsbench_workload::child::kill_all_groups();
    last_words();
    let lines = fsbench_lab::teardown_all_live();
    fsbench_scratch::remove_all_live();
    lines
}
