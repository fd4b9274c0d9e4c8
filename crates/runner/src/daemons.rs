//! Which FUSE daemons serve what a workload touches: the target's filesystem and, for workloads
//! that read an existing tree (`tree=PATH`), that tree's filesystem. Looked up once per target at
//! preparation, so that each sample reads only the daemons' `/proc/PID/stat`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Pids of the FUSE daemons serving `target` or the `tree=PATH` parameter of `params`, sorted and
/// without duplicates; empty when neither is on FUSE or no daemon is visible.
pub fn lookup(target: &Path, params: &BTreeMap<String, String>) -> Vec<i32> {
    let mut paths = vec![target.to_path_buf()];
    if let Some(tree) = params
        .get(fsbench_model::param::TREE)
        .filter(|t| t.as_str() != "generated")
    {
        paths.push(PathBuf::from(tree));
    }
    let all = fsbench_envinfo::mounts();
    let mut pids: Vec<i32> = paths
        .iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .filter_map(|p| fsbench_envinfo::mount_of(&p, &all))
        .flat_map(|m| fsbench_envinfo::fuse_daemon_pids(Path::new(&m.mount_point)))
        .collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_daemon_for_a_plain_directory() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut params = BTreeMap::new();
        params.insert("tree".to_string(), "/nonexistent/tree".to_string());
        assert!(lookup(dir.path(), &params).is_empty());
        params.insert("tree".to_string(), "generated".to_string());
        assert!(lookup(Path::new("/nonexistent"), &params).is_empty());
    }
}
